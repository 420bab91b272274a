/* Passage ONNX frontend — export of composite functions: a call of a function
 * literal marked Composite="onnx.LSTM" (built by onnx_ops_rnn.c) becomes one
 * ONNX LSTM node on the call's arguments, instead of its inlined body. */
#ifndef PSG_ONNX_EXPORT_RNN_H
#define PSG_ONNX_EXPORT_RNN_H
#include "onnx_internal.h"

/* What the exporter lends a composite's writer: its node maker (the node is
 * appended to the graph being built, its outputs named) and its arena. */
typedef struct onnxi_export_api {
  void *x;
  Onnx__NodeProto *(*node)(void *x, const char *op, int nin, int nout);
  void *(*alloc)(void *x, size_t n); /* zeroed; NULL when out of memory */
} onnxi_export_api;

/* True when `fn` is a function literal written as one node (its Composite
 * attribute names an ONNX op this file knows). */
bool onnxi_export_is_composite(const psg_expr *fn);
/* The node for `call` (a call of such a function): in[i] is the ONNX value
 * name of argument i; *out_names gets the names of the call's results, *nout
 * of them (one per field of its tuple type). Failures are reported
 * ("ONNX export: ...") and returned. */
psg_status onnxi_export_composite(psg_ctx *ctx, const onnxi_export_api *api, const psg_expr *call, const char *const *in,
                                  char ***out_names, size_t *nout);
#endif
