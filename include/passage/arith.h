/* Passage — the arithmetic analyzer of TIR (TVM's arith::Analyzer): constant
 * folding, integer bounds, modular sets, a rewrite-rule simplifier, a
 * canonical simplifier of affine index expressions and proofs under the
 * facts in scope (loop ranges, `if` conditions, T.assume).
 *
 * An analyzer holds facts: variable ranges (psg_arith_bind) and constraint
 * scopes (psg_arith_enter_constraint ... psg_arith_exit_constraint, nested
 * like the statements they come from). Every query reads the facts in scope.
 * Results follow tir.h's ownership: returned expressions are new references.
 *
 * Every walk is iterative. Expressions of any depth are analyzed; the
 * rewrite rules look at most two levels below the node they rewrite, and the
 * canonical simplifier keeps at most PSG_ARITH_MAX_TERMS terms per sum (a
 * longer sum is kept as written, each part simplified). docs/tir-arith.md
 * lists what is proved. */
#ifndef PASSAGE_ARITH_H
#define PASSAGE_ARITH_H

#include "passage/tir.h"

PSG_BEGIN_DECLS

typedef struct psg_arith_analyzer psg_arith_analyzer;

/* +-infinity of a bound (TVM's ConstIntBound::kPosInf / kNegInf). */
#define PSG_ARITH_POS_INF INT64_MAX
#define PSG_ARITH_NEG_INF INT64_MIN
enum { PSG_ARITH_MAX_TERMS = 64 };

/* [min, max] of an integer expression; either end may be infinite. */
typedef struct psg_arith_bound {
  int64_t min, max;
} psg_arith_bound;

/* The values coeff * k + base for every integer k (TVM's ModularSet):
 * coeff 0 is the single value base; coeff 1 (base 0) is every integer.
 * coeff >= 0 and 0 <= base < coeff when coeff > 0. */
typedef struct psg_arith_modset {
  int64_t coeff, base;
} psg_arith_modset;

/* The state of the constraint stack, to return to (psg_arith_exit_constraint). */
typedef struct psg_arith_scope {
  size_t nfacts, nknown;
} psg_arith_scope;

PSG_API psg_status psg_arith_analyzer_create(psg_ctx *ctx, psg_arith_analyzer **out);
PSG_API void psg_arith_analyzer_destroy(psg_arith_analyzer *a); /* NULL-safe */

/* Binds `var` (an int Var) to [min, min + extent) (TVM's Bind(var, Range)),
 * for the rest of the enclosing scope. An extent whose bound may be < 1 binds
 * nothing more than the bound of min. */
PSG_API psg_status psg_arith_bind(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *min,
                                  psg_tir_expr *extent);
/* Binds `var` to the bound of `value` (a LetStmt's binding). */
PSG_API psg_status psg_arith_bind_value(psg_arith_analyzer *a, psg_tir_expr *var,
                                        psg_tir_expr *value);
/* Pushes `cond` (a bool expression) as known true: its conjuncts become facts
 * (`x < e`, `x <= e`, `x == e`, `e > x`... narrow x's bound; every conjunct is
 * also remembered as proved). *scope receives the state to return to. */
PSG_API psg_status psg_arith_enter_constraint(psg_arith_analyzer *a, psg_tir_expr *cond,
                                              psg_arith_scope *scope);
/* Pops the facts pushed since `scope` was taken (binds included). */
PSG_API void psg_arith_exit_constraint(psg_arith_analyzer *a, const psg_arith_scope *scope);

/* Sets var's bound to exactly `bound` (either end may be infinite) for the
 * rest of the enclosing scope, replacing what was known (TVM's
 * ConstIntBound Update with override; src/tir/arith/analyzer_ext.c). */
PSG_API psg_status psg_arith_update_bound(psg_arith_analyzer *a, psg_tir_expr *var, psg_arith_bound bound);
/* TVM's optional proof extensions (its arith.Extension bits): transitive
 * inequalities, booleans rewritten as an AND of ORs (bounded: see
 * src/tir/arith/and_of_ors.c), constraints applied to boolean branches (the
 * tir.Simplify options of the same names) and comparisons of a product with
 * a sum, (A + B) * C vs (A * B) * D (src/tir/arith/product_sum.c). Other
 * bits: PSG_ERR_UNSUPPORTED. */
enum {
  PSG_ARITH_EXT_TRANSITIVE = 1,
  PSG_ARITH_EXT_AND_OF_ORS = 2,
  PSG_ARITH_EXT_BOOLEAN_BRANCHES = 4,
  PSG_ARITH_EXT_PRODUCT_SUM = 8
};
PSG_API psg_status psg_arith_set_extensions(psg_arith_analyzer *a, unsigned flags);

/* Queries. */
PSG_API psg_status psg_arith_const_int_bound(psg_arith_analyzer *a, psg_tir_expr *e,
                                             psg_arith_bound *out);
PSG_API psg_status psg_arith_modular_set(psg_arith_analyzer *a, psg_tir_expr *e,
                                         psg_arith_modset *out);
/* Constant folding of e's top node alone (its operands as they are): a new
 * constant, or e itself (retained) when nothing folds. Integer arithmetic
 * wraps around at the dtype's width; Div/Mod truncate, FloorDiv/FloorMod
 * round down; a division by zero is not folded; float16/bfloat16 are not
 * folded (no exact rounding in C11). */
PSG_API psg_status psg_arith_const_fold(psg_ctx *ctx, psg_tir_expr *e, psg_tir_expr **out);
/* TVM's RewriteSimplifier: folding and rewrite rules, bottom up. */
PSG_API psg_status psg_arith_rewrite_simplify(psg_arith_analyzer *a, psg_tir_expr *e,
                                              psg_tir_expr **out);
/* TVM's CanonicalSimplifier: integer sums of products as sum of terms with
 * constant coefficients, floordiv/floormod by constants split with bounds. */
PSG_API psg_status psg_arith_canonical_simplify(psg_arith_analyzer *a, psg_tir_expr *e,
                                                psg_tir_expr **out);
/* TVM's Analyzer::Simplify: rewrite, canonical, rewrite. */
PSG_API psg_status psg_arith_simplify(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out);
/* True when `cond` simplifies to true (false also when out of memory). */
PSG_API bool psg_arith_can_prove(psg_arith_analyzer *a, psg_tir_expr *cond);
/* True when a - b simplifies to 0 (or a and b are structurally equal). */
PSG_API bool psg_arith_can_prove_equal(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y);

/* Structural equality of expressions (vars by identity) and a hash that
 * agrees with it; iterative. */
PSG_API bool psg_arith_expr_equal(const psg_tir_expr *x, const psg_tir_expr *y);

/* TVM's tir.Simplify on one PrimFunc: every expression simplified with the
 * loop ranges, if conditions, T.assume and LetStmt bindings in scope; ifs
 * whose condition is proved true or false replaced by their branch; loops of
 * extent 0 removed, loops of extent 1 replaced by their body with the var
 * bound to min. `config` is the "tir.Simplify" dict (NULL: defaults). */
PSG_API psg_status psg_tir_simplify_prim_func(const psg_tir_prim_func *f, psg_attrs *config,
                                              psg_tir_prim_func **out);

PSG_END_DECLS
#endif
