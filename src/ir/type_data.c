/* Passage — TypeData (an ADT's definition: TVM's TypeData) and a module's
 * type definitions: added, replaced, looked up by name and by constructor. */
#include "ir/ir_internal.h"

static psg_status bad(psg_ctx *ctx, const char *fmt, const char *name) {
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL, fmt, name);
}

psg_status psg_type_data_create(psg_ctx *ctx, const psg_type *header, const psg_type *const *tvars, int ntvars,
                                psg_expr *const *ctors, int nctors, psg_type_data **out) {
  *out = NULL;
  if (!header || header->kind != PSG_TYPE_GLOBAL_VAR) return bad(ctx, "%s", "a TypeData needs a GlobalTypeVar");
  if (ntvars < 0 || nctors < 0 || (ntvars && !tvars) || (nctors && !ctors))
    return bad(ctx, "%s", "bad TypeData arguments");
  if (nctors > PSGI_TAG_INDEX_MASK) return bad(ctx, "%s", "a TypeData has too many constructors");
  for (int i = 0; i < ntvars; i++) {
    if (!tvars[i] || tvars[i]->kind != PSG_TYPE_VAR) return bad(ctx, "%s", "a TypeData parameter must be a TypeVar");
    for (int j = 0; j < i; j++)
      if (tvars[j] == tvars[i]) return bad(ctx, "%s", "a TypeData lists the same type parameter twice");
  }
  for (int i = 0; i < nctors; i++) {
    if (!ctors[i] || ctors[i]->kind != PSG_EXPR_CONSTRUCTOR) return bad(ctx, "%s", "a TypeData lists a non-Constructor");
    if (ctors[i]->u.ctor.belongs_to != header)
      return bad(ctx, "constructor %s belongs to another type", ctors[i]->u.ctor.name);
    for (int j = 0; j < i; j++)
      if (ctors[j]->u.ctor.name == ctors[i]->u.ctor.name)
        return bad(ctx, "constructor %s is defined twice", ctors[i]->u.ctor.name);
  }
  psg_type_data *td = psgi_calloc(ctx, sizeof *td + (size_t)ntvars * sizeof(psg_type *) +
                                           (size_t)nctors * sizeof(psg_expr *));
  if (!td) return psgi_nomem(ctx);
  td->refcount = 1;
  td->ctx = ctx;
  td->header = header;
  td->ntvars = ntvars;
  td->nctors = nctors;
  td->ctors = (psg_expr **)(td + 1);
  td->tvars = (const psg_type **)(td->ctors + nctors);
  for (int i = 0; i < ntvars; i++) td->tvars[i] = tvars[i];
  /* A constructor's tag, given once, is its position under a prefix in the
   * top byte from the ADT's name, as TVM tags constructors when their module
   * registers them: tags differ across ADTs (by name, so two modules with
   * the same definitions agree) and are consecutive within one. The prefix
   * stays in 1..127: never 0, and tags stay positive. */
  int prefix = 1 + (int)(psgi_hash_bytes(header->name, strlen(header->name)) % 127);
  for (int i = 0; i < nctors; i++) {
    td->ctors[i] = ctors[i];
    psg_expr_retain(ctors[i]);
    if (psgi_expr_tail_of(ctors[i])->tag < 0) psgi_expr_tail_of(ctors[i])->tag = prefix << 24 | i;
  }
  psgi_ctx_object_born(ctx);
  *out = td;
  return PSG_OK;
}

void psg_type_data_retain(psg_type_data *td) {
  if (td) psgi_ref_inc(&td->refcount);
}

void psg_type_data_release(psg_type_data *td) {
  if (!td || !psgi_ref_dec(&td->refcount)) return;
  psg_ctx *ctx = td->ctx;
  for (int i = 0; i < td->nctors; i++) psg_expr_release(td->ctors[i]);
  psgi_free(ctx, td);
  psgi_ctx_object_died(ctx);
}

const psg_type *psg_type_data_header(const psg_type_data *td) { return td->header; }
int psg_type_data_num_tvars(const psg_type_data *td) { return td->ntvars; }
const psg_type *psg_type_data_tvar(const psg_type_data *td, int i) {
  return i >= 0 && i < td->ntvars ? td->tvars[i] : NULL;
}
int psg_type_data_num_constructors(const psg_type_data *td) { return td->nctors; }
psg_expr *psg_type_data_constructor(const psg_type_data *td, int i) {
  return i >= 0 && i < td->nctors ? td->ctors[i] : NULL;
}

/* Module type definitions ----------------------------------------------------- */

psg_status psgi_module_set_types(psg_module *m, psg_type_data *const *types, size_t n) {
  if (!n) return PSG_OK;
  m->types = psgi_alloc(m->ctx, psgi_mul_size(n, sizeof *m->types));
  if (!m->types) return psgi_nomem(m->ctx);
  for (size_t i = 0; i < n; i++) {
    m->types[i] = types[i];
    psg_type_data_retain(types[i]);
  }
  m->ntypes = n;
  return PSG_OK;
}

psg_status psgi_module_from_entries_of(const psg_module *types_from, const psgi_module_entry *entries, size_t n,
                                       psg_attrs *attrs, psg_module **out) {
  psg_status st = psgi_module_from_entries(types_from->ctx, entries, n, attrs, out);
  if (!st && (st = psgi_module_set_types(*out, types_from->types, types_from->ntypes))) {
    psg_module_release(*out);
    *out = NULL;
  }
  return st;
}

size_t psg_module_num_type_defs(const psg_module *m) { return m->ntypes; }
psg_type_data *psg_module_get_type_def(const psg_module *m, size_t i) { return i < m->ntypes ? m->types[i] : NULL; }

static ptrdiff_t find_type(const psg_module *m, const char *name) {
  for (size_t i = 0; name && i < m->ntypes; i++)
    if (strcmp(m->types[i]->header->name, name) == 0) return (ptrdiff_t)i;
  return -1;
}

psg_type_data *psg_module_find_type_def(const psg_module *m, const char *name) {
  ptrdiff_t i = find_type(m, name);
  return i >= 0 ? m->types[i] : NULL;
}

psg_type_data *psg_module_lookup_type_def(const psg_module *m, const psg_type *gtv) {
  return gtv && gtv->kind == PSG_TYPE_GLOBAL_VAR ? psg_module_find_type_def(m, gtv->name) : NULL;
}

psg_expr *psg_module_find_constructor(const psg_module *m, const char *name) {
  for (size_t i = 0; name && i < m->ntypes; i++)
    for (int j = 0; j < m->types[i]->nctors; j++)
      if (strcmp(m->types[i]->ctors[j]->u.ctor.name, name) == 0) return m->types[i]->ctors[j];
  return NULL;
}

psg_status psg_module_add_type_def(const psg_module *m, psg_type_data *td, bool replace, psg_module **out) {
  *out = NULL;
  psg_ctx *ctx = m->ctx;
  if (!td) return bad(ctx, "%s", "psg_module_add_type_def needs a TypeData");
  ptrdiff_t at = find_type(m, td->header->name);
  if (at >= 0 && !replace) return bad(ctx, "a type named %s is already defined", td->header->name);
  for (int j = 0; j < td->nctors; j++) {
    psg_expr *c = psg_module_find_constructor(m, td->ctors[j]->u.ctor.name);
    if (c && (at < 0 || strcmp(c->u.ctor.belongs_to->name, td->header->name) != 0))
      return bad(ctx, "constructor %s is already defined", td->ctors[j]->u.ctor.name);
  }
  size_t n = m->ntypes + (at < 0);
  psg_type_data **types = psgi_alloc(ctx, psgi_mul_size(n, sizeof *types));
  if (!types) return psgi_nomem(ctx);
  for (size_t i = 0; i < m->ntypes; i++) types[i] = (ptrdiff_t)i == at ? td : m->types[i];
  if (at < 0) types[n - 1] = td;
  psg_status st = psgi_module_from_entries(ctx, m->entries, m->n, m->attrs, out);
  if (!st && (st = psgi_module_set_types(*out, types, n))) {
    psg_module_release(*out);
    *out = NULL;
  }
  psgi_free(ctx, types);
  return st;
}
