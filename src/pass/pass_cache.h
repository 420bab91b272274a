/* Passage — the pass cache's private interface (docs/pass-infra.md "Pass
 * cache", include/passage/pass_cache.h): the run of one function through
 * the cache (pass_cache.c), of a chain of passes over every function
 * (pass_cache_chain.c), their keys (pass_cache_key.c) and their entry files
 * (pass_cache_entry.c). */
#ifndef PSG_PASS_CACHE_INTERNAL_H
#define PSG_PASS_CACHE_INTERNAL_H

#include "pass/pass_internal.h"

/* The format of entries and keys: bump it when either changes, so that
 * entries written by another format are never read as this one's. */
enum { PSGI_PASS_CACHE_FORMAT = 3 };

/* Runs p's function callback on entry `e` of `mod` (e->func), through the
 * cache when passage.pass_cache names a directory and `p` is cacheable;
 * else calls the callback directly. Same contract as the callback. */
psg_status psgi_pass_cache_function(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                    const psgi_module_entry *e, psg_expr **out);
/* The same for a prim-func pass on entry `e` (e->prim). */
psg_status psgi_pass_cache_prim_func(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                     const psgi_module_entry *e, psg_tir_prim_func **out);

/* A run of consecutive children of Sequential `seq` from child *i on, when
 * the cache takes them as one chain (pass_cache_chain.c): *handled true,
 * *mod replaced by the result and *i moved past the chain; else *handled
 * false and *mod may have been typed as the first child would have typed
 * it (then *i is the chain's end: the children up to it run one by one). */
psg_status psgi_pass_cache_chain(psg_pass *seq, size_t *i, psg_module **mod, psg_pass_context *pc, bool *handled);

/* A function as the cache stores it: its text, and the constants the text
 * references by index (borrowed from the function; Relay only). */
typedef struct psgi_printed {
  char *text;
  size_t len;
  psg_tensor **meta;
  size_t nmeta;
} psgi_printed;
void psgi_printed_free(psg_ctx *ctx, psgi_printed *p);

/* The two kinds of function, seen through one interface. */
typedef struct psgi_fn_kind {
  psg_status (*print)(const void *fn, psgi_printed *out);
  psg_status (*parse)(psg_ctx *ctx, const char *text, size_t len, const char *file, psg_tensor *const *meta,
                      size_t nmeta, void **out);
  psg_status (*run)(psg_pass *p, psg_module *mod, psg_pass_context *pc, const psgi_module_entry *e, void **out);
  bool (*is_result)(const void *fn); /* a result worth storing */
  bool (*equal)(const void *a, const void *b); /* structural equality */
  void (*retain)(void *fn);
  void (*release)(void *fn);
} psgi_fn_kind;
extern const psgi_fn_kind psgi_cache_relay;

/* The directory passage.pass_cache names, or NULL (no cache). */
const char *psgi_pass_cache_dir(psg_pass_context *pc);
/* Adds one to count `which`; returns the count before. */
uint64_t psgi_pass_cache_count(psg_pass_context *pc, int which);
/* Prints `fn` with the printer's diagnostics dropped. */
psg_status psgi_cache_quiet_print(psg_ctx *ctx, const psgi_fn_kind *k, const void *fn, psgi_printed *out);
/* "DIR/<hash of key>.entry" into `path`. */
psg_status psgi_pass_cache_entry_path(psg_ctx *ctx, const char *dir, const psgi_buf *key, psgi_buf *path);
/* The result stored at `path` for `key` and input `in` (printed from
 * `self`): true and *out (retained) on a hit; false for a miss (absent,
 * stale, or unusable with a warning naming `p` and @`name`). */
bool psgi_cache_lookup(psg_pass *p, psg_pass_context *pc, const psgi_fn_kind *k, const char *path,
                       const psgi_buf *key, const psgi_printed *in, void *self, const char *name, void **out);
/* Stores `result`, computed from `self` (printed as `in`), under `key` at
 * `path` in `dir`, when its text reads back equal (else counted bypassed). */
void psgi_cache_store(psg_pass *p, psg_pass_context *pc, const psgi_fn_kind *k, const char *dir, const char *path,
                      const psgi_buf *key, const psgi_printed *in, const void *self, const void *result,
                      const char *name);

/* Appends to `key` the text naming one run of `steps` (the pass or chain
 * and options, a line each) on entry `e` of `mod`
 * under `pc`: the format and library build, the pass and its options, the
 * opt level and the config values that can change a result, the module's
 * properties, the global's name, hashes of the function's printed text
 * (`text`, `len`) and of the bytes of the constants it references (`meta`),
 * and the signature of every global it refers to. *keyable false (nothing to look
 * up) when the function calls an op registered at run time or the module
 * has type definitions: their behaviour is not in the text. */
psg_status psgi_pass_cache_key(psg_ctx *ctx, const char *steps, const psg_module *mod, psg_pass_context *pc,
                               const psgi_module_entry *e, const char *text, size_t len,
                               psg_tensor *const *meta, size_t nmeta, psgi_buf *key, bool *keyable);

/* A constant of an entry: its bytes as stored, or (`ref` >= 0, outputs
 * only) the input constant it is. */
enum { PSGI_CACHE_MAX_NDIM = 16 }; /* a constant of higher rank is not stored */
typedef struct psgi_cache_tensor {
  int ref;
  int dtype, ndim;
  int64_t shape[PSGI_CACHE_MAX_NDIM];
  const void *data;
  size_t nbytes;
} psgi_cache_tensor;

/* One entry as stored: the key, the input function's text and constants,
 * and the output function's text and constants, or `same` when the pass
 * returned its input. Texts point into `data` (NUL-terminated each). */
typedef struct psgi_cache_entry {
  char *data;
  const char *key, *input, *output;
  size_t key_len, input_len, output_len;
  bool same;
  psgi_cache_tensor *in, *out;
  size_t n_in, n_out;
} psgi_cache_entry;

enum { PSGI_ENTRY_FOUND = 0, PSGI_ENTRY_ABSENT = 1, PSGI_ENTRY_CORRUPT = 2 };
/* Reads entry file `path`: PSGI_ENTRY_FOUND (the entry filled; free with
 * psgi_cache_entry_free), PSGI_ENTRY_ABSENT (no such file), or
 * PSGI_ENTRY_CORRUPT with *why saying what is wrong (truncated, bad
 * checksum, ...; a static string). Never fails otherwise: out of memory is
 * reported as corrupt ("out of memory"). */
int psgi_cache_entry_read(const char *path, psgi_cache_entry *out, const char **why);
void psgi_cache_entry_free(psgi_cache_entry *e);
/* What to write: the texts and the constants they reference (meta index
 * order). `output` NULL means "the pass returned its input"; an output
 * constant that is one of the input's (the same tensor) is stored as a
 * reference to it. */
typedef struct psgi_cache_write {
  const char *key, *input, *output;
  size_t key_len, input_len, output_len;
  psg_tensor *const *in, *const *out;
  size_t n_in, n_out;
} psgi_cache_write;
/* Writes an entry atomically: a temporary file in `dir` (made, with its
 * parents, if missing), renamed over `path`, so a reader sees the whole
 * entry or none. On failure returns false with errno set (EINVAL: a
 * constant of rank above PSGI_CACHE_MAX_NDIM). */
bool psgi_cache_entry_write(const char *dir, const char *path, const psgi_cache_write *w);

#endif
