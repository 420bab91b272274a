/* Passage — the nn op family's table (psgi_impls_nn, issue 5) and its simple
 * members: relu, leaky_relu, prelu, bias_add, the softmaxes, dropout and
 * batch_flatten, with TVM's relations, defaults and TOpPattern. The
 * convolutions, matmuls and pad live in nn_conv.c, nn_matmul.c, nn_pad.c. */
#include <math.h>
#include "ops/nn_internal.h"

/* Shared helpers ------------------------------------------------------------- */

const char *psgi_nn_name(const psgi_op_call *call) { return psgi_op_table[call->op].name; }

psg_status psgi_nn_opt_ints(psgi_op_call *call, const char *key, int64_t *out, int max, int *n) {
  *n = 0;
  psg_attr *v = psg_attrs_get(call->attrs, key);
  if (!v || psg_attr_kind(v) == PSG_ATTR_NONE) return PSG_OK;
  int k = psgi_attr_ints(call->attrs, key, out, max);
  if (k < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: attribute '%s' must be a list of at most %d ints",
                        psgi_nn_name(call), key, max);
  *n = k;
  return PSG_OK;
}

psg_status psgi_nn_out_dtype(psgi_op_call *call, int dflt, int *out) {
  *out = dflt;
  psg_attr *v = psg_attrs_get(call->attrs, "out_dtype");
  if (!v) return PSG_OK;
  int k = psg_attr_kind(v);
  if (k == PSG_ATTR_DTYPE) {
    int d = psg_attr_get_dtype(v);
    if (d) *out = d;
  } else if (k == PSG_ATTR_STRING && *psg_attr_get_string(v)) {
    const char *s = psg_attr_get_string(v);
    if (!(*out = psg_dtype_from_name(s, strlen(s))))
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unknown out_dtype '%s'", psgi_nn_name(call), s);
  }
  return PSG_OK;
}

psg_status psgi_nn_load_float(psgi_op_call *call, const psg_tensor *t, bool as_double, void **buf, bool *owned) {
  *owned = false;
  if (t->dtype == (as_double ? PSG_DTYPE_FLOAT64 : PSG_DTYPE_FLOAT32)) {
    *buf = (void *)t->data; /* borrowed; kernels only read it */
    return PSG_OK;
  }
  size_t n = (size_t)psgi_numel(t->shape, t->ndim);
  *buf = psgi_alloc(call->ctx, psgi_mul_size(n ? n : 1, as_double ? sizeof(double) : sizeof(float)));
  if (!*buf) return psgi_nomem(call->ctx);
  *owned = true;
  for (size_t i = 0; i < n; i++) {
    double v = psgi_load_f(t->dtype, t->data, i);
    if (as_double) ((double *)*buf)[i] = v;
    else ((float *)*buf)[i] = (float)v;
  }
  return PSG_OK;
}

void psgi_nn_store_float(int dtype, void *dst, const void *src, bool is_double, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    psgi_store_f(dtype, dst, (size_t)i, is_double ? ((const double *)src)[i] : (double)((const float *)src)[i]);
}

/* Sizes around an axis: a tensor is viewed as (outer, extent, inner). */
static void split_at(const psg_tensor *t, int axis, int64_t *outer, int64_t *extent, int64_t *inner) {
  *outer = psgi_numel(t->shape, axis);
  *extent = t->shape[axis];
  *inner = psgi_numel(t->shape + axis + 1, t->ndim - axis - 1);
}

static psg_status same_type_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                const psg_type **out) {
  (void)nargs;
  return psgi_rel_tensor_arg(call, args, 0, out);
}

/* relu, leaky_relu, prelu ----------------------------------------------------- */

enum { RECT_RELU, RECT_LEAKY, RECT_PRELU };

/* PReluRel: alpha is (data.shape[axis],) of the data's dtype. */
static psg_status prelu_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *data, *alpha;
  int axis;
  psg_status st;
  if ((st = psgi_rel_tensor_arg(call, args, 0, &data)) || (st = psgi_rel_tensor_arg(call, args, 1, &alpha)) ||
      (st = psgi_norm_axis(call, psgi_attr_int(call->attrs, "axis", 1), data->n, &axis)))
    return st;
  int64_t d = data->dims[axis];
  if (alpha->n != 1 || (d != PSG_DIM_UNKNOWN && alpha->dims[0] != PSG_DIM_UNKNOWN && alpha->dims[0] != d)) {
    char buf[128];
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.prelu: alpha must have shape (%lld,) (axis %d of the data), got %s",
                        (long long)d, axis, psgi_shape_str(alpha, buf, sizeof buf));
  }
  if (alpha->dtype != data->dtype)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.prelu: alpha dtype %s does not match data dtype %s",
                        psg_dtype_name(alpha->dtype), psg_dtype_name(data->dtype));
  *out = data;
  return PSG_OK;
}

/* TVM's topi: relu is max(x, 0) lowered as select(x > 0, x, 0); leaky_relu
 * and prelu are select(x > 0, x, x * slope). Integer relu stays exact. */
static psg_status rectify(psgi_op_call *call, int mode, psgi_value *const *args, const psg_type *out_type,
                          psgi_value **out) {
  psg_tensor *x = psgi_value_as_tensor(args[0]), *res;
  void *dst;
  int64_t outer = 1, ext = 1, inner = psgi_numel(x->shape, x->ndim);
  double alpha = psgi_attr_float(call->attrs, "alpha", 0.25);
  void *slopes = NULL;
  bool owned = false, f32 = x->dtype == PSG_DTYPE_FLOAT32;
  psg_status st = psgi_kernel_alloc(call, out_type, &res, &dst);
  if (st) return st;
  if (mode == RECT_PRELU) {
    int axis;
    if ((st = psgi_norm_axis(call, psgi_attr_int(call->attrs, "axis", 1), x->ndim, &axis)) ||
        (st = psgi_nn_load_float(call, psgi_value_as_tensor(args[1]), !f32, &slopes, &owned)))
      goto done;
    split_at(x, axis, &outer, &ext, &inner);
  }
  for (int64_t o = 0, i = 0; o < outer; o++)
    for (int64_t c = 0; c < ext; c++)
      for (int64_t k = 0; k < inner; k++, i++) {
        if (f32) {
          float v = ((const float *)x->data)[i];
          float s = mode == RECT_PRELU ? ((const float *)slopes)[c] : (float)alpha;
          ((float *)dst)[i] = v > 0 ? v : mode == RECT_RELU ? 0.0f : v * s;
        } else if (mode == RECT_RELU && !psg_dtype_is_float(x->dtype)) {
          int64_t v = psgi_load_i(x->dtype, x->data, (size_t)i);
          psgi_store_i(x->dtype, dst, (size_t)i, v > 0 ? v : 0);
        } else {
          double v = psgi_load_f(x->dtype, x->data, (size_t)i);
          double s = mode == RECT_PRELU ? ((const double *)slopes)[c] : alpha;
          psgi_store_f(x->dtype, dst, (size_t)i, v > 0 ? v : mode == RECT_RELU ? 0.0 : v * s);
        }
      }
  st = psgi_kernel_result(call, res, out);
  res = NULL;
done:
  if (owned) psgi_free(call->ctx, slopes);
  psg_tensor_release(res);
  return st;
}

static psg_status relu_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                              psgi_value **out) {
  (void)nargs;
  return rectify(call, RECT_RELU, args, out_type, out);
}

static psg_status leaky_relu_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                    const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return rectify(call, RECT_LEAKY, args, out_type, out);
}

static psg_status prelu_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                               psgi_value **out) {
  (void)nargs;
  return rectify(call, RECT_PRELU, args, out_type, out);
}

/* bias_add ----------------------------------------------------------------------- */

/* BiasAddRel: bias is (data.shape[axis],) of the data's dtype. */
static psg_status bias_add_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                               const psg_type **out) {
  (void)nargs;
  const psg_type *data, *bias;
  psg_status st;
  char buf[128], buf2[128];
  if ((st = psgi_rel_tensor_arg(call, args, 0, &data)) || (st = psgi_rel_tensor_arg(call, args, 1, &bias)))
    return st;
  int64_t axis = psgi_attr_int(call->attrs, "axis", 1), a = axis < 0 ? axis + data->n : axis;
  if (a < 0 || a >= data->n)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "nn.bias_add: the axis must be in range for the shape; attempted to access index %lld of %s",
                        (long long)axis, psgi_shape_str(data, buf, sizeof buf));
  int64_t d = data->dims[a];
  if (bias->n != 1 || (d != PSG_DIM_UNKNOWN && bias->dims[0] != PSG_DIM_UNKNOWN && bias->dims[0] != d))
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "nn.bias_add: bias must have shape (%lld,) to match axis %lld of %s, got %s",
                        (long long)d, (long long)a, psgi_shape_str(data, buf, sizeof buf),
                        psgi_shape_str(bias, buf2, sizeof buf2));
  if (bias->dtype != data->dtype)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.bias_add: bias dtype %s does not match data dtype %s",
                        psg_dtype_name(bias->dtype), psg_dtype_name(data->dtype));
  *out = data;
  return PSG_OK;
}

static psg_status bias_add_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                  const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *b = psgi_value_as_tensor(args[1]), *res;
  void *dst;
  int axis;
  int64_t outer, ext, inner;
  psg_status st = psgi_norm_axis(call, psgi_attr_int(call->attrs, "axis", 1), x->ndim, &axis);
  if (st || (st = psgi_kernel_alloc(call, out_type, &res, &dst))) return st;
  split_at(x, axis, &outer, &ext, &inner);
  bool flt = psg_dtype_is_float(x->dtype);
  for (int64_t o = 0, i = 0; o < outer; o++)
    for (int64_t c = 0; c < ext; c++)
      for (int64_t k = 0; k < inner; k++, i++) {
        if (x->dtype == PSG_DTYPE_FLOAT32)
          ((float *)dst)[i] = ((const float *)x->data)[i] + ((const float *)b->data)[c];
        else if (flt)
          psgi_store_f(x->dtype, dst, (size_t)i,
                       psgi_load_f(x->dtype, x->data, (size_t)i) + psgi_load_f(b->dtype, b->data, (size_t)c));
        else /* wraps like the integer add of the dtype */
          psgi_store_i(x->dtype, dst, (size_t)i,
                       (int64_t)((uint64_t)psgi_load_i(x->dtype, x->data, (size_t)i) +
                                 (uint64_t)psgi_load_i(b->dtype, b->data, (size_t)c)));
      }
  return psgi_kernel_result(call, res, out);
}

/* softmax, fast_softmax, log_softmax --------------------------------------------------- */

static psg_status softmax_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *data;
  int axis;
  psg_status st;
  if ((st = psgi_rel_tensor_arg(call, args, 0, &data)) ||
      (st = psgi_norm_axis(call, psgi_attr_int(call->attrs, "axis", -1), data->n, &axis)))
    return st;
  if (!psg_dtype_is_float(data->dtype))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: expects a floating-point tensor, got %s", psgi_nn_name(call),
                        psg_dtype_name(data->dtype));
  *out = data;
  return PSG_OK;
}

/* Along the axis: subtract the maximum, exponentiate, sum in axis order and
 * divide (TVM's topi.nn.softmax), or x - max - log(sum) for log_softmax.
 * float32 computes in float; other float dtypes in double. fast_softmax uses
 * the exact exp (TVM's fast_exp approximation differs in the last bits). */
#define DEFINE_SOFTMAX(T, SUF, EXP, LOG)                                                             \
  static void softmax_##SUF(const T *x, T *y, int64_t outer, int64_t ext, int64_t inner, bool lg) {  \
    for (int64_t o = 0; o < outer; o++)                                                              \
      for (int64_t k = 0; k < inner; k++) {                                                          \
        const T *xs = x + o * ext * inner + k;                                                       \
        T *ys = y + o * ext * inner + k;                                                             \
        T m = -(T)INFINITY, s = 0;                                                                   \
        for (int64_t c = 0; c < ext; c++) m = xs[c * inner] > m ? xs[c * inner] : m;                 \
        for (int64_t c = 0; c < ext; c++) {                                                          \
          T e = EXP(xs[c * inner] - m);                                                              \
          if (!lg) ys[c * inner] = e;                                                                \
          s += e;                                                                                    \
        }                                                                                            \
        for (int64_t c = 0; c < ext; c++)                                                            \
          ys[c * inner] = lg ? xs[c * inner] - m - LOG(s) : ys[c * inner] / s;                       \
      }                                                                                              \
  }
DEFINE_SOFTMAX(float, f32, expf, logf)
DEFINE_SOFTMAX(double, f64, exp, log)
#undef DEFINE_SOFTMAX

static psg_status softmax_common(psgi_op_call *call, bool lg, psgi_value *const *args, const psg_type *out_type,
                                 psgi_value **out) {
  psg_tensor *x = psgi_value_as_tensor(args[0]), *res = NULL;
  void *dst, *xb = NULL, *yb = NULL;
  bool owned = false, f32 = x->dtype == PSG_DTYPE_FLOAT32;
  int axis;
  int64_t outer, ext, inner, n = psgi_numel(x->shape, x->ndim);
  psg_status st = psgi_norm_axis(call, psgi_attr_int(call->attrs, "axis", -1), x->ndim, &axis);
  if (st || (st = psgi_kernel_alloc(call, out_type, &res, &dst)) ||
      (st = psgi_nn_load_float(call, x, !f32, &xb, &owned)))
    goto done;
  split_at(x, axis, &outer, &ext, &inner);
  yb = f32 ? dst : psgi_alloc(call->ctx, psgi_mul_size((size_t)(n ? n : 1), sizeof(double)));
  if (!yb) {
    st = psgi_nomem(call->ctx);
    goto done;
  }
  if (f32) softmax_f32(xb, yb, outer, ext, inner, lg);
  else {
    softmax_f64(xb, yb, outer, ext, inner, lg);
    psgi_nn_store_float(res->dtype, dst, yb, true, n);
  }
  st = psgi_kernel_result(call, res, out);
  res = NULL;
done:
  if (owned) psgi_free(call->ctx, xb);
  if (yb && yb != dst) psgi_free(call->ctx, yb);
  psg_tensor_release(res);
  return st;
}

static psg_status softmax_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                 const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return softmax_common(call, false, args, out_type, out);
}

static psg_status log_softmax_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                     const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return softmax_common(call, true, args, out_type, out);
}

/* dropout ------------------------------------------------------------------------------ */

/* DropoutRel: (out, mask), both of the data's type. */
static psg_status dropout_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *data;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &data);
  if (st) return st;
  double rate = psgi_attr_float(call->attrs, "rate", 0.5);
  if (!(rate >= 0 && rate <= 1)) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.dropout: rate %g is not in [0, 1]", rate);
  const psg_type *fields[2] = {data, data};
  if ((st = psg_type_tuple(call->ctx, fields, 2, out)) == PSG_ERR_NOMEM) return st;
  return st ? psgi_op_fail(call, st, "nn.dropout: cannot make the result type") : PSG_OK;
}

/* Inference semantics (what SimplifyInference rewrites it to): the data
 * passes through and the mask keeps every element. */
static psg_status dropout_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                 const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *mask;
  psgi_value *items[2] = {args[0], NULL};
  void *dst;
  psg_status st = psgi_kernel_alloc(call, psg_type_field(out_type, 1), &mask, &dst);
  if (st) return st;
  int64_t n = psgi_numel(x->shape, x->ndim);
  for (int64_t i = 0; i < n; i++) psgi_store_f(x->dtype, dst, (size_t)i, 1.0);
  if (!(st = psgi_kernel_result(call, mask, &items[1]))) {
    st = psgi_value_tuple(call->ctx, items, 2, out);
    psgi_value_release(items[1]);
  }
  return st;
}

/* batch_flatten ------------------------------------------------------------------------------ */

/* BatchFlattenRel: (N, product of the rest); an unknown dim makes it unknown. */
static psg_status batch_flatten_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                    const psg_type **out) {
  (void)nargs;
  const psg_type *data;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &data);
  if (st) return st;
  if (data->n == 0) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.batch_flatten: data must have at least one dimension");
  int64_t dims[2] = {data->dims[0], 1};
  for (int i = 1; i < data->n; i++) {
    if (data->dims[i] == PSG_DIM_UNKNOWN) {
      dims[1] = PSG_DIM_UNKNOWN;
      break;
    }
    dims[1] *= data->dims[i];
  }
  return psgi_rel_make(call, dims, 2, data->dtype, out);
}

static psg_status batch_flatten_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                       const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *res;
  void *dst;
  psg_status st = psgi_kernel_alloc(call, out_type, &res, &dst);
  if (st) return st;
  if (x->nbytes) memcpy(dst, x->data, x->nbytes); /* row-major order is unchanged */
  return psgi_kernel_result(call, res, out);
}

/* The table -------------------------------------------------------------------------------- */

const psgi_op_impl psgi_impls_nn[] = {
    {"nn.conv2d", psgi_nn_conv2d_rel, psgi_nn_conv2d_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.conv3d", psgi_nn_conv3d_rel, psgi_nn_conv3d_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.conv2d_transpose", psgi_nn_conv2d_transpose_rel, psgi_nn_conv2d_transpose_kernel, false,
     PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.dense", psgi_nn_dense_rel, psgi_nn_dense_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.matmul", psgi_nn_matmul_rel, psgi_nn_matmul_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.batch_matmul", psgi_nn_batch_matmul_rel, psgi_nn_batch_matmul_kernel, false,
     PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.bias_add", bias_add_rel, bias_add_kernel, false, PSGI_PATTERN_BROADCAST},
    {"nn.relu", same_type_rel, relu_kernel, false, PSGI_PATTERN_ELEMWISE},
    {"nn.leaky_relu", same_type_rel, leaky_relu_kernel, false, PSGI_PATTERN_ELEMWISE},
    {"nn.prelu", prelu_rel, prelu_kernel, false, PSGI_PATTERN_BROADCAST},
    {"nn.softmax", softmax_rel, softmax_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.fast_softmax", softmax_rel, softmax_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.log_softmax", softmax_rel, log_softmax_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    /* TVM marks dropout TOpIsStateful, so FoldConstant leaves it alone (tvm-behavior §5.2). */
    {"nn.dropout", dropout_rel, dropout_kernel, true, PSGI_PATTERN_OPAQUE},
    {"nn.pad", psgi_nn_pad_rel, psgi_nn_pad_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"nn.batch_flatten", batch_flatten_rel, batch_flatten_kernel, false, PSGI_PATTERN_INJECTIVE},
    {NULL, NULL, NULL, false, 0}};
