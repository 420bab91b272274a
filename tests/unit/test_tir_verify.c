/* Passage — tir.analysis.verify_well_formed: well-formed functions pass;
 * each rule has a function that breaks it and the located diagnostic that
 * names the node. */
#include "tir_fixtures.h"

static psg_tir_dtype I32, F32;

/* A PrimFunc main(n) over `body` (no buffers). */
static psg_tir_prim_func *func_of(psg_ctx *ctx, psg_tir_expr *n, psg_tir_stmt *body) {
  psg_tir_prim_func *f = NULL;
  psg_attr *gs;
  psg_attrs *attrs;
  CHECK_OK(psg_attr_string(ctx, "main", 4, &gs));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"global_symbol"}, &gs, 1, &attrs));
  CHECK_OK(psg_tir_prim_func_create(ctx, &n, 1, body, NULL, NULL, NULL, 0, attrs, NULL, &f));
  psg_attr_release(gs);
  psg_attrs_release(attrs);
  return f;
}

/* Verifies f, expecting failure with a message containing `frag` (or
 * success when frag is NULL). */
static void expect(psg_ctx *ctx, const psg_tir_prim_func *f, const char *frag) {
  psg_ctx_clear_diags(ctx);
  psg_status st = psg_tir_verify_well_formed(f);
  if (!frag) {
    CHECK_OK(st);
    return;
  }
  CHECK_EQ_INT(st, PSG_ERR_TYPE);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), frag));
  if (d && !strstr(psg_diag_message(d), frag)) fprintf(stderr, "  got: %s\n", psg_diag_message(d));
}

static psg_tir_stmt *eval(psg_ctx *ctx, psg_tir_expr *e) {
  psg_tir_stmt *s = NULL;
  CHECK_OK(psg_tir_evaluate_create(ctx, e, NULL, &s));
  return s;
}

static psg_tir_stmt *loop(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *extent, psg_tir_stmt *body) {
  psg_tir_expr *zero = fx_i32(ctx, 0);
  psg_tir_stmt *s = NULL;
  CHECK_OK(psg_tir_for_create(ctx, var, zero, extent, PSG_TIR_FOR_SERIAL, body, NULL, NULL, &s));
  psg_tir_release(zero);
  return s;
}

static void test_well_formed(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0);
  expect(ctx, f, NULL);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

static void test_vars(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *i, *y, *x, *one = fx_i32(ctx, 1);
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "y", I32, NULL, NULL, &y));
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &x));
  /* undefined: for i in range(n): evaluate(y) */
  psg_tir_stmt *ey = eval(ctx, y), *l1 = loop(ctx, i, n, ey);
  psg_tir_prim_func *f1 = func_of(ctx, n, l1);
  expect(ctx, f1, "verify_well_formed: in @main: variable 'y' is used by Evaluate but never defined");
  /* out of scope: for i: evaluate(i); evaluate(i) */
  psg_tir_stmt *ei = eval(ctx, i), *l2 = loop(ctx, i, n, ei), *seq = NULL;
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){l2, ei}, 2, NULL, &seq));
  psg_tir_prim_func *f2 = func_of(ctx, n, seq);
  expect(ctx, f2, "variable 'i' is used by Evaluate outside the scope of its definition");
  /* defined twice: x = 1 in (x = 1 in evaluate(x)) */
  psg_tir_stmt *ex = eval(ctx, x), *in = NULL, *out = NULL;
  CHECK_OK(psg_tir_let_stmt_create(ctx, x, one, ex, NULL, &in));
  CHECK_OK(psg_tir_let_stmt_create(ctx, x, one, in, NULL, &out));
  psg_tir_prim_func *f3 = func_of(ctx, n, out);
  expect(ctx, f3, "variable 'x' is defined more than once (again by LetStmt)");
  /* a let's value cannot use its own var */
  psg_tir_expr *xp1 = fx_bin(ctx, PSG_TIR_ADD, x, one);
  psg_tir_stmt *self = NULL;
  CHECK_OK(psg_tir_let_stmt_create(ctx, x, xp1, ex, NULL, &self));
  psg_tir_prim_func *f4 = func_of(ctx, n, self);
  expect(ctx, f4, "variable 'x' is used by Add but never defined");
  /* a loop var bound again: for i: i = 1 in evaluate(i) */
  psg_tir_stmt *rebind = NULL;
  CHECK_OK(psg_tir_let_stmt_create(ctx, i, one, ei, NULL, &rebind));
  psg_tir_stmt *l3 = loop(ctx, i, n, rebind);
  psg_tir_prim_func *f5 = func_of(ctx, n, l3);
  expect(ctx, f5, "loop variable 'i' is bound again by LetStmt");
  /* a param defined again by a loop */
  psg_tir_stmt *en = eval(ctx, n), *l4 = loop(ctx, n, one, en);
  psg_tir_prim_func *f6 = func_of(ctx, n, l4);
  expect(ctx, f6, "variable 'n' is defined more than once (again by For)");
  /* well-formed: sequential loops over distinct vars, lets in scope */
  psg_tir_stmt *l5 = loop(ctx, i, n, ei), *l6 = loop(ctx, y, n, ey), *seq2 = NULL;
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){l5, l6}, 2, NULL, &seq2));
  psg_tir_prim_func *f7 = func_of(ctx, n, seq2);
  expect(ctx, f7, NULL);
  /* a pragma AttrStmt on a loop var around its loop (TVM's LowerOpaqueBlock
   * output) is not a second definition; a loop of the same var inside is */
  psg_tir_stmt *l8 = loop(ctx, i, n, ei), *pragma = NULL, *l9 = loop(ctx, i, n, l8), *pragma2 = NULL;
  CHECK_OK(psg_tir_attr_stmt_create(ctx, i, "pragma_x", one, l8, NULL, &pragma));
  psg_tir_prim_func *f8 = func_of(ctx, n, pragma);
  expect(ctx, f8, NULL);
  CHECK_OK(psg_tir_attr_stmt_create(ctx, i, "pragma_x", one, l9, NULL, &pragma2));
  psg_tir_prim_func *f9 = func_of(ctx, n, pragma2);
  expect(ctx, f9, "loop variable 'i' is bound again by For");
  psg_tir_node *objs[] = {n, i, y, x, one, ey, l1, f1, ei, l2, seq, f2, ex, in, out, f3, xp1, self, f4,
                          rebind, l3, f5, en, l4, f6, l5, l6, seq2, f7, l8, pragma, l9, f8, pragma2, f9};
  for (size_t k = 0; k < sizeof objs / sizeof *objs; k++) psg_tir_release(objs[k]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_buffers(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *i, *a, *zero = fx_i32(ctx, 0), *four = fx_i32(ctx, 4), *p, *q;
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "a", psg_tir_dtype_handle(), NULL, NULL, &a));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "p", F32, "local", NULL, &p));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "q", psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, 1), "local", NULL, &q));
  /* A: a buffer-map buffer of shape (n*4,) whose n is only in the shape */
  psg_tir_expr *n4 = fx_bin(ctx, PSG_TIR_MUL, n, four);
  psg_tir_buffer *A, *P, *Q;
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", F32, &n4, 1, NULL, NULL, &A));
  psg_tir_buffer_desc d = {.name = "P", .data = p, .dtype = F32, .shape = &four, .ndim = 1};
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &P));
  d.name = "Q", d.data = q;
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &Q));
  psg_tir_expr *ld2 = NULL, *ld1 = NULL, *lp = NULL;
  CHECK_OK(psg_tir_buffer_load_create(ctx, A, (psg_tir_expr *[]){i, zero}, 2, NULL, NULL, &ld2));
  CHECK_OK(psg_tir_buffer_load_create(ctx, A, &i, 1, NULL, NULL, &ld1));
  CHECK_OK(psg_tir_buffer_load_create(ctx, P, &zero, 1, NULL, NULL, &lp));
  psg_tir_stmt *e2 = eval(ctx, ld2), *e1 = eval(ctx, ld1), *ep = eval(ctx, lp);
  psg_tir_stmt *l2 = loop(ctx, i, four, e2), *l1 = loop(ctx, i, four, e1);
  psg_tir_prim_func *f = NULL, *g = NULL, *h = NULL;
  psg_span sp = {"f.py", 7, 5, 7, 20, NULL};
  psg_tir_stmt *l2s = NULL;
  CHECK_OK(psg_tir_for_create(ctx, i, zero, four, PSG_TIR_FOR_SERIAL, e2, NULL, &sp, &l2s));
  CHECK_OK(psg_tir_prim_func_create(ctx, &a, 1, l2s, NULL, (size_t[]){0}, &A, 1, NULL, NULL, &f));
  expect(ctx, f, "verify_well_formed: in PrimFunc: BufferLoad of buffer 'A' has 2 indices but the buffer has 1 dimension");
  const psg_diag *dg = psg_ctx_get_last_error(ctx);
  CHECK_STR(psg_diag_file(dg), "f.py"); /* the nearest located ancestor */
  CHECK_EQ_INT(psg_diag_line(dg), 7);
  CHECK_OK(psg_tir_prim_func_create(ctx, &a, 1, l1, NULL, (size_t[]){0}, &A, 1, NULL, NULL, &g));
  expect(ctx, g, NULL); /* n defined by A's shape */
  /* buffer map on a non-handle param */
  CHECK_OK(psg_tir_prim_func_create(ctx, &n, 1, l1, NULL, (size_t[]){0}, &A, 1, NULL, NULL, &h));
  expect(ctx, h, "param 'n' is mapped to buffer 'A' but has dtype int32, not handle");
  /* Allocate + DeclBuffer, then a use of P outside the DeclBuffer */
  psg_tir_stmt *decl = NULL, *alloc = NULL, *seq = NULL, *alloc_bad = NULL, *declq = NULL;
  CHECK_OK(psg_tir_decl_buffer_create(ctx, P, ep, NULL, &decl));
  CHECK_OK(psg_tir_allocate_create(ctx, p, F32, &four, 1, NULL, decl, NULL, NULL, &alloc));
  psg_tir_prim_func *k1 = func_of(ctx, n, alloc);
  expect(ctx, k1, NULL);
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){decl, ep}, 2, NULL, &seq));
  psg_tir_stmt *alloc2 = NULL;
  CHECK_OK(psg_tir_allocate_create(ctx, p, F32, &four, 1, NULL, seq, NULL, NULL, &alloc2));
  psg_tir_prim_func *k2 = func_of(ctx, n, alloc2);
  expect(ctx, k2, "buffer 'P' is used by BufferLoad outside the scope of its declaration");
  /* an alias buffer (no declaration) over a data var nobody allocated */
  psg_tir_prim_func *k3 = func_of(ctx, n, ep);
  expect(ctx, k3, "variable 'p' is used by Buffer but never defined");
  /* Allocate whose pointer element differs */
  CHECK_OK(psg_tir_decl_buffer_create(ctx, Q, ep, NULL, &declq));
  CHECK_OK(psg_tir_allocate_create(ctx, q, F32, &four, 1, NULL, e1, NULL, NULL, &alloc_bad));
  psg_tir_stmt *l3 = loop(ctx, i, four, alloc_bad);
  psg_tir_prim_func *k4 = NULL;
  CHECK_OK(psg_tir_prim_func_create(ctx, &a, 1, l3, NULL, (size_t[]){0}, &A, 1, NULL, NULL, &k4));
  expect(ctx, k4, "Allocate of 'q' has dtype float32 but its buffer var points to int8");
  psg_tir_node *objs[] = {n, i, a, zero, four, p, q, n4, A, P, Q, ld2, ld1, lp, e2, e1, ep, l2, l1, f, g, h, l2s,
                          decl, alloc, seq, alloc_bad, declq, k1, alloc2, k2, k3, l3, k4};
  for (size_t k = 0; k < sizeof objs / sizeof *objs; k++) psg_tir_release(objs[k]);
  CHECK_CTX_CLEAN(ctx);
}

/* Many problems: each reported (up to the cap), with a closing note. */
static void test_many(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *y;
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "y", I32, NULL, NULL, &y));
  psg_tir_stmt *ey = eval(ctx, y), *stmts[30], *seq;
  for (int k = 0; k < 30; k++) stmts[k] = ey;
  CHECK_OK(psg_tir_seq_stmt_create(ctx, stmts, 30, NULL, &seq));
  psg_tir_prim_func *f = func_of(ctx, n, seq);
  psg_ctx_clear_diags(ctx);
  CHECK_EQ_INT(psg_tir_verify_well_formed(f), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 21);
  CHECK(strstr(psg_diag_message(psg_ctx_get_diag(ctx, 20)), "10 more problems not shown"));
  psg_tir_release(f);
  psg_tir_release(seq);
  psg_tir_release(ey);
  psg_tir_release(y);
  psg_tir_release(n);
  CHECK_CTX_CLEAN(ctx);
}

/* One function with every statement kind, well formed; it verifies, equals
 * an independent copy (vars remapped through every binder) and differs from
 * a copy whose AttrStmt var is used inconsistently. */
static psg_tir_prim_func *all_kinds(psg_ctx *ctx, bool break_it) {
  psg_tir_expr *a, *n, *tx, *i, *y, *p, *zero = fx_i32(ctx, 0), *two = fx_i32(ctx, 2), *four = fx_i32(ctx, 4), *msg, *foo;
  CHECK_OK(psg_tir_var_create(ctx, "a", psg_tir_dtype_handle(), NULL, NULL, &a));
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "threadIdx.x", I32, NULL, NULL, &tx));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "y", I32, NULL, NULL, &y));
  CHECK_OK(psg_tir_pointer_var_create(ctx, "p", F32, "local", NULL, &p));
  CHECK_OK(psg_tir_string_imm_create(ctx, "n must be positive", 18, NULL, &msg));
  CHECK_OK(psg_tir_string_imm_create(ctx, "foo", 3, NULL, &foo));
  psg_tir_buffer *A, *P;
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", F32, &n, 1, NULL, NULL, &A));
  psg_tir_buffer_desc d = {.name = "P", .data = p, .dtype = F32, .shape = &four, .ndim = 1};
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &P));
  psg_tir_expr *i_lt_n = fx_bin(ctx, PSG_TIR_LT, i, n), *i_lt_2 = fx_bin(ctx, PSG_TIR_LT, i, two);
  psg_tir_expr *n_gt_0 = fx_bin(ctx, PSG_TIR_GT, n, zero), *ipt = fx_bin(ctx, PSG_TIR_ADD, i, break_it ? i : tx);
  psg_tir_expr *cy, *let, *p0, *ex, *sel, *ext;
  CHECK_OK(psg_tir_cast_create(ctx, F32, y, NULL, &cy));
  CHECK_OK(psg_tir_let_create(ctx, y, ipt, cy, NULL, &let));
  CHECK_OK(psg_tir_buffer_load_create(ctx, P, &zero, 1, NULL, NULL, &p0));
  CHECK_OK(psg_tir_call_create(ctx, F32, "tir.exp", &p0, 1, NULL, &ex));
  CHECK_OK(psg_tir_select_create(ctx, i_lt_2, let, ex, NULL, &sel));
  CHECK_OK(psg_tir_call_create(ctx, I32, "tir.call_extern", (psg_tir_expr *[]){foo, i}, 2, NULL, &ext));
  psg_tir_stmt *store, *call, *ite, *loop, *ev0, *wh, *seq, *decl, *alloc, *as, *attr;
  CHECK_OK(psg_tir_buffer_store_create(ctx, A, sel, &i, 1, NULL, NULL, &store));
  CHECK_OK(psg_tir_evaluate_create(ctx, ext, NULL, &call));
  CHECK_OK(psg_tir_if_then_else_create(ctx, i_lt_n, store, call, NULL, &ite));
  CHECK_OK(psg_tir_for_create(ctx, i, zero, n, PSG_TIR_FOR_PARALLEL, ite, NULL, NULL, &loop));
  CHECK_OK(psg_tir_evaluate_create(ctx, zero, NULL, &ev0));
  CHECK_OK(psg_tir_while_create(ctx, n_gt_0, ev0, NULL, &wh));
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){loop, wh}, 2, NULL, &seq));
  CHECK_OK(psg_tir_decl_buffer_create(ctx, P, seq, NULL, &decl));
  CHECK_OK(psg_tir_allocate_create(ctx, p, F32, &four, 1, NULL, decl, NULL, NULL, &alloc));
  CHECK_OK(psg_tir_assert_stmt_create(ctx, n_gt_0, msg, alloc, NULL, &as));
  CHECK_OK(psg_tir_attr_stmt_create(ctx, tx, "thread_extent", four, as, NULL, &attr));
  psg_tir_prim_func *f = NULL;
  CHECK_OK(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){a, n}, 2, attr, NULL, (size_t[]){0}, &A, 1, NULL, NULL, &f));
  psg_tir_node *objs[] = {a, n, tx, i, y, p, zero, two, four, msg, foo, A, P, i_lt_n, i_lt_2, n_gt_0, ipt, cy, let,
                          p0, ex, sel, ext, store, call, ite, loop, ev0, wh, seq, decl, alloc, as, attr};
  for (size_t k = 0; k < sizeof objs / sizeof *objs; k++) psg_tir_release(objs[k]);
  return f;
}

static void test_all_kinds(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = all_kinds(ctx, false), *g = all_kinds(ctx, false), *h = all_kinds(ctx, true);
  expect(ctx, f, NULL);
  expect(ctx, h, NULL);
  CHECK(psg_tir_structural_equal(f, g));
  CHECK_EQ_INT(psg_tir_structural_hash(f), psg_tir_structural_hash(g));
  char *path = NULL;
  CHECK(!psg_tir_structural_equal_explain(f, h, &path));
  CHECK_STR(path, "body.body.body.body.body.seq[0].body.then_case.value.true_value.value.b: "
                  "var 'threadIdx.x' is bound to another var than 'i'");
  psg_free(path);
  psg_tir_release(f);
  psg_tir_release(g);
  psg_tir_release(h);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  I32 = psg_tir_dtype_int32();
  F32 = psg_tir_dtype_float32();
  RUN_TEST(test_well_formed);
  RUN_TEST(test_vars);
  RUN_TEST(test_buffers);
  RUN_TEST(test_many);
  RUN_TEST(test_all_kinds);
  return check_finish();
}
