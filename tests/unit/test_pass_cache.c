/* The pass cache (src/pass/pass_cache*.c, docs/pass-infra.md "Pass cache"):
 * a warm cache gives the cold run's and the uncached run's output and skips
 * the callbacks; an edited function alone is recomputed; the key covers the
 * pass options, opt level, config and callee signatures; passes are not
 * cacheable unless declared so; damaged entries are misses with a warning;
 * an unwritable directory warns once; failing runs and runs that warn are
 * not stored; threads and prim-func passes use it too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "passage/passage.h"

#define HDR "#[version = \"0.0.5\"]\n"
#define T "Tensor[(2), float32]"

static const char *const module_text =
    HDR "def @f1(%x: " T ") -> " T " { add(multiply(%x, multiply(2f, 3f)), 1f) }\n"
        "def @f2(%x: " T ") -> " T " { add(%x, add(1f, 1f)) }\n"
        "def @f3(%x: " T ") -> " T " { subtract(%x, 4f) }\n"
        "def @main(%x: " T ") -> " T " { @f3(@f2(@f1(%x))) }\n";
/* @f2 edited. */
static const char *const edited_text =
    HDR "def @f1(%x: " T ") -> " T " { add(multiply(%x, multiply(2f, 3f)), 1f) }\n"
        "def @f2(%x: " T ") -> " T " { add(%x, add(1f, 2f)) }\n"
        "def @f3(%x: " T ") -> " T " { subtract(%x, 4f) }\n"
        "def @main(%x: " T ") -> " T " { @f3(@f2(@f1(%x))) }\n";

static char dir[64];

static void fresh_dir(void) {
  char cmd[128];
  if (dir[0]) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
  }
  snprintf(dir, sizeof dir, "/tmp/psg_pass_cache_XXXXXX");
  CHECK(mkdtemp(dir) != NULL);
}

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  if (psg_tir_script_detect(text, strlen(text))) {
    psg_tir_script *s = NULL;
    CHECK_OK(psg_tir_script_parse(ctx, text, strlen(text), "<test>", &s));
    if (s) CHECK_OK(psg_tir_script_to_module(s, &m));
    psg_tir_script_release(s);
    return m;
  }
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "<test>", &m));
  return m;
}

static psg_pass_context *cache_context(psg_ctx *ctx, const char *cache_dir, int opt_level) {
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, opt_level));
  if (cache_dir) {
    psg_attr *v = NULL;
    CHECK_OK(psg_attr_string(ctx, cache_dir, strlen(cache_dir), &v));
    CHECK_OK(psg_pass_context_set_config(pc, "passage.pass_cache", v));
    psg_attr_release(v);
  }
  return pc;
}

/* Runs `pipeline` (or `pass`) on `text` under `pc`: the printed result, or
 * NULL when the run failed. */
static char *run(psg_ctx *ctx, const char *text, const char *pipeline, psg_pass *pass, psg_pass_context *pc) {
  psg_module *in = parse(ctx, text), *out = NULL;
  psg_pass *p = pass;
  if (!p) CHECK_OK(psg_pipeline_parse(ctx, pipeline, &p));
  else psg_pass_retain(p);
  char *s = NULL;
  if (psg_pass_run(p, in, pc, &out) == PSG_OK) CHECK_OK(psg_module_print(out, PSG_PRINT_DEFAULT, &s, NULL));
  psg_module_release(in);
  psg_module_release(out);
  psg_pass_release(p);
  return s;
}

static uint64_t hits(psg_pass_context *pc) { return psg_pass_context_cache_count(pc, PSG_PASS_CACHE_HITS); }
static uint64_t misses(psg_pass_context *pc) { return psg_pass_context_cache_count(pc, PSG_PASS_CACHE_MISSES); }
static uint64_t stores(psg_pass_context *pc) { return psg_pass_context_cache_count(pc, PSG_PASS_CACHE_STORES); }

static bool has_warning(psg_ctx *ctx, const char *part) {
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    if (psg_diag_severity(d) == PSG_SEVERITY_WARNING && strstr(psg_diag_message(d), part)) return true;
  }
  return false;
}

static const char *const pipeline = "sequential(InferType,SimplifyExpr,FoldConstant,EliminateCommonSubexpr,FuseOps)";

static void test_cold_warm_and_uncached_agree(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  psg_pass_context *none = cache_context(ctx, NULL, 3), *cold = cache_context(ctx, dir, 3),
                   *warm = cache_context(ctx, dir, 3);
  char *a = run(ctx, module_text, pipeline, NULL, none), *b = run(ctx, module_text, pipeline, NULL, cold),
       *c = run(ctx, module_text, pipeline, NULL, warm);
  CHECK(a && b && c);
  CHECK_STR(b, a);
  CHECK_STR(c, a);
  CHECK_EQ_INT(psg_pass_context_cache_count(none, PSG_PASS_CACHE_MISSES), 0);
  CHECK(misses(cold) > 0 && stores(cold) == misses(cold) && hits(cold) == 0);
  CHECK_EQ_INT(hits(warm), misses(cold));
  CHECK_EQ_INT(misses(warm), 0);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 0);
  psg_free(a), psg_free(b), psg_free(c);
  psg_pass_context_release(none), psg_pass_context_release(cold), psg_pass_context_release(warm);
  psg_ctx_release(ctx);
}

/* A user pass counting its callbacks: x + 0 -> x, marked cacheable. */
static int calls;

static psg_status counting(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
  psg_expr_retain(func);
  *out = func;
  return PSG_OK;
}

static psg_pass *counting_pass(psg_ctx *ctx, bool cacheable) {
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "Counting", 0, NULL, 0, &info));
  CHECK_OK(psg_create_function_pass(ctx, info, counting, NULL, NULL, &p));
  psg_pass_info_release(info);
  psg_pass_set_cacheable(p, cacheable);
  return p;
}

static void test_only_the_edited_function_is_recomputed(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  psg_pass *p = counting_pass(ctx, true);
  CHECK(psg_pass_is_cacheable(p));
  psg_pass_context *pc = cache_context(ctx, dir, 2);
  calls = 0;
  psg_free(run(ctx, module_text, NULL, p, pc));
  CHECK_EQ_INT(calls, 4);
  calls = 0;
  psg_free(run(ctx, module_text, NULL, p, pc));
  CHECK_EQ_INT(calls, 0);
  calls = 0;
  psg_free(run(ctx, edited_text, NULL, p, pc));
  /* @f2, and @main: the module is not typed, so @main's key holds its
   * callee @f2's whole structure rather than its type. */
  CHECK_EQ_INT(calls, 2);
  /* Not cacheable: every function every time, nothing looked up. */
  psg_pass *q = counting_pass(ctx, false);
  CHECK(!psg_pass_is_cacheable(q));
  uint64_t before = misses(pc) + hits(pc);
  calls = 0;
  psg_free(run(ctx, module_text, NULL, q, pc));
  CHECK_EQ_INT(calls, 4);
  CHECK_EQ_INT(misses(pc) + hits(pc), before);
  psg_pass_release(p), psg_pass_release(q);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
}

static void test_key_covers_level_config_options_and_threads_do_not_matter(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  psg_pass_context *pc = cache_context(ctx, dir, 2);
  char *ref = run(ctx, module_text, "FoldConstant", NULL, pc);
  uint64_t n = misses(pc);
  CHECK(n == 4);
  psg_pass_context *o3 = cache_context(ctx, dir, 3);
  psg_free(run(ctx, module_text, "FoldConstant", NULL, o3));
  CHECK_EQ_INT(misses(o3), 4);
  psg_pass_context *cfg = cache_context(ctx, dir, 2);
  CHECK_OK(psg_pass_context_set_config_text(cfg, "passage.max_constant_bytes=1000"));
  psg_free(run(ctx, module_text, "FoldConstant", NULL, cfg));
  CHECK_EQ_INT(misses(cfg), 4);
  psg_pass_context *opt = cache_context(ctx, dir, 2);
  psg_free(run(ctx, module_text, "FoldConstant{fold_qnn=true}", NULL, opt));
  CHECK_EQ_INT(misses(opt), 4);
  /* Threads and testing.* checks do not change results: still hits. */
  psg_pass_context *thr = cache_context(ctx, dir, 2);
  CHECK_OK(psg_pass_context_set_config_text(thr, "passage.num_threads=2"));
  CHECK_OK(psg_pass_context_set_config_text(thr, "testing.immutable_module=true"));
  char *t = run(ctx, module_text, "FoldConstant", NULL, thr);
  CHECK_EQ_INT(hits(thr), 4);
  CHECK_STR(t, ref);
  psg_free(ref), psg_free(t);
  psg_pass_context_release(pc), psg_pass_context_release(o3), psg_pass_context_release(cfg);
  psg_pass_context_release(opt), psg_pass_context_release(thr);
  psg_ctx_release(ctx);
}

/* @main's result may depend on the type of what it calls: a callee whose
 * signature changed makes the caller a miss; one whose body alone changed
 * does not. */
static void test_callee_signature_is_in_the_key(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  const char *a = HDR "def @f(%x: " T ") { add(%x, 1f) }\ndef @main(%x: " T ") { @f(%x) }\n";
  const char *body = HDR "def @f(%x: " T ") { multiply(%x, 3f) }\ndef @main(%x: " T ") { @f(%x) }\n";
  const char *sig = HDR "def @f(%x: " T ") { cast(%x, dtype=\"float16\") }\ndef @main(%x: " T ") { @f(%x) }\n";
  psg_pass *p = counting_pass(ctx, true);
  psg_pass *typed = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "InferType", &typed));
  psg_pass *seq = NULL;
  psg_pass *both[2] = {typed, p};
  CHECK_OK(psg_sequential(ctx, both, 2, NULL, &seq));
  psg_pass_context *pc = cache_context(ctx, dir, 2);
  calls = 0;
  psg_free(run(ctx, a, NULL, seq, pc));
  CHECK_EQ_INT(calls, 2);
  calls = 0;
  psg_free(run(ctx, body, NULL, seq, pc));
  CHECK_EQ_INT(calls, 1); /* @f only */
  calls = 0;
  psg_free(run(ctx, sig, NULL, seq, pc));
  CHECK_EQ_INT(calls, 2); /* @f and its caller */
  psg_pass_release(p), psg_pass_release(typed), psg_pass_release(seq);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
}

/* Every entry damaged one way or another: a miss with a warning each, the
 * same output, and the entries written again. */
static void damage_entries(const char *how) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "for f in '%s'/*.entry; do %s; done", dir, how);
  CHECK(system(cmd) == 0);
}

static void test_damaged_entries_are_misses_with_a_warning(void) {
  static const char *const damage[] = {
      "truncate -s 40 \"$f\"",                                                  /* cut short */
      "printf 'x' | dd of=\"$f\" bs=1 seek=200 conv=notrunc status=none",       /* one byte changed */
      ": > \"$f\"",                                                              /* empty */
      "printf 'garbage\\n' > \"$f\"",                                            /* not an entry */
      "head -c -1 \"$f\" > \"$f.t\" && mv \"$f.t\" \"$f\"",                      /* last byte gone */
  };
  for (size_t k = 0; k < sizeof damage / sizeof *damage; k++) {
    psg_ctx *ctx = check_ctx();
    fresh_dir();
    psg_pass_context *cold = cache_context(ctx, dir, 3), *warm = cache_context(ctx, dir, 3),
                     *again = cache_context(ctx, dir, 3);
    char *ref = run(ctx, module_text, pipeline, NULL, cold);
    damage_entries(damage[k]);
    char *w = run(ctx, module_text, pipeline, NULL, warm);
    CHECK_STR(w, ref);
    CHECK_EQ_INT(psg_pass_context_cache_count(warm, PSG_PASS_CACHE_CORRUPT), misses(cold));
    CHECK_EQ_INT(hits(warm), 0);
    CHECK(has_warning(ctx, "is unusable"));
    psg_ctx_clear_diags(ctx);
    char *r = run(ctx, module_text, pipeline, NULL, again);
    CHECK_STR(r, ref);
    CHECK_EQ_INT(hits(again), misses(cold));
    psg_free(ref), psg_free(w), psg_free(r);
    psg_pass_context_release(cold), psg_pass_context_release(warm), psg_pass_context_release(again);
    psg_ctx_release(ctx);
  }
}

static void test_unwritable_directory_warns_once(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  char file[96];
  snprintf(file, sizeof file, "%s/not-a-dir", dir);
  FILE *f = fopen(file, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  psg_pass_context *none = cache_context(ctx, NULL, 3), *pc = cache_context(ctx, file, 3);
  char *ref = run(ctx, module_text, pipeline, NULL, none);
  char *s = run(ctx, module_text, pipeline, NULL, pc);
  CHECK_STR(s, ref);
  CHECK_EQ_INT(stores(pc), 0);
  size_t warnings = 0;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++)
    warnings += strstr(psg_diag_message(psg_ctx_get_diag(ctx, i)), "cannot write to pass cache") != NULL;
  CHECK_EQ_INT(warnings, 1);
  psg_free(ref), psg_free(s);
  psg_pass_context_release(none), psg_pass_context_release(pc);
  psg_ctx_release(ctx);
}

/* A run that fails stores nothing; a run that warns (FoldConstant declining
 * a constant over passage.max_constant_bytes) is not stored, so the warning
 * comes again on the next run. */
static psg_status failing(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)func, (void)mod, (void)pc, (void)user, (void)out;
  return psg_ctx_fail(psg_expr_get_ctx(func), PSG_ERR_PASS_FAILED, "no");
}

static void test_failures_and_warnings_are_not_stored(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "Failing", 0, NULL, 0, &info));
  CHECK_OK(psg_create_function_pass(ctx, info, failing, NULL, NULL, &p));
  psg_pass_set_cacheable(p, true);
  psg_pass_context *pc = cache_context(ctx, dir, 2);
  CHECK(run(ctx, module_text, NULL, p, pc) == NULL);
  CHECK_EQ_INT(stores(pc), 0);
  psg_ctx_clear_diags(ctx);
  const char *big = HDR "def @main(%x: Tensor[(64), float32]) { add(%x, broadcast_to(1f, shape=[64])) }\n";
  for (int round = 0; round < 2; round++) {
    psg_pass_context *w = cache_context(ctx, dir, 2);
    CHECK_OK(psg_pass_context_set_config_text(w, "passage.max_constant_bytes=16"));
    psg_free(run(ctx, big, "FoldConstant", NULL, w));
    CHECK(psg_ctx_diag_count(ctx) > 0);
    CHECK_EQ_INT(stores(w), 0);
    CHECK_EQ_INT(hits(w), 0);
    psg_ctx_clear_diags(ctx);
    psg_pass_context_release(w);
  }
  psg_pass_release(p);
  psg_pass_info_release(info);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
}

static const char *const tir_text =
    "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n"
    "    @T.prim_func\n    def f(A: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n            A[i * 1 + 0] = A[i] + T.float32(0.0)\n"
    "    @T.prim_func\n    def g(A: T.Buffer((4,), \"float32\")):\n"
    "        for i in range(4):\n            A[i] = A[i] * T.float32(1.0)\n";

static void test_prim_func_passes(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  psg_pass_context *none = cache_context(ctx, NULL, 2), *cold = cache_context(ctx, dir, 2),
                   *warm = cache_context(ctx, dir, 2);
  const char *pl = "sequential(tir.Simplify,tir.RemoveNoOp)";
  char *a = run(ctx, tir_text, pl, NULL, none), *b = run(ctx, tir_text, pl, NULL, cold),
       *c = run(ctx, tir_text, pl, NULL, warm);
  CHECK(a != NULL);
  CHECK_STR(b, a);
  CHECK_STR(c, a);
  CHECK(misses(cold) == 4);
  CHECK_EQ_INT(hits(warm) + psg_pass_context_cache_count(warm, PSG_PASS_CACHE_BYPASSED), 4);
  CHECK(hits(warm) > 0);
  psg_free(a), psg_free(b), psg_free(c);
  psg_pass_context_release(none), psg_pass_context_release(cold), psg_pass_context_release(warm);
  psg_ctx_release(ctx);
}

/* Two cacheable passes in a row, optionally around a non-cacheable one. */
static psg_pass *sequence(psg_ctx *ctx, bool split) {
  psg_pass *a = counting_pass(ctx, true), *b = counting_pass(ctx, false), *c = counting_pass(ctx, true);
  psg_pass *kids[3] = {a, b, c};
  psg_pass_info *info = NULL;
  psg_pass *seq = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "Chain", 0, NULL, 0, &info));
  if (split) CHECK_OK(psg_sequential(ctx, kids, 3, info, &seq));
  else {
    kids[1] = c;
    CHECK_OK(psg_sequential(ctx, kids, 2, info, &seq));
  }
  psg_pass_info_release(info);
  psg_pass_release(a), psg_pass_release(b), psg_pass_release(c);
  return seq;
}

/* Consecutive cacheable passes are one chain: one lookup per function,
 * the entry holding the function after both; an edit recomputes the edited
 * function (and what the closure of its callers' keys needs); a pass that
 * is not cacheable ends the chain; an instrument makes it per pass. */
static void test_chain_is_one_lookup_per_function(void) {
  psg_ctx *ctx = check_ctx();
  fresh_dir();
  psg_pass *chain = sequence(ctx, false);
  psg_pass_context *none = cache_context(ctx, NULL, 2), *pc = cache_context(ctx, dir, 2);
  char *ref = run(ctx, module_text, NULL, chain, none);
  calls = 0;
  char *cold = run(ctx, module_text, NULL, chain, pc);
  CHECK_EQ_INT(calls, 8);
  CHECK_EQ_INT(misses(pc), 4);
  CHECK_EQ_INT(stores(pc), 4);
  calls = 0;
  char *warm = run(ctx, module_text, NULL, chain, pc);
  CHECK_EQ_INT(calls, 0);
  CHECK_EQ_INT(hits(pc), 4);
  CHECK(ref && cold && warm);
  CHECK_STR(cold, ref);
  CHECK_STR(warm, ref);
  /* @f2 edited: it misses, and so does @main (untyped module: its key holds
   * @f2's structure); @main is computed with everything it calls. */
  calls = 0;
  char *edited = run(ctx, edited_text, NULL, chain, pc), *edited_ref = run(ctx, edited_text, NULL, chain, none);
  CHECK_EQ_INT(misses(pc), 6);
  CHECK_EQ_INT(hits(pc), 6);
  CHECK_EQ_INT(calls, 2 * 4 + 2 * 4);
  CHECK(edited && edited_ref);
  CHECK_STR(edited, edited_ref);
  /* Split by a pass that is not cacheable: two chains, two lookups each. */
  psg_pass *split = sequence(ctx, true);
  psg_pass_context *pc2 = cache_context(ctx, dir, 2);
  psg_free(run(ctx, module_text, NULL, split, pc2));
  CHECK_EQ_INT(misses(pc2), 8);
  /* An instrument: per-pass lookups (entries of their own, so misses), and
   * the instrument sees every pass. */
  psg_pass_context *pc3 = cache_context(ctx, dir, 2);
  psg_instrument *timing = NULL;
  CHECK_OK(psg_timing_instrument_create(ctx, &timing));
  CHECK_OK(psg_pass_context_add_instrument(pc3, timing));
  calls = 0;
  char *timed = run(ctx, module_text, NULL, chain, pc3);
  CHECK_EQ_INT(misses(pc3), 8);
  CHECK_EQ_INT(calls, 8);
  CHECK(timed != NULL);
  CHECK_STR(timed, ref);
  psg_free(ref), psg_free(cold), psg_free(warm), psg_free(edited), psg_free(edited_ref), psg_free(timed);
  psg_instrument_release(timing);
  psg_pass_release(chain), psg_pass_release(split);
  psg_pass_context_release(none), psg_pass_context_release(pc), psg_pass_context_release(pc2);
  psg_pass_context_release(pc3);
  psg_ctx_release(ctx);
}

int main(void) {
  RUN_TEST(test_cold_warm_and_uncached_agree);
  RUN_TEST(test_only_the_edited_function_is_recomputed);
  RUN_TEST(test_key_covers_level_config_options_and_threads_do_not_matter);
  RUN_TEST(test_callee_signature_is_in_the_key);
  RUN_TEST(test_damaged_entries_are_misses_with_a_warning);
  RUN_TEST(test_unwritable_directory_warns_once);
  RUN_TEST(test_failures_and_warnings_are_not_stored);
  RUN_TEST(test_prim_func_passes);
  RUN_TEST(test_chain_is_one_lookup_per_function);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return 1;
  return check_finish();
}
