/* passage run: evaluate @main of a module with the reference interpreter.
 *   passage run IN [--input NAME=FILE.npy]... [--random-inputs SEED] [-o OUT.npy]
 * Inputs are matched to @main's parameters by name; --random-inputs fills the
 * others from a seeded generator (uniform in [-1, 1) for floats, [0, 10) for
 * integers). With several outputs, OUT.npy becomes OUT_0.npy, OUT_1.npy, ...
 * Without -o a summary of each output is printed. Public API only. */
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

static psg_status random_tensor(psg_ctx *ctx, const psg_type *t, uint64_t *seed, psg_tensor **out) {
  int nd = psg_type_ndim(t), dtype = psg_type_dtype(t);
  int64_t shape[PSG_MAX_RANK], n = 1;
  for (int i = 0; i < nd; i++) {
    shape[i] = psg_type_dim(t, i);
    if (shape[i] < 0) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "cannot make a random input of unknown shape");
    n *= shape[i];
  }
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

int cmd_run(int argc, char **argv) {
  const char *in_path = NULL, *out_path = NULL, *fn_name = "main";
  const char *inputs[256];
  int ninputs = 0;
  const char *shapes[256];
  size_t nshapes = 0;
  bool random = false;
  uint64_t seed = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!strcmp(a, "--input") && i + 1 < argc) {
      if (ninputs == 256) return fprintf(stderr, "passage run: too many --input\n"), 2;
      inputs[ninputs++] = argv[++i];
    } else if (!strcmp(a, "--random-inputs") && i + 1 < argc) {
      random = true;
      seed = strtoull(argv[++i], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
    } else if (!strcmp(a, "--input-shape") && i + 1 < argc) {
      if (nshapes == 256) return fprintf(stderr, "passage run: too many --input-shape\n"), 2;
      shapes[nshapes++] = argv[++i];
    } else if (!strcmp(a, "--function") && i + 1 < argc) {
      fn_name = argv[++i];
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: passage run IN [--input NAME=FILE.npy]... [--random-inputs SEED] [--function NAME] [-o OUT.npy]\n"
             "       [--input-shape NAME=D0,D1,...]... (ONNX input: bind dynamic dims)\n");
      return 0;
    } else if (a[0] == '-' && a[1]) {
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
  psg_module *mod = NULL;
  psg_tensor *args[256] = {0};
  psg_tensor **outs = NULL;
  size_t nouts = 0, nparams = 0;
  cli_load_opts lo = {shapes, nshapes};
  if (cli_load_module(ctx, in_path, &lo, &mod)) goto done;
  psg_expr *fn = psg_module_lookup(mod, fn_name);
  if (!fn || psg_expr_kind(fn) != PSG_EXPR_FUNCTION) {
    fprintf(stderr, "passage run: %s has no function @%s\n", in_path, fn_name);
    goto done;
  }
  nparams = psg_function_num_params(fn);
  if (nparams > 256) goto done;
  for (int k = 0; k < ninputs; k++) {
    const char *eq = strchr(inputs[k], '=');
    if (!eq) {
      fprintf(stderr, "passage run: --input expects NAME=FILE.npy, got '%s'\n", inputs[k]);
      rc = 2;
      goto done;
    }
    size_t nlen = (size_t)(eq - inputs[k]);
    if (nlen && inputs[k][0] == '%') inputs[k]++, nlen--;
    size_t p = 0;
    while (p < nparams && (strlen(psg_var_name(psg_function_get_param(fn, p))) != nlen ||
                           strncmp(psg_var_name(psg_function_get_param(fn, p)), inputs[k], nlen) != 0))
      p++;
    if (p == nparams) {
      fprintf(stderr, "passage run: @%s has no parameter named %%%.*s\n", fn_name, (int)nlen, inputs[k]);
      goto done;
    }
    psg_tensor_release(args[p]);
    args[p] = NULL;
    if (psg_tensor_read_npy(ctx, eq + 1, &args[p])) goto done;
  }
  for (size_t p = 0; p < nparams; p++) {
    if (args[p]) continue;
    const psg_type *t = psg_var_type(psg_function_get_param(fn, p));
    if (!random || !t || psg_type_kind(t) != PSG_TYPE_TENSOR) {
      fprintf(stderr, "passage run: no value for parameter %%%s (give --input %s=FILE.npy or --random-inputs SEED)\n",
              psg_var_name(psg_function_get_param(fn, p)), psg_var_name(psg_function_get_param(fn, p)));
      goto done;
    }
    if (random_tensor(ctx, t, &seed, &args[p])) goto done;
  }
  if (psg_eval(ctx, mod, fn_name, args, nparams, &outs, &nouts)) goto done;
  rc = 0;
  for (size_t i = 0; i < nouts && rc == 0; i++) {
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
    if (psg_tensor_write_npy(ctx, outs[i], path)) rc = 1;
  }
done:
  if (rc == 1) cli_print_diags(ctx, stderr);
  for (size_t i = 0; i < nouts; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  for (size_t p = 0; p < 256; p++) psg_tensor_release(args[p]);
  psg_module_release(mod);
  psg_ctx_release(ctx);
  return rc;
}
