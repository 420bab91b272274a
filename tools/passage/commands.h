/* The passage CLI's commands: each takes (argc, argv) with argv[0] the
 * command name and returns the exit status (0 ok, 1 bad input or failure,
 * 2 usage error). */
#ifndef PASSAGE_CLI_COMMANDS_H
#define PASSAGE_CLI_COMMANDS_H

#include <stdio.h>
#include "passage/passage.h"

int cmd_print(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_passes(int argc, char **argv);
int cmd_configs(int argc, char **argv);
int cmd_ops(int argc, char **argv);

/* Shared helpers (cli_util.c). */
void cli_print_diags(psg_ctx *ctx, FILE *to);
/* Writes `len` bytes to `path` atomically (a temp file in the same directory,
 * then rename), so a failure never leaves a partial file. 0 on success. */
int cli_write_file_atomic(const char *path, const char *data, size_t len);
#endif
