/* Passage — TVM's ObjectPath (include/passage/object_path.h): a linked list
 * of steps from a root, each node holding its parent, its length and what
 * the step is. Equality, prefixes and printing walk the parent chain. */
#include "passage/object_path.h"

#include "ir/ir_internal.h"

struct psg_object_path {
  uint32_t refcount;
  int kind;
  psg_ctx *ctx;
  psg_object_path *parent; /* NULL for a root; held */
  size_t length;
  int64_t index;           /* ARRAY_INDEX, MISSING_ARRAY_ELEMENT */
  char *name;              /* ROOT (may be NULL), ATTR, MAP_VALUE's key */
};

static psg_status make(psg_ctx *ctx, psg_object_path *parent, int kind, const char *name, int64_t index,
                       psg_object_path **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  psg_object_path *p = psgi_calloc(ctx, sizeof *p);
  if (!p) return psgi_nomem(ctx);
  if (name && !(p->name = psgi_strndup(ctx, name, strlen(name)))) {
    psgi_free(ctx, p);
    return psgi_nomem(ctx);
  }
  p->refcount = 1;
  p->kind = kind;
  p->ctx = ctx;
  p->index = index;
  p->parent = parent;
  p->length = parent ? parent->length + 1 : 1;
  if (parent) psgi_ref_inc(&parent->refcount);
  psg_ctx_retain(ctx);
  psgi_ctx_object_born(ctx);
  *out = p;
  return PSG_OK;
}

psg_status psg_object_path_root(psg_ctx *ctx, const char *name, psg_object_path **out) {
  if (!ctx) return PSG_ERR_INVALID_ARGUMENT;
  return make(ctx, NULL, PSG_PATH_ROOT, name, 0, out);
}

psg_status psg_object_path_attr(psg_object_path *parent, const char *name, psg_object_path **out) {
  if (!parent) return PSG_ERR_INVALID_ARGUMENT;
  return make(parent->ctx, parent, name ? PSG_PATH_ATTR : PSG_PATH_UNKNOWN_ATTR, name, 0, out);
}

psg_status psg_object_path_array_index(psg_object_path *parent, int64_t index, psg_object_path **out) {
  if (!parent) return PSG_ERR_INVALID_ARGUMENT;
  return make(parent->ctx, parent, PSG_PATH_ARRAY_INDEX, NULL, index, out);
}

psg_status psg_object_path_missing_array_element(psg_object_path *parent, int64_t index, psg_object_path **out) {
  if (!parent) return PSG_ERR_INVALID_ARGUMENT;
  return make(parent->ctx, parent, PSG_PATH_MISSING_ARRAY_ELEMENT, NULL, index, out);
}

psg_status psg_object_path_map_value(psg_object_path *parent, const char *key, psg_object_path **out) {
  if (!parent || !key) return PSG_ERR_INVALID_ARGUMENT;
  return make(parent->ctx, parent, PSG_PATH_MAP_VALUE, key, 0, out);
}

psg_status psg_object_path_missing_map_entry(psg_object_path *parent, psg_object_path **out) {
  if (!parent) return PSG_ERR_INVALID_ARGUMENT;
  return make(parent->ctx, parent, PSG_PATH_MISSING_MAP_ENTRY, NULL, 0, out);
}

void psg_object_path_retain(psg_object_path *p) {
  if (p) psgi_ref_inc(&p->refcount);
}

void psg_object_path_release(psg_object_path *p) {
  while (p && psgi_ref_dec(&p->refcount)) { /* up the chain while counts drop to zero */
    psg_object_path *parent = p->parent;
    psg_ctx *ctx = p->ctx;
    psgi_free(ctx, p->name);
    psgi_free(ctx, p);
    psgi_ctx_object_died(ctx);
    psg_ctx_release(ctx);
    p = parent;
  }
}

int psg_object_path_kind(const psg_object_path *p) { return p ? p->kind : -1; }
size_t psg_object_path_length(const psg_object_path *p) { return p ? p->length : 0; }
psg_object_path *psg_object_path_get_parent(const psg_object_path *p) { return p ? p->parent : NULL; }

psg_status psg_object_path_get_prefix(psg_object_path *p, size_t length, psg_object_path **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!p) return PSG_ERR_INVALID_ARGUMENT;
  if (length == 0)
    return psgi_diag_add(p->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "Prefix length must be at least 1");
  if (length > p->length)
    return psgi_diag_add(p->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "Attempted to get a prefix longer than the path itself");
  while (p->length > length) p = p->parent;
  psg_object_path_retain(p);
  *out = p;
  return PSG_OK;
}

static bool step_equal(const psg_object_path *a, const psg_object_path *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case PSG_PATH_ROOT:
    return (!a->name && !b->name) || (a->name && b->name && strcmp(a->name, b->name) == 0);
  case PSG_PATH_ATTR:
  case PSG_PATH_MAP_VALUE: return strcmp(a->name, b->name) == 0;
  case PSG_PATH_ARRAY_INDEX:
  case PSG_PATH_MISSING_ARRAY_ELEMENT: return a->index == b->index;
  default: return true;
  }
}

bool psg_object_path_equal(const psg_object_path *a, const psg_object_path *b) {
  if (!a || !b) return a == b;
  if (a->length != b->length) return false;
  for (; a && a != b; a = a->parent, b = b->parent)
    if (!step_equal(a, b)) return false;
  return true;
}

bool psg_object_path_is_prefix_of(const psg_object_path *a, const psg_object_path *b) {
  if (!a || !b || a->length > b->length) return false;
  while (b->length > a->length) b = b->parent;
  return psg_object_path_equal(a, b);
}

psg_status psg_object_path_to_string(const psg_object_path *p, char **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!p) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = p->ctx;
  /* The steps root first: gather them, then print in reverse. */
  const psg_object_path **steps = psgi_alloc(ctx, psgi_mul_size(p->length, sizeof *steps));
  if (!steps) return psgi_nomem(ctx);
  size_t n = 0;
  for (const psg_object_path *q = p; q; q = q->parent) steps[n++] = q;
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  while (n--) {
    const psg_object_path *q = steps[n];
    switch (q->kind) {
    case PSG_PATH_ROOT: psgi_buf_puts(&b, q->name ? q->name : "<root>"); break;
    case PSG_PATH_ATTR: psgi_buf_printf(&b, ".%s", q->name); break;
    case PSG_PATH_UNKNOWN_ATTR: psgi_buf_puts(&b, ".<unknown attribute>"); break;
    case PSG_PATH_ARRAY_INDEX: psgi_buf_printf(&b, "[%lld]", (long long)q->index); break;
    case PSG_PATH_MISSING_ARRAY_ELEMENT:
      psgi_buf_printf(&b, "[<missing element #%lld>]", (long long)q->index);
      break;
    case PSG_PATH_MAP_VALUE: psgi_buf_printf(&b, "[\"%s\"]", q->name); break;
    default: psgi_buf_puts(&b, "[<missing entry>]"); break;
    }
  }
  psgi_free(ctx, steps);
  *out = b.failed ? NULL : psgi_buf_detach_libc(&b, NULL);
  psgi_buf_fini(&b);
  return *out ? PSG_OK : psgi_nomem(ctx);
}
