/* Passage — the type relations of the elementwise and creation ops
 * (elemwise_rel.c), shared with their table in elemwise.c, and the dtype
 * classes their kernels dispatch on. Relations follow TVM v0.19's
 * BroadcastRel, BroadcastCompRel, IdentityRel, WhereRel, CastRel, InitOpRel,
 * FullRel, FullLikeRel and ArangeRel. */
#ifndef PSG_ELEMWISE_H
#define PSG_ELEMWISE_H

#include "ops/kernel_util.h"

/* Both operands of one dtype, broadcast; the output keeps the dtype. */
psg_status psgi_rel_broadcast(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type **out);
/* As psgi_rel_broadcast, but the output is bool. */
psg_status psgi_rel_broadcast_cmp(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                  const psg_type **out);
/* One tensor in, the same type out. */
psg_status psgi_rel_identity(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                             const psg_type **out);
/* One tensor in, a bool tensor of its shape out (isnan). */
psg_status psgi_rel_unary_bool(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                               const psg_type **out);
psg_status psgi_rel_where(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                          const psg_type **out);
psg_status psgi_rel_cast(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                         const psg_type **out);
psg_status psgi_rel_full_like(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type **out);
/* zeros and ones: the shape and dtype attributes. */
psg_status psgi_rel_init(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                         const psg_type **out);
psg_status psgi_rel_full(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                         const psg_type **out);
/* arange: a 1-D tensor of unknown length (the length depends on values). */
psg_status psgi_rel_arange(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                           const psg_type **out);

/* Argument count check: "'add' takes 2 arguments, got 1". */
psg_status psgi_rel_nargs(psgi_op_call *call, size_t nargs, size_t want);
/* The `key` dtype attribute (a dtype or a dtype name; absent or "" gives
 * dflt); PSG_ERR_TYPE naming the op when it is not a dtype. */
psg_status psgi_rel_dtype_attr(psgi_op_call *call, const char *key, int dflt, int *out);

/* The `shape` attribute (zeros, ones, full, random.uniform): a list of
 * non-negative ints, absent meaning a scalar. */
psg_status psgi_rel_shape_attr(psgi_op_call *call, int64_t *dims, int *nd);

/* Kernels of elemwise_data.c: selection, clamping, conversion and creation. */
#define PSGI_KERNEL_DECL(name)                                                                  \
  psg_status psgi_kernel_##name(psgi_op_call *call, psgi_value *const *args, size_t nargs,      \
                                const psg_type *out_type, psgi_value **out)
PSGI_KERNEL_DECL(where);
PSGI_KERNEL_DECL(clip);
PSGI_KERNEL_DECL(cast);
PSGI_KERNEL_DECL(copy);
PSGI_KERNEL_DECL(zeros_like);
PSGI_KERNEL_DECL(ones_like);
PSGI_KERNEL_DECL(full_like);
PSGI_KERNEL_DECL(zeros);
PSGI_KERNEL_DECL(ones);
PSGI_KERNEL_DECL(full);
PSGI_KERNEL_DECL(arange);

/* How kernels compute on a dtype: float32 math for float32, float16 and
 * bfloat16 (what ONNX Runtime does), double for float64, int64 for integers
 * and bool. */
enum { PSGI_CLASS_F32 = 0, PSGI_CLASS_F64 = 1, PSGI_CLASS_INT = 2 };
int psgi_dtype_class(int dtype);

#endif
