/* Passage — the default allocator (support/default_alloc.h, docs/design.md
 * departure 14). On the virtual machines we measure on, the first touch of a
 * 4 KiB page costs ~11 us, while memory in transparent huge pages faulted in
 * with one MADV_POPULATE_WRITE costs about a tenth of that per byte. Faulting
 * in folded weights (4 KiB to 1 MiB each, one per convolution) and the heap
 * malloc grows under every pass page by page was most of -O3's time.
 *
 *   up to 1 MiB          the context's pool: blocks rounded up to one of 59
 *                        size classes (16-byte steps to 128 bytes, then four
 *                        per octave: at most 25% slack), carved from chunks
 *                        of 2-4 MiB mapped in huge pages and populated at
 *                        once, small blocks (up to 4 KiB) and the others from
 *                        different chunks; a freed block goes to its class's
 *                        free list and is reused. A chunk whose blocks are
 *                        all free is unmapped, but for the chunks being
 *                        carved and one spare, so the pool holds what is live
 *                        in its chunks plus at most two chunks.
 *   above 1 MiB          its own mapping, huge pages over its 2 MiB-aligned
 *                        part, faulted in a huge page at a time as it is
 *                        written; a grown one keeps its pages (mremap)
 *
 * Freed memory goes back to the kernel beyond bounds that follow what is in
 * use, but not while a pass run or a parse holds the pool (departure 253):
 * then every freed chunk and big block stays for the next pass, which cuts
 * its big blocks and chunks from them before mapping fresh memory.
 *
 * The pool has its own lock (contexts are shared between threads): a futex
 * word taken with one atomic exchange and released with another, inline, as
 * most allocations and frees are a few dozen instructions under it; not
 * taken while the process has a single thread (atomics cost ~10 ns each on
 * our VMs, and there are tens of thousands of blocks in a pipeline run). A free
 * finds its block's chunk by the block's 2 MiB region (every chunk is
 * 2 MiB-aligned, so no two chunks share a region) in a small hash table; a
 * free block records its chunk, so taking one off a free list needs no
 * lookup. In front of the pool, psgi_alloc and psgi_free keep short lists of
 * freed small blocks of their own while the process has one thread (the
 * front, pool_front.h, departure 229): for the pool those blocks are handed
 * out, as a thread cache's are. Not under the sanitizers, which must see
 * every block: there, where mmap is missing, and if the pool cannot be made,
 * everything is malloc. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "support/default_alloc.h"
#include "support/pool_front.h"
#include "support/support.h"

/* Classes of blocks up to 4096 bytes by (n + 15) / 16: 32 to 128 in 16-byte
 * steps, then four per octave (the class sizes below; test_default_alloc
 * checks this table against them). */
const uint8_t psgi_front_class[PSGI_FRONT_MAX / 16 + 1] = {
    0,  0,  0,  1,  2,  3,  4,  5,  6,  7,  7,  8,  8,  9,  9,  10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13,
    13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17,
    17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 18, 18, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19, 19,
    19, 19, 19, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 21, 21, 21, 21, 21, 21, 21,
    21, 21, 21, 21, 21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
    23, 23, 23, 23, 23, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
    24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25,
    25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26};

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(PASSAGE_NO_MMAP_ALLOC)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PSG_PLAIN_MALLOC 1
#endif
#endif
#else
#define PSG_PLAIN_MALLOC 1
#endif
const uint16_t psgi_front_limit[PSGI_FRONT_CLASSES] = {256, 256, 256, 256, 256, 256, 256, 204, 170,
                                                       146, 128, 102, 85,  73,  64,  51,  42,  36,
                                                       32,  25,  21,  18,  16,  12,  10,  9,   8};

#ifndef PSG_PLAIN_MALLOC
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
/* mremap's flags (<sys/mman.h> declares them under _GNU_SOURCE only). */
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif

enum {
  SMALL_PAGE = 4096,
  HUGE_PAGE = 2 << 20,
  POOL_MIN = 32,         /* the smallest class: a free block's links fit */
  NSTEP = 7,             /* 32, 48, .., 128: 16-byte steps */
  OCTAVE_SHIFT = 7,      /* then four classes per octave above 128 */
  POOL_MAX_SHIFT = 20,
  POOL_MAX = 1 << POOL_MAX_SHIFT,
  NCLASS = NSTEP + 4 * (POOL_MAX_SHIFT - OCTAVE_SHIFT),
  SMALL_BLOCK = 4096,    /* classes up to here are carved from their own chunks */
  SMALL_CHUNK = 2 << 20,
  CHUNK = 4 << 20
};

/* Mapping ------------------------------------------------------------------- */

/* len bytes (a multiple of the small page) mapped, not yet populated; huge
 * pages over the 2 MiB-aligned part when len has one. */
static char *map_aligned(size_t len) {
  size_t extra = len >= HUGE_PAGE ? HUGE_PAGE : 0;
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
  return a;
}

/* map_aligned, populated at once. */
static char *map_populated(size_t len) {
  char *a = map_aligned(len);
  if (a) (void)madvise(a, len, MADV_POPULATE_WRITE); /* best effort: older kernels fault lazily */
  return a;
}

/* The mapped length of a big block of n bytes: whole small pages, and a
 * trailing part of at least half a huge page rounded up to a whole one (so
 * the blocks, all above 1 MiB, are in huge pages, with less than half of the
 * mapping as slack, less than a third above 2 MiB). */
static size_t big_length(size_t n) {
  size_t len = (n + SMALL_PAGE - 1) & ~(size_t)(SMALL_PAGE - 1);
  size_t tail = len % HUGE_PAGE;
  if (tail >= HUGE_PAGE / 2) len += HUGE_PAGE - tail;
  return len;
}

/* The lock ------------------------------------------------------------------- */

/* 0 free, 1 held, 2 held and maybe waited for (Drepper, "Futexes Are
 * Tricky", mutex 3): uncontended, one exchange to take and one to release.
 * While the process has a single thread no other can touch the pool, and the
 * lock is not taken at all (support.h, psgi_single_threaded). */
static void lock_slow(int *word) {
  while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0)
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

/* Whether the lock was taken, for pool_unlock (the process may have become
 * single-threaded in between, when its last other thread ended). */
static inline bool pool_lock(int *word) {
  if (psgi_single_threaded()) return false;
  int expected = 0;
  if (!__atomic_compare_exchange_n(word, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    lock_slow(word);
  return true;
}

static inline void pool_unlock(int *word, bool locked) {
  if (locked && __atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2)
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The pool ------------------------------------------------------------------- */

struct chunk;

/* A free block starts with its links and its chunk; blocks are at least 32
 * bytes. */
typedef struct free_block {
  struct free_block *next, *prev;
  struct chunk *owner;
  unsigned cls;
} free_block;

typedef struct chunk {
  char *base;
  size_t size, bump, live; /* carved bytes; blocks handed out */
  size_t index;            /* in pool->chunks */
  struct chunk *next_donated; /* on the donated list, or the kept one */
} chunk;

/* The chunk over each 2 MiB region a chunk covers (key: the region's number
 * plus one; 0 is an empty slot), open addressing, linear probing. */
typedef struct region_slot {
  uintptr_t key;
  chunk *ch;
} region_slot;

struct psgi_pool {
  /* First: pool_front.h reads it through the pool's address. */
  psgi_pool_front front;
  int lock;
  free_block *free[NCLASS];
  chunk **chunks; /* in no order */
  size_t nchunks, cap;
  region_slot *regions;
  size_t nregions, region_cap; /* a power of two, at most half full */
  /* The region a free last found, and its chunk (most frees fall in the
   * region of the one before); key 0: none. */
  uintptr_t last_key;
  chunk *last_ch;
  /* The chunks blocks are carved from: [0] for small blocks, [1] for the
   * others (long-lived small objects do not pin the chunks of weights), [2]
   * a donated chunk, which the others take first (see carve). */
  chunk *cur[3];
  /* Empty chunks kept for reuse (linked by next_donated, the last emptied
   * first), at most keep_limit bytes: see chunk_emptied. */
  chunk *kept;
  size_t kept_bytes;
  /* Freed big blocks kept as chunks for weights (they are in huge pages and
   * already touched: on our VMs the first write to fresh memory, populated
   * or not, is what folding weights cost), at most DONATED_MAX bytes. */
  chunk *donated;
  size_t donated_bytes;
  size_t in_use;
  /* What the pool has mapped: its chunks' bytes (kept and donated ones
   * included) and its live big blocks'; the bytes it has mapped fresh
   * over its life (the stats' `fresh`). */
  size_t chunk_bytes, big_live, fresh;
  /* Holds open (psgi_pool_hold_begin), and the most the pool has mapped
   * since the first of them began: while held, emptied chunks and freed
   * big blocks stay mapped, and a fresh mapping first gives back what the
   * pool holds free beyond that mark (hold_room). */
  unsigned holds;
  size_t hold_peak;
};
_Static_assert(offsetof(psgi_pool, front) == 0, "pool_front.h reads the front at the pool's address");

/* At most the larger of DONATED_MAX and half of what is in use: a pass's
 * memo tables on 1e6 calls are big blocks of 16-32 MiB, and the next pass's
 * tables, of the same sizes, take them back (take_span). */
enum { DONATED_MAX = 32 << 20 };

static size_t donated_limit(const psgi_pool *pool) {
  return pool->in_use / 2 > DONATED_MAX ? pool->in_use / 2 : DONATED_MAX;
}

/* Classes 32 to 128 bytes in 16-byte steps; then four per octave,
 * (5..8) << (k - 2) for the octave (2^k, 2^(k+1)], k = 7..19; the last class
 * is 1 MiB. Every class is a multiple of 16 (the alignment promised). A
 * table: every allocation and free reads it. */
#define OCTAVE(k) (size_t)5 << ((k)-2), (size_t)6 << ((k)-2), (size_t)7 << ((k)-2), (size_t)8 << ((k)-2)
static const size_t class_sizes[] = {32,        48,        64,        80,        96,        112,       128,
                                     OCTAVE(7), OCTAVE(8), OCTAVE(9), OCTAVE(10), OCTAVE(11), OCTAVE(12),
                                     OCTAVE(13), OCTAVE(14), OCTAVE(15), OCTAVE(16), OCTAVE(17), OCTAVE(18),
                                     OCTAVE(19)};
#undef OCTAVE
_Static_assert(sizeof class_sizes / sizeof *class_sizes == NCLASS, "one size per class");
_Static_assert(POOL_MIN == 32 && NSTEP == 7 && OCTAVE_SHIFT == 7 && POOL_MAX_SHIFT == 20, "class_sizes is written for these");

static size_t class_size(unsigned c) { return class_sizes[c]; }

_Static_assert(PSGI_FRONT_CLASSES == NSTEP + 4 * (12 - OCTAVE_SHIFT) && PSGI_FRONT_MAX == 1 << 12,
               "the front's classes are those up to PSGI_FRONT_MAX");

/* The smallest class holding n bytes, n <= POOL_MAX. */
static unsigned class_of(size_t n) {
  if (n <= PSGI_FRONT_MAX) return psgi_front_class[(n + 15) >> 4];
  size_t m = n - 1;
  unsigned k = 63 - (unsigned)__builtin_clzll((unsigned long long)m); /* 7..19 */
  unsigned q = (unsigned)(m >> (k - 2)) & 3;
  return NSTEP + (k - OCTAVE_SHIFT) * 4 + q;
}

/* The largest class not above n, POOL_MIN <= n < POOL_MAX. */
static unsigned class_within(size_t n) {
  unsigned c = class_of(n);
  return class_size(c) > n ? c - 1 : c;
}

static void push_free(psgi_pool *pool, char *p, unsigned c, chunk *owner) {
  free_block *b = (free_block *)(void *)p;
  b->cls = c;
  b->owner = owner;
  b->prev = NULL;
  b->next = pool->free[c];
  if (b->next) b->next->prev = b;
  pool->free[c] = b;
}

static void unlink_free(psgi_pool *pool, free_block *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    pool->free[b->cls] = b->next;
  if (b->next) b->next->prev = b->prev;
}

static size_t region_home(const psgi_pool *pool, uintptr_t key) {
  return (size_t)((key * 0x9e3779b97f4a7c15u) >> 32) & (pool->region_cap - 1);
}

/* The chunk holding p (pooled blocks always lie in one). */
static chunk *chunk_of(const psgi_pool *pool, const char *p) {
  uintptr_t key = ((uintptr_t)p >> 21) + 1;
  if (!pool->region_cap) return NULL;
  for (size_t i = region_home(pool, key);; i = (i + 1) & (pool->region_cap - 1)) {
    const region_slot *s = &pool->regions[i];
    if (s->key == key) return s->ch;
    if (!s->key) return NULL;
  }
}

static void region_put(psgi_pool *pool, uintptr_t key, chunk *ch) {
  size_t i = region_home(pool, key);
  while (pool->regions[i].key) i = (i + 1) & (pool->region_cap - 1);
  pool->regions[i].key = key;
  pool->regions[i].ch = ch;
  pool->nregions++;
}

/* The chunk holding p, through the last free's region first. */
static chunk *chunk_of_cached(psgi_pool *pool, const char *p) {
  uintptr_t key = ((uintptr_t)p >> 21) + 1;
  if (key == pool->last_key) return pool->last_ch;
  chunk *ch = chunk_of(pool, p);
  if (ch) {
    pool->last_key = key;
    pool->last_ch = ch;
  }
  return ch;
}

/* Removes key (present), shifting later slots of its run back. */
static void region_remove(psgi_pool *pool, uintptr_t key) {
  if (pool->last_key == key) pool->last_key = 0;
  size_t mask = pool->region_cap - 1, i = region_home(pool, key);
  while (pool->regions[i].key != key) i = (i + 1) & mask;
  for (size_t j = (i + 1) & mask; pool->regions[j].key; j = (j + 1) & mask) {
    size_t home = region_home(pool, pool->regions[j].key);
    /* j's entry may move to the hole at i when its home is not in (i, j]. */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      pool->regions[i] = pool->regions[j];
      i = j;
    }
  }
  pool->regions[i].key = 0;
  pool->regions[i].ch = NULL;
  pool->nregions--;
}

/* Room for n more regions; false when the table cannot grow. */
static bool regions_reserve(psgi_pool *pool, size_t n) {
  if (2 * (pool->nregions + n) <= pool->region_cap) return true;
  size_t ncap = pool->region_cap ? pool->region_cap : 64;
  while (2 * (pool->nregions + n) > ncap) ncap *= 2;
  region_slot *old = pool->regions, *nr = calloc(ncap, sizeof *nr);
  if (!nr) return false;
  size_t oldcap = pool->region_cap;
  pool->regions = nr;
  pool->region_cap = ncap;
  pool->nregions = 0;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].key) region_put(pool, old[i].key, old[i].ch);
  free(old);
  return true;
}

static uintptr_t first_region(const chunk *ch) { return ((uintptr_t)ch->base >> 21) + 1; }
static uintptr_t end_region(const chunk *ch) { return (((uintptr_t)ch->base + ch->size - 1) >> 21) + 2; }

/* A chunk over [base, base + size) (2 MiB-aligned: no two chunks share a
 * region), entered in the tables; NULL when they or the record cannot grow. */
static chunk *add_chunk(psgi_pool *pool, char *base, size_t size) {
  if ((uintptr_t)base & (HUGE_PAGE - 1)) return NULL; /* map_populated aligns every chunk */
  if (pool->nchunks == pool->cap) {
    size_t ncap = pool->cap ? 2 * pool->cap : 8;
    chunk **nc = realloc(pool->chunks, ncap * sizeof *nc);
    if (!nc) return NULL;
    pool->chunks = nc;
    pool->cap = ncap;
  }
  chunk *ch = malloc(sizeof *ch);
  if (!ch) return NULL;
  ch->base = base;
  ch->size = size;
  ch->bump = ch->live = 0;
  ch->next_donated = NULL;
  if (!regions_reserve(pool, (size_t)(end_region(ch) - first_region(ch)))) {
    free(ch);
    return NULL;
  }
  for (uintptr_t k = first_region(ch); k < end_region(ch); k++) region_put(pool, k, ch);
  ch->index = pool->nchunks;
  pool->chunks[pool->nchunks++] = ch;
  pool->chunk_bytes += size;
  return ch;
}

/* Bytes the pool has mapped (chunks, free ones included, and live big blocks). */
static size_t mapped_bytes(const psgi_pool *pool) { return pool->chunk_bytes + pool->big_live; }

/* After the pool mapped more: the hold's mark follows it up. */
static void note_mapped(psgi_pool *pool) {
  if (pool->holds && mapped_bytes(pool) > pool->hold_peak) pool->hold_peak = mapped_bytes(pool);
}

static chunk *new_chunk(psgi_pool *pool, size_t size) {
  char *base = map_populated(size);
  if (!base) return NULL;
  chunk *ch = add_chunk(pool, base, size);
  if (!ch) {
    munmap(base, size);
    return NULL;
  }
  pool->fresh += size;
  note_mapped(pool);
  return ch;
}

/* ch no longer a chunk of the pool (its record freed; its memory not). */
static void forget_chunk(psgi_pool *pool, chunk *ch) {
  for (uintptr_t k = first_region(ch); k < end_region(ch); k++) region_remove(pool, k);
  pool->chunk_bytes -= ch->size;
  chunk *last = pool->chunks[--pool->nchunks];
  pool->chunks[ch->index] = last;
  last->index = ch->index;
  free(ch);
}

static void drop_chunk(psgi_pool *pool, chunk *ch) {
  char *base = ch->base;
  size_t size = ch->size;
  forget_chunk(pool, ch);
  munmap(base, size);
}

/* A freed big block's mapping becomes a chunk for later weights and big
 * blocks instead of being unmapped, while the pool keeps less than
 * donated_limit of them, or while it is held. Under the lock; false when it
 * is not taken (then unmap it). */
static bool donate(psgi_pool *pool, char *base, size_t size) {
  if (!pool->holds && pool->donated_bytes + size > donated_limit(pool)) return false;
  chunk *ch = add_chunk(pool, base, size);
  if (!ch) return false;
  ch->next_donated = pool->donated;
  pool->donated = ch;
  pool->donated_bytes += size;
  return true;
}

/* A mapping of len bytes for a big block or a chunk, cut from the smallest
 * free chunk (kept or donated) that holds it: the memory is touched
 * already. The head of that chunk leaves the pool; the rest up to the next
 * 2 MiB boundary is unmapped (chunks start on one), and the part beyond
 * stays on its list. The memo tables of consecutive passes on one graph
 * grow through the same sizes, so an exact fit is common. NULL when no free
 * chunk is that large. Under the lock. */
static char *take_span(psgi_pool *pool, size_t len) {
  chunk **lists[2] = {&pool->kept, &pool->donated};
  size_t *totals[2] = {&pool->kept_bytes, &pool->donated_bytes};
  chunk **best = NULL;
  size_t *best_total = NULL;
  for (int l = 0; l < 2; l++)
    for (chunk **link = lists[l]; *link; link = &(*link)->next_donated)
      if ((*link)->size >= len && (!best || (*link)->size < (*best)->size)) {
        best = link;
        best_total = totals[l];
      }
  if (!best) return NULL;
  chunk *ch = *best;
  char *base = ch->base;
  size_t cut = (len + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
  if (cut >= ch->size) {
    size_t size = ch->size;
    *best = ch->next_donated;
    *best_total -= size;
    forget_chunk(pool, ch);
    if (size > len) munmap(base + len, size - len);
    return base;
  }
  /* The head's regions leave the table, and its bytes the chunk. */
  for (uintptr_t k = first_region(ch); k < ((uintptr_t)(base + cut) >> 21) + 1; k++) region_remove(pool, k);
  ch->base += cut;
  ch->size -= cut;
  pool->chunk_bytes -= cut;
  *best_total -= cut;
  if (cut > len) munmap(base + len, cut - len);
  return base;
}

/* How many bytes of empty chunks the pool keeps mapped. Unmapping a chunk
 * and mapping a fresh one later costs the kernel's zeroing of its pages
 * (and the compaction to find huge ones): at 1e5 calls and more, that was
 * 40% of -O0's time, as every pass frees its scratch memory and its input's
 * replaced nodes and the next allocates as much again. So emptied chunks are
 * kept, up to half of what is in use (the pool never maps more than its
 * high-water mark for that) and at least KEEP_MIN, and given back when the
 * work shrinks (a module released). While the pool is held (a pass run,
 * a parse: psgi_pool_hold_begin) nothing is given back: see hold_room. */
enum { KEEP_MIN = 8 << 20 };

static size_t keep_limit(const psgi_pool *pool) {
  return pool->in_use / 2 > KEEP_MIN ? pool->in_use / 2 : KEEP_MIN;
}

/* Unmaps the chunks of a list (kept or donated) past its first `limit`
 * bytes, the oldest; *bytes is the list's total. */
static void trim_list(psgi_pool *pool, chunk **list, size_t *bytes, size_t limit) {
  chunk **link = list;
  size_t sum = 0;
  while (*link && sum + (*link)->size <= limit) {
    sum += (*link)->size;
    link = &(*link)->next_donated;
  }
  while (*link) {
    chunk *ch = *link;
    *link = ch->next_donated;
    *bytes -= ch->size;
    drop_chunk(pool, ch);
  }
}

/* Both lists back within their limits (they fall with what is in use);
 * not while the pool is held. */
static void trim_kept(psgi_pool *pool) {
  if (pool->holds) return;
  trim_list(pool, &pool->kept, &pool->kept_bytes, keep_limit(pool));
  trim_list(pool, &pool->donated, &pool->donated_bytes, donated_limit(pool));
}

/* Before len bytes are mapped fresh while the pool is held: the free lists
 * give back, oldest first, what would take the pool's mapping past the
 * most it has mapped during the hold (free memory it holds in a shape the
 * request cannot use, such as chunks when a big block is asked for). So a
 * hold keeps every freed byte for reuse without raising the peak. Under
 * the lock. */
static void hold_room(psgi_pool *pool, size_t len) {
  if (!pool->holds) return;
  size_t after = mapped_bytes(pool) + len;
  if (after <= pool->hold_peak) return;
  size_t over = after - pool->hold_peak;
  trim_list(pool, &pool->kept, &pool->kept_bytes, pool->kept_bytes > over ? pool->kept_bytes - over : 0);
  after = mapped_bytes(pool) + len;
  if (after <= pool->hold_peak) return;
  over = after - pool->hold_peak;
  trim_list(pool, &pool->donated, &pool->donated_bytes,
            pool->donated_bytes > over ? pool->donated_bytes - over : 0);
}

/* Every block of ch is free: take them off the free lists and start the
 * chunk over. */
__attribute__((noinline)) static void chunk_emptied(psgi_pool *pool, chunk *ch) {
  for (size_t off = 0; off < ch->bump;) {
    free_block *b = (free_block *)(void *)(ch->base + off);
    off += class_size(b->cls);
    unlink_free(pool, b);
  }
  ch->bump = 0;
  /* Empty chunks that stay mapped: the current ones, and the kept ones. */
  if (ch == pool->cur[2]) {
    /* A donated chunk emptied: donated again (while there is room). */
    pool->cur[2] = NULL;
    if (pool->holds || pool->donated_bytes + ch->size <= donated_limit(pool)) {
      ch->next_donated = pool->donated;
      pool->donated = ch;
      pool->donated_bytes += ch->size;
    } else {
      drop_chunk(pool, ch);
    }
    return;
  }
  if (ch != pool->cur[0] && ch != pool->cur[1]) {
    ch->next_donated = pool->kept;
    pool->kept = ch;
    pool->kept_bytes += ch->size;
  }
  trim_kept(pool);
}

/* The rest of a chunk no longer carved goes to the free lists, largest
 * classes first. */
static void retire_tail(psgi_pool *pool, chunk *ch) {
  while (ch->size - ch->bump >= POOL_MIN) {
    unsigned t = class_within(ch->size - ch->bump);
    push_free(pool, ch->base + ch->bump, t, ch);
    ch->bump += class_size(t);
  }
}

static char *carve_from(chunk *ch, size_t size) {
  char *p = ch->base + ch->bump;
  ch->bump += size;
  ch->live++;
  return p;
}

/* A block of class c carved from the current chunk, or from a fresh one.
 * Blocks above SMALL_BLOCK come from donated chunks while there are any
 * (memory already touched), whatever the weights chunk has left: the
 * context's own record is such a block and would otherwise keep the first
 * weights chunk, fresh memory, the one weights land in. Out of line, as
 * chunk_emptied: pool_alloc and pool_free stay small. */
__attribute__((noinline)) static char *carve(psgi_pool *pool, unsigned c) {
  size_t size = class_size(c);
  int arena = size > SMALL_BLOCK;
  if (arena) {
    chunk *d = pool->cur[2];
    if ((!d || d->size - d->bump < size) && pool->donated) {
      if (d) retire_tail(pool, d);
      d = pool->donated;
      pool->donated = d->next_donated;
      pool->donated_bytes -= d->size;
      pool->cur[2] = d;
    }
    if (d && d->size - d->bump >= size) return carve_from(d, size);
  }
  chunk *ch = pool->cur[arena];
  if (!ch || ch->size - ch->bump < size) {
    chunk *next = pool->kept;
    /* The first chunk for weights is small: a context that pools little
     * maps little. */
    if (next) {
      pool->kept = next->next_donated;
      pool->kept_bytes -= next->size;
      next->next_donated = NULL;
    } else {
      /* No kept chunk: a piece of a donated one (touched memory), or a
       * fresh one. */
      size_t len = !arena || !pool->cur[1] ? SMALL_CHUNK : CHUNK;
      char *base = take_span(pool, len);
      if (base) {
        if (!(next = add_chunk(pool, base, len))) {
          munmap(base, len);
          return NULL;
        }
      } else {
        hold_room(pool, len);
        if (!(next = new_chunk(pool, len))) return NULL;
      }
    }
    if (ch) retire_tail(pool, ch);
    pool->cur[arena] = ch = next;
  }
  return carve_from(ch, size);
}

/* A block of class c back to the pool, under its lock. */
static void free_locked(psgi_pool *pool, void *ptr, unsigned c) {
  chunk *ch = chunk_of_cached(pool, ptr);
  push_free(pool, ptr, c, ch);
  pool->in_use -= class_size(c);
  if (ch && --ch->live == 0) chunk_emptied(pool, ch);
}

/* The front (pool_front.h) ------------------------------------------------------- */

/* Called with class c's list at its limit, while the front is usable
 * (so no other thread touches the pool): the newest half stays (the blocks
 * most likely in the cache and the next to be asked for), the older ones
 * go back to the free lists, which may empty their chunks. */
void psgi_pool_front_drain(psgi_pool *pool, unsigned c) {
  psgi_pool_front *f = &pool->front;
  unsigned half = psgi_front_limit[c] / 2u;
  psgi_front_block *keep = f->head[c];
  for (unsigned i = 1; i < half; i++) keep = keep->next;
  psgi_front_block *b = keep->next;
  keep->next = NULL;
  f->room[c] = psgi_front_limit[c] - half;
  while (b) {
    psgi_front_block *next = b->next;
    free_locked(pool, b, c);
    b = next;
  }
}

/* Every front block back to the free lists (the pool's stats count them
 * free); only while the front is usable. */
static void front_flush(psgi_pool *pool) {
  psgi_pool_front *f = &pool->front;
  for (unsigned c = 0; c < PSGI_FRONT_CLASSES; c++) {
    while (f->head[c]) {
      psgi_front_block *b = f->head[c];
      f->head[c] = b->next;
      free_locked(pool, b, c);
    }
    f->room[c] = psgi_front_limit[c];
  }
}

/* Per-thread caches --------------------------------------------------------------
 *
 * With two threads running passes, every pass allocates and frees tens of
 * thousands of small blocks; through the shared free lists each call took
 * the pool's lock, and the lock and the lists' heads bounced between the
 * cores (half of the threads' time, departure 157). A thread cache holds
 * free blocks of the small classes on singly linked lists of its own. For
 * the pool, a cached block is handed out (counted in in_use and in its
 * chunk's live blocks), so nothing of the pool changes meaning; a chunk
 * with a block in some cache is not emptied. Caching is scoped (a parallel
 * loop's participation, src/pass/parallel.c): the cache is given back
 * whole when it ends, so it never outlives its context, and no thread exit
 * or context teardown has to find other threads' caches. */

enum {
  CACHE_BLOCK = 128 << 10, /* classes up to here are cached (arenas' blocks are 64 KiB) */
  CACHE_BYTES = 32 << 10,  /* a class's list holds about this much at most, */
  CACHE_MIN = 2,           /* but at least this many blocks */
  CACHE_MAX = 256          /* and at most this many */
};

typedef struct thread_cache {
  psgi_pool *pool; /* the pool cached, or NULL */
  free_block *free[NCLASS];
  unsigned count[NCLASS];
} thread_cache;

static _Thread_local thread_cache tcache;

static bool is_cached_class(unsigned c) { return class_size(c) <= CACHE_BLOCK; }

/* The most blocks of class c a cache holds; it takes and gives back half. */
static unsigned cache_limit(unsigned c) {
  size_t n = CACHE_BYTES / class_size(c);
  return n < CACHE_MIN ? CACHE_MIN : n > CACHE_MAX ? CACHE_MAX : (unsigned)n;
}

/* The thread's cache of pool, or NULL (a relaxed load while no thread caches). */
static inline thread_cache *cache_of(psgi_pool *pool) {
  if (!__atomic_load_n(&pool->front.caching, __ATOMIC_RELAXED)) return NULL;
  thread_cache *tc = &tcache;
  return tc->pool == pool ? tc : NULL;
}

/* Half a list's worth of class c moved from the pool into tc, under one
 * lock: free blocks first, then carved ones. False when none could be had. */
__attribute__((noinline)) static bool cache_refill(psgi_pool *pool, thread_cache *tc, unsigned c) {
  unsigned want = cache_limit(c) / 2, got = 0;
  bool locked = pool_lock(&pool->lock);
  while (got < want) {
    free_block *b = pool->free[c];
    if (b) {
      pool->free[c] = b->next;
      if (b->next) b->next->prev = NULL;
      b->owner->live++;
    } else if (!(b = (free_block *)(void *)carve(pool, c))) {
      break;
    }
    pool->in_use += class_size(c);
    b->next = tc->free[c];
    tc->free[c] = b;
    got++;
  }
  pool_unlock(&pool->lock, locked);
  tc->count[c] += got;
  return got > 0;
}

/* Gives blocks of class c back to the pool until tc keeps `keep`. */
__attribute__((noinline)) static void cache_drain(psgi_pool *pool, thread_cache *tc, unsigned c, unsigned keep) {
  bool locked = pool_lock(&pool->lock);
  while (tc->count[c] > keep) {
    free_block *b = tc->free[c];
    tc->free[c] = b->next;
    tc->count[c]--;
    free_locked(pool, b, c);
  }
  pool_unlock(&pool->lock, locked);
}

static void *cache_alloc(psgi_pool *pool, thread_cache *tc, unsigned c) {
  if (!tc->free[c] && !cache_refill(pool, tc, c)) return NULL;
  free_block *b = tc->free[c];
  tc->free[c] = b->next;
  tc->count[c]--;
  return b;
}

static void cache_free(psgi_pool *pool, thread_cache *tc, void *ptr, unsigned c) {
  free_block *b = ptr;
  b->next = tc->free[c];
  tc->free[c] = b;
  if (++tc->count[c] > cache_limit(c)) cache_drain(pool, tc, c, cache_limit(c) / 2);
}

void psgi_pool_cache_begin(psgi_pool *pool) {
  thread_cache *tc = &tcache;
  if (!pool || tc->pool) return;
  tc->pool = pool;
  __atomic_fetch_add(&pool->front.caching, 1, __ATOMIC_RELAXED);
}

void psgi_pool_cache_end(psgi_pool *pool) {
  thread_cache *tc = &tcache;
  if (!pool || tc->pool != pool) return;
  bool locked = pool_lock(&pool->lock);
  for (unsigned c = 0; c < NCLASS; c++) {
    while (tc->free[c]) {
      free_block *b = tc->free[c];
      tc->free[c] = b->next;
      free_locked(pool, b, c);
    }
    tc->count[c] = 0;
  }
  pool_unlock(&pool->lock, locked);
  tc->pool = NULL;
  __atomic_fetch_sub(&pool->front.caching, 1, __ATOMIC_RELAXED);
}

/* pool_alloc and pool_free while the process has one thread and no
 * thread caches the pool: no lock and no cache to look at. The fast paths
 * below take a free block or give one back, and call out for the rest
 * (carving, an emptied chunk, another thread), so that they save no
 * registers. */
static inline bool pool_alone(psgi_pool *pool) {
  return psgi_single_threaded() && !__atomic_load_n(&pool->front.caching, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void *pool_alloc_general(psgi_pool *pool, size_t n);
__attribute__((noinline)) static void pool_free_general(psgi_pool *pool, void *ptr, size_t n);

static inline void *pool_alloc(psgi_pool *pool, size_t n) {
  if (pool_alone(pool)) {
    unsigned c = class_of(n);
    free_block *b = pool->free[c];
    size_t size = class_size(c);
    if (b) {
      pool->free[c] = b->next;
      if (b->next) b->next->prev = NULL;
      b->owner->live++;
      pool->in_use += size;
      return b;
    }
    /* A small block carved from the current small chunk while it has room
     * (what carve does first for a small class). */
    chunk *ch = pool->cur[0];
    if (size <= SMALL_BLOCK && ch && ch->size - ch->bump >= size) {
      pool->in_use += size;
      return carve_from(ch, size);
    }
  }
  return pool_alloc_general(pool, n);
}

static inline void pool_free(psgi_pool *pool, void *ptr, size_t n) {
  if (pool_alone(pool)) free_locked(pool, ptr, class_of(n));
  else pool_free_general(pool, ptr, n);
}

static void *pool_alloc_general(psgi_pool *pool, size_t n) {
  unsigned c = class_of(n);
  thread_cache *tc = cache_of(pool);
  if (tc && is_cached_class(c)) return cache_alloc(pool, tc, c);
  size_t size = class_size(c);
  bool locked = pool_lock(&pool->lock);
  free_block *b = pool->free[c];
  char *p = (char *)b;
  if (b) {
    pool->free[c] = b->next;
    if (b->next) b->next->prev = NULL;
    b->owner->live++;
  } else {
    p = carve(pool, c);
  }
  if (p) pool->in_use += size;
  pool_unlock(&pool->lock, locked);
  return p;
}

static void pool_free_general(psgi_pool *pool, void *ptr, size_t n) {
  unsigned c = class_of(n);
  thread_cache *tc = cache_of(pool);
  if (tc && is_cached_class(c)) {
    cache_free(pool, tc, ptr, c);
    return;
  }
  bool locked = pool_lock(&pool->lock);
  free_locked(pool, ptr, c);
  pool_unlock(&pool->lock, locked);
}

psgi_pool *psgi_pool_create(void) {
  psgi_pool *pool = calloc(1, sizeof(psgi_pool));
  if (pool)
    for (unsigned c = 0; c < PSGI_FRONT_CLASSES; c++) pool->front.room[c] = psgi_front_limit[c];
  return pool;
}

void psgi_pool_destroy(psgi_pool *pool) {
  if (!pool) return;
  for (size_t i = 0; i < pool->nchunks; i++) {
    munmap(pool->chunks[i]->base, pool->chunks[i]->size);
    free(pool->chunks[i]);
  }
  free(pool->chunks);
  free(pool->regions);
  free(pool);
}

bool psgi_pool_get_stats(psgi_pool *pool, psgi_pool_stats *out) {
  memset(out, 0, sizeof *out);
  if (!pool) return false;
  if (psgi_pool_front_usable(&pool->front)) front_flush(pool);
  bool locked = pool_lock(&pool->lock);
  for (size_t i = 0; i < pool->nchunks; i++) out->mapped += pool->chunks[i]->size;
  out->chunks = pool->nchunks;
  out->in_use = pool->in_use;
  for (const chunk *ch = pool->donated; ch; ch = ch->next_donated) out->donated_chunks++;
  out->donated_bytes = pool->donated_bytes;
  for (const chunk *ch = pool->kept; ch; ch = ch->next_donated) out->kept_chunks++;
  out->kept_bytes = pool->kept_bytes;
  out->fresh = pool->fresh;
  out->big = pool->big_live;
  pool_unlock(&pool->lock, locked);
  return true;
}

void psgi_pool_hold_begin(psgi_pool *pool) {
  if (!pool) return;
  bool locked = pool_lock(&pool->lock);
  if (pool->holds++ == 0) pool->hold_peak = mapped_bytes(pool);
  pool_unlock(&pool->lock, locked);
}

void psgi_pool_hold_end(psgi_pool *pool) {
  if (!pool) return;
  bool locked = pool_lock(&pool->lock);
  if (pool->holds && --pool->holds == 0) trim_kept(pool);
  pool_unlock(&pool->lock, locked);
}

/* The hook --------------------------------------------------------------------- */

typedef enum { KIND_MALLOC, KIND_POOL, KIND_BIG } block_kind;

static block_kind kind_of(const psgi_pool *pool, size_t n) {
  if (n > POOL_MAX) return KIND_BIG;
  return pool ? KIND_POOL : KIND_MALLOC;
}

/* A big block's mapping: free memory of the pool first (take_span), else
 * fresh, mapped without the lock and not populated: a big block is a
 * vector or a table grown by doubling, whose tail may never be written,
 * and its first write to each huge page faults in the whole page at once
 * (MADV_HUGEPAGE), which costs what the populating would have. Populating
 * it made -O3's peak RSS at 1e6 calls 8% larger (bench_memory ... pool:
 * 454 against 490 MB) for the same system time. */
static char *big_alloc(psgi_pool *pool, size_t len) {
  if (!pool) return map_populated(len);
  bool locked = pool_lock(&pool->lock);
  char *p = take_span(pool, len);
  if (p)
    pool->big_live += len;
  else
    hold_room(pool, len);
  pool_unlock(&pool->lock, locked);
  if (p || !(p = map_aligned(len))) return p;
  locked = pool_lock(&pool->lock);
  pool->big_live += len;
  pool->fresh += len;
  note_mapped(pool);
  pool_unlock(&pool->lock, locked);
  return p;
}

/* A big block of old_len bytes grown to new_len: its whole huge pages
 * moved, not copied, to the head of a new mapping (mremap), the rest
 * fresh, left to fault in as big_alloc's (the old block's last partial
 * huge page copied: a
 * moved partial one would leave the new mapping's next huge page in small
 * pages). A vector or a map's entries doubling would otherwise copy the
 * old block and map the whole new one, leaving the old one free in a size
 * nothing else asks for. Free memory of the new length comes first (the
 * table the previous pass grew to that size): copying into touched pages
 * is cheaper than faulting in fresh ones, and the free memory would
 * otherwise stay unused. NULL when the kernel cannot (the block is then as
 * it was). */
static void big_free(psgi_pool *pool, char *p, size_t len);

static char *big_grow(psgi_pool *pool, char *p, size_t old_len, size_t new_len) {
  size_t moved = old_len & ~(size_t)(HUGE_PAGE - 1), more = new_len - old_len;
  if (pool) {
    bool locked = pool_lock(&pool->lock);
    char *span = take_span(pool, new_len);
    if (span)
      pool->big_live += new_len;
    else if (moved)
      hold_room(pool, more);
    pool_unlock(&pool->lock, locked);
    if (span) {
      memcpy(span, p, old_len);
      big_free(pool, p, old_len);
      return span;
    }
  }
  if (!moved) return NULL;
  char *q = map_aligned(new_len);
  if (!q) return NULL;
  if (syscall(SYS_mremap, p, moved, moved, MREMAP_MAYMOVE | MREMAP_FIXED, q) != (long)(uintptr_t)q) {
    munmap(q, new_len);
    return NULL;
  }
  if (old_len > moved) {
    memcpy(q + moved, p + moved, old_len - moved);
    munmap(p + moved, old_len - moved);
  }
  if (pool) {
    bool locked = pool_lock(&pool->lock);
    pool->big_live += more;
    pool->fresh += more;
    note_mapped(pool);
    pool_unlock(&pool->lock, locked);
  }
  return q;
}

static void big_free(psgi_pool *pool, char *p, size_t len) {
  bool kept = false;
  if (pool) {
    bool locked = pool_lock(&pool->lock);
    pool->big_live -= len;
    kept = donate(pool, p, len);
    pool_unlock(&pool->lock, locked);
  }
  if (!kept) munmap(p, len);
}

static void *alloc_kind(psgi_pool *pool, block_kind k, size_t n) {
  switch (k) {
  case KIND_POOL: return pool_alloc(pool, n);
  case KIND_BIG: return big_alloc(pool, big_length(n));
  default: return malloc(n);
  }
}

static void free_kind(psgi_pool *pool, block_kind k, void *p, size_t n) {
  switch (k) {
  case KIND_POOL: pool_free(pool, p, n); return;
  case KIND_BIG: big_free(pool, p, big_length(n)); return;
  default: free(p); return;
  }
}

/* Every other call of the hook (out of line: the common calls stay a few
 * instructions). */
__attribute__((noinline)) static void *realloc_other(psgi_pool *pool, void *ptr, size_t old_size, size_t new_size) {
  block_kind ok = kind_of(pool, old_size), nk = kind_of(pool, new_size);
  if (new_size == 0) {
    if (ptr) free_kind(pool, ok, ptr, old_size);
    return NULL;
  }
  if (!ptr) return alloc_kind(pool, nk, new_size);
  if (ok == KIND_MALLOC && nk == KIND_MALLOC) return realloc(ptr, new_size);
  if (ok == nk && ok == KIND_POOL && class_of(old_size) == class_of(new_size)) return ptr;
  if (ok == nk && ok == KIND_BIG && big_length(old_size) == big_length(new_size)) return ptr;
  if (ok == nk && ok == KIND_BIG && new_size > old_size) {
    char *q = big_grow(pool, ptr, big_length(old_size), big_length(new_size));
    if (q) return q;
  }
  void *q = alloc_kind(pool, nk, new_size);
  if (!q) return NULL;
  memcpy(q, ptr, old_size < new_size ? old_size : new_size);
  free_kind(pool, ok, ptr, old_size);
  return q;
}

void *psgi_default_realloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  psgi_pool *pool = user;
  /* Most calls: a new pooled block, or a pooled block freed. */
  if (pool && !ptr && new_size - 1 < POOL_MAX) return pool_alloc(pool, new_size);
  if (pool && ptr && !new_size && old_size <= POOL_MAX) {
    pool_free(pool, ptr, old_size);
    return NULL;
  }
  return realloc_other(pool, ptr, old_size, new_size);
}
#else
psgi_pool *psgi_pool_create(void) { return NULL; }

/* No pool: no front to drain (ctx->pool is NULL, so alloc.c never calls). */
void psgi_pool_front_drain(psgi_pool *pool, unsigned c) {
  (void)pool;
  (void)c;
}

/* No pool: nothing to hold. */
void psgi_pool_hold_begin(psgi_pool *pool) { (void)pool; }
void psgi_pool_hold_end(psgi_pool *pool) { (void)pool; }

/* No pool: nothing to cache. */
void psgi_pool_cache_begin(psgi_pool *pool) { (void)pool; }
void psgi_pool_cache_end(psgi_pool *pool) { (void)pool; }

void psgi_pool_destroy(psgi_pool *pool) { (void)pool; }

bool psgi_pool_get_stats(psgi_pool *pool, psgi_pool_stats *out) {
  (void)pool;
  memset(out, 0, sizeof *out);
  return false;
}

void *psgi_default_realloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  (void)user;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
}
#endif
