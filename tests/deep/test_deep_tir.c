/* Deep TIR (STYLE rule 9, issue 15 "Deep IR"), run with `ulimit -s 1024`:
 * a 1,000,000-statement SeqStmt, a 1,000,000-node expression chain and a
 * 10,000-deep loop nest are built, visited, mutated, hashed, compared (with
 * an independently built copy and a one-leaf variant), verified and freed
 * without overflowing a 1 MiB stack. */
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N, DEPTH = 10000, MAGIC = 1234567 };

static psg_tir_dtype I32, F32;

static psg_tir_expr *i32(psg_ctx *ctx, int64_t v) {
  psg_tir_expr *e = NULL;
  CHECK_OK(psg_tir_int_imm_create(ctx, I32, v, NULL, &e));
  return e;
}

/* A PrimFunc main(a: handle, x: int32) with A = match_buffer(a, (16,)). */
static psg_tir_prim_func *wrap(psg_ctx *ctx, psg_tir_expr *a, psg_tir_expr *x, psg_tir_buffer *A, psg_tir_stmt *body) {
  psg_tir_prim_func *f = NULL;
  CHECK_OK(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){a, x}, 2, body, NULL, (size_t[]){0}, &A, 1, NULL, NULL, &f));
  return f;
}

typedef struct fixture {
  psg_tir_expr *a, *x;
  psg_tir_buffer *A;
} fixture;

static fixture make_fixture(psg_ctx *ctx) {
  fixture fx;
  psg_tir_expr *s16 = i32(ctx, 16);
  CHECK_OK(psg_tir_var_create(ctx, "a", psg_tir_dtype_handle(), NULL, NULL, &fx.a));
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &fx.x));
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", F32, &s16, 1, NULL, NULL, &fx.A));
  psg_tir_release(s16);
  return fx;
}

static void drop_fixture(fixture *fx) {
  psg_tir_release(fx->a);
  psg_tir_release(fx->x);
  psg_tir_release(fx->A);
}

static psg_status count_post(psg_tir_visitor *v, const psg_tir_node *n) {
  (void)n;
  (*(long *)v->user)++;
  return PSG_OK;
}

/* Rewrites IntImm MAGIC into MAGIC + 1 (present once, at the far end of
 * each body). */
static psg_status bump_seven(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  if (psg_tir_int_imm_value(n) != MAGIC || psg_tir_dtype_of(n) != I32) {
    psg_tir_retain((psg_tir_node *)n);
    *out = (psg_tir_node *)n;
    return PSG_OK;
  }
  return psg_tir_int_imm_create(m->ctx, I32, MAGIC + 1, NULL, out);
}

/* The checks every shape gets: f equals g (built apart), differs from the
 * one-leaf rewrite, hashes alike, verifies, and is visited fully. */
static void exercise(psg_ctx *ctx, psg_tir_prim_func *f, psg_tir_prim_func *g, long min_nodes, const char *diff_tail) {
  CHECK(psg_tir_structural_equal(f, g));
  CHECK(psg_tir_structural_equal(f, f));
  CHECK_EQ_INT(psg_tir_structural_hash(f), psg_tir_structural_hash(g));
  CHECK_OK(psg_tir_verify_well_formed(f));
  long count = 0;
  psg_tir_visitor v = {NULL, count_post, &count};
  CHECK_OK(psg_tir_visit(ctx, &v, f));
  CHECK(count >= min_nodes);
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.visit[PSG_TIR_INT_IMM] = bump_seven;
  psg_tir_prim_func *h = NULL;
  CHECK_OK(psg_tir_mutate(&m, f, &h));
  psg_tir_mutator_fini(&m);
  CHECK(h && h != f);
  char *path = NULL;
  CHECK(!psg_tir_structural_equal_explain(f, h, &path));
  CHECK(path && strstr(path, diff_tail));
  if (path && !strstr(path, diff_tail)) fprintf(stderr, "  path: %.200s\n", path);
  psg_free(path);
  CHECK(psg_tir_structural_hash(f) != psg_tir_structural_hash(h));
  psg_tir_release(h);
}

/* body: SeqStmt of N - 1 stores A[k % 16] = float32(k % 1000), then
 * Evaluate(MAGIC). */
static psg_tir_prim_func *seq_func(psg_ctx *ctx, fixture *fx) {
  psg_tir_stmt **stmts = malloc((size_t)N * sizeof *stmts);
  psg_tir_expr *idx[16], *val[1000];
  for (int k = 0; k < 16; k++) idx[k] = i32(ctx, k);
  for (int k = 0; k < 1000; k++) CHECK_OK(psg_tir_float_imm_create(ctx, F32, k, NULL, &val[k]));
  for (int k = 0; k < N - 1; k++)
    CHECK_OK(psg_tir_buffer_store_create(ctx, fx->A, val[k % 1000], &idx[k % 16], 1, NULL, NULL, &stmts[k]));
  psg_tir_expr *seven = i32(ctx, MAGIC);
  CHECK_OK(psg_tir_evaluate_create(ctx, seven, NULL, &stmts[N - 1]));
  psg_tir_stmt *seq = NULL;
  CHECK_OK(psg_tir_seq_stmt_create(ctx, stmts, N, NULL, &seq));
  for (int k = 0; k < N; k++) psg_tir_release(stmts[k]);
  for (int k = 0; k < 16; k++) psg_tir_release(idx[k]);
  for (int k = 0; k < 1000; k++) psg_tir_release(val[k]);
  psg_tir_release(seven);
  free(stmts);
  psg_tir_prim_func *f = wrap(ctx, fx->a, fx->x, fx->A, seq);
  psg_tir_release(seq);
  return f;
}

static void test_seq(void) {
  psg_ctx *ctx = check_ctx();
  fixture f1 = make_fixture(ctx), f2 = make_fixture(ctx);
  psg_tir_prim_func *f = seq_func(ctx, &f1), *g = seq_func(ctx, &f2);
  char tail[128];
  snprintf(tail, sizeof tail, "body.seq[%d].value: IntImm values differ (1234567 vs 1234568)", N - 1);
  exercise(ctx, f, g, N, tail);
  psg_tir_release(f);
  psg_tir_release(g);
  drop_fixture(&f1);
  drop_fixture(&f2);
  CHECK_CTX_CLEAN(ctx);
}

/* body: Evaluate(((x + 1) + 1) ... + MAGIC), N Adds deep. */
static psg_tir_prim_func *chain_func(psg_ctx *ctx, fixture *fx) {
  psg_tir_expr *one = i32(ctx, 1), *seven = i32(ctx, MAGIC), *cur = fx->x;
  psg_tir_retain(cur);
  for (int k = 0; k < N; k++) {
    psg_tir_expr *next = NULL;
    CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_ADD, cur, k == N - 1 ? seven : one, NULL, &next));
    psg_tir_release(cur);
    cur = next;
  }
  psg_tir_stmt *ev = NULL;
  CHECK_OK(psg_tir_evaluate_create(ctx, cur, NULL, &ev));
  psg_tir_release(cur);
  psg_tir_release(one);
  psg_tir_release(seven);
  psg_tir_prim_func *f = wrap(ctx, fx->a, fx->x, fx->A, ev);
  psg_tir_release(ev);
  return f;
}

static void test_chain(void) {
  psg_ctx *ctx = check_ctx();
  fixture f1 = make_fixture(ctx), f2 = make_fixture(ctx);
  psg_tir_prim_func *f = chain_func(ctx, &f1), *g = chain_func(ctx, &f2);
  exercise(ctx, f, g, N, "body.value.b: IntImm values differ (1234567 vs 1234568)");
  psg_tir_release(f);
  psg_tir_release(g);
  drop_fixture(&f1);
  drop_fixture(&f2);
  CHECK_CTX_CLEAN(ctx);
}

/* body: DEPTH nested loops over 2; the innermost stores
 * A[MAGIC + (i - i)] = A[MAGIC + (i - i)] + 1.0 over the innermost var (an
 * out-of-range index: this IR is never run, only walked). */
static psg_tir_prim_func *nest_func(psg_ctx *ctx, fixture *fx) {
  psg_tir_expr **vars = malloc(DEPTH * sizeof *vars);
  for (int k = 0; k < DEPTH; k++) CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &vars[k]));
  psg_tir_expr *seven = i32(ctx, MAGIC), *zero = i32(ctx, 0), *two = i32(ctx, 2), *onef = NULL, *ld = NULL, *sum = NULL;
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, 1.0, NULL, &onef));
    psg_tir_expr *d = NULL, *idx = NULL;
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_SUB, vars[DEPTH - 1], vars[DEPTH - 1], NULL, &d));
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_ADD, seven, d, NULL, &idx));
  CHECK_OK(psg_tir_buffer_load_create(ctx, fx->A, &idx, 1, NULL, NULL, &ld));
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_ADD, ld, onef, NULL, &sum));
  psg_tir_stmt *cur = NULL;
  CHECK_OK(psg_tir_buffer_store_create(ctx, fx->A, sum, &idx, 1, NULL, NULL, &cur));
  for (int k = DEPTH; k-- > 0;) {
    psg_tir_stmt *loop = NULL;
    CHECK_OK(psg_tir_for_create(ctx, vars[k], zero, two, PSG_TIR_FOR_SERIAL, cur, NULL, NULL, &loop));
    psg_tir_release(cur);
    cur = loop;
  }
  psg_tir_node *tmp[] = {seven, zero, two, onef, ld, sum, d, idx};
  for (size_t k = 0; k < sizeof tmp / sizeof *tmp; k++) psg_tir_release(tmp[k]);
  for (int k = 0; k < DEPTH; k++) psg_tir_release(vars[k]);
  free(vars);
  psg_tir_prim_func *f = wrap(ctx, fx->a, fx->x, fx->A, cur);
  psg_tir_release(cur);
  return f;
}

static void test_nest(void) {
  psg_ctx *ctx = check_ctx();
  fixture f1 = make_fixture(ctx), f2 = make_fixture(ctx);
  psg_tir_prim_func *f = nest_func(ctx, &f1), *g = nest_func(ctx, &f2);
  exercise(ctx, f, g, DEPTH, "indices[0].a: IntImm values differ (1234567 vs 1234568)");
  psg_tir_release(f);
  psg_tir_release(g);
  drop_fixture(&f1);
  drop_fixture(&f2);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  I32 = psg_tir_dtype_int32();
  F32 = psg_tir_dtype_float32();
  RUN_TEST(test_seq);
  RUN_TEST(test_chain);
  RUN_TEST(test_nest);
  return check_finish();
}
