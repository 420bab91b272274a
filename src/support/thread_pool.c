/* Passage — psgi_parallel_for and the lingering pool (thread_pool.h).
 *
 * A pool's threads are detached and park on a condition variable between
 * loops. A loop is published on the pool; parked threads are woken and
 * join it, and the caller takes tasks too. The caller waits for the tasks
 * that were taken, never for a thread to be scheduled: on a loaded machine
 * a woken (or new) thread may wait several milliseconds for a core, and
 * waiting for it would make every pass body wait that long even when the
 * caller had done all the work alone. So the caller closes the loop once
 * every index is handed out and waits only for the threads that joined it;
 * a thread that wakes after the close finds no loop and parks again. When
 * the pool is closed, its threads exit on their own (the pool's state is on
 * the heap, freed by its last user; it holds no library object).
 *
 * A pool opened by psgi_pool_enter lives for the enclosing region (a pass
 * run): its threads are started at the first loop and serve every loop of
 * the region (~15 pass bodies for tir.default_pipeline, each of which
 * started its own threads before, departure 156). Without an open pool, a
 * loop starts a pool of its own and closes it when it returns.
 *
 * Tasks are handed out one index at a time (per-function work is very
 * uneven: one conv2d PrimFunc against dozens of elementwise ones) by atomic
 * counters: a pass over one small function takes a few microseconds, and a
 * mutex per task made the two threads wait for each other in the kernel
 * (futex) several times per function. The indices are split into one
 * contiguous range per thread, which it takes first before it helps with
 * the others' (the caller the first range): the passes of a pipeline then
 * mostly find a function on the thread (and the core) that made it in the
 * pass before, instead of moving its nodes between cores' caches. The
 * pool's mutex is taken to join a loop and to leave it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "support/support.h"
#include "support/thread_pool.h"

/* The indices a thread takes first, from next to end; each on a cache line
 * of its own (the threads take from their own ranges at once). */
typedef struct range {
  size_t next; /* atomic */
  size_t end;
  char pad_[64 - 2 * sizeof(size_t)];
} range;

/* One loop, on its caller's stack: the caller unpublishes it and waits for
 * every thread that joined it before returning. */
typedef struct loop {
  range ranges[PSGI_MAX_THREADS];
  unsigned nranges;
  unsigned slots; /* under the pool's lock: the range the next joining thread takes first */
  psgi_task_fn fn;
  void *user;
  size_t limit; /* atomic: indices at or after it are not run (1 + the first failed index) */
  psgi_leave_fn leave;
} loop;

typedef struct pool {
  pthread_mutex_t lock;
  pthread_cond_t wake; /* a loop was published, or the pool closed */
  pthread_cond_t idle; /* `active` dropped to 0 */
  loop *current;       /* the published loop, NULL between loops */
  uint64_t generation; /* loops published so far: a thread joins each at most once */
  unsigned parked;     /* threads waiting on `wake` */
  size_t active;       /* threads in the current loop that have not left it */
  unsigned workers;    /* threads started */
  unsigned refs;       /* the owner and the threads that have not exited */
  bool closed;
} pool;

/* The pool of the calling thread's open region (psgi_pool_enter). */
static _Thread_local struct {
  pool *p;
  unsigned depth;
  unsigned threads;
  bool looping; /* the thread runs a loop's tasks */
} region;

/* Set on the pools' threads. */
static _Thread_local bool pool_thread;

/* Threads the pools started that have not finished worker() (atomic). */
static unsigned live_threads;

/* Takes and runs tasks until none is left; calls l->leave if it ran one. */
static void work(loop *l, unsigned slot) {
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
}

/* Drops one reference with the lock held; unlocks it. */
static void drop_locked(pool *p) {
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->lock);
  if (!last) return;
  pthread_cond_destroy(&p->idle);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

/* A pool thread: joins each published loop once, parks in between, exits
 * when the pool is closed. */
static void *worker(void *arg) {
  pool *p = arg;
  pool_thread = true;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->closed && (!p->current || p->generation == seen)) {
      p->parked++;
      pthread_cond_wait(&p->wake, &p->lock);
      p->parked--;
    }
    if (p->closed) break;
    loop *l = p->current;
    seen = p->generation;
    unsigned slot = l->slots++ % l->nranges;
    p->active++;
    pthread_mutex_unlock(&p->lock);
    work(l, slot);
    pthread_mutex_lock(&p->lock);
    if (--p->active == 0) pthread_cond_broadcast(&p->idle);
  }
  drop_locked(p);
  /* Last: the kernel still counts the thread until it has exited (its
   * thread-local destructors run after this), so exclusive mode, which
   * compares both counts, waits for that too. */
  __atomic_fetch_sub(&live_threads, 1, __ATOMIC_RELAXED);
  return NULL;
}

/* A pool with up to `workers` threads started (fewer if the system refuses
 * some), or NULL when it has none. */
static pool *pool_start(unsigned workers) {
  pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pthread_mutex_init(&p->lock, NULL)) return free(p), NULL;
  if (pthread_cond_init(&p->wake, NULL)) goto no_wake;
  if (pthread_cond_init(&p->idle, NULL)) goto no_idle;
  p->refs = 1;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr)) goto no_threads;
  if (pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0) {
    for (unsigned t = 0; t < workers; t++) {
      pthread_t id;
      pthread_mutex_lock(&p->lock); /* a thread started now waits for it before parking */
      __atomic_fetch_add(&live_threads, 1, __ATOMIC_RELAXED);
      if (pthread_create(&id, &attr, worker, p) == 0) {
        p->workers++;
        p->refs++;
      } else {
        __atomic_fetch_sub(&live_threads, 1, __ATOMIC_RELAXED);
      }
      pthread_mutex_unlock(&p->lock);
    }
  }
  pthread_attr_destroy(&attr);
  if (p->workers) return p;
no_threads:
  pthread_cond_destroy(&p->idle);
no_idle:
  pthread_cond_destroy(&p->wake);
no_wake:
  pthread_mutex_destroy(&p->lock);
  free(p);
  return NULL;
}

static void pool_close(pool *p) {
  pthread_mutex_lock(&p->lock);
  p->closed = true;
  if (p->parked) pthread_cond_broadcast(&p->wake);
  drop_locked(p);
}

/* Without a pool or with one thread: the tasks in order on the caller,
 * stopping at the first failure. */
static unsigned serially(size_t n, psgi_task_fn fn, psgi_leave_fn leave, void *user) {
  for (size_t i = 0; i < n && fn(user, i); i++) {
  }
  if (n && leave) leave(user);
  return 1;
}

/* Runs the loop on `p`'s threads and the caller. */
static unsigned pool_for(pool *p, size_t n, unsigned threads, psgi_task_fn fn, psgi_leave_fn leave, void *user) {
  if (threads > p->workers + 1) threads = p->workers + 1;
  loop l = {.nranges = threads, .slots = 1, .fn = fn, .user = user, .limit = SIZE_MAX, .leave = leave};
  for (unsigned t = 0; t < threads; t++) {
    l.ranges[t].next = n / threads * t + (t < n % threads ? t : n % threads);
    l.ranges[t].end = l.ranges[t].next + n / threads + (t < n % threads);
  }
  pthread_mutex_lock(&p->lock);
  p->current = &l;
  p->generation++;
  if (p->parked) pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  bool looping = region.looping;
  region.looping = true;
  work(&l, 0);
  region.looping = looping;
  /* Every index is handed out (or past a failure): unpublish the loop so
   * that no thread joins it any more, and wait for those that did. */
  pthread_mutex_lock(&p->lock);
  p->current = NULL;
  while (p->active) pthread_cond_wait(&p->idle, &p->lock);
  pthread_mutex_unlock(&p->lock);
  return threads;
}

static unsigned parallel_for(size_t n, unsigned threads, psgi_task_fn fn, psgi_leave_fn leave, void *user) {
  if (region.depth) {
    /* The region's pool, started at its first loop with the threads the
     * region asked for (at least this loop's). */
    if (!region.p) region.p = pool_start((region.threads > threads ? region.threads : threads) - 1);
    if (region.p) return pool_for(region.p, n, threads, fn, leave, user);
    return serially(n, fn, leave, user);
  }
  pool *p = pool_start(threads - 1);
  if (!p) return serially(n, fn, leave, user);
  unsigned used = pool_for(p, n, threads, fn, leave, user);
  pool_close(p);
  return used;
}

unsigned psgi_parallel_for(size_t n, unsigned threads, psgi_task_fn fn, psgi_leave_fn leave, void *user) {
  if (threads > PSGI_MAX_THREADS) threads = PSGI_MAX_THREADS;
  if ((size_t)threads > n) threads = (unsigned)n;
  if (threads < 2) return serially(n, fn, leave, user);
  /* Other threads run library code from here to the loop's end: atomic
   * counts and locks (support.h). */
  bool exclusive = psgi_exclusive_begin(false);
  unsigned used = parallel_for(n, threads, fn, leave, user);
  psgi_exclusive_end(exclusive);
  return used;
}

bool psgi_pool_region_open(void) { return region.depth && !region.looping && !pool_thread; }

unsigned psgi_pool_live_threads(void) { return __atomic_load_n(&live_threads, __ATOMIC_RELAXED); }

void psgi_pool_enter(unsigned threads) {
  if (region.depth++) return;
  region.threads = threads > PSGI_MAX_THREADS ? PSGI_MAX_THREADS : threads;
}

void psgi_pool_exit(void) {
  if (!region.depth || --region.depth) return;
  if (region.p) pool_close(region.p);
  region.p = NULL;
}

unsigned psgi_num_processors(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}
