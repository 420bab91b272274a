/* Passage — tir.InjectVirtualThread keeps what a PrimFunc computes: the
 * TIR interpreter runs a "virtual_thread" AttrStmt as a serial loop of its
 * thread index, so a function and its injected form must give the same
 * buffers when the threads do not race. 400 random programs (per-thread
 * scratch allocations, lets, loops whose extent depends on the thread, ifs
 * on the thread or on an outer loop, nested vthreads, shared and unshared
 * tags, 1 to 17 threads) and hand-written cases are run before and after;
 * every output is well formed and free of virtual_thread AttrStmts, the
 * allocations grow as TVM's do, and a 10,000-deep nest inside a vthread is
 * rewritten under a 1 MiB stack. */
#include "tir_equiv.h"
#include "tir_loop_check.h"

static int count_vthreads_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  if (psg_tir_kind(n) == PSG_TIR_ATTR_STMT && !strcmp(psg_tir_attr_stmt_key(n), "virtual_thread")) ++*(int *)v->user;
  return PSG_VISIT_CONTINUE;
}
static int count_vthreads(const psg_tir_node *f) {
  int c = 0;
  psg_tir_visitor v = {.pre = count_vthreads_pre, .user = &c};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return c;
}

static int first_extent_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  int64_t *e = v->user;
  if (psg_tir_kind(n) == PSG_TIR_ALLOCATE && *e < 0) *e = psg_tir_int_imm_value(psg_tir_get_operand(n, 3));
  return PSG_VISIT_CONTINUE;
}
/* The first extent of the first Allocate met (post-order: the innermost). */
static int64_t alloc_extent(const psg_tir_node *f) {
  int64_t e = -1;
  psg_tir_visitor v = {.pre = first_extent_pre, .user = &e};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return e;
}

/* Random programs -------------------------------------------------------------- */

/* Per outer iteration i, T = n * m threads (m > 1: a nested vthread), each
 * with its own E-element scratch B filled from its slice of A, a few random
 * statements over B, and its slice of C written from B. */
static char *random_program(uint64_t seed, int *threads) {
  static const int counts[] = {1, 2, 3, 4, 5, 15, 16, 17};
  lc_gen g = {.seed = seed * 7919 + 11};
  int n = counts[lc_pick(&g, 8)], m = lc_pick(&g, 3) ? 1 : 2 + lc_pick(&g, 2), e = 1 + lc_pick(&g, 4);
  int iters = 1 + lc_pick(&g, 3), t = n * m;
  bool share = lc_pick(&g, 2), inner_share = lc_pick(&g, 2);
  *threads = t;
  int size = iters * t * e;
  lc_put(&g, "@T.prim_func\ndef main(A: T.Buffer((%d,), \"int32\"), C: T.Buffer((%d,), \"int32\")):\n", size, size);
  if (!share) lc_put(&g, "    vt = T.int32()\n");
  if (m > 1 && !inner_share) lc_put(&g, "    wt = T.int32()\n");
  lc_put(&g, "    for i in range(%d):\n", iters);
  if (share)
    lc_put(&g, "        vt = T.env_thread(\"vthread\")\n        with T.launch_thread(vt, %d):\n", n);
  else
    lc_put(&g, "        with T.attr(T.iter_var(vt, None, \"ThreadIndex\", \"cthread\"), \"virtual_thread\", %d):\n", n);
  int ind = 3;
  const char *tid = "vt";
  if (m > 1) {
    if (inner_share)
      lc_put(&g, "%*swt = T.env_thread(\"vthread.y\")\n%*swith T.launch_thread(wt, %d):\n", 4 * ind, "", 4 * ind, "", m);
    else
      lc_put(&g, "%*swith T.attr(T.iter_var(wt, None, \"ThreadIndex\", \"cthread\"), \"virtual_thread\", %d):\n",
             4 * ind, "", m);
    ind++;
    tid = "(vt * %d + wt)";
  }
  char tids[64];
  snprintf(tids, sizeof tids, tid, m);
  const char *w = m > 1 ? "wt" : "vt"; /* the innermost thread var */
  lc_put(&g, "%*sB_data = T.allocate([%d], \"int32\", \"local\")\n", 4 * ind, "", e);
  lc_put(&g, "%*sB = T.Buffer((%d,), \"int32\", data=B_data, scope=\"local\")\n", 4 * ind, "", e);
  lc_put(&g, "%*sfor j in range(%d):\n%*sB[j] = A[(i * %d + %s) * %d + j] + vt\n", 4 * ind, "", e, 4 * ind + 4, "", t,
         tids, e);
  for (int k = 0, ns = 1 + lc_pick(&g, 4); k < ns; k++) {
    int c = lc_pick(&g, e), c2 = lc_pick(&g, e);
    switch (lc_pick(&g, 7)) {
    case 0: lc_put(&g, "%*sB[%d] = B[%d] * 3 + %s\n", 4 * ind, "", c, c2, w); break;
    case 1: lc_put(&g, "%*sfor j in range(%d):\n%*sB[j] = B[j] + j * vt\n", 4 * ind, "", e, 4 * ind + 4, ""); break;
    case 2:
      lc_put(&g, "%*sif %s %% 2 == 0:\n%*sB[%d] = B[%d] + 1\n%*selse:\n%*sB[%d] = B[%d] - 1\n", 4 * ind, "", w,
             4 * ind + 4, "", c, c, 4 * ind, "", 4 * ind + 4, "", c, c);
      break;
    case 3: lc_put(&g, "%*sif i %% 2 == 0:\n%*sB[%d] = B[%d] + i\n", 4 * ind, "", 4 * ind + 4, "", c, c); break;
    case 4:
      lc_put(&g, "%*sx%d: T.int32 = %s * 5 + i\n%*sB[%d] = B[%d] + x%d\n", 4 * ind, "", k, w, 4 * ind, "", c, c2, k);
      break;
    case 5:
      lc_put(&g, "%*sfor j in range(%s + 1):\n%*sB[j %% %d] = B[j %% %d] + 2\n", 4 * ind, "", w, 4 * ind + 4, "", e,
             e);
      break;
    default: lc_put(&g, "%*sB[%d] = B[%d] + i * 7\n", 4 * ind, "", c, c2); break;
    }
  }
  lc_put(&g, "%*sfor j in range(%d):\n%*sC[(i * %d + %s) * %d + j] = B[j]\n", 4 * ind, "", e, 4 * ind + 4, "", t, tids,
         e);
  return g.s;
}

static void test_random_programs(void) {
  int looped = 0, unrolled = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    tb_init(check_ctx());
    int threads;
    char *text = random_program(seed, &threads);
    psg_tir_prim_func *f = lc_parse(text);
    psg_tir_prim_func *g = f ? eq_run_pass("tir.InjectVirtualThread", NULL, f, NULL) : NULL;
    char label[64];
    snprintf(label, sizeof label, "seed %llu", (unsigned long long)seed);
    if (!lc_same(f, g, label)) fprintf(stderr, "%s\n", text);
    CHECK_EQ_INT(count_vthreads(g), 0);
    /* every thread has its own scratch */
    int64_t e = alloc_extent(f), eg = alloc_extent(g);
    CHECK_EQ_INT(eg, e * threads);
    char *out = g ? eq_print(g) : NULL;
    looped += out && strstr(out, "_s in range(") != NULL;
    unrolled += out && strstr(out, " + 0 * ") != NULL;
    psg_free(out);
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  CHECK(looped > 100);
  CHECK(unrolled > 100);
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Hand-written cases ------------------------------------------------------------ */

/* TVM's test_vthread shape: two nested vthreads over a shared scratch read
 * back in the same thread. */
static const char NESTED[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((64,), \"float32\"), C: T.Buffer((64,), \"float32\")):\n"
    "    for i in range(16):\n"
    "        tx = T.env_thread(\"vthread\")\n"
    "        with T.launch_thread(tx, 2):\n"
    "            ty = T.env_thread(\"vthread\")\n"
    "            with T.launch_thread(ty, 2):\n"
    "                B_data = T.allocate([4], \"float32\", \"shared\")\n"
    "                B = T.Buffer((4,), data=B_data, scope=\"shared\")\n"
    "                B[i % 4] = A[i * 2 + tx]\n"
    "                C[i * 2 + tx] = B[i % 4] + T.float32(1)\n";

/* Vector stores: the offset joins the Ramp. */
static const char VECTOR[] =
    "@T.prim_func\n"
    "def main(C: T.Buffer((16,), \"int32\")):\n"
    "    vt = T.env_thread(\"vthread\")\n"
    "    with T.launch_thread(vt, 4):\n"
    "        B_data = T.allocate([4], \"int32\", \"shared\")\n"
    "        B = T.Buffer((4,), \"int32\", data=B_data, scope=\"shared\")\n"
    "        B[0:4] = T.Broadcast(vt, 4) + T.Ramp(0, 1, 4)\n"
    "        C[vt * 4:vt * 4 + 4] = B[0:4] * T.Broadcast(2, 4)\n";

/* A let and an assert on the thread, a shared read-only table. */
static const char LETS[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((8,), \"int32\"), C: T.Buffer((8,), \"int32\")):\n"
    "    vt = T.env_thread(\"vthread\")\n"
    "    with T.launch_thread(vt, 8):\n"
    "        S_data = T.allocate([8], \"int32\", \"global\")\n"
    "        S = T.Buffer((8,), \"int32\", data=S_data)\n"
    "        for k in range(8):\n"
    "            S[k] = A[k] * 2\n"
    "        x: T.int32 = vt * 3\n"
    "        assert vt < 8, \"in range\"\n"
    "        C[vt] = S[vt] + x\n";

static void test_cases(void) {
  tb_init(check_ctx());
  static const char *const cases[] = {NESTED, VECTOR, LETS};
  for (size_t k = 0; k < 3; k++) {
    psg_tir_prim_func *f = lc_parse(cases[k]);
    psg_tir_prim_func *g = f ? eq_run_pass("tir.InjectVirtualThread", NULL, f, NULL) : NULL;
    eq_check_same(f, g, 1, 3, 100 + k);
    CHECK_EQ_INT(count_vthreads(g), 0);
    /* idempotent: nothing left to inject */
    psg_tir_prim_func *h = g ? eq_run_pass("tir.InjectVirtualThread", NULL, g, NULL) : NULL;
    CHECK(h && psg_tir_structural_equal(g, h));
    psg_tir_release(f);
  }
  /* Extents: shared and read-only (S) stays single; 2 x 2 threads over B. */
  psg_tir_prim_func *f = lc_parse(NESTED), *g = f ? eq_run_pass("tir.InjectVirtualThread", NULL, f, NULL) : NULL;
  CHECK_EQ_INT(alloc_extent(g), 8); /* ty shares B (nothing of B depends on it), tx does not */
  psg_tir_release(f);
  f = lc_parse(LETS);
  g = f ? eq_run_pass("tir.InjectVirtualThread", NULL, f, NULL) : NULL;
  CHECK_EQ_INT(alloc_extent(g), 8);
  psg_tir_release(f);
  /* A function without vthreads is returned as it is. */
  f = lc_parse("@T.prim_func\ndef main(A: T.Buffer((4,), \"int32\")):\n    for i in range(4):\n        A[i] = i\n");
  g = f ? eq_run_pass("tir.InjectVirtualThread", NULL, f, NULL) : NULL;
  CHECK(g == f);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Deep ------------------------------------------------------------------------------ */

enum { NEST = 10000 };
/* A[0] = A[0] + vt under NEST loops of extent 1, inside a vthread of 2: the
 * store is copied at the bottom of the nest. */
static void *deep(void *arg) {
  (void)arg;
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_expr *vt = tb_var("vt", TB_I32), *zero = tb_i32(0);
  psg_tir_stmt *s = TB_STORE(A, tb_add(TB_LOAD(A, zero), vt), zero);
  for (int k = 0; k < NEST; k++) s = tb_for(tb_var("i", TB_I32), 1, s);
  psg_tir_node *iv = NULL, *attr = NULL;
  CHECK_OK(psg_tir_iter_var_create(TB.ctx, vt, zero, tb_i32(2), PSG_TIR_ITER_THREAD_INDEX, "vthread", NULL, &iv));
  tb_keep(PSG_OK, &iv);
  CHECK_OK(psg_tir_attr_stmt_create(TB.ctx, iv, "virtual_thread", tb_i32(2), s, NULL, &attr));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, tb_keep(PSG_OK, &attr));
  psg_tir_prim_func *g = f ? eq_run_pass("tir.InjectVirtualThread", NULL, f, NULL) : NULL;
  eq_check_same(f, g, 1, 1, 5);
  CHECK_EQ_INT(count_vthreads(g), 0);
  return NULL;
}

static void test_deep(void) {
  tb_init(check_ctx());
  eq_small_stack(deep);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_random_programs);
  RUN_TEST(test_cases);
  RUN_TEST(test_deep);
  return check_finish();
}
