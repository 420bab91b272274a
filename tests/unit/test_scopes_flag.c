/* HAS_SCOPES (ir_internal.h): set on If, Let and Function nodes and on every
 * node above one, also after a rebuild; the passes that skip dataflow-only
 * graphs with it (ToBasicBlockNormalForm, EliminateCommonSubexpr,
 * RemoveUnusedFunctions with only entry functions; CanonicalizeCast, with no
 * cast, too) give those back as they are and still work on the others. */
#include "pass_check.h"
#include "ir/ir_internal.h"

static bool scoped(const psg_expr *e) { return (e->flags & PSGI_EXPR_HAS_SCOPES) != 0; }

static void test_flag(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ", %c: bool) {\n"
                                 "  %0 = add(%x, 1f);\n"
                                 "  %1 = if (%c) { nn.relu(%0) } else { %0 };\n"
                                 "  %2 = (%1, %0);\n"
                                 "  %3 = %2.0;\n"
                                 "  %4 = fn (%y: " T ") { %y };\n"
                                 "  %5 = %4(%0);\n"
                                 "  let %z = %0;\n"
                                 "  (%3, %5, %z)\n}\n");
  CHECK(m != NULL);
  if (m) {
    psg_expr *fn = psg_module_lookup(m, "main"), *let = psg_function_get_body(fn), *body = psg_let_get_body(let);
    psg_expr *tgi = psg_expr_get_child(body, 0), *call = psg_expr_get_child(body, 1);
    psg_expr *tuple = psg_expr_get_child(tgi, 0), *iff = psg_expr_get_child(tuple, 0), *add = psg_expr_get_child(tuple, 1);
    CHECK(scoped(fn) && scoped(body) && scoped(tgi) && scoped(tuple) && scoped(iff) && scoped(let));
    CHECK(scoped(call)); /* its callee is a function */
    CHECK(!scoped(add) && !scoped(psg_expr_get_child(add, 0)) && !scoped(psg_expr_get_child(add, 1)));
    CHECK(!scoped(psg_expr_get_child(iff, 0)));
    /* Rebuilt over an unscoped child instead of the If: no flag. */
    psg_expr *kids[2] = {add, add}, *re = NULL;
    CHECK_OK(psgi_expr_rebuild(tuple, kids, &re));
    CHECK(re && !scoped(re));
    kids[0] = iff;
    psg_expr *re2 = NULL;
    CHECK_OK(psgi_expr_rebuild(re, kids, &re2));
    CHECK(re2 && scoped(re2));
    psg_expr_release(re);
    psg_expr_release(re2);
  }
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_passes_keep_dataflow_graphs(void) {
  psg_ctx *ctx = check_ctx();
  /* Fully annotated, so the trailing InferType has nothing to write in. */
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") -> " T " {\n  %0 = add(%x, 1f);\n  multiply(%0, %0)\n}\n");
  const char *names[] = {"ToBasicBlockNormalForm", "RemoveUnusedFunctions", "EliminateCommonSubexpr",
                         "CanonicalizeCast"};
  for (size_t i = 0; m && i < sizeof names / sizeof *names; i++) {
    psg_module *out = run(ctx, names[i], NULL, m);
    CHECK(out == m);
    psg_module_release(out);
  }
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* A Composite function literal has no HAS_SCOPES (its body is kept as it is
 * by the built-in passes), so a graph whose only nested functions are
 * Composite is dataflow: the passes above give it back as it is. */
static void test_composite_is_dataflow(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") -> " T " {\n"
                                 "  %0 = fn (%a: " T ", Composite=\"test.C\") -> " T " { %1 = add(%a, 1f); multiply(%1, %1) };\n"
                                 "  %2 = %0(%x);\n"
                                 "  add(%2, %2)\n}\n");
  CHECK(m != NULL);
  if (m) {
    psg_expr *fn = psg_module_lookup(m, "main"), *body = psg_function_get_body(fn);
    CHECK(scoped(fn) && !scoped(body)); /* @main is a Function; its body is not scoped */
    CHECK(!scoped(psg_expr_get_child(psg_expr_get_child(body, 1), 0))); /* the Composite literal itself */
    const char *names[] = {"ToBasicBlockNormalForm", "EliminateCommonSubexpr", "CanonicalizeCast"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
      psg_module *out = run(ctx, names[i], NULL, m);
      CHECK(out == m);
      psg_module_release(out);
    }
  }
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* With scopes the passes still do their work. */
static void test_passes_with_scopes(void) {
  check_pass("ToBasicBlockNormalForm", NULL,
             HDR "def @main(%x: " T ", %c: bool) {\n  %0 = add(%x, 1f);\n"
                 "  if (%c) { nn.relu(%0) } else { nn.relu(%0) }\n}\n",
             HDR "def @main(%x: " T ", %c: bool) {\n  let %v = add(%x, 1f);\n"
                 "  if (%c) { nn.relu(%v) } else { nn.relu(%v) }\n}\n");
  check_pass("EliminateCommonSubexpr", NULL,
             HDR "def @main(%x: " T ", %c: bool) {\n  if (%c) { add(nn.relu(%x), nn.relu(%x)) } else { %x }\n}\n",
             HDR "def @main(%x: " T ", %c: bool) {\n  if (%c) {\n    %0 = nn.relu(%x);\n    add(%0, %0)\n  } else {\n    %x\n  }\n}\n");
  check_pass("RemoveUnusedFunctions", NULL,
             HDR "def @f(%a: " T ") {\n  %a\n}\ndef @main(%x: " T ") {\n  %x\n}\n",
             HDR "def @main(%x: " T ") {\n  %x\n}\n");
}

int main(void) {
  RUN_TEST(test_flag);
  RUN_TEST(test_passes_keep_dataflow_graphs);
  RUN_TEST(test_passes_with_scopes);
  RUN_TEST(test_composite_is_dataflow);
  return check_finish();
}
