/* Helpers shared by the CLI's commands: printing diagnostics, writing
 * output files atomically and setting --config options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"

void cli_print_diags(psg_ctx *ctx, FILE *to) {
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), to);
}

/* Writes straight into a target that exists and is not a regular file
 * (/dev/null, a FIFO, a terminal): renaming over it would replace the device
 * node with a file. */
static int write_in_place(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, len, f) == len;
  ok = (f && fclose(f) == 0) && ok;
  if (!ok) fprintf(stderr, "passage: cannot write %s: %s\n", path, strerror(errno));
  return ok ? 0 : -1;
}

int cli_write_file_atomic(const char *path, const char *data, size_t len) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return write_in_place(path, data, len);
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return -1;
  snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "passage: cannot create %s: %s\n", path, strerror(errno));
    free(tmp);
    return -1;
  }
  FILE *f = fdopen(fd, "wb");
  int ok = f && fwrite(data, 1, len, f) == len;
  ok = (f ? fclose(f) == 0 : (close(fd), 0)) && ok;
  if (ok && rename(tmp, path) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "passage: cannot write %s: %s\n", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return ok ? 0 : -1;
}

/* A config value: the pipeline option syntax, or a bare word as a string. */
static psg_status config_value(psg_ctx *ctx, const char *text, psg_attr **out) {
  char c = text[0];
  bool typed = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == '"' || c == '[' ||
               c == '{' || !strcmp(text, "true") || !strcmp(text, "false") || !strcmp(text, "None");
  if (typed) return psg_pipeline_parse_value(ctx, text, out);
  return psg_attr_string(ctx, text, strlen(text), out);
}

psg_status cli_set_config(psg_ctx *ctx, psg_pass_context *pc, const char *key_value) {
  const char *eq = strchr(key_value, '=');
  if (!eq || eq == key_value)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "--config expects KEY=VALUE, got '%s'", key_value);
  char key[256];
  snprintf(key, sizeof key, "%.*s", (int)(eq - key_value), key_value);
  psg_attr *v = NULL;
  psg_status st = config_value(ctx, eq + 1, &v);
  if (!st) st = psg_pass_context_set_config(pc, key, v);
  psg_attr_release(v);
  return st;
}
