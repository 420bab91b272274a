/* Passage — FixedPoint (XLA's HloPassFix; pipeline text
 * "fixed_point(P1,P2){max_iterations=N}", docs/pipeline.md): a module pass
 * that runs its inner Sequential again and again until the module stops
 * changing (the same object, or an equal structural hash confirmed by
 * structural equality). Reaching max_iterations is a warning and the last
 * module is the result; a module whose hash was seen before, not just one
 * iteration ago, is a cycle that would never converge: an error. The
 * iteration count is appended to the pass's node in the timing tree. */
#include <stdio.h>
#include "pass/pass_internal.h"

typedef struct fixed_point {
  psg_ctx *ctx;
  psg_pass *inner; /* borrowed: the pass's one child holds it */
  int max_iterations;
} fixed_point;

static psg_status fixed_point_body(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out);

bool psgi_pass_is_fixed_point(const psg_pass *p) {
  return p->kind == PSG_PASS_MODULE && p->fn.module == fixed_point_body;
}

int psg_fixed_point_max_iterations(const psg_pass *p) {
  return p && psgi_pass_is_fixed_point(p) ? ((const fixed_point *)p->user)->max_iterations : 0;
}

static void free_fixed_point(void *user) {
  fixed_point *f = user;
  psgi_free(f->ctx, f);
}

/* Index of `h` among the hashes of earlier modules, or -1. */
static int seen_at(const uint64_t *hashes, int n, uint64_t h) {
  for (int i = 0; i < n; i++)
    if (hashes[i] == h) return i;
  return -1;
}

static psg_status fixed_point_body(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  fixed_point *f = user;
  psg_ctx *ctx = f->ctx;
  *out = NULL;
  /* hashes[i]: the module after iteration i (0: the input). */
  uint64_t *hashes = psgi_alloc(ctx, ((size_t)f->max_iterations + 1) * sizeof *hashes);
  if (!hashes) return psgi_nomem(ctx);
  hashes[0] = psg_module_structural_hash(mod);
  psg_module *cur = mod;
  psg_module_retain(cur);
  psg_status st = PSG_OK;
  int it = 0;
  bool converged = false;
  while (!converged && it < f->max_iterations) {
    psg_module *next = NULL;
    if ((st = psgi_pass_call(f->inner, cur, pc, &next)) != PSG_OK) break;
    it++;
    if (next == cur) {
      converged = true;
      psg_module_release(next);
      break;
    }
    uint64_t h = psg_module_structural_hash(next);
    if (h == hashes[it - 1] && psg_module_structural_equal(cur, next, NULL)) {
      converged = true;
    } else {
      int earlier = seen_at(hashes, it - 1, h);
      if (earlier >= 0) {
        psg_module_release(next);
        char what[48] = "its input";
        if (earlier) snprintf(what, sizeof what, "iteration %d", earlier);
        st = psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED,
                          "fixed_point: the module after iteration %d is the one of %s again (same structural "
                          "hash): a cycle of %d iterations that never converges (its passes undo each other)",
                          it, what, it - earlier);
        break;
      }
    }
    hashes[it] = h;
    psg_module_release(cur);
    cur = next;
  }
  psgi_free(ctx, hashes);
  if (st) {
    psg_module_release(cur);
    return st;
  }
  if (!converged)
    psgi_diag_add(ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, "FixedPoint",
                  "fixed_point: the module still changed after max_iterations=%d; the result is the module of "
                  "the last iteration",
                  f->max_iterations);
  char note[64];
  snprintf(note, sizeof note, "%d iteration%s%s", it, it == 1 ? "" : "s", converged ? "" : ", not converged");
  psgi_timing_annotate_open(pc, note);
  *out = cur;
  return PSG_OK;
}

psg_status psg_fixed_point(psg_ctx *ctx, psg_pass *const *passes, size_t n, int max_iterations, psg_pass **out) {
  *out = NULL;
  if (max_iterations < 1)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "fixed_point: max_iterations must be at least 1, not %d",
                        max_iterations);
  psg_pass *inner = NULL;
  psg_status st = psg_sequential(ctx, passes, n, NULL, &inner);
  if (st) return st;
  st = psgi_fixed_point_make(ctx, inner, max_iterations, out);
  psg_pass_release(inner);
  return st;
}

psg_status psgi_fixed_point_make(psg_ctx *ctx, psg_pass *inner, int max_iterations, psg_pass **out) {
  *out = NULL;
  if (max_iterations < 1)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "fixed_point: max_iterations must be at least 1, not %d",
                        max_iterations);
  fixed_point *f = psgi_calloc(ctx, sizeof *f);
  psg_pass **kids = psgi_alloc(ctx, sizeof *kids);
  psg_pass_info *info = NULL;
  psg_status st = f && kids ? psg_pass_info_create(ctx, "FixedPoint", 0, NULL, 0, &info) : psgi_nomem(ctx);
  if (!st) {
    f->ctx = ctx;
    f->inner = inner;
    f->max_iterations = max_iterations;
    st = psg_create_module_pass(ctx, info, fixed_point_body, f, free_fixed_point, out);
  }
  psg_pass_info_release(info);
  if (st) {
    psgi_free(ctx, f);
    psgi_free(ctx, kids);
    return st;
  }
  /* The inner Sequential is the pass's one child: listings, --dump-pipeline
   * and release see it as they see a Sequential's children. */
  kids[0] = inner;
  psg_pass_retain(inner);
  (*out)->children = kids;
  (*out)->num_children = 1;
  return PSG_OK;
}
