/* Passage ONNX frontend — the table of supported ONNX ops: name, converter
 * and the attributes it understands (anything else is reported as
 * unsupported before conversion starts). */
#include <string.h>
#include "onnx_ops.h"

static const char *const A_NONE[] = {NULL};
static const char *const A_CLIP[] = {"min", "max", NULL};
static const char *const A_HS[] = {"alpha", "beta", NULL};
static const char *const A_LRELU[] = {"alpha", NULL};
static const char *const A_CAST[] = {"to", "saturate", NULL};
static const char *const A_REDUCE[] = {"axes", "keepdims", "noop_with_empty_axes", NULL};
static const char *const A_AXIS[] = {"axis", NULL};
static const char *const A_CONV[] = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", NULL};
static const char *const A_CONVT[] = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides",
                                      "output_padding", "output_shape", NULL};
static const char *const A_GEMM[] = {"alpha", "beta", "transA", "transB", NULL};
static const char *const A_LN[] = {"axis", "epsilon", "stash_type", NULL};
static const char *const A_BN[] = {"epsilon", "momentum", "spatial", "training_mode", NULL};
static const char *const A_POOL[] = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides",
                                     "storage_order", "count_include_pad", NULL};
static const char *const A_LSTM[] = {"activation_alpha", "activation_beta", "activations", "clip", "direction",
                                     "hidden_size", "input_forget", "layout", NULL};
static const char *const A_RESHAPE[] = {"allowzero", "shape", NULL};
static const char *const A_PERM[] = {"perm", NULL};
static const char *const A_AXES[] = {"axes", NULL};
static const char *const A_SLICE[] = {"starts", "ends", "axes", NULL};
static const char *const A_SHAPE[] = {"start", "end", NULL};
static const char *const A_CONST[] = {"value", "value_float", "value_floats", "value_int", "value_ints", NULL};
static const char *const A_COS[] = {"value", NULL};
static const char *const A_PAD[] = {"mode", "pads", "value", NULL};
static const char *const A_RESIZE[] = {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                                       "exclude_outside", "extrapolation_value", NULL};
static const char *const A_SPLIT[] = {"axis", "split", "num_outputs", NULL};
static const char *const A_IF[] = {"then_branch", "else_branch", NULL};

static const onnx_op_entry table[] = {
    {"Relu", onnxi_conv_unary, A_NONE},
    {"Sigmoid", onnxi_conv_unary, A_NONE},
    {"Sqrt", onnxi_conv_unary, A_NONE},
    {"Log", onnxi_conv_unary, A_NONE},
    {"Neg", onnxi_conv_unary, A_NONE},
    {"Exp", onnxi_conv_unary, A_NONE},
    {"Tanh", onnxi_conv_unary, A_NONE},
    {"Abs", onnxi_conv_unary, A_NONE},
    {"Add", onnxi_conv_binary, A_NONE},
    {"Sub", onnxi_conv_binary, A_NONE},
    {"Mul", onnxi_conv_binary, A_NONE},
    {"Div", onnxi_conv_binary, A_NONE},
    {"Equal", onnxi_conv_binary, A_NONE},
    {"Greater", onnxi_conv_binary, A_NONE},
    {"GreaterOrEqual", onnxi_conv_binary, A_NONE},
    {"Less", onnxi_conv_binary, A_NONE},
    {"Max", onnxi_conv_variadic, A_NONE},
    {"Min", onnxi_conv_variadic, A_NONE},
    {"Pow", onnxi_conv_pow, A_NONE},
    {"Clip", onnxi_conv_clip, A_CLIP},
    {"HardSigmoid", onnxi_conv_hard_sigmoid, A_HS},
    {"HardSwish", onnxi_conv_hard_swish, A_NONE},
    {"LeakyRelu", onnxi_conv_leaky_relu, A_LRELU},
    {"Identity", onnxi_conv_identity, A_NONE},
    {"Cast", onnxi_conv_cast, A_CAST},
    {"ReduceMean", onnxi_conv_reduce, A_REDUCE},
    {"ReduceMax", onnxi_conv_reduce, A_REDUCE},
    {"Softmax", onnxi_conv_softmax, A_AXIS},
    {"Conv", onnxi_conv_conv, A_CONV},
    {"ConvTranspose", onnxi_conv_conv_transpose, A_CONVT},
    {"Gemm", onnxi_conv_gemm, A_GEMM},
    {"MatMul", onnxi_conv_matmul, A_NONE},
    {"BatchNormalization", onnxi_conv_batch_norm, A_BN},
    {"LayerNormalization", onnxi_conv_layer_norm, A_LN},
    {"MaxPool", onnxi_conv_pool, A_POOL},
    {"AveragePool", onnxi_conv_pool, A_POOL},
    {"GlobalAveragePool", onnxi_conv_global_avg_pool, A_NONE},
    {"LSTM", onnxi_conv_lstm, A_LSTM},
    {"Reshape", onnxi_conv_reshape, A_RESHAPE},
    {"Flatten", onnxi_conv_flatten, A_AXIS},
    {"Transpose", onnxi_conv_transpose, A_PERM},
    {"Squeeze", onnxi_conv_squeeze, A_AXES},
    {"Unsqueeze", onnxi_conv_unsqueeze, A_AXES},
    {"Concat", onnxi_conv_concat, A_AXIS},
    {"Slice", onnxi_conv_slice, A_SLICE},
    {"Gather", onnxi_conv_gather, A_AXIS},
    {"Shape", onnxi_conv_shape, A_SHAPE},
    {"Constant", onnxi_conv_constant, A_CONST},
    {"ConstantOfShape", onnxi_conv_constant_of_shape, A_COS},
    {"Pad", onnxi_conv_pad, A_PAD},
    {"Resize", onnxi_conv_resize, A_RESIZE},
    {"Expand", onnxi_conv_expand, A_NONE},
    {"Split", onnxi_conv_split, A_SPLIT},
    {"If", onnxi_conv_if, A_IF},
};

const onnx_op_entry *onnxi_find_op(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].name, name)) return &table[i];
  return NULL;
}

psg_status onnxi_need(onnx_imp *im, const oval *const *ins, size_t nin, size_t i) {
  if (i < nin && ins[i]) return PSG_OK;
  return onnxi_fail(im, PSG_ERR_PARSE, "input %zu is required", i);
}
