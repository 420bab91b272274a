/* Passage — data types and Relay types (TensorType, TupleType, FuncType).
 * Types are interned in their context: two types are equal exactly when their
 * pointers are equal. They are owned by the context and live as long as it
 * does, so they are never retained or released (like LLVM's types). */
#ifndef PASSAGE_TYPE_H
#define PASSAGE_TYPE_H

#include "passage/ctx.h"

PSG_BEGIN_DECLS

typedef struct psg_type psg_type;

/* Element data types, named as TVM names them. */
enum {
  PSG_DTYPE_INVALID = 0,
  PSG_DTYPE_FLOAT16 = 1,
  PSG_DTYPE_BFLOAT16 = 2,
  PSG_DTYPE_FLOAT32 = 3,
  PSG_DTYPE_FLOAT64 = 4,
  PSG_DTYPE_INT8 = 5,
  PSG_DTYPE_INT16 = 6,
  PSG_DTYPE_INT32 = 7,
  PSG_DTYPE_INT64 = 8,
  PSG_DTYPE_UINT8 = 9,
  PSG_DTYPE_UINT16 = 10,
  PSG_DTYPE_UINT32 = 11,
  PSG_DTYPE_UINT64 = 12,
  PSG_DTYPE_BOOL = 13,
  PSG_DTYPE_COUNT = 14
};

/* "float32", "int64", "bool", ...; "invalid" for anything else. */
PSG_API const char *psg_dtype_name(int dtype);
/* The dtype named `name` (length `len`), or PSG_DTYPE_INVALID. */
PSG_API int psg_dtype_from_name(const char *name, size_t len);
/* Bytes per element (bool is one byte); 0 for an invalid dtype. */
PSG_API size_t psg_dtype_size(int dtype);
PSG_API bool psg_dtype_is_float(int dtype);

enum { PSG_TYPE_TENSOR = 1, PSG_TYPE_TUPLE = 2, PSG_TYPE_FUNC = 3 };

/* A dimension whose extent is not known statically: printed as `?`. */
enum { PSG_DIM_UNKNOWN = -1 };
/* The largest rank a tensor type may have. */
enum { PSG_MAX_RANK = 32 };

/* Interned constructors. *out is borrowed from the context (see above).
 * Errors: PSG_ERR_INVALID_ARGUMENT (bad dtype, rank, negative dim other than
 * PSG_DIM_UNKNOWN, NULL field, a tensor of more than INT64_MAX bytes: the
 * product of the known non-zero dims times the dtype size), PSG_ERR_NOMEM. */
PSG_API psg_status psg_type_tensor(psg_ctx *ctx, const int64_t *shape, int ndim, int dtype,
                                   const psg_type **out);
PSG_API psg_status psg_type_tuple(psg_ctx *ctx, const psg_type *const *fields, int n,
                                  const psg_type **out);
PSG_API psg_status psg_type_func(psg_ctx *ctx, const psg_type *const *args, int n,
                                 const psg_type *ret, const psg_type **out);

PSG_API int psg_type_kind(const psg_type *t);
/* TensorType accessors. */
PSG_API int psg_type_ndim(const psg_type *t);
PSG_API int64_t psg_type_dim(const psg_type *t, int i);
PSG_API int psg_type_dtype(const psg_type *t);
/* True if every dimension is known. */
PSG_API bool psg_type_is_static(const psg_type *t);
/* TupleType: fields; FuncType: arguments then psg_type_func_ret. */
PSG_API int psg_type_num_fields(const psg_type *t);
PSG_API const psg_type *psg_type_field(const psg_type *t, int i);
PSG_API const psg_type *psg_type_func_ret(const psg_type *t);

PSG_END_DECLS
#endif
