/* Passage — symbolic integer intervals (TVM's arith::IntervalSet, EvalSet,
 * Intersect and DeduceBound), for the loop passes: an interval whose ends
 * are expressions, either end infinite. Used by tir.LoopPartition.
 *
 * Ownership: a set holds references to its ends (release with
 * psgi_int_set_release). A set is a single point when both ends are the
 * same node (TVM's cheap IsSinglePoint). Every walk is iterative. */
#ifndef PSG_TIR_ARITH_INT_SET_H
#define PSG_TIR_ARITH_INT_SET_H

#include "passage/arith.h"

typedef struct psgi_int_set {
  psg_tir_expr *min, *max; /* NULL: -infinity / +infinity */
  bool empty;              /* TVM's Nothing (min +inf, max -inf) */
} psgi_int_set;

/* A var with its set (the entries of TVM's dom maps); the newest entry of a
 * var wins. */
typedef struct psgi_int_set_dom {
  const psg_tir_expr *var;
  psgi_int_set set; /* borrowed from whoever built the map */
} psgi_int_set_dom;

void psgi_int_set_release(psgi_int_set *s);
static inline bool psgi_int_set_is_point(const psgi_int_set *s) { return !s->empty && s->min && s->min == s->max; }
static inline bool psgi_int_set_is_everything(const psgi_int_set *s) { return !s->empty && !s->min && !s->max; }
/* [min, max] (retained); a point when min == max. */
psgi_int_set psgi_int_set_interval(psg_tir_expr *min, psg_tir_expr *max);

/* TVM's EvalSet(e, dom): the set of values e takes when each var of `dom`
 * ranges over its set (other vars are points). `a` proves signs (a fresh
 * analyzer, as TVM's EvalSet uses). */
psg_status psgi_int_set_eval(psg_arith_analyzer *a, psg_tir_expr *e, const psgi_int_set_dom *dom, size_t ndom,
                             psgi_int_set *out);
/* TVM's Intersect(analyzer, a, b): max of the mins, min of the maxes; with
 * check_empty, empty when max < min is proved (TVM's Intersect of an array
 * checks each step with an analyzer of no facts). */
psg_status psgi_int_set_intersect(psg_arith_analyzer *a, const psgi_int_set *x, const psgi_int_set *y,
                                  bool check_empty, psgi_int_set *out);
/* TVM's DeduceBound(var, cond, hint, relax): an interval of var in which
 * cond holds for every value of the relaxed vars, or an empty set. */
psg_status psgi_int_set_deduce_bound(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *cond,
                                     const psgi_int_set_dom *hint, size_t nhint, const psgi_int_set_dom *relax,
                                     size_t nrelax, psgi_int_set *out);
/* Whether e mentions a var for which pred(var, user) holds. Iterative. */
psg_status psgi_int_set_uses_var(psg_ctx *ctx, const psg_tir_node *e, bool (*pred)(const psg_tir_node *, void *),
                                 void *user, bool *out);

#endif
