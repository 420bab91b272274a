/* Passage — the rewrite walk's fast paths (src/tir/arith/simplify_expr.c,
 * docs/design.md 222) give what the walk without them gives: leaves and
 * inert kinds kept without the rules, and the canonical walk's FIXED_RW
 * results found by the rewrite walk after it. Each check runs the same work
 * twice, once with psgi_arith_exhaustive set (every node through the rules,
 * nothing noted) and once without, and compares the printed results:
 *   - tir.Simplify (defaults, and with each of its options on) and
 *     tir.default_pipeline over the TVMScript corpus (tests/tir_corpus/cases),
 *     and random loop nests (the real models' PrimFuncs: the byte comparison
 *     of `passage opt -O3 --lower` outputs in bench/README.md);
 *   - psg_arith_simplify of random integer expressions (shared subtrees,
 *     selects, comparisons, divisions) over vars with bounds, a substituted
 *     var and a known condition, on one analyzer per mode so that later
 *     expressions meet the nodes earlier ones noted.
 * Both also run with psgi_arith_check_rules_known: every node at which the
 * canonical walk skipped the rules (the rewrite walk kept it, design.md 234)
 * is put through the rules too, which must give it back. And the info of a
 * constant, made without the walk (design.md 236), is the walk's. */
#include "check.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"
#include "tir/arith/arith_internal.h"

/* Pass `name` (options may be NULL) on f both ways: the printed results
 * must be the same text. */
static void same_both_ways(const char *what, const char *name, psg_attrs *options, psg_tir_prim_func *f) {
  psgi_arith_exhaustive = true;
  psg_tir_prim_func *slow = eq_run_pass(name, options, f, NULL);
  psgi_arith_exhaustive = false;
  psg_tir_prim_func *fast = eq_run_pass(name, options, f, NULL);
  if (!slow || !fast) return;
  char *a = eq_print(slow), *b = eq_print(fast);
  CHECK(a && b && !strcmp(a, b));
  if (a && b && strcmp(a, b)) fprintf(stderr, "  %s: %s differs with the fast paths\n%s\n--- vs ---\n%s\n", what, name, a, b);
  psg_free(a);
  psg_free(b);
}

static const char *const OPTIONS[] = {"transitively_prove_inequalities", "apply_constraints_to_boolean_branches",
                                      "convert_boolean_to_and_of_ors", "propagate_knowns_to_simplify_expressions",
                                      "propagate_knowns_to_prove_conditional"};

/* tir.Simplify with config `cfg` on f both ways. */
static void simplify_both_ways(const char *what, const char *option, psg_attrs *cfg, psg_tir_prim_func *f) {
  psg_tir_prim_func *r[2] = {NULL, NULL};
  for (int m = 0; m < 2; m++) {
    psgi_arith_exhaustive = m == 0;
    CHECK_OK(psg_tir_simplify_prim_func(f, cfg, &r[m]));
  }
  psgi_arith_exhaustive = false;
  if (r[0] && r[1]) {
    char *a = eq_print(r[0]), *b = eq_print(r[1]);
    CHECK(a && b && !strcmp(a, b));
    if (a && b && strcmp(a, b)) fprintf(stderr, "  %s: tir.Simplify %s differs with the fast paths\n%s\n--- vs ---\n%s\n", what, option, a, b);
    psg_free(a);
    psg_free(b);
  }
  psg_tir_release(r[0]);
  psg_tir_release(r[1]);
}

static void all_passes(const char *what, psg_tir_prim_func *f) {
  same_both_ways(what, "tir.Simplify", NULL, f);
  for (size_t i = 0; i < sizeof OPTIONS / sizeof *OPTIONS; i++) {
    psg_attrs *o = eq_int_option(OPTIONS[i], 1);
    simplify_both_ways(what, OPTIONS[i], o, f);
    psg_attrs_release(o);
  }
  same_both_ways(what, "tir.default_pipeline", NULL, f);
}

static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", all_passes, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
  for (int i = 0; i < 40; i++) {
    uint64_t seed = 0x2545f4914f6cdd1dull * (uint64_t)(i + 1);
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) all_passes("random", f);
  }
}

/* Random integer expressions ----------------------------------------------------------- */

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static psg_tir_expr *vars[4];

static psg_tir_expr *random_expr(int depth, psg_tir_expr **shared, size_t *nshared) {
  uint64_t r = eq_rand(&seed);
  if (depth == 0 || r % 7 == 0) {
    if (r % 3 == 0) return tb_i32((int32_t)(eq_rand(&seed) % 17) - 4);
    return vars[eq_rand(&seed) % 4];
  }
  if (*nshared && r % 5 == 0) return shared[eq_rand(&seed) % *nshared]; /* a subtree met twice */
  static const int kinds[] = {PSG_TIR_ADD, PSG_TIR_SUB, PSG_TIR_MUL, PSG_TIR_FLOOR_DIV, PSG_TIR_FLOOR_MOD,
                              PSG_TIR_MIN, PSG_TIR_MAX, PSG_TIR_ADD, PSG_TIR_MUL, PSG_TIR_ADD};
  int kind = kinds[eq_rand(&seed) % 10];
  psg_tir_expr *x = random_expr(depth - 1, shared, nshared), *y;
  if (kind == PSG_TIR_FLOOR_DIV || kind == PSG_TIR_FLOOR_MOD) y = tb_i32(1 + (int32_t)(eq_rand(&seed) % 8));
  else if (kind == PSG_TIR_MUL && eq_rand(&seed) % 2) y = tb_i32((int32_t)(eq_rand(&seed) % 9) - 2);
  else y = random_expr(depth - 1, shared, nshared);
  psg_tir_expr *e = tb_bin(kind, x, y);
  if (eq_rand(&seed) % 9 == 0) e = tb_select(tb_lt(x, y), e, x);
  if (*nshared < 16) shared[(*nshared)++] = e;
  return e;
}

static void test_random_expressions(void) {
  psg_ctx *ctx = TB.ctx;
  for (int k = 0; k < 4; k++) vars[k] = tb_var(k == 0 ? "i" : k == 1 ? "j" : k == 2 ? "n" : "u", TB_I32);
  psg_arith_analyzer *an[2];
  psg_arith_scope sc[2];
  for (int m = 0; m < 2; m++) {
    psgi_arith_exhaustive = m == 0;
    CHECK_OK(psg_arith_analyzer_create(ctx, &an[m]));
    /* i in [0, 16), j in [0, 4), u is 3 (extent 1), n >= 0 known below 100 */
    CHECK_OK(psg_arith_bind(an[m], vars[0], tb_i32(0), tb_i32(16)));
    CHECK_OK(psg_arith_bind(an[m], vars[1], tb_i32(0), tb_i32(4)));
    CHECK_OK(psg_arith_bind(an[m], vars[3], tb_i32(3), tb_i32(1)));
    CHECK_OK(psg_arith_enter_constraint(an[m], tb_lt(vars[2], tb_i32(100)), &sc[m]));
  }
  psgi_arith_exhaustive = false;
  size_t differ = 0;
  for (int t = 0; t < 600; t++) {
    psg_tir_expr *shared[16];
    size_t nshared = 0;
    psg_tir_expr *e = random_expr(1 + t % 5, shared, &nshared), *r[2] = {NULL, NULL};
    for (int m = 0; m < 2; m++) CHECK_OK(psg_arith_simplify(an[m], e, &r[m]));
    if (r[0] && r[1] && !psg_arith_expr_equal(r[0], r[1])) differ++;
    /* and once more from the results (a walk over what was noted) */
    psg_tir_expr *again[2] = {NULL, NULL};
    for (int m = 0; m < 2; m++)
      if (r[m]) CHECK_OK(psg_arith_simplify(an[m], r[m], &again[m]));
    if (again[0] && again[1] && !psg_arith_expr_equal(again[0], again[1])) differ++;
    for (int m = 0; m < 2; m++) {
      psg_tir_release(r[m]);
      psg_tir_release(again[m]);
    }
  }
  CHECK(differ == 0);
  for (int m = 0; m < 2; m++) {
    psg_arith_exit_constraint(an[m], &sc[m]);
    psg_arith_analyzer_destroy(an[m]);
  }
}

/* The info of a constant, made without the walk and its cache (info.c),
 * is the walk's: int constants of every width and sign, their extremes,
 * and bools. */
static void test_constant_info(void) {
  psg_ctx *ctx = TB.ctx;
  psg_arith_analyzer *an[2];
  for (int m = 0; m < 2; m++) {
    psgi_arith_exhaustive = m == 0;
    CHECK_OK(psg_arith_analyzer_create(ctx, &an[m]));
  }
  psgi_arith_exhaustive = false;
  static const int bits[] = {8, 16, 32, 64};
  static const int64_t values[] = {0, 1, -1, 2, 7, -128, 127, 255, 32767, -32768, 65535, 2147483647, -2147483647 - 1,
                                   4294967295, INT64_MAX, INT64_MIN};
  size_t compared = 0;
  for (int u = 0; u < 3; u++) {
    for (size_t b = 0; b < sizeof bits / sizeof *bits; b++) {
      psg_tir_dtype t = u == 2 ? psg_tir_dtype_bool() : u ? psg_tir_dtype_make(PSG_TIR_CODE_UINT, bits[b], 1)
                                                          : psg_tir_dtype_make(PSG_TIR_CODE_INT, bits[b], 1);
      for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        int64_t x = values[v];
        bool fits = u == 2 ? x == 0 || x == 1
                    : u    ? x >= 0 && (bits[b] == 64 || x < (int64_t)1 << bits[b])
                           : bits[b] == 64 || (x >= -((int64_t)1 << (bits[b] - 1)) && x < (int64_t)1 << (bits[b] - 1));
        if (!fits) continue;
        psg_tir_expr *c = NULL;
        CHECK_OK(psg_tir_int_imm_create(ctx, t, x, NULL, &c));
        if (!c) continue;
        psgi_arith_info info[2];
        for (int m = 0; m < 2; m++) CHECK_OK(psgi_arith_info_of(an[m], c, &info[m]));
        CHECK(info[0].bound.min == info[1].bound.min && info[0].bound.max == info[1].bound.max);
        CHECK(info[0].mod.coeff == info[1].mod.coeff && info[0].mod.base == info[1].mod.base);
        CHECK(info[0].hash == info[1].hash);
        compared++;
        psg_tir_release(c);
      }
    }
  }
  CHECK(compared > 40);
  for (int m = 0; m < 2; m++) psg_arith_analyzer_destroy(an[m]);
}

/* The skipped rules, run anyway over the same inputs: never a change. */
static void test_rules_known(void) {
  psgi_arith_check_rules_known = true;
  psgi_arith_rules_known_checked = psgi_arith_rules_known_wrong = 0;
  test_random_expressions();
  size_t random_checked = psgi_arith_rules_known_checked;
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", all_passes, &nfuncs) == 0);
  psgi_arith_check_rules_known = false;
  CHECK(random_checked > 100);
  CHECK(psgi_arith_rules_known_checked > random_checked + 100);
  CHECK(psgi_arith_rules_known_wrong == 0);
  fprintf(stderr, "  rules skipped and checked: %zu (random expressions %zu), changed: %zu\n",
          psgi_arith_rules_known_checked, random_checked, psgi_arith_rules_known_wrong);
}

/* A product already in canonical form (`x * k`, design.md 247) gets no
 * canonical form built: the canonical form made without the fast path is
 * then that node again, structurally. Products of every int width and
 * sign, the constant on either side, nested, with constants at the
 * extremes of the dtype, and 0 and 1 (which the builders fold). */
static void test_canonical_products(void) {
  psg_ctx *ctx = TB.ctx;
  psg_arith_analyzer *an[2];
  for (int m = 0; m < 2; m++) {
    psgi_arith_exhaustive = m == 0;
    CHECK_OK(psg_arith_analyzer_create(ctx, &an[m]));
  }
  psgi_arith_exhaustive = false;
  static const int bits[] = {8, 16, 32, 64};
  static const int64_t values[] = {0, 1, -1, 2, 3, -7, 100, 127, -128, 255, 1 << 20, 2147483647, -2147483647 - 1,
                                   INT64_MAX, INT64_MIN};
  size_t kept = 0, built = 0;
  for (int u = 0; u < 2; u++) {
    for (size_t b = 0; b < sizeof bits / sizeof *bits; b++) {
      psg_tir_dtype t = psg_tir_dtype_make(u ? PSG_TIR_CODE_UINT : PSG_TIR_CODE_INT, bits[b], 1);
      psg_tir_expr *x = tb_var("x", t), *y = tb_var("y", t);
      for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        int64_t k = values[v];
        if (psgi_arith_wrap(t, k) != k || (u && k < 0)) continue; /* not a constant of t */
        psg_tir_expr *c = tb_int(t, k), *c2 = tb_int(t, 3);
        psg_tir_expr *forms[] = {tb_bin(PSG_TIR_MUL, x, c), tb_bin(PSG_TIR_MUL, c, x),
                                 tb_bin(PSG_TIR_MUL, tb_bin(PSG_TIR_MUL, x, c), c2),
                                 tb_bin(PSG_TIR_MUL, tb_bin(PSG_TIR_FLOOR_DIV, x, c2), c),
                                 tb_bin(PSG_TIR_MUL, tb_bin(PSG_TIR_MUL, x, y), c)};
        for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
          psg_tir_expr *e = forms[f], *r[2] = {NULL, NULL};
          for (int m = 0; m < 2; m++) CHECK_OK(psgi_arith_canonical_node(an[m], e, &r[m]));
          /* the same canonical form either way, NULL being e itself */
          CHECK(psg_arith_expr_equal(r[0] ? r[0] : e, r[1] ? r[1] : e));
          if (!r[1] && r[0]) kept++;
          if (r[1]) built++;
          psg_tir_release(r[0]);
          psg_tir_release(r[1]);
          /* and the whole simplifier */
          for (int m = 0; m < 2; m++) CHECK_OK(psg_arith_simplify(an[m], e, &r[m]));
          CHECK(r[0] && r[1] && psg_arith_expr_equal(r[0], r[1]));
          psg_tir_release(r[0]);
          psg_tir_release(r[1]);
        }
      }
    }
  }
  CHECK(kept > 20); /* the fast path ran */
  CHECK(built > 20); /* and the products not in canonical form were still rewritten */
  for (int m = 0; m < 2; m++) psg_arith_analyzer_destroy(an[m]);
}

/* A constant or a var without facts as the whole expression (design.md
 * 248): given back as it is, in every mode, with facts on other vars. */
static void test_leaf_roots(void) {
  psg_ctx *ctx = TB.ctx;
  psg_arith_analyzer *a;
  CHECK_OK(psg_arith_analyzer_create(ctx, &a));
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32), *b = tb_var("b", psg_tir_dtype_bool());
  CHECK_OK(psg_arith_bind(a, j, tb_i32(4), tb_i32(1))); /* j is 4: substituted */
  psg_arith_scope sc;
  CHECK_OK(psg_arith_enter_constraint(a, b, &sc)); /* b known true */
  psg_tir_expr *leaves[] = {tb_i32(7), tb_f32(2.5), tb_str("s"), i, j, b};
  for (size_t k = 0; k < sizeof leaves / sizeof *leaves; k++) {
    for (int mode = 0; mode < 3; mode++) {
      psg_tir_expr *r = NULL;
      psg_status st = mode == 0   ? psg_arith_simplify(a, leaves[k], &r)
                      : mode == 1 ? psg_arith_rewrite_simplify(a, leaves[k], &r)
                                  : psg_arith_canonical_simplify(a, leaves[k], &r);
      CHECK_OK(st);
      if (!r) continue;
      bool same = r == leaves[k];
      /* the leaves without facts come back as the same node; j and b as
       * what the facts say */
      if (k < 4) CHECK(same);
      else if (k == 4) CHECK(psgi_arith_is_int_value(r, 4));
      else CHECK(psgi_arith_is_int_value(r, 1) && psg_tir_dtype_is_bool(r->dtype));
      psg_tir_release(r);
    }
  }
  psg_arith_exit_constraint(a, &sc);
  psg_arith_analyzer_destroy(a);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_random_expressions);
  RUN_TEST(test_corpus);
  RUN_TEST(test_rules_known);
  RUN_TEST(test_constant_info);
  RUN_TEST(test_canonical_products);
  RUN_TEST(test_leaf_roots);
  psgi_arith_exhaustive = false;
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
