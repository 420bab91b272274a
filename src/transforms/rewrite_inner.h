/* Passage — a post-order rewrite that skips the leaves (Var, GlobalVar,
 * Constant, Op) a pass does not visit: they are kept as they are without a
 * memo entry, which is about half the map work of psg_mutate on a graph of
 * calls over constants and ops. Leaves of a kind with a callback are visited
 * when first reached, as psg_mutate does. Same order and results as
 * psg_mutate with the same callbacks. A Composite function literal is kept
 * as it is, body unvisited (psgi_is_composite_fn). Iterative (explicit frames). */
#ifndef PSG_TRANSFORMS_REWRITE_INNER_H
#define PSG_TRANSFORMS_REWRITE_INNER_H

#include "ir/ir_internal.h"

typedef struct psgi_rewriter psgi_rewriter;
/* Called after e's children are rewritten, with *out holding the default
 * rewrite (e itself, or e rebuilt over the new children; a reference the
 * callback owns): the callback may release it and put another in its place. */
typedef psg_status (*psgi_rewrite_fn)(psgi_rewriter *r, const psg_expr *e, psg_expr **out);
/* Called before e is rebuilt over `kids`, its children's rewrites (at least
 * one of them new): an existing node to take instead (a new reference),
 * which is then e's rewrite as it is (not built, no visit callback), or
 * NULL to build it. A pass that would replace what it built by a node it
 * already has (EliminateCommonSubexpr) saves the node's construction and
 * release. */
typedef psg_status (*psgi_reuse_fn)(psgi_rewriter *r, const psg_expr *e, psg_expr *const *kids, psg_expr **out);
struct psgi_rewriter {
  psg_ctx *ctx;
  psgi_rewrite_fn visit[PSG_EXPR_KIND_COUNT]; /* NULL: the default (leaves: kept, not visited) */
  void *user;
  psgi_reuse_fn reuse; /* NULL: always build */
};

/* The rewrite of `root` in *out (a new reference). */
psg_status psgi_rewrite_inner(psgi_rewriter *r, const psg_expr *root, psg_expr **out);
/* psgi_rewrite_function's counterpart: types the module first if `func` is
 * untyped, then rewrites it with `visit` (a table indexed by kind). */
psg_status psgi_rewrite_function_inner(psg_expr *func, const psg_module *mod, const psgi_rewrite_fn *visit, void *user,
                                       psg_expr **out);

#endif
