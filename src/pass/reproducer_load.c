/* Passage — reading a reproducer back (psg_reproducer_load, docs/pass-infra.md
 * "Reproducers"): the `// key: value` lines reproducer.c writes rebuild the
 * PassContext and give the pipeline text; the whole file, comments and all,
 * is the module's text, so its diagnostics point at lines of the file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "pass/pass_internal.h"
#include "passage/text.h"

/* The value of a "// key: value" line at `line` (len bytes), or NULL. */
static const char *line_value(const char *line, size_t len, const char *key, size_t *vlen) {
  size_t k = strlen(key);
  if (len < 3 + k + 2 || strncmp(line, "// ", 3) || strncmp(line + 3, key, k) || strncmp(line + 3 + k, ": ", 2))
    return NULL;
  *vlen = len - (3 + k + 2);
  return line + 3 + k + 2;
}

static psg_status apply_line(psg_pass_context *pc, const char *path, int lineno, const char *line, size_t len,
                             char **pipeline) {
  psg_ctx *ctx = pc->ctx;
  char buf[4096];
  size_t n = 0;
  const char *v;
  psg_status st = PSG_OK;
  if ((v = line_value(line, len, "pipeline", &n)) != NULL) {
    free(*pipeline);
    if (!(*pipeline = strndup(v, n))) return psgi_nomem(ctx);
    return PSG_OK;
  }
  const char *keys[] = {"opt-level", "required-pass", "disabled-pass", "config"};
  int which = -1;
  for (int i = 0; i < 4 && which < 0; i++)
    if ((v = line_value(line, len, keys[i], &n)) != NULL) which = i;
  if (which < 0) return PSG_OK; /* another comment ("failed-pass", "crashed") */
  if (n >= sizeof buf)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, path, lineno, 1, NULL, 0, NULL,
                         "reproducer line too long");
  memcpy(buf, v, n);
  buf[n] = 0;
  switch (which) {
  case 0: {
    char *end = NULL;
    long lvl = strtol(buf, &end, 10);
    st = end && !*end && end != buf ? psg_pass_context_set_opt_level(pc, (int)lvl)
                                    : psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, path, lineno, 14, NULL, 0,
                                                    NULL, "reproducer: opt level '%s' is not a number", buf);
    break;
  }
  case 1: st = psg_pass_context_add_required_pass(pc, buf); break;
  case 2: st = psg_pass_context_add_disabled_pass(pc, buf); break;
  case 3: st = psg_pass_context_set_config_text(pc, buf); break;
  }
  if (st) psgi_diag_note(ctx, "at %s:%d", path, lineno);
  return st;
}

psg_status psg_reproducer_load(psg_ctx *ctx, const char *path, psg_pass_context **pc_out, char **pipeline,
                               psg_module **mod) {
  *pc_out = NULL;
  *pipeline = NULL;
  *mod = NULL;
  if (!path) return PSG_ERR_INVALID_ARGUMENT;
  FILE *f = fopen(path, "rb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot read reproducer %s: %s", path, strerror(errno));
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  char chunk[1 << 14];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) psgi_buf_append(&b, chunk, got);
  fclose(f);
  if (b.failed) {
    psgi_buf_fini(&b);
    return psgi_nomem(ctx);
  }
  psg_pass_context *pc = NULL;
  char *text_pipeline = NULL;
  psg_status st = psg_pass_context_create(ctx, &pc);
  /* The header: the comment lines at the top. */
  const char *p = b.data ? b.data : "", *end = p + b.len;
  for (int lineno = 1; !st && p < end; lineno++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (len < 2 || strncmp(p, "//", 2)) break;
    st = apply_line(pc, path, lineno, p, len, &text_pipeline);
    p += len + (nl ? 1 : 0);
  }
  if (!st && !text_pipeline)
    st = psg_ctx_fail(ctx, PSG_ERR_PARSE, "%s is not a reproducer: it has no '// pipeline:' line", path);
  if (!st) st = psg_module_parse(ctx, b.data, b.len, path, mod);
  psgi_buf_fini(&b);
  if (st) {
    psg_pass_context_release(pc);
    free(text_pipeline);
    return st;
  }
  *pc_out = pc;
  *pipeline = text_pipeline;
  return PSG_OK;
}
