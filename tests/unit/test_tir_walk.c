/* Passage — the TIR visitor and mutator: definition-first post-order,
 * each shared node once, skip/abort, memoized functional update that keeps
 * unchanged subtrees, rebuilds through the checked constructors, and
 * before_child scoping. */
#include "tir_fixtures.h"

typedef struct counts {
  int per_kind[PSG_TIR_KIND_COUNT];
  int order[64];
  int n;
} counts;

static psg_status count_post(psg_tir_visitor *v, const psg_tir_node *n) {
  counts *c = v->user;
  c->per_kind[psg_tir_kind(n)]++;
  if (c->n < 64) c->order[c->n++] = psg_tir_kind(n);
  return PSG_OK;
}

static void test_visit(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0);
  counts c = {{0}, {0}, 0};
  psg_tir_visitor v = {NULL, count_post, &c};
  CHECK_OK(psg_tir_visit(ctx, &v, f));
  CHECK_EQ_INT(c.per_kind[PSG_TIR_PRIM_FUNC], 1);
  CHECK_EQ_INT(c.per_kind[PSG_TIR_FOR], 1);
  CHECK_EQ_INT(c.per_kind[PSG_TIR_BUFFER], 1);           /* shared by map, load and store: once */
  CHECK_EQ_INT(c.per_kind[PSG_TIR_VAR], 5);              /* a, n, A.data, i, x */
  CHECK_EQ_INT(c.per_kind[PSG_TIR_BUFFER_LOAD], 1);
  CHECK_EQ_INT(c.per_kind[PSG_TIR_ADD], 2);
  /* definitions first: the params come before anything else, the root last */
  CHECK_EQ_INT(c.order[0], PSG_TIR_VAR);
  CHECK_EQ_INT(c.order[c.n - 1], PSG_TIR_PRIM_FUNC);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

static int skip_loops(psg_tir_visitor *v, const psg_tir_node *n) {
  (void)v;
  return psg_tir_kind(n) == PSG_TIR_FOR ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_CONTINUE;
}
static int abort_at_load(psg_tir_visitor *v, const psg_tir_node *n) {
  (void)v;
  return psg_tir_kind(n) == PSG_TIR_BUFFER_LOAD ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
}
static psg_status fail_at_store(psg_tir_visitor *v, const psg_tir_node *n) {
  return psg_tir_kind(n) == PSG_TIR_BUFFER_STORE ? psg_ctx_fail(psg_tir_get_ctx(n), PSG_ERR_PASS_FAILED, "stop") : count_post(v, n);
}

static void test_visit_control(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0);
  counts c = {{0}, {0}, 0};
  psg_tir_visitor v = {skip_loops, count_post, &c};
  CHECK_OK(psg_tir_visit(ctx, &v, f));
  CHECK_EQ_INT(c.per_kind[PSG_TIR_FOR], 1);
  CHECK_EQ_INT(c.per_kind[PSG_TIR_LET_STMT], 0);
  memset(&c, 0, sizeof c);
  v.pre = abort_at_load;
  CHECK_OK(psg_tir_visit(ctx, &v, f));
  CHECK_EQ_INT(c.per_kind[PSG_TIR_PRIM_FUNC], 0);
  memset(&c, 0, sizeof c);
  v.pre = NULL;
  v.post = fail_at_store;
  CHECK_EQ_INT(psg_tir_visit(ctx, &v, f), PSG_ERR_PASS_FAILED);
  CHECK_EQ_INT(c.per_kind[PSG_TIR_FOR], 0);
  psg_ctx_clear_diags(ctx);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

/* Replaces every FloatImm c by c * 10. */
static psg_status scale_floats(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  return psg_tir_float_imm_create(m->ctx, psg_tir_dtype_of(n), psg_tir_float_imm_value(n) * 10, NULL, out);
}

static void test_mutate(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *want = fx_add_const(ctx, 10.0), *out, *same;
  /* identity: the very same node */
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  CHECK_OK(psg_tir_mutate(&m, f, &same));
  CHECK(same == f);
  psg_tir_release(same);
  psg_tir_mutator_fini(&m);
  /* a rewrite of one leaf rebuilds its ancestors, shares the rest */
  psg_tir_mutator_init(&m, ctx);
  m.visit[PSG_TIR_FLOAT_IMM] = scale_floats;
  CHECK_OK(psg_tir_mutate(&m, f, &out));
  CHECK(out != f);
  CHECK(psg_tir_structural_equal(out, want));
  CHECK(psg_tir_prim_func_get_param(out, 0) == psg_tir_prim_func_get_param(f, 0));
  CHECK(psg_tir_prim_func_buffer_map_value(out, 0) == psg_tir_prim_func_buffer_map_value(f, 0));
  psg_tir_stmt *loop = psg_tir_get_body(f), *loop2 = psg_tir_get_body(out);
  CHECK(loop != loop2);
  CHECK(psg_tir_get_var(loop) == psg_tir_get_var(loop2));
  CHECK(psg_tir_let_get_value(psg_tir_get_body(loop)) == psg_tir_let_get_value(psg_tir_get_body(loop2)));
  /* after the walk: the root and the shared nodes (the buffer: in the
   * buffer map, the load and the store) keep their rewrites; the loop, held
   * once by the function, was forgotten when the function was rewritten */
  CHECK(psg_tir_mutator_get_result(&m, f) == out);
  CHECK(psg_tir_mutator_get_result(&m, psg_tir_prim_func_buffer_map_value(f, 0)) ==
        psg_tir_prim_func_buffer_map_value(f, 0));
  CHECK(psg_tir_mutator_get_result(&m, loop) == NULL);
  psg_tir_mutator_fini(&m);
  psg_tir_release(out);
  /* memo_all keeps every rewrite */
  psg_tir_mutator_init(&m, ctx);
  m.visit[PSG_TIR_FLOAT_IMM] = scale_floats;
  m.memo_all = true;
  CHECK_OK(psg_tir_mutate(&m, f, &out));
  CHECK(psg_tir_structural_equal(out, want));
  CHECK(psg_tir_mutator_get_result(&m, loop) == psg_tir_get_body(out));
  psg_tir_mutator_fini(&m);
  psg_tir_release(out);
  psg_tir_release(want);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

/* A leaf no callback rewrites is its own rewrite without a memo entry;
 * with a visit function for its kind it is walked (NULL before it is
 * reached), and set_result still replaces it. */
static psg_status keep_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  (void)m;
  psg_tir_retain((psg_tir_node *)n);
  *out = (psg_tir_node *)n;
  return PSG_OK;
}

static psg_status var_i_is_zero(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot) {
  if (psg_tir_kind(parent) != PSG_TIR_FOR || slot != 3) return PSG_OK;
  psg_tir_expr *zero = fx_i32(m->ctx, 0);
  psg_status st = psg_tir_mutator_set_result(m, psg_tir_get_var(parent), zero);
  psg_tir_release(zero);
  return st;
}

static psg_status loop_to_body(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_tir_retain(*out = psg_tir_mutator_get_result(m, psg_tir_get_body(n)));
  return PSG_OK;
}

static void test_mutate_leaves(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *out;
  psg_tir_expr *n = psg_tir_prim_func_get_param(f, 1), *i = psg_tir_get_var(psg_tir_get_body(f));
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  CHECK(psg_tir_mutator_get_result(&m, n) == n); /* before any walk: itself */
  CHECK(psg_tir_mutator_get_result(&m, psg_tir_get_body(f)) == NULL);
  psg_tir_mutator_fini(&m);
  psg_tir_mutator_init(&m, ctx);
  m.visit[PSG_TIR_VAR] = keep_var;
  CHECK(psg_tir_mutator_get_result(&m, n) == NULL); /* a visit function may rewrite it: not reached yet */
  CHECK_OK(psg_tir_mutate(&m, f, &out));
  CHECK(out == f);
  CHECK(psg_tir_mutator_get_result(&m, n) == n); /* shared (param, buffer shape): memoized */
  psg_tir_release(out);
  psg_tir_mutator_fini(&m);
  /* set_result on a plain leaf: the body, in place of its loop, reads i as 0 */
  psg_tir_mutator_init(&m, ctx);
  m.before_child = var_i_is_zero;
  m.visit[PSG_TIR_FOR] = loop_to_body;
  CHECK_OK(psg_tir_mutate(&m, f, &out));
  CHECK(out != f);
  psg_tir_expr *z = psg_tir_mutator_get_result(&m, i);
  CHECK(z && psg_tir_kind(z) == PSG_TIR_INT_IMM && psg_tir_int_imm_value(z) == 0);
  psg_tir_stmt *store = psg_tir_get_body(psg_tir_get_body(out));
  CHECK_EQ_INT(psg_tir_kind(store), PSG_TIR_BUFFER_STORE);
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_operand(store, 2)), PSG_TIR_INT_IMM);
  psg_tir_release(out);
  psg_tir_mutator_fini(&m);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

/* A rewrite that breaks dtypes fails with the constructor's error. */
static psg_status int_to_int64(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  return psg_tir_int_imm_create(m->ctx, psg_tir_dtype_int64(), psg_tir_int_imm_value(n), NULL, out);
}

static void test_mutate_checks(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *out = NULL;
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.visit[PSG_TIR_INT_IMM] = int_to_int64;
  CHECK_EQ_INT(psg_tir_mutate(&m, f, &out), PSG_ERR_TYPE);
  CHECK(out == NULL);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strstr(psg_diag_message(d), "Add: operands have different dtypes int32 and int64"));
  psg_tir_mutator_fini(&m);
  psg_ctx_clear_diags(ctx);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

/* pre replaces whole subtrees; before_child sees each slot before it is
 * rewritten, definitions first. */
typedef struct trace {
  int slots[16];
  int n;
} trace;

static psg_status replace_let(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **rep) {
  if (psg_tir_kind(n) != PSG_TIR_LET_STMT) return PSG_OK;
  psg_tir_expr *zero = fx_i32(m->ctx, 0);
  psg_status st = psg_tir_evaluate_create(m->ctx, zero, NULL, rep);
  psg_tir_release(zero);
  return st;
}

static psg_status note_loop_slots(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot) {
  trace *t = m->user;
  if (psg_tir_kind(parent) == PSG_TIR_FOR && t->n < 16) t->slots[t->n++] = (int)slot;
  return PSG_OK;
}

static void test_pre_and_before_child(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_prim_func *f = fx_add_const(ctx, 1.0), *out;
  trace t = {{0}, 0};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.pre = replace_let;
  m.before_child = note_loop_slots;
  m.user = &t;
  CHECK_OK(psg_tir_mutate(&m, f, &out));
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_body(psg_tir_get_body(out))), PSG_TIR_EVALUATE);
  CHECK_EQ_INT(t.n, 4);
  CHECK_EQ_INT(t.slots[0], 0); /* loop var first */
  CHECK_EQ_INT(t.slots[3], 3); /* body last */
  psg_tir_mutator_fini(&m);
  psg_tir_release(out);
  psg_tir_release(f);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_visit);
  RUN_TEST(test_visit_control);
  RUN_TEST(test_mutate);
  RUN_TEST(test_mutate_leaves);
  RUN_TEST(test_mutate_checks);
  RUN_TEST(test_pre_and_before_child);
  return check_finish();
}
