/* Passage — tir.Simplify on small PrimFuncs built in C
 * (psg_tir_simplify_prim_func): proved ifs pruned, loops of extent 0 and 1,
 * self-stores, lets, thread extents, each tir.Simplify config field changing
 * what happens (or refused when not built), the pass's declaration, and a
 * 10,000-deep loop nest under a 1 MiB stack. */
#include <pthread.h>
#include "arith_check.h"

static psg_tir_buffer *A;    /* float32[16] */
static psg_tir_buffer *B;    /* bool[1] */
static psg_tir_expr *Ah, *Bh; /* their params */

static psg_tir_stmt *ST(psg_tir_expr *idx, psg_tir_expr *value) {
  psg_tir_stmt *s = NULL;
  psg_tir_buffer *buf = psg_tir_dtype_is_bool(psg_tir_dtype_of(value)) ? B : A;
  psg_tir_buffer_store_create(actx, buf, value, &idx, 1, NULL, NULL, &s);
  return pooled(s);
}
static psg_tir_expr *LD(psg_tir_expr *idx) {
  psg_tir_expr *e = NULL;
  psg_tir_buffer_load_create(actx, A, &idx, 1, NULL, NULL, &e);
  return pooled(e);
}
static psg_tir_stmt *FOR(psg_tir_expr *v, psg_tir_expr *min, psg_tir_expr *ext, psg_tir_stmt *body) {
  psg_tir_stmt *s = NULL;
  psg_tir_for_create(actx, v, min, ext, PSG_TIR_FOR_SERIAL, body, NULL, NULL, &s);
  return pooled(s);
}
static psg_tir_stmt *IF(psg_tir_expr *c, psg_tir_stmt *t, psg_tir_stmt *e) {
  psg_tir_stmt *s = NULL;
  psg_tir_if_then_else_create(actx, c, t, e, NULL, &s);
  return pooled(s);
}
static psg_tir_stmt *SEQ2(psg_tir_stmt *a, psg_tir_stmt *b) {
  psg_tir_stmt *v[2] = {a, b}, *s = NULL;
  psg_tir_seq_stmt_create(actx, v, 2, NULL, &s);
  return pooled(s);
}
static psg_tir_stmt *ASSUME(psg_tir_expr *c) {
  psg_tir_expr *call = NULL;
  psg_tir_stmt *s = NULL;
  psg_tir_call_create(actx, DT("int32"), "tir.assume", &c, 1, NULL, &call);
  psg_tir_evaluate_create(actx, pooled(call), NULL, &s);
  return pooled(s);
}
static psg_tir_expr *F1(void) { return FC("float32", 1); }

static void setup_buffers(void) {
  psg_tir_expr *shape = IC(16), *one = IC(1);
  psg_tir_buffer_decl(actx, "A", DT("float32"), &shape, 1, NULL, NULL, &A);
  psg_tir_buffer_decl(actx, "B", DT("bool"), &one, 1, NULL, NULL, &B);
  pooled(A), pooled(B);
  Ah = VARD("A_h", "handle");
  Bh = VARD("B_h", "handle");
}

static psg_tir_prim_func *FUNC(psg_tir_stmt *body) {
  psg_tir_expr *params[2] = {Ah, Bh};
  size_t map[2] = {0, 1};
  psg_tir_buffer *bufs[2] = {A, B};
  psg_tir_prim_func *f = NULL;
  psg_tir_prim_func_create(actx, params, 2, body, NULL, map, bufs, 2, NULL, NULL, &f);
  return pooled(f);
}

/* Simplifies body in a function; returns the new body (borrowed). */
/* Also checks that a well-formed input stays well-formed and that a second
 * run changes nothing (structurally). */
static psg_tir_stmt *SIMP_CFG(psg_tir_stmt *body, psg_attrs *cfg) {
  psg_tir_prim_func *in = FUNC(body), *out = NULL, *again = NULL;
  bool wf = psg_tir_verify_well_formed(in) == PSG_OK;
  psg_ctx_clear_diags(actx);
  psg_status st = psg_tir_simplify_prim_func(in, cfg, &out);
  CHECK_OK(st);
  if (st) return NULL;
  pooled(out);
  if (wf) CHECK_OK(psg_tir_verify_well_formed(out));
  CHECK_OK(psg_tir_simplify_prim_func(out, cfg, &again));
  if (again) {
    CHECK(psg_tir_structural_equal(again, out));
    pooled(again);
  }
  return psg_tir_get_body(out);
}
static psg_tir_stmt *SIMP(psg_tir_stmt *body) { return SIMP_CFG(body, NULL); }

static psg_attrs *CFG(const char *field, bool v) {
  psg_attr *a = NULL;
  psg_attrs *d = NULL;
  psg_attr_bool(actx, v, &a);
  psg_attrs_create(actx, &field, &a, 1, &d);
  psg_attr_release(a);
  return d; /* released by cfg_free */
}
static void cfg_free(psg_attrs *d) { psg_attrs_release(d); }

static int K(const psg_tir_node *n) { return n ? psg_tir_kind(n) : -1; }
static bool is_noop(const psg_tir_stmt *s) {
  return K(s) == PSG_TIR_EVALUATE && psg_tir_kind(psg_tir_get_value(s)) == PSG_TIR_INT_IMM;
}

static void test_proved_if_removed(void) {
  psg_tir_expr *i = VAR("i");
  psg_tir_stmt *r = SIMP(FOR(i, IC(0), IC(16), IF(LT(i, IC(16)), ST(i, F1()), NULL)));
  CHECK_EQ_INT(K(r), PSG_TIR_FOR);
  CHECK_EQ_INT(K(psg_tir_get_body(r)), PSG_TIR_BUFFER_STORE);
  /* else branch of a condition proved false */
  psg_tir_stmt *s2 = ST(i, FC("float32", 2));
  r = SIMP(FOR(i, IC(0), IC(16), IF(GE(i, IC(16)), ST(i, F1()), s2)));
  CHECK(psg_tir_get_body(r) == s2);
  /* false without else: nothing left in the loop, so no loop */
  r = SIMP(FOR(i, IC(0), IC(16), IF(LT(i, IC(0)), ST(i, F1()), NULL)));
  CHECK(is_noop(r));
  /* an undecided condition stays */
  r = SIMP(FOR(i, IC(0), IC(16), IF(LT(i, IC(8)), ST(i, F1()), NULL)));
  CHECK_EQ_INT(K(psg_tir_get_body(r)), PSG_TIR_IF_THEN_ELSE);
}

static void test_nested_conditions(void) {
  psg_tir_expr *i = VAR("i"), *n = VAR("n");
  /* if i == 5: if i < 7: store -> if i == 5: store */
  psg_tir_stmt *r = SIMP(FOR(i, IC(0), IC(16), IF(EQ(i, IC(5)), IF(LT(i, IC(7)), ST(i, F1()), NULL), NULL)));
  psg_tir_stmt *outer = psg_tir_get_body(r);
  CHECK_EQ_INT(K(outer), PSG_TIR_IF_THEN_ELSE);
  CHECK_EQ_INT(K(psg_tir_if_get_then(outer)), PSG_TIR_BUFFER_STORE);
  /* the same condition twice with a var: the inner one is known */
  r = SIMP(FOR(i, IC(0), IC(16), IF(EQ(i, n), IF(EQ(i, n), ST(i, F1()), NULL), NULL)));
  CHECK_EQ_INT(K(psg_tir_if_get_then(psg_tir_get_body(r))), PSG_TIR_BUFFER_STORE);
  /* in the else branch the negation is known */
  psg_tir_stmt *inner = IF(NE(i, n), ST(i, F1()), NULL);
  r = SIMP(FOR(i, IC(0), IC(16), IF(EQ(i, n), ST(i, F1()), inner)));
  CHECK_EQ_INT(K(psg_tir_if_get_else(psg_tir_get_body(r))), PSG_TIR_BUFFER_STORE);
  /* and the scope ends with the if: a sibling after it is not simplified */
  psg_tir_stmt *after = IF(LT(i, IC(4)), ST(i, F1()), NULL);
  r = SIMP(FOR(i, IC(0), IC(16), SEQ2(IF(LT(i, IC(4)), ST(i, F1()), NULL), after)));
  CHECK_EQ_INT(K(psg_tir_seq_get(psg_tir_get_body(r), 1)), PSG_TIR_IF_THEN_ELSE);
}

static void test_loops(void) {
  psg_tir_expr *i = VAR("i"), *x = VAR("x");
  /* extent 0 (also n - n): removed */
  CHECK(is_noop(SIMP(FOR(i, IC(0), IC(0), ST(i, F1())))));
  CHECK(is_noop(SIMP(FOR(i, IC(0), SUB(x, x), ST(i, F1())))));
  /* extent 1: the body with i = min */
  psg_tir_stmt *r = SIMP(FOR(i, IC(3), IC(1), ST(i, F1())));
  CHECK_EQ_INT(K(r), PSG_TIR_BUFFER_STORE);
  CHECK_STR(show(psg_tir_get_index(r, 0)), "3");
  r = SIMP(FOR(i, x, IC(1), ST(ADD(i, IC(1)), F1())));
  CHECK_STR(show(psg_tir_get_index(r, 0)), "(x + 1)");
  /* loop bounds simplified, indices too */
  r = SIMP(FOR(i, ADD(IC(0), IC(0)), MUL(IC(4), IC(4)), ST(FDIV(ADD(MUL(i, IC(16)), IC(3)), IC(16)), F1())));
  CHECK_STR(show(psg_tir_for_get_extent(r)), "16");
  CHECK_STR(show(psg_tir_get_index(psg_tir_get_body(r), 0)), "i");
  /* a nest of two loops flattened and unflattened */
  psg_tir_expr *j = VAR("j");
  psg_tir_expr *flat = ADD(MUL(i, IC(4)), j);
  r = SIMP(FOR(i, IC(0), IC(4), FOR(j, IC(0), IC(4), ST(ADD(FDIV(flat, IC(4)), FMOD(flat, IC(4))), F1()))));
  CHECK_STR(show(psg_tir_get_index(psg_tir_get_body(psg_tir_get_body(r)), 0)), "(i + j)");
}

static void test_self_store_and_let(void) {
  CHECK(is_noop(SIMP(ST(IC(0), LD(IC(0))))));
  /* A[0] = A[0] + (5.0 - 5.0) too (TVM's TestLoadStoreNoopAfterSimplify) */
  CHECK(is_noop(SIMP(ST(IC(0), ADD(LD(IC(0)), SUB(FC("float32", 5), FC("float32", 5)))))));
  CHECK_EQ_INT(K(SIMP(ST(IC(0), LD(IC(1))))), PSG_TIR_BUFFER_STORE);
  /* let n = 10 in for i < n: if i < 12 -> the store (TVM's test_stmt_simplify) */
  psg_tir_expr *n = VAR("n"), *i = VAR("i");
  psg_tir_stmt *let = NULL;
  CHECK_OK(psg_tir_let_stmt_create(actx, n, IC(10), FOR(i, IC(0), n, IF(LT(i, IC(12)), ST(i, F1()), NULL)), NULL, &let));
  psg_tir_stmt *r = SIMP(pooled(let));
  CHECK_EQ_INT(K(r), PSG_TIR_FOR);
  CHECK_STR(show(psg_tir_for_get_extent(r)), "10");
  CHECK_EQ_INT(K(psg_tir_get_body(r)), PSG_TIR_BUFFER_STORE);
  /* an int let that reads no memory is substituted (TVM's CanInlineLetStmt;
   * this pinned a kept LetStmt before) */
  psg_tir_expr *m = VAR("m"), *x = VAR("x");
  CHECK_OK(psg_tir_let_stmt_create(actx, m, FMOD(x, IC(8)), IF(LT(m, IC(8)), ST(m, F1()), NULL), NULL, &let));
  r = SIMP(pooled(let));
  CHECK_EQ_INT(K(r), PSG_TIR_BUFFER_STORE);
  CHECK_STR(show(psg_tir_get_index(r, 0)), "(x % 8)");
  /* a float let stays, and so does its use */
  psg_tir_expr *v = VARD("v", "float32");
  CHECK_OK(psg_tir_let_stmt_create(actx, v, MUL(LD(IC(0)), FC("float32", 2)), ST(IC(1), v), NULL, &let));
  r = SIMP(pooled(let));
  CHECK_EQ_INT(K(r), PSG_TIR_LET_STMT);
  CHECK_EQ_INT(K(psg_tir_get_body(r)), PSG_TIR_BUFFER_STORE);
}

static void test_conditions_in_expressions(void) {
  /* if i < 12: A[i] = if_then_else(i < 12, 1.0, 2.0) -> A[i] = 1.0 (TVM's TestIfThenElseExpr) */
  psg_tir_expr *i = VAR("i"), *j = VAR("j");
  psg_tir_expr *args[3] = {LT(i, IC(12)), F1(), FC("float32", 2)}, *ite = NULL;
  CHECK_OK(psg_tir_call_create(actx, DT("float32"), "tir.if_then_else", args, 3, NULL, &ite));
  psg_tir_stmt *r = SIMP(FOR(i, IC(0), IC(16), IF(LT(i, IC(12)), ST(i, pooled(ite)), NULL)));
  CHECK_STR(show(psg_tir_buffer_store_get_value(psg_tir_if_get_then(psg_tir_get_body(r)))), "1");
  /* if i < j: B[0] = i < j + 1 -> True (TVM's TestProvableConditionWithOffset) */
  r = SIMP(IF(LT(i, j), ST(IC(0), LT(i, ADD(j, IC(1)))), NULL));
  CHECK_STR(show(psg_tir_buffer_store_get_value(psg_tir_if_get_then(r))), "True");
}

static psg_tir_stmt *LETS(psg_tir_expr *v, psg_tir_expr *value, psg_tir_stmt *body) {
  psg_tir_stmt *s = NULL;
  psg_tir_let_stmt_create(actx, v, value, body, NULL, &s);
  return pooled(s);
}

static void test_negations_and_lets(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *n = VAR("n");
  psg_tir_stmt *s0 = ST(i, FC("float32", 0)), *s1 = ST(i, F1());
  /* if i == 5: (if i != 5: s0 else s1) -> if i == 5: s1 (TVM's TestNegationOfCondition) */
  psg_tir_stmt *r = SIMP(FOR(i, IC(0), IC(16), IF(EQ(i, IC(5)), IF(NE(i, IC(5)), s0, s1), NULL)));
  CHECK(psg_tir_if_get_then(psg_tir_get_body(r)) == s1);
  r = SIMP(FOR(i, IC(0), IC(16), IF(NE(i, IC(5)), IF(EQ(i, IC(5)), s0, s1), NULL)));
  CHECK(psg_tir_if_get_then(psg_tir_get_body(r)) == s1);
  r = SIMP(FOR(i, IC(0), IC(16), IF(EQ(i, n), IF(NE(i, n), s0, s1), NULL)));
  CHECK(psg_tir_if_get_then(psg_tir_get_body(r)) == s1);
  /* else of `i == n or j == n` knows both are false (TVM's TestLiteralConstraintSplitBooleanOr) */
  r = SIMP(FOR(i, IC(0), IC(16), FOR(j, IC(0), IC(16), IF(OR(EQ(i, n), EQ(j, n)), s0, IF(EQ(i, n), s1, s0)))));
  CHECK(psg_tir_if_get_else(psg_tir_get_body(psg_tir_get_body(r))) == s0);
  /* `i == n and j == n` gives each conjunct */
  r = SIMP(FOR(i, IC(0), IC(16), FOR(j, IC(0), IC(16), IF(AND(EQ(i, n), EQ(j, n)), IF(EQ(i, n), s1, NULL), NULL))));
  CHECK(psg_tir_if_get_then(psg_tir_get_body(psg_tir_get_body(r))) == s1);
  /* condition = i < 3; if condition or 3 <= i: B[0] = condition -> the store (TestProveConditionUsingLet) */
  psg_tir_expr *c = VARD("condition", "bool");
  psg_tir_stmt *store_c = ST(IC(0), c);
  r = SIMP(FOR(i, IC(0), IC(4), LETS(c, LT(i, IC(3)), IF(OR(c, GE(i, IC(3))), store_c, NULL))));
  psg_tir_stmt *let = psg_tir_get_body(r);
  CHECK_EQ_INT(K(let), PSG_TIR_LET_STMT);
  CHECK(psg_tir_get_body(let) == store_c);
  /* if i < 3: if condition: ... -> the inner if goes, the stored value stays (TestProveLetCondition) */
  r = SIMP(FOR(i, IC(0), IC(4), LETS(c, LT(i, IC(3)), IF(LT(i, IC(3)), IF(c, store_c, NULL), NULL))));
  CHECK(psg_tir_if_get_then(psg_tir_get_body(psg_tir_get_body(r))) == store_c);
  /* if condition: if condition: B[0] = condition -> B[0] = True inside (TestProveRepeatedLetCondition) */
  r = SIMP(FOR(i, IC(0), IC(4), LETS(c, LT(i, IC(3)), IF(c, IF(c, store_c, NULL), NULL))));
  psg_tir_stmt *inner = psg_tir_if_get_then(psg_tir_get_body(psg_tir_get_body(r)));
  CHECK_EQ_INT(K(inner), PSG_TIR_BUFFER_STORE);
  CHECK_STR(show(psg_tir_buffer_store_get_value(inner)), "True");
}

static void test_thread_extent(void) {
  psg_tir_expr *tx = VAR("threadIdx.x");
  psg_tir_stmt *attr = NULL;
  CHECK_OK(psg_tir_attr_stmt_create(actx, tx, "thread_extent", IC(8), IF(LT(tx, IC(8)), ST(tx, F1()), NULL), NULL,
                                    &attr));
  psg_tir_stmt *r = SIMP(pooled(attr));
  CHECK_EQ_INT(K(r), PSG_TIR_ATTR_STMT);
  CHECK_EQ_INT(K(psg_tir_get_body(r)), PSG_TIR_BUFFER_STORE);
}

static void test_config_transitive(void) {
  /* if 0 < i and i <= j: if 0 < j: store */
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *k = VAR("k");
  psg_tir_stmt *body = IF(AND(LT(IC(0), i), LE(i, j)), IF(LT(IC(0), j), ST(IC(0), F1()), NULL), NULL);
  psg_attrs *on = CFG("transitively_prove_inequalities", true);
  psg_tir_stmt *r = SIMP_CFG(body, on);
  CHECK_EQ_INT(K(psg_tir_if_get_then(r)), PSG_TIR_BUFFER_STORE);
  r = SIMP(body);
  CHECK_EQ_INT(K(psg_tir_if_get_then(r)), PSG_TIR_IF_THEN_ELSE);
  /* i < j, j == k: i < k; i <= j, j <= k does not give i < k */
  body = IF(AND(LT(i, j), EQ(j, k)), IF(LT(i, k), ST(IC(0), F1()), NULL), NULL);
  CHECK_EQ_INT(K(psg_tir_if_get_then(SIMP_CFG(body, on))), PSG_TIR_BUFFER_STORE);
  body = IF(AND(LE(i, j), LE(j, k)), IF(LT(i, k), ST(IC(0), F1()), NULL), NULL);
  CHECK_EQ_INT(K(psg_tir_if_get_then(SIMP_CFG(body, on))), PSG_TIR_IF_THEN_ELSE);
  body = IF(AND(GT(i, j), GE(j, k)), IF(GT(i, k), ST(IC(0), F1()), NULL), NULL);
  CHECK_EQ_INT(K(psg_tir_if_get_then(SIMP_CFG(body, on))), PSG_TIR_BUFFER_STORE);
  body = IF(AND(EQ(i, j), LT(j, k)), IF(NE(i, k), ST(IC(0), F1()), NULL), NULL);
  CHECK_EQ_INT(K(psg_tir_if_get_then(SIMP_CFG(body, on))), PSG_TIR_BUFFER_STORE);
  body = IF(AND(LE(i, SUB(j, IC(1))), LE(j, k)), IF(LT(i, k), ST(IC(0), F1()), NULL), NULL);
  CHECK_EQ_INT(K(psg_tir_if_get_then(SIMP_CFG(body, on))), PSG_TIR_BUFFER_STORE);
  cfg_free(on);
}

static void test_config_boolean_branches(void) {
  psg_tir_expr *n = VAR("n");
  psg_tir_stmt *body = ST(IC(0), AND(LT(n, IC(5)), LT(n, IC(10))));
  psg_attrs *on = CFG("apply_constraints_to_boolean_branches", true);
  CHECK_STR(show(psg_tir_buffer_store_get_value(SIMP_CFG(body, on))), "(n < 5)");
  CHECK_STR(show(psg_tir_buffer_store_get_value(SIMP(body))), "((n < 5) and (n < 10))");
  /* or: n < 10 or n < 5 -> n < 10 */
  body = ST(IC(0), OR(LT(n, IC(10)), LT(n, IC(5))));
  CHECK_STR(show(psg_tir_buffer_store_get_value(SIMP_CFG(body, on))), "(n < 10)");
  cfg_free(on);
}

static void test_config_assume(void) {
  psg_tir_expr *n = VAR("n");
  psg_tir_stmt *body = SEQ2(ASSUME(EQ(n, IC(0))), IF(EQ(n, IC(0)), ST(IC(0), F1()), NULL));
  psg_attrs *on = CFG("propagate_knowns_to_prove_conditional", true);
  psg_tir_stmt *r = SIMP_CFG(body, on);
  CHECK_EQ_INT(K(psg_tir_seq_get(r, 1)), PSG_TIR_BUFFER_STORE);
  r = SIMP(body);
  CHECK_EQ_INT(K(psg_tir_seq_get(r, 1)), PSG_TIR_IF_THEN_ELSE);
  /* an assume inside an if does not reach past it */
  psg_tir_expr *m = VAR("m");
  body = SEQ2(IF(EQ(m, IC(0)), ASSUME(EQ(n, IC(0))), NULL), IF(EQ(n, IC(0)), ST(IC(0), F1()), NULL));
  r = SIMP_CFG(body, on);
  CHECK_EQ_INT(K(psg_tir_seq_get(r, 1)), PSG_TIR_IF_THEN_ELSE);
  cfg_free(on);
}

static void test_config_unsupported(void) {
  /* convert_boolean_to_and_of_ors is built now (and_of_ors.c): accepted */
  psg_attrs *cnf = CFG("convert_boolean_to_and_of_ors", true);
  psg_tir_prim_func *res = NULL;
  CHECK_OK(psg_tir_simplify_prim_func(FUNC(ST(IC(0), F1())), cnf, &res));
  pooled(res);
  cfg_free(cnf);
  /* propagate_knowns_to_simplify_expressions is built now (known_values.c):
   * A[0] = 1; A[1] = A[0] + 1 stores 2 */
  psg_attrs *kn = CFG("propagate_knowns_to_simplify_expressions", true);
  psg_tir_stmt *body = SEQ2(ST(IC(0), F1()), ST(IC(1), ADD(LD(IC(0)), F1())));
  psg_tir_stmt *r = SIMP_CFG(body, kn);
  CHECK(r && K(psg_tir_seq_get(r, 1)) == PSG_TIR_BUFFER_STORE &&
        K(psg_tir_buffer_store_get_value(psg_tir_seq_get(r, 1))) == PSG_TIR_FLOAT_IMM);
  r = SIMP(body);
  CHECK(r && K(psg_tir_buffer_store_get_value(psg_tir_seq_get(r, 1))) == PSG_TIR_ADD);
  cfg_free(kn);
}

static void test_pass_declared(void) {
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_get(actx, "tir.Simplify", NULL, &p));
  if (p) {
    CHECK_STR(psg_pass_info_name(psg_pass_get_info(p)), "tir.Simplify");
    CHECK_EQ_INT(psg_pass_info_opt_level(psg_pass_get_info(p)), 0);
    psg_pass_release(p);
  }
  /* the config is typed: a wrong field is refused, the fields default to false */
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(actx, &pc));
  psg_attrs *bad = CFG("transitively_prove_inequality", true);
  psg_attr *v = NULL;
  psg_attr_dict(actx, bad, &v);
  CHECK(psg_pass_context_set_config(pc, "tir.Simplify", v) != PSG_OK);
  psg_attr_release(v);
  cfg_free(bad);
  psg_attrs *good = CFG("transitively_prove_inequalities", true);
  psg_attr_dict(actx, good, &v);
  CHECK_OK(psg_pass_context_set_config(pc, "tir.Simplify", v));
  psg_attr_release(v);
  cfg_free(good);
  psg_attr *got = psg_pass_context_get_config(pc, "tir.Simplify");
  CHECK(got && psg_attrs_get(psg_attr_get_dict(got), "convert_boolean_to_and_of_ors"));
  psg_pass_context_release(pc);
}

enum { NEST = 10000 };
static void *deep_nest(void *arg) {
  (void)arg;
  /* for v0 in range(2): ... for v9999 in range(2): if v0 < 2: A[v9999] = 1 */
  psg_tir_expr **vars = malloc(NEST * sizeof *vars);
  char name[16];
  for (int k = 0; k < NEST; k++) {
    snprintf(name, sizeof name, "v%d", k);
    vars[k] = VAR(name);
  }
  psg_tir_stmt *s = IF(LT(vars[0], IC(2)), ST(vars[NEST - 1], F1()), NULL);
  psg_tir_retain(s);
  for (int k = NEST; k-- > 0;) {
    psg_tir_stmt *n = NULL;
    psg_tir_for_create(actx, vars[k], IC(0), IC(2), PSG_TIR_FOR_SERIAL, s, NULL, NULL, &n);
    psg_tir_release(s);
    s = n;
  }
  psg_tir_stmt *r = SIMP(pooled(s));
  int depth = 0;
  while (K(r) == PSG_TIR_FOR) {
    r = psg_tir_get_body(r);
    depth++;
  }
  CHECK_EQ_INT(depth, NEST);
  CHECK_EQ_INT(K(r), PSG_TIR_BUFFER_STORE);
  free(vars);
  return NULL;
}

static void test_deep_loop_nest(void) {
  pthread_attr_t attr;
  pthread_t th;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  CHECK(pthread_create(&th, &attr, deep_nest, NULL) == 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&attr);
}

/* Out of memory at every allocation of a Simplify run and of the analyzer's
 * queries: each fails with PSG_ERR_NOMEM or succeeds, and nothing leaks. */
static void test_out_of_memory(void) {
  psg_ctx *saved = actx;
  psg_tir_buffer *sa = A, *sb = B;
  psg_tir_expr *sah = Ah, *sbh = Bh;
  size_t saved_pool = npool;
  check_alloc al = {0, 0};
  actx = check_ctx_with(&al);
  CHECK(actx != NULL);
  if (!actx) return;
  setup_buffers();
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *n = VAR("n");
  psg_tir_expr *flat = ADD(MUL(i, IC(4)), j);
  psg_tir_stmt *body = SEQ2(ASSUME(LT(n, IC(4))),
                            FOR(i, IC(0), IC(4), FOR(j, IC(0), IC(4),
                                IF(AND(LT(flat, IC(16)), LT(n, IC(8))),
                                   ST(ADD(FDIV(flat, IC(4)), FMOD(flat, IC(4))), F1()), ST(j, LD(j))))));
  psg_tir_prim_func *f = FUNC(body);
  psg_attrs *cfg = CFG("propagate_knowns_to_prove_conditional", true);
  long ok_at = 0;
  for (long k = 1; k < 100000 && !ok_at; k++) {
    psg_tir_prim_func *out = NULL;
    al.calls = 0;
    al.fail_at = k;
    psg_status st = psg_tir_simplify_prim_func(f, cfg, &out);
    al.fail_at = 0;
    if (st == PSG_OK && al.calls < k) ok_at = k;
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    CHECK(st == PSG_OK || out == NULL);
    psg_tir_release(out);
  }
  CHECK(ok_at > 10);
  /* the analyzer alone */
  psg_tir_expr *zero = IC(0), *four = IC(4), *cond = AND(LT(j, four), LE(zero, j));
  psg_tir_expr *q = FDIV(ADD(flat, four), four);
  ok_at = 0;
  for (long k = 1; k < 100000 && !ok_at; k++) {
    psg_arith_analyzer *a2 = NULL;
    psg_tir_expr *r = NULL;
    al.calls = 0;
    al.fail_at = k;
    psg_status st = psg_arith_analyzer_create(actx, &a2);
    psg_arith_scope sc;
    if (!st) st = psg_arith_bind(a2, i, zero, four);
    if (!st) st = psg_arith_enter_constraint(a2, cond, &sc);
    if (!st) st = psg_arith_simplify(a2, q, &r);
    al.fail_at = 0;
    if (st == PSG_OK && al.calls < k) {
      ok_at = k;
      CHECK_STR(show(r), "(i + 1)");
    }
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    psg_tir_release(r);
    psg_arith_analyzer_destroy(a2);
  }
  CHECK(ok_at > 10);
  cfg_free(cfg);
  for (size_t k = saved_pool; k < npool; k++) psg_tir_release(pool[k]);
  npool = saved_pool;
  CHECK_CTX_CLEAN(actx);
  actx = saved;
  A = sa, B = sb, Ah = sah, Bh = sbh;
}

int main(void) {
  arith_begin();
  setup_buffers();
  RUN_TEST(test_proved_if_removed);
  RUN_TEST(test_nested_conditions);
  RUN_TEST(test_loops);
  RUN_TEST(test_self_store_and_let);
  RUN_TEST(test_conditions_in_expressions);
  RUN_TEST(test_negations_and_lets);
  RUN_TEST(test_thread_extent);
  RUN_TEST(test_config_transitive);
  RUN_TEST(test_config_boolean_branches);
  RUN_TEST(test_config_assume);
  RUN_TEST(test_config_unsupported);
  RUN_TEST(test_pass_declared);
  RUN_TEST(test_deep_loop_nest);
  RUN_TEST(test_out_of_memory);
  arith_end();
  return check_finish();
}
