/* Passage — the front of the default allocator's pool (docs/design.md
 * departure 229), inline in support/alloc.c: psgi_alloc, psgi_free and their
 * sized forms take a small block from, and give it back to, a short list per
 * class without calling the hook. While the process has one thread (or one
 * running library code, psgi_single_threaded) and no thread caches the pool,
 * a freed block of up to PSGI_FRONT_MAX bytes goes onto its class's front
 * list (singly linked, LIFO) and the next allocation of that class takes it
 * back: a few loads and stores each, no chunk lookup, no accounting. For the
 * pool, a block on a front list is still handed out (counted in use and in
 * its chunk's live blocks), as a block in a thread cache is (departure 170);
 * a list that reaches its limit (32 KiB) gives its older half back
 * to the pool (psgi_pool_front_drain), so the front holds a bounded amount
 * of memory. Everything else (a miss, a larger block, threads) goes to the
 * pool as before. */
#ifndef PSG_POOL_FRONT_H
#define PSG_POOL_FRONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "support/default_alloc.h"
#include "support/support.h"

enum {
  PSGI_FRONT_MAX = 4096,   /* blocks up to this size (the small chunks' blocks) */
  PSGI_FRONT_CLASSES = 27, /* the pool's classes up to 4096 bytes */
  PSGI_FRONT_BYTES = 32 << 10, /* a list drains half when it holds more than */
  PSGI_FRONT_BLOCKS = 256      /* about this much, or more than this many blocks */
};

typedef struct psgi_front_block {
  struct psgi_front_block *next;
} psgi_front_block;

/* The first member of every pool (default_alloc.c checks the offset). */
typedef struct psgi_pool_front {
  psgi_front_block *head[PSGI_FRONT_CLASSES];
  /* Blocks each list may still take before it drains: its limit minus its
   * length (a count down, so that a free tests it for zero). */
  uint32_t room[PSGI_FRONT_CLASSES];
  /* Threads caching this pool now (atomic; psgi_pool_cache_begin): while
   * it is not 0, the front is not used. */
  unsigned caching;
} psgi_pool_front;

/* The pool's class of a block of n bytes, 1 <= n <= PSGI_FRONT_MAX, at
 * [(n + 15) / 16] (classes are multiples of 16). */
extern const uint8_t psgi_front_class[PSGI_FRONT_MAX / 16 + 1];
/* The most blocks class c's list holds: PSGI_FRONT_BYTES of them, at most
 * PSGI_FRONT_BLOCKS (the thread caches' bounds, departure 170). */
extern const uint16_t psgi_front_limit[PSGI_FRONT_CLASSES];

/* Gives the older blocks of class c's front list, full, back to the pool
 * until it holds half its limit (out of line: the inline paths save no
 * registers). */
void psgi_pool_front_drain(psgi_pool *pool, unsigned c);

static inline bool psgi_pool_front_usable(const psgi_pool_front *f) {
  return psgi_single_threaded() && !__atomic_load_n(&f->caching, __ATOMIC_RELAXED);
}

/* A block of n bytes off the front, or NULL (then ask the pool). */
static inline void *psgi_pool_front_take(psgi_pool *pool, size_t n) {
  psgi_pool_front *f = (psgi_pool_front *)(void *)pool;
  if (n - 1 >= PSGI_FRONT_MAX || !psgi_pool_front_usable(f)) return NULL;
  unsigned c = psgi_front_class[(n + 15) >> 4];
  psgi_front_block *b = f->head[c];
  if (!b) return NULL;
  f->head[c] = b->next;
  f->room[c]++;
  return b;
}

/* Puts a pooled block of n bytes on the front; false when it does not go
 * there (then give it to the pool). */
static inline bool psgi_pool_front_give(psgi_pool *pool, void *p, size_t n) {
  psgi_pool_front *f = (psgi_pool_front *)(void *)pool;
  if (n - 1 >= PSGI_FRONT_MAX || !psgi_pool_front_usable(f)) return false;
  unsigned c = psgi_front_class[(n + 15) >> 4];
  psgi_front_block *b = p;
  b->next = f->head[c];
  f->head[c] = b;
  if (--f->room[c] == 0) psgi_pool_front_drain(pool, c);
  return true;
}

#endif
