/* Passage — the rewrite rules of one node whose operands are simplified
 * (TVM's RewriteSimplifier in spirit). Each rule looks at most two levels
 * down; the builders fold what they make, so a rule's result needs no
 * further walk. Integer rules apply to scalar int/uint only; floats get
 * folding and the rules that hold for IEEE values (no x - x, no x * 0). */
#include <math.h>
#include "tir/arith/arith_internal.h"
#include "tir/arith/rules.h"

/* Temporaries of one rule application ------------------------------------- */
static psg_tir_expr *keep(rw *w, psg_tir_expr *x) {
  if (!x) return NULL;
  if (w->ntmp == RW_MAX_TMP) { /* cannot happen: rules make few nodes */
    psg_tir_release(x);
    w->st = PSG_ERR_INTERNAL;
    return NULL;
  }
  w->tmp[w->ntmp++] = x;
  return x;
}
static psg_tir_expr *B(rw *w, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  if (w->st || !x || (kind != PSG_TIR_NOT && !y)) return NULL;
  psg_tir_expr *o, *r;
  if ((w->st = psgi_arith_mk(w->a->ctx, kind, x, y, &o))) return NULL;
  if (w->depth < PSGI_ARITH_RULE_NEST && o != x && o != y) {
    w->st = psgi_arith_rules_fixpoint(w->a, o, w->depth + 1, &r);
    psg_tir_release(o);
    if (w->st) return NULL;
    o = r;
  }
  return keep(w, o);
}
static psg_tir_expr *I(rw *w, psg_tir_dtype t, int64_t v) {
  if (w->st) return NULL;
  psg_tir_expr *o;
  if ((w->st = psgi_arith_int(w->a->ctx, t, v, &o))) return NULL;
  return keep(w, o);
}
static psg_tir_expr *BOOL(rw *w, bool v, int lanes) {
  if (w->st) return NULL;
  psg_tir_expr *o;
  if ((w->st = psgi_arith_bool(w->a->ctx, v, lanes, &o))) return NULL;
  return keep(w, o);
}
static bool done(rw *w, psg_tir_expr *r) {
  if (!w->st && r) w->res = r;
  return true;
}
static int64_t wadd(psg_tir_dtype t, int64_t x, int64_t y) { return psgi_arith_wrap(t, (int64_t)((uint64_t)x + (uint64_t)y)); }
static int64_t wsub(psg_tir_dtype t, int64_t x, int64_t y) { return psgi_arith_wrap(t, (int64_t)((uint64_t)x - (uint64_t)y)); }
static int64_t wmul(psg_tir_dtype t, int64_t x, int64_t y) { return psgi_arith_wrap(t, (int64_t)((uint64_t)x * (uint64_t)y)); }

static psg_tir_dtype t_of(const psg_tir_expr *e) { return e->dtype; }
static bool EQ(rw *w, psg_tir_expr *x, psg_tir_expr *y) { return psgi_arith_equal(w->a, x, y); }
static bool K(const psg_tir_expr *x, int64_t *v) { return psgi_arith_is_int(x, v); }
static bool is(const psg_tir_expr *x, int kind) { return x->kind == kind; }

static psg_arith_bound bound_of(rw *w, psg_tir_expr *x) {
  psgi_arith_info i;
  if (w->st || (w->st = psgi_arith_info_of(w->a, x, &i))) {
    psg_arith_bound any = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
    return any;
  }
  return i.bound;
}
static psg_arith_bound diff(rw *w, psg_tir_expr *x, psg_tir_expr *y) {
  psg_arith_bound b = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
  if (!w->st) w->st = psgi_arith_diff_bound(w->a, x, y, &b);
  return b;
}

/* Vector forms: Broadcast op Broadcast, Ramp op Ramp/Broadcast. */
static bool vector_rules(rw *w, psg_tir_expr *e, psg_tir_expr *x, psg_tir_expr *y) {
  int k = e->kind, lanes = psg_tir_dtype_lanes(e->dtype);
  if (is(x, PSG_TIR_BROADCAST) && is(y, PSG_TIR_BROADCAST) && k <= PSG_TIR_MAX) {
    psg_tir_expr *v = B(w, k, x->kids[0], y->kids[0]);
    psg_tir_expr *o = NULL;
    if (v && !(w->st = psg_tir_broadcast_create(w->a->ctx, v, lanes, NULL, &o))) keep(w, o);
    return done(w, o);
  }
  if ((k == PSG_TIR_ADD || k == PSG_TIR_SUB) && is(x, PSG_TIR_RAMP) && (is(y, PSG_TIR_RAMP) || is(y, PSG_TIR_BROADCAST))) {
    psg_tir_expr *base = B(w, k, x->kids[0], y->kids[0]);
    psg_tir_expr *stride = is(y, PSG_TIR_RAMP) ? B(w, k, x->kids[1], y->kids[1]) : x->kids[1];
    psg_tir_expr *o = NULL;
    if (base && stride && !(w->st = psg_tir_ramp_create(w->a->ctx, base, stride, lanes, NULL, &o))) keep(w, o);
    return done(w, o);
  }
  /* Broadcast +/- Ramp and Ramp * Broadcast either way round, TVM's rules
   * (what makes FlattenBuffer's 0 + Ramp index a Ramp again). */
  bool ramp_broadcast = (is(x, PSG_TIR_BROADCAST) && is(y, PSG_TIR_RAMP)) || (is(x, PSG_TIR_RAMP) && is(y, PSG_TIR_BROADCAST));
  if (ramp_broadcast && (k == PSG_TIR_MUL || (is(x, PSG_TIR_BROADCAST) && (k == PSG_TIR_ADD || k == PSG_TIR_SUB)))) {
    psg_tir_expr *r = is(x, PSG_TIR_RAMP) ? x : y, *v = is(x, PSG_TIR_RAMP) ? y->kids[0] : x->kids[0];
    psg_tir_expr *base = NULL, *stride = NULL, *o = NULL;
    if (k == PSG_TIR_MUL) {
      base = B(w, k, r->kids[0], v);
      stride = B(w, k, r->kids[1], v);
    } else {
      base = B(w, k, v, r->kids[0]);
      stride = k == PSG_TIR_ADD ? r->kids[1] : B(w, k, I(w, t_of(r->kids[1]), 0), r->kids[1]);
    }
    if (base && stride && !(w->st = psg_tir_ramp_create(w->a->ctx, base, stride, lanes, NULL, &o))) keep(w, o);
    return done(w, o);
  }
  return false;
}

/* q * d + r, with q the quotient and r the remainder of one division of z
 * by d, is z (TVM: floor division by any d, truncated division by a
 * constant); either factor order of the product. */
static psg_tir_expr *divmod_recombined(rw *w, psg_tir_expr *prod, psg_tir_expr *rem) {
  int div_kind;
  if (!is(prod, PSG_TIR_MUL)) return NULL;
  if (is(rem, PSG_TIR_FLOOR_MOD)) div_kind = PSG_TIR_FLOOR_DIV;
  else if (is(rem, PSG_TIR_MOD) && K(rem->kids[1], NULL)) div_kind = PSG_TIR_DIV;
  else return NULL;
  for (int i = 0; i < 2; i++) {
    psg_tir_expr *q = prod->kids[i], *d = prod->kids[1 - i];
    if (is(q, div_kind) && EQ(w, d, rem->kids[1]) && EQ(w, q->kids[1], rem->kids[1]) &&
        EQ(w, q->kids[0], rem->kids[0]))
      return rem->kids[0];
  }
  return NULL;
}

static bool add_rules(rw *w, psg_tir_expr *x, psg_tir_expr *y, psg_tir_dtype t) {
  int64_t c1, c2;
  psg_tir_expr *z = divmod_recombined(w, x, y);
  if (!z) z = divmod_recombined(w, y, x);
  if (z) return done(w, z);
  if (K(x, &c1) && !K(y, NULL)) return done(w, B(w, PSG_TIR_ADD, y, x)); /* constant on the right */
  if (K(y, &c2) && is(x, PSG_TIR_ADD) && K(x->kids[1], &c1))
    return done(w, B(w, PSG_TIR_ADD, x->kids[0], I(w, t, wadd(t, c1, c2))));
  if (K(y, &c2) && is(x, PSG_TIR_SUB) && K(x->kids[1], &c1))
    return done(w, B(w, PSG_TIR_ADD, x->kids[0], I(w, t, wsub(t, c2, c1))));
  if (K(y, &c2) && is(x, PSG_TIR_SUB) && K(x->kids[0], &c1)) /* (c1 - z) + c2 */
    return done(w, B(w, PSG_TIR_SUB, I(w, t, wadd(t, c1, c2)), x->kids[1]));
  if (EQ(w, x, y)) return done(w, B(w, PSG_TIR_MUL, x, I(w, t, 2)));
  if (is(x, PSG_TIR_SUB) && EQ(w, x->kids[1], y)) return done(w, x->kids[0]); /* (a - b) + b */
  if (is(y, PSG_TIR_SUB) && EQ(w, y->kids[1], x)) return done(w, y->kids[0]); /* b + (a - b) */
  if (is(x, PSG_TIR_MUL) && is(y, PSG_TIR_MUL) && K(x->kids[1], &c1) && K(y->kids[1], &c2) &&
      EQ(w, x->kids[0], y->kids[0]))
    return done(w, B(w, PSG_TIR_MUL, x->kids[0], I(w, t, wadd(t, c1, c2))));
  /* x * y + x * z -> x * (y + z), any factor order, x not a constant
   * (TVM's rule; constant coefficients are the canonical form's business). */
  if (is(x, PSG_TIR_MUL) && is(y, PSG_TIR_MUL)) {
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        if (!K(x->kids[i], NULL) && EQ(w, x->kids[i], y->kids[j]))
          return done(w, B(w, PSG_TIR_MUL, x->kids[i], B(w, PSG_TIR_ADD, x->kids[1 - i], y->kids[1 - j])));
  }
  if (is(x, PSG_TIR_MUL) && K(x->kids[1], &c1) && EQ(w, x->kids[0], y))
    return done(w, B(w, PSG_TIR_MUL, y, I(w, t, wadd(t, c1, 1))));
  if (is(y, PSG_TIR_MUL) && K(y->kids[1], &c2) && EQ(w, y->kids[0], x))
    return done(w, B(w, PSG_TIR_MUL, x, I(w, t, wadd(t, c2, 1))));
  return false;
}

static bool sub_rules(rw *w, psg_tir_expr *x, psg_tir_expr *y, psg_tir_dtype t) {
  int64_t c1, c2;
  if (EQ(w, x, y)) return done(w, I(w, t, 0));
  /* x - y is one value whenever the terms cancel: (i + 3) - i, (a*4 + b) - (b + a*4 - 2). */
  if (!K(x, NULL) || !K(y, NULL)) {
    psg_arith_bound d = diff(w, x, y);
    if (d.min == d.max && d.min != PSG_ARITH_NEG_INF && d.min != PSG_ARITH_POS_INF) return done(w, I(w, t, d.min));
  }
  if (is(x, PSG_TIR_ADD) && EQ(w, x->kids[1], y)) return done(w, x->kids[0]); /* (a + b) - b */
  if (is(x, PSG_TIR_ADD) && EQ(w, x->kids[0], y)) return done(w, x->kids[1]); /* (a + b) - a */
  if (is(y, PSG_TIR_ADD) && EQ(w, y->kids[0], x)) return done(w, B(w, PSG_TIR_SUB, I(w, t, 0), y->kids[1]));
  if (K(y, &c2) && is(x, PSG_TIR_ADD) && K(x->kids[1], &c1))
    return done(w, B(w, PSG_TIR_ADD, x->kids[0], I(w, t, wsub(t, c1, c2))));
  if (K(y, &c2) && is(x, PSG_TIR_SUB) && K(x->kids[1], &c1))
    return done(w, B(w, PSG_TIR_SUB, x->kids[0], I(w, t, wadd(t, c1, c2))));
  if (K(x, &c1) && is(y, PSG_TIR_ADD) && K(y->kids[1], &c2)) /* c1 - (z + c2) */
    return done(w, B(w, PSG_TIR_SUB, I(w, t, wsub(t, c1, c2)), y->kids[0]));
  if (is(x, PSG_TIR_MUL) && is(y, PSG_TIR_MUL) && K(x->kids[1], &c1) && K(y->kids[1], &c2) &&
      EQ(w, x->kids[0], y->kids[0]))
    return done(w, B(w, PSG_TIR_MUL, x->kids[0], I(w, t, wsub(t, c1, c2))));
  return false;
}

static bool mul_rules(rw *w, psg_tir_expr *x, psg_tir_expr *y, psg_tir_dtype t) {
  int64_t c1, c2;
  if (K(x, &c1) && !K(y, NULL)) return done(w, B(w, PSG_TIR_MUL, y, x));
  if (K(y, &c2) && is(x, PSG_TIR_MUL) && K(x->kids[1], &c1))
    return done(w, B(w, PSG_TIR_MUL, x->kids[0], I(w, t, wmul(t, c1, c2))));
  if (K(y, &c2) && is(x, PSG_TIR_ADD) && K(x->kids[1], &c1)) /* (z + c1) * c2 */
    return done(w, B(w, PSG_TIR_ADD, B(w, PSG_TIR_MUL, x->kids[0], y), I(w, t, wmul(t, c1, c2))));
  return false;
}

/* Div, Mod, FloorDiv, FloorMod by a positive constant. */
static bool div_rules(rw *w, int kind, psg_tir_expr *x, psg_tir_expr *y, psg_tir_dtype t) {
  int64_t c, c1;
  if (!K(y, &c) || c <= 0) return false;
  bool is_div = kind == PSG_TIR_DIV || kind == PSG_TIR_FLOOR_DIV;
  bool floor = kind == PSG_TIR_FLOOR_DIV || kind == PSG_TIR_FLOOR_MOD;
  psg_arith_bound b = bound_of(w, x);
  if (w->st) return true;
  /* The value within one period of c. */
  if (b.min != PSG_ARITH_NEG_INF && b.max != PSG_ARITH_POS_INF && (floor || b.min >= 0) &&
      psgi_arith_floordiv(b.min, c) == psgi_arith_floordiv(b.max, c)) {
    int64_t k = psgi_arith_floordiv(b.min, c);
    if (is_div) return done(w, I(w, t, k));
    if (k == 0) return done(w, x);
    return done(w, B(w, PSG_TIR_SUB, x, I(w, t, wmul(t, k, c))));
  }
  /* (z * c1) op c with c | c1: exact. */
  if (is(x, PSG_TIR_MUL) && K(x->kids[1], &c1) && c1 % c == 0) {
    if (is_div) return done(w, B(w, PSG_TIR_MUL, x->kids[0], I(w, t, c1 / c)));
    return done(w, I(w, t, 0));
  }
  /* (z * c1) // c with c1 | c: z // (c / c1). */
  if (floor && is_div && is(x, PSG_TIR_MUL) && K(x->kids[1], &c1) && c1 > 0 && c % c1 == 0)
    return done(w, B(w, PSG_TIR_FLOOR_DIV, x->kids[0], I(w, t, c / c1)));
  if (!floor) return false; /* the splits below hold for floor division */
  /* (z * c1 + r) op c with c | c1, and (z + c1) op c with c | c1. */
  if (is(x, PSG_TIR_ADD)) {
    psg_tir_expr *p = x->kids[0], *r = x->kids[1];
    if (is(r, PSG_TIR_MUL) && !is(p, PSG_TIR_MUL)) {
      psg_tir_expr *s = p;
      p = r;
      r = s;
    }
    if (is(p, PSG_TIR_MUL) && K(p->kids[1], &c1) && c1 % c == 0) {
      if (!is_div) return done(w, B(w, kind, r, y));
      return done(w, B(w, PSG_TIR_ADD, B(w, PSG_TIR_MUL, p->kids[0], I(w, t, c1 / c)), B(w, kind, r, y)));
    }
    if (K(x->kids[1], &c1) && c1 % c == 0) {
      if (!is_div) return done(w, B(w, kind, x->kids[0], y));
      return done(w, B(w, PSG_TIR_ADD, B(w, kind, x->kids[0], y), I(w, t, c1 / c)));
    }
  }
  /* z % c where z is a multiple of c (modular set). */
  if (!is_div) {
    psgi_arith_info i;
    if ((w->st = psgi_arith_info_of(w->a, x, &i))) return true;
    if (i.mod.coeff % c == 0 && i.mod.coeff > 0) return done(w, I(w, t, psgi_arith_floormod(i.mod.base, c)));
  }
  return false;
}

static bool minmax_rules(rw *w, int kind, psg_tir_expr *x, psg_tir_expr *y, psg_tir_dtype t) {
  int64_t c1, c2;
  bool is_min = kind == PSG_TIR_MIN;
  if (EQ(w, x, y)) return done(w, x);
  /* A constant operand stays where it is written (TVM: max(0, x) is kept). */
  psg_arith_bound d = diff(w, x, y);
  if (w->st) return true;
  if (d.max <= 0) return done(w, is_min ? x : y);
  if (d.min >= 0) return done(w, is_min ? y : x);
  if (K(y, &c2) && is(x, kind) && K(x->kids[1], &c1)) {
    int64_t c = is_min ? (c1 < c2 ? c1 : c2) : (c1 > c2 ? c1 : c2);
    return done(w, B(w, kind, x->kids[0], I(w, t, c)));
  }
  /* min(z + c1, z + c2) and the like fold through the difference above. */
  return false;
}

static int swap_cmp(int k) {
  switch (k) {
  case PSG_TIR_LT: return PSG_TIR_GT;
  case PSG_TIR_GT: return PSG_TIR_LT;
  case PSG_TIR_LE: return PSG_TIR_GE;
  case PSG_TIR_GE: return PSG_TIR_LE;
  default: return k;
  }
}

/* What x - y may be, as a set of relations (TVM's CompareResult): each
 * source of facts removes the relations it rules out, and a comparison is
 * decided, or narrowed (x <= y known x != y is x < y), by what is left. */
enum { REL_LT = 1, REL_EQ = 2, REL_GT = 4, REL_ANY = 7 };

static int rel_of_bound(psg_arith_bound d) {
  int r = 0;
  if (d.min < 0) r |= REL_LT;
  if (d.min <= 0 && d.max >= 0) r |= REL_EQ;
  if (d.max > 0) r |= REL_GT;
  return r;
}

/* Decides x OP y from the relations left: 1 true, 0 false, -1 unknown. */
static int decide(int kind, int r) {
  if (!r) return -1; /* facts that contradict: claim nothing */
  int yes;
  switch (kind) {
  case PSG_TIR_LT: yes = REL_LT; break;
  case PSG_TIR_LE: yes = REL_LT | REL_EQ; break;
  case PSG_TIR_GT: yes = REL_GT; break;
  case PSG_TIR_GE: yes = REL_GT | REL_EQ; break;
  case PSG_TIR_EQ: yes = REL_EQ; break;
  case PSG_TIR_NE: yes = REL_LT | REL_GT; break;
  default: return -1;
  }
  if (!(r & ~yes)) return 1;
  if (!(r & yes)) return 0;
  return -1;
}

/* The known comparisons are edges p - q <= gap (x < y is x - y <= -1,
 * x == y both ways; `not (x < y)` is y <= x); `x != y` known is a separate
 * list. */
typedef struct edge {
  psg_tir_expr *p, *q;
  int64_t gap;
} edge;
enum { MAX_EDGES = 32 };

static int64_t up(rw *w, psg_tir_expr *x, psg_tir_expr *y) { return diff(w, x, y).max; }

/* transitively_prove_inequalities: an upper bound of x - y is the least over
 * paths of at most two edges, the pieces between them bounded by the
 * analyzer: (x - p1) + gap1 + (q1 - p2) + gap2 + (q2 - y). */
static int64_t path_bound(rw *w, const edge *e, size_t n, psg_tir_expr *x, psg_tir_expr *y) {
  int64_t best = up(w, x, y);
  for (size_t i = 0; i < n && !w->st; i++) {
    int64_t a = up(w, x, e[i].p);
    if (a == PSG_ARITH_POS_INF) continue;
    int64_t head = psgi_arith_sat_add(a, e[i].gap);
    int64_t one = psgi_arith_sat_add(head, up(w, e[i].q, y));
    if (one < best) best = one;
    for (size_t j = 0; j < n && !w->st; j++) {
      if (j == i) continue;
      int64_t mid = up(w, e[i].q, e[j].p), tail = up(w, e[j].q, y);
      if (mid == PSG_ARITH_POS_INF || tail == PSG_ARITH_POS_INF) continue;
      int64_t two = psgi_arith_sat_add(psgi_arith_sat_add(psgi_arith_sat_add(head, mid), e[j].gap), tail);
      if (two < best) best = two;
    }
  }
  return best;
}

/* The known comparisons of x's dtype: edges in e, `p != q` pairs in ne. */
static size_t known_edges(rw *w, psg_tir_expr *x, edge *e, edge *ne, size_t *nne) {
  psg_arith_analyzer *a = w->a;
  size_t n = 0;
  *nne = 0;
  for (size_t i = 0; i < a->known.len && n + 2 <= MAX_EDGES; i++) {
    psg_tir_expr *k = a->known.data[i];
    int kind = k->kind;
    if (kind == PSG_TIR_NOT) { /* not (l OP r) is l NEG(OP) r */
      static const int neg[] = {[PSG_TIR_EQ] = PSG_TIR_NE, [PSG_TIR_NE] = PSG_TIR_EQ, [PSG_TIR_LT] = PSG_TIR_GE,
                                [PSG_TIR_LE] = PSG_TIR_GT, [PSG_TIR_GT] = PSG_TIR_LE, [PSG_TIR_GE] = PSG_TIR_LT};
      k = k->kids[0];
      if (k->kind < PSG_TIR_EQ || k->kind > PSG_TIR_GE) continue;
      kind = neg[k->kind];
    }
    if (kind < PSG_TIR_EQ || kind > PSG_TIR_GE) continue;
    psg_tir_expr *l = k->kids[0], *r = k->kids[1];
    if (l->dtype != x->dtype) continue;
    switch (kind) {
    case PSG_TIR_LT: e[n++] = (edge){l, r, -1}; break;
    case PSG_TIR_LE: e[n++] = (edge){l, r, 0}; break;
    case PSG_TIR_GT: e[n++] = (edge){r, l, -1}; break;
    case PSG_TIR_GE: e[n++] = (edge){r, l, 0}; break;
    case PSG_TIR_NE:
      if (*nne < MAX_EDGES) ne[(*nne)++] = (edge){l, r, 0};
      break;
    default: e[n++] = (edge){l, r, 0}; e[n++] = (edge){r, l, 0}; break;
    }
  }
  return n;
}

/* Is x - y proved to be exactly 0 through the edges (x == p1 == y)? */
static bool path_zero(rw *w, const edge *e, size_t n, psg_tir_expr *x, psg_tir_expr *y) {
  return path_bound(w, e, n, x, y) == 0 && path_bound(w, e, n, y, x) == 0;
}

/* The relations the known facts leave for x - y: a known comparison of
 * the same terms up to a constant (from i < j, i < j + 1: x - y = (p - q) +
 * delta, and p - q <= gap), a known x != y; with `transitive`, chains of two
 * known comparisons, and x != y from p != q with x == p, q == y. */
static int known_rel(rw *w, psg_tir_expr *x, psg_tir_expr *y, bool transitive) {
  edge e[MAX_EDGES], ne[MAX_EDGES];
  size_t nne, n = known_edges(w, x, e, ne, &nne);
  psg_arith_bound d = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
  for (size_t i = 0; i < n; i++) {
    int64_t delta, v;
    if (psgi_arith_offset(w->a, x, y, e[i].p, e[i].q, &delta) && !__builtin_add_overflow(e[i].gap, delta, &v) &&
        v < d.max)
      d.max = v; /* x - y <= gap + delta */
    if (psgi_arith_offset(w->a, y, x, e[i].p, e[i].q, &delta) && !__builtin_add_overflow(e[i].gap, delta, &v) &&
        v != INT64_MIN && -v > d.min)
      d.min = -v; /* y - x <= gap + delta */
  }
  int r = rel_of_bound(d);
  for (size_t i = 0; i < nne; i++) {
    int64_t delta;
    if ((psgi_arith_offset(w->a, x, y, ne[i].p, ne[i].q, &delta) && delta == 0) ||
        (psgi_arith_offset(w->a, y, x, ne[i].p, ne[i].q, &delta) && delta == 0))
      r &= ~REL_EQ;
  }
  if (transitive && n && !w->st) {
    int64_t hi = path_bound(w, e, n, x, y), lo_neg = path_bound(w, e, n, y, x);
    psg_arith_bound t = {psgi_arith_sat_neg(lo_neg), hi};
    r &= rel_of_bound(t);
    for (size_t i = 0; i < nne && (r & REL_EQ) && !w->st; i++)
      if ((path_zero(w, e, n, x, ne[i].p) && path_zero(w, e, n, ne[i].q, y)) ||
          (path_zero(w, e, n, x, ne[i].q) && path_zero(w, e, n, ne[i].p, y)))
        r &= ~REL_EQ;
  }
  return r;
}

/* TVM's TryCompare: the bound of x - y (common terms cancel), its modular
 * set, then the known comparisons. */
static int compare(rw *w, psg_tir_expr *x, psg_tir_expr *y) {
  int r = rel_of_bound(diff(w, x, y));
  if (w->st || r == REL_LT || r == REL_EQ || r == REL_GT) return r;
  if (r & REL_EQ) { /* x - y never 0 by its modular set: 2*i == 1 */
    psg_tir_expr *d = B(w, PSG_TIR_SUB, x, y);
    psgi_arith_info di;
    if (d && !(w->st = psgi_arith_info_of(w->a, d, &di)) && di.mod.coeff > 0 && di.mod.base != 0) r &= ~REL_EQ;
  }
  if (w->a->known.len && !w->st) r &= known_rel(w, x, y, w->a->transitive);
  if (w->a->product_sum && !w->st && r != REL_LT && r != REL_EQ && r != REL_GT) {
    psg_status st;
    int p = psgi_arith_product_sum_rel(w->a, x, y, &st);
    if (st) w->st = st;
    else if (r & p) r &= p;
  }
  return r;
}

static bool cmp_rules(rw *w, psg_tir_expr *e, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  int64_t c1, c2;
  psg_tir_dtype t = x->dtype;
  int known = psgi_arith_known(w->a, e);
  if (known >= 0) return done(w, BOOL(w, known, 1));
  if (EQ(w, x, y) && psgi_arith_is_index_dtype(t))
    return done(w, BOOL(w, kind == PSG_TIR_EQ || kind == PSG_TIR_LE || kind == PSG_TIR_GE, 1));
  if (!psgi_arith_is_index_dtype(t)) return false;
  /* TVM's canonical direction: x > y is y < x, x >= y is y <= x. */
  if (kind == PSG_TIR_GT || kind == PSG_TIR_GE) return done(w, B(w, swap_cmp(kind), y, x));
  int r = compare(w, x, y);
  if (w->st) return true;
  int dec = decide(kind, r);
  if (dec >= 0) return done(w, BOOL(w, dec, 1));
  /* The most restrictive form the facts allow (TVM): x != y known x <= y is
   * x < y; x <= y known x != y is x < y, known x >= y is x == y. */
  if (kind == PSG_TIR_NE && r == (REL_LT | REL_EQ)) return done(w, B(w, PSG_TIR_LT, x, y));
  if (kind == PSG_TIR_NE && r == (REL_GT | REL_EQ)) return done(w, B(w, PSG_TIR_LT, y, x));
  if (kind == PSG_TIR_LE && r == (REL_LT | REL_GT)) return done(w, B(w, PSG_TIR_LT, x, y));
  if (kind == PSG_TIR_LE && r == (REL_GT | REL_EQ)) return done(w, B(w, PSG_TIR_EQ, x, y));
  if (K(x, NULL) && !K(y, NULL) && (kind == PSG_TIR_EQ || kind == PSG_TIR_NE)) return done(w, B(w, kind, y, x));
  /* x * y == 0 -> x == 0 || y == 0 (TVM, simplified again: the floormod(i,
   * -2) * -1 == 0 that canonical_simplify makes of floormod(0 - i, 2) == 0
   * is floormod(i, -2) == 0) */
  if (kind == PSG_TIR_EQ && K(y, &c2) && c2 == 0 && is(x, PSG_TIR_MUL))
    return done(w, B(w, PSG_TIR_OR, B(w, PSG_TIR_EQ, x->kids[0], y), B(w, PSG_TIR_EQ, x->kids[1], y)));
  /* z + c1 OP c2 -> z OP c2 - c1 (and z - c1). */
  if (K(y, &c2) && (is(x, PSG_TIR_ADD) || is(x, PSG_TIR_SUB)) && K(x->kids[1], &c1))
    return done(w, B(w, kind, x->kids[0], I(w, t, is(x, PSG_TIR_ADD) ? wsub(t, c2, c1) : wadd(t, c2, c1))));
  /* c2 OP z + c1 -> c2 - c1 OP z (and z - c1): TVM's c1 < x + c2 rules. */
  if (K(x, &c2) && (is(y, PSG_TIR_ADD) || is(y, PSG_TIR_SUB)) && K(y->kids[1], &c1))
    return done(w, B(w, kind, I(w, t, is(y, PSG_TIR_ADD) ? wsub(t, c2, c1) : wadd(t, c2, c1)), y->kids[0]));
  return false;
}

static bool not_rules(rw *w, psg_tir_expr *x) {
  static const int neg[] = {[PSG_TIR_EQ] = PSG_TIR_NE, [PSG_TIR_NE] = PSG_TIR_EQ};
  if (is(x, PSG_TIR_NOT)) return done(w, x->kids[0]);
  if (is(x, PSG_TIR_EQ) || is(x, PSG_TIR_NE)) return done(w, B(w, neg[x->kind], x->kids[0], x->kids[1]));
  /* !(a < b) is b <= a; !(a <= b) is b < a (TVM). */
  if (is(x, PSG_TIR_LT)) return done(w, B(w, PSG_TIR_LE, x->kids[1], x->kids[0]));
  if (is(x, PSG_TIR_LE)) return done(w, B(w, PSG_TIR_LT, x->kids[1], x->kids[0]));
  if (is(x, PSG_TIR_GT)) return done(w, B(w, PSG_TIR_LE, x->kids[0], x->kids[1]));
  if (is(x, PSG_TIR_GE)) return done(w, B(w, PSG_TIR_LT, x->kids[0], x->kids[1]));
  if (is(x, PSG_TIR_AND) || is(x, PSG_TIR_OR))
    return done(w, B(w, is(x, PSG_TIR_AND) ? PSG_TIR_OR : PSG_TIR_AND, B(w, PSG_TIR_NOT, x->kids[0], NULL),
                     B(w, PSG_TIR_NOT, x->kids[1], NULL)));
  return false;
}

static bool is_not_of(rw *w, psg_tir_expr *x, psg_tir_expr *y) {
  return is(x, PSG_TIR_NOT) && EQ(w, x->kids[0], y);
}

static bool logic_rules(rw *w, psg_tir_expr *e, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  bool is_and = kind == PSG_TIR_AND;
  int lanes = psg_tir_dtype_lanes(e->dtype);
  if (EQ(w, x, y)) return done(w, x);
  if (is_not_of(w, x, y) || is_not_of(w, y, x)) return done(w, BOOL(w, !is_and, lanes));
  if (lanes != 1) return false;
  /* The whole of it known true or false (TVM's TryMatchLiteralConstraint). */
  for (size_t i = w->a->known.len; i-- > 0;) {
    psg_tir_expr *k = w->a->known.data[i];
    bool neg = k->kind == PSG_TIR_NOT;
    if (neg) k = k->kids[0];
    if (k->kind == kind && EQ(w, k->kids[0], x) && EQ(w, k->kids[1], y)) return done(w, BOOL(w, !neg, 1));
  }
  /* Two comparisons of the same operands: one implies or refutes the other. */
  int rxy = psgi_arith_compare_relation(w->a, x, y), ryx = psgi_arith_compare_relation(w->a, y, x);
  if (rxy == 0 || ryx == 0) return done(w, BOOL(w, !is_and, 1));
  if (rxy == 1) return done(w, is_and ? x : y); /* x implies y */
  if (ryx == 1) return done(w, is_and ? y : x);
  /* A conjunct known true (or a disjunct known false) drops out. */
  int kx = psgi_arith_known(w->a, x), ky = psgi_arith_known(w->a, y);
  if (kx >= 0) return done(w, kx == is_and ? y : BOOL(w, kx, 1));
  if (ky >= 0) return done(w, ky == is_and ? x : BOOL(w, ky, 1));
  /* x < y or x == y is x <= y (simplified again: it may be decided). */
  if (!is_and && is(x, PSG_TIR_LT) && is(y, PSG_TIR_EQ) && EQ(w, x->kids[0], y->kids[0]) &&
      EQ(w, x->kids[1], y->kids[1]))
    return done(w, B(w, PSG_TIR_LE, x->kids[0], x->kids[1]));
  /* Equalities and inequalities of one operand to two different constants:
   * x == c1 && x != c2 is x == c1, x == c1 && x == c2 false; x != c1 || x
   * == c2 is x != c1, x != c1 || x != c2 true. */
  int64_t c1, c2;
  if ((is(x, PSG_TIR_EQ) || is(x, PSG_TIR_NE)) && (is(y, PSG_TIR_EQ) || is(y, PSG_TIR_NE)) &&
      K(x->kids[1], &c1) && K(y->kids[1], &c2) && c1 != c2 && EQ(w, x->kids[0], y->kids[0])) {
    bool xe = is(x, PSG_TIR_EQ), ye = is(y, PSG_TIR_EQ);
    if (is_and && (xe || ye)) return done(w, xe && ye ? BOOL(w, false, 1) : xe ? x : y);
    if (!is_and && (!xe || !ye)) return done(w, !xe && !ye ? BOOL(w, true, 1) : xe ? y : x);
  }
  /* i < c1 && c2 <= i with no integer between: false; the or of complements: true. */
  if (is(x, PSG_TIR_LT) && is(y, PSG_TIR_LE) && K(x->kids[1], &c1) && K(y->kids[0], &c2) &&
      EQ(w, x->kids[0], y->kids[1]) && psgi_arith_is_index_dtype(x->kids[0]->dtype)) {
    if (is_and && c1 <= c2) return done(w, BOOL(w, false, 1));
    if (!is_and && c2 <= c1) return done(w, BOOL(w, true, 1));
  }
  return false;
}

static bool select_rules(rw *w, psg_tir_expr *c, psg_tir_expr *x, psg_tir_expr *y) {
  int64_t v;
  if (K(c, &v)) return done(w, v ? x : y);
  if (is(c, PSG_TIR_BROADCAST) && K(c->kids[0], &v)) return done(w, v ? x : y);
  if (EQ(w, x, y)) return done(w, x);
  int k = psg_tir_dtype_lanes(c->dtype) == 1 ? psgi_arith_known(w->a, c) : -1;
  if (k >= 0) return done(w, k ? x : y);
  return false;
}

static bool call_rules(rw *w, psg_tir_expr *e) {
  int64_t v;
  const char *op = psgi_tir_ops[e->u.op].name;
  if (strcmp(op, "tir.if_then_else") == 0) {
    int k = K(e->kids[0], &v) ? v != 0 : psgi_arith_known(w->a, e->kids[0]);
    if (k >= 0) return done(w, e->kids[k ? 1 : 2]);
    if (EQ(w, e->kids[1], e->kids[2])) return done(w, e->kids[1]);
  }
  /* TVM: shifts of two constants fold; ceil of a constant is that constant
   * (as the call's dtype), ceil(log2(c)) of a float constant folds. */
  int64_t c1, c2;
  if ((e->u.op == PSGI_TIR_OP_shift_left || e->u.op == PSGI_TIR_OP_shift_right) && e->nkids == 2 &&
      K(e->kids[0], &c1) && K(e->kids[1], &c2) && psgi_arith_is_index_dtype(e->dtype) && c2 >= 0 &&
      c2 < psg_tir_dtype_bits(e->dtype)) {
    uint64_t u = (uint64_t)c1;
    int64_t r = e->u.op == PSGI_TIR_OP_shift_left ? (int64_t)(u << c2) : c1 >> c2;
    return done(w, I(w, e->dtype, r));
  }
  if (e->u.op == PSGI_TIR_OP_ceil && e->nkids == 1 && psg_tir_dtype_lanes(e->dtype) == 1) {
    psg_tir_expr *arg = e->kids[0], *r = NULL;
    double v;
    bool folded = true;
    if (arg->kind == PSG_TIR_FLOAT_IMM) v = ceil(arg->u.float_value);
    else if (arg->kind == PSG_TIR_CALL && arg->u.op == PSGI_TIR_OP_log2 && arg->nkids == 1 &&
             arg->kids[0]->kind == PSG_TIR_FLOAT_IMM)
      v = ceil(log2(arg->kids[0]->u.float_value));
    else folded = false;
    if (folded && psg_tir_dtype_is_float(e->dtype)) {
      if (!w->st && !(w->st = psg_tir_float_imm_create(w->a->ctx, e->dtype, v, NULL, &r))) keep(w, r);
      return done(w, r);
    }
  }
  if (strcmp(op, "tir.likely") == 0) {
    if (K(e->kids[0], NULL)) return done(w, e->kids[0]);
    int k = psgi_arith_known(w->a, e->kids[0]);
    if (k >= 0) return done(w, BOOL(w, k, 1));
  }
  return false;
}

void psgi_arith_rules(rw *w, psg_tir_expr *e) {
  psg_tir_expr *f;
  /* Folding first (when anything can fold). */
  if (psgi_arith_may_fold(e)) {
    if ((w->st = psg_arith_const_fold(w->a->ctx, e, &f))) return;
    if (f != e) {
      keep(w, f);
      w->res = f;
      return;
    }
    psg_tir_release(f);
  }
  int k = e->kind;
  /* The identities the builder applies (x + 0, x * 1, x // 1, true and x...). */
  if (k >= PSG_TIR_ADD && k <= PSG_TIR_OR) {
    bool zero;
    psg_tir_expr *id = psgi_arith_identity(k, e->kids[0], e->kids[1], &zero);
    if (zero) id = I(w, t_of(e), 0);
    if (id || w->st) {
      w->res = id;
      return;
    }
  }
  psg_tir_dtype t = e->dtype;
  bool ints = psgi_arith_is_index_dtype(t);
  psg_tir_expr *x = e->nkids > 0 ? e->kids[0] : NULL, *y = e->nkids > 1 ? e->kids[1] : NULL;
  if (psgi_tir_is_var_kind(k)) {
    const psgi_arith_fact *fa = psgi_arith_find_fact(w->a, e);
    if (fa && fa->subst) {
      done(w, fa->subst);
      return;
    }
    if (fa && fa->let_value && w->a->use_let_values) {
      done(w, fa->let_value);
      return;
    }
    if (psg_tir_dtype_is_bool(t) && psg_tir_dtype_lanes(t) == 1) { /* a bool var known true or false */
      int kn = psgi_arith_known(w->a, e);
      if (kn >= 0) done(w, BOOL(w, kn, 1));
      return;
    }
    /* A var whose bound is one value stays a var (TVM: `if i == 5: A[i] = 0` keeps A[i]). */
    return;
  }
  if (k >= PSG_TIR_ADD && k <= PSG_TIR_MAX && psg_tir_dtype_lanes(t) > 1) {
    vector_rules(w, e, x, y);
    return;
  }
  switch (k) {
  case PSG_TIR_ADD: if (ints) add_rules(w, x, y, t); break;
  case PSG_TIR_SUB: if (ints) sub_rules(w, x, y, t); break;
  case PSG_TIR_MUL: if (ints) mul_rules(w, x, y, t); break;
  case PSG_TIR_DIV:
  case PSG_TIR_MOD:
  case PSG_TIR_FLOOR_DIV:
  case PSG_TIR_FLOOR_MOD: if (ints) div_rules(w, k, x, y, t); break;
  case PSG_TIR_MIN:
  case PSG_TIR_MAX: if (ints) minmax_rules(w, k, x, y, t); break;
  case PSG_TIR_EQ:
  case PSG_TIR_NE:
  case PSG_TIR_LT:
  case PSG_TIR_LE:
  case PSG_TIR_GT:
  case PSG_TIR_GE: if (psg_tir_dtype_lanes(t) == 1) cmp_rules(w, e, k, x, y); break;
  case PSG_TIR_AND:
  case PSG_TIR_OR: logic_rules(w, e, k, x, y); break;
  case PSG_TIR_NOT: not_rules(w, x); break;
  case PSG_TIR_SELECT: select_rules(w, x, y, e->kids[2]); break;
  case PSG_TIR_CALL: call_rules(w, e); break;
  case PSG_TIR_CAST:
    if (x->dtype == t) done(w, x);
    break;
  default: break;
  }
}

psg_status psgi_arith_rules_fixpoint(psg_arith_analyzer *a, psg_tir_expr *e, int depth, psg_tir_expr **out) {
  psg_tir_expr *cur = e;
  psg_tir_retain(cur);
  for (int step = 0; step < PSGI_ARITH_MAX_STEPS; step++) {
    rw w; /* tmp[0, ntmp) in use: not zeroed (24 pointers per rule step) */
    w.a = a;
    w.ntmp = 0;
    w.res = NULL;
    w.st = PSG_OK;
    w.depth = depth;
    psgi_arith_rules(&w, cur);
    psg_tir_expr *next = w.st ? NULL : w.res;
    if (next) psg_tir_retain(next);
    for (int i = 0; i < w.ntmp; i++) psg_tir_release(w.tmp[i]);
    if (w.st) {
      psg_tir_release(cur);
      return w.st;
    }
    if (!next || next == cur) {
      psg_tir_release(next);
      break;
    }
    psg_tir_release(cur);
    cur = next;
  }
  *out = cur;
  return PSG_OK;
}
