/* Passage — the key of a pass-cache entry (docs/pass-infra.md "Pass
 * cache"): everything a cacheable pass's result on one function may depend
 * on, as text. A cacheable pass (pass_cache.h) reads only the function, its
 * global name, the types of the globals it calls, its options and the
 * PassContext; the library build stands for the pass's own code. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include "ir/op_table.h"
#include "pass/pass_cache.h"

/* The file this code was loaded from (the shared library, or the program it
 * is linked into), by size and modification time: a rebuilt library is a
 * new build even when its version string is not. Found once per process
 * (dladdr and stat cost more than the rest of a key). */
static char build_line[512];
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

static void find_build(void) {
  Dl_info info;
  struct stat sb;
  int n = snprintf(build_line, sizeof build_line, "library %s", psg_version());
  if (n > 0 && (size_t)n < sizeof build_line && dladdr((void *)find_build, &info) && info.dli_fname &&
      stat(info.dli_fname, &sb) == 0)
    snprintf(build_line + n, sizeof build_line - (size_t)n, " %lld %lld.%09ld", (long long)sb.st_size,
             (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
}

static void append_build(psgi_buf *key) {
  pthread_once(&build_once, find_build);
  psgi_buf_puts(key, build_line);
  psgi_buf_putc(key, '\n');
}

/* Config keys that cannot change what a pass returns: the cache's own, the
 * thread count (the output is the serial run's) and the testing.* checks,
 * which act around the pass, not inside it. */
static bool is_result_neutral(const char *k) {
  return !strcmp(k, "passage.pass_cache") || !strcmp(k, "passage.num_threads") || !strncmp(k, "testing.", 8);
}

/* The config values set on `pc`, sorted by key (the order they were set in
 * does not matter). Unset options have their registered defaults, which
 * belong to the library build. */
static psg_status append_config(psg_ctx *ctx, psg_pass_context *pc, psgi_buf *key) {
  psg_attrs *cfg = psg_pass_context_get_config_dict(pc);
  size_t n = psg_attrs_count(cfg);
  size_t *order = psgi_alloc(ctx, (n ? n : 1) * sizeof *order);
  if (!order) return psgi_nomem(ctx);
  for (size_t i = 0; i < n; i++) { /* insertion sort: a handful of keys */
    size_t j = i;
    for (; j > 0 && strcmp(psg_attrs_key(cfg, order[j - 1]), psg_attrs_key(cfg, i)) > 0; j--) order[j] = order[j - 1];
    order[j] = i;
  }
  for (size_t i = 0; i < n; i++) {
    const char *k = psg_attrs_key(cfg, order[i]);
    if (is_result_neutral(k)) continue;
    psgi_buf_printf(key, "config %s=", k);
    psgi_format_value(key, psg_attrs_get_value(cfg, order[i]));
    psgi_buf_putc(key, '\n');
  }
  psgi_free(ctx, order);
  return PSG_OK;
}

/* The globals a Relay function refers to, in first-reference order, and
 * whether it uses an op registered at run time. */
typedef struct refs {
  psgi_map globals; /* name -> 1 */
  bool runtime_op, oom;
} refs;

static int collect_pre(psg_visitor *v, const psg_expr *e) {
  refs *r = v->user;
  if (e->kind == PSG_EXPR_OP && e->u.op >= psgi_op_table_len) {
    r->runtime_op = true;
    return PSG_VISIT_ABORT;
  }
  if (e->kind == PSG_EXPR_GLOBAL_VAR && !psgi_map_put_str(&r->globals, e->u.gvar.name, strlen(e->u.gvar.name), NULL)) {
    r->oom = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

/* What a caller can see of global `name`: a Relay function's checked type
 * (its whole structure when it has none yet), a PrimFunc's structure. */
static void append_callee(const psg_module *mod, const char *name, psgi_buf *key) {
  ptrdiff_t i = psg_module_find(mod, name);
  uint64_t h = 0;
  char what = '-'; /* not in the module */
  if (i >= 0) {
    const psgi_module_entry *c = &mod->entries[i];
    if (c->prim) what = 'p', h = psg_tir_structural_hash((const psg_tir_node *)c->prim);
    else if (c->func->checked_type) what = 't', h = psg_type_structural_hash(c->func->checked_type);
    else what = 'f', h = psg_expr_structural_hash(c->func);
  }
  psgi_buf_printf(key, "callee @%s %c%016llx\n", name, what, (unsigned long long)h);
}

static psg_status append_relay(psg_ctx *ctx, const psg_module *mod, const psg_expr *func, psgi_buf *key,
                               bool *keyable) {
  refs r = {.runtime_op = false, .oom = false};
  psgi_map_init(&r.globals, ctx);
  psg_visitor v = {collect_pre, NULL, &r};
  psg_status st = psg_visit(ctx, &v, func);
  if (!st && r.oom) st = psgi_nomem(ctx);
  *keyable = !st && !r.runtime_op;
  if (*keyable)
    for (size_t i = 0; i < r.globals.len; i++) append_callee(mod, (const char *)r.globals.entries[i].key, key);
  psgi_map_fini(&r.globals);
  return st;
}

/* A constant's bytes in the key: all of a small one; the two ends of a
 * large one. A hit compares the stored input constants with the function's
 * byte for byte anyway (pass_cache.c), so constants differing only in the
 * middle share an entry file and take turns in it (misses, never a wrong
 * hit), while a model's megabytes of weights are not hashed on every run. */
static uint64_t constant_fingerprint(const psg_tensor *t) {
  enum { END = 2048 };
  const char *d = psg_tensor_data(t);
  size_t n = psg_tensor_nbytes(t);
  if (n <= 2 * END) return psgi_hash_bytes(d, n);
  uint64_t ends[2] = {psgi_hash_bytes(d, END), psgi_hash_bytes(d + n - END, END)};
  return psgi_hash_bytes(ends, sizeof ends);
}

psg_status psgi_pass_cache_key(psg_ctx *ctx, const char *steps, const psg_module *mod, psg_pass_context *pc,
                               const psgi_module_entry *e, const char *text, size_t len,
                               psg_tensor *const *meta, size_t nmeta, psgi_buf *key, bool *keyable) {
  *keyable = false;
  /* Constructors and Match read the module's type definitions. */
  if (mod->ntypes) return PSG_OK;
  psgi_buf_printf(key, "passage-pass-cache %d\n", PSGI_PASS_CACHE_FORMAT);
  append_build(key);
  psgi_buf_puts(key, steps);
  psgi_buf_printf(key, "opt_level %d\n", psg_pass_context_opt_level(pc));
  psg_status st = append_config(ctx, pc, key);
  if (st) return st;
  psgi_buf_printf(key, "properties %u\nglobal @%s\n", psg_module_properties(mod), e->gv->u.gvar.name);
  /* The function by its canonical text: equal text is a structurally equal
   * function (the round trip), and unlike the in-memory structural hash the
   * text does not depend on which equal constants happen to be one node. */
  psgi_buf_printf(key, "function %zu %016llx\n", len, (unsigned long long)psgi_hash_bytes(text, len));
  for (size_t i = 0; i < nmeta; i++) /* the text names constants by index: their bytes count too */
    psgi_buf_printf(key, "constant %zu %016llx\n", psg_tensor_nbytes(meta[i]),
                    (unsigned long long)constant_fingerprint(meta[i]));
  if (e->prim) *keyable = true;
  else st = append_relay(ctx, mod, e->func, key, keyable);
  if (!st && key->failed) st = psgi_nomem(ctx);
  return st;
}
