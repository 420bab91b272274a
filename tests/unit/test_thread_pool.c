/* psgi_parallel_for (src/support/thread_pool.c): every task runs once, on
 * at most the threads asked for and never more threads than tasks; zero and
 * one task start no thread; after a failure the later tasks are not started
 * but every earlier one runs; no task runs after it returns. */
#include <pthread.h>
#include <unistd.h>
#include "check.h"
#include "support/thread_pool.h"

enum { MAX_TASKS = 1000 };

typedef struct tasks {
  int runs[MAX_TASKS]; /* atomic */
  pthread_t who[MAX_TASKS];
  size_t fail_at; /* SIZE_MAX: none fails */
  size_t fail_also;
  bool slow_after_failure; /* tasks after fail_also take 1 ms */
  int live; /* atomic: tasks running now */
  int most_live;
} tasks;

static bool task(void *user, size_t i) {
  tasks *t = user;
  int now = __atomic_add_fetch(&t->live, 1, __ATOMIC_RELAXED);
  int most = __atomic_load_n(&t->most_live, __ATOMIC_RELAXED);
  while (now > most && !__atomic_compare_exchange_n(&t->most_live, &most, now, false, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {
  }
  __atomic_add_fetch(&t->runs[i], 1, __ATOMIC_RELAXED);
  t->who[i] = pthread_self();
  /* Some work, so that tasks overlap. */
  volatile unsigned x = 0;
  for (unsigned k = 0; k < 20000; k++) x += k;
  if (t->slow_after_failure && i > t->fail_also) usleep(1000);
  __atomic_sub_fetch(&t->live, 1, __ATOMIC_RELAXED);
  return i != t->fail_at && i != t->fail_also;
}

static tasks *fresh(void) {
  static tasks t;
  memset(&t, 0, sizeof t);
  t.fail_at = t.fail_also = SIZE_MAX;
  return &t;
}

static void test_every_task_runs_once(void) {
  tasks *t = fresh();
  unsigned used = psgi_parallel_for(256, 4, task, NULL, t);
  CHECK(used >= 1 && used <= 4);
  for (size_t i = 0; i < 256; i++) CHECK_EQ_INT(t->runs[i], 1);
  CHECK(t->most_live <= 4);
  CHECK_EQ_INT(t->live, 0);
}

static void test_zero_tasks(void) {
  tasks *t = fresh();
  CHECK_EQ_INT((int)psgi_parallel_for(0, 8, task, NULL, t), 1);
  CHECK_EQ_INT(t->most_live, 0);
}

static void test_one_task_runs_on_the_caller(void) {
  tasks *t = fresh();
  CHECK_EQ_INT((int)psgi_parallel_for(1, 8, task, NULL, t), 1);
  CHECK_EQ_INT(t->runs[0], 1);
  CHECK(pthread_equal(t->who[0], pthread_self()));
}

static void test_more_threads_than_tasks(void) {
  tasks *t = fresh();
  unsigned used = psgi_parallel_for(3, 50, task, NULL, t);
  CHECK(used <= 3);
  for (size_t i = 0; i < 3; i++) CHECK_EQ_INT(t->runs[i], 1);
  t = fresh();
  used = psgi_parallel_for(MAX_TASKS, 100000, task, NULL, t); /* capped at PSGI_MAX_THREADS */
  CHECK(used <= PSGI_MAX_THREADS);
  for (size_t i = 0; i < MAX_TASKS; i++) CHECK_EQ_INT(t->runs[i], 1);
}

static void test_one_thread_is_serial(void) {
  tasks *t = fresh();
  CHECK_EQ_INT((int)psgi_parallel_for(100, 1, task, NULL, t), 1);
  CHECK_EQ_INT(t->most_live, 1);
  for (size_t i = 0; i < 100; i++) CHECK(pthread_equal(t->who[i], pthread_self()));
}

/* Every task before the first failure runs (one of them may fail too, and
 * the serial order reports the first); none after the later failure does
 * once the failures are seen; each runs at most once. */
static void test_failure_stops_later_tasks(void) {
  for (int round = 0; round < 5; round++) {
    tasks *t = fresh();
    t->fail_at = 700;
    t->fail_also = 100;
    t->slow_after_failure = true;
    psgi_parallel_for(MAX_TASKS, 3, task, NULL, t);
    for (size_t i = 0; i <= 100; i++) CHECK_EQ_INT(t->runs[i], 1);
    size_t ran_after = 0;
    for (size_t i = 101; i < MAX_TASKS; i++) {
      CHECK(t->runs[i] <= 1);
      ran_after += (size_t)t->runs[i];
    }
    /* Tasks handed out before the failure was recorded still finish: the
     * other threads' current ones, and a few more if the failing thread is
     * descheduled between its task and the record (each later task takes
     * 1 ms, so 100 of them would take 50 ms on the two other threads). */
    CHECK(ran_after <= 100);
    CHECK_EQ_INT(t->live, 0);
  }
  tasks *t = fresh();
  t->fail_at = 0;
  psgi_parallel_for(MAX_TASKS, 1, task, NULL, t);
  CHECK_EQ_INT(t->runs[0], 1);
  CHECK_EQ_INT(t->runs[1], 0);
}

/* A loop returns once its tasks are done, without waiting for threads
 * that took none; those exit on their own: many loops in a row neither
 * accumulate threads (pthread_create would fail) nor leak the loops' state
 * (ASan's leak check at exit). */
static void test_threads_exit(void) {
  for (int round = 0; round < 300; round++) {
    tasks *t = fresh();
    psgi_parallel_for(8, 4, task, NULL, t);
    for (size_t i = 0; i < 8; i++) CHECK_EQ_INT(t->runs[i], 1);
    CHECK_EQ_INT(__atomic_load_n(&t->live, __ATOMIC_RELAXED), 0); /* nothing runs after the return */
  }
  CHECK(psgi_num_processors() >= 1);
}

int main(void) {
  RUN_TEST(test_every_task_runs_once);
  RUN_TEST(test_zero_tasks);
  RUN_TEST(test_one_task_runs_on_the_caller);
  RUN_TEST(test_more_threads_than_tasks);
  RUN_TEST(test_one_thread_is_serial);
  RUN_TEST(test_failure_stops_later_tasks);
  RUN_TEST(test_threads_exit);
  return check_finish();
}
