/* Passage — the passes' side of the op attribute table (include/passage/
 * op_attr.h): find the hook an op has under a name and call it. A hook found
 * is held (reference counted) until released, so a host may reset or replace
 * it while a pass is still calling it. */
#ifndef PSG_OPS_OP_ATTR_H
#define PSG_OPS_OP_ATTR_H

#include "passage/op_attr.h"
#include "support/support.h"

typedef struct psgi_op_hook psgi_op_hook;

/* Whether any op has attribute `key` (a cheap test before a walk). */
bool psgi_op_hooks_any(psg_ctx *ctx, const char *key);
/* The hook of op `op` (its index in the op table) under `key`, held; NULL
 * when it has none. */
psgi_op_hook *psgi_op_hook_acquire(psg_ctx *ctx, size_t op, const char *key);
void psgi_op_hook_release(psg_ctx *ctx, psgi_op_hook *h);
/* Calls the hook (see psg_op_hook_fn). On failure it adds an error naming
 * the attribute and the op after the hook's own. */
psg_status psgi_op_hook_call(psg_ctx *ctx, psgi_op_hook *h, const psg_attrs *attrs, psg_expr *const *args,
                             size_t nargs, const psg_type *const *types, size_t ntypes, const char *const *layouts,
                             size_t nlayouts, psg_expr **out);

#endif
