/* Passage — the analyzer extension ComparisonOfProductAndSum (TVM's
 * arith.Extension bit 8, TryComparisonOfProductAndSum of its
 * rewrite_simplify): the sign of (A + B) * C - (A * B) * D when A, B, C, D
 * are all positive (after flipping signs), proved through reciprocals:
 *
 *   (A + B) * C > (A * B) * D  <=>  1/(A*D) + 1/(B*D) > 1/C
 *
 * which holds for all values in the bounds when min(A_max, B_max) * D_max
 * <= C_min, or when A_max * B_max * D_max < C_min * (A_max + B_max). The
 * two sides are read as written (x < y with x a product and y a sum, or the
 * other way), not from a simplified difference. */
#include "tir/arith/arith_internal.h"

enum { REL_LT = 1, REL_EQ = 2, REL_GT = 4, REL_ANY = 7 };

typedef struct side {
  psg_tir_expr *a, *b; /* the product's or the sum's two operands */
  psg_tir_expr *k;     /* its multiplier, NULL: 1 */
} side;

/* e as m * k or k * m with m of `kind` (or e itself of `kind`, k = 1). */
static bool read_side(psg_tir_expr *e, int kind, side *s) {
  s->k = NULL;
  psg_tir_expr *m = e;
  if (e->kind == PSG_TIR_MUL && kind == PSG_TIR_ADD) {
    if (e->kids[0]->kind == PSG_TIR_ADD) m = e->kids[0], s->k = e->kids[1];
    else if (e->kids[1]->kind == PSG_TIR_ADD) m = e->kids[1], s->k = e->kids[0];
    else return false;
  } else if (e->kind == PSG_TIR_MUL && kind == PSG_TIR_MUL) {
    /* (A * B) * D, D * (A * B), or A * B itself */
    if (e->kids[0]->kind == PSG_TIR_MUL) m = e->kids[0], s->k = e->kids[1];
    else if (e->kids[1]->kind == PSG_TIR_MUL) m = e->kids[1], s->k = e->kids[0];
  }
  if (m->kind != kind) return false;
  s->a = m->kids[0];
  s->b = m->kids[1];
  return true;
}

static psg_status bound_of(psg_arith_analyzer *a, psg_tir_expr *e, psg_arith_bound *out) {
  if (!e) {
    out->min = out->max = 1;
    return PSG_OK;
  }
  psgi_arith_info ai;
  psg_status st = psgi_arith_info_of(a, e, &ai);
  if (!st) *out = ai.bound;
  return st;
}

static psg_arith_bound negate(psg_arith_bound b) {
  psg_arith_bound r = {psgi_arith_sat_neg(b.max), psgi_arith_sat_neg(b.min)};
  return r;
}
static bool positive(psg_arith_bound b) { return b.min > 0; }
static bool negative(psg_arith_bound b) { return b.max < 0; }

/* The relations x - y can have, given (sum, prod) with diff = sign * (S - P). */
static int sign_of_diff(psg_arith_analyzer *a, const side *sum, const side *prod, bool flip, psg_status *st) {
  psg_arith_bound A, B, C, D;
  if ((*st = bound_of(a, prod->a, &A)) || (*st = bound_of(a, prod->b, &B)) || (*st = bound_of(a, sum->k, &C)) ||
      (*st = bound_of(a, prod->k, &D)))
    return REL_ANY;
  /* diff = (A + B) * C - (A * B) * D, with C and D negated when x is the
   * product side */
  if (flip) {
    C = negate(C);
    D = negate(D);
  }
  bool upper = negative(D);
  if (upper) { /* (A*B)*(-D) < (A+B)*(-C): a lower bound of the negation */
    C = negate(C);
    D = negate(D);
  }
  if (negative(C)) { /* ((-A) + (-B)) * (-C) vs ((-A) * (-B)) * D */
    A = negate(A);
    B = negate(B);
    C = negate(C);
  }
  if (!(positive(A) && positive(B) && positive(C) && positive(D))) return REL_ANY;
  if (D.max == PSG_ARITH_POS_INF) return REL_ANY;
  int64_t amin = A.max < B.max ? A.max : B.max;
  bool recip = psgi_arith_sat_mul(amin, D.max) <= C.min;
  if (!recip && A.max != PSG_ARITH_POS_INF && B.max != PSG_ARITH_POS_INF) {
    int64_t lhs = psgi_arith_sat_mul(psgi_arith_sat_mul(A.max, B.max), D.max);
    int64_t rhs = psgi_arith_sat_mul(C.min, psgi_arith_sat_add(A.max, B.max));
    recip = lhs != PSG_ARITH_POS_INF && rhs != PSG_ARITH_POS_INF && lhs < rhs;
  }
  if (!recip) return REL_ANY;
  return upper ? REL_LT : REL_GT;
}

int psgi_arith_product_sum_rel(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y, psg_status *st) {
  *st = PSG_OK;
  side sum, prod;
  bool flip;
  if (read_side(x, PSG_TIR_ADD, &sum) && sum.k && read_side(y, PSG_TIR_MUL, &prod)) flip = false;
  else if (read_side(y, PSG_TIR_ADD, &sum) && sum.k && read_side(x, PSG_TIR_MUL, &prod)) flip = true;
  else return REL_ANY;
  /* the same two operands, in either order */
  if (!((psgi_arith_equal(a, sum.a, prod.a) && psgi_arith_equal(a, sum.b, prod.b)) ||
        (psgi_arith_equal(a, sum.a, prod.b) && psgi_arith_equal(a, sum.b, prod.a))))
    return REL_ANY;
  return sign_of_diff(a, &sum, &prod, flip, st);
}
