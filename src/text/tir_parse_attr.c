/* Passage — TVMScript parser (tir_parse.c): attribute values, the {...}
 * of T.func_attr and annotations= (strings, numbers, lists, dictionaries). */
#include <stdio.h>
#include <stdlib.h>
#include "text/tir_parse_internal.h"

/* Attribute values ({...} of T.func_attr and annotations=) ---------------- */

static psg_attr *parse_attr_value(tparser *ps, int depth);

psg_attrs *psgi_tirp_parse_attr_dict(tparser *ps, int depth) {
  if (psgi_tirp_expect(ps, "{")) return NULL;
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psg_attrs *out = NULL;
  bool ok = true;
  while (ok && !tt_is(&ps->tok, "}")) {
    if (ps->tok.kind != TT_STRING) {
      psgi_tirp_expected(ps, "a string key");
      ok = false;
      break;
    }
    char buf[256];
    size_t n;
    if (!psgi_tirp_unescape(ps, &ps->tok, buf, sizeof buf, false, &n)) {
      ok = false;
      break;
    }
    const char *k = psgi_intern(ps->ctx, buf, n);
    psgi_tirp_advance(ps);
    psg_attr *v = NULL;
    if (!k || psgi_tirp_expect(ps, ":") || !(v = parse_attr_value(ps, depth + 1)) || !PSGI_VEC_PUSH(ps->ctx, &keys, k) ||
        !PSGI_VEC_PUSH(ps->ctx, &vals, v)) {
      if (v && keys.len == vals.len) psg_attr_release(v);
      ok = false;
      break;
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  if (ok && !psgi_tirp_expect(ps, "}")) {
    ttoken t = ps->tok;
    if (psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, &out))
      psgi_tirp_error_at(ps, &t, "a key appears twice in this dictionary");
  }
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  PSGI_VEC_FREE(ps->ctx, &keys);
  PSGI_VEC_FREE(ps->ctx, &vals);
  return out;
}

static psg_attr *parse_attr_value(tparser *ps, int depth) {
  psg_attr *out = NULL;
  ttoken t = ps->tok;
  if (depth > 32) {
    psgi_tirp_error_at(ps, &t, "attribute value nested too deeply (limit 32)");
    return NULL;
  }
  if (t.kind == TT_STRING) {
    char buf[1024];
    size_t n;
    if (!psgi_tirp_unescape(ps, &t, buf, sizeof buf, false, &n)) return NULL;
    psgi_tirp_advance(ps);
    psg_attr_string(ps->ctx, buf, n, &out);
    return out;
  }
  if (tt_is(&t, "None")) {
    psgi_tirp_advance(ps);
    psg_attr_none(ps->ctx, &out);
    return out;
  }
  if (tt_is(&t, "True") || tt_is(&t, "False")) {
    psgi_tirp_advance(ps);
    psg_attr_bool(ps->ctx, t.text[0] == 'T', &out);
    return out;
  }
  if (tt_is(&t, "{")) {
    psg_attrs *d = psgi_tirp_parse_attr_dict(ps, depth);
    if (d) psg_attr_dict(ps->ctx, d, &out);
    psg_attrs_release(d);
    return out;
  }
  if (psgi_tirp_accept(ps, "[")) {
    PSGI_VEC(psg_attr *) items = {0};
    bool ok = true;
    while (!tt_is(&ps->tok, "]")) {
      psg_attr *v = parse_attr_value(ps, depth + 1);
      if (!v || !PSGI_VEC_PUSH(ps->ctx, &items, v)) {
        if (v) psg_attr_release(v);
        ok = false;
        break;
      }
      if (!psgi_tirp_accept(ps, ",")) break;
    }
    if (ok && !psgi_tirp_expect(ps, "]")) psg_attr_list(ps->ctx, items.data, items.len, &out);
    for (size_t i = 0; i < items.len; i++) psg_attr_release(items.data[i]);
    PSGI_VEC_FREE(ps->ctx, &items);
    return out;
  }
  /* A float literal alone is a Python float, a double: read it whole, not
   * through the expression parser's float32 rounding, so that the printed
   * double (put_real) reads back as itself (fuzz_tvmscript: 1./5 folded to
   * 0.2, printed "0.2", came back as float32's 0.20000000298...). */
  bool neg = tt_is(&t, "-");
  const ttoken *num = neg ? &ps->next : &t;
  if (num->kind == TT_FLOAT) {
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(num->len > 63 ? 63 : num->len), num->text);
    double v = strtod(buf, NULL);
    if (neg) psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    if (tt_is(&ps->tok, ",") || tt_is(&ps->tok, "}") || tt_is(&ps->tok, "]")) {
      psg_attr_float(ps->ctx, neg ? -v : v, &out);
      return out;
    }
    ps->lx.s = p0; /* part of an expression (1.5 * 2): parse it as one */
    ps->tok = t0;
    ps->next = n0;
  }
  /* numbers and typed literals: an expression that is a literal */
  psg_tir_node *e = psgi_tirp_parse_expr(ps);
  if (!e) return NULL;
  if (e->kind == PSG_TIR_INT_IMM && psg_tir_dtype_is_bool(e->dtype)) psg_attr_bool(ps->ctx, e->u.int_value != 0, &out);
  else if (e->kind == PSG_TIR_INT_IMM) psg_attr_int(ps->ctx, e->u.int_value, &out);
  else if (e->kind == PSG_TIR_FLOAT_IMM) psg_attr_float(ps->ctx, e->u.float_value, &out);
  else psgi_tirp_error_at(ps, &t, "an attribute value must be a literal, a string, a list or a dictionary");
  psg_tir_release(e);
  return out;
}
