/* Passage — InlineGlobals (TVM's `Inline()`, tvm-behavior §7.1): a module pass
 * (opt 1) that inlines global functions marked Inline=1, as TVM v0.19 does.
 *
 * The module's call graph has one edge per (caller, GlobalVar referenced in
 * it); a function is recursive if it references itself. Functions are
 * visited callees first (the reverse of the breadth-first order from the
 * entries: functions nobody references, or referenced only by themselves).
 * In each, a reference to a global that can be inlined — marked, not
 * recursive, and calling no global any more (its own calls were inlined
 * first) — drops its edge and is replaced: a call by the callee's body with
 * the arguments bound to its parameters, a bare reference by a copy of the
 * function. A callee with a "Compiler" or nonzero "Extern" attribute is
 * never spliced: the call (or reference) gets a copy of the function
 * instead. Afterwards every marked function that nothing references any more
 * is removed, but for recursive functions and the original entries (a
 * marked @main stays). Bound variables are not renamed (TVM's Bind): a body
 * inlined twice into one function binds its let variables twice, as TVM's
 * does. */
#include "transforms/transforms.h"

typedef struct cg_node {
  PSGI_VEC(uint32_t) callees; /* one per GlobalVar node the function references */
  uint32_t refs;              /* edges into this function */
  bool recursive;
} cg_node;

typedef struct inliner {
  psg_ctx *ctx;
  const psg_module *mod;
  cg_node *nodes;
  psg_expr **funcs; /* per entry: its function as rewritten so far (NULL: a PrimFunc) */
  size_t cur;       /* the function being rewritten */
} inliner;

static bool is_marked(const psg_expr *fn) {
  psg_attr *a = fn && fn->kind == PSG_EXPR_FUNCTION ? psg_attrs_get(fn->u.fn.attrs, "Inline") : NULL;
  return a && psg_attr_get_int(a) != 0;
}

/* A callee kept as a function: external codegen compiles it as a unit. */
static bool is_external(const psg_expr *fn) {
  psg_attr *ext = psg_attrs_get(fn->u.fn.attrs, "Extern");
  return psg_attrs_get(fn->u.fn.attrs, "Compiler") || (ext && psg_attr_get_int(ext) != 0);
}

static ptrdiff_t entry_of(const inliner *in, const psg_expr *gv) {
  return gv->kind == PSG_EXPR_GLOBAL_VAR ? psg_module_find(in->mod, gv->u.gvar.name) : -1;
}

/* Edges -------------------------------------------------------------------- */

static psg_status add_edge(psg_visitor *v, const psg_expr *e) {
  inliner *in = v->user;
  ptrdiff_t j = entry_of(in, e);
  if (j < 0) return PSG_OK;
  cg_node *caller = &in->nodes[in->cur];
  if (!PSGI_VEC_PUSH(in->ctx, &caller->callees, (uint32_t)j)) return psgi_nomem(in->ctx);
  in->nodes[j].refs++;
  if ((size_t)j == in->cur) caller->recursive = true;
  return PSG_OK;
}

static psg_status build_graph(inliner *in) {
  psg_visitor v = {NULL, add_edge, in};
  psg_status st = PSG_OK;
  for (in->cur = 0; !st && in->cur < in->mod->n; in->cur++)
    if (in->funcs[in->cur]) st = psg_visit(in->ctx, &v, in->funcs[in->cur]);
  return st;
}

/* Removes one edge cur -> j (none left: nothing to do). */
static void remove_call_to(inliner *in, size_t j) {
  cg_node *c = &in->nodes[in->cur];
  for (size_t k = 0; k < c->callees.len; k++) {
    if (c->callees.data[k] != j) continue;
    in->nodes[j].refs--;
    c->callees.data[k] = c->callees.data[--c->callees.len];
    return;
  }
}

/* Breadth-first from each entry, each entry's order placed before the
 * previous ones' (TVM's CallGraph::TopologicalOrder). */
static psg_status topological_order(inliner *in, size_t *order) {
  size_t n = in->mod->n, filled = 0;
  uint8_t *seen = psgi_calloc(in->ctx, n ? n : 1);
  size_t *part = psgi_alloc(in->ctx, (n ? n : 1) * sizeof *part);
  psg_status st = seen && part ? PSG_OK : psgi_nomem(in->ctx);
  for (size_t e = 0; !st && e < n; e++) {
    const cg_node *en = &in->nodes[e];
    if (seen[e] || !(en->refs == 0 || (en->refs == 1 && en->recursive))) continue;
    size_t len = 0;
    seen[e] = 1;
    part[len++] = e;
    for (size_t head = 0; head < len; head++) {
      const cg_node *c = &in->nodes[part[head]];
      for (size_t k = 0; k < c->callees.len; k++)
        if (!seen[c->callees.data[k]]) {
          seen[c->callees.data[k]] = 1;
          part[len++] = c->callees.data[k];
        }
    }
    memmove(order + len, order, filled * sizeof *order);
    memcpy(order, part, len * sizeof *order);
    filled += len;
  }
  for (size_t i = 0; !st && i < n; i++)
    if (!seen[i])
      st = psg_ctx_fail(in->ctx, PSG_ERR_INVALID_ARGUMENT,
                        "InlineGlobals: @%s is reached from no entry function (functions that only call each other)",
                        in->mod->entries[i].gv->u.gvar.name);
  psgi_free(in->ctx, seen);
  psgi_free(in->ctx, part);
  return st;
}

/* Rewriting ---------------------------------------------------------------- */

static bool can_inline(const inliner *in, size_t j) {
  const cg_node *c = &in->nodes[j];
  return !c->callees.len && !c->recursive && is_marked(in->funcs[j]);
}

/* A fresh Function node with fn's fields (TVM copies the callee). */
static psg_status copy_function(psg_ctx *ctx, const psg_expr *fn, psg_expr **out) {
  int nt = psg_function_num_type_params(fn);
  const psg_type *tps[16];
  const psg_type **tp = nt > 16 ? psgi_alloc(ctx, (size_t)nt * sizeof *tp) : tps;
  if (!tp) return psgi_nomem(ctx);
  for (int i = 0; i < nt; i++) tp[i] = psg_function_type_param(fn, i);
  psg_status st = psg_function_create_poly(ctx, fn->kids, fn->nkids - 1, psgi_fn_body(fn), fn->u.fn.ret_type, tp, nt,
                                           fn->u.fn.attrs, psgi_expr_span_ref(fn), out);
  if (tp != tps) psgi_free(ctx, tp);
  return st;
}

/* body[params := args]. */
static psg_status bind_body(psg_ctx *ctx, const psg_expr *fn, psg_expr *const *args, psg_expr **out) {
  psg_mutator sub;
  psg_mutator_init(&sub, ctx);
  psg_status st = PSG_OK;
  for (uint32_t i = 0; !st && i + 1 < fn->nkids; i++) st = psg_mutator_set_result(&sub, fn->kids[i], args[i]);
  if (!st) st = psg_mutate(&sub, psgi_fn_body(fn), out);
  psg_mutator_fini(&sub);
  return st;
}

/* A bare reference (and the callee of a call, visited first): a copy of the
 * function. */
static psg_status on_global(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  inliner *in = m->user;
  ptrdiff_t j = entry_of(in, e);
  if (j < 0 || !can_inline(in, (size_t)j)) return psg_mutator_default(m, e, out);
  remove_call_to(in, (size_t)j);
  return copy_function(m->ctx, in->funcs[j], out);
}

static psg_status on_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  inliner *in = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  ptrdiff_t j = entry_of(in, e->kids[0]);
  if (st || j < 0 || !can_inline(in, (size_t)j)) return st;
  const psg_expr *fn = in->funcs[j];
  if (is_external(fn) || fn->nkids != (*out)->nkids) return PSG_OK; /* a call of the copy; arity: InferType's */
  psg_expr *body = NULL;
  st = bind_body(m->ctx, fn, (*out)->kids + 1, &body);
  if (st) return st;
  psg_expr_release(*out);
  *out = body;
  return PSG_OK;
}

static psg_status rewrite(inliner *in, size_t i) {
  psg_mutator m;
  psg_mutator_init(&m, in->ctx);
  m.user = in;
  m.visit[PSG_EXPR_CALL] = on_call;
  m.visit[PSG_EXPR_GLOBAL_VAR] = on_global;
  in->cur = i;
  psg_expr *out = NULL;
  psg_status st = psg_mutate(&m, in->funcs[i], &out);
  psg_mutator_fini(&m);
  if (st) return st;
  psg_expr_release(in->funcs[i]);
  in->funcs[i] = out;
  return PSG_OK;
}

/* The module of the rewritten functions, without the removed ones. */
static psg_status assemble(inliner *in, const uint8_t *removed, psg_module **out) {
  const psg_module *mod = in->mod;
  bool same = true;
  for (size_t i = 0; i < mod->n; i++) same = same && !removed[i] && in->funcs[i] == mod->entries[i].func;
  if (same) {
    psg_module_retain((psg_module *)mod);
    *out = (psg_module *)mod;
    return PSG_OK;
  }
  psgi_module_entry *es = psgi_alloc(in->ctx, (mod->n ? mod->n : 1) * sizeof *es);
  if (!es) return psgi_nomem(in->ctx);
  size_t k = 0;
  for (size_t i = 0; i < mod->n; i++) {
    if (removed[i]) continue;
    es[k] = mod->entries[i];
    es[k++].func = in->funcs[i];
  }
  psg_status st = psgi_module_from_entries_of(mod, es, k, mod->attrs, out);
  psgi_free(in->ctx, es);
  return st;
}

static psg_status inline_module(inliner *in, size_t *order, uint8_t *flags, psg_module **out) {
  size_t n = in->mod->n;
  psg_status st = build_graph(in);
  if (!st) st = topological_order(in, order);
  enum { ENTRY = 1, REMOVED = 2 };
  for (size_t k = n; !st && k-- > 0;) {
    size_t i = order[k];
    const cg_node *c = &in->nodes[i];
    if (!c->refs) flags[i] |= ENTRY;
    if (!in->funcs[i] || !c->callees.len || (c->recursive && c->callees.len == 1)) continue;
    st = rewrite(in, i);
  }
  for (size_t k = 0; !st && k < n; k++) {
    size_t i = order[k];
    cg_node *c = &in->nodes[i];
    /* TVM asserts a marked function left referenced was inlined; it is kept. */
    if (c->recursive || (flags[i] & ENTRY) || !is_marked(in->funcs[i]) || c->refs) continue;
    for (size_t e = 0; e < c->callees.len; e++) in->nodes[c->callees.data[e]].refs--;
    c->callees.len = 0;
    flags[i] |= REMOVED;
  }
  uint8_t *removed = flags;
  for (size_t i = 0; i < n; i++) removed[i] = (flags[i] & REMOVED) != 0;
  return st ? st : assemble(in, removed, out);
}

static psg_status run_inline(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  size_t n = mod->n ? mod->n : 1;
  inliner in = {ctx, mod, psgi_calloc(ctx, n * sizeof *in.nodes), psgi_calloc(ctx, n * sizeof *in.funcs), 0};
  size_t *order = psgi_alloc(ctx, n * sizeof *order);
  uint8_t *flags = psgi_calloc(ctx, n);
  psg_status st = in.nodes && in.funcs && order && flags ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; !st && i < mod->n; i++) {
    in.funcs[i] = mod->entries[i].func;
    if (in.funcs[i]) psg_expr_retain(in.funcs[i]);
  }
  if (!st) st = inline_module(&in, order, flags, out);
  for (size_t i = 0; in.funcs && i < mod->n; i++) psg_expr_release(in.funcs[i]);
  for (size_t i = 0; in.nodes && i < mod->n; i++) PSGI_VEC_FREE(ctx, &in.nodes[i].callees);
  psgi_free(ctx, in.nodes);
  psgi_free(ctx, in.funcs);
  psgi_free(ctx, order);
  psgi_free(ctx, flags);
  return st;
}

const psg_pass_decl psgi_pass_inline_globals = {
    .name = "InlineGlobals",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .help = "inline global functions marked Inline=1 into their callers",
    .module = run_inline,
};
