/* Per-thread caches of a context (docs/design.md 170; support.h,
 * default_alloc.h): two threads cache the same context at once, take
 * blocks of every cached size and objects, hand half of them to the other
 * thread to free; every block keeps its bytes, and once both caches have
 * ended the pool holds what it held before and the context counts no live
 * object. Begins and ends nest; a second context is not cached meanwhile.
 * Also under ThreadSanitizer (tsan.test_threads_thread_cache). Without the
 * pool (sanitizer builds) only the counts and contents are checked. */
#include <pthread.h>
#include "check.h"
#include "passage/passage.h"
#include "support/ctx_internal.h"
#include "support/default_alloc.h"

enum { NBLOCKS = 600, NVARS = 500 };

typedef struct side {
  psg_ctx *ctx;
  unsigned tag;
  unsigned char *blocks[NBLOCKS];
  size_t sizes[NBLOCKS];
  psg_expr *vars[NVARS];
  int bad;
} side;

static pthread_barrier_t made, swapped;
static side sides[2];

/* Every 61st byte and the last one, from the tag and the offset. */
static void fill(unsigned char *p, size_t n, unsigned tag) {
  for (size_t i = 0; i < n; i += 61) p[i] = (unsigned char)(tag + i);
  if (n) p[n - 1] = (unsigned char)(tag + n - 1);
}
static bool holds(const unsigned char *p, size_t n, unsigned tag) {
  for (size_t i = 0; i < n; i += 61)
    if (p[i] != (unsigned char)(tag + i)) return false;
  return !n || p[n - 1] == (unsigned char)(tag + n - 1);
}

static void *run(void *arg) {
  side *me = arg, *other = &sides[me == &sides[0]];
  psg_ctx *ctx = me->ctx;
  psgi_ctx_thread_cache_begin(ctx);
  for (unsigned i = 0; i < NBLOCKS; i++) {
    /* 1 byte to 160 KiB: the cached classes, and some above them. */
    size_t n = 1 + ((size_t)(i * 2654435761u + me->tag) % (i % 10 == 9 ? 160000 : 3000));
    me->sizes[i] = n;
    if ((me->blocks[i] = psgi_alloc(ctx, n))) fill(me->blocks[i], n, me->tag + i);
    else me->bad++;
  }
  for (unsigned i = 0; i < NVARS; i++)
    if (psg_var_create(ctx, "v", NULL, NULL, &me->vars[i])) me->bad++;
  pthread_barrier_wait(&made);
  /* Free the odd ones of the other side (made on the other thread), keep ours. */
  for (unsigned i = 1; i < NBLOCKS; i += 2) {
    if (!holds(other->blocks[i], other->sizes[i], other->tag + i)) me->bad++;
    psgi_free(ctx, other->blocks[i]);
  }
  for (unsigned i = 1; i < NVARS; i += 2) psg_expr_release(other->vars[i]);
  pthread_barrier_wait(&swapped);
  for (unsigned i = 0; i < NBLOCKS; i += 2) {
    if (!holds(me->blocks[i], me->sizes[i], me->tag + i)) me->bad++;
    psgi_free(ctx, me->blocks[i]);
  }
  for (unsigned i = 0; i < NVARS; i += 2) psg_expr_release(me->vars[i]);
  psgi_ctx_thread_cache_end(ctx);
  return NULL;
}

/* A Var named "v" made and dropped: its name stays interned, so that the
 * pool's baseline includes it. */
static void intern_v(psg_ctx *ctx) {
  psg_expr *v = NULL;
  CHECK_OK(psg_var_create(ctx, "v", NULL, NULL, &v));
  psg_expr_release(v);
}

static void test_two_threads_share_blocks(void) {
  psg_ctx *ctx = check_ctx();
  intern_v(ctx);
  psgi_pool_stats before, after;
  bool pooled = psgi_pool_get_stats(ctx->alloc.user, &before);
  int64_t live = psg_ctx_live_objects(ctx);
  pthread_barrier_init(&made, NULL, 2);
  pthread_barrier_init(&swapped, NULL, 2);
  pthread_t th[2];
  for (unsigned t = 0; t < 2; t++) {
    sides[t] = (side){.ctx = ctx, .tag = 17 * (t + 1)};
    CHECK_EQ_INT(pthread_create(&th[t], NULL, run, &sides[t]), 0);
  }
  for (unsigned t = 0; t < 2; t++) pthread_join(th[t], NULL);
  pthread_barrier_destroy(&made);
  pthread_barrier_destroy(&swapped);
  CHECK_EQ_INT(sides[0].bad + sides[1].bad, 0);
  CHECK_EQ_INT((int)psg_ctx_live_objects(ctx), (int)live);
  CHECK_EQ_INT(__atomic_load_n(&ctx->batching, __ATOMIC_RELAXED), 0);
  if (pooled) {
    CHECK(psgi_pool_get_stats(ctx->alloc.user, &after));
    CHECK_EQ_INT((int)after.in_use, (int)before.in_use);
  }
  CHECK_CTX_CLEAN(ctx);
}

static void *wait_made(void *arg) {
  (void)arg;
  pthread_barrier_wait(&made);
  return NULL;
}

/* Nested scopes: the cache ends with the outermost end; while it is open,
 * blocks freed stay in it (the pool counts them handed out) and objects
 * made are not counted yet; another context is left alone. */
static void test_nesting(void) {
  psg_ctx *ctx = check_ctx(), *other = check_ctx();
  pthread_t keep; /* a second thread, so that counts are batched (not plain) */
  pthread_barrier_init(&made, NULL, 2);
  CHECK_EQ_INT(pthread_create(&keep, NULL, wait_made, NULL), 0);
  intern_v(ctx);
  psgi_pool_stats base, now;
  bool pooled = psgi_pool_get_stats(ctx->alloc.user, &base);
  psgi_ctx_thread_cache_begin(ctx);
  psgi_ctx_thread_cache_begin(ctx);
  psgi_ctx_thread_cache_begin(other); /* ignored: ctx is cached */
  psg_expr *v = NULL, *w = NULL;
  CHECK_OK(psg_var_create(ctx, "v", NULL, NULL, &v));
  CHECK_OK(psg_var_create(other, "w", NULL, NULL, &w));
  CHECK_EQ_INT((int)psg_ctx_live_objects(ctx), 0); /* batched */
  CHECK_EQ_INT((int)psg_ctx_live_objects(other), 1);
  psgi_free(ctx, psgi_alloc(ctx, 100));
  psgi_ctx_thread_cache_end(other); /* ignored */
  psgi_ctx_thread_cache_end(ctx);
  if (pooled) {
    CHECK(psgi_pool_get_stats(ctx->alloc.user, &now));
    CHECK(now.in_use > base.in_use); /* still cached */
  }
  CHECK_EQ_INT((int)psg_ctx_live_objects(ctx), 0);
  psgi_ctx_thread_cache_end(ctx);
  CHECK_EQ_INT((int)psg_ctx_live_objects(ctx), 1);
  psg_expr_release(v);
  psg_expr_release(w);
  if (pooled) {
    CHECK(psgi_pool_get_stats(ctx->alloc.user, &now));
    CHECK_EQ_INT((int)now.in_use, (int)base.in_use);
  }
  pthread_barrier_wait(&made);
  pthread_join(keep, NULL);
  pthread_barrier_destroy(&made);
  CHECK_CTX_CLEAN(other);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_two_threads_share_blocks);
  RUN_TEST(test_nesting);
  return check_finish();
}
