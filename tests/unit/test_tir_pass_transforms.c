/* Passage — tir.RemoveNoOp and tir.ConvertSSA (src/tir/transforms/), run
 * through the registry on modules, each checked with the TIR interpreter:
 * the function computes the same buffers before and after. RemoveNoOp: every
 * removal it makes, the config (max_simplification_steps bounds the
 * rewrites, use_dataflow_analysis=true finds no dead store here), Relay functions
 * untouched. ConvertSSA: a shadowing LetStmt, a loop var reused, a PrimFunc
 * added twice; the result passes verify_well_formed where the input did not. */
#include "tir_build.h"

/* A module holding `f` as @f (and a Relay @main when `with_relay`). */
static psg_module *module_of(psg_tir_prim_func *f, bool with_relay) {
  static const char relay[] = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) { negative(%x) }\n";
  psg_module *m = NULL, *out = NULL;
  if (with_relay)
    CHECK_OK(psg_module_parse(TB.ctx, relay, strlen(relay), "m.relay", &m));
  else
    CHECK_OK(psg_module_create(TB.ctx, &m));
  psg_expr *gv = NULL;
  CHECK_OK(psg_global_var_create(TB.ctx, "f", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m, gv, f, &out));
  psg_expr_release(gv);
  psg_module_release(m);
  return out;
}

/* Runs registered pass `name` (options NULL) on m. */
static psg_status run_pass(const char *name, psg_module *m, psg_module **out) {
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_get(TB.ctx, name, NULL, &p));
  psg_status st = psg_pass_run(p, m, NULL, out);
  psg_pass_release(p);
  return st;
}

/* f and g give the same buffers on the int32 inputs `a` (n elements each,
 * nbuf buffers, every buffer gets a copy of a). */
static void check_same(psg_tir_prim_func *f, psg_tir_prim_func *g, size_t nbuf, const int32_t *a, int64_t n) {
  psg_tensor *args[4] = {0}, **of = NULL, **og = NULL;
  for (size_t i = 0; i < nbuf; i++) args[i] = tb_tensor(PSG_DTYPE_INT32, &n, 1, a);
  CHECK_OK(tb_run(f, args, nbuf, &of));
  CHECK_OK(tb_run(g, args, nbuf, &og));
  for (size_t i = 0; of && og && i < nbuf; i++) CHECK(psg_tensor_equal(of[i], og[i]));
  tb_free_outs(of, nbuf);
  tb_free_outs(og, nbuf);
  for (size_t i = 0; i < nbuf; i++) psg_tensor_release(args[i]);
}

static psg_pass_context *enter_config(const char *field, psg_attr *value) {
  psg_pass_context *pc = NULL;
  psg_attrs *d = NULL;
  psg_attr *dict = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_attrs_create(TB.ctx, &field, &value, 1, &d));
  CHECK_OK(psg_attr_dict(TB.ctx, d, &dict));
  CHECK_OK(psg_pass_context_set_config(pc, "tir.RemoveNoOp", dict));
  CHECK_OK(psg_pass_context_enter(pc));
  psg_attr_release(dict);
  psg_attrs_release(d);
  return pc;
}

static void test_remove_no_op(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4), *S = TB_BUF("S", TB_I32, 8);
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32), *x = tb_var("x", TB_I32);
  psg_tir_expr *zero = tb_i32(0);
  psg_tir_stmt *kept_if = tb_if(tb_lt(TB_LOAD(A, zero), tb_i32(1)), tb_eval(zero), TB_STORE(A, tb_i32(2), tb_i32(1)));
  psg_tir_stmt *body = TB_SEQ(
      tb_eval(zero),
      tb_for_kind(i, zero, zero, PSG_TIR_FOR_SERIAL, TB_STORE(A, tb_i32(1), zero)), /* zero extent */
      tb_for(j, 4, tb_eval(tb_add(j, tb_i32(1)))),                                  /* pure body */
      tb_let_stmt(x, tb_i32(5), tb_eval(x)),                                       /* pure let */
      kept_if,                                                                      /* flips */
      TB_STORE(A, TB_LOAD(A, tb_i32(2)), tb_i32(2)),                               /* to itself */
      TB_STORE(A, tb_add(TB_LOAD(A, tb_i32(3)), tb_i32(1)), tb_i32(3)),            /* kept */
      tb_attr("pragma_x", tb_i32(1), tb_eval(zero)),                               /* empty attr */
      tb_alloc(S, tb_decl(S, tb_eval(zero))),                                       /* empty allocation */
      tb_if(tb_int(TB_BOOL, 1), TB_STORE(A, tb_i32(7), zero), NULL),                /* constant condition */
      tb_eval(TB_CALL(TB_I32, "tir.assume", tb_lt(zero, tb_i32(1)))));              /* an effect: kept */
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, body);
  psg_module *m = module_of(f, true), *out = NULL;
  CHECK_OK(run_pass("tir.RemoveNoOp", m, &out));
  psg_tir_prim_func *g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g != NULL);
  if (g) {
    psg_tir_stmt *b = psg_tir_get_body(g);
    CHECK_EQ_INT(psg_tir_kind(b), PSG_TIR_SEQ_STMT);
    CHECK_EQ_INT(psg_tir_seq_size(b), 4);
    if (psg_tir_seq_size(b) == 4) {
      psg_tir_stmt *s0 = psg_tir_seq_get(b, 0);
      CHECK_EQ_INT(psg_tir_kind(s0), PSG_TIR_IF_THEN_ELSE);
      CHECK_EQ_INT(psg_tir_kind(psg_tir_get_cond(s0)), PSG_TIR_NOT);
      CHECK(psg_tir_if_get_else(s0) == NULL);
      CHECK_EQ_INT(psg_tir_kind(psg_tir_seq_get(b, 1)), PSG_TIR_BUFFER_STORE);
      CHECK_EQ_INT(psg_tir_kind(psg_tir_seq_get(b, 2)), PSG_TIR_BUFFER_STORE);
      CHECK_EQ_INT(psg_tir_kind(psg_tir_seq_get(b, 3)), PSG_TIR_EVALUATE);
    }
    CHECK(psg_module_lookup(out, "main") == psg_module_lookup(m, "main")); /* Relay untouched */
    int32_t a0[4] = {0, 5, 6, 7}, a1[4] = {3, 5, 6, 7};
    check_same(f, g, 1, a0, 4);
    check_same(f, g, 1, a1, 4);
  }
  psg_module_release(out);
  /* Nothing left: the body is Evaluate(0). Already minimal: the same module. */
  psg_module *m2 = module_of(tb_func(&A, 1, NULL, 0, TB_SEQ(tb_eval(tb_i32(3)), tb_for(j, 4, tb_eval(j)))), false);
  CHECK_OK(run_pass("tir.RemoveNoOp", m2, &out));
  g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_EVALUATE);
  psg_module *again = NULL;
  CHECK_OK(run_pass("tir.RemoveNoOp", out, &again));
  CHECK(again == out);
  psg_module_release(again);
  psg_module_release(out);
  psg_module_release(m2);
  psg_module_release(m);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_remove_no_op_config(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0,
                                 TB_SEQ(tb_eval(TB_LOAD(A, tb_i32(1))), tb_eval(TB_LOAD(A, tb_i32(2))),
                                        TB_STORE(A, tb_i32(1), tb_i32(0))));
  psg_module *m = module_of(f, false), *out = NULL;
  psg_attr *one = NULL, *yes = NULL;
  CHECK_OK(psg_attr_int(TB.ctx, 1, &one));
  CHECK_OK(psg_attr_bool(TB.ctx, true, &yes));
  /* One rewrite: the first Evaluate only (post-order); the second and the
   * SeqStmt stay. */
  psg_pass_context *pc = enter_config("max_simplification_steps", one);
  CHECK_OK(run_pass("tir.RemoveNoOp", m, &out));
  psg_tir_prim_func *g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g && psg_tir_seq_size(psg_tir_get_body(g)) == 3);
  if (g && psg_tir_seq_size(psg_tir_get_body(g)) == 3)
    CHECK_EQ_INT(psg_tir_kind(psg_tir_get_value(psg_tir_seq_get(psg_tir_get_body(g), 1))), PSG_TIR_BUFFER_LOAD);
  psg_module_release(out);
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  /* No limit: only the store is left. */
  CHECK_OK(run_pass("tir.RemoveNoOp", m, &out));
  g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_BUFFER_STORE);
  psg_module_release(out);
  out = NULL;
  /* With dataflow (tests/unit/test_tir_dead_store.c has its removals): the
   * store is read by nothing later but A is an output, so it stays. */
  pc = enter_config("use_dataflow_analysis", yes);
  CHECK_OK(run_pass("tir.RemoveNoOp", m, &out));
  g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_BUFFER_STORE);
  psg_module_release(out);
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
  psg_attr_release(one);
  psg_attr_release(yes);
  psg_module_release(m);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_convert_ssa(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_expr *x = tb_var("x", TB_I32), *i = tb_var("i", TB_I32);
  /* x = A[0] + 1; A[1] = x; (x = x * 3; A[2] = x); for i: A[i] += x; for i: A[i] += i */
  psg_tir_stmt *inner = tb_let_stmt(x, tb_mul(x, tb_i32(3)), TB_STORE(A, x, tb_i32(2)));
  psg_tir_stmt *loop = tb_for(i, 4, TB_STORE(A, tb_add(TB_LOAD(A, i), i), i));
  psg_tir_stmt *body = TB_SEQ(tb_let_stmt(x, tb_add(TB_LOAD(A, tb_i32(0)), tb_i32(1)),
                                          TB_SEQ(TB_STORE(A, x, tb_i32(1)), inner,
                                                 tb_for(i, 4, TB_STORE(A, tb_add(TB_LOAD(A, i), x), i)))),
                              loop);
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, body);
  CHECK_EQ_INT(psg_tir_verify_well_formed(f), PSG_ERR_TYPE); /* x and i defined twice */
  psg_module *m = module_of(f, true), *out = NULL;
  CHECK_OK(run_pass("tir.ConvertSSA", m, &out));
  psg_tir_prim_func *g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g && g != f);
  if (g) {
    CHECK_OK(psg_tir_verify_well_formed(g));
    int32_t a[4] = {10, 0, 0, 0};
    check_same(f, g, 1, a, 4);
    CHECK(psg_module_lookup(out, "main") == psg_module_lookup(m, "main"));
  }
  /* SSA already: the same module. */
  psg_module *again = NULL;
  CHECK_OK(run_pass("tir.ConvertSSA", out, &again));
  CHECK(again == out);
  psg_module_release(again);
  psg_module_release(out);
  psg_module_release(m);

  /* One PrimFunc under two names: the second's params and vars are fresh. */
  psg_tir_prim_func *h = tb_func(&A, 1, NULL, 0, tb_for(i, 4, TB_STORE(A, i, i)));
  psg_module *m2 = module_of(h, false), *m3 = NULL;
  psg_expr *gv = NULL;
  CHECK_OK(psg_global_var_create(TB.ctx, "g", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m2, gv, h, &m3));
  psg_expr_release(gv);
  CHECK_OK(run_pass("tir.ConvertSSA", m3, &out));
  if (out) {
    psg_tir_prim_func *f1 = psg_module_lookup_prim_func(out, "f"), *f2 = psg_module_lookup_prim_func(out, "g");
    CHECK(f1 == h);
    CHECK(f2 && f2 != h && psg_tir_prim_func_get_param(f2, 0) != psg_tir_prim_func_get_param(h, 0));
    CHECK(f2 && psg_tir_structural_equal(f1, f2));
    int32_t a[4] = {0};
    if (f2) check_same(h, f2, 1, a, 4);
  }
  psg_module_release(out);
  psg_module_release(m3);
  psg_module_release(m2);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Shared subtrees (UnrollLoop's copies share what does not use the loop
 * var): one holding a definition is renamed where it is met again, one
 * using a renamed var follows the rename, and one with neither is kept as
 * it is (design.md 169). */
static void test_convert_ssa_shared(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 8);
  psg_tir_expr *x = tb_var("x", TB_I32), *j = tb_var("j", TB_I32);
  psg_tir_expr *uses_x = tb_mul(x, tb_i32(3));                                     /* no definition, uses x */
  psg_tir_stmt *loop = tb_for(j, 4, TB_STORE(A, tb_add(TB_LOAD(A, j), j), j));     /* defines j */
  psg_tir_stmt *plain = TB_STORE(A, tb_add(TB_LOAD(A, tb_i32(0)), tb_i32(7)), tb_i32(7)); /* neither */
  psg_tir_stmt *body = TB_SEQ(plain, tb_let_stmt(x, TB_LOAD(A, tb_i32(0)), TB_SEQ(TB_STORE(A, uses_x, tb_i32(5)), loop)),
                              plain, tb_let_stmt(x, TB_LOAD(A, tb_i32(1)), TB_SEQ(TB_STORE(A, uses_x, tb_i32(6)), loop)));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, body);
  CHECK_EQ_INT(psg_tir_verify_well_formed(f), PSG_ERR_TYPE); /* x and j defined twice */
  psg_module *m = module_of(f, true), *out = NULL;
  CHECK_OK(run_pass("tir.ConvertSSA", m, &out));
  psg_tir_prim_func *g = out ? psg_module_lookup_prim_func(out, "f") : NULL;
  CHECK(g && g != f);
  if (g) {
    CHECK_OK(psg_tir_verify_well_formed(g));
    int32_t a[8] = {10, 20, 0, 0, 0, 0, 0, 0};
    check_same(f, g, 1, a, 8);
    /* the statement with no definition and no renamed var is the same node */
    psg_tir_stmt *seq = psg_tir_get_operand(g, 0);
    CHECK(psg_tir_get_operand(seq, 0) == plain && psg_tir_get_operand(seq, 2) == plain);
    /* the second let's x is fresh, and the shared x * 3 under it uses it */
    psg_tir_stmt *let2 = psg_tir_get_operand(seq, 3);
    psg_tir_expr *x2 = psg_tir_get_operand(let2, 0);
    psg_tir_stmt *store2 = psg_tir_get_operand(psg_tir_get_operand(let2, 2), 0);
    CHECK(x2 != x && psg_tir_get_operand(psg_tir_get_operand(store2, 1), 0) == x2);
  }
  psg_module_release(out);
  psg_module_release(m);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_remove_no_op);
  RUN_TEST(test_remove_no_op_config);
  RUN_TEST(test_convert_ssa);
  RUN_TEST(test_convert_ssa_shared);
  return check_finish();
}
