/* Passage — allocation through the context's hook (STYLE rule 5). A 16-byte
 * header keeps each block's size so internal code frees without sizes and the
 * user's hook still gets old sizes, as lua_Alloc does. With the default
 * allocator, small blocks come from and go to the pool's front first
 * (pool_front.h, docs/design.md departure 229): no call through the hook.
 * The front's paths are inline and call out for everything else, so that
 * they save no registers. */
#include <stdlib.h>
#include "support/ctx_internal.h"
#include "support/pool_front.h"

/* 16 bytes: a size, aligned as anything the hook returns (a union with
 * max_align_t would be 32 bytes on x86-64). */
typedef struct alloc_header {
  _Alignas(max_align_t) size_t size;
} alloc_header;
_Static_assert(sizeof(alloc_header) == 16 || sizeof(alloc_header) == _Alignof(max_align_t),
               "the header is one alignment unit");

static void mark_oom(psg_ctx *ctx) {
  __atomic_store_n(&ctx->oom, true, __ATOMIC_RELAXED);
  __atomic_add_fetch(&ctx->alloc_failures, 1, __ATOMIC_RELAXED);
}

uint64_t psgi_ctx_alloc_failures(const psg_ctx *ctx) { return __atomic_load_n(&ctx->alloc_failures, __ATOMIC_RELAXED); }

/* The largest n psgi_alloc may take from the front. */
enum { FRONT_PAYLOAD = PSGI_FRONT_MAX - sizeof(alloc_header) };

__attribute__((noinline)) static void *alloc_from_hook(psg_ctx *ctx, size_t n) {
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

void *psgi_alloc(psg_ctx *ctx, size_t n) {
  if (ctx->pool && n <= FRONT_PAYLOAD) {
    alloc_header *h = psgi_pool_front_take(ctx->pool, sizeof(alloc_header) + n);
    if (h) {
      h->size = sizeof(alloc_header) + n;
      return h + 1;
    }
  }
  return alloc_from_hook(ctx, n);
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

__attribute__((noinline)) static void free_to_hook(psg_ctx *ctx, void *p, size_t n) {
  ctx->alloc.realloc(ctx->alloc.user, p, n, 0);
}

void psgi_free(psg_ctx *ctx, void *p) {
  if (!p) return;
  alloc_header *h = (alloc_header *)p - 1;
  size_t n = h->size;
  if (ctx->pool && psgi_pool_front_give(ctx->pool, h, n)) return;
  free_to_hook(ctx, h, n);
}

/* Blocks whose owner knows their size when it frees them (IR nodes: the size
 * follows from the child count) skip the header: 16 bytes less per node. */
__attribute__((noinline)) static void *alloc_sized_from_hook(psg_ctx *ctx, size_t n) {
  void *p = ctx->alloc.realloc(ctx->alloc.user, NULL, 0, n);
  if (!p) mark_oom(ctx);
  return p;
}

void *psgi_alloc_sized(psg_ctx *ctx, size_t n) {
  void *p = ctx->pool ? psgi_pool_front_take(ctx->pool, n) : NULL;
  return p ? p : alloc_sized_from_hook(ctx, n);
}

void psgi_free_sized(psg_ctx *ctx, void *p, size_t n) {
  if (!p || (ctx->pool && psgi_pool_front_give(ctx->pool, p, n))) return;
  free_to_hook(ctx, p, n);
}

void psgi_ctx_hold_memory_begin(psg_ctx *ctx) { psgi_pool_hold_begin(ctx->pool); }
void psgi_ctx_hold_memory_end(psg_ctx *ctx) { psgi_pool_hold_end(ctx->pool); }

void *psg_ctx_malloc(psg_ctx *ctx, size_t n) { return ctx ? psgi_alloc(ctx, n) : NULL; }

void psg_ctx_free(psg_ctx *ctx, void *p) {
  if (ctx) psgi_free(ctx, p);
}
