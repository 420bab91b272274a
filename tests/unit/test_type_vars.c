/* The type kinds beyond tensors and tuples (include/passage/type.h): TypeVar,
 * GlobalTypeVar, IncompleteType (each fresh), FuncType with type parameters,
 * TypeCall and RefType (interned), and structural equality that compares
 * type parameters by position. */
#include <string.h>
#include "check.h"
#include "passage/type.h"

static const psg_type *tensor(psg_ctx *ctx, int64_t n) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tensor(ctx, &n, 1, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static const psg_type *var(psg_ctx *ctx, const char *name) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_var(ctx, name, PSG_TYPE_KIND_TYPE, &t));
  return t;
}

static const psg_type *poly(psg_ctx *ctx, const psg_type *const *args, int n, const psg_type *ret,
                            const psg_type *const *tps, int ntp) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_func_poly(ctx, args, n, ret, tps, ntp, &t));
  return t;
}

static void test_variables_are_fresh(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *a = var(ctx, "A"), *a2 = var(ctx, "A"), *g = NULL, *i1 = NULL, *i2 = NULL;
  CHECK(a != a2 && !psg_type_structural_equal(a, a2, false));
  CHECK(psg_type_structural_equal(a, a2, true)); /* free variables may pair up */
  CHECK(psg_type_kind(a) == PSG_TYPE_VAR && strcmp(psg_type_var_name(a), "A") == 0);
  CHECK_EQ_INT(psg_type_var_kind(a), PSG_TYPE_KIND_TYPE);
  CHECK_OK(psg_type_global_var(ctx, "List", PSG_TYPE_KIND_ADT_HANDLE, &g));
  CHECK(psg_type_kind(g) == PSG_TYPE_GLOBAL_VAR && psg_type_var_kind(g) == PSG_TYPE_KIND_ADT_HANDLE);
  CHECK_OK(psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &i1));
  CHECK_OK(psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &i2));
  CHECK(i1 != i2 && psg_type_kind(i1) == PSG_TYPE_INCOMPLETE && !psg_type_structural_equal(i1, i2, false));
  CHECK(psg_type_var_kind(tensor(ctx, 3)) == -1 && psg_type_var_name(tensor(ctx, 3)) == NULL);
  /* A variable never pairs with another kind, nor a TypeVar with a GlobalTypeVar. */
  CHECK(!psg_type_structural_equal(a, i1, true) && !psg_type_structural_equal(a, g, true));
  const psg_type *bad = (const psg_type *)1;
  CHECK_EQ_INT(psg_type_var(ctx, NULL, 0, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  CHECK_EQ_INT(psg_type_var(ctx, "B", 3, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_type_var(ctx, "B", 7, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK_CTX_CLEAN(ctx);
}

static void test_polymorphic_func_types(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *a = var(ctx, "A"), *b = var(ctx, "B"), *c = var(ctx, "C"), *t3 = tensor(ctx, 3);
  /* fn [A](A) -> A equals fn [B](B) -> B: parameters compare by position. */
  const psg_type *fa = poly(ctx, &a, 1, a, &a, 1), *fb = poly(ctx, &b, 1, b, &b, 1);
  CHECK(fa != fb && psg_type_structural_equal(fa, fb, false));
  CHECK(psg_type_structural_hash(fa) == psg_type_structural_hash(fb));
  CHECK(psg_type_func_num_type_params(fa) == 1 && psg_type_func_type_param(fa, 0) == a);
  CHECK(psg_type_func_type_param(fa, 1) == NULL && psg_type_num_fields(fa) == 1 && psg_type_func_ret(fa) == a);
  /* fn [A, B](A) -> B differs from fn [A, B](B) -> A, and from fn [A](A) -> A. */
  const psg_type *ab[2] = {a, b}, *ba[2] = {b, a};
  const psg_type *f1 = poly(ctx, &a, 1, b, ab, 2), *f2 = poly(ctx, &b, 1, a, ab, 2), *f3 = poly(ctx, &b, 1, a, ba, 2);
  CHECK(!psg_type_structural_equal(f1, f2, false) && psg_type_structural_equal(f1, f3, false));
  CHECK(!psg_type_structural_equal(f1, fa, false));
  /* A free variable inside stays itself: fn [A](A) -> C vs fn [B](B) -> C,
   * but not fn [B](B) -> A (A is free there). */
  const psg_type *g1 = poly(ctx, &a, 1, c, &a, 1), *g2 = poly(ctx, &b, 1, c, &b, 1), *g3 = poly(ctx, &b, 1, a, &b, 1);
  CHECK(psg_type_structural_equal(g1, g2, false) && !psg_type_structural_equal(g1, g3, false));
  /* Without type parameters FuncType is the old interned one. */
  const psg_type *m1 = NULL, *m2 = poly(ctx, &t3, 1, t3, NULL, 0);
  CHECK_OK(psg_type_func(ctx, &t3, 1, t3, &m1));
  CHECK(m1 == m2 && psg_type_func_num_type_params(m1) == 0);
  /* Type parameters must be TypeVars. */
  const psg_type *out = NULL;
  CHECK_EQ_INT(psg_type_func_poly(ctx, &a, 1, a, &t3, 1, &out), PSG_ERR_INVALID_ARGUMENT);
  CHECK_CTX_CLEAN(ctx);
}

static void test_type_call_and_ref(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *list = NULL, *t3 = tensor(ctx, 3), *c1 = NULL, *c2 = NULL, *r1 = NULL, *r2 = NULL;
  CHECK_OK(psg_type_global_var(ctx, "List", PSG_TYPE_KIND_ADT_HANDLE, &list));
  CHECK_OK(psg_type_call(ctx, list, &t3, 1, &c1));
  CHECK_OK(psg_type_call(ctx, list, &t3, 1, &c2));
  CHECK(c1 == c2 && psg_type_kind(c1) == PSG_TYPE_CALL && psg_type_call_func(c1) == list);
  CHECK(psg_type_num_fields(c1) == 1 && psg_type_field(c1, 0) == t3);
  CHECK_OK(psg_type_ref(ctx, t3, &r1));
  CHECK_OK(psg_type_ref(ctx, tensor(ctx, 4), &r2));
  CHECK(r1 != r2 && psg_type_ref_value(r1) == t3 && psg_type_kind(r1) == PSG_TYPE_REF);
  CHECK(!psg_type_structural_equal(r1, r2, false) && psg_type_call_func(r1) == NULL);
  /* Bound variables under a TypeCall inside a polymorphic function. */
  const psg_type *a = var(ctx, "a"), *b = var(ctx, "b"), *la = NULL, *lb = NULL;
  CHECK_OK(psg_type_call(ctx, list, &a, 1, &la));
  CHECK_OK(psg_type_call(ctx, list, &b, 1, &lb));
  const psg_type *fa = NULL, *fb = NULL;
  CHECK_OK(psg_type_func_poly(ctx, &la, 1, a, &a, 1, &fa));
  CHECK_OK(psg_type_func_poly(ctx, &lb, 1, b, &b, 1, &fb));
  CHECK(psg_type_structural_equal(fa, fb, false) && !psg_type_structural_equal(la, lb, false));
  CHECK(psg_type_structural_hash(fa) == psg_type_structural_hash(fb));
  CHECK_EQ_INT(psg_type_call(ctx, NULL, &t3, 1, &c1), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_type_ref(ctx, NULL, &r1), PSG_ERR_INVALID_ARGUMENT);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_variables_are_fresh);
  RUN_TEST(test_polymorphic_func_types);
  RUN_TEST(test_type_call_and_ref);
  return check_finish();
}
