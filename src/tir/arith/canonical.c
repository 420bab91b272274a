/* Passage — the canonical form of integer index expressions (TVM's
 * CanonicalSimplifier in spirit): a sum of atoms with constant coefficients
 * plus a constant, read through Add, Sub and multiplication by constants.
 * floordiv/floormod of a sum by a positive constant split the terms whose
 * coefficient the constant divides; the rest is dropped from the quotient
 * (and kept in the remainder) when its bound lies in [0, c). A sum longer
 * than PSG_ARITH_MAX_TERMS terms, or reached through more nodes than a few
 * times that, has no canonical form and stays as written. */
#include "tir/arith/arith_internal.h"

typedef struct term {
  psg_tir_expr *atom; /* borrowed from the expression read */
  int64_t coeff;
} term;

typedef struct lin {
  term t[PSG_ARITH_MAX_TERMS]; /* [0, n) in use: a sum starts with LIN(c), not zeroing the rest */
  size_t n;
  int64_t c;
} lin;
/* An empty sum with constant k (t left unset: 1 KiB the canonical form
 * would otherwise zero per node). */
#define LIN(name, k) \
  lin name;          \
  name.n = 0;        \
  name.c = (k)

enum { MAX_VISIT = 4 * PSG_ARITH_MAX_TERMS };

static bool add_term(psg_arith_analyzer *a, lin *l, psg_tir_expr *atom, int64_t coeff) {
  for (size_t i = 0; i < l->n; i++) {
    if (psgi_arith_equal(a, l->t[i].atom, atom))
      return !__builtin_add_overflow(l->t[i].coeff, coeff, &l->t[i].coeff);
  }
  if (l->n == PSG_ARITH_MAX_TERMS) return false;
  l->t[l->n].atom = atom;
  l->t[l->n++].coeff = coeff;
  return true;
}

/* Adds sign * e to l; false when e has no linear form within the limits. */
static bool read_lin(psg_arith_analyzer *a, psg_tir_expr *e, int64_t sign, lin *l) {
  struct item {
    psg_tir_expr *e;
    int64_t k;
  } st[MAX_VISIT];
  size_t sp = 0, visits = 0;
  st[sp].e = e;
  st[sp++].k = sign;
  while (sp) {
    struct item it = st[--sp];
    if (++visits > MAX_VISIT) return false;
    psg_tir_expr *x = it.e;
    int64_t v, k2;
    if (x->kind == PSG_TIR_INT_IMM) {
      if (__builtin_mul_overflow(x->u.int_value, it.k, &v) || __builtin_add_overflow(l->c, v, &l->c)) return false;
      continue;
    }
    if ((x->kind == PSG_TIR_ADD || x->kind == PSG_TIR_SUB) && sp + 2 <= MAX_VISIT) {
      if (x->kind == PSG_TIR_SUB && it.k == INT64_MIN) return false;
      st[sp].e = x->kids[1];
      st[sp++].k = x->kind == PSG_TIR_SUB ? -it.k : it.k;
      st[sp].e = x->kids[0];
      st[sp++].k = it.k;
      continue;
    }
    if (x->kind == PSG_TIR_MUL && sp + 1 <= MAX_VISIT &&
        (psgi_arith_is_int(x->kids[1], &v) || psgi_arith_is_int(x->kids[0], &v))) {
      if (__builtin_mul_overflow(v, it.k, &k2)) return false;
      st[sp].e = x->kids[1]->kind == PSG_TIR_INT_IMM ? x->kids[0] : x->kids[1];
      st[sp++].k = k2;
      continue;
    }
    if (x->kind == PSG_TIR_ADD || x->kind == PSG_TIR_SUB || x->kind == PSG_TIR_MUL) {
      if (x->kind != PSG_TIR_MUL) return false; /* out of stack */
    }
    if (!add_term(a, l, x, it.k)) return false;
  }
  return true;
}

static void drop_zero_terms(lin *l) {
  size_t j = 0;
  for (size_t i = 0; i < l->n; i++)
    if (l->t[i].coeff) l->t[j++] = l->t[i];
  l->n = j;
}

/* The bound of the terms of l (without l->c). */
/* Terms i and j of l are k * floordiv(u + c, d) and -(k / d) * u (d > 0,
 * d | k): together (k / d) * (c - floormod(u + c, d)), in (k / d) * [c - d
 * + 1, c] whatever u is (the floordiv(x + c2, c1) * c1 < x rules of TVM's
 * rewrite simplifier). */
static bool floor_pair(psg_arith_analyzer *a, const lin *l, size_t i, size_t j, psg_arith_bound *out) {
  psg_tir_expr *t = l->t[i].atom, *u;
  int64_t d, c = 0, k = l->t[i].coeff;
  if (t->kind != PSG_TIR_FLOOR_DIV || !psgi_arith_is_int(t->kids[1], &d) || d <= 0 || k % d || k == INT64_MIN)
    return false;
  u = t->kids[0];
  if (u->kind == PSG_TIR_ADD && psgi_arith_is_int(u->kids[1], &c)) u = u->kids[0];
  if (l->t[j].coeff != -(k / d) || !psgi_arith_equal(a, l->t[j].atom, u)) return false;
  int64_t p = psgi_arith_sat_mul(k / d, psgi_arith_sat_add(c, 1 - d)), q = psgi_arith_sat_mul(k / d, c);
  out->min = p < q ? p : q;
  out->max = p < q ? q : p;
  return true;
}

static psg_status terms_bound(psg_arith_analyzer *a, const lin *l, psg_arith_bound *out) {
  psg_arith_bound b = {0, 0};
  bool paired[PSG_ARITH_MAX_TERMS] = {false};
  for (size_t i = 0; i < l->n; i++) {
    if (paired[i]) continue;
    psg_arith_bound pb;
    for (size_t j = 0; j < l->n && !paired[i]; j++)
      if (j != i && !paired[j] && floor_pair(a, l, i, j, &pb)) {
        paired[i] = paired[j] = true;
        b.min = psgi_arith_sat_add(b.min, pb.min);
        b.max = psgi_arith_sat_add(b.max, pb.max);
      }
  }
  for (size_t i = 0; i < l->n; i++) {
    if (paired[i]) continue;
    psgi_arith_info ai;
    psg_status st = psgi_arith_info_of(a, l->t[i].atom, &ai);
    if (st) return st;
    int64_t k = l->t[i].coeff;
    int64_t p = psgi_arith_sat_mul(ai.bound.min, k), q = psgi_arith_sat_mul(ai.bound.max, k);
    int64_t lo = p < q ? p : q, hi = p < q ? q : p;
    b.min = psgi_arith_sat_add(b.min, lo);
    b.max = psgi_arith_sat_add(b.max, hi);
    if (b.min == PSG_ARITH_POS_INF) b.min = PSG_ARITH_NEG_INF; /* inf - inf */
    if (b.max == PSG_ARITH_NEG_INF) b.max = PSG_ARITH_POS_INF;
  }
  *out = b;
  return PSG_OK;
}

/* acc op x into acc (acc NULL: nothing yet; `0 - x` when subtracting from
 * nothing, as TVM writes it). Takes x. */
static psg_status append(psg_arith_analyzer *a, psg_tir_dtype t, psg_tir_expr **acc, int kind, psg_tir_expr *x) {
  psg_status st = PSG_OK;
  psg_tir_expr *y;
  if (!*acc && kind == PSG_TIR_ADD) {
    *acc = x;
    return PSG_OK;
  }
  if (!*acc && (st = psgi_arith_int(a->ctx, t, 0, acc))) {
    psg_tir_release(x);
    return st;
  }
  st = psgi_arith_mk(a->ctx, kind, *acc, x, &y);
  psg_tir_release(*acc);
  psg_tir_release(x);
  *acc = st ? NULL : y;
  return st;
}

/* |coeff| * atom. */
static psg_status scaled_atom(psg_arith_analyzer *a, psg_tir_dtype t, psg_tir_expr *atom, int64_t mag, psg_tir_expr **out) {
  if (mag == 1) {
    psg_tir_retain(atom);
    *out = atom;
    return PSG_OK;
  }
  psg_tir_expr *y;
  psg_status st = psgi_arith_int(a->ctx, t, mag, &y);
  if (st) return st;
  st = psgi_arith_mk(a->ctx, PSG_TIR_MUL, atom, y, out);
  psg_tir_release(y);
  return st;
}

/* The sum l as an expression of dtype t, in TVM's normal form: the terms
 * with a positive coefficient in order, a positive constant, then the
 * negative terms and a negative constant subtracted (`x + 3 - y * 2`; a sum
 * of negative terms alone is `0 - y`). */
static psg_status build(psg_arith_analyzer *a, const lin *l, psg_tir_dtype t, psg_tir_expr **out) {
  psg_tir_expr *acc = NULL, *x;
  psg_status st = PSG_OK;
  /* the most negative value of the dtype is added, not subtracted */
  bool min_value = l->c == psgi_arith_dtype_bound(t).min;
  for (size_t i = 0; i < l->n && !st; i++)
    if (l->t[i].coeff > 0 && !(st = scaled_atom(a, t, l->t[i].atom, l->t[i].coeff, &x))) st = append(a, t, &acc, PSG_TIR_ADD, x);
  if (!st && (l->c > 0 || (l->c && min_value)) && !(st = psgi_arith_int(a->ctx, t, l->c, &x)))
    st = append(a, t, &acc, PSG_TIR_ADD, x);
  for (size_t i = 0; i < l->n && !st; i++) {
    int64_t k = l->t[i].coeff;
    if (k >= 0) continue;
    if (k == INT64_MIN) { /* no positive magnitude: added as it is */
      if (!(st = scaled_atom(a, t, l->t[i].atom, k, &x))) st = append(a, t, &acc, PSG_TIR_ADD, x);
    } else if (!(st = scaled_atom(a, t, l->t[i].atom, -k, &x))) {
      st = append(a, t, &acc, PSG_TIR_SUB, x);
    }
  }
  if (!st && l->c < 0 && !min_value && !(st = psgi_arith_int(a->ctx, t, -l->c, &x)))
    st = append(a, t, &acc, PSG_TIR_SUB, x);
  if (!st && !acc) st = psgi_arith_int(a->ctx, t, 0, &acc);
  if (st) {
    psg_tir_release(acc);
    return st;
  }
  *out = acc;
  return PSG_OK;
}

/* Is e what build(l, t) makes (structurally: psgi_arith_equal of the two)?
 * Checked without building it, since most sums met are in normal form
 * already; false whenever unsure (a constant that wraps to 0 or 1, which the
 * builders fold away, no terms, flags on a node), and the caller builds. */
static bool is_built(psg_arith_analyzer *a, const lin *l, psg_tir_dtype t, psg_tir_expr *e) {
  typedef struct {
    int kind;           /* PSG_TIR_ADD or PSG_TIR_SUB */
    psg_tir_expr *atom; /* NULL: the constant v */
    int64_t v;          /* the coefficient's magnitude (1: the atom alone), or the constant */
  } item;
  item it[PSG_ARITH_MAX_TERMS + 1];
  size_t m = 0;
  if (!l->n) return false;
  bool min_value = l->c == psgi_arith_dtype_bound(t).min;
  for (size_t i = 0; i < l->n; i++)
    if (l->t[i].coeff > 0) it[m++] = (item){PSG_TIR_ADD, l->t[i].atom, l->t[i].coeff};
  if (l->c > 0 || (l->c && min_value)) it[m++] = (item){PSG_TIR_ADD, NULL, l->c};
  for (size_t i = 0; i < l->n; i++) {
    int64_t k = l->t[i].coeff;
    if (k < 0) it[m++] = k == INT64_MIN ? (item){PSG_TIR_ADD, l->t[i].atom, k} : (item){PSG_TIR_SUB, l->t[i].atom, -k};
  }
  if (l->c < 0 && !min_value) it[m++] = (item){PSG_TIR_SUB, NULL, -l->c};
  psg_tir_expr *n = e;
  for (size_t k = m; k-- > 0;) {
    /* item k is the right operand of the spine node (or the first one alone) */
    psg_tir_expr *x = n;
    if (k > 0 || it[0].kind == PSG_TIR_SUB) {
      if (n->kind != it[k].kind || n->dtype != t || n->flags) return false;
      x = n->kids[1];
      n = n->kids[0];
    }
    if (!it[k].atom || it[k].v != 1) {
      int64_t w = psgi_arith_wrap(t, it[k].v);
      if (w == 0 || w == 1) return false;
      psg_tir_expr *c = x;
      if (it[k].atom) {
        if (x->kind != PSG_TIR_MUL || x->dtype != t || x->flags || !psgi_arith_equal(a, x->kids[0], it[k].atom))
          return false;
        c = x->kids[1];
      }
      if (c->kind != PSG_TIR_INT_IMM || c->dtype != t || c->flags || c->u.int_value != w) return false;
    } else if (!psgi_arith_equal(a, x, it[k].atom)) {
      return false;
    }
  }
  /* the first item subtracted: from a 0 */
  if (it[0].kind == PSG_TIR_SUB)
    return n->kind == PSG_TIR_INT_IMM && n->dtype == t && !n->flags && n->u.int_value == 0;
  return true;
}

/* floormod(k * x, c) with k dividing c: floormod(x, c / k) * k, the
 * divisor negative when k is (TVM's SplitModConst: floormod(0 - i, 2) is
 * floormod(i, -2) * -1, whose sign convention ModularSet reads back). */
static psg_status mod_of_scaled(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr *x, int64_t k, int64_t c,
                                psg_tir_expr **out) {
  psg_tir_expr *d = NULL, *m = NULL, *kx = NULL;
  psg_status st = psgi_arith_int(a->ctx, e->dtype, c / k, &d);
  if (!st) st = psgi_arith_mk(a->ctx, PSG_TIR_FLOOR_MOD, x, d, &m);
  if (!st) st = psgi_arith_int(a->ctx, e->dtype, k, &kx);
  if (!st) st = psgi_arith_mk(a->ctx, PSG_TIR_MUL, m, kx, out);
  psg_tir_release(d);
  psg_tir_release(m);
  psg_tir_release(kx);
  return st;
}

/* floordiv/floormod (or trunc div/mod of non-negative values) of the sum l
 * by c > 0. */
static psg_status split_div(psg_arith_analyzer *a, psg_tir_expr *e, lin *l, int64_t c, psg_tir_expr **out) {
  *out = NULL;
  bool is_div = e->kind == PSG_TIR_FLOOR_DIV || e->kind == PSG_TIR_DIV;
  bool trunc = e->kind == PSG_TIR_DIV || e->kind == PSG_TIR_MOD;
  LIN(q, psgi_arith_floordiv(l->c, c));
  LIN(r, psgi_arith_floormod(l->c, c));
  for (size_t i = 0; i < l->n; i++) {
    if (l->t[i].coeff % c == 0) {
      q.t[q.n].atom = l->t[i].atom;
      q.t[q.n++].coeff = l->t[i].coeff / c;
    } else {
      r.t[r.n++] = l->t[i];
    }
  }
  psg_arith_bound rb;
  psg_status st = terms_bound(a, &r, &rb);
  if (st) return st;
  rb.min = psgi_arith_sat_add(rb.min, r.c);
  rb.max = psgi_arith_sat_add(rb.max, r.c);
  /* The remainder within one period [k*c, (k+1)*c): the quotient gains k. */
  bool one_period = rb.min != PSG_ARITH_NEG_INF && rb.max != PSG_ARITH_POS_INF &&
                    psgi_arith_floordiv(rb.min, c) == psgi_arith_floordiv(rb.max, c);
  if (trunc && !(r.n == 0 && r.c == 0)) {
    /* trunc and floor agree when the whole value and the remainder are >= 0,
     * or when c divides every term and the constant (TVM's truncdiv of a
     * divisible SumExpr: truncdiv(x * 2 + y * 4, 2) is x + y * 2). */
    psgi_arith_info ei;
    if ((st = psgi_arith_info_of(a, e->kids[0], &ei))) return st;
    if (ei.bound.min < 0 || rb.min < 0) return PSG_OK;
  }
  if (one_period) {
    int64_t k = psgi_arith_floordiv(rb.min, c);
    if (k != 0) {
      int64_t kc;
      if (__builtin_mul_overflow(k, c, &kc) || __builtin_add_overflow(q.c, k, &q.c) ||
          __builtin_sub_overflow(r.c, kc, &r.c))
        return PSG_OK;
    }
    return build(a, is_div ? &q : &r, e->dtype, out);
  }
  if (!trunc && !is_div && r.n == 1 && r.c == 0 && r.t[0].coeff != 1 && c % r.t[0].coeff == 0)
    return mod_of_scaled(a, e, r.t[0].atom, r.t[0].coeff, c, out);
  if (!q.n && q.c == 0) return PSG_OK; /* nothing to take out */
  if (trunc) return PSG_OK;
  /* floordiv(c*Q + R, c) = Q + floordiv(R, c); floormod(c*Q + R, c) = floormod(R, c). */
  psg_tir_expr *rx = NULL, *cx = NULL, *d = NULL, *qx = NULL;
  if ((st = build(a, &r, e->dtype, &rx)) || (st = psgi_arith_int(a->ctx, e->dtype, c, &cx))) goto done;
  if ((st = psgi_arith_mk(a->ctx, is_div ? PSG_TIR_FLOOR_DIV : PSG_TIR_FLOOR_MOD, rx, cx, &d))) goto done;
  if (!is_div) {
    *out = d;
    d = NULL;
    goto done;
  }
  if ((st = build(a, &q, e->dtype, &qx))) goto done;
  st = psgi_arith_mk(a->ctx, PSG_TIR_ADD, qx, d, out);
done:
  psg_tir_release(rx);
  psg_tir_release(cx);
  psg_tir_release(d);
  psg_tir_release(qx);
  return st;
}

/* e = atom * k1 * k2 ... (constants on either side, atom not a sum): TVM's
 * canonical form of it is a single scaled term, which normalizes to
 * `atom * k` whatever k's sign (`i * -1` stays; `0 - i` is how a sum
 * with one negative term prints). *single false: e is no such product. */
static psg_status scaled_single(psg_arith_analyzer *a, psg_tir_expr *e, bool *single, psg_tir_expr **out) {
  int64_t k = 1, c;
  psg_tir_expr *x = e;
  *single = false;
  for (int i = 0; x->kind == PSG_TIR_MUL && i < MAX_VISIT; i++) {
    if (psgi_arith_is_int(x->kids[1], &c)) x = x->kids[0];
    else if (psgi_arith_is_int(x->kids[0], &c)) x = x->kids[1];
    else break;
    if (__builtin_mul_overflow(k, c, &k)) return PSG_OK;
  }
  if (x == e || x->kind == PSG_TIR_ADD || x->kind == PSG_TIR_SUB || x->kind == PSG_TIR_INT_IMM ||
      (x->kind == PSG_TIR_MUL && (psgi_arith_is_int(x->kids[0], &c) || psgi_arith_is_int(x->kids[1], &c))))
    return PSG_OK;
  *single = true;
  /* e is `x * k` as built below already (the atom on the left, k a
   * constant that neither wraps nor is 0 or 1, which the builders would
   * fold): its own canonical form, so *out stays NULL rather than an equal
   * copy built and thrown away (most products met; docs/design.md 247). */
  if (!a->exhaustive && x == e->kids[0] && psgi_arith_is_int_value(e->kids[1], k) && k != 0 && k != 1 &&
      psgi_arith_wrap(e->dtype, k) == k && e->kids[1]->dtype == e->dtype && !e->flags && !e->kids[1]->flags)
    return PSG_OK;
  if (k == 0) return psgi_arith_int(a->ctx, e->dtype, 0, out);
  if (k == 1) {
    psg_tir_retain(x);
    *out = x;
    return PSG_OK;
  }
  psg_tir_expr *kx;
  psg_status st = psgi_arith_int(a->ctx, e->dtype, k, &kx);
  if (st) return st;
  st = psgi_arith_mk(a->ctx, PSG_TIR_MUL, x, kx, out);
  psg_tir_release(kx);
  return st;
}

/* In floormod(sum, c), a term k * floormod(y, c1) with c | c1 is k * y
 * modulo c: the term is replaced by y's terms (floormod(floormod(x, 24528)
 * - 24512, 16) is floormod(x, 16)). False: no linear form within the limits. */
static bool unwrap_mod_terms(psg_arith_analyzer *a, lin *l, int64_t c, bool *changed) {
  int64_t c1;
  for (size_t i = 0, rounds = 0; i < l->n && rounds < PSG_ARITH_MAX_TERMS; i++) {
    psg_tir_expr *t = l->t[i].atom;
    if (t->kind != PSG_TIR_FLOOR_MOD || !psgi_arith_is_int(t->kids[1], &c1) || c1 <= 0 || c1 % c) continue;
    /* y's terms take the place of the term, the order otherwise kept */
    LIN(m, l->c);
    for (size_t j = 0; j < i; j++) m.t[m.n++] = l->t[j];
    if (!read_lin(a, t->kids[0], l->t[i].coeff, &m)) return false;
    for (size_t j = i + 1; j < l->n; j++)
      if (!add_term(a, &m, l->t[j].atom, l->t[j].coeff)) return false;
    *l = m;
    *changed = true;
    rounds++;
    i = (size_t)-1; /* again from the start: the new terms may be mods too */
  }
  return true;
}

/* A product of two non-constant factors (TVM's MulAndNormalize): its
 * non-constant leaves in order, multiplied from the left, times the product
 * of its constant leaves (32 * n * n is n * n * 32). *out stays NULL when
 * that is e again, or past the limits. */
static psg_status product_normal(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  *out = NULL;
  if (psgi_arith_is_int(e->kids[0], NULL) || psgi_arith_is_int(e->kids[1], NULL)) return PSG_OK;
  psg_tir_expr *leaf[MAX_VISIT], *st_[MAX_VISIT];
  size_t nleaf = 0, sp = 0;
  int64_t scale = 1, v;
  st_[sp++] = e;
  while (sp) {
    psg_tir_expr *x = st_[--sp];
    if (x->kind == PSG_TIR_MUL) {
      if (sp + 2 > MAX_VISIT) return PSG_OK;
      st_[sp++] = x->kids[1];
      st_[sp++] = x->kids[0];
    } else if (psgi_arith_is_int(x, &v)) {
      if (__builtin_mul_overflow(scale, v, &scale)) return PSG_OK;
    } else {
      if (nleaf == MAX_VISIT) return PSG_OK;
      leaf[nleaf++] = x;
    }
  }
  if (scale == 0 || nleaf == 0 || psgi_arith_wrap(e->dtype, scale) != scale) return PSG_OK; /* folding's business */
  psg_tir_expr *acc = leaf[0], *next;
  psg_tir_retain(acc);
  psg_status st = PSG_OK;
  for (size_t i = 1; i < nleaf && !st; i++) {
    st = psgi_arith_mk(a->ctx, PSG_TIR_MUL, acc, leaf[i], &next);
    psg_tir_release(acc);
    acc = st ? NULL : next;
  }
  if (!st && scale != 1) {
    psg_tir_expr *k = NULL;
    st = psgi_arith_int(a->ctx, e->dtype, scale, &k);
    if (!st) st = psgi_arith_mk(a->ctx, PSG_TIR_MUL, acc, k, &next);
    psg_tir_release(k);
    psg_tir_release(acc);
    acc = st ? NULL : next;
  }
  if (st) return st;
  if (psgi_arith_equal(a, acc, e)) psg_tir_release(acc);
  else *out = acc;
  return PSG_OK;
}

psg_status psgi_arith_canonical_node(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  *out = NULL;
  if (!psgi_arith_is_index_dtype(e->dtype)) return PSG_OK;
  LIN(l, 0);
  int64_t c;
  switch (e->kind) {
  case PSG_TIR_MUL: {
    bool single = false;
    psg_status st = scaled_single(a, e, &single, out);
    if (st || single) return st;
    if ((st = product_normal(a, e, out)) || *out) return st;
  }
    /* fall through */
  case PSG_TIR_ADD:
  case PSG_TIR_SUB:
    if (!read_lin(a, e, 1, &l)) return PSG_OK;
    drop_zero_terms(&l);
    if (is_built(a, &l, e->dtype, e)) return PSG_OK; /* e is its own canonical form */
    return build(a, &l, e->dtype, out);
  case PSG_TIR_FLOOR_DIV:
  case PSG_TIR_FLOOR_MOD:
  case PSG_TIR_DIV:
  case PSG_TIR_MOD:
    if (!psgi_arith_is_int(e->kids[1], &c) || c <= 0) return PSG_OK;
    psg_tir_expr *num = e->kids[0];
    int64_t c1;
    /* floormod(floormod(x, c1), c) with c | c1 is floormod(x, c) (TVM's
     * SplitModConst keeps the smaller upper factor) */
    if (e->kind == PSG_TIR_FLOOR_MOD && num->kind == PSG_TIR_FLOOR_MOD && psgi_arith_is_int(num->kids[1], &c1) &&
        c1 > 0 && c1 % c == 0)
      num = num->kids[0];
    if (!read_lin(a, num, 1, &l)) return PSG_OK;
    bool changed = num != e->kids[0];
    if (e->kind == PSG_TIR_FLOOR_MOD && !unwrap_mod_terms(a, &l, c, &changed)) return PSG_OK;
    drop_zero_terms(&l);
    psg_status st = split_div(a, e, &l, c, out);
    if (st || *out || !changed) return st;
    /* nothing split off, but terms were unwrapped: floormod of the new sum */
    psg_tir_expr *sum;
    if ((st = build(a, &l, e->dtype, &sum))) return st;
    st = psgi_arith_mk(a->ctx, PSG_TIR_FLOOR_MOD, sum, e->kids[1], out);
    psg_tir_release(sum);
    return st;
  default: return PSG_OK;
  }
}

/* The bound of x - y read as one sum (so that common terms cancel); the
 * plain bound difference when either has no linear form. */
psg_status psgi_arith_diff_bound(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y, psg_arith_bound *out) {
  LIN(l, 0);
  psg_status st;
  if (psgi_arith_is_index_dtype(x->dtype) && read_lin(a, x, 1, &l) && read_lin(a, y, -1, &l)) {
    drop_zero_terms(&l);
    if ((st = terms_bound(a, &l, out))) return st;
    out->min = psgi_arith_sat_add(out->min, l.c);
    out->max = psgi_arith_sat_add(out->max, l.c);
    return PSG_OK;
  }
  psgi_arith_info xi, yi;
  if ((st = psgi_arith_info_of(a, x, &xi)) || (st = psgi_arith_info_of(a, y, &yi))) return st;
  out->min = psgi_arith_sat_add(xi.bound.min, psgi_arith_sat_neg(yi.bound.max));
  out->max = psgi_arith_sat_add(xi.bound.max, psgi_arith_sat_neg(yi.bound.min));
  if (xi.bound.min == PSG_ARITH_NEG_INF || yi.bound.max == PSG_ARITH_POS_INF) out->min = PSG_ARITH_NEG_INF;
  if (xi.bound.max == PSG_ARITH_POS_INF || yi.bound.min == PSG_ARITH_NEG_INF) out->max = PSG_ARITH_POS_INF;
  return PSG_OK;
}

bool psgi_arith_offset(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y, psg_tir_expr *p, psg_tir_expr *q,
                       int64_t *delta) {
  LIN(l, 0);
  if (!psgi_arith_is_index_dtype(x->dtype) || x->dtype != p->dtype) return false;
  if (!read_lin(a, x, 1, &l) || !read_lin(a, y, -1, &l) || !read_lin(a, p, -1, &l) || !read_lin(a, q, 1, &l))
    return false;
  drop_zero_terms(&l);
  if (l.n) return false;
  *delta = l.c;
  return true;
}
