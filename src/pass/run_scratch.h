/* Passage — scratch a PrimFunc pass keeps across the functions of one run
 * over a module (docs/design.md, departure "A PrimFunc pass's table across
 * the functions of a run"). The runner (prim_func_pass.c) opens a frame
 * around its loop over the module's PrimFuncs; a pass body asks for the
 * scratch of its kind, made on the first request of the run and destroyed
 * when the loop ends. Only for tables whose answers do not depend on which
 * function asked first: what a hit gives must be what a miss computes. */
#ifndef PSG_PASS_RUN_SCRATCH_H
#define PSG_PASS_RUN_SCRATCH_H

#include "support/support.h"

typedef struct psgi_run_scratch_kind {
  void *(*create)(psg_ctx *ctx); /* NULL on OOM */
  void (*destroy)(psg_ctx *ctx, void *scratch);
} psgi_run_scratch_kind;

/* One run's frame (the runner's, on its C stack). Frames nest, per thread:
 * a pass body that runs a pipeline of its own opens the inner frame. */
typedef struct psgi_run_scratch_frame {
  struct psgi_run_scratch_frame *prev;
  psg_ctx *ctx;
  const psgi_run_scratch_kind *kind; /* of `scratch`; NULL before the first request */
  void *scratch;
} psgi_run_scratch_frame;

void psgi_run_scratch_enter(psgi_run_scratch_frame *f, psg_ctx *ctx);
/* Destroys the frame's scratch; f must be the thread's innermost frame. */
void psgi_run_scratch_leave(psgi_run_scratch_frame *f);

/* The scratch of `kind` of the innermost run on this thread, made on the
 * first request. NULL when this thread runs no PrimFunc loop (the pass was
 * called directly, or on a worker thread of a parallel run), when the run's
 * scratch is another kind's, or on OOM: the caller then keeps its table for
 * the one function, as without a run. */
void *psgi_run_scratch(psg_ctx *ctx, const psgi_run_scratch_kind *kind);

#endif
