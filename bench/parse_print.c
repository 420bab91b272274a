/* Benchmark (issue 2): parse and print of generated Relay text of N nodes,
 * and the same graph written in MLIR's textual form for `mlir-opt-19`
 * (the anchor, timed by bench/run_parse_print.sh).
 *
 *   bench_parse_print N OUT.mlir   prints "N bytes parse_s print_s"
 *
 * The module is a realistic mix over float32[2] tensors: a chain of bindings
 * cycling through add, multiply by a scalar literal, nn.relu, clip (a call
 * with attributes), an add of a metadata constant (one constant in 16 uses
 * a new meta[relay.Constant][i]) and every 8th step a `let`. The MLIR module
 * mirrors it op for op (arith.addf, arith.mulf, arith.maximumf, a
 * minimumf/maximumf pair for clip, arith.constant for constants). Times are
 * the best of several runs, so small sizes are not lost in timer noise. */
#include "bench_text.h"

static void die(psg_ctx *ctx, const char *what) { bench_die("bench_parse_print", ctx, what); }

/* Relay text and MLIR text of the same n-node graph. */
static void generate(long n, bench_text *relay, bench_text *mlir) {
  long nconst = 0;
  bench_putf(relay, "#[version = \"0.0.5\"]\ndef @main(%%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n");
  bench_putf(mlir, "func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> {\n"
             "  %%two = arith.constant dense<2.0> : tensor<2xf32>\n"
             "  %%zero = arith.constant dense<0.0> : tensor<2xf32>\n"
             "  %%six = arith.constant dense<6.0> : tensor<2xf32>\n");
  char prev[32] = "%x", mprev[32] = "%x";
  for (long i = 0; i < n; i++) {
    char cur[32], mcur[32];
    bool let = i % 8 == 7;
    if (let) snprintf(cur, sizeof cur, "%%v%ld", i);
    else snprintf(cur, sizeof cur, "%%%ld", i - i / 8);
    snprintf(mcur, sizeof mcur, "%%%ld", i);
    bench_putf(relay, "  %s%s = ", let ? "let " : "", cur);
    switch (i % 5) {
    case 0:
      bench_putf(relay, "add(%s, %%x);\n", prev);
      bench_putf(mlir, "  %s = arith.addf %s, %%x : tensor<2xf32>\n", mcur, mprev);
      break;
    case 1:
      bench_putf(relay, "multiply(%s, 2f);\n", prev);
      bench_putf(mlir, "  %s = arith.mulf %s, %%two : tensor<2xf32>\n", mcur, mprev);
      break;
    case 2:
      bench_putf(relay, "nn.relu(%s);\n", prev);
      bench_putf(mlir, "  %s = arith.maximumf %s, %%zero : tensor<2xf32>\n", mcur, mprev);
      break;
    case 3:
      bench_putf(relay, "clip(%s, a_min=0f, a_max=6f);\n", prev);
      bench_putf(mlir, "  %%t%ld = arith.minimumf %s, %%six : tensor<2xf32>\n", i, mprev);
      bench_putf(mlir, "  %s = arith.maximumf %%t%ld, %%zero : tensor<2xf32>\n", mcur, i);
      break;
    default:
      bench_putf(relay, "add(%s, meta[relay.Constant][%ld]);\n", prev, i % 16 == 4 ? nconst : nconst - 1);
      if (i % 16 == 4) {
        bench_putf(mlir, "  %%c%ld = arith.constant dense<[%ld.5, -1.25]> : tensor<2xf32>\n", nconst, nconst);
        nconst++;
      }
      bench_putf(mlir, "  %s = arith.addf %s, %%c%ld : tensor<2xf32>\n", mcur, mprev, nconst - 1);
      break;
    }
    memcpy(prev, cur, sizeof prev);
    memcpy(mprev, mcur, sizeof mprev);
  }
  bench_putf(relay, "  %s\n}\n", prev);
  bench_putf(mlir, "  return %s : tensor<2xf32>\n}\n", mprev);
  /* The metadata section: one float32[2] tensor per constant, base64. */
  bench_putf(relay, "\n#[metadata]\n{\n  \"relay.Constant\": [\n");
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (long c = 0; c < nconst; c++) {
    float v[2] = {(float)c + 0.5f, -1.25f};
    unsigned char b[9] = {0};
    memcpy(b, v, 8);
    char enc[13];
    for (int k = 0, o = 0; k < 9; k += 3) {
      unsigned w = (unsigned)b[k] << 16 | (unsigned)b[k + 1] << 8 | b[k + 2];
      enc[o++] = b64[w >> 18 & 63];
      enc[o++] = b64[w >> 12 & 63];
      enc[o++] = k + 1 < 8 ? b64[w >> 6 & 63] : '=';
      enc[o++] = k + 2 < 8 ? b64[w & 63] : '=';
    }
    enc[12] = 0;
    bench_putf(relay, "    {\"dtype\": \"float32\", \"shape\": [2], \"data\": \"%s\"}%s\n", enc, c + 1 < nconst ? "," : "");
  }
  bench_putf(relay, "  ]\n}\n");
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  const char *mlir_path = argc > 2 ? argv[2] : NULL;
  bench_text relay = {0}, mlir = {0};
  generate(n, &relay, &mlir);
  bench_write(&mlir, mlir_path);
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "context");
  double best_parse = 1e30, best_print = 1e30, spent = 0;
  size_t printed_len = 0;
  for (int run = 0; run < 20 && (run < 3 || spent < 1.0); run++) {
    psg_module *m = NULL;
    char *out = NULL;
    double t0 = bench_now();
    if (psg_module_parse(ctx, relay.s, relay.len, "bench.relay", &m)) die(ctx, "parse");
    double t1 = bench_now();
    if (psg_module_print(m, PSG_PRINT_DEFAULT, &out, &printed_len)) die(ctx, "print");
    double t2 = bench_now();
    /* The generated text is canonical: a mismatch means the benchmark
     * measures something else than a round trip. */
    if (printed_len != relay.len || memcmp(out, relay.s, relay.len)) die(ctx, "round trip (text differs)");
    psg_free(out);
    psg_module_release(m);
    best_parse = t1 - t0 < best_parse ? t1 - t0 : best_parse;
    best_print = t2 - t1 < best_print ? t2 - t1 : best_print;
    spent += t2 - t0;
  }
  printf("%ld %zu %.6f %.6f\n", n, relay.len, best_parse, best_print);
  psg_ctx_release(ctx);
  free(relay.s);
  free(mlir.s);
  return 0;
}
