/* `passage print` of TVMScript: a file named *.py or whose text starts like
 * TVMScript (psg_tir_script_detect) is parsed as PrimFuncs and printed back
 * in canonical TVMScript. */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/tvmscript.h"

int cli_print_tvmscript(psg_ctx *ctx, const char *in, const char *out) {
  if (!strcmp(in, "-")) return -1;
  size_t n = strlen(in), len = 0;
  bool by_name = n > 3 && !strcmp(in + n - 3, ".py");
  FILE *f = fopen(in, "rb");
  if (!f) return -1; /* the Relay path reports the I/O error */
  char *text = cli_read_all(f, &len);
  fclose(f);
  if (!text) return -1;
  if (!by_name && !psg_tir_script_detect(text, len)) {
    free(text);
    return -1;
  }
  psg_tir_script *s = NULL;
  char *printed = NULL;
  size_t plen = 0;
  psg_status st = psg_tir_script_parse(ctx, text, len, in, &s);
  free(text);
  if (!st) st = psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, &printed, &plen);
  if (!st) {
    if (out && strcmp(out, "-")) st = cli_write_file_atomic(ctx, out, printed, plen);
    else fwrite(printed, 1, plen, stdout);
  }
  if (st) cli_report_failure(ctx, "print", st, false);
  psg_free(printed);
  psg_tir_script_release(s);
  return st ? 1 : 0;
}
