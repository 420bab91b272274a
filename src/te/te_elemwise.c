/* Passage — compute definitions of the elementwise and broadcasting ops
 * (TOPI's broadcast.h and elemwise.h): out[i] = f(a[bcast(i)], b[bcast(i)]),
 * in the stage "T_<op>". Integer and float semantics as the reference
 * kernels (src/ops/elemwise.c) and TVM: integer divide truncates,
 * floor_divide/floor_mod floor, round is half to even (tir.nearbyint). */
#include "te/te.h"

static bool is_float(int dtype) { return psg_dtype_is_float(dtype); }

static psg_tir_expr *binary_value(psgi_te_call *c, int dtype, psg_tir_expr *x, psg_tir_expr *y) {
  psgi_te_builder *b = c->b;
  const char *op = c->op;
  static const struct {
    const char *op;
    int kind;
  } direct[] = {{"add", PSG_TIR_ADD},           {"subtract", PSG_TIR_SUB},    {"multiply", PSG_TIR_MUL},
                {"divide", PSG_TIR_DIV},        {"maximum", PSG_TIR_MAX},     {"minimum", PSG_TIR_MIN},
                {"equal", PSG_TIR_EQ},          {"not_equal", PSG_TIR_NE},    {"greater", PSG_TIR_GT},
                {"greater_equal", PSG_TIR_GE},  {"less", PSG_TIR_LT},         {"less_equal", PSG_TIR_LE},
                {"logical_and", PSG_TIR_AND},   {"logical_or", PSG_TIR_OR}};
  for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++)
    if (!strcmp(op, direct[i].op)) return psgi_te_bin(b, direct[i].kind, x, y);
  bool f = is_float(dtype);
  if (!strcmp(op, "power")) {
    if (!f) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: power of %s", psg_dtype_name(dtype)), NULL;
    return psgi_te_math(b, "tir.pow", x, y);
  }
  if (!strcmp(op, "floor_divide"))
    return f ? psgi_te_math(b, "tir.floor", psgi_te_bin(b, PSG_TIR_DIV, x, y), NULL)
             : psgi_te_bin(b, PSG_TIR_FLOOR_DIV, x, y);
  if (!strcmp(op, "floor_mod")) {
    if (!f) return psgi_te_bin(b, PSG_TIR_FLOOR_MOD, x, y);
    psg_tir_expr *q = psgi_te_math(b, "tir.floor", psgi_te_bin(b, PSG_TIR_DIV, x, y), NULL);
    return psgi_te_bin(b, PSG_TIR_SUB, x, psgi_te_bin(b, PSG_TIR_MUL, q, y));
  }
  psgi_te_fail(b, PSG_ERR_INTERNAL, "te: no binary rule for '%s'", op);
  return NULL;
}

PSGI_TE_COMPUTE(binary) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *x = psgi_te_load_bcast(b, c->args[0], ax, dims, nd), *y = psgi_te_load_bcast(b, c->args[1], ax, dims, nd);
  char name[64];
  psg_tir_expr *v = binary_value(c, c->args[0]->dtype, x, y);
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

static psg_tir_expr *unary_value(psgi_te_call *c, int dtype, int odtype, psg_tir_expr *x) {
  psgi_te_builder *b = c->b;
  const char *op = c->op;
  bool f = is_float(dtype);
  static const struct {
    const char *op, *intrin;
    bool int_identity; /* on integers the op is the identity */
  } math[] = {{"sqrt", "tir.sqrt", false},    {"rsqrt", "tir.rsqrt", false}, {"exp", "tir.exp", false},
              {"fast_exp", "tir.exp", false}, {"log", "tir.log", false},     {"sigmoid", "tir.sigmoid", false},
              {"tanh", "tir.tanh", false},    {"fast_tanh", "tir.tanh", false}, {"erf", "tir.erf", false},
              {"fast_erf", "tir.erf", false}, {"floor", "tir.floor", true},  {"ceil", "tir.ceil", true},
              {"round", "tir.nearbyint", true}, {"trunc", "tir.trunc", true}};
  for (size_t i = 0; i < sizeof math / sizeof math[0]; i++) {
    if (strcmp(op, math[i].op)) continue;
    if (f) return psgi_te_math(b, math[i].intrin, x, NULL);
    if (math[i].int_identity) return x;
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: '%s' of %s", op, psg_dtype_name(dtype)), NULL;
  }
  if (!strcmp(op, "logical_not")) return psgi_te_not(b, x);
  if (!strcmp(op, "negative")) return psgi_te_neg(b, x);
  if (!strcmp(op, "copy") || !strcmp(op, "device_copy")) return x; /* TVM: topi.identity */
  if (!strcmp(op, "zeros_like")) return psgi_te_const(b, odtype, 0);
  if (!strcmp(op, "ones_like")) return psgi_te_const(b, odtype, 1);
  if (!strcmp(op, "cast")) return psgi_te_cast(b, odtype, x);
  if (!strcmp(op, "isnan")) return f ? psgi_te_math_pred(b, "tir.isnan", x) : psgi_te_const(b, PSG_DTYPE_BOOL, 0);
  psg_tir_expr *zero = psgi_te_const(b, dtype, 0);
  if (!strcmp(op, "abs")) {
    if (f) return psgi_te_math(b, "tir.fabs", x, NULL);
    if (dtype >= PSG_DTYPE_UINT8 && dtype <= PSG_DTYPE_UINT64) return x;
    return psgi_te_select(b, psgi_te_bin(b, PSG_TIR_LT, x, zero), psgi_te_neg(b, x), x);
  }
  if (!strcmp(op, "sign"))
    return psgi_te_select(b, psgi_te_bin(b, PSG_TIR_GT, x, zero), psgi_te_const(b, dtype, 1),
                          psgi_te_select(b, psgi_te_bin(b, PSG_TIR_LT, x, zero), psgi_te_const(b, dtype, -1), zero));
  if (!strcmp(op, "nn.relu")) return psgi_te_bin(b, PSG_TIR_MAX, x, zero);
  if (!strcmp(op, "nn.leaky_relu")) {
    double alpha = psgi_attr_float(c->attrs, "alpha", 0.25);
    return psgi_te_select(b, psgi_te_bin(b, PSG_TIR_GT, x, zero), x,
                          psgi_te_bin(b, PSG_TIR_MUL, x, psgi_te_const(b, dtype, alpha)));
  }
  if (!strcmp(op, "clip")) {
    double lo = psgi_attr_float(c->attrs, "a_min", 0), hi = psgi_attr_float(c->attrs, "a_max", 0);
    /* A bool is uint1, as in the clip kernel: the bounds saturate to [0, 1]
     * and truncate, a_min winning; TIR has no min/max on bools. */
    if (dtype == PSG_DTYPE_BOOL) return lo >= 1 || hi < 1 ? psgi_te_const(b, dtype, lo >= 1) : x;
    return psgi_te_bin(b, PSG_TIR_MAX, psgi_te_bin(b, PSG_TIR_MIN, x, psgi_te_const(b, dtype, hi)),
                       psgi_te_const(b, dtype, lo));
  }
  psgi_te_fail(b, PSG_ERR_INTERNAL, "te: no unary rule for '%s'", op);
  return NULL;
}

PSGI_TE_COMPUTE(unary) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *v = unary_value(c, c->args[0]->dtype, dtype, psgi_te_load(b, c->args[0], ax));
  char name[64];
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

PSGI_TE_COMPUTE(full_like) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *v = psgi_te_cast(b, dtype, psgi_te_load(b, c->args[1], ax));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_full_like", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

PSGI_TE_COMPUTE(where) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *cond = psgi_te_load_bcast(b, c->args[0], ax, dims, nd);
  if (c->args[0]->dtype != PSG_DTYPE_BOOL) cond = psgi_te_bin(b, PSG_TIR_NE, cond, psgi_te_const(b, c->args[0]->dtype, 0));
  psg_tir_expr *v = psgi_te_select(b, cond, psgi_te_load_bcast(b, c->args[1], ax, dims, nd),
                                   psgi_te_load_bcast(b, c->args[2], ax, dims, nd));
  c->outs[c->nouts++] = psgi_te_compute(b, "T_where", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}

/* nn.bias_add and nn.prelu: the second operand is a 1-D tensor along `axis`. */
PSGI_TE_COMPUTE(axis_binary) {
  psgi_te_builder *b = c->b;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  int64_t axis = psgi_attr_int(c->attrs, "axis", 1);
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s axis out of range", c->op);
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  psg_tir_expr *x = psgi_te_load(b, c->args[0], ax);
  psg_tir_expr *ci = c->args[1]->ndim == 1 && c->args[1]->shape[0] == 1 ? psgi_te_int(b, 0) : ax[axis];
  psg_tir_expr *y = psgi_te_load(b, c->args[1], &ci), *v;
  if (!strcmp(c->op, "nn.bias_add")) {
    v = psgi_te_bin(b, PSG_TIR_ADD, x, y);
  } else {
    v = psgi_te_select(b, psgi_te_bin(b, PSG_TIR_GT, x, psgi_te_const(b, dtype, 0)), x, psgi_te_bin(b, PSG_TIR_MUL, x, y));
  }
  c->outs[c->nouts++] =
      psgi_te_compute(b, strcmp(c->op, "nn.bias_add") ? "T_prelu" : "T_add", dtype, nd, dims, ax, v, NULL);
  return psgi_te_status(b);
}
