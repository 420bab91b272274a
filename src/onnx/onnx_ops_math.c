/* Passage ONNX frontend — elementwise, reduction and softmax converters
 * (TVM's onnx.py: Clip by attribute before opset 11 and by inputs after;
 * HardSigmoid decomposed; Softmax flattening before opset 13). HardSwish is
 * imported as x * clip(x + 3, 0, 6) / 6, the form SimplifyExpr makes of its
 * variants and the export writes back as one HardSwish. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "onnx_ops.h"

static const char *relay_name(const char *onnx) {
  static const char *const map[][2] = {
      {"Relu", "nn.relu"},  {"Sigmoid", "sigmoid"}, {"Sqrt", "sqrt"},       {"Log", "log"},
      {"Neg", "negative"},  {"Exp", "exp"},         {"Tanh", "tanh"},       {"Abs", "abs"},
      {"Add", "add"},       {"Sub", "subtract"},    {"Mul", "multiply"},    {"Div", "divide"},
      {"Equal", "equal"},   {"Greater", "greater"}, {"GreaterOrEqual", "greater_equal"},
      {"Less", "less"},     {"Max", "maximum"},     {"Min", "minimum"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i][0], onnx)) return map[i][1];
  return NULL;
}

ONNX_CONV(unary) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  return st ? st : onnxi_unary(im, relay_name(n->op_type), ins[0], &outs[0]);
}

ONNX_CONV(binary) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (!st && onnxi_dtype(ins[0]) != onnxi_dtype(ins[1]))
    st = onnxi_fail(im, PSG_ERR_TYPE, "inputs have different element types (%s and %s)",
                    psg_dtype_name(onnxi_dtype(ins[0])), psg_dtype_name(onnxi_dtype(ins[1])));
  return st ? st : onnxi_binary(im, relay_name(n->op_type), ins[0], ins[1], &outs[0]);
}

ONNX_CONV(variadic) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  oval acc = *ins[0];
  psg_expr_retain(acc.e);
  for (size_t i = 1; i < nin && !st; i++) {
    if ((st = onnxi_need(im, ins, nin, i))) break;
    oval next = {0};
    st = onnxi_binary(im, relay_name(n->op_type), &acc, ins[i], &next);
    onnxi_val_release(&acc);
    acc = next;
  }
  if (st) onnxi_val_release(&acc);
  else outs[0] = acc;
  return st;
}

static psg_status clip(onnx_imp *im, const oval *x, double lo, double hi, oval *out) {
  /* Open bounds as the largest finite values (the text format has no inf). */
  if (lo < -DBL_MAX || lo < -FLT_MAX) lo = -FLT_MAX;
  if (hi > DBL_MAX || hi > FLT_MAX) hi = FLT_MAX;
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_float(&b, "a_min", lo);
  onnxi_ab_float(&b, "a_max", hi);
  psg_attrs *a = NULL;
  psg_status st = onnxi_ab_finish(&b, &a);
  if (!st) st = onnxi_call(im, "clip", x, 1, a, out);
  psg_attrs_release(a);
  return st;
}

/* min(max(x, lo), hi) with tensor bounds (not constant). */
static psg_status clamp_tensor(onnx_imp *im, const oval *x, const oval *lo, const oval *hi, oval *out) {
  oval cur = *x, tmp;
  psg_expr_retain(cur.e);
  psg_status st = PSG_OK;
  if (lo) {
    st = onnxi_binary(im, "maximum", &cur, lo, &tmp);
    onnxi_val_release(&cur);
    cur = tmp;
  }
  if (!st && hi) {
    st = onnxi_binary(im, "minimum", &cur, hi, &tmp);
    onnxi_val_release(&cur);
    cur = tmp;
  }
  if (st) onnxi_val_release(&cur);
  else *out = cur;
  return st;
}

ONNX_CONV(clip) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  double lo = -INFINITY, hi = INFINITY;
  if (im->opset < 11) {
    lo = onnxi_attr_float(n, "min", -INFINITY);
    hi = onnxi_attr_float(n, "max", INFINITY);
    return clip(im, ins[0], lo, hi, &outs[0]);
  }
  const oval *lov = nin > 1 ? ins[1] : NULL, *hiv = nin > 2 ? ins[2] : NULL;
  bool const_lo = !lov || psg_expr_kind(lov->e) == PSG_EXPR_CONSTANT;
  bool const_hi = !hiv || psg_expr_kind(hiv->e) == PSG_EXPR_CONSTANT;
  if (const_lo && const_hi && psg_dtype_is_float(onnxi_dtype(ins[0]))) {
    if (lov && (st = onnxi_const_double(im, lov, "min", &lo))) return st;
    if (hiv && (st = onnxi_const_double(im, hiv, "max", &hi))) return st;
    return clip(im, ins[0], lo, hi, &outs[0]);
  }
  return clamp_tensor(im, ins[0], lov, hiv, &outs[0]);
}

ONNX_CONV(hard_sigmoid) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int dt = onnxi_dtype(ins[0]);
  oval a = {0}, b = {0}, m = {0}, s = {0};
  st = onnxi_scalar(im, dt, onnxi_attr_float(n, "alpha", 0.2f), &a);
  if (!st) st = onnxi_scalar(im, dt, onnxi_attr_float(n, "beta", 0.5f), &b);
  if (!st) st = onnxi_binary(im, "multiply", ins[0], &a, &m);
  if (!st) st = onnxi_binary(im, "add", &m, &b, &s);
  if (!st) st = clip(im, &s, 0.0, 1.0, &outs[0]);
  onnxi_val_release(&a);
  onnxi_val_release(&b);
  onnxi_val_release(&m);
  onnxi_val_release(&s);
  return st;
}

ONNX_CONV(hard_swish) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  (void)n;
  int dt = onnxi_dtype(ins[0]);
  if (!psg_dtype_is_float(dt)) return onnxi_fail(im, PSG_ERR_TYPE, "HardSwish of %s", psg_dtype_name(dt));
  oval three = {0}, six = {0}, s = {0}, g = {0}, m = {0};
  st = onnxi_scalar(im, dt, 3, &three);
  if (!st) st = onnxi_scalar(im, dt, 6, &six);
  if (!st) st = onnxi_binary(im, "add", ins[0], &three, &s);
  if (!st) st = clip(im, &s, 0.0, 6.0, &g);
  if (!st) st = onnxi_binary(im, "multiply", ins[0], &g, &m);
  if (!st) st = onnxi_binary(im, "divide", &m, &six, &outs[0]);
  onnxi_val_release(&three);
  onnxi_val_release(&six);
  onnxi_val_release(&s);
  onnxi_val_release(&g);
  onnxi_val_release(&m);
  return st;
}

ONNX_CONV(leaky_relu) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_float(&b, "alpha", onnxi_attr_float(n, "alpha", 0.01f));
  psg_attrs *a = NULL;
  st = onnxi_ab_finish(&b, &a);
  if (!st) st = onnxi_call(im, "nn.leaky_relu", ins[0], 1, a, &outs[0]);
  psg_attrs_release(a);
  return st;
}

ONNX_CONV(pow) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (st) return st;
  if (onnxi_dtype(ins[0]) == onnxi_dtype(ins[1])) return onnxi_binary(im, "power", ins[0], ins[1], &outs[0]);
  oval e = {0};
  st = onnxi_cast(im, ins[1], onnxi_dtype(ins[0]), &e);
  if (!st) st = onnxi_binary(im, "power", ins[0], &e, &outs[0]);
  onnxi_val_release(&e);
  return st;
}

ONNX_CONV(identity) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  (void)n;
  outs[0] = *ins[0];
  psg_expr_retain(outs[0].e);
  return PSG_OK;
}

ONNX_CONV(cast) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int32_t to = (int32_t)onnxi_attr_int(n, "to", 0);
  int dt = onnxi_dtype_from_onnx(to);
  if (dt == PSG_DTYPE_INVALID) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "cast to %s is not supported", onnxi_onnx_type_name(to));
  return onnxi_cast(im, ins[0], dt, &outs[0]);
}

ONNX_CONV(reduce) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t axes[PSG_MAX_RANK];
  int na = onnxi_attr_ints(n, "axes", axes, PSG_MAX_RANK);
  if (nin > 1 && ins[1]) {
    if ((st = onnxi_const_ints(im, ins[1], "axes", axes, PSG_MAX_RANK, &na))) return st;
  }
  bool noop = onnxi_attr_int(n, "noop_with_empty_axes", 0) != 0;
  if (na <= 0 && noop) return onnxi_conv_identity(im, n, ins, nin, outs);
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  if (na > 0) onnxi_ab_ints(&b, "axis", axes, na);
  onnxi_ab_bool(&b, "keepdims", onnxi_attr_int(n, "keepdims", 1) != 0);
  psg_attrs *a = NULL;
  st = onnxi_ab_finish(&b, &a);
  if (!st) st = onnxi_call(im, !strcmp(n->op_type, "ReduceMean") ? "mean" : "max", ins[0], 1, a, &outs[0]);
  psg_attrs_release(a);
  return st;
}

static psg_status softmax_axis(onnx_imp *im, const oval *x, int64_t axis, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", axis);
  psg_attrs *a = NULL;
  psg_status st = onnxi_ab_finish(&b, &a);
  if (!st) st = onnxi_call(im, "nn.softmax", x, 1, a, out);
  psg_attrs_release(a);
  return st;
}

ONNX_CONV(softmax) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t axis = onnxi_attr_int(n, "axis", im->opset >= 13 ? -1 : 1);
  if (axis < -r || axis >= (r ? r : 1)) return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range for rank %d", (long long)axis, r);
  if (axis < 0) axis += r;
  if (im->opset >= 13 || axis == r - 1) return softmax_axis(im, ins[0], axis, &outs[0]);
  /* Before opset 13: softmax over the input flattened to 2-D at `axis`. */
  if (!onnxi_is_static(ins[0])) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Softmax before opset 13 needs a static input shape");
  int64_t rows = 1, cols = 1, orig[PSG_MAX_RANK];
  for (int i = 0; i < r; i++) {
    orig[i] = onnxi_dim(ins[0], i);
    if (i < axis) rows *= orig[i];
    else cols *= orig[i];
  }
  int64_t flat[2] = {rows, cols};
  oval f = {0}, s = {0};
  st = onnxi_reshape(im, ins[0], flat, 2, &f);
  if (!st) st = softmax_axis(im, &f, 1, &s);
  if (!st) st = onnxi_reshape(im, &s, orig, r, &outs[0]);
  onnxi_val_release(&f);
  onnxi_val_release(&s);
  return st;
}
