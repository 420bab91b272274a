/* Pipeline text tests (pass.h): parse → print → parse round trips with
 * nesting and every kind of option value, located parse errors, option
 * values for --config, and the registered -O pipelines O0..O3. */
#include "test_pass_fixtures.h"

/* Makes a pass that records its options, accepting any of a few keys. */
static psg_status make_opt_pass(psg_ctx *ctx, psg_attrs *o, void *user, psg_pass **out) {
  (void)o;
  *out = fx_module_pass(ctx, user, 0, NULL, 0, fx_identity);
  return PSG_OK;
}

static void register_fakes(psg_ctx *ctx) {
  static const char *const opts[] = {"fuse_opt_level", "name", "ratio", "flag", "levels", "cfg", "none", NULL};
  CHECK_OK(psg_pass_register(ctx, "Fuse", PSG_PASS_FUNCTION, 0, NULL, 0, opts, "t", make_opt_pass, "Fuse"));
  CHECK_OK(psg_pass_register(ctx, "Fold", PSG_PASS_FUNCTION, 2, NULL, 0, opts, "t", make_opt_pass, "Fold"));
}

/* print(parse(text)) == want, and it parses back to itself. */
static void round_trip(psg_ctx *ctx, const char *text, const char *want) {
  psg_pass *p = NULL, *q = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, text, &p));
  if (!p) return;
  char *s = psg_pipeline_print(p);
  CHECK_STR(s, want);
  CHECK_OK(psg_pipeline_parse(ctx, s, &q));
  char *s2 = q ? psg_pipeline_print(q) : NULL;
  CHECK_STR(s2, s);
  psg_free(s);
  psg_free(s2);
  psg_pass_release(p);
  psg_pass_release(q);
}

static void test_round_trips(void) {
  psg_ctx *ctx = check_ctx();
  register_fakes(ctx);
  round_trip(ctx, "Fold", "Fold");
  round_trip(ctx, " Fold , Fuse ", "sequential(Fold,Fuse)");
  round_trip(ctx, "sequential(InferType,Fold,Fuse{fuse_opt_level=2})",
             "sequential(InferType,Fold,Fuse{fuse_opt_level=2})");
  /* Blanks before the name are not part of it (found by fuzz_pipeline). */
  round_trip(ctx, "sequential[\tIn, 4](Fold)", "sequential[In,4](Fold)");
  round_trip(ctx, "sequential[Outer,3](Fold, sequential(), sequential[In,1](Fuse{name=\"a \\\"q\\\" \\\\b\"}))",
             "sequential[Outer,3](Fold,sequential(),sequential[In,1](Fuse{name=\"a \\\"q\\\" \\\\b\"}))");
  round_trip(ctx, "Fuse{ratio=0.25, flag=false, levels=[1, -2, [3]], none=None}",
             "Fuse{ratio=0.25,flag=false,levels=[1,-2,[3]],none=None}");
  round_trip(ctx, "Fuse{cfg={auto_max_step=10,explicit_unroll=true}}", "Fuse{cfg={auto_max_step=10,explicit_unroll=true}}");
  round_trip(ctx, "transform.Fold", "Fold");
  round_trip(ctx, "relay._transform.Fold{fuse_opt_level=1}", "Fold{fuse_opt_level=1}");
  /* The parsed structure, not only the text. */
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "sequential[Outer,3](Fold,Fuse{fuse_opt_level=2})", &p));
  CHECK_EQ_INT(psg_pass_kind(p), PSG_PASS_SEQUENTIAL);
  CHECK_STR(psg_pass_info_name(psg_pass_get_info(p)), "Outer");
  CHECK_EQ_INT(psg_pass_info_opt_level(psg_pass_get_info(p)), 3);
  CHECK_EQ_INT(psg_pass_num_children(p), 2);
  psg_attrs *o = psg_pass_get_options(psg_pass_get_child(p, 1));
  CHECK_EQ_INT(psg_attr_get_int(psg_attrs_get(o, "fuse_opt_level")), 2);
  CHECK(psg_pass_get_options(psg_pass_get_child(p, 0)) == NULL);
  psg_pass_release(p);
  CHECK_CTX_CLEAN(ctx);
}

/* parse(text) fails with a message containing `msg` at column `col`. */
static void parse_error(psg_ctx *ctx, const char *text, int col, const char *msg) {
  psg_pass *p = NULL;
  psg_ctx_clear_diags(ctx);
  CHECK(psg_pipeline_parse(ctx, text, &p) != PSG_OK);
  CHECK(p == NULL);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d != NULL);
  if (!d) return;
  CHECK_EQ_INT(psg_diag_col(d), col);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 1); /* located once, not repeated unlocated */
  CHECK_STR(psg_diag_file(d), "<pipeline>");
  if (!strstr(psg_diag_message(d), msg)) {
    fprintf(stderr, "for '%s': got '%s', want '%s'\n", text, psg_diag_message(d), msg);
    CHECK(false);
  }
}

static void test_parse_errors(void) {
  psg_ctx *ctx = check_ctx();
  register_fakes(ctx);
  parse_error(ctx, "", 1, "expected a pass name, found the end of the pipeline");
  parse_error(ctx, "sequential(Fold,,Fuse)", 17, "expected a pass name");
  parse_error(ctx, "sequential(Fold", 16, "expected ',' or ')' after a pass");
  parse_error(ctx, "Fold Fuse", 6, "expected ',' or the end of the pipeline");
  parse_error(ctx, "Fold,Fsue", 6, "cannot use Fsue to create the pass: no pass of that name is registered; did you mean 'Fuse'?");
  parse_error(ctx, "Fuse{fuse_opt_level}", 20, "expected '=' after option 'fuse_opt_level'");
  parse_error(ctx, "Fuse{fuse_opt_level=}", 21, "expected an option value");
  parse_error(ctx, "Fuse{name=\"abc}", 11, "unterminated string");
  parse_error(ctx, "Fuse{fuse_opt_levl=1}", 6, "pass 'Fuse' has no option 'fuse_opt_levl'; did you mean 'fuse_opt_level'?");
  parse_error(ctx, "sequential[X](Fold)", 13, "expected sequential[NAME,LEVEL]");
  parse_error(ctx, "sequential Fold", 12, "expected '(' after sequential");
  /* Found by fuzz_pipeline: a repeated key was refused without a column. */
  parse_error(ctx, "Fuse{flag=true, flag=false}", 17, "option 'flag' given twice");
  parse_error(ctx, "Fuse{cfg={a=1,a=2}}", 15, "option 'a' given twice");
  /* Not cast into an int: it would print back as another level. */
  parse_error(ctx, "sequential[X,4294967297](Fold)", 14, "opt level 4294967297 is out of range");
  char long_name[400] = "sequential[";
  memset(long_name + 11, 'n', 300);
  strcpy(long_name + 311, ",1](Fold)");
  parse_error(ctx, long_name, 12, "sequential name too long");
  /* A list option's items have the kind of its default's items. */
  parse_error(ctx, "RemoveUnusedFunctions{entry_functions=[\"main\",2]}", 23,
              "option 'entry_functions' of pass 'RemoveUnusedFunctions' expects an Array of String, got an Integer item");
  /* Nesting is capped, so hostile input cannot exhaust the stack. */
  char deep[1200] = "";
  for (int i = 0; i < 100; i++) strcat(deep, "sequential(");
  parse_error(ctx, deep, 1 + 64 * 11, "pipeline nested too deeply (limit 64)");
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

static void test_parse_value(void) {
  psg_ctx *ctx = check_ctx();
  psg_attr *v = NULL;
  CHECK_OK(psg_pipeline_parse_value(ctx, " 42 ", &v));
  CHECK(psg_attr_kind(v) == PSG_ATTR_INT && psg_attr_get_int(v) == 42);
  psg_attr_release(v);
  CHECK_OK(psg_pipeline_parse_value(ctx, "-1.5e1", &v));
  CHECK(psg_attr_kind(v) == PSG_ATTR_FLOAT && psg_attr_get_float(v) == -15.0);
  psg_attr_release(v);
  CHECK_OK(psg_pipeline_parse_value(ctx, "{a=[true,\"x\"],b={c=1}}", &v));
  CHECK(psg_attr_kind(v) == PSG_ATTR_DICT);
  psg_attrs *d = psg_attr_get_dict(v);
  CHECK_EQ_INT(psg_attr_list_len(psg_attrs_get(d, "a")), 2);
  CHECK_EQ_INT(psg_attr_get_int(psg_attrs_get(psg_attr_get_dict(psg_attrs_get(d, "b")), "c")), 1);
  psg_attr_release(v);
  v = NULL;
  CHECK_EQ_INT(psg_pipeline_parse_value(ctx, "1 2", &v), PSG_ERR_PARSE);
  CHECK(v == NULL && psg_diag_col(psg_ctx_get_last_error(ctx)) == 3);
  CHECK_EQ_INT(psg_pipeline_parse_value(ctx, "maybe", &v), PSG_ERR_PARSE);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* O0..O3: TVM's default pipeline order, registered passes of level <= N. */
static void check_level(psg_ctx *ctx, int level) {
  char name[4] = {'O', (char)('0' + level), 0, 0};
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, name, &p));
  if (!p) return;
  CHECK_STR(psg_pass_info_name(psg_pass_get_info(p)), name);
  char *text = psg_pipeline_print(p);
  CHECK_STR(text, name); /* prints as its registry name, which parses back */
  psg_free(text);
  size_t k = 0;
  for (size_t i = 0; i < psg_default_pipeline_count(); i++) {
    const char *n = psg_default_pipeline_name(i);
    bool registered = false;
    int lvl = 0; /* a registered pass's level is its declaration's (issue 13) */
    for (size_t j = 0; j < psg_pass_registry_count(ctx); j++)
      if (!strcmp(psg_pass_registry_name(ctx, j), n)) registered = true, lvl = psg_pass_registry_opt_level(ctx, j);
    if (!registered || lvl > level) continue;
    psg_pass *c = psg_pass_get_child(p, k++);
    CHECK(c && !strcmp(psg_pass_info_name(psg_pass_get_info(c)), n));
  }
  CHECK_EQ_INT(psg_pass_num_children(p), k);
  psg_pass_release(p);
}

static void test_opt_levels(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_EQ_INT(psg_default_pipeline_count(), 23);
  CHECK_STR(psg_default_pipeline_name(0), "RemoveUnusedFunctions");
  CHECK_STR(psg_default_pipeline_name(22), "FuseOps");
  CHECK_EQ_INT(psg_default_pipeline_opt_level(5), 3); /* EliminateCommonSubexpr */
  for (int level = 0; level < 4; level++) check_level(ctx, level);
  /* The built-in declarations agree with TVM's levels in the table. */
  for (size_t i = 0; i < psg_default_pipeline_count(); i++)
    for (size_t j = 0; j < psg_pass_registry_count(ctx); j++)
      if (!strcmp(psg_pass_registry_name(ctx, j), psg_default_pipeline_name(i)))
        CHECK_EQ_INT(psg_pass_registry_opt_level(ctx, j), psg_default_pipeline_opt_level(i));
  /* A level comes from the registered declaration: FoldConstant registered
   * again at level 3 leaves O2. */
  CHECK_OK(psg_pass_register(ctx, "FoldConstant", PSG_PASS_FUNCTION, 3, NULL, 0, NULL, "t", make_opt_pass, "FoldConstant"));
  psg_pass *o2 = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "O2", &o2));
  for (size_t i = 0; o2 && i < psg_pass_num_children(o2); i++)
    CHECK(strcmp(psg_pass_info_name(psg_pass_get_info(psg_pass_get_child(o2, i))), "FoldConstant"));
  psg_pass_release(o2);
  for (int level = 0; level < 4; level++) check_level(ctx, level);
  /* The levels grow as passes are registered: FuseOps ends every level. */
  CHECK_OK(psg_pass_register(ctx, "FuseOps", PSG_PASS_FUNCTION, 0, NULL, 0, NULL, "t", make_opt_pass, "FuseOps"));
  for (int level = 0; level < 4; level++) check_level(ctx, level);
  psg_pass *p = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, "O1", &p));
  size_t n = psg_pass_num_children(p);
  CHECK(n >= 1 && !strcmp(psg_pass_info_name(psg_pass_get_info(psg_pass_get_child(p, n - 1))), "FuseOps"));
  psg_pass_release(p);
  CHECK_CTX_CLEAN(ctx);
}

/* psg_pass_context_set_config_text (the text of `--config KEY=VALUE`): every
 * error located in the assignment as "--config:1:COL", once. */
static void config_error(psg_pass_context *pc, const char *text, int col, const char *msg) {
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  psg_ctx_clear_diags(ctx);
  CHECK(psg_pass_context_set_config_text(pc, text) != PSG_OK);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d != NULL);
  if (!d) return;
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 1);
  CHECK_STR(psg_diag_file(d), "--config");
  CHECK_EQ_INT(psg_diag_col(d), col);
  if (!strstr(psg_diag_message(d), msg)) {
    fprintf(stderr, "for '%s': got '%s', want '%s'\n", text, psg_diag_message(d), msg);
    CHECK(false);
  }
}

static void test_config_text(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  if (!pc) return;
  CHECK_OK(psg_pass_context_set_config_text(pc, "relay.FuseOps.max_depth=8"));
  CHECK_EQ_INT(psg_pass_context_config_int(pc, "relay.FuseOps.max_depth"), 8);
  CHECK_OK(psg_pass_context_set_config_text(pc, "tir.UnrollLoop={auto_max_step=4}"));
  CHECK_EQ_INT(psg_attr_get_int(psg_attrs_get(psg_attr_get_dict(psg_pass_context_get_config(pc, "tir.UnrollLoop")),
                                              "auto_max_step")),
               4);
  config_error(pc, "nokv", 5, "--config expects KEY=VALUE, got 'nokv'");
  config_error(pc, "=1", 1, "--config expects KEY=VALUE");
  config_error(pc, "relay.FuseOps.max_dept=1", 1, "invalid config option 'relay.FuseOps.max_dept'; did you mean");
  config_error(pc, "relay.FuseOps.max_depth=deep", 25, "expects type Integer, got a String value");
  config_error(pc, "relay.FuseOps.max_depth=1 2", 27, "unexpected text after the value");
  config_error(pc, "relay.FuseOps.max_depth=[1,", 28, "expected an option value");
  config_error(pc, "tir.UnrollLoop={auto_max_stp=4}", 16, "does not have field 'auto_max_stp'");
  config_error(pc, "tir.UnrollLoop={auto_max_step=1,auto_max_step=2}", 33, "option 'auto_max_step' given twice");
  config_error(pc, "relay.FuseOps.max_depth=99999999999999999999", 25, "integer 99999999999999999999 is out of");
  config_error(pc, "passage.max_constant_bytes=-1", 28, "must be >= 0, not -1");
  CHECK_OK(psg_pass_context_set_config_text(pc, "passage.max_constant_bytes=0"));
  /* A key longer than any buffer is named whole, not cut short. */
  char key[400];
  memset(key, 'k', 300);
  strcpy(key + 300, "=1");
  config_error(pc, key, 1, "invalid config option 'kkkkkkkkkk");
  CHECK(strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "kkk'") != NULL);
  CHECK_EQ_INT(psg_pass_context_config_int(pc, "relay.FuseOps.max_depth"), 8); /* failures change nothing */
  psg_ctx_clear_diags(ctx);
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_round_trips);
  RUN_TEST(test_config_text);
  RUN_TEST(test_parse_errors);
  RUN_TEST(test_parse_value);
  RUN_TEST(test_opt_levels);
  return check_finish();
}
