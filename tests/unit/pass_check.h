/* Helpers for pass tests: parse Relay text, run a registered pass directly,
 * and compare the result structurally with the expected text (printing both
 * on a mismatch); check_pass also checks that a second run changes nothing. */
#ifndef PSG_TEST_PASS_CHECK_H
#define PSG_TEST_PASS_CHECK_H

#include <stdio.h>
#include <string.h>
#include "check.h"
#include "passage/passage.h"

#define HDR "#[version = \"0.0.5\"]\n"
#define T "Tensor[(2), float32]"

static inline psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  if (psg_module_parse(ctx, text, strlen(text), "test.relay", &m)) {
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  }
  return m;
}

static inline void print_module(const char *label, const psg_module *m) {
  char *text = NULL;
  if (m && !psg_module_print(m, PSG_PRINT_NO_METADATA, &text, NULL)) fprintf(stderr, "%s:\n%s", label, text);
  psg_free(text);
}

/* Runs pass `name` (with bool option `opt` set when not NULL) directly on `in`. */
static inline psg_module *run(psg_ctx *ctx, const char *name, const char *opt, psg_module *in) {
  psg_attrs *options = NULL;
  if (opt) {
    psg_attr *one;
    CHECK_OK(psg_attr_bool(ctx, true, &one));
    CHECK_OK(psg_attrs_create(ctx, &opt, &one, 1, &options));
    psg_attr_release(one);
  }
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(ctx, name, options, &p));
  if (p) CHECK_OK(psg_pass_run(p, in, NULL, &out));
  psg_pass_release(p);
  psg_attrs_release(options);
  return out;
}

/* Whether got is structurally want, or want with the annotations InferType
 * writes in (return types, variable types: passes that type their result
 * return it annotated, and expected texts are written without them). *path
 * (freed by the caller) is the first difference from the annotated want when
 * it types, else from want. */
static inline bool equal_modulo_inferred(psg_ctx *ctx, const psg_module *got, psg_module *want, char **path) {
  if (psg_module_structural_equal(got, want, path)) return true;
  psg_pass *p = NULL;
  psg_module *typed = NULL;
  bool eq = false;
  if (!psg_pass_get(ctx, "InferType", NULL, &p) && !psg_pass_run(p, want, NULL, &typed) && typed != want) {
    psg_free(*path);
    *path = NULL;
    eq = psg_module_structural_equal(got, typed, path);
  }
  psg_module_release(typed);
  psg_pass_release(p);
  return eq;
}

/* `in` through the pass is structurally `expected` (modulo the annotations
 * InferType writes in), and a second run changes nothing. */
static inline void check_pass(const char *name, const char *opt, const char *in, const char *expected) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, in), *want = parse(ctx, expected), *got = NULL, *again = NULL;
  CHECK(m && want);
  if (m && want) got = run(ctx, name, opt, m);
  if (got) {
    char *path = NULL;
    bool eq = equal_modulo_inferred(ctx, got, want, &path);
    CHECK(eq);
    if (!eq) {
      fprintf(stderr, "%s: first difference at %s\n", name, path ? path : "?");
      print_module("got", got);
      print_module("expected", want);
    }
    psg_free(path);
    /* Idempotent: a second run gives back every function as the very same
     * node (whether the module object is new is the pass manager's business). */
    again = run(ctx, name, opt, got);
    CHECK(again && psg_module_num_functions(again) == psg_module_num_functions(got));
    for (size_t i = 0; again && i < psg_module_num_functions(got); i++)
      CHECK(psg_module_get_function(again, i) == psg_module_get_function(got, i));
  }
  psg_module_release(again);
  psg_module_release(got);
  psg_module_release(want);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

#endif
