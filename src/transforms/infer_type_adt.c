/* Passage — InferType for ADTs and references (TVM's typing of Constructor,
 * Match and Ref*): a constructor's polymorphic function type from its
 * TypeData, the types a match pattern gives its variables (by unification
 * with the matched value's type), and the reference rules. Patterns are flat
 * (pre-order), so the walk is a loop over a stack of expected types. */
#include <stdio.h>
#include "transforms/infer_type_internal.h"

psg_status psgi_constructor_type(psg_ctx *ctx, const psg_module *mod, const psg_expr *ctor, const psg_type **out,
                                 char *msg, size_t cap) {
  *out = NULL;
  const psg_type_data *td = mod ? psg_module_lookup_type_def(mod, ctor->u.ctor.belongs_to) : NULL;
  if (!td) {
    snprintf(msg, cap, "constructor %s: its type %s is not defined in the module", ctor->u.ctor.name,
             ctor->u.ctor.belongs_to->name);
    return PSG_ERR_TYPE;
  }
  const psg_type *ret = NULL;
  psg_status st = psg_type_call(ctx, td->header, td->tvars, td->ntvars, &ret);
  if (!st)
    st = psg_type_func_poly(ctx, ctor->u.ctor.inputs->fields, ctor->u.ctor.inputs->n, ret, td->tvars, td->ntvars,
                            out);
  return st;
}

typedef PSGI_VEC(const psg_type *) type_vec;

/* Expected types for the fields of constructor `c` matched against `want`:
 * want is unified with the ADT applied to fresh holes, and the fields are
 * the inputs with the type parameters replaced by those holes. */
static psg_status ctor_fields(psgi_unifier *u, const psg_module *mod, const psg_expr *c, uint32_t nsub,
                              const psg_type *want, type_vec *out) {
  psg_ctx *ctx = u->ctx;
  if (nsub != (uint32_t)c->u.ctor.inputs->n) {
    snprintf(u->msg, sizeof u->msg, "constructor %s takes %d fields, the pattern has %u", c->u.ctor.name,
             c->u.ctor.inputs->n, nsub);
    return PSG_ERR_TYPE;
  }
  const psg_type_data *td = mod ? psg_module_lookup_type_def(mod, c->u.ctor.belongs_to) : NULL;
  if (!td) {
    snprintf(u->msg, sizeof u->msg, "constructor %s: its type %s is not defined in the module", c->u.ctor.name,
             c->u.ctor.belongs_to->name);
    return PSG_ERR_TYPE;
  }
  const psg_type *small[16], **holes = small, *adt = NULL;
  if (td->ntvars > 16 && !(holes = psgi_alloc(ctx, (size_t)td->ntvars * sizeof *holes))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (int i = 0; i < td->ntvars && !st; i++) st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &holes[i]);
  if (!st) st = psg_type_call(ctx, td->header, holes, td->ntvars, &adt);
  if (!st) st = psgi_unify(u, want, adt, NULL);
  for (int i = c->u.ctor.inputs->n; !st && i-- > 0;) { /* reversed: the stack pops the first field first */
    const psg_type *f = NULL;
    st = psgi_type_subst(ctx, c->u.ctor.inputs->fields[i], td->tvars, holes, td->ntvars, &f);
    if (!st && !PSGI_VEC_PUSH(ctx, out, f)) st = psgi_nomem(ctx);
  }
  if (holes != small) psgi_free(ctx, holes);
  return st;
}

psg_status psgi_infer_match_patterns(psgi_unifier *u, const psg_module *mod, const psg_expr *m,
                                     const psg_type *data, const psg_type **kid_types) {
  psg_ctx *ctx = u->ctx;
  const psgi_match_info *mi = m->u.match;
  type_vec want = {0};
  psg_status st = PSG_OK;
  for (uint32_t c = 0; c < mi->nclauses && !st; c++) {
    uint32_t kv = mi->kid_start[c];
    want.len = 0;
    if (!PSGI_VEC_PUSH(ctx, &want, data)) st = psgi_nomem(ctx);
    for (uint32_t i = mi->pat_start[c]; i < mi->pat_start[c + 1] && !st; i++) {
      const psgi_pat_node *nd = &mi->pats[i];
      const psg_type *t = want.data[--want.len];
      if (nd->kind == PSG_PATTERN_VAR) {
        const psg_expr *v = m->kids[kv];
        if (!kid_types[kv]) kid_types[kv] = psgi_var_annotation(v);
        if (!kid_types[kv]) kid_types[kv] = t;
        else st = psgi_unify(u, kid_types[kv], t, NULL);
        kv++;
      } else if (nd->kind == PSG_PATTERN_CONSTRUCTOR) {
        st = ctor_fields(u, mod, nd->ctor, nd->nsub, t, &want);
      } else if (nd->kind == PSG_PATTERN_TUPLE) {
        const psg_type *small[16], **holes = small, *tup = NULL;
        if (nd->nsub > 16 && !(holes = psgi_alloc(ctx, nd->nsub * sizeof *holes))) st = psgi_nomem(ctx);
        for (uint32_t k = 0; k < nd->nsub && !st; k++) st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &holes[k]);
        if (!st) st = psg_type_tuple(ctx, holes, (int)nd->nsub, &tup);
        if (!st) st = psgi_unify(u, t, tup, NULL);
        for (uint32_t k = nd->nsub; !st && k-- > 0;)
          if (!PSGI_VEC_PUSH(ctx, &want, holes[k])) st = psgi_nomem(ctx);
        if (holes != small) psgi_free(ctx, holes);
      }
    }
  }
  PSGI_VEC_FREE(ctx, &want);
  return st;
}

psg_status psgi_ref_type_rule(psgi_unifier *u, const psg_expr *e, const psg_type *const *kids, const psg_type **out) {
  psg_ctx *ctx = u->ctx;
  *out = NULL;
  if (e->kind == PSG_EXPR_REF_CREATE) return psg_type_ref(ctx, kids[0], out);
  const psg_type *hole = NULL, *ref = NULL;
  psg_status st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &hole);
  if (!st) st = psg_type_ref(ctx, hole, &ref);
  if (!st) st = psgi_unify(u, ref, kids[0], NULL);
  if (st == PSG_ERR_TYPE) snprintf(u->msg, sizeof u->msg, "%s of a value that is not a reference",
                                   e->kind == PSG_EXPR_REF_READ ? "ref_read" : "ref_write");
  if (!st && e->kind == PSG_EXPR_REF_WRITE) st = psgi_unify(u, hole, kids[1], NULL);
  if (st) return st;
  if (e->kind == PSG_EXPR_REF_READ) return psgi_unifier_resolve(u, hole, out);
  return psg_type_tuple(ctx, NULL, 0, out); /* ref_write is () */
}
