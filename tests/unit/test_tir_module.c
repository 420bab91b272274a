/* Passage — PrimFuncs in an IRModule next to Relay functions: adding,
 * looking up, updating, structural equality and hashing of mixed modules,
 * and every registered Relay pass run over a mixed module: it behaves as on
 * the Relay functions alone and keeps the PrimFunc as it is. */
#include "tir_fixtures.h"

static const char *RELAY =
    "#[version = \"0.0.5\"]\n"
    "def @helper(%y: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {\n"
    "  let %z = multiply(%y, %y);\n"
    "  if (True) { %z } else { add(%z, %y) }\n"
    "}\n"
    "def @main(%x: Tensor[(2, 2), float32]) {\n"
    "  %0 = add(%x, %x);\n"
    "  %1 = @helper(%0);\n"
    "  (fn (%w: Tensor[(2, 2), float32]) { subtract(%w, %x) })(%1)\n"
    "}\n";

static psg_module *relay_module(psg_ctx *ctx) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, RELAY, strlen(RELAY), "mixed.relay", &m));
  return m;
}

/* The Relay module with PrimFunc `f` added as @add_one. */
static psg_module *mixed_module(psg_ctx *ctx, psg_tir_prim_func *f) {
  psg_module *m = relay_module(ctx), *out = NULL;
  psg_expr *gv;
  CHECK_OK(psg_global_var_create(ctx, "add_one", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m, gv, f, &out));
  psg_expr_release(gv);
  psg_module_release(m);
  return out;
}

static void test_entries(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *g = fx_add_const(ctx, 2.0);
  psg_module *m = mixed_module(ctx, f), *m2 = NULL, *m3 = NULL;
  CHECK_EQ_INT(psg_module_num_functions(m), 3);
  CHECK(psg_module_get_function(m, 2) == NULL);
  CHECK(psg_module_get_prim_func(m, 2) == f);
  CHECK(psg_module_get_prim_func(m, 0) == NULL);
  CHECK(psg_module_lookup(m, "add_one") == NULL);
  CHECK(psg_module_lookup_prim_func(m, "add_one") == f);
  CHECK(psg_module_lookup_prim_func(m, "main") == NULL);
  CHECK_STR(psg_global_var_name(psg_module_get_global_var(m, 2)), "add_one");
  /* a taken name */
  psg_expr *gv, *main_gv = psg_module_get_global_var(m, 1);
  CHECK_OK(psg_global_var_create(ctx, "add_one", NULL, &gv));
  CHECK_EQ_INT(psg_module_add_prim_func(m, gv, g, &m2), PSG_ERR_INVALID_ARGUMENT);
  CHECK(m2 == NULL);
  CHECK_EQ_INT(psg_module_add_prim_func(m, gv, psg_tir_get_body(g), &m2), PSG_ERR_INVALID_ARGUMENT);
  /* update in place keeps position and GlobalVar */
  CHECK_OK(psg_module_update_prim_func(m, gv, g, &m2));
  CHECK(psg_module_get_prim_func(m2, 2) == g);
  CHECK(psg_module_get_global_var(m2, 2) == psg_module_get_global_var(m, 2));
  CHECK(psg_module_get_prim_func(m, 2) == f); /* the input is unchanged */
  /* a PrimFunc may replace a Relay function and the other way round */
  CHECK_OK(psg_module_update_prim_func(m, main_gv, g, &m3));
  CHECK(psg_module_lookup(m3, "main") == NULL && psg_module_lookup_prim_func(m3, "main") == g);
  psg_module *m4 = NULL;
  CHECK_OK(psg_module_update(m3, main_gv, psg_module_lookup(m, "main"), &m4));
  CHECK(psg_module_lookup(m4, "main") != NULL && psg_module_lookup_prim_func(m4, "main") == NULL);
  psg_module *m5 = NULL;
  CHECK_OK(psg_module_remove(m, "add_one", &m5));
  CHECK_EQ_INT(psg_module_num_functions(m5), 2);
  psg_expr_release(gv);
  psg_module_release(m2);
  psg_module_release(m3);
  psg_module_release(m4);
  psg_module_release(m5);
  psg_module_release(m);
  psg_tir_release(f);
  psg_tir_release(g);
  CHECK_CTX_CLEAN(ctx);
}

static void test_equal_hash(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f1 = fx_add_const(ctx, 1.0), *f2 = fx_add_const(ctx, 1.0), *g = fx_add_const(ctx, 2.0);
  psg_module *a = mixed_module(ctx, f1), *b = mixed_module(ctx, f2), *c = mixed_module(ctx, g), *r = relay_module(ctx);
  char *path = NULL;
  CHECK(psg_module_structural_equal(a, b, &path));
  CHECK(path == NULL);
  CHECK_EQ_INT(psg_module_structural_hash(a), psg_module_structural_hash(b));
  CHECK(!psg_module_structural_equal(a, c, &path));
  CHECK_STR(path, "@add_one.body.body.body.value.b: FloatImm values differ (1 vs 2)");
  psg_free(path);
  CHECK(psg_module_structural_hash(a) != psg_module_structural_hash(c));
  /* a PrimFunc against a Relay function of the same name */
  psg_module *d = NULL;
  psg_expr *gv;
  CHECK_OK(psg_global_var_create(ctx, "add_one", NULL, &gv));
  CHECK_OK(psg_module_add(r, gv, psg_module_lookup(r, "helper"), &d));
  path = NULL;
  CHECK(!psg_module_structural_equal(a, d, &path));
  CHECK_STR(path, "@add_one: a PrimFunc vs a Relay function");
  psg_free(path);
  psg_expr_release(gv);
  psg_module_release(a);
  psg_module_release(b);
  psg_module_release(c);
  psg_module_release(d);
  psg_module_release(r);
  psg_tir_release(f1);
  psg_tir_release(f2);
  psg_tir_release(g);
  CHECK_CTX_CLEAN(ctx);
}

/* A mixed module prints as Relay text with the PrimFunc as a TVMScript block
 * (docs/text-format.md), parses back equal and prints the same; a PrimFunc
 * whose name is no Python identifier cannot be a block: a clean error. */
static void test_print(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0);
  psg_module *m = mixed_module(ctx, f), *back = NULL, *bad = NULL;
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  CHECK_OK(psg_module_print(m, 0, &text, &len));
  CHECK(strstr(text, "\n@T.prim_func\ndef add_one(") != NULL);
  CHECK_OK(psg_module_parse(ctx, text, len, "mixed.relay", &back));
  char *path = NULL;
  CHECK(psg_module_structural_equal(m, back, &path));
  psg_free(path);
  CHECK_OK(psg_module_print(back, 0, &text2, &len2));
  CHECK(len == len2 && !memcmp(text, text2, len));
  psg_free(text);
  psg_free(text2);
  text = NULL;
  psg_expr *gv;
  CHECK_OK(psg_global_var_create(ctx, "add-one", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m, gv, f, &bad));
  psg_expr_release(gv);
  CHECK_EQ_INT(psg_module_print(bad, 0, &text, &len), PSG_ERR_UNSUPPORTED);
  CHECK(text == NULL);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "@add-one is a PrimFunc: its TVMScript block needs a name"));
  psg_ctx_clear_diags(ctx);
  psg_module_release(bad);
  psg_module_release(back);
  psg_module_release(m);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

/* Every registered pass (and the -O3 pipeline) over the mixed module does
 * what it does over the Relay functions alone, and keeps the PrimFunc. */
/* AnnotateSpans over a mixed module gives a structurally equal module whose
 * nodes point into the printed text. */
static void test_annotate_spans_keeps_prim_funcs(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0);
  psg_module *mixed = mixed_module(ctx, f), *out = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_get(ctx, "AnnotateSpans", NULL, &p));
  CHECK_OK(psg_pass_run(p, mixed, NULL, &out));
  char *path = NULL;
  CHECK(out && psg_module_structural_equal(out, mixed, &path));
  psg_free(path);
  const psg_expr *main_fn = out ? psg_module_lookup(out, "main") : NULL;
  psg_span sp = {0};
  if (main_fn) psg_expr_span(main_fn, &sp);
  CHECK(sp.file && !strcmp(sp.file, "GeneratedSource") && sp.line > 0);
  psg_module_release(out);
  psg_module_release(mixed);
  psg_pass_release(p);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

static void test_passes_skip_prim_funcs(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0);
  psg_module *mixed = mixed_module(ctx, f), *relay = relay_module(ctx);
  size_t n = psg_pass_registry_count(ctx), ran = 0;
  for (size_t i = 0; i <= n; i++) {
    const char *name = i < n ? psg_pass_registry_name(ctx, i) : "O3";
    /* PrintIR prints with the Relay text printer, which has no PrimFunc
     * syntax (test_print) */
    if (!strcmp(name, "PrintIR")) continue;
    /* TIR passes are meant to rewrite the PrimFunc (test_tir_pass*.c). */
    if (!strncmp(name, "tir.", 4)) continue;
    /* lower runs tir.default_pipeline, which rewrites every PrimFunc. */
    if (!strcmp(name, "lower")) continue;
    /* AnnotateSpans parses the whole module back, PrimFuncs too (their new
     * spans are its point): test_annotate_spans_keeps_prim_funcs. */
    if (!strcmp(name, "AnnotateSpans")) continue;
    psg_pass *p = NULL;
    if (psg_pass_get(ctx, name, NULL, &p) != PSG_OK) {
      psg_ctx_clear_diags(ctx);
      continue;
    }
    psg_module *out_r = NULL, *out_m = NULL;
    psg_status sr = psg_pass_run(p, relay, NULL, &out_r);
    psg_status sm = psg_pass_run(p, mixed, NULL, &out_m);
    psg_ctx_clear_diags(ctx);
    CHECK_EQ_INT(sm, sr);
    if (sm != sr) fprintf(stderr, "  pass %s: %d on the mixed module, %d on Relay alone\n", name, sm, sr);
    if (!sm && !sr) {
      ran++;
      psg_tir_prim_func *kept = psg_module_lookup_prim_func(out_m, "add_one");
      psg_module *rest = NULL;
      if (kept) {
        CHECK(kept == f);
        CHECK_OK(psg_module_remove(out_m, "add_one", &rest));
      } else {
        /* only a pass that drops unused globals may remove it */
        CHECK(strstr(name, "RemoveUnused") || name[0] == 'O');
        if (!strstr(name, "RemoveUnused") && name[0] != 'O') fprintf(stderr, "  pass %s dropped the PrimFunc\n", name);
        rest = out_m;
        psg_module_retain(rest);
      }
      char *path = NULL;
      bool same = psg_module_structural_equal(rest, out_r, &path);
      CHECK(same);
      if (!same) fprintf(stderr, "  pass %s: %s\n", name, path ? path : "?");
      psg_free(path);
      psg_module_release(rest);
    }
    psg_module_release(out_r);
    psg_module_release(out_m);
    psg_pass_release(p);
  }
  printf("  %zu of %zu registered passes ran\n", ran, n);
  CHECK(ran > 20);
  psg_module_release(mixed);
  psg_module_release(relay);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_entries);
  RUN_TEST(test_equal_hash);
  RUN_TEST(test_print);
  RUN_TEST(test_passes_skip_prim_funcs);
  RUN_TEST(test_annotate_spans_keeps_prim_funcs);
  return check_finish();
}
