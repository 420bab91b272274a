/* Passage — compute definitions of the 2-D pools (TOPI's nn/pooling.h):
 * max_pool2d as one max reduction over the window with guarded reads
 * ("pool_max"), avg_pool2d as a guarded sum ("pool_sum") divided by the
 * window count ("pool_avg": count_include_pad counts the explicitly padded
 * positions, else the valid ones), global pools as a reduction over H and W
 * ("adaptive_pool_max", or "adaptive_pool_sum" then "adaptive_pool_avg"). */
#include "te/te.h"

/* The positions of H and W in `layout` (NCHW, NHWC, ...). */
static bool hw_pos(psgi_te_call *c, int nd, int *h, int *w) {
  const char *layout = psgi_attr_str(c->attrs, "layout", "NCHW");
  const char *ph = strchr(layout, 'H'), *pw = strchr(layout, 'W');
  if ((int)strlen(layout) != nd || !ph || !pw) {
    psgi_te_fail(c->b, PSG_ERR_UNSUPPORTED, "te: %s layout '%s'", c->op, layout);
    return false;
  }
  *h = (int)(ph - layout), *w = (int)(pw - layout);
  return true;
}

static void pair(const psg_attrs *a, const char *key, int64_t dflt, int64_t out[2]) {
  int64_t v[4];
  int n = psgi_attr_ints(a, key, v, 4);
  out[0] = n >= 1 ? v[0] : dflt;
  out[1] = n >= 2 ? v[1] : out[0];
}

/* The number of k in [0, K) with 0 <= start + k * d < limit, for an int
 * expression start: max(0, min(K - 1, (limit - 1 - start) // d) -
 * max(0, ceil(-start / d)) + 1). */
static psg_tir_expr *valid_count(psgi_te_builder *b, psg_tir_expr *start, int64_t K, int64_t d, int64_t limit) {
  psg_tir_expr *zero = psgi_te_int(b, 0);
  psg_tir_expr *lo = psgi_te_bin(b, PSG_TIR_MAX, zero,
                                 psgi_te_bin(b, PSG_TIR_FLOOR_DIV, psgi_te_bin(b, PSG_TIR_SUB, psgi_te_int(b, d - 1), start),
                                             psgi_te_int(b, d)));
  psg_tir_expr *hi = psgi_te_bin(b, PSG_TIR_MIN, psgi_te_int(b, K - 1),
                                 psgi_te_bin(b, PSG_TIR_FLOOR_DIV, psgi_te_bin(b, PSG_TIR_SUB, psgi_te_int(b, limit - 1), start),
                                             psgi_te_int(b, d)));
  return psgi_te_bin(b, PSG_TIR_MAX, zero, psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_SUB, hi, lo), psgi_te_int(b, 1)));
}

PSGI_TE_COMPUTE(pool2d) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK], k[2], s[2], d[2], pad[4] = {0, 0, 0, 0}, v[4];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype), h, w;
  if (!hw_pos(c, nd, &h, &w)) return psgi_te_status(b);
  pair(c->attrs, "pool_size", 1, k);
  pair(c->attrs, "strides", 1, s);
  pair(c->attrs, "dilation", 1, d);
  int n = psgi_attr_ints(c->attrs, "padding", v, 4);
  if (n == 4) memcpy(pad, v, sizeof v);
  else if (n == 2) pad[0] = pad[2] = v[0], pad[1] = pad[3] = v[1];
  else if (n == 1) pad[0] = pad[1] = pad[2] = pad[3] = v[0];
  bool is_max = !strcmp(c->op, "nn.max_pool2d");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = is_max ? PSGI_TE_MAX : PSGI_TE_SUM};
  psg_tir_expr *rv0 = psgi_te_reduce_axis(b, &r, "rv0", k[0]), *rv1 = psgi_te_reduce_axis(b, &r, "rv1", k[1]);
  psg_tir_expr *y0 = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_MUL, ax[h], psgi_te_int(b, s[0])), psgi_te_int(b, pad[0]));
  psg_tir_expr *x0 = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_MUL, ax[w], psgi_te_int(b, s[1])), psgi_te_int(b, pad[1]));
  memcpy(in, ax, sizeof in);
  in[h] = psgi_te_bin(b, PSG_TIR_ADD, y0, psgi_te_bin(b, PSG_TIR_MUL, rv0, psgi_te_int(b, d[0])));
  in[w] = psgi_te_bin(b, PSG_TIR_ADD, x0, psgi_te_bin(b, PSG_TIR_MUL, rv1, psgi_te_int(b, d[1])));
  psg_tir_expr *ok = psgi_te_bin(
      b, PSG_TIR_AND,
      psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, in[h], psgi_te_int(b, 0)),
                  psgi_te_bin(b, PSG_TIR_LT, in[h], psgi_te_int(b, x->shape[h]))),
      psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, in[w], psgi_te_int(b, 0)),
                  psgi_te_bin(b, PSG_TIR_LT, in[w], psgi_te_int(b, x->shape[w]))));
  psg_tir_expr *val = psgi_te_if(b, ok, psgi_te_load(b, x, in), is_max ? psgi_te_min_value(b, dtype) : psgi_te_const(b, dtype, 0));
  psgi_te_tensor *out = psgi_te_compute(b, is_max ? "pool_max" : "pool_sum", dtype, nd, dims, ax, val, &r);
  if (out && !is_max) {
    psg_tir_expr *o[PSG_MAX_RANK];
    psgi_te_axes(b, nd, o);
    psg_tir_expr *ys = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_MUL, o[h], psgi_te_int(b, s[0])), psgi_te_int(b, pad[0]));
    psg_tir_expr *xs = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_MUL, o[w], psgi_te_int(b, s[1])), psgi_te_int(b, pad[1]));
    psg_tir_expr *cnt;
    if (psgi_attr_bool(c->attrs, "count_include_pad", false)) {
      /* The window clipped to the explicitly padded extent, in dilation steps. */
      psg_tir_expr *ch = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_FLOOR_DIV, psgi_te_bin(b, PSG_TIR_SUB,
                                     psgi_te_bin(b, PSG_TIR_MIN, psgi_te_bin(b, PSG_TIR_ADD, ys, psgi_te_int(b, (k[0] - 1) * d[0])),
                                                 psgi_te_int(b, x->shape[h] + pad[2] - 1)), ys), psgi_te_int(b, d[0])), psgi_te_int(b, 1));
      psg_tir_expr *cw = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_FLOOR_DIV, psgi_te_bin(b, PSG_TIR_SUB,
                                     psgi_te_bin(b, PSG_TIR_MIN, psgi_te_bin(b, PSG_TIR_ADD, xs, psgi_te_int(b, (k[1] - 1) * d[1])),
                                                 psgi_te_int(b, x->shape[w] + pad[3] - 1)), xs), psgi_te_int(b, d[1])), psgi_te_int(b, 1));
      cnt = psgi_te_bin(b, PSG_TIR_MUL, ch, cw);
    } else {
      cnt = psgi_te_bin(b, PSG_TIR_MUL, valid_count(b, ys, k[0], d[0], x->shape[h]), valid_count(b, xs, k[1], d[1], x->shape[w]));
    }
    cnt = psgi_te_bin(b, PSG_TIR_MAX, cnt, psgi_te_int(b, 1));
    out = psgi_te_compute(b, "pool_avg", dtype, nd, dims, o,
                          psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, out, o), psgi_te_cast(b, dtype, cnt)), NULL);
  }
  c->outs[c->nouts++] = out;
  return psgi_te_status(b);
}

PSGI_TE_COMPUTE(global_pool2d) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype), h, w;
  if (!hw_pos(c, nd, &h, &w)) return psgi_te_status(b);
  bool is_max = !strcmp(c->op, "nn.global_max_pool2d");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = is_max ? PSGI_TE_MAX : PSGI_TE_SUM};
  memcpy(in, ax, sizeof in);
  in[h] = psgi_te_reduce_axis(b, &r, "rv0", x->shape[h]);
  in[w] = psgi_te_reduce_axis(b, &r, "rv1", x->shape[w]);
  psgi_te_tensor *out =
      psgi_te_compute(b, is_max ? "adaptive_pool_max" : "adaptive_pool_sum", dtype, nd, dims, ax, psgi_te_load(b, x, in), &r);
  if (out && !is_max) {
    psg_tir_expr *o[PSG_MAX_RANK];
    psgi_te_axes(b, nd, o);
    out = psgi_te_compute(b, "adaptive_pool_avg", dtype, nd, dims, o,
                          psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, out, o),
                                      psgi_te_const(b, dtype, (double)(x->shape[h] * x->shape[w]))),
                          NULL);
  }
  c->outs[c->nouts++] = out;
  return psgi_te_status(b);
}

/* nn.adaptive_avg_pool2d: window i of n over an extent `in` is
 * [floor(i * in / n), ceil((i + 1) * in / n)); a reduction over the
 * largest window with guarded reads, then the division by the window's
 * size ("adaptive_pool_sum", "adaptive_pool_avg"). */
PSGI_TE_COMPUTE(adaptive_pool2d) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype), h, w;
  if (!hw_pos(c, nd, &h, &w)) return psgi_te_status(b);
  int64_t H = x->shape[h], W = x->shape[w], OH = dims[h], OW = dims[w], KH = 0, KW = 0;
  for (int64_t i = 0; i < OH; i++) {
    int64_t e = ((i + 1) * H + OH - 1) / OH - i * H / OH;
    KH = e > KH ? e : KH;
  }
  for (int64_t i = 0; i < OW; i++) {
    int64_t e = ((i + 1) * W + OW - 1) / OW - i * W / OW;
    KW = e > KW ? e : KW;
  }
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *rv0 = psgi_te_reduce_axis(b, &r, "rv0", KH), *rv1 = psgi_te_reduce_axis(b, &r, "rv1", KW);
  /* start(i) = i * in // n, end(i) = ((i + 1) * in + n - 1) // n. */
#define START(i, in, n) psgi_te_bin(b, PSG_TIR_FLOOR_DIV, psgi_te_bin(b, PSG_TIR_MUL, (i), psgi_te_int(b, in)), psgi_te_int(b, n))
#define END(i, in, n)                                                                                               \
  psgi_te_bin(b, PSG_TIR_FLOOR_DIV,                                                                               \
              psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, psgi_te_bin(b, PSG_TIR_ADD, (i), psgi_te_int(b, 1)), \
                                                      psgi_te_int(b, in)),                                         \
                          psgi_te_int(b, (n) - 1)),                                                                \
              psgi_te_int(b, n))
  memcpy(in, ax, sizeof in);
  in[h] = psgi_te_bin(b, PSG_TIR_ADD, START(ax[h], H, OH), rv0);
  in[w] = psgi_te_bin(b, PSG_TIR_ADD, START(ax[w], W, OW), rv1);
  psg_tir_expr *ok = psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_LT, in[h], END(ax[h], H, OH)),
                                 psgi_te_bin(b, PSG_TIR_LT, in[w], END(ax[w], W, OW)));
  psgi_te_tensor *sum = psgi_te_compute(b, "adaptive_pool_sum", dtype, nd, dims, ax,
                                        psgi_te_if(b, ok, psgi_te_load(b, x, in), psgi_te_const(b, dtype, 0)), &r);
  psg_tir_expr *o[PSG_MAX_RANK];
  psgi_te_axes(b, nd, o);
  psg_tir_expr *cnt = psgi_te_bin(b, PSG_TIR_MUL, psgi_te_bin(b, PSG_TIR_SUB, END(o[h], H, OH), START(o[h], H, OH)),
                                  psgi_te_bin(b, PSG_TIR_SUB, END(o[w], W, OW), START(o[w], W, OW)));
#undef START
#undef END
  c->outs[c->nouts++] = psgi_te_compute(b, "adaptive_pool_avg", dtype, nd, dims, o,
                                        psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, sum, o), psgi_te_cast(b, dtype, cnt)), NULL);
  return psgi_te_status(b);
}
