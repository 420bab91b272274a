/* Benchmark (issue 7): every standard pass and every -O level on a generated
 * model of N op calls, time and call count before/after; and the same number
 * of ops in MLIR's arith dialect written out for `mlir-opt-19 --canonicalize
 * --cse --symbol-dce` (the anchor, timed by bench/run_passes.sh).
 *
 *   bench_passes N OUT.mlir   prints one line per pass: "name seconds calls_before calls_after"
 *   bench_passes N - PASS     only PASS (a pass or O0..O3; "-": no MLIR file), e.g. under
 *                             `valgrind --tool=callgrind --toggle-collect=psg_pass_run` to
 *                             count one pass's instructions (bench/profile_passes.sh)
 *   bench_passes N - PASS take  the same through psg_pass_run_take, as `passage opt` runs:
 *                             the typed input is freed once no pass needs it (its peak
 *                             RSS is what a user of `passage opt` sees)
 *
 * The model is a chain of residual blocks on a (1, 2, 2, 4) tensor, each
 * giving the passes something to do: conv2d -> batch_norm (SimplifyInference,
 * FoldScaleAxis) -> relu, identity arithmetic and a reshape pair (SimplifyExpr),
 * a duplicated relu (EliminateCommonSubexpr), a constant product (FoldConstant),
 * a residual add, and everything fusable (FuseOps). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "passage/passage.h"
#include "residual_model.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "bench_passes: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx) && i < 5; i++)
    fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

static psg_status count_calls_post(psg_visitor *v, const psg_expr *e) {
  if (psg_expr_kind(e) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP) (*(long *)v->user)++;
  return PSG_OK;
}

static long count_calls(psg_ctx *ctx, const psg_module *m) {
  long n = 0;
  psg_visitor v = {NULL, count_calls_post, &n};
  for (size_t i = 0; i < psg_module_num_functions(m); i++) psg_visit(ctx, &v, psg_module_get_function(m, i));
  return n;
}

/* The anchor: N arith ops with constants to fold and duplicates to merge. */
static void write_mlir(const char *path, long n) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "func.func @main(%%x: f32) -> f32 {\n  %%c1 = arith.constant 1.0 : f32\n  %%c2 = arith.constant 2.0 : f32\n");
  fprintf(f, "  %%v0 = arith.addf %%x, %%c1 : f32\n");
  for (long i = 1; i < n; i++) {
    if (i % 3 == 0)
      fprintf(f, "  %%v%ld = arith.mulf %%c2, %%c1 : f32\n", i); /* folds */
    else if (i % 3 == 1)
      fprintf(f, "  %%v%ld = arith.addf %%v%ld, %%c1 : f32\n", i, i - 1);
    else
      fprintf(f, "  %%v%ld = arith.mulf %%v%ld, %%v%ld : f32\n", i, i - 1, i - 2 - (i % 3 == 2 ? 0 : 1));
  }
  fprintf(f, "  return %%v%ld : f32\n}\n", n - 1);
  fclose(f);
}

static const char *only; /* argv[3]: run just this pass */
static bool take;        /* argv[4] "take": give it the input (psg_pass_run_take) */
static bool taken;       /* ... and it was given */

static void run_one(psg_ctx *ctx, psg_module *typed, const char *name, int opt_level) {
  if (only && strcmp(only, name)) return;
  psg_pass *p = NULL;
  psg_pass_context *pc = NULL;
  psg_module *out = NULL;
  if (psg_pass_get(ctx, name, NULL, &p) || psg_pass_context_create(ctx, &pc) ||
      psg_pass_context_set_opt_level(pc, opt_level))
    die(ctx, name);
  long before = count_calls(ctx, typed);
  double t0 = now();
  taken = take;
  if ((take ? psg_pass_run_take : psg_pass_run)(p, typed, pc, &out)) die(ctx, name);
  double t1 = now();
  printf("%s %.6f %ld %ld\n", name, t1 - t0, before, count_calls(ctx, out));
  fflush(stdout);
  psg_module_release(out);
  psg_pass_release(p);
  psg_pass_context_release(pc);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  if (argc > 2 && strcmp(argv[2], "-")) write_mlir(argv[2], n);
  if (argc > 3) only = argv[3];
  take = only && argc > 4 && !strcmp(argv[4], "take");
  long blocks = n / CALLS_PER_BLOCK > 0 ? n / CALLS_PER_BLOCK : 1;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "context");
  char *text = model_text(blocks);
  psg_module *m = NULL, *typed = NULL;
  psg_pass *infer = NULL;
  if (psg_module_parse(ctx, text, strlen(text), "bench.relay", &m)) die(ctx, "parse");
  free(text);
  if (psg_pass_get(ctx, "InferType", NULL, &infer) || psg_pass_run(infer, m, NULL, &typed)) die(ctx, "InferType");
  psg_module_release(m); /* typed holds what it needs (typed in place: the same module) */
  /* Each pass alone on the typed model (called directly, as TVM's tests do:
   * the level does not gate it; `required` passes are not run), then the
   * -O pipelines, which include everything they need. */
  for (size_t i = 0; i < psg_pass_registry_count(ctx); i++) {
    const char *name = psg_pass_registry_name(ctx, i);
    if (name[0] == 'O' && name[1] >= '0' && name[1] <= '9') continue;
    if (!strcmp(name, "ConvertLayout") || !strcmp(name, "EtaExpand") || !strcmp(name, "PrintIR")) continue; /* need options / print */
    if (strchr(name, '.')) continue; /* TVM's aliases */
    /* Relay to TIR, not Relay to Relay; they need an inference graph (this
     * one has batch_norm, which SimplifyInference removes first). */
    if (!strcmp(name, "LowerTE") || !strcmp(name, "lower")) continue;
    run_one(ctx, typed, name, 4);
  }
  for (int level = 0; level <= 3; level++) {
    char name[4] = {'O', (char)('0' + level), 0, 0};
    run_one(ctx, typed, name, level);
  }
  psg_pass_release(infer);
  if (!taken) psg_module_release(typed); /* else the run took it */
  psg_ctx_release(ctx);
  return 0;
}
