/* Passage — tir.VectorizeLoop (src/tir/transforms/vectorize_loop.c): the
 * vector forms it makes (Ramp indices, Broadcast operands, vector lets,
 * if_then_else, casts, intrinsics), what it scalarizes (vector `if`
 * conditions, calls that do not vectorize, vector extents), allocations per
 * lane, the errors, enable_vectorize=false and tir.disable_vectorize; that
 * results are kept (the TIR interpreter before and after, bytewise, on the
 * hand-written cases and 400 random loop nests) and every output passes
 * verify_well_formed. */
#include "tir/transforms/tir_transforms.h"
#include "tir_loop_check.h"

typedef struct census {
  int loops, vectorized, ramps, broadcasts, vector_stores, predicated;
} census;
static int census_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  census *c = v->user;
  switch (psg_tir_kind(n)) {
  case PSG_TIR_FOR:
    c->loops++;
    c->vectorized += psg_tir_for_kind(n) == PSG_TIR_FOR_VECTORIZED;
    break;
  case PSG_TIR_RAMP: c->ramps++; break;
  case PSG_TIR_BROADCAST: c->broadcasts++; break;
  case PSG_TIR_BUFFER_STORE:
    c->vector_stores += psg_tir_dtype_lanes(psg_tir_dtype_of(psg_tir_buffer_store_get_value(n))) > 1;
    c->predicated += psg_tir_get_predicate(n) != NULL;
    break;
  case PSG_TIR_BUFFER_LOAD: c->predicated += psg_tir_get_predicate(n) != NULL; break;
  default: break;
  }
  return PSG_VISIT_CONTINUE;
}
static census count(const psg_tir_node *f) {
  census c = {0};
  psg_tir_visitor v = {.pre = census_pre, .user = &c};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return c;
}

static psg_tir_prim_func *vectorize_pred(const char *text, bool enable, bool predicate, const char *label) {
  psg_tir_prim_func *f = lc_parse(text), *g = NULL;
  if (!f) return NULL;
  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, f, enable, predicate, &g));
  lc_same(f, g, label);
  psg_tir_release(f);
  return g;
}

static psg_tir_prim_func *vectorize_text(const char *text, bool enable, const char *label) {
  return vectorize_pred(text, enable, false, label);
}

/* `expected` parsed equals the rewrite of `before`. */
static void expect(const char *before, const char *expected, const char *label) {
  psg_tir_prim_func *g = vectorize_text(before, true, label), *e = lc_parse(expected);
  char *path = NULL;
  bool eq = g && e && psg_tir_structural_equal_explain(g, e, &path);
  if (!eq) {
    fprintf(stderr, "  %s: %s\n", label, path ? path : "?");
    lc_print("got", g);
    lc_print("expected", e);
  }
  CHECK(eq);
  psg_free(path);
  psg_tir_release(g);
  psg_tir_release(e);
}

#define HEAD "@T.prim_func\ndef main(A: T.Buffer((25,), \"float32\"), B: T.Buffer((25,), \"float32\"), n: T.int32):\n"

static void test_vector_forms(void) {
  tb_init(check_ctx());
  expect(HEAD "    for j in T.vectorized(4):\n        A[j] = T.float32(1)\n",
         HEAD "    A[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(1), 4)\n", "store");
  expect(HEAD "    for i in range(n):\n        for j in T.vectorized(4):\n"
              "            A[i * 4 + j] = T.if_then_else(i > 0, B[i * 4 + j], T.float32(0))\n",
         HEAD "    for i in range(n):\n"
              "        A[T.Ramp(i * 4, 1, 4)] = T.if_then_else(i > 0, B[T.Ramp(i * 4, 1, 4)], T.Broadcast(T.float32(0), 4))\n",
         "if_then_else with a scalar condition");
  expect(HEAD "    for j in T.vectorized(4):\n        v = A[j] + T.float32(1)\n        A[j] = v * T.float32(2)\n",
         HEAD "    v = A[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1), 4)\n"
              "    A[T.Ramp(0, 1, 4)] = v * T.Broadcast(T.float32(2), 4)\n",
         "let");
  expect(HEAD "    for j in T.vectorized(4):\n        A[j * 2] = T.exp(B[j]) + T.Select(B[j] < T.float32(0), B[j], B[j + 4])\n",
         HEAD "    A[T.Ramp(0, 2, 4)] = T.exp(B[T.Ramp(0, 1, 4)]) + T.Select(B[T.Ramp(0, 1, 4)] < T.Broadcast(T.float32(0), 4), "
              "B[T.Ramp(0, 1, 4)], B[T.Ramp(4, 1, 4)])\n",
         "intrinsic, select, Ramp * c");
  expect(HEAD "    for j in T.vectorized(4):\n        A[n + j] = T.Cast(\"float32\", j)\n",
         HEAD "    A[T.Ramp(n, 1, 4)] = T.Cast(\"float32x4\", T.Ramp(0, 1, 4))\n", "cast, n + Ramp");
  expect(HEAD "    for j in T.vectorized(4):\n        A[0] = B[j]\n",
         HEAD "    A[T.Broadcast(0, 4)] = B[T.Ramp(0, 1, 4)]\n", "a scalar index broadcast");
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_scalarize(void) {
  tb_init(check_ctx());
  expect(HEAD "    for i in T.vectorized(4):\n"
              "        if n < 7:\n            A[i] = A[i] + T.float32(1)\n"
              "        else:\n            if i < n:\n                A[i] = T.float32(2)\n",
         HEAD "    if n < 7:\n        A[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1), 4)\n"
              "    else:\n        for i_s in range(4):\n            if i_s < n:\n                A[i_s] = T.float32(2)\n",
         "a vector condition scalarizes its if");
  expect(HEAD "    for i in T.vectorized(4):\n        A[i] = T.if_then_else(i > 0, A[i] + T.float32(1), A[i])\n",
         HEAD "    for i_s in range(4):\n        A[i_s] = T.if_then_else(i_s > 0, A[i_s] + T.float32(1), A[i_s])\n",
         "if_then_else with a vector condition");
  expect(HEAD "    for i in T.vectorized(4):\n        A[i] = T.atan(B[i])\n",
         HEAD "    for i_s in range(4):\n        A[i_s] = T.atan(B[i_s])\n", "a call that does not vectorize");
  /* a vector let used by a scalarized statement is bound again inside */
  psg_tir_prim_func *g = vectorize_text(HEAD "    for i in T.vectorized(4):\n        v = B[i] * T.float32(2)\n"
                                             "        A[i] = T.atan(v)\n        B[i] = v\n",
                                        true, "let under a scalarized statement");
  census c = count(g);
  CHECK_EQ_INT(c.loops, 1);
  CHECK_EQ_INT(c.vector_stores, 1);
  psg_tir_release(g);
  /* an inner loop whose extent becomes a vector */
  g = vectorize_text("@T.prim_func\ndef main(A: T.Buffer((16,), \"int32\")):\n"
                     "    for i in T.vectorized(4):\n        for j in range(i):\n            A[i * 4 + j] = j\n",
                     true, "vector extent");
  c = count(g);
  CHECK_EQ_INT(c.loops, 2);
  CHECK_EQ_INT(c.ramps, 0);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_allocate_per_lane(void) {
  tb_init(check_ctx());
  static const char ALLOC[] =
      "@T.prim_func\n"
      "def main(A: T.Buffer((8,), \"int32\"), B: T.Buffer((8,), \"int32\")):\n"
      "    for i in T.vectorized(8):\n"
      "        t_data = T.allocate([2], \"int32\", \"local\")\n"
      "        t = T.Buffer((2,), \"int32\", data=t_data, scope=\"local\")\n"
      "        t[0] = A[i] * 3\n"
      "        t[1] = t[0] + i\n"
      "        B[i] = t[1] - t[0]\n";
  psg_tir_prim_func *g = vectorize_text(ALLOC, true, "allocate");
  census c = count(g);
  CHECK_EQ_INT(c.loops, 0);
  CHECK_EQ_INT(c.vector_stores, 3);
  if (g) {
    const psg_tir_node *alloc = psg_tir_get_body(g);
    CHECK(psg_tir_kind(alloc) == PSG_TIR_ALLOCATE && psg_tir_int_imm_value(psg_tir_allocate_get_extent(alloc, 0)) == 16);
  }
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_errors_and_disable(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse("@T.prim_func\ndef main(A: T.Buffer((25,), \"int32\"), n: T.int32):\n"
                                  "    for j in T.vectorized(n):\n        A[j] = 3\n"),
                    *g = NULL;
  CHECK_EQ_INT(psgi_tir_vectorize_loop(TB.ctx, f, true, false, &g), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("Failed to vectorize loop with extent n for target (nullptr)"));
  psg_ctx_clear_diags(TB.ctx);
  CHECK(g == NULL);
  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, f, false, false, &g)); /* off: a serial loop */
  CHECK(g && psg_tir_for_kind(psg_tir_get_body(g)) == PSG_TIR_FOR_SERIAL);
  lc_same(f, g, "disabled");
  psg_tir_release(g);
  psg_tir_release(f);
  f = lc_parse("@T.prim_func\ndef main(A: T.Buffer((25,), \"int32\"), n: T.int32):\n"
               "    for j in T.vectorized(4):\n        while A[j] < n:\n            A[j] = A[j] + 1\n");
  g = NULL;
  CHECK_EQ_INT(psgi_tir_vectorize_loop(TB.ctx, f, true, false, &g), PSG_ERR_UNSUPPORTED);
  CHECK(tb_error_has("A while loop inside a vectorized loop not supported"));
  psg_ctx_clear_diags(TB.ctx);
  psg_tir_release(f);

  /* The registered pass: the option and the config both turn it off. */
  f = lc_parse(HEAD "    for j in T.vectorized(4):\n        A[j] = B[j]\n");
  psg_module *m = NULL, *m1 = NULL, *out = NULL;
  psg_expr *gv = NULL;
  CHECK_OK(psg_module_create(TB.ctx, &m));
  CHECK_OK(psg_global_var_create(TB.ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m, gv, f, &m1));
  psg_pass *on = NULL, *off = NULL;
  CHECK_OK(psg_pass_get(TB.ctx, "tir.VectorizeLoop", NULL, &on));
  psg_attrs *opts = NULL;
  psg_attr *no = NULL;
  CHECK_OK(psg_attr_bool(TB.ctx, false, &no));
  CHECK_OK(psg_attrs_create(TB.ctx, (const char *[]){"enable_vectorize"}, &no, 1, &opts));
  CHECK_OK(psg_pass_get(TB.ctx, "tir.VectorizeLoop", opts, &off));
  CHECK_OK(psg_pass_run(on, m1, NULL, &out));
  CHECK_EQ_INT(out ? count(psg_module_lookup_prim_func(out, "main")).vector_stores : -1, 1);
  psg_module_release(out);
  CHECK_OK(psg_pass_run(off, m1, NULL, &out));
  CHECK_EQ_INT(out ? count(psg_module_lookup_prim_func(out, "main")).loops : -1, 1);
  psg_module_release(out);
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_pass_context_set_config_text(pc, "tir.disable_vectorize=true"));
  CHECK_OK(psg_pass_context_enter(pc));
  CHECK_OK(psg_pass_run(on, m1, NULL, &out));
  CHECK_OK(psg_pass_context_exit(pc));
  census c = count(out ? psg_module_lookup_prim_func(out, "main") : NULL);
  CHECK_EQ_INT(c.loops, 1);
  CHECK_EQ_INT(c.vectorized, 0);
  psg_module_release(out);
  psg_pass_context_release(pc);
  psg_attr_release(no);
  psg_attrs_release(opts);
  psg_pass_release(on);
  psg_pass_release(off);
  psg_expr_release(gv);
  psg_module_release(m);
  psg_module_release(m1);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* tir.enable_buffer_level_predication: `if base + i < limit` in a
 * vectorized loop predicates the accesses when every one of them starts at
 * base, else the if is scalarized as without it. */
static void test_buffer_level_predication(void) {
  tb_init(check_ctx());
#define PRED_HEAD "@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n" \
                  "    for i_0 in range(4):\n        for i_1 in T.vectorized(4):\n"
  static const char ALL[] = PRED_HEAD "            if i_0 * 4 + i_1 < 14:\n"
                                      "                B[i_0 * 4 + i_1] = A[i_0 * 4 + i_1] + T.float32(1)\n"
                                      "                A[i_0 * 4 + i_1] = T.float32(2)\n";
  static const char SOME[] = PRED_HEAD "            if i_0 * 4 + i_1 < 14:\n"
                                       "                B[i_0 * 4 + i_1] = A[i_0] + T.float32(1)\n";
  static const char GREATER[] = PRED_HEAD "            if i_0 * 4 + i_1 > 14:\n"
                                          "                B[i_0 * 4 + i_1] = T.float32(1)\n";
  psg_tir_prim_func *g = vectorize_pred(ALL, true, true, "all predicated");
  census c = count(g);
  CHECK_EQ_INT(c.loops, 1);
  CHECK_EQ_INT(c.predicated, 3);
  CHECK_EQ_INT(c.vector_stores, 2);
  psg_tir_release(g);
  g = vectorize_pred(ALL, true, false, "predication off");
  c = count(g);
  CHECK_EQ_INT(c.loops, 2); /* scalarized */
  CHECK_EQ_INT(c.predicated, 0);
  psg_tir_release(g);
  g = vectorize_pred(SOME, true, true, "some predicated");
  c = count(g);
  CHECK_EQ_INT(c.loops, 2);
  CHECK_EQ_INT(c.predicated, 0);
  psg_tir_release(g);
  g = vectorize_pred(GREATER, true, true, "not a < condition");
  c = count(g);
  CHECK_EQ_INT(c.loops, 2);
  CHECK_EQ_INT(c.predicated, 0);
  psg_tir_release(g);
#undef PRED_HEAD
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_random_nests(void) {
  tb_init(check_ctx());
  static const char *const kinds[] = {"range", "T.vectorized", "T.vectorized", "T.unroll"};
  int vector = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    char *text = lc_random_func(seed, kinds, 4);
    psg_tir_prim_func *f = lc_parse(text);
    for (int enable = 0; f && enable < 2; enable++) {
      psg_tir_prim_func *g = NULL;
      psg_status st = psgi_tir_vectorize_loop(TB.ctx, f, enable, false, &g);
      CHECK_OK(st);
      if (st) {
        fprintf(stderr, "  seed %llu: %s\n%s\n", (unsigned long long)seed,
                psg_ctx_get_last_error(TB.ctx) ? psg_diag_message(psg_ctx_get_last_error(TB.ctx)) : "?", text);
        psg_ctx_clear_diags(TB.ctx);
      }
      char label[64];
      snprintf(label, sizeof label, "seed %llu enable %d", (unsigned long long)seed, enable);
      if (g && !lc_same(f, g, label)) fprintf(stderr, "%s\n", text);
      if (g && enable) vector += count(g).vector_stores > 0;
      if (g && !enable) CHECK_EQ_INT(count(g).vectorized, 0);
      psg_tir_release(g);
    }
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  CHECK(vector > 150); /* most nests have vector stores after the pass */
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_vector_forms);
  RUN_TEST(test_scalarize);
  RUN_TEST(test_allocate_per_lane);
  RUN_TEST(test_errors_and_disable);
  RUN_TEST(test_buffer_level_predication);
  RUN_TEST(test_random_nests);
  return check_finish();
}
