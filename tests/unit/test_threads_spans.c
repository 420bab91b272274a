/* The span table under threads (src/ir/span_table.c): threads of one context
 * build nodes at fresh spans (the table grows by chunks meanwhile), at a
 * shared node's span (its count moves from several threads), rebuild and
 * release them, and every node still reads back its own span. Run under
 * TSan as tsan.test_threads_spans. */
#include <pthread.h>
#include "check.h"
#include "ir/ir_internal.h"

enum { THREADS = 4, ROUNDS = 3, PER_ROUND = 3000 };

typedef struct worker {
  psg_ctx *ctx;
  psg_expr *shared; /* a Var with a span every thread builds at */
  int id;
  int bad;          /* nodes whose span read back wrong, or failures */
} worker;

static void *work(void *arg) {
  worker *w = arg;
  static __thread psg_expr *mine[PER_ROUND];
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = 0; i < PER_ROUND; i++) {
      int line = (w->id * ROUNDS + r) * PER_ROUND + i + 1;
      psg_span s = {"threads.relay", line, w->id + 1, line, 1, NULL};
      psg_expr *v = NULL, *t = NULL;
      if (psg_var_create(w->ctx, "v", NULL, &s, &v) ||
          psg_tuple_create(w->ctx, (psg_expr *[]){v, w->shared}, 2, psgi_expr_span_ref(w->shared), &t)) {
        w->bad++;
        psg_expr_release(v);
        mine[i] = NULL;
        continue;
      }
      psg_expr_release(v);
      mine[i] = t;
    }
    for (int i = 0; i < PER_ROUND; i++) {
      if (!mine[i]) continue;
      int line = (w->id * ROUNDS + r) * PER_ROUND + i + 1;
      psg_expr *re = NULL;
      psg_expr *kids[2] = {psg_expr_get_child(mine[i], 1), psg_expr_get_child(mine[i], 0)};
      if (psgi_expr_rebuild(mine[i], kids, &re)) w->bad++;
      psg_span a, b, sh;
      psg_expr_span(psg_expr_get_child(mine[i], 0), &a);
      psg_expr_span(mine[i], &b);
      psg_expr_span(w->shared, &sh);
      if (a.line != line || a.col != w->id + 1 || b.line != sh.line || b.col != sh.col) w->bad++;
      psg_expr_release(mine[i]);
      if (re) {
        psg_expr_span(re, &b);
        if (b.line != sh.line) w->bad++;
        psg_expr_release(re);
      }
    }
  }
  return NULL;
}

static void test_threads_share_the_table(void) {
  psg_ctx *ctx = check_ctx();
  psg_span s = {"threads.relay", 999999, 9, 999999, 10, "shared"};
  psg_expr *shared = NULL;
  CHECK_OK(psg_var_create(ctx, "shared", NULL, &s, &shared));
  worker w[THREADS];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){ctx, shared, i, 0};
    CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < THREADS; i++) CHECK_EQ_INT(w[i].bad, 0);
  /* At most each thread's live round at once, plus the shared span. */
  CHECK(psgi_span_table_entries(ctx) <= THREADS * PER_ROUND + 1);
  psg_span out;
  psg_expr_span(shared, &out);
  CHECK(out.line == 999999 && out.name && !strcmp(out.name, "shared"));
  psg_expr_release(shared);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_threads_share_the_table);
  return check_finish();
}
