/* Passage — tir.HoistIfThenElse (src/tir/transforms/hoist_if_then_else.c):
 * where the insertion step puts each condition (above the loops it does not
 * use, below a SeqStmt, not for memory reads or let vars), results kept (the
 * TIR interpreter before and after, bytewise, on 400 random loop nests with
 * and without support_block_scope_hosting, every output well formed), a
 * second run (idempotent but where Simplify shortened a hoisted condition),
 * and a 10,000-deep nest under a 1 MiB stack. */
#include "tir/transforms/tir_transforms.h"
#include "tir_equiv.h"
#include "tir_loop_check.h"

/* The kind of the node directly under the body's first statement chain:
 * how deep the first `if` sits (loops above it). */
static int loops_above_first_if(const psg_tir_node *f) {
  const psg_tir_node *s = psg_tir_get_body(f);
  int depth = 0;
  while (s && psg_tir_kind(s) == PSG_TIR_FOR) depth++, s = psg_tir_get_body(s);
  return s && psg_tir_kind(s) == PSG_TIR_IF_THEN_ELSE ? depth : -1;
}

static psg_tir_prim_func *insert(const char *text, bool block) {
  psg_tir_prim_func *f = lc_parse(text), *g = NULL;
  if (!f) return NULL;
  CHECK_OK(psgi_tir_hoist_if_then_else_insert(TB.ctx, f, block, &g));
  lc_same(f, g, "insertion");
  psg_tir_release(f);
  return g;
}

static void test_destination(void) {
  tb_init(check_ctx());
  static const char *const cases[][2] = {
      /* condition, loops above it after insertion */
      {"n > 2", "0"},  {"i < 3", "1"}, {"j < 3", "2"}, {"i + k < 3", "3"},
      {"A[0] > 2", "-1"}, /* reads memory: not hoisted; the first if stays under all loops */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char text[512];
    snprintf(text, sizeof text,
             "@T.prim_func\n"
             "def main(A: T.Buffer((64,), \"int32\"), n: T.int32):\n"
             "    for i in range(4):\n"
             "        for j in range(4):\n"
             "            for k in range(4):\n"
             "                if %s:\n"
             "                    A[i * 16 + j * 4 + k] = i + j + k\n",
             cases[c][0]);
    psg_tir_prim_func *g = insert(text, false);
    int want = atoi(cases[c][1]);
    int got = loops_above_first_if(g);
    if (want < 0) CHECK(got == -1 || got == 3);
    else CHECK_EQ_INT(got, want);
    psg_tir_release(g);
  }
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A SeqStmt in a loop keeps the ifs met after it inside that loop. */
static void test_sequence_blocks(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *g = insert("@T.prim_func\n"
                                "def main(A: T.Buffer((64,), \"int32\"), n: T.int32):\n"
                                "    for i in range(4):\n"
                                "        A[i] = 0\n"
                                "        if n > 2:\n"
                                "            A[i] = 1\n",
                                false);
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_FOR);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Random nests ----------------------------------------------------------------- */

static char *random_text(uint64_t seed) {
  lc_gen g = {0};
  g.seed = seed * 2654435761u + 11;
  g.cap = 1024;
  g.s = malloc(g.cap);
  g.s[0] = 0;
  static const char *const conds[] = {"n > 3", "i < 2", "j >= 1", "i + j < 3", "n - i > 2", "A[3] > 0",
                                      "j * 2 < n", "i != 1", "k < 2", "n < 5 and i < 3"};
  static const char *const ext[] = {"3", "n", "4", "2"};
  lc_put(&g, "@T.prim_func\ndef main(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), n: T.int32):\n");
  int nests = 1 + lc_pick(&g, 2);
  for (int s = 0; s < nests; s++) {
    int depth = 2 + lc_pick(&g, 2);
    static const char *const names[] = {"i", "j", "k"};
    char pad[32] = "    ";
    for (int d = 0; d < depth; d++) {
      lc_put(&g, "%sfor %s in range(%s):\n", pad, names[d], ext[lc_pick(&g, 4)]);
      strcat(pad, "    ");
      if (d + 1 < depth && lc_pick(&g, 4) == 0) lc_put(&g, "%sB[%s] = B[%s] + 1\n", pad, names[d], names[d]);
    }
    int nif = 1 + lc_pick(&g, 2);
    for (int k = 0; k < nif; k++) {
      const char *c = conds[lc_pick(&g, depth == 3 ? 10 : 8)];
      lc_put(&g, "%sif %s:\n", pad, c);
      lc_put(&g, "%s    B[(i * 9 + j * 3%s) %% 64] = B[(i * 9 + j * 3%s) %% 64] * 2 + %d\n", pad,
             depth == 3 ? " + k" : "", depth == 3 ? " + k" : "", lc_pick(&g, 7) - 3);
      if (lc_pick(&g, 2)) {
        lc_put(&g, "%selse:\n", pad);
        lc_put(&g, "%s    B[(i + j) %% 64] = B[(i + j) %% 64] - %d\n", pad, 1 + lc_pick(&g, 3));
      }
    }
  }
  return g.s;
}

static void test_random_nests(void) {
  tb_init(check_ctx());
  int hoisted = 0, idempotent = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    char *text = random_text(seed);
    psg_tir_prim_func *f = lc_parse(text);
    for (int block = 0; f && block < 2; block++) {
      char label[64];
      snprintf(label, sizeof label, "seed %llu block %d", (unsigned long long)seed, block);
      psg_tir_prim_func *g = NULL, *h = NULL;
      CHECK_OK(psgi_tir_hoist_if_then_else_insert(TB.ctx, f, block, &g));
      hoisted += g != f;
      lc_same(f, g, label);
      psg_tir_release(g);
      /* The whole pass (insertion, Simplify, RemoveNoOp), twice. TVM's pass is
       * not idempotent in general: Simplify may shorten a hoisted condition
       * (`n < 5 and i < 3` under i < 2 is `n < 5`), which a second run then
       * hoists further; the second run must still keep results. */
      g = eq_run_pass("tir.HoistIfThenElse", NULL, f, NULL);
      lc_same(f, g, label);
      h = g ? eq_run_pass("tir.HoistIfThenElse", NULL, g, NULL) : NULL;
      lc_same(f, h, label);
      idempotent += g && h && psg_tir_structural_equal(g, h);
    }
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  fprintf(stderr, "  %d of 800 insertions changed the function; %d of 800 second runs changed nothing\n", hoisted,
          idempotent);
  CHECK(hoisted > 300);
  CHECK(idempotent >= 780);
  CHECK_CTX_CLEAN(TB.ctx);
}

/* The registered pass reads tir.HoistIfThenElse from the PassContext. */
static void test_pass_reads_config(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 16);
  psg_tir_expr *i = tb_var("i", TB_I32), *tx = tb_var("tx", TB_I32);
  psg_tir_stmt *body = tb_for(i, 4, tb_if(tb_lt(tx, tb_i32(2)), tb_storep(A, tx, &i, 1, NULL), NULL));
  psg_tir_stmt *attr = NULL;
  CHECK_OK(psg_tir_attr_stmt_create(TB.ctx, tx, "pragma_scope", tb_i32(1), body, NULL, &attr));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, tb_keep(PSG_OK, &attr));
  psg_tir_prim_func *g = eq_run_pass("tir.HoistIfThenElse", NULL, f, NULL);
  CHECK(g && psg_tir_kind(psg_tir_get_body(psg_tir_get_body(g))) == PSG_TIR_FOR); /* not hoisted */
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_pass_context_set_config_text(pc, "tir.HoistIfThenElse={support_block_scope_hosting=true}"));
  CHECK_OK(psg_pass_context_enter(pc));
  g = eq_run_pass("tir.HoistIfThenElse", NULL, f, NULL);
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK(g && psg_tir_kind(psg_tir_get_body(psg_tir_get_body(g))) == PSG_TIR_IF_THEN_ELSE);
  psg_pass_context_release(pc);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A 10,000-deep nest with an invariant `if n > 0` at the bottom: hoisted
 * above all of it. */
enum { NEST = 10000 };
static void *deep_nest(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = eq_deep_nest_func(NEST);
  if (!f) return NULL;
  static psg_tir_stmt *loops[NEST];
  psg_tir_stmt *s = psg_tir_get_body(f);
  int depth = 0;
  while (psg_tir_kind(s) == PSG_TIR_FOR && depth < NEST) loops[depth++] = s, s = psg_tir_get_body(s);
  psg_tir_expr *n = tb_var("n", TB_I32);
  psg_tir_stmt *body = tb_if(tb_bin(PSG_TIR_GT, n, tb_i32(0)), s, NULL);
  for (int k = depth; k-- > 0;) body = tb_for(psg_tir_get_var(loops[k]), 1, body);
  psg_tir_buffer *A = psg_tir_prim_func_get_param_buffer(f, psg_tir_prim_func_get_param(f, 0));
  psg_tir_prim_func *f2 = tb_func(&A, 1, &n, 1, body);
  psg_tir_prim_func *g = NULL;
  CHECK_OK(psgi_tir_hoist_if_then_else_insert(TB.ctx, f2, false, &g));
  tb_keep(PSG_OK, &g);
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_IF_THEN_ELSE);
  eq_check_same(f2, g, 1, 1, 31);
  psg_tir_prim_func *h = eq_run_pass("tir.HoistIfThenElse", NULL, f2, NULL);
  eq_check_same(f2, h, 1, 1, 37);
  return NULL;
}

static void test_deep_loop_nest(void) { eq_small_stack(deep_nest); }

int main(void) {
  RUN_TEST(test_destination);
  RUN_TEST(test_sequence_blocks);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_pass_reads_config);
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_deep_loop_nest);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
