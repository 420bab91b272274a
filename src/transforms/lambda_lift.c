/* Passage — LambdaLift (module pass, opt 1; tvm-behavior §7.1, §7.3), after
 * TVM's lambda_lift.cc: every nested function that is not Primitive (nor
 * Composite: a pattern kept whole for its writer, as the ONNX importer's
 * onnx.LSTM, which must stay a literal at its call) becomes a global
 * function @lifted_name_N. One without free variables is replaced by
 * its GlobalVar. One with free variables is wrapped as TVM does: the global
 * takes the captured variables and returns the original function, and is
 * marked Closure=1; the nested function is replaced by a call of the global
 * on the captured variables, which builds the closure. Inner functions are
 * lifted first (the mutator is post-order), so an outer function captures
 * what its inner closures need. The function a Closure=1 global returns is
 * its code, not a nested function: it stays, so the pass is idempotent. A
 * let-bound function that calls itself is reported as unsupported (TVM
 * rewrites that recursion through the global). */
#include <stdio.h>
#include "transforms/normal_form.h"

typedef struct lifter {
  psg_ctx *ctx;
  const psg_module *mod;
  const psg_expr *root;          /* the module function being rewritten: not lifted */
  PSGI_VEC(psgi_module_entry) lifted; /* owned */
  psgi_map let_var;              /* let-bound function -> its variable */
  psgi_map names;                /* names made so far (interned) */
  size_t counter;
} lifter;

static psg_status skip_primitive(psg_mutator *m, const psg_expr *e, psg_expr **replacement) {
  lifter *l = m->user;
  if (psgi_is_primitive_fn(e) || (e->kind == PSG_EXPR_FUNCTION && psg_attrs_get(e->u.fn.attrs, "Composite"))) {
    psg_expr_retain((psg_expr *)e);
    *replacement = (psg_expr *)e;
  } else if (e->kind == PSG_EXPR_LET && e->kids[1]->kind == PSG_EXPR_FUNCTION) {
    psgi_map_entry *en = psgi_map_put_ptr(&l->let_var, e->kids[1], NULL);
    if (!en) return psgi_nomem(l->ctx);
    en->value = e->kids[0];
  }
  return PSG_OK;
}

/* A fresh @lifted_name_N (interned). */
static const char *fresh_name(lifter *l) {
  char buf[48];
  for (;;) {
    snprintf(buf, sizeof buf, "lifted_name_%zu", l->counter++);
    if (psg_module_find(l->mod, buf) >= 0) continue;
    const char *name = psgi_intern(l->ctx, buf, strlen(buf));
    if (!name) return NULL;
    bool is_new;
    psgi_map_entry *en = psgi_map_put_str(&l->names, name, strlen(name), &is_new);
    if (!en) return NULL;
    if (is_new) return name;
  }
}

static psg_status lift(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  lifter *l = m->user;
  psg_expr *fn = NULL;
  psg_status st = psg_mutator_default(m, e, &fn);
  /* A module function's own body is not lifted, nor the code of a closure
   * global (a Closure=1 function returning a function: already lifted). */
  if (st || e == l->root || (psgi_fn_body(l->root) == e && psg_attrs_get(l->root->u.fn.attrs, "Closure"))) {
    *out = fn;
    return st;
  }
  psg_ctx *ctx = l->ctx;
  psg_span span;
  psg_expr_span(e, &span);
  psgi_expr_vec fv = {0};
  psg_expr *gv = NULL, *global_fn = NULL, *replacement = NULL;
  psg_attr *one = NULL;
  psg_attrs *attrs = NULL;
  const char *name = NULL;
  st = psgi_free_vars(ctx, fn, &fv);
  psgi_map_entry *self = psgi_map_get_ptr(&l->let_var, e);
  for (size_t i = 0; !st && self && i < fv.len; i++)
    if (fv.data[i] == self->value)
      st = psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_UNSUPPORTED, psgi_span_where(&span), span.line, span.col, NULL, 0,
                         "LambdaLift", "LambdaLift: the local function %%%s calls itself; recursive local functions are not supported",
                         psg_var_name(self->value));
  if (!st) st = (name = fresh_name(l)) ? PSG_OK : psgi_nomem(ctx);
  if (!st) st = psg_global_var_create(ctx, name, &span, &gv);
  if (!st && !fv.len) {
    psg_expr_retain(fn);
    global_fn = fn;
    psg_expr_retain(gv);
    replacement = gv;
  } else if (!st) {
    st = psg_attr_int(ctx, 1, &one);
    if (!st) st = psg_attrs_with(ctx, NULL, "Closure", one, &attrs);
    if (!st) st = psg_function_create(ctx, (psg_expr *const *)fv.data, fv.len, fn, NULL, attrs, &span, &global_fn);
    if (!st) st = psg_call_create(ctx, gv, (psg_expr *const *)fv.data, fv.len, NULL, &span, &replacement);
  }
  if (!st) {
    psgi_module_entry en = {gv, global_fn, NULL, NULL};
    if (PSGI_VEC_PUSH(ctx, &l->lifted, en)) {
      gv = global_fn = NULL; /* owned by l->lifted now */
    } else {
      st = psgi_nomem(ctx);
    }
  }
  psg_expr_release(gv);
  psg_expr_release(global_fn);
  psg_attrs_release(attrs);
  psg_attr_release(one);
  psg_expr_release(fn);
  PSGI_VEC_FREE(ctx, &fv);
  if (st) psg_expr_release(replacement);
  else *out = replacement;
  return st;
}

static psg_status run_lambda_lift(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  lifter l;
  memset(&l, 0, sizeof l);
  l.ctx = ctx;
  l.mod = mod;
  psgi_map_init(&l.let_var, ctx);
  psgi_map_init(&l.names, ctx);
  psg_status st = PSG_OK;
  bool changed = false;
  for (size_t i = 0; !st && i < mod->n; i++) {
    psg_expr *fn = mod->entries[i].func, *new_fn = fn;
    if (!fn) { /* a PrimFunc: kept as it is (borrowed from mod, like its GlobalVar below) */
      if (!PSGI_VEC_PUSH(ctx, &l.lifted, mod->entries[i]))
        st = psgi_nomem(ctx);
      else
        psg_expr_retain(mod->entries[i].gv);
      continue;
    }
    if (fn->kind == PSG_EXPR_FUNCTION && !psgi_is_primitive_fn(fn) && !psg_attrs_get(fn->u.fn.attrs, "Compiler")) {
      psg_mutator m;
      psg_mutator_init(&m, ctx);
      m.user = &l;
      m.pre = skip_primitive;
      m.visit[PSG_EXPR_FUNCTION] = lift;
      l.root = fn;
      st = psg_mutate(&m, fn, &new_fn);
      psg_mutator_fini(&m);
      if (st) break;
    } else {
      psg_expr_retain(fn);
    }
    psgi_module_entry en = {mod->entries[i].gv, new_fn, NULL, NULL};
    changed |= new_fn != fn;
    /* The rewritten module functions go first, then what was lifted. */
    if (!PSGI_VEC_PUSH(ctx, &l.lifted, en)) {
      psg_expr_release(new_fn);
      st = psgi_nomem(ctx);
    } else {
      psg_expr_retain(en.gv);
    }
  }
  if (!st && changed) {
    /* l.lifted interleaves module functions (in order) with lifted ones
     * (pushed while their enclosing function was rewritten); put the module's
     * own first, keeping relative order. */
    psgi_module_entry *es = psgi_alloc(ctx, l.lifted.len * sizeof *es);
    if (!es) {
      st = psgi_nomem(ctx);
    } else {
      size_t k = 0;
      for (size_t i = 0; i < l.lifted.len; i++)
        if (psg_module_find(mod, l.lifted.data[i].gv->u.gvar.name) >= 0) es[k++] = l.lifted.data[i];
      for (size_t i = 0; i < l.lifted.len; i++)
        if (psg_module_find(mod, l.lifted.data[i].gv->u.gvar.name) < 0) es[k++] = l.lifted.data[i];
      st = psgi_module_from_entries_of(mod, es, k, mod->attrs, out);
      psgi_free(ctx, es);
    }
  } else if (!st) {
    psg_module_retain(mod);
    *out = mod;
  }
  for (size_t i = 0; i < l.lifted.len; i++) {
    psg_expr_release(l.lifted.data[i].gv);
    psg_expr_release(l.lifted.data[i].func);
  }
  PSGI_VEC_FREE(ctx, &l.lifted);
  psgi_map_fini(&l.let_var);
  psgi_map_fini(&l.names);
  return st;
}

const psg_pass_decl psgi_pass_lambda_lift = {
    .name = "LambdaLift",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .help = "lift nested functions to global functions (closures take their free variables)",
    .module = run_lambda_lift,
};
