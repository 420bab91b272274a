/* Passage — InferType for functions with unannotated parameters (TVM's
 * TypeInferencer + TypeSolver). Each expression gets a type in which the
 * unknowns are holes (IncompleteTypes); an unannotated variable starts as a
 * hole, each op call adds its relation to the solver, calls of function
 * values unify arguments with parameters (a polymorphic callee is
 * instantiated with fresh holes), lets, ifs and return annotations unify
 * what must agree. The solver then runs the relations to a fixed point;
 * relations assign unknown inputs (a conv2d weight from its data and
 * attributes, ops/type_fill.c). The solved parameter types become the
 * parameters' annotations, and the rebuilt function is checked by the
 * ordinary checker (infer_type.c), exactly as if the user had written them.
 * The walk is psg_visit's (iterative). */
#include <stdio.h>
#include "ops/op_impl.h"
#include "transforms/infer_type_internal.h"

typedef struct unified {
  psg_ctx *ctx;
  const psgi_infer_hooks *h;
  psgi_solver s;
  psgi_map types;                   /* expr -> type with holes */
  PSGI_VEC(const psg_expr *) holes; /* unannotated parameters, in order met */
  PSGI_VEC(const psg_expr *) lets;  /* unannotated variables bound to a function literal */
} unified;

static const psg_type *type_of(unified *w, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&w->types, e);
  return en ? en->value : NULL;
}

static psg_status set_type(unified *w, const psg_expr *e, const psg_type *t) {
  psgi_map_entry *en = psgi_map_put_ptr(&w->types, e, NULL);
  if (!en) return psgi_nomem(w->ctx);
  en->value = (void *)t;
  return PSG_OK;
}

/* A located error with the unifier's message, prefixed by `what`. */
static psg_status fail(unified *w, const psg_expr *at, const char *what) {
  char msg[700];
  snprintf(msg, sizeof msg, "%s%s", what ? what : "", w->s.u.msg[0] ? w->s.u.msg : "type error");
  return w->h->error(w->h->env, at, msg);
}

static psg_status unify_at(unified *w, const psg_expr *at, const char *what, const psg_type *a, const psg_type *b,
                           const psg_type **out) {
  psg_status st = psgi_unify(&w->s.u, a, b, out);
  return st == PSG_ERR_TYPE ? fail(w, at, what) : st;
}

/* TupleGetItem on a type still unknown: waits for a tuple. */
static psg_status rel_tuple_get(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                                const psg_attrs *attrs, size_t index, bool *done) {
  (void)n, (void)num_inputs, (void)attrs;
  const psg_type *t = types[0];
  if (t->kind == PSG_TYPE_INCOMPLETE) return PSG_OK;
  if (t->kind != PSG_TYPE_TUPLE || (size_t)t->n <= index) {
    snprintf(s->u.msg, sizeof s->u.msg, "indexing field %zu of a value that is not a tuple of that many fields",
             index);
    return PSG_ERR_TYPE;
  }
  *done = true;
  return psgi_unify(&s->u, types[1], t->fields[index], NULL);
}

/* A FuncType's type parameters replaced by fresh holes. */
static psg_status instantiate(unified *w, const psg_type *ft, const psg_type **out) {
  *out = ft;
  if (!ft->ntparams) return PSG_OK;
  psg_ctx *ctx = w->ctx;
  const psg_type *small[16] = {0}, **to = small, *bare = NULL;
  if (ft->ntparams > 16 && !(to = psgi_alloc(ctx, (size_t)ft->ntparams * sizeof *to))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (int i = 0; i < ft->ntparams && !st; i++) st = psg_type_incomplete(ctx, ft->tparams[i]->tkind, &to[i]);
  if (!st) st = psg_type_func(ctx, ft->fields, ft->n, ft->ret, &bare);
  if (!st) st = psgi_type_subst(ctx, bare, ft->tparams, to, ft->ntparams, out);
  if (to != small) psgi_free(ctx, to);
  return st;
}

static psg_status var_type(unified *w, const psg_expr *v, const psg_type **out) {
  const psg_type *ann = psgi_var_annotation(v);
  *out = ann ? ann : type_of(w, v);
  if (*out) return PSG_OK;
  psg_status st = psg_type_incomplete(w->ctx, PSG_TYPE_KIND_TYPE, out);
  return st ? st : set_type(w, v, *out);
}

static psg_status visit_call(unified *w, const psg_expr *e, const psg_type **out) {
  psg_ctx *ctx = w->ctx;
  const psg_expr *callee = e->kids[0];
  size_t nargs = e->nkids - 1;
  const psg_type *small[17] = {0}, **ts = small;
  if (nargs >= 16 && !(ts = psgi_alloc(ctx, (nargs + 1) * sizeof *ts))) return psgi_nomem(ctx);
  for (size_t i = 0; i < nargs; i++) ts[i] = type_of(w, e->kids[i + 1]);
  psg_status st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, out);
  if (!st && callee->kind == PSG_EXPR_OP) {
    const psgi_op_impl *impl = psgi_op_impl_in(ctx, callee->u.op);
    if (!impl || !impl->type_rel) {
      char msg[160];
      snprintf(msg, sizeof msg, "operator '%s' has no type relation", psg_op_name(callee));
      st = w->h->error(w->h->env, e, msg);
    } else {
      ts[nargs] = *out;
      st = psgi_solver_add(&w->s, psgi_solver_rel_op, ts, (int)nargs + 1, (int)nargs, e->u.attrs, callee->u.op, e);
    }
  } else if (!st) {
    const psg_type *ft = NULL;
    if ((st = psgi_unifier_resolve(&w->s.u, type_of(w, callee), &ft))) goto done;
    if (ft->kind == PSG_TYPE_INCOMPLETE) {
      const psg_type *want = NULL;
      if (!(st = psg_type_func(ctx, ts, (int)nargs, *out, &want)))
        st = unify_at(w, e, "calling a value of unknown type: ", ft, want, NULL);
      goto done;
    }
    if (ft->kind != PSG_TYPE_FUNC) {
      st = w->h->error(w->h->env, e, "calling a value that is not a function");
      goto done;
    }
    if ((size_t)ft->n != nargs) {
      char msg[96];
      snprintf(msg, sizeof msg, "expected %d arguments, got %zu", ft->n, nargs);
      st = w->h->error(w->h->env, e, msg);
      goto done;
    }
    if ((st = instantiate(w, ft, &ft))) goto done;
    for (size_t i = 0; i < nargs && !st; i++) {
      char what[48];
      snprintf(what, sizeof what, "argument %zu: ", i);
      st = unify_at(w, e, what, ft->fields[i], ts[i], NULL);
    }
    if (!st) *out = ft->ret;
  }
done:
  if (ts != small) psgi_free(ctx, ts);
  return st;
}

/* The type of e, its children typed. */
static psg_status visit(unified *w, const psg_expr *e, const psg_type **out) {
  psg_ctx *ctx = w->ctx;
  *out = NULL;
  switch (e->kind) {
  case PSG_EXPR_VAR: return var_type(w, e, out);
  case PSG_EXPR_GLOBAL_VAR: return w->h->global_type(w->h->env, e, out);
  case PSG_EXPR_CONSTANT:
    *out = psg_tensor_type(ctx, e->u.constant);
    return *out ? PSG_OK : psgi_nomem(ctx);
  case PSG_EXPR_OP: return PSG_OK;
  case PSG_EXPR_TUPLE: {
    const psg_type *small[16] = {0}, **f = small;
    if (e->nkids > 16 && !(f = psgi_alloc(ctx, e->nkids * sizeof *f))) return psgi_nomem(ctx);
    for (uint32_t i = 0; i < e->nkids; i++) f[i] = type_of(w, e->kids[i]);
    psg_status st = psg_type_tuple(ctx, f, (int)e->nkids, out);
    if (f != small) psgi_free(ctx, f);
    return st;
  }
  case PSG_EXPR_TUPLE_GET_ITEM: {
    const psg_type *ts[2] = {type_of(w, e->kids[0]), NULL};
    psg_status st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &ts[1]);
    if (!st) st = psgi_solver_add(&w->s, rel_tuple_get, ts, 2, 1, NULL, (size_t)e->u.index, e);
    *out = ts[1];
    return st;
  }
  case PSG_EXPR_CALL: return visit_call(w, e, out);
  case PSG_EXPR_LET: {
    const psg_type *vt = NULL;
    psg_status st = var_type(w, e->kids[0], &vt);
    /* A function bound without annotation may call itself (TVM permits the
     * recursion): its variable is annotated too, so the checker knows it
     * inside the function. */
    if (!st && !psgi_var_annotation(e->kids[0]) && e->kids[1]->kind == PSG_EXPR_FUNCTION &&
        !PSGI_VEC_PUSH(ctx, &w->lets, e->kids[0]))
      st = psgi_nomem(ctx);
    if (!st) st = unify_at(w, e, "the value does not fit the variable: ", vt, type_of(w, e->kids[1]), NULL);
    *out = type_of(w, e->kids[2]);
    return st;
  }
  case PSG_EXPR_IF: {
    const psg_type *b = NULL;
    psg_status st = psg_type_tensor(ctx, NULL, 0, PSG_DTYPE_BOOL, &b);
    if (!st) st = unify_at(w, e, "the condition must be a bool scalar: ", b, type_of(w, e->kids[0]), NULL);
    if (!st) st = unify_at(w, e, "the branches differ: ", type_of(w, e->kids[1]), type_of(w, e->kids[2]), out);
    return st;
  }
  case PSG_EXPR_CONSTRUCTOR: {
    psg_status st = psgi_constructor_type(ctx, w->h->mod, e, out, w->s.u.msg, sizeof w->s.u.msg);
    return st == PSG_ERR_TYPE ? fail(w, e, NULL) : st;
  }
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE: {
    const psg_type *kids[2] = {type_of(w, e->kids[0]), e->nkids > 1 ? type_of(w, e->kids[1]) : NULL};
    psg_status st = psgi_ref_type_rule(&w->s.u, e, kids, out);
    return st == PSG_ERR_TYPE ? fail(w, e, NULL) : st;
  }
  case PSG_EXPR_MATCH: {
    const psg_type **kt = psgi_calloc(ctx, e->nkids * sizeof *kt);
    if (!kt) return psgi_nomem(ctx);
    for (uint32_t i = 1; i < e->nkids; i++)
      if (e->u.match->binder[i]) kt[i] = type_of(w, e->kids[i]);
    psg_status st = psgi_infer_match_patterns(&w->s.u, w->h->mod, e, type_of(w, e->kids[0]), kt);
    if (st == PSG_ERR_TYPE) st = fail(w, e, "a pattern does not fit the matched value: ");
    psgi_free(ctx, kt);
    if (!st) st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, out);
    for (size_t c = 0; c < psg_match_num_clauses(e) && !st; c++)
      st = unify_at(w, e, "the clauses differ: ", *out, type_of(w, psg_match_clause_rhs(e, c)), out);
    return st;
  }
  case PSG_EXPR_FUNCTION: {
    size_t n = e->nkids - 1;
    const psg_type *small[16] = {0}, **params = small, *body = type_of(w, psgi_fn_body(e));
    if (n > 16 && !(params = psgi_alloc(ctx, n * sizeof *params))) return psgi_nomem(ctx);
    psg_status st = PSG_OK;
    for (size_t i = 0; i < n && !st; i++) {
      st = var_type(w, e->kids[i], &params[i]);
      if (!st && !psgi_var_annotation(e->kids[i]) && !PSGI_VEC_PUSH(ctx, &w->holes, e->kids[i])) st = psgi_nomem(ctx);
    }
    if (!st && e->u.fn.ret_type)
      st = unify_at(w, e, "the body does not fit the return type: ", e->u.fn.ret_type, body, NULL);
    const psg_type *ret = e->u.fn.ret_type ? e->u.fn.ret_type : body;
    if (!st)
      st = psg_type_func_poly(ctx, params, (int)n, ret, e->u.fn.tparams ? e->u.fn.tparams->fields : NULL,
                              psg_function_num_type_params(e), out);
    if (params != small) psgi_free(ctx, params);
    return st;
  }
  }
  return PSG_ERR_INTERNAL;
}

/* Post-order, each node once (psg_visit): children are typed first. */
static psg_status visit_post(psg_visitor *v, const psg_expr *e) {
  unified *w = v->user;
  const psg_type *t = NULL;
  psg_status st = visit(w, e, &t);
  return st || e->kind == PSG_EXPR_OP ? st : set_type(w, e, t);
}

static psg_status walk(unified *w, const psg_expr *root) {
  psg_visitor v = {NULL, visit_post, w};
  return psg_visit(w->ctx, &v, root);
}

/* fn with each variable vars[i] replaced by one annotated `types[i]`. */
static psg_status rebuild(unified *w, const psg_expr *fn, const psg_expr *const *vars, size_t n,
                          const psg_type *const *types, psg_expr **out) {
  psg_mutator m;
  psg_mutator_init(&m, w->ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < n && !st; i++) {
    const psg_expr *v = vars[i];
    psg_expr *nv = NULL;
    st = psg_var_create(w->ctx, v->u.var.name, types[i], psgi_expr_span_ref(v), &nv);
    if (!st) st = psg_mutator_set_result(&m, v, nv);
    psg_expr_release(nv);
  }
  if (!st) st = psg_mutate(&m, fn, out);
  psg_mutator_fini(&m);
  return st;
}

psg_status psgi_infer_fill_params(psg_ctx *ctx, const psg_expr *fn, const psgi_infer_hooks *h, psg_expr **out) {
  *out = NULL;
  unified w;
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  w.h = h;
  psgi_solver_init(&w.s, ctx);
  psgi_map_init(&w.types, ctx);
  psg_status st = walk(&w, fn);
  bool all_done = false;
  const psgi_relation *failed = NULL;
  if (!st) {
    st = psgi_solver_solve(&w.s, &all_done, &failed);
    if (st == PSG_ERR_TYPE) st = fail(&w, failed ? failed->where : fn, NULL);
  }
  /* The variables to annotate: the parameters, then the let variables. */
  for (size_t i = 0; i < w.lets.len && !st; i++)
    if (!PSGI_VEC_PUSH(ctx, &w.holes, w.lets.data[i])) st = psgi_nomem(ctx);
  size_t nparams = w.holes.len - w.lets.len;
  const psg_type **types = NULL;
  if (!st && w.holes.len && !(types = psgi_calloc(ctx, w.holes.len * sizeof *types))) st = psgi_nomem(ctx);
  for (size_t i = 0; i < w.holes.len && !st; i++) {
    const psg_expr *v = w.holes.data[i];
    if ((st = psgi_unifier_resolve(&w.s.u, type_of(&w, v), &types[i]))) break;
    if (!psgi_type_has_holes(types[i])) continue;
    psgi_buf b;
    psgi_buf_init(&b, ctx);
    psgi_buf_printf(&b, "cannot infer the type of %s %%%s", i < nparams ? "parameter" : "let variable", v->u.var.name);
    if (types[i]->kind != PSG_TYPE_INCOMPLETE) {
      psgi_buf_puts(&b, " beyond ");
      psgi_type_format(&b, types[i]);
    }
    psgi_buf_puts(&b, ": the operators that use it do not determine it (annotate it)");
    st = h->error(h->env, v, b.data ? b.data : "cannot infer a parameter type");
    psgi_buf_fini(&b);
  }
  if (!st) st = rebuild(&w, fn, w.holes.data, w.holes.len, types, out);
  psgi_free(ctx, types);
  PSGI_VEC_FREE(ctx, &w.holes);
  PSGI_VEC_FREE(ctx, &w.lets);
  psgi_map_fini(&w.types);
  psgi_solver_fini(&w.s);
  return st;
}

/* Whether t holds a hole or a polymorphic FuncType: the checker's plain
 * comparison cannot decide it, the unifier must. */
bool psgi_type_needs_unifier(const psg_type *t) {
  if (!t) return false;
  if (t->kind == PSG_TYPE_INCOMPLETE || (t->kind == PSG_TYPE_FUNC && t->ntparams)) return true;
  for (int i = 0; t->fields && i < t->n; i++)
    if (psgi_type_needs_unifier(t->fields[i])) return true;
  return t->ret && psgi_type_needs_unifier(t->ret);
}

psg_status psgi_unify_call(psg_ctx *ctx, const psg_type *ft, const psg_type *const *args, size_t nargs,
                           const psg_type **ret, char *msg, size_t msg_len, size_t *bad) {
  unified w;
  memset(&w, 0, sizeof w);
  w.ctx = ctx;
  psgi_solver_init(&w.s, ctx);
  *ret = NULL;
  *bad = 0;
  const psg_type *inst = NULL;
  psg_status st = instantiate(&w, ft, &inst);
  for (size_t i = 0; i < nargs && !st; i++)
    if ((st = psgi_unify(&w.s.u, inst->fields[i], args[i], NULL)) == PSG_ERR_TYPE) *bad = i;
  if (!st) st = psgi_unifier_resolve(&w.s.u, inst->ret, ret);
  if (st == PSG_ERR_TYPE) snprintf(msg, msg_len, "%s", w.s.u.msg);
  psgi_solver_fini(&w.s);
  return st;
}

psg_status psgi_unify_pair(psg_ctx *ctx, const psg_type *a, const psg_type *b, const psg_type **out, char *msg,
                           size_t msg_len) {
  psgi_unifier u;
  psgi_unifier_init(&u, ctx);
  psg_status st = psgi_unify(&u, a, b, out);
  if (st == PSG_ERR_TYPE) snprintf(msg, msg_len, "%s", u.msg);
  psgi_unifier_fini(&u);
  return st;
}
