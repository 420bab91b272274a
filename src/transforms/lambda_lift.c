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
 * let-bound function that calls itself does so through the global, as in
 * TVM: its variable is not captured, and its uses inside become the
 * GlobalVar (or the call of it that rebuilds the closure); the closure
 * global then carries the function's type as its return type, which a
 * recursive global needs to type-check. */
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

/* *fn with the recursive variable `self` replaced by `rebound`. */
static psg_status rebind_self(psg_ctx *ctx, psg_expr **fn, const psg_expr *self, psg_expr *rebound) {
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  psg_expr *nf = NULL;
  psg_status st = psg_mutator_set_result(&m, self, rebound);
  if (!st) st = psg_mutate(&m, *fn, &nf);
  psg_mutator_fini(&m);
  if (st) return st;
  psg_expr_release(*fn);
  *fn = nf;
  return PSG_OK;
}

/* fn's type as written (every parameter annotated and a return type), or
 * NULL: the return type of a recursive closure's global. */
static psg_status written_type(psg_ctx *ctx, const psg_expr *fn, const psg_type **out) {
  *out = NULL;
  size_t n = fn->nkids - 1;
  if (!fn->u.fn.ret_type || fn->u.fn.tparams) return PSG_OK;
  const psg_type **params = psgi_alloc(ctx, (n ? n : 1) * sizeof *params);
  if (!params) return psgi_nomem(ctx);
  bool all = true;
  for (size_t i = 0; i < n; i++) all &= (params[i] = fn->kids[i]->u.var.type) != NULL;
  psg_status st = all ? psg_type_func(ctx, params, (int)n, fn->u.fn.ret_type, out) : PSG_OK;
  psgi_free(ctx, params);
  return st;
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
  /* A let-bound function calling itself: its variable is not captured. */
  psgi_map_entry *self = psgi_map_get_ptr(&l->let_var, e);
  const psg_expr *rec = NULL;
  for (size_t i = 0; !st && self && i < fv.len; i++)
    if (fv.data[i] == self->value) {
      rec = self->value;
      memmove(&fv.data[i], &fv.data[i + 1], (fv.len - i - 1) * sizeof *fv.data);
      fv.len--;
      break;
    }
  if (!st) st = (name = fresh_name(l)) ? PSG_OK : psgi_nomem(ctx);
  if (!st) st = psg_global_var_create(ctx, name, &span, &gv);
  const psg_type *ret = NULL;
  if (!st && rec) {
    psg_expr *rebound = NULL;
    if (fv.len) {
      /* The variable's annotation (InferType writes it for a recursive let),
       * else the function's own annotations. */
      const psg_type *ann = rec->u.var.type;
      if (ann && ann->kind == PSG_TYPE_FUNC && !ann->ntparams)
        ret = ann;
      else
        st = written_type(ctx, fn, &ret);
      if (!st) st = psg_call_create(ctx, gv, (psg_expr *const *)fv.data, fv.len, NULL, &span, &rebound);
    } else {
      psg_expr_retain(gv);
      rebound = gv;
    }
    if (!st) st = rebind_self(ctx, &fn, rec, rebound);
    psg_expr_release(rebound);
  }
  if (!st && !fv.len) {
    psg_expr_retain(fn);
    global_fn = fn;
    psg_expr_retain(gv);
    replacement = gv;
  } else if (!st) {
    st = psg_attr_int(ctx, 1, &one);
    if (!st) st = psg_attrs_with(ctx, NULL, "Closure", one, &attrs);
    if (!st) st = psg_function_create(ctx, (psg_expr *const *)fv.data, fv.len, fn, ret, attrs, &span, &global_fn);
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
