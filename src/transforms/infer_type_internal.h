/* Passage — InferType's parts shared across its files: the type formatter
 * used in messages, the unifier (infer_type_unifier.c), the type solver
 * (infer_type_solver.c) and the unification checker for functions with
 * unknown types (infer_type_unified.c). */
#ifndef PSG_INFER_TYPE_INTERNAL_H
#define PSG_INFER_TYPE_INTERNAL_H

#include "ir/ir_internal.h"

/* "Tensor[(1, 3), float32]", "float32", "(A, ?)", "fn [A](A) -> A" for
 * messages; NULL and IncompleteTypes print as "?". */
void psgi_type_format(psgi_buf *b, const psg_type *t);

/* A variable's annotation as InferType reads it: an IncompleteType
 * annotation (`relay.Var("x", relay.IncompleteType())`) says nothing, as
 * in TVM, so the variable counts as unannotated. */
static inline const psg_type *psgi_var_annotation(const psg_expr *v) {
  const psg_type *t = v->u.var.type;
  return t && t->kind == PSG_TYPE_INCOMPLETE ? NULL : t;
}

/* Whether t is or contains an IncompleteType. */
bool psgi_type_has_holes(const psg_type *t);

/* Whether e's type, just inferred, is final (ir_internal.h's TYPE_FINAL):
 * it follows from its children alone and they are all final. A Var is final
 * when annotated and a Function when it has a return type, so a final
 * subtree is also fully annotated. */
bool psgi_infer_is_final(const psg_expr *e);

/* TVM's Resolver over the typed mod (infer_type_annotate.c): every Var
 * without an annotation gets its checked type as one, every Function without
 * a return type its checked return type. *out is mod itself, retained, when
 * nothing was missing. */
psg_status psgi_annotate_inferred(psg_ctx *ctx, const psg_module *mod, psg_module **out);

/* t with each TypeVar from[i] replaced by to[i] (n pairs); a FuncType
 * binding one of them again shadows it. Types are shallow, so this recurses. */
psg_status psgi_type_subst(psg_ctx *ctx, const psg_type *t, const psg_type *const *from,
                           const psg_type *const *to, int n, const psg_type **out);

/* The unifier: union-find over IncompleteTypes. `msg` holds the reason of the
 * last failure ("expected `A`, found `B`: dimension 0 conflicts: 10 does not
 * match 20"); callers pass the expected type first. */
typedef struct psgi_unifier {
  psg_ctx *ctx;
  psgi_map bound; /* IncompleteType -> the type it was unified with */
  size_t nbound;  /* bindings made so far (the solver's progress measure) */
  char msg[512];
} psgi_unifier;

void psgi_unifier_init(psgi_unifier *u, psg_ctx *ctx);
void psgi_unifier_fini(psgi_unifier *u);
/* Unifies a and b; *out (may be NULL) is the unified type. PSG_ERR_TYPE with
 * u->msg on a mismatch (nothing is bound by the failing part). */
psg_status psgi_unify(psgi_unifier *u, const psg_type *a, const psg_type *b, const psg_type **out);
/* t with every bound IncompleteType replaced by what it stands for. */
psg_status psgi_unifier_resolve(psgi_unifier *u, const psg_type *t, const psg_type **out);

/* The type solver: relations over types, run to a fixed point. A relation
 * holds types[0..n) of which the first num_inputs are inputs; it either
 * settles (done) or waits for more of its types to become known. */
typedef struct psgi_solver psgi_solver;
/* Runs one relation on the resolved types. Sets *done when the relation
 * holds for good; may unify through s. PSG_ERR_TYPE with a message in the
 * solver's unifier when the types contradict it. */
typedef psg_status (*psgi_relation_fn)(psgi_solver *s, const psg_type *const *types, int n,
                                       int num_inputs, const psg_attrs *attrs, size_t op, bool *done);

struct psgi_solver {
  psgi_unifier u;
  PSGI_VEC(struct psgi_relation) rels;
};

typedef struct psgi_relation {
  psgi_relation_fn fn;
  const psg_type **types;
  int n, num_inputs;
  const psg_attrs *attrs; /* borrowed */
  size_t op;              /* op relations: the op's table index */
  const void *where;      /* what the caller locates failures at (an expr) */
  bool done;
} psgi_relation;

void psgi_solver_init(psgi_solver *s, psg_ctx *ctx);
void psgi_solver_fini(psgi_solver *s);
psg_status psgi_solver_add(psgi_solver *s, psgi_relation_fn fn, const psg_type *const *types, int n,
                           int num_inputs, const psg_attrs *attrs, size_t op, const void *where);
/* Runs the relations until none makes progress. *failed (may be NULL) is the
 * relation that failed (PSG_ERR_TYPE); *all_done says whether every relation
 * settled. */
psg_status psgi_solver_solve(psgi_solver *s, bool *all_done, const psgi_relation **failed);

/* Relations: TVM's Identity and Broadcast, and an op's own relation run
 * forward once its inputs are known, backward (psgi_type_fill) before. */
psg_status psgi_solver_rel_identity(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                             const psg_attrs *attrs, size_t op, bool *done);
psg_status psgi_solver_rel_broadcast(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                              const psg_attrs *attrs, size_t op, bool *done);
psg_status psgi_solver_rel_op(psgi_solver *s, const psg_type *const *types, int n, int num_inputs,
                       const psg_attrs *attrs, size_t op, bool *done);
/* The relation named `name` ("Identity", "Broadcast", or an op's name), NULL
 * if none; *op is set for op relations. */
psgi_relation_fn psgi_relation_by_name(const char *name, size_t *op);

/* Filling in unannotated parameters (infer_type_unified.c). The checker
 * (infer_type.c) provides the types of globals and reports errors. */
typedef struct psgi_infer_hooks {
  void *env;
  psg_status (*global_type)(void *env, const psg_expr *gv, const psg_type **out);
  /* Records a located type error at `at`; returns PSG_ERR_TYPE. */
  psg_status (*error)(void *env, const psg_expr *at, const char *msg);
  const psg_module *mod; /* its type definitions type constructors and patterns */
} psgi_infer_hooks;

/* ADTs and references (infer_type_adt.c). A constructor's type: fn [tvars]
 * (inputs) -> ADT[tvars], from the module's TypeData (PSG_ERR_TYPE with msg
 * when the module does not define it). */
psg_status psgi_constructor_type(psg_ctx *ctx, const psg_module *mod, const psg_expr *ctor, const psg_type **out,
                                 char *msg, size_t cap);
/* Unifies every clause pattern of Match m with the matched type `data`;
 * kid_types (one per child of m) holds at each pattern variable's position
 * its type so far or NULL, and gets the type the pattern gives it (its
 * annotation, else what it matches; resolve through u). */
psg_status psgi_infer_match_patterns(psgi_unifier *u, const psg_module *mod, const psg_expr *m,
                                     const psg_type *data, const psg_type **kid_types);
/* RefCreate: ref(T); RefRead: T of a ref(T); RefWrite: () after its value
 * unifies with the reference's. kids: the children's types. */
psg_status psgi_ref_type_rule(psgi_unifier *u, const psg_expr *e, const psg_type *const *kids, const psg_type **out);

/* TVM's unification over fn: every expression gets a type with holes for the
 * unknowns, every op call a relation, the solver runs them to a fixed point,
 * and fn is rebuilt (*out, a new reference) with each unannotated parameter
 * annotated with its solved type. A parameter whose type stays unknown, or a
 * contradiction, is a located PSG_ERR_TYPE. */
psg_status psgi_infer_fill_params(psg_ctx *ctx, const psg_expr *fn, const psgi_infer_hooks *h, psg_expr **out);

/* Whether t holds a hole or a polymorphic FuncType (the checker then asks
 * the unifier rather than comparing). */
bool psgi_type_needs_unifier(const psg_type *t);
/* With a fresh unifier: the result of calling FuncType ft (its type
 * parameters instantiated with holes) with args; PSG_ERR_TYPE with msg and
 * *bad the argument that does not fit. */
psg_status psgi_unify_call(psg_ctx *ctx, const psg_type *ft, const psg_type *const *args, size_t nargs,
                           const psg_type **ret, char *msg, size_t msg_len, size_t *bad);
/* With a fresh unifier: a and b unified (expected first). */
psg_status psgi_unify_pair(psg_ctx *ctx, const psg_type *a, const psg_type *b, const psg_type **out, char *msg,
                           size_t msg_len);

#endif
