/* Passage — tir.UnrollLoop (src/tir/transforms/unroll_loop.c): what each
 * config field and pragma changes, that results are kept (the TIR
 * interpreter before and after, bytewise, on hand-written cases and on 300
 * random loop nests under eight configs), that every output passes
 * verify_well_formed, and that the pass reads tir.UnrollLoop from the
 * PassContext. */
#include "tir/transforms/tir_transforms.h"
#include "tir_loop_check.h"

static const psgi_tir_unroll_cfg DEFAULTS = {0, 8, 0, true, false};

/* Loops of each kind in f. */
typedef struct loops {
  int all, unrolled;
} loops;
static int count_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  loops *c = v->user;
  if (psg_tir_kind(n) == PSG_TIR_FOR) {
    c->all++;
    c->unrolled += psg_tir_for_kind(n) == PSG_TIR_FOR_UNROLLED;
  }
  return PSG_VISIT_CONTINUE;
}
static loops count_loops(const psg_tir_node *f) {
  loops c = {0, 0};
  psg_tir_visitor v = {.pre = count_pre, .user = &c};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return c;
}

/* UnrollLoop of `text` under cfg: checked against the input, returned. */
static psg_tir_prim_func *unroll_text(const char *text, psgi_tir_unroll_cfg cfg, const char *label) {
  psg_tir_prim_func *f = lc_parse(text), *g = NULL;
  if (!f) return NULL;
  CHECK_OK(psgi_tir_unroll_loop(TB.ctx, f, &cfg, &g));
  lc_same(f, g, label);
  psg_tir_release(f);
  return g;
}

static const char NEST[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64,), \"int32\"), n: T.int32):\n"
    "    for i in range(4):\n"
    "        for j in range(3):\n"
    "            A[i * 3 + j] = A[i * 3 + j] + i * j + n\n";

static void test_auto_max_step(void) {
  tb_init(check_ctx());
  psgi_tir_unroll_cfg c = DEFAULTS;
  psg_tir_prim_func *g = unroll_text(NEST, c, "default");
  CHECK_EQ_INT(count_loops(g).all, 2); /* auto_max_step 0: nothing unrolled */
  psg_tir_release(g);
  c.auto_max_step = 3; /* j: 3 steps fit; i: 4 * 3 do not */
  g = unroll_text(NEST, c, "step 3");
  CHECK_EQ_INT(count_loops(g).all, 1);
  psg_tir_release(g);
  c.auto_max_step = 12; /* both */
  g = unroll_text(NEST, c, "step 12");
  CHECK_EQ_INT(count_loops(g).all, 0);
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_SEQ_STMT && psg_tir_seq_size(psg_tir_get_body(g)) == 12);
  psg_tir_release(g);
  c.auto_max_step = 11;
  g = unroll_text(NEST, c, "step 11");
  CHECK_EQ_INT(count_loops(g).all, 1);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_auto_max_extent_and_depth(void) {
  tb_init(check_ctx());
  psgi_tir_unroll_cfg c = DEFAULTS;
  c.auto_max_extent = 3; /* j (extent 3) by extent; i has a kept loop? no: j unrolled, i has extent 4 > 3 */
  psg_tir_prim_func *g = unroll_text(NEST, c, "extent 3");
  CHECK_EQ_INT(count_loops(g).all, 1);
  psg_tir_release(g);
  c.auto_max_extent = 4;
  g = unroll_text(NEST, c, "extent 4");
  CHECK_EQ_INT(count_loops(g).all, 0);
  psg_tir_release(g);
  c.auto_max_depth = 0; /* the outer loop sees unroll_depth 1 > 0 */
  g = unroll_text(NEST, c, "extent 4 depth 0");
  CHECK_EQ_INT(count_loops(g).all, 1);
  psg_tir_release(g);
  /* auto_max_extent == 1: loops of extent 1 go whatever their kind */
  static const char ONE[] =
      "@T.prim_func\n"
      "def main(A: T.Buffer((8,), \"int32\")):\n"
      "    for i in T.parallel(1):\n"
      "        A[i] = 7\n"
      "        for j in range(8):\n"
      "            A[j] = A[j] + 1\n";
  c = DEFAULTS;
  c.auto_max_extent = 1;
  c.explicit_unroll = false;
  g = unroll_text(ONE, c, "extent one");
  CHECK_EQ_INT(count_loops(g).all, 1);
  CHECK(g && psg_tir_kind(psg_tir_seq_get(psg_tir_get_body(g), 0)) == PSG_TIR_BUFFER_STORE);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_explicit_unroll_and_kind(void) {
  tb_init(check_ctx());
  static const char KIND[] =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16,), \"int32\"), n: T.int32):\n"
      "    for i in range(n, n + 2):\n"
      "        for j in T.unroll(8):\n"
      "            A[j + 1] = A[i % 16] + 1\n";
  psgi_tir_unroll_cfg c = DEFAULTS;
  psg_tir_prim_func *g = unroll_text(KIND, c, "kind unrolled");
  loops l = count_loops(g);
  CHECK_EQ_INT(l.all, 1);
  CHECK_EQ_INT(l.unrolled, 0);
  psg_tir_release(g);
  c.explicit_unroll = false; /* kept as the pragma */
  g = unroll_text(KIND, c, "not explicit");
  l = count_loops(g);
  CHECK_EQ_INT(l.all, 2);
  CHECK_EQ_INT(l.unrolled, 1);
  psg_tir_release(g);
  c.auto_max_step = 16; /* the outer loop too: marked unrolled */
  g = unroll_text(KIND, c, "not explicit, step 16");
  l = count_loops(g);
  CHECK_EQ_INT(l.unrolled, 2);
  psg_tir_release(g);
  c.explicit_unroll = true;
  c.auto_max_step = 15;
  g = unroll_text(KIND, c, "step 15");
  CHECK_EQ_INT(count_loops(g).all, 1);
  psg_tir_release(g);
  /* a loop of kind unrolled needs a constant extent */
  psg_tir_prim_func *f = lc_parse("@T.prim_func\ndef main(A: T.Buffer((16,), \"int32\"), n: T.int32):\n"
                                  "    for i in T.unroll(n):\n        A[i] = 1\n");
  g = NULL;
  CHECK_EQ_INT(psgi_tir_unroll_loop(TB.ctx, f, &DEFAULTS, &g), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("not a constant"));
  CHECK(g == NULL);
  psg_ctx_clear_diags(TB.ctx);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_pragmas(void) {
  tb_init(check_ctx());
  static const char PRAGMA[] =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16,), \"int32\")):\n"
      "    with T.attr(None, \"pragma_auto_unroll_max_step\", 16):\n"
      "        for i in range(4):\n"
      "            A[i] = A[i] + 1\n"
      "    for i in range(4):\n"
      "        A[i + 4] = 2\n"
      "    with T.attr(None, \"pragma_unroll_explicit\", 0):\n"
      "        for i in T.unroll(2):\n"
      "            A[i + 8] = 3\n";
  psg_tir_prim_func *g = unroll_text(PRAGMA, DEFAULTS, "pragmas");
  loops l = count_loops(g);
  CHECK_EQ_INT(l.all, 2); /* the first unrolled, the second kept, the third marked */
  CHECK_EQ_INT(l.unrolled, 1);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_unroll_local_access(void) {
  tb_init(check_ctx());
  static const char LOCAL[] =
      "@T.prim_func\n"
      "def main(B: T.Buffer((4,), \"float32\")):\n"
      "    A_data = T.allocate([4], \"float32\", \"local\")\n"
      "    A_local = T.Buffer((4,), data=A_data, scope=\"local\")\n"
      "    for i in range(4):\n"
      "        A_local[i] = T.Cast(\"float32\", i)\n"
      "    for i in range(4):\n"
      "        B[i] = A_local[3 - i] + B[i]\n";
  psgi_tir_unroll_cfg c = DEFAULTS;
  psg_tir_prim_func *g = unroll_text(LOCAL, c, "local off");
  CHECK_EQ_INT(count_loops(g).all, 2);
  psg_tir_release(g);
  c.unroll_local_access = true; /* both loops index the local buffer */
  g = unroll_text(LOCAL, c, "local on");
  CHECK_EQ_INT(count_loops(g).all, 0);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* The copies of an unrolled body define their vars once each. */
static void test_ssa_after_unroll(void) {
  tb_init(check_ctx());
  static const char INNER[] =
      "@T.prim_func\n"
      "def main(A: T.Buffer((16,), \"int32\")):\n"
      "    for i in T.unroll(3):\n"
      "        for j in range(4):\n"
      "            x = A[j] + i\n"
      "            A[j + 4] = x\n";
  psg_tir_prim_func *g = unroll_text(INNER, DEFAULTS, "ssa");
  CHECK_EQ_INT(count_loops(g).all, 3);
  if (g) CHECK(psg_tir_get_var(psg_tir_seq_get(psg_tir_get_body(g), 0)) !=
               psg_tir_get_var(psg_tir_seq_get(psg_tir_get_body(g), 1)));
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_random_nests(void) {
  tb_init(check_ctx());
  static const char *const kinds[] = {"range", "T.serial", "T.unroll"};
  const psgi_tir_unroll_cfg cfgs[] = {
      DEFAULTS,         {8, 8, 0, true, false}, {64, 8, 0, true, false}, {64, 1, 0, true, false},
      {0, 8, 2, true, false}, {0, 8, 1, false, false}, {16, 8, 4, false, false}, {1000, 0, 3, true, true},
  };
  int changed = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    char *text = lc_random_func(seed, kinds, 3);
    psg_tir_prim_func *f = lc_parse(text);
    for (size_t k = 0; f && k < sizeof cfgs / sizeof *cfgs; k++) {
      psg_tir_prim_func *g = NULL;
      CHECK_OK(psgi_tir_unroll_loop(TB.ctx, f, &cfgs[k], &g));
      char label[64];
      snprintf(label, sizeof label, "seed %llu config %zu", (unsigned long long)seed, k);
      if (!lc_same(f, g, label)) fprintf(stderr, "%s\n", text);
      changed += g != f;
      psg_tir_release(g);
    }
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  CHECK(changed > 1000); /* most configs change most nests */
  CHECK_CTX_CLEAN(TB.ctx);
}

/* The registered pass reads the config from the PassContext. */
static void test_pass_reads_config(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse(NEST);
  psg_module *m = NULL, *m1 = NULL, *out = NULL;
  psg_expr *gv = NULL;
  CHECK_OK(psg_module_create(TB.ctx, &m));
  CHECK_OK(psg_global_var_create(TB.ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m, gv, f, &m1));
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_get(TB.ctx, "tir.UnrollLoop", NULL, &p));
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_pass_context_set_config_text(pc, "tir.UnrollLoop={auto_max_step=12}"));
  CHECK_OK(psg_pass_context_enter(pc));
  CHECK_OK(psg_pass_run(p, m1, NULL, &out));
  CHECK_OK(psg_pass_context_exit(pc));
  psg_tir_prim_func *g = out ? psg_module_lookup_prim_func(out, "main") : NULL;
  CHECK_EQ_INT(count_loops(g).all, 0);
  if (g) lc_same(f, g, "through the pass");
  psg_module_release(out);
  out = NULL;
  CHECK_OK(psg_pass_run(p, m1, NULL, &out)); /* outside the context: defaults */
  g = out ? psg_module_lookup_prim_func(out, "main") : NULL;
  CHECK_EQ_INT(count_loops(g).all, 2);
  psg_module_release(out);
  psg_pass_context_release(pc);
  psg_pass_release(p);
  psg_expr_release(gv);
  psg_module_release(m);
  psg_module_release(m1);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_auto_max_step);
  RUN_TEST(test_auto_max_extent_and_depth);
  RUN_TEST(test_explicit_unroll_and_kind);
  RUN_TEST(test_pragmas);
  RUN_TEST(test_unroll_local_access);
  RUN_TEST(test_ssa_after_unroll);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_pass_reads_config);
  return check_finish();
}
