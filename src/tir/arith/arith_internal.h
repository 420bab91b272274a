/* Passage — private state of the arithmetic analyzer (include/passage/arith.h):
 * the fact stacks, the per-node cache of bounds, modular sets and structural
 * hashes, saturating bound arithmetic and the node builders the rewrite
 * rules share. */
#ifndef PSG_ARITH_INTERNAL_H
#define PSG_ARITH_INTERNAL_H

#include "passage/arith.h"
#include "tir/tir_internal.h"

/* What the analyzer knows of one expression node. */
typedef struct psgi_arith_info {
  psg_arith_bound bound; /* ints (bool: [0, 1]); floats and handles: everything */
  psg_arith_modset mod;
  uint64_t hash; /* structural: agrees with psg_arith_expr_equal */
} psgi_arith_info;

/* A fact on one var, the intersection of every fact in scope (a lookup
 * reads the newest). `subst` (retained, may be NULL) replaces the var when
 * simplifying (an extent-1 loop, a LetStmt of a constant or a var);
 * `let_value` replaces it only while use_let_values is set (proving an `if`
 * condition with the lets in scope, as TVM does). */
typedef struct psgi_arith_fact {
  psg_tir_expr *var;
  psg_arith_bound bound;
  psg_tir_expr *subst;
  psg_tir_expr *let_value; /* retained, may be NULL: a LetStmt value not substituted */
  psg_arith_modset mod;    /* from floormod(var, c) == b known true; {1, 0}: nothing */
  size_t prev;             /* the var's previous fact, index + 1 (0: none): restored when this one pops */
} psgi_arith_fact;

typedef struct psgi_arith_cached {
  psg_tir_expr *node; /* retained, so that its address is not reused */
  psgi_arith_info info;
} psgi_arith_cached;

struct psg_arith_analyzer {
  psg_ctx *ctx;
  PSGI_VEC(psgi_arith_fact) facts;
  /* var -> its newest fact, index + 1 into facts (0: none), so that a lookup
   * does not scan the facts: a walk that binds every loop of a large
   * function for the rest of the walk would make that quadratic. */
  psgi_map newest;
  PSGI_VEC(psg_tir_expr *) known; /* conditions known true (retained) */
  psgi_map cache;                 /* node -> index + 1 into cached */
  PSGI_VEC(psgi_arith_cached) cached;
  /* What whole rewrite walks gave (simplify_expr.c): node, its address + 1
   * in canonical mode -> its rewrite; both retained. Valid while the facts
   * and the options below stay: cleared with the cache, and when the
   * options differ from `rewritten_opts`. */
  psgi_map rewritten;
  unsigned rewritten_opts;
  /* Options of tir.Simplify the rules read. */
  bool use_let_values;   /* substitute let_value of facts (see psgi_arith_fact) */
  bool transitive;       /* transitively_prove_inequalities */
  bool boolean_branches; /* apply_constraints_to_boolean_branches */
  bool and_of_ors;       /* convert_boolean_to_and_of_ors (and_of_ors.c) */
  bool product_sum;      /* comparison_of_product_and_sum (product_sum.c) */
  bool and_of_ors_busy;  /* inside that conversion: not again */
  /* No fast path of the rewrite walk (simplify_expr.c): every node through
   * the rules, no fixed results noted. From psgi_arith_exhaustive when
   * created; the tests compare both ways. */
  bool exhaustive;
  int branch_depth;      /* nesting of those (bounded: BRANCH_DEPTH_LIMIT) */
};

/* What new analyzers take as `exhaustive` (false; tests set it). */
extern bool psgi_arith_exhaustive;
/* Tests: where the canonical walk skips the rules at a node because the
 * rewrite walk kept it (simplify_expr.c, rules_fixed), run them anyway and
 * count the skips (`checked`) and the nodes the rules would have changed
 * (`wrong`, which the skip's argument says stays 0). */
extern bool psgi_arith_check_rules_known;
extern size_t psgi_arith_rules_known_checked, psgi_arith_rules_known_wrong;

/* Binds a LetStmt var to value: PSGI_ARITH_LET_INLINE substitutes value for
 * the var (TVM's Bind of an inlinable let), PSGI_ARITH_LET_PROVE keeps it
 * for proving conditions (TVM's non-inlined bindings), PSGI_ARITH_LET_BOUND
 * only bounds the var by the value's bound. */
enum { PSGI_ARITH_LET_BOUND, PSGI_ARITH_LET_PROVE, PSGI_ARITH_LET_INLINE };
psg_status psgi_arith_bind_let(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *value, int how);
/* TVM's MarkGlobalNonNegValue: a buffer shape `c * v + k` (c > 0) bounds
 * the var v below by -k (for the rest of the analyzer's outermost scope). */
psg_status psgi_arith_mark_non_negative(psg_arith_analyzer *a, psg_tir_expr *value);

/* The cache: cleared when facts change (bounds depend on them). */
void psgi_arith_cache_clear(psg_arith_analyzer *a);
/* Empties a->rewritten (analyzer.c). */
void psgi_arith_rewritten_clear(psg_arith_analyzer *a);
/* Clears it when it has grown past its soft limit (info.c); called when a
 * public query starts. */
void psgi_arith_cache_trim(psg_arith_analyzer *a);
/* The info of e (computed bottom up with an explicit stack, cached). */
psg_status psgi_arith_info_of(psg_arith_analyzer *a, psg_tir_expr *e, psgi_arith_info *out);
/* The newest fact on var, or NULL. */
const psgi_arith_fact *psgi_arith_find_fact(const psg_arith_analyzer *a, const psg_tir_expr *var);
/* Pushes f (its var, subst and let_value retained here) as var's newest fact. */
psg_status psgi_arith_push_fact(psg_arith_analyzer *a, psgi_arith_fact f);
/* Structural equality with the cached hashes as a first filter. */
bool psgi_arith_equal(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y);
/* Is `cond` (or its negation) one of the known conditions? 1 known true, 0
 * known false, -1 unknown. */
int psgi_arith_known(psg_arith_analyzer *a, psg_tir_expr *cond);

/* Comparison c given comparison k: 1 implied (the same, or a <= b from
 * a < b), 0 refuted (the negation: b <= a from a < b), -1 neither. Reads
 * a == b as b == a and a > b as b < a. */
int psgi_arith_compare_relation(psg_arith_analyzer *a, const psg_tir_expr *k, const psg_tir_expr *c);

/* Small vectors: the walk stacks of the analyzer start in the caller's
 * storage `small` (an array) and move to the heap only past it, since most
 * expressions are small and a query makes several walks. */
#define PSGI_ARITH_SVEC_INIT(v, small) \
  ((v)->data = (small), (v)->len = 0, (v)->cap = sizeof(small) / sizeof((small)[0]))
#define PSGI_ARITH_SVEC_RESERVE(ctx, v, small, n) \
  ((n) <= (v)->cap || psgi_arith_svec_grow((ctx), (void **)&(v)->data, &(v)->cap, (small), sizeof *(v)->data, (n)))
#define PSGI_ARITH_SVEC_PUSH(ctx, v, small, x) \
  (PSGI_ARITH_SVEC_RESERVE(ctx, v, small, (v)->len + 1) ? ((v)->data[(v)->len++] = (x), true) : false)
#define PSGI_ARITH_SVEC_FREE(ctx, v, small) ((v)->data != (void *)(small) ? psgi_free((ctx), (v)->data) : (void)0)
/* Grows the capacity to at least `need` (moving the elements off `small`
 * the first time). */
bool psgi_arith_svec_grow(psg_ctx *ctx, void **data, size_t *cap, void *small, size_t elem, size_t need);

/* The representable range of an int/uint/bool dtype; everything otherwise. */
psg_arith_bound psgi_arith_dtype_bound(psg_tir_dtype t);
/* Saturating bound arithmetic: an infinite end stays infinite, an overflow
 * becomes infinite. */
int64_t psgi_arith_sat_add(int64_t x, int64_t y);
int64_t psgi_arith_sat_mul(int64_t x, int64_t y);
static inline int64_t psgi_arith_sat_neg(int64_t x) {
  return x == PSG_ARITH_NEG_INF ? PSG_ARITH_POS_INF : x == PSG_ARITH_POS_INF ? PSG_ARITH_NEG_INF : -x;
}
/* Floor division and modulo of int64 (b != 0; INT64_MIN / -1 wraps). */
int64_t psgi_arith_floordiv(int64_t x, int64_t y);
int64_t psgi_arith_floormod(int64_t x, int64_t y);
/* The value of v wrapped to an int dtype's width (sign-extended) or a uint's
 * (masked). */
int64_t psgi_arith_wrap(psg_tir_dtype t, int64_t v);

/* Is e an IntImm (scalar)? Its value in *v. */
static inline bool psgi_arith_is_int(const psg_tir_expr *e, int64_t *v) {
  if (!e || e->kind != PSG_TIR_INT_IMM) return false;
  if (v) *v = e->u.int_value;
  return true;
}
static inline bool psgi_arith_is_int_value(const psg_tir_expr *e, int64_t v) {
  return e && e->kind == PSG_TIR_INT_IMM && e->u.int_value == v;
}
static inline bool psgi_arith_is_index_dtype(psg_tir_dtype t) {
  /* lanes == 1 and psg_tir_dtype_is_int or _is_uint, read off the encoding
   * (src/tir/dtype.c: code | bits << 8 | lanes << 16) inline: the rules ask
   * this of nearly every node. */
  unsigned code = t & 0xff, bits = t >> 8 & 0xff;
  return t >> 16 == 1 && (code == PSG_TIR_CODE_INT || (code == PSG_TIR_CODE_UINT && bits > 1));
}

/* Can constant folding (fold.c's fold_node) change e at all? Only a cast,
 * a NOT of an int constant, and a binary node over two int or two float
 * constants fold; the rules skip the fold call for the rest (nearly every
 * node). fold_node starts with this test, so the two cannot disagree. */
static inline bool psgi_arith_may_fold(const psg_tir_expr *e) {
  int k = e->kind;
  if (k == PSG_TIR_CAST) return true;
  if (k == PSG_TIR_NOT) return e->kids[0]->kind == PSG_TIR_INT_IMM;
  if (k < PSG_TIR_ADD || k > PSG_TIR_OR) return false;
  int kx = e->kids[0]->kind, ky = e->kids[1]->kind;
  return kx == ky && (kx == PSG_TIR_INT_IMM || kx == PSG_TIR_FLOAT_IMM);
}

/* Builders: constant folding and trivial identities of the new node alone
 * (rewrite.c), so that rules may build results freely. Each returns a new
 * reference; NULL with the status set on failure. */
psg_status psgi_arith_int(psg_ctx *ctx, psg_tir_dtype t, int64_t v, psg_tir_expr **out);
psg_status psgi_arith_bool(psg_ctx *ctx, bool v, int lanes, psg_tir_expr **out);
psg_status psgi_arith_mk(psg_ctx *ctx, int kind, psg_tir_expr *x, psg_tir_expr *y, psg_tir_expr **out);
/* The operand kind(x, y) reduces to by an identity needing no facts
 * (borrowed), or NULL; *zero when it is 0 (x % 1). */
psg_tir_expr *psgi_arith_identity(int kind, psg_tir_expr *x, psg_tir_expr *y, bool *zero);

/* e rebuilt with operands k (rebuild.c): k[i] replaces e->kids[i]. */
psg_status psgi_arith_rebuild(psg_tir_expr *e, psg_tir_expr *const *k, psg_tir_expr **out);
/* The bound of x - y read as one sum, so common terms cancel (canonical.c). */
psg_status psgi_arith_diff_bound(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y,
                                 psg_arith_bound *out);

/* (x - y) - (p - q) when it is a constant (canonical.c). */
bool psgi_arith_offset(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y, psg_tir_expr *p, psg_tir_expr *q,
                       int64_t *delta);

/* The rewrite simplifier's pass over e, canonical or not (rewrite.c). */
psg_status psgi_arith_rewrite(psg_arith_analyzer *a, psg_tir_expr *e, bool canonical,
                              psg_tir_expr **out);
/* TVM's SimplifyAsAndOfOrs of a boolean e (and_of_ors.c): a new reference,
 * or NULL in *out when e is past the caps there (simplify it as usual). */
/* ComparisonOfProductAndSum (product_sum.c): the relations x - y can have
 * (LT 1, EQ 2, GT 4) when one side is (A + B) * C and the other (A * B) * D;
 * 7 when unknown. */
int psgi_arith_product_sum_rel(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y, psg_status *st);
psg_status psgi_arith_and_of_ors(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out);
/* The canonical form of one node whose operands are simplified already
 * (canonical.c): a new reference, or NULL in *out when it has none. */
psg_status psgi_arith_canonical_node(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out);

#endif
