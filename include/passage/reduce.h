/* Passage — automatic test-case reduction (issue 20 item 3; docs/pass-infra.md
 * "Reducing a failing case"): shrink a module and the pipeline run over it
 * while a caller's predicate still calls the pair interesting (C-Reduce's
 * idea, over typed Relay). */
#ifndef PASSAGE_REDUCE_H
#define PASSAGE_REDUCE_H

#include "passage/pass.h"

PSG_BEGIN_DECLS

/* Judges one candidate: the module (typed; borrowed for the call), its Relay
 * text (`text`, `len` bytes, what psg_module_print writes with flags 0) and
 * the pipeline text. Returns 1 when the candidate is still interesting, 0
 * when not, or a negative psg_status to stop the reduction with that error
 * (recorded on the context by the callback). */
typedef int (*psg_reduce_predicate)(void *user, const psg_module *mod, const char *text, size_t len,
                                    const char *pipeline);

/* Flags of psg_reduce. */
enum {
  PSG_REDUCE_KEEP_PIPELINE = 1, /* do not shrink the pipeline */
  PSG_REDUCE_KEEP_MODULE = 2    /* do not shrink the module */
};

/* Reduces (mod, pipeline) while `pred` holds. The input must be interesting
 * (else PSG_ERR_INVALID_ARGUMENT, "the input is not interesting") and must
 * type-check (PSG_ERR_TYPE). First the pipeline: passes and whole groups
 * (Sequentials, FixedPoints) are dropped by delta debugging, level by level.
 * Then the module, to a fixed point: unused functions dropped; a function's
 * result re-rooted at the earliest call that keeps the predicate; calls
 * replaced by a zero of their type, then by one of their inputs (a Let by
 * its body, an If by a branch); constants shrunk to a zero scalar. Each step
 * tries items in batches (halving on failure, ddmin-style), keeps only
 * candidates that type-check and are smaller by (calls, functions, bytes),
 * and is deterministic. Progress and the final sizes are notes on the
 * context from pass "Reduce". *out_mod (the reduced module, typed) and
 * *out_pipeline (its pipeline text; free with psg_free) are set on success,
 * NULL otherwise. `pipeline` may be "" (no passes). Errors: those of parsing
 * the pipeline, of `pred`, PSG_ERR_NOMEM. */
PSG_API psg_status psg_reduce(psg_ctx *ctx, const psg_module *mod, const char *pipeline, psg_reduce_predicate pred,
                              void *user, int flags, psg_module **out_mod, char **out_pipeline);

/* The sizes psg_reduce reports: calls (Call nodes reachable from the module's
 * functions), functions, and bytes of Relay text (0 if printing fails). */
PSG_API void psg_reduce_sizes(const psg_module *mod, size_t *calls, size_t *functions, size_t *bytes);

PSG_END_DECLS
#endif
