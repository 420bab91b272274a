/* Passage — IterVar (src/tir/iter_var.c) and the thread launches over it:
 * the constructor's checks and accessors, structural equality and hashing
 * (the var bound at the AttrStmt, kind and tag compared), the
 * printer's T.launch_thread / T.attr(T.iter_var(...)) forms, the
 * interpreter running a launch as a serial loop over the thread index, and
 * tir.ConvertSSA's function-scope thread vars and buffer-introduced vars
 * (each result checked with the interpreter). */
#include "tir_build.h"
#include "passage/module.h"
#include "passage/pass.h"
#include "passage/tvmscript.h"

static psg_tir_node *tb_iv(psg_tir_expr *var, psg_tir_expr *min, psg_tir_expr *ext, int type, const char *tag) {
  psg_tir_node *n;
  return tb_keep(psg_tir_iter_var_create(TB.ctx, var, min, ext, type, tag, NULL, &n), &n);
}

static psg_tir_stmt *tb_attr_node(psg_tir_node *node, const char *key, psg_tir_expr *v, psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_attr_stmt_create(TB.ctx, node, key, v, body, NULL, &s), &s);
}

/* A[tx] = A[tx] + k under `thread_extent` 4 of iv. */
static psg_tir_stmt *launch_add(psg_tir_node *iv, psg_tir_buffer *a, int64_t k) {
  psg_tir_expr *tx = psg_tir_iter_var_get_var(iv);
  return tb_attr_node(iv, "thread_extent", tb_i32(4), TB_STORE(a, tb_add(TB_LOAD(a, tx), tb_i32(k)), tx));
}

static void test_constructor(void) {
  tb_init(check_ctx());
  psg_tir_expr *tx = tb_var("tx", TB_I32);
  psg_tir_node *iv = tb_iv(tx, tb_i32(0), tb_i32(8), PSG_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  CHECK(iv && psg_tir_kind(iv) == PSG_TIR_ITER_VAR);
  CHECK(psg_tir_iter_var_get_var(iv) == tx);
  CHECK_EQ_INT(psg_tir_int_imm_value(psg_tir_iter_var_get_extent(iv)), 8);
  CHECK_EQ_INT(psg_tir_iter_var_type(iv), PSG_TIR_ITER_THREAD_INDEX);
  CHECK_STR(psg_tir_iter_var_thread_tag(iv), "threadIdx.x");
  CHECK_STR(psg_tir_kind_name(PSG_TIR_ITER_VAR), "IterVar");
  CHECK_STR(psg_tir_iter_type_name(PSG_TIR_ITER_DATA_PAR), "DataPar");
  CHECK(psg_tir_iter_type_name(9) == NULL);
  psg_tir_node *none = tb_iv(tx, NULL, NULL, PSG_TIR_ITER_DATA_PAR, NULL);
  CHECK(none && psg_tir_iter_var_get_min(none) == NULL && !strcmp(psg_tir_iter_var_thread_tag(none), ""));
  /* Errors. */
  psg_tir_node *bad = NULL;
  CHECK_EQ_INT(psg_tir_iter_var_create(TB.ctx, tb_i32(1), NULL, NULL, 0, "", NULL, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("IterVar: the var must be a Var"));
  CHECK_EQ_INT(psg_tir_iter_var_create(TB.ctx, tx, tb_i32(0), NULL, 0, "", NULL, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("needs both min and extent"));
  CHECK_EQ_INT(psg_tir_iter_var_create(TB.ctx, tx, NULL, NULL, 42, "", NULL, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("unknown iter_type 42"));
  CHECK(bad == NULL);
  psg_ctx_clear_diags(TB.ctx);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Equal launches over different vars are equal; tag, kind and range count. */
static void test_structural(void) {
  tb_init(check_ctx());
  psg_tir_buffer *a = TB_BUF("A", TB_I32, 4);
  psg_tir_node *i1 = tb_iv(tb_var("tx", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  psg_tir_node *i2 = tb_iv(tb_var("t", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  psg_tir_node *i3 = tb_iv(tb_var("tx", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_THREAD_INDEX, "threadIdx.y");
  psg_tir_node *i4 = tb_iv(tb_var("tx", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_DATA_PAR, "threadIdx.x");
  psg_tir_prim_func *f1 = tb_func(&a, 1, NULL, 0, launch_add(i1, a, 1));
  psg_tir_prim_func *f2 = tb_func(&a, 1, NULL, 0, launch_add(i2, a, 1));
  psg_tir_prim_func *f3 = tb_func(&a, 1, NULL, 0, launch_add(i3, a, 1));
  psg_tir_prim_func *f4 = tb_func(&a, 1, NULL, 0, launch_add(i4, a, 1));
  CHECK(psg_tir_structural_equal(f1, f2));
  CHECK(psg_tir_structural_hash(f1) == psg_tir_structural_hash(f2));
  char *why = NULL;
  CHECK(!psg_tir_structural_equal_explain(f1, f3, &why));
  CHECK(why && strstr(why, "thread tags differ"));
  psg_free(why);
  CHECK(!psg_tir_structural_equal(f1, f4));
  CHECK(psg_tir_structural_hash(f1) != psg_tir_structural_hash(f3));
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static char *print(psg_tir_prim_func *f) {
  char *text = NULL;
  CHECK_OK(psg_tir_script_print_func(f, "main", PSG_TIR_SCRIPT_NO_HEADER, &text, NULL));
  return text;
}

/* TVM's forms: a launch declares its var with T.env_thread the first time;
 * another IterVar prints as T.attr(T.iter_var(...)). */
static void test_print(void) {
  tb_init(check_ctx());
  psg_tir_buffer *a = TB_BUF("A", TB_I32, 4);
  psg_tir_node *iv = tb_iv(tb_var("threadIdx_x", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_THREAD_INDEX,
                           "threadIdx.x");
  psg_tir_stmt *two[2] = {launch_add(iv, a, 1), launch_add(iv, a, 2)};
  psg_tir_prim_func *f = tb_func(&a, 1, NULL, 0, tb_seqv(two, 2));
  char *text = print(f);
  CHECK(text && strstr(text, "    threadIdx_x = T.env_thread(\"threadIdx.x\")\n"
                             "    with T.launch_thread(threadIdx_x, 4):\n"
                             "        A[threadIdx_x] = A[threadIdx_x] + 1\n"
                             "    with T.launch_thread(threadIdx_x, 4):\n"));
  psg_free(text);
  psg_tir_expr *i = tb_var("i", TB_I32);
  psg_tir_node *pragma = tb_iv(i, NULL, NULL, PSG_TIR_ITER_DATA_PAR, "");
  psg_tir_prim_func *g =
      tb_func(&a, 1, NULL, 0, tb_attr_node(pragma, "pragma_launch_point", tb_i32(1), tb_for(i, 4, TB_STORE(a, i, i))));
  text = print(g);
  CHECK(text && strstr(text, "    i = T.int32()\n"
                             "    with T.attr(T.iter_var(i, None, \"DataPar\", \"\"), \"pragma_launch_point\", 1):\n"));
  psg_free(text);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Runs f on A = {10, 20, 30, 40}; *out gets A after. */
static void run4(psg_tir_prim_func *f, int32_t out[4]) {
  int64_t n = 4;
  int32_t in[4] = {10, 20, 30, 40};
  psg_tensor *arg = tb_tensor(PSG_DTYPE_INT32, &n, 1, in), **outs = NULL;
  memset(out, 0, 4 * sizeof *out);
  CHECK_OK(tb_run(f, &arg, 1, &outs));
  if (outs) memcpy(out, psg_tensor_data(outs[0]), 4 * sizeof *out);
  tb_free_outs(outs, 1);
  psg_tensor_release(arg);
}

/* The interpreter runs a launch as a loop of the thread index over [0, n). */
static void test_interpret_launch(void) {
  tb_init(check_ctx());
  psg_tir_buffer *a = TB_BUF("A", TB_I32, 4);
  psg_tir_node *iv = tb_iv(tb_var("tx", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  psg_tir_stmt *two[2] = {launch_add(iv, a, 1), launch_add(iv, a, 2)};
  int32_t got[4];
  run4(tb_func(&a, 1, NULL, 0, tb_seqv(two, 2)), got);
  CHECK(got[0] == 13 && got[1] == 23 && got[2] == 33 && got[3] == 43);
  /* A pragma over an IterVar is only a hint. */
  psg_tir_expr *i = tb_var("i", TB_I32);
  psg_tir_node *pragma = tb_iv(i, NULL, NULL, PSG_TIR_ITER_DATA_PAR, "");
  run4(tb_func(&a, 1, NULL, 0,
               tb_attr_node(pragma, "pragma_x", tb_i32(1), tb_for(i, 4, TB_STORE(a, tb_mul(i, i), i)))),
       got);
  CHECK(got[0] == 0 && got[1] == 1 && got[2] == 4 && got[3] == 9);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static psg_module *module2(psg_tir_prim_func *f, psg_tir_prim_func *g) {
  psg_module *m = NULL, *m1 = NULL, *m2 = NULL;
  psg_expr *ga = NULL, *gb = NULL;
  CHECK_OK(psg_module_create(TB.ctx, &m));
  CHECK_OK(psg_global_var_create(TB.ctx, "fa", NULL, &ga));
  CHECK_OK(psg_global_var_create(TB.ctx, "fb", NULL, &gb));
  CHECK_OK(psg_module_add_prim_func(m, ga, f, &m1));
  CHECK_OK(psg_module_add_prim_func(m1, gb, g, &m2));
  psg_expr_release(ga);
  psg_expr_release(gb);
  psg_module_release(m);
  psg_module_release(m1);
  return m2;
}

static psg_module *convert_ssa(psg_module *m) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(TB.ctx, "tir.ConvertSSA", NULL, &p));
  CHECK_OK(psg_pass_run(p, m, NULL, &out));
  psg_pass_release(p);
  return out;
}

/* The thread var of the AttrStmt node (borrowed). */
static psg_tir_expr *launched_var(const psg_tir_stmt *s) {
  return psg_tir_iter_var_get_var(psg_tir_attr_stmt_get_node(s));
}

/* One thread var launched twice in each of two functions: kept within a
 * function, renamed (once, for the whole function) in the second. */
static void test_convert_ssa_threads(void) {
  tb_init(check_ctx());
  psg_tir_buffer *a = TB_BUF("A", TB_I32, 4);
  psg_tir_node *iv = tb_iv(tb_var("tx", TB_I32), tb_i32(0), tb_i32(4), PSG_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  psg_tir_stmt *two[2] = {launch_add(iv, a, 1), launch_add(iv, a, 2)};
  psg_tir_prim_func *f = tb_func(&a, 1, NULL, 0, tb_seqv(two, 2));
  psg_module *m = module2(f, f);
  psg_module *out = convert_ssa(m);
  psg_tir_prim_func *fa = out ? psg_module_lookup_prim_func(out, "fa") : NULL;
  psg_tir_prim_func *fb = out ? psg_module_lookup_prim_func(out, "fb") : NULL;
  CHECK(fa == f);
  CHECK(fb && fb != f);
  if (fb) {
    psg_tir_stmt *b = psg_tir_get_body(fb);
    psg_tir_expr *v0 = launched_var(psg_tir_seq_get(b, 0)), *v1 = launched_var(psg_tir_seq_get(b, 1));
    CHECK(v0 && v0 == v1 && v0 != psg_tir_iter_var_get_var(iv));
    /* The rebuilt IterVar keeps its kind, tag and range. */
    psg_tir_node *riv = psg_tir_attr_stmt_get_node(psg_tir_seq_get(b, 0));
    CHECK(psg_tir_iter_var_type(riv) == PSG_TIR_ITER_THREAD_INDEX);
    CHECK_STR(psg_tir_iter_var_thread_tag(riv), "threadIdx.x");
    CHECK(psg_tir_iter_var_get_extent(riv) == psg_tir_iter_var_get_extent(iv));
    CHECK(psg_tir_structural_equal(fa, fb));
    int32_t x[4], y[4];
    run4(f, x);
    run4(fb, y);
    CHECK(memcmp(x, y, sizeof x) == 0);
  }
  psg_module_release(out);
  psg_module_release(m);
  /* A pragma naming the loop var of the For it annotates: nothing to do. */
  psg_tir_expr *i = tb_var("i", TB_I32);
  psg_tir_node *pragma = tb_iv(i, NULL, NULL, PSG_TIR_ITER_DATA_PAR, "");
  psg_tir_prim_func *g = tb_func(&a, 1, NULL, 0, tb_attr_node(pragma, "pragma_x", tb_i32(1), tb_for(i, 4, TB_STORE(a, i, i))));
  psg_tir_prim_func *h = tb_func(&a, 1, NULL, 0, TB_STORE(a, tb_i32(0), tb_i32(0)));
  m = module2(g, h);
  out = convert_ssa(m);
  CHECK(out && psg_module_lookup_prim_func(out, "fa") == g);
  psg_module_release(out);
  psg_module_release(m);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A buffer-map buffer whose shape var n is no param: the same function twice
 * gets another n in the second copy, in its buffer map and its body alike
 * (one buffer object). */
static void test_convert_ssa_buffer_vars(void) {
  tb_init(check_ctx());
  psg_tir_expr *n = tb_var("n", TB_I32);
  psg_tir_buffer *b = NULL;
  CHECK_OK(psg_tir_buffer_decl(TB.ctx, "B", TB_I32, &n, 1, NULL, NULL, &b));
  tb_keep(PSG_OK, &b);
  psg_tir_expr *i = tb_var("i", TB_I32);
  psg_tir_prim_func *f = tb_func(&b, 1, NULL, 0, tb_for_kind(i, tb_i32(0), n, PSG_TIR_FOR_SERIAL,
                                                             TB_STORE(b, tb_add(TB_LOAD(b, i), tb_i32(5)), i)));
  psg_module *m = module2(f, f);
  psg_module *out = convert_ssa(m);
  psg_tir_prim_func *fb = out ? psg_module_lookup_prim_func(out, "fb") : NULL;
  CHECK(fb && fb != f);
  if (fb) {
    psg_tir_buffer *mb = psg_tir_prim_func_buffer_map_value(fb, 0);
    psg_tir_stmt *loop = psg_tir_get_body(fb);
    psg_tir_stmt *store = psg_tir_get_body(loop);
    CHECK(psg_tir_buffer_get_shape(mb, 0) != n);
    CHECK(psg_tir_get_buffer(store) == mb);
    CHECK(psg_tir_for_get_extent(loop) == psg_tir_buffer_get_shape(mb, 0));
    CHECK(psg_tir_structural_equal(f, fb));
    CHECK_OK(psg_tir_verify_well_formed(fb));
    int32_t x[4], y[4];
    run4(f, x);
    run4(fb, y);
    CHECK(memcmp(x, y, sizeof x) == 0 && x[0] == 15);
  }
  psg_module_release(out);
  psg_module_release(m);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_constructor);
  RUN_TEST(test_structural);
  RUN_TEST(test_print);
  RUN_TEST(test_interpret_launch);
  RUN_TEST(test_convert_ssa_threads);
  RUN_TEST(test_convert_ssa_buffer_vars);
  return check_finish();
}
