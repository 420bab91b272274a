/* passage import: convert an ONNX model to Relay text (issue 6).
 *   passage import MODEL.onnx [-o OUT.relay] [--input-shape NAME=D0,D1,...]...
 * Dynamic input dims are bound with --input-shape (TVM's shape_dict). */
#include <string.h>
#include "commands.h"

int cmd_import(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  const char *shapes[256];
  size_t nshapes = 0;
  bool no_meta = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--input-shape") && i + 1 < argc) {
      if (nshapes == 256) return fprintf(stderr, "passage import: too many --input-shape\n"), 2;
      shapes[nshapes++] = argv[++i];
    } else if (!strcmp(argv[i], "--no-metadata")) {
      no_meta = true;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: passage import MODEL.onnx [-o OUT.relay|OUT.onnx] [--input-shape NAME=D0,D1,...]... [--no-metadata]\n"
             "Import an ONNX model (opsets 7-18) and write it as Relay text (or ONNX, by extension).\n");
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      if (cli_missing_value("import", argv[i], (const char *const[]){"-o", "--input-shape", NULL})) return 2;
      fprintf(stderr, "passage import: unknown option '%s'\n", argv[i]);
      return 2;
    } else if (!in) {
      in = argv[i];
    } else {
      fprintf(stderr, "passage import: more than one input\n");
      return 2;
    }
  }
  if (!in) return fprintf(stderr, "passage import: missing input model (see passage import --help)\n"), 2;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  psg_module *m = NULL;
  cli_load_opts lo = {shapes, nshapes, NULL};
  psg_status st = cli_load_module(ctx, in, &lo, &m);
  if (!st) st = cli_save_module(ctx, m, out, no_meta ? PSG_PRINT_NO_METADATA : PSG_PRINT_DEFAULT);
  if (st) cli_report_failure(ctx, "import", st, false);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return st ? 1 : 0;
}
