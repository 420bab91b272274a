/* Passage — what the standard passes (one file each in src/transforms/)
 * share. Each pass file ends with its declaration, psgi_pass_<name>
 * (include/passage/pass.h psg_pass_decl), listed in src/builtin/passes.def. */
#ifndef PSG_TRANSFORMS_H
#define PSG_TRANSFORMS_H

#include "pass/pass_internal.h"

/* Types every Relay function of `mod` in place (checked_type caches) and
 * reports type errors as diagnostics; used by InferType and the interpreter. */
psg_status psgi_infer_module_types(psg_ctx *ctx, const psg_module *mod);
/* Verify-each's checks of what pass `pass` changed turning `in` into `out`
 * (verify_module.c): PSG_ERR_PASS_FAILED with a located "after pass 'X': ..."
 * error on the first problem. */
psg_status psgi_verify_module(psg_ctx *ctx, const psg_module *in, const psg_module *out, const char *pass);

/* {"InferType", NULL}: TVM's `required` list of most standard passes, for
 * their declarations. */
extern const char *const psgi_required_infer_type[];

/* PSG_OK when `func` is typed. A pass that reads types declares
 * `needs = PSG_PROP_TYPED`, so the runner types the module before it; an
 * untyped function here means the establishing pass did not type it (a
 * replaced InferType), reported as an error of pass `pass`. */
psg_status psgi_check_typed(const psg_expr *func, const char *pass);

#endif
