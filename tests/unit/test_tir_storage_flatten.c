/* Passage — tir.StorageFlatten(cache_line_size, create_bound_attributes):
 * every rewrite runs before and after through the TIR interpreter with
 * bit-identical outputs and passes verify_well_formed. Only legacy-TE
 * functions (from_legacy_te_schedule) change; the DeclBuffer is kept over
 * the flat buffer; multi-extent Allocates become their product; bool is
 * stored as int8; provable asserts go, others stay; buffer_bound attributes
 * when asked; a predicated access and cache_line_size <= 0 are errors; 400
 * random nests; a 10,000-deep nest under a 1 MiB stack. */
#include "tir_equiv.h"

static psg_tir_prim_func *legacy(psg_tir_prim_func *f) {
  psg_attr *t = NULL;
  psg_tir_prim_func *g = NULL;
  if (!f) return NULL;
  CHECK_OK(psg_attr_bool(TB.ctx, true, &t));
  CHECK_OK(psg_tir_prim_func_with_attr(f, "from_legacy_te_schedule", t, &g));
  psg_attr_release(t);
  return tb_keep(PSG_OK, &g);
}

static psg_tir_prim_func *storage_flatten(psg_tir_prim_func *f, bool bounds, psg_status *st) {
  const char *keys[2] = {"cache_line_size", "create_bound_attributes"};
  psg_attr *v[2] = {NULL, NULL};
  psg_attrs *opts = NULL;
  CHECK_OK(psg_attr_int(TB.ctx, 64, &v[0]));
  CHECK_OK(psg_attr_bool(TB.ctx, bounds, &v[1]));
  CHECK_OK(psg_attrs_create(TB.ctx, keys, v, 2, &opts));
  psg_tir_prim_func *g = eq_run_pass("tir.StorageFlatten", opts, f, st);
  psg_attrs_release(opts);
  psg_attr_release(v[0]);
  psg_attr_release(v[1]);
  return g;
}

static const psg_tir_node *first_of_kind(const psg_tir_node *root, int kind) {
  const psg_tir_node *stack[256];
  size_t n = 0;
  stack[n++] = root;
  while (n) {
    const psg_tir_node *x = stack[--n];
    if (psg_tir_kind(x) == kind) return x;
    for (size_t i = psg_tir_num_operands(x); i-- > 0 && n < 256;) {
      const psg_tir_node *c = psg_tir_get_operand(x, i);
      if (psg_tir_is_stmt(c) || psg_tir_is_expr(c)) stack[n++] = c;
    }
  }
  return NULL;
}

static const char *const kTwoD = "# from tvm.script import tir as T\n"
                                 "@T.prim_func\n"
                                 "def main(A: T.Buffer((4, 6), \"float32\"), C: T.Buffer((4, 6), \"float32\")):\n"
                                 "    T_data = T.allocate([4, 6], \"float32\", \"global\")\n"
                                 "    T_buf = T.decl_buffer((4, 6), data=T_data)\n"
                                 "    for i, j in T.grid(4, 6):\n"
                                 "        assert i < 4, \"in range\"\n"
                                 "        assert j < 5, \"maybe not\"\n"
                                 "        T_buf[i, j] = A[i, j] + T.float32(1.5)\n"
                                 "    for i, j in T.grid(4, 6):\n"
                                 "        C[i, j] = T_buf[i, j] * T_buf[3 - i, j]\n";

static void test_only_legacy(void) {
  psg_tir_prim_func *f = eq_parse(kTwoD);
  psg_tir_prim_func *g = storage_flatten(f, false, NULL);
  CHECK(g == f); /* not legacy TE: the very same function */
}

static void test_flatten_keeps_decl(void) {
  psg_tir_prim_func *f = legacy(eq_parse(kTwoD));
  psg_tir_prim_func *g = storage_flatten(f, false, NULL);
  if (!g) return;
  /* the assert on j < 5 fails for j == 5: both versions must fail alike, so
   * compare on the part before it by checking the structure here */
  const psg_tir_node *alloc = first_of_kind(psg_tir_get_body(g), PSG_TIR_ALLOCATE);
  CHECK(alloc && psg_tir_allocate_num_extents(alloc) == 1 &&
        psg_tir_int_imm_value(psg_tir_allocate_get_extent(alloc, 0)) == 24);
  const psg_tir_node *decl = first_of_kind(psg_tir_get_body(g), PSG_TIR_DECL_BUFFER);
  CHECK(decl && psg_tir_buffer_ndim(psg_tir_get_buffer(decl)) == 1);
  /* i < 4 is proved by the loop range and goes; j < 5 is not and stays */
  const psg_tir_node *as = first_of_kind(psg_tir_get_body(g), PSG_TIR_ASSERT_STMT);
  CHECK(as && psg_tir_kind(psg_tir_get_b(psg_tir_get_cond(as))) == PSG_TIR_INT_IMM &&
        psg_tir_int_imm_value(psg_tir_get_b(psg_tir_get_cond(as))) == 5);
  CHECK(as && psg_tir_kind(psg_tir_get_body(as)) != PSG_TIR_ASSERT_STMT);
  psg_tir_buffer *a = psg_tir_prim_func_buffer_map_value(g, 0);
  CHECK(a == psg_tir_prim_func_buffer_map_value(f, 0));
}

static void test_runs_the_same(void) {
  psg_tir_prim_func *f = legacy(eq_parse("# from tvm.script import tir as T\n"
                                         "@T.prim_func\n"
                                         "def main(A: T.Buffer((3, 5), \"int32\"), B: T.Buffer((3, 5), \"bool\"), "
                                         "C: T.Buffer((3, 5), \"int32\")):\n"
                                         "    P = T.allocate([3, 8], \"int32\", \"global\")\n"
                                         "    Pv = T.Buffer((3, 5), \"int32\", data=P, strides=(8, 1))\n"
                                         "    for i, j in T.grid(3, 5):\n"
                                         "        assert i * 5 + j < 15, \"fits\"\n"
                                         "        Pv[i, j] = A[i, j] * 7 - i\n"
                                         "        B[i, j] = Pv[i, j] < 0\n"
                                         "    for i, j in T.grid(3, 5):\n"
                                         "        C[i, j] = T.Select(B[i, j], Pv[i, 4 - j], Pv[i, j] + 1)\n"));
  psg_tir_prim_func *g = storage_flatten(f, false, NULL);
  eq_check_same(f, g, 3, 4, 21);
  const psg_tir_node *st = g ? first_of_kind(psg_tir_get_body(g), PSG_TIR_BUFFER_STORE) : NULL;
  CHECK(st && psg_tir_num_indices(st) == 1);
  CHECK(g && first_of_kind(psg_tir_get_body(g), PSG_TIR_ASSERT_STMT) == NULL);
}

static void test_bound_attributes(void) {
  psg_tir_prim_func *f = legacy(eq_parse("# from tvm.script import tir as T\n"
                                         "@T.prim_func\n"
                                         "def main(A: T.Buffer((4, 6), \"float32\"), C: T.Buffer((4, 6), \"float32\")):\n"
                                         "    for i, j in T.grid(4, 6):\n"
                                         "        C[i, j] = A[i, j] + T.float32(1.0)\n"));
  psg_tir_prim_func *g = storage_flatten(f, true, NULL);
  eq_check_same(f, g, 3, 2, 22);
  const psg_tir_node *at = g ? first_of_kind(psg_tir_get_body(g), PSG_TIR_ATTR_STMT) : NULL;
  CHECK(at && strcmp(psg_tir_attr_stmt_key(at), "buffer_bound") == 0);
  /* one attribute per buffer touched: C outermost (collected last), then A */
  CHECK(at && psg_tir_kind(psg_tir_get_body(at)) == PSG_TIR_ATTR_STMT);
  psg_tir_expr *v = at ? psg_tir_attr_stmt_get_value(at) : NULL;
  CHECK(v && psg_tir_kind(v) == PSG_TIR_CALL && strcmp(psg_tir_call_op(v), "tir.tvm_tuple") == 0);
  CHECK(at && psg_tir_attr_stmt_get_node(at) == psg_tir_buffer_get_data(psg_tir_prim_func_buffer_map_value(f, 1)));
}

static void test_errors(void) {
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 2, 8);
  psg_tir_expr *ramp = tb_ramp(tb_i32(0), tb_i32(1), 4), *mask = tb_lt(ramp, tb_bcast(tb_i32(3), 4));
  psg_tir_expr *idx[2] = {tb_i32(1), ramp};
  psg_tir_stmt *s = tb_storep(A, tb_bcast(tb_f32(1.0), 4), idx, 2, mask);
  psg_tir_prim_func *f = legacy(tb_func(&A, 1, NULL, 0, s));
  psg_status st = PSG_OK;
  CHECK(storage_flatten(f, false, &st) == NULL);
  CHECK_EQ_INT(st, PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("predicated"));
  psg_attrs *zero = eq_int_option("cache_line_size", 0);
  CHECK(eq_run_pass("tir.StorageFlatten", zero, f, &st) == NULL);
  CHECK_EQ_INT(st, PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("cache_line_size"));
  psg_attrs_release(zero);
}

static void test_random_nests(void) {
  uint64_t seed = 0x243f6a8885a308d3ull;
  for (int c = 0; c < 400; c++) {
    psg_tir_prim_func *f = legacy(eq_random_func(&seed, c % 2 == 1));
    psg_tir_prim_func *g = storage_flatten(f, c % 3 == 0, NULL);
    eq_check_same(f, g, 3, 2, seed);
    tb_fini();
    if (check_failures) break;
  }
}

enum { NEST = 10000 };
static void *deep_nest(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = legacy(eq_deep_nest_func(NEST));
  psg_tir_prim_func *g = storage_flatten(f, true, NULL);
  eq_check_same(f, g, 1, 1, 23);
  return NULL;
}

static void test_deep_loop_nest(void) { eq_small_stack(deep_nest); }

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_only_legacy);
  RUN_TEST(test_flatten_keeps_decl);
  RUN_TEST(test_runs_the_same);
  RUN_TEST(test_bound_attributes);
  RUN_TEST(test_errors);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_deep_loop_nest);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
