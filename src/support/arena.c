/* Passage — bump-pointer arena for the scratch memory of one unit of work
 * (memo tables, worklists), freed at once (QBE's per-function pool). */
#include "support/support.h"

struct psgi_arena_block {
  psgi_arena_block *next;
  size_t size;
  max_align_t align_;
};

enum { ARENA_BLOCK = 64 * 1024 };

void psgi_arena_init(psgi_arena *a, psg_ctx *ctx) {
  memset(a, 0, sizeof *a);
  a->ctx = ctx;
}

void *psgi_arena_alloc(psgi_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  if ((size_t)(a->end - a->cur) < n || !a->cur) {
    size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
    if (size > SIZE_MAX - sizeof(psgi_arena_block)) return NULL;
    psgi_arena_block *b = psgi_alloc(a->ctx, sizeof *b + size);
    if (!b) return NULL;
    b->size = size;
    b->next = a->head;
    a->head = b;
    a->cur = (char *)(b + 1);
    a->end = a->cur + size;
  }
  void *p = a->cur;
  a->cur += n;
  return p;
}

void psgi_arena_fini(psgi_arena *a) {
  psgi_arena_block *b = a->head;
  while (b) {
    psgi_arena_block *next = b->next;
    psgi_free(a->ctx, b);
    b = next;
  }
  a->head = NULL;
  a->cur = a->end = NULL;
}
