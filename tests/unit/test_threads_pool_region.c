/* The lingering pool and exclusive mode (src/support/thread_pool.c,
 * exclusive.c): inside a region (psgi_pool_enter) every loop runs on the
 * same few threads, started once and parked in between, which exit after
 * the region closes; each thread that ran tasks has left before the loop
 * returns. Exclusive mode turns on only in a region, outside any loop, when
 * the process's other threads are the pool's parked ones; it is off on
 * every thread while a loop runs and while a thread the library did not
 * start exists. Also in the ThreadSanitizer suite (cmake/tsan.cmake). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"
#include "support/support.h"
#include "support/thread_pool.h"

enum { TASKS = 64, MAX_SEEN = 64 };

typedef struct seen {
  pthread_mutex_t lock;
  pthread_t ids[MAX_SEEN];
  int n;
  int left;           /* leave calls, under lock */
  int exclusive_seen; /* tasks that saw exclusive mode on (atomic) */
  int ran;            /* atomic */
} seen;

static bool task(void *user, size_t i) {
  (void)i;
  seen *s = user;
  if (psgi_exclusive_begin(false)) __atomic_add_fetch(&s->exclusive_seen, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED)) __atomic_add_fetch(&s->exclusive_seen, 1, __ATOMIC_RELAXED);
  volatile unsigned x = 0;
  for (unsigned k = 0; k < 20000; k++) x += k;
  pthread_mutex_lock(&s->lock);
  bool known = false;
  for (int k = 0; k < s->n; k++) known |= pthread_equal(s->ids[k], pthread_self()) != 0;
  if (!known && s->n < MAX_SEEN) s->ids[s->n++] = pthread_self();
  pthread_mutex_unlock(&s->lock);
  __atomic_add_fetch(&s->ran, 1, __ATOMIC_RELAXED);
  return true;
}

static void leave(void *user) {
  seen *s = user;
  pthread_mutex_lock(&s->lock);
  s->left++;
  pthread_mutex_unlock(&s->lock);
}

/* Threads of the process, from /proc/self/status (the test's own count). */
static long threads_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long n = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %ld", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

static bool wait_for_no_pool_threads(void) {
  for (int i = 0; i < 5000 && psgi_pool_live_threads(); i++) usleep(1000);
  return psgi_pool_live_threads() == 0;
}

static void test_region_reuses_its_threads(void) {
  CHECK(wait_for_no_pool_threads());
  static seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
  psgi_pool_enter(3);
  psgi_pool_enter(8); /* nested: joins the outer region */
  for (int loop = 0; loop < 30; loop++) {
    int left_before = s.left;
    unsigned used = psgi_parallel_for(TASKS, 3, task, leave, &s);
    CHECK(used >= 1 && used <= 3);
    pthread_mutex_lock(&s.lock);
    CHECK(s.left > left_before); /* every thread that ran a task left before the return */
    CHECK(s.left - left_before <= 3);
    pthread_mutex_unlock(&s.lock);
  }
  /* Two pool threads started once; with the caller, at most three ran tasks. */
  CHECK(psgi_pool_live_threads() == 2);
  CHECK(s.n >= 1 && s.n <= 3);
  CHECK_EQ_INT(s.ran, 30 * TASKS);
  psgi_pool_exit();
  CHECK(psgi_pool_live_threads() == 2); /* the outer region is still open */
  psgi_pool_exit();
  CHECK(wait_for_no_pool_threads());
  CHECK_EQ_INT(s.exclusive_seen, 0);
}

static void test_exclusive_only_in_a_region_when_alone(void) {
  CHECK(wait_for_no_pool_threads());
  /* Wait for the threads of earlier tests to be gone from the kernel's count. */
  long base = threads_now();
  for (int i = 0; i < 2000 && base > 1; i++) usleep(1000), base = threads_now();
  CHECK(!psgi_exclusive_begin(true)); /* no region: stays off */
  CHECK(!__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED));
  psgi_exclusive_end(false);
  static seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
  psgi_pool_enter(2);
  psgi_parallel_for(TASKS, 2, task, leave, &s); /* starts the pool's thread */
  /* The sanitizers' runtimes may have threads of their own: exclusive mode
   * then stays off, as with any thread the library did not start. */
  bool expect = threads_now() == 1 + (long)psgi_pool_live_threads();
  bool was = psgi_exclusive_begin(true);
  CHECK(!was);
  CHECK(__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED) == expect);
  CHECK(!expect || psgi_single_threaded());
  /* Users' code: off, and back on after it (re-counted). */
  bool inner = psgi_exclusive_begin(false);
  CHECK(inner == expect);
  CHECK(!__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED));
  psgi_exclusive_end(inner);
  CHECK(__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED) == expect);
  /* A loop turns it off on every thread, the caller included, and the
   * caller has it back when the loop returns. */
  psgi_parallel_for(TASKS, 2, task, leave, &s);
  CHECK_EQ_INT(s.exclusive_seen, 0);
  CHECK(__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED) == expect);
  psgi_exclusive_end(was);
  CHECK(!__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED));
  psgi_pool_exit();
  CHECK(wait_for_no_pool_threads());
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *blocked(void *arg) {
  (void)arg;
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  return NULL;
}

static void test_a_foreign_thread_keeps_it_off(void) {
  pthread_mutex_lock(&gate);
  pthread_t other;
  CHECK(pthread_create(&other, NULL, blocked, NULL) == 0);
  static seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
  psgi_pool_enter(2);
  psgi_parallel_for(TASKS, 2, task, leave, &s);
  CHECK(!psgi_exclusive_begin(true));
  CHECK(!__atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED));
  psgi_exclusive_end(false);
  psgi_pool_exit();
  pthread_mutex_unlock(&gate);
  pthread_join(other, NULL);
  CHECK(wait_for_no_pool_threads());
}

int main(void) {
  RUN_TEST(test_region_reuses_its_threads);
  RUN_TEST(test_exclusive_only_in_a_region_when_alone);
  RUN_TEST(test_a_foreign_thread_keeps_it_off);
  return check_finish();
}
