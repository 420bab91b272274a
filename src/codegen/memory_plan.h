/* Passage — the static memory plan: offsets in one workspace for buffers with
 * known sizes and live intervals [first, last] (program points, inclusive),
 * so that no two buffers live at a common point overlap. Greedy by size, as
 * TVM's USMP greedy_by_size (docs/compile.md). */
#ifndef PSG_CODEGEN_MEMORY_PLAN_H
#define PSG_CODEGEN_MEMORY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "passage/ctx.h"

#define PSGI_PLAN_ALIGN 64

typedef struct psgi_plan_buffer {
  uint64_t size;          /* bytes (0: takes no space) */
  uint32_t first, last;   /* live at program points first..last */
  uint64_t offset;        /* out: PSGI_PLAN_ALIGN-aligned */
} psgi_plan_buffer;

/* Assigns every buffer an offset; *peak is the workspace size (a multiple of
 * PSGI_PLAN_ALIGN, 0 when nothing takes space). Largest buffers first (ties:
 * longer interval, then index), each at the lowest aligned offset that does
 * not overlap a placed buffer whose interval meets its own. */
psg_status psgi_memory_plan(psg_ctx *ctx, psgi_plan_buffer *bufs, size_t n, uint64_t *peak);

/* The plan's invariant: each buffer aligned and inside [0, peak), and no two
 * buffers with meeting intervals share a byte. False (and the pair in *a, *b)
 * when broken. O(n log n + overlapping pairs). */
bool psgi_memory_plan_check(psg_ctx *ctx, const psgi_plan_buffer *bufs, size_t n, uint64_t peak, size_t *a, size_t *b);

#endif
