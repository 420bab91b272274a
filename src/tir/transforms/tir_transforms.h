/* Passage — the TIR passes under TVM's names (src/tir/transforms/): their
 * declarations, listed in src/builtin/passes.def, the rewrites themselves
 * for tests and other passes, and what they share. This layer sits above
 * src/transforms/ and below src/builtin/. */
#ifndef PSG_TIR_TRANSFORMS_H
#define PSG_TIR_TRANSFORMS_H

#include "pass/pass_internal.h"
#include "tir/tir_internal.h"
#include "passage/arith.h"

extern const psg_pass_decl psgi_pass_tir_remove_no_op;
extern const psg_pass_decl psgi_pass_tir_convert_ssa;
extern const psg_pass_decl psgi_pass_tir_flatten_buffer;
extern const psg_pass_decl psgi_pass_tir_storage_flatten;
extern const psg_pass_decl psgi_pass_tir_narrow_data_type;
extern const psg_pass_decl psgi_pass_tir_unroll_loop;
extern const psg_pass_decl psgi_pass_tir_vectorize_loop;
extern const psg_pass_decl psgi_pass_tir_loop_partition;
extern const psg_pass_decl psgi_pass_tir_hoist_if_then_else;
extern const psg_pass_decl psgi_pass_tir_lower_opaque_block;
extern const psg_pass_decl psgi_pass_tir_common_subexpr_elim;
extern const psg_pass_decl psgi_pass_tir_lower_intrin;
extern const psg_pass_decl psgi_pass_tir_storage_rewrite;
extern const psg_pass_decl psgi_pass_tir_inject_virtual_thread;

/* Whether e may have a side effect beyond reading memory (TVM's
 * SideEffect(e) > kReadState): a call of an op that is not pure
 * (tir.call_extern, tir.assume, tir.ret, ...). Iterative. */
psg_status psgi_tir_has_side_effect(psg_ctx *ctx, const psg_tir_node *e, bool *out);
/* Whether e only computes a value: no memory read, no call that is not pure
 * (TVM's SideEffect(e) <= kPure). Iterative. */
psg_status psgi_tir_is_pure(psg_ctx *ctx, const psg_tir_node *e, bool *out);

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
/* Whether f carries from_legacy_te_schedule=true (TVM's IsFromLegacyTESchedule):
 * StorageFlatten's input, which FlattenBuffer leaves alone. */
bool psgi_tir_is_legacy_te(const psg_tir_prim_func *f);
/* tir.FlattenBuffer of one PrimFunc (*out is f, retained, for a legacy one). */
psg_status psgi_tir_flatten_buffer(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);
/* tir.StorageFlatten of one PrimFunc (*out is f, retained, unless it is legacy TE). */
psg_status psgi_tir_storage_flatten(psg_ctx *ctx, const psg_tir_prim_func *f, int64_t cache_line_size,
                                    bool create_bound_attributes, psg_tir_prim_func **out);
/* tir.NarrowDataType of one PrimFunc; target_bits is 8, 16, 32 or 64. */
psg_status psgi_tir_narrow_data_type(psg_ctx *ctx, const psg_tir_prim_func *f, int target_bits,
                                     psg_tir_prim_func **out);
/* Its analysis and rewrite, without the check below (tests compare the two). */
psg_status psgi_tir_narrow_data_type_full(psg_ctx *ctx, const psg_tir_prim_func *f, int target_bits,
                                          psg_tir_prim_func **out);
/* *keeps: whether the rewrite of tir.NarrowDataType(target_bits) returns
 * every node of f unchanged; then the pass returns f. */
psg_status psgi_tir_narrow_keeps_all(psg_ctx *ctx, const psg_tir_prim_func *f, int target_bits, bool *keeps);

/* Buffer flattening (buffer_flatten.c), shared by FlattenBuffer and
 * StorageFlatten. The flat form of b (TVM's GetFlattenedBuffer): one axis per
 * axis-separator group, compact, elem_offset 0, bool stored as int8; b
 * itself (retained) when that changes nothing. With an analyzer `a` (may be
 * NULL) the new extents are canonically simplified. */
psg_status psgi_tir_flattened_buffer(psg_ctx *ctx, psg_arith_analyzer *a, const psg_tir_buffer *b,
                                     psg_tir_buffer **out);
/* The flat indices of b[idx...] (TVM's ElemOffset), elem_offset included,
 * into out[0 .. axis_separators]: with an iterator scope (may be NULL)
 * first put through IterMapSimplify (flatten_buffer_iter.h), then
 * simplified with `a` when not NULL. */
struct psgi_tir_iter_scope;
psg_status psgi_tir_flat_indices(psg_ctx *ctx, psg_arith_analyzer *a, const psg_tir_buffer *b,
                                 psg_tir_expr *const *idx, size_t n, const psg_span *span, psg_tir_expr **out,
                                 struct psgi_tir_iter_scope *iters);

/* The mutator both passes build on: For ranges and int LetStmt values bound
 * in `a` as the walk reaches them (pre), loads and stores over the flat
 * buffers (cached per original buffer in `flat`). */
typedef struct psgi_tir_flattener {
  psg_ctx *ctx;
  psg_arith_analyzer *a;     /* the facts of the walk */
  psg_arith_analyzer *fresh; /* no facts: TVM's ElemOffset simplification */
  psgi_map flat;             /* buffer -> its flat form (owned) */
  psgi_map defined;          /* handle vars defined by params, Allocate or LetStmt */
  psgi_map flat_indices;     /* StorageFlatten: (buffer, indices) -> flat indices (buffer_flatten.c) */
  psgi_map flat_shapes;      /* StorageFlatten: the same by shape, vars by position (flat_index_shapes.c) */
  psgi_map *shapes;          /* the table used: &flat_shapes, or the run's (psgi_flat_shapes_of_run) */
  bool canonical_shapes;     /* FlattenBuffer: flat extents canonically simplified */
  bool context_indices;      /* FlattenBuffer: indices simplified with the walk's facts */
  bool reject_predicates;    /* StorageFlatten: predicated accesses are an error */
  bool unbound;              /* StorageFlatten of a function without AssertStmt: nothing reads
                                the walk's facts, so loops and lets are not bound into a */
  struct psgi_tir_iter_scope *iters; /* FlattenBuffer: IterMapSimplify's context, or NULL */
  const char *pass_name;
} psgi_tir_flattener;
psg_status psgi_tir_flattener_init(psgi_tir_flattener *f, psg_ctx *ctx);
void psgi_tir_flattener_fini(psgi_tir_flattener *f);
/* The flat form of b (borrowed from the cache). */
psg_status psgi_tir_flattener_get(psgi_tir_flattener *f, const psg_tir_buffer *b, psg_tir_buffer **out);
/* Mutator callbacks; m->user is the flattener. */
psg_status psgi_tir_flattener_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement);
psg_status psgi_tir_flattener_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out);
psg_status psgi_tir_flattener_store(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out);
/* psgi_tir_flat_indices of b at idx with the fact-free analyzer `fresh`,
 * taken from `shapes` (its vars replaced by idx's) when an access of the
 * same shape was flattened before, else computed and remembered there
 * (flat_index_shapes.c). */
psg_status psgi_flat_shapes_indices(psg_ctx *ctx, psgi_map *shapes, psg_arith_analyzer *fresh,
                                    const psg_tir_buffer *b, psg_tir_expr *const *idx, size_t ni,
                                    const psg_span *span, psg_tir_expr **out, size_t nout);
void psgi_flat_shapes_fini(psg_ctx *ctx, psgi_map *shapes);
/* The shape table StorageFlatten keeps across the functions of one run over
 * a module (pass/run_scratch.h), or NULL outside such a run. */
psgi_map *psgi_flat_shapes_of_run(psg_ctx *ctx);
/* Whether psgi_flat_shapes_indices always computes (false; tests set it to
 * compare both ways). */
extern bool psgi_flat_shapes_disabled;

/* tir.UnrollLoop's config (TVM's UnrollLoopConfig) and the rewrite of one
 * PrimFunc under it; *out is f itself (retained) when nothing changed. */
typedef struct psgi_tir_unroll_cfg {
  int64_t auto_max_step, auto_max_depth, auto_max_extent;
  bool explicit_unroll, unroll_local_access;
} psgi_tir_unroll_cfg;
psg_status psgi_tir_unroll_loop(psg_ctx *ctx, const psg_tir_prim_func *f, const psgi_tir_unroll_cfg *cfg,
                                psg_tir_prim_func **out);

/* tir.LoopPartition's config (TVM's LoopPartitionConfig) and the rewrite of
 * one PrimFunc under it (loop_partition.c); *out is f itself (retained) when
 * nothing changed. */
typedef struct psgi_tir_loop_partition_cfg {
  bool partition_const_loop, no_unroll_loop_with_extent_one, unroll_loop_with_partition_hint_no_interval;
} psgi_tir_loop_partition_cfg;
psg_status psgi_tir_loop_partition(psg_ctx *ctx, const psg_tir_prim_func *f, const psgi_tir_loop_partition_cfg *cfg,
                                   psg_tir_prim_func **out);

/* HoistIfThenElse's insertion step alone (hoist_if_then_else.c): loops
 * wrapped in the loop-invariant conditions of their ifs, not yet simplified;
 * block_scope: support_block_scope_hosting. *out is f itself when nothing
 * is hoisted. */
psg_status psgi_tir_hoist_if_then_else_insert(psg_ctx *ctx, const psg_tir_prim_func *f, bool block_scope,
                                              psg_tir_prim_func **out);

/* tir.VectorizeLoop of one PrimFunc; enable false makes vectorized loops
 * serial; predicate: tir.enable_buffer_level_predication. *out is f itself
 * (retained) when nothing changed. */
psg_status psgi_tir_vectorize_loop(psg_ctx *ctx, const psg_tir_prim_func *f, bool enable, bool predicate,
                                   psg_tir_prim_func **out);
/* The same as a mutator over every node (the pass walks statements only;
 * test_tir_vectorize_stmts checks that both give the same function). */
psg_status psgi_tir_vectorize_loop_mutator(psg_ctx *ctx, const psg_tir_prim_func *f, bool enable, bool predicate,
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
/* The same through the general mutator (psg_tir_mutate with a pre
 * callback): what psgi_tir_substitute_n computed before it took the
 * rewrite walk; the test compares the two (test_tir_substitute). */
psg_status psgi_tir_substitute_n_mutator(psg_ctx *ctx, const psg_tir_node *n, psg_tir_node *const *vars,
                                         psg_tir_node *const *values, size_t count, psg_tir_node **out);

/* tir.LowerOpaqueBlock of one PrimFunc (lower_opaque_block.c): unit loops
 * removed, loop pragma_* annotations as AttrStmts. */
psg_status psgi_tir_lower_opaque_block(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);
/* tir.CommonSubexprElimTIR of one PrimFunc (common_subexpr_elim.c); *out
 * is f itself (retained) when nothing is commoned. */
psg_status psgi_tir_common_subexpr_elim(psg_ctx *ctx, const psg_tir_prim_func *f, bool identify_equiv_terms,
                                        psg_tir_prim_func **out);
/* Whether the pass runs without its fast paths (every statement analysed
 * from its computation table; false, tests set it to compare both ways). */
extern bool psgi_cse_exhaustive;
/* tir.LowerIntrin of one PrimFunc with the C target's rules (lower_intrin.c). */
psg_status psgi_tir_lower_intrin(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);
/* tir.InjectVirtualThread of one PrimFunc (inject_virtual_thread.c); *out
 * is f itself (retained) when it has no virtual_thread AttrStmt. */
psg_status psgi_tir_inject_virtual_thread(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);

/* tir.StorageRewrite of one PrimFunc (storage_rewrite.c); reuse=false keeps
 * one storage per Allocate (tir.merge_static_smem). */
psg_status psgi_tir_storage_rewrite(psg_ctx *ctx, const psg_tir_prim_func *f, bool reuse, psg_tir_prim_func **out);

/* TVM's SeqStmt::Flatten of items[0..n): nested SeqStmts spliced,
 * Evaluate(0) dropped; none left is Evaluate(0), one left is itself (new
 * reference in *out; the items are borrowed). */
psg_status psgi_tir_seq_flatten(psg_ctx *ctx, psg_tir_node *const *items, size_t n, const psg_span *sp,
                                psg_tir_node **out);

#endif
