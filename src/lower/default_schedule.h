/* Passage — the default CPU schedule of a PrimFunc made by the TE layer
 * (issue 16 item 2; TVM's x86 strategies and TOPI schedules in spirit):
 * the anchor op of the function (the stage whose op has the highest
 * TOpPattern, from "passage.te_stages") picks a schedule family, which
 * rewrites the naive loop nests with the tir.Schedule primitives. A family
 * that cannot apply leaves the function naive. docs/lowering.md. */
#ifndef PSG_LOWER_DEFAULT_SCHEDULE_H
#define PSG_LOWER_DEFAULT_SCHEDULE_H

#include "passage/tir_schedule.h"
#include "support/support.h"

/* The stages of the function, from its "passage.te_stages" attribute. */
typedef struct psgi_dsch_stage {
  const char *buffer; /* the stage's buffer name (get_block) */
  const char *op;     /* the Relay op */
  int pattern;        /* PSG_OP_PATTERN_* */
  bool output;        /* writes a parameter buffer */
  bool reduction;     /* stored more than once: init + update */
  bool done;          /* scheduled by the family already */
} psgi_dsch_stage;

typedef struct psgi_dsch {
  psg_ctx *ctx;
  psg_tir_schedule *s;
  PSGI_VEC(psgi_dsch_stage) stages;
  size_t anchor; /* index in stages */
} psgi_dsch;

/* `f` scheduled (*out, a new reference) and the name of the schedule
 * applied (*kind, static: "dense", "conv2d_nchw", ..., or "naive" when
 * the function has no stage tags or its family could not apply; then *out
 * is f retained). The result carries the attribute "passage.schedule" =
 * *kind. Only PSG_ERR_NOMEM fails. */
psg_status psgi_default_schedule(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out,
                                 const char **kind);

/* Helpers of the families (default_schedule.c) ------------------------------- */
/* The constant extent of the loop over var (-1 if not constant or absent). */
int64_t psgi_dsch_extent(psgi_dsch *d, psg_tir_expr *loop);
/* The largest divisor of extent in [2, cap], or 1: split factors that
 * divide, so no guard lands in a vectorized loop. */
int64_t psgi_dsch_factor(int64_t extent, int64_t cap);
/* A vector factor (cap a power of two): the largest power of two from 4 up
 * to cap that divides the extent, so a vector is a whole register (a width
 * of 40 is 5 x 8 lanes, not 4 x 10: a 10-lane vector is an array the C
 * compiler handles lane by lane); else psgi_dsch_factor. */
int64_t psgi_dsch_vec_factor(int64_t extent, int64_t cap);
/* The stage's loops (psg_free the array, release the vars). */
psg_status psgi_dsch_loops(psgi_dsch *d, const char *stage, psg_tir_expr ***loops, size_t *n);
void psgi_dsch_loops_free(psg_tir_expr **loops, size_t n);
/* parallel, unless the loop has extent 1 (a loop var simplified away). */
psg_status psgi_dsch_parallel(psgi_dsch *d, psg_tir_expr *loop);
/* The init nest decompose_reduction made for loop `loop` (its var
 * "<loop>_init") vectorized, when there is one. */
psg_status psgi_dsch_vectorize_init(psgi_dsch *d, psg_tir_expr *loop);
/* The same nest's loop unrolled. */
psg_status psgi_dsch_unroll_init(psgi_dsch *d, psg_tir_expr *loop);
/* Runs step(d, arg) and, when it is refused (an error other than NOMEM),
 * forgets its diagnostics and returns PSG_OK with *applied false. */
typedef psg_status (*psgi_dsch_step)(psgi_dsch *d, void *arg);
psg_status psgi_dsch_try(psgi_dsch *d, psgi_dsch_step step, void *arg, bool *applied);
/* compute_inline of every stage that is not an output, a reduction or a
 * stage of op `keep_op` (NULL: none), latest first, each where it applies. */
psg_status psgi_dsch_inline_all(psgi_dsch *d, const char *keep_op);
/* TVM's schedule_injective on an output nest: the leading loops fused
 * (two of three or more, three of five or more) and parallel, the last
 * loop split by a dividing factor up to 16 and its inner part vectorized. */
psg_status psgi_dsch_injective_nest(psgi_dsch *d, const char *stage);
/* TVM's schedule_reduce on a reduction stage: its leading spatial loops
 * fused until 128 iterations and parallel; the reduction loops stay
 * innermost, in their order. */
psg_status psgi_dsch_reduce_nest(psgi_dsch *d, const char *stage);
/* The legacy-TE reduction `for sp: {C = init; for r: C = upd}` of stage in
 * the init-guarded form `for sp: for r: {if r == 0: C = init; C = upd}`
 * (what TE's compute op means; decompose_reduction undoes it after the
 * loops are reordered). The order of the updates is unchanged. */
psg_status psgi_dsch_guard_init(psgi_dsch *d, const char *stage);

/* The register tile (default_schedule_tile.c): cache_write_at of `stage`
 * at loop `at` (the innermost loop outside its reductions); then the tile's
 * `rows` loop (in the update and its init) and the copy-out's loops other
 * than the vector one unrolled, the copy's "ax<vec_dim>" loop vectorized
 * (when `vec`: the tile's vector loop, may be NULL). A psgi_dsch_step. */
typedef struct psgi_dsch_tile {
  const char *stage;
  psg_tir_expr *at;
  psg_tir_expr *rows, *vec;
  int vec_dim;
} psgi_dsch_tile;
psg_status psgi_dsch_local_tile(psgi_dsch *d, void *arg);

/* The families (one file each). A family returns an error to give up:
 * psgi_default_schedule then keeps the naive function. */
psg_status psgi_dsch_matmul(psgi_dsch *d, const char **kind);    /* default_schedule_dense.c */
psg_status psgi_dsch_conv2d(psgi_dsch *d, const char **kind);    /* default_schedule_conv.c */
psg_status psgi_dsch_conv2d_transpose(psgi_dsch *d, const char **kind); /* default_schedule_conv_transpose.c */
/* A stage "<name>_rf" of the anchor's op: the lane-split sum (te_nn.c). */
bool psgi_dsch_has_lane_split(const psgi_dsch *d);                /* default_schedule_rfactor.c */
psg_status psgi_dsch_lane_split(psgi_dsch *d, const char **kind); /* default_schedule_rfactor.c */
psg_status psgi_dsch_reduce(psgi_dsch *d, const char **kind);    /* default_schedule_reduce.c */
psg_status psgi_dsch_pool(psgi_dsch *d, const char **kind);      /* default_schedule_reduce.c */
psg_status psgi_dsch_softmax(psgi_dsch *d, const char **kind);   /* default_schedule_softmax.c */
psg_status psgi_dsch_injective(psgi_dsch *d, const char **kind); /* default_schedule.c */

#endif
