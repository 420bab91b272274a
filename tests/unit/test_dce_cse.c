/* DeadCodeElimination and EliminateCommonSubexpr: TVM's test cases
 * (tvm-behavior §6.5, §6.6) as input -> expected module pairs compared
 * structurally, plus what we do beyond TVM (dead chains in one run, equal
 * constants merged, no merging across If branches) and idempotence. */
#include "pass_check.h"

/* DeadCodeElimination --------------------------------------------------------------- */

static void test_dead_let(void) {
  check_pass("DeadCodeElimination", NULL,
             HDR "def @main(%z: " T ") {\n  let %x = 1f;\n  %z\n}\n",
             HDR "def @main(%z: " T ") {\n  %z\n}\n");
}

static void test_one_live_let(void) {
  check_pass("DeadCodeElimination", NULL,
             HDR "def @main(%z: " T ") {\n  let %x = 1f;\n  let %y = 2f;\n  add(%x, %x)\n}\n",
             HDR "def @main(%z: " T ") {\n  let %x = 1f;\n  add(%x, %x)\n}\n");
}

static void test_nested_let(void) {
  check_pass("DeadCodeElimination", NULL,
             HDR "def @main(%b: " T ", %d: " T ") {\n  let %a = %b;\n  let %c = %d;\n  %c\n}\n",
             HDR "def @main(%b: " T ", %d: " T ") {\n  let %c = %d;\n  %c\n}\n");
}

static void test_inline_once(void) {
  check_pass("DeadCodeElimination", "inline_once",
             HDR "def @main(%b: " T ", %d: " T ") {\n  let %a = %b;\n  let %c = add(%d, %d);\n  multiply(%c, %b)\n}\n",
             HDR "def @main(%b: " T ", %d: " T ") {\n  %0 = add(%d, %d);\n  multiply(%0, %b)\n}\n");
}

/* Beyond TVM: bindings that only feed dead bindings go in the same run. */
static void test_dead_chain(void) {
  check_pass("DeadCodeElimination", NULL,
             HDR "def @main(%z: " T ") {\n  let %a = add(%z, %z);\n  let %b = multiply(%a, %a);\n  let %c = subtract(%b, %a);\n  %z\n}\n",
             HDR "def @main(%z: " T ") {\n  %z\n}\n");
}

static void test_tuple_get_item_kept(void) {
  check_pass("DeadCodeElimination", NULL,
             HDR "def @main(%z: " T ") {\n  let %a = 100;\n  %0 = (1, 2, 3, 4);\n  %0.0\n}\n",
             HDR "def @main(%z: " T ") {\n  %0 = (1, 2, 3, 4);\n  %0.0\n}\n");
}

/* A binding used inside a function is not inlined into it (it would be
 * re-evaluated at every call); the function itself, used once, is. */
static void test_no_inline_into_function(void) {
  check_pass("DeadCodeElimination", "inline_once",
             HDR "def @main(%z: " T ") {\n  let %x = add(%z, %z);\n"
                 "  let %f = fn (%q: " T ") {\n    multiply(%q, %x)\n  };\n  %f\n}\n",
             HDR "def @main(%z: " T ") {\n  let %x = add(%z, %z);\n"
                 "  fn (%q: " T ") {\n    multiply(%q, %x)\n  }\n}\n");
}

static void test_impure_op_kept(void) {
  const char *in = HDR "def @main(%key: Tensor[(10), uint64], %z: " T ") {\n"
                       "  let %r = random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\");\n  %z\n}\n";
  check_pass("DeadCodeElimination", NULL, in, in);
}

static void test_impure_global_kept_pure_global_removed(void) {
  check_pass("DeadCodeElimination", NULL,
             HDR "def @g(%key: Tensor[(10), uint64]) {\n  random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\")\n}\n\n"
                 "def @h(%a: " T ") {\n  add(%a, %a)\n}\n\n"
                 "def @main(%key: Tensor[(10), uint64], %z: " T ") {\n  let %y = @g(%key);\n  let %w = @h(%z);\n  %z\n}\n",
             HDR "def @g(%key: Tensor[(10), uint64]) {\n  random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\")\n}\n\n"
                 "def @h(%a: " T ") {\n  add(%a, %a)\n}\n\n"
                 "def @main(%key: Tensor[(10), uint64], %z: " T ") {\n  let %y = @g(%key);\n  %z\n}\n");
}

static void test_ignore_impurity(void) {
  check_pass("DeadCodeElimination", "ignore_impurity",
             HDR "def @main(%key: Tensor[(10), uint64], %z: " T ") {\n"
                 "  let %r = random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\");\n  %z\n}\n",
             HDR "def @main(%key: Tensor[(10), uint64], %z: " T ") {\n  %z\n}\n");
}

/* EliminateCommonSubexpr --------------------------------------------------------------- */

static void test_cse_simple(void) {
  check_pass("EliminateCommonSubexpr", NULL,
             HDR "def @main(%x: " T ") {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%x);\n"
                 "  %2 = add(%0, 1f);\n  %3 = add(%1, 1f);\n  add(%2, %3)\n}\n",
             HDR "def @main(%x: " T ") {\n  %0 = nn.relu(%x);\n  %1 = add(%0, 1f);\n  add(%1, %1)\n}\n");
}

static void test_cse_tuple_get_item(void) {
  check_pass("EliminateCommonSubexpr", NULL,
             HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32], %g: " T ", %b: " T ", %m: " T ", %v: " T ") {\n"
                 "  %0 = nn.batch_norm(%x, %g, %b, %m, %v);\n  %1 = %0.0;\n  %2 = %0.0;\n  add(%1, %2)\n}\n",
             HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32], %g: " T ", %b: " T ", %m: " T ", %v: " T ") {\n"
                 "  %0 = nn.batch_norm(%x, %g, %b, %m, %v);\n  %1 = %0.0;\n  add(%1, %1)\n}\n");
}

static void test_cse_tuple_arg(void) {
  check_pass("EliminateCommonSubexpr", NULL,
             HDR "def @main(%y: " T ", %c: " T ") {\n  %0 = (%y, %c);\n  %1 = concatenate(%0);\n"
                 "  %2 = (%y, %c);\n  %3 = concatenate(%2);\n  add(%1, %3)\n}\n",
             HDR "def @main(%y: " T ", %c: " T ") {\n  %0 = (%y, %c);\n  %1 = concatenate(%0);\n  add(%1, %1)\n}\n");
}

static void test_cse_not_merged(void) {
  /* Different attrs, a stateful op, and the two branches of an If stay apart. */
  const char *in =
      HDR "def @main(%x: " T ", %key: Tensor[(10), uint64], %c: bool) {\n"
          "  %0 = nn.leaky_relu(%x, alpha=0.1f);\n  %1 = nn.leaky_relu(%x, alpha=0.2f);\n"
          "  %2 = random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\");\n"
          "  %3 = random.uniform(%key, 0f, 1f, shape=[2], dtype=\"float32\");\n"
          "  %4 = if (%c) {\n    nn.relu(%x)\n  } else {\n    nn.relu(%x)\n  };\n"
          "  (%0, %1, %2, %3, %4)\n}\n";
  check_pass("EliminateCommonSubexpr", NULL, in, in);
}

/* Equal constants become one node (structural equality cannot see this). */
static void test_cse_merges_constants(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  %0 = add(%x, 2f);\n  multiply(%0, 2f)\n}\n");
  psg_module *out = m ? run(ctx, "EliminateCommonSubexpr", NULL, m) : NULL;
  if (out) {
    psg_expr *body = psg_function_get_body(psg_module_lookup(out, "main"));
    psg_expr *add = psg_call_get_arg(body, 0);
    CHECK(psg_call_get_arg(body, 1) == psg_call_get_arg(add, 1));
  }
  CHECK(out != NULL);
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Large constants are compared by a sample of their bytes first: weights
 * equal in the sample but not elsewhere stay apart, equal ones merge, also
 * when the first constant of a shape had no sample yet. */
static psg_expr *add_const(psg_ctx *ctx, psg_expr *x, const float *data, int64_t n) {
  psg_tensor *t = NULL;
  psg_expr *c = NULL, *add = NULL, *op = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, &n, 1, data, &t));
  CHECK_OK(psg_constant_create(ctx, t, NULL, &c));
  CHECK_OK(psg_op_get(ctx, "add", &op));
  psg_expr *args[2] = {x, c};
  CHECK_OK(psg_call_create(ctx, op, args, 2, NULL, NULL, &add));
  psg_expr_release(op);
  psg_expr_release(c);
  psg_tensor_release(t);
  return add;
}

static void test_cse_large_constants(void) {
  enum { N = 4096 };
  psg_ctx *ctx = check_ctx();
  static float a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = b[i] = (float)i;
  b[N / 2] = -1; /* outside the sampled head and tail */
  int64_t n = N;
  const psg_type *tt = NULL;
  CHECK_OK(psg_type_tensor(ctx, &n, 1, PSG_DTYPE_FLOAT32, &tt));
  psg_expr *x = NULL, *tuple = NULL, *fn = NULL, *gv = NULL;
  CHECK_OK(psg_var_create(ctx, "x", tt, NULL, &x));
  psg_expr *fields[5] = {add_const(ctx, x, a, N), add_const(ctx, x, a, N), add_const(ctx, x, b, N),
                         add_const(ctx, x, b, N), add_const(ctx, x, a, N)};
  CHECK_OK(psg_tuple_create(ctx, fields, 5, NULL, &tuple));
  CHECK_OK(psg_function_create(ctx, &x, 1, tuple, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  psg_module *empty = NULL, *m = NULL;
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));
  psg_module *out = m ? run(ctx, "EliminateCommonSubexpr", NULL, m) : NULL;
  CHECK(out != NULL);
  if (out) {
    psg_expr *body = psg_function_get_body(psg_module_lookup(out, "main"));
    psg_expr *f[5];
    for (int i = 0; i < 5; i++) f[i] = psg_expr_get_child(body, (size_t)i);
    CHECK(f[0] == f[1] && f[0] == f[4]);
    CHECK(f[2] == f[3]);
    CHECK(f[0] != f[2]);
  }
  for (int i = 0; i < 5; i++) psg_expr_release(fields[i]);
  psg_expr_release(x);
  psg_expr_release(tuple);
  psg_expr_release(fn);
  psg_expr_release(gv);
  psg_module_release(empty);
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_dead_let);
  RUN_TEST(test_one_live_let);
  RUN_TEST(test_nested_let);
  RUN_TEST(test_inline_once);
  RUN_TEST(test_dead_chain);
  RUN_TEST(test_tuple_get_item_kept);
  RUN_TEST(test_no_inline_into_function);
  RUN_TEST(test_impure_op_kept);
  RUN_TEST(test_impure_global_kept_pure_global_removed);
  RUN_TEST(test_ignore_impurity);
  RUN_TEST(test_cse_simple);
  RUN_TEST(test_cse_tuple_get_item);
  RUN_TEST(test_cse_tuple_arg);
  RUN_TEST(test_cse_not_merged);
  RUN_TEST(test_cse_merges_constants);
  RUN_TEST(test_cse_large_constants);
  return check_finish();
}
