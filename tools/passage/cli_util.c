/* Helpers shared by the CLI's commands: printing diagnostics and writing
 * output files atomically. */
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
