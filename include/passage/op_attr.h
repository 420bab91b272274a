/* Passage — op attributes set by the host at run time (TVM's Op::set_attr /
 * tvm.ir.register_op_attr): a callback per op per attribute name, which the
 * passes that know the name consult (FTVMLegalize, FTVMAlterOpLayout,
 * FTVMConvertOpLayout). The table lives in the library context. */
#ifndef PASSAGE_OP_ATTR_H
#define PASSAGE_OP_ATTR_H

#include "passage/ir.h"

PSG_BEGIN_DECLS

/* An op hook: what the op's call becomes. It is given the call's attributes,
 * its (already rewritten) arguments, the checked types of the original
 * arguments followed by the type of the call itself, and, for
 * FTVMConvertOpLayout, the desired layouts of the op (none otherwise). It
 * sets *out to a new reference to the replacement expression, or leaves it
 * NULL for "no change" (TVM's None). A hook fails by recording an error on
 * ctx (psg_ctx_fail) and returning its status; the pass then fails naming
 * the op, and its input module stays as it was. Everything given is
 * borrowed for the duration of the call. */
typedef psg_status (*psg_op_hook_fn)(psg_ctx *ctx, const psg_attrs *attrs, psg_expr *const *args, size_t nargs,
                                     const psg_type *const *types, size_t ntypes, const char *const *layouts,
                                     size_t nlayouts, void *user, psg_expr **out);

/* Sets attribute `key` of op `op` to the hook (fn, user) at priority
 * `plevel`, with TVM's rule: a value already set with a higher level stays
 * (this one is dropped: free_user(user) runs at once), one with the same
 * level is an error (INVALID_ARGUMENT), a lower one is replaced. free_user
 * (may be NULL) runs when the hook leaves the table (reset, replacement,
 * context destruction) and no pass is still calling it. NOTFOUND-like
 * INVALID_ARGUMENT for an unknown op. */
PSG_API psg_status psg_op_attr_set(psg_ctx *ctx, const char *op, const char *key, psg_op_hook_fn fn, void *user,
                                   void (*free_user)(void *user), int plevel);
/* Removes attribute `key` of op `op` (nothing to do when it is not set). */
PSG_API psg_status psg_op_attr_reset(psg_ctx *ctx, const char *op, const char *key);
/* Whether attribute `key` of op `op` is set; if so and user_out is not
 * NULL, *user_out is its user pointer and *level_out (if not NULL) its level. */
PSG_API bool psg_op_attr_get(psg_ctx *ctx, const char *op, const char *key, void **user_out, int *level_out);

PSG_END_DECLS

#endif
