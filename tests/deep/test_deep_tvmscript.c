/* Deep-IR test of TVMScript (issue 15), run with `ulimit -s 1024`: a
 * 1,000,000-statement SeqStmt, a 1,000,000-let chain, a 1,000,000-node
 * expression chain and a 10,000-deep loop nest parse and print back to the
 * same text; a 1,000,000-deep right-nested expression built in memory
 * prints, and parsing it stops at the nesting limit with a located error. */
#include <stdlib.h>
#include <string.h>
#include "../unit/check.h"
#include "deep_size.h"
#include "passage/tvmscript.h"

enum { N = PASSAGE_DEEP_N, NEST = 10000 };

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) exit(1);
  }
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

static const char *header = "# from tvm.script import tir as T\n\n@T.prim_func\n"
                            "def main(A: T.Buffer((16,), \"int32\"), n: T.int32):\n";

/* Parses `src`, prints it, and checks the text comes back byte for byte. */
static void round_trip(const char *src, size_t len) {
  psg_ctx *ctx = check_ctx();
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_parse(ctx, src, len, "deep.py", &s));
  char *out = NULL;
  size_t out_len = 0;
  if (s) CHECK_OK(psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, &out_len));
  CHECK(out && out_len == len && memcmp(out, src, len) == 0);
  psg_free(out);
  psg_tir_script_release(s);
  CHECK_CTX_CLEAN(ctx);
}

static void test_long_seq(void) {
  text t = {0};
  char line[64];
  put(&t, header);
  for (int i = 0; i < N; i++) {
    snprintf(line, sizeof line, "    A[%d] = %d\n", i % 16, i);
    put(&t, line);
  }
  round_trip(t.s, t.len);
  free(t.s);
}

static void test_let_chain(void) {
  text t = {0};
  char line[64];
  put(&t, header);
  put(&t, "    x0: T.int32 = n\n");
  for (int i = 1; i < N; i++) {
    snprintf(line, sizeof line, "    x%d: T.int32 = x%d + 1\n", i, i - 1);
    put(&t, line);
  }
  snprintf(line, sizeof line, "    A[0] = x%d\n", N - 1);
  put(&t, line);
  round_trip(t.s, t.len);
  free(t.s);
}

static void test_expr_chain(void) {
  text t = {0};
  put(&t, header);
  put(&t, "    A[0] = n");
  for (int i = 1; i < N; i++) put(&t, " + n");
  put(&t, "\n");
  round_trip(t.s, t.len);
  free(t.s);
}

/* Each extent uses the outer loop's var, so nothing folds into T.grid. */
static void test_loop_nest(void) {
  text t = {0};
  char line[64];
  put(&t, header);
  for (int i = 0; i < NEST; i++) {
    for (int k = 0; k <= i; k++) put(&t, "    ");
    if (i) snprintf(line, sizeof line, "for i%d in range(i%d + 1):\n", i, i - 1);
    else snprintf(line, sizeof line, "for i0 in range(n):\n");
    put(&t, line);
  }
  for (int k = 0; k <= NEST; k++) put(&t, "    ");
  put(&t, "A[0] = 1\n");
  round_trip(t.s, t.len);
  free(t.s);
}

static void test_built_nested_expr(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *cur, *shape, *buf, *store, *f, *param;
  CHECK_OK(psg_tir_var_create(ctx, "n", psg_tir_dtype_int32(), NULL, NULL, &n));
  cur = n;
  psg_tir_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_tir_expr *next;
    CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_ADD, n, cur, NULL, &next));
    psg_tir_release(cur);
    cur = next;
  }
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), 1, NULL, &shape));
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", psg_tir_dtype_int32(), &shape, 1, NULL, NULL, &buf));
  psg_tir_expr *zero;
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), 0, NULL, &zero));
  CHECK_OK(psg_tir_buffer_store_create(ctx, buf, cur, &zero, 1, NULL, NULL, &store));
  CHECK_OK(psg_tir_var_create(ctx, "A", psg_tir_dtype_handle(), NULL, NULL, &param));
  psg_tir_expr *params[2] = {param, n};
  size_t map = 0;
  CHECK_OK(psg_tir_prim_func_create(ctx, params, 2, store, NULL, &map, &buf, 1, NULL, NULL, &f));
  char *out = NULL;
  size_t len = 0;
  CHECK_OK(psg_tir_script_print_func(f, "main", PSG_TIR_SCRIPT_DEFAULT, &out, &len));
  /* n + (n + (n + ...)): N opening parentheses minus one */
  size_t opens = 0;
  for (size_t i = 0; i < len; i++) opens += out[i] == '(';
  CHECK(opens >= (size_t)N - 1);
  psg_tir_script *s = NULL;
  CHECK_EQ_INT(psg_tir_script_parse(ctx, out, len, "nested.py", &s), PSG_ERR_PARSE);
  CHECK(s == NULL);
  CHECK(psg_ctx_diag_count(ctx) >= 1);
  const char *msg = psg_ctx_diag_count(ctx) ? psg_diag_message(psg_ctx_get_diag(ctx, 0)) : "";
  CHECK(strstr(msg, "nested too deeply") != NULL);
  psg_ctx_clear_diags(ctx);
  psg_free(out);
  psg_tir_release(cur);
  psg_tir_release(n);
  psg_tir_release(zero);
  psg_tir_release(shape);
  psg_tir_release(buf);
  psg_tir_release(store);
  psg_tir_release(param);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_long_seq);
  RUN_TEST(test_let_chain);
  RUN_TEST(test_expr_chain);
  RUN_TEST(test_loop_nest);
  RUN_TEST(test_built_nested_expr);
  return check_finish();
}
