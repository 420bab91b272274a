/* Passage — compute definitions of the reductions and the normalizations
 * built on them (TOPI's reduction.h, nn/softmax.h, nn/layer_norm.h):
 * sum/max/min/prod as one reduction stage "<input>_red" (TOPI's name), mean
 * as that sum divided by the count, softmax and log_softmax as TOPI's
 * max / exp / sum / normalize stages, layer_norm as mean / variance /
 * normalize. */
#include <stdio.h>
#include "te/te.h"

int psgi_te_reduced_axes(psgi_te_call *c, int ndim, bool red[PSG_MAX_RANK]) {
  int64_t v[PSG_MAX_RANK];
  psg_attr *a = psg_attrs_get(c->attrs, "axis");
  bool all = !a || psg_attr_kind(a) == PSG_ATTR_NONE;
  int n = all ? 0 : psgi_attr_ints(c->attrs, "axis", v, PSG_MAX_RANK);
  if (n < 0) return psgi_te_fail(c->b, PSG_ERR_UNSUPPORTED, "te: %s axis", c->op);
  bool exclude = psgi_attr_bool(c->attrs, "exclude", false);
  for (int i = 0; i < ndim; i++) red[i] = all;
  for (int k = 0; k < n; k++) {
    int64_t x = v[k] < 0 ? v[k] + ndim : v[k];
    if (x < 0 || x >= ndim) return psgi_te_fail(c->b, PSG_ERR_UNSUPPORTED, "te: %s axis %lld", c->op, (long long)v[k]);
    red[x] = true;
  }
  if (exclude && !all)
    for (int i = 0; i < ndim; i++) red[i] = !red[i];
  return 0;
}

/* A reduction stage of x over the axes red[] with combiner `comb`; the
 * output keeps reduced axes as 1 when keepdims. `count` receives the number
 * of reduced elements. */
static psgi_te_tensor *reduce(psgi_te_builder *b, psgi_te_tensor *x, const bool *red, bool keepdims, int comb,
                              const char *name, int64_t *count) {
  int64_t dims[PSG_MAX_RANK];
  int nd = 0;
  for (int i = 0; i < x->ndim; i++)
    if (!red[i] || keepdims) dims[nd++] = red[i] ? 1 : x->shape[i];
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = comb};
  *count = 1;
  char rn[16];
  for (int i = 0, o = 0; i < x->ndim; i++) {
    if (red[i]) {
      snprintf(rn, sizeof rn, "k%d", i);
      in[i] = psgi_te_reduce_axis(b, &r, rn, x->shape[i]);
      *count *= x->shape[i];
      if (keepdims) o++;
    } else {
      in[i] = ax[o++];
    }
  }
  if (!r.naxes) { /* nothing reduced: the identity of the combiner applied once */
    r.combiner = PSGI_TE_NONE;
  }
  return psgi_te_compute(b, name, x->dtype, nd, dims, ax, psgi_te_load(b, x, in), &r);
}

PSGI_TE_COMPUTE(reduction) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  bool red[PSG_MAX_RANK];
  if (psgi_te_reduced_axes(c, x->ndim, red)) return psgi_te_status(b);
  bool keep = psgi_attr_bool(c->attrs, "keepdims", false);
  int comb = !strcmp(c->op, "max") ? PSGI_TE_MAX : !strcmp(c->op, "min") ? PSGI_TE_MIN
           : !strcmp(c->op, "prod") ? PSGI_TE_PROD : PSGI_TE_SUM;
  char name[64];
  snprintf(name, sizeof name, "%s_red", x->buf ? psg_tir_buffer_name(x->buf) : "x");
  int64_t count;
  psgi_te_tensor *s = reduce(b, x, red, keep, comb, name, &count);
  if (s && !strcmp(c->op, "mean")) {
    if (!psg_dtype_is_float(s->dtype)) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: mean of %s", psg_dtype_name(s->dtype));
    psg_tir_expr *ax[PSG_MAX_RANK];
    psgi_te_axes(b, s->ndim, ax);
    s = psgi_te_compute(b, "T_divide", s->dtype, s->ndim, s->shape, ax,
                        psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, s, ax), psgi_te_const(b, s->dtype, (double)count)),
                        NULL);
  }
  c->outs[c->nouts++] = s;
  return psgi_te_status(b);
}

/* idx without axis `axis` (for a tensor reduced over it, keepdims false). */
static void drop_axis(psg_tir_expr *const *idx, int nd, int axis, psg_tir_expr **out) {
  for (int i = 0, o = 0; i < nd; i++)
    if (i != axis) out[o++] = idx[i];
}

PSGI_TE_COMPUTE(softmax) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim, dt = x->dtype;
  int64_t axis = psgi_attr_int(c->attrs, "axis", -1);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s axis out of range", c->op);
  bool is_log = !strcmp(c->op, "nn.log_softmax");
  const char *pre = is_log ? "T_log_softmax" : "T_softmax";
  char name[64];
  bool red[PSG_MAX_RANK] = {false};
  red[axis] = true;
  int64_t count;
  snprintf(name, sizeof name, "%s_maxelem", pre);
  psgi_te_tensor *mx = reduce(b, x, red, false, PSGI_TE_MAX, name, &count);
  psg_tir_expr *ax[PSG_MAX_RANK], *o[PSG_MAX_RANK];
  psgi_te_tensor *e = NULL, *sum;
  if (!is_log) { /* exp(x - max) once, then summed and normalized */
    psgi_te_axes(b, nd, ax);
    drop_axis(ax, nd, (int)axis, o);
    e = psgi_te_compute(b, "T_softmax_exp", dt, nd, x->shape, ax,
                        psgi_te_math(b, "tir.exp", psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, ax), psgi_te_load(b, mx, o)), NULL),
                        NULL);
    sum = reduce(b, e, red, false, PSGI_TE_SUM, "T_softmax_expsum", &count);
  } else { /* the sum of exp(x - max) in one reduction */
    int64_t dims[PSG_MAX_RANK];
    psg_tir_expr *in[PSG_MAX_RANK];
    psgi_te_axes(b, nd - 1, o);
    psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
    for (int i = 0, k = 0; i < nd; i++) {
      if (i == axis) in[i] = psgi_te_reduce_axis(b, &r, "k", x->shape[i]);
      else dims[k] = x->shape[i], in[i] = o[k++];
    }
    sum = psgi_te_compute(b, "T_log_softmax_expsum", dt, nd - 1, dims, o,
                          psgi_te_math(b, "tir.exp", psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, in), psgi_te_load(b, mx, o)), NULL),
                          &r);
  }
  psgi_te_axes(b, nd, ax);
  drop_axis(ax, nd, (int)axis, o);
  psg_tir_expr *v;
  if (!is_log) v = psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, e, ax), psgi_te_load(b, sum, o));
  else
    v = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, ax), psgi_te_load(b, mx, o)),
                    psgi_te_math(b, "tir.log", psgi_te_load(b, sum, o), NULL));
  snprintf(name, sizeof name, "%s_norm", pre);
  c->outs[c->nouts++] = psgi_te_compute(b, name, dt, nd, x->shape, ax, v, NULL);
  return psgi_te_status(b);
}

/* nn.layer_norm(x, gamma, beta): (x - mean) / sqrt(var + eps) * gamma + beta
 * over one axis, gamma and beta along it. */
PSGI_TE_COMPUTE(layer_norm) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim, dt = x->dtype;
  int64_t axis = psgi_attr_int(c->attrs, "axis", -1);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || !psg_dtype_is_float(dt))
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s axis or dtype", c->op);
  double eps = psgi_attr_float(c->attrs, "epsilon", 1e-5);
  bool center = psgi_attr_bool(c->attrs, "center", true), scale = psgi_attr_bool(c->attrs, "scale", true);
  bool red[PSG_MAX_RANK] = {false};
  red[axis] = true;
  int64_t n;
  psg_tir_expr *ax[PSG_MAX_RANK], *o[PSG_MAX_RANK];
  psgi_te_tensor *sum = reduce(b, x, red, true, PSGI_TE_SUM, "T_layer_norm_sum", &n);
  psgi_te_axes(b, sum ? sum->ndim : 0, ax);
  psgi_te_tensor *mean = psgi_te_compute(b, "T_layer_norm_mean", dt, nd, sum ? sum->shape : x->shape, ax,
                                         psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, sum, ax), psgi_te_const(b, dt, (double)n)), NULL);
  /* The variance: the mean of the squared deviation. */
  psgi_te_axes(b, nd, o);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *in[PSG_MAX_RANK], *mi[PSG_MAX_RANK];
  for (int i = 0; i < nd; i++) {
    in[i] = i == axis ? psgi_te_reduce_axis(b, &r, "k", x->shape[i]) : o[i];
    mi[i] = i == axis ? psgi_te_int(b, 0) : o[i];
  }
  psg_tir_expr *dev = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, in), psgi_te_load(b, mean, mi));
  psgi_te_tensor *var = psgi_te_compute(b, "T_layer_norm_var", dt, nd, mean ? mean->shape : x->shape, o,
                                        psgi_te_bin(b, PSG_TIR_MUL, dev, dev), &r);
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < nd; i++) mi[i] = i == axis ? psgi_te_int(b, 0) : ax[i];
  psg_tir_expr *denom = psgi_te_math(b, "tir.sqrt",
                                     psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, var, mi), psgi_te_const(b, dt, (double)n)),
                                                 psgi_te_const(b, dt, eps)),
                                     NULL);
  psg_tir_expr *v = psgi_te_bin(b, PSG_TIR_DIV, psgi_te_bin(b, PSG_TIR_SUB, psgi_te_load(b, x, ax), psgi_te_load(b, mean, mi)), denom);
  if (scale) v = psgi_te_bin(b, PSG_TIR_MUL, v, psgi_te_load(b, c->args[1], &ax[axis]));
  if (center) v = psgi_te_bin(b, PSG_TIR_ADD, v, psgi_te_load(b, c->args[2], &ax[axis]));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_layer_norm", dt, nd, x->shape, ax, v, NULL);
  return psgi_te_status(b);
}

/* nn.l2_normalize: x / sqrt(max(sum(x * x over axis), eps)), the sum kept
 * with unit axes (axis None: every axis). */
PSGI_TE_COMPUTE(l2_normalize) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim, dt = x->dtype;
  if (!psg_dtype_is_float(dt)) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s of %s", c->op, psg_dtype_name(dt));
  bool red[PSG_MAX_RANK];
  if (psgi_te_reduced_axes(c, nd, red)) return psgi_te_status(b);
  int64_t dims[PSG_MAX_RANK];
  for (int i = 0; i < nd; i++) dims[i] = red[i] ? 1 : x->shape[i];
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK], *o[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  char rn[16];
  for (int i = 0; i < nd; i++) {
    snprintf(rn, sizeof rn, "k%d", i);
    in[i] = red[i] ? psgi_te_reduce_axis(b, &r, rn, x->shape[i]) : ax[i];
  }
  psg_tir_expr *xv = psgi_te_load(b, x, in);
  psgi_te_tensor *ss = psgi_te_compute(b, "T_l2_normalize_sum", dt, nd, dims, ax, psgi_te_bin(b, PSG_TIR_MUL, xv, xv),
                                       r.naxes ? &r : NULL);
  psgi_te_axes(b, nd, o);
  for (int i = 0; i < nd; i++) in[i] = red[i] ? psgi_te_int(b, 0) : o[i];
  double eps = psgi_attr_float(c->attrs, "eps", 0);
  psg_tir_expr *den = psgi_te_math(b, "tir.sqrt", psgi_te_bin(b, PSG_TIR_MAX, psgi_te_load(b, ss, in), psgi_te_const(b, dt, eps)), NULL);
  c->outs[c->nouts++] = psgi_te_compute(b, "T_l2_normalize", dt, nd, x->shape, o,
                                        psgi_te_bin(b, PSG_TIR_DIV, psgi_te_load(b, x, o), den), NULL);
  return psgi_te_status(b);
}
