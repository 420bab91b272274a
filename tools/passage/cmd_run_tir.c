/* passage run on a PrimFunc: the reference TIR interpreter
 * (include/passage/tir_interp.h) over .npy buffers.
 *   passage run FILE.py [--function NAME] [--input A=a.npy]... [--random-inputs SEED] [-o OUT.npy]
 * An --input names a parameter by its buffer's name (A of `A: T.Buffer`, or of
 * `A = T.match_buffer(a, ...)`) or by the parameter's own name (a, n). A
 * buffer parameter left out is made of zeros when the function writes it (an
 * output), or from --random-inputs; a scalar needs a rank-0 array. The
 * outputs are the buffer parameters the function stores into, in parameter
 * order, written as `passage run` writes Relay outputs. The interpreter
 * checks each array against the buffer map (dtype, rank, dims) and every
 * access; its errors are located in the source. Public API only. */
#include <stdlib.h>
#include <string.h>
#include "passage/tir_interp.h"
#include "commands.h"

enum { MAX_PARAMS = 256 };

/* The data vars of the buffers a BufferStore writes. */
typedef struct written {
  const psg_tir_expr *data[MAX_PARAMS];
  size_t n;
  bool overflow;
} written;

static int note_store(psg_tir_visitor *v, const psg_tir_node *n) {
  if (psg_tir_kind(n) != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  written *w = v->user;
  const psg_tir_expr *d = psg_tir_buffer_get_data(psg_tir_get_buffer(n));
  for (size_t i = 0; i < w->n; i++)
    if (w->data[i] == d) return PSG_VISIT_CONTINUE;
  if (w->n == MAX_PARAMS) w->overflow = true;
  else w->data[w->n++] = d;
  return PSG_VISIT_CONTINUE;
}

static bool writes(const written *w, const psg_tir_buffer *b) {
  const psg_tir_expr *d = psg_tir_buffer_get_data(b);
  for (size_t i = 0; i < w->n; i++)
    if (w->data[i] == d) return true;
  return w->overflow; /* too many to tell: treat as written */
}

/* The dims of buffer `b` when all are constants: its rank, else -1. */
static int const_shape(const psg_tir_buffer *b, int64_t *dims) {
  size_t nd = psg_tir_buffer_ndim(b);
  if (nd > PSG_MAX_RANK) return -1;
  for (size_t i = 0; i < nd; i++) {
    psg_tir_expr *e = psg_tir_buffer_get_shape(b, i);
    if (psg_tir_kind(e) != PSG_TIR_INT_IMM) return -1;
    dims[i] = psg_tir_int_imm_value(e);
  }
  return (int)nd;
}

/* The parameter an --input NAME names: a buffer's name, else a param's. */
static size_t find_param(const psg_tir_prim_func *f, const char *name, size_t len) {
  size_t n = psg_tir_prim_func_num_params(f);
  for (int pass = 0; pass < 2; pass++)
    for (size_t p = 0; p < n; p++) {
      psg_tir_expr *v = psg_tir_prim_func_get_param(f, p);
      psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, v);
      const char *s = pass == 0 ? (b ? psg_tir_buffer_name(b) : NULL) : psg_tir_var_name(v);
      if (s && strlen(s) == len && !strncmp(s, name, len)) return p;
    }
  return n;
}

/* The names a user may give, for messages: "A, B, n". */
static void list_params(const psg_tir_prim_func *f, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = 0;
  for (size_t p = 0; p < psg_tir_prim_func_num_params(f) && used < cap; p++) {
    psg_tir_expr *v = psg_tir_prim_func_get_param(f, p);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, v);
    used += (size_t)snprintf(buf + used, cap - used, "%s%s", p ? ", " : "", b ? psg_tir_buffer_name(b) : psg_tir_var_name(v));
  }
}

/* Where the text of `path` declares `name` for function `fn`: the first
 * whole-word use of it after the line "def fn(" (its parameter, or its
 * match_buffer). For messages when the IR carries no span. */
static bool find_decl(const char *path, const char *fn, const char *name, psg_span *out) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t len = 0;
  char *text = cli_read_all(f, &len);
  fclose(f);
  if (!text) return false;
  char def[300];
  snprintf(def, sizeof def, "def %s(", fn);
  size_t nlen = strlen(name), dlen = strlen(def);
  int line = 1;
  const char *line_start = text, *end = text + len;
  bool in_fn = false, found = false;
  for (const char *p = text; p < end && !found; p++) {
    if (*p == '\n') {
      line++;
      line_start = p + 1;
      continue;
    }
    if (!in_fn) {
      in_fn = (size_t)(end - p) >= dlen && !memcmp(p, def, dlen);
      if (in_fn) p += dlen - 1;
      continue;
    }
    bool word_before = p > text && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
    const char *q = p + nlen;
    bool word_after = q < end && (*q == '_' || (*q >= '0' && *q <= '9') || ((*q | 32) >= 'a' && (*q | 32) <= 'z'));
    if (!word_before && !word_after && (size_t)(end - p) >= nlen && !memcmp(p, name, nlen)) {
      out->line = out->end_line = line;
      out->col = (int)(p - line_start) + 1;
      out->end_col = out->col + (int)nlen;
      found = true;
    }
  }
  free(text);
  return found;
}

/* Prints an error at the declaration of `name` (its span, else found in
 * the text) as a diagnostic is printed: file:line:col, the line, a caret. */
static void located_error(const psg_tir_node *decl, const char *path, const char *fn, const char *name,
                          const char *msg) {
  psg_span sp = {0};
  psg_tir_span(decl, &sp);
  const char *file = sp.file && sp.line > 0 ? sp.file : path;
  if (!(sp.file && sp.line > 0) && !find_decl(path, fn, name, &sp)) {
    fprintf(stderr, "%s: error: %s\n", path, msg);
    return;
  }
  fprintf(stderr, "%s:%d:%d: error: %s\n", file, sp.line, sp.col, msg);
  FILE *f = fopen(file, "rb");
  if (!f) return;
  char buf[4096];
  for (int l = 1; fgets(buf, sizeof buf, f); l++) {
    if (l < sp.line) continue;
    buf[strcspn(buf, "\r\n")] = 0;
    fprintf(stderr, "  %s\n  %*s^\n", buf, sp.col - 1, "");
    break;
  }
  fclose(f);
}

/* "float32 (2, 3)", "int32 scalar": a dtype and shape for messages; a dim
 * that is no constant is '?'. */
static const char *describe(char *buf, size_t cap, int dtype, const int64_t *dims, int nd) {
  size_t n = (size_t)snprintf(buf, cap, "%s ", psg_dtype_name(dtype));
  if (nd == 0 && n < cap) snprintf(buf + n, cap - n, "scalar");
  for (int i = 0; i < nd && n < cap; i++)
    n += dims[i] < 0 ? (size_t)snprintf(buf + n, cap - n, "%s?%s", i ? ", " : "(", i == nd - 1 ? ")" : "")
                     : (size_t)snprintf(buf + n, cap - n, "%s%lld%s", i ? ", " : "(", (long long)dims[i],
                                        i == nd - 1 ? ")" : "");
  return buf;
}

/* The array given for parameter `var` against its buffer (dtype, rank,
 * constant dims) or scalar dtype: 0, or 1 after a located error. Dims that
 * are vars are left to the interpreter, which binds them. */
static int check_arg(const char *path, const char *fn, const char *arg, const psg_tensor *t, psg_tir_expr *var,
                     const psg_tir_buffer *b) {
  int64_t want[PSG_MAX_RANK], have[PSG_MAX_RANK];
  int nw = 0, nh = psg_tensor_ndim(t);
  int wdtype = psg_tir_dtype_to_tensor(psg_tir_dtype_of(b ? (const psg_tir_node *)b : var));
  bool same = wdtype == psg_tensor_dtype(t);
  if (b) {
    size_t nd = psg_tir_buffer_ndim(b);
    nw = nd > PSG_MAX_RANK ? PSG_MAX_RANK : (int)nd;
    same &= (size_t)nh == nd;
    for (int i = 0; i < nw; i++) {
      psg_tir_expr *e = psg_tir_buffer_get_shape(b, (size_t)i);
      want[i] = psg_tir_kind(e) == PSG_TIR_INT_IMM ? psg_tir_int_imm_value(e) : -1;
    }
  } else {
    same &= nh == 0;
  }
  for (int i = 0; i < nh; i++) {
    have[i] = psg_tensor_dim(t, i);
    same &= i >= nw || want[i] < 0 || want[i] == have[i];
  }
  if (same) return 0;
  const char *name = b ? psg_tir_buffer_name(b) : psg_tir_var_name(var);
  char a[200], w[200], msg[700];
  snprintf(msg, sizeof msg, "--input %s is %s, but %s '%s' of @%s is %s", arg,
           describe(a, sizeof a, psg_tensor_dtype(t), have, nh), b ? "buffer" : "parameter", name, fn,
           describe(w, sizeof w, wdtype, want, nw));
  located_error(b ? (const psg_tir_node *)b : var, path, fn, name, msg);
  return 1;
}

int cli_run_prim_func(psg_ctx *ctx, const char *path, const psg_tir_prim_func *f, const char *fn_name,
                      const char *const *inputs, psg_tensor **arrays, int ninputs, bool random, uint64_t *seed,
                      const char *out_path, psg_status *lib_st) {
  size_t nparams = psg_tir_prim_func_num_params(f);
  if (nparams > MAX_PARAMS) {
    fprintf(stderr, "passage run: @%s has %zu parameters; run takes at most %d\n", fn_name, nparams, MAX_PARAMS);
    return 1;
  }
  psg_tensor *args[MAX_PARAMS] = {0}, **outs = NULL, *written_outs[MAX_PARAMS];
  written w = {.n = 0};
  psg_tir_visitor v = {note_store, NULL, &w};
  int rc = 1;
  char names[512];
  for (int k = 0; k < ninputs; k++) { /* a later --input of the same parameter wins */
    const char *arg = inputs[k][0] == '%' ? inputs[k] + 1 : inputs[k];
    size_t len = (size_t)(strchr(arg, '=') - arg);
    size_t p = find_param(f, arg, len);
    if (p == nparams) {
      list_params(f, names, sizeof names);
      fprintf(stderr, "passage run: @%s has no parameter or buffer named %.*s (it has: %s)\n", fn_name, (int)len, arg,
              names);
      goto done;
    }
    psg_tir_expr *var = psg_tir_prim_func_get_param(f, p);
    if (check_arg(path, fn_name, inputs[k], arrays[k], var, psg_tir_prim_func_get_param_buffer(f, var))) goto done;
    psg_tensor_release(args[p]);
    args[p] = arrays[k];
    arrays[k] = NULL;
  }
  if ((*lib_st = psg_tir_visit(ctx, &v, f)) != PSG_OK) goto done;
  for (size_t p = 0; p < nparams; p++) {
    if (args[p]) continue;
    psg_tir_expr *var = psg_tir_prim_func_get_param(f, p);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, var);
    const char *name = b ? psg_tir_buffer_name(b) : psg_tir_var_name(var);
    if (!b || !(random || writes(&w, b))) {
      fprintf(stderr, "passage run: no value for %s %s (give --input %s=FILE.npy%s)\n", b ? "buffer" : "parameter",
              name, name, b ? " or --random-inputs SEED" : ", a rank-0 array");
      goto done;
    }
    int64_t dims[PSG_MAX_RANK];
    int nd = const_shape(b, dims), dtype = psg_tir_dtype_to_tensor(psg_tir_dtype_of(b));
    if (nd < 0 || dtype == PSG_DTYPE_INVALID) {
      fprintf(stderr, "passage run: cannot make buffer %s: its shape is not constant or its dtype has no array type "
              "(give --input %s=FILE.npy)\n", name, name);
      goto done;
    }
    *lib_st = random ? cli_random_tensor(ctx, dtype, dims, nd, seed, &args[p])
                     : psg_tensor_create(ctx, dtype, dims, nd, NULL, &args[p]);
    if (*lib_st) goto done;
  }
  if ((*lib_st = psg_tir_eval(ctx, f, args, nparams, &outs)) != PSG_OK) goto done;
  size_t nouts = 0;
  for (size_t p = 0; p < nparams; p++) {
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, psg_tir_prim_func_get_param(f, p));
    if (b && writes(&w, b)) written_outs[nouts++] = outs[p];
  }
  if (nouts == 0) fprintf(stderr, "passage run: @%s stores into no buffer parameter: no output\n", fn_name);
  rc = cli_write_outputs(ctx, written_outs, nouts, out_path, lib_st);
done:
  for (size_t p = 0; outs && p < nparams; p++) psg_tensor_release(outs[p]);
  psg_free(outs);
  for (size_t p = 0; p < nparams; p++) psg_tensor_release(args[p]);
  return rc;
}
