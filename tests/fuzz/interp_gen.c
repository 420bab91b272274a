/* The random well-typed program generator of fuzz_interp (interp_gen.h).
 * Every choice reads one byte; when the bytes run out every choice is 0,
 * which ends the program quickly. The generator writes Relay text and keeps,
 * for each value it binds, its type (so an op's operands and attributes are
 * chosen to fit) and whether it depends on a float made discrete. */
#include "interp_gen.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const gen_dtype gen_dtypes[] = {
    {"float32", "f", GEN_FLOAT, 4}, {"float64", "f64", GEN_FLOAT, 8}, {"int32", "", GEN_INT, 4},
    {"int64", "i64", GEN_INT, 8},   {"int8", "i8", GEN_INT, 1},       {"uint8", "u8", GEN_UINT, 1},
    {"bool", "", GEN_BOOL, 1},
};
const int gen_num_dtypes = (int)(sizeof gen_dtypes / sizeof gen_dtypes[0]);
enum { DT_F32 = 0, DT_F64 = 1, DT_I32 = 2, DT_I64 = 3, DT_I8 = 4, DT_U8 = 5, DT_BOOL = 6 };

/* Growing text. */
typedef struct sbuf {
  char *s;
  size_t len, cap;
  bool oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = true;
      return;
    }
    if (b->s && (size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + (size_t)n + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = true;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
}

/* What a value depends on, for the comparison after -O3: a float made
 * discrete (a comparison, cast, floor...: a rounding change by an algebraic
 * rewrite can flip it), or a normalisation op (batch/layer/instance/group
 * norm, l2_normalize: the reference kernel accumulates in double, the
 * decomposition SimplifyInference makes is float32 throughout, as in TVM,
 * so values near the float32 range differ, and a value near zero differs by
 * a rounding error of the input's magnitude, which a later divide or scale
 * can amplify without bound: only a norm op's own result, or a projection
 * of it, keeps FZ_NORM; any other op on it makes it FZ_DISCRETE, not
 * compared). FZ_NORM_NEW marks the binding that made it. */
enum { FZ_DISCRETE = 1, FZ_NORM = 2, FZ_NORM_NEW = 4 };

/* A value in scope: a tensor, or a tuple of tensors (from split, topk,
 * batch_norm, or a tuple literal). */
typedef struct val {
  char name[24];
  bool tuple;
  int nf;
  gen_type t[4]; /* t[0] for a tensor; the fields for a tuple */
  unsigned fz;   /* FZ_DISCRETE | FZ_NORM: what the value depends on */
} val;

typedef struct fn_sig {
  char name[16];
  int np;
  gen_type p[GEN_MAX_PARAMS];
  gen_type ret;
  bool recursive; /* first parameter is the int32 counter */
  unsigned fz;    /* what its result may depend on (every value of its body) */
} fn_sig;

enum { MAX_POOL = 48, MAX_FNS = 5, EXPR_CAP = 2048 };

typedef struct gen {
  const uint8_t *p;
  size_t n, i;
  sbuf out;
  val pool[MAX_POOL];
  int npool;
  int next_id;
  fn_sig fns[MAX_FNS];
  int nfns;
  const char *self; /* the function being written */
  bool value_sized; /* a value with an unknown dim was made */
} gen;

static unsigned byte(gen *g) { return g->i < g->n ? g->p[g->i++] : 0; }
static unsigned pick(gen *g, unsigned n) { return n ? byte(g) % n : 0; }
static bool chance(gen *g, unsigned in256) { return byte(g) < in256; }

static bool known(const gen_type *t) {
  for (int i = 0; i < t->nd; i++)
    if (t->d[i] < 0) return false;
  return true;
}
static int64_t numel(const gen_type *t) {
  int64_t n = 1;
  for (int i = 0; i < t->nd; i++) n *= t->d[i] < 0 ? 1 : t->d[i];
  return n;
}
static bool same_type(const gen_type *a, const gen_type *b) {
  if (a->dt != b->dt || a->nd != b->nd) return false;
  for (int i = 0; i < a->nd; i++)
    if (a->d[i] != b->d[i]) return false;
  return true;
}
static int cls(const gen_type *t) { return gen_dtypes[t->dt].cls; }
static bool is_float(const gen_type *t) { return cls(t) == GEN_FLOAT; }
static bool is_num(const gen_type *t) { return cls(t) != GEN_BOOL; }

static void type_text(sbuf *b, const gen_type *t) {
  if (t->nd == 0) {
    put(b, "%s", gen_dtypes[t->dt].name);
    return;
  }
  put(b, "Tensor[(");
  for (int i = 0; i < t->nd; i++) {
    if (t->d[i] < 0) put(b, "%s?", i ? ", " : "");
    else put(b, "%s%lld", i ? ", " : "", (long long)t->d[i]);
  }
  put(b, "), %s]", gen_dtypes[t->dt].name);
}

/* A scalar literal of dtype dt. */
static void literal(gen *g, sbuf *b, int dt) {
  static const char *const fl[] = {"0", "1", "2", "0.5", "-1", "-3", "100", "0.25", "-0.5", "1e-05", "3.5", "65504"};
  static const char *const in[] = {"0", "1", "2", "-1", "3", "-8", "7", "100", "-100", "5"};
  static const char *const un[] = {"0", "1", "2", "3", "7", "255", "128", "5"};
  const gen_dtype *d = &gen_dtypes[dt];
  switch (d->cls) {
  case GEN_FLOAT: put(b, "%s%s", fl[pick(g, 12)], d->suffix); break;
  case GEN_INT: put(b, "%s%s", in[pick(g, 10)], d->suffix); break;
  case GEN_UINT: put(b, "%s%s", un[pick(g, 8)], d->suffix); break;
  default: put(b, "%s", pick(g, 2) ? "True" : "False"); break;
  }
}

static void int_list(sbuf *b, const int64_t *v, int n) {
  put(b, "[");
  for (int i = 0; i < n; i++) put(b, "%s%lld", i ? ", " : "", (long long)v[i]);
  put(b, "]");
}

static void shape_attr(sbuf *b, const gen_type *t) { int_list(b, t->d, t->nd); }

/* A random small type: float32 most often; rank 0..4, dims 1..4. */
static gen_type random_type(gen *g, int rank_max) {
  gen_type t;
  memset(&t, 0, sizeof t);
  unsigned k = pick(g, 16);
  t.dt = k < 7 ? DT_F32 : k < 9 ? DT_I32 : k < 10 ? DT_F64 : k < 11 ? DT_I64 : k < 12 ? DT_I8 : k < 13 ? DT_U8
         : k < 14 ? DT_BOOL : DT_F32;
  t.nd = (int)pick(g, (unsigned)rank_max + 1);
  for (int i = 0; i < t.nd; i++) t.d[i] = 1 + pick(g, 4);
  return t;
}

/* Index of a random pool tensor for which ok() holds, or -1. */
typedef bool (*val_ok)(const gen_type *t, const void *arg);
static int pick_val(gen *g, val_ok ok, const void *arg) {
  int cand[MAX_POOL], n = 0;
  for (int i = 0; i < g->npool; i++)
    if (!g->pool[i].tuple && (!ok || ok(&g->pool[i].t[0], arg))) cand[n++] = i;
  if (!n) return -1;
  /* Prefer recent values: they make longer chains. */
  unsigned r = byte(g);
  int k = r < 128 ? n - 1 - (int)(r % (n < 3 ? n : 3)) : (int)(r % (unsigned)n);
  return cand[k];
}

static bool ok_any(const gen_type *t, const void *a) { return (void)t, (void)a, true; }
static bool ok_float(const gen_type *t, const void *a) { return (void)a, is_float(t); }
static bool ok_num(const gen_type *t, const void *a) { return (void)a, is_num(t); }
static bool ok_bool(const gen_type *t, const void *a) { return (void)a, cls(t) == GEN_BOOL; }
static bool ok_known(const gen_type *t, const void *a) { return (void)a, known(t); }
static bool ok_known_ranked(const gen_type *t, const void *a) { return (void)a, known(t) && t->nd >= 1; }
static bool ok_known_num_ranked(const gen_type *t, const void *a) { return (void)a, known(t) && t->nd >= 1 && is_num(t); }
static bool ok_f_rank(const gen_type *t, const void *a) {
  return is_float(t) && known(t) && t->nd == *(const int *)a;
}
static bool ok_f_rank_ge(const gen_type *t, const void *a) {
  return is_float(t) && known(t) && t->nd >= *(const int *)a;
}
static bool ok_same(const gen_type *t, const void *a) { return same_type(t, a); }
static bool ok_int(const gen_type *t, const void *a) {
  return (void)a, (cls(t) == GEN_INT || cls(t) == GEN_UINT) && known(t);
}

/* An expression being built: text, result, and the discrete-float flag. */
typedef struct ex {
  sbuf b;
  bool tuple;
  int nf;
  gen_type t[4];
  unsigned fz;
} ex;

static const char *vn(gen *g, int i) { return g->pool[i].name; }

/* ---- op emitters: each writes one call into e from the pool, or returns
 * false when the pool has nothing that fits. ---- */

static bool op_unary(gen *g, ex *e) {
  static const char *const fops[] = {"sqrt", "rsqrt", "exp", "fast_exp", "log", "sigmoid", "tanh", "fast_tanh",
                                     "erf", "fast_erf", "nn.relu", "negative", "abs", "copy", "floor", "ceil",
                                     "round", "trunc", "sign", "zeros_like", "ones_like", "isnan"};
  static const char *const nops[] = {"negative", "abs", "copy", "sign", "zeros_like", "ones_like", "nn.relu"};
  int v = pick_val(g, ok_any, NULL);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0];
  e->fz = g->pool[v].fz;
  const char *op;
  if (cls(&t) == GEN_BOOL) {
    op = pick(g, 2) ? "logical_not" : "copy";
  } else if (is_float(&t)) {
    op = fops[pick(g, 22)];
    if (!strcmp(op, "floor") || !strcmp(op, "ceil") || !strcmp(op, "round") || !strcmp(op, "trunc") ||
        !strcmp(op, "sign"))
      e->fz |= FZ_DISCRETE;
    if (!strcmp(op, "isnan")) t.dt = DT_BOOL;
  } else {
    op = nops[pick(g, 7)];
  }
  if (pick(g, 8) == 0 && is_float(&t)) {
    put(&e->b, "nn.leaky_relu(%s, alpha=%s)", vn(g, v), pick(g, 2) ? "0.1f" : "2f");
  } else {
    put(&e->b, "%s(%s)", op, vn(g, v));
  }
  e->t[0] = t;
  return true;
}

/* Broadcast result of a and b (both known or both equal). */
static bool bcast(const gen_type *a, const gen_type *b, gen_type *o) {
  int n = a->nd > b->nd ? a->nd : b->nd;
  o->dt = a->dt;
  o->nd = n;
  for (int i = 0; i < n; i++) {
    int64_t da = i < a->nd ? a->d[a->nd - 1 - i] : 1, db = i < b->nd ? b->d[b->nd - 1 - i] : 1;
    if (da < 0 || db < 0) {
      if (da != db) return false;
      o->d[n - 1 - i] = da;
      continue;
    }
    if (da != db && da != 1 && db != 1) return false;
    o->d[n - 1 - i] = da == 1 ? db : da;
  }
  return true;
}

static bool ok_bcast_with(const gen_type *b, const void *arg) {
  gen_type o;
  return b->dt == ((const gen_type *)arg)->dt && bcast(arg, b, &o);
}

static bool op_binary(gen *g, ex *e) {
  static const char *const arith[] = {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
                                      "floor_divide", "floor_mod", "add", "multiply", "subtract"};
  static const char *const cmp[] = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"};
  int a = pick_val(g, ok_any, NULL);
  if (a < 0) return false;
  gen_type ta = g->pool[a].t[0], o = ta;
  e->fz = g->pool[a].fz;
  sbuf rhs = {0};
  int b = chance(g, 100) ? -1 : pick_val(g, ok_bcast_with, &ta);
  if (b >= 0) {
    put(&rhs, "%s", vn(g, b));
    bcast(&ta, &g->pool[b].t[0], &o);
    e->fz |= g->pool[b].fz;
  } else {
    literal(g, &rhs, ta.dt);
  }
  bool swap = chance(g, 64);
  const char *op;
  unsigned k = pick(g, 4);
  if (cls(&ta) == GEN_BOOL) {
    op = k == 0 ? "logical_and" : k == 1 ? "logical_or" : k == 2 ? "equal" : "not_equal";
  } else if (k == 0) {
    op = cmp[pick(g, 6)];
    o.dt = DT_BOOL;
    if (is_float(&ta)) e->fz |= FZ_DISCRETE;
  } else {
    op = arith[pick(g, 12)];
    if (is_float(&ta) && (!strcmp(op, "floor_divide") || !strcmp(op, "floor_mod"))) e->fz |= FZ_DISCRETE;
  }
  if (swap) put(&e->b, "%s(%s, %s)", op, rhs.s ? rhs.s : "", vn(g, a));
  else put(&e->b, "%s(%s, %s)", op, vn(g, a), rhs.s ? rhs.s : "");
  free(rhs.s);
  e->t[0] = o;
  return true;
}

static bool op_where(gen *g, ex *e) {
  int c = pick_val(g, ok_bool, NULL);
  if (c < 0) return false;
  gen_type tc = g->pool[c].t[0];
  int x = pick_val(g, ok_num, NULL);
  if (x < 0) return false;
  gen_type tx = g->pool[x].t[0], o, o2;
  tc.dt = tx.dt;
  if (!bcast(&tc, &tx, &o)) return false;
  int y = pick_val(g, ok_bcast_with, &o);
  sbuf ys = {0};
  if (y >= 0 && bcast(&o, &g->pool[y].t[0], &o2)) {
    put(&ys, "%s", vn(g, y));
    o = o2;
    e->fz |= g->pool[y].fz;
  } else {
    literal(g, &ys, tx.dt);
  }
  put(&e->b, "where(%s, %s, %s)", vn(g, c), vn(g, x), ys.s ? ys.s : "");
  free(ys.s);
  e->fz |= g->pool[c].fz | g->pool[x].fz;
  e->t[0] = o;
  return true;
}

static bool op_cast(gen *g, ex *e) {
  int v = pick_val(g, ok_any, NULL);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0];
  int to = (int)pick(g, (unsigned)gen_num_dtypes);
  e->fz = g->pool[v].fz | (is_float(&t) && gen_dtypes[to].cls != GEN_FLOAT ? FZ_DISCRETE : 0);
  if (pick(g, 4) == 0) {
    put(&e->b, "clip(%s, a_min=%s, a_max=%s)", vn(g, v), pick(g, 2) ? "-1f" : "0f", pick(g, 2) ? "1f" : "6f");
    if (!is_float(&t)) e->fz = g->pool[v].fz;
    e->t[0] = t;
    return true;
  }
  put(&e->b, "cast(%s, dtype=\"%s\")", vn(g, v), gen_dtypes[to].name);
  t.dt = to;
  e->t[0] = t;
  return true;
}

static bool op_create(gen *g, ex *e) {
  gen_type t = random_type(g, 3);
  unsigned k = pick(g, 5);
  if (k == 0) {
    put(&e->b, "zeros(shape=");
  } else if (k == 1) {
    put(&e->b, "ones(shape=");
  } else if (k == 2) {
    put(&e->b, "full(");
    literal(g, &e->b, t.dt);
    put(&e->b, ", shape=");
  } else {
    /* arange: a value-dependent length; mostly small, sometimes huge (the
     * evaluation budget must stop it before it allocates). */
    static const char *const stops[] = {"5", "12", "0", "-3", "24", "100000000", "3000000000"};
    if (!is_num(&t)) t.dt = DT_F32;
    const gen_dtype *d = &gen_dtypes[t.dt];
    unsigned s = pick(g, 7);
    const char *stop = stops[s];
    if ((d->cls == GEN_UINT || d->bytes == 1) && s >= 4) stop = "100";
    if (d->bytes == 1 && d->cls == GEN_UINT && s == 3) stop = "4";
    if (t.dt == DT_I32 && s == 6) stop = "2000000000";
    const char *step = pick(g, 4) ? "1" : pick(g, 2) ? "2" : "-1";
    if (d->cls == GEN_UINT && step[0] == '-') step = "3";
    put(&e->b, "arange(0%s, %s%s, %s%s, dtype=\"%s\")", d->suffix, stop, d->suffix, step, d->suffix, d->name);
    t.nd = 1;
    t.d[0] = -1;
    g->value_sized = true;
    e->t[0] = t;
    return true;
  }
  shape_attr(&e->b, &t);
  put(&e->b, ", dtype=\"%s\")", gen_dtypes[t.dt].name);
  e->t[0] = t;
  return true;
}

static bool op_reduce(gen *g, ex *e) {
  static const char *const ops[] = {"sum", "mean", "max", "min", "prod", "argmax", "argmin", "sum"};
  int v = pick_val(g, ok_num, NULL);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0], o;
  const char *op = ops[pick(g, 8)];
  bool arg = op[0] == 'a';
  if (!strcmp(op, "mean") && !is_float(&t)) op = "sum";
  bool keep = chance(g, 64), excl = chance(g, 32), all = t.nd == 0 || chance(g, 64);
  bool red[GEN_MAX_RANK] = {0};
  put(&e->b, "%s(%s", op, vn(g, v));
  if (!all) {
    int ax = (int)pick(g, (unsigned)t.nd);
    red[ax] = true;
    put(&e->b, ", axis=[%d]", pick(g, 2) ? ax : ax - t.nd);
  }
  if (keep) put(&e->b, ", keepdims=True");
  if (excl && !all) put(&e->b, ", exclude=True");
  if (arg && chance(g, 64)) put(&e->b, ", select_last_index=True");
  put(&e->b, ")");
  memset(&o, 0, sizeof o);
  o.dt = arg ? DT_I32 : t.dt;
  for (int i = 0; i < t.nd; i++) {
    bool r = all || (red[i] != (excl && !all));
    if (!r) o.d[o.nd++] = t.d[i];
    else if (keep) o.d[o.nd++] = 1;
  }
  e->fz = g->pool[v].fz | (arg && is_float(&t) ? FZ_DISCRETE : 0);
  e->t[0] = o;
  return true;
}

static bool op_reshape(gen *g, ex *e) {
  int v = pick_val(g, ok_known, NULL);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0], o = t;
  int64_t n = numel(&t);
  unsigned k = pick(g, 5);
  put(&e->b, "reshape(%s, newshape=", vn(g, v));
  if (k == 0 || t.nd < 2) {
    put(&e->b, "[-1]");
    o.nd = 1;
    o.d[0] = n;
  } else if (k == 1) {
    put(&e->b, "[1, -1]");
    o.nd = 2;
    o.d[0] = 1;
    o.d[1] = n;
  } else if (k == 2) {
    put(&e->b, "[0, -1]");
    o.nd = 2;
    o.d[1] = n / t.d[0];
  } else if (k == 3) {
    put(&e->b, "[-3, -2]");
    o.nd = t.nd - 1;
    o.d[0] = t.d[0] * t.d[1];
    for (int i = 2; i < t.nd; i++) o.d[i - 1] = t.d[i];
  } else {
    if (t.nd >= GEN_MAX_RANK) return false;
    put(&e->b, "[-4, 1, -1, -2]");
    o.nd = t.nd + 1;
    o.d[0] = 1;
    for (int i = 0; i < t.nd; i++) o.d[i + 1] = t.d[i];
  }
  put(&e->b, ")");
  e->fz = g->pool[v].fz;
  e->t[0] = o;
  return true;
}

static bool op_layout(gen *g, ex *e) {
  int v = pick_val(g, ok_known_ranked, NULL);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0], o = t;
  e->fz = g->pool[v].fz;
  unsigned k = pick(g, 8);
  int ax = (int)pick(g, (unsigned)t.nd);
  int sax = pick(g, 2) ? ax : ax - t.nd;
  switch (k) {
  case 0: { /* transpose */
    int perm[GEN_MAX_RANK];
    for (int i = 0; i < t.nd; i++) perm[i] = i;
    for (int i = t.nd - 1; i > 0; i--) {
      int j = (int)pick(g, (unsigned)i + 1), x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    if (pick(g, 4) == 0) {
      put(&e->b, "transpose(%s)", vn(g, v));
      for (int i = 0; i < t.nd; i++) o.d[i] = t.d[t.nd - 1 - i];
    } else {
      put(&e->b, "transpose(%s, axes=[", vn(g, v));
      for (int i = 0; i < t.nd; i++) {
        put(&e->b, "%s%d", i ? ", " : "", perm[i]);
        o.d[i] = t.d[perm[i]];
      }
      put(&e->b, "])");
    }
    break;
  }
  case 1: /* expand_dims */
    if (t.nd >= GEN_MAX_RANK) return false;
    ax = (int)pick(g, (unsigned)t.nd + 1);
    put(&e->b, "expand_dims(%s, axis=%d)", vn(g, v), ax);
    for (int i = t.nd; i > ax; i--) o.d[i] = t.d[i - 1];
    o.d[ax] = 1;
    o.nd = t.nd + 1;
    break;
  case 2: /* squeeze */
    if (t.d[ax] != 1) {
      int c = 0;
      for (int i = 0; i < t.nd; i++) c += t.d[i] == 1;
      put(&e->b, "squeeze(%s)", vn(g, v));
      o.nd = 0;
      for (int i = 0; i < t.nd; i++)
        if (t.d[i] != 1) o.d[o.nd++] = t.d[i];
      (void)c;
      break;
    }
    put(&e->b, "squeeze(%s, axis=[%d])", vn(g, v), sax);
    o.nd = 0;
    for (int i = 0; i < t.nd; i++)
      if (i != ax) o.d[o.nd++] = t.d[i];
    break;
  case 3: /* reverse */ put(&e->b, "reverse(%s, axis=%d)", vn(g, v), sax); break;
  case 4: { /* repeat */
    int r = 1 + (int)pick(g, 3);
    put(&e->b, "repeat(%s, repeats=%d, axis=%d)", vn(g, v), r, sax);
    o.d[ax] *= r;
    break;
  }
  case 5: { /* tile */
    int64_t reps[GEN_MAX_RANK] = {0};
    int nr = 1 + (int)pick(g, (unsigned)t.nd);
    for (int i = 0; i < nr; i++) reps[i] = 1 + pick(g, 2);
    put(&e->b, "tile(%s, reps=", vn(g, v));
    int_list(&e->b, reps, nr);
    put(&e->b, ")");
    /* reps shorter than the rank are padded with 1 in front */
    for (int i = 0; i < nr; i++) o.d[t.nd - nr + i] *= reps[i];
    break;
  }
  case 6: { /* broadcast_to a larger shape */
    if (t.nd >= GEN_MAX_RANK) return false;
    o.nd = t.nd + 1;
    o.d[0] = 1 + pick(g, 3);
    for (int i = 0; i < t.nd; i++) o.d[i + 1] = t.d[i] == 1 ? 1 + pick(g, 3) : t.d[i];
    put(&e->b, "broadcast_to(%s, shape=", vn(g, v));
    shape_attr(&e->b, &o);
    put(&e->b, ")");
    break;
  }
  default: { /* strided_slice with random, possibly out-of-range bounds */
    static const int64_t bs[] = {0, 1, -1, 2, -2, 100, -100, 3};
    static const int64_t ss[] = {1, 1, 2, -1, -2, 3};
    int64_t b = bs[pick(g, 8)], en = bs[pick(g, 8)], s = ss[pick(g, 6)];
    int64_t d = t.d[ax];
    int64_t lo, hi;
    /* TVM's canonicalization: negative + d, then clamp to [0, d] (step > 0)
     * or [-1, d - 1] (step < 0). */
    lo = b < 0 ? b + d : b;
    hi = en < 0 ? en + d : en;
    if (s > 0) {
      lo = lo < 0 ? 0 : lo > d ? d : lo;
      hi = hi < 0 ? 0 : hi > d ? d : hi;
      o.d[ax] = hi > lo ? (hi - lo + s - 1) / s : 0;
    } else {
      lo = lo < -1 ? -1 : lo > d - 1 ? d - 1 : lo;
      hi = hi < -1 ? -1 : hi > d - 1 ? d - 1 : hi;
      o.d[ax] = lo > hi ? (lo - hi + (-s) - 1) / (-s) : 0;
    }
    if (o.d[ax] == 0) return false; /* keep every dim >= 1 */
    put(&e->b, "strided_slice(%s, begin=[%lld], end=[%lld], strides=[%lld], axes=[%d])", vn(g, v), (long long)b,
        (long long)en, (long long)s, ax);
    break;
  }
  }
  e->t[0] = o;
  return true;
}

static bool op_join(gen *g, ex *e) {
  int a = pick_val(g, ok_known_ranked, NULL);
  if (a < 0) return false;
  gen_type t = g->pool[a].t[0], o = t;
  int b = pick_val(g, ok_same, &t);
  if (b < 0) b = a;
  e->fz = g->pool[a].fz | g->pool[b].fz;
  int ax = (int)pick(g, (unsigned)t.nd);
  unsigned k = pick(g, 4);
  if (k == 0) {
    put(&e->b, "concatenate((%s, %s), axis=%d)", vn(g, a), vn(g, b), ax);
    o.d[ax] *= 2;
  } else if (k == 1 && t.nd < GEN_MAX_RANK) {
    ax = (int)pick(g, (unsigned)t.nd + 1);
    put(&e->b, "stack((%s, %s, %s), axis=%d)", vn(g, a), vn(g, b), vn(g, a), ax);
    for (int i = t.nd; i > ax; i--) o.d[i] = t.d[i - 1];
    o.d[ax] = 3;
    o.nd = t.nd + 1;
  } else if (k == 2 && t.d[ax] > 1) {
    /* split into sections (a divisor) or at indices: a tuple */
    int64_t d = t.d[ax];
    e->tuple = true;
    if (pick(g, 2) && d % 2 == 0) {
      put(&e->b, "split(%s, indices_or_sections=2, axis=%d)", vn(g, a), ax);
      e->nf = 2;
      o.d[ax] = d / 2;
      e->t[0] = e->t[1] = o;
    } else {
      put(&e->b, "split(%s, indices_or_sections=[1], axis=%d)", vn(g, a), ax);
      e->nf = 2;
      e->t[0] = e->t[1] = o;
      e->t[0].d[ax] = 1;
      e->t[1].d[ax] = d - 1;
    }
    return true;
  } else {
    /* topk: (values, indices), or one of them */
    int kk = 1 + (int)pick(g, (unsigned)t.d[ax]);
    if (!is_num(&t)) return false;
    unsigned rt = pick(g, 3);
    bool asc = chance(g, 64);
    put(&e->b, "topk(%s, k=%d, axis=%d, ret_type=\"%s\", is_ascend=%s, dtype=\"int32\")", vn(g, a), kk, ax,
        rt == 0 ? "both" : rt == 1 ? "values" : "indices", asc ? "True" : "False");
    o.d[ax] = kk;
    gen_type oi = o;
    oi.dt = DT_I32;
    e->fz |= is_float(&t) ? FZ_DISCRETE : 0; /* ties after a rounding change pick other indices */
    if (rt == 0) {
      e->tuple = true;
      e->nf = 2;
      e->t[0] = o;
      e->t[1] = oi;
      return true;
    }
    e->t[0] = rt == 1 ? o : oi;
    return true;
  }
  e->t[0] = o;
  return true;
}

static bool op_index(gen *g, ex *e) {
  int v = pick_val(g, ok_known_ranked, NULL);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0], o;
  e->fz = g->pool[v].fz;
  unsigned k = pick(g, 4);
  if (k == 0) { /* take with indices from an int value, or a literal */
    static const char *const modes[] = {"clip", "wrap", "fast", "clip"};
    int ax = (int)pick(g, (unsigned)t.nd);
    int ix = pick_val(g, ok_int, NULL);
    const char *mode = modes[pick(g, 4)];
    memset(&o, 0, sizeof o);
    o.dt = t.dt;
    gen_type ti = {DT_I32, 0, {0}};
    if (ix >= 0 && g->pool[ix].t[0].nd + t.nd - 1 <= GEN_MAX_RANK && g->pool[ix].t[0].dt != DT_U8) {
      ti = g->pool[ix].t[0];
      /* "fast" does no bounds check (TVM): only with indices in range, so
       * here only with the clip/wrap modes. */
      if (!strcmp(mode, "fast")) mode = "wrap";
      put(&e->b, "take(%s, %s, axis=%d, mode=\"%s\")", vn(g, v), vn(g, ix), ax, mode);
      e->fz |= g->pool[ix].fz;
    } else {
      int64_t idx = (int64_t)pick(g, 8) - 3;
      if (!strcmp(mode, "fast") && (idx < 0 || idx >= t.d[ax])) idx = 0;
      put(&e->b, "take(%s, %lld, axis=%d, mode=\"%s\")", vn(g, v), (long long)idx, ax, mode);
    }
    for (int i = 0; i < ax; i++) o.d[o.nd++] = t.d[i];
    for (int i = 0; i < ti.nd; i++) o.d[o.nd++] = ti.d[i];
    for (int i = ax + 1; i < t.nd; i++) o.d[o.nd++] = t.d[i];
  } else if (k == 1) {
    put(&e->b, "shape_of(%s, dtype=\"%s\")", vn(g, v), pick(g, 2) ? "int64" : "int32");
    memset(&o, 0, sizeof o);
    o.dt = e->b.s && strstr(e->b.s, "int64") ? DT_I64 : DT_I32;
    o.nd = 1;
    o.d[0] = t.nd;
    e->fz = 0;
  } else if (k == 2) {
    put(&e->b, "ndarray_size(%s, dtype=\"int64\")", vn(g, v));
    memset(&o, 0, sizeof o);
    o.dt = DT_I64;
    e->fz = 0;
  } else {
    if (!is_num(&t)) return false;
    int ax = (int)pick(g, (unsigned)t.nd);
    put(&e->b, "argsort(%s, axis=%d, is_ascend=%s, dtype=\"int32\")", vn(g, v), ax, pick(g, 2) ? "True" : "False");
    o = t;
    o.dt = DT_I32;
    e->fz |= is_float(&t) ? FZ_DISCRETE : 0;
  }
  e->t[0] = o;
  return true;
}

/* A constant weight of shape w: ones, full, or a folded arange/reshape. */
static void weight(gen *g, sbuf *b, const gen_type *w) {
  unsigned k = pick(g, 3);
  /* arange needs a numeric dtype whose range holds the element count */
  if (k == 2 && (cls(w) == GEN_BOOL || (gen_dtypes[w->dt].bytes == 1 && numel(w) > 126))) k = 0;
  if (k == 0) {
    put(b, "ones(shape=");
    shape_attr(b, w);
    put(b, ", dtype=\"%s\")", gen_dtypes[w->dt].name);
  } else if (k == 1) {
    put(b, "full(");
    literal(g, b, w->dt);
    put(b, ", shape=");
    shape_attr(b, w);
    put(b, ", dtype=\"%s\")", gen_dtypes[w->dt].name);
  } else {
    const char *sfx = gen_dtypes[w->dt].suffix;
    /* from 1: a zero scale lets FoldScaleAxis turn -0 into +0 (conv(x, w * 0)
     * vs conv(x, w) * 0), which a later rsqrt or divide makes -inf vs inf */
    put(b, "reshape(divide(arange(1%s, %lld%s, 1%s, dtype=\"%s\"), 8%s), newshape=", sfx, (long long)numel(w) + 1, sfx,
        sfx, gen_dtypes[w->dt].name, sfx);
    shape_attr(b, w);
    put(b, ")");
  }
}

static bool op_nn(gen *g, ex *e) {
  unsigned k = pick(g, 10);
  int two = 2, three = 3, four = 4, one = 1;
  if (k == 0 || k == 1) { /* softmax family on any float */
    int v = pick_val(g, ok_f_rank_ge, &one);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0];
    const char *op = k == 0 ? "nn.softmax" : pick(g, 2) ? "nn.log_softmax" : "nn.fast_softmax";
    put(&e->b, "%s(%s, axis=%d)", op, vn(g, v), -(int)(1 + pick(g, (unsigned)t.nd)));
    e->t[0] = t;
    e->fz = g->pool[v].fz;
    return true;
  }
  if (k == 2) { /* dense */
    int v = pick_val(g, ok_f_rank_ge, &one);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0], w = {t.dt, 2, {1 + pick(g, 4), t.d[t.nd - 1]}}, o = t;
    put(&e->b, "nn.dense(%s, ", vn(g, v));
    int wv = pick_val(g, ok_same, &w);
    if (wv >= 0) put(&e->b, "%s", vn(g, wv));
    else weight(g, &e->b, &w);
    put(&e->b, ")");
    o.d[o.nd - 1] = w.d[0];
    e->t[0] = o;
    e->fz = g->pool[v].fz | (wv >= 0 ? g->pool[wv].fz : 0);
    return true;
  }
  if (k == 3) { /* batch_matmul */
    int v = pick_val(g, ok_f_rank, &three);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0], w = {t.dt, 3, {t.d[0], 1 + pick(g, 3), t.d[2]}}, o = t;
    put(&e->b, "nn.batch_matmul(%s, ", vn(g, v));
    weight(g, &e->b, &w);
    put(&e->b, ")");
    o.d[2] = w.d[1];
    e->t[0] = o;
    e->fz = g->pool[v].fz;
    return true;
  }
  if (k == 4 || k == 5) { /* bias_add, then maybe a scale: FoldScaleAxis food */
    int v = pick_val(g, ok_f_rank_ge, &one);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0];
    int ax = (int)pick(g, (unsigned)t.nd);
    gen_type b = {t.dt, 1, {t.d[ax]}};
    put(&e->b, "nn.bias_add(%s, ", vn(g, v));
    weight(g, &e->b, &b);
    put(&e->b, ", axis=%d)", ax);
    e->t[0] = t;
    e->fz = g->pool[v].fz;
    return true;
  }
  /* 4-D NCHW ops */
  int v = pick_val(g, ok_f_rank, &four);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0], o = t;
  e->fz = g->pool[v].fz;
  if (k == 6) {
    int oc = 1 + (int)pick(g, 3), kh = 1 + (int)pick(g, (unsigned)(t.d[2] < 3 ? t.d[2] : 3)),
        kw = 1 + (int)pick(g, (unsigned)(t.d[3] < 3 ? t.d[3] : 3)), pad = (int)pick(g, 2), st = 1 + (int)pick(g, 2);
    gen_type w = {t.dt, 4, {oc, t.d[1], kh, kw}};
    put(&e->b, "nn.conv2d(%s, ", vn(g, v));
    weight(g, &e->b, &w);
    put(&e->b, ", strides=[%d, %d], padding=[%d, %d, %d, %d], channels=%d, kernel_size=[%d, %d])", st, st, pad, pad,
        pad, pad, oc, kh, kw);
    o.d[1] = oc;
    o.d[2] = (t.d[2] + 2 * pad - kh) / st + 1;
    o.d[3] = (t.d[3] + 2 * pad - kw) / st + 1;
    if (chance(g, 128)) {
      /* conv2d then multiply by a per-channel constant: FoldScaleAxis */
      sbuf inner = e->b;
      memset(&e->b, 0, sizeof e->b);
      gen_type s = {t.dt, 3, {oc, 1, 1}};
      put(&e->b, "multiply(%s, ", inner.s ? inner.s : "");
      weight(g, &e->b, &s);
      put(&e->b, ")");
      free(inner.s);
    }
  } else if (k == 7) {
    int p = 1 + (int)pick(g, (unsigned)(t.d[2] < t.d[3] ? t.d[2] : t.d[3]));
    put(&e->b, "nn.%s(%s, pool_size=[%d, %d], strides=[1, 1])", pick(g, 2) ? "max_pool2d" : "avg_pool2d", vn(g, v), p,
        p);
    o.d[2] = t.d[2] - p + 1;
    o.d[3] = t.d[3] - p + 1;
  } else if (k == 8) {
    put(&e->b, "nn.%s(%s)", pick(g, 2) ? "global_avg_pool2d" : "global_max_pool2d", vn(g, v));
    o.d[2] = o.d[3] = 1;
  } else {
    unsigned m = pick(g, 3);
    if (m == 0) {
      put(&e->b, "nn.batch_flatten(%s)", vn(g, v));
      o.nd = 2;
      o.d[1] = t.d[1] * t.d[2] * t.d[3];
    } else if (m == 1) {
      put(&e->b, "layout_transform(%s, src_layout=\"NCHW\", dst_layout=\"NHWC\")", vn(g, v));
      o.d[1] = t.d[2];
      o.d[2] = t.d[3];
      o.d[3] = t.d[1];
    } else {
      gen_type c = {t.dt, 1, {t.d[1]}};
      e->fz |= FZ_NORM | FZ_NORM_NEW;
      put(&e->b, "nn.batch_norm(%s, ", vn(g, v));
      weight(g, &e->b, &c);
      put(&e->b, ", ");
      weight(g, &e->b, &c);
      put(&e->b, ", ");
      weight(g, &e->b, &c);
      put(&e->b, ", ones(shape=[%lld], dtype=\"%s\"))", (long long)t.d[1], gen_dtypes[t.dt].name);
      e->tuple = true;
      e->nf = 3;
      e->t[0] = t;
      e->t[1] = e->t[2] = c;
      return true;
    }
  }
  (void)two;
  e->t[0] = o;
  return true;
}

/* Normalisation, padding, resizing and rearranging ops (mostly 4-D NCHW). */
static bool op_nn2(gen *g, ex *e) {
  unsigned k = pick(g, 14);
  int two = 2, four = 4;
  if (k == 0) { /* nn.pad on any rank >= 1, constant / edge / reflect */
    int v = pick_val(g, ok_known_num_ranked, NULL);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0], o = t;
    unsigned mode = pick(g, 3);
    put(&e->b, "nn.pad(%s, ", vn(g, v));
    literal(g, &e->b, t.dt);
    put(&e->b, ", pad_width=[");
    for (int i = 0; i < t.nd; i++) {
      int64_t a = pick(g, 3), b = pick(g, 3);
      if (mode == 2 && a >= t.d[i]) a = 0; /* reflect needs pad < extent */
      if (mode == 2 && b >= t.d[i]) b = 0;
      put(&e->b, "%s[%lld, %lld]", i ? ", " : "", (long long)a, (long long)b);
      o.d[i] += a + b;
    }
    put(&e->b, "], pad_mode=\"%s\")", mode == 0 ? "constant" : mode == 1 ? "edge" : "reflect");
    e->t[0] = o;
    e->fz = g->pool[v].fz;
    return true;
  }
  if (k == 1) { /* nn.matmul 2-D */
    int v = pick_val(g, ok_f_rank, &two);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0], w = {t.dt, 2, {t.d[1], 1 + pick(g, 3)}}, o = t;
    put(&e->b, "nn.matmul(%s, ", vn(g, v));
    weight(g, &e->b, &w);
    put(&e->b, ")");
    o.d[1] = w.d[1];
    e->t[0] = o;
    e->fz = g->pool[v].fz;
    return true;
  }
  if (k == 2) { /* gather_nd with constant indices in range */
    int v = pick_val(g, ok_known_ranked, NULL);
    if (v < 0) return false;
    gen_type t = g->pool[v].t[0], o = t;
    int m = 1 + (int)pick(g, (unsigned)t.nd), cols = 1 + (int)pick(g, 3);
    int64_t lo = t.d[0];
    for (int i = 1; i < m; i++) lo = t.d[i] < lo ? t.d[i] : lo;
    put(&e->b, "gather_nd(%s, full(%lld, shape=[%d, %d], dtype=\"int32\"))", vn(g, v), (long long)pick(g, (unsigned)lo), m, cols);
    o.nd = 0;
    o.d[o.nd++] = cols;
    for (int i = m; i < t.nd; i++) o.d[o.nd++] = t.d[i];
    if (o.nd > GEN_MAX_RANK) return false;
    e->t[0] = o;
    e->fz = g->pool[v].fz;
    return true;
  }
  if (k == 3) {
    int v = pick_val(g, ok_any, NULL);
    if (v < 0) return false;
    put(&e->b, "annotation.stop_fusion(%s)", vn(g, v));
    e->t[0] = g->pool[v].t[0];
    e->fz = g->pool[v].fz;
    return true;
  }
  int v = pick_val(g, ok_f_rank, &four);
  if (v < 0) return false;
  gen_type t = g->pool[v].t[0], o = t, c = {t.dt, 1, {t.d[1]}};
  e->fz = g->pool[v].fz;
  const char *n = vn(g, v);
  switch (k) {
  case 4: {
    e->fz |= FZ_NORM | FZ_NORM_NEW;
    int ax = (int)pick(g, 4);
    gen_type cc = {t.dt, 1, {t.d[ax]}};
    put(&e->b, "nn.layer_norm(%s, ", n);
    weight(g, &e->b, &cc);
    put(&e->b, ", ");
    weight(g, &e->b, &cc);
    put(&e->b, ", axis=%d, epsilon=1e-05f%s)", ax, pick(g, 2) ? ", center=False" : "");
    break;
  }
  case 5:
    e->fz |= FZ_NORM | FZ_NORM_NEW;
    put(&e->b, "nn.instance_norm(%s, ", n);
    weight(g, &e->b, &c);
    put(&e->b, ", ");
    weight(g, &e->b, &c);
    put(&e->b, ")");
    break;
  case 6: {
    e->fz |= FZ_NORM | FZ_NORM_NEW;
    int groups = t.d[1] % 2 == 0 && pick(g, 2) ? 2 : 1;
    put(&e->b, "nn.group_norm(%s, ", n);
    weight(g, &e->b, &c);
    put(&e->b, ", ");
    weight(g, &e->b, &c);
    put(&e->b, ", num_groups=%d)", groups);
    break;
  }
  case 7:
    e->fz |= FZ_NORM | FZ_NORM_NEW;
    put(&e->b, "nn.l2_normalize(%s, eps=1e-05f, axis=[%d])", n, (int)pick(g, 4)); break;
  case 8: put(&e->b, "nn.lrn(%s, size=%d, axis=1, bias=2f, alpha=0.0001f, beta=0.75f)", n, 1 + 2 * (int)pick(g, 2)); break;
  case 9:
    put(&e->b, "nn.prelu(%s, ", n);
    weight(g, &e->b, &c);
    put(&e->b, ", axis=1)");
    break;
  case 10: {
    int oh = 1 + (int)pick(g, 4), ow = 1 + (int)pick(g, 4);
    if (pick(g, 2)) {
      put(&e->b, "nn.adaptive_avg_pool2d(%s, output_size=[%d, %d])", n, oh, ow);
    } else {
      static const char *const modes[] = {"half_pixel", "align_corners", "asymmetric"};
      put(&e->b, "image.resize2d(%s, size=[%d, %d], method=\"%s\", coordinate_transformation_mode=\"%s\")", n, oh, ow,
          pick(g, 2) ? "linear" : "nearest_neighbor", modes[pick(g, 3)]);
    }
    o.d[2] = oh;
    o.d[3] = ow;
    break;
  }
  case 11:
    put(&e->b, "nn.upsampling(%s, scale_h=2f, scale_w=%s)", n, pick(g, 2) ? "2f" : "1f");
    o.d[2] *= 2;
    if (strstr(e->b.s, "scale_w=2f")) o.d[3] *= 2;
    break;
  case 12:
    if (t.d[1] % 4 == 0) {
      put(&e->b, "nn.depth_to_space(%s, block_size=2%s)", n, pick(g, 2) ? ", mode=\"CRD\"" : "");
      o.d[1] /= 4;
      o.d[2] *= 2;
      o.d[3] *= 2;
    } else if (t.d[2] % 2 == 0 && t.d[3] % 2 == 0) {
      put(&e->b, "nn.space_to_depth(%s, block_size=2)", n);
      o.d[1] *= 4;
      o.d[2] /= 2;
      o.d[3] /= 2;
    } else {
      return false;
    }
    break;
  default: { /* conv2d_transpose, weight (IC, OC, kh, kw) */
    int oc = 1 + (int)pick(g, 3), kk = 1 + (int)pick(g, 3), st = 1 + (int)pick(g, 2), pad = (int)pick(g, 2);
    if (pad >= kk) pad = 0;
    gen_type w = {t.dt, 4, {t.d[1], oc, kk, kk}};
    put(&e->b, "nn.conv2d_transpose(%s, ", n);
    weight(g, &e->b, &w);
    put(&e->b, ", channels=%d, kernel_size=[%d, %d], strides=[%d, %d], padding=[%d, %d, %d, %d])", oc, kk, kk, st, st,
        pad, pad, pad, pad);
    o.d[1] = oc;
    o.d[2] = (t.d[2] - 1) * st - 2 * pad + kk;
    o.d[3] = (t.d[3] - 1) * st - 2 * pad + kk;
    if (o.d[2] < 1 || o.d[3] < 1) return false;
    break;
  }
  }
  e->t[0] = o;
  return true;
}

static bool op_tuple(gen *g, ex *e) {
  /* a projection of a tuple in scope */
  int c[MAX_POOL], n = 0;
  for (int i = 0; i < g->npool; i++)
    if (g->pool[i].tuple) c[n++] = i;
  if (!n) return false;
  int v = c[pick(g, (unsigned)n)];
  int f = (int)pick(g, (unsigned)g->pool[v].nf);
  put(&e->b, "%s.%d", vn(g, v), f);
  e->t[0] = g->pool[v].t[f];
  e->fz = g->pool[v].fz | FZ_NORM_NEW; /* a projection changes no value */
  return true;
}

/* An argument of type want: a pool value of that type, or a constant. */
static void arg_of(gen *g, sbuf *b, const gen_type *want, unsigned *fz) {
  int v = pick_val(g, ok_same, want);
  if (v >= 0 && pick(g, 4)) {
    put(b, "%s", vn(g, v));
    *fz |= g->pool[v].fz;
    return;
  }
  if (want->nd == 0) {
    literal(g, b, want->dt);
    return;
  }
  weight(g, b, want);
}

static bool op_call(gen *g, ex *e) {
  if (!g->nfns) return false;
  const fn_sig *f = &g->fns[pick(g, (unsigned)g->nfns)];
  if (!strcmp(f->name, g->self)) return false;
  put(&e->b, "@%s(", f->name);
  for (int i = 0; i < f->np; i++) {
    if (i) put(&e->b, ", ");
    if (i == 0 && f->recursive) {
      /* the depth: mostly small, sometimes past relay.interp.max_call_depth */
      static const int depth[] = {0, 1, 3, 7, 20, 45, 60, 1000};
      put(&e->b, "%d", depth[pick(g, 8)]);
      continue;
    }
    arg_of(g, &e->b, &f->p[i], &e->fz);
  }
  put(&e->b, ")");
  e->t[0] = f->ret;
  e->fz |= f->fz;
  return true;
}

/* if (cond) { let %x = op(a); ... } else { b }: both branches of a's type. */
static bool op_if(gen *g, ex *e) {
  int a = pick_val(g, ok_num, NULL);
  if (a < 0) return false;
  gen_type t = g->pool[a].t[0];
  int c = pick_val(g, ok_num, NULL);
  if (c < 0) return false;
  gen_type tc = g->pool[c].t[0];
  const char *red = chance(g, 128) ? "sum" : "max";
  put(&e->b, "if (greater(%s(%s), ", red, vn(g, c));
  literal(g, &e->b, tc.dt);
  put(&e->b, ")) {\n    let %%b%d = %s(%s);\n    add(%%b%d, %s)\n  } else {\n    ", g->next_id,
      is_float(&t) ? (pick(g, 2) ? "tanh" : "exp") : "negative", vn(g, a), g->next_id, vn(g, a));
  g->next_id++;
  int b = pick_val(g, ok_same, &t);
  if (b >= 0 && pick(g, 2)) {
    put(&e->b, "%s", vn(g, b));
  } else {
    put(&e->b, "multiply(%s, ", vn(g, a));
    literal(g, &e->b, t.dt);
    put(&e->b, ")");
  }
  put(&e->b, "\n  }");
  e->t[0] = t;
  e->fz = g->pool[a].fz | g->pool[c].fz | (is_float(&tc) ? FZ_DISCRETE : 0) | (b >= 0 ? g->pool[b].fz : 0);
  return true;
}

/* A local closure applied at once: fn (%y) { op(%y) }(a). */
static bool op_closure(gen *g, ex *e) {
  int a = pick_val(g, ok_float, NULL);
  if (a < 0) return false;
  gen_type t = g->pool[a].t[0];
  sbuf tt = {0};
  type_text(&tt, &t);
  put(&e->b, "(fn (%%y%d: %s) { multiply(%%y%d, %s) })(%s)", g->next_id, tt.s ? tt.s : "float32", g->next_id, vn(g, a),
      vn(g, a));
  free(tt.s);
  g->next_id++;
  e->t[0] = t;
  e->fz = g->pool[a].fz;
  return true;
}

typedef bool (*op_fn)(gen *g, ex *e);
static const op_fn ops[] = {op_unary, op_binary, op_binary, op_where, op_cast,  op_create, op_reduce,
                            op_reshape, op_layout, op_layout, op_join, op_index, op_nn,     op_nn,
                            op_nn2,   op_tuple,  op_call,   op_if,     op_closure};

/* One binding: `%vN = expr;` or `let %vN = expr;`. Returns false when no
 * op fits (tried a few times). */
static bool bind_one(gen *g) {
  if (g->npool >= MAX_POOL) return false;
  for (int tries = 0; tries < 4; tries++) {
    ex e;
    memset(&e, 0, sizeof e);
    bool ok = ops[pick(g, (unsigned)(sizeof ops / sizeof ops[0]))](g, &e);
    if (ok && !e.tuple && e.t[0].nd > GEN_MAX_RANK) ok = false;
    if (ok && !e.tuple && known(&e.t[0]) && numel(&e.t[0]) > 4096) ok = false;
    if (!ok || e.b.oom) {
      free(e.b.s);
      continue;
    }
    if ((e.fz & FZ_NORM) && !(e.fz & FZ_NORM_NEW)) e.fz |= FZ_DISCRETE;
    e.fz &= ~(unsigned)FZ_NORM_NEW;
    val *v = &g->pool[g->npool++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%%v%d", g->next_id++);
    v->tuple = e.tuple;
    v->nf = e.tuple ? e.nf : 1;
    memcpy(v->t, e.t, sizeof v->t);
    v->fz = e.fz;
    put(&g->out, "  %s%s = %s;\n", chance(g, 64) ? "let " : "", v->name, e.b.s ? e.b.s : "");
    free(e.b.s);
    return true;
  }
  return false;
}

static void start_fn(gen *g, const char *name, const gen_type *params, int np, bool recursive) {
  g->npool = 0;
  g->self = name;
  put(&g->out, "def @%s(", name);
  for (int i = 0; i < np; i++) {
    val *v = &g->pool[g->npool++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%%p%d", i);
    v->t[0] = params[i];
    v->nf = 1;
    put(&g->out, "%s%s: ", i ? ", " : "", v->name);
    type_text(&g->out, &params[i]);
  }
  (void)recursive;
}

/* A helper function @fK(params) -> T, or a recursive one
 * @fK(%p0: int32, %p1: T) -> T counting %p0 down. */
static void helper(gen *g) {
  fn_sig *f = &g->fns[g->nfns];
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "f%d", g->nfns);
  f->recursive = chance(g, 90);
  if (f->recursive) {
    f->np = 2;
    f->p[0] = (gen_type){DT_I32, 0, {0}};
    f->p[1] = random_type(g, 3);
    if (!is_num(&f->p[1])) f->p[1].dt = DT_F32;
    f->ret = f->p[1];
    start_fn(g, f->name, f->p, 2, true);
    put(&g->out, ") -> ");
    type_text(&g->out, &f->ret);
    g->nfns++; /* callable from its own body */
    int nb = (int)pick(g, 4);
    put(&g->out, " {\n  if (greater(%%p0, 0)) {\n");
    for (int i = 0; i < nb; i++) bind_one(g);
    /* the next step: a value of the parameter's type */
    const char *op = is_float(&f->p[1]) ? (pick(g, 2) ? "tanh" : "sigmoid") : "negative";
    int same = pick_val(g, ok_same, &f->p[1]);
    put(&g->out, "    @%s(subtract(%%p0, 1), %s(%s))\n  } else {\n    %%p1\n  }\n}\n\n", f->name, op,
        same >= 0 ? vn(g, same) : "%p1");
    for (int i = 0; i < g->npool; i++) f->fz |= g->pool[i].fz;
    return;
  }
  f->np = 1 + (int)pick(g, 2);
  for (int i = 0; i < f->np; i++) f->p[i] = random_type(g, 4);
  start_fn(g, f->name, f->p, f->np, false);
  put(&g->out, ")");
  size_t at = g->out.len;
  put(&g->out, " {\n");
  int nb = 1 + (int)pick(g, 6);
  for (int i = 0; i < nb; i++) bind_one(g);
  int r = pick_val(g, ok_known, NULL);
  if (r < 0) r = 0;
  f->ret = g->pool[r].t[0];
  for (int i = 0; i < g->npool; i++) f->fz |= g->pool[i].fz;
  put(&g->out, "  %s\n}\n\n", vn(g, r));
  /* the return annotation, now that the result is known */
  sbuf ann = {0};
  put(&ann, " -> ");
  type_text(&ann, &f->ret);
  if (ann.s && !g->out.oom) {
    size_t n = strlen(ann.s);
    char *s = realloc(g->out.s, g->out.len + n + 1);
    if (s) {
      g->out.s = s;
      memmove(s + at + n, s + at, g->out.len - at + 1);
      memcpy(s + at, ann.s, n);
      g->out.len += n;
      g->out.cap = g->out.len + 1;
    } else {
      g->out.oom = true;
    }
  }
  free(ann.s);
  g->nfns++;
}

char *gen_program(const uint8_t *data, size_t size, gen_type *main_params, int *num_params, uint32_t *compare_mask,
                  uint32_t *norm_mask, bool *value_sized) {
  gen g;
  memset(&g, 0, sizeof g);
  g.p = data;
  g.n = size;
  put(&g.out, "#[version = \"0.0.5\"]\n");
  int nh = (int)pick(&g, 3);
  for (int i = 0; i < nh && g.nfns < MAX_FNS; i++) helper(&g);
  int np = 1 + (int)pick(&g, GEN_MAX_PARAMS);
  for (int i = 0; i < np; i++) {
    main_params[i] = random_type(&g, 4);
    if (main_params[i].nd == 4 && chance(&g, 128)) main_params[i].dt = DT_F32;
  }
  *num_params = np;
  start_fn(&g, "main", main_params, np, false);
  put(&g.out, ") {\n");
  int nb = 1 + (int)pick(&g, 24);
  for (int i = 0; i < nb; i++) bind_one(&g);
  /* the result: a tuple of 1 to 3 tensors, latest values first */
  int nout = 1 + (int)pick(&g, 3), outs = 0;
  *compare_mask = *norm_mask = 0;
  put(&g.out, "  (");
  for (int i = g.npool - 1; i >= 0 && outs < nout; i--) {
    if (g.pool[i].tuple) continue;
    if (!(g.pool[i].fz & FZ_DISCRETE)) *compare_mask |= 1u << outs;
    if (g.pool[i].fz & FZ_NORM) *norm_mask |= 1u << outs;
    put(&g.out, "%s%s", outs ? ", " : "", g.pool[i].name);
    outs++;
  }
  put(&g.out, "%s)\n}\n", outs == 1 ? "," : "");
  *value_sized = g.value_sized;
  if (g.out.oom) {
    free(g.out.s);
    return NULL;
  }
  return g.out.s;
}
