/* Passage — tir.Simplify with the known buffer values (the switches
 * propagate_knowns_to_prove_conditional and
 * propagate_knowns_to_simplify_expressions, known_values.c) keeps what a
 * PrimFunc computes: random statement sequences over a small buffer (stores
 * of constants, of other elements, of inputs; loops writing each element
 * once or shifted by one; ifs on buffer values and on a scalar; reads into
 * an output) are simplified and run by the TIR interpreter before and after
 * on random inputs. Enough of them must change for the check to mean
 * something, and a few hand cases pin what is and is not rewritten. */
#include <stdarg.h>
#include "check.h"
#include "passage/arith.h"
#include "tir_equiv.h"

static psg_attrs *config(bool cond, bool expr) {
  const char *keys[2] = {"propagate_knowns_to_prove_conditional", "propagate_knowns_to_simplify_expressions"};
  psg_attr *vals[2] = {NULL, NULL};
  CHECK_OK(psg_attr_bool(TB.ctx, cond, &vals[0]));
  CHECK_OK(psg_attr_bool(TB.ctx, expr, &vals[1]));
  psg_attrs *d = NULL;
  CHECK_OK(psg_attrs_create(TB.ctx, keys, vals, 2, &d));
  psg_attr_release(vals[0]);
  psg_attr_release(vals[1]);
  return d;
}

static psg_tir_prim_func *simplify(psg_tir_prim_func *f, bool cond, bool expr) {
  psg_attrs *c = config(cond, expr);
  psg_tir_prim_func *g = NULL;
  CHECK_OK(psg_tir_simplify_prim_func(f, c, &g));
  psg_attrs_release(c);
  return g ? tb_keep(PSG_OK, &g) : NULL;
}

/* A growing text. */
typedef struct text {
  char buf[16384];
  size_t len;
} text;

static void put(text *t, int indent, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(t->buf + t->len, sizeof t->buf - t->len, "%*s", indent * 4, "");
  if (n > 0) t->len += (size_t)n;
  n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len >= sizeof t->buf) t->len = sizeof t->buf - 1;
  va_end(ap);
}

static int loop_id;

static int pick(uint64_t *s, int n) { return (int)(eq_rand(s) % (uint64_t)n); }

/* One random statement at `indent` (nested ifs below depth 2). */
static void statement(text *t, uint64_t *s, int indent, int depth) {
  int c = pick(s, 8), c2 = pick(s, 8), k = pick(s, 7) - 3;
  int lo = pick(s, 4), hi = lo + 1 + pick(s, 8 - lo);
  int id = loop_id++;
  switch (pick(s, depth < 2 ? 11 : 9)) {
  case 0: put(t, indent, "B[%d] = %d\n", c, k); break;
  case 1: put(t, indent, "B[%d] = B[%d] + %d\n", c, c2, k); break;
  case 2:
    put(t, indent, "for i%d in range(%d, %d):\n", id, lo, hi);
    put(t, indent + 1, "B[i%d] = i%d * %d + %d\n", id, id, k, c);
    break;
  case 3: /* each iteration writes the element the next one reads */
    if (hi == 8) hi = 7;
    if (hi <= lo) hi = lo + 1;
    put(t, indent, "for i%d in range(%d, %d):\n", id, lo, hi);
    put(t, indent + 1, "B[i%d + 1] = B[i%d] + %d\n", id, id, k);
    break;
  case 4: put(t, indent, "if B[%d] < %d:\n", c, k); put(t, indent + 1, "O[%d] = O[%d] + 1\n", c2, c2); break;
  case 5:
    put(t, indent, "for i%d in range(8):\n", id);
    put(t, indent + 1, "if B[i%d] == i%d * %d + %d:\n", id, id, k, c);
    put(t, indent + 2, "O[i%d] = O[i%d] + 3\n", id, id);
    break;
  case 6: put(t, indent, "B[%d] = A[%d]\n", c, c2); break;
  case 7:
    put(t, indent, "for i%d in range(%d, %d):\n", id, lo, hi);
    put(t, indent + 1, "if i%d < %d:\n", id, c);
    put(t, indent + 2, "B[i%d] = %d\n", id, k);
    break;
  case 8: put(t, indent, "O[%d] = B[%d] * 2 + B[%d]\n", c, c, c2); break;
  case 9:
    put(t, indent, "if B[%d] == %d:\n", c, k);
    for (int n = 1 + pick(s, 2); n-- > 0;) statement(t, s, indent + 1, depth + 1);
    put(t, indent, "else:\n");
    statement(t, s, indent + 1, depth + 1);
    break;
  default:
    put(t, indent, "if x < %d:\n", k + 2);
    for (int n = 1 + pick(s, 2); n-- > 0;) statement(t, s, indent + 1, depth + 1);
    break;
  }
}

static void test_random_sequences(void) {
  uint64_t seed = 0x2545f4914f6cdd1dull;
  int changed = 0, total = 0;
  for (int round = 0; round < 300 && !check_failures; round++) {
    text t = {.len = 0};
    loop_id = 0;
    put(&t, 0, "@T.prim_func\ndef main(A: T.Buffer((8,), \"int32\"), B: T.Buffer((8,), \"int32\"), "
               "O: T.Buffer((8,), \"int32\"), x: T.int32):\n");
    for (int n = 3 + pick(&seed, 6); n-- > 0;) statement(&t, &seed, 1, 0);
    psg_tir_prim_func *f = eq_parse(t.buf);
    if (!f) break;
    for (int mode = 1; mode <= 3; mode++) {
      psg_tir_prim_func *g = simplify(f, mode & 1, mode & 2);
      psg_tir_prim_func *plain = simplify(f, false, false);
      total++;
      if (g && plain && !psg_tir_structural_equal(g, plain)) changed++;
      for (int64_t x = -1; x <= 5; x += 3) eq_check_same(f, g, x, 2, seed + (uint64_t)x);
    }
    tb_fini();
  }
  /* the knowns must rewrite a good share of them, or the check says little */
  CHECK(changed * 6 > total);
  if (changed * 6 <= total) fprintf(stderr, "  only %d of %d changed\n", changed, total);
}

/* One hand case: the text, the switches, and whether the result must differ
 * from plain tir.Simplify's. */
static void hand_case(const char *body, bool cond, bool expr, bool differs) {
  char src[2048];
  snprintf(src, sizeof src,
           "@T.prim_func\ndef main(A: T.Buffer((8,), \"int32\"), B: T.Buffer((8,), \"int32\"), n: T.int32):\n%s",
           body);
  psg_tir_prim_func *f = eq_parse(src);
  if (!f) return;
  psg_tir_prim_func *g = simplify(f, cond, expr), *plain = simplify(f, false, false);
  bool d = g && plain && !psg_tir_structural_equal(g, plain);
  CHECK(d == differs);
  if (d != differs) {
    char *a = g ? eq_print(g) : NULL;
    fprintf(stderr, "  expected %s:\n%s\n", differs ? "a rewrite" : "no rewrite", a ? a : "?");
    psg_free(a);
  }
  for (int64_t x = 0; x <= 4; x += 2) eq_check_same(f, g, x, 3, 77 + (uint64_t)x);
}

static void test_hand_cases(void) {
  /* a stored value proves a later condition */
  hand_case("    A[0] = 3\n    if A[0] == 3:\n        B[0] = 1\n", true, false, true);
  /* an overwritten value does not */
  hand_case("    A[0] = 3\n    A[0] = A[1]\n    if A[0] == 3:\n        B[0] = 1\n", true, false, false);
  /* only conditions use the knowns unless the second switch is on */
  hand_case("    A[0] = 3\n    B[0] = A[0] + 1\n", true, false, false);
  hand_case("    A[0] = 3\n    B[0] = A[0] + 1\n", false, true, true);
  /* a loop writing element i only: the value before the loop holds at i */
  hand_case("    for i in range(8):\n        A[i] = 0\n    for i in range(8):\n        if A[i] < 5:\n"
            "            A[i] = A[i] + B[i]\n",
            true, false, true);
  /* a loop writing element i + 1: no longer */
  hand_case("    for i in range(8):\n        A[i] = 0\n    for i in range(7):\n        if A[i] < 5:\n"
            "            A[i + 1] = A[i] + 6\n",
            true, false, false);
  /* a store under an if only counts where the if held */
  hand_case("    for i in range(8):\n        if i == 0:\n            A[i] = 0\n        if A[i] == 0:\n"
            "            B[i] = 42\n",
            true, false, false);
  /* an if on a buffer value: known in the then branch, forgotten after a store */
  hand_case("    if A[0] == n:\n        A[0] = A[0] + 1\n        if A[0] == n:\n            B[0] = 5\n"
            "        else:\n            B[0] = 10\n",
            true, false, true);
  /* facts from a condition p or B[i] == v */
  hand_case("    A[2] = 4\n    if n < 3 or A[2] == 4:\n        if A[2] < 5:\n            B[1] = 2\n", true, false, true);
  /* a vector store of a ramp */
  hand_case("    A[T.ramp(0, 1, 4)] = T.ramp(5, 2, 4)\n    if A[3] == 11:\n        B[0] = 1\n", true, false, true);
}

/* A 10,000-deep loop nest with both switches, under a 1 MiB stack: the
 * dataflow is iterative too. */
enum { NEST = 10000 };
static void *deep_nest(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = eq_deep_nest_func(NEST);
  psg_tir_prim_func *g = simplify(f, true, true);
  eq_check_same(f, g, 1, 1, 19);
  return NULL;
}

static void test_deep_loop_nest(void) { eq_small_stack(deep_nest); }

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_hand_cases);
  RUN_TEST(test_random_sequences);
  RUN_TEST(test_deep_loop_nest);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
