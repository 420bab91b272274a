/* TVMScript API (include/passage/tvmscript.h): printing functions built in
 * memory, the script container, parsing modules, located errors, and out
 * of memory at every allocation of a parse and print. The text forms
 * themselves are pinned by the lit corpus (tests/lit/tir/). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "passage/tvmscript.h"

static psg_tir_dtype I32, F32;

/* main(A: T.Buffer((4,), "float32"), n: T.int32): for i in range(4):
 * A[i] = T.Cast("float32", i) + A_1[0], A_1 a 2x2 view of A's data. */
static psg_tir_prim_func *build_func(psg_ctx *ctx, bool with_symbol) {
  psg_tir_expr *four, *two, *zero, *n, *i, *pa, *cast, *load, *add;
  psg_tir_buffer *A, *A1;
  psg_tir_stmt *store, *loop;
  psg_tir_prim_func *f;
  CHECK_OK(psg_tir_int_imm_create(ctx, I32, 4, NULL, &four));
  CHECK_OK(psg_tir_int_imm_create(ctx, I32, 2, NULL, &two));
  CHECK_OK(psg_tir_int_imm_create(ctx, I32, 0, NULL, &zero));
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "A", psg_tir_dtype_handle(), NULL, NULL, &pa));
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", F32, &four, 1, NULL, NULL, &A));
  psg_tir_buffer_desc d = {0};
  d.name = "A";
  d.data = psg_tir_buffer_get_data(A);
  d.dtype = F32;
  d.shape = (psg_tir_expr *[]){two, two};
  d.ndim = 2;
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &A1));
  CHECK_OK(psg_tir_cast_create(ctx, F32, i, NULL, &cast));
  CHECK_OK(psg_tir_buffer_load_create(ctx, A1, (psg_tir_expr *[]){zero, zero}, 2, NULL, NULL, &load));
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_ADD, cast, load, NULL, &add));
  CHECK_OK(psg_tir_buffer_store_create(ctx, A, add, &i, 1, NULL, NULL, &store));
  CHECK_OK(psg_tir_for_create(ctx, i, zero, four, PSG_TIR_FOR_SERIAL, store, NULL, NULL, &loop));
  psg_attrs *attrs = NULL;
  psg_attr *sym = NULL, *yes = NULL;
  CHECK_OK(psg_attr_string(ctx, "main", 4, &sym));
  CHECK_OK(psg_attr_bool(ctx, true, &yes));
  CHECK_OK(psg_attrs_create(ctx, with_symbol ? (const char *[]){"global_symbol", "tir.noalias"} : (const char *[]){"tir.noalias"},
                            with_symbol ? (psg_attr *[]){sym, yes} : (psg_attr *[]){yes}, with_symbol ? 2 : 1, &attrs));
  size_t map = 0;
  CHECK_OK(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){pa, n}, 2, loop, NULL, &map, &A, 1, attrs, NULL, &f));
  psg_attrs_release(attrs);
  psg_attr_release(sym);
  psg_attr_release(yes);
  psg_tir_expr *all[] = {four, two, zero, n, i, pa, cast, load, add, A, A1, store, loop};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) psg_tir_release(all[k]);
  return f;
}

static const char *expected =
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((4,), \"float32\"), n: T.int32):\n"
    "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "    for i in range(4):\n"
    "        A_1 = T.Buffer((2, 2), data=A.data)\n"
    "        A[i] = T.Cast(\"float32\", i) + A_1[0, 0]\n";

static void test_print_built(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = build_func(ctx, true);
  char *out = NULL;
  size_t len = 0;
  CHECK_OK(psg_tir_script_print_func(f, NULL, PSG_TIR_SCRIPT_DEFAULT, &out, &len));
  CHECK_STR(out, expected);
  CHECK_EQ_INT(len, strlen(expected));
  psg_free(out);
  /* Without a global_symbol the function is private; no header. */
  psg_tir_prim_func *g = build_func(ctx, false);
  CHECK_OK(psg_tir_script_print_func(g, "helper", PSG_TIR_SCRIPT_NO_HEADER, &out, NULL));
  CHECK(strncmp(out, "@T.prim_func(private=True)\ndef helper(", 38) == 0);
  psg_free(out);
  /* The printed text parses back and prints the same. */
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_parse(ctx, expected, strlen(expected), "t.py", &s));
  char *path = NULL;
  CHECK(psg_tir_structural_equal_explain(f, psg_tir_script_get(s, 0), &path));
  if (path) fprintf(stderr, "differs at %s\n", path);
  psg_free(path);
  CHECK(psg_tir_structural_hash(f) == psg_tir_structural_hash(psg_tir_script_get(s, 0)));
  CHECK_OK(psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, &len));
  CHECK_STR(out, expected);
  psg_free(out);
  psg_tir_script_release(s);
  psg_tir_release(f);
  psg_tir_release(g);
  CHECK_CTX_CLEAN(ctx);
}

static const char *module_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def helper(A: T.Buffer((4,), \"int32\")):\n"
    "        A[0] = 0\n"
    "\n"
    "    @T.prim_func\n"
    "    def main(a: T.handle):\n"
    "        n = T.int32()\n"
    "        A = T.match_buffer(a, (n,), \"int32\")\n"
    "        for i in range(n):\n"
    "            A[i] = i\n";

static void test_module(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_parse(ctx, module_text, strlen(module_text), "m.py", &s));
  CHECK(psg_tir_script_is_module(s));
  CHECK_EQ_INT(psg_tir_script_count(s), 2);
  CHECK_STR(psg_tir_script_name(s, 0), "helper");
  CHECK_STR(psg_tir_script_name(s, 1), "main");
  CHECK(psg_tir_script_name(s, 2) == NULL);
  psg_tir_prim_func *helper = psg_tir_script_get(s, 0), *main_fn = psg_tir_script_get(s, 1);
  CHECK(psg_attrs_get(psg_tir_prim_func_get_attrs(helper), "global_symbol") == NULL);
  psg_attr *gs = psg_attrs_get(psg_tir_prim_func_get_attrs(main_fn), "global_symbol");
  CHECK(gs && !strcmp(psg_attr_get_string(gs), "main"));
  /* main: one handle param matched to a buffer whose shape is the implicit var n */
  CHECK_EQ_INT(psg_tir_prim_func_num_params(main_fn), 1);
  CHECK_EQ_INT(psg_tir_prim_func_buffer_map_size(main_fn), 1);
  psg_tir_buffer *A = psg_tir_prim_func_buffer_map_value(main_fn, 0);
  CHECK_STR(psg_tir_var_name(psg_tir_buffer_get_shape(A, 0)), "n");
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_body(main_fn)), PSG_TIR_FOR);
  char *out = NULL;
  CHECK_OK(psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, NULL));
  CHECK_STR(out, module_text);
  psg_free(out);
  psg_tir_script_release(s);
  CHECK_CTX_CLEAN(ctx);
}

/* A script as an IRModule of PrimFuncs and back; a Relay entry has no
 * TVMScript form. */
static void test_module_bridge(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_script *s = NULL, *back = NULL;
  psg_module *m = NULL;
  CHECK_OK(psg_tir_script_parse(ctx, module_text, strlen(module_text), "m.py", &s));
  CHECK_OK(psg_tir_script_to_module(s, &m));
  CHECK_EQ_INT(psg_module_num_functions(m), 2);
  CHECK(psg_module_lookup_prim_func(m, "main") == psg_tir_script_get(s, 1));
  CHECK_OK(psg_tir_script_from_module(m, &back));
  char *out = NULL;
  CHECK_OK(psg_tir_script_print(back, PSG_TIR_SCRIPT_DEFAULT, &out, NULL));
  CHECK_STR(out, module_text);
  psg_free(out);
  /* add a Relay function: no TVMScript for it */
  psg_expr *x, *fn, *gv;
  psg_module *mixed = NULL;
  psg_tir_script *none = NULL;
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_function_create(ctx, &x, 1, x, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "relay_fn", NULL, &gv));
  CHECK_OK(psg_module_add(m, gv, fn, &mixed));
  CHECK_EQ_INT(psg_tir_script_from_module(mixed, &none), PSG_ERR_UNSUPPORTED);
  CHECK(none == NULL);
  psg_ctx_clear_diags(ctx);
  psg_expr_release(x);
  psg_expr_release(fn);
  psg_expr_release(gv);
  psg_module_release(mixed);
  psg_module_release(m);
  psg_tir_script_release(s);
  psg_tir_script_release(back);
  CHECK_CTX_CLEAN(ctx);
}

static void test_container(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_create(ctx, false, &s));
  psg_tir_prim_func *f = build_func(ctx, true);
  CHECK_OK(psg_tir_script_add(s, "main", f));
  CHECK_EQ_INT(psg_tir_script_add(s, "main", f), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_script_add(s, "", f), PSG_ERR_INVALID_ARGUMENT);
  psg_ctx_clear_diags(ctx);
  CHECK_EQ_INT(psg_tir_script_count(s), 1);
  CHECK(psg_tir_script_get(s, 0) == f);
  psg_tir_release(f);
  psg_tir_script_release(s);
  psg_tir_script_release(NULL);
  CHECK(psg_tir_script_detect("\n# from tvm.script import tir as T\n", 35));
  CHECK(psg_tir_script_detect("@T.prim_func\ndef f():", 21));
  CHECK(psg_tir_script_detect("  @I.ir_module", 14));
  CHECK(!psg_tir_script_detect("#[version = \"0.0.5\"]", 20));
  CHECK(!psg_tir_script_detect("", 0));
  CHECK_CTX_CLEAN(ctx);
}

static void test_errors(void) {
  psg_ctx *ctx = check_ctx();
  const char *bad = "@T.prim_func\ndef f(n: T.int32):\n    T.evaluate(m)\n    T.evaluate(k)\n";
  psg_tir_script *s = NULL;
  CHECK_EQ_INT(psg_tir_script_parse(ctx, bad, strlen(bad), "bad.py", &s), PSG_ERR_PARSE);
  CHECK(s == NULL);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 2); /* it goes on after the first error */
  const psg_diag *d = psg_ctx_get_diag(ctx, 0);
  CHECK_STR(psg_diag_file(d), "bad.py");
  CHECK_EQ_INT(psg_diag_line(d), 3);
  CHECK(strstr(psg_diag_message(d), "undefined name 'm'") != NULL);
  psg_ctx_clear_diags(ctx);
  /* Empty input, NUL bytes, binary junk: errors, never a crash. */
  CHECK_EQ_INT(psg_tir_script_parse(ctx, "", 0, NULL, &s), PSG_ERR_PARSE);
  CHECK_EQ_INT(psg_tir_script_parse(ctx, "@T.prim_func\0\0", 14, NULL, &s), PSG_ERR_PARSE);
  CHECK_EQ_INT(psg_tir_script_parse(ctx, "\xff\xfe(((", 5, NULL, &s), PSG_ERR_PARSE);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* Out of memory at every allocation of a parse and a print: a clean status
 * and nothing left alive. */
static void test_oom(void) {
  long calls = 0;
  {
    check_alloc a = {0, 0};
    psg_ctx *ctx = check_ctx_with(&a);
    long before = a.calls;
    psg_tir_script *s = NULL;
    CHECK_OK(psg_tir_script_parse(ctx, module_text, strlen(module_text), "m.py", &s));
    char *out = NULL;
    CHECK_OK(psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, NULL));
    psg_free(out);
    psg_tir_script_release(s);
    calls = a.calls - before;
    CHECK_CTX_CLEAN(ctx);
  }
  for (long k = 1; k <= calls + 50; k++) {
    check_alloc a = {0, 0};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    a.fail_at = a.calls + k;
    psg_tir_script *s = NULL;
    psg_status st = psg_tir_script_parse(ctx, module_text, strlen(module_text), "m.py", &s);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    if (!st) {
      char *out = NULL;
      st = psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &out, NULL);
      CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
      if (!st) CHECK_STR(out, module_text);
      psg_free(out);
    }
    psg_tir_script_release(s);
    CHECK_CTX_CLEAN(ctx);
  }
}

int main(void) {
  I32 = psg_tir_dtype_int32();
  F32 = psg_tir_dtype_float32();
  RUN_TEST(test_print_built);
  RUN_TEST(test_module);
  RUN_TEST(test_module_bridge);
  RUN_TEST(test_container);
  RUN_TEST(test_errors);
  RUN_TEST(test_oom);
  return check_finish();
}
