/* Passage — memoized function and prim-func passes (docs/pass-infra.md
 * "Pass cache", include/passage/pass_cache.h). With passage.pass_cache set
 * to a directory, a cacheable pass's callback on one function becomes:
 * key (pass_cache_key.c) -> entry file (pass_cache_entry.c) -> on a hit,
 * the stored result parsed back; on a miss, the callback, and its result
 * stored. A hit needs the whole key text and the function's printed text to
 * equal the stored ones: since parse(print(f)) is structurally equal to f
 * (the text round trip), equal text means a structurally equal input, so a
 * collision of the 64-bit file name is only a miss. Anything wrong with an
 * entry is a miss with a warning; nothing the cache does changes a result.
 * Called from the serial walk and from worker threads alike: entries are
 * whole files renamed into place and the counts are atomic. */
#include <errno.h>
#include <stdio.h>
#include "pass/pass_cache.h"
#include "passage/text.h"
#include "passage/tvmscript.h"
#include "text/text_internal.h"

typedef psgi_printed printed;
typedef psgi_fn_kind fn_kind;

enum { WRITE_FAILURES = 5 }; /* cache_counts slot: warn about the first only */

void psg_pass_set_cacheable(psg_pass *p, bool cacheable) {
  if (p) p->cacheable = cacheable;
}

bool psg_pass_is_cacheable(const psg_pass *p) {
  return p && p->cacheable && (p->kind == PSG_PASS_FUNCTION || p->kind == PSG_PASS_PRIM_FUNC);
}

uint64_t psg_pass_context_cache_count(const psg_pass_context *pc, int which) {
  if (!pc || which < PSG_PASS_CACHE_HITS || which > PSG_PASS_CACHE_BYPASSED) return 0;
  return __atomic_load_n(&pc->cache_counts[which], __ATOMIC_RELAXED);
}

uint64_t psgi_pass_cache_count(psg_pass_context *pc, int which) {
  return __atomic_fetch_add(&pc->cache_counts[which], 1, __ATOMIC_RELAXED);
}

const char *psgi_pass_cache_dir(psg_pass_context *pc) {
  psg_attr *v = psg_pass_context_get_config(pc, "passage.pass_cache");
  const char *d = v && psg_attr_kind(v) == PSG_ATTR_STRING ? psg_attr_get_string(v) : NULL;
  return d && *d ? d : NULL;
}

void psgi_printed_free(psg_ctx *ctx, printed *p) {
  psg_free(p->text);
  psgi_free(ctx, p->meta);
  memset(p, 0, sizeof *p);
}

/* Runs a printer or parser with its diagnostics dropped: the cache's own
 * failures are reported as one warning (or not at all), never as the
 * parser's errors. */
typedef struct quiet {
  psgi_diag_list *saved;
  bool capturing;
} quiet;

static psg_status quiet_begin(psg_ctx *ctx, quiet *q) {
  psg_status st = psgi_diag_capture_begin(ctx, &q->saved);
  q->capturing = !st;
  return st;
}

static void quiet_end(psg_ctx *ctx, quiet *q) {
  if (q->capturing) psgi_diag_capture_free(ctx, psgi_diag_capture_end(ctx, q->saved));
}

psg_status psgi_cache_quiet_print(psg_ctx *ctx, const fn_kind *k, const void *fn, printed *out) {
  quiet q;
  psg_status st = quiet_begin(ctx, &q);
  if (!st) st = k->print(fn, out);
  quiet_end(ctx, &q);
  return st;
}

static psg_status quiet_parse(psg_ctx *ctx, const fn_kind *k, const char *text, size_t len, const char *file,
                              psg_tensor *const *meta, size_t nmeta, void **out) {
  quiet q;
  psg_status st = quiet_begin(ctx, &q);
  if (!st) st = k->parse(ctx, text, len, file, meta, nmeta, out);
  quiet_end(ctx, &q);
  return st;
}

/* The stored input constants equal the function's, byte for byte. */
static bool same_constants(const psgi_cache_entry *en, const printed *in) {
  if (en->n_in != in->nmeta) return false;
  for (size_t i = 0; i < en->n_in; i++) {
    const psgi_cache_tensor *a = &en->in[i];
    const psg_tensor *b = in->meta[i];
    if (a->dtype != psg_tensor_dtype(b) || a->ndim != psg_tensor_ndim(b) || a->nbytes != psg_tensor_nbytes(b))
      return false;
    for (int d = 0; d < a->ndim; d++)
      if (a->shape[d] != psg_tensor_dim(b, d)) return false;
    if (a->nbytes && memcmp(a->data, psg_tensor_data(b), a->nbytes)) return false;
  }
  return true;
}

/* The stored output parsed back, its constants the input's (references)
 * or made from the stored bytes. */
static psg_status load_output(psg_ctx *ctx, const fn_kind *k, const psgi_cache_entry *en, const printed *in,
                              const char *path, void **out) {
  psg_tensor **meta = psgi_calloc(ctx, (en->n_out ? en->n_out : 1) * sizeof *meta);
  psg_status st = meta ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; !st && i < en->n_out; i++) {
    const psgi_cache_tensor *t = &en->out[i];
    if (t->ref >= 0) psg_tensor_retain(meta[i] = in->meta[t->ref]);
    else st = psg_tensor_create(ctx, t->dtype, t->shape, t->ndim, t->data, &meta[i]);
    if (!st && t->ref < 0 && psg_tensor_nbytes(meta[i]) != t->nbytes) st = PSG_ERR_PARSE;
  }
  if (!st) st = quiet_parse(ctx, k, en->output, en->output_len, path, meta, en->n_out, out);
  for (size_t i = 0; meta && i < en->n_out; i++) psg_tensor_release(meta[i]);
  psgi_free(ctx, meta);
  return st;
}

static void warn(psg_pass *p, const char *fmt, const char *path, const char *detail, const char *name) {
  psgi_diag_add(p->ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, p->info->name, fmt, path, detail, name);
}

/* A stored entry for `key` whose input is `in`: its result in *out
 * (true), or false for a miss (absent, stale, or corrupt with a warning). */
bool psgi_cache_lookup(psg_pass *p, psg_pass_context *pc, const fn_kind *k, const char *path, const psgi_buf *key,
                   const printed *in, void *self, const char *name, void **out) {
  psg_ctx *ctx = p->ctx;
  psgi_cache_entry en;
  const char *why = NULL;
  int r = psgi_cache_entry_read(path, &en, &why);
  if (r == PSGI_ENTRY_ABSENT) return false;
  if (r == PSGI_ENTRY_CORRUPT) {
    psgi_pass_cache_count(pc, PSG_PASS_CACHE_CORRUPT);
    warn(p, "pass cache entry %s is unusable (%s); recomputing @%s", path, why, name);
    return false;
  }
  bool hit = en.key_len == key->len && !memcmp(en.key, key->data, key->len) && en.input_len == in->len &&
             !memcmp(en.input, in->text, in->len) && same_constants(&en, in);
  if (hit && en.same) {
    k->retain(self);
    *out = self;
  } else if (hit && (load_output(ctx, k, &en, in, path, out) || !k->is_result(*out))) {
    if (*out) k->release(*out), *out = NULL;
    psgi_pass_cache_count(pc, PSG_PASS_CACHE_CORRUPT);
    warn(p, "pass cache entry %s is unusable (%s); recomputing @%s", path, "its output does not parse", name);
    hit = false;
  }
  psgi_cache_entry_free(&en);
  return hit;
}

/* True when `text` parses back to a function structurally equal to
 * `result`: the parsers are not always the printers' exact inverse (the
 * TVMScript parser folds `0 * 2 + 0` to `0`), and a hit must give what the
 * pass gave, so a result whose text does not read back is not stored. */
static bool reads_back(psg_ctx *ctx, const fn_kind *k, const printed *out, const void *result) {
  void *back = NULL;
  bool ok = !quiet_parse(ctx, k, out->text, out->len, NULL, out->meta, out->nmeta, &back) && back &&
            k->is_result(back) && k->equal(back, result);
  if (back) k->release(back);
  return ok;
}

/* Stores `result` (computed from `self`, printed as `in`) under `key`. */
void psgi_cache_store(psg_pass *p, psg_pass_context *pc, const fn_kind *k, const char *dir, const char *path,
                  const psgi_buf *key, const printed *in, const void *self, const void *result, const char *name) {
  printed out = {0};
  if (result != self && (psgi_cache_quiet_print(p->ctx, k, result, &out) || !reads_back(p->ctx, k, &out, result))) {
    psgi_printed_free(p->ctx, &out);
    psgi_pass_cache_count(pc, PSG_PASS_CACHE_BYPASSED);
    return;
  }
  psgi_cache_write w = {key->data, in->text, result == self ? NULL : out.text, key->len, in->len, out.len,
                        in->meta,  out.meta, in->nmeta, out.nmeta};
  bool ok = psgi_cache_entry_write(dir, path, &w);
  int err = errno;
  psgi_printed_free(p->ctx, &out);
  if (ok) {
    psgi_pass_cache_count(pc, PSG_PASS_CACHE_STORES);
  } else if (psgi_pass_cache_count(pc, WRITE_FAILURES) == 0) {
    warn(p, "cannot write to pass cache %s (%s); results are not stored (first at @%s)", dir, strerror(err), name);
  }
}

psg_status psgi_pass_cache_entry_path(psg_ctx *ctx, const char *dir, const psgi_buf *key, psgi_buf *path) {
  psgi_buf_printf(path, "%s/%016llx.entry", dir, (unsigned long long)psgi_hash_bytes(key->data, key->len));
  return path->failed ? psgi_nomem(ctx) : PSG_OK;
}

static psg_status cached_call(psg_pass *p, psg_module *mod, psg_pass_context *pc, const psgi_module_entry *e,
                              const fn_kind *k, void *self, void **out) {
  *out = NULL;
  const char *dir = psgi_pass_cache_dir(pc);
  /* Inside a chain's own run (pass_cache_chain.c) the chain is the unit. */
  if (!dir || !psg_pass_is_cacheable(p) || pc->cache_chain_runs) return k->run(p, mod, pc, e, out);
  psg_ctx *ctx = p->ctx;
  const char *name = e->gv->u.gvar.name;
  psgi_buf key, path;
  psgi_buf_init(&key, ctx);
  psgi_buf_init(&path, ctx);
  printed in = {0};
  bool keyable = false;
  psg_status st = PSG_OK;
  char steps[512];
  snprintf(steps, sizeof steps, "pass %s %s\n", p->kind == PSG_PASS_PRIM_FUNC ? "prim_func" : "function",
           p->spec ? p->spec : p->info->name);
  if (!psgi_cache_quiet_print(ctx, k, self, &in))
    st = psgi_pass_cache_key(ctx, steps, mod, pc, e, in.text, in.len, in.meta, in.nmeta, &key, &keyable);
  if (st || !keyable) {
    if (!st) psgi_pass_cache_count(pc, PSG_PASS_CACHE_BYPASSED), st = k->run(p, mod, pc, e, out);
    goto done;
  }
  if ((st = psgi_pass_cache_entry_path(ctx, dir, &key, &path)) != PSG_OK) goto done;
  if (psgi_cache_lookup(p, pc, k, path.data, &key, &in, self, name, out)) {
    psgi_pass_cache_count(pc, PSG_PASS_CACHE_HITS);
    goto done;
  }
  psgi_pass_cache_count(pc, PSG_PASS_CACHE_MISSES);
  /* Only a clean run is stored: a hit could not replay its warnings. */
  size_t diags = psg_ctx_diag_count(ctx);
  st = k->run(p, mod, pc, e, out);
  if (!st && *out && k->is_result(*out) && psg_ctx_diag_count(ctx) == diags)
    psgi_cache_store(p, pc, k, dir, path.data, &key, &in, self, *out, name);
done:
  psgi_printed_free(ctx, &in);
  psgi_buf_fini(&key);
  psgi_buf_fini(&path);
  return st;
}

/* Relay functions ---------------------------------------------------------- */

static psg_status relay_print(const void *fn, printed *out) {
  return psgi_expr_print_text_meta(fn, &out->text, &out->len, &out->meta, &out->nmeta);
}

static psg_status relay_parse(psg_ctx *ctx, const char *text, size_t len, const char *file, psg_tensor *const *meta,
                              size_t nmeta, void **out) {
  psg_expr *e = NULL;
  psg_status st = psgi_expr_parse_meta(ctx, text, len, file, meta, nmeta, &e);
  *out = e;
  return st;
}

static psg_status relay_run(psg_pass *p, psg_module *mod, psg_pass_context *pc, const psgi_module_entry *e,
                            void **out) {
  psg_expr *nf = NULL;
  psg_status st = p->fn.function(e->func, mod, pc, p->user, &nf);
  *out = nf;
  return st;
}

static bool relay_is_result(const void *fn) { return ((const psg_expr *)fn)->kind == PSG_EXPR_FUNCTION; }
static bool relay_equal(const void *a, const void *b) { return psg_expr_structural_equal(a, b); }
static void relay_retain(void *fn) { psg_expr_retain(fn); }
static void relay_release(void *fn) { psg_expr_release(fn); }

const psgi_fn_kind psgi_cache_relay = {relay_print,    relay_parse,  relay_run,    relay_is_result,
                               relay_equal,    relay_retain, relay_release};

psg_status psgi_pass_cache_function(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                    const psgi_module_entry *e, psg_expr **out) {
  void *r = NULL;
  psg_status st = cached_call(p, mod, pc, e, &psgi_cache_relay, e->func, &r);
  *out = r;
  return st;
}

/* PrimFuncs ------------------------------------------------------------------ */

static psg_status tir_print(const void *fn, printed *out) {
  return psg_tir_script_print_func(fn, NULL, PSG_TIR_SCRIPT_DEFAULT, &out->text, &out->len);
}

static psg_status tir_parse(psg_ctx *ctx, const char *text, size_t len, const char *file, psg_tensor *const *meta,
                            size_t nmeta, void **out) {
  (void)meta, (void)nmeta; /* TVMScript holds no metadata section */
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_parse(ctx, text, len, file, &s);
  *out = NULL;
  if (!st && psg_tir_script_count(s) == 1) {
    psg_tir_prim_func *f = psg_tir_script_get(s, 0);
    psg_tir_retain(f);
    *out = f;
  } else if (!st) {
    st = PSG_ERR_PARSE;
  }
  psg_tir_script_release(s);
  return st;
}

static psg_status tir_run(psg_pass *p, psg_module *mod, psg_pass_context *pc, const psgi_module_entry *e,
                          void **out) {
  psg_tir_prim_func *nf = NULL;
  psg_status st = p->fn.prim_func(e->prim, mod, pc, p->user, &nf);
  *out = nf;
  return st;
}

static bool tir_is_result(const void *fn) { return psg_tir_kind(fn) == PSG_TIR_PRIM_FUNC; }
static bool tir_equal(const void *a, const void *b) { return psg_tir_structural_equal(a, b); }
static void tir_retain(void *fn) { psg_tir_retain(fn); }
static void tir_release(void *fn) { psg_tir_release(fn); }

static const fn_kind tir = {tir_print, tir_parse, tir_run, tir_is_result, tir_equal, tir_retain, tir_release};

psg_status psgi_pass_cache_prim_func(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                     const psgi_module_entry *e, psg_tir_prim_func **out) {
  void *r = NULL;
  psg_status st = cached_call(p, mod, pc, e, &tir, e->prim, &r);
  *out = r;
  return st;
}
