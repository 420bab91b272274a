/* Ops by op table index (op_table.h's PSGI_OP_* ids, psgi_op_node,
 * psgi_call_op_id, psgi_build_op_call): an id names the op its ops.def row
 * names, the Op node by index is the one psg_op_get gives, a call built by
 * index is the call built by name, a run-time registered op never takes a
 * built-in id, and a name the table lacks still fails the build with the
 * located diagnostic. */
#include "pass_check.h"
#include "transforms/builder.h"

static void test_ids_name_their_ops(void) {
  static const struct {
    size_t id;
    const char *name;
  } known[] = {{PSGI_OP_add, "add"},
               {PSGI_OP_expand_dims, "expand_dims"},
               {PSGI_OP_nn_batch_norm, "nn.batch_norm"},
               {PSGI_OP_nn_dropout, "nn.dropout"},
               {PSGI_OP_nn_l2_normalize, "nn.l2_normalize"},
               {PSGI_OP_zeros_like, "zeros_like"},
               {PSGI_OP_random_uniform, "random.uniform"}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    CHECK_EQ_INT(psg_op_find(known[i].name, strlen(known[i].name)), (ptrdiff_t)known[i].id);
    CHECK_STR(psg_op_name_at(known[i].id), known[i].name);
  }
  CHECK_EQ_INT(PSGI_OP_BUILTIN_COUNT, psg_op_count());
}

static void test_node_by_index(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *by_name = NULL, *by_index = NULL;
  CHECK_OK(psg_op_get(ctx, "nn.relu", &by_name));
  CHECK_OK(psgi_op_node(ctx, PSGI_OP_nn_relu, &by_index));
  CHECK(by_name && by_name == by_index);
  /* First asked by index, then by name: still one node per op. */
  CHECK_OK(psgi_op_node(ctx, PSGI_OP_sqrt, &by_index));
  CHECK_OK(psg_op_get(ctx, "sqrt", &by_name));
  CHECK(by_index && by_name == by_index && by_index->u.op == PSGI_OP_sqrt);
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  %0 = nn.relu(%x);\n  (%0, %x)\n}\n");
  const psg_expr *body = psg_function_get_body(psg_module_lookup(m, "main"));
  CHECK_EQ_INT(psgi_call_op_id(psg_tuple_get_field(body, 0)), PSGI_OP_nn_relu);
  CHECK_EQ_INT(psgi_call_op_id(psg_tuple_get_field(body, 1)), -1); /* a variable */
  CHECK_EQ_INT(psgi_call_op_id(body), -1);                          /* a tuple */
  CHECK_EQ_INT(psgi_call_op_id(NULL), -1);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* A call of an op registered at run time names an index past every built-in id. */
static void test_registered_op_id(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(psg_op_register(ctx, "test.my_op", "a test op"));
  CHECK_OK(psg_op_set_num_inputs(ctx, "test.my_op", 1));
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  test.my_op(%x)\n}\n");
  const psg_expr *body = psg_function_get_body(psg_module_lookup(m, "main"));
  CHECK(psgi_call_op_id(body) >= (ptrdiff_t)PSGI_OP_BUILTIN_COUNT);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_build_by_index(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  add(%x, 1f)\n}\n"), *typed = NULL;
  typed = run(ctx, "InferType", NULL, m);
  psg_expr *add = psg_function_get_body(psg_module_lookup(m, "main"));
  psgi_built b;
  psgi_built_init(&b, ctx, NULL);
  b.final_types = true;
  psg_expr *named = psgi_build_call(&b, "sqrt", &add, 1, NULL);
  psg_expr *indexed = psgi_build_op_call(&b, PSGI_OP_sqrt, &add, 1, NULL);
  CHECK(named && indexed && named != indexed);
  CHECK(psg_call_get_callee(named) == psg_call_get_callee(indexed));
  CHECK(psgi_expr_final_type(indexed) && psgi_expr_final_type(indexed) == psgi_expr_final_type(named));
  CHECK(psg_expr_structural_equal(named, indexed));
  CHECK_EQ_INT(b.status, PSG_OK);
  /* A NULL argument (an earlier build failed) builds nothing and adds no error. */
  CHECK(!psgi_build_op_call(&b, PSGI_OP_sqrt, (psg_expr *[]){NULL}, 1, NULL));
  CHECK(!psgi_build_call(&b, "sqrt", (psg_expr *[]){NULL}, 1, NULL));
  CHECK_EQ_INT(b.status, PSG_OK);
  /* A name the table lacks: NULL, the status and the diagnostic. */
  CHECK(!psgi_build_call(&b, "no.such_op", &add, 1, NULL));
  CHECK_EQ_INT(b.status, PSG_ERR_NOT_FOUND);
  CHECK(psg_ctx_diag_count(ctx) == 1 && strstr(psg_diag_message(psg_ctx_get_diag(ctx, 0)), "no.such_op"));
  psg_ctx_clear_diags(ctx);
  psgi_built_fini(&b);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_ids_name_their_ops);
  RUN_TEST(test_node_by_index);
  RUN_TEST(test_registered_op_id);
  RUN_TEST(test_build_by_index);
  return check_finish();
}
