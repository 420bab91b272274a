/* Passage — IRModule (tvm-behavior §1.1): an immutable map from GlobalVar to
 * function, in insertion order, looked up by name, plus module attributes.
 * Every update returns a new module; the input is never changed. A function is
 * any function-like expression (a Relay Function now; PrimFuncs later). */
#ifndef PASSAGE_MODULE_H
#define PASSAGE_MODULE_H

#include "passage/ir.h"

PSG_BEGIN_DECLS

typedef struct psg_module psg_module;

PSG_API psg_status psg_module_create(psg_ctx *ctx, psg_module **out);
PSG_API void psg_module_retain(psg_module *m);
PSG_API void psg_module_release(psg_module *m);
PSG_API psg_ctx *psg_module_get_ctx(const psg_module *m);

/* A new module with `func` under `gv` added last. Errors:
 * PSG_ERR_INVALID_ARGUMENT if the name is taken, `gv` is not a GlobalVar or
 * `func` not a Function, or the function has free variables (a diagnostic
 * names them: TVM's WarnIfMalformed). */
PSG_API psg_status psg_module_add(const psg_module *m, psg_expr *gv, psg_expr *func,
                                  psg_module **out);
/* Like add, but replaces the function of an existing name in place (keeping
 * its position and GlobalVar). */
PSG_API psg_status psg_module_update(const psg_module *m, psg_expr *gv, psg_expr *func,
                                     psg_module **out);
/* A new module without `name`; PSG_ERR_NOT_FOUND if absent. */
PSG_API psg_status psg_module_remove(const psg_module *m, const char *name, psg_module **out);
/* A new module with attrs replaced (may be NULL). */
PSG_API psg_status psg_module_with_attrs(const psg_module *m, psg_attrs *attrs,
                                         psg_module **out);

PSG_API size_t psg_module_num_functions(const psg_module *m);
PSG_API psg_expr *psg_module_get_global_var(const psg_module *m, size_t i);
PSG_API psg_expr *psg_module_get_function(const psg_module *m, size_t i);
/* Index of `name` or -1. */
PSG_API ptrdiff_t psg_module_find(const psg_module *m, const char *name);
/* The function named `name` (borrowed) or NULL. */
PSG_API psg_expr *psg_module_lookup(const psg_module *m, const char *name);
PSG_API psg_attrs *psg_module_get_attrs(const psg_module *m);

/* Structural equality of modules: the same names in the same order, with
 * structurally equal functions (GlobalVars match by name), and equal attrs. */
PSG_API bool psg_module_structural_equal(const psg_module *a, const psg_module *b, char **path);
/* The same with TVM's map_free_vars (psg_expr_structural_equal_ex). */
PSG_API bool psg_module_structural_equal_ex(const psg_module *a, const psg_module *b, bool map_free_vars,
                                            char **path);
PSG_API uint64_t psg_module_structural_hash(const psg_module *m);

PSG_END_DECLS
#endif
