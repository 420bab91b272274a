/* Passage ONNX frontend — control flow: If becomes a Relay If whose branches
 * are the converted subgraphs (reading outer values directly); several
 * outputs become a tuple in each branch and TupleGetItems outside. */
#include <stdlib.h>
#include "onnx_ops.h"

static psg_status branch(onnx_imp *im, const Onnx__NodeProto *n, const char *attr, size_t nout, oval *res) {
  const Onnx__AttributeProto *a = onnxi_attr(n, attr);
  if (!a || !a->g) return onnxi_fail(im, PSG_ERR_PARSE, "attribute '%s' (a graph) is required", attr);
  if (a->g->n_output != nout)
    return onnxi_fail(im, PSG_ERR_PARSE, "'%s' has %zu outputs, the node %zu", attr, a->g->n_output, nout);
  oval *outs = calloc(nout + 1, sizeof *outs);
  if (!outs) return PSG_ERR_NOMEM;
  const Onnx__NodeProto *saved = im->node;
  psg_status st = onnxi_import_nodes(im, a->g, outs);
  im->node = saved;
  if (!st && nout == 1) {
    *res = outs[0];
    outs[0].e = NULL;
  } else if (!st) {
    psg_expr *fields[64];
    const psg_type *types[64];
    for (size_t i = 0; i < nout; i++) fields[i] = outs[i].e, types[i] = outs[i].t;
    st = psg_tuple_create(im->ctx, fields, nout, NULL, &res->e);
    if (!st) st = psg_type_tuple(im->ctx, types, (int)nout, &res->t);
  }
  for (size_t i = 0; i < nout; i++) onnxi_val_release(&outs[i]);
  free(outs);
  return st;
}

ONNX_CONV(if) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (st) return st;
  size_t nout = n->n_output;
  if (nout == 0 || nout > 64) return onnxi_fail(im, PSG_ERR_PARSE, "If must have 1 to 64 outputs");
  oval cond = {0}, thn = {0}, els = {0};
  if (onnxi_dtype(ins[0]) != PSG_DTYPE_BOOL) return onnxi_fail(im, PSG_ERR_TYPE, "the condition must be bool");
  if (onnxi_rank(ins[0]) > 0) st = onnxi_reshape(im, ins[0], NULL, 0, &cond);
  else cond = *ins[0], psg_expr_retain(cond.e);
  if (!st) st = branch(im, n, "then_branch", nout, &thn);
  if (!st) st = branch(im, n, "else_branch", nout, &els);
  if (!st && thn.t != els.t) {
    /* Types must agree for a Relay If; ONNX allows branches of different shapes. */
    st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "the branches have different output types");
  }
  oval res = {0};
  if (!st) {
    st = psg_if_create(im->ctx, cond.e, thn.e, els.e, NULL, &res.e);
    res.t = thn.t;
  }
  if (!st && nout == 1) {
    outs[0] = res;
    res.e = NULL;
  }
  for (size_t i = 0; !st && nout > 1 && i < nout; i++) st = onnxi_get_item(im, &res, (int)i, &outs[i]);
  onnxi_val_release(&res);
  onnxi_val_release(&cond);
  onnxi_val_release(&thn);
  onnxi_val_release(&els);
  return st;
}
