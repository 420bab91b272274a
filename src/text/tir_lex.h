/* Passage — tokens of TVMScript (Python's lexical structure, the subset TIR
 * text uses): names, numbers, strings, operators, and NEWLINE / INDENT /
 * DEDENT from indentation outside brackets. Works in place over the source. */
#ifndef PSG_TIR_LEX_H
#define PSG_TIR_LEX_H

#include "support/support.h"

enum {
  TT_EOF = 0,
  TT_NAME,
  TT_INT,
  TT_FLOAT,
  TT_STRING, /* text excludes the quotes; escapes kept */
  TT_OP,     /* ( ) [ ] { } , : . = + - * / // % == != < <= > >= -> @ ** ... */
  TT_NEWLINE,
  TT_INDENT,
  TT_DEDENT,
  TT_BAD,   /* a character that starts no token */
  TT_ERROR  /* unterminated string, bad dedent: the stream ends; message in lexer */
};

typedef struct ttoken {
  int kind;
  const char *text;
  size_t len;
  int line, col;
  const char *line_start;
} ttoken;

/* The state a parser may save and restore inside brackets (no indentation
 * change can happen there). */
typedef struct tlex_pos {
  const char *p, *line_start;
  int line, nest, pending_dedents;
  bool at_line_start, line_has_token;
} tlex_pos;

typedef struct tlexer {
  psg_ctx *ctx;
  const char *src, *end;
  tlex_pos s;
  PSGI_VEC(int) indents;
  const char *error;
  bool failed; /* after TT_ERROR: only TT_EOF follows */
} tlexer;

void tlex_init(tlexer *lx, psg_ctx *ctx, const char *src, size_t len);
void tlex_fini(tlexer *lx);
ttoken tlex_next(tlexer *lx);
size_t tlex_line_len(const tlexer *lx, const char *line_start);

static inline bool tt_is(const ttoken *t, const char *s) {
  size_t n = strlen(s);
  return (t->kind == TT_OP || t->kind == TT_NAME) && t->len == n && !memcmp(t->text, s, n);
}

#endif
