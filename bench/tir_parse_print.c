/* Benchmark (issue 15): parse and print of a generated TVMScript PrimFunc of
 * N statements, and the same loop-free body in MLIR's textual form
 * (func/memref/arith) for `mlir-opt-19`, the anchor timed by
 * bench/run_tir_parse_print.sh.
 *
 *   bench_tir_parse_print N OUT.mlir   prints "N bytes parse_s print_s"
 *
 * The function reads and writes two float32[1024] buffers with a cycle of
 * four statement shapes: A[j] = A[k] * 2 + 1, B[j] = max(B[k], 0),
 * A[j] = A[k] + B[j], B[j] = B[k] - A[k] * 0.5 (j and k constant indices).
 * The MLIR function mirrors it load for load, op for op and store for store,
 * with the index and float constants defined once at the top, as MLIR
 * writes them. Times are the best of several runs. */
#include "bench_text.h"
#include "passage/tvmscript.h"

static void die(psg_ctx *ctx, const char *what) { bench_die("bench_tir_parse_print", ctx, what); }

static void generate(long n, bench_text *tir, bench_text *mlir) {
  bench_putf(tir, "# from tvm.script import tir as T\n\n@T.prim_func\n"
                  "def main(A: T.Buffer((1024,), \"float32\"), B: T.Buffer((1024,), \"float32\")):\n");
  bench_putf(mlir, "func.func @main(%%A: memref<1024xf32>, %%B: memref<1024xf32>) {\n"
                   "  %%two = arith.constant 2.0 : f32\n  %%one = arith.constant 1.0 : f32\n"
                   "  %%zero = arith.constant 0.0 : f32\n  %%half = arith.constant 0.5 : f32\n");
  for (int c = 0; c < 1024; c++) bench_putf(mlir, "  %%i%d = arith.constant %d : index\n", c, c);
  for (long i = 0; i < n; i++) {
    long j = i % 1024, k = (i * 7 + 3) % 1024;
    switch (i % 4) {
    case 0:
      bench_putf(tir, "    A[%ld] = A[%ld] * T.float32(2.0) + T.float32(1.0)\n", j, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%A[%%i%ld] : memref<1024xf32>\n"
                       "  %%b%ld = arith.mulf %%a%ld, %%two : f32\n"
                       "  %%c%ld = arith.addf %%b%ld, %%one : f32\n"
                       "  memref.store %%c%ld, %%A[%%i%ld] : memref<1024xf32>\n",
                 i, k, i, i, i, i, i, j);
      break;
    case 1:
      bench_putf(tir, "    B[%ld] = T.max(B[%ld], T.float32(0.0))\n", j, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%B[%%i%ld] : memref<1024xf32>\n"
                       "  %%b%ld = arith.maximumf %%a%ld, %%zero : f32\n"
                       "  memref.store %%b%ld, %%B[%%i%ld] : memref<1024xf32>\n",
                 i, k, i, i, i, j);
      break;
    case 2:
      bench_putf(tir, "    A[%ld] = A[%ld] + B[%ld]\n", j, k, j);
      bench_putf(mlir, "  %%a%ld = memref.load %%A[%%i%ld] : memref<1024xf32>\n"
                       "  %%b%ld = memref.load %%B[%%i%ld] : memref<1024xf32>\n"
                       "  %%c%ld = arith.addf %%a%ld, %%b%ld : f32\n"
                       "  memref.store %%c%ld, %%A[%%i%ld] : memref<1024xf32>\n",
                 i, k, i, j, i, i, i, i, j);
      break;
    default:
      bench_putf(tir, "    B[%ld] = B[%ld] - A[%ld] * T.float32(0.5)\n", j, k, k);
      bench_putf(mlir, "  %%a%ld = memref.load %%B[%%i%ld] : memref<1024xf32>\n"
                       "  %%b%ld = memref.load %%A[%%i%ld] : memref<1024xf32>\n"
                       "  %%c%ld = arith.mulf %%b%ld, %%half : f32\n"
                       "  %%d%ld = arith.subf %%a%ld, %%c%ld : f32\n"
                       "  memref.store %%d%ld, %%B[%%i%ld] : memref<1024xf32>\n",
                 i, k, i, k, i, i, i, i, i, i, j);
      break;
    }
  }
  bench_putf(mlir, "  return\n}\n");
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  bench_text tir = {0}, mlir = {0};
  generate(n, &tir, &mlir);
  bench_write(&mlir, argc > 2 ? argv[2] : NULL);
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "context");
  double best_parse = 1e30, best_print = 1e30, spent = 0;
  for (int run = 0; run < 20 && (run < 3 || spent < 1.0); run++) {
    psg_tir_script *s = NULL;
    char *out = NULL;
    size_t len = 0;
    double t0 = bench_now();
    if (psg_tir_script_parse(ctx, tir.s, tir.len, "bench.py", &s)) die(ctx, "parse");
    double t1 = bench_now();
    if (psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, &len)) die(ctx, "print");
    double t2 = bench_now();
    /* The generated text is canonical: a mismatch means the benchmark
     * measures something other than a round trip. */
    if (len != tir.len || memcmp(out, tir.s, tir.len)) {
      fwrite(out, 1, len < 400 ? len : 400, stderr);
      die(ctx, "round trip (text differs)");
    }
    psg_free(out);
    psg_tir_script_release(s);
    best_parse = t1 - t0 < best_parse ? t1 - t0 : best_parse;
    best_print = t2 - t1 < best_print ? t2 - t1 : best_print;
    spent += t2 - t0;
  }
  printf("%ld %zu %.6f %.6f\n", n, tir.len, best_parse, best_print);
  psg_ctx_release(ctx);
  free(tir.s);
  free(mlir.s);
  return 0;
}
