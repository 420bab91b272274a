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
/* Whether e only computes a value: no memory read, no call that is not pure
 * (TVM's SideEffect(e) <= kPure). Iterative. */
psg_status psgi_tir_is_pure(psg_ctx *ctx, const psg_tir_node *e, bool *out);

/* RemoveNoOp of one PrimFunc with at most max_steps rewrites (<= 0: no
 * limit); *out is f itself (retained) when nothing changed. */
psg_status psgi_tir_remove_no_op(psg_ctx *ctx, const psg_tir_prim_func *f, int64_t max_steps,
                                 psg_tir_prim_func **out);

#endif
