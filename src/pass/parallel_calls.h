/* Passage — independent calls of a module pass on the run's threads
 * (parallel.c): the per-function part of a pass that is a module pass for
 * the rest (LowerTE's lowering of each Primitive function). The calls run
 * ahead on passage.num_threads threads, each with its diagnostics captured;
 * the pass then takes the results in its own order, as its serial code
 * would have made them, so output and diagnostics are the serial run's. */
#ifndef PSG_PARALLEL_CALLS_H
#define PSG_PARALLEL_CALLS_H

#include "pass/pass_internal.h"

/* Call i of n: its status; what it makes is the caller's (in `user`). */
typedef psg_status (*psgi_index_call_fn)(void *user, size_t i);

typedef struct psgi_parallel_calls psgi_parallel_calls;

/* Runs call(user, i) for every i < n on the threads of PassContext pc (the
 * run's: a worker makes it current), with its diagnostics captured, and sets *out; *out
 * stays NULL when they should run serially instead (fewer than two calls or
 * threads, on a worker, with an opt-bisect limit set). Once call k failed,
 * calls after k may not run (their results are never taken). */
psg_status psgi_parallel_calls_run(psg_ctx *ctx, psg_pass_context *pc, size_t n, psgi_index_call_fn call, void *user,
                                   psgi_parallel_calls **out);

/* Call i's status, after replaying its diagnostics as if recorded now.
 * Take them in order, stopping at the first failure. */
psg_status psgi_parallel_calls_take(psgi_parallel_calls *c, size_t i);

void psgi_parallel_calls_free(psgi_parallel_calls *c);

#endif
