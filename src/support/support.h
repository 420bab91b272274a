/* Passage — internal support layer: allocation through the context's hook,
 * growable arrays, an insertion-ordered hash map, a string builder and an
 * arena for per-pass scratch memory (STYLE rules 5 and 14). No IR here. */
#ifndef PSG_SUPPORT_H
#define PSG_SUPPORT_H

#include <stdarg.h>
#include <string.h>
#include "passage/ctx.h"

/* True while the process has a single thread (glibc's __libc_single_threaded,
 * which only that thread could make false, by creating another): reference
 * counts and the allocator's lock then use plain instructions instead of
 * atomic ones (~10 ns each on the virtual machines we measure on), as glibc's
 * manual suggests. False where unknown. */
/* Also true while the calling thread is the only one running library code:
 * a built-in pass body of a run whose other threads are the run's own parked
 * pool threads (psgi_exclusive, exclusive.c; docs/design.md departure 208). */
extern bool psgi_exclusive; /* atomic (relaxed) */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#include <sys/single_threaded.h>
static inline bool psgi_single_threaded(void) {
  return __libc_single_threaded || __atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED);
}
#else
static inline bool psgi_single_threaded(void) { return false; }
#endif

/* Exclusive mode (exclusive.c). psgi_exclusive_begin(true) enters it when
 * the calling thread has a pool region open (thread_pool.h) and the
 * process's threads are this one and the pools' threads (the kernel's
 * count), psgi_exclusive_begin(false) leaves it for code that is not the
 * library's (a user's callback may start a thread); each returns the state
 * to give psgi_exclusive_end, which restores it (re-counting the threads
 * when it turns the mode back on). */
bool psgi_exclusive_begin(bool on);
void psgi_exclusive_end(bool was);

/* Per-thread caches of a context (docs/design.md departure 170): from
 * psgi_ctx_thread_cache_begin to the matching psgi_ctx_thread_cache_end, the
 * calling thread keeps the context's live-object and reference counts of
 * the objects it makes and frees in a batch of its own (applied at the
 * end), and takes and frees small blocks of the default allocator through a
 * cache of its own. For the threads of a parallel loop (src/pass/parallel.c)
 * and the caller of a pass run that may start threads (src/pass/pass.c):
 * the counts are inexact until every such thread has ended, and while some
 * thread batches, the context must be kept alive by a reference outside any
 * batch (the caller's module). Begins and ends nest on a thread; while it
 * caches one context, begin and end of another do nothing. */
void psgi_ctx_thread_cache_begin(psg_ctx *ctx);
void psgi_ctx_thread_cache_end(psg_ctx *ctx);

/* Around a unit of work that frees about what it allocates again (a pass
 * run, a parse): the context's default allocator keeps the memory freed
 * in between mapped for reuse instead of giving it back to the kernel,
 * without mapping more than its most since the work began
 * (psgi_pool_hold_begin, default_alloc.h; docs/design.md departure 253).
 * Nests; nothing happens under a user's allocator. */
void psgi_ctx_hold_memory_begin(psg_ctx *ctx);
void psgi_ctx_hold_memory_end(psg_ctx *ctx);

/* Allocation ----------------------------------------------------------------
 * Every byte goes through the context's allocator. psgi_alloc keeps the size
 * in a 16-byte header, so psgi_free needs no size. Failures set the context's
 * sticky OOM flag and return NULL. */
void *psgi_alloc(psg_ctx *ctx, size_t n);
void *psgi_calloc(psg_ctx *ctx, size_t n);
void *psgi_realloc(psg_ctx *ctx, void *p, size_t n);
void psgi_free(psg_ctx *ctx, void *p);
char *psgi_strndup(psg_ctx *ctx, const char *s, size_t n);
/* A block without the header, freed with the same n (no psgi_realloc). */
void *psgi_alloc_sized(psg_ctx *ctx, size_t n);
void psgi_free_sized(psg_ctx *ctx, void *p, size_t n);
/* n * m with overflow check; SIZE_MAX on overflow (then an alloc fails). */
size_t psgi_mul_size(size_t n, size_t m);
/* Overflow-checked int64 arithmetic for shape and size computations (issue
 * 14): *out = a * b (or a + b) and true, or false when the exact result does
 * not fit in int64 (*out is then left alone). Never undefined behaviour. */
bool psgi_checked_mul(int64_t a, int64_t b, int64_t *out);
bool psgi_checked_add(int64_t a, int64_t b, int64_t *out);
/* The size rule of a tensor type (issue 14, docs/design.md): the product of
 * its known non-zero dims times the dtype's byte size fits in int64. Every
 * element count, byte size, stride and element offset of a tensor of that
 * type then fits in int64 (and in size_t) without overflow checks, so the
 * check is made once, where a type is interned or a tensor made, not in
 * every kernel. Unknown dims (negative) do not count. */
bool psgi_shape_fits(const int64_t *dims, int ndim, size_t elem_size);

/* Growable array of any element type:
 *   PSGI_VEC(int) v = {0};
 *   if (!PSGI_VEC_PUSH(ctx, &v, 42)) goto nomem;
 *   PSGI_VEC_FREE(ctx, &v);                                               */
#define PSGI_VEC(T) struct { T *data; size_t len, cap; }
bool psgi_vec_reserve_(psg_ctx *ctx, void **data, size_t *cap, size_t elem, size_t need);
/* The capacity check inline (most pushes need no growth, and a call per
 * push was ~2% of a pipeline run); n is evaluated up to twice. */
#define PSGI_VEC_RESERVE(ctx, v, n) \
  ((size_t)(n) <= (v)->cap || psgi_vec_reserve_((ctx), (void **)&(v)->data, &(v)->cap, sizeof(*(v)->data), (n)))
#define PSGI_VEC_PUSH(ctx, v, x) \
  (PSGI_VEC_RESERVE(ctx, v, (v)->len + 1) ? ((v)->data[(v)->len++] = (x), true) : false)
#define PSGI_VEC_FREE(ctx, v) (psgi_free((ctx), (v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

/* Hash map --------------------------------------------------------------
 * Open addressing over a dense entry array, so iteration follows insertion
 * order. Keys are either pointers (memo tables: key_len == PSGI_PTR_KEY and the
 * pointer itself is the key) or byte strings (names; the map does not copy them, the
 * caller keeps them alive, e.g. interned). Removal is not supported: memo
 * tables and name indexes only grow, and are rebuilt when a module changes. */
#define PSGI_PTR_KEY SIZE_MAX
typedef struct psgi_map_entry {
  const void *key;
  size_t key_len; /* PSGI_PTR_KEY: pointer key */
  uint64_t hash;
  void *value;
} psgi_map_entry;

typedef struct psgi_map {
  psg_ctx *ctx;
  psgi_map_entry *entries; /* dense, insertion order */
  size_t len, cap;
  /* Per slot: the hash's upper 32 bits and entry index + 1 (0: empty), so
   * a probe compares tags without touching the entry (a cache miss). */
  uint64_t *slots;
  size_t nslots; /* power of two */
} psgi_map;

void psgi_map_init(psgi_map *m, psg_ctx *ctx);
void psgi_map_fini(psgi_map *m);
/* Removes every entry, keeping the storage for the next ones (a cache
 * emptied and filled again does not regrow from nothing). */
void psgi_map_clear(psgi_map *m);
uint64_t psgi_hash_bytes(const void *p, size_t n);
/* splitmix64's finalizer. Inline with the two below: hashing a node's
 * children (CSE, structural hashing) mixes once per edge. */
static inline uint64_t psgi_splitmix_final(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}
/* The finalizer over a combination: order-sensitive. */
static inline uint64_t psgi_hash_mix(uint64_t h, uint64_t v) {
  return psgi_splitmix_final(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}
/* psgi_hash_mix(0, p). */
static inline uint64_t psgi_hash_ptr(const void *p) {
  return psgi_splitmix_final((uint64_t)(uintptr_t)p + 0x9e3779b97f4a7c15ull);
}
/* Lookup: the entry or NULL. */
psgi_map_entry *psgi_map_get_ptr(const psgi_map *m, const void *key);
psgi_map_entry *psgi_map_get_str(const psgi_map *m, const char *key, size_t len);
/* Find-or-insert: the entry (value NULL if new), or NULL on OOM. *is_new tells
 * whether it was inserted (may be NULL). */
psgi_map_entry *psgi_map_put_ptr(psgi_map *m, const void *key, bool *is_new);
psgi_map_entry *psgi_map_put_str(psgi_map *m, const char *key, size_t len, bool *is_new);
/* Makes room for n entries in all (slots and entry array), so a map whose
 * final size is known roughly (a walk's memo: psgi_expr_size_hint) fills
 * without regrowing. A hint, never a limit; false on OOM (the map is as
 * before). */
bool psgi_map_reserve(psgi_map *m, size_t n);

/* String builder ---------------------------------------------------------- */
typedef struct psgi_buf {
  psg_ctx *ctx;
  char *data;
  size_t len, cap;
  bool failed; /* an append ran out of memory; later appends are no-ops */
} psgi_buf;

void psgi_buf_init(psgi_buf *b, psg_ctx *ctx);
void psgi_buf_fini(psgi_buf *b);
bool psgi_buf_append(psgi_buf *b, const char *s, size_t n);
bool psgi_buf_puts(psgi_buf *b, const char *s);
bool psgi_buf_putc(psgi_buf *b, char c);
bool psgi_buf_printf(psgi_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool psgi_buf_vprintf(psgi_buf *b, const char *fmt, va_list ap);
/* Moves the text out as a malloc'd NUL-terminated string (for psg_free),
 * leaving the builder empty; NULL on OOM. */
char *psgi_buf_detach_libc(psgi_buf *b, size_t *len);
/* A block for a result that leaves the library through psg_free (libc
 * malloc, as psgi_buf_detach_libc copies into): for results whose size is
 * known before they are written. NULL on OOM. */
void *psgi_result_alloc(size_t n);

/* Arena ---------------------------------------------------------------------
 * Bump allocation for scratch memory of one unit of work, freed at once. */
typedef struct psgi_arena_block psgi_arena_block;
typedef struct psgi_arena {
  psg_ctx *ctx;
  psgi_arena_block *head;
  char *cur, *end;
} psgi_arena;
void psgi_arena_init(psgi_arena *a, psg_ctx *ctx);
void *psgi_arena_alloc(psgi_arena *a, size_t n); /* 16-byte aligned; NULL on OOM */
void psgi_arena_fini(psgi_arena *a);

/* Interned strings: one copy per distinct byte string per context, alive as
 * long as the context. Thread-safe. NULL on OOM. */
const char *psgi_intern(psg_ctx *ctx, const char *s, size_t len);
/* psgi_intern of a NUL-terminated string that is often an interned one
 * already (a span's file name copied from a node being rebuilt): such a
 * string, when recently interned, is returned as it is, with no lock. */
const char *psgi_intern_again(psg_ctx *ctx, const char *s);

/* Edit distance (Levenshtein) between two strings, capped at `cap`+1 so that
 * "did you mean" searches stay cheap. */
size_t psgi_edit_distance(const char *a, const char *b, size_t cap);
/* The candidate closest to `word` by edit distance, if it is at most about a
 * third of the word's length away; NULL otherwise. */
const char *psgi_closest(const char *word, const char *const *cands, size_t n);

/* Diagnostics ---------------------------------------------------------------
 * Record a diagnostic on the context. `source_line` (may be NULL) is the text
 * of the line the span starts on, used to render the caret. `file` may be
 * NULL. Returns `code` so callers can `return psgi_diag_error(...)`. */
psg_status psgi_diag_add(psg_ctx *ctx, int severity, psg_status code, const char *file,
                         int line, int col, const char *source_line, size_t source_len,
                         const char *pass, const char *fmt, ...)
    __attribute__((format(printf, 10, 11)));
psg_status psgi_diag_vadd(psg_ctx *ctx, int severity, psg_status code, const char *file,
                          int line, int col, const char *source_line, size_t source_len,
                          const char *pass, const char *fmt, va_list ap);
/* The source line `src` (n bytes) as a diagnostic echoes it: at most `cap`
 * bytes into dst, control bytes (NUL, escapes) as '?', so that binary input
 * cannot cut the diagnostic short or drive the terminal. Returns the length. */
size_t psgi_diag_clean_line(char *dst, size_t cap, const char *src, size_t n);
/* Source texts kept for quoting (sources.c): remember keeps a copy of a
 * parsed text as that of `file` (interned; the latest text of a name wins;
 * PSG_ERR_NOMEM when the copy cannot be made, PSG_OK also when the text is
 * too big to keep); line copies line `line` (from 1) of the text kept for
 * `file` into buf as psgi_diag_clean_line does, returning its length (0:
 * no such text or line). */
psg_status psgi_source_remember(psg_ctx *ctx, const char *file, const char *text, size_t len);
size_t psgi_source_line(psg_ctx *ctx, const char *file, int line, char *buf, size_t cap);
/* Appends a note line to the newest diagnostic (e.g. "in pass 'FoldConstant'"). */
/* Replaces the message of diagnostic `i`, dropping its location (diag.c). */
void psgi_diag_reword(psg_ctx *ctx, size_t i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Gives the unlocated errors recorded since diagnostic `from` this location
 * (diag.c). */
void psgi_diag_locate_since(psg_ctx *ctx, size_t from, const char *file, int line, int col,
                            const char *source_line, size_t source_len);
/* Diagnostics of a per-function pass body on a worker thread (diag.c,
 * src/pass/parallel.c): between begin and end, this thread's records for
 * `ctx` go to a list of their own (readers on this thread see that list;
 * the sink is not called). End gives the list back and restores the capture
 * `saved` by begin; replay appends the records to this thread's list in
 * order and calls the sink (freeing the list); free drops them. */
typedef struct psgi_diag_list psgi_diag_list;
psg_status psgi_diag_capture_begin(psg_ctx *ctx, psgi_diag_list **saved);
psgi_diag_list *psgi_diag_capture_end(psg_ctx *ctx, psgi_diag_list *saved);
void psgi_diag_replay(psg_ctx *ctx, psgi_diag_list *list);
void psgi_diag_capture_free(psg_ctx *ctx, psgi_diag_list *list);
/* Drops the diagnostics recorded since index `from` (diag.c). */
void psgi_diag_truncate(psg_ctx *ctx, size_t from);
void psgi_diag_note(psg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records PSG_ERR_NOMEM (without allocating if memory is exhausted). */
psg_status psgi_nomem(psg_ctx *ctx);
/* Failed allocations in ctx so far: a caller of a function that cannot
 * report NOMEM (a structural hash) compares it before and after. */
uint64_t psgi_ctx_alloc_failures(const psg_ctx *ctx);

/* The library context alone (allocator, interning, diagnostics); the public
 * psg_ctx_create (src/builtin/ctx_create.c) adds what the upper layers
 * install, such as the built-in pass table. */
psg_status psgi_ctx_create(const psg_allocator *alloc, psg_ctx **out);

/* Internal invariants (STYLE rule 6): in debug builds a failed check aborts
 * with a message; in release builds the expression is only evaluated and the
 * caller turns a false into PSG_ERR_INTERNAL. */
#ifdef NDEBUG
#define PSG_ASSERT(x) ((void)0)
#define PSGI_ALWAYS(x) (x)
#define PSGI_NEVER(x) (x)
#else
void psgi_assert_fail(const char *expr, const char *file, int line);
#define PSG_ASSERT(x) ((x) ? (void)0 : psgi_assert_fail(#x, __FILE__, __LINE__))
#define PSGI_ALWAYS(x) ((x) ? 1 : (psgi_assert_fail(#x, __FILE__, __LINE__), 0))
#define PSGI_NEVER(x) ((x) ? (psgi_assert_fail(#x, __FILE__, __LINE__), 1) : 0)
#endif

#endif
