/* Passage — the compiled-model loader's C API (include/passage/runtime.h) on
 * hand-written models in the model ABI (tests/runtime/fixtures/, built as
 * shared libraries by cmake/runtime.cmake with this build's flags, so under
 * the sanitizer build they are instrumented too): loading, running by
 * position and by name, every error a user can meet, the parameters' side
 * file, timing, profiling, threads, out-of-memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "passage/runtime.h"
#include "runtime/runtime_internal.h"

#define FIX(name) RUNTIME_FIXTURES "/" name ".so"

/* The newest error's message contains `part`. */
static bool error_says(psg_ctx *ctx, const char *part) {
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  bool ok = d && strstr(psg_diag_message(d), part);
  if (!ok) fprintf(stderr, "  expected an error containing \"%s\", got \"%s\"\n", part, d ? psg_diag_message(d) : "");
  return ok;
}

static psg_tensor *floats(psg_ctx *ctx, const int64_t *shape, int nd, const float *v) {
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, nd, v, &t));
  return t;
}

static void release_all(psg_tensor **ts, size_t n) {
  for (size_t i = 0; i < n; i++) psg_tensor_release(ts[i]);
  psg_free(ts);
}

static const int64_t S23[] = {2, 3};
static const float X[] = {1, 2, 3, 4, 5, 6}, Y[] = {0.5f, -1, 2, 0, 10, -3};

static void test_info(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("add"), NULL, &m));
  if (!m) return;
  const psg_model_info *in = psg_compiled_info(m);
  CHECK_STR(in->name, "add");
  CHECK_EQ_INT(in->num_inputs, 2);
  CHECK_STR(in->inputs[1].name, "y");
  CHECK_EQ_INT(in->num_kernels, 2);
  CHECK_STR(psg_compiled_kernel_op(m, 0), "multiply");
  CHECK_STR(psg_compiled_kernel_op(m, 1), "add");
  CHECK(psg_compiled_kernel_op(m, 2) == NULL);
  CHECK_STR(psg_compiled_path(m), FIX("add"));
  CHECK(!psg_compiled_uses_openmp(m));
  psg_compiled_free(m);
  CHECK_CTX_CLEAN(ctx);
}

static void check_add_output(psg_tensor *const *outs, size_t n) {
  CHECK_EQ_INT(n, 1);
  if (n != 1) return;
  CHECK_EQ_INT(psg_tensor_dtype(outs[0]), PSG_DTYPE_FLOAT32);
  CHECK_EQ_INT(psg_tensor_ndim(outs[0]), 2);
  const float *o = psg_tensor_data(outs[0]);
  for (int i = 0; i < 6; i++) CHECK(o[i] == X[i] + 2 * Y[i]);
}

static void test_run(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("add"), NULL, &m));
  if (!m) return;
  psg_tensor *x = floats(ctx, S23, 2, X), *y = floats(ctx, S23, 2, Y);
  const psg_tensor *pos[] = {x, y};
  psg_tensor **outs = NULL;
  size_t n = 0;
  CHECK_OK(psg_compiled_run(m, pos, 2, &outs, &n));
  check_add_output(outs, n);
  release_all(outs, n);
  /* By name, in another order: the names decide, not the positions. */
  const char *names[] = {"y", "x"};
  const psg_tensor *rev[] = {y, x};
  CHECK_OK(psg_compiled_run_named(m, names, rev, 2, &outs, &n));
  check_add_output(outs, n);
  release_all(outs, n);
  psg_tensor_release(x);
  psg_tensor_release(y);
  psg_compiled_free(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Every input error names what is wrong, and leaves nothing behind. */
static void test_input_errors(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("add"), NULL, &m));
  if (!m) return;
  psg_tensor *x = floats(ctx, S23, 2, X), *y = floats(ctx, S23, 2, Y);
  int64_t s32[] = {3, 2};
  psg_tensor *wrong_shape = floats(ctx, s32, 2, X), *wrong_dtype = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT64, S23, 2, NULL, &wrong_dtype));
  psg_tensor **outs = (psg_tensor **)&outs;
  size_t n = 99;

  const psg_tensor *missing[] = {x, NULL};
  CHECK_EQ_INT(psg_compiled_run(m, missing, 2, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "no value for input 'y' (float32 (2, 3))"));
  CHECK(outs == NULL && n == 0);
  const psg_tensor *one[] = {x};
  CHECK_EQ_INT(psg_compiled_run(m, one, 1, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "takes 2 inputs, but 1 was given"));
  const psg_tensor *three[] = {x, y, y};
  CHECK_EQ_INT(psg_compiled_run(m, three, 3, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "takes 2 inputs, but 3 were given"));
  const psg_tensor *shape[] = {x, wrong_shape};
  CHECK_EQ_INT(psg_compiled_run(m, shape, 2, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "input 'y' must be float32 (2, 3), but float32 (3, 2) was given"));
  const psg_tensor *dtype[] = {wrong_dtype, y};
  CHECK_EQ_INT(psg_compiled_run(m, dtype, 2, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "input 'x' must be float32 (2, 3), but float64 (2, 3) was given"));

  const char *only_x[] = {"x"};
  CHECK_EQ_INT(psg_compiled_run_named(m, only_x, one, 1, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "no value for input 'y'"));
  const char *typo[] = {"x", "yy"};
  const psg_tensor *xy[] = {x, y};
  CHECK_EQ_INT(psg_compiled_run_named(m, typo, xy, 2, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "has no input named 'yy'; did you mean 'y'? (its inputs: x, y)"));
  const char *extra[] = {"x", "y", "z"};
  CHECK_EQ_INT(psg_compiled_run_named(m, extra, three, 3, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "has no input named 'z'"));
  const char *twice[] = {"x", "x"};
  CHECK_EQ_INT(psg_compiled_run_named(m, twice, xy, 2, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "input 'x' is given twice"));
  CHECK(outs == NULL && n == 0);

  psg_tensor_release(x);
  psg_tensor_release(y);
  psg_tensor_release(wrong_shape);
  psg_tensor_release(wrong_dtype);
  psg_compiled_free(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_load_errors(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = (psg_compiled *)&m;
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("not_model"), NULL, &m), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "is not a Passage model: it has no passage_model_entry"));
  CHECK(m == NULL);
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("bad_abi"), NULL, &m), PSG_ERR_UNSUPPORTED);
  CHECK(error_says(ctx, "was compiled for model ABI version 99; this Passage loads version 1"));
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("malformed"), NULL, &m), PSG_ERR_PARSE);
  CHECK(error_says(ctx, "malformed model description: output 'output0' declares 10 bytes for 8"));
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("no_such_model"), NULL, &m), PSG_ERR_IO);
  CHECK(error_says(ctx, "cannot load " FIX("no_such_model") " as a compiled model"));
  /* Not a shared library at all. */
  CHECK_EQ_INT(psg_compiled_load(ctx, RUNTIME_SOURCE "/fixtures/add.c", NULL, &m), PSG_ERR_IO);
  CHECK(error_says(ctx, "as a compiled model"));
  CHECK(m == NULL);
  CHECK_CTX_CLEAN(ctx);
}

static bool write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(data, 1, n, f) == n;
  if (f) ok = fclose(f) == 0 && ok;
  return ok;
}

/* params.so with its side file beside it, given by path, missing, of the
 * wrong size, and of the right size with another header. */
static void test_params(void) {
  psg_ctx *ctx = check_ctx();
  unsigned char good[40] = "PSGFIXP1";
  float wb[8] = {1, 2, 3, 4, 0.5f, 0.5f, 0.5f, 0.5f};
  memcpy(good + 8, wb, sizeof wb);
  CHECK(write_file(RUNTIME_FIXTURES "/params.bin", good, sizeof good));
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("params"), NULL, &m));
  if (m) {
    int64_t s4[] = {4};
    float xv[] = {1, -1, 2, 0};
    psg_tensor *x = floats(ctx, s4, 1, xv);
    const psg_tensor *in[] = {x};
    psg_tensor **outs = NULL;
    size_t n = 0;
    CHECK_OK(psg_compiled_run(m, in, 1, &outs, &n));
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
      const float *y = psg_tensor_data(outs[0]);
      for (int i = 0; i < 4; i++) CHECK(y[i] == xv[i] * wb[i] + 0.5f);
      CHECK_EQ_INT(psg_tensor_dtype(outs[1]), PSG_DTYPE_INT64);
      CHECK_EQ_INT(*(const int64_t *)psg_tensor_data(outs[1]), 2);
    }
    release_all(outs, n);
    psg_tensor_release(x);
    psg_compiled_free(m);
  }
  CHECK(write_file(RUNTIME_FIXTURES "/params_other.bin", good, sizeof good));
  CHECK_OK(psg_compiled_load(ctx, FIX("params"), RUNTIME_FIXTURES "/params_other.bin", &m));
  psg_compiled_free(m);

  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("params"), RUNTIME_FIXTURES "/missing.bin", &m), PSG_ERR_IO);
  CHECK(error_says(ctx, "needs its parameters file " RUNTIME_FIXTURES "/missing.bin (40 bytes), which cannot be opened"));
  CHECK(write_file(RUNTIME_FIXTURES "/params_short.bin", good, 39));
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("params"), RUNTIME_FIXTURES "/params_short.bin", &m),
               PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "params_short.bin has 39 bytes, but " FIX("params") " expects 40"));
  good[0] = 'X';
  CHECK(write_file(RUNTIME_FIXTURES "/params_bad.bin", good, sizeof good));
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("params"), RUNTIME_FIXTURES "/params_bad.bin", &m),
               PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "rejects parameters file " RUNTIME_FIXTURES "/params_bad.bin (set_params returned 2)"));
  /* The default side file gone: a clear error, not a crash in the model. */
  CHECK(remove(RUNTIME_FIXTURES "/params.bin") == 0);
  CHECK_EQ_INT(psg_compiled_load(ctx, FIX("params"), NULL, &m), PSG_ERR_IO);
  CHECK(error_says(ctx, "needs its parameters file " RUNTIME_FIXTURES "/params.bin"));
  CHECK(m == NULL);
  CHECK_CTX_CLEAN(ctx);
}

static void test_failing_model(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("fail"), NULL, &m));
  if (!m) return;
  int64_t s3[] = {3}, good[] = {1, 2, 3}, bad[] = {-1, 2, 3};
  psg_tensor *g = NULL, *b = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_INT64, s3, 1, good, &g));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_INT64, s3, 1, bad, &b));
  psg_tensor **outs = NULL;
  size_t n = 0;
  const psg_tensor *gi[] = {g}, *bi[] = {b};
  CHECK_OK(psg_compiled_run(m, gi, 1, &outs, &n));
  CHECK(n == 1 && !memcmp(psg_tensor_data(outs[0]), good, sizeof good));
  release_all(outs, n);
  CHECK_EQ_INT(psg_compiled_run(m, bi, 1, &outs, &n), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "the model's run failed with code 7"));
  CHECK(outs == NULL && n == 0);
  double secs[2];
  CHECK_EQ_INT(psg_compiled_time(m, bi, 1, 0, 2, secs), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "failed with code 7"));
  /* Its profiled run breaks the hook protocol (kernel 5 of 1). */
  double ks[1];
  uint64_t kc[1];
  double total;
  CHECK_EQ_INT(psg_compiled_profile(m, gi, 1, 1, ks, kc, &total), PSG_ERR_INVALID_ARGUMENT);
  CHECK(error_says(ctx, "profile hook was called for kernel 5"));
  psg_tensor_release(g);
  psg_tensor_release(b);
  psg_compiled_free(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_time_and_profile(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("add"), NULL, &m));
  if (!m) return;
  psg_tensor *x = floats(ctx, S23, 2, X), *y = floats(ctx, S23, 2, Y);
  const psg_tensor *in[] = {x, y};
  double secs[5] = {-1, -1, -1, -1, -1};
  CHECK_OK(psg_compiled_time(m, in, 2, 2, 5, secs));
  for (int i = 0; i < 5; i++) CHECK(secs[i] >= 0 && secs[i] < 1);
  double ks[2] = {-1, -1}, total = -1;
  uint64_t kc[2] = {9, 9};
  CHECK_OK(psg_compiled_profile(m, in, 2, 3, ks, kc, &total));
  CHECK_EQ_INT(kc[0], 3);
  CHECK_EQ_INT(kc[1], 3);
  CHECK(ks[0] >= 0 && ks[1] >= 0 && total > 0 && ks[0] + ks[1] <= total);
  /* Timing checks its inputs like a run. */
  CHECK_EQ_INT(psg_compiled_time(m, in, 1, 0, 1, secs), PSG_ERR_INVALID_ARGUMENT);
  psg_tensor_release(x);
  psg_tensor_release(y);
  psg_compiled_free(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_threads(void) {
  psg_ctx *ctx = check_ctx();
  psg_compiled *m = NULL;
  CHECK_OK(psg_compiled_load(ctx, FIX("add"), NULL, &m));
  if (!m) return;
  CHECK_OK(psg_compiled_set_num_threads(m, 1));
  CHECK_EQ_INT(psg_compiled_set_num_threads(m, 4), PSG_ERR_UNSUPPORTED);
  CHECK(error_says(ctx, "was built without OpenMP: it runs single-threaded"));
  CHECK_EQ_INT(psg_compiled_set_num_threads(m, 0), PSG_ERR_INVALID_ARGUMENT);
  psg_compiled_free(m);
#ifdef RUNTIME_OPENMP
  CHECK_OK(psg_compiled_load(ctx, FIX("add_omp"), NULL, &m));
  if (m) {
    CHECK(psg_compiled_uses_openmp(m));
    CHECK_OK(psg_compiled_set_num_threads(m, 2));
    psg_tensor *x = floats(ctx, S23, 2, X), *y = floats(ctx, S23, 2, Y);
    const psg_tensor *in[] = {x, y};
    psg_tensor **outs = NULL;
    size_t n = 0;
    CHECK_OK(psg_compiled_run(m, in, 2, &outs, &n));
    check_add_output(outs, n);
    release_all(outs, n);
    CHECK_OK(psg_compiled_set_num_threads(m, 1));
    psg_tensor_release(x);
    psg_tensor_release(y);
    psg_compiled_free(m);
  }
#endif
  CHECK_CTX_CLEAN(ctx);
}

/* The anchor op read back from LowerTE's kernel names. */
static void test_anchor_op(void) {
  CHECK_STR(psgi_compiled_anchor_op("tvmgen_default_fused_nn_conv2d_add_nn_relu"), "nn.conv2d");
  CHECK_STR(psgi_compiled_anchor_op("tvmgen_default_fused_add_nn_relu_1"), "add");
  CHECK_STR(psgi_compiled_anchor_op("tvmgen_default_fused_reshape_nn_dense_add"), "nn.dense");
  CHECK_STR(psgi_compiled_anchor_op("tvmgen_default_fused_greater_sum_cast"), "sum");
  CHECK_STR(psgi_compiled_anchor_op("tvmgen_default_fused_nn_max_pool2d"), "nn.max_pool2d");
  CHECK(psgi_compiled_anchor_op("my_kernel") == NULL);
  CHECK(psgi_compiled_anchor_op("tvmgen_default_fused_zzz") == NULL);
}

/* Every allocation of a load and a run may fail: a clean PSG_ERR_NOMEM and
 * nothing leaked (LeakSanitizer in the sanitizer build). */
static void test_out_of_memory(void) {
  for (long k = 1; k < 200; k++) {
    check_alloc a = {0, k};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    psg_compiled *m = NULL;
    psg_status st = psg_compiled_load(ctx, FIX("add"), NULL, &m);
    psg_tensor *x = NULL, *y = NULL, **outs = NULL;
    size_t n = 0;
    if (!st) st = psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, S23, 2, X, &x);
    if (!st) st = psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, S23, 2, Y, &y);
    const psg_tensor *in[] = {x, y};
    if (!st) st = psg_compiled_run(m, in, 2, &outs, &n);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    if (!st) check_add_output(outs, n);
    release_all(outs, n);
    psg_tensor_release(x);
    psg_tensor_release(y);
    psg_compiled_free(m);
    CHECK_CTX_CLEAN(ctx);
    if (!st) return;
  }
  CHECK(!"a load and run that never succeeds");
}

int main(void) {
  RUN_TEST(test_info);
  RUN_TEST(test_run);
  RUN_TEST(test_input_errors);
  RUN_TEST(test_load_errors);
  RUN_TEST(test_params);
  RUN_TEST(test_failing_model);
  RUN_TEST(test_time_and_profile);
  RUN_TEST(test_threads);
  RUN_TEST(test_anchor_op);
  RUN_TEST(test_out_of_memory);
  return check_finish();
}
