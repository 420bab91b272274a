/* Passage — helpers shared by the text benchmarks (bench/parse_print.c,
 * bench/tir_parse_print.c): a monotonic clock, a growing text buffer and
 * the one way they fail. Benchmark code, so it may print and exit. */
#ifndef PSG_BENCH_TEXT_H
#define PSG_BENCH_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "passage/passage.h"

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Prints what failed and the context's diagnostics, then exits 1. */
static inline void bench_die(const char *prog, psg_ctx *ctx, const char *what) {
  fprintf(stderr, "%s: %s failed\n", prog, what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

typedef struct bench_text {
  char *s;
  size_t len, cap;
} bench_text;

static inline void bench_putf(bench_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void bench_putf(bench_text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = t->s ? vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0 && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = t->cap ? t->cap * 2 : 1 << 16;
    if (!(t->s = realloc(t->s, t->cap))) bench_die("bench", NULL, "realloc");
  }
}

/* Writes `t` to `path` (NULL: nothing). */
static inline void bench_write(const bench_text *t, const char *path) {
  if (!path) return;
  FILE *f = fopen(path, "w");
  if (!f || fwrite(t->s, 1, t->len, f) != t->len || fclose(f)) bench_die("bench", NULL, "writing the MLIR file");
}

#endif
