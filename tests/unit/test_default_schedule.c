/* Passage — the default CPU schedules of LowerTE (src/lower/default_schedule*.c):
 * every case of the TE tests and the cases below, lowered by TE and then
 * scheduled, must give through the TIR interpreter byte-identical outputs to
 * the naive loop nests (before and after tir.VectorizeLoop), pick the
 * expected schedule kind, and carry it in "passage.schedule"; a schedule
 * that cannot apply leaves the naive nests and no diagnostic; LowerTE's
 * option and config turn it off. */
#include "lower/default_schedule.h"
#include "pass_check.h"
#include "passage/te.h"
#include "tir_equiv.h"

typedef struct sched_case {
  const char *params, *body;
  const char *kind;    /* expected kind (NULL: not checked) */
  bool vectorized;     /* a vectorized loop is expected */
} sched_case;

#define F(...) "Tensor[(" #__VA_ARGS__ "), float32]"
#define I(...) "Tensor[(" #__VA_ARGS__ "), int32]"
#define B(...) "Tensor[(" #__VA_ARGS__ "), bool]"

/* Shapes where the tiles and vectors apply, and odd ones where they do not. */
static const sched_case kinds[] = {
    {"%x: " F(8, 16) ", %w: " F(32, 16) ", %b: " F(32), "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))", "dense", true},
    {"%x: " F(3, 7) ", %w: " F(5, 7), "nn.dense(%x, %w)", "dense", true},
    {"%x: " F(7, 5) ", %w: " F(13, 5), "nn.dense(%x, %w)", "dense", true},
    {"%x: " F(6, 9) ", %w: " F(9, 32), "nn.matmul(%x, %w)", "matmul", true},
    {"%x: " F(2, 8, 6) ", %y: " F(2, 32, 6), "nn.batch_matmul(%x, %y)", "batch_matmul", true},
    {"%x: " F(3, 5, 6) ", %y: " F(1, 6, 12), "nn.batch_matmul(%x, %y, transpose_b=False)", "batch_matmul", true},
    {"%x: " F(1, 4, 8, 16) ", %w: " F(8, 4, 3, 3) ", %b: " F(8, 1, 1),
     "nn.relu(add(nn.conv2d(%x, %w, padding=[1, 1, 1, 1]), %b))", "conv2d_nchw", true},
    {"%x: " F(2, 3, 9, 7) ", %w: " F(5, 3, 3, 3), "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1])",
     "conv2d_nchw", true},
    {"%x: " F(1, 6, 8, 4) ", %w: " F(3, 3, 4, 16),
     "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")", "conv2d_nhwc", true},
    {"%x: " F(1, 5, 5, 3) ", %w: " F(6, 3, 3, 3),
     "nn.conv2d(%x, %w, strides=[2, 2], data_layout=\"NHWC\", kernel_layout=\"OHWI\")", "conv2d_nhwc", true},
    {"%x: " F(1, 8, 6, 12) ", %w: " F(8, 1, 3, 3), "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=8)",
     "depthwise_conv2d_nchw", true},
    {"%x: " F(1, 6, 5, 8) ", %w: " F(3, 3, 8, 1),
     "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=8, data_layout=\"NHWC\", kernel_layout=\"HWOI\")",
     "depthwise_conv2d_nhwc", true},
    {"%x: " F(1, 4, 7, 7) ", %w: " F(6, 2, 3, 3), "nn.conv2d(%x, %w, padding=[1, 1], groups=2, dilation=[2, 2])",
     "group_conv2d_nchw", true},
    {"%x: " F(1, 96) ", %w: " F(32, 96) ", %b: " F(32), "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))", "matmul_lanes",
     true},
    {"%x: " F(3, 64) ", %w: " F(7, 64), "nn.dense(%x, %w)", "matmul_lanes", true},
    {"%x: " F(2, 4, 72) ", %y: " F(2, 8, 72), "nn.batch_matmul(%x, %y)", "matmul_lanes", true},
    {"%x: " F(1, 1, 1, 200) ", %w: " F(6, 1, 1, 64), "nn.conv2d(%x, %w, strides=[1, 40])", "conv2d_lanes", true},
    {"%x: " F(1, 3, 4, 8) ", %w: " F(3, 8, 2, 2) ", %b: " F(8, 1, 1),
     "sigmoid(add(nn.conv2d_transpose(%x, %w, channels=8, kernel_size=[2, 2], strides=[2, 2], kernel_layout=\"IOHW\"), %b))",
     "conv2d_transpose_nchw", true},
    {"%x: " F(1, 2, 5, 4) ", %w: " F(2, 3, 3, 3),
     "nn.conv2d_transpose(%x, %w, channels=3, kernel_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], "
     "output_padding=[1, 1], kernel_layout=\"IOHW\")",
     "conv2d_transpose_nchw", true},
    {"%x: " F(1, 4, 3, 3) ", %w: " F(4, 1, 3, 3),
     "nn.conv2d_transpose(%x, %w, channels=2, kernel_size=[3, 3], groups=2, dilation=[2, 2], kernel_layout=\"IOHW\")",
     "reduce", false},
    {"%a: " F(1, 4, 8, 8), "nn.max_pool2d(%a, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])", "pool", false},
    {"%a: " F(2, 4, 6, 6), "nn.avg_pool2d(%a, pool_size=[2, 2], strides=[2, 2])", "pool", true},
    {"%a: " F(2, 3, 4, 5), "nn.global_avg_pool2d(%a)", "pool", false},
    {"%a: " F(4, 6, 8), "sum(%a, axis=[1])", "reduce", false},
    {"%a: " F(4, 6, 8), "mean(%a, axis=[2], keepdims=True)", "reduce", false},
    {"%a: " F(4, 6, 8), "mean(%a, axis=[1])", "reduce", true},
    {"%a: " F(5, 7), "max(%a)", "reduce", false},
    {"%a: " F(3, 4, 16), "nn.softmax(%a)", "softmax", false},
    {"%a: " F(3, 4, 16), "nn.log_softmax(%a)", "softmax", false},
    {"%a: " F(3, 4, 5), "nn.softmax(%a, axis=1)", "softmax", false},
    {"%a: " F(2, 3, 32) ", %b: " F(32), "transpose(exp(add(%a, %b)), axes=[1, 0, 2])", "injective", true},
    {"%a: " F(2, 3, 4, 5, 6) ", %b: " F(6), "nn.relu(multiply(%a, %b))", "injective", true},
    {"%a: " F(7) ", %b: " F(7), "sigmoid(subtract(%a, %b))", "injective", true},
    {"%a: " I(6, 16) ", %b: " I(16), "floor_mod(add(%a, %b), 3)", "injective", true},
};

/* The TE tests' cases: every op with a compute. */
typedef struct te_case {
  const char *params, *body;
  double lo, hi;
} te_case;
static const te_case te_cases[] = {
#include "te_cases.h"
};

static psg_expr *primitive(psg_ctx *ctx, const char *params, const char *body, psg_module **keep) {
  char text[4096];
  snprintf(text, sizeof text, HDR "def @main(%s) {\n  %s\n}\n", params, body);
  psg_module *m = parse(ctx, text), *typed = m ? run(ctx, "InferType", NULL, m) : NULL;
  psg_module_release(m);
  *keep = typed;
  if (!typed) return NULL;
  psg_expr *f = psg_module_lookup(typed, "main");
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

typedef struct kinds_seen {
  int vectorized, parallel, loops;
} kinds_seen;

static int count_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  kinds_seen *k = v->user;
  if (psg_tir_kind(n) == PSG_TIR_FOR) {
    k->vectorized += psg_tir_for_kind(n) == PSG_TIR_FOR_VECTORIZED;
    k->parallel += psg_tir_for_kind(n) == PSG_TIR_FOR_PARALLEL;
    psg_tir_expr *ext = psg_tir_for_get_extent((const psg_tir_stmt *)n);
    k->loops += !(psg_tir_kind((const psg_tir_node *)ext) == PSG_TIR_INT_IMM && psg_tir_int_imm_value(ext) <= 1);
  }
  return PSG_VISIT_CONTINUE;
}

static const char *schedule_attr(const psg_tir_prim_func *f) {
  psg_attr *a = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "passage.schedule");
  return a ? psg_attr_get_string(a) : NULL;
}

/* Lowers (params) { body }, schedules it and checks it against the naive
 * nests; returns the kind (static) or NULL. */
static const char *check_one(const char *params, const char *body, bool *vectorized, uint64_t seed, bool evaluate) {
  int failures = check_failures;
  psg_module *keep = NULL;
  psg_expr *fn = primitive(TB.ctx, params, body, &keep);
  psg_tir_prim_func *naive = NULL, *sched = NULL;
  const char *kind = NULL;
  if (fn) CHECK_OK(psg_te_lower_primitive(TB.ctx, fn, "fused", &naive));
  size_t before = psg_ctx_diag_count(TB.ctx);
  if (naive) CHECK_OK(psgi_default_schedule(TB.ctx, naive, &sched, &kind));
  CHECK_EQ_INT(psg_ctx_diag_count(TB.ctx), before); /* a refused step leaves no diagnostic */
  if (sched) {
    CHECK_STR(schedule_attr(sched), kind);
    kinds_seen k = {0, 0, 0};
    psg_tir_visitor v = {.pre = count_pre, .user = &k};
    CHECK_OK(psg_tir_visit(TB.ctx, &v, sched));
    *vectorized = k.vectorized > 0;
    /* a scheduled function has a parallel or vectorized loop, unless it has no loop of more than one
     * iteration (a 0-d or one-element output: nothing to split) */
    if (strcmp(kind, "naive")) CHECK(k.parallel > 0 || k.vectorized > 0 || k.loops == 0 || !strcmp(kind, "reduce"));
    psg_tir_prim_func *n = tb_keep(PSG_OK, &naive), *s = tb_keep(PSG_OK, &sched);
    if (evaluate) {
      eq_check_same(n, s, 0, 2, seed);
      /* VectorizeLoop's Ramp / Broadcast form computes the same */
      psg_tir_prim_func *vec = eq_run_pass("tir.VectorizeLoop", NULL, s, NULL);
      if (vec) eq_check_same(n, vec, 0, 1, seed + 1);
    } else {
      CHECK_OK(psg_tir_verify_well_formed(s));
    }
    if (check_failures != failures) {
      char *a = eq_print(s);
      fprintf(stderr, "case (%s) { %s }: kind %s\n%s\n", params, body, kind, a ? a : "");
      psg_free(a);
    }
  } else {
    psg_tir_release(naive);
  }
  psg_expr_release(fn);
  psg_module_release(keep);
  return kind;
}

static void test_kinds(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    bool vec = false;
    const char *kind = check_one(kinds[i].params, kinds[i].body, &vec, 77 + i, true);
    CHECK_STR(kind, kinds[i].kind);
    if (!kind || strcmp(kind, kinds[i].kind) || vec != kinds[i].vectorized)
      fprintf(stderr, "  case %zu { %s }: kind %s, vectorized %d\n", i, kinds[i].body, kind ? kind : "-", vec);
    CHECK(vec == kinds[i].vectorized);
  }
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
}

/* Every op with a compute: scheduled or left naive, always the same outputs. */
static void test_every_te_case(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  size_t scheduled = 0, n = sizeof te_cases / sizeof *te_cases;
  for (size_t i = 0; i < n; i++) {
    bool vec = false;
    /* The interpreter harness draws ints in [-100, 100]: a case whose int
     * inputs must stay in a range (indices of take and gather_nd) is only
     * scheduled and verified here; test_te runs it in range. */
    bool ranged_ints = te_cases[i].lo != te_cases[i].hi && strstr(te_cases[i].params, "int32");
    const char *kind = check_one(te_cases[i].params, te_cases[i].body, &vec, 1000 + i, !ranged_ints);
    CHECK(kind != NULL);
    scheduled += kind && strcmp(kind, "naive") != 0;
  }
  /* the families cover the corpus: only a handful stay naive */
  CHECK(scheduled + 8 >= n);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
}

/* A family that cannot apply: the naive function, marked, no diagnostic. */
static void test_fallback(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  psg_module *keep = NULL;
  psg_expr *fn = primitive(ctx, "%a: " F(4, 8) ", %b: " F(8), "nn.relu(add(%a, %b))", &keep);
  psg_tir_prim_func *naive = NULL, *fake = NULL, *out = NULL, *bare = NULL;
  CHECK_OK(psg_te_lower_primitive(ctx, fn, "fused", &naive));
  /* the add stage claimed to be a dense: the matmul family finds no reduction */
  const char *keys[3] = {"buffer", "op", "pattern"};
  const char *vals[2][3] = {{"T_add", "nn.dense", "out_elemwise_fusable"}, {"T_relu", "nn.relu", "elemwise"}};
  psg_attr *items[2] = {NULL, NULL}, *list = NULL, *none = NULL;
  for (int s = 0; s < 2; s++) {
    psg_attr *v[3];
    for (int k = 0; k < 3; k++) CHECK_OK(psg_attr_string(ctx, vals[s][k], strlen(vals[s][k]), &v[k]));
    psg_attrs *d = NULL;
    CHECK_OK(psg_attrs_create(ctx, keys, v, 3, &d));
    CHECK_OK(psg_attr_dict(ctx, d, &items[s]));
    psg_attrs_release(d);
    for (int k = 0; k < 3; k++) psg_attr_release(v[k]);
  }
  CHECK_OK(psg_attr_list(ctx, items, 2, &list));
  CHECK_OK(psg_tir_prim_func_with_attr(naive, "passage.te_stages", list, &fake));
  const char *kind = NULL;
  size_t before = psg_ctx_diag_count(ctx);
  CHECK_OK(psgi_default_schedule(ctx, fake, &out, &kind));
  CHECK_STR(kind, "naive");
  CHECK_STR(schedule_attr(out), "naive");
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), before);
  /* the body is the naive one */
  CHECK(out && fake && psg_tir_get_body(out) == psg_tir_get_body(fake));
  psg_tir_release(out);
  out = NULL;
  /* no stage tags (a PrimFunc not made by TE): naive too */
  CHECK_OK(psg_attr_none(ctx, &none));
  CHECK_OK(psg_tir_prim_func_with_attr(naive, "passage.te_stages", none, &bare));
  CHECK_OK(psgi_default_schedule(ctx, bare, &out, &kind));
  CHECK_STR(kind, "naive");
  psg_tir_release(out);
  psg_tir_release(bare);
  psg_attr_release(none);
  for (int s = 0; s < 2; s++) psg_attr_release(items[s]);
  psg_attr_release(list);
  psg_tir_release(fake);
  psg_tir_release(naive);
  psg_expr_release(fn);
  psg_module_release(keep);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
}

/* LowerTE schedules by default; its option and the config key turn it off. */
static const char *lowered_kind(psg_ctx *ctx, const char *option, const char *config) {
  static char kind_buf[64];
  psg_module *m = parse(ctx, HDR "def @main(%x: " F(4, 16) ", %w: " F(8, 16) ") {\n  nn.dense(%x, %w)\n}\n");
  psg_module *fused = m ? run(ctx, "FuseOps", NULL, m) : NULL, *out = NULL;
  psg_attrs *opts = NULL;
  if (option) {
    psg_attr *no = NULL;
    CHECK_OK(psg_attr_bool(ctx, false, &no));
    CHECK_OK(psg_attrs_create(ctx, &option, &no, 1, &opts));
    psg_attr_release(no);
  }
  psg_pass_context *pc = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  if (config) CHECK_OK(psg_pass_context_set_config_text(pc, config));
  CHECK_OK(psg_pass_get(ctx, "LowerTE", opts, &p));
  if (p && fused) CHECK_OK(psg_pass_run(p, fused, pc, &out));
  const char *kind = NULL;
  psg_tir_prim_func *f = out ? psg_module_lookup_prim_func(out, "tvmgen_default_fused_nn_dense") : NULL;
  CHECK(f != NULL);
  if (f && schedule_attr(f)) kind = strncpy(kind_buf, schedule_attr(f), sizeof kind_buf - 1);
  psg_pass_release(p);
  psg_pass_context_release(pc);
  psg_attrs_release(opts);
  psg_module_release(out);
  psg_module_release(fused);
  psg_module_release(m);
  return kind; /* valid until the next call */
}

static void test_lower_te_switch(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_STR(lowered_kind(ctx, NULL, NULL), "dense");
  CHECK(lowered_kind(ctx, "default_schedule", NULL) == NULL);
  CHECK(lowered_kind(ctx, NULL, "passage.lower.use_default_schedule=false") == NULL);
  CHECK_STR(lowered_kind(ctx, NULL, "passage.lower.use_default_schedule=true"), "dense");
  CHECK_CTX_CLEAN(ctx);
}

/* Out of memory at any allocation of a schedule: a clean failure. */
static void test_oom(void) {
  for (long fail_at = 1; fail_at < 10000000; fail_at += 1 + fail_at / 6) {
    check_alloc a = {.fail_at = 0};
    psg_ctx *ctx = check_ctx_with(&a);
    psg_module *keep = NULL;
    psg_expr *fn = primitive(ctx, "%x: " F(1, 4, 8, 16) ", %w: " F(8, 4, 3, 3),
                             "nn.relu(nn.conv2d(%x, %w, padding=[1, 1, 1, 1]))", &keep);
    psg_tir_prim_func *naive = NULL, *out = NULL;
    CHECK_OK(psg_te_lower_primitive(ctx, fn, "fused", &naive));
    a.fail_at = a.calls + fail_at;
    const char *kind = NULL;
    psg_status st = psgi_default_schedule(ctx, naive, &out, &kind);
    bool hit = a.calls >= a.fail_at;
    a.fail_at = 0;
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    CHECK((st == PSG_OK) == (out != NULL));
    psg_tir_release(out);
    psg_tir_release(naive);
    psg_expr_release(fn);
    psg_module_release(keep);
    CHECK_CTX_CLEAN(ctx);
    if (!hit) break;
  }
}

int main(void) {
  RUN_TEST(test_kinds);
  RUN_TEST(test_every_te_case);
  RUN_TEST(test_fallback);
  RUN_TEST(test_lower_te_switch);
  RUN_TEST(test_oom);
  return check_finish();
}
