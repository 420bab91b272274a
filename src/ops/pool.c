/* Passage — the pooling and spatial-rearrangement op family (TVM
 * src/relay/op/nn/pooling.cc, upsampling.cc, nn.cc): max/avg pool2d with
 * Pool2DRel's padding, dilation and ceil_mode rules, global and adaptive
 * pools, nn.upsampling (through the image.resize2d computation), and
 * nn.depth_to_space / nn.space_to_depth. Any layout with unsplit H and W. */
#include <math.h>
#include "ops/spatial.h"

static const char *opname(const psgi_op_call *call) { return psgi_op_table[call->op].name; }

static psg_status data_arg(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **t) {
  *t = NULL;
  if (nargs != 1) return psgi_op_fail(call, PSG_ERR_TYPE, "%s takes 1 argument, %zu given", opname(call), nargs);
  return psgi_rel_tensor_arg(call, args, 0, t);
}

/* H and W of the `layout` attr; out_layout, when set, must be the same (no
 * layout conversion in the reference kernels). */
static psg_status layout_hw(psgi_op_call *call, int ndim, int *h, int *w) {
  const char *layout = psgi_attr_str(call->attrs, "layout", "NCHW");
  const char *out_layout = psgi_attr_str(call->attrs, "out_layout", "");
  if (out_layout[0] && strcmp(out_layout, layout))
    return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "%s: out_layout '%s' differs from layout '%s'", opname(call),
                        out_layout, layout);
  if (ndim < 2)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the data must have rank >= 2 (height and width), not %d",
                        opname(call), ndim);
  return psgi_layout_hw(call, layout, ndim, h, w);
}

/* max_pool2d / avg_pool2d --------------------------------------------------- */

typedef struct pool_params {
  int h, w;
  int64_t k[2], s[2], d[2];
  int64_t pad[4]; /* top, left, bottom, right */
  bool ceil_mode, count_include_pad;
} pool_params;

/* An attr of 1 or 2 ints (an int means both), `dflt` when absent. */
static psg_status pair_attr(psgi_op_call *call, const char *key, int64_t dflt, int64_t lo, int64_t *out) {
  int64_t v[2];
  int n = psgi_attr_ints(call->attrs, key, v, 2);
  if (n == 0) v[0] = v[1] = dflt;
  else if (n == 1) v[1] = v[0];
  else if (n != 2)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s must be 1 or 2 ints", opname(call), key);
  for (int i = 0; i < 2; i++) {
    if (v[i] < lo)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s must be >= %lld, not %lld", opname(call), key,
                          (long long)lo, (long long)v[i]);
    out[i] = v[i];
  }
  return PSG_OK;
}

static psg_status pool_params_read(psgi_op_call *call, int ndim, pool_params *p) {
  psg_status st = layout_hw(call, ndim, &p->h, &p->w);
  if (st) return st;
  /* An absent pool_size is TVM's Python default, (1, 1). */
  if ((st = pair_attr(call, "pool_size", 1, 1, p->k)) || (st = pair_attr(call, "strides", 1, 1, p->s)) ||
      (st = pair_attr(call, "dilation", 1, 1, p->d)))
    return st;
  int64_t v[4];
  int n = psgi_attr_ints(call->attrs, "padding", v, 4);
  /* TVM's get_pad_tuple2d: one int for all sides, (h, w), or (top, left,
   * bottom, right). */
  switch (n) {
  case 0: v[0] = v[1] = v[2] = v[3] = 0; break;
  case 1: v[1] = v[2] = v[3] = v[0]; break;
  case 2: v[2] = v[0], v[3] = v[1]; break;
  case 4: break;
  default: return psgi_op_fail(call, PSG_ERR_TYPE, "%s: padding must be 1, 2 or 4 ints", opname(call));
  }
  for (int i = 0; i < 4; i++) {
    if (v[i] < 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: padding must not be negative", opname(call));
    p->pad[i] = v[i];
  }
  p->ceil_mode = psgi_attr_bool(call->attrs, "ceil_mode", false);
  p->count_include_pad = psgi_attr_bool(call->attrs, "count_include_pad", false);
  return PSG_OK;
}

/* calculate_pool_dimension: (in + pad - ((k - 1) * d + 1) [+ s - 1]) / s + 1. */
static psg_status pool_extent(psgi_op_call *call, const pool_params *p, int i, int64_t in, int64_t *out) {
  if (in == PSG_DIM_UNKNOWN) return *out = in, PSG_OK;
  /* Attributes are user data: every step is checked (issue 14). */
  int64_t win, padded, num;
  if (!psgi_checked_mul(p->k[i] - 1, p->d[i], &win) || !psgi_checked_add(win, 1, &win) ||
      !psgi_checked_add(in, p->pad[i], &padded) || !psgi_checked_add(padded, p->pad[i + 2], &padded) ||
      (num = padded - win, p->ceil_mode && !psgi_checked_add(num, p->s[i] - 1, &num)))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the output %s overflows int64", opname(call),
                        i ? "width" : "height");
  if (padded < win)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the pooling window (%lld) is larger than the padded %s (%lld)",
                        opname(call), (long long)win, i ? "width" : "height", (long long)padded);
  *out = num / p->s[i] + 1;
  return PSG_OK;
}

static psg_status pool_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  pool_params p;
  psg_status st = data_arg(call, args, nargs, &t);
  if (!st) st = pool_params_read(call, t->n, &p);
  if (st) return st;
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, t->dims, (size_t)t->n * sizeof *dims);
  if ((st = pool_extent(call, &p, 0, t->dims[p.h], &dims[p.h])) ||
      (st = pool_extent(call, &p, 1, t->dims[p.w], &dims[p.w])))
    return st;
  return psgi_rel_make(call, dims, t->n, t->dtype, out);
}

/* Walks the output in row-major order keeping the offset, in the input, of
 * the element with the same index on every axis but H and W (which are 0). */
typedef struct plane_walk {
  int n;
  int64_t idx[PSG_MAX_RANK], odims[PSG_MAX_RANK], istride[PSG_MAX_RANK];
  int64_t base;
} plane_walk;

static void plane_init(plane_walk *pw, const psg_tensor *in, const psg_type *out) {
  pw->n = in->ndim;
  pw->base = 0;
  memset(pw->idx, 0, sizeof pw->idx);
  memcpy(pw->odims, out->dims, (size_t)out->n * sizeof *out->dims);
  psgi_row_strides(in->shape, in->ndim, pw->istride);
}

static void plane_next(plane_walk *pw, int h, int w) {
  for (int i = pw->n - 1; i >= 0; i--) {
    bool hw = i == h || i == w;
    if (!hw) pw->base += pw->istride[i];
    if (++pw->idx[i] < pw->odims[i]) return;
    if (!hw) pw->base -= pw->istride[i] * pw->odims[i];
    pw->idx[i] = 0;
  }
}

static psg_status pool_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                              psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *in = psgi_value_as_tensor(args[0]);
  pool_params p;
  psg_status st = pool_params_read(call, in->ndim, &p);
  if (st) return st;
  bool is_max = !strcmp(opname(call), "nn.max_pool2d");
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &o))) return st;
  plane_walk pw;
  plane_init(&pw, in, out_type);
  int64_t H = in->shape[p.h], W = in->shape[p.w], sh = pw.istride[p.h], sw = pw.istride[p.w];
  int64_t numel = psgi_numel(out_type->dims, out_type->n);
  double lowest = psgi_dtype_lowest(in->dtype);
  for (int64_t oi = 0; oi < numel; oi++, plane_next(&pw, p.h, p.w)) {
    int64_t y0 = pw.idx[p.h] * p.s[0] - p.pad[0], x0 = pw.idx[p.w] * p.s[1] - p.pad[1];
    double acc = is_max ? lowest : 0; /* max pooling pads with the dtype's lowest value, as topi */
    int64_t valid = 0;
    for (int64_t ky = 0; ky < p.k[0]; ky++) {
      int64_t y = y0 + ky * p.d[0];
      if (y < 0 || y >= H) continue;
      for (int64_t kx = 0; kx < p.k[1]; kx++) {
        int64_t x = x0 + kx * p.d[1];
        if (x < 0 || x >= W) continue;
        double v = psgi_load_f(in->dtype, in->data, (size_t)(pw.base + y * sh + x * sw));
        if (!is_max) acc += v;
        else if (v > acc || isnan(v)) acc = isnan(acc) ? acc : v;
        valid++;
      }
    }
    if (!is_max) {
      int64_t count = valid;
      if (p.count_include_pad) {
        /* topi: the window clipped to the explicitly padded extent (the extra
         * ceil_mode padding does not count), in dilation steps. */
        int64_t y1 = y0 + (p.k[0] - 1) * p.d[0], x1 = x0 + (p.k[1] - 1) * p.d[1];
        if (y1 > H + p.pad[2] - 1) y1 = H + p.pad[2] - 1;
        if (x1 > W + p.pad[3] - 1) x1 = W + p.pad[3] - 1;
        count = ((y1 - y0) / p.d[0] + 1) * ((x1 - x0) / p.d[1] + 1);
      }
      acc /= (double)(count > 0 ? count : 1);
    }
    psgi_store_f(out_type->dtype, o, (size_t)oi, acc);
  }
  return psgi_kernel_result(call, t, out);
}

/* Global and adaptive pools ---------------------------------------------------- */

static psg_status adaptive_size(psgi_op_call *call, const psg_type *t, int h, int w, int64_t *oh, int64_t *ow) {
  if (!strcmp(opname(call), "nn.adaptive_avg_pool2d")) {
    int64_t v[2];
    int n = psgi_attr_ints(call->attrs, "output_size", v, 2);
    if (n < 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.adaptive_avg_pool2d: output_size must have 2 elements or less");
    *oh = n == 0 ? t->dims[h] : v[0];
    *ow = n == 0 ? t->dims[w] : n == 1 ? v[0] : v[1];
    if ((n && *oh <= 0) || (n && *ow <= 0))
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.adaptive_avg_pool2d: output_size must be positive");
  } else {
    *oh = *ow = 1;
  }
  return PSG_OK;
}

static psg_status global_pool_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                  const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  int h, w;
  psg_status st = data_arg(call, args, nargs, &t);
  if (!st) st = layout_hw(call, t->n, &h, &w);
  if (st) return st;
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, t->dims, (size_t)t->n * sizeof *dims);
  if ((st = adaptive_size(call, t, h, w, &dims[h], &dims[w]))) return st;
  return psgi_rel_make(call, dims, t->n, t->dtype, out);
}

/* Global pools are adaptive pools to 1x1; window i of n over an extent of
 * `in` is [floor(i * in / n), ceil((i + 1) * in / n)). */
static psg_status global_pool_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                     const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *in = psgi_value_as_tensor(args[0]);
  int h, w;
  psg_status st = layout_hw(call, in->ndim, &h, &w);
  if (st) return st;
  bool is_max = !strcmp(opname(call), "nn.global_max_pool2d");
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &o))) return st;
  plane_walk pw;
  plane_init(&pw, in, out_type);
  int64_t H = in->shape[h], W = in->shape[w], OH = out_type->dims[h], OW = out_type->dims[w];
  int64_t numel = psgi_numel(out_type->dims, out_type->n);
  for (int64_t oi = 0; oi < numel; oi++, plane_next(&pw, h, w)) {
    int64_t oy = pw.idx[h], ox = pw.idx[w];
    int64_t y0 = oy * H / OH, y1 = ((oy + 1) * H + OH - 1) / OH;
    int64_t x0 = ox * W / OW, x1 = ((ox + 1) * W + OW - 1) / OW;
    double acc = is_max ? psgi_dtype_lowest(in->dtype) : 0;
    for (int64_t y = y0; y < y1; y++)
      for (int64_t x = x0; x < x1; x++) {
        double v = psgi_load_f(in->dtype, in->data, (size_t)(pw.base + y * pw.istride[h] + x * pw.istride[w]));
        if (!is_max) acc += v;
        else if (v > acc || isnan(v)) acc = isnan(acc) ? acc : v;
      }
    int64_t count = (y1 - y0) * (x1 - x0);
    if (!is_max && count) acc /= (double)count;
    psgi_store_f(out_type->dtype, o, (size_t)oi, acc);
  }
  return psgi_kernel_result(call, t, out);
}

/* Upsampling ---------------------------------------------------------------------- */

static psg_status upsampling_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                 const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  int h, w;
  psg_status st = data_arg(call, args, nargs, &t);
  if (!st) st = layout_hw(call, t->n, &h, &w);
  if (st) return st;
  const char *method = psgi_attr_str(call->attrs, "method", "nearest_neighbor");
  if (strcmp(method, "nearest_neighbor") && strcmp(method, "bilinear") && strcmp(method, "bicubic"))
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.upsampling: unknown method '%s'", method);
  double sh = psgi_attr_float(call->attrs, "scale_h", 1), sw = psgi_attr_float(call->attrs, "scale_w", 1);
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, t->dims, (size_t)t->n * sizeof *dims);
  /* round(extent * scale), as UpSamplingRel (round half to even). */
  for (int k = 0; k < 2; k++) {
    int a = k ? w : h;
    double v = nearbyint((double)t->dims[a] * (k ? sw : sh));
    if (t->dims[a] == PSG_DIM_UNKNOWN) continue;
    /* The cast of a double outside int64 is undefined: refuse it first. */
    if (!(v > -9.2e18 && v < 9.2e18))
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.upsampling: scales %g, %g give an output %s that overflows int64",
                          sh, sw, k ? "width" : "height");
    dims[a] = (int64_t)v;
  }
  if ((t->dims[h] != PSG_DIM_UNKNOWN && dims[h] < 1) || (t->dims[w] != PSG_DIM_UNKNOWN && dims[w] < 1))
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.upsampling: scales %g, %g give an empty output", sh, sw);
  return psgi_rel_make(call, dims, t->n, t->dtype, out);
}

/* topi.nn.upsampling: a resize with "align_corners" or "asymmetric"
 * coordinates, bilinear as linear, nearest rounding by the resize default. */
static psg_status upsampling_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                    const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *in = psgi_value_as_tensor(args[0]);
  int h, w;
  psg_status st = layout_hw(call, in->ndim, &h, &w);
  if (st) return st;
  const char *method = psgi_attr_str(call->attrs, "method", "nearest_neighbor");
  bool align = psgi_attr_bool(call->attrs, "align_corners", false);
  psgi_resize_spec spec = {PSGI_RESIZE_NEAREST, align ? PSGI_COORD_ALIGN_CORNERS : PSGI_COORD_ASYMMETRIC,
                           align ? PSGI_ROUND_ROUND : PSGI_ROUND_FLOOR, -0.5, false, 0, {0, 0, 0, 0}};
  if (!strcmp(method, "bilinear")) spec.method = PSGI_RESIZE_LINEAR;
  if (!strcmp(method, "bicubic")) spec.method = PSGI_RESIZE_CUBIC;
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &o))) return st;
  psgi_resize2d(&spec, in, h, w, t, o);
  return psgi_kernel_result(call, t, out);
}

/* depth_to_space / space_to_depth --------------------------------------------------- */

typedef struct subpixel {
  int c, h, w;
  int64_t bs;
  bool crd;
} subpixel;

static psg_status subpixel_read(psgi_op_call *call, int ndim, subpixel *sp) {
  const char *layout = psgi_attr_str(call->attrs, "layout", "NCHW");
  if (ndim != 4 || strlen(layout) != 4 || psgi_layout_index(layout, 'N') < 0 ||
      (sp->c = psgi_layout_index(layout, 'C')) < 0 || (sp->h = psgi_layout_index(layout, 'H')) < 0 ||
      (sp->w = psgi_layout_index(layout, 'W')) < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: needs 4-D data in a layout convertible to NCHW, not rank %d '%s'",
                        opname(call), ndim, layout);
  sp->bs = psgi_attr_int(call->attrs, "block_size", 1);
  if (sp->bs < 1) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: block_size must be positive", opname(call));
  const char *mode = psgi_attr_str(call->attrs, "mode", "DCR");
  if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: mode must be DCR or CRD, not '%s'", opname(call), mode);
  sp->crd = !strcmp(mode, "CRD");
  return PSG_OK;
}

static psg_status subpixel_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                               const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  subpixel sp;
  psg_status st = data_arg(call, args, nargs, &t);
  if (!st) st = subpixel_read(call, t->n, &sp);
  if (st) return st;
  bool d2s = !strcmp(opname(call), "nn.depth_to_space");
  int64_t dims[4], bb;
  if (!psgi_checked_mul(sp.bs, sp.bs, &bb))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: block_size %lld squared overflows int64", opname(call),
                        (long long)sp.bs);
  memcpy(dims, t->dims, sizeof dims);
  /* TVM divides without checking; an uneven split would drop data. */
  if (d2s && t->dims[sp.c] != PSG_DIM_UNKNOWN && t->dims[sp.c] % bb)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.depth_to_space: %lld channels do not divide by block_size^2 = %lld",
                        (long long)t->dims[sp.c], (long long)bb);
  for (int i = 0; i < 2 && !d2s; i++) {
    int64_t d = t->dims[i ? sp.w : sp.h];
    if (d != PSG_DIM_UNKNOWN && d % sp.bs)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.space_to_depth: %s %lld does not divide by block_size %lld",
                          i ? "width" : "height", (long long)d, (long long)sp.bs);
  }
  bool ok = true;
  if (dims[sp.c] != PSG_DIM_UNKNOWN) {
    if (d2s) dims[sp.c] /= bb;
    else ok = psgi_checked_mul(dims[sp.c], bb, &dims[sp.c]);
  }
  for (int i = 0; i < 2; i++) {
    int a = i ? sp.w : sp.h;
    if (dims[a] == PSG_DIM_UNKNOWN) continue;
    if (d2s) ok = ok && psgi_checked_mul(dims[a], sp.bs, &dims[a]);
    else dims[a] /= sp.bs;
  }
  if (!ok)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: block_size %lld makes an output dim overflow int64", opname(call),
                        (long long)sp.bs);
  return psgi_rel_make(call, dims, 4, t->dtype, out);
}

/* Each output element copies one input element (topi's index maps). */
static psg_status subpixel_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                  const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *in = psgi_value_as_tensor(args[0]);
  subpixel sp;
  psg_status st = subpixel_read(call, in->ndim, &sp);
  if (st) return st;
  bool d2s = !strcmp(opname(call), "nn.depth_to_space");
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &o))) return st;
  int64_t istr[4], idx[4] = {0, 0, 0, 0}, bs = sp.bs;
  psgi_row_strides(in->shape, 4, istr);
  int64_t numel = psgi_numel(out_type->dims, 4), oc_n = out_type->dims[sp.c], ic_n = in->shape[sp.c];
  size_t esz = psg_dtype_size(in->dtype);
  for (int64_t oi = 0; oi < numel; oi++) {
    int64_t src[4] = {idx[0], idx[1], idx[2], idx[3]};
    int64_t c = idx[sp.c], y = idx[sp.h], x = idx[sp.w];
    if (d2s) {
      int64_t by = y % bs, bx = x % bs;
      src[sp.c] = sp.crd ? c * bs * bs + by * bs + bx : (by * bs + bx) * oc_n + c;
      src[sp.h] = y / bs;
      src[sp.w] = x / bs;
    } else {
      int64_t block = c / ic_n;
      src[sp.c] = c % ic_n;
      src[sp.h] = y * bs + block / bs;
      src[sp.w] = x * bs + block % bs;
    }
    int64_t off = src[0] * istr[0] + src[1] * istr[1] + src[2] * istr[2] + src[3] * istr[3];
    memcpy((char *)o + (size_t)oi * esz, (const char *)in->data + (size_t)off * esz, esz);
    for (int i = 3; i >= 0; i--) {
      if (++idx[i] < out_type->dims[i]) break;
      idx[i] = 0;
    }
  }
  return psgi_kernel_result(call, t, out);
}

/* Patterns as TVM registers them: pools out-elemwise-fusable, upsampling and
 * the sub-pixel rearrangements injective. */
const psgi_op_impl psgi_impls_pool[] = {
    {"nn.max_pool2d", pool_rel, pool_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.avg_pool2d", pool_rel, pool_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.global_avg_pool2d", global_pool_rel, global_pool_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.global_max_pool2d", global_pool_rel, global_pool_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.adaptive_avg_pool2d", global_pool_rel, global_pool_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.upsampling", upsampling_rel, upsampling_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"nn.depth_to_space", subpixel_rel, subpixel_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"nn.space_to_depth", subpixel_rel, subpixel_kernel, false, PSGI_PATTERN_INJECTIVE},
    {NULL, NULL, NULL, false, 0},
};
