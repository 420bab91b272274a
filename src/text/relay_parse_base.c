/* Passage — Relay text parser: tokens (advance, expect, located errors with
 * a caret) and name scopes (an undo log over one map). */
#include <stdio.h>
#include "text/relay_parse_internal.h"

/* Tokens ------------------------------------------------------------------- */

void psgi_rp_advance(parser *ps) {
  if (ps->tok.kind == TOK_PUNCT && ps->tok.len == 1) {
    char c = ps->tok.text[0];
    if (c == '(' || c == '[' || c == '{') ps->nest++;
    else if (c == ')' || c == ']' || c == '}') ps->nest--;
  }
  ps->tok = ps->next;
  ps->next = lexer_next(&ps->lx);
}

psg_status psgi_rp_error_at(parser *ps, const token *t, const char *fmt, ...) {
  if (ps->gave_up) return PSG_ERR_PARSE;
  /* A lexer error (unterminated string or comment) ends the token stream;
   * whoever meets it first reports the lexer's message, once. */
  bool lex_error = t->kind == TOK_ERROR;
  if (lex_error && ps->lex_error_reported) return PSG_ERR_PARSE;
  if (++ps->errors > MAX_ERRORS) {
    ps->gave_up = true;
    psgi_diag_add(ps->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, ps->file, t->line, t->col, NULL, 0, NULL,
                  "too many errors (%d), giving up", MAX_ERRORS);
    return PSG_ERR_PARSE;
  }
  char msg[512];
  if (lex_error) {
    ps->lex_error_reported = true;
    snprintf(msg, sizeof msg, "%s", ps->lx.error);
  } else {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
  }
  char line[200];
  size_t n = psgi_diag_clean_line(line, sizeof line, t->line_start, lexer_line_len(&ps->lx, t->line_start));
  psgi_diag_add(ps->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, ps->file, t->line, t->col, line, n, NULL, "%s", msg);
  return PSG_ERR_PARSE;
}

/* "'x'" text of a token for messages. */
const char *psgi_rp_tok_desc(const token *t, char *buf, size_t n) {
  switch (t->kind) {
  case TOK_EOF: return "end of input";
  case TOK_ERROR: return t->len && t->text[0] == '"' ? "an unterminated string" : "an unterminated comment";
  case TOK_BAD:
    if (t->len == 1 && ((unsigned char)t->text[0] < 0x20 || (unsigned char)t->text[0] >= 0x7f))
      snprintf(buf, n, "unexpected byte 0x%02x", (unsigned char)t->text[0]);
    else
      snprintf(buf, n, "unexpected character '%.*s'", (int)t->len, t->text);
    return buf;
  case TOK_LOCAL: snprintf(buf, n, "'%%%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
  case TOK_GLOBAL: snprintf(buf, n, "'@%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
  case TOK_STRING: snprintf(buf, n, "a string"); return buf;
  default: snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->text); return buf;
  }
}

bool psgi_rp_expect(parser *ps, const char *what, const char *context) {
  if (tok_is(&ps->tok, what)) {
    psgi_rp_advance(ps);
    return true;
  }
  char buf[80];
  psgi_rp_error_at(ps, &ps->tok, "expected '%s' %s, found %s", what, context, psgi_rp_tok_desc(&ps->tok, buf, sizeof buf));
  return false;
}

psg_span psgi_rp_span_of(parser *ps, const token *t) {
  psg_span s = {ps->file, t->line, t->col, t->line, t->col + (int)t->len, NULL};
  return s;
}

/* "@T.prim_func" in column 1: a TVMScript block starts (the lexer reads "@T"). */
bool psgi_rp_is_prim_start(const parser *ps, const token *t) {
  static const char rest[] = ".prim_func";
  const size_t n = sizeof rest - 1;
  if (t->kind != TOK_GLOBAL || t->col != 1 || t->len != 1 || t->text[0] != 'T') return false;
  const char *p = t->text + 1, *end = ps->lx.end;
  if ((size_t)(end - p) < n || memcmp(p, rest, n)) return false;
  p += n;
  return p == end || !(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'));
}

/* Where a global definition may start: 'def' or "@T.prim_func" in column 1
 * (recovery after an error stops there). */
bool psgi_rp_at_global_start(const parser *ps) {
  return (tok_is(&ps->tok, "def") && ps->tok.col == 1) || psgi_rp_is_prim_start(ps, &ps->tok);
}

/* Scopes ---------------------------------------------------------------------- */

size_t psgi_rp_scope_mark(parser *ps) { return ps->undo_log.len; }

void psgi_rp_scope_restore(parser *ps, size_t mark) {
  while (ps->undo_log.len > mark) {
    undo u = ps->undo_log.data[--ps->undo_log.len];
    psgi_map_entry *slot = &ps->scope.entries[u.slot];
    binding *cur = slot->value;
    if (cur && cur->expr) psg_expr_release(cur->expr);
    slot->value = u.prev;
  }
}

/* Binds name -> e (e retained; NULL poisons). Redefinition in the same scope
 * (after `mark`) is an error. */
bool psgi_rp_define(parser *ps, const token *name, psg_expr *e, size_t mark, bool allow_shadow) {
  bool is_new;
  psgi_map_entry *slot = psgi_map_put_str(&ps->scope, name->text, name->len, &is_new);
  if (!slot) return psgi_nomem(ps->ctx), false;
  binding *prev = slot->value;
  if (!is_new && prev && !allow_shadow && prev->undo_index >= mark) {
    psgi_rp_error_at(ps, name, "%%%.*s is already defined in this scope", (int)name->len, name->text);
    return false;
  }
  binding *b = psgi_arena_alloc(&ps->arena, sizeof *b);
  undo u = {(size_t)(slot - ps->scope.entries), prev};
  if (!b) return psgi_nomem(ps->ctx), false;
  b->undo_index = ps->undo_log.len;
  if (!PSGI_VEC_PUSH(ps->ctx, &ps->undo_log, u)) return psgi_nomem(ps->ctx), false;
  b->expr = e;
  if (e) psg_expr_retain(e);
  slot->value = b;
  return true;
}

/* Declares a free variable (free_var %x[: T];): visible from here to the end
 * of the text, outside the scopes, as in TVM's parser. A later declaration of
 * the same name replaces it (each def of a printed module declares its own). */
psg_status psgi_rp_define_free(parser *ps, const token *name, psg_expr *var) {
  bool is_new;
  psgi_map_entry *slot = psgi_map_put_str(&ps->free_vars, name->text, name->len, &is_new);
  if (!slot) return psgi_nomem(ps->ctx);
  if (!is_new) psg_expr_release(slot->value);
  psg_expr_retain(var);
  slot->value = var;
  return PSG_OK;
}
