/* Passage — the static operator table generated from ops.def: each op's TVM
 * name, attributes in TVM's schema order with their kinds, arity and a
 * one-line doc. It is IR data (an Op node names a row; the parser types
 * attribute literals by it), so it lives in src/ir/; behaviour (type
 * relations, kernels, fusion patterns) is joined to it by src/ops/op_impl.c. */
#ifndef PSG_OP_TABLE_H
#define PSG_OP_TABLE_H

#include <stddef.h>
#include "passage/ctx.h"

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

/* Each built-in op's index in psgi_op_table, by its ops.def id ("nn.conv2d"
 * is PSGI_OP_nn_conv2d): a pass that builds or matches known ops compares
 * and looks up by number instead of hashing or comparing names. */
#define OP(id, tvm, lo, hi, doc, attrs) PSGI_OP_##id,
#define A(name, kind)
enum psgi_op_id {
#include "ir/ops.def"
  PSGI_OP_BUILTIN_COUNT
};
#undef A
#undef OP
extern const size_t psgi_op_table_len;

/* Index of the op named name[0..len) or -1. */
ptrdiff_t psgi_op_lookup(const char *name, size_t len);
/* Index of attribute key[0..len) of op `op` or -1. */
ptrdiff_t psgi_op_attr_index(size_t op, const char *key, size_t len);

/* Ops the host registers at run time (include/passage/op_register.h;
 * op_custom.c) live in one context and are numbered after the static table:
 * index psgi_op_table_len + k is the k-th op registered in that context.
 * Their row has no attribute schema (any attribute is accepted, as TVM's
 * DictAttrs) and min_args 0, max_args -1 (src/ops/op_register.c checks the
 * count the host set). Lookups take the context; the static ones above only
 * know the built-in ops. */
enum { PSGI_OP_CUSTOM_MAX = 1024 };
/* Adds op `name` (error if any op, built in or registered, has that name). */
psg_status psgi_op_custom_add(psg_ctx *ctx, const char *name, const char *doc, size_t *index);
/* Index of op name[0..len) in ctx (built-in first, then registered) or -1. */
ptrdiff_t psgi_op_lookup_in(psg_ctx *ctx, const char *name, size_t len);
/* The row of op `op` in ctx, or NULL when there is none. */
const psgi_op_info *psgi_op_info_in(psg_ctx *ctx, size_t op);
/* Its name ("?" when there is no such op: message text only). */
const char *psgi_op_name_in(psg_ctx *ctx, size_t op);
/* The behaviour src/ops attaches to registered op `op` (NULL for a built-in
 * op or none yet). With make_size > 0 a zeroed block of that size is made
 * first if there is none, freed by ext_free(ctx, ext) with the context. */
void *psgi_op_custom_ext(psg_ctx *ctx, size_t op, size_t make_size, void (*ext_free)(psg_ctx *ctx, void *ext));

#endif
