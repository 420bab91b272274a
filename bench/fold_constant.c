/* Benchmark (issue 5): FoldConstant on generated graphs of N nodes, half of
 * them foldable, and the same graph in MLIR's arith dialect written out for
 * `mlir-opt-19 --canonicalize` (the anchor, timed by bench/run_fold.sh).
 *
 *   fold_constant N OUT.mlir   prints "N nodes_per_s peak_rss_kb" for our pass
 *
 * Graph: two interleaved chains of `add` on float32[16] tensors. The
 * constant chain c_{i+1} = add(c_i, C) folds completely; the variable chain
 * v_{i+1} = add(v_i, c_i) keeps every node (its operands become constants).
 * The function returns the last v. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "passage/passage.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "fold_constant: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  const char *mlir_path = argc > 2 ? argv[2] : NULL;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) die(NULL, "context");
  int64_t shape[1] = {16};
  float ones[16];
  for (int i = 0; i < 16; i++) ones[i] = 1.0f;
  const psg_type *t;
  psg_tensor *tensor;
  psg_expr *x, *add, *c, *v;
  if (psg_type_tensor(ctx, shape, 1, PSG_DTYPE_FLOAT32, &t) || psg_var_create(ctx, "x", t, NULL, &x) ||
      psg_op_get(ctx, "add", &add) || psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, 1, ones, &tensor) ||
      psg_constant_create(ctx, tensor, NULL, &c))
    die(ctx, "setup");
  psg_expr *base = c;
  psg_expr_retain(base);
  v = x;
  psg_expr_retain(v);
  for (long i = 0; i < n / 2; i++) {
    psg_expr *nc, *nv;
    if (psg_call_create(ctx, add, (psg_expr *[]){c, base}, 2, NULL, NULL, &nc) ||
        psg_call_create(ctx, add, (psg_expr *[]){v, c}, 2, NULL, NULL, &nv))
      die(ctx, "build");
    psg_expr_release(c);
    psg_expr_release(v);
    c = nc;
    v = nv;
  }
  psg_expr *fn, *gv;
  psg_module *m0, *mod, *out;
  if (psg_function_create(ctx, &x, 1, v, t, NULL, NULL, &fn) || psg_global_var_create(ctx, "main", NULL, &gv) ||
      psg_module_create(ctx, &m0) || psg_module_add(m0, gv, fn, &mod))
    die(ctx, "module");
  psg_pass *fold;
  if (psg_pass_get(ctx, "FoldConstant", NULL, &fold)) die(ctx, "FoldConstant lookup");
  double t0 = now();
  if (psg_pass_run(fold, mod, NULL, &out)) die(ctx, "FoldConstant");
  double dt = now() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%ld %.0f %ld\n", n, n / dt, ru.ru_maxrss);
  if (mlir_path) {
    FILE *f = fopen(mlir_path, "w");
    if (!f) die(ctx, "writing the MLIR file");
    fprintf(f, "func.func @main(%%x: tensor<16xf32>) -> tensor<16xf32> {\n");
    fprintf(f, "  %%c0 = arith.constant dense<1.0> : tensor<16xf32>\n");
    for (long i = 0; i < n / 2; i++) {
      char vname[32];
      if (i) snprintf(vname, sizeof vname, "%%v%ld", i);
      else snprintf(vname, sizeof vname, "%%x");
      fprintf(f, "  %%c%ld = arith.addf %%c%ld, %%c0 : tensor<16xf32>\n", i + 1, i);
      fprintf(f, "  %%v%ld = arith.addf %s, %%c%ld : tensor<16xf32>\n", i + 1, vname, i);
    }
    fprintf(f, "  return %%v%ld : tensor<16xf32>\n}\n", n / 2);
    fclose(f);
  }
  psg_module_release(out);
  psg_module_release(mod);
  psg_module_release(m0);
  psg_pass_release(fold);
  psg_expr_release(fn);
  psg_expr_release(gv);
  psg_expr_release(x);
  psg_expr_release(c);
  psg_expr_release(v);
  psg_expr_release(base);
  psg_tensor_release(tensor);
  psg_ctx_release(ctx);
  return 0;
}
