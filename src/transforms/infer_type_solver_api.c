/* Passage — the public face of InferType's type solver (type_solver.h):
 * the solver of infer_type_solver.c with the attributes of its relations
 * kept alive and its failures recorded as diagnostics. */
#include "passage/type_solver.h"
#include "transforms/infer_type_internal.h"

struct psg_type_solver {
  psgi_solver s;
  PSGI_VEC(psg_attrs *) attrs; /* retained for the relations */
};

psg_status psg_type_solver_create(psg_ctx *ctx, psg_type_solver **out) {
  *out = psgi_calloc(ctx, sizeof **out);
  if (!*out) return psgi_nomem(ctx);
  psgi_solver_init(&(*out)->s, ctx);
  return PSG_OK;
}

void psg_type_solver_free(psg_type_solver *s) {
  if (!s) return;
  psg_ctx *ctx = s->s.u.ctx;
  for (size_t i = 0; i < s->attrs.len; i++) psg_attrs_release(s->attrs.data[i]);
  PSGI_VEC_FREE(ctx, &s->attrs);
  psgi_solver_fini(&s->s);
  psgi_free(ctx, s);
}

static psg_status report(psg_type_solver *s, psg_status st) {
  if (st == PSG_ERR_TYPE)
    psgi_diag_add(s->s.u.ctx, PSG_SEVERITY_ERROR, st, NULL, 0, 0, NULL, 0, NULL, "%s",
                  s->s.u.msg[0] ? s->s.u.msg : "type error");
  return st;
}

psg_status psg_type_solver_unify(psg_type_solver *s, const psg_type *a, const psg_type *b, const psg_type **out) {
  if (out) *out = NULL;
  if (!s || !a || !b) return PSG_ERR_INVALID_ARGUMENT;
  psg_status st = psgi_unify(&s->s.u, a, b, out);
  if (st && out) *out = NULL;
  return report(s, st);
}

psg_status psg_type_solver_resolve(psg_type_solver *s, const psg_type *t, const psg_type **out) {
  *out = NULL;
  if (!s || !t) return PSG_ERR_INVALID_ARGUMENT;
  return psgi_unifier_resolve(&s->s.u, t, out);
}

psg_status psg_type_solver_add_relation(psg_type_solver *s, const char *name, const psg_type *const *types, int n,
                                        int num_inputs, psg_attrs *attrs) {
  if (!s || !name || n < 1 || !types || num_inputs < 0 || num_inputs >= n) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->s.u.ctx;
  for (int i = 0; i < n; i++)
    if (!types[i]) return PSG_ERR_INVALID_ARGUMENT;
  size_t op = 0;
  psgi_relation_fn fn = psgi_relation_by_name(name, &op);
  if (!fn)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_NOT_FOUND, NULL, 0, 0, NULL, 0, NULL,
                         "no type relation named '%s'", name);
  if (attrs) {
    if (!PSGI_VEC_PUSH(ctx, &s->attrs, attrs)) return psgi_nomem(ctx);
    psg_attrs_retain(attrs);
  }
  return psgi_solver_add(&s->s, fn, types, n, num_inputs, attrs, op, NULL);
}

psg_status psg_type_solver_solve(psg_type_solver *s, bool *all_solved) {
  if (all_solved) *all_solved = false;
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  return report(s, psgi_solver_solve(&s->s, all_solved, NULL));
}
