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
  psg_attr *a = psg_attrs_get(options, "entry_functions");
  if (!a) return mark(r, "main");
  if (psg_attr_kind(a) == PSG_ATTR_STRING) return mark(r, psg_attr_get_string(a));
  if (psg_attr_kind(a) != PSG_ATTR_LIST)
    return psg_ctx_fail(r->ctx, PSG_ERR_INVALID_ARGUMENT, "RemoveUnusedFunctions: entry_functions must be a list of names");
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
  while (!st && r.todo.len) st = psg_visit(ctx, &v, mod->entries[r.todo.data[--r.todo.len]].func);
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
    st = es ? psgi_module_from_entries(ctx, es, k, mod->attrs, out) : psgi_nomem(ctx);
    psgi_free(ctx, es);
  }
  PSGI_VEC_FREE(ctx, &r.todo);
  psgi_free(ctx, r.live);
  return st;
}

static void release_options(void *user) { psg_attrs_release(user); }

static psg_status make_remove_unused(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)user;
  psg_pass_info *info;
  psg_status st = psg_pass_info_create(ctx, "RemoveUnusedFunctions", 1, NULL, 0, &info);
  if (st) return st;
  psg_attrs_retain(options);
  st = psg_create_module_pass(ctx, info, remove_unused, options, release_options, out);
  if (st) psg_attrs_release(options);
  psg_pass_info_release(info);
  return st;
}

psg_status psgi_register_remove_unused_functions(psg_ctx *ctx) {
  static const char *const options[] = {"entry_functions", NULL};
  return psg_pass_register(ctx, "RemoveUnusedFunctions", PSG_PASS_MODULE, 1, NULL, 0, options,
                           "drop functions not reachable from the entry functions (default main)",
                           make_remove_unused, NULL);
}
