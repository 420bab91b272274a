/* Passage — PrimFuncPass (issue 15 item 6): the callback runs once per
 * PrimFunc of a mixed module, Relay functions are never shown to it and stay
 * the very same nodes, a NULL result removes the function, a non-PrimFunc
 * result is a pass failure; a Sequential mixing Relay function passes and
 * PrimFuncPasses runs each on its own kind; instruments and timing see the
 * PrimFuncPass. */
#include "test_pass_fixtures.h"
#include "tir_fixtures.h"

static int prim_calls, relay_calls;

/* The module `main` (a Relay function) with PrimFuncs @p1 and @p2. */
static psg_module *mixed(psg_ctx *ctx) {
  static const char relay[] =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] { negative(%x) }\n";
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, relay, strlen(relay), "mixed.relay", &m));
  const char *names[] = {"p1", "p2"};
  for (int i = 0; i < 2; i++) {
    psg_tir_prim_func *f = fx_add_const(ctx, i + 1.0);
    psg_expr *gv = NULL;
    psg_module *next = NULL;
    CHECK_OK(psg_global_var_create(ctx, names[i], NULL, &gv));
    CHECK_OK(psg_module_add_prim_func(m, gv, f, &next));
    psg_expr_release(gv);
    psg_tir_release(f);
    psg_module_release(m);
    m = next;
  }
  return m;
}

/* Marks the first PrimFunc it sees (attr "marked"), removes the second. */
static psg_status mark_then_remove(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                   psg_tir_prim_func **out) {
  (void)mod;
  (void)pc;
  (void)user;
  *out = NULL;
  if (prim_calls++ > 0) return PSG_OK;
  psg_attr *one = NULL;
  psg_status st = psg_attr_int(psg_tir_get_ctx(f), 1, &one);
  if (!st) st = psg_tir_prim_func_with_attr(f, "marked", one, out);
  psg_attr_release(one);
  return st;
}

static psg_status identity_prim(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                psg_tir_prim_func **out) {
  (void)mod;
  (void)pc;
  (void)user;
  prim_calls++;
  psg_tir_retain(f);
  *out = f;
  return PSG_OK;
}

static psg_status count_relay(psg_expr *f, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  relay_calls++;
  psg_expr_retain(f);
  *out = f;
  return PSG_OK;
}

/* Returns the PrimFunc's body: not a PrimFunc. */
static psg_status returns_body(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                               psg_tir_prim_func **out) {
  (void)mod;
  (void)pc;
  (void)user;
  *out = psg_tir_get_body(f);
  psg_tir_retain(*out);
  return PSG_OK;
}

static psg_pass *prim_pass(psg_ctx *ctx, const char *name, psg_prim_func_pass_fn fn) {
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, name, 0, NULL, 0, &info));
  CHECK_OK(psg_create_prim_func_pass(ctx, info, fn, NULL, NULL, &p));
  psg_pass_info_release(info);
  return p;
}

static void test_once_per_prim_func(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = mixed(ctx), *out = NULL;
  psg_expr *relay_before = psg_module_lookup(m, "main");
  psg_pass *p = prim_pass(ctx, "MarkThenRemove", mark_then_remove);
  prim_calls = 0;
  CHECK_OK(psg_pass_run(p, m, NULL, &out));
  CHECK_EQ_INT(prim_calls, 2);
  if (out) {
    CHECK_EQ_INT(psg_module_num_functions(out), 2);
    CHECK(psg_module_lookup(out, "main") == relay_before); /* untouched */
    psg_tir_prim_func *p1 = psg_module_lookup_prim_func(out, "p1");
    CHECK(p1 && p1 != psg_module_lookup_prim_func(m, "p1"));
    CHECK(p1 && psg_tir_prim_func_get_attrs(p1) && psg_attrs_get(psg_tir_prim_func_get_attrs(p1), "marked"));
    CHECK(psg_module_lookup_prim_func(out, "p2") == NULL); /* removed */
  }
  psg_module_release(out);
  /* Every PrimFunc back as itself: the very same module. */
  psg_pass *id = prim_pass(ctx, "Identity", identity_prim);
  CHECK_OK(psg_pass_run(id, m, NULL, &out));
  CHECK(out == m);
  psg_module_release(out);
  /* A result that is not a PrimFunc. */
  psg_pass *bad = prim_pass(ctx, "ReturnsBody", returns_body);
  CHECK_EQ_INT(psg_pass_run(bad, m, NULL, &out), PSG_ERR_PASS_FAILED);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "prim_func pass 'ReturnsBody' returned a For for @p1"));
  psg_pass_release(bad);
  psg_pass_release(id);
  psg_pass_release(p);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_sequential_mixes_kinds(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = mixed(ctx), *out = NULL;
  psg_pass_info *info = NULL;
  psg_pass *relay = NULL, *seq = NULL, *prim = prim_pass(ctx, "CountPrim", identity_prim);
  CHECK_OK(psg_pass_info_create(ctx, "CountRelay", 0, NULL, 0, &info));
  CHECK_OK(psg_create_function_pass(ctx, info, count_relay, NULL, NULL, &relay));
  psg_pass_info_release(info);
  CHECK_OK(psg_sequential(ctx, (psg_pass *[]){relay, prim, relay}, 3, NULL, &seq));
  fx_logger l = {0};
  strcpy(l.name, "log");
  psg_instrument *log = fx_instrument(ctx, &l), *timing = NULL;
  CHECK_OK(psg_timing_instrument_create(ctx, &timing));
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_add_instrument(pc, log));
  CHECK_OK(psg_pass_context_add_instrument(pc, timing));
  CHECK_OK(psg_pass_context_enter(pc));
  fx_events[0] = 0;
  prim_calls = relay_calls = 0;
  CHECK_OK(psg_pass_run(seq, m, pc, &out));
  CHECK_EQ_INT(relay_calls, 2); /* main, twice: never a PrimFunc */
  CHECK_EQ_INT(prim_calls, 2);  /* p1 and p2: never main */
  CHECK(out == m);
  CHECK(strstr(fx_events, "log run_before CountPrim;log run_after CountPrim;") != NULL);
  char *t = psg_timing_render(timing);
  CHECK(t && strstr(t, "CountPrim"));
  psg_free(t);
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  psg_instrument_release(log);
  psg_instrument_release(timing);
  psg_module_release(out);
  psg_pass_release(seq);
  psg_pass_release(relay);
  psg_pass_release(prim);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_once_per_prim_func);
  RUN_TEST(test_sequential_mixes_kinds);
  return check_finish();
}
