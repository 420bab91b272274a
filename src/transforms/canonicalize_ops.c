/* Passage — CanonicalizeOps (tvm-behavior §7.1): a function pass (opt 3,
 * required InferType) that rewrites ops into simpler equivalents, as TVM's
 * canonicalize_ops.cc does: nn.bias_add(x, b, axis) becomes
 * add(x, expand_dims(b, axis=1, num_newaxis=rank-axis-1)), a plain broadcast
 * add that later passes (fusion, scale folding, export) handle uniformly. */
#include "ops/op_impl.h"
#include "transforms/builder.h"
#include "transforms/call_scan.h"
#include "transforms/rewrite_inner.h"
#include "transforms/transforms.h"

bool psgi_canonicalize_exhaustive = false;

static psg_status canonicalize_call(psgi_rewriter *m, const psg_expr *e, psg_expr **out) {
  psg_status st = PSG_OK;
  if (psgi_call_op_id(e) != PSGI_OP_nn_bias_add || e->nkids != 3) return PSG_OK; /* by index: every call asks */
  const psg_type *t = psgi_tensor_type_of(e->kids[1]);
  if (!t) return PSG_OK;
  int axis = (int)psgi_attr_int(e->u.attrs, "axis", 1);
  if (axis < 0) axis += t->n;
  if (axis < 0 || axis >= t->n) return PSG_OK; /* InferType rejects it; keep the call */
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  b.final_types = true; /* nothing here reads the types of what it built */
  psg_expr *bias = psgi_build_expand_to_axis(&b, (*out)->kids[2], t->n, axis);
  psg_expr *add = psgi_build_op_call(&b, PSGI_OP_add, (psg_expr *[]){(*out)->kids[1], bias}, 2, NULL);
  st = b.status;
  if (!st && add) {
    psg_expr_release(*out);
    *out = psgi_built_keep(&b, add);
  }
  psgi_built_fini(&b);
  return st;
}

static psg_status canonicalize(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  static const psgi_rewrite_fn visit[PSG_EXPR_KIND_COUNT] = {[PSG_EXPR_CALL] = canonicalize_call};
  /* Only an nn.bias_add call changes, and most functions have none by the
   * time -O3 runs this: a scan of the calls is cheaper than the rewrite's
   * walk, which would return the function as it is (departure 257). */
  *out = NULL;
  psg_status st = psgi_check_typed(func, "the pass");
  bool any = true;
  if (!st && !psgi_canonicalize_exhaustive) st = psgi_calls_op(func, PSGI_OP_nn_bias_add, &any);
  if (st) return st;
  if (!any) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  return psgi_rewrite_function_inner(func, mod, visit, user, out);
}

const psg_pass_decl psgi_pass_canonicalize_ops = {
    .name = "CanonicalizeOps",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "nn.bias_add into a broadcast add",
    .needs = PSG_PROP_TYPED,
    .function = canonicalize,
    .cacheable = true,
};
