/* Passage — TIR schedule primitives (issue 16 item 2): TIR-to-TIR rewrites of
 * the loop nests of one PrimFunc under TVM's tir.Schedule names (split,
 * reorder, fuse, vectorize, unroll, parallel, annotate, compute_inline,
 * reverse_compute_inline, compute_at, cache_write, decompose_reduction).
 *
 * Our TIR has no S-TIR blocks: a "block" is a *stage*, the statements that
 * store to one buffer, addressed by that buffer's name (TE names a stage
 * after its output tensor, so TVM's get_block("C") keeps its spelling). A
 * loop is addressed by its loop var (a Var node): it stays valid across
 * primitives for as long as a For over that var is in the function (split
 * and fuse replace the loops they take; the others keep them).
 *
 * A schedule holds the current PrimFunc. Each primitive builds a new
 * function (the IR is immutable) and, only when it succeeds, makes it the
 * current one: a primitive that fails (PSG_ERR_INVALID_ARGUMENT for an
 * illegal request, PSG_ERR_NOT_FOUND for an unknown stage or a loop no longer
 * in the function, with a diagnostic saying why) leaves the function as it
 * was. Ownership follows tir.h; block names returned are interned strings
 * valid while the context lives. docs/tir-schedule.md shows the use. */
#ifndef PASSAGE_TIR_SCHEDULE_H
#define PASSAGE_TIR_SCHEDULE_H

#include "passage/tir.h"

PSG_BEGIN_DECLS

typedef struct psg_tir_schedule psg_tir_schedule;

/* A schedule of `func` (retained). */
PSG_API psg_status psg_tir_schedule_create(const psg_tir_prim_func *func, psg_tir_schedule **out);
PSG_API void psg_tir_schedule_release(psg_tir_schedule *s); /* NULL-safe */
/* The current function (borrowed: valid until the next primitive succeeds
 * or the schedule is released; retain it to keep it). */
PSG_API psg_tir_prim_func *psg_tir_schedule_get_func(const psg_tir_schedule *s);

/* The stage `name`: PSG_OK if some statement stores to a buffer of that
 * name (PSG_ERR_NOT_FOUND otherwise, naming the stages there are). *out is
 * the interned name. */
PSG_API psg_status psg_tir_schedule_get_block(psg_tir_schedule *s, const char *name, const char **out);
/* The loops enclosing the stage's last store, outermost first: *loops is a
 * psg_free-able array of *n loop vars (new references). */
PSG_API psg_status psg_tir_schedule_get_loops(psg_tir_schedule *s, const char *block, psg_tir_expr ***loops,
                                              size_t *n);

/* split: the loop (min 0) becomes n nested loops of extents factors[0..n),
 * outermost first; one factor may be 0 (TVM's None), inferred as the
 * ceiling of extent / (product of the others). When the product may exceed
 * the extent, the body runs under `if T.likely(fused < extent)`. The new
 * loop vars ("<var>_0", "<var>_1", ...) go to out[0..n) (new references;
 * out may be NULL). */
PSG_API psg_status psg_tir_schedule_split(psg_tir_schedule *s, psg_tir_expr *loop, const int64_t *factors,
                                          size_t n, psg_tir_expr **out);
/* fuse: n >= 1 perfectly nested loops (each the whole body of the one
 * before, min 0) become one loop "<v0>_<v1>_..._fused" (*out, a new
 * reference; may be NULL). */
PSG_API psg_status psg_tir_schedule_fuse(psg_tir_schedule *s, psg_tir_expr *const *loops, size_t n,
                                         psg_tir_expr **out);
/* reorder: the given loops, which lie on one perfect nest (each loop between
 * the outermost and the innermost given loop is the whole body of its
 * parent), take the given order; the loops between them stay in place. */
PSG_API psg_status psg_tir_schedule_reorder(psg_tir_schedule *s, psg_tir_expr *const *loops, size_t n);
/* The loop's kind; vectorize and parallel refuse a loop some stage reduces
 * over (a store in its body whose indices do not use its var). */
PSG_API psg_status psg_tir_schedule_vectorize(psg_tir_schedule *s, psg_tir_expr *loop);
PSG_API psg_status psg_tir_schedule_parallel(psg_tir_schedule *s, psg_tir_expr *loop);
PSG_API psg_status psg_tir_schedule_unroll(psg_tir_schedule *s, psg_tir_expr *loop);
/* The loop's annotation `key` set to `value` (TVM's For annotations). */
PSG_API psg_status psg_tir_schedule_annotate(psg_tir_schedule *s, psg_tir_expr *loop, const char *key,
                                             psg_attr *value);

/* compute_inline: the stage `block`, an allocated buffer stored once as
 * B[v0, ..., vn] = e in a nest over exactly those loop vars, is substituted
 * into every load of B, and its nest and allocation are dropped. */
PSG_API psg_status psg_tir_schedule_compute_inline(psg_tir_schedule *s, const char *block);
/* reverse_compute_inline: the stage `block` (C[f(v)] = g(v, B[v0, ..., vn]),
 * its only store, whose loads of its producer B are at its loop vars) is
 * folded into B's single store, which then stores C; C's nest and B's
 * allocation are dropped. B must be allocated and read only by C. */
PSG_API psg_status psg_tir_schedule_reverse_compute_inline(psg_tir_schedule *s, const char *block);
/* compute_at: the nest of the stage `block` moves to the start of `loop`'s
 * body, computing only the region of the buffer that the statements under
 * `loop` read (bounds by interval arithmetic over the inner loops, simplified
 * by the arith analyzer). Every read of the buffer must be under `loop`.
 * Its loops keep their vars; one left with extent 1 goes unless
 * preserve_unit_loops (TVM's option, default false). */
PSG_API psg_status psg_tir_schedule_compute_at(psg_tir_schedule *s, const char *block, psg_tir_expr *loop,
                                               bool preserve_unit_loops);
/* cache_write: the stage `block` computes into a new buffer "<name>_<scope>"
 * allocated in `scope`, copied to the original buffer by a nest right after;
 * index (the stage's written buffer) must be 0. *out (may be NULL) is the
 * stage of the new buffer; the copy keeps the name `block`. */
PSG_API psg_status psg_tir_schedule_cache_write(psg_tir_schedule *s, const char *block, int index,
                                                const char *scope, const char **out);
/* cache_write_at: the register tile (TVM's cache_write, reverse_compute_at
 * of the copy under `loop` and CompactBufferAllocation, in one step). Every
 * store of stage `block` must lie under `loop`; under it the stage computes
 * into a new buffer "<name>_<scope>" allocated inside `loop` and shaped to
 * the region the stage writes in one iteration (constant extents; indices
 * made relative to the region's start), and a copy nest over the region's
 * dimensions wider than 1 (vars "ax<k>") ends the loop's body, writing the
 * region to the original buffer. Refused unless every read of the buffer
 * under `loop` is a read-modify-write of the element stored and the first
 * statement of the body that stores writes the whole region (as many
 * stores as elements, no condition) before anything reads it. *out (may be
 * NULL) is the new buffer's name. */
PSG_API psg_status psg_tir_schedule_cache_write_at(psg_tir_schedule *s, const char *block, psg_tir_expr *loop,
                                                   const char *scope, const char **out);
/* decompose_reduction: a reduction stage in the init-guarded form (`if k ==
 * 0: C[i] = init` before the update, under the reduction loops) gets its
 * init as a separate nest placed just before `loop`, over the loops from
 * `loop` inward that the init's indices use (new vars "<var>_init"); `loop`
 * must enclose every reduction loop. *out (may be NULL) is the stage name. */
PSG_API psg_status psg_tir_schedule_decompose_reduction(psg_tir_schedule *s, const char *block,
                                                        psg_tir_expr *loop, const char **out);

PSG_END_DECLS
#endif
