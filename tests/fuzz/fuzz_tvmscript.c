/* libFuzzer target for the TVMScript parser and printer (issue 15): any
 * input parses or fails with diagnostics, never crashing, hanging or
 * leaking; a script that parses prints, the printed text parses to
 * structurally equal PrimFuncs with equal hashes, and printing those gives
 * the same text again (print is a fixed point). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"

enum { MAX_INPUT = 1 << 16 };

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_tvmscript: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort(); /* test code: libFuzzer records the input as a crash */
}

static void dump_diags(psg_ctx *ctx) {
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return 0;
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) fail("cannot create a context", NULL);
  psg_tir_script *s = NULL, *s2 = NULL;
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  psg_status st = psg_tir_script_parse(ctx, (const char *)data, size, "fuzz.py", &s);
  if (st) {
    if (s) fail("a failed parse returned a script", NULL);
    if (st != PSG_ERR_PARSE) fail("a failed parse did not return PSG_ERR_PARSE", psg_status_str(st));
    if (psg_ctx_diag_count(ctx) == 0) fail("a failed parse left no diagnostic", NULL);
    goto done;
  }
  if (psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &text, &len)) {
    dump_diags(ctx);
    fail("a parsed script does not print", NULL);
  }
  if (strlen(text) != len) fail("printed text has an embedded NUL", NULL);
  if (psg_tir_script_parse(ctx, text, len, "printed.py", &s2)) {
    fputs(text, stderr);
    dump_diags(ctx);
    fail("printed text does not parse", NULL);
  }
  if (psg_tir_script_count(s) != psg_tir_script_count(s2)) fail("the number of functions changed", NULL);
  for (size_t i = 0; i < psg_tir_script_count(s); i++) {
    char *path = NULL;
    psg_tir_prim_func *a = psg_tir_script_get(s, i), *b = psg_tir_script_get(s2, i);
    if (strcmp(psg_tir_script_name(s, i), psg_tir_script_name(s2, i))) fail("a function name changed", NULL);
    /* Free vars (`n = T.int32()` with no binding) are new objects in the
     * copy: they pair up as TVM's round-trip tests pair them
     * (map_free_vars=True). */
    if (!psg_tir_structural_equal_ex(a, b, true, &path)) {
      fputs(text, stderr);
      fail("parse(print(f)) differs from f at", path);
    }
    psg_free(path);
    if (psg_tir_structural_hash(a) != psg_tir_structural_hash(b)) fail("equal functions hash differently", NULL);
  }
  if (psg_tir_script_print(s2, PSG_TIR_SCRIPT_DEFAULT, &text2, &len2)) fail("a re-parsed script does not print", NULL);
  if (len != len2 || memcmp(text, text2, len)) {
    fprintf(stderr, "--- first print\n%s--- second print\n%s", text, text2);
    fail("printing is not a fixed point", NULL);
  }
done:
  psg_free(text);
  psg_free(text2);
  psg_tir_script_release(s);
  psg_tir_script_release(s2);
  psg_ctx_release(ctx);
  return 0;
}
