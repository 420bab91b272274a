/* Passage — one application of the rewrite rules (rules.c), used by the
 * simplifier's walk (simplify_expr.c). */
#ifndef PSG_ARITH_RULES_H
#define PSG_ARITH_RULES_H

#include "tir/arith/arith_internal.h"

enum { RW_MAX_TMP = 24 };
typedef struct rw {
  psg_arith_analyzer *a;
  psg_tir_expr *tmp[RW_MAX_TMP]; /* nodes made by the rule (owned) */
  int ntmp;
  psg_tir_expr *res; /* borrowed: a tmp or a node of the input; NULL: no rule */
  psg_status st;
  int depth; /* nesting of rule applications to the nodes rules build */
} rw;

/* Applies the first rule that matches e to w->res (left NULL when none). */
void psgi_arith_rules(rw *w, psg_tir_expr *e);
/* The rules applied at e until none matches (at most PSGI_ARITH_MAX_STEPS
 * times); the nodes a rule builds get the same, RULE_NEST levels deep. A new
 * reference in *out. */
enum { PSGI_ARITH_MAX_STEPS = 8, PSGI_ARITH_RULE_NEST = 2 };
psg_status psgi_arith_rules_fixpoint(psg_arith_analyzer *a, psg_tir_expr *e, int depth, psg_tir_expr **out);

#endif
