/* Passage — the pass cache's private interface (docs/pass-infra.md "Pass
 * cache", include/passage/pass_cache.h): the run of one function through
 * the cache (pass_cache.c), its key (pass_cache_key.c) and its entry files
 * (pass_cache_entry.c). */
#ifndef PSG_PASS_CACHE_INTERNAL_H
#define PSG_PASS_CACHE_INTERNAL_H

#include "pass/pass_internal.h"

/* The format of entries and keys: bump it when either changes, so that
 * entries written by another format are never read as this one's. */
enum { PSGI_PASS_CACHE_FORMAT = 2 };

/* Runs p's function callback on entry `e` of `mod` (e->func), through the
 * cache when passage.pass_cache names a directory and `p` is cacheable;
 * else calls the callback directly. Same contract as the callback. */
psg_status psgi_pass_cache_function(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                    const psgi_module_entry *e, psg_expr **out);
/* The same for a prim-func pass on entry `e` (e->prim). */
psg_status psgi_pass_cache_prim_func(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                     const psgi_module_entry *e, psg_tir_prim_func **out);

/* Appends to `key` the text naming one run of `p` on entry `e` of `mod`
 * under `pc`: the format and library build, the pass and its options, the
 * opt level and the config values that can change a result, the module's
 * properties, the global's name, hashes of the function's printed text
 * (`text`, `len`) and of the bytes of the constants it references (`meta`),
 * and the signature of every global it refers to. *keyable false (nothing to look
 * up) when the function calls an op registered at run time or the module
 * has type definitions: their behaviour is not in the text. */
psg_status psgi_pass_cache_key(psg_pass *p, const psg_module *mod, psg_pass_context *pc,
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
