/* Passage — NumPy .npy files (format 1.0/2.0/3.0): read, parse from memory,
 * write. Every header field is checked; problems are diagnostics naming the
 * file. bfloat16 has no NumPy dtype: it is written as '<u2' bits and cannot
 * be read back as bfloat16 (a documented limit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "ir/ir_internal.h"

static psg_status npy_error(psg_ctx *ctx, psg_status code, const char *name, const char *what) {
  /* The file is the diagnostic's location ("f.npy: error: ..."): the message does not repeat it. */
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, code, name, 0, 0, NULL, 0, NULL, "%s", what);
}

static const struct {
  const char *descr;
  int dtype;
} npy_types[] = {
    {"<f4", PSG_DTYPE_FLOAT32}, {"<f8", PSG_DTYPE_FLOAT64}, {"<f2", PSG_DTYPE_FLOAT16}, {"|i1", PSG_DTYPE_INT8},
    {"<i1", PSG_DTYPE_INT8},    {"<i2", PSG_DTYPE_INT16},   {"<i4", PSG_DTYPE_INT32},   {"<i8", PSG_DTYPE_INT64},
    {"|u1", PSG_DTYPE_UINT8},   {"<u1", PSG_DTYPE_UINT8},   {"<u2", PSG_DTYPE_UINT16},  {"<u4", PSG_DTYPE_UINT32},
    {"<u8", PSG_DTYPE_UINT64},  {"|b1", PSG_DTYPE_BOOL},
};

/* Finds 'key': in the header dict and returns a pointer after the colon. */
static const char *find_key(const char *h, size_t n, const char *key) {
  size_t kl = strlen(key);
  for (size_t i = 0; i + kl + 2 <= n; i++)
    if ((h[i] == '\'' || h[i] == '"') && !memcmp(h + i + 1, key, kl) && h[i + 1 + kl] == h[i]) {
      const char *p = h + i + kl + 2;
      while (p < h + n && (*p == ' ' || *p == ':')) p++;
      return p < h + n ? p : NULL;
    }
  return NULL;
}

psg_status psg_tensor_parse_npy(psg_ctx *ctx, const void *bytes, size_t len, const char *name, psg_tensor **out) {
  *out = NULL;
  const unsigned char *b = bytes;
  if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0) return npy_error(ctx, PSG_ERR_PARSE, name, "not a .npy file (bad magic)");
  int major = b[6];
  size_t hlen, off;
  if (major == 1) {
    hlen = (size_t)b[8] | (size_t)b[9] << 8;
    off = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return npy_error(ctx, PSG_ERR_PARSE, name, "truncated header");
    hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    off = 12;
  } else {
    return npy_error(ctx, PSG_ERR_UNSUPPORTED, name, "unsupported .npy format version");
  }
  if (hlen > len - off) return npy_error(ctx, PSG_ERR_PARSE, name, "truncated header");
  const char *h = (const char *)b + off;
  const char *d = find_key(h, hlen, "descr"), *fo = find_key(h, hlen, "fortran_order"), *sh = find_key(h, hlen, "shape");
  if (!d || !fo || !sh) return npy_error(ctx, PSG_ERR_PARSE, name, "header lacks descr, fortran_order or shape");
  if (!strncmp(fo, "True", 4)) return npy_error(ctx, PSG_ERR_UNSUPPORTED, name, "Fortran-ordered arrays are not supported");
  if (strncmp(fo, "False", 5)) return npy_error(ctx, PSG_ERR_PARSE, name, "fortran_order must be True or False");
  int dtype = 0;
  if (*d != '\'' && *d != '"') return npy_error(ctx, PSG_ERR_PARSE, name, "descr must be a string");
  for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types; i++)
    if ((size_t)(h + hlen - d) > 4 && !memcmp(d + 1, npy_types[i].descr, 3) && d[4] == d[0]) dtype = npy_types[i].dtype;
  if (!dtype) {
    if ((size_t)(h + hlen - d) > 2 && d[1] == '>') return npy_error(ctx, PSG_ERR_UNSUPPORTED, name, "big-endian data is not supported");
    size_t dl = 1;
    while (d + dl < h + hlen && d[dl] != d[0] && dl < 16) dl++;
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_UNSUPPORTED, name, 0, 0, NULL, 0, NULL,
                         "unsupported dtype %.*s", (int)dl + (d + dl < h + hlen), d);
  }
  if (*sh != '(') return npy_error(ctx, PSG_ERR_PARSE, name, "shape must be a tuple");
  int64_t shape[PSG_MAX_RANK];
  int nd = 0;
  const char *p = sh + 1, *end = h + hlen;
  while (p < end && *p != ')') {
    while (p < end && *p == ' ') p++;
    if (p < end && *p == ')') break;
    char *e;
    errno = 0;
    long long v = strtoll(p, &e, 10);
    if (e == p || errno || v < 0 || e > end) return npy_error(ctx, PSG_ERR_PARSE, name, "bad dimension in shape");
    if (nd == PSG_MAX_RANK) return npy_error(ctx, PSG_ERR_UNSUPPORTED, name, "too many dimensions");
    shape[nd++] = v;
    p = e;
    while (p < end && (*p == ' ' || *p == 'L')) p++;
    if (p < end && *p == ',') p++;
  }
  if (p >= end) return npy_error(ctx, PSG_ERR_PARSE, name, "unterminated shape");
  if (!psgi_shape_fits(shape, nd, psg_dtype_size(dtype)))
    return npy_error(ctx, PSG_ERR_PARSE, name, "array too large (more than INT64_MAX bytes)");
  size_t nbytes = psg_dtype_size(dtype);
  for (int i = 0; i < nd; i++) nbytes *= (size_t)shape[i]; /* fits: checked just above */
  size_t data_off = off + hlen;
  if (len - data_off != nbytes) return npy_error(ctx, PSG_ERR_PARSE, name, "data size does not match the shape and dtype");
  return psg_tensor_create(ctx, dtype, shape, nd, b + data_off, out);
}

psg_status psg_tensor_read_npy(psg_ctx *ctx, const char *path, psg_tensor **out) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0, got;
  unsigned char *buf = psgi_alloc(ctx, cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      unsigned char *nb = psgi_realloc(ctx, buf, cap * 2);
      if (!nb) {
        psgi_free(ctx, buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  int read_errno = ferror(f) ? errno : 0; /* a directory reads as an error (EISDIR), not as 0 bytes */
  fclose(f);
  if (!buf) return psgi_nomem(ctx);
  if (read_errno) {
    psgi_free(ctx, buf);
    return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot read %s: %s", path, strerror(read_errno));
  }
  psg_status st = psg_tensor_parse_npy(ctx, buf, n, path, out);
  psgi_free(ctx, buf);
  return st;
}

psg_status psg_tensor_write_npy(psg_ctx *ctx, const psg_tensor *t, const char *path) {
  const char *descr = NULL;
  for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types && !descr; i++)
    if (npy_types[i].dtype == t->dtype) descr = npy_types[i].descr;
  if (t->dtype == PSG_DTYPE_BFLOAT16) descr = "<u2";
  if (!descr) return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "cannot write %s to .npy", psg_dtype_name(t->dtype));
  char header[512];
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < t->ndim; i++) n += snprintf(header + n, sizeof header - (size_t)n, "%lld,%s", (long long)t->shape[i], i + 1 < t->ndim ? " " : "");
  if (t->ndim > 1) n--; /* numpy writes (2, 3) but (5,) */
  n += snprintf(header + n, sizeof header - (size_t)n, "), }");
  /* Pad with spaces so that data starts at a multiple of 64, then '\n'. */
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
  size_t hlen = (size_t)n + pad + 1;
  pre[8] = (unsigned char)(hlen & 0xff);
  pre[9] = (unsigned char)(hlen >> 8);
  FILE *f = fopen(path, "wb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot create %s: %s", path, strerror(errno));
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
  for (size_t i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF && fwrite(t->data, 1, t->nbytes, f) == t->nbytes;
  ok = fclose(f) == 0 && ok;
  return ok ? PSG_OK : psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write %s", path);
}
