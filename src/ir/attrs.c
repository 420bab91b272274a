/* Passage — typed immutable attribute values and dictionaries (the attrs of
 * calls, functions and modules). Values are reference counted; a dictionary
 * holds its values and keeps keys (interned) in insertion order. Release is
 * iterative so deeply nested lists cannot exhaust the stack. */
#include <math.h>
#include "ir/ir_internal.h"

static psg_status new_attr(psg_ctx *ctx, int kind, psg_attr **out) {
  *out = NULL;
  psg_attr *a = psgi_calloc(ctx, sizeof *a);
  if (!a) return psgi_nomem(ctx);
  a->refcount = 1;
  a->kind = kind;
  a->ctx = ctx;
  psgi_ctx_object_born(ctx);
  *out = a;
  return PSG_OK;
}

psg_status psg_attr_none(psg_ctx *ctx, psg_attr **out) { return new_attr(ctx, PSG_ATTR_NONE, out); }

psg_status psg_attr_int(psg_ctx *ctx, int64_t v, psg_attr **out) {
  psg_status st = new_attr(ctx, PSG_ATTR_INT, out);
  if (!st) (*out)->u.i = v;
  return st;
}

psg_status psg_attr_float(psg_ctx *ctx, double v, psg_attr **out) {
  psg_status st = new_attr(ctx, PSG_ATTR_FLOAT, out);
  if (!st) (*out)->u.f = v;
  return st;
}

psg_status psg_attr_bool(psg_ctx *ctx, bool v, psg_attr **out) {
  psg_status st = new_attr(ctx, PSG_ATTR_BOOL, out);
  if (!st) (*out)->u.b = v;
  return st;
}

psg_status psg_attr_dtype(psg_ctx *ctx, int dtype, psg_attr **out) {
  *out = NULL;
  if (dtype <= PSG_DTYPE_INVALID || dtype >= PSG_DTYPE_COUNT) return PSG_ERR_INVALID_ARGUMENT;
  psg_status st = new_attr(ctx, PSG_ATTR_DTYPE, out);
  if (!st) (*out)->u.dtype = dtype;
  return st;
}

psg_status psg_attr_string(psg_ctx *ctx, const char *s, size_t len, psg_attr **out) {
  *out = NULL;
  if (!s && len) return PSG_ERR_INVALID_ARGUMENT;
  char *copy = psgi_strndup(ctx, s ? s : "", len);
  if (!copy) return psgi_nomem(ctx);
  psg_status st = new_attr(ctx, PSG_ATTR_STRING, out);
  if (st) {
    psgi_free(ctx, copy);
    return st;
  }
  (*out)->u.str.s = copy;
  (*out)->u.str.len = len;
  return PSG_OK;
}

psg_status psg_attr_list(psg_ctx *ctx, psg_attr *const *items, size_t n, psg_attr **out) {
  *out = NULL;
  if (n && !items) return PSG_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < n; i++)
    if (!items[i]) return PSG_ERR_INVALID_ARGUMENT;
  psg_attr **copy = NULL;
  if (n) {
    copy = psgi_alloc(ctx, psgi_mul_size(n, sizeof *copy));
    if (!copy) return psgi_nomem(ctx);
  }
  psg_status st = new_attr(ctx, PSG_ATTR_LIST, out);
  if (st) {
    psgi_free(ctx, copy);
    return st;
  }
  for (size_t i = 0; i < n; i++) {
    copy[i] = items[i];
    psg_attr_retain(items[i]);
  }
  (*out)->u.list.n = n;
  (*out)->u.list.items = copy;
  return PSG_OK;
}

psg_status psg_attr_dict(psg_ctx *ctx, psg_attrs *dict, psg_attr **out) {
  *out = NULL;
  psg_status st = new_attr(ctx, PSG_ATTR_DICT, out);
  if (st) return st;
  (*out)->u.dict = dict;
  psg_attrs_retain(dict);
  return PSG_OK;
}

void psg_attr_retain(psg_attr *a) {
  if (a) psgi_ref_inc(&a->refcount);
}

void psg_attrs_retain(psg_attrs *a) {
  if (a) psgi_ref_inc(&a->refcount);
}

/* Iterative release of values and dictionaries: dead objects go on a pending
 * list instead of recursing (jq's jv_free). Tagged pointers tell the two
 * apart: bit 0 set means a dictionary. */
typedef PSGI_VEC(uintptr_t) pending_vec;

static void free_attr_shallow(psg_attr *a, pending_vec *pending) {
  psg_ctx *ctx = a->ctx;
  switch (a->kind) {
  case PSG_ATTR_STRING:
  case PSG_ATTR_GLOBAL_VAR: psgi_free(ctx, a->u.str.s); break;
  case PSG_ATTR_LIST:
    for (size_t i = 0; i < a->u.list.n; i++) {
      psg_attr *item = a->u.list.items[i];
      if (psgi_ref_dec(&item->refcount) && !PSGI_VEC_PUSH(ctx, pending, (uintptr_t)item)) {
        free_attr_shallow(item, pending); /* OOM fallback: recurse */
      }
    }
    psgi_free(ctx, a->u.list.items);
    break;
  case PSG_ATTR_DICT:
    if (a->u.dict && psgi_ref_dec(&a->u.dict->refcount))
      if (!PSGI_VEC_PUSH(ctx, pending, (uintptr_t)a->u.dict | 1)) {
        /* Could not queue: leak-free fallback is impossible without memory;
         * free the dictionary directly (bounded by nesting depth). */
        psg_attrs *d = a->u.dict;
        for (size_t i = 0; i < d->n; i++) psg_attr_release(d->e[i].value);
        psgi_free(ctx, d);
        psgi_ctx_object_died(ctx);
      }
    break;
  case PSG_ATTR_NONE:
  case PSG_ATTR_INT:
  case PSG_ATTR_FLOAT:
  case PSG_ATTR_BOOL:
  case PSG_ATTR_DTYPE: break;
  }
  psgi_free(ctx, a);
  psgi_ctx_object_died(ctx);
}

static void free_dict_shallow(psg_attrs *d, pending_vec *pending) {
  psg_ctx *ctx = d->ctx;
  for (size_t i = 0; i < d->n; i++) {
    psg_attr *v = d->e[i].value;
    if (psgi_ref_dec(&v->refcount) && !PSGI_VEC_PUSH(ctx, pending, (uintptr_t)v))
      free_attr_shallow(v, pending);
  }
  psgi_free(ctx, d);
  psgi_ctx_object_died(ctx);
}

static void drain(psg_ctx *ctx, pending_vec *pending) {
  while (pending->len) {
    uintptr_t p = pending->data[--pending->len];
    if (p & 1)
      free_dict_shallow((psg_attrs *)(p & ~(uintptr_t)1), pending);
    else
      free_attr_shallow((psg_attr *)p, pending);
  }
  PSGI_VEC_FREE(ctx, pending);
}

void psg_attr_release(psg_attr *a) {
  if (!a || !psgi_ref_dec(&a->refcount)) return;
  psg_ctx *ctx = a->ctx;
  psg_ctx_retain(ctx); /* the last object may hold the last context reference */
  pending_vec pending = {0};
  free_attr_shallow(a, &pending);
  drain(ctx, &pending);
  psg_ctx_release(ctx);
}

void psg_attrs_release(psg_attrs *d) {
  if (!d || !psgi_ref_dec(&d->refcount)) return;
  psg_ctx *ctx = d->ctx;
  psg_ctx_retain(ctx);
  pending_vec pending = {0};
  free_dict_shallow(d, &pending);
  drain(ctx, &pending);
  psg_ctx_release(ctx);
}

int psg_attr_kind(const psg_attr *a) { return a->kind; }
psg_status psg_attr_global_var(psg_ctx *ctx, const char *name, psg_attr **out) {
  *out = NULL;
  if (!name || !*name) return PSG_ERR_INVALID_ARGUMENT;
  psg_status st = psg_attr_string(ctx, name, strlen(name), out);
  if (!st) (*out)->kind = PSG_ATTR_GLOBAL_VAR; /* same storage as a string */
  return st;
}

int64_t psg_attr_get_int(const psg_attr *a) {
  return a->kind == PSG_ATTR_INT ? a->u.i : a->kind == PSG_ATTR_BOOL ? a->u.b : 0;
}
double psg_attr_get_float(const psg_attr *a) {
  return a->kind == PSG_ATTR_FLOAT ? a->u.f : a->kind == PSG_ATTR_INT ? (double)a->u.i : 0.0;
}
const char *psg_attr_get_string(const psg_attr *a) {
  return a->kind == PSG_ATTR_STRING ? a->u.str.s : a->kind == PSG_ATTR_DTYPE ? psg_dtype_name(a->u.dtype) : NULL;
}
bool psg_attr_get_bool(const psg_attr *a) {
  return a->kind == PSG_ATTR_BOOL ? a->u.b : a->kind == PSG_ATTR_INT ? a->u.i != 0 : false;
}
const char *psg_attr_get_global_var(const psg_attr *a) {
  return a->kind == PSG_ATTR_GLOBAL_VAR ? a->u.str.s : NULL;
}
int psg_attr_get_dtype(const psg_attr *a) { return a->kind == PSG_ATTR_DTYPE ? a->u.dtype : 0; }
size_t psg_attr_list_len(const psg_attr *a) { return a->kind == PSG_ATTR_LIST ? a->u.list.n : 0; }
psg_attr *psg_attr_list_get(const psg_attr *a, size_t i) {
  return a->kind == PSG_ATTR_LIST && i < a->u.list.n ? a->u.list.items[i] : NULL;
}
psg_attrs *psg_attr_get_dict(const psg_attr *a) { return a->kind == PSG_ATTR_DICT ? a->u.dict : NULL; }

/* Equality with an explicit stack of pairs (values may nest deeply). Floats
 * compare by bit pattern, so NaN equals the same NaN and -0.0 differs from
 * 0.0: equality here means "prints and behaves the same". */
typedef struct {
  const void *a, *b;
  bool is_dict;
} attr_pair;

static bool scalar_equal(const psg_attr *a, const psg_attr *b) {
  switch (a->kind) {
  case PSG_ATTR_NONE: return true;
  case PSG_ATTR_INT: return a->u.i == b->u.i;
  case PSG_ATTR_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof(double)) == 0;
  case PSG_ATTR_BOOL: return a->u.b == b->u.b;
  case PSG_ATTR_DTYPE: return a->u.dtype == b->u.dtype;
  case PSG_ATTR_STRING:
  case PSG_ATTR_GLOBAL_VAR:
    return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
  case PSG_ATTR_LIST: return a->u.list.n == b->u.list.n;
  case PSG_ATTR_DICT: return true;
  }
  return false;
}

static bool equal_pairs(psg_ctx *ctx, const void *a, const void *b, bool is_dict) {
  PSGI_VEC(attr_pair) stack = {0};
  bool eq = true;
  attr_pair first = {a, b, is_dict};
  if (!PSGI_VEC_PUSH(ctx, &stack, first)) return false;
  while (eq && stack.len) {
    attr_pair p = stack.data[--stack.len];
    if (p.a == p.b) continue;
    if (!p.a || !p.b) {
      /* NULL dictionaries equal empty ones. */
      const psg_attrs *d = p.a ? p.a : p.b;
      eq = p.is_dict && d->n == 0;
      continue;
    }
    if (p.is_dict) {
      const psg_attrs *x = p.a, *y = p.b;
      if (x->n != y->n) {
        eq = false;
        break;
      }
      for (size_t i = 0; i < x->n && eq; i++) {
        attr_pair q = {x->e[i].value, y->e[i].value, false};
        eq = x->e[i].key == y->e[i].key && PSGI_VEC_PUSH(ctx, &stack, q);
      }
      continue;
    }
    const psg_attr *x = p.a, *y = p.b;
    if (x->kind != y->kind || !scalar_equal(x, y)) {
      eq = false;
      break;
    }
    if (x->kind == PSG_ATTR_LIST) {
      for (size_t i = 0; i < x->u.list.n && eq; i++) {
        attr_pair q = {x->u.list.items[i], y->u.list.items[i], false};
        eq = PSGI_VEC_PUSH(ctx, &stack, q);
      }
    } else if (x->kind == PSG_ATTR_DICT) {
      attr_pair q = {x->u.dict, y->u.dict, true};
      eq = PSGI_VEC_PUSH(ctx, &stack, q);
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  return eq;
}

bool psg_attr_equal(const psg_attr *a, const psg_attr *b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return equal_pairs(a->ctx, a, b, false);
}

bool psg_attrs_equal(const psg_attrs *a, const psg_attrs *b) {
  if (a == b) return true;
  const psg_attrs *some = a ? a : b;
  if (!a || !b) return some->n == 0;
  return equal_pairs(a->ctx, a, b, true);
}

static psg_status new_dict(psg_ctx *ctx, size_t n, psg_attrs **out) {
  *out = NULL;
  size_t size = sizeof(psg_attrs) + psgi_mul_size(n, sizeof(((psg_attrs *)0)->e[0]));
  psg_attrs *d = psgi_calloc(ctx, size);
  if (!d) return psgi_nomem(ctx);
  d->refcount = 1;
  d->ctx = ctx;
  d->n = n;
  psgi_ctx_object_born(ctx);
  *out = d;
  return PSG_OK;
}

psg_status psg_attrs_create(psg_ctx *ctx, const char *const *keys, psg_attr *const *values,
                            size_t n, psg_attrs **out) {
  *out = NULL;
  if (n && (!keys || !values)) return PSG_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < n; i++) {
    if (!keys[i] || !values[i]) return PSG_ERR_INVALID_ARGUMENT;
    for (size_t j = 0; j < i; j++)
      if (strcmp(keys[i], keys[j]) == 0)
        return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0,
                             NULL, "attribute '%s' given twice", keys[i]);
  }
  const char **interned = NULL;
  if (n && !(interned = psgi_alloc(ctx, psgi_mul_size(n, sizeof *interned)))) return psgi_nomem(ctx);
  for (size_t i = 0; i < n; i++) {
    interned[i] = psgi_intern(ctx, keys[i], strlen(keys[i]));
    if (!interned[i]) {
      psgi_free(ctx, interned);
      return psgi_nomem(ctx);
    }
  }
  psg_attrs *d = NULL;
  psg_status st = new_dict(ctx, n, &d);
  if (st) {
    psgi_free(ctx, interned);
    return st;
  }
  for (size_t i = 0; i < n; i++) {
    d->e[i].key = interned[i];
    d->e[i].value = values[i];
    psg_attr_retain(values[i]);
  }
  psgi_free(ctx, interned);
  *out = d;
  return PSG_OK;
}

psg_status psg_attrs_with(psg_ctx *ctx, const psg_attrs *base, const char *key, psg_attr *value,
                          psg_attrs **out) {
  *out = NULL;
  if (!key || !value) return PSG_ERR_INVALID_ARGUMENT;
  const char *k = psgi_intern(ctx, key, strlen(key));
  if (!k) return psgi_nomem(ctx);
  size_t n = base ? base->n : 0, at = n;
  for (size_t i = 0; i < n; i++)
    if (base->e[i].key == k) at = i;
  psg_attrs *d = NULL;
  psg_status st = new_dict(ctx, at == n ? n + 1 : n, &d);
  if (st) return st;
  for (size_t i = 0; i < n; i++) {
    d->e[i] = base->e[i];
    if (i != at) psg_attr_retain(d->e[i].value);
  }
  d->e[at].key = k;
  d->e[at].value = value;
  psg_attr_retain(value);
  *out = d;
  return PSG_OK;
}

size_t psg_attrs_count(const psg_attrs *a) { return a ? a->n : 0; }
const char *psg_attrs_key(const psg_attrs *a, size_t i) { return a && i < a->n ? a->e[i].key : NULL; }
psg_attr *psg_attrs_get_value(const psg_attrs *a, size_t i) {
  return a && i < a->n ? a->e[i].value : NULL;
}
psg_attr *psg_attrs_get(const psg_attrs *a, const char *key) {
  if (!a || !key) return NULL;
  /* The first byte rejects most keys without a strcmp call (type relations
   * look up every attribute of every call they type, conv2d's ten by name). */
  for (size_t i = 0; i < a->n; i++) {
    const char *k = a->e[i].key;
    if (k == key || (k[0] == key[0] && strcmp(k, key) == 0)) return a->e[i].value;
  }
  return NULL;
}

/* Context-owned copies ---------------------------------------------------
 * Registries kept by the context (config defaults) must not keep it alive:
 * they hold a private deep copy whose objects are adopted by the context. */

static int count_objects(const psg_attr *v, int depth) {
  if (depth > 16) return 0;
  int n = 1;
  if (v->kind == PSG_ATTR_LIST)
    for (size_t i = 0; i < v->u.list.n; i++) n += count_objects(v->u.list.items[i], depth + 1);
  if (v->kind == PSG_ATTR_DICT) {
    n++; /* the dictionary object */
    for (size_t i = 0; i < v->u.dict->n; i++) n += count_objects(v->u.dict->e[i].value, depth + 1);
  }
  return n;
}

static psg_status deep_copy(psg_ctx *ctx, const psg_attr *v, int depth, psg_attr **out) {
  *out = NULL;
  if (depth > 16) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "attribute value nested too deeply (limit 16)");
  switch (v->kind) {
  case PSG_ATTR_NONE: return psg_attr_none(ctx, out);
  case PSG_ATTR_INT: return psg_attr_int(ctx, v->u.i, out);
  case PSG_ATTR_FLOAT: return psg_attr_float(ctx, v->u.f, out);
  case PSG_ATTR_BOOL: return psg_attr_bool(ctx, v->u.b, out);
  case PSG_ATTR_DTYPE: return psg_attr_dtype(ctx, v->u.dtype, out);
  case PSG_ATTR_STRING: return psg_attr_string(ctx, v->u.str.s, v->u.str.len, out);
  case PSG_ATTR_GLOBAL_VAR: return psg_attr_global_var(ctx, v->u.str.s, out);
  case PSG_ATTR_LIST:
  case PSG_ATTR_DICT: break;
  }
  bool is_list = v->kind == PSG_ATTR_LIST;
  size_t n = is_list ? v->u.list.n : v->u.dict->n;
  psg_attr **items = psgi_calloc(ctx, (n ? n : 1) * sizeof *items);
  const char **keys = psgi_calloc(ctx, (n ? n : 1) * sizeof *keys);
  psg_status st = items && keys ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; !st && i < n; i++) {
    st = deep_copy(ctx, is_list ? v->u.list.items[i] : v->u.dict->e[i].value, depth + 1, &items[i]);
    if (!is_list) keys[i] = v->u.dict->e[i].key;
  }
  psg_attrs *d = NULL;
  if (!st && is_list) st = psg_attr_list(ctx, items, n, out);
  if (!st && !is_list) st = psg_attrs_create(ctx, keys, items, n, &d);
  if (!st && !is_list) st = psg_attr_dict(ctx, d, out);
  psg_attrs_release(d);
  for (size_t i = 0; items && i < n; i++) psg_attr_release(items[i]);
  psgi_free(ctx, items);
  psgi_free(ctx, keys);
  return st;
}

psg_status psgi_attr_copy_adopted(psg_ctx *ctx, const psg_attr *v, psg_attr **out) {
  psg_status st = deep_copy(ctx, v, 0, out);
  if (st) return st;
  for (int i = count_objects(*out, 0); i > 0; i--) psgi_ctx_adopt(ctx);
  return PSG_OK;
}

void psgi_attr_release_adopted(psg_ctx *ctx, psg_attr *v) {
  if (!v) return;
  for (int i = count_objects(v, 0); i > 0; i--) psgi_ctx_unadopt(ctx);
  psg_attr_release(v);
}
