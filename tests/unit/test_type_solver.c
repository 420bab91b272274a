/* InferType's unifier and type solver through their public API
 * (include/passage/type_solver.h): holes bound by unification under tuples,
 * function types and type calls, occurs check, Any dims absorbing, type
 * parameters renamed, relations run backward and forward to a fixed point,
 * and failures as located-free PSG_ERR_TYPE diagnostics. */
#include <string.h>
#include "check.h"
#include "passage/passage.h"

static const psg_type *tensor2(psg_ctx *ctx, int64_t a, int64_t b) {
  const psg_type *t = NULL;
  int64_t dims[2] = {a, b};
  CHECK_OK(psg_type_tensor(ctx, dims, 2, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static const psg_type *hole(psg_ctx *ctx) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &t));
  return t;
}

static const psg_type *tuple2(psg_ctx *ctx, const psg_type *a, const psg_type *b) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){a, b}, 2, &t));
  return t;
}

static const char *last_message(psg_ctx *ctx) {
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  return d ? psg_diag_message(d) : "";
}

static void test_unify(void) {
  psg_ctx *ctx = check_ctx();
  psg_type_solver *s = NULL;
  CHECK_OK(psg_type_solver_create(ctx, &s));
  const psg_type *t1 = hole(ctx), *t2 = hole(ctx), *t = tensor2(ctx, 10, 20), *out = NULL, *r = NULL;
  /* (t1, t2) ~ (T, T): both holes bound. */
  CHECK_OK(psg_type_solver_unify(s, tuple2(ctx, t1, t2), tuple2(ctx, t, t), &out));
  CHECK(out == tuple2(ctx, t, t));
  CHECK_OK(psg_type_solver_resolve(s, t1, &r));
  CHECK(r == t);
  /* A hole unified with another then with a type: both resolve to it. */
  const psg_type *h1 = hole(ctx), *h2 = hole(ctx);
  CHECK_OK(psg_type_solver_unify(s, h1, h2, NULL));
  CHECK_OK(psg_type_solver_unify(s, h2, tensor2(ctx, 1, 2), NULL));
  CHECK_OK(psg_type_solver_resolve(s, h1, &r));
  CHECK(r == tensor2(ctx, 1, 2));
  /* Any (?) absorbs: (?, 20) ~ (10, 20) is (?, 20). */
  CHECK_OK(psg_type_solver_unify(s, tensor2(ctx, PSG_DIM_UNKNOWN, 20), t, &out));
  CHECK(out == tensor2(ctx, PSG_DIM_UNKNOWN, 20));
  /* A dimension conflict says which, expected first. */
  size_t diags = psg_ctx_diag_count(ctx);
  CHECK_EQ_INT(psg_type_solver_unify(s, t, tensor2(ctx, 10, 30), &out), PSG_ERR_TYPE);
  CHECK(out == NULL && psg_ctx_diag_count(ctx) == diags + 1);
  CHECK(strstr(last_message(ctx), "expected `Tensor[(10, 20), float32]`, found `Tensor[(10, 30), float32]`") &&
        strstr(last_message(ctx), "dimension 1 conflicts: 20 does not match 30"));
  /* Occurs check: t3 ~ (t3, t3) would be infinite. */
  const psg_type *t3 = hole(ctx);
  CHECK_EQ_INT(psg_type_solver_unify(s, t3, tuple2(ctx, t3, t3), NULL), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "would contain itself"));
  /* Distinct GlobalTypeVars never unify; TypeCalls unify their arguments. */
  const psg_type *g1 = NULL, *g2 = NULL, *c1 = NULL, *c2 = NULL, *t4 = hole(ctx);
  CHECK_OK(psg_type_global_var(ctx, "g1", PSG_TYPE_KIND_ADT_HANDLE, &g1));
  CHECK_OK(psg_type_global_var(ctx, "g2", PSG_TYPE_KIND_ADT_HANDLE, &g2));
  CHECK_EQ_INT(psg_type_solver_unify(s, g1, g2, NULL), PSG_ERR_TYPE);
  CHECK_OK(psg_type_call(ctx, g1, &t4, 1, &c1));
  CHECK_OK(psg_type_call(ctx, g1, &t, 1, &c2));
  CHECK_OK(psg_type_solver_unify(s, c1, c2, &out));
  CHECK(out == c2);
  psg_type_solver_free(s);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

static void test_unify_type_params(void) {
  psg_ctx *ctx = check_ctx();
  psg_type_solver *s = NULL;
  CHECK_OK(psg_type_solver_create(ctx, &s));
  const psg_type *a = NULL, *b = NULL, *c = NULL, *out = NULL;
  CHECK_OK(psg_type_var(ctx, "a", 0, &a));
  CHECK_OK(psg_type_var(ctx, "b", 0, &b));
  CHECK_OK(psg_type_var(ctx, "c", 0, &c));
  /* fn [a, b, c](a, b) -> c ~ fn [a](a, a) -> a is the latter. */
  const psg_type *ft1 = NULL, *ft2 = NULL;
  CHECK_OK(psg_type_func_poly(ctx, (const psg_type *[]){a, b}, 2, c, (const psg_type *[]){a, b, c}, 3, &ft1));
  CHECK_OK(psg_type_func_poly(ctx, (const psg_type *[]){a, a}, 2, a, &a, 1, &ft2));
  CHECK_OK(psg_type_solver_unify(s, ft1, ft2, &out));
  CHECK(psg_type_structural_equal(out, ft2, false));
  /* fn [a, b](a, b) -> c vs fn [a, b, c](b, c) -> (a,): c is free on the left. */
  const psg_type *ft3 = NULL, *ft4 = NULL, *ta = NULL;
  CHECK_OK(psg_type_tuple(ctx, &a, 1, &ta));
  CHECK_OK(psg_type_func_poly(ctx, (const psg_type *[]){a, b}, 2, c, (const psg_type *[]){a, b}, 2, &ft3));
  CHECK_OK(psg_type_func_poly(ctx, (const psg_type *[]){b, c}, 2, ta, (const psg_type *[]){a, b, c}, 3, &ft4));
  CHECK_EQ_INT(psg_type_solver_unify(s, ft3, ft4, NULL), PSG_ERR_TYPE);
  psg_type_solver_free(s);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

static void test_solve_relations(void) {
  psg_ctx *ctx = check_ctx();
  psg_type_solver *s = NULL;
  CHECK_OK(psg_type_solver_create(ctx, &s));
  /* Backward: Identity(t1) = (10, 1, 1) fixes t1, then Broadcast runs. */
  int64_t d3[3] = {10, 1, 1};
  const psg_type *t0 = tensor2(ctx, 10, 20), *tc = NULL, *t1 = hole(ctx), *t3 = hole(ctx), *r = NULL;
  CHECK_OK(psg_type_tensor(ctx, d3, 3, PSG_DTYPE_FLOAT32, &tc));
  CHECK_OK(psg_type_solver_add_relation(s, "Broadcast", (const psg_type *[]){t0, t1, t3}, 3, 2, NULL));
  CHECK_OK(psg_type_solver_add_relation(s, "Identity", (const psg_type *[]){t1, tc}, 2, 1, NULL));
  bool done = false;
  CHECK_OK(psg_type_solver_solve(s, &done));
  CHECK(done);
  int64_t want[3] = {10, 10, 20};
  const psg_type *w = NULL;
  CHECK_OK(psg_type_tensor(ctx, want, 3, PSG_DTYPE_FLOAT32, &w));
  CHECK_OK(psg_type_solver_resolve(s, t3, &r));
  CHECK(r == w);
  /* An op relation assigns dense's weight from the data and `units`. */
  psg_attrs *attrs = NULL;
  psg_attr *units = NULL;
  CHECK_OK(psg_attr_int(ctx, 4, &units));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"units"}, &units, 1, &attrs));
  psg_attr_release(units);
  const psg_type *wt = hole(ctx), *ot = hole(ctx);
  CHECK_OK(psg_type_solver_add_relation(s, "nn.dense", (const psg_type *[]){tensor2(ctx, 2, 3), wt, ot}, 3, 2, attrs));
  psg_attrs_release(attrs); /* the solver keeps its own reference */
  CHECK_OK(psg_type_solver_solve(s, &done));
  CHECK(done);
  CHECK_OK(psg_type_solver_resolve(s, wt, &r));
  CHECK(r == tensor2(ctx, 4, 3));
  CHECK_OK(psg_type_solver_resolve(s, ot, &r));
  CHECK(r == tensor2(ctx, 2, 4));
  /* A relation waiting on an unknown input leaves the solve incomplete. */
  const psg_type *u1 = hole(ctx), *u2 = hole(ctx);
  CHECK_OK(psg_type_solver_add_relation(s, "add", (const psg_type *[]){u1, t0, u2}, 3, 2, NULL));
  CHECK_OK(psg_type_solver_solve(s, &done));
  CHECK(!done);
  /* A contradiction fails the solve. */
  CHECK_OK(psg_type_solver_add_relation(s, "Identity", (const psg_type *[]){t0, tc}, 2, 1, NULL));
  CHECK_EQ_INT(psg_type_solver_solve(s, &done), PSG_ERR_TYPE);
  CHECK(!done);
  CHECK_EQ_INT(psg_type_solver_add_relation(s, "NoSuchRelation", &t0, 1, 0, NULL), PSG_ERR_NOT_FOUND);
  psg_type_solver_free(s);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_unify);
  RUN_TEST(test_unify_type_params);
  RUN_TEST(test_solve_relations);
  return check_finish();
}
