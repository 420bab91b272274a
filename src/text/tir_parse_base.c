/* Passage — TVMScript parser (tir_parse.c): the services every part of
 * the parser uses: tokens, located errors, the scope of names, and the small
 * readers of literals and keywords. */
#include <stdio.h>
#include <stdlib.h>
#include "text/tir_parse_internal.h"

/* Tokens and errors --------------------------------------------------------- */

void psgi_tirp_advance(tparser *ps) {
  ps->tok = ps->next;
  ps->next = ps->env ? psgi_tir_script_env_next(ps->env, &ps->lx, &ps->tok) : tlex_next(&ps->lx);
}

static psg_status verror_at(tparser *ps, const ttoken *t, const char *fmt, va_list ap) {
  if (ps->gave_up) return PSG_ERR_PARSE;
  if (++ps->errors > MAX_ERRORS) {
    ps->gave_up = true;
    psgi_diag_add(ps->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, ps->file, t->line, t->col, NULL, 0, NULL,
                  "too many errors (%d), giving up", MAX_ERRORS);
    return PSG_ERR_PARSE;
  }
  char msg[512];
  if (t->kind == TT_ERROR) snprintf(msg, sizeof msg, "%s", ps->lx.error);
  else vsnprintf(msg, sizeof msg, fmt, ap);
  char line[200];
  size_t n = psgi_diag_clean_line(line, sizeof line, t->line_start, tlex_line_len(&ps->lx, t->line_start));
  psgi_diag_add(ps->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, ps->file, t->line, t->col, line, n, NULL, "%s", msg);
  return PSG_ERR_PARSE;
}

psg_status psgi_tirp_error_at(tparser *ps, const ttoken *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  psg_status st = verror_at(ps, t, fmt, ap);
  va_end(ap);
  return st;
}

static const char *tok_desc(const ttoken *t, char *buf, size_t n) {
  switch (t->kind) {
  case TT_EOF: return "end of input";
  case TT_NEWLINE: return "end of line";
  case TT_INDENT: return "an indented block";
  case TT_DEDENT: return "the end of the block";
  case TT_STRING: snprintf(buf, n, "string \"%.*s\"", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
  case TT_BAD:
    if ((unsigned char)t->text[0] < 0x20 || (unsigned char)t->text[0] >= 0x7f)
      snprintf(buf, n, "unexpected byte 0x%02x", (unsigned char)t->text[0]);
    else
      snprintf(buf, n, "unexpected character '%c'", t->text[0]);
    return buf;
  default: snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
  }
}

psg_status psgi_tirp_expected(tparser *ps, const char *what) {
  char buf[80];
  return psgi_tirp_error_at(ps, &ps->tok, "expected %s, found %s", what, tok_desc(&ps->tok, buf, sizeof buf));
}

bool psgi_tirp_accept(tparser *ps, const char *s) {
  if (!tt_is(&ps->tok, s)) return false;
  psgi_tirp_advance(ps);
  return true;
}

psg_status psgi_tirp_expect(tparser *ps, const char *s) {
  if (psgi_tirp_accept(ps, s)) return PSG_OK;
  char what[32];
  snprintf(what, sizeof what, "'%s'", s);
  return psgi_tirp_expected(ps, what);
}

/* A constructor failed: its diagnostic (no location) gets the token's. */
psg_status psgi_tirp_located(tparser *ps, const ttoken *t, size_t diag_mark, psg_status st) {
  if (!st) return st;
  if (st == PSG_ERR_NOMEM) {
    ps->oom = ps->gave_up = true;
    return st;
  }
  char line[200];
  size_t n = psgi_diag_clean_line(line, sizeof line, t->line_start, tlex_line_len(&ps->lx, t->line_start));
  psgi_diag_locate_since(ps->ctx, diag_mark, ps->file, t->line, t->col, line, n);
  ps->errors++;
  return PSG_ERR_PARSE;
}

/* Scopes --------------------------------------------------------------------- */

static const char *intern_tok(tparser *ps, const ttoken *t) { return psgi_intern(ps->ctx, t->text, t->len); }

tsym *psgi_tirp_lookup(tparser *ps, const char *s, size_t n) {
  psgi_map_entry *e = psgi_map_get_str(&ps->scope, s, n);
  if ((e && e->value) || !ps->env) return e ? e->value : NULL;
  /* a name of the environment becomes a symbol of the current scope */
  bool buf = false;
  psg_tir_node *v = psgi_tir_script_env_node(ps->env, s, n, &buf);
  ttoken t = {.kind = TT_NAME, .text = s, .len = n};
  if (!v || psgi_tirp_define(ps, &t, buf ? SYM_BUFFER : SYM_VAR, v)) return NULL;
  e = psgi_map_get_str(&ps->scope, s, n);
  return e ? e->value : NULL;
}

/* Binds `name` to node (retained by the tparser until the end) in the
 * current scope. */
psg_status psgi_tirp_define(tparser *ps, const ttoken *t, int kind, psg_tir_node *node) {
  const char *name = intern_tok(ps, t);
  tsym *s = psgi_arena_alloc(&ps->arena, sizeof *s);
  psgi_map_entry *e = name && s ? psgi_map_put_str(&ps->scope, name, strlen(name), NULL) : NULL;
  if (!e || !PSGI_VEC_PUSH(ps->ctx, &ps->undo, ((tundo_entry){name, e->value})) ||
      (node && !PSGI_VEC_PUSH(ps->ctx, &ps->owned, node))) {
    psgi_tirp_oom(ps);
    return PSG_ERR_NOMEM;
  }
  if (node) psg_tir_retain(node);
  s->kind = kind;
  s->node = node;
  s->prev = e->value;
  e->value = s;
  return PSG_OK;
}

void psgi_tirp_undo_to(tparser *ps, size_t mark) {
  while (ps->undo.len > mark) {
    tundo_entry u = ps->undo.data[--ps->undo.len];
    psgi_map_entry *e = psgi_map_get_str(&ps->scope, u.name, strlen(u.name));
    if (e) e->value = u.prev;
  }
}

/* Skips to the end of the current line (error recovery). */
void psgi_tirp_skip_line(tparser *ps) {
  while (ps->tok.kind != TT_EOF && ps->tok.kind != TT_NEWLINE) {
    if (ps->tok.kind == TT_INDENT || ps->tok.kind == TT_DEDENT) return;
    psgi_tirp_advance(ps);
  }
  if (ps->tok.kind == TT_NEWLINE) psgi_tirp_advance(ps);
}
void psgi_tirp_release_all(psg_tir_node **v, size_t n) {
  for (size_t i = 0; i < n; i++) psg_tir_release(v[i]);
}
/* Out of memory: recorded once; the parse stops and reports PSG_ERR_NOMEM. */
void psgi_tirp_oom(tparser *ps) {
  if (!ps->oom) psgi_nomem(ps->ctx);
  ps->oom = ps->gave_up = true;
}

/* Appends e to v, or releases it (out of memory). */
bool psgi_tirp_push_node(tparser *ps, tnode_vec *v, psg_tir_node *e) {
  if (PSGI_VEC_PUSH(ps->ctx, v, e)) return true;
  psg_tir_release(e);
  psgi_tirp_oom(ps);
  return false;
}
/* A string literal's bytes with the escapes the printer writes decoded into
 * buf (at most cap bytes); the length. */
/* The text of string token `t` with its escapes resolved, into buf (cap
 * bytes, NUL-terminated: at most cap - 1 characters). A string that does not
 * fit, or that holds a NUL byte (raw or \x00) where a C string is wanted
 * (names, scopes, attribute strings; a StringImm may hold one), is a located
 * error rather than a silently cut
 * name (fuzz_tvmscript found an attribute string cut at its NUL). */
bool psgi_tirp_unescape(tparser *ps, const ttoken *t, char *buf, size_t cap, bool allow_nul, size_t *len) {
  size_t n = 0;
  for (size_t i = 0; i < t->len; i++) {
    char c = t->text[i];
    if (c == '\\' && i + 1 < t->len) {
      char d = t->text[++i];
      if (d == 'n') c = '\n';
      else if (d == 't') c = '\t';
      else if (d == 'x' && i + 2 < t->len) {
        char hex[3] = {t->text[i + 1], t->text[i + 2], 0};
        c = (char)strtol(hex, NULL, 16);
        i += 2;
      } else c = d;
    }
    if (c == 0 && !allow_nul) {
      psgi_tirp_error_at(ps, t, "a string here may not hold a NUL byte");
      return false;
    }
    if (n + 1 >= cap) {
      psgi_tirp_error_at(ps, t, "string longer than %zu bytes", cap - 1);
      return false;
    }
    buf[n++] = c;
  }
  buf[n] = 0;
  *len = n;
  return true;
}

/* A dtype given as a string token ("float32"). */
bool psgi_tirp_string_dtype(tparser *ps, psg_tir_dtype *out) {
  if (ps->tok.kind != TT_STRING || !(*out = psgi_tir_script_dtype_word(ps->tok.text, ps->tok.len))) {
    psgi_tirp_expected(ps, "a dtype string such as \"float32\"");
    return false;
  }
  psgi_tirp_advance(ps);
  return true;
}

bool psgi_tirp_int_literal(tparser *ps, int64_t *out) {
  bool neg = psgi_tirp_accept(ps, "-");
  if (ps->tok.kind != TT_INT || !psgi_text_parse_i64(ps->tok.text, ps->tok.len, out)) {
    psgi_tirp_expected(ps, "an integer");
    return false;
  }
  if (neg) *out = -*out;
  psgi_tirp_advance(ps);
  return true;
}
bool psgi_tirp_kw(tparser *ps, const char *name) {
  if (!tt_is(&ps->tok, name) || !tt_is(&ps->next, "=")) return false;
  psgi_tirp_advance(ps);
  psgi_tirp_advance(ps);
  return true;
}

/* A keyword given twice is an error, as in Python (the first value would
 * otherwise be dropped, and leaked; found by fuzz_tvmscript). `already`
 * says whether the keyword's value is set; the position is the value's. */
bool psgi_tirp_repeated(tparser *ps, bool already, const char *name) {
  if (already) psgi_tirp_error_at(ps, &ps->tok, "keyword argument repeated: %s", name);
  return already;
}
bool psgi_tirp_end_line(tparser *ps) {
  if (ps->tok.kind == TT_NEWLINE) {
    psgi_tirp_advance(ps);
    return true;
  }
  if (ps->tok.kind == TT_EOF || ps->tok.kind == TT_DEDENT) return true;
  psgi_tirp_expected(ps, "end of line");
  psgi_tirp_skip_line(ps);
  return false;
}

void psgi_tirp_name_of(const ttoken *t, char *buf, size_t n) {
  snprintf(buf, n, "%.*s", (int)(t->len < n ? t->len : n - 1), t->text);
}
