/* passage reduce IN -p PIPELINE --predicate CMD -o OUT: automatic test-case
 * reduction (issue 20 item 3; docs/pass-infra.md "Reducing a failing case")
 * over psg_reduce. The predicate is a shell command run on each candidate:
 * the candidate's Relay text is written to a temporary file, given as $1
 * (and for {} in CMD, and $PASSAGE_REDUCE_MODULE), with the candidate
 * pipeline as $2 (and $PASSAGE_REDUCE_PIPELINE); exit status 0 means still
 * interesting. A run past --timeout is killed and counts as not. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "passage/reduce.h"

enum { MAX_NAMES = 64 };

typedef struct reduce_args {
  const char *in, *out, *pipeline, *predicate;
  const char *input_shapes[MAX_NAMES], *plugins[MAX_NAMES];
  size_t num_input_shapes, num_plugins;
  double timeout;
  int flags;
  bool verbose, seeded_bugs;
} reduce_args;

typedef struct judge_state {
  const reduce_args *a;
  psg_ctx *ctx;
  const char *tmp;
  size_t timeouts;
} judge_state;

static void usage(FILE *to) {
  fprintf(to,
          "usage: passage reduce IN -p PIPELINE --predicate CMD -o OUT [--timeout SECONDS] [--keep-pipeline]\n"
          "                      [--keep-module] [--input-shape NAME=D0,...] [--load-pass-plugin LIB] [-v]\n"
          "Shrink IN (Relay text or ONNX) and PIPELINE while CMD still calls them interesting: first the\n"
          "pipeline (passes and whole groups dropped), then the module (results re-rooted, calls replaced by\n"
          "zeros or by their inputs, bindings inlined, constants shrunk, unused functions dropped), keeping\n"
          "it well-typed; writes the smallest module found to OUT and prints its pipeline.\n\n"
          "  --predicate CMD   a shell command (sh -c) judging one candidate: $1 (and {} in CMD, and\n"
          "                    $PASSAGE_REDUCE_MODULE) is the candidate module's Relay file, $2 (and\n"
          "                    $PASSAGE_REDUCE_PIPELINE) its pipeline text. Exit status 0: interesting.\n"
          "  --timeout S       kill a predicate run after S seconds (default 60): not interesting\n"
          "  --keep-pipeline   reduce the module only;  --keep-module  the pipeline only\n"
          "  -v                show the predicate's output (on stderr)\n"
          "  --testing-seeded-bugs  TEST ONLY: register the seeded-bug passes (testing.FailOnResizeAdd, ...)\n"
          "Progress (each step with calls, functions and bytes) goes to stderr.\n");
}

static int parse_args(int argc, char **argv, reduce_args *a) {
  memset(a, 0, sizeof *a);
  a->timeout = 60;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(arg, "-p") && i + 1 < argc) {
      a->pipeline = argv[++i];
    } else if (!strcmp(arg, "-o") && i + 1 < argc) {
      a->out = argv[++i];
    } else if ((v = cli_flag_value(argc, argv, &i, "--passes")) != NULL) {
      a->pipeline = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--predicate")) != NULL) {
      a->predicate = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--timeout")) != NULL) {
      char *end;
      a->timeout = strtod(v, &end);
      if (*end || !(a->timeout > 0)) {
        fprintf(stderr, "passage reduce: --timeout wants a positive number of seconds, not '%s'\n", v);
        return 2;
      }
    } else if (a->num_input_shapes < MAX_NAMES && (v = cli_flag_value(argc, argv, &i, "--input-shape")) != NULL) {
      a->input_shapes[a->num_input_shapes++] = v;
    } else if (a->num_plugins < MAX_NAMES && (v = cli_flag_value(argc, argv, &i, "--load-pass-plugin")) != NULL) {
      a->plugins[a->num_plugins++] = v;
    } else if (!strcmp(arg, "--keep-pipeline")) {
      a->flags |= PSG_REDUCE_KEEP_PIPELINE;
    } else if (!strcmp(arg, "--keep-module")) {
      a->flags |= PSG_REDUCE_KEEP_MODULE;
    } else if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
      a->verbose = true;
    } else if (!strcmp(arg, "--testing-seeded-bugs")) {
      a->seeded_bugs = true;
    } else if (arg[0] == '-' && arg[1]) {
      static const char *const value_flags[] = {"-p", "-o", "--passes", "--predicate", "--timeout", "--input-shape",
                                                "--load-pass-plugin", NULL};
      if (cli_missing_value("reduce", arg, value_flags)) return 2;
      fprintf(stderr, "passage reduce: unknown option '%s' (see passage reduce --help)\n", arg);
      return 2;
    } else if (!a->in) {
      a->in = arg;
    } else {
      fprintf(stderr, "passage reduce: more than one input ('%s' and '%s')\n", a->in, arg);
      return 2;
    }
  }
  if (!a->in || !a->pipeline || !a->predicate || !a->out) {
    fprintf(stderr, "passage reduce: IN, -p PIPELINE, --predicate CMD and -o OUT are required (see passage reduce "
                    "--help)\n");
    return 2;
  }
  return -1;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs the predicate in its own process group (so that a timeout kills
 * whatever it started too) and waits at most a->timeout seconds. */
static int run_predicate(judge_state *js, const char *pipeline) {
  const reduce_args *a = js->a;
  char *text = cli_substitute_path(a->predicate, js->tmp);
  if (!text) return psg_ctx_fail(js->ctx, PSG_ERR_NOMEM, "reduce: out of memory");
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int null = open("/dev/null", O_WRONLY);
    if (a->verbose) dup2(2, 1);
    else if (null >= 0) dup2(null, 1), dup2(null, 2);
    setenv("PASSAGE_REDUCE_MODULE", js->tmp, 1);
    setenv("PASSAGE_REDUCE_PIPELINE", pipeline, 1);
    execl("/bin/sh", "sh", "-c", text, "sh", js->tmp, pipeline, (char *)NULL);
    _exit(127);
  }
  free(text);
  if (pid < 0) return psg_ctx_fail(js->ctx, PSG_ERR_IO, "reduce: cannot start the predicate: %s", strerror(errno));
  setpgid(pid, pid); /* also here: no race with the child's own call */
  double deadline = now() + a->timeout;
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return 0;
    if (now() > deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      js->timeouts++;
      fprintf(stderr, "passage reduce: the predicate timed out after %g s (not interesting)\n", a->timeout);
      return 0;
    }
    struct timespec pause = {0, 2000000}; /* 2 ms */
    nanosleep(&pause, NULL);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int judge(void *user, const psg_module *mod, const char *text, size_t len, const char *pipeline) {
  (void)mod;
  judge_state *js = user;
  FILE *f = fopen(js->tmp, "wb");
  bool ok = f && fwrite(text, 1, len, f) == len;
  if (f && fclose(f)) ok = false;
  if (!ok) return psg_ctx_fail(js->ctx, PSG_ERR_IO, "reduce: cannot write %s: %s", js->tmp, strerror(errno));
  return run_predicate(js, pipeline);
}

/* Progress notes and warnings as they come. */
static void sink(void *user, const psg_diag *d) {
  (void)user;
  int sev = psg_diag_severity(d);
  const char *pass = psg_diag_pass(d);
  if (sev == PSG_SEVERITY_WARNING || (sev == PSG_SEVERITY_NOTE && pass && !strcmp(pass, "Reduce")))
    fprintf(stderr, "passage %s\n", psg_diag_message(d));
}

int cmd_reduce(int argc, char **argv) {
  reduce_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  psg_ctx_set_diag_sink(ctx, sink, NULL);
  const char *dir = getenv("TMPDIR");
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s/passage-reduce-XXXXXX.relay", dir && *dir ? dir : "/tmp");
  int fd = mkstemps(tmp, 6);
  judge_state js = {&a, ctx, NULL, 0};
  psg_status st = fd < 0 ? psg_ctx_fail(ctx, PSG_ERR_IO, "cannot make a temporary file %s: %s", tmp, strerror(errno))
                         : PSG_OK;
  if (fd >= 0) close(fd), js.tmp = tmp;
  if (!st && a.seeded_bugs) st = psg_testing_register_seeded_bug_passes(ctx);
  for (size_t i = 0; !st && i < a.num_plugins; i++) st = psg_pass_plugin_load(ctx, a.plugins[i]);
  psg_module *in = NULL, *out = NULL;
  char *pipeline = NULL;
  cli_load_opts lo = {a.input_shapes, a.num_input_shapes, NULL};
  if (!st) st = cli_load_module(ctx, a.in, &lo, &in);
  if (!st) st = psg_reduce(ctx, in, a.pipeline, judge, &js, a.flags, &out, &pipeline);
  if (!st) st = cli_save_module(ctx, out, a.out, PSG_PRINT_DEFAULT);
  if (!st) {
    if (js.timeouts) fprintf(stderr, "passage reduce: %zu predicate runs timed out\n", js.timeouts);
    printf("reduced module: %s\npipeline: %s\n", a.out, pipeline);
  }
  if (st) cli_report_failure(ctx, "reduce", st, true);
  if (js.tmp) unlink(js.tmp);
  psg_free(pipeline);
  psg_module_release(in);
  psg_module_release(out);
  psg_ctx_release(ctx);
  return st ? 1 : 0;
}
