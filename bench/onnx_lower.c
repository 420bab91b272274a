/* ONNX -> lowered TIR in one process (issue 16), for bench/onnx_lower_bench.py:
 * per run, the ONNX import of MODEL, then `sequential(O3,lower)` at opt
 * level 3 (what `passage opt MODEL -O3 --lower` runs) under a PassContext
 * with the pass timing instrument, so the same run gives the -O3 time,
 * LowerTE's and tir.default_pipeline's with each tir.* pass. Every run
 * starts from the file (nothing is reused between runs). Prints one JSON
 * object per run on its own line:
 *   {"import_us": .., "pipeline_us": .., "cpu_us": .., "timing": <psg_timing_render_json>}
 * (cpu_us: the process CPU time of import + pipeline; the rest is wall time).
 * Public API only.
 * Usage: bench_onnx_lower MODEL.onnx RUNS [NAME=D0,D1,...]... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "passage/onnx.h"
#include "passage/passage.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double cpu_us(void) { /* process CPU time: the shared machine's other load does not count */
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "bench_onnx_lower: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc < 3 || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: bench_onnx_lower MODEL.onnx RUNS [NAME=D0,D1,...]...\n");
    return 2;
  }
  int runs = atoi(argv[2]);
  for (int r = 0; r < runs; r++) {
    psg_ctx *ctx = NULL;
    if (psg_ctx_create(NULL, &ctx)) die(NULL, "psg_ctx_create");
    psg_pass_context *pc = NULL;
    psg_pass *pipeline = NULL;
    psg_instrument *timing = NULL;
    if (psg_pass_context_create(ctx, &pc) || psg_pass_context_set_opt_level(pc, 3) ||
        psg_timing_instrument_create(ctx, &timing) || psg_pass_context_add_instrument(pc, timing) ||
        psg_pass_context_enter(pc))
      die(ctx, "the PassContext");
    if (psg_pipeline_parse(ctx, "sequential(O3,lower)", &pipeline)) die(ctx, "the pipeline's parse");
    psg_onnx_import_opts opts = {(const char *const *)argv + 3, (size_t)(argc - 3), NULL};
    psg_module *m = NULL, *out = NULL;
    double t0 = now_us(), c0 = cpu_us();
    if (psg_onnx_import_file(ctx, argv[1], &opts, &m)) die(ctx, "the import");
    double t1 = now_us();
    if (psg_pass_run(pipeline, m, pc, &out)) die(ctx, "the pipeline");
    double t2 = now_us(), c2 = cpu_us();
    char *json = psg_timing_render_json(timing);
    if (!json) die(ctx, "the timing's rendering");
    for (size_t len = strlen(json); len && (json[len - 1] == '\n' || json[len - 1] == ' ');) json[--len] = 0;
    printf("{\"import_us\": %.1f, \"pipeline_us\": %.1f, \"cpu_us\": %.1f, \"timing\": %s}\n", t1 - t0, t2 - t1,
           c2 - c0, json);
    fflush(stdout);
    psg_free(json);
    psg_module_release(out);
    psg_module_release(m);
    if (psg_pass_context_exit(pc)) die(ctx, "the PassContext's exit");
    psg_pass_release(pipeline);
    psg_instrument_release(timing);
    psg_pass_context_release(pc);
    psg_ctx_release(ctx);
  }
  return 0;
}
