/* Passage — the iterator context of tir.FlattenBuffer's flat indices: TVM's
 * FlattenBuffer (an IRMutatorWithAnalyzer) simplifies each flat index with
 * IterMapSimplify over the loop vars it has seen and the conditions of the
 * enclosing `if`s and if_then_else branches that use them
 * (IterMapSimplifyWithContext). This keeps that context during the
 * mutator's walk and applies src/tir/arith/iter_map.c to the indices. */
#ifndef PSG_TIR_FLATTEN_BUFFER_ITER_H
#define PSG_TIR_FLATTEN_BUFFER_ITER_H

#include "passage/arith.h"
#include "support/support.h"

typedef struct psgi_tir_iter_pred {
  const psg_tir_node *owner; /* the IfThenElse or if_then_else call */
  psg_tir_expr *cond;        /* retained */
  bool active;               /* inside the branch it holds in */
} psgi_tir_iter_pred;

typedef struct psgi_tir_iter_scope {
  psg_ctx *ctx;
  psg_arith_analyzer *a; /* the flattener's (borrowed) */
  psgi_map loops;        /* loop / thread var -> [min, extent] (psg_tir_expr *[2], owned array) */
  PSGI_VEC(psgi_tir_iter_pred) preds;
  PSGI_VEC(psg_tir_expr *) owned; /* the zero mins of thread vars */
} psgi_tir_iter_scope;

void psgi_tir_iter_scope_init(psgi_tir_iter_scope *s, psg_ctx *ctx, psg_arith_analyzer *a);
void psgi_tir_iter_scope_fini(psgi_tir_iter_scope *s);
/* Mutator hooks (m->user is the flattener, whose `iters` is the scope):
 * the flattener's own pre hook, then a loop's range on reaching it, a branch condition before a branch, and
 * the condition dropped after its IfThenElse / call. */
psg_status psgi_tir_iter_scope_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement);
psg_status psgi_tir_iter_scope_before_child(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot);
psg_status psgi_tir_iter_scope_visit_branch(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out);
/* idx[0..n) replaced by their IterMapSimplify under the scope, when the
 * detection succeeds (else left as they are). */
psg_status psgi_tir_iter_scope_simplify(psgi_tir_iter_scope *s, psg_tir_expr **idx, size_t n);

#endif
