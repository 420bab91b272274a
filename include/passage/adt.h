/* Passage — Relay's algebraic data types and references (TVM's adt.h and
 * RefCreate/RefRead/RefWrite): TypeData definitions kept in a module,
 * Constructor and Match expressions with their patterns, and references.
 *
 * A Match stores its patterns' variables as children (data, then for each
 * clause the variables of its pattern in pre-order, then its right-hand
 * side), so every traversal and rewrite sees them as it sees a Let's
 * variable; psg_match_clause_pattern rebuilds a clause's pattern from them. */
#ifndef PASSAGE_ADT_H
#define PASSAGE_ADT_H

#include "passage/module.h"

PSG_BEGIN_DECLS

/* Constructors and references ---------------------------------------------
 * A Constructor is a leaf expression identified by its node (as a Var is):
 * `name` (non-empty), the types of its fields `inputs` (may mention the type
 * variables of the TypeData it goes into) and `belongs_to`, the ADT's
 * GlobalTypeVar. Its tag is set when a TypeData takes it, -1 before: its
 * index in the TypeData in the low 24 bits, under a non-zero prefix made
 * from the ADT's name (TVM's scheme: constructors of one ADT have
 * consecutive tags, those of different ADTs differ). */
PSG_API psg_status psg_constructor_create(psg_ctx *ctx, const char *name, const psg_type *const *inputs,
                                          int n, const psg_type *belongs_to, const psg_span *span,
                                          psg_expr **out);
PSG_API const char *psg_constructor_name(const psg_expr *c);
PSG_API int psg_constructor_num_inputs(const psg_expr *c);
PSG_API const psg_type *psg_constructor_input(const psg_expr *c, int i);
PSG_API const psg_type *psg_constructor_belongs_to(const psg_expr *c);
PSG_API int psg_constructor_tag(const psg_expr *c);

/* ref(value), ref_read(ref), ref_write(ref, value). Children in that order. */
PSG_API psg_status psg_ref_create(psg_ctx *ctx, psg_expr *value, const psg_span *span, psg_expr **out);
PSG_API psg_status psg_ref_read(psg_ctx *ctx, psg_expr *ref, const psg_span *span, psg_expr **out);
PSG_API psg_status psg_ref_write(psg_ctx *ctx, psg_expr *ref, psg_expr *value, const psg_span *span,
                                 psg_expr **out);

/* Patterns ------------------------------------------------------------------
 * Immutable, reference counted trees, stored flat (pre-order), so building,
 * copying and releasing one never recurses. */
typedef struct psg_pattern psg_pattern;
enum {
  PSG_PATTERN_WILDCARD = 0, /* _ */
  PSG_PATTERN_VAR = 1,      /* %x : binds the matched value */
  PSG_PATTERN_CONSTRUCTOR = 2, /* Cons(p, q): one sub-pattern per constructor input */
  PSG_PATTERN_TUPLE = 3     /* (p, q) */
};
PSG_API psg_status psg_pattern_wildcard(psg_ctx *ctx, psg_pattern **out);
PSG_API psg_status psg_pattern_var(psg_ctx *ctx, psg_expr *var, psg_pattern **out);
/* Errors: INVALID_ARGUMENT when `ctor` is not a Constructor. A field count
 * other than the constructor's is a type error (InferType), as in TVM. */
PSG_API psg_status psg_pattern_constructor(psg_ctx *ctx, psg_expr *ctor, psg_pattern *const *fields, int n,
                                           psg_pattern **out);
PSG_API psg_status psg_pattern_tuple(psg_ctx *ctx, psg_pattern *const *fields, int n, psg_pattern **out);
PSG_API void psg_pattern_retain(psg_pattern *p);
PSG_API void psg_pattern_release(psg_pattern *p);
PSG_API int psg_pattern_kind(const psg_pattern *p);
PSG_API psg_expr *psg_pattern_get_var(const psg_pattern *p);         /* VAR; borrowed */
PSG_API psg_expr *psg_pattern_get_constructor(const psg_pattern *p); /* CONSTRUCTOR; borrowed */
PSG_API int psg_pattern_num_fields(const psg_pattern *p);            /* CONSTRUCTOR, TUPLE */
/* Sub-pattern i as a new pattern (the caller releases it). */
PSG_API psg_status psg_pattern_field(const psg_pattern *p, int i, psg_pattern **out);

/* Match ------------------------------------------------------------------- */
/* match (data) { pats[i] => rhs[i], ... }; `complete` is TVM's flag (the
 * text's `match` versus `match?`). A variable may be bound once per pattern. */
PSG_API psg_status psg_match_create(psg_ctx *ctx, psg_expr *data, psg_pattern *const *pats,
                                    psg_expr *const *rhs, size_t n, bool complete, const psg_span *span,
                                    psg_expr **out);
PSG_API psg_expr *psg_match_get_data(const psg_expr *m);
PSG_API size_t psg_match_num_clauses(const psg_expr *m);
PSG_API bool psg_match_complete(const psg_expr *m);
PSG_API psg_expr *psg_match_clause_rhs(const psg_expr *m, size_t i);
/* Clause i's pattern, with the Match's current variables (a new pattern). */
PSG_API psg_status psg_match_clause_pattern(const psg_expr *m, size_t i, psg_pattern **out);
/* Clause i's variables, in the pattern's pre-order: how many, and the j-th. */
PSG_API size_t psg_match_clause_num_vars(const psg_expr *m, size_t i);
PSG_API psg_expr *psg_match_clause_var(const psg_expr *m, size_t i, size_t j);

/* TVM's UnmatchedCases: the cases no clause of Match `m` handles, as the
 * fields of a tuple pattern *out (none: an empty tuple). Constructors are
 * expanded with the TypeData `mod` (may be NULL when no pattern has a
 * constructor) gives them. INVALID_ARGUMENT when a constructor's type is
 * not in mod; UNSUPPORTED past a million candidate cases. */
PSG_API psg_status psg_match_unmatched_cases(const psg_expr *m, const psg_module *mod, psg_pattern **out);

/* TypeData ------------------------------------------------------------------
 * `type List[A] { Cons(A, List[A]), Nil }`: the GlobalTypeVar `header`, its
 * type parameters (distinct TypeVars) and constructors (Constructors whose
 * belongs_to is `header`, with distinct names; each gets its tag here). A
 * TypeData without constructors is TVM's `extern type`. */
typedef struct psg_type_data psg_type_data;
PSG_API psg_status psg_type_data_create(psg_ctx *ctx, const psg_type *header, const psg_type *const *tvars,
                                        int ntvars, psg_expr *const *ctors, int nctors, psg_type_data **out);
PSG_API void psg_type_data_retain(psg_type_data *td);
PSG_API void psg_type_data_release(psg_type_data *td);
PSG_API const psg_type *psg_type_data_header(const psg_type_data *td);
PSG_API int psg_type_data_num_tvars(const psg_type_data *td);
PSG_API const psg_type *psg_type_data_tvar(const psg_type_data *td, int i);
PSG_API int psg_type_data_num_constructors(const psg_type_data *td);
PSG_API psg_expr *psg_type_data_constructor(const psg_type_data *td, int i); /* borrowed */

/* A module's type definitions, in insertion order. Adding one whose name is
 * taken replaces it when `replace`, else is INVALID_ARGUMENT; so is a
 * constructor name another definition uses. */
PSG_API psg_status psg_module_add_type_def(const psg_module *m, psg_type_data *td, bool replace, psg_module **out);
PSG_API size_t psg_module_num_type_defs(const psg_module *m);
PSG_API psg_type_data *psg_module_get_type_def(const psg_module *m, size_t i); /* borrowed */
/* The definition whose header is named `name`, or NULL. */
PSG_API psg_type_data *psg_module_find_type_def(const psg_module *m, const char *name);
/* The definition of GlobalTypeVar `gtv` (by name), or NULL. */
PSG_API psg_type_data *psg_module_lookup_type_def(const psg_module *m, const psg_type *gtv);
/* The constructor named `name` among all definitions, or NULL (borrowed). */
PSG_API psg_expr *psg_module_find_constructor(const psg_module *m, const char *name);

PSG_END_DECLS
#endif
