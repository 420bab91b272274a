/* passage print IN [-o OUT]: parse (with all checks), then print the module
 * in canonical text. IN may be `-` for standard input. */
#include <stdlib.h>
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
             "Parse and check a module in Relay text (IN may be - for stdin) and print it.\n");
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1]) {
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
  if (psg_ctx_create(NULL, &ctx)) return 1;
  psg_module *m = NULL;
  char *text = NULL;
  size_t len = 0;
  int rc = 1;
  psg_status st;
  if (!strcmp(in, "-")) {
    /* Read all of stdin. */
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0) {
      n += got;
      if (n == cap) {
        char *nb = realloc(buf, cap *= 2);
        if (!nb) {
          free(buf);
          buf = NULL;
        }
        buf = nb;
      }
    }
    st = buf ? psg_module_parse(ctx, buf, n, "<stdin>", &m) : PSG_ERR_NOMEM;
    free(buf);
  } else {
    st = psg_module_parse_file(ctx, in, &m);
  }
  if (!st) st = psg_module_print(m, no_meta ? PSG_PRINT_NO_METADATA : PSG_PRINT_DEFAULT, &text, &len);
  if (!st) {
    if (out)
      rc = cli_write_file_atomic(out, text, len) ? 1 : 0;
    else
      rc = fwrite(text, 1, len, stdout) == len ? 0 : 1;
  }
  if (st) cli_print_diags(ctx, stderr);
  psg_free(text);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return rc;
}
