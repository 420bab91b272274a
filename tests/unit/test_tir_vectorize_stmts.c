/* Passage — tir.VectorizeLoop walks statements only (psgi_tir_vectorize_loop):
 * on every function of the hand-written TIR corpus (tests/tir_corpus/cases),
 * 200 random loop nests with vectorized loops, and functions with shared
 * statements, nested and failing vectorized loops, it gives the same result
 * as the mutator over every node (psgi_tir_vectorize_loop_mutator): the same
 * status and first error, and a structurally equal function, which is the
 * input itself exactly when the mutator returns its input; with
 * vectorization on and off, with and without buffer-level predication. */
#include "tir/transforms/tir_transforms.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static size_t changed, unchanged, failed;

static void compare(const char *what, psg_tir_prim_func *f) {
  for (int mode = 0; mode < 3; mode++) {
    bool enable = mode != 1, predicate = mode == 2;
    psg_tir_prim_func *a = NULL, *b = NULL;
    psg_status sa = psgi_tir_vectorize_loop(TB.ctx, f, enable, predicate, &a);
    const psg_diag *da = psg_ctx_get_last_error(TB.ctx);
    char ea[512] = "";
    if (sa && da) snprintf(ea, sizeof ea, "%s", psg_diag_message(da));
    psg_status sb = psgi_tir_vectorize_loop_mutator(TB.ctx, f, enable, predicate, &b);
    const psg_diag *db = psg_ctx_get_last_error(TB.ctx);
    bool same = sa == sb;
    if (same && sa) {
      failed++;
      same = db && !strcmp(ea, psg_diag_message(db));
      psg_ctx_clear_diags(TB.ctx);
    } else if (same) {
      same = psg_tir_structural_equal((const psg_tir_node *)a, (const psg_tir_node *)b) && (a == f) == (b == f);
      if (a == f) unchanged++;
      else changed++;
    }
    if (!same) printf("FAIL %s (enable %d, predicate %d): the statement walk and the mutator differ\n", what, enable,
                      predicate);
    CHECK(same);
    psg_tir_release(a);
    psg_tir_release(b);
  }
}

/* Every PrimFunc of every *.py of the hand-written corpus. */
static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", compare, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
}

/* A loop over a single store, of constant extent up to 16, made vectorized. */
static psg_status vectorize_store_loops(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_tir_node *post = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &post);
  if (st) return st;
  const psg_tir_node *ext = post->kids[2];
  if (post->kids[3]->kind != PSG_TIR_BUFFER_STORE || ext->kind != PSG_TIR_INT_IMM || ext->u.int_value > 16) {
    *out = post;
    return PSG_OK;
  }
  (*(int *)m->user)++;
  st = psg_tir_for_create(m->ctx, post->kids[0], post->kids[1], post->kids[2], PSG_TIR_FOR_VECTORIZED, post->kids[3],
                          NULL, &post->span, out);
  psg_tir_release(post);
  return st;
}

/* Random nests (int32 and int64 indices) as they are, and with their
 * innermost loops vectorized. */
static void test_random_nests(void) {
  uint64_t seed = 2316;
  int vectorized = 0;
  for (int i = 0; i < 200; i++) {
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1), *g = NULL;
    if (!f) continue;
    compare("random", f);
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, TB.ctx);
    m.user = &vectorized;
    m.visit[PSG_TIR_FOR] = vectorize_store_loops;
    CHECK_OK(psg_tir_mutate(&m, f, &g));
    psg_tir_mutator_fini(&m);
    if (g) compare("random, vectorized", g);
    psg_tir_release(g);
  }
  CHECK(vectorized > 50);
}

static void test_cases(void) {
  static const char *CASES[] = {
      /* two vectorized loops, one nested under a serial loop, one at the top */
      "# from tvm.script import tir as T\n@T.prim_func\n"
      "def main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
      "    for i in range(16):\n"
      "        for j in T.vectorized(4):\n"
      "            B[i * 4 + j] = A[i * 4 + j] * T.float32(2)\n"
      "    for j in T.vectorized(8):\n"
      "        B[j] = B[j] + T.float32(1)\n",
      /* a vectorized loop under an if, a let and an allocation, and one the pass scalarizes */
      "# from tvm.script import tir as T\n@T.prim_func\n"
      "def main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\"), n: T.int32):\n"
      "    if n > 2:\n"
      "        x: T.int32 = n * 2\n"
      "        C = T.allocate([8], \"float32\", \"local\")\n"
      "        C_1 = T.Buffer((8,), data=C, scope=\"local\")\n"
      "        for j in T.vectorized(8):\n"
      "            C_1[j] = A[j + x]\n"
      "        for j in T.vectorized(8):\n"
      "            if C_1[j] > T.float32(0):\n"
      "                B[j] = C_1[j]\n",
      /* nothing vectorized */
      "# from tvm.script import tir as T\n@T.prim_func\n"
      "def main(A: T.Buffer((64,), \"float32\")):\n"
      "    for i in range(64):\n"
      "        A[i] = T.float32(0)\n",
      /* a vectorized loop with a symbolic extent: an error, the same one */
      "# from tvm.script import tir as T\n@T.prim_func\n"
      "def main(A: T.Buffer((64,), \"float32\"), n: T.int32):\n"
      "    for i in range(4):\n"
      "        for j in T.vectorized(n):\n"
      "            A[j] = T.float32(0)\n",
  };
  for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
    psg_tir_prim_func *f = eq_parse(CASES[k]);
    CHECK(f != NULL);
    if (f) compare("case", f);
  }
  /* a statement shared by two branches of a SeqStmt: one result for both */
  psg_tir_prim_func *f = eq_parse(CASES[0]);
  const psg_tir_node *body = psg_tir_get_body(f);
  psg_tir_node *kids[2] = {(psg_tir_node *)psg_tir_get_operand(body, 0), (psg_tir_node *)psg_tir_get_operand(body, 0)};
  psg_tir_stmt *seq = NULL;
  psg_tir_prim_func *g = NULL;
  CHECK_OK(psg_tir_seq_stmt_create(TB.ctx, kids, 2, NULL, &seq));
  CHECK_OK(psgi_tir_func_with_body(TB.ctx, f, seq, &g));
  compare("shared", g);
  psg_tir_prim_func *v = NULL;
  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, g, true, false, &v));
  const psg_tir_node *vb = psg_tir_get_body(v);
  CHECK(psg_tir_get_operand(vb, 0) == psg_tir_get_operand(vb, 1));
  psg_tir_release(v);
  psg_tir_release(g);
  psg_tir_release(seq);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_corpus);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_cases);
  printf("vectorize: %zu changed, %zu unchanged, %zu failed alike\n", changed, unchanged, failed);
  CHECK(changed > 50 && unchanged > 50 && failed >= 2);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
