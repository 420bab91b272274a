/* Passage — pass-cache entry files (docs/pass-infra.md "Pass cache"). One
 * file per key, named after the key's hash:
 *
 *   passage-pass-cache-entry 2
 *   key LEN\n<LEN bytes>\n
 *   input LEN\n<LEN bytes>\n     the function as text, constants as meta[relay.Constant][i]
 *   tensors N\n                  then N times: tensor DTYPE NDIM D0 .. NBYTES\n<raw bytes>\n
 *   output LEN\n<LEN bytes>\n    or "output same\n" (the pass returned its input, and no
 *   tensors M\n                  tensors line): M times a tensor as above or "ref K\n",
 *                                the input's constant K
 *   end <xxHash64 (psgi_hash_bytes) of every byte before "end", 16 hex digits>\n
 *
 * Constants are raw bytes, not text: comparing and reusing them costs a
 * memcmp, where base64 text would cost more than most passes. Written to a
 * temporary file and renamed into place, so a reader sees a whole entry or
 * none, whatever runs write concurrently; lengths and the checksum catch a
 * file truncated or damaged afterwards. An entry is read into libc memory,
 * not the context's pool: a buffer of tens of KiB made and dropped per
 * function would make the pool map and unmap chunks. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pass/pass_cache.h"

static const char magic[] = "passage-pass-cache-entry 2\n";

/* Reading ------------------------------------------------------------------ */

typedef struct cursor {
  char *p, *end;
} cursor;

static bool take_word(cursor *c, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(c->end - c->p) < n + 1 || memcmp(c->p, w, n) || c->p[n] != ' ') return false;
  c->p += n + 1;
  return true;
}

/* A decimal number followed by `stop` (' ' or '\n'). */
static bool take_number(cursor *c, char stop, long long lo, long long hi, long long *out) {
  char *q = c->p;
  bool neg = q < c->end && *q == '-';
  q += neg;
  long long v = 0;
  if (q >= c->end || *q < '0' || *q > '9') return false;
  for (; q < c->end && *q >= '0' && *q <= '9'; q++) {
    if (v > (LLONG_MAX - 9) / 10) return false;
    v = v * 10 + (*q - '0');
  }
  if (q >= c->end || *q != stop) return false;
  v = neg ? -v : v;
  if (v < lo || v > hi) return false;
  *out = v;
  c->p = q + 1;
  return true;
}

/* `n` bytes then '\n': the bytes, NUL-terminated in place. */
static bool take_bytes(cursor *c, size_t n, const char **out) {
  if ((size_t)(c->end - c->p) < n + 1 || c->p[n] != '\n') return false;
  c->p[n] = 0;
  *out = c->p;
  c->p += n + 1;
  return true;
}

/* "NAME LEN\n<LEN bytes>\n". */
static bool take_block(cursor *c, const char *name, const char **text, size_t *len) {
  long long n;
  if (!take_word(c, name) || !take_number(c, '\n', 0, c->end - c->p, &n)) return false;
  *len = (size_t)n;
  return take_bytes(c, (size_t)n, text);
}

static bool take_tensors(cursor *c, size_t n_in, psgi_cache_tensor **out, size_t *n) {
  long long count;
  if (!take_word(c, "tensors") || !take_number(c, '\n', 0, (c->end - c->p) / 4, &count)) return false;
  psgi_cache_tensor *ts = calloc((size_t)(count ? count : 1), sizeof *ts);
  if (!ts) return false;
  *out = ts;
  *n = (size_t)count;
  for (long long i = 0; i < count; i++) {
    psgi_cache_tensor *t = &ts[i];
    long long v, dtype, ndim, nbytes;
    if (take_word(c, "ref")) {
      if (!take_number(c, '\n', 0, (long long)n_in - 1, &v)) return false;
      t->ref = (int)v;
      continue;
    }
    t->ref = -1;
    if (!take_word(c, "tensor") || !take_number(c, ' ', 0, 1 << 20, &dtype) ||
        !take_number(c, ' ', 0, PSGI_CACHE_MAX_NDIM, &ndim))
      return false;
    t->dtype = (int)dtype, t->ndim = (int)ndim;
    for (long long d = 0; d < ndim; d++)
      if (!take_number(c, ' ', 0, LLONG_MAX, &v)) return false;
      else t->shape[d] = v;
    if (!take_number(c, '\n', 0, c->end - c->p, &nbytes)) return false;
    if (!take_bytes(c, (size_t)nbytes, (const char **)&t->data)) return false;
    t->nbytes = (size_t)nbytes;
  }
  return true;
}

/* The end line first (the checksum of every byte before it), then the
 * blocks, which must fill exactly the bytes the checksum covers. */
static int parse(psgi_cache_entry *out, size_t size, const char **why) {
  enum { END_LEN = sizeof "end 0123456789abcdef\n" - 1 };
  if (size < sizeof magic - 1 || memcmp(out->data, magic, sizeof magic - 1))
    return *why = "not a pass-cache entry of this format", PSGI_ENTRY_CORRUPT;
  char want[END_LEN + 1];
  size_t covered = size >= END_LEN ? size - END_LEN : 0;
  snprintf(want, sizeof want, "end %016llx\n", (unsigned long long)psgi_hash_bytes(out->data, covered));
  if (size < END_LEN || memcmp(out->data + covered, "end ", 4))
    return *why = "truncated (no end line)", PSGI_ENTRY_CORRUPT;
  if (memcmp(out->data + covered, want, END_LEN)) return *why = "checksum mismatch", PSGI_ENTRY_CORRUPT;
  cursor c = {out->data + sizeof magic - 1, out->data + covered};
  if (!take_block(&c, "key", &out->key, &out->key_len)) return *why = "damaged key", PSGI_ENTRY_CORRUPT;
  if (!take_block(&c, "input", &out->input, &out->input_len)) return *why = "damaged input", PSGI_ENTRY_CORRUPT;
  if (!take_tensors(&c, 0, &out->in, &out->n_in))
    return *why = "damaged input constants", PSGI_ENTRY_CORRUPT;
  out->same = (size_t)(c.end - c.p) >= 12 && !memcmp(c.p, "output same\n", 12);
  if (out->same) c.p += 12;
  else if (!take_block(&c, "output", &out->output, &out->output_len) ||
           !take_tensors(&c, out->n_in, &out->out, &out->n_out))
    return *why = "damaged output", PSGI_ENTRY_CORRUPT;
  if (c.p != c.end) return *why = "trailing bytes after the output", PSGI_ENTRY_CORRUPT;
  return PSGI_ENTRY_FOUND;
}

int psgi_cache_entry_read(const char *path, psgi_cache_entry *out, const char **why) {
  memset(out, 0, sizeof *out);
  *why = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) return PSGI_ENTRY_ABSENT;
    return *why = "cannot be opened", PSGI_ENTRY_CORRUPT;
  }
  struct stat sb;
  int r = PSGI_ENTRY_CORRUPT;
  if (fstat(fileno(f), &sb) != 0 || sb.st_size < 0) {
    *why = "cannot be read";
  } else if (!(out->data = malloc((size_t)sb.st_size + 1))) {
    *why = "out of memory";
  } else if (fread(out->data, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
    *why = "cannot be read";
  } else {
    out->data[sb.st_size] = 0;
    r = parse(out, (size_t)sb.st_size, why);
  }
  fclose(f);
  if (r != PSGI_ENTRY_FOUND) psgi_cache_entry_free(out);
  return r;
}

void psgi_cache_entry_free(psgi_cache_entry *e) {
  free(e->data);
  free(e->in);
  free(e->out);
  memset(e, 0, sizeof *e);
}

/* Writing ------------------------------------------------------------------ */

/* mkdir -p: every missing directory of `dir`. */
static bool make_dirs(const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) == 0) return S_ISDIR(sb.st_mode) || (errno = ENOTDIR, false);
  size_t n = strlen(dir);
  char *path = malloc(n + 1);
  if (!path) return false;
  memcpy(path, dir, n + 1);
  bool ok = true;
  for (size_t i = 1; ok && i <= n; i++) {
    if (path[i] != '/' && path[i] != 0) continue;
    char saved = path[i];
    path[i] = 0;
    ok = mkdir(path, 0777) == 0 || errno == EEXIST;
    path[i] = saved;
  }
  free(path);
  return ok && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A growable byte buffer on libc (the writer has no context). */
typedef struct out_buf {
  char *data;
  size_t len, cap;
  bool failed;
} out_buf;

static void put(out_buf *b, const void *s, size_t n) {
  if (b->failed || !n) return; /* an empty tensor's data may be NULL */
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
      b->failed = true;
      return;
    }
    b->data = d, b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

static void put_str(out_buf *b, const char *s) { put(b, s, strlen(s)); }

static void put_num(out_buf *b, long long v, char stop) {
  char num[32];
  int n = snprintf(num, sizeof num, "%lld%c", v, stop);
  put(b, num, (size_t)n);
}

static void put_block(out_buf *b, const char *name, const char *text, size_t len) {
  put_str(b, name);
  put_str(b, " ");
  put_num(b, (long long)len, '\n');
  put(b, text, len);
  put(b, "\n", 1);
}

static void put_tensor(out_buf *b, const psg_tensor *t) {
  put_str(b, "tensor ");
  put_num(b, psg_tensor_dtype(t), ' ');
  put_num(b, psg_tensor_ndim(t), ' ');
  for (int d = 0; d < psg_tensor_ndim(t); d++) put_num(b, psg_tensor_dim(t, d), ' ');
  put_num(b, (long long)psg_tensor_nbytes(t), '\n');
  put(b, psg_tensor_data(t), psg_tensor_nbytes(t));
  put(b, "\n", 1);
}

static void put_tensors(out_buf *b, psg_tensor *const *ts, size_t n, psg_tensor *const *in, size_t n_in) {
  put_str(b, "tensors ");
  put_num(b, (long long)n, '\n');
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < n_in && in[k] != ts[i]) k++;
    if (k < n_in) {
      put_str(b, "ref ");
      put_num(b, (long long)k, '\n');
    } else {
      put_tensor(b, ts[i]);
    }
  }
}

bool psgi_cache_entry_write(const char *dir, const char *path, const psgi_cache_write *w) {
  for (size_t i = 0; i < w->n_in + w->n_out; i++) {
    const psg_tensor *t = i < w->n_in ? w->in[i] : w->out[i - w->n_in];
    if (psg_tensor_ndim(t) > PSGI_CACHE_MAX_NDIM) return errno = EINVAL, false;
  }
  if (!make_dirs(dir)) return false;
  out_buf b = {0};
  put_str(&b, magic);
  put_block(&b, "key", w->key, w->key_len);
  put_block(&b, "input", w->input, w->input_len);
  put_tensors(&b, w->in, w->n_in, NULL, 0);
  if (w->output) {
    put_block(&b, "output", w->output, w->output_len);
    put_tensors(&b, w->out, w->n_out, w->in, w->n_in);
  } else {
    put_str(&b, "output same\n");
  }
  char end[32];
  if (!b.failed) snprintf(end, sizeof end, "end %016llx\n", (unsigned long long)psgi_hash_bytes(b.data, b.len));
  if (!b.failed) put_str(&b, end);
  size_t n = strlen(dir);
  char *tmp = malloc(n + sizeof "/.tmp-XXXXXX");
  bool ok = !b.failed && tmp;
  int fd = -1, err = ENOMEM;
  if (ok) {
    snprintf(tmp, n + sizeof "/.tmp-XXXXXX", "%s/.tmp-XXXXXX", dir);
    fd = mkstemp(tmp);
    ok = fd >= 0;
    err = errno;
  }
  for (size_t done = 0; ok && done < b.len;) {
    ssize_t got = write(fd, b.data + done, b.len - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) ok = false, err = errno;
    else done += (size_t)got;
  }
  if (fd >= 0 && close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(tmp, path) != 0) ok = false, err = errno;
  if (!ok && fd >= 0) unlink(tmp);
  free(tmp);
  free(b.data);
  errno = err;
  return ok;
}
