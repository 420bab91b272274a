/* Passage — tir.NarrowDataType's fast path (psgi_tir_narrow_keeps_all):
 * where it says the rewrite keeps every node, the full analysis and rewrite
 * (psgi_tir_narrow_data_type_full) must return the very function it was
 * given, and the pass must give what the full rewrite gives, for target_bits
 * 8, 16, 32 and 64, on: the hand-written TIR corpus (tests/tir_corpus/cases),
 * 200 random loop nests (int32 and int64 indices) and hand-made functions
 * that break one condition each. (The real models' PrimFuncs are compared
 * through their whole -O3 --lower output, which the fast path leaves
 * byte-identical: bench/README.md, issue 16.) Both answers (kept and not
 * kept) must occur, so the comparison is not vacuous. */
#include "tir/transforms/tir_transforms.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static const int BITS[] = {8, 16, 32, 64};
static size_t kept, not_kept;

/* Compares the fast path and the full rewrite on f for every target. */
static void compare(const char *what, psg_tir_prim_func *f) {
  for (size_t b = 0; b < sizeof BITS / sizeof *BITS; b++) {
    bool keeps = false;
    psg_tir_prim_func *fast = NULL, *full = NULL;
    CHECK_OK(psgi_tir_narrow_keeps_all(TB.ctx, f, BITS[b], &keeps));
    CHECK_OK(psgi_tir_narrow_data_type(TB.ctx, f, BITS[b], &fast));
    CHECK_OK(psgi_tir_narrow_data_type_full(TB.ctx, f, BITS[b], &full));
    if (keeps) {
      kept++;
      if (full != f || fast != f) printf("FAIL %s at %d bits: kept by the fast path, changed by the rewrite\n", what, BITS[b]);
      CHECK(full == f && fast == f);
    } else {
      not_kept++;
      bool same = fast && full && psg_tir_structural_equal((const psg_tir_node *)fast, (const psg_tir_node *)full);
      if (!same) printf("FAIL %s at %d bits: the pass and the full rewrite differ\n", what, BITS[b]);
      CHECK(same);
    }
    psg_tir_release(fast);
    psg_tir_release(full);
  }
}

/* Every PrimFunc of every *.py of the hand-written corpus. */
static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", compare, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
}

static void test_random_nests(void) {
  uint64_t seed = 1616;
  for (int i = 0; i < 200; i++) {
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) compare(i % 2 ? "random int64" : "random int32", f);
  }
}

/* One function per condition of the fast path: each must be refused by it
 * at 32 bits (and the full rewrite must agree with the pass). */
static void test_each_condition(void) {
  static const char *HEAD = "# from tvm.script import tir as T\n@T.prim_func\n"
                            "def main(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int64\"), "
                            "C: T.Buffer((64,), \"int16\")):\n";
  static const char *BODIES[] = {
      /* an int64 loop and index */
      "    for i in range(T.int64(64)):\n        A[i] = 1\n",
      /* an int64 value stored */
      "    for i in range(64):\n        B[i] = T.Cast(\"int64\", i) * T.int64(3)\n",
      /* an int64 let value */
      "    for i in range(64):\n        x: T.int64 = T.Cast(\"int64\", i)\n        A[i] = T.Cast(\"int32\", x)\n",
  };
  for (size_t k = 0; k < sizeof BODIES / sizeof *BODIES; k++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s", HEAD, BODIES[k]);
    psg_tir_prim_func *f = eq_parse(text);
    CHECK(f != NULL);
    if (!f) continue;
    bool keeps = true;
    CHECK_OK(psgi_tir_narrow_keeps_all(TB.ctx, f, 32, &keeps));
    if (keeps) printf("FAIL condition %zu: the fast path keeps\n%s\n", k, BODIES[k]);
    CHECK(!keeps);
    compare("condition", f);
  }
  /* all int32: kept at 32 and 64, not at 16 (an int32 expression is wider) */
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n@T.prim_func\n"
                                  "def main(A: T.Buffer((64,), \"int32\")):\n"
                                  "    for i in range(64):\n        A[i] = i * 2 + 1\n");
  bool keeps = false;
  CHECK_OK(psgi_tir_narrow_keeps_all(TB.ctx, f, 32, &keeps));
  CHECK(keeps);
  CHECK_OK(psgi_tir_narrow_keeps_all(TB.ctx, f, 16, &keeps));
  CHECK(!keeps);
  compare("int32 nest", f);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_corpus);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_each_condition);
  printf("fast path: kept %zu, analysed %zu (function x target_bits)\n", kept, not_kept);
  CHECK(kept > 100 && not_kept > 100);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
