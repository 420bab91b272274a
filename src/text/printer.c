/* Passage — printer of TVM's Relay text format (docs/text-format.md).
 * Every non-atomic expression that is not the result of its block is bound to
 * a temporary `%N = ...;` (numbered per def), printed once per scope and then
 * referred to by name: the IR is a DAG. The dataflow walk is iterative; only
 * nested blocks (if branches, fn literals) recurse, capped at MAX_NESTING. */
#include <math.h>
#include <stdio.h>
#include "ir/op_table.h"
#include "passage/tvmscript.h"
#include "text/text_internal.h"

enum { MAX_NESTING = 256 };

typedef struct printer {
  psg_ctx *ctx;
  psgi_buf *b;
  psgi_map temps;     /* node -> temp number + 1 (0: not bound in scope) */
  psgi_map uses;      /* node -> how many operand slots hold it (only with lets) */
  psgi_map var_names; /* Var -> printed name (arena) */
  psgi_map used;      /* printed var names in this def -> last _N suffix given */
  psgi_map meta_index; /* tensor -> index + 1 */
  psgi_tensor_vec meta;
  PSGI_VEC(const psg_expr *) bound; /* nodes bound, for scope exit */
  PSGI_VEC(const psg_expr *) stack;
  PSGI_VEC(uint32_t) next;
  psgi_arena arena;
  uint32_t temp;
  int nesting;
  psg_status st;
  bool types; /* PSG_PRINT_CHECKED_TYPES: TVM's "ty=T" comments after typed nodes */
  const psg_expr *watch; /* psgi_print_binding_name: the node whose name is wanted */
  char watch_name[64];
  psgi_map *need;     /* the block being printed: node -> 2 if shared and used by the block's own lines, else 1 */
  size_t need_shared; /* how many of `need` are 2 */
} printer;

static void put(printer *p, const char *s) { psgi_buf_puts(p->b, s); }
static void putn(printer *p, const char *s, size_t n) { psgi_buf_append(p->b, s, n); }

static void put_u64(printer *p, uint64_t v) {
  char tmp[24];
  int i = 24;
  do tmp[--i] = (char)('0' + v % 10);
  while (v /= 10);
  putn(p, tmp + i, (size_t)(24 - i));
}

static void put_i64(printer *p, int64_t v) {
  if (v < 0) {
    psgi_buf_putc(p->b, '-');
    put_u64(p, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(p, (uint64_t)v);
  }
}

static void indent(printer *p, int n) {
  for (int i = 0; i < n; i++) putn(p, "  ", 2);
}

/* Types, attributes ---------------------------------------------------------- */

static void print_type(printer *p, const psg_type *t, int depth) {
  if (depth > MAX_NESTING) {
    p->st = psg_ctx_fail(p->ctx, PSG_ERR_UNSUPPORTED, "type nested too deeply to print");
    return;
  }
  switch (t->kind) {
  case PSG_TYPE_TENSOR:
    if (t->n == 0) {
      put(p, psg_dtype_name(t->dtype));
      return;
    }
    put(p, "Tensor[(");
    for (int i = 0; i < t->n; i++) {
      if (i) put(p, ", ");
      if (t->dims[i] < 0) psgi_buf_putc(p->b, '?');
      else put_i64(p, t->dims[i]);
    }
    put(p, "), ");
    put(p, psg_dtype_name(t->dtype));
    psgi_buf_putc(p->b, ']');
    return;
  case PSG_TYPE_TUPLE:
    psgi_buf_putc(p->b, '(');
    for (int i = 0; i < t->n; i++) {
      if (i) put(p, ", ");
      print_type(p, t->fields[i], depth + 1);
    }
    put(p, t->n == 1 ? ",)" : ")");
    return;
  case PSG_TYPE_FUNC:
    put(p, "fn ");
    if (t->ntparams) { /* TVM: fn [A, B](A) -> B */
      psgi_buf_putc(p->b, '[');
      for (int i = 0; i < t->ntparams; i++) {
        if (i) put(p, ", ");
        print_type(p, t->tparams[i], depth + 1);
      }
      psgi_buf_putc(p->b, ']');
    }
    psgi_buf_putc(p->b, '(');
    for (int i = 0; i < t->n; i++) {
      if (i) put(p, ", ");
      print_type(p, t->fields[i], depth + 1);
    }
    put(p, ") -> ");
    print_type(p, t->ret, depth + 1);
    return;
  case PSG_TYPE_VAR:
  case PSG_TYPE_GLOBAL_VAR: put(p, t->name); return;
  case PSG_TYPE_INCOMPLETE: psgi_buf_putc(p->b, '_'); return; /* TVM prints it as metadata */
  case PSG_TYPE_CALL: /* List[A], as TVM */
    print_type(p, t->ret, depth + 1);
    psgi_buf_putc(p->b, '[');
    for (int i = 0; i < t->n; i++) {
      if (i) put(p, ", ");
      print_type(p, t->fields[i], depth + 1);
    }
    psgi_buf_putc(p->b, ']');
    return;
  case PSG_TYPE_REF:
    put(p, "ref(");
    print_type(p, t->ret, depth + 1);
    psgi_buf_putc(p->b, ')');
    return;
  }
}

/* TVM's optional info, a comment "ty=T" after a Var's declaration, a constant,
 * a call, a tuple, a projection or a fn literal whose type is checked. */
static void print_type_info(printer *p, const psg_expr *e) {
  if (!p->types || !e->checked_type) return;
  put(p, " /* ty=");
  print_type(p, e->checked_type, 0);
  put(p, " */");
}

static void print_string(printer *p, const char *s, size_t n) {
  psgi_buf_putc(p->b, '"');
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '"' || c == '\\') {
      psgi_buf_putc(p->b, '\\');
      psgi_buf_putc(p->b, c);
    } else if (c == '\n') {
      put(p, "\\n");
    } else if (c == '\t') {
      put(p, "\\t");
    } else if ((unsigned char)c < 0x20 || c == 0x7f) {
      /* Other control bytes (NUL included) as \xHH: the text stays one
       * line per statement and a C string. */
      static const char hex[] = "0123456789abcdef";
      char esc[4] = {'\\', 'x', hex[(unsigned char)c >> 4], hex[c & 15]};
      putn(p, esc, 4);
    } else {
      psgi_buf_putc(p->b, c);
    }
  }
  psgi_buf_putc(p->b, '"');
}

static void print_attrs_body(printer *p, const psg_attrs *a, int depth);

static void print_attr(printer *p, const psg_attr *v, int depth) {
  if (depth > MAX_NESTING) {
    p->st = psg_ctx_fail(p->ctx, PSG_ERR_UNSUPPORTED, "attribute nested too deeply to print");
    return;
  }
  switch (v->kind) {
  case PSG_ATTR_NONE: put(p, "None"); return;
  case PSG_ATTR_INT: put_i64(p, v->u.i); return;
  case PSG_ATTR_FLOAT:
    if (isinf(v->u.f)) { /* TVM's `inff` (its printer writes the double, then 'f') */
      if (v->u.f < 0) psgi_buf_putc(p->b, '-');
      put(p, "inf");
    } else if (!psgi_format_real(p->b, v->u.f, false)) {
      /* NaN has no literal: print as a string is wrong, so refuse rather
       * than write text that reads back differently. */
      p->st = psg_ctx_fail(p->ctx, PSG_ERR_UNSUPPORTED, "cannot print a NaN float attribute");
      return;
    }
    psgi_buf_putc(p->b, 'f');
    return;
  case PSG_ATTR_BOOL: put(p, v->u.b ? "True" : "False"); return;
  case PSG_ATTR_DTYPE: print_string(p, psg_dtype_name(v->u.dtype), strlen(psg_dtype_name(v->u.dtype))); return;
  case PSG_ATTR_STRING: print_string(p, v->u.str.s, v->u.str.len); return;
  case PSG_ATTR_GLOBAL_VAR:
    psgi_buf_putc(p->b, '@');
    put(p, v->u.str.s);
    return;
  case PSG_ATTR_LIST:
    psgi_buf_putc(p->b, '[');
    for (size_t i = 0; i < v->u.list.n; i++) {
      if (i) put(p, ", ");
      print_attr(p, v->u.list.items[i], depth + 1);
    }
    psgi_buf_putc(p->b, ']');
    return;
  case PSG_ATTR_DICT:
    psgi_buf_putc(p->b, '{');
    print_attrs_body(p, v->u.dict, depth + 1);
    psgi_buf_putc(p->b, '}');
    return;
  }
}

/* Names that are not identifiers (or would read as a keyword value) are
 * printed as strings. */
static void print_key(printer *p, const char *k) {
  bool ident = (k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_';
  for (const char *c = k; ident && *c; c++)
    ident = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '.';
  if (ident) put(p, k);
  else print_string(p, k, strlen(k));
}

static void print_attrs_body(printer *p, const psg_attrs *a, int depth) {
  for (size_t i = 0; a && i < a->n; i++) {
    if (i) put(p, ", ");
    print_key(p, a->e[i].key);
    psgi_buf_putc(p->b, '=');
    print_attr(p, a->e[i].value, depth);
  }
}

/* Names -------------------------------------------------------------------------- */

/* A Var's printed name: its name hint made a valid identifier and unique in
 * the def (another variable with the same hint gets a _N suffix). */
static const char *var_name(printer *p, const psg_expr *v) {
  psgi_map_entry *e = psgi_map_get_ptr(&p->var_names, v);
  if (e) return e->value;
  const char *hint = v->u.var.name;
  size_t n = strlen(hint);
  char *base = psgi_arena_alloc(&p->arena, n + 24);
  if (!base) return "v";
  size_t k = 0;
  bool digits_only = true;
  for (size_t i = 0; i < n && k < n + 1; i++) {
    char c = hint[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              (c == '/' && i > 0 && i + 1 < n && hint[i + 1] != '/' && hint[i + 1] != '*'); /* as the lexer reads it */
    base[k++] = ok ? c : '_';
    digits_only &= c >= '0' && c <= '9';
  }
  if (k == 0 || digits_only) {
    memmove(base + 1, base, k);
    base[0] = 'v';
    k++;
  }
  base[k] = 0;
  char *name = base;
  psgi_map_entry *taken = psgi_map_get_str(&p->used, base, k);
  if (taken) {
    /* The smallest free suffix: a name's entry remembers the last suffix
     * given to it, and every smaller one is taken (names are never freed
     * within a def), so the search starts there; from 1 each time it was
     * quadratic in the number of same-named vars (every Primitive
     * function's %p0). */
    uintptr_t suffix = (uintptr_t)taken->value;
    name = psgi_arena_alloc(&p->arena, k + 24);
    if (!name) return "v";
    do snprintf(name, k + 24, "%s_%lu", base, (unsigned long)++suffix);
    while (psgi_map_get_str(&p->used, name, strlen(name)));
    taken->value = (void *)suffix;
  }
  psgi_map_entry *u = psgi_map_put_str(&p->used, name, strlen(name), NULL);
  psgi_map_entry *ve = psgi_map_put_ptr(&p->var_names, v, NULL);
  /* Set even when `used` failed: an entry left NULL would be read back as
   * the name by the next use of v (found by tests/unit/test_reduce.c's
   * out-of-memory sweep). */
  if (ve) ve->value = name;
  if (!u || !ve) {
    p->st = PSG_ERR_NOMEM;
    return "v";
  }
  return name;
}

/* Counts, for every node below root, the operand slots that hold it (TVM's
 * dependency graph: a node with one parent prints inline as a let value).
 * Only a graph with scopes has let values: others skip the walk. */
static void count_uses(printer *p, const psg_expr *root) {
  psgi_map_fini(&p->uses);
  psgi_map_init(&p->uses, p->ctx);
  if (!(root->flags & PSGI_EXPR_HAS_SCOPES)) return;
  size_t base = p->stack.len;
  if (!PSGI_VEC_PUSH(p->ctx, &p->stack, root)) {
    p->st = PSG_ERR_NOMEM;
    return;
  }
  while (p->stack.len > base && !p->st) {
    const psg_expr *e = p->stack.data[--p->stack.len];
    for (uint32_t i = 0; i < e->nkids; i++) {
      bool is_new;
      psgi_map_entry *en = psgi_map_put_ptr(&p->uses, e->kids[i], &is_new);
      if (!en) {
        p->st = PSG_ERR_NOMEM;
        break;
      }
      en->value = (void *)((uintptr_t)en->value + 1);
      if (is_new && !PSGI_VEC_PUSH(p->ctx, &p->stack, e->kids[i])) p->st = PSG_ERR_NOMEM;
    }
  }
  p->stack.len = base;
}

static uintptr_t use_count(printer *p, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&p->uses, e);
  return en ? (uintptr_t)en->value : 0;
}

static uint32_t temp_of(printer *p, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&p->temps, e);
  return en ? (uint32_t)(uintptr_t)en->value : 0;
}

static bool is_atom(const psg_expr *e) {
  return e->kind == PSG_EXPR_VAR || e->kind == PSG_EXPR_GLOBAL_VAR || e->kind == PSG_EXPR_OP ||
         e->kind == PSG_EXPR_CONSTANT || e->kind == PSG_EXPR_CONSTRUCTOR;
}

/* If, Match, fn and let print as blocks (print_construct), never inline. */
static bool is_block(const psg_expr *e) {
  return e->kind == PSG_EXPR_IF || e->kind == PSG_EXPR_FUNCTION || e->kind == PSG_EXPR_LET ||
         e->kind == PSG_EXPR_MATCH;
}

/* Scalars print inline when their literal reads back exactly. */
static bool print_scalar(printer *p, const psg_tensor *t) {
  if (t->ndim != 0) return false;
  const void *d = t->data;
  size_t mark = p->b->len;
  switch (t->dtype) {
  case PSG_DTYPE_BOOL: put(p, *(const uint8_t *)d ? "True" : "False"); return true;
  case PSG_DTYPE_FLOAT32: {
    float f;
    memcpy(&f, d, 4);
    if (!psgi_format_real(p->b, f, true)) {
      p->b->len = mark;
      return false;
    }
    put(p, "f");
    return true;
  }
  case PSG_DTYPE_FLOAT64: {
    double v;
    memcpy(&v, d, 8);
    if (!psgi_format_real(p->b, v, false)) return false;
    put(p, "f64");
    return true;
  }
  case PSG_DTYPE_INT8: put_i64(p, *(const int8_t *)d); break;
  case PSG_DTYPE_INT16: put_i64(p, *(const int16_t *)d); break;
  case PSG_DTYPE_INT32: put_i64(p, *(const int32_t *)d); break;
  case PSG_DTYPE_INT64: put_i64(p, *(const int64_t *)d); break;
  case PSG_DTYPE_UINT8: put_u64(p, *(const uint8_t *)d); break;
  case PSG_DTYPE_UINT16: put_u64(p, *(const uint16_t *)d); break;
  case PSG_DTYPE_UINT32: put_u64(p, *(const uint32_t *)d); break;
  case PSG_DTYPE_UINT64: put_u64(p, *(const uint64_t *)d); break;
  case PSG_DTYPE_FLOAT16: {
    /* As TVM: "3f16". The half's value is a float exactly, so the float's
     * shortest text reads back (through the parser's rounding) to it. */
    uint16_t h;
    memcpy(&h, d, 2);
    int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return false; /* NaN and infinities: metadata */
    double v = exp ? ldexp(1024 + man, exp - 25) : ldexp(man, -24);
    if (!psgi_format_real(p->b, (h & 0x8000) ? -v : v, true)) return false;
    put(p, "f16");
    return true;
  }
  default: return false; /* bfloat16: metadata keeps it exact */
  }
  put(p, psgi_scalar_suffix(t->dtype));
  return true;
}

static void print_constant_text(printer *p, const psg_expr *c);

static void print_constant(printer *p, const psg_expr *c) {
  print_constant_text(p, c);
  print_type_info(p, c); /* at every use, as TVM memoizes it with the text */
}

static void print_constant_text(printer *p, const psg_expr *c) {
  const psg_tensor *t = c->u.constant;
  if (print_scalar(p, t)) return;
  psgi_map_entry *en = psgi_map_put_ptr(&p->meta_index, t, NULL);
  if (!en) {
    p->st = PSG_ERR_NOMEM;
    return;
  }
  if (!en->value) {
    if (!PSGI_VEC_PUSH(p->ctx, &p->meta, (psg_tensor *)t)) {
      p->st = PSG_ERR_NOMEM;
      return;
    }
    en->value = (void *)(uintptr_t)p->meta.len;
  }
  put(p, "meta[relay.Constant][");
  put_u64(p, (uintptr_t)en->value - 1);
  psgi_buf_putc(p->b, ']');
}

/* The inline text of e: atoms, bound temps, or calls/tuples/projections over
 * those (their operands are bound or atomic by now). */
static void print_inline(printer *p, const psg_expr *e) {
  uint32_t k = temp_of(p, e);
  if (k) {
    psgi_buf_putc(p->b, '%');
    put_u64(p, k - 1);
    return;
  }
  switch (e->kind) {
  case PSG_EXPR_VAR:
    psgi_buf_putc(p->b, '%');
    put(p, var_name(p, e));
    return;
  case PSG_EXPR_GLOBAL_VAR:
    psgi_buf_putc(p->b, '@');
    put(p, e->u.gvar.name);
    return;
  case PSG_EXPR_OP: put(p, psg_op_name(e)); return;
  case PSG_EXPR_CONSTANT: print_constant(p, e); return;
  case PSG_EXPR_CONSTRUCTOR: put(p, e->u.ctor.name); return;
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE:
    put(p, e->kind == PSG_EXPR_REF_CREATE ? "ref(" : e->kind == PSG_EXPR_REF_READ ? "ref_read(" : "ref_write(");
    for (uint32_t i = 0; i < e->nkids; i++) {
      if (i) put(p, ", ");
      print_inline(p, e->kids[i]);
    }
    psgi_buf_putc(p->b, ')');
    return;
  case PSG_EXPR_CALL: {
    print_inline(p, e->kids[0]);
    /* A nullary constructor's call prints as its name, as TVM. */
    if (e->kids[0]->kind == PSG_EXPR_CONSTRUCTOR && e->kids[0]->u.ctor.inputs->n == 0 && e->nkids == 1) return;
    psgi_buf_putc(p->b, '(');
    for (uint32_t i = 1; i < e->nkids; i++) {
      if (i > 1) put(p, ", ");
      print_inline(p, e->kids[i]);
    }
    if (e->u.attrs && e->u.attrs->n) {
      if (e->nkids > 1) put(p, ", ");
      print_attrs_body(p, e->u.attrs, 0);
    }
    psgi_buf_putc(p->b, ')');
    return;
  }
  case PSG_EXPR_TUPLE:
    psgi_buf_putc(p->b, '(');
    for (uint32_t i = 0; i < e->nkids; i++) {
      if (i) put(p, ", ");
      print_inline(p, e->kids[i]);
    }
    put(p, e->nkids == 1 ? ",)" : ")");
    return;
  case PSG_EXPR_TUPLE_GET_ITEM:
    /* A literal operand is parenthesized: `-5.1` would read back as the
     * float -5.1, not item 1 of -5 (found by fuzz_parser). */
    if (e->kids[0]->kind == PSG_EXPR_CONSTANT) {
      psgi_buf_putc(p->b, '(');
      print_inline(p, e->kids[0]);
      psgi_buf_putc(p->b, ')');
    } else {
      print_inline(p, e->kids[0]);
    }
    psgi_buf_putc(p->b, '.');
    put_i64(p, e->u.index);
    return;
  case PSG_EXPR_LET:
  case PSG_EXPR_IF:
  case PSG_EXPR_FUNCTION:
  case PSG_EXPR_MATCH:
    /* Block constructs are printed by print_construct, never inline. */
    p->st = PSG_ERR_INTERNAL;
    return;
  }
}

/* Blocks -------------------------------------------------------------------------- */

static void print_block(printer *p, const psg_expr *result, int ind);

static void print_params(printer *p, const psg_expr *fn) {
  const psg_type *tp = fn->u.fn.tparams; /* a tuple of TypeVars: "[A, B]" as TVM */
  if (tp && tp->n) {
    psgi_buf_putc(p->b, '[');
    for (int i = 0; i < tp->n; i++) {
      if (i) put(p, ", ");
      print_type(p, tp->fields[i], 0);
    }
    psgi_buf_putc(p->b, ']');
  }
  psgi_buf_putc(p->b, '(');
  for (uint32_t i = 0; i + 1 < fn->nkids; i++) {
    const psg_expr *v = fn->kids[i];
    if (i) put(p, ", ");
    psgi_buf_putc(p->b, '%');
    put(p, var_name(p, v));
    if (v->u.var.type) {
      put(p, ": ");
      print_type(p, v->u.var.type, 0);
    }
    print_type_info(p, v);
  }
  if (fn->u.fn.attrs && fn->u.fn.attrs->n) {
    if (fn->nkids > 1) put(p, ", ");
    print_attrs_body(p, fn->u.fn.attrs, 0);
  }
  psgi_buf_putc(p->b, ')');
  if (fn->u.fn.ret_type) {
    put(p, " -> ");
    print_type(p, fn->u.fn.ret_type, 0);
  }
}

/* A pattern variable as TVM declares it: %x or %x: T. */
static void print_binder(printer *p, const psg_expr *v) {
  psgi_buf_putc(p->b, '%');
  put(p, var_name(p, v));
  if (v->u.var.type) {
    put(p, ": ");
    print_type(p, v->u.var.type, 0);
  }
}

/* Clause c's pattern (flat, pre-order; a pending-close count per level
 * stands in for recursion). */
static void print_pattern(printer *p, const psg_expr *m, uint32_t c) {
  const psgi_match_info *mi = m->u.match;
  uint32_t kv = mi->kid_start[c];
  PSGI_VEC(uint32_t) open = {0}; /* fields still to print at each open level */
  for (uint32_t i = mi->pat_start[c]; i < mi->pat_start[c + 1] && !p->st; i++) {
    const psgi_pat_node *nd = &mi->pats[i];
    if (nd->kind == PSG_PATTERN_WILDCARD) psgi_buf_putc(p->b, '_');
    else if (nd->kind == PSG_PATTERN_VAR) print_binder(p, m->kids[kv++]);
    else {
      if (nd->kind == PSG_PATTERN_CONSTRUCTOR) put(p, nd->ctor->u.ctor.name);
      if (nd->nsub || nd->kind == PSG_PATTERN_TUPLE) { /* a nullary constructor prints bare */
        psgi_buf_putc(p->b, '(');
        if (!PSGI_VEC_PUSH(p->ctx, &open, nd->nsub)) p->st = PSG_ERR_NOMEM;
        if (nd->nsub) continue;
      }
    }
    /* One field done: close every level it completes. */
    while (open.len) {
      uint32_t *left = &open.data[open.len - 1];
      if (*left > 0 && --*left > 0) {
        put(p, ", ");
        break;
      }
      psgi_buf_putc(p->b, ')');
      open.len--;
    }
  }
  PSGI_VEC_FREE(p->ctx, &open);
}

/* match (data) { pattern => { block }, ... } with TVM's `match?` for an
 * incomplete one. */
static void print_match(printer *p, const psg_expr *e, int ind) {
  const psgi_match_info *mi = e->u.match;
  put(p, mi->complete ? "match (" : "match? (");
  print_inline(p, e->kids[0]);
  put(p, ") {");
  for (uint32_t c = 0; c < mi->nclauses && !p->st; c++) {
    psgi_buf_putc(p->b, '\n');
    indent(p, ind + 1);
    print_pattern(p, e, c);
    put(p, " => {\n");
    print_block(p, e->kids[mi->kid_start[c + 1] - 1], ind + 2);
    indent(p, ind + 1);
    put(p, "},");
  }
  psgi_buf_putc(p->b, '\n');
  indent(p, ind);
  psgi_buf_putc(p->b, '}');
}

/* An If, a fn literal or a let-block as text (after "%N = " or as a block's
 * result), or the inline text of anything else. */
static void print_construct(printer *p, const psg_expr *e, int ind) {
  if (temp_of(p, e)) {
    print_inline(p, e);
    return;
  }
  if (!is_block(e)) {
    print_inline(p, e);
    /* A Var's info is at its declaration; a constant's is in its text. */
    if (e->kind == PSG_EXPR_CALL || e->kind == PSG_EXPR_TUPLE || e->kind == PSG_EXPR_TUPLE_GET_ITEM ||
        e->kind >= PSG_EXPR_REF_CREATE)
      print_type_info(p, e);
    return;
  }
  if (++p->nesting > MAX_NESTING) {
    p->st = psg_ctx_fail(p->ctx, PSG_ERR_UNSUPPORTED, "blocks nested too deeply to print (limit %d)", MAX_NESTING);
    return;
  }
  if (e->kind == PSG_EXPR_IF) {
    put(p, "if (");
    print_inline(p, e->kids[0]);
    put(p, ") {\n");
    print_block(p, e->kids[1], ind + 1);
    indent(p, ind);
    put(p, "} else {\n");
    print_block(p, e->kids[2], ind + 1);
    indent(p, ind);
    psgi_buf_putc(p->b, '}');
  } else if (e->kind == PSG_EXPR_MATCH) {
    print_match(p, e, ind);
  } else if (e->kind == PSG_EXPR_FUNCTION) {
    put(p, "fn ");
    print_params(p, e);
    put(p, " {\n");
    print_block(p, psgi_fn_body(e), ind + 1);
    indent(p, ind);
    psgi_buf_putc(p->b, '}');
    print_type_info(p, e);
  } else {
    /* A let chain as a value: in parentheses, as TVM prints it. */
    put(p, "(\n");
    print_block(p, e, ind + 1);
    indent(p, ind);
    psgi_buf_putc(p->b, ')');
  }
  p->nesting--;
}

/* Declares `v` with a line "free_var %v[: T];" if it is a Var no parameter,
 * let or earlier declaration named: a variable free in what is printed. */
static void declare_free(printer *p, const psg_expr *v, int ind) {
  if (v->kind != PSG_EXPR_VAR || psgi_map_get_ptr(&p->var_names, v)) return;
  indent(p, ind);
  put(p, "free_var %");
  put(p, var_name(p, v));
  if (v->u.var.type) {
    put(p, ": ");
    print_type(p, v->u.var.type, 0);
  }
  print_type_info(p, v);
  put(p, ";\n");
}

/* Declares the free variables the line printing `e` uses first: e itself or
 * its inline operands (an If's condition; a fn or let prints its own lines). */
static void declare_free_operands(printer *p, const psg_expr *e, int ind) {
  if (temp_of(p, e)) return;
  if (e->kind == PSG_EXPR_VAR) declare_free(p, e, ind);
  else if (e->kind == PSG_EXPR_IF || e->kind == PSG_EXPR_MATCH) declare_free(p, e->kids[0], ind);
  else if (e->kind == PSG_EXPR_CALL || e->kind == PSG_EXPR_TUPLE || e->kind == PSG_EXPR_TUPLE_GET_ITEM ||
           e->kind >= PSG_EXPR_REF_CREATE)
    for (uint32_t i = 0; i < e->nkids; i++) declare_free(p, e->kids[i], ind);
}

/* The nodes a block's own lines use (its let values and result, not the
 * insides of nested blocks, but an If's or Match's condition), into `need`:
 * 2 for a node with more than one use, so that a nested block reaching it
 * binds it in this block first (hoist_shared). */
static void block_needs(printer *p, const psg_expr *result, psgi_map *need, size_t *shared) {
  PSGI_VEC(const psg_expr *) st = {0};
  for (const psg_expr *r = result;;) {
    const psg_expr *root = r->kind == PSG_EXPR_LET ? r->kids[1] : r;
    if (!PSGI_VEC_PUSH(p->ctx, &st, root)) p->st = PSG_ERR_NOMEM;
    while (st.len && !p->st) {
      const psg_expr *e = st.data[--st.len];
      if (is_atom(e)) continue;
      bool is_new;
      psgi_map_entry *en = psgi_map_put_ptr(need, e, &is_new);
      if (!en) {
        p->st = PSG_ERR_NOMEM;
        break;
      }
      if (!is_new) continue;
      bool twice = use_count(p, e) > 1;
      en->value = (void *)(uintptr_t)(twice ? 2 : 1);
      *shared += twice;
      uint32_t limit = e->kind == PSG_EXPR_IF || e->kind == PSG_EXPR_MATCH ? 1
                       : (e->kind == PSG_EXPR_FUNCTION || e->kind == PSG_EXPR_LET) ? 0
                                                                                    : e->nkids;
      for (uint32_t i = 0; i < limit; i++)
        if (!PSGI_VEC_PUSH(p->ctx, &st, e->kids[i])) p->st = PSG_ERR_NOMEM;
    }
    if (r->kind != PSG_EXPR_LET || p->st) break;
    r = r->kids[2];
  }
  PSGI_VEC_FREE(p->ctx, &st);
}

static void emit_deps(printer *p, const psg_expr *root, int ind);
static void bind_temp(printer *p, const psg_expr *e, int ind);

/* Before the nested block `blk` prints: binds here every node inside it that
 * this block's own lines use too, so that it prints once, in this block
 * (TVM's ToANormalForm puts a node in the scope of all its uses); the
 * nested block then refers to it by name. Without this, the nested block
 * bound it in its own scope and this one again after it, and the text read
 * back two nodes where there was one. */
static void hoist_shared(printer *p, const psg_expr *blk, int ind) {
  if (!p->need || !p->need_shared || !is_block(blk)) return;
  PSGI_VEC(const psg_expr *) st = {0}, found = {0};
  psgi_map seen;
  psgi_map_init(&seen, p->ctx);
  for (uint32_t i = 0; i < blk->nkids; i++)
    if (!PSGI_VEC_PUSH(p->ctx, &st, blk->kids[i])) p->st = PSG_ERR_NOMEM;
  while (st.len && !p->st) {
    const psg_expr *e = st.data[--st.len];
    if (is_atom(e) || temp_of(p, e)) continue;
    bool is_new;
    if (!psgi_map_put_ptr(&seen, e, &is_new)) {
      p->st = PSG_ERR_NOMEM;
      break;
    }
    if (!is_new) continue;
    psgi_map_entry *en = psgi_map_get_ptr(p->need, e);
    if (en && (uintptr_t)en->value == 2 && !PSGI_VEC_PUSH(p->ctx, &found, e)) p->st = PSG_ERR_NOMEM;
    for (uint32_t i = 0; i < e->nkids; i++)
      if (!PSGI_VEC_PUSH(p->ctx, &st, e->kids[i])) p->st = PSG_ERR_NOMEM;
  }
  for (size_t i = 0; i < found.len && !p->st; i++) {
    const psg_expr *n = found.data[i];
    if (temp_of(p, n)) continue;
    emit_deps(p, n, ind);
    if (!p->st && !temp_of(p, n)) bind_temp(p, n, ind);
  }
  psgi_map_fini(&seen);
  PSGI_VEC_FREE(p->ctx, &st);
  PSGI_VEC_FREE(p->ctx, &found);
}

/* Binds every non-atomic, unbound operand reachable from `root` (not root
 * itself) to a temp, children first; an If's branches and a fn's body are
 * their own blocks and are not entered. */
static void emit_deps(printer *p, const psg_expr *root, int ind) {
  size_t base = p->stack.len;
  if (!PSGI_VEC_PUSH(p->ctx, &p->stack, root) || !PSGI_VEC_PUSH(p->ctx, &p->next, 0)) {
    p->st = PSG_ERR_NOMEM;
    return;
  }
  while (p->stack.len > base && !p->st) {
    const psg_expr *e = p->stack.data[p->stack.len - 1];
    uint32_t *next = &p->next.data[p->next.len - 1];
    uint32_t limit = e->kind == PSG_EXPR_IF || e->kind == PSG_EXPR_MATCH ? 1
                     : (e->kind == PSG_EXPR_FUNCTION || e->kind == PSG_EXPR_LET) ? 0
                                                                                  : e->nkids;
    if (e == root && (e->kind == PSG_EXPR_FUNCTION || e->kind == PSG_EXPR_LET)) limit = 0;
    if (*next < limit) {
      /* A call's arguments before its callee, as TVM ("visit args first so
       * they are lifted before the op": a fn literal callee prints next to
       * its call). */
      uint32_t i = (*next)++;
      const psg_expr *k = e->kind == PSG_EXPR_CALL ? e->kids[i + 1 < e->nkids ? i + 1 : 0] : e->kids[i];
      if (is_atom(k) || temp_of(p, k)) continue;
      if (!PSGI_VEC_PUSH(p->ctx, &p->stack, k) || !PSGI_VEC_PUSH(p->ctx, &p->next, 0)) p->st = PSG_ERR_NOMEM;
      continue;
    }
    p->stack.len--;
    p->next.len--;
    if (e == root || temp_of(p, e)) continue;
    bind_temp(p, e, ind);
  }
}

/* Prints "%N = e;" (its operands are bound or atomic) and binds e to %N. */
static void bind_temp(printer *p, const psg_expr *e, int ind) {
  hoist_shared(p, e, ind);
  if (p->st || temp_of(p, e)) return;
  uint32_t k = p->temp++;
  if (e == p->watch) snprintf(p->watch_name, sizeof p->watch_name, "%u", k);
  declare_free_operands(p, e, ind);
  indent(p, ind);
  psgi_buf_putc(p->b, '%');
  put_u64(p, k);
  put(p, " = ");
  print_construct(p, e, ind);
  put(p, ";\n");
  psgi_map_entry *en = psgi_map_put_ptr(&p->temps, e, NULL);
  if (!en || !PSGI_VEC_PUSH(p->ctx, &p->bound, e)) {
    p->st = PSG_ERR_NOMEM;
    return;
  }
  en->value = (void *)(uintptr_t)(k + 1);
}

static void print_block(printer *p, const psg_expr *result, int ind) {
  size_t mark = p->bound.len;
  psgi_map need, *outer_need = p->need;
  size_t outer_shared = p->need_shared;
  psgi_map_init(&need, p->ctx);
  p->need_shared = 0;
  if (result->flags & PSGI_EXPR_HAS_SCOPES) block_needs(p, result, &need, &p->need_shared);
  p->need = &need;
  /* A let chain is a loop: one line per binding. */
  while (!p->st && result->kind == PSG_EXPR_LET && !temp_of(p, result)) {
    const psg_expr *var = result->kids[0], *value = result->kids[1];
    emit_deps(p, value, ind);
    /* A value used elsewhere too gets a temp first, so it prints once
     * (TVM's "%0 = (0, 0); let %x = %0; %0"). */
    if (!p->st && !is_atom(value) && !temp_of(p, value) && use_count(p, value) > 1) bind_temp(p, value, ind);
    if (!temp_of(p, value)) hoist_shared(p, value, ind);
    declare_free_operands(p, value, ind);
    indent(p, ind);
    put(p, "let %");
    put(p, var_name(p, var));
    if (value == p->watch && !p->watch_name[0]) snprintf(p->watch_name, sizeof p->watch_name, "%s", var_name(p, var));
    if (var->u.var.type) {
      put(p, ": ");
      print_type(p, var->u.var.type, 0);
    }
    print_type_info(p, var);
    put(p, " = ");
    print_construct(p, value, ind);
    put(p, ";\n");
    result = result->kids[2];
  }
  emit_deps(p, result, ind);
  if (!temp_of(p, result)) hoist_shared(p, result, ind);
  declare_free_operands(p, result, ind);
  indent(p, ind);
  print_construct(p, result, ind);
  psgi_buf_putc(p->b, '\n');
  p->need = outer_need;
  p->need_shared = outer_shared;
  psgi_map_fini(&need);
  /* Temps bound in this block go out of scope. */
  while (p->bound.len > mark) {
    psgi_map_entry *en = psgi_map_get_ptr(&p->temps, p->bound.data[--p->bound.len]);
    if (en) en->value = NULL;
  }
}

static void printer_init(printer *p, psg_ctx *ctx, psgi_buf *b) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  p->b = b;
  psgi_map_init(&p->temps, ctx);
  psgi_map_init(&p->uses, ctx);
  psgi_map_init(&p->var_names, ctx);
  psgi_map_init(&p->used, ctx);
  psgi_map_init(&p->meta_index, ctx);
  psgi_arena_init(&p->arena, ctx);
}

/* Names and temps restart for each def. */
static void printer_reset_def(printer *p) {
  psgi_map_fini(&p->temps);
  psgi_map_fini(&p->var_names);
  psgi_map_fini(&p->used);
  psgi_map_init(&p->temps, p->ctx);
  psgi_map_init(&p->var_names, p->ctx);
  psgi_map_init(&p->used, p->ctx);
  p->temp = 0;
}

static void printer_fini(printer *p) {
  psgi_map_fini(&p->temps);
  psgi_map_fini(&p->uses);
  psgi_map_fini(&p->var_names);
  psgi_map_fini(&p->used);
  psgi_map_fini(&p->meta_index);
  PSGI_VEC_FREE(p->ctx, &p->meta);
  PSGI_VEC_FREE(p->ctx, &p->bound);
  PSGI_VEC_FREE(p->ctx, &p->stack);
  PSGI_VEC_FREE(p->ctx, &p->next);
  psgi_arena_fini(&p->arena);
}

static psg_status finish(printer *p, psgi_buf *b, char **out, size_t *len) {
  psg_status st = p->st;
  if (!st && b->failed) st = PSG_ERR_NOMEM;
  if (st == PSG_ERR_NOMEM) psgi_nomem(p->ctx);
  else if (st == PSG_ERR_INTERNAL) psg_ctx_fail(p->ctx, st, "printer: a block construct reached inline printing");
  if (!st) {
    *out = psgi_buf_detach_libc(b, len);
    if (!*out) st = psgi_nomem(p->ctx);
  }
  psgi_buf_fini(b);
  printer_fini(p);
  return st;
}

/* type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}: TVM's layout (its brace puts
 * an indented empty line in an empty body). */
static void print_type_def(printer *p, const psg_type_data *td) {
  put(p, "type ");
  put(p, td->header->name);
  if (td->ntvars) {
    psgi_buf_putc(p->b, '[');
    for (int i = 0; i < td->ntvars; i++) {
      if (i) put(p, ", ");
      print_type(p, td->tvars[i], 0);
    }
    psgi_buf_putc(p->b, ']');
  }
  put(p, " {\n  ");
  for (int c = 0; c < td->nctors; c++) {
    const psg_expr *k = td->ctors[c];
    if (c) put(p, "\n  ");
    put(p, k->u.ctor.name);
    if (k->u.ctor.inputs->n) {
      psgi_buf_putc(p->b, '(');
      for (int i = 0; i < k->u.ctor.inputs->n; i++) {
        if (i) put(p, ", ");
        print_type(p, k->u.ctor.inputs->fields[i], 0);
      }
      psgi_buf_putc(p->b, ')');
    }
    psgi_buf_putc(p->b, ',');
  }
  put(p, "\n}\n");
}

psg_status psg_module_print(const psg_module *m, int flags, char **out, size_t *len) {
  *out = NULL;
  if (len) *len = 0;
  psgi_buf b;
  psgi_buf_init(&b, m->ctx);
  printer p;
  printer_init(&p, m->ctx, &b);
  p.types = (flags & PSG_PRINT_CHECKED_TYPES) != 0;
  put(&p, "#[version = \"0.0.5\"]\n");
  if (m->attrs && m->attrs->n) {
    put(&p, "#[attrs = {");
    print_attrs_body(&p, m->attrs, 0);
    put(&p, "}]\n");
  }
  for (size_t i = 0; i < m->ntypes; i++) {
    if (i) psgi_buf_putc(&b, '\n');
    print_type_def(&p, m->types[i]);
  }
  for (size_t i = 0; i < m->n && !p.st; i++) {
    const psg_expr *fn = m->entries[i].func;
    printer_reset_def(&p);
    if (i || m->ntypes) psgi_buf_putc(&b, '\n');
    if (m->entries[i].prim) {
      /* A PrimFunc is a TVMScript block (docs/text-format.md, "Relay and TIR in one file"),
       * named by `def NAME`: the name must read back as a Python identifier. */
      const char *name = m->entries[i].gv->u.gvar.name;
      bool ident = (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_';
      for (const char *c = name; ident && *c; c++)
        ident = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
      if (!ident) {
        p.st = psg_ctx_fail(m->ctx, PSG_ERR_UNSUPPORTED,
                            "@%s is a PrimFunc: its TVMScript block needs a name that is a Python identifier", name);
        break;
      }
      char *script = NULL;
      size_t n = 0;
      p.st = psg_tir_script_print_func(m->entries[i].prim, m->entries[i].gv->u.gvar.name, PSG_TIR_SCRIPT_NO_HEADER,
                                       &script, &n);
      if (!p.st) psgi_buf_append(&b, script, n);
      psg_free(script);
      continue;
    }
    put(&p, "def @");
    put(&p, m->entries[i].gv->u.gvar.name);
    if (!fn || fn->kind != PSG_EXPR_FUNCTION) {
      p.st = psg_ctx_fail(m->ctx, PSG_ERR_UNSUPPORTED, "@%s is not a Relay function", m->entries[i].gv->u.gvar.name);
      break;
    }
    count_uses(&p, fn);
    print_params(&p, fn);
    put(&p, " {\n");
    print_block(&p, psgi_fn_body(fn), 1);
    put(&p, "}\n");
  }
  if (!(flags & PSG_PRINT_NO_METADATA) && p.meta.len) {
    psgi_buf_putc(&b, '\n');
    psgi_metadata_print(&b, p.meta.data, p.meta.len);
  }
  return finish(&p, &b, out, len);
}

psg_status psg_expr_print(const psg_expr *e, char **out, size_t *len) {
  *out = NULL;
  if (len) *len = 0;
  psgi_buf b;
  psgi_buf_init(&b, e->ctx);
  printer p;
  printer_init(&p, e->ctx, &b);
  count_uses(&p, e);
  print_block(&p, e, 0);
  return finish(&p, &b, out, len);
}

psg_status psg_expr_print_text(const psg_expr *e, int flags, char **out, size_t *len) {
  *out = NULL;
  if (len) *len = 0;
  psgi_buf b;
  psgi_buf_init(&b, e->ctx);
  printer p;
  printer_init(&p, e->ctx, &b);
  p.types = (flags & PSG_PRINT_CHECKED_TYPES) != 0;
  if (!(flags & PSG_PRINT_NO_HEADER)) put(&p, "#[version = \"0.0.5\"]\n");
  count_uses(&p, e);
  print_block(&p, e, 0);
  if (b.len && b.data[b.len - 1] == '\n') b.len--; /* TVM ends an expression without one */
  if (!(flags & PSG_PRINT_NO_METADATA) && p.meta.len) {
    psgi_buf_putc(&b, '\n');
    psgi_metadata_print(&b, p.meta.data, p.meta.len);
  }
  return finish(&p, &b, out, len);
}

psg_status psgi_expr_print_text_meta(const psg_expr *e, char **out, size_t *len, psg_tensor ***meta, size_t *nmeta) {
  *out = NULL, *meta = NULL, *nmeta = 0;
  if (len) *len = 0;
  psgi_buf b;
  psgi_buf_init(&b, e->ctx);
  printer p;
  printer_init(&p, e->ctx, &b);
  put(&p, "#[version = \"0.0.5\"]\n");
  count_uses(&p, e);
  print_block(&p, e, 0);
  if (b.len && b.data[b.len - 1] == '\n') b.len--;
  size_t n = p.meta.len;
  psg_tensor **list = psgi_alloc(e->ctx, (n ? n : 1) * sizeof *list);
  if (list && n) memcpy(list, p.meta.data, n * sizeof *list);
  psg_status st = finish(&p, &b, out, len);
  if (!st && !list) {
    psg_free(*out);
    *out = NULL;
    st = psgi_nomem(e->ctx);
  }
  if (st) psgi_free(e->ctx, list);
  else *meta = list, *nmeta = n;
  return st;
}

/* Prints `fn` as a def to scratch and returns the name its text gives `node`:
 * a temp ("3" for "%3 = ...") or the let variable it is bound to. */
bool psgi_print_binding_name(psg_ctx *ctx, const psg_expr *fn, const psg_expr *node, char *name, size_t len) {
  if (len) name[0] = 0;
  if (!fn || fn->kind != PSG_EXPR_FUNCTION || !len) return false;
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  printer p;
  printer_init(&p, ctx, &b);
  p.watch = node;
  count_uses(&p, fn);
  print_params(&p, fn);
  print_block(&p, psgi_fn_body(fn), 1);
  bool found = !p.st && p.watch_name[0];
  if (found) snprintf(name, len, "%s", p.watch_name);
  psgi_buf_fini(&b);
  printer_fini(&p);
  return found;
}
