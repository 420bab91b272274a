/* ToANormalForm, ToGraphNormalForm, ToBasicBlockNormalForm and LambdaLift:
 * TVM's test cases (test_pass_to_a_normal_form.py, to_graph_normal_form,
 * to_basic_block_normal_form, lambda_lift) as input -> expected text, round
 * trips GNF(ANF(m)) == m, and the interpreter giving the same outputs before
 * and after each pass. */
#include <math.h>
#include <stdlib.h>
#include "pass_check.h"

/* ToANormalForm ------------------------------------------------------------------- */

/* TVM test_order: x + y * z binds the operands in evaluation order, then the
 * product, then the sum (constants are bound too, as TVM does). */
static void test_anf_order(void) {
  check_pass("ToANormalForm", NULL, HDR "def @main() {\n  add(1f, multiply(2f, 3f))\n}\n",
             HDR "def @main() {\n  let %a = 1f;\n  let %b = 2f;\n  let %c = 3f;\n"
                 "  let %d = multiply(%b, %c);\n  let %e = add(%a, %d);\n  %e\n}\n");
}

/* TVM test_if: each branch gets its own scope. */
static void test_anf_if(void) {
  check_pass("ToANormalForm", NULL, HDR "def @main() {\n  if (True) {\n    2f\n  } else {\n    3f\n  }\n}\n",
             HDR "def @main() {\n  let %c = True;\n"
                 "  let %d = if (%c) {\n    let %a = 2f;\n    %a\n  } else {\n    let %b = 3f;\n    %b\n  };\n  %d\n}\n");
}

/* A node shared by both branches is bound before the If, once; a node used
 * only in one branch is bound inside it. */
static void test_anf_if_sharing(void) {
  check_pass("ToANormalForm", NULL,
             HDR "def @main(%a: " T ", %c: bool) {\n  %0 = add(%a, %a);\n  %1 = multiply(%0, %a);\n"
                 "  if (%c) {\n    subtract(%1, %0)\n  } else {\n    %0\n  }\n}\n",
             HDR "def @main(%a: " T ", %c: bool) {\n  let %x = add(%a, %a);\n"
                 "  let %r = if (%c) {\n    let %m = multiply(%x, %a);\n    let %s = subtract(%m, %x);\n    %s\n"
                 "  } else {\n    %x\n  };\n  %r\n}\n");
}

/* Existing lets keep their variables; a let-bound value is not rebound. */
static void test_anf_explicit_let(void) {
  check_pass("ToANormalForm", NULL,
             HDR "def @main(%a: " T ") {\n  let %y = add(%a, %a);\n  let %z = %y;\n  multiply(%y, %z)\n}\n",
             HDR "def @main(%a: " T ") {\n  let %y = add(%a, %a);\n  let %z = %y;\n"
                 "  let %w = multiply(%y, %z);\n  %w\n}\n");
}

/* A nested function's body is a scope of its own: what only it uses is bound
 * inside; what the outside shares is bound outside and captured. */
static void test_anf_function_scope(void) {
  check_pass("ToANormalForm", NULL,
             HDR "def @main(%a: " T ") {\n  %0 = add(%a, %a);\n"
                 "  %1 = fn (%q: " T ") {\n    %2 = multiply(%q, %0);\n    subtract(%2, %q)\n  };\n"
                 "  %1(%0)\n}\n",
             HDR "def @main(%a: " T ") {\n  let %x = add(%a, %a);\n"
                 "  let %f = fn (%q: " T ") {\n    let %m = multiply(%q, %x);\n    let %s = subtract(%m, %q);\n    %s\n  };\n"
                 "  let %r = %f(%x);\n  %r\n}\n");
}

/* A Primitive function is a leaf: bound, but its body is left alone. */
static void test_anf_primitive(void) {
  check_pass("ToANormalForm", NULL,
             HDR "def @main(%a: " T ") {\n  %0 = fn (%p: " T ", Primitive=1) {\n    %1 = add(%p, %p);\n    exp(%1)\n  };\n"
                 "  %0(%a)\n}\n",
             HDR "def @main(%a: " T ") {\n  let %f = fn (%p: " T ", Primitive=1) {\n    %1 = add(%p, %p);\n    exp(%1)\n  };\n"
                 "  let %r = %f(%a);\n  %r\n}\n");
}

/* Tuples and projections are bound as well. */
static void test_anf_tuple(void) {
  check_pass("ToANormalForm", NULL, HDR "def @main(%a: " T ") {\n  %0 = (%a, %a);\n  %0.1\n}\n",
             HDR "def @main(%a: " T ") {\n  let %t = (%a, %a);\n  let %g = %t.1;\n  %g\n}\n");
}

/* ToGraphNormalForm ----------------------------------------------------------------- */

static void test_gnf_inlines_lets(void) {
  check_pass("ToGraphNormalForm", NULL,
             HDR "def @main(%a: " T ") {\n  let %x = add(%a, %a);\n  let %y = multiply(%x, %x);\n  %y\n}\n",
             HDR "def @main(%a: " T ") {\n  %0 = add(%a, %a);\n  multiply(%0, %0)\n}\n");
}

/* Impure bindings stay: inlining would change how often the effect happens. */
static void test_gnf_keeps_impure(void) {
  check_pass("ToGraphNormalForm", NULL,
             HDR "def @main(%key: Tensor[(10), uint64]) {\n"
                 "  let %r = random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\");\n"
                 "  let %v = %r.1;\n  let %s = add(%v, %v);\n  %s\n}\n",
             HDR "def @main(%key: Tensor[(10), uint64]) {\n"
                 "  let %r = random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\");\n  %0 = %r.1;\n  add(%0, %0)\n}\n");
}

/* Lets inside branches and function bodies are inlined as well. */
static void test_gnf_nested(void) {
  check_pass("ToGraphNormalForm", NULL,
             HDR "def @main(%a: " T ", %c: bool) {\n  let %x = add(%a, %a);\n"
                 "  let %f = fn (%q: " T ") {\n    let %m = multiply(%q, %x);\n    %m\n  };\n"
                 "  if (%c) {\n    let %r = %f(%x);\n    %r\n  } else {\n    %x\n  }\n}\n",
             HDR "def @main(%a: " T ", %c: bool) {\n  %0 = add(%a, %a);\n"
                 "  %1 = fn (%q: " T ") {\n    multiply(%q, %0)\n  };\n"
                 "  if (%c) {\n    %1(%0)\n  } else {\n    %0\n  }\n}\n");
}

/* GNF(ANF(m)) is m, for graphs with sharing, branches and closures. */
static void check_round_trip(const char *text) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, text), *anf = m ? run(ctx, "ToANormalForm", NULL, m) : NULL;
  psg_module *back = anf ? run(ctx, "ToGraphNormalForm", NULL, anf) : NULL;
  CHECK(back != NULL);
  if (back) {
    CHECK(!psg_module_structural_equal(anf, m, NULL)); /* ANF did change something */
    char *path = NULL;
    /* back is typed: m modulo the annotations InferType writes in */
    bool eq = equal_modulo_inferred(ctx, back, m, &path);
    CHECK(eq);
    if (!eq) {
      fprintf(stderr, "round trip differs at %s\n", path ? path : "?");
      print_module("anf", anf);
      print_module("back", back);
    }
    psg_free(path);
  }
  psg_module_release(back);
  psg_module_release(anf);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_round_trips(void) {
  check_round_trip(HDR "def @main() {\n  %0 = add(1f, 1f);\n  %1 = add(%0, %0);\n  add(%1, %1)\n}\n");
  check_round_trip(HDR "def @main(%a: " T ", %c: bool) {\n  %0 = add(%a, %a);\n  %1 = multiply(%0, %a);\n"
                       "  if (%c) {\n    subtract(%1, %0)\n  } else {\n    %0\n  }\n}\n");
  check_round_trip(HDR "def @main(%a: " T ") {\n  %0 = add(%a, %a);\n"
                       "  %1 = fn (%q: " T ") {\n    %2 = multiply(%q, %0);\n    subtract(%2, %q)\n  };\n"
                       "  %3 = %1(%0);\n  %4 = (%3, %0);\n  %4.0\n}\n");
}

/* ToBasicBlockNormalForm --------------------------------------------------------------- */

/* Without If or nested functions there is nothing to scope: the very same
 * function comes back. */
static void test_bbnf_graph_unchanged(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%a: " T ") {\n  %0 = add(%a, %a);\n  %1 = multiply(%0, %0);\n  (%1, %0)\n}\n");
  psg_module *out = m ? run(ctx, "ToBasicBlockNormalForm", NULL, m) : NULL;
  CHECK(out && psg_module_get_function(out, 0) == psg_module_get_function(m, 0));
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* TVM test_if: %v1 is used by both branches, so it is bound before the If;
 * the condition and the branches stay dataflow. */
static void test_bbnf_if(void) {
  check_pass("ToBasicBlockNormalForm", NULL,
             HDR "def @main(%x: float32) {\n  %0 = add(%x, 1f);\n  %1 = equal(%x, 2f);\n"
                 "  if (%1) {\n    multiply(%0, 2f)\n  } else {\n    multiply(%0, 1f)\n  }\n}\n",
             HDR "def @main(%x: float32) {\n  let %v1 = add(%x, 1f);\n  %0 = equal(%x, 2f);\n"
                 "  if (%0) {\n    multiply(%v1, 2f)\n  } else {\n    multiply(%v1, 1f)\n  }\n}\n");
}

/* Nested Ifs: a node shared by the inner branches is bound in the outer
 * branch that holds them, not at the top. */
static void test_bbnf_nested_if(void) {
  check_pass("ToBasicBlockNormalForm", NULL,
             HDR "def @main(%x: float32, %c: bool, %d: bool) {\n"
                 "  if (%c) {\n    %0 = add(%x, 1f);\n    if (%d) {\n      multiply(%0, 2f)\n    } else {\n      subtract(%0, 2f)\n    }\n"
                 "  } else {\n    %x\n  }\n}\n",
             HDR "def @main(%x: float32, %c: bool, %d: bool) {\n"
                 "  if (%c) {\n    let %v = add(%x, 1f);\n    if (%d) {\n      multiply(%v, 2f)\n    } else {\n      subtract(%v, 2f)\n    }\n"
                 "  } else {\n    %x\n  }\n}\n");
}

/* Shared between a function body and its surroundings: bound outside. */
static void test_bbnf_function(void) {
  check_pass("ToBasicBlockNormalForm", NULL,
             HDR "def @main(%a: " T ") {\n  %0 = add(%a, %a);\n"
                 "  %1 = fn (%q: " T ") {\n    multiply(%q, %0)\n  };\n  %1(%0)\n}\n",
             HDR "def @main(%a: " T ") {\n  let %x = add(%a, %a);\n"
                 "  %1 = fn (%q: " T ") {\n    multiply(%q, %x)\n  };\n  %1(%x)\n}\n");
}

/* LambdaLift -------------------------------------------------------------------------- */

/* TVM test_basic: a function without free variables becomes a global. */
static void test_lift_basic(void) {
  check_pass("LambdaLift", NULL,
             HDR "def @main(%x1: " T ", %y1: " T ") {\n"
                 "  %0 = fn (%x2: " T ", %y2: " T ") {\n    add(%x2, %y2)\n  };\n  %0(%x1, %y1)\n}\n",
             HDR "def @main(%x1: " T ", %y1: " T ") {\n  @lifted_name_0(%x1, %y1)\n}\n\n"
                 "def @lifted_name_0(%x2: " T ", %y2: " T ") {\n  add(%x2, %y2)\n}\n");
}

/* TVM test_closure: the inner function captures %y, so its global takes %y
 * and returns the function (Closure=1); the outer one is lifted too. */
static void test_lift_closure(void) {
  check_pass("LambdaLift", NULL,
             HDR "def @main() {\n  %0 = fn (%y: " T ") {\n    fn (%x: " T ") {\n      add(%x, %y)\n    }\n  };\n"
                 "  %1 = %0(ones(shape=[2], dtype=\"float32\"));\n  %1(zeros(shape=[2], dtype=\"float32\"))\n}\n",
             HDR "def @main() {\n  %0 = @lifted_name_1(ones(shape=[2], dtype=\"float32\"));\n"
                 "  %0(zeros(shape=[2], dtype=\"float32\"))\n}\n\n"
                 "def @lifted_name_0(%y: " T ", Closure=1) {\n  fn (%x: " T ") {\n    add(%x, %y)\n  }\n}\n\n"
                 "def @lifted_name_1(%y: " T ") {\n  @lifted_name_0(%y)\n}\n");
}

/* A closure global (Closure=1 returning a function) is already lifted. */
static void test_lift_closure_global_kept(void) {
  const char *in = HDR "def @g(%x: " T ", Closure=1) {\n  fn (%q: " T ") {\n    %0 = exp(%q);\n    multiply(%0, %x)\n  }\n}\n";
  check_pass("LambdaLift", NULL, in, in);
}

/* Primitive functions stay where they are. */
static void test_lift_skips_primitive(void) {
  const char *in = HDR "def @main(%a: " T ") {\n  %0 = fn (%p: " T ", Primitive=1) {\n    exp(%p)\n  };\n  %0(%a)\n}\n";
  check_pass("LambdaLift", NULL, in, in);
}

/* Semantics ----------------------------------------------------------------------------- */

/* @main of `text` gives the same outputs, bit for bit, after `pass`. */
static void check_same_outputs(psg_ctx *ctx, const char *pass, const char *text, psg_tensor *const *inputs, size_t n) {
  psg_module *m = parse(ctx, text), *s = m ? run(ctx, pass, NULL, m) : NULL;
  psg_tensor **a = NULL, **b = NULL;
  size_t na = 0, nb = 0;
  CHECK(s != NULL);
  if (s) {
    CHECK_OK(psg_eval(ctx, m, "main", inputs, n, &a, &na));
    CHECK_OK(psg_eval(ctx, s, "main", inputs, n, &b, &nb));
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  }
  CHECK(na > 0 && na == nb);
  for (size_t i = 0; i < na && na == nb; i++) {
    CHECK_EQ_INT(psg_tensor_nbytes(a[i]), psg_tensor_nbytes(b[i]));
    CHECK(psg_tensor_nbytes(a[i]) == psg_tensor_nbytes(b[i]) &&
          !memcmp(psg_tensor_data(a[i]), psg_tensor_data(b[i]), psg_tensor_nbytes(a[i])));
  }
  for (size_t i = 0; i < na; i++) psg_tensor_release(a[i]);
  for (size_t i = 0; i < nb; i++) psg_tensor_release(b[i]);
  psg_free(a);
  psg_free(b);
  psg_module_release(s);
  psg_module_release(m);
}

static void test_semantics(void) {
  psg_ctx *ctx = check_ctx();
  static const char *const passes[] = {"ToANormalForm", "ToBasicBlockNormalForm", "ToGraphNormalForm", "LambdaLift"};
  /* TVM test_explicit_bound: 8 either way. */
  const char *bound = HDR "def @main() {\n  %0 = add(1f, 1f);\n  %1 = add(%0, %0);\n  add(%1, %1)\n}\n";
  const char *branchy = HDR "def @main(%a: " T ", %c: bool) {\n  %0 = add(%a, %a);\n  %1 = multiply(%0, %a);\n"
                            "  %2 = fn (%q: " T ") {\n    %3 = multiply(%q, %0);\n    subtract(%3, %q)\n  };\n"
                            "  if (%c) {\n    %2(%1)\n  } else {\n    let %z = %2(%0);\n    add(%z, %1)\n  }\n}\n";
  float av[2] = {1.5f, -2.25f};
  bool cv[2] = {true, false};
  psg_tensor *a = NULL, *c[2] = {NULL, NULL};
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){2}, 1, av, &a));
  for (int i = 0; i < 2; i++) CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_BOOL, NULL, 0, &cv[i], &c[i]));
  for (size_t p = 0; p < sizeof passes / sizeof *passes; p++) {
    check_same_outputs(ctx, passes[p], bound, NULL, 0);
    for (int i = 0; i < 2; i++) check_same_outputs(ctx, passes[p], branchy, (psg_tensor *[]){a, c[i]}, 2);
  }
  psg_tensor_release(a);
  psg_tensor_release(c[0]);
  psg_tensor_release(c[1]);
  CHECK_CTX_CLEAN(ctx);
}

/* The outputs of the normal-form passes type-check and evaluate after one
 * another, and the chain ANF -> LambdaLift (the VM pipeline's order) too. */
static void test_pipeline_semantics(void) {
  psg_ctx *ctx = check_ctx();
  const char *text = HDR "def @main(%a: " T ") {\n  %0 = add(%a, %a);\n"
                         "  %1 = fn (%q: " T ") {\n    multiply(%q, %0)\n  };\n  %2 = %1(%0);\n  %1(%2)\n}\n";
  psg_module *m = parse(ctx, text), *anf = m ? run(ctx, "ToANormalForm", NULL, m) : NULL;
  psg_module *lifted = anf ? run(ctx, "LambdaLift", NULL, anf) : NULL;
  CHECK(lifted && psg_module_num_functions(lifted) == 2);
  float av[2] = {0.5f, 3.0f};
  psg_tensor *a = NULL, **x = NULL, **y = NULL;
  size_t nx = 0, ny = 0;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){2}, 1, av, &a));
  if (lifted) {
    CHECK_OK(psg_eval(ctx, m, "main", &a, 1, &x, &nx));
    CHECK_OK(psg_eval(ctx, lifted, "main", &a, 1, &y, &ny));
  }
  CHECK(nx == 1 && ny == 1);
  if (nx == 1 && ny == 1) {
    const float *p = psg_tensor_data(x[0]), *q = psg_tensor_data(y[0]);
    /* f(q) = q * 2a, f(f(2a)) = 8a^3 */
    CHECK(p[0] == q[0] && p[1] == q[1] && p[0] == 1.0f && p[1] == 216.0f);
  }
  for (size_t i = 0; i < nx; i++) psg_tensor_release(x[i]);
  for (size_t i = 0; i < ny; i++) psg_tensor_release(y[i]);
  psg_free(x);
  psg_free(y);
  psg_tensor_release(a);
  psg_module_release(lifted);
  psg_module_release(anf);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_anf_order);
  RUN_TEST(test_anf_if);
  RUN_TEST(test_anf_if_sharing);
  RUN_TEST(test_anf_explicit_let);
  RUN_TEST(test_anf_function_scope);
  RUN_TEST(test_anf_primitive);
  RUN_TEST(test_anf_tuple);
  RUN_TEST(test_gnf_inlines_lets);
  RUN_TEST(test_gnf_keeps_impure);
  RUN_TEST(test_gnf_nested);
  RUN_TEST(test_round_trips);
  RUN_TEST(test_bbnf_graph_unchanged);
  RUN_TEST(test_bbnf_if);
  RUN_TEST(test_bbnf_nested_if);
  RUN_TEST(test_bbnf_function);
  RUN_TEST(test_lift_basic);
  RUN_TEST(test_lift_closure);
  RUN_TEST(test_lift_closure_global_kept);
  RUN_TEST(test_lift_skips_primitive);
  RUN_TEST(test_semantics);
  RUN_TEST(test_pipeline_semantics);
  return check_finish();
}
