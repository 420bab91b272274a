/* Passage — the schedule primitives (src/tir/schedule/): each applied to
 * hand-written loop nests of the legacy TE form (elementwise chains with
 * allocated intermediates, matmul in both reduction forms, a padded 1-D
 * convolution), checked to give the same outputs through the TIR
 * interpreter (eq_check_same: bit-identical, well-formed), checked for the
 * shape it promises, and refused with a clear error that leaves the
 * function unchanged when illegal. */
#include "passage/tir_schedule.h"
#include "check.h"
#include "tir_equiv.h"

static const char *ELEM =
    "# from tvm.script import tir as T\n\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8, 12), \"float32\"), C: T.Buffer((8, 12), \"float32\")):\n"
    "    B = T.allocate([96], \"float32\", \"global\")\n"
    "    B_1 = T.Buffer((8, 12), data=B)\n"
    "    for i, j in T.grid(8, 12):\n"
    "        B_1[i, j] = A[i, j] * T.float32(2)\n"
    "    for i, j in T.grid(8, 12):\n"
    "        C[i, j] = B_1[i, j] + T.float32(1)\n";

static const char *MATMUL_TE =
    "# from tvm.script import tir as T\n\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8, 6), \"float32\"), B: T.Buffer((6, 10), \"float32\"), C: T.Buffer((8, 10), \"float32\")):\n"
    "    for i, j in T.grid(8, 10):\n"
    "        C[i, j] = T.float32(0)\n"
    "        for k in range(6):\n"
    "            C[i, j] = C[i, j] + A[i, k] * B[k, j]\n";

static const char *MATMUL_GUARDED =
    "# from tvm.script import tir as T\n\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((8, 6), \"float32\"), B: T.Buffer((6, 10), \"float32\"), C: T.Buffer((8, 10), \"float32\")):\n"
    "    for i, j, k in T.grid(8, 10, 6):\n"
    "        if k == 0:\n"
    "            C[i, j] = T.float32(0)\n"
    "        C[i, j] = C[i, j] + A[i, k] * B[k, j]\n";

static const char *CONV1D =
    "# from tvm.script import tir as T\n\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((10,), \"float32\"), W: T.Buffer((3,), \"float32\"), O: T.Buffer((10,), \"float32\")):\n"
    "    P = T.allocate([12], \"float32\", \"global\")\n"
    "    P_1 = T.Buffer((12,), data=P)\n"
    "    for p in range(12):\n"
    "        P_1[p] = T.if_then_else(1 <= p and p < 11, A[p - 1], T.float32(0))\n"
    "    for i in range(10):\n"
    "        O[i] = T.float32(0)\n"
    "        for r in range(3):\n"
    "            O[i] = O[i] + P_1[i + r] * W[r]\n";

/* A schedule of the function of `text`; *orig is that function (pooled:
 * released by tb_fini). */
static psg_tir_schedule *sched(const char *text, psg_tir_prim_func **orig) {
  *orig = eq_parse(text);
  psg_tir_schedule *s = NULL;
  if (*orig) CHECK_OK(psg_tir_schedule_create(*orig, &s));
  return s;
}

/* Loop `k` of block `b` (a new reference, pooled). */
static psg_tir_expr *loop_of(psg_tir_schedule *s, const char *b, size_t k) {
  psg_tir_expr **loops = NULL;
  size_t n = 0;
  CHECK_OK(psg_tir_schedule_get_loops(s, b, &loops, &n));
  psg_tir_expr *l = NULL;
  for (size_t i = 0; i < n; i++) {
    if (i == k) l = loops[i];
    else psg_tir_release(loops[i]);
  }
  psg_free(loops);
  CHECK(l != NULL);
  return l ? tb_keep(PSG_OK, &l) : NULL;
}

static size_t num_loops(psg_tir_schedule *s, const char *b) {
  psg_tir_expr **loops = NULL;
  size_t n = 0;
  CHECK_OK(psg_tir_schedule_get_loops(s, b, &loops, &n));
  for (size_t i = 0; i < n; i++) psg_tir_release(loops[i]);
  psg_free(loops);
  return n;
}

/* The printed current function contains every fragment. */
static void expect_text(psg_tir_schedule *s, const char *const *frags, size_t n) {
  char *t = eq_print(psg_tir_schedule_get_func(s));
  for (size_t i = 0; t && i < n; i++) {
    bool has = strstr(t, frags[i]) != NULL;
    CHECK(has);
    if (!has) fprintf(stderr, "  missing '%s' in:\n%s\n", frags[i], t);
  }
  psg_free(t);
}

static void finish(psg_tir_schedule *s, psg_tir_prim_func *orig, uint64_t seed) {
  eq_check_same(orig, psg_tir_schedule_get_func(s), 4, 3, seed);
  psg_tir_schedule_release(s);
}

/* The primitive failed with `code` and a message holding `frag`, and the
 * function is the one before. */
static void expect_refused(psg_tir_schedule *s, psg_status st, psg_status code, const char *frag,
                           const psg_tir_prim_func *before) {
  CHECK_EQ_INT(st, code);
  CHECK(tb_error_has(frag));
  CHECK(psg_tir_schedule_get_func(s) == before);
  psg_ctx_clear_diags(TB.ctx);
}

static void test_get_block_and_loops(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(ELEM, &f);
  if (!s) return;
  const char *name = NULL;
  CHECK_OK(psg_tir_schedule_get_block(s, "C", &name));
  CHECK_STR(name, "C");
  CHECK_EQ_INT(num_loops(s, "B_1"), 2);
  CHECK_STR(psg_tir_var_name(loop_of(s, "C", 1)), "j");
  expect_refused(s, psg_tir_schedule_get_block(s, "D", NULL), PSG_ERR_NOT_FOUND, "no block 'D'", f);
  finish(s, f, 1);
}

static void test_split(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(ELEM, &f);
  if (!s) return;
  psg_tir_expr *j = loop_of(s, "C", 1), *parts[3] = {0};
  int64_t factors[2] = {0, 4};
  CHECK_OK(psg_tir_schedule_split(s, j, factors, 2, parts));
  const char *want[] = {"for i, j_0, j_1 in T.grid(8, 3, 4):", "C[i, j_0 * 4 + j_1] = B_1[i, j_0 * 4 + j_1]"};
  expect_text(s, want, 2);
  CHECK_EQ_INT(num_loops(s, "C"), 3);
  for (int k = 0; k < 2; k++) psg_tir_release(parts[k]);
  /* a non-dividing factor: guarded with T.likely */
  psg_tir_expr *bi = loop_of(s, "B_1", 0);
  int64_t f3[2] = {3, 0};
  CHECK_OK(psg_tir_schedule_split(s, bi, f3, 2, parts));
  const char *want2[] = {"for i_0, i_1 in T.grid(3, 3):", "if T.likely(i_0 * 3 + i_1 < 8):"};
  expect_text(s, want2, 2);
  for (int k = 0; k < 2; k++) psg_tir_release(parts[k]);
  /* three factors */
  psg_tir_expr *ci = loop_of(s, "C", 0);
  int64_t f4[3] = {2, 2, 2};
  CHECK_OK(psg_tir_schedule_split(s, ci, f4, 3, parts));
  for (int k = 0; k < 3; k++) psg_tir_release(parts[k]);
  const char *want3[] = {"i_0 * 4 + i_1 * 2 + i_2"};
  expect_text(s, want3, 1);
  /* a symbolic extent: the inferred factor is a ceiling division, always guarded */
  static const char *sym = "# from tvm.script import tir as T\n\n@T.prim_func\n"
                           "def main(A: T.Buffer((16,), \"int32\"), n: T.int32):\n"
                           "    for i in range(n):\n        A[i % 16] = A[i % 16] + i\n";
  psg_tir_prim_func *g;
  psg_tir_schedule *t = sched(sym, &g);
  if (t) {
    int64_t f4b[2] = {0, 4};
    CHECK_OK(psg_tir_schedule_split(t, loop_of(t, "A", 0), f4b, 2, NULL));
    const char *wsym[] = {"for i_0, i_1 in T.grid((n + 3) // 4, 4):", "if T.likely(i_0 * 4 + i_1 < n):"};
    expect_text(t, wsym, 2);
    for (int64_t n = 0; n < 11; n += 5) eq_check_same(g, psg_tir_schedule_get_func(t), n, 1, 40 + (uint64_t)n);
    psg_tir_schedule_release(t);
  }
  /* errors: the old loop is gone; a product too small; two Nones */
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_split(s, j, factors, 2, NULL), PSG_ERR_NOT_FOUND, "no loop over 'j'", now);
  psg_tir_expr *c0 = loop_of(s, "C", 0);
  int64_t small[2] = {1, 1}, nones[2] = {0, 0};
  expect_refused(s, psg_tir_schedule_split(s, c0, small, 2, NULL), PSG_ERR_INVALID_ARGUMENT, "less than the extent",
                 now);
  expect_refused(s, psg_tir_schedule_split(s, c0, nones, 2, NULL), PSG_ERR_INVALID_ARGUMENT, "at most one factor",
                 now);
  finish(s, f, 2);
}

static void test_fuse_reorder(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(ELEM, &f);
  if (!s) return;
  psg_tir_expr *i = loop_of(s, "C", 0), *j = loop_of(s, "C", 1), *fused = NULL;
  psg_tir_expr *ij[2] = {i, j}, *ji[2] = {j, i};
  CHECK_OK(psg_tir_schedule_reorder(s, ji, 2));
  const char *want[] = {"for j, i in T.grid(12, 8):\n        C[i, j]"};
  expect_text(s, want, 1);
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_fuse(s, ij, 2, NULL), PSG_ERR_INVALID_ARGUMENT, "not the whole body", now);
  CHECK_OK(psg_tir_schedule_fuse(s, ji, 2, &fused));
  CHECK_STR(psg_tir_var_name(fused), "j_i_fused");
  const char *want2[] = {"for j_i_fused in range(96):", "C[j_i_fused % 8, j_i_fused // 8]"};
  expect_text(s, want2, 2);
  psg_tir_release(fused);
  /* loops of two different nests do not reorder */
  psg_tir_expr *bi = loop_of(s, "B_1", 0), *cf = loop_of(s, "C", 0), *two[2] = {bi, cf};
  now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_reorder(s, two, 2), PSG_ERR_INVALID_ARGUMENT, "not on the path", now);
  finish(s, f, 3);
}

static void test_kinds_and_annotate(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(MATMUL_TE, &f);
  if (!s) return;
  psg_tir_expr *i = loop_of(s, "C", 0), *j = loop_of(s, "C", 1), *k = loop_of(s, "C", 2);
  CHECK_OK(psg_tir_schedule_parallel(s, i));
  CHECK_OK(psg_tir_schedule_unroll(s, k));
  CHECK_OK(psg_tir_schedule_vectorize(s, j));
  psg_attr *v = NULL;
  CHECK_OK(psg_attr_int(TB.ctx, 16, &v));
  CHECK_OK(psg_tir_schedule_annotate(s, i, "pragma_auto_unroll_max_step", v));
  psg_attr_release(v);
  const char *want[] = {"for i in T.parallel(8, annotations={\"pragma_auto_unroll_max_step\": 16}):",
                        "for j in T.vectorized(10):", "for k in T.unroll(6):"};
  expect_text(s, want, 3);
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_parallel(s, k), PSG_ERR_INVALID_ARGUMENT, "reduction loop", now);
  expect_refused(s, psg_tir_schedule_vectorize(s, k), PSG_ERR_INVALID_ARGUMENT, "reduction loop", now);
  finish(s, f, 4);
}

static void test_compute_inline(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(ELEM, &f);
  if (!s) return;
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_compute_inline(s, "C"), PSG_ERR_INVALID_ARGUMENT, "function parameter", now);
  CHECK_OK(psg_tir_schedule_compute_inline(s, "B_1"));
  const char *want[] = {"C[i, j] = A[i, j] * T.float32(2.0) + T.float32(1.0)"};
  expect_text(s, want, 1);
  char *t = eq_print(psg_tir_schedule_get_func(s));
  CHECK(t && !strstr(t, "allocate"));
  psg_free(t);
  finish(s, f, 5);
  /* a reduction does not inline */
  s = sched(MATMUL_TE, &f);
  if (!s) return;
  expect_refused(s, psg_tir_schedule_compute_inline(s, "C"), PSG_ERR_INVALID_ARGUMENT, "has 2 stores", f);
  finish(s, f, 6);
}

static void test_reverse_compute_inline(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(ELEM, &f);
  if (!s) return;
  CHECK_OK(psg_tir_schedule_reverse_compute_inline(s, "C"));
  const char *want[] = {"C[i, j] = A[i, j] * T.float32(2.0) + T.float32(1.0)"};
  expect_text(s, want, 1);
  finish(s, f, 7);
  /* the consumer reads no computed buffer */
  s = sched(MATMUL_TE, &f);
  if (!s) return;
  expect_refused(s, psg_tir_schedule_reverse_compute_inline(s, "C"), PSG_ERR_INVALID_ARGUMENT, "has 2 stores", f);
  finish(s, f, 8);
}

static void test_compute_at(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(CONV1D, &f);
  if (!s) return;
  psg_tir_expr *i = loop_of(s, "O", 0);
  CHECK_OK(psg_tir_schedule_compute_at(s, "P_1", i, false));
  const char *want[] = {"for p in range(3):\n            P_1[p + i] = T.if_then_else(1 <= p + i and p + i < 11, A[p + i - 1]"};
  expect_text(s, want, 1);
  CHECK_EQ_INT(num_loops(s, "P_1"), 2);
  finish(s, f, 9);
  /* after a split of the consumer: the region of one tile */
  s = sched(ELEM, &f);
  if (!s) return;
  psg_tir_expr *cj = loop_of(s, "C", 1), *parts[2];
  int64_t fac[2] = {0, 4};
  CHECK_OK(psg_tir_schedule_split(s, cj, fac, 2, parts));
  CHECK_OK(psg_tir_schedule_compute_at(s, "B_1", parts[0], true));
  const char *want2[] = {"for i_1, j in T.grid(1, 4):", "B_1[i_1 + i, j + j_0 * 4] = A[i_1 + i, j + j_0 * 4]"};
  expect_text(s, want2, 2);
  CHECK_EQ_INT(num_loops(s, "B_1"), 4);
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_compute_at(s, "C", parts[1], false), PSG_ERR_INVALID_ARGUMENT, "function parameter",
                 now);
  for (int k = 0; k < 2; k++) psg_tir_release(parts[k]);
  finish(s, f, 10);
  /* a loop the producer is not read under everywhere */
  s = sched(ELEM, &f);
  if (!s) return;
  psg_tir_expr *bi = loop_of(s, "B_1", 0);
  expect_refused(s, psg_tir_schedule_compute_at(s, "B_1", bi, false), PSG_ERR_INVALID_ARGUMENT, "inside block", f);
  finish(s, f, 11);
}

static void test_cache_write(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(MATMUL_TE, &f);
  if (!s) return;
  const char *cache = NULL;
  CHECK_OK(psg_tir_schedule_cache_write(s, "C", 0, "local", &cache));
  CHECK_STR(cache, "C_local");
  const char *want[] = {"C_local = T.allocate([8, 10], \"float32\", \"local\")",
                        "C_local_1[i, j] = C_local_1[i, j] + ", "C[ax0, ax1] = C_local_1[ax0, ax1]"};
  expect_text(s, want, 3);
  /* the copy keeps the name: computing the cache at the copy's loop */
  psg_tir_expr *ax0 = loop_of(s, "C", 0);
  CHECK_OK(psg_tir_schedule_compute_at(s, "C_local", ax0, false));
  const char *want2[] = {"for ax0 in range(8):",
                         "for j in range(10):\n            C_local_1[ax0, j] = T.float32(0.0)"};
  expect_text(s, want2, 2);
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_cache_write(s, "C", 1, "local", NULL), PSG_ERR_INVALID_ARGUMENT,
                 "index 1 out of range", now);
  finish(s, f, 12);
}

static void test_decompose_reduction(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(MATMUL_GUARDED, &f);
  if (!s) return;
  psg_tir_expr *j = loop_of(s, "C", 1), *k = loop_of(s, "C", 2);
  CHECK_OK(psg_tir_schedule_decompose_reduction(s, "C", j, NULL));
  const char *want[] = {"for j_init in range(10):\n            C[i, j_init] = T.float32(0.0)\n        for j, k in"};
  expect_text(s, want, 1);
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_decompose_reduction(s, "C", k, NULL), PSG_ERR_INVALID_ARGUMENT,
                 "no init-guarded", now);
  finish(s, f, 13);
  /* the reduction loop outside the target loop */
  s = sched(MATMUL_GUARDED, &f);
  if (!s) return;
  psg_tir_expr *ki = loop_of(s, "C", 2), *ii = loop_of(s, "C", 0), *jj = loop_of(s, "C", 1);
  psg_tir_expr *order[3] = {ki, ii, jj};
  CHECK_OK(psg_tir_schedule_reorder(s, order, 3));
  now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_decompose_reduction(s, "C", ii, NULL), PSG_ERR_INVALID_ARGUMENT,
                 "reduction loop 'k' is outside", now);
  finish(s, f, 14);
  /* after a split of the reduction loop: the guard k_0 * 2 + k_1 == 0 */
  s = sched(MATMUL_GUARDED, &f);
  if (!s) return;
  psg_tir_expr *kk = loop_of(s, "C", 2), *kp[2];
  int64_t kf[2] = {3, 2};
  CHECK_OK(psg_tir_schedule_split(s, kk, kf, 2, kp));
  CHECK_OK(psg_tir_schedule_decompose_reduction(s, "C", kp[0], NULL));
  const char *want3[] = {"for i, j in T.grid(8, 10):\n        C[i, j] = T.float32(0.0)\n        for k_0, k_1 in T.grid(3, 2):"};
  expect_text(s, want3, 1);
  psg_tir_release(kp[0]);
  psg_tir_release(kp[1]);
  finish(s, f, 17);
  /* a guard true at two iterations is no init guard */
  static const char *twice = "# from tvm.script import tir as T\n\n@T.prim_func\n"
                             "def main(A: T.Buffer((6,), \"float32\"), C: T.Buffer((1,), \"float32\")):\n"
                             "    for k in range(6):\n        if k // 2 == 0:\n            C[0] = T.float32(0)\n"
                             "        C[0] = C[0] + A[k]\n";
  s = sched(twice, &f);
  if (!s) return;
  psg_tir_expr *k6 = loop_of(s, "C", 0);
  expect_refused(s, psg_tir_schedule_decompose_reduction(s, "C", k6, NULL), PSG_ERR_INVALID_ARGUMENT,
                 "no init-guarded", f);
  finish(s, f, 18);
  /* the legacy form is decomposed already */
  s = sched(MATMUL_TE, &f);
  if (!s) return;
  psg_tir_expr *li = loop_of(s, "C", 0);
  expect_refused(s, psg_tir_schedule_decompose_reduction(s, "C", li, NULL), PSG_ERR_INVALID_ARGUMENT,
                 "decomposed already", f);
  finish(s, f, 15);
}

/* A register-tiled matmul: cache_write, split, reorder, compute_at,
 * decompose, vectorize, all checked by the interpreter at the end. */
static void test_tiled_matmul(void) {
  psg_tir_prim_func *f;
  psg_tir_schedule *s = sched(MATMUL_GUARDED, &f);
  if (!s) return;
  psg_tir_expr *i = loop_of(s, "C", 0), *j = loop_of(s, "C", 1), *k = loop_of(s, "C", 2);
  psg_tir_expr *io[2], *jo[2];
  int64_t fi[2] = {0, 4}, fj[2] = {0, 5};
  CHECK_OK(psg_tir_schedule_split(s, i, fi, 2, io));
  CHECK_OK(psg_tir_schedule_split(s, j, fj, 2, jo));
  psg_tir_expr *order[5] = {io[0], jo[0], k, io[1], jo[1]};
  CHECK_OK(psg_tir_schedule_reorder(s, order, 5));
  CHECK_OK(psg_tir_schedule_decompose_reduction(s, "C", k, NULL));
  CHECK_OK(psg_tir_schedule_vectorize(s, jo[1]));
  CHECK_OK(psg_tir_schedule_parallel(s, io[0]));
  for (int q = 0; q < 2; q++) {
    psg_tir_release(io[q]);
    psg_tir_release(jo[q]);
  }
  finish(s, f, 16);
}

/* cache_write_at: the register tile of a tiled matmul, a local [4, 5]
 * under j_0 with the copy at the end of j_0's body; refused where the init
 * does not cover the tile, where the stage stores outside the loop, and
 * where the tile is read other than by its own update. */
/* *k is pooled (released by tb_fini); io and jo are the caller's to release. */
static psg_tir_schedule *tiled(psg_tir_prim_func **f, psg_tir_expr **io, psg_tir_expr **jo, psg_tir_expr **k) {
  psg_tir_schedule *s = sched(MATMUL_GUARDED, f);
  if (!s) return NULL;
  psg_tir_expr *i = loop_of(s, "C", 0), *j = loop_of(s, "C", 1);
  *k = loop_of(s, "C", 2);
  int64_t fi[2] = {0, 4}, fj[2] = {0, 5};
  CHECK_OK(psg_tir_schedule_split(s, i, fi, 2, io));
  CHECK_OK(psg_tir_schedule_split(s, j, fj, 2, jo));
  psg_tir_expr *order[5] = {io[0], jo[0], *k, io[1], jo[1]};
  CHECK_OK(psg_tir_schedule_reorder(s, order, 5));
  return s;
}

static void release2(psg_tir_expr **a, psg_tir_expr **b) {
  for (int q = 0; q < 2; q++) psg_tir_release(a[q]), psg_tir_release(b[q]);
}

static void test_cache_write_at(void) {
  psg_tir_prim_func *f;
  psg_tir_expr *io[2], *jo[2], *k;
  psg_tir_schedule *s = tiled(&f, io, jo, &k);
  if (!s) return;
  CHECK_OK(psg_tir_schedule_decompose_reduction(s, "C", k, NULL));
  psg_tir_prim_func *now = psg_tir_schedule_get_func(s);
  /* the loop outside the init: the stage stores outside it */
  expect_refused(s, psg_tir_schedule_cache_write_at(s, "C", k, "local", NULL), PSG_ERR_INVALID_ARGUMENT,
                 "stores outside loop 'k'", now);
  const char *cache = NULL;
  CHECK_OK(psg_tir_schedule_cache_write_at(s, "C", jo[0], "local", &cache));
  CHECK_STR(cache, "C_local");
  const char *want[] = {"for i_0, j_0 in T.grid(2, 2):\n        C_local = T.allocate([4, 5], \"float32\", \"local\")",
                        "C_local_1[i_1_init, j_1_init] = T.float32(0.0)",
                        "C_local_1[i_1, j_1] = C_local_1[i_1, j_1] + A[i_0 * 4 + i_1, k] * B[k, j_0 * 5 + j_1]",
                        "for ax0, ax1 in T.grid(4, 5):\n            C[i_0 * 4 + ax0, j_0 * 5 + ax1] = C_local_1[ax0, ax1]"};
  expect_text(s, want, 4);
  CHECK_OK(psg_tir_schedule_vectorize(s, jo[1]));
  CHECK_OK(psg_tir_schedule_unroll(s, io[1]));
  CHECK_OK(psg_tir_schedule_parallel(s, io[0]));
  release2(io, jo);
  finish(s, f, 19);
  /* without decompose_reduction the init is guarded: no init nest covers the tile */
  s = tiled(&f, io, jo, &k);
  if (!s) return;
  now = psg_tir_schedule_get_func(s);
  expect_refused(s, psg_tir_schedule_cache_write_at(s, "C", jo[0], "local", NULL), PSG_ERR_INVALID_ARGUMENT,
                 "does not write its whole region", now);
  release2(io, jo);
  finish(s, f, 20);
  /* a tile read at another element (a running sum) is refused */
  static const char *prefix = "# from tvm.script import tir as T\n\n@T.prim_func\n"
                              "def main(A: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n"
                              "    for o in range(2):\n        for i in range(4):\n            C[o * 4 + i] = A[o * 4 + i]\n"
                              "        for i in range(3):\n"
                              "            C[o * 4 + i + 1] = C[o * 4 + i + 1] + C[o * 4 + i]\n";
  s = sched(prefix, &f);
  if (!s) return;
  psg_tir_expr *o = loop_of(s, "C", 0);
  expect_refused(s, psg_tir_schedule_cache_write_at(s, "C", o, "local", NULL), PSG_ERR_INVALID_ARGUMENT,
                 "other than by the store of the same element", f);
  finish(s, f, 21);
}

/* Random nests (tests/unit/tir_equiv.h): every loop of stage O split by a
 * random factor (one in three inferred), then its two outer loops fused
 * when they nest perfectly (refused, unchanged, otherwise). */
static void test_random_nests(void) {
  uint64_t seed = 0x5eed5c4edull;
  for (int round = 0; round < 120; round++) {
    psg_tir_prim_func *f = eq_random_func(&seed, round % 4 == 3);
    if (!f) return;
    psg_tir_retain(f);
    psg_tir_schedule *s = NULL;
    CHECK_OK(psg_tir_schedule_create(f, &s));
    psg_tir_expr **loops = NULL;
    size_t n = 0;
    CHECK_OK(psg_tir_schedule_get_loops(s, "O", &loops, &n));
    for (size_t k = 0; k < n; k++) {
      int64_t fac[2] = {0, 1 + (int64_t)(eq_rand(&seed) % 4)};
      if (eq_rand(&seed) % 3 == 0) fac[0] = fac[1], fac[1] = 0;
      psg_tir_expr *parts[2] = {0};
      CHECK_OK(psg_tir_schedule_split(s, loops[k], fac, 2, parts));
      psg_tir_release(parts[0]);
      psg_tir_release(parts[1]);
    }
    for (size_t k = 0; k < n; k++) psg_tir_release(loops[k]);
    psg_free(loops);
    CHECK_OK(psg_tir_schedule_get_loops(s, "O", &loops, &n));
    if (n >= 2) {
      psg_tir_prim_func *before = psg_tir_schedule_get_func(s);
      psg_status st = psg_tir_schedule_fuse(s, loops, 2, NULL);
      if (st) {
        CHECK(psg_tir_schedule_get_func(s) == before);
        psg_ctx_clear_diags(TB.ctx);
      }
    }
    for (size_t k = 0; k < n; k++) psg_tir_release(loops[k]);
    psg_free(loops);
    eq_check_same(f, psg_tir_schedule_get_func(s), 4, 2, seed);
    psg_tir_schedule_release(s);
    psg_tir_release(f);
  }
}

/* A 10,000-deep nest on a 1 MiB stack (STYLE rule 9): loops found, split,
 * reordered and fused, the result checked by the interpreter. */
static void *deep_body(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = eq_deep_nest_func(10000);
  if (!f) return NULL;
  psg_tir_schedule *s = NULL;
  CHECK_OK(psg_tir_schedule_create(f, &s));
  if (!s) return NULL;
  psg_tir_expr **loops = NULL;
  size_t n = 0;
  CHECK_OK(psg_tir_schedule_get_loops(s, "A", &loops, &n));
  CHECK_EQ_INT(n, 10000);
  if (n == 10000) {
    int64_t fac[2] = {0, 1};
    psg_tir_expr *swap[2] = {loops[5001], loops[5000]};
    CHECK_OK(psg_tir_schedule_split(s, loops[9999], fac, 2, NULL));
    CHECK_OK(psg_tir_schedule_reorder(s, swap, 2));
    CHECK_OK(psg_tir_schedule_fuse(s, loops, 2, NULL));
  }
  for (size_t i = 0; i < n; i++) psg_tir_release(loops[i]);
  psg_free(loops);
  eq_check_same(f, psg_tir_schedule_get_func(s), 4, 1, 17);
  psg_tir_schedule_release(s);
  return NULL;
}

static void test_deep_nest(void) { eq_small_stack(deep_body); }

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_get_block_and_loops);
  RUN_TEST(test_split);
  RUN_TEST(test_fuse_reorder);
  RUN_TEST(test_kinds_and_annotate);
  RUN_TEST(test_compute_inline);
  RUN_TEST(test_reverse_compute_inline);
  RUN_TEST(test_compute_at);
  RUN_TEST(test_cache_write);
  RUN_TEST(test_decompose_reduction);
  RUN_TEST(test_tiled_matmul);
  RUN_TEST(test_cache_write_at);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_deep_nest);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
