/* TIR pass throughput (issue 16): tir.default_pipeline (TVM's
 * CreatePassList order) on a generated PrimFunc of N statements, every pass
 * timed by the pass timing instrument in the same run.
 *
 *   bench_tir_pipeline N     prints "PASS total_us runs" per pass, then
 *                            "pipeline total_us 1", "pipeline_cpu cpu_us 1"
 *                            (process CPU time) and "statements N"
 *
 * The body is a SeqStmt cycling through three loop nests over two
 * float32[64, 64] buffers (j and k vary with the position), so the
 * flattening, simplification, loop partitioning, hoisting and CSE passes all
 * have work in every statement:
 *   for i in range(4): A[j, i] = B[k, i] * 2 + 0              (2 statements)
 *   B[j, k] = A[k, j] + A[k, j]                               (1)
 *   for i in range(8): if i < 4: A[j, i] = A[j, i] + 1        (3)
 * Statements are counted as TVM's Stmt nodes (For, IfThenElse, BufferStore).
 * Parsing is outside the clock. The best of several runs is printed (the
 * machine is shared: noise only adds time). */
#include "bench_text.h"
#include "passage/tvmscript.h"

static void die(psg_ctx *ctx, const char *what) { bench_die("bench_tir_pipeline", ctx, what); }

static long generate(long n, bench_text *t) {
  bench_putf(t, "# from tvm.script import tir as T\n\n@T.prim_func\n"
                "def main(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\")):\n");
  long stmts = 0;
  for (long u = 0; stmts < n; u++) {
    long j = u % 64, k = (u * 7 + 3) % 64;
    switch (n - stmts < 3 ? 1 : u % 3) { /* the last few: single statements, to end at n */
      case 0:
        bench_putf(t, "    for i in range(4):\n        A[%ld, i] = B[%ld, i] * T.float32(2.0) + T.float32(0.0)\n", j, k);
        stmts += 2;
        break;
      case 1:
        bench_putf(t, "    B[%ld, %ld] = A[%ld, %ld] + A[%ld, %ld]\n", j, k, k, j, k, j);
        stmts += 1;
        break;
      default:
        bench_putf(t, "    for i in range(8):\n        if i < 4:\n            A[%ld, i] = A[%ld, i] + T.float32(1.0)\n", j, j);
        stmts += 3;
        break;
    }
  }
  return stmts;
}

/* Process CPU seconds: the shared machine's other load does not count. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct row {
  char name[64];
  double us;
  long count;
} row;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000;
  bench_text text = {0};
  long stmts = generate(n, &text);
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "context");
  psg_tir_script *s = NULL;
  psg_module *m = NULL;
  if (psg_tir_script_parse(ctx, text.s, text.len, "bench.py", &s) || psg_tir_script_to_module(s, &m)) die(ctx, "parse");
  psg_pass_context *pc = NULL;
  psg_instrument *timing = NULL;
  psg_pass *pipeline = NULL;
  if (psg_pass_context_create(ctx, &pc) || psg_timing_instrument_create(ctx, &timing) ||
      psg_pass_context_add_instrument(pc, timing) || psg_pass_context_enter(pc))
    die(ctx, "the PassContext");
  if (psg_pipeline_parse(ctx, "tir.default_pipeline", &pipeline)) die(ctx, "tir.default_pipeline");
  row best[64];
  size_t nbest = 0;
  double best_total = 1e30, best_cpu = 0, spent = 0;
  for (int run = 0; run < 10 && (run < 2 || spent < 2.0) && (run < 1 || n < 1000000); run++) {
    psg_module *out = NULL;
    psg_timing_reset(timing);
    double t0 = bench_now(), c0 = cpu_now();
    if (psg_pass_run(pipeline, m, pc, &out)) die(ctx, "tir.default_pipeline");
    double t1 = bench_now(), c1 = cpu_now();
    psg_module_release(out);
    spent += t1 - t0;
    if (t1 - t0 >= best_total) continue;
    best_total = t1 - t0;
    best_cpu = c1 - c0;
    /* "  total_us  self_us  count  name", aggregated by pass name */
    char *flat = psg_timing_render_flat(timing, 0);
    if (!flat) die(ctx, "the timing's rendering");
    nbest = 0;
    for (char *line = strtok(flat, "\n"); line && nbest < 64; line = strtok(NULL, "\n")) {
      row r;
      double self;
      if (sscanf(line, " %lf %lf %ld %63s", &r.us, &self, &r.count, r.name) == 4 && !strncmp(r.name, "tir.", 4) &&
          strcmp(r.name, "tir.default_pipeline"))
        best[nbest++] = r;
    }
    psg_free(flat);
  }
  for (size_t i = 0; i < nbest; i++) printf("%s %.1f %ld\n", best[i].name, best[i].us, best[i].count);
  printf("pipeline %.1f 1\npipeline_cpu %.1f 1\nstatements %ld\n", best_total * 1e6, best_cpu * 1e6, stmts);
  if (psg_pass_context_exit(pc)) die(ctx, "the PassContext's exit");
  psg_pass_release(pipeline);
  psg_instrument_release(timing);
  psg_pass_context_release(pc);
  psg_module_release(m);
  psg_tir_script_release(s);
  psg_ctx_release(ctx);
  free(text.s);
  return 0;
}
