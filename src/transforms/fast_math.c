/* Passage — FastMath (tvm-behavior §7.1, TVM's fast_math.cc): a function pass
 * (opt 4, required InferType, so it runs only at -O4 or when required) that
 * swaps exact transcendental ops for their fast approximations:
 * exp -> fast_exp, tanh -> fast_tanh, erf -> fast_erf, nn.softmax -> nn.fast_softmax. */
#include "ops/op_impl.h"
#include "transforms/builder.h"
#include "transforms/transforms.h"

static const char *const fast_ops[][2] = {
    {"exp", "fast_exp"},
    {"tanh", "fast_tanh"},
    {"erf", "fast_erf"},
    {"nn.softmax", "nn.fast_softmax"},
};

static psg_status fast_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  const char *op = psgi_call_op_name(e);
  if (st || !op) return st;
  for (size_t i = 0; i < sizeof fast_ops / sizeof *fast_ops; i++) {
    if (strcmp(op, fast_ops[i][0])) continue;
    psg_expr *callee = NULL, *call = NULL;
    const psg_expr *now = *out;
    st = psg_op_get(m->ctx, fast_ops[i][1], &callee);
    /* Same arguments and attrs (softmax's axis); the type does not change. */
    if (!st) st = psg_call_create(m->ctx, callee, now->kids + 1, now->nkids - 1, now->u.attrs, psgi_expr_span_ref(now), &call);
    psg_expr_release(callee);
    if (st) return st;
    psgi_give_type(call, e->checked_type);
    psg_expr_release(*out);
    *out = call;
    break;
  }
  return PSG_OK;
}

static psg_status fast_math(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  psg_status st = psgi_check_typed(func, "FastMath");
  if (st) return st;
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.visit[PSG_EXPR_CALL] = fast_call;
  st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

const psg_pass_decl psgi_pass_fast_math = {
    .name = "FastMath",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 4,
    .required = psgi_required_infer_type,
    .help = "exp, tanh, erf and nn.softmax into their fast approximations (opt 4)",
    .needs = PSG_PROP_TYPED,
    .function = fast_math,
    .cacheable = true,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: approximations of exp, tanh and erf */
};
