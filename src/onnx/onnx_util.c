/* Passage ONNX frontend — small shared pieces: the name map (a house map
 * over an arena of values), diagnostics naming the current node, and the mapping
 * between ONNX element types and Passage dtypes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "onnx_internal.h"

const char *onnxi_node_name(const Onnx__NodeProto *n) {
  if (n->name && n->name[0]) return n->name;
  if (n->n_output && n->output[0][0]) return n->output[0];
  return "?";
}

const psg_span *onnxi_span(const onnx_imp *im, psg_span *buf) {
  if (!im->node || !im->node->name || !im->node->name[0]) return NULL;
  memset(buf, 0, sizeof *buf);
  buf->name = im->span_node == im->node && im->span_name ? im->span_name : im->node->name;
  return buf;
}

psg_status onnxi_fail(onnx_imp *im, psg_status code, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  im->errors++;
  if (im->node)
    return psg_ctx_fail(im->ctx, code, "%s: node '%s' (%s): %s", im->filename, onnxi_node_name(im->node),
                        im->node->op_type ? im->node->op_type : "?", msg);
  return psg_ctx_fail(im->ctx, code, "%s: %s", im->filename, msg);
}

void onnxi_map_init(onnx_map *m, psg_ctx *ctx) {
  psgi_map_init(&m->names, ctx);
  psgi_arena_init(&m->vals, ctx);
}

void onnxi_map_fini(onnx_map *m) {
  for (size_t i = 0; i < m->names.len; i++) onnxi_val_release(m->names.entries[i].value);
  psgi_map_fini(&m->names);
  psgi_arena_fini(&m->vals);
}

oval *onnxi_map_get(onnx_map *m, const char *name) {
  psgi_map_entry *e = psgi_map_get_str(&m->names, name, strlen(name));
  return e ? e->value : NULL;
}

psg_status onnxi_map_put(onnx_map *m, const char *name, oval v) {
  oval *slot = psgi_arena_alloc(&m->vals, sizeof *slot);
  psgi_map_entry *e = slot ? psgi_map_put_str(&m->names, name, strlen(name), NULL) : NULL;
  if (!e) {
    onnxi_val_release(&v);
    return PSG_ERR_NOMEM;
  }
  if (e->value) onnxi_val_release(e->value); /* callers report repeats first; never leak */
  *slot = v;
  e->value = slot;
  return PSG_OK;
}

void onnxi_val_release(oval *v) {
  psg_expr_release(v->e);
  v->e = NULL;
  v->t = NULL;
}

/* ONNX TensorProto.DataType values. */
static const struct { int32_t onnx; int dtype; const char *name; } dtypes[] = {
    {1, PSG_DTYPE_FLOAT32, "FLOAT"},   {2, PSG_DTYPE_UINT8, "UINT8"},   {3, PSG_DTYPE_INT8, "INT8"},
    {4, PSG_DTYPE_UINT16, "UINT16"},   {5, PSG_DTYPE_INT16, "INT16"},   {6, PSG_DTYPE_INT32, "INT32"},
    {7, PSG_DTYPE_INT64, "INT64"},     {8, PSG_DTYPE_INVALID, "STRING"}, {9, PSG_DTYPE_BOOL, "BOOL"},
    {10, PSG_DTYPE_FLOAT16, "FLOAT16"}, {11, PSG_DTYPE_FLOAT64, "DOUBLE"}, {12, PSG_DTYPE_UINT32, "UINT32"},
    {13, PSG_DTYPE_UINT64, "UINT64"},  {14, PSG_DTYPE_INVALID, "COMPLEX64"},
    {15, PSG_DTYPE_INVALID, "COMPLEX128"}, {16, PSG_DTYPE_BFLOAT16, "BFLOAT16"},
};
enum { NUM_DTYPES = sizeof dtypes / sizeof dtypes[0] };

int onnxi_dtype_from_onnx(int32_t t) {
  for (int i = 0; i < NUM_DTYPES; i++)
    if (dtypes[i].onnx == t) return dtypes[i].dtype;
  return PSG_DTYPE_INVALID;
}

int32_t onnxi_dtype_to_onnx(int dtype) {
  for (int i = 0; i < NUM_DTYPES; i++)
    if (dtypes[i].dtype == dtype && dtype != PSG_DTYPE_INVALID) return dtypes[i].onnx;
  return 0;
}

const char *onnxi_onnx_type_name(int32_t t) {
  for (int i = 0; i < NUM_DTYPES; i++)
    if (dtypes[i].onnx == t) return dtypes[i].name;
  return "UNDEFINED";
}

int onnxi_rank(const oval *v) { return v->t && psg_type_kind(v->t) == PSG_TYPE_TENSOR ? psg_type_ndim(v->t) : -1; }
int64_t onnxi_dim(const oval *v, int i) { return psg_type_dim(v->t, i); }
int onnxi_dtype(const oval *v) {
  return v->t && psg_type_kind(v->t) == PSG_TYPE_TENSOR ? psg_type_dtype(v->t) : PSG_DTYPE_INVALID;
}
bool onnxi_is_static(const oval *v) {
  return v->t && psg_type_kind(v->t) == PSG_TYPE_TENSOR && psg_type_is_static(v->t);
}

int64_t onnxi_type_bytes(const psg_type *t) {
  if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR || !psg_type_is_static(t)) return -1;
  int64_t bytes = (int64_t)psg_dtype_size(psg_type_dtype(t));
  for (int i = 0; i < psg_type_ndim(t); i++)
    if (__builtin_mul_overflow(bytes, psg_type_dim(t, i), &bytes)) return INT64_MAX;
  return bytes;
}

bool onnxi_error_since(const psg_ctx *ctx, size_t first) {
  if (psg_ctx_diag_count(ctx) < first) return true; /* cleared meanwhile: cannot tell, assume said */
  for (size_t i = psg_ctx_diag_count(ctx); i-- > first;)
    if (psg_diag_severity(psg_ctx_get_diag(ctx, i)) == PSG_SEVERITY_ERROR) return true;
  return false;
}
