/* `passage print` of TVMScript: a file named *.py or whose text starts like
 * TVMScript (psg_tir_script_detect) is parsed as PrimFuncs and printed back
 * in canonical TVMScript. */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/tvmscript.h"

/* The whole file in a malloc'd buffer, or NULL (errno set). */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

int cli_print_tvmscript(psg_ctx *ctx, const char *in, const char *out) {
  if (!strcmp(in, "-")) return -1;
  size_t n = strlen(in), len = 0;
  bool by_name = n > 3 && !strcmp(in + n - 3, ".py");
  char *text = read_file(in, &len);
  if (!text) return -1; /* the Relay path reports the I/O error */
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
