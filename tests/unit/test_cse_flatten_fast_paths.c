/* Passage — the fast paths of tir.CommonSubexprElimTIR and tir.StorageFlatten
 * give what the full computations give (docs/design.md, the departures
 * "CSE keeps a statement whose computation table is surely empty" and
 * "StorageFlatten reuses the flat indices of an access of the same shape"):
 *  - CSE with its fast paths (nothing_to_common, table_known_empty, the
 *    loops' tables without their bodies', the work list in table order
 *    within a size unless two computations of one size are replaced) against
 *    CSE with none (psgi_cse_exhaustive), with and without
 *    identify_equiv_terms;
 *  - StorageFlatten with the shape cache against StorageFlatten computing
 *    every flat index (psgi_flat_shapes_disabled);
 * structurally equal, on: the hand-written TIR corpus (its functions made
 * legacy-TE for StorageFlatten), 200 random loop nests over strided, offset
 * and axis-separated buffers, and 150 generated legacy functions whose loop
 * nests index 2-d and 3-d buffers in shapes that recur with other loop vars
 * (flattened, then commoned: what the models' functions look like), and 200
 * functions doing several computations of one size twice or more, or equal
 * to a let value in scope (CSE's table order within a size against TVM's
 * text order: taking the table order when two of one size are replaced
 * fails 79 of them). The comparisons are not vacuous: CSE must change some of them, and the shape
 * cache must be seen answering (one flat index node shared by two accesses
 * of different buffers, which separate simplifications never share), and
 * its answer must be the computed one when the earlier access's nodes are
 * not replaced by the later one's (a broken cache fails here). */
#include "tir/transforms/tir_transforms.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static size_t cse_changed, cse_compared, flat_compared;

static psg_tir_prim_func *legacy(psg_tir_prim_func *f) {
  psg_attr *t = NULL;
  psg_tir_prim_func *g = NULL;
  if (!f) return NULL;
  CHECK_OK(psg_attr_bool(TB.ctx, true, &t));
  CHECK_OK(psg_tir_prim_func_with_attr(f, "from_legacy_te_schedule", t, &g));
  psg_attr_release(t);
  return tb_keep(PSG_OK, &g);
}

static void compare_cse(const char *what, psg_tir_prim_func *f) {
  for (int equiv = 0; equiv < 2; equiv++) {
    psg_tir_prim_func *fast = NULL, *full = NULL;
    psgi_cse_exhaustive = false;
    CHECK_OK(psgi_tir_common_subexpr_elim(TB.ctx, f, equiv, &fast));
    psgi_cse_exhaustive = true;
    CHECK_OK(psgi_tir_common_subexpr_elim(TB.ctx, f, equiv, &full));
    psgi_cse_exhaustive = false;
    bool same = fast && full && psg_tir_structural_equal((const psg_tir_node *)fast, (const psg_tir_node *)full);
    if (!same) printf("FAIL %s (identify_equiv_terms=%d): CSE with and without its fast paths differ\n", what, equiv);
    CHECK(same);
    cse_compared++;
    cse_changed += full != f;
    psg_tir_release(fast);
    psg_tir_release(full);
  }
}

/* StorageFlatten of f both ways; the result with the shape cache (pooled),
 * or NULL when the pass refuses f (both ways alike). */
static psg_tir_prim_func *compare_flatten(const char *what, psg_tir_prim_func *f) {
  psg_tir_prim_func *fast = NULL, *full = NULL;
  psgi_flat_shapes_disabled = false;
  psg_status s1 = psgi_tir_storage_flatten(TB.ctx, f, 64, false, &fast);
  psgi_flat_shapes_disabled = true;
  psg_status s2 = psgi_tir_storage_flatten(TB.ctx, f, 64, false, &full);
  psgi_flat_shapes_disabled = false;
  bool same = s1 == s2 && (s1 || psg_tir_structural_equal((const psg_tir_node *)fast, (const psg_tir_node *)full));
  if (!same) printf("FAIL %s: StorageFlatten with and without the shape cache differs\n", what);
  CHECK(same);
  flat_compared++;
  psg_tir_release(full);
  return s1 ? NULL : tb_keep(PSG_OK, &fast);
}

static void compare_both(const char *what, psg_tir_prim_func *f) {
  compare_cse(what, f);
  psg_tir_prim_func *flat = compare_flatten(what, legacy(f));
  if (flat) compare_cse(what, flat);
}

static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", compare_both, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
}

static void test_random_nests(void) {
  uint64_t seed = 3016;
  for (int i = 0; i < 200; i++) {
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) compare_both(i % 2 ? "random int64" : "random int32", f);
  }
}

/* Index forms over a nest's two loop vars (%1$s outer, %2$s inner): a few,
 * so that shapes recur across nests and buffers. */
static const char *const FORMS[] = {
    "%1$s", "%2$s", "%1$s * 2 + %2$s", "%1$s // 2", "%2$s %% 3", "(%1$s + %2$s) // 2", "%1$s * 3 - %2$s",
    "T.min(%1$s, %2$s)", "%2$s * 4 + %1$s // 3", "T.max(%1$s - 1, 0)",
};

static void put_index(char *buf, size_t cap, uint64_t *seed, const char *outer, const char *inner) {
  size_t len = strlen(buf);
  snprintf(buf + len, cap - len, FORMS[eq_rand(seed) % (sizeof FORMS / sizeof *FORMS)], outer, inner);
}

/* One access of buffer P, Q or R (2-d, 2-d, 3-d) at generated indices. */
static void put_access(char *buf, size_t cap, uint64_t *seed, const char *outer, const char *inner) {
  int which = (int)(eq_rand(seed) % 3);
  size_t len = strlen(buf);
  snprintf(buf + len, cap - len, "%c[", "PQR"[which]);
  for (int d = 0; d < (which == 2 ? 3 : 2); d++) {
    if (d) strncat(buf, ", ", cap - strlen(buf) - 1);
    put_index(buf, cap, seed, outer, inner);
  }
  strncat(buf, "]", cap - strlen(buf) - 1);
}

static psg_tir_prim_func *generated_func(uint64_t *seed) {
  static char text[16384];
  snprintf(text, sizeof text,
           "# from tvm.script import tir as T\n@T.prim_func\n"
           "def main(P: T.Buffer((24, 12), \"float32\"), Q: T.Buffer((24, 12), \"float32\"), "
           "R: T.Buffer((6, 8, 10), \"float32\")):\n"
           "    T.func_attr({\"from_legacy_te_schedule\": True})\n");
  int nests = 2 + (int)(eq_rand(seed) % 4);
  for (int k = 0; k < nests; k++) {
    char outer[8], inner[8];
    snprintf(outer, sizeof outer, "o%d", k);
    snprintf(inner, sizeof inner, "n%d", k);
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "    for %s in range(%d):\n        for %s in range(%d):\n            ",
             outer, 2 + (int)(eq_rand(seed) % 5), inner, 2 + (int)(eq_rand(seed) % 5));
    put_access(text, sizeof text, seed, outer, inner);
    strncat(text, " = ", sizeof text - strlen(text) - 1);
    int terms = 1 + (int)(eq_rand(seed) % 3);
    for (int t = 0; t < terms; t++) {
      if (t) strncat(text, " + ", sizeof text - strlen(text) - 1);
      put_access(text, sizeof text, seed, outer, inner);
    }
    strncat(text, "\n", sizeof text - strlen(text) - 1);
  }
  return eq_parse(text);
}

static void test_generated(void) {
  uint64_t seed = 1627;
  for (int i = 0; i < 150; i++) {
    psg_tir_prim_func *f = generated_func(&seed);
    if (!f) continue;
    psg_tir_prim_func *flat = compare_flatten("generated", f);
    CHECK(flat != NULL);
    if (flat) compare_cse("generated, flattened", flat);
  }
}

/* Loops whose min or extent is a computation their body does too: there
 * the loop's own table is not empty (the fast path must not keep it). */
static void test_computed_loop_bounds(void) {
  static const char *BODIES[] = {
      "    for i in range(n * 2):\n        A[i] = n * 2\n",
      "    for i in range(n + 1, 64):\n        A[i] = n + 1\n",
      "    for k in range(4):\n        for i in range(n * 2 - k):\n            A[i] = n * 2 - k\n",
  };
  for (size_t k = 0; k < sizeof BODIES / sizeof *BODIES; k++) {
    char text[1024];
    snprintf(text, sizeof text,
             "# from tvm.script import tir as T\n@T.prim_func\n"
             "def main(A: T.Buffer((64,), \"int32\"), n: T.int32):\n%s",
             BODIES[k]);
    psg_tir_prim_func *f = eq_parse(text);
    CHECK(f != NULL);
    if (!f) continue;
    size_t before = cse_changed;
    compare_cse("computed loop bounds", f);
    if (cse_changed == before) printf("FAIL computed loop bounds %zu: nothing commoned\n%s", k, BODIES[k]);
    CHECK(cse_changed > before);
  }
}

/* Two accesses of equal shape and the same vars in different buffers of the
 * same symbolic shape (the flat index i * m + j holds no node but the
 * access's vars and fresh ones): with the cache
 * their flat indices are one node (the remembered one, nothing to put in),
 * computed separately they are two (equal) nodes. */
static void test_cache_answers(void) {
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n@T.prim_func\n"
                                  "def main(n: T.int32, m: T.int32, A: T.Buffer((n, m), \"float32\"), "
                                  "B: T.Buffer((n, m), \"float32\")):\n"
                                  "    T.func_attr({\"from_legacy_te_schedule\": True})\n"
                                  "    for i in range(n):\n        for j in range(m):\n"
                                  "            B[i, j] = A[i, j]\n");
  CHECK(f != NULL);
  if (!f) return;
  for (int disabled = 0; disabled < 2; disabled++) {
    psg_tir_prim_func *g = NULL;
    psgi_flat_shapes_disabled = disabled;
    CHECK_OK(psgi_tir_storage_flatten(TB.ctx, f, 64, false, &g));
    psgi_flat_shapes_disabled = false;
    const psg_tir_node *store = psg_tir_get_body(g);
    while (store && psg_tir_kind(store) == PSG_TIR_FOR) store = psg_tir_get_operand(store, 3);
    CHECK(store && psg_tir_kind(store) == PSG_TIR_BUFFER_STORE);
    if (store && psg_tir_kind(store) == PSG_TIR_BUFFER_STORE) {
      const psg_tir_node *load = psg_tir_buffer_store_get_value(store);
      CHECK(psg_tir_kind(load) == PSG_TIR_BUFFER_LOAD);
      const psg_tir_node *si = psg_tir_get_operand(store, 2), *li = psg_tir_get_operand(load, 1);
      CHECK(psg_tir_structural_equal(si, li));
      if (disabled) CHECK(si != li);
      else CHECK(si == li);
    }
    psg_tir_release(g);
  }
}

/* Several computations of one size done twice or more, or equal to a let
 * value in scope, in random order: CSE decides its work list in table order
 * within a size and redoes it in text order when two computations of one
 * size are replaced (bound to a context var or given a new var); the
 * result must be TVM's order's (the exhaustive one's) either way. */
static const char *const SAME_SIZE[] = {"a * b", "c * d", "b * c", "a * d", "d - a", "c + b", "a + i", "i * d"};

static psg_tir_prim_func *same_size_func(uint64_t *seed) {
  static char text[8192];
  size_t npool = sizeof SAME_SIZE / sizeof *SAME_SIZE;
  snprintf(text, sizeof text,
           "# from tvm.script import tir as T\n@T.prim_func\n"
           "def main(A: T.Buffer((64,), \"int32\"), a: T.int32, b: T.int32, c: T.int32, d: T.int32):\n");
  const char *indent = "    ";
  if (eq_rand(seed) % 2) { /* a let whose value the body does too: replaced by its var */
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "    x: T.int32 = %s\n", SAME_SIZE[eq_rand(seed) % 6]);
  }
  size_t len = strlen(text);
  snprintf(text + len, sizeof text - len, "%sfor i in range(8):\n", indent);
  int stores = 2 + (int)(eq_rand(seed) % 4);
  for (int k = 0; k < stores; k++) {
    len = strlen(text);
    snprintf(text + len, sizeof text - len, "        A[i * 8 + %d] = %s + (%s)\n", k, SAME_SIZE[eq_rand(seed) % npool],
             SAME_SIZE[eq_rand(seed) % npool]);
  }
  return eq_parse(text);
}

static void test_same_size_commons(void) {
  uint64_t seed = 3131;
  size_t before = cse_changed;
  for (int i = 0; i < 200; i++) {
    psg_tir_prim_func *f = same_size_func(&seed);
    CHECK(f != NULL);
    if (f) compare_cse("computations of one size", f);
  }
  CHECK(cse_changed - before > 200);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_corpus);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_generated);
  RUN_TEST(test_cache_answers);
  RUN_TEST(test_computed_loop_bounds);
  RUN_TEST(test_same_size_commons);
  printf("CSE compared %zu (changed %zu), StorageFlatten compared %zu\n", cse_compared, cse_changed, flat_compared);
  CHECK(cse_changed > 50 && flat_compared > 300);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
