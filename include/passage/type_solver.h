/* Passage — InferType's type solver, exposed for tests and tools (TVM's
 * `relay.analysis._ffi_api._test_type_solver`): unify types containing
 * IncompleteTypes, add relations over types, solve them to a fixed point and
 * resolve a type to what the solver knows of it. */
#ifndef PASSAGE_TYPE_SOLVER_H
#define PASSAGE_TYPE_SOLVER_H

#include "passage/attrs.h"
#include "passage/type.h"

PSG_BEGIN_DECLS

typedef struct psg_type_solver psg_type_solver;

PSG_API psg_status psg_type_solver_create(psg_ctx *ctx, psg_type_solver **out);
PSG_API void psg_type_solver_free(psg_type_solver *s);
/* The most general type a and b share (*out may be NULL), binding their
 * IncompleteTypes. A mismatch is PSG_ERR_TYPE with a diagnostic saying which
 * parts differ ("expected `a`, found `b`: dimension 0 conflicts: ..."). */
PSG_API psg_status psg_type_solver_unify(psg_type_solver *s, const psg_type *a, const psg_type *b,
                                         const psg_type **out);
/* t with every IncompleteType the solver has bound replaced. */
PSG_API psg_status psg_type_solver_resolve(psg_type_solver *s, const psg_type *t, const psg_type **out);
/* Adds the relation `name` over types[0..n): "Identity" (all equal),
 * "Broadcast" (two inputs, numpy broadcasting), or an operator's name (its
 * type relation, which may also assign unknown inputs, e.g. "nn.conv2d"'s
 * weight). The first num_inputs types are inputs, the rest outputs; `attrs`
 * (may be NULL) is retained. PSG_ERR_NOT_FOUND for an unknown relation. */
PSG_API psg_status psg_type_solver_add_relation(psg_type_solver *s, const char *name,
                                                const psg_type *const *types, int n, int num_inputs,
                                                psg_attrs *attrs);
/* Runs the relations until none makes progress; *all_solved (may be NULL)
 * says whether every relation settled. A contradiction is PSG_ERR_TYPE. */
PSG_API psg_status psg_type_solver_solve(psg_type_solver *s, bool *all_solved);

PSG_END_DECLS
#endif
