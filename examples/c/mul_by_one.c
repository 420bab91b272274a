/* Passage example: a complete pass in C, as docs/writing-a-pass.md explains.
 * SimplifyMulByOne rewrites multiply(x, 1) and multiply(1, x) into x, where
 * 1 is a scalar constant of any float or int dtype. It uses the mutator
 * (functional update: untouched subtrees are shared), is a function pass
 * declared once and registered by name, and runs inside a Sequential like any
 * built-in pass. */
#include <string.h>
#include "passage/passage.h"
#include "mul_by_one.h"

/* True for a rank-0 float32/float64/int32/int64 constant equal to one. */
static bool is_scalar_one(const psg_expr *e) {
  if (psg_expr_kind(e) != PSG_EXPR_CONSTANT) return false;
  const psg_tensor *t = psg_constant_get_tensor(e);
  if (psg_tensor_ndim(t) != 0) return false;
  const void *d = psg_tensor_data(t);
  switch (psg_tensor_dtype(t)) {
  case PSG_DTYPE_FLOAT32: return *(const float *)d == 1.0f;
  case PSG_DTYPE_FLOAT64: return *(const double *)d == 1.0;
  case PSG_DTYPE_INT32: return *(const int32_t *)d == 1;
  case PSG_DTYPE_INT64: return *(const int64_t *)d == 1;
  default: return false;
  }
}

/* The mutator's Call case: like overriding ExprMutator::VisitExpr_(CallNode*).
 * First the default (children already rewritten), then the rule. */
static psg_status visit_call(psg_mutator *m, const psg_expr *call, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, call, &post);
  if (st) return st;
  psg_expr *op = psg_call_get_callee(post);
  if (psg_expr_kind(op) == PSG_EXPR_OP && strcmp(psg_op_name(op), "multiply") == 0 &&
      psg_call_num_args(post) == 2) {
    psg_expr *a = psg_call_get_arg(post, 0), *b = psg_call_get_arg(post, 1);
    psg_expr *keep = is_scalar_one(b) ? a : is_scalar_one(a) ? b : NULL;
    if (keep) {
      psg_expr_retain(keep);
      psg_expr_release(post);
      *out = keep;
      return PSG_OK;
    }
  }
  *out = post;
  return PSG_OK;
}

/* The pass function: called once per optimizable function of the module. */
static psg_status simplify_function(psg_expr *func, psg_module *mod, psg_pass_context *pctx, void *user,
                                    psg_expr **out) {
  (void)mod;
  (void)pctx;
  (void)user;
  psg_mutator m;
  psg_mutator_init(&m, psg_expr_get_ctx(func));
  m.visit[PSG_EXPR_CALL] = visit_call;
  psg_status st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

/* The declaration: everything Passage knows about the pass, written once.
 * The registry makes the pass object (and its PassInfo) from it, so
 * `passage opt -p SimplifyMulByOne`, `required` lists, Sequentials and
 * `passage passes` all see the same name, level and help. */
static const psg_pass_decl simplify_mul_by_one = {
    .name = "SimplifyMulByOne",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 1,
    .help = "rewrite multiply(x, 1) into x",
    .function = simplify_function,
};

psg_status example_register_simplify_mul_by_one(psg_ctx *ctx) {
  return psg_pass_register_decl(ctx, &simplify_mul_by_one);
}
