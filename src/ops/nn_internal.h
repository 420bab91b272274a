/* Passage — what the nn family's files (nn.c, nn_conv.c, nn_matmul.c,
 * nn_pad.c) share: their relations and kernels, joined into psgi_impls_nn by
 * nn.c, and the attribute helpers they all use. Private to src/ops/nn*.c. */
#ifndef PSG_NN_INTERNAL_H
#define PSG_NN_INTERNAL_H

#include "ops/kernel_util.h"

/* An optional int-list attribute: *n = 0 when absent or None; a failure
 * naming the op and the attribute when it holds anything else or more than
 * `max` items. */
psg_status psgi_nn_opt_ints(psgi_op_call *call, const char *key, int64_t *out, int max, int *n);
/* The out_dtype attribute, or `dflt` when absent, None or ""; a failure for
 * a name that is no dtype. */
psg_status psgi_nn_out_dtype(psgi_op_call *call, int dflt, int *out);
/* The op's name, for messages. */
const char *psgi_nn_name(const psgi_op_call *call);

/* A tensor's elements as float32 or float64, for kernels that compute in one
 * of them: borrows the tensor's bytes when they already are that type, else
 * converts into a new buffer (*owned then true: free it with psgi_free). */
psg_status psgi_nn_load_float(psgi_op_call *call, const psg_tensor *t, bool as_double, void **buf,
                              bool *owned);
/* Stores n computed elements (float32 or float64) into the output's dtype. */
void psgi_nn_store_float(int dtype, void *dst, const void *src, bool is_double, int64_t n);

#define PSGI_NN_DECL(op)                                                                         \
  psg_status psgi_nn_##op##_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,  \
                                const psg_type **out);                                           \
  psg_status psgi_nn_##op##_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,   \
                                   const psg_type *out_type, psgi_value **out);
PSGI_NN_DECL(conv2d)
PSGI_NN_DECL(conv2d_transpose)
PSGI_NN_DECL(conv3d)
PSGI_NN_DECL(dense)
PSGI_NN_DECL(matmul)
PSGI_NN_DECL(batch_matmul)
PSGI_NN_DECL(pad)
#undef PSGI_NN_DECL

#endif
