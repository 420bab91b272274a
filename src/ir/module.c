/* Passage — IRModule (tvm-behavior §1.1): an immutable, insertion-ordered
 * map GlobalVar -> function with a name index. Every update builds a new
 * module that shares the unchanged functions with the old one. */
#include "ir/ir_internal.h"

static psg_status fail(psg_ctx *ctx, psg_status code, const char *fmt, const char *name) {
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, code, NULL, 0, 0, NULL, 0, NULL, fmt, name);
}

/* A module over copies of `entries` (each retained); duplicate names are
 * rejected. */
psg_status psgi_module_from_entries(psg_ctx *ctx, const psgi_module_entry *entries, size_t n,
                                    psg_attrs *attrs, psg_module **out) {
  *out = NULL;
  psg_module *m = psgi_calloc(ctx, sizeof *m);
  if (!m) return psgi_nomem(ctx);
  m->refcount = 1;
  m->ctx = ctx;
  psgi_map_init(&m->by_name, ctx);
  psgi_ctx_object_born(ctx);
  if (n && !(m->entries = psgi_alloc(ctx, psgi_mul_size(n, sizeof *m->entries)))) {
    psg_module_release(m);
    return psgi_nomem(ctx);
  }
  for (size_t i = 0; i < n; i++) {
    const char *name = entries[i].gv->u.gvar.name;
    bool is_new;
    psgi_map_entry *e = psgi_map_put_str(&m->by_name, name, strlen(name), &is_new);
    if (!e) {
      psg_module_release(m);
      return psgi_nomem(ctx);
    }
    if (!is_new) {
      psg_module_release(m);
      return fail(ctx, PSG_ERR_INVALID_ARGUMENT, "duplicate global function name '@%s'", name);
    }
    e->value = (void *)(uintptr_t)(i + 1);
    m->entries[i] = entries[i];
    psg_expr_retain(entries[i].gv);
    psg_expr_retain(entries[i].func);
    if (entries[i].prim) entries[i].prim_ops->retain(entries[i].prim);
    m->n = i + 1;
  }
  m->attrs = attrs;
  psg_attrs_retain(attrs);
  *out = m;
  return PSG_OK;
}

psg_status psg_module_create(psg_ctx *ctx, psg_module **out) {
  return psgi_module_from_entries(ctx, NULL, 0, NULL, out);
}

void psg_module_retain(psg_module *m) {
  if (m) psgi_ref_inc(&m->refcount);
}

void psg_module_release(psg_module *m) {
  if (!m || !psgi_ref_dec(&m->refcount)) return;
  psg_ctx *ctx = m->ctx;
  for (size_t i = 0; i < m->n; i++) {
    psg_expr_release(m->entries[i].gv);
    psg_expr_release(m->entries[i].func);
    if (m->entries[i].prim) m->entries[i].prim_ops->release(m->entries[i].prim);
  }
  psgi_free(ctx, m->entries);
  for (size_t i = 0; i < m->ntypes; i++) psg_type_data_release(m->types[i]);
  psgi_free(ctx, m->types);
  psgi_map_fini(&m->by_name);
  psg_attrs_release(m->attrs);
  for (psgi_spec_node *s = m->specs, *next; s; s = next) {
    next = s->next;
    psgi_free(ctx, s);
  }
  psgi_free(ctx, m);
  psgi_ctx_object_died(ctx);
}

psg_ctx *psg_module_get_ctx(const psg_module *m) { return m->ctx; }

/* TVM's WarnIfMalformed: a module function must be closed. */
static psg_status check_function(psg_ctx *ctx, psg_expr *gv, psg_expr *func) {
  if (!gv || gv->kind != PSG_EXPR_GLOBAL_VAR)
    return fail(ctx, PSG_ERR_INVALID_ARGUMENT, "%s", "a module key must be a GlobalVar");
  if (!func || func->kind != PSG_EXPR_FUNCTION)
    return fail(ctx, PSG_ERR_INVALID_ARGUMENT, "the value of '@%s' must be a Function", gv->u.gvar.name);
  psgi_expr_vec free_vars = {0};
  psg_status st = psgi_free_vars(ctx, func, &free_vars);
  if (!st && free_vars.len) {
    psgi_buf b;
    psgi_buf_init(&b, ctx);
    for (size_t i = 0; i < free_vars.len && i < 5; i++)
      psgi_buf_printf(&b, "%s%%%s", i ? ", " : "", free_vars.data[i]->u.var.name);
    st = psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                       "function '@%s' has free variables: %s", gv->u.gvar.name,
                       b.data ? b.data : "");
    psgi_buf_fini(&b);
  }
  PSGI_VEC_FREE(ctx, &free_vars);
  return st;
}

/* A new module: m's entries with entry `at` replaced (at < n), appended
 * (at == n) or removed (remove). */
static psg_status derive(const psg_module *m, size_t at, const psgi_module_entry *with, bool remove,
                         psg_attrs *attrs, psg_module **out) {
  psg_ctx *ctx = m->ctx;
  size_t n = m->n + (at == m->n && !remove ? 1 : 0);
  psgi_module_entry *es = NULL;
  if (n && !(es = psgi_alloc(ctx, psgi_mul_size(n, sizeof *es)))) return psgi_nomem(ctx);
  size_t k = 0;
  for (size_t i = 0; i < m->n; i++) {
    if (i == at && remove) continue;
    es[k++] = i == at ? *with : m->entries[i];
  }
  if (at == m->n && !remove) es[k++] = *with;
  psg_status st = psgi_module_from_entries_of(m, es, k, attrs, out);
  psgi_free(ctx, es);
  return st;
}

psg_status psg_module_add(const psg_module *m, psg_expr *gv, psg_expr *func, psg_module **out) {
  *out = NULL;
  psg_status st = check_function(m->ctx, gv, func);
  if (st) return st;
  if (psg_module_find(m, gv->u.gvar.name) >= 0)
    return fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "a function named '@%s' already exists", gv->u.gvar.name);
  psgi_module_entry e = {gv, func, NULL, NULL};
  return derive(m, m->n, &e, false, m->attrs, out);
}

psg_status psg_module_update(const psg_module *m, psg_expr *gv, psg_expr *func, psg_module **out) {
  *out = NULL;
  psg_status st = check_function(m->ctx, gv, func);
  if (st) return st;
  ptrdiff_t at = psg_module_find(m, gv->u.gvar.name);
  /* An existing name keeps its position and its GlobalVar, so calls that
   * reference the old GlobalVar stay valid. */
  psgi_module_entry e = {at >= 0 ? m->entries[at].gv : gv, func, NULL, NULL};
  return derive(m, at >= 0 ? (size_t)at : m->n, &e, false, m->attrs, out);
}

psg_status psgi_module_put(const psg_module *m, const psgi_module_entry *e, bool replace, psg_module **out) {
  *out = NULL;
  ptrdiff_t at = psg_module_find(m, e->gv->u.gvar.name);
  if (at >= 0 && !replace)
    return fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "a function named '@%s' already exists", e->gv->u.gvar.name);
  psgi_module_entry en = *e;
  if (at >= 0) en.gv = m->entries[at].gv;
  return derive(m, at >= 0 ? (size_t)at : m->n, &en, false, m->attrs, out);
}

psg_status psg_module_remove(const psg_module *m, const char *name, psg_module **out) {
  *out = NULL;
  ptrdiff_t at = name ? psg_module_find(m, name) : -1;
  if (at < 0) return fail(m->ctx, PSG_ERR_NOT_FOUND, "no function named '@%s' in the module", name ? name : "");
  return derive(m, (size_t)at, NULL, true, m->attrs, out);
}

psg_status psg_module_with_attrs(const psg_module *m, psg_attrs *attrs, psg_module **out) {
  return psgi_module_from_entries_of(m, m->entries, m->n, attrs, out);
}

size_t psg_module_num_functions(const psg_module *m) { return m->n; }
psg_expr *psg_module_get_global_var(const psg_module *m, size_t i) { return i < m->n ? m->entries[i].gv : NULL; }
psg_expr *psg_module_get_function(const psg_module *m, size_t i) { return i < m->n ? m->entries[i].func : NULL; }
psg_attrs *psg_module_get_attrs(const psg_module *m) { return m->attrs; }

ptrdiff_t psg_module_find(const psg_module *m, const char *name) {
  if (!name) return -1;
  psgi_map_entry *e = psgi_map_get_str(&m->by_name, name, strlen(name));
  return e ? (ptrdiff_t)(uintptr_t)e->value - 1 : -1;
}

psg_expr *psg_module_lookup(const psg_module *m, const char *name) {
  ptrdiff_t i = psg_module_find(m, name);
  return i >= 0 ? m->entries[i].func : NULL;
}
