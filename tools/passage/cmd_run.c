/* passage run: evaluate @main of a module with the reference interpreter
 * (a PrimFunc with the TIR interpreter: cmd_run_tir.c).
 *   passage run IN [--input NAME=FILE.npy]... [--random-inputs SEED] [-o OUT.npy]
 * Inputs are matched to @main's parameters by name; --random-inputs fills the
 * others from a seeded generator (uniform in [-1, 1) for floats, [0, 10) for
 * integers). With several outputs, OUT.npy becomes OUT_0.npy, OUT_1.npy, ...
 * Without -o a summary of each output is printed. For an ONNX model the
 * arrays are read first and bind the inputs' dynamic dims (as ONNX Runtime
 * does), unless --input-shape binds them. Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"
#include "commands.h"

/* xorshift64*: a small, portable, seeded generator. */
static uint64_t next_random(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

psg_status cli_random_tensor(psg_ctx *ctx, int dtype, const int64_t *shape, int nd, uint64_t *seed, psg_tensor **out) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= shape[i];
  psg_status st = psg_tensor_create(ctx, dtype, shape, nd, NULL, out);
  if (st) return st;
  void *d = (void *)psg_tensor_data(*out);
  for (int64_t i = 0; i < n; i++) {
    double u = (double)(next_random(seed) >> 11) / 9007199254740992.0;
    switch (dtype) {
    case PSG_DTYPE_FLOAT32: ((float *)d)[i] = (float)(u * 2 - 1); break;
    case PSG_DTYPE_FLOAT64: ((double *)d)[i] = u * 2 - 1; break;
    case PSG_DTYPE_INT32: ((int32_t *)d)[i] = (int32_t)(u * 10); break;
    case PSG_DTYPE_INT64: ((int64_t *)d)[i] = (int64_t)(u * 10); break;
    case PSG_DTYPE_UINT8: ((uint8_t *)d)[i] = (uint8_t)(u * 10); break;
    case PSG_DTYPE_INT8: ((int8_t *)d)[i] = (int8_t)(u * 10); break;
    case PSG_DTYPE_BOOL: ((uint8_t *)d)[i] = u < 0.5; break;
    default:
      psg_tensor_release(*out);
      *out = NULL;
      return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "no random generator for %s inputs", psg_dtype_name(dtype));
    }
  }
  return PSG_OK;
}

static psg_status random_tensor(psg_ctx *ctx, const psg_type *t, uint64_t *seed, psg_tensor **out) {
  int nd = psg_type_ndim(t);
  int64_t shape[PSG_MAX_RANK];
  for (int i = 0; i < nd; i++) {
    shape[i] = psg_type_dim(t, i);
    if (shape[i] < 0) return PSG_ERR_INVALID_ARGUMENT; /* the caller says which input and what to do */
  }
  return cli_random_tensor(ctx, psg_type_dtype(t), shape, nd, seed, out);
}

static void summarize(FILE *f, size_t index, const psg_tensor *t) {
  fprintf(f, "output %zu: %s (", index, psg_dtype_name(psg_tensor_dtype(t)));
  for (int i = 0; i < psg_tensor_ndim(t); i++) fprintf(f, "%s%lld", i ? ", " : "", (long long)psg_tensor_dim(t, i));
  fprintf(f, ")");
  if (psg_tensor_dtype(t) == PSG_DTYPE_FLOAT32) {
    const float *d = psg_tensor_data(t);
    int64_t n = psg_tensor_numel(t);
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += d[i];
    fprintf(f, " sum=%.6g first=[", sum);
    for (int64_t i = 0; i < n && i < 5; i++) fprintf(f, "%s%.6g", i ? ", " : "", d[i]);
    fprintf(f, "%s]", n > 5 ? ", ..." : "");
  }
  fprintf(f, "\n");
}

int cli_write_outputs(psg_ctx *ctx, psg_tensor *const *outs, size_t nouts, const char *out_path, psg_status *lib_st) {
  for (size_t i = 0; i < nouts; i++) {
    if (!out_path) {
      summarize(stdout, i, outs[i]);
      continue;
    }
    char path[4096];
    if (nouts == 1) {
      snprintf(path, sizeof path, "%s", out_path);
    } else {
      const char *dot = strrchr(out_path, '.');
      int stem = dot && !strcmp(dot, ".npy") ? (int)(dot - out_path) : (int)strlen(out_path);
      snprintf(path, sizeof path, "%.*s_%zu.npy", stem, out_path, i);
    }
    if ((*lib_st = psg_tensor_write_npy(ctx, outs[i], path)) != PSG_OK) return 1;
  }
  return 0;
}

/* "(1, 3, ?)": a shape as the messages show it. */
static const char *format_shape(char *buf, size_t cap, const int64_t *dims, int nd) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < nd && n < cap; i++)
    n += dims[i] < 0 ? (size_t)snprintf(buf + n, cap - n, "%s?", i ? ", " : "")
                     : (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
  return buf;
}

static int tensor_dims(const psg_tensor *t, int64_t *dims) {
  for (int i = 0; i < psg_tensor_ndim(t); i++) dims[i] = psg_tensor_dim(t, i);
  return psg_tensor_ndim(t);
}

/* One --input NAME=FILE.npy, its array read before the module is loaded. */
typedef struct run_input {
  const char *arg;   /* as given */
  const char *name;  /* into arg, without a leading '%' */
  size_t name_len;
  psg_tensor *array;
  char binding[640]; /* "NAME=D0,D1,..." from the array (ONNX inputs without --input-shape) */
  char origin[4096]; /* "--input NAME=FILE.npy", for the importer's messages */
} run_input;

/* Splits and reads one --input. 2 on a usage error, 1 if the file cannot be read. */
static int read_input(psg_ctx *ctx, const char *arg, run_input *in) {
  const char *eq = strchr(arg, '=');
  if (!eq) return fprintf(stderr, "passage run: --input expects NAME=FILE.npy, got '%s'\n", arg), 2;
  in->arg = arg;
  in->name = arg[0] == '%' ? arg + 1 : arg;
  in->name_len = (size_t)(eq - in->name);
  return psg_tensor_read_npy(ctx, eq + 1, &in->array) ? 1 : 0;
}

/* The --input-shape of `in`'s input, or NULL (the importer takes the last '=' as the split). */
static const char *given_shape(const run_input *in, const char *const *shapes, size_t nshapes) {
  for (size_t i = 0; i < nshapes; i++) {
    const char *eq = strrchr(shapes[i], '=');
    if (eq && (size_t)(eq - shapes[i]) == in->name_len && !strncmp(shapes[i], in->name, in->name_len)) return shapes[i];
  }
  return NULL;
}

/* Whether a later --input names the same input as ins[k]. */
static bool given_later(const run_input *ins, int k, int n) {
  for (int j = k + 1; j < n; j++)
    if (ins[j].name_len == ins[k].name_len && !strncmp(ins[j].name, ins[k].name, ins[k].name_len)) return true;
  return false;
}

/* The dims of "NAME=D0,D1,..." (-1 if malformed: the importer says so). */
static int parse_shape(const char *binding, int64_t *dims) {
  const char *p = strrchr(binding, '=') + 1;
  int n = 0;
  while (*p) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || n == PSG_MAX_RANK) return -1;
    dims[n++] = v;
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return n;
}

/* Binds an ONNX input's dims from its array, or checks the --input-shape
 * given for it against the array. 0, or 1 after printing the contradiction. */
static int bind_from_array(run_input *in, const char *const *shapes, size_t nshapes) {
  int64_t dims[PSG_MAX_RANK], given[PSG_MAX_RANK];
  int nd = tensor_dims(in->array, dims);
  const char *shape = given_shape(in, shapes, nshapes);
  if (shape) {
    int ng = parse_shape(shape, given);
    if (ng < 0 || (ng == nd && !memcmp(dims, given, (size_t)nd * sizeof *dims))) return 0;
    char a[160], b[160];
    fprintf(stderr, "passage run: --input-shape %s contradicts --input %s: input '%.*s' would be %s, but the array is %s\n",
            shape, in->arg, (int)in->name_len, in->name, format_shape(a, sizeof a, given, ng),
            format_shape(b, sizeof b, dims, nd));
    return 1;
  }
  size_t n = (size_t)snprintf(in->binding, sizeof in->binding, "%.*s=", (int)in->name_len, in->name);
  for (int i = 0; i < nd && n < sizeof in->binding; i++)
    n += (size_t)snprintf(in->binding + n, sizeof in->binding - n, "%s%lld", i ? "," : "", (long long)dims[i]);
  snprintf(in->origin, sizeof in->origin, "--input %s", in->arg);
  return 0;
}

/* The array of --input `in` against the parameter's type: dtype, rank and
 * every static dim. 0, or 1 after printing the difference. */
static int check_array(const run_input *in, const psg_type *t) {
  if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR) return 0;
  int64_t dims[PSG_MAX_RANK], want[PSG_MAX_RANK];
  int nd = tensor_dims(in->array, dims), nw = psg_type_ndim(t);
  bool same = nd == nw && psg_tensor_dtype(in->array) == psg_type_dtype(t);
  for (int i = 0; i < nw; i++) {
    want[i] = psg_type_dim(t, i);
    same &= i >= nd || want[i] < 0 || want[i] == dims[i];
  }
  if (same) return 0;
  char a[160], b[160];
  fprintf(stderr, "passage run: --input %s is %s %s, but the model's input '%.*s' is %s %s\n", in->arg,
          psg_dtype_name(psg_tensor_dtype(in->array)), format_shape(a, sizeof a, dims, nd), (int)in->name_len, in->name,
          psg_dtype_name(psg_type_dtype(t)), format_shape(b, sizeof b, want, nw));
  return 1;
}

int cmd_run(int argc, char **argv) {
  const char *in_path = NULL, *out_path = NULL, *fn_name = "main";
  bool fn_given = false;
  const char *inputs[256];
  int ninputs = 0;
  const char *shapes[256];
  size_t nshapes = 0;
  const char *configs[256];
  size_t nconfigs = 0;
  bool random = false;
  uint64_t seed = 0;
  if (cli_runs_compiled(argc, argv)) return cmd_run_compiled(argc, argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!strcmp(a, "--input") && i + 1 < argc) {
      if (ninputs == 256) return fprintf(stderr, "passage run: too many --input\n"), 2;
      inputs[ninputs++] = argv[++i];
    } else if (!strcmp(a, "--random-inputs") && i + 1 < argc) {
      const char *s = argv[++i];
      char *end;
      random = true;
      seed = strtoull(s, &end, 10) * 0x9e3779b97f4a7c15ull + 1;
      if (*s < '0' || *s > '9' || *end)
        return fprintf(stderr, "passage run: --random-inputs takes a seed (a non-negative integer), not '%s'\n", s), 2;
    } else if (!strcmp(a, "--input-shape") && i + 1 < argc) {
      if (nshapes == 256) return fprintf(stderr, "passage run: too many --input-shape\n"), 2;
      shapes[nshapes++] = argv[++i];
    } else if (!strcmp(a, "--config") && i + 1 < argc) {
      if (nconfigs == 256) return fprintf(stderr, "passage run: too many --config\n"), 2;
      configs[nconfigs++] = argv[++i];
    } else if ((!strcmp(a, "--function") || !strcmp(a, "--func")) && i + 1 < argc) {
      fn_name = argv[++i];
      fn_given = true;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: passage run IN [--input NAME=FILE.npy]... [--random-inputs SEED] [--function NAME] [-o OUT.npy]\n"
             "       (a PrimFunc runs on the TIR interpreter: --input names a buffer or parameter, the outputs\n"
             "       are the buffers it writes; those left out are zeros; --func is --function)\n"
             "       [--input-shape NAME=D0,D1,...]... (ONNX input: bind dynamic dims; by default an\n"
             "       --input array binds its input's dims)\n"
             "       [--config KEY=VALUE]... (a PassContext option, e.g. the interpreter's limits\n"
             "       relay.interp.max_call_depth and passage.interp.max_bytes: `passage configs`)\n"
             "       IN may be a compiled model (OUT.so of passage compile -o), [--params FILE.bin]: docs/runtime.md\n");
      return 0;
    } else if (a[0] == '-' && a[1]) {
      static const char *const value_flags[] = {"-o", "--output", "--input", "--random-inputs", "--input-shape",
                                                "--function", "--func", NULL};
      if (cli_missing_value("run", a, value_flags)) return 2;
      fprintf(stderr, "passage run: unknown option '%s'\n", a);
      return 2;
    } else if (!in_path) {
      in_path = a;
    } else {
      fprintf(stderr, "passage run: more than one input file\n");
      return 2;
    }
  }
  if (!in_path) return fprintf(stderr, "passage run: missing input file (see passage run --help)\n"), 2;
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  int rc = 1;
  psg_status lib_st = PSG_OK; /* a failed library call whose diagnostics say why (or, if none do, its status) */
  psg_module *mod = NULL;
  psg_pass_context *pc = NULL;
  bool entered = false;
  psg_tensor *args[256] = {0};
  psg_tensor **outs = NULL;
  size_t nouts = 0, nparams = 0;
  run_input *ins = calloc((size_t)ninputs + 1, sizeof *ins);
  /* Bindings for the importer: the --input-shape ones, then one per array. */
  const char *bindings[512], *origins[512] = {0};
  size_t nbindings = nshapes;
  memcpy(bindings, shapes, nshapes * sizeof *shapes);
  if (!ins) {
    fprintf(stderr, "passage: out of memory\n");
    goto done;
  }
  /* The options hold for the whole command: importing (which may evaluate)
   * and the run. */
  if ((lib_st = psg_pass_context_create(ctx, &pc)) != PSG_OK) goto done;
  for (size_t i = 0; i < nconfigs; i++)
    if ((lib_st = psg_pass_context_set_config_text(pc, configs[i])) != PSG_OK) goto done;
  if ((lib_st = psg_pass_context_enter(pc)) != PSG_OK) goto done;
  entered = true;
  for (int k = 0; k < ninputs; k++)
    if ((rc = read_input(ctx, inputs[k], &ins[k])) != 0) {
      if (rc == 1) lib_st = PSG_ERR_IO;
      goto done;
    }
  rc = 1;
  if (cli_is_onnx_path(in_path)) {
    for (int k = 0; k < ninputs; k++) {
      if (given_later(ins, k, ninputs)) continue; /* the last --input of a name is the one run */
      if (bind_from_array(&ins[k], shapes, nshapes)) goto done;
      if (!ins[k].binding[0]) continue;
      origins[nbindings] = ins[k].origin;
      bindings[nbindings++] = ins[k].binding;
    }
  }
  cli_load_opts lo = {bindings, nbindings, origins};
  if ((lib_st = cli_load_module(ctx, in_path, &lo, &mod)) != PSG_OK) goto done;
  psg_expr *fn = psg_module_lookup(mod, fn_name);
  /* A PrimFunc runs on the TIR interpreter (cmd_run_tir.c); without
   * --function, a module of one PrimFunc runs that one. */
  psg_tir_prim_func *prim = psg_module_lookup_prim_func(mod, fn_name);
  if (!fn && !prim && !fn_given && psg_module_num_functions(mod) == 1 && psg_module_get_prim_func(mod, 0)) {
    prim = psg_module_get_prim_func(mod, 0);
    fn_name = psg_global_var_name(psg_module_get_global_var(mod, 0));
  }
  if (prim) {
    const char *in_args[256];
    psg_tensor *arrays[256];
    for (int k = 0; k < ninputs; k++) {
      in_args[k] = ins[k].arg;
      arrays[k] = ins[k].array;
    }
    rc = cli_run_prim_func(ctx, in_path, prim, fn_name, in_args, arrays, ninputs, random, &seed, out_path, &lib_st);
    for (int k = 0; k < ninputs; k++) ins[k].array = arrays[k]; /* those not taken are released below */
    goto done;
  }
  if (!fn || psg_expr_kind(fn) != PSG_EXPR_FUNCTION) {
    fprintf(stderr, "passage run: %s has no function @%s\n", in_path, fn_name);
    goto done;
  }
  nparams = psg_function_num_params(fn);
  if (nparams > 256) {
    fprintf(stderr, "passage run: @%s has %zu parameters; run takes at most 256\n", fn_name, nparams);
    goto done;
  }
  for (int k = 0; k < ninputs; k++) {
    if (given_later(ins, k, ninputs)) continue;
    size_t p = 0;
    while (p < nparams && (strlen(psg_var_name(psg_function_get_param(fn, p))) != ins[k].name_len ||
                           strncmp(psg_var_name(psg_function_get_param(fn, p)), ins[k].name, ins[k].name_len) != 0))
      p++;
    if (p == nparams) {
      fprintf(stderr, "passage run: @%s has no parameter named %%%.*s\n", fn_name, (int)ins[k].name_len, ins[k].name);
      goto done;
    }
    if (check_array(&ins[k], psg_var_type(psg_function_get_param(fn, p)))) goto done;
    psg_tensor_release(args[p]);
    args[p] = ins[k].array;
    ins[k].array = NULL;
  }
  for (size_t p = 0; p < nparams; p++) {
    if (args[p]) continue;
    const char *name = psg_var_name(psg_function_get_param(fn, p));
    const psg_type *t = psg_var_type(psg_function_get_param(fn, p));
    if (!random || !t || psg_type_kind(t) != PSG_TYPE_TENSOR) {
      fprintf(stderr, "passage run: no value for parameter %%%s (give --input %s=FILE.npy or --random-inputs SEED)\n",
              name, name);
      goto done;
    }
    psg_status st = random_tensor(ctx, t, &seed, &args[p]);
    if (st == PSG_ERR_INVALID_ARGUMENT) {
      int64_t dims[PSG_MAX_RANK];
      char shown[160];
      for (int i = 0; i < psg_type_ndim(t); i++) dims[i] = psg_type_dim(t, i);
      fprintf(stderr, "passage run: cannot make a random input for %%%s of shape %s: its dims are dynamic "
              "(give --input %s=FILE.npy or --input-shape %s=D0,D1,...)\n",
              name, format_shape(shown, sizeof shown, dims, psg_type_ndim(t)), name, name);
    } else if (st) {
      lib_st = st;
    }
    if (st) goto done;
  }
  if ((lib_st = psg_eval(ctx, mod, fn_name, args, nparams, &outs, &nouts)) != PSG_OK) goto done;
  rc = cli_write_outputs(ctx, outs, nouts, out_path, &lib_st);
done:
  /* The CLI's own messages above are printed where they arise. */
  if (rc == 1 && lib_st) cli_report_failure(ctx, "run", lib_st, false);
  else if (rc == 1) cli_print_diags(ctx, stderr, false);
  for (size_t i = 0; i < nouts; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  for (size_t p = 0; p < 256; p++) psg_tensor_release(args[p]);
  for (int k = 0; ins && k < ninputs; k++) psg_tensor_release(ins[k].array);
  free(ins);
  psg_module_release(mod);
  if (entered) psg_pass_context_exit(pc);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
  return rc;
}
