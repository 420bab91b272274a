/* Passage — parser of TVM's Relay text format (docs/text-format.md): a
 * recursive-descent parser over the lexer's tokens. Statements of a block and
 * let chains are loops; only the nesting of expressions, fn and if blocks
 * recurses, capped at MAX_DEPTH levels. Errors are file:line:col diagnostics
 * with a caret; the parser resynchronizes at the next statement and stops
 * after MAX_ERRORS. Checks: names are defined, ops and attributes exist,
 * argument counts fit, global functions exist and are defined once. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ir/op_table.h"
#include "passage/tvmscript.h"
#include "text/lexer.h"
#include "text/text_internal.h"
#include "tir/tir_internal.h"

enum { MAX_DEPTH = 256, MAX_ERRORS = 20 };

/* A name in scope: a local (%x) bound to an expression. Scopes are undone by
 * replaying an undo log. The log keeps entry indexes, not pointers: the map's
 * dense entry array moves when it grows. */
typedef struct binding {
  psg_expr *expr;     /* NULL: poisoned by an earlier error (uses stay silent) */
  size_t undo_index;  /* its position in the undo log: >= a scope's mark means
                         "defined in that scope", an O(1) redefinition check */
} binding;

typedef struct undo {
  size_t slot; /* index into scope.entries */
  binding *prev;
} undo;

/* A PrimFunc of a mixed text: a TVMScript block the Relay lexer skips. */
typedef struct prim_block {
  const char *start, *end; /* its "@T.prim_func" line .. the end of its last line */
  size_t def_index;        /* its entry in the module's defs */
  token at;                /* the decorator, for errors */
} prim_block;

typedef PSGI_VEC(psgi_module_entry) entry_vec;

/* A type parameter in scope (`def @f[A]`, `fn [A]`, `fn [A](A) -> A`). */
typedef struct type_binding {
  const char *name; /* in the source */
  size_t len;
  const psg_type *tv;
} type_binding;

typedef struct parser {
  psg_ctx *ctx;
  const char *file;
  const char *src;
  lexer lx;
  token tok, next; /* current and one-token lookahead */
  int depth;
  int nest; /* brackets opened and not closed among consumed tokens */
  int errors;
  bool gave_up;
  bool lex_error_reported;
  psgi_map scope;  /* name (in source) -> binding* */
  psgi_map free_vars; /* name -> Var (retained): `free_var %x: T;` */
  PSGI_VEC(type_binding) tyscope; /* type parameters in scope, innermost last */
  PSGI_VEC(undo) undo_log;
  psgi_arena arena;
  psgi_map globals; /* name -> GlobalVar (one node per name, shared) */
  PSGI_VEC(token) global_uses;
  psgi_tensor_vec meta;
  PSGI_VEC(prim_block) prims;
} parser;

/* Tokens ------------------------------------------------------------------- */

static void advance(parser *ps) {
  if (ps->tok.kind == TOK_PUNCT && ps->tok.len == 1) {
    char c = ps->tok.text[0];
    if (c == '(' || c == '[' || c == '{') ps->nest++;
    else if (c == ')' || c == ']' || c == '}') ps->nest--;
  }
  ps->tok = ps->next;
  ps->next = lexer_next(&ps->lx);
}

static psg_status error_at(parser *ps, const token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static psg_status error_at(parser *ps, const token *t, const char *fmt, ...) {
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
  /* The echoed source line: control bytes (NUL, escapes) become '?', so
   * binary input cannot cut the diagnostic short or drive the terminal. */
  char line[200];
  size_t n = lexer_line_len(&ps->lx, t->line_start);
  if (n > sizeof line) n = sizeof line;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t->line_start[i];
    line[i] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  psgi_diag_add(ps->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, ps->file, t->line, t->col, line, n, NULL, "%s", msg);
  return PSG_ERR_PARSE;
}

/* "'x'" text of a token for messages. */
static const char *tok_desc(const token *t, char *buf, size_t n) {
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

static bool expect(parser *ps, const char *what, const char *context) {
  if (tok_is(&ps->tok, what)) {
    advance(ps);
    return true;
  }
  char buf[80];
  error_at(ps, &ps->tok, "expected '%s' %s, found %s", what, context, tok_desc(&ps->tok, buf, sizeof buf));
  return false;
}

static psg_span span_of(parser *ps, const token *t) {
  psg_span s = {ps->file, t->line, t->col, t->line, t->col + (int)t->len, NULL};
  return s;
}

/* "@T.prim_func" in column 1: a TVMScript block starts (the lexer reads "@T"). */
static bool is_prim_start(const parser *ps, const token *t) {
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
static bool at_global_start(const parser *ps) {
  return (tok_is(&ps->tok, "def") && ps->tok.col == 1) || is_prim_start(ps, &ps->tok);
}

/* Scopes ---------------------------------------------------------------------- */

static size_t scope_mark(parser *ps) { return ps->undo_log.len; }

static void scope_restore(parser *ps, size_t mark) {
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
static bool define(parser *ps, const token *name, psg_expr *e, size_t mark, bool allow_shadow) {
  bool is_new;
  psgi_map_entry *slot = psgi_map_put_str(&ps->scope, name->text, name->len, &is_new);
  if (!slot) return psgi_nomem(ps->ctx), false;
  binding *prev = slot->value;
  if (!is_new && prev && !allow_shadow && prev->undo_index >= mark) {
    error_at(ps, name, "%%%.*s is already defined in this scope", (int)name->len, name->text);
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
static psg_status define_free(parser *ps, const token *name, psg_expr *var) {
  bool is_new;
  psgi_map_entry *slot = psgi_map_put_str(&ps->free_vars, name->text, name->len, &is_new);
  if (!slot) return psgi_nomem(ps->ctx);
  if (!is_new) psg_expr_release(slot->value);
  psg_expr_retain(var);
  slot->value = var;
  return PSG_OK;
}

/* Types ------------------------------------------------------------------------ */

/* The dtype a type name spells: a dtype name, or TVM's shorthands int, uint
 * and float (32 bits); 0 if none. */
static int type_dtype(const token *t) {
  if (t->kind != TOK_IDENT) return 0;
  if (tok_is(t, "int")) return PSG_DTYPE_INT32;
  if (tok_is(t, "uint")) return PSG_DTYPE_UINT32;
  if (tok_is(t, "float")) return PSG_DTYPE_FLOAT32;
  return psg_dtype_from_name(t->text, t->len);
}

static psg_status parse_type(parser *ps, const psg_type **out);

static psg_status parse_tensor_type(parser *ps, const psg_type **out) {
  token at = ps->tok; /* Tensor: where a too large shape is reported */
  advance(ps);
  if (!expect(ps, "[", "after Tensor") || !expect(ps, "(", "to start the shape")) return PSG_ERR_PARSE;
  int64_t dims[PSG_MAX_RANK];
  int nd = 0;
  while (!tok_is(&ps->tok, ")")) {
    if (nd == PSG_MAX_RANK) return error_at(ps, &ps->tok, "tensor rank above %d", PSG_MAX_RANK);
    if (tok_is(&ps->tok, "?")) {
      dims[nd++] = PSG_DIM_UNKNOWN;
    } else if (ps->tok.kind == TOK_INT && ps->tok.text[0] != '-') {
      int64_t v;
      if (!psgi_text_parse_i64(ps->tok.text, ps->tok.len, &v))
        return error_at(ps, &ps->tok, "dimension '%.*s' out of range", (int)ps->tok.len, ps->tok.text);
      dims[nd++] = v;
    } else {
      char buf[80];
      return error_at(ps, &ps->tok, "expected a dimension (an integer or ?), found %s", tok_desc(&ps->tok, buf, sizeof buf));
    }
    advance(ps);
    if (tok_is(&ps->tok, ",")) advance(ps);
    else if (!tok_is(&ps->tok, ")")) return expect(ps, ")", "after the dimensions") ? PSG_OK : PSG_ERR_PARSE;
  }
  advance(ps);
  if (!expect(ps, ",", "after the shape")) return PSG_ERR_PARSE;
  if (ps->tok.kind != TOK_IDENT) {
    char buf[80];
    return error_at(ps, &ps->tok, "expected a dtype, found %s", tok_desc(&ps->tok, buf, sizeof buf));
  }
  int dtype = type_dtype(&ps->tok);
  if (!dtype) return error_at(ps, &ps->tok, "unknown dtype '%.*s'", (int)ps->tok.len, ps->tok.text);
  advance(ps);
  if (!expect(ps, "]", "to close the tensor type")) return PSG_ERR_PARSE;
  if (!psgi_shape_fits(dims, nd, psg_dtype_size(dtype))) {
    char shape[PSG_MAX_RANK * 22 + 3];
    size_t k = 0;
    shape[k++] = '(';
    for (int i = 0; i < nd; i++)
      k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", i ? ", " : "", (long long)dims[i]);
    snprintf(shape + k, sizeof shape - k, ")");
    return error_at(ps, &at, "tensor type of shape %s and dtype %s has more than INT64_MAX bytes", shape,
                    psg_dtype_name(dtype));
  }
  psg_status st = psg_type_tensor(ps->ctx, dims, nd, dtype, out);
  return st;
}

static psg_status parse_type_list(parser *ps, const char *close, const psg_type **items, int *n) {
  *n = 0;
  while (!tok_is(&ps->tok, close)) {
    if (*n == 64) return error_at(ps, &ps->tok, "too many types in a list");
    psg_status st = parse_type(ps, &items[(*n)++]);
    if (st) return st;
    if (tok_is(&ps->tok, ",")) advance(ps);
    else if (!tok_is(&ps->tok, close)) return expect(ps, close, "after a type") ? PSG_OK : PSG_ERR_PARSE;
  }
  advance(ps);
  return PSG_OK;
}

/* [A, B, ...]: fresh TypeVars, put in scope (the caller restores
 * ps->tyscope.len); their list in tparams (up to 64). */
static psg_status parse_type_params(parser *ps, const psg_type **tparams, int *n) {
  *n = 0;
  advance(ps); /* [ */
  while (!tok_is(&ps->tok, "]")) {
    token t = ps->tok;
    if (t.kind != TOK_IDENT || type_dtype(&t) || tok_is(&t, "Tensor")) {
      char buf[80];
      return error_at(ps, &t, "expected a type parameter name, found %s", tok_desc(&t, buf, sizeof buf));
    }
    if (*n == 64) return error_at(ps, &t, "too many type parameters");
    for (int i = 0; i < *n; i++)
      if (strlen(psg_type_var_name(tparams[i])) == t.len && !memcmp(psg_type_var_name(tparams[i]), t.text, t.len))
        return error_at(ps, &t, "type parameter '%.*s' is given twice", (int)t.len, t.text);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)t.len, t.text);
    psg_status st = psg_type_var(ps->ctx, name, PSG_TYPE_KIND_TYPE, &tparams[*n]);
    if (st) return st;
    type_binding b = {t.text, t.len, tparams[(*n)++]};
    if (!PSGI_VEC_PUSH(ps->ctx, &ps->tyscope, b)) return psgi_nomem(ps->ctx);
    advance(ps);
    if (tok_is(&ps->tok, ",")) advance(ps);
    else if (!tok_is(&ps->tok, "]")) return expect(ps, "]", "after the type parameters") ? PSG_OK : PSG_ERR_PARSE;
  }
  advance(ps);
  return PSG_OK;
}

/* The type parameter `t` names, innermost first; NULL if none. */
static const psg_type *lookup_type_var(const parser *ps, const token *t) {
  for (size_t i = ps->tyscope.len; i-- > 0;)
    if (ps->tyscope.data[i].len == t->len && !memcmp(ps->tyscope.data[i].name, t->text, t->len))
      return ps->tyscope.data[i].tv;
  return NULL;
}

static psg_status parse_type(parser *ps, const psg_type **out) {
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return error_at(ps, &ps->tok, "type nested too deeply (limit %d)", MAX_DEPTH);
  }
  psg_status st;
  const psg_type *items[64];
  int n;
  if (tok_is(&ps->tok, "Tensor")) {
    st = parse_tensor_type(ps, out);
  } else if (tok_is(&ps->tok, "(")) {
    advance(ps);
    st = parse_type_list(ps, ")", items, &n);
    if (!st) st = psg_type_tuple(ps->ctx, items, n, out);
  } else if (tok_is(&ps->tok, "fn")) {
    /* fn [A, ...](args) -> ret: the parameters are in scope in the type. */
    advance(ps);
    size_t mark = ps->tyscope.len;
    const psg_type *tparams[64];
    int ntp = 0;
    st = tok_is(&ps->tok, "[") ? parse_type_params(ps, tparams, &ntp) : PSG_OK;
    if (!st && !expect(ps, "(", "after fn in a function type")) st = PSG_ERR_PARSE;
    else if (!st) st = parse_type_list(ps, ")", items, &n);
    const psg_type *ret = NULL;
    if (!st && !expect(ps, "->", "in a function type")) st = PSG_ERR_PARSE;
    if (!st) st = parse_type(ps, &ret);
    if (!st) st = psg_type_func_poly(ps->ctx, items, n, ret, tparams, ntp, out);
    ps->tyscope.len = mark;
  } else if (tok_is(&ps->tok, "ref") && tok_is(&ps->next, "(")) {
    /* ref(T): a reference type, as TVM prints RefType. */
    advance(ps);
    advance(ps);
    const psg_type *v = NULL;
    st = parse_type(ps, &v);
    if (!st && !expect(ps, ")", "to close the reference type")) st = PSG_ERR_PARSE;
    if (!st) st = psg_type_ref(ps->ctx, v, out);
  } else if (ps->tok.kind == TOK_IDENT && !type_dtype(&ps->tok) && lookup_type_var(ps, &ps->tok)) {
    *out = lookup_type_var(ps, &ps->tok);
    advance(ps);
    st = PSG_OK;
  } else if (type_dtype(&ps->tok)) {
    st = psg_type_tensor(ps->ctx, NULL, 0, type_dtype(&ps->tok), out);
    advance(ps);
  } else {
    char buf[80];
    st = error_at(ps, &ps->tok, "expected a type, found %s", tok_desc(&ps->tok, buf, sizeof buf));
  }
  ps->depth--;
  return st;
}

/* A type annotation (of a parameter, let or free variable): a type, or `_`,
 * TVM's incomplete type, which leaves the variable unannotated (*out NULL). */
static psg_status parse_annotation(parser *ps, const psg_type **out) {
  if (tok_is(&ps->tok, "_")) {
    advance(ps);
    *out = NULL;
    return PSG_OK;
  }
  return parse_type(ps, out);
}

/* Literals --------------------------------------------------------------------- */

/* Splits a numeric literal into its number text and its dtype suffix. */
static int literal_dtype(const token *t, size_t *num_len) {
  size_t n = t->len;
  size_t i = n;
  while (i > 0 && t->text[i - 1] >= '0' && t->text[i - 1] <= '9') i--;
  size_t s = i;
  if (s > 0 && (t->text[s - 1] == 'f' || t->text[s - 1] == 'i' || t->text[s - 1] == 'u') &&
      !(s >= 2 && (t->text[s - 2] == 'e' || t->text[s - 2] == 'E'))) {
    char kind = t->text[s - 1];
    /* The width digits end the token (no NUL there: no atoi). */
    int bits = s < n ? 0 : 32;
    for (size_t k = s; k < n && bits < 1000; k++) bits = bits * 10 + (t->text[k] - '0');
    *num_len = s - 1;
    if (kind == 'f') return bits == 32 ? PSG_DTYPE_FLOAT32 : bits == 64 ? PSG_DTYPE_FLOAT64 : bits == 16 ? PSG_DTYPE_FLOAT16 : 0;
    if (kind == 'i') return bits == 8 ? PSG_DTYPE_INT8 : bits == 16 ? PSG_DTYPE_INT16 : bits == 32 ? PSG_DTYPE_INT32 : bits == 64 ? PSG_DTYPE_INT64 : 0;
    return bits == 8 ? PSG_DTYPE_UINT8 : bits == 16 ? PSG_DTYPE_UINT16 : bits == 32 ? PSG_DTYPE_UINT32 : bits == 64 ? PSG_DTYPE_UINT64 : 0;
  }
  *num_len = n;
  return t->kind == TOK_FLOAT ? PSG_DTYPE_FLOAT32 : PSG_DTYPE_INT32;
}

static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e), half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | (uint32_t)e << 10 | man >> 13, rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++;
  return (uint16_t)half;
}

/* The number text of a literal whose number part is [0, nl) into num (cap
 * bytes, NUL-terminated): leading minus signs negate in turn ("--10" is 10),
 * as TVM's tokenizer reads them. False if it does not fit. */
static bool literal_number(const token *t, size_t nl, char *num, size_t cap) {
  size_t dashes = 0;
  while (dashes < nl && t->text[dashes] == '-') dashes++;
  size_t neg = dashes & 1, rest = nl - dashes;
  if (rest == 0 || neg + rest >= cap) return false;
  if (neg) num[0] = '-';
  memcpy(num + neg, t->text + dashes, rest);
  num[neg + rest] = 0;
  return true;
}

/* A scalar constant from a numeric literal or True/False. */
static psg_status parse_scalar(parser *ps, psg_expr **out) {
  token t = ps->tok;
  unsigned char bytes[8] = {0};
  int dtype;
  char num[64];
  if (t.kind == TOK_IDENT) {
    dtype = PSG_DTYPE_BOOL;
    bytes[0] = tok_is(&t, "True");
  } else {
    size_t nl;
    dtype = literal_dtype(&t, &nl);
    if (!dtype || !literal_number(&t, nl, num, sizeof num))
      return error_at(ps, &t, "bad numeric literal '%.*s'", (int)t.len, t.text);
    /* No width given (7, 7i): an int32 that does not fit is an int64, TVM's
     * legacy rule. */
    bool widen = dtype == PSG_DTYPE_INT32 && nl + 1 >= t.len;
    char *endp;
    errno = 0;
    if (psg_dtype_is_float(dtype)) {
      double v = strtod(num, &endp);
      if (*endp) return error_at(ps, &t, "bad numeric literal '%.*s'", (int)t.len, t.text);
      /* Out-of-range literals are errors, not infinities: no literal spells
       * an infinity, so the printer could not write it back. */
      /* Beyond the largest finite value is out of range, as TVM's
       * ValueToFloatImm has it (3.40283e+38f32 and 65505f16 are errors). */
      bool overflow = dtype == PSG_DTYPE_FLOAT64   ? isinf(v)
                      : dtype == PSG_DTYPE_FLOAT32 ? !(fabs(v) <= FLT_MAX)
                                                   : !(fabs(v) <= 65504.0);
      if (overflow)
        return error_at(ps, &t, "floating-point literal '%.*s' out of range for %s", (int)t.len, t.text,
                        psg_dtype_name(dtype));
      if (dtype == PSG_DTYPE_FLOAT32) {
        float f = (float)v;
        memcpy(bytes, &f, 4);
      } else if (dtype == PSG_DTYPE_FLOAT64) {
        memcpy(bytes, &v, 8);
      } else {
        uint16_t h = to_half((float)v);
        memcpy(bytes, &h, 2);
      }
    } else {
      bool is_unsigned = dtype >= PSG_DTYPE_UINT8 && dtype <= PSG_DTYPE_UINT64;
      long long v = 0;
      unsigned long long u = 0;
      if (is_unsigned) u = strtoull(num, &endp, 10);
      else v = strtoll(num, &endp, 10);
      if (*endp || errno || strchr(num, '.') || (is_unsigned && num[0] == '-'))
        return error_at(ps, &t, "bad integer literal '%.*s'", (int)t.len, t.text);
      size_t sz = psg_dtype_size(dtype);
      if (widen && (v < INT32_MIN || v > INT32_MAX)) {
        dtype = PSG_DTYPE_INT64;
        sz = 8;
      }
      if (!is_unsigned && sz < 8 && (v < -(1LL << (sz * 8 - 1)) || v >= (1LL << (sz * 8 - 1))))
        return error_at(ps, &t, "integer literal '%.*s' out of range for %s", (int)t.len, t.text, psg_dtype_name(dtype));
      if (is_unsigned && sz < 8 && u >> (sz * 8))
        return error_at(ps, &t, "integer literal '%.*s' out of range for %s", (int)t.len, t.text, psg_dtype_name(dtype));
      if (is_unsigned) memcpy(bytes, &u, sz);
      else memcpy(bytes, &v, sz); /* little-endian: the low bytes */
    }
  }
  advance(ps);
  psg_tensor *tensor;
  psg_status st = psg_tensor_create(ps->ctx, dtype, NULL, 0, bytes, &tensor);
  if (st) return st;
  psg_span sp = span_of(ps, &t);
  st = psg_constant_create(ps->ctx, tensor, &sp, out);
  psg_tensor_release(tensor);
  return st;
}

/* Attribute values --------------------------------------------------------------- */

static psg_status parse_attr_value(parser *ps, int kind, psg_attr **out);

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The bytes of a string token with \n \t \r \" \\ and \xHH resolved, into
 * dst (room for t->len bytes); returns the length. */
static size_t unescape_into(const token *t, char *dst) {
  size_t n = 0;
  for (size_t i = 0; i < t->len; i++) {
    char c = t->text[i];
    if (c == '\\' && i + 1 < t->len) {
      c = t->text[++i];
      if (c == 'x' && i + 2 < t->len && hex_digit(t->text[i + 1]) >= 0 && hex_digit(t->text[i + 2]) >= 0) {
        c = (char)(hex_digit(t->text[i + 1]) << 4 | hex_digit(t->text[i + 2]));
        i += 2;
      } else {
        c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
      }
    }
    dst[n++] = c;
  }
  return n;
}

static psg_status unescape(parser *ps, const token *t, psg_attr **out) {
  char *s = psgi_alloc(ps->ctx, t->len + 1);
  if (!s) return psgi_nomem(ps->ctx);
  psg_status st = psg_attr_string(ps->ctx, s, unescape_into(t, s), out);
  psgi_free(ps->ctx, s);
  return st;
}

/* An attribute name: an identifier, or a string for names that are not
 * identifiers (the printer quotes those). NULL after an error. */
static const char *attr_key(parser *ps, const token *t) {
  if (t->kind == TOK_IDENT) {
    const char *k = psgi_intern(ps->ctx, t->text, t->len);
    if (!k) psgi_nomem(ps->ctx);
    return k;
  }
  char *s = psgi_alloc(ps->ctx, t->len + 1);
  if (!s) return psgi_nomem(ps->ctx), NULL;
  size_t n = unescape_into(t, s);
  const char *k = NULL;
  if (memchr(s, 0, n)) error_at(ps, t, "an attribute name cannot contain a NUL byte");
  else if (!(k = psgi_intern(ps->ctx, s, n))) psgi_nomem(ps->ctx);
  psgi_free(ps->ctx, s);
  return k;
}

/* Records interned attribute key `k` (at token `at`) in `seen`; an error
 * when it was given before in the same list. */
static psg_status note_key(parser *ps, psgi_map *seen, const char *k, const token *at) {
  bool is_new = false;
  if (!psgi_map_put_ptr(seen, k, &is_new)) return psgi_nomem(ps->ctx);
  return is_new ? PSG_OK : error_at(ps, at, "attribute '%s' given twice", k);
}

static psg_status parse_attr_dict(parser *ps, psg_attrs **out) {
  advance(ps); /* { */
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psgi_map seen; /* interned keys given so far */
  psgi_map_init(&seen, ps->ctx);
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, "}")) {
    if (ps->tok.kind != TOK_IDENT && ps->tok.kind != TOK_STRING) {
      char buf[80];
      st = error_at(ps, &ps->tok, "expected an attribute name, found %s", tok_desc(&ps->tok, buf, sizeof buf));
      break;
    }
    const char *k = attr_key(ps, &ps->tok);
    if (!k) {
      st = PSG_ERR_PARSE;
      break;
    }
    if ((st = note_key(ps, &seen, k, &ps->tok)) != PSG_OK) break;
    advance(ps);
    if (!expect(ps, "=", "after an attribute name")) {
      st = PSG_ERR_PARSE;
      break;
    }
    psg_attr *v = NULL;
    if ((st = parse_attr_value(ps, PSGI_ATTR_ANY, &v)) != PSG_OK) break;
    if (!PSGI_VEC_PUSH(ps->ctx, &keys, k) || !PSGI_VEC_PUSH(ps->ctx, &vals, v)) {
      psg_attr_release(v);
      st = psgi_nomem(ps->ctx);
      break;
    }
    if (tok_is(&ps->tok, ",")) advance(ps);
    else if (!tok_is(&ps->tok, "}")) st = expect(ps, "}", "to close the dictionary") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st) {
    advance(ps);
    st = psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, out);
  }
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  psgi_map_fini(&seen);
  PSGI_VEC_FREE(ps->ctx, &keys);
  PSGI_VEC_FREE(ps->ctx, &vals);
  return st;
}

static psg_status parse_attr_value(parser *ps, int kind, psg_attr **out) {
  *out = NULL;
  token t = ps->tok;
  psg_status st;
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return error_at(ps, &t, "attribute value nested too deeply (limit %d)", MAX_DEPTH);
  }
  if (t.kind == TOK_INT || t.kind == TOK_FLOAT) {
    size_t nl;
    int dt = literal_dtype(&t, &nl);
    char num[64];
    if (!dt || !literal_number(&t, nl, num, sizeof num)) {
      st = error_at(ps, &t, "bad numeric literal '%.*s'", (int)t.len, t.text);
    } else {
      char *endp;
      errno = 0;
      if (kind == PSGI_ATTR_INT && psg_dtype_is_float(dt)) {
        st = error_at(ps, &t, "expected an integer, found '%.*s'", (int)t.len, t.text);
      } else if (psg_dtype_is_float(dt) || kind == PSGI_ATTR_FLOAT) {
        double v = strtod(num, &endp);
        st = *endp        ? error_at(ps, &t, "bad number '%.*s'", (int)t.len, t.text)
             : isinf(v) ? error_at(ps, &t, "number '%.*s' out of range", (int)t.len, t.text)
                        : psg_attr_float(ps->ctx, v, out);
      } else {
        long long v = strtoll(num, &endp, 10);
        st = *endp   ? error_at(ps, &t, "bad integer '%.*s'", (int)t.len, t.text)
             : errno ? error_at(ps, &t, "integer '%.*s' out of range", (int)t.len, t.text)
                     : psg_attr_int(ps->ctx, v, out);
      }
      if (!st) advance(ps);
    }
  } else if (t.kind == TOK_STRING) {
    int dtype = kind == PSGI_ATTR_DTYPE ? psg_dtype_from_name(t.text, t.len) : 0;
    if (kind == PSGI_ATTR_DTYPE && t.len && !dtype)
      st = error_at(ps, &t, "unknown dtype \"%.*s\"", (int)t.len, t.text);
    else
      st = dtype ? psg_attr_dtype(ps->ctx, dtype, out) : unescape(ps, &t, out);
    if (!st) advance(ps);
  } else if (t.kind == TOK_GLOBAL) {
    /* A GlobalVar reference (call_lowered's all_prim_fn_vars): checked
     * against the module's definitions with the other global uses. */
    char name[256];
    if (t.len >= sizeof name) {
      st = error_at(ps, &t, "global name too long");
    } else if (!PSGI_VEC_PUSH(ps->ctx, &ps->global_uses, t)) {
      st = psgi_nomem(ps->ctx);
    } else {
      memcpy(name, t.text, t.len);
      name[t.len] = 0;
      st = psg_attr_global_var(ps->ctx, name, out);
      if (!st) advance(ps);
    }
  } else if (tok_is(&t, "True") || tok_is(&t, "False")) {
    st = psg_attr_bool(ps->ctx, tok_is(&t, "True"), out);
    advance(ps);
  } else if (tok_is(&t, "None")) {
    st = psg_attr_none(ps->ctx, out);
    advance(ps);
  } else if (tok_is(&t, "[")) {
    advance(ps);
    PSGI_VEC(psg_attr *) items = {0};
    st = PSG_OK;
    while (!st && !tok_is(&ps->tok, "]")) {
      psg_attr *v;
      st = parse_attr_value(ps, kind == PSGI_ATTR_INT_LIST ? PSGI_ATTR_INT : PSGI_ATTR_ANY, &v);
      if (!st && !PSGI_VEC_PUSH(ps->ctx, &items, v)) {
        psg_attr_release(v);
        st = psgi_nomem(ps->ctx);
      }
      if (!st && tok_is(&ps->tok, ",")) advance(ps);
      else if (!st && !tok_is(&ps->tok, "]")) st = expect(ps, "]", "to close the list") ? PSG_OK : PSG_ERR_PARSE;
    }
    if (!st) {
      advance(ps);
      st = psg_attr_list(ps->ctx, items.data, items.len, out);
    }
    for (size_t i = 0; i < items.len; i++) psg_attr_release(items.data[i]);
    PSGI_VEC_FREE(ps->ctx, &items);
  } else if (tok_is(&t, "{")) {
    psg_attrs *d = NULL;
    st = parse_attr_dict(ps, &d);
    if (!st) st = psg_attr_dict(ps->ctx, d, out);
    psg_attrs_release(d);
  } else {
    char buf[80];
    st = error_at(ps, &t, "expected an attribute value, found %s", tok_desc(&t, buf, sizeof buf));
  }
  ps->depth--;
  return st;
}

/* Expressions ------------------------------------------------------------------ */

static psg_status parse_expr(parser *ps, psg_expr **out);
static psg_status parse_binop(parser *ps, psg_expr **out);
static psg_status parse_block(parser *ps, psg_expr **out);

static psg_status global_ref(parser *ps, const token *t, psg_expr **out) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_str(&ps->globals, t->text, t->len, &is_new);
  if (!e) return psgi_nomem(ps->ctx);
  if (is_new) {
    char name[256];
    if (t->len >= sizeof name) return error_at(ps, t, "global name too long");
    memcpy(name, t->text, t->len);
    name[t->len] = 0;
    psg_span sp = span_of(ps, t);
    psg_status st = psg_global_var_create(ps->ctx, name, &sp, (psg_expr **)&e->value);
    if (st) {
      e->value = NULL;
      return st;
    }
  }
  if (!e->value) return PSG_ERR_PARSE;
  *out = e->value;
  psg_expr_retain(*out);
  return PSG_OK;
}

static psg_status suggest_op(parser *ps, const token *t) {
  const char *names[512];
  size_t n = psgi_op_table_len < 512 ? psgi_op_table_len : 512;
  for (size_t i = 0; i < n; i++) names[i] = psgi_op_table[i].name;
  char word[128];
  snprintf(word, sizeof word, "%.*s", (int)t->len, t->text);
  const char *near = psgi_closest(word, names, n);
  if (near) return error_at(ps, t, "unknown operator '%s'; did you mean '%s'?", word, near);
  return error_at(ps, t, "unknown operator '%s'", word);
}

/* (args, attrs) of a call whose callee is parsed; `op` is the op index or -1. */
static psg_status parse_call(parser *ps, psg_expr *callee, ptrdiff_t op, const token *start, psg_expr **out) {
  /* The IR rejects these callees (psg_call_create); say so where the call
   * begins rather than fail later without a position. */
  int ck = psg_expr_kind(callee);
  if (ck == PSG_EXPR_CONSTANT || ck == PSG_EXPR_TUPLE)
    return error_at(ps, &ps->tok, "a %s cannot be called: a callee is an operator, a function or a variable",
                    ck == PSG_EXPR_CONSTANT ? "constant" : "tuple");
  advance(ps); /* ( */
  PSGI_VEC(psg_expr *) args = {0};
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, ")")) {
    if ((ps->tok.kind == TOK_IDENT || ps->tok.kind == TOK_STRING) && tok_is(&ps->next, "=")) {
      token key = ps->tok;
      int kind = PSGI_ATTR_ANY;
      if (op >= 0) {
        ptrdiff_t ai = psgi_op_attr_index((size_t)op, key.text, key.len);
        if (ai < 0) {
          const psgi_op_info *info = &psgi_op_table[op];
          char list[256] = "";
          for (size_t j = 0; j < info->nattrs && strlen(list) < 200; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "", info->attrs[j].name);
          st = error_at(ps, &key, "operator '%s' has no attribute '%.*s' (it has: %s)", info->name, (int)key.len,
                        key.text, info->nattrs ? list : "none");
          break;
        }
        kind = psgi_op_table[op].attrs[ai].kind;
      }
      advance(ps);
      advance(ps); /* = */
      const char *k = attr_key(ps, &key);
      if (!k) {
        st = PSG_ERR_PARSE;
        break;
      }
      for (size_t i = 0; i < keys.len; i++)
        if (keys.data[i] == k) st = error_at(ps, &key, "attribute '%.*s' given twice", (int)key.len, key.text);
      psg_attr *v = NULL;
      if (!st) st = parse_attr_value(ps, kind, &v);
      if (!st && (!PSGI_VEC_PUSH(ps->ctx, &keys, k) || !PSGI_VEC_PUSH(ps->ctx, &vals, v))) {
        psg_attr_release(v);
        st = psgi_nomem(ps->ctx);
      }
    } else {
      if (keys.len) {
        st = error_at(ps, &ps->tok, "positional argument after attributes");
        break;
      }
      psg_expr *a = NULL;
      if ((st = parse_expr(ps, &a)) != PSG_OK) break;
      if (!PSGI_VEC_PUSH(ps->ctx, &args, a)) {
        psg_expr_release(a);
        st = psgi_nomem(ps->ctx);
      }
    }
    if (!st && tok_is(&ps->tok, ",")) advance(ps);
    else if (!st && !tok_is(&ps->tok, ")")) st = expect(ps, ")", "after call arguments") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st && op >= 0) {
    const psgi_op_info *info = &psgi_op_table[op];
    if ((int)args.len < info->min_args || (info->max_args >= 0 && (int)args.len > info->max_args)) {
      if (info->min_args == info->max_args)
        st = error_at(ps, start, "operator '%s' takes %d argument%s, %zu given", info->name, info->min_args,
                      info->min_args == 1 ? "" : "s", args.len);
      else
        st = error_at(ps, start, "operator '%s' takes %d to %d arguments, %zu given", info->name, info->min_args,
                      info->max_args, args.len);
    }
  }
  psg_attrs *attrs = NULL;
  if (!st && keys.len) st = psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, &attrs);
  if (!st) {
    advance(ps); /* ) */
    psg_span sp = span_of(ps, start);
    st = psg_call_create(ps->ctx, callee, args.data, args.len, attrs, &sp, out);
  }
  psg_attrs_release(attrs);
  for (size_t i = 0; i < args.len; i++) psg_expr_release(args.data[i]);
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  PSGI_VEC_FREE(ps->ctx, &args);
  PSGI_VEC_FREE(ps->ctx, &keys);
  PSGI_VEC_FREE(ps->ctx, &vals);
  return st;
}

/* Parameters of a def or fn: (%x: T, ..., Attr=value, ...). Defines the
 * params in the current scope. */
typedef PSGI_VEC(psg_expr *) expr_vec;

static psg_status parse_params(parser *ps, size_t mark, expr_vec *params, psg_attrs **attrs) {
  if (!expect(ps, "(", "to start the parameters")) return PSG_ERR_PARSE;
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psgi_map seen; /* interned attribute keys given so far */
  psgi_map_init(&seen, ps->ctx);
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, ")")) {
    if (ps->tok.kind == TOK_LOCAL && !keys.len) {
      token name = ps->tok;
      advance(ps);
      const psg_type *t = NULL;
      if (tok_is(&ps->tok, ":")) {
        advance(ps);
        if ((st = parse_annotation(ps, &t)) != PSG_OK) break;
      }
      char nbuf[256];
      snprintf(nbuf, sizeof nbuf, "%.*s", (int)name.len, name.text);
      psg_span sp = span_of(ps, &name);
      psg_expr *v;
      if ((st = psg_var_create(ps->ctx, nbuf, t, &sp, &v)) != PSG_OK) break;
      if (!PSGI_VEC_PUSH(ps->ctx, params, v)) {
        psg_expr_release(v);
        st = psgi_nomem(ps->ctx);
        break;
      }
      if (!define(ps, &name, v, mark, false)) st = PSG_ERR_PARSE;
    } else if ((ps->tok.kind == TOK_IDENT || ps->tok.kind == TOK_STRING) && tok_is(&ps->next, "=")) {
      const char *k = attr_key(ps, &ps->tok);
      if (!k) {
        st = PSG_ERR_PARSE;
        break;
      }
      if ((st = note_key(ps, &seen, k, &ps->tok)) != PSG_OK) break;
      advance(ps);
      advance(ps);
      psg_attr *v = NULL;
      if ((st = parse_attr_value(ps, PSGI_ATTR_ANY, &v)) != PSG_OK) break;
      if (!k || !PSGI_VEC_PUSH(ps->ctx, &keys, k) || !PSGI_VEC_PUSH(ps->ctx, &vals, v)) {
        psg_attr_release(v);
        st = psgi_nomem(ps->ctx);
      }
    } else {
      char buf[80];
      st = error_at(ps, &ps->tok, "expected a parameter (%%name) or a function attribute, found %s",
                    tok_desc(&ps->tok, buf, sizeof buf));
      break;
    }
    if (!st && tok_is(&ps->tok, ",")) advance(ps);
    else if (!st && !tok_is(&ps->tok, ")")) st = expect(ps, ")", "after the parameters") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st) {
    advance(ps);
    if (keys.len) st = psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, attrs);
  }
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  psgi_map_fini(&seen);
  PSGI_VEC_FREE(ps->ctx, &keys);
  PSGI_VEC_FREE(ps->ctx, &vals);
  return st;
}

/* fn [A, ...](...) [-> T] { block } */
static psg_status parse_fn(parser *ps, psg_expr **out) {
  token start = ps->tok;
  advance(ps);
  size_t mark = scope_mark(ps), tymark = ps->tyscope.len;
  expr_vec params = {0};
  psg_attrs *attrs = NULL;
  const psg_type *ret = NULL, *tparams[64];
  int ntp = 0;
  psg_expr *body = NULL;
  psg_status st = tok_is(&ps->tok, "[") ? parse_type_params(ps, tparams, &ntp) : PSG_OK;
  if (!st) st = parse_params(ps, mark, &params, &attrs);
  if (!st && tok_is(&ps->tok, "->")) {
    advance(ps);
    st = parse_type(ps, &ret);
  }
  if (!st) st = parse_block(ps, &body);
  scope_restore(ps, mark);
  ps->tyscope.len = tymark;
  if (!st) {
    psg_span sp = span_of(ps, &start);
    st = psg_function_create_poly(ps->ctx, params.data, params.len, body, ret, tparams, ntp, attrs, &sp, out);
  }
  psg_expr_release(body);
  psg_attrs_release(attrs);
  for (size_t i = 0; i < params.len; i++) psg_expr_release(params.data[i]);
  PSGI_VEC_FREE(ps->ctx, &params);
  return st;
}

static psg_status parse_primary(parser *ps, psg_expr **out) {
  token t = ps->tok;
  char buf[80];
  switch (t.kind) {
  case TOK_LOCAL: {
    psgi_map_entry *e = psgi_map_get_str(&ps->scope, t.text, t.len);
    binding *b = e ? e->value : NULL;
    if (!b) {
      /* Not bound in scope: a free_var, declared anywhere before (TVM keeps
       * them apart from the scopes). */
      psgi_map_entry *f = psgi_map_get_str(&ps->free_vars, t.text, t.len);
      if (!f) return error_at(ps, &t, "undefined variable %%%.*s", (int)t.len, t.text);
      advance(ps);
      *out = f->value;
      psg_expr_retain(*out);
      return PSG_OK;
    }
    if (!b->expr) return PSG_ERR_PARSE; /* already reported */
    advance(ps);
    *out = b->expr;
    psg_expr_retain(*out);
    return PSG_OK;
  }
  case TOK_GLOBAL: {
    if (!PSGI_VEC_PUSH(ps->ctx, &ps->global_uses, t)) return psgi_nomem(ps->ctx);
    advance(ps);
    return global_ref(ps, &t, out);
  }
  case TOK_INT:
  case TOK_FLOAT: return parse_scalar(ps, out);
  case TOK_IDENT:
    if (tok_is(&t, "True") || tok_is(&t, "False")) return parse_scalar(ps, out);
    if (tok_is(&t, "fn")) return parse_fn(ps, out);
    if (tok_is(&t, "if")) {
      advance(ps);
      psg_expr *c = NULL, *a = NULL, *b = NULL;
      psg_status st = expect(ps, "(", "after if") ? parse_expr(ps, &c) : PSG_ERR_PARSE;
      if (!st && !expect(ps, ")", "after the condition")) st = PSG_ERR_PARSE;
      if (!st) st = parse_block(ps, &a);
      if (!st && !expect(ps, "else", "after the then-block")) st = PSG_ERR_PARSE;
      if (!st) st = parse_block(ps, &b);
      psg_span sp = span_of(ps, &t);
      if (!st) st = psg_if_create(ps->ctx, c, a, b, &sp, out);
      psg_expr_release(c);
      psg_expr_release(a);
      psg_expr_release(b);
      return st;
    }
    if (tok_is(&t, "meta")) {
      advance(ps);
      if (!expect(ps, "[", "after meta")) return PSG_ERR_PARSE;
      if (!tok_is(&ps->tok, "relay.Constant"))
        return error_at(ps, &ps->tok, "only meta[relay.Constant][i] references are supported");
      advance(ps);
      if (!expect(ps, "]", "after relay.Constant") || !expect(ps, "[", "before the constant index")) return PSG_ERR_PARSE;
      token idx = ps->tok;
      int64_t i = -1;
      if (idx.kind != TOK_INT || !psgi_text_parse_i64(idx.text, idx.len, &i) || i < 0)
        return error_at(ps, &idx, "expected a constant index");
      if ((uint64_t)i >= ps->meta.len)
        return error_at(ps, &idx, "meta[relay.Constant][%lld] is out of range: the metadata section has %zu constant%s", (long long)i,
                        ps->meta.len, ps->meta.len == 1 ? "" : "s");
      advance(ps);
      if (!expect(ps, "]", "after the constant index")) return PSG_ERR_PARSE;
      psg_span sp = span_of(ps, &t);
      return psg_constant_create(ps->ctx, ps->meta.data[i], &sp, out);
    }
    {
      ptrdiff_t op = psgi_op_lookup(t.text, t.len);
      if (op < 0) return suggest_op(ps, &t);
      advance(ps);
      psg_expr *o;
      psg_status st = psg_op_get(ps->ctx, psgi_op_table[op].name, &o);
      if (st) return st;
      if (!tok_is(&ps->tok, "(")) {
        *out = o;
        return PSG_OK;
      }
      return parse_call(ps, o, op, &t, out);
    }
  case TOK_PUNCT:
    /* A block as a value, as TVM's parser accepts it: the printer writes a
     * let chain bound to a temp this way ("%3 = { let %x = ...; %x };"). */
    if (tok_is(&t, "{")) return parse_block(ps, out);
    if (tok_is(&t, "(")) {
      advance(ps);
      expr_vec items = {0};
      psg_status st = PSG_OK;
      bool comma = false;
      while (!st && !tok_is(&ps->tok, ")")) {
        psg_expr *e = NULL;
        if ((st = parse_expr(ps, &e)) != PSG_OK) break;
        if (!PSGI_VEC_PUSH(ps->ctx, &items, e)) {
          psg_expr_release(e);
          st = psgi_nomem(ps->ctx);
          break;
        }
        comma = tok_is(&ps->tok, ",");
        if (comma) advance(ps);
        else if (!tok_is(&ps->tok, ")")) st = expect(ps, ")", "to close the parenthesis") ? PSG_OK : PSG_ERR_PARSE;
      }
      if (!st) {
        advance(ps);
        if (items.len == 1 && !comma) {
          *out = items.data[0]; /* a parenthesized expression */
          items.len = 0;
        } else {
          psg_span sp = span_of(ps, &t);
          st = psg_tuple_create(ps->ctx, items.data, items.len, &sp, out);
        }
      }
      for (size_t i = 0; i < items.len; i++) psg_expr_release(items.data[i]);
      PSGI_VEC_FREE(ps->ctx, &items);
      return st;
    }
    return error_at(ps, &t, "expected an expression, found %s", tok_desc(&t, buf, sizeof buf));
  default: return error_at(ps, &t, "expected an expression, found %s", tok_desc(&t, buf, sizeof buf));
  }
}

/* primary followed by calls f(...) and tuple projections .N */
static psg_status parse_postfix(parser *ps, psg_expr **out) {
  *out = NULL;
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return error_at(ps, &ps->tok, "expression nested too deeply (limit %d)", MAX_DEPTH);
  }
  token start = ps->tok;
  psg_expr *e = NULL;
  psg_status st = parse_primary(ps, &e);
  while (!st) {
    if (tok_is(&ps->tok, "(")) {
      psg_expr *call;
      st = parse_call(ps, e, -1, &start, &call);
      psg_expr_release(e);
      e = st ? NULL : call;
    } else if (tok_is(&ps->tok, ".") && ps->next.kind == TOK_INT) {
      advance(ps);
      token idx = ps->tok;
      int64_t i = -1;
      if (!psgi_text_parse_i64(idx.text, idx.len, &i) || i < 0 || i > INT32_MAX) {
        st = error_at(ps, &idx, "bad tuple index '%.*s'", (int)idx.len, idx.text);
        break;
      }
      advance(ps);
      psg_expr *tgi;
      psg_span sp = span_of(ps, &start);
      st = psg_tuple_get_item_create(ps->ctx, e, (int)i, &sp, &tgi);
      psg_expr_release(e);
      e = st ? NULL : tgi;
    } else {
      break;
    }
  }
  ps->depth--;
  if (st) {
    psg_expr_release(e);
    return st;
  }
  *out = e;
  return PSG_OK;
}

/* The infix operators of TVM's text format and the ops their calls build:
 * all binary and left-associative; a higher precedence binds tighter. */
typedef struct binop {
  const char *tok, *op;
  int prec;
} binop;

static const binop BINOPS[] = {
    {"*", "multiply", 12}, {"/", "divide", 12},       {"+", "add", 10},        {"-", "subtract", 10},
    {"<", "less", 8},      {"<=", "less_equal", 8},   {">", "greater", 8},     {">=", "greater_equal", 8},
    {"==", "equal", 7},    {"!=", "not_equal", 7},
};

static const binop *binop_at(const token *t) {
  if (t->kind != TOK_PUNCT) return NULL;
  for (size_t i = 0; i < sizeof BINOPS / sizeof BINOPS[0]; i++)
    if (tok_is(t, BINOPS[i].tok)) return &BINOPS[i];
  return NULL;
}

typedef struct pending_op {
  const binop *op;
  token at;
} pending_op;
typedef PSGI_VEC(pending_op) op_vec;

/* Pops two operands and an operator, pushes their call (spanned at the operator). */
static psg_status reduce_binop(parser *ps, expr_vec *vals, op_vec *ops) {
  pending_op o = ops->data[--ops->len];
  psg_expr *r = vals->data[--vals->len], *l = vals->data[vals->len - 1];
  psg_expr *op = NULL, *call = NULL, *args[2] = {l, r};
  psg_status st = psg_op_get(ps->ctx, o.op->op, &op);
  psg_span sp = span_of(ps, &o.at);
  if (!st) st = psg_call_create(ps->ctx, op, args, 2, NULL, &sp, &call);
  psg_expr_release(l);
  psg_expr_release(r);
  vals->data[vals->len - 1] = call; /* NULL on failure: released as nothing */
  return st;
}

/* Operands joined by infix operators, by precedence (operator precedence
 * parsing with two explicit stacks: no recursion per operator). */
static psg_status parse_binop(parser *ps, psg_expr **out) {
  *out = NULL;
  expr_vec vals = {0};
  op_vec ops = {0};
  psg_expr *e = NULL;
  psg_status st = parse_postfix(ps, &e);
  if (!st && !PSGI_VEC_PUSH(ps->ctx, &vals, e)) {
    psg_expr_release(e);
    st = psgi_nomem(ps->ctx);
  }
  const binop *b;
  while (!st && (b = binop_at(&ps->tok)) != NULL) {
    pending_op o = {b, ps->tok};
    advance(ps);
    if ((st = parse_postfix(ps, &e)) != PSG_OK) break;
    while (!st && ops.len && ops.data[ops.len - 1].op->prec >= b->prec) st = reduce_binop(ps, &vals, &ops);
    if (!st && !PSGI_VEC_PUSH(ps->ctx, &vals, e)) {
      psg_expr_release(e);
      st = psgi_nomem(ps->ctx);
    } else if (st) {
      psg_expr_release(e);
    }
    if (!st && !PSGI_VEC_PUSH(ps->ctx, &ops, o)) st = psgi_nomem(ps->ctx);
  }
  while (!st && ops.len) st = reduce_binop(ps, &vals, &ops);
  if (!st) {
    *out = vals.data[0];
    vals.len = 0;
  }
  for (size_t i = 0; i < vals.len; i++) psg_expr_release(vals.data[i]);
  PSGI_VEC_FREE(ps->ctx, &vals);
  PSGI_VEC_FREE(ps->ctx, &ops);
  return st;
}

/* Skips to the end of the current statement: the ';' at the statement's own
 * bracket level `nest` (the error may have left us inside a call's
 * parentheses), or up to the '}' that closes the block, not consumed. */
static void resync(parser *ps, int nest) {
  while (ps->tok.kind != TOK_EOF && ps->tok.kind != TOK_ERROR) {
    if (ps->nest <= nest && tok_is(&ps->tok, ";")) {
      advance(ps);
      return;
    }
    if (ps->nest <= nest && tok_is(&ps->tok, "}")) return;
    if (at_global_start(ps)) return;
    advance(ps);
  }
}

typedef struct pending_let {
  psg_expr *var, *value;
  token at;
} pending_let;

/* A sequence, TVM's ParseExpr: (%t = e; | let %v[: T] = e; | free_var %v[: T]; | e;)* e.
 * Temps are substitutions; lets are Let nodes, built from the innermost out
 * once the result is known; `e;` is a let of a fresh variable named "" (TVM's
 * sequencing). With `close` ("}"), the sequence is a block's body: it ends
 * with `close`, which is consumed, and an error resynchronizes at the next
 * statement. Without, it ends after the first expression not followed by ';'
 * and the caller checks what comes next. */
static psg_status parse_seq(parser *ps, const char *close, psg_expr **out) {
  *out = NULL;
  /* A block is a level of nesting; a sequence in parentheses or arguments
   * is counted by the expression around it. */
  int level = close ? 1 : 0;
  ps->depth += level;
  if (ps->depth > MAX_DEPTH) {
    ps->depth -= level;
    return error_at(ps, &ps->tok, "blocks nested too deeply (limit %d)", MAX_DEPTH);
  }
  size_t mark = scope_mark(ps);
  PSGI_VEC(pending_let) lets = {0};
  psg_expr *result = NULL;
  psg_status st = PSG_OK;
  bool failed = false;
  int nest = ps->nest;
  while (!st && !ps->gave_up) {
    token t = ps->tok;
    psg_status s = PSG_OK;
    if (t.kind == TOK_LOCAL && tok_is(&ps->next, "=")) {
      advance(ps);
      advance(ps);
      psg_expr *e = NULL;
      s = parse_binop(ps, &e);
      if (!s && !expect(ps, ";", "after the binding")) s = PSG_ERR_PARSE;
      if (!define(ps, &t, s ? NULL : e, mark, false) && !s) s = PSG_ERR_PARSE;
      psg_expr_release(e);
    } else if (tok_is(&t, "let") || tok_is(&t, "free_var")) {
      bool is_let = tok_is(&t, "let");
      advance(ps);
      token name = ps->tok;
      if (name.kind != TOK_LOCAL) {
        char buf[80];
        s = error_at(ps, &name, "expected a variable after %s, found %s", is_let ? "let" : "free_var",
                     tok_desc(&name, buf, sizeof buf));
      } else {
        advance(ps);
        const psg_type *ty = NULL;
        if (tok_is(&ps->tok, ":")) {
          advance(ps);
          s = parse_annotation(ps, &ty);
        }
        char nbuf[256];
        snprintf(nbuf, sizeof nbuf, "%.*s", (int)name.len, name.text);
        psg_span sp = span_of(ps, &name);
        psg_expr *value = NULL, *var = NULL;
        if (!is_let) {
          if (!s && !expect(ps, ";", "after the free variable")) s = PSG_ERR_PARSE;
          if (!s) s = psg_var_create(ps->ctx, nbuf, ty, &sp, &var);
          if (!s) s = define_free(ps, &name, var);
          psg_expr_release(var);
        } else {
          /* The variable is in scope in its own value, as in TVM's parser (a
           * recursive closure); a let may shadow an outer variable. */
          if (!s) s = psg_var_create(ps->ctx, nbuf, ty, &sp, &var);
          define(ps, &name, s ? NULL : var, mark, true);
          if (!s && !expect(ps, "=", "after the let variable")) s = PSG_ERR_PARSE;
          if (!s) s = parse_binop(ps, &value);
          if (!s && !expect(ps, ";", "after the let value")) s = PSG_ERR_PARSE;
          pending_let pl = {var, value, t};
          if (!s && !PSGI_VEC_PUSH(ps->ctx, &lets, pl)) s = psgi_nomem(ps->ctx);
          if (s) {
            psg_expr_release(var);
            psg_expr_release(value);
          }
        }
      }
    } else {
      /* An expression: the result, or a value sequenced before the rest. */
      psg_expr *e = NULL;
      s = parse_binop(ps, &e);
      /* `e; }` ends no sequence: outside a block the ';' is left to the
       * caller, whose message names what it expected ("add(%x;" in a block). */
      if (!s && tok_is(&ps->tok, ";") && (close || !tok_is(&ps->next, "}"))) {
        advance(ps);
        psg_span sp = span_of(ps, &t);
        psg_expr *var = NULL;
        s = psg_var_create(ps->ctx, "", NULL, &sp, &var);
        pending_let pl = {var, e, t};
        if (!s && !PSGI_VEC_PUSH(ps->ctx, &lets, pl)) s = psgi_nomem(ps->ctx);
        if (s) {
          psg_expr_release(var);
          psg_expr_release(e);
        }
      } else if (!s) {
        result = e;
        if (!close) break;
        if (!tok_is(&ps->tok, close)) {
          char buf[80];
          /* "%x -1": the minus sign went to the number, as in TVM. */
          bool neg = (ps->tok.kind == TOK_INT || ps->tok.kind == TOK_FLOAT) && ps->tok.text[0] == '-';
          s = error_at(ps, &ps->tok, "expected '%s' after the block's result (or ';' after a binding), found %s%s", close,
                       tok_desc(&ps->tok, buf, sizeof buf),
                       neg ? " (a minus sign before a digit is part of the number: write '- 1' to subtract)" : "");
        } else {
          advance(ps);
          break;
        }
      }
    }
    if (s == PSG_ERR_NOMEM) {
      st = s;
      break;
    }
    if (s) {
      failed = true;
      if (!close) {
        st = s;
        break;
      }
      psg_expr_release(result);
      result = NULL;
      resync(ps, nest);
      if (tok_is(&ps->tok, close)) {
        advance(ps);
        break;
      }
      if (ps->tok.kind == TOK_EOF || ps->tok.kind == TOK_ERROR || tok_is(&ps->tok, "def")) break;
    }
  }
  if (!st && (failed || !result)) st = PSG_ERR_PARSE;
  /* Build the lets from the innermost out (a loop, whatever their number). */
  psg_expr *body = result;
  for (size_t i = lets.len; i-- > 0;) {
    pending_let *pl = &lets.data[i];
    if (!st) {
      psg_expr *let;
      psg_span sp = span_of(ps, &pl->at);
      st = psg_let_create(ps->ctx, pl->var, pl->value, body, &sp, &let);
      psg_expr_release(body);
      body = st ? NULL : let;
    }
    psg_expr_release(pl->var);
    psg_expr_release(pl->value);
  }
  PSGI_VEC_FREE(ps->ctx, &lets);
  scope_restore(ps, mark);
  ps->depth -= level;
  if (st) {
    psg_expr_release(body);
    return st;
  }
  *out = body;
  return PSG_OK;
}

/* { sequence } */
static psg_status parse_block(parser *ps, psg_expr **out) {
  *out = NULL;
  if (!expect(ps, "{", "to start a block")) return PSG_ERR_PARSE;
  return parse_seq(ps, "}", out);
}

/* A sequence where an expression is expected (call arguments, tuple fields,
 * a condition, inside parentheses), as TVM's parser reads them. */
static psg_status parse_expr(parser *ps, psg_expr **out) { return parse_seq(ps, NULL, out); }

/* PrimFuncs in a Relay text ------------------------------------------------------
 * (docs/text-format.md, "Relay and TIR in one file"). A "@T.prim_func" in
 * column 1 where a def may start opens a TVMScript block. Its extent follows
 * Python's layout alone: the decorator lines, the def line, then every line
 * that is blank, indented, a '#' comment or inside brackets left open; it ends
 * before the next other line in column 1. The Relay lexer skips the block;
 * after the Relay parse, all blocks go to the TVMScript parser as one text that
 * keeps their lines and columns (the rest of the file reduced to its newlines),
 * so its diagnostics carry this file's real positions. */

static const char *line_end(const char *p, const char *end) {
  while (p < end && *p != '\n') p++;
  return p;
}

static bool blank_line(const char *p, const char *le) {
  while (p < le && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
  return p == le;
}

/* Bracket depth after the line [p, le), skipping strings and a comment. */
static int bracket_depth(const char *p, const char *le, int depth) {
  for (; p < le; p++) {
    char c = *p;
    if (c == '#') break;
    if (c == '"' || c == '\'') {
      for (p++; p < le && *p != c; p++)
        if (*p == '\\' && p + 1 < le) p++;
      if (p == le) break;
    } else if (c == '(' || c == '[' || c == '{') depth++;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
  }
  return depth;
}

/* The end of the block starting at `start` (the end of its last non-blank
 * line); *def_line is its def line (NULL if the decorators are followed by
 * no def line). */
static const char *prim_block_end(const char *start, const char *end, const char **def_line) {
  *def_line = NULL;
  const char *p = start, *last = start;
  int depth = 0;
  while (p < end) {
    const char *le = line_end(p, end);
    bool blank = blank_line(p, le), take = depth > 0 || blank || *p == ' ' || *p == '\t' || *p == '#';
    if (!take && !*def_line && *p == '@') take = true;
    if (!take && !*def_line && le - p > 4 && !memcmp(p, "def", 3) && (p[3] == ' ' || p[3] == '\t')) {
      /* "def name(": a Relay "def @f" after a stray decorator is not the block's */
      const char *q = p + 3;
      while (q < le && (*q == ' ' || *q == '\t')) q++;
      take = q < le && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'));
      if (take) *def_line = p;
    }
    if (!take) break;
    depth = bracket_depth(p, le, depth);
    if (!blank) last = le;
    p = le < end ? le + 1 : le;
  }
  return last;
}

/* At "@T.prim_func": records the block, adds its def to `defs` (the PrimFunc
 * comes later) and moves the lexer past it. */
static psg_status skip_prim_block(parser *ps, entry_vec *defs) {
  token at = ps->tok;
  const char *start = at.text - 1, *def_line = NULL;
  const char *end = prim_block_end(start, ps->lx.end, &def_line);
  /* The lexer restarts at `end`, on the block's last line. */
  int line = at.line;
  const char *line_start = start;
  for (const char *q = start; q < end; q++)
    if (*q == '\n') {
      line++;
      line_start = q + 1;
    }
  ps->lx.p = end;
  ps->lx.line = line;
  ps->lx.line_start = line_start;
  ps->next = lexer_next(&ps->lx);
  advance(ps);
  if (!def_line) return error_at(ps, &at, "expected a line 'def NAME(...):' after @T.prim_func");
  /* The function's name: the word after "def" (prim_block_end saw it start). */
  const char *n = def_line + 3;
  while (n < end && (*n == ' ' || *n == '\t')) n++;
  const char *ne = n;
  while (ne < end && (*ne == '_' || (*ne >= 'a' && *ne <= 'z') || (*ne >= 'A' && *ne <= 'Z') ||
                      (ne > n && *ne >= '0' && *ne <= '9')))
    ne++;
  int def_lineno = at.line;
  for (const char *q = start; q < def_line; q++) def_lineno += *q == '\n';
  token name = {TOK_GLOBAL, n, (size_t)(ne - n), def_lineno, (int)(n - def_line) + 1, def_line};
  psg_expr *gv = NULL;
  psg_status st = global_ref(ps, &name, &gv);
  for (size_t i = 0; !st && i < defs->len; i++)
    if (defs->data[i].gv == gv) st = error_at(ps, &name, "@%.*s is defined twice", (int)name.len, name.text);
  psgi_module_entry en = {gv, NULL, NULL, NULL};
  prim_block b = {start, end, defs->len, at};
  if (!st && !(PSGI_VEC_PUSH(ps->ctx, defs, en) && PSGI_VEC_PUSH(ps->ctx, &ps->prims, b))) st = psgi_nomem(ps->ctx);
  if (st) psg_expr_release(gv);
  return st;
}

/* Parses every block as TVMScript and puts each PrimFunc in its def. */
static psg_status parse_prim_blocks(parser *ps, psgi_module_entry *defs, const char *text_end) {
  size_t cap = (size_t)(text_end - ps->src);
  char *buf = psgi_alloc(ps->ctx, cap ? cap : 1), *o = buf;
  if (!buf) return psgi_nomem(ps->ctx);
  const char *p = ps->src;
  for (size_t i = 0; i < ps->prims.len; i++) {
    const prim_block *b = &ps->prims.data[i];
    for (; p < b->start; p++)
      if (*p == '\n') *o++ = '\n';
    memcpy(o, b->start, (size_t)(b->end - b->start));
    o += b->end - b->start;
    p = b->end;
  }
  psg_tir_script *script = NULL;
  psg_status st = psg_tir_script_parse(ps->ctx, buf, (size_t)(o - buf), ps->file, &script);
  psgi_free(ps->ctx, buf);
  if (st == PSG_ERR_PARSE) {
    ps->errors++;
    return PSG_OK; /* its diagnostics are recorded; the module fails with the others */
  }
  if (st) return st;
  if (psg_tir_script_count(script) != ps->prims.len) {
    error_at(ps, &ps->prims.data[0].at, "the @T.prim_func blocks hold %zu functions, expected %zu",
             psg_tir_script_count(script), ps->prims.len);
  } else {
    for (size_t i = 0; i < ps->prims.len; i++) {
      psgi_module_entry *e = &defs[ps->prims.data[i].def_index];
      if (strcmp(psg_tir_script_name(script, i), e->gv->u.gvar.name)) {
        error_at(ps, &ps->prims.data[i].at, "this block defines '%s', expected '%s'", psg_tir_script_name(script, i),
                 e->gv->u.gvar.name);
        break;
      }
      e->prim = psg_tir_script_get(script, i);
      e->prim_ops = psgi_tir_prim_func_ops();
      e->prim_ops->retain(e->prim);
    }
  }
  psg_tir_script_release(script);
  return PSG_OK;
}

/* Module ------------------------------------------------------------------------ */

/* #[version = "0.0.5"] */
static bool parse_version(parser *ps) {
  token t = ps->tok;
  if (!(tok_is(&t, "#") && tok_is(&ps->next, "["))) {
    error_at(ps, &t, "expected the version header #[version = \"0.0.5\"] at the start of the module");
    return false;
  }
  advance(ps);
  advance(ps);
  if (!tok_is(&ps->tok, "version")) {
    error_at(ps, &ps->tok, "expected 'version' in the header #[version = \"0.0.5\"]");
    return false;
  }
  advance(ps);
  if (!expect(ps, "=", "after version")) return false;
  if (ps->tok.kind != TOK_STRING || !(ps->tok.len == 5 && !memcmp(ps->tok.text, "0.0.5", 5))) {
    error_at(ps, &ps->tok, "unsupported text format version (only \"0.0.5\" is supported)");
    return false;
  }
  advance(ps);
  return expect(ps, "]", "to close the version header");
}

/* Where "#[metadata]" starts (at the beginning of a line), or end. */
static const char *find_metadata(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end) {
    if ((size_t)(end - p) >= 11 && !memcmp(p, "#[metadata]", 11) && (p == text || p[-1] == '\n')) return p;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    p = nl + 1;
  }
  return end;
}

static void parser_fini(parser *ps) {
  scope_restore(ps, 0);
  PSGI_VEC_FREE(ps->ctx, &ps->undo_log);
  psgi_map_fini(&ps->scope);
  for (size_t i = 0; i < ps->free_vars.len; i++) psg_expr_release(ps->free_vars.entries[i].value);
  psgi_map_fini(&ps->free_vars);
  PSGI_VEC_FREE(ps->ctx, &ps->tyscope);
  psgi_arena_fini(&ps->arena);
  for (size_t i = 0; i < ps->globals.len; i++) psg_expr_release(ps->globals.entries[i].value);
  psgi_map_fini(&ps->globals);
  PSGI_VEC_FREE(ps->ctx, &ps->global_uses);
  for (size_t i = 0; i < ps->meta.len; i++) psg_tensor_release(ps->meta.data[i]);
  PSGI_VEC_FREE(ps->ctx, &ps->meta);
  PSGI_VEC_FREE(ps->ctx, &ps->prims);
}

/* Sets up `ps` over the text and reads its metadata section, then the
 * `nmeta` extra constants after it; *meta_at is where the section starts. */
static psg_status parser_init(parser *ps, psg_ctx *ctx, const char *text, size_t len, const char *filename,
                              psg_tensor *const *meta, size_t nmeta, const char **meta_at) {
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  psgi_map_init(&ps->scope, ctx);
  psgi_map_init(&ps->free_vars, ctx);
  psgi_map_init(&ps->globals, ctx);
  psgi_arena_init(&ps->arena, ctx);
  ps->src = text ? text : "";
  *meta_at = find_metadata(ps->src, len);
  lexer_init(&ps->lx, ps->src, (size_t)(*meta_at - ps->src));
  ps->file = psgi_intern(ctx, filename ? filename : "<input>", strlen(filename ? filename : "<input>"));
  if (!ps->file) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  if (*meta_at < ps->src + len) st = psgi_metadata_parse(ctx, ps->file, ps->src, *meta_at + 11, ps->src + len, &ps->meta);
  for (size_t i = 0; !st && i < nmeta; i++) {
    if (!PSGI_VEC_PUSH(ctx, &ps->meta, meta[i])) return psgi_nomem(ctx);
    psg_tensor_retain(meta[i]);
  }
  ps->next = lexer_next(&ps->lx);
  advance(ps);
  return st;
}

psg_status psg_expr_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename, psg_expr **out) {
  *out = NULL;
  if (!text && len) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL text");
  parser ps;
  const char *meta_at;
  psg_status st = parser_init(&ps, ctx, text, len, filename, NULL, 0, &meta_at);
  /* The version line is optional here, as in TVM's ParseExpr. */
  if (!st && tok_is(&ps.tok, "#") && tok_is(&ps.next, "[") && !parse_version(&ps)) st = PSG_ERR_PARSE;
  psg_expr *e = NULL;
  if (!st) st = parse_expr(&ps, &e);
  if (!st && ps.tok.kind != TOK_EOF) {
    char buf[80];
    st = error_at(&ps, &ps.tok, "expected the end of the expression, found %s", tok_desc(&ps.tok, buf, sizeof buf));
  }
  if (!st && ps.errors) st = PSG_ERR_PARSE;
  if (st) psg_expr_release(e);
  else *out = e;
  parser_fini(&ps);
  return st;
}

psg_status psg_module_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename, psg_module **out) {
  return psg_module_parse_in(ctx, text, len, filename, NULL, NULL, 0, out);
}

psg_status psg_module_parse_in(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                               const psg_module *init, psg_tensor *const *meta, size_t nmeta, psg_module **out) {
  *out = NULL;
  if (!text && len) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL text");
  parser ps;
  const char *meta_at;
  psg_status st = parser_init(&ps, ctx, text, len, filename, meta, nmeta, &meta_at);
  entry_vec defs = {0};
  /* init's entries come first, their GlobalVars shared: the text calls them
   * by name, and its def of a taken name replaces the entry in place. */
  size_t n_init = 0;
  PSGI_VEC(bool) replaced = {0};
  for (size_t i = 0; !st && init && i < init->n; i++) {
    psgi_module_entry en = init->entries[i];
    const char *name = en.gv->u.gvar.name;
    bool is_new;
    psgi_map_entry *g = psgi_map_put_str(&ps.globals, name, strlen(name), &is_new);
    if (!g || !PSGI_VEC_PUSH(ctx, &defs, en) || !PSGI_VEC_PUSH(ctx, &replaced, false)) {
      st = psgi_nomem(ctx);
      break;
    }
    g->value = en.gv;
    psg_expr_retain(en.gv); /* the globals map's reference */
    psg_expr_retain(en.gv);
    if (en.func) psg_expr_retain(en.func);
    if (en.prim) en.prim_ops->retain(en.prim);
    n_init++;
  }
  psg_attrs *mod_attrs = NULL;
  if (init && init->attrs) {
    mod_attrs = init->attrs;
    psg_attrs_retain(mod_attrs);
  }
  if (!st && !parse_version(&ps)) st = PSG_ERR_PARSE;
  /* Optional module attributes: #[attrs = {k=v, ...}] */
  if (!st && tok_is(&ps.tok, "#") && tok_is(&ps.next, "[")) {
    advance(&ps);
    advance(&ps);
    if (!tok_is(&ps.tok, "attrs")) st = error_at(&ps, &ps.tok, "expected 'attrs' or 'metadata' after #[");
    else {
      advance(&ps);
      if (!expect(&ps, "=", "after attrs")) st = PSG_ERR_PARSE;
      else if (!tok_is(&ps.tok, "{")) st = error_at(&ps, &ps.tok, "expected a dictionary after attrs =");
      psg_attrs_release(mod_attrs); /* the text's attributes replace init's */
      mod_attrs = NULL;
      if (!st) st = parse_attr_dict(&ps, &mod_attrs);
      if (!st && !expect(&ps, "]", "to close the module attributes")) st = PSG_ERR_PARSE;
    }
  }
  while (!st && ps.tok.kind != TOK_EOF && !ps.gave_up) {
    token t = ps.tok;
    int errors_before = ps.errors;
    if (is_prim_start(&ps, &t)) {
      if (skip_prim_block(&ps, &defs) == PSG_ERR_NOMEM) st = PSG_ERR_NOMEM;
      continue;
    }
    if (!tok_is(&t, "def")) {
      char buf[80];
      error_at(&ps, &t, "expected 'def' to start a global function, found %s", tok_desc(&t, buf, sizeof buf));
      if (t.kind == TOK_ERROR) break;
      do advance(&ps);
      while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !at_global_start(&ps));
      continue;
    }
    advance(&ps);
    token name = ps.tok;
    if (name.kind != TOK_GLOBAL) {
      char buf[80];
      error_at(&ps, &name, "expected a global name (@name) after def, found %s", tok_desc(&name, buf, sizeof buf));
      do advance(&ps);
      while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !at_global_start(&ps));
      continue;
    }
    advance(&ps);
    psg_expr *gv = NULL, *fn = NULL;
    psg_status s = global_ref(&ps, &name, &gv);
    ptrdiff_t replace = -1; /* the init entry this def replaces */
    for (size_t i = 0; !s && i < defs.len; i++)
      if (defs.data[i].gv == gv) {
        if (i < n_init && !replaced.data[i]) replace = (ptrdiff_t)i;
        else s = error_at(&ps, &name, "@%.*s is defined twice", (int)name.len, name.text);
      }
    size_t mark = scope_mark(&ps), tymark = ps.tyscope.len;
    expr_vec params = {0};
    psg_attrs *attrs = NULL;
    const psg_type *ret = NULL, *tparams[64];
    int ntp = 0;
    psg_expr *body = NULL;
    if (!s && tok_is(&ps.tok, "[")) s = parse_type_params(&ps, tparams, &ntp);
    if (!s) s = parse_params(&ps, mark, &params, &attrs);
    if (!s && tok_is(&ps.tok, "->")) {
      advance(&ps);
      s = parse_type(&ps, &ret);
    }
    if (!s) s = parse_block(&ps, &body);
    scope_restore(&ps, mark);
    ps.tyscope.len = tymark;
    psg_span sp = span_of(&ps, &t);
    if (!s) s = psg_function_create_poly(ctx, params.data, params.len, body, ret, tparams, ntp, attrs, &sp, &fn);
    psgi_module_entry en = {gv, fn, NULL, NULL};
    if (!s && replace >= 0) {
      psgi_module_entry *old = &defs.data[replace];
      psg_expr_release(old->func);
      if (old->prim) old->prim_ops->release(old->prim);
      psg_expr_release(gv); /* old->gv is the same node, already held */
      old->func = fn;
      old->prim = NULL;
      old->prim_ops = NULL;
      replaced.data[replace] = true;
    } else if (!s && !PSGI_VEC_PUSH(ctx, &defs, en)) s = psgi_nomem(ctx);
    if (s) {
      psg_expr_release(fn);
      psg_expr_release(gv);
      if (s == PSG_ERR_NOMEM) st = s;
      /* A failure no parse error explains (a constructor's) must still fail the parse. */
      else if (ps.errors == errors_before) error_at(&ps, &t, "cannot build this function: %s", psg_status_str(s));
      if (s != PSG_ERR_NOMEM && !tok_is(&ps.tok, "def"))
        while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !at_global_start(&ps)) advance(&ps);
    }
    psg_expr_release(body);
    psg_attrs_release(attrs);
    for (size_t i = 0; i < params.len; i++) psg_expr_release(params.data[i]);
    PSGI_VEC_FREE(ctx, &params);
    if (ps.tok.kind == TOK_ERROR && !ps.gave_up) {
      char buf[80];
      error_at(&ps, &ps.tok, "%s", ps.lx.error ? ps.lx.error : tok_desc(&ps.tok, buf, sizeof buf));
      break;
    }
  }
  if (!st && ps.prims.len && !ps.gave_up) st = parse_prim_blocks(&ps, defs.data, meta_at);
  /* Every @name used must be defined. */
  for (size_t i = 0; !st && i < ps.global_uses.len; i++) {
    token *u = &ps.global_uses.data[i];
    bool found = false;
    for (size_t k = 0; k < defs.len && !found; k++) {
      const char *n = defs.data[k].gv->u.gvar.name;
      found = strlen(n) == u->len && !memcmp(n, u->text, u->len);
    }
    if (!found) error_at(&ps, u, "undefined global function @%.*s", (int)u->len, u->text);
  }
  if (!st && ps.errors) st = PSG_ERR_PARSE;
  if (!st) st = psgi_module_from_entries(ctx, defs.data, defs.len, mod_attrs, out);
  for (size_t i = 0; i < defs.len; i++) {
    psg_expr_release(defs.data[i].gv);
    psg_expr_release(defs.data[i].func);
    if (defs.data[i].prim) defs.data[i].prim_ops->release(defs.data[i].prim);
  }
  PSGI_VEC_FREE(ctx, &defs);
  PSGI_VEC_FREE(ctx, &replaced);
  psg_attrs_release(mod_attrs);
  parser_fini(&ps);
  return st;
}

psg_status psg_module_parse_file(psg_ctx *ctx, const char *path, psg_module **out) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = psgi_alloc(ctx, cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = psgi_realloc(ctx, buf, cap * 2);
      if (!nb) {
        psgi_free(ctx, buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  int read_errno = ferror(f) ? errno : 0; /* EISDIR for a directory: say so */
  fclose(f);
  if (!buf) return psgi_nomem(ctx);
  if (read_errno) {
    psgi_free(ctx, buf);
    return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot read %s: %s", path, strerror(read_errno));
  }
  psg_status st = psg_module_parse(ctx, buf, n, path, out);
  psgi_free(ctx, buf);
  return st;
}
