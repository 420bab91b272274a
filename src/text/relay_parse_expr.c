/* Passage — Relay text parser: expressions (primaries, calls, fn, postfix
 * projections, infix operators by precedence). */
#include <stdio.h>
#include "text/relay_parse_internal.h"

/* Expressions ------------------------------------------------------------------ */


psg_status psgi_rp_global_ref(parser *ps, const token *t, psg_expr **out) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_str(&ps->globals, t->text, t->len, &is_new);
  if (!e) return psgi_nomem(ps->ctx);
  if (is_new) {
    char name[256];
    if (t->len >= sizeof name) return psgi_rp_error_at(ps, t, "global name too long");
    memcpy(name, t->text, t->len);
    name[t->len] = 0;
    psg_span sp = psgi_rp_span_of(ps, t);
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
  if (near) return psgi_rp_error_at(ps, t, "unknown operator '%s'; did you mean '%s'?", word, near);
  return psgi_rp_error_at(ps, t, "unknown operator '%s'", word);
}

/* Calls written with the same attribute text (`padding=[0, 0, 0, 0],
 * channels=2` on every conv2d of a model) share one psg_attrs instead of
 * each holding a copy (docs/design.md, departure 242): *attrs, parsed from
 * text [from, from + len), is replaced by the one parsed first from the
 * same text when the two are equal (they differ only if the ops read the
 * text as values of other kinds). Attributes are immutable, so sharing is
 * invisible but for the memory. */
static psg_status share_call_attrs(parser *ps, const char *from, size_t len, psg_attrs **attrs) {
  bool is_new = false;
  psgi_map_entry *e = psgi_map_put_str(&ps->call_attrs, from, len, &is_new);
  if (!e) return psgi_nomem(ps->ctx);
  if (is_new) {
    psg_attrs_retain(*attrs);
    e->value = *attrs;
  } else if (e->value != *attrs && psg_attrs_equal(e->value, *attrs)) {
    psg_attrs_release(*attrs);
    *attrs = e->value;
    psg_attrs_retain(*attrs);
  }
  return PSG_OK;
}

/* (args, attrs) of a call whose callee is parsed; `op` is the op index or -1. */
static psg_status parse_call(parser *ps, psg_expr *callee, ptrdiff_t op, const token *start, psg_expr **out) {
  /* The IR rejects these callees (psg_call_create); say so where the call
   * begins rather than fail later without a position. */
  int ck = psg_expr_kind(callee);
  if (ck == PSG_EXPR_CONSTANT || ck == PSG_EXPR_TUPLE)
    return psgi_rp_error_at(ps, &ps->tok, "a %s cannot be called: a callee is an operator, a function or a variable",
                    ck == PSG_EXPR_CONSTANT ? "constant" : "tuple");
  psgi_rp_advance(ps); /* ( */
  PSGI_VEC(psg_expr *) args = {0};
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  const char *attrs_from = NULL; /* the first attribute's key in the text */
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, ")")) {
    if ((ps->tok.kind == TOK_IDENT || ps->tok.kind == TOK_STRING) && tok_is(&ps->next, "=")) {
      token key = ps->tok;
      if (!attrs_from) attrs_from = key.text;
      int kind = PSGI_ATTR_ANY;
      if (op >= 0) {
        ptrdiff_t ai = psgi_op_attr_index((size_t)op, key.text, key.len);
        if (ai < 0) {
          const psgi_op_info *info = &psgi_op_table[op];
          char list[256] = "";
          for (size_t j = 0; j < info->nattrs && strlen(list) < 200; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "", info->attrs[j].name);
          st = psgi_rp_error_at(ps, &key, "operator '%s' has no attribute '%.*s' (it has: %s)", info->name, (int)key.len,
                        key.text, info->nattrs ? list : "none");
          break;
        }
        kind = psgi_op_table[op].attrs[ai].kind;
      }
      psgi_rp_advance(ps);
      psgi_rp_advance(ps); /* = */
      const char *k = psgi_rp_attr_key(ps, &key);
      if (!k) {
        st = PSG_ERR_PARSE;
        break;
      }
      for (size_t i = 0; i < keys.len; i++)
        if (keys.data[i] == k) st = psgi_rp_error_at(ps, &key, "attribute '%.*s' given twice", (int)key.len, key.text);
      psg_attr *v = NULL;
      if (!st) st = psgi_rp_parse_attr_value(ps, kind, &v);
      /* TVM prints the attributes node's type after a call of a function
       * (`attrs_type_key="attrs.TestAttrs"`); Passage's attributes are
       * untyped, so the key names nothing here (docs/text-format.md). */
      if (!st && op < 0 && psg_attr_kind(v) == PSG_ATTR_STRING && key.len == 14 &&
          memcmp(key.text, "attrs_type_key", 14) == 0) {
        psg_attr_release(v);
        v = NULL;
      } else if (!st && (!PSGI_VEC_PUSH(ps->ctx, &keys, k) || !PSGI_VEC_PUSH(ps->ctx, &vals, v))) {
        psg_attr_release(v);
        st = psgi_nomem(ps->ctx);
      }
    } else {
      if (keys.len) {
        st = psgi_rp_error_at(ps, &ps->tok, "positional argument after attributes");
        break;
      }
      psg_expr *a = NULL;
      if ((st = psgi_rp_parse_expr(ps, &a)) != PSG_OK) break;
      if (!PSGI_VEC_PUSH(ps->ctx, &args, a)) {
        psg_expr_release(a);
        st = psgi_nomem(ps->ctx);
      }
    }
    if (!st && tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!st && !tok_is(&ps->tok, ")")) st = psgi_rp_expect(ps, ")", "after call arguments") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st && op >= 0) {
    const psgi_op_info *info = &psgi_op_table[op];
    if ((int)args.len < info->min_args || (info->max_args >= 0 && (int)args.len > info->max_args)) {
      if (info->min_args == info->max_args)
        st = psgi_rp_error_at(ps, start, "operator '%s' takes %d argument%s, %zu given", info->name, info->min_args,
                      info->min_args == 1 ? "" : "s", args.len);
      else
        st = psgi_rp_error_at(ps, start, "operator '%s' takes %d to %d arguments, %zu given", info->name, info->min_args,
                      info->max_args, args.len);
    }
  }
  psg_attrs *attrs = NULL;
  if (!st && keys.len) st = psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, &attrs);
  if (attrs) st = share_call_attrs(ps, attrs_from, (size_t)(ps->tok.text - attrs_from), &attrs);
  if (!st) {
    psgi_rp_advance(ps); /* ) */
    psg_span sp = psgi_rp_span_of(ps, start);
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

psg_status psgi_rp_parse_params(parser *ps, size_t mark, expr_vec *params, psg_attrs **attrs) {
  if (!psgi_rp_expect(ps, "(", "to start the parameters")) return PSG_ERR_PARSE;
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psgi_map seen; /* interned attribute keys given so far */
  psgi_map_init(&seen, ps->ctx);
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, ")")) {
    if (ps->tok.kind == TOK_LOCAL && !keys.len) {
      token name = ps->tok;
      psgi_rp_advance(ps);
      const psg_type *t = NULL;
      if (tok_is(&ps->tok, ":")) {
        psgi_rp_advance(ps);
        if ((st = psgi_rp_parse_annotation(ps, &t)) != PSG_OK) break;
      }
      char nbuf[256];
      snprintf(nbuf, sizeof nbuf, "%.*s", (int)name.len, name.text);
      psg_span sp = psgi_rp_span_of(ps, &name);
      psg_expr *v;
      if ((st = psg_var_create(ps->ctx, nbuf, t, &sp, &v)) != PSG_OK) break;
      if (!PSGI_VEC_PUSH(ps->ctx, params, v)) {
        psg_expr_release(v);
        st = psgi_nomem(ps->ctx);
        break;
      }
      if (!psgi_rp_define(ps, &name, v, mark, false)) st = PSG_ERR_PARSE;
    } else if ((ps->tok.kind == TOK_IDENT || ps->tok.kind == TOK_STRING) && tok_is(&ps->next, "=")) {
      const char *k = psgi_rp_attr_key(ps, &ps->tok);
      if (!k) {
        st = PSG_ERR_PARSE;
        break;
      }
      if ((st = psgi_rp_note_key(ps, &seen, k, &ps->tok)) != PSG_OK) break;
      psgi_rp_advance(ps);
      psgi_rp_advance(ps);
      psg_attr *v = NULL;
      if ((st = psgi_rp_parse_attr_value(ps, PSGI_ATTR_ANY, &v)) != PSG_OK) break;
      if (!k || !PSGI_VEC_PUSH(ps->ctx, &keys, k) || !PSGI_VEC_PUSH(ps->ctx, &vals, v)) {
        psg_attr_release(v);
        st = psgi_nomem(ps->ctx);
      }
    } else {
      char buf[80];
      st = psgi_rp_error_at(ps, &ps->tok, "expected a parameter (%%name) or a function attribute, found %s",
                    psgi_rp_tok_desc(&ps->tok, buf, sizeof buf));
      break;
    }
    if (!st && tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!st && !tok_is(&ps->tok, ")")) st = psgi_rp_expect(ps, ")", "after the parameters") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st) {
    psgi_rp_advance(ps);
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
  psgi_rp_advance(ps);
  size_t mark = psgi_rp_scope_mark(ps), tymark = ps->tyscope.len;
  expr_vec params = {0};
  psg_attrs *attrs = NULL;
  const psg_type *ret = NULL, *tparams[64];
  int ntp = 0;
  psg_expr *body = NULL;
  psg_status st = tok_is(&ps->tok, "[") ? psgi_rp_parse_type_params(ps, tparams, &ntp) : PSG_OK;
  if (!st) st = psgi_rp_parse_params(ps, mark, &params, &attrs);
  if (!st && tok_is(&ps->tok, "->")) {
    psgi_rp_advance(ps);
    st = psgi_rp_parse_type(ps, &ret);
  }
  if (!st) st = psgi_rp_parse_block(ps, &body);
  psgi_rp_scope_restore(ps, mark);
  ps->tyscope.len = tymark;
  if (!st) {
    psg_span sp = psgi_rp_span_of(ps, &start);
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
      if (!f) return psgi_rp_error_at(ps, &t, "undefined variable %%%.*s", (int)t.len, t.text);
      psgi_rp_advance(ps);
      *out = f->value;
      psg_expr_retain(*out);
      return PSG_OK;
    }
    if (!b->expr) return PSG_ERR_PARSE; /* already reported */
    psgi_rp_advance(ps);
    *out = b->expr;
    psg_expr_retain(*out);
    return PSG_OK;
  }
  case TOK_GLOBAL: {
    if (!PSGI_VEC_PUSH(ps->ctx, &ps->global_uses, t)) return psgi_nomem(ps->ctx);
    psgi_rp_advance(ps);
    return psgi_rp_global_ref(ps, &t, out);
  }
  case TOK_INT:
  case TOK_FLOAT: return psgi_rp_parse_scalar(ps, out);
  case TOK_IDENT:
    if (tok_is(&t, "True") || tok_is(&t, "False")) return psgi_rp_parse_scalar(ps, out);
    if (tok_is(&t, "fn")) return parse_fn(ps, out);
    if (psgi_rp_lookup_ctor(ps, &t)) {
      psgi_rp_advance(ps);
      *out = psgi_rp_lookup_ctor(ps, &t);
      psg_expr_retain(*out);
      return PSG_OK;
    }
    if (tok_is(&t, "match") && (tok_is(&ps->next, "(") || tok_is(&ps->next, "?"))) return psgi_rp_parse_match(ps, out);
    if ((tok_is(&t, "ref") || tok_is(&t, "ref_read") || tok_is(&t, "ref_write")) && tok_is(&ps->next, "("))
      return psgi_rp_parse_ref(ps, out);
    if (tok_is(&t, "if")) {
      psgi_rp_advance(ps);
      psg_expr *c = NULL, *a = NULL, *b = NULL;
      psg_status st = psgi_rp_expect(ps, "(", "after if") ? psgi_rp_parse_expr(ps, &c) : PSG_ERR_PARSE;
      if (!st && !psgi_rp_expect(ps, ")", "after the condition")) st = PSG_ERR_PARSE;
      if (!st) st = psgi_rp_parse_block(ps, &a);
      if (!st && !psgi_rp_expect(ps, "else", "after the then-block")) st = PSG_ERR_PARSE;
      if (!st) st = psgi_rp_parse_block(ps, &b);
      psg_span sp = psgi_rp_span_of(ps, &t);
      if (!st) st = psg_if_create(ps->ctx, c, a, b, &sp, out);
      psg_expr_release(c);
      psg_expr_release(a);
      psg_expr_release(b);
      return st;
    }
    if (tok_is(&t, "meta")) {
      psgi_rp_advance(ps);
      if (!psgi_rp_expect(ps, "[", "after meta")) return PSG_ERR_PARSE;
      if (!tok_is(&ps->tok, "relay.Constant"))
        return psgi_rp_error_at(ps, &ps->tok, "only meta[relay.Constant][i] references are supported");
      psgi_rp_advance(ps);
      if (!psgi_rp_expect(ps, "]", "after relay.Constant") || !psgi_rp_expect(ps, "[", "before the constant index")) return PSG_ERR_PARSE;
      token idx = ps->tok;
      int64_t i = -1;
      if (idx.kind != TOK_INT || !psgi_text_parse_i64(idx.text, idx.len, &i) || i < 0)
        return psgi_rp_error_at(ps, &idx, "expected a constant index");
      if ((uint64_t)i >= ps->meta.len)
        return psgi_rp_error_at(ps, &idx, "meta[relay.Constant][%lld] is out of range: the metadata section has %zu constant%s", (long long)i,
                        ps->meta.len, ps->meta.len == 1 ? "" : "s");
      psgi_rp_advance(ps);
      if (!psgi_rp_expect(ps, "]", "after the constant index")) return PSG_ERR_PARSE;
      psg_span sp = psgi_rp_span_of(ps, &t);
      return psg_constant_create(ps->ctx, ps->meta.data[i], &sp, out);
    }
    {
      ptrdiff_t op = psgi_op_lookup_in(ps->ctx, t.text, t.len); /* a registered op too (op_register.h) */
      if (op < 0) return suggest_op(ps, &t);
      psgi_rp_advance(ps);
      psg_expr *o;
      psg_status st = psg_op_get(ps->ctx, psgi_op_name_in(ps->ctx, (size_t)op), &o);
      if (st) return st;
      if (!tok_is(&ps->tok, "(")) {
        *out = o;
        return PSG_OK;
      }
      /* A registered op has no schema: any attributes, counted by InferType. */
      return parse_call(ps, o, (size_t)op < psgi_op_table_len ? op : -1, &t, out);
    }
  case TOK_PUNCT:
    /* A block as a value, as TVM's parser accepts it: the printer writes a
     * let chain bound to a temp this way ("%3 = { let %x = ...; %x };"). */
    if (tok_is(&t, "{")) return psgi_rp_parse_block(ps, out);
    if (tok_is(&t, "(")) {
      psgi_rp_advance(ps);
      expr_vec items = {0};
      psg_status st = PSG_OK;
      bool comma = false;
      while (!st && !tok_is(&ps->tok, ")")) {
        psg_expr *e = NULL;
        if ((st = psgi_rp_parse_expr(ps, &e)) != PSG_OK) break;
        if (!PSGI_VEC_PUSH(ps->ctx, &items, e)) {
          psg_expr_release(e);
          st = psgi_nomem(ps->ctx);
          break;
        }
        comma = tok_is(&ps->tok, ",");
        if (comma) psgi_rp_advance(ps);
        else if (!tok_is(&ps->tok, ")")) st = psgi_rp_expect(ps, ")", "to close the parenthesis") ? PSG_OK : PSG_ERR_PARSE;
      }
      if (!st) {
        psgi_rp_advance(ps);
        if (items.len == 1 && !comma) {
          *out = items.data[0]; /* a parenthesized expression */
          items.len = 0;
        } else {
          psg_span sp = psgi_rp_span_of(ps, &t);
          st = psg_tuple_create(ps->ctx, items.data, items.len, &sp, out);
        }
      }
      for (size_t i = 0; i < items.len; i++) psg_expr_release(items.data[i]);
      PSGI_VEC_FREE(ps->ctx, &items);
      return st;
    }
    return psgi_rp_error_at(ps, &t, "expected an expression, found %s", psgi_rp_tok_desc(&t, buf, sizeof buf));
  default: return psgi_rp_error_at(ps, &t, "expected an expression, found %s", psgi_rp_tok_desc(&t, buf, sizeof buf));
  }
}

/* primary followed by calls f(...) and tuple projections .N */
static psg_status parse_postfix(parser *ps, psg_expr **out) {
  *out = NULL;
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return psgi_rp_error_at(ps, &ps->tok, "expression nested too deeply (limit %d)", MAX_DEPTH);
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
      psgi_rp_advance(ps);
      token idx = ps->tok;
      int64_t i = -1;
      if (!psgi_text_parse_i64(idx.text, idx.len, &i) || i < 0 || i > INT32_MAX) {
        st = psgi_rp_error_at(ps, &idx, "bad tuple index '%.*s'", (int)idx.len, idx.text);
        break;
      }
      psgi_rp_advance(ps);
      psg_expr *tgi;
      psg_span sp = psgi_rp_span_of(ps, &start);
      st = psg_tuple_get_item_create(ps->ctx, e, (int)i, &sp, &tgi);
      psg_expr_release(e);
      e = st ? NULL : tgi;
    } else {
      break;
    }
  }
  /* A nullary constructor not called stands for its call (TVM: `Nil`). */
  if (!st && e->kind == PSG_EXPR_CONSTRUCTOR && e->u.ctor.inputs->n == 0) {
    psg_expr *call;
    psg_span sp = psgi_rp_span_of(ps, &start);
    st = psg_call_create(ps->ctx, e, NULL, 0, NULL, &sp, &call);
    psg_expr_release(e);
    e = st ? NULL : call;
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
  psg_span sp = psgi_rp_span_of(ps, &o.at);
  if (!st) st = psg_call_create(ps->ctx, op, args, 2, NULL, &sp, &call);
  psg_expr_release(l);
  psg_expr_release(r);
  vals->data[vals->len - 1] = call; /* NULL on failure: released as nothing */
  return st;
}

/* Operands joined by infix operators, by precedence (operator precedence
 * parsing with two explicit stacks: no recursion per operator). */
psg_status psgi_rp_parse_binop(parser *ps, psg_expr **out) {
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
    psgi_rp_advance(ps);
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
