/* Passage ONNX frontend — shape and data-movement converters: Reshape,
 * Flatten, Transpose, Squeeze/Unsqueeze (attribute and input forms), Concat,
 * Slice (attribute and input forms), Gather, Shape (a constant when static),
 * Constant, ConstantOfShape, Pad, Resize, Expand, Split. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "onnx_ops.h"

static psg_status finish_call(onnx_imp *im, const char *op, const oval *args, size_t nargs, onnx_ab *b, oval *out) {
  psg_attrs *a = NULL;
  psg_status st = onnxi_ab_finish(b, &a);
  if (!st) st = onnxi_call(im, op, args, nargs, a, out);
  psg_attrs_release(a);
  return st;
}

static psg_status int_tensor(onnx_imp *im, const int64_t *v, int n, bool scalar, oval *out) {
  psg_tensor *t = NULL;
  int64_t shape[1] = {n};
  psg_status st = psg_tensor_create(im->ctx, PSG_DTYPE_INT64, shape, scalar ? 0 : 1, v, &t);
  if (!st) st = onnxi_const_val(im, t, out);
  psg_tensor_release(t);
  return st;
}

ONNX_CONV(reshape) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t shape[PSG_MAX_RANK];
  int k;
  if (im->opset < 5 || nin < 2) {
    k = onnxi_attr_ints(n, "shape", shape, PSG_MAX_RANK);
    if (k < 0) return onnxi_fail(im, PSG_ERR_PARSE, "the shape is missing");
  } else if ((st = onnxi_need(im, ins, nin, 1)) || (st = onnxi_const_ints(im, ins[1], "the shape input", shape, PSG_MAX_RANK, &k))) {
    return st;
  }
  bool allowzero = onnxi_attr_int(n, "allowzero", 0) != 0;
  if (!allowzero) return onnxi_reshape(im, ins[0], shape, k, &outs[0]);
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "newshape", shape, k);
  onnxi_ab_bool(&b, "allowzero", true);
  return finish_call(im, "reshape", ins[0], 1, &b, &outs[0]);
}

ONNX_CONV(flatten) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t axis = onnxi_attr_int(n, "axis", 1);
  if (axis < -r || axis > r) return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range for rank %d", (long long)axis, r);
  if (axis < 0) axis += r;
  int64_t rows = 1;
  for (int i = 0; i < axis; i++) {
    int64_t d = onnxi_dim(ins[0], i);
    if (d < 0) {
      rows = -1;
      break;
    }
    rows *= d;
  }
  if (rows < 0) {
    if (axis == 1) return onnxi_unary(im, "nn.batch_flatten", ins[0], &outs[0]);
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Flatten at axis %lld needs static leading dims", (long long)axis);
  }
  int64_t shape[2] = {rows, -1};
  if (onnxi_is_static(ins[0])) {
    int64_t cols = 1;
    for (int i = (int)axis; i < r; i++) cols *= onnxi_dim(ins[0], i);
    shape[1] = cols;
  }
  return onnxi_reshape(im, ins[0], shape, 2, &outs[0]);
}

ONNX_CONV(transpose) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t perm[PSG_MAX_RANK];
  int k = onnxi_attr_ints(n, "perm", perm, PSG_MAX_RANK);
  int r = onnxi_rank(ins[0]);
  if (k < 0) {
    for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
    k = r;
  }
  if (k != r) return onnxi_fail(im, PSG_ERR_TYPE, "perm has %d values for rank %d", k, r);
  return onnxi_transpose(im, ins[0], perm, k, &outs[0]);
}

/* Axes from the attribute (before `input_opset`) or input 1. */
static psg_status get_axes(onnx_imp *im, const Onnx__NodeProto *n, const oval *const *ins, size_t nin, int64_t input_opset,
                           int64_t *axes, int *k) {
  if (im->opset < input_opset) {
    *k = onnxi_attr_ints(n, "axes", axes, PSG_MAX_RANK);
    return PSG_OK;
  }
  *k = -1;
  if (nin > 1 && ins[1]) return onnxi_const_ints(im, ins[1], "axes", axes, PSG_MAX_RANK, k);
  return PSG_OK;
}

ONNX_CONV(squeeze) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t axes[PSG_MAX_RANK];
  int k;
  if ((st = get_axes(im, n, ins, nin, 13, axes, &k))) return st;
  int r = onnxi_rank(ins[0]);
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  if (k >= 0) {
    for (int i = 0; i < k; i++) {
      if (axes[i] < -r || axes[i] >= r) return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range", (long long)axes[i]);
      if (axes[i] < 0) axes[i] += r;
    }
    onnxi_ab_ints(&b, "axis", axes, k);
  }
  return finish_call(im, "squeeze", ins[0], 1, &b, &outs[0]);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

ONNX_CONV(unsqueeze) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t axes[PSG_MAX_RANK];
  int k;
  if ((st = get_axes(im, n, ins, nin, 13, axes, &k))) return st;
  if (k < 0) return onnxi_fail(im, PSG_ERR_PARSE, "axes are required");
  int r = onnxi_rank(ins[0]), out_rank = r + k;
  if (out_rank > PSG_MAX_RANK) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "result rank %d is too large", out_rank);
  for (int i = 0; i < k; i++) {
    if (axes[i] < -out_rank || axes[i] >= out_rank) return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range", (long long)axes[i]);
    if (axes[i] < 0) axes[i] += out_rank;
  }
  qsort(axes, (size_t)k, sizeof axes[0], cmp_i64);
  oval cur = *ins[0];
  psg_expr_retain(cur.e);
  for (int i = 0; i < k && !st; i++) {
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_int(&b, "axis", axes[i]);
    onnxi_ab_int(&b, "num_newaxis", 1);
    oval nx = {0};
    st = finish_call(im, "expand_dims", &cur, 1, &b, &nx);
    onnxi_val_release(&cur);
    cur = nx;
  }
  if (st) onnxi_val_release(&cur);
  else outs[0] = cur;
  return st;
}

ONNX_CONV(concat) {
  if (nin == 0) return onnxi_fail(im, PSG_ERR_PARSE, "Concat needs inputs");
  for (size_t i = 0; i < nin; i++) {
    psg_status st = onnxi_need(im, ins, nin, i);
    if (st) return st;
  }
  int r = onnxi_rank(ins[0]);
  int64_t axis;
  psg_status st = onnxi_axis_attr(im, n, r, &axis);
  if (st) return st;
  oval *args = psgi_alloc(im->ctx, psgi_mul_size(nin, sizeof *args));
  if (!args) return PSG_ERR_NOMEM;
  for (size_t i = 0; i < nin; i++) args[i] = *ins[i];
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", axis);
  psg_attrs *a = NULL;
  st = onnxi_ab_finish(&b, &a);
  if (!st) st = onnxi_call_tuple(im, "concatenate", args, nin, a, &outs[0]);
  psg_attrs_release(a);
  psgi_free(im->ctx, args);
  return st;
}

ONNX_CONV(slice) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t starts[PSG_MAX_RANK], ends[PSG_MAX_RANK], axes[PSG_MAX_RANK], steps[PSG_MAX_RANK];
  int ns, ne, na = -1, nst = -1;
  if (im->opset < 10) {
    ns = onnxi_attr_ints(n, "starts", starts, PSG_MAX_RANK);
    ne = onnxi_attr_ints(n, "ends", ends, PSG_MAX_RANK);
    na = onnxi_attr_ints(n, "axes", axes, PSG_MAX_RANK);
  } else {
    if ((st = onnxi_need(im, ins, nin, 1)) || (st = onnxi_need(im, ins, nin, 2))) return st;
    if ((st = onnxi_const_ints(im, ins[1], "starts", starts, PSG_MAX_RANK, &ns))) return st;
    if ((st = onnxi_const_ints(im, ins[2], "ends", ends, PSG_MAX_RANK, &ne))) return st;
    if (nin > 3 && ins[3] && (st = onnxi_const_ints(im, ins[3], "axes", axes, PSG_MAX_RANK, &na))) return st;
    if (nin > 4 && ins[4] && (st = onnxi_const_ints(im, ins[4], "steps", steps, PSG_MAX_RANK, &nst))) return st;
  }
  int r = onnxi_rank(ins[0]);
  if (ns < 0 || ns != ne) return onnxi_fail(im, PSG_ERR_PARSE, "starts and ends must have the same length");
  if (na < 0) {
    na = ns;
    for (int i = 0; i < ns; i++) axes[i] = i;
  }
  if (nst < 0) {
    nst = ns;
    for (int i = 0; i < ns; i++) steps[i] = 1;
  }
  if (na != ns || nst != ns) return onnxi_fail(im, PSG_ERR_PARSE, "starts, ends, axes and steps must have the same length");
  /* Canonical per-axis [begin, end) with ONNX's clamping; negative steps
   * become a reverse followed by a positive-step slice. */
  int64_t b[PSG_MAX_RANK], e[PSG_MAX_RANK], s[PSG_MAX_RANK], ax[PSG_MAX_RANK];
  int64_t rev[PSG_MAX_RANK];
  int nrev = 0;
  for (int i = 0; i < ns; i++) {
    int64_t a = axes[i];
    if (a < -r || a >= r) return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range for rank %d", (long long)a, r);
    if (a < 0) a += r;
    int64_t d = onnxi_dim(ins[0], (int)a), st0 = starts[i], en = ends[i], sp = steps[i];
    if (sp == 0) return onnxi_fail(im, PSG_ERR_PARSE, "a step is 0");
    if (d < 0) {
      /* Unknown extent: only forward slices with non-negative bounds, which
       * strided_slice clamps to the extent itself. */
      if (sp < 0 || st0 < 0 || en < 0)
        return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "slicing axis %lld needs a static extent", (long long)a);
      if (en < st0) en = st0;
      b[i] = st0, e[i] = en, s[i] = sp, ax[i] = a;
      continue;
    }
    if (st0 < 0) st0 += d;
    if (en < 0) en += d;
    if (sp > 0) {
      st0 = st0 < 0 ? 0 : st0 > d ? d : st0;
      en = en < 0 ? 0 : en > d ? d : en;
    } else {
      st0 = st0 < 0 ? -1 : st0 > d - 1 ? d - 1 : st0;
      en = en < -1 ? -1 : en > d - 1 ? d - 1 : en;
      /* on the reversed axis, index i maps to d-1-i */
      st0 = d - 1 - st0;
      en = d - 1 - en;
      sp = -sp;
      rev[nrev++] = a;
    }
    if (en < st0) en = st0;
    b[i] = st0, e[i] = en, s[i] = sp, ax[i] = a;
  }
  oval cur = *ins[0];
  psg_expr_retain(cur.e);
  for (int i = 0; i < nrev && !st; i++) {
    onnx_ab ab;
    onnxi_ab_init(&ab, im->ctx);
    onnxi_ab_int(&ab, "axis", rev[i]);
    oval nx = {0};
    st = finish_call(im, "reverse", &cur, 1, &ab, &nx);
    onnxi_val_release(&cur);
    cur = nx;
  }
  if (!st) {
    onnx_ab ab;
    onnxi_ab_init(&ab, im->ctx);
    onnxi_ab_ints(&ab, "begin", b, ns);
    onnxi_ab_ints(&ab, "end", e, ns);
    onnxi_ab_ints(&ab, "strides", s, ns);
    onnxi_ab_ints(&ab, "axes", ax, ns);
    st = finish_call(im, "strided_slice", &cur, 1, &ab, &outs[0]);
  }
  onnxi_val_release(&cur);
  return st;
}

ONNX_CONV(gather) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t axis;
  if ((st = onnxi_axis_attr(im, n, r, &axis)) != PSG_OK) return st;
  /* ONNX allows indices in [-d, d): "wrap" maps the negative ones once. A
   * constant index outside that range is an error, not wrapped further. */
  int64_t d = onnxi_dim(ins[0], (int)axis);
  if (d >= 0 && psg_expr_kind(ins[1]->e) == PSG_EXPR_CONSTANT) {
    const psg_tensor *t = psg_constant_get_tensor(ins[1]->e);
    int dt = psg_tensor_dtype(t);
    const void *data = psg_tensor_data(t);
    int64_t cnt = psg_tensor_numel(t);
    for (int64_t i = 0; i < cnt && (dt == PSG_DTYPE_INT64 || dt == PSG_DTYPE_INT32); i++) {
      int64_t x = dt == PSG_DTYPE_INT64 ? ((const int64_t *)data)[i] : ((const int32_t *)data)[i];
      if (x < -d || x >= d)
        return onnxi_fail(im, PSG_ERR_TYPE, "index %lld is out of range for axis %lld of size %lld", (long long)x,
                          (long long)axis, (long long)d);
    }
  }
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", axis);
  onnxi_ab_str(&b, "mode", "wrap"); /* ONNX allows negative indices */
  oval args[2] = {*ins[0], *ins[1]};
  return finish_call(im, "take", args, 2, &b, &outs[0]);
}

ONNX_CONV(shape) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t start = onnxi_attr_int(n, "start", 0), end = onnxi_attr_int(n, "end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < start ? start : end > r ? r : end;
  bool known = true;
  int64_t dims[PSG_MAX_RANK];
  for (int64_t i = start; i < end; i++) {
    dims[i - start] = onnxi_dim(ins[0], (int)i);
    known &= dims[i - start] >= 0;
  }
  if (known) return int_tensor(im, dims, (int)(end - start), false, &outs[0]);
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_dtype(&b, "dtype", PSG_DTYPE_INT64);
  if (start == 0 && end == r) return finish_call(im, "shape_of", ins[0], 1, &b, &outs[0]);
  oval full = {0};
  st = finish_call(im, "shape_of", ins[0], 1, &b, &full);
  if (!st) {
    int64_t bb[1] = {start}, ee[1] = {end}, ss[1] = {1};
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "begin", bb, 1);
    onnxi_ab_ints(&b, "end", ee, 1);
    onnxi_ab_ints(&b, "strides", ss, 1);
    st = finish_call(im, "strided_slice", &full, 1, &b, &outs[0]);
  }
  onnxi_val_release(&full);
  return st;
}

ONNX_CONV(constant) {
  (void)ins, (void)nin;
  const Onnx__AttributeProto *a;
  psg_tensor *t = NULL;
  psg_status st;
  if ((a = onnxi_attr(n, "value"))) {
    if (!a->t) return onnxi_fail(im, PSG_ERR_PARSE, "attribute 'value' is not a tensor");
    st = onnxi_tensor_from_proto(im, a->t, "attribute 'value'", &t);
  } else if ((a = onnxi_attr(n, "value_float"))) {
    float v = a->f;
    st = psg_tensor_create(im->ctx, PSG_DTYPE_FLOAT32, NULL, 0, &v, &t);
  } else if ((a = onnxi_attr(n, "value_int"))) {
    int64_t v = a->i;
    st = psg_tensor_create(im->ctx, PSG_DTYPE_INT64, NULL, 0, &v, &t);
  } else if ((a = onnxi_attr(n, "value_floats"))) {
    int64_t len = (int64_t)a->n_floats;
    st = psg_tensor_create(im->ctx, PSG_DTYPE_FLOAT32, &len, 1, a->floats, &t);
  } else if ((a = onnxi_attr(n, "value_ints"))) {
    int64_t len = (int64_t)a->n_ints;
    st = psg_tensor_create(im->ctx, PSG_DTYPE_INT64, &len, 1, a->ints, &t);
  } else {
    return onnxi_fail(im, PSG_ERR_PARSE, "Constant has no value attribute");
  }
  if (!st) st = onnxi_const_val(im, t, &outs[0]);
  psg_tensor_release(t);
  return st;
}

ONNX_CONV(constant_of_shape) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int64_t shape[PSG_MAX_RANK];
  int k;
  if ((st = onnxi_const_ints(im, ins[0], "the shape input", shape, PSG_MAX_RANK, &k))) return st;
  const Onnx__AttributeProto *a = onnxi_attr(n, "value");
  psg_tensor *v = NULL;
  if (a && a->t) {
    st = onnxi_tensor_from_proto(im, a->t, "attribute 'value'", &v);
    if (!st && psg_tensor_numel(v) != 1) st = onnxi_fail(im, PSG_ERR_PARSE, "attribute 'value' must have one element");
  } else {
    float zero = 0;
    st = psg_tensor_create(im->ctx, PSG_DTYPE_FLOAT32, NULL, 0, &zero, &v);
  }
  /* The result is a constant: build it here (it is usually a shape helper),
   * unless it would be larger than the max_constant_bytes limit or have a dim
   * over ONNX_MAX_INIT_DIM: then it stays lazy, the value broadcast to the
   * shape (exported back as Expand). */
  psg_tensor *t = NULL;
  int64_t bytes = st ? 0 : (int64_t)psg_dtype_size(psg_tensor_dtype(v));
  for (int i = 0; i < k && !st; i++) {
    if (shape[i] < 0) st = onnxi_fail(im, PSG_ERR_TYPE, "negative dimension %lld", (long long)shape[i]);
    else if (shape[i] > ONNX_MAX_INIT_DIM || (bytes >= 0 && __builtin_mul_overflow(bytes, shape[i], &bytes))) bytes = -1;
  }
  if (!st && (bytes < 0 || bytes > im->max_constant_bytes)) {
    oval fill = {0};
    st = onnxi_const_val(im, v, &fill);
    if (!st) {
      onnx_ab b;
      onnxi_ab_init(&b, im->ctx);
      onnxi_ab_ints(&b, "shape", shape, k);
      st = finish_call(im, "broadcast_to", &fill, 1, &b, &outs[0]);
    }
    onnxi_val_release(&fill);
    psg_tensor_release(v);
    return st;
  }
  if (!st) st = psg_tensor_create(im->ctx, psg_tensor_dtype(v), shape, k, NULL, &t);
  if (!st) {
    size_t es = psg_dtype_size(psg_tensor_dtype(v));
    int64_t cnt = psg_tensor_numel(t);
    uint8_t *d = (uint8_t *)psg_tensor_data(t);
    for (int64_t i = 0; i < cnt; i++) memcpy(d + i * es, psg_tensor_data(v), es);
    st = onnxi_const_val(im, t, &outs[0]);
  }
  psg_tensor_release(t);
  psg_tensor_release(v);
  return st;
}

ONNX_CONV(pad) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t pads[PSG_MAX_RANK * 2];
  int k;
  double value = 0;
  if (im->opset < 11) {
    k = onnxi_attr_ints(n, "pads", pads, PSG_MAX_RANK * 2);
    value = onnxi_attr_float(n, "value", 0.0f);
  } else {
    if ((st = onnxi_need(im, ins, nin, 1))) return st;
    if ((st = onnxi_const_ints(im, ins[1], "pads", pads, PSG_MAX_RANK * 2, &k))) return st;
    if (nin > 3 && ins[3]) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "the 'axes' input is not supported");
  }
  if (k != 2 * r) return onnxi_fail(im, PSG_ERR_TYPE, "pads has %d values for rank %d", k, r);
  for (int i = 0; i < k; i++)
    if (pads[i] < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "negative pads are not supported");
  char buf[32];
  const char *mode = onnxi_attr_str(n, "mode", "constant", buf, sizeof buf);
  if (strcmp(mode, "constant") && strcmp(mode, "edge") && strcmp(mode, "reflect"))
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "mode '%s' is not supported", mode);
  oval pv = {0};
  if (im->opset >= 11 && nin > 2 && ins[2]) {
    pv = *ins[2];
    psg_expr_retain(pv.e);
    if (onnxi_rank(&pv) > 0) {
      oval sc = {0};
      st = onnxi_reshape(im, &pv, NULL, 0, &sc);
      onnxi_val_release(&pv);
      pv = sc;
    }
  } else {
    st = onnxi_scalar(im, onnxi_dtype(ins[0]), value, &pv);
  }
  if (!st) {
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_int_pairs(&b, "pad_width", pads, pads + r, r);
    onnxi_ab_str(&b, "pad_mode", mode);
    oval args[2] = {*ins[0], pv};
    st = finish_call(im, "nn.pad", args, 2, &b, &outs[0]);
  }
  onnxi_val_release(&pv);
  return st;
}

ONNX_CONV(resize) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st && onnxi_rank(ins[0]) != 4)
    st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Resize of rank %d is not supported (only 4-D, NCHW)", onnxi_rank(ins[0]));
  if (st) return st;
  char mbuf[32], cbuf[40], nbuf[40];
  const char *mode = onnxi_attr_str(n, "mode", "nearest", mbuf, sizeof mbuf);
  const char *ctm = onnxi_attr_str(n, "coordinate_transformation_mode", im->opset < 11 ? "asymmetric" : "half_pixel", cbuf, sizeof cbuf);
  const char *nm = onnxi_attr_str(n, "nearest_mode", im->opset < 11 ? "floor" : "round_prefer_floor", nbuf, sizeof nbuf);
  const char *method = !strcmp(mode, "nearest") ? "nearest_neighbor" : !strcmp(mode, "linear") ? "linear" : !strcmp(mode, "cubic") ? "cubic" : NULL;
  if (!method) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "mode '%s' is not supported", mode);
  const oval *scales = NULL, *sizes = NULL, *roi = NULL;
  if (im->opset < 11) {
    scales = nin > 1 ? ins[1] : NULL;
  } else {
    roi = nin > 1 ? ins[1] : NULL;
    scales = nin > 2 ? ins[2] : NULL;
    sizes = nin > 3 ? ins[3] : NULL;
  }
  int64_t size[4];
  double roi_v[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  if (roi && !strcmp(ctm, "tf_crop_and_resize")) {
    psg_tensor *t = NULL;
    if ((st = onnxi_const_tensor(im, roi, "roi", &t))) return st;
    if (psg_tensor_numel(t) != 8 || psg_tensor_dtype(t) != PSG_DTYPE_FLOAT32) st = onnxi_fail(im, PSG_ERR_TYPE, "roi must be 8 float32 values");
    for (int i = 0; !st && i < 8; i++) roi_v[i] = ((const float *)psg_tensor_data(t))[i];
    psg_tensor_release(t);
    if (st) return st;
  }
  if (sizes && !(psg_expr_kind(sizes->e) == PSG_EXPR_CONSTANT && psg_tensor_numel(psg_constant_get_tensor(sizes->e)) == 0)) {
    int k;
    if ((st = onnxi_const_ints(im, sizes, "sizes", size, 4, &k))) return st;
    if (k != 4) return onnxi_fail(im, PSG_ERR_TYPE, "sizes must have 4 values");
  } else if (scales) {
    psg_tensor *t = NULL;
    if ((st = onnxi_const_tensor(im, scales, "scales", &t))) return st;
    if (psg_tensor_numel(t) != 4 || psg_tensor_dtype(t) != PSG_DTYPE_FLOAT32) st = onnxi_fail(im, PSG_ERR_TYPE, "scales must be 4 float32 values");
    for (int i = 0; !st && i < 4; i++) {
      int64_t d = onnxi_dim(ins[0], i);
      if (d < 0) st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Resize by scales needs static dims");
      else {
        /* A scale that is NaN, negative or huge has no integer size (and
         * converting it would be undefined). */
        double sz = floor((double)d * ((const float *)psg_tensor_data(t))[i]);
        if (!(sz >= 0 && sz < 9223372036854775808.0))
          st = onnxi_fail(im, PSG_ERR_TYPE, "scale %g of dim %d gives no valid size",
                          (double)((const float *)psg_tensor_data(t))[i], i);
        else size[i] = (int64_t)sz;
      }
    }
    psg_tensor_release(t);
    if (st) return st;
  } else {
    return onnxi_fail(im, PSG_ERR_PARSE, "Resize needs scales or sizes");
  }
  if (size[0] != onnxi_dim(ins[0], 0) || size[1] != onnxi_dim(ins[0], 1))
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "resizing the batch or channel dimension is not supported");
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  double roi4[4] = {roi_v[2], roi_v[3], roi_v[6], roi_v[7]};
  onnxi_ab_floats(&b, "roi", roi4, 4);
  onnxi_ab_ints(&b, "size", size + 2, 2);
  onnxi_ab_str(&b, "layout", "NCHW");
  onnxi_ab_str(&b, "method", method);
  onnxi_ab_str(&b, "coordinate_transformation_mode", ctm);
  onnxi_ab_str(&b, "rounding_method", nm);
  onnxi_ab_float(&b, "cubic_alpha", onnxi_attr_float(n, "cubic_coeff_a", -0.75f));
  onnxi_ab_int(&b, "cubic_exclude", onnxi_attr_int(n, "exclude_outside", 0));
  onnxi_ab_float(&b, "extrapolation_value", onnxi_attr_float(n, "extrapolation_value", 0.0f));
  return finish_call(im, "image.resize2d", ins[0], 1, &b, &outs[0]);
}

ONNX_CONV(expand) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (st) return st;
  int64_t shape[PSG_MAX_RANK], out[PSG_MAX_RANK];
  int k, r = onnxi_rank(ins[0]);
  if ((st = onnxi_const_ints(im, ins[1], "the shape input", shape, PSG_MAX_RANK, &k))) return st;
  /* Expand broadcasts both ways: the result is broadcast(input shape, shape). */
  int nr = k > r ? k : r;
  for (int i = 0; i < nr; i++) {
    int ia = i - (nr - r), ib = i - (nr - k);
    int64_t a = ia >= 0 ? onnxi_dim(ins[0], ia) : 1, b = ib >= 0 ? shape[ib] : 1;
    if (a < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Expand needs a static input shape");
    if (a != b && a != 1 && b != 1)
      return onnxi_fail(im, PSG_ERR_TYPE, "cannot broadcast dim %lld to %lld", (long long)a, (long long)b);
    out[i] = a == 1 ? b : a;
  }
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "shape", out, nr);
  return finish_call(im, "broadcast_to", ins[0], 1, &b, &outs[0]);
}

/* Split: the part sizes come from the `split` input (opset 13+) or
 * attribute, else the axis is cut into as many equal parts as the node has
 * outputs (opset 18: the last part may be smaller). The result is Relay's
 * split at the cumulative points, one tuple field per output. */
ONNX_CONV(split) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t axis;
  if ((st = onnxi_axis_attr(im, n, r, &axis)) != PSG_OK) return st;
  int64_t d = onnxi_dim(ins[0], (int)axis);
  size_t nout = n->n_output;
  if (nout == 0) return onnxi_fail(im, PSG_ERR_PARSE, "Split has no outputs");
  if (nout > 65535) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Split into %zu outputs (at most 65535)", nout);
  if (d < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "Split needs a static size of axis %lld", (long long)axis);
  int64_t *sizes = psgi_alloc(im->ctx, psgi_mul_size(nout, sizeof *sizes));
  if (!sizes) return PSG_ERR_NOMEM;
  int k = -1;
  const Onnx__AttributeProto *num = onnxi_attr(n, "num_outputs");
  if (im->opset >= 13 && nin > 1 && ins[1]) {
    st = onnxi_const_ints(im, ins[1], "the split input", sizes, (int)nout, &k);
  } else if (onnxi_attr(n, "split")) {
    k = onnxi_attr_ints(n, "split", sizes, (int)nout); /* nout + 1 when longer */
  }
  if (!st && k >= 0) {
    /* Explicit sizes: one per output, non-negative, adding up to the axis. */
    int64_t sum = 0;
    if ((size_t)k != nout)
      st = onnxi_fail(im, PSG_ERR_TYPE, "split gives %s%d sizes for %zu outputs", (size_t)k > nout ? "more than " : "",
                      (size_t)k > nout ? (int)nout : k, nout);
    for (size_t i = 0; !st && i < nout; i++) {
      if (sizes[i] < 0 || sizes[i] > d - sum)
        st = onnxi_fail(im, PSG_ERR_TYPE, "split sizes do not add up to the size %lld of axis %lld", (long long)d,
                        (long long)axis);
      else sum += sizes[i];
    }
    if (!st && sum != d)
      st = onnxi_fail(im, PSG_ERR_TYPE, "split sizes add up to %lld, not to the size %lld of axis %lld", (long long)sum,
                      (long long)d, (long long)axis);
  } else if (!st) {
    if (num && num->i != (int64_t)nout)
      st = onnxi_fail(im, PSG_ERR_TYPE, "num_outputs is %lld but the node has %zu outputs", (long long)num->i, nout);
    else if ((int64_t)nout > d)
      st = onnxi_fail(im, PSG_ERR_TYPE, "cannot split axis %lld of size %lld into %zu non-empty parts", (long long)axis,
                      (long long)d, nout);
    else if (im->opset < 18 && d % (int64_t)nout)
      st = onnxi_fail(im, PSG_ERR_TYPE, "cannot split axis %lld of size %lld into %zu equal parts", (long long)axis,
                      (long long)d, nout);
    /* opset 18: ceil, the last takes the rest (not (d + nout - 1) / nout, which overflows near INT64_MAX) */
    int64_t part = d / (int64_t)nout + (d % (int64_t)nout != 0);
    for (size_t i = 0; !st && i < nout; i++) {
      int64_t left = d - part * (int64_t)i;
      sizes[i] = left < part ? (left < 0 ? 0 : left) : part;
    }
  }
  /* Relay's split wants strictly ascending points: with an empty part, each
   * output is a strided_slice of its own. */
  bool empty = false;
  for (size_t i = 0; !st && i < nout; i++) empty |= sizes[i] == 0;
  for (size_t i = 0, at = 0; !st && empty && i < nout; at += (size_t)sizes[i], i++) {
    int64_t b0[1] = {(int64_t)at}, e0[1] = {(int64_t)at + sizes[i]}, s0[1] = {1}, a0[1] = {axis};
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "begin", b0, 1);
    onnxi_ab_ints(&b, "end", e0, 1);
    onnxi_ab_ints(&b, "strides", s0, 1);
    onnxi_ab_ints(&b, "axes", a0, 1);
    st = finish_call(im, "strided_slice", ins[0], 1, &b, &outs[i]);
  }
  if (empty) {
    psgi_free(im->ctx, sizes);
    return st;
  }
  /* The cumulative points (sizes overwritten in place), one fewer than parts. */
  int64_t at = 0;
  for (size_t i = 0; !st && i + 1 < nout; i++) {
    at += sizes[i];
    sizes[i] = at;
  }
  oval tup = {0};
  if (!st) {
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "indices_or_sections", sizes, (int)nout - 1);
    onnxi_ab_int(&b, "axis", axis);
    st = finish_call(im, "split", ins[0], 1, &b, &tup);
  }
  for (size_t i = 0; !st && i < nout; i++) st = onnxi_get_item(im, &tup, (int)i, &outs[i]);
  onnxi_val_release(&tup);
  psgi_free(im->ctx, sizes);
  return st;
}
