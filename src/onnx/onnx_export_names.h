/* Passage ONNX frontend — node names of an exported model
 * (onnx_export_names.c). */
#ifndef PSG_ONNX_EXPORT_NAMES_H
#define PSG_ONNX_EXPORT_NAMES_H

#include <stdbool.h>
#include "passage/ctx.h"
#include "onnx.pb-c.h"

/* For a node of the exported graph: the name it should keep (the source
 * name of the span of the call it was written for, as the importer set it
 * from the ONNX node's name), or NULL when its generated name stands.
 * *main: the node computes the call's value (not a helper such as the
 * Reshape before a bias Add). */
/* FNV-1a over a NUL-terminated name (the exporter's name tables). */
size_t onnxi_name_hash(const char *s);

typedef const char *(*onnxi_name_fn)(void *user, const Onnx__NodeProto *n, bool *main);

/* Gives every node of `g` and its subgraphs a name unique in the whole model
 * (ONNX's checker and tools key nodes by name across subgraphs). Among the
 * nodes keeping one name, the bare name goes to the first free of:
 *   1. the node computing that name's result: not layout glue (Reshape,
 *      Transpose, Squeeze, Unsqueeze, Flatten, Identity, Expand) and read by
 *      no non-glue node of its name; one whose value leaves the name's nodes
 *      (read by a node of another name, or a graph output) first;
 *   2. another node whose value leaves them;
 *   3. another node computing a call's value;
 *   4. a helper node;
 * 5. the others get NAME_1, NAME_2, ... (the first free);
 * 6. a generated name (Op_N) stays unless a kept name took it, then gets a
 *    suffix the same way.
 * Nodes are taken in graph order, the main graph first, so the result
 * depends on nothing but the graph. `alloc` gives memory that lives as long
 * as `g` (NULL when out of memory); scratch memory comes from `ctx`.
 * PSG_ERR_NOMEM or PSG_OK. */
psg_status onnxi_export_names(psg_ctx *ctx, Onnx__GraphProto *g, onnxi_name_fn name_of,
                              void *(*alloc)(void *user, size_t n), void *user);

#endif
