/* The default pool's front under threads (src/support/pool_front.h,
 * docs/design.md departure 229): blocks put on the front while the process
 * had one thread stay valid and handed out once threads run; the threads'
 * blocks (and the main thread's, while they run) bypass the front; every
 * block keeps its bytes; and the pool's count of bytes in use comes back to
 * where it was plus exactly what the front holds. Run under TSan as well
 * (tsan.test_threads_pool_front). */
#include <pthread.h>
#include "check.h"
#include "support/ctx_internal.h"
#include "support/default_alloc.h"
#include "support/pool_front.h"

enum { EARLY = 600, LIVE = 32, ROUNDS = 4000, T = 3 };

typedef struct worker {
  psg_ctx *ctx;
  unsigned seed;
  int bad;
} worker;

static void fill(unsigned char *p, size_t n, unsigned tag) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(tag * 13 + i);
}
static bool holds(const unsigned char *p, size_t n, unsigned tag) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(tag * 13 + i)) return false;
  return true;
}

/* Small blocks (the front's sizes) allocated, checked and freed at random,
 * with and without psgi_alloc's header. */
static void *work(void *arg) {
  worker *w = arg;
  unsigned char *live[LIVE] = {0};
  size_t n[LIVE] = {0};
  bool headed[LIVE] = {0};
  uint64_t s = w->seed * 2654435761u + 7;
  for (int round = 0; round < ROUNDS; round++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    unsigned k = (unsigned)(s % LIVE);
    if (live[k]) {
      if (!holds(live[k], n[k], w->seed + k)) w->bad++;
      if (headed[k]) psgi_free(w->ctx, live[k]);
      else psgi_free_sized(w->ctx, live[k], n[k]);
    }
    n[k] = 1 + (size_t)((s >> 8) % 3000);
    headed[k] = (s >> 40) & 1;
    live[k] = headed[k] ? psgi_alloc(w->ctx, n[k]) : psgi_alloc_sized(w->ctx, n[k]);
    if (live[k]) fill(live[k], n[k], w->seed + k);
    else w->bad++;
  }
  for (unsigned k = 0; k < LIVE; k++) {
    if (!live[k]) continue;
    if (!holds(live[k], n[k], w->seed + k)) w->bad++;
    if (headed[k]) psgi_free(w->ctx, live[k]);
    else psgi_free_sized(w->ctx, live[k], n[k]);
  }
  return NULL;
}

/* How many blocks class c's front list holds (its limit minus its room). */
static uint32_t front_length(const psgi_pool_front *f, unsigned c) { return psgi_front_limit[c] - f->room[c]; }

static size_t front_bytes(const psgi_pool_front *f) {
  size_t bytes = 0;
  for (unsigned c = 0; c < PSGI_FRONT_CLASSES; c++) {
    /* The class's size: the largest n of the class (a multiple of 16). */
    size_t size = 0;
    for (size_t i = 1; i <= PSGI_FRONT_MAX / 16; i++)
      if (psgi_front_class[i] == c) size = 16 * i;
    bytes += front_length(f, c) * size;
  }
  return bytes;
}

static void test_front_across_threads(void) {
  psg_ctx *ctx = check_ctx();
  psgi_pool_stats base, st;
  bool pooled = psgi_pool_get_stats(ctx->alloc.user, &base); /* flushes the front */
  static unsigned char *early[EARLY];
  static size_t early_n[EARLY];
  int bad = 0;
  for (unsigned i = 0; i < EARLY; i++) {
    early_n[i] = 8 + (i * 53u) % 2000;
    if ((early[i] = psgi_alloc_sized(ctx, early_n[i]))) fill(early[i], early_n[i], i);
    else bad++;
  }
  /* Half freed while the process has one thread: onto the front. */
  for (unsigned i = 0; i < EARLY; i += 2) psgi_free_sized(ctx, early[i], early_n[i]);
  pthread_t th[T];
  worker w[T];
  for (unsigned i = 0; i < T; i++) {
    w[i] = (worker){ctx, i + 1, 0};
    CHECK_EQ_INT(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  /* The other half freed while the threads run: past the front. */
  for (unsigned i = 1; i < EARLY; i += 2) {
    if (!early[i] || !holds(early[i], early_n[i], i)) bad++;
    psgi_free_sized(ctx, early[i], early_n[i]);
  }
  for (unsigned i = 0; i < T; i++) {
    pthread_join(th[i], NULL);
    bad += w[i].bad;
  }
  CHECK_EQ_INT(bad, 0);
  if (pooled) {
    CHECK(psgi_pool_get_stats(ctx->alloc.user, &st));
    /* The front's blocks count as handed out until it is used again. */
    size_t held = psgi_pool_front_usable((psgi_pool_front *)(void *)ctx->pool) ? 0 : front_bytes((psgi_pool_front *)(void *)ctx->pool);
    CHECK_EQ_INT(st.in_use, base.in_use + held);
  }
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_front_across_threads);
  return check_finish();
}
