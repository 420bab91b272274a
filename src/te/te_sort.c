/* Passage — compute definitions of the ops that produce indices: argmax,
 * argmin (TOPI's argmax/argmin, a reduction to the index of the extreme),
 * argsort and topk. The reference kernels (src/ops/reduce.c,
 * transform_sort.c) fix the order: the first extreme wins (the last with
 * select_last_index), a NaN wins over every number, sorting is stable with
 * NaN above +inf. TVM reduces (index, value) pairs with one tuple reducer;
 * our builder has single-value reducers, so the index comes from a second
 * reduction over positions that compare equal to the extreme. TVM sorts
 * through an extern call (tvm.contrib.sort); here a sort is a compute: an
 * element's position is the number of elements that go before it. */
#include <math.h>
#include <stdio.h>
#include "te/te.h"

/* x's indices for output axes `ax` of a reduction over red[] (reduce vars
 * in rv, one per reduced axis in order), and, when flat is not NULL, the
 * row-major flat position of the reduce vars (int32) in *flat. */
static void reduce_index(psgi_te_builder *b, const psgi_te_tensor *x, const bool *red, bool keep,
                         psg_tir_expr *const *ax, psg_tir_expr *const *rv, psg_tir_expr **in, psg_tir_expr **flat) {
  if (flat) *flat = psgi_te_int(b, 0);
  for (int i = 0, o = 0, r = 0; i < x->ndim; i++) {
    if (red[i]) {
      in[i] = rv[r++];
      if (flat) *flat = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, *flat, psgi_te_int(b, x->shape[i])), in[i]);
      if (keep) o++;
    } else {
      in[i] = ax[o++];
    }
  }
}

/* Fresh reduce vars k<axis> for the reduced axes of x into r (and rv). */
static int64_t reduce_vars(psgi_te_builder *b, const psgi_te_tensor *x, const bool *red, psgi_te_reduce *r,
                           psg_tir_expr **rv) {
  int64_t n = 1;
  char name[16];
  for (int i = 0; i < x->ndim; i++)
    if (red[i]) {
      snprintf(name, sizeof name, "k%d", i);
      rv[r->naxes] = psgi_te_reduce_axis(b, r, name, x->shape[i]);
      n *= x->shape[i];
    }
  return n;
}

static psg_tir_expr *f_inf(psgi_te_builder *b, int dtype, bool neg) { return psgi_te_const(b, dtype, neg ? -INFINITY : INFINITY); }

/* argmax / argmin: stage "<x>_red_temp" holds the extreme of the non-NaN
 * values, stage "<x>_red" the position. On floats the position reduction
 * ranks a NaN at k, the chosen match at N + k (or 2N - 1 - k for the last
 * one) and the rest at 2N, and a last stage decodes the winner. */
PSGI_TE_COMPUTE(arg_reduce) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  bool red[PSG_MAX_RANK];
  if (psgi_te_reduced_axes(c, x->ndim, red)) return psgi_te_status(b);
  bool keep = psgi_attr_bool(c->attrs, "keepdims", false), last = psgi_attr_bool(c->attrs, "select_last_index", false);
  bool is_max = !strcmp(c->op, "argmax"), fl = psg_dtype_is_float(x->dtype);
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  const char *xn = x->buf ? psg_tir_buffer_name(x->buf) : "x";
  char name[96];
  /* The extreme value. */
  psg_tir_expr *ax[PSG_MAX_RANK], *rv[PSG_MAX_RANK], *in[PSG_MAX_RANK], *flat;
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = is_max ? PSGI_TE_MAX : PSGI_TE_MIN};
  int64_t n = reduce_vars(b, x, red, &r, rv);
  if (n < 1 || 2 * n > INT32_MAX) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s over %lld elements", c->op, (long long)n);
  reduce_index(b, x, red, keep, ax, rv, in, NULL);
  psg_tir_expr *v = psgi_te_load(b, x, in);
  if (fl) {
    r.init = f_inf(b, x->dtype, is_max);
    v = psgi_te_select(b, psgi_te_math_pred(b, "tir.isnan", v), r.init, v);
  }
  snprintf(name, sizeof name, "%s_red_temp", xn);
  psgi_te_tensor *m = psgi_te_compute(b, name, x->dtype, nd, dims, ax, v, &r);
  /* The position. */
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce p = {.combiner = PSGI_TE_MIN};
  reduce_vars(b, x, red, &p, rv);
  reduce_index(b, x, red, keep, ax, rv, in, &flat);
  v = psgi_te_load(b, x, in);
  psg_tir_expr *hit = psgi_te_bin(b, PSG_TIR_EQ, v, psgi_te_load(b, m, ax)), *N = psgi_te_int(b, n), *pos;
  if (!fl) {
    if (last) p.combiner = PSGI_TE_MAX;
    p.init = last ? psgi_te_int(b, -1) : N;
    pos = psgi_te_select(b, hit, flat, p.init);
  } else {
    psg_tir_expr *match = last ? psgi_te_bin(b, PSG_TIR_SUB, psgi_te_int(b, 2 * n - 1), flat) : psgi_te_bin(b, PSG_TIR_ADD, N, flat);
    p.init = psgi_te_int(b, 2 * n);
    pos = psgi_te_select(b, psgi_te_math_pred(b, "tir.isnan", v), flat, psgi_te_select(b, hit, match, p.init));
  }
  snprintf(name, sizeof name, fl ? "%s_red_pos" : "%s_red", xn);
  psgi_te_tensor *t = psgi_te_compute(b, name, PSG_DTYPE_INT32, nd, dims, ax, pos, &p);
  if (fl) {
    psgi_te_axes(b, nd, ax);
    psg_tir_expr *e = psgi_te_load(b, t, ax);
    psg_tir_expr *dec = last ? psgi_te_bin(b, PSG_TIR_SUB, psgi_te_int(b, 2 * n - 1), e) : psgi_te_bin(b, PSG_TIR_SUB, e, N);
    snprintf(name, sizeof name, "%s_red", xn);
    t = psgi_te_compute(b, name, PSG_DTYPE_INT32, nd, dims, ax, psgi_te_select(b, psgi_te_bin(b, PSG_TIR_LT, e, N), e, dec), NULL);
  }
  c->outs[c->nouts++] = t;
  return psgi_te_status(b);
}

/* a < b in the kernels' order (NaN above +inf). */
static psg_tir_expr *less(psgi_te_builder *b, bool fl, psg_tir_expr *x, psg_tir_expr *y) {
  psg_tir_expr *lt = psgi_te_bin(b, PSG_TIR_LT, x, y);
  if (!fl) return lt;
  return psgi_te_select(b, psgi_te_math_pred(b, "tir.isnan", y), psgi_te_not(b, psgi_te_math_pred(b, "tir.isnan", x)), lt);
}

/* argsort and topk: "T_<op>_rank" holds each element's place in the stable
 * order along the axis (how many elements go before it: those strictly
 * before, and the equal ones at a smaller index); the indices are the
 * element of each place, the values (topk) read through them. */
PSGI_TE_COMPUTE(sort) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  bool topk = !strcmp(c->op, "topk"), fl = psg_dtype_is_float(x->dtype);
  int nd = x->ndim;
  int64_t axis = psgi_attr_int(c->attrs, "axis", -1);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s axis", c->op);
  bool asc = psgi_attr_bool(c->attrs, "is_ascend", !topk);
  const char *ret = psgi_attr_str(c->attrs, "ret_type", "both");
  int64_t A = x->shape[axis], k = topk ? psgi_attr_int(c->attrs, "k", 1) : A;
  if (k < 1 || k > A) k = A;
  int idt = PSG_DTYPE_INT32;
  if (!topk) idt = psg_type_dtype(c->out_type);
  else if (psg_type_kind(c->out_type) == PSG_TYPE_TUPLE) idt = psg_type_dtype(psg_type_field(c->out_type, 1));
  else if (!strcmp(ret, "indices")) idt = psg_type_dtype(c->out_type);
  char pre[32], name[64];
  snprintf(pre, sizeof pre, "T_%s", c->op);
  /* The place of each element. */
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce r = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *j = psgi_te_reduce_axis(b, &r, "j", A);
  memcpy(in, ax, sizeof in);
  in[axis] = j;
  psg_tir_expr *xi = psgi_te_load(b, x, ax), *xj = psgi_te_load(b, x, in);
  psg_tir_expr *ji = asc ? less(b, fl, xj, xi) : less(b, fl, xi, xj), *ij = asc ? less(b, fl, xi, xj) : less(b, fl, xj, xi);
  psg_tir_expr *before =
      psgi_te_bin(b, PSG_TIR_OR, ji, psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_LT, j, ax[axis]), psgi_te_not(b, ij)));
  snprintf(name, sizeof name, "%s_rank", pre);
  psgi_te_tensor *rank = psgi_te_compute(b, name, PSG_DTYPE_INT32, nd, x->shape, ax, psgi_te_cast(b, PSG_DTYPE_INT32, before), &r);
  /* The element at each kept place. */
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, x->shape, sizeof dims);
  dims[axis] = k;
  psgi_te_axes(b, nd, ax);
  psgi_te_reduce s = {.combiner = PSGI_TE_SUM};
  psg_tir_expr *i = psgi_te_reduce_axis(b, &s, "i", A);
  memcpy(in, ax, sizeof in);
  in[axis] = i;
  psg_tir_expr *at = psgi_te_select(b, psgi_te_bin(b, PSG_TIR_EQ, psgi_te_load(b, rank, in), ax[axis]), psgi_te_cast(b, idt, i),
                                    psgi_te_const(b, idt, 0));
  snprintf(name, sizeof name, topk ? "%s_indices" : "%s", pre);
  psgi_te_tensor *idx = psgi_te_compute(b, name, idt, nd, dims, ax, at, &s);
  if (!topk) {
    c->outs[c->nouts++] = idx;
    return psgi_te_status(b);
  }
  psgi_te_tensor *vals = NULL;
  if (strcmp(ret, "indices")) {
    psgi_te_axes(b, nd, ax);
    memcpy(in, ax, sizeof in);
    in[axis] = psgi_te_cast(b, PSG_DTYPE_INT32, psgi_te_load(b, idx, ax));
    snprintf(name, sizeof name, "%s_values", pre);
    vals = psgi_te_compute(b, name, x->dtype, nd, dims, ax, psgi_te_load(b, x, in), NULL);
  }
  if (vals) c->outs[c->nouts++] = vals;
  if (strcmp(ret, "values")) c->outs[c->nouts++] = idx;
  return psgi_te_status(b);
}
