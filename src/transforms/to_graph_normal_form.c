/* Passage — ToGraphNormalForm (function pass, opt 1; tvm-behavior §7.1), the
 * inverse of ToANormalForm after TVM's to_graph_normal_form.cc: every let
 * whose value is pure is inlined, so its uses share the value node and the
 * function becomes a dataflow graph again. A let whose value has effects (a
 * stateful op, an impure global, a closure we cannot see into) stays, since
 * inlining would change when, or how often, the effect happens; so does a
 * recursive let (its value refers to its own variable). */
#include "ops/op_impl.h"
#include "transforms/transforms.h"

typedef struct gnf {
  psg_ctx *ctx;
  const psg_module *mod;
  psgi_map impure;         /* node -> non-NULL when evaluating it has effects */
  psgi_map let_value;      /* let var -> its value (to see through closure calls) */
  psgi_map impure_globals; /* name (interned) -> non-NULL when impure */
  bool oom;                /* a visitor pre hook ran out of memory */
} gnf;

static bool is_impure(const gnf *g, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&g->impure, e);
  return en && en->value;
}

static bool callee_impure(const gnf *g, const psg_expr *callee) {
  switch (callee->kind) {
  case PSG_EXPR_OP: {
    const psgi_op_impl *impl = psgi_op_impl_get(callee->u.op);
    return impl && impl->stateful;
  }
  case PSG_EXPR_GLOBAL_VAR: {
    psgi_map_entry *en = psgi_map_get_str(&g->impure_globals, callee->u.gvar.name, strlen(callee->u.gvar.name));
    return en && en->value;
  }
  case PSG_EXPR_FUNCTION: return is_impure(g, psgi_fn_body(callee));
  case PSG_EXPR_CONSTRUCTOR: return false; /* builds a value */
  case PSG_EXPR_VAR: {
    psgi_map_entry *en = psgi_map_get_ptr(&g->let_value, callee);
    const psg_expr *fn = en ? en->value : NULL;
    /* A parameter holding a closure: its body is unknown, assume effects. */
    return !fn || fn->kind != PSG_EXPR_FUNCTION || is_impure(g, psgi_fn_body(fn));
  }
  default: return true;
  }
}

static int purity_pre(psg_visitor *v, const psg_expr *e) {
  gnf *g = v->user;
  if (e->kind == PSG_EXPR_LET) {
    psgi_map_entry *en = psgi_map_put_ptr(&g->let_value, e->kids[0], NULL);
    if (!en) {
      g->oom = true;
      return PSG_VISIT_ABORT;
    }
    en->value = e->kids[1];
  }
  return PSG_VISIT_CONTINUE;
}

static psg_status purity_post(psg_visitor *v, const psg_expr *e) {
  gnf *g = v->user;
  bool impure = false;
  if (e->kind != PSG_EXPR_FUNCTION) { /* making a closure has no effect; calling it may */
    if (e->kind == PSG_EXPR_CALL) impure = callee_impure(g, e->kids[0]);
    if (e->kind == PSG_EXPR_REF_READ || e->kind == PSG_EXPR_REF_WRITE) impure = true; /* order matters */
    for (uint32_t i = 0; i < e->nkids && !impure; i++) impure = is_impure(g, e->kids[i]);
  }
  if (!impure) return PSG_OK;
  psgi_map_entry *en = psgi_map_put_ptr(&g->impure, e, NULL);
  if (!en) return psgi_nomem(g->ctx);
  en->value = (void *)1;
  return PSG_OK;
}

static psg_status compute_purity(gnf *g, const psg_expr *fn) {
  psgi_map_fini(&g->impure);
  psgi_map_fini(&g->let_value);
  psgi_map_init(&g->impure, g->ctx);
  psgi_map_init(&g->let_value, g->ctx);
  psg_visitor v = {purity_pre, purity_post, g};
  psg_status st = psg_visit(g->ctx, &v, fn);
  return st ? st : g->oom ? psgi_nomem(g->ctx) : PSG_OK;
}

/* A global is impure when its body is; calls between globals make this a
 * fixpoint, reached after at most one round per function. */
static psg_status compute_global_purity(gnf *g) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < g->mod->n; i++) {
      const psg_expr *fn = g->mod->entries[i].func;
      const char *name = g->mod->entries[i].gv->u.gvar.name;
      psgi_map_entry *en = psgi_map_put_str(&g->impure_globals, name, strlen(name), NULL);
      if (!en) return psgi_nomem(g->ctx);
      if (en->value || !fn || fn->kind != PSG_EXPR_FUNCTION) continue;
      psg_status st = compute_purity(g, fn);
      if (st) return st;
      if (is_impure(g, psgi_fn_body(fn))) {
        psgi_map_get_str(&g->impure_globals, name, strlen(name))->value = (void *)1;
        changed = true;
      }
    }
  }
  return PSG_OK;
}

static bool is_recursive(psg_ctx *ctx, const psg_expr *let, bool *recursive) {
  *recursive = false;
  if (let->kids[1]->kind != PSG_EXPR_FUNCTION) return true; /* only functions can refer to themselves */
  psgi_expr_vec fv = {0};
  bool ok = psgi_free_vars(ctx, let->kids[1], &fv) == PSG_OK;
  for (size_t i = 0; ok && i < fv.len; i++) *recursive |= fv.data[i] == let->kids[0];
  PSGI_VEC_FREE(ctx, &fv);
  return ok;
}

static bool is_inlined(psg_mutator *m, const psg_expr *let, psg_status *st) {
  gnf *g = m->user;
  bool recursive;
  if (!is_recursive(g->ctx, let, &recursive)) {
    *st = psgi_nomem(g->ctx);
    return false;
  }
  return !recursive && !is_impure(g, let->kids[1]);
}

/* Before a Let's body is rewritten, an inlined variable starts standing for
 * its (rewritten) value. */
static psg_status bind_inlined(psg_mutator *m, const psg_expr *parent, size_t index) {
  if (parent->kind != PSG_EXPR_LET || index != 2) return PSG_OK;
  psg_status st = PSG_OK;
  if (!is_inlined(m, parent, &st)) return st;
  return psg_mutator_set_result(m, parent->kids[0], psg_mutator_get_result(m, parent->kids[1]));
}

static psg_status rewrite_let(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = PSG_OK;
  if (is_inlined(m, e, &st)) {
    *out = psg_mutator_get_result(m, e->kids[2]);
    psg_expr_retain(*out);
    return PSG_OK;
  }
  return st ? st : psg_mutator_default(m, e, out);
}

static psg_status to_graph(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  psg_ctx *ctx = func->ctx;
  gnf g;
  memset(&g, 0, sizeof g);
  g.ctx = ctx;
  g.mod = mod;
  psgi_map_init(&g.impure, ctx);
  psgi_map_init(&g.let_value, ctx);
  psgi_map_init(&g.impure_globals, ctx);
  psg_status st = compute_global_purity(&g);
  if (!st) st = compute_purity(&g, func);
  if (!st) {
    psg_mutator m;
    psg_mutator_init(&m, ctx);
    m.user = &g;
    m.visit[PSG_EXPR_LET] = rewrite_let;
    m.before_child = bind_inlined;
    st = psg_mutate(&m, func, out);
    psg_mutator_fini(&m);
  }
  psgi_map_fini(&g.impure);
  psgi_map_fini(&g.let_value);
  psgi_map_fini(&g.impure_globals);
  return st;
}

const psg_pass_decl psgi_pass_to_graph_normal_form = {
    .name = "ToGraphNormalForm",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 1,
    .help = "inline pure let bindings back into a dataflow graph",
    .establishes = PSG_PROP_GNF,
    .function = to_graph,
};
