/* Passage — helpers of the arithmetic analyzer's tests: expression builders
 * that keep every node they make in a pool (released by arith_end), and a
 * small printer in TVMScript's expression syntax for comparing results. */
#ifndef PSG_TEST_ARITH_CHECK_H
#define PSG_TEST_ARITH_CHECK_H

#include "check.h"
/* The printer cuts long expressions on purpose (test output only). */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "passage/arith.h"

static psg_ctx *actx;
static psg_arith_analyzer *an;
static psg_tir_node **pool;
static size_t npool, cpool;

static __attribute__((unused)) psg_tir_node *pooled(psg_tir_node *n) {
  if (!n) {
    const psg_diag *d_ = psg_ctx_get_last_error(actx);
    fprintf(stderr, "builder failed: %s\n", d_ ? psg_diag_message(d_) : "?");
    exit(2);
  }
  if (npool == cpool) {
    cpool = cpool ? 2 * cpool : 256;
    pool = realloc(pool, cpool * sizeof *pool);
    if (!pool) exit(2);
  }
  pool[npool++] = n;
  return n;
}

static __attribute__((unused)) void arith_begin(void) {
  if (psg_ctx_create(NULL, &actx) || psg_arith_analyzer_create(actx, &an)) exit(2);
}
static __attribute__((unused)) void arith_end(void) {
  psg_arith_analyzer_destroy(an);
  an = NULL;
  for (size_t i = 0; i < npool; i++) psg_tir_release(pool[i]);
  npool = 0;
  psg_ctx_release(actx);
  actx = NULL;
}

static __attribute__((unused)) psg_tir_dtype DT(const char *name) { return psg_tir_dtype_parse(name, strlen(name)); }
static __attribute__((unused)) psg_tir_expr *VARD(const char *name, const char *dt) {
  psg_tir_expr *v = NULL;
  psg_tir_var_create(actx, name, DT(dt), NULL, NULL, &v);
  return pooled(v);
}
static __attribute__((unused)) psg_tir_expr *VAR(const char *name) { return VARD(name, "int32"); }
static __attribute__((unused)) psg_tir_expr *ICD(const char *dt, int64_t v) {
  psg_tir_expr *e = NULL;
  psg_tir_int_imm_create(actx, DT(dt), v, NULL, &e);
  return pooled(e);
}
static __attribute__((unused)) psg_tir_expr *IC(int64_t v) { return ICD("int32", v); }
static __attribute__((unused)) psg_tir_expr *FC(const char *dt, double v) {
  psg_tir_expr *e = NULL;
  psg_tir_float_imm_create(actx, DT(dt), v, NULL, &e);
  return pooled(e);
}
static __attribute__((unused)) psg_tir_expr *BIN(int kind, psg_tir_expr *a, psg_tir_expr *b) {
  psg_tir_expr *e = NULL;
  psg_tir_binary_create(actx, kind, a, b, NULL, &e);
  return pooled(e);
}
#define ADD(a, b) BIN(PSG_TIR_ADD, a, b)
#define SUB(a, b) BIN(PSG_TIR_SUB, a, b)
#define MUL(a, b) BIN(PSG_TIR_MUL, a, b)
#define TDIV(a, b) BIN(PSG_TIR_DIV, a, b)
#define TMOD(a, b) BIN(PSG_TIR_MOD, a, b)
#define FDIV(a, b) BIN(PSG_TIR_FLOOR_DIV, a, b)
#define FMOD(a, b) BIN(PSG_TIR_FLOOR_MOD, a, b)
#define MIN(a, b) BIN(PSG_TIR_MIN, a, b)
#define MAX(a, b) BIN(PSG_TIR_MAX, a, b)
#define EQ(a, b) BIN(PSG_TIR_EQ, a, b)
#define NE(a, b) BIN(PSG_TIR_NE, a, b)
#define LT(a, b) BIN(PSG_TIR_LT, a, b)
#define LE(a, b) BIN(PSG_TIR_LE, a, b)
#define GT(a, b) BIN(PSG_TIR_GT, a, b)
#define GE(a, b) BIN(PSG_TIR_GE, a, b)
#define AND(a, b) BIN(PSG_TIR_AND, a, b)
#define OR(a, b) BIN(PSG_TIR_OR, a, b)
static __attribute__((unused)) psg_tir_expr *NOT(psg_tir_expr *a) {
  psg_tir_expr *e = NULL;
  psg_tir_not_create(actx, a, NULL, &e);
  return pooled(e);
}
static __attribute__((unused)) psg_tir_expr *SEL(psg_tir_expr *c, psg_tir_expr *t, psg_tir_expr *f) {
  psg_tir_expr *e = NULL;
  psg_tir_select_create(actx, c, t, f, NULL, &e);
  return pooled(e);
}
static __attribute__((unused)) psg_tir_expr *CAST(const char *dt, psg_tir_expr *v) {
  psg_tir_expr *e = NULL;
  psg_tir_cast_create(actx, DT(dt), v, NULL, &e);
  return pooled(e);
}
static __attribute__((unused)) psg_tir_expr *TRUE_(void) { return ICD("bool", 1); }

/* The printer (test code: recursion over small expressions is fine). */
static __attribute__((unused)) void show_into(const psg_tir_expr *e, char *buf, size_t size) {
  static const char *const ops[] = {[PSG_TIR_ADD] = " + ", [PSG_TIR_SUB] = " - ", [PSG_TIR_MUL] = " * ",
                                    [PSG_TIR_FLOOR_DIV] = " // ", [PSG_TIR_FLOOR_MOD] = " % ",
                                    [PSG_TIR_EQ] = " == ", [PSG_TIR_NE] = " != ", [PSG_TIR_LT] = " < ",
                                    [PSG_TIR_LE] = " <= ", [PSG_TIR_GT] = " > ", [PSG_TIR_GE] = " >= ",
                                    [PSG_TIR_AND] = " and ", [PSG_TIR_OR] = " or "};
  static const char *const fns[] = {[PSG_TIR_DIV] = "T.Div", [PSG_TIR_MOD] = "T.truncmod",
                                    [PSG_TIR_MIN] = "T.min", [PSG_TIR_MAX] = "T.max"};
  char a[512], b[512], c[512];
  int k = psg_tir_kind(e);
  switch (k) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: snprintf(buf, size, "%s", psg_tir_var_name(e)); return;
  case PSG_TIR_INT_IMM:
    if (psg_tir_dtype_is_bool(psg_tir_dtype_of(e))) snprintf(buf, size, "%s", psg_tir_int_imm_value(e) ? "True" : "False");
    else snprintf(buf, size, "%" PRId64, psg_tir_int_imm_value(e));
    return;
  case PSG_TIR_FLOAT_IMM: snprintf(buf, size, "%.9g", psg_tir_float_imm_value(e)); return;
  case PSG_TIR_NOT: show_into(psg_tir_get_value(e), a, sizeof a); snprintf(buf, size, "not (%s)", a); return;
  case PSG_TIR_CAST: {
    char d[32];
    psg_tir_dtype_str(psg_tir_dtype_of(e), d, sizeof d);
    show_into(psg_tir_get_value(e), a, sizeof a);
    snprintf(buf, size, "T.Cast(\"%s\", %s)", d, a);
    return;
  }
  case PSG_TIR_SELECT:
    show_into(psg_tir_get_cond(e), a, sizeof a);
    show_into(psg_tir_select_get_true(e), b, sizeof b);
    show_into(psg_tir_select_get_false(e), c, sizeof c);
    snprintf(buf, size, "T.Select(%s, %s, %s)", a, b, c);
    return;
  default: break;
  }
  if (k >= PSG_TIR_ADD && k <= PSG_TIR_OR) {
    show_into(psg_tir_get_a(e), a, sizeof a);
    show_into(psg_tir_get_b(e), b, sizeof b);
    if (k < (int)(sizeof fns / sizeof *fns) && fns[k]) snprintf(buf, size, "%s(%s, %s)", fns[k], a, b);
    else snprintf(buf, size, "(%s%s%s)", a, ops[k], b);
    return;
  }
  snprintf(buf, size, "<%s>", psg_tir_kind_name(k));
}
static char shown[8][1024];
static int nshown;
static __attribute__((unused)) const char *show(const psg_tir_expr *e) {
  char *b = shown[nshown++ % 8];
  if (!e) return "(null)";
  show_into(e, b, 1024);
  return b;
}

/* Simplifications as text. */
static __attribute__((unused)) const char *RS(psg_tir_expr *e) {
  psg_tir_expr *r = NULL;
  if (psg_arith_rewrite_simplify(an, e, &r)) return "(error)";
  return show(pooled(r));
}
static __attribute__((unused)) const char *CS(psg_tir_expr *e) {
  psg_tir_expr *r = NULL;
  if (psg_arith_canonical_simplify(an, e, &r)) return "(error)";
  return show(pooled(r));
}
static __attribute__((unused)) const char *SS(psg_tir_expr *e) {
  psg_tir_expr *r = NULL;
  if (psg_arith_simplify(an, e, &r)) return "(error)";
  return show(pooled(r));
}
static __attribute__((unused)) const char *FOLD(psg_tir_expr *e) {
  psg_tir_expr *r = NULL;
  if (psg_arith_const_fold(actx, e, &r)) return "(error)";
  return show(pooled(r));
}
static __attribute__((unused)) psg_arith_bound BOUND(psg_tir_expr *e) {
  psg_arith_bound b = {0, 0};
  CHECK_OK(psg_arith_const_int_bound(an, e, &b));
  return b;
}
static __attribute__((unused)) psg_arith_modset MODSET(psg_tir_expr *e) {
  psg_arith_modset m = {0, 0};
  CHECK_OK(psg_arith_modular_set(an, e, &m));
  return m;
}
#define CHECK_BOUND(e, lo, hi)                \
  do {                                        \
    psg_arith_bound b_ = BOUND(e);            \
    CHECK_EQ_INT(b_.min, (lo));               \
    CHECK_EQ_INT(b_.max, (hi));               \
  } while (0)
#define CHECK_MOD(e, c, bs)                   \
  do {                                        \
    psg_arith_modset m_ = MODSET(e);          \
    CHECK_EQ_INT(m_.coeff, (c));              \
    CHECK_EQ_INT(m_.base, (bs));              \
  } while (0)
static __attribute__((unused)) void BIND(psg_tir_expr *v, int64_t lo, int64_t extent) {
  CHECK_OK(psg_arith_bind(an, v, IC(lo), IC(extent)));
}

#endif
