/* Passage — tir.LoopPartition (src/tir/transforms/loop_partition.c): loops
 * split where their T.likely conditions are known, each config field's
 * effect, the partition hint, results kept (the TIR interpreter before and
 * after, bytewise, on 400 random loop nests under four configs, every output
 * well formed), idempotence (a second run changes nothing: the likely tags
 * are gone), DeduceBound on its own, and a 10,000-deep nest under a 1 MiB
 * stack. */
#include "tir/arith/int_set.h"
#include "tir/transforms/tir_transforms.h"
#include "tir_equiv.h"
#include "tir_loop_check.h"

static const psgi_tir_loop_partition_cfg DEFAULTS = {false, false, false};

typedef struct counts {
  int loops, ifs, likely;
} counts;
static int count_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  counts *c = v->user;
  c->loops += psg_tir_kind(n) == PSG_TIR_FOR;
  c->ifs += psg_tir_kind(n) == PSG_TIR_IF_THEN_ELSE;
  c->likely += psg_tir_kind(n) == PSG_TIR_CALL && strcmp(psg_tir_call_op(n), "tir.likely") == 0;
  return PSG_VISIT_CONTINUE;
}
static counts count(const psg_tir_node *f) {
  counts c = {0, 0, 0};
  psg_tir_visitor v = {.pre = count_pre, .user = &c};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return c;
}

static psg_tir_prim_func *partition(psg_tir_prim_func *f, psgi_tir_loop_partition_cfg c, const char *label) {
  psg_tir_prim_func *g = NULL;
  if (!f) return NULL;
  CHECK_OK(psgi_tir_loop_partition(TB.ctx, f, &c, &g));
  lc_same(f, g, label);
  return g;
}

static const char SYM[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), n: T.int32):\n"
    "    for i in range(n):\n"
    "        for j in range(4):\n"
    "            if T.likely(i * 4 + j < 14):\n"
    "                B[i * 4 + j] = A[i * 4 + j] + 1\n";

static void test_symbolic_loop(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse(SYM), *g = partition(f, DEFAULTS, "sym");
  counts c = count(g);
  CHECK_EQ_INT(c.loops, 4); /* two nests: i < 3 (condition true), the rest */
  CHECK_EQ_INT(c.likely, 0);
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_SEQ_STMT);
  /* Simplify then removes the decided `if` of the first nest. */
  psg_tir_prim_func *h = eq_run_pass("tir.Simplify", NULL, g, NULL);
  CHECK_EQ_INT(count(h).ifs, 1);
  psg_tir_release(f);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static const char CONST[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((10,), \"int32\"), m: T.int32, n: T.int32):\n"
    "    for i in range(10):\n"
    "        A[i] = T.Select(T.likely(i == 5), m, n)\n";

static void test_config_fields(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse(CONST);
  psg_tir_prim_func *g = partition(f, DEFAULTS, "const default");
  counts c = count(g);
  CHECK_EQ_INT(c.loops, 1); /* constant range: not a candidate */
  CHECK_EQ_INT(c.likely, 0);
  psg_tir_release(g);
  psgi_tir_loop_partition_cfg pcl = {true, false, false};
  g = partition(f, pcl, "partition_const_loop");
  CHECK_EQ_INT(count(g).loops, 2); /* [0, 5), i = 5 inlined, [6, 10) */
  CHECK(g && psg_tir_seq_size(psg_tir_get_body(g)) == 3);
  psg_tir_release(g);
  psgi_tir_loop_partition_cfg keep = {true, true, false};
  g = partition(f, keep, "no_unroll_loop_with_extent_one");
  CHECK_EQ_INT(count(g).loops, 3);
  psg_tir_release(g);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* AttrStmt(i, "pragma_loop_partition_hint", 1) around `for i in
 * range(8)`: every comparison on i counts, not only T.likely ones (the range
 * is constant: with partition_const_loop). mode 0: if i >= 2; mode 1: if
 * 2 <= i and i < 6 (two nested ifs); mode 2: for j in range(4): if
 * 3 <= i * 2 + j, where the part i < 2 has no interval. */
static psg_tir_prim_func *hinted(int mode, bool hint) {
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 16);
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32);
  psg_tir_expr *lo = tb_bin(PSG_TIR_GE, i, tb_i32(2)), *hi = tb_lt(i, tb_i32(6));
  psg_tir_stmt *inner = tb_storep(A, tb_add(i, tb_i32(1)), &i, 1, NULL), *s;
  if (mode == 0) {
    s = tb_for(i, 8, tb_if(lo, inner, NULL));
  } else if (mode == 1) {
    s = tb_for(i, 8, tb_if(lo, tb_if(hi, inner, NULL), NULL));
  } else {
    psg_tir_expr *idx = tb_add(i, j);
    psg_tir_stmt *st = tb_storep(A, tb_add(i, tb_i32(1)), &idx, 1, NULL);
    psg_tir_expr *c = tb_bin(PSG_TIR_LE, tb_i32(3), tb_add(tb_mul(i, tb_i32(2)), j));
    s = tb_for(i, 4, tb_for(j, 4, tb_if(c, st, NULL)));
  }
  if (hint) {
    psg_tir_stmt *a = NULL;
    psg_tir_expr *one = tb_i32(1);
    CHECK_OK(psg_tir_attr_stmt_create(TB.ctx, i, "pragma_loop_partition_hint", one, s, NULL, &a));
    s = tb_keep(PSG_OK, &a);
  }
  return tb_func(&A, 1, NULL, 0, s);
}

static int count_unrolled_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  *(int *)v->user += psg_tir_kind(n) == PSG_TIR_FOR && psg_tir_for_kind(n) == PSG_TIR_FOR_UNROLLED;
  return PSG_VISIT_CONTINUE;
}
static int count_unrolled(const psg_tir_node *f) {
  int c = 0;
  psg_tir_visitor v = {.pre = count_unrolled_pre, .user = &c};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return c;
}

static void test_partition_hint(void) {
  tb_init(check_ctx());
  psgi_tir_loop_partition_cfg pcl = {true, false, false}, unroll = {true, false, true};
  /* hinted() functions belong to the test pool (tb_fini releases them). */
  psg_tir_prim_func *f = hinted(0, true), *g = partition(f, pcl, "hint");
  CHECK_EQ_INT(count(g).loops, 2); /* no likely: the hint alone splits at i = 2 */
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_SEQ_STMT); /* the hint AttrStmt is gone */
  psg_tir_release(g);
  g = partition(f, DEFAULTS, "hint, constant range");
  CHECK_EQ_INT(count(g).loops, 1);
  psg_tir_release(g);
  f = hinted(0, false);
  g = partition(f, pcl, "no hint");
  CHECK_EQ_INT(count(g).loops, 1);
  psg_tir_release(g);
  f = hinted(1, true);
  g = partition(f, pcl, "hint two sides");
  CHECK_EQ_INT(count(g).loops, 3);
  psg_tir_release(g);
  f = hinted(2, true);
  g = partition(f, pcl, "hint, no interval");
  CHECK_EQ_INT(count_unrolled(g), 0);
  psg_tir_release(g);
  g = partition(f, unroll, "unroll_loop_with_partition_hint_no_interval");
  CHECK_EQ_INT(count_unrolled(g), 1); /* i in [0, 2): an unrolled loop */
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* DeduceBound: i * 4 + j < n with j in [0, 3] relaxed: i <= (n - 4) // 4. */
static void test_deduce_bound(void) {
  tb_init(check_ctx());
  psg_arith_analyzer *a = NULL;
  CHECK_OK(psg_arith_analyzer_create(TB.ctx, &a));
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32), *n = tb_var("n", TB_I32);
  psg_tir_expr *cond = tb_lt(tb_add(tb_mul(i, tb_i32(4)), j), n);
  psgi_int_set_dom relax = {j, psgi_int_set_interval(tb_i32(0), tb_i32(3))};
  psgi_int_set s = {0};
  CHECK_OK(psgi_int_set_deduce_bound(a, i, cond, NULL, 0, &relax, 1, &s));
  CHECK(!s.empty && s.min == NULL && s.max != NULL);
  for (int64_t nv = -5; nv <= 20 && s.max; nv++) { /* the bound is the largest i that works for every j */
    psg_tir_expr *at = NULL, *v = NULL;
    CHECK_OK(psgi_tir_substitute(TB.ctx, s.max, n, tb_i32(nv), &at));
    CHECK_OK(psg_arith_simplify(a, at, &v));
    CHECK(v && psg_tir_kind(v) == PSG_TIR_INT_IMM);
    int64_t b = v ? psg_tir_int_imm_value(v) : 0, want = nv - 4 >= 0 ? (nv - 4) / 4 : -((-(nv - 4) + 3) / 4);
    CHECK_EQ_INT(b, want);
    psg_tir_release(at);
    psg_tir_release(v);
  }
  psgi_int_set_release(&s);
  /* Twice the var, or an unknown sign: nothing. */
  psg_tir_expr *twice = tb_lt(tb_add(i, i), n), *sign = tb_lt(tb_mul(i, n), tb_i32(8));
  CHECK_OK(psgi_int_set_deduce_bound(a, i, twice, NULL, 0, NULL, 0, &s));
  CHECK(s.empty);
  CHECK_OK(psgi_int_set_deduce_bound(a, i, sign, NULL, 0, NULL, 0, &s));
  CHECK(s.empty);
  psgi_int_set_release(&relax.set);
  psg_arith_analyzer_destroy(a);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Random nests of likely conditions ------------------------------------------ */

static char *random_text(uint64_t seed) {
  lc_gen g = {0};
  g.seed = seed * 2654435761u + 5;
  g.cap = 1024;
  g.s = malloc(g.cap);
  g.s[0] = 0;
  static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
  static const char *const ext[] = {"n", "4", "3", "n + 1", "6"};
  lc_put(&g, "@T.prim_func\ndef main(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), n: T.int32):\n");
  int nests = 1 + lc_pick(&g, 2);
  for (int k = 0; k < nests; k++) {
    const char *ei = ext[lc_pick(&g, 5)], *ej = ext[lc_pick(&g, 5)];
    int jmin = lc_pick(&g, 3) == 0 ? 1 : 0;
    lc_put(&g, "    for i in range(%s):\n", ei);
    lc_put(&g, "        for j in range(%d, %s):\n", jmin, ej);
    int a = (int[]){1, 2, 3, -1, -2}[lc_pick(&g, 5)], b = (int[]){0, 1, -1, 2}[lc_pick(&g, 4)];
    char lhs[64], rhs[32];
    if (lc_pick(&g, 4) == 0) snprintf(lhs, sizeof lhs, "i // 2 * %d + j * %d", a, b);
    else snprintf(lhs, sizeof lhs, "i * %d + j * %d", a, b);
    int r = lc_pick(&g, 3);
    if (r == 0) snprintf(rhs, sizeof rhs, "%d", lc_pick(&g, 11) - 2);
    else if (r == 1) snprintf(rhs, sizeof rhs, "n");
    else snprintf(rhs, sizeof rhs, "n - %d", lc_pick(&g, 4));
    const char *op = ops[lc_pick(&g, 6)];
    if (lc_pick(&g, 3) == 0) {
      lc_put(&g, "            B[(i * 7 + j) %% 64] = T.Select(T.likely(%s %s %s), A[(i + j) %% 64], i - j)\n", lhs, op,
             rhs);
    } else {
      lc_put(&g, "            if T.likely(%s %s %s):\n", lhs, op, rhs);
      lc_put(&g, "                B[(i * 7 + j) %% 64] = A[(i * 3 + j) %% 64] + i\n");
      if (lc_pick(&g, 2)) {
        lc_put(&g, "            else:\n");
        lc_put(&g, "                B[(i * 7 + j + 1) %% 64] = j - 1\n");
      }
    }
  }
  return g.s;
}

static void test_random_nests(void) {
  tb_init(check_ctx());
  const psgi_tir_loop_partition_cfg cfgs[] = {
      DEFAULTS, {true, false, false}, {true, true, false}, {false, true, true}};
  int split = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    char *text = random_text(seed);
    psg_tir_prim_func *f = lc_parse(text);
    int before = f ? count(f).loops : 0;
    for (size_t k = 0; f && k < sizeof cfgs / sizeof *cfgs; k++) {
      char label[64];
      snprintf(label, sizeof label, "seed %llu config %zu", (unsigned long long)seed, k);
      psg_tir_prim_func *g = partition(f, cfgs[k], label);
      counts c = count(g);
      CHECK_EQ_INT(c.likely, 0);
      split += c.loops > before;
      /* Idempotent: with the likely tags gone, a second run changes nothing. */
      psg_tir_prim_func *h = NULL;
      CHECK_OK(psgi_tir_loop_partition(TB.ctx, g, &cfgs[k], &h));
      CHECK(h == g);
      psg_tir_release(h);
      psg_tir_release(g);
    }
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  fprintf(stderr, "  %d of 1600 partitioned\n", split);
  CHECK(split > 400);
  CHECK_CTX_CLEAN(TB.ctx);
}

/* The registered pass reads tir.LoopPartition from the PassContext. */
static void test_pass_reads_config(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse(CONST);
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_pass_context_set_config_text(pc, "tir.LoopPartition={partition_const_loop=true}"));
  CHECK_OK(psg_pass_context_enter(pc));
  psg_tir_prim_func *g = eq_run_pass("tir.LoopPartition", NULL, f, NULL);
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK_EQ_INT(count(g).loops, 2);
  g = eq_run_pass("tir.LoopPartition", NULL, f, NULL); /* outside the context: defaults */
  CHECK_EQ_INT(count(g).loops, 1);
  psg_pass_context_release(pc);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A 10,000-deep nest of extent-1 loops whose innermost store sits under
 * T.likely(v0 + v_last < 1), partitioned with partition_const_loop. */
enum { NEST = 10000 };
static void *deep_nest(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = eq_deep_nest_func(NEST);
  if (!f) return NULL;
  /* Wrap the innermost store: find it by walking the nest. */
  psg_tir_stmt *loops[NEST];
  psg_tir_stmt *s = psg_tir_get_body(f);
  int depth = 0;
  while (psg_tir_kind(s) == PSG_TIR_FOR && depth < NEST) loops[depth++] = s, s = psg_tir_get_body(s);
  psg_tir_expr *v0 = psg_tir_get_var(loops[0]), *vl = psg_tir_get_var(loops[depth - 1]);
  psg_tir_expr *c = tb_lt(tb_add(v0, vl), tb_i32(1));
  psg_tir_stmt *body = tb_if(tb_call(psg_tir_dtype_bool(), "tir.likely", &c, 1), s, NULL);
  for (int k = depth; k-- > 0;) body = tb_for(psg_tir_get_var(loops[k]), 1, body);
  psg_tir_buffer *A = psg_tir_prim_func_get_param_buffer(f, psg_tir_prim_func_get_param(f, 0));
  psg_tir_prim_func *f2 = tb_func(&A, 1, NULL, 0, body);
  psgi_tir_loop_partition_cfg pcl = {true, false, false};
  psg_tir_prim_func *g = NULL;
  CHECK_OK(psgi_tir_loop_partition(TB.ctx, f2, &pcl, &g));
  tb_keep(PSG_OK, &g);
  CHECK_EQ_INT(count(g).likely, 0);
  eq_check_same(f2, g, 1, 1, 29);
  return NULL;
}

static void test_deep_loop_nest(void) { eq_small_stack(deep_nest); }

int main(void) {
  RUN_TEST(test_symbolic_loop);
  RUN_TEST(test_config_fields);
  RUN_TEST(test_partition_hint);
  RUN_TEST(test_deduce_bound);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_pass_reads_config);
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_deep_loop_nest);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
