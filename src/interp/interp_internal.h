/* Passage — internal entry points of the interpreter shared with
 * FoldConstant: evaluate one op call on values, and convert between
 * constants and values. */
#ifndef PSG_INTERP_INTERNAL_H
#define PSG_INTERP_INTERNAL_H

#include "ops/op_impl.h"
#include "passage/tir.h"

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

/* What an evaluation may still allocate: `limit` bytes in all, `used` so
 * far; `key` names the config option that set the limit (for messages). */
typedef struct psgi_eval_budget {
  uint64_t limit, used;
  const char *key;
} psgi_eval_budget;

/* Takes the bytes of a value of type t from b: false, with the reason in
 * msg (the type, its size and what is left), when they do not fit. A type
 * with an unknown dim (a result sized by the values, e.g. arange) takes
 * nothing here: the kernel refuses a result larger than what is left
 * before allocating it (psgi_eval_op_kernel_within), and
 * psgi_eval_budget_take_value then takes the bytes of the value it made. */
bool psgi_eval_budget_take(psgi_eval_budget *b, const psg_type *t, char *msg, size_t msglen);
bool psgi_eval_budget_take_value(psg_ctx *ctx, psgi_eval_budget *b, const psg_type *t, const psgi_value *v,
                                  char *msg, size_t msglen);

/* psgi_eval_op_typed within `budget` (NULL: none): a result whose size, from
 * its type, exceeds what is left is refused before the kernel allocates
 * (PSG_ERR_UNSUPPORTED, msg gives the op's result type and the sizes);
 * otherwise the size is added to budget->used. */
psg_status psgi_eval_op_within(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                               const psg_type *const *arg_types, size_t nargs, psgi_eval_budget *budget,
                               psgi_value **out, char *msg, size_t msglen);

/* Bytes of a value of type t: a tensor's, or a tuple's fields' summed;
 * UINT64_MAX when a dim is unknown, the type is not of tensors, or the size
 * does not fit in 64 bits. */
uint64_t psgi_type_nbytes(const psg_type *t);

/* The limits of one evaluation: at most max_depth function activations (the
 * entry function's included; 0 counts as 1) and max_bytes bytes of op
 * results in all. */
typedef struct psgi_eval_limits {
  size_t max_depth;
  uint64_t max_bytes;
  uint64_t max_tir_steps; /* passage.interp.max_steps: loop iterations of each call_lowered's PrimFunc */
} psgi_eval_limits;

/* psg_eval under `limits` (psg_eval itself, in src/pass/eval_limits.c, reads
 * them from the current PassContext). Over a limit: PSG_ERR_UNSUPPORTED with
 * a diagnostic at the call, naming the config option. */
psg_status psgi_eval_limited(psg_ctx *ctx, const psg_module *mod, const char *name, psg_tensor *const *inputs,
                             size_t num_inputs, const psgi_eval_limits *limits, psg_tensor ***outputs,
                             size_t *num_outputs);

/* Only the kernel, when the result's type is known: out_type must be what
 * the op's relation gives for the arguments' types (e.g. the call's own
 * checked type when every argument keeps the type it had then). */
psg_status psgi_eval_op_kernel(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                               size_t nargs, const psg_type *out_type, psgi_value **out, char *msg,
                               size_t msglen);

/* psgi_eval_op_kernel whose result allocation must fit in what is left of
 * `budget` (NULL: no limit). A static out_type is the caller's to take from
 * the budget; a result sized by the values (an unknown dim in out_type, e.g.
 * arange) is refused in the kernel, before it allocates (PSG_ERR_UNSUPPORTED,
 * msg gives the size and the option). The budget is not changed. */
psg_status psgi_eval_op_kernel_within(psg_ctx *ctx, size_t op, const psg_attrs *attrs, psgi_value *const *args,
                                      size_t nargs, const psg_type *out_type, const psgi_eval_budget *budget,
                                      psgi_value **out, char *msg, size_t msglen);

/* A value for a Constant, or for a Tuple of constants (nested); NULL expr
 * kinds give PSG_ERR_INVALID_ARGUMENT. */
psg_status psgi_value_from_constant(psg_ctx *ctx, const psg_expr *e, psgi_value **out);
/* A Constant (tensor value) or a Tuple of constants (tuple value); closures
 * give PSG_ERR_UNSUPPORTED. `span` may be NULL. */
psg_status psgi_value_to_expr(psg_ctx *ctx, const psgi_value *v, const psg_span *span, psg_expr **out);

/* The Relay type of PrimFunc f as call_lowered sees it: a FuncType with one
 * tensor type per param (a buffer's shape and dtype; a scalar param: rank 0),
 * returning the empty tuple. PSG_ERR_UNSUPPORTED, reason in msg, for a dtype
 * no Relay tensor has (handle, vectors). */
psg_status psgi_prim_func_type(psg_ctx *ctx, const psg_tir_prim_func *f, const psg_type **out, char *msg,
                               size_t msglen);

/* Runs call_lowered `call` (a Call of the op whose kids[1] is the GlobalVar)
 * on `args`, the value of its argument tuple: the module's PrimFunc in the
 * TIR interpreter (src/interp/eval_lowered.c) with at most `max_steps` loop
 * iterations and, for its Allocates, what is left of `budget`. Outputs are
 * taken from `budget`. On failure the reason is in msg. */
psg_status psgi_eval_call_lowered(psg_ctx *ctx, const psg_module *mod, const psg_expr *call, psgi_value *args,
                                  psgi_eval_budget *budget, uint64_t max_steps, psgi_value **out, char *msg,
                                  size_t msglen);

#endif
