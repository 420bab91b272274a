/* Passage — the compute definition of image.resize2d (TOPI's
 * image/resize.py, as the reference kernel src/ops/image.c reads it):
 * nearest_neighbor and linear sampling under the half_pixel,
 * align_corners, asymmetric, pytorch_half_pixel and tf_half_pixel_for_nn
 * coordinate modes, every nearest rounding method; source indices clamped
 * to the input. Cubic sampling and tf_crop_and_resize have no compute. */
#include "te/te.h"

static psg_tir_expr *f32(psgi_te_builder *b, double v) { return psgi_te_const(b, PSG_DTYPE_FLOAT32, (float)v); }

/* The float32 source coordinate of output index x (topi's get_inx). */
static psg_tir_expr *source_coord(psgi_te_builder *b, const char *mode, psg_tir_expr *x, int64_t in, int64_t out) {
  psg_tir_expr *fx = psgi_te_cast(b, PSG_DTYPE_FLOAT32, x);
  psg_tir_expr *scale = f32(b, (float)in / (float)out), *half = f32(b, 0.5);
  if (!strcmp(mode, "half_pixel") || (!strcmp(mode, "pytorch_half_pixel") && out > 1))
    return psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_MUL, psgi_te_bin(b, PSG_TIR_ADD, fx, half), scale), half);
  if (!strcmp(mode, "pytorch_half_pixel")) return f32(b, 0);
  if (!strcmp(mode, "align_corners"))
    return out > 1 ? psgi_te_bin(b, PSG_TIR_MUL, f32(b, (float)(in - 1) / (float)(out - 1)), fx) : f32(b, 0);
  if (!strcmp(mode, "asymmetric")) return psgi_te_bin(b, PSG_TIR_MUL, scale, fx);
  if (!strcmp(mode, "tf_half_pixel_for_nn")) return psgi_te_bin(b, PSG_TIR_MUL, psgi_te_bin(b, PSG_TIR_ADD, fx, half), scale);
  psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: image.resize2d coordinate_transformation_mode '%s'", mode);
  return NULL;
}

static psg_tir_expr *clampi(psgi_te_builder *b, psg_tir_expr *v, int64_t n) {
  return psgi_te_bin(b, PSG_TIR_MIN, psgi_te_bin(b, PSG_TIR_MAX, v, psgi_te_int(b, 0)), psgi_te_int(b, n - 1));
}

/* The nearest index of v, clamped. */
static psg_tir_expr *nearest(psgi_te_builder *b, const char *rounding, psg_tir_expr *v, int64_t n) {
  psg_tir_expr *r;
  if (!strcmp(rounding, "round")) r = psgi_te_math(b, "tir.nearbyint", v, NULL);
  else if (!strcmp(rounding, "floor")) r = psgi_te_math(b, "tir.floor", psgi_te_bin(b, PSG_TIR_ADD, v, f32(b, 1e-5)), NULL);
  else if (!strcmp(rounding, "ceil")) r = psgi_te_math(b, "tir.ceil", psgi_te_bin(b, PSG_TIR_SUB, v, f32(b, 1e-5)), NULL);
  else if (!strcmp(rounding, "round_prefer_floor")) r = psgi_te_math(b, "tir.ceil", psgi_te_bin(b, PSG_TIR_SUB, v, f32(b, 0.5)), NULL);
  else r = psgi_te_math(b, "tir.floor", psgi_te_bin(b, PSG_TIR_ADD, v, f32(b, 0.5)), NULL);
  return clampi(b, psgi_te_cast(b, PSG_DTYPE_INT32, r), n);
}

PSGI_TE_COMPUTE(resize2d) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  const char *layout = psgi_attr_str(c->attrs, "layout", "NCHW");
  const char *method = psgi_attr_str(c->attrs, "method", "linear");
  const char *mode = psgi_attr_str(c->attrs, "coordinate_transformation_mode", "half_pixel");
  const char *rounding = psgi_attr_str(c->attrs, "rounding_method", "");
  if (!rounding[0]) rounding = !strcmp(mode, "align_corners") ? "round" : "floor";
  const char *ph = strchr(layout, 'H'), *pw = strchr(layout, 'W');
  if ((int)strlen(layout) != nd || !ph || !pw || (strcmp(method, "nearest_neighbor") && strcmp(method, "linear")))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: image.resize2d method '%s' in layout '%s'", method, layout);
  int h = (int)(ph - layout), w = (int)(pw - layout);
  int64_t H = x->shape[h], W = x->shape[w];
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  memcpy(in, ax, sizeof in);
  psg_tir_expr *fy = source_coord(b, mode, ax[h], H, dims[h]), *fx = source_coord(b, mode, ax[w], W, dims[w]), *v;
  if (!strcmp(method, "nearest_neighbor")) {
    in[h] = nearest(b, rounding, fy, H);
    in[w] = nearest(b, rounding, fx, W);
    v = psgi_te_load(b, x, in);
  } else {
    psg_tir_expr *y0 = psgi_te_math(b, "tir.floor", fy, NULL), *x0 = psgi_te_math(b, "tir.floor", fx, NULL);
    psg_tir_expr *ty = psgi_te_bin(b, PSG_TIR_SUB, fy, y0), *tx = psgi_te_bin(b, PSG_TIR_SUB, fx, x0);
    psg_tir_expr *iy = psgi_te_cast(b, PSG_DTYPE_INT32, y0), *ix = psgi_te_cast(b, PSG_DTYPE_INT32, x0);
    psg_tir_expr *one = f32(b, 1), *px[2][2];
    for (int dy = 0; dy < 2; dy++)
      for (int dx = 0; dx < 2; dx++) {
        in[h] = clampi(b, psgi_te_bin(b, PSG_TIR_ADD, iy, psgi_te_int(b, dy)), H);
        in[w] = clampi(b, psgi_te_bin(b, PSG_TIR_ADD, ix, psgi_te_int(b, dx)), W);
        px[dy][dx] = psgi_te_cast(b, PSG_DTYPE_FLOAT32, psgi_te_load(b, x, in));
      }
    psg_tir_expr *top = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, px[0][0], psgi_te_bin(b, PSG_TIR_SUB, one, tx)),
                                    psgi_te_bin(b, PSG_TIR_MUL, px[0][1], tx));
    psg_tir_expr *bot = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, px[1][0], psgi_te_bin(b, PSG_TIR_SUB, one, tx)),
                                    psgi_te_bin(b, PSG_TIR_MUL, px[1][1], tx));
    v = psgi_te_cast(b, dtype, psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, top, psgi_te_bin(b, PSG_TIR_SUB, one, ty)),
                                           psgi_te_bin(b, PSG_TIR_MUL, bot, ty)));
  }
  if (v && psg_tir_dtype_of((psg_tir_node *)v) != psgi_te_tir_dtype(dtype)) v = psgi_te_cast(b, dtype, v);
  c->outs[c->nouts++] = psgi_te_compute(b, "resize", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}
