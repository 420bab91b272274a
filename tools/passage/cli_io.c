/* Loading and saving modules for every command, chosen by file extension:
 * `.onnx` is ONNX (the ONNX frontend's branch lives here too), anything else
 * (`.relay`, `-` for stdin/stdout) is Relay text. One place, so `print`,
 * `opt`, `run` and `import` accept the same inputs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/onnx.h"

bool cli_is_onnx_path(const char *path) {
  size_t n = strlen(path);
  return n > 5 && !strcmp(path + n - 5, ".onnx");
}

/* All of stdin in a malloc'd buffer (NULL on OOM). */
static char *read_stdin(size_t *len) {
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  *len = n;
  return buf;
}

psg_status cli_load_module(psg_ctx *ctx, const char *path, const cli_load_opts *opts, psg_module **out) {
  *out = NULL;
  if (cli_is_onnx_path(path)) {
    psg_onnx_import_opts io = {opts ? opts->input_shapes : NULL, opts ? opts->num_input_shapes : 0,
                               opts ? opts->input_shape_origins : NULL};
    return psg_onnx_import_file(ctx, path, &io, out);
  }
  if (strcmp(path, "-")) return psg_module_parse_file(ctx, path, out);
  size_t len = 0;
  char *text = read_stdin(&len);
  if (!text) return PSG_ERR_NOMEM;
  psg_status st = psg_module_parse(ctx, text, len, "<stdin>", out);
  free(text);
  return st;
}

psg_status cli_save_module(psg_ctx *ctx, const psg_module *m, const char *path, int print_flags) {
  if (path && cli_is_onnx_path(path)) {
    void *bytes = NULL;
    size_t n = 0;
    psg_status st = psg_onnx_export(ctx, m, &bytes, &n);
    if (!st) st = cli_write_file_atomic(ctx, path, bytes, n);
    psg_free(bytes);
    return st;
  }
  char *text = NULL;
  size_t len = 0;
  psg_status st = psg_module_print(m, print_flags, &text, &len);
  if (st) return st;
  if (path && strcmp(path, "-"))
    st = cli_write_file_atomic(ctx, path, text, len);
  else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
    st = psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write to standard output: %s", strerror(errno));
  psg_free(text);
  return st;
}
