/* Passage — the strided copy that every data-moving kernel of the transform
 * family goes through (transpose, slices, concatenation, tiling, layouts are
 * all "copy this n-d view"), and the family's attribute readers. */
#include <stdio.h>
#include "ops/transform.h"

/* Merges adjacent axes that both sides walk contiguously, so that reshapes,
 * concatenation blocks and the like turn into a few long memcpy runs. */
static int coalesce(const int64_t *dims, int ndim, const int64_t *ds, const int64_t *ss, int64_t *od, int64_t *ods,
                    int64_t *oss) {
  int n = 0;
  for (int i = 0; i < ndim; i++) {
    if (dims[i] == 1) continue; /* an extent-1 axis never moves either side */
    if (n && ods[n - 1] == ds[i] * dims[i] && oss[n - 1] == ss[i] * dims[i]) {
      od[n - 1] *= dims[i];
      ods[n - 1] = ds[i];
      oss[n - 1] = ss[i];
      continue;
    }
    od[n] = dims[i];
    ods[n] = ds[i];
    oss[n] = ss[i];
    n++;
  }
  return n;
}

static void copy_row(char *d, int64_t dstep, const char *s, int64_t sstep, int64_t n, size_t esize) {
  if (dstep == 1 && sstep == 1) {
    memcpy(d, s, (size_t)n * esize);
    return;
  }
  int64_t db = dstep * (int64_t)esize, sb = sstep * (int64_t)esize;
  /* Fixed-size memcpy compiles to one load and store per element. */
  switch (esize) {
  case 1:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * db, s + k * sb, 1);
    break;
  case 2:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * db, s + k * sb, 2);
    break;
  case 4:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * db, s + k * sb, 4);
    break;
  case 8:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * db, s + k * sb, 8);
    break;
  default:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * db, s + k * sb, esize);
    break;
  }
}

/* A transposing block: rows r < nr advance the source by 1 and the
 * destination by dr; columns c < nc advance the destination by 1 and the
 * source by sc. Copied in square tiles, so the lines of both sides are
 * reused from cache (row by row, one side would stride through memory). */
enum { TILE = 32 };
#define TILED(T)                                                                      \
  for (int64_t r0 = 0; r0 < nr; r0 += TILE)                                           \
    for (int64_t c0 = 0; c0 < nc; c0 += TILE) {                                       \
      int64_t r1 = r0 + TILE < nr ? r0 + TILE : nr, c1 = c0 + TILE < nc ? c0 + TILE : nc; \
      for (int64_t r = r0; r < r1; r++)                                               \
        for (int64_t c = c0; c < c1; c++) memcpy(d + (r * dr + c) * T, s + (r + c * sc) * T, T); \
    }
static void copy_tiled(char *d, int64_t dr, const char *s, int64_t sc, int64_t nr, int64_t nc, size_t esize) {
  switch (esize) {
  case 1: TILED(1) break;
  case 2: TILED(2) break;
  case 4: TILED(4) break;
  case 8: TILED(8) break;
  default: TILED((int64_t)esize) break;
  }
}
#undef TILED

void psgi_strided_copy(const int64_t *dims, int ndim, size_t esize, void *dst, int64_t dst_off,
                       const int64_t *dst_strides, const void *src, int64_t src_off, const int64_t *src_strides) {
  int64_t d[PSGI_COPY_MAX_RANK], ds[PSGI_COPY_MAX_RANK], ss[PSGI_COPY_MAX_RANK], idx[PSGI_COPY_MAX_RANK];
  for (int i = 0; i < ndim; i++)
    if (dims[i] == 0) return;
  int n = coalesce(dims, ndim, dst_strides, src_strides, d, ds, ss);
  char *dp = (char *)dst;
  const char *sp = (const char *)src;
  if (n == 0) {
    memcpy(dp + dst_off * (int64_t)esize, sp + src_off * (int64_t)esize, esize);
    return;
  }
  int last = n - 1, inner = 1;
  /* A transpose: the destination runs along the last axis, the source along
   * another one (p), both long enough to tile. Move p next to the last axis;
   * the loop below then walks the other axes and copies tiles. */
  if (n >= 2 && ds[last] == 1 && ss[last] != 1 && d[last] >= 8) {
    int p = last - 1;
    while (p >= 0 && ss[p] != 1) p--;
    if (p >= 0 && d[p] >= 8) {
      int64_t td = d[p], tds = ds[p], tss = ss[p];
      for (int i = p; i < last - 1; i++) {
        d[i] = d[i + 1];
        ds[i] = ds[i + 1];
        ss[i] = ss[i + 1];
      }
      d[last - 1] = td;
      ds[last - 1] = tds;
      ss[last - 1] = tss;
      inner = 2;
    }
  }
  int outer = n - inner;
  for (int i = 0; i < n; i++) idx[i] = 0;
  for (;;) {
    if (inner == 2)
      copy_tiled(dp + dst_off * (int64_t)esize, ds[last - 1], sp + src_off * (int64_t)esize, ss[last], d[last - 1],
                 d[last], esize);
    else
      copy_row(dp + dst_off * (int64_t)esize, ds[last], sp + src_off * (int64_t)esize, ss[last], d[last], esize);
    int i = outer - 1;
    for (; i >= 0; i--) {
      dst_off += ds[i];
      src_off += ss[i];
      if (++idx[i] < d[i]) break;
      dst_off -= ds[i] * d[i];
      src_off -= ss[i] * d[i];
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

const char *psgi_tf_name(const psgi_op_call *call) { return psgi_op_table[call->op].name; }

psg_status psgi_tf_axis(psgi_op_call *call, int64_t axis, int ndim, int *out) {
  psg_status st = psgi_norm_axis(call, axis, ndim, out);
  if (st) {
    char m[sizeof call->msg];
    memcpy(m, call->msg, sizeof m);
    return psgi_op_fail(call, st, "%s: %s", psgi_tf_name(call), m);
  }
  return PSG_OK;
}

bool psgi_tf_attr_is_none(const psgi_op_call *call, const char *key) {
  psg_attr *v = psg_attrs_get(call->attrs, key);
  return !v || psg_attr_kind(v) == PSG_ATTR_NONE;
}

psg_status psgi_tf_ints(psgi_op_call *call, const char *key, int64_t *out, int max, int *n) {
  *n = 0;
  if (psgi_tf_attr_is_none(call, key)) return PSG_OK;
  int k = psgi_attr_ints(call->attrs, key, out, max);
  if (k < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: attribute '%s' must be a list of at most %d integers",
                        psgi_tf_name(call), key, max);
  *n = k;
  return PSG_OK;
}

int psgi_tf_dtype_attr(const psgi_op_call *call, const char *key, int dflt) {
  const char *s = psgi_attr_str(call->attrs, key, NULL);
  if (!s || !*s) return dflt;
  return psg_dtype_from_name(s, strlen(s));
}

const char *psgi_tf_list_str(const int64_t *v, int n, char *buf, size_t len) {
  size_t at = 0;
  if (!len) return buf;
  buf[0] = 0;
  for (int i = 0; i <= n; i++) {
    int k;
    if (i == n)
      k = snprintf(buf + at, len - at, n == 0 ? "()" : n == 1 ? ",)" : ")");
    else
      k = snprintf(buf + at, len - at, "%s%lld", i ? ", " : "(", (long long)v[i]);
    if (k < 0 || (size_t)k >= len - at) break;
    at += (size_t)k;
  }
  return buf;
}

const psg_tensor *psgi_tf_arg(psgi_value *const *args, size_t i) { return psgi_value_as_tensor(args[i]); }
