/* Passage — a minimal unit-test harness: CHECK macros that record failures
 * and keep going, a runner that prints one line per test, and a fault-
 * injecting allocator for out-of-memory tests (STYLE rule 15.6). */
#ifndef PSG_TEST_CHECK_H
#define PSG_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                  \
  do {                                                                               \
    check_count++;                                                                   \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
      check_failures++;                                                              \
    }                                                                                \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                           \
  do {                                                                               \
    long long va_ = (long long)(a), vb_ = (long long)(b);                            \
    check_count++;                                                                   \
    if (va_ != vb_) {                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__,    \
              __LINE__, #a, #b, va_, vb_);                                           \
      check_failures++;                                                              \
    }                                                                                \
  } while (0)

#define CHECK_STR(a, b)                                                              \
  do {                                                                               \
    const char *sa_ = (a), *sb_ = (b);                                               \
    check_count++;                                                                   \
    if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                     \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" vs \"%s\")\n", __FILE__,\
              __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");         \
      check_failures++;                                                              \
    }                                                                                \
  } while (0)

#define CHECK_OK(st) CHECK_EQ_INT((st), PSG_OK)

/* Runs one test function and reports it. */
#define RUN_TEST(fn)                                                                 \
  do {                                                                               \
    int before_ = check_failures;                                                    \
    fn();                                                                            \
    printf("%s %s\n", check_failures == before_ ? "ok  " : "FAIL", #fn);             \
  } while (0)

static inline int check_finish(void) {
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures ? 1 : 0;
}

/* A context whose allocator fails the Nth allocation (0: never) and counts
 * calls, for out-of-memory tests. */
typedef struct check_alloc {
  long calls;
  long fail_at;
} check_alloc;

static inline void *check_alloc_realloc(void *user, void *p, size_t old, size_t n) {
  check_alloc *a = user;
  (void)old;
  if (n == 0) {
    free(p);
    return NULL;
  }
  a->calls++;
  if (a->fail_at && a->calls == a->fail_at) return NULL;
  return realloc(p, n);
}

static inline psg_ctx *check_ctx_with(check_alloc *a) {
  psg_allocator al = {check_alloc_realloc, a};
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(&al, &ctx) != PSG_OK) return NULL;
  return ctx;
}

static inline psg_ctx *check_ctx(void) {
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx) != PSG_OK) {
    fprintf(stderr, "cannot create a context\n");
    exit(1);
  }
  return ctx;
}

/* Releases a context after checking nothing made in it is still alive. */
#define CHECK_CTX_CLEAN(ctx)                                                         \
  do {                                                                               \
    CHECK_EQ_INT(psg_ctx_live_objects(ctx), 0);                                      \
    psg_ctx_release(ctx);                                                            \
  } while (0)

#endif
