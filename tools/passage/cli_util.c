/* Helpers shared by the CLI's commands: printing diagnostics, writing
 * output files atomically and setting --config options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"

size_t cli_print_diags(psg_ctx *ctx, FILE *to, bool errors_only) {
  size_t errors = 0;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    bool error = psg_diag_severity(d) == PSG_SEVERITY_ERROR;
    if (error || !errors_only) fputs(psg_diag_rendered(d), to);
    errors += error;
  }
  return errors;
}

void cli_report_failure(psg_ctx *ctx, const char *cmd, psg_status st, bool errors_only) {
  if (cli_print_diags(ctx, stderr, errors_only) == 0)
    fprintf(stderr, "passage %s: error: %s\n", cmd, psg_status_str(st));
}

int cli_missing_value(const char *cmd, const char *arg, const char *const *value_flags) {
  for (size_t i = 0; value_flags[i]; i++)
    if (!strcmp(arg, value_flags[i])) {
      fprintf(stderr, "passage %s: option '%s' needs a value (see passage %s --help)\n", cmd, arg, cmd);
      return 1;
    }
  return 0;
}

/* Writes straight into a target that exists and is not a regular file
 * (/dev/null, a FIFO, a terminal): renaming over it would replace the device
 * node with a file. */
static psg_status write_in_place(psg_ctx *ctx, const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, len, f) == len;
  ok = (f && fclose(f) == 0) && ok;
  return ok ? PSG_OK : psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

psg_status cli_write_file_atomic(psg_ctx *ctx, const char *path, const char *data, size_t len) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return write_in_place(ctx, path, data, len);
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return psg_ctx_fail(ctx, PSG_ERR_NOMEM, "out of memory");
  snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    psg_status s = psg_ctx_fail(ctx, PSG_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    free(tmp);
    return s;
  }
  FILE *f = fdopen(fd, "wb");
  int ok = f && fwrite(data, 1, len, f) == len;
  ok = (f ? fclose(f) == 0 : (close(fd), 0)) && ok;
  if (ok && rename(tmp, path) != 0) ok = 0;
  psg_status s = ok ? PSG_OK : psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  if (!ok) unlink(tmp);
  free(tmp);
  return s;
}


psg_status cli_set_bisect_limit(psg_pass_context *pc, const char *text) {
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  char *end;
  errno = 0;
  long long n = strtoll(text, &end, 10);
  if (end == text || *end || errno == ERANGE || n < -1)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "--opt-bisect-limit takes an integer >= -1 (-1: no limit), not '%s'", text);
  psg_attr *v = NULL;
  psg_status st = psg_attr_int(ctx, n, &v);
  if (!st) st = psg_pass_context_set_config(pc, "testing.opt_bisect_limit", v);
  psg_attr_release(v);
  return st;
}

const char *cli_flag_value(int argc, char **argv, int *i, const char *flag) {
  size_t n = strlen(flag);
  if (strncmp(argv[*i], flag, n)) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] || *i + 1 >= argc) return NULL;
  return argv[++*i];
}

char *cli_substitute_path(const char *cmd, const char *path) {
  size_t n = 0, pl = strlen(path);
  for (const char *c = cmd; *c; c++) n += c[0] == '{' && c[1] == '}' ? (c++, pl) : 1;
  char *out = malloc(n + 1), *o = out;
  if (!out) return NULL;
  for (const char *c = cmd; *c; c++) {
    if (c[0] == '{' && c[1] == '}') memcpy(o, path, pl), o += pl, c++;
    else *o++ = *c;
  }
  *o = 0;
  return out;
}
