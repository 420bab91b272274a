/* The context's span table (src/ir/span_table.c, docs/design.md departure
 * 213): a node's span reads back as it was given; a rebuilt node, and a node
 * built at another node's span, share that node's entry instead of adding
 * one; entries no node holds are reused, so building and dropping graphs in
 * one context does not grow it; out of memory while interning fails cleanly. */
#include "check.h"
#include "ir/ir_internal.h"

static psg_span span_at(const char *file, int line, int col, const char *name) {
  psg_span s = {file, line, col, line, col + 5, name};
  return s;
}

static void test_round_trip(void) {
  psg_ctx *ctx = check_ctx();
  char file[] = "model.relay", name[] = "conv_3";
  psg_span in = span_at(file, 12, 7, name), out;
  psg_expr *x = NULL, *y = NULL;
  CHECK_OK(psg_var_create(ctx, "x", NULL, &in, &x));
  CHECK_OK(psg_var_create(ctx, "y", NULL, NULL, &y));
  file[0] = name[0] = '?'; /* the span was copied: file and name interned */
  psg_expr_span(x, &out);
  CHECK_STR(out.file, "model.relay");
  CHECK_STR(out.name, "conv_3");
  CHECK(out.line == 12 && out.col == 7 && out.end_line == 12 && out.end_col == 12);
  psg_expr_span(y, &out); /* no span: all zero */
  CHECK(!out.file && !out.name && !out.line && !out.col && !out.end_line && !out.end_col);
  CHECK_EQ_INT(y->span, 0);
  psg_expr_release(x);
  psg_expr_release(y);
  CHECK_CTX_CLEAN(ctx);
}

static void test_shared_by_rebuilds(void) {
  psg_ctx *ctx = check_ctx();
  psg_span s1 = span_at("a.relay", 1, 1, NULL), s2 = span_at("a.relay", 2, 1, NULL);
  psg_expr *x = NULL, *y = NULL, *t = NULL, *t2 = NULL, *u = NULL;
  CHECK_OK(psg_var_create(ctx, "x", NULL, &s1, &x));
  CHECK_OK(psg_var_create(ctx, "y", NULL, &s2, &y));
  CHECK_OK(psg_tuple_create(ctx, (psg_expr *[]){x, y}, 2, &s2, &t));
  uint32_t before = psgi_span_table_entries(ctx);
  CHECK_OK(psgi_expr_rebuild(t, (psg_expr *[]){y, x}, &t2)); /* same span, no entry */
  CHECK(t2 && t2->span == t->span);
  CHECK_OK(psg_tuple_create(ctx, (psg_expr *[]){x}, 1, psgi_expr_span_ref(x), &u)); /* at x's span */
  CHECK(u && u->span == x->span);
  CHECK_EQ_INT(psgi_span_table_entries(ctx), before);
  /* The original dies; the rebuild still reads the span. */
  psg_expr_release(t);
  psg_span out;
  psg_expr_span(t2, &out);
  CHECK(out.line == 2 && out.col == 1);
  psg_expr_release(t2);
  psg_expr_release(u);
  psg_expr_release(x);
  psg_expr_release(y);
  CHECK_CTX_CLEAN(ctx);
}

/* Many graphs built and dropped in one context: the table holds at most
 * what is alive at once. */
static void test_entries_reused(void) {
  psg_ctx *ctx = check_ctx();
  enum { N = 5000 };
  static psg_expr *vars[N];
  uint32_t high = 0;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < N; i++) {
      psg_span s = span_at("loop.relay", round * N + i + 1, 3, NULL);
      CHECK_OK(psg_var_create(ctx, "v", NULL, &s, &vars[i]));
    }
    psg_span out;
    psg_expr_span(vars[N - 1], &out);
    CHECK_EQ_INT(out.line, round * N + N);
    if (round == 0) high = psgi_span_table_entries(ctx);
    CHECK_EQ_INT(psgi_span_table_entries(ctx), high);
    for (int i = 0; i < N; i++) psg_expr_release(vars[i]);
  }
  CHECK_EQ_INT(high, N);
  CHECK_CTX_CLEAN(ctx);
}

/* A Function's size hint and a Constructor's tag live after the children
 * (departure 214): the hint follows a rebuild. */
static void test_tail_word(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *p = NULL, *q = NULL, *f = NULL, *g = NULL;
  CHECK_OK(psg_var_create(ctx, "p", NULL, NULL, &p));
  CHECK_OK(psg_var_create(ctx, "q", NULL, NULL, &q));
  CHECK_OK(psg_function_create(ctx, (psg_expr *[]){p}, 1, p, NULL, NULL, NULL, &f));
  CHECK_EQ_INT(psgi_expr_size_hint(f), 0);
  psgi_expr_note_size(f, 1234);
  CHECK_EQ_INT(psgi_expr_size_hint(f), 1234);
  CHECK_OK(psgi_expr_rebuild(f, (psg_expr *[]){q, q}, &g));
  CHECK(g && psg_expr_get_child(g, 0) == q && psg_expr_get_child(g, 1) == q);
  CHECK_EQ_INT(psgi_expr_size_hint(g), 1234);
  psg_expr_release(f);
  psg_expr_release(g);
  psg_expr_release(p);
  psg_expr_release(q);
  CHECK_CTX_CLEAN(ctx);
}

/* Every allocation of the first node with a span (the table, its chunks,
 * the interned file name, the node) failing in turn: a clean error, nothing
 * left alive. */
static void test_out_of_memory(void) {
  for (long fail = 1; fail < 40; fail++) {
    check_alloc a = {0, 0};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    a.fail_at = a.calls + fail;
    psg_span s = span_at("oom.relay", 5, 5, "n");
    psg_expr *x = NULL;
    psg_status st = psg_var_create(ctx, "x", NULL, &s, &x);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    CHECK(st == PSG_OK ? x != NULL : x == NULL);
    if (x) {
      psg_span out;
      psg_expr_span(x, &out);
      CHECK(out.line == 5 && out.file && !strcmp(out.file, "oom.relay"));
    }
    psg_expr_release(x);
    CHECK_CTX_CLEAN(ctx);
  }
}

int main(void) {
  RUN_TEST(test_round_trip);
  RUN_TEST(test_shared_by_rebuilds);
  RUN_TEST(test_entries_reused);
  RUN_TEST(test_tail_word);
  RUN_TEST(test_out_of_memory);
  return check_finish();
}
