/* passage bench: the latency of a compiled model (a shared library from
 * `passage compile -o`), and with --profile the time per kernel and per op
 * kind (issue 17, "Speed").
 *   passage bench OUT.so [--runs N] [--warmup N] [--threads N] [--profile] [--json]
 *                 [--input NAME=FILE.npy]... [--random-inputs SEED] [--params FILE.bin]
 * Inputs not given are random (seed 0 unless --random-inputs). Each timed
 * run is the model's run alone (inputs checked and outputs allocated before);
 * the profile comes from separate runs through run_profiled, so the hook's
 * cost never enters the latency. Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/runtime.h"
#include "commands.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorted times: the median (mean of the middle two for an even count) and
 * the nearest-rank percentile q. */
static double median(const double *t, size_t n) { return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2; }
static double percentile(const double *t, size_t n, double q) {
  size_t rank = (size_t)(q * (double)n + 0.999999);
  return t[(rank ? rank : 1) - 1];
}

/* Milliseconds with about four significant digits down to nanoseconds. */
static const char *ms(char *buf, double v) {
  snprintf(buf, 24, v >= 100 ? "%.1f" : v >= 1 ? "%.3f" : v >= 0.01 ? "%.4f" : "%.6f", v);
  return buf;
}

/* One row of a profile table: a kernel name or an op kind. */
typedef struct row {
  const char *name;
  double seconds;
  uint64_t calls;
  size_t kernels; /* distinct kernel names summed into an op kind */
} row;

static int cmp_row(const void *a, const void *b) {
  const row *x = a, *y = b;
  return x->seconds > y->seconds ? -1 : x->seconds < y->seconds;
}

/* Adds kernel call k's totals to the row named `name` (appended if new). */
static void add_row(row *rows, size_t *n, const char *name, double s, uint64_t calls, bool new_kernel) {
  size_t i = 0;
  while (i < *n && strcmp(rows[i].name, name)) i++;
  if (i == *n) rows[(*n)++] = (row){name, 0, 0, 0};
  rows[i].seconds += s;
  rows[i].calls += calls;
  rows[i].kernels += new_kernel;
}

static void print_rows(FILE *f, const char *title, const row *rows, size_t n, double kernel_total, size_t runs,
                       bool json, bool kinds) {
  if (json) {
    fprintf(f, ",\n  \"%s\": [", title);
    for (size_t i = 0; i < n; i++) {
      fprintf(f, "%s\n    {\"name\": \"%s\", \"ms_per_run\": %.6f, \"share\": %.6f, \"calls\": %llu", i ? "," : "",
              rows[i].name, rows[i].seconds * 1e3 / (double)runs, kernel_total > 0 ? rows[i].seconds / kernel_total : 0,
              (unsigned long long)rows[i].calls);
      if (kinds) fprintf(f, ", \"kernels\": %zu}", rows[i].kernels);
      else fprintf(f, "}");
    }
    fprintf(f, "\n  ]");
    return;
  }
  fprintf(f, "%s:\n  %-56s %8s %10s %7s\n", title, kinds ? "op kind (kernels)" : "kernel", "calls", "ms/run",
          "share");
  for (size_t i = 0; i < n; i++) {
    char name[80];
    if (kinds) snprintf(name, sizeof name, "%s (%zu)", rows[i].name, rows[i].kernels);
    else snprintf(name, sizeof name, "%s", rows[i].name);
    char t[24];
    fprintf(f, "  %-56s %8llu %10s %6.1f%%\n", name, (unsigned long long)rows[i].calls,
            ms(t, rows[i].seconds * 1e3 / (double)runs), kernel_total > 0 ? 100 * rows[i].seconds / kernel_total : 0);
  }
}

/* --profile: `runs` profiled runs, then the tables per kernel and per op kind. */
static int profile(psg_ctx *ctx, psg_compiled *m, psg_tensor **args, size_t runs, bool json, psg_status *lib_st) {
  const psg_model_info *info = psg_compiled_info(m);
  size_t nk = (size_t)info->num_kernels;
  double *secs = calloc(nk + 1, sizeof *secs), total = 0;
  uint64_t *calls = calloc(nk + 1, sizeof *calls);
  row *kernels = calloc(nk + 1, sizeof *kernels), *kinds = calloc(nk + 1, sizeof *kinds);
  int rc = 1;
  if (!secs || !calls || !kernels || !kinds) {
    fprintf(stderr, "passage: out of memory\n");
    goto done;
  }
  (void)ctx;
  if ((*lib_st = psg_compiled_profile(m, (const psg_tensor *const *)args, (size_t)info->num_inputs, runs, secs, calls,
                                      &total)) != PSG_OK)
    goto done;
  size_t nkernels = 0, nkinds = 0;
  double kernel_total = 0;
  for (size_t k = 0; k < nk; k++) {
    size_t before = nkernels;
    add_row(kernels, &nkernels, info->kernel_names[k], secs[k], calls[k], false);
    add_row(kinds, &nkinds, psg_compiled_kernel_op(m, k), secs[k], calls[k], nkernels > before);
    kernel_total += secs[k];
  }
  qsort(kernels, nkernels, sizeof *kernels, cmp_row);
  qsort(kinds, nkinds, sizeof *kinds, cmp_row);
  double per_run = total * 1e3 / (double)runs, in_kernels = kernel_total * 1e3 / (double)runs;
  if (json) {
    fprintf(stdout, ",\n  \"profile_runs\": %zu, \"profile_ms_per_run\": %.6f, \"kernel_ms_per_run\": %.6f", runs,
            per_run, in_kernels);
  } else {
    char a[24], b[24], c[24];
    printf("profile over %zu runs: %s ms per run, %s ms in kernels (%.1f%%), %s ms in the host function "
           "and the profile hook\n",
           runs, ms(a, per_run), ms(b, in_kernels), per_run > 0 ? 100 * in_kernels / per_run : 0,
           ms(c, per_run - in_kernels));
  }
  print_rows(stdout, json ? "kernels" : "time per kernel (shares of the time in kernels)", kernels, nkernels,
             kernel_total, runs, json, false);
  print_rows(stdout, json ? "op_kinds" : "time per op kind (the anchor op of each kernel)", kinds, nkinds,
             kernel_total, runs, json, true);
  rc = 0;
done:
  free(secs);
  free(calls);
  free(kernels);
  free(kinds);
  return rc;
}

static int parse_count(const char *flag, const char *s, size_t min, size_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s < '0' || *s > '9' || *end || v < min || v > 100000000)
    return fprintf(stderr, "passage bench: %s takes a number >= %zu, not '%s'\n", flag, min, s), 2;
  *out = (size_t)v;
  return 0;
}

int cmd_bench(int argc, char **argv) {
  const char *path = NULL;
  size_t runs = 21, warmup = 3, threads = 0;
  bool prof = false, json = false;
  uint64_t seed = 1; /* --random-inputs 0's */
  cli_compiled_args a = {.seed = &seed, .random = true};
  for (int i = 1; i < argc; i++) {
    int used = cli_compiled_parse("bench", argc, argv, i, &a);
    if (used < 0) return 2;
    if (used) {
      i += used - 1;
      continue;
    }
    const char *x = argv[i];
    if (!strcmp(x, "--runs") && i + 1 < argc) {
      if (parse_count(x, argv[++i], 1, &runs)) return 2;
    } else if (!strcmp(x, "--warmup") && i + 1 < argc) {
      if (parse_count(x, argv[++i], 0, &warmup)) return 2;
    } else if (!strcmp(x, "--threads") && i + 1 < argc) {
      if (parse_count(x, argv[++i], 1, &threads)) return 2;
    } else if (!strcmp(x, "--profile")) {
      prof = true;
    } else if (!strcmp(x, "--json")) {
      json = true;
    } else if (!strcmp(x, "--help") || !strcmp(x, "-h")) {
      printf("usage: passage bench OUT.so [--runs N] [--warmup N] [--threads N] [--profile] [--json]\n"
             "       [--input NAME=FILE.npy]... [--random-inputs SEED] [--params FILE.bin]\n"
             "       (latency of a compiled model: median and p90 of N timed runs (default 21, after 3\n"
             "       warmup runs); --profile adds N profiled runs: time per kernel and per op kind;\n"
             "       --threads sets the threads of a model built with OpenMP (others run on one);\n"
             "       inputs not given are random, seed 0 unless --random-inputs; docs/runtime.md)\n");
      return 0;
    } else if (x[0] == '-' && x[1]) {
      static const char *const value_flags[] = {"--runs", "--warmup", "--threads", "--input", "--random-inputs",
                                                "--input-shape", "--params", NULL};
      if (cli_missing_value("bench", x, value_flags)) return 2;
      fprintf(stderr, "passage bench: unknown option '%s'\n", x);
      return 2;
    } else if (!path) {
      path = x;
    } else {
      fprintf(stderr, "passage bench: more than one model\n");
      return 2;
    }
  }
  if (!path) return fprintf(stderr, "passage bench: missing the compiled model (see passage bench --help)\n"), 2;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  psg_compiled *m = NULL;
  psg_status lib_st = PSG_OK;
  psg_tensor *args[256] = {0};
  double *times = calloc(runs, sizeof *times);
  int rc = 1;
  if (!times) {
    fprintf(stderr, "passage: out of memory\n");
    goto done;
  }
  if ((lib_st = psg_compiled_load(ctx, path, a.params, &m)) != PSG_OK) goto done;
  const psg_model_info *info = psg_compiled_info(m);
  if (info->num_inputs > 256) {
    fprintf(stderr, "passage bench: the model has %d inputs; bench takes at most 256\n", (int)info->num_inputs);
    goto done;
  }
  char threads_note[160];
  if (psg_compiled_uses_openmp(m)) {
    if (threads && (lib_st = psg_compiled_set_num_threads(m, (int)threads)) != PSG_OK) goto done;
    if (threads) snprintf(threads_note, sizeof threads_note, "%zu (OpenMP)", threads);
    else snprintf(threads_note, sizeof threads_note, "OpenMP's default (OMP_NUM_THREADS or one per core)");
  } else {
    snprintf(threads_note, sizeof threads_note, "1 (built without OpenMP: single-threaded%s)",
             threads > 1 ? "; --threads ignored" : "");
  }
  if ((rc = cli_compiled_inputs(ctx, "bench", m, &a, args, &lib_st)) != 0) goto done;
  rc = 1;
  if ((lib_st = psg_compiled_time(m, (const psg_tensor *const *)args, (size_t)info->num_inputs, warmup, runs,
                                  times)) != PSG_OK)
    goto done;
  qsort(times, runs, sizeof *times, cmp_double);
  double med = median(times, runs) * 1e3, p90 = percentile(times, runs, 0.9) * 1e3;
  if (json) {
    printf("{\n  \"model\": \"%s\", \"name\": \"%s\", \"target\": \"%s\", \"openmp\": %s, \"threads\": %zu,\n"
           "  \"workspace_bytes\": %llu, \"intermediate_bytes\": %llu, \"params_bytes\": %llu, \"kernel_calls\": %d,\n"
           "  \"runs\": %zu, \"warmup\": %zu, \"median_ms\": %.6f, \"p90_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f",
           path, info->name, info->target, psg_compiled_uses_openmp(m) ? "true" : "false",
           psg_compiled_uses_openmp(m) ? threads : 1, (unsigned long long)info->workspace_bytes,
           (unsigned long long)info->intermediate_bytes, (unsigned long long)info->params_bytes, (int)info->num_kernels,
           runs, warmup, med, p90, times[0] * 1e3, times[runs - 1] * 1e3);
  } else {
    printf("model: %s (%s, target \"%s\", %d input%s, %d output%s, %d kernel calls)\n", path, info->name,
           info->target, (int)info->num_inputs, info->num_inputs == 1 ? "" : "s", (int)info->num_outputs,
           info->num_outputs == 1 ? "" : "s", (int)info->num_kernels);
    printf("threads: %s\n", threads_note);
    printf("workspace: %llu bytes (intermediates without reuse: %llu bytes), parameters: %llu bytes\n",
           (unsigned long long)info->workspace_bytes, (unsigned long long)info->intermediate_bytes,
           (unsigned long long)info->params_bytes);
    char a[24], b[24], c[24], d[24];
    printf("latency over %zu runs (after %zu warmup): median %s ms, p90 %s ms, min %s ms, max %s ms\n", runs, warmup,
           ms(a, med), ms(b, p90), ms(c, times[0] * 1e3), ms(d, times[runs - 1] * 1e3));
  }
  if (prof && profile(ctx, m, args, runs, json, &lib_st)) goto done;
  if (json) printf("\n}\n");
  rc = 0;
done:
  if (rc == 1 && lib_st) cli_report_failure(ctx, "bench", lib_st, false);
  for (size_t i = 0; i < 256; i++) psg_tensor_release(args[i]);
  free(times);
  psg_compiled_free(m);
  psg_ctx_release(ctx);
  return rc;
}
