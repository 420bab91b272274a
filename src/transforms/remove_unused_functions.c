/* Passage — RemoveUnusedFunctions (tvm-behavior §7.1, first in the default
 * pipeline §7.2): a module pass (opt 1) keeping only the functions reachable
 * from the entry functions (option entry_functions, a list of names; default
 * ["main"]) through GlobalVar references. Reachability is a worklist over
 * names, each body walked once by the iterative visitor. */
#include "transforms/transforms.h"

typedef struct reach {
  psg_ctx *ctx;
  const psg_module *mod;
  uint8_t *live;           /* per module entry */
  PSGI_VEC(size_t) todo;   /* entries whose bodies are still to walk */
} reach;

static psg_status mark(reach *r, const char *name) {
  ptrdiff_t i = psg_module_find(r->mod, name);
  if (i < 0 || r->live[i]) return PSG_OK;
  r->live[i] = 1;
  return PSGI_VEC_PUSH(r->ctx, &r->todo, (size_t)i) ? PSG_OK : psgi_nomem(r->ctx);
}

static psg_status mark_global(psg_visitor *v, const psg_expr *e) {
  return e->kind == PSG_EXPR_GLOBAL_VAR ? mark(v->user, e->u.gvar.name) : PSG_OK;
}

/* Entry names from the option (a list of strings, or one string). */
static psg_status mark_entries(reach *r, const psg_attrs *options) {
  psg_attr *a = psg_attrs_get(options, "entry_functions"); /* a list: declared type, default ["main"] */
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < psg_attr_list_len(a); i++) {
    psg_attr *it = psg_attr_list_get(a, i);
    if (psg_attr_kind(it) != PSG_ATTR_STRING)
      return psg_ctx_fail(r->ctx, PSG_ERR_INVALID_ARGUMENT, "RemoveUnusedFunctions: entry_functions must be a list of names");
    st = mark(r, psg_attr_get_string(it));
  }
  return st;
}

static psg_status remove_unused(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  reach r = {ctx, mod, psgi_calloc(ctx, mod->n ? mod->n : 1), {0}};
  psg_status st = r.live ? mark_entries(&r, user) : psgi_nomem(ctx);
  psg_visitor v = {NULL, mark_global, &r};
  /* Every function an entry (a lone @main): all are live, nothing to walk. */
  if (r.todo.len == mod->n) r.todo.len = 0;
  while (!st && r.todo.len) {
    const psg_expr *fn = mod->entries[r.todo.data[--r.todo.len]].func;
    if (fn) st = psg_visit(ctx, &v, fn); /* a PrimFunc calls no Relay global */
  }
  size_t kept = 0;
  for (size_t i = 0; !st && i < mod->n; i++) kept += r.live[i];
  if (!st && kept == mod->n) {
    psg_module_retain(mod);
    *out = mod;
  } else if (!st) {
    psgi_module_entry *es = psgi_alloc(ctx, (kept ? kept : 1) * sizeof *es);
    size_t k = 0;
    for (size_t i = 0; es && i < mod->n; i++)
      if (r.live[i]) es[k++] = mod->entries[i];
    st = es ? psgi_module_from_entries_of(mod, es, k, mod->attrs, out) : psgi_nomem(ctx);
    psgi_free(ctx, es);
  }
  PSGI_VEC_FREE(ctx, &r.todo);
  psgi_free(ctx, r.live);
  return st;
}

static const psg_pass_option options[] = {{"entry_functions", PSG_CONFIG_LIST, "[\"main\"]"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_remove_unused_functions = {
    .name = "RemoveUnusedFunctions",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .options = options,
    .help = "drop functions not reachable from the entry functions (default main)",
    /* The functions it keeps are the very same nodes, and none of them calls
     * a dropped one: whatever held for the module holds for what is left. */
    .keeps = PSG_PROP_TYPED | PSG_PROP_ANF | PSG_PROP_GNF | PSG_PROP_BBNF | PSG_PROP_FUSED,
    .module = remove_unused,
};
