/* Passage — interpreter values (tensor, tuple, closure, ADT value,
 * reference), reference counted. Release is iterative: dead values are
 * chained through dead_next, so a long ADT list needs no stack. */
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

psg_status psgi_value_adt(psg_ctx *ctx, psg_expr *ctor, psgi_value *const *items, size_t n, psgi_value **out) {
  psg_status st = psgi_value_tuple(ctx, items, n, out);
  if (st) return st;
  (*out)->kind = PSGI_VALUE_ADT;
  (*out)->u.tuple.ctor = ctor;
  psg_expr_retain(ctor);
  return PSG_OK;
}

psg_status psgi_value_ref(psg_ctx *ctx, psgi_value *v, psgi_value **out) {
  psg_status st = new_value(ctx, PSGI_VALUE_REF, out);
  if (st) return st;
  psgi_value_retain(v);
  (*out)->u.ref = v;
  return PSG_OK;
}

void psgi_value_retain(psgi_value *v) {
  if (v) psgi_ref_inc(&v->refcount);
}

/* Drops one reference to k; a value that dies joins the dead chain. */
static void drop(psgi_value *k, psgi_value **dead) {
  if (k && psgi_ref_dec(&k->refcount)) {
    k->dead_next = *dead;
    *dead = k;
  }
}

void psgi_value_release(psgi_value *v) {
  if (!v || !psgi_ref_dec(&v->refcount)) return;
  v->dead_next = NULL;
  psgi_value *dead = v;
  while (dead) {
    psgi_value *d = dead;
    dead = d->dead_next;
    psg_ctx *ctx = d->ctx;
    switch (d->kind) {
    case PSGI_VALUE_TENSOR: psg_tensor_release(d->u.tensor); break;
    case PSGI_VALUE_TUPLE:
    case PSGI_VALUE_ADT:
      for (size_t i = 0; i < d->u.tuple.n; i++) drop(d->u.tuple.items[i], &dead);
      psgi_free(ctx, d->u.tuple.items);
      psg_expr_release(d->u.tuple.ctor);
      break;
    case PSGI_VALUE_CLOSURE:
      psg_expr_release(d->u.closure.fn);
      for (size_t i = 0; i < d->u.closure.n; i++) drop(d->u.closure.values[i], &dead);
      psgi_free(ctx, d->u.closure.vars);
      psgi_free(ctx, d->u.closure.values);
      break;
    case PSGI_VALUE_REF: drop(d->u.ref, &dead); break;
    }
    psgi_free(ctx, d);
  }
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
  case PSGI_VALUE_CLOSURE:
  case PSGI_VALUE_ADT: /* its type arguments are not in the value */
  case PSGI_VALUE_REF: return NULL;
  }
  return NULL;
}
