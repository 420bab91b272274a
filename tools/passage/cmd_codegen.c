/* passage codegen MODULE [-o OUT.c] [--no-vector-ext] [--openmp]: the C
 * kernels of a module's PrimFuncs (a lowered Relay module, `passage opt M
 * -O3 --lower`, or a TVMScript file), prelude first (docs/codegen.md). */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "passage/codegen.h"
#include "passage/tvmscript.h"

static const char USAGE[] =
    "usage: passage codegen MODULE(.relay|.py) [-o OUT.c] [--no-vector-ext] [--openmp]\n"
    "Print the C99 kernel of every PrimFunc of a lowered module or a TVMScript file.\n"
    "  -o OUT.c           write to OUT.c (default: stdout)\n"
    "  --no-vector-ext    vectors as arrays in structs, never GCC/Clang vector extensions\n"
    "  --openmp           parallel loops as `omp parallel for` (build with -fopenmp)\n";

/* The TVMScript of `path`, or NULL (not TVMScript: *is_script false). */
static psg_tir_script *load_script(psg_ctx *ctx, const char *path, bool *is_script, psg_status *st) {
  size_t n = strlen(path), len = 0;
  *is_script = false;
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
  if (!f) return NULL;
  char *text = cli_read_all(f, &len);
  fclose(f);
  if (!text) return NULL;
  psg_tir_script *s = NULL;
  if ((n > 3 && !strcmp(path + n - 3, ".py")) || psg_tir_script_detect(text, len)) {
    *is_script = true;
    *st = psg_tir_script_parse(ctx, text, len, path, &s);
  }
  free(text);
  return s;
}

int cmd_codegen(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  int flags = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(USAGE, stdout), 0;
    if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--no-vector-ext")) flags |= PSG_CODEGEN_NO_VECTOR_EXT;
    else if (!strcmp(argv[i], "--openmp")) flags |= PSG_CODEGEN_OPENMP;
    else if (argv[i][0] == '-' && argv[i][1]) return fprintf(stderr, "passage codegen: unknown option '%s'\n%s", argv[i], USAGE), 2;
    else if (!in) in = argv[i];
    else return fprintf(stderr, "passage codegen: more than one input\n%s", USAGE), 2;
  }
  if (!in) return fputs(USAGE, stderr), 2;
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage codegen: out of memory\n"), 1;
  psg_status st = PSG_OK;
  bool is_script = false;
  psg_module *m = NULL;
  psg_tir_script *s = load_script(ctx, in, &is_script, &st);
  if (!is_script) {
    cli_load_opts lo = {NULL, 0, NULL};
    st = cli_load_module(ctx, in, &lo, &m);
  }
  psg_tir_prim_func **funcs = NULL;
  const char **names = NULL;
  size_t n = 0;
  if (!st) {
    size_t cap = s ? psg_tir_script_count(s) : psg_module_num_functions(m);
    funcs = calloc(cap + 1, sizeof *funcs);
    names = calloc(cap + 1, sizeof *names);
    for (size_t i = 0; funcs && names && i < cap; i++) {
      psg_tir_prim_func *f = s ? psg_tir_script_get(s, i) : psg_module_get_prim_func(m, i);
      if (!f) continue; /* a Relay function */
      funcs[n] = f;
      names[n++] = s ? psg_tir_script_name(s, i) : psg_global_var_name(psg_module_get_global_var(m, i));
    }
  }
  char *text = NULL;
  size_t len = 0;
  if (!st) st = psg_codegen_c(ctx, funcs, names, n, flags, &text, &len);
  if (!st) {
    if (out && strcmp(out, "-")) st = cli_write_file_atomic(ctx, out, text, len);
    else fwrite(text, 1, len, stdout);
  }
  if (st) cli_report_failure(ctx, "codegen", st, false);
  psg_free(text);
  free(funcs);
  free(names);
  psg_tir_script_release(s);
  psg_module_release(m);
  psg_ctx_release(ctx);
  return st ? 1 : 0;
}
