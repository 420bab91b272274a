/* Function and prim-func passes on threads (src/pass/parallel.c,
 * docs/pass-infra.md "Threads"): with passage.num_threads > 1 the result,
 * the diagnostics (text and order) and the instrument calls are those of the
 * serial run: on a generated 256-function module through -O3 and the
 * lowering (every per-function TIR pass), and with test passes that warn on
 * every function and fail on two (the serial run reports the first failing
 * function only). A pass not declared concurrent runs on the calling thread
 * alone. Also in the ThreadSanitizer suite (cmake/tsan.cmake). */
#include <pthread.h>
#include <stdio.h>
#include "pass_check.h"
#include "support/support.h"

enum { NUM_FUNCS = 256 };

/* 256 Relay functions of different shapes and constants, each called by
 * @main: -O3 keeps them apart and the lowering makes a PrimFunc of each. */
static char *generated_module(void) {
  size_t cap = 1 << 20, len = 0;
  char *s = malloc(cap);
  len += (size_t)snprintf(s + len, cap - len, HDR);
  for (int i = 0; i < NUM_FUNCS; i++)
    len += (size_t)snprintf(s + len, cap - len,
                            "def @f%d(%%x: Tensor[(%d, 8), float32]) -> Tensor[(%d, 8), float32] {\n"
                            "  %%0 = add(%%x, %d.5f);\n  %%1 = nn.relu(%%0);\n  multiply(%%1, %%x)\n}\n",
                            i, i % 16 + 1, i % 16 + 1, i);
  len += (size_t)snprintf(s + len, cap - len, "def @main(%%x: Tensor[(1, 8), float32]) {\n  (");
  for (int i = 0; i < NUM_FUNCS; i++)
    len += (size_t)snprintf(s + len, cap - len, "%s@f%d(zeros(shape=[%d, 8], dtype=\"float32\"))", i ? ", " : "",
                            i, i % 16 + 1);
  snprintf(s + len, cap - len, ")\n}\n");
  return s;
}

/* Instrument calls, in order, as text. */
typedef struct trace {
  char log[1 << 16];
  size_t len;
} trace;

static psg_status before(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc, (void)mod;
  trace *t = user;
  t->len += (size_t)snprintf(t->log + t->len, sizeof t->log - t->len, "before %s\n", psg_pass_info_name(info));
  return PSG_OK;
}

static psg_status after(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc, (void)mod;
  trace *t = user;
  t->len += (size_t)snprintf(t->log + t->len, sizeof t->log - t->len, "after %s\n", psg_pass_info_name(info));
  return PSG_OK;
}

static psg_status failed(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc, (void)mod;
  trace *t = user;
  t->len += (size_t)snprintf(t->log + t->len, sizeof t->log - t->len, "failed %s\n", psg_pass_info_name(info));
  return PSG_OK;
}

/* One run: the printed result (or "failed"), every diagnostic and the
 * instrument trace, as one text. */
static char *run_text(psg_ctx *ctx, psg_module *in, const char *pipeline, psg_pass *pass, int threads,
                      psg_module **result) {
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  char assignment[64];
  snprintf(assignment, sizeof assignment, "passage.num_threads=%d", threads);
  CHECK_OK(psg_pass_context_set_config_text(pc, assignment));
  static trace t;
  t.len = 0;
  psg_instrument_callbacks cb = {0};
  cb.run_before_pass = before;
  cb.run_after_pass = after;
  cb.run_after_pass_failed = failed;
  psg_instrument *inst = NULL;
  CHECK_OK(psg_instrument_create(ctx, "trace", &cb, &t, NULL, &inst));
  CHECK_OK(psg_pass_context_add_instrument(pc, inst));
  CHECK_OK(psg_pass_context_enter(pc));
  psg_module *out = NULL;
  psg_pass *p = pass;
  if (!p) CHECK_OK(psg_pipeline_parse(ctx, pipeline, &p));
  else psg_pass_retain(p);
  psg_status st = in && p ? psg_pass_run(p, in, pc, &out) : PSG_ERR_INTERNAL;
  CHECK_OK(psg_pass_context_exit(pc));
  char *text = NULL;
  if (!st) CHECK_OK(psg_module_print(out, PSG_PRINT_NO_METADATA, &text, NULL));
  size_t cap = (text ? strlen(text) : 0) + t.len + (1 << 16), len = 0;
  char *all = malloc(cap);
  len += (size_t)snprintf(all + len, cap - len, "status %d\n%s", (int)st, text ? text : "failed\n");
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const char *r = psg_diag_rendered(psg_ctx_get_diag(ctx, i));
    size_t need = strlen(r) + 1;
    if (len + need + t.len + 1 > cap) all = realloc(all, cap = 2 * (cap + need));
    len += (size_t)snprintf(all + len, cap - len, "%s", r);
  }
  if (len + t.len + 1 > cap) all = realloc(all, cap = len + t.len + 1);
  memcpy(all + len, t.log, t.len + 1);
  psg_ctx_clear_diags(ctx);
  psg_free(text);
  if (result) *result = out;
  else psg_module_release(out);
  psg_pass_release(p);
  psg_instrument_release(inst);
  psg_pass_context_release(pc);
  return all;
}

static void check_same(const char *what, const char *serial, const char *threaded) {
  bool same = !strcmp(serial, threaded);
  CHECK(same);
  if (!same) {
    size_t i = 0;
    while (serial[i] && serial[i] == threaded[i]) i++;
    fprintf(stderr, "%s: threads change the run at byte %zu:\n--- serial\n%.300s\n--- threads\n%.300s\n", what, i,
            serial + (i > 100 ? i - 100 : 0), threaded + (i > 100 ? i - 100 : 0));
  }
}

static void test_generated_module_through_o3_and_lowering(void) {
  psg_ctx *ctx = check_ctx();
  char *text = generated_module();
  /* A fresh input each time: a run records the properties it establishes
   * on its input (an unchanged result is the input), which saves the next
   * run an InferType. */
  psg_module *in = parse(ctx, text);
  CHECK(in != NULL);
  char *serial = run_text(ctx, in, "sequential(O3,lower)", NULL, 1, NULL);
  psg_module_release(in);
  CHECK(strstr(serial, "status 0\n") == serial);
  CHECK(strstr(serial, "@f255") != NULL);
  for (int threads = 2; threads <= 4; threads += 2) {
    in = parse(ctx, text);
    char *threaded = run_text(ctx, in, "sequential(O3,lower)", NULL, threads, NULL);
    psg_module_release(in);
    check_same("O3 + lower", serial, threaded);
    free(threaded);
  }
  free(serial);
  free(text);
  CHECK_CTX_CLEAN(ctx);
}

/* A prim-func pass that warns on every PrimFunc and fails on two of them
 * (functions `fail_a` and `fail_b` in module order); it records which
 * threads it ran on. */
typedef struct tester {
  size_t fail_a, fail_b;
  pthread_t threads[8];
  int num_threads; /* guarded by lock */
  pthread_mutex_t lock;
} tester;

static void saw_thread(tester *t) {
  pthread_mutex_lock(&t->lock);
  bool seen = false;
  for (int i = 0; i < t->num_threads; i++) seen |= pthread_equal(t->threads[i], pthread_self()) != 0;
  if (!seen && t->num_threads < 8) t->threads[t->num_threads++] = pthread_self();
  pthread_mutex_unlock(&t->lock);
}

static size_t index_of_prim(const psg_module *mod, const psg_tir_prim_func *f) {
  for (size_t i = 0; i < psg_module_num_functions(mod); i++)
    if (psg_module_get_prim_func(mod, i) == f) return i;
  return SIZE_MAX;
}

static psg_status warn_and_fail_prim(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                     psg_tir_prim_func **out) {
  tester *t = user;
  saw_thread(t);
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  size_t i = index_of_prim(mod, f);
  const char *name = psg_global_var_name(psg_module_get_global_var(mod, i));
  psgi_diag_add(ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, NULL, "visited @%s", name);
  if (i == t->fail_a || i == t->fail_b)
    return psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "@%s is broken", name);
  psg_tir_retain(f);
  *out = f;
  return PSG_OK;
}

static psg_status warn_and_fail_relay(psg_expr *f, psg_module *mod, psg_pass_context *pc, void *user,
                                      psg_expr **out) {
  tester *t = user;
  saw_thread(t);
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  size_t i = 0;
  while (i < psg_module_num_functions(mod) && psg_module_get_function(mod, i) != f) i++;
  const char *name = psg_global_var_name(psg_module_get_global_var(mod, i));
  psgi_diag_add(ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, NULL, "visited @%s", name);
  if (i == t->fail_a || i == t->fail_b) return psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "@%s is broken", name);
  psg_expr_retain(f);
  *out = f;
  return PSG_OK;
}

static psg_pass *tester_pass(psg_ctx *ctx, bool prim, tester *t, bool concurrent) {
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, prim ? "WarnAndFailPrim" : "WarnAndFail", 0, NULL, 0, &info));
  if (prim) CHECK_OK(psg_create_prim_func_pass(ctx, info, warn_and_fail_prim, t, NULL, &p));
  else CHECK_OK(psg_create_function_pass(ctx, info, warn_and_fail_relay, t, NULL, &p));
  psg_pass_info_release(info);
  CHECK(!psg_pass_is_concurrent(p));
  psg_pass_set_concurrent(p, concurrent);
  CHECK(psg_pass_is_concurrent(p) == concurrent);
  return p;
}

/* The serial and the threaded runs report the same: every function's
 * warning up to the first failing one, that function's error with the
 * runner's note, the pass's failure to the instruments. */
static void check_tester(psg_ctx *ctx, psg_module *in, bool prim, size_t fail_a, size_t fail_b) {
  tester t = {.fail_a = fail_a, .fail_b = fail_b};
  pthread_mutex_init(&t.lock, NULL);
  psg_pass *p = tester_pass(ctx, prim, &t, true);
  /* A first run gives `in` the properties the pass establishes (see
   * above): every compared run starts from the same input. */
  free(run_text(ctx, in, NULL, p, 1, NULL));
  t.num_threads = 0;
  char *serial = run_text(ctx, in, NULL, p, 1, NULL);
  CHECK(t.num_threads <= 1);
  if (fail_a != SIZE_MAX) { /* the first failure in module order is reported, not the other */
    size_t first = fail_a < fail_b ? fail_a : fail_b, other = fail_a < fail_b ? fail_b : fail_a;
    char want[128];
    snprintf(want, sizeof want, "error: @%s is broken\n  note: in pass '%s'",
             psg_global_var_name(psg_module_get_global_var(in, first)), prim ? "WarnAndFailPrim" : "WarnAndFail");
    CHECK(strstr(serial, want) != NULL);
    snprintf(want, sizeof want, "@%s is broken", psg_global_var_name(psg_module_get_global_var(in, other)));
    CHECK(first == other || strstr(serial, want) == NULL);
    /* The warning of every function before it and none after. */
    snprintf(want, sizeof want, "visited @%s\n", psg_global_var_name(psg_module_get_global_var(in, first)));
    CHECK(strstr(serial, want) != NULL);
    if (first + 1 < psg_module_num_functions(in)) {
      snprintf(want, sizeof want, "visited @%s\n", psg_global_var_name(psg_module_get_global_var(in, first + 1)));
      CHECK(strstr(serial, want) == NULL);
    }
    CHECK(strstr(serial, "status 0\n") == NULL);
  }
  for (int round = 0; round < 5; round++) {
    t.num_threads = 0;
    char *threaded = run_text(ctx, in, NULL, p, 4, NULL);
    check_same(prim ? "prim-func pass" : "function pass", serial, threaded);
    free(threaded);
  }
  /* Not declared concurrent: the calling thread alone, whatever the context allows. */
  psg_pass_set_concurrent(p, false);
  t.num_threads = 0;
  char *serial_again = run_text(ctx, in, NULL, p, 4, NULL);
  CHECK(t.num_threads <= 1);
  CHECK(t.num_threads == 0 || pthread_equal(t.threads[0], pthread_self()));
  check_same("a pass run serially", serial, serial_again);
  free(serial_again);
  free(serial);
  psg_pass_release(p);
  pthread_mutex_destroy(&t.lock);
}

/* The generated module lowered: 256 PrimFuncs after @main and the @f's. */
static psg_module *lowered(psg_ctx *ctx) {
  char *text = generated_module();
  psg_module *in = parse(ctx, text), *out = NULL;
  free(text);
  char *log = run_text(ctx, in, "sequential(O3,lower)", NULL, 2, &out);
  free(log);
  psg_module_release(in);
  return out;
}

static size_t first_prim(const psg_module *m, size_t k) {
  for (size_t i = 0; i < psg_module_num_functions(m); i++)
    if (psg_module_get_prim_func(m, i) && k-- == 0) return i;
  return SIZE_MAX;
}

static void test_prim_func_pass_diagnostics_as_serial(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = lowered(ctx);
  CHECK(m != NULL);
  CHECK(first_prim(m, NUM_FUNCS - 1) != SIZE_MAX);
  check_tester(ctx, m, true, SIZE_MAX, SIZE_MAX); /* no failure */
  check_tester(ctx, m, true, first_prim(m, 200), first_prim(m, 37)); /* the 38th fails first */
  check_tester(ctx, m, true, first_prim(m, 0), first_prim(m, 1)); /* the first two */
  check_tester(ctx, m, true, first_prim(m, NUM_FUNCS - 1), first_prim(m, NUM_FUNCS - 1)); /* the last */
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_function_pass_diagnostics_as_serial(void) {
  psg_ctx *ctx = check_ctx();
  char *text = generated_module();
  psg_module *m = parse(ctx, text);
  free(text);
  CHECK(m != NULL);
  check_tester(ctx, m, false, SIZE_MAX, SIZE_MAX);
  check_tester(ctx, m, false, 150, 9);
  check_tester(ctx, m, false, 3, 4);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Zero and one function: nothing to share, the calling thread runs it. */
static void test_zero_and_one_function(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *empty = parse(ctx, HDR), *one = parse(ctx, HDR "def @main(%x: " T ") { %x }\n");
  CHECK(empty && one);
  check_tester(ctx, empty, false, SIZE_MAX, SIZE_MAX);
  check_tester(ctx, empty, true, SIZE_MAX, SIZE_MAX);
  check_tester(ctx, one, false, SIZE_MAX, SIZE_MAX);
  check_tester(ctx, one, false, 0, 0);
  psg_module_release(empty);
  psg_module_release(one);
  CHECK_CTX_CLEAN(ctx);
}

/* LowerTE lowers its Primitive functions on the threads (lower_te.c,
 * parallel_calls.h) and reports what the serial run reports: the first
 * failing lowering in rewrite order with the TE layer's error before it, or
 * a Compiler function's refusal when it comes first; nothing of the
 * functions after it. */
static void test_lower_te_failures_as_serial(void) {
  static const char *const modules[] = {
      /* a lowering fails (dynamic shape) before a refusal and another failure */
      HDR "def @main(%a: Tensor[(2, 4), float32], %d: Tensor[(?, 4), float32]) {\n"
          "  %0 = fn(%x: Tensor[(2, 4), float32], Primitive=1) { nn.relu(%x) };\n"
          "  %1 = fn(%x: Tensor[(2, 4), float32], Primitive=1) { add(%x, %x) };\n"
          "  %2 = fn(%x: Tensor[(?, 4), float32], Primitive=1) { exp(%x) };\n"
          "  %3 = fn(%x: Tensor[(2, 4), float32], Primitive=1, Compiler=\"ext\") { negative(%x) };\n"
          "  %4 = fn(%x: Tensor[(?, 4), float32], Primitive=1) { sqrt(%x) };\n"
          "  (%0(%a), %1(%a), %2(%d), %3(%a), %4(%d))\n}\n",
      /* the refusal comes first */
      HDR "def @main(%a: Tensor[(2, 4), float32], %d: Tensor[(?, 4), float32]) {\n"
          "  %0 = fn(%x: Tensor[(2, 4), float32], Primitive=1) { nn.relu(%x) };\n"
          "  %1 = fn(%x: Tensor[(2, 4), float32], Primitive=1, Compiler=\"ext\") { negative(%x) };\n"
          "  %2 = fn(%x: Tensor[(?, 4), float32], Primitive=1) { exp(%x) };\n"
          "  (%0(%a), %1(%a), %2(%d))\n}\n",
      /* every lowering succeeds; two are the same function (lowered once) */
      HDR "def @main(%a: Tensor[(2, 4), float32], %b: Tensor[(3, 4), float32]) {\n"
          "  %0 = fn(%x: Tensor[(2, 4), float32], Primitive=1) { nn.relu(%x) };\n"
          "  %1 = fn(%x: Tensor[(3, 4), float32], Primitive=1) { add(%x, %x) };\n"
          "  %2 = fn(%x: Tensor[(2, 4), float32], Primitive=1) { nn.relu(%x) };\n"
          "  %3 = fn(%x: Tensor[(3, 4), float32], Primitive=1) { exp(%x) };\n"
          "  (%0(%a), %1(%b), %2(%a), %3(%b))\n}\n",
  };
  static const char *const expected[] = {"LowerTE: lowering the Primitive function @tvmgen_default_fused_exp failed",
                                         "Compiler=\"ext\" needs external codegen", "status 0\n"};
  psg_ctx *ctx = check_ctx();
  for (size_t k = 0; k < sizeof modules / sizeof *modules; k++) {
    psg_module *in = parse(ctx, modules[k]);
    CHECK(in != NULL);
    char *serial = run_text(ctx, in, "LowerTE", NULL, 1, NULL);
    CHECK(strstr(serial, expected[k]) != NULL);
    CHECK(k != 0 || strstr(serial, "sqrt") == NULL);
    for (int threads = 2; threads <= 4; threads += 2) {
      char *threaded = run_text(ctx, in, "LowerTE", NULL, threads, NULL);
      check_same("LowerTE", serial, threaded);
      free(threaded);
    }
    free(serial);
    psg_module_release(in);
  }
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_generated_module_through_o3_and_lowering);
  RUN_TEST(test_prim_func_pass_diagnostics_as_serial);
  RUN_TEST(test_function_pass_diagnostics_as_serial);
  RUN_TEST(test_zero_and_one_function);
  RUN_TEST(test_lower_te_failures_as_serial);
  return check_finish();
}
