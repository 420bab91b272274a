/* Passage — what the reducer's files share (include/passage/reduce.h): the
 * session holding the current smallest interesting (module, pipeline) and
 * the one gate every candidate goes through. */
#ifndef PSG_REDUCE_INTERNAL_H
#define PSG_REDUCE_INTERNAL_H

#include "ir/ir_internal.h"
#include "passage/reduce.h"

typedef struct psgi_reducer {
  psg_ctx *ctx;
  psg_reduce_predicate pred;
  void *user;
  psg_module *mod; /* current: interesting and typed (owned) */
  char *pipeline;  /* current pipeline text (malloc'd) */
  char *text;      /* mod printed (psg_module_print) */
  size_t calls, functions, bytes; /* sizes of mod */
  size_t runs, hits, steps;       /* predicate runs, interesting ones, accepted candidates */
  double start;                   /* seconds, monotonic */
} psgi_reducer;

/* A candidate module (taken: released whatever happens) with the current
 * pipeline. It is typed here (ill-typed: rejected without a predicate run,
 * its type errors dropped), must be smaller by (calls, functions, bytes) and
 * interesting; then it becomes current and a note says `what` and the new
 * sizes. Returns 1 accepted, 0 rejected, or a negative status (the
 * predicate's, NOMEM). */
int psgi_reduce_try_module(psgi_reducer *r, psg_module *cand, const char *what);
/* A candidate pipeline (text, copied) with the current module: accepted when
 * interesting (the caller only offers fewer passes). Same returns. */
int psgi_reduce_try_pipeline(psgi_reducer *r, const char *pipeline, size_t passes, const char *what);

/* The two stages (reduce_pipeline.c, reduce_module.c). */
psg_status psgi_reduce_pipeline(psgi_reducer *r);
psg_status psgi_reduce_module(psgi_reducer *r);

/* Delta debugging over a list of n items that the caller re-derives after
 * every accepted candidate (reduce_ddmin.c): `attempt(user, from, count)`
 * offers the candidate without items [from, from + count) of the current
 * list (1 accepted, 0 rejected, < 0 error), `length(user)` is the current
 * list's length. Chunks start at half the list and halve after a sweep
 * with no success, down to single items, and sweeps repeat until single
 * items all fail. Returns how many candidates were accepted, or a negative
 * status. */
typedef int (*psgi_ddmin_attempt)(void *user, size_t from, size_t count);
typedef size_t (*psgi_ddmin_length)(void *user);
int psgi_reduce_ddmin(void *user, psgi_ddmin_attempt attempt, psgi_ddmin_length length);

#endif
