/* TVMScript environment (include/passage/tvmscript_env.h): names a text
 * reads from outside, as passage.script hands over a decorated function's
 * closure: literals in every position a literal may take (shape, dtype
 * string, loop extent, keyword argument), aliases of T.<op>, nodes that
 * stay the very objects given, the argument checks, and out of memory at
 * every allocation of building an environment and parsing with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "passage/tvmscript_env.h"

static const char *literal_text =
    "@T.prim_func\n"
    "def main(A: T.Buffer((n,), dt), B: T.Buffer((2,), dtype=small)):\n"
    "    for i in range(n):\n"
    "        if flag:\n"
    "            A[i] = T.Cast(dt, op(i, neg)) * s + T.float32(s)\n"
    "    B[0] = T.call_extern(small, tag, n)\n";

static const char *literal_printed =
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((2,), \"int8\")):\n"
    "    for i in range(8):\n"
    "        if T.bool(True):\n"
    "            A[i] = T.Cast(\"float32\", T.max(i, -3)) * T.float32(2.5) + T.float32(2.5)\n"
    "    B[0] = T.call_extern(\"int8\", \"x\\\"y\", 8)\n";

static psg_status fill_literals(psg_tir_script_env *env) {
  psg_status st;
  if ((st = psg_tir_script_env_add_int(env, "n", 8)) || (st = psg_tir_script_env_add_int(env, "neg", -3)) ||
      (st = psg_tir_script_env_add_float(env, "s", 2.5)) || (st = psg_tir_script_env_add_bool(env, "flag", true)) ||
      (st = psg_tir_script_env_add_string(env, "dt", "float32")) ||
      (st = psg_tir_script_env_add_string(env, "small", "int8")) ||
      (st = psg_tir_script_env_add_string(env, "tag", "x\"y")) ||
      (st = psg_tir_script_env_add_alias(env, "op", "Max")))
    return st;
  return PSG_OK;
}

static void test_literals(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_script_env *env = NULL;
  CHECK_OK(psg_tir_script_env_create(ctx, &env));
  CHECK_OK(fill_literals(env));
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_parse_env(ctx, literal_text, strlen(literal_text), "lit.py", env, &s));
  if (s) {
    char *out = NULL;
    CHECK_OK(psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, NULL));
    if (out) CHECK_STR(out, literal_printed);
    psg_free(out);
  }
  psg_tir_script_release(s);
  /* the same text without the environment: the first free name is an error */
  s = NULL;
  CHECK_EQ_INT(psg_tir_script_parse(ctx, literal_text, strlen(literal_text), "lit.py", &s), PSG_ERR_PARSE);
  CHECK(psg_ctx_get_last_error(ctx) && strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "undefined name"));
  psg_tir_script_env_release(env);
  CHECK_CTX_CLEAN(ctx);
}

/* A Var and a Buffer given by the environment are the nodes in the result. */
static void test_nodes(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *w = NULL, *four = NULL;
  psg_tir_buffer *B = NULL;
  CHECK_OK(psg_tir_var_create(ctx, "w", psg_tir_dtype_float32(), NULL, NULL, &w));
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), 4, NULL, &four));
  CHECK_OK(psg_tir_buffer_decl(ctx, "B", psg_tir_dtype_float32(), &four, 1, NULL, NULL, &B));
  psg_tir_script_env *env = NULL;
  CHECK_OK(psg_tir_script_env_create(ctx, &env));
  CHECK_OK(psg_tir_script_env_add_expr(env, "w", w));
  CHECK_OK(psg_tir_script_env_add_buffer(env, "B", B));
  /* wrong kinds and bad names are argument errors */
  CHECK_EQ_INT(psg_tir_script_env_add_expr(env, "x", B), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_script_env_add_buffer(env, "x", w), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_script_env_add_int(env, "1x", 1), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_script_env_add_int(env, "a.b", 1), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_script_env_add_alias(env, "op", "T.Add"), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_script_env_add_float(env, "x", NAN), PSG_ERR_UNSUPPORTED);
  CHECK_EQ_INT(psg_tir_script_env_add_string(env, "x", NULL), PSG_ERR_INVALID_ARGUMENT);
  const char *text = "@T.prim_func\n"
                     "def main(A: T.Buffer((4,), \"float32\")):\n"
                     "    for i in range(4):\n"
                     "        B[i] = A[i] + w\n";
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_parse_env(ctx, text, strlen(text), "n.py", env, &s));
  psg_tir_script_env_release(env); /* the result holds its own references */
  if (s) {
    psg_tir_prim_func *f = psg_tir_script_get(s, 0);
    psg_tir_stmt *loop = psg_tir_get_body(f);
    psg_tir_stmt *store = psg_tir_get_body(loop);
    CHECK(psg_tir_get_buffer(store) == B);
    psg_tir_expr *add = psg_tir_buffer_store_get_value(store);
    CHECK(psg_tir_get_b(add) == w);
  }
  psg_tir_script_release(s);
  /* a name the text binds itself is its own, not the environment's */
  CHECK_OK(psg_tir_script_env_create(ctx, &env));
  CHECK_OK(psg_tir_script_env_add_int(env, "i", 99));
  CHECK_OK(psg_tir_script_env_add_expr(env, "A", w));
  const char *shadow = "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n"
                       "        A[i] = T.float32(0)\n";
  s = NULL;
  /* 'i' is a literal name of the environment, so `for i in` reads `for 99 in`: an error */
  CHECK_EQ_INT(psg_tir_script_parse_env(ctx, shadow, strlen(shadow), "s.py", env, &s), PSG_ERR_PARSE);
  /* the peek for `name=` inside brackets leaves a bad token after the name
   * to be reported when it is read */
  const char *bad = "@T.prim_func\ndef main():\n    T.evaluate(i \"oops\n";
  s = NULL;
  CHECK_EQ_INT(psg_tir_script_parse_env(ctx, bad, strlen(bad), "b.py", env, &s), PSG_ERR_PARSE);
  bool unterminated = false;
  for (size_t k = 0; k < psg_ctx_diag_count(ctx); k++)
    if (strstr(psg_diag_message(psg_ctx_get_diag(ctx, k)), "unterminated string")) unterminated = true;
  CHECK(unterminated);
  psg_tir_script_env_release(env);
  psg_tir_release(w);
  psg_tir_release(four);
  psg_tir_release(B);
  CHECK_CTX_CLEAN(ctx);
}

/* Out of memory at every allocation of filling an environment and parsing
 * with it: a clean status, nothing left alive. */
static void test_oom(void) {
  long calls = 0;
  {
    check_alloc a = {0, 0};
    psg_ctx *ctx = check_ctx_with(&a);
    long before = a.calls;
    psg_tir_script_env *env = NULL;
    psg_tir_script *s = NULL;
    CHECK_OK(psg_tir_script_env_create(ctx, &env));
    CHECK_OK(fill_literals(env));
    CHECK_OK(psg_tir_script_parse_env(ctx, literal_text, strlen(literal_text), "lit.py", env, &s));
    psg_tir_script_release(s);
    psg_tir_script_env_release(env);
    calls = a.calls - before;
    CHECK_CTX_CLEAN(ctx);
  }
  for (long k = 1; k <= calls + 20; k++) {
    check_alloc a = {0, 0};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    a.fail_at = a.calls + k;
    psg_tir_script_env *env = NULL;
    psg_tir_script *s = NULL;
    psg_status st = psg_tir_script_env_create(ctx, &env);
    if (!st) st = fill_literals(env);
    if (!st) st = psg_tir_script_parse_env(ctx, literal_text, strlen(literal_text), "lit.py", env, &s);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    psg_tir_script_release(s);
    psg_tir_script_env_release(env);
    CHECK_CTX_CLEAN(ctx);
  }
}

int main(void) {
  RUN_TEST(test_literals);
  RUN_TEST(test_nodes);
  RUN_TEST(test_oom);
  return check_finish();
}
