/* Passage — checking that a TIR pass keeps what a PrimFunc computes: the
 * function and its rewrite run through the TIR interpreter on the same
 * random inputs must give bit-identical buffers, and the rewrite must pass
 * verify_well_formed. Also: PrimFuncs from TVMScript text, a registered pass
 * run on one PrimFunc, and random small loop nests over strided, offset and
 * axis-separated buffers (shared by the flattening and NarrowDataType tests). */
#ifndef PSG_TEST_TIR_EQUIV_H
#define PSG_TEST_TIR_EQUIV_H

#include <pthread.h>
#include "passage/tvmscript.h"
#include "tir_build.h"

/* The first PrimFunc of a TVMScript text (pooled). */
static inline psg_tir_prim_func *eq_parse(const char *text) {
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_parse(TB.ctx, text, strlen(text), "case.py", &s);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
    fprintf(stderr, "  parse failed: %s\n%s\n", d ? psg_diag_message(d) : "?", text);
    return NULL;
  }
  psg_tir_prim_func *f = psg_tir_script_get(s, 0);
  psg_tir_retain(f);
  psg_tir_script_release(s);
  return tb_keep(PSG_OK, &f);
}

static inline char *eq_print(const psg_tir_prim_func *f) {
  char *out = NULL;
  CHECK_OK(psg_tir_script_print_func(f, "main", 0, &out, NULL));
  return out;
}

/* Registered pass `name` with `options` (may be NULL) on f alone; NULL and
 * the status in *status (may be NULL: then it must succeed) on failure. */
static inline psg_tir_prim_func *eq_run_pass(const char *name, psg_attrs *options, psg_tir_prim_func *f,
                                             psg_status *status) {
  psg_module *m = NULL, *m2 = NULL, *out = NULL;
  psg_expr *gv = NULL;
  psg_pass *p = NULL;
  CHECK_OK(psg_module_create(TB.ctx, &m));
  CHECK_OK(psg_global_var_create(TB.ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_add_prim_func(m, gv, f, &m2));
  CHECK_OK(psg_pass_get(TB.ctx, name, options, &p));
  psg_status st = p && m2 ? psg_pass_run(p, m2, NULL, &out) : PSG_ERR_INTERNAL;
  if (status) *status = st;
  else {
    CHECK_OK(st);
    if (st) {
      const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
      fprintf(stderr, "  %s failed: %s\n", name, d ? psg_diag_message(d) : "?");
    }
  }
  psg_tir_prim_func *g = NULL;
  if (!st) {
    g = psg_module_lookup_prim_func(out, "main");
    psg_tir_retain(g);
    g = tb_keep(PSG_OK, &g);
  }
  psg_pass_release(p);
  psg_expr_release(gv);
  psg_module_release(out);
  psg_module_release(m2);
  psg_module_release(m);
  return g;
}

/* Options {key: int value} for eq_run_pass (release with psg_attrs_release). */
static inline psg_attrs *eq_int_option(const char *key, int64_t v) {
  psg_attr *a = NULL;
  psg_attrs *d = NULL;
  CHECK_OK(psg_attr_int(TB.ctx, v, &a));
  CHECK_OK(psg_attrs_create(TB.ctx, &key, &a, 1, &d));
  psg_attr_release(a);
  return d;
}

static inline uint64_t eq_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Random tensor for buffer b (constant shape; a symbolic extent is `sym`). */
static inline psg_tensor *eq_tensor_for(const psg_tir_buffer *b, int64_t sym, uint64_t *seed) {
  int64_t shape[8];
  size_t nd = psg_tir_buffer_ndim(b), n = 1;
  for (size_t k = 0; k < nd && k < 8; k++) {
    psg_tir_expr *e = psg_tir_buffer_get_shape(b, k);
    shape[k] = psg_tir_kind(e) == PSG_TIR_INT_IMM ? psg_tir_int_imm_value(e) : sym;
    n *= (size_t)shape[k];
  }
  int dt = psg_tir_dtype_to_tensor(psg_tir_dtype_of(b));
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(TB.ctx, dt, shape, (int)nd, NULL, &t));
  if (!t) return NULL;
  size_t es = n ? psg_tensor_nbytes(t) / n : 0;
  psg_tensor_release(t);
  t = NULL;
  uint8_t *p = calloc(n ? n * es : 1, 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = eq_rand(seed);
    switch (dt) {
    case PSG_DTYPE_FLOAT32: {
      float v = (float)((int64_t)(r % 2001) - 1000) / 8.0f;
      memcpy(p + i * es, &v, 4);
      break;
    }
    case PSG_DTYPE_BOOL: p[i] = (uint8_t)(r & 1); break;
    default: {
      int64_t v = (int64_t)(r % 201) - 100;
      memcpy(p + i * es, &v, es); /* little-endian: the low bytes */
      break;
    }
    }
  }
  CHECK_OK(psg_tensor_create(TB.ctx, dt, shape, (int)nd, p, &t));
  free(p);
  return t;
}

/* Runs f and g on `rounds` random inputs each; their outputs must be
 * byte-identical, and g well-formed. Symbolic extents and int scalar
 * params take `sym`. */
static inline void eq_check_same(psg_tir_prim_func *f, psg_tir_prim_func *g, int64_t sym, int rounds, uint64_t seed) {
  CHECK(f && g);
  if (!f || !g) return;
  psg_status vst = psg_tir_verify_well_formed(g);
  CHECK_OK(vst);
  if (vst) {
    char *txt = eq_print(g);
    fprintf(stderr, "  not well-formed:\n%s\n", txt ? txt : "?");
    psg_free(txt);
  }
  size_t np = psg_tir_prim_func_num_params(f);
  CHECK_EQ_INT(np, psg_tir_prim_func_num_params(g));
  for (int r = 0; r < rounds; r++) {
    psg_tensor *args[16] = {0}, **of = NULL, **og = NULL;
    for (size_t i = 0; i < np && i < 16; i++) {
      psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
      psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, p);
      if (b) {
        args[i] = eq_tensor_for(b, sym, &seed);
      } else {
        int64_t v = sym;
        int dt = psg_tir_dtype_to_tensor(psg_tir_dtype_of(p));
        CHECK_OK(psg_tensor_create(TB.ctx, dt, NULL, 0, &v, &args[i])); /* little-endian: the low bytes */
      }
    }
    psg_status sf = tb_run(f, args, np, &of), sg = tb_run(g, args, np, &og);
    CHECK_OK(sf);
    CHECK_OK(sg);
    if (sf || sg) {
      const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
      char *a = eq_print(f), *b = eq_print(g);
      fprintf(stderr, "  run failed: %s\nbefore:\n%s\nafter:\n%s\n", d ? psg_diag_message(d) : "?", a ? a : "",
              b ? b : "");
      psg_free(a);
      psg_free(b);
    }
    for (size_t i = 0; of && og && i < np; i++) {
      bool same = psg_tensor_nbytes(of[i]) == psg_tensor_nbytes(og[i]) &&
                  memcmp(psg_tensor_data(of[i]), psg_tensor_data(og[i]), psg_tensor_nbytes(of[i])) == 0;
      CHECK(same);
      if (!same) {
        char *a = eq_print(f), *b = eq_print(g);
        fprintf(stderr, "  output %zu differs\nbefore:\n%s\nafter:\n%s\n", i, a ? a : "", b ? b : "");
        psg_free(a);
        psg_free(b);
      }
    }
    tb_free_outs(of, np);
    tb_free_outs(og, np);
    for (size_t i = 0; i < np && i < 16; i++) psg_tensor_release(args[i]);
    if (sf || sg) return;
  }
}

/* Random loop nests ------------------------------------------------------------
 * A random nd-dim (1..3) shape; param A (input) and O (output) of that shape
 * and dtype (float32 or int32); the body
 *
 *   R = allocate([padded size + offset])         (flat)
 *   off = <offset>                                (LetStmt)
 *   V = DeclBuffer over R: strides padded, elem_offset `off`
 *       (or, one case in four, compact with axis_separators and no offset,
 *        over an Allocate of V's own shape)
 *   for i..: V[i..] = A[i..] * c + (i_last)       (a loop split in two, guarded,
 *                                                  one case in two)
 *   for i..: O[i..] = V[i..] + c2
 *   for t in range(size of R): D[t] = W[t]       (W: a flat view of R, so
 *                                                  where V's elements lie shows)
 *
 * All vars are int32 unless `i64`, which makes loop vars, extents and
 * indices int64. Returns a pooled PrimFunc with params (A, O, D). */
static inline psg_tir_expr *eq_c(bool i64, int64_t v) { return tb_int(i64 ? TB_I64 : TB_I32, v); }

/* Loops over a shape: their vars and extents, the index of each dim, and a
 * guard when the last dim is split into (outer, inner) by a factor that may
 * not divide it. */
typedef struct eq_loops {
  psg_tir_expr *var[4];
  int64_t ext[4];
  size_t n;
  psg_tir_expr *idx[3];
  psg_tir_expr *guard; /* or NULL */
} eq_loops;

static inline eq_loops eq_make_loops(const char *prefix, const int64_t *shape, size_t nd, bool i64, int split) {
  eq_loops l = {.n = 0};
  psg_tir_dtype t = i64 ? TB_I64 : TB_I32;
  char name[24];
  for (size_t k = 0; k < nd; k++) {
    snprintf(name, sizeof name, "%s%zu", prefix, k);
    psg_tir_expr *v = tb_var(name, t);
    if (k + 1 == nd && split >= 2) {
      snprintf(name, sizeof name, "%s%zui", prefix, k);
      psg_tir_expr *vi = tb_var(name, t);
      l.var[l.n] = v;
      l.ext[l.n++] = (shape[k] + split - 1) / split;
      l.var[l.n] = vi;
      l.ext[l.n++] = split;
      l.idx[k] = tb_add(tb_mul(v, eq_c(i64, split)), vi);
      l.guard = tb_lt(l.idx[k], eq_c(i64, shape[k]));
    } else {
      l.var[l.n] = v;
      l.ext[l.n++] = shape[k];
      l.idx[k] = v;
    }
  }
  return l;
}

static inline psg_tir_stmt *eq_wrap(const eq_loops *l, psg_tir_stmt *body, bool i64) {
  psg_tir_stmt *s = l->guard ? tb_if(l->guard, body, NULL) : body;
  for (size_t k = l->n; k-- > 0;) s = tb_for_kind(l->var[k], eq_c(i64, 0), eq_c(i64, l->ext[k]), PSG_TIR_FOR_SERIAL, s);
  return s;
}

static inline psg_tir_buffer *eq_param_buf(const char *name, psg_tir_dtype dt, const int64_t *shape, size_t nd,
                                           bool i64) {
  psg_tir_expr *sh[3];
  for (size_t k = 0; k < nd; k++) sh[k] = eq_c(i64, shape[k]);
  psg_tir_buffer *b;
  return tb_keep(psg_tir_buffer_decl(TB.ctx, name, dt, sh, nd, NULL, NULL, &b), &b);
}

static inline psg_tir_prim_func *eq_random_func(uint64_t *seed, bool i64) {
  size_t nd = 1 + eq_rand(seed) % 3;
  int64_t shape[3], pad[3];
  for (size_t k = 0; k < nd; k++) {
    shape[k] = 1 + (int64_t)(eq_rand(seed) % 5);
    pad[k] = (int64_t)(eq_rand(seed) % 3);
  }
  psg_tir_dtype dt = eq_rand(seed) % 2 ? TB_F32 : TB_I32;
  int mode = (int)(eq_rand(seed) % 4); /* 0: axis separators, else strided + offset */
  if (nd == 1 && mode == 0) mode = 1;
  int64_t offset = mode == 0 ? 0 : (int64_t)(eq_rand(seed) % 4);
  psg_tir_buffer *A = eq_param_buf("A", dt, shape, nd, i64), *O = eq_param_buf("O", dt, shape, nd, i64);
  psg_tir_expr *data = NULL;
  CHECK_OK(psg_tir_pointer_var_create(TB.ctx, "R", dt, NULL, NULL, &data));
  data = tb_keep(PSG_OK, &data);
  psg_tir_expr *sh[3], *st[3];
  int64_t stride = 1, size = 1;
  for (size_t k = nd; k-- > 0;) {
    sh[k] = eq_c(i64, shape[k]);
    st[k] = eq_c(i64, stride);
    stride *= shape[k] + pad[k];
    size *= shape[k];
  }
  psg_tir_expr *off = tb_var("off", i64 ? TB_I64 : TB_I32);
  int64_t sep = 1 + (int64_t)(eq_rand(seed) % (nd - (nd > 1 ? 1 : 0)));
  psg_tir_buffer_desc d = {.name = "V", .data = data, .dtype = dt, .shape = sh, .ndim = nd};
  if (mode == 0) {
    d.axis_separators = &sep;
    d.naxis_separators = 1;
  } else {
    d.strides = st;
    d.nstrides = nd;
    d.elem_offset = off;
  }
  psg_tir_buffer *V;
  V = tb_keep(psg_tir_buffer_create(TB.ctx, &d, NULL, &V), &V);
  int split1 = eq_rand(seed) % 2 ? 2 + (int)(eq_rand(seed) % 3) : 0;
  int split2 = eq_rand(seed) % 2 ? 2 + (int)(eq_rand(seed) % 3) : 0;
  eq_loops l1 = eq_make_loops("i", shape, nd, i64, split1), l2 = eq_make_loops("j", shape, nd, i64, split2);
  psg_tir_expr *last = l1.idx[nd - 1];
  psg_tir_expr *lastv = dt == TB_F32 ? tb_cast(TB_F32, last) : (i64 ? tb_cast(TB_I32, last) : last);
  psg_tir_expr *c1 = dt == TB_F32 ? tb_f32(3.0) : tb_i32(3), *c2 = dt == TB_F32 ? tb_f32(-0.5) : tb_i32(-7);
  psg_tir_stmt *w = tb_storep(V, tb_add(tb_mul(tb_loadp(A, l1.idx, nd, NULL), c1), lastv), l1.idx, nd, NULL);
  psg_tir_stmt *r = tb_storep(O, tb_add(tb_loadp(V, l2.idx, nd, NULL), c2), l2.idx, nd, NULL);
  int64_t rsize = mode == 0 ? size : stride + offset;
  psg_tir_buffer *D = eq_param_buf("D", dt, &rsize, 1, i64);
  psg_tir_expr *wext = eq_c(i64, rsize);
  psg_tir_buffer_desc wd = {.name = "W", .data = data, .dtype = dt, .shape = &wext, .ndim = 1};
  psg_tir_buffer *W;
  W = tb_keep(psg_tir_buffer_create(TB.ctx, &wd, NULL, &W), &W);
  psg_tir_expr *t = tb_var("t", i64 ? TB_I64 : TB_I32);
  psg_tir_stmt *dump = tb_for_kind(t, eq_c(i64, 0), wext, PSG_TIR_FOR_SERIAL,
                                   tb_storep(D, tb_loadp(W, &t, 1, NULL), &t, 1, NULL));
  psg_tir_stmt *three[3] = {eq_wrap(&l1, w, i64), eq_wrap(&l2, r, i64), dump};
  psg_tir_stmt *body = tb_decl(V, tb_seqv(three, 3));
  if (mode == 0) {
    body = tb_alloc(V, body);
  } else {
    body = tb_let_stmt(off, eq_c(i64, offset), body);
    psg_tir_stmt *s;
    body = tb_keep(psg_tir_allocate_create(TB.ctx, data, dt, &wext, 1, NULL, body, NULL, NULL, &s), &s);
  }
  psg_tir_buffer *bufs[3] = {A, O, D};
  return tb_func(bufs, 3, NULL, 0, body);
}

/* A loop nest `depth` deep over a 2x2 float32 buffer A, for the deep tests:
 * for v0 in range(1): ... for v{depth-1} in range(1):
 *     A[v{depth-1}, v0 + 1] = A[v0, v{depth-1}] */
static inline psg_tir_prim_func *eq_deep_nest_func(int depth) {
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 2, 2);
  psg_tir_expr **vars = malloc((size_t)depth * sizeof *vars);
  CHECK(vars != NULL);
  if (!vars) return NULL;
  char name[16];
  for (int k = 0; k < depth; k++) {
    snprintf(name, sizeof name, "v%d", k);
    vars[k] = tb_var(name, TB_I32);
  }
  psg_tir_expr *src[2] = {vars[0], vars[depth - 1]}, *dst[2] = {vars[depth - 1], tb_add(vars[0], tb_i32(1))};
  psg_tir_stmt *s = tb_storep(A, tb_loadp(A, src, 2, NULL), dst, 2, NULL);
  for (int k = depth; k-- > 0;) s = tb_for(vars[k], 1, s);
  free(vars);
  return tb_func(&A, 1, NULL, 0, s);
}

/* Runs fn in a thread with a 1 MiB stack (STYLE rule 9). */
static inline void eq_small_stack(void *(*fn)(void *)) {
  pthread_attr_t attr;
  pthread_t th;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  CHECK(pthread_create(&th, &attr, fn, NULL) == 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&attr);
}

#endif
