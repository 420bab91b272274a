/* LowerTE's Relay side (src/lower/lower_te.h): naming, dedup, sharing,
 * let-bound, global and inline Primitive functions, the call_lowered
 * rewrite (golden text as TVM v0.19 prints tests/python/relay/backend/
 * test_pass_lower_te.py's cases), call_lowered's type relation, the
 * interpreter running lowered modules bit-exactly, the mixed text round
 * trip, ONNX export refusing call_lowered and the error paths.
 *
 * The lowering callback is a test fixture: it builds PrimFuncs by hand for
 * elementwise add / multiply / nn.relu DAGs over same-shape float32 params,
 * one loop nest per output, and refuses anything else. */
#include "lower/lower_te.h"
#include "passage/interp.h"
#include "passage/text.h"
#include "tir_build.h"

typedef struct fixture {
  int calls;       /* functions lowered */
  const char *last_name;
  char names[8][128];
} fixture;

/* The TIR value of Relay expr e at index `idx` (a test-only recursion: the
 * fixture's bodies are a few calls deep). NULL: not handled. */
static psg_tir_expr *to_tir(const psg_expr *fn, psg_tir_buffer *const *in, const psg_expr *e,
                            psg_tir_expr *const *idx, size_t nd) {
  if (psg_expr_kind(e) == PSG_EXPR_VAR) {
    for (size_t i = 0; i < psg_function_num_params(fn); i++)
      if (psg_function_get_param(fn, i) == e) return tb_loadp(in[i], idx, nd, NULL);
    return NULL;
  }
  if (psg_expr_kind(e) != PSG_EXPR_CALL || psg_expr_kind(psg_call_get_callee(e)) != PSG_EXPR_OP) return NULL;
  const char *op = psg_op_name(psg_call_get_callee(e));
  psg_tir_expr *a = to_tir(fn, in, psg_call_get_arg(e, 0), idx, nd);
  if (!a) return NULL;
  if (!strcmp(op, "nn.relu")) return tb_bin(PSG_TIR_MAX, a, tb_f32(0));
  if (psg_call_num_args(e) != 2) return NULL;
  psg_tir_expr *b = to_tir(fn, in, psg_call_get_arg(e, 1), idx, nd);
  if (!b) return NULL;
  if (!strcmp(op, "add")) return tb_add(a, b);
  if (!strcmp(op, "multiply")) return tb_mul(a, b);
  return NULL;
}

static psg_status hand_lower(psg_ctx *ctx, const psg_expr *fn, const char *name, void *user,
                             psg_tir_prim_func **out) {
  fixture *fx = user;
  const psg_type *t0 = psg_var_type(psg_function_get_param(fn, 0));
  const psg_expr *body = psg_function_get_body(fn);
  size_t nin = psg_function_num_params(fn);
  size_t nout = psg_expr_kind(body) == PSG_EXPR_TUPLE ? psg_tuple_size(body) : 1;
  int nd = psg_type_ndim(t0);
  psg_tir_buffer *bufs[8];
  psg_tir_expr *idx[4];
  int64_t shape[4];
  for (int d = 0; d < nd; d++) shape[d] = psg_type_dim(t0, d);
  for (size_t i = 0; i < nin + nout; i++) {
    char b[16];
    snprintf(b, sizeof b, i < nin ? "p%zu" : "T_out%zu", i < nin ? i : i - nin);
    bufs[i] = tb_buf(b, TB_F32, shape, (size_t)nd);
  }
  psg_tir_stmt *nests[4];
  for (size_t o = 0; o < nout; o++) {
    for (int d = 0; d < nd; d++) { /* each loop nest binds its own vars */
      char v[16];
      snprintf(v, sizeof v, "ax%d", d);
      idx[d] = tb_var(v, TB_I32);
    }
    const psg_expr *res = psg_expr_kind(body) == PSG_EXPR_TUPLE ? psg_tuple_get_field(body, o) : body;
    psg_tir_expr *v = to_tir(fn, bufs, res, idx, (size_t)nd);
    if (!v) return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "the fixture cannot lower %s", name);
    psg_tir_stmt *s = tb_storep(bufs[nin + o], v, idx, (size_t)nd, NULL);
    for (int d = nd; d-- > 0;) s = tb_for(idx[d], shape[d], s);
    nests[o] = s;
  }
  psg_tir_stmt *all = nout == 1 ? nests[0] : tb_seqv(nests, nout);
  psg_tir_prim_func *f = tb_func(bufs, nin + nout, NULL, 0, all);
  if (!f) return PSG_ERR_INTERNAL;
  psg_tir_retain(f);
  *out = f;
  if (fx->calls < 8) snprintf(fx->names[fx->calls], sizeof fx->names[0], "%s", name);
  fx->calls++;
  return PSG_OK;
}

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "test.relay", &m));
  if (!m) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    if (d) fprintf(stderr, "  parse: %s\n", psg_diag_message(d));
  }
  return m;
}

static char *print(const psg_module *m) {
  char *s = NULL;
  CHECK_OK(psg_module_print(m, PSG_PRINT_DEFAULT, &s, NULL));
  return s;
}

static psg_module *lower(psg_ctx *ctx, const psg_module *m, const char *prefix, fixture *fx) {
  psg_module *out = NULL;
  psg_status st = psgi_lower_te(ctx, m, prefix, hand_lower, fx, &out);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    if (d) fprintf(stderr, "  lower: %s\n", psg_diag_message(d));
  }
  return out;
}

/* The Relay part of a printed module: the text before the first
 * @T.prim_func block. */
static char *relay_part(char *s) {
  char *p = s ? strstr(s, "@T.prim_func") : NULL;
  if (p) *p = 0;
  return s;
}

static const char *const PRIMITIVE =
    "#[version = \"0.0.5\"]\n"
    "def @main(%a: Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32] {\n"
    "  %0 = fn(%x : Tensor[(5, 7), float32], %y : Tensor[(5, 7), float32], Primitive=1) -> Tensor[(5, 7), float32] {\n"
    "    add(%x, %y)\n"
    "  };\n"
    "  %0(%a, %a)\n"
    "}\n";

/* TVM's test_lower_primitive: the call becomes call_lowered of
 * @test_fused_add with the (%a, %a) tuple and TVM's metadata. */
static void test_lower_primitive(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  psg_module *m = parse(ctx, PRIMITIVE), *l = lower(ctx, m, "test", &fx);
  char *s = relay_part(print(l));
  CHECK_STR(s, "#[version = \"0.0.5\"]\n"
               "def @main(%a: Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32] {\n"
               "  %0 = (%a, %a);\n"
               "  call_lowered(@test_fused_add, %0, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_add]})\n"
               "}\n\n");
  CHECK_EQ_INT(fx.calls, 1);
  CHECK_EQ_INT(psg_module_num_functions(l), 2);
  psg_tir_prim_func *p = psg_module_lookup_prim_func(l, "test_fused_add");
  CHECK(p != NULL);
  psg_attr *gs = p ? psg_attrs_get(psg_tir_prim_func_get_attrs(p), "global_symbol") : NULL;
  CHECK(gs && !strcmp(psg_attr_get_string(gs), "test_fused_add"));
  /* The call's type is the Primitive function's result type. */
  psg_expr *body = psg_function_get_body(psg_module_lookup(l, "main"));
  CHECK_STR(psg_op_name(psg_call_get_callee(body)), "call_lowered");
  const psg_type *t = psg_expr_checked_type(body);
  CHECK(t && psg_type_kind(t) == PSG_TYPE_TENSOR && psg_type_ndim(t) == 2 && psg_type_dim(t, 1) == 7);
  psg_attr *meta = psg_attrs_get(psg_call_get_attrs(body), "metadata");
  psg_attr *vars = meta ? psg_attrs_get(psg_attr_get_dict(meta), "all_prim_fn_vars") : NULL;
  CHECK(vars && psg_attr_list_len(vars) == 1 &&
        psg_attr_kind(psg_attr_list_get(vars, 0)) == PSG_ATTR_GLOBAL_VAR &&
        !strcmp(psg_attr_get_global_var(psg_attr_list_get(vars, 0)), "test_fused_add"));
  psg_free(s);
  psg_module_release(l);
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

/* TVM's test_lower_extern: a call of an Extern global becomes call_lowered
 * of that global, with no PrimFuncs; the Relay definition stays. */
static void test_lower_extern(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  psg_module *m = parse(ctx, "#[version = \"0.0.5\"]\n"
                             "def @main(%a: Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32] {\n"
                             "  @my_add(%a, %a)\n"
                             "}\n\n"
                             "def @my_add(%x: Tensor[(5, 7), float32], %y: Tensor[(5, 7), float32], Extern=1) -> Tensor[(5, 7), float32] {\n"
                             "  add(%x, %y)\n"
                             "}\n");
  psg_module *l = lower(ctx, m, "test", &fx);
  char *s = print(l);
  CHECK_STR(s, "#[version = \"0.0.5\"]\n"
               "def @main(%a: Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32] {\n"
               "  %0 = (%a, %a);\n"
               "  call_lowered(@my_add, %0, metadata={relay_attrs={Extern=1}, all_prim_fn_vars=[]})\n"
               "}\n\n"
               "def @my_add(%x: Tensor[(5, 7), float32], %y: Tensor[(5, 7), float32], Extern=1) -> Tensor[(5, 7), float32] {\n"
               "  add(%x, %y)\n"
               "}\n");
  CHECK_EQ_INT(fx.calls, 0);
  const psg_type *t = psg_expr_checked_type(psg_function_get_body(psg_module_lookup(l, "main")));
  CHECK(t && psg_type_kind(t) == PSG_TYPE_TENSOR && psg_type_dim(t, 0) == 5);
  psg_free(s);
  psg_module_release(l);
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

/* Names: ops in post order, '.' as '_', the module prefix (or none), unique
 * against the module's globals and each other; the 80-character cut with
 * libstdc++'s std::hash (values from g++'s std::hash<std::string>). */
static void test_naming(void) {
  CHECK(psgi_lower_te_std_hash("", 0) == 0x553e93901e462a6eull);
  CHECK(psgi_lower_te_std_hash("a", 1) == 0x454ddee488c1ed6bull);
  CHECK(psgi_lower_te_std_hash("abcdefgh", 8) == 0x783db3e38db898bbull);
  CHECK(psgi_lower_te_std_hash("abcdefghi", 9) == 0xb4ec9257851c8aafull);
  CHECK(psgi_lower_te_std_hash("fused_nn_conv2d_add_nn_relu", 27) == 0x6fb012dcb843d898ull);

  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  /* Two different functions with the same ops, a chain, and a global that
   * already has the first name. */
  psg_module *m = parse(ctx,
      "#[version = \"0.0.5\"]\n"
      "def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(2, 3), float32]) -> (Tensor[(2, 3), float32], Tensor[(2, 3), float32], Tensor[(2, 3), float32]) {\n"
      "  %0 = fn(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
      "    add(%x, %y)\n"
      "  };\n"
      "  %1 = %0(%a, %b);\n"
      "  %2 = fn(%x1: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
      "    add(%x1, %x1)\n"
      "  };\n"
      "  %3 = %2(%1);\n"
      "  %4 = fn(%p: Tensor[(2, 3), float32], %q: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
      "    %5 = add(%p, %q);\n"
      "    %6 = multiply(%5, %q);\n"
      "    nn.relu(%6)\n"
      "  };\n"
      "  %7 = %4(%3, %a);\n"
      "  (%1, %3, %7)\n"
      "}\n\n"
      "def @test_fused_add(%z: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {\n"
      "  %z\n"
      "}\n");
  psg_module *l = lower(ctx, m, "test", &fx);
  CHECK_EQ_INT(fx.calls, 3);
  CHECK_STR(fx.names[0], "test_fused_add_1");
  CHECK_STR(fx.names[1], "test_fused_add_2");
  CHECK_STR(fx.names[2], "test_fused_add_multiply_nn_relu");
  psg_module_release(l);
  /* No prefix. */
  fixture fx2 = {0};
  l = lower(ctx, m, NULL, &fx2);
  CHECK_STR(fx2.names[0], "fused_add");
  CHECK_STR(fx2.names[1], "fused_add_1");
  CHECK_STR(fx2.names[2], "fused_add_multiply_nn_relu");
  psg_module_release(l);
  psg_module_release(m);

  /* 11 relus: "fused" + 11 * "_nn.relu" is 93 characters. */
  const char *chain =
      "#[version = \"0.0.5\"]\n"
      "def @main(%a: Tensor[(4), float32]) -> Tensor[(4), float32] {\n"
      "  %0 = fn(%x: Tensor[(4), float32], Primitive=1) -> Tensor[(4), float32] {\n"
      "    nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(nn.relu(%x)))))))))))\n"
      "  };\n"
      "  %0(%a)\n"
      "}\n";
  m = parse(ctx, chain);
  fixture fx3 = {0};
  l = lower(ctx, m, "tvmgen_default", &fx3);
  CHECK_STR(fx3.names[0],
            "tvmgen_default_fused_nn_relu_nn_relu_nn_relu_nn_relu_nn_relu_nn_relu_nn_relu_nn_relu_nn_relu_nn_f3796e21d27b65b0_");
  psg_module_release(l);
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

/* Structurally equal Primitive functions are lowered once; a let-bound one
 * called twice is one PrimFunc and its let is dropped; a global Primitive
 * function is lowered for its calls and kept. */
static void test_dedup_and_sharing(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  psg_module *m = parse(ctx,
      "#[version = \"0.0.5\"]\n"
      "def @main(%a: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {\n"
      "  let %f = fn(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
      "    multiply(%x, %y)\n"
      "  };\n"
      "  let %r = %f(%a, %a);\n"
      "  %0 = fn(%u: Tensor[(2, 3), float32], %v: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
      "    multiply(%u, %v)\n"
      "  };\n"
      "  %1 = %0(%r, %a);\n"
      "  %2 = @prim(%1);\n"
      "  %3 = @prim(%2);\n"
      "  %f(%3, %r)\n"
      "}\n\n"
      "def @prim(%z: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
      "  nn.relu(%z)\n"
      "}\n");
  psg_module *l = lower(ctx, m, "test", &fx);
  CHECK_EQ_INT(fx.calls, 2);
  char *s = relay_part(print(l));
  CHECK_STR(s, "#[version = \"0.0.5\"]\n"
               "def @main(%a: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {\n"
               "  %0 = (%a, %a);\n"
               "  let %r = call_lowered(@test_fused_multiply, %0, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_multiply]});\n"
               "  %1 = (%r, %a);\n"
               "  %2 = call_lowered(@test_fused_multiply, %1, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_multiply]});\n"
               "  %3 = (%2,);\n"
               "  %4 = call_lowered(@test_fused_nn_relu, %3, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_nn_relu]});\n"
               "  %5 = (%4,);\n"
               "  %6 = call_lowered(@test_fused_nn_relu, %5, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_nn_relu]});\n"
               "  %7 = (%6, %r);\n"
               "  call_lowered(@test_fused_multiply, %7, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_multiply]})\n"
               "}\n\n"
               "def @prim(%z: Tensor[(2, 3), float32], Primitive=1) -> Tensor[(2, 3), float32] {\n"
               "  nn.relu(%z)\n"
               "}\n\n");
  psg_free(s);
  psg_module_release(l);
  psg_module_release(m);

  tb_fini();
  psg_ctx_release(ctx);
}

static const char *const MIXED =
    "#[version = \"0.0.5\"]\n"
    "def @main(%a: Tensor[(3, 4), float32], %b: Tensor[(3, 4), float32]) -> (Tensor[(3, 4), float32], Tensor[(3, 4), float32]) {\n"
    "  %0 = fn(%x: Tensor[(3, 4), float32], %y: Tensor[(3, 4), float32], Primitive=1) -> (Tensor[(3, 4), float32], Tensor[(3, 4), float32]) {\n"
    "    %1 = add(%x, %y);\n"
    "    %2 = multiply(%1, %y);\n"
    "    (nn.relu(%2), %1)\n"
    "  };\n"
    "  %3 = %0(%a, %b);\n"
    "  let %g = fn(%p: Tensor[(3, 4), float32], Primitive=1) -> Tensor[(3, 4), float32] {\n"
    "    nn.relu(multiply(%p, %p))\n"
    "  };\n"
    "  %4 = %g(%3.0);\n"
    "  %5 = %g(%3.1);\n"
    "  (%4, add(%5, %a))\n"
    "}\n";

static psg_tensor *random_tensor(psg_ctx *ctx, uint32_t *seed) {
  float v[12];
  for (int i = 0; i < 12; i++) {
    *seed = *seed * 1664525u + 1013904223u;
    v[i] = (float)((int32_t)(*seed >> 8) % 2000) / 317.0f;
  }
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){3, 4}, 2, v, &t));
  return t;
}

/* The interpreter gives bit-identical outputs before and after lowering
 * (tuple results, a let-bound function called twice, Relay ops between
 * the calls), and the lowered module round-trips through the mixed text. */
static void test_interp_and_round_trip(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  psg_module *m = parse(ctx, MIXED), *l = lower(ctx, m, "tvmgen_default", &fx);
  CHECK_EQ_INT(fx.calls, 2);
  CHECK_STR(fx.names[0], "tvmgen_default_fused_add_multiply_nn_relu");
  CHECK_STR(fx.names[1], "tvmgen_default_fused_multiply_nn_relu");
  uint32_t seed = 7;
  for (int round = 0; round < 3; round++) {
    psg_tensor *in[2] = {random_tensor(ctx, &seed), random_tensor(ctx, &seed)};
    psg_tensor **before = NULL, **after = NULL;
    size_t nb = 0, na = 0;
    CHECK_OK(psg_eval(ctx, m, "main", in, 2, &before, &nb));
    psg_status st = psg_eval(ctx, l, "main", in, 2, &after, &na);
    CHECK_OK(st);
    if (st) {
      const psg_diag *d = psg_ctx_get_last_error(ctx);
      if (d) fprintf(stderr, "  eval: %s\n", psg_diag_message(d));
    }
    CHECK_EQ_INT(nb, 2);
    CHECK_EQ_INT(na, nb);
    for (size_t i = 0; i < nb && i < na; i++)
      CHECK(psg_tensor_nbytes(before[i]) == 48 &&
            !memcmp(psg_tensor_data(before[i]), psg_tensor_data(after[i]), 48));
    for (size_t i = 0; i < nb; i++) psg_tensor_release(before[i]);
    for (size_t i = 0; i < na; i++) psg_tensor_release(after[i]);
    psg_free(before);
    psg_free(after);
    psg_tensor_release(in[0]);
    psg_tensor_release(in[1]);
  }
  /* print -> parse -> the same module, printed the same. */
  char *s = print(l);
  if (getenv("SHOW")) fputs(s, stderr);
  psg_module *back = s ? parse(ctx, s) : NULL;
  char *s2 = back ? print(back) : NULL;
  CHECK_STR(s2, s);
  char *path = NULL;
  CHECK(back && psg_module_structural_equal(l, back, &path));
  if (path) fprintf(stderr, "  differs at %s\n", path);
  psg_free(path);
  CHECK(s && strstr(s, "  %1 = call_lowered(@tvmgen_default_fused_add_multiply_nn_relu, %0, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@tvmgen_default_fused_add_multiply_nn_relu]});\n"));
  CHECK(s && strstr(s, "\n@T.prim_func\ndef tvmgen_default_fused_multiply_nn_relu(p0: T.Buffer((3, 4), \"float32\"), T_out0: T.Buffer((3, 4), \"float32\")):\n"));
  psg_free(s);
  psg_free(s2);
  psg_module_release(back);
  psg_module_release(l);
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

/* A failing callback: the error names the function, nothing is returned
 * and the input module is unchanged; a Compiler function is refused. */
static void test_errors(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  psg_module *m = parse(ctx, "#[version = \"0.0.5\"]\n"
                             "def @main(%a: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
                             "  %0 = fn(%x: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {\n"
                             "    nn.relu(%x)\n"
                             "  };\n"
                             "  %1 = fn(%y: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {\n"
                             "    subtract(%y, %y)\n"
                             "  };\n"
                             "  %1(%0(%a))\n"
                             "}\n");
  char *before = print(m);
  psg_module *out = (psg_module *)1;
  CHECK_EQ_INT(psgi_lower_te(ctx, m, "test", hand_lower, &fx, &out), PSG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "LowerTE: lowering the Primitive function @test_fused_subtract failed"));
  CHECK(d && psg_diag_line(d) == 6);
  char *after = print(m);
  CHECK_STR(after, before);
  psg_free(before);
  psg_free(after);
  psg_module_release(m);

  m = parse(ctx, "#[version = \"0.0.5\"]\n"
                 "def @main(%a: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
                 "  %0 = fn(%x: Tensor[(2), float32], Primitive=1, Compiler=\"ccompiler\", global_symbol=\"test_add\") -> Tensor[(2), float32] {\n"
                 "    add(%x, %x)\n"
                 "  };\n"
                 "  %0(%a)\n"
                 "}\n");
  out = NULL;
  CHECK_EQ_INT(psgi_lower_te(ctx, m, "test", hand_lower, &fx, &out), PSG_ERR_UNSUPPORTED);
  d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "Compiler=\"ccompiler\" needs external codegen"));
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

/* call_lowered written in text: arguments that do not fit the PrimFunc. */
static void test_call_lowered_op(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  psg_module *m = NULL;
  const psg_diag *d = NULL;
  /* Arguments that do not fit the PrimFunc's buffers. */
  const char *bad =
      "#[version = \"0.0.5\"]\n"
      "@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "    for i in range(4):\n"
      "        B[i] = A[i]\n"
      "\n"
      "def @main(%x: Tensor[(5), float32]) {\n"
      "  call_lowered(@f, (%x,), metadata={relay_attrs={}, all_prim_fn_vars=[@f]})\n"
      "}\n";
  m = parse(ctx, bad);
  psg_tensor **outs = NULL;
  size_t n = 0;
  psg_tensor *x = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){5}, 1, NULL, &x));
  CHECK_EQ_INT(psg_eval(ctx, m, "main", &x, 1, &outs, &n), PSG_ERR_TYPE);
  d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "argument tensor 0 does not fit"));
  psg_tensor_release(x);
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

/* The PrimFunc a call_lowered runs is bounded by the PassContext's
 * passage.interp.max_steps (loop iterations), and its outputs by
 * passage.interp.max_bytes. */
static void test_interp_limits(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  fixture fx = {0};
  psg_module *m = parse(ctx, PRIMITIVE), *l = lower(ctx, m, "test", &fx);
  psg_tensor *a = NULL, **outs = NULL;
  size_t n = 0;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){5, 7}, 2, NULL, &a));
  const char *keys[2] = {"passage.interp.max_steps", "passage.interp.max_bytes"};
  int64_t small[2] = {30, 100};
  const char *want[2] = {"passage.interp.max_steps", "passage.interp.max_bytes"};
  for (int k = 0; k < 2; k++) {
    psg_pass_context *pc = NULL;
    psg_attr *v = NULL;
    CHECK_OK(psg_pass_context_create(ctx, &pc));
    CHECK_OK(psg_attr_int(ctx, small[k], &v));
    CHECK_OK(psg_pass_context_set_config(pc, keys[k], v));
    psg_attr_release(v);
    CHECK_OK(psg_pass_context_enter(pc));
    CHECK_EQ_INT(psg_eval(ctx, l, "main", &a, 1, &outs, &n), PSG_ERR_UNSUPPORTED);
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    CHECK(d && strstr(psg_diag_message(d), want[k]));
    if (d && !strstr(psg_diag_message(d), want[k])) fprintf(stderr, "  got: %s\n", psg_diag_message(d));
    CHECK_OK(psg_pass_context_exit(pc));
    psg_pass_context_release(pc);
  }
  /* The defaults run it: 35 iterations, 140 bytes. */
  CHECK_OK(psg_eval(ctx, l, "main", &a, 1, &outs, &n));
  for (size_t i = 0; i < n; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  psg_tensor_release(a);
  psg_module_release(l);
  psg_module_release(m);
  tb_fini();
  psg_ctx_release(ctx);
}

int main(void) {
  RUN_TEST(test_lower_primitive);
  RUN_TEST(test_lower_extern);
  RUN_TEST(test_naming);
  RUN_TEST(test_dedup_and_sharing);
  RUN_TEST(test_interp_and_round_trip);
  RUN_TEST(test_interp_limits);
  RUN_TEST(test_errors);
  RUN_TEST(test_call_lowered_op);
  return check_finish();
}
