/* Passage — the static operator table generated from ops.def: each op's TVM
 * name, attributes in TVM's schema order with their kinds, arity and a
 * one-line doc. It is IR data (an Op node names a row; the parser types
 * attribute literals by it), so it lives in src/ir/; behaviour (type
 * relations, kernels, fusion patterns) is joined to it by src/ops/op_impl.c. */
#ifndef PSG_OP_TABLE_H
#define PSG_OP_TABLE_H

#include <stddef.h>

/* What an attribute holds, so the text parser can type a literal: a string
 * literal for a DTYPE attribute becomes a dtype value, an integer literal for
 * a FLOAT attribute becomes a float. ANY accepts what the literal is. */
enum {
  PSGI_ATTR_ANY = 0,
  PSGI_ATTR_INT = 1,
  PSGI_ATTR_FLOAT = 2,
  PSGI_ATTR_STRING = 3,
  PSGI_ATTR_BOOL = 4,
  PSGI_ATTR_DTYPE = 5,
  PSGI_ATTR_INT_LIST = 6 /* a list of ints (or None) */
};

typedef struct psgi_op_attr {
  const char *name;
  int kind;
} psgi_op_attr;

typedef struct psgi_op_info {
  const char *name;          /* TVM's name, e.g. "nn.conv2d" */
  const psgi_op_attr *attrs; /* schema order */
  size_t nattrs;
  int min_args, max_args;    /* max_args -1: variadic */
  const char *doc;
} psgi_op_info;

extern const psgi_op_info psgi_op_table[];
extern const size_t psgi_op_table_len;

/* Index of the op named name[0..len) or -1. */
ptrdiff_t psgi_op_lookup(const char *name, size_t len);
/* Index of attribute key[0..len) of op `op` or -1. */
ptrdiff_t psgi_op_attr_index(size_t op, const char *key, size_t len);

#endif
