/* Passage ONNX frontend — export of op calls: one converter per Relay op
 * (or family) writes the ONNX nodes of one call, found through a table
 * from op name (onnx_export.c walks the module and calls onnxi_ex_op_call
 * for each call of an op). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "onnx_export_internal.h"

/* Attribute readers and writers, initializers ------------------------------------ */

static int64_t aint(const psg_attrs *a, const char *k, int64_t d) {
  psg_attr *v = psg_attrs_get(a, k);
  return v && (psg_attr_kind(v) == PSG_ATTR_INT || psg_attr_kind(v) == PSG_ATTR_BOOL) ? psg_attr_get_int(v) : d;
}
static double afloat(const psg_attrs *a, const char *k, double d) {
  psg_attr *v = psg_attrs_get(a, k);
  return v && (psg_attr_kind(v) == PSG_ATTR_FLOAT || psg_attr_kind(v) == PSG_ATTR_INT) ? psg_attr_get_float(v) : d;
}
static const char *astr(const psg_attrs *a, const char *k, const char *d) {
  psg_attr *v = psg_attrs_get(a, k);
  return v && psg_attr_kind(v) == PSG_ATTR_STRING ? psg_attr_get_string(v) : d;
}
/* An int list attribute; -1 if absent or None. */
static int alist(const psg_attrs *a, const char *k, int64_t *out, int cap) {
  psg_attr *v = psg_attrs_get(a, k);
  if (!v) return -1;
  if (psg_attr_kind(v) == PSG_ATTR_INT) {
    out[0] = psg_attr_get_int(v);
    return 1;
  }
  if (psg_attr_kind(v) != PSG_ATTR_LIST) return -1;
  int n = (int)psg_attr_list_len(v);
  if (n > cap) return -1;
  for (int i = 0; i < n; i++) out[i] = psg_attr_get_int(psg_attr_list_get(v, (size_t)i));
  return n;
}

static void pads4(const psg_attrs *a, int64_t *p) {
  int64_t v[4];
  int k = alist(a, "padding", v, 4);
  if (k == 1) p[0] = p[1] = p[2] = p[3] = v[0];
  else if (k == 2) p[0] = p[2] = v[0], p[1] = p[3] = v[1];
  else if (k == 4) memcpy(p, v, sizeof v);
  else memset(p, 0, 4 * sizeof *p);
}

static void attr_int(onnxi_exporter *x, Onnx__NodeProto *n, const char *name, int64_t v) {
  Onnx__AttributeProto *a = onnxi_ex_attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  if (a) a->has_i = 1, a->i = v;
}
static void attr_float(onnxi_exporter *x, Onnx__NodeProto *n, const char *name, float v) {
  Onnx__AttributeProto *a = onnxi_ex_attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  if (a) a->has_f = 1, a->f = v;
}
static void attr_str(onnxi_exporter *x, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = onnxi_ex_attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  if (a) a->has_s = 1, a->s.data = (uint8_t *)onnxi_ex_str(x, "%s", v), a->s.len = strlen(v);
}
static void attr_ints(onnxi_exporter *x, Onnx__NodeProto *n, const char *name, const int64_t *v, size_t k) {
  Onnx__AttributeProto *a = onnxi_ex_attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  if (!a) return;
  a->ints = onnxi_ex_alloc(x, (k + 1) * sizeof(int64_t));
  if (a->ints && k) memcpy(a->ints, v, k * sizeof(int64_t));
  a->n_ints = k;
}

static const char *init_ints(onnxi_exporter *x, const int64_t *v, size_t n) {
  int64_t *copy = onnxi_ex_alloc(x, (n + 1) * sizeof *copy);
  if (!copy) return "";
  if (n) memcpy(copy, v, n * sizeof *v);
  int64_t shape[1] = {(int64_t)n};
  return onnxi_ex_init_raw(x, PSG_DTYPE_INT64, shape, 1, copy, n * sizeof *v);
}

/* IEEE binary16 bits of `f`, rounded to nearest even (beyond the range: inf). */
static uint16_t half_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  uint32_t sign = (b >> 16) & 0x8000, mant = b & 0x7fffff;
  int e = (int)((b >> 23) & 0xff);
  if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
  e = e - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  int shift = 13;
  uint32_t h;
  if (e <= 0) { /* subnormal half (or zero) */
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000;
    shift = 14 - e;
    h = mant >> shift;
  } else {
    h = ((uint32_t)e << 10) | (mant >> 13);
  }
  uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1))) h++; /* a carry rounds up into the exponent */
  return (uint16_t)(sign | h);
}

/* bfloat16 bits of `f`: its upper half, rounded to nearest even (NaN stays NaN). */
static uint16_t bfloat_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if ((b & 0x7fffffff) > 0x7f800000) return (uint16_t)((b >> 16) | 0x40);
  b += 0x7fff + ((b >> 16) & 1);
  return (uint16_t)(b >> 16);
}

/* A scalar initializer of `dtype` holding `v` (clip's bounds): floats
 * beyond the dtype's range become infinities, integers saturate (NaN: 0),
 * so no conversion is undefined. */
static const char *init_scalar_f(onnxi_exporter *x, int dtype, double v) {
  void *d = onnxi_ex_alloc(x, 8);
  if (!d) return "";
  float f = v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
  double lo = 0, hi = 0; /* integer range */
  switch (dtype) {
  case PSG_DTYPE_FLOAT64: *(double *)d = v; break;
  case PSG_DTYPE_FLOAT16: *(uint16_t *)d = half_bits(f); break;
  case PSG_DTYPE_BFLOAT16: *(uint16_t *)d = bfloat_bits(f); break; /* was a float's low half */
  case PSG_DTYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
  case PSG_DTYPE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
  case PSG_DTYPE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
  case PSG_DTYPE_INT64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; break; /* largest double below 2^63 */
  case PSG_DTYPE_UINT8: hi = UINT8_MAX; break;
  case PSG_DTYPE_UINT16: hi = UINT16_MAX; break;
  case PSG_DTYPE_UINT32: hi = UINT32_MAX; break;
  case PSG_DTYPE_UINT64: hi = 18446744073709549568.0; break; /* largest double below 2^64 */
  default: *(float *)d = f; break;
  }
  if (hi > 0) {
    double c = v != v ? 0 : v < lo ? lo : v > hi ? hi : v;
    switch (dtype) {
    case PSG_DTYPE_INT8: *(int8_t *)d = (int8_t)c; break;
    case PSG_DTYPE_INT16: *(int16_t *)d = (int16_t)c; break;
    case PSG_DTYPE_INT32: *(int32_t *)d = (int32_t)c; break;
    case PSG_DTYPE_INT64: *(int64_t *)d = (int64_t)c; break;
    case PSG_DTYPE_UINT8: *(uint8_t *)d = (uint8_t)c; break;
    case PSG_DTYPE_UINT16: *(uint16_t *)d = (uint16_t)c; break;
    case PSG_DTYPE_UINT32: *(uint32_t *)d = (uint32_t)c; break;
    default: *(uint64_t *)d = (uint64_t)c; break;
    }
  }
  return onnxi_ex_init_raw(x, dtype, NULL, 0, d, psg_dtype_size(dtype));
}

/* `w` (the value `name`) with its last two axes swapped: a transposed
 * initializer when w is a constant (perm {1, 0} or {0, 2, 1}), else a
 * Transpose node. */
static const char *transposed_weight(onnxi_exporter *x, const psg_expr *w, const char *name, const int64_t *perm, int r) {
  const psg_expr *c = onnxi_ex_resolve(x, w);
  psg_tensor *t = psg_expr_kind(c) == PSG_EXPR_CONSTANT ? psg_constant_get_tensor(c) : NULL;
  if (t && psg_tensor_ndim(t) == r && psg_tensor_numel(t) > 0) {
    int64_t b = r == 3 ? psg_tensor_dim(t, 0) : 1, rows = psg_tensor_dim(t, r - 2), cols = psg_tensor_dim(t, r - 1);
    size_t sz = (size_t)psg_dtype_size(psg_tensor_dtype(t));
    unsigned char *out = onnxi_ex_alloc(x, psg_tensor_nbytes(t));
    const unsigned char *in = psg_tensor_data(t);
    if (!out || !in) return name;
    for (int64_t k = 0; k < b; k++)
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
          memcpy(out + ((k * cols + j) * rows + i) * sz, in + ((k * rows + i) * cols + j) * sz, sz);
    int64_t shape[3] = {b, cols, rows};
    return onnxi_ex_init_raw(x, psg_tensor_dtype(t), r == 3 ? shape : shape + 1, r, out, psg_tensor_nbytes(t));
  }
  Onnx__NodeProto *tn = onnxi_ex_node(x, "Transpose", 1, 1);
  if (!tn) return name;
  tn->input[0] = (char *)name;
  attr_ints(x, tn, "perm", perm, (size_t)r);
  return tn->output[0];
}

/* Bias folding: an add or bias_add taken over by the Conv or Gemm before it ------ */

/* The op call whose value `e` is, seen through parameters of inlined
 * functions and calls of fused functions, when each step is read only
 * there (so its node may take over the reader's work); else NULL. */
static const psg_expr *sole_op_call(const onnxi_exporter *x, const psg_expr *e) {
  for (int hop = 0; hop < 64; hop++) {
    if (onnxi_ex_uses_of(x, e) != 1) return NULL;
    const psg_expr *b = psg_expr_kind(e) == PSG_EXPR_VAR ? onnxi_ex_map_get(&x->bound, e) : NULL;
    if (b) {
      e = b;
      continue;
    }
    if (psg_expr_kind(e) != PSG_EXPR_CALL) return NULL;
    const psg_expr *callee = psg_call_get_callee(e);
    if (psg_expr_kind(callee) == PSG_EXPR_OP) return e;
    if (psg_expr_kind(callee) != PSG_EXPR_FUNCTION) return NULL;
    e = psg_function_get_body(callee);
  }
  return NULL;
}

/* add(conv, B) with B a constant along the output channels (C), (C, 1, 1) or
 * (1, C, 1, 1): the Conv's bias input (ONNX's Conv computes the same sum).
 * add(dense, B) exported as Gemm: Gemm's C input (broadcast to the result).
 * Only when the add is the conv's one use and does not widen its result.
 * Returns the node that now computes the add, or NULL. */
static Onnx__NodeProto *fold_bias(onnxi_exporter *x, const psg_expr *e) {
  if (psg_call_num_args(e) != 2) return NULL;
  const psg_type *rt = psg_expr_checked_type(e);
  for (int side = 0; side < 2; side++) {
    const psg_expr *p = sole_op_call(x, psg_call_get_arg(e, (size_t)side)), *c = onnxi_ex_resolve(x, psg_call_get_arg(e, (size_t)(1 - side)));
    if (!p) continue;
    bool conv = onnxi_ex_is_op_call(p, "nn.conv2d") || onnxi_ex_is_op_call(p, "nn.conv2d_transpose"), gemm = onnxi_ex_is_op_call(p, "nn.dense") || onnxi_ex_is_op_call(p, "nn.matmul");
    Onnx__NodeProto *n = onnxi_ex_map_get(&x->made, p);
    if ((!conv && !gemm) || !n || n->n_input != 2 || psg_expr_checked_type(p) != rt ||
        psg_expr_kind(c) != PSG_EXPR_CONSTANT || !rt || psg_type_kind(rt) != PSG_TYPE_TENSOR)
      continue;
    psg_tensor *t = psg_constant_get_tensor(c);
    int nd = psg_tensor_ndim(t), r = psg_type_ndim(rt);
    if (psg_tensor_dtype(t) != psg_type_dtype(rt) || nd > r) continue;
    if (gemm && !strcmp(n->op_type, "Gemm")) {
      size_t k = 0;
      char **nm = onnxi_ex_get_names(x, psg_call_get_arg(e, (size_t)(1 - side)), &k);
      if (!nm || k != 1) continue;
      n->input[2] = nm[0];
      n->n_input = 3;
      return n;
    }
    if (!conv || r != 4) continue;
    int64_t ch = psg_type_dim(rt, 1);
    bool along = ch > 0 && psg_tensor_numel(t) == ch;
    for (int j = 0; j < nd && along; j++) along = psg_tensor_dim(t, j) == 1 || r - nd + j == 1;
    if (!along) continue;
    n->input[2] = (char *)onnxi_ex_init_raw(x, psg_tensor_dtype(t), &ch, 1, psg_tensor_data(t), psg_tensor_nbytes(t));
    n->n_input = 3;
    return n;
  }
  return NULL;
}

/* nn.bias_add(conv, b) along the channels (axis 1 of NCHW), or along the
 * last axis of a 2-D dense exported as Gemm: b becomes the node's bias input
 * (one node, as the ONNX Conv or Gemm the importer read). Only when the
 * bias_add is the producer's one use (also across fused functions, as
 * -O0 leaves every op in one). Returns that node, or NULL. */
static Onnx__NodeProto *fold_bias_add(onnxi_exporter *x, const psg_expr *e) {
  const psg_expr *p = sole_op_call(x, psg_call_get_arg(e, 0));
  const psg_type *rt = psg_expr_checked_type(e);
  Onnx__NodeProto *n = p ? onnxi_ex_map_get(&x->made, p) : NULL;
  size_t k = 0;
  char **b = onnxi_ex_get_names(x, psg_call_get_arg(e, 1), &k);
  const psg_expr *bv = onnxi_ex_resolve(x, psg_call_get_arg(e, 1)); /* defined before n: a constant or graph input */
  if (psg_expr_kind(bv) != PSG_EXPR_CONSTANT && psg_expr_kind(bv) != PSG_EXPR_VAR) return NULL;
  if (!n || n->n_input != 2 || !b || k != 1 || !rt || psg_type_kind(rt) != PSG_TYPE_TENSOR)
    return NULL;
  int r = psg_type_ndim(rt);
  int64_t axis = aint(psg_call_get_attrs(e), "axis", 1);
  if (axis < 0) axis += r;
  bool conv = (onnxi_ex_is_op_call(p, "nn.conv2d") || onnxi_ex_is_op_call(p, "nn.conv2d_transpose")) && r == 4 && axis == 1;
  bool gemm = !strcmp(n->op_type, "Gemm") && r == 2 && axis == 1;
  if (!conv && !gemm) return NULL;
  n->input[2] = b[0];
  n->n_input = 3;
  return n;
}

/* Converters --------------------------------------------------------------------- */

/* Calls of ops: one converter per Relay op (or family), found through
 * `convs`, a map from op name to its row of the table below, built once per
 * export. A converter makes the nodes of one call and leaves in c->n the node
 * whose output is the call's value; onnxi_ex_op_call then checks its inputs and
 * records it. */
typedef struct call_in {
  const psg_expr *e;   /* the call */
  const char *op;      /* its op's name */
  const char *onnx;    /* the ONNX op of the converter's row */
  const psg_attrs *a;  /* its attributes (may be NULL) */
  const char **in;     /* the ONNX value names of its arguments (NULL: not one tensor) */
  size_t na;
  const psg_type *rt;  /* its checked type */
  Onnx__NodeProto *n;  /* the result node (set by the converter) */
  char ***out_names;   /* set directly by a converter of a tuple-valued op */
  size_t *nout;
  bool named;          /* ... which then sets this */
} call_in;

typedef psg_status (*export_fn)(onnxi_exporter *x, call_in *c);
typedef struct export_op {
  const char *relay, *onnx;
  export_fn fn;
} export_op;

/* One node of c->onnx on the call's arguments as they are. */
static psg_status conv_simple(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, c->onnx, (int)c->na, 1);
  for (size_t k = 0; n && k < c->na; k++) n->input[k] = (char *)c->in[k];
  return PSG_OK;
}

/* add: a Conv's bias or Gemm's C when it can be (fold_bias), else Add. */
static psg_status conv_add(onnxi_exporter *x, call_in *c) {
  if ((c->n = fold_bias(x, c->e))) return PSG_OK;
  return conv_simple(x, c);
}

static psg_status conv_clip(onnxi_exporter *x, call_in *c) {
  int dt = psg_type_dtype(c->rt);
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Clip", 3, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_scalar_f(x, dt, afloat(c->a, "a_min", 0)),
         n->input[2] = (char *)init_scalar_f(x, dt, afloat(c->a, "a_max", 0));
  return PSG_OK;
}

static psg_status conv_leaky_relu(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "LeakyRelu", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  attr_float(x, n, "alpha", (float)afloat(c->a, "alpha", 0.01));
  return PSG_OK;
}

static psg_status conv_cast(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Cast", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  attr_int(x, n, "to", onnxi_dtype_to_onnx(psg_type_dtype(c->rt)));
  return PSG_OK;
}

/* mean, max, min, sum: ReduceX (ReduceSum takes its axes as an input). */
static psg_status conv_reduce(onnxi_exporter *x, call_in *c) {
  if (aint(c->a, "exclude", 0)) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "%s with exclude=True", c->op);
  bool sum = !strcmp(c->onnx, "ReduceSum");
  int64_t v[PSG_MAX_RANK];
  int k = alist(c->a, "axis", v, PSG_MAX_RANK);
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, c->onnx, sum && k >= 0 ? 2 : 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  if (k >= 0 && sum && n) n->input[1] = (char *)init_ints(x, v, (size_t)k);
  else if (k >= 0) attr_ints(x, n, "axes", v, (size_t)k);
  attr_int(x, n, "keepdims", aint(c->a, "keepdims", 0));
  return PSG_OK;
}

static psg_status conv_softmax(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Softmax", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  attr_int(x, n, "axis", aint(c->a, "axis", -1));
  return PSG_OK;
}

/* nn.conv2d (Conv), nn.conv2d_transpose (ConvTranspose). */
static psg_status conv_conv(onnxi_exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  bool tr = !strcmp(c->onnx, "ConvTranspose");
  if (strcmp(astr(a, "data_layout", "NCHW"), "NCHW") || strcmp(astr(a, "kernel_layout", tr ? "IOHW" : "OIHW"), tr ? "IOHW" : "OIHW"))
    return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "%s with layouts other than NCHW and %s", c->op, tr ? "IOHW" : "OIHW");
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, c->onnx, 2, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)c->in[1];
  int64_t p[4], one[2] = {1, 1}, v[2];
  pads4(a, p);
  attr_ints(x, n, "pads", p, 4);
  int k = alist(a, "strides", v, 2);
  attr_ints(x, n, "strides", k == 2 ? v : one, 2);
  k = alist(a, "dilation", v, 2);
  attr_ints(x, n, "dilations", k == 2 ? v : one, 2);
  attr_int(x, n, "group", aint(a, "groups", 1));
  if (tr && (k = alist(a, "output_padding", v, 2)) == 2) attr_ints(x, n, "output_padding", v, 2);
  /* kernel_shape from the attribute or the weight's type (unknown dims in the weight need it) */
  const psg_type *wt = psg_expr_checked_type(psg_call_get_arg(c->e, 1));
  if ((k = alist(a, "kernel_size", v, 2)) == 2 || (k = -1, wt && psg_type_ndim(wt) == 4 &&
      (v[0] = psg_type_dim(wt, 2)) > 0 && (v[1] = psg_type_dim(wt, 3)) > 0))
    attr_ints(x, n, "kernel_shape", v, 2);
  return PSG_OK;
}

/* nn.bias_add: the producer's bias input when it can be (fold_bias_add),
 * else Add of the bias reshaped to broadcast along `axis`. */
static psg_status conv_bias_add(onnxi_exporter *x, call_in *c) {
  if ((c->n = fold_bias_add(x, c->e))) return PSG_OK;
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt), axis = (int)aint(c->a, "axis", 1);
  if (axis < 0) axis += r;
  int64_t shape[PSG_MAX_RANK];
  shape[0] = -1;
  for (int i = 1; i < r - axis; i++) shape[i] = 1;
  Onnx__NodeProto *rs = onnxi_ex_node(x, "Reshape", 2, 1);
  if (rs) rs->input[0] = (char *)c->in[1], rs->input[1] = (char *)init_ints(x, shape, (size_t)(r - axis));
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Add", 2, 1);
  if (n && rs) n->input[0] = (char *)c->in[0], n->input[1] = rs->output[0];
  return PSG_OK;
}

/* nn.dense: Gemm (transB) in 2-D, else MatMul on the transposed weight. */
static psg_status conv_dense(onnxi_exporter *x, call_in *c) {
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  Onnx__NodeProto *n;
  if (psg_type_ndim(xt) == 2) {
    n = c->n = onnxi_ex_node(x, "Gemm", 2, 1);
    if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)c->in[1];
    attr_int(x, n, "transB", 1);
  } else {
    int64_t perm2[2] = {1, 0};
    const char *w = transposed_weight(x, psg_call_get_arg(c->e, 1), c->in[1], perm2, 2);
    n = c->n = onnxi_ex_node(x, "MatMul", 2, 1);
    if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)w;
  }
  return PSG_OK;
}

/* nn.batch_matmul, nn.matmul: MatMul with the transposes written out (one
 * Gemm for a 2-D nn.matmul). */
static psg_status conv_matmul(onnxi_exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  bool b3 = !strcmp(c->op, "nn.batch_matmul");
  const char *ai = c->in[0], *bi = c->in[1];
  int64_t perm[PSG_MAX_RANK];
  int ra = psg_type_ndim(psg_expr_checked_type(psg_call_get_arg(c->e, 0)));
  for (int i = 0; i < ra; i++) perm[i] = i == ra - 2 ? ra - 1 : i == ra - 1 ? ra - 2 : i;
  Onnx__NodeProto *n;
  if (!b3 && ra == 2) { /* 2-D: one Gemm whatever the flags */
    n = c->n = onnxi_ex_node(x, "Gemm", 2, 1);
    if (n) n->input[0] = (char *)ai, n->input[1] = (char *)bi;
    if (aint(a, "transpose_a", 0)) attr_int(x, n, "transA", 1);
    if (aint(a, "transpose_b", 0)) attr_int(x, n, "transB", 1);
    return PSG_OK;
  }
  if (aint(a, "transpose_a", 0)) { /* the last two axes of a (N-D for nn.matmul) */
    Onnx__NodeProto *t = onnxi_ex_node(x, "Transpose", 1, 1);
    if (t) t->input[0] = (char *)ai, ai = t->output[0];
    attr_ints(x, t, "perm", perm, (size_t)ra);
  }
  if (aint(a, "transpose_b", b3 ? 1 : 0)) {
    int64_t p3[3] = {0, 2, 1}, p2[2] = {1, 0};
    bi = transposed_weight(x, psg_call_get_arg(c->e, 1), bi, b3 ? p3 : p2, b3 ? 3 : 2);
  }
  n = c->n = onnxi_ex_node(x, "MatMul", 2, 1);
  if (n) n->input[0] = (char *)ai, n->input[1] = (char *)bi;
  return PSG_OK;
}

/* nn.layer_norm: ONNX normalizes over the axes from `axis` on: the same as
 * Relay's one axis when it is the last; another axis is swapped with the
 * last around it. */
static psg_status conv_layer_norm(onnxi_exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  const char *const *in = c->in;
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt);
  int64_t axis = aint(a, "axis", -1);
  if (axis < 0) axis += r;
  int64_t ch = axis >= 0 && axis < r ? psg_type_dim(xt, (int)axis) : -1;
  if (ch < 0) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nn.layer_norm over an axis of unknown length");
  if (!in[0] || !in[1] || (aint(a, "center", 1) && !in[2])) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nn.layer_norm of non-tensor values");
  const char *data = in[0];
  int64_t perm[PSG_MAX_RANK];
  for (int i = 0; i < r; i++) perm[i] = i == axis ? r - 1 : i == r - 1 ? axis : i;
  if (axis != r - 1) {
    Onnx__NodeProto *t = onnxi_ex_node(x, "Transpose", 1, 1);
    if (t) t->input[0] = (char *)data, data = t->output[0];
    attr_ints(x, t, "perm", perm, (size_t)r);
  }
  bool center = aint(a, "center", 1) != 0;
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "LayerNormalization", center ? 3 : 2, 1);
  if (n) n->input[0] = (char *)data, n->input[1] = (char *)in[1], n->input[2] = center ? (char *)in[2] : NULL;
  if (n && !aint(a, "scale", 1)) { /* gamma ignored: ones */
    int dt = psg_type_dtype(xt);
    size_t sz = (size_t)psg_dtype_size(dt);
    unsigned char *ones = onnxi_ex_alloc(x, (size_t)ch * sz + 1);
    if (!ones) return PSG_ERR_NOMEM;
    if (dt == PSG_DTYPE_FLOAT64) for (int64_t i = 0; i < ch; i++) ((double *)(void *)ones)[i] = 1;
    else if (dt == PSG_DTYPE_FLOAT32) for (int64_t i = 0; i < ch; i++) ((float *)(void *)ones)[i] = 1;
    else return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nn.layer_norm with scale=False on %s", psg_dtype_name(dt));
    n->input[1] = (char *)onnxi_ex_init_raw(x, dt, &ch, 1, ones, (size_t)ch * sz);
  }
  attr_int(x, n, "axis", -1);
  attr_float(x, n, "epsilon", (float)afloat(a, "epsilon", 1e-5));
  x->opset = 17;
  if (n && axis != r - 1) {
    Onnx__NodeProto *t = onnxi_ex_node(x, "Transpose", 1, 1);
    if (t) t->input[0] = n->output[0];
    attr_ints(x, t, "perm", perm, (size_t)r);
    c->n = t;
  }
  return PSG_OK;
}

/* nn.batch_norm: BatchNormalization; the tuple's other fields (mean, var)
 * are the inputs themselves at inference. */
static psg_status conv_batch_norm(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = onnxi_ex_node(x, "BatchNormalization", 5, 1);
  for (int i = 0; n && i < 5; i++) n->input[i] = (char *)c->in[i];
  attr_float(x, n, "epsilon", (float)afloat(c->a, "epsilon", 1e-5));
  if (aint(c->a, "axis", 1) != 1) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nn.batch_norm with axis != 1");
  char **names = onnxi_ex_alloc(x, 3 * sizeof *names);
  if (!names || !n) return PSG_ERR_NOMEM;
  names[0] = n->output[0], names[1] = (char *)c->in[3], names[2] = (char *)c->in[4];
  *c->out_names = names;
  *c->nout = 3;
  c->named = true;
  onnxi_ex_map_put(x, &x->mains, n, n);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

/* nn.max_pool2d (MaxPool), nn.avg_pool2d (AveragePool). */
static psg_status conv_pool(onnxi_exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  bool mx = !strcmp(c->onnx, "MaxPool");
  if (strcmp(astr(a, "layout", "NCHW"), "NCHW")) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "%s with layout other than NCHW", c->op);
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, c->onnx, 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  int64_t p[4], one[2] = {1, 1}, v[2];
  pads4(a, p);
  int k = alist(a, "pool_size", v, 2);
  if (k == 1) v[1] = v[0];
  attr_ints(x, n, "kernel_shape", v, 2);
  attr_ints(x, n, "pads", p, 4);
  k = alist(a, "strides", v, 2);
  attr_ints(x, n, "strides", k == 2 ? v : one, 2);
  k = alist(a, "dilation", v, 2);
  if (k == 2 && (v[0] != 1 || v[1] != 1)) attr_ints(x, n, "dilations", v, 2);
  attr_int(x, n, "ceil_mode", aint(a, "ceil_mode", 0));
  if (!mx) attr_int(x, n, "count_include_pad", aint(a, "count_include_pad", 0));
  return PSG_OK;
}

/* reshape, nn.batch_flatten, squeeze, expand_dims (Reshape), broadcast_to
 * (Expand): the result shape is in the checked type, one node covers them. */
static psg_status conv_reshape(onnxi_exporter *x, call_in *c) {
  if (!psg_type_is_static(c->rt)) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "%s with a dynamic result shape", c->op);
  int64_t w[PSG_MAX_RANK];
  int r = psg_type_ndim(c->rt);
  for (int i = 0; i < r; i++) w[i] = psg_type_dim(c->rt, i);
  bool expand = !strcmp(c->onnx, "Expand");
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, c->onnx, 2, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, w, (size_t)r);
  /* A literal 0 extent (empty tensors): without allowzero, Reshape would
   * copy the input's dim there (found by fuzz_onnx). */
  bool zero = false;
  for (int i = 0; i < r; i++) zero |= w[i] == 0;
  if (zero && !expand) attr_int(x, n, "allowzero", 1);
  return PSG_OK;
}

static psg_status conv_transpose(onnxi_exporter *x, call_in *c) {
  int64_t v[PSG_MAX_RANK];
  int k;
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Transpose", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  if ((k = alist(c->a, "axes", v, PSG_MAX_RANK)) >= 0) attr_ints(x, n, "perm", v, (size_t)k);
  return PSG_OK;
}

/* concatenate: Concat of the tuple argument's fields. */
static psg_status conv_concat(onnxi_exporter *x, call_in *c) {
  psg_expr *tup = psg_call_get_arg(c->e, 0);
  size_t nf = 0;
  char **fields = onnxi_ex_get_names(x, tup, &nf);
  if (!fields) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "concatenate of a non-tuple value");
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Concat", (int)nf, 1);
  for (size_t i = 0; n && i < nf; i++) n->input[i] = fields[i];
  attr_int(x, n, "axis", aint(c->a, "axis", 0));
  return PSG_OK;
}

static psg_status conv_strided_slice(onnxi_exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  if (strcmp(astr(a, "slice_mode", "end"), "end")) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "strided_slice with slice_mode=size");
  int64_t b[PSG_MAX_RANK], en[PSG_MAX_RANK], s[PSG_MAX_RANK], ax[PSG_MAX_RANK];
  int nb = alist(a, "begin", b, PSG_MAX_RANK), ne = alist(a, "end", en, PSG_MAX_RANK);
  int ns = alist(a, "strides", s, PSG_MAX_RANK), nx = alist(a, "axes", ax, PSG_MAX_RANK);
  if (nb < 0 || ne != nb) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "strided_slice without begin/end");
  if (nx < 0) for (int i = 0; i < nb; i++) ax[i] = i;
  for (int i = 0; i < nb; i++) if (ns < 0 || i >= ns) s[i] = ns == 1 ? s[0] : 1;
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Slice", 5, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, b, (size_t)nb),
         n->input[2] = (char *)init_ints(x, en, (size_t)nb), n->input[3] = (char *)init_ints(x, ax, (size_t)nb),
         n->input[4] = (char *)init_ints(x, s, (size_t)nb);
  return PSG_OK;
}

/* reverse: a Slice with step -1 along the axis. */
static psg_status conv_reverse(onnxi_exporter *x, call_in *c) {
  int64_t st[1] = {-1}, en[1] = {INT64_MIN}, ax[1] = {aint(c->a, "axis", 0)}, sp[1] = {-1};
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Slice", 5, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, st, 1), n->input[2] = (char *)init_ints(x, en, 1),
         n->input[3] = (char *)init_ints(x, ax, 1), n->input[4] = (char *)init_ints(x, sp, 1);
  return PSG_OK;
}

static psg_status conv_take(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Gather", 2, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)c->in[1];
  attr_int(x, n, "axis", aint(c->a, "axis", 0));
  return PSG_OK;
}

/* split: one Split node with a part per tuple field, the sizes (from the
 * fields' types) as an initializer; each field is one of its outputs. */
static psg_status conv_split(onnxi_exporter *x, call_in *c) {
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt), parts = psg_type_num_fields(c->rt);
  int64_t axis = aint(c->a, "axis", 0);
  if (axis < 0) axis += r;
  int64_t *sizes = onnxi_ex_alloc(x, ((size_t)parts + 1) * sizeof *sizes);
  char **names = onnxi_ex_alloc(x, ((size_t)parts + 1) * sizeof *names);
  Onnx__NodeProto *n = onnxi_ex_node(x, "Split", 2, parts);
  if (!sizes || !names || !n) return PSG_ERR_NOMEM;
  for (int i = 0; i < parts; i++) {
    sizes[i] = psg_type_dim(psg_type_field(c->rt, i), (int)axis);
    if (sizes[i] < 0) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "split of a dynamic axis");
    names[i] = n->output[i];
  }
  n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, sizes, (size_t)parts);
  attr_int(x, n, "axis", axis);
  *c->out_names = names;
  *c->nout = (size_t)parts;
  c->named = true;
  onnxi_ex_map_put(x, &x->made, c->e, n);
  onnxi_ex_map_put(x, &x->mains, n, n);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

/* shape_of: Shape, then a Cast when the result is not int64. */
static psg_status conv_shape_of(onnxi_exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Shape", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  if (psg_type_dtype(c->rt) != PSG_DTYPE_INT64) {
    Onnx__NodeProto *cast = onnxi_ex_node(x, "Cast", 1, 1);
    if (cast && n) cast->input[0] = n->output[0];
    attr_int(x, cast, "to", onnxi_dtype_to_onnx(psg_type_dtype(c->rt)));
    c->n = cast;
  }
  return PSG_OK;
}

static psg_status conv_pad(onnxi_exporter *x, call_in *c) {
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt);
  int64_t v[PSG_MAX_RANK * 2];
  psg_attr *pw = psg_attrs_get(c->a, "pad_width");
  if (!pw || psg_attr_kind(pw) != PSG_ATTR_LIST || (int)psg_attr_list_len(pw) != r)
    return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nn.pad without a pad_width per axis");
  for (int i = 0; i < r; i++) {
    psg_attr *pair = psg_attr_list_get(pw, (size_t)i);
    if (psg_attr_kind(pair) != PSG_ATTR_LIST || psg_attr_list_len(pair) != 2) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nn.pad pad_width");
    v[i] = psg_attr_get_int(psg_attr_list_get(pair, 0));
    v[i + r] = psg_attr_get_int(psg_attr_list_get(pair, 1));
  }
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Pad", 3, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, v, (size_t)(2 * r)), n->input[2] = (char *)c->in[1];
  attr_str(x, n, "mode", astr(c->a, "pad_mode", "constant"));
  return PSG_OK;
}

/* image.resize2d: Resize to the checked type's sizes. */
static psg_status conv_resize(onnxi_exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  if (strcmp(astr(a, "layout", "NCHW"), "NCHW")) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "image.resize2d with layout other than NCHW");
  if (!psg_type_is_static(c->rt)) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "image.resize2d with a dynamic result shape");
  int64_t w[4];
  for (int i = 0; i < 4; i++) w[i] = psg_type_dim(c->rt, i);
  const char *m = astr(a, "method", "linear");
  Onnx__NodeProto *n = c->n = onnxi_ex_node(x, "Resize", 4, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = "", n->input[2] = "", n->input[3] = (char *)init_ints(x, w, 4);
  attr_str(x, n, "mode", !strcmp(m, "nearest_neighbor") ? "nearest" : m);
  attr_str(x, n, "coordinate_transformation_mode", astr(a, "coordinate_transformation_mode", "half_pixel"));
  attr_str(x, n, "nearest_mode", astr(a, "rounding_method", "round_prefer_floor")[0] ? astr(a, "rounding_method", "round_prefer_floor") : "round_prefer_floor");
  attr_float(x, n, "cubic_coeff_a", (float)afloat(a, "cubic_alpha", -0.75));
  attr_int(x, n, "exclude_outside", aint(a, "cubic_exclude", 0));
  attr_float(x, n, "extrapolation_value", (float)afloat(a, "extrapolation_value", 0));
  return PSG_OK;
}

/* The converters, one row per Relay op: its name, the ONNX op the
 * converter writes (for the converters shared by a family) and the
 * converter. */
static const export_op export_ops[] = {
    {"nn.relu", "Relu", conv_simple},
    {"sigmoid", "Sigmoid", conv_simple},
    {"sqrt", "Sqrt", conv_simple},
    {"log", "Log", conv_simple},
    {"negative", "Neg", conv_simple},
    {"exp", "Exp", conv_simple},
    {"tanh", "Tanh", conv_simple},
    {"abs", "Abs", conv_simple},
    {"add", "Add", conv_add},
    {"subtract", "Sub", conv_simple},
    {"multiply", "Mul", conv_simple},
    {"divide", "Div", conv_simple},
    {"power", "Pow", conv_simple},
    {"maximum", "Max", conv_simple},
    {"minimum", "Min", conv_simple},
    {"equal", "Equal", conv_simple},
    {"greater", "Greater", conv_simple},
    {"greater_equal", "GreaterOrEqual", conv_simple},
    {"less", "Less", conv_simple},
    {"copy", "Identity", conv_simple},
    {"nn.global_avg_pool2d", "GlobalAveragePool", conv_simple},
    {"clip", "Clip", conv_clip},
    {"nn.leaky_relu", "LeakyRelu", conv_leaky_relu},
    {"cast", "Cast", conv_cast},
    {"mean", "ReduceMean", conv_reduce},
    {"max", "ReduceMax", conv_reduce},
    {"min", "ReduceMin", conv_reduce},
    {"sum", "ReduceSum", conv_reduce},
    {"nn.softmax", "Softmax", conv_softmax},
    {"nn.conv2d", "Conv", conv_conv},
    {"nn.conv2d_transpose", "ConvTranspose", conv_conv},
    {"nn.bias_add", "Add", conv_bias_add},
    {"nn.dense", "Gemm", conv_dense},
    {"nn.batch_matmul", "MatMul", conv_matmul},
    {"nn.matmul", "MatMul", conv_matmul},
    {"nn.layer_norm", "LayerNormalization", conv_layer_norm},
    {"nn.batch_norm", "BatchNormalization", conv_batch_norm},
    {"nn.max_pool2d", "MaxPool", conv_pool},
    {"nn.avg_pool2d", "AveragePool", conv_pool},
    {"reshape", "Reshape", conv_reshape},
    {"nn.batch_flatten", "Reshape", conv_reshape},
    {"squeeze", "Reshape", conv_reshape},
    {"expand_dims", "Reshape", conv_reshape},
    {"broadcast_to", "Expand", conv_reshape},
    {"transpose", "Transpose", conv_transpose},
    {"concatenate", "Concat", conv_concat},
    {"strided_slice", "Slice", conv_strided_slice},
    {"reverse", "Slice", conv_reverse},
    {"take", "Gather", conv_take},
    {"split", "Split", conv_split},
    {"shape_of", "Shape", conv_shape_of},
    {"nn.pad", "Pad", conv_pad},
    {"image.resize2d", "Resize", conv_resize},
};

/* The row of `op`, from the map filled on first use in this export; NULL
 * (and x->oom when the map could not be filled) when there is none. */
static const export_op *find_export_op(onnxi_exporter *x, const char *op) {
  if (!x->convs.len)
    for (size_t i = 0; i < sizeof export_ops / sizeof *export_ops; i++) {
      psgi_map_entry *en = psgi_map_put_str(&x->convs, export_ops[i].relay, strlen(export_ops[i].relay), NULL);
      if (!en) {
        x->oom = true;
        psgi_map_fini(&x->convs);
        return NULL;
      }
      en->value = (void *)&export_ops[i];
    }
  psgi_map_entry *en = psgi_map_get_str(&x->convs, op, strlen(op));
  return en ? en->value : NULL;
}

/* A call of an op: its converter's nodes, the result checked and recorded. */
psg_status onnxi_ex_op_call(onnxi_exporter *x, const psg_expr *e, char ***out_names, size_t *nout) {
  call_in c = {.e = e, .op = psg_op_name(psg_call_get_callee(e)), .a = psg_call_get_attrs(e), .na = psg_call_num_args(e),
               .rt = psg_expr_checked_type(e), .out_names = out_names, .nout = nout};
  const export_op *row = find_export_op(x, c.op);
  if (!row) return x->oom ? PSG_ERR_NOMEM : onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "operator %s has no ONNX form here", c.op);
  if (!(c.in = onnxi_ex_arg_names(x, e))) return PSG_ERR_NOMEM;
  for (size_t i = 0; i < c.na; i++) {
    size_t k = 0;
    char **nm = onnxi_ex_get_names(x, psg_call_get_arg(e, i), &k);
    c.in[i] = nm && k == 1 ? nm[0] : NULL;
  }
  c.onnx = row->onnx;
  *nout = 1;
  psg_status st = row->fn(x, &c);
  if (st || c.named) return st;
  Onnx__NodeProto *n = c.n;
  if (!n) return x->oom ? PSG_ERR_NOMEM : onnxi_ex_fail(x, PSG_ERR_INTERNAL, "building %s", c.op);
  for (size_t i = 0; i < n->n_input; i++)
    if (!n->input[i]) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "%s: input %zu is not a tensor value", c.op, i);
  char **names = onnxi_ex_alloc(x, sizeof *names);
  if (!names) return PSG_ERR_NOMEM;
  names[0] = n->output[0];
  *out_names = names;
  onnxi_ex_map_put(x, &x->made, e, n);
  onnxi_ex_map_put(x, &x->mains, n, n);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}
