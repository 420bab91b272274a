/* Passage — PrimFuncs in an IRModule (issue 15 item 1): entries that hold a
 * PrimFunc next to Relay functions. src/ir keeps such an entry through the
 * table below, so the module never calls up into this layer. */
#include "tir/tir_internal.h"

static bool prim_equal(const psg_tir_node *a, const psg_tir_node *b, const char *prefix, char **path) {
  return psgi_tir_equal(a, b, prefix, path);
}

static const psgi_prim_func_ops prim_ops = {psg_tir_retain, psg_tir_release, prim_equal, psg_tir_structural_hash};

const psgi_prim_func_ops *psgi_tir_prim_func_ops(void) { return &prim_ops; }

static psg_status put(const psg_module *m, psg_expr *gv, psg_tir_prim_func *f, bool replace, psg_module **out) {
  *out = NULL;
  psg_ctx *ctx = m->ctx;
  if (!gv || gv->kind != PSG_EXPR_GLOBAL_VAR)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL, "%s",
                         "a module key must be a GlobalVar");
  if (!f || f->kind != PSG_TIR_PRIM_FUNC)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "the value of '@%s' must be a PrimFunc", gv->u.gvar.name);
  psgi_module_entry e = {gv, NULL, f, &prim_ops};
  return psgi_module_put(m, &e, replace, out);
}

psg_status psg_module_add_prim_func(const psg_module *m, psg_expr *gv, psg_tir_prim_func *f, psg_module **out) {
  return put(m, gv, f, false, out);
}

psg_status psg_module_update_prim_func(const psg_module *m, psg_expr *gv, psg_tir_prim_func *f, psg_module **out) {
  return put(m, gv, f, true, out);
}

psg_tir_prim_func *psg_module_get_prim_func(const psg_module *m, size_t i) {
  return i < m->n ? m->entries[i].prim : NULL;
}

psg_tir_prim_func *psg_module_lookup_prim_func(const psg_module *m, const char *name) {
  ptrdiff_t i = psg_module_find(m, name);
  return i >= 0 ? m->entries[i].prim : NULL;
}
