/* Function and prim-func passes on threads (issue 19 item 6, docs/pass-infra.md
 * "Threads"): the wall and process CPU time of tir.default_pipeline over a
 * lowered module, and of the whole sequential(O3,lower), serially and with
 * passage.num_threads=THREADS, RUNS times each; prints the medians and the
 * wall speedup. The serial runs are measured twice: first RUNS of them
 * while the process still has a single thread (the state of any serial
 * `passage opt`; the speedup is against these), then RUNS interleaved with
 * the threaded runs (atomic reference counts and locks from then on: what
 * threads cost the serial code). The module is MODEL.onnx (imported with the
 * given input shapes) or Relay text (the generated 256-function module of
 * tests/models/run_threads.py). CPU time counts every thread of the
 * process; wall time counts the shared machine's other load too.
 * Public API only.
 * Usage: bench_parallel_passes MODEL RUNS THREADS [NAME=D0,D1,...]... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "passage/onnx.h"
#include "passage/passage.h"

static double now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "bench_parallel_passes: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static psg_pass_context *context(psg_ctx *ctx, int threads) {
  psg_pass_context *pc = NULL;
  char assignment[64];
  snprintf(assignment, sizeof assignment, "passage.num_threads=%d", threads);
  if (psg_pass_context_create(ctx, &pc) || psg_pass_context_set_opt_level(pc, 3) ||
      psg_pass_context_set_config_text(pc, assignment))
    die(ctx, "the PassContext");
  return pc;
}

/* One run of `text` over `in` under `pc`: wall and CPU ms. */
static void run_once(psg_ctx *ctx, psg_pass_context *pc, const char *text, psg_module *in, double *wall,
                     double *cpu) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  if (psg_pass_context_enter(pc)) die(ctx, "the PassContext's enter");
  if (psg_pipeline_parse(ctx, text, &p)) die(ctx, text);
  double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
  if (psg_pass_run(p, in, pc, &out)) die(ctx, text);
  *wall = now_ms(CLOCK_MONOTONIC) - w0;
  *cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
  if (psg_pass_context_exit(pc)) die(ctx, "the PassContext's exit");
  psg_module_release(out);
  psg_pass_release(p);
}

/* One workload: its serial runs while the process has a single thread
 * (reference counts and the allocator use plain instructions then, glibc's
 * __libc_single_threaded, which never turns back once a thread was made),
 * then serial and threaded runs interleaved. */
typedef struct workload {
  const char *label, *text;
  psg_module *in;
  double *alone, *serial, *serial_cpu, *par, *par_cpu; /* runs each */
} workload;

static void serial_alone(psg_ctx *ctx, workload *w, int runs) {
  psg_pass_context *serial = context(ctx, 1);
  double wall, cpu;
  run_once(ctx, serial, w->text, w->in, &wall, &cpu); /* warm-up: the input gains its properties */
  for (int r = 0; r < runs; r++) run_once(ctx, serial, w->text, w->in, &w->alone[r], &cpu);
  psg_pass_context_release(serial);
}

static void interleaved(psg_ctx *ctx, workload *w, int runs, int threads) {
  psg_pass_context *serial = context(ctx, 1), *parallel = context(ctx, threads);
  for (int r = 0; r < runs; r++) {
    run_once(ctx, serial, w->text, w->in, &w->serial[r], &w->serial_cpu[r]);
    run_once(ctx, parallel, w->text, w->in, &w->par[r], &w->par_cpu[r]);
  }
  psg_pass_context_release(serial);
  psg_pass_context_release(parallel);
}

static void report(const workload *w, int runs, int threads) {
  double ma = median(w->alone, runs), msw = median(w->serial, runs), msc = median(w->serial_cpu, runs);
  double mpw = median(w->par, runs), mpc = median(w->par_cpu, runs);
  printf("%s: serial wall %.1f ms (%.1f ms once threads exist, cpu %.1f ms); %d threads wall %.1f ms cpu %.1f "
         "ms; wall speedup %.2fx (%.2fx against the serial run once threads exist), cpu %+.0f%%\n",
         w->label, ma, msw, msc, threads, mpw, mpc, ma / mpw, msw / mpw, (mpc / msc - 1) * 100);
  fflush(stdout);
}

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)len + 1);
  *n = fread(s, 1, (size_t)len, f);
  s[*n] = 0;
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 4 || atoi(argv[2]) < 1 || atoi(argv[3]) < 0) {
    fprintf(stderr, "usage: bench_parallel_passes MODEL RUNS THREADS [NAME=D0,D1,...]...\n");
    return 2;
  }
  int runs = atoi(argv[2]), threads = atoi(argv[3]);
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "psg_ctx_create");
  psg_module *m = NULL, *lowered = NULL;
  size_t len = strlen(argv[1]);
  if (len > 5 && !strcmp(argv[1] + len - 5, ".onnx")) {
    psg_onnx_import_opts opts = {(const char *const *)argv + 4, (size_t)(argc - 4), NULL};
    if (psg_onnx_import_file(ctx, argv[1], &opts, &m)) die(ctx, "the import");
  } else {
    size_t n = 0;
    char *text = read_file(argv[1], &n);
    if (!text || psg_module_parse(ctx, text, n, argv[1], &m)) die(ctx, "the parse");
    free(text);
  }
  /* The lowered module before the TIR pipeline. */
  psg_pass_context *pc = context(ctx, 1);
  psg_pass *p = NULL;
  if (psg_pass_context_enter(pc) || psg_pipeline_parse(ctx, "sequential(O3,LowerTE)", &p) ||
      psg_pass_run(p, m, pc, &lowered) || psg_pass_context_exit(pc))
    die(ctx, "O3 and LowerTE");
  psg_pass_release(p);
  psg_pass_context_release(pc);
  workload w[2] = {{"tir.default_pipeline", "tir.default_pipeline", lowered, 0, 0, 0, 0, 0},
                   {"sequential(O3,lower)", "sequential(O3,lower)", m, 0, 0, 0, 0, 0}};
  double *v = malloc(2 * 5 * (size_t)runs * sizeof *v);
  if (!v) die(ctx, "malloc");
  for (int k = 0; k < 2; k++) {
    double *b = v + (size_t)k * 5 * (size_t)runs;
    w[k].alone = b, w[k].serial = b + runs, w[k].serial_cpu = b + 2 * runs;
    w[k].par = b + 3 * runs, w[k].par_cpu = b + 4 * runs;
  }
  /* Every serial-alone run first: the process has one thread until the
   * first threaded run. */
  for (int k = 0; k < 2; k++) serial_alone(ctx, &w[k], runs);
  for (int k = 0; k < 2; k++) interleaved(ctx, &w[k], runs, threads);
  for (int k = 0; k < 2; k++) report(&w[k], runs, threads);
  free(v);
  psg_module_release(lowered);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return 0;
}
