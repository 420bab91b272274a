/* Unit tests for src/ir: interned types, tensors, attribute dictionaries,
 * expression constructors and accessors, reference counting, the module, the
 * visitor and the mutator's functional update. */
#include "check.h"
#include "ir/ir_internal.h"

static const psg_type *tensor_type(psg_ctx *ctx, int64_t a, int64_t b) {
  const psg_type *t = NULL;
  int64_t shape[2] = {a, b};
  CHECK_OK(psg_type_tensor(ctx, shape, 2, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static void test_types_interned(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *a = tensor_type(ctx, 1, 3), *b = tensor_type(ctx, 1, 3), *c = tensor_type(ctx, 3, 1);
  CHECK(a == b && a != c);
  CHECK_EQ_INT(psg_type_ndim(a), 2);
  CHECK_EQ_INT(psg_type_dim(a, 1), 3);
  CHECK(psg_type_is_static(a));
  const psg_type *dyn = tensor_type(ctx, PSG_DIM_UNKNOWN, 3);
  CHECK(!psg_type_is_static(dyn) && dyn != a);
  const psg_type *bad = NULL;
  int64_t neg[1] = {-5};
  CHECK_EQ_INT(psg_type_tensor(ctx, neg, 1, PSG_DTYPE_FLOAT32, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_type_tensor(ctx, NULL, 0, 99, &bad), PSG_ERR_INVALID_ARGUMENT);
  const psg_type *fields[2] = {a, c}, *t1, *t2, *t3, *f1, *f2;
  CHECK_OK(psg_type_tuple(ctx, fields, 2, &t1));
  CHECK_OK(psg_type_tuple(ctx, fields, 2, &t2));
  CHECK_OK(psg_type_tuple(ctx, fields, 1, &t3));
  CHECK(t1 == t2 && t1 != t3);
  CHECK_EQ_INT(psg_type_num_fields(t1), 2);
  CHECK(psg_type_field(t1, 1) == c);
  CHECK_OK(psg_type_func(ctx, fields, 2, a, &f1));
  CHECK_OK(psg_type_func(ctx, fields, 2, c, &f2));
  CHECK(f1 != f2 && psg_type_func_ret(f1) == a);
  const psg_type *scalar;
  CHECK_OK(psg_type_tensor(ctx, NULL, 0, PSG_DTYPE_INT64, &scalar));
  CHECK_EQ_INT(psg_type_ndim(scalar), 0);
  CHECK_EQ_INT(psg_dtype_from_name("bfloat16", 8), PSG_DTYPE_BFLOAT16);
  CHECK_EQ_INT(psg_dtype_from_name("float", 5), PSG_DTYPE_INVALID);
  CHECK_STR(psg_dtype_name(PSG_DTYPE_UINT16), "uint16");
  CHECK_EQ_INT(psg_dtype_size(PSG_DTYPE_FLOAT64), 8);
  CHECK_CTX_CLEAN(ctx);
}

static void test_tensors(void) {
  psg_ctx *ctx = check_ctx();
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  psg_tensor *t, *u, *z;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, 2, data, &t));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, 2, data, &u));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, 2, NULL, &z));
  CHECK_EQ_INT(psg_tensor_numel(t), 6);
  CHECK_EQ_INT(psg_tensor_nbytes(t), 24);
  CHECK(psg_tensor_equal(t, u) && !psg_tensor_equal(t, z));
  CHECK(((const float *)psg_tensor_data(z))[5] == 0.0f);
  CHECK(psg_tensor_type(ctx, t) == tensor_type(ctx, 2, 3));
  psg_tensor *bad = NULL;
  int64_t neg[1] = {-1};
  CHECK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, neg, 1, NULL, &bad) != PSG_OK && !bad);
  int64_t huge[2] = {INT64_MAX / 2, 4};
  CHECK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, huge, 2, NULL, &bad) != PSG_OK && !bad);
  CHECK_EQ_INT(psg_ctx_live_objects(ctx), 3);
  psg_tensor_release(t);
  psg_tensor_release(u);
  psg_tensor_release(z);
  CHECK_CTX_CLEAN(ctx);
}

static int wrap_released;
static void on_wrap_release(void *user) { wrap_released += *(int *)user; }

static void test_tensor_wrap(void) {
  psg_ctx *ctx = check_ctx();
  static int32_t external[4] = {1, 2, 3, 4};
  int one = 1;
  int64_t shape[1] = {4};
  psg_tensor *t;
  CHECK_OK(psg_tensor_wrap(ctx, PSG_DTYPE_INT32, shape, 1, external, on_wrap_release, &one, &t));
  CHECK(psg_tensor_data(t) == external); /* shared, not copied */
  psg_tensor_retain(t);
  psg_tensor_release(t);
  CHECK_EQ_INT(wrap_released, 0);
  psg_tensor_release(t);
  CHECK_EQ_INT(wrap_released, 1);
  CHECK_CTX_CLEAN(ctx);
}

static void test_attrs(void) {
  psg_ctx *ctx = check_ctx();
  psg_attr *i1, *i2, *f, *s, *b, *dt, *none, *list, *list2, *nested;
  CHECK_OK(psg_attr_int(ctx, 1, &i1));
  CHECK_OK(psg_attr_int(ctx, 2, &i2));
  CHECK_OK(psg_attr_float(ctx, 1e-5, &f));
  CHECK_OK(psg_attr_string(ctx, "NCHW", 4, &s));
  CHECK_OK(psg_attr_bool(ctx, true, &b));
  CHECK_OK(psg_attr_dtype(ctx, PSG_DTYPE_INT64, &dt));
  CHECK_OK(psg_attr_none(ctx, &none));
  psg_attr *items[2] = {i1, i2};
  CHECK_OK(psg_attr_list(ctx, items, 2, &list));
  CHECK_OK(psg_attr_list(ctx, items, 2, &list2));
  const char *keys[7] = {"padding", "epsilon", "layout", "ceil", "dtype", "axis", "inner"};
  psg_attrs *inner;
  CHECK_OK(psg_attrs_create(ctx, keys, (psg_attr *[]){i1}, 1, &inner));
  CHECK_OK(psg_attr_dict(ctx, inner, &nested));
  psg_attr *vals[7] = {list, f, s, b, dt, none, nested};
  psg_attrs *d1, *d2, *d3, *dup = NULL;
  CHECK_OK(psg_attrs_create(ctx, keys, vals, 7, &d1));
  vals[0] = list2;
  CHECK_OK(psg_attrs_create(ctx, keys, vals, 7, &d2));
  CHECK(psg_attrs_equal(d1, d2));
  CHECK_OK(psg_attrs_with(ctx, d1, "epsilon", i1, &d3));
  CHECK(!psg_attrs_equal(d1, d3));
  CHECK_EQ_INT(psg_attrs_count(d3), 7);
  CHECK_STR(psg_attrs_key(d3, 1), "epsilon"); /* replaced in place */
  CHECK_EQ_INT(psg_attr_kind(psg_attrs_get(d3, "epsilon")), PSG_ATTR_INT);
  const char *dkeys[2] = {"a", "a"};
  CHECK_EQ_INT(psg_attrs_create(ctx, dkeys, items, 2, &dup), PSG_ERR_INVALID_ARGUMENT);
  CHECK(dup == NULL);
  CHECK(psg_attrs_equal(NULL, NULL));
  CHECK_EQ_INT(psg_attr_list_len(psg_attrs_get(d1, "padding")), 2);
  CHECK_EQ_INT(psg_attr_get_int(psg_attr_list_get(psg_attrs_get(d1, "padding"), 1)), 2);
  CHECK_STR(psg_attr_get_string(psg_attrs_get(d1, "layout")), "NCHW");
  CHECK_STR(psg_attr_get_string(dt), "int64");
  CHECK(psg_attr_get_float(f) == 1e-5);
  CHECK(psg_attr_equal(list, list2) && !psg_attr_equal(list, i1));
  psg_attr *arr[] = {i1, i2, f, s, b, dt, none, list, list2, nested};
  for (size_t i = 0; i < sizeof arr / sizeof *arr; i++) psg_attr_release(arr[i]);
  psg_attrs_release(inner);
  psg_attrs_release(d1);
  psg_attrs_release(d2);
  psg_attrs_release(d3);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* fn (%x: Tensor[(1, 3), float32]) { add(multiply(%x, %x), %x) } */
static psg_expr *small_function(psg_ctx *ctx, psg_expr **out_x) {
  psg_expr *x, *add, *mul, *c1, *c2, *fn;
  CHECK_OK(psg_var_create(ctx, "x", tensor_type(ctx, 1, 3), NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  CHECK_OK(psg_op_get(ctx, "multiply", &mul));
  psg_span sp = {"t.relay", 2, 3, 2, 10, NULL};
  CHECK_OK(psg_call_create(ctx, mul, (psg_expr *[]){x, x}, 2, NULL, &sp, &c1));
  CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){c1, x}, 2, NULL, NULL, &c2));
  CHECK_OK(psg_function_create(ctx, &x, 1, c2, NULL, NULL, NULL, &fn));
  psg_expr_release(c1);
  psg_expr_release(c2);
  if (out_x)
    *out_x = x;
  else
    psg_expr_release(x);
  return fn;
}

static void test_exprs(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x;
  psg_expr *fn = small_function(ctx, &x);
  CHECK_EQ_INT(psg_expr_kind(fn), PSG_EXPR_FUNCTION);
  CHECK_EQ_INT(psg_function_num_params(fn), 1);
  CHECK(psg_function_get_param(fn, 0) == x);
  psg_expr *body = psg_function_get_body(fn);
  CHECK_EQ_INT(psg_expr_kind(body), PSG_EXPR_CALL);
  CHECK_STR(psg_op_name(psg_call_get_callee(body)), "add");
  psg_expr *inner = psg_call_get_arg(body, 0);
  psg_span sp;
  psg_expr_span(inner, &sp);
  CHECK_STR(sp.file, "t.relay");
  CHECK_EQ_INT(sp.line, 2);
  CHECK_EQ_INT(psg_expr_num_children(body), 3);
  CHECK_STR(psg_expr_kind_name(PSG_EXPR_TUPLE_GET_ITEM), "TupleGetItem");
  psg_expr *op2, *op3;
  CHECK_OK(psg_op_get(ctx, "add", &op2));
  CHECK_OK(psg_op_get(ctx, "add", &op3));
  CHECK(op2 == op3); /* one node per op */
  psg_expr *nope = NULL;
  CHECK_EQ_INT(psg_op_get(ctx, "no.such_op", &nope), PSG_ERR_NOT_FOUND);
  CHECK(nope == NULL);
  /* Invalid constructions are errors, not crashes. */
  psg_expr *bad = NULL;
  CHECK_EQ_INT(psg_let_create(ctx, body, x, x, NULL, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_function_create(ctx, (psg_expr *[]){x, x}, 2, x, NULL, NULL, NULL, &bad),
               PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tuple_get_item_create(ctx, x, -1, NULL, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  /* Tuples, lets, ifs. */
  psg_expr *tup, *tgi, *y, *let, *ite, *gv;
  CHECK_OK(psg_tuple_create(ctx, (psg_expr *[]){x, body}, 2, NULL, &tup));
  CHECK_OK(psg_tuple_get_item_create(ctx, tup, 1, NULL, &tgi));
  CHECK_EQ_INT(psg_tuple_get_item_index(tgi), 1);
  CHECK_OK(psg_var_create(ctx, "y", NULL, NULL, &y));
  CHECK_OK(psg_let_create(ctx, y, tgi, y, NULL, &let));
  CHECK(psg_let_get_value(let) == tgi);
  CHECK_OK(psg_if_create(ctx, x, let, x, NULL, &ite));
  CHECK(psg_if_get_then(ite) == let);
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_STR(psg_global_var_name(gv), "main");
  psg_expr *objs[] = {fn, x, tup, tgi, y, let, ite, gv};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) psg_expr_release(objs[i]);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* Any release order is safe: the context outlives its objects. */
static void test_release_order(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *fn = small_function(ctx, NULL);
  psg_ctx_release(ctx); /* the user's reference goes first */
  CHECK(psg_ctx_live_objects(psg_expr_get_ctx(fn)) > 0);
  psg_expr_release(fn); /* frees the context too (LeakSanitizer checks) */
}

static void test_module(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m0, *m1, *m2, *m3, *m4, *bad = NULL;
  psg_expr *f = small_function(ctx, NULL), *g = small_function(ctx, NULL);
  psg_expr *main_gv, *g_gv, *main2;
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &main_gv));
  CHECK_OK(psg_global_var_create(ctx, "g", NULL, &g_gv));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &main2));
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, main_gv, f, &m1));
  CHECK_OK(psg_module_add(m1, g_gv, g, &m2));
  CHECK_EQ_INT(psg_module_num_functions(m0), 0); /* inputs unchanged */
  CHECK_EQ_INT(psg_module_num_functions(m1), 1);
  CHECK_EQ_INT(psg_module_num_functions(m2), 2);
  CHECK_EQ_INT(psg_module_find(m2, "g"), 1);
  CHECK(psg_module_lookup(m2, "main") == f);
  CHECK(psg_module_lookup(m2, "nope") == NULL);
  CHECK_EQ_INT(psg_module_add(m2, main2, g, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK_OK(psg_module_update(m2, main2, g, &m3));
  CHECK(psg_module_lookup(m3, "main") == g);
  CHECK(psg_module_get_global_var(m3, 0) == main_gv); /* keeps GlobalVar and position */
  CHECK_OK(psg_module_remove(m3, "main", &m4));
  CHECK_EQ_INT(psg_module_num_functions(m4), 1);
  CHECK_STR(psg_global_var_name(psg_module_get_global_var(m4, 0)), "g");
  CHECK_EQ_INT(psg_module_remove(m4, "main", &bad), PSG_ERR_NOT_FOUND);
  /* A function with a free variable is rejected, naming it. */
  psg_expr *z, *add, *call, *open_fn;
  CHECK_OK(psg_var_create(ctx, "z", NULL, NULL, &z));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){z, z}, 2, NULL, NULL, &call));
  CHECK_OK(psg_function_create(ctx, NULL, 0, call, NULL, NULL, NULL, &open_fn));
  CHECK_EQ_INT(psg_module_update(m0, main2, open_fn, &bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  CHECK(strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "free variables: %z") != NULL);
  psg_expr *objs[] = {f, g, main_gv, g_gv, main2, z, call, open_fn};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) psg_expr_release(objs[i]);
  psg_module *mods[] = {m0, m1, m2, m3, m4};
  for (size_t i = 0; i < 5; i++) psg_module_release(mods[i]);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

typedef struct count_visit {
  int pre[PSG_EXPR_KIND_COUNT], post[PSG_EXPR_KIND_COUNT];
  int skip_kind;
} count_visit;

static int count_pre(psg_visitor *v, const psg_expr *e) {
  count_visit *c = v->user;
  c->pre[psg_expr_kind(e)]++;
  return psg_expr_kind(e) == c->skip_kind ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_CONTINUE;
}
static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  ((count_visit *)v->user)->post[psg_expr_kind(e)]++;
  return PSG_OK;
}

static void test_visitor(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *fn = small_function(ctx, NULL);
  count_visit c = {.skip_kind = -1};
  psg_visitor v = {count_pre, count_post, &c};
  CHECK_OK(psg_visit(ctx, &v, fn));
  /* Each node once: one var (shared), two ops, two calls, one function. */
  CHECK_EQ_INT(c.post[PSG_EXPR_VAR], 1);
  CHECK_EQ_INT(c.post[PSG_EXPR_OP], 2);
  CHECK_EQ_INT(c.post[PSG_EXPR_CALL], 2);
  CHECK_EQ_INT(c.post[PSG_EXPR_FUNCTION], 1);
  count_visit c2 = {.skip_kind = PSG_EXPR_CALL};
  v.user = &c2;
  CHECK_OK(psg_visit(ctx, &v, fn));
  CHECK_EQ_INT(c2.pre[PSG_EXPR_CALL], 1); /* the inner call is never reached */
  CHECK_EQ_INT(c2.post[PSG_EXPR_OP], 0);
  psg_expr_release(fn);
  CHECK_CTX_CLEAN(ctx);
}

/* A mutator that turns multiply into add. */
static psg_status mul_to_add(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, e, &post);
  if (st) return st;
  psg_expr *callee = psg_call_get_callee(post);
  if (psg_expr_kind(callee) == PSG_EXPR_OP && strcmp(psg_op_name(callee), "multiply") == 0) {
    psg_expr *add, *args[2] = {psg_call_get_arg(post, 0), psg_call_get_arg(post, 1)};
    st = psg_op_get(m->ctx, "add", &add);
    if (!st) st = psg_call_create(m->ctx, add, args, 2, NULL, NULL, out);
    psg_expr_release(post);
    return st;
  }
  *out = post;
  return PSG_OK;
}

/* A mutator `pre` that keeps every call as it is (its subtree unwalked). */
static psg_status keep_calls(psg_mutator *m, const psg_expr *e, psg_expr **replacement) {
  (void)m;
  if (psg_expr_kind(e) == PSG_EXPR_CALL) {
    psg_expr_retain((psg_expr *)e);
    *replacement = (psg_expr *)e;
  }
  return PSG_OK;
}

/* A walk over a function records how many nodes it met
 * (psgi_expr_size_hint), which sizes the memo of the next walk; a walk that
 * skipped a subtree does not; a mutation's result carries the count of the
 * walk that made it. */
static void test_size_hint(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *fn = small_function(ctx, NULL);
  CHECK_EQ_INT(psgi_expr_size_hint(fn), 0);
  count_visit c = {.skip_kind = -1};
  psg_visitor v = {count_pre, count_post, &c};
  CHECK_OK(psg_visit(ctx, &v, fn));
  CHECK_EQ_INT(psgi_expr_size_hint(fn), 6); /* a var, two ops, two calls, the function */
  count_visit c2 = {.skip_kind = PSG_EXPR_CALL};
  v.user = &c2;
  CHECK_OK(psg_visit(ctx, &v, fn));
  CHECK_EQ_INT(psgi_expr_size_hint(fn), 6);
  CHECK_EQ_INT(psgi_expr_size_hint(psg_function_get_body(fn)), 0); /* functions only */
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  m.visit[PSG_EXPR_CALL] = mul_to_add;
  psg_expr *out;
  CHECK_OK(psg_mutate(&m, fn, &out));
  CHECK(out != fn);
  CHECK_EQ_INT(psgi_expr_size_hint(out), 6);
  CHECK_EQ_INT(psgi_expr_size_hint(fn), 6);
  psg_mutator_fini(&m);
  psg_expr_release(out);
  /* A mutation whose `pre` keeps a subtree unwalked (as InferType over a
   * typed function) met a few nodes only: it leaves the count as it was. */
  psg_mutator_init(&m, ctx);
  m.pre = keep_calls;
  CHECK_OK(psg_mutate(&m, fn, &out));
  CHECK(out == fn);
  CHECK_EQ_INT(psgi_expr_size_hint(fn), 6);
  psg_mutator_fini(&m);
  psg_expr_release(out);
  psg_expr_release(fn);
  CHECK_CTX_CLEAN(ctx);
}

static void test_mutator(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *fn = small_function(ctx, NULL);
  /* Identity mutation returns the very same node (functional update). */
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  psg_expr *same;
  CHECK_OK(psg_mutate(&m, fn, &same));
  CHECK(same == fn);
  psg_expr_release(same);
  psg_mutator_fini(&m);
  /* A rewrite rebuilds only the path to the change. */
  psg_mutator_init(&m, ctx);
  m.visit[PSG_EXPR_CALL] = mul_to_add;
  psg_expr *out;
  CHECK_OK(psg_mutate(&m, fn, &out));
  CHECK(out != fn);
  psg_expr *body = psg_function_get_body(out);
  CHECK_STR(psg_op_name(psg_call_get_callee(psg_call_get_arg(body, 0))), "add");
  CHECK(psg_function_get_param(out, 0) == psg_function_get_param(fn, 0)); /* shared leaves */
  CHECK(psg_call_get_arg(body, 1) == psg_function_get_param(fn, 0));
  psg_mutator_fini(&m);
  /* The input is untouched. */
  CHECK_STR(psg_op_name(psg_call_get_callee(psg_call_get_arg(psg_function_get_body(fn), 0))), "multiply");
  psg_expr_release(out);
  psg_expr_release(fn);
  CHECK_CTX_CLEAN(ctx);
}

/* Building and mutating under every possible allocation failure: clean
 * errors, no leaks, no crash. */
static void test_oom_build(void) {
  for (long n = 1; n < 200; n++) {
    check_alloc a = {0, n};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    psg_expr *x = NULL, *add = NULL, *c = NULL, *fn = NULL, *out = NULL;
    const psg_type *t = NULL;
    int64_t shape[1] = {4};
    if (psg_type_tensor(ctx, shape, 1, PSG_DTYPE_FLOAT32, &t) == PSG_OK &&
        psg_var_create(ctx, "x", t, NULL, &x) == PSG_OK && psg_op_get(ctx, "multiply", &add) == PSG_OK &&
        psg_call_create(ctx, add, (psg_expr *[]){x, x}, 2, NULL, NULL, &c) == PSG_OK &&
        psg_function_create(ctx, &x, 1, c, NULL, NULL, NULL, &fn) == PSG_OK) {
      psg_mutator m;
      psg_mutator_init(&m, ctx);
      m.visit[PSG_EXPR_CALL] = mul_to_add;
      psg_status st = psg_mutate(&m, fn, &out);
      CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
      psg_mutator_fini(&m);
    }
    psg_expr_release(out);
    psg_expr_release(fn);
    psg_expr_release(c);
    psg_expr_release(x);
    CHECK_EQ_INT(psg_ctx_live_objects(ctx), 0);
    psg_ctx_release(ctx);
  }
}

int main(void) {
  RUN_TEST(test_types_interned);
  RUN_TEST(test_tensors);
  RUN_TEST(test_tensor_wrap);
  RUN_TEST(test_attrs);
  RUN_TEST(test_exprs);
  RUN_TEST(test_size_hint);
  RUN_TEST(test_release_order);
  RUN_TEST(test_module);
  RUN_TEST(test_visitor);
  RUN_TEST(test_mutator);
  RUN_TEST(test_oom_build);
  return check_finish();
}
