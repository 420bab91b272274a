/* Passage — the compile Target string (src/codegen/target.c) and the ABI
 * declarations a generated file repeats (src/codegen/host_c.c), which must
 * be include/passage/model_abi.h's own. */
#include "check.h"
#include "codegen/host_c.h"
#include "codegen/target.h"

static void test_target_parse(void) {
  psg_ctx *ctx;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  psgi_target t;
  char buf[160];
  CHECK_OK(psgi_target_parse(ctx, NULL, &t));
  psgi_target_print(&t, buf, sizeof buf);
  CHECK_STR(buf, "c -mcpu=native -num-threads=1 -vector-ext=1 -link-params=1");
  CHECK_OK(psgi_target_parse(ctx, "  c   -num-threads=4 -mcpu=skylake-avx512 -vector-ext=0 -link-params=false", &t));
  CHECK_STR(t.mcpu, "skylake-avx512");
  CHECK_EQ_INT(t.num_threads, 4);
  CHECK(!t.vector_ext && !t.link_params);
  psgi_target_print(&t, buf, sizeof buf);
  psgi_target u;
  CHECK_OK(psgi_target_parse(ctx, buf, &u)); /* the canonical form parses back to the same */
  CHECK(!memcmp(&t, &u, sizeof t));
  struct { const char *text; int col; const char *msg; } bad[] = {
      {"llvm -mcpu=x", 1, "unknown target kind 'llvm'"},
      {"c -mcpu=native -threads=2", 16, "unknown target option '-threads'"},
      {"c -num-threads=0", 16, "-num-threads takes an integer from 1 to 1024"},
      {"c -mcpu=a;rm", 10, "-mcpu takes a CPU name"},
      {"c -mcpu=x -mcpu=y", 11, "given twice"},
      {"c -vector-ext=2", 15, "expected 0 or 1"},
      {"c -mcpu", 3, "needs a value"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    psg_ctx_clear_diags(ctx);
    CHECK_EQ_INT(psgi_target_parse(ctx, bad[i].text, &t), PSG_ERR_INVALID_ARGUMENT);
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    CHECK(d && strstr(psg_diag_message(d), bad[i].msg));
    CHECK(d && psg_diag_col(d) == bad[i].col);
    if (d && psg_diag_col(d) != bad[i].col) fprintf(stderr, "  %s: col %d\n", bad[i].text, psg_diag_col(d));
  }
  psg_ctx_release(ctx);
}

/* The generated files repeat model_abi.h's declarations: the same text. */
static void test_abi_text(void) {
  FILE *f = fopen(PASSAGE_SOURCE_DIR "/include/passage/model_abi.h", "rb");
  CHECK(f != NULL);
  if (!f) return;
  static char text[65536];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  const char *a = strstr(text, "#include <stddef.h>");
  const char *b = strstr(text, "} psg_model_info;\n");
  CHECK(a && b);
  if (!a || !b) return;
  size_t len = (size_t)(b + strlen("} psg_model_info;\n") - a);
  CHECK_EQ_INT(strlen(psgi_model_abi_text), len);
  CHECK(!strncmp(psgi_model_abi_text, a, len));
}

int main(void) {
  RUN_TEST(test_target_parse);
  RUN_TEST(test_abi_text);
  return check_finish();
}
