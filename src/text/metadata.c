/* Passage — the #[metadata] section of the text format: tensor constants as
 * {"dtype", "shape", "data": base64 of the little-endian bytes}, so large
 * weights stay compact and round-trip bit-exactly (docs/text-format.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text/text_internal.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The value of each byte as a base64 digit, -1 for a byte that is not one:
 * a table, because weights are megabytes of digits (a chain of comparisons
 * per digit was most of the cost of parsing a module with large constants). */
static const signed char b64_values[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
    -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

static int b64_value(unsigned char c) { return b64_values[c]; }

typedef struct reader {
  psg_ctx *ctx;
  const char *file, *buf_start, *p, *end;
} reader;

static psg_status error_at(reader *r, const char *at, const char *fmt, const char *detail) {
  int line = 1;
  const char *ls = r->buf_start;
  for (const char *q = r->buf_start; q < at; q++)
    if (*q == '\n') line++, ls = q + 1;
  const char *le = ls;
  while (le < r->end && *le != '\n') le++;
  return psgi_diag_add(r->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, r->file, line, (int)(at - ls) + 1, ls,
                       (size_t)(le - ls), NULL, fmt, detail);
}

static void skip_ws(reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')) r->p++;
}

static bool expect(reader *r, char c) {
  skip_ws(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return true;
  }
  char what[4] = {'\'', c, '\'', 0};
  error_at(r, r->p, "metadata: expected %s", what);
  return false;
}

/* A "string": sets [*s, *s + *n). No escapes are needed by the schema. */
static bool read_string(reader *r, const char **s, size_t *n) {
  if (!expect(r, '"')) return false;
  const char *start = r->p;
  /* memchr: a weight's data is one string of megabytes. */
  const char *quote = memchr(start, '"', (size_t)(r->end - start));
  const char *newline = memchr(start, '\n', (size_t)((quote ? quote : r->end) - start));
  r->p = newline ? newline : quote ? quote : r->end;
  if (r->p >= r->end || *r->p != '"') {
    error_at(r, start - 1, "metadata: %s", "unterminated string");
    return false;
  }
  *s = start;
  *n = (size_t)(r->p - start);
  r->p++;
  return true;
}

static bool read_int(reader *r, int64_t *v) {
  skip_ws(r);
  const char *start = r->p;
  if (r->p >= r->end || !(*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))) {
    error_at(r, start, "metadata: expected %s", "an integer");
    return false;
  }
  const char *q = start + (*start == '-');
  while (q < r->end && *q >= '0' && *q <= '9') q++;
  if (!psgi_text_parse_i64(start, (size_t)(q - start), v)) {
    error_at(r, start, "metadata: expected %s", "an integer (in range)");
    return false;
  }
  r->p = q;
  return true;
}

static bool peek(reader *r, char c) {
  skip_ws(r);
  return r->p < r->end && *r->p == c;
}

/* One {"dtype": .., "shape": [..], "data": ".."} entry. */
static psg_status read_tensor(reader *r, psg_tensor **out) {
  *out = NULL;
  const char *entry = r->p;
  if (!expect(r, '{')) return PSG_ERR_PARSE;
  int dtype = 0;
  int64_t shape[PSG_MAX_RANK];
  int ndim = -1;
  const char *data = NULL;
  size_t data_len = 0;
  while (!peek(r, '}')) {
    const char *key, *at;
    size_t klen;
    skip_ws(r);
    at = r->p;
    if (!read_string(r, &key, &klen) || !expect(r, ':')) return PSG_ERR_PARSE;
    if (klen == 5 && !memcmp(key, "dtype", 5)) {
      const char *d;
      size_t dl;
      skip_ws(r);
      const char *dat = r->p;
      if (!read_string(r, &d, &dl)) return PSG_ERR_PARSE;
      dtype = psg_dtype_from_name(d, dl);
      if (!dtype) return error_at(r, dat, "metadata: unknown dtype %s", "in a constant");
    } else if (klen == 5 && !memcmp(key, "shape", 5)) {
      if (!expect(r, '[')) return PSG_ERR_PARSE;
      ndim = 0;
      while (!peek(r, ']')) {
        skip_ws(r);
        const char *dim_at = r->p;
        if (ndim == PSG_MAX_RANK) return error_at(r, dim_at, "metadata: %s", "too many dimensions");
        if (!read_int(r, &shape[ndim])) return PSG_ERR_PARSE;
        if (shape[ndim] < 0) return error_at(r, dim_at, "metadata: %s", "negative dimension");
        ndim++;
        if (!peek(r, ']') && !expect(r, ',')) return PSG_ERR_PARSE;
      }
      r->p++;
    } else if (klen == 4 && !memcmp(key, "data", 4)) {
      if (!read_string(r, &data, &data_len)) return PSG_ERR_PARSE;
    } else {
      return error_at(r, at, "metadata: unknown key in a constant (%s)", "expected dtype, shape or data");
    }
    if (!peek(r, '}') && !expect(r, ',')) return PSG_ERR_PARSE;
  }
  r->p++;
  if (!dtype || ndim < 0 || !data) return error_at(r, entry, "metadata: a constant needs %s", "dtype, shape and data");
  if (!psgi_shape_fits(shape, ndim, psg_dtype_size(dtype)))
    return error_at(r, entry, "metadata: %s", "tensor too large (more than INT64_MAX bytes)");
  size_t nbytes = psg_dtype_size(dtype);
  for (int i = 0; i < ndim; i++) nbytes *= (size_t)shape[i]; /* fits: checked just above */
  if (data_len % 4 != 0 || (data_len / 4) * 3 < nbytes || (data_len / 4) * 3 > nbytes + 2)
    return error_at(r, data, "metadata: data has the wrong length for %s", "the dtype and shape");
  psg_tensor *t;
  psg_status st = psg_tensor_create(r->ctx, dtype, shape, ndim, NULL, &t);
  if (st) return st;
  unsigned char *dst = (unsigned char *)t->data;
  size_t o = 0, i = 0;
  /* Every quad but the last has no padding and fills three bytes (the
   * length check above leaves room for them); the last one goes below. */
  for (; i + 4 < data_len; i += 4, o += 3) {
    const unsigned char *q = (const unsigned char *)data + i;
    int a = b64_values[q[0]], b = b64_values[q[1]], c = b64_values[q[2]], d = b64_values[q[3]];
    if ((a | b | c | d) < 0) break; /* the loop below names the bad digit */
    dst[o] = (unsigned char)(a << 2 | b >> 4);
    dst[o + 1] = (unsigned char)(b << 4 | c >> 2);
    dst[o + 2] = (unsigned char)(c << 6 | d);
  }
  for (; i < data_len; i += 4) {
    int v[4];
    for (int k = 0; k < 4; k++) {
      unsigned char ch = (unsigned char)data[i + k];
      v[k] = ch == '=' && i + 4 == data_len && k >= 2 ? 0 : b64_value(ch);
      if (v[k] < 0) {
        psg_tensor_release(t);
        return error_at(r, data + i + k, "metadata: %s", "bad base64 character");
      }
    }
    unsigned char bytes[3] = {(unsigned char)(v[0] << 2 | v[1] >> 4), (unsigned char)(v[1] << 4 | v[2] >> 2),
                              (unsigned char)(v[2] << 6 | v[3])};
    for (int k = 0; k < 3 && o < nbytes; k++) dst[o++] = bytes[k];
  }
  if (o != nbytes) {
    psg_tensor_release(t);
    return error_at(r, data, "metadata: data is too short for %s", "the dtype and shape");
  }
  *out = t;
  return PSG_OK;
}

psg_status psgi_metadata_parse(psg_ctx *ctx, const char *file, const char *buf_start, const char *text,
                               const char *end, psgi_tensor_vec *out) {
  reader r = {ctx, file, buf_start, text, end};
  if (!expect(&r, '{')) return PSG_ERR_PARSE;
  while (!peek(&r, '}')) {
    const char *key;
    size_t klen;
    skip_ws(&r);
    const char *at = r.p;
    if (!read_string(&r, &key, &klen) || !expect(&r, ':')) return PSG_ERR_PARSE;
    if (!(klen == 14 && !memcmp(key, "relay.Constant", 14)))
      return error_at(&r, at, "metadata: unknown section (%s)", "only \"relay.Constant\" is known");
    if (!expect(&r, '[')) return PSG_ERR_PARSE;
    while (!peek(&r, ']')) {
      psg_tensor *t;
      psg_status st = read_tensor(&r, &t);
      if (st) return st;
      if (!PSGI_VEC_PUSH(ctx, out, t)) {
        psg_tensor_release(t);
        return psgi_nomem(ctx);
      }
      if (!peek(&r, ']') && !expect(&r, ',')) return PSG_ERR_PARSE;
    }
    r.p++;
    if (!peek(&r, '}') && !expect(&r, ',')) return PSG_ERR_PARSE;
  }
  r.p++;
  skip_ws(&r);
  if (r.p < r.end) return error_at(&r, r.p, "metadata: %s", "unexpected text after the metadata section");
  return PSG_OK;
}

void psgi_metadata_print(psgi_buf *b, psg_tensor *const *tensors, size_t n) {
  if (!n) return;
  psgi_buf_puts(b, "#[metadata]\n{\n  \"relay.Constant\": [\n");
  for (size_t i = 0; i < n; i++) {
    const psg_tensor *t = tensors[i];
    psgi_buf_printf(b, "    {\"dtype\": \"%s\", \"shape\": [", psg_dtype_name(t->dtype));
    for (int d = 0; d < t->ndim; d++) psgi_buf_printf(b, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    psgi_buf_puts(b, "], \"data\": \"");
    const unsigned char *s = t->data;
    size_t len = t->nbytes;
    char chunk[4096]; /* appended a chunk at a time, not a quad at a time */
    size_t used = 0;
    size_t k = 0;
    for (; k + 3 <= len; k += 3) { /* whole triples: no padding to decide */
      unsigned v = (unsigned)s[k] << 16 | (unsigned)s[k + 1] << 8 | s[k + 2];
      char *quad = chunk + used;
      quad[0] = b64[v >> 18 & 63];
      quad[1] = b64[v >> 12 & 63];
      quad[2] = b64[v >> 6 & 63];
      quad[3] = b64[v & 63];
      used += 4;
      if (used == sizeof chunk) psgi_buf_append(b, chunk, used), used = 0;
    }
    for (; k < len; k += 3) {
      unsigned v = (unsigned)s[k] << 16 | (k + 1 < len ? (unsigned)s[k + 1] << 8 : 0) | (k + 2 < len ? s[k + 2] : 0);
      char *quad = chunk + used;
      quad[0] = b64[v >> 18 & 63];
      quad[1] = b64[v >> 12 & 63];
      quad[2] = k + 1 < len ? b64[v >> 6 & 63] : '=';
      quad[3] = k + 2 < len ? b64[v & 63] : '=';
      used += 4;
      if (used == sizeof chunk) psgi_buf_append(b, chunk, used), used = 0;
    }
    if (used) psgi_buf_append(b, chunk, used);
    psgi_buf_printf(b, "\"}%s\n", i + 1 < n ? "," : "");
  }
  psgi_buf_puts(b, "  ]\n}\n");
}

bool psgi_text_parse_i64(const char *s, size_t n, int64_t *out) {
  bool neg = n && s[0] == '-';
  size_t i = neg;
  if (i == n) return false;
  uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

const char *psgi_scalar_suffix(int dtype) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT32: return "f";
  case PSG_DTYPE_FLOAT64: return "f64";
  case PSG_DTYPE_FLOAT16: return "f16";
  case PSG_DTYPE_INT8: return "i8";
  case PSG_DTYPE_INT16: return "i16";
  case PSG_DTYPE_INT32: return "";
  case PSG_DTYPE_INT64: return "i64";
  case PSG_DTYPE_UINT8: return "u8";
  case PSG_DTYPE_UINT16: return "u16";
  case PSG_DTYPE_UINT32: return "u32";
  case PSG_DTYPE_UINT64: return "u64";
  default: return NULL;
  }
}

bool psgi_format_real(psgi_buf *b, double v, bool as_float) {
  if (v != v || v == 1.0 / 0.0 || v == -1.0 / 0.0) return false;
  char tmp[40];
  for (int prec = as_float ? 6 : 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    double back = strtod(tmp, NULL);
    if (as_float ? (float)back == (float)v : back == v) break;
  }
  /* -0.0 must keep its sign; "%g" does that. */
  psgi_buf_puts(b, tmp);
  return true;
}
