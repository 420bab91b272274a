/* Passage — the default allocator, used when psg_ctx_create gets no hook
 * (docs/design.md, departure 14): a per-context pool of huge-page chunks for
 * blocks up to 1 MiB, direct mappings for larger ones. The block's size,
 * which the allocator is always told, says which kind it is. */
#ifndef PSG_DEFAULT_ALLOC_H
#define PSG_DEFAULT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* The pool behind one context's default allocator (the hook's `user`). */
typedef struct psgi_pool psgi_pool;

/* A new pool; NULL when there is none to have (sanitizer builds, platforms
 * without mmap, or no memory): the allocator then uses malloc alone. */
psgi_pool *psgi_pool_create(void);
/* Unmaps everything; the context's blocks must all be freed before. */
void psgi_pool_destroy(psgi_pool *pool);

/* Per-thread caches (docs/design.md departure 170). Between
 * psgi_pool_cache_begin and psgi_pool_cache_end, blocks up to 128 KiB that the
 * calling thread allocates from or frees to `pool` come from and go to a
 * cache of the thread's own (no lock, no shared cache line); the cache takes
 * and gives back blocks in batches under the pool's lock. A block may be
 * freed on another thread than the one that took it: it is a block of the
 * same pool either way. end gives every cached block back; it must come
 * before the pool is destroyed, on the thread that began. One pool at a time
 * per thread: begin does nothing while the thread caches a pool already
 * (this one or another), end nothing unless it caches this one. Nothing
 * happens without a pool (NULL). */
void psgi_pool_cache_begin(psgi_pool *pool);
void psgi_pool_cache_end(psgi_pool *pool);

/* Holds (docs/design.md departure 253): between psgi_pool_hold_begin and
 * the matching psgi_pool_hold_end (they nest, and may come from several
 * threads), the pool gives no freed memory back to the kernel: emptied
 * chunks and freed big blocks stay mapped for the next blocks, which take
 * them (a big block or a chunk cut from a larger free one) before mapping
 * fresh memory; a fresh mapping that would take what the pool maps past its
 * most since the hold began first unmaps free memory of that size. The last
 * end trims the free memory back to its usual bounds. For the length of a
 * pass run or a parse, where every pass frees about what the next one
 * allocates. Nothing happens without a pool (NULL). */
void psgi_pool_hold_begin(psgi_pool *pool);
void psgi_pool_hold_end(psgi_pool *pool);

/* The psg_allocator hook; user is the pool (or NULL). */
void *psgi_default_realloc(void *user, void *ptr, size_t old_size, size_t new_size);

/* What the pool holds, for tests: bytes mapped in chunks, bytes handed out
 * (as rounded up to their size class), the number of chunks, and of those
 * the freed big blocks kept for reuse (not yet carved): their chunks and bytes. */
typedef struct psgi_pool_stats {
  size_t mapped, in_use, chunks;
  size_t donated_chunks, donated_bytes;
  size_t kept_chunks, kept_bytes; /* empty chunks kept for reuse */
  size_t fresh; /* bytes mapped fresh over the pool's life (chunks populated at once) */
  size_t big;   /* bytes of live big blocks (mapped apart from the chunks) */
} psgi_pool_stats;
bool psgi_pool_get_stats(psgi_pool *pool, psgi_pool_stats *out);

#endif
