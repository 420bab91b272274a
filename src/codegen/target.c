/* Passage — parsing and printing the compile Target string (target.h). Like
 * TVM's Target("c -mcpu=... -num-threads=..."): a kind first, then -key=value
 * options; an unknown kind or key, a bad value or a repeated key is an
 * error located at its column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codegen/target.h"
#include "support/support.h"

static const char *const KEYS[] = {"-mcpu", "-num-threads", "-vector-ext", "-link-params"};
enum { KEY_MCPU, KEY_THREADS, KEY_VECTOR, KEY_LINK, NUM_KEYS };

static psg_status fail_at(psg_ctx *ctx, const char *text, size_t col, const char *fmt, const char *arg) {
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, "target", 1, (int)col + 1, text,
                       strlen(text), NULL, fmt, arg);
}

/* 0 or 1 (also "false"/"true"); -1 when neither. */
static int parse_bool(const char *v, size_t n) {
  if ((n == 1 && v[0] == '1') || (n == 4 && !strncmp(v, "true", 4))) return 1;
  if ((n == 1 && v[0] == '0') || (n == 5 && !strncmp(v, "false", 5))) return 0;
  return -1;
}

psg_status psgi_target_parse(psg_ctx *ctx, const char *text, psgi_target *out) {
  memset(out, 0, sizeof *out);
  strcpy(out->mcpu, "native");
  out->num_threads = 1;
  out->vector_ext = true;
  out->link_params = true;
  if (!text) text = "";
  bool seen[NUM_KEYS] = {false};
  size_t i = 0, ntok = 0;
  for (;;) {
    while (text[i] == ' ' || text[i] == '\t') i++;
    if (!text[i]) break;
    size_t start = i;
    while (text[i] && text[i] != ' ' && text[i] != '\t') i++;
    char tok[128];
    size_t len = i - start;
    if (len >= sizeof tok) return fail_at(ctx, text, start, "target option too long: '%s'", "...");
    memcpy(tok, text + start, len);
    tok[len] = 0;
    if (ntok++ == 0) {
      if (strcmp(tok, "c"))
        return fail_at(ctx, text, start, "unknown target kind '%s' (the only kind is 'c')", tok);
      continue;
    }
    char *eq = strchr(tok, '=');
    size_t klen = eq ? (size_t)(eq - tok) : len;
    int key = -1;
    for (int k = 0; k < NUM_KEYS; k++)
      if (strlen(KEYS[k]) == klen && !strncmp(tok, KEYS[k], klen)) key = k;
    if (key < 0) {
      if (eq) *eq = 0;
      return fail_at(ctx, text, start,
                     "unknown target option '%s' (known: -mcpu, -num-threads, -vector-ext, -link-params)", tok);
    }
    if (seen[key]) return fail_at(ctx, text, start, "target option '%s' given twice", KEYS[key]);
    seen[key] = true;
    if (!eq || !eq[1]) return fail_at(ctx, text, start, "target option '%s' needs a value (-key=value)", KEYS[key]);
    const char *v = eq + 1;
    size_t vcol = start + klen + 1, vlen = strlen(v);
    switch (key) {
    case KEY_MCPU:
      for (size_t j = 0; j < vlen; j++)
        if (!(v[j] == '-' || v[j] == '_' || v[j] == '.' || (v[j] >= '0' && v[j] <= '9') ||
              (v[j] >= 'a' && v[j] <= 'z') || (v[j] >= 'A' && v[j] <= 'Z')))
          return fail_at(ctx, text, vcol + j, "-mcpu takes a CPU name (letters, digits, '-', '_', '.'), not '%s'", v);
      if (vlen >= sizeof out->mcpu) return fail_at(ctx, text, vcol, "-mcpu value too long: '%s'", v);
      memcpy(out->mcpu, v, vlen + 1);
      break;
    case KEY_THREADS: {
      char *end;
      long n = strtol(v, &end, 10);
      if (*end || n < 1 || n > 1024)
        return fail_at(ctx, text, vcol, "-num-threads takes an integer from 1 to 1024, not '%s'", v);
      out->num_threads = (int)n;
      break;
    }
    case KEY_VECTOR:
    case KEY_LINK: {
      int b = parse_bool(v, vlen);
      if (b < 0) return fail_at(ctx, text, vcol, "expected 0 or 1, not '%s'", v);
      if (key == KEY_VECTOR) out->vector_ext = b;
      else out->link_params = b;
      break;
    }
    }
  }
  return PSG_OK;
}

void psgi_target_print(const psgi_target *t, char *buf, size_t size) {
  snprintf(buf, size, "c -mcpu=%s -num-threads=%d -vector-ext=%d -link-params=%d", t->mcpu, t->num_threads,
           t->vector_ext ? 1 : 0, t->link_params ? 1 : 0);
}
