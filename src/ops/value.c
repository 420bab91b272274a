/* Passage — interpreter values (tensor, tuple, closure), reference counted.
 * Tuples nest shallowly in practice; release recurses on tuple depth only. */
#include "ops/op_impl.h"

static psg_status new_value(psg_ctx *ctx, int kind, psgi_value **out) {
  *out = psgi_calloc(ctx, sizeof **out);
  if (!*out) return psgi_nomem(ctx);
  (*out)->refcount = 1;
  (*out)->kind = kind;
  (*out)->ctx = ctx;
  return PSG_OK;
}

psg_status psgi_value_tensor(psg_ctx *ctx, psg_tensor *t, psgi_value **out) {
  psg_status st = new_value(ctx, PSGI_VALUE_TENSOR, out);
  if (st) return st;
  psg_tensor_retain(t);
  (*out)->u.tensor = t;
  return PSG_OK;
}

psg_status psgi_value_tuple(psg_ctx *ctx, psgi_value *const *items, size_t n, psgi_value **out) {
  psgi_value **copy = psgi_alloc(ctx, (n ? n : 1) * sizeof *copy);
  if (!copy) return *out = NULL, psgi_nomem(ctx);
  psg_status st = new_value(ctx, PSGI_VALUE_TUPLE, out);
  if (st) {
    psgi_free(ctx, copy);
    return st;
  }
  for (size_t i = 0; i < n; i++) {
    copy[i] = items[i];
    psgi_value_retain(items[i]);
  }
  (*out)->u.tuple.n = n;
  (*out)->u.tuple.items = copy;
  return PSG_OK;
}

void psgi_value_retain(psgi_value *v) {
  if (v) psgi_ref_inc(&v->refcount);
}

void psgi_value_release(psgi_value *v) {
  if (!v || !psgi_ref_dec(&v->refcount)) return;
  psg_ctx *ctx = v->ctx;
  switch (v->kind) {
  case PSGI_VALUE_TENSOR: psg_tensor_release(v->u.tensor); break;
  case PSGI_VALUE_TUPLE:
    for (size_t i = 0; i < v->u.tuple.n; i++) psgi_value_release(v->u.tuple.items[i]);
    psgi_free(ctx, v->u.tuple.items);
    break;
  case PSGI_VALUE_CLOSURE:
    psg_expr_release(v->u.closure.fn);
    for (size_t i = 0; i < v->u.closure.n; i++) psgi_value_release(v->u.closure.values[i]);
    psgi_free(ctx, v->u.closure.vars);
    psgi_free(ctx, v->u.closure.values);
    break;
  }
  psgi_free(ctx, v);
}

const psg_type *psgi_value_type(psg_ctx *ctx, const psgi_value *v) {
  switch (v->kind) {
  case PSGI_VALUE_TENSOR: return psg_tensor_type(ctx, v->u.tensor);
  case PSGI_VALUE_TUPLE: {
    const psg_type *small[16] = {0}, **fields = small;
    size_t n = v->u.tuple.n;
    if (n > 16 && !(fields = psgi_alloc(ctx, n * sizeof *fields))) return NULL;
    const psg_type *t = NULL;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) ok = (fields[i] = psgi_value_type(ctx, v->u.tuple.items[i])) != NULL;
    if (ok) psg_type_tuple(ctx, fields, (int)n, &t);
    if (fields != small) psgi_free(ctx, fields);
    return t;
  }
  case PSGI_VALUE_CLOSURE: return NULL;
  }
  return NULL;
}
