/* Passage — a PrimFunc pass's table across the functions of one run
 * (src/pass/run_scratch.h; docs/design.md, departure "A PrimFunc pass's
 * table across the functions of a run"):
 *  - the frames: no scratch outside a run, one per run made on the first
 *    request and destroyed when the run ends, another kind refused, nested
 *    runs apart, another context refused;
 *  - tir.StorageFlatten run over a module whose functions share access
 *    shapes (the hand-written TIR corpus made legacy-TE, and 150 generated
 *    functions) gives, function by function, the text and structure of
 *    StorageFlatten computing every flat index of that function alone;
 *  - the table is seen answering across functions: two functions with the
 *    same constant access get one flat index node (separate computations
 *    make two equal nodes), so a runner that gave no table fails here. */
#include "pass/run_scratch.h"
#include "tir/transforms/tir_transforms.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static int made, destroyed;
static void *count_create(psg_ctx *ctx) {
  made++;
  return psgi_alloc(ctx, 16);
}
static void count_destroy(psg_ctx *ctx, void *s) {
  destroyed++;
  psgi_free(ctx, s);
}
static const psgi_run_scratch_kind KIND_A = {count_create, count_destroy}, KIND_B = {count_create, count_destroy};

static void test_frames(void) {
  psg_ctx *other = check_ctx();
  CHECK(psgi_run_scratch(TB.ctx, &KIND_A) == NULL); /* no run */
  psgi_run_scratch_frame outer, inner;
  psgi_run_scratch_enter(&outer, TB.ctx);
  void *a = psgi_run_scratch(TB.ctx, &KIND_A);
  CHECK(a != NULL && made == 1);
  CHECK(psgi_run_scratch(TB.ctx, &KIND_A) == a && made == 1); /* the same for the whole run */
  CHECK(psgi_run_scratch(TB.ctx, &KIND_B) == NULL);           /* one kind per run */
  CHECK(psgi_run_scratch(other, &KIND_A) == NULL);            /* another context's code */
  psgi_run_scratch_enter(&inner, TB.ctx);
  void *b = psgi_run_scratch(TB.ctx, &KIND_B);
  CHECK(b != NULL && b != a && made == 2);
  psgi_run_scratch_leave(&inner);
  CHECK(destroyed == 1);
  CHECK(psgi_run_scratch(TB.ctx, &KIND_A) == a); /* the outer run's again */
  psgi_run_scratch_leave(&outer);
  CHECK(destroyed == 2);
  CHECK(psgi_run_scratch(TB.ctx, &KIND_A) == NULL);
  psg_ctx_release(other);
}

/* The functions of the module under test. */
static psg_module *mod;
static size_t nfuncs;

static void add_func(psg_tir_prim_func *f) {
  char name[32];
  snprintf(name, sizeof name, "f%zu", nfuncs);
  psg_expr *gv = NULL;
  psg_module *next = NULL;
  CHECK_OK(psg_global_var_create(TB.ctx, name, NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(mod, gv, f, &next));
  psg_expr_release(gv);
  psg_module_release(mod);
  mod = next;
  nfuncs++;
}

static psg_tir_prim_func *legacy(psg_tir_prim_func *f) {
  psg_attr *t = NULL;
  psg_tir_prim_func *g = NULL;
  CHECK_OK(psg_attr_bool(TB.ctx, true, &t));
  CHECK_OK(psg_tir_prim_func_with_attr(f, "from_legacy_te_schedule", t, &g));
  psg_attr_release(t);
  return tb_keep(PSG_OK, &g);
}

/* A corpus function StorageFlatten accepts joins the module. */
static void add_corpus_func(const char *what, psg_tir_prim_func *f) {
  (void)what;
  psg_tir_prim_func *g = legacy(f), *flat = NULL;
  if (!g) return;
  if (psgi_tir_storage_flatten(TB.ctx, g, 64, false, &flat) == PSG_OK) add_func(g);
  psg_tir_release(flat);
}

/* Accesses of a few buffers of recurring shapes at indices of a few forms
 * over the nest's vars: shapes recur across functions with other vars. */
static const char *const FORMS[] = {"%1$s", "%2$s", "%1$s * 2 + %2$s", "%1$s // 2", "%2$s %% 3", "T.min(%1$s, %2$s)"};

static void put_access(char *buf, size_t cap, uint64_t *seed, const char *o, const char *n) {
  int which = (int)(eq_rand(seed) % 3);
  size_t len = strlen(buf);
  snprintf(buf + len, cap - len, "%c[", "PQR"[which]);
  for (int d = 0; d < (which == 2 ? 3 : 2); d++) {
    if (d) strncat(buf, ", ", cap - strlen(buf) - 1);
    len = strlen(buf);
    snprintf(buf + len, cap - len, FORMS[eq_rand(seed) % (sizeof FORMS / sizeof *FORMS)], o, n);
  }
  strncat(buf, "]", cap - strlen(buf) - 1);
}

static psg_tir_prim_func *generated_func(uint64_t *seed) {
  static char text[8192];
  snprintf(text, sizeof text,
           "# from tvm.script import tir as T\n@T.prim_func\n"
           "def main(P: T.Buffer((24, 12), \"float32\"), Q: T.Buffer((24, 12), \"float32\"), "
           "R: T.Buffer((6, 8, 10), \"float32\")):\n"
           "    T.func_attr({\"from_legacy_te_schedule\": True})\n");
  int nests = 1 + (int)(eq_rand(seed) % 3);
  for (int k = 0; k < nests; k++) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "    for o%d in range(%d):\n        for n%d in range(%d):\n            ", k,
             2 + (int)(eq_rand(seed) % 4), k, 2 + (int)(eq_rand(seed) % 4));
    char o[8], n[8];
    snprintf(o, sizeof o, "o%d", k);
    snprintf(n, sizeof n, "n%d", k);
    put_access(text, sizeof text, seed, o, n);
    strncat(text, " = ", sizeof text - strlen(text) - 1);
    put_access(text, sizeof text, seed, o, n);
    strncat(text, "\n", sizeof text - strlen(text) - 1);
  }
  return eq_parse(text);
}

/* tir.StorageFlatten over the whole module against each function flattened
 * alone with every flat index computed. */
static void test_flatten_across_functions(void) {
  CHECK_OK(psg_module_create(TB.ctx, &mod));
  size_t ncorpus = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", add_corpus_func, &ncorpus) == 0);
  size_t from_corpus = nfuncs;
  uint64_t seed = 2531;
  for (int i = 0; i < 150; i++) {
    psg_tir_prim_func *f = generated_func(&seed);
    if (f) add_func(f);
  }
  CHECK(from_corpus >= 30 && nfuncs >= from_corpus + 150);
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(TB.ctx, "tir.StorageFlatten", NULL, &p));
  CHECK_OK(psg_pass_run(p, mod, NULL, &out));
  size_t compared = 0;
  for (size_t i = 0; out && i < nfuncs; i++) {
    psg_tir_prim_func *f = psg_module_get_prim_func(mod, i), *run = psg_module_get_prim_func(out, i), *alone = NULL;
    psgi_flat_shapes_disabled = true;
    CHECK_OK(psgi_tir_storage_flatten(TB.ctx, f, 64, false, &alone));
    psgi_flat_shapes_disabled = false;
    char *t1 = run ? eq_print(run) : NULL, *t2 = alone ? eq_print(alone) : NULL;
    bool same = t1 && t2 && !strcmp(t1, t2) &&
                psg_tir_structural_equal((const psg_tir_node *)run, (const psg_tir_node *)alone);
    if (!same) printf("FAIL function %zu: StorageFlatten over the module and alone differ\n%s\n%s\n", i, t1, t2);
    CHECK(same);
    compared += same;
    psg_free(t1);
    psg_free(t2);
    psg_tir_release(alone);
  }
  printf("StorageFlatten over a module of %zu functions (%zu from the corpus): %zu compared\n", nfuncs, from_corpus,
         compared);
  psg_module_release(out);
  psg_pass_release(p);
  psg_module_release(mod);
  mod = NULL;
  nfuncs = 0;
}

/* The flat index of A[2, 3] in an 8x8 buffer is the constant 19, made by
 * the simplification: over a module the second function takes the first's. */
static const psg_tir_node *load_index(const psg_tir_prim_func *f) {
  const psg_tir_node *store = psg_tir_get_body(f);
  while (store && psg_tir_kind(store) != PSG_TIR_BUFFER_STORE) store = psg_tir_get_operand(store, 1);
  if (!store) return NULL;
  const psg_tir_node *load = psg_tir_buffer_store_get_value(store);
  return psg_tir_kind(load) == PSG_TIR_BUFFER_LOAD ? psg_tir_get_operand(load, 1) : NULL;
}

static void test_shared_across_functions(void) {
  static const char *TEXT = "# from tvm.script import tir as T\n@T.prim_func\n"
                            "def main(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
                            "    T.func_attr({\"from_legacy_te_schedule\": True})\n"
                            "    B[0] = A[2, 3]\n";
  for (int disabled = 0; disabled < 2; disabled++) {
    CHECK_OK(psg_module_create(TB.ctx, &mod));
    add_func(eq_parse(TEXT));
    add_func(eq_parse(TEXT));
    psg_pass *p = NULL;
    psg_module *out = NULL;
    psgi_flat_shapes_disabled = disabled;
    CHECK_OK(psg_pass_get(TB.ctx, "tir.StorageFlatten", NULL, &p));
    CHECK_OK(psg_pass_run(p, mod, NULL, &out));
    psgi_flat_shapes_disabled = false;
    const psg_tir_node *i0 = out ? load_index(psg_module_get_prim_func(out, 0)) : NULL;
    const psg_tir_node *i1 = out ? load_index(psg_module_get_prim_func(out, 1)) : NULL;
    CHECK(i0 && i1 && psg_tir_kind(i0) == PSG_TIR_INT_IMM && psg_tir_structural_equal(i0, i1));
    if (disabled) CHECK(i0 != i1);
    else CHECK(i0 == i1);
    psg_module_release(out);
    psg_pass_release(p);
    psg_module_release(mod);
    mod = NULL;
    nfuncs = 0;
  }
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_frames);
  RUN_TEST(test_flatten_across_functions);
  RUN_TEST(test_shared_across_functions);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
