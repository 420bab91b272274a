/* Pass-manager overhead (issue 3): a Sequential of P no-op function passes
 * over a module of N small functions, without instruments and with the
 * timing instrument; prints ns per pass execution per function. Also writes
 * the same module as MLIR (func.func per function) for run_pass_overhead.sh
 * to time mlir-opt-19 on. Public API only.
 * Usage: bench_pass_overhead N P [OUT.mlir] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "passage/passage.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "bench_pass_overhead: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

/* The no-op: every function comes back as the very same node. */
static psg_status noop(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  psg_expr_retain(func);
  *out = func;
  return PSG_OK;
}

/* N functions `def @fK(%x: Tensor[(1), float32]) { add(%x, %x) }`, as Relay
 * text for us and as MLIR for mlir-opt. */
static char *module_text(size_t n, bool mlir) {
  size_t cap = n * 160 + 64, len = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  len += (size_t)snprintf(s + len, cap - len, mlir ? "module {\n" : "#[version = \"0.0.5\"]\n");
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(s + len, cap - len,
                            mlir ? "func.func @f%zu(%%x: tensor<1xf32>) -> tensor<1xf32> {\n"
                                   "  %%0 = arith.addf %%x, %%x : tensor<1xf32>\n  return %%0 : tensor<1xf32>\n}\n"
                                 : "def @f%zu(%%x: Tensor[(1), float32]) -> Tensor[(1), float32] {\n  add(%%x, %%x)\n}\n",
                            i);
  if (mlir) snprintf(s + len, cap - len, "}\n");
  return s;
}

/* Seconds for one run of `p` on `m` under `pc` (best of `reps`). */
static double time_run(psg_ctx *ctx, psg_pass *p, psg_module *m, psg_pass_context *pc, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    psg_module *out = NULL;
    double t0 = now_s();
    if (psg_pass_run(p, m, pc, &out)) die(ctx, "the pipeline");
    double t = now_s() - t0;
    psg_module_release(out);
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_pass_overhead N P [OUT.mlir]\n");
    return 2;
  }
  size_t n = strtoul(argv[1], NULL, 10), np = strtoul(argv[2], NULL, 10);
  if (!n || !np) return 2;
  if (argc > 3) {
    char *t = module_text(n, true);
    FILE *f = fopen(argv[3], "w");
    if (!t || !f || fputs(t, f) < 0 || fclose(f)) die(NULL, "writing the MLIR module");
    free(t);
  }
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return 1;
  char *text = module_text(n, false);
  psg_module *m = NULL;
  if (!text || psg_module_parse(ctx, text, strlen(text), "<bench>", &m)) die(ctx, "parsing");
  free(text);

  psg_pass_info *info;
  psg_pass **passes = calloc(np, sizeof *passes), *seq = NULL, *infer = NULL;
  if (!passes || psg_pass_info_create(ctx, "NoOp", 0, NULL, 0, &info)) die(ctx, "making passes");
  for (size_t i = 0; i < np; i++)
    if (psg_create_function_pass(ctx, info, noop, NULL, NULL, &passes[i])) die(ctx, "making passes");
  if (psg_sequential(ctx, passes, np, NULL, &seq) || psg_pass_get(ctx, "InferType", NULL, &infer))
    die(ctx, "making the pipeline");

  psg_pass_context *plain, *timed;
  psg_instrument *timing;
  if (psg_pass_context_create(ctx, &plain) || psg_pass_context_create(ctx, &timed) ||
      psg_timing_instrument_create(ctx, &timing) || psg_pass_context_add_instrument(timed, timing))
    die(ctx, "making contexts");

  /* The first function pass ends with one InferType over the module (after
   * it, the module is satisfied and the other passes' InferTypes are
   * skipped); its cost is measured alone and taken out. */
  int reps = n >= 10000 ? 3 : 5;
  double t_infer = time_run(ctx, infer, m, plain, reps);
  double t_plain = time_run(ctx, seq, m, plain, reps);
  double t_timed = time_run(ctx, seq, m, timed, reps);
  psg_timing_reset(timing);
  double execs = (double)n * (double)np;
  printf("functions %zu passes %zu\n", n, np);
  printf("infer_type_once_ms %.3f\n", t_infer * 1e3);
  printf("plain_total_ms %.3f plain_ns_per_exec %.2f\n", t_plain * 1e3, (t_plain - t_infer) / execs * 1e9);
  printf("timed_total_ms %.3f timed_ns_per_exec %.2f\n", t_timed * 1e3, (t_timed - t_infer) / execs * 1e9);

  for (size_t i = 0; i < np; i++) psg_pass_release(passes[i]);
  free(passes);
  psg_pass_release(seq);
  psg_pass_release(infer);
  psg_pass_info_release(info);
  psg_instrument_release(timing);
  psg_pass_context_release(plain);
  psg_pass_context_release(timed);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return 0;
}
