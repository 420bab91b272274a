/* Passage — the Relay side of TVM's LowerTE (src/relay/backend/te_compiler.cc):
 * every Primitive function of a module becomes a PrimFunc, added to the
 * module under a fresh GlobalVar named after its ops, and its calls become
 * `call_lowered(@prim, (args...), metadata={...})`, so the Relay `main`
 * stays the host graph (docs/lowering.md). How a Primitive function becomes
 * a PrimFunc is the caller's: a callback (the TE layer's
 * psg_te_lower_primitive in the pass; a hand-written one in tests). */
#ifndef PSG_LOWER_TE_H
#define PSG_LOWER_TE_H

#include "passage/module.h"
#include "passage/pass.h"
#include "passage/tir.h"

/* Lowers Primitive function `fn` (typed: InferType ran) to a PrimFunc whose
 * params are fn's flattened params then its flattened results, in TVM's
 * order; `name` is the GlobalVar it will be added under. *out is a new
 * reference. A failure returns its status (with a diagnostic). */
typedef psg_status (*psgi_lower_primitive_fn)(psg_ctx *ctx, const psg_expr *fn, const char *name, void *user,
                                              psg_tir_prim_func **out);

/* TVM's candidate name of Primitive function `fn`: "fused" then "_" and the
 * name of each op called in its body, in post order, each call once; over 80
 * characters it is cut at 80 and "_<hex of libstdc++'s std::hash>_" added.
 * A psgi_free-able string in *out. */
psg_status psgi_lower_te_candidate_name(psg_ctx *ctx, const psg_expr *fn, char **out);

/* libstdc++'s std::hash<std::string> on 64-bit targets (_Hash_bytes with its
 * seed 0xc70f6907), which TVM's name truncation prints. */
uint64_t psgi_lower_te_std_hash(const char *s, size_t len);

/* LowerTE over `mod`: InferType, then every Relay function not Primitive or
 * Extern is rewritten: a call of a Primitive function (inline, let-bound,
 * or a global one by its GlobalVar) becomes call_lowered of its PrimFunc
 * (the let binding of a Primitive function is dropped); a call of an Extern
 * global becomes call_lowered of that global. Each
 * distinct Primitive function (structural equality) is lowered once by
 * `lower`, named by GlobalVarSupply's rules: `module_name` (NULL or "" for
 * none) + "_" + the candidate name, '.' as '_', made unique against the
 * module's names and earlier ones with "_1", "_2", ... The PrimFuncs are
 * added after the module's functions, in lowering order, with their
 * global_symbol set to their name; then InferType.
 *
 * Errors: the callback's status, with a diagnostic naming the function
 * ("LowerTE: lowering @name failed"); PSG_ERR_UNSUPPORTED for a Primitive
 * function with a "Compiler" attribute (external codegen); InferType's. On
 * failure *out is NULL and `mod` is unchanged (modules are immutable). */
psg_status psgi_lower_te(psg_ctx *ctx, const psg_module *mod, const char *module_name, psgi_lower_primitive_fn lower,
                         void *user, psg_module **out);

/* psgi_lower_te, with `threads` (a PassContext, or NULL): the lowerings run
 * on its threads (parallel_calls.h; `lower` must be thread-safe),
 * with the serial run's output and diagnostics. */
psg_status psgi_lower_te_on(psg_ctx *ctx, const psg_module *mod, const char *module_name,
                            psgi_lower_primitive_fn lower, void *user, psg_pass_context *threads,
                            psg_module **out);

#endif
