/* Passage — CodeGenC: a gather whose lanes sit at constant distances from
 * one scalar index. The sub-pixel conv2d_transpose interleaves its parity
 * planes with an index like base + (l % 2) * plane + l / 2 over lanes l:
 * computed as int vectors lane by lane (a division per lane) and loaded lane
 * by lane. Split into a scalar base and constant per-lane offsets, the
 * index costs one scalar sum, and when the offsets fall in at most two
 * windows of a vector's width the lanes come from two contiguous loads and
 * one shuffle (the windows lie between the lowest and the highest element
 * the gather reads, so nothing outside what it reads anyway is touched). */
#include "codegen/codegen_c_internal.h"
#include "support/support.h"
#include <math.h>
#include <string.h>

enum { DEPTH = 24 };
#define LIMIT ((int64_t)1 << 31)

typedef struct task {
  const psg_tir_node *n;
  bool expanded;
} task;

typedef struct lstack {
  task tasks[DEPTH];
  size_t ntasks;
  psgi_cg_lanes vals[DEPTH];
  size_t nvals;
} lstack;

static bool in_range(int64_t v) { return v > -LIMIT && v < LIMIT; }
static bool is_binary(int kind);

static bool add_term_of(psgi_cg_lanes *v, const psgi_cg_lanes *from, int i, int64_t coef) {
  const psg_tir_node *t = from->term[i];
  for (int k = 0; k < v->nterms; k++)
    if (v->term[k] == t && !v->table[k] && !from->table[i]) return in_range(v->coef[k] += coef);
  if (v->nterms == PSGI_CG_LANE_TERMS) return false;
  int k = v->nterms++;
  v->term[k] = t, v->coef[k] = coef, v->table[k] = from->table[i];
  v->table_lo[k] = from->table_lo[i], v->table_len[k] = from->table_len[i];
  return in_range(coef);
}

static bool add_term(psgi_cg_lanes *v, const psg_tir_node *t, int64_t coef) {
  psgi_cg_lanes one;
  one.term[0] = t, one.table[0] = NULL, one.table_lo[0] = 0, one.table_len[0] = 0;
  return add_term_of(v, &one, 0, coef);
}

/* A leaf: a scalar integer (a term, or a constant in every lane). */
static bool scalar_leaf(psgi_cg_lanes *v, const psg_tir_node *x, int64_t step, int lanes) {
  memset(v, 0, sizeof *v);
  v->lanes = lanes;
  int64_t b = 0;
  if (x->kind == PSG_TIR_INT_IMM) b = x->u.int_value;
  else if (!add_term(v, x, 1)) return false;
  for (int l = 0; l < lanes; l++)
    if (!in_range(v->off[l] = b + step * l)) return false;
  return true;
}

/* a op b into a (lane by lane; terms only where the op is linear in them). */
static bool combine(int kind, psgi_cg_lanes *a, const psgi_cg_lanes *b) {
  bool a_const = !a->nterms, b_const = !b->nterms;
  if (kind == PSG_TIR_ADD || kind == PSG_TIR_SUB) {
    int64_t sign = kind == PSG_TIR_ADD ? 1 : -1;
    for (int i = 0; i < b->nterms; i++)
      if (!add_term_of(a, b, i, sign * b->coef[i])) return false;
    for (int l = 0; l < a->lanes; l++)
      if (!in_range(a->off[l] += sign * b->off[l])) return false;
    return true;
  }
  if (kind == PSG_TIR_MUL) {
    const psgi_cg_lanes *k = b_const ? b : a_const ? a : NULL;
    if (!k) return false;
    for (int l = 1; l < a->lanes; l++)
      if (k->off[l] != k->off[0]) return false;
    int64_t f = k->off[0];
    psgi_cg_lanes r = k == b ? *a : *b;
    for (int i = 0; i < r.nterms; i++)
      if (!in_range(r.coef[i] *= f)) return false;
    for (int l = 0; l < r.lanes; l++)
      if (!in_range(r.off[l] *= f)) return false;
    *a = r;
    return true;
  }
  if (!a_const || !b_const) return false;
  for (int l = 0; l < a->lanes; l++) {
    int64_t x = a->off[l], y = b->off[l], q;
    switch (kind) {
      case PSG_TIR_MIN: a->off[l] = x < y ? x : y; continue;
      case PSG_TIR_MAX: a->off[l] = x > y ? x : y; continue;
      default: break;
    }
    if (y == 0) return false;
    q = x / y;
    if (kind == PSG_TIR_DIV) a->off[l] = q;
    else if (kind == PSG_TIR_MOD) a->off[l] = x % y;
    else if (kind == PSG_TIR_FLOOR_DIV) a->off[l] = q - ((x % y != 0) && ((x < 0) != (y < 0)));
    else if (kind == PSG_TIR_FLOOR_MOD) a->off[l] = x - y * (q - ((x % y != 0) && ((x < 0) != (y < 0))));
    else return false;
  }
  return true;
}

/* Evaluation of a piece of the index at one value of its one loop var and
 * one lane, with the generated C's semantics (float32 arithmetic in float,
 * float to int truncating; out of range: not evaluated). */
typedef struct eval_val {
  double f;
  int64_t i;
} eval_val;

static bool is_f32(psg_tir_dtype t) { return psg_tir_dtype_is_float(t) && psg_tir_dtype_bits(t) == 32; }

static bool eval_node(const psg_tir_node *n, const eval_val *a, const eval_val *b, const psg_tir_node *var,
                      int64_t x, int lane, eval_val *r) {
  psg_tir_dtype t = n->dtype;
  bool fl = psg_tir_dtype_is_float(t);
  if (fl && !is_f32(t)) return false;
  if (!fl && (!psg_tir_dtype_is_int(t) || psg_tir_dtype_bits(t) < 32)) return false;
  r->f = 0, r->i = 0;
  switch (n->kind) {
    case PSG_TIR_INT_IMM: r->i = n->u.int_value; return true;
    case PSG_TIR_FLOAT_IMM: r->f = (float)n->u.float_value; return true;
    case PSG_TIR_VAR:
    case PSG_TIR_SIZE_VAR: r->i = x; return n == var;
    case PSG_TIR_BROADCAST: *r = *a; return true;
    case PSG_TIR_RAMP: r->i = a->i + b->i * lane; return in_range(r->i);
    case PSG_TIR_CAST: {
      psg_tir_dtype from = n->kids[0]->dtype;
      if (fl && psg_tir_dtype_is_float(from)) r->f = (float)a->f;
      else if (fl) r->f = (float)(double)a->i;
      else if (psg_tir_dtype_is_float(from)) {
        if (!(a->f > -2147483648.0 && a->f < 2147483647.0)) return false;
        r->i = (int64_t)a->f;
      } else r->i = a->i;
      return fl || in_range(r->i);
    }
    case PSG_TIR_CALL: {
      const char *op = psgi_tir_ops[n->u.op].name;
      if (!fl || n->nkids != 1) return false;
      float v = (float)a->f;
      if (!strcmp(op, "tir.floor")) r->f = floorf(v);
      else if (!strcmp(op, "tir.ceil")) r->f = ceilf(v);
      else if (!strcmp(op, "tir.trunc")) r->f = truncf(v);
      else return false;
      return true;
    }
    default: break;
  }
  if (fl) {
    float p = (float)a->f, q = (float)b->f, v;
    switch (n->kind) {
      case PSG_TIR_ADD: v = p + q; break;
      case PSG_TIR_SUB: v = p - q; break;
      case PSG_TIR_MUL: v = p * q; break;
      case PSG_TIR_DIV: v = p / q; break;
      case PSG_TIR_MIN: v = p < q ? p : q; break;
      case PSG_TIR_MAX: v = p > q ? p : q; break;
      default: return false;
    }
    r->f = v;
    return true;
  }
  psgi_cg_lanes la = {0}, lb = {0};
  la.lanes = lb.lanes = 1, la.off[0] = a->i, lb.off[0] = b->i;
  if (!is_binary(n->kind) || !combine(n->kind, &la, &lb)) return false;
  r->i = la.off[0];
  return true;
}

/* The value of scalar Let var n, or NULL (a loop var, a parameter). */
static const psg_tir_node *let_of(cg *c, const psg_tir_node *n) {
  if (n->kind != PSG_TIR_VAR) return NULL;
  psgi_map_entry *e = psgi_map_get_ptr(&c->let_value, n);
  return e ? e->value : NULL;
}

/* Lane `lane` of piece n at var = x (explicit stack, post-order; a Let
 * var stands for its value). */
static bool eval_piece(cg *c, const psg_tir_node *n, const psg_tir_node *var, int64_t x, int lane, int64_t *out) {
  task tasks[DEPTH];
  eval_val vals[DEPTH];
  size_t nt = 1, nv = 0;
  tasks[0] = (task){n, false};
  while (nt) {
    task t = tasks[--nt];
    const psg_tir_node *let = let_of(c, t.n);
    if (let) {
      tasks[nt++] = (task){let, false};
      continue;
    }
    size_t nk = t.n->kind == PSG_TIR_BROADCAST || t.n->kind == PSG_TIR_CAST || t.n->kind == PSG_TIR_CALL ? 1
                : t.n->kind == PSG_TIR_RAMP || is_binary(t.n->kind)                                    ? 2
                                                                                                         : 0;
    if (t.n->kind == PSG_TIR_CALL && t.n->nkids != 1) return false;
    if (!t.expanded && nk) {
      if (nt + 1 + nk > DEPTH) return false;
      tasks[nt++] = (task){t.n, true};
      for (size_t k = nk; k-- > 0;) tasks[nt++] = (task){t.n->kids[k], false};
      continue;
    }
    if (nv < nk || nv - nk >= DEPTH) return false;
    nv -= nk;
    eval_val r, zero = {0, 0};
    if (!eval_node(t.n, nk ? &vals[nv] : &zero, nk > 1 ? &vals[nv + 1] : &zero, var, x, lane, &r)) return false;
    vals[nv++] = r;
  }
  if (nv != 1) return false;
  *out = vals[0].i;
  return true;
}

/* The loop var a piece depends on (NULL: none), whether it has a node the
 * linear split cannot take (a cast, a call, float arithmetic), and whether
 * it can be evaluated at all (one var at most, no loads, small). */
static bool piece_shape(cg *c, const psg_tir_node *n, const psg_tir_node **var, bool *nonlinear) {
  const psg_tir_node *stack[DEPTH];
  size_t ns = 1, seen = 0;
  stack[0] = n;
  *var = NULL, *nonlinear = false;
  while (ns) {
    const psg_tir_node *m = stack[--ns];
    if (++seen > 64) return false;
    const psg_tir_node *let = let_of(c, m);
    if (let) {
      stack[ns++] = let;
      continue;
    }
    if (m->kind == PSG_TIR_VAR || m->kind == PSG_TIR_SIZE_VAR) {
      if (*var && *var != m) return false;
      *var = m;
      continue;
    }
    if (m->kind == PSG_TIR_CAST || m->kind == PSG_TIR_CALL || psg_tir_dtype_is_float(m->dtype)) *nonlinear = true;
    size_t nk = m->kind == PSG_TIR_BROADCAST || m->kind == PSG_TIR_CAST || m->kind == PSG_TIR_CALL ? 1
                : m->kind == PSG_TIR_RAMP || is_binary(m->kind)                                    ? 2
                : m->kind == PSG_TIR_INT_IMM || m->kind == PSG_TIR_FLOAT_IMM                         ? 0
                                                                                                     : 99;
    if (nk == 99 || (m->kind == PSG_TIR_CALL && m->nkids != 1) || ns + nk > DEPTH) return false;
    for (size_t k = 0; k < nk; k++) stack[ns++] = m->kids[k];
  }
  return true;
}

/* A piece of the index that depends on one loop var alone (or none), such
 * as nearest resize's column clamp(int(floor(0.5 * float(x0 + l)))): its
 * values at every value of the var, which must differ from lane 0 by the
 * same constants at each; lane 0's in a table (arena) indexed by the var. */
static bool eval_leaf(cg *c, const psg_tir_node *n, int lanes, psgi_cg_lanes *v) {
  const psg_tir_node *var;
  bool nonlinear;
  if (!piece_shape(c, n, &var, &nonlinear) || !nonlinear) return false;
  psg_arith_bound b = {0, 0};
  if (var && (!c->an || psg_arith_const_int_bound(c->an, (psg_tir_expr *)var, &b) || b.min < -LIMIT ||
              b.max - b.min >= 256))
    return false;
  int len = (int)(b.max - b.min + 1);
  int32_t *table = var ? psgi_arena_alloc(&c->arena, sizeof(int32_t) * (size_t)len) : NULL;
  if (var && !table) return false;
  memset(v, 0, sizeof *v);
  v->lanes = lanes;
  for (int k = 0; k < len; k++) {
    int64_t first = 0;
    for (int l = 0; l < lanes; l++) {
      int64_t y;
      if (!eval_piece(c, n, var, b.min + k, l, &y) || !in_range(y)) return false;
      if (l == 0) first = y;
      if (k == 0) v->off[l] = y - (var ? first : 0);
      else if (v->off[l] != y - first) return false;
    }
    if (table) table[k] = (int32_t)first;
  }
  if (var) {
    v->nterms = 1, v->term[0] = var, v->coef[0] = 1, v->table[0] = table;
    v->table_lo[0] = b.min, v->table_len[0] = len;
  }
  return true;
}

static bool is_binary(int kind) {
  return kind == PSG_TIR_ADD || kind == PSG_TIR_SUB || kind == PSG_TIR_MUL || kind == PSG_TIR_DIV ||
         kind == PSG_TIR_MOD || kind == PSG_TIR_FLOOR_DIV || kind == PSG_TIR_FLOOR_MOD || kind == PSG_TIR_MIN ||
         kind == PSG_TIR_MAX;
}

static bool split(cg *c, lstack *s, const psg_tir_node *index, int lanes) {
  s->tasks[0] = (task){index, false};
  s->ntasks = 1, s->nvals = 0;
  while (s->ntasks) {
    task t = s->tasks[--s->ntasks];
    const psg_tir_node *n = t.n;
    if (psg_tir_dtype_lanes(n->dtype) != lanes || !psg_tir_dtype_is_int(n->dtype)) return false;
    if (n->kind == PSG_TIR_BROADCAST || n->kind == PSG_TIR_RAMP) {
      const psg_tir_node *step = n->kind == PSG_TIR_RAMP ? n->kids[1] : NULL;
      if (s->nvals == DEPTH || (step && step->kind != PSG_TIR_INT_IMM)) return false;
      if (psg_tir_dtype_lanes(n->kids[0]->dtype) != 1) return false;
      if (!scalar_leaf(&s->vals[s->nvals++], n->kids[0], step ? step->u.int_value : 0, lanes)) return false;
      continue;
    }
    if (!t.expanded && s->nvals < DEPTH && eval_leaf(c, n, lanes, &s->vals[s->nvals])) {
      s->nvals++;
      continue;
    }
    if (!is_binary(n->kind)) return false;
    if (t.expanded) {
      if (s->nvals < 2) return false;
      s->nvals--;
      if (!combine(n->kind, &s->vals[s->nvals - 1], &s->vals[s->nvals])) return false;
      continue;
    }
    if (s->ntasks + 3 > DEPTH) return false;
    s->tasks[s->ntasks++] = (task){n, true};
    s->tasks[s->ntasks++] = (task){n->kids[1], false};
    s->tasks[s->ntasks++] = (task){n->kids[0], false};
  }
  return s->nvals == 1;
}

bool psgi_cg_lane_split(cg *c, const psg_tir_node *n, psgi_cg_lanes *out) {
  const psg_tir_node *b = n->kids[0];
  if (n->kind != PSG_TIR_BUFFER_LOAD || psgi_tir_num_indices(n) != 1 || psg_tir_dtype_lanes(b->dtype) != 1 ||
      psg_tir_dtype_is_bool(b->dtype) || (n->flags & PSGI_TIR_HAS_PRED) || b->u.buf.nstrides)
    return false;
  int lanes = psg_tir_dtype_lanes(n->dtype);
  if (lanes < 2 || lanes > 64) return false;
  lstack *s = psgi_alloc(c->ctx, sizeof *s);
  if (!s) return false;
  bool ok = split(c, s, psgi_tir_indices(n)[0], lanes) && s->vals[0].nterms > 0;
  for (int i = 0; ok && i < s->vals[0].nterms; i++) ok = psgi_cg_is_simple(c, s->vals[0].term[i]);
  if (ok) *out = s->vals[0];
  psgi_free(c->ctx, s);
  return ok;
}

/* A power-of-two window width h (>= 2, <= lanes) such that the offsets
 * fall in at most two windows [start[k], start[k] + h) within [min, max]:
 * one window when the span is such a width, else the narrowest that
 * makes two; 0 when there is none. */
static int windows(const psgi_cg_lanes *v, int64_t start[2], int *nwin) {
  if (v->lanes & (v->lanes - 1)) return 0; /* a shuffle makes a power-of-two count of lanes */
  int64_t lo = v->off[0], hi = v->off[0];
  for (int l = 1; l < v->lanes; l++) lo = v->off[l] < lo ? v->off[l] : lo, hi = v->off[l] > hi ? v->off[l] : hi;
  int64_t span = hi - lo + 1;
  if (span >= 2 && span <= v->lanes && !(span & (span - 1))) {
    start[0] = lo, *nwin = 1; /* exactly one window */
    return (int)span;
  }
  for (int h = 2; h <= v->lanes; h *= 2) {
    if (span < h) break;
    start[0] = lo, *nwin = 1;
    int64_t rest = INT64_MAX;
    for (int l = 0; l < v->lanes; l++)
      if (v->off[l] >= lo + h && v->off[l] < rest) rest = v->off[l];
    if (rest == INT64_MAX) return h;
    start[1] = rest < hi - h + 1 ? rest : hi - h + 1, *nwin = 2;
    bool fits = true;
    for (int l = 0; l < v->lanes; l++)
      fits &= v->off[l] < lo + h || (v->off[l] >= start[1] && v->off[l] < start[1] + h);
    if (fits) return h;
  }
  return 0;
}

const char *psgi_cg_offset_gather(cg *c, const psg_tir_node *n, const psgi_cg_lanes *v, const char *data, bool match,
                                  const char *r, int indent) {
  const psg_tir_node *b = n->kids[0];
  psg_tir_dtype t = n->dtype, se = psg_tir_dtype_with_lanes(b->dtype, 1);
  int lanes = v->lanes, esz = psg_tir_dtype_bits(se) / 8;
  psgi_buf sum;
  psgi_buf_init(&sum, c->ctx);
  for (int i = 0; i < v->nterms; i++) {
    const char *x = psgi_cg_expr(c, v->term[i]);
    if (x && v->table[i]) {
      /* lane 0 of a piece at each value of its loop var */
      psgi_buf vals;
      psgi_buf_init(&vals, c->ctx);
      for (int k = 0; k < v->table_len[i]; k++) psgi_buf_printf(&vals, "%s%d", k ? ", " : "", (int)v->table[i][k]);
      const char *tab = psgi_cg_strf(c, "_t%u", c->ntemp++);
      if (vals.failed && !c->st) c->st = psgi_nomem(c->ctx);
      if (!c->st && tab)
        psgi_cg_line(c, indent, "static const int32_t %s[%d] = {%.*s};", tab, v->table_len[i], (int)vals.len,
                     vals.data ? vals.data : "");
      psgi_buf_fini(&vals);
      x = tab ? psgi_cg_strf(c, "%s[(%s) - %lld]", tab, x, (long long)v->table_lo[i]) : NULL;
    }
    if (!x) break;
    if (v->coef[i] == 1) psgi_buf_printf(&sum, "%s(ptrdiff_t)(%s)", i ? " + " : "", x);
    else psgi_buf_printf(&sum, "%s(ptrdiff_t)(%s) * %lld", i ? " + " : "", x, (long long)v->coef[i]);
  }
  const char *base = psgi_cg_strf(c, "_t%u", c->ntemp++);
  if (sum.failed && !c->st) c->st = psgi_nomem(c->ctx);
  if (!c->st && base) psgi_cg_line(c, indent, "const ptrdiff_t %s = %.*s;", base, (int)sum.len, sum.data ? sum.data : "");
  psgi_buf_fini(&sum);
  if (c->st || !base) return NULL;
  int64_t start[2];
  int nwin = 0, h = windows(v, start, &nwin);
  const char *wty = h ? psgi_cg_ctype(c, psg_tir_dtype_with_lanes(se, h), n) : NULL;
  if (h && !wty) return NULL;
  if (h) {
    const char *w[2] = {NULL, NULL};
    psgi_cg_line(c, 0, "#if PSG_SHUFFLE");
    for (int k = 0; k < nwin; k++) {
      w[k] = psgi_cg_strf(c, "_t%u", c->ntemp++);
      /* element base + start[k]: through the buffer's own type or by bytes */
      const char *at = match ? psgi_cg_strf(c, "%s + %s + %lld", data, base, (long long)start[k])
                             : psgi_cg_strf(c, "(const char *)%s + (%s + %lld) * %d", data, base, (long long)start[k], esz);
      if (!w[k] || !at) return NULL;
      psgi_cg_line(c, indent, "%s %s;", wty, w[k]);
      psgi_cg_line(c, indent, "memcpy(&%s, %s, sizeof %s);", w[k], at, w[k]);
    }
    psgi_buf idx;
    psgi_buf_init(&idx, c->ctx);
    for (int l = 0; l < lanes; l++) {
      bool first = v->off[l] < start[0] + h;
      psgi_buf_printf(&idx, ", %lld", (long long)(first ? v->off[l] - start[0] : h + v->off[l] - start[1]));
    }
    if (idx.failed && !c->st) c->st = psgi_nomem(c->ctx);
    psgi_cg_line(c, indent, "%s = __builtin_shufflevector(%s, %s%.*s);", r, w[0], w[nwin - 1], (int)idx.len,
                 idx.data ? idx.data : "");
    psgi_buf_fini(&idx);
    psgi_cg_line(c, 0, "#else");
  }
  /* lane by lane at the constant offsets */
  psgi_buf offs;
  psgi_buf_init(&offs, c->ctx);
  for (int l = 0; l < lanes; l++) psgi_buf_printf(&offs, "%s%lld", l ? ", " : "", (long long)v->off[l]);
  const char *tab = psgi_cg_strf(c, "_t%u", c->ntemp++);
  if (offs.failed && !c->st) c->st = psgi_nomem(c->ctx);
  if (!c->st && tab)
    psgi_cg_line(c, indent, "static const int32_t %s[%d] = {%.*s};", tab, lanes, (int)offs.len, offs.data ? offs.data : "");
  psgi_buf_fini(&offs);
  if (c->st || !tab) return NULL;
  psgi_cg_line(c, indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) %s = psg_ld_%s(%s, %s + %s[psg_l]);", lanes,
               psgi_cg_lane(c, r, t, "psg_l"), psgi_cg_suffix(se), data, base, tab);
  if (h) psgi_cg_line(c, 0, "#endif");
  return c->st ? NULL : r;
}
