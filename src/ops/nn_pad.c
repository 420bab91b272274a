/* Passage — nn.pad (issue 5): TVM's PadRel (pad_width is one [before, after]
 * pair per axis, the pad value is the second argument, a scalar) and a kernel
 * for the "constant", "edge" and "reflect" modes that copies elements as bytes,
 * so every dtype pads exactly. */
#include "ops/nn_internal.h"

enum { PAD_CONSTANT, PAD_EDGE, PAD_REFLECT };

static psg_status pad_mode(psgi_op_call *call, int *mode) {
  const char *m = psgi_attr_str(call->attrs, "pad_mode", "constant");
  if (!strcmp(m, "constant")) *mode = PAD_CONSTANT;
  else if (!strcmp(m, "edge")) *mode = PAD_EDGE;
  else if (!strcmp(m, "reflect")) *mode = PAD_REFLECT;
  else
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.pad: unknown pad_mode '%s' (constant, edge or reflect)", m);
  return PSG_OK;
}

/* Reads pad_width into before[] / after[] for a rank-`ndim` tensor. */
static psg_status pad_widths(psgi_op_call *call, int ndim, int64_t *before, int64_t *after) {
  psg_attr *pw = psg_attrs_get(call->attrs, "pad_width");
  size_t n = pw && psg_attr_kind(pw) == PSG_ATTR_LIST ? psg_attr_list_len(pw) : 0;
  if (pw && psg_attr_kind(pw) != PSG_ATTR_LIST && psg_attr_kind(pw) != PSG_ATTR_NONE)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.pad: pad_width must be a list of [before, after] pairs");
  if (n != (size_t)ndim)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "nn.pad: there should be as many pad width pairs as shape dimensions but the shape has %d "
                        "dimensions and there are %zu pad width pairs",
                        ndim, n);
  for (size_t i = 0; i < n; i++) {
    psg_attr *p = psg_attr_list_get(pw, i);
    if (psg_attr_kind(p) != PSG_ATTR_LIST || psg_attr_list_len(p) != 2 ||
        psg_attr_kind(psg_attr_list_get(p, 0)) != PSG_ATTR_INT ||
        psg_attr_kind(psg_attr_list_get(p, 1)) != PSG_ATTR_INT)
      return psgi_op_fail(call, PSG_ERR_TYPE,
                          "nn.pad: each pad width element should be a pair of ints but at index %zu it is not",
                          i);
    before[i] = psg_attr_get_int(psg_attr_list_get(p, 0));
    after[i] = psg_attr_get_int(psg_attr_list_get(p, 1));
  }
  return PSG_OK;
}

psg_status psgi_nn_pad_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *data, *value;
  int64_t before[PSG_MAX_RANK], after[PSG_MAX_RANK], dims[PSG_MAX_RANK];
  int mode = PAD_CONSTANT;
  char buf[128];
  psg_status st;
  if ((st = psgi_rel_tensor_arg(call, args, 0, &data)) || (st = psgi_rel_tensor_arg(call, args, 1, &value)) ||
      (st = pad_mode(call, &mode)) || (st = pad_widths(call, data->n, before, after)))
    return st;
  if (value->n != 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.pad: the pad value must be a scalar, got %s",
                        psgi_shape_str(value, buf, sizeof buf));
  for (int i = 0; i < data->n; i++) {
    int64_t d = data->dims[i];
    if (d == PSG_DIM_UNKNOWN) {
      dims[i] = d;
      continue;
    }
    if (!psgi_checked_add(d, before[i], &dims[i]) || !psgi_checked_add(dims[i], after[i], &dims[i]))
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.pad: the padded extent of axis %d overflows int64", i);
    if (dims[i] < 0)
      return psgi_op_fail(call, PSG_ERR_TYPE,
                          "nn.pad: output shape post padding should be positive but got %lld on axis %d",
                          (long long)dims[i], i);
    /* Reflection mirrors around the edge element without repeating it, so
     * it reaches at most d - 1 elements out; edge needs an element to copy. */
    int64_t most = before[i] > after[i] ? before[i] : after[i];
    if (mode == PAD_REFLECT && most > 0 && most > d - 1)
      return psgi_op_fail(call, PSG_ERR_TYPE,
                          "nn.pad: reflect padding %lld on axis %d must be smaller than its extent %lld",
                          (long long)most, i, (long long)d);
    if (mode == PAD_EDGE && most > 0 && d == 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.pad: edge padding of the empty axis %d", i);
  }
  return psgi_rel_make(call, dims, data->n, data->dtype, out);
}

/* The source index along an axis of extent d for output position i - before,
 * or -1 when the pad value goes there. */
static int64_t source_index(int64_t i, int64_t d, int mode) {
  if (i >= 0 && i < d) return i;
  switch (mode) {
  case PAD_EDGE: return i < 0 ? 0 : d - 1;
  case PAD_REFLECT: return i < 0 ? -i : 2 * (d - 1) - i;
  default: return -1;
  }
}

psg_status psgi_nn_pad_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                              psgi_value **out) {
  (void)nargs;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *v = psgi_value_as_tensor(args[1]), *res;
  int64_t before[PSG_MAX_RANK], after[PSG_MAX_RANK], istr[PSG_MAX_RANK], idx[PSG_MAX_RANK] = {0};
  int mode = PAD_CONSTANT, r = x->ndim;
  void *dst;
  psg_status st;
  if ((st = pad_mode(call, &mode)) || (st = pad_widths(call, r, before, after)) ||
      (st = psgi_kernel_alloc(call, out_type, &res, &dst)))
    return st;
  /* The pad value converted to the data's dtype, once. */
  unsigned char fill[16];
  size_t es = psg_dtype_size(x->dtype);
  if (psg_dtype_is_float(x->dtype)) psgi_store_f(x->dtype, fill, 0, psgi_load_f(v->dtype, v->data, 0));
  else psgi_store_i(x->dtype, fill, 0, psgi_load_i(v->dtype, v->data, 0));
  const unsigned char *src = x->data;
  unsigned char *o = dst;
  int64_t numel = psgi_numel(res->shape, r);
  if (r == 0 || numel == 0) {
    if (numel) memcpy(o, src, es);
    return psgi_kernel_result(call, res, out);
  }
  psgi_row_strides(x->shape, r, istr);
  /* Rows along the last axis; idx walks the outer output indices. */
  int64_t row = res->shape[r - 1], nrows = numel / row, last = x->shape[r - 1];
  for (int64_t rr = 0; rr < nrows; rr++) {
    int64_t base = 0;
    for (int a = 0; a < r - 1 && base >= 0; a++) {
      int64_t s = source_index(idx[a] - before[a], x->shape[a], mode);
      base = s < 0 ? -1 : base + s * istr[a];
    }
    unsigned char *orow = o + (size_t)(rr * row) * es;
    for (int64_t j = 0; j < row; j++) {
      int64_t s = base < 0 ? -1 : source_index(j - before[r - 1], last, mode);
      memcpy(orow + (size_t)j * es, s < 0 ? fill : src + (size_t)(base + s) * es, es);
    }
    for (int a = r - 2; a >= 0; a--) {
      if (++idx[a] < res->shape[a]) break;
      idx[a] = 0;
    }
  }
  return psgi_kernel_result(call, res, out);
}
