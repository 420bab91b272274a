/* Passage — DefuseOps (tvm-behavior §7.1: F, opt 3, required InferType): the
 * inverse of FuseOps. Every call of a function literal carrying a Primitive
 * attribute is replaced by the function's body with its parameters bound to
 * the call's arguments, so DefuseOps(FuseOps(f)) is f again. TVM binds the
 * parameters by name; we bind them by identity, which cannot mix up two
 * parameters that happen to share a name. */
#include "transforms/fuse_graph.h"
#include "transforms/transforms.h"

/* body[params := args], by a mutator whose memo starts with the binding. */
static psg_status inline_call(psg_ctx *ctx, const psg_expr *call, psg_expr **out) {
  const psg_expr *fn = call->kids[0];
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  psg_status st = PSG_OK;
  for (uint32_t i = 0; !st && i + 1 < fn->nkids; i++) st = psg_mutator_set_result(&m, fn->kids[i], call->kids[i + 1]);
  if (!st) st = psg_mutate(&m, psgi_fn_body(fn), out);
  psg_mutator_fini(&m);
  return st;
}

static psg_status defuse_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  if (st) return st;
  const psg_expr *call = *out;
  if (!psgi_is_primitive_fn(call->kids[0]) || call->kids[0]->nkids != call->nkids) return PSG_OK;
  psg_expr *inlined = NULL;
  st = inline_call(m->ctx, call, &inlined);
  psg_expr_release(*out);
  *out = inlined;
  return st;
}

static psg_status defuse(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.visit[PSG_EXPR_CALL] = defuse_call;
  psg_status st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

const psg_pass_decl psgi_pass_defuse_ops = {
    .name = "DefuseOps",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "inline the Primitive functions FuseOps made",
    .function = defuse,
    .cacheable = true,
};
