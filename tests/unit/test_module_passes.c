/* RemoveUnusedFunctions, InlineGlobals and CanonicalizeOps as input ->
 * expected module pairs: what each removes, inlines or rewrites, and what it
 * must leave (reachable functions, functions with binders, other ops). */
#include "pass_check.h"

static void test_remove_unused_functions(void) {
  check_pass("RemoveUnusedFunctions", NULL,
             HDR "def @used(%a: " T ") {\n  nn.relu(%a)\n}\n\n"
                 "def @unused(%a: " T ") {\n  @used(%a)\n}\n\n"
                 "def @also_used(%a: " T ") {\n  @used(%a)\n}\n\n"
                 "def @main(%x: " T ") {\n  @also_used(%x)\n}\n",
             HDR "def @used(%a: " T ") {\n  nn.relu(%a)\n}\n\n"
                 "def @also_used(%a: " T ") {\n  @used(%a)\n}\n\n"
                 "def @main(%x: " T ") {\n  @also_used(%x)\n}\n");
}

static void test_inline_globals(void) {
  check_pass("InlineGlobals", NULL,
             HDR "def @sq(%a: " T ", Inline=1) {\n  multiply(%a, %a)\n}\n\n"
                 "def @twice(%a: " T ", Inline=1) {\n  %0 = @sq(%a);\n  add(%0, %0)\n}\n\n"
                 "def @main(%x: " T ") {\n  %0 = nn.relu(%x);\n  @twice(%0)\n}\n",
             HDR "def @main(%x: " T ") {\n  %0 = nn.relu(%x);\n  %1 = multiply(%0, %0);\n  add(%1, %1)\n}\n");
}

/* Unmarked functions stay called; a marked body with a let is inlined as it
 * is (TVM's Bind renames nothing); a marked function that still calls a
 * global is no leaf, so it stays called (TVM then fails an assertion). */
static void test_inline_leaves_others(void) {
  check_pass("InlineGlobals", NULL,
             HDR "def @plain(%a: " T ") {\n  multiply(%a, %a)\n}\n\n"
                 "def @mid(%a: " T ", Inline=1) {\n  @plain(%a)\n}\n\n"
                 "def @with_let(%a: " T ", Inline=1) {\n  let %b = add(%a, %a);\n  %b\n}\n\n"
                 "def @main(%x: " T ") {\n  %0 = @mid(%x);\n  @with_let(%0)\n}\n",
             HDR "def @plain(%a: " T ") {\n  multiply(%a, %a)\n}\n\n"
                 "def @mid(%a: " T ", Inline=1) {\n  @plain(%a)\n}\n\n"
                 "def @main(%x: " T ") {\n  %0 = @mid(%x);\n  let %b = add(%0, %0);\n  %b\n}\n");
}

static void test_canonicalize_bias_add(void) {
  check_pass("CanonicalizeOps", NULL,
             HDR "def @main(%x: Tensor[(1, 3, 4, 4), float32], %b: Tensor[(3), float32]) {\n"
                 "  nn.bias_add(%x, %b)\n}\n",
             HDR "def @main(%x: Tensor[(1, 3, 4, 4), float32], %b: Tensor[(3), float32]) {\n"
                 "  %0 = expand_dims(%b, axis=1, num_newaxis=2);\n  add(%x, %0)\n}\n");
  /* On the last axis nothing needs expanding. */
  check_pass("CanonicalizeOps", NULL,
             HDR "def @main(%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]) {\n"
                 "  nn.bias_add(%x, %b, axis=-1)\n}\n",
             HDR "def @main(%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]) {\n  add(%x, %b)\n}\n");
}

int main(void) {
  RUN_TEST(test_remove_unused_functions);
  RUN_TEST(test_inline_globals);
  RUN_TEST(test_inline_leaves_others);
  RUN_TEST(test_canonicalize_bias_add);
  return check_finish();
}
