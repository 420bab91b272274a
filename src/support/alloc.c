/* Passage — allocation through the context's hook (STYLE rule 5). A 16-byte
 * header keeps each block's size so internal code frees without sizes and the
 * user's hook still gets old sizes, as lua_Alloc does. */
#include <stdlib.h>
#include "support/ctx_internal.h"

typedef union alloc_header {
  size_t size;
  max_align_t align_;
} alloc_header;

static void mark_oom(psg_ctx *ctx) {
  __atomic_store_n(&ctx->oom, true, __ATOMIC_RELAXED);
  __atomic_add_fetch(&ctx->alloc_failures, 1, __ATOMIC_RELAXED);
}

uint64_t psgi_ctx_alloc_failures(const psg_ctx *ctx) { return __atomic_load_n(&ctx->alloc_failures, __ATOMIC_RELAXED); }

void *psgi_alloc(psg_ctx *ctx, size_t n) {
  if (n > SIZE_MAX - sizeof(alloc_header)) {
    mark_oom(ctx);
    return NULL;
  }
  size_t total = sizeof(alloc_header) + n;
  alloc_header *h = ctx->alloc.realloc(ctx->alloc.user, NULL, 0, total);
  if (!h) {
    mark_oom(ctx);
    return NULL;
  }
  h->size = total;
  return h + 1;
}

void *psgi_realloc(psg_ctx *ctx, void *p, size_t n) {
  if (!p) return psgi_alloc(ctx, n);
  if (n > SIZE_MAX - sizeof(alloc_header)) {
    mark_oom(ctx);
    return NULL;
  }
  alloc_header *h = (alloc_header *)p - 1;
  size_t total = sizeof(alloc_header) + n;
  alloc_header *nh = ctx->alloc.realloc(ctx->alloc.user, h, h->size, total);
  if (!nh) {
    mark_oom(ctx);
    return NULL;
  }
  nh->size = total;
  return nh + 1;
}

void psgi_free(psg_ctx *ctx, void *p) {
  if (!p) return;
  alloc_header *h = (alloc_header *)p - 1;
  ctx->alloc.realloc(ctx->alloc.user, h, h->size, 0);
}

/* Blocks whose owner knows their size when it frees them (IR nodes: the size
 * follows from the child count) skip the header: 16 bytes less per node. */
void *psgi_alloc_sized(psg_ctx *ctx, size_t n) {
  void *p = ctx->alloc.realloc(ctx->alloc.user, NULL, 0, n);
  if (!p) mark_oom(ctx);
  return p;
}

void psgi_free_sized(psg_ctx *ctx, void *p, size_t n) {
  if (p) ctx->alloc.realloc(ctx->alloc.user, p, n, 0);
}

void *psg_ctx_malloc(psg_ctx *ctx, size_t n) { return ctx ? psgi_alloc(ctx, n) : NULL; }

void psg_ctx_free(psg_ctx *ctx, void *p) {
  if (ctx) psgi_free(ctx, p);
}
