/* Module properties and pass declarations (issue 13, docs/pass-infra.md):
 * what the runner records on a module, what it runs for a pass that needs a
 * property, typed options, and the registry's lifetime guarantees. */
#include <string.h>
#include "check.h"
#include "test_pass_fixtures.h"

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "<test>", &m));
  return m;
}

static const char *const typed_text = "#[version = \"0.0.5\"]\n"
                                      "def @main(%x: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] { add(%x, %x) }\n";

/* Records every pass the instrument sees (run_before). */
static char seen[512];
static psg_status note_before(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)user;
  (void)pc;
  (void)mod;
  strncat(seen, psg_pass_info_name(info), sizeof seen - strlen(seen) - 2);
  strncat(seen, ";", sizeof seen - strlen(seen) - 1);
  return PSG_OK;
}

static psg_pass_context *recording_context(psg_ctx *ctx) {
  psg_instrument_callbacks cb = {0};
  cb.run_before_pass = note_before;
  psg_instrument *in;
  CHECK_OK(psg_instrument_create(ctx, "Recorder", &cb, NULL, NULL, &in));
  psg_pass_context *pc;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_add_instrument(pc, in));
  psg_instrument_release(in);
  seen[0] = 0;
  return pc;
}

static psg_module *run(psg_ctx *ctx, const char *pipeline, psg_module *mod, psg_pass_context *pc) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, pipeline, &p));
  if (p) CHECK_OK(psg_pass_run(p, mod, pc, &out));
  psg_pass_release(p);
  return out;
}

static void test_established_and_kept(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, typed_text);
  CHECK_EQ_INT(psg_module_properties(mod), 0);
  psg_module *typed = run(ctx, "InferType", mod, NULL);
  CHECK(typed == mod); /* typed in place: the same module, now known TYPED */
  CHECK_EQ_INT(psg_module_properties(mod), PSG_PROP_TYPED);
  psg_module *anf = run(ctx, "ToANormalForm", mod, NULL);
  CHECK(anf != mod);
  /* Changed by a pass that keeps nothing: only what it establishes. */
  CHECK_EQ_INT(psg_module_properties(anf), PSG_PROP_ANF);
  /* A function pass's result is always typed (its trailing InferType). */
  psg_module *gnf = run(ctx, "ToGraphNormalForm", anf, NULL);
  CHECK(gnf != anf && psg_module_properties(gnf) == (PSG_PROP_GNF | PSG_PROP_TYPED));
  CHECK_STR(psg_property_name(PSG_PROP_GNF), "gnf");
  CHECK(psg_property_name(3) == NULL);
  psg_module *objs[] = {typed, anf, gnf, mod};
  for (int i = 0; i < 4; i++) psg_module_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

/* A pass that changes the module keeps what it declares it keeps:
 * RemoveUnusedFunctions drops @unused and the result is still TYPED (and
 * ANF), so a later pass that needs types runs no InferType. */
static void test_kept_by_remove_unused(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *mod = parse(ctx, "#[version = \"0.0.5\"]\n"
                               "def @unused(%y: Tensor[(2), float32]) { negative(%y) }\n"
                               "def @main(%x: Tensor[(2, 3), float32]) { add(%x, %x) }\n");
  psg_module *anf = run(ctx, "InferType,ToANormalForm,InferType", mod, NULL);
  CHECK_EQ_INT(psg_module_properties(anf), PSG_PROP_TYPED | PSG_PROP_ANF);
  psg_pass_context *pc = recording_context(ctx);
  psg_module *out = run(ctx, "RemoveUnusedFunctions,FoldConstant", anf, pc);
  CHECK(psg_module_lookup(out, "unused") == NULL);
  CHECK_STR(seen, "sequential;RemoveUnusedFunctions;FoldConstant;"); /* no InferType */
  psg_module *kept = run(ctx, "RemoveUnusedFunctions", anf, NULL);
  CHECK(kept != anf && psg_module_properties(kept) == (PSG_PROP_TYPED | PSG_PROP_ANF));
  psg_module_release(kept);
  psg_module_release(out);
  psg_module_release(anf);
  psg_module_release(mod);
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

/* A declared pass that needs TYPED gets InferType first, nested inside it
 * and seen by instruments; not again while the module stays typed. */
static psg_status needs_types_body(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  CHECK(psg_module_properties(mod) & PSG_PROP_TYPED);
  CHECK(psg_expr_checked_type(psg_module_lookup(mod, "main")) != NULL);
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

static const psg_pass_decl needs_types = {
    .name = "NeedsTypes",
    .kind = PSG_PASS_MODULE,
    .help = "checks that it sees a typed module",
    .needs = PSG_PROP_TYPED,
    .module = needs_types_body,
};

static void test_needs_runs_establisher(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_pass_register_decl(ctx, &needs_types));
  psg_module *mod = parse(ctx, typed_text);
  psg_pass_context *pc = recording_context(ctx);
  psg_module *out = run(ctx, "NeedsTypes,NeedsTypes", mod, pc);
  CHECK_STR(seen, "sequential;NeedsTypes;InferType;NeedsTypes;");
  CHECK(out == mod);
  psg_module_release(out);
  psg_module_release(mod);
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

/* Options: declared types are checked, defaults reach the body. */
static int64_t seen_level;
static psg_status options_body(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  seen_level = psg_attr_get_int(psg_attrs_get(user, "level"));
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

static const psg_pass_option level_option[] = {{"level", PSG_CONFIG_INT, "7"}, {NULL, 0, NULL}};
static const psg_pass_decl with_options = {
    .name = "WithOptions",
    .kind = PSG_PASS_MODULE,
    .options = level_option,
    .module = options_body,
};

static void test_typed_options(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_pass_register_decl(ctx, &with_options));
  psg_module *mod = parse(ctx, typed_text);
  psg_module_release(run(ctx, "WithOptions", mod, NULL));
  CHECK_EQ_INT(seen_level, 7);
  psg_module_release(run(ctx, "WithOptions{level=2}", mod, NULL));
  CHECK_EQ_INT(seen_level, 2);
  psg_pass *p = NULL;
  CHECK_EQ_INT(psg_pipeline_parse(ctx, "InferType, WithOptions{level=true}", &p), PSG_ERR_INVALID_ARGUMENT);
  CHECK_STR(psg_diag_rendered(psg_ctx_get_last_error(ctx)),
            "<pipeline>:1:24: error: option 'level' of pass 'WithOptions' expects Integer, got a Bool value\n"
            "  InferType, WithOptions{level=true}\n"
            "                         ^\n");
  psg_ctx_clear_diags(ctx);
  /* A declaration needs exactly one body that fits its kind. */
  psg_pass_decl bad = with_options;
  bad.kind = PSG_PASS_FUNCTION;
  CHECK_EQ_INT(psg_pass_register_decl(ctx, &bad), PSG_ERR_INVALID_ARGUMENT);
  psg_ctx_clear_diags(ctx);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

/* Re-registering a name replaces it for lookups and the listing; strings
 * handed out before stay valid while the context lives (issue 13 item 8). */
static psg_status make_named(psg_ctx *ctx, psg_attrs *o, void *user, psg_pass **out) {
  (void)o;
  *out = fx_module_pass(ctx, user, 0, NULL, 0, fx_identity);
  return PSG_OK;
}

static void test_registry_lifetime(void) {
  psg_ctx *ctx = check_ctx();
  size_t builtins = psg_pass_registry_count(ctx);
  CHECK(builtins > 20 && !strcmp(psg_pass_registry_name(ctx, 0), "PrintIR"));
  CHECK_OK(psg_pass_register(ctx, "Mine", PSG_PASS_MODULE, 0, NULL, 0, NULL, "first", make_named, "Mine"));
  CHECK_EQ_INT(psg_pass_registry_count(ctx), builtins + 1);
  const char *help = psg_pass_registry_help(ctx, builtins);
  CHECK_STR(help, "first");
  CHECK_OK(psg_pass_register(ctx, "Mine", PSG_PASS_MODULE, 2, NULL, 0, NULL, "second", make_named, "Mine"));
  CHECK_EQ_INT(psg_pass_registry_count(ctx), builtins + 1);
  CHECK_STR(psg_pass_registry_help(ctx, builtins), "second");
  CHECK_EQ_INT(psg_pass_registry_opt_level(ctx, builtins), 2);
  CHECK_STR(help, "first"); /* the replaced declaration is kept */
  /* A user replaces a built-in name in place in the listing. */
  CHECK_OK(psg_pass_register(ctx, "InferType", PSG_PASS_MODULE, 0, NULL, 0, NULL, "stub", make_named, "InferType"));
  CHECK_EQ_INT(psg_pass_registry_count(ctx), builtins + 1);
  size_t i = 0;
  while (strcmp(psg_pass_registry_name(ctx, i), "InferType")) i++;
  CHECK_STR(psg_pass_registry_help(ctx, i), "stub");
  CHECK(psg_pass_registry_decl(ctx, builtins + 1) == NULL);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_established_and_kept);
  RUN_TEST(test_kept_by_remove_unused);
  RUN_TEST(test_needs_runs_establisher);
  RUN_TEST(test_typed_options);
  RUN_TEST(test_registry_lifetime);
  return check_finish();
}
