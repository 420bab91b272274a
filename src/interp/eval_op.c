/* Passage — evaluating one operator call on values, shared by the
 * interpreter and FoldConstant (STYLE rule 12: one kernel path), and the
 * conversions between constants and values. */
#include <stdio.h>
#include "interp/interp_internal.h"

/* Whether v is, or holds in its tuples, a closure. Tuple values nest as
 * deep as the program wrote them (value release recurses the same way); past
 * a generous depth the answer is "yes", which only changes the message. */
static bool has_closure(const psgi_value *v, int depth) {
  if (v->kind == PSGI_VALUE_CLOSURE || v->kind == PSGI_VALUE_ADT || v->kind == PSGI_VALUE_REF || depth > 256)
    return true; /* ADT values and references are no op operands either */
  if (v->kind == PSGI_VALUE_TUPLE)
    for (size_t i = 0; i < v->u.tuple.n; i++)
      if (has_closure(v->u.tuple.items[i], depth + 1)) return true;
  return false;
}

/* The op's implementation when it has a relation and a kernel; NULL and the
 * message otherwise. */
static const psgi_op_impl *evaluable(psg_ctx *ctx, size_t op, char *msg, size_t msglen) {
  const psgi_op_impl *impl = psgi_op_impl_get(op);
  if (impl && impl->type_rel && impl->kernel) return impl;
  snprintf(msg, msglen, "operator '%s' has no reference kernel", psgi_op_name_in(ctx, op));
  return NULL;
}

static void op_call_init(psgi_op_call *call, psg_ctx *ctx, size_t op, const psg_attrs *attrs) {
  call->ctx = ctx;
  call->op = op;
  call->attrs = attrs;
  call->msg[0] = 0;
  call->limit_key = NULL;
  call->max_result_bytes = 0;
}

/* Tuple types nest as deep as the program wrote them; past this the size
 * is "unknown". */
enum { MAX_TYPE_DEPTH = 64 };

enum { SIZE_KNOWN, SIZE_DYNAMIC, SIZE_OVERFLOW };

/* The bytes of a value of type t in *n; SIZE_DYNAMIC when a dim is unknown
 * (or t is not made of tensors), SIZE_OVERFLOW past 64 bits. */
static int type_size(const psg_type *t, int depth, uint64_t *n) {
  *n = UINT64_MAX;
  if (!t || depth > MAX_TYPE_DEPTH) return SIZE_DYNAMIC;
  if (t->kind == PSG_TYPE_TUPLE) {
    uint64_t sum = 0, f = 0;
    int worst = SIZE_KNOWN;
    for (int i = 0; i < t->n; i++) {
      int k = type_size(t->fields[i], depth + 1, &f);
      if (k == SIZE_KNOWN && sum > UINT64_MAX - 1 - f) k = SIZE_OVERFLOW;
      if (k != SIZE_KNOWN) {
        if (k > worst) worst = k;
        continue;
      }
      sum += f;
    }
    if (worst == SIZE_KNOWN) *n = sum;
    return worst;
  }
  if (t->kind != PSG_TYPE_TENSOR) return SIZE_DYNAMIC;
  uint64_t bytes = psg_dtype_size(t->dtype);
  bool dynamic = false, overflow = false;
  for (int i = 0; i < t->n; i++) {
    if (t->dims[i] < 0) {
      dynamic = true;
      continue;
    }
    uint64_t d = (uint64_t)t->dims[i];
    if (d && bytes > (UINT64_MAX - 1) / d) overflow = true;
    else bytes *= d;
  }
  if (overflow) return SIZE_OVERFLOW;
  if (dynamic) return SIZE_DYNAMIC;
  *n = bytes;
  return SIZE_KNOWN;
}

uint64_t psgi_type_nbytes(const psg_type *t) {
  uint64_t n;
  return type_size(t, 0, &n) == SIZE_KNOWN ? n : UINT64_MAX;
}

/* "float32 of shape (2, 3)" for a tensor type, "a tuple" otherwise. */
static void describe_type(const psg_type *t, char *buf, size_t len) {
  if (!t || t->kind != PSG_TYPE_TENSOR) {
    snprintf(buf, len, "%s", "a tuple");
    return;
  }
  size_t n = (size_t)snprintf(buf, len, "%s of shape (", psg_dtype_name(t->dtype));
  for (int i = 0; i < t->n && n < len; i++)
    n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
  if (n < len) snprintf(buf + n, len - n, ")");
}

bool psgi_eval_budget_take(psgi_eval_budget *b, const psg_type *t, char *msg, size_t msglen) {
  uint64_t need = 0;
  int kind = type_size(t, 0, &need);
  if (kind == SIZE_DYNAMIC) return true; /* psgi_eval_budget_take_value checks the value made */
  if (kind == SIZE_KNOWN && need <= b->limit - b->used) {
    b->used += need;
    return true;
  }
  char shown[192];
  describe_type(t, shown, sizeof shown);
  if (kind == SIZE_OVERFLOW)
    snprintf(msg, msglen, "the result, %s, has more than 2^64 bytes, over the limit of %llu bytes (%s)", shown,
             (unsigned long long)b->limit, b->key);
  else if (b->used == 0)
    snprintf(msg, msglen, "the result, %s, needs %llu bytes, over the limit of %llu bytes (%s)", shown,
             (unsigned long long)need, (unsigned long long)b->limit, b->key);
  else
    snprintf(msg, msglen, "the result, %s, needs %llu bytes, but only %llu of the %llu bytes of %s are left", shown,
             (unsigned long long)need, (unsigned long long)(b->limit - b->used), (unsigned long long)b->limit, b->key);
  return false;
}

bool psgi_eval_budget_take_value(psg_ctx *ctx, psgi_eval_budget *b, const psg_type *t, const psgi_value *v,
                                  char *msg, size_t msglen) {
  uint64_t need = 0;
  if (type_size(t, 0, &need) != SIZE_DYNAMIC) return true; /* taken before the kernel ran */
  const psg_type *made = psgi_value_type(ctx, v);
  return !made || psgi_eval_budget_take(b, made, msg, msglen);
}

psg_status psgi_eval_op(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                        size_t nargs, psgi_value **out, char *msg, size_t msglen) {
  return psgi_eval_op_typed(ctx, op, attrs, args, NULL, nargs, out, msg, msglen);
}

psg_status psgi_eval_op_typed(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                              const psg_type *const *arg_types, size_t nargs, psgi_value **out, char *msg,
                              size_t msglen) {
  return psgi_eval_op_within(ctx, op, attrs, args, arg_types, nargs, NULL, out, msg, msglen);
}

psg_status psgi_eval_op_within(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                               const psg_type *const *arg_types, size_t nargs, psgi_eval_budget *budget,
                               psgi_value **out, char *msg, size_t msglen) {
  *out = NULL;
  const psgi_op_impl *impl = evaluable(ctx, op, msg, msglen);
  if (!impl) return PSG_ERR_UNSUPPORTED;
  const char *name = psgi_op_table[op].name;
  const psg_type *small[8], **types = small;
  if (nargs > 8 && !(types = psgi_alloc(ctx, nargs * sizeof *types))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < nargs && !st; i++) {
    if (arg_types && arg_types[i]) {
      types[i] = arg_types[i];
      continue;
    }
    types[i] = psgi_value_type(ctx, args[i]);
    if (types[i]) continue;
    /* No type: a closure (in a tuple, maybe), or interning ran out of memory. */
    if (has_closure(args[i], 0)) {
      snprintf(msg, msglen, "argument %zu of '%s' is a function, not a tensor", i, name);
      st = PSG_ERR_TYPE;
    } else {
      st = psgi_nomem(ctx);
    }
  }
  psgi_op_call call;
  op_call_init(&call, ctx, op, attrs);
  const psg_type *out_type = NULL;
  if (!st && (st = impl->type_rel(&call, types, nargs, &out_type)) != PSG_OK)
    snprintf(msg, msglen, "%s", call.msg[0] ? call.msg : psg_status_str(st));
  if (types != small) psgi_free(ctx, types);
  if (st) return st;
  if (budget && !psgi_eval_budget_take(budget, out_type, msg, msglen)) return PSG_ERR_UNSUPPORTED;
  st = psgi_eval_op_kernel_within(ctx, op, attrs, args, nargs, out_type, budget, out, msg, msglen);
  if (!st && budget && !psgi_eval_budget_take_value(ctx, budget, out_type, *out, msg, msglen)) {
    psgi_value_release(*out);
    *out = NULL;
    st = PSG_ERR_UNSUPPORTED;
  }
  return st;
}

psg_status psgi_eval_op_kernel(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                               size_t nargs, const psg_type *out_type, psgi_value **out, char *msg,
                               size_t msglen) {
  return psgi_eval_op_kernel_within(ctx, op, attrs, args, nargs, out_type, NULL, out, msg, msglen);
}

psg_status psgi_eval_op_kernel_within(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                                      size_t nargs, const psg_type *out_type, const psgi_eval_budget *budget,
                                      psgi_value **out, char *msg, size_t msglen) {
  *out = NULL;
  const psgi_op_impl *impl = evaluable(ctx, op, msg, msglen);
  if (!impl) return PSG_ERR_UNSUPPORTED;
  const char *name = psgi_op_table[op].name;
  psgi_op_call call;
  op_call_init(&call, ctx, op, attrs);
  uint64_t need = 0;
  if (budget && type_size(out_type, 0, &need) == SIZE_DYNAMIC) {
    call.limit_key = budget->key;
    call.max_result_bytes = budget->limit - budget->used;
  }
  psg_status st = impl->kernel(&call, args, nargs, out_type, out);
  if (st) {
    snprintf(msg, msglen, "%s", call.msg[0] ? call.msg : psg_status_str(st));
  } else if (!*out) {
    snprintf(msg, msglen, "the kernel of '%s' produced no value", name);
    st = PSG_ERR_INTERNAL;
  }
  return st;
}

/* Tuples of constants nest only as deep as the program wrote them; the
 * conversions recurse on that depth, capped. */
enum { MAX_TUPLE_DEPTH = 64 };

static psg_status from_constant(psg_ctx *ctx, const psg_expr *e, int depth, psgi_value **out) {
  *out = NULL;
  if (e->kind == PSG_EXPR_CONSTANT) return psgi_value_tensor(ctx, e->u.constant, out);
  if (e->kind != PSG_EXPR_TUPLE || depth > MAX_TUPLE_DEPTH) return PSG_ERR_INVALID_ARGUMENT;
  psgi_value **items = psgi_calloc(ctx, (e->nkids ? e->nkids : 1) * sizeof *items);
  if (!items) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (uint32_t i = 0; i < e->nkids && !st; i++) st = from_constant(ctx, e->kids[i], depth + 1, &items[i]);
  if (!st) st = psgi_value_tuple(ctx, items, e->nkids, out);
  for (uint32_t i = 0; i < e->nkids; i++) psgi_value_release(items[i]);
  psgi_free(ctx, items);
  return st;
}

psg_status psgi_value_from_constant(psg_ctx *ctx, const psg_expr *e, psgi_value **out) {
  return from_constant(ctx, e, 0, out);
}

static psg_status to_expr(psg_ctx *ctx, const psgi_value *v, const psg_span *span, int depth, psg_expr **out) {
  *out = NULL;
  switch (v->kind) {
  case PSGI_VALUE_TENSOR: return psg_constant_create(ctx, v->u.tensor, span, out);
  case PSGI_VALUE_TUPLE: break;
  case PSGI_VALUE_CLOSURE:
  case PSGI_VALUE_ADT:
  case PSGI_VALUE_REF: return PSG_ERR_UNSUPPORTED;
  }
  if (depth > MAX_TUPLE_DEPTH) return PSG_ERR_UNSUPPORTED;
  size_t n = v->u.tuple.n;
  psg_expr **fields = psgi_calloc(ctx, (n ? n : 1) * sizeof *fields);
  if (!fields) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < n && !st; i++) st = to_expr(ctx, v->u.tuple.items[i], span, depth + 1, &fields[i]);
  if (!st) st = psg_tuple_create(ctx, fields, n, span, out);
  for (size_t i = 0; i < n; i++) psg_expr_release(fields[i]);
  psgi_free(ctx, fields);
  return st;
}

psg_status psgi_value_to_expr(psg_ctx *ctx, const psgi_value *v, const psg_span *span, psg_expr **out) {
  return to_expr(ctx, v, span, 0, out);
}
