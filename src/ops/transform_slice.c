/* Passage — strided_slice (TVM's StridedSliceRel and topi's
 * detail/strided_slice.h): begin/end/strides per axis (or for the listed
 * axes), slice_mode "end" or "size", negative indices counted from the end
 * and clamped as NumPy does. The kernel is one strided copy. */
#include <stdio.h>
#include "ops/transform.h"

/* Per axis: the first index read, the step, and the output extent. */
typedef struct slice_plan {
  int64_t begin[PSG_MAX_RANK], step[PSG_MAX_RANK], extent[PSG_MAX_RANK];
} slice_plan;

/* NumPy's clamping: a negative index counts from the end, then the index is
 * kept within [0, dim] (positive step) or [-1, dim - 1] (negative step). */
static int64_t canonical(int64_t i, int64_t dim, int64_t step) {
  int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? dim - 1 : dim;
  if (i < 0) i += dim;
  return i < lo ? lo : i > hi ? hi : i;
}

/* Plans the slice of a tensor with `dims` (unknown dims give unknown extents
 * on the axes actually sliced). A range that runs against its step selects
 * nothing (NumPy); TVM rejects it at compile time, which would make valid
 * ONNX Slice graphs fail. */
static psg_status plan(psgi_op_call *call, const int64_t *dims, int ndim, slice_plan *p) {
  int64_t b[PSG_MAX_RANK], e[PSG_MAX_RANK], s[PSG_MAX_RANK], ax[PSG_MAX_RANK];
  int nb, ne, ns, na;
  psg_status st;
  if ((st = psgi_tf_ints(call, "begin", b, PSG_MAX_RANK, &nb)) ||
      (st = psgi_tf_ints(call, "end", e, PSG_MAX_RANK, &ne)) ||
      (st = psgi_tf_ints(call, "strides", s, PSG_MAX_RANK, &ns)) ||
      (st = psgi_tf_ints(call, "axes", ax, PSG_MAX_RANK, &na)))
    return st;
  const char *mode = psgi_attr_str(call->attrs, "slice_mode", "end");
  bool size_mode = strcmp(mode, "size") == 0;
  if (!size_mode && strcmp(mode, "end") != 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "strided_slice: slice_mode must be \"end\" or \"size\", got \"%s\"", mode);
  bool has_axes = !psgi_tf_attr_is_none(call, "axes");
  char lb[256];
  if (has_axes ? (nb != na || ne != na) : (nb > ndim || ne > ndim))
    return psgi_op_fail(call, PSG_ERR_TYPE, "strided_slice: begin %s and end (%d entries) do not fit %s of rank %d",
                        psgi_tf_list_str(b, nb, lb, sizeof lb), ne, has_axes ? "the axes" : "a tensor", ndim);
  if (ns > (has_axes ? na : ndim))
    return psgi_op_fail(call, PSG_ERR_TYPE, "strided_slice: strides %s has more entries than the sliced axes",
                        psgi_tf_list_str(s, ns, lb, sizeof lb));
  bool sliced[PSG_MAX_RANK] = {0};
  int64_t bv[PSG_MAX_RANK], ev[PSG_MAX_RANK], sv[PSG_MAX_RANK];
  bool hb[PSG_MAX_RANK] = {0}, he[PSG_MAX_RANK] = {0};
  for (int i = 0; i < ndim; i++) sv[i] = 1;
  int nslices = has_axes ? na : (nb > ne ? nb : ne);
  if (ns > nslices) nslices = ns;
  for (int k = 0; k < nslices; k++) {
    int a = k;
    if (has_axes && (st = psgi_tf_axis(call, ax[k], ndim, &a))) return st;
    sliced[a] = true;
    sv[a] = k < ns && !size_mode ? s[k] : 1; /* "size" ignores strides, as TVM does */
    if (sv[a] == 0) return psgi_op_fail(call, PSG_ERR_TYPE, "strided_slice: the stride of axis %d is 0", a);
    if ((hb[a] = k < nb)) bv[a] = b[k];
    if ((he[a] = k < ne)) ev[a] = e[k];
  }
  for (int a = 0; a < ndim; a++) {
    int64_t d = dims[a], step = sv[a];
    p->step[a] = step;
    if (!sliced[a] || d == PSG_DIM_UNKNOWN) {
      p->begin[a] = 0;
      p->extent[a] = d;
      if (sliced[a] && (hb[a] || he[a] || step != 1)) p->extent[a] = PSG_DIM_UNKNOWN;
      continue;
    }
    int64_t lo = hb[a] ? canonical(bv[a], d, step) : step > 0 ? 0 : d - 1, hi;
    if (!he[a] || (size_mode && ev[a] < 0))
      hi = step > 0 ? d : -1;
    else if (size_mode)
      hi = ev[a] < d - lo ? lo + ev[a] : d; /* counted from the clamped begin */
    else
      hi = canonical(ev[a], d, step);
    int64_t span = step > 0 ? hi - lo : lo - hi;
    p->begin[a] = lo;
    /* ceil(span / |step|) without forming |step| or span + |step| - 1, which
     * overflow for a step near INT64_MIN or INT64_MAX (issue 14). */
    p->extent[a] = span <= 0 ? 0 : step > 0 ? (span - 1) / step + 1 : 1 - (span - 1) / step;
  }
  return PSG_OK;
}

psg_status psgi_strided_slice_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  slice_plan p;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = plan(call, x->dims, x->n, &p))) return st;
  return psgi_rel_make(call, p.extent, x->n, x->dtype, out);
}

psg_status psgi_strided_slice_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                     const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  slice_plan p;
  psg_status st = plan(call, x->shape, x->ndim, &p);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &data))) return st;
  int64_t is[PSG_MAX_RANK], os[PSG_MAX_RANK], ss[PSG_MAX_RANK], off = 0;
  psgi_row_strides(x->shape, x->ndim, is);
  psgi_row_strides(t->shape, t->ndim, os);
  for (int i = 0; i < x->ndim; i++) {
    off += p.begin[i] * is[i];
    /* An axis of one element never steps; on the others |step| < dim, so
     * step * stride fits (the type's size rule). */
    ss[i] = p.extent[i] > 1 ? p.step[i] * is[i] : 0;
  }
  psgi_strided_copy(t->shape, t->ndim, psg_dtype_size(x->dtype), data, 0, os, x->data, off, ss);
  return psgi_kernel_result(call, t, out);
}
