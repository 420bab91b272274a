/* Passage — the static operator table expanded from ops.def, and name
 * lookup through a small hash index built once (immutable afterwards). */
#include <pthread.h>
#include <string.h>
#include "ir/op_table.h"
#include "support/support.h"

/* One attribute array per op, each ending in a {NULL} sentinel (C has no
 * empty initializers). */
#define A(name, kind) {#name, PSGI_ATTR_##kind},
#define OP(id, tvm, lo, hi, doc, attrs) static const psgi_op_attr attrs_##id[] = {attrs{NULL, 0}};
#include "ir/ops.def"
#undef OP

#define OP(id, tvm, lo, hi, doc, attrs) \
  {tvm, attrs_##id, sizeof attrs_##id / sizeof attrs_##id[0] - 1, lo, hi, doc},
const psgi_op_info psgi_op_table[] = {
#include "ir/ops.def"
};
#undef OP
#undef A

const size_t psgi_op_table_len = sizeof psgi_op_table / sizeof psgi_op_table[0];

enum { INDEX_SLOTS = 512 }; /* a power of two, over twice the op count */
static int16_t index_slots[INDEX_SLOTS];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void build_index(void) {
  memset(index_slots, 0xff, sizeof index_slots);
  for (size_t i = 0; i < psgi_op_table_len; i++) {
    const char *n = psgi_op_table[i].name;
    size_t s = psgi_hash_bytes(n, strlen(n)) & (INDEX_SLOTS - 1);
    while (index_slots[s] >= 0) s = (s + 1) & (INDEX_SLOTS - 1);
    index_slots[s] = (int16_t)i;
  }
}

ptrdiff_t psgi_op_lookup(const char *name, size_t len) {
  pthread_once(&index_once, build_index);
  size_t s = psgi_hash_bytes(name, len) & (INDEX_SLOTS - 1);
  for (; index_slots[s] >= 0; s = (s + 1) & (INDEX_SLOTS - 1)) {
    const char *n = psgi_op_table[index_slots[s]].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return index_slots[s];
  }
  return -1;
}

ptrdiff_t psgi_op_attr_index(size_t op, const char *key, size_t len) {
  if (op >= psgi_op_table_len) return -1;
  const psgi_op_info *info = &psgi_op_table[op];
  for (size_t j = 0; j < info->nattrs; j++)
    if (strlen(info->attrs[j].name) == len && memcmp(info->attrs[j].name, key, len) == 0) return (ptrdiff_t)j;
  return -1;
}

/* Public API (include/passage/op.h). */
#include "passage/op.h"

size_t psg_op_count(void) { return psgi_op_table_len; }
const char *psg_op_name_at(size_t i) { return i < psgi_op_table_len ? psgi_op_table[i].name : NULL; }
ptrdiff_t psg_op_find(const char *name, size_t len) { return name ? psgi_op_lookup(name, len) : -1; }
size_t psg_op_num_attrs(size_t i) { return i < psgi_op_table_len ? psgi_op_table[i].nattrs : 0; }
const char *psg_op_attr_name(size_t i, size_t j) {
  return i < psgi_op_table_len && j < psgi_op_table[i].nattrs ? psgi_op_table[i].attrs[j].name : NULL;
}
const char *psg_op_doc(size_t i) { return i < psgi_op_table_len ? psgi_op_table[i].doc : NULL; }
