/* Passage — the static memory plan (memory_plan.h): greedy by size over live
 * intervals, TVM USMP's greedy_by_size idea. The buffers placed so far are
 * scanned for those alive at a common point; the candidate offset moves past
 * each one it collides with, lowest first. O(n^2) in the number of
 * buffers, which is the number of intermediates of one model (hundreds). */
#include <stdlib.h>
#include "codegen/memory_plan.h"
#include "support/support.h"

static uint64_t round_up(uint64_t x) { return (x + PSGI_PLAN_ALIGN - 1) / PSGI_PLAN_ALIGN * PSGI_PLAN_ALIGN; }

static bool meets(const psgi_plan_buffer *x, const psgi_plan_buffer *y) {
  return x->first <= y->last && y->first <= x->last;
}

typedef struct order_ctx {
  const psgi_plan_buffer *bufs;
} order_ctx;

static int by_size(const void *pa, const void *pb, void *user) {
  const psgi_plan_buffer *bufs = ((order_ctx *)user)->bufs;
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  const psgi_plan_buffer *x = &bufs[a], *y = &bufs[b];
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  uint32_t lx = x->last - x->first, ly = y->last - y->first;
  if (lx != ly) return lx > ly ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* A small merge sort with a context (qsort_r is not C11). */
static void sort_idx(size_t *v, size_t *tmp, size_t n, int (*cmp)(const void *, const void *, void *), void *user) {
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = cmp(&v[j], &v[i], user) < 0 ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    memcpy(v, tmp, n * sizeof *v);
  }
}

static int by_offset(const void *pa, const void *pb, void *user) {
  const psgi_plan_buffer *bufs = ((order_ctx *)user)->bufs;
  uint64_t x = bufs[*(const size_t *)pa].offset, y = bufs[*(const size_t *)pb].offset;
  return x < y ? -1 : x > y;
}

psg_status psgi_memory_plan(psg_ctx *ctx, psgi_plan_buffer *bufs, size_t n, uint64_t *peak) {
  *peak = 0;
  if (!n) return PSG_OK;
  size_t *order = psgi_alloc(ctx, psgi_mul_size(n, 3 * sizeof *order));
  if (!order) return psgi_nomem(ctx);
  size_t *tmp = order + n, *hits = order + 2 * n;
  for (size_t i = 0; i < n; i++) order[i] = i;
  order_ctx oc = {bufs};
  sort_idx(order, tmp, n, by_size, &oc);
  for (size_t i = 0; i < n; i++) {
    psgi_plan_buffer *b = &bufs[order[i]];
    b->offset = 0;
    if (!b->size) continue;
    /* the placed buffers alive with b, by offset */
    size_t nh = 0;
    for (size_t j = 0; j < i; j++) {
      const psgi_plan_buffer *p = &bufs[order[j]];
      if (p->size && meets(p, b)) hits[nh++] = order[j];
    }
    sort_idx(hits, tmp, nh, by_offset, &oc);
    uint64_t at = 0, size = round_up(b->size);
    for (size_t j = 0; j < nh; j++) {
      const psgi_plan_buffer *p = &bufs[hits[j]];
      uint64_t end = round_up(p->offset + p->size);
      if (p->offset >= at + size) break; /* the gap before p fits b */
      if (end > at) at = end;
    }
    b->offset = at;
    if (at + size > *peak) *peak = at + size;
  }
  psgi_free(ctx, order);
  return PSG_OK;
}

static int by_first(const void *pa, const void *pb, void *user) {
  const psgi_plan_buffer *bufs = ((order_ctx *)user)->bufs;
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  uint32_t x = bufs[a].first, y = bufs[b].first;
  return x < y ? -1 : x > y ? 1 : (a < b ? -1 : a > b);
}

bool psgi_memory_plan_check(psg_ctx *ctx, const psgi_plan_buffer *bufs, size_t n, uint64_t peak, size_t *a, size_t *b) {
  *a = *b = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (!bufs[i].size) continue;
    if (bufs[i].offset % PSGI_PLAN_ALIGN || bufs[i].offset + bufs[i].size > peak || bufs[i].first > bufs[i].last) {
      *a = *b = i;
      return false;
    }
  }
  /* Sweep by interval start: every buffer is compared with those still alive. */
  size_t *order = psgi_alloc(ctx, psgi_mul_size(n ? n : 1, 3 * sizeof *order));
  if (!order) return false;
  size_t *tmp = order + n, *live = order + 2 * n, nlive = 0;
  for (size_t i = 0; i < n; i++) order[i] = i;
  order_ctx oc = {bufs};
  sort_idx(order, tmp, n, by_first, &oc);
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) {
    const psgi_plan_buffer *x = &bufs[order[i]];
    if (!x->size) continue;
    size_t keep = 0;
    for (size_t j = 0; j < nlive && ok; j++) {
      const psgi_plan_buffer *y = &bufs[live[j]];
      if (y->last < x->first) continue; /* dead before x starts: drop */
      live[keep++] = live[j];
      if (x->offset < y->offset + y->size && y->offset < x->offset + x->size) {
        *a = live[j];
        *b = order[i];
        ok = false;
      }
    }
    nlive = keep;
    live[nlive++] = order[i];
  }
  psgi_free(ctx, order);
  return ok;
}
