/* The passage CLI's commands: each takes (argc, argv) with argv[0] the
 * command name and returns the exit status (0 ok, 1 bad input or failure,
 * 2 usage error). */
#ifndef PASSAGE_CLI_COMMANDS_H
#define PASSAGE_CLI_COMMANDS_H

#include <stdio.h>
#include "passage/passage.h"
#include "passage/runtime.h"

int cmd_print(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_passes(int argc, char **argv);
int cmd_configs(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_codegen(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
/* passage run of a compiled model (cmd_run_compiled.c); cmd_run hands over
 * when cli_runs_compiled: its input file (the first argument that is not an
 * option or an option's value) is a shared library (cli_is_shared_library:
 * ELF magic or a .so name). */
int cmd_run_compiled(int argc, char **argv);
bool cli_is_shared_library(const char *path);
bool cli_runs_compiled(int argc, char **argv);
/* The input flags of a compiled model's run and bench: --input NAME=FILE.npy,
 * --input-shape (must repeat the compiled shape), --random-inputs SEED,
 * --params FILE.bin. cli_compiled_parse takes argv[i] (and its value) if it
 * is one of them: 2, else 0, or -1 after a usage error. cli_compiled_inputs
 * reads the arrays into args (the model's order; random ones for the rest with
 * --random-inputs): 0, 2 on a usage error, 1 on a failure (a library status in
 * *lib_st, or a message printed). */
typedef struct cli_compiled_args {
  const char *inputs[256];
  size_t ninputs;
  const char *shapes[256];
  size_t nshapes;
  bool random;
  uint64_t *seed;
  const char *params;
} cli_compiled_args;
int cli_compiled_parse(const char *cmd, int argc, char **argv, int i, cli_compiled_args *a);
int cli_compiled_inputs(psg_ctx *ctx, const char *cmd, psg_compiled *m, const cli_compiled_args *a, psg_tensor **args,
                        psg_status *lib_st);
/* passage print of a TVMScript file (cli_tvmscript.c): the exit status, or -1
 * when `in` is not TVMScript. */
int cli_print_tvmscript(psg_ctx *ctx, const char *in, const char *out);

/* Shared helpers (cli_util.c). */
/* Prints the context's diagnostics (only the errors if `errors_only`);
 * returns how many of them are errors. */
size_t cli_print_diags(psg_ctx *ctx, FILE *to, bool errors_only);
/* After a failure with status `st`: the error diagnostics, or, when the
 * context holds none, a line naming the status (no failure is silent). */
void cli_report_failure(psg_ctx *ctx, const char *cmd, psg_status st, bool errors_only);
/* 1 (after saying so on stderr) if `arg`, the last argument, is one of the
 * NULL-ended `value_flags` and so lacks its value; else 0. */
int cli_missing_value(const char *cmd, const char *arg, const char *const *value_flags);
/* Writes `len` bytes to `path` atomically (a temp file in the same directory,
 * then rename), so a failure never leaves a partial file. A failure is a
 * diagnostic on ctx naming the file and the reason. */
psg_status cli_write_file_atomic(psg_ctx *ctx, const char *path, const char *data, size_t len);
/* --opt-bisect-limit=N: N (an integer >= -1) as the config
 * testing.opt_bisect_limit of `pc`; a located error otherwise. */
psg_status cli_set_bisect_limit(psg_pass_context *pc, const char *text);
/* "--flag=value" or "--flag value" at argv[*i] (advancing *i past a
 * separate value); NULL if this argument is not `flag` or lacks its value. */
const char *cli_flag_value(int argc, char **argv, int *i, const char *flag);
/* A predicate command (passage bisect, passage reduce) with each {} replaced
 * by `path`: malloc'd, NULL when out of memory. */
char *cli_substitute_path(const char *cmd, const char *path);
/* --pass-cache DIR: the config passage.pass_cache of `pc` (cli_pass_cache.c). */
psg_status cli_set_pass_cache(psg_pass_context *pc, const char *dir);
/* --pass-cache-stats: one line with the cache's counts under `pc`. */
void cli_report_pass_cache(const psg_pass_context *pc, FILE *to);

/* passage opt --report=FILE, --report-graphs=none|ends|each (cli_report.c):
 * cli_report_parse takes argv[*i] (and its value) if it is one of them: 1,
 * else 0, or -1 after a usage error; cli_report_add adds the report
 * instrument to `pc` when --report was given. */
typedef struct cli_report_opts {
  const char *path;
  int graphs;
  bool graphs_given;
} cli_report_opts;
int cli_report_parse(int argc, char **argv, int *i, cli_report_opts *o);
psg_status cli_report_add(psg_ctx *ctx, psg_pass_context *pc, const cli_report_opts *o);

/* passage opt's validate-each flags (cli_validate.c): --validate-each[=N],
 * --validate-seed S, --input NAME=FILE.npy. cli_validate_parse takes
 * argv[*i] (and its value, advancing *i) if it is one of them: 1, else 0, or
 * -1 after a usage error. cli_validate_configs sets the config options they
 * stand for on `pc` (located errors for a bad N or S). */
typedef struct cli_validate_args {
  const char *count, *seed;
  const char *inputs[64];
  size_t ninputs;
} cli_validate_args;
int cli_validate_parse(int argc, char **argv, int *i, cli_validate_args *v);
psg_status cli_validate_configs(psg_ctx *ctx, const cli_validate_args *v, psg_pass_context *pc);

/* passage run's parts (cmd_run.c): a tensor of uniform values ([-1, 1) for
 * floats, [0, 10) for integers) from the xorshift generator `seed`; writing
 * outputs to OUT.npy (OUT_0.npy, OUT_1.npy, ... for several) or, without
 * out_path, a summary line each on stdout (1 after a failed write, whose
 * status goes to *lib_st). */
psg_status cli_random_tensor(psg_ctx *ctx, int dtype, const int64_t *shape, int nd, uint64_t *seed, psg_tensor **out);
int cli_write_outputs(psg_ctx *ctx, psg_tensor *const *outs, size_t nouts, const char *out_path, psg_status *lib_st);
/* passage run of PrimFunc `f` read from `path` (cmd_run_tir.c): inputs[k] is
 * "NAME=FILE.npy" with its array arrays[k] (taken: set to NULL). Returns the
 * exit status; a library failure's status goes to *lib_st for the caller to
 * report. */
int cli_run_prim_func(psg_ctx *ctx, const char *path, const psg_tir_prim_func *f, const char *fn_name,
                      const char *const *inputs, psg_tensor **arrays, int ninputs, bool random, uint64_t *seed,
                      const char *out_path, psg_status *lib_st);

/* Loading and saving modules by extension (cli_io.c): `.onnx` is ONNX,
 * anything else Relay text; `-` is stdin/stdout. Diagnostics stay on the
 * context for the caller to print. */
typedef struct cli_load_opts {
  /* ONNX only: "name=d0,d1,..." bindings of dynamic input dims (TVM's shape_dict). */
  const char *const *input_shapes;
  size_t num_input_shapes;
  /* NULL, or per binding what it came from for messages (NULL entry: --input-shape). */
  const char *const *input_shape_origins;
} cli_load_opts;
bool cli_is_onnx_path(const char *path);
psg_status cli_load_module(psg_ctx *ctx, const char *path, const cli_load_opts *opts, psg_module **out);
/* All of `f` in a malloc'd buffer (NULL on OOM); *len its size. */
char *cli_read_all(FILE *f, size_t *len);
/* Writes atomically to `path` (NULL or "-": stdout). print_flags: PSG_PRINT_*. */
psg_status cli_save_module(psg_ctx *ctx, const psg_module *m, const char *path, int print_flags);
#endif
