/* Passage — terse TIR construction for tests: every helper returns a node
 * borrowed from a pool that tb_fini releases, so a test writes
 * `tb_store(A, tb_add(tb_load1(A, i), tb_f32(1)), i)` without tracking
 * references. A failed construction records a CHECK failure and returns
 * NULL (the next constructor then fails too, which the test reports). */
#ifndef PSG_TEST_TIR_BUILD_H
#define PSG_TEST_TIR_BUILD_H

#include "check.h"
#include "passage/tir.h"
#include "passage/tir_interp.h"

typedef struct tb {
  psg_ctx *ctx;
  psg_tir_node **pool;
  size_t len, cap;
} tb;

static tb TB;

/* Takes `*slot` after the constructor call that filled it (passing the
 * pointer itself would read it before the call: argument order is unspecified). */
static inline psg_tir_node *tb_keep(psg_status st, psg_tir_node **slot) {
  psg_tir_node *n = *slot;
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
    if (d) fprintf(stderr, "  construction failed: %s\n", psg_diag_message(d));
    return NULL;
  }
  if (TB.len == TB.cap) {
    TB.cap = TB.cap ? TB.cap * 2 : 256;
    TB.pool = realloc(TB.pool, TB.cap * sizeof *TB.pool);
  }
  TB.pool[TB.len++] = n;
  return n;
}

static inline void tb_init(psg_ctx *ctx) {
  TB.ctx = ctx;
  TB.len = 0;
}
static inline void tb_fini(void) {
  for (size_t i = TB.len; i-- > 0;) psg_tir_release(TB.pool[i]);
  TB.len = 0;
}

#define TB_I32 psg_tir_dtype_int32()
#define TB_I64 psg_tir_dtype_int64()
#define TB_F32 psg_tir_dtype_float32()
#define TB_BOOL psg_tir_dtype_bool()

static inline psg_tir_expr *tb_var(const char *name, psg_tir_dtype t) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_var_create(TB.ctx, name, t, NULL, NULL, &e), &e);
}
static inline psg_tir_expr *tb_int(psg_tir_dtype t, int64_t v) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_int_imm_create(TB.ctx, t, v, NULL, &e), &e);
}
static inline psg_tir_expr *tb_i32(int64_t v) { return tb_int(TB_I32, v); }
static inline psg_tir_expr *tb_flt(psg_tir_dtype t, double v) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_float_imm_create(TB.ctx, t, v, NULL, &e), &e);
}
static inline psg_tir_expr *tb_f32(double v) { return tb_flt(TB_F32, v); }
static inline psg_tir_expr *tb_str(const char *s) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_string_imm_create(TB.ctx, s, strlen(s), NULL, &e), &e);
}
static inline psg_tir_expr *tb_bin(int kind, psg_tir_expr *a, psg_tir_expr *b) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_binary_create(TB.ctx, kind, a, b, NULL, &e), &e);
}
static inline psg_tir_expr *tb_add(psg_tir_expr *a, psg_tir_expr *b) { return tb_bin(PSG_TIR_ADD, a, b); }
static inline psg_tir_expr *tb_mul(psg_tir_expr *a, psg_tir_expr *b) { return tb_bin(PSG_TIR_MUL, a, b); }
static inline psg_tir_expr *tb_lt(psg_tir_expr *a, psg_tir_expr *b) { return tb_bin(PSG_TIR_LT, a, b); }
static inline psg_tir_expr *tb_cast(psg_tir_dtype t, psg_tir_expr *a) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_cast_create(TB.ctx, t, a, NULL, &e), &e);
}
static inline psg_tir_expr *tb_not(psg_tir_expr *a) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_not_create(TB.ctx, a, NULL, &e), &e);
}
static inline psg_tir_expr *tb_select(psg_tir_expr *c, psg_tir_expr *t, psg_tir_expr *f) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_select_create(TB.ctx, c, t, f, NULL, &e), &e);
}
static inline psg_tir_expr *tb_ramp(psg_tir_expr *base, psg_tir_expr *stride, int lanes) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_ramp_create(TB.ctx, base, stride, lanes, NULL, &e), &e);
}
static inline psg_tir_expr *tb_bcast(psg_tir_expr *v, int lanes) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_broadcast_create(TB.ctx, v, lanes, NULL, &e), &e);
}
static inline psg_tir_expr *tb_let(psg_tir_expr *var, psg_tir_expr *value, psg_tir_expr *body) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_let_create(TB.ctx, var, value, body, NULL, &e), &e);
}
static inline psg_tir_expr *tb_call(psg_tir_dtype t, const char *op, psg_tir_expr *const *args, size_t n) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_call_create(TB.ctx, t, op, args, n, NULL, &e), &e);
}
#define TB_CALL(t, op, ...) \
  tb_call(t, op, (psg_tir_expr *[]){__VA_ARGS__}, sizeof((psg_tir_expr *[]){__VA_ARGS__}) / sizeof(psg_tir_expr *))
static inline psg_tir_expr *tb_loadp(psg_tir_buffer *b, psg_tir_expr *const *idx, size_t n, psg_tir_expr *pred) {
  psg_tir_expr *e;
  return tb_keep(psg_tir_buffer_load_create(TB.ctx, b, idx, n, pred, NULL, &e), &e);
}
#define TB_LOAD(b, ...) \
  tb_loadp(b, (psg_tir_expr *[]){__VA_ARGS__}, sizeof((psg_tir_expr *[]){__VA_ARGS__}) / sizeof(psg_tir_expr *), NULL)
static inline psg_tir_stmt *tb_storep(psg_tir_buffer *b, psg_tir_expr *v, psg_tir_expr *const *idx, size_t n,
                                      psg_tir_expr *pred) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_buffer_store_create(TB.ctx, b, v, idx, n, pred, NULL, &s), &s);
}
#define TB_STORE(b, v, ...)                                                                                    \
  tb_storep(b, v, (psg_tir_expr *[]){__VA_ARGS__}, sizeof((psg_tir_expr *[]){__VA_ARGS__}) / sizeof(psg_tir_expr *), \
            NULL)
static inline psg_tir_stmt *tb_for_kind(psg_tir_expr *var, psg_tir_expr *min, psg_tir_expr *extent, int kind,
                                        psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_for_create(TB.ctx, var, min, extent, kind, body, NULL, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_for(psg_tir_expr *var, int64_t extent, psg_tir_stmt *body) {
  return tb_for_kind(var, tb_int(psg_tir_dtype_of(var), 0), tb_int(psg_tir_dtype_of(var), extent),
                     PSG_TIR_FOR_SERIAL, body);
}
static inline psg_tir_stmt *tb_seqv(psg_tir_stmt *const *s, size_t n) {
  psg_tir_stmt *out;
  return tb_keep(psg_tir_seq_stmt_create(TB.ctx, s, n, NULL, &out), &out);
}
#define TB_SEQ(...) \
  tb_seqv((psg_tir_stmt *[]){__VA_ARGS__}, sizeof((psg_tir_stmt *[]){__VA_ARGS__}) / sizeof(psg_tir_stmt *))
static inline psg_tir_stmt *tb_if(psg_tir_expr *c, psg_tir_stmt *t, psg_tir_stmt *f) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_if_then_else_create(TB.ctx, c, t, f, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_eval(psg_tir_expr *e) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_evaluate_create(TB.ctx, e, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_let_stmt(psg_tir_expr *var, psg_tir_expr *value, psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_let_stmt_create(TB.ctx, var, value, body, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_assert(psg_tir_expr *c, const char *msg, psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_assert_stmt_create(TB.ctx, c, tb_str(msg), body, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_while(psg_tir_expr *c, psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_while_create(TB.ctx, c, body, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_attr(const char *key, psg_tir_expr *v, psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_attr_stmt_create(TB.ctx, NULL, key, v, body, NULL, &s), &s);
}
static inline psg_tir_stmt *tb_decl(psg_tir_buffer *b, psg_tir_stmt *body) {
  psg_tir_stmt *s;
  return tb_keep(psg_tir_decl_buffer_create(TB.ctx, b, body, NULL, &s), &s);
}
/* Allocate of `b` (made with tb_buf) around body. */
static inline psg_tir_stmt *tb_alloc(psg_tir_buffer *b, psg_tir_stmt *body) {
  size_t nd = psg_tir_buffer_ndim(b);
  psg_tir_expr *ext[8];
  for (size_t i = 0; i < nd && i < 8; i++) ext[i] = psg_tir_buffer_get_shape(b, i);
  psg_tir_stmt *s;
  return tb_keep(psg_tir_allocate_create(TB.ctx, psg_tir_buffer_get_data(b), psg_tir_dtype_of(b), ext, nd, NULL,
                                         body, NULL, NULL, &s),
                 &s);
}
/* A compact buffer of constant shape with a new data var. */
static inline psg_tir_buffer *tb_buf(const char *name, psg_tir_dtype t, const int64_t *shape, size_t nd) {
  psg_tir_expr *sh[8];
  for (size_t i = 0; i < nd && i < 8; i++) sh[i] = tb_i32(shape[i]);
  psg_tir_buffer *b;
  return tb_keep(psg_tir_buffer_decl(TB.ctx, name, t, sh, nd, NULL, NULL, &b), &b);
}
#define TB_BUF(name, t, ...) \
  tb_buf(name, t, (int64_t[]){__VA_ARGS__}, sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
/* PrimFunc whose params are handles for `bufs` (nb of them) then scalar vars. */
static inline psg_tir_prim_func *tb_func(psg_tir_buffer *const *bufs, size_t nb, psg_tir_expr *const *scalars,
                                         size_t ns, psg_tir_stmt *body) {
  psg_tir_expr *params[16];
  size_t map[16];
  for (size_t i = 0; i < nb; i++) {
    char name[32];
    snprintf(name, sizeof name, "%s_handle", psg_tir_buffer_name(bufs[i]));
    params[i] = tb_var(name, psg_tir_dtype_handle());
    map[i] = i;
  }
  for (size_t i = 0; i < ns; i++) params[nb + i] = scalars[i];
  psg_tir_prim_func *f;
  return tb_keep(psg_tir_prim_func_create(TB.ctx, params, nb + ns, body, NULL, map, bufs, nb, NULL, NULL, &f), &f);
}

/* Tensors. */
static inline psg_tensor *tb_tensor(int dtype, const int64_t *shape, int nd, const void *data) {
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(TB.ctx, dtype, shape, nd, data, &t));
  return t;
}

/* Runs f on args; on success returns the outputs (free with tb_free_outs). */
static inline psg_status tb_run(psg_tir_prim_func *f, psg_tensor *const *args, size_t n, psg_tensor ***outs) {
  return psg_tir_eval(TB.ctx, f, args, n, outs);
}
static inline void tb_free_outs(psg_tensor **outs, size_t n) {
  if (!outs) return;
  for (size_t i = 0; i < n; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
}

/* The newest error's message contains `frag`. */
static inline int tb_error_has(const char *frag) {
  const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
  int ok = d && strstr(psg_diag_message(d), frag) != NULL;
  if (!ok) fprintf(stderr, "  last error: %s (wanted '%s')\n", d ? psg_diag_message(d) : "(none)", frag);
  return ok;
}

#endif
