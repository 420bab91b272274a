/* Passage — the library context (include/passage/ctx.h): allocator hook,
 * reference count shared with every live object, string interning, and the
 * library-wide version/status helpers. */
#include <stdlib.h>
#include "support/ctx_internal.h"
#include "support/default_alloc.h"

/* The default allocator's pool dies with its context, after its last block. */
static void drop_default_pool(psg_allocator a) {
  if (a.realloc == psgi_default_realloc) psgi_pool_destroy(a.user);
}

psg_status psgi_ctx_create(const psg_allocator *alloc, psg_ctx **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  /* Without a hook: the default allocator, with a pool of its own
   * (support/default_alloc.c; without one it is malloc alone). */
  psg_allocator a = {psgi_default_realloc, NULL};
  if (alloc && alloc->realloc)
    a = *alloc;
  else
    a.user = psgi_pool_create();
  psg_ctx *ctx = a.realloc(a.user, NULL, 0, sizeof *ctx);
  if (!ctx) {
    drop_default_pool(a);
    return PSG_ERR_NOMEM;
  }
  memset(ctx, 0, sizeof *ctx);
  ctx->alloc = a;
  ctx->pool = a.realloc == psgi_default_realloc ? a.user : NULL;
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
    drop_default_pool(a);
    return PSG_ERR_INTERNAL;
  }
  psgi_map_init(&ctx->strings, ctx);
  psgi_map_init(&ctx->types, ctx);
  *out = ctx;
  return PSG_OK;
}

/* The object counts this thread batches (psgi_ctx_thread_cache_begin): its
 * context, the births minus the deaths not yet applied (each object holds
 * one live count and one context reference, so one delta serves both), the
 * other context references taken minus those dropped (psg_ctx_retain and
 * psg_ctx_release: every release of a TIR or Relay node that frees it
 * holds the context meanwhile, and both threads of a loop doing that on the
 * one count made it the hottest cache line of a parallel pass), and how
 * many begins the next ends must match. */
static _Thread_local struct {
  psg_ctx *ctx;
  int64_t delta;
  int64_t refs;
  unsigned depth;
} batch;

/* Whether this thread batches ctx's counts (a relaxed load while none does). */
static inline bool batching(psg_ctx *ctx) {
  return __atomic_load_n(&ctx->batching, __ATOMIC_RELAXED) && batch.ctx == ctx;
}

/* Counts are atomic but while the process has a single thread (support.h). */
void psg_ctx_retain(psg_ctx *ctx) {
  if (!ctx) return;
  if (batching(ctx))
    batch.refs++;
  else if (psgi_single_threaded())
    ctx->refcount++;
  else
    __atomic_fetch_add(&ctx->refcount, 1, __ATOMIC_RELAXED);
}

static void ctx_destroy(psg_ctx *ctx) {
  /* Owned objects released below drop references again: park the count far
   * from zero so their release cannot re-enter destruction. */
  __atomic_store_n(&ctx->refcount, UINT32_MAX / 2, __ATOMIC_RELAXED);
  if (ctx->pass_state_free) ctx->pass_state_free(ctx, ctx->pass_state);
  if (ctx->op_attr_state_free) ctx->op_attr_state_free(ctx, ctx->op_attr_state);
  if (ctx->custom_ops_free) ctx->custom_ops_free(ctx, ctx->custom_ops);
  if (ctx->spans_free) ctx->spans_free(ctx, ctx->spans); /* after the owned nodes above died */
  for (size_t i = 0; i < ctx->strings.len; i++) psgi_free(ctx, ctx->strings.entries[i].value);
  psgi_map_fini(&ctx->strings);
  for (size_t i = 0; i < ctx->types.len; i++) psgi_free(ctx, ctx->types.entries[i].value);
  psgi_map_fini(&ctx->types);
  for (size_t i = 0; i < ctx->num_op_nodes; i++) psgi_free(ctx, ctx->op_nodes[i]);
  psgi_free(ctx, ctx->op_nodes);
  psgi_diag_list_free(ctx);
  psgi_sources_free(ctx);
  pthread_mutex_destroy(&ctx->lock);
  psg_allocator a = ctx->alloc;
  a.realloc(a.user, ctx, sizeof *ctx, 0);
  drop_default_pool(a);
}

void psg_ctx_release(psg_ctx *ctx) {
  if (!ctx) return;
  /* Not the last reference while this thread batches: the cache's opener
   * holds one outside it. */
  if (batching(ctx)) {
    batch.refs--;
    return;
  }
  if (psgi_single_threaded() ? --ctx->refcount == 0 : __atomic_fetch_sub(&ctx->refcount, 1, __ATOMIC_ACQ_REL) == 1)
    ctx_destroy(ctx);
}

int64_t psg_ctx_live_objects(const psg_ctx *ctx) {
  return __atomic_load_n(&ctx->live_objects, __ATOMIC_RELAXED);
}

bool psg_ctx_is_oom(const psg_ctx *ctx) { return __atomic_load_n(&ctx->oom, __ATOMIC_RELAXED); }


/* A thread that batches keeps batching in exclusive mode (support.h): its
 * delta may hold births whose deaths would otherwise take the context's
 * count below the references it really has. */
void psgi_ctx_object_born(psg_ctx *ctx) {
  if (batching(ctx)) {
    batch.delta++;
    return;
  }
  if (psgi_single_threaded()) {
    ctx->live_objects++;
    ctx->refcount++;
    return;
  }
  __atomic_fetch_add(&ctx->live_objects, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&ctx->refcount, 1, __ATOMIC_RELAXED);
}

void psgi_ctx_object_died(psg_ctx *ctx) {
  if (batching(ctx)) {
    batch.delta--;
    return;
  }
  if (psgi_single_threaded()) {
    ctx->live_objects--;
    if (--ctx->refcount == 0) ctx_destroy(ctx);
    return;
  }
  __atomic_fetch_sub(&ctx->live_objects, 1, __ATOMIC_RELAXED);
  psg_ctx_release(ctx);
}

void psgi_ctx_thread_cache_begin(psg_ctx *ctx) {
  if (!ctx || (batch.ctx && batch.ctx != ctx)) return;
  if (batch.depth++) return;
  batch.ctx = ctx;
  batch.delta = 0;
  batch.refs = 0;
  __atomic_fetch_add(&ctx->batching, 1, __ATOMIC_RELAXED);
  if (ctx->alloc.realloc == psgi_default_realloc) psgi_pool_cache_begin(ctx->alloc.user);
}

void psgi_ctx_thread_cache_end(psg_ctx *ctx) {
  if (!ctx || batch.ctx != ctx || --batch.depth) return;
  if (ctx->alloc.realloc == psgi_default_realloc) psgi_pool_cache_end(ctx->alloc.user);
  int64_t live = batch.delta, d = batch.delta + batch.refs;
  batch.ctx = NULL;
  batch.delta = 0;
  batch.refs = 0;
  __atomic_fetch_sub(&ctx->batching, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&ctx->live_objects, live, __ATOMIC_RELAXED);
  if (d >= 0) {
    __atomic_fetch_add(&ctx->refcount, (uint32_t)d, __ATOMIC_RELAXED);
  } else if (__atomic_fetch_sub(&ctx->refcount, (uint32_t)-d, __ATOMIC_ACQ_REL) == (uint32_t)-d) {
    ctx_destroy(ctx); /* not while a cache is open: its opener holds a reference */
  }
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
  bool locked = !psgi_single_threaded(); /* no other thread to exclude (support.h) */
  if (locked) pthread_mutex_lock(&ctx->lock);
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
  if (locked) pthread_mutex_unlock(&ctx->lock);
  return r;
}

static size_t recent_slot(const char *s) {
  return (size_t)(((uintptr_t)s >> 3) * 0x9E3779B97F4A7C15ull >> 54); /* 0..1023 */
}

const char *psgi_intern_again(psg_ctx *ctx, const char *s) {
  const char **slot = &ctx->recent[recent_slot(s)];
  if (__atomic_load_n(slot, __ATOMIC_RELAXED) == s) return s;
  const char *r = psgi_intern(ctx, s, strlen(s));
  if (r) __atomic_store_n(&ctx->recent[recent_slot(r)], r, __ATOMIC_RELAXED);
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
