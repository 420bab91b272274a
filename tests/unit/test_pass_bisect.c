/* Issue 19 items 3-5 on the pass runner (docs/pass-infra.md): opt-bisect
 * (testing.opt_bisect_limit: indices per pass and function, essential passes,
 * a seeded miscompilation found at its index, prim-func passes, no property
 * recorded for a partly skipped pass), FixedPoint (convergence, the limit
 * warning, cycles, the pipeline text) and pass plugins (the example plugin,
 * an ABI mismatch, a library without the entry point, a missing file). */
#include <string.h>
#include "check.h"
#include "passage/passage.h"

#define HDR "#[version = \"0.0.5\"]\n"
#define T "Tensor[(2), float32]"

/* @f2 holds the only add; @f1 and @main have none. */
static const char *const three_functions = HDR "def @f1(%x: " T ") -> " T " { multiply(%x, 2f) }\n"
                                               "def @f2(%x: " T ") -> " T " { add(%x, 1f) }\n"
                                               "def @main(%x: " T ") -> " T " { @f2(@f1(%x)) }\n";

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "<test>", &m));
  return m;
}

static char *print(const psg_module *m) {
  char *s = NULL;
  CHECK_OK(psg_module_print(m, PSG_PRINT_NO_METADATA, &s, NULL));
  return s;
}

/* The seeded bug: add(x, y) becomes x. */
static psg_status drop_add(psg_mutator *m, const psg_expr *call, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, call, &post);
  if (st) return st;
  psg_expr *op = psg_call_get_callee(post);
  if (psg_expr_kind(op) == PSG_EXPR_OP && !strcmp(psg_op_name(op), "add")) {
    *out = psg_call_get_arg(post, 0);
    psg_expr_retain(*out);
    psg_expr_release(post);
    return PSG_OK;
  }
  *out = post;
  return PSG_OK;
}

static psg_status drop_add_fn(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  psg_mutator m;
  psg_mutator_init(&m, psg_expr_get_ctx(func));
  m.visit[PSG_EXPR_CALL] = drop_add;
  psg_status st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

static psg_pass *function_pass(psg_ctx *ctx, const char *name, psg_function_pass_fn fn) {
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, name, 0, NULL, 0, &info));
  CHECK_OK(psg_create_function_pass(ctx, info, fn, NULL, NULL, &p));
  psg_pass_info_release(info);
  return p;
}

static psg_pass_context *bisect_context(psg_ctx *ctx, int64_t limit) {
  psg_pass_context *pc = NULL;
  psg_attr *v = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_attr_int(ctx, limit, &v));
  CHECK_OK(psg_pass_context_set_config(pc, "testing.opt_bisect_limit", v));
  psg_attr_release(v);
  return pc;
}

/* The BISECT notes since the context's diagnostics were cleared, one a line. */
static void bisect_log(psg_ctx *ctx, char *buf, size_t cap) {
  buf[0] = 0;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    if (!psg_diag_pass(d) || strcmp(psg_diag_pass(d), "OptBisect")) continue;
    strncat(buf, psg_diag_message(d), cap - strlen(buf) - 2);
    strncat(buf, "\n", cap - strlen(buf) - 1);
  }
}

/* Runs InferType, the seeded pass and SimplifyExpr with `limit`; true when
 * the output still has @f2's add. */
static bool add_survives(psg_ctx *ctx, psg_module *mod, int64_t limit, char *log, size_t cap) {
  psg_pass *kids[3] = {NULL, function_pass(ctx, "SeededBug", drop_add_fn), NULL};
  CHECK_OK(psg_pass_get(ctx, "InferType", NULL, &kids[0]));
  CHECK_OK(psg_pass_get(ctx, "SimplifyExpr", NULL, &kids[2]));
  psg_pass *seq = NULL;
  CHECK_OK(psg_sequential(ctx, kids, 3, NULL, &seq));
  psg_pass_context *pc = bisect_context(ctx, limit);
  psg_module *out = NULL;
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_run(seq, mod, pc, &out));
  if (log) bisect_log(ctx, log, cap);
  char *text = out ? print(out) : NULL;
  bool survives = text && strstr(text, "add(") != NULL;
  psg_free(text);
  psg_module_release(out);
  psg_pass_context_release(pc);
  psg_pass_release(seq);
  for (int i = 0; i < 3; i++) psg_pass_release(kids[i]);
  return survives;
}

static void test_bisect_indices_and_seeded_bug(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, three_functions);
  char log[4096];
  /* The seeded pass on @f1, @f2, @main is executions 1..3 (InferType is
   * essential: no index), SimplifyExpr 4..6. */
  CHECK(add_survives(ctx, mod, 1, log, sizeof log));
  CHECK(strstr(log, "BISECT: running essential pass InferType on module (never skipped)\n") != NULL);
  CHECK(strstr(log, "BISECT: running pass (1) SeededBug on @f1\n") != NULL);
  CHECK(strstr(log, "BISECT: NOT running pass (2) SeededBug on @f2\n") != NULL);
  CHECK(strstr(log, "BISECT: NOT running pass (3) SeededBug on @main\n") != NULL);
  CHECK(strstr(log, "BISECT: NOT running pass (6) SimplifyExpr on @main\n") != NULL);
  CHECK(!strstr(log, "(7)"));
  /* The bug shows from index 2 on, whatever the limit above it. */
  CHECK(add_survives(ctx, mod, 0, NULL, 0));
  CHECK(!add_survives(ctx, mod, 2, NULL, 0));
  CHECK(!add_survives(ctx, mod, 5, NULL, 0));
  CHECK(!add_survives(ctx, mod, -1, log, sizeof log));
  CHECK_STR(log, ""); /* no limit: no lines */
  /* A binary search as passage bisect does finds index 2. */
  int64_t lo = 0, hi = 6;
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    if (add_survives(ctx, mod, mid, NULL, 0)) lo = mid;
    else hi = mid;
  }
  CHECK_EQ_INT(hi, 2);
  psg_ctx_clear_diags(ctx);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* Module passes count once; a required pass (FoldConstant requires
 * InferType) and the context's required passes are essential. A function
 * pass skipped on some function does not record what it establishes: FuseOps
 * cut short leaves the module without the FUSED property. */
static void test_bisect_module_passes_and_properties(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, three_functions);
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "sequential(RemoveUnusedFunctions,FuseOps,FoldConstant)", &p));
  psg_pass_context *pc = bisect_context(ctx, 2);
  CHECK_OK(psg_pass_context_add_required_pass(pc, "FoldConstant"));
  psg_module *out = NULL;
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_run(p, mod, pc, &out));
  char log[4096];
  bisect_log(ctx, log, sizeof log);
  CHECK(strstr(log, "BISECT: running pass (1) RemoveUnusedFunctions on module\n") != NULL);
  CHECK(strstr(log, "BISECT: running pass (2) FuseOps on @f1\n") != NULL);
  CHECK(strstr(log, "BISECT: NOT running pass (3) FuseOps on @f2\n") != NULL);
  CHECK(strstr(log, "BISECT: running essential pass FoldConstant on @f2 (never skipped)\n") != NULL);
  CHECK(out && !(psg_module_properties(out) & PSG_PROP_FUSED));
  psg_module_release(out);
  psg_pass_context_release(pc);
  /* Unlimited, the same pipeline marks its result FUSED. */
  pc = bisect_context(ctx, -1);
  CHECK_OK(psg_pass_run(p, mod, pc, &out));
  CHECK(out && (psg_module_properties(out) & PSG_PROP_FUSED));
  psg_module_release(out);
  psg_pass_context_release(pc);
  psg_pass_release(p);
  psg_ctx_clear_diags(ctx);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* Prim-func passes count once per PrimFunc; lowering is essential, so limit
 * 0 still lowers. */
static int prim_calls;
static psg_status count_prim(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                             psg_tir_prim_func **out) {
  (void)mod, (void)pc, (void)user;
  prim_calls++;
  psg_tir_retain(f);
  *out = f;
  return PSG_OK;
}

static void test_bisect_prim_funcs_and_lowering(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, three_functions);
  psg_pass *lower = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "lower", &lower));
  psg_pass_context *pc = bisect_context(ctx, 0);
  psg_module *lowered = NULL;
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_run(lower, mod, pc, &lowered));
  size_t prims = 0;
  for (size_t i = 0; lowered && i < psg_module_num_functions(lowered); i++)
    prims += psg_module_get_prim_func(lowered, i) != NULL;
  CHECK_EQ_INT(prims, 2); /* multiply and add, lowered although nothing optional ran */
  char log[8192];
  bisect_log(ctx, log, sizeof log);
  CHECK(strstr(log, "BISECT: running essential pass LowerTE on module (never skipped)\n") != NULL);
  CHECK(strstr(log, "BISECT: NOT running pass (1) tir.NarrowDataType on @") != NULL);
  psg_pass_context_release(pc);

  psg_pass_info *info = NULL;
  psg_pass *count = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "CountPrims", 0, NULL, 0, &info));
  CHECK_OK(psg_create_prim_func_pass(ctx, info, count_prim, NULL, NULL, &count));
  pc = bisect_context(ctx, 1);
  psg_module *out = NULL;
  prim_calls = 0;
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_run(count, lowered, pc, &out));
  CHECK_EQ_INT(prim_calls, 1);
  bisect_log(ctx, log, sizeof log);
  CHECK(strstr(log, "BISECT: running pass (1) CountPrims on @") != NULL);
  CHECK(strstr(log, "BISECT: NOT running pass (2) CountPrims on @") != NULL);
  psg_module_release(out);
  psg_pass_context_release(pc);
  psg_pass_release(count);
  psg_pass_info_release(info);
  psg_pass_release(lower);
  psg_module_release(lowered);
  psg_ctx_clear_diags(ctx);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* FixedPoint ---------------------------------------------------------------- */

/* Peels one add(x, y) at the top of the body per call: converges when none
 * is left. */
static psg_status peel_add(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  psg_expr *body = psg_function_get_body(func);
  psg_expr *op = psg_expr_kind(body) == PSG_EXPR_CALL ? psg_call_get_callee(body) : NULL;
  if (!op || psg_expr_kind(op) != PSG_EXPR_OP || strcmp(psg_op_name(op), "add")) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  psg_expr *params[1] = {psg_function_get_param(func, 0)};
  return psg_function_create(psg_expr_get_ctx(func), params, 1, psg_call_get_arg(body, 0), psg_function_ret_type(func),
                             psg_function_get_attrs(func), NULL, out);
}

/* Wraps the body in negative() or unwraps it: a cycle of two. */
static psg_status toggle_negative(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user,
                                  psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  psg_ctx *ctx = psg_expr_get_ctx(func);
  psg_expr *body = psg_function_get_body(func), *nb = NULL, *op = NULL;
  psg_expr *callee = psg_expr_kind(body) == PSG_EXPR_CALL ? psg_call_get_callee(body) : NULL;
  psg_status st = PSG_OK;
  if (callee && psg_expr_kind(callee) == PSG_EXPR_OP && !strcmp(psg_op_name(callee), "negative")) {
    nb = psg_call_get_arg(body, 0);
    psg_expr_retain(nb);
  } else if (!(st = psg_op_get(ctx, "negative", &op))) {
    st = psg_call_create(ctx, op, &body, 1, NULL, NULL, &nb);
  }
  psg_expr *params[1] = {psg_function_get_param(func, 0)};
  if (!st) st = psg_function_create(ctx, params, 1, nb, psg_function_ret_type(func), NULL, NULL, out);
  psg_expr_release(nb);
  psg_expr_release(op);
  return st;
}

static psg_status run_fixed_point(psg_ctx *ctx, psg_function_pass_fn fn, int max, psg_module *mod,
                                  psg_module **out) {
  psg_pass *inner = function_pass(ctx, "Inner", fn), *fp = NULL;
  psg_status st = psg_fixed_point(ctx, &inner, 1, max, &fp);
  CHECK_OK(st);
  if (!st) st = psg_pass_run(fp, mod, NULL, out);
  psg_pass_release(fp);
  psg_pass_release(inner);
  return st;
}

static void test_fixed_point(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, HDR "def @main(%x: " T ") -> " T " { add(add(add(%x, 1f), 2f), 3f) }\n");
  psg_module *out = NULL;
  /* Three peels change the module, the fourth iteration finds it stable. */
  CHECK_OK(run_fixed_point(ctx, peel_add, 10, mod, &out));
  char *text = out ? print(out) : NULL;
  CHECK(text && strstr(text, "{\n  %x\n}"));
  psg_free(text);
  psg_module_release(out);
  /* At the limit: a warning, and the module of the last iteration. */
  psg_ctx_clear_diags(ctx);
  CHECK_OK(run_fixed_point(ctx, peel_add, 2, mod, &out));
  text = out ? print(out) : NULL;
  CHECK(text && strstr(text, "add(%x, 1f)") && !strstr(text, "2f"));
  psg_free(text);
  psg_module_release(out);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 1);
  const psg_diag *d = psg_ctx_diag_count(ctx) ? psg_ctx_get_diag(ctx, 0) : NULL;
  CHECK(d && psg_diag_severity(d) == PSG_SEVERITY_WARNING &&
        strstr(psg_diag_message(d), "still changed after max_iterations=2"));
  /* A cycle: an error naming both iterations; the input is intact. */
  psg_ctx_clear_diags(ctx);
  uint64_t h = psg_module_structural_hash(mod);
  CHECK_EQ_INT(run_fixed_point(ctx, toggle_negative, 10, mod, &out), PSG_ERR_PASS_FAILED);
  CHECK(out == NULL);
  CHECK(psg_module_structural_hash(mod) == h);
  d = psg_ctx_diag_count(ctx) ? psg_ctx_get_diag(ctx, 0) : NULL;
  CHECK(d && strstr(psg_diag_message(d), "the module after iteration 2 is the one of its input again"));
  psg_ctx_clear_diags(ctx);
  /* Bad arguments. */
  psg_pass *fp = NULL;
  CHECK_EQ_INT(psg_fixed_point(ctx, NULL, 0, 0, &fp), PSG_ERR_INVALID_ARGUMENT);
  CHECK(fp == NULL);
  psg_ctx_clear_diags(ctx);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* The pipeline text parses and prints back; the default limit is not written. */
static void test_fixed_point_text(void) {
  psg_ctx *ctx = check_ctx();
  static const char *const texts[] = {
      "fixed_point(SimplifyExpr,FoldConstant){max_iterations=4}",
      "sequential(InferType,fixed_point(FoldConstant),DeadCodeElimination)",
      "fixed_point(fixed_point(SimplifyExpr){max_iterations=2})",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    psg_pass *p = NULL;
    CHECK_OK(psg_pipeline_parse(ctx, texts[i], &p));
    char *back = p ? psg_pipeline_print(p) : NULL;
    CHECK_STR(back, texts[i]);
    psg_free(back);
    psg_pass_release(p);
  }
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "fixed_point(FoldConstant){max_iterations=3}", &p));
  CHECK_EQ_INT(psg_fixed_point_max_iterations(p), 3);
  CHECK_EQ_INT(psg_pass_num_children(p), 1);
  CHECK_STR(psg_pass_info_name(psg_pass_get_info(p)), "FixedPoint");
  psg_pass_release(p);
  static const char *const bad[] = {"fixed_point(FoldConstant){max_iterations=0}",
                                    "fixed_point(FoldConstant){max_iterations=1.5}",
                                    "fixed_point(FoldConstant){limit=3}", "fixed_point FoldConstant",
                                    "fixed_point(NoSuchPass)"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK(psg_pipeline_parse(ctx, bad[i], &p) != PSG_OK);
    CHECK(p == NULL);
  }
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* Plugins ----------------------------------------------------------------------- */

static const char *plugin(const char *name) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/libpassage_%s.so", PASSAGE_PLUGIN_DIR, name);
  return path;
}

static void test_plugins(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass *p = NULL;
  CHECK_EQ_INT(psg_pass_get(ctx, "SimplifyAddZero", NULL, &p), PSG_ERR_NOT_FOUND);
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_plugin_load(ctx, plugin("example_plugin")));
  CHECK_EQ_INT(psg_pass_plugin_count(ctx), 1);
  CHECK_STR(psg_pass_plugin_name(ctx, 0), "example-add-zero");
  CHECK_STR(psg_pass_plugin_path(ctx, 0), plugin("example_plugin"));
  CHECK(psg_pass_plugin_name(ctx, 1) == NULL);
  /* Its pass is registered and rewrites. */
  psg_module *mod = parse(ctx, HDR "def @main(%x: " T ") -> " T " { add(multiply(%x, 3f), 0f) }\n"), *out = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "SimplifyAddZero", &p));
  if (p) CHECK_OK(psg_pass_run(p, mod, NULL, &out));
  char *text = out ? print(out) : NULL;
  CHECK(text && strstr(text, "{\n  multiply(%x, 3f)\n}"));
  psg_free(text);
  psg_module_release(out);
  psg_module_release(mod);
  psg_pass_release(p);

  CHECK_EQ_INT(psg_pass_plugin_load(ctx, plugin("bad_abi_plugin")), PSG_ERR_UNSUPPORTED);
  const psg_diag *d = psg_ctx_get_diag(ctx, psg_ctx_diag_count(ctx) - 1);
  CHECK(strstr(psg_diag_message(d), "was built for plugin ABI version 999, but this Passage loads version 2"));
  CHECK_EQ_INT(psg_pass_plugin_load(ctx, plugin("no_entry_plugin")), PSG_ERR_NOT_FOUND);
  d = psg_ctx_get_diag(ctx, psg_ctx_diag_count(ctx) - 1);
  CHECK(strstr(psg_diag_message(d), "exports no psg_get_pass_plugin_info"));
  CHECK_EQ_INT(psg_pass_plugin_load(ctx, "/nonexistent/libnothing.so"), PSG_ERR_IO);
  CHECK_EQ_INT(psg_pass_plugin_load(ctx, NULL), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_pass_plugin_count(ctx), 1); /* the refused ones are not kept */
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_bisect_indices_and_seeded_bug);
  RUN_TEST(test_bisect_module_passes_and_properties);
  RUN_TEST(test_bisect_prim_funcs_and_lowering);
  RUN_TEST(test_fixed_point);
  RUN_TEST(test_fixed_point_text);
  RUN_TEST(test_plugins);
  return check_finish();
}
