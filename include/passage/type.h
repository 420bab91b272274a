/* Passage — data types and Relay types (TensorType, TupleType, FuncType with
 * type parameters, TypeVar, GlobalTypeVar, IncompleteType, TypeCall, RefType).
 * Types are interned in their context: two types are identical exactly when
 * their pointers are equal (psg_type_structural_equal also equates
 * FuncTypes that differ only in the names of their type parameters). They are
 * owned by the context and live as long as it does, so they are never
 * retained or released (like LLVM's types). */
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

enum {
  PSG_TYPE_TENSOR = 1,
  PSG_TYPE_TUPLE = 2,
  PSG_TYPE_FUNC = 3,
  PSG_TYPE_VAR = 4,        /* TVM's TypeVar: a type parameter */
  PSG_TYPE_INCOMPLETE = 5, /* IncompleteType: a hole the type solver fills */
  PSG_TYPE_CALL = 6,       /* TypeCall: an ADT applied to type arguments */
  PSG_TYPE_REF = 7,        /* RefType: a mutable reference */
  PSG_TYPE_GLOBAL_VAR = 8  /* GlobalTypeVar: the name of an ADT */
};

/* TVM's TypeKind, carried by TypeVar, GlobalTypeVar and IncompleteType. */
enum {
  PSG_TYPE_KIND_TYPE = 0,
  PSG_TYPE_KIND_SHAPE_VAR = 1,
  PSG_TYPE_KIND_BASE_TYPE = 2,
  PSG_TYPE_KIND_CONSTRAINT = 4,
  PSG_TYPE_KIND_ADT_HANDLE = 5,
  PSG_TYPE_KIND_TYPE_DATA = 6
};

/* A dimension whose extent is not known statically (TVM's relay.Any() /
 * tir.Any()): printed as `?`. */
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

/* A FuncType quantified over `type_params` (TypeVars; none: psg_type_func). */
PSG_API psg_status psg_type_func_poly(psg_ctx *ctx, const psg_type *const *args, int n,
                                      const psg_type *ret, const psg_type *const *type_params,
                                      int ntparams, const psg_type **out);
/* `func` (a GlobalTypeVar, normally) applied to `args`. */
PSG_API psg_status psg_type_call(psg_ctx *ctx, const psg_type *func, const psg_type *const *args,
                                 int n, const psg_type **out);
PSG_API psg_status psg_type_ref(psg_ctx *ctx, const psg_type *value, const psg_type **out);
/* Fresh variables: each call makes a type identical only to itself (two
 * TypeVars named "A" are different variables, as in TVM). `type_kind` is a
 * PSG_TYPE_KIND_*. Errors: PSG_ERR_INVALID_ARGUMENT (NULL name, bad kind). */
PSG_API psg_status psg_type_var(psg_ctx *ctx, const char *name, int type_kind, const psg_type **out);
PSG_API psg_status psg_type_global_var(psg_ctx *ctx, const char *name, int type_kind,
                                       const psg_type **out);
PSG_API psg_status psg_type_incomplete(psg_ctx *ctx, int type_kind, const psg_type **out);

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
/* FuncType: its type parameters (0 and NULL for other kinds). */
PSG_API int psg_type_func_num_type_params(const psg_type *t);
PSG_API const psg_type *psg_type_func_type_param(const psg_type *t, int i);
/* TypeCall: the called type (its arguments are its fields); RefType: the
 * referenced type. NULL for other kinds. */
PSG_API const psg_type *psg_type_call_func(const psg_type *t);
PSG_API const psg_type *psg_type_ref_value(const psg_type *t);
/* TypeVar/GlobalTypeVar: the name ("" for an IncompleteType), and the
 * TypeKind of the three variable kinds; NULL and -1 for other kinds. */
PSG_API const char *psg_type_var_name(const psg_type *t);
PSG_API int psg_type_var_kind(const psg_type *t);
/* TVM's StructuralEqual on types: type variables bound by a FuncType's type
 * parameters are equal by position; free variables (and IncompleteTypes)
 * equal only themselves, or with map_free_vars pair one to one with the
 * other side's. The hash agrees with it (free variables without
 * map_free_vars hash by identity). */
PSG_API bool psg_type_structural_equal(const psg_type *a, const psg_type *b, bool map_free_vars);
PSG_API uint64_t psg_type_structural_hash(const psg_type *t);

PSG_END_DECLS
#endif
