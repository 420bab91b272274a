/* Passage — InferType's last step, as TVM's Resolver does it: what the
 * checker inferred is written back as the annotations the program left out.
 * A Function without a return type gets the one inferred for its body, and a
 * Var without an annotation (or annotated IncompleteType) gets its inferred
 * type, so the text shows them and structural equality compares them as in
 * TVM (its FuseOps and ToANormalForm tests compare such goldens).
 *
 * The rewrite is one memoized mutator walk (post-order, no recursion); every
 * rebuilt node keeps the checked type of the node it replaces, so the typing
 * just done stays valid. A type that still holds a hole is left out. */
#include "transforms/infer_type_internal.h"

static psg_status keep_type(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  if (st || *out == e || !e->checked_type) return st;
  /* The rebuilt node has the same type; it is final when e's was. */
  if (psgi_expr_final_type(e))
    psgi_expr_set_final_type(*out, e->checked_type);
  else
    psgi_expr_set_checked_type(*out, e->checked_type);
  return PSG_OK;
}

static bool fillable(const psg_type *t) { return t && !psgi_type_has_holes(t); }

static psg_status fill_var(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  const psg_type *t = e->checked_type;
  if (psgi_var_annotation(e) || !fillable(t)) return psg_mutator_default(m, e, out);
  psg_status st = psg_var_create(m->ctx, e->u.var.name, t, &e->span, out);
  if (!st) psgi_expr_set_final_type(*out, t); /* an annotated variable's type is final */
  return st;
}

static psg_status fill_function(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = keep_type(m, e, out);
  const psg_type *t = e->checked_type;
  if (st || e->u.fn.ret_type || !t || t->kind != PSG_TYPE_FUNC || !fillable(t->ret)) return st;
  psg_expr *r = *out;
  const psg_type *tp = r->u.fn.tparams;
  st = psg_function_create_poly(m->ctx, r->kids, r->nkids - 1, psgi_fn_body(r), t->ret, tp ? tp->fields : NULL,
                                tp ? tp->n : 0, r->u.fn.attrs, &r->span, out);
  psg_expr_release(r);
  if (st) return st;
  if (psgi_expr_final_type(e)) /* as keep_type: final stays final */
    psgi_expr_set_final_type(*out, t);
  else
    psgi_expr_set_checked_type(*out, t);
  return PSG_OK;
}

psg_status psgi_infer_resolve(psg_ctx *ctx, const psg_expr *fn, psg_expr **out) {
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  for (int k = 0; k < PSG_EXPR_KIND_COUNT; k++) m.visit[k] = keep_type;
  m.visit[PSG_EXPR_VAR] = fill_var;
  m.visit[PSG_EXPR_FUNCTION] = fill_function;
  psg_status st = psg_mutate(&m, fn, out);
  psg_mutator_fini(&m);
  return st;
}
