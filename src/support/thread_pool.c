/* Passage — psgi_parallel_for (thread_pool.h): threads are started for one
 * loop and joined at its end, so nothing outlives a pass body (no pool to
 * shut down when the library context or the process ends; starting a thread
 * costs tens of microseconds, against milliseconds for a pass over a module
 * with many functions). Tasks are handed out one index at a time from an
 * atomic counter: per-function work is very uneven (one conv2d PrimFunc
 * against dozens of elementwise ones). */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include "support/thread_pool.h"

typedef struct loop {
  size_t n;
  psgi_task_fn fn;
  void *user;
  size_t next;  /* atomic: the next index to hand out */
  size_t limit; /* atomic: indices at or after it are not started (1 + the first failed index) */
} loop;

static void *worker(void *arg) {
  loop *l = arg;
  for (;;) {
    size_t i = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    if (i >= l->n || i >= __atomic_load_n(&l->limit, __ATOMIC_ACQUIRE)) break;
    if (l->fn(l->user, i)) continue;
    /* limit = min(limit, i + 1) */
    size_t cur = __atomic_load_n(&l->limit, __ATOMIC_RELAXED);
    while (i + 1 < cur && !__atomic_compare_exchange_n(&l->limit, &cur, i + 1, false, __ATOMIC_RELEASE,
                                                       __ATOMIC_RELAXED)) {
    }
  }
  return NULL;
}

unsigned psgi_parallel_for(size_t n, unsigned threads, psgi_task_fn fn, void *user) {
  loop l = {n, fn, user, 0, SIZE_MAX};
  if (threads > PSGI_MAX_THREADS) threads = PSGI_MAX_THREADS;
  if ((size_t)threads > n) threads = (unsigned)n;
  pthread_t ids[PSGI_MAX_THREADS];
  unsigned started = 0;
  for (unsigned t = 1; t < threads; t++)
    if (pthread_create(&ids[started], NULL, worker, &l) == 0) started++;
  worker(&l);
  for (unsigned t = 0; t < started; t++) pthread_join(ids[t], NULL);
  return started + 1;
}

unsigned psgi_num_processors(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}
