/* Passage — TVM's Relay text format (version 0.0.5): parser and printer.
 * Tensor constants are printed as meta[relay.Constant][N] and stored in a
 * trailing #[metadata] section; a PrimFunc of the module is a TVMScript
 * `@T.prim_func` block at top level (format: docs/text-format.md). */
#ifndef PASSAGE_TEXT_H
#define PASSAGE_TEXT_H

#include "passage/module.h"

PSG_BEGIN_DECLS

/* Parses `len` bytes of text. `filename` names the source in diagnostics
 * (may be NULL: "<input>"). On error returns PSG_ERR_PARSE with up to 20
 * "file:line:col: error: ..." diagnostics on the context (the parser
 * recovers at the next statement), and *out stays NULL. */
PSG_API psg_status psg_module_parse(psg_ctx *ctx, const char *text, size_t len,
                                    const char *filename, psg_module **out);
/* Reads and parses a file; PSG_ERR_IO if it cannot be read. */
PSG_API psg_status psg_module_parse_file(psg_ctx *ctx, const char *path, psg_module **out);

/* Printing options (bit flags). */
enum {
  PSG_PRINT_DEFAULT = 0,
  PSG_PRINT_NO_METADATA = 1,   /* print meta[...] references but no #[metadata] section */
  PSG_PRINT_CHECKED_TYPES = 2, /* TVM's astext: a "ty=T" comment after each node whose type is checked */
  PSG_PRINT_NO_HEADER = 4      /* psg_expr_print_text: no #[version] line (TVM's str()) */
};
/* Prints a module as text. *out is a NUL-terminated string, *len its length
 * (len may be NULL); free with psg_free. */
PSG_API psg_status psg_module_print(const psg_module *m, int flags, char **out, size_t *len);
/* Prints one expression (constants inline as meta references, no section). */
PSG_API psg_status psg_expr_print(const psg_expr *e, char **out, size_t *len);
/* Prints one expression as TVM's astext() does: the #[version] line, free
 * variables declared as "free_var %x: T;", no final newline, then the
 * #[metadata] section if constants need one (flags as above). It reads back
 * with psg_expr_parse. */
PSG_API psg_status psg_expr_print_text(const psg_expr *e, int flags, char **out, size_t *len);

/* Parses one expression as TVM's relay.parse_expr: an optional #[version]
 * line, a sequence (bindings, lets, free_var declarations, `e;`), and an
 * optional #[metadata] section. Global names (@f) stay unresolved. */
PSG_API psg_status psg_expr_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                  psg_expr **out);
/* psg_module_parse into a copy of `init` (NULL: none), TVM's parse(...,
 * init_module, init_meta_table): the text may call init's functions, and a
 * def of the same name replaces init's; `meta` (n) constants are appended to
 * the text's metadata section (indexes after its own). */
PSG_API psg_status psg_module_parse_in(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                       const psg_module *init, psg_tensor *const *meta, size_t nmeta,
                                       psg_module **out);

PSG_END_DECLS
#endif
