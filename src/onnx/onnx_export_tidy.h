/* Passage ONNX frontend — the exporter's last step over the graph it built
 * (onnx_export_tidy.c). */
#ifndef PSG_ONNX_EXPORT_TIDY_H
#define PSG_ONNX_EXPORT_TIDY_H

#include "passage/ctx.h"
#include "onnx.pb-c.h"

/* Rewrites `g` (and its subgraphs) in place: SimplifyExpr's canonical
 * HardSwish, Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6), becomes one HardSwish
 * node; then nodes whose outputs nobody reads, and initializers nobody
 * reads, are dropped; an output Identity whose input nothing else reads is
 * merged into the node making that input. `alloc` gives memory that lives as long as `g`
 * (zeroed; NULL when out of memory); scratch memory comes from `ctx`.
 * PSG_ERR_NOMEM or PSG_OK. */
psg_status onnxi_export_tidy(psg_ctx *ctx, Onnx__GraphProto *g, void *(*alloc)(void *user, size_t n), void *user);

#endif
