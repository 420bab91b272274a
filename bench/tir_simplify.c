/* Benchmark (issue 15): `tir.Simplify` on a generated PrimFunc of N
 * statements, and the same loop-free body in MLIR's textual form
 * (func/memref/arith) for `mlir-opt-19 --canonicalize`, the anchor timed by
 * bench/run_tir_simplify.sh.
 *
 *   bench_tir_simplify N OUT.mlir   prints "N simplify_s"
 *
 * Two int32[1024] buffers and a cycle of four statement shapes, each of
 * which both simplifiers reduce (j and k constant indices):
 *   A[j] = (A[k] + 0) * 1        ->  A[j] = A[k]
 *   B[j] = T.min(A[k], A[k])     ->  B[j] = A[k]
 *   A[j] = A[k] - A[k] + B[k]    ->  A[j] = B[k]
 *   B[j] = A[k] * 2 + A[k] * 3   ->  B[j] = A[k] * 5   (MLIR keeps two muls)
 * The MLIR function mirrors it load for load and op for op, with the
 * constants defined once at the top. The simplified PrimFunc is printed
 * and compared with the expected text, so the time is that of the work
 * described here and not of a pass that stopped early. Times are the best
 * of several runs, pass only (parsing is outside the clock, as the run
 * script takes MLIR's Canonicalizer time from --mlir-timing). */
#include "bench_text.h"
#include "passage/tvmscript.h"

static void die(psg_ctx *ctx, const char *what) { bench_die("bench_tir_simplify", ctx, what); }

static const char header[] = "# from tvm.script import tir as T\n\n@T.prim_func\n"
                             "def main(A: T.Buffer((1024,), \"int32\"), B: T.Buffer((1024,), \"int32\")):\n";

static void generate(long n, bench_text *tir, bench_text *expect, bench_text *mlir) {
  bench_putf(tir, "%s", header);
  bench_putf(expect, "%s", header);
  bench_putf(mlir, "func.func @main(%%A: memref<1024xi32>, %%B: memref<1024xi32>) {\n"
                   "  %%zero = arith.constant 0 : i32\n  %%one = arith.constant 1 : i32\n"
                   "  %%two = arith.constant 2 : i32\n  %%three = arith.constant 3 : i32\n");
  for (int c = 0; c < 1024; c++) bench_putf(mlir, "  %%i%d = arith.constant %d : index\n", c, c);
  for (long i = 0; i < n; i++) {
    long j = i % 1024, k = (i * 7 + 3) % 1024;
    switch (i % 4) {
    case 0:
      bench_putf(tir, "    A[%ld] = (A[%ld] + 0) * 1\n", j, k);
      bench_putf(expect, "    A[%ld] = A[%ld]\n", j, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%A[%%i%ld] : memref<1024xi32>\n"
                       "  %%b%ld = arith.addi %%a%ld, %%zero : i32\n"
                       "  %%c%ld = arith.muli %%b%ld, %%one : i32\n"
                       "  memref.store %%c%ld, %%A[%%i%ld] : memref<1024xi32>\n",
                 i, k, i, i, i, i, i, j);
      break;
    case 1:
      bench_putf(tir, "    B[%ld] = T.min(A[%ld], A[%ld])\n", j, k, k);
      bench_putf(expect, "    B[%ld] = A[%ld]\n", j, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%A[%%i%ld] : memref<1024xi32>\n"
                       "  %%b%ld = memref.load %%A[%%i%ld] : memref<1024xi32>\n"
                       "  %%c%ld = arith.minsi %%a%ld, %%b%ld : i32\n"
                       "  memref.store %%c%ld, %%B[%%i%ld] : memref<1024xi32>\n",
                 i, k, i, k, i, i, i, i, j);
      break;
    case 2:
      bench_putf(tir, "    A[%ld] = A[%ld] - A[%ld] + B[%ld]\n", j, k, k, k);
      bench_putf(expect, "    A[%ld] = B[%ld]\n", j, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%A[%%i%ld] : memref<1024xi32>\n"
                       "  %%b%ld = arith.subi %%a%ld, %%a%ld : i32\n"
                       "  %%c%ld = memref.load %%B[%%i%ld] : memref<1024xi32>\n"
                       "  %%d%ld = arith.addi %%b%ld, %%c%ld : i32\n"
                       "  memref.store %%d%ld, %%A[%%i%ld] : memref<1024xi32>\n",
                 i, k, i, i, i, i, k, i, i, i, i, j);
      break;
    default:
      bench_putf(tir, "    B[%ld] = A[%ld] * 2 + A[%ld] * 3\n", j, k, k);
      bench_putf(expect, "    B[%ld] = A[%ld] * 5\n", j, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%A[%%i%ld] : memref<1024xi32>\n"
                       "  %%b%ld = arith.muli %%a%ld, %%two : i32\n"
                       "  %%c%ld = arith.muli %%a%ld, %%three : i32\n"
                       "  %%d%ld = arith.addi %%b%ld, %%c%ld : i32\n"
                       "  memref.store %%d%ld, %%B[%%i%ld] : memref<1024xi32>\n",
                 i, k, i, i, i, i, i, i, i, i, j);
      break;
    }
  }
  bench_putf(mlir, "  return\n}\n");
}

/* Prints the simplified module and compares it with the expected text. */
static void check(psg_ctx *ctx, const psg_module *m, const bench_text *expect) {
  const psg_tir_prim_func *f = psg_module_lookup_prim_func(m, "main");
  char *out = NULL;
  size_t len = 0;
  if (!f || psg_tir_script_print_func(f, "main", PSG_TIR_SCRIPT_DEFAULT, &out, &len)) die(ctx, "print");
  if (len != expect->len || memcmp(out, expect->s, len)) {
    size_t at = 0;
    while (at < len && at < expect->len && out[at] == expect->s[at]) at++;
    size_t from = at > 200 ? at - 200 : 0;
    fprintf(stderr, "simplified text differs at byte %zu:\n%.*s\n", at, (int)(len - from < 400 ? len - from : 400),
            out + from);
    die(ctx, "check (tir.Simplify did not reach the expected form)");
  }
  psg_free(out);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  bench_text tir = {0}, expect = {0}, mlir = {0};
  generate(n, &tir, &expect, &mlir);
  bench_write(&mlir, argc > 2 ? argv[2] : NULL);
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "context");
  psg_tir_script *s = NULL;
  psg_module *m = NULL;
  psg_pass *simplify = NULL;
  if (psg_tir_script_parse(ctx, tir.s, tir.len, "bench.py", &s) || psg_tir_script_to_module(s, &m))
    die(ctx, "parse");
  if (psg_pass_get(ctx, "tir.Simplify", NULL, &simplify)) die(ctx, "tir.Simplify lookup");
  double best = 1e30, spent = 0;
  for (int run = 0; run < 20 && (run < 3 || spent < 1.0); run++) {
    psg_module *out = NULL;
    double t0 = bench_now();
    if (psg_pass_run(simplify, m, NULL, &out)) die(ctx, "tir.Simplify");
    double t1 = bench_now();
    if (run == 0) check(ctx, out, &expect);
    psg_module_release(out);
    best = t1 - t0 < best ? t1 - t0 : best;
    spent += t1 - t0;
  }
  printf("%ld %.6f\n", n, best);
  psg_pass_release(simplify);
  psg_module_release(m);
  psg_tir_script_release(s);
  psg_ctx_release(ctx);
  free(tir.s);
  free(expect.s);
  free(mlir.s);
  return 0;
}
