/* passage bisect IN -p PIPELINE --predicate CMD: LLVM's opt-bisect driven to
 * the end (docs/pass-infra.md). The pipeline runs with
 * testing.opt_bisect_limit = N for a binary search over N: the output module
 * is written to a temporary file and the predicate, a shell command, judges
 * it (exit status 0: good). The answer is the first pass execution whose
 * running turns the predicate from passing to failing, with its pass and
 * function. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "commands.h"

enum { MAX_NAMES = 64 };

typedef struct bisect_args {
  const char *in, *pipeline, *predicate;
  int opt_level;
  const char *configs[MAX_NAMES], *plugins[MAX_NAMES];
  size_t num_configs, num_plugins;
} bisect_args;

/* The BISECT notes of the full run: labels[i] is "FoldConstant on @main"
 * for execution i + 1 (and whether it was essential). */
typedef struct labels {
  bool collect;
  char **text;
  size_t n, cap;
} labels;

static void usage(FILE *to) {
  fprintf(to,
          "usage: passage bisect IN -p PIPELINE --predicate CMD [-O0..-O3] [--config K=V] [--load-pass-plugin LIB]\n"
          "Find, by binary search on --opt-bisect-limit, the first pass execution (a pass on a function,\n"
          "or a module pass) after which CMD fails on the pipeline's output.\n\n"
          "  --predicate CMD  a shell command (sh -c) that judges one output: the module's file is $1,\n"
          "                   and {} in CMD is replaced by it; exit status 0 means good, anything\n"
          "                   else bad. A run of the pipeline that fails counts as bad.\n"
          "The output with no optional pass run (limit 0) must be good and the full run's bad.\n"
          "Prints the index, pass and function, and the passage opt command that reproduces it.\n");
}

static int parse_args(int argc, char **argv, bisect_args *a) {
  memset(a, 0, sizeof *a);
  a->opt_level = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(arg, "-p") && i + 1 < argc) {
      a->pipeline = argv[++i];
    } else if ((v = cli_flag_value(argc, argv, &i, "--passes")) != NULL) {
      a->pipeline = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--predicate")) != NULL) {
      a->predicate = v;
    } else if (arg[0] == '-' && arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3' && !arg[3]) {
      a->opt_level = arg[2] - '0';
    } else if (a->num_configs < MAX_NAMES && (v = cli_flag_value(argc, argv, &i, "--config")) != NULL) {
      a->configs[a->num_configs++] = v;
    } else if (a->num_plugins < MAX_NAMES && (v = cli_flag_value(argc, argv, &i, "--load-pass-plugin")) != NULL) {
      a->plugins[a->num_plugins++] = v;
    } else if (arg[0] == '-' && arg[1]) {
      static const char *const value_flags[] = {"-p", "--passes", "--predicate", "--config", "--load-pass-plugin",
                                                NULL};
      if (cli_missing_value("bisect", arg, value_flags)) return 2;
      fprintf(stderr, "passage bisect: unknown option '%s' (see passage bisect --help)\n", arg);
      return 2;
    } else if (!a->in) {
      a->in = arg;
    } else {
      fprintf(stderr, "passage bisect: more than one input ('%s' and '%s')\n", a->in, arg);
      return 2;
    }
  }
  if (!a->in || !a->pipeline || !a->predicate) {
    fprintf(stderr, "passage bisect: IN, -p PIPELINE and --predicate CMD are required (see passage bisect --help)\n");
    return 2;
  }
  return -1;
}

/* Keeps the full run's BISECT notes; shows warnings as they come. */
static void sink(void *user, const psg_diag *d) {
  labels *l = user;
  const char *pass = psg_diag_pass(d);
  if (psg_diag_severity(d) == PSG_SEVERITY_WARNING) fputs(psg_diag_rendered(d), stderr);
  if (!l->collect || psg_diag_severity(d) != PSG_SEVERITY_NOTE || !pass || strcmp(pass, "OptBisect")) return;
  /* "BISECT: running pass (7) FoldConstant on @main"; essential passes
   * have no index and are not kept. Indices come in order from 1. */
  const char *msg = psg_diag_message(d), *p = strstr(msg, " pass (");
  char *end;
  long long index = p ? strtoll(p + 7, &end, 10) : 0;
  if (index < 1 || *end != ')' || (size_t)index != l->n + 1) return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **t = realloc(l->text, cap * sizeof *t);
    if (!t) return;
    l->text = t, l->cap = cap;
  }
  char *copy = strdup(end + 2);
  if (copy) l->text[l->n++] = copy;
}

/* Runs the predicate on `path`: true when it exits with 0. Its output goes
 * to stderr, so that stdout holds the answer only. */
static bool predicate_passes(const char *cmd, const char *path) {
  char *text = cli_substitute_path(cmd, path);
  if (!text) return false;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(2, 1);
    execl("/bin/sh", "sh", "-c", text, "sh", path, (char *)NULL);
    _exit(127);
  }
  free(text);
  int status = 0;
  if (pid < 0) return false;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

typedef struct session {
  psg_ctx *ctx;
  psg_pass_context *pc;
  psg_pass *pipeline;
  psg_module *in;
  const char *predicate, *tmp;
  labels *labels;
} session;

/* One trial at `limit`: true when the output is good. */
static bool good_at(session *s, int64_t limit, bool collect) {
  psg_attr *v = NULL;
  psg_status st = psg_attr_int(s->ctx, limit, &v);
  if (!st) st = psg_pass_context_set_config(s->pc, "testing.opt_bisect_limit", v);
  psg_attr_release(v);
  psg_module *out = NULL;
  s->labels->collect = collect;
  if (!st) st = psg_pass_run(s->pipeline, s->in, s->pc, &out);
  s->labels->collect = false;
  if (!st) st = cli_save_module(s->ctx, out, s->tmp, PSG_PRINT_DEFAULT);
  psg_module_release(out);
  bool good = !st && predicate_passes(s->predicate, s->tmp);
  if (limit == INT64_MAX)
    fprintf(stderr, "passage bisect: every pass run: %s%s\n", good ? "good" : "bad", st ? " (the pipeline failed)" : "");
  else
    fprintf(stderr, "passage bisect: limit %lld: %s%s\n", (long long)limit, good ? "good" : "bad",
            st ? " (the pipeline failed)" : "");
  if (st) cli_print_diags(s->ctx, stderr, true);
  psg_ctx_clear_diags(s->ctx); /* each trial's notes and errors are its own */
  return good;
}

/* The search proper once the input is loaded: the exit status. */
static int search(session *s, const bisect_args *a) {
  if (good_at(s, INT64_MAX, true)) {
    fprintf(stderr, "passage bisect: the predicate holds on the full pipeline's output: nothing to bisect\n");
    return 1;
  }
  size_t total = s->labels->n;
  if (!good_at(s, 0, false)) {
    fprintf(stderr, "passage bisect: the predicate fails with no optional pass run (limit 0): the input or an "
                    "essential pass is to blame, not an optional one\n");
    return 1;
  }
  /* Invariant: good at lo, bad at hi. */
  int64_t lo = 0, hi = (int64_t)total;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (good_at(s, mid, false)) lo = mid;
    else hi = mid;
  }
  const char *label = hi >= 1 && (size_t)hi <= total ? s->labels->text[hi - 1] : "?";
  printf("first bad pass execution: (%lld) %s\n", (long long)hi, label);
  printf("reproduce: passage opt %s -p '%s' --opt-bisect-limit=%lld", a->in, a->pipeline, (long long)hi);
  if (a->opt_level >= 0) printf(" -O%d", a->opt_level);
  for (size_t i = 0; i < a->num_plugins; i++) printf(" --load-pass-plugin %s", a->plugins[i]);
  for (size_t i = 0; i < a->num_configs; i++) printf(" --config '%s'", a->configs[i]);
  printf("\n");
  return 0;
}

int cmd_bisect(int argc, char **argv) {
  bisect_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  labels l = {0};
  psg_ctx_set_diag_sink(ctx, sink, &l);
  session s = {ctx, NULL, NULL, NULL, a.predicate, NULL, &l};
  const char *dir = getenv("TMPDIR");
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s/passage-bisect-XXXXXX.relay", dir && *dir ? dir : "/tmp");
  int fd = mkstemps(tmp, 6);
  psg_status st = fd < 0 ? psg_ctx_fail(ctx, PSG_ERR_IO, "cannot make a temporary file %s: %s", tmp, strerror(errno))
                         : PSG_OK;
  if (fd >= 0) close(fd), s.tmp = tmp;
  for (size_t i = 0; !st && i < a.num_plugins; i++) st = psg_pass_plugin_load(ctx, a.plugins[i]);
  if (!st) st = psg_pass_context_create(ctx, &s.pc);
  if (!st && a.opt_level >= 0) st = psg_pass_context_set_opt_level(s.pc, a.opt_level);
  for (size_t i = 0; !st && i < a.num_configs; i++) st = psg_pass_context_set_config_text(s.pc, a.configs[i]);
  bool entered = !st && !psg_pass_context_enter(s.pc);
  if (!st && !entered) st = PSG_ERR_PASS_FAILED;
  if (!st) st = psg_pipeline_parse(ctx, a.pipeline, &s.pipeline);
  cli_load_opts lo = {NULL, 0, NULL};
  if (!st) st = cli_load_module(ctx, a.in, &lo, &s.in);
  rc = st ? 1 : search(&s, &a);
  if (entered) psg_pass_context_exit(s.pc);
  if (st) cli_report_failure(ctx, "bisect", st, true);
  if (s.tmp) unlink(s.tmp);
  for (size_t i = 0; i < l.n; i++) free(l.text[i]);
  free(l.text);
  psg_module_release(s.in);
  psg_pass_release(s.pipeline);
  psg_pass_context_release(s.pc);
  psg_ctx_release(ctx);
  return rc;
}
