/* Passage — what the schedule primitives share (src/tir/schedule/): the
 * schedule object, paths from a function body down to a statement (the IR
 * is immutable, so a rewrite rebuilds the path above what it replaces),
 * stages (the stores to one buffer) and loops found by their var. */
#ifndef PSG_TIR_SCHEDULE_INTERNAL_H
#define PSG_TIR_SCHEDULE_INTERNAL_H

#include "passage/tir_schedule.h"
#include "tir/transforms/tir_transforms.h"

struct psg_tir_schedule {
  psg_ctx *ctx;
  psg_tir_prim_func *func; /* owned */
  /* Commits skip the whole-function well-formedness check (the default
   * schedule, lower/default_schedule.c, checks its result once instead). */
  bool unchecked;
};

/* A located-nowhere error of primitive `prim`: "split: ..." (returns code). */
psg_status psgi_sch_error(psg_ctx *ctx, psg_status code, const char *prim, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A path from a root statement down: node[0] is the root, node[k + 1] is
 * node[k]->kids[slot[k]]; the last node is the target. Borrowed nodes. */
typedef struct psgi_sch_path {
  PSGI_VEC(psg_tir_node *) node;
  PSGI_VEC(uint32_t) slot;
} psgi_sch_path;
void psgi_sch_path_fini(psg_ctx *ctx, psgi_sch_path *p);
static inline size_t psgi_sch_path_len(const psgi_sch_path *p) { return p->node.len; }
static inline psg_tir_node *psgi_sch_path_last(const psgi_sch_path *p) { return p->node.data[p->node.len - 1]; }

/* Pre-order walk of the statements under root in program order; `visit`
 * sees the path to each statement (the walk's own stack) and returns
 * PSG_VISIT_CONTINUE, PSG_VISIT_SKIP_CHILDREN or PSG_VISIT_ABORT (which
 * stops the walk leaving the path as it is, for the caller to copy). */
typedef int (*psgi_sch_visit_fn)(const psgi_sch_path *path, void *user);
psg_status psgi_sch_walk(psg_ctx *ctx, psg_tir_node *root, psgi_sch_visit_fn visit, void *user,
                         psgi_sch_path *path);

/* The root with path->node[depth] replaced by `with` (rebuilding the nodes
 * above it); *out is a new reference. */
psg_status psgi_sch_replace(psg_ctx *ctx, const psgi_sch_path *path, size_t depth, psg_tir_node *with,
                            psg_tir_node **out);
/* parent (a For, SeqStmt, Allocate, DeclBuffer, AttrStmt, LetStmt,
 * IfThenElse, AssertStmt or While) with its statement operand `slot`
 * replaced by the statement kid: a copy that is what psgi_tir_rebuild
 * gives, without its checks (psgi_sch_replace's step). *out stays NULL
 * (nothing made) for any other parent, slot or kid. */
psg_status psgi_sch_with_stmt_kid(psg_ctx *ctx, const psg_tir_node *parent, uint32_t slot, psg_tir_node *kid,
                                  psg_tir_node **out);
/* Like psgi_sch_replace, but node[depth] is taken out: dropped from its
 * SeqStmt (a SeqStmt left with one statement becomes that statement), or
 * replaced by T.evaluate(0) elsewhere. */
psg_status psgi_sch_remove(psg_ctx *ctx, const psgi_sch_path *path, size_t depth, psg_tir_node **out);
/* SeqStmt(a, b), flattening a and b when they are SeqStmts themselves. */
psg_status psgi_sch_seq2(psg_ctx *ctx, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out);

/* The path from body to the For over `var`; PSG_ERR_NOT_FOUND (with an error
 * of `prim`) when no loop of the function binds it. */
psg_status psgi_sch_find_loop(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *var, const char *prim,
                              psgi_sch_path *path);
/* The path from body to node `target` (a statement); false if absent. */
psg_status psgi_sch_find_node(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *target, psgi_sch_path *path,
                              bool *found);

/* A stage: every store to the buffers of one name (one data var). */
typedef struct psgi_sch_stage {
  const char *name;             /* interned */
  psg_tir_node *data;           /* the buffers' data var */
  psg_tir_node *buffer;         /* the buffer of the last store */
  PSGI_VEC(psg_tir_node *) stores; /* program order, borrowed */
  psgi_sch_path last;           /* body .. last store */
  size_t root;                  /* depth in `last` of the nest holding all the stage's stores and no other */
} psgi_sch_stage;
psg_status psgi_sch_stage_find(psg_ctx *ctx, psg_tir_node *body, const char *name, const char *prim,
                               psgi_sch_stage *st);
void psgi_sch_stage_fini(psg_ctx *ctx, psgi_sch_stage *st);
/* What psgi_sch_stage_find would find for each of n stage names, from one
 * walk: out[i].found (false where it fails: no store, or ambiguous),
 * out[i].data and out[i].nstores. */
typedef struct psgi_sch_stage_summary {
  bool found;
  psg_tir_node *data;
  size_t nstores;
} psgi_sch_stage_summary;
psg_status psgi_sch_stage_summaries(psg_ctx *ctx, psg_tir_node *body, const char *const *names, size_t n,
                                    psgi_sch_stage_summary *out);
/* Whether buffer b (by its data var) is a parameter buffer of f. */
bool psgi_sch_is_param_data(const psg_tir_prim_func *f, const psg_tir_node *data);

/* Counts in the subtree n: stores (all; and to data var `data`), loads of
 * `data`. Iterative. */
typedef struct psgi_sch_counts {
  size_t stores, stores_to, loads_of;
} psgi_sch_counts;
psg_status psgi_sch_count(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *data, psgi_sch_counts *out);
/* Whether var occurs in n. */
psg_status psgi_sch_uses_var(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *var, bool *out);

/* The data vars n loads (other than `skip`), each with the first buffer
 * seen over it. */
typedef struct psgi_sch_reads {
  PSGI_VEC(psg_tir_node *) datas;
  PSGI_VEC(psg_tir_node *) bufs;
} psgi_sch_reads;
psg_status psgi_sch_reads_of(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *skip, psgi_sch_reads *out);
void psgi_sch_reads_fini(psg_ctx *ctx, psgi_sch_reads *r);
/* *bad: the first store to one of `datas` in program order after the
 * statement `after` (outside it), or NULL. */
psg_status psgi_sch_written_after(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *after,
                                  psg_tir_node *const *datas, size_t n, const psg_tir_node **bad);
/* The same for after = path->node[depth] when that statement occurs once
 * in the walk of path->node[0] (e.g. it holds a stage's only store): the
 * statements after it are then the later statement operands of the nodes
 * above it on the path, deepest first, and only those are walked. */
psg_status psgi_sch_written_after_path(psg_ctx *ctx, const psgi_sch_path *path, size_t depth,
                                       psg_tir_node *const *datas, size_t n, const psg_tir_node **bad);
/* The first statement operand of n at or after operand k, or n->nkids (the
 * order in which psgi_sch_walk reaches them). */
uint32_t psgi_sch_next_stmt_kid(const psg_tir_node *n, uint32_t k);

/* The region of buffer `data` that the statements under `under` read (or,
 * with `writes`, store), the loops inside `under` relaxed to their ranges:
 * per dimension lo[k] and ext[k] (new references), simplified with the For
 * nodes among outer[0 .. nouter) bound. An index that cannot be bounded is
 * an error of `prim` naming `what` (region.c). */
psg_status psgi_sch_region(psg_ctx *ctx, psg_tir_node *under, const psg_tir_node *data, size_t ndim, bool writes,
                           psg_tir_node *const *outer, size_t nouter, const char *prim, const char *what,
                           psg_tir_node **lo, psg_tir_node **ext);

/* The range [*lo, *hi] of loop f (new references, NULL when unknown) as
 * psgi_sch_region relaxes it with no loop outside: a constant loop by its
 * fast path (`fast`) or the general interval evaluation (region.c; the
 * test of the fast path compares the two). */
psg_status psgi_sch_loop_range(psg_ctx *ctx, const psg_tir_node *f, bool fast, psg_tir_node **lo, psg_tir_node **hi,
                               bool *unknown);

/* compute_inline's checks of `block` on `body` (inline.c): the stage found
 * (*st, to finalize by the caller) when it can be inlined, else an error of
 * compute_inline (st finalized). */
psg_status psgi_sch_inline_check(psg_tir_schedule *s, psg_tir_node *body, const char *block, psgi_sch_stage *st);
/* The nodes of body on a path from it to a node touches(user, node) holds
 * for, put in on_path (inline.c; one walk, iterative): compute_inline's
 * rewrites skip every other subtree. */
psg_status psgi_sch_mark_paths(psg_ctx *ctx, const psg_tir_node *body,
                               bool (*touches)(const void *user, const psg_tir_node *n), const void *user,
                               psgi_map *on_path);
/* compute_inline of blocks[0], blocks[1], ... in that order, in one rewrite
 * of the function (inline_chain.c), when that provably gives what the
 * compute_inlines one after another give and every block passes its check:
 * then *applied. Otherwise (*applied false) the schedule and the diagnostics
 * are as they were, for the caller to inline one at a time. Only for an
 * unchecked schedule (the default schedule's). */
psg_status psgi_sch_compute_inline_chain(psg_tir_schedule *s, const char *const *blocks, size_t n, bool *applied);

/* split in two steps (loops.c): prepare makes what the split depends on
 * only — its checks, the new vars and extents, the fused index (simplified)
 * and whether the product provably equals the extent (no guard) — without
 * changing the function; apply makes the split of the loop found then
 * (the For over `loop`'s var, found again in the body at hand).
 * psg_tir_schedule_split is the two in a row. */
typedef struct psgi_sch_split_plan {
  psg_tir_node *var; /* the split loop's var (owned) */
  size_t n;
  psg_tir_node *fexpr[16], *vars[16]; /* the new loops, outermost first (owned) */
  psg_tir_node *fused, *prod;         /* the old var's value; the product of the factors (owned) */
  bool exact;                         /* prod provably equals the extent: no guard */
} psgi_sch_split_plan;
psg_status psgi_sch_split_prepare(psg_tir_schedule *s, psg_tir_expr *loop, const int64_t *factors, size_t n,
                                  psgi_sch_split_plan *p);
psg_status psgi_sch_split_apply(psg_tir_schedule *s, const psgi_sch_split_plan *p);
void psgi_sch_split_plan_fini(psgi_sch_split_plan *p);
/* The splits of plans[0..nplans) (prepared on the function at hand, each of
 * another loop), then reorder(order): in one rewrite of the nest when that
 * is provably what the primitives one after another give (the split loops
 * and the order's other loops on one perfect nest of loops whose ranges use
 * no split var, every split exact and both its parts in the order), else by
 * the primitives themselves (split_reorder.c). */
psg_status psgi_sch_split_reorder(psg_tir_schedule *s, const psgi_sch_split_plan *plans, size_t nplans,
                                  psg_tir_expr *const *order, size_t norder);
/* Whether the last psgi_sch_split_reorder took the one rewrite (for the
 * test that compares the two ways; set on every call). */
extern _Thread_local bool psgi_sch_split_reorder_fast_taken;
/* Forces the primitives one after another (tests). */
extern _Thread_local bool psgi_sch_split_reorder_slow;

/* Makes `body` the schedule's function body (after verify_well_formed); the
 * function is unchanged on failure. Takes no reference of body. */
psg_status psgi_sch_commit(psg_tir_schedule *s, psg_tir_node *body, const char *prim);

/* A new int var of `dtype` named after `base` with `suffix`. */
psg_status psgi_sch_new_var(psg_ctx *ctx, const char *base, const char *suffix, psg_tir_dtype dtype,
                            psg_tir_node **out);
/* An IntImm of dtype (checked). */
psg_status psgi_sch_int(psg_ctx *ctx, psg_tir_dtype dtype, int64_t v, psg_tir_node **out);
/* a OP b through the checked constructor, then constant folding of the top. */
psg_status psgi_sch_bin(psg_ctx *ctx, int kind, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out);

#endif
