/* Passage — the source texts a context has parsed, kept so that a
 * diagnostic made later (after a pass, by verify-each) can quote the line
 * its span points at, as the parsers' own errors do (STYLE rule 13). One
 * text per file name, the latest parse of that name winning; at most
 * SOURCES_MAX bytes in all (a text that does not fit is not kept: its
 * diagnostics stay located, without the quoted line). */
#include "support/ctx_internal.h"

enum { SOURCES_MAX = 16 << 20 };

typedef struct source {
  const char *file; /* interned */
  char *text;
  size_t len;
} source;

struct psgi_sources {
  PSGI_VEC(source) items;
  size_t bytes;
};

psg_status psgi_source_remember(psg_ctx *ctx, const char *file, const char *text, size_t len) {
  if (!file || !text) return PSG_OK;
  pthread_mutex_lock(&ctx->lock);
  psg_status st = PSG_OK;
  psgi_sources *s = ctx->sources;
  if (!s && !(s = ctx->sources = psgi_calloc(ctx, sizeof *s))) st = psgi_nomem(ctx);
  source *slot = NULL;
  for (size_t i = 0; !st && i < s->items.len && !slot; i++)
    if (s->items.data[i].file == file) slot = &s->items.data[i];
  size_t kept = slot ? slot->len : 0;
  if (!st && s->bytes - kept + len <= SOURCES_MAX) {
    char *copy = psgi_alloc(ctx, len ? len : 1);
    if (!copy || (!slot && !PSGI_VEC_PUSH(ctx, &s->items, ((source){file, NULL, 0})))) {
      psgi_free(ctx, copy);
      st = psgi_nomem(ctx);
    } else {
      if (!slot) slot = &s->items.data[s->items.len - 1];
      memcpy(copy, text, len);
      psgi_free(ctx, slot->text);
      s->bytes = s->bytes - kept + len;
      *slot = (source){file, copy, len};
    }
  } else if (!st && slot) {
    /* A newer text of this name that is not kept: the old one would quote
     * the wrong lines. */
    s->bytes -= slot->len;
    psgi_free(ctx, slot->text);
    *slot = s->items.data[--s->items.len];
  }
  pthread_mutex_unlock(&ctx->lock);
  return st;
}

size_t psgi_source_line(psg_ctx *ctx, const char *file, int line, char *buf, size_t cap) {
  size_t n = 0;
  if (!file || line < 1 || !cap) return 0;
  pthread_mutex_lock(&ctx->lock);
  const psgi_sources *s = ctx->sources;
  for (size_t i = 0; s && i < s->items.len; i++) {
    const source *src = &s->items.data[i];
    if (src->file != file) continue;
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line && p < end; l++) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      p = nl ? nl + 1 : end;
    }
    if (p < end) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t len = (size_t)((nl ? nl : end) - p);
      if (len && p[len - 1] == '\r') len--;
      n = psgi_diag_clean_line(buf, cap, p, len);
    }
    break;
  }
  pthread_mutex_unlock(&ctx->lock);
  return n;
}

void psgi_sources_free(psg_ctx *ctx) {
  psgi_sources *s = ctx->sources;
  if (!s) return;
  for (size_t i = 0; i < s->items.len; i++) psgi_free(ctx, s->items.data[i].text);
  PSGI_VEC_FREE(ctx, &s->items);
  psgi_free(ctx, s);
  ctx->sources = NULL;
}
