/* Passage — tir.FlattenBuffer: every rewrite runs before and after through
 * the TIR interpreter on random inputs with bit-identical outputs, and the
 * rewrite passes verify_well_formed. Hand cases (2-d to 1-d, an Allocate
 * without DeclBuffer, a strided alias, bool storage, axis separators kept as
 * a 2-d physical layout, a predicated vector access, an elem_offset, rank 0,
 * symbolic extents, legacy-TE functions untouched), 400 random loop nests
 * over strided, offset and axis-separated buffers, idempotence, the error
 * of a mismatched axis-separated DeclBuffer, and a 10,000-deep loop nest
 * under a 1 MiB stack. */
#include "tir_equiv.h"

static psg_tir_prim_func *flatten(psg_tir_prim_func *f) { return eq_run_pass("tir.FlattenBuffer", NULL, f, NULL); }

/* Number of indices of the first BufferStore in s's first path (For/Seq/If/...). */
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

static void test_two_d_to_flat(void) {
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n"
                                  "@T.prim_func\n"
                                  "def main(A: T.Buffer((4, 6), \"float32\"), C: T.Buffer((4, 6), \"float32\")):\n"
                                  "    for i in range(4):\n"
                                  "        T_data = T.allocate([1, 6], \"float32\", \"global\")\n"
                                  "        T_buf = T.decl_buffer((1, 6), data=T_data)\n"
                                  "        for j in range(6):\n"
                                  "            T_buf[0, j] = A[i, j] + T.float32(1.5)\n"
                                  "        for j in range(6):\n"
                                  "            C[i, j] = T_buf[0, j] * T.float32(2.0)\n");
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 3, 3, 11);
  if (!g) return;
  /* the allocation is flat, its DeclBuffer gone, every access 1-d */
  const psg_tir_node *alloc = first_of_kind(psg_tir_get_body(g), PSG_TIR_ALLOCATE);
  CHECK(alloc && psg_tir_allocate_num_extents(alloc) == 1);
  CHECK(alloc && psg_tir_int_imm_value(psg_tir_allocate_get_extent(alloc, 0)) == 6);
  CHECK(first_of_kind(psg_tir_get_body(g), PSG_TIR_DECL_BUFFER) == NULL);
  const psg_tir_node *st = first_of_kind(psg_tir_get_body(g), PSG_TIR_BUFFER_STORE);
  CHECK(st && psg_tir_num_indices(st) == 1);
  /* the buffer map keeps the 2-d buffers, aliased by the flat ones */
  psg_tir_buffer *a = psg_tir_prim_func_buffer_map_value(g, 0);
  CHECK_EQ_INT(psg_tir_buffer_ndim(a), 2);
  CHECK(a == psg_tir_prim_func_buffer_map_value(f, 0));
  /* idempotent */
  psg_tir_prim_func *h = flatten(g);
  CHECK(h && psg_tir_structural_equal(g, h));
}

static void test_allocate_without_decl_and_strides(void) {
  /* an Allocate used through a 2-d alias (product extent), a strided alias */
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n"
                                  "@T.prim_func\n"
                                  "def main(A: T.Buffer((8, 5), \"int32\"), C: T.Buffer((8, 5), \"int32\")):\n"
                                  "    for io in range(2):\n"
                                  "        P = T.allocate([4, 7], \"int32\", \"global\")\n"
                                  "        Pv = T.Buffer((4, 5), \"int32\", data=P, strides=(7, 1))\n"
                                  "        Q = T.allocate([2, 2, 5], \"int32\", \"global\")\n"
                                  "        Qv = T.Buffer((4, 5), \"int32\", data=Q)\n"
                                  "        for ii in range(4):\n"
                                  "            for j in range(5):\n"
                                  "                Pv[ii, j] = A[io * 4 + ii, j] * 3\n"
                                  "                Qv[ii, j] = Pv[ii, j] - j\n"
                                  "        for ii in range(4):\n"
                                  "            for j in range(5):\n"
                                  "                C[io * 4 + ii, j] = Qv[ii, j] + Pv[ii, j]\n");
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 3, 4, 12);
  if (!g) return;
  const psg_tir_node *alloc = first_of_kind(psg_tir_get_body(g), PSG_TIR_ALLOCATE);
  CHECK(alloc && psg_tir_allocate_num_extents(alloc) == 1 &&
        psg_tir_int_imm_value(psg_tir_allocate_get_extent(alloc, 0)) == 28);
}

static void test_bool_storage(void) {
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n"
                                  "@T.prim_func\n"
                                  "def main(A: T.Buffer((3, 4), \"bool\"), B: T.Buffer((3, 4), \"bool\")):\n"
                                  "    for i in range(3):\n"
                                  "        for j in range(4):\n"
                                  "            B[i, j] = not A[i, j]\n");
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 3, 4, 13);
  const psg_tir_node *st = g ? first_of_kind(psg_tir_get_body(g), PSG_TIR_BUFFER_STORE) : NULL;
  CHECK(st && psg_tir_dtype_of(psg_tir_get_buffer(st)) == psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, 1));
  CHECK(st && psg_tir_kind(psg_tir_buffer_store_get_value(st)) == PSG_TIR_CAST);
}

static void test_axis_separators(void) {
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n"
                                  "@T.prim_func\n"
                                  "def main(A: T.Buffer((2, 3, 4, 5), \"float32\"), C: T.Buffer((2, 3, 4, 5), \"float32\")):\n"
                                  "    S_data = T.allocate([2, 3, 4, 5], \"float32\", \"global\")\n"
                                  "    S = T.decl_buffer((2, 3, 4, 5), data=S_data, axis_separators=[2])\n"
                                  "    for a, b, c, d in T.grid(2, 3, 4, 5):\n"
                                  "        S[a, b, c, d] = A[a, b, c, d] * T.float32(0.25)\n"
                                  "    for a, b, c, d in T.grid(2, 3, 4, 5):\n"
                                  "        C[a, b, c, d] = S[a, b, c, d] + A[a, b, 3 - c, d]\n");
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 3, 3, 14);
  if (!g) return;
  const psg_tir_node *alloc = first_of_kind(psg_tir_get_body(g), PSG_TIR_ALLOCATE);
  CHECK(alloc && psg_tir_allocate_num_extents(alloc) == 2);
  CHECK(alloc && psg_tir_int_imm_value(psg_tir_allocate_get_extent(alloc, 0)) == 6 &&
        psg_tir_int_imm_value(psg_tir_allocate_get_extent(alloc, 1)) == 20);
  const psg_tir_node *st = first_of_kind(psg_tir_get_body(g), PSG_TIR_BUFFER_STORE);
  CHECK(st && psg_tir_num_indices(st) == 2);
  CHECK(st && psg_tir_buffer_num_axis_separators(psg_tir_get_buffer(st)) == 1 &&
        psg_tir_buffer_axis_separator(psg_tir_get_buffer(st), 0) == 1);
}

static void test_mismatched_separated_decl_fails(void) {
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n"
                                  "@T.prim_func\n"
                                  "def main(A: T.Buffer((4, 4), \"float32\")):\n"
                                  "    S_data = T.allocate([4, 8], \"float32\", \"global\")\n"
                                  "    S = T.decl_buffer((4, 4), data=S_data, axis_separators=[1])\n"
                                  "    S[1, 1] = A[1, 1]\n");
  psg_status st = PSG_OK;
  CHECK(eq_run_pass("tir.FlattenBuffer", NULL, f, &st) == NULL);
  CHECK_EQ_INT(st, PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("axis_separators"));
}

/* A vector access with a predicate and a Ramp index: the predicate stays. */
static void test_predicated_vector(void) {
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 3, 8), *B = TB_BUF("B", TB_F32, 3, 8);
  psg_tir_expr *i = tb_var("i", TB_I32), *h = tb_var("h", TB_I32);
  psg_tir_expr *ramp = tb_ramp(tb_mul(h, tb_i32(4)), tb_i32(1), 4);
  psg_tir_expr *mask = tb_lt(ramp, tb_bcast(tb_i32(6), 4));
  psg_tir_expr *idx[2] = {i, ramp};
  psg_tir_expr *v = tb_add(tb_loadp(A, idx, 2, mask), tb_bcast(tb_f32(1.0), 4));
  psg_tir_stmt *body = tb_for(i, 3, tb_for(h, 2, tb_storep(B, v, idx, 2, mask)));
  psg_tir_buffer *bufs[2] = {A, B};
  psg_tir_prim_func *f = tb_func(bufs, 2, NULL, 0, body);
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 3, 3, 15);
  const psg_tir_node *st = g ? first_of_kind(psg_tir_get_body(g), PSG_TIR_BUFFER_STORE) : NULL;
  CHECK(st && psg_tir_num_indices(st) == 1 && psg_tir_get_predicate(st) != NULL);
}

static void test_offsets_rank0_symbolic_legacy(void) {
  /* elem_offset of a parameter buffer (bound to 0 by the argument) and
   * symbolic extents */
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n"
                                  "@T.prim_func\n"
                                  "def main(a: T.handle, c: T.handle):\n"
                                  "    n = T.int32()\n"
                                  "    m = T.int32()\n"
                                  "    o = T.int32()\n"
                                  "    A = T.match_buffer(a, (n, m), \"float32\", elem_offset=o)\n"
                                  "    C = T.match_buffer(c, (n, m), \"float32\")\n"
                                  "    for i in range(n):\n"
                                  "        for j in range(m):\n"
                                  "            C[i, j] = A[i, j] * T.float32(3.0)\n");
  if (!f) return;
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 3, 3, 16);
  /* a rank-0 buffer flattens to [1] */
  psg_tir_buffer *S = tb_buf("S", TB_F32, NULL, 0), *B = TB_BUF("B", TB_F32, 5);
  psg_tir_expr *i = tb_var("i", TB_I32);
  psg_tir_stmt *body = tb_for(i, 5, tb_storep(S, tb_add(tb_loadp(S, NULL, 0, NULL), tb_loadp(B, &i, 1, NULL)), NULL, 0, NULL));
  psg_tir_prim_func *r0 = tb_func((psg_tir_buffer *[]){S, B}, 2, NULL, 0, body);
  psg_tir_prim_func *r1 = flatten(r0);
  eq_check_same(r0, r1, 3, 3, 18);
  const psg_tir_node *st = r1 ? first_of_kind(psg_tir_get_body(r1), PSG_TIR_BUFFER_STORE) : NULL;
  CHECK(st && psg_tir_num_indices(st) == 1 && psg_tir_buffer_ndim(psg_tir_get_buffer(st)) == 1);
  /* a legacy-TE function is StorageFlatten's: left as it is */
  psg_attr *t = NULL;
  psg_tir_prim_func *legacy = NULL;
  CHECK_OK(psg_attr_bool(TB.ctx, true, &t));
  CHECK_OK(psg_tir_prim_func_with_attr(f, "from_legacy_te_schedule", t, &legacy));
  psg_attr_release(t);
  legacy = tb_keep(PSG_OK, &legacy);
  psg_tir_prim_func *h = flatten(legacy);
  CHECK(h && psg_tir_structural_equal(h, legacy));
}

static void test_random_nests(void) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int c = 0; c < 400; c++) {
    psg_tir_prim_func *f = eq_random_func(&seed, c % 2 == 1);
    psg_tir_prim_func *g = flatten(f);
    eq_check_same(f, g, 3, 2, seed);
    /* idempotent, except where an N-d physical Allocate stays (TVM's pass
     * too then flattens that Allocate, its DeclBuffer being gone) */
    const psg_tir_node *al = g ? first_of_kind(psg_tir_get_body(g), PSG_TIR_ALLOCATE) : NULL;
    if (g && c % 4 == 0 && al && psg_tir_allocate_num_extents(al) == 1) {
      psg_tir_prim_func *h = flatten(g);
      char *path = NULL;
      bool same = h && psg_tir_structural_equal_explain(g, h, &path);
      CHECK(same);
      if (!same) {
        char *a = eq_print(g), *b = eq_print(h);
        fprintf(stderr, "  not idempotent at %s:\n%s\n%s\n", path ? path : "?", a ? a : "", b ? b : "");
        psg_free(a);
        psg_free(b);
      }
      psg_free(path);
    }
    tb_fini();
    if (check_failures) break;
  }
}

enum { NEST = 10000 };
static void *deep_nest(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = eq_deep_nest_func(NEST);
  psg_tir_prim_func *g = flatten(f);
  eq_check_same(f, g, 1, 1, 17);
  const psg_tir_node *r = g ? psg_tir_get_body(g) : NULL;
  int depth = 0;
  while (r && psg_tir_kind(r) == PSG_TIR_FOR) {
    r = psg_tir_get_body(r);
    depth++;
  }
  CHECK_EQ_INT(depth, NEST);
  CHECK(r && psg_tir_kind(r) == PSG_TIR_BUFFER_STORE && psg_tir_num_indices(r) == 1);
  return NULL;
}

static void test_deep_loop_nest(void) { eq_small_stack(deep_nest); }

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_two_d_to_flat);
  RUN_TEST(test_allocate_without_decl_and_strides);
  RUN_TEST(test_bool_storage);
  RUN_TEST(test_axis_separators);
  RUN_TEST(test_mismatched_separated_decl_fails);
  RUN_TEST(test_predicated_vector);
  RUN_TEST(test_offsets_rank0_symbolic_legacy);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_deep_loop_nest);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
