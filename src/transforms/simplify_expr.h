/* Passage — SimplifyExpr's multi-node patterns (simplify_expr_patterns.c),
 * called from the pass (simplify_expr.c) on each rewritten call, children
 * first. Each returns the replacement (borrowed from `b`) or NULL. */
#ifndef PSG_TRANSFORMS_SIMPLIFY_EXPR_H
#define PSG_TRANSFORMS_SIMPLIFY_EXPR_H

#include "transforms/builder.h"

typedef struct simplifier simplifier;

/* How many parents the original of `now` (a node of the rewritten graph) has. */
size_t psgi_simplify_users(const simplifier *s, const psg_expr *now);

/* Decomposed HardSwish (x * clip(x + 3, 0, 6) / 6, x * HardSigmoid(x) with
 * alpha 1/6 and beta 1/2, and their reorderings) into the canonical form
 * divide(multiply(x, clip(add(x, 3f), a_min=0f, a_max=6f)), 6f) that the ONNX
 * export writes as one HardSwish. */
psg_expr *psgi_simplify_hard_swish(psgi_built *b, const simplifier *s, const psg_expr *now);

/* (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) over one axis into
 * nn.layer_norm(x, ones, zeros); a following per-axis multiply and add into
 * its gamma and beta. */
psg_expr *psgi_simplify_layer_norm(psgi_built *b, const simplifier *s, const psg_expr *now);

/* A transpose of the last two axes feeding nn.batch_matmul or nn.matmul into
 * the operand's transpose flag. */
psg_expr *psgi_simplify_matmul_transpose(psgi_built *b, const psg_expr *now);

/* reshape(op(reshape(x))) with op elementwise (or a binary op with a rank-0
 * constant, softmax over a last axis the reshapes keep, a transpose of the
 * last two axes both reshapes keep) and each inner value used once:
 * op(reshape(x)) with one reshape, or op(x). */
psg_expr *psgi_simplify_reshape_through(psgi_built *b, const simplifier *s, const psg_expr *now);

/* op(squeeze(x)) with op elementwise (its other operand dropping the same
 * unit axis, or a constant) or a transpose: squeeze(op(x)), when a squeeze
 * goes (simplify_expr_squeeze.c), so that a following expand_dims cancels. */
psg_expr *psgi_simplify_squeeze_sink(psgi_built *b, const simplifier *s, const psg_expr *now);

/* TVM's arithmetic rewrites (simplify_expr_arith.c): op(full, x) with a broadcasting op and x of the result's type ->
 * op(fill scalar, x); (x op c1) op c2 -> x op (c1 op c2) for add and
 * multiply, the constants folded (the inner call used once). */
psg_expr *psgi_simplify_full_elementwise(psgi_built *b, const psg_expr *now);
psg_expr *psgi_simplify_adjacent_constants(psgi_built *b, const simplifier *s, const psg_expr *now);

/* TVM's cast and clip rewrites (simplify_expr_cast.c): cast(cast(x)) whose
 * first cast widens -> one cast; casts after a clip that hold its range go;
 * a clip whose range holds its dtype's -> its operand. */
psg_expr *psgi_simplify_consecutive_cast(psgi_built *b, const psg_expr *now);
psg_expr *psgi_simplify_clip_casts(psgi_built *b, const psg_expr *now);
psg_expr *psgi_simplify_clip(const psg_expr *now);

/* zeros_like, ones_like, full_like, reshape_like, collapse_sum_like and
 * broadcast_to_like of a static result shape into zeros, ones, full,
 * reshape, collapse_sum_to and broadcast_to; cast_like into cast
 * (simplify_expr_like.c). */
psg_expr *psgi_simplify_concretize_like(psgi_built *b, const psg_expr *now);

#endif
