/* Passage — EtaExpand (TVM's relay.transform.EtaExpand): a module pass
 * (opt 1) that replaces each reference to a global Relay function, callee
 * positions included, by `fn (%eta_expand_param, ...) { @g(%eta_expand_param,
 * ...) }`: fresh parameters with the callee's parameter annotations, the
 * callee's return type, type parameters and attributes (TVM's WithFields).
 * One memo serves the whole module, as TVM's one mutator does: every use of
 * @g becomes the same function node.
 *
 * Options as TVM's: expand_global_var and expand_constructor (both false by
 * default; at least one must be set). expand_constructor turns each
 * constructor that is not applied into a function that applies it. */
#include "transforms/infer_type_internal.h"
#include "transforms/transforms.h"

typedef struct expander {
  const psg_module *mod;
} expander;

static psg_status expand_global(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  const expander *x = m->user;
  ptrdiff_t j = psg_module_find(x->mod, e->u.gvar.name);
  const psg_expr *fn = j < 0 ? NULL : x->mod->entries[j].func;
  if (!fn) return psg_mutator_default(m, e, out); /* unknown, or a PrimFunc */
  psg_ctx *ctx = m->ctx;
  size_t n = fn->nkids - 1;
  psg_expr *stack_params[8];
  psg_expr **params = n > 8 ? psgi_calloc(ctx, n * sizeof *params) : stack_params;
  if (!params) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  size_t made = 0;
  for (; !st && made < n; made++) {
    params[made] = NULL;
    st = psg_var_create(ctx, "eta_expand_param", fn->kids[made]->u.var.type, psgi_expr_span_ref(e), &params[made]);
  }
  psg_expr *call = NULL;
  if (!st) st = psg_call_create(ctx, (psg_expr *)e, params, n, NULL, psgi_expr_span_ref(e), &call);
  int nt = psg_function_num_type_params(fn);
  const psg_type *tps[8];
  const psg_type **tp = nt > 8 ? psgi_alloc(ctx, (size_t)nt * sizeof *tp) : tps;
  if (!st && !tp) st = psgi_nomem(ctx);
  for (int i = 0; !st && i < nt; i++) tp[i] = psg_function_type_param(fn, i);
  if (!st) st = psg_function_create_poly(ctx, params, n, call, fn->u.fn.ret_type, tp, nt, fn->u.fn.attrs, psgi_expr_span_ref(e), out);
  if (tp && tp != tps) psgi_free(ctx, tp);
  psg_expr_release(call);
  for (size_t i = 0; i < made; i++) psg_expr_release(params[i]);
  if (params != stack_params) psgi_free(ctx, params);
  return st;
}

/* A constructor used as a value: `fn [A, ...](%eta_expand_param: In_0, ...)
 * -> T[A, ...] { C(%eta_expand_param, ...) }` over fresh copies of its ADT's
 * type parameters (TVM's type-variable replacer). A constructor the module
 * does not define stays. */
static psg_status expand_ctor(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  const expander *x = m->user;
  const psg_type_data *td = psg_module_lookup_type_def(x->mod, e->u.ctor.belongs_to);
  if (!td) return psg_mutator_default(m, e, out);
  psg_ctx *ctx = m->ctx;
  int nt = td->ntvars, n = e->u.ctor.inputs->n;
  const psg_type **fresh = psgi_calloc(ctx, (size_t)(nt + 1) * sizeof *fresh);
  psg_expr **params = psgi_calloc(ctx, (size_t)(n + 1) * sizeof *params);
  psg_status st = fresh && params ? PSG_OK : psgi_nomem(ctx);
  for (int i = 0; !st && i < nt; i++) st = psg_type_var(ctx, td->tvars[i]->name, td->tvars[i]->tkind, &fresh[i]);
  for (int i = 0; !st && i < n; i++) {
    const psg_type *t;
    st = psgi_type_subst(ctx, e->u.ctor.inputs->fields[i], td->tvars, fresh, nt, &t);
    if (!st) st = psg_var_create(ctx, "eta_expand_param", t, psgi_expr_span_ref(e), &params[i]);
  }
  const psg_type *ret = NULL;
  if (!st) st = psg_type_call(ctx, td->header, fresh, nt, &ret); /* T[] for no parameters, as TVM */
  psg_expr *call = NULL;
  if (!st) st = psg_call_create(ctx, (psg_expr *)e, params, (size_t)n, NULL, psgi_expr_span_ref(e), &call);
  if (!st) st = psg_function_create_poly(ctx, params, (size_t)n, call, ret, fresh, nt, NULL, psgi_expr_span_ref(e), out);
  psg_expr_release(call);
  for (int i = 0; params && i < n; i++) psg_expr_release(params[i]);
  psgi_free(ctx, params);
  psgi_free(ctx, fresh);
  return st;
}

/* A call of a constructor keeps it as the callee (TVM expands only
 * constructors that are not applied); its arguments are rewritten. */
static psg_status keep_applied_ctor(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  if (e->kids[0]->kind != PSG_EXPR_CONSTRUCTOR) return psg_mutator_default(m, e, out);
  psg_ctx *ctx = m->ctx;
  psg_expr **kids = psgi_alloc(ctx, e->nkids * sizeof *kids);
  if (!kids) return psgi_nomem(ctx);
  bool same = true;
  kids[0] = e->kids[0];
  for (uint32_t i = 1; i < e->nkids; i++) {
    kids[i] = psg_mutator_get_result(m, e->kids[i]);
    same &= kids[i] == e->kids[i];
  }
  psg_status st = PSG_OK;
  if (same) {
    psg_expr_retain((psg_expr *)e);
    *out = (psg_expr *)e;
  } else {
    st = psgi_expr_rebuild(e, kids, out);
  }
  psgi_free(ctx, kids);
  return st;
}

static psg_status eta_expand(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  const psg_attrs *options = user;
  bool globals = psg_attr_get_int(psg_attrs_get(options, "expand_global_var")) != 0;
  bool constructors = psg_attr_get_int(psg_attrs_get(options, "expand_constructor")) != 0;
  if (!globals && !constructors)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "EtaExpand: must expand at least one language feature (expand_global_var or expand_constructor)");
  expander x = {mod};
  psgi_module_entry *es = psgi_alloc(ctx, (mod->n ? mod->n : 1) * sizeof *es);
  if (!es) return psgi_nomem(ctx);
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  m.user = &x;
  if (globals) m.visit[PSG_EXPR_GLOBAL_VAR] = expand_global;
  if (constructors) {
    m.visit[PSG_EXPR_CONSTRUCTOR] = expand_ctor;
    m.visit[PSG_EXPR_CALL] = keep_applied_ctor;
  }
  psg_status st = PSG_OK;
  size_t done = 0;
  for (; !st && done < mod->n; done++) {
    es[done] = mod->entries[done];
    es[done].func = NULL;
    if (mod->entries[done].func) st = psg_mutate(&m, mod->entries[done].func, &es[done].func);
  }
  psg_mutator_fini(&m);
  if (!st) st = psgi_module_from_entries_of(mod, es, mod->n, mod->attrs, out);
  for (size_t i = 0; i < done; i++) psg_expr_release(es[i].func);
  psgi_free(ctx, es);
  return st;
}

static const psg_pass_option options[] = {{"expand_constructor", PSG_CONFIG_BOOL, "false"},
                                          {"expand_global_var", PSG_CONFIG_BOOL, "false"},
                                          {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_eta_expand = {
    .name = "EtaExpand",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .options = options,
    .help = "references to global functions (option expand_global_var) as functions that call them",
    .module = eta_expand,
};
