/* Passage — diagnostics recorded on the context (STYLE rule 6): the library
 * never prints; the CLI and Python read or stream these. Each record keeps a
 * rendered form "file:line:col: error: msg" + source line + caret + notes. */
#include <stdio.h>
#include <stdlib.h>
#include "support/ctx_internal.h"

struct psg_diag {
  int severity;
  psg_status code;
  char *message;
  char *file;
  int line, col;
  char *pass;
  char *rendered;
  /* The thread that recorded it: the context's list is shared by threads,
   * and only the recording thread may add notes to or relocate a record
   * (another thread may be reading its own records meanwhile). */
  pthread_t thread;
};

struct psgi_diag_list {
  PSGI_VEC(psg_diag *) items;
  /* Truncated diagnostics the sink has seen: a frontend may still hold them
   * (Python keeps each call's diagnostics), so they live until the next
   * psg_ctx_clear_diags, not until the truncation. */
  PSGI_VEC(psg_diag *) retired;
};

/* Used when memory is exhausted: no allocation needed to report it. */
static psg_diag nomem_diag = {.severity = PSG_SEVERITY_ERROR, .code = PSG_ERR_NOMEM,
                              .message = "out of memory", .rendered = "error: out of memory\n"};

static const char *severity_word(int s) {
  switch (s) {
  case PSG_SEVERITY_WARNING: return "warning";
  case PSG_SEVERITY_NOTE: return "note";
  default: return "error";
  }
}

static bool own(const psg_diag *d) { return pthread_equal(d->thread, pthread_self()); }

/* A per-function pass body running on a worker thread (src/pass/parallel.c)
 * records its diagnostics in a list of its own: the serial run reports them
 * in module order and stops at the first failing function, so they are
 * replayed later in that order, or dropped. While `capture.ctx` is `ctx`,
 * every reader and writer below uses this thread's list instead of the
 * context's, and the sink is not called (the replay calls it). */
static _Thread_local struct {
  const psg_ctx *ctx;
  psgi_diag_list *list;
} capture;

static psgi_diag_list *list_of(const psg_ctx *ctx) {
  return capture.ctx == ctx ? capture.list : __atomic_load_n(&ctx->diags, __ATOMIC_ACQUIRE);
}

static void diag_free(psg_ctx *ctx, psg_diag *d) {
  if (!d || d == &nomem_diag) return;
  psgi_free(ctx, d->message);
  psgi_free(ctx, d->file);
  psgi_free(ctx, d->pass);
  psgi_free(ctx, d->rendered);
  psgi_free(ctx, d);
}

static bool render(psg_ctx *ctx, psg_diag *d, const char *src, size_t src_len) {
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  if (d->file) {
    psgi_buf_puts(&b, d->file);
    if (d->line > 0) psgi_buf_printf(&b, ":%d:%d", d->line, d->col);
    psgi_buf_puts(&b, ": ");
  }
  psgi_buf_printf(&b, "%s: %s\n", severity_word(d->severity), d->message);
  if (src && d->col > 0) {
    /* The source line with tabs kept (so the caret lines up) and at most 200
     * columns shown. */
    size_t n = src_len > 200 ? 200 : src_len;
    psgi_buf_puts(&b, "  ");
    psgi_buf_append(&b, src, n);
    psgi_buf_puts(&b, "\n  ");
    for (int i = 1; i < d->col && (size_t)i <= n; i++) psgi_buf_putc(&b, src[i - 1] == '\t' ? '\t' : ' ');
    psgi_buf_puts(&b, "^\n");
  }
  if (d->pass) psgi_buf_printf(&b, "  note: in pass '%s'\n", d->pass);
  if (b.failed) {
    psgi_buf_fini(&b);
    return false;
  }
  d->rendered = b.data ? b.data : psgi_strndup(ctx, "", 0);
  return d->rendered != NULL;
}

/* A sink is users' code: exclusive mode (support.h) is off around it. */
static void call_sink(psg_diag_sink sink, void *user, const psg_diag *d) {
  bool was = psgi_exclusive_begin(false);
  sink(user, d);
  psgi_exclusive_end(was);
}

psg_status psgi_nomem(psg_ctx *ctx) {
  __atomic_store_n(&ctx->oom, true, __ATOMIC_RELAXED);
  pthread_mutex_lock(&ctx->lock);
  psgi_diag_list *list = list_of(ctx);
  if (list) {
    /* Record the static record if there is room; never allocate here. */
    size_t n = list->items.len;
    if (n < list->items.cap) {
      list->items.data[n] = &nomem_diag;
      __atomic_store_n(&list->items.len, n + 1, __ATOMIC_RELEASE); /* see psg_ctx_diag_count */
    }
  }
  if (capture.ctx == ctx) {
    pthread_mutex_unlock(&ctx->lock);
    return PSG_ERR_NOMEM;
  }
  psg_diag_sink sink = ctx->sink;
  void *user = ctx->sink_user;
  pthread_mutex_unlock(&ctx->lock);
  if (sink) call_sink(sink, user, &nomem_diag);
  return PSG_ERR_NOMEM;
}

psg_status psgi_diag_vadd(psg_ctx *ctx, int severity, psg_status code, const char *file, int line,
                          int col, const char *source_line, size_t source_len, const char *pass,
                          const char *fmt, va_list ap) {
  psg_diag *d = psgi_calloc(ctx, sizeof *d);
  if (!d) return psgi_nomem(ctx), code;
  psgi_buf mb;
  psgi_buf_init(&mb, ctx);
  psgi_buf_vprintf(&mb, fmt, ap);
  d->severity = severity;
  d->code = code;
  d->thread = pthread_self();
  d->message = mb.failed ? NULL : (mb.data ? mb.data : psgi_strndup(ctx, "", 0));
  d->file = file ? psgi_strndup(ctx, file, strlen(file)) : NULL;
  d->pass = pass ? psgi_strndup(ctx, pass, strlen(pass)) : NULL;
  d->line = line;
  d->col = col;
  if (!d->message || (file && !d->file) || (pass && !d->pass) || !render(ctx, d, source_line, source_len)) {
    if (mb.failed) psgi_buf_fini(&mb);
    diag_free(ctx, d);
    return psgi_nomem(ctx), code;
  }
  pthread_mutex_lock(&ctx->lock);
  psgi_diag_list *list = list_of(ctx) ? list_of(ctx) : psgi_calloc(ctx, sizeof *ctx->diags);
  if (list && !list_of(ctx)) __atomic_store_n(&ctx->diags, list, __ATOMIC_RELEASE);
  size_t n = list ? list->items.len : 0;
  bool ok = list && PSGI_VEC_RESERVE(ctx, &list->items, n + 1);
  if (ok) {
    list->items.data[n] = d;
    __atomic_store_n(&list->items.len, n + 1, __ATOMIC_RELEASE); /* see psg_ctx_diag_count */
  }
  psg_diag_sink sink = capture.ctx == ctx ? NULL : ctx->sink;
  void *user = ctx->sink_user;
  pthread_mutex_unlock(&ctx->lock);
  if (!ok) {
    diag_free(ctx, d);
    return psgi_nomem(ctx), code;
  }
  if (sink) call_sink(sink, user, d);
  return code;
}

size_t psgi_diag_clean_line(char *dst, size_t cap, const char *src, size_t n) {
  if (n > cap) n = cap;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    dst[i] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  return n;
}

psg_status psgi_diag_add(psg_ctx *ctx, int severity, psg_status code, const char *file, int line,
                         int col, const char *source_line, size_t source_len, const char *pass,
                         const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  psg_status st =
      psgi_diag_vadd(ctx, severity, code, file, line, col, source_line, source_len, pass, fmt, ap);
  va_end(ap);
  return st;
}

void psgi_diag_note(psg_ctx *ctx, const char *fmt, ...) {
  pthread_mutex_lock(&ctx->lock);
  /* This thread's newest record: the newest of all may be another thread's. */
  psg_diag *d = NULL;
  psgi_diag_list *list = list_of(ctx);
  for (size_t i = list ? list->items.len : 0; i-- > 0 && !d;)
    if (list->items.data[i] != &nomem_diag && own(list->items.data[i])) d = list->items.data[i];
  if (d) {
    psgi_buf b;
    psgi_buf_init(&b, ctx);
    psgi_buf_puts(&b, d->rendered);
    size_t old_len = b.len;
    psgi_buf_puts(&b, "  note: ");
    va_list ap;
    va_start(ap, fmt);
    psgi_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    psgi_buf_putc(&b, '\n');
    /* The same note twice in a row says nothing new: a pass that names
     * itself in its diagnostic (d->pass) is not named again by the runner. */
    size_t note_len = b.len - old_len;
    if (!b.failed && old_len >= note_len && (old_len == note_len || b.data[old_len - note_len - 1] == '\n') &&
        !memcmp(b.data + old_len - note_len, b.data + old_len, note_len)) {
      psgi_buf_fini(&b);
    } else if (!b.failed) {
      psgi_free(ctx, d->rendered);
      d->rendered = b.data;
    } else {
      psgi_buf_fini(&b);
    }
  }
  pthread_mutex_unlock(&ctx->lock);
}

psg_status psg_ctx_fail(psg_ctx *ctx, psg_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  psgi_diag_vadd(ctx, PSG_SEVERITY_ERROR, code, NULL, 0, 0, NULL, 0, NULL, fmt, ap);
  va_end(ap);
  return code;
}

void psg_ctx_set_diag_sink(psg_ctx *ctx, psg_diag_sink sink, void *user) {
  pthread_mutex_lock(&ctx->lock);
  ctx->sink = sink;
  ctx->sink_user = user;
  pthread_mutex_unlock(&ctx->lock);
}

/* Readers of the records take the lock too: another thread sharing the
 * context may append meanwhile, which moves the array (ThreadSanitizer found
 * the unlocked reads racing with an append). A process with one thread skips
 * it (support.h). The count alone is an atomic load, as the pass runner reads
 * it on every pass call; writers store it atomically under the lock. */
static bool lock_for_reading(const psg_ctx *ctx) {
  if (psgi_single_threaded() || capture.ctx == ctx) return false;
  pthread_mutex_lock(&((psg_ctx *)ctx)->lock);
  return true;
}

static void unlock_after_reading(const psg_ctx *ctx, bool locked) {
  if (locked) pthread_mutex_unlock(&((psg_ctx *)ctx)->lock);
}

size_t psg_ctx_diag_count(const psg_ctx *ctx) {
  const psgi_diag_list *list = list_of(ctx);
  return list ? __atomic_load_n(&list->items.len, __ATOMIC_ACQUIRE) : 0;
}

const psg_diag *psg_ctx_get_diag(const psg_ctx *ctx, size_t i) {
  bool locked = lock_for_reading(ctx);
  const psgi_diag_list *list = list_of(ctx);
  const psg_diag *d = list && i < list->items.len ? list->items.data[i] : NULL;
  unlock_after_reading(ctx, locked);
  return d;
}

const psg_diag *psg_ctx_get_last_error(const psg_ctx *ctx) {
  bool locked = lock_for_reading(ctx);
  const psg_diag *d = NULL;
  const psgi_diag_list *list = list_of(ctx);
  for (size_t i = list ? list->items.len : 0; i-- > 0 && !d;)
    if (list->items.data[i]->severity == PSG_SEVERITY_ERROR) d = list->items.data[i];
  unlock_after_reading(ctx, locked);
  return d;
}

void psg_ctx_clear_diags(psg_ctx *ctx) {
  pthread_mutex_lock(&ctx->lock);
  if (ctx->diags) {
    for (size_t i = 0; i < ctx->diags->items.len; i++) diag_free(ctx, ctx->diags->items.data[i]);
    __atomic_store_n(&ctx->diags->items.len, 0, __ATOMIC_RELEASE);
    for (size_t i = 0; i < ctx->diags->retired.len; i++) diag_free(ctx, ctx->diags->retired.data[i]);
    ctx->diags->retired.len = 0;
  }
  pthread_mutex_unlock(&ctx->lock);
}

/* Drops the diagnostics recorded since index `from` (a speculative attempt
 * the caller recovers from, such as a default schedule falling back to the
 * naive loop nest). A sink has seen them already, so the context's own are
 * kept aside until psg_ctx_clear_diags; a worker's captured ones (no sink
 * has seen them) are freed now. */
void psgi_diag_truncate(psg_ctx *ctx, size_t from) {
  pthread_mutex_lock(&ctx->lock);
  psgi_diag_list *list = list_of(ctx);
  bool seen = capture.ctx != ctx && ctx->sink;
  if (list && from < list->items.len) {
    for (size_t i = from; i < list->items.len; i++)
      if (!seen || !PSGI_VEC_PUSH(ctx, &list->retired, list->items.data[i])) diag_free(ctx, list->items.data[i]);
    __atomic_store_n(&list->items.len, from, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&ctx->lock);
}

/* Places the unlocated errors recorded since index `from` at file:line:col
 * of `source_line`: a caller that knows where the failing text is (the
 * pipeline parser, for the registry's errors) locates them instead of
 * reporting each one twice. On OOM an error keeps its old rendering. */
void psgi_diag_locate_since(psg_ctx *ctx, size_t from, const char *file, int line, int col,
                            const char *source_line, size_t source_len) {
  pthread_mutex_lock(&ctx->lock);
  psgi_diag_list *list = list_of(ctx);
  for (size_t i = from; list && i < list->items.len; i++) {
    psg_diag *d = list->items.data[i];
    if (d == &nomem_diag || !own(d) || d->file || d->severity != PSG_SEVERITY_ERROR) continue;
    char *old = d->rendered;
    if (!(d->file = psgi_strndup(ctx, file, strlen(file)))) continue;
    d->line = line;
    d->col = col;
    if (render(ctx, d, source_line, source_len)) {
      psgi_free(ctx, old);
    } else {
      psgi_free(ctx, d->file);
      d->file = NULL;
      d->line = d->col = 0;
      d->rendered = old;
    }
  }
  pthread_mutex_unlock(&ctx->lock);
}

/* Replaces the message of diagnostic `i` and drops its location (it pointed
 * into text the caller made, e.g. a `required` spec): a caller that knows
 * more context says it in the one diagnostic instead of adding a second, and
 * psgi_diag_locate_since may then place it. On OOM it stays as it was. */
void psgi_diag_reword(psg_ctx *ctx, size_t i, const char *fmt, ...) {
  psgi_buf mb;
  psgi_buf_init(&mb, ctx);
  va_list ap;
  va_start(ap, fmt);
  psgi_buf_vprintf(&mb, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&ctx->lock);
  psgi_diag_list *list = list_of(ctx);
  psg_diag *d = list && i < list->items.len ? list->items.data[i] : NULL;
  if (d && d != &nomem_diag && own(d) && !mb.failed && mb.data) {
    psg_diag old = *d;
    d->message = mb.data;
    d->file = NULL;
    d->line = d->col = 0;
    if (render(ctx, d, NULL, 0)) {
      psgi_free(ctx, old.message);
      psgi_free(ctx, old.file);
      psgi_free(ctx, old.rendered);
      mb.data = NULL;
    } else {
      *d = old;
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  psgi_buf_fini(&mb);
}

/* Capture (see `capture` above) ------------------------------------------ */

psg_status psgi_diag_capture_begin(psg_ctx *ctx, psgi_diag_list **saved) {
  *saved = capture.ctx == ctx ? capture.list : NULL;
  psgi_diag_list *list = psgi_calloc(ctx, sizeof *list);
  if (!list) return psgi_nomem(ctx);
  capture.ctx = ctx;
  capture.list = list;
  return PSG_OK;
}

psgi_diag_list *psgi_diag_capture_end(psg_ctx *ctx, psgi_diag_list *saved) {
  psgi_diag_list *list = capture.list;
  capture.ctx = saved ? ctx : NULL;
  capture.list = saved;
  return list;
}

void psgi_diag_capture_free(psg_ctx *ctx, psgi_diag_list *list) {
  if (!list) return;
  for (size_t i = 0; i < list->items.len; i++) diag_free(ctx, list->items.data[i]);
  PSGI_VEC_FREE(ctx, &list->items);
  psgi_free(ctx, list);
}

/* Appends the captured records to this thread's list (the context's, or an
 * enclosing capture), as if this thread had just recorded them: it owns
 * them now (notes go to them) and the sink sees them. Frees `list`. */
void psgi_diag_replay(psg_ctx *ctx, psgi_diag_list *list) {
  if (!list) return;
  size_t i = 0;
  for (; i < list->items.len; i++) {
    psg_diag *d = list->items.data[i];
    if (d == &nomem_diag) {
      psgi_nomem(ctx);
      continue;
    }
    d->thread = pthread_self();
    pthread_mutex_lock(&ctx->lock);
    psgi_diag_list *to = list_of(ctx) ? list_of(ctx) : psgi_calloc(ctx, sizeof *ctx->diags);
    if (to && !list_of(ctx)) __atomic_store_n(&ctx->diags, to, __ATOMIC_RELEASE);
    size_t n = to ? to->items.len : 0;
    bool ok = to && PSGI_VEC_RESERVE(ctx, &to->items, n + 1);
    if (ok) {
      to->items.data[n] = d;
      __atomic_store_n(&to->items.len, n + 1, __ATOMIC_RELEASE);
    }
    psg_diag_sink sink = capture.ctx == ctx ? NULL : ctx->sink;
    void *user = ctx->sink_user;
    pthread_mutex_unlock(&ctx->lock);
    if (!ok) {
      diag_free(ctx, d);
      psgi_nomem(ctx);
      continue;
    }
    if (sink) call_sink(sink, user, d);
  }
  PSGI_VEC_FREE(ctx, &list->items);
  psgi_free(ctx, list);
}

/* Called by context destruction (lock not needed: no other user remains). */
void psgi_diag_list_free(psg_ctx *ctx) {
  if (!ctx->diags) return;
  for (size_t i = 0; i < ctx->diags->items.len; i++) diag_free(ctx, ctx->diags->items.data[i]);
  PSGI_VEC_FREE(ctx, &ctx->diags->items);
  for (size_t i = 0; i < ctx->diags->retired.len; i++) diag_free(ctx, ctx->diags->retired.data[i]);
  PSGI_VEC_FREE(ctx, &ctx->diags->retired);
  psgi_free(ctx, ctx->diags);
  ctx->diags = NULL;
}

int psg_diag_severity(const psg_diag *d) { return d->severity; }
psg_status psg_diag_code(const psg_diag *d) { return d->code; }
const char *psg_diag_message(const psg_diag *d) { return d->message; }
const char *psg_diag_file(const psg_diag *d) { return d->file; }
int psg_diag_line(const psg_diag *d) { return d->line; }
int psg_diag_col(const psg_diag *d) { return d->col; }
const char *psg_diag_pass(const psg_diag *d) { return d->pass; }
const char *psg_diag_rendered(const psg_diag *d) { return d->rendered; }
