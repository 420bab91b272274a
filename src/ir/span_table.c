/* Passage — the context's table of Relay spans (docs/design.md, departure
 * 213). A node holds a 32-bit index into it instead of the 32-byte span
 * itself, so a node a pass rebuilds or builds "at" another node's span
 * shares that span instead of copying it. Entries are reference counted by
 * the nodes holding them and reused once none does, so a long-lived context
 * that builds and drops graphs does not grow.
 *
 * Entries live in chunks that never move (chunk k holds FIRST << k of
 * them), so a span pointer handed out for a live node stays valid, and a
 * pointer into the table is recognized by address: interning a span taken
 * from a node (`psgi_expr_span_ref(e)`, the common case in passes) is a few
 * range compares and a count increment, no hashing. */
#include "ir/ir_internal.h"

enum {
  FIRST_SHIFT = 10,
  FIRST = 1 << FIRST_SHIFT,
  NCHUNKS = 33 - FIRST_SHIFT, /* enough for every 32-bit index */
};

typedef struct span_table {
  psg_span *chunk[NCHUNKS];
  uint32_t *counts[NCHUNKS]; /* per entry: the nodes holding it; 0: free */
  unsigned nchunks;
  uint32_t next;      /* the next never-used index */
  uint32_t free_head; /* a free entry (its line links the next one), 0: none */
  uint32_t last;      /* the entry the last fresh span went to (0: none) */
} span_table;

/* Index i >= 1 lives in chunk k at offset o, where i - 1 + FIRST is in
 * [FIRST << k, FIRST << (k + 1)). */
static inline unsigned chunk_of(uint32_t i, uint32_t *off) {
  uint64_t j = (uint64_t)i - 1 + FIRST;
  unsigned k = (unsigned)(63 - __builtin_clzll(j)) - FIRST_SHIFT;
  *off = (uint32_t)(j - ((uint64_t)FIRST << k));
  return k;
}

static inline psg_span *entry(span_table *t, uint32_t i, uint32_t **count) {
  uint32_t off;
  unsigned k = chunk_of(i, &off);
  *count = &t->counts[k][off];
  return &t->chunk[k][off];
}

static const psg_span no_span;

const psg_span *psgi_span_get(const psg_ctx *ctx, uint32_t index) {
  if (!index) return &no_span;
  uint32_t *count;
  return entry(ctx->spans, index, &count);
}

/* The index of p if it points at an entry of the table, else 0. */
static uint32_t index_of_entry(const span_table *t, const psg_span *p) {
  uintptr_t a = (uintptr_t)p;
  for (unsigned k = t->nchunks; k-- > 0;) {
    uintptr_t base = (uintptr_t)t->chunk[k];
    size_t n = (size_t)FIRST << k;
    if (a - base < n * sizeof(psg_span)) {
      size_t off = (a - base) / sizeof(psg_span);
      return (uint32_t)(((uint64_t)FIRST << k) - FIRST + 1 + off);
    }
  }
  return 0;
}

static void count_inc(uint32_t *count) {
  if (psgi_single_threaded())
    ++*count;
  else
    __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
}

static void table_free(psg_ctx *ctx, void *p) {
  span_table *t = p;
  for (unsigned k = 0; k < t->nchunks; k++) {
    psgi_free(ctx, t->chunk[k]);
    psgi_free(ctx, t->counts[k]);
  }
  psgi_free(ctx, t);
}

/* A free entry's index, or a fresh one (growing by a chunk), 0 on failure. */
static uint32_t take_entry(psg_ctx *ctx, span_table *t) {
  if (t->free_head) {
    uint32_t i = t->free_head, *count;
    t->free_head = (uint32_t)entry(t, i, &count)->line;
    return i;
  }
  if (t->next == UINT32_MAX) return 0;
  uint32_t off;
  unsigned k = chunk_of(t->next, &off);
  if (k == t->nchunks) {
    size_t n = (size_t)FIRST << k;
    t->chunk[k] = psgi_alloc(ctx, psgi_mul_size(n, sizeof(psg_span)));
    t->counts[k] = psgi_alloc(ctx, psgi_mul_size(n, sizeof(uint32_t)));
    if (!t->chunk[k] || !t->counts[k]) {
      psgi_free(ctx, t->chunk[k]);
      psgi_free(ctx, t->counts[k]);
      t->chunk[k] = NULL;
      t->counts[k] = NULL;
      return 0;
    }
    t->nchunks++;
  }
  return t->next++;
}

static bool same_span(const psg_span *a, const psg_span *b) {
  return a->file == b->file && a->name == b->name && a->line == b->line && a->col == b->col &&
         a->end_line == b->end_line && a->end_col == b->end_col;
}

/* The rest runs under the context's lock when other threads exist; it
 * neither interns nor reports (both take that lock): false when out of memory. */
static bool ensure_table(psg_ctx *ctx) {
  if (ctx->spans) return true;
  span_table *t = psgi_calloc(ctx, sizeof *t);
  if (!t) return false;
  t->next = 1;
  ctx->spans = t;
  ctx->spans_free = table_free;
  return true;
}

/* A live node's span (a pointer into the table): that node holds it, so its
 * count is above 0 and stays so. */
static uint32_t share_entry(span_table *t, const psg_span *span) {
  uint32_t i = index_of_entry(t, span), *count;
  if (i) {
    entry(t, i, &count);
    count_inc(count);
  }
  return i;
}

/* A span of no node (file and name interned): the entry the last such span
 * went to if it is the same and some node still holds it (a builder's run
 * of nodes at one span; an entry at 0 is not revived), else a new one. */
static uint32_t add_entry(psg_ctx *ctx, span_table *t, const psg_span *span) {
  uint32_t *count;
  if (t->last) {
    psg_span *e = entry(t, t->last, &count);
    uint32_t c = __atomic_load_n(count, __ATOMIC_RELAXED);
    while (c && same_span(e, span))
      if (__atomic_compare_exchange_n(count, &c, c + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return t->last;
  }
  uint32_t i = take_entry(ctx, t);
  if (!i) return 0;
  *entry(t, i, &count) = *span;
  *count = 1;
  t->last = i;
  return i;
}

psg_status psgi_span_intern(psg_ctx *ctx, const psg_span *span, uint32_t *out) {
  *out = 0;
  if (!span || same_span(span, &no_span)) return PSG_OK;
  bool locked = !psgi_single_threaded();
  if (locked) pthread_mutex_lock(&ctx->lock);
  bool ok = ensure_table(ctx);
  if (ok) *out = share_entry(ctx->spans, span);
  if (locked) pthread_mutex_unlock(&ctx->lock);
  if (!ok) return psgi_nomem(ctx);
  if (*out) return PSG_OK;
  psg_span copy = *span;
  if (copy.file && !(copy.file = psgi_intern_again(ctx, span->file))) return psgi_nomem(ctx);
  if (copy.name && !(copy.name = psgi_intern_again(ctx, span->name))) return psgi_nomem(ctx);
  if (locked) pthread_mutex_lock(&ctx->lock);
  *out = add_entry(ctx, ctx->spans, &copy);
  if (locked) pthread_mutex_unlock(&ctx->lock);
  return *out ? PSG_OK : psgi_nomem(ctx);
}

void psgi_span_retain(psg_ctx *ctx, uint32_t index) {
  if (!index) return;
  uint32_t *count;
  entry(ctx->spans, index, &count);
  count_inc(count);
}

void psgi_span_release(psg_ctx *ctx, uint32_t index) {
  if (!index) return;
  span_table *t = ctx->spans;
  uint32_t *count;
  psg_span *e = entry(t, index, &count);
  if (psgi_single_threaded()) {
    if (--*count) return;
  } else if (__atomic_sub_fetch(count, 1, __ATOMIC_ACQ_REL)) {
    return;
  }
  /* The last holder: nobody can take it again (interning revives no entry
   * at 0), so it goes on the free list. */
  bool locked = !psgi_single_threaded();
  if (locked) pthread_mutex_lock(&ctx->lock);
  e->line = (int32_t)t->free_head;
  t->free_head = index;
  if (t->last == index) t->last = 0;
  if (locked) pthread_mutex_unlock(&ctx->lock);
}

uint32_t psgi_span_table_entries(const psg_ctx *ctx) {
  const span_table *t = ctx->spans;
  return t ? t->next - 1 : 0;
}
