/* Passage — DivToMul (TVM's relay.transform.DivToMul): a function pass (opt 0,
 * required InferType and FoldConstant) that turns `divide(x, c)` with a
 * floating-point constant `c` into `multiply(x, 1/c)`, the reciprocal
 * computed in double and rounded to c's dtype once (float16 through float,
 * as TVM's __gnu_f2h_ieee). A zero divisor and integer divisions (1/c would
 * truncate) are left alone.
 *
 * TVM reads only the first element of c and leaves the rest of the
 * reciprocal tensor uninitialized; here only a one-element c is rewritten,
 * so a larger constant keeps its division (docs/design.md, "DivToMul"). */
#include "ops/kernel_util.h"
#include "transforms/builder.h"
#include "transforms/transforms.h"

/* The reciprocal of the one-element float constant c, or NULL (b->status
 * set only on failure) when c is not one or is zero. */
static psg_expr *reciprocal(psgi_built *b, const psg_expr *c) {
  const psg_tensor *t = c->u.constant;
  int dt = psg_tensor_dtype(t);
  if (psg_tensor_numel(t) != 1) return NULL;
  const void *p = psg_tensor_data(t);
  double v;
  if (dt == PSG_DTYPE_FLOAT32) v = *(const float *)p;
  else if (dt == PSG_DTYPE_FLOAT64) v = *(const double *)p;
  else if (dt == PSG_DTYPE_FLOAT16) v = psgi_half_to_float(*(const uint16_t *)p);
  else return NULL;
  if (v == 0.0) return NULL;
  union { float f; double d; uint16_t h; } inv;
  if (dt == PSG_DTYPE_FLOAT32) inv.f = (float)(1.0 / v);
  else if (dt == PSG_DTYPE_FLOAT64) inv.d = 1.0 / v;
  else inv.h = psgi_float_to_half((float)(1.0 / v));
  int ndim = psg_tensor_ndim(t);
  int64_t shape[8];
  if (ndim > 8) return NULL;
  for (int i = 0; i < ndim; i++) shape[i] = psg_tensor_dim(t, i);
  psg_tensor *r = NULL;
  psg_status st = psg_tensor_create(b->ctx, dt, shape, ndim, &inv, &r);
  if (st) {
    b->status = st;
    return NULL;
  }
  psg_expr *out = psgi_build_constant(b, r);
  psg_tensor_release(r);
  return out;
}

static psg_status div_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  const char *op = st ? NULL : psgi_call_op_name(*out);
  if (!op || strcmp(op, "divide") || (*out)->nkids != 3 || (*out)->kids[2]->kind != PSG_EXPR_CONSTANT) return st;
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  psg_expr *inv = reciprocal(&b, (*out)->kids[2]);
  psg_expr *mul = psgi_build_call(&b, "multiply", (psg_expr *[]){(*out)->kids[1], inv}, 2, NULL);
  st = b.status;
  if (mul) {
    psg_expr_release(*out);
    *out = psgi_built_keep(&b, mul);
  }
  psgi_built_fini(&b);
  return st;
}

static psg_status div_to_mul(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user,
                             psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.visit[PSG_EXPR_CALL] = div_call;
  psg_status st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

static const char *const required[] = {"InferType", "FoldConstant", NULL};

const psg_pass_decl psgi_pass_div_to_mul = {
    .name = "DivToMul",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 0,
    .required = required,
    .help = "division by a floating-point constant as multiplication by its reciprocal",
    .function = div_to_mul,
    .cacheable = true,
};
