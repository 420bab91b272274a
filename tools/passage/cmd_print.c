/* passage print IN [-o OUT]: parse (with all checks), then print the module
 * in canonical text. IN may be `-` for standard input. */
#include <string.h>
#include "commands.h"

int cmd_print(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  bool no_meta = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--no-metadata")) {
      no_meta = true;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: passage print IN [-o OUT] [--no-metadata]\n"
             "Parse and check a module in Relay text (IN may be - for stdin) and print it.\n"
             "A *.py file, or one starting like TVMScript, is parsed and printed as TVMScript.\n");
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      if (cli_missing_value("print", argv[i], (const char *const[]){"-o", NULL})) return 2;
      fprintf(stderr, "passage print: unknown option '%s'\n", argv[i]);
      return 2;
    } else if (!in) {
      in = argv[i];
    } else {
      fprintf(stderr, "passage print: more than one input\n");
      return 2;
    }
  }
  if (!in) {
    fprintf(stderr, "passage print: missing input (see passage print --help)\n");
    return 2;
  }
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  int tir_rc = cli_print_tvmscript(ctx, in, out);
  if (tir_rc >= 0) {
    psg_ctx_release(ctx);
    return tir_rc;
  }
  psg_module *m = NULL;
  psg_status st = cli_load_module(ctx, in, NULL, &m);
  if (!st) st = cli_save_module(ctx, m, out, no_meta ? PSG_PRINT_NO_METADATA : PSG_PRINT_DEFAULT);
  if (st) cli_report_failure(ctx, "print", st, false);
  int rc = st ? 1 : 0;
  psg_module_release(m);
  psg_ctx_release(ctx);
  return rc;
}
