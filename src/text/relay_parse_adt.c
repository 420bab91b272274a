/* Passage — Relay text parser: algebraic data types and references, TVM's
 * syntax: `type List[A] { Cons(A, List[A]), Nil }` (and `extern type T[A]`),
 * ADT types `List[A]`, constructors as expressions (a nullary one stands for
 * its call), `match (e) { pattern => e, ... }` / `match?`, and `ref(e)`,
 * `ref_read(r)`, `ref_write(r, v)`. Patterns nest, so they recurse, capped at
 * MAX_DEPTH like the rest of the parser. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "text/relay_parse_internal.h"

/* The GlobalTypeVar named by `t`: one per name and parse (TVM's AddOrGet). */
static psg_status type_name(parser *ps, const token *t, const psg_type **out) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_str(&ps->type_names, t->text, t->len, &is_new);
  if (!e) return psgi_nomem(ps->ctx);
  if (is_new) {
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)t->len, t->text);
    const psg_type *g = NULL;
    psg_status st = psg_type_global_var(ps->ctx, name, PSG_TYPE_KIND_ADT_HANDLE, &g);
    e->value = (void *)g;
    if (st) return st;
  }
  *out = e->value;
  return PSG_OK;
}

/* Whether `text` holds the word `type` (not inside a longer identifier such
 * as `dtype`): a declaration needs one, and most texts have none, so the
 * lexing pass below is skipped for them (it was half the cost of parsing a
 * single function, which the pass cache does once per hit). */
static bool has_type_word(const char *text, size_t len) {
  for (const char *p = text, *end = text + len; (p = memmem(p, (size_t)(end - p), "type", 4)) != NULL; p += 4) {
    bool word_before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool word_after = p + 4 < end && (isalnum((unsigned char)p[4]) || p[4] == '_');
    if (!word_before && !word_after) return true;
  }
  return false;
}

psg_status psgi_rp_scan_type_names(parser *ps, const char *text, size_t len) {
  if (!has_type_word(text, len)) return PSG_OK;
  lexer lx;
  lexer_init(&lx, text, len);
  token prev = lexer_next(&lx);
  while (prev.kind != TOK_EOF && prev.kind != TOK_ERROR) {
    token t = lexer_next(&lx);
    if (prev.kind == TOK_IDENT && tok_is(&prev, "type") && t.kind == TOK_IDENT &&
        !psgi_map_put_str(&ps->declared_types, t.text, t.len, NULL))
      return psgi_nomem(ps->ctx);
    prev = t;
  }
  return PSG_OK;
}

bool psgi_rp_is_type_name(const parser *ps, const token *t) {
  return t->kind == TOK_IDENT && psgi_map_get_str(&ps->declared_types, t->text, t->len) != NULL;
}

psg_status psgi_rp_parse_adt_type(parser *ps, const psg_type **out) {
  token t = ps->tok;
  const psg_type *head = NULL;
  psg_status st = type_name(ps, &t, &head);
  if (st) return st;
  psgi_rp_advance(ps);
  const psg_type *args[64];
  int n = 0;
  if (tok_is(&ps->tok, "[")) {
    psgi_rp_advance(ps);
    while (!st && !tok_is(&ps->tok, "]")) {
      if (n == 64) return psgi_rp_error_at(ps, &ps->tok, "too many type arguments (limit 64)");
      if ((st = psgi_rp_parse_type(ps, &args[n])) != PSG_OK) break;
      n++;
      if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
      else if (!tok_is(&ps->tok, "]")) st = psgi_rp_expect(ps, "]", "to close the type arguments") ? PSG_OK : PSG_ERR_PARSE;
    }
    if (!st) psgi_rp_advance(ps);
  }
  /* TVM makes even a bare ADT name a TypeCall (of no arguments). */
  if (!st) st = psg_type_call(ps->ctx, head, args, n, out);
  return st;
}

/* Type definitions ------------------------------------------------------------- */

static psg_status parse_ctor(parser *ps, const psg_type *header, expr_vec *ctors) {
  token name = ps->tok;
  if (name.kind != TOK_IDENT) {
    char buf[80];
    return psgi_rp_error_at(ps, &name, "expected a constructor name, found %s", psgi_rp_tok_desc(&name, buf, sizeof buf));
  }
  psgi_rp_advance(ps);
  const psg_type *inputs[64];
  int n = 0;
  psg_status st = PSG_OK;
  if (tok_is(&ps->tok, "(")) {
    psgi_rp_advance(ps);
    while (!st && !tok_is(&ps->tok, ")")) {
      if (n == 64) return psgi_rp_error_at(ps, &ps->tok, "too many constructor fields (limit 64)");
      if ((st = psgi_rp_parse_type(ps, &inputs[n])) != PSG_OK) return st;
      n++;
      if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
      else if (!tok_is(&ps->tok, ")")) return psgi_rp_expect(ps, ")", "to close the constructor fields") ? PSG_OK : PSG_ERR_PARSE;
    }
    psgi_rp_advance(ps);
  }
  bool is_new;
  psgi_map_entry *e = psgi_map_put_str(&ps->ctors, name.text, name.len, &is_new);
  if (!e) return psgi_nomem(ps->ctx);
  if (!is_new)
    return psgi_rp_error_at(ps, &name, "a constructor with the name `%.*s` was previously defined", (int)name.len,
                            name.text);
  char nbuf[256];
  snprintf(nbuf, sizeof nbuf, "%.*s", (int)name.len, name.text);
  psg_span sp = psgi_rp_span_of(ps, &name);
  psg_expr *c;
  if ((st = psg_constructor_create(ps->ctx, nbuf, inputs, n, header, &sp, &c)) != PSG_OK) return st;
  e->value = c; /* the map's reference */
  psg_expr_retain(c);
  if (!PSGI_VEC_PUSH(ps->ctx, ctors, c)) {
    psg_expr_release(c);
    return psgi_nomem(ps->ctx);
  }
  return PSG_OK;
}

psg_status psgi_rp_parse_type_def(parser *ps) {
  token start = ps->tok;
  bool is_extern = tok_is(&start, "extern");
  if (is_extern) psgi_rp_advance(ps);
  if (!psgi_rp_expect(ps, "type", "to start a type definition")) return PSG_ERR_PARSE;
  token name = ps->tok;
  if (name.kind != TOK_IDENT) {
    char buf[80];
    return psgi_rp_error_at(ps, &name, "expected a type name, found %s", psgi_rp_tok_desc(&name, buf, sizeof buf));
  }
  for (size_t i = 0; i < ps->type_defs.len; i++) {
    const char *h = psg_type_var_name(psg_type_data_header(ps->type_defs.data[i]));
    if (strlen(h) == name.len && !memcmp(h, name.text, name.len))
      return psgi_rp_error_at(ps, &name, "type %.*s is defined twice", (int)name.len, name.text);
  }
  const psg_type *header = NULL;
  psg_status st = type_name(ps, &name, &header);
  if (st) return st;
  psgi_rp_advance(ps);
  size_t tymark = ps->tyscope.len;
  const psg_type *tvars[64];
  int ntv = 0;
  if (tok_is(&ps->tok, "[")) st = psgi_rp_parse_type_params(ps, tvars, &ntv);
  expr_vec ctors = {0};
  if (!st && tok_is(&ps->tok, "{")) {
    psgi_rp_advance(ps);
    while (!st && !tok_is(&ps->tok, "}")) {
      if ((st = parse_ctor(ps, header, &ctors)) != PSG_OK) break;
      if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
      else if (!tok_is(&ps->tok, "}")) st = psgi_rp_expect(ps, "}", "to close the type definition") ? PSG_OK : PSG_ERR_PARSE;
    }
    if (!st) psgi_rp_advance(ps);
  } else if (!st && !is_extern) {
    st = psgi_rp_expect(ps, "{", "to start the constructors") ? PSG_OK : PSG_ERR_PARSE;
  }
  ps->tyscope.len = tymark;
  if (!st && is_extern && ctors.len) st = psgi_rp_error_at(ps, &start, "an external type may not have any constructors");
  psg_type_data *td = NULL;
  if (!st) st = psg_type_data_create(ps->ctx, header, tvars, ntv, ctors.data, (int)ctors.len, &td);
  if (!st && !PSGI_VEC_PUSH(ps->ctx, &ps->type_defs, td)) {
    psg_type_data_release(td);
    st = psgi_nomem(ps->ctx);
  }
  for (size_t i = 0; i < ctors.len; i++) psg_expr_release(ctors.data[i]);
  PSGI_VEC_FREE(ps->ctx, &ctors);
  return st;
}

psg_status psgi_rp_add_init_type_defs(parser *ps, const psg_module *init) {
  for (size_t i = 0; init && i < psg_module_num_type_defs(init); i++) {
    psg_type_data *td = psg_module_get_type_def(init, i);
    const char *h = psg_type_var_name(psg_type_data_header(td));
    psgi_map_entry *e = psgi_map_put_str(&ps->type_names, h, strlen(h), NULL);
    if (!e || !psgi_map_put_str(&ps->declared_types, h, strlen(h), NULL) || !PSGI_VEC_PUSH(ps->ctx, &ps->type_defs, td))
      return psgi_nomem(ps->ctx);
    e->value = (void *)psg_type_data_header(td);
    psg_type_data_retain(td);
    for (int c = 0; c < psg_type_data_num_constructors(td); c++) {
      psg_expr *k = psg_type_data_constructor(td, c);
      const char *cn = psg_constructor_name(k);
      bool is_new;
      psgi_map_entry *ce = psgi_map_put_str(&ps->ctors, cn, strlen(cn), &is_new);
      if (!ce) return psgi_nomem(ps->ctx);
      if (is_new) {
        ce->value = k;
        psg_expr_retain(k);
      }
    }
  }
  return PSG_OK;
}

/* Expressions ------------------------------------------------------------------- */

psg_expr *psgi_rp_lookup_ctor(const parser *ps, const token *t) {
  if (t->kind != TOK_IDENT) return NULL;
  psgi_map_entry *e = psgi_map_get_str(&ps->ctors, t->text, t->len);
  return e ? e->value : NULL;
}

/* ref(e) | ref_read(e) | ref_write(e, e) at ps->tok. */
psg_status psgi_rp_parse_ref(parser *ps, psg_expr **out) {
  token t = ps->tok;
  int kind = tok_is(&t, "ref") ? PSG_EXPR_REF_CREATE : tok_is(&t, "ref_read") ? PSG_EXPR_REF_READ : PSG_EXPR_REF_WRITE;
  psgi_rp_advance(ps);
  psgi_rp_advance(ps); /* ( */
  psg_expr *a = NULL, *b = NULL;
  psg_status st = psgi_rp_parse_expr(ps, &a);
  if (!st && kind == PSG_EXPR_REF_WRITE) {
    st = psgi_rp_expect(ps, ",", "between ref_write's reference and value") ? PSG_OK : PSG_ERR_PARSE;
    if (!st) st = psgi_rp_parse_expr(ps, &b);
  }
  if (!st && !psgi_rp_expect(ps, ")", "to close the reference expression")) st = PSG_ERR_PARSE;
  psg_span sp = psgi_rp_span_of(ps, &t);
  if (!st)
    st = kind == PSG_EXPR_REF_CREATE ? psg_ref_create(ps->ctx, a, &sp, out)
         : kind == PSG_EXPR_REF_READ ? psg_ref_read(ps->ctx, a, &sp, out)
                                     : psg_ref_write(ps->ctx, a, b, &sp, out);
  psg_expr_release(a);
  psg_expr_release(b);
  return st;
}

/* Patterns: _ | %x[: T] | Ctor[(p, ...)] | (p, ...). Variables are defined
 * in the clause's scope (mark). */
static psg_status parse_pattern(parser *ps, size_t mark, psg_pattern **out);

typedef PSGI_VEC(psg_pattern *) pattern_vec;

static psg_status parse_pattern_list(parser *ps, size_t mark, pattern_vec *items) {
  psgi_rp_advance(ps); /* ( */
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, ")")) {
    psg_pattern *p = NULL;
    if ((st = parse_pattern(ps, mark, &p)) != PSG_OK) break;
    if (!PSGI_VEC_PUSH(ps->ctx, items, p)) {
      psg_pattern_release(p);
      return psgi_nomem(ps->ctx);
    }
    if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!tok_is(&ps->tok, ")")) st = psgi_rp_expect(ps, ")", "to close the patterns") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st) psgi_rp_advance(ps);
  return st;
}

static psg_status parse_pattern(parser *ps, size_t mark, psg_pattern **out) {
  *out = NULL;
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return psgi_rp_error_at(ps, &ps->tok, "pattern nested too deeply (limit %d)", MAX_DEPTH);
  }
  token t = ps->tok;
  psg_status st = PSG_OK;
  pattern_vec items = {0};
  if (tok_is(&t, "_")) {
    psgi_rp_advance(ps);
    st = psg_pattern_wildcard(ps->ctx, out);
  } else if (t.kind == TOK_LOCAL) {
    psgi_rp_advance(ps);
    const psg_type *ty = NULL;
    if (tok_is(&ps->tok, ":")) {
      psgi_rp_advance(ps);
      st = psgi_rp_parse_annotation(ps, &ty);
    }
    char nbuf[256];
    snprintf(nbuf, sizeof nbuf, "%.*s", (int)t.len, t.text);
    psg_span sp = psgi_rp_span_of(ps, &t);
    psg_expr *v = NULL;
    if (!st) st = psg_var_create(ps->ctx, nbuf, ty, &sp, &v);
    if (!st && !psgi_rp_define(ps, &t, v, mark, false)) st = PSG_ERR_PARSE;
    if (!st) st = psg_pattern_var(ps->ctx, v, out);
    psg_expr_release(v);
  } else if (t.kind == TOK_IDENT) {
    psg_expr *c = psgi_rp_lookup_ctor(ps, &t);
    if (!c) {
      st = psgi_rp_error_at(ps, &t, "undefined constructor name `%.*s`, perhaps you intended to write a pattern variable, "
                                    "considering changing this to `%%%.*s`",
                            (int)t.len, t.text, (int)t.len, t.text);
    } else {
      psgi_rp_advance(ps);
      if (tok_is(&ps->tok, "(")) st = parse_pattern_list(ps, mark, &items);
      if (!st && items.len != (size_t)psg_constructor_num_inputs(c))
        st = psgi_rp_error_at(ps, &t, "constructor %.*s takes %d fields, the pattern has %zu", (int)t.len, t.text,
                              psg_constructor_num_inputs(c), items.len);
      if (!st) st = psg_pattern_constructor(ps->ctx, c, items.data, (int)items.len, out);
    }
  } else if (tok_is(&t, "(")) {
    st = parse_pattern_list(ps, mark, &items);
    if (!st) st = psg_pattern_tuple(ps->ctx, items.data, (int)items.len, out);
  } else {
    char buf[80];
    st = psgi_rp_error_at(ps, &t, "expected a pattern, found %s", psgi_rp_tok_desc(&t, buf, sizeof buf));
  }
  for (size_t i = 0; i < items.len; i++) psg_pattern_release(items.data[i]);
  PSGI_VEC_FREE(ps->ctx, &items);
  ps->depth--;
  return st;
}

/* match[?] (e) { pattern => e, ... } at ps->tok ("match"). */
psg_status psgi_rp_parse_match(parser *ps, psg_expr **out) {
  *out = NULL;
  token t = ps->tok;
  psgi_rp_advance(ps);
  bool complete = true;
  if (tok_is(&ps->tok, "?")) {
    complete = false;
    psgi_rp_advance(ps);
  }
  psg_expr *data = NULL;
  /* The matched value is parenthesized, and may be a tuple: (%a, %b). */
  psg_status st = tok_is(&ps->tok, "(") ? psgi_rp_parse_expr(ps, &data) : PSG_OK;
  if (!data && !st) st = psgi_rp_expect(ps, "(", "after match") ? PSG_OK : PSG_ERR_PARSE;
  if (!st && !psgi_rp_expect(ps, "{", "to start the match clauses")) st = PSG_ERR_PARSE;
  pattern_vec pats = {0};
  expr_vec rhs = {0};
  while (!st && !tok_is(&ps->tok, "}")) {
    size_t mark = psgi_rp_scope_mark(ps);
    psg_pattern *p = NULL;
    psg_expr *r = NULL;
    st = parse_pattern(ps, mark, &p);
    if (!st && !psgi_rp_expect(ps, "=>", "after a match pattern")) st = PSG_ERR_PARSE;
    if (!st) st = psgi_rp_parse_expr(ps, &r);
    psgi_rp_scope_restore(ps, mark);
    if (!st && (!PSGI_VEC_PUSH(ps->ctx, &pats, p) || !PSGI_VEC_PUSH(ps->ctx, &rhs, r))) st = psgi_nomem(ps->ctx);
    if (st) {
      psg_pattern_release(p);
      psg_expr_release(r);
      break;
    }
    if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!tok_is(&ps->tok, "}")) st = psgi_rp_expect(ps, "}", "to close the match") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st) psgi_rp_advance(ps);
  psg_span sp = psgi_rp_span_of(ps, &t);
  if (!st) st = psg_match_create(ps->ctx, data, pats.data, rhs.data, pats.len, complete, &sp, out);
  psg_expr_release(data);
  for (size_t i = 0; i < pats.len; i++) {
    psg_pattern_release(pats.data[i]);
    psg_expr_release(rhs.data[i]);
  }
  PSGI_VEC_FREE(ps->ctx, &pats);
  PSGI_VEC_FREE(ps->ctx, &rhs);
  return st;
}
