/* Passage — pass-cache entry files (docs/pass-infra.md "Pass cache"). One
 * file per key, named after the key's hash:
 *
 *   passage-pass-cache-entry 1
 *   key LEN\n<LEN bytes>\n
 *   input LEN\n<LEN bytes>\n         the function as text (the parsers read it)
 *   output LEN\n<LEN bytes>\n        or "output same\n": the pass returned its input
 *   end <xxHash64 (psgi_hash_bytes) of every byte before "end", 16 hex digits>\n
 *
 * Written to a temporary file and renamed into place, so a reader sees a
 * whole entry or none, whatever runs write concurrently; lengths and the
 * checksum catch a file truncated or damaged afterwards. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pass/pass_cache.h"

static const char magic[] = "passage-pass-cache-entry 1\n";


/* Reading ------------------------------------------------------------------ */

typedef struct cursor {
  char *p, *end;
} cursor;

/* "NAME LEN\n<LEN bytes>\n": the block, NUL-terminated in place. */
static bool take_block(cursor *c, const char *name, const char **text, size_t *len) {
  size_t nl = strlen(name);
  if ((size_t)(c->end - c->p) < nl + 2 || memcmp(c->p, name, nl) || c->p[nl] != ' ') return false;
  char *num = c->p + nl + 1, *stop = NULL;
  if (*num < '0' || *num > '9') return false;
  errno = 0;
  unsigned long long n = strtoull(num, &stop, 10);
  if (errno || stop >= c->end || *stop != '\n') return false;
  char *body = stop + 1;
  if (n > (unsigned long long)(c->end - body) || (size_t)(c->end - body) - n < 1 || body[n] != '\n') return false;
  body[n] = 0;
  *text = body;
  *len = (size_t)n;
  c->p = body + n + 1;
  return true;
}

static bool take_line(cursor *c, const char *line) {
  size_t n = strlen(line);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, line, n)) return false;
  c->p += n;
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
  out->same = take_line(&c, "output same\n");
  if (!out->same && !take_block(&c, "output", &out->output, &out->output_len))
    return *why = "damaged output", PSGI_ENTRY_CORRUPT;
  if (c.p != c.end) return *why = "trailing bytes after the output", PSGI_ENTRY_CORRUPT;
  return PSGI_ENTRY_FOUND;
}

int psgi_cache_entry_read(psg_ctx *ctx, const char *path, psgi_cache_entry *out, const char **why) {
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
  } else if (!(out->data = psgi_alloc(ctx, (size_t)sb.st_size + 1))) {
    *why = "out of memory";
  } else if (fread(out->data, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
    *why = "cannot be read";
  } else {
    out->data[sb.st_size] = 0;
    r = parse(out, (size_t)sb.st_size, why);
  }
  fclose(f);
  if (r != PSGI_ENTRY_FOUND) psgi_cache_entry_free(ctx, out);
  return r;
}

void psgi_cache_entry_free(psg_ctx *ctx, psgi_cache_entry *e) {
  psgi_free(ctx, e->data);
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

/* Appends "NAME LEN\n<text>\n" at *at. */
static char *put_block(char *at, const char *name, const char *text, size_t len) {
  at += sprintf(at, "%s %zu\n", name, len);
  memcpy(at, text, len);
  at[len] = '\n';
  return at + len + 1;
}

bool psgi_cache_entry_write(const char *dir, const char *path, const char *key, size_t key_len,
                            const char *input, size_t input_len, const char *output, size_t output_len) {
  if (!make_dirs(dir)) return false;
  /* The whole entry in memory first, to checksum it in one pass. */
  size_t cap = sizeof magic + 3 * 48 + key_len + input_len + (output ? output_len : 0) + 64;
  char *data = malloc(cap), *at = data;
  size_t n = strlen(dir);
  char *tmp = malloc(n + sizeof "/.tmp-XXXXXX");
  bool ok = data && tmp;
  int fd = -1, err = ENOMEM;
  if (ok) {
    at = (char *)memcpy(at, magic, sizeof magic - 1) + (sizeof magic - 1);
    at = put_block(at, "key", key, key_len);
    at = put_block(at, "input", input, input_len);
    if (output) at = put_block(at, "output", output, output_len);
    else at = (char *)memcpy(at, "output same\n", 12) + 12;
    at += sprintf(at, "end %016llx\n", (unsigned long long)psgi_hash_bytes(data, (size_t)(at - data)));
    snprintf(tmp, n + sizeof "/.tmp-XXXXXX", "%s/.tmp-XXXXXX", dir);
    fd = mkstemp(tmp);
    ok = fd >= 0;
    err = errno;
  }
  for (size_t done = 0, len = (size_t)(at - data); ok && done < len;) {
    ssize_t w = write(fd, data + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false, err = errno;
    else done += (size_t)w;
  }
  if (fd >= 0 && close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(tmp, path) != 0) ok = false, err = errno;
  if (!ok && fd >= 0) unlink(tmp);
  free(tmp);
  free(data);
  errno = err;
  return ok;
}
