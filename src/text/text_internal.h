/* Passage — internals shared by the Relay text parser and printer: the
 * metadata section and the spelling of scalar literals. */
#ifndef PSG_TEXT_INTERNAL_H
#define PSG_TEXT_INTERNAL_H

#include "ir/ir_internal.h"

/* The metadata section: tensors referenced as meta[relay.Constant][i]. */
typedef PSGI_VEC(psg_tensor *) psgi_tensor_vec;

/* Parses the JSON-like body after "#[metadata]" (text..end). Errors are
 * diagnostics at file:line:col, computed from `buf_start` (the start of the
 * whole file). Returns PSG_ERR_PARSE on malformed input. */
psg_status psgi_metadata_parse(psg_ctx *ctx, const char *file, const char *buf_start, const char *text,
                               const char *end, psgi_tensor_vec *out);
/* Appends the section for `tensors` (n may be 0: nothing is written). */
void psgi_metadata_print(psgi_buf *b, psg_tensor *const *tensors, size_t n);
/* psg_expr_print_text without the metadata section: the constants it
 * references as meta[relay.Constant][i], in index order, in *meta (an array
 * the caller frees with psgi_free; the tensors are borrowed from `e`). The
 * pass cache stores them apart from the text (src/pass/pass_cache.c). */
psg_status psgi_expr_print_text_meta(const psg_expr *e, char **out, size_t *len, psg_tensor ***meta, size_t *nmeta);
/* psg_expr_parse with `meta` as its metadata section. */
psg_status psgi_expr_parse_meta(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                psg_tensor *const *meta, size_t nmeta, psg_expr **out);

/* Reads the decimal integer [s, s + n) (an optional '-', then digits only;
 * the text need not be NUL-terminated). False if malformed or out of range. */
bool psgi_text_parse_i64(const char *s, size_t n, int64_t *out);

/* Scalar literal suffix of a dtype ("f", "f64", "i64", "" for int32...). */
const char *psgi_scalar_suffix(int dtype);
/* Appends the shortest decimal text of `v` that reads back as the same
 * double (or float when as_float); false for NaN and infinities. */
bool psgi_format_real(psgi_buf *b, double v, bool as_float);

/* The name the printed text of def `fn` gives `node`: its temp number ("3"
 * for "%3 = add(...)") or the let variable it is the value of ("x"), written
 * to name (len bytes). False when the text binds no name to it (the result of
 * a block, an atom) or when printing fails. For located error messages. */
bool psgi_print_binding_name(psg_ctx *ctx, const psg_expr *fn, const psg_expr *node, char *name, size_t len);

#endif
