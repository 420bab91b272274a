/* Passage — joins the per-family behaviour tables (elemwise.c, nn.c, ...) to
 * the op table by name, once, and provides the attribute readers relations
 * and kernels share. */
#include <pthread.h>
#include "ops/op_impl.h"

/* Each family file defines one of these arrays, terminated by {NULL}. The
 * references are strong on purpose: a static link then pulls every family
 * in (a weak reference would silently leave them out of libpassage.a users). */
extern const psgi_op_impl psgi_impls_elemwise[];
extern const psgi_op_impl psgi_impls_transform[];
extern const psgi_op_impl psgi_impls_transform_like[];
extern const psgi_op_impl psgi_impls_reduce[];
extern const psgi_op_impl psgi_impls_nn[];
extern const psgi_op_impl psgi_impls_norm[];
extern const psgi_op_impl psgi_impls_pool[];
extern const psgi_op_impl psgi_impls_image[];
extern const psgi_op_impl psgi_impls_misc[];
extern const psgi_op_impl psgi_impls_call[];

static const psgi_op_impl **by_op; /* psgi_op_table_len entries, NULL where none */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build(void) {
  /* Immutable after this runs: a table, not mutable global state. */
  static const psgi_op_impl *storage[1024];
  if (psgi_op_table_len > sizeof storage / sizeof *storage) return;
  const psgi_op_impl *families[] = {psgi_impls_elemwise, psgi_impls_transform, psgi_impls_transform_like, psgi_impls_reduce,
                                    psgi_impls_nn,       psgi_impls_norm,      psgi_impls_pool,
                                    psgi_impls_image,    psgi_impls_misc,      psgi_impls_call};
  for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
    for (const psgi_op_impl *i = families[f]; i && i->name; i++) {
      ptrdiff_t op = psgi_op_lookup(i->name, strlen(i->name));
      if (op >= 0) storage[op] = i;
    }
  }
  by_op = storage;
}

const psgi_op_impl *psgi_op_impl_get(size_t op) {
  pthread_once(&once, build);
  return by_op && op < psgi_op_table_len ? by_op[op] : NULL;
}

int64_t psgi_attr_int(const psg_attrs *a, const char *key, int64_t dflt) {
  psg_attr *v = psg_attrs_get(a, key);
  if (!v) return dflt;
  int k = psg_attr_kind(v);
  return k == PSG_ATTR_INT || k == PSG_ATTR_BOOL ? psg_attr_get_int(v) : dflt;
}

double psgi_attr_float(const psg_attrs *a, const char *key, double dflt) {
  psg_attr *v = psg_attrs_get(a, key);
  if (!v) return dflt;
  int k = psg_attr_kind(v);
  return k == PSG_ATTR_FLOAT || k == PSG_ATTR_INT ? psg_attr_get_float(v) : dflt;
}

bool psgi_attr_bool(const psg_attrs *a, const char *key, bool dflt) {
  psg_attr *v = psg_attrs_get(a, key);
  if (!v) return dflt;
  int k = psg_attr_kind(v);
  return k == PSG_ATTR_BOOL || k == PSG_ATTR_INT ? psg_attr_get_bool(v) : dflt;
}

const char *psgi_attr_str(const psg_attrs *a, const char *key, const char *dflt) {
  psg_attr *v = psg_attrs_get(a, key);
  if (!v) return dflt;
  int k = psg_attr_kind(v);
  return k == PSG_ATTR_STRING || k == PSG_ATTR_DTYPE ? psg_attr_get_string(v) : dflt;
}

int psgi_attr_ints(const psg_attrs *a, const char *key, int64_t *out, int max) {
  psg_attr *v = psg_attrs_get(a, key);
  if (!v || psg_attr_kind(v) == PSG_ATTR_NONE) return 0; /* TVM's Optional<Array<Integer>> unset */
  if (psg_attr_kind(v) == PSG_ATTR_INT) {
    if (max < 1) return -1;
    out[0] = psg_attr_get_int(v);
    return 1;
  }
  if (psg_attr_kind(v) != PSG_ATTR_LIST) return -1;
  size_t n = psg_attr_list_len(v);
  if (n > (size_t)max) return -1;
  for (size_t i = 0; i < n; i++) {
    psg_attr *it = psg_attr_list_get(v, i);
    if (psg_attr_kind(it) != PSG_ATTR_INT) return -1;
    out[i] = psg_attr_get_int(it);
  }
  return (int)n;
}
