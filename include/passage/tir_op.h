/* Passage — TIR operators as TVM's tir/op.h defines them: what `a + b`
 * means in TVM's Python API and in TVMScript, as opposed to the raw node
 * constructors of tir.h.
 *
 * An operator first matches the operand dtypes (TVM's BinaryOpMatchTypes:
 * a scalar is broadcast to the other side's lanes; the narrower of two ints
 * or two floats is cast to the wider; an int meets a float as a float;
 * signed meets unsigned of one width as unsigned), then folds what TVM's
 * arith::TryConstFold folds (two immediates; x + 0, x * 1, x * 0, 0 / x,
 * x / 1, x % 1, true && x, false || x, ...), and only then builds a node.
 * A cast of an immediate is an immediate. Integer folding wraps to the
 * dtype's width, as the generated code would; a constant division by zero
 * is PSG_ERR_INVALID_ARGUMENT, never folded.
 *
 * Ownership as in tir.h: operands are borrowed, *out is a new reference. */
#ifndef PASSAGE_TIR_OP_H
#define PASSAGE_TIR_OP_H

#include "passage/tir.h"

PSG_BEGIN_DECLS

/* `kind` is a binary kind of tir.h: PSG_TIR_ADD .. PSG_TIR_OR. */
PSG_API psg_status psg_tir_op_binary(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b,
                                     const psg_span *span, psg_tir_expr **out);
PSG_API psg_status psg_tir_op_not(psg_ctx *ctx, psg_tir_expr *a, const psg_span *span,
                                  psg_tir_expr **out);
/* -a, as TVM's neg: 0 - a for ints (folded for an immediate), -a for floats. */
PSG_API psg_status psg_tir_op_neg(psg_ctx *ctx, psg_tir_expr *a, const psg_span *span,
                                  psg_tir_expr **out);
/* TVM's tvm::cast: `a` itself when the dtype is already `dtype`; an
 * immediate for an immediate; Broadcast(cast(a)) when `dtype` has lanes and
 * `a` is a scalar; else a Cast node. */
PSG_API psg_status psg_tir_op_cast(psg_ctx *ctx, psg_tir_dtype dtype, psg_tir_expr *a,
                                   const psg_span *span, psg_tir_expr **out);
/* TVM's make_const: an IntImm or FloatImm of `dtype`'s scalar type, broadcast
 * when `dtype` has lanes. An int value out of the dtype's range wraps. */
PSG_API psg_status psg_tir_make_const_int(psg_ctx *ctx, psg_tir_dtype dtype, int64_t value,
                                          const psg_span *span, psg_tir_expr **out);
PSG_API psg_status psg_tir_make_const_float(psg_ctx *ctx, psg_tir_dtype dtype, double value,
                                            const psg_span *span, psg_tir_expr **out);

PSG_END_DECLS
#endif
