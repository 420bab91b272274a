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
extern const psg_pass_decl psgi_pass_tir_unroll_loop;
extern const psg_pass_decl psgi_pass_tir_vectorize_loop;

/* Whether e may have a side effect beyond reading memory (TVM's
 * SideEffect(e) > kReadState): a call of an op that is not pure
 * (tir.call_extern, tir.assume, tir.ret, ...). Iterative. */
psg_status psgi_tir_has_side_effect(psg_ctx *ctx, const psg_tir_node *e, bool *out);

/* RemoveNoOp of one PrimFunc with at most max_steps rewrites (<= 0: no
 * limit); *out is f itself (retained) when nothing changed. */
psg_status psgi_tir_remove_no_op(psg_ctx *ctx, const psg_tir_prim_func *f, int64_t max_steps,
                                 psg_tir_prim_func **out);

/* tir.UnrollLoop's config (TVM's UnrollLoopConfig) and the rewrite of one
 * PrimFunc under it; *out is f itself (retained) when nothing changed. */
typedef struct psgi_tir_unroll_cfg {
  int64_t auto_max_step, auto_max_depth, auto_max_extent;
  bool explicit_unroll, unroll_local_access;
} psgi_tir_unroll_cfg;
psg_status psgi_tir_unroll_loop(psg_ctx *ctx, const psg_tir_prim_func *f, const psgi_tir_unroll_cfg *cfg,
                                psg_tir_prim_func **out);

/* tir.VectorizeLoop of one PrimFunc; enable false makes vectorized loops
 * serial; predicate: tir.enable_buffer_level_predication. *out is f itself
 * (retained) when nothing changed. */
psg_status psgi_tir_vectorize_loop(psg_ctx *ctx, const psg_tir_prim_func *f, bool enable, bool predicate,
                                   psg_tir_prim_func **out);

/* ConvertSSA of one PrimFunc on its own (TVM's ConvertSSA(Stmt), which the
 * loop passes call after copying a body): *out is f itself (retained) when
 * every var is defined once already (convert_ssa.c). */
psg_status psgi_tir_convert_ssa_func(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);

/* n with every use of `var` replaced by `value` (TVM's Substitute); n
 * itself (retained) when var does not occur. Iterative (substitute.c). */
psg_status psgi_tir_substitute(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *var,
                               psg_tir_node *value, psg_tir_node **out);
/* The same for `count` vars at once (vars[i] by values[i]). */
psg_status psgi_tir_substitute_n(psg_ctx *ctx, const psg_tir_node *n, psg_tir_node *const *vars,
                                 psg_tir_node *const *values, size_t count, psg_tir_node **out);

#endif
