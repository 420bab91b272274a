/* Passage — writing a compiled model out (passage/compile.h): the C file,
 * header and params file, and a shared library built by the system C
 * compiler, whose first error is reported with the generated line it
 * points at. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "codegen/target.h"
#include "passage/compile.h"
#include "support/support.h"

static psg_status write_file(psg_ctx *ctx, const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  bool ok = fwrite(data, 1, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  return ok ? PSG_OK : psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

/* `path` with `ext` (".c", ".so") replaced by `with`, or `with` appended. */
static char *sibling(psg_ctx *ctx, const char *path, const char *ext, const char *with) {
  size_t n = strlen(path), e = strlen(ext);
  if (n > e && !strcmp(path + n - e, ext)) n -= e;
  char *s = psgi_alloc(ctx, n + strlen(with) + 1);
  if (!s) return NULL;
  memcpy(s, path, n);
  strcpy(s + n, with);
  return s;
}

static psg_status write_params(psg_ctx *ctx, const psg_compile_output *c, const char *base, const char *ext,
                               const char *params_path) {
  uint64_t bytes;
  const void *params = psg_compile_output_params(c, &bytes);
  if (!params) return PSG_OK;
  char *path = params_path ? NULL : sibling(ctx, base, ext, ".bin");
  if (!params_path && !path) return psgi_nomem(ctx);
  psg_status st = write_file(ctx, params_path ? params_path : path, params, (size_t)bytes);
  psgi_free(ctx, path);
  return st;
}

psg_status psg_compile_output_write_c(psg_ctx *ctx, const psg_compile_output *c, const char *c_path, const char *params_path) {
  const char *src = psg_compile_output_source(c), *hdr = psg_compile_output_header(c);
  char *h_path = sibling(ctx, c_path, ".c", ".h");
  if (!h_path) return psgi_nomem(ctx);
  psg_status st = write_file(ctx, c_path, src, strlen(src));
  if (!st) st = write_file(ctx, h_path, hdr, strlen(hdr));
  if (!st) st = write_params(ctx, c, c_path, ".c", params_path);
  psgi_free(ctx, h_path);
  return st;
}

/* Appends `s` to the command in single quotes. */
static void put_quoted(psgi_buf *b, const char *s) {
  psgi_buf_putc(b, '\'');
  for (; *s; s++) {
    if (*s == '\'') psgi_buf_puts(b, "'\\''");
    else psgi_buf_putc(b, *s);
  }
  psgi_buf_putc(b, '\'');
}

/* Line `line` (1-based) of `text`, at most 300 characters, into buf. */
static void line_of(const char *text, long line, char *buf, size_t size) {
  buf[0] = 0;
  for (long l = 1; l < line && text; l++) {
    text = strchr(text, '\n');
    if (text) text++;
  }
  if (!text) return;
  size_t n = strcspn(text, "\n");
  if (n >= size) n = size - 1;
  memcpy(buf, text, n);
  buf[n] = 0;
}

/* The compiler's first "FILE:LINE:COL: error" line for our file, and the
 * generated line it names. */
static psg_status report_cc_error(psg_ctx *ctx, const char *out, const char *c_file, const char *source, int code) {
  const char *e = out;
  size_t fl = strlen(c_file);
  long line = 0;
  const char *first = NULL;
  while ((e = strstr(e, c_file)) != NULL) {
    const char *q = e + fl;
    if (*q == ':' && q[1] >= '0' && q[1] <= '9') {
      char *end;
      long l = strtol(q + 1, &end, 10);
      const char *eol = strchr(end, '\n');
      const char *err = strstr(end, "error");
      if (err && (!eol || err < eol)) {
        line = l;
        first = e;
        break;
      }
    }
    e = q;
  }
  if (!first) {
    size_t n = strlen(out);
    return psg_ctx_fail(ctx, PSG_ERR_IO, "the C compiler failed (exit %d):\n%.*s", code, (int)(n > 4000 ? 4000 : n), out);
  }
  char gen[320];
  line_of(source, line, gen, sizeof gen);
  size_t n = strcspn(first, "\n");
  return psg_ctx_fail(ctx, PSG_ERR_IO, "the C compiler failed (exit %d): %.*s\n  generated line %ld: %s", code, (int)n,
                      first, line, gen);
}

psg_status psg_compile_shared(psg_ctx *ctx, const psg_compile_output *c, const char *so_path, const char *params_path,
                              uint64_t *cc_us) {
  if (cc_us) *cc_us = 0;
  psgi_target t;
  psg_status st = psgi_target_parse(ctx, psg_compile_output_target(c), &t);
  if (st) return st;
  const char *tmpdir = getenv("TMPDIR");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/passage-compile-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot make a temporary directory in %s: %s", dir, strerror(errno));
  char c_file[600];
  snprintf(c_file, sizeof c_file, "%s/model.c", dir);
  const char *source = psg_compile_output_source(c);
  st = write_file(ctx, c_file, source, strlen(source));
  psgi_buf cmd, out;
  psgi_buf_init(&cmd, ctx);
  psgi_buf_init(&out, ctx);
  if (!st) {
    const char *cc = getenv("CC");
    psgi_buf_puts(&cmd, cc && *cc ? cc : "cc");
    psgi_buf_printf(&cmd, " -std=c99 -O3 -ffp-contract=fast -march=%s -fPIC -shared -DPASSAGE_MODEL_ENTRY%s -o ", t.mcpu,
                    t.num_threads > 1 ? " -fopenmp" : "");
    put_quoted(&cmd, so_path);
    psgi_buf_putc(&cmd, ' ');
    put_quoted(&cmd, c_file);
    psgi_buf_puts(&cmd, " -lm 2>&1");
    psgi_buf_putc(&cmd, 0);
    if (cmd.failed) st = psgi_nomem(ctx);
  }
  if (!st) {
    uint64_t t0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    FILE *pipe = popen(cmd.data, "r");
    if (!pipe) {
      st = psg_ctx_fail(ctx, PSG_ERR_IO, "cannot run the C compiler (%s): %s", cmd.data, strerror(errno));
    } else {
      char chunk[4096];
      size_t n;
      while ((n = fread(chunk, 1, sizeof chunk, pipe)) > 0) psgi_buf_append(&out, chunk, n);
      int rc = pclose(pipe);
      clock_gettime(CLOCK_MONOTONIC, &ts);
      if (cc_us) *cc_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u - t0;
      psgi_buf_putc(&out, 0);
      int code = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
      if (out.failed) st = psgi_nomem(ctx);
      else if (code) st = report_cc_error(ctx, out.data, c_file, source, code);
    }
  }
  remove(c_file);
  rmdir(dir);
  psgi_buf_fini(&cmd);
  psgi_buf_fini(&out);
  if (!st) st = write_params(ctx, c, so_path, ".so", params_path);
  return st;
}
