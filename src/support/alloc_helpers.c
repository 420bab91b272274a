/* Passage — what is built on psgi_alloc / psgi_realloc alone: overflow-safe
 * sizes, zeroed blocks, string copies, vector growth, and the debug-build
 * assertion. Compiled into libpassage (over src/support/alloc.c) and into
 * libpassage_onnx (over src/onnx/onnx_alloc.c, the same calls on the public
 * API), so both libraries share one copy of this code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/support.h"

size_t psgi_mul_size(size_t n, size_t m) {
  if (m != 0 && n > SIZE_MAX / m) return SIZE_MAX;
  return n * m;
}

bool psgi_checked_mul(int64_t a, int64_t b, int64_t *out) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

bool psgi_checked_add(int64_t a, int64_t b, int64_t *out) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

bool psgi_shape_fits(const int64_t *dims, int ndim, size_t elem_size) {
  int64_t n = (int64_t)(elem_size ? elem_size : 1);
  for (int i = 0; i < ndim; i++)
    if (dims[i] > 0 && !psgi_checked_mul(n, dims[i], &n)) return false;
  return true;
}

void *psgi_calloc(psg_ctx *ctx, size_t n) {
  void *p = psgi_alloc(ctx, n);
  if (p) memset(p, 0, n);
  return p;
}

char *psgi_strndup(psg_ctx *ctx, const char *s, size_t n) {
  char *d = psgi_alloc(ctx, n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

void *psgi_result_alloc(size_t n) { return malloc(n ? n : 1); }

bool psgi_vec_reserve_(psg_ctx *ctx, void **data, size_t *cap, size_t elem, size_t need) {
  if (need <= *cap) return true;
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2) return false;
    ncap *= 2;
  }
  void *nd = psgi_realloc(ctx, *data, psgi_mul_size(ncap, elem));
  if (!nd) return false;
  *data = nd;
  *cap = ncap;
  return true;
}

#ifndef NDEBUG
void psgi_assert_fail(const char *expr, const char *file, int line) {
  /* An internal invariant is broken: a bug in Passage, not bad input. */
  fprintf(stderr, "passage: internal assertion failed: %s (%s:%d)\n", expr, file, line);
  abort(); /* PSG_ASSERT: debug builds only */
}
#endif
