/* Passage — TEST ONLY: passes with seeded bugs, for the tests of verify-each
 * and reproducers (issue 19; psg_testing_register_seeded_bug_passes in
 * include/passage/pass.h). Nothing registers them unless a test asks, so
 * they are not in any context's registry by default; `passage opt
 * --testing-seeded-bugs` registers them for the lit tests. */
#include <signal.h>
#include "pass/pass_internal.h"
#include "passage/tir.h"
#include "tir/tir_internal.h"

/* The body of `func` rebuilt with a wrong final checked type, Tensor[(1,
 * S...)] for its Tensor[(S...)], as a pass that copies a type from the wrong
 * node would leave it: InferType keeps a final type, so only a verifier sees
 * it. A body that is not a typed tensor is left alone. */
static psg_status break_types(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod, (void)pc, (void)user;
  psg_ctx *ctx = func->ctx;
  psg_expr *body = psgi_fn_body(func);
  const psg_type *t = body->checked_type;
  *out = NULL;
  if (!t || t->kind != PSG_TYPE_TENSOR || t->n >= 8 || !body->nkids) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  int64_t shape[9] = {1};
  for (int i = 0; i < t->n; i++) shape[i + 1] = psg_type_dim(t, i);
  const psg_type *wrong = NULL;
  psg_expr *nb = NULL, *nf = NULL;
  psg_status st = psg_type_tensor(ctx, shape, t->n + 1, psg_type_dtype(t), &wrong);
  if (!st) st = psgi_expr_rebuild(body, body->kids, &nb);
  if (st) return st;
  psgi_expr_set_final_type(nb, wrong);
  psg_expr **kids = psgi_alloc(ctx, func->nkids * sizeof *kids);
  if (!kids) st = psgi_nomem(ctx);
  for (uint32_t i = 0; !st && i < func->nkids; i++) kids[i] = i + 1 == func->nkids ? nb : func->kids[i];
  if (!st) st = psgi_expr_rebuild(func, kids, &nf);
  psgi_free(ctx, kids);
  psg_expr_release(nb);
  *out = nf;
  return st;
}

/* Each PrimFunc with `Evaluate(undefined)` after its body: a use of a
 * variable nothing defines, which the TIR well-formedness check refuses. */
static psg_status break_prim_func(psg_tir_prim_func *func, psg_module *mod, psg_pass_context *pc, void *user,
                                  psg_tir_prim_func **out) {
  (void)mod, (void)user;
  psg_ctx *ctx = pc->ctx;
  psg_tir_expr *v = NULL;
  psg_tir_stmt *ev = NULL, *seq = NULL;
  *out = NULL;
  psg_status st = psg_tir_var_create(ctx, "undefined", psg_tir_dtype_make(PSG_TIR_CODE_INT, 32, 1), NULL, NULL, &v);
  if (!st) st = psg_tir_evaluate_create(ctx, v, NULL, &ev);
  psg_tir_stmt *stmts[2] = {psg_tir_get_body(func), ev};
  if (!st) st = psg_tir_seq_stmt_create(ctx, stmts, 2, NULL, &seq);
  if (!st) st = psgi_tir_func_with_body(ctx, func, seq, out);
  psg_tir_release(v);
  psg_tir_release(ev);
  psg_tir_release(seq);
  return st;
}

/* A C pass that crashes: the reproducer's signal handler must still write. */
static psg_status crash(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc, (void)user;
  raise(SIGSEGV);
  psg_module_retain(mod); /* reached only if SIGSEGV is ignored */
  *out = mod;
  return PSG_OK;
}

static const psg_pass_decl break_types_decl = {
    .name = "testing.BreakTypes",
    .kind = PSG_PASS_FUNCTION,
    .help = "TEST ONLY: gives each function's body a wrong checked type (a seeded bug for verify-each)",
    .needs = PSG_PROP_TYPED,
    .function = break_types,
};
static const psg_pass_decl break_prim_func_decl = {
    .name = "testing.BreakPrimFunc",
    .kind = PSG_PASS_PRIM_FUNC,
    .help = "TEST ONLY: makes each PrimFunc use an undefined variable (a seeded bug for verify-each)",
    .prim_func = break_prim_func,
};
static const psg_pass_decl crash_decl = {
    .name = "testing.Crash",
    .kind = PSG_PASS_MODULE,
    .help = "TEST ONLY: raises SIGSEGV (a seeded crash for reproducers)",
    .module = crash,
};

psg_status psgi_testing_register_fail_on_resize_add(psg_ctx *ctx); /* seeded_resize_add.c */
/* The miscompiling passes of validate-each's tests (seeded_miscompile.c). */
psg_status psgi_testing_register_seeded_miscompiles(psg_ctx *ctx);

psg_status psg_testing_register_seeded_bug_passes(psg_ctx *ctx) {
  psg_status st = psg_pass_register_decl(ctx, &break_types_decl);
  if (!st) st = psg_pass_register_decl(ctx, &break_prim_func_decl);
  if (!st) st = psg_pass_register_decl(ctx, &crash_decl);
  if (!st) st = psgi_testing_register_fail_on_resize_add(ctx);
  if (!st) st = psgi_testing_register_seeded_miscompiles(ctx);
  return st;
}
