/* Passage — TVMScript printer: PrimFuncs in the text TVM v0.19's script()
 * prints (spec/tir.md §4, docs/text-format.md). Statements and expressions
 * are both walked with explicit task stacks, so depth costs heap, not stack.
 *
 * Names: a var or buffer keeps its name unless a live definition already
 * uses it, then gets name_1, name_2 ... (TVM's rule); a name is freed when
 * the scope that defined it closes. Buffers with no DeclBuffer and no
 * buffer_map entry (a flattened alias) are printed as
 * `X_1 = T.Buffer(shape, data=X.data)` at the start of the innermost scope
 * holding all their uses, found by a first pass that numbers scopes in the
 * order the printer enters them. */
#include <stdio.h>
#include <string.h>
#include "passage/arith.h"
#include "text/text_internal.h"
#include "text/tir_script_internal.h"

/* Python precedence levels (higher binds tighter). */
enum { PREC_NONE = 0, PREC_OR = 1, PREC_AND = 2, PREC_NOT = 3, PREC_CMP = 4, PREC_ADD = 6, PREC_MUL = 7, PREC_ATOM = 10 };

typedef struct name_undo {
  const void *obj;
  const char *name;     /* the printed name taken */
  const char *prev_obj; /* obj's previous printed name (NULL: none) */
} name_undo;

typedef struct etask {
  int kind;
  const void *ptr;
  int prec;
  int64_t ival; /* ET_INT: the value; ET_UNDO: the name mark */
} etask;
enum { ET_EXPR, ET_STR, ET_INT, ET_DTYPE, ET_DEFINE, ET_UNDO };

typedef struct stask {
  int kind; /* ST_STMT, ST_UNDO, ST_ELSE, ST_SEQ */
  const psg_tir_node *node;
  int indent;
  bool concise;
  size_t index; /* ST_SEQ: next item; ST_UNDO: name mark */
} stask;
enum { ST_STMT, ST_UNDO, ST_ELSE, ST_SEQ };

typedef struct printer {
  psg_ctx *ctx;
  psgi_buf *b;
  psg_status st;
  psgi_map names;   /* printed name (interned) -> live definitions (intptr) */
  psgi_map objname; /* var/buffer node -> printed name */
  PSGI_VEC(name_undo) undo;
  PSGI_VEC(etask) et;
  PSGI_VEC(stask) stk;
  /* Aliases: scope numbering and where each undeclared buffer goes. */
  PSGI_VEC(int) scope_parent, scope_depth, alias_head;
  PSGI_VEC(const psg_tir_node *) alias_buf;
  PSGI_VEC(int) alias_next;
  int next_scope;
} printer;

static void nomem(printer *p) {
  if (!p->st) p->st = psgi_nomem(p->ctx);
}
static void put(printer *p, const char *s) { psgi_buf_puts(p->b, s); }
static void indent(printer *p, int n) {
  for (int i = 0; i < n; i++) put(p, "    ");
}

/* Names ------------------------------------------------------------------- */

static bool name_taken(printer *p, const char *s) {
  psgi_map_entry *e = psgi_map_get_str(&p->names, s, strlen(s));
  return e && (intptr_t)e->value > 0;
}

static const char *obj_name(printer *p, const void *obj) {
  psgi_map_entry *e = psgi_map_get_ptr(&p->objname, obj);
  return e ? e->value : NULL;
}

/* Gives `obj` the printed name `text` (interned) until the next undo past
 * the current mark. */
static const char *bind_name(printer *p, const void *obj, const char *text) {
  const char *name = psgi_intern(p->ctx, text, strlen(text));
  psgi_map_entry *n = name ? psgi_map_put_str(&p->names, name, strlen(name), NULL) : NULL;
  psgi_map_entry *o = n ? psgi_map_put_ptr(&p->objname, obj, NULL) : NULL;
  if (!o || !PSGI_VEC_PUSH(p->ctx, &p->undo, ((name_undo){obj, name, o->value}))) {
    nomem(p);
    return "?";
  }
  n->value = (void *)((intptr_t)n->value + 1);
  o->value = (void *)name;
  return name;
}

/* A fresh printed name for `obj` from its IR name. */
static const char *define(printer *p, const void *obj, const char *raw) {
  char base[96], cand[120];
  size_t n = 0;
  for (const char *s = raw; *s && n < 80; s++) {
    char c = *s;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (n && c >= '0' && c <= '9');
    base[n++] = ok ? c : '_';
  }
  if (!n) base[n++] = 'v';
  base[n] = 0;
  snprintf(cand, sizeof cand, "%s", base);
  for (int k = 1; name_taken(p, cand); k++) snprintf(cand, sizeof cand, "%s_%d", base, k);
  return bind_name(p, obj, cand);
}

static void undo_to(printer *p, size_t mark) {
  while (p->undo.len > mark) {
    name_undo u = p->undo.data[--p->undo.len];
    psgi_map_entry *n = psgi_map_get_str(&p->names, u.name, strlen(u.name));
    if (n) n->value = (void *)((intptr_t)n->value - 1);
    psgi_map_entry *o = psgi_map_get_ptr(&p->objname, u.obj);
    if (o) o->value = (void *)u.prev_obj;
  }
}

static const char *use_name(printer *p, const psg_tir_node *n) {
  const char *s = obj_name(p, n);
  if (s) return s;
  return n->kind == PSG_TIR_BUFFER ? n->u.buf.name : n->u.var.name;
}

/* Leaves --------------------------------------------------------------------- */

static void put_dtype(printer *p, psg_tir_dtype t) {
  char s[32];
  psg_tir_dtype_str(t, s, sizeof s);
  put(p, s);
}

static void put_string(printer *p, const char *s, size_t len) {
  psgi_buf_putc(p->b, '"');
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') psgi_buf_printf(p->b, "\\%c", c);
    else if (c == '\n') put(p, "\\n");
    else if (c == '\t') put(p, "\\t");
    else if (c < 0x20 || c == 0x7f) psgi_buf_printf(p->b, "\\x%02x", c);
    else psgi_buf_putc(p->b, (char)c);
  }
  psgi_buf_putc(p->b, '"');
}

static void put_real(printer *p, double v, bool as_float) {
  if (v != v) { put(p, "\"nan\""); return; }
  if (v == 1.0 / 0.0) { put(p, "\"inf\""); return; }
  if (v == -1.0 / 0.0) { put(p, "\"-inf\""); return; }
  size_t mark = p->b->len;
  psgi_format_real(p->b, v, as_float);
  if (p->b->failed) return;
  bool has_dot = false;
  for (size_t i = mark; i < p->b->len; i++)
    if (p->b->data[i] == '.' || p->b->data[i] == 'e') has_dot = true;
  if (!has_dot) put(p, ".0");
}

static void put_imm(printer *p, const psg_tir_node *e) {
  if (e->kind == PSG_TIR_INT_IMM) {
    if (psg_tir_dtype_is_bool(e->dtype)) { put(p, e->u.int_value ? "T.bool(True)" : "T.bool(False)"); return; }
    if (e->dtype == psg_tir_dtype_int32() && e->u.int_value != INT32_MIN) { psgi_buf_printf(p->b, "%lld", (long long)e->u.int_value); return; }
    put(p, "T.");
    put_dtype(p, e->dtype);
    psgi_buf_printf(p->b, "(%lld)", (long long)e->u.int_value);
    return;
  }
  put(p, "T.");
  put_dtype(p, e->dtype);
  put(p, "(");
  put_real(p, e->u.float_value, psg_tir_dtype_bits(e->dtype) <= 32);
  put(p, ")");
}

/* Expressions ---------------------------------------------------------------- */

static void epush(printer *p, int kind, const void *ptr, int prec) {
  if (!PSGI_VEC_PUSH(p->ctx, &p->et, ((etask){kind, ptr, prec, 0}))) nomem(p);
}
#define ESTR(s) epush(p, ET_STR, (s), 0)

static int binary_prec(int kind) {
  switch (kind) {
  case PSG_TIR_ADD: case PSG_TIR_SUB: return PREC_ADD;
  case PSG_TIR_MUL: case PSG_TIR_DIV: case PSG_TIR_FLOOR_DIV: case PSG_TIR_FLOOR_MOD: return PREC_MUL;
  case PSG_TIR_EQ: case PSG_TIR_NE: case PSG_TIR_LT: case PSG_TIR_LE: case PSG_TIR_GT: case PSG_TIR_GE: return PREC_CMP;
  case PSG_TIR_AND: return PREC_AND;
  case PSG_TIR_OR: return PREC_OR;
  default: return 0;
  }
}

static const char *binary_op(int kind) {
  switch (kind) {
  case PSG_TIR_ADD: return " + ";
  case PSG_TIR_SUB: return " - ";
  case PSG_TIR_MUL: return " * ";
  case PSG_TIR_DIV: return " / ";
  case PSG_TIR_FLOOR_DIV: return " // ";
  case PSG_TIR_FLOOR_MOD: return " % ";
  case PSG_TIR_EQ: return " == ";
  case PSG_TIR_NE: return " != ";
  case PSG_TIR_LT: return " < ";
  case PSG_TIR_LE: return " <= ";
  case PSG_TIR_GT: return " > ";
  case PSG_TIR_GE: return " >= ";
  case PSG_TIR_AND: return " and ";
  case PSG_TIR_OR: return " or ";
  default: return " ? ";
  }
}

/* Pushes the tasks of "T.name(args...)" (args[0..n)) in reverse. */
static void push_call(printer *p, const char *head, psg_tir_node *const *args, size_t n) {
  ESTR(")");
  for (size_t i = n; i-- > 0;) {
    epush(p, ET_EXPR, args[i], PREC_NONE);
    if (i) ESTR(", ");
  }
  ESTR("(");
  ESTR(head);
}

static void epush_int(printer *p, int64_t v) {
  if (!PSGI_VEC_PUSH(p->ctx, &p->et, ((etask){ET_INT, NULL, 0, v}))) nomem(p);
}

/* An index: a Ramp with a positive constant stride prints as a slice
 * base:base + lanes*stride[:stride] (the stop folded for a literal base). */
static void push_index(printer *p, const psg_tir_node *ix) {
  if (ix->kind == PSG_TIR_RAMP && ix->kids[1]->kind == PSG_TIR_INT_IMM && ix->kids[1]->u.int_value > 0 &&
      ix->kids[0]->dtype == psg_tir_dtype_int32()) {
    const psg_tir_node *base = ix->kids[0];
    int64_t stride = ix->kids[1]->u.int_value;
    int64_t span = (int64_t)psg_tir_dtype_lanes(ix->dtype) * stride;
    if (stride != 1) {
      epush_int(p, stride);
      ESTR(":");
    }
    if (base->kind == PSG_TIR_INT_IMM) {
      epush_int(p, base->u.int_value + span);
    } else {
      epush_int(p, span);
      ESTR(" + ");
      epush(p, ET_EXPR, base, PREC_ADD);
    }
    ESTR(":");
    epush(p, ET_EXPR, base, PREC_NONE);
    return;
  }
  epush(p, ET_EXPR, ix, PREC_NONE);
}

/* "[i, j]" of a BufferLoad/Store; "[()]" without indices (a 0-d buffer), as
 * TVM prints it ("A[]" is not Python). */
static void push_indices(printer *p, const psg_tir_node *n) {
  size_t k = psgi_tir_num_indices(n);
  psg_tir_node *const *ix = psgi_tir_indices(n);
  if (!k) {
    ESTR("[()]");
    return;
  }
  ESTR("]");
  for (size_t i = k; i-- > 0;) {
    push_index(p, ix[i]);
    if (i) ESTR(", ");
  }
  ESTR("[");
}

/* A predicated access: A.vload([i], predicate=p) / A.vstore([i], v, predicate=p). */
static void push_vaccess(printer *p, const psg_tir_node *n, const psg_tir_node *value) {
  size_t k = psgi_tir_num_indices(n);
  psg_tir_node *const *ix = psgi_tir_indices(n);
  ESTR(")");
  epush(p, ET_EXPR, n->kids[n->nkids - 1], PREC_NONE);
  if (value) {
    ESTR(", predicate=");
    epush(p, ET_EXPR, value, PREC_NONE);
    ESTR("], ");
  } else {
    ESTR("], predicate=");
  }
  for (size_t i = k; i-- > 0;) {
    push_index(p, ix[i]);
    if (i) ESTR(", ");
  }
  ESTR(value ? ".vstore([" : ".vload([");
  ESTR(use_name(p, n->kids[0]));
}

static void epush_dtype(printer *p, psg_tir_dtype t) {
  if (!PSGI_VEC_PUSH(p->ctx, &p->et, ((etask){ET_DTYPE, NULL, 0, (int64_t)t}))) nomem(p);
}

static void push_expr_parts(printer *p, const psg_tir_node *e, int ctx_prec) {
  int k = e->kind;
  int prec = binary_prec(k);
  if (prec) {
    bool paren = prec < ctx_prec;
    bool cmp = prec == PREC_CMP;
    bool float_div = k == PSG_TIR_DIV && psg_tir_dtype_is_float(e->dtype);
    if (k == PSG_TIR_DIV && !float_div) {
      push_call(p, "T.truncdiv", e->kids, 2);
      return;
    }
    if (paren) ESTR(")");
    epush(p, ET_EXPR, e->kids[1], prec + 1);
    ESTR(binary_op(k));
    epush(p, ET_EXPR, e->kids[0], cmp ? prec + 1 : prec);
    if (paren) ESTR("(");
    return;
  }
  switch (k) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: ESTR(use_name(p, e)); return;
  case PSG_TIR_MOD: push_call(p, "T.truncmod", e->kids, 2); return;
  case PSG_TIR_MIN: push_call(p, "T.min", e->kids, 2); return;
  case PSG_TIR_MAX: push_call(p, "T.max", e->kids, 2); return;
  case PSG_TIR_SELECT: push_call(p, "T.Select", e->kids, 3); return;
  case PSG_TIR_NOT:
    if (ctx_prec > PREC_NOT) ESTR(")");
    epush(p, ET_EXPR, e->kids[0], PREC_NOT);
    ESTR("not ");
    if (ctx_prec > PREC_NOT) ESTR("(");
    return;
  case PSG_TIR_CAST:
    ESTR(")");
    epush(p, ET_EXPR, e->kids[0], PREC_NONE);
    ESTR("\", ");
    epush_dtype(p, e->dtype);
    ESTR("T.Cast(\"");
    return;
  case PSG_TIR_RAMP:
    ESTR(")");
    epush_int(p, psg_tir_dtype_lanes(e->dtype));
    ESTR(", ");
    epush(p, ET_EXPR, e->kids[1], PREC_NONE);
    ESTR(", ");
    epush(p, ET_EXPR, e->kids[0], PREC_NONE);
    ESTR("T.Ramp(");
    return;
  case PSG_TIR_BROADCAST:
    ESTR(")");
    epush_int(p, psg_tir_dtype_lanes(e->dtype));
    ESTR(", ");
    epush(p, ET_EXPR, e->kids[0], PREC_NONE);
    ESTR("T.Broadcast(");
    return;
  case PSG_TIR_LET: {
    /* T.Let(body, where={v: value}); v is defined around the whole call. */
    if (!PSGI_VEC_PUSH(p->ctx, &p->et, ((etask){ET_UNDO, NULL, 0, (int64_t)p->undo.len}))) nomem(p);
    ESTR("})");
    epush(p, ET_EXPR, e->kids[1], PREC_NONE);
    ESTR(": ");
    epush(p, ET_EXPR, e->kids[0], PREC_NONE);
    ESTR(", where={");
    epush(p, ET_EXPR, e->kids[2], PREC_NONE);
    ESTR("T.Let(");
    epush(p, ET_DEFINE, e->kids[0], 0);
    return;
  }
  case PSG_TIR_BUFFER_LOAD:
    if (e->flags & PSGI_TIR_HAS_PRED) {
      push_vaccess(p, e, NULL);
      return;
    }
    push_indices(p, e);
    ESTR(use_name(p, e->kids[0]));
    return;
  case PSG_TIR_CALL: {
    const char *op = psgi_tir_ops[e->u.op].name;
    int rule = psgi_tir_ops[e->u.op].rule;
    if (e->u.op == PSGI_TIR_OP_type_annotation) { /* T.type_annotation("float32") */
      ESTR("\")");
      epush_dtype(p, e->dtype);
      ESTR("T.type_annotation(\"");
      return;
    }
    if (rule == PSGI_TIR_RULE_EXTERN || !strcmp(op, "tir.reinterpret") ||
        psgi_tir_script_call_dtype(op, e->kids, e->nkids) != e->dtype) {
      /* T.call_extern("dtype", "f", args), T.reinterpret("dtype", x),
       * T.call_intrin("dtype", "tir.op", args) */
      bool intrin = rule != PSGI_TIR_RULE_EXTERN && strcmp(op, "tir.reinterpret");
      ESTR(")");
      for (size_t i = e->nkids; i-- > 0;) {
        epush(p, ET_EXPR, e->kids[i], PREC_NONE);
        ESTR(", ");
      }
      if (intrin) {
        ESTR("\"");
        ESTR(op);
        ESTR("\", \"");
      } else {
        ESTR("\"");
      }
      epush_dtype(p, e->dtype);
      ESTR("(\"");
      ESTR(intrin ? "call_intrin" : op + 4);
      ESTR("T.");
      return;
    }
    ESTR(")");
    for (size_t i = e->nkids; i-- > 0;) {
      epush(p, ET_EXPR, e->kids[i], PREC_NONE);
      if (i) ESTR(", ");
    }
    ESTR("(");
    ESTR(op + 4);
    ESTR("T.");
    return;
  }
  default: ESTR("?"); return;
  }
}

/* Runs the expression tasks above `base`. */
static void drain(printer *p, size_t base) {
  while (p->et.len > base && !p->st) {
    etask t = p->et.data[--p->et.len];
    switch (t.kind) {
    case ET_STR: put(p, t.ptr); break;
    case ET_INT: psgi_buf_printf(p->b, "%lld", (long long)t.ival); break;
    case ET_DTYPE: put_dtype(p, (psg_tir_dtype)t.ival); break;
    case ET_DEFINE: define(p, t.ptr, ((const psg_tir_node *)t.ptr)->u.var.name); break;
    case ET_UNDO: undo_to(p, (size_t)t.ival); break;
    case ET_EXPR: {
      const psg_tir_node *e = t.ptr;
      if (e->kind == PSG_TIR_INT_IMM || e->kind == PSG_TIR_FLOAT_IMM) {
        bool neg = e->kind == PSG_TIR_INT_IMM ? e->u.int_value < 0 : e->u.float_value < 0;
        bool bare = e->kind == PSG_TIR_INT_IMM && e->dtype == psg_tir_dtype_int32() && e->u.int_value != INT32_MIN;
        if (bare && neg && t.prec > PREC_MUL) put(p, "(");
        put_imm(p, e);
        if (bare && neg && t.prec > PREC_MUL) put(p, ")");
      } else if (e->kind == PSG_TIR_STRING_IMM) {
        put_string(p, e->u.str.s, e->u.str.len);
      } else {
        push_expr_parts(p, e, t.prec);
      }
      break;
    }
    }
  }
  p->et.len = base;
}

/* Prints expression `root` in a context of precedence `ctx_prec`. */
static void print_expr(printer *p, const psg_tir_node *root, int ctx_prec) {
  size_t base = p->et.len;
  epush(p, ET_EXPR, root, ctx_prec);
  drain(p, base);
}

/* Attribute values (func_attr, annotations): small and nested at most as
 * deep as the parser allows, so plain recursion. */
static void print_attr_value(printer *p, const psg_attr *v, int depth);
static void print_attrs_dict(printer *p, const psg_attrs *a, const char *skip_key, const char *skip_val, int depth) {
  put(p, "{");
  bool first = true;
  for (size_t i = 0; i < psg_attrs_count(a); i++) {
    const char *k = psg_attrs_key(a, i);
    psg_attr *v = psg_attrs_get_value(a, i);
    if (skip_key && !strcmp(k, skip_key) && psg_attr_kind(v) == PSG_ATTR_STRING &&
        !strcmp(psg_attr_get_string(v), skip_val))
      continue;
    if (!first) put(p, ", ");
    first = false;
    put_string(p, k, strlen(k));
    put(p, ": ");
    print_attr_value(p, v, depth + 1);
  }
  put(p, "}");
}

static void print_attr_value(printer *p, const psg_attr *v, int depth) {
  if (depth > 64) { put(p, "None"); return; }
  switch (psg_attr_kind(v)) {
  case PSG_ATTR_NONE: put(p, "None"); return;
  case PSG_ATTR_INT: psgi_buf_printf(p->b, "%lld", (long long)psg_attr_get_int(v)); return;
  case PSG_ATTR_FLOAT: put_real(p, psg_attr_get_float(v), false); return;
  case PSG_ATTR_BOOL: put(p, psg_attr_get_bool(v) ? "T.bool(True)" : "T.bool(False)"); return;
  case PSG_ATTR_STRING: {
    const char *s = psg_attr_get_string(v);
    put_string(p, s, strlen(s));
    return;
  }
  case PSG_ATTR_DTYPE: {
    const char *s = psg_dtype_name(psg_attr_get_dtype(v));
    put_string(p, s, strlen(s));
    return;
  }
  case PSG_ATTR_LIST:
    put(p, "[");
    for (size_t i = 0; i < psg_attr_list_len(v); i++) {
      if (i) put(p, ", ");
      print_attr_value(p, psg_attr_list_get(v, i), depth + 1);
    }
    put(p, "]");
    return;
  case PSG_ATTR_DICT: print_attrs_dict(p, psg_attr_get_dict(v), NULL, NULL, depth + 1); return;
  default: put(p, "None"); return;
  }
}

/* Buffers ------------------------------------------------------------------- */

static bool is_zero(const psg_tir_node *e) { return e->kind == PSG_TIR_INT_IMM && e->u.int_value == 0; }

/* "(shape), "dtype", kw=..." of T.Buffer / T.match_buffer / T.decl_buffer.
 * `data_kw`: print data= (the data var is named already). */
static void print_buffer_args(printer *p, const psg_tir_node *b, bool keep_dtype, bool data_kw) {
  size_t nd = b->u.buf.ndim, ns = b->u.buf.nstrides;
  put(p, "(");
  for (size_t i = 0; i < nd; i++) {
    if (i) put(p, ", ");
    print_expr(p, b->kids[2 + i], PREC_NONE);
  }
  put(p, nd == 1 ? ",)" : ")");
  if (keep_dtype || b->dtype != psg_tir_dtype_float32()) {
    put(p, ", \"");
    put_dtype(p, b->dtype);
    put(p, "\"");
  }
  if (data_kw) {
    put(p, ", data=");
    print_expr(p, b->kids[0], PREC_NONE);
  }
  if (ns) {
    put(p, ", strides=(");
    for (size_t i = 0; i < ns; i++) {
      if (i) put(p, ", ");
      print_expr(p, b->kids[2 + nd + i], PREC_NONE);
    }
    put(p, ns == 1 ? ",)" : ")");
  }
  if (!is_zero(b->kids[1]) || b->kids[1]->dtype != (nd ? b->kids[2]->dtype : psg_tir_dtype_int32())) {
    put(p, ", elem_offset=");
    print_expr(p, b->kids[1], PREC_NONE);
  }
  const char *scope = psg_tir_buffer_scope(b);
  if (!data_kw && strcmp(scope, "global")) {
    put(p, ", scope=");
    put_string(p, scope, strlen(scope));
  }
  if (b->u.buf.data_alignment != 64) psgi_buf_printf(p->b, ", align=%d", b->u.buf.data_alignment);
  if (b->u.buf.offset_factor != 1) psgi_buf_printf(p->b, ", offset_factor=%d", b->u.buf.offset_factor);
  if (b->u.buf.buffer_type == PSG_TIR_BUFFER_AUTO_BROADCAST) put(p, ", buffer_type=\"auto\"");
  if (b->u.buf.naxis) {
    put(p, ", axis_separators=[");
    for (uint32_t i = 0; i < b->u.buf.naxis; i++)
      psgi_buf_printf(p->b, "%s%lld", i ? ", " : "", (long long)b->u.buf.axis_separators[i]);
    put(p, "]");
  }
}

/* Names a buffer and, when its data var has no name yet, the data var as
 * "A.data". */
static const char *define_buffer(printer *p, const psg_tir_node *b) {
  bool data_named = obj_name(p, b->kids[0]) != NULL;
  const char *name = define(p, b, b->u.buf.name);
  if (!data_named) {
    char dn[140];
    snprintf(dn, sizeof dn, "%s.data", name);
    bind_name(p, b->kids[0], dn);
  }
  return name;
}

static void print_type_annotation(printer *p, const psg_tir_node *var) {
  const psg_tir_node *t = var->u.var.type;
  if (t && t->kind == PSG_TIR_POINTER_TYPE) {
    const char *scope = t->u.scope;
    put(p, "T.handle(\"");
    put_dtype(p, t->kids[0]->dtype);
    put(p, "\"");
    if (strcmp(scope, "global")) {
      put(p, ", ");
      put_string(p, scope, strlen(scope));
    }
    put(p, ")");
    return;
  }
  put(p, "T.");
  put_dtype(p, var->dtype);
}

/* Alias placement (first pass) --------------------------------------------- */

typedef struct pre_item {
  const psg_tir_node *stmt;
  int scope;      /* the scope the statement is in, or -1: it opens a new one */
  int parent;     /* with scope -1: the enclosing scope */
} pre_item;

typedef struct prepass {
  psgi_map bound;    /* vars some definition slot binds (collect_bound) */
  psgi_map declared; /* buffers with a buffer_map entry or a DeclBuffer */
  psgi_map index;    /* undeclared buffer -> position + 1 in alias_buf */
  PSGI_VEC(int) lca;
  PSGI_VEC(const psg_tir_node *) ex;
} prepass;

static int scope_lca(printer *p, int a, int b) {
  while (p->scope_depth.data[a] > p->scope_depth.data[b]) a = p->scope_parent.data[a];
  while (p->scope_depth.data[b] > p->scope_depth.data[a]) b = p->scope_parent.data[b];
  while (a != b) {
    a = p->scope_parent.data[a];
    b = p->scope_parent.data[b];
  }
  return a;
}

static void use_buffer(printer *p, prepass *pp, const psg_tir_node *buf, int scope) {
  if (psgi_map_get_ptr(&pp->declared, buf)) return;
  bool is_new;
  psgi_map_entry *e = psgi_map_put_ptr(&pp->index, buf, &is_new);
  if (!e) { nomem(p); return; }
  if (is_new) {
    if (!PSGI_VEC_PUSH(p->ctx, &p->alias_buf, buf) || !PSGI_VEC_PUSH(p->ctx, &pp->lca, scope)) { nomem(p); return; }
    e->value = (void *)(uintptr_t)p->alias_buf.len;
    return;
  }
  size_t i = (uintptr_t)e->value - 1;
  pp->lca.data[i] = scope_lca(p, pp->lca.data[i], scope);
}

/* Vars that no definition slot of `f` binds (psgi_tir_visit_slot: params,
 * buffer-map buffers and every buffer field, Let/LetStmt/For vars,
 * Allocate's var, AttrStmt nodes) are free: TVM's printer defines each as
 * `n = T.int32()` in the lowest frame holding all its uses (FindLowestVarDef),
 * which the prepass places like an alias. Marks every var in a definition
 * position in pp->bound; each node is walked at most once per mode. */
static void collect_bound(printer *p, prepass *pp, const psg_tir_node *f) {
  psgi_map seen;
  psgi_map_init(&seen, p->ctx);
  PSGI_VEC(uintptr_t) st = {0}; /* node | under-a-definition bit */
  if (!PSGI_VEC_PUSH(p->ctx, &st, (uintptr_t)f)) nomem(p);
  while (st.len && !p->st) {
    uintptr_t top = st.data[--st.len];
    const psg_tir_node *n = (const psg_tir_node *)(top & ~(uintptr_t)1);
    bool under_def = top & 1;
    bool is_new;
    psgi_map_entry *e = psgi_map_put_ptr(&seen, n, &is_new);
    if (!e) { nomem(p); break; }
    uintptr_t modes = is_new ? 0 : (uintptr_t)e->value, bit = under_def ? 2 : 1;
    if (modes & bit) continue;
    e->value = (void *)(modes | bit);
    if (under_def && psgi_tir_is_var_kind(n->kind) && !psgi_map_put_ptr(&pp->bound, n, NULL)) nomem(p);
    for (uint32_t k = 0; k < n->nkids; k++) {
      bool def;
      uint32_t slot = psgi_tir_visit_slot(n, k, &def);
      const psg_tir_node *c = n->kids[slot];
      if (c && !PSGI_VEC_PUSH(p->ctx, &st, (uintptr_t)c | (under_def || def))) nomem(p);
    }
  }
  PSGI_VEC_FREE(p->ctx, &st);
  psgi_map_fini(&seen);
}

static void scan_expr(printer *p, prepass *pp, const psg_tir_node *root, int scope) {
  pp->ex.len = 0;
  if (!PSGI_VEC_PUSH(p->ctx, &pp->ex, root)) { nomem(p); return; }
  while (pp->ex.len && !p->st) {
    const psg_tir_node *e = pp->ex.data[--pp->ex.len];
    if (e->kind == PSG_TIR_BUFFER_LOAD) use_buffer(p, pp, e->kids[0], scope);
    /* A free var goes where an undeclared buffer goes (use_buffer's lists). */
    if (psgi_tir_is_var_kind(e->kind) && !psgi_map_get_ptr(&pp->bound, e)) use_buffer(p, pp, e, scope);
    for (uint32_t i = e->nkids; i-- > 0;) /* reversed: the first operand is met first */
      if (psgi_tir_is_expr_kind(e->kids[i]->kind) && !PSGI_VEC_PUSH(p->ctx, &pp->ex, e->kids[i])) nomem(p);
  }
}

static int new_scope(printer *p, int parent) {
  int depth = parent < 0 ? 0 : p->scope_depth.data[parent] + 1;
  if (!PSGI_VEC_PUSH(p->ctx, &p->scope_parent, parent < 0 ? 0 : parent) ||
      !PSGI_VEC_PUSH(p->ctx, &p->scope_depth, depth) || !PSGI_VEC_PUSH(p->ctx, &p->alias_head, -1)) {
    nomem(p);
    return 0;
  }
  return (int)p->scope_parent.len - 1;
}

static void prepass_run(printer *p, const psg_tir_node *f) {
  prepass pp;
  memset(&pp, 0, sizeof pp);
  psgi_map_init(&pp.bound, p->ctx);
  psgi_map_init(&pp.declared, p->ctx);
  psgi_map_init(&pp.index, p->ctx);
  collect_bound(p, &pp, f);
  PSGI_VEC(pre_item) stk = {0};
  for (uint32_t i = 0; i < f->u.func.nmap; i++)
    if (!psgi_map_put_ptr(&pp.declared, f->kids[1 + f->u.func.nparams + i], NULL)) nomem(p);
  new_scope(p, -1);
  if (!PSGI_VEC_PUSH(p->ctx, &stk, ((pre_item){f->kids[0], 0, 0}))) nomem(p);
  /* DeclBuffers first, so that uses before the walk meets them count. */
  PSGI_VEC(const psg_tir_node *) all = {0};
  if (!PSGI_VEC_PUSH(p->ctx, &all, f->kids[0])) nomem(p);
  while (all.len && !p->st) {
    const psg_tir_node *s = all.data[--all.len];
    if (s->kind == PSG_TIR_DECL_BUFFER && !psgi_map_put_ptr(&pp.declared, s->kids[0], NULL)) nomem(p);
    for (uint32_t i = 0; i < s->nkids; i++)
      if (psgi_tir_is_stmt_kind(s->kids[i]->kind) && !PSGI_VEC_PUSH(p->ctx, &all, s->kids[i])) nomem(p);
  }
  PSGI_VEC_FREE(p->ctx, &all);
  while (stk.len && !p->st) {
    pre_item it = stk.data[--stk.len];
    const psg_tir_node *s = it.stmt;
    int scope = it.scope < 0 ? new_scope(p, it.parent) : it.scope;
    if (s->kind == PSG_TIR_BUFFER_STORE) use_buffer(p, &pp, s->kids[0], scope);
    for (uint32_t i = 0; i < s->nkids; i++)
      if (psgi_tir_is_expr_kind(s->kids[i]->kind)) scan_expr(p, &pp, s->kids[i], scope);
    for (uint32_t i = s->nkids; i-- > 0;) {
      const psg_tir_node *k = s->kids[i];
      if (!psgi_tir_is_stmt_kind(k->kind)) continue;
      pre_item child = s->kind == PSG_TIR_SEQ_STMT ? (pre_item){k, scope, 0} : (pre_item){k, -1, scope};
      if (!PSGI_VEC_PUSH(p->ctx, &stk, child)) nomem(p);
    }
  }
  /* Chain each scope's aliases in first-use order. */
  if (!p->st && PSGI_VEC_RESERVE(p->ctx, &p->alias_next, p->alias_buf.len)) {
    p->alias_next.len = p->alias_buf.len;
    for (size_t i = p->alias_buf.len; i-- > 0;) {
      int sc = pp.lca.data[i];
      p->alias_next.data[i] = p->alias_head.data[sc];
      p->alias_head.data[sc] = (int)i;
    }
  } else {
    nomem(p);
  }
  PSGI_VEC_FREE(p->ctx, &stk);
  PSGI_VEC_FREE(p->ctx, &pp.lca);
  PSGI_VEC_FREE(p->ctx, &pp.ex);
  psgi_map_fini(&pp.bound);
  psgi_map_fini(&pp.declared);
  psgi_map_fini(&pp.index);
}

/* `n = T.int32()`, `p = T.handle("float32", "shared")`, with
 * is_size_var=True for a SizeVar: TVM's PrintVarCreation. */
static void define_free_var(printer *p, const psg_tir_node *v, int ind) {
  indent(p, ind);
  put(p, define(p, v, v->u.var.name));
  const psg_tir_node *t = v->u.var.type;
  bool size = v->kind == PSG_TIR_SIZE_VAR;
  if (t && t->kind == PSG_TIR_POINTER_TYPE) {
    put(p, " = T.handle(\"");
    put_dtype(p, t->kids[0]->dtype);
    put(p, "\"");
    if (strcmp(t->u.scope, "global")) {
      put(p, ", ");
      put_string(p, t->u.scope, strlen(t->u.scope));
    }
    put(p, size ? ", is_size_var=True)\n" : ")\n");
    return;
  }
  put(p, " = T.");
  put_dtype(p, v->dtype);
  put(p, size ? "(is_size_var=True)\n" : "()\n");
}

/* Enters the next scope: prints its free vars and aliases at `ind`. */
static void enter_scope(printer *p, int ind) {
  int sc = p->next_scope++;
  if (p->st || sc >= (int)p->alias_head.len) return;
  for (int i = p->alias_head.data[sc]; i >= 0; i = p->alias_next.data[i]) {
    const psg_tir_node *b = p->alias_buf.data[i];
    if (psgi_tir_is_var_kind(b->kind)) {
      define_free_var(p, b, ind);
      continue;
    }
    bool data_named = obj_name(p, b->kids[0]) != NULL;
    const char *name = define(p, b, b->u.buf.name);
    indent(p, ind);
    put(p, name);
    put(p, " = T.Buffer(");
    print_buffer_args(p, b, false, data_named);
    put(p, ")\n");
    if (!data_named) {
      char dn[140];
      snprintf(dn, sizeof dn, "%s.data", name);
      bind_name(p, b->kids[0], dn);
    }
  }
}

/* Statements ------------------------------------------------------------------ */

static void spush(printer *p, stask t) {
  if (!PSGI_VEC_PUSH(p->ctx, &p->stk, t)) nomem(p);
}

static bool is_plain_loop(const psg_tir_node *s) {
  return s->kind == PSG_TIR_FOR && s->u.loop.kind == PSG_TIR_FOR_SERIAL && !psg_attrs_count(s->u.loop.annotations) &&
         is_zero(s->kids[1]) && s->kids[1]->dtype == s->kids[2]->dtype;
}

/* Whether expression `e` mentions one of vars[0..n). */
static bool uses_any(printer *p, const psg_tir_node *e, const psg_tir_node *const *vars, size_t n) {
  PSGI_VEC(const psg_tir_node *) st = {0};
  bool found = false;
  if (!PSGI_VEC_PUSH(p->ctx, &st, e)) { nomem(p); return true; }
  while (st.len && !found) {
    const psg_tir_node *x = st.data[--st.len];
    for (size_t i = 0; i < n; i++)
      if (x == vars[i]) found = true;
    for (uint32_t i = 0; i < x->nkids; i++)
      if (psgi_tir_is_expr_kind(x->kids[i]->kind) && !PSGI_VEC_PUSH(p->ctx, &st, x->kids[i])) {
        nomem(p);
        found = true;
      }
  }
  PSGI_VEC_FREE(p->ctx, &st);
  return found;
}

static const char *loop_head(int kind) {
  switch (kind) {
  case PSG_TIR_FOR_PARALLEL: return "T.parallel(";
  case PSG_TIR_FOR_VECTORIZED: return "T.vectorized(";
  case PSG_TIR_FOR_UNROLLED: return "T.unroll(";
  default: return "T.serial(";
  }
}

/* "min, min + extent" or "extent" of a loop, folded when both are literals. */
static void print_loop_range(printer *p, const psg_tir_node *s) {
  const psg_tir_node *mn = s->kids[1], *ext = s->kids[2];
  if (is_zero(mn) && mn->dtype == ext->dtype) {
    print_expr(p, ext, PREC_NONE);
    return;
  }
  print_expr(p, mn, PREC_NONE);
  put(p, ", ");
  if (mn->kind == PSG_TIR_INT_IMM && ext->kind == PSG_TIR_INT_IMM && mn->dtype == psg_tir_dtype_int32() &&
      ext->dtype == mn->dtype) {
    psgi_buf_printf(p->b, "%lld", (long long)(mn->u.int_value + ext->u.int_value));
    return;
  }
  print_expr(p, mn, PREC_ADD);
  put(p, " + ");
  print_expr(p, ext, PREC_ADD + 1);
}

static void print_for(printer *p, const psg_tir_node *s, int ind) {
  const psg_tir_node *loops[64];
  size_t n = 1;
  loops[0] = s;
  if (is_plain_loop(s)) {
    psg_tir_node *vars[64];
    vars[0] = s->kids[0];
    while (n < 64) {
      const psg_tir_node *in = loops[n - 1]->kids[3];
      if (!is_plain_loop(in) || uses_any(p, in->kids[2], (const psg_tir_node *const *)vars, n)) break;
      vars[n] = in->kids[0];
      loops[n++] = in;
    }
  }
  size_t mark = p->undo.len;
  indent(p, ind);
  put(p, "for ");
  for (size_t i = 0; i < n; i++) {
    if (i) put(p, ", ");
    /* a var an AttrStmt above already declared keeps its name (TVM's DefineVar) */
    const psg_tir_node *v = loops[i]->kids[0];
    const char *known = obj_name(p, v);
    put(p, known ? known : define(p, v, v->u.var.name));
  }
  put(p, " in ");
  if (n > 1) {
    put(p, "T.grid(");
    for (size_t i = 0; i < n; i++) {
      if (i) put(p, ", ");
      print_expr(p, loops[i]->kids[2], PREC_NONE);
    }
    put(p, ")");
  } else if (is_plain_loop(s) || (s->u.loop.kind == PSG_TIR_FOR_SERIAL && !psg_attrs_count(s->u.loop.annotations))) {
    put(p, "range(");
    print_loop_range(p, s);
    put(p, ")");
  } else {
    put(p, loop_head(s->u.loop.kind));
    print_loop_range(p, s);
    if (psg_attrs_count(s->u.loop.annotations)) {
      put(p, ", annotations=");
      print_attrs_dict(p, s->u.loop.annotations, NULL, NULL, 0);
    }
    put(p, ")");
  }
  put(p, ":\n");
  for (size_t i = 0; i < n; i++) enter_scope(p, ind + 1);
  spush(p, (stask){ST_UNDO, NULL, 0, false, mark});
  spush(p, (stask){ST_STMT, loops[n - 1]->kids[3], ind + 1, true, 0});
}

static void print_scope_body(printer *p, const psg_tir_node *body, int ind, size_t mark) {
  enter_scope(p, ind);
  spush(p, (stask){ST_UNDO, NULL, 0, false, mark});
  spush(p, (stask){ST_STMT, body, ind, true, 0});
}

/* "NAME = RHS" (concise) or "with RHS as NAME:"; RHS is printed by `rhs`. */
typedef void (*rhs_fn)(printer *p, const psg_tir_node *s);

static void rhs_allocate(printer *p, const psg_tir_node *s) {
  put(p, "T.allocate([");
  for (uint32_t i = 3; i < s->nkids; i++) {
    if (i > 3) put(p, ", ");
    print_expr(p, s->kids[i], PREC_NONE);
  }
  put(p, "], \"");
  put_dtype(p, s->dtype);
  put(p, "\", ");
  const char *scope = s->kids[0]->u.var.type->u.scope;
  put_string(p, scope, strlen(scope));
  const psg_tir_node *c = s->kids[1];
  if (!(c->kind == PSG_TIR_INT_IMM && c->u.int_value == 1)) {
    put(p, ", condition=");
    print_expr(p, c, PREC_NONE);
  }
  if (psg_attrs_count(s->u.annotations)) {
    put(p, ", annotations=");
    print_attrs_dict(p, s->u.annotations, NULL, NULL, 0);
  }
  put(p, ")");
}

/* An AttrStmt over an IterVar (iter_var.c). A thread launch whose IterVar
 * is what T.launch_thread makes (ThreadIndex, range [0, value), the key its
 * tag gives: "virtual_thread" for "vthread*", else "thread_extent") prints as
 * TVM's `with T.launch_thread(v, n):`, its var declared first by
 * `v = T.env_thread("tag")` when nothing defined it yet; any other as
 * `with T.attr(T.iter_var(v, T.Range(a, b) or None, "Kind", "tag"), key, value):`
 * with an undeclared var declared by `v = T.int32()`. Returns false when the
 * generic form prints it. */
static bool print_iter_var_attr(printer *p, const psg_tir_node *s, const psg_tir_node *iv, int ind) {
  const psg_tir_node *var = iv->kids[0];
  const char *key = s->u.attr_key;
  /* the key T.launch_thread gives the tag ("virtual_thread" for "vthread*") */
  const char *launch_key = strncmp(iv->u.iter.tag, "vthread", 7) ? "thread_extent" : "virtual_thread";
  bool launch = !strcmp(key, launch_key) && iv->u.iter.type == PSG_TIR_ITER_THREAD_INDEX && iv->nkids == 3 && is_zero(iv->kids[1]) &&
                psg_tir_structural_equal(iv->kids[2], s->kids[0]);
  if (!obj_name(p, var)) {
    indent(p, ind);
    put(p, define(p, var, var->u.var.name));
    if (launch) {
      put(p, " = T.env_thread(");
      put_string(p, iv->u.iter.tag, strlen(iv->u.iter.tag));
      put(p, ")\n");
    } else {
      put(p, " = T.");
      put_dtype(p, var->dtype);
      put(p, "()\n");
    }
  }
  indent(p, ind);
  if (launch) {
    put(p, "with T.launch_thread(");
    put(p, use_name(p, var));
  } else {
    put(p, "with T.attr(T.iter_var(");
    put(p, use_name(p, var));
    put(p, ", ");
    if (iv->nkids == 3) {
      put(p, "T.Range(");
      print_expr(p, iv->kids[1], PREC_NONE);
      put(p, ", ");
      print_expr(p, iv->kids[2], PREC_NONE);
      put(p, ")");
    } else {
      put(p, "None");
    }
    put(p, ", ");
    const char *tn = psg_tir_iter_type_name(iv->u.iter.type);
    put_string(p, tn, strlen(tn));
    put(p, ", ");
    put_string(p, iv->u.iter.tag, strlen(iv->u.iter.tag));
    put(p, "), ");
    put_string(p, key, strlen(key));
  }
  put(p, ", ");
  print_expr(p, s->kids[0], PREC_NONE);
  put(p, "):\n");
  print_scope_body(p, s->kids[1], ind + 1, p->undo.len);
  return true;
}

/* An Allocate whose body declares a buffer over exactly its memory (same
 * data var, dtype and extents, condition true, no annotations): what
 * `T.decl_buffer(...)` without data= makes (TVM's IsAllocateDeclBufferPattern). */
static bool is_allocate_decl_buffer(const psg_tir_node *s) {
  const psg_tir_node *d = s->kids[2], *c = s->kids[1];
  if (d->kind != PSG_TIR_DECL_BUFFER) return false;
  const psg_tir_node *b = d->kids[0];
  if (b->kids[0] != s->kids[0] || b->dtype != s->dtype || !(c->kind == PSG_TIR_INT_IMM && c->u.int_value == 1) ||
      psg_attrs_count(s->u.annotations))
    return false;
  if (!b->u.buf.ndim) /* T.decl_buffer(()): one element (the parser's Allocate [1]) */
    return s->nkids == 4 && s->kids[3]->kind == PSG_TIR_INT_IMM && s->kids[3]->u.int_value == 1;
  if (b->u.buf.ndim != s->nkids - 3) return false;
  for (uint32_t i = 0; i < b->u.buf.ndim; i++)
    if (!psg_arith_expr_equal(b->kids[2 + i], s->kids[3 + i])) return false;
  return true;
}

static void print_stmt(printer *p, const psg_tir_node *s, int ind, bool concise) {
  switch (s->kind) {
  case PSG_TIR_FOR: print_for(p, s, ind); return;
  case PSG_TIR_SEQ_STMT: spush(p, (stask){ST_SEQ, s, ind, concise, 0}); return;
  case PSG_TIR_BUFFER_STORE: {
    indent(p, ind);
    size_t base = p->et.len;
    if (s->flags & PSGI_TIR_HAS_PRED) {
      push_vaccess(p, s, s->kids[1]);
      drain(p, base);
    } else {
      put(p, use_name(p, s->kids[0]));
      push_indices(p, s);
      drain(p, base);
      put(p, " = ");
      print_expr(p, s->kids[1], PREC_NONE);
    }
    put(p, "\n");
    return;
  }
  case PSG_TIR_EVALUATE:
    indent(p, ind);
    if (s->kids[0]->kind == PSG_TIR_CALL) {
      print_expr(p, s->kids[0], PREC_NONE);
    } else {
      put(p, "T.evaluate(");
      print_expr(p, s->kids[0], PREC_NONE);
      put(p, ")");
    }
    put(p, "\n");
    return;
  case PSG_TIR_IF_THEN_ELSE:
    indent(p, ind);
    put(p, "if ");
    print_expr(p, s->kids[0], PREC_NONE);
    put(p, ":\n");
    if (s->nkids > 2) spush(p, (stask){ST_ELSE, s, ind, false, 0});
    print_scope_body(p, s->kids[1], ind + 1, p->undo.len);
    return;
  case PSG_TIR_WHILE:
    indent(p, ind);
    put(p, "while ");
    print_expr(p, s->kids[0], PREC_NONE);
    put(p, ":\n");
    print_scope_body(p, s->kids[1], ind + 1, p->undo.len);
    return;
  case PSG_TIR_LET_STMT: {
    const psg_tir_node *var = s->kids[0];
    size_t mark = p->undo.len;
    indent(p, ind);
    if (concise) {
      put(p, define(p, var, var->u.var.name));
      if (var->u.var.type && var->u.var.type->kind != PSG_TIR_TUPLE_TYPE) {
        put(p, ": ");
        print_type_annotation(p, var);
      }
      put(p, " = ");
      print_expr(p, s->kids[1], PREC_NONE);
      put(p, "\n");
      print_scope_body(p, s->kids[2], ind, mark);
    } else {
      put(p, "with T.LetStmt(");
      print_expr(p, s->kids[1], PREC_NONE);
      put(p, ") as ");
      put(p, define(p, var, var->u.var.name));
      put(p, ":\n");
      print_scope_body(p, s->kids[2], ind + 1, mark);
    }
    return;
  }
  case PSG_TIR_ALLOCATE: {
    if (is_allocate_decl_buffer(s)) {
      /* TVM prints the pair as the one T.decl_buffer that makes it (the
       * Allocate's body scope is still taken: the prepass numbered it) */
      enter_scope(p, ind);
      print_stmt(p, s->kids[2], ind, concise);
      return;
    }
    size_t mark = p->undo.len;
    indent(p, ind);
    if (concise) {
      put(p, define(p, s->kids[0], s->kids[0]->u.var.name));
      put(p, " = ");
      rhs_allocate(p, s);
      put(p, "\n");
    } else {
      put(p, "with ");
      rhs_allocate(p, s);
      put(p, " as ");
      put(p, define(p, s->kids[0], s->kids[0]->u.var.name));
      put(p, ":\n");
    }
    print_scope_body(p, s->kids[2], concise ? ind : ind + 1, mark);
    return;
  }
  case PSG_TIR_DECL_BUFFER: {
    const psg_tir_node *b = s->kids[0];
    size_t mark = p->undo.len;
    bool data_named = obj_name(p, b->kids[0]) != NULL;
    indent(p, ind);
    if (concise) {
      put(p, define_buffer(p, b));
      put(p, " = T.decl_buffer(");
      print_buffer_args(p, b, false, data_named);
      put(p, ")\n");
    } else {
      put(p, "with T.decl_buffer(");
      /* the args print before the name is defined: data= is the same */
      print_buffer_args(p, b, false, data_named);
      put(p, ") as ");
      put(p, define_buffer(p, b));
      put(p, ":\n");
    }
    print_scope_body(p, s->kids[1], concise ? ind : ind + 1, mark);
    return;
  }
  case PSG_TIR_ATTR_STMT: {
    const psg_tir_node *node = (s->flags & PSGI_TIR_HAS_NODE) ? s->kids[2] : NULL;
    if (node && node->kind == PSG_TIR_ITER_VAR && print_iter_var_attr(p, s, node, ind)) return;
    /* A var no enclosing statement defined yet (a pragma on the loop var
     * below, after tir.LowerOpaqueBlock) is declared before the `with`, as
     * TVM's printer defines it in the lowest enclosing frame. */
    if (node && psgi_tir_is_var_kind(node->kind) && !obj_name(p, node)) define_free_var(p, node, ind);
    indent(p, ind);
    put(p, "with T.attr(");
    if (!node) put(p, "None");
    else if (node->kind == PSG_TIR_BUFFER) put(p, use_name(p, node));
    else if (psgi_tir_is_expr_kind(node->kind)) print_expr(p, node, PREC_NONE);
    else put(p, "None");
    put(p, ", ");
    put_string(p, s->u.attr_key, strlen(s->u.attr_key));
    put(p, ", ");
    print_expr(p, s->kids[0], PREC_NONE);
    put(p, "):\n");
    print_scope_body(p, s->kids[1], ind + 1, p->undo.len);
    return;
  }
  case PSG_TIR_ASSERT_STMT:
    indent(p, ind);
    if (concise) {
      put(p, "assert ");
      print_expr(p, s->kids[0], PREC_NONE);
      put(p, ", ");
      print_expr(p, s->kids[1], PREC_NONE);
      put(p, "\n");
      print_scope_body(p, s->kids[2], ind, p->undo.len);
    } else {
      put(p, "with T.Assert(");
      print_expr(p, s->kids[0], PREC_NONE);
      put(p, ", ");
      print_expr(p, s->kids[1], PREC_NONE);
      put(p, "):\n");
      print_scope_body(p, s->kids[2], ind + 1, p->undo.len);
    }
    return;
  default:
    indent(p, ind);
    put(p, "T.evaluate(0)\n");
    if (!p->st) p->st = psg_ctx_fail(p->ctx, PSG_ERR_UNSUPPORTED, "TVMScript printer: unknown statement kind %d", s->kind);
    return;
  }
}

static void print_body(printer *p, const psg_tir_node *body, int ind) {
  size_t base = p->stk.len;
  spush(p, (stask){ST_STMT, body, ind, true, 0});
  while (p->stk.len > base && !p->st && !p->b->failed) {
    stask t = p->stk.data[--p->stk.len];
    switch (t.kind) {
    case ST_STMT: print_stmt(p, t.node, t.indent, t.concise); break;
    case ST_UNDO: undo_to(p, t.index); break;
    case ST_ELSE:
      indent(p, t.indent);
      put(p, "else:\n");
      print_scope_body(p, t.node->kids[2], t.indent + 1, p->undo.len);
      break;
    case ST_SEQ: {
      size_t n = t.node->nkids, i = t.index;
      if (i + 1 < n) spush(p, (stask){ST_SEQ, t.node, t.indent, t.concise, i + 1});
      spush(p, (stask){ST_STMT, t.node->kids[i], t.indent, t.concise && i + 1 == n, 0});
      break;
    }
    }
  }
  p->stk.len = base;
}

/* Functions -------------------------------------------------------------------- */

static const char *const reserved[] = {"T", "I", "range", "for", "in", "if", "else", "elif", "while", "with",
                                       "as", "def", "class", "and", "or", "not", "is", "True", "False",
                                       "None", "assert", "return", "pass", "lambda", "del", "from",
                                       "import", "global", "yield", "break", "continue", "try", "raise"};

static void reset_names(printer *p) {
  psgi_map_fini(&p->names);
  psgi_map_fini(&p->objname);
  psgi_map_init(&p->names, p->ctx);
  psgi_map_init(&p->objname, p->ctx);
  p->undo.len = 0;
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++) {
    const char *k = psgi_intern(p->ctx, reserved[i], strlen(reserved[i]));
    psgi_map_entry *e = k ? psgi_map_put_str(&p->names, k, strlen(k), NULL) : NULL;
    if (!e) { nomem(p); return; }
    e->value = (void *)1;
  }
  p->scope_parent.len = p->scope_depth.len = p->alias_head.len = 0;
  p->alias_buf.len = p->alias_next.len = 0;
  p->next_scope = 0;
}

/* A param buffer that fits in the signature: compact, default fields, a
 * shape of literals and of vars named already (earlier scalar params). */
static bool simple_param_buffer(printer *p, const psg_tir_node *b) {
  if (b->u.buf.nstrides || b->u.buf.naxis || b->u.buf.data_alignment != 64 || b->u.buf.offset_factor != 1 ||
      b->u.buf.buffer_type != PSG_TIR_BUFFER_DEFAULT || strcmp(psg_tir_buffer_scope(b), "global") ||
      obj_name(p, b->kids[0]))
    return false;
  size_t nd = b->u.buf.ndim;
  if (!is_zero(b->kids[1]) || b->kids[1]->dtype != (nd ? b->kids[2]->dtype : psg_tir_dtype_int32())) return false;
  for (size_t i = 0; i < nd; i++) {
    const psg_tir_node *d = b->kids[2 + i];
    if (d->kind != PSG_TIR_INT_IMM && !(psgi_tir_is_var_kind(d->kind) && obj_name(p, d))) return false;
  }
  return true;
}

/* Vars in a buffer's fields that nothing defines: `n = T.int32()`. */
static void define_implicit_vars(printer *p, const psg_tir_node *b, int ind) {
  PSGI_VEC(const psg_tir_node *) st = {0};
  for (uint32_t i = 1; i < b->nkids; i++)
    if (!PSGI_VEC_PUSH(p->ctx, &st, b->kids[i])) nomem(p);
  /* reverse so that the first field is visited first */
  for (size_t i = 0, j = st.len; i + 1 < j; i++, j--) {
    const psg_tir_node *t = st.data[i];
    st.data[i] = st.data[j - 1];
    st.data[j - 1] = t;
  }
  while (st.len && !p->st) {
    const psg_tir_node *x = st.data[--st.len];
    if (psgi_tir_is_var_kind(x->kind) && !obj_name(p, x)) {
      indent(p, ind);
      put(p, define(p, x, x->u.var.name));
      put(p, " = T.");
      put_dtype(p, x->dtype);
      put(p, x->kind == PSG_TIR_SIZE_VAR ? "(is_size_var=True)\n" : "()\n");
    }
    for (uint32_t i = x->nkids; i-- > 0;)
      if (psgi_tir_is_expr_kind(x->kids[i]->kind) && !PSGI_VEC_PUSH(p->ctx, &st, x->kids[i])) nomem(p);
  }
  PSGI_VEC_FREE(p->ctx, &st);
}

static void print_func(printer *p, const psg_tir_node *f, const char *name, int ind) {
  reset_names(p);
  psg_attrs *attrs = f->u.func.attrs;
  psg_attr *gs = psg_attrs_get(attrs, "global_symbol");
  const char *gsym = gs && psg_attr_kind(gs) == PSG_ATTR_STRING ? psg_attr_get_string(gs) : NULL;
  indent(p, ind);
  put(p, gsym ? "@T.prim_func\n" : "@T.prim_func(private=True)\n");
  indent(p, ind);
  put(p, "def ");
  put(p, name);
  put(p, "(");
  uint32_t np = f->u.func.nparams, nm = f->u.func.nmap;
  PSGI_VEC(const psg_tir_node *) matched = {0};
  for (uint32_t i = 0; i < np; i++) {
    const psg_tir_node *v = f->kids[1 + i];
    const psg_tir_node *b = NULL;
    for (uint32_t j = 0; j < nm; j++)
      if (f->u.func.map_params[j] == i) b = f->kids[1 + np + j];
    if (i) put(p, ", ");
    if (b && simple_param_buffer(p, b)) {
      put(p, define_buffer(p, b));
      put(p, ": T.Buffer(");
      print_buffer_args(p, b, true, false);
      put(p, ")");
      continue;
    }
    put(p, define(p, v, v->u.var.name));
    put(p, ": ");
    if (b) {
      put(p, "T.handle");
      if (PSGI_VEC_RESERVE(p->ctx, &matched, matched.len + 2)) {
        matched.data[matched.len++] = v;
        matched.data[matched.len++] = b;
      } else {
        nomem(p);
      }
    } else {
      print_type_annotation(p, v);
    }
  }
  put(p, ")");
  const psg_tir_node *rt = f->u.func.ret_type;
  if (rt && rt->kind == PSG_TIR_PRIM_TYPE) {
    put(p, " -> T.");
    put_dtype(p, rt->dtype);
  }
  put(p, ":\n");
  ind++;
  bool other_attrs = false;
  for (size_t i = 0; i < psg_attrs_count(attrs); i++)
    if (strcmp(psg_attrs_key(attrs, i), "global_symbol") || !gsym || strcmp(gsym, name)) other_attrs = true;
  if (other_attrs) {
    indent(p, ind);
    put(p, "T.func_attr(");
    print_attrs_dict(p, attrs, "global_symbol", name, 0);
    put(p, ")\n");
  }
  if (p->st) matched.len = 0;
  for (size_t i = 0; i < matched.len; i += 2) define_implicit_vars(p, matched.data[i + 1], ind);
  for (size_t i = 0; i < matched.len; i += 2) {
    const psg_tir_node *b = matched.data[i + 1];
    indent(p, ind);
    put(p, define_buffer(p, b));
    put(p, " = T.match_buffer(");
    put(p, use_name(p, matched.data[i]));
    put(p, ", ");
    print_buffer_args(p, b, false, false);
    put(p, ")\n");
  }
  PSGI_VEC_FREE(p->ctx, &matched);
  prepass_run(p, f);
  enter_scope(p, ind);
  print_body(p, f->kids[0], ind);
}

static void printer_init(printer *p, psg_ctx *ctx, psgi_buf *b) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  p->b = b;
  psgi_map_init(&p->names, ctx);
  psgi_map_init(&p->objname, ctx);
}

static void printer_fini(printer *p) {
  psgi_map_fini(&p->names);
  psgi_map_fini(&p->objname);
  PSGI_VEC_FREE(p->ctx, &p->undo);
  PSGI_VEC_FREE(p->ctx, &p->et);
  PSGI_VEC_FREE(p->ctx, &p->stk);
  PSGI_VEC_FREE(p->ctx, &p->scope_parent);
  PSGI_VEC_FREE(p->ctx, &p->scope_depth);
  PSGI_VEC_FREE(p->ctx, &p->alias_head);
  PSGI_VEC_FREE(p->ctx, &p->alias_buf);
  PSGI_VEC_FREE(p->ctx, &p->alias_next);
}

static psg_status finish(printer *p, psgi_buf *b, char **out, size_t *len) {
  psg_status st = p->st;
  if (!st && b->failed) st = psgi_nomem(p->ctx);
  printer_fini(p);
  if (!st) {
    *out = psgi_buf_detach_libc(b, len);
    if (!*out) st = psgi_nomem(p->ctx);
  }
  psgi_buf_fini(b);
  return st;
}

static void print_funcs(printer *p, psg_tir_prim_func *const *funcs, const char *const *names, size_t n,
                        bool module, int flags) {
  if (!(flags & PSG_TIR_SCRIPT_NO_HEADER)) {
    if (module) put(p, "# from tvm.script import ir as I\n");
    put(p, "# from tvm.script import tir as T\n\n");
  }
  if (module) put(p, "@I.ir_module\nclass Module:\n");
  for (size_t i = 0; i < n && !p->st; i++) {
    if (i) put(p, "\n");
    print_func(p, funcs[i], names[i], module ? 1 : 0);
  }
}

psg_status psg_tir_script_print(const psg_tir_script *s, int flags, char **out, size_t *len) {
  *out = NULL;
  if (len) *len = 0;
  psgi_buf b;
  psgi_buf_init(&b, s->ctx);
  printer p;
  printer_init(&p, s->ctx, &b);
  print_funcs(&p, s->funcs.data, s->names.data, s->funcs.len, s->is_module, flags);
  return finish(&p, &b, out, len);
}

psg_status psg_tir_script_print_func(const psg_tir_prim_func *f, const char *name, int flags, char **out,
                                     size_t *len) {
  *out = NULL;
  if (len) *len = 0;
  psg_ctx *ctx = f->ctx;
  if (f->kind != PSG_TIR_PRIM_FUNC)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_tir_script_print_func: not a PrimFunc");
  if (!name) {
    psg_attr *gs = psg_attrs_get(f->u.func.attrs, "global_symbol");
    name = gs && psg_attr_kind(gs) == PSG_ATTR_STRING ? psg_attr_get_string(gs) : "main";
  }
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  printer p;
  printer_init(&p, ctx, &b);
  psg_tir_prim_func *fn = (psg_tir_prim_func *)f;
  print_funcs(&p, &fn, &name, 1, false, flags);
  return finish(&p, &b, out, len);
}
