/* psg_pass_run_take (docs/design.md departure 243): the run takes the
 * caller's reference to the input, and a Sequential frees it once its first
 * pass has returned a new module, so the passes after that run without the
 * input alive; never when something may still read it (an instrument's
 * after-failed hook, testing.immutable_module, or the caller's own second
 * reference); a failing run releases the input, and nothing leaks. */
#include "test_pass_fixtures.h"

static int64_t live_at_probe; /* live objects when the probe ran */

/* def @main(%x: Tensor[(2), float32]) { negative(%x) } */
static psg_module *input(psg_ctx *ctx) {
  static const char text[] = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  negative(%x)\n}\n";
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "take.relay", &m));
  return m;
}

/* A module pass that notes how many objects are alive, then returns its input. */
static psg_status probe(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc, (void)user;
  live_at_probe = psg_ctx_live_objects(psg_module_get_ctx(mod));
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

/* sequential(replace every function, probe) or, nested, sequential(sequential(...)). */
static psg_pass *pipeline(psg_ctx *ctx, bool nested, bool fail_last) {
  psg_pass *replace = fx_function_pass(ctx, "Replace", 0, fx_replace);
  psg_pass *last = fail_last ? fx_module_pass(ctx, "Fail", 0, NULL, 0, fx_fail)
                             : fx_module_pass(ctx, "Probe", 0, NULL, 0, probe);
  psg_pass *seq = NULL, *outer = NULL;
  CHECK_OK(psg_sequential(ctx, (psg_pass *[]){replace, last}, 2, NULL, &seq));
  psg_pass_release(replace);
  psg_pass_release(last);
  if (!nested) return seq;
  CHECK_OK(psg_sequential(ctx, &seq, 1, NULL, &outer));
  psg_pass_release(seq);
  return outer;
}

/* Live objects at the probe when the pipeline runs with psg_pass_run
 * (take false) or psg_pass_run_take, on a fresh one-function module. */
static int64_t live_during(psg_ctx *ctx, psg_pass_context *pc, bool nested, bool take) {
  psg_pass *p = pipeline(ctx, nested, false);
  psg_module *m = input(ctx), *out = NULL;
  live_at_probe = -1;
  CHECK_OK(take ? psg_pass_run_take(p, m, pc, &out) : psg_pass_run(p, m, pc, &out));
  CHECK(out && psg_module_num_functions(out) == 1);
  if (!take) psg_module_release(m);
  psg_module_release(out);
  psg_pass_release(p);
  return live_at_probe;
}

static void test_input_freed_after_first_pass(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  for (int nested = 0; nested < 2; nested++) {
    int64_t kept = live_during(ctx, pc, nested, false), taken = live_during(ctx, pc, nested, true);
    /* The input module and its replaced function node are gone. */
    CHECK_EQ_INT(taken, kept - 2);
  }
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

/* A second reference of the caller's keeps the input alive and intact. */
static void test_caller_still_holding(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass *p = pipeline(ctx, false, false);
  psg_module *m = input(ctx), *out = NULL;
  psg_expr *fn = psg_module_get_function(m, 0);
  psg_module_retain(m);
  CHECK_OK(psg_pass_run_take(p, m, NULL, &out));
  CHECK(psg_module_get_function(m, 0) == fn && psg_module_get_function(out, 0) != fn);
  psg_module_release(m);
  psg_module_release(out);
  psg_pass_release(p);
  CHECK_CTX_CLEAN(ctx);
}

static psg_status failed_hook(void *u, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)u, (void)pc;
  /* The failed pass's unchanged input: readable (ASan would see a freed one). */
  fx_log("failed %s with %s", psg_pass_info_name(info), psg_module_num_functions(m) == 1 ? "1 function" : "?");
  return PSG_OK;
}

static psg_status before_hook(void *u, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)u, (void)pc, (void)m, (void)info;
  return PSG_OK;
}

/* Whatever may read the input after a pass keeps it: an after-failed hook,
 * testing.immutable_module. Other hooks do not. */
static void test_kept_for_readers(void) {
  psg_ctx *ctx = check_ctx();
  int64_t kept, taken;
  psg_pass_context *pc = NULL;
  psg_instrument *inst = NULL;
  /* A before-hook alone reads the input before the pass: freed. */
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  psg_instrument_callbacks before = {.run_before_pass = before_hook};
  CHECK_OK(psg_instrument_create(ctx, "before", &before, NULL, NULL, &inst));
  CHECK_OK(psg_pass_context_add_instrument(pc, inst));
  psg_instrument_release(inst);
  kept = live_during(ctx, pc, false, false);
  taken = live_during(ctx, pc, false, true);
  CHECK_EQ_INT(taken, kept - 2);
  /* ... and a pass failing after the input was freed leaks nothing. */
  psg_pass *p = pipeline(ctx, true, true);
  psg_module *out = NULL;
  CHECK(psg_pass_run_take(p, input(ctx), pc, &out) == PSG_ERR_PASS_FAILED && !out);
  psg_pass_release(p);
  psg_pass_context_release(pc);
  /* An after-failed hook: kept, and on failure it reads the input. */
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  psg_instrument_callbacks failed = {.run_after_pass_failed = failed_hook};
  CHECK_OK(psg_instrument_create(ctx, "failed", &failed, NULL, NULL, &inst));
  CHECK_OK(psg_pass_context_add_instrument(pc, inst));
  psg_instrument_release(inst);
  kept = live_during(ctx, pc, true, false);
  taken = live_during(ctx, pc, true, true);
  CHECK_EQ_INT(taken, kept);
  fx_events[0] = 0;
  p = pipeline(ctx, true, true);
  CHECK(psg_pass_run_take(p, input(ctx), pc, &out) == PSG_ERR_PASS_FAILED && !out);
  CHECK_STR(fx_events, "run Fail;failed Fail with 1 function;failed sequential with 1 function;"
                       "failed sequential with 1 function;");
  psg_pass_release(p);
  psg_pass_context_release(pc);
  /* testing.immutable_module: kept. */
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  psg_attr *on = NULL;
  CHECK_OK(psg_attr_bool(ctx, true, &on));
  CHECK_OK(psg_pass_context_set_config(pc, "testing.immutable_module", on));
  psg_attr_release(on);
  kept = live_during(ctx, pc, false, false);
  taken = live_during(ctx, pc, false, true);
  CHECK_EQ_INT(taken, kept);
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

/* A failing run, and bad arguments, release the input: nothing leaks. */
static void test_failure_releases(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass *p = pipeline(ctx, true, true);
  psg_module *out = NULL;
  CHECK(psg_pass_run_take(p, input(ctx), NULL, &out) == PSG_ERR_PASS_FAILED && !out);
  CHECK(psg_pass_run_take(NULL, input(ctx), NULL, &out) == PSG_ERR_INVALID_ARGUMENT);
  CHECK(psg_pass_run_take(p, NULL, NULL, &out) == PSG_ERR_INVALID_ARGUMENT && !out);
  psg_pass_release(p);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_input_freed_after_first_pass);
  RUN_TEST(test_caller_still_holding);
  RUN_TEST(test_kept_for_readers);
  RUN_TEST(test_failure_releases);
  return check_finish();
}
