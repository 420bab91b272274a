/* Passage — a parallel loop over task indices on a few threads
 * (thread_pool.c), for the per-function pass bodies (src/pass/parallel.c). */
#ifndef PSG_THREAD_POOL_H
#define PSG_THREAD_POOL_H

#include <stdbool.h>
#include <stddef.h>

/* Most threads one loop starts (the machines we run on have 2-64 cores). */
#define PSGI_MAX_THREADS 64

/* One task: false when it failed, which makes every task after it
 * unnecessary (the caller reports the first failure in index order). */
typedef bool (*psgi_task_fn)(void *user, size_t i);
/* Called once on each thread that ran tasks, after its last one and before
 * psgi_parallel_for returns (per-thread state set up by the tasks, such as
 * the allocator's thread cache, is given back there). */
typedef void (*psgi_leave_fn)(void *user);

/* Runs fn(user, i) for i in [0, n) on up to `threads` threads, the calling
 * thread one of them, and returns when every task that was started has
 * finished and every thread that ran one has called leave(user) (when
 * leave is not NULL). The indices are split into one contiguous range per
 * thread, each taken in order (by its thread first, then by any that has
 * finished its own); once task k has failed, tasks after k are not started
 * (those before k all run, as one of them may fail too). The threads are
 * the open region's pool (psgi_pool_enter) or started for the call; one
 * that wakes or starts after the tasks are all taken runs none, and the
 * call does not wait for it; one that cannot be started leaves its share
 * to the others. With threads < 2 or n < 2 the tasks run in order on the caller,
 * stopping at the first failure. Returns the number of threads that could
 * take tasks, the caller included. */
unsigned psgi_parallel_for(size_t n, unsigned threads, psgi_task_fn fn, psgi_leave_fn leave, void *user);

/* Opens a region on the calling thread whose parallel loops share one pool
 * of threads-1 threads: started at the region's first loop (none if no loop
 * runs), parked between loops, and told to exit when the region closes
 * (they are detached; psgi_pool_exit does not wait for them). Regions nest:
 * an inner enter joins the outer region. Outside a region each loop starts
 * and closes a pool of its own. */
void psgi_pool_enter(unsigned threads);
void psgi_pool_exit(void);

/* Whether the calling thread has a region open and is neither running a
 * loop's tasks nor one of the pools' threads (exclusive.c's precondition). */
bool psgi_pool_region_open(void);
/* Threads the pools started that have not yet finished (they are about to
 * exit or parked in a pool). */
unsigned psgi_pool_live_threads(void);

/* The number of processors online (at least 1). */
unsigned psgi_num_processors(void);

#endif
