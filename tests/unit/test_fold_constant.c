/* FoldConstant and the evaluator it shares with the interpreter (issue 5):
 * out-of-memory while typing operands is PSG_ERR_NOMEM (only a real closure
 * is "a function, not a tensor"); a failing evaluation is a warning, not an
 * error; shared constant subgraphs are evaluated once (one constant node for
 * all uses); functions without anything to fold come back as the very same
 * nodes (no copies); folding survives out-of-memory at every allocation. */
#include "ops_check.h"

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "t.relay", &m));
  return m;
}

static psg_module *fold(psg_ctx *ctx, psg_module *m) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(ctx, "FoldConstant", NULL, &p));
  if (p) CHECK_OK(psg_pass_run(p, m, NULL, &out));
  psg_pass_release(p);
  return out;
}

/* psgi_eval_op on add(x, x) with allocation n failing: OK or NOMEM, never
 * the "is a function" type error that an interning failure used to give. */
static void test_eval_op_oom(void) {
  bool done = false;
  for (long n = 1; n < 200 && !done; n++) {
    check_alloc al = {0, 0};
    psg_ctx *c = check_ctx_with(&al);
    if (!c) continue;
    psg_tensor *t = NULL;
    psgi_value *v = NULL, *out = NULL;
    float x[3] = {1, 2, 3};
    CHECK_OK(psg_tensor_create(c, PSG_DTYPE_FLOAT32, (const int64_t[]){3}, 1, x, &t));
    CHECK_OK(psgi_value_tensor(c, t, &v));
    al.fail_at = al.calls + n; /* from here on: the evaluation only */
    char msg[512] = "";
    psgi_value *args[2] = {v, v};
    psg_status st = psgi_eval_op(c, op_id("add"), NULL, args, 2, &out, msg, sizeof msg);
    if (st == PSG_OK) {
      done = true;
      CHECK_EQ_INT(((const float *)psg_tensor_data(psgi_value_as_tensor(out)))[2], 6);
    } else {
      CHECK_EQ_INT(st, PSG_ERR_NOMEM);
      CHECK(strstr(msg, "function") == NULL);
      CHECK(out == NULL);
    }
    psgi_value_release(out);
    psgi_value_release(v);
    psg_tensor_release(t);
    CHECK_CTX_CLEAN(c);
  }
  CHECK(done);
}

/* A closure operand (alone or in a tuple) is a type error naming it. */
static void test_eval_op_closure(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) { %x }\n");
  psgi_value *clo = psgi_calloc(ctx, sizeof *clo), *tup = NULL, *out = NULL;
  clo->refcount = 1;
  clo->kind = PSGI_VALUE_CLOSURE;
  clo->ctx = ctx;
  clo->u.closure.fn = (psg_expr *)psg_module_lookup(m, "main");
  psg_expr_retain(clo->u.closure.fn);
  CHECK_OK(psgi_value_tuple(ctx, &clo, 1, &tup));
  char msg[512] = "";
  psgi_value *args[2] = {clo, clo};
  CHECK_EQ_INT(psgi_eval_op(ctx, op_id("add"), NULL, args, 2, &out, msg, sizeof msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "argument 0 of 'add' is a function, not a tensor");
  args[0] = tup;
  CHECK_EQ_INT(psgi_eval_op(ctx, op_id("copy"), NULL, args, 1, &out, msg, sizeof msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "argument 0 of 'copy' is a function");
  psgi_value_release(tup);
  psgi_value_release(clo);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Integer division by zero: the call stays, a warning says why, the pass
 * succeeds and folds the rest. */
static void test_failing_evaluation(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, "#[version = \"0.0.5\"]\n"
                             "def @main(%x: int32) {\n"
                             "  %0 = divide(7, 0);\n"
                             "  (add(%x, %0), add(%x, multiply(2, 3)))\n"
                             "}\n");
  psg_module *out = fold(ctx, m);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 1);
  if (psg_ctx_diag_count(ctx) == 1) {
    const psg_diag *d = psg_ctx_get_diag(ctx, 0);
    CHECK_EQ_INT(psg_diag_severity(d), PSG_SEVERITY_WARNING);
    CHECK_STR(psg_diag_message(d), "in @main, %0 = divide(...) not folded: divide: integer division by zero");
  }
  char *text = NULL;
  if (out) CHECK_OK(psg_module_print(out, PSG_PRINT_DEFAULT, &text, NULL));
  if (text) {
    CHECK(strstr(text, "%0 = divide(7, 0);") != NULL);
    CHECK(strstr(text, "add(%x, 6)") != NULL);
  }
  psg_free(text);
  psg_module_release(out);
  psg_module_release(m);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* tvm-behavior §8.1: a constant subgraph used many times is evaluated once:
 * every use gets the same constant node; and functions with nothing to fold
 * are not copied (the output holds the input's very nodes). */
static void test_once_and_shared(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, "#[version = \"0.0.5\"]\n"
                             "def @other(%y: float32) { add(%y, %y) }\n"
                             "def @main(%x: float32) {\n"
                             "  %0 = multiply(add(1f, 2f), 4f);\n"
                             "  (add(%x, %0), subtract(%x, %0), multiply(%x, %0))\n"
                             "}\n");
  psg_module *out = fold(ctx, m);
  CHECK(out != NULL);
  if (out) {
    const psg_expr *body = psg_function_get_body(psg_module_lookup(out, "main"));
    const psg_expr *c0 = psg_call_get_arg(psg_tuple_get_field(body, 0), 1);
    CHECK_EQ_INT(psg_expr_kind(c0), PSG_EXPR_CONSTANT);
    for (size_t i = 1; i < 3; i++) CHECK(psg_call_get_arg(psg_tuple_get_field(body, i), 1) == c0);
    CHECK_EQ_INT(*(const float *)psg_tensor_data(psg_constant_get_tensor(c0)), 12);
    /* @other keeps its nodes; the trailing InferType wrote its return type in. */
    CHECK(psg_function_get_body(psg_module_lookup(out, "other")) == psg_function_get_body(psg_module_lookup(m, "other")));
    CHECK(psg_function_get_param(psg_module_lookup(out, "other"), 0) ==
          psg_function_get_param(psg_module_lookup(m, "other"), 0));
  }
  /* Nothing to fold at all: the same functions back. */
  psg_module *again = out ? fold(ctx, out) : NULL;
  if (again) {
    CHECK(psg_module_lookup(again, "main") == psg_module_lookup(out, "main"));
    CHECK(psg_module_lookup(again, "other") == psg_module_lookup(out, "other"));
  }
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 0);
  psg_module_release(again);
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Out of memory at every allocation of a FoldConstant run: PSG_ERR_NOMEM,
 * nothing leaked, the input intact; eventually the run succeeds. */
static void test_fold_oom(void) {
  static const char *const text = "#[version = \"0.0.5\"]\n"
                                  "def @main(%x: Tensor[(3), float32]) {\n"
                                  "  let %c = add(1f, 2f);\n"
                                  "  %0 = (%x, add(%c, 1f));\n"
                                  "  %1 = shape_of(%x);\n"
                                  "  (add(%0.0, multiply(%0.1, 2f)), %1, divide(1, 0))\n"
                                  "}\n";
  bool done = false;
  for (long n = 1; n < 5000 && !done; n++) {
    check_alloc al = {0, 0};
    psg_ctx *c = check_ctx_with(&al);
    if (!c) continue;
    psg_module *m = NULL, *out = NULL;
    psg_pass *p = NULL;
    CHECK_OK(psg_module_parse(c, text, strlen(text), "t.relay", &m));
    CHECK_OK(psg_pass_get(c, "FoldConstant", NULL, &p));
    al.fail_at = al.calls + n;
    psg_status st = p && m ? psg_pass_run(p, m, NULL, &out) : PSG_ERR_INTERNAL;
    if (st == PSG_OK) done = true;
    else CHECK(st == PSG_ERR_NOMEM);
    if (st && st != PSG_ERR_NOMEM) {
      fprintf(stderr, "  allocation %ld: %s\n", n, psg_status_str(st));
      for (size_t i = 0; i < psg_ctx_diag_count(c); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(c, i)), stderr);
    }
    if (st) CHECK(out == NULL);
    psg_module_release(out);
    psg_module_release(m);
    psg_pass_release(p);
    CHECK_CTX_CLEAN(c);
  }
  CHECK(done);
}

int main(void) {
  RUN_TEST(test_eval_op_oom);
  RUN_TEST(test_eval_op_closure);
  RUN_TEST(test_failing_evaluation);
  RUN_TEST(test_once_and_shared);
  RUN_TEST(test_fold_oom);
  return check_finish();
}
