/* Passage — TVMScript, the text of TIR: the syntax TVM v0.19's `script()`
 * prints for PrimFuncs (spec/tir.md §4; the subset is in
 * docs/text-format.md, section "TIR: TVMScript").
 *
 * A script holds one or more named PrimFuncs: either standalone
 * `@T.prim_func` definitions or one `@I.ir_module class Module:` whose
 * methods are the functions. psg_tir_script keeps the names, the functions
 * (in order) and which of the two layouts the text used. */
#ifndef PASSAGE_TVMSCRIPT_H
#define PASSAGE_TVMSCRIPT_H

#include "passage/module.h"
#include "passage/tir.h"

PSG_BEGIN_DECLS

typedef struct psg_tir_script psg_tir_script;

/* An empty script; `is_module` selects the @I.ir_module layout. */
PSG_API psg_status psg_tir_script_create(psg_ctx *ctx, bool is_module, psg_tir_script **out);
/* Appends `func` (retained) under `name` (copied; unique within a script,
 * PSG_ERR_INVALID_ARGUMENT otherwise). */
PSG_API psg_status psg_tir_script_add(psg_tir_script *s, const char *name, psg_tir_prim_func *func);
PSG_API void psg_tir_script_release(psg_tir_script *s); /* NULL-safe */
PSG_API bool psg_tir_script_is_module(const psg_tir_script *s);
PSG_API size_t psg_tir_script_count(const psg_tir_script *s);
PSG_API const char *psg_tir_script_name(const psg_tir_script *s, size_t i);
PSG_API psg_tir_prim_func *psg_tir_script_get(const psg_tir_script *s, size_t i); /* borrowed */

/* The functions as an IRModule of PrimFunc entries (one GlobalVar per
 * name, in order), and back: a module whose entries are all PrimFuncs
 * becomes an @I.ir_module script; a Relay entry is PSG_ERR_UNSUPPORTED (a
 * module holding both kinds prints as Relay text, psg_module_print). */
PSG_API psg_status psg_tir_script_to_module(const psg_tir_script *s, psg_module **out);
PSG_API psg_status psg_tir_script_from_module(const psg_module *m, psg_tir_script **out);

/* Printing options (bit flags). */
enum { PSG_TIR_SCRIPT_DEFAULT = 0, PSG_TIR_SCRIPT_NO_HEADER = 1 /* no "# from tvm.script" lines */ };

/* Prints a script. *out is NUL-terminated (free with psg_free); *len may be
 * NULL. Iterative: any depth prints under a small stack. */
PSG_API psg_status psg_tir_script_print(const psg_tir_script *s, int flags, char **out, size_t *len);
/* Prints one PrimFunc as `def name`: `name` NULL means its global_symbol,
 * else "main". A function without global_symbol is @T.prim_func(private=True). */
PSG_API psg_status psg_tir_script_print_func(const psg_tir_prim_func *f, const char *name, int flags,
                                             char **out, size_t *len);

/* Parses `len` bytes of TVMScript. `filename` names the source in
 * diagnostics (NULL: "<input>"). On error returns PSG_ERR_PARSE with up to 20
 * "file:line:col: error: ..." diagnostics (source line and caret) on the
 * context, and *out stays NULL. Expressions nest at most 200 levels; blocks
 * nest without limit. */
PSG_API psg_status psg_tir_script_parse(psg_ctx *ctx, const char *text, size_t len,
                                        const char *filename, psg_tir_script **out);
/* True if the text, after blank lines, starts like TVMScript: a line
 * "# from tvm.script", "@T.prim_func" or "@I.ir_module". */
PSG_API bool psg_tir_script_detect(const char *text, size_t len);

PSG_END_DECLS
#endif
