/* The -O pipeline on an imported ONNX model, run repeatedly in one process
 * (issue 6/7): the first run is what `passage opt` pays in a fresh process
 * (cold code, caches and pool memory); the later runs are the steady state,
 * comparable with ONNX Runtime's optimization time, which bench/onnx_bench.py
 * takes as a median over sessions created one after another in one process.
 * Every run starts from the same imported module and its result is released.
 * Prints JSON: {"first_us", "median_us", "min_us", "runs"}. Public API only.
 * Usage: bench_onnx_pipeline MODEL.onnx LEVEL RUNS [NAME=D0,D1,...]...
 * (BENCH_VERBOSE=1 also prints every run's microseconds on stderr.) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "passage/onnx.h"
#include "passage/passage.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "bench_onnx_pipeline: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: bench_onnx_pipeline MODEL.onnx LEVEL RUNS [NAME=D0,D1,...]...\n");
    return 2;
  }
  int level = atoi(argv[2]), runs = atoi(argv[3]);
  if (level < 0 || level > 3 || runs < 2) {
    fprintf(stderr, "bench_onnx_pipeline: LEVEL is 0..3 and RUNS at least 2\n");
    return 2;
  }
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "psg_ctx_create");
  psg_onnx_import_opts opts = {(const char *const *)argv + 4, (size_t)(argc - 4), NULL};
  psg_module *m = NULL;
  if (psg_onnx_import_file(ctx, argv[1], &opts, &m)) die(ctx, "the import");
  char name[] = "O0";
  name[1] = (char)('0' + level);
  psg_pass *pipeline = NULL;
  psg_pass_context *pc = NULL;
  if (psg_pipeline_parse(ctx, name, &pipeline)) die(ctx, "the pipeline's parse");
  if (psg_pass_context_create(ctx, &pc) || psg_pass_context_set_opt_level(pc, level)) die(ctx, "the PassContext");
  double *t = malloc((size_t)runs * sizeof *t);
  if (!t) die(ctx, "malloc");
  for (int i = 0; i < runs; i++) {
    psg_module *out = NULL;
    double t0 = now_us();
    if (psg_pass_run(pipeline, m, pc, &out)) die(ctx, "the pipeline");
    t[i] = now_us() - t0;
    if (getenv("BENCH_VERBOSE")) fprintf(stderr, "%.0f ", t[i]);
    psg_module_release(out);
  }
  double first = t[0];
  qsort(t + 1, (size_t)runs - 1, sizeof *t, by_value);
  printf("{\"first_us\": %.1f, \"median_us\": %.1f, \"min_us\": %.1f, \"runs\": %d}\n", first, t[1 + (runs - 1) / 2],
         t[1], runs - 1);
  free(t);
  psg_pass_context_release(pc);
  psg_pass_release(pipeline);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return 0;
}
