/* Passage ONNX frontend — control flow: If.
 *
 * A condition computed from initializers and static shapes only (exporters
 * emit `if x.dim() == 3: squeeze` tests this way) is evaluated at import time
 * and only the branch taken is converted: with the input shapes given, the
 * other branch is dead, and it may not even be well typed for these shapes
 * (silero_vad's Squeeze/Identity branches have different ranks). Otherwise
 * the node becomes a Relay If whose branches are the converted subgraphs
 * (reading outer values directly); several outputs become a tuple in each
 * branch and TupleGetItems outside. A Relay If has one type, so its branches
 * must agree in rank and dtype and in every dimension both know; the If's
 * type keeps `?` where one branch has it (docs/design.md, "ONNX If"). */
#include <stdio.h>
#include <stdlib.h>
#include "onnx_ops.h"

static psg_status branch(onnx_imp *im, const Onnx__NodeProto *n, const char *attr, size_t nout, oval *outs) {
  const Onnx__AttributeProto *a = onnxi_attr(n, attr);
  if (!a || !a->g) return onnxi_fail(im, PSG_ERR_PARSE, "attribute '%s' (a graph) is required", attr);
  if (a->g->n_output != nout)
    return onnxi_fail(im, PSG_ERR_PARSE, "'%s' has %zu outputs, the node %zu", attr, a->g->n_output, nout);
  const Onnx__NodeProto *saved = im->node;
  psg_status st = onnxi_import_nodes(im, a->g, outs);
  im->node = saved;
  return st;
}

/* The branches' outputs as one value: itself, or a tuple of them. */
static psg_status as_value(onnx_imp *im, oval *outs, size_t nout, oval *res) {
  if (nout == 1) {
    *res = outs[0];
    outs[0].e = NULL;
    return PSG_OK;
  }
  psg_expr **fields = psgi_alloc(im->ctx, psgi_mul_size(nout, sizeof *fields));
  const psg_type **types = psgi_alloc(im->ctx, psgi_mul_size(nout, sizeof *types));
  psg_status st = fields && types ? PSG_OK : PSG_ERR_NOMEM;
  for (size_t i = 0; !st && i < nout; i++) fields[i] = outs[i].e, types[i] = outs[i].t;
  psg_span sb;
  if (!st) st = psg_tuple_create(im->ctx, fields, nout, onnxi_span(im, &sb), &res->e);
  if (!st) st = psg_type_tuple(im->ctx, types, (int)nout, &res->t);
  psgi_free(im->ctx, fields);
  psgi_free(im->ctx, types);
  return st;
}

static void describe(const psg_type *t, char *buf, size_t cap) {
  if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR) {
    snprintf(buf, cap, "a non-tensor");
    return;
  }
  size_t k = (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < psg_type_ndim(t) && k < cap; i++) {
    int64_t d = psg_type_dim(t, i);
    if (d == PSG_DIM_UNKNOWN) k += (size_t)snprintf(buf + k, cap - k, "%s?", i ? ", " : "");
    else k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)d);
  }
  if (k < cap) snprintf(buf + k, cap - k, ") %s", psg_dtype_name(psg_type_dtype(t)));
}

/* The type of output i of the If: the branches' common type, `?` where one
 * branch does not know a dimension; an error naming both when they differ. */
static psg_status join(onnx_imp *im, size_t i, const psg_type *a, const psg_type *b, const psg_type **out) {
  *out = a;
  if (a == b) return PSG_OK;
  bool ok = a && b && psg_type_kind(a) == PSG_TYPE_TENSOR && psg_type_kind(b) == PSG_TYPE_TENSOR &&
            psg_type_ndim(a) == psg_type_ndim(b) && psg_type_dtype(a) == psg_type_dtype(b);
  int64_t dims[PSG_MAX_RANK];
  for (int d = 0; ok && d < psg_type_ndim(a); d++) {
    int64_t x = psg_type_dim(a, d), y = psg_type_dim(b, d);
    ok = x == y || x == PSG_DIM_UNKNOWN || y == PSG_DIM_UNKNOWN;
    dims[d] = x == y ? x : PSG_DIM_UNKNOWN;
  }
  if (!ok) {
    char ta[256], tb[256];
    describe(a, ta, sizeof ta);
    describe(b, tb, sizeof tb);
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED,
                      "output %zu is %s in then_branch but %s in else_branch, and the condition depends on graph "
                      "inputs (a Relay If has one type)",
                      i, ta, tb);
  }
  return psg_type_tensor(im->ctx, dims, psg_type_ndim(a), psg_type_dtype(a), out);
}

/* Fills outs[] from the If's value (a tuple when there are several). */
static psg_status unpack(onnx_imp *im, oval *res, size_t nout, oval *outs) {
  if (nout == 1) {
    outs[0] = *res;
    res->e = NULL;
    return PSG_OK;
  }
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < nout; i++) st = onnxi_get_item(im, res, (int)i, &outs[i]);
  return st;
}

ONNX_CONV(if) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  size_t nout = n->n_output;
  if (nout == 0) return onnxi_fail(im, PSG_ERR_PARSE, "If must have outputs");
  if (onnxi_dtype(ins[0]) != PSG_DTYPE_BOOL) return onnxi_fail(im, PSG_ERR_TYPE, "the condition must be bool");
  int known = onnxi_is_constant(im, ins[0]);
  if (known < 0) return PSG_ERR_NOMEM;
  if (known) {
    /* Known now: convert the branch taken, straight into the outputs. */
    psg_tensor *t = NULL;
    if ((st = onnxi_const_tensor(im, ins[0], "the condition", &t))) return st;
    bool taken = psg_tensor_numel(t) == 1 && *(const uint8_t *)psg_tensor_data(t);
    bool one = psg_tensor_numel(t) == 1;
    psg_tensor_release(t);
    if (!one) return onnxi_fail(im, PSG_ERR_TYPE, "the condition must have one element");
    return branch(im, n, taken ? "then_branch" : "else_branch", nout, outs);
  }
  oval cond = {0}, res = {0};
  oval *thn = psgi_calloc(im->ctx, psgi_mul_size(2 * nout, sizeof *thn)), *els = thn ? thn + nout : NULL;
  const psg_type **types = thn ? psgi_calloc(im->ctx, psgi_mul_size(nout + 1, sizeof *types)) : NULL;
  if (!types) {
    psgi_free(im->ctx, thn);
    return PSG_ERR_NOMEM;
  }
  if (onnxi_rank(ins[0]) > 0) st = onnxi_reshape(im, ins[0], NULL, 0, &cond);
  else cond = *ins[0], psg_expr_retain(cond.e);
  if (!st) st = branch(im, n, "then_branch", nout, thn);
  if (!st) st = branch(im, n, "else_branch", nout, els);
  for (size_t i = 0; !st && i < nout; i++) st = join(im, i, thn[i].t, els[i].t, &types[i]);
  oval t = {0}, e = {0};
  if (!st) st = as_value(im, thn, nout, &t);
  if (!st) st = as_value(im, els, nout, &e);
  if (!st) st = nout == 1 ? (res.t = types[0], PSG_OK) : psg_type_tuple(im->ctx, types, (int)nout, &res.t);
  psg_span sb;
  if (!st) st = psg_if_create(im->ctx, cond.e, t.e, e.e, onnxi_span(im, &sb), &res.e);
  if (!st) st = unpack(im, &res, nout, outs);
  onnxi_val_release(&res);
  onnxi_val_release(&t);
  onnxi_val_release(&e);
  onnxi_val_release(&cond);
  for (size_t i = 0; i < 2 * nout; i++) onnxi_val_release(&thn[i]);
  psgi_free(im->ctx, thn);
  psgi_free(im->ctx, types);
  return st;
}
