/* Passage — operators the host registers at run time (TVM's
 * relay.op.op.register with Op.set_num_inputs, add_type_rel,
 * set_support_level, register_pattern and register_stateful): an op defined
 * outside the library's op table, living in one context.
 *
 * Such an op is used as a built-in one is: psg_op_get gives its Op node,
 * calls to it are built, printed, compared and hashed as usual, op attributes
 * can be set on it (op_attr.h), and InferType types its calls by the type
 * relation given here. It has no reference kernel, compute rule or ONNX
 * mapping, so FoldConstant leaves its calls alone, FuseOps treats them by
 * their pattern, and evaluating, lowering or exporting one fails with an
 * error naming it. The text parser knows the built-in ops only.
 *
 * An op is registered once per context (a second registration of the name
 * fails, as TVM's does) and stays until the context dies. Its properties are
 * meant to be set right after registration, before any pass uses it. */
#ifndef PASSAGE_OP_REGISTER_H
#define PASSAGE_OP_REGISTER_H

#include "passage/ir.h"

PSG_BEGIN_DECLS

/* A type relation from the host: the type of a call from its argument types
 * (all known: no IncompleteType among them) and its attributes (NULL when
 * the call has none). It sets *out to the call's type — a type made in ctx,
 * which the library keeps (types are interned) — or leaves it NULL when it
 * cannot tell (TVM's None), which makes the call a type error. It fails by
 * recording an error on ctx (psg_ctx_fail) and returning its status; a
 * frontend's PSG_ERR_FRONTEND reaches the caller of the pass unchanged.
 * Everything given is borrowed for the duration of the call. */
typedef psg_status (*psg_type_rel_fn)(psg_ctx *ctx, const psg_type *const *args, size_t nargs,
                                      const psg_attrs *attrs, void *user, const psg_type **out);

/* Registers op `name` with a one-line description `doc` (may be NULL).
 * INVALID_ARGUMENT ("Operator NAME is registered before") when an op of that
 * name exists, built in or registered. */
PSG_API psg_status psg_op_register(psg_ctx *ctx, const char *name, const char *doc);

/* The number of arguments a call must have (-1, the default: any). InferType
 * reports a call with another count as a type error. */
PSG_API psg_status psg_op_set_num_inputs(psg_ctx *ctx, const char *name, int num_inputs);
/* TVM's support level (documentation only in TVM too; read back with
 * psg_op_node_support_level). */
PSG_API psg_status psg_op_set_support_level(psg_ctx *ctx, const char *name, int level);
/* TOpPattern (PSG_OP_PATTERN_*, op.h): how FuseOps groups the op. An op
 * with none set is opaque. */
PSG_API psg_status psg_op_set_pattern(psg_ctx *ctx, const char *name, int pattern);
/* TOpIsStateful. */
PSG_API psg_status psg_op_set_stateful(psg_ctx *ctx, const char *name, bool stateful);

/* The op's type relation, named `rel_name`. With fn, the host's relation
 * (user is given back to it; free_user, which may be NULL, runs when the
 * context dies, or at once when this call fails). Without fn, the library's
 * relation of that name: "Identity" (one tensor, the same type out),
 * "Broadcast" (two tensors of one dtype, NumPy broadcasting) or
 * "BroadcastComp" (the same, bool out). An op has one relation: a second is
 * INVALID_ARGUMENT. */
PSG_API psg_status psg_op_add_type_rel(psg_ctx *ctx, const char *name, const char *rel_name, psg_type_rel_fn fn,
                                       void *user, void (*free_user)(void *user));

/* Queries through an Op node (psg_op_get), for built-in and registered ops
 * alike. num_inputs: -1 for a variadic op. support_level: -1 when not known
 * (the built-in table does not record TVM's levels). pattern: -1 when none
 * is set. type_rel_name: NULL for a built-in op or a registered one without
 * a relation. */
PSG_API int psg_op_node_num_inputs(const psg_expr *op);
PSG_API int psg_op_node_support_level(const psg_expr *op);
PSG_API int psg_op_node_pattern(const psg_expr *op);
PSG_API bool psg_op_node_is_stateful(const psg_expr *op);
PSG_API const char *psg_op_node_type_rel_name(const psg_expr *op);
/* Whether the op was registered at run time (not built in). */
PSG_API bool psg_op_node_is_registered(const psg_expr *op);

PSG_END_DECLS

#endif
