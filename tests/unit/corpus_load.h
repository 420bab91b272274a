/* Passage — loading the PrimFunc corpora of the tests (tests/tir_corpus/
 * tir_corpus.c, tests/codegen/test_codegen_corpus.c): the TVMScript files of
 * a folder in name order, and a real model lowered as `passage opt -O3
 * --lower` lowers it (its LowerTE output and its tir.default_pipeline
 * output). Each failure is printed as one "FAIL ..." line on stdout and
 * counted in the return value. Header-only, like check.h. */
#ifndef PSG_TEST_CORPUS_LOAD_H
#define PSG_TEST_CORPUS_LOAD_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/onnx.h"
#include "passage/pass.h"
#include "passage/tvmscript.h"

/* The whole file at path, NUL-terminated (malloc'd; NULL if unreadable). */
static inline char *corpus_read_text(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  size_t got = s ? fread(s, 1, (size_t)n, fp) : 0;
  fclose(fp);
  if (s) s[got] = 0;
  *len = got;
  return s;
}

static inline int corpus_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Calls add(user, file, text, script) for every *.py of dir in name order
 * (script NULL when the file does not parse, which is also a failure). */
static inline int corpus_each_script(psg_ctx *ctx, const char *dir,
                              void (*add)(void *user, const char *file, const char *text, psg_tir_script *s),
                              void *user) {
  DIR *d = opendir(dir);
  if (!d) {
    printf("FAIL cannot open the corpus folder %s\n", dir);
    return 1;
  }
  int failures = 0;
  char *names[1024];
  size_t n = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL && n < 1024;) {
    size_t l = strlen(de->d_name);
    if (l > 3 && !strcmp(de->d_name + l - 3, ".py")) names[n++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, corpus_cmp_str);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t len = 0;
    char *text = corpus_read_text(path, &len);
    psg_tir_script *s = NULL;
    if (!text || psg_tir_script_parse(ctx, text, len, names[i], &s)) {
      const psg_diag *dg = psg_ctx_get_last_error(ctx);
      printf("FAIL corpus file %s does not parse: %s\n", path, dg ? psg_diag_rendered(dg) : "?");
      failures++;
    }
    add(user, names[i], text, s);
    psg_tir_script_release(s);
    free(text);
    free(names[i]);
  }
  return failures;
}

/* fn(file, f) for every PrimFunc of every *.py of dir, in name order; the
 * number of PrimFuncs through *nfuncs and the failures (as
 * corpus_each_script) returned. Inline: not every includer uses it. */
typedef struct corpus_func_walk {
  void (*fn)(const char *file, psg_tir_prim_func *f);
  size_t nfuncs;
} corpus_func_walk;

static inline void corpus_func_walk_script(void *user, const char *file, const char *text, psg_tir_script *s) {
  corpus_func_walk *w = user;
  (void)text;
  for (size_t k = 0; s && k < psg_tir_script_count(s); k++, w->nfuncs++) w->fn(file, psg_tir_script_get(s, k));
}

static inline int corpus_each_func(psg_ctx *ctx, const char *dir, void (*fn)(const char *file, psg_tir_prim_func *f),
                                   size_t *nfuncs) {
  corpus_func_walk w = {fn, 0};
  int failures = corpus_each_script(ctx, dir, corpus_func_walk_script, &w);
  *nfuncs = w.nfuncs;
  return failures;
}

static inline int corpus_run_spec(psg_ctx *ctx, const char *spec, psg_module *m, psg_pass_context *pc, psg_module **out) {
  psg_pass *p = NULL;
  psg_status st = psg_pipeline_parse(ctx, spec, &p);
  if (!st) st = psg_pass_run(p, m, pc, out);
  psg_pass_release(p);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    printf("FAIL %s: %s\n", spec, d ? psg_diag_message(d) : "?");
  }
  return st ? 1 : 0;
}

/* Imports the ONNX model at path (n "name=dims" input shapes) and lowers it
 * under a PassContext at opt level 3: *te after sequential(O3,LowerTE),
 * *low after tir.default_pipeline (each NULL when its step failed; the
 * caller releases both). *found is false, with no failure, when the file
 * is absent. */
static inline int corpus_lower_model(psg_ctx *ctx, const char *path, const char *const *shapes, size_t n, bool *found,
                              psg_module **te, psg_module **low) {
  *te = *low = NULL;
  FILE *fp = fopen(path, "rb");
  *found = fp != NULL;
  if (!fp) return 0;
  fclose(fp);
  int failures = 0;
  psg_onnx_import_opts o = {shapes, n, NULL};
  psg_module *m = NULL;
  psg_pass_context *pc = NULL;
  if (psg_pass_context_create(ctx, &pc) || psg_pass_context_set_opt_level(pc, 3) || psg_pass_context_enter(pc)) {
    printf("FAIL a PassContext for %s\n", path);
    psg_pass_context_release(pc);
    return 1;
  }
  if (psg_onnx_import_file(ctx, path, &o, &m)) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    printf("FAIL import %s: %s\n", path, d ? psg_diag_message(d) : "?");
    failures++;
  }
  if (m) failures += corpus_run_spec(ctx, "sequential(O3,LowerTE)", m, pc, te);
  if (*te) failures += corpus_run_spec(ctx, "tir.default_pipeline", *te, pc, low);
  if (psg_pass_context_exit(pc)) failures++;
  psg_pass_context_release(pc);
  psg_module_release(m);
  return failures;
}

#endif
