/* Passage — layout_transform (TVM's LayoutTransformRel and tir Layout
 * strings): permutation layouts (NCHW <-> NHWC, OIHW <-> HWIO) are one
 * strided copy; blocked layouts (NCHW4c, OIHW16i16o) split a primal axis C
 * into (C/f, f) and are copied element by element. */
#include <ctype.h>
#include <stdio.h>
#include "ops/transform.h"

/* A parsed layout: per position, its axis letter (upper case) and the block
 * factor of a subordinate axis (0 for a primal axis). */
typedef struct layout {
  int n;
  char axis[PSG_MAX_RANK];
  int64_t factor[PSG_MAX_RANK];
} layout;

static psg_status parse_layout(psgi_op_call *call, const char *s, layout *l) {
  l->n = 0;
  const char *p = s;
  while (*p) {
    int64_t f = 0;
    while (isdigit((unsigned char)*p) && f < 1000000000) f = f * 10 + (*p++ - '0');
    char c = *p;
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    if ((!upper && !lower) || (upper && f) || (lower && !f) || l->n >= PSG_MAX_RANK)
      return psgi_op_fail(call, PSG_ERR_TYPE,
                          "layout_transform: bad layout \"%s\" (axes are letters, a block is "
                          "a factor and a lower-case letter, e.g. NCHW4c)",
                          s);
    char up = (char)toupper((unsigned char)c);
    for (int i = 0; i < l->n; i++)
      if (l->axis[i] == up && (l->factor[i] != 0) == lower)
        return psgi_op_fail(call, PSG_ERR_TYPE, "layout_transform: axis %c appears twice in \"%s\"", c, s);
    l->axis[l->n] = up;
    l->factor[l->n++] = lower ? f : 0;
    p++;
  }
  for (int i = 0; i < l->n; i++) {
    bool primal = false;
    for (int j = 0; j < l->n; j++) primal |= l->axis[j] == l->axis[i] && !l->factor[j];
    if (!primal)
      return psgi_op_fail(call, PSG_ERR_TYPE, "layout_transform: block axis %lld%c of \"%s\" has no primal axis %c",
                          (long long)l->factor[i], tolower((unsigned char)l->axis[i]), s, l->axis[i]);
  }
  return PSG_OK;
}

/* Position of axis letter c in l (primal when sub is false), or -1. */
static int find(const layout *l, char c, bool sub) {
  for (int i = 0; i < l->n; i++)
    if (l->axis[i] == c && (l->factor[i] != 0) == sub) return i;
  return -1;
}

typedef struct plan {
  layout src, dst;
  bool blocked; /* any block axis on either side */
} plan;

/* Checks the layouts against the input dims and computes the output dims. */
static psg_status make_plan(psgi_op_call *call, const int64_t *dims, int ndim, plan *p, int64_t *o) {
  const char *ss = psgi_attr_str(call->attrs, "src_layout", ""), *ds = psgi_attr_str(call->attrs, "dst_layout", "");
  psg_status st = parse_layout(call, ss, &p->src);
  if (st || (st = parse_layout(call, ds, &p->dst))) return st;
  if (p->src.n != ndim)
    return psgi_op_fail(call, PSG_ERR_TYPE, "layout_transform: a tensor of rank %d does not have layout \"%s\"", ndim,
                        ss);
  int nprim = 0;
  p->blocked = false;
  for (int i = 0; i < p->src.n; i++) {
    p->blocked |= p->src.factor[i] != 0;
    nprim += !p->src.factor[i];
    if (p->src.factor[i] && dims[i] != PSG_DIM_UNKNOWN && dims[i] != p->src.factor[i])
      return psgi_op_fail(call, PSG_ERR_TYPE, "layout_transform: dim %d has extent %lld, but layout \"%s\" says %lld",
                          i, (long long)dims[i], ss, (long long)p->src.factor[i]);
  }
  for (int i = 0; i < p->dst.n; i++) {
    p->blocked |= p->dst.factor[i] != 0;
    nprim -= !p->dst.factor[i];
    if (!p->dst.factor[i] && find(&p->src, p->dst.axis[i], false) < 0) nprim = -1;
  }
  if (nprim != 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "layout_transform: \"%s\" and \"%s\" do not have the same axes", ss, ds);
  for (int i = 0; i < p->dst.n; i++) {
    char c = p->dst.axis[i];
    if (p->dst.factor[i]) {
      o[i] = p->dst.factor[i];
      continue;
    }
    int sp = find(&p->src, c, false), sb = find(&p->src, c, true), db = find(&p->dst, c, true);
    int64_t full = dims[sp];
    /* The factor is the layout text's when the block dim is unknown. */
    if (sb >= 0 && full != PSG_DIM_UNKNOWN && !psgi_checked_mul(full, p->src.factor[sb], &full))
      return psgi_op_fail(call, PSG_ERR_TYPE, "layout_transform: axis %c of \"%s\" has more elements than fit in 64 bits",
                          c, ss);
    if (db >= 0 && full != PSG_DIM_UNKNOWN && full % p->dst.factor[db])
      return psgi_op_fail(call, PSG_ERR_TYPE,
                          "layout_transform: axis %c of extent %lld is not divisible by %lld for \"%s\"", c,
                          (long long)full, (long long)p->dst.factor[db], ds);
    o[i] = db >= 0 && full != PSG_DIM_UNKNOWN ? full / p->dst.factor[db] : full;
  }
  return PSG_OK;
}

psg_status psgi_layout_transform_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                     const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  plan p;
  int64_t o[PSG_MAX_RANK];
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = make_plan(call, x->dims, x->n, &p, o))) return st;
  return psgi_rel_make(call, o, p.dst.n, x->dtype, out);
}

psg_status psgi_layout_transform_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                        const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  plan p;
  int64_t o[PSG_MAX_RANK], is[PSG_MAX_RANK], os[PSG_MAX_RANK];
  psg_status st = make_plan(call, x->shape, x->ndim, &p, o);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &data))) return st;
  size_t esize = psg_dtype_size(x->dtype);
  psgi_row_strides(x->shape, x->ndim, is);
  psgi_row_strides(t->shape, t->ndim, os);
  if (!p.blocked) {
    int64_t ss[PSG_MAX_RANK];
    for (int i = 0; i < p.dst.n; i++) ss[i] = is[find(&p.src, p.dst.axis[i], false)];
    psgi_strided_copy(t->shape, t->ndim, esize, data, 0, os, x->data, 0, ss);
    return psgi_kernel_result(call, t, out);
  }
  /* Per output position: which source positions its primal coordinate goes
   * to (outer and block part), and the block factors on both sides. */
  int outer[PSG_MAX_RANK], inner[PSG_MAX_RANK], block[PSG_MAX_RANK];
  int64_t dfac[PSG_MAX_RANK], sfac[PSG_MAX_RANK], idx[PSG_MAX_RANK] = {0};
  for (int i = 0; i < p.dst.n; i++) {
    char c = p.dst.axis[i];
    block[i] = find(&p.dst, c, true);
    outer[i] = find(&p.src, c, false);
    inner[i] = find(&p.src, c, true);
    sfac[i] = inner[i] >= 0 ? p.src.factor[inner[i]] : 1;
    dfac[i] = block[i] >= 0 ? p.dst.factor[block[i]] : 1;
  }
  int64_t numel = psgi_numel(t->shape, t->ndim);
  for (int64_t k = 0; k < numel; k++) {
    int64_t off = 0;
    for (int i = 0; i < p.dst.n; i++) {
      if (p.dst.factor[i]) continue; /* folded in with its primal axis */
      int64_t coord = idx[i] * dfac[i] + (block[i] >= 0 ? idx[block[i]] : 0);
      off += (coord / sfac[i]) * is[outer[i]];
      if (inner[i] >= 0) off += (coord % sfac[i]) * is[inner[i]];
    }
    memcpy((char *)data + (size_t)k * esize, (const char *)x->data + (size_t)off * esize, esize);
    for (int i = p.dst.n - 1; i >= 0 && ++idx[i] == t->shape[i]; i--) idx[i] = 0;
  }
  return psgi_kernel_result(call, t, out);
}
