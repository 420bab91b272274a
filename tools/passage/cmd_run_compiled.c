/* passage run of a compiled model (a shared library from `passage compile
 * -o`), and the input handling `passage bench` shares with it.
 *   passage run OUT.so [--input NAME=FILE.npy]... [--random-inputs SEED] [--params FILE.bin] [-o OUT.npy]
 * `passage run` hands a file that is a shared library (ELF magic or a .so
 * name) here. The model's shapes are fixed when it is compiled: the arrays
 * must match them (--input-shape may repeat them, not change them). Public
 * API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/runtime.h"
#include "commands.h"

bool cli_is_shared_library(const char *path) {
  size_t n = strlen(path);
  if (n > 3 && !strcmp(path + n - 3, ".so")) return true;
  FILE *f = fopen(path, "rb");
  unsigned char magic[4] = {0};
  bool elf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\x7f" "ELF", 4);
  if (f) fclose(f);
  return elf;
}

bool cli_runs_compiled(int argc, char **argv) {
  static const char *const value_flags[] = {"-o", "--output", "--input", "--random-inputs", "--input-shape",
                                            "--config", "--function", "--func", "--params", NULL};
  for (int i = 1; i < argc; i++) {
    const char *x = argv[i];
    if (x[0] != '-' || !x[1]) return cli_is_shared_library(x);
    for (size_t k = 0; value_flags[k]; k++)
      if (!strcmp(x, value_flags[k])) {
        i++;
        break;
      }
  }
  return false;
}

static const char *shape_text(char *buf, size_t cap, const int64_t *dims, int nd) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < nd && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
  return buf;
}

/* --input-shape NAME=D0,D1,... against the compiled shape: 0 if it repeats
 * it, else 1 after saying why it cannot change it. */
static int check_input_shape(const char *cmd, const psg_model_info *info, const char *arg) {
  const char *eq = strrchr(arg, '=');
  if (!eq) return fprintf(stderr, "passage %s: --input-shape expects NAME=D0,D1,..., got '%s'\n", cmd, arg), 1;
  for (int i = 0; i < info->num_inputs; i++) {
    const psg_model_tensor_info *t = &info->inputs[i];
    if (strlen(t->name) != (size_t)(eq - arg) || strncmp(t->name, arg, (size_t)(eq - arg))) continue;
    int64_t dims[64];
    int nd = 0;
    const char *p = eq + 1;
    while (*p && nd < 64) {
      char *end;
      dims[nd++] = strtoll(p, &end, 10);
      if (end == p) break;
      p = *end == ',' ? end + 1 : end;
    }
    bool same = nd == t->ndim && !*p;
    for (int d = 0; same && d < nd; d++) same = dims[d] == t->shape[d];
    if (same) return 0;
    char a[256];
    fprintf(stderr, "passage %s: the model was compiled for input '%s' of shape %s; --input-shape %s cannot change "
            "it (compile the model again with it)\n", cmd, t->name, shape_text(a, sizeof a, t->shape, t->ndim), arg);
    return 1;
  }
  fprintf(stderr, "passage %s: --input-shape %s: the model has no input named '%.*s'\n", cmd, arg, (int)(eq - arg), arg);
  return 1;
}

int cli_compiled_inputs(psg_ctx *ctx, const char *cmd, psg_compiled *m, const cli_compiled_args *a, psg_tensor **args,
                        psg_status *lib_st) {
  const psg_model_info *info = psg_compiled_info(m);
  for (size_t i = 0; i < a->nshapes; i++)
    if (check_input_shape(cmd, info, a->shapes[i])) return 1;
  /* Read every --input; the last one of a name is the one run. */
  psg_tensor **given = calloc(a->ninputs + 1, sizeof *given);
  const char **names = calloc(a->ninputs + 1, sizeof *names);
  char **owned = calloc(a->ninputs + 1, sizeof *owned);
  int rc = 1;
  if (!given || !names || !owned) {
    fprintf(stderr, "passage: out of memory\n");
    goto done;
  }
  for (size_t k = 0; k < a->ninputs; k++) {
    const char *arg = a->inputs[k], *eq = strchr(arg, '=');
    if (!eq) {
      fprintf(stderr, "passage %s: --input expects NAME=FILE.npy, got '%s'\n", cmd, arg);
      rc = 2;
      goto done;
    }
    if (arg[0] == '%') arg++;
    owned[k] = strndup(arg, (size_t)(eq - arg));
    names[k] = owned[k];
    if (!owned[k]) goto done;
    if ((*lib_st = psg_tensor_read_npy(ctx, eq + 1, &given[k])) != PSG_OK) goto done;
  }
  /* Names the model does not have: the library says which and what is close. */
  for (size_t k = 0; k < a->ninputs; k++) {
    int i = 0;
    while (i < info->num_inputs && strcmp(info->inputs[i].name, names[k])) i++;
    if (i == info->num_inputs) {
      psg_tensor **outs = NULL;
      size_t nouts = 0;
      const psg_tensor *one[] = {given[k]};
      *lib_st = psg_compiled_run_named(m, &names[k], one, 1, &outs, &nouts);
      goto done;
    }
    psg_tensor_release(args[i]);
    args[i] = given[k];
    given[k] = NULL;
  }
  for (int i = 0; i < info->num_inputs; i++) {
    if (args[i]) continue;
    const psg_model_tensor_info *t = &info->inputs[i];
    if (!a->random) {
      fprintf(stderr, "passage %s: no value for input '%s' (give --input %s=FILE.npy or --random-inputs SEED)\n", cmd,
              t->name, t->name);
      goto done;
    }
    int dtype = psg_dtype_from_name(t->dtype, strlen(t->dtype));
    if ((*lib_st = cli_random_tensor(ctx, dtype, t->shape, t->ndim, a->seed, &args[i])) != PSG_OK) goto done;
  }
  rc = 0;
done:
  for (size_t k = 0; k < a->ninputs; k++) {
    psg_tensor_release(given ? given[k] : NULL);
    free(owned ? owned[k] : NULL);
  }
  free(given);
  free(names);
  free(owned);
  return rc;
}

int cli_compiled_parse(const char *cmd, int argc, char **argv, int i, cli_compiled_args *a) {
  const char *x = argv[i];
  if (i + 1 >= argc) return 0;
  if (!strcmp(x, "--input")) {
    if (a->ninputs == 256) return fprintf(stderr, "passage %s: too many --input\n", cmd), -1;
    a->inputs[a->ninputs++] = argv[i + 1];
  } else if (!strcmp(x, "--input-shape")) {
    if (a->nshapes == 256) return fprintf(stderr, "passage %s: too many --input-shape\n", cmd), -1;
    a->shapes[a->nshapes++] = argv[i + 1];
  } else if (!strcmp(x, "--random-inputs")) {
    const char *s = argv[i + 1];
    char *end;
    a->random = true;
    *a->seed = strtoull(s, &end, 10) * 0x9e3779b97f4a7c15ull + 1; /* as passage run on a module */
    if (*s < '0' || *s > '9' || *end)
      return fprintf(stderr, "passage %s: --random-inputs takes a seed (a non-negative integer), not '%s'\n", cmd, s), -1;
  } else if (!strcmp(x, "--params")) {
    a->params = argv[i + 1];
  } else {
    return 0;
  }
  return 2;
}

int cmd_run_compiled(int argc, char **argv) {
  const char *path = NULL, *out_path = NULL;
  uint64_t seed = 0;
  cli_compiled_args a = {.seed = &seed};
  for (int i = 1; i < argc; i++) {
    int used = cli_compiled_parse("run", argc, argv, i, &a);
    if (used < 0) return 2;
    if (used) {
      i += used - 1;
      continue;
    }
    const char *x = argv[i];
    if ((!strcmp(x, "-o") || !strcmp(x, "--output")) && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!strcmp(x, "--help") || !strcmp(x, "-h")) {
      printf("usage: passage run OUT.so [--input NAME=FILE.npy]... [--random-inputs SEED] [--params FILE.bin]\n"
             "       [--input-shape NAME=D0,D1,...]... [-o OUT.npy]\n"
             "       (a compiled model: its shapes are fixed; its parameters' side file is OUT.bin unless\n"
             "       --params names one; several outputs go to OUT_0.npy, OUT_1.npy, ...)\n");
      return 0;
    } else if (!strcmp(x, "--config") || !strcmp(x, "--function") || !strcmp(x, "--func")) {
      fprintf(stderr, "passage run: %s is not for a compiled model (it has one entry and no passes)\n", x);
      return 2;
    } else if (x[0] == '-' && x[1]) {
      static const char *const value_flags[] = {"-o", "--output", "--input", "--random-inputs", "--input-shape",
                                                "--params", NULL};
      if (cli_missing_value("run", x, value_flags)) return 2;
      fprintf(stderr, "passage run: unknown option '%s'\n", x);
      return 2;
    } else if (!path) {
      path = x;
    } else {
      fprintf(stderr, "passage run: more than one input file\n");
      return 2;
    }
  }
  if (!path) return fprintf(stderr, "passage run: missing input file (see passage run --help)\n"), 2;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  psg_compiled *m = NULL;
  psg_status lib_st = PSG_OK;
  psg_tensor *args[256] = {0}, **outs = NULL;
  size_t nouts = 0, nin = 0;
  int rc = 1;
  if ((lib_st = psg_compiled_load(ctx, path, a.params, &m)) != PSG_OK) goto done;
  nin = (size_t)psg_compiled_info(m)->num_inputs;
  if (nin > 256) {
    fprintf(stderr, "passage run: the model has %zu inputs; run takes at most 256\n", nin);
    goto done;
  }
  if ((rc = cli_compiled_inputs(ctx, "run", m, &a, args, &lib_st)) != 0) goto done;
  rc = 1;
  if ((lib_st = psg_compiled_run(m, (const psg_tensor *const *)args, nin, &outs, &nouts)) != PSG_OK) goto done;
  rc = cli_write_outputs(ctx, outs, nouts, out_path, &lib_st);
done:
  if (rc == 1 && lib_st) cli_report_failure(ctx, "run", lib_st, false);
  for (size_t i = 0; i < nouts; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  for (size_t i = 0; i < 256; i++) psg_tensor_release(args[i]);
  psg_compiled_free(m);
  psg_ctx_release(ctx);
  return rc;
}
