/* Benchmark (issue 21): what is alive, in bytes per op call, at each phase of
 * bench_passes' run: after the parse, after InferType, and during and after
 * every pass of a pipeline (nested passes indented).
 *
 *   bench_memory N [PASS [take] [pool]]
 *                                  PASS is a pass or O0..O3 (default O3);
 *                                  take: psg_pass_run_take, as `passage opt`
 *                                  runs (the input freed once no pass needs it);
 *                                  pool: the default allocator instead, and
 *                                  per phase what the process paid for memory
 *
 * The context gets a counting allocator (the C library's, with the bytes the
 * library asks for added up), so the numbers are the library's own live
 * bytes, exact and independent of the pool's size classes and chunks; the
 * process's peak RSS (VmHWM) under the default pool is what bench_passes
 * and bench/run_scale.sh report. Per line: "phase live_B/call peak_B/call"
 * where peak is the most alive at once since the phase began.
 *
 * With `pool` the context keeps the default allocator (its pool of huge-page
 * chunks) and each line says instead what the phase cost the process in
 * memory: its resident set after the phase (MB), the system time spent in the
 * phase (ms: mostly the kernel zeroing pages the pool maps fresh) and the
 * page faults taken in it (a populated huge page is one). Under
 * `strace -e trace=madvise,munmap,write` each line also marks where a phase's
 * mappings end (the pool populates each fresh mapping with one madvise). */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "passage/passage.h"
#include "residual_model.h"

static atomic_llong live, peak;
static long calls; /* the requested N, the divisor */

static void note_peak(long long now) {
  long long p = atomic_load(&peak);
  while (now > p && !atomic_compare_exchange_weak(&peak, &p, now)) {
  }
}

static void *counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  (void)user;
  if (new_size == 0) {
    free(ptr);
    atomic_fetch_sub(&live, (long long)old_size);
    return NULL;
  }
  void *p = realloc(ptr, new_size);
  if (!p) return NULL;
  note_peak(atomic_fetch_add(&live, (long long)new_size - (long long)old_size) + (long long)new_size -
            (long long)old_size);
  return p;
}

static bool pool_mode;
/* At the start of the current phase, per nesting depth (pool mode). */
enum { MAX_DEPTH = 64 };
static double phase_sys[MAX_DEPTH + 1];
static long phase_faults[MAX_DEPTH + 1];

static void usage_now(double *sys_ms, long *faults) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *sys_ms = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
  *faults = ru.ru_minflt + ru.ru_majflt;
}

static double rss_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(f);
  }
  return rss * 4096.0 / (1 << 20);
}

static void phase_begin(int d) {
  if (d <= MAX_DEPTH) usage_now(&phase_sys[d], &phase_faults[d]);
}

static void report(const char *phase, int depth) {
  if (pool_mode) {
    double sys;
    long faults;
    usage_now(&sys, &faults);
    int d = depth <= MAX_DEPTH ? depth : MAX_DEPTH;
    printf("%*s%-*s %8.0f %8.0f %8ld\n", 2 * depth, "", 28 - 2 * depth, phase, rss_mb(), sys - phase_sys[d],
           faults - phase_faults[d]);
    fflush(stdout);
    phase_begin(d);
    return;
  }
  printf("%*s%-*s %8.0f %8.0f\n", 2 * depth, "", 28 - 2 * depth, phase, (double)atomic_load(&live) / calls,
         (double)atomic_load(&peak) / calls);
  fflush(stdout);
}

/* Nested passes: each before-hook saves the enclosing pass's peak and starts
 * its own at what is alive now; the after-hook reports and folds it back. */
static long long saved_peak[MAX_DEPTH];
static int depth;

static psg_status before_pass(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)user, (void)pc, (void)mod, (void)info;
  if (depth < MAX_DEPTH) saved_peak[depth] = atomic_load(&peak);
  depth++;
  atomic_store(&peak, atomic_load(&live));
  phase_begin(depth);
  return PSG_OK;
}

static psg_status after_pass(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)user, (void)pc, (void)mod;
  depth--;
  report(psg_pass_info_name(info), depth + 1);
  if (depth < MAX_DEPTH) note_peak(saved_peak[depth]);
  return PSG_OK;
}

static void die(psg_ctx *ctx, const char *what) {
  fprintf(stderr, "bench_memory: %s failed\n", what);
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx) && i < 5; i++)
    fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  exit(1);
}

int main(int argc, char **argv) {
  calls = argc > 1 ? atol(argv[1]) : 100000;
  const char *name = argc > 2 ? argv[2] : "O3";
  bool take = false;
  for (int i = 3; i < argc; i++) {
    take |= !strcmp(argv[i], "take");
    pool_mode |= !strcmp(argv[i], "pool");
  }
  if (calls < 1) calls = 1;
  long blocks = calls / CALLS_PER_BLOCK > 0 ? calls / CALLS_PER_BLOCK : 1;
  psg_allocator alloc = {counting_realloc, NULL};
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(pool_mode ? NULL : &alloc, &ctx)) die(NULL, "context");
  if (pool_mode)
    printf("%-28s %8s %8s %8s   (N = %ld)\n", "phase", "rss_MB", "sys_ms", "faults", calls);
  else
    printf("%-28s %8s %8s   (bytes per requested op call, N = %ld)\n", "phase", "live", "peak", calls);
  phase_begin(0);
  report("context", 0);
  char *text = model_text(blocks);
  psg_module *m = NULL, *typed = NULL, *out = NULL;
  atomic_store(&peak, atomic_load(&live));
  if (psg_module_parse(ctx, text, strlen(text), "bench.relay", &m)) die(ctx, "parse");
  free(text);
  report("parse", 0);
  psg_pass *infer = NULL, *p = NULL;
  atomic_store(&peak, atomic_load(&live));
  if (psg_pass_get(ctx, "InferType", NULL, &infer) || psg_pass_run(infer, m, NULL, &typed)) die(ctx, "InferType");
  report("InferType", 0);
  psg_pass_release(infer);
  psg_module_release(m); /* the typed module holds what it still needs */
  report("parsed module released", 0);

  psg_pass_context *pc = NULL;
  psg_instrument *inst = NULL;
  psg_instrument_callbacks cb = {.run_before_pass = before_pass, .run_after_pass = after_pass};
  int level = name[0] == 'O' && name[1] >= '0' && name[1] <= '3' && !name[2] ? name[1] - '0' : 4;
  if (psg_pass_get(ctx, name, NULL, &p) || psg_pass_context_create(ctx, &pc) ||
      psg_pass_context_set_opt_level(pc, level) || psg_instrument_create(ctx, "memory", &cb, NULL, NULL, &inst) ||
      psg_pass_context_add_instrument(pc, inst))
    die(ctx, name);
  psg_instrument_release(inst);
  atomic_store(&peak, atomic_load(&live));
  if ((take ? psg_pass_run_take : psg_pass_run)(p, typed, pc, &out)) die(ctx, name);
  report("(run returned)", 0);
  if (!take) {
    psg_module_release(typed);
    report("input released", 0);
  }
  psg_module_release(out);
  psg_pass_release(p);
  psg_pass_context_release(pc);
  report("output released", 0);
  psg_ctx_release(ctx);
  return 0;
}
