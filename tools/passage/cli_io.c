/* Loading and saving modules for every command, chosen by file extension:
 * `.onnx` is ONNX (the ONNX frontend's branch lives here too); `.py`, or a
 * text that starts like TVMScript (psg_tir_script_detect), is TVMScript,
 * loaded as a module of PrimFuncs; anything else (`.relay`, `-` for
 * stdin/stdout) is Relay text, which may hold PrimFuncs as `@T.prim_func`
 * blocks (docs/text-format.md, "Relay and TIR in one file"). One place, so
 * `print`, `opt`, `run` and `import` accept the same inputs. A module of
 * PrimFuncs only is saved as TVMScript: one PrimFunc as a bare
 * `@T.prim_func`, several as an `@I.ir_module`; a module holding a Relay
 * function is saved as Relay text, its PrimFuncs as blocks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/onnx.h"
#include "passage/tvmscript.h"

bool cli_is_onnx_path(const char *path) {
  size_t n = strlen(path);
  return n > 5 && !strcmp(path + n - 5, ".onnx");
}

char *cli_read_all(FILE *f, size_t *len) {
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
  *len = n;
  return buf;
}

static bool has_suffix(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n > k && !strcmp(path + n - k, suffix);
}

/* TVMScript `len` bytes of `text` as a module of PrimFuncs. */
static psg_status load_tvmscript(psg_ctx *ctx, const char *text, size_t len, const char *name, psg_module **out) {
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_parse(ctx, text, len, name, &s);
  if (!st) st = psg_tir_script_to_module(s, out);
  psg_tir_script_release(s);
  return st;
}

/* Whether the file at `path` is TVMScript: by name, or by its first bytes.
 * An unreadable file is not (the Relay reader reports why). */
static bool is_tvmscript_file(const char *path) {
  if (has_suffix(path, ".py")) return true;
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  char head[4096];
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return psg_tir_script_detect(head, n);
}

psg_status cli_load_module(psg_ctx *ctx, const char *path, const cli_load_opts *opts, psg_module **out) {
  *out = NULL;
  if (cli_is_onnx_path(path)) {
    psg_onnx_import_opts io = {opts ? opts->input_shapes : NULL, opts ? opts->num_input_shapes : 0,
                               opts ? opts->input_shape_origins : NULL};
    return psg_onnx_import_file(ctx, path, &io, out);
  }
  bool from_stdin = !strcmp(path, "-");
  if (!from_stdin && !is_tvmscript_file(path)) return psg_module_parse_file(ctx, path, out);
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  size_t len = 0;
  char *text = cli_read_all(f, &len);
  if (!from_stdin) fclose(f);
  if (!text) return PSG_ERR_NOMEM;
  psg_status st = psg_tir_script_detect(text, len) || has_suffix(path, ".py")
                      ? load_tvmscript(ctx, text, len, from_stdin ? "<stdin>" : path, out)
                      : psg_module_parse(ctx, text, len, "<stdin>", out);
  free(text);
  return st;
}

/* The module as TVMScript text when it holds PrimFuncs only; *text NULL
 * when it holds a Relay function (or nothing). */
static psg_status print_if_tir(const psg_module *m, char **text, size_t *len) {
  *text = NULL;
  size_t n = psg_module_num_functions(m);
  for (size_t i = 0; i < n; i++)
    if (!psg_module_get_prim_func(m, i)) return PSG_OK;
  if (n == 0) return PSG_OK;
  if (n == 1) return psg_tir_script_print_func(psg_module_get_prim_func(m, 0), NULL, PSG_TIR_SCRIPT_DEFAULT, text, len);
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_from_module(m, &s);
  if (!st) st = psg_tir_script_print(s, PSG_TIR_SCRIPT_DEFAULT, text, len);
  psg_tir_script_release(s);
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
  psg_status st = print_if_tir(m, &text, &len);
  if (!st && !text) st = psg_module_print(m, print_flags, &text, &len);
  if (st) return st;
  if (path && strcmp(path, "-"))
    st = cli_write_file_atomic(ctx, path, text, len);
  else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
    st = psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write to standard output: %s", strerror(errno));
  psg_free(text);
  return st;
}
