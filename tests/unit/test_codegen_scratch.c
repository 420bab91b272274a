/* Passage — a kernel's scratch plan (src/codegen/codegen_c.c): an Allocate's
 * buffer lives in its body only, so allocations one after the other share
 * bytes and nested ones stack at 64-byte aligned offsets; the kernel's
 * workspace is the deepest point. Each case is a TVMScript function, its
 * psg_codegen_c_workspace and the offsets in the generated C. (That the
 * shared bytes compute right is codegen.corpus's job: the kernels of the
 * corpus and the models against the TIR interpreter.) */
#include "check.h"
#include "tir_equiv.h"
#include "passage/codegen.h"

static psg_ctx *CTX;

#define HEAD "@T.prim_func\ndef main(A: T.Buffer((100,), \"float32\"), B: T.Buffer((100,), \"float32\")):\n"
/* A loop over i writing `buf` (n floats) from A, then B from buf: uses the buffer. */
#define USE(indent, buf, n)                                                                                  \
  indent "for i in range(" #n "):\n" indent "    " buf "_1[i] = A[i] + T.float32(1.0)\n" indent               \
         "for i in range(" #n "):\n" indent "    B[i] = " buf "_1[i] * T.float32(2.0)\n"
#define ALLOC(indent, buf, n)                                                                                \
  indent buf " = T.allocate([" #n "], \"float32\", \"global\")\n" indent buf "_1 = T.Buffer((" #n              \
         ",), data=" buf ")\n"

/* The workspace of `text`'s kernel, and the number of `workspace + OFF)` in its C for each offs[k]. */
static void check_plan(const char *text, uint64_t ws, const uint64_t *offs, const int *counts, int n) {
  psg_tir_prim_func *f = eq_parse(text); /* pooled: released by tb_fini */
  CHECK(f != NULL);
  if (!f) return;
  CHECK_EQ_INT(psg_codegen_c_workspace(f), ws);
  const char *name = "main";
  char *c = NULL;
  CHECK_OK(psg_codegen_c(CTX, &f, &name, 1, 0, &c, NULL));
  for (int k = 0; c && k < n; k++) {
    char pat[64];
    snprintf(pat, sizeof pat, "(workspace + %llu);", (unsigned long long)offs[k]);
    int seen = 0;
    for (const char *p = strstr(c, pat); p; p = strstr(p + 1, pat)) seen++;
    CHECK_EQ_INT(seen, counts[k]);
  }
  char comment[64]; /* the kernel's comment states its workspace */
  snprintf(comment, sizeof comment, "; workspace %llu bytes */", (unsigned long long)ws);
  CHECK(c && strstr(c, comment));
  psg_free(c);
}

/* Two allocations in sibling loops: the same bytes (was 448 + 200). */
static void test_siblings_share(void) {
  const char *text = HEAD "    for j in range(2):\n" ALLOC("        ", "p", 100) USE("        ", "p", 100)
                          "    for j in range(2):\n" ALLOC("        ", "q", 50) USE("        ", "q", 50);
  uint64_t offs[] = {0};
  int counts[] = {2};
  check_plan(text, 400, offs, counts, 1);
}

/* One inside the other's body: both live, stacked. */
static void test_nested_stack(void) {
  const char *text = HEAD ALLOC("    ", "p", 100) ALLOC("    ", "q", 50) USE("    ", "p", 100) USE("    ", "q", 50);
  uint64_t offs[] = {0, 448};
  int counts[] = {1, 1};
  check_plan(text, 648, offs, counts, 2);
}

/* A sibling whose body nests two: the deeper branch sets the size, and the
 * first allocation's bytes are reused by the first of the second branch. */
static void test_deepest_branch(void) {
  const char *text = HEAD "    for j in range(2):\n" ALLOC("        ", "p", 100) USE("        ", "p", 100)
                          "    for j in range(2):\n" ALLOC("        ", "q", 20) ALLOC("        ", "r", 100)
                          USE("        ", "q", 20) USE("        ", "r", 100);
  uint64_t offs[] = {0, 128};
  int counts[] = {2, 1};
  check_plan(text, 528, offs, counts, 2);
}

/* An allocation inside a loop takes the same bytes every iteration, and one
 * inside a parallel loop is a stack array (no workspace). */
static void test_loop_and_parallel(void) {
  const char *text = HEAD "    for j in range(3):\n" ALLOC("        ", "p", 10) USE("        ", "p", 10)
                          "    for j in T.parallel(2):\n" ALLOC("        ", "q", 10) USE("        ", "q", 10);
  uint64_t offs[] = {0};
  int counts[] = {1};
  check_plan(text, 40, offs, counts, 1);
}

int main(void) {
  CTX = check_ctx();
  tb_init(CTX);
  RUN_TEST(test_siblings_share);
  RUN_TEST(test_nested_stack);
  RUN_TEST(test_deepest_branch);
  RUN_TEST(test_loop_and_parallel);
  tb_fini();
  CHECK_CTX_CLEAN(CTX);
  return check_finish();
}
