/* Unit tests for the default pool's front (src/support/pool_front.h,
 * docs/design.md departure 229): the class table agrees with the pool's size
 * classes and its accounting, a freed small block is the next one of its
 * class handed out, a list never holds more than its bound and gives its
 * older half back, emptied chunks are still released and reused behind the
 * front, nothing goes on the front while a thread caches the pool, and a
 * user's hook still sees every block with its size. Under the sanitizers
 * there is no pool: only the user-hook test has something to check. */
#include "check.h"
#include "support/ctx_internal.h"
#include "support/default_alloc.h"
#include "support/pool_front.h"

/* The pool's class sizes as departure 14 states them: 32 to 128 bytes in
 * 16-byte steps, then four per octave, (5..8) << (k - 2) over (2^k, 2^(k+1)]. */
static size_t documented_class_size(unsigned c) {
  if (c < 7) return 32 + 16 * (size_t)c;
  unsigned k = 7 + (c - 7) / 4, q = (c - 7) % 4;
  return (size_t)(5 + q) << (k - 2);
}

/* How many blocks class c's front list holds (its limit minus its room). */
static uint32_t front_length(const psgi_pool_front *f, unsigned c) { return psgi_front_limit[c] - f->room[c]; }

static psgi_pool_front *front_of(psg_ctx *ctx) { return (psgi_pool_front *)(void *)ctx->pool; }

static void test_class_table(void) {
  int bad = 0;
  for (size_t n = 1; n <= PSGI_FRONT_MAX; n++) {
    unsigned c = psgi_front_class[(n + 15) >> 4];
    /* The smallest class that holds n. */
    if (c >= PSGI_FRONT_CLASSES || documented_class_size(c) < n || (c > 0 && documented_class_size(c - 1) >= n)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(documented_class_size(PSGI_FRONT_CLASSES - 1), PSGI_FRONT_MAX);
  for (unsigned c = 0; c < PSGI_FRONT_CLASSES; c++) {
    size_t want = PSGI_FRONT_BYTES / documented_class_size(c);
    if (want > PSGI_FRONT_BLOCKS) want = PSGI_FRONT_BLOCKS;
    if (psgi_front_limit[c] != want || psgi_front_limit[c] < 2) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  /* The pool counts a block of n bytes at the table's class size. */
  psg_ctx *ctx = check_ctx();
  psgi_pool_stats a, b;
  if (psgi_pool_get_stats(ctx->alloc.user, &a)) {
    for (size_t n = 1; n <= PSGI_FRONT_MAX; n += 7) {
      void *p = ctx->alloc.realloc(ctx->alloc.user, NULL, 0, n);
      CHECK(psgi_pool_get_stats(ctx->alloc.user, &b));
      if (b.in_use - a.in_use != documented_class_size(psgi_front_class[(n + 15) >> 4])) bad++;
      ctx->alloc.realloc(ctx->alloc.user, p, n, 0);
    }
    CHECK_EQ_INT(bad, 0);
  }
  CHECK_CTX_CLEAN(ctx);
}

/* A context with a pool whose front is in use (one thread, no caches), or
 * NULL (checked and released). */
static psg_ctx *front_ctx(void) {
  psg_ctx *ctx = check_ctx();
  if (ctx->pool && psgi_pool_front_usable(front_of(ctx))) return ctx;
  CHECK_CTX_CLEAN(ctx);
  return NULL;
}

static void test_freed_block_comes_back(void) {
  psg_ctx *ctx = front_ctx();
  if (!ctx) return;
  psgi_pool_front *f = front_of(ctx);
  unsigned c = psgi_front_class[(100 + 15) >> 4];
  uint32_t before = front_length(f, c);
  void *p = psgi_alloc_sized(ctx, 100);
  CHECK(p != NULL);
  psgi_free_sized(ctx, p, 100);
  CHECK_EQ_INT(front_length(f, c), before + 1);
  CHECK(f->head[c] == p);
  /* Any size of the class takes it back (97..112 bytes: the 112 class). */
  void *q = psgi_alloc_sized(ctx, 97);
  CHECK(q == p);
  CHECK_EQ_INT(front_length(f, c), before);
  psgi_free_sized(ctx, q, 97);
  /* psgi_alloc's blocks, header included, go the same way. */
  char *s = psgi_alloc(ctx, 200);
  CHECK(s != NULL);
  if (s) memset(s, 7, 200);
  psgi_free(ctx, s);
  char *t = psgi_alloc(ctx, 190);
  CHECK(t == s);
  psgi_free(ctx, t);
  /* A block above the front's sizes goes to the pool, not the front. */
  uint32_t total = 0;
  for (unsigned k = 0; k < PSGI_FRONT_CLASSES; k++) total += front_length(f, k);
  void *big = psgi_alloc_sized(ctx, PSGI_FRONT_MAX + 1);
  psgi_free_sized(ctx, big, PSGI_FRONT_MAX + 1);
  uint32_t after = 0;
  for (unsigned k = 0; k < PSGI_FRONT_CLASSES; k++) after += front_length(f, k);
  CHECK_EQ_INT(after, total);
  CHECK_CTX_CLEAN(ctx);
}

/* Many blocks freed: each list stays within its bound, the pool gets the
 * rest back (its chunks emptied and kept, as without a front), and the next
 * round reuses them without mapping more. */
static void test_bounded_and_released(void) {
  psg_ctx *ctx = front_ctx();
  if (!ctx) return;
  psgi_pool_front *f = front_of(ctx);
  psgi_pool_stats base, peak, st;
  CHECK(psgi_pool_get_stats(ctx->alloc.user, &base));
  enum { N = 24000 };
  static unsigned char *blocks[N];
  static size_t sizes[N];
  int bad = 0;
  for (int round = 0; round < 2; round++) {
    for (unsigned i = 0; i < N; i++) {
      sizes[i] = 16 + (i * 37u) % 1200; /* classes 32..1280 */
      blocks[i] = psgi_alloc_sized(ctx, sizes[i]);
      if (!blocks[i]) {
        bad++;
        continue;
      }
      memset(blocks[i], (int)(i & 0xff), sizes[i]);
    }
    if (round == 0) CHECK(psgi_pool_get_stats(ctx->alloc.user, &peak));
    for (unsigned i = 0; i < N; i++) {
      for (size_t k = 0; blocks[i] && k < sizes[i]; k++)
        if (blocks[i][k] != (unsigned char)(i & 0xff)) {
          bad++;
          break;
        }
      psgi_free_sized(ctx, blocks[i], sizes[i]);
    }
    size_t held = 0;
    for (unsigned c = 0; c < PSGI_FRONT_CLASSES; c++) {
      if (f->room[c] == 0 || f->room[c] > psgi_front_limit[c]) bad++; /* below its limit */
      size_t n = 0;
      for (psgi_front_block *b = f->head[c]; b; b = b->next) n++;
      if (n != front_length(f, c)) bad++;
      held += n * documented_class_size(c);
    }
    CHECK(held <= (size_t)PSGI_FRONT_CLASSES * PSGI_FRONT_BYTES);
    CHECK(psgi_pool_get_stats(ctx->alloc.user, &st)); /* gives the front back */
    CHECK_EQ_INT(st.in_use, base.in_use);
    CHECK(st.kept_chunks > 0 && st.kept_bytes <= (8u << 20));
    CHECK(st.mapped <= peak.mapped);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* While a thread caches the pool, blocks bypass the front (departure 170's
 * caches take them). */
static void test_not_while_caching(void) {
  psg_ctx *ctx = front_ctx();
  if (!ctx) return;
  psgi_pool_front *f = front_of(ctx);
  unsigned c = psgi_front_class[(64 + 15) >> 4];
  uint32_t before = front_length(f, c);
  psgi_pool_cache_begin(ctx->pool);
  CHECK(!psgi_pool_front_usable(f));
  void *p = psgi_alloc_sized(ctx, 64);
  CHECK(p != NULL);
  psgi_free_sized(ctx, p, 64);
  CHECK_EQ_INT(front_length(f, c), before);
  psgi_pool_cache_end(ctx->pool);
  CHECK(psgi_pool_front_usable(f));
  CHECK_CTX_CLEAN(ctx);
}

/* A user's hook sees every block, small ones included, with its size. */
typedef struct counting_hook {
  long allocs, frees;
  long long live_bytes;
} counting_hook;

static void *counting_realloc(void *user, void *p, size_t old, size_t n) {
  counting_hook *h = user;
  if (p) {
    h->frees++;
    h->live_bytes -= (long long)old;
  }
  if (n == 0) {
    free(p);
    return NULL;
  }
  void *q = realloc(p, n);
  h->allocs++;
  h->live_bytes += (long long)n;
  return q;
}

static void test_user_hook_sees_every_block(void) {
  counting_hook h = {0, 0, 0};
  psg_allocator al = {counting_realloc, &h};
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(&al, &ctx));
  if (!ctx) return;
  CHECK(ctx->pool == NULL);
  counting_hook start = h;
  for (int i = 0; i < 100; i++) {
    void *a = psgi_alloc(ctx, 24);
    void *b = psgi_alloc_sized(ctx, 48);
    psgi_free(ctx, a);
    psgi_free_sized(ctx, b, 48);
  }
  CHECK_EQ_INT(h.allocs - start.allocs, 200);
  CHECK_EQ_INT(h.frees - start.frees, 200);
  CHECK_EQ_INT(h.live_bytes, start.live_bytes);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_class_table);
  RUN_TEST(test_freed_block_comes_back);
  RUN_TEST(test_bounded_and_released);
  RUN_TEST(test_not_while_caching);
  RUN_TEST(test_user_hook_sees_every_block);
  return check_finish();
}
