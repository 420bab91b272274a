/* Passage — the TIR passes under TVM's names (src/tir/transforms/): their
 * declarations, listed in src/builtin/passes.def, the rewrites themselves
 * for tests and other passes, and what they share. This layer sits above
 * src/transforms/ and below src/builtin/. */
#ifndef PSG_TIR_TRANSFORMS_H
#define PSG_TIR_TRANSFORMS_H

#include "pass/pass_internal.h"
#include "tir/tir_internal.h"

extern const psg_pass_decl psgi_pass_tir_remove_no_op;
extern const psg_pass_decl psgi_pass_tir_convert_ssa;

/* Whether e may have a side effect beyond reading memory (TVM's
 * SideEffect(e) > kReadState): a call of an op that is not pure
 * (tir.call_extern, tir.assume, tir.ret, ...). Iterative. */
psg_status psgi_tir_has_side_effect(psg_ctx *ctx, const psg_tir_node *e, bool *out);

/* RemoveNoOp of one PrimFunc with at most max_steps rewrites (<= 0: no
 * limit), with the dataflow removals when `dataflow`; *out is f itself
 * (retained) when nothing changed. */
psg_status psgi_tir_remove_no_op(psg_ctx *ctx, const psg_tir_prim_func *f, int64_t max_steps, bool dataflow,
                                 psg_tir_prim_func **out);

/* The stores of body that provably do nothing replaced by the Evaluates of
 * their side effects (dead_store.c): stores of the element they load, and
 * with `dataflow` stores overwritten before any read and stores of values
 * the buffer already holds. *out is a new reference. */
psg_status psgi_tir_drop_dead_stores(psg_ctx *ctx, psg_tir_stmt *body, bool dataflow, psg_tir_stmt **out);

#endif
