/* Passage — the tensor-expression layer (issue 16 item 1, docs/te.md):
 * lowering a Relay Primitive function to one PrimFunc of naive loop nests,
 * in TVM v0.19's legacy-TE lowered form. */
#ifndef PASSAGE_TE_H
#define PASSAGE_TE_H

#include "passage/ir.h"
#include "passage/tir.h"

PSG_BEGIN_DECLS

/* Lowers `fn`, a type-checked Relay Function with attr Primitive=1 whose
 * parameters are tensors or (nested) tuples of tensors of static shape, to
 * one PrimFunc: a `T.handle` parameter per flattened input (tuples flattened
 * depth first, as TVM does), then one per flattened output, each in the
 * buffer map; attrs global_symbol=`name`, tir.noalias=True,
 * from_legacy_te_schedule=True and passage.te_stages (per stage, in order,
 * a dict {buffer, op, pattern}: the buffer it writes, the Relay op it
 * lowers and that op's TOpPattern name). One loop nest per stage;
 * intermediates are Allocate'd; a reduction is
 * `for spatial: { C[..] = init; for reduce: C[..] = C[..] + ... }`.
 * *out is a new reference, NULL on failure. Errors: PSG_ERR_UNSUPPORTED (an
 * op without a compute definition, named in the diagnostic; a dynamic
 * shape; a non-scalar constant inside the function; an attribute value the
 * compute does not handle), PSG_ERR_TYPE (not type-checked),
 * PSG_ERR_INVALID_ARGUMENT, PSG_ERR_NOMEM. Nothing leaks on failure. */
PSG_API psg_status psg_te_lower_primitive(psg_ctx *ctx, const psg_expr *fn, const char *name,
                                          psg_tir_prim_func **out);

/* Whether Relay op `op_name` has a compute definition (lowers to TIR). */
PSG_API bool psg_te_has_compute(const char *op_name);

PSG_END_DECLS
#endif
