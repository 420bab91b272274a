/* Unit tests for the default allocator (src/support/default_alloc.c): every
 * block keeps its bytes and its own room (no overlap) across the size kinds
 * and their boundaries, realloc keeps contents across kinds, freed blocks are
 * reused, a pool whose blocks are all freed holds at most one chunk, and
 * threads sharing a context do not corrupt each other. Under the sanitizers
 * the pool does not exist and only the content checks run. */
#include <pthread.h>
#include "check.h"
#include "support/ctx_internal.h"
#include "support/default_alloc.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Fills (and checks) a block with bytes derived from a tag and the offset. */
static void fill(unsigned char *p, size_t n, unsigned tag) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(tag * 31 + i * 7 + (i >> 12));
}
static bool holds(const unsigned char *p, size_t n, unsigned tag) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(tag * 31 + i * 7 + (i >> 12))) return false;
  return true;
}

/* Sizes at and around every boundary between kinds and classes. */
static size_t edge_size(unsigned i) {
  static const size_t edges[] = {1,       16,      31,      32,      33,      127,    128,    129,
                                 160,     161,     4095,    4096,    4097,    5120,   5121,   8192,
                                 65535,   65536,   65537,   262143,  262144,  262145, 1048575, 1048576,
                                 1048577, 2097151, 2097152, 2097153, 3145728};
  return edges[i];
}

enum { NBLOCKS = 200, NEDGES = 29 };

static void test_blocks_keep_their_bytes(void) {
  psg_ctx *ctx = check_ctx();
  void *user = ctx->alloc.user;
  psgi_pool_stats base, now;
  bool pooled = psgi_pool_get_stats(user, &base);
  static unsigned char *blocks[NBLOCKS];
  static size_t sizes[NBLOCKS];
  int bad = 0;
  for (unsigned i = 0; i < NBLOCKS; i++) {
    sizes[i] = i < NEDGES ? edge_size(i) : 1 + rng() % ((rng() % 16 == 0) ? 3u << 20 : 300000u);
    blocks[i] = ctx->alloc.realloc(user, NULL, 0, sizes[i]);
    if (!blocks[i] || ((uintptr_t)blocks[i] & 15)) bad++;
    if (blocks[i]) fill(blocks[i], sizes[i], i);
  }
  CHECK_EQ_INT(bad, 0);
  /* Resize a third of them, across kinds: the common prefix survives. */
  for (unsigned i = 0; i < NBLOCKS; i += 3) {
    size_t n = 1 + rng() % (2u << 20);
    unsigned char *q = ctx->alloc.realloc(user, blocks[i], sizes[i], n);
    if (!q) {
      bad++;
      continue;
    }
    if (!holds(q, n < sizes[i] ? n : sizes[i], i)) bad++;
    blocks[i] = q;
    sizes[i] = n;
    fill(q, n, i);
  }
  CHECK_EQ_INT(bad, 0);
  for (unsigned i = 0; i < NBLOCKS; i++)
    if (!holds(blocks[i], sizes[i], i)) bad++; /* no block wrote into another */
  CHECK_EQ_INT(bad, 0);
  if (pooled) {
    CHECK(psgi_pool_get_stats(user, &now));
    CHECK(now.in_use > base.in_use);
  }
  /* Free in a shuffled order. */
  static unsigned order[NBLOCKS];
  for (unsigned i = 0; i < NBLOCKS; i++) order[i] = i;
  for (unsigned i = NBLOCKS - 1; i > 0; i--) {
    unsigned j = (unsigned)(rng() % (i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (unsigned k = 0; k < NBLOCKS; k++) {
    unsigned i = order[k];
    if (k % 50 == 0) /* the survivors still hold their bytes */
      for (unsigned m = k; m < NBLOCKS; m++)
        if (!holds(blocks[order[m]], sizes[order[m]], order[m])) bad++;
    ctx->alloc.realloc(user, blocks[i], sizes[i], 0);
  }
  CHECK_EQ_INT(bad, 0);
  if (pooled) {
    /* Everything freed: what the context had before (its own record is a
     * block of one arena or the other), the current chunk of the other
     * arena, one spare, the empty chunks kept (at most 8 MiB while little
     * is in use), and the freed big blocks kept for reuse (at most 32 MiB,
     * an emptied one being carved included). */
    CHECK(psgi_pool_get_stats(user, &now));
    CHECK_EQ_INT(now.in_use, base.in_use);
    CHECK(now.chunks - now.donated_chunks - now.kept_chunks <= base.chunks + 2);
    CHECK(now.mapped - now.donated_bytes - now.kept_bytes <= base.mapped + (8u << 20));
    CHECK(now.donated_bytes <= (32u << 20));
    CHECK(now.kept_bytes <= (8u << 20)); /* little in use: the floor of what is kept */
  }
  CHECK_CTX_CLEAN(ctx);
}

static void test_reuse(void) {
  psg_ctx *ctx = check_ctx();
  void *user = ctx->alloc.user;
  psgi_pool_stats st;
  if (!psgi_pool_get_stats(user, &st)) {
    CHECK_CTX_CLEAN(ctx);
    return; /* no pool here */
  }
  /* Blocks of one class come back from its free list. */
  void *keep = ctx->alloc.realloc(user, NULL, 0, 100000);
  void *a = ctx->alloc.realloc(user, NULL, 0, 70000);
  ctx->alloc.realloc(user, a, 70000, 0);
  void *b = ctx->alloc.realloc(user, NULL, 0, 69000); /* same class (64-80 KiB) */
  CHECK(a == b);
  /* Growing within the class keeps the block. */
  void *c = ctx->alloc.realloc(user, b, 69000, 81920);
  CHECK(c == b);
  ctx->alloc.realloc(user, c, 81920, 0);
  ctx->alloc.realloc(user, keep, 100000, 0);
  /* Many rounds of a FoldConstant-like pattern (a new weight, then the old
   * one dropped) map no more than a couple of chunks. */
  void *prev = NULL;
  size_t prev_n = 0;
  for (int i = 0; i < 2000; i++) {
    size_t n = 4096 + (size_t)(rng() % (600u << 10));
    void *p = ctx->alloc.realloc(user, NULL, 0, n);
    CHECK(p != NULL);
    if (p) memset(p, i & 0xff, n);
    if (prev) ctx->alloc.realloc(user, prev, prev_n, 0);
    prev = p;
    prev_n = n;
  }
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK(st.chunks <= 3);
  ctx->alloc.realloc(user, prev, prev_n, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* A new context whose allocator is the pool, with the pool's stats now in
 * *base; NULL (the context checked and released) when there is no pool. */
static psg_ctx *pool_ctx(psgi_pool_stats *base) {
  psg_ctx *ctx = check_ctx();
  if (psgi_pool_get_stats(ctx->alloc.user, base)) return ctx;
  CHECK_CTX_CLEAN(ctx);
  return NULL; /* no pool here */
}

/* Allocates a big block (written through when `touch`) and frees it, so the
 * pool keeps it as a donated chunk; returns where it was. */
static char *donate_big(psg_ctx *ctx, size_t big, bool touch) {
  char *b = ctx->alloc.realloc(ctx->alloc.user, NULL, 0, big);
  CHECK(b != NULL);
  if (b && touch) memset(b, 1, big);
  ctx->alloc.realloc(ctx->alloc.user, b, big, 0);
  return b;
}

/* A freed big block (above 1 MiB) becomes a chunk later weight-sized blocks
 * are carved from (memory already touched), and the pool keeps at most
 * 32 MiB of such blocks. */
static void test_big_blocks_donated(void) {
  psgi_pool_stats base, st;
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  size_t big = 5u << 20;
  char *b = donate_big(ctx, big, true);
  char *w = ctx->alloc.realloc(user, NULL, 0, 200000);
  CHECK(w != NULL && w >= b && w + 200000 <= b + big);
  fill((unsigned char *)w, 200000, 3);
  CHECK(holds((unsigned char *)w, 200000, 3));
  ctx->alloc.realloc(user, w, 200000, 0);
  /* Ten 8 MiB blocks freed: at most 32 MiB of them stay mapped. */
  enum { NBIG = 10 };
  void *many[NBIG];
  for (int i = 0; i < NBIG; i++) CHECK((many[i] = ctx->alloc.realloc(user, NULL, 0, 8u << 20)) != NULL);
  for (int i = 0; i < NBIG; i++) ctx->alloc.realloc(user, many[i], 8u << 20, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK(st.in_use == base.in_use);
  CHECK(st.donated_bytes > 0 && st.donated_bytes <= (32u << 20));
  CHECK(st.mapped - st.donated_bytes <= base.mapped + (6u << 20));
  CHECK_CTX_CLEAN(ctx);
}

/* Blocks carved from every 2 MiB region of a donated chunk are found again
 * when freed (the pool looks chunks up by region) and come back from the
 * free lists intact. */
static void test_blocks_across_regions(void) {
  psgi_pool_stats base, st;
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  size_t big = 7u << 20;
  char *b = donate_big(ctx, big, false);
  enum { N = 40 };
  unsigned char *blocks[N];
  int bad = 0, in_big = 0;
  for (int round = 0; round < 2; round++) {
    for (unsigned i = 0; i < N; i++) {
      blocks[i] = ctx->alloc.realloc(user, NULL, 0, 200000);
      if (!blocks[i]) {
        bad++;
        continue;
      }
      in_big += (char *)blocks[i] >= b && (char *)blocks[i] < b + big;
      fill(blocks[i], 200000, i + round);
    }
    for (unsigned i = 0; i < N; i++) {
      if (blocks[i] && !holds(blocks[i], 200000, i + round)) bad++;
      ctx->alloc.realloc(user, blocks[i], 200000, 0);
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(in_big > N); /* the donated chunk's regions beyond its first were used */
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.in_use, base.in_use);
  CHECK_CTX_CLEAN(ctx);
}

/* A freed big block comes back for the next big block of the same mapped
 * length (a pass's memo table, then the next pass's of the same size),
 * not for another length. */
static void test_big_block_reused(void) {
  psgi_pool_stats base, st;
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  size_t big = (3u << 20) + 100;
  unsigned char *a = ctx->alloc.realloc(user, NULL, 0, big);
  CHECK(a != NULL);
  if (a) fill(a, big, 5);
  ctx->alloc.realloc(user, a, big, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK(st.donated_bytes > base.donated_bytes);
  unsigned char *other = ctx->alloc.realloc(user, NULL, 0, 5u << 20);
  CHECK(other != NULL && other != a);
  unsigned char *b = ctx->alloc.realloc(user, NULL, 0, big - 50);
  CHECK(b == a);
  if (b) {
    fill(b, big - 50, 6);
    CHECK(holds(b, big - 50, 6));
  }
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.donated_bytes, base.donated_bytes); /* no longer a chunk */
  ctx->alloc.realloc(user, b, big - 50, 0);
  ctx->alloc.realloc(user, other, 5u << 20, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.in_use, base.in_use);
  CHECK_CTX_CLEAN(ctx);
}

/* Chunks emptied by freeing many small blocks stay mapped, up to the floor
 * of 8 MiB (half of what is in use when more is), and the next round of
 * allocations takes them before mapping new ones. */
static void test_empty_chunks_kept(void) {
  psgi_pool_stats base, st, peak, freed = {0};
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  /* About 24 MiB of 1 KiB blocks, 2048 to a 2 MiB chunk; 8 MiB kept hold
   * the first KEPT of a round. */
  enum { N = 24000, SIZE = 1000, KEPT = 8000 };
  static unsigned char *blocks[N];
  int bad = 0;
  for (int round = 0; round < 3; round++) {
    for (unsigned i = 0; i < N; i++) {
      blocks[i] = ctx->alloc.realloc(user, NULL, 0, SIZE);
      if (blocks[i])
        fill(blocks[i], SIZE, i + round);
      else
        bad++;
      if (round > 0 && i == KEPT) {
        CHECK(psgi_pool_get_stats(user, &st));
        CHECK(st.mapped <= freed.mapped); /* from the kept chunks: nothing mapped */
      }
    }
    if (round == 0) CHECK(psgi_pool_get_stats(user, &peak));
    for (unsigned i = 0; i < N; i++) {
      if (blocks[i] && !holds(blocks[i], SIZE, i + round)) bad++;
      ctx->alloc.realloc(user, blocks[i], SIZE, 0);
    }
    CHECK(psgi_pool_get_stats(user, &st));
    CHECK_EQ_INT(st.in_use, base.in_use);
    CHECK(st.kept_chunks > 0 && st.kept_bytes <= (8u << 20));
    CHECK(st.mapped <= peak.mapped);
    freed = st;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* While much is in use, the pool keeps more freed big blocks (half of what
 * is in use, above the 32 MiB floor); once that work is freed, it gives
 * them back down to the floors. */
static void test_reuse_limits_follow_use(void) {
  psgi_pool_stats base, st;
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  enum { HELD = 1600, HELD_SIZE = 60000, NBIG = 14 }; /* ~100 MiB in use; 14 x 4 MiB freed */
  static void *held[HELD];
  void *big[NBIG];
  size_t big_n = (4u << 20) + 100;
  for (unsigned i = 0; i < HELD; i++) CHECK((held[i] = ctx->alloc.realloc(user, NULL, 0, HELD_SIZE)) != NULL);
  for (unsigned i = 0; i < NBIG; i++) CHECK((big[i] = ctx->alloc.realloc(user, NULL, 0, big_n)) != NULL);
  for (unsigned i = 0; i < NBIG; i++) ctx->alloc.realloc(user, big[i], big_n, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK(st.donated_bytes > (32u << 20));
  CHECK(st.donated_bytes <= st.in_use / 2);
  for (unsigned i = 0; i < HELD; i++) ctx->alloc.realloc(user, held[i], HELD_SIZE, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.in_use, base.in_use);
  CHECK(st.donated_bytes <= (32u << 20));
  CHECK(st.kept_bytes <= (8u << 20));
  CHECK_CTX_CLEAN(ctx);
}

/* While the pool is held (a pass run), chunks emptied by freeing many small
 * blocks all stay mapped, however little is in use, and the next round of
 * allocations maps nothing fresh; the hold's end trims them back to the
 * floor. */
static void test_hold_keeps_freed_chunks(void) {
  psgi_pool_stats base, st, filled = {0};
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  enum { N = 40000, SIZE = 1000 }; /* ~40 MiB: 20 chunks */
  static unsigned char *blocks[N];
  int bad = 0;
  psgi_pool_hold_begin(user);
  for (int round = 0; round < 2; round++) {
    for (unsigned i = 0; i < N; i++) {
      if (!(blocks[i] = ctx->alloc.realloc(user, NULL, 0, SIZE))) bad++;
      else fill(blocks[i], SIZE, i + round);
    }
    CHECK(psgi_pool_get_stats(user, &st));
    if (round == 0) filled = st;
    else CHECK_EQ_INT(st.fresh, filled.fresh); /* all from the kept chunks */
    for (unsigned i = 0; i < N; i++) {
      if (blocks[i] && !holds(blocks[i], SIZE, i + round)) bad++;
      ctx->alloc.realloc(user, blocks[i], SIZE, 0);
    }
    CHECK(psgi_pool_get_stats(user, &st));
    CHECK_EQ_INT(st.in_use, base.in_use);
    CHECK(st.kept_bytes > (30u << 20)); /* far above the 8 MiB floor */
    CHECK(st.mapped <= filled.mapped);
  }
  psgi_pool_hold_end(user);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK(st.kept_bytes <= (8u << 20));
  CHECK_EQ_INT(bad, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* While held, a big block that no free chunk can hold is mapped fresh, but
 * the pool first unmaps as much of its free chunks: it never maps more than
 * its most since the hold began, for memory in use as much as before. */
static void test_hold_bounds_mapping(void) {
  psgi_pool_stats base, st, filled = {0};
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  enum { N = 40000, SIZE = 1000 };
  static unsigned char *blocks[N];
  psgi_pool_hold_begin(user);
  for (unsigned i = 0; i < N; i++) CHECK((blocks[i] = ctx->alloc.realloc(user, NULL, 0, SIZE)) != NULL);
  CHECK(psgi_pool_get_stats(user, &filled));
  for (unsigned i = 0; i < N; i++) ctx->alloc.realloc(user, blocks[i], SIZE, 0);
  size_t big_n = 24u << 20;
  unsigned char *big = ctx->alloc.realloc(user, NULL, 0, big_n);
  CHECK(big != NULL);
  if (big) fill(big, big_n, 9);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK(st.fresh >= filled.fresh + big_n);
  CHECK(st.mapped + st.big <= filled.mapped + filled.big);
  if (big) CHECK(holds(big, big_n, 9));
  ctx->alloc.realloc(user, big, big_n, 0);
  psgi_pool_hold_end(user);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.in_use, base.in_use);
  CHECK_EQ_INT(st.big, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* A smaller big block is cut from the head of a larger freed one (the rest
 * stays free for the next), and a chunk for small blocks too: nothing is
 * mapped fresh. */
static void test_big_block_cut(void) {
  psgi_pool_stats base, st, freed;
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  psgi_pool_hold_begin(user);
  char *b = donate_big(ctx, 16u << 20, true);
  CHECK(psgi_pool_get_stats(user, &freed));
  size_t n = (6u << 20) - 100;
  unsigned char *a = ctx->alloc.realloc(user, NULL, 0, n);
  CHECK((char *)a == b);
  if (a) fill(a, n, 4);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.fresh, freed.fresh);
  CHECK_EQ_INT(st.donated_bytes, freed.donated_bytes - (6u << 20));
  /* Small blocks past the kept chunks: carved from a piece of the rest. */
  enum { N = 30000, SIZE = 1000 };
  static unsigned char *blocks[N];
  int in_b = 0, bad = 0;
  for (unsigned i = 0; i < N; i++) {
    if (!(blocks[i] = ctx->alloc.realloc(user, NULL, 0, SIZE))) bad++;
    else fill(blocks[i], SIZE, i);
    in_b += (char *)blocks[i] >= b + (6u << 20) && (char *)blocks[i] < b + (16u << 20);
  }
  CHECK(in_b > 0);
  for (unsigned i = 0; i < N; i++) {
    if (blocks[i] && !holds(blocks[i], SIZE, i)) bad++;
    ctx->alloc.realloc(user, blocks[i], SIZE, 0);
  }
  if (a) CHECK(holds(a, n, 4));
  ctx->alloc.realloc(user, a, n, 0);
  psgi_pool_hold_end(user);
  CHECK_EQ_INT(bad, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.in_use, base.in_use);
  CHECK_CTX_CLEAN(ctx);
}

/* A big block grown keeps its bytes, and only the growth is mapped fresh
 * (its pages are moved, not copied into a fresh block), also when its
 * length is not a whole number of huge pages. */
static void test_big_block_grown(void) {
  psgi_pool_stats base, st, before;
  psg_ctx *ctx = pool_ctx(&base);
  if (!ctx) return;
  void *user = ctx->alloc.user;
  size_t n = (4u << 20) + 16;
  unsigned char *a = ctx->alloc.realloc(user, NULL, 0, n);
  CHECK(a != NULL);
  if (!a) return;
  fill(a, n, 7);
  for (int i = 0; i < 3 && a; i++) {
    CHECK(psgi_pool_get_stats(user, &before));
    unsigned char *g = ctx->alloc.realloc(user, a, n, 2 * n);
    CHECK(g != NULL);
    if (!g) break;
    CHECK(psgi_pool_get_stats(user, &st));
    CHECK(st.fresh - before.fresh <= n + (2u << 20));
    CHECK(holds(g, n, 7));
    a = g;
    n *= 2;
    fill(a, n, 7);
  }
  if (a) CHECK(holds(a, n, 7));
  ctx->alloc.realloc(user, a, n, 0);
  CHECK(psgi_pool_get_stats(user, &st));
  CHECK_EQ_INT(st.in_use, base.in_use);
  CHECK_EQ_INT(st.big, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* Threads sharing one context allocate, write, check and free at once. */
typedef struct worker {
  psg_ctx *ctx;
  unsigned seed;
  int bad;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  enum { LIVE = 16 };
  void *live[LIVE] = {0};
  size_t n[LIVE] = {0};
  uint64_t s = w->seed * 2654435761u + 1;
  for (int round = 0; round < 3000; round++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    unsigned k = (unsigned)(s % LIVE);
    if (live[k]) {
      if (!holds(live[k], n[k], w->seed + k)) w->bad++;
      psgi_free(w->ctx, live[k]);
    }
    n[k] = 1 + (size_t)((s >> 8) % (300u << 10));
    live[k] = psgi_alloc(w->ctx, n[k]);
    if (!live[k]) {
      w->bad++;
      continue;
    }
    fill(live[k], n[k], w->seed + k);
  }
  for (unsigned k = 0; k < LIVE; k++) {
    if (live[k] && !holds(live[k], n[k], w->seed + k)) w->bad++;
    psgi_free(w->ctx, live[k]);
  }
  return NULL;
}

static void test_threads(void) {
  psg_ctx *ctx = check_ctx();
  enum { T = 4, EARLY = 64 };
  pthread_t th[T];
  worker w[T];
  /* Blocks taken while the process may still have one thread (the pool then
   * skips its lock) are freed once it has several. */
  unsigned char *early[EARLY];
  for (unsigned i = 0; i < EARLY; i++)
    if ((early[i] = psgi_alloc(ctx, 100 + 1000 * i))) fill(early[i], 100 + 1000 * i, i);
  for (unsigned i = 0; i < T; i++) {
    w[i] = (worker){ctx, i + 1, 0};
    CHECK_EQ_INT(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  int bad = 0;
  for (unsigned i = 0; i < EARLY; i++) {
    if (!early[i] || !holds(early[i], 100 + 1000 * i, i)) bad++;
    psgi_free(ctx, early[i]);
  }
  for (unsigned i = 0; i < T; i++) {
    pthread_join(th[i], NULL);
    bad += w[i].bad;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_CTX_CLEAN(ctx);
}

/* A user's hook is used as given: no pool behind it. */
static void test_user_hook_untouched(void) {
  check_alloc a = {0, 0};
  psg_ctx *ctx = check_ctx_with(&a);
  CHECK(ctx != NULL);
  if (!ctx) return;
  CHECK(ctx->alloc.realloc == check_alloc_realloc && ctx->alloc.user == &a);
  long before = a.calls;
  void *p = psgi_alloc(ctx, 100000);
  CHECK(p != NULL);
  CHECK_EQ_INT(a.calls, before + 1);
  psgi_free(ctx, p);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_blocks_keep_their_bytes);
  RUN_TEST(test_reuse);
  RUN_TEST(test_big_blocks_donated);
  RUN_TEST(test_blocks_across_regions);
  RUN_TEST(test_big_block_reused);
  RUN_TEST(test_empty_chunks_kept);
  RUN_TEST(test_reuse_limits_follow_use);
  RUN_TEST(test_hold_keeps_freed_chunks);
  RUN_TEST(test_hold_bounds_mapping);
  RUN_TEST(test_big_block_cut);
  RUN_TEST(test_big_block_grown);
  RUN_TEST(test_threads);
  RUN_TEST(test_user_hook_untouched);
  return check_finish();
}
