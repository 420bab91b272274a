/* Passage — TIR structural equality and hashing (TVM's
 * assert_structural_equal semantics, spec/tir.md §2): vars and buffers are
 * remapped by definition, names and identity ignored, free vars equal only
 * themselves, and the path names the first difference. */
#include "tir_fixtures.h"

static psg_tir_dtype I32, F32;

static void check_differ(const psg_tir_node *a, const psg_tir_node *b, const char *want_path) {
  char *path = NULL;
  CHECK(!psg_tir_structural_equal(a, b));
  CHECK(!psg_tir_structural_equal_explain(a, b, &path));
  CHECK_STR(path, want_path);
  psg_free(path);
}

static void test_remapping(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *g = fx_add_const(ctx, 1.0), *h = fx_add_const(ctx, 2.0);
  CHECK(f != g);
  CHECK(psg_tir_structural_equal(f, g));
  CHECK(psg_tir_structural_equal(f, f));
  CHECK_EQ_INT(psg_tir_structural_hash(f), psg_tir_structural_hash(g));
  CHECK(psg_tir_structural_hash(f) != psg_tir_structural_hash(h));
  check_differ(f, h, "body.body.body.value.b: FloatImm values differ (1 vs 2)");
  char *path = (char *)1;
  CHECK(psg_tir_structural_equal_explain(f, g, &path));
  CHECK(path == NULL);
  psg_tir_release(f);
  psg_tir_release(g);
  psg_tir_release(h);
  CHECK_CTX_CLEAN(ctx);
}

static void test_free_vars_and_names(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *x, *y, *y2, *one = fx_i32(ctx, 1);
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &x));
  CHECK_OK(psg_tir_var_create(ctx, "y", I32, NULL, NULL, &y));
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &y2)); /* same name as x, another var */
  psg_tir_expr *ex = fx_bin(ctx, PSG_TIR_ADD, x, one), *ey = fx_bin(ctx, PSG_TIR_ADD, y, one);
  psg_tir_expr *ex2 = fx_bin(ctx, PSG_TIR_ADD, x, one);
  /* free vars: equal only to themselves, whatever the name */
  CHECK(psg_tir_structural_equal(ex, ex2));
  check_differ(ex, ey, "a: free vars 'x' and 'y' differ");
  CHECK(!psg_tir_structural_equal(x, y2));
  /* bound by a Let: renamed vars are equal */
  psg_tir_expr *lx, *ly;
  CHECK_OK(psg_tir_let_create(ctx, x, one, ex, NULL, &lx));
  CHECK_OK(psg_tir_let_create(ctx, y, one, ey, NULL, &ly));
  CHECK(psg_tir_structural_equal(lx, ly));
  CHECK_EQ_INT(psg_tir_structural_hash(lx), psg_tir_structural_hash(ly));
  /* a bound var must meet its partner: Let x = 1 in x + 1 vs Let y = 1 in x + 1 */
  psg_tir_expr *lyx;
  CHECK_OK(psg_tir_let_create(ctx, y, one, ex, NULL, &lyx));
  check_differ(lx, lyx, "body.a: var 'x' is bound to another var than 'x'");
  /* dtype of a var matters */
  psg_tir_expr *z64, *one64, *lz;
  CHECK_OK(psg_tir_var_create(ctx, "z", psg_tir_dtype_int64(), NULL, NULL, &z64));
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_int64(), 1, NULL, &one64));
  CHECK_OK(psg_tir_let_create(ctx, z64, one64, one, NULL, &lz));
  psg_tir_expr *lx1;
  CHECK_OK(psg_tir_let_create(ctx, x, one, one, NULL, &lx1));
  check_differ(lx1, lz, "var: var dtypes differ (int32 vs int64)");
  /* map_free_vars (TVM's structural_equal(a, b, True)): free vars pair one
   * to one, like definitions; x + y against y + y is still unequal. */
  psg_tir_expr *exy = fx_bin(ctx, PSG_TIR_ADD, x, y), *eyx = fx_bin(ctx, PSG_TIR_ADD, y, x);
  psg_tir_expr *eyy = fx_bin(ctx, PSG_TIR_ADD, y, y);
  CHECK(psg_tir_structural_equal_ex(ex, ey, true, NULL));
  CHECK(!psg_tir_structural_equal_ex(ex, ey, false, NULL));
  CHECK(psg_tir_structural_equal_ex(exy, eyx, true, NULL));
  CHECK(!psg_tir_structural_equal_ex(exy, eyy, true, NULL));
  char *why = NULL;
  CHECK(!psg_tir_structural_equal_ex(exy, eyy, true, &why));
  CHECK(why && strstr(why, "b: var 'y' is bound to another var"));
  psg_free(why);
  CHECK(!psg_tir_structural_equal_ex(x, z64, true, NULL)); /* dtypes still differ */
  psg_tir_node *objs[] = {x, y, y2, one, ex, ey, ex2, lx, ly, lyx, z64, one64, lz, lx1, exy, eyx, eyy};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) psg_tir_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

/* Buffers compare field-wise: the name and offset_factor are ignored, the
 * scope (through the data var's pointer type) and the shape are not. */
static void test_buffers(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *i16 = fx_i32(ctx, 16), *i8 = fx_i32(ctx, 8), *zero = fx_i32(ctx, 0), *d1, *d2, *d3;
  CHECK_OK(psg_tir_pointer_var_create(ctx, "A", F32, NULL, NULL, &d1));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "B", F32, NULL, NULL, &d2));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "C", F32, "shared", NULL, &d3));
  psg_tir_buffer *A, *B, *C, *D;
  psg_tir_buffer_desc d = {.name = "A", .data = d1, .dtype = F32, .shape = &i16, .ndim = 1};
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &A));
  d.name = "B", d.data = d2, d.offset_factor = 4;
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &B));
  d.name = "C", d.data = d3;
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &C));
  d.name = "D", d.data = d2, d.shape = &i8;
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &D));
  psg_tir_expr *la, *lb, *lc, *ld;
  CHECK_OK(psg_tir_buffer_load_create(ctx, A, &zero, 1, NULL, NULL, &la));
  CHECK_OK(psg_tir_buffer_load_create(ctx, B, &zero, 1, NULL, NULL, &lb));
  CHECK_OK(psg_tir_buffer_load_create(ctx, C, &zero, 1, NULL, NULL, &lc));
  CHECK_OK(psg_tir_buffer_load_create(ctx, D, &zero, 1, NULL, NULL, &ld));
  CHECK(psg_tir_structural_equal(la, lb));
  CHECK_EQ_INT(psg_tir_structural_hash(la), psg_tir_structural_hash(lb));
  check_differ(la, lc, "buffer.data: var type annotations differ");
  check_differ(lb, ld, "buffer.shape[0]: IntImm values differ (16 vs 8)");
  /* a buffer's data var is a definition, then used consistently: A[0] + A[0]
   * against B[0] + D'[0] where D' aliases another var */
  psg_tir_expr *s1 = fx_bin(ctx, PSG_TIR_ADD, la, la), *s2 = fx_bin(ctx, PSG_TIR_ADD, lb, lc);
  CHECK(!psg_tir_structural_equal(s1, s2));
  psg_tir_node *objs[] = {i16, i8, zero, d1, d2, d3, A, B, C, D, la, lb, lc, ld, s1, s2};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) psg_tir_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

/* Every node kind: equal to an independent copy, unequal to a variant. */
static void test_kinds(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *one = fx_i32(ctx, 1), *two = fx_i32(ctx, 2), *f1, *s1, *s2, *t;
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, 1.0, NULL, &f1));
  CHECK_OK(psg_tir_string_imm_create(ctx, "a", 1, NULL, &s1));
  CHECK_OK(psg_tir_string_imm_create(ctx, "b", 1, NULL, &s2));
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), 1, NULL, &t));
  psg_tir_expr *c1, *c2, *r1, *r2, *b1, *b2, *e1, *e2, *sel1, *sel2;
  CHECK_OK(psg_tir_cast_create(ctx, F32, one, NULL, &c1));
  CHECK_OK(psg_tir_cast_create(ctx, psg_tir_dtype_int64(), one, NULL, &c2));
  check_differ(c1, c2, "dtypes differ (float32 vs int64)");
  CHECK_OK(psg_tir_ramp_create(ctx, one, two, 4, NULL, &r1));
  CHECK_OK(psg_tir_ramp_create(ctx, one, two, 8, NULL, &r2));
  check_differ(r1, r2, "dtypes differ (int32x4 vs int32x8)");
  CHECK_OK(psg_tir_broadcast_create(ctx, f1, 4, NULL, &b1));
  CHECK_OK(psg_tir_broadcast_create(ctx, f1, 4, NULL, &b2));
  CHECK(psg_tir_structural_equal(b1, b2));
  CHECK_OK(psg_tir_call_create(ctx, F32, "tir.exp", &f1, 1, NULL, &e1));
  CHECK_OK(psg_tir_call_create(ctx, F32, "tir.log", &f1, 1, NULL, &e2));
  check_differ(e1, e2, "ops differ (tir.exp vs tir.log)");
  CHECK_OK(psg_tir_select_create(ctx, t, one, two, NULL, &sel1));
  CHECK_OK(psg_tir_select_create(ctx, t, two, one, NULL, &sel2));
  check_differ(sel1, sel2, "true_value: IntImm values differ (1 vs 2)");
  check_differ(s1, s2, "StringImm values differ (\"a\" vs \"b\")");
  psg_tir_expr *sub = fx_bin(ctx, PSG_TIR_SUB, one, two), *add = fx_bin(ctx, PSG_TIR_ADD, one, two);
  check_differ(sub, add, "Sub vs Add");
  /* statements */
  psg_tir_stmt *ev1, *ev2, *seq1, *seq2, *w1, *w2, *as1, *as2, *at1, *at2;
  CHECK_OK(psg_tir_evaluate_create(ctx, one, NULL, &ev1));
  CHECK_OK(psg_tir_evaluate_create(ctx, two, NULL, &ev2));
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){ev1, ev1, ev1}, 3, NULL, &seq1));
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){ev1, ev1, ev2}, 3, NULL, &seq2));
  check_differ(seq1, seq2, "seq[2].value: IntImm values differ (1 vs 2)");
  CHECK_OK(psg_tir_while_create(ctx, t, ev1, NULL, &w1));
  CHECK_OK(psg_tir_while_create(ctx, t, ev1, NULL, &w2));
  CHECK(psg_tir_structural_equal(w1, w2));
  CHECK_OK(psg_tir_assert_stmt_create(ctx, t, s1, ev1, NULL, &as1));
  CHECK_OK(psg_tir_assert_stmt_create(ctx, t, s2, ev1, NULL, &as2));
  check_differ(as1, as2, "message: StringImm values differ (\"a\" vs \"b\")");
  CHECK_OK(psg_tir_attr_stmt_create(ctx, NULL, "pragma_a", one, ev1, NULL, &at1));
  CHECK_OK(psg_tir_attr_stmt_create(ctx, NULL, "pragma_b", one, ev1, NULL, &at2));
  check_differ(at1, at2, "attr keys differ (pragma_a vs pragma_b)");
  /* loops: kind and annotations count; loop vars are remapped */
  psg_tir_expr *i, *j;
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "j", I32, NULL, NULL, &j));
  psg_tir_stmt *evi, *evj, *l1, *l2, *l3, *l4;
  CHECK_OK(psg_tir_evaluate_create(ctx, i, NULL, &evi));
  CHECK_OK(psg_tir_evaluate_create(ctx, j, NULL, &evj));
  CHECK_OK(psg_tir_for_create(ctx, i, one, two, PSG_TIR_FOR_SERIAL, evi, NULL, NULL, &l1));
  CHECK_OK(psg_tir_for_create(ctx, j, one, two, PSG_TIR_FOR_SERIAL, evj, NULL, NULL, &l2));
  CHECK_OK(psg_tir_for_create(ctx, j, one, two, PSG_TIR_FOR_PARALLEL, evj, NULL, NULL, &l3));
  psg_attr *v;
  psg_attrs *ann;
  CHECK_OK(psg_attr_int(ctx, 1, &v));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"pragma_unroll"}, &v, 1, &ann));
  CHECK_OK(psg_tir_for_create(ctx, j, one, two, PSG_TIR_FOR_SERIAL, evj, ann, NULL, &l4));
  CHECK(psg_tir_structural_equal(l1, l2));
  CHECK_EQ_INT(psg_tir_structural_hash(l1), psg_tir_structural_hash(l2));
  check_differ(l1, l3, "loop kinds differ (serial vs parallel)");
  check_differ(l1, l4, "annotations differ");
  /* Allocate: the buffer var is a definition */
  psg_tir_expr *p1, *p2, *p3;
  CHECK_OK(psg_tir_pointer_var_create(ctx, "p", F32, "local", NULL, &p1));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "q", F32, "local", NULL, &p2));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "q", F32, "global", NULL, &p3));
  psg_tir_stmt *ep1, *ep2, *ep3, *al1, *al2, *al3;
  CHECK_OK(psg_tir_evaluate_create(ctx, p1, NULL, &ep1));
  CHECK_OK(psg_tir_evaluate_create(ctx, p2, NULL, &ep2));
  CHECK_OK(psg_tir_evaluate_create(ctx, p3, NULL, &ep3));
  CHECK_OK(psg_tir_allocate_create(ctx, p1, F32, &two, 1, NULL, ep1, NULL, NULL, &al1));
  CHECK_OK(psg_tir_allocate_create(ctx, p2, F32, &two, 1, NULL, ep2, NULL, NULL, &al2));
  CHECK_OK(psg_tir_allocate_create(ctx, p3, F32, &two, 1, NULL, ep3, NULL, NULL, &al3));
  CHECK(psg_tir_structural_equal(al1, al2));
  CHECK_EQ_INT(psg_tir_structural_hash(al1), psg_tir_structural_hash(al2));
  check_differ(al1, al3, "buffer_var: var type annotations differ");
  psg_attr_release(v);
  psg_attrs_release(ann);
  psg_tir_node *objs[] = {one, two, f1, s1, s2, t, c1, c2, r1, r2, b1, b2, e1, e2, sel1, sel2, sub, add, ev1, ev2,
                          seq1, seq2, w1, w2, as1, as2, at1, at2, i, j, evi, evj, l1, l2, l3, l4, p1, p2, p3,
                          ep1, ep2, ep3, al1, al2, al3};
  for (size_t k = 0; k < sizeof objs / sizeof *objs; k++) psg_tir_release(objs[k]);
  CHECK_CTX_CLEAN(ctx);
}

/* A PrimFunc's attrs and params count; param order matters. */
static void test_func_fields(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *g;
  psg_attr *t;
  CHECK_OK(psg_attr_bool(ctx, true, &t));
  CHECK_OK(psg_tir_prim_func_with_attr(f, "tir.noalias", t, &g));
  check_differ(f, g, "attrs differ");
  psg_tir_prim_func *swapped;
  psg_tir_expr *a = psg_tir_prim_func_get_param(f, 0), *n = psg_tir_prim_func_get_param(f, 1);
  psg_tir_buffer *A = psg_tir_prim_func_buffer_map_value(f, 0);
  CHECK_OK(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){n, a}, 2, psg_tir_get_body(f), NULL, (size_t[]){1}, &A, 1,
                                    psg_tir_prim_func_get_attrs(f), NULL, &swapped));
  check_differ(f, swapped, "buffer_map keys differ");
  psg_attr_release(t);
  psg_tir_release(f);
  psg_tir_release(g);
  psg_tir_release(swapped);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  I32 = psg_tir_dtype_int32();
  F32 = psg_tir_dtype_float32();
  RUN_TEST(test_remapping);
  RUN_TEST(test_free_vars_and_names);
  RUN_TEST(test_buffers);
  RUN_TEST(test_kinds);
  RUN_TEST(test_func_fields);
  return check_finish();
}
