/* Passage — InlineGlobals (TVM's `Inline()`, tvm-behavior §7.1): a module pass
 * (opt 1) that replaces each call of a global function marked Inline=1 by the
 * function's body with the arguments substituted for its parameters, then
 * drops the marked functions nobody calls any more.
 *
 * Only bodies without binders (no let, no nested fn) are inlined: a body
 * inlined twice would otherwise bind the same variable twice in one
 * function. Calls inside an inlined body are inlined on the next round; the
 * rounds stop when nothing changes, after at most one per function (so a
 * recursive Inline function is left called, not unrolled forever). */
#include "transforms/transforms.h"

static bool is_marked(const psg_expr *fn) {
  psg_attr *a = fn->kind == PSG_EXPR_FUNCTION ? psg_attrs_get(fn->u.fn.attrs, "Inline") : NULL;
  return a && psg_attr_get_int(a) != 0;
}

static int find_binder(psg_visitor *v, const psg_expr *e) {
  if (e->kind == PSG_EXPR_LET || e->kind == PSG_EXPR_FUNCTION) {
    *(bool *)v->user = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

static bool has_binder(psg_ctx *ctx, const psg_expr *body) {
  bool found = false;
  psg_visitor v = {find_binder, NULL, &found};
  return psg_visit(ctx, &v, body) != PSG_OK || found;
}

typedef struct inliner {
  const psg_module *mod;
  const uint8_t *inlinable; /* per module entry */
  bool changed;
} inliner;

/* body[params := args]. */
static psg_status substitute(psg_ctx *ctx, const psg_expr *fn, psg_expr *const *args, psg_expr **out) {
  psg_mutator sub;
  psg_mutator_init(&sub, ctx);
  psg_status st = PSG_OK;
  for (uint32_t i = 0; !st && i + 1 < fn->nkids; i++) st = psg_mutator_set_result(&sub, fn->kids[i], args[i]);
  if (!st) st = psg_mutate(&sub, psgi_fn_body(fn), out);
  psg_mutator_fini(&sub);
  return st;
}

static psg_status inline_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  inliner *in = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  const psg_expr *callee = (*out)->kids[0];
  if (st || callee->kind != PSG_EXPR_GLOBAL_VAR) return st;
  ptrdiff_t i = psg_module_find(in->mod, callee->u.gvar.name);
  if (i < 0 || !in->inlinable[i]) return PSG_OK;
  const psg_expr *fn = in->mod->entries[i].func;
  if (fn->nkids != (*out)->nkids) return PSG_OK; /* arity mismatch: InferType reports it */
  psg_expr *body = NULL;
  st = substitute(m->ctx, fn, (*out)->kids + 1, &body);
  if (st) return st;
  psg_expr_release(*out);
  *out = body;
  in->changed = true;
  return PSG_OK;
}

static int count_global(psg_visitor *v, const psg_expr *e) {
  if (e->kind == PSG_EXPR_GLOBAL_VAR) {
    const psg_module *mod = ((const void **)v->user)[0];
    uint32_t *refs = ((void **)v->user)[1];
    ptrdiff_t i = psg_module_find(mod, e->u.gvar.name);
    if (i >= 0) refs[i]++;
  }
  return PSG_VISIT_CONTINUE;
}

/* One round over every function; *out is a new module or NULL if unchanged. */
static psg_status inline_round(psg_ctx *ctx, const psg_module *mod, const uint8_t *inlinable, psg_module **out) {
  *out = NULL;
  inliner in = {mod, inlinable, false};
  psgi_module_entry *es = psgi_calloc(ctx, (mod->n ? mod->n : 1) * sizeof *es);
  if (!es) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  size_t done = 0;
  for (; !st && done < mod->n; done++) {
    psg_mutator m;
    psg_mutator_init(&m, ctx);
    m.user = &in;
    m.visit[PSG_EXPR_CALL] = inline_call;
    es[done] = mod->entries[done];
    es[done].func = NULL;
    if (mod->entries[done].func) st = psg_mutate(&m, mod->entries[done].func, &es[done].func); /* else a PrimFunc */
    psg_mutator_fini(&m);
  }
  if (!st && in.changed) st = psgi_module_from_entries_of(mod, es, mod->n, mod->attrs, out);
  for (size_t i = 0; i < done; i++) psg_expr_release(es[i].func);
  psgi_free(ctx, es);
  return st;
}

/* Drops marked functions that no function references any more. */
static psg_status drop_inlined(psg_ctx *ctx, psg_module *mod, psg_module **out) {
  uint32_t *refs = psgi_calloc(ctx, (mod->n ? mod->n : 1) * sizeof *refs);
  psgi_module_entry *es = psgi_alloc(ctx, (mod->n ? mod->n : 1) * sizeof *es);
  psg_status st = refs && es ? PSG_OK : psgi_nomem(ctx);
  const void *user[2] = {mod, refs};
  psg_visitor v = {count_global, NULL, (void *)user};
  for (size_t i = 0; !st && i < mod->n; i++)
    if (mod->entries[i].func) st = psg_visit(ctx, &v, mod->entries[i].func);
  size_t k = 0;
  for (size_t i = 0; !st && i < mod->n; i++)
    if (refs[i] || !mod->entries[i].func || !is_marked(mod->entries[i].func) || !strcmp(mod->entries[i].gv->u.gvar.name, "main"))
      es[k++] = mod->entries[i];
  if (!st && k == mod->n) {
    psg_module_retain(mod);
    *out = mod;
  } else if (!st) {
    st = psgi_module_from_entries_of(mod, es, k, mod->attrs, out);
  }
  psgi_free(ctx, refs);
  psgi_free(ctx, es);
  return st;
}

static psg_status run_inline(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  uint8_t *inlinable = psgi_calloc(ctx, mod->n ? mod->n : 1);
  if (!inlinable) return psgi_nomem(ctx);
  for (size_t i = 0; i < mod->n; i++) {
    const psg_expr *fn = mod->entries[i].func;
    inlinable[i] = fn && is_marked(fn) && !has_binder(ctx, psgi_fn_body(fn));
  }
  psg_module *cur = mod;
  psg_module_retain(cur);
  psg_status st = PSG_OK;
  for (size_t round = 0; !st && round <= mod->n; round++) {
    psg_module *next = NULL;
    st = inline_round(ctx, cur, inlinable, &next);
    if (st || !next) break;
    psg_module_release(cur);
    cur = next;
  }
  if (!st) st = drop_inlined(ctx, cur, out);
  psg_module_release(cur);
  psgi_free(ctx, inlinable);
  return st;
}

const psg_pass_decl psgi_pass_inline_globals = {
    .name = "InlineGlobals",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .help = "inline global functions marked Inline=1 into their callers",
    .module = run_inline,
};
