/* Passage — compute definitions of the shape and data-movement ops (TOPI's
 * transform.h, nn/pad.h): each output index is mapped back to the input
 * index it copies (reshape through the flat index unless only unit axes
 * change; transpose, reverse, strided_slice, split, concatenate with
 * guarded reads, pad with its modes); the creation ops (full, arange) and
 * shape_of / ndarray_size, whose values the static shape fixes. Layout ops
 * are in te_layout.c, gathers in te_index.c. */
#include <math.h>
#include <stdio.h>
#include "te/te.h"

void psgi_te_reshape_index(psgi_te_builder *b, const psgi_te_tensor *x, psg_tir_expr *const *ax, const int64_t *dims,
                           int nd, psg_tir_expr **in) {
  /* Only unit axes differ: map the non-unit axes one to one. */
  int oi[PSG_MAX_RANK], no = 0, ii[PSG_MAX_RANK], ni = 0;
  for (int i = 0; i < nd; i++)
    if (dims[i] != 1) oi[no++] = i;
  for (int i = 0; i < x->ndim; i++)
    if (x->shape[i] != 1) ii[ni++] = i;
  bool direct = no == ni;
  for (int k = 0; direct && k < no; k++) direct = dims[oi[k]] == x->shape[ii[k]];
  if (direct) {
    for (int i = 0; i < x->ndim; i++) in[i] = psgi_te_int(b, 0);
    for (int k = 0; k < no; k++) in[ii[k]] = ax[oi[k]];
    return;
  }
  psg_tir_expr *flat = psgi_te_int(b, 0);
  for (int i = 0; i < nd; i++)
    flat = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, flat, psgi_te_int(b, dims[i])), ax[i]);
  int64_t stride = 1;
  for (int j = x->ndim - 1; j >= 0; j--) {
    psg_tir_expr *q = stride == 1 ? flat : psgi_te_bin(b, PSG_TIR_FLOOR_DIV, flat, psgi_te_int(b, stride));
    in[j] = j == 0 ? q : psgi_te_bin(b, PSG_TIR_FLOOR_MOD, q, psgi_te_int(b, x->shape[j]));
    stride *= x->shape[j];
  }
}

/* reshape, squeeze, expand_dims, nn.batch_flatten: the same elements. */
PSGI_TE_COMPUTE(reshape) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psgi_te_reshape_index(b, c->args[0], ax, dims, nd, in);
  char name[64];
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax,
                                        psgi_te_load(b, c->args[0], in), NULL);
  return psgi_te_status(b);
}

PSGI_TE_COMPUTE(transpose) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK], axes[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int n = psgi_attr_ints(c->attrs, "axes", axes, PSG_MAX_RANK);
  if (n <= 0)
    for (int i = 0; i < nd; i++) axes[i] = nd - 1 - i;
  else if (n != nd) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: transpose axes");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < nd; i++) in[axes[i] < 0 ? axes[i] + nd : axes[i]] = ax[i];
  c->outs[c->nouts++] = psgi_te_compute(b, "T_transpose", dtype, nd, dims, ax, psgi_te_load(b, c->args[0], in), NULL);
  return psgi_te_status(b);
}

PSGI_TE_COMPUTE(reverse) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t axis = psgi_attr_int(c->attrs, "axis", 0);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: reverse axis");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  memcpy(in, ax, sizeof in);
  in[axis] = psgi_te_bin(b, PSG_TIR_SUB, psgi_te_int(b, dims[axis] - 1), ax[axis]);
  c->outs[c->nouts++] = psgi_te_compute(b, "T_reverse", dtype, nd, dims, ax, psgi_te_load(b, c->args[0], in), NULL);
  return psgi_te_status(b);
}

/* NumPy's clamping of a slice start (as src/ops/transform_slice.c). */
static int64_t canonical(int64_t i, int64_t dim, int64_t step) {
  int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? dim - 1 : dim;
  if (i < 0) i += dim;
  return i < lo ? lo : i > hi ? hi : i;
}

PSGI_TE_COMPUTE(strided_slice) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK], bg[PSG_MAX_RANK], st[PSG_MAX_RANK], axes[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int nb = psgi_attr_ints(c->attrs, "begin", bg, PSG_MAX_RANK), ns = psgi_attr_ints(c->attrs, "strides", st, PSG_MAX_RANK);
  psg_attr *axa = psg_attrs_get(c->attrs, "axes");
  int na = axa && psg_attr_kind(axa) != PSG_ATTR_NONE ? psgi_attr_ints(c->attrs, "axes", axes, PSG_MAX_RANK) : -1;
  bool size_mode = !strcmp(psgi_attr_str(c->attrs, "slice_mode", "end"), "size");
  if (nb < 0) nb = 0;
  if (na < 0) {
    na = nb;
    for (int i = 0; i < na; i++) axes[i] = i;
  }
  int64_t begin[PSG_MAX_RANK], step[PSG_MAX_RANK];
  for (int i = 0; i < nd; i++) begin[i] = 0, step[i] = 1;
  for (int k = 0; k < na && k < nb; k++) {
    int64_t a = axes[k] < 0 ? axes[k] + nd : axes[k];
    if (a < 0 || a >= nd) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: strided_slice axis");
    step[a] = size_mode || ns <= 0 ? 1 : ns == 1 ? st[0] : k < ns ? st[k] : 1;
    begin[a] = canonical(bg[k], x->shape[a], step[a]);
  }
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < nd; i++)
    in[i] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_int(b, begin[i]), psgi_te_bin(b, PSG_TIR_MUL, ax[i], psgi_te_int(b, step[i])));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_strided_slice", dtype, nd, dims, ax, psgi_te_load(b, x, in), NULL);
  return psgi_te_status(b);
}

/* split: output k is the slice of x along axis at the offset of the
 * outputs before it (their extents come from the tuple type). */
PSGI_TE_COMPUTE(split) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int nd = x->ndim, n = psg_type_num_fields(c->out_type);
  int64_t axis = psgi_attr_int(c->attrs, "axis", 0);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || n > 64) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: split axis");
  int64_t off = 0;
  for (int k = 0; k < n; k++) {
    const psg_type *t = psg_type_field(c->out_type, k);
    int64_t dims[PSG_MAX_RANK];
    for (int i = 0; i < nd; i++) dims[i] = psg_type_dim(t, i);
    psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
    psgi_te_axes(b, nd, ax);
    memcpy(in, ax, sizeof in);
    in[axis] = psgi_te_bin(b, PSG_TIR_ADD, ax[axis], psgi_te_int(b, off));
    c->outs[c->nouts++] = psgi_te_compute(b, "T_split", x->dtype, nd, dims, ax, psgi_te_load(b, x, in), NULL);
    off += dims[axis];
  }
  return psgi_te_status(b);
}

/* concatenate: a chain of guarded reads, the last input unguarded. */
PSGI_TE_COMPUTE(concatenate) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t axis = psgi_attr_int(c->attrs, "axis", 0);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || !c->nargs) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: concatenate axis");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  memcpy(in, ax, sizeof in);
  int64_t offs[64], off = 0;
  for (size_t k = 0; k < c->nargs && k < 64; k++) offs[k] = off, off += c->args[k]->shape[axis];
  psg_tir_expr *v = NULL;
  for (size_t k = c->nargs; k-- > 0;) {
    in[axis] = psgi_te_bin(b, PSG_TIR_SUB, ax[axis], psgi_te_int(b, offs[k]));
    psg_tir_expr *ld = psgi_te_load(b, c->args[k], in);
    v = !v ? ld : psgi_te_if(b, psgi_te_bin(b, PSG_TIR_LT, ax[axis], psgi_te_int(b, offs[k + 1])), ld, v);
  }
  c->outs[c->nouts++] = psgi_te_compute(b, "T_concat", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* nn.pad(x, pad_value): constant, edge or reflect. */
PSGI_TE_COMPUTE(pad) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK], before[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_attr *pw = psg_attrs_get(c->attrs, "pad_width");
  if (!pw || psg_attr_kind(pw) != PSG_ATTR_LIST || (int)psg_attr_list_len(pw) != nd)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.pad pad_width");
  for (int i = 0; i < nd; i++) {
    psg_attr *p = psg_attr_list_get(pw, (size_t)i);
    if (psg_attr_kind(p) != PSG_ATTR_LIST || psg_attr_list_len(p) < 1)
      return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: nn.pad pad_width");
    before[i] = psg_attr_get_int(psg_attr_list_get(p, 0));
  }
  const char *mode = psgi_attr_str(c->attrs, "pad_mode", "constant");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK], *ok = NULL;
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < nd; i++) {
    psg_tir_expr *p = psgi_te_bin(b, PSG_TIR_SUB, ax[i], psgi_te_int(b, before[i]));
    psg_tir_expr *n1 = psgi_te_int(b, x->shape[i] - 1);
    if (!strcmp(mode, "edge")) {
      in[i] = psgi_te_bin(b, PSG_TIR_MIN, psgi_te_bin(b, PSG_TIR_MAX, p, psgi_te_int(b, 0)), n1);
    } else if (!strcmp(mode, "reflect")) { /* |p|, then folded back from the end */
      psg_tir_expr *r = psgi_te_select(b, psgi_te_bin(b, PSG_TIR_LT, p, psgi_te_int(b, 0)), psgi_te_neg(b, p), p);
      in[i] = psgi_te_select(b, psgi_te_bin(b, PSG_TIR_GT, r, n1),
                             psgi_te_bin(b, PSG_TIR_SUB, psgi_te_bin(b, PSG_TIR_MUL, n1, psgi_te_int(b, 2)), r), r);
    } else {
      in[i] = p;
      if (!before[i] && dims[i] == x->shape[i]) continue;
      psg_tir_expr *inb = psgi_te_bin(b, PSG_TIR_AND, psgi_te_bin(b, PSG_TIR_GE, p, psgi_te_int(b, 0)),
                                      psgi_te_bin(b, PSG_TIR_LT, p, psgi_te_int(b, x->shape[i])));
      ok = ok ? psgi_te_bin(b, PSG_TIR_AND, ok, inb) : inb;
    }
  }
  psg_tir_expr *v = psgi_te_load(b, x, in);
  if (ok) v = psgi_te_if(b, ok, v, psgi_te_cast(b, dtype, psgi_te_load(b, c->args[1], NULL)));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_pad", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* broadcast_to, tile, repeat: each output index reads one input index. */
PSGI_TE_COMPUTE(broadcast) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK], *v;
  psgi_te_axes(b, nd, ax);
  int off = nd - x->ndim;
  if (!strcmp(c->op, "broadcast_to")) {
    v = psgi_te_load_bcast(b, x, ax, dims, nd);
  } else if (!strcmp(c->op, "tile")) {
    for (int i = 0; i < x->ndim; i++)
      in[i] = x->shape[i] == dims[off + i] ? ax[off + i] : psgi_te_bin(b, PSG_TIR_FLOOR_MOD, ax[off + i], psgi_te_int(b, x->shape[i]));
    v = psgi_te_load(b, x, in);
  } else { /* repeat */
    int64_t axis = psgi_attr_int(c->attrs, "axis", 0), reps = psgi_attr_int(c->attrs, "repeats", 1);
    if (axis < 0) axis += nd;
    if (axis < 0 || axis >= nd || reps < 1) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: repeat axis");
    memcpy(in, ax, sizeof in);
    in[axis] = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, ax[axis], psgi_te_int(b, reps));
    v = psgi_te_load(b, x, in);
  }
  char name[64];
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* stack: a chain of guarded reads along the new axis. */
PSGI_TE_COMPUTE(stack) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t axis = psgi_attr_int(c->attrs, "axis", 0);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd || !c->nargs) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: stack axis");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK], *v = NULL;
  psgi_te_axes(b, nd, ax);
  for (int i = 0, k = 0; i < nd; i++)
    if (i != axis) in[k++] = ax[i];
  for (size_t k = c->nargs; k-- > 0;) {
    psg_tir_expr *ld = psgi_te_load(b, c->args[k], in);
    v = !v ? ld : psgi_te_if(b, psgi_te_bin(b, PSG_TIR_EQ, ax[axis], psgi_te_int(b, (int64_t)k)), ld, v);
  }
  c->outs[c->nouts++] = psgi_te_compute(b, "T_stack", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* zeros, ones, full: a constant (full: its 0-d fill value) of the shape. */
PSGI_TE_COMPUTE(full) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *v = !strcmp(c->op, "zeros")  ? psgi_te_const(b, dtype, 0)
                    : !strcmp(c->op, "ones") ? psgi_te_const(b, dtype, 1)
                                             : psgi_te_cast(b, dtype, psgi_te_load(b, c->args[0], NULL));
  char name[64];
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* shape_of and ndarray_size: the static shape, as constants of `dtype`. */
PSGI_TE_COMPUTE(shape_of) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK], *v;
  psgi_te_axes(b, nd, ax);
  if (!strcmp(c->op, "ndarray_size")) {
    int64_t n = 1;
    for (int i = 0; i < x->ndim; i++) n *= x->shape[i];
    v = psgi_te_const(b, dtype, (double)n);
  } else { /* a chain of selects on the one axis */
    v = psgi_te_const(b, dtype, 0);
    for (int i = x->ndim; i-- > 0;)
      v = psgi_te_select(b, psgi_te_bin(b, PSG_TIR_EQ, ax[0], psgi_te_int(b, i)), psgi_te_const(b, dtype, (double)x->shape[i]), v);
  }
  char name[64];
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* The value of an inline scalar (a constant inside the function). */
static bool scalar_value(const psgi_te_tensor *t, double *v) {
  if (!t || t->buf || !t->scalar) return false;
  int k = psg_tir_kind((psg_tir_node *)t->scalar);
  if (k == PSG_TIR_INT_IMM) *v = (double)psg_tir_int_imm_value(t->scalar);
  else if (k == PSG_TIR_FLOAT_IMM) *v = psg_tir_float_imm_value(t->scalar);
  else return false;
  return true;
}

/* arange(start, stop, step): start + i * step. Relay leaves the length
 * unknown; it is fixed here when the three are constants, as TVM's ArangeRel
 * does (ceil((stop - start) / step), float32 arithmetic for float32). */
PSGI_TE_COMPUTE(arange) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  if (nd != 1 || c->nargs != 3) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: arange");
  double s[3];
  if (dims[0] < 0) {
    if (!scalar_value(c->args[0], &s[0]) || !scalar_value(c->args[1], &s[1]) || !scalar_value(c->args[2], &s[2]) || s[2] == 0)
      return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: arange of a length only known at run time");
    double n = dtype == PSG_DTYPE_FLOAT32 ? ceilf(((float)s[1] - (float)s[0]) / (float)s[2]) : ceil((s[1] - s[0]) / s[2]);
    if (n > INT32_MAX) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: arange of %g elements", n);
    dims[0] = n > 0 ? (int64_t)n : 0; /* NaN: empty, as the kernel */
  }
  psg_tir_expr *ax[1];
  psgi_te_axes(b, 1, ax);
  psg_tir_expr *zero = NULL;
  psg_tir_expr *start = psgi_te_load(b, c->args[0], &zero), *step = psgi_te_load(b, c->args[2], &zero);
  psg_tir_expr *v = psgi_te_bin(b, PSG_TIR_ADD, start, psgi_te_bin(b, PSG_TIR_MUL, psgi_te_cast(b, dtype, ax[0]), step));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_arange", dtype, 1, dims, ax, v, NULL);
  return psgi_te_status(b);
}
