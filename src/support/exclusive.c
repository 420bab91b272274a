/* Passage — exclusive mode (support.h, docs/design.md departure 208).
 *
 * Once a process has a second thread, glibc's __libc_single_threaded stays
 * false for good, and every reference count, pool lock and interner lock
 * of the library turns atomic: 25-45% on the serial parts of a threaded
 * pass run (2 cores), which then made two threads slower than one. But in
 * a run with a pool, between parallel loops, the pool's threads are parked
 * and touch nothing; if the process has no other thread, the run's caller
 * is alone and plain instructions are exact. So a built-in pass body turns
 * the mode on after counting the process's threads (the kernel's count in
 * /proc/self/stat, against the threads the pools started and that have not
 * finished), and the mode goes off:
 * - before a parallel loop is published (thread_pool.c; the pool's mutex
 *   orders the caller's plain writes before the workers' reads, and the
 *   workers' writes before the caller turns the mode back on, re-counting);
 * - around code that is not the library's: instruments, bodies of users'
 *   passes, users' type relations and op hooks, diagnostic sinks and the
 *   free_user callbacks, any of which could start a thread.
 * Only a thread in a region with a pool can turn it on, so a process with
 * other threads, or whose pool threads are still exiting (the kernel counts
 * them until their thread-local destructors are done), stays atomic. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "support/support.h"
#include "support/thread_pool.h"

bool psgi_exclusive;

/* The process's threads (field 20 of /proc/self/stat), or 0 if unknown. */
static long process_threads(void) {
  char buf[1024];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  /* The command name (field 2) is in parentheses and may hold spaces. */
  char *p = strrchr(buf, ')');
  if (!p) return 0;
  for (int field = 2; field < 20; field++) {
    p = strchr(p + 1, ' ');
    if (!p) return 0;
  }
  return strtol(p + 1, NULL, 10);
}

static bool alone(void) {
  if (!psgi_pool_region_open()) return false;
  long n = process_threads();
  return n > 0 && n == 1 + (long)psgi_pool_live_threads();
}

bool psgi_exclusive_begin(bool on) {
  bool was = __atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED);
  if (on == was) return was;
  if (!on || alone()) __atomic_store_n(&psgi_exclusive, on, __ATOMIC_RELAXED);
  return was;
}

void psgi_exclusive_end(bool was) {
  bool now = __atomic_load_n(&psgi_exclusive, __ATOMIC_RELAXED);
  if (now == was) return;
  if (!was || alone()) __atomic_store_n(&psgi_exclusive, was, __ATOMIC_RELAXED);
}
