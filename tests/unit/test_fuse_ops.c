/* FuseOps and DefuseOps: TVM's test_pass_fuse_ops cases that apply here
 * (elementwise chain, conv2d+add+relu, tuple into concatenate, diamond,
 * softmax with what follows it, fuse level 0, max_depth, let scopes, link_params), each
 * checked against the expected fused text, by the interpreter before and
 * after, by DefuseOps giving the input back, by a second FuseOps changing
 * nothing and by a print/parse round trip of the fused module. */
#include "pass_check.h"

#define T1020 "Tensor[(10, 20), float32]"
#define META(...) "#[metadata]\n{\n  \"relay.Constant\": [\n" __VA_ARGS__ "  ]\n}\n"
#define C2 "    {\"dtype\": \"float32\", \"shape\": [2], \"data\": \"AADAPwAAAMA=\"}\n"

typedef struct fuse_opts {
  int level;         /* fuse_opt_level option; -1: the context's (opt_level 2) */
  int max_depth;     /* 0: the default */
  bool link_params;
  int opt_level;     /* the context's; 0: TVM's default (2) */
} fuse_opts;

static psg_module *run_fuse_with(psg_ctx *ctx, const char *pass, psg_module *m, fuse_opts o) {
  psg_attrs *options = NULL;
  if (o.level >= 0) {
    static const char *const key[] = {"fuse_opt_level"};
    psg_attr *a;
    CHECK_OK(psg_attr_int(ctx, o.level, &a));
    CHECK_OK(psg_attrs_create(ctx, key, &a, 1, &options));
    psg_attr_release(a);
  }
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  if (o.opt_level) CHECK_OK(psg_pass_context_set_opt_level(pc, o.opt_level));
  if (o.max_depth) {
    psg_attr *a;
    CHECK_OK(psg_attr_int(ctx, o.max_depth, &a));
    CHECK_OK(psg_pass_context_set_config(pc, "relay.FuseOps.max_depth", a));
    psg_attr_release(a);
  }
  if (o.link_params) {
    psg_attr *a;
    CHECK_OK(psg_attr_bool(ctx, true, &a));
    CHECK_OK(psg_pass_context_set_config(pc, "relay.FuseOps.link_params", a));
    psg_attr_release(a);
  }
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(ctx, pass, options, &p));
  if (p) CHECK_OK(psg_pass_run(p, m, pc, &out));
  psg_pass_release(p);
  psg_pass_context_release(pc);
  psg_attrs_release(options);
  return out;
}

/* got is want modulo the annotations InferType writes in (FuseOps' result
 * is typed; the expected texts are written without return types). */
static bool same_module(const char *what, psg_module *got, psg_module *want) {
  char *path = NULL;
  bool eq = got && want && equal_modulo_inferred(psg_module_get_ctx(got), got, want, &path);
  if (!eq) {
    fprintf(stderr, "%s: first difference at %s\n", what, path ? path : "?");
    print_module("got", got);
    print_module("expected", want);
  }
  psg_free(path);
  return eq;
}

static psg_tensor *ramp(psg_ctx *ctx, const psg_type *t, float start) {
  int64_t shape[PSG_MAX_RANK], n = 1;
  int nd = psg_type_ndim(t);
  for (int d = 0; d < nd; d++) n *= shape[d] = psg_type_dim(t, d);
  float *v = malloc((size_t)n * sizeof *v);
  for (int64_t i = 0; i < n; i++) v[i] = start + 0.25f * (float)((i * 7) % 13) - 1.5f;
  psg_tensor *r = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, nd, v, &r));
  free(v);
  return r;
}

/* @main of a and b give bit-identical outputs (the same kernels run). */
static bool same_outputs(psg_ctx *ctx, psg_module *a, psg_module *b) {
  const psg_expr *f = psg_module_lookup(a, "main");
  size_t n = psg_function_num_params(f);
  psg_tensor *in[8] = {NULL}, **x = NULL, **y = NULL;
  size_t nx = 0, ny = 0;
  for (size_t i = 0; i < n && i < 8; i++) in[i] = ramp(ctx, psg_var_type(psg_function_get_param(f, i)), (float)i);
  bool same = !psg_eval(ctx, a, "main", in, n, &x, &nx) && !psg_eval(ctx, b, "main", in, n, &y, &ny) && nx == ny;
  for (size_t k = 0; same && k < nx; k++)
    same = psg_tensor_nbytes(x[k]) == psg_tensor_nbytes(y[k]) &&
           !memcmp(psg_tensor_data(x[k]), psg_tensor_data(y[k]), psg_tensor_nbytes(x[k])); /* any dtype */
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  for (size_t i = 0; i < nx; i++) psg_tensor_release(x[i]);
  for (size_t i = 0; i < ny; i++) psg_tensor_release(y[i]);
  for (size_t i = 0; i < 8; i++) psg_tensor_release(in[i]);
  psg_free(x);
  psg_free(y);
  return same;
}

/* The checked types of @main's nodes in post-order (NULL: untyped, an op). */
typedef struct type_list {
  const psg_type *t[512];
  size_t n;
} type_list;

static psg_status collect_type(psg_visitor *v, const psg_expr *e) {
  type_list *l = v->user;
  if (l->n < 512) l->t[l->n] = psg_expr_checked_type(e);
  l->n++;
  return PSG_OK;
}

static void types_of_expr(psg_ctx *ctx, const psg_expr *e, type_list *out) {
  out->n = 0;
  psg_visitor v = {NULL, collect_type, out};
  CHECK_OK(psg_visit(ctx, &v, e));
}

static void types_of(psg_ctx *ctx, psg_module *m, type_list *out) { types_of_expr(ctx, psg_module_lookup(m, "main"), out); }

/* The types in a fused module are the ones InferType gives the same text
 * parsed afresh: FuseOps types the functions and calls it builds (final, so
 * no later InferType looks at them again), and a wrong type there would
 * stay. */
static void check_fused_types(psg_ctx *ctx, psg_module *fused, psg_module *back) {
  psg_pass *infer = NULL;
  psg_module *typed = NULL;
  CHECK_OK(psg_pass_get(ctx, "InferType", NULL, &infer));
  if (infer && back) CHECK_OK(psg_pass_run(infer, back, NULL, &typed));
  static type_list got, want;
  types_of(ctx, fused, &got);
  if (typed) types_of(ctx, typed, &want);
  CHECK(typed && got.n == want.n && got.n <= 512);
  int differ = 0;
  for (size_t i = 0; typed && i < got.n && i < want.n && i < 512; i++) differ += got.t[i] != want.t[i];
  CHECK_EQ_INT(differ, 0);
  psg_module_release(typed);
  psg_pass_release(infer);
}

/* Everything a fused module must satisfy, whatever the case: same outputs,
 * DefuseOps gives `m` back, FuseOps again changes nothing, and its text
 * parses back to it. */
static void check_fused_properties(psg_ctx *ctx, psg_module *m, psg_module *fused, fuse_opts o) {
  CHECK(same_outputs(ctx, m, fused));
  psg_module *defused = run_fuse_with(ctx, "DefuseOps", fused, (fuse_opts){-1, 0, false, 0});
  CHECK(same_module("DefuseOps(FuseOps(m))", defused, m));
  psg_module *again = run_fuse_with(ctx, "FuseOps", fused, o);
  CHECK(again && psg_module_lookup(again, "main") == psg_module_lookup(fused, "main"));
  char *text = NULL;
  CHECK_OK(psg_module_print(fused, PSG_PRINT_DEFAULT, &text, NULL));
  psg_module *back = text ? parse(ctx, text) : NULL;
  CHECK(same_module("parse(print(fused))", back, fused));
  check_fused_types(ctx, fused, back);
  psg_free(text);
  psg_module_release(back);
  psg_module_release(again);
  psg_module_release(defused);
}

/* FuseOps of `in` is structurally `expected`, with all the properties above. */
static void check_fuse(const char *in, const char *expected, fuse_opts o) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, in), *want = parse(ctx, expected);
  CHECK(m && want);
  psg_module *got = m ? run_fuse_with(ctx, "FuseOps", m, o) : NULL;
  CHECK(same_module("FuseOps", got, want));
  if (got) check_fused_properties(ctx, m, got, o);
  psg_module_release(got);
  psg_module_release(want);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static const fuse_opts DEFAULT = {-1, 0, false, 0};
static const fuse_opts O3 = {-1, 0, false, 3};

static void test_elemwise_chain(void) {
  check_fuse(HDR "def @main(%x: " T1020 ") {\n  %0 = add(%x, 1f);\n  %1 = exp(%0);\n  squeeze(%1)\n}\n",
             HDR "def @main(%x: " T1020 ") {\n"
                 "  %3 = fn (%p0: " T1020 ", Primitive=1) -> " T1020 " {\n"
                 "    %0 = add(%p0, 1f);\n    %1 = exp(%0);\n    squeeze(%1)\n  };\n"
                 "  %3(%x)\n}\n",
             DEFAULT);
}

#define CONV_IN "%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32], %b: Tensor[(3, 1, 1), float32]"
#define CONV_P "%p0: Tensor[(1, 2, 4, 4), float32], %p1: Tensor[(3, 2, 3, 3), float32], %p2: Tensor[(3, 1, 1), float32]"
#define CONV_OUT "Tensor[(1, 3, 4, 4), float32]"
#define CONV_ADD_RELU                                                                                            \
  HDR "def @main(" CONV_IN ") {\n  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n  %1 = add(%0, %b);\n" \
      "  nn.relu(%1)\n}\n"

static void test_conv_add_relu(void) {
  check_fuse(CONV_ADD_RELU,
             HDR "def @main(" CONV_IN ") {\n"
                 "  %3 = fn (" CONV_P ", Primitive=1) -> " CONV_OUT " {\n"
                 "    %0 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]);\n    %1 = add(%0, %p2);\n"
                 "    nn.relu(%1)\n  };\n"
                 "  %3(%x, %w, %b)\n}\n",
             DEFAULT);
}

/* Level 0: every op alone in its own function. */
static void test_level_zero(void) {
  check_fuse(CONV_ADD_RELU,
             HDR "def @main(" CONV_IN ") {\n"
                 "  %0 = fn (%p0: Tensor[(1, 2, 4, 4), float32], %p1: Tensor[(3, 2, 3, 3), float32], Primitive=1) -> "
                 CONV_OUT " {\n    nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1])\n  };\n"
                 "  %1 = %0(%x, %w);\n"
                 "  %2 = fn (%p01: " CONV_OUT ", %p11: Tensor[(3, 1, 1), float32], Primitive=1) -> " CONV_OUT
                 " {\n    add(%p01, %p11)\n  };\n"
                 "  %3 = %2(%1, %b);\n"
                 "  %4 = fn (%p02: " CONV_OUT ", Primitive=1) -> " CONV_OUT " {\n    nn.relu(%p02)\n  };\n"
                 "  %4(%3)\n}\n",
             (fuse_opts){0, 0, false, 0});
}

/* FuseOps itself, without the runner's InferType after it: at level 0 every
 * function and call it builds already has the type the runner's result has
 * (departure 205), so that InferType walks none of them. */
extern const psg_pass_decl psgi_pass_fuse_ops;

static void test_level_zero_typed_by_fuse(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, CONV_ADD_RELU), *typed = NULL;
  psg_pass *infer = NULL;
  CHECK_OK(psg_pass_get(ctx, "InferType", NULL, &infer));
  if (m && infer) CHECK_OK(psg_pass_run(infer, m, NULL, &typed));
  psg_module *ref = typed ? run_fuse_with(ctx, "FuseOps", typed, (fuse_opts){0, 0, false, 0}) : NULL;
  static const char *const key[] = {"fuse_opt_level"};
  psg_attr *level = NULL;
  psg_attrs *options = NULL;
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_attr_int(ctx, 0, &level));
  CHECK_OK(psg_attrs_create(ctx, key, &level, 1, &options));
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  psg_expr *out = NULL;
  if (typed) CHECK_OK(psgi_pass_fuse_ops.function((psg_expr *)psg_module_lookup(typed, "main"), typed, pc, options, &out));
  static type_list got, want;
  if (out) types_of_expr(ctx, out, &got);
  if (ref) types_of(ctx, ref, &want);
  CHECK(out && ref && got.n == want.n && got.n <= 512);
  int differ = 0, untyped = 0;
  for (size_t i = 0; out && ref && i < got.n && i < want.n && i < 512; i++) {
    differ += got.t[i] != want.t[i];
    untyped += got.t[i] == NULL && want.t[i] != NULL;
  }
  CHECK_EQ_INT(untyped, 0);
  CHECK_EQ_INT(differ, 0);
  psg_expr_release(out);
  psg_pass_context_release(pc);
  psg_attrs_release(options);
  psg_attr_release(level);
  psg_module_release(ref);
  psg_module_release(typed);
  psg_module_release(m);
  psg_pass_release(infer);
  CHECK_CTX_CLEAN(ctx);
}

/* TVM's test_concatenate: max_pool2d stays alone (an injective op follows
 * it); upsampling joins the tuple, the concatenate and the add. */
static void test_concatenate(void) {
  check_fuse(HDR "def @main(%x: Tensor[(1, 2, 4, 4), float32]) {\n"
                 "  %0 = nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2]);\n"
                 "  %1 = nn.upsampling(%0, scale_h=2f, scale_w=2f);\n"
                 "  %2 = concatenate((%1, %x), axis=1);\n  add(%2, 1f)\n}\n",
             HDR "def @main(%x: Tensor[(1, 2, 4, 4), float32]) {\n"
                 "  %0 = fn (%p0: Tensor[(1, 2, 4, 4), float32], Primitive=1) -> Tensor[(1, 2, 2, 2), float32] {\n"
                 "    nn.max_pool2d(%p0, pool_size=[2, 2], strides=[2, 2])\n  };\n"
                 "  %1 = %0(%x);\n"
                 "  %5 = fn (%p01: Tensor[(1, 2, 2, 2), float32], %p1: Tensor[(1, 2, 4, 4), float32], Primitive=1)"
                 " -> Tensor[(1, 4, 4, 4), float32] {\n"
                 "    %2 = nn.upsampling(%p01, scale_h=2f, scale_w=2f);\n"
                 "    %3 = (%2, %p1);\n    %4 = concatenate(%3, axis=1);\n    add(%4, 1f)\n  };\n"
                 "  %5(%1, %x)\n}\n",
             DEFAULT);
}

/* TVM's test_tuple_root: a tuple as a function's result stays outside. */
static void test_tuple_root(void) {
  check_fuse(HDR "def @main(%x: " T1020 ") {\n  %0 = exp(%x);\n  %1 = sqrt(%0);\n  (%1, %x)\n}\n",
             HDR "def @main(%x: " T1020 ") {\n"
                 "  %2 = fn (%p0: " T1020 ", Primitive=1) -> " T1020 " {\n    %0 = exp(%p0);\n    sqrt(%0)\n  };\n"
                 "  %3 = %2(%x);\n  (%3, %x)\n}\n",
             DEFAULT);
}

/* Both branches of a diamond join their common post-dominator. */
static void test_diamond(void) {
  check_fuse(HDR "def @main(%x: " T1020 ") {\n  %0 = add(%x, 1f);\n  %1 = exp(%0);\n  %2 = sqrt(%0);\n"
                 "  add(%1, %2)\n}\n",
             HDR "def @main(%x: " T1020 ") {\n"
                 "  %4 = fn (%p0: " T1020 ", Primitive=1) -> " T1020 " {\n"
                 "    %0 = add(%p0, 1f);\n    %1 = exp(%0);\n    %2 = sqrt(%0);\n    add(%1, %2)\n  };\n"
                 "  %4(%x)\n}\n",
             DEFAULT);
}

/* nn.softmax is OUT_ELEMWISE_FUSABLE in TVM v0.19 (it was OPAQUE in older
 * TVM, and here before issue 18): the elementwise op after it joins it; the
 * one before it stays alone (and TVM's test_fuse_softmax: softmax + cast). */
static void test_softmax_fuses_after(void) {
  check_fuse(HDR "def @main(%x: " T1020 ") {\n  %0 = exp(%x);\n  %1 = nn.softmax(%0);\n  exp(%1)\n}\n",
             HDR "def @main(%x: " T1020 ") {\n"
                 "  %0 = fn (%p0: " T1020 ", Primitive=1) -> " T1020 " {\n    %1 = nn.softmax(%p0);\n    exp(%1)\n  };\n"
                 "  %2 = fn (%p01: " T1020 ", Primitive=1) -> " T1020 " {\n    exp(%p01)\n  };\n"
                 "  %3 = %2(%x);\n"
                 "  %0(%3)\n}\n",
             DEFAULT);
  check_fuse(HDR "def @main(%x: " T1020 ") {\n  %0 = nn.softmax(%x);\n  cast(%0, dtype=\"float16\")\n}\n",
             HDR "def @main(%x: " T1020 ") {\n"
                 "  %0 = fn (%p0: " T1020 ", Primitive=1) -> Tensor[(10, 20), float16] {\n"
                 "    %1 = nn.softmax(%p0);\n    cast(%1, dtype=\"float16\")\n  };\n"
                 "  %0(%x)\n}\n",
             DEFAULT);
}

/* Non-scalar constants are parameters unless relay.FuseOps.link_params. */
static void test_link_params(void) {
  const char *in = HDR "def @main(%x: Tensor[(2), float32]) {\n  %0 = add(%x, meta[relay.Constant][0]);\n"
                       "  exp(%0)\n}\n\n" META(C2);
  check_fuse(in,
             HDR "def @main(%x: Tensor[(2), float32]) {\n"
                 "  %2 = fn (%p0: Tensor[(2), float32], %p1: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {\n"
                 "    %1 = add(%p0, %p1);\n    exp(%1)\n  };\n"
                 "  %2(%x, meta[relay.Constant][0])\n}\n\n" META(C2),
             DEFAULT);
  check_fuse(in,
             HDR "def @main(%x: Tensor[(2), float32]) {\n"
                 "  %2 = fn (%p0: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {\n"
                 "    %1 = add(%p0, meta[relay.Constant][0]);\n    exp(%1)\n  };\n"
                 "  %2(%x)\n}\n\n" META(C2),
             (fuse_opts){-1, 0, true, 0});
}

/* Nothing fuses across a let binding. */
static void test_let_scopes(void) {
  check_fuse(HDR "def @main(%x: " T1020 ") {\n  let %a = exp(%x);\n  let %b = add(%a, 1f);\n  sqrt(%b)\n}\n",
             HDR "def @main(%x: " T1020 ") {\n"
                 "  let %a = fn (%p0: " T1020 ", Primitive=1) -> " T1020 " { exp(%p0) }(%x);\n"
                 "  let %b = fn (%p01: " T1020 ", Primitive=1) -> " T1020 " { add(%p01, 1f) }(%a);\n"
                 "  fn (%p02: " T1020 ", Primitive=1) -> " T1020 " { sqrt(%p02) }(%b)\n}\n",
             DEFAULT);
}

/* Counting helpers for the max_depth cases. */
static size_t count_ops(const psg_expr *e) {
  size_t n = 0;
  while (psg_expr_kind(e) == PSG_EXPR_CALL) {
    n++;
    e = psg_call_get_arg(e, 0);
  }
  return n;
}

/* A chain of n exps fuses into functions of max_depth ops (TVM's
 * test_fuse_max: 256 + 44 for 300; 10 + 10 for 20 with max_depth 10). */
static void check_max_depth(int n, int max_depth, const size_t *sizes, size_t ngroups) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *exp_op = NULL, *cur, *fn = NULL, *gv = NULL;
  const psg_type *t = NULL;
  psg_module *empty = NULL, *m = NULL;
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){10, 20}, 2, PSG_DTYPE_FLOAT32, &t));
  CHECK_OK(psg_var_create(ctx, "x", t, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "exp", &exp_op));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < n; i++) {
    psg_expr *next = NULL;
    CHECK_OK(psg_call_create(ctx, exp_op, &cur, 1, NULL, NULL, &next));
    psg_expr_release(cur);
    cur = next;
  }
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));
  fuse_opts o = {-1, max_depth, false, 0};
  psg_module *out = run_fuse_with(ctx, "FuseOps", m, o);
  /* The body is call(fn_k, call(fn_k-1, ... (x))): walk the calls back. */
  const psg_expr *e = out ? psg_function_get_body(psg_module_lookup(out, "main")) : NULL;
  size_t g = ngroups;
  while (e && psg_expr_kind(e) == PSG_EXPR_CALL && g > 0) {
    const psg_expr *f = psg_call_get_callee(e);
    CHECK(psg_expr_kind(f) == PSG_EXPR_FUNCTION && psg_attrs_get(psg_function_get_attrs(f), "Primitive"));
    CHECK_EQ_INT((int)count_ops(psg_function_get_body(f)), (int)sizes[--g]);
    e = psg_call_get_arg(e, 0);
  }
  CHECK(g == 0 && e == x);
  if (out) check_fused_properties(ctx, m, out, o);
  psg_module_release(out);
  psg_module_release(m);
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(cur);
  psg_expr_release(exp_op);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_max_depth(void) {
  check_max_depth(300, 0, (size_t[]){256, 44}, 2);
  check_max_depth(20, 10, (size_t[]){10, 10}, 2);
  check_max_depth(25, 10, (size_t[]){10, 10, 5}, 3);
}

/* The -O3 front of the bundled model: after SimplifyInference, FoldConstant
 * and FoldScaleAxis at opt level 3, conv2d + add + relu form one Primitive
 * function. */
static bool has_fn_with(const psg_expr *body, const char *const *ops, size_t n);

static void test_small_cnn(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse_file(ctx, PASSAGE_SOURCE_DIR "/examples/models/small_cnn.relay", &m));
  static const char *const names[] = {"SimplifyInference", "FoldConstant", "FoldScaleAxis"};
  psg_module *cur = m;
  psg_module_retain(cur);
  for (size_t i = 0; cur && i < 3; i++) {
    psg_module *next = run_fuse_with(ctx, names[i], cur, O3);
    psg_module_release(cur);
    cur = next;
  }
  psg_module *fused = cur ? run_fuse_with(ctx, "FuseOps", cur, O3) : NULL;
  static const char *const conv_group[] = {"nn.conv2d", "add", "nn.relu"};
  CHECK(fused && has_fn_with(psg_function_get_body(psg_module_lookup(fused, "main")), conv_group, 3));
  if (fused) check_fused_properties(ctx, cur, fused, O3);
  psg_module_release(fused);
  psg_module_release(cur);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Some Primitive function called from `body` contains exactly the ops
 * `ops` (in any order) and no others. */
static bool has_fn_with(const psg_expr *body, const char *const *ops, size_t n) {
  psg_ctx *ctx = psg_expr_get_ctx(body);
  (void)ctx;
  /* Walk the top-level call chain and its arguments (the graph is small). */
  const psg_expr *stack[256];
  size_t sp = 0;
  stack[sp++] = body;
  while (sp) {
    const psg_expr *e = stack[--sp];
    if (psg_expr_kind(e) != PSG_EXPR_CALL) continue;
    const psg_expr *f = psg_call_get_callee(e);
    for (size_t i = 0; i < psg_call_num_args(e) && sp < 256; i++) stack[sp++] = psg_call_get_arg(e, i);
    if (psg_expr_kind(f) != PSG_EXPR_FUNCTION) continue;
    /* Count the op calls inside (they form a chain through arg 0 or 1). */
    size_t found = 0, total = 0;
    const psg_expr *in[64];
    size_t ip = 0;
    in[ip++] = psg_function_get_body(f);
    while (ip) {
      const psg_expr *c = in[--ip];
      if (psg_expr_kind(c) != PSG_EXPR_CALL) continue;
      total++;
      for (size_t k = 0; k < n; k++) found += !strcmp(psg_op_name(psg_call_get_callee(c)), ops[k]);
      for (size_t i = 0; i < psg_call_num_args(c) && ip < 64; i++) in[ip++] = psg_call_get_arg(c, i);
    }
    if (found == n && total == n) return true;
  }
  return false;
}

int main(void) {
  RUN_TEST(test_elemwise_chain);
  RUN_TEST(test_conv_add_relu);
  RUN_TEST(test_level_zero);
  RUN_TEST(test_level_zero_typed_by_fuse);
  RUN_TEST(test_concatenate);
  RUN_TEST(test_tuple_root);
  RUN_TEST(test_diamond);
  RUN_TEST(test_softmax_fuses_after);
  RUN_TEST(test_link_params);
  RUN_TEST(test_let_scopes);
  RUN_TEST(test_max_depth);
  RUN_TEST(test_small_cnn);
  return check_finish();
}
