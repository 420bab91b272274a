/* Passage — the lexer of the Relay text format: one pass over the buffer,
 * no allocation, line/column tracking for diagnostics. */
#include <string.h>
#include "text/lexer.h"

void lexer_init(lexer *lx, const char *src, size_t len) {
  lx->src = lx->p = src;
  lx->end = src + len;
  lx->line_start = src;
  lx->line = 1;
  lx->error = NULL;
  lx->error_at = lx->error_line_start = NULL;
  lx->error_line = 0;
}

size_t lexer_line_len(const lexer *lx, const char *line_start) {
  const char *q = line_start;
  while (q < lx->end && *q != '\n' && *q != '\r') q++;
  return (size_t)(q - line_start);
}

static int is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident_char(int c) { return is_ident_start(c) || is_digit(c) || c == '.'; }
/* %x and @f names have no dots, so `%t.0` is a projection of %t. */
static int is_name_char(int c) { return is_ident_start(c) || is_digit(c); }
/* After its first character a name may hold '/' (TVM's tokenizer: `%base/x`,
 * names from frameworks' scopes), unless a comment starts there. */
static int continues_name(const char *p, const char *end) {
  if (is_name_char(*p)) return 1;
  return *p == '/' && !(p + 1 < end && (p[1] == '/' || p[1] == '*'));
}

/* `inff` at p, not the start of a longer identifier: TVM's float32
 * infinity literal (the printer writes infinite float attributes so). */
static int is_inff(const char *p, const char *end) {
  return end - p >= 4 && memcmp(p, "inff", 4) == 0 && !(end - p > 4 && is_ident_char(p[4]));
}

/* '-'+ followed by a digit or `inff`: a (possibly multiply negated) number. */
static int dashes_then_digit(const char *p, const char *end) {
  while (p < end && *p == '-') p++;
  return p < end && (is_digit(*p) || is_inff(p, end));
}

static void newline(lexer *lx) {
  lx->line++;
  lx->line_start = lx->p;
}

static void skip_space_and_comments(lexer *lx) {
  while (lx->p < lx->end) {
    char c = *lx->p;
    if (c == '\n') {
      lx->p++;
      newline(lx);
    } else if (c == ' ' || c == '\t' || c == '\r') {
      lx->p++;
    } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
      while (lx->p < lx->end && *lx->p != '\n') lx->p++;
    } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
      /* Block comments nest, as in TVM's tokenizer: each inner open
       * needs its own close. */
      const char *start = lx->p, *start_line = lx->line_start;
      int line = lx->line, depth = 1;
      lx->p += 2;
      while (lx->p < lx->end) {
        if (*lx->p == '*' && lx->p + 1 < lx->end && lx->p[1] == '/') {
          lx->p += 2;
          if (--depth == 0) break;
        } else if (*lx->p == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
          lx->p += 2;
          depth++;
        } else if (*lx->p == '\n') {
          lx->p++;
          newline(lx);
        } else {
          lx->p++;
        }
      }
      if (depth > 0) {
        lx->error = "unterminated /* comment";
        lx->error_at = start;
        lx->error_line_start = start_line;
        lx->error_line = line;
        return;
      }
    } else {
      return;
    }
  }
}

/* A number: -*digits[.digits][e[+-]digits] then an optional dtype suffix
 * (f, f16, f32, f64, i8..i64, u8..u64). Several leading minus signs negate
 * in turn, as TVM's tokenizer reads them ("--10" is 10). */
static int lex_number(lexer *lx) {
  const char *p = lx->p;
  int is_float = 0;
  while (p < lx->end && *p == '-') p++;
  if (is_inff(p, lx->end)) {
    lx->p = p + 4;
    return TOK_FLOAT;
  }
  while (p < lx->end && is_digit(*p)) p++;
  if (p < lx->end && *p == '.' && p + 1 < lx->end && is_digit(p[1])) {
    is_float = 1;
    p++;
    while (p < lx->end && is_digit(*p)) p++;
  }
  if (p < lx->end && (*p == 'e' || *p == 'E')) {
    const char *q = p + 1;
    if (q < lx->end && (*q == '+' || *q == '-')) q++;
    if (q < lx->end && is_digit(*q)) {
      is_float = 1;
      p = q;
      while (p < lx->end && is_digit(*p)) p++;
    }
  }
  if (p < lx->end && (*p == 'f' || *p == 'i' || *p == 'u')) {
    if (*p == 'f') is_float = 1;
    p++;
    while (p < lx->end && is_digit(*p)) p++;
  }
  lx->p = p;
  return is_float ? TOK_FLOAT : TOK_INT;
}

token lexer_next(lexer *lx) {
  skip_space_and_comments(lx);
  token t;
  t.line = lx->line;
  t.col = (int)(lx->p - lx->line_start) + 1;
  t.line_start = lx->line_start;
  t.text = lx->p;
  if (lx->error || lx->p >= lx->end) {
    t.kind = lx->error ? TOK_ERROR : TOK_EOF;
    t.len = 0;
    if (lx->error && lx->error_at) {
      t.text = lx->error_at;
      t.line = lx->error_line;
      t.line_start = lx->error_line_start;
      t.col = (int)(lx->error_at - lx->error_line_start) + 1;
    }
    return t;
  }
  char c = *lx->p;
  if (is_inff(lx->p, lx->end)) {
    t.kind = lex_number(lx);
  } else if (is_ident_start(c)) {
    while (lx->p < lx->end && is_ident_char(*lx->p)) lx->p++;
    t.kind = TOK_IDENT;
  } else if ((c == '%' || c == '@') && lx->p + 1 < lx->end && is_name_char(lx->p[1])) {
    lx->p++;
    t.text = lx->p;
    lx->p++;
    while (lx->p < lx->end && continues_name(lx->p, lx->end)) lx->p++;
    t.kind = c == '%' ? TOK_LOCAL : TOK_GLOBAL;
  } else if (is_digit(c) || (c == '-' && dashes_then_digit(lx->p, lx->end))) {
    t.kind = lex_number(lx);
  } else if (c == '"') {
    lx->p++;
    t.text = lx->p;
    while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
      if (*lx->p == '\\' && lx->p + 1 < lx->end) lx->p++;
      lx->p++;
    }
    if (lx->p >= lx->end || *lx->p != '"') {
      t.kind = TOK_ERROR;
      t.text--; /* from the opening quote */
      t.len = (size_t)(lx->p - t.text);
      lx->error = "unterminated string";
      return t;
    }
    t.kind = TOK_STRING;
    t.len = (size_t)(lx->p - t.text);
    lx->p++;
    return t;
  } else if ((c == '-' || c == '=') && lx->p + 1 < lx->end && lx->p[1] == '>') {
    /* -> and a match clause's => */
    lx->p += 2;
    t.kind = TOK_PUNCT;
  } else if ((c == '=' || c == '!' || c == '<' || c == '>') && lx->p + 1 < lx->end && lx->p[1] == '=') {
    lx->p += 2; /* == != <= >= */
    t.kind = TOK_PUNCT;
  } else if (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == ',' || c == ';' ||
             c == ':' || c == '=' || c == '.' || c == '#' || c == '?' || c == '+' || c == '-' || c == '*' ||
             c == '/' || c == '<' || c == '>') {
    lx->p++;
    t.kind = TOK_PUNCT;
  } else {
    /* One (possibly multi-byte) character that starts no token. */
    lx->p++;
    while (lx->p < lx->end && ((unsigned char)*lx->p & 0xC0) == 0x80) lx->p++;
    t.kind = TOK_BAD;
  }
  t.len = (size_t)(lx->p - t.text);
  return t;
}
