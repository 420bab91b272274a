/* passage compile: a model (ONNX or Relay text) to C or to a shared library
 * (issue 17, docs/compile.md): the pipeline of `passage opt -O3 --lower`,
 * then the C generator and the host function (psg_compile_* in
 * passage/compile.h), then, for -o, the system C compiler. A summary goes to
 * stderr. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "passage/compile.h"

#define MAX_SHAPES 64

static void usage(FILE *to) {
  fprintf(to,
          "usage: passage compile MODEL(.onnx|.relay) [-O0..-O3] [--input-shape NAME=D0,D1,...]\n"
          "                       [--target \"c -mcpu=native -num-threads=1\"] [--name P]\n"
          "                       [--params OUT.bin] (--emit-c OUT.c | -o OUT.so)\n"
          "Compile a model to C: the pipeline of `passage opt -O3 --lower`, one C function per\n"
          "PrimFunc, and a host function over a static memory plan (include/passage/model_abi.h).\n\n"
          "  -O0 .. -O3            the opt level (default 3)\n"
          "  --input-shape N=D,..  ONNX input: bind dynamic input dims (repeatable)\n"
          "  --target T            kind c with -mcpu=CPU (cc's -march, default native),\n"
          "                        -num-threads=N (OpenMP when > 1), -vector-ext=0|1,\n"
          "                        -link-params=0|1 (0: constants in the params file)\n"
          "  --name P              the C prefix of P_info and P_run (default model)\n"
          "  --params FILE         put the constants in FILE (default: only above 64 MiB,\n"
          "                        beside the output as OUT.bin, where loaders look)\n"
          "  --emit-c OUT.c        write one self-contained C file and OUT.h\n"
          "  -o OUT.so             build a shared library with $CC (default cc)\n");
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

int cmd_compile(int argc, char **argv) {
  const char *in = NULL, *target = NULL, *name = NULL, *emit_c = NULL, *so = NULL, *params = NULL;
  const char *shapes[MAX_SHAPES];
  size_t nshapes = 0;
  int level = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
      level = a[2] - '0';
    } else if (!strcmp(a, "--input-shape") && has) {
      if (nshapes >= MAX_SHAPES) return fprintf(stderr, "passage compile: too many --input-shape\n"), 2;
      shapes[nshapes++] = argv[++i];
    } else if (!strncmp(a, "--input-shape=", 14)) {
      if (nshapes >= MAX_SHAPES) return fprintf(stderr, "passage compile: too many --input-shape\n"), 2;
      shapes[nshapes++] = a + 14;
    } else if (!strcmp(a, "--target") && has) {
      target = argv[++i];
    } else if (!strncmp(a, "--target=", 9)) {
      target = a + 9;
    } else if (!strcmp(a, "--name") && has) {
      name = argv[++i];
    } else if (!strcmp(a, "--params") && has) {
      params = argv[++i];
    } else if (!strcmp(a, "--emit-c") && has) {
      emit_c = argv[++i];
    } else if (!strcmp(a, "-o") && has) {
      so = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      static const char *const value_flags[] = {"--input-shape", "--target", "--name", "--params", "--emit-c", "-o", NULL};
      if (cli_missing_value("compile", a, value_flags)) return 2;
      fprintf(stderr, "passage compile: unknown option '%s' (see passage compile --help)\n", a);
      return 2;
    } else if (!in) {
      in = a;
    } else {
      fprintf(stderr, "passage compile: more than one input ('%s' and '%s')\n", in, a);
      return 2;
    }
  }
  if (!in) return fprintf(stderr, "passage compile: missing input (see passage compile --help)\n"), 2;
  if (!emit_c == !so) return fprintf(stderr, "passage compile: give one of --emit-c OUT.c and -o OUT.so\n"), 2;

  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  psg_pass_context *pc = NULL;
  psg_module *m = NULL, *low = NULL;
  psg_compile_output *c = NULL;
  bool entered = false;
  uint64_t cc_us = 0;
  psg_status st = psg_pass_context_create(ctx, &pc);
  if (!st) st = psg_pass_context_set_opt_level(pc, level);
  if (!st) st = psg_pass_context_enter(pc);
  entered = !st;
  cli_load_opts lo = {shapes, nshapes, NULL};
  if (!st) st = cli_load_module(ctx, in, &lo, &m);
  if (!st) st = psg_compile_lower(m, pc, &low);
  if (entered) {
    psg_status ex = psg_pass_context_exit(pc);
    if (!st) st = ex;
  }
  if (!st) st = psg_compile_to_c(low, target, name, params ? PSG_COMPILE_PARAMS_FILE : 0, &c);
  double ours = seconds_since(&t0);
  if (!st && emit_c) st = psg_compile_output_write_c(ctx, c, emit_c, params);
  if (!st && so) st = psg_compile_shared(ctx, c, so, params, &cc_us);
  if (!st) {
    uint64_t pbytes;
    psg_compile_output_params(c, &pbytes);
    fprintf(stderr,
            "passage compile: %s: %llu kernels, %llu calls; workspace %llu bytes (sum of intermediates %llu); "
            "constants %llu bytes%s; target \"%s\"; %.3f s in passage (codegen %.3f s), %.3f s in the C compiler\n",
            in, (unsigned long long)psg_compile_output_stat(c, PSG_COMPILE_STAT_KERNELS),
            (unsigned long long)psg_compile_output_stat(c, PSG_COMPILE_STAT_CALLS),
            (unsigned long long)psg_compile_output_stat(c, PSG_COMPILE_STAT_WORKSPACE_BYTES),
            (unsigned long long)psg_compile_output_stat(c, PSG_COMPILE_STAT_INTERMEDIATE_BYTES),
            (unsigned long long)psg_compile_output_stat(c, PSG_COMPILE_STAT_CONSTANT_BYTES),
            pbytes ? " (in the params file)" : "", psg_compile_output_target(c), ours,
            (double)psg_compile_output_stat(c, PSG_COMPILE_STAT_CODEGEN_US) * 1e-6, (double)cc_us * 1e-6);
  }
  if (st) cli_report_failure(ctx, "compile", st, false);
  psg_compile_output_free(c);
  psg_module_release(low);
  psg_module_release(m);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
  return st ? 1 : 0;
}
