/* Passage — Relay text parser: scalar literals and attribute values. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "text/relay_parse_internal.h"

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

/* The number text is TVM's infinity literal (`inff`, `-inff`): strtod
 * reads it as an infinity on purpose, where others overflow. */
static bool spelled_inf(const char *num) {
  size_t n = strlen(num);
  return n >= 3 && strcmp(num + n - 3, "inf") == 0;
}

/* A scalar constant from a numeric literal or True/False. */
psg_status psgi_rp_parse_scalar(parser *ps, psg_expr **out) {
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
      return psgi_rp_error_at(ps, &t, "bad numeric literal '%.*s'", (int)t.len, t.text);
    /* No width given (7, 7i): an int32 that does not fit is an int64, TVM's
     * legacy rule. */
    bool widen = dtype == PSG_DTYPE_INT32 && nl + 1 >= t.len;
    char *endp;
    errno = 0;
    if (psg_dtype_is_float(dtype)) {
      double v = strtod(num, &endp);
      if (*endp) return psgi_rp_error_at(ps, &t, "bad numeric literal '%.*s'", (int)t.len, t.text);
      /* Out-of-range literals are errors, not infinities: no literal spells
       * an infinity, so the printer could not write it back. */
      /* Beyond the largest finite value is out of range, as TVM's
       * ValueToFloatImm has it (3.40283e+38f32 and 65505f16 are errors).
       * A float32 literal that rounds to FLT_MAX is FLT_MAX: the printer's
       * shortest spelling of it, 3.4028235e+38f, lies above it in decimal.
       * The rounding bound is FLT_MAX plus half an ulp (0x1.ffffffp+127). */
      bool overflow = dtype == PSG_DTYPE_FLOAT64   ? isinf(v)
                      : dtype == PSG_DTYPE_FLOAT32 ? !(fabs(v) < 0x1.ffffffp+127)
                                                   : !(fabs(v) <= 65504.0);
      if (overflow && !spelled_inf(num))
        return psgi_rp_error_at(ps, &t, "floating-point literal '%.*s' out of range for %s", (int)t.len, t.text,
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
        return psgi_rp_error_at(ps, &t, "bad integer literal '%.*s'", (int)t.len, t.text);
      size_t sz = psg_dtype_size(dtype);
      if (widen && (v < INT32_MIN || v > INT32_MAX)) {
        dtype = PSG_DTYPE_INT64;
        sz = 8;
      }
      if (!is_unsigned && sz < 8 && (v < -(1LL << (sz * 8 - 1)) || v >= (1LL << (sz * 8 - 1))))
        return psgi_rp_error_at(ps, &t, "integer literal '%.*s' out of range for %s", (int)t.len, t.text, psg_dtype_name(dtype));
      if (is_unsigned && sz < 8 && u >> (sz * 8))
        return psgi_rp_error_at(ps, &t, "integer literal '%.*s' out of range for %s", (int)t.len, t.text, psg_dtype_name(dtype));
      if (is_unsigned) memcpy(bytes, &u, sz);
      else memcpy(bytes, &v, sz); /* little-endian: the low bytes */
    }
  }
  psgi_rp_advance(ps);
  psg_tensor *tensor;
  psg_status st = psg_tensor_create(ps->ctx, dtype, NULL, 0, bytes, &tensor);
  if (st) return st;
  psg_span sp = psgi_rp_span_of(ps, &t);
  st = psg_constant_create(ps->ctx, tensor, &sp, out);
  psg_tensor_release(tensor);
  return st;
}

/* Attribute values --------------------------------------------------------------- */


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
const char *psgi_rp_attr_key(parser *ps, const token *t) {
  if (t->kind == TOK_IDENT) {
    const char *k = psgi_intern(ps->ctx, t->text, t->len);
    if (!k) psgi_nomem(ps->ctx);
    return k;
  }
  char *s = psgi_alloc(ps->ctx, t->len + 1);
  if (!s) return psgi_nomem(ps->ctx), NULL;
  size_t n = unescape_into(t, s);
  const char *k = NULL;
  if (memchr(s, 0, n)) psgi_rp_error_at(ps, t, "an attribute name cannot contain a NUL byte");
  else if (!(k = psgi_intern(ps->ctx, s, n))) psgi_nomem(ps->ctx);
  psgi_free(ps->ctx, s);
  return k;
}

/* Records interned attribute key `k` (at token `at`) in `seen`; an error
 * when it was given before in the same list. */
psg_status psgi_rp_note_key(parser *ps, psgi_map *seen, const char *k, const token *at) {
  bool is_new = false;
  if (!psgi_map_put_ptr(seen, k, &is_new)) return psgi_nomem(ps->ctx);
  return is_new ? PSG_OK : psgi_rp_error_at(ps, at, "attribute '%s' given twice", k);
}

psg_status psgi_rp_parse_attr_dict(parser *ps, psg_attrs **out) {
  psgi_rp_advance(ps); /* { */
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psgi_map seen; /* interned keys given so far */
  psgi_map_init(&seen, ps->ctx);
  psg_status st = PSG_OK;
  while (!st && !tok_is(&ps->tok, "}")) {
    if (ps->tok.kind != TOK_IDENT && ps->tok.kind != TOK_STRING) {
      char buf[80];
      st = psgi_rp_error_at(ps, &ps->tok, "expected an attribute name, found %s", psgi_rp_tok_desc(&ps->tok, buf, sizeof buf));
      break;
    }
    const char *k = psgi_rp_attr_key(ps, &ps->tok);
    if (!k) {
      st = PSG_ERR_PARSE;
      break;
    }
    if ((st = psgi_rp_note_key(ps, &seen, k, &ps->tok)) != PSG_OK) break;
    psgi_rp_advance(ps);
    if (!psgi_rp_expect(ps, "=", "after an attribute name")) {
      st = PSG_ERR_PARSE;
      break;
    }
    psg_attr *v = NULL;
    if ((st = psgi_rp_parse_attr_value(ps, PSGI_ATTR_ANY, &v)) != PSG_OK) break;
    if (!PSGI_VEC_PUSH(ps->ctx, &keys, k) || !PSGI_VEC_PUSH(ps->ctx, &vals, v)) {
      psg_attr_release(v);
      st = psgi_nomem(ps->ctx);
      break;
    }
    if (tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
    else if (!tok_is(&ps->tok, "}")) st = psgi_rp_expect(ps, "}", "to close the dictionary") ? PSG_OK : PSG_ERR_PARSE;
  }
  if (!st) {
    psgi_rp_advance(ps);
    st = psg_attrs_create(ps->ctx, keys.data, vals.data, keys.len, out);
  }
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  psgi_map_fini(&seen);
  PSGI_VEC_FREE(ps->ctx, &keys);
  PSGI_VEC_FREE(ps->ctx, &vals);
  return st;
}

psg_status psgi_rp_parse_attr_value(parser *ps, int kind, psg_attr **out) {
  *out = NULL;
  token t = ps->tok;
  psg_status st;
  if (++ps->depth > MAX_DEPTH) {
    ps->depth--;
    return psgi_rp_error_at(ps, &t, "attribute value nested too deeply (limit %d)", MAX_DEPTH);
  }
  if (t.kind == TOK_INT || t.kind == TOK_FLOAT) {
    size_t nl;
    int dt = literal_dtype(&t, &nl);
    char num[64];
    if (!dt || !literal_number(&t, nl, num, sizeof num)) {
      st = psgi_rp_error_at(ps, &t, "bad numeric literal '%.*s'", (int)t.len, t.text);
    } else {
      char *endp;
      errno = 0;
      if (kind == PSGI_ATTR_INT && psg_dtype_is_float(dt)) {
        st = psgi_rp_error_at(ps, &t, "expected an integer, found '%.*s'", (int)t.len, t.text);
      } else if (psg_dtype_is_float(dt) || kind == PSGI_ATTR_FLOAT) {
        double v = strtod(num, &endp);
        st = *endp        ? psgi_rp_error_at(ps, &t, "bad number '%.*s'", (int)t.len, t.text)
             : isinf(v) && !spelled_inf(num) ? psgi_rp_error_at(ps, &t, "number '%.*s' out of range", (int)t.len, t.text)
                        : psg_attr_float(ps->ctx, v, out);
      } else {
        long long v = strtoll(num, &endp, 10);
        st = *endp   ? psgi_rp_error_at(ps, &t, "bad integer '%.*s'", (int)t.len, t.text)
             : errno ? psgi_rp_error_at(ps, &t, "integer '%.*s' out of range", (int)t.len, t.text)
                     : psg_attr_int(ps->ctx, v, out);
      }
      if (!st) psgi_rp_advance(ps);
    }
  } else if (t.kind == TOK_STRING) {
    int dtype = kind == PSGI_ATTR_DTYPE ? psg_dtype_from_name(t.text, t.len) : 0;
    if (kind == PSGI_ATTR_DTYPE && t.len && !dtype)
      st = psgi_rp_error_at(ps, &t, "unknown dtype \"%.*s\"", (int)t.len, t.text);
    else
      st = dtype ? psg_attr_dtype(ps->ctx, dtype, out) : unescape(ps, &t, out);
    if (!st) psgi_rp_advance(ps);
  } else if (t.kind == TOK_GLOBAL) {
    /* A GlobalVar reference (call_lowered's all_prim_fn_vars): checked
     * against the module's definitions with the other global uses. */
    char name[256];
    if (t.len >= sizeof name) {
      st = psgi_rp_error_at(ps, &t, "global name too long");
    } else if (!PSGI_VEC_PUSH(ps->ctx, &ps->global_uses, t)) {
      st = psgi_nomem(ps->ctx);
    } else {
      memcpy(name, t.text, t.len);
      name[t.len] = 0;
      st = psg_attr_global_var(ps->ctx, name, out);
      if (!st) psgi_rp_advance(ps);
    }
  } else if (tok_is(&t, "True") || tok_is(&t, "False")) {
    st = psg_attr_bool(ps->ctx, tok_is(&t, "True"), out);
    psgi_rp_advance(ps);
  } else if (tok_is(&t, "None")) {
    st = psg_attr_none(ps->ctx, out);
    psgi_rp_advance(ps);
  } else if (tok_is(&t, "[")) {
    psgi_rp_advance(ps);
    PSGI_VEC(psg_attr *) items = {0};
    st = PSG_OK;
    while (!st && !tok_is(&ps->tok, "]")) {
      psg_attr *v;
      st = psgi_rp_parse_attr_value(ps, kind == PSGI_ATTR_INT_LIST ? PSGI_ATTR_INT : PSGI_ATTR_ANY, &v);
      if (!st && !PSGI_VEC_PUSH(ps->ctx, &items, v)) {
        psg_attr_release(v);
        st = psgi_nomem(ps->ctx);
      }
      if (!st && tok_is(&ps->tok, ",")) psgi_rp_advance(ps);
      else if (!st && !tok_is(&ps->tok, "]")) st = psgi_rp_expect(ps, "]", "to close the list") ? PSG_OK : PSG_ERR_PARSE;
    }
    if (!st) {
      psgi_rp_advance(ps);
      st = psg_attr_list(ps->ctx, items.data, items.len, out);
    }
    for (size_t i = 0; i < items.len; i++) psg_attr_release(items.data[i]);
    PSGI_VEC_FREE(ps->ctx, &items);
  } else if (tok_is(&t, "{")) {
    psg_attrs *d = NULL;
    st = psgi_rp_parse_attr_dict(ps, &d);
    if (!st) st = psg_attr_dict(ps->ctx, d, out);
    psg_attrs_release(d);
  } else {
    char buf[80];
    st = psgi_rp_error_at(ps, &t, "expected an attribute value, found %s", psgi_rp_tok_desc(&t, buf, sizeof buf));
  }
  ps->depth--;
  return st;
}
