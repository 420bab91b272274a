/* passage — the command-line tool over libpassage (public API only).
 *   passage print IN [-o OUT]        parse, check, print
 *   passage run IN [--input ...]     evaluate @main with the interpreter
 *   passage opt IN [-o OUT] [-O N] [-p PIPELINE] ...  run passes
 *   passage passes | configs         list passes / config options
 *   passage ops                      list operators
 *   passage --version | help [CMD]                                     */
#include <stdio.h>
#include <string.h>
#include "commands.h"

typedef struct command {
  const char *name;
  const char *help;
  int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {
    {"print", "parse, check and print a module in Relay text", cmd_print},
    {"run", "evaluate @main with the reference interpreter", cmd_run},
    {"opt", "run a pass pipeline (-O level or -p PIPELINE) over a module", cmd_opt},
    {"bisect", "find the first pass execution that breaks a predicate (opt-bisect)", cmd_bisect},
    {"reduce", "shrink a module and pipeline while a predicate holds (test-case reduction)", cmd_reduce},
    {"passes", "list the registered passes", cmd_passes},
    {"configs", "list the PassContext config options", cmd_configs},
    {"import", "convert an ONNX model to Relay text", cmd_import},
    {"ops", "list the registered operators with their attributes", cmd_ops},
    {"schedule", "apply tir.Schedule primitives to a TVMScript PrimFunc", cmd_schedule},
    {"codegen", "print the C kernels of a lowered module's PrimFuncs", cmd_codegen},
    {"compile", "compile a model to C or a shared library (--emit-c OUT.c | -o OUT.so)", cmd_compile},
    {"bench", "time a compiled model (passage compile -o): latency, time per kernel", cmd_bench},
};
enum { NUM_COMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *to) {
  fprintf(to, "usage: passage COMMAND [ARGS]\n\ncommands:\n");
  for (int i = 0; i < NUM_COMMANDS; i++) fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].help);
  fprintf(to, "\n`passage help COMMAND` or `passage COMMAND --help` for details; `passage --version`.\n");
}

/* Levenshtein distance for "did you mean" (small strings only). */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (la >= 63 || lb >= 63) return 99;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], v = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < v) v = up + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      row[j] = v;
      diag = up;
    }
  }
  return row[lb];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("passage %s\n", psg_version());
    return 0;
  }
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    if (argc > 2) {
      for (int i = 0; i < NUM_COMMANDS; i++)
        if (!strcmp(argv[2], commands[i].name)) {
          char *args[] = {argv[2], "--help", NULL};
          return commands[i].fn(2, args);
        }
      fprintf(stderr, "passage: no command '%s'\n", argv[2]);
      return 2;
    }
    usage(stdout);
    return 0;
  }
  for (int i = 0; i < NUM_COMMANDS; i++)
    if (!strcmp(cmd, commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
  const char *best = NULL;
  size_t bestd = 3;
  for (int i = 0; i < NUM_COMMANDS; i++) {
    size_t d = distance(cmd, commands[i].name);
    if (d < bestd) bestd = d, best = commands[i].name;
  }
  fprintf(stderr, "passage: unknown command '%s'", cmd);
  if (best) fprintf(stderr, "; did you mean '%s'?", best);
  fprintf(stderr, "\n");
  usage(stderr);
  return 2;
}
