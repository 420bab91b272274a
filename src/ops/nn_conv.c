/* Passage — nn.conv2d and nn.conv2d_transpose (issue 5): TVM's Conv2DRel and
 * Conv2DTransposeRel (any permutation of NCHW / OIHW as layouts, padding of 1,
 * 2 or 4 values, groups, optional channels / kernel_size checked against the
 * weight) and direct-loop reference kernels with a fixed summation order. */
#include "ops/layout_blocked.h"
#include "ops/nn_internal.h"

enum { AX_N, AX_C, AX_H, AX_W }; /* data and output axes, NCHW order */
enum { K_O, K_I, K_H, K_W };     /* weight axes, OIHW order */

/* Everything a relation and a kernel need, in logical (NCHW / OIHW) terms.
 * For the transposed convolution the weight's I axis is the data's channels
 * and its O axis the output channels per group (TVM's IOHW). */
typedef struct conv_geom {
  int dpos[4], kpos[4], opos[4]; /* where each logical axis sits in the layout */
  int64_t n, c, h, w;            /* data */
  int64_t ko, ki, kh, kw;        /* weight */
  int64_t oc, oh, ow;            /* output */
  int64_t groups, sh, sw, dh, dw, pt, pl, pb, pr, oph, opw;
  int out_dtype;
} conv_geom;

/* Position of each letter of `letters` in `layout`, which must be a
 * permutation of them (blocked layouts such as NCHW4c are not supported). */
static bool parse_layout(const char *layout, const char *letters, int pos[4]) {
  if (strlen(layout) != 4) return false;
  for (int a = 0; a < 4; a++) pos[a] = -1;
  for (int i = 0; i < 4; i++) {
    const char *p = strchr(letters, layout[i]);
    if (!p || pos[p - letters] >= 0) return false;
    pos[p - letters] = i;
  }
  return true;
}

static bool known(int64_t d) { return d != PSG_DIM_UNKNOWN; }

/* A (height, width) pair attribute: absent gives dflt, one value is used for
 * both, two are (h, w); each must be at least `min`. */
static psg_status hw_attr(psgi_op_call *call, const char *key, int64_t dflt, int64_t min, int64_t *h,
                          int64_t *w) {
  int64_t v[2];
  int n;
  psg_status st = psgi_nn_opt_ints(call, key, v, 2, &n);
  if (st) return st;
  *h = n ? v[0] : dflt;
  *w = n == 2 ? v[1] : *h;
  if (*h < min || *w < min)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s must be at least %lld", psgi_nn_name(call), key,
                        (long long)min);
  return PSG_OK;
}

/* TVM's padding normalisation: one value for all sides, two for (h, w),
 * four for (top, left, bottom, right). */
static psg_status padding_attr(psgi_op_call *call, conv_geom *g) {
  int64_t p[4];
  int n;
  psg_status st = psgi_nn_opt_ints(call, "padding", p, 4, &n);
  if (st) return st;
  switch (n) {
  case 0: g->pt = g->pl = g->pb = g->pr = 0; break;
  case 1: g->pt = g->pl = g->pb = g->pr = p[0]; break;
  case 2: g->pt = g->pb = p[0], g->pl = g->pr = p[1]; break;
  case 4: g->pt = p[0], g->pl = p[1], g->pb = p[2], g->pr = p[3]; break;
  default:
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: padding must have 1, 2 or 4 values, got %d",
                        psgi_nn_name(call), n);
  }
  if (g->pt < 0 || g->pl < 0 || g->pb < 0 || g->pr < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: padding must not be negative", psgi_nn_name(call));
  return PSG_OK;
}

/* One spatial output extent; unknown input or kernel gives unknown. */
static psg_status out_extent(psgi_op_call *call, bool transpose, const char *what, int64_t in, int64_t k,
                             int64_t dil, int64_t stride, int64_t pad, int64_t opad, int64_t *out) {
  *out = PSG_DIM_UNKNOWN;
  if (!known(in) || !known(k)) return PSG_OK;
  /* Attributes are user data: every step is checked (issue 14). */
  int64_t eff, padded, o = 0;
  bool ok = psgi_checked_mul(k - 1, dil, &eff) && psgi_checked_add(eff, 1, &eff) && psgi_checked_add(in, pad, &padded);
  if (ok && transpose)
    ok = psgi_checked_mul(in - 1, stride, &o) && psgi_checked_add(o, -pad, &o) && psgi_checked_add(o, eff, &o) &&
         psgi_checked_add(o, opad, &o);
  if (!ok)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the output %s overflows int64 (input %lld, kernel %lld)",
                        psgi_nn_name(call), what, (long long)in, (long long)k);
  if (transpose) {
    *out = o;
    if (*out <= 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: output %s %lld is not positive", psgi_nn_name(call), what,
                          (long long)*out);
    return PSG_OK;
  }
  if (padded < eff)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "%s: the dilated kernel %s %lld is larger than the padded input %s %lld",
                        psgi_nn_name(call), what, (long long)eff, what, (long long)padded);
  *out = (padded - eff) / stride + 1;
  return PSG_OK;
}

/* Weight checks of Conv2DRel: the optional attributes must agree with the
 * weight, and the channels with the groups. */
static psg_status check_forward(psgi_op_call *call, conv_geom *g, int64_t channels) {
  const char *op = psgi_nn_name(call);
  int64_t ki_total = 0;
  if (known(g->ki) && !psgi_checked_mul(g->ki, g->groups, &ki_total))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: weight channels %lld * groups %lld overflow int64", op,
                        (long long)g->ki, (long long)g->groups);
  if (known(g->c) && known(g->ki) && g->c != ki_total)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: input channels %lld do not match weight's %lld * groups %lld",
                        op, (long long)g->c, (long long)g->ki, (long long)g->groups);
  if (channels >= 0 && known(g->ko) && channels != g->ko)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: channels %lld do not match the weight's %lld output channels",
                        op, (long long)channels, (long long)g->ko);
  g->oc = channels >= 0 ? channels : g->ko;
  if (known(g->oc) && g->oc % g->groups)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: output channels %lld are not divisible by groups %lld", op,
                        (long long)g->oc, (long long)g->groups);
  return PSG_OK;
}

/* Weight checks of Conv2DTransposeRel (weight I = data channels, weight O =
 * output channels per group). */
static psg_status check_transpose(psgi_op_call *call, conv_geom *g, int64_t channels) {
  const char *op = psgi_nn_name(call);
  if (known(g->c) && known(g->ki) && g->c != g->ki)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: input channels %lld do not match the weight's %lld", op,
                        (long long)g->c, (long long)g->ki);
  if (known(g->c) && g->c % g->groups)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: input channels %lld are not divisible by groups %lld", op,
                        (long long)g->c, (long long)g->groups);
  int64_t ko_total = PSG_DIM_UNKNOWN;
  if (known(g->ko) && !psgi_checked_mul(g->ko, g->groups, &ko_total))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: weight output channels %lld * groups %lld overflow int64", op,
                        (long long)g->ko, (long long)g->groups);
  if (channels >= 0 && known(g->ko) && channels != ko_total)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "%s: channels %lld do not match the weight's %lld output channels * groups %lld", op,
                        (long long)channels, (long long)g->ko, (long long)g->groups);
  g->oc = channels >= 0 ? channels : ko_total;
  if (g->oph >= g->sh || g->opw >= g->sw)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: output_padding must be smaller than the strides", op);
  return PSG_OK;
}

/* The data, kernel and output layouts of the call (out_layout "" is the
 * data layout). */
static void conv_layouts(psgi_op_call *call, bool transpose, const char *lay[3]) {
  const psg_attrs *a = call->attrs;
  lay[0] = psgi_attr_str(a, "data_layout", "NCHW");
  lay[1] = psgi_attr_str(a, "kernel_layout", transpose ? "IOHW" : "OIHW");
  lay[2] = psgi_attr_str(a, "out_layout", "");
  if (!*lay[2]) lay[2] = lay[0];
}

static psg_status conv_setup(psgi_op_call *call, bool transpose, const psg_type *data, const psg_type *weight,
                             const char *const lay[3], conv_geom *g) {
  const char *op = psgi_nn_name(call);
  const psg_attrs *a = call->attrs;
  const char *dl = lay[0], *kl = lay[1], *ol = lay[2];
  memset(g, 0, sizeof *g);
  if (!parse_layout(dl, "NCHW", g->dpos))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unsupported data_layout '%s' (a permutation of NCHW)", op, dl);
  if (!parse_layout(kl, "OIHW", g->kpos))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unsupported kernel_layout '%s' (a permutation of OIHW)", op,
                        kl);
  if (!parse_layout(ol, "NCHW", g->opos))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unsupported out_layout '%s' (a permutation of NCHW)", op, ol);
  char buf[128];
  if (data->n != 4)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: data must be 4-D (%s), got %s", op, dl,
                        psgi_shape_str(data, buf, sizeof buf));
  if (weight->n != 4)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: weight must be 4-D (%s), got %s", op, kl,
                        psgi_shape_str(weight, buf, sizeof buf));
  g->n = data->dims[g->dpos[AX_N]], g->c = data->dims[g->dpos[AX_C]];
  g->h = data->dims[g->dpos[AX_H]], g->w = data->dims[g->dpos[AX_W]];
  g->ko = weight->dims[g->kpos[K_O]], g->ki = weight->dims[g->kpos[K_I]];
  g->kh = weight->dims[g->kpos[K_H]], g->kw = weight->dims[g->kpos[K_W]];
  psg_status st;
  if ((st = hw_attr(call, "strides", 1, 1, &g->sh, &g->sw)) || (st = hw_attr(call, "dilation", 1, 1, &g->dh, &g->dw)) ||
      (st = padding_attr(call, g)))
    return st;
  if (transpose && (st = hw_attr(call, "output_padding", 0, 0, &g->oph, &g->opw))) return st;
  g->groups = psgi_attr_int(a, "groups", 1);
  if (g->groups < 1) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: groups must be at least 1", op);
  int64_t ks[2];
  int nks;
  if ((st = psgi_nn_opt_ints(call, "kernel_size", ks, 2, &nks))) return st;
  if (nks == 1) ks[1] = ks[0];
  if (nks) {
    if ((known(g->kh) && ks[0] != g->kh) || (known(g->kw) && ks[1] != g->kw))
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: kernel_size (%lld, %lld) does not match the weight's %s", op,
                          (long long)ks[0], (long long)ks[1], psgi_shape_str(weight, buf, sizeof buf));
    g->kh = ks[0], g->kw = ks[1];
  }
  if ((known(g->kh) && g->kh < 1) || (known(g->kw) && g->kw < 1))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the kernel must be at least 1x1, got %s", op,
                        psgi_shape_str(weight, buf, sizeof buf));
  int64_t channels = psgi_attr_int(a, "channels", -1);
  if ((st = transpose ? check_transpose(call, g, channels) : check_forward(call, g, channels))) return st;
  int64_t pad_h, pad_w;
  if (!psgi_checked_add(g->pt, g->pb, &pad_h) || !psgi_checked_add(g->pl, g->pr, &pad_w))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the padding overflows int64", op);
  if ((st = out_extent(call, transpose, "height", g->h, g->kh, g->dh, g->sh, pad_h, g->oph, &g->oh)) ||
      (st = out_extent(call, transpose, "width", g->w, g->kw, g->dw, g->sw, pad_w, g->opw, &g->ow)))
    return st;
  return psgi_nn_out_dtype(call, data->dtype, &g->out_dtype);
}

/* A type of `t`'s dtype in the primal form of blocked layout l (t is in l). */
static psg_status primal_type(psgi_op_call *call, const psgi_blocked_layout *l, const psg_type *t,
                              const psg_type **out) {
  if (t->n != l->n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: a %d-D argument for a layout of %d axes", psgi_nn_name(call), t->n,
                        l->n);
  int64_t dims[PSG_MAX_RANK];
  psgi_blocked_to_primal(l, t->dims, dims);
  return psgi_rel_make(call, dims, l->nprimal, t->dtype, out);
}

/* Blocked layouts (NCHW16c, OIHW16i) as TVM's Conv2DRel takes them: the
 * shapes mapped to their primal layouts, the relation there, the output
 * mapped back to the blocked out_layout. */
static psg_status conv_rel_blocked(psgi_op_call *call, bool transpose, const psg_type *data, const psg_type *weight,
                                   const char *lay[3], const psg_type **out) {
  psgi_blocked_layout l[3];
  for (int i = 0; i < 3; i++)
    if (!psgi_blocked_parse(lay[i], &l[i]))
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unsupported layout '%s'", psgi_nn_name(call), lay[i]);
  const char *primal[3] = {l[0].primal, l[1].primal, l[2].primal};
  conv_geom g;
  psg_status st;
  if ((st = primal_type(call, &l[0], data, &data)) || (st = primal_type(call, &l[1], weight, &weight)) ||
      (st = conv_setup(call, transpose, data, weight, primal, &g)))
    return st;
  int64_t p[4], dims[PSG_MAX_RANK];
  p[g.opos[AX_N]] = g.n, p[g.opos[AX_C]] = g.oc, p[g.opos[AX_H]] = g.oh, p[g.opos[AX_W]] = g.ow;
  if (!psgi_blocked_from_primal(&l[2], p, dims))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the output does not split into out_layout '%s'", psgi_nn_name(call),
                        lay[2]);
  return psgi_rel_make(call, dims, l[2].n, g.out_dtype, out);
}

static bool any_split(const char *const lay[3]) {
  psgi_blocked_layout l;
  for (int i = 0; i < 3; i++)
    if (psgi_blocked_parse(lay[i], &l) && psgi_blocked_is_split(&l)) return true;
  return false;
}

static psg_status conv_rel(psgi_op_call *call, bool transpose, const psg_type *const *args, const psg_type **out) {
  const psg_type *data, *weight;
  conv_geom g;
  psg_status st;
  const char *lay[3];
  conv_layouts(call, transpose, lay);
  if ((st = psgi_rel_tensor_arg(call, args, 0, &data)) || (st = psgi_rel_tensor_arg(call, args, 1, &weight)))
    return st;
  if (any_split(lay)) return conv_rel_blocked(call, transpose, data, weight, lay, out);
  if ((st = conv_setup(call, transpose, data, weight, lay, &g))) return st;
  int64_t dims[4];
  dims[g.opos[AX_N]] = g.n, dims[g.opos[AX_C]] = g.oc, dims[g.opos[AX_H]] = g.oh, dims[g.opos[AX_W]] = g.ow;
  return psgi_rel_make(call, dims, 4, g.out_dtype, out);
}

psg_status psgi_nn_conv2d_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  return conv_rel(call, false, args, out);
}

psg_status psgi_nn_conv2d_transpose_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                        const psg_type **out) {
  (void)nargs;
  return conv_rel(call, true, args, out);
}

/* Kernels ---------------------------------------------------------------------
 * Both kernels work on logical NCHW / OIHW buffers (other layouts are
 * gathered first and scattered back after) and accumulate into the output
 * plane: for each output element the terms are added in the order input
 * channel, kh, kw, starting from zero, whatever the loop order around it, so
 * results are deterministic. The inner loop runs along a row with no bounds
 * checks: the valid range of each kernel tap is computed once. */

/* The outputs o in [*lo, *hi) with 0 <= o * stride + off < in, o < out. */
static void tap_range(int64_t off, int64_t stride, int64_t in, int64_t out, int64_t *lo, int64_t *hi) {
  int64_t l = off >= 0 ? 0 : (-off + stride - 1) / stride;
  int64_t h = in - 1 - off < 0 ? 0 : (in - 1 - off) / stride + 1;
  if (h > out) h = out;
  *lo = l < h ? l : h;
  *hi = h;
}

#define DEFINE_CONV_CORES(T, SUF)                                                                     \
  static void conv_fwd_##SUF(const T *x, const T *wt, T *y, const conv_geom *g) {                     \
    int64_t cpg = g->c / g->groups, opg = g->oc / g->groups;                                          \
    int64_t pin = g->h * g->w, pout = g->oh * g->ow, ksz = g->kh * g->kw;                             \
    for (int64_t n = 0; n < g->n; n++)                                                                \
      for (int64_t oc = 0; oc < g->oc; oc++) {                                                        \
        T *yp = y + (n * g->oc + oc) * pout;                                                          \
        for (int64_t ic = 0; ic < cpg; ic++) {                                                        \
          const T *xp = x + (n * g->c + (oc / opg) * cpg + ic) * pin;                                 \
          const T *wp = wt + (oc * cpg + ic) * ksz;                                                   \
          for (int64_t ky = 0; ky < g->kh; ky++) {                                                    \
            int64_t offy = ky * g->dh - g->pt, oy0, oy1;                                              \
            tap_range(offy, g->sh, g->h, g->oh, &oy0, &oy1);                                          \
            for (int64_t kx = 0; kx < g->kw; kx++) {                                                  \
              int64_t offx = kx * g->dw - g->pl, ox0, ox1;                                            \
              tap_range(offx, g->sw, g->w, g->ow, &ox0, &ox1);                                        \
              if (ox0 >= ox1) continue;                                                               \
              T wv = wp[ky * g->kw + kx];                                                             \
              for (int64_t oy = oy0; oy < oy1; oy++) {                                                \
                const T *xr = xp + (oy * g->sh + offy) * g->w;                                        \
                T *yr = yp + oy * g->ow;                                                              \
                if (g->sw == 1) {                                                                     \
                  const T *xs = xr + ox0 + offx;                                                      \
                  T *ys = yr + ox0;                                                                   \
                  for (int64_t i = 0; i < ox1 - ox0; i++) ys[i] += wv * xs[i];                        \
                } else {                                                                              \
                  for (int64_t ox = ox0; ox < ox1; ox++) yr[ox] += wv * xr[ox * g->sw + offx];        \
                }                                                                                     \
              }                                                                                       \
            }                                                                                         \
          }                                                                                           \
        }                                                                                             \
      }                                                                                               \
  }                                                                                                   \
  static void conv_bwd_##SUF(const T *x, const T *wt, T *y, const conv_geom *g) {                     \
    int64_t cpg = g->c / g->groups, opg = g->oc / g->groups;                                          \
    int64_t pin = g->h * g->w, pout = g->oh * g->ow, ksz = g->kh * g->kw;                             \
    for (int64_t n = 0; n < g->n; n++)                                                                \
      for (int64_t c = 0; c < g->c; c++) {                                                            \
        const T *xp = x + (n * g->c + c) * pin;                                                       \
        for (int64_t j = 0; j < opg; j++) {                                                           \
          T *yp = y + (n * g->oc + (c / cpg) * opg + j) * pout;                                       \
          const T *wp = wt + (j * g->c + c) * ksz; /* logical OIHW: (opg, C, kh, kw) */             \
          for (int64_t ky = 0; ky < g->kh; ky++) {                                                    \
            int64_t offy = ky * g->dh - g->pt, iy0, iy1;                                              \
            tap_range(offy, g->sh, g->oh, g->h, &iy0, &iy1);                                          \
            for (int64_t kx = 0; kx < g->kw; kx++) {                                                  \
              int64_t offx = kx * g->dw - g->pl, ix0, ix1;                                            \
              tap_range(offx, g->sw, g->ow, g->w, &ix0, &ix1);                                        \
              T wv = wp[ky * g->kw + kx];                                                             \
              for (int64_t iy = iy0; iy < iy1; iy++) {                                                \
                const T *xr = xp + iy * g->w;                                                         \
                T *yr = yp + (iy * g->sh + offy) * g->ow;                                             \
                for (int64_t ix = ix0; ix < ix1; ix++) yr[ix * g->sw + offx] += wv * xr[ix];          \
              }                                                                                       \
            }                                                                                         \
          }                                                                                           \
        }                                                                                             \
      }                                                                                               \
  }
DEFINE_CONV_CORES(float, f32)
DEFINE_CONV_CORES(double, f64)
#undef DEFINE_CONV_CORES

static bool is_identity(const int pos[4]) { return pos[0] == 0 && pos[1] == 1 && pos[2] == 2 && pos[3] == 3; }

/* The tensor as a logical (axis order 0..3) float/double buffer. */
static psg_status gather(psgi_op_call *call, const psg_tensor *t, const int pos[4], bool dbl, void **buf,
                         bool *owned) {
  if (is_identity(pos)) return psgi_nn_load_float(call, t, dbl, buf, owned);
  int64_t st[4], ld[4], lst[4];
  psgi_row_strides(t->shape, 4, st);
  for (int a = 0; a < 4; a++) ld[a] = t->shape[pos[a]], lst[a] = st[pos[a]];
  int64_t numel = psgi_numel(ld, 4);
  *owned = true;
  *buf = psgi_alloc(call->ctx, psgi_mul_size((size_t)(numel ? numel : 1), dbl ? sizeof(double) : sizeof(float)));
  if (!*buf) return psgi_nomem(call->ctx);
  int64_t i = 0;
  for (int64_t a = 0; a < ld[0]; a++)
    for (int64_t b = 0; b < ld[1]; b++)
      for (int64_t c = 0; c < ld[2]; c++)
        for (int64_t d = 0; d < ld[3]; d++, i++) {
          double v = psgi_load_f(t->dtype, t->data, (size_t)(a * lst[0] + b * lst[1] + c * lst[2] + d * lst[3]));
          if (dbl) ((double *)*buf)[i] = v;
          else ((float *)*buf)[i] = (float)v;
        }
  return PSG_OK;
}

/* Writes the logical NCHW result y into the output in its layout and dtype. */
static void scatter(const conv_geom *g, const void *y, bool dbl, psg_tensor *out, void *dst) {
  int64_t ld[4] = {g->n, g->oc, g->oh, g->ow}, st[4], lst[4];
  psgi_row_strides(out->shape, 4, st);
  for (int a = 0; a < 4; a++) lst[a] = st[g->opos[a]];
  int64_t i = 0;
  for (int64_t a = 0; a < ld[0]; a++)
    for (int64_t b = 0; b < ld[1]; b++)
      for (int64_t c = 0; c < ld[2]; c++)
        for (int64_t d = 0; d < ld[3]; d++, i++)
          psgi_store_f(out->dtype, dst, (size_t)(a * lst[0] + b * lst[1] + c * lst[2] + d * lst[3]),
                       dbl ? ((const double *)y)[i] : (double)((const float *)y)[i]);
}

static psg_status conv_kernel(psgi_op_call *call, bool transpose, psgi_value *const *args,
                              const psg_type *out_type, psgi_value **out) {
  *out = NULL;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *w = psgi_value_as_tensor(args[1]);
  const psg_type *xt = psgi_value_type(call->ctx, args[0]), *wt = psgi_value_type(call->ctx, args[1]);
  if (!x || !w || !xt || !wt)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: arguments must be tensors", psgi_nn_name(call));
  conv_geom g;
  const char *lay[3];
  conv_layouts(call, transpose, lay);
  psg_status st = conv_setup(call, transpose, xt, wt, lay, &g);
  if (st) return st;
  /* float32 inputs accumulate in float, as TVM's float32 kernels do; anything
   * else (integers, float64, half) in double. */
  bool dbl = !(x->dtype == PSG_DTYPE_FLOAT32 && w->dtype == PSG_DTYPE_FLOAT32);
  void *xb = NULL, *wb = NULL, *yb = NULL, *dst = NULL;
  bool xo = false, wo = false;
  psg_tensor *res = NULL;
  if ((st = psgi_kernel_alloc(call, out_type, &res, &dst)) || (st = gather(call, x, g.dpos, dbl, &xb, &xo)) ||
      (st = gather(call, w, g.kpos, dbl, &wb, &wo)))
    goto done;
  /* A float32 NCHW result is accumulated in place; others go through a scratch plane set. */
  bool direct = !dbl && res->dtype == PSG_DTYPE_FLOAT32 && is_identity(g.opos);
  int64_t numel = psgi_numel(res->shape, 4);
  yb = direct ? dst : psgi_calloc(call->ctx, psgi_mul_size((size_t)(numel ? numel : 1), dbl ? 8 : 4));
  if (!yb) {
    st = psgi_nomem(call->ctx);
    goto done;
  }
  if (dbl) (transpose ? conv_bwd_f64 : conv_fwd_f64)(xb, wb, yb, &g);
  else (transpose ? conv_bwd_f32 : conv_fwd_f32)(xb, wb, yb, &g);
  if (!direct) scatter(&g, yb, dbl, res, dst);
  st = psgi_kernel_result(call, res, out);
  res = NULL;
done:
  if (xo) psgi_free(call->ctx, xb);
  if (wo) psgi_free(call->ctx, wb);
  if (yb && yb != dst) psgi_free(call->ctx, yb);
  psg_tensor_release(res);
  return st;
}

psg_status psgi_nn_conv2d_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                 const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return conv_kernel(call, false, args, out_type, out);
}

psg_status psgi_nn_conv2d_transpose_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                           const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return conv_kernel(call, true, args, out_type, out);
}
