/* Deep-graph test of the text format (issue 2, STYLE rule 9), run with
 * `ulimit -s 1024`: 1,000,000-node chains (bindings, lets, tuple
 * projections) are parsed, printed back to the same text, re-parsed,
 * hashed, compared, mutated and released without overflowing the stack. */
#include <stdlib.h>
#include <string.h>
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N };

/* Appends printf-style text to a growing buffer (test helper). */
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

/* The canonical text of a chain of N bindings of kind `kind`:
 *   0: %i = add(%i-1, %x);           (a dataflow chain: the graph is N deep)
 *   1: let %vi = add(%vi-1, 1f);     (a let chain: the body is N deep)
 *   2: %2i = (%2i-1, %x); %2i+1 = %2i.0;  (tuples and projections) */
static char *chain_text(int kind, size_t *len) {
  text t = {0};
  char line[96];
  put(&t, "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n");
  for (int i = 0; i < N; i++) {
    if (kind == 0) {
      snprintf(line, sizeof line, "  %%%d = add(", i);
      put(&t, line);
      if (i) snprintf(line, sizeof line, "%%%d, %%x);\n", i - 1);
      else snprintf(line, sizeof line, "%%x, %%x);\n");
    } else if (kind == 1) {
      if (i) snprintf(line, sizeof line, "  let %%v%d = add(%%v%d, 1f);\n", i, i - 1);
      else snprintf(line, sizeof line, "  let %%v0 = add(%%x, 1f);\n");
    } else if (i % 2 == 0) {
      if (i) snprintf(line, sizeof line, "  %%%d = (%%%d, %%x);\n", i, i - 1);
      else snprintf(line, sizeof line, "  %%0 = (%%x, %%x);\n");
    } else {
      snprintf(line, sizeof line, "  %%%d = %%%d.0;\n", i, i - 1);
    }
    put(&t, line);
  }
  if (kind == 1) snprintf(line, sizeof line, "  %%v%d\n}\n", N - 1);
  else snprintf(line, sizeof line, "  add(%%%d, %%x)\n}\n", N - 1);
  put(&t, line);
  *len = t.len;
  return t.s;
}

static void test_chain(int kind) {
  psg_ctx *ctx = check_ctx();
  size_t len;
  char *src = chain_text(kind, &len);
  psg_module *m = NULL, *m2 = NULL;
  CHECK_OK(psg_module_parse(ctx, src, len, "chain.relay", &m));
  char *out = NULL;
  size_t out_len = 0;
  CHECK_OK(psg_module_print(m, PSG_PRINT_DEFAULT, &out, &out_len));
  /* The input is canonical: printing gives it back byte for byte. */
  CHECK(out_len == len && memcmp(out, src, len) == 0);
  CHECK_OK(psg_module_parse(ctx, out, out_len, "printed.relay", &m2));
  CHECK(psg_module_structural_equal(m, m2, NULL));
  CHECK(psg_module_structural_hash(m) == psg_module_structural_hash(m2));
  /* An identity mutation over the whole chain shares every node. */
  psg_expr *fn = psg_module_get_function(m, 0), *same = NULL;
  psg_mutator mu;
  psg_mutator_init(&mu, ctx);
  CHECK_OK(psg_mutate(&mu, fn, &same));
  CHECK(same == fn);
  psg_mutator_fini(&mu);
  psg_expr_release(same);
  psg_free(out);
  free(src);
  psg_module_release(m);
  psg_module_release(m2);
  CHECK_CTX_CLEAN(ctx);
}

static void test_binding_chain(void) { test_chain(0); }
static void test_let_chain(void) { test_chain(1); }
static void test_tuple_chain(void) { test_chain(2); }

/* A 1,000,000-node chain built in memory (not from text) prints to a
 * 1,000,001-line body that parses back to an equal module. */
static void test_built_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x, *mul, *cur;
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "multiply", &mul));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next;
    CHECK_OK(psg_call_create(ctx, mul, (psg_expr *[]){x, cur}, 2, NULL, NULL, &next));
    psg_expr_release(cur);
    cur = next;
  }
  psg_expr *fn, *gv;
  psg_module *m0, *m, *m2 = NULL;
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, gv, fn, &m));
  char *out = NULL;
  size_t len = 0;
  CHECK_OK(psg_module_print(m, PSG_PRINT_DEFAULT, &out, &len));
  size_t lines = 0;
  for (size_t i = 0; i < len; i++) lines += out[i] == '\n';
  CHECK_EQ_INT(lines, N + 3); /* header, def line, N-1 temps + result, '}' */
  CHECK_OK(psg_module_parse(ctx, out, len, "built.relay", &m2));
  CHECK(psg_module_structural_equal(m, m2, NULL));
  psg_free(out);
  psg_expr_release(cur);
  psg_expr_release(x);
  psg_expr_release(fn);
  psg_expr_release(gv);
  psg_module_release(m0);
  psg_module_release(m);
  psg_module_release(m2);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_binding_chain);
  RUN_TEST(test_let_chain);
  RUN_TEST(test_tuple_chain);
  RUN_TEST(test_built_chain);
  return check_finish();
}
