/* The source texts a context keeps for quoting lines in later diagnostics
 * (src/support/sources.c): lines by number (CRLF, no final newline, past
 * the end), the latest text of a name wins, an over-sized text is not kept
 * and drops the older text of its name, control bytes are cleaned; and the
 * Relay parser keeps what it parsed under its file name. */
#include "check.h"
#include "passage/passage.h"
#include "support/ctx_internal.h"

static void check_line(psg_ctx *ctx, const char *file, int line, const char *want) {
  char buf[64];
  size_t n = psgi_source_line(ctx, file, line, buf, sizeof buf);
  if (!want) {
    CHECK_EQ_INT((int)n, 0);
    return;
  }
  buf[n < sizeof buf ? n : sizeof buf - 1] = 0;
  CHECK_STR(buf, want);
}

static void test_lines(void) {
  psg_ctx *ctx = check_ctx();
  const char *f = psgi_intern(ctx, "a.relay", 7), *g = psgi_intern(ctx, "b.relay", 7);
  const char text[] = "one\r\ntwo\n\nfour\x01x";
  CHECK_OK(psgi_source_remember(ctx, f, text, sizeof text - 1));
  check_line(ctx, f, 1, "one");
  check_line(ctx, f, 2, "two");
  check_line(ctx, f, 3, NULL); /* empty */
  check_line(ctx, f, 4, "four?x");
  check_line(ctx, f, 5, NULL);
  check_line(ctx, f, 0, NULL);
  check_line(ctx, g, 1, NULL); /* another file: nothing kept */
  /* The latest text of a name wins. */
  CHECK_OK(psgi_source_remember(ctx, f, "new\n", 4));
  check_line(ctx, f, 1, "new");
  check_line(ctx, f, 2, NULL);
  /* One too big to keep drops the older text of its name (it would quote
   * the wrong lines) and leaves the others. */
  CHECK_OK(psgi_source_remember(ctx, g, "g1\n", 3));
  size_t big = (size_t)17 << 20;
  char *huge = malloc(big);
  CHECK(huge != NULL);
  if (huge) {
    memset(huge, 'x', big);
    CHECK_OK(psgi_source_remember(ctx, f, huge, big));
    free(huge);
  }
  check_line(ctx, f, 1, NULL);
  check_line(ctx, g, 1, "g1");
  CHECK_CTX_CLEAN(ctx);
}

static void test_parser_keeps_its_text(void) {
  psg_ctx *ctx = check_ctx();
  const char text[] = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  add(%x, %x)\n}\n";
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, sizeof text - 1, "kept.relay", &m));
  check_line(ctx, psgi_intern(ctx, "kept.relay", 10), 3, "  add(%x, %x)");
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_lines);
  RUN_TEST(test_parser_keeps_its_text);
  return check_finish();
}
