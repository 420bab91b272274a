/* Passage — compute_inline of a chain in one rewrite
 * (src/tir/schedule/inline_chain.c): the function it gives prints exactly as
 * the compute_inlines one at a time give it and computes the same outputs
 * (TIR interpreter); where one stage's check fails or a guard holds, it
 * applies nothing, leaves the function and the diagnostics as they were. */
#include "tir/schedule/schedule_internal.h"
#include "check.h"
#include "tir_equiv.h"

/* A -> B (x2) -> D (two loads of B, one at a shifted index, and a load of
 * E) -> G -> C (output); E and G are the chain's other stages, F stays (it
 * reads its own buffer). */
static const char *CHAIN =
    "# from tvm.script import tir as T\n\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8, 12), \"float32\"), C: T.Buffer((8, 12), \"float32\")):\n"
    "    B = T.allocate([104], \"float32\", \"global\")\n"
    "    B_1 = T.Buffer((8, 13), data=B)\n"
    "    E = T.allocate([96], \"float32\", \"global\")\n"
    "    E_1 = T.Buffer((8, 12), data=E)\n"
    "    D = T.allocate([96], \"float32\", \"global\")\n"
    "    D_1 = T.Buffer((8, 12), data=D)\n"
    "    G = T.allocate([96], \"float32\", \"global\")\n"
    "    G_1 = T.Buffer((8, 12), data=G)\n"
    "    for i, j in T.grid(8, 13):\n"
    "        B_1[i, j] = T.Cast(\"float32\", i + j) * T.float32(2)\n"
    "    for i, j in T.grid(8, 12):\n"
    "        E_1[i, j] = A[i, j] - T.float32(3)\n"
    "    for i, j in T.grid(8, 12):\n"
    "        D_1[i, j] = B_1[i, j] + B_1[i, j + 1] * E_1[i, j]\n"
    "    for i, j in T.grid(8, 12):\n"
    "        G_1[i, j] = D_1[i, j] * D_1[i, j] + A[i, j]\n"
    "    for i, j in T.grid(8, 12):\n"
    "        C[i, j] = G_1[i, j] + T.float32(1)\n";

/* F reads its own buffer: its check fails. */
static const char *WITH_FAILING =
    "# from tvm.script import tir as T\n\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n"
    "    B = T.allocate([8], \"float32\", \"global\")\n"
    "    B_1 = T.Buffer((8,), data=B)\n"
    "    F = T.allocate([8], \"float32\", \"global\")\n"
    "    F_1 = T.Buffer((8,), data=F)\n"
    "    for i in range(8):\n"
    "        B_1[i] = A[i] * T.float32(2)\n"
    "    for i in range(8):\n"
    "        F_1[i] = F_1[i] + B_1[i]\n"
    "    for i in range(8):\n"
    "        C[i] = F_1[i] + T.float32(1)\n";

static psg_tir_schedule *sched(psg_tir_prim_func *f, bool unchecked) {
  psg_tir_schedule *s = NULL;
  CHECK_OK(psg_tir_schedule_create(f, &s));
  if (s) s->unchecked = unchecked;
  return s;
}

static void test_chain_matches_one_at_a_time(void) {
  psg_tir_prim_func *f = eq_parse(CHAIN);
  if (!f) return;
  static const char *const order[] = {"G_1", "D_1", "E_1", "B_1"}; /* latest first */
  psg_tir_schedule *one = sched(f, true), *all = sched(f, true);
  if (!one || !all) return;
  for (size_t i = 0; i < 4; i++) CHECK_OK(psg_tir_schedule_compute_inline(one, order[i]));
  bool applied = false;
  CHECK_OK(psgi_sch_compute_inline_chain(all, order, 4, &applied));
  CHECK(applied);
  char *a = eq_print(psg_tir_schedule_get_func(one)), *b = eq_print(psg_tir_schedule_get_func(all));
  CHECK(a && b && !strcmp(a, b));
  CHECK(b && !strstr(b, "allocate"));
  if (a && b && strcmp(a, b)) fprintf(stderr, "one at a time:\n%s\nchain:\n%s\n", a, b);
  psg_free(a);
  psg_free(b);
  CHECK(psg_tir_verify_well_formed(psg_tir_schedule_get_func(all)) == PSG_OK);
  eq_check_same(f, psg_tir_schedule_get_func(all), 4, 3, 11);
  psg_tir_schedule_release(one);
  psg_tir_schedule_release(all);
}

/* Nothing applied, nothing said, the function as it was. */
static void expect_given_up(psg_tir_prim_func *f, const char *const *order, size_t n, bool unchecked) {
  psg_tir_schedule *s = sched(f, unchecked);
  if (!s) return;
  size_t ndiag = psg_ctx_diag_count(TB.ctx);
  bool applied = true;
  CHECK_OK(psgi_sch_compute_inline_chain(s, order, n, &applied));
  CHECK(!applied);
  CHECK(psg_tir_schedule_get_func(s) == f);
  CHECK_EQ_INT((int)psg_ctx_diag_count(TB.ctx), (int)ndiag);
  psg_tir_schedule_release(s);
}

static void test_chain_gives_up(void) {
  psg_tir_prim_func *f = eq_parse(WITH_FAILING), *g = eq_parse(CHAIN);
  if (!f || !g) return;
  /* a failing check (F reads itself): the caller inlines one at a time,
   * skipping F as compute_inline refuses it */
  static const char *const failing[] = {"F_1", "B_1"};
  expect_given_up(f, failing, 2, true);
  /* producers first: D's value loads B, accepted before it */
  static const char *const producers_first[] = {"B_1", "D_1"};
  expect_given_up(g, producers_first, 2, true);
  /* a checked schedule (each primitive verified): never chained */
  static const char *const order[] = {"G_1", "D_1"};
  expect_given_up(g, order, 2, false);
  /* an unknown stage */
  static const char *const unknown[] = {"G_1", "nope"};
  expect_given_up(g, unknown, 2, true);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_chain_matches_one_at_a_time);
  RUN_TEST(test_chain_gives_up);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
