/* Passage example: an out-of-tree pass plugin (include/passage/plugin.h,
 * docs/pass-infra.md). Built as a shared library against the installed
 * headers, loaded with `passage opt --load-pass-plugin ./libpassage_example_plugin.so
 * -p SimplifyAddZero` or passage.transform.load_pass_plugin(path) in Python.
 * Its pass, SimplifyAddZero, rewrites add(x, 0) and add(0, x) into x, where
 * 0 is a scalar constant (a rank-0 operand never widens x's shape). */
#include <string.h>
#include "passage/passage.h"

/* True for a rank-0 float32/float64/int32/int64 constant equal to zero. */
static bool is_scalar_zero(const psg_expr *e) {
  if (psg_expr_kind(e) != PSG_EXPR_CONSTANT) return false;
  const psg_tensor *t = psg_constant_get_tensor(e);
  if (psg_tensor_ndim(t) != 0) return false;
  const void *d = psg_tensor_data(t);
  switch (psg_tensor_dtype(t)) {
  case PSG_DTYPE_FLOAT32: return *(const float *)d == 0.0f;
  case PSG_DTYPE_FLOAT64: return *(const double *)d == 0.0;
  case PSG_DTYPE_INT32: return *(const int32_t *)d == 0;
  case PSG_DTYPE_INT64: return *(const int64_t *)d == 0;
  default: return false;
  }
}

static psg_status visit_call(psg_mutator *m, const psg_expr *call, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, call, &post);
  if (st) return st;
  psg_expr *op = psg_call_get_callee(post);
  if (psg_expr_kind(op) == PSG_EXPR_OP && !strcmp(psg_op_name(op), "add") && psg_call_num_args(post) == 2) {
    psg_expr *a = psg_call_get_arg(post, 0), *b = psg_call_get_arg(post, 1);
    psg_expr *keep = is_scalar_zero(b) ? a : is_scalar_zero(a) ? b : NULL;
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

/* Static: a declaration must live as long as the plugin is loaded. */
static const psg_pass_decl simplify_add_zero = {
    .name = "SimplifyAddZero",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 1,
    .help = "rewrite add(x, 0) into x (example pass plugin)",
    .function = simplify_function,
};

static psg_status register_passes(psg_ctx *ctx) { return psg_pass_register_decl(ctx, &simplify_add_zero); }

static const psg_pass_plugin_info info = {
    .abi_version = PSG_PASS_PLUGIN_ABI_VERSION,
    .name = "example-add-zero",
    .version = "1.0",
    .register_passes = register_passes,
};

/* The one entry point Passage looks up. */
__attribute__((visibility("default"))) const psg_pass_plugin_info *psg_get_pass_plugin_info(void) { return &info; }
