/* Passage — compute definitions of the convolution and matrix ops (TOPI's
 * nn/conv2d.h, nn/dense.h, nn/batch_matmul.h): conv2d over any permutation
 * of NCHW / OIHW (NCHW+OIHW, NHWC+HWIO, NHWC+OHWI, ...), with groups
 * (depthwise included), strides, dilation and padding (a "pad_temp" stage
 * when any padding), accumulating in out_dtype; dense, matmul and
 * batch_matmul as sums over k. */
#include <ctype.h>
#include <stdio.h>
#include "te/te.h"

static psgi_te_tensor *lane_split_sum(psgi_te_builder *b, const char *name, int dtype, int nd, const int64_t *dims,
                                      psg_tir_expr *const *ax, psg_tir_expr *lane, int64_t lanes, psg_tir_expr *body,
                                      const psgi_te_reduce *r);
static int64_t reduction_lanes(int64_t K);
static psg_tir_expr *lane_index(psgi_te_builder *b, psgi_te_reduce *r, const char *ko_name, int64_t K, int64_t lanes,
                                psg_tir_expr **lane);

/* Position of each letter of `letters` in `layout` (a permutation). */
static bool layout_pos(const char *layout, const char *letters, int pos[4]) {
  if (strlen(layout) != 4) return false;
  for (int i = 0; i < 4; i++) {
    const char *p = strchr(layout, letters[i]);
    if (!p) return false;
    pos[i] = (int)(p - layout);
  }
  return true;
}

/* One or two ints of an attr as (first, second). */
static void pair(const psg_attrs *a, const char *key, int64_t dflt, int64_t out[2]) {
  int64_t v[4];
  int n = psgi_attr_ints(a, key, v, 4);
  out[0] = n >= 1 ? v[0] : dflt;
  out[1] = n >= 2 ? v[1] : out[0];
}

/* TVM's padding: 1 value (all), 2 (top/bottom, left/right) or 4 (top, left,
 * bottom, right). */
static void padding4(const psg_attrs *a, int64_t pad[4]) {
  int64_t v[4];
  int n = psgi_attr_ints(a, "padding", v, 4);
  if (n == 4) memcpy(pad, v, sizeof v);
  else if (n == 2) pad[0] = pad[2] = v[0], pad[1] = pad[3] = v[1];
  else pad[0] = pad[1] = pad[2] = pad[3] = n == 1 ? v[0] : 0;
}

/* A stage padding the H and W axes (positions h, w) of t with `value`. */
static psgi_te_tensor *pad_hw(psgi_te_builder *b, psgi_te_tensor *t, int h, int w, const int64_t pad[4],
                              psg_tir_expr *value) {
  int64_t shape[PSG_MAX_RANK];
  memcpy(shape, t->shape, sizeof shape);
  shape[h] += pad[0] + pad[2];
  shape[w] += pad[1] + pad[3];
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, t->ndim, ax);
  memcpy(in, ax, sizeof in);
  in[h] = psgi_te_bin(b, PSG_TIR_SUB, ax[h], psgi_te_int(b, pad[0]));
  in[w] = psgi_te_bin(b, PSG_TIR_SUB, ax[w], psgi_te_int(b, pad[1]));
  psg_tir_expr *ok = psgi_te_bin(
      b, PSG_TIR_AND,
      psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, ax[h], psgi_te_int(b, pad[0])),
                  psgi_te_bin(b, PSG_TIR_LT, ax[h], psgi_te_int(b, pad[0] + t->shape[h]))),
      psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, ax[w], psgi_te_int(b, pad[1])),
                  psgi_te_bin(b, PSG_TIR_LT, ax[w], psgi_te_int(b, pad[1] + t->shape[w]))));
  return psgi_te_compute(b, "pad_temp", t->dtype, t->ndim, shape, ax,
                         psgi_te_if(b, ok, psgi_te_load(b, t, in), value), NULL);
}

PSGI_TE_COMPUTE(conv2d) {
  psgi_te_builder *b = c->b;
  const psg_attrs *a = c->attrs;
  const char *dl = psgi_attr_str(a, "data_layout", "NCHW"), *kl = psgi_attr_str(a, "kernel_layout", "OIHW");
  const char *ol = psgi_attr_str(a, "out_layout", "");
  if (!ol[0]) ol = dl;
  int dp[4], kp[4], op[4];
  if (!layout_pos(dl, "NCHW", dp) || !layout_pos(kl, "OIHW", kp) || !layout_pos(ol, "NCHW", op))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.conv2d layouts %s/%s/%s (permutations of NCHW/OIHW only)", dl,
                        kl, ol);
  psgi_te_tensor *data = c->args[0], *kernel = c->args[1];
  int64_t dims[PSG_MAX_RANK], s[2], d[2], pad[4];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t groups = psgi_attr_int(a, "groups", 1);
  pair(a, "strides", 1, s);
  pair(a, "dilation", 1, d);
  padding4(a, pad);
  int64_t C = data->shape[dp[1]], OC = dims[op[1]], icpg = kernel->shape[kp[1]];
  int64_t KH = kernel->shape[kp[2]], KW = kernel->shape[kp[3]];
  if (groups < 1 || OC % groups || C != icpg * groups)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.conv2d groups=%lld do not divide the channels",
                        (long long)groups);
  int64_t ocpg = OC / groups;
  if (pad[0] || pad[1] || pad[2] || pad[3]) data = pad_hw(b, data, dp[2], dp[3], pad, psgi_te_const(b, data->dtype, 0));
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  /* A long kernel row over few outputs (melspectrogram's framing conv: 5
   * outputs, 512 taps): the lane-split sum over rx, whose taps both
   * operands read contiguously, instead of a vector of a few outputs. */
  bool wlast = dp[3] == 3 && kp[3] == 3;
  int64_t lanes = wlast && groups == 1 && d[1] == 1 && !(pad[0] | pad[1] | pad[2] | pad[3]) &&
                      dims[op[2]] * dims[op[3]] <= 16
                      ? reduction_lanes(KW)
                      : 0;
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *lane = NULL, *rc = psgi_te_reduce_axis(b, &r, "rc", icpg), *ry = psgi_te_reduce_axis(b, &r, "ry", KH),
               *rx = lanes ? lane_index(b, &r, "rx", KW, lanes, &lane) : psgi_te_reduce_axis(b, &r, "rx", KW);
  psg_tir_expr *n = ax[op[0]], *f = ax[op[1]], *y = ax[op[2]], *x = ax[op[3]];
  psg_tir_expr *g = groups == 1 ? psgi_te_int(b, 0) : psgi_te_bin(b, PSG_TIR_FLOOR_DIV, f, psgi_te_int(b, ocpg));
  psg_tir_expr *di[4], *ki[4];
  di[dp[0]] = n;
  di[dp[1]] = groups == 1 ? rc : psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, g, psgi_te_int(b, icpg)), rc);
  di[dp[2]] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, y, psgi_te_int(b, s[0])),
                          psgi_te_bin(b, PSG_TIR_MUL, ry, psgi_te_int(b, d[0])));
  di[dp[3]] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, x, psgi_te_int(b, s[1])),
                          psgi_te_bin(b, PSG_TIR_MUL, rx, psgi_te_int(b, d[1])));
  ki[kp[0]] = f, ki[kp[1]] = rc, ki[kp[2]] = ry, ki[kp[3]] = rx;
  psg_tir_expr *v = psgi_te_bin(b, PSG_TIR_MUL, psgi_te_cast(b, dtype, psgi_te_load(b, data, di)),
                                psgi_te_cast(b, dtype, psgi_te_load(b, kernel, ki)));
  char name[32], lower[8];
  for (int i = 0; i < 4; i++) lower[i] = (char)tolower((unsigned char)ol[i]);
  lower[4] = 0;
  if (groups == 1) snprintf(name, sizeof name, "conv2d_%s", lower);
  else if (groups == C && icpg == 1) snprintf(name, sizeof name, "DepthwiseConv2d");
  else snprintf(name, sizeof name, "group_conv2d_%s", lower);
  c->outs[c->nouts++] = lanes ? lane_split_sum(b, name, dtype, nd, dims, ax, lane, lanes, v, &r)
                              : psgi_te_compute(b, name, dtype, nd, dims, ax, v, &r);
  return psgi_te_status(b);
}

/* The reduction of a stage split into vector lanes (rfactor at the
 * definition): the caller's sum, over reduce axes r whose last is ko, of
 * `body` built for k = ko*lanes + lane (lane_index), becomes a stage
 * `name`_rf over the output's axes `ax` and one more, `lane`, and the
 * output stage sums its lanes. Used where the operands read k
 * contiguously, so a lane vector is one load of each
 * (default_schedule_rfactor.c vectorizes "lane"). The sum is reassociated:
 * lane l adds k = l, l + lanes, ... in order, then the lanes are added. */
static psgi_te_tensor *lane_split_sum(psgi_te_builder *b, const char *name, int dtype, int nd, const int64_t *dims,
                                      psg_tir_expr *const *ax, psg_tir_expr *lane, int64_t lanes, psg_tir_expr *body,
                                      const psgi_te_reduce *r) {
  int64_t rdims[PSG_MAX_RANK];
  psg_tir_expr *rax[PSG_MAX_RANK];
  if (nd + 1 > PSG_MAX_RANK) {
    psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: rank %d is above the limit", nd + 1);
    return NULL;
  }
  memcpy(rdims, dims, (size_t)nd * sizeof *dims);
  memcpy(rax, ax, (size_t)nd * sizeof *ax);
  rdims[nd] = lanes;
  rax[nd] = lane;
  char rfname[64];
  snprintf(rfname, sizeof rfname, "%s_rf", name);
  psgi_te_tensor *rf = psgi_te_compute(b, rfname, dtype, nd + 1, rdims, rax, body, r);
  if (!rf) return NULL;
  psg_tir_expr *oax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, oax);
  psgi_te_reduce s = {.combiner = PSGI_TE_SUM};
  oax[nd] = psgi_te_reduce_axis(b, &s, "rl", lanes);
  return psgi_te_compute(b, name, dtype, nd, dims, oax, psgi_te_load(b, rf, oax), &s);
}

/* The lane count of a contiguous reduction of extent K: 16 or 8 lanes
 * dividing it, when K is long enough for the lanes to pay (0: keep the
 * plain sum). */
static int64_t reduction_lanes(int64_t K) {
  if (K < 64) return 0;
  return K % 16 == 0 ? 16 : K % 8 == 0 ? 8 : 0;
}

/* ko (a new last reduce axis of r, K/lanes) and the lane var of a
 * lane-split sum; k = ko*lanes + lane. */
static psg_tir_expr *lane_index(psgi_te_builder *b, psgi_te_reduce *r, const char *ko_name, int64_t K, int64_t lanes,
                                psg_tir_expr **lane) {
  *lane = psgi_te_var(b, "lane");
  psg_tir_expr *ko = psgi_te_reduce_axis(b, r, ko_name, K / lanes);
  return psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, ko, psgi_te_int(b, lanes)), *lane);
}

/* out[..., i, j] = sum_k a[..., i/k] * b[..., k/j], with batch broadcasting
 * of the leading axes: dense (b is [N, K]), matmul and batch_matmul. */
static psg_status matmul(psgi_te_call *c, bool ta, bool tb, const char *name) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0], *w = c->args[1];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  if (x->ndim < 1 || w->ndim < 2) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s of rank %d and %d", c->op, x->ndim, w->ndim);
  int64_t K = ta ? x->shape[x->ndim - 2] : x->shape[x->ndim - 1];
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  /* both operands contiguous in k (x not transposed, w transposed, dense's
   * form): the lane-split sum, so neither is read at a stride */
  int64_t lanes = !ta && tb ? reduction_lanes(K) : 0;
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *lane = NULL, *k = lanes ? lane_index(b, &r, "k", K, lanes, &lane) : psgi_te_reduce_axis(b, &r, "k", K);
  psg_tir_expr *xi[PSG_MAX_RANK], *wi[PSG_MAX_RANK];
  /* x: leading axes broadcast against the output's, then (i, k) or (k, i). */
  int xl = x->ndim - 2;
  if (x->ndim == 1) {
    xi[0] = k;
  } else {
    for (int i = 0; i < xl; i++) xi[i] = x->shape[i] == 1 && dims[nd - x->ndim + i] != 1 ? psgi_te_int(b, 0) : ax[nd - x->ndim + i];
    xi[xl] = ta ? k : ax[nd - 2];
    xi[xl + 1] = ta ? ax[nd - 2] : k;
  }
  int wl = w->ndim - 2;
  for (int i = 0; i < wl; i++) wi[i] = w->shape[i] == 1 && dims[nd - w->ndim + i] != 1 ? psgi_te_int(b, 0) : ax[nd - w->ndim + i];
  wi[wl] = tb ? ax[nd - 1] : k;
  wi[wl + 1] = tb ? k : ax[nd - 1];
  psg_tir_expr *v = psgi_te_bin(b, PSG_TIR_MUL, psgi_te_cast(b, dtype, psgi_te_load(b, x, xi)),
                                psgi_te_cast(b, dtype, psgi_te_load(b, w, wi)));
  c->outs[c->nouts++] = lanes ? lane_split_sum(b, name, dtype, nd, dims, ax, lane, lanes, v, &r)
                              : psgi_te_compute(b, name, dtype, nd, dims, ax, v, &r);
  return psgi_te_status(b);
}

PSGI_TE_COMPUTE(dense) {
  if (!strcmp(c->op, "nn.dense")) return matmul(c, false, true, "T_matmul_NT");
  bool ta = psgi_attr_bool(c->attrs, "transpose_a", false), tb;
  char name[32];
  if (!strcmp(c->op, "nn.matmul")) {
    tb = psgi_attr_bool(c->attrs, "transpose_b", false);
    snprintf(name, sizeof name, "T_matmul_%c%c", ta ? 'T' : 'N', tb ? 'T' : 'N');
  } else {
    tb = psgi_attr_bool(c->attrs, "transpose_b", true);
    snprintf(name, sizeof name, "T_batch_matmul_%c%c", ta ? 'T' : 'N', tb ? 'T' : 'N');
  }
  return matmul(c, ta, tb, name);
}

/* nn.conv2d_transpose without dilation, in sub-pixel form: with y = qy*sh + py,
 * only the taps ky = (py + pt) % sh + ty*sh reach output row y, each from
 * input row qy + (py + pt) / sh - ty. Stage "conv2d_transpose_parity" is one
 * stride-1 convolution per output parity (py, px), over
 * [n, o, py, px, qy, qx], that sums only those taps (in the general form 3
 * products in 4 are zeros at stride 2); the output stage interleaves the
 * parities. The nonzero products are summed in the same (rc, ky, kx) order. */
static psg_status conv2d_transpose_parity(psgi_te_call *c, const int dp[4], const int kp[4], const int op[4],
                                          const int64_t s[2], const int64_t pad[4], int64_t groups) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *data = c->args[0], *kernel = c->args[1];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t C = data->shape[dp[1]], ocpg = kernel->shape[kp[0]], KH = kernel->shape[kp[2]], KW = kernel->shape[kp[3]];
  int64_t icpg = C / groups, H = data->shape[dp[2]], W = data->shape[dp[3]];
  int64_t pshape[6] = {dims[op[0]], dims[op[1]], s[0], s[1], (dims[op[2]] + s[0] - 1) / s[0],
                       (dims[op[3]] + s[1] - 1) / s[1]};
  psg_tir_expr *pax[6];
  psgi_te_axes(b, 6, pax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *rc = psgi_te_reduce_axis(b, &r, "rc", icpg), *ty = psgi_te_reduce_axis(b, &r, "ry", (KH + s[0] - 1) / s[0]),
               *tx = psgi_te_reduce_axis(b, &r, "rx", (KW + s[1] - 1) / s[1]);
  psg_tir_expr *f = pax[1], *zero = psgi_te_int(b, 0);
  psg_tir_expr *ci = groups == 1 ? rc
                                 : psgi_te_bin(b, PSG_TIR_ADD,
                                               psgi_te_bin(b, PSG_TIR_MUL, psgi_te_bin(b, PSG_TIR_FLOOR_DIV, f, psgi_te_int(b, ocpg)),
                                                           psgi_te_int(b, icpg)),
                                               rc);
  /* per axis: the tap k = (p + pad) % s + t*s and the input i = q + (p + pad) / s - t */
  psg_tir_expr *k[2], *in[2], *ok = NULL;
  psg_tir_expr *t[2] = {ty, tx};
  int64_t ext[2] = {KH, KW}, lim[2] = {H, W};
  for (int a = 0; a < 2; a++) {
    psg_tir_expr *pp = psgi_te_bin(b, PSG_TIR_ADD, pax[2 + a], psgi_te_int(b, pad[a]));
    k[a] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_FLOOR_MOD, pp, psgi_te_int(b, s[a])),
                       psgi_te_bin(b, PSG_TIR_MUL, t[a], psgi_te_int(b, s[a])));
    in[a] = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_ADD, pax[4 + a], psgi_te_bin(b, PSG_TIR_FLOOR_DIV, pp, psgi_te_int(b, s[a]))),
                        t[a]);
    psg_tir_expr *in_range = psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, in[a], zero),
                                         psgi_te_bin(b, PSG_TIR_LT, in[a], psgi_te_int(b, lim[a])));
    if (ext[a] % s[a]) in_range = psgi_te_bin(b, PSG_TIR_AND, in_range, psgi_te_bin(b, PSG_TIR_LT, k[a], psgi_te_int(b, ext[a])));
    ok = ok ? psgi_te_bin(b, PSG_TIR_AND, ok, in_range) : in_range;
  }
  psg_tir_expr *di[4], *ki[4];
  di[dp[0]] = pax[0], di[dp[1]] = ci, di[dp[2]] = in[0], di[dp[3]] = in[1];
  ki[kp[1]] = ci, ki[kp[0]] = groups == 1 ? f : psgi_te_bin(b, PSG_TIR_FLOOR_MOD, f, psgi_te_int(b, ocpg));
  ki[kp[2]] = k[0], ki[kp[3]] = k[1];
  psg_tir_expr *prod = psgi_te_bin(b, PSG_TIR_MUL, psgi_te_cast(b, dtype, psgi_te_load(b, data, di)),
                                   psgi_te_cast(b, dtype, psgi_te_load(b, kernel, ki)));
  psgi_te_tensor *par = psgi_te_compute(b, "conv2d_transpose_parity", dtype, 6, pshape, pax,
                                        psgi_te_if(b, ok, prod, psgi_te_const(b, dtype, 0)), &r);
  /* out[n, o, y, x] = par[n, o, y % sh, x % sw, y / sh, x / sw] */
  psg_tir_expr *ax[PSG_MAX_RANK], *pi[6];
  psgi_te_axes(b, nd, ax);
  pi[0] = ax[op[0]], pi[1] = ax[op[1]];
  for (int a = 0; a < 2; a++) {
    pi[2 + a] = psgi_te_bin(b, PSG_TIR_FLOOR_MOD, ax[op[2 + a]], psgi_te_int(b, s[a]));
    pi[4 + a] = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, ax[op[2 + a]], psgi_te_int(b, s[a]));
  }
  c->outs[c->nouts++] = psgi_te_compute(b, "compute", dtype, nd, dims, ax, par ? psgi_te_load(b, par, pi) : NULL, NULL);
  return psgi_te_status(b);
}

/* nn.conv2d_transpose: out[n, o, y, x] = sum over (rc, ky, kx) of
 * data[n, g*icpg + rc, (y + pt - ky*dh) / sh, ...] * w[g*icpg + rc, o % ocpg,
 * ky, kx], where the division is exact and in range (a guarded read; TOPI
 * dilates and pads the input instead, which reads the same elements): the
 * dilated case; without dilation, the sub-pixel form above. */
PSGI_TE_COMPUTE(conv2d_transpose) {
  psgi_te_builder *b = c->b;
  const psg_attrs *a = c->attrs;
  const char *dl = psgi_attr_str(a, "data_layout", "NCHW"), *kl = psgi_attr_str(a, "kernel_layout", "IOHW");
  const char *ol = psgi_attr_str(a, "out_layout", "");
  if (!ol[0]) ol = dl;
  int dp[4], kp[4], op[4];
  if (!layout_pos(dl, "NCHW", dp) || !layout_pos(kl, "OIHW", kp) || !layout_pos(ol, "NCHW", op))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.conv2d_transpose layouts %s/%s/%s", dl, kl, ol);
  psgi_te_tensor *data = c->args[0], *kernel = c->args[1];
  int64_t dims[PSG_MAX_RANK], s[2], d[2], pad[4];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t groups = psgi_attr_int(a, "groups", 1);
  pair(a, "strides", 1, s);
  pair(a, "dilation", 1, d);
  padding4(a, pad);
  if (d[0] == 1 && d[1] == 1 && groups >= 1 && data->shape[dp[1]] % groups == 0)
    return conv2d_transpose_parity(c, dp, kp, op, s, pad, groups);
  /* The kernel's "I" axis holds the input channels, "O" the outputs per group. */
  int64_t C = data->shape[dp[1]], ocpg = kernel->shape[kp[0]], KH = kernel->shape[kp[2]], KW = kernel->shape[kp[3]];
  if (groups < 1 || C % groups) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.conv2d_transpose groups");
  int64_t icpg = C / groups, H = data->shape[dp[2]], W = data->shape[dp[3]];
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *rc = psgi_te_reduce_axis(b, &r, "rc", icpg), *ry = psgi_te_reduce_axis(b, &r, "ry", KH),
               *rx = psgi_te_reduce_axis(b, &r, "rx", KW);
  psg_tir_expr *f = ax[op[1]];
  psg_tir_expr *ci = groups == 1 ? rc
                                 : psgi_te_bin(b, PSG_TIR_ADD,
                                               psgi_te_bin(b, PSG_TIR_MUL, psgi_te_bin(b, PSG_TIR_FLOOR_DIV, f, psgi_te_int(b, ocpg)),
                                                           psgi_te_int(b, icpg)),
                                               rc);
  psg_tir_expr *ty = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_ADD, ax[op[2]], psgi_te_int(b, pad[0])),
                                 psgi_te_bin(b, PSG_TIR_MUL, ry, psgi_te_int(b, d[0])));
  psg_tir_expr *tx = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_ADD, ax[op[3]], psgi_te_int(b, pad[1])),
                                 psgi_te_bin(b, PSG_TIR_MUL, rx, psgi_te_int(b, d[1])));
  psg_tir_expr *iy = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, ty, psgi_te_int(b, s[0]));
  psg_tir_expr *ix = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, tx, psgi_te_int(b, s[1]));
  psg_tir_expr *zero = psgi_te_int(b, 0);
  psg_tir_expr *ok = psgi_te_bin(
      b, PSG_TIR_AND,
      psgi_te_bin(b, PSG_TIR_AND,
                  psgi_te_bin(b, PSG_TIR_EQ, psgi_te_bin(b, PSG_TIR_FLOOR_MOD, ty, psgi_te_int(b, s[0])), zero),
                  psgi_te_bin(b, PSG_TIR_EQ, psgi_te_bin(b, PSG_TIR_FLOOR_MOD, tx, psgi_te_int(b, s[1])), zero)),
      psgi_te_bin(b, PSG_TIR_AND,
                  psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, ty, zero), psgi_te_bin(b, PSG_TIR_LT, iy, psgi_te_int(b, H))),
                  psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, tx, zero), psgi_te_bin(b, PSG_TIR_LT, ix, psgi_te_int(b, W)))));
  psg_tir_expr *di[4], *ki[4];
  di[dp[0]] = ax[op[0]], di[dp[1]] = ci, di[dp[2]] = iy, di[dp[3]] = ix;
  ki[kp[1]] = ci, ki[kp[0]] = groups == 1 ? f : psgi_te_bin(b, PSG_TIR_FLOOR_MOD, f, psgi_te_int(b, ocpg));
  ki[kp[2]] = ry, ki[kp[3]] = rx;
  psg_tir_expr *prod = psgi_te_bin(b, PSG_TIR_MUL, psgi_te_cast(b, dtype, psgi_te_load(b, data, di)),
                                   psgi_te_cast(b, dtype, psgi_te_load(b, kernel, ki)));
  psg_tir_expr *v = psgi_te_if(b, ok, prod, psgi_te_const(b, dtype, 0));
  c->outs[c->nouts++] = psgi_te_compute(b, "compute", dtype, nd, dims, ax, v, &r);
  return psgi_te_status(b);
}
