/* Verify-each and reproducers (issue 19 items 1 and 2; docs/pass-infra.md):
 * seeded bugs caught by the verifier with the pass named and the node
 * located (wrong checked type, a variable bound twice, a missing global, an
 * ill-formed PrimFunc), the input left intact, the default from the build;
 * reproducers written on an error and on a crash by signal (a forked child),
 * read back by psg_reproducer_load and replayed to the same message. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pass_check.h"

#define T3 "Tensor[(3), float32]"
static const char *const src = HDR "def @main(%x: " T3 ", %y: " T3 ") {\n"
                                   "  %0 = add(%x, %y);\n  %1 = multiply(%0, %y);\n  subtract(%1, %x)\n}\n";

static psg_pass_context *context(psg_ctx *ctx, bool verify, const char *repro, bool local) {
  psg_pass_context *pc = NULL;
  psg_attr *v = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_attr_bool(ctx, verify, &v));
  CHECK_OK(psg_pass_context_set_config(pc, "testing.verify_each", v));
  psg_attr_release(v);
  if (repro) {
    CHECK_OK(psg_attr_string(ctx, repro, strlen(repro), &v));
    CHECK_OK(psg_pass_context_set_config(pc, "testing.reproducer", v));
    psg_attr_release(v);
    CHECK_OK(psg_attr_bool(ctx, local, &v));
    CHECK_OK(psg_pass_context_set_config(pc, "testing.local_reproducer", v));
    psg_attr_release(v);
  }
  return pc;
}

/* Runs pipeline `text` over `mod` under `pc`; the first error's message
 * (static buffer, "" when the run succeeded). */
static const char *run_pipeline(psg_ctx *ctx, const char *text, psg_module *mod, psg_pass_context *pc) {
  static char msg[512];
  psg_pass *p = NULL;
  psg_module *out = NULL;
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_context_enter(pc));
  psg_status st = psg_pipeline_parse(ctx, text, &p);
  if (!st) st = psg_pass_run(p, mod, pc, &out);
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK((st == PSG_OK) == (out != NULL));
  msg[0] = 0;
  for (size_t i = 0; st && i < psg_ctx_diag_count(ctx) && !msg[0]; i++)
    if (psg_diag_severity(psg_ctx_get_diag(ctx, i)) == PSG_SEVERITY_ERROR)
      snprintf(msg, sizeof msg, "%s", psg_diag_message(psg_ctx_get_diag(ctx, i)));
  psg_module_release(out);
  psg_pass_release(p);
  return msg;
}

static void test_wrong_type_caught(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  psg_module *mod = parse(ctx, src);
  uint64_t h = psg_module_structural_hash(mod);
  psg_pass_context *off = context(ctx, false, NULL, false), *on = context(ctx, true, NULL, false);
  /* Off: nothing names the pass that broke the types. (Since InferType
   * writes return types, a later pass may notice that the body no longer
   * has the annotated type, but not where it went wrong.) */
  CHECK(strstr(run_pipeline(ctx, "InferType,testing.BreakTypes,FoldConstant", mod, off), "testing.BreakTypes") == NULL);
  CHECK_STR(run_pipeline(ctx, "InferType,testing.BreakTypes,FoldConstant", mod, on),
            "after pass 'testing.BreakTypes': in @main, subtract(...) has type Tensor[(1, 3), float32] but "
            "InferType gives Tensor[(3), float32]");
  CHECK(psg_module_structural_hash(mod) == h); /* the input is intact */
  /* Passes that are right pass the verifier: the -O3 pipeline. */
  CHECK_STR(run_pipeline(ctx, "O3", mod, on), "");
  psg_pass_context_release(off);
  psg_pass_context_release(on);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* Function pass: let %v = add(%x, %x); let %v = %v; %v (bound twice). */
static psg_status bind_twice(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc;
  psg_ctx *ctx = user;
  psg_expr *x = psg_expr_get_child(func, 0), *add = NULL, *v = NULL, *inner = NULL, *outer = NULL, *op = NULL;
  psg_expr *args[2] = {x, x};
  CHECK_OK(psg_op_get(ctx, "add", &op));
  CHECK_OK(psg_call_create(ctx, op, args, 2, NULL, NULL, &add));
  CHECK_OK(psg_var_create(ctx, "v", NULL, NULL, &v));
  CHECK_OK(psg_let_create(ctx, v, v, v, NULL, &inner));
  CHECK_OK(psg_let_create(ctx, v, add, inner, NULL, &outer));
  psg_expr *params[2] = {psg_expr_get_child(func, 0), psg_expr_get_child(func, 1)};
  psg_status st = psg_function_create(ctx, params, 2, outer, NULL, NULL, NULL, out);
  psg_expr_release(op), psg_expr_release(add), psg_expr_release(v), psg_expr_release(inner);
  psg_expr_release(outer);
  return st;
}

/* Module pass: @main becomes a call of @missing, a global the module lacks. */
static psg_status call_missing(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  psg_ctx *ctx = user;
  psg_expr *f = psg_module_lookup(mod, "main"), *gv = NULL, *call = NULL, *nf = NULL;
  psg_expr *params[2] = {psg_expr_get_child(f, 0), psg_expr_get_child(f, 1)};
  CHECK_OK(psg_global_var_create(ctx, "missing", NULL, &gv));
  CHECK_OK(psg_call_create(ctx, gv, params, 2, NULL, NULL, &call));
  CHECK_OK(psg_function_create(ctx, params, 2, call, NULL, NULL, NULL, &nf));
  psg_expr *main_gv = NULL;
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &main_gv));
  psg_status st = psg_module_update(mod, main_gv, nf, out);
  psg_expr_release(gv), psg_expr_release(call), psg_expr_release(nf), psg_expr_release(main_gv);
  return st;
}

static void test_scope_and_globals_caught(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, src);
  psg_pass_context *on = context(ctx, true, NULL, false);
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "BindTwice", 0, NULL, 0, &info));
  CHECK_OK(psg_create_function_pass(ctx, info, bind_twice, ctx, NULL, &p));
  psg_pass_info_release(info);
  CHECK_EQ_INT(psg_pass_run(p, mod, on, &out), PSG_ERR_PASS_FAILED);
  CHECK_STR(psg_diag_message(psg_ctx_get_diag(ctx, 0)), "after pass 'BindTwice': in @main, %v is bound more than once");
  psg_pass_release(p);
  psg_ctx_clear_diags(ctx);
  CHECK_OK(psg_pass_info_create(ctx, "CallMissing", 0, NULL, 0, &info));
  CHECK_OK(psg_create_module_pass(ctx, info, call_missing, ctx, NULL, &p));
  psg_pass_info_release(info);
  CHECK_EQ_INT(psg_pass_run(p, mod, on, &out), PSG_ERR_PASS_FAILED);
  CHECK_STR(psg_diag_message(psg_ctx_get_diag(ctx, 0)),
            "after pass 'CallMissing': in @main, @missing is not a function of the module");
  psg_pass_release(p);
  psg_pass_context_release(on);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

static void test_prim_func_caught(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  static const char tir[] = HDR "@T.prim_func\n"
                                "def main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
                                "    for i in range(4):\n"
                                "        B[i] = A[i] * T.float32(2.0)\n";
  psg_module *mod = parse(ctx, tir);
  CHECK(mod != NULL);
  psg_pass_context *off = context(ctx, false, NULL, false), *on = context(ctx, true, NULL, false);
  CHECK_STR(run_pipeline(ctx, "tir.Simplify,testing.BreakPrimFunc", mod, off), "");
  CHECK_STR(run_pipeline(ctx, "tir.Simplify,testing.BreakPrimFunc", mod, on),
            "verify_well_formed: in @main: variable 'undefined' is used by Evaluate but never defined");
  bool named = false;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++)
    named |= !strcmp(psg_diag_message(psg_ctx_get_diag(ctx, i)),
                     "after pass 'testing.BreakPrimFunc': PrimFunc @main is not well formed (the errors above)");
  CHECK(named);
  psg_pass_context_release(off);
  psg_pass_context_release(on);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

static void test_default_from_build(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
#if defined(PASSAGE_VERIFY_EACH_DEFAULT) && PASSAGE_VERIFY_EACH_DEFAULT
  CHECK(psg_pass_context_config_bool(pc, "testing.verify_each"));
#else
  CHECK(!psg_pass_context_config_bool(pc, "testing.verify_each"));
#endif
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 14];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return buf;
}

/* Loads the reproducer at `path` and replays it; the first error message. */
static const char *replay(psg_ctx *ctx, const char *path, char **pipeline_out) {
  psg_pass_context *pc = NULL;
  psg_module *mod = NULL;
  char *pipeline = NULL;
  CHECK_OK(psg_reproducer_load(ctx, path, &pc, &pipeline, &mod));
  const char *msg = pc ? run_pipeline(ctx, pipeline, mod, pc) : "not loaded";
  if (pipeline_out) *pipeline_out = strdup(pipeline ? pipeline : "");
  psg_free(pipeline);
  psg_module_release(mod);
  psg_pass_context_release(pc);
  return msg;
}

static void test_reproducer_on_error(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  char path[] = "/tmp/psg_repro_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  psg_module *mod = parse(ctx, src);
  for (int local = 0; local < 2; local++) {
    psg_pass_context *pc = context(ctx, true, path, local);
    CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
    CHECK_OK(psg_pass_context_add_disabled_pass(pc, "FuseOps"));
    char first[512], *pipeline = NULL;
    snprintf(first, sizeof first, "%s", run_pipeline(ctx, "InferType,FoldConstant,testing.BreakTypes", mod, pc));
    CHECK(strstr(first, "after pass 'testing.BreakTypes'") != NULL);
    const char *text = slurp(path);
    CHECK(text && !strncmp(text, "// passage reproducer 1\n// failed-pass: testing.BreakTypes\n", 57));
    CHECK(text && strstr(text, "// opt-level: 3\n") && strstr(text, "// disabled-pass: FuseOps\n") &&
          strstr(text, "// config: testing.verify_each=true\n") && !strstr(text, "testing.reproducer"));
    /* The same failure again, with the context it recorded. */
    CHECK_STR(replay(ctx, path, &pipeline), first);
    CHECK_STR(pipeline, local ? "testing.BreakTypes" : "sequential(InferType,FoldConstant,testing.BreakTypes)");
    free(pipeline);
    psg_pass_context_release(pc);
  }
  /* A run that succeeds writes nothing. */
  unlink(path);
  psg_pass_context *pc = context(ctx, true, path, false);
  CHECK_STR(run_pipeline(ctx, "InferType,FoldConstant", mod, pc), "");
  CHECK(access(path, F_OK) != 0);
  psg_pass_context_release(pc);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* A module pass that runs a failing pipeline, ignores the failure and
 * returns its input: the run succeeds, so no reproducer is written. */
static psg_status try_and_fall_back(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  psg_pass *inner = NULL;
  psg_module *tmp = NULL;
  CHECK_OK(psg_pipeline_parse(user, "testing.BreakTypes", &inner));
  CHECK(psg_pass_run(inner, mod, pc, &tmp) != PSG_OK);
  psg_pass_release(inner);
  psg_ctx_clear_diags(user);
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

static void test_reproducer_caught_failure(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_testing_register_seeded_bug_passes(ctx));
  char path[] = "/tmp/psg_caught_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  unlink(path);
  psg_module *mod = parse(ctx, src);
  psg_pass_info *info = NULL;
  psg_pass *p = NULL, *seq = NULL, *crash = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "TryAndFallBack", 0, NULL, 0, &info));
  CHECK_OK(psg_create_module_pass(ctx, info, try_and_fall_back, ctx, NULL, &p));
  psg_pass_info_release(info);
  for (int local = 0; local < 2; local++) {
    psg_pass_context *pc = context(ctx, true, path, local);
    psg_module *out = NULL;
    CHECK_OK(psg_pass_run(p, mod, pc, &out));
    psg_module_release(out);
    CHECK(access(path, F_OK) != 0);
    /* Then a real failure after it: the file names that one. */
    psg_pass *kids[2] = {p, NULL};
    CHECK_OK(psg_pipeline_parse(ctx, "testing.BreakTypes", &crash));
    kids[1] = crash;
    CHECK_OK(psg_sequential(ctx, kids, 2, NULL, &seq));
    CHECK(psg_pass_run(seq, mod, pc, &out) != PSG_OK);
    const char *text = slurp(path);
    CHECK(text && strstr(text, "// failed-pass: testing.BreakTypes\n"));
    unlink(path);
    psg_pass_release(seq);
    psg_pass_release(crash);
    psg_pass_context_release(pc);
  }
  psg_pass_release(p);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

static void test_reproducer_on_crash(void) {
  char path[] = "/tmp/psg_crash_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    psg_ctx *ctx = check_ctx();
    psg_testing_register_seeded_bug_passes(ctx);
    psg_module *mod = parse(ctx, src);
    run_pipeline(ctx, "InferType,testing.Crash", mod, context(ctx, false, path, true));
    _exit(0); /* not reached */
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  /* Killed by SIGSEGV (a sanitizer's handler, re-installed by the
   * reproducer's, reports it and exits non-zero instead). */
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || (WIFEXITED(status) && WEXITSTATUS(status) != 0));
  const char *text = slurp(path);
  CHECK(text && !strncmp(text, "// passage reproducer 1\n// crashed: SIGSEGV in pass 'testing.Crash'\n", 67));
  CHECK(text && strstr(text, "// pipeline: testing.Crash\n") && strstr(text, "def @main("));
  psg_ctx *ctx = check_ctx();
  psg_pass_context *pc = NULL;
  psg_module *mod = NULL;
  char *pipeline = NULL;
  CHECK_OK(psg_reproducer_load(ctx, path, &pc, &pipeline, &mod));
  CHECK_STR(pipeline, "testing.Crash");
  psg_free(pipeline);
  psg_module_release(mod);
  psg_pass_context_release(pc);
  /* Not a reproducer. */
  FILE *f = fopen(path, "w");
  fputs(src, f);
  fclose(f);
  CHECK_EQ_INT(psg_reproducer_load(ctx, path, &pc, &pipeline, &mod), PSG_ERR_PARSE);
  CHECK(!pc && !pipeline && !mod);
  unlink(path);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_wrong_type_caught);
  RUN_TEST(test_scope_and_globals_caught);
  RUN_TEST(test_prim_func_caught);
  RUN_TEST(test_default_from_build);
  RUN_TEST(test_reproducer_on_error);
  RUN_TEST(test_reproducer_caught_failure);
  RUN_TEST(test_reproducer_on_crash);
  return check_finish();
}
