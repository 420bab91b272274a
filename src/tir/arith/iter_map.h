/* Passage — iterator-map detection and simplification, TVM's
 * arith::IterMapSimplify (src/arith/iter_affine_map.cc) at its surjective
 * level: index expressions over loop variables of known ranges are read as
 * sums of splits of fused iterators ((source // lower_factor) % extent *
 * scale), splits of one source that tile it are joined, and the result is
 * written back as an expression. (i // (n*n)) * (n*n) + (i % (n*n)) // n * n
 * + i % n over i in [0, 32*n*n) becomes i.
 *
 * What is left out of TVM's: iterators that need padding (a split whose
 * extent the divisor does not divide, or a base not a multiple of it) fail
 * the detection instead of being padded; then, as in TVM when the detection
 * fails, the indices come back unchanged. */
#ifndef PSG_TIR_ARITH_ITER_MAP_H
#define PSG_TIR_ARITH_ITER_MAP_H

#include "passage/arith.h"

/* An input iterator: var ranges over [min, min + extent). Borrowed. */
typedef struct psgi_arith_iter {
  psg_tir_expr *var, *min, *extent;
} psgi_arith_iter;

/* TVM's IterMapSimplify(indices, iters, predicate, Surjective, analyzer,
 * simplify_trivial_iterators=true): out[0..n) are new references, the
 * simplified indices, or the indices themselves when the detection fails
 * (*detected false). The predicate is the conjunction of preds[0..npreds)
 * (bounds on sums of iterators such as `bx * 64 + tx < m`); when the
 * detection fails under it, it is tried without, as TVM does. The analyzer
 * proves the equalities and divisibilities the detection needs (its facts:
 * the caller's). An error status only for an allocation failure. */
psg_status psgi_arith_iter_map_simplify(psg_arith_analyzer *a, psg_tir_expr *const *indices, size_t n,
                                        const psgi_arith_iter *iters, size_t niters, psg_tir_expr *const *preds,
                                        size_t npreds, psg_tir_expr **out, bool *detected);

#endif
