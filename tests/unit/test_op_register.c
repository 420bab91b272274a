/* Ops registered at run time (include/passage/op_register.h): registration
 * and its errors, the library's named relations and a host relation typing
 * calls (through psg_expr_infer_type and the InferType pass), the argument
 * count, a host relation that gives no type or fails, pattern and
 * statefulness read through the Op node, printing, and the host's user
 * pointer freed with the context. */
#include "check.h"

static const psg_type *tensor(psg_ctx *ctx, int64_t a, int64_t b) {
  const psg_type *t = NULL;
  int64_t dims[2] = {a, b};
  CHECK_OK(psg_type_tensor(ctx, dims, b < 0 ? 1 : 2, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static psg_expr *var(psg_ctx *ctx, const char *name, const psg_type *t) {
  psg_expr *v = NULL;
  CHECK_OK(psg_var_create(ctx, name, t, NULL, &v));
  return v;
}

/* A call of op `name` with n arguments (borrowed). */
static psg_expr *call(psg_ctx *ctx, const char *name, psg_expr *const *args, size_t n) {
  psg_expr *op = NULL, *c = NULL;
  CHECK_OK(psg_op_get(ctx, name, &op));
  CHECK_OK(psg_call_create(ctx, op, args, n, NULL, NULL, &c));
  return c;
}

static const char *last_message(psg_ctx *ctx) {
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  return d ? psg_diag_message(d) : "";
}

static void test_register_and_errors(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_op_register(ctx, "custom_log", "cal log of a tensor"));
  CHECK_EQ_INT(psg_op_register(ctx, "custom_log", NULL), PSG_ERR_INVALID_ARGUMENT);
  CHECK(strstr(last_message(ctx), "Operator custom_log is registered before") != NULL);
  CHECK_EQ_INT(psg_op_register(ctx, "add", NULL), PSG_ERR_INVALID_ARGUMENT); /* built in */
  /* Built-in ops keep their behaviour. */
  CHECK_EQ_INT(psg_op_set_num_inputs(ctx, "add", 3), PSG_ERR_INVALID_ARGUMENT);
  CHECK(strstr(last_message(ctx), "op 'add' is built in") != NULL);
  CHECK_EQ_INT(psg_op_set_pattern(ctx, "no_such_op", 0), PSG_ERR_NOT_FOUND);
  CHECK_EQ_INT(psg_op_set_pattern(ctx, "custom_log", 5), PSG_ERR_INVALID_ARGUMENT); /* not a pattern */
  CHECK_EQ_INT(psg_op_add_type_rel(ctx, "custom_log", "NoSuchRel", NULL, NULL, NULL), PSG_ERR_NOT_FOUND);
  CHECK_OK(psg_op_add_type_rel(ctx, "custom_log", "Identity", NULL, NULL, NULL));
  CHECK_EQ_INT(psg_op_add_type_rel(ctx, "custom_log", "Broadcast", NULL, NULL, NULL), PSG_ERR_INVALID_ARGUMENT);
  CHECK(strstr(last_message(ctx), "already has type relation Identity") != NULL);

  /* The Op node: name, printing, properties. */
  psg_expr *op = NULL, *again = NULL, *add = NULL;
  CHECK_OK(psg_op_get(ctx, "custom_log", &op));
  CHECK_OK(psg_op_get(ctx, "custom_log", &again));
  CHECK(op == again);
  CHECK_STR(psg_op_name(op), "custom_log");
  CHECK(psg_op_node_is_registered(op));
  CHECK_EQ_INT(psg_op_node_num_inputs(op), -1);
  CHECK_EQ_INT(psg_op_node_pattern(op), -1);
  CHECK_EQ_INT(psg_op_node_support_level(op), -1);
  CHECK_OK(psg_op_set_num_inputs(ctx, "custom_log", 1));
  CHECK_OK(psg_op_set_pattern(ctx, "custom_log", PSG_OP_PATTERN_ELEMWISE));
  CHECK_OK(psg_op_set_support_level(ctx, "custom_log", 1));
  CHECK_OK(psg_op_set_stateful(ctx, "custom_log", true));
  CHECK_EQ_INT(psg_op_node_num_inputs(op), 1);
  CHECK_EQ_INT(psg_op_node_pattern(op), PSG_OP_PATTERN_ELEMWISE);
  CHECK_EQ_INT(psg_op_node_support_level(op), 1);
  CHECK(psg_op_node_is_stateful(op));
  CHECK_STR(psg_op_node_type_rel_name(op), "Identity");
  /* Built-in ops answer through the same queries. */
  CHECK_OK(psg_op_get(ctx, "add", &add));
  CHECK(!psg_op_node_is_registered(add));
  CHECK_EQ_INT(psg_op_node_num_inputs(add), 2);
  CHECK_EQ_INT(psg_op_node_pattern(add), PSG_OP_PATTERN_BROADCAST);
  CHECK(psg_op_node_type_rel_name(add) == NULL);

  /* Another context does not know the op. */
  psg_ctx *other = check_ctx();
  psg_expr *none = NULL;
  CHECK_EQ_INT(psg_op_get(other, "custom_log", &none), PSG_ERR_NOT_FOUND);
  CHECK_CTX_CLEAN(other);
  CHECK_CTX_CLEAN(ctx);
}

static void test_named_relations(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_op_register(ctx, "custom_broadcast_add", NULL));
  CHECK_OK(psg_op_set_num_inputs(ctx, "custom_broadcast_add", 2));
  CHECK_OK(psg_op_add_type_rel(ctx, "custom_broadcast_add", "Broadcast", NULL, NULL, NULL));
  CHECK_OK(psg_op_register(ctx, "custom_less", NULL));
  CHECK_OK(psg_op_add_type_rel(ctx, "custom_less", "BroadcastComp", NULL, NULL, NULL));
  psg_expr *x = var(ctx, "x", tensor(ctx, 10, 4)), *y = var(ctx, "y", tensor(ctx, 10, 1));
  psg_expr *c = call(ctx, "custom_broadcast_add", (psg_expr *[]){x, y}, 2);
  const psg_type *t = NULL;
  CHECK_OK(psg_expr_infer_type(c, &t));
  CHECK(t == tensor(ctx, 10, 4));
  psg_expr *cmp = call(ctx, "custom_less", (psg_expr *[]){x, y}, 2);
  CHECK_OK(psg_expr_infer_type(cmp, &t));
  CHECK(t && psg_type_dtype(t) == PSG_DTYPE_BOOL);
  /* The count the host set is checked; the message names the op. */
  psg_expr *one = call(ctx, "custom_broadcast_add", (psg_expr *[]){x}, 1);
  CHECK_EQ_INT(psg_expr_infer_type(one, &t), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "'custom_broadcast_add' takes 2 arguments, got 1") != NULL);
  /* Printed as any op call. */
  char *text = NULL;
  CHECK_OK(psg_expr_print(c, &text, NULL));
  CHECK(text && strstr(text, "custom_broadcast_add(%x, %y)") != NULL);
  psg_free(text);
  psg_expr *ops[] = {x, y, c, cmp, one};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) psg_expr_release(ops[i]);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* A host relation: the type of the first argument, or none (NULL) when the
 * user counter says so, or a failure. */
typedef struct host {
  int calls, mode, freed;
} host;

static psg_status host_rel(psg_ctx *ctx, const psg_type *const *args, size_t nargs, const psg_attrs *attrs, void *user,
                           const psg_type **out) {
  host *h = user;
  h->calls++;
  CHECK(attrs == NULL);
  if (h->mode == 1) return PSG_OK; /* no type */
  if (h->mode == 2) return psg_ctx_fail(ctx, PSG_ERR_FRONTEND, "the host says no (%zu args)", nargs);
  *out = args[0];
  return PSG_OK;
}

static void host_free(void *user) { ((host *)user)->freed++; }

/* Pass `name` over m: its status (a failure is what some cases test). */
static psg_status run_pass(psg_ctx *ctx, const char *name, psg_module *m, psg_module **out) {
  psg_pass *p = NULL;
  *out = NULL;
  psg_status st = psg_pass_get(ctx, name, NULL, &p);
  if (!st) st = psg_pass_run(p, m, NULL, out);
  psg_pass_release(p);
  return st;
}

/* fn(%x) { let %t1 = custom(%x); add(%t1, %x) } in a module, typed. */
static psg_status infer_let_module(psg_ctx *ctx, const char *op, const psg_type **ret) {
  psg_expr *x = var(ctx, "x", tensor(ctx, 10, 10)), *t1 = var(ctx, "t1", NULL);
  psg_expr *c = call(ctx, op, &x, 1), *sum = call(ctx, "add", (psg_expr *[]){t1, x}, 2), *let = NULL, *fn = NULL,
           *gv = NULL;
  CHECK_OK(psg_let_create(ctx, t1, c, sum, NULL, &let));
  CHECK_OK(psg_function_create(ctx, &x, 1, let, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  psg_module *m = NULL, *m2 = NULL, *typed = NULL;
  CHECK_OK(psg_module_create(ctx, &m));
  CHECK_OK(psg_module_add(m, gv, fn, &m2));
  psg_status st = run_pass(ctx, "InferType", m2, &typed);
  *ret = NULL;
  if (!st) {
    const psg_type *ft = psg_expr_checked_type(psg_module_lookup(typed, "main"));
    *ret = ft ? psg_type_func_ret(ft) : NULL;
  }
  psg_module_release(typed);
  psg_module_release(m2);
  psg_module_release(m);
  psg_expr *all[] = {x, t1, c, sum, let, fn, gv};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) psg_expr_release(all[i]);
  return st;
}

static void test_host_relation(void) {
  psg_ctx *ctx = check_ctx();
  host h = {0, 0, 0};
  CHECK_OK(psg_op_register(ctx, "custom_log1", NULL));
  CHECK_OK(psg_op_set_num_inputs(ctx, "custom_log1", 1));
  CHECK_OK(psg_op_add_type_rel(ctx, "custom_log1", "custom_log1", host_rel, &h, host_free));
  const psg_type *ret = NULL;
  CHECK_OK(infer_let_module(ctx, "custom_log1", &ret));
  CHECK(ret == tensor(ctx, 10, 10));
  CHECK(h.calls >= 1);
  /* No type from the host: a type error naming the relation. */
  h.mode = 1;
  CHECK_EQ_INT(infer_let_module(ctx, "custom_log1", &ret), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "type relation custom_log1 gave no type") != NULL);
  /* A failing host: its status reaches the caller of the pass. */
  h.mode = 2;
  CHECK_EQ_INT(infer_let_module(ctx, "custom_log1", &ret), PSG_ERR_FRONTEND);
  /* A relation that cannot be set frees the user pointer at once. */
  host lost = {0, 0, 0};
  CHECK_EQ_INT(psg_op_add_type_rel(ctx, "custom_log1", "again", host_rel, &lost, host_free), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(lost.freed, 1);
  psg_ctx_clear_diags(ctx);
  CHECK_EQ_INT(h.freed, 0);
  CHECK_CTX_CLEAN(ctx);
  CHECK_EQ_INT(h.freed, 1); /* with the context */
}

/* A stateful registered op is not merged by CSE (two calls stay two). */
static void test_passes_see_properties(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_op_register(ctx, "custom_random", NULL));
  CHECK_OK(psg_op_add_type_rel(ctx, "custom_random", "Identity", NULL, NULL, NULL));
  CHECK_OK(psg_op_set_stateful(ctx, "custom_random", true));
  psg_expr *x = var(ctx, "x", tensor(ctx, 4, -1));
  psg_expr *a = call(ctx, "custom_random", &x, 1), *b = call(ctx, "custom_random", &x, 1);
  psg_expr *sum = call(ctx, "add", (psg_expr *[]){a, b}, 2), *fn = NULL, *gv = NULL;
  CHECK_OK(psg_function_create(ctx, &x, 1, sum, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  psg_module *m = NULL, *m2 = NULL, *out = NULL;
  CHECK_OK(psg_module_create(ctx, &m));
  CHECK_OK(psg_module_add(m, gv, fn, &m2));
  CHECK_OK(run_pass(ctx, "EliminateCommonSubexpr", m2, &out));
  char *text = NULL;
  CHECK_OK(psg_module_print(out, 0, &text, NULL));
  const char *first = text ? strstr(text, "custom_random(%x)") : NULL;
  CHECK(first && strstr(first + 1, "custom_random(%x)") != NULL);
  psg_free(text);
  psg_module_release(out);
  psg_module_release(m2);
  psg_module_release(m);
  psg_expr *all[] = {x, a, b, sum, fn, gv};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) psg_expr_release(all[i]);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_register_and_errors);
  RUN_TEST(test_named_relations);
  RUN_TEST(test_host_relation);
  RUN_TEST(test_passes_see_properties);
  return check_finish();
}
