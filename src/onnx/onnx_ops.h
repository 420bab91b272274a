/* Passage ONNX frontend — the converters, one per ONNX op, grouped by family
 * (onnx_ops_math.c, onnx_ops_nn.c, onnx_ops_shape.c, onnx_ops_control.c,
 * onnx_ops_rnn.c) and
 * joined by name in onnx_ops.c. */
#ifndef PSG_ONNX_OPS_H
#define PSG_ONNX_OPS_H
#include "onnx_internal.h"

#define ONNX_CONV(name)                                                                                  \
  psg_status onnxi_conv_##name(onnx_imp *im, const Onnx__NodeProto *n __attribute__((unused)),         \
                               const oval *const *ins __attribute__((unused)), size_t nin __attribute__((unused)), oval *outs)
/* Math */
ONNX_CONV(unary);
ONNX_CONV(binary);
ONNX_CONV(variadic);
ONNX_CONV(clip);
ONNX_CONV(hard_sigmoid);
ONNX_CONV(hard_swish);
ONNX_CONV(leaky_relu);
ONNX_CONV(pow);
ONNX_CONV(identity);
ONNX_CONV(cast);
ONNX_CONV(reduce);
ONNX_CONV(softmax);
/* NN */
ONNX_CONV(conv);
ONNX_CONV(conv_transpose);
ONNX_CONV(gemm);
ONNX_CONV(matmul);
ONNX_CONV(batch_norm);
ONNX_CONV(layer_norm);
ONNX_CONV(pool);
ONNX_CONV(global_avg_pool);
ONNX_CONV(lstm);
/* Shape */
ONNX_CONV(reshape);
ONNX_CONV(flatten);
ONNX_CONV(transpose);
ONNX_CONV(squeeze);
ONNX_CONV(unsqueeze);
ONNX_CONV(concat);
ONNX_CONV(slice);
ONNX_CONV(gather);
ONNX_CONV(shape);
ONNX_CONV(constant);
ONNX_CONV(constant_of_shape);
ONNX_CONV(pad);
ONNX_CONV(resize);
ONNX_CONV(expand);
ONNX_CONV(split);
/* Control */
ONNX_CONV(if);

/* Needs input i (present) or fails naming it. */
psg_status onnxi_need(onnx_imp *im, const oval *const *ins, size_t nin, size_t i);
#endif
