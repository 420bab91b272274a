/* Passage — internal entry points of the interpreter shared with
 * FoldConstant: evaluate one op call on values, and convert between
 * constants and values. */
#ifndef PSG_INTERP_INTERNAL_H
#define PSG_INTERP_INTERNAL_H

#include "ops/op_impl.h"

/* Runs op `op` with `attrs` on `args`: the type relation on the argument
 * types, then the kernel. On failure returns the status and writes the
 * reason to msg (msglen bytes). */
psg_status psgi_eval_op(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                        size_t nargs, psgi_value **out, char *msg, size_t msglen);
/* The same with the arguments' types when the caller knows them (arg_types
 * or an entry of it NULL: computed from the value). A given type must be the
 * value's own (psgi_value_type's interned type). */
psg_status psgi_eval_op_typed(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                              const psg_type *const *arg_types, size_t nargs, psgi_value **out, char *msg,
                              size_t msglen);

/* Only the kernel, when the result's type is known: out_type must be what
 * the op's relation gives for the arguments' types (e.g. the call's own
 * checked type when every argument keeps the type it had then). */
psg_status psgi_eval_op_kernel(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                               size_t nargs, const psg_type *out_type, psgi_value **out, char *msg,
                               size_t msglen);

/* A value for a Constant, or for a Tuple of constants (nested); NULL expr
 * kinds give PSG_ERR_INVALID_ARGUMENT. */
psg_status psgi_value_from_constant(psg_ctx *ctx, const psg_expr *e, psgi_value **out);
/* A Constant (tensor value) or a Tuple of constants (tuple value); closures
 * give PSG_ERR_UNSUPPORTED. `span` may be NULL. */
psg_status psgi_value_to_expr(psg_ctx *ctx, const psgi_value *v, const psg_span *span, psg_expr **out);

#endif
