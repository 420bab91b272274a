/* Passage — the analyzer on 1,000,000-deep expressions under a 1 MiB stack
 * (issue 15, "Deep IR"): simplification, bounds, modular sets, equality
 * and proofs walk with explicit stacks. The work runs on a thread whose
 * stack is 1 MiB, so any recursion over the depth would crash. */
#include <pthread.h>
#include "arith_check.h"

enum { DEPTH = 1000000 };

/* kind(e, c) DEPTH times, from `leaf`; the chain owns its nodes. */
static psg_tir_expr *chain(int kind, psg_tir_expr *leaf, psg_tir_expr *c) {
  psg_tir_expr *e = leaf;
  psg_tir_retain(e);
  for (int k = 0; k < DEPTH; k++) {
    psg_tir_expr *n = NULL;
    if (psg_tir_binary_create(actx, kind, e, c, NULL, &n)) exit(2);
    psg_tir_release(e);
    e = n;
  }
  return e;
}

static void test_deep_add_chain(void) {
  psg_tir_expr *x = VAR("x");
  psg_tir_expr *e = chain(PSG_TIR_ADD, x, IC(1));
  CHECK_STR(SS(e), "(x + 1000000)");
  CHECK_STR(RS(e), "(x + 1000000)");
  BIND(x, 0, 10);
  CHECK_BOUND(e, 1000000, 1000009);
  CHECK(psg_arith_can_prove(an, LT(e, IC(1000010))));
  pooled(e);
}

static void test_deep_unsimplifiable(void) {
  /* ((x // 3) // 3) ... stays as deep as it was; walks still finish. */
  psg_tir_expr *y = VAR("y");
  psg_tir_expr *e = chain(PSG_TIR_FLOOR_DIV, y, IC(3));
  psg_tir_expr *f = chain(PSG_TIR_FLOOR_DIV, y, IC(3));
  pooled(e);
  pooled(f);
  psg_tir_expr *r = NULL;
  CHECK_OK(psg_arith_simplify(an, e, &r));
  pooled(r);
  CHECK(r != NULL && psg_tir_kind(r) == PSG_TIR_FLOOR_DIV);
  CHECK(psg_arith_expr_equal(e, f));
  CHECK(psg_arith_expr_equal(r, e));
  CHECK(psg_arith_can_prove_equal(an, e, f));
  CHECK_MOD(e, 1, 0);
  CHECK_BOUND(e, -1, 0); /* y // 3^k for huge k */
  CHECK_BOUND(FMOD(e, IC(5)), 0, 4);
}

static void test_deep_mixed(void) {
  /* x * 1 - 0 + 0 ... alternating identities collapse to x. */
  psg_tir_expr *x = VAR("z");
  psg_tir_expr *e = x;
  psg_tir_retain(e);
  for (int k = 0; k < DEPTH; k++) {
    psg_tir_expr *n = NULL;
    int kind = k % 3 == 0 ? PSG_TIR_MUL : k % 3 == 1 ? PSG_TIR_SUB : PSG_TIR_MAX;
    psg_tir_expr *c = k % 3 == 0 ? IC(1) : k % 3 == 1 ? IC(0) : e;
    if (psg_tir_binary_create(actx, kind, e, c, NULL, &n)) exit(2);
    psg_tir_release(e);
    e = n;
  }
  pooled(e);
  CHECK_STR(SS(e), "z");
}

static void *run(void *arg) {
  (void)arg;
  arith_begin();
  RUN_TEST(test_deep_add_chain);
  RUN_TEST(test_deep_unsimplifiable);
  RUN_TEST(test_deep_mixed);
  arith_end();
  return NULL;
}

int main(void) {
  pthread_attr_t attr;
  pthread_t th;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  if (pthread_create(&th, &attr, run, NULL)) return 2;
  pthread_join(th, NULL);
  pthread_attr_destroy(&attr);
  return check_finish();
}
