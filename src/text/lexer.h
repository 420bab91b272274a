/* Passage — tokens of TVM's Relay text format (docs/text-format.md). The
 * lexer works in place over the source buffer: tokens point into it. */
#ifndef PSG_TEXT_LEXER_H
#define PSG_TEXT_LEXER_H

#include <stddef.h>
#include <stdint.h>

enum {
  TOK_EOF = 0,
  TOK_IDENT,   /* def, fn, nn.conv2d, float32, True, ... */
  TOK_LOCAL,   /* %x, %0 (text excludes the %) */
  TOK_GLOBAL,  /* @main (text excludes the @) */
  TOK_INT,     /* 3, -2, --2, 2i64, 3u8 (text is the whole literal) */
  TOK_FLOAT,   /* 1.5, 1f, 1e-05f, 2f16 */
  TOK_STRING,  /* "NCHW" (text excludes the quotes; escapes kept) */
  TOK_PUNCT,   /* one of ( ) [ ] { } , ; : = . # ? "->", and the infix
                  operators + - * / < > <= >= == != */
  TOK_BAD,     /* a character that starts no token; text is it */
  TOK_ERROR    /* an unterminated string or comment: the token stream ends */
};

typedef struct token {
  int kind;
  const char *text;
  size_t len;
  int line, col;
  const char *line_start; /* for carets in diagnostics */
} token;

typedef struct lexer {
  const char *src, *end, *p;
  const char *line_start;
  int line;
  const char *error; /* set for an unterminated string or comment */
  /* Where that string or comment starts: the error token points there. */
  const char *error_at, *error_line_start;
  int error_line;
} lexer;

void lexer_init(lexer *lx, const char *src, size_t len);
/* The next token; comments and whitespace are skipped. */
token lexer_next(lexer *lx);
/* The length of the source line starting at `line_start`. */
size_t lexer_line_len(const lexer *lx, const char *line_start);

static inline int tok_is(const token *t, const char *punct_or_word) {
  size_t n = 0;
  while (punct_or_word[n]) n++;
  return (t->kind == TOK_PUNCT || t->kind == TOK_IDENT) && t->len == n &&
         __builtin_memcmp(t->text, punct_or_word, n) == 0;
}

#endif
