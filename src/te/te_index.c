/* Passage — compute definitions of the gathers (TOPI's take and gather_nd in
 * transform.h, as the reference kernels src/ops/transform_index.c read
 * them): each output element reads the data at an index loaded from the
 * indices tensor, cast to int32. */
#include "te/te.h"

/* take(a, indices, axis, batch_dims, mode): clip (default), wrap or fast.
 * The output is a's axes before `axis`, the indices' axes after the batch
 * ones, then a's axes after `axis`; the first batch_dims axes are shared. */
PSGI_TE_COMPUTE(take) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *a = c->args[0], *ind = c->args[1];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  const char *mode = psgi_attr_str(c->attrs, "mode", "clip");
  psg_attr *axa = psg_attrs_get(c->attrs, "axis");
  bool flat = !axa || psg_attr_kind(axa) == PSG_ATTR_NONE;
  int64_t axis = flat ? 0 : psgi_attr_int(c->attrs, "axis", 0), bd = flat ? 0 : psgi_attr_int(c->attrs, "batch_dims", 0);
  if (axis < 0) axis += a->ndim;
  if (bd < 0) bd += ind->ndim;
  if (axis < 0 || axis >= a->ndim || bd < 0 || bd > axis || bd > ind->ndim)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: take axis %lld, batch_dims %lld", (long long)axis, (long long)bd);
  psg_tir_expr *ax[PSG_MAX_RANK], *ii[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < ind->ndim; i++) ii[i] = i < bd ? ax[i] : ax[axis + i - bd];
  psg_tir_expr *idx = psgi_te_cast(b, PSG_DTYPE_INT32, psgi_te_load(b, ind, ii));
  int64_t extent = 1;
  if (flat)
    for (int i = 0; i < a->ndim; i++) extent *= a->shape[i];
  else extent = a->shape[axis];
  if (!strcmp(mode, "wrap")) idx = psgi_te_bin(b, PSG_TIR_FLOOR_MOD, idx, psgi_te_int(b, extent));
  else if (strcmp(mode, "fast"))
    idx = psgi_te_bin(b, PSG_TIR_MIN, psgi_te_bin(b, PSG_TIR_MAX, idx, psgi_te_int(b, 0)), psgi_te_int(b, extent - 1));
  if (flat) {
    psg_tir_expr *only[1] = {idx};
    psgi_te_reshape_index(b, a, only, &extent, 1, in);
  } else {
    int after = (int)(axis + ind->ndim - bd); /* output position of a's axis + 1 */
    for (int i = 0; i < axis; i++) in[i] = ax[i];
    in[axis] = idx;
    for (int i = (int)axis + 1; i < a->ndim; i++) in[i] = ax[after + i - axis - 1];
  }
  c->outs[c->nouts++] = psgi_te_compute(b, "T_take", dtype, nd, dims, ax, psgi_te_load(b, a, in), NULL);
  return psgi_te_status(b);
}

/* gather_nd(data, indices (M, Y...), batch_dims): out[y..., t...] =
 * data[y[:batch_dims]..., indices[0, y...], ..., indices[M-1, y...], t...];
 * a negative index counts from the end, as the kernel reads it. */
PSGI_TE_COMPUTE(gather_nd) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0], *ind = c->args[1];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t m = ind->ndim ? ind->shape[0] : 0, bd = psgi_attr_int(c->attrs, "batch_dims", 0);
  int ny = ind->ndim - 1;
  if (ny < 0 || bd < 0 || bd > ny || bd + m > x->ndim)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: gather_nd of %lld index dims after %lld batch dims", (long long)m,
                        (long long)bd);
  psg_tir_expr *ax[PSG_MAX_RANK], *ii[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < bd; i++) in[i] = ax[i];
  for (int j = 0; j < m; j++) {
    ii[0] = psgi_te_int(b, j);
    for (int i = 0; i < ny; i++) ii[1 + i] = ax[i];
    psg_tir_expr *v = psgi_te_cast(b, PSG_DTYPE_INT32, psgi_te_load(b, ind, ii));
    int64_t d = x->shape[bd + j];
    in[bd + j] = psgi_te_select(b, psgi_te_bin(b, PSG_TIR_LT, v, psgi_te_int(b, 0)), psgi_te_bin(b, PSG_TIR_ADD, v, psgi_te_int(b, d)), v);
  }
  for (int64_t t = bd + m; t < x->ndim; t++) in[t] = ax[ny + t - bd - m];
  c->outs[c->nouts++] = psgi_te_compute(b, "T_gather_nd", dtype, nd, dims, ax, psgi_te_load(b, x, in), NULL);
  return psgi_te_status(b);
}
