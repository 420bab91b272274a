/* Passage — the image op family: image.resize2d (TVM Resize2DRel and topi
 * _resize_2d, i.e. ONNX Resize as TVM maps it): nearest, linear and cubic
 * sampling under every coordinate transformation mode and nearest rounding
 * method. The computation is shared with nn.upsampling (spatial.h).
 * Source coordinates are computed in float32, as topi and ONNX Runtime do. */
#include <math.h>
#include "ops/spatial.h"

static const char *const coord_names[] = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                                          "tf_half_pixel_for_nn", "tf_crop_and_resize"};
static const char *const round_names[] = {"round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil"};
static const char *const method_names[] = {"nearest_neighbor", "linear", "cubic"};

static int name_index(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

/* The source coordinate of output index x (topi get_inx). */
static float source_coord(int coord, int64_t x, int64_t in, int64_t out, float start, float end) {
  float scale = (float)in / (float)out, fx = (float)x;
  switch (coord) {
  case PSGI_COORD_HALF_PIXEL: return (fx + 0.5f) * scale - 0.5f;
  /* TVM divides by out - 1 unguarded (NaN for one output); ONNX Runtime
   * samples index 0 then, and so do we. */
  case PSGI_COORD_ALIGN_CORNERS: return out > 1 ? (float)(in - 1) / (float)(out - 1) * fx : 0.0f;
  case PSGI_COORD_ASYMMETRIC: return scale * fx;
  case PSGI_COORD_PYTORCH_HALF_PIXEL: return out > 1 ? (fx + 0.5f) * scale - 0.5f : 0.0f;
  case PSGI_COORD_TF_HALF_PIXEL_FOR_NN: return (fx + 0.5f) * scale;
  default:
    return out > 1 ? start * (float)(in - 1) + fx * (end - start) * (float)(in - 1) / (float)(out - 1)
                   : 0.5f * (start + end) * (float)(in - 1);
  }
}

static int64_t nearest_index(int rounding, float v) {
  switch (rounding) {
  case PSGI_ROUND_ROUND: return (int64_t)nearbyintf(v);
  case PSGI_ROUND_FLOOR: return (int64_t)floorf(v + 1e-5f); /* topi's epsilon */
  case PSGI_ROUND_CEIL: return (int64_t)ceilf(v - 1e-5f);
  case PSGI_ROUND_PREFER_FLOOR: return (int64_t)ceilf(v - 0.5f);
  default: return (int64_t)floorf(v + 0.5f);
  }
}

static int64_t clampi(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void cubic_weights(double t, double a, double w[4]) {
  double t2 = t * t, t3 = t2 * t;
  w[0] = a * (t3 - 2 * t2 + t);
  w[1] = (a + 2) * t3 - (3 + a) * t2 + 1;
  w[2] = -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t;
  w[3] = -a * t3 + a * t2;
}

/* Cubic weights for the 4 taps at base-1..base+2; with exclude, taps outside
 * the image get 0 and the rest are renormalized. */
static void cubic_taps(const psgi_resize_spec *s, float v, int64_t n, int64_t *base, double w[4]) {
  float f = floorf(v);
  *base = (int64_t)f;
  cubic_weights((double)(v - f), s->cubic_alpha, w);
  if (!s->cubic_exclude) return;
  double sum = 0;
  for (int i = 0; i < 4; i++) {
    if (*base - 1 + i < 0 || *base + i > n) w[i] = 0;
    sum += w[i];
  }
  for (int i = 0; i < 4 && sum != 0; i++) w[i] /= sum;
}

void psgi_resize2d(const psgi_resize_spec *s, const psg_tensor *in, int h, int w, psg_tensor *out,
                   void *out_data) {
  int n = in->ndim;
  int64_t istr[PSG_MAX_RANK], idx[PSG_MAX_RANK] = {0}, base = 0;
  psgi_row_strides(in->shape, n, istr);
  int64_t H = in->shape[h], W = in->shape[w], OH = out->shape[h], OW = out->shape[w];
  int64_t numel = psgi_numel(out->shape, n);
  int dt = in->dtype;
  const void *d = in->data;
#define PIX(y, x) psgi_load_f(dt, d, (size_t)(base + clampi((y), H) * istr[h] + clampi((x), W) * istr[w]))
  for (int64_t oi = 0; oi < numel; oi++) {
    float fy = source_coord(s->coord, idx[h], H, OH, (float)s->roi[0], (float)s->roi[2]);
    float fx = source_coord(s->coord, idx[w], W, OW, (float)s->roi[1], (float)s->roi[3]);
    double v;
    if (s->method == PSGI_RESIZE_NEAREST) {
      /* TVM's crop-and-resize always rounds half to even. */
      int r = s->coord == PSGI_COORD_TF_CROP_AND_RESIZE ? PSGI_ROUND_ROUND : s->rounding;
      v = PIX(nearest_index(r, fy), nearest_index(r, fx));
    } else if (s->method == PSGI_RESIZE_LINEAR) {
      float y0 = floorf(fy), x0 = floorf(fx);
      double ty = fy - y0, tx = fx - x0;
      int64_t iy = (int64_t)y0, ix = (int64_t)x0;
      double top = PIX(iy, ix) * (1 - tx) + PIX(iy, ix + 1) * tx;
      double bottom = PIX(iy + 1, ix) * (1 - tx) + PIX(iy + 1, ix + 1) * tx;
      v = top * (1 - ty) + bottom * ty;
    } else {
      double wy[4], wx[4];
      int64_t by, bx;
      cubic_taps(s, fy, H, &by, wy);
      cubic_taps(s, fx, W, &bx, wx);
      v = 0;
      for (int j = 0; j < 4; j++) {
        double row = 0;
        for (int i = 0; i < 4; i++) row += PIX(by - 1 + j, bx - 1 + i) * wx[i];
        v += row * wy[j];
      }
    }
    if (s->coord == PSGI_COORD_TF_CROP_AND_RESIZE &&
        (fy < 0 || fy > (float)(H - 1) || fx < 0 || fx > (float)(W - 1)))
      v = s->extrapolation_value;
    psgi_store_f(out->dtype, out_data, (size_t)oi, v);
    for (int i = n - 1; i >= 0; i--) {
      bool hw = i == h || i == w;
      if (!hw) base += istr[i];
      if (++idx[i] < out->shape[i]) break;
      if (!hw) base -= istr[i] * out->shape[i];
      idx[i] = 0;
    }
  }
#undef PIX
}

/* Reads and checks the attributes into a spec (and the output dtype). */
static psg_status resize_spec(psgi_op_call *call, int ndim, psgi_resize_spec *s, int *h, int *w) {
  const char *layout = psgi_attr_str(call->attrs, "layout", "NCHW");
  psg_status st = psgi_layout_hw(call, layout, ndim, h, w);
  if (st) return st;
  const char *method = psgi_attr_str(call->attrs, "method", "linear");
  const char *coord = psgi_attr_str(call->attrs, "coordinate_transformation_mode", "half_pixel");
  const char *rounding = psgi_attr_str(call->attrs, "rounding_method", "");
  if ((s->method = name_index(method, method_names, 3)) < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: unknown method '%s'", method);
  if ((s->coord = name_index(coord, coord_names, 6)) < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: unknown coordinate_transformation_mode '%s'", coord);
  if (!rounding[0]) /* topi's default for nearest */
    s->rounding = s->coord == PSGI_COORD_ALIGN_CORNERS ? PSGI_ROUND_ROUND : PSGI_ROUND_FLOOR;
  else if ((s->rounding = name_index(rounding, round_names, 5)) < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: unknown rounding_method '%s'", rounding);
  s->cubic_alpha = psgi_attr_float(call->attrs, "cubic_alpha", -0.5);
  s->cubic_exclude = psgi_attr_int(call->attrs, "cubic_exclude", 0) != 0;
  s->extrapolation_value = psgi_attr_float(call->attrs, "extrapolation_value", 0);
  memset(s->roi, 0, sizeof s->roi);
  psg_attr *roi = call->attrs ? psg_attrs_get(call->attrs, "roi") : NULL;
  if (s->coord == PSGI_COORD_TF_CROP_AND_RESIZE) {
    /* roi (y1, x1, y2, x2), normalized; only this mode reads it, as TVM. */
    if (!roi || psg_attr_kind(roi) != PSG_ATTR_LIST || psg_attr_list_len(roi) != 4)
      return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: tf_crop_and_resize needs roi = 4 numbers");
    for (size_t i = 0; i < 4; i++) {
      psg_attr *it = psg_attr_list_get(roi, i);
      if (psg_attr_kind(it) != PSG_ATTR_FLOAT && psg_attr_kind(it) != PSG_ATTR_INT)
        return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: roi must hold numbers");
      s->roi[i] = psg_attr_get_float(it);
    }
  }
  return PSG_OK;
}

static psg_status resize_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  *out = NULL;
  if (nargs != 1) return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d takes 1 argument, %zu given", nargs);
  const psg_type *t;
  psgi_resize_spec s;
  int h, w;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &t);
  if (!st) st = resize_spec(call, t->n, &s, &h, &w);
  if (st) return st;
  int64_t size[2];
  if (psgi_attr_ints(call->attrs, "size", size, 2) != 2 || size[0] < 1 || size[1] < 1)
    return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: size must be 2 positive ints (height, width)");
  const char *od = psgi_attr_str(call->attrs, "out_dtype", "");
  int dtype = od[0] ? psg_dtype_from_name(od, strlen(od)) : t->dtype;
  if (dtype == PSG_DTYPE_INVALID)
    return psgi_op_fail(call, PSG_ERR_TYPE, "image.resize2d: unknown out_dtype '%s'", od);
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, t->dims, (size_t)t->n * sizeof *dims);
  dims[h] = size[0];
  dims[w] = size[1];
  return psgi_rel_make(call, dims, t->n, dtype, out);
}

static psg_status resize_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *in = psgi_value_as_tensor(args[0]);
  psgi_resize_spec s;
  int h, w;
  psg_status st = resize_spec(call, in->ndim, &s, &h, &w);
  if (st) return st;
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &o))) return st;
  psgi_resize2d(&s, in, h, w, t, o);
  return psgi_kernel_result(call, t, out);
}

const psgi_op_impl psgi_impls_image[] = {
    {"image.resize2d", resize_rel, resize_kernel, false, PSGI_PATTERN_INJECTIVE},
    {NULL, NULL, NULL, false, 0},
};
