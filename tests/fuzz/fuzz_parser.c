/* libFuzzer target for the Relay text parser (issue 2, STYLE rule 13): any
 * input must parse or fail with diagnostics, never crash or leak; a module
 * that parses must print, re-parse to a structurally equal module, and print
 * to the same text again (the printer's output is canonical). The same input
 * is also read as one expression (psg_expr_parse, issue 18): one that parses
 * must print as TVM's astext, re-parse equal (free variables paired) and
 * print the same again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"

/* Larger inputs only slow the fuzzer down; depth and size limits have their
 * own tests. */
enum { MAX_INPUT = 1 << 16 };

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_parser: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort(); /* test code: libFuzzer records the input as a crash */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_expr(psg_ctx *ctx, const uint8_t *data, size_t size) {
  psg_expr *e = NULL, *e2 = NULL;
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  psg_status st = psg_expr_parse(ctx, (const char *)data, size, "fuzz.relay", &e);
  if (st) {
    if (e) fail("a failed expression parse returned an expression", NULL);
    if (st != PSG_ERR_PARSE) fail("a failed expression parse did not return PSG_ERR_PARSE", psg_status_str(st));
    return;
  }
  if (psg_expr_print_text(e, PSG_PRINT_DEFAULT, &text, &len)) fail("a parsed expression does not print", NULL);
  if (psg_expr_parse(ctx, text, len, "printed.relay", &e2)) {
    fputs(text, stderr);
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
    fail("a printed expression does not parse", NULL);
  }
  char *path = NULL;
  if (!psg_expr_structural_equal_ex(e, e2, true, &path)) fail("parse_expr(print(e)) differs from e at", path);
  psg_free(path);
  if (psg_expr_print_text(e2, PSG_PRINT_DEFAULT, &text2, &len2)) fail("a re-parsed expression does not print", NULL);
  if (len != len2 || memcmp(text, text2, len)) {
    fprintf(stderr, "--- first print\n%s\n--- second print\n%s\n", text, text2);
    fail("expression printing is not idempotent", NULL);
  }
  psg_free(text);
  psg_free(text2);
  psg_expr_release(e);
  psg_expr_release(e2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return 0;
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) fail("cannot create a context", NULL);
  psg_module *m = NULL, *m2 = NULL;
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  psg_status st = psg_module_parse(ctx, (const char *)data, size, "fuzz.relay", &m);
  if (st) {
    if (m) fail("a failed parse returned a module", NULL);
    if (st != PSG_ERR_PARSE) fail("a failed parse did not return PSG_ERR_PARSE", psg_status_str(st));
    if (psg_ctx_diag_count(ctx) == 0) fail("a failed parse left no diagnostic", NULL);
    goto done;
  }
  if (psg_module_print(m, PSG_PRINT_DEFAULT, &text, &len)) fail("a parsed module does not print", NULL);
  if (strlen(text) != len) fail("printed text has an embedded NUL", NULL);
  if (psg_module_parse(ctx, text, len, "printed.relay", &m2)) {
    fputs(text, stderr);
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
    fail("printed text does not parse", NULL);
  }
  char *path = NULL;
  if (!psg_module_structural_equal(m, m2, &path)) fail("parse(print(m)) differs from m at", path);
  psg_free(path);
  if (psg_module_structural_hash(m) != psg_module_structural_hash(m2)) fail("equal modules hash differently", NULL);
  if (psg_module_print(m2, PSG_PRINT_DEFAULT, &text2, &len2)) fail("a re-parsed module does not print", NULL);
  if (len != len2 || memcmp(text, text2, len)) {
    fprintf(stderr, "--- first print\n%s--- second print\n%s", text, text2);
    fail("printing is not idempotent", NULL);
  }
done:
  check_expr(ctx, data, size);
  psg_free(text);
  psg_free(text2);
  psg_module_release(m);
  psg_module_release(m2);
  psg_ctx_release(ctx);
  return 0;
}
