/* Validate-each (issue 20 item 1; docs/pass-infra.md "Validate each"): a
 * seeded miscompile is caught with the pass, output, largest error and first
 * differing element named and the input left intact; the standard pipelines
 * (Relay and lowered) validate clean; the tolerances and the reassociating
 * flag (from a declaration, and set on a pass made in C); inputs given as
 * arrays; a module that cannot run is warned about once; the config's
 * typed reads. */
#include <stdlib.h>
#include <unistd.h>
#include "pass_check.h"

#define T23 "Tensor[(2, 3), float32]"
static const char *const src = HDR "def @main(%x: " T23 ", %y: " T23 ") {\n"
                                   "  %0 = add(%x, %y);\n  %1 = multiply(%0, 2f);\n  subtract(%1, %x)\n}\n";
static const char *const scale_src = HDR "def @main(%x: Tensor[(4), float32]) {\n  multiply(%x, 2f)\n}\n";

static void set_int(psg_ctx *ctx, psg_pass_context *pc, const char *key, int64_t n) {
  psg_attr *v = NULL;
  CHECK_OK(psg_attr_int(ctx, n, &v));
  CHECK_OK(psg_pass_context_set_config(pc, key, v));
  psg_attr_release(v);
}

static psg_pass_context *context(psg_ctx *ctx, int64_t sets) {
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  set_int(ctx, pc, "testing.validate_each", sets);
  return pc;
}

/* Runs pass `p` over `mod` under `pc`: the first error's message (static
 * buffer, "" when the run succeeded); *warnings counts the warnings. */
static const char *run_pass(psg_ctx *ctx, psg_pass *p, psg_module *mod, psg_pass_context *pc, size_t *warnings) {
  static char msg[1024];
  psg_module *out = NULL;
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_context_enter(pc));
  psg_status st = psg_pass_run(p, mod, pc, &out);
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK((st == PSG_OK) == (out != NULL));
  msg[0] = 0;
  size_t w = 0;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    if (psg_diag_severity(d) == PSG_SEVERITY_WARNING) w++;
    if (st && !msg[0] && psg_diag_severity(d) == PSG_SEVERITY_ERROR)
      snprintf(msg, sizeof msg, "%s", psg_diag_message(d));
  }
  if (warnings) *warnings = w;
  psg_module_release(out);
  return msg;
}

static const char *run_pipeline(psg_ctx *ctx, const char *text, psg_module *mod, psg_pass_context *pc) {
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, text, &p));
  const char *msg = run_pass(ctx, p, mod, pc, NULL);
  psg_pass_release(p);
  return msg;
}

static bool starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static void test_miscompile_caught(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  psg_module *mod = parse(ctx, src);
  uint64_t h = psg_module_structural_hash(mod);
  psg_pass_context *off = context(ctx, 0), *on = context(ctx, 2);
  /* Off: the result is well formed and typed, so nothing notices. */
  CHECK_STR(run_pipeline(ctx, "InferType,testing.AddToSubtract,FoldConstant", mod, off), "");
  const char *msg = run_pipeline(ctx, "InferType,testing.AddToSubtract,FoldConstant", mod, on);
  CHECK(starts_with(msg, "validate-each: after pass 'testing.AddToSubtract': @main output 0 on validation input 0: "
                         "max error "));
  CHECK(strstr(msg, "(|after - before| / max(|before|, 0.01); tolerance 0.0001); first differing element [0, 0]: "));
  CHECK(strstr(msg, " (the pass changed @main)"));
  CHECK(psg_module_structural_hash(mod) == h); /* the input is intact */
  /* Passes that are right validate clean: -O3, and lowered to PrimFuncs run
   * on the TIR interpreter. */
  CHECK_STR(run_pipeline(ctx, "O3", mod, on), "");
  CHECK_STR(run_pipeline(ctx, "sequential(O3,lower)", mod, on), "");
  psg_pass_context_release(off);
  psg_pass_context_release(on);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* The first differing element with both values: add(x, y) -> subtract(x, y)
 * on x = 1..4, y = 0 is unchanged; on the random y it is not. */
static void test_integers_exact_and_given_inputs(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  psg_module *mod = parse(ctx, HDR "def @main(%x: Tensor[(4), int32], %y: Tensor[(4), int32]) {\n"
                                   "  add(%x, %y)\n}\n");
  char xpath[] = "/tmp/validate_x_XXXXXX", ypath[] = "/tmp/validate_y_XXXXXX";
  int fx = mkstemp(xpath), fy = mkstemp(ypath);
  CHECK(fx >= 0 && fy >= 0);
  close(fx), close(fy);
  int32_t xs[4] = {1, 2, 3, 4}, ys[4] = {0, 0, 0, 5};
  int64_t shape[1] = {4};
  psg_tensor *tx = NULL, *ty = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_INT32, shape, 1, xs, &tx));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_INT32, shape, 1, ys, &ty));
  CHECK_OK(psg_tensor_write_npy(ctx, tx, xpath));
  CHECK_OK(psg_tensor_write_npy(ctx, ty, ypath));
  psg_tensor_release(tx);
  psg_tensor_release(ty);
  char given[2][160];
  snprintf(given[0], sizeof given[0], "x=%s", xpath);
  snprintf(given[1], sizeof given[1], "%%y=%s", ypath);
  psg_attr *items[2] = {NULL, NULL}, *list = NULL;
  for (int i = 0; i < 2; i++) CHECK_OK(psg_attr_string(ctx, given[i], strlen(given[i]), &items[i]));
  CHECK_OK(psg_attr_list(ctx, items, 2, &list));
  psg_pass_context *pc = context(ctx, 3);
  CHECK_OK(psg_pass_context_set_config(pc, "testing.validate_each.inputs", list));
  CHECK_STR(run_pipeline(ctx, "InferType,testing.AddToSubtract", mod, pc),
            "validate-each: after pass 'testing.AddToSubtract': @main output 0 on validation input 0: max error 10 "
            "at [3] (|after - before|; integers must match exactly); first differing element [3]: 9 before, -1 after "
            "(the pass changed @main)");
  psg_attr_release(list);
  for (int i = 0; i < 2; i++) psg_attr_release(items[i]);
  unlink(xpath);
  unlink(ypath);
  psg_pass_context_release(pc);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* 1 + 5e-4 on every constant: beyond the default tolerance, within the
 * reassociating one; the flag comes from the declaration or is set in C. */
static void test_reassociating_tolerance(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  psg_module *mod = parse(ctx, scale_src);
  psg_pass_context *pc = context(ctx, 2);
  psg_pass *strict = NULL, *loose = NULL;
  CHECK_OK(psg_pass_get(ctx, "testing.NudgeConstants", NULL, &strict));
  CHECK_OK(psg_pass_get(ctx, "testing.NudgeConstantsReassoc", NULL, &loose));
  CHECK(!psg_pass_is_reassociating(strict));
  CHECK(psg_pass_is_reassociating(loose));
  CHECK(strstr(run_pass(ctx, strict, mod, pc, NULL), "max error 0.0005 at ["));
  CHECK_STR(run_pass(ctx, loose, mod, pc, NULL), "");
  psg_pass_set_reassociating(strict, true); /* a pass made in C declares it */
  CHECK_STR(run_pass(ctx, strict, mod, pc, NULL), "");
  /* The tolerances are options. */
  psg_attr *v = NULL;
  CHECK_OK(psg_attr_float(ctx, 1e-4, &v));
  CHECK_OK(psg_pass_context_set_config(pc, "testing.validate_each.reassoc_rtol", v));
  psg_attr_release(v);
  CHECK(strstr(run_pass(ctx, loose, mod, pc, NULL), "tolerance 0.0001 for a reassociating pass)"));
  CHECK_OK(psg_attr_float(ctx, 1e-3, &v));
  CHECK_OK(psg_pass_context_set_config(pc, "testing.validate_each.rtol", v));
  psg_attr_release(v);
  psg_pass_set_reassociating(strict, false);
  CHECK_STR(run_pass(ctx, strict, mod, pc, NULL), "");
  /* Which standard passes are declared reassociating. */
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_get(ctx, "FoldConstant", NULL, &p));
  CHECK(!psg_pass_is_reassociating(p));
  psg_pass_release(p);
  CHECK_OK(psg_pass_get(ctx, "BackwardFoldScaleAxis", NULL, &p));
  CHECK(psg_pass_is_reassociating(p));
  psg_pass_release(p);
  psg_pass_release(strict);
  psg_pass_release(loose);
  psg_pass_context_release(pc);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* A module whose @main cannot run is warned about once, and the passes
 * after it are not validated (nor run again on the interpreter). */
static void test_not_runnable_warned_once(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  psg_module *mod = parse(ctx, HDR "def @main(%x: (Tensor[(4), float32], Tensor[(4), float32])) {\n"
                                   "  add(%x.0, %x.1)\n}\n");
  psg_pass_context *pc = context(ctx, 1);
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "InferType,testing.AddToSubtract,testing.NudgeConstants,FoldConstant", &p));
  size_t warnings = 0;
  CHECK_STR(run_pass(ctx, p, mod, pc, &warnings), "");
  CHECK_EQ_INT((int)warnings, 1);
  CHECK(strstr(psg_diag_message(psg_ctx_get_diag(ctx, 0)), "parameter %x is not a tensor"));
  psg_pass_release(p);
  psg_pass_context_release(pc);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

static void test_config(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK(psg_pass_context_config_int(pc, "testing.validate_each") == 0); /* off by default */
  CHECK(psg_pass_context_config_float(pc, "testing.validate_each.rtol") == 1e-4);
  CHECK(psg_pass_context_config_float(pc, "testing.validate_each.reassoc_rtol") == 1e-3);
  CHECK_OK(psg_pass_context_set_config_text(pc, "testing.validate_each.rtol=1"));
  CHECK(psg_pass_context_config_float(pc, "testing.validate_each.rtol") == 1.0); /* an integer reads as a double */
  CHECK_EQ_INT(psg_pass_context_set_config_text(pc, "testing.validate_each=-2"), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_pass_context_set_config_text(pc, "testing.validate_each.rtol=-0.5"), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_pass_context_set_config_text(pc, "testing.validate_each.inputs=3"), PSG_ERR_INVALID_ARGUMENT);
  psg_ctx_clear_diags(ctx);
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_miscompile_caught);
  RUN_TEST(test_integers_exact_and_given_inputs);
  RUN_TEST(test_reassociating_tolerance);
  RUN_TEST(test_not_runnable_warned_once);
  RUN_TEST(test_config);
  return check_finish();
}
