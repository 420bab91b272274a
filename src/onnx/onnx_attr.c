/* Passage ONNX frontend — reading a node's attributes (with ONNX's defaults)
 * and building Relay call attribute dictionaries. */
#include <string.h>
#include "onnx_internal.h"

const Onnx__AttributeProto *onnxi_attr(const Onnx__NodeProto *n, const char *name) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
  return NULL;
}

int64_t onnxi_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt) {
  const Onnx__AttributeProto *a = onnxi_attr(n, name);
  return a && a->has_i ? a->i : dflt;
}

psg_status onnxi_axis_attr(onnx_imp *im, const Onnx__NodeProto *n, int r, int64_t *axis) {
  *axis = onnxi_attr_int(n, "axis", 0);
  if (*axis < -r || *axis >= r)
    return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range for rank %d", (long long)*axis, r);
  if (*axis < 0) *axis += r;
  return PSG_OK;
}

float onnxi_attr_float(const Onnx__NodeProto *n, const char *name, float dflt) {
  const Onnx__AttributeProto *a = onnxi_attr(n, name);
  return a && a->has_f ? a->f : dflt;
}

const char *onnxi_attr_str(const Onnx__NodeProto *n, const char *name, const char *dflt, char *buf, size_t cap) {
  const Onnx__AttributeProto *a = onnxi_attr(n, name);
  if (!a || !a->has_s) return dflt;
  size_t len = a->s.len < cap - 1 ? a->s.len : cap - 1;
  if (len) memcpy(buf, a->s.data, len);
  buf[len] = 0;
  return buf;
}

int onnxi_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int cap) {
  const Onnx__AttributeProto *a = onnxi_attr(n, name);
  if (!a) return -1;
  int k = (int)(a->n_ints < (size_t)cap ? a->n_ints : (size_t)cap);
  for (int i = 0; i < k; i++) out[i] = a->ints[i];
  return a->n_ints > (size_t)cap ? cap + 1 : k;
}

void onnxi_ab_init(onnx_ab *b, psg_ctx *ctx) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
}

static void push(onnx_ab *b, const char *k, psg_status st, psg_attr *v) {
  /* The converters give each call a fixed set of attributes, well under the
   * builder's room: running out is a bug here, not a property of a model. */
  bool full = b->n == sizeof b->keys / sizeof b->keys[0];
  PSG_ASSERT(!full);
  if (st || full) {
    psg_attr_release(v);
    if (!b->failed) b->failed = full ? PSG_ERR_INTERNAL : st;
    return;
  }
  b->keys[b->n] = k;
  b->vals[b->n++] = v;
}

void onnxi_ab_int(onnx_ab *b, const char *k, int64_t v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_int(b->ctx, v, &a);
  push(b, k, st, a);
}
void onnxi_ab_float(onnx_ab *b, const char *k, double v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_float(b->ctx, v, &a);
  push(b, k, st, a);
}
void onnxi_ab_bool(onnx_ab *b, const char *k, bool v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_bool(b->ctx, v, &a);
  push(b, k, st, a);
}
void onnxi_ab_str(onnx_ab *b, const char *k, const char *v) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_string(b->ctx, v, strlen(v), &a);
  push(b, k, st, a);
}
void onnxi_ab_dtype(onnx_ab *b, const char *k, int dtype) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_dtype(b->ctx, dtype, &a);
  push(b, k, st, a);
}

/* A list attribute of n items, made by item(ctx, i, &attr, user). */
typedef psg_status (*item_fn)(psg_ctx *ctx, int i, psg_attr **out, const void *user);
static psg_status list_of(psg_ctx *ctx, int n, item_fn item, const void *user, psg_attr **out) {
  psg_attr **items = psgi_calloc(ctx, psgi_mul_size((size_t)(n > 0 ? n : 0) + 1, sizeof *items));
  psg_status st = items ? PSG_OK : PSG_ERR_NOMEM;
  int k = 0;
  for (; k < n && !st; k++) st = item(ctx, k, &items[k], user);
  if (!st) st = psg_attr_list(ctx, items, (size_t)k, out);
  for (int i = 0; items && i < k; i++) psg_attr_release(items[i]);
  psgi_free(ctx, items);
  return st;
}

static psg_status int_item(psg_ctx *ctx, int i, psg_attr **out, const void *v) {
  return psg_attr_int(ctx, ((const int64_t *)v)[i], out);
}
static psg_status float_item(psg_ctx *ctx, int i, psg_attr **out, const void *v) {
  return psg_attr_float(ctx, ((const double *)v)[i], out);
}

static psg_status int_list(psg_ctx *ctx, const int64_t *v, int n, psg_attr **out) {
  return list_of(ctx, n, int_item, v, out);
}

typedef struct pairs {
  const int64_t *before, *after;
} pairs;
static psg_status pair_item(psg_ctx *ctx, int i, psg_attr **out, const void *user) {
  const pairs *p = user;
  int64_t pair[2] = {p->before[i], p->after[i]};
  return int_list(ctx, pair, 2, out);
}

void onnxi_ab_ints(onnx_ab *b, const char *k, const int64_t *v, int n) {
  psg_attr *a = NULL;
  psg_status st = int_list(b->ctx, v, n, &a);
  push(b, k, st, a);
}

void onnxi_ab_floats(onnx_ab *b, const char *k, const double *v, int n) {
  psg_attr *a = NULL;
  psg_status st = list_of(b->ctx, n, float_item, v, &a);
  push(b, k, st, a);
}

void onnxi_ab_int_pairs(onnx_ab *b, const char *k, const int64_t *before, const int64_t *after, int n) {
  psg_attr *a = NULL;
  pairs p = {before, after};
  psg_status st = list_of(b->ctx, n, pair_item, &p, &a);
  push(b, k, st, a);
}

psg_status onnxi_ab_finish(onnx_ab *b, psg_attrs **out) {
  *out = NULL;
  psg_status st = b->failed;
  if (!st && b->n) st = psg_attrs_create(b->ctx, b->keys, b->vals, b->n, out);
  for (size_t i = 0; i < b->n; i++) psg_attr_release(b->vals[i]);
  b->n = 0;
  return st;
}
