/* Passage — psgi_arith_iter_map_simplify (src/tir/arith/iter_map.c), TVM's
 * IterMapSimplify at the surjective level: splits of a fused iterator
 * joined back (constant and symbolic extents), sums of iterators kept,
 * predicates as bounds of fused iterators, trivial iterators replaced by
 * their min; and the cases where the detection fails, so that the indices
 * come back as they were: an iterator that would need padding, a product of
 * iterators, an iterator under another node, a range that uses another
 * iterator, a predicate that is not a bound. */
#include "arith_check.h"
#include "tir/arith/iter_map.h"

typedef struct result {
  bool detected;
  bool same; /* out[0] is the input index itself */
  const char *text;
} result;

static result ims(psg_tir_expr *const *idx, size_t n, const psgi_arith_iter *it, size_t ni,
                  psg_tir_expr *const *preds, size_t np) {
  psg_tir_expr *out[4] = {NULL};
  result r = {false, false, NULL};
  CHECK_OK(psgi_arith_iter_map_simplify(an, idx, n, it, ni, preds, np, out, &r.detected));
  for (size_t i = 0; i < n; i++) CHECK(out[i] != NULL);
  if (!out[0]) return r;
  r.same = out[0] == idx[0];
  static char buf[4][512];
  static int turn;
  char *b = buf[turn++ & 3];
  b[0] = 0;
  for (size_t i = 0; i < n; i++) {
    pooled(out[i]);
    snprintf(b + strlen(b), 512 - strlen(b), "%s%s", i ? ", " : "", show(out[i]));
  }
  r.text = b;
  return r;
}

static result one(psg_tir_expr *idx, const psgi_arith_iter *it, size_t ni) { return ims(&idx, 1, it, ni, NULL, 0); }

static void test_join_constant(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *k = VAR("k");
  psgi_arith_iter it[] = {{i, IC(0), IC(16)}, {j, IC(0), IC(5)}, {k, IC(0), IC(1)}};
  /* i // 4 * 4 + i % 4 is i */
  result r = one(ADD(MUL(FDIV(i, IC(4)), IC(4)), FMOD(i, IC(4))), it, 1);
  CHECK(r.detected);
  CHECK_STR(r.text, "i");
  /* three levels: (i // 8 * 2 + i % 8 // 4) * 4 + i % 4 */
  psg_tir_expr *three = ADD(MUL(ADD(MUL(FDIV(i, IC(8)), IC(2)), FDIV(FMOD(i, IC(8)), IC(4))), IC(4)), FMOD(i, IC(4)));
  CHECK_STR(one(three, it, 1).text, "i");
  /* a sum of two iterators is kept as it is */
  r = one(ADD(MUL(i, IC(5)), j), it, 2);
  CHECK(r.detected);
  CHECK_STR(r.text, "((i * 5) + j)");
  /* an extent-1 iterator is its min */
  CHECK_STR(one(ADD(MUL(k, IC(16)), i), it, 3).text, "i");
  /* splits that do not tile in order (a transpose) are written back as splits */
  r = one(ADD(MUL(FMOD(i, IC(4)), IC(4)), FDIV(i, IC(4))), it, 1);
  CHECK(r.detected);
  CHECK_STR(r.text, "(((i % 4) * 4) + (i // 4))");
  /* several indices at once, each its own split */
  psg_tir_expr *two[] = {FDIV(i, IC(4)), FMOD(i, IC(4))};
  r = ims(two, 2, it, 1, NULL, 0);
  CHECK(r.detected);
  CHECK_STR(r.text, "(i // 4), (i % 4)");
  /* a range that does not start at 0: the iterator is i - 2, plus 2 */
  psgi_arith_iter from2[] = {{i, IC(2), IC(8)}};
  CHECK_STR(one(i, from2, 1).text, "((i - 2) + 2)");
}

static void test_join_symbolic(void) {
  psg_tir_expr *t = VAR("t"), *n = VAR("n"), *nn = MUL(n, n);
  /* t in [0, n*n*32) over a (32, n, n) buffer */
  psgi_arith_iter it[] = {{t, IC(0), MUL(nn, IC(32))}};
  psg_tir_expr *flat = ADD(MUL(ADD(MUL(FDIV(t, nn), n), FDIV(FMOD(t, nn), n)), n), FMOD(t, n));
  result r = one(flat, it, 1);
  CHECK(r.detected);
  CHECK_STR(r.text, "t");
}

static void test_predicate(void) {
  psg_tir_expr *b = VAR("b"), *x = VAR("x"), *n = VAR("n"), *nn = MUL(n, n);
  psgi_arith_iter it[] = {{b, IC(0), FDIV(ADD(nn, IC(1)), IC(2))}, {x, IC(0), IC(64)}};
  psg_tir_expr *s = ADD(MUL(b, IC(64)), x);
  psg_tir_expr *flat = ADD(MUL(ADD(MUL(FDIV(s, nn), n), FDIV(FMOD(s, nn), n)), n), FMOD(s, n));
  psg_tir_expr *pred = LT(s, MUL(nn, IC(32)));
  /* under the bound, b * 64 + x is an iterator of extent n * n * 32 */
  result r = ims(&flat, 1, it, 2, &pred, 1);
  CHECK(r.detected);
  CHECK_STR(r.text, "((b * 64) + x)");
  /* a bound given as a conjunct, the other side first */
  psg_tir_expr *both = AND(LT(IC(-1), b), GT(MUL(nn, IC(32)), s));
  CHECK_STR(ims(&flat, 1, it, 2, &both, 1).text, "((b * 64) + x)");
  /* without it the fused extent ((n*n + 1) // 2) * 64 would need padding */
  r = one(flat, it, 2);
  CHECK(!r.detected);
  CHECK(r.same);
  /* a predicate that is no bound is dropped (TVM retries without it) */
  psg_tir_expr *eq = EQ(s, IC(3));
  r = ims(&flat, 1, it, 2, &eq, 1);
  CHECK(!r.detected);
  CHECK(r.same);
}

static void test_not_detected(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j");
  psgi_arith_iter it[] = {{i, IC(0), IC(10)}, {j, IC(0), IC(4)}};
  /* i // 4 over [0, 10) needs padding (TVM pads; we give up) */
  psg_tir_expr *e = ADD(MUL(FDIV(i, IC(4)), IC(4)), FMOD(i, IC(4)));
  result r = one(e, it, 1);
  CHECK(!r.detected);
  CHECK(r.same);
  /* a product of iterators */
  r = one(MUL(i, j), it, 2);
  CHECK(!r.detected);
  CHECK(r.same);
  /* an iterator under a node that is not + - * // % */
  r = one(ADD(MIN(i, IC(3)), j), it, 2);
  CHECK(!r.detected);
  CHECK(r.same);
  /* j's range uses i (TVM's IterRangeSanityCheck) */
  psgi_arith_iter dep[] = {{i, IC(0), IC(8)}, {j, IC(0), i}};
  r = one(ADD(MUL(i, IC(8)), j), dep, 2);
  CHECK(!r.detected);
  CHECK(r.same);
  /* an extent-1 iterator is still an iterator: k * i is a product of two
   * (TVM: an IterSumExpr without splits), and no division by its scale 0 */
  psg_tir_expr *k = VAR("k");
  psgi_arith_iter unit[] = {{k, IC(0), IC(1)}, {i, IC(0), IC(8)}};
  r = one(ADD(MUL(MUL(k, i), IC(784)), i), unit, 2);
  CHECK(!r.detected);
  CHECK(r.same);
  /* scales that cancel leave a split of scale 0: the detection fails, no
   * error (a constant division by 0 would be one) */
  r = one(ADD(SUB(MUL(i, IC(2)), MUL(i, IC(2))), j), it, 2);
  CHECK(!r.detected);
  CHECK(r.same);
  CHECK(psg_ctx_get_last_error(actx) == NULL);
  /* no iterator at all: detected, nothing to do */
  r = one(ADD(VAR("n"), IC(1)), it, 2);
  CHECK(r.detected);
}

/* Random differential check: an index built of +, -, * c, // c and % c over
 * two iterators (divisors drawn mostly from their extents' divisors, so
 * that splits join often), simplified; where detected, the result must give
 * the index's value at every point of the iteration space. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static int pick(int n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (int)(rng % (uint64_t)n);
}

static int64_t fdiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Value of e with i = vi, j = vj (test-only recursion over a small tree). */
static int64_t eval(const psg_tir_expr *e, psg_tir_expr *i, psg_tir_expr *j, int64_t vi, int64_t vj, bool *ok) {
  if (e == i) return vi;
  if (e == j) return vj;
  int k = psg_tir_kind(e);
  if (k == PSG_TIR_INT_IMM) return psg_tir_int_imm_value(e);
  if (k < PSG_TIR_ADD || k > PSG_TIR_FLOOR_MOD || psg_tir_num_operands(e) != 2) {
    *ok = false;
    return 0;
  }
  int64_t a = eval(psg_tir_get_operand(e, 0), i, j, vi, vj, ok), b = eval(psg_tir_get_operand(e, 1), i, j, vi, vj, ok);
  switch (k) {
  case PSG_TIR_ADD: return a + b;
  case PSG_TIR_SUB: return a - b;
  case PSG_TIR_MUL: return a * b;
  case PSG_TIR_FLOOR_DIV: return b ? fdiv(a, b) : (*ok = false, 0);
  case PSG_TIR_FLOOR_MOD: return b ? a - fdiv(a, b) * b : (*ok = false, 0);
  default: *ok = false; return 0;
  }
}

static psg_tir_expr *random_index(psg_tir_expr *i, psg_tir_expr *j, int depth) {
  static const int divs[] = {1, 2, 3, 4, 6, 8, 12, 5};
  if (depth == 0 || pick(4) == 0) {
    int r = pick(5);
    return r < 2 ? i : r < 4 ? j : IC(pick(4));
  }
  psg_tir_expr *a = random_index(i, j, depth - 1);
  switch (pick(6)) {
  case 0: return ADD(a, random_index(i, j, depth - 1));
  case 1: return SUB(a, random_index(i, j, depth - 1));
  case 2: return MUL(a, IC(divs[pick(8)]));
  case 3: return FDIV(a, IC(divs[pick(8)]));
  case 4: return FMOD(a, IC(divs[pick(8)]));
  default: return ADD(MUL(a, IC(divs[pick(8)])), random_index(i, j, depth - 1));
  }
}

static void test_random_values(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j");
  int detected = 0, joined = 0;
  for (int n = 0; n < 3000; n++) {
    static const int ext[] = {1, 2, 3, 4, 6, 8, 12, 24};
    int ei = ext[pick(8)], ej = ext[pick(8)];
    psgi_arith_iter it[] = {{i, IC(0), IC(ei)}, {j, IC(0), IC(ej)}};
    psg_tir_expr *e = random_index(i, j, 1 + pick(4)), *out = NULL;
    bool det = false;
    CHECK_OK(psgi_arith_iter_map_simplify(an, &e, 1, it, 2, NULL, 0, &out, &det));
    if (!out) continue;
    pooled(out);
    if (!det) continue;
    detected++;
    joined += out != e;
    for (int64_t vi = 0; vi < ei; vi++)
      for (int64_t vj = 0; vj < ej; vj++) {
        bool ok1 = true, ok2 = true;
        int64_t want = eval(e, i, j, vi, vj, &ok1), got = eval(out, i, j, vi, vj, &ok2);
        if (ok1 && (!ok2 || want != got)) {
          fprintf(stderr, "  i<%d j<%d at (%lld, %lld): %s -> %s\n", ei, ej, (long long)vi, (long long)vj, show(e),
                  show(out));
          CHECK(false);
          vi = ei;
          break;
        }
      }
  }
  fprintf(stderr, "  %d of 3000 detected, %d rewritten\n", detected, joined);
  CHECK(detected > 300);
}

int main(void) {
  arith_begin();
  RUN_TEST(test_join_constant);
  RUN_TEST(test_join_symbolic);
  RUN_TEST(test_predicate);
  RUN_TEST(test_not_detected);
  RUN_TEST(test_random_values);
  arith_end();
  return check_finish();
}
