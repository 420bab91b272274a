/* Passage — the library context (include/passage/ctx.h): allocator hook,
 * reference count shared with every live object, string interning, and the
 * library-wide version/status helpers. */
#include <stdlib.h>
#include "support/ctx_internal.h"

/* The default allocator: malloc, except for large blocks (tensors that
 * FoldConstant computes are megabytes of weights). Those are mapped directly
 * and faulted in one call (MADV_POPULATE_WRITE), with transparent huge pages
 * over their 2 MiB-aligned part: on virtual machines a page fault costs
 * microseconds, and faulting weights in 4 KiB at a time was most of the time
 * of -O3 on real models. Every block is written right away (kernel outputs),
 * so populating wastes nothing. The block's size (which the allocator is
 * always told) says which kind it is. Not under the sanitizers, which must
 * see every block. */
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(PASSAGE_NO_MMAP_ALLOC)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PSG_PLAIN_MALLOC 1
#endif
#endif
#else
#define PSG_PLAIN_MALLOC 1
#endif

#ifndef PSG_PLAIN_MALLOC
#include <stdint.h>
#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
enum { BIG_BLOCK = 256 << 10, HUGE_PAGE = 2 << 20, SMALL_PAGE = 4096 };

/* The mapped length of a big block of n bytes: whole small pages, and a
 * trailing part of at least half a huge page rounded up to a whole one (so
 * at most a quarter of a large block is slack). */
static size_t big_length(size_t n) {
  size_t len = (n + SMALL_PAGE - 1) & ~(size_t)(SMALL_PAGE - 1);
  size_t tail = len % HUGE_PAGE;
  if (len >= HUGE_PAGE && tail >= HUGE_PAGE / 2) len += HUGE_PAGE - tail;
  return len;
}

static void *big_alloc(size_t n) {
  size_t len = big_length(n), extra = len >= HUGE_PAGE ? HUGE_PAGE : 0;
  if (len + extra < len) return NULL;
  char *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  char *a = p;
  if (extra) {
    /* Aligned to a huge page: trim the head and the tail of the reservation. */
    a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > p) munmap(p, (size_t)(a - p));
    if (p + len + extra > a + len) munmap(a + len, (size_t)(p + len + extra - (a + len)));
    (void)madvise(a, len, MADV_HUGEPAGE);
  }
  (void)madvise(a, len, MADV_POPULATE_WRITE); /* best effort: older kernels fault lazily */
  return a;
}

static void big_free(void *p, size_t n) { munmap(p, big_length(n)); }

static void *libc_realloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  (void)user;
  bool old_big = ptr && old_size >= BIG_BLOCK, new_big = new_size >= BIG_BLOCK;
  if (new_size == 0) {
    if (old_big)
      big_free(ptr, old_size);
    else
      free(ptr);
    return NULL;
  }
  if (!old_big && !new_big) return realloc(ptr, new_size);
  if (old_big && new_big && big_length(old_size) == big_length(new_size)) return ptr;
  void *q = new_big ? big_alloc(new_size) : malloc(new_size);
  if (!q) return NULL;
  if (ptr) {
    memcpy(q, ptr, old_size < new_size ? old_size : new_size);
    if (old_big)
      big_free(ptr, old_size);
    else
      free(ptr);
  }
  return q;
}
#else
static void *libc_realloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  (void)user;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
}
#endif

psg_status psg_ctx_create(const psg_allocator *alloc, psg_ctx **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  psg_allocator a = {libc_realloc, NULL};
  if (alloc && alloc->realloc) a = *alloc;
  psg_ctx *ctx = a.realloc(a.user, NULL, 0, sizeof *ctx);
  if (!ctx) return PSG_ERR_NOMEM;
  memset(ctx, 0, sizeof *ctx);
  ctx->alloc = a;
  ctx->refcount = 1;
  /* Recursive: interning and diagnostics are reached from code that already
   * holds the lock (registries built under it intern their keys). */
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  int rc = pthread_mutex_init(&ctx->lock, &attr);
  pthread_mutexattr_destroy(&attr);
  if (rc != 0) {
    a.realloc(a.user, ctx, sizeof *ctx, 0);
    return PSG_ERR_INTERNAL;
  }
  psgi_map_init(&ctx->strings, ctx);
  psgi_map_init(&ctx->types, ctx);
  *out = ctx;
  return PSG_OK;
}

void psg_ctx_retain(psg_ctx *ctx) {
  if (ctx) __atomic_fetch_add(&ctx->refcount, 1, __ATOMIC_RELAXED);
}

static void ctx_destroy(psg_ctx *ctx) {
  /* Owned objects released below drop references again: park the count far
   * from zero so their release cannot re-enter destruction. */
  __atomic_store_n(&ctx->refcount, UINT32_MAX / 2, __ATOMIC_RELAXED);
  if (ctx->pass_state_free) ctx->pass_state_free(ctx, ctx->pass_state);
  for (size_t i = 0; i < ctx->strings.len; i++) psgi_free(ctx, ctx->strings.entries[i].value);
  psgi_map_fini(&ctx->strings);
  for (size_t i = 0; i < ctx->types.len; i++) psgi_free(ctx, ctx->types.entries[i].value);
  psgi_map_fini(&ctx->types);
  for (size_t i = 0; i < ctx->num_op_nodes; i++) psgi_free(ctx, ctx->op_nodes[i]);
  psgi_free(ctx, ctx->op_nodes);
  psgi_diag_list_free(ctx);
  pthread_mutex_destroy(&ctx->lock);
  psg_allocator a = ctx->alloc;
  a.realloc(a.user, ctx, sizeof *ctx, 0);
}

void psg_ctx_release(psg_ctx *ctx) {
  if (ctx && __atomic_fetch_sub(&ctx->refcount, 1, __ATOMIC_ACQ_REL) == 1) ctx_destroy(ctx);
}

int64_t psg_ctx_live_objects(const psg_ctx *ctx) {
  return __atomic_load_n(&ctx->live_objects, __ATOMIC_RELAXED);
}

bool psg_ctx_is_oom(const psg_ctx *ctx) { return __atomic_load_n(&ctx->oom, __ATOMIC_RELAXED); }

void psgi_ctx_object_born(psg_ctx *ctx) {
  __atomic_fetch_add(&ctx->live_objects, 1, __ATOMIC_RELAXED);
  psg_ctx_retain(ctx);
}

void psgi_ctx_object_died(psg_ctx *ctx) {
  __atomic_fetch_sub(&ctx->live_objects, 1, __ATOMIC_RELAXED);
  psg_ctx_release(ctx);
}

void psgi_ctx_adopt(psg_ctx *ctx) {
  __atomic_fetch_sub(&ctx->live_objects, 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&ctx->refcount, 1, __ATOMIC_RELAXED);
}

void psgi_ctx_unadopt(psg_ctx *ctx) {
  __atomic_fetch_add(&ctx->live_objects, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&ctx->refcount, 1, __ATOMIC_RELAXED);
}

const char *psgi_intern(psg_ctx *ctx, const char *s, size_t len) {
  pthread_mutex_lock(&ctx->lock);
  const char *r = NULL;
  psgi_map_entry *e = psgi_map_get_str(&ctx->strings, s, len);
  if (e) {
    r = e->value;
  } else {
    char *copy = psgi_strndup(ctx, s, len);
    if (copy) {
      bool is_new;
      e = psgi_map_put_str(&ctx->strings, copy, len, &is_new);
      if (e) {
        e->value = copy;
        r = copy;
      } else {
        psgi_free(ctx, copy);
      }
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  return r;
}

const char *psg_version(void) { return "0.1.0"; }

void psg_free(void *p) { free(p); }

const char *psg_status_str(psg_status code) {
  switch (code) {
  case PSG_OK: return "ok";
  case PSG_ERR_PARSE: return "parse error";
  case PSG_ERR_TYPE: return "type error";
  case PSG_ERR_NOMEM: return "out of memory";
  case PSG_ERR_INVALID_ARGUMENT: return "invalid argument";
  case PSG_ERR_PASS_FAILED: return "pass failed";
  case PSG_ERR_FRONTEND: return "error in a frontend callback";
  case PSG_ERR_IO: return "input/output error";
  case PSG_ERR_UNSUPPORTED: return "unsupported";
  case PSG_ERR_INTERNAL: return "internal error";
  case PSG_ERR_NOT_FOUND: return "not found";
  default: return "unknown status";
  }
}
