/* Passage — the compute definitions of image.resize2d and nn.upsampling
 * (TOPI's image/resize.py and nn/upsampling.py, as the reference kernel
 * src/ops/image.c reads them): nearest_neighbor, linear and cubic sampling
 * under the half_pixel, align_corners, asymmetric, pytorch_half_pixel,
 * tf_half_pixel_for_nn and tf_crop_and_resize coordinate modes, every
 * nearest rounding method; source indices clamped to the input; source
 * coordinates in float32. nn.upsampling is a resize with align_corners or
 * asymmetric coordinates. */
#include <math.h>
#include "te/te.h"

typedef struct resize_spec {
  const char *method; /* nearest_neighbor, linear, cubic */
  const char *mode;   /* the coordinate transformation mode */
  const char *rounding;
  double alpha;       /* cubic */
  bool exclude;       /* cubic: taps outside the image weigh 0 */
  double extrapolation, roi[4];
} resize_spec;

static psg_tir_expr *f32(psgi_te_builder *b, double v) { return psgi_te_const(b, PSG_DTYPE_FLOAT32, (float)v); }
static psg_tir_expr *add(psgi_te_builder *b, psg_tir_expr *x, psg_tir_expr *y) { return psgi_te_bin(b, PSG_TIR_ADD, x, y); }
static psg_tir_expr *sub(psgi_te_builder *b, psg_tir_expr *x, psg_tir_expr *y) { return psgi_te_bin(b, PSG_TIR_SUB, x, y); }
static psg_tir_expr *mul(psgi_te_builder *b, psg_tir_expr *x, psg_tir_expr *y) { return psgi_te_bin(b, PSG_TIR_MUL, x, y); }

/* The float32 source coordinate of output index x (topi's get_inx); for
 * tf_crop_and_resize, roi start and end of this dim. */
static psg_tir_expr *source_coord(psgi_te_builder *b, const char *mode, psg_tir_expr *x, int64_t in, int64_t out,
                                  float start, float end) {
  psg_tir_expr *fx = psgi_te_cast(b, PSG_DTYPE_FLOAT32, x);
  psg_tir_expr *scale = f32(b, (float)in / (float)out), *half = f32(b, 0.5);
  if (!strcmp(mode, "half_pixel") || (!strcmp(mode, "pytorch_half_pixel") && out > 1))
    return sub(b, mul(b, add(b, fx, half), scale), half);
  if (!strcmp(mode, "pytorch_half_pixel")) return f32(b, 0);
  if (!strcmp(mode, "align_corners")) return out > 1 ? mul(b, f32(b, (float)(in - 1) / (float)(out - 1)), fx) : f32(b, 0);
  if (!strcmp(mode, "asymmetric")) return mul(b, scale, fx);
  if (!strcmp(mode, "tf_half_pixel_for_nn")) return mul(b, add(b, fx, half), scale);
  if (!strcmp(mode, "tf_crop_and_resize")) {
    float n1 = (float)(in - 1);
    if (out <= 1) return f32(b, 0.5f * (start + end) * n1);
    psg_tir_expr *step = psgi_te_bin(b, PSG_TIR_DIV, mul(b, mul(b, fx, f32(b, end - start)), f32(b, n1)), f32(b, (float)(out - 1)));
    return add(b, f32(b, start * n1), step);
  }
  psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: resize coordinate_transformation_mode '%s'", mode);
  return NULL;
}

static psg_tir_expr *clampi(psgi_te_builder *b, psg_tir_expr *v, int64_t n) {
  return psgi_te_bin(b, PSG_TIR_MIN, psgi_te_bin(b, PSG_TIR_MAX, v, psgi_te_int(b, 0)), psgi_te_int(b, n - 1));
}

/* The nearest index of v, clamped. */
static psg_tir_expr *nearest(psgi_te_builder *b, const char *rounding, psg_tir_expr *v, int64_t n) {
  psg_tir_expr *r;
  if (!strcmp(rounding, "round")) r = psgi_te_math(b, "tir.nearbyint", v, NULL);
  else if (!strcmp(rounding, "floor")) r = psgi_te_math(b, "tir.floor", add(b, v, f32(b, 1e-5)), NULL);
  else if (!strcmp(rounding, "ceil")) r = psgi_te_math(b, "tir.ceil", sub(b, v, f32(b, 1e-5)), NULL);
  else if (!strcmp(rounding, "round_prefer_floor")) r = psgi_te_math(b, "tir.ceil", sub(b, v, f32(b, 0.5)), NULL);
  else r = psgi_te_math(b, "tir.floor", add(b, v, f32(b, 0.5)), NULL);
  return clampi(b, psgi_te_cast(b, PSG_DTYPE_INT32, r), n);
}

/* The four cubic weights of fraction t (Keys' kernel with coefficient a);
 * with exclude, the taps base-1+i outside [0, n) weigh 0 and the rest are
 * renormalized. */
static void cubic_weights(psgi_te_builder *b, const resize_spec *s, psg_tir_expr *t, psg_tir_expr *base, int64_t n,
                          psg_tir_expr **w) {
  double a = s->alpha;
  psg_tir_expr *t2 = mul(b, t, t), *t3 = mul(b, t2, t);
  w[0] = mul(b, f32(b, a), add(b, sub(b, t3, mul(b, f32(b, 2), t2)), t));
  w[1] = add(b, sub(b, mul(b, f32(b, a + 2), t3), mul(b, f32(b, a + 3), t2)), f32(b, 1));
  w[2] = sub(b, add(b, mul(b, f32(b, -(a + 2)), t3), mul(b, f32(b, 2 * a + 3), t2)), mul(b, f32(b, a), t));
  w[3] = add(b, mul(b, f32(b, -a), t3), mul(b, f32(b, a), t2));
  if (!s->exclude) return;
  psg_tir_expr *sum = NULL;
  for (int i = 0; i < 4; i++) {
    psg_tir_expr *tap = add(b, base, psgi_te_int(b, i - 1));
    psg_tir_expr *out = psgi_te_bin(b, PSG_TIR_OR, psgi_te_bin(b, PSG_TIR_LT, tap, psgi_te_int(b, 0)),
                                    psgi_te_bin(b, PSG_TIR_GE, tap, psgi_te_int(b, n)));
    w[i] = psgi_te_select(b, out, f32(b, 0), w[i]);
    sum = sum ? add(b, sum, w[i]) : w[i];
  }
  psg_tir_expr *nz = psgi_te_bin(b, PSG_TIR_NE, sum, f32(b, 0));
  for (int i = 0; i < 4; i++) w[i] = psgi_te_select(b, nz, psgi_te_bin(b, PSG_TIR_DIV, w[i], sum), w[i]);
}

/* One resize stage of x (layout axes h, w) to dims. */
static psg_status resize(psgi_te_call *c, const resize_spec *s, int h, int w, const char *name) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t H = x->shape[h], W = x->shape[w];
  bool crop = !strcmp(s->mode, "tf_crop_and_resize");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  memcpy(in, ax, sizeof in);
  psg_tir_expr *fy = source_coord(b, s->mode, ax[h], H, dims[h], (float)s->roi[0], (float)s->roi[2]);
  psg_tir_expr *fx = source_coord(b, s->mode, ax[w], W, dims[w], (float)s->roi[1], (float)s->roi[3]), *v;
  if (!strcmp(s->method, "nearest_neighbor")) {
    const char *rounding = crop ? "round" : s->rounding; /* TVM's crop-and-resize rounds half to even */
    in[h] = nearest(b, rounding, fy, H);
    in[w] = nearest(b, rounding, fx, W);
    v = psgi_te_load(b, x, in);
  } else if (!strcmp(s->method, "linear")) {
    psg_tir_expr *y0 = psgi_te_math(b, "tir.floor", fy, NULL), *x0 = psgi_te_math(b, "tir.floor", fx, NULL);
    psg_tir_expr *ty = sub(b, fy, y0), *tx = sub(b, fx, x0);
    psg_tir_expr *iy = psgi_te_cast(b, PSG_DTYPE_INT32, y0), *ix = psgi_te_cast(b, PSG_DTYPE_INT32, x0);
    psg_tir_expr *one = f32(b, 1), *px[2][2];
    for (int dy = 0; dy < 2; dy++)
      for (int dx = 0; dx < 2; dx++) {
        in[h] = clampi(b, add(b, iy, psgi_te_int(b, dy)), H);
        in[w] = clampi(b, add(b, ix, psgi_te_int(b, dx)), W);
        px[dy][dx] = psgi_te_cast(b, PSG_DTYPE_FLOAT32, psgi_te_load(b, x, in));
      }
    psg_tir_expr *top = add(b, mul(b, px[0][0], sub(b, one, tx)), mul(b, px[0][1], tx));
    psg_tir_expr *bot = add(b, mul(b, px[1][0], sub(b, one, tx)), mul(b, px[1][1], tx));
    v = add(b, mul(b, top, sub(b, one, ty)), mul(b, bot, ty));
  } else if (!strcmp(s->method, "cubic")) {
    psg_tir_expr *y0 = psgi_te_math(b, "tir.floor", fy, NULL), *x0 = psgi_te_math(b, "tir.floor", fx, NULL);
    psg_tir_expr *iy = psgi_te_cast(b, PSG_DTYPE_INT32, y0), *ix = psgi_te_cast(b, PSG_DTYPE_INT32, x0);
    psg_tir_expr *wy[4], *wx[4];
    cubic_weights(b, s, sub(b, fy, y0), iy, H, wy);
    cubic_weights(b, s, sub(b, fx, x0), ix, W, wx);
    v = NULL;
    for (int j = 0; j < 4; j++) {
      psg_tir_expr *row = NULL;
      in[h] = clampi(b, add(b, iy, psgi_te_int(b, j - 1)), H);
      for (int i = 0; i < 4; i++) {
        in[w] = clampi(b, add(b, ix, psgi_te_int(b, i - 1)), W);
        psg_tir_expr *p = mul(b, psgi_te_cast(b, PSG_DTYPE_FLOAT32, psgi_te_load(b, x, in)), wx[i]);
        row = row ? add(b, row, p) : p;
      }
      v = v ? add(b, v, mul(b, row, wy[j])) : mul(b, row, wy[j]);
    }
  } else {
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s method '%s'", c->op, s->method);
  }
  if (crop) {
    if (v && psg_tir_dtype_of((psg_tir_node *)v) != psgi_te_tir_dtype(PSG_DTYPE_FLOAT32)) v = psgi_te_cast(b, PSG_DTYPE_FLOAT32, v);
    psg_tir_expr *zero = f32(b, 0);
    psg_tir_expr *outside = psgi_te_bin(
        b, PSG_TIR_OR,
        psgi_te_bin(b, PSG_TIR_OR, psgi_te_bin(b, PSG_TIR_LT, fy, zero), psgi_te_bin(b, PSG_TIR_GT, fy, f32(b, (float)(H - 1)))),
        psgi_te_bin(b, PSG_TIR_OR, psgi_te_bin(b, PSG_TIR_LT, fx, zero), psgi_te_bin(b, PSG_TIR_GT, fx, f32(b, (float)(W - 1)))));
    v = psgi_te_select(b, outside, f32(b, s->extrapolation), v);
  }
  if (v && psg_tir_dtype_of((psg_tir_node *)v) != psgi_te_tir_dtype(dtype)) v = psgi_te_cast(b, dtype, v);
  c->outs[c->nouts++] = psgi_te_compute(b, name, dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* The H and W axes of a layout of rank nd, or false. */
static bool layout_hw(const char *layout, int nd, int *h, int *w) {
  const char *ph = strchr(layout, 'H'), *pw = strchr(layout, 'W');
  if ((int)strlen(layout) != nd || !ph || !pw) return false;
  *h = (int)(ph - layout), *w = (int)(pw - layout);
  return true;
}

PSGI_TE_COMPUTE(resize2d) {
  psgi_te_builder *b = c->b;
  resize_spec s = {.method = psgi_attr_str(c->attrs, "method", "linear"),
                   .mode = psgi_attr_str(c->attrs, "coordinate_transformation_mode", "half_pixel"),
                   .rounding = psgi_attr_str(c->attrs, "rounding_method", ""),
                   .alpha = psgi_attr_float(c->attrs, "cubic_alpha", -0.5),
                   .exclude = psgi_attr_int(c->attrs, "cubic_exclude", 0) != 0,
                   .extrapolation = psgi_attr_float(c->attrs, "extrapolation_value", 0)};
  if (!s.rounding[0]) s.rounding = !strcmp(s.mode, "align_corners") ? "round" : "floor";
  const char *layout = psgi_attr_str(c->attrs, "layout", "NCHW");
  int h, w;
  if (!layout_hw(layout, c->args[0]->ndim, &h, &w))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: image.resize2d in layout '%s'", layout);
  if (!strcmp(s.mode, "tf_crop_and_resize")) {
    psg_attr *roi = psg_attrs_get(c->attrs, "roi");
    if (!roi || psg_attr_kind(roi) != PSG_ATTR_LIST || psg_attr_list_len(roi) != 4)
      return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: image.resize2d tf_crop_and_resize without a roi");
    for (size_t i = 0; i < 4; i++) s.roi[i] = psg_attr_get_float(psg_attr_list_get(roi, i));
  }
  return resize(c, &s, h, w, "resize");
}

PSGI_TE_COMPUTE(upsampling) {
  psgi_te_builder *b = c->b;
  bool align = psgi_attr_bool(c->attrs, "align_corners", false);
  const char *method = psgi_attr_str(c->attrs, "method", "nearest_neighbor");
  resize_spec s = {.method = !strcmp(method, "bilinear") ? "linear" : !strcmp(method, "bicubic") ? "cubic" : method,
                   .mode = align ? "align_corners" : "asymmetric",
                   .rounding = align ? "round" : "floor",
                   .alpha = -0.5};
  const char *layout = psgi_attr_str(c->attrs, "layout", "NCHW");
  int h, w;
  if (!layout_hw(layout, c->args[0]->ndim, &h, &w))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.upsampling in layout '%s'", layout);
  return resize(c, &s, h, w, "resize");
}
