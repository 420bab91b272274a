/* Passage — Relay text parser: types (Tensor[...], tuples, fn types, type
 * parameters and their scopes, annotations). */
#include <limits.h>
#include <stdio.h>
#include "text/relay_parse_internal.h"

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


static psg_status parse_tensor_type(parser *ps, const psg_type **out) {
  token at = ps->tok; /* Tensor: where a too large shape is reported */
  psgi_rp_advance(ps);
  if (!psgi_rp_expect(ps, "[", "after Tensor") || !psgi_rp_expect(ps, "(", "to start the shape")) return PSG_ERR_PARSE;
  int64_t dims[PSG_MAX_RANK];
  int nd = 0;
  while (!tok_is(&ps->tok, ")")) {
    if (nd == PSG_MAX_RANK) return psgi_rp_error_at(ps, &ps->tok, "tensor rank above %d", PSG_MAX_RANK);
    if (tok_is(&ps->tok, "?")) {
      dims[nd++] = PSG_DIM_UNKNOWN;
    } else if (ps->tok.kind == TOK_INT && ps->tok.text[0] != '-') {
      int64_t v;
      if (!psgi_text_parse_i64(ps->tok.text, ps->tok.len, &v))
        return psgi_rp_error_at(ps, &ps->tok, "dimension '%.*s' out of range", (int)ps->tok.len, ps->tok.text);
      dims[nd++] = v;
    } else {
      char buf[80];
      return psgi_rp_error_at(ps, &ps->tok, "expected a dimension (an integer or ?), found %s", psgi_rp_tok_desc(&ps->tok, buf, sizeof buf));
    }
    psgi_rp_advance(ps);
    if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!tok_is(&ps->tok, ")")) return psgi_rp_expect(ps, ")", "after the dimensions") ? PSG_OK : PSG_ERR_PARSE;
  }
  psgi_rp_advance(ps);
  if (!psgi_rp_expect(ps, ",", "after the shape")) return PSG_ERR_PARSE;
  if (ps->tok.kind != TOK_IDENT) {
    char buf[80];
    return psgi_rp_error_at(ps, &ps->tok, "expected a dtype, found %s", psgi_rp_tok_desc(&ps->tok, buf, sizeof buf));
  }
  int dtype = type_dtype(&ps->tok);
  if (!dtype) return psgi_rp_error_at(ps, &ps->tok, "unknown dtype '%.*s'", (int)ps->tok.len, ps->tok.text);
  psgi_rp_advance(ps);
  if (!psgi_rp_expect(ps, "]", "to close the tensor type")) return PSG_ERR_PARSE;
  if (!psgi_shape_fits(dims, nd, psg_dtype_size(dtype))) {
    char shape[PSG_MAX_RANK * 22 + 3];
    size_t k = 0;
    shape[k++] = '(';
    for (int i = 0; i < nd; i++)
      k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", i ? ", " : "", (long long)dims[i]);
    snprintf(shape + k, sizeof shape - k, ")");
    return psgi_rp_error_at(ps, &at, "tensor type of shape %s and dtype %s has more than INT64_MAX bytes", shape,
                    psg_dtype_name(dtype));
  }
  psg_status st = psg_type_tensor(ps->ctx, dims, nd, dtype, out);
  return st;
}

typedef PSGI_VEC(const psg_type *) type_list;

/* Types up to `close`, into a list that grows as needed (a printed tuple or
 * function type may hold hundreds: a module's main returning 256 outputs). */
static psg_status parse_type_list(parser *ps, const char *close, type_list *items) {
  while (!tok_is(&ps->tok, close)) {
    if (items->len == INT_MAX) return psgi_rp_error_at(ps, &ps->tok, "too many types in a list");
    const psg_type *t = NULL;
    psg_status st = psgi_rp_parse_type(ps, &t);
    if (st) return st;
    if (!PSGI_VEC_PUSH(ps->ctx, items, t)) return psgi_nomem(ps->ctx);
    if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!tok_is(&ps->tok, close)) return psgi_rp_expect(ps, close, "after a type") ? PSG_OK : PSG_ERR_PARSE;
  }
  psgi_rp_advance(ps);
  return PSG_OK;
}

/* [A, B, ...]: fresh TypeVars, put in scope (the caller restores
 * ps->tyscope.len); their list in tparams (up to 64). */
psg_status psgi_rp_parse_type_params(parser *ps, const psg_type **tparams, int *n) {
  *n = 0;
  psgi_rp_advance(ps); /* [ */
  while (!tok_is(&ps->tok, "]")) {
    token t = ps->tok;
    if (t.kind != TOK_IDENT || type_dtype(&t) || tok_is(&t, "Tensor")) {
      char buf[80];
      return psgi_rp_error_at(ps, &t, "expected a type parameter name, found %s", psgi_rp_tok_desc(&t, buf, sizeof buf));
    }
    if (*n == 64) return psgi_rp_error_at(ps, &t, "too many type parameters");
    for (int i = 0; i < *n; i++)
      if (strlen(psg_type_var_name(tparams[i])) == t.len && !memcmp(psg_type_var_name(tparams[i]), t.text, t.len))
        return psgi_rp_error_at(ps, &t, "type parameter '%.*s' is given twice", (int)t.len, t.text);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)t.len, t.text);
    psg_status st = psg_type_var(ps->ctx, name, PSG_TYPE_KIND_TYPE, &tparams[*n]);
    if (st) return st;
    type_binding b = {t.text, t.len, tparams[(*n)++]};
    if (!PSGI_VEC_PUSH(ps->ctx, &ps->tyscope, b)) return psgi_nomem(ps->ctx);
    psgi_rp_advance(ps);
    if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!tok_is(&ps->tok, "]")) return psgi_rp_expect(ps, "]", "after the type parameters") ? PSG_OK : PSG_ERR_PARSE;
  }
  psgi_rp_advance(ps);
  return PSG_OK;
}

/* The type parameter `t` names, innermost first; NULL if none. */
static const psg_type *lookup_type_var(const parser *ps, const token *t) {
  for (size_t i = ps->tyscope.len; i-- > 0;)
    if (ps->tyscope.data[i].len == t->len && !memcmp(ps->tyscope.data[i].name, t->text, t->len))
      return ps->tyscope.data[i].tv;
  return NULL;
}

psg_status psgi_rp_parse_type(parser *ps, const psg_type **out) {
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return psgi_rp_error_at(ps, &ps->tok, "type nested too deeply (limit %d)", MAX_DEPTH);
  }
  psg_status st;
  type_list items = {0};
  if (tok_is(&ps->tok, "Tensor")) {
    st = parse_tensor_type(ps, out);
  } else if (tok_is(&ps->tok, "(")) {
    psgi_rp_advance(ps);
    st = parse_type_list(ps, ")", &items);
    if (!st) st = psg_type_tuple(ps->ctx, items.data, (int)items.len, out);
  } else if (tok_is(&ps->tok, "fn")) {
    /* fn [A, ...](args) -> ret: the parameters are in scope in the type. */
    psgi_rp_advance(ps);
    size_t mark = ps->tyscope.len;
    const psg_type *tparams[64];
    int ntp = 0;
    st = tok_is(&ps->tok, "[") ? psgi_rp_parse_type_params(ps, tparams, &ntp) : PSG_OK;
    if (!st && !psgi_rp_expect(ps, "(", "after fn in a function type")) st = PSG_ERR_PARSE;
    else if (!st) st = parse_type_list(ps, ")", &items);
    const psg_type *ret = NULL;
    if (!st && !psgi_rp_expect(ps, "->", "in a function type")) st = PSG_ERR_PARSE;
    if (!st) st = psgi_rp_parse_type(ps, &ret);
    if (!st) st = psg_type_func_poly(ps->ctx, items.data, (int)items.len, ret, tparams, ntp, out);
    ps->tyscope.len = mark;
  } else if (tok_is(&ps->tok, "ref") && tok_is(&ps->next, "(")) {
    /* ref(T): a reference type, as TVM prints RefType. */
    psgi_rp_advance(ps);
    psgi_rp_advance(ps);
    const psg_type *v = NULL;
    st = psgi_rp_parse_type(ps, &v);
    if (!st && !psgi_rp_expect(ps, ")", "to close the reference type")) st = PSG_ERR_PARSE;
    if (!st) st = psg_type_ref(ps->ctx, v, out);
  } else if (ps->tok.kind == TOK_IDENT && !type_dtype(&ps->tok) && lookup_type_var(ps, &ps->tok)) {
    *out = lookup_type_var(ps, &ps->tok);
    psgi_rp_advance(ps);
    st = PSG_OK;
  } else if (type_dtype(&ps->tok)) {
    st = psg_type_tensor(ps->ctx, NULL, 0, type_dtype(&ps->tok), out);
    psgi_rp_advance(ps);
  } else if (psgi_rp_is_type_name(ps, &ps->tok)) {
    st = psgi_rp_parse_adt_type(ps, out); /* List[A]: an ADT, defined before or after */
  } else {
    char buf[80];
    st = psgi_rp_error_at(ps, &ps->tok, "expected a type, found %s", psgi_rp_tok_desc(&ps->tok, buf, sizeof buf));
  }
  PSGI_VEC_FREE(ps->ctx, &items);
  ps->depth--;
  return st;
}

/* A type annotation (of a parameter, let or free variable): a type, or `_`,
 * TVM's incomplete type, which leaves the variable unannotated (*out NULL). */
psg_status psgi_rp_parse_annotation(parser *ps, const psg_type **out) {
  if (tok_is(&ps->tok, "_")) {
    psgi_rp_advance(ps);
    *out = NULL;
    return PSG_OK;
  }
  return psgi_rp_parse_type(ps, out);
}
