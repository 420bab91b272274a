/* Passage — psgi_parallel_for (thread_pool.h). Threads are started for one
 * loop and are detached: the caller waits for the tasks that were taken,
 * never for a thread to be scheduled. On a loaded machine a new thread may
 * wait several milliseconds for a core; joining it would make every pass
 * body wait that long even when the caller had done all the work alone. A
 * thread that starts late finds no task left, drops its reference to the
 * loop and exits (the loop's state is on the heap, freed by its last user;
 * it holds no library object). Tasks are handed out one index at a time
 * under the loop's mutex: per-function work is very uneven (one conv2d
 * PrimFunc against dozens of elementwise ones) and coarse (a whole pass over
 * one function), so a lock per task costs nothing measurable. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "support/thread_pool.h"

typedef struct loop {
  pthread_mutex_t lock;
  pthread_cond_t idle; /* signalled when `active` drops to 0 */
  size_t n;
  psgi_task_fn fn;
  void *user;
  size_t next;   /* the next index to hand out */
  size_t limit;  /* indices at or after it are not handed out (1 + the first failed index) */
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

/* Takes and runs tasks until none is left; a thread that took one leaves
 * (l->leave) before it stops counting as active. */
static void work(loop *l) {
  bool took = false;
  pthread_mutex_lock(&l->lock);
  while (l->next < l->n && l->next < l->limit) {
    size_t i = l->next++;
    if (!took) l->active++;
    took = true;
    pthread_mutex_unlock(&l->lock);
    bool ok = l->fn(l->user, i);
    pthread_mutex_lock(&l->lock);
    if (!ok && i + 1 < l->limit) l->limit = i + 1;
  }
  pthread_mutex_unlock(&l->lock);
  if (!took) return;
  if (l->leave) l->leave(l->user);
  pthread_mutex_lock(&l->lock);
  if (--l->active == 0) pthread_cond_broadcast(&l->idle);
  pthread_mutex_unlock(&l->lock);
}

static void *worker(void *arg) {
  work(arg);
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
  work(l);
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
