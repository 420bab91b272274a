/* Passage — compute definitions of the normalizations left to the
 * interpreter's kernels (src/ops/norm.c) after layer_norm: nn.batch_norm
 * (inference: the moving statistics, returned as they are), nn.instance_norm
 * and nn.group_norm (TOPI's nn/instance_norm.py and group_norm.py: mean and
 * variance over the normalized axes, as layer_norm), nn.lrn (TOPI's
 * nn/local_response_norm.py: a windowed sum of squares along the axis), and
 * nn.dropout at inference (the data and an all-ones mask). */
#include <stdio.h>
#include "te/te.h"

/* instance_norm / group_norm over a view of x: x's axes, the channel axis
 * `axis` split into (G, C/G) for group_norm. kept[] marks the view axes the
 * statistics keep (the others are reduced). */
typedef struct norm_view {
  int n, axis;
  int64_t groups;                 /* 0: no split */
  int64_t dims[PSG_MAX_RANK];
  bool kept[PSG_MAX_RANK];
} norm_view;

/* x's indices of view indices v. */
static void view_to_x(psgi_te_builder *b, const norm_view *w, psg_tir_expr *const *v, psg_tir_expr **in) {
  if (!w->groups) {
    memcpy(in, v, (size_t)w->n * sizeof *in);
    return;
  }
  for (int i = 0, o = 0; i < w->n; i++, o++) {
    if (i == w->axis) {
      in[o] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, v[i], psgi_te_int(b, w->dims[i + 1])), v[i + 1]);
      i++;
    } else {
      in[o] = v[i];
    }
  }
}

/* The statistics' indices (view rank, reduced axes at 0) of x's indices. */
static void stat_index(psgi_te_builder *b, const norm_view *w, psg_tir_expr *const *x, psg_tir_expr **s) {
  for (int i = 0, o = 0; i < w->n; i++, o++) {
    if (w->groups && i == w->axis) {
      psg_tir_expr *per = psgi_te_int(b, w->dims[i + 1]);
      s[i] = w->kept[i] ? psgi_te_bin(b, PSG_TIR_FLOOR_DIV, x[o], per) : psgi_te_int(b, 0);
      s[i + 1] = w->kept[i + 1] ? psgi_te_bin(b, PSG_TIR_FLOOR_MOD, x[o], per) : psgi_te_int(b, 0);
      i++;
    } else {
      s[i] = w->kept[i] ? x[o] : psgi_te_int(b, 0);
    }
  }
}

/* (x - mean) / sqrt(var + eps) * gamma + beta with mean and var over the
 * view's reduced axes (stages _sum, _mean, _var as layer_norm's). */
static psg_status stats_norm(psgi_te_call *c, const norm_view *w, const char *pre) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int dt = x->dtype, nd = x->ndim, n = w->n;
  int64_t sd[PSG_MAX_RANK], count = 1;
  for (int i = 0; i < n; i++) {
    sd[i] = w->kept[i] ? w->dims[i] : 1;
    if (!w->kept[i]) count *= w->dims[i];
  }
  char name[64], rn[16];
  psg_tir_expr *ax[PSG_MAX_RANK], *v[PSG_MAX_RANK], *in[PSG_MAX_RANK], *s[PSG_MAX_RANK];
  /* sum, then mean */
  psgi_te_axes(b, n, ax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  for (int i = 0; i < n; i++) {
    snprintf(rn, sizeof rn, "k%d", i);
    v[i] = w->kept[i] ? ax[i] : psgi_te_reduce_axis(b, &r, rn, w->dims[i]);
  }
  view_to_x(b, w, v, in);
  snprintf(name, sizeof name, "%s_sum", pre);
  psgi_te_tensor *sum = psgi_te_compute(b, name, dt, n, sd, ax, psgi_te_load(b, x, in), r.naxes ? &r : NULL);
  psgi_te_axes(b, n, ax);
  snprintf(name, sizeof name, "%s_mean", pre);
  psgi_te_tensor *mean = psgi_te_compute(b, name, dt, n, sd, ax,
                                         psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, sum, ax), psgi_te_const(b, dt, (double)count)), NULL);
  /* the summed squared deviation */
  psgi_te_axes(b, n, ax);
  psgi_te_reduce q = {.combiner = PSGI_TE_SUM};
  for (int i = 0; i < n; i++) {
    snprintf(rn, sizeof rn, "k%d", i);
    v[i] = w->kept[i] ? ax[i] : psgi_te_reduce_axis(b, &q, rn, w->dims[i]);
    s[i] = w->kept[i] ? ax[i] : psgi_te_int(b, 0);
  }
  view_to_x(b, w, v, in);
  psg_tir_expr *dev = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, in), psgi_te_load(b, mean, s));
  snprintf(name, sizeof name, "%s_var", pre);
  psgi_te_tensor *var = psgi_te_compute(b, name, dt, n, sd, ax, psgi_te_bin(b, PSG_TIR_MUL, dev, dev), q.naxes ? &q : NULL);
  /* normalize */
  psgi_te_axes(b, nd, ax);
  stat_index(b, w, ax, s);
  psg_tir_expr *den = psgi_te_math(
      b, "tir.sqrt",
      psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, var, s), psgi_te_const(b, dt, (double)count)),
                  psgi_te_const(b, dt, psgi_attr_float(c->attrs, "epsilon", 1e-5))),
      NULL);
  psg_tir_expr *out = psgi_te_bin(b, PSG_TIR_DIV, psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, ax), psgi_te_load(b, mean, s)), den);
  int axis = w->axis;
  if (psgi_attr_bool(c->attrs, "scale", true)) out = psgi_te_bin(b, PSG_TIR_MUL, out, psgi_te_load(b, c->args[1], &ax[axis]));
  if (psgi_attr_bool(c->attrs, "center", true)) out = psgi_te_bin(b, PSG_TIR_ADD, out, psgi_te_load(b, c->args[2], &ax[axis]));
  c->outs[c->nouts++] = psgi_te_compute(b, pre, dt, nd, x->shape, ax, out, NULL);
  return psgi_te_status(b);
}

/* instance_norm: over every axis but the batch (0) and the channel axis;
 * group_norm: over the channels of a group and every axis after them. */
PSGI_TE_COMPUTE(group_norm) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim;
  int64_t axis = psgi_attr_int(c->attrs, "axis", 1);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || !psg_dtype_is_float(x->dtype))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s axis or dtype", c->op);
  norm_view w = {.n = nd, .axis = (int)axis};
  if (!strcmp(c->op, "nn.instance_norm")) {
    for (int i = 0; i < nd; i++) w.dims[i] = x->shape[i], w.kept[i] = i == 0 || i == axis;
    return stats_norm(c, &w, "T_instance_norm");
  }
  int64_t g = psgi_attr_int(c->attrs, "num_groups", 1);
  if (g < 1 || x->shape[axis] % g || nd + 1 > PSG_MAX_RANK)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.group_norm of %lld groups", (long long)g);
  w.groups = g;
  w.n = nd + 1;
  for (int i = 0; i < w.n; i++) {
    w.dims[i] = i < axis ? x->shape[i] : i == axis ? g : i == axis + 1 ? x->shape[axis] / g : x->shape[i - 1];
    w.kept[i] = i <= axis;
  }
  return stats_norm(c, &w, "T_group_norm");
}

/* batch_norm at inference: (x - mean) / sqrt(var + eps) * gamma + beta with
 * the moving statistics along `axis`; they are the 2nd and 3rd results. */
PSGI_TE_COMPUTE(batch_norm) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim, dt = x->dtype;
  int64_t axis = psgi_attr_int(c->attrs, "axis", 1);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || !psg_dtype_is_float(dt) || c->nargs != 5)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.batch_norm axis or dtype");
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *ch = ax[axis];
  psg_tir_expr *den = psgi_te_math(
      b, "tir.sqrt", psgi_te_bin(b, PSG_TIR_ADD, psgi_te_load(b, c->args[4], &ch), psgi_te_const(b, dt, psgi_attr_float(c->attrs, "epsilon", 1e-5))),
      NULL);
  psg_tir_expr *v = psgi_te_bin(b, PSG_TIR_DIV, psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, ax), psgi_te_load(b, c->args[3], &ch)), den);
  if (psgi_attr_bool(c->attrs, "scale", true)) v = psgi_te_bin(b, PSG_TIR_MUL, v, psgi_te_load(b, c->args[1], &ch));
  if (psgi_attr_bool(c->attrs, "center", true)) v = psgi_te_bin(b, PSG_TIR_ADD, v, psgi_te_load(b, c->args[2], &ch));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_batch_norm", dt, nd, x->shape, ax, v, NULL);
  c->outs[c->nouts++] = c->args[3];
  c->outs[c->nouts++] = c->args[4];
  return psgi_te_status(b);
}

/* lrn: x / (bias + alpha * sum(x^2 over [c - size/2, c - size/2 + size)) /
 * size)^beta along `axis`, zero outside the channels. */
PSGI_TE_COMPUTE(lrn) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim, dt = x->dtype;
  int64_t axis = psgi_attr_int(c->attrs, "axis", 1), size = psgi_attr_int(c->attrs, "size", 5);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || size < 1 || !psg_dtype_is_float(dt))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.lrn axis, size or dtype");
  double bias = psgi_attr_float(c->attrs, "bias", 2), alpha = psgi_attr_float(c->attrs, "alpha", 1e-4),
         beta = psgi_attr_float(c->attrs, "beta", 0.75);
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *k = psgi_te_reduce_axis(b, &r, "rxk", size);
  memcpy(in, ax, sizeof in);
  in[axis] = psgi_te_bin(b, PSG_TIR_ADD, ax[axis], psgi_te_bin(b, PSG_TIR_SUB, k, psgi_te_int(b, size / 2)));
  psg_tir_expr *ok = psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, in[axis], psgi_te_int(b, 0)),
                                 psgi_te_bin(b, PSG_TIR_LT, in[axis], psgi_te_int(b, x->shape[axis])));
  psg_tir_expr *xv = psgi_te_load(b, x, in);
  psgi_te_tensor *sq = psgi_te_compute(b, "T_lrn_sqr_sum", dt, nd, x->shape, ax,
                                       psgi_te_if(b, ok, psgi_te_bin(b, PSG_TIR_MUL, xv, xv), psgi_te_const(b, dt, 0)), &r);
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *base = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_const(b, dt, bias),
                                   psgi_te_bin(b, PSG_TIR_DIV, psgi_te_bin(b, PSG_TIR_MUL, psgi_te_const(b, dt, alpha), psgi_te_load(b, sq, ax)),
                                               psgi_te_const(b, dt, (double)size)));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_lrn", dt, nd, x->shape, ax,
                                        psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, x, ax),
                                                    psgi_te_math(b, "tir.pow", base, psgi_te_const(b, dt, beta))),
                                        NULL);
  return psgi_te_status(b);
}

/* dropout at inference (what the kernel does; TVM drops the op in
 * SimplifyInference): the data unchanged and a mask of ones. */
PSGI_TE_COMPUTE(dropout) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, x->ndim, ax);
  c->outs[c->nouts++] = psgi_te_compute(b, "T_dropout", x->dtype, x->ndim, x->shape, ax, psgi_te_load(b, x, ax), NULL);
  psgi_te_axes(b, x->ndim, ax);
  c->outs[c->nouts++] = psgi_te_compute(b, "T_dropout_mask", x->dtype, x->ndim, x->shape, ax, psgi_te_const(b, x->dtype, 1), NULL);
  return psgi_te_status(b);
}
