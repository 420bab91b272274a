/* passage opt IN [-o OUT]: run a pass pipeline (pipeline text or an -O level)
 * over a module under a PassContext built from the flags, with the IR
 * printing and timing instruments on request (spec/pass-infra.md). */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/instrument.h"

enum { MAX_NAMES = 64 };

typedef struct opt_args {
  const char *in, *out, *pipeline;
  int opt_level; /* -1: not given */
  const char *disabled[MAX_NAMES], *required[MAX_NAMES], *configs[MAX_NAMES];
  const char *before[MAX_NAMES + 1], *after[MAX_NAMES + 1];
  size_t num_disabled, num_required, num_configs, num_before, num_after;
  const char *input_shapes[MAX_NAMES]; /* ONNX input: NAME=D0,D1,... */
  size_t num_input_shapes;
  int print_flags;
  const char *time_passes; /* NULL, "tree", "flat" or "json" */
  const char *bisect_limit; /* --opt-bisect-limit=N: the config testing.opt_bisect_limit */
  const char *plugins[MAX_NAMES];
  size_t num_plugins;
  bool dump_pipeline, no_meta, lower;
  char threads_config[48]; /* --threads N as the config assignment it stands for */
  bool verify_each, local_reproducer, seeded_bugs;
  const char *reproducer, *run_reproducer;
  cli_report_opts report;
  const char *pass_cache; /* --pass-cache DIR */
  bool pass_cache_stats;
  cli_validate_args validate; /* --validate-each, --validate-seed, --input (cli_validate.c) */
} opt_args;

static void usage(FILE *to) {
  fprintf(to,
          "usage: passage opt IN [-o OUT] [-O0|-O1|-O2|-O3] [-p PIPELINE] [options]\n"
          "Run a pass pipeline over a module (IN may be - for stdin; OUT defaults to stdout,\n"
          "and is written atomically).\n\n"
          "  -O0 .. -O3               the PassContext opt level (default 2); without -p the\n"
          "                           pipeline is the registered pipeline O<N>\n"
          "  -p, --passes PIPELINE    e.g. 'sequential(InferType,FoldConstant)' or 'O3'\n"
          "  --disable-pass NAME      never run NAME in a Sequential (repeatable, or a,b,c)\n"
          "  --required-pass NAME     always run NAME in a Sequential, whatever its level\n"
          "  --config KEY=VALUE       a PassContext config option (`passage configs`);\n"
          "                           VALUE: 1, true, 2.5, \"text\", [1,2], {field=1}\n"
          "  --threads N              run function and prim-func passes on N threads (0: one per\n"
          "                           processor; default 1); the output is the serial run's\n"
          "                           (--config passage.num_threads=N)\n"
          "  --print-ir-before=NAME   print the module before each run of pass NAME\n"
          "  --print-ir-after=NAME    print the module after each run of pass NAME\n"
          "  --print-ir-before-all    print before every pass\n"
          "  --print-ir-after-all     print after every pass\n"
          "  --print-ir-after-change  print after a pass only if it changed the module\n"
          "  --print-ir-after-failure print the input of a pass that failed\n"
          "  --time-passes[=tree|flat|json]  report pass times on stderr (default tree)\n"
          "  --pass-cache DIR         reuse the per-function results of cacheable passes stored in DIR\n"
          "                           and store new ones (--config passage.pass_cache=DIR)\n"
          "  --pass-cache-stats       print the cache's hits, misses and stores on stderr\n"
          "  --opt-bisect-limit=N     run only the first N pass executions (a module pass counts once, a\n"
          "                           function pass once per function), skip the others except essential\n"
          "                           ones; a BISECT line on stderr for each (-1: no limit; passage bisect)\n"
          "  --load-pass-plugin LIB   load a pass plugin (a shared library) first; repeatable\n"
          "  --input-shape NAME=D0,D1,...    ONNX input: bind dynamic input dims (repeatable)\n"
          "  --dump-pipeline          print the expanded pipeline text, the pipeline and what runs at\n"
          "                           this level, then exit\n"
          "  --no-metadata            print constants inline instead of in a metadata section\n"
          "  --lower                  then run the pipeline 'lower' (LowerTE and tir.default_pipeline)\n"
          "                           under the same context: the output holds the Relay host\n"
          "                           graph and the PrimFuncs (docs/lowering.md)\n"
          "  --verify-each            check the module after every pass that changed it\n"
          "                           (config testing.verify_each; docs/pass-infra.md)\n"
          "  --reproducer=FILE        when a pass fails or crashes, write FILE: the pipeline, the\n"
          "                           context and the input module (config testing.reproducer)\n"
          "  --local-reproducer       ... holding only the failing pass and its own input\n"
          "  --validate-each[=N]      run @main before and after every pass that changed the module\n"
          "                           on N inputs (default 1) with the reference interpreter; fail\n"
          "                           the first pass whose outputs differ (testing.validate_each)\n"
          "  --validate-seed S        seed of the random validation inputs (default 0)\n"
          "  --input NAME=FILE.npy    a validation input of @main (repeatable; the others random)\n"
          "  --run-reproducer FILE    replay a reproducer (IN, -p and the context come from FILE;\n"
          "                           flags given here are added to its context)\n"
          "  --report=FILE            write a one-file HTML report of the run to FILE: the pass tree with\n"
          "                           times, changes, counts and IR diffs, the graph drawn by Graphviz\n"
          "  --report-graphs=none|ends|each  graphs before and after the run (ends, the default),\n"
          "                           also after every pass that changed the module, or none\n"
          "  --testing-seeded-bugs    TEST ONLY: register the seeded-bug passes testing.BreakTypes,\n"
          "                           testing.BreakPrimFunc, testing.Crash, testing.AddToSubtract,\n"
          "                           testing.NudgeConstants, testing.NudgeConstantsReassoc and\n"
          "                           testing.TirFloatAddToSub\n"
          "IR printing and timing go to stderr.\n");
}

/* Splits "a,b,c" into `names` (the strings point into `list`, which is argv). */
static bool add_names(char *list, const char **names, size_t *n) {
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    if (*n >= MAX_NAMES) return false;
    names[(*n)++] = tok;
  }
  return true;
}

static int parse_args(int argc, char **argv, opt_args *a) {
  memset(a, 0, sizeof *a);
  a->opt_level = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    bool ok = true;
    int took = cli_report_parse(argc, argv, &i, &a->report);
    if (took < 0) return 2;
    if (took) continue;
    int taken = cli_validate_parse(argc, argv, &i, &a->validate);
    if (taken < 0) return 2;
    if (taken) continue;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(arg, "-o") && i + 1 < argc) {
      a->out = argv[++i];
    } else if (arg[0] == '-' && arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3' && !arg[3]) {
      a->opt_level = arg[2] - '0';
    } else if (!strcmp(arg, "-p") && i + 1 < argc) {
      a->pipeline = argv[++i];
    } else if ((v = cli_flag_value(argc, argv, &i, "--passes")) != NULL) {
      a->pipeline = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--disable-pass")) != NULL) {
      ok = add_names((char *)v, a->disabled, &a->num_disabled);
    } else if ((v = cli_flag_value(argc, argv, &i, "--required-pass")) != NULL) {
      ok = add_names((char *)v, a->required, &a->num_required);
    } else if ((v = cli_flag_value(argc, argv, &i, "--input-shape")) != NULL) {
      ok = a->num_input_shapes < MAX_NAMES;
      if (ok) a->input_shapes[a->num_input_shapes++] = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--opt-bisect-limit")) != NULL) {
      a->bisect_limit = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--load-pass-plugin")) != NULL) {
      ok = a->num_plugins < MAX_NAMES;
      if (ok) a->plugins[a->num_plugins++] = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--config")) != NULL) {
      ok = a->num_configs < MAX_NAMES;
      if (ok) a->configs[a->num_configs++] = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--threads")) != NULL) {
      char *end = NULL;
      long n = strtol(v, &end, 10);
      if (!*v || *end || n < 0 || n > 1024) {
        fprintf(stderr, "passage opt: --threads takes a count from 0 to 1024, not '%s'\n", v);
        return 2;
      }
      snprintf(a->threads_config, sizeof a->threads_config, "passage.num_threads=%ld", n);
      ok = a->num_configs < MAX_NAMES;
      if (ok) a->configs[a->num_configs++] = a->threads_config;
    } else if ((v = cli_flag_value(argc, argv, &i, "--print-ir-before")) != NULL) {
      ok = add_names((char *)v, a->before, &a->num_before);
    } else if ((v = cli_flag_value(argc, argv, &i, "--print-ir-after")) != NULL) {
      ok = add_names((char *)v, a->after, &a->num_after);
    } else if (!strcmp(arg, "--print-ir-before-all")) {
      a->print_flags |= PSG_PRINT_IR_BEFORE_ALL;
    } else if (!strcmp(arg, "--print-ir-after-all")) {
      a->print_flags |= PSG_PRINT_IR_AFTER_ALL;
    } else if (!strcmp(arg, "--print-ir-after-change")) {
      a->print_flags |= PSG_PRINT_IR_AFTER_CHANGE;
    } else if (!strcmp(arg, "--print-ir-after-failure")) {
      a->print_flags |= PSG_PRINT_IR_AFTER_FAILURE;
    } else if (!strcmp(arg, "--time-passes")) {
      a->time_passes = "tree";
    } else if (!strncmp(arg, "--time-passes=", 14)) {
      a->time_passes = arg + 14;
      if (strcmp(a->time_passes, "tree") && strcmp(a->time_passes, "flat") && strcmp(a->time_passes, "json")) {
        fprintf(stderr, "passage opt: --time-passes takes tree, flat or json, not '%s'\n", a->time_passes);
        return 2;
      }
    } else if (!strcmp(arg, "--dump-pipeline")) {
      a->dump_pipeline = true;
    } else if (!strcmp(arg, "--no-metadata")) {
      a->no_meta = true;
    } else if (!strcmp(arg, "--lower")) {
      a->lower = true;
    } else if (!strcmp(arg, "--verify-each")) {
      a->verify_each = true;
    } else if (!strcmp(arg, "--local-reproducer")) {
      a->local_reproducer = true;
    } else if (!strcmp(arg, "--testing-seeded-bugs")) {
      a->seeded_bugs = true;
    } else if ((v = cli_flag_value(argc, argv, &i, "--reproducer")) != NULL) {
      a->reproducer = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--run-reproducer")) != NULL) {
      a->run_reproducer = v;
    } else if ((v = cli_flag_value(argc, argv, &i, "--pass-cache")) != NULL) {
      a->pass_cache = v;
    } else if (!strcmp(arg, "--pass-cache-stats")) {
      a->pass_cache_stats = true;
    } else if (arg[0] == '-' && arg[1]) {
      static const char *const value_flags[] = {"-o", "-p", "--passes", "--disable-pass", "--required-pass",
                                                "--input-shape", "--config", "--threads", "--print-ir-before",
                                                "--print-ir-after", "--reproducer", "--run-reproducer",
                                                "--opt-bisect-limit", "--load-pass-plugin", "--report",
                                                "--report-graphs", "--pass-cache", "--validate-seed", "--input",
                                                NULL};
      if (cli_missing_value("opt", arg, value_flags)) return 2;
      if (arg[1] == 'O')
        fprintf(stderr, "passage opt: the opt level is -O0, -O1, -O2 or -O3, not '%s'\n", arg);
      else
        fprintf(stderr, "passage opt: unknown option '%s' (see passage opt --help)\n", arg);
      return 2;
    } else if (!a->in) {
      a->in = arg;
    } else {
      fprintf(stderr, "passage opt: more than one input ('%s' and '%s')\n", a->in, arg);
      return 2;
    }
    if (!ok) {
      fprintf(stderr, "passage opt: too many values for '%s' (at most %d)\n", arg, MAX_NAMES);
      return 2;
    }
  }
  if (a->run_reproducer && (a->in || a->pipeline || a->opt_level >= 0)) {
    fprintf(stderr, "passage opt: --run-reproducer takes the input, pipeline and opt level from its file\n");
    return 2;
  }
  if (!a->in && !a->dump_pipeline && !a->run_reproducer) {
    fprintf(stderr, "passage opt: missing input (see passage opt --help)\n");
    return 2;
  }
  return -1;
}

/* The flags of verify-each and reproducers, as the config options they set. */
static psg_status set_debug_configs(psg_ctx *ctx, const opt_args *a, psg_pass_context *pc) {
  psg_attr *v = NULL;
  psg_status st = PSG_OK;
  if (a->verify_each && !(st = psg_attr_bool(ctx, true, &v))) st = psg_pass_context_set_config(pc, "testing.verify_each", v);
  psg_attr_release(v), v = NULL;
  if (!st && a->reproducer && !(st = psg_attr_string(ctx, a->reproducer, strlen(a->reproducer), &v)))
    st = psg_pass_context_set_config(pc, "testing.reproducer", v);
  psg_attr_release(v), v = NULL;
  if (!st && a->local_reproducer && !(st = psg_attr_bool(ctx, true, &v)))
    st = psg_pass_context_set_config(pc, "testing.local_reproducer", v);
  psg_attr_release(v);
  return st;
}

/* The context from the flags, or from the reproducer being replayed (then
 * *mod and *pipeline come from it too) with the flags added. */
static psg_status build_context(psg_ctx *ctx, const opt_args *a, psg_pass_context **out, psg_module **mod,
                                char **pipeline) {
  psg_pass_context *pc = NULL;
  psg_status st = a->run_reproducer ? psg_reproducer_load(ctx, a->run_reproducer, &pc, pipeline, mod)
                                    : psg_pass_context_create(ctx, &pc);
  if (!st) st = set_debug_configs(ctx, a, pc);
  if (!st) st = cli_validate_configs(ctx, &a->validate, pc);
  if (!st && a->opt_level >= 0) st = psg_pass_context_set_opt_level(pc, a->opt_level);
  for (size_t i = 0; !st && i < a->num_disabled; i++) st = psg_pass_context_add_disabled_pass(pc, a->disabled[i]);
  for (size_t i = 0; !st && i < a->num_required; i++) st = psg_pass_context_add_required_pass(pc, a->required[i]);
  for (size_t i = 0; !st && i < a->num_configs; i++) st = psg_pass_context_set_config_text(pc, a->configs[i]);
  if (!st && a->bisect_limit) st = cli_set_bisect_limit(pc, a->bisect_limit);
  if (!st && a->pass_cache) st = cli_set_pass_cache(pc, a->pass_cache);
  if (st) {
    psg_pass_context_release(pc);
    pc = NULL;
  }
  *out = pc;
  return st;
}

static const char *kind_name(int kind) {
  switch (kind) {
  case PSG_PASS_MODULE: return "module pass";
  case PSG_PASS_FUNCTION: return "function pass";
  case PSG_PASS_PRIM_FUNC: return "prim-func pass";
  case PSG_PASS_SEQUENTIAL: return "sequential";
  default: return "?";
  }
}

/* One line per pass, indented by nesting, with whether it runs under `pc`:
 * a Sequential's children are gated by PassEnabled, the top pass is called
 * directly and always runs. Walks with an explicit stack. */
static void dump_tree(psg_pass *top, psg_pass_context *pc) {
  struct frame {
    psg_pass *p;
    size_t next;
    bool runs;
  } stack[72];
  int sp = 0;
  stack[0] = (struct frame){top, 0, true};
  for (;;) {
    struct frame *f = &stack[sp];
    if (f->next == 0) {
      const psg_pass_info *info = psg_pass_get_info(f->p);
      char *text = psg_pipeline_print(f->p);
      const char *shown = psg_pass_kind(f->p) == PSG_PASS_SEQUENTIAL ? psg_pass_info_name(info) : text;
      printf("%*s%-*s # %s, opt level %d%s", 2 * sp, "", 30 - 2 * sp > 1 ? 30 - 2 * sp : 1, shown ? shown : "?",
             kind_name(psg_pass_kind(f->p)), psg_pass_info_opt_level(info), f->runs ? "" : ", skipped at this level");
      for (size_t i = 0; i < psg_pass_info_num_required(info); i++)
        printf("%s%s", i ? ", " : ", requires ", psg_pass_info_required(info, i));
      printf("\n");
      psg_free(text);
    }
    if (f->next < psg_pass_num_children(f->p) && sp + 1 < (int)(sizeof stack / sizeof *stack)) {
      psg_pass *c = psg_pass_get_child(f->p, f->next++);
      bool runs = f->runs && psg_pass_context_pass_enabled(pc, psg_pass_get_info(c));
      stack[++sp] = (struct frame){c, 0, runs};
      continue;
    }
    if (sp-- == 0) break;
  }
}

/* --dump-pipeline: the text (which parses back), the tree, and for an -O
 * pipeline the default-pipeline passes it does not contain and why. */
static void dump_pipeline(psg_ctx *ctx, psg_pass *p, psg_pass_context *pc) {
  char *text = psg_pipeline_print_expanded(p);
  printf("%s\n", text ? text : "?");
  psg_free(text);
  text = psg_pipeline_print(p);
  printf("pipeline: %s\n", text ? text : "?");
  psg_free(text);
  printf("opt level: %d\n", psg_pass_context_opt_level(pc));
  dump_tree(p, pc);
  const char *name = psg_pass_info_name(psg_pass_get_info(p));
  if (!(name[0] == 'O' && name[1] >= '0' && name[1] <= '3' && !name[2])) return;
  int level = name[1] - '0';
  printf("%s is TVM's default pipeline (tvm-behavior 7.2) restricted to the registered passes of\n"
         "opt level <= %d; it grows as passes are registered. Left out of it now:\n",
         name, level);
  size_t shown = 0;
  for (size_t i = 0; i < psg_default_pipeline_count(); i++) {
    const char *n = psg_default_pipeline_name(i);
    int lvl = psg_default_pipeline_opt_level(i); /* TVM's; a registered pass's own level wins */
    bool registered = false;
    for (size_t j = 0; j < psg_pass_registry_count(ctx) && !registered; j++)
      if ((registered = !strcmp(psg_pass_registry_name(ctx, j), n)) != false) lvl = psg_pass_registry_opt_level(ctx, j);
    if (registered && lvl <= level) continue;
    printf("  %-28s opt level %d, %s\n", n, lvl, registered ? "above this level" : "not registered yet");
    shown++;
  }
  if (!shown) printf("  (nothing)\n");
}

/* IR printing and PrintIR go to stderr as they happen. */
static void to_stderr(void *user, const char *text, size_t len) {
  (void)user;
  fwrite(text, 1, len, stderr);
}

/* IR printing and warnings (e.g. FoldConstant's "not folded: ...") are shown
 * as they come, also when the run succeeds; errors at the end. */
static void stream_print_ir(void *user, const psg_diag *d) {
  (void)user;
  if (psg_diag_severity(d) == PSG_SEVERITY_NOTE && psg_diag_pass(d) &&
      (!strcmp(psg_diag_pass(d), "PrintIR") || !strcmp(psg_diag_pass(d), "OptBisect")))
    fprintf(stderr, "%s\n", psg_diag_message(d));
  else if (psg_diag_severity(d) == PSG_SEVERITY_WARNING)
    fputs(psg_diag_rendered(d), stderr);
}

static void report_timing(psg_instrument *timing, const char *mode) {
  char *s = !strcmp(mode, "flat")   ? psg_timing_render_flat(timing, 0)
            : !strcmp(mode, "json") ? psg_timing_render_json(timing)
                                    : psg_timing_render(timing);
  if (s && *s) {
    if (!strcmp(mode, "tree")) fputs("pass timing (us, self us in [], % of total; % of parent):\n", stderr);
    fputs(s, stderr);
  }
  psg_free(s);
}

static psg_status add_instruments(psg_ctx *ctx, opt_args *a, psg_pass_context *pc, psg_instrument **timing) {
  psg_status st = PSG_OK;
  if (a->print_flags || a->num_before || a->num_after) {
    psg_instrument *pi = NULL;
    a->before[a->num_before] = NULL;
    a->after[a->num_after] = NULL;
    st = psg_print_ir_instrument_create(ctx, a->before, a->after, a->print_flags, to_stderr, NULL, &pi);
    if (!st) st = psg_pass_context_add_instrument(pc, pi);
    psg_instrument_release(pi);
  }
  if (!st && a->time_passes) {
    st = psg_timing_instrument_create(ctx, timing);
    if (!st) st = psg_pass_context_add_instrument(pc, *timing);
  }
  if (!st) st = cli_report_add(ctx, pc, &a->report);
  return st;
}

int cmd_opt(int argc, char **argv) {
  opt_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  psg_ctx_set_diag_sink(ctx, stream_print_ir, NULL);
  psg_pass_context *pc = NULL;
  psg_pass *pipeline = NULL;
  psg_module *in = NULL, *out = NULL;
  psg_instrument *timing = NULL;
  char level_name[4] = {'O', (char)('0' + (a.opt_level >= 0 ? a.opt_level : 2)), 0, 0};
  const char *text = a.pipeline ? a.pipeline : level_name;
  char *lowered_text = NULL, *repro_pipeline = NULL;
  psg_status st = a.seeded_bugs ? psg_testing_register_seeded_bug_passes(ctx) : PSG_OK;
  /* Plugins first: the pipeline text, --config keys and the context may
   * name what they register. */
  for (size_t i = 0; !st && i < a.num_plugins; i++) st = psg_pass_plugin_load(ctx, a.plugins[i]);
  if (!st) st = build_context(ctx, &a, &pc, &in, &repro_pipeline);
  if (repro_pipeline) text = repro_pipeline;
  if (!st && a.lower) {
    size_t n = strlen(text) + sizeof "sequential(,lower)";
    lowered_text = malloc(n);
    if (!lowered_text) st = psg_ctx_fail(ctx, PSG_ERR_NOMEM, "out of memory");
    else snprintf(lowered_text, n, "sequential(%s,lower)", text), text = lowered_text;
  }
  /* Entered before the pipeline is made (a pipeline constructor may read
   * the context in force, as tvm.lower reads its config when it builds the
   * list) and before loading (the context's limits bound the ONNX import
   * too). */
  bool entered = false;
  if (!st) st = psg_pass_context_enter(pc);
  entered = !st;
  if (!st) st = psg_pipeline_parse(ctx, text, &pipeline);
  if (!st && a.dump_pipeline) {
    dump_pipeline(ctx, pipeline, pc);
    goto exit;
  }
  if (!st) st = add_instruments(ctx, &a, pc, &timing);
  cli_load_opts lo = {a.input_shapes, a.num_input_shapes, NULL};
  if (!st && !in) st = cli_load_module(ctx, a.in, &lo, &in);
  /* The run takes the input and frees it once no pass needs it (the
   * largest modules then hold one copy fewer at the peak). */
  if (!st) st = psg_pass_run_take(pipeline, in, pc, &out), in = NULL;
exit:
  if (entered) {
    psg_status ex = psg_pass_context_exit(pc);
    if (!st) st = ex;
  }
  if (a.dump_pipeline) goto done;
  if (timing) report_timing(timing, a.time_passes);
  if (a.pass_cache_stats && pc) cli_report_pass_cache(pc, stderr);
  if (!st) st = cli_save_module(ctx, out, a.out, a.no_meta ? PSG_PRINT_NO_METADATA : PSG_PRINT_DEFAULT);
done:
  if (st) cli_report_failure(ctx, "opt", st, true); /* warnings were shown as they came */
  rc = st ? 1 : 0;
  psg_module_release(in);
  psg_module_release(out);
  psg_pass_release(pipeline);
  psg_instrument_release(timing);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
  free(lowered_text);
  psg_free(repro_pipeline);
  return rc;
}
