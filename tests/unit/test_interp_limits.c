/* The resource limits of issue 14 through the C API: the interpreter's call
 * depth and memory budget, read from the current PassContext, and
 * FoldConstant's largest constant, read from the pass's context. */
#include "pass_check.h"

/* Counts %n down to 0, adding 1 to %acc on each call: n + 1 nested calls. */
#define COUNT_DOWN                                                            \
  HDR "def @count(%n: int32, %acc: " T ") -> " T " {\n"                       \
      "  if (greater(%n, 0)) {\n"                                             \
      "    @count(subtract(%n, 1), add(%acc, 1f))\n"                          \
      "  } else {\n"                                                          \
      "    %acc\n"                                                            \
      "  }\n"                                                                 \
      "}\n"                                                                   \
      "def @main(%x: " T ", %n: int32) -> " T " { @count(%n, %x) }\n"

static psg_pass_context *context_with(psg_ctx *ctx, const char *key, int64_t value) {
  psg_pass_context *pc = NULL;
  psg_attr *a = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_attr_int(ctx, value, &a));
  CHECK_OK(psg_pass_context_set_config(pc, key, a));
  psg_attr_release(a);
  return pc;
}

/* Runs @main of m on zeros(2) and n; the status, and out[0] of the result
 * when there is one. */
static psg_status count_down(psg_ctx *ctx, psg_module *m, int32_t n, float *out) {
  int64_t two = 2;
  psg_tensor *in[2] = {NULL, NULL}, **res = NULL;
  size_t nres = 0;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, &two, 1, NULL, &in[0]));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_INT32, NULL, 0, &n, &in[1]));
  psg_status st = psg_eval(ctx, m, "main", in, 2, &res, &nres);
  if (!st && nres == 1) *out = ((const float *)psg_tensor_data(res[0]))[0];
  for (size_t i = 0; i < nres; i++) psg_tensor_release(res[i]);
  psg_free(res);
  psg_tensor_release(in[0]);
  psg_tensor_release(in[1]);
  return st;
}

static const char *last_message(psg_ctx *ctx) {
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  return d ? psg_diag_message(d) : "";
}

/* The default limit (1000 activations) with no context entered: 998 nested
 * calls of @count below @main fit exactly, 999 do not. */
static void test_default_depth(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, COUNT_DOWN);
  float r = 0;
  CHECK_OK(count_down(ctx, m, 998, &r));
  CHECK(r == 998.0f);
  CHECK_EQ_INT(count_down(ctx, m, 999, &r), PSG_ERR_UNSUPPORTED);
  CHECK_STR(last_message(ctx), "recursion limit 1000 exceeded in @count (relay.interp.max_call_depth)");
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK_EQ_INT(psg_diag_line(d), 4);
  CHECK_EQ_INT(psg_diag_col(d), 5);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Deep recursion is bounded by the option, not by the C stack: 100000
 * nested calls run when the limit allows them. */
static void test_deep_recursion_within_a_raised_limit(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, COUNT_DOWN);
  psg_pass_context *pc = context_with(ctx, "relay.interp.max_call_depth", 100002);
  CHECK_OK(psg_pass_context_enter(pc));
  float r = 0;
  CHECK_OK(count_down(ctx, m, 100000, &r));
  CHECK(r == 100000.0f);
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_small_depth(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, COUNT_DOWN);
  psg_pass_context *pc = context_with(ctx, "relay.interp.max_call_depth", 10);
  CHECK_OK(psg_pass_context_enter(pc));
  float r = 0;
  CHECK_OK(count_down(ctx, m, 8, &r));
  CHECK_EQ_INT(count_down(ctx, m, 9, &r), PSG_ERR_UNSUPPORTED);
  CHECK_STR(last_message(ctx), "recursion limit 10 exceeded in @count (relay.interp.max_call_depth)");
  CHECK_OK(psg_pass_context_exit(pc));
  /* Outside the scope the default holds again. */
  CHECK_OK(count_down(ctx, m, 9, &r));
  psg_pass_context_release(pc);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* A local function and @main calling each other: activations alternate
 * @main, %f, @main, ...; the 12th, a call of %f, is over a limit of 11. */
static void test_local_function_recursion(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") -> " T " {\n"
                                 "  let %f = fn (%y: " T ") -> " T " { @main(%y) };\n"
                                 "  %f(%x)\n"
                                 "}\n");
  CHECK(m != NULL);
  psg_pass_context *pc = context_with(ctx, "relay.interp.max_call_depth", 11);
  CHECK_OK(psg_pass_context_enter(pc));
  int64_t two = 2;
  psg_tensor *in = NULL, **res = NULL;
  size_t nres = 0;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, &two, 1, NULL, &in));
  CHECK_EQ_INT(psg_eval(ctx, m, "main", &in, 1, &res, &nres), PSG_ERR_UNSUPPORTED);
  CHECK_STR(last_message(ctx), "recursion limit 11 exceeded in a local function of @main "
                               "(relay.interp.max_call_depth)");
  CHECK(res == NULL && nres == 0);
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  psg_tensor_release(in);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Each level of @count makes a bool (1 byte), an int32 (4) and a float32[2]
 * (8): 13 bytes a call, cumulative. */
static void test_memory_budget(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, COUNT_DOWN);
  psg_pass_context *pc = context_with(ctx, "passage.interp.max_bytes", 13 * 5 + 1);
  CHECK_OK(psg_pass_context_enter(pc));
  float r = 0;
  CHECK_OK(count_down(ctx, m, 5, &r)); /* 5 levels of 13 bytes, then the last `greater`: 66 */
  CHECK_EQ_INT(count_down(ctx, m, 6, &r), PSG_ERR_UNSUPPORTED);
  CHECK_STR(last_message(ctx), "subtract: the result, int32 of shape (), needs 4 bytes, but only 0 of the 66 bytes "
                               "of passage.interp.max_bytes are left");
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* FoldConstant keeps a call whose result is over passage.max_constant_bytes
 * and folds the one under it. */
static void test_fold_limit(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main() {\n"
                                 "  (full(1f, shape=[256], dtype=\"float32\"), full(1f, shape=[255], dtype=\"float32\"))\n"
                                 "}\n");
  psg_module *typed = run(ctx, "InferType", NULL, m);
  psg_pass_context *pc = context_with(ctx, "passage.max_constant_bytes", 1020);
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(ctx, "FoldConstant", NULL, &p));
  CHECK_OK(psg_pass_run(p, typed, pc, &out));
  const psg_expr *body = psg_function_get_body(psg_module_lookup(out, "main"));
  CHECK_EQ_INT(psg_expr_kind(psg_tuple_get_field(body, 0)), PSG_EXPR_CALL);
  CHECK_EQ_INT(psg_expr_kind(psg_tuple_get_field(body, 1)), PSG_EXPR_CONSTANT);
  bool warned = false;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    warned |= psg_diag_severity(d) == PSG_SEVERITY_WARNING &&
              strstr(psg_diag_message(d), "full(...) not folded: the result, float32 of shape (256), needs 1024 "
                                          "bytes, over the limit of 1020 bytes (passage.max_constant_bytes)");
  }
  CHECK(warned);
  psg_module_release(out);
  psg_pass_release(p);
  psg_pass_context_release(pc);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_default_depth);
  RUN_TEST(test_deep_recursion_within_a_raised_limit);
  RUN_TEST(test_small_depth);
  RUN_TEST(test_local_function_recursion);
  RUN_TEST(test_memory_budget);
  RUN_TEST(test_fold_limit);
  return check_finish();
}
