/* Passage — TEST ONLY: passes that miscompile on purpose, for the tests of
 * validate-each (issue 20 item 1; registered with the other seeded bugs by
 * psg_testing_register_seeded_bug_passes). Their results are well formed
 * and well typed, so only running the program shows what they broke:
 *   testing.AddToSubtract        every `add` becomes `subtract`;
 *   testing.NudgeConstants       every float32 constant is scaled by
 *                                1 + 5e-4 (beyond the default tolerance);
 *   testing.NudgeConstantsReassoc the same, declared reassociating, so the
 *                                looser tolerance accepts it;
 *   testing.TirFloatAddToSub     in PrimFuncs, every float Add becomes Sub
 *                                (a lowered module's kernels, run by the
 *                                TIR interpreter through call_lowered). */
#include "pass/pass_internal.h"
#include "passage/tir.h"
#include "tir/tir_internal.h"
#include "transforms/builder.h"

static psg_status add_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  const char *op = st ? NULL : psgi_call_op_name(*out);
  if (!op || strcmp(op, "add") || (*out)->nkids != 3) return st;
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  psg_expr *sub = psgi_build_call(&b, "subtract", (psg_expr *[]){(*out)->kids[1], (*out)->kids[2]}, 2, NULL);
  st = b.status;
  if (sub) {
    psg_expr_release(*out);
    *out = psgi_built_keep(&b, sub);
  }
  psgi_built_fini(&b);
  return st;
}

/* The factor NudgeConstants applies: between the default tolerance (1e-4)
 * and the reassociating one (1e-3). */
static const float NUDGE = 1.0f + 5e-4f;

static psg_status nudge_constant(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  const psg_tensor *t = e->u.constant;
  if (psg_tensor_dtype(t) != PSG_DTYPE_FLOAT32) return psg_mutator_default(m, e, out);
  int64_t shape[PSG_MAX_RANK];
  for (int i = 0; i < psg_tensor_ndim(t); i++) shape[i] = psg_tensor_dim(t, i);
  psg_tensor *scaled = NULL;
  psg_status st = psg_tensor_create(m->ctx, PSG_DTYPE_FLOAT32, shape, psg_tensor_ndim(t), psg_tensor_data(t), &scaled);
  if (st) return st;
  float *d = (float *)psg_tensor_data(scaled);
  for (int64_t i = 0; i < psg_tensor_numel(scaled); i++) d[i] *= NUDGE;
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  psg_expr *c = psgi_build_constant(&b, scaled);
  psg_tensor_release(scaled);
  st = b.status;
  *out = c ? psgi_built_keep(&b, c) : NULL;
  psgi_built_fini(&b);
  return st;
}

static psg_status rewrite(psg_expr *func, int kind, psg_status (*visit)(psg_mutator *, const psg_expr *, psg_expr **),
                          psg_expr **out) {
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.visit[kind] = visit;
  psg_status st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

static psg_status add_to_subtract(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  return rewrite(func, PSG_EXPR_CALL, add_call, out);
}

static psg_status nudge_constants(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  return rewrite(func, PSG_EXPR_CONSTANT, nudge_constant, out);
}

static psg_status tir_add(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  if (st || !psg_tir_dtype_is_float(psg_tir_dtype_of(*out))) return st;
  psg_tir_node *sub = NULL;
  st = psg_tir_binary_create(m->ctx, PSG_TIR_SUB, psg_tir_get_a(*out), psg_tir_get_b(*out), NULL, &sub);
  psg_tir_release(*out);
  *out = sub;
  return st;
}

static psg_status tir_float_add_to_sub(psg_tir_prim_func *func, psg_module *mod, psg_pass_context *pc, void *user,
                                       psg_tir_prim_func **out) {
  (void)mod, (void)user;
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, pc->ctx);
  m.visit[PSG_TIR_ADD] = tir_add;
  psg_tir_node *body = NULL;
  psg_status st = psg_tir_mutate(&m, psg_tir_get_body(func), &body);
  psg_tir_mutator_fini(&m);
  *out = NULL;
  if (!st && body == psg_tir_get_body(func)) psg_tir_retain(*out = func);
  else if (!st) st = psgi_tir_func_with_body(pc->ctx, func, body, out);
  psg_tir_release(body);
  return st;
}

static const psg_pass_decl add_to_subtract_decl = {
    .name = "testing.AddToSubtract",
    .kind = PSG_PASS_FUNCTION,
    .help = "TEST ONLY: turns every add into subtract (a seeded miscompile for validate-each)",
    .function = add_to_subtract,
};
static const psg_pass_decl nudge_constants_decl = {
    .name = "testing.NudgeConstants",
    .kind = PSG_PASS_FUNCTION,
    .help = "TEST ONLY: scales every float32 constant by 1 + 5e-4 (a seeded miscompile for validate-each)",
    .function = nudge_constants,
};
static const psg_pass_decl nudge_constants_reassoc_decl = {
    .name = "testing.NudgeConstantsReassoc",
    .kind = PSG_PASS_FUNCTION,
    .help = "TEST ONLY: testing.NudgeConstants declared reassociating (within validate-each's looser tolerance)",
    .function = nudge_constants,
    .flags = PSG_PASS_FLAG_REASSOCIATES,
};

static const psg_pass_decl tir_float_add_to_sub_decl = {
    .name = "testing.TirFloatAddToSub",
    .kind = PSG_PASS_PRIM_FUNC,
    .help = "TEST ONLY: turns every float Add of each PrimFunc into Sub (a seeded miscompile for validate-each)",
    .prim_func = tir_float_add_to_sub,
};

psg_status psgi_testing_register_seeded_miscompiles(psg_ctx *ctx) {
  psg_status st = psg_pass_register_decl(ctx, &add_to_subtract_decl);
  if (!st) st = psg_pass_register_decl(ctx, &nudge_constants_decl);
  if (!st) st = psg_pass_register_decl(ctx, &nudge_constants_reassoc_decl);
  if (!st) st = psg_pass_register_decl(ctx, &tir_float_add_to_sub_decl);
  return st;
}
