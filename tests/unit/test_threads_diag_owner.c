/* A diagnostic record belongs to the thread that made it (support/diag.c):
 * the pass runner's "note: in pass 'X'" goes on the failing thread's newest
 * record, never on a record another thread added after it. The order is
 * forced, not raced: the failing pass records its error, then starts a
 * second thread that records its own error and joins it, and only then
 * returns the failure, so the other thread's record is the newest of all
 * when the runner adds its note. Before records knew their thread the note
 * landed on the other thread's record. */
#include <pthread.h>
#include "pass_check.h"

static void *other_thread(void *arg) {
  psg_ctx_fail(arg, PSG_ERR_FRONTEND, "the other thread's own error");
  return NULL;
}

static psg_status fail_with_a_neighbour(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)mod;
  (void)user;
  (void)out;
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  psg_status st = psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "the failing pass's error");
  pthread_t th;
  if (pthread_create(&th, NULL, other_thread, ctx) == 0) pthread_join(th, NULL);
  return st;
}

/* The rendered text of the record whose message contains `what`. */
static const char *rendered_with(psg_ctx *ctx, const char *what) {
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const char *r = psg_diag_rendered(psg_ctx_get_diag(ctx, i));
    if (r && strstr(r, what)) return r;
  }
  return NULL;
}

static void test_runner_note_goes_on_the_failing_threads_record(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *in = parse(ctx, HDR "def @main(%x: " T ") { %x }\n");
  CHECK(in != NULL);
  psg_pass_info *info = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, "FailsBesideAThread", 0, NULL, 0, &info));
  CHECK_OK(psg_create_module_pass(ctx, info, fail_with_a_neighbour, NULL, NULL, &p));
  psg_module *out = NULL;
  CHECK_EQ_INT(psg_pass_run(p, in, NULL, &out), PSG_ERR_PASS_FAILED);
  CHECK(out == NULL);
  CHECK_EQ_INT((int)psg_ctx_diag_count(ctx), 2);
  /* Both records exist, the other thread's is the newest, and only the
   * failing thread's carries the runner's note. */
  const char *mine = rendered_with(ctx, "the failing pass's error");
  const char *theirs = rendered_with(ctx, "the other thread's own error");
  CHECK(mine && strstr(mine, "note: in pass 'FailsBesideAThread'"));
  CHECK(theirs && !strstr(theirs, "note:"));
  CHECK(theirs && strstr(psg_diag_rendered(psg_ctx_get_diag(ctx, 1)), "other thread"));
  psg_pass_release(p);
  psg_pass_info_release(info);
  psg_module_release(in);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_runner_note_goes_on_the_failing_threads_record);
  return check_finish();
}
