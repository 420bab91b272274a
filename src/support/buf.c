/* Passage — a growable string builder for printers and messages. After an
 * allocation failure the builder stays failed and appends are no-ops, so a
 * printer checks once at the end. */
#include <stdio.h>
#include <stdlib.h>
#include "support/support.h"

void psgi_buf_init(psgi_buf *b, psg_ctx *ctx) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
}

void psgi_buf_fini(psgi_buf *b) {
  psgi_free(b->ctx, b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

static bool reserve(psgi_buf *b, size_t extra) {
  if (b->failed) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) {
    if (cap > SIZE_MAX / 2) {
      b->failed = true;
      return false;
    }
    cap *= 2;
  }
  char *d = psgi_realloc(b->ctx, b->data, cap);
  if (!d) {
    b->failed = true;
    return false;
  }
  b->data = d;
  b->cap = cap;
  return true;
}

bool psgi_buf_append(psgi_buf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return false;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
  return true;
}

bool psgi_buf_puts(psgi_buf *b, const char *s) { return psgi_buf_append(b, s, strlen(s)); }

bool psgi_buf_putc(psgi_buf *b, char c) {
  if (!reserve(b, 1)) return false;
  b->data[b->len++] = c;
  b->data[b->len] = 0;
  return true;
}

bool psgi_buf_vprintf(psgi_buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    b->failed = true;
    return false;
  }
  if ((size_t)n < sizeof small) return psgi_buf_append(b, small, (size_t)n);
  if (!reserve(b, (size_t)n)) return false;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
  return true;
}

bool psgi_buf_printf(psgi_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bool ok = psgi_buf_vprintf(b, fmt, ap);
  va_end(ap);
  return ok;
}

char *psgi_buf_detach_libc(psgi_buf *b, size_t *len) {
  /* Results leave the library through psg_free (libc free), so they are
   * copied out of the context's allocator. */
  if (b->failed) return NULL;
  char *out = malloc(b->len + 1);
  if (!out) return NULL;
  if (b->len) memcpy(out, b->data, b->len);
  out[b->len] = 0;
  if (len) *len = b->len;
  psgi_buf_fini(b);
  return out;
}
