/* Passage — the type solver of InferType (TVM's TypeSolver): relations over
 * types containing holes, run until none makes progress. A sweep runs every
 * relation not yet settled on its resolved types; progress is a relation
 * settling or a hole being bound, so there are at most (relations + holes)
 * productive sweeps. Relations: Identity and Broadcast (TVM's names, for the
 * solver's own tests) and each op's: forward through its type relation once
 * its inputs are known, backward (psgi_type_fill, ops/type_fill.c) to assign
 * inputs such as a conv2d weight from the data and the attributes. */
#include <stdio.h>
#include "ops/op_impl.h"
#include "ops/type_fill.h"
#include "transforms/infer_type_internal.h"

void psgi_solver_init(psgi_solver *s, psg_ctx *ctx) {
  memset(s, 0, sizeof *s);
  psgi_unifier_init(&s->u, ctx);
}

void psgi_solver_fini(psgi_solver *s) {
  for (size_t i = 0; i < s->rels.len; i++) psgi_free(s->u.ctx, s->rels.data[i].types);
  PSGI_VEC_FREE(s->u.ctx, &s->rels);
  psgi_unifier_fini(&s->u);
}

psg_status psgi_solver_add(psgi_solver *s, psgi_relation_fn fn, const psg_type *const *types, int n,
                           int num_inputs, const psg_attrs *attrs, size_t op, const void *where) {
  psg_ctx *ctx = s->u.ctx;
  psgi_relation r = {fn, NULL, n, num_inputs, attrs, op, where, false};
  if (n < 1 || num_inputs < 0 || num_inputs >= n) return PSG_ERR_INVALID_ARGUMENT;
  if (!(r.types = psgi_alloc(ctx, (size_t)n * sizeof *r.types))) return psgi_nomem(ctx);
  memcpy(r.types, types, (size_t)n * sizeof *r.types);
  if (!PSGI_VEC_PUSH(ctx, &s->rels, r)) {
    psgi_free(ctx, r.types);
    return psgi_nomem(ctx);
  }
  return PSG_OK;
}

psg_status psgi_solver_solve(psgi_solver *s, bool *all_done, const psgi_relation **failed) {
  psg_ctx *ctx = s->u.ctx;
  if (failed) *failed = NULL;
  const psg_type *small[16] = {0}, **res = small;
  size_t cap = 16;
  psg_status st = PSG_OK;
  bool progress = true;
  while (progress && !st) {
    progress = false;
    for (size_t i = 0; i < s->rels.len && !st; i++) {
      psgi_relation *r = &s->rels.data[i];
      if (r->done) continue;
      if ((size_t)r->n > cap) {
        if (res != small) psgi_free(ctx, res);
        cap = (size_t)r->n;
        if (!(res = psgi_alloc(ctx, cap * sizeof *res))) {
          res = small;
          st = psgi_nomem(ctx);
          break;
        }
      }
      for (int k = 0; k < r->n && !st; k++) st = psgi_unifier_resolve(&s->u, r->types[k], &res[k]);
      if (st) break;
      size_t before = s->u.nbound;
      st = r->fn(s, res, r->n, r->num_inputs, r->attrs, r->op, &r->done);
      if (st && failed) *failed = r;
      progress |= r->done || s->u.nbound != before;
    }
  }
  if (res != small) psgi_free(ctx, res);
  bool done = true;
  for (size_t i = 0; i < s->rels.len; i++) done &= s->rels.data[i].done;
  if (all_done) *all_done = done && !st;
  return st;
}

psg_status psgi_solver_rel_identity(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                             const psg_attrs *attrs, size_t op, bool *done) {
  (void)num_inputs, (void)attrs, (void)op;
  for (int i = 1; i < n; i++) {
    psg_status st = psgi_unify(&s->u, types[i], types[0], NULL);
    if (st) return st;
  }
  *done = true;
  return PSG_OK;
}

/* Runs op `op`'s forward relation on known inputs and unifies its result
 * with the output type types[n - 1]. */
static psg_status forward(psgi_solver *s, size_t op, const psg_type *const *types, int n,
                          const psg_attrs *attrs, bool *done) {
  const psgi_op_impl *impl = psgi_op_impl_in(s->u.ctx, op);
  psgi_op_call call = {.ctx = s->u.ctx, .op = op, .attrs = attrs};
  const psg_type *out = NULL;
  psg_status st = impl->type_rel(&call, types, (size_t)n - 1, &out);
  if (st) {
    if (st == PSG_ERR_TYPE || call.msg[0])
      snprintf(s->u.msg, sizeof s->u.msg, "%s", call.msg[0] ? call.msg : "type error");
    /* A host's relation (op_register.h) that raised keeps its status. */
    return st == PSG_ERR_NOMEM || st == PSG_ERR_FRONTEND ? st : PSG_ERR_TYPE;
  }
  if ((st = psgi_unify(&s->u, types[n - 1], out, NULL))) return st;
  *done = true;
  return PSG_OK;
}

psg_status psgi_solver_rel_broadcast(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                              const psg_attrs *attrs, size_t op, bool *done) {
  (void)num_inputs, (void)op;
  if (n != 3) return PSG_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < 2; i++)
    if (types[i]->kind != PSG_TYPE_TENSOR) return PSG_OK; /* not known yet */
  ptrdiff_t add = psgi_op_lookup("add", 3);
  return add < 0 ? PSG_ERR_INTERNAL : forward(s, (size_t)add, types, n, attrs, done);
}

psg_status psgi_solver_rel_op(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                       const psg_attrs *attrs, size_t op, bool *done) {
  (void)num_inputs;
  bool known = true;
  for (int i = 0; i + 1 < n; i++) known &= !psgi_type_has_holes(types[i]);
  if (known) return forward(s, op, types, n, attrs, done);
  /* Backward: the op may assign inputs from what is known. */
  const psgi_type_fill_fn fill = psgi_type_fill_get(op);
  if (!fill) return PSG_OK;
  psg_ctx *ctx = s->u.ctx;
  size_t nin = (size_t)n - 1;
  /* in: what the op assigns; known_in: the inputs already known (else NULL). */
  const psg_type *small[32] = {0}, **in = small;
  if (nin > 16 && !(in = psgi_alloc(ctx, 2 * nin * sizeof *in))) return psgi_nomem(ctx);
  const psg_type **known_in = in + nin;
  for (size_t i = 0; i < nin; i++) {
    in[i] = NULL;
    known_in[i] = psgi_type_has_holes(types[i]) ? NULL : types[i];
  }
  const psg_type *out = psgi_type_has_holes(types[n - 1]) ? NULL : types[n - 1];
  psgi_op_call call = {.ctx = ctx, .op = op, .attrs = attrs};
  psg_status st = fill(&call, known_in, nin, out, in);
  if (st && st != PSG_ERR_NOMEM) {
    snprintf(s->u.msg, sizeof s->u.msg, "%s", call.msg[0] ? call.msg : "type error");
    st = PSG_ERR_TYPE;
  }
  for (size_t i = 0; i < nin && !st; i++)
    if (in[i] && !known_in[i]) st = psgi_unify(&s->u, in[i], types[i], NULL);
  if (in != small) psgi_free(ctx, in);
  return st;
}

psgi_relation_fn psgi_relation_by_name(const char *name, size_t *op) {
  *op = 0;
  if (strcmp(name, "Identity") == 0) return psgi_solver_rel_identity;
  if (strcmp(name, "Broadcast") == 0) return psgi_solver_rel_broadcast;
  ptrdiff_t i = psgi_op_lookup(name, strlen(name));
  if (i < 0) return NULL;
  const psgi_op_impl *impl = psgi_op_impl_get((size_t)i);
  if (!impl || !impl->type_rel) return NULL;
  *op = (size_t)i;
  return psgi_solver_rel_op;
}
