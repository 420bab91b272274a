/* Passage — psgi_parallel_for (thread_pool.h). Threads are started for one
 * loop and are detached: the caller waits for the tasks that were taken,
 * never for a thread to be scheduled. On a loaded machine a new thread may
 * wait several milliseconds for a core; joining it would make every pass
 * body wait that long even when the caller had done all the work alone. A
 * thread that starts late finds no task left, drops its reference to the
 * loop and exits (the loop's state is on the heap, freed by its last user;
 * it holds no library object). Tasks are handed out one index at a time
 * (per-function work is very uneven: one conv2d PrimFunc against dozens of
 * elementwise ones) by atomic counters: a pass over one small function
 * takes a few microseconds, and a mutex per task made the two threads wait
 * for each other in the kernel (futex) several times per function. The
 * indices are split into one contiguous range per thread, which it takes
 * first before it helps with the others' (the caller the first range): the
 * passes of a pipeline then mostly find a function on the thread (and the
 * core) that made it in the pass before, instead of moving its nodes
 * between cores' caches (10.5 ms instead of 12.0 ms for the 256-function
 * tir.default_pipeline on 2 cores). The mutex is taken twice per thread: to
 * join the loop and to leave it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "support/thread_pool.h"

/* The indices a thread takes first, from next to end; each on a cache line
 * of its own (the threads take from their own ranges at once). */
typedef struct range {
  size_t next; /* atomic */
  size_t end;
  char pad_[64 - 2 * sizeof(size_t)];
} range;

typedef struct loop {
  range ranges[PSGI_MAX_THREADS];
  unsigned nranges;
  unsigned slots; /* atomic: the range the next starting worker takes first */
  pthread_mutex_t lock;
  pthread_cond_t idle; /* signalled when `active` drops to 0 */
  size_t n;
  psgi_task_fn fn;
  void *user;
  size_t limit;  /* atomic: indices at or after it are not run (1 + the first failed index) */
  psgi_leave_fn leave;
  size_t active; /* threads that took a task and have not left */
  unsigned refs; /* the caller and the threads that have not exited */
} loop;

static void drop(loop *l) {
  pthread_mutex_lock(&l->lock);
  bool last = --l->refs == 0;
  pthread_mutex_unlock(&l->lock);
  if (!last) return;
  pthread_cond_destroy(&l->idle);
  pthread_mutex_destroy(&l->lock);
  free(l);
}

/* Takes and runs tasks until none is left. A thread counts as active from
 * before its first index to after it has left (l->leave, when it ran a
 * task): the caller, which sees every index taken before it waits, then
 * waits for every thread that may run one. */
static void work(loop *l, unsigned slot) {
  pthread_mutex_lock(&l->lock);
  l->active++;
  pthread_mutex_unlock(&l->lock);
  bool took = false;
  for (unsigned k = 0; k < l->nranges; k++) {
    range *r = &l->ranges[(slot + k) % l->nranges];
    for (;;) {
      size_t i = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
      if (i >= r->end || i >= __atomic_load_n(&l->limit, __ATOMIC_RELAXED)) break;
      took = true;
      if (l->fn(l->user, i)) continue;
      size_t limit = __atomic_load_n(&l->limit, __ATOMIC_RELAXED);
      while (i + 1 < limit &&
             !__atomic_compare_exchange_n(&l->limit, &limit, i + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
    }
  }
  if (took && l->leave) l->leave(l->user);
  pthread_mutex_lock(&l->lock);
  if (--l->active == 0) pthread_cond_broadcast(&l->idle);
  pthread_mutex_unlock(&l->lock);
}

static void *worker(void *arg) {
  loop *l = arg;
  work(l, __atomic_fetch_add(&l->slots, 1, __ATOMIC_RELAXED) % l->nranges);
  drop(arg);
  return NULL;
}

/* Without a loop state (out of memory) or with one thread: the tasks in
 * order on the caller, stopping at the first failure. */
static unsigned serially(size_t n, psgi_task_fn fn, psgi_leave_fn leave, void *user) {
  for (size_t i = 0; i < n && fn(user, i); i++) {
  }
  if (n && leave) leave(user);
  return 1;
}

unsigned psgi_parallel_for(size_t n, unsigned threads, psgi_task_fn fn, psgi_leave_fn leave, void *user) {
  if (threads > PSGI_MAX_THREADS) threads = PSGI_MAX_THREADS;
  if ((size_t)threads > n) threads = (unsigned)n;
  if (threads < 2) return serially(n, fn, leave, user);
  loop *l = calloc(1, sizeof *l);
  if (!l) return serially(n, fn, leave, user);
  if (pthread_mutex_init(&l->lock, NULL)) return free(l), serially(n, fn, leave, user);
  if (pthread_cond_init(&l->idle, NULL)) {
    pthread_mutex_destroy(&l->lock);
    free(l);
    return serially(n, fn, leave, user);
  }
  l->n = n;
  l->fn = fn;
  l->user = user;
  l->leave = leave;
  l->limit = SIZE_MAX;
  l->refs = 1;
  l->nranges = threads;
  l->slots = 1;
  for (unsigned t = 0; t < threads; t++) {
    l->ranges[t].next = n / threads * t + (t < n % threads ? t : n % threads);
    l->ranges[t].end = l->ranges[t].next + n / threads + (t < n % threads);
  }
  pthread_attr_t attr;
  bool attr_ok = pthread_attr_init(&attr) == 0 && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0;
  unsigned started = 0;
  for (unsigned t = 1; attr_ok && t < threads; t++) {
    pthread_mutex_lock(&l->lock);
    l->refs++;
    pthread_mutex_unlock(&l->lock);
    pthread_t id;
    if (pthread_create(&id, &attr, worker, l) == 0) {
      started++;
    } else {
      pthread_mutex_lock(&l->lock);
      l->refs--;
      pthread_mutex_unlock(&l->lock);
    }
  }
  if (attr_ok) pthread_attr_destroy(&attr);
  work(l, 0);
  /* Every index is handed out (or past a failure): wait for the threads
   * still running tasks or leaving; threads that took none are not waited
   * for. */
  pthread_mutex_lock(&l->lock);
  while (l->active) pthread_cond_wait(&l->idle, &l->lock);
  pthread_mutex_unlock(&l->lock);
  drop(l);
  return started + 1;
}

unsigned psgi_num_processors(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}
