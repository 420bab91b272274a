/* Passage — the frames of PrimFunc runs and their scratch (run_scratch.h).
 * Thread-local: the scratch is only ever touched by the thread that runs
 * the loop, so a parallel run's workers (which see no frame) never share
 * it, and it needs no lock. */
#include "pass/run_scratch.h"

static _Thread_local psgi_run_scratch_frame *innermost;

void psgi_run_scratch_enter(psgi_run_scratch_frame *f, psg_ctx *ctx) {
  f->prev = innermost;
  f->ctx = ctx;
  f->kind = NULL;
  f->scratch = NULL;
  innermost = f;
}

void psgi_run_scratch_leave(psgi_run_scratch_frame *f) {
  if (f->kind && f->scratch) f->kind->destroy(f->ctx, f->scratch);
  f->kind = NULL;
  f->scratch = NULL;
  innermost = f->prev;
}

void *psgi_run_scratch(psg_ctx *ctx, const psgi_run_scratch_kind *kind) {
  psgi_run_scratch_frame *f = innermost;
  if (!f || f->ctx != ctx) return NULL;
  if (f->kind) return f->kind == kind ? f->scratch : NULL;
  void *s = kind->create(ctx);
  if (s) {
    f->kind = kind;
    f->scratch = s;
  }
  return s;
}
