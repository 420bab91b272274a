/* Passage — TVMScript parser (include/passage/tvmscript.h): everything the
 * printer writes plus the sugar TVM's tests use (docs/text-format.md).
 *
 * Blocks are not parsed by recursion: each block statement (for, if, with,
 * and the concise `x = e` / `assert` forms, whose body is the rest of the
 * enclosing block) pushes a frame, and a DEDENT closes the concise frames
 * above the innermost indented one, then that one. Only expressions recurse,
 * at most MAX_DEPTH levels. Errors are located diagnostics with the source
 * line and a caret; after one, the parser skips to the next line and goes on,
 * up to MAX_ERRORS, and returns no result. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "text/text_internal.h"
#include "text/tir_lex.h"
#include "text/tir_script_internal.h"
#include "text/tir_script_env.h"

enum { MAX_DEPTH = 200, MAX_ERRORS = 20 };

enum { SYM_VAR, SYM_BUFFER };
typedef struct sym {
  int kind;
  psg_tir_node *node; /* NULL: poisoned by an error (uses stay silent) */
  struct sym *prev;
} sym;

typedef struct undo_entry {
  const char *name;
  sym *prev;
} undo_entry;

enum { F_FUNC, F_FOR, F_IF, F_ELSE, F_WHILE, F_LET, F_ALLOC, F_DECL, F_ATTR, F_ASSERT, F_SKIP };

typedef struct frame {
  int kind;
  bool concise;   /* closed with the enclosing indented block */
  bool bad;       /* its header failed: the body is parsed, nothing built */
  size_t mark;    /* scope undo mark */
  size_t base;    /* its statements: ps->stmts[base..] */
  size_t lbase;   /* F_FOR: its loops: ps->loops[lbase..] */
  psg_tir_node *a, *b, *c; /* payload, owned: see close_frame */
  psg_tir_node **extents; size_t nextents; /* F_ALLOC */
  psg_tir_dtype dtype;
  const char *key; /* F_ATTR */
  psg_attrs *ann;  /* F_ALLOC */
  ttoken at;
} frame;

typedef struct loop_info {
  psg_tir_node *var, *min, *extent;
  int kind;
  psg_attrs *ann;
} loop_info;

typedef struct parser {
  psg_ctx *ctx;
  const char *file;
  tlexer lx;
  ttoken tok, next;
  int depth, errors;
  size_t dmark;
  bool gave_up, oom;
  psgi_map scope; /* name (interned) -> sym* */
  PSGI_VEC(undo_entry) undo;
  psgi_arena arena;
  PSGI_VEC(frame) frames;
  PSGI_VEC(psg_tir_node *) stmts; /* NULL entries: failed statements */
  PSGI_VEC(loop_info) loops;
  /* the function being parsed */
  PSGI_VEC(psg_tir_node *) params;
  PSGI_VEC(size_t) map_params;
  PSGI_VEC(psg_tir_node *) map_bufs;
  psg_attrs *func_attrs;
  PSGI_VEC(psg_tir_node *) owned; /* nodes the symbols hold */
  psg_tir_script_env *env; /* names from outside the text, or NULL (tir_script_env.c) */
} parser;

/* Tokens and errors --------------------------------------------------------- */

static void advance(parser *ps) {
  ps->tok = ps->next;
  ps->next = ps->env ? psgi_tir_script_env_next(ps->env, &ps->lx, &ps->tok) : tlex_next(&ps->lx);
}

static psg_status verror_at(parser *ps, const ttoken *t, const char *fmt, va_list ap) {
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
  size_t n = tlex_line_len(&ps->lx, t->line_start);
  if (n > sizeof line) n = sizeof line;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t->line_start[i];
    line[i] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  psgi_diag_add(ps->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, ps->file, t->line, t->col, line, n, NULL, "%s", msg);
  return PSG_ERR_PARSE;
}

static psg_status error_at(parser *ps, const ttoken *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static psg_status error_at(parser *ps, const ttoken *t, const char *fmt, ...) {
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

static psg_status expected(parser *ps, const char *what) {
  char buf[80];
  return error_at(ps, &ps->tok, "expected %s, found %s", what, tok_desc(&ps->tok, buf, sizeof buf));
}

static bool accept(parser *ps, const char *s) {
  if (!tt_is(&ps->tok, s)) return false;
  advance(ps);
  return true;
}

static psg_status expect(parser *ps, const char *s) {
  if (accept(ps, s)) return PSG_OK;
  char what[32];
  snprintf(what, sizeof what, "'%s'", s);
  return expected(ps, what);
}

static bool is_name(const ttoken *t) { return t->kind == TT_NAME; }

/* A constructor failed: its diagnostic (no location) gets the token's. */
static psg_status located(parser *ps, const ttoken *t, size_t diag_mark, psg_status st) {
  if (!st) return st;
  if (st == PSG_ERR_NOMEM) {
    ps->oom = ps->gave_up = true;
    return st;
  }
  char line[200];
  size_t n = tlex_line_len(&ps->lx, t->line_start);
  if (n > sizeof line) n = sizeof line;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t->line_start[i];
    line[i] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  psgi_diag_locate_since(ps->ctx, diag_mark, ps->file, t->line, t->col, line, n);
  ps->errors++;
  return PSG_ERR_PARSE;
}
/* (the mark is taken before the call runs: a comma sequences them) */
#define BUILD(t, call) (ps->dmark = psg_ctx_diag_count(ps->ctx), located(ps, (t), ps->dmark, (call)))

/* Scopes --------------------------------------------------------------------- */

static const char *intern_tok(parser *ps, const ttoken *t) { return psgi_intern(ps->ctx, t->text, t->len); }

static psg_status define(parser *ps, const ttoken *t, int kind, psg_tir_node *node);
static sym *lookup(parser *ps, const char *s, size_t n) {
  psgi_map_entry *e = psgi_map_get_str(&ps->scope, s, n);
  if ((e && e->value) || !ps->env) return e ? e->value : NULL;
  /* a name of the environment becomes a symbol of the current scope */
  bool buf = false;
  psg_tir_node *v = psgi_tir_script_env_node(ps->env, s, n, &buf);
  ttoken t = {.kind = TT_NAME, .text = s, .len = n};
  if (!v || define(ps, &t, buf ? SYM_BUFFER : SYM_VAR, v)) return NULL;
  e = psgi_map_get_str(&ps->scope, s, n);
  return e ? e->value : NULL;
}

/* Binds `name` to node (retained by the parser until the end) in the
 * current scope. */
static void oom(parser *ps);
static psg_status define(parser *ps, const ttoken *t, int kind, psg_tir_node *node) {
  const char *name = intern_tok(ps, t);
  sym *s = psgi_arena_alloc(&ps->arena, sizeof *s);
  psgi_map_entry *e = name && s ? psgi_map_put_str(&ps->scope, name, strlen(name), NULL) : NULL;
  if (!e || !PSGI_VEC_PUSH(ps->ctx, &ps->undo, ((undo_entry){name, e->value})) ||
      (node && !PSGI_VEC_PUSH(ps->ctx, &ps->owned, node))) {
    oom(ps);
    return PSG_ERR_NOMEM;
  }
  if (node) psg_tir_retain(node);
  s->kind = kind;
  s->node = node;
  s->prev = e->value;
  e->value = s;
  return PSG_OK;
}

static void undo_to(parser *ps, size_t mark) {
  while (ps->undo.len > mark) {
    undo_entry u = ps->undo.data[--ps->undo.len];
    psgi_map_entry *e = psgi_map_get_str(&ps->scope, u.name, strlen(u.name));
    if (e) e->value = u.prev;
  }
}

/* Skips to the end of the current line (error recovery). */
static void skip_line(parser *ps) {
  while (ps->tok.kind != TT_EOF && ps->tok.kind != TT_NEWLINE) {
    if (ps->tok.kind == TT_INDENT || ps->tok.kind == TT_DEDENT) return;
    advance(ps);
  }
  if (ps->tok.kind == TT_NEWLINE) advance(ps);
}

/* Expressions ------------------------------------------------------------------ */

static psg_tir_node *parse_expr(parser *ps);

static psg_tir_node *int_imm(parser *ps, const ttoken *t, psg_tir_dtype dt, int64_t v) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_int_imm_create(ps->ctx, dt, v, NULL, &out));
  return out;
}

static psg_tir_node *float_imm(parser *ps, const ttoken *t, psg_tir_dtype dt, double v) {
  psg_tir_node *out = NULL;
  /* The printer writes the shortest float32 text of a float of 32 bits or
   * fewer (float32, float16, bfloat16), which reads as a double a little
   * off (3.4028235e+38): round to float32 (without an out-of-range
   * conversion) so that parse(print(x)) is x (fuzz_tvmscript found a
   * float16 -1.6 that did not come back). */
  if (psg_tir_dtype_is_float(dt) && psg_tir_dtype_bits(dt) <= 32 && isfinite(v)) {
    if (fabs(v) > 3.4028234663852886e+38 && fabs(v) < 3.4028235677973366e+38) v = copysign(3.4028234663852886e+38, v);
    else if (fabs(v) <= 3.4028234663852886e+38) v = (double)(float)v;
  }
  BUILD(t, psg_tir_float_imm_create(ps->ctx, dt, v, NULL, &out));
  return out;
}

/* A literal retyped to `dt` (Python numbers take the other operand's
 * dtype, as TVM's operators do); NULL if `e` is no literal or cannot be. */
static psg_tir_node *retype_literal(parser *ps, const ttoken *t, psg_tir_node *e, psg_tir_dtype dt) {
  if (psg_tir_dtype_lanes(dt) != 1) return NULL;
  if (e->kind == PSG_TIR_INT_IMM && !psg_tir_dtype_is_bool(e->dtype)) {
    if (psg_tir_dtype_is_float(dt)) return float_imm(ps, t, dt, (double)e->u.int_value);
    if (psg_tir_dtype_is_int(dt) || psg_tir_dtype_is_uint(dt)) return int_imm(ps, t, dt, e->u.int_value);
  }
  if (e->kind == PSG_TIR_FLOAT_IMM && psg_tir_dtype_is_float(dt)) return float_imm(ps, t, dt, e->u.float_value);
  return NULL;
}

/* Makes the dtypes of *a and *b agree where TVM's operators would: a
 * literal takes the other side's dtype; a scalar is broadcast to a vector. */
static void match_types(parser *ps, const ttoken *t, psg_tir_node **a, psg_tir_node **b) {
  if ((*a)->dtype == (*b)->dtype) return;
  psg_tir_node *r;
  if ((r = retype_literal(ps, t, *b, (*a)->dtype))) {
    psg_tir_release(*b);
    *b = r;
    return;
  }
  if ((r = retype_literal(ps, t, *a, (*b)->dtype))) {
    psg_tir_release(*a);
    *a = r;
    return;
  }
  int la = psg_tir_dtype_lanes((*a)->dtype), lb = psg_tir_dtype_lanes((*b)->dtype);
  psg_tir_node **s = la == 1 && lb > 1 ? a : lb == 1 && la > 1 ? b : NULL;
  if (!s) return;
  int lanes = la > lb ? la : lb;
  psg_tir_dtype want = psg_tir_dtype_with_lanes((s == a ? *b : *a)->dtype, 1);
  if ((*s)->dtype != want && (r = retype_literal(ps, t, *s, want))) {
    psg_tir_release(*s);
    *s = r;
  }
  psg_tir_node *bc = NULL;
  if (!psg_tir_broadcast_create(ps->ctx, *s, lanes, NULL, &bc)) {
    psg_tir_release(*s);
    *s = bc;
  }
}

/* Builds a binary node and releases the operands. */
static psg_tir_node *binary(parser *ps, const ttoken *t, int kind, psg_tir_node *a, psg_tir_node *b) {
  if (!a || !b) {
    psg_tir_release(a);
    psg_tir_release(b);
    return NULL;
  }
  match_types(ps, t, &a, &b);
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_binary_create(ps->ctx, kind, a, b, NULL, &out));
  psg_tir_release(a);
  psg_tir_release(b);
  return out;
}

static void release_all(psg_tir_node **v, size_t n) {
  for (size_t i = 0; i < n; i++) psg_tir_release(v[i]);
}

typedef PSGI_VEC(psg_tir_node *) node_vec;

/* Out of memory: recorded once; the parse stops and reports PSG_ERR_NOMEM. */
static void oom(parser *ps) {
  if (!ps->oom) psgi_nomem(ps->ctx);
  ps->oom = ps->gave_up = true;
}

/* Appends e to v, or releases it (out of memory). */
static bool push_node(parser *ps, node_vec *v, psg_tir_node *e) {
  if (PSGI_VEC_PUSH(ps->ctx, v, e)) return true;
  psg_tir_release(e);
  oom(ps);
  return false;
}

/* "(a, b, ...)" after the '(' was consumed, up to and including ')'. */
static bool parse_args(parser *ps, node_vec *out) {
  while (!tt_is(&ps->tok, ")")) {
    psg_tir_node *e = parse_expr(ps);
    if (!e) return false;
    if (!PSGI_VEC_PUSH(ps->ctx, out, e)) {
      psg_tir_release(e);
      oom(ps);
      return false;
    }
    if (!accept(ps, ",")) break;
  }
  return !expect(ps, ")");
}

/* A string literal's bytes with the escapes the printer writes decoded into
 * buf (at most cap bytes); the length. */
/* The text of string token `t` with its escapes resolved, into buf (cap
 * bytes, NUL-terminated: at most cap - 1 characters). A string that does not
 * fit, or that holds a NUL byte (raw or \x00) where a C string is wanted
 * (names, scopes, attribute strings; a StringImm may hold one), is a located
 * error rather than a silently cut
 * name (fuzz_tvmscript found an attribute string cut at its NUL). */
static bool unescape(parser *ps, const ttoken *t, char *buf, size_t cap, bool allow_nul, size_t *len) {
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
      error_at(ps, t, "a string here may not hold a NUL byte");
      return false;
    }
    if (n + 1 >= cap) {
      error_at(ps, t, "string longer than %zu bytes", cap - 1);
      return false;
    }
    buf[n++] = c;
  }
  buf[n] = 0;
  *len = n;
  return true;
}

/* A dtype given as a string token ("float32"). */
static bool string_dtype(parser *ps, psg_tir_dtype *out) {
  if (ps->tok.kind != TT_STRING || !(*out = psgi_tir_script_dtype_word(ps->tok.text, ps->tok.len))) {
    expected(ps, "a dtype string such as \"float32\"");
    return false;
  }
  advance(ps);
  return true;
}

static bool int_literal(parser *ps, int64_t *out) {
  bool neg = accept(ps, "-");
  if (ps->tok.kind != TT_INT || !psgi_text_parse_i64(ps->tok.text, ps->tok.len, out)) {
    expected(ps, "an integer");
    return false;
  }
  if (neg) *out = -*out;
  advance(ps);
  return true;
}

static psg_tir_node *call_op(parser *ps, const ttoken *t, psg_tir_dtype dt, const char *op, node_vec *args) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_call_create(ps->ctx, dt, op, args->data, args->len, NULL, &out));
  return out;
}

/* T.Let(body, where={v: value}): the value and v come first (v is used in
 * the body), so the body's tokens are skipped, then parsed again. */
static psg_tir_node *parse_let_expr(parser *ps, const ttoken *t) {
  tlex_pos body_pos = ps->lx.s;
  ttoken body_tok = ps->tok, body_next = ps->next;
  int nest = 0;
  while (ps->tok.kind != TT_EOF && ps->tok.kind != TT_ERROR && !(nest == 0 && tt_is(&ps->tok, ","))) {
    if (tt_is(&ps->tok, "(") || tt_is(&ps->tok, "[") || tt_is(&ps->tok, "{")) nest++;
    if (tt_is(&ps->tok, ")") || tt_is(&ps->tok, "]") || tt_is(&ps->tok, "}")) {
      if (nest-- == 0) break;
    }
    advance(ps);
  }
  if (expect(ps, ",") || expect(ps, "where") || expect(ps, "=") || expect(ps, "{")) return NULL;
  if (!is_name(&ps->tok)) {
    expected(ps, "a variable name");
    return NULL;
  }
  ttoken vt = ps->tok;
  advance(ps);
  if (expect(ps, ":")) return NULL;
  psg_tir_node *value = parse_expr(ps);
  if (!value) return NULL;
  if (expect(ps, "}") || expect(ps, ")")) {
    psg_tir_release(value);
    return NULL;
  }
  tlex_pos end_pos = ps->lx.s;
  ttoken end_tok = ps->tok, end_next = ps->next;
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)(vt.len > 255 ? 255 : vt.len), vt.text);
  psg_tir_node *var = NULL, *body = NULL, *out = NULL;
  size_t mark = ps->undo.len;
  if (!BUILD(&vt, psg_tir_var_create(ps->ctx, name, value->dtype, NULL, NULL, &var)) &&
      !define(ps, &vt, SYM_VAR, var)) {
    ps->lx.s = body_pos;
    ps->tok = body_tok;
    ps->next = body_next;
    body = parse_expr(ps);
    if (body) BUILD(t, psg_tir_let_create(ps->ctx, var, value, body, NULL, &out));
    ps->lx.s = end_pos;
    ps->tok = end_tok;
    ps->next = end_next;
  }
  undo_to(ps, mark);
  psg_tir_release(var);
  psg_tir_release(value);
  psg_tir_release(body);
  return out;
}

/* T.<name>(...) in an expression; the '(' is the current token. */
static psg_tir_node *parse_t_call(parser *ps, const ttoken *nt) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(nt->len > 60 ? 60 : nt->len), nt->text);
  if (expect(ps, "(")) return NULL;
  if (!strcmp(name, "Let")) return parse_let_expr(ps, nt);
  psg_tir_dtype dt = psgi_tir_script_dtype_word(nt->text, nt->len);
  node_vec args = {0};
  psg_tir_node *out = NULL;
  if (dt) {
    /* T.float32(1), T.int64(-3), T.bool(True), T.float32("inf"), T.int32(x) */
    if (ps->tok.kind == TT_STRING && psg_tir_dtype_is_float(dt)) {
      char s[16];
      size_t n;
      if (!unescape(ps, &ps->tok, s, sizeof s, false, &n)) return NULL;
      double v = !strcmp(s, "inf") ? INFINITY : !strcmp(s, "-inf") ? -INFINITY : !strcmp(s, "nan") ? NAN : 0;
      if (v == 0) {
        expected(ps, "\"inf\", \"-inf\" or \"nan\"");
        return NULL;
      }
      advance(ps);
      if (expect(ps, ")")) return NULL;
      return float_imm(ps, nt, dt, v);
    }
    if (tt_is(&ps->tok, ")")) {
      error_at(ps, nt, "T.%s() declares a variable: write 'n = T.%s()' as a statement", name, name);
      return NULL;
    }
    /* T.float64(0.1): the literal's own value, not a float32 rounding of it */
    bool neg = tt_is(&ps->tok, "-");
    if (psg_tir_dtype_is_float(dt) && psg_tir_dtype_lanes(dt) == 1) {
      tlex_pos p0 = ps->lx.s;
      ttoken t0 = ps->tok, n0 = ps->next;
      if (neg) advance(ps);
      if ((ps->tok.kind == TT_FLOAT || ps->tok.kind == TT_INT) && tt_is(&ps->next, ")")) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(ps->tok.len > 63 ? 63 : ps->tok.len), ps->tok.text);
        double v = strtod(buf, NULL);
        advance(ps);
        advance(ps);
        return float_imm(ps, nt, dt, neg ? -v : v);
      }
      ps->lx.s = p0;
      ps->tok = t0;
      ps->next = n0;
    }
    if (!parse_args(ps, &args)) goto done;
    if (args.len != 1) {
      error_at(ps, nt, "T.%s takes one value", name);
      goto done;
    }
    psg_tir_node *v = args.data[0];
    if (psg_tir_dtype_lanes(dt) == 1 && (v->kind == PSG_TIR_INT_IMM || v->kind == PSG_TIR_FLOAT_IMM)) {
      if (psg_tir_dtype_is_float(dt))
        out = float_imm(ps, nt, dt, v->kind == PSG_TIR_INT_IMM ? (double)v->u.int_value : v->u.float_value);
      else if (v->kind == PSG_TIR_INT_IMM)
        out = int_imm(ps, nt, dt, v->u.int_value);
      else
        BUILD(nt, psg_tir_cast_create(ps->ctx, dt, v, NULL, &out));
    } else if (v->dtype == dt) {
      out = v;
      psg_tir_retain(out);
    } else {
      BUILD(nt, psg_tir_cast_create(ps->ctx, dt, v, NULL, &out));
    }
    goto done;
  }
  if (!strcmp(name, "Cast") || !strcmp(name, "reinterpret") || !strcmp(name, "call_extern") ||
      !strcmp(name, "call_pure_extern") || !strcmp(name, "call_intrin")) {
    /* dtype first */
    if (!string_dtype(ps, &dt)) return NULL;
    char op[80];
    if (!strcmp(name, "call_intrin")) {
      if (!accept(ps, ",") || ps->tok.kind != TT_STRING) {
        expected(ps, "an op name string");
        return NULL;
      }
      snprintf(op, sizeof op, "%.*s", (int)(ps->tok.len > 70 ? 70 : ps->tok.len), ps->tok.text);
      advance(ps);
    } else {
      snprintf(op, sizeof op, "tir.%s", name);
    }
    if (accept(ps, ",") && !parse_args(ps, &args)) goto done;
    if (args.len == 0 && expect(ps, ")")) goto done;
    if (!strcmp(name, "Cast")) {
      if (args.len != 1) error_at(ps, nt, "T.Cast takes a dtype and one value");
      else BUILD(nt, psg_tir_cast_create(ps->ctx, dt, args.data[0], NULL, &out));
      goto done;
    }
    if (psg_tir_op_find(op) < 0) {
      error_at(ps, nt, "unknown TIR op '%s'", op);
      goto done;
    }
    out = call_op(ps, nt, dt, op, &args);
    goto done;
  }
  if (!parse_args(ps, &args)) goto done;
  size_t n = args.len;
  static const struct { const char *name; int kind; } bins[] = {
      {"min", PSG_TIR_MIN}, {"max", PSG_TIR_MAX}, {"truncdiv", PSG_TIR_DIV}, {"truncmod", PSG_TIR_MOD},
      {"floordiv", PSG_TIR_FLOOR_DIV}, {"floormod", PSG_TIR_FLOOR_MOD},
      /* the node classes, as `op = T.Add` aliases call them */
      {"Add", PSG_TIR_ADD}, {"Sub", PSG_TIR_SUB}, {"Mul", PSG_TIR_MUL}, {"Div", PSG_TIR_DIV}, {"Mod", PSG_TIR_MOD},
      {"FloorDiv", PSG_TIR_FLOOR_DIV}, {"FloorMod", PSG_TIR_FLOOR_MOD}, {"Min", PSG_TIR_MIN}, {"Max", PSG_TIR_MAX},
      {"EQ", PSG_TIR_EQ}, {"NE", PSG_TIR_NE}, {"LT", PSG_TIR_LT}, {"LE", PSG_TIR_LE}, {"GT", PSG_TIR_GT},
      {"GE", PSG_TIR_GE}, {"And", PSG_TIR_AND}, {"Or", PSG_TIR_OR}};
  for (size_t i = 0; i < sizeof bins / sizeof *bins; i++)
    if (!strcmp(name, bins[i].name)) {
      if (n != 2) {
        error_at(ps, nt, "T.%s takes 2 arguments, got %zu", name, n);
        goto done;
      }
      out = binary(ps, nt, bins[i].kind, args.data[0], args.data[1]);
      args.len = 0;
      goto done;
    }
  if (!strcmp(name, "cast")) {
    error_at(ps, nt, "write T.Cast(\"dtype\", value)");
    goto done;
  }
  if (!strcmp(name, "Select") || !strcmp(name, "if_then_else")) {
    if (n != 3) {
      error_at(ps, nt, "T.%s takes 3 arguments, got %zu", name, n);
      goto done;
    }
    match_types(ps, nt, &args.data[1], &args.data[2]);
    if (!strcmp(name, "Select")) BUILD(nt, psg_tir_select_create(ps->ctx, args.data[0], args.data[1], args.data[2], NULL, &out));
    else out = call_op(ps, nt, args.data[1]->dtype, "tir.if_then_else", &args);
    goto done;
  }
  if (!strcmp(name, "Ramp") || !strcmp(name, "Broadcast")) {
    bool ramp = name[0] == 'R';
    size_t want = ramp ? 3 : 2;
    if (n != want || args.data[n - 1]->kind != PSG_TIR_INT_IMM) {
      error_at(ps, nt, "T.%s takes %s and a literal lane count", name, ramp ? "a base, a stride" : "a value");
      goto done;
    }
    int lanes = (int)(args.data[n - 1]->u.int_value > 65535 ? 0 : args.data[n - 1]->u.int_value);
    if (ramp) {
      match_types(ps, nt, &args.data[0], &args.data[1]);
      BUILD(nt, psg_tir_ramp_create(ps->ctx, args.data[0], args.data[1], lanes, NULL, &out));
    } else {
      BUILD(nt, psg_tir_broadcast_create(ps->ctx, args.data[0], lanes, NULL, &out));
    }
    goto done;
  }
  char op[80];
  snprintf(op, sizeof op, "tir.%s", name);
  if (psg_tir_op_find(op) < 0) {
    error_at(ps, nt, "unknown TVMScript function 'T.%s'", name);
    goto done;
  }
  dt = psgi_tir_script_call_dtype(op, args.data, n);
  if (!dt) {
    error_at(ps, nt, "T.%s needs its result dtype: write T.call_intrin(\"dtype\", \"%s\", ...)", name, op);
    goto done;
  }
  out = call_op(ps, nt, dt, op, &args);
done:
  release_all(args.data, args.len);
  PSGI_VEC_FREE(ps->ctx, &args);
  return out;
}

/* One index of A[...]: an expression or a slice a:b[:s] (a Ramp whose lane
 * count is b - a over s: b - a must be a literal, as in a:a + 4). */
static psg_tir_node *parse_index(parser *ps) {
  ttoken t = ps->tok;
  psg_tir_node *a = parse_expr(ps);
  if (!a || !accept(ps, ":")) return a;
  psg_tir_node *b = parse_expr(ps), *out = NULL;
  int64_t stride = 1;
  if (b && accept(ps, ":") && !int_literal(ps, &stride)) goto done;
  if (!b) goto done;
  int64_t span;
  if (a->kind == PSG_TIR_INT_IMM && b->kind == PSG_TIR_INT_IMM) span = b->u.int_value - a->u.int_value;
  else if (b->kind == PSG_TIR_ADD && b->kids[1]->kind == PSG_TIR_INT_IMM) span = b->kids[1]->u.int_value;
  else {
    error_at(ps, &t, "the bounds of a slice must differ by a literal (write a:a + 4)");
    goto done;
  }
  if (stride <= 0 || span <= 0 || span % stride || span / stride < 2 || span / stride > PSG_TIR_MAX_LANES) {
    error_at(ps, &t, "a slice needs 2 to %d lanes and a positive stride dividing its length", PSG_TIR_MAX_LANES);
    goto done;
  }
  psg_tir_node *st = int_imm(ps, &t, a->dtype, stride);
  if (st) BUILD(&t, psg_tir_ramp_create(ps->ctx, a, st, (int)(span / stride), NULL, &out));
  psg_tir_release(st);
done:
  psg_tir_release(a);
  psg_tir_release(b);
  return out;
}

/* "i, j]" after '[' or "[i, j]" of vload/vstore, into out. */
static bool parse_indices(parser *ps, node_vec *out, const char *close) {
  while (!tt_is(&ps->tok, close)) {
    psg_tir_node *e = parse_index(ps);
    if (!e) return false;
    if (!PSGI_VEC_PUSH(ps->ctx, out, e)) {
      psg_tir_release(e);
      oom(ps);
      return false;
    }
    if (!accept(ps, ",")) break;
  }
  return !expect(ps, close);
}

static psg_tir_node *buffer_load(parser *ps, const ttoken *t, psg_tir_node *buf, node_vec *ix, psg_tir_node *pred) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_buffer_load_create(ps->ctx, buf, ix->data, ix->len, pred, NULL, &out));
  release_all(ix->data, ix->len);
  PSGI_VEC_FREE(ps->ctx, ix);
  psg_tir_release(pred);
  return out;
}

/* "[i], predicate=p)" of A.vload( / "[i], v, predicate=p)" of A.vstore(. */
static bool parse_vaccess(parser *ps, node_vec *ix, psg_tir_node **value, psg_tir_node **pred) {
  if (expect(ps, "[") || !parse_indices(ps, ix, "]")) return false;
  if (value) {
    if (expect(ps, ",") || !(*value = parse_expr(ps))) return false;
  }
  if (expect(ps, ",") || expect(ps, "predicate") || expect(ps, "=") || !(*pred = parse_expr(ps))) return false;
  return !expect(ps, ")");
}

static psg_tir_node *parse_name(parser *ps) {
  ttoken t = ps->tok;
  advance(ps);
  if (tt_is(&t, "T") && tt_is(&ps->tok, ".")) {
    advance(ps);
    if (!is_name(&ps->tok)) {
      expected(ps, "a name after 'T.'");
      return NULL;
    }
    ttoken nt = ps->tok;
    advance(ps);
    if (!tt_is(&ps->tok, "(")) {
      error_at(ps, &nt, "T.%.*s is not a value (a call T.%.*s(...) was expected)", (int)nt.len, nt.text,
               (int)nt.len, nt.text);
      return NULL;
    }
    return parse_t_call(ps, &nt);
  }
  if (tt_is(&t, "True") || tt_is(&t, "False")) return int_imm(ps, &t, psg_tir_dtype_bool(), t.text[0] == 'T');
  sym *s = lookup(ps, t.text, t.len);
  if (!s) {
    error_at(ps, &t, "undefined name '%.*s'", (int)(t.len > 60 ? 60 : t.len), t.text);
    return NULL;
  }
  if (!s->node) {
    ps->errors++;
    return NULL;
  }
  if (s->kind == SYM_VAR) {
    psg_tir_retain(s->node);
    return s->node;
  }
  /* a buffer: A[...], A.data, A.vload(...) */
  if (accept(ps, "[")) {
    node_vec ix = {0};
    if (!parse_indices(ps, &ix, "]")) {
      release_all(ix.data, ix.len);
      PSGI_VEC_FREE(ps->ctx, &ix);
      return NULL;
    }
    return buffer_load(ps, &t, s->node, &ix, NULL);
  }
  if (accept(ps, ".")) {
    if (accept(ps, "data")) {
      psg_tir_node *d = s->node->kids[0];
      psg_tir_retain(d);
      return d;
    }
    if (accept(ps, "vload")) {
      node_vec ix = {0};
      psg_tir_node *pred = NULL;
      if (expect(ps, "(") || !parse_vaccess(ps, &ix, NULL, &pred)) {
        release_all(ix.data, ix.len);
        PSGI_VEC_FREE(ps->ctx, &ix);
        psg_tir_release(pred);
        return NULL;
      }
      return buffer_load(ps, &t, s->node, &ix, pred);
    }
    expected(ps, "'data' or 'vload' after a buffer name");
    return NULL;
  }
  error_at(ps, &t, "buffer '%.*s' used as a value (index it: %.*s[i])", (int)t.len, t.text, (int)t.len, t.text);
  return NULL;
}

/* Kept out of parse_primary so that its buffer is not on the stack of
 * every nesting level. */
static __attribute__((noinline)) psg_tir_node *parse_string(parser *ps) {
  ttoken t = ps->tok;
  char buf[1024];
  size_t n;
  if (!unescape(ps, &t, buf, sizeof buf, true, &n)) return NULL;
  advance(ps);
  psg_tir_node *out = NULL;
  BUILD(&t, psg_tir_string_imm_create(ps->ctx, buf, n, NULL, &out));
  return out;
}

static psg_tir_node *parse_primary(parser *ps) {
  ttoken t = ps->tok;
  if (t.kind == TT_INT) {
    int64_t v;
    if (!psgi_text_parse_i64(t.text, t.len, &v)) {
      error_at(ps, &t, "integer literal out of range");
      return NULL;
    }
    advance(ps);
    bool fits = v >= INT32_MIN && v <= INT32_MAX;
    return int_imm(ps, &t, fits ? psg_tir_dtype_int32() : psg_tir_dtype_int64(), v);
  }
  if (t.kind == TT_FLOAT) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(t.len > 63 ? 63 : t.len), t.text);
    advance(ps);
    /* float32 like TVM's Python floats, float64 when float32 cannot hold it
     * (T.float64(0.1) reads its literal itself: parse_t_call) */
    double v = strtod(buf, NULL);
    bool f32 = v == 0 || (fabs(v) <= 3.4028234663852886e+38 && fabs(v) >= 1.1754943508222875e-38);
    return float_imm(ps, &t, f32 ? psg_tir_dtype_float32() : psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 64, 1), v);
  }
  if (t.kind == TT_STRING) return parse_string(ps);
  if (t.kind == TT_NAME && !tt_is(&t, "not") && !tt_is(&t, "and") && !tt_is(&t, "or")) return parse_name(ps);
  if (accept(ps, "(")) {
    psg_tir_node *e = parse_expr(ps);
    if (e && expect(ps, ")")) {
      psg_tir_release(e);
      return NULL;
    }
    return e;
  }
  expected(ps, "an expression");
  return NULL;
}

static psg_tir_node *parse_unary(parser *ps) {
  if (!tt_is(&ps->tok, "-")) return parse_primary(ps);
  ttoken t = ps->tok;
  advance(ps);
  if (++ps->depth > MAX_DEPTH) {
    error_at(ps, &t, "expression nested too deeply (limit %d)", MAX_DEPTH);
    ps->depth--;
    return NULL;
  }
  psg_tir_node *e = parse_unary(ps);
  ps->depth--;
  if (!e) return NULL;
  psg_tir_node *out = NULL;
  if (e->kind == PSG_TIR_INT_IMM && !psg_tir_dtype_is_bool(e->dtype) && e->u.int_value != INT64_MIN) {
    out = int_imm(ps, &t, e->dtype, -e->u.int_value);
  } else if (e->kind == PSG_TIR_FLOAT_IMM) {
    out = float_imm(ps, &t, e->dtype, -e->u.float_value);
  } else {
    psg_tir_dtype sd = psg_tir_dtype_with_lanes(e->dtype, 1);
    psg_tir_node *zero = psg_tir_dtype_is_float(sd) ? float_imm(ps, &t, sd, 0) : int_imm(ps, &t, sd, 0);
    return binary(ps, &t, PSG_TIR_SUB, zero, e);
  }
  psg_tir_release(e);
  return out;
}

static int mul_op(const ttoken *t) {
  if (tt_is(t, "*")) return PSG_TIR_MUL;
  if (tt_is(t, "/")) return PSG_TIR_DIV;
  if (tt_is(t, "//")) return PSG_TIR_FLOOR_DIV;
  if (tt_is(t, "%")) return PSG_TIR_FLOOR_MOD;
  return -1;
}
static int add_op(const ttoken *t) {
  if (tt_is(t, "+")) return PSG_TIR_ADD;
  if (tt_is(t, "-")) return PSG_TIR_SUB;
  return -1;
}
static int cmp_op(const ttoken *t) {
  if (tt_is(t, "==")) return PSG_TIR_EQ;
  if (tt_is(t, "!=")) return PSG_TIR_NE;
  if (tt_is(t, "<")) return PSG_TIR_LT;
  if (tt_is(t, "<=")) return PSG_TIR_LE;
  if (tt_is(t, ">")) return PSG_TIR_GT;
  if (tt_is(t, ">=")) return PSG_TIR_GE;
  return -1;
}

/* Left-associative chains are loops: a + b + c + ... costs no stack. */
static psg_tir_node *parse_term(parser *ps) {
  psg_tir_node *e = parse_unary(ps);
  int k;
  while (e && (k = mul_op(&ps->tok)) >= 0) {
    ttoken t = ps->tok;
    advance(ps);
    e = binary(ps, &t, k, e, parse_unary(ps));
  }
  return e;
}

static psg_tir_node *parse_arith(parser *ps) {
  psg_tir_node *e = parse_term(ps);
  int k;
  while (e && (k = add_op(&ps->tok)) >= 0) {
    ttoken t = ps->tok;
    advance(ps);
    e = binary(ps, &t, k, e, parse_term(ps));
  }
  return e;
}

static psg_tir_node *parse_cmp(parser *ps) {
  psg_tir_node *e = parse_arith(ps);
  int k;
  if (e && (k = cmp_op(&ps->tok)) >= 0) {
    ttoken t = ps->tok;
    advance(ps);
    e = binary(ps, &t, k, e, parse_arith(ps));
    if (e && cmp_op(&ps->tok) >= 0) {
      error_at(ps, &ps->tok, "chained comparisons are not TIR: parenthesize one side");
      psg_tir_release(e);
      return NULL;
    }
  }
  return e;
}

static psg_tir_node *parse_not(parser *ps) {
  if (!tt_is(&ps->tok, "not")) return parse_cmp(ps);
  ttoken t = ps->tok;
  advance(ps);
  if (++ps->depth > MAX_DEPTH) {
    error_at(ps, &t, "expression nested too deeply (limit %d)", MAX_DEPTH);
    ps->depth--;
    return NULL;
  }
  psg_tir_node *e = parse_not(ps), *out = NULL;
  ps->depth--;
  if (e) BUILD(&t, psg_tir_not_create(ps->ctx, e, NULL, &out));
  psg_tir_release(e);
  return out;
}

static psg_tir_node *parse_and(parser *ps) {
  psg_tir_node *e = parse_not(ps);
  while (e && tt_is(&ps->tok, "and")) {
    ttoken t = ps->tok;
    advance(ps);
    e = binary(ps, &t, PSG_TIR_AND, e, parse_not(ps));
  }
  return e;
}

static psg_tir_node *parse_expr(parser *ps) {
  if (++ps->depth > MAX_DEPTH) {
    error_at(ps, &ps->tok, "expression nested too deeply (limit %d)", MAX_DEPTH);
    ps->depth--;
    return NULL;
  }
  psg_tir_node *e = parse_and(ps);
  while (e && tt_is(&ps->tok, "or")) {
    ttoken t = ps->tok;
    advance(ps);
    e = binary(ps, &t, PSG_TIR_OR, e, parse_and(ps));
  }
  ps->depth--;
  return e;
}

/* Attribute values ({...} of T.func_attr and annotations=) ---------------- */

static psg_attr *parse_attr_value(parser *ps, int depth);

static psg_attrs *parse_attr_dict(parser *ps, int depth) {
  if (expect(ps, "{")) return NULL;
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psg_attrs *out = NULL;
  bool ok = true;
  while (ok && !tt_is(&ps->tok, "}")) {
    if (ps->tok.kind != TT_STRING) {
      expected(ps, "a string key");
      ok = false;
      break;
    }
    char buf[256];
    size_t n;
    if (!unescape(ps, &ps->tok, buf, sizeof buf, false, &n)) {
      ok = false;
      break;
    }
    const char *k = psgi_intern(ps->ctx, buf, n);
    advance(ps);
    psg_attr *v = NULL;
    if (!k || expect(ps, ":") || !(v = parse_attr_value(ps, depth + 1)) || !PSGI_VEC_PUSH(ps->ctx, &keys, k) ||
        !PSGI_VEC_PUSH(ps->ctx, &vals, v)) {
      if (v && keys.len == vals.len) psg_attr_release(v);
      ok = false;
      break;
    }
    if (!accept(ps, ",")) break;
  }
  if (ok && !expect(ps, "}")) {
    ttoken t = ps->tok;
    if (psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, &out))
      error_at(ps, &t, "a key appears twice in this dictionary");
  }
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  PSGI_VEC_FREE(ps->ctx, &keys);
  PSGI_VEC_FREE(ps->ctx, &vals);
  return out;
}

static psg_attr *parse_attr_value(parser *ps, int depth) {
  psg_attr *out = NULL;
  ttoken t = ps->tok;
  if (depth > 32) {
    error_at(ps, &t, "attribute value nested too deeply (limit 32)");
    return NULL;
  }
  if (t.kind == TT_STRING) {
    char buf[1024];
    size_t n;
    if (!unescape(ps, &t, buf, sizeof buf, false, &n)) return NULL;
    advance(ps);
    psg_attr_string(ps->ctx, buf, n, &out);
    return out;
  }
  if (tt_is(&t, "None")) {
    advance(ps);
    psg_attr_none(ps->ctx, &out);
    return out;
  }
  if (tt_is(&t, "True") || tt_is(&t, "False")) {
    advance(ps);
    psg_attr_bool(ps->ctx, t.text[0] == 'T', &out);
    return out;
  }
  if (tt_is(&t, "{")) {
    psg_attrs *d = parse_attr_dict(ps, depth);
    if (d) psg_attr_dict(ps->ctx, d, &out);
    psg_attrs_release(d);
    return out;
  }
  if (accept(ps, "[")) {
    PSGI_VEC(psg_attr *) items = {0};
    bool ok = true;
    while (!tt_is(&ps->tok, "]")) {
      psg_attr *v = parse_attr_value(ps, depth + 1);
      if (!v || !PSGI_VEC_PUSH(ps->ctx, &items, v)) {
        if (v) psg_attr_release(v);
        ok = false;
        break;
      }
      if (!accept(ps, ",")) break;
    }
    if (ok && !expect(ps, "]")) psg_attr_list(ps->ctx, items.data, items.len, &out);
    for (size_t i = 0; i < items.len; i++) psg_attr_release(items.data[i]);
    PSGI_VEC_FREE(ps->ctx, &items);
    return out;
  }
  /* numbers and typed literals: an expression that is a literal */
  psg_tir_node *e = parse_expr(ps);
  if (!e) return NULL;
  if (e->kind == PSG_TIR_INT_IMM && psg_tir_dtype_is_bool(e->dtype)) psg_attr_bool(ps->ctx, e->u.int_value != 0, &out);
  else if (e->kind == PSG_TIR_INT_IMM) psg_attr_int(ps->ctx, e->u.int_value, &out);
  else if (e->kind == PSG_TIR_FLOAT_IMM) psg_attr_float(ps->ctx, e->u.float_value, &out);
  else error_at(ps, &t, "an attribute value must be a literal, a string, a list or a dictionary");
  psg_tir_release(e);
  return out;
}

/* Buffers --------------------------------------------------------------------- */

/* "(a, b)" / "[a, b]" / "a": a shape or a strides tuple. */
static bool parse_tuple(parser *ps, node_vec *out) {
  const char *close = tt_is(&ps->tok, "(") ? ")" : tt_is(&ps->tok, "[") ? "]" : NULL;
  if (!close) {
    psg_tir_node *e = parse_expr(ps);
    return e && push_node(ps, out, e);
  }
  advance(ps);
  while (!tt_is(&ps->tok, close)) {
    psg_tir_node *e = parse_expr(ps);
    if (!e) return false;
    if (!PSGI_VEC_PUSH(ps->ctx, out, e)) {
      psg_tir_release(e);
      return false;
    }
    if (!accept(ps, ",")) break;
  }
  return !expect(ps, close);
}

static bool kw(parser *ps, const char *name) {
  if (!tt_is(&ps->tok, name) || !tt_is(&ps->next, "=")) return false;
  advance(ps);
  advance(ps);
  return true;
}

/* A keyword given twice is an error, as in Python (the first value would
 * otherwise be dropped, and leaked; found by fuzz_tvmscript). `already`
 * says whether the keyword's value is set; the position is the value's. */
static bool repeated(parser *ps, bool already, const char *name) {
  if (already) error_at(ps, &ps->tok, "keyword argument repeated: %s", name);
  return already;
}

/* The arguments of T.Buffer / T.match_buffer / T.decl_buffer after the
 * shape's opening: shape, ["dtype"], keywords, ')'. `name` names the buffer
 * (and its data var when data= is absent). */
static psg_tir_node *parse_buffer_rest(parser *ps, const ttoken *at, const char *name) {
  node_vec shape = {0}, strides = {0};
  psg_tir_node *data = NULL, *elem_offset = NULL, *out = NULL;
  psg_tir_dtype dt = psg_tir_dtype_float32();
  char scope[64] = "global";
  int align = 0, offset_factor = 0, buffer_type = 0;
  PSGI_VEC(int64_t) axis = {0};
  bool ok = parse_tuple(ps, &shape);
  if (ok && accept(ps, ",") && ps->tok.kind == TT_STRING) ok = string_dtype(ps, &dt) && (accept(ps, ",") || true);
  while (ok && !tt_is(&ps->tok, ")")) {
    int64_t v;
    if (kw(ps, "dtype")) ok = string_dtype(ps, &dt);
    else if (kw(ps, "data")) ok = !repeated(ps, data, "data") && (data = parse_expr(ps)) != NULL;
    else if (kw(ps, "strides")) ok = !repeated(ps, strides.len, "strides") && parse_tuple(ps, &strides);
    else if (kw(ps, "elem_offset"))
      ok = !repeated(ps, elem_offset, "elem_offset") && (elem_offset = parse_expr(ps)) != NULL;
    else if (kw(ps, "scope")) {
      if (ps->tok.kind != TT_STRING) ok = !expected(ps, "a scope string");
      else {
        size_t n;
        ok = unescape(ps, &ps->tok, scope, sizeof scope, false, &n);
        advance(ps);
      }
    } else if (kw(ps, "align")) {
      ok = int_literal(ps, &v);
      align = (int)v;
    } else if (kw(ps, "offset_factor")) {
      ok = int_literal(ps, &v);
      offset_factor = (int)v;
    } else if (kw(ps, "buffer_type")) {
      if (tt_is(&ps->tok, "auto") || (ps->tok.kind == TT_STRING && ps->tok.len == 4 && !memcmp(ps->tok.text, "auto", 4)))
        buffer_type = PSG_TIR_BUFFER_AUTO_BROADCAST;
      else if (ps->tok.kind == TT_STRING) buffer_type = PSG_TIR_BUFFER_DEFAULT;
      else ok = !expected(ps, "\"auto\" or \"default\"");
      if (ok) advance(ps);
    } else if (kw(ps, "axis_separators")) {
      ok = !repeated(ps, axis.len, "axis_separators") && !expect(ps, "[");
      while (ok && !tt_is(&ps->tok, "]")) {
        ok = int_literal(ps, &v) && PSGI_VEC_PUSH(ps->ctx, &axis, v);
        if (!accept(ps, ",")) break;
      }
      ok = ok && !expect(ps, "]");
    } else {
      ok = !expected(ps, "a buffer keyword (data, strides, elem_offset, scope, align, offset_factor, buffer_type, axis_separators)");
    }
    if (ok && !accept(ps, ",")) break;
  }
  ok = ok && !expect(ps, ")");
  if (ok && !data) BUILD(at, psg_tir_pointer_var_create(ps->ctx, name, dt, scope, NULL, &data));
  if (ok && data) {
    psg_tir_buffer_desc d = {0};
    d.name = name;
    d.data = data;
    d.dtype = dt;
    d.shape = shape.data;
    d.ndim = shape.len;
    d.strides = strides.data;
    d.nstrides = strides.len;
    d.elem_offset = elem_offset;
    d.axis_separators = axis.data;
    d.naxis_separators = axis.len;
    d.data_alignment = align;
    d.offset_factor = offset_factor;
    d.buffer_type = buffer_type;
    BUILD(at, psg_tir_buffer_create(ps->ctx, &d, NULL, &out));
  }
  release_all(shape.data, shape.len);
  release_all(strides.data, strides.len);
  PSGI_VEC_FREE(ps->ctx, &shape);
  PSGI_VEC_FREE(ps->ctx, &strides);
  PSGI_VEC_FREE(ps->ctx, &axis);
  psg_tir_release(data);
  psg_tir_release(elem_offset);
  return out;
}

/* Type annotations: T.int32, T.float32x4, T.handle, T.handle("float32"[, "scope"]).
 * A new var named `name` of that type. */
static psg_tir_node *parse_var_annotation(parser *ps, const char *name) {
  if (expect(ps, "T") || expect(ps, ".")) return NULL;
  ttoken t = ps->tok;
  psg_tir_dtype dt = is_name(&t) ? psgi_tir_script_dtype_word(t.text, t.len) : 0;
  if (!dt) {
    expected(ps, "a type (T.int32, T.float32, T.handle, ...)");
    return NULL;
  }
  advance(ps);
  psg_tir_node *out = NULL;
  if (psg_tir_dtype_is_handle(dt) && accept(ps, "(")) {
    psg_tir_dtype el;
    char scope[64] = "global";
    if (!string_dtype(ps, &el)) return NULL;
    if (accept(ps, ",")) {
      if (ps->tok.kind != TT_STRING) {
        expected(ps, "a scope string");
        return NULL;
      }
      size_t n;
      if (!unescape(ps, &ps->tok, scope, sizeof scope, false, &n)) return NULL;
      advance(ps);
    }
    if (expect(ps, ")")) return NULL;
    BUILD(&t, psg_tir_pointer_var_create(ps->ctx, name, el, scope, NULL, &out));
    return out;
  }
  BUILD(&t, psg_tir_var_create(ps->ctx, name, dt, NULL, NULL, &out));
  return out;
}

/* Statements ------------------------------------------------------------------ */

/* Whether two expressions are the same tree (vars by identity): how
 * range(m, m + e) gives back extent e. Iterative. */
static bool same_expr(parser *ps, const psg_tir_node *a, const psg_tir_node *b) {
  PSGI_VEC(const psg_tir_node *) st = {0};
  bool same = PSGI_VEC_PUSH(ps->ctx, &st, a) && PSGI_VEC_PUSH(ps->ctx, &st, b);
  while (same && st.len) {
    const psg_tir_node *y = st.data[--st.len], *x = st.data[--st.len];
    if (x == y) continue;
    if (x->kind != y->kind || x->dtype != y->dtype || x->nkids != y->nkids || x->flags != y->flags ||
        psgi_tir_is_var_kind(x->kind) || x->kind == PSG_TIR_BUFFER || x->kind == PSG_TIR_STRING_IMM ||
        (x->kind == PSG_TIR_INT_IMM && x->u.int_value != y->u.int_value) ||
        (x->kind == PSG_TIR_FLOAT_IMM && memcmp(&x->u.float_value, &y->u.float_value, sizeof(double))) ||
        (x->kind == PSG_TIR_CALL && x->u.op != y->u.op)) {
      same = false;
      break;
    }
    for (uint32_t i = 0; i < x->nkids && same; i++)
      same = PSGI_VEC_PUSH(ps->ctx, &st, x->kids[i]) && PSGI_VEC_PUSH(ps->ctx, &st, y->kids[i]);
  }
  PSGI_VEC_FREE(ps->ctx, &st);
  return same;
}

static void push_stmt(parser *ps, psg_tir_node *s) {
  if (!PSGI_VEC_PUSH(ps->ctx, &ps->stmts, s)) {
    psg_tir_release(s);
    oom(ps);
    ps->gave_up = true;
  }
}

static frame *top(parser *ps) { return &ps->frames.data[ps->frames.len - 1]; }

static frame new_frame(parser *ps, int kind, const ttoken *at) {
  frame f;
  memset(&f, 0, sizeof f);
  f.kind = kind;
  f.mark = ps->undo.len;
  f.base = ps->stmts.len;
  f.lbase = ps->loops.len;
  f.at = *at;
  return f;
}

static void free_frame_payload(parser *ps, frame *f);
static bool push_frame(parser *ps, frame f) {
  if (PSGI_VEC_PUSH(ps->ctx, &ps->frames, f)) return true;
  free_frame_payload(ps, &f);
  oom(ps);
  ps->gave_up = true;
  return false;
}

static void free_frame_payload(parser *ps, frame *f) {
  psg_tir_release(f->a);
  psg_tir_release(f->b);
  psg_tir_release(f->c);
  release_all(f->extents, f->nextents);
  psgi_free(ps->ctx, f->extents);
  psg_attrs_release(f->ann);
  f->a = f->b = f->c = NULL;
  f->extents = NULL;
  f->nextents = 0;
  f->ann = NULL;
}

/* The body of the top frame (NULL after an error in it), its statements
 * popped. */
static psg_tir_node *take_body(parser *ps, frame *f) {
  size_t n = ps->stmts.len - f->base;
  psg_tir_node **v = n ? ps->stmts.data + f->base : NULL, *out = NULL;
  bool ok = !f->bad;
  for (size_t i = 0; i < n; i++)
    if (!v[i]) ok = false;
  if (ok && n == 0) {
    error_at(ps, &f->at, f->kind == F_FUNC ? "the function body has no statement" : "expected a statement in this block");
    ok = false;
  }
  if (ok && n == 1) {
    out = v[0];
    psg_tir_retain(out);
  } else if (ok) {
    BUILD(&f->at, psg_tir_seq_stmt_create(ps->ctx, v, n, NULL, &out));
  }
  release_all(v, n);
  ps->stmts.len = f->base;
  return out;
}

/* Closes the top frame: its statement (new reference; NULL on error). */
static psg_tir_node *close_frame(parser *ps) {
  frame f = *top(ps);
  ps->frames.len--;
  psg_tir_node *body = take_body(ps, &f), *out = NULL;
  const ttoken *t = &f.at;
  if (body) {
    switch (f.kind) {
    case F_FUNC:
    case F_SKIP: out = body; body = NULL; break;
    case F_FOR:
      out = body;
      body = NULL;
      for (size_t i = ps->loops.len; i-- > f.lbase && out;) {
        loop_info *l = &ps->loops.data[i];
        psg_tir_node *inner = out;
        out = NULL;
        BUILD(t, psg_tir_for_create(ps->ctx, l->var, l->min, l->extent, l->kind, inner, l->ann, NULL, &out));
        psg_tir_release(inner);
      }
      break;
    case F_IF: BUILD(t, psg_tir_if_then_else_create(ps->ctx, f.a, body, NULL, NULL, &out)); break;
    case F_ELSE: BUILD(t, psg_tir_if_then_else_create(ps->ctx, f.a, f.b, body, NULL, &out)); break;
    case F_WHILE: BUILD(t, psg_tir_while_create(ps->ctx, f.a, body, NULL, &out)); break;
    case F_LET: BUILD(t, psg_tir_let_stmt_create(ps->ctx, f.a, f.b, body, NULL, &out)); break;
    case F_ALLOC:
      BUILD(t, psg_tir_allocate_create(ps->ctx, f.a, f.dtype, f.extents, f.nextents, f.c, body, f.ann, NULL, &out));
      break;
    case F_DECL: BUILD(t, psg_tir_decl_buffer_create(ps->ctx, f.a, body, NULL, &out)); break;
    case F_ATTR: BUILD(t, psg_tir_attr_stmt_create(ps->ctx, f.c, f.key, f.a, body, NULL, &out)); break;
    case F_ASSERT: BUILD(t, psg_tir_assert_stmt_create(ps->ctx, f.a, f.b, body, NULL, &out)); break;
    }
  }
  psg_tir_release(body);
  for (size_t i = f.lbase; i < ps->loops.len; i++) {
    psg_tir_release(ps->loops.data[i].var);
    psg_tir_release(ps->loops.data[i].min);
    psg_tir_release(ps->loops.data[i].extent);
    psg_attrs_release(ps->loops.data[i].ann);
  }
  ps->loops.len = f.lbase;
  free_frame_payload(ps, &f);
  undo_to(ps, f.mark);
  return out;
}

/* ':' NEWLINE INDENT after a block header, then the frame is pushed. On an
 * error the line is skipped and, if an indented block follows, it is
 * parsed into nothing. `ok` false: the header failed already. */
static void open_block(parser *ps, frame f, bool ok) {
  bool at_next_line = false;
  if (ok && !expect(ps, ":") && ps->tok.kind == TT_NEWLINE) {
    advance(ps);
    if (ps->tok.kind == TT_INDENT) {
      advance(ps);
      push_frame(ps, f);
      return;
    }
    expected(ps, "an indented block");
    at_next_line = true; /* the next statement is parsed as usual */
  } else if (ok) {
    if (!ps->errors || ps->tok.kind != TT_NEWLINE) expected(ps, "a new line after ':' (a block on its own lines)");
  }
  if (!at_next_line) skip_line(ps);
  free_frame_payload(ps, &f);
  undo_to(ps, f.mark);
  for (size_t i = f.lbase; i < ps->loops.len; i++) {
    psg_tir_release(ps->loops.data[i].var);
    psg_tir_release(ps->loops.data[i].min);
    psg_tir_release(ps->loops.data[i].extent);
    psg_attrs_release(ps->loops.data[i].ann);
  }
  ps->loops.len = f.lbase;
  if (ps->tok.kind == TT_INDENT) {
    advance(ps);
    frame skip = new_frame(ps, F_SKIP, &f.at);
    skip.bad = true;
    push_frame(ps, skip);
  }
}

/* A concise frame: the rest of the enclosing block is its body. */
static void open_concise(parser *ps, frame f) {
  f.concise = true;
  f.base = ps->stmts.len;
  push_frame(ps, f);
}

static bool end_line(parser *ps) {
  if (ps->tok.kind == TT_NEWLINE) {
    advance(ps);
    return true;
  }
  if (ps->tok.kind == TT_EOF || ps->tok.kind == TT_DEDENT) return true;
  expected(ps, "end of line");
  skip_line(ps);
  return false;
}

static void name_of(const ttoken *t, char *buf, size_t n) {
  snprintf(buf, n, "%.*s", (int)(t->len < n ? t->len : n - 1), t->text);
}

/* for TARGETS in ITER: */
static void parse_for(parser *ps) {
  ttoken at = ps->tok;
  advance(ps);
  frame f = new_frame(ps, F_FOR, &at);
  ttoken targets[64];
  size_t nt = 0;
  bool ok = true;
  do {
    if (!is_name(&ps->tok)) {
      ok = !expected(ps, "a loop variable name");
      break;
    }
    if (nt == 64) {
      ok = !error_at(ps, &ps->tok, "more than 64 loop variables");
      break;
    }
    targets[nt++] = ps->tok;
    advance(ps);
  } while (accept(ps, ","));
  ok = ok && !expect(ps, "in");
  int kind = PSG_TIR_FOR_SERIAL;
  bool grid = false;
  node_vec args = {0};
  psg_attrs *ann = NULL;
  ttoken it = ps->tok;
  if (ok && accept(ps, "range")) {
  } else if (ok && accept(ps, "T") && !expect(ps, ".")) {
    it = ps->tok;
    static const struct { const char *name; int kind; } kinds[] = {
        {"serial", PSG_TIR_FOR_SERIAL}, {"parallel", PSG_TIR_FOR_PARALLEL}, {"vectorized", PSG_TIR_FOR_VECTORIZED},
        {"unroll", PSG_TIR_FOR_UNROLLED}, {"grid", -1}};
    size_t i;
    for (i = 0; i < sizeof kinds / sizeof *kinds; i++)
      if (tt_is(&ps->tok, kinds[i].name)) break;
    if (i == sizeof kinds / sizeof *kinds) {
      ok = !expected(ps, "range, T.serial, T.parallel, T.vectorized, T.unroll or T.grid");
    } else {
      grid = kinds[i].kind < 0;
      kind = grid ? PSG_TIR_FOR_SERIAL : kinds[i].kind;
      advance(ps);
    }
  } else if (ok) {
    ok = !expected(ps, "range(...) or T.grid(...)");
  }
  ok = ok && !expect(ps, "(");
  while (ok && !tt_is(&ps->tok, ")")) {
    if (!grid && kw(ps, "annotations")) {
      ok = !repeated(ps, ann, "annotations") && (ann = parse_attr_dict(ps, 0)) != NULL;
    } else if (!grid && kw(ps, "thread")) {
      ok = ps->tok.kind == TT_STRING || !expected(ps, "a thread name string");
      if (ok) advance(ps);
    } else {
      psg_tir_node *e = parse_expr(ps);
      ok = e && push_node(ps, &args, e);
    }
    if (!accept(ps, ",")) break;
  }
  ok = ok && !expect(ps, ")");
  if (ok && (grid ? args.len != nt : (nt != 1 || args.len < 1 || args.len > 2))) {
    error_at(ps, &it, grid ? "T.grid needs one extent per loop variable" : "expected one loop variable and 1 or 2 bounds");
    ok = false;
  }
  for (size_t i = 0; ok && i < nt; i++) {
    psg_tir_node *mn, *ext;
    if (grid || args.len == 1) {
      ext = args.data[grid ? i : 0];
      psg_tir_retain(ext);
      mn = int_imm(ps, &at, psg_tir_dtype_is_int(ext->dtype) || psg_tir_dtype_is_uint(ext->dtype) ? ext->dtype
                                                                                                : psg_tir_dtype_int32(), 0);
    } else {
      mn = args.data[0];
      psg_tir_node *stop = args.data[1];
      psg_tir_retain(mn);
      if (mn->kind == PSG_TIR_INT_IMM && stop->kind == PSG_TIR_INT_IMM && mn->dtype == stop->dtype) {
        ext = int_imm(ps, &it, mn->dtype, stop->u.int_value - mn->u.int_value);
      } else if (stop->kind == PSG_TIR_ADD && same_expr(ps, stop->kids[0], mn)) {
        ext = stop->kids[1];
        psg_tir_retain(ext);
      } else {
        psg_tir_retain(stop);
        psg_tir_retain(mn);
        ext = binary(ps, &it, PSG_TIR_SUB, stop, mn);
      }
    }
    if (mn && ext) match_types(ps, &it, &mn, &ext);
    psg_tir_node *var = NULL;
    char name[128];
    name_of(&targets[i], name, sizeof name);
    if (mn && ext) BUILD(&targets[i], psg_tir_var_create(ps->ctx, name, ext->dtype, NULL, NULL, &var));
    if (!var || !PSGI_VEC_PUSH(ps->ctx, &ps->loops, ((loop_info){var, mn, ext, kind, ann}))) {
      psg_tir_release(var);
      psg_tir_release(mn);
      psg_tir_release(ext);
      ok = false;
      break;
    }
    if (ann) psg_attrs_retain(ann);
  }
  psg_attrs_release(ann);
  release_all(args.data, args.len);
  PSGI_VEC_FREE(ps->ctx, &args);
  for (size_t i = 0; ok && i < nt; i++)
    if (define(ps, &targets[i], SYM_VAR, ps->loops.data[f.lbase + i].var)) ok = false;
  open_block(ps, f, ok);
}

static void parse_if_while(parser *ps, int kind) {
  ttoken at = ps->tok;
  advance(ps);
  frame f = new_frame(ps, kind, &at);
  f.a = parse_expr(ps);
  open_block(ps, f, f.a != NULL);
}

/* with T.allocate(...) as v / T.decl_buffer(...) as A / T.LetStmt(e) as v /
 * T.attr(node, "key", value) / T.Assert(cond, msg) */
static bool parse_allocate_args(parser *ps, frame *f, const char *name, const ttoken *nt);
static bool parse_with(parser *ps) {
  ttoken at = ps->tok;
  advance(ps);
  if (expect(ps, "T") || expect(ps, ".")) return false;
  ttoken what = ps->tok;
  advance(ps);
  if (expect(ps, "(")) return false;
  frame f = new_frame(ps, F_LET, &at);
  bool ok = true, needs_as = true;
  if (tt_is(&what, "attr")) {
    f.kind = F_ATTR;
    needs_as = false;
    if (accept(ps, "None")) {
    } else if (is_name(&ps->tok) && lookup(ps, ps->tok.text, ps->tok.len) &&
               lookup(ps, ps->tok.text, ps->tok.len)->kind == SYM_BUFFER && !tt_is(&ps->next, "[") &&
               !tt_is(&ps->next, ".")) {
      f.c = lookup(ps, ps->tok.text, ps->tok.len)->node;
      if (f.c) psg_tir_retain(f.c);
      ok = f.c != NULL;
      advance(ps);
    } else {
      ok = (f.c = parse_expr(ps)) != NULL;
    }
    ok = ok && !expect(ps, ",");
    if (ok && ps->tok.kind != TT_STRING) ok = !expected(ps, "an attribute key string");
    if (ok) {
      char key[256];
      size_t n;
      ok = unescape(ps, &ps->tok, key, sizeof key, false, &n) && (f.key = psgi_intern(ps->ctx, key, n)) != NULL;
      advance(ps);
      ok = ok && !expect(ps, ",") && (f.a = parse_expr(ps)) != NULL && !expect(ps, ")");
    }
  } else if (tt_is(&what, "Assert")) {
    f.kind = F_ASSERT;
    needs_as = false;
    ok = (f.a = parse_expr(ps)) && !expect(ps, ",") && (f.b = parse_expr(ps)) && !expect(ps, ")");
  } else if (tt_is(&what, "LetStmt")) {
    f.kind = F_LET;
    ok = (f.b = parse_expr(ps)) && !expect(ps, ")");
  } else if (tt_is(&what, "allocate")) {
    f.kind = F_ALLOC;
  } else if (tt_is(&what, "decl_buffer")) {
    f.kind = F_DECL;
  } else {
    error_at(ps, &what, "unknown scope 'T.%.*s' (expected T.allocate, T.decl_buffer, T.LetStmt, T.attr or T.Assert)",
             (int)(what.len > 40 ? 40 : what.len), what.text);
    ok = false;
  }
  if (f.kind == F_DECL || f.kind == F_ALLOC) {
    /* the name comes after: parse the arguments with a placeholder name
     * and rename through the 'as' target */
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    int nest = 1;
    while (ps->tok.kind != TT_EOF && nest > 0) {
      if (tt_is(&ps->tok, "(") || tt_is(&ps->tok, "[") || tt_is(&ps->tok, "{")) nest++;
      if (tt_is(&ps->tok, ")") || tt_is(&ps->tok, "]") || tt_is(&ps->tok, "}")) nest--;
      advance(ps);
    }
    char name[128] = "v";
    if (tt_is(&ps->tok, "as") && is_name(&ps->next)) name_of(&ps->next, name, sizeof name);
    tlex_pos p1 = ps->lx.s;
    ttoken t1 = ps->tok, n1 = ps->next;
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
    if (f.kind == F_DECL) ok = (f.a = parse_buffer_rest(ps, &what, name)) != NULL;
    else ok = parse_allocate_args(ps, &f, name, &what);
    if (ok && (ps->tok.text != t1.text)) ok = !expected(ps, "')'");
    ps->lx.s = p1;
    ps->tok = t1;
    ps->next = n1;
  }
  if (ok && needs_as) {
    if (expect(ps, "as")) ok = false;
    else if (!is_name(&ps->tok)) ok = !expected(ps, "a name after 'as'");
    else {
      ttoken nt = ps->tok;
      advance(ps);
      if (f.kind == F_LET) {
        char name[128];
        name_of(&nt, name, sizeof name);
        ok = !BUILD(&nt, psg_tir_var_create(ps->ctx, name, f.b->dtype, NULL, NULL, &f.a));
      }
      if (ok) ok = !define(ps, &nt, f.kind == F_DECL ? SYM_BUFFER : SYM_VAR, f.a);
    }
  }
  open_block(ps, f, ok);
  return ok;
}

/* T.allocate([extents], "dtype", "scope", condition=c, annotations={...}) after
 * its '(': into f (a: the data var named `name`). */
static bool parse_allocate_args(parser *ps, frame *f, const char *name, const ttoken *nt) {
  node_vec ext = {0};
  char scope[64] = "global";
  bool ok = parse_tuple(ps, &ext) && !expect(ps, ",") && string_dtype(ps, &f->dtype);
  if (ok && accept(ps, ",") && ps->tok.kind == TT_STRING) {
    size_t n;
    ok = unescape(ps, &ps->tok, scope, sizeof scope, false, &n);
    advance(ps);
    accept(ps, ",");
  }
  while (ok && !tt_is(&ps->tok, ")")) {
    if (kw(ps, "condition")) ok = !repeated(ps, f->c, "condition") && (f->c = parse_expr(ps)) != NULL;
    else if (kw(ps, "annotations"))
      ok = !repeated(ps, f->ann, "annotations") && (f->ann = parse_attr_dict(ps, 0)) != NULL;
    else if (kw(ps, "scope") && ps->tok.kind == TT_STRING) {
      size_t n;
      ok = unescape(ps, &ps->tok, scope, sizeof scope, false, &n);
      advance(ps);
    } else ok = !expected(ps, "condition= or annotations=");
    if (!accept(ps, ",")) break;
  }
  ok = ok && !expect(ps, ")");
  if (ok) ok = !BUILD(nt, psg_tir_pointer_var_create(ps->ctx, name, f->dtype, scope, NULL, &f->a));
  f->extents = ext.data;
  f->nextents = ext.len;
  return ok;
}

/* NAME [: TYPE] = RHS */
static void parse_assign(parser *ps) {
  ttoken nt = ps->tok;
  char name[128];
  name_of(&nt, name, sizeof name);
  advance(ps);
  frame f = new_frame(ps, F_LET, &nt);
  if (accept(ps, ":")) {
    /* x: T.int32 = e */
    f.a = parse_var_annotation(ps, name);
    if (!f.a || expect(ps, "=") || !(f.b = parse_expr(ps))) goto fail;
    if (f.b->dtype != f.a->dtype) {
      psg_tir_node *r = retype_literal(ps, &nt, f.b, f.a->dtype);
      if (r) {
        psg_tir_release(f.b);
        f.b = r;
      }
    }
    if (!end_line(ps) || define(ps, &nt, SYM_VAR, f.a)) goto fail_noskip;
    open_concise(ps, f);
    return;
  }
  if (expect(ps, "=")) goto fail;
  if (tt_is(&ps->tok, "T") && tt_is(&ps->next, ".")) {
    /* Look at T.<what>( and come back for a plain expression. */
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    advance(ps);
    advance(ps);
    ttoken what = ps->tok;
    bool is_call = tt_is(&ps->next, "(");
    psg_tir_dtype dt = psgi_tir_script_dtype_word(what.text, what.len);
    if (is_call && (tt_is(&what, "Buffer") || tt_is(&what, "match_buffer") || tt_is(&what, "decl_buffer"))) {
      advance(ps);
      advance(ps);
      psg_tir_node *param = NULL;
      if (tt_is(&what, "match_buffer")) {
        if (ps->frames.len != 1) {
          error_at(ps, &what, "T.match_buffer belongs at the top of the function body");
          goto fail;
        }
        sym *s = is_name(&ps->tok) ? lookup(ps, ps->tok.text, ps->tok.len) : NULL;
        for (size_t i = 0; s && s->kind == SYM_VAR && i < ps->params.len; i++)
          if (ps->params.data[i] == s->node && psg_tir_dtype_is_handle(s->node->dtype)) param = s->node;
        if (!param) {
          expected(ps, "a T.handle parameter of this function");
          goto fail;
        }
        for (size_t i = 0; i < ps->map_params.len; i++)
          if (ps->params.data[ps->map_params.data[i]] == param) {
            error_at(ps, &ps->tok, "parameter '%.*s' is matched to a buffer already", (int)ps->tok.len, ps->tok.text);
            goto fail;
          }
        advance(ps);
        if (expect(ps, ",")) goto fail;
      }
      psg_tir_node *buf = parse_buffer_rest(ps, &what, name);
      if (!buf) goto fail;
      if (!end_line(ps) || define(ps, &nt, SYM_BUFFER, buf)) {
        psg_tir_release(buf);
        goto fail_noskip;
      }
      if (param) {
        size_t idx = 0;
        while (ps->params.data[idx] != param) idx++;
        if (!PSGI_VEC_PUSH(ps->ctx, &ps->map_params, idx) || !PSGI_VEC_PUSH(ps->ctx, &ps->map_bufs, buf)) {
          psg_tir_release(buf);
          oom(ps);
          ps->gave_up = true;
          return;
        }
        psg_tir_retain(buf);
      }
      if (tt_is(&what, "decl_buffer")) {
        f.kind = F_DECL;
        f.a = buf;
        open_concise(ps, f);
        return;
      }
      psg_tir_release(buf);
      return;
    }
    if (is_call && tt_is(&what, "allocate")) {
      advance(ps);
      advance(ps);
      f.kind = F_ALLOC;
      if (!parse_allocate_args(ps, &f, name, &what)) goto fail;
      if (!end_line(ps) || define(ps, &nt, SYM_VAR, f.a)) goto fail_noskip;
      open_concise(ps, f);
      return;
    }
    if (is_call && dt) {
      /* n = T.int32() declares a var (T.int32(5) is a typed literal) */
      advance(ps);
      advance(ps);
      bool size_var = false, decl = false;
      if (tt_is(&ps->tok, "is_size_var") && tt_is(&ps->next, "=")) {
        kw(ps, "is_size_var");
        size_var = tt_is(&ps->tok, "True");
        advance(ps);
        decl = !expect(ps, ")");
        if (!decl) goto fail;
      } else {
        decl = accept(ps, ")");
      }
      if (decl) {
        psg_tir_node *v = NULL;
        if (size_var) BUILD(&nt, psg_tir_size_var_create(ps->ctx, name, dt, NULL, &v));
        else BUILD(&nt, psg_tir_var_create(ps->ctx, name, dt, NULL, NULL, &v));
        if (!v) goto fail;
        if (end_line(ps)) define(ps, &nt, SYM_VAR, v);
        psg_tir_release(v);
        return;
      }
    }
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
  }
  f.b = parse_expr(ps);
  if (!f.b) goto fail;
  psg_tir_node *var = NULL;
  if (BUILD(&nt, psg_tir_var_create(ps->ctx, name, f.b->dtype, NULL, NULL, &var))) goto fail;
  f.a = var;
  if (!end_line(ps) || define(ps, &nt, SYM_VAR, f.a)) goto fail_noskip;
  open_concise(ps, f);
  return;
fail:
  skip_line(ps);
fail_noskip:
  free_frame_payload(ps, &f);
  /* later uses of the name stay silent */
  define(ps, &nt, SYM_VAR, NULL);
}

/* A statement starting with an expression: A[i] = v, T.evaluate(e), a call. */
static void parse_expr_stmt(parser *ps) {
  ttoken at = ps->tok;
  psg_tir_node *out = NULL;
  if (tt_is(&ps->tok, "T") && tt_is(&ps->next, ".")) {
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    advance(ps);
    advance(ps);
    if (tt_is(&ps->tok, "evaluate") && tt_is(&ps->next, "(")) {
      advance(ps);
      advance(ps);
      psg_tir_node *e = parse_expr(ps);
      if (e && !expect(ps, ")")) BUILD(&at, psg_tir_evaluate_create(ps->ctx, e, NULL, &out));
      psg_tir_release(e);
      if (!out) skip_line(ps);
      else end_line(ps);
      push_stmt(ps, out);
      return;
    }
    if (tt_is(&ps->tok, "func_attr") && tt_is(&ps->next, "(")) {
      ttoken ft = ps->tok;
      advance(ps);
      advance(ps);
      if (ps->frames.len != 1 || ps->func_attrs) {
        error_at(ps, &ft, ps->func_attrs ? "T.func_attr given twice" : "T.func_attr belongs at the top of the function body");
        skip_line(ps);
        return;
      }
      ps->func_attrs = parse_attr_dict(ps, 0);
      if (!ps->func_attrs || expect(ps, ")")) skip_line(ps);
      else end_line(ps);
      return;
    }
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
  }
  /* A.vstore([i], v, predicate=p) */
  if (is_name(&ps->tok) && tt_is(&ps->next, ".")) {
    sym *s = lookup(ps, ps->tok.text, ps->tok.len);
    if (s && s->kind == SYM_BUFFER) {
      tlex_pos p0 = ps->lx.s;
      ttoken t0 = ps->tok, n0 = ps->next;
      advance(ps);
      advance(ps);
      if (accept(ps, "vstore")) {
        node_vec ix = {0};
        psg_tir_node *value = NULL, *pred = NULL;
        if (!expect(ps, "(") && parse_vaccess(ps, &ix, &value, &pred) && s->node)
          BUILD(&at, psg_tir_buffer_store_create(ps->ctx, s->node, value, ix.data, ix.len, pred, NULL, &out));
        release_all(ix.data, ix.len);
        PSGI_VEC_FREE(ps->ctx, &ix);
        psg_tir_release(value);
        psg_tir_release(pred);
        if (!out) skip_line(ps);
        else end_line(ps);
        push_stmt(ps, out);
        return;
      }
      ps->lx.s = p0;
      ps->tok = t0;
      ps->next = n0;
    }
  }
  psg_tir_node *e = parse_expr(ps);
  if (e && tt_is(&ps->tok, "=")) {
    ttoken eq = ps->tok;
    advance(ps);
    if (e->kind != PSG_TIR_BUFFER_LOAD || (e->flags & PSGI_TIR_HAS_PRED)) {
      error_at(ps, &eq, "only a buffer element A[...] can be assigned to here");
    } else {
      psg_tir_node *v = parse_expr(ps);
      if (v) {
        psg_tir_dtype want = e->dtype;
        if (v->dtype != want) {
          psg_tir_node *r = retype_literal(ps, &eq, v, want);
          if (!r && psg_tir_dtype_lanes(want) > 1 && psg_tir_dtype_lanes(v->dtype) == 1) {
            psg_tir_node *sv = retype_literal(ps, &eq, v, psg_tir_dtype_with_lanes(want, 1));
            psg_tir_broadcast_create(ps->ctx, sv ? sv : v, psg_tir_dtype_lanes(want), NULL, &r);
            psg_tir_release(sv);
          }
          if (r) {
            psg_tir_release(v);
            v = r;
          }
        }
        BUILD(&at, psg_tir_buffer_store_create(ps->ctx, e->kids[0], v, psgi_tir_indices(e), psgi_tir_num_indices(e),
                                               NULL, NULL, &out));
      }
      psg_tir_release(v);
    }
  } else if (e) {
    BUILD(&at, psg_tir_evaluate_create(ps->ctx, e, NULL, &out));
  }
  psg_tir_release(e);
  if (!out) skip_line(ps);
  else end_line(ps);
  push_stmt(ps, out);
}

static void parse_statement(parser *ps) {
  ttoken t = ps->tok;
  if (tt_is(&t, "for")) parse_for(ps);
  else if (tt_is(&t, "if")) parse_if_while(ps, F_IF);
  else if (tt_is(&t, "while")) parse_if_while(ps, F_WHILE);
  else if (tt_is(&t, "with")) {
    if (!parse_with(ps) && ps->tok.kind != TT_NEWLINE && ps->tok.kind != TT_INDENT) skip_line(ps);
  } else if (tt_is(&t, "assert")) {
    advance(ps);
    frame f = new_frame(ps, F_ASSERT, &t);
    if ((f.a = parse_expr(ps)) && !expect(ps, ",") && (f.b = parse_expr(ps)) && end_line(ps)) {
      open_concise(ps, f);
    } else {
      free_frame_payload(ps, &f);
      skip_line(ps);
      push_stmt(ps, NULL);
    }
  } else if (tt_is(&t, "pass")) {
    advance(ps);
    end_line(ps);
  } else if (tt_is(&t, "elif")) {
    error_at(ps, &t, "elif is not supported: write 'else:' and an indented 'if'");
    skip_line(ps);
    push_stmt(ps, NULL);
  } else if (tt_is(&t, "else")) {
    error_at(ps, &t, "'else' without an 'if' just before it");
    skip_line(ps);
    push_stmt(ps, NULL);
  } else if (is_name(&t) && !tt_is(&t, "T") && (tt_is(&ps->next, "=") || tt_is(&ps->next, ":"))) {
    size_t before = ps->errors;
    parse_assign(ps);
    if ((size_t)ps->errors > before) push_stmt(ps, NULL);
  } else {
    parse_expr_stmt(ps);
  }
}

/* The statements of a function body up to its closing DEDENT (the F_FUNC
 * frame is on the stack); the body or NULL. */
static psg_tir_node *parse_body(parser *ps) {
  for (;;) {
    if (ps->gave_up) return NULL;
    int k = ps->tok.kind;
    if (k == TT_NEWLINE) {
      advance(ps);
      continue;
    }
    if (k == TT_ERROR) {
      error_at(ps, &ps->tok, "lexer");
      advance(ps);
      continue;
    }
    if (k == TT_DEDENT || k == TT_EOF) {
      while (ps->frames.len && top(ps)->concise) push_stmt(ps, close_frame(ps));
      if (!ps->frames.len) return NULL;
      if (k == TT_DEDENT) advance(ps);
      frame *f = top(ps);
      if (f->kind == F_IF && tt_is(&ps->tok, "else")) {
        ttoken et = ps->tok;
        psg_tir_node *then = take_body(ps, f);
        f->kind = F_ELSE;
        f->b = then;
        f->bad = f->bad || !then;
        advance(ps);
        if (!expect(ps, ":") && ps->tok.kind == TT_NEWLINE) {
          advance(ps);
          if (ps->tok.kind == TT_INDENT) {
            advance(ps);
            f->base = ps->stmts.len;
            f->at = et;
            continue;
          }
        }
        expected(ps, "an indented block after 'else:'");
        f->bad = true;
        continue;
      }
      bool is_func = f->kind == F_FUNC;
      psg_tir_node *s = close_frame(ps);
      if (is_func) return s;
      push_stmt(ps, s);
      continue;
    }
    if (k == TT_INDENT) {
      error_at(ps, &ps->tok, "unexpected indent");
      advance(ps);
      frame skip = new_frame(ps, F_SKIP, &ps->tok);
      skip.bad = true;
      push_frame(ps, skip);
      continue;
    }
    parse_statement(ps);
  }
}

/* Functions and modules ----------------------------------------------------- */

static void reset_func(parser *ps) {
  release_all(ps->params.data, ps->params.len);
  release_all(ps->map_bufs.data, ps->map_bufs.len);
  ps->params.len = ps->map_params.len = ps->map_bufs.len = 0;
  psg_attrs_release(ps->func_attrs);
  ps->func_attrs = NULL;
  undo_to(ps, 0);
  for (size_t i = 0; i < ps->frames.len; i++) free_frame_payload(ps, &ps->frames.data[i]);
  ps->frames.len = 0;
  release_all(ps->stmts.data, ps->stmts.len);
  ps->stmts.len = 0;
  for (size_t i = 0; i < ps->loops.len; i++) {
    psg_tir_release(ps->loops.data[i].var);
    psg_tir_release(ps->loops.data[i].min);
    psg_tir_release(ps->loops.data[i].extent);
    psg_attrs_release(ps->loops.data[i].ann);
  }
  ps->loops.len = 0;
}

/* One parameter "NAME: T.Buffer(...)" / "NAME: T.handle" / "NAME: T.int32". */
static bool parse_param(parser *ps) {
  if (!is_name(&ps->tok)) return !expected(ps, "a parameter name");
  ttoken nt = ps->tok;
  char name[128];
  name_of(&nt, name, sizeof name);
  advance(ps);
  if (expect(ps, ":")) return false;
  psg_tir_node *v = NULL;
  if (tt_is(&ps->tok, "T") && tt_is(&ps->next, ".")) {
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    advance(ps);
    advance(ps);
    if (tt_is(&ps->tok, "Buffer")) {
      ttoken bt = ps->tok;
      advance(ps);
      if (expect(ps, "(")) return false;
      psg_tir_node *buf = parse_buffer_rest(ps, &bt, name);
      if (!buf) return false;
      bool ok = !BUILD(&nt, psg_tir_var_create(ps->ctx, name, psg_tir_dtype_handle(), NULL, NULL, &v)) &&
                PSGI_VEC_PUSH(ps->ctx, &ps->params, v) && PSGI_VEC_PUSH(ps->ctx, &ps->map_params, ps->params.len - 1) &&
                PSGI_VEC_PUSH(ps->ctx, &ps->map_bufs, buf);
      if (!ok) {
        if (!v || ps->params.len == 0 || ps->params.data[ps->params.len - 1] != v) psg_tir_release(v);
        psg_tir_release(buf);
        return false;
      }
      return !define(ps, &nt, SYM_BUFFER, buf);
    }
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
  }
  v = parse_var_annotation(ps, name);
  if (!v) return false;
  for (size_t i = 0; i < ps->params.len; i++)
    if (!strcmp(ps->params.data[i]->u.var.name, v->u.var.name)) {
      psg_tir_release(v);
      return !error_at(ps, &nt, "parameter '%s' given twice", name);
    }
  if (!PSGI_VEC_PUSH(ps->ctx, &ps->params, v)) {
    psg_tir_release(v);
    return false;
  }
  return !define(ps, &nt, SYM_VAR, v);
}

/* "@T.prim_func[(...)]" NEWLINE "def NAME(params) [-> T.type]:" body. */
static psg_status parse_func(parser *ps, psg_tir_script *script) {
  ttoken at = ps->tok;
  bool priv = false;
  reset_func(ps);
  if (expect(ps, "@") || expect(ps, "T") || expect(ps, ".") || expect(ps, "prim_func")) return PSG_ERR_PARSE;
  if (accept(ps, "(")) {
    while (!tt_is(&ps->tok, ")")) {
      if (!is_name(&ps->tok) || !tt_is(&ps->next, "=")) return expected(ps, "private=True or check_well_formed=...");
      bool is_private = tt_is(&ps->tok, "private");
      advance(ps);
      advance(ps);
      if (!tt_is(&ps->tok, "True") && !tt_is(&ps->tok, "False")) return expected(ps, "True or False");
      if (is_private) priv = tt_is(&ps->tok, "True");
      advance(ps);
      if (!accept(ps, ",")) break;
    }
    if (expect(ps, ")")) return PSG_ERR_PARSE;
  }
  if (ps->tok.kind != TT_NEWLINE) return expected(ps, "a new line after the decorator");
  advance(ps);
  if (expect(ps, "def")) return PSG_ERR_PARSE;
  if (!is_name(&ps->tok)) return expected(ps, "a function name");
  ttoken fname = ps->tok;
  advance(ps);
  if (expect(ps, "(")) return PSG_ERR_PARSE;
  while (!tt_is(&ps->tok, ")")) {
    if (!parse_param(ps)) return PSG_ERR_PARSE;
    if (!accept(ps, ",")) break;
  }
  if (expect(ps, ")")) return PSG_ERR_PARSE;
  psg_tir_node *ret = NULL;
  if (accept(ps, "->")) {
    psg_tir_node *rv = parse_var_annotation(ps, "ret");
    if (!rv) return PSG_ERR_PARSE;
    psg_tir_dtype rdt = rv->dtype;
    psg_tir_release(rv);
    if (psg_tir_prim_type_create(ps->ctx, rdt, &ret)) {
      oom(ps);
      return PSG_ERR_NOMEM;
    }
  }
  if (expect(ps, ":")) {
    psg_tir_release(ret);
    return PSG_ERR_PARSE;
  }
  if (ps->tok.kind != TT_NEWLINE || (advance(ps), ps->tok.kind != TT_INDENT)) {
    psg_tir_release(ret);
    return expected(ps, "the function body on the next lines, indented");
  }
  advance(ps);
  if (!push_frame(ps, new_frame(ps, F_FUNC, &at))) {
    psg_tir_release(ret);
    return PSG_ERR_NOMEM;
  }
  psg_tir_node *body = parse_body(ps);
  psg_status st = body && !ps->errors ? PSG_OK : PSG_ERR_PARSE;
  char name[128];
  name_of(&fname, name, sizeof name);
  psg_attrs *attrs = ps->func_attrs;
  if (attrs) psg_attrs_retain(attrs);
  if (!st && !priv && !psg_attrs_get(attrs, "global_symbol")) {
    psg_attr *gs = NULL;
    psg_attrs *with = NULL;
    /* first, where function builders usually put it (attrs compare in order) */
    size_t na = psg_attrs_count(attrs);
    const char **keys = psgi_alloc(ps->ctx, (na + 1) * sizeof *keys);
    psg_attr **vals = psgi_alloc(ps->ctx, (na + 1) * sizeof *vals);
    st = keys && vals ? psg_attr_string(ps->ctx, name, strlen(name), &gs) : PSG_ERR_NOMEM;
    if (!st) {
      keys[0] = "global_symbol";
      vals[0] = gs;
      for (size_t i = 0; i < na; i++) {
        keys[i + 1] = psg_attrs_key(attrs, i);
        vals[i + 1] = psg_attrs_get_value(attrs, i);
      }
      st = psg_attrs_create(ps->ctx, keys, vals, na + 1, &with);
    }
    psgi_free(ps->ctx, keys);
    psgi_free(ps->ctx, vals);
    psg_attr_release(gs);
    psg_attrs_release(attrs);
    attrs = with;
  }
  /* The buffer map in parameter order, however the text introduced the
   * buffers (signature T.Buffer or T.match_buffer in the body). */
  for (size_t i = 1; i < ps->map_params.len; i++)
    for (size_t j = i; j > 0 && ps->map_params.data[j - 1] > ps->map_params.data[j]; j--) {
      size_t tp = ps->map_params.data[j];
      psg_tir_node *tb = ps->map_bufs.data[j];
      ps->map_params.data[j] = ps->map_params.data[j - 1];
      ps->map_bufs.data[j] = ps->map_bufs.data[j - 1];
      ps->map_params.data[j - 1] = tp;
      ps->map_bufs.data[j - 1] = tb;
    }
  psg_tir_node *f = NULL;
  if (!st) {
    st = BUILD(&fname, psg_tir_prim_func_create(ps->ctx, ps->params.data, ps->params.len, body, ret,
                                               ps->map_params.data, ps->map_bufs.data, ps->map_bufs.len, attrs,
                                               NULL, &f));
  }
  if (!st) {
    for (size_t i = 0; i < script->names.len; i++)
      if (!strcmp(script->names.data[i], name)) st = error_at(ps, &fname, "function '%s' defined twice", name);
  }
  if (!st) st = psg_tir_script_add(script, name, f);
  psg_tir_release(f);
  psg_tir_release(body);
  psg_tir_release(ret);
  psg_attrs_release(attrs);
  reset_func(ps);
  return st;
}

/* Skips to the next line that starts a decorator at the current level. */
static void recover_top(parser *ps) {
  while (ps->tok.kind != TT_EOF && !(tt_is(&ps->tok, "@") && ps->tok.col <= 5)) advance(ps);
}

static psg_status parse_script(parser *ps, psg_tir_script **out) {
  while (ps->tok.kind == TT_NEWLINE) advance(ps);
  bool module = tt_is(&ps->tok, "@") && tt_is(&ps->next, "I");
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_create(ps->ctx, module, &s);
  if (st) return st;
  if (module) {
    advance(ps);
    advance(ps);
    if (expect(ps, ".") || expect(ps, "ir_module") || ps->tok.kind != TT_NEWLINE) {
      if (!ps->errors) expected(ps, "@I.ir_module on its own line");
      goto done;
    }
    advance(ps);
    if (expect(ps, "class") || !is_name(&ps->tok)) {
      if (ps->errors == 0) expected(ps, "a class name");
      goto done;
    }
    advance(ps);
    if (expect(ps, ":") || ps->tok.kind != TT_NEWLINE || (advance(ps), ps->tok.kind != TT_INDENT)) {
      if (!ps->errors) expected(ps, "the module's functions on the next lines, indented");
      goto done;
    }
    advance(ps);
  }
  while (!ps->gave_up) {
    while (ps->tok.kind == TT_NEWLINE) advance(ps);
    if (ps->tok.kind == TT_EOF) break;
    if (module && ps->tok.kind == TT_DEDENT) {
      advance(ps);
      while (ps->tok.kind == TT_NEWLINE) advance(ps);
      if (ps->tok.kind != TT_EOF) expected(ps, "end of input after the module");
      break;
    }
    if (ps->tok.kind == TT_ERROR) {
      error_at(ps, &ps->tok, "lexer");
      break;
    }
    if (parse_func(ps, s)) {
      if (ps->errors == 0) ps->errors++; /* a failure without a parse diagnostic (out of memory) */
      recover_top(ps);
    }
  }
  if (!ps->errors && s->funcs.len == 0) expected(ps, "@T.prim_func");
done:
  if (ps->errors || ps->gave_up) {
    psg_tir_script_release(s);
    return PSG_ERR_PARSE;
  }
  *out = s;
  return PSG_OK;
}

psg_status psg_tir_script_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                psg_tir_script **out) {
  return psg_tir_script_parse_env(ctx, text, len, filename, NULL, out);
}

psg_status psg_tir_script_parse_env(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                    psg_tir_script_env *env, psg_tir_script **out) {
  *out = NULL;
  if (!text && len) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_tir_script_parse: NULL text");
  size_t diag_start = psg_ctx_diag_count(ctx);
  bool was_oom = psg_ctx_is_oom(ctx); /* the flag is sticky: only a new failure counts */
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.ctx = ctx;
  ps.file = psgi_intern(ctx, filename ? filename : "<input>", strlen(filename ? filename : "<input>"));
  if (!ps.file) return psgi_nomem(ctx);
  tlex_init(&ps.lx, ctx, text ? text : "", len);
  psgi_map_init(&ps.scope, ctx);
  psgi_arena_init(&ps.arena, ctx);
  ps.env = env;
  ps.next = ps.env ? psgi_tir_script_env_next(ps.env, &ps.lx, NULL) : tlex_next(&ps.lx);
  advance(&ps);
  psg_status st = parse_script(&ps, out);
  reset_func(&ps);
  release_all(ps.owned.data, ps.owned.len);
  PSGI_VEC_FREE(ctx, &ps.owned);
  PSGI_VEC_FREE(ctx, &ps.params);
  PSGI_VEC_FREE(ctx, &ps.map_params);
  PSGI_VEC_FREE(ctx, &ps.map_bufs);
  PSGI_VEC_FREE(ctx, &ps.frames);
  PSGI_VEC_FREE(ctx, &ps.stmts);
  PSGI_VEC_FREE(ctx, &ps.loops);
  PSGI_VEC_FREE(ctx, &ps.undo);
  psgi_map_fini(&ps.scope);
  psgi_arena_fini(&ps.arena);
  tlex_fini(&ps.lx);
  /* a failure that left no error message ran out of memory somewhere */
  if (st && (ps.oom || psg_ctx_diag_count(ctx) == diag_start || (!was_oom && psg_ctx_is_oom(ctx))))
    return PSG_ERR_NOMEM;
  return st;
}
