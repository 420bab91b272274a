/* Passage — the TVMScript lexer (tir_lex.h). Indentation follows Python:
 * a deeper line opens a block (INDENT), a shallower one closes blocks down
 * to a level seen before (DEDENTs), blank and comment lines do not count,
 * and inside brackets lines continue. Tabs advance to the next multiple of 8. */
#include "text/tir_lex.h"

void tlex_init(tlexer *lx, psg_ctx *ctx, const char *src, size_t len) {
  memset(lx, 0, sizeof *lx);
  lx->ctx = ctx;
  lx->src = src;
  lx->end = src + len;
  lx->s.p = src;
  lx->s.line_start = src;
  lx->s.line = 1;
  lx->s.at_line_start = true;
}

void tlex_fini(tlexer *lx) { PSGI_VEC_FREE(lx->ctx, &lx->indents); }

size_t tlex_line_len(const tlexer *lx, const char *line_start) {
  const char *q = line_start;
  while (q < lx->end && *q != '\n' && *q != '\r') q++;
  return (size_t)(q - line_start);
}

static ttoken make(tlexer *lx, int kind, const char *start, size_t len) {
  ttoken t = {kind, start, len, lx->s.line, (int)(start - lx->s.line_start) + 1, lx->s.line_start};
  return t;
}

static ttoken fail(tlexer *lx, const char *at, const char *msg) {
  lx->error = msg;
  lx->failed = true;
  return make(lx, TT_ERROR, at, 1);
}

static void newline(tlexer *lx) {
  lx->s.line++;
  lx->s.line_start = lx->s.p;
}

static bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool digit(char c) { return c >= '0' && c <= '9'; }

ttoken tlex_next(tlexer *lx) {
  tlex_pos *s = &lx->s;
  if (lx->failed) return make(lx, TT_EOF, lx->end, 0);
  if (s->pending_dedents) {
    s->pending_dedents--;
    return make(lx, TT_DEDENT, s->p, 0);
  }
  for (;;) {
    if (s->at_line_start && s->nest == 0) {
      /* Measure the indentation of the next line that has a token. */
      int col = 0;
      const char *q = s->p;
      while (q < lx->end && (*q == ' ' || *q == '\t' || *q == '\f')) col = *q++ == '\t' ? (col / 8 + 1) * 8 : col + 1;
      if (q < lx->end && (*q == '#' || *q == '\n' || *q == '\r')) {
        while (q < lx->end && *q != '\n') q++;
        if (q < lx->end) q++;
        s->p = q;
        newline(lx);
        continue;
      }
      s->p = q;
      if (q >= lx->end) col = 0;
      int top = lx->indents.len ? lx->indents.data[lx->indents.len - 1] : 0;
      if (col > top) {
        if (!PSGI_VEC_PUSH(lx->ctx, &lx->indents, col)) return fail(lx, q, "out of memory");
        s->at_line_start = false;
        return make(lx, TT_INDENT, q, 0);
      }
      if (col < top) {
        int n = 0;
        while (lx->indents.len && lx->indents.data[lx->indents.len - 1] > col) {
          lx->indents.len--;
          n++;
        }
        int now = lx->indents.len ? lx->indents.data[lx->indents.len - 1] : 0;
        if (now != col) return fail(lx, q, "unindent does not match any outer indentation level");
        s->pending_dedents = n - 1;
        s->at_line_start = false;
        return make(lx, TT_DEDENT, q, 0);
      }
      s->at_line_start = false;
    }
    const char *p = s->p;
    while (p < lx->end && (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\r')) p++;
    if (p < lx->end && *p == '#')
      while (p < lx->end && *p != '\n') p++;
    if (p < lx->end && *p == '\\' && p + 1 < lx->end && p[1] == '\n') {
      s->p = p + 2;
      newline(lx);
      continue;
    }
    s->p = p;
    if (p >= lx->end) {
      if (s->line_has_token) {
        s->line_has_token = false;
        return make(lx, TT_NEWLINE, p, 0);
      }
      if (lx->indents.len) {
        lx->indents.len--;
        return make(lx, TT_DEDENT, p, 0);
      }
      return make(lx, TT_EOF, p, 0);
    }
    if (*p == '\n') {
      s->p = p + 1;
      ttoken t = make(lx, TT_NEWLINE, p, 1);
      newline(lx);
      if (s->nest > 0) continue;
      s->at_line_start = true;
      if (!s->line_has_token) continue;
      s->line_has_token = false;
      return t;
    }
    break;
  }
  const char *p = s->p, *start = p;
  s->line_has_token = true;
  if (ident_start(*p)) {
    while (p < lx->end && (ident_start(*p) || digit(*p))) p++;
    s->p = p;
    return make(lx, TT_NAME, start, (size_t)(p - start));
  }
  if (digit(*p) || (*p == '.' && p + 1 < lx->end && digit(p[1]))) {
    bool is_float = false;
    while (p < lx->end && digit(*p)) p++;
    if (p < lx->end && *p == '.') {
      is_float = true;
      p++;
      while (p < lx->end && digit(*p)) p++;
    }
    if (p < lx->end && (*p == 'e' || *p == 'E')) {
      const char *q = p + 1;
      if (q < lx->end && (*q == '+' || *q == '-')) q++;
      if (q < lx->end && digit(*q)) {
        is_float = true;
        p = q;
        while (p < lx->end && digit(*p)) p++;
      }
    }
    s->p = p;
    return make(lx, is_float ? TT_FLOAT : TT_INT, start, (size_t)(p - start));
  }
  if (*p == '"' || *p == '\'') {
    char q = *p++;
    while (p < lx->end && *p != q && *p != '\n') p += (*p == '\\' && p + 1 < lx->end && p[1] != '\n') ? 2 : 1;
    if (p >= lx->end || *p != q) return fail(lx, start, "unterminated string");
    s->p = p + 1;
    return make(lx, TT_STRING, start + 1, (size_t)(p - start - 1));
  }
  static const char *const two[] = {"**", "//", "==", "!=", "<=", ">=", "->", "<<", ">>"};
  if (p + 1 < lx->end)
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
      if (p[0] == two[i][0] && p[1] == two[i][1]) {
        s->p = p + 2;
        return make(lx, TT_OP, start, 2);
      }
  if (strchr("()[]{},:.;=+-*/%<>@~&|^!", *p) && *p) {
    if (*p == '(' || *p == '[' || *p == '{') s->nest++;
    if ((*p == ')' || *p == ']' || *p == '}') && s->nest > 0) s->nest--;
    s->p = p + 1;
    return make(lx, TT_OP, start, 1);
  }
  s->p = p + 1;
  return make(lx, TT_BAD, start, 1);
}
