/* Passage — Call nodes of the builtin TIR ops (tir_ops.def): the op table,
 * lookup by name and the dtype rule each op states. */
#include "tir/tir_internal.h"

const psgi_tir_op_info psgi_tir_ops[PSGI_TIR_OP_COUNT] = {
#define OP(id, name, min, max, rule) {name, min, max, PSGI_TIR_RULE_##rule},
#include "tir/tir_ops.def"
#undef OP
};

size_t psg_tir_op_count(void) { return PSGI_TIR_OP_COUNT; }
const char *psg_tir_op_name(size_t i) { return i < PSGI_TIR_OP_COUNT ? psgi_tir_ops[i].name : NULL; }

ptrdiff_t psg_tir_op_find(const char *name) {
  if (!name) return -1;
  for (size_t i = 0; i < PSGI_TIR_OP_COUNT; i++)
    if (strcmp(psgi_tir_ops[i].name, name) == 0) return (ptrdiff_t)i;
  return -1;
}

#define DT(t, b) psgi_tir_dtype_name((t), &(b))

/* Checks `args` against the dtype rule of op `op` with result `dtype`. */
static psg_status check_rule(psg_ctx *ctx, const psg_span *span, const psgi_tir_op_info *op,
                             psg_tir_dtype dtype, psg_tir_expr *const *args, size_t n) {
  psgi_tir_dtype_name_buf b1, b2;
  const int K = PSG_TIR_CALL;
  switch ((enum psgi_tir_op_rule)op->rule) {
  case PSGI_TIR_RULE_ANY:
    return PSG_OK;
  case PSGI_TIR_RULE_FLOAT_SAME:
  case PSGI_TIR_RULE_NUM_SAME:
  case PSGI_TIR_RULE_INT_SAME: {
    bool ok = op->rule == PSGI_TIR_RULE_FLOAT_SAME ? psg_tir_dtype_is_float(dtype)
              : op->rule == PSGI_TIR_RULE_INT_SAME ? psg_tir_dtype_is_int(dtype) || psg_tir_dtype_is_uint(dtype)
                                                   : !psg_tir_dtype_is_bool(dtype) && !psg_tir_dtype_is_handle(dtype);
    if (!ok)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s cannot produce %s", op->name, DT(dtype, b1));
    for (size_t i = 0; i < n; i++)
      if (args[i]->dtype != dtype)
        return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s: argument %zu has dtype %s, expected %s", op->name,
                             i, DT(args[i]->dtype, b1), DT(dtype, b2));
    return PSG_OK;
  }
  case PSGI_TIR_RULE_FLOAT_PRED:
    if (!psg_tir_dtype_is_float(args[0]->dtype) ||
        dtype != psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), psg_tir_dtype_lanes(args[0]->dtype)))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s takes a float and gives bool (got %s -> %s)",
                           op->name, DT(args[0]->dtype, b1), DT(dtype, b2));
    return PSG_OK;
  case PSGI_TIR_RULE_BOOL_SAME:
    if (!psg_tir_dtype_is_bool(dtype) || args[0]->dtype != dtype)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s takes and gives bool (got %s -> %s)", op->name,
                           DT(args[0]->dtype, b1), DT(dtype, b2));
    return PSG_OK;
  case PSGI_TIR_RULE_BOOL_ARG:
    if (!psg_tir_dtype_is_bool(args[0]->dtype))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s takes a bool condition, not %s", op->name,
                           DT(args[0]->dtype, b1));
    return PSG_OK;
  case PSGI_TIR_RULE_IF_THEN_ELSE: {
    int cl = psg_tir_dtype_lanes(args[0]->dtype);
    if (!psg_tir_dtype_is_bool(args[0]->dtype) || (cl != 1 && cl != psg_tir_dtype_lanes(dtype)))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s: the condition must be bool, not %s", op->name,
                           DT(args[0]->dtype, b1));
    for (size_t i = 1; i < 3; i++)
      if (args[i]->dtype != dtype)
        return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s: branch %zu has dtype %s, expected %s", op->name,
                             i, DT(args[i]->dtype, b1), DT(dtype, b2));
    return PSG_OK;
  }
  case PSGI_TIR_RULE_EXTERN:
    if (args[0]->kind != PSG_TIR_STRING_IMM)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "%s: the first argument must be the function name (a StringImm)",
                           op->name);
    return PSG_OK;
  }
  return PSG_OK;
}

psg_status psg_tir_call_create(psg_ctx *ctx, psg_tir_dtype dtype, const char *op, psg_tir_expr *const *args,
                               size_t n, const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  ptrdiff_t id = psg_tir_op_find(op);
  if (id < 0)
    return psgi_tir_fail(ctx, PSG_ERR_NOT_FOUND, span, PSG_TIR_CALL, "unknown op '%s'", op ? op : "");
  const psgi_tir_op_info *info = &psgi_tir_ops[id];
  if (!psg_tir_dtype_is_valid(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_CALL, "%s: invalid result dtype", info->name);
  if (n < (size_t)info->min_args || (info->max_args >= 0 && n > (size_t)info->max_args)) {
    if (info->max_args < 0)
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_CALL, "%s takes at least %d arguments, got %zu",
                           info->name, info->min_args, n);
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_CALL, "%s takes %d arguments, got %zu",
                         info->name, info->min_args, n);
  }
  for (size_t i = 0; i < n; i++) {
    psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_CALL, args[i], "an argument");
    if (st) return st;
  }
  psg_status st = check_rule(ctx, span, info, dtype, args, n);
  if (st) return st;
  if ((st = psgi_tir_new(ctx, PSG_TIR_CALL, n, span, out)) != PSG_OK) return st;
  (*out)->dtype = dtype;
  (*out)->u.op = (uint32_t)id;
  for (size_t i = 0; i < n; i++) psgi_tir_set_kid(*out, i, args[i]);
  return PSG_OK;
}
