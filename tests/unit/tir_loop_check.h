/* Passage — checking a TIR loop pass keeps results: PrimFuncs from
 * TVMScript text, run before and after through the TIR interpreter on the
 * same random inputs and compared byte for byte, the output accepted by
 * verify_well_formed; and a generator of small random loop nests as text. */
#ifndef PSG_TEST_TIR_LOOP_CHECK_H
#define PSG_TEST_TIR_LOOP_CHECK_H

#include <stdarg.h>
#include "passage/tvmscript.h"
#include "tir_build.h"

/* The first function of `text` (a reference), or NULL with a CHECK failure. */
static inline psg_tir_prim_func *lc_parse(const char *text) {
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_parse(TB.ctx, text, strlen(text), "case.py", &s);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
    fprintf(stderr, "  parse failed: %s\n%s\n", d ? psg_diag_message(d) : "?", text);
    psg_ctx_clear_diags(TB.ctx);
    return NULL;
  }
  psg_tir_prim_func *f = psg_tir_script_get(s, 0);
  psg_tir_retain(f);
  psg_tir_script_release(s);
  return f;
}

static inline void lc_print(const char *label, const psg_tir_prim_func *f) {
  char *text = NULL;
  if (f && psg_tir_script_print_func(f, NULL, PSG_TIR_SCRIPT_NO_HEADER, &text, NULL) == PSG_OK)
    fprintf(stderr, "  %s:\n%s\n", label, text);
  psg_free(text);
}

static inline uint64_t lc_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* Random arguments for f: buffers of constant shape filled with small ints
 * (as the buffer's dtype), scalar params = 3 + seed % 4. */
static inline size_t lc_args(const psg_tir_prim_func *f, uint64_t seed, psg_tensor **args) {
  size_t np = psg_tir_prim_func_num_params(f);
  for (size_t i = 0; i < np; i++) {
    psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, p);
    if (!b) {
      int32_t v = 3 + (int32_t)(seed % 4);
      args[i] = tb_tensor(PSG_DTYPE_INT32, NULL, 0, &v);
      continue;
    }
    int64_t shape[4], count = 1;
    size_t nd = psg_tir_buffer_ndim(b);
    for (size_t d = 0; d < nd && d < 4; d++) count *= shape[d] = psg_tir_int_imm_value(psg_tir_buffer_get_shape(b, d));
    psg_tir_dtype t = psg_tir_dtype_of(b);
    int dt = psg_tir_dtype_to_tensor(t);
    size_t es = (size_t)psg_tir_dtype_bits(t) / 8;
    unsigned char *data = calloc((size_t)count, es ? es : 1);
    for (int64_t k = 0; k < count; k++) {
      int v = (int)(lc_rand(&seed) % 41) - 20;
      if (dt == PSG_DTYPE_FLOAT32) {
        float x = (float)v * 0.25f;
        memcpy(data + k * 4, &x, 4);
      } else if (dt == PSG_DTYPE_INT32) {
        int32_t x = v;
        memcpy(data + k * 4, &x, 4);
      } else if (dt == PSG_DTYPE_BOOL) {
        data[k] = (unsigned char)(v & 1);
      }
    }
    args[i] = tb_tensor(dt, shape, (int)nd, data);
    free(data);
  }
  return np;
}

/* g is well formed and computes what f computes on a few random inputs
 * (every buffer compared bytewise). */
static inline bool lc_same(const psg_tir_prim_func *f, const psg_tir_prim_func *g, const char *label) {
  bool ok = f && g;
  psg_status vst = g ? psg_tir_verify_well_formed(g) : PSG_ERR_INVALID_ARGUMENT;
  if (ok && vst) {
    const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
    fprintf(stderr, "  %s: verify_well_formed: %s\n", label, d ? psg_diag_message(d) : "?");
    psg_ctx_clear_diags(TB.ctx);
    ok = false;
  }
  for (uint64_t seed = 1; ok && seed <= 3; seed++) {
    psg_tensor *args[8] = {0}, **of = NULL, **og = NULL;
    size_t n = lc_args(f, seed, args);
    psg_status sf = tb_run((psg_tir_prim_func *)f, args, n, &of), sg = tb_run((psg_tir_prim_func *)g, args, n, &og);
    if (sf || sg) {
      const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
      fprintf(stderr, "  %s: eval failed (%d/%d): %s\n", label, sf, sg, d ? psg_diag_message(d) : "?");
      psg_ctx_clear_diags(TB.ctx);
      ok = false;
    }
    for (size_t i = 0; ok && i < n; i++)
      if (psg_tensor_nbytes(of[i]) != psg_tensor_nbytes(og[i]) ||
          memcmp(psg_tensor_data(of[i]), psg_tensor_data(og[i]), psg_tensor_nbytes(of[i])) != 0) {
        fprintf(stderr, "  %s: output %zu differs (seed %llu)\n", label, i, (unsigned long long)seed);
        ok = false;
      }
    tb_free_outs(of, of ? n : 0);
    tb_free_outs(og, og ? n : 0);
    for (size_t i = 0; i < n; i++) psg_tensor_release(args[i]);
  }
  if (!ok) {
    lc_print("before", f);
    lc_print("after", g);
  }
  CHECK(ok);
  return ok;
}

/* Random loop nests ------------------------------------------------------------
 * def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"),
 *          F: T.Buffer((64,), "float32"), n: T.int32):
 * one or two nests of up to three loops (extents 1..4, kinds drawn from
 * `kinds`), each body storing at the row-major position of its loop vars
 * (distinct per iteration, so vectorized lanes never collide) values made of
 * loads of A, loop vars, n and constants under + - * // % min max Select
 * if_then_else casts, behind `if`s and lets. */
typedef struct lc_gen {
  char *s;
  size_t len, cap;
  uint64_t seed;
  int nlet;
  const char *vars[3];
  int nvars;
} lc_gen;

static inline void lc_put(lc_gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void lc_put(lc_gen *g, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(g->s + g->len, g->cap - g->len, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < g->cap - g->len) {
      g->len += (size_t)k;
      return;
    }
    g->cap = g->cap * 2 + (size_t)(k > 0 ? k : 64) + 256;
    g->s = realloc(g->s, g->cap);
  }
}

static inline int lc_pick(lc_gen *g, int n) { return (int)(lc_rand(&g->seed) % (uint64_t)n); }

static inline void lc_atom(lc_gen *g) {
  int r = lc_pick(g, 5);
  if (r == 0 && g->nvars) lc_put(g, "%s", g->vars[lc_pick(g, g->nvars)]);
  else if (r == 1) lc_put(g, "n");
  else if (r == 2 && g->nvars) lc_put(g, "A[(%s * %d + %d) %% 64]", g->vars[lc_pick(g, g->nvars)], 1 + lc_pick(g, 5), lc_pick(g, 64));
  else lc_put(g, "%d", lc_pick(g, 9) - 3);
}

static inline void lc_cond(lc_gen *g);
static inline void lc_expr(lc_gen *g, int depth) {
  if (depth <= 0) {
    lc_atom(g);
    return;
  }
  static const char *const bin[] = {"+", "-", "*"};
  switch (lc_pick(g, 9)) {
  case 0:
  case 1:
  case 2:
    lc_put(g, "(");
    lc_expr(g, depth - 1);
    lc_put(g, " %s ", bin[lc_pick(g, 3)]);
    lc_expr(g, depth - 1);
    lc_put(g, ")");
    break;
  case 3:
    lc_put(g, "(");
    lc_expr(g, depth - 1);
    lc_put(g, " %s %d)", lc_pick(g, 2) ? "//" : "%", 1 + lc_pick(g, 4));
    break;
  case 4:
    lc_put(g, "T.%s(", lc_pick(g, 2) ? "min" : "max");
    lc_expr(g, depth - 1);
    lc_put(g, ", ");
    lc_expr(g, depth - 1);
    lc_put(g, ")");
    break;
  case 5:
    lc_put(g, "T.Select(");
    lc_cond(g);
    lc_put(g, ", ");
    lc_expr(g, depth - 1);
    lc_put(g, ", ");
    lc_expr(g, depth - 1);
    lc_put(g, ")");
    break;
  case 6:
    lc_put(g, "T.if_then_else(");
    lc_cond(g);
    lc_put(g, ", ");
    lc_expr(g, depth - 1);
    lc_put(g, ", ");
    lc_expr(g, depth - 1);
    lc_put(g, ")");
    break;
  default: lc_atom(g); break;
  }
}

static inline void lc_cond(lc_gen *g) {
  static const char *const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
  lc_expr(g, 1);
  lc_put(g, " %s ", cmp[lc_pick(g, 6)]);
  lc_expr(g, 1);
}

static inline void lc_indent(lc_gen *g, int level) { lc_put(g, "%*s", 4 * level, ""); }

/* The position of the current iteration: row-major over the loop vars. */
static inline void lc_position(lc_gen *g, const int *ext) {
  lc_put(g, "(");
  for (int k = 0; k < g->nvars; k++) {
    int stride = 1;
    for (int j = k + 1; j < g->nvars; j++) stride *= ext[j];
    lc_put(g, "%s%s * %d", k ? " + " : "", g->vars[k], stride);
  }
  if (!g->nvars) lc_put(g, "0");
  lc_put(g, ")");
}

static inline void lc_store(lc_gen *g, int level, const int *ext) {
  lc_indent(g, level);
  if (lc_pick(g, 4) == 0) {
    lc_put(g, "F[");
    lc_position(g, ext);
    lc_put(g, "] = T.Cast(\"float32\", ");
    lc_expr(g, 2);
    lc_put(g, ") * T.float32(0.5) + F[");
    lc_position(g, ext);
    lc_put(g, "]\n");
    return;
  }
  lc_put(g, "B[");
  lc_position(g, ext);
  lc_put(g, "] = ");
  lc_expr(g, 3);
  lc_put(g, "\n");
}

static inline void lc_body(lc_gen *g, int level, const int *ext) {
  int r = lc_pick(g, 5);
  if (r == 0) {
    lc_indent(g, level);
    lc_put(g, "if ");
    lc_cond(g);
    lc_put(g, ":\n");
    lc_store(g, level + 1, ext);
    if (lc_pick(g, 2)) {
      lc_indent(g, level);
      lc_put(g, "else:\n");
      lc_store(g, level + 1, ext);
    }
  } else if (r == 1) {
    int k = g->nlet++;
    lc_indent(g, level);
    lc_put(g, "x%d = ", k);
    lc_expr(g, 2);
    lc_put(g, "\n");
    lc_indent(g, level);
    lc_put(g, "B[");
    lc_position(g, ext);
    lc_put(g, "] = x%d * %d + ", k, 1 + lc_pick(g, 3));
    lc_expr(g, 1);
    lc_put(g, "\n");
  } else {
    lc_store(g, level, ext);
  }
}

static const char *const lc_var_names[] = {"i", "j", "k", "p", "q", "r"};

/* A random PrimFunc as text (free with free). `kinds` lists the loop kinds
 * to draw from ("range", "T.serial", "T.unroll", "T.vectorized"). */
static inline char *lc_random_func(uint64_t seed, const char *const *kinds, int nkinds) {
  lc_gen g = {0};
  g.seed = seed * 2654435761u + 17;
  g.cap = 1024;
  g.s = malloc(g.cap);
  g.s[0] = 0;
  lc_put(&g, "@T.prim_func\ndef main(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), "
             "F: T.Buffer((64,), \"float32\"), n: T.int32):\n");
  int nests = 1 + lc_pick(&g, 2);
  for (int nest = 0; nest < nests; nest++) {
    int depth = 1 + lc_pick(&g, 3), ext[3];
    g.nvars = 0;
    for (int d = 0; d < depth; d++) {
      ext[d] = 1 + lc_pick(&g, 4);
      g.vars[d] = lc_var_names[nest * 3 + d];
      g.nvars = d + 1;
      lc_indent(&g, 1 + d);
      lc_put(&g, "for %s in %s(%d):\n", g.vars[d], kinds[lc_pick(&g, nkinds)], ext[d]);
    }
    int stmts = 1 + lc_pick(&g, 2);
    for (int s = 0; s < stmts; s++) lc_body(&g, 1 + depth, ext);
  }
  return g.s;
}

#endif
