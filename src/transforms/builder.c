/* Passage — expression builders for passes (see builder.h): every node made
 * is recorded in the scope, so one fini releases all of them whatever
 * happened, and one NULL check ends a chain of builds. */
#include "ops/kernel_util.h"
#include "transforms/builder.h"

void psgi_built_init(psgi_built *b, psg_ctx *ctx, const psg_span *span) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  b->span = span;
}

void psgi_built_fini(psgi_built *b) {
  if (!b->exprs.data && !b->attrs.data) return; /* nothing built (most rule attempts) */
  for (size_t i = 0; i < b->exprs.len; i++) psg_expr_release(b->exprs.data[i]);
  for (size_t i = 0; i < b->attrs.len; i++) psg_attrs_release(b->attrs.data[i]);
  PSGI_VEC_FREE(b->ctx, &b->exprs);
  PSGI_VEC_FREE(b->ctx, &b->attrs);
}

psg_expr *psgi_built_keep(psgi_built *b, psg_expr *e) {
  (void)b;
  psg_expr_retain(e);
  return e;
}

/* Takes over a new reference; NULL (and the status recorded) on failure. */
static psg_expr *own(psgi_built *b, psg_status st, psg_expr *e) {
  if (st) {
    if (!b->status) b->status = st;
    return NULL;
  }
  if (!PSGI_VEC_PUSH(b->ctx, &b->exprs, e)) {
    psg_expr_release(e);
    if (!b->status) b->status = psgi_nomem(b->ctx);
    return NULL;
  }
  return e;
}

/* `op(args)` untyped; op is an op table index (psgi_op_node: no name hashed). */
static psg_expr *build_untyped(psgi_built *b, size_t op, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  for (size_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  psg_expr *callee = NULL, *call = NULL;
  psg_status st = psgi_op_node(b->ctx, op, &callee); /* immortal: nothing to own */
  if (!st) st = psg_call_create(b->ctx, callee, args, n, attrs, b->span, &call);
  return own(b, st, call);
}

/* The op table index of `name`; records the error (as psg_op_get) when none. */
static ptrdiff_t op_index(psgi_built *b, const char *name) {
  ptrdiff_t op = psgi_op_lookup_in(b->ctx, name, strlen(name));
  if (op < 0) {
    psg_expr *none = NULL;
    psg_status st = psg_op_get(b->ctx, name, &none); /* the located "unknown operator" diagnostic */
    if (!b->status) b->status = st ? st : PSG_ERR_NOT_FOUND;
  }
  return op;
}

/* The slot of (op, attrs, types) in c. */
static struct psgi_rel_cache_entry *rel_slot(psgi_rel_cache *c, size_t op, const psg_attrs *attrs,
                                             const psg_type *const *types, size_t n) {
  uint64_t h = psgi_hash_mix(psgi_hash_ptr(attrs), (uint64_t)op);
  for (size_t i = 0; i < n; i++) h = psgi_hash_mix(h, (uint64_t)(uintptr_t)types[i]);
  return &c->slot[h % PSGI_REL_CACHE_SLOTS];
}

/* Whether slot s holds the result for (op, attrs, types): then in *out. */
static bool rel_hit(const struct psgi_rel_cache_entry *s, size_t op, const psg_attrs *attrs,
                    const psg_type *const *types, size_t n, const psg_type **out) {
  bool hit = s->result && s->op == op && s->attrs == attrs && s->n == n;
  for (size_t i = 0; hit && i < n; i++) hit = s->args[i] == types[i];
  if (hit) *out = s->result;
  return hit;
}

/* Keeps `result` in slot s for (op, attrs, types), replacing what it held. */
static void rel_keep(struct psgi_rel_cache_entry *s, size_t op, psg_attrs *attrs, const psg_type *const *types,
                     size_t n, const psg_type *result) {
  psg_attrs_retain(attrs);
  psg_attrs_release(s->attrs);
  s->result = result;
  s->op = op;
  s->attrs = attrs;
  s->n = n;
  for (size_t i = 0; i < n; i++) s->args[i] = types[i];
}

void psgi_rel_cache_fini(psgi_rel_cache *c) {
  for (size_t i = 0; i < PSGI_REL_CACHE_SLOTS; i++) {
    psg_attrs_release(c->slot[i].attrs);
    c->slot[i].attrs = NULL;
    c->slot[i].result = NULL;
  }
}

/* Types a call just built from its arguments' types with the op's relation.
 * When every argument's type is final the call's is too (what InferType
 * would find), so InferType after the pass need not visit it. `strict`
 * (psgi_build_call_typed): also from non-final types, and a relation that
 * fails fails the build; otherwise such a call is simply left untyped for
 * InferType, which reports the error where it is. */
static psg_expr *type_call(psgi_built *b, psg_expr *call, psg_attrs *attrs, bool strict) {
  size_t n = call->nkids - 1;
  psg_expr *const *args = call->kids + 1;
  const psg_type *small[8] = {0}, **types = n <= 8 ? small : psgi_alloc(b->ctx, n * sizeof *types);
  if (!types) {
    if (!b->status) b->status = psgi_nomem(b->ctx);
    return NULL;
  }
  bool typed = true, final = true;
  for (size_t i = 0; i < n; i++) {
    const psg_type *f = psgi_expr_final_type(args[i]);
    final &= f != NULL;
    typed &= (types[i] = f ? f : psgi_type_of(args[i])) != NULL;
  }
  size_t op = call->kids[0]->u.op;
  const psgi_op_impl *impl = psgi_op_impl_get(op);
  if ((strict ? typed : final) && impl && impl->type_rel) {
    const psg_type *t = NULL;
    psg_status st = PSG_OK;
    struct psgi_rel_cache_entry *slot =
        b->rel_cache && n <= PSGI_REL_CACHE_ARGS ? rel_slot(b->rel_cache, op, attrs, types, n) : NULL;
    if (!slot || !rel_hit(slot, op, attrs, types, n, &t)) {
      psgi_op_call oc = {.ctx = b->ctx, .op = op, .attrs = attrs}; /* (zeroes its message buffer: on a miss only) */
      st = impl->type_rel(&oc, types, n, &t);
      if (!st && t && slot) rel_keep(slot, op, attrs, types, n, t);
      if (st == PSG_ERR_NOMEM || (st && strict)) {
        if (!b->status) b->status = st == PSG_ERR_NOMEM ? st : psg_ctx_fail(b->ctx, PSG_ERR_TYPE, "%s: %s", psg_op_name(call->kids[0]), oc.msg);
        call = NULL;
      }
    }
    if (call && !st && final) {
      psgi_expr_set_final_type(call, t);
    } else if (call && !st) {
      psgi_give_type(call, t);
    }
  }
  if (types != small) psgi_free(b->ctx, types);
  return call;
}

psg_expr *psgi_build_op_call(psgi_built *b, size_t op, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  psg_expr *call = build_untyped(b, op, args, n, attrs);
  return call && b->final_types ? type_call(b, call, attrs, false) : call;
}

psg_expr *psgi_build_call(psgi_built *b, const char *op, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  for (size_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  ptrdiff_t idx = op_index(b, op);
  return idx < 0 ? NULL : psgi_build_op_call(b, (size_t)idx, args, n, attrs);
}

psg_expr *psgi_build_op_call_typed(psgi_built *b, size_t op, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  psg_expr *call = build_untyped(b, op, args, n, attrs);
  return call ? type_call(b, call, attrs, true) : NULL;
}

psg_expr *psgi_build_call_typed(psgi_built *b, const char *op, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  for (size_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  ptrdiff_t idx = op_index(b, op);
  return idx < 0 ? NULL : psgi_build_op_call_typed(b, (size_t)idx, args, n, attrs);
}

void psgi_give_type(psg_expr *e, const psg_type *t) {
  if (e && t && !e->checked_type) psgi_expr_set_checked_type(e, t);
}

psg_expr *psgi_build_constant(psgi_built *b, psg_tensor *t) {
  if (!t) return NULL;
  psg_expr *c = NULL;
  psg_status st = psg_constant_create(b->ctx, t, b->span, &c);
  const psg_type *ty = st ? NULL : psg_tensor_type(b->ctx, t);
  if (ty) psgi_expr_set_final_type(c, ty);
  return own(b, st, c);
}

psg_expr *psgi_build_scalar(psgi_built *b, int dtype, double value) {
  psg_tensor *t = NULL;
  psg_status st = psg_tensor_create(b->ctx, dtype, NULL, 0, NULL, &t);
  if (st) {
    if (!b->status) b->status = st;
    return NULL;
  }
  void *data = (void *)t->data; /* private until wrapped in the constant */
  switch (dtype) {
  case PSG_DTYPE_FLOAT32: { float f = (float)value; memcpy(data, &f, sizeof f); break; }
  case PSG_DTYPE_FLOAT64: memcpy(data, &value, sizeof value); break;
  case PSG_DTYPE_INT32: { int32_t i = (int32_t)value; memcpy(data, &i, sizeof i); break; }
  case PSG_DTYPE_INT64: { int64_t i = (int64_t)value; memcpy(data, &i, sizeof i); break; }
  default: psgi_store_f(dtype, data, 0, value); /* float16, other integer widths, bool */
  }
  psg_expr *c = psgi_build_constant(b, t);
  psg_tensor_release(t);
  return c;
}

psg_expr *psgi_build_tuple_get_item(psgi_built *b, psg_expr *tuple, int index) {
  if (!tuple) return NULL;
  psg_expr *e = NULL;
  psg_status st = psg_tuple_get_item_create(b->ctx, tuple, index, b->span, &e);
  return own(b, st, e);
}

/* Attributes ----------------------------------------------------------------------- */

static psg_attr *own_attr(psgi_built *b, psg_status st, psg_attr *a) {
  if (st && !b->status) b->status = st;
  return st ? NULL : a;
}

psg_attr *psgi_build_attr_int(psgi_built *b, int64_t v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_int(b->ctx, v, &a); /* before own_attr reads a */
  return own_attr(b, st, a);
}

psg_attr *psgi_build_attr_bool(psgi_built *b, bool v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_bool(b->ctx, v, &a); /* before own_attr reads a */
  return own_attr(b, st, a);
}

psg_attr *psgi_build_attr_float(psgi_built *b, double v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_float(b->ctx, v, &a); /* before own_attr reads a */
  return own_attr(b, st, a);
}

psg_attr *psgi_build_attr_dtype(psgi_built *b, int dtype) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_dtype(b->ctx, dtype, &a); /* before own_attr reads a */
  return own_attr(b, st, a);
}

psg_attr *psgi_build_attr_ints(psgi_built *b, const int64_t *v, size_t n) {
  psg_attr *small[8] = {0}, **items = n <= 8 ? small : psgi_alloc(b->ctx, n * sizeof *items);
  if (!items) return own_attr(b, psgi_nomem(b->ctx), NULL);
  size_t made = 0;
  psg_status st = PSG_OK;
  for (; made < n && !st; made++) st = psg_attr_int(b->ctx, v[made], &items[made]);
  if (st) made--;
  psg_attr *list = NULL;
  if (!st) st = psg_attr_list(b->ctx, items, n, &list);
  for (size_t i = 0; i < made; i++) psg_attr_release(items[i]);
  if (items != small) psgi_free(b->ctx, items);
  return own_attr(b, st, list);
}

psg_attrs *psgi_build_attrs(psgi_built *b, const char *const *keys, psg_attr *const *values, size_t n) {
  bool complete = true;
  for (size_t i = 0; i < n; i++) complete &= values[i] != NULL;
  psg_attrs *d = NULL;
  psg_status st = complete ? psg_attrs_create(b->ctx, keys, values, n, &d) : PSG_OK;
  for (size_t i = 0; i < n; i++) psg_attr_release(values[i]); /* the dictionary holds its own */
  if (!complete) return NULL;
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->attrs, d)) {
    psg_attrs_release(d);
    st = psgi_nomem(b->ctx);
  }
  if (st && !b->status) b->status = st;
  return st ? NULL : d;
}

psg_expr *psgi_build_expand_to_axis(psgi_built *b, psg_expr *x, int ndim, int axis) {
  int extra = ndim - axis - 1;
  if (!x || extra <= 0) return x;
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"axis", "num_newaxis"},
                                      (psg_attr *[]){psgi_build_attr_int(b, 1), psgi_build_attr_int(b, extra)}, 2);
  return attrs ? psgi_build_op_call(b, PSGI_OP_expand_dims, &x, 1, attrs) : NULL;
}

/* Reading types ------------------------------------------------------------------ */

const psg_type *psgi_type_of(const psg_expr *e) {
  const psg_type *t = e ? e->checked_type : NULL;
  /* Parameters keep their annotation rather than a checked type. */
  if (!t && e && e->kind == PSG_EXPR_VAR) t = e->u.var.type;
  return t;
}

const psg_type *psgi_tensor_type_of(const psg_expr *e) {
  const psg_type *t = psgi_type_of(e);
  return t && t->kind == PSG_TYPE_TENSOR ? t : NULL;
}

const char *psgi_call_op_name(const psg_expr *call) {
  if (!call || call->kind != PSG_EXPR_CALL || call->kids[0]->kind != PSG_EXPR_OP) return NULL;
  return psg_op_name(call->kids[0]);
}
