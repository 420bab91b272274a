/* Passage — what every op family shares (STYLE rule 12: one broadcasting and
 * indexing helper, not a copied loop per op): element load/store for every
 * dtype, output allocation, a broadcasting index iterator, axis and shape
 * helpers for type relations, and the error helper relations and kernels use
 * to explain a failure. */
#ifndef PSG_KERNEL_UTIL_H
#define PSG_KERNEL_UTIL_H

#include "ops/op_impl.h"

/* Elements ------------------------------------------------------------------
 * Kernels compute in double (floats) or int64 (integers, bool) and store back
 * in the output dtype: exact for every dtype up to 32 bits, and for float64;
 * int64/uint64 go through the _i variants to stay exact. float16 and bfloat16
 * are converted with round-to-nearest-even. */
double psgi_load_f(int dtype, const void *data, size_t i);
void psgi_store_f(int dtype, void *data, size_t i, double v);
int64_t psgi_load_i(int dtype, const void *data, size_t i);
void psgi_store_i(int dtype, void *data, size_t i, int64_t v);
/* IEEE half and bfloat16 conversions (round to nearest even, NaN kept). */
float psgi_half_to_float(uint16_t h);
uint16_t psgi_float_to_half(float f);
float psgi_bf16_to_float(uint16_t h);
uint16_t psgi_float_to_bf16(float f);

/* Failure --------------------------------------------------------------------
 * Writes the reason into call->msg and returns `code`, so relations and
 * kernels can `return psgi_op_fail(call, PSG_ERR_TYPE, "...")`. */
psg_status psgi_op_fail(psgi_op_call *call, psg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "(1, 3, ?, 4)" into buf (always NUL-terminated); returns buf. */
const char *psgi_shape_str(const psg_type *t, char *buf, size_t len);
/* The same for a dims array. */
const char *psgi_dims_str(const int64_t *dims, int ndim, char *buf, size_t len);

/* Type relations -------------------------------------------------------------- */
/* The tensor type of argument i, or a PSG_ERR_TYPE failure naming the op and
 * the argument when it is not a tensor. */
psg_status psgi_rel_tensor_arg(psgi_op_call *call, const psg_type *const *args, size_t i,
                               const psg_type **out);
/* Normalizes a possibly negative axis into [0, ndim); a PSG_ERR_TYPE failure
 * ("axis 4 is out of range for rank 3") otherwise. */
psg_status psgi_norm_axis(psgi_op_call *call, int64_t axis, int ndim, int *out);
/* NumPy broadcasting of n tensor types (right-aligned; 1 stretches; unknown
 * dims stay unknown unless the other side is known and not 1). Writes the
 * result rank and dims; PSG_ERR_TYPE "cannot broadcast (1, 3) and (4, 5)". */
psg_status psgi_broadcast_dims(psgi_op_call *call, const psg_type *const *ts, size_t n,
                               int64_t *dims, int *ndim);
/* Interns a tensor type (wrapper reporting OOM). */
psg_status psgi_rel_make(psgi_op_call *call, const int64_t *dims, int ndim, int dtype,
                         const psg_type **out);

/* Kernels ----------------------------------------------------------------------- */
/* The tensor held by a value, or NULL when the value is not a tensor. */
psg_tensor *psgi_value_as_tensor(const psgi_value *v);
/* Allocates a zero-filled tensor of static type `t` and exposes its bytes for
 * writing (the tensor is private to the kernel until wrapped). */
psg_status psgi_kernel_alloc(psgi_op_call *call, const psg_type *t, psg_tensor **out, void **data);
/* The same with the bytes left uninitialized: for kernels that write every
 * element (no zero fill of memory about to be overwritten). */
psg_status psgi_kernel_alloc_raw(psgi_op_call *call, const psg_type *t, psg_tensor **out, void **data);
/* A result of static type `t` sharing x's bytes (reshape-like kernels: the
 * same elements in the same order), as a value. */
psg_status psgi_kernel_view(psgi_op_call *call, psg_tensor *x, const psg_type *t, psgi_value **out);
/* Wraps a tensor into a value, taking over the caller's reference to t. */
psg_status psgi_kernel_result(psgi_op_call *call, psg_tensor *t, psgi_value **out);
/* Number of elements of a static shape. */
int64_t psgi_numel(const int64_t *dims, int ndim);
/* Row-major strides (in elements) of a shape. */
void psgi_row_strides(const int64_t *dims, int ndim, int64_t *strides);

/* Broadcasting iterator over an output shape for up to PSGI_BCAST_MAX_OPS
 * operands. After init, off[k] is the element offset of operand k for the
 * current output index (out_off for the output); next() advances in row-major
 * order and returns false after the last element.
 *   psgi_bcast_iter it; psgi_bcast_init(&it, out_dims, ndim, in_types, n);
 *   if (it.numel) do { out[it.out_off] = a[it.off[0]] + b[it.off[1]]; } while (psgi_bcast_next(&it));
 * (guard on numel: a zero-element output has no first element). */
enum { PSGI_BCAST_MAX_OPS = 4 };
typedef struct psgi_bcast_iter {
  int ndim, nops;
  int64_t numel;
  int64_t out_off;
  int64_t dims[PSG_MAX_RANK];
  int64_t idx[PSG_MAX_RANK];
  int64_t strides[PSGI_BCAST_MAX_OPS][PSG_MAX_RANK];
  int64_t off[PSGI_BCAST_MAX_OPS];
} psgi_bcast_iter;
void psgi_bcast_init(psgi_bcast_iter *it, const int64_t *out_dims, int ndim, const psg_type *const *ins,
                     int nops);
/* The same from operand shapes (e.g. a tensor's, without interning its type). */
void psgi_bcast_init_shapes(psgi_bcast_iter *it, const int64_t *out_dims, int ndim, const int64_t *const *shapes,
                            const int *ranks, int nops);
bool psgi_bcast_next(psgi_bcast_iter *it);

#endif
