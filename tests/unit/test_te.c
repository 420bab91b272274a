/* Passage — the tensor-expression layer (issue 16 item 1): every op with a
 * compute definition, lowered from a small Primitive function by
 * psg_te_lower_primitive, gives through the TIR interpreter what the Relay
 * interpreter's reference kernels give on random inputs (bit-exact for
 * integer and bool results, 1e-5 relative for floats); fused chains; the
 * PrimFunc's form (params, buffer map, attrs, stage tags); errors. */
#include <math.h>
#include "pass_check.h"
#include "passage/te.h"
#include "passage/tir_interp.h"

/* One case: the parameters and body of a Relay function, and the range of
 * its random inputs (lo == hi: [-2, 2]; integers are rounded into range). */
typedef struct te_case {
  const char *params, *body;
  double lo, hi;
} te_case;

#define F(...) "Tensor[(" #__VA_ARGS__ "), float32]"
#define I(...) "Tensor[(" #__VA_ARGS__ "), int32]"
#define B(...) "Tensor[(" #__VA_ARGS__ "), bool]"

static const te_case cases[] = {
#include "te_cases.h"
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static psg_tensor *random_tensor(psg_ctx *ctx, const psg_type *t, double lo, double hi) {
  int nd = psg_type_ndim(t), dt = psg_type_dtype(t);
  int64_t dims[8], n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i] = psg_type_dim(t, i);
  if (lo == hi) lo = -2, hi = 2;
  psg_tensor *x = NULL;
  CHECK_OK(psg_tensor_create(ctx, dt, dims, nd, NULL, &x));
  if (!x) return NULL;
  void *p = (void *)psg_tensor_data(x);
  for (int64_t i = 0; i < n; i++) {
    double v = lo + (hi - lo) * urand();
    switch (dt) {
    case PSG_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case PSG_DTYPE_FLOAT64: ((double *)p)[i] = v; break;
    case PSG_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)floor(v + 0.5); break;
    case PSG_DTYPE_INT64: ((int64_t *)p)[i] = (int64_t)floor(v + 0.5); break;
    case PSG_DTYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)(floor(v + 0.5) < 0 ? 0 : floor(v + 0.5)); break;
    case PSG_DTYPE_INT8: ((int8_t *)p)[i] = (int8_t)floor(v + 0.5); break;
    case PSG_DTYPE_BOOL: ((uint8_t *)p)[i] = urand() < 0.5; break;
    default: break;
    }
  }
  return x;
}

static double elem(const psg_tensor *t, int64_t i) {
  const void *p = psg_tensor_data(t);
  switch (psg_tensor_dtype(t)) {
  case PSG_DTYPE_FLOAT32: return ((const float *)p)[i];
  case PSG_DTYPE_FLOAT64: return ((const double *)p)[i];
  case PSG_DTYPE_INT32: return ((const int32_t *)p)[i];
  case PSG_DTYPE_INT64: return (double)((const int64_t *)p)[i];
  case PSG_DTYPE_INT8: return ((const int8_t *)p)[i];
  case PSG_DTYPE_UINT8: case PSG_DTYPE_BOOL: return ((const uint8_t *)p)[i];
  default: return NAN;
  }
}

/* got equals want: same dtype and shape, integers exactly, floats within
 * 1e-5 relative (NaN matches NaN). */
static bool same_tensor(const char *what, const psg_tensor *got, const psg_tensor *want) {
  if (psg_tensor_dtype(got) != psg_tensor_dtype(want) || psg_tensor_numel(got) != psg_tensor_numel(want)) {
    fprintf(stderr, "%s: dtype or size differs\n", what);
    return false;
  }
  bool fl = psg_dtype_is_float(psg_tensor_dtype(want));
  for (int64_t i = 0; i < psg_tensor_numel(want); i++) {
    double g = elem(got, i), w = elem(want, i);
    bool ok = fl ? (isnan(g) && isnan(w)) || g == w || fabs(g - w) <= 1e-5 * fmax(fabs(w), 1.0) : g == w;
    if (!ok) {
      fprintf(stderr, "%s: element %lld: TIR %.9g, Relay %.9g\n", what, (long long)i, g, w);
      return false;
    }
  }
  return true;
}

/* `params` and `body` as a Primitive function, type-checked. The module
 * holding it as @main is returned too (for the Relay interpreter). */
static psg_expr *primitive(psg_ctx *ctx, const char *params, const char *body, psg_module **mod) {
  char text[4096];
  snprintf(text, sizeof text, HDR "def @main(%s) {\n  %s\n}\n", params, body);
  *mod = NULL;
  psg_module *m = parse(ctx, text);
  if (!m) return NULL;
  *mod = run(ctx, "InferType", NULL, m);
  psg_module_release(m);
  if (!*mod) return NULL;
  psg_expr *f = psg_module_lookup(*mod, "main");
  psg_attr *one = NULL;
  psg_attrs *attrs = NULL;
  const char *key = "Primitive";
  CHECK_OK(psg_attr_int(ctx, 1, &one));
  CHECK_OK(psg_attrs_create(ctx, &key, &one, 1, &attrs));
  psg_attr_release(one);
  size_t n = psg_function_num_params(f);
  psg_expr *ps[16];
  for (size_t i = 0; i < n && i < 16; i++) ps[i] = psg_function_get_param(f, i);
  psg_expr *prim = NULL;
  CHECK_OK(psg_function_create(ctx, ps, n, psg_function_get_body(f), psg_function_ret_type(f), attrs, NULL, &prim));
  psg_attrs_release(attrs);
  return prim;
}

static size_t count_flat(const psg_type *t) {
  if (psg_type_kind(t) != PSG_TYPE_TUPLE) return 1;
  size_t n = 0;
  for (int i = 0; i < psg_type_num_fields(t); i++) n += count_flat(psg_type_field(t, i));
  return n;
}

/* Lowers case c and compares the TIR interpreter with the Relay one. */
static bool check_case(const te_case *c) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL;
  psg_expr *fn = primitive(ctx, c->params, c->body, &m);
  bool ok = fn != NULL;
  psg_tir_prim_func *pf = NULL;
  if (ok) {
    psg_status st = psg_te_lower_primitive(ctx, fn, "fused", &pf);
    if (st) {
      const psg_diag *d = psg_ctx_get_last_error(ctx);
      fprintf(stderr, "lowering failed: %s\n", d ? psg_diag_message(d) : "?");
    }
    ok = !st && pf;
  }
  if (ok && psg_tir_verify_well_formed(pf)) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    fprintf(stderr, "not well formed: %s\n", d ? psg_diag_message(d) : "?");
    ok = false;
  }
  psg_tensor *args[32] = {0}, **want = NULL, **got = NULL;
  size_t nin = 0, nwant = 0;
  for (size_t i = 0; ok && i < psg_function_num_params(fn); i++) {
    psg_expr *p = psg_function_get_param(fn, i);
    args[nin++] = random_tensor(ctx, psg_var_type(p), c->lo, c->hi);
  }
  if (ok && psg_eval(ctx, m, "main", args, nin, &want, &nwant)) {
    fprintf(stderr, "Relay interpreter failed: %s\n", psg_diag_message(psg_ctx_get_last_error(ctx)));
    ok = false;
  }
  if (ok) {
    ok = psg_tir_prim_func_num_params(pf) == nin + nwant;
    for (size_t k = 0; ok && k < nwant; k++) {
      int64_t dims[8];
      for (int d = 0; d < psg_tensor_ndim(want[k]); d++) dims[d] = psg_tensor_dim(want[k], d);
      CHECK_OK(psg_tensor_create(ctx, psg_tensor_dtype(want[k]), dims, psg_tensor_ndim(want[k]), NULL, &args[nin + k]));
    }
    if (ok && psg_tir_eval(ctx, pf, args, nin + nwant, &got)) {
      fprintf(stderr, "TIR interpreter failed: %s\n", psg_diag_message(psg_ctx_get_last_error(ctx)));
      ok = false;
    }
    for (size_t k = 0; ok && k < nwant; k++) ok = same_tensor(c->body, got[nin + k], want[k]);
  }
  if (!ok) {
    fprintf(stderr, "case failed: (%s) { %s }\n", c->params, c->body);
    char *text = NULL;
    if (pf && !psg_tir_script_print_func(pf, "fused", 0, &text, NULL)) fprintf(stderr, "%s\n", text);
    psg_free(text);
  }
  for (size_t k = 0; got && k < nin + nwant; k++) psg_tensor_release(got[k]);
  for (size_t k = 0; want && k < nwant; k++) psg_tensor_release(want[k]);
  for (size_t k = 0; k < nin + nwant; k++) psg_tensor_release(args[k]);
  psg_free(got), psg_free(want);
  psg_tir_release((psg_tir_node *)pf);
  psg_expr_release(fn);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
  (void)count_flat;
  return ok;
}

static void test_cases_match_relay(void) {
  size_t n = sizeof cases / sizeof cases[0], failed = 0;
  for (size_t i = 0; i < n; i++)
    if (!check_case(&cases[i])) failed++;
  printf("%zu cases, %zu failed\n", n, failed);
  CHECK_EQ_INT(failed, 0);
}

/* Every op of te_ops.def is covered by a case (the lowering records the op
 * of each stage; here we check the op names appear in the case bodies). */
static void test_every_compute_has_a_case(void) {
  size_t missing = 0;
  for (size_t i = 0; i < psg_op_count(); i++) {
    const char *op = psg_op_name_at(i);
    if (!psg_te_has_compute(op)) continue;
    char pat[64];
    snprintf(pat, sizeof pat, "%s(", op);
    bool found = false;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0] && !found; k++) {
      const char *s = cases[k].body;
      for (const char *p = strstr(s, pat); p && !found; p = strstr(p + 1, pat))
        found = p == s || !(p[-1] == '_' || p[-1] == '.' || (p[-1] >= 'a' && p[-1] <= 'z'));
    }
    if (!found) fprintf(stderr, "no case for op '%s'\n", op), missing++;
  }
  CHECK_EQ_INT(missing, 0);
}

static const char *attr_str(psg_attrs *a, const char *key) {
  psg_attr *v = psg_attrs_get(a, key);
  return v && psg_attr_kind(v) == PSG_ATTR_STRING ? psg_attr_get_string(v) : NULL;
}

/* The PrimFunc's form: params and buffer map, attrs, stage tags in order,
 * an intermediate as an Allocate, the reduction nest. */
static void test_form(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL;
  psg_expr *fn = primitive(ctx, "%p0: " F(1, 2, 5, 5) ", %p1: " F(3, 2, 3, 3) ", %p2: " F(3, 1, 1),
                           "nn.relu(add(nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]), %p2))", &m);
  psg_tir_prim_func *pf = NULL;
  CHECK_OK(psg_te_lower_primitive(ctx, fn, "fused_nn_conv2d_add_nn_relu", &pf));
  if (pf) {
    CHECK_EQ_INT(psg_tir_prim_func_num_params(pf), 4);
    CHECK_EQ_INT(psg_tir_prim_func_buffer_map_size(pf), 4);
    psg_attrs *a = psg_tir_prim_func_get_attrs(pf);
    CHECK_STR(attr_str(a, "global_symbol"), "fused_nn_conv2d_add_nn_relu");
    CHECK(psg_attrs_get(a, "tir.noalias") && psg_attr_get_bool(psg_attrs_get(a, "tir.noalias")));
    CHECK(psg_attrs_get(a, "from_legacy_te_schedule") && psg_attr_get_bool(psg_attrs_get(a, "from_legacy_te_schedule")));
    psg_attr *tags = psg_attrs_get(a, "passage.te_stages");
    static const char *const bufs[] = {"pad_temp", "conv2d_nchw", "T_add", "T_relu"};
    static const char *const ops[] = {"nn.conv2d", "nn.conv2d", "add", "nn.relu"};
    static const char *const pats[] = {"out_elemwise_fusable", "out_elemwise_fusable", "broadcast", "elemwise"};
    CHECK(tags && psg_attr_list_len(tags) == 4);
    for (size_t i = 0; tags && i < 4 && i < psg_attr_list_len(tags); i++) {
      psg_attrs *d = psg_attr_get_dict(psg_attr_list_get(tags, i));
      CHECK_STR(attr_str(d, "buffer"), bufs[i]);
      CHECK_STR(attr_str(d, "op"), ops[i]);
      CHECK_STR(attr_str(d, "pattern"), pats[i]);
    }
    /* The output buffer is the last stage's; the body holds three Allocates. */
    CHECK_STR(psg_tir_buffer_name(psg_tir_prim_func_buffer_map_value(pf, 3)), "T_relu");
    psg_tir_node *s = psg_tir_get_body((psg_tir_node *)pf);
    int allocs = 0;
    while (s && psg_tir_kind(s) == PSG_TIR_ALLOCATE) allocs++, s = psg_tir_get_body(s);
    CHECK_EQ_INT(allocs, 3);
    CHECK(s && psg_tir_kind(s) == PSG_TIR_SEQ_STMT && psg_tir_seq_size(s) == 4);
  }
  psg_tir_release((psg_tir_node *)pf);
  psg_expr_release(fn);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* An op without a compute definition: PSG_ERR_UNSUPPORTED naming the op,
 * nothing built, nothing leaked. */
static void test_unsupported_op(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL;
  psg_expr *fn = primitive(ctx, "%p0: " F(4, 3), "exp(annotation.stop_fusion(%p0))", &m);
  psg_tir_prim_func *pf = (psg_tir_prim_func *)1;
  CHECK(!psg_te_has_compute("annotation.stop_fusion"));
  CHECK(psg_te_has_compute("argsort"));
  CHECK(psg_te_has_compute("nn.conv2d"));
  CHECK_EQ_INT(psg_te_lower_primitive(ctx, fn, "f", &pf), PSG_ERR_UNSUPPORTED);
  CHECK(pf == NULL);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "'annotation.stop_fusion'"));
  CHECK_EQ_INT(psg_te_lower_primitive(ctx, NULL, "f", &pf), PSG_ERR_INVALID_ARGUMENT);
  psg_expr_release(fn);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Out of memory at every allocation: a clean error, nothing leaked. */
static void test_oom(void) {
  check_alloc al = {0, 0};
  psg_ctx *ctx = check_ctx_with(&al);
  psg_module *m = NULL;
  psg_expr *fn = primitive(ctx, "%p0: " F(2, 3) ", %p1: " F(3), "sum(nn.relu(add(%p0, %p1)), axis=[1])", &m);
  int64_t live = psg_ctx_live_objects(ctx);
  long n = 1;
  for (; n < 20000; n++) {
    al.calls = 0, al.fail_at = n; /* only the lowering's allocations fail */
    psg_tir_prim_func *pf = NULL;
    psg_status st = psg_te_lower_primitive(ctx, fn, "f", &pf);
    al.fail_at = 0;
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    CHECK((st == PSG_OK) == (pf != NULL));
    psg_tir_release((psg_tir_node *)pf);
    CHECK_EQ_INT(psg_ctx_live_objects(ctx), live);
    psg_ctx_clear_diags(ctx);
    if (st == PSG_OK) break;
  }
  CHECK(n > 10 && n < 20000);
  psg_expr_release(fn);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* `test_te --print FILE NAME`: lowers @main of Relay file FILE (as a
 * Primitive function) and prints the PrimFunc as TVMScript, for the lit
 * tests of tests/lit/te. */
static int print_lowered(const char *path, const char *name) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL, *typed = NULL;
  int rc = 1;
  if (!psg_module_parse_file(ctx, path, &m) && (typed = run(ctx, "InferType", NULL, m))) {
    psg_expr *f = psg_module_lookup(typed, "main"), *prim = NULL;
    psg_attr *one = NULL;
    psg_attrs *attrs = NULL;
    const char *key = "Primitive";
    psg_expr *ps[16];
    size_t n = psg_function_num_params(f);
    for (size_t i = 0; i < n && i < 16; i++) ps[i] = psg_function_get_param(f, i);
    psg_tir_prim_func *pf = NULL;
    char *text = NULL;
    if (!psg_attr_int(ctx, 1, &one) && !psg_attrs_create(ctx, &key, &one, 1, &attrs) &&
        !psg_function_create(ctx, ps, n, psg_function_get_body(f), psg_function_ret_type(f), attrs, NULL, &prim) &&
        !psg_te_lower_primitive(ctx, prim, name, &pf) && !psg_tir_script_print_func(pf, name, 0, &text, NULL)) {
      fputs(text, stdout);
      rc = 0;
    }
    psg_free(text);
    psg_tir_release((psg_tir_node *)pf);
    psg_expr_release(prim);
    psg_attrs_release(attrs);
    psg_attr_release(one);
  }
  for (size_t i = 0; rc && i < psg_ctx_diag_count(ctx); i++) fprintf(stderr, "%s\n", psg_diag_message(psg_ctx_get_diag(ctx, i)));
  psg_module_release(typed);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "--print")) return print_lowered(argv[2], argv[3]);
  RUN_TEST(test_cases_match_relay);
  RUN_TEST(test_every_compute_has_a_case);
  RUN_TEST(test_form);
  RUN_TEST(test_unsupported_op);
  RUN_TEST(test_oom);
  return check_finish();
}
