/* Passage — psg_te_lower_primitive (include/passage/te.h): a whole Relay
 * Primitive function to one PrimFunc, as TVM v0.19's LowerToTECompute and
 * ScheduleToModule do (spec tir.md §5): a placeholder per flattened
 * parameter, each op call through its compute definition (te_ops.def), the
 * flattened result as the output buffers. */
#include <stdio.h>
#include "te/te.h"

/* The value of a Relay expression: a tensor or a tuple of values. */
typedef struct te_value {
  psgi_te_tensor *t;
  size_t n;
  struct te_value **items;
} te_value;

typedef struct lowering {
  psgi_te_builder b;
  psgi_map values; /* expr -> te_value */
  PSGI_VEC(psgi_te_tensor *) inputs;
  PSGI_VEC(psgi_te_tensor *) outputs;
} lowering;

static te_value *new_value(lowering *l, psgi_te_tensor *t, size_t n) {
  te_value *v = psgi_arena_alloc(&l->b.arena, sizeof *v + n * sizeof(te_value *));
  if (!v) {
    psgi_te_fail(&l->b, PSG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  v->t = t;
  v->n = n;
  v->items = (te_value **)(v + 1);
  return v;
}

/* A value of `type` made of new placeholders (a tuple type: depth first). */
static te_value *placeholders(lowering *l, const char *name, const psg_type *type) {
  if (psg_type_kind(type) != PSG_TYPE_TUPLE) {
    psgi_te_tensor *t = psgi_te_placeholder(&l->b, name, type);
    if (!t) return NULL;
    if (!PSGI_VEC_PUSH(l->b.ctx, &l->inputs, t)) return psgi_te_fail(&l->b, PSG_ERR_NOMEM, "out of memory"), NULL;
    return new_value(l, t, 0);
  }
  /* Tuple types nest only a few levels: recursion is bounded by the type. */
  size_t n = (size_t)psg_type_num_fields(type);
  te_value *v = new_value(l, NULL, n);
  for (size_t i = 0; v && i < n; i++)
    if (!(v->items[i] = placeholders(l, name, psg_type_field(type, (int)i)))) return NULL;
  return v;
}

/* Appends the tensors of v to out, depth first (iteratively). */
static bool flatten(lowering *l, te_value *v, void *vec) {
  PSGI_VEC(psgi_te_tensor *) *out = vec;
  PSGI_VEC(te_value *) stack = {0};
  bool ok = PSGI_VEC_PUSH(l->b.ctx, &stack, v);
  while (ok && stack.len) {
    te_value *x = stack.data[--stack.len];
    if (x->t) ok = PSGI_VEC_PUSH(l->b.ctx, out, x->t);
    for (size_t i = x->n; ok && i-- > 0;) ok = PSGI_VEC_PUSH(l->b.ctx, &stack, x->items[i]);
  }
  PSGI_VEC_FREE(l->b.ctx, &stack);
  if (!ok) psgi_te_fail(&l->b, PSG_ERR_NOMEM, "out of memory");
  return ok;
}

static te_value *value_of(lowering *l, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&l->values, e);
  return en ? en->value : NULL;
}

/* A scalar constant read as an immediate of its dtype. */
static te_value *constant(lowering *l, const psg_expr *e) {
  psg_tensor *t = psg_constant_get_tensor(e);
  int dt = psg_tensor_dtype(t);
  if (psg_tensor_ndim(t) != 0)
    return psgi_te_fail(&l->b, PSG_ERR_UNSUPPORTED, "te: a non-scalar constant inside a Primitive function"), NULL;
  const void *p = psg_tensor_data(t);
  double v;
  switch (dt) {
  case PSG_DTYPE_FLOAT32: v = *(const float *)p; break;
  case PSG_DTYPE_FLOAT64: v = *(const double *)p; break;
  case PSG_DTYPE_INT8: v = *(const int8_t *)p; break;
  case PSG_DTYPE_INT16: v = *(const int16_t *)p; break;
  case PSG_DTYPE_INT32: v = *(const int32_t *)p; break;
  case PSG_DTYPE_UINT8: v = *(const uint8_t *)p; break;
  case PSG_DTYPE_UINT16: v = *(const uint16_t *)p; break;
  case PSG_DTYPE_UINT32: v = *(const uint32_t *)p; break;
  case PSG_DTYPE_BOOL: v = *(const uint8_t *)p != 0; break;
  case PSG_DTYPE_INT64: {
    psg_tir_expr *x = NULL;
    psg_status st = psg_tir_make_const_int(l->b.ctx, psg_tir_dtype_int64(), *(const int64_t *)p, NULL, &x);
    if (st || !PSGI_VEC_PUSH(l->b.ctx, &l->b.pool, (psg_tir_node *)x)) {
      psg_tir_release((psg_tir_node *)x);
      return psgi_te_fail(&l->b, st ? st : PSG_ERR_NOMEM, "te: cannot make an int64 constant"), NULL;
    }
    return new_value(l, psgi_te_inline_scalar(&l->b, dt, x), 0);
  }
  default:
    return psgi_te_fail(&l->b, PSG_ERR_UNSUPPORTED, "te: a %s constant inside a Primitive function",
                        psg_dtype_name(dt)),
           NULL;
  }
  return new_value(l, psgi_te_inline_scalar(&l->b, dt, psgi_te_const(&l->b, dt, v)), 0);
}

static te_value *call(lowering *l, const psg_expr *e) {
  psgi_te_builder *b = &l->b;
  psg_expr *callee = psg_call_get_callee(e);
  if (psg_expr_kind(callee) != PSG_EXPR_OP)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: a call of a %s inside a Primitive function",
                        psg_expr_kind_name(psg_expr_kind(callee))),
           NULL;
  const char *op = psg_op_name(callee);
  psgi_te_compute_fn fn = psgi_te_find_compute(op);
  if (!fn) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: op '%s' has no compute definition", op), NULL;
  const psg_type *ty = psg_expr_checked_type(e);
  if (!ty) return psgi_te_fail(b, PSG_ERR_TYPE, "te: the call of '%s' is not type-checked", op), NULL;
  PSGI_VEC(psgi_te_tensor *) args = {0};
  for (size_t i = 0; i < psg_call_num_args(e) && !b->status; i++) flatten(l, value_of(l, psg_call_get_arg(e, i)), &args);
  ptrdiff_t idx = psg_op_find(op, strlen(op));
  b->op_name = psgi_intern(b->ctx, op, strlen(op));
  b->pattern = idx >= 0 ? psg_op_pattern((size_t)idx) : PSG_OP_PATTERN_OPAQUE;
  psgi_te_call c = {.b = b, .op = op, .attrs = psg_call_get_attrs(e), .out_type = ty, .args = args.data,
                    .nargs = args.len};
  psg_status st = b->status ? b->status : fn(&c);
  if (!st && b->status) st = b->status;
  if (st && !b->status) psgi_te_fail(b, st, "te: '%s' failed", op);
  PSGI_VEC_FREE(b->ctx, &args);
  if (st) return NULL;
  if (psg_type_kind(ty) != PSG_TYPE_TUPLE) return c.nouts == 1 ? new_value(l, c.outs[0], 0) : NULL;
  te_value *v = new_value(l, NULL, c.nouts);
  for (size_t i = 0; v && i < c.nouts; i++)
    if (!(v->items[i] = new_value(l, c.outs[i], 0))) return NULL;
  return v;
}

static psg_status post(psg_visitor *vis, const psg_expr *e) {
  lowering *l = vis->user;
  psgi_te_builder *b = &l->b;
  te_value *v = NULL;
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_VAR:
    if (!value_of(l, e)) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: free variable '%s'", psg_var_name(e));
    return PSG_OK;
  case PSG_EXPR_OP: return PSG_OK; /* read by its call */
  case PSG_EXPR_CONSTANT: v = constant(l, e); break;
  case PSG_EXPR_CALL: v = call(l, e); break;
  case PSG_EXPR_TUPLE:
    v = new_value(l, NULL, psg_tuple_size(e));
    for (size_t i = 0; v && i < v->n; i++) v->items[i] = value_of(l, psg_tuple_get_field(e, i));
    break;
  case PSG_EXPR_TUPLE_GET_ITEM: {
    te_value *t = value_of(l, psg_tuple_get_item_get_tuple(e));
    int i = psg_tuple_get_item_index(e);
    if (t && i >= 0 && (size_t)i < t->n) v = t->items[i];
    else psgi_te_fail(b, PSG_ERR_TYPE, "te: tuple index %d out of range", i);
    break;
  }
  default:
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: a %s inside a Primitive function",
                        psg_expr_kind_name(psg_expr_kind(e)));
  }
  if (!v) return b->status ? b->status : psgi_te_fail(b, PSG_ERR_INTERNAL, "te: no value");
  psgi_map_entry *en = psgi_map_put_ptr(&l->values, e, NULL);
  if (!en) return psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
  en->value = v;
  return PSG_OK;
}

/* A copy stage of t, for an output that no stage of its own writes (a
 * parameter or constant passed through, or one tensor returned twice). */
static psgi_te_tensor *copy_stage(lowering *l, psgi_te_tensor *t) {
  psgi_te_builder *b = &l->b;
  psg_tir_expr *ax[PSG_MAX_RANK];
  psgi_te_axes(b, t->ndim, ax);
  b->op_name = "copy";
  b->pattern = PSG_OP_PATTERN_ELEMWISE;
  return psgi_te_compute(b, "T_copy", t->dtype, t->ndim, t->shape, ax, psgi_te_load(b, t, ax), NULL);
}

psg_status psg_te_lower_primitive(psg_ctx *ctx, const psg_expr *fn, const char *name, psg_tir_prim_func **out) {
  if (out) *out = NULL;
  if (!ctx || !fn || !name || !out || psg_expr_kind(fn) != PSG_EXPR_FUNCTION)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "psg_te_lower_primitive: needs a context, a Relay function, a name and an out pointer");
  lowering l;
  memset(&l, 0, sizeof l);
  psgi_te_builder_init(&l.b, ctx);
  psgi_map_init(&l.values, ctx);
  psgi_te_builder *b = &l.b;
  for (size_t i = 0; i < psg_function_num_params(fn) && !b->status; i++) {
    psg_expr *p = psg_function_get_param(fn, i);
    const psg_type *ty = psg_expr_checked_type(p);
    if (!ty) ty = psg_var_type(p);
    if (!ty) {
      psgi_te_fail(b, PSG_ERR_TYPE, "te: parameter '%s' has no type", psg_var_name(p));
      break;
    }
    te_value *v = placeholders(&l, psg_var_name(p), ty);
    psgi_map_entry *en = v ? psgi_map_put_ptr(&l.values, p, NULL) : NULL;
    if (en) en->value = v;
    else if (!b->status) psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
  }
  psg_visitor vis = {NULL, post, &l};
  psg_status st = b->status;
  if (!st) {
    st = psg_visit(ctx, &vis, psg_function_get_body(fn));
    if (st && !b->status) b->status = st;
  }
  if (!b->status) flatten(&l, value_of(&l, psg_function_get_body(fn)), &l.outputs);
  for (size_t i = 0; i < l.outputs.len && !b->status; i++) {
    psgi_te_tensor *t = l.outputs.data[i];
    bool again = false;
    for (size_t j = 0; j < i; j++) again |= l.outputs.data[j] == t;
    if (t->stage < 0 || again) l.outputs.data[i] = copy_stage(&l, t);
  }
  st = psgi_te_build_func(b, l.inputs.data, l.inputs.len, l.outputs.data, l.outputs.len, name, out);
  PSGI_VEC_FREE(ctx, &l.inputs);
  PSGI_VEC_FREE(ctx, &l.outputs);
  psgi_map_fini(&l.values);
  psgi_te_builder_fini(b);
  return st;
}

bool psg_te_has_compute(const char *op_name) { return op_name && psgi_te_find_compute(op_name) != NULL; }
