/* Passage — nn.conv3d: TVM's Conv3DRel (layouts any permutation of NCDHW /
 * OIDHW, blocked ones such as NCDHW2c / OIDHW2i4o through their primal
 * forms; padding of 1, 3 or 6 values; groups; optional channels /
 * kernel_size checked against the weight) and a direct reference kernel
 * (primal layouts) accumulating in double, in the order input channel, kd,
 * kh, kw. */
#include "ops/layout_blocked.h"
#include "ops/nn_internal.h"

enum { NSP = 3 }; /* spatial axes: D, H, W */

/* Logical axes: data/output N C D H W, weight O I D H W. */
typedef struct conv3d_geom {
  int dpos[5], kpos[5], opos[5]; /* where each logical axis sits in the layout */
  int64_t n, c, sp[NSP];          /* data */
  int64_t ko, ki, k[NSP];         /* weight */
  int64_t oc, osp[NSP];           /* output */
  int64_t groups, stride[NSP], dil[NSP], pad_lo[NSP], pad_hi[NSP];
  int out_dtype;
} conv3d_geom;

static bool known(int64_t d) { return d != PSG_DIM_UNKNOWN; }

/* Position of each letter of `letters` (5) in `layout`, an unblocked
 * permutation of them. */
static bool parse_layout(const char *layout, const char *letters, int pos[5]) {
  psgi_blocked_layout l;
  if (!psgi_blocked_parse(layout, &l) || psgi_blocked_is_split(&l) || l.nprimal != 5) return false;
  for (int a = 0; a < 5; a++) {
    const char *p = strchr(l.primal, letters[a]);
    if (!p) return false;
    pos[a] = (int)(p - l.primal);
  }
  return true;
}

/* A (d, h, w) attribute: absent gives dflt, one value for all three. */
static psg_status dhw_attr(psgi_op_call *call, const char *key, int64_t dflt, int64_t v[NSP]) {
  int64_t a[NSP];
  int n;
  psg_status st = psgi_nn_opt_ints(call, key, a, NSP, &n);
  if (st) return st;
  if (n != 0 && n != 1 && n != NSP)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: %s must have 1 or 3 values, got %d", key, n);
  for (int i = 0; i < NSP; i++) {
    v[i] = n == 0 ? dflt : n == 1 ? a[0] : a[i];
    if (v[i] < 1) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: %s must be at least 1", key);
  }
  return PSG_OK;
}

/* TVM's padding: one value for all, three for (d, h, w) both sides, six for
 * (front, top, left, back, bottom, right). */
static psg_status padding_attr(psgi_op_call *call, conv3d_geom *g) {
  int64_t p[2 * NSP];
  int n;
  psg_status st = psgi_nn_opt_ints(call, "padding", p, 2 * NSP, &n);
  if (st) return st;
  if (n != 0 && n != 1 && n != NSP && n != 2 * NSP)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: padding must have 1, 3 or 6 values, got %d", n);
  for (int i = 0; i < NSP; i++) {
    g->pad_lo[i] = n == 0 ? 0 : n == 1 ? p[0] : p[i];
    g->pad_hi[i] = n == 0 ? 0 : n == 1 ? p[0] : n == NSP ? p[i] : p[NSP + i];
    if (g->pad_lo[i] < 0 || g->pad_hi[i] < 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: padding must not be negative");
  }
  return PSG_OK;
}

static void layouts(psgi_op_call *call, const char *lay[3]) {
  lay[0] = psgi_attr_str(call->attrs, "data_layout", "NCDHW");
  lay[1] = psgi_attr_str(call->attrs, "kernel_layout", "OIDHW");
  lay[2] = psgi_attr_str(call->attrs, "out_layout", "");
  if (!*lay[2]) lay[2] = lay[0];
}

static psg_status setup(psgi_op_call *call, const psg_type *data, const psg_type *weight, const char *const lay[3],
                        conv3d_geom *g) {
  memset(g, 0, sizeof *g);
  if (!parse_layout(lay[0], "NCDHW", g->dpos) || !parse_layout(lay[1], "OIDHW", g->kpos) ||
      !parse_layout(lay[2], "NCDHW", g->opos))
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: unsupported layouts '%s', '%s', '%s'", lay[0], lay[1],
                        lay[2]);
  char buf[128];
  if (data->n != 5 || weight->n != 5)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: data and weight must be 5-D, got %s and %d-D",
                        psgi_shape_str(data, buf, sizeof buf), weight->n);
  g->n = data->dims[g->dpos[0]], g->c = data->dims[g->dpos[1]];
  g->ko = weight->dims[g->kpos[0]], g->ki = weight->dims[g->kpos[1]];
  for (int i = 0; i < NSP; i++) g->sp[i] = data->dims[g->dpos[2 + i]], g->k[i] = weight->dims[g->kpos[2 + i]];
  psg_status st;
  if ((st = dhw_attr(call, "strides", 1, g->stride)) || (st = dhw_attr(call, "dilation", 1, g->dil)) ||
      (st = padding_attr(call, g)))
    return st;
  g->groups = psgi_attr_int(call->attrs, "groups", 1);
  if (g->groups < 1) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: groups must be at least 1");
  int64_t ks[NSP];
  int nks;
  if ((st = psgi_nn_opt_ints(call, "kernel_size", ks, NSP, &nks))) return st;
  if (nks && nks != NSP) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: kernel_size must have 3 values");
  for (int i = 0; nks && i < NSP; i++) {
    if (known(g->k[i]) && ks[i] != g->k[i])
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: kernel_size does not match the weight's %s",
                          psgi_shape_str(weight, buf, sizeof buf));
    g->k[i] = ks[i];
  }
  int64_t channels = psgi_attr_int(call->attrs, "channels", -1), ki_total = 0;
  if (known(g->ki) && !psgi_checked_mul(g->ki, g->groups, &ki_total))
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: weight channels * groups overflow int64");
  if (known(g->c) && known(g->ki) && g->c != ki_total)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: input channels %lld do not match weight's %lld * groups %lld",
                        (long long)g->c, (long long)g->ki, (long long)g->groups);
  if (channels >= 0 && known(g->ko) && channels != g->ko)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: channels %lld do not match the weight's %lld",
                        (long long)channels, (long long)g->ko);
  g->oc = channels >= 0 ? channels : g->ko;
  if (known(g->oc) && g->oc % g->groups)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: output channels are not divisible by groups");
  for (int i = 0; i < NSP; i++) {
    g->osp[i] = PSG_DIM_UNKNOWN;
    if (!known(g->sp[i]) || !known(g->k[i])) continue;
    if (g->k[i] < 1) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: the kernel must be at least 1 wide");
    int64_t eff, padded;
    if (!psgi_checked_mul(g->k[i] - 1, g->dil[i], &eff) || !psgi_checked_add(eff, 1, &eff) ||
        !psgi_checked_add(g->sp[i], g->pad_lo[i], &padded) || !psgi_checked_add(padded, g->pad_hi[i], &padded))
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: the extents overflow int64");
    if (padded < eff)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: the dilated kernel (%lld) exceeds the padded input (%lld)",
                          (long long)eff, (long long)padded);
    g->osp[i] = (padded - eff) / g->stride[i] + 1;
  }
  return psgi_nn_out_dtype(call, data->dtype, &g->out_dtype);
}

/* The output dims in the (primal) out layout. */
static void out_dims(const conv3d_geom *g, int64_t dims[5]) {
  dims[g->opos[0]] = g->n, dims[g->opos[1]] = g->oc;
  for (int i = 0; i < NSP; i++) dims[g->opos[2 + i]] = g->osp[i];
}

static psg_status primal_type(psgi_op_call *call, const psgi_blocked_layout *l, const psg_type *t,
                              const psg_type **out) {
  if (t->n != l->n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: a %d-D argument for a layout of %d axes", t->n, l->n);
  int64_t dims[PSG_MAX_RANK];
  psgi_blocked_to_primal(l, t->dims, dims);
  return psgi_rel_make(call, dims, l->nprimal, t->dtype, out);
}

psg_status psgi_nn_conv3d_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *data, *weight;
  const char *lay[3];
  layouts(call, lay);
  psg_status st;
  if ((st = psgi_rel_tensor_arg(call, args, 0, &data)) || (st = psgi_rel_tensor_arg(call, args, 1, &weight)))
    return st;
  psgi_blocked_layout l[3];
  bool split = false;
  for (int i = 0; i < 3; i++) {
    if (!psgi_blocked_parse(lay[i], &l[i]))
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: unsupported layout '%s'", lay[i]);
    split |= psgi_blocked_is_split(&l[i]);
  }
  conv3d_geom g;
  int64_t p[5], dims[PSG_MAX_RANK];
  if (!split) {
    if ((st = setup(call, data, weight, lay, &g))) return st;
    out_dims(&g, p);
    return psgi_rel_make(call, p, 5, g.out_dtype, out);
  }
  const char *primal[3] = {l[0].primal, l[1].primal, l[2].primal};
  if ((st = primal_type(call, &l[0], data, &data)) || (st = primal_type(call, &l[1], weight, &weight)) ||
      (st = setup(call, data, weight, primal, &g)))
    return st;
  out_dims(&g, p);
  if (!psgi_blocked_from_primal(&l[2], p, dims))
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: the output does not split into out_layout '%s'", lay[2]);
  return psgi_rel_make(call, dims, l[2].n, g.out_dtype, out);
}

/* Kernel ---------------------------------------------------------------------- */

/* Element strides of each logical axis of a tensor in its layout. */
static void logical_strides(const psg_tensor *t, const int pos[5], int64_t out[5]) {
  int64_t st[5];
  psgi_row_strides(t->shape, 5, st);
  for (int a = 0; a < 5; a++) out[a] = st[pos[a]];
}

psg_status psgi_nn_conv3d_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                 psgi_value **out) {
  (void)nargs;
  *out = NULL;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *w = psgi_value_as_tensor(args[1]);
  const psg_type *xt = psgi_value_type(call->ctx, args[0]), *wt = psgi_value_type(call->ctx, args[1]);
  if (!x || !w || !xt || !wt) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.conv3d: arguments must be tensors");
  const char *lay[3];
  layouts(call, lay);
  conv3d_geom g;
  psg_status st = setup(call, xt, wt, lay, &g);
  if (st) return st;
  psg_tensor *res = NULL;
  void *dst = NULL;
  if ((st = psgi_kernel_alloc(call, out_type, &res, &dst))) return st;
  int64_t xs[5], ws[5], ys[5];
  logical_strides(x, g.dpos, xs);
  logical_strides(w, g.kpos, ws);
  logical_strides(res, g.opos, ys);
  int64_t cpg = g.c / g.groups, opg = g.oc / g.groups;
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t oc = 0; oc < g.oc; oc++)
      for (int64_t od = 0; od < g.osp[0]; od++)
        for (int64_t oh = 0; oh < g.osp[1]; oh++)
          for (int64_t ow = 0; ow < g.osp[2]; ow++) {
            double acc = 0;
            int64_t grp = oc / opg;
            for (int64_t ic = 0; ic < cpg; ic++)
              for (int64_t kd = 0; kd < g.k[0]; kd++) {
                int64_t id = od * g.stride[0] + kd * g.dil[0] - g.pad_lo[0];
                if (id < 0 || id >= g.sp[0]) continue;
                for (int64_t kh = 0; kh < g.k[1]; kh++) {
                  int64_t ih = oh * g.stride[1] + kh * g.dil[1] - g.pad_lo[1];
                  if (ih < 0 || ih >= g.sp[1]) continue;
                  for (int64_t kw = 0; kw < g.k[2]; kw++) {
                    int64_t iw = ow * g.stride[2] + kw * g.dil[2] - g.pad_lo[2];
                    if (iw < 0 || iw >= g.sp[2]) continue;
                    int64_t xi = n * xs[0] + (grp * cpg + ic) * xs[1] + id * xs[2] + ih * xs[3] + iw * xs[4];
                    int64_t wi = oc * ws[0] + ic * ws[1] + kd * ws[2] + kh * ws[3] + kw * ws[4];
                    acc += psgi_load_f(x->dtype, x->data, (size_t)xi) * psgi_load_f(w->dtype, w->data, (size_t)wi);
                  }
                }
              }
            int64_t yi = n * ys[0] + oc * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4];
            psgi_store_f(res->dtype, dst, (size_t)yi, acc);
          }
  return psgi_kernel_result(call, res, out);
}
