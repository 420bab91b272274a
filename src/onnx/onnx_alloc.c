/* Passage ONNX frontend — the house allocator for a client library. The
 * frontend is built over the public API (STYLE rule 1), so the support
 * layer's containers (PSGI_VEC_*, psgi_map_*, psgi_buf, psgi_arena: compiled
 * into this library from src/support/) get psgi_alloc & co. from here, on
 * psg_ctx_malloc/psg_ctx_free: every byte still comes from the context's
 * allocator hook, so a failing hook reaches the frontend, and a failure sets
 * the context's OOM flag. A 16-byte header keeps each block's size for
 * psgi_realloc (the public API has no resize). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "support/support.h"

/* 16 bytes: a size, aligned as anything malloc returns (a union with
 * max_align_t would be 32 bytes on x86-64). */
typedef struct onnx_block_header {
  _Alignas(max_align_t) size_t size;
} onnx_block_header;

void *psgi_alloc(psg_ctx *ctx, size_t n) {
  /* An impossible size still goes to the hook, which fails and marks OOM. */
  size_t total = n > SIZE_MAX - sizeof(onnx_block_header) ? SIZE_MAX : sizeof(onnx_block_header) + n;
  onnx_block_header *h = psg_ctx_malloc(ctx, total);
  if (!h) return NULL;
  h->size = n;
  return h + 1;
}

void *psgi_realloc(psg_ctx *ctx, void *p, size_t n) {
  if (!p) return psgi_alloc(ctx, n);
  size_t old = ((onnx_block_header *)p - 1)->size;
  void *q = psgi_alloc(ctx, n);
  if (!q) return NULL; /* p untouched */
  memcpy(q, p, old < n ? old : n);
  psgi_free(ctx, p);
  return q;
}

void psgi_free(psg_ctx *ctx, void *p) {
  if (p) psg_ctx_free(ctx, (onnx_block_header *)p - 1);
}
