/* Passage — the library context: allocator hook, diagnostics, interned
 * strings and types, live-object accounting (STYLE rules 5 and 6).
 *
 * A context is reference counted: every object made in it holds a reference,
 * so objects and the context may be released in any order (SQLite's zombie
 * close). A context may be shared by threads: interning and the diagnostic
 * list are guarded by a mutex, reference counts are atomic. */
#ifndef PASSAGE_CTX_H
#define PASSAGE_CTX_H

#include "passage/status.h"

PSG_BEGIN_DECLS

typedef struct psg_ctx psg_ctx;
typedef struct psg_diag psg_diag;

/* One allocation hook for everything, in the style of lua_Alloc:
 *   realloc(user, NULL, 0, n)  allocates n bytes (NULL on failure);
 *   realloc(user, p, old, n)   resizes (NULL on failure, p untouched);
 *   realloc(user, p, old, 0)   frees p and returns NULL.
 * Returned memory must be aligned for any object (16 bytes on x86-64). */
typedef struct psg_allocator {
  void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
  void *user;
} psg_allocator;

/* Creates a context. `alloc` may be NULL for the C library's allocator; the
 * struct is copied. *out is NULL on entry and stays NULL on failure.
 * Returns PSG_OK or PSG_ERR_NOMEM. */
PSG_API psg_status psg_ctx_create(const psg_allocator *alloc, psg_ctx **out);
PSG_API void psg_ctx_retain(psg_ctx *ctx);
/* Drops the caller's reference; the context is destroyed once no object made
 * in it is alive either. NULL-safe. */
PSG_API void psg_ctx_release(psg_ctx *ctx);

/* Number of live reference-counted objects (expressions, tensors, attributes,
 * modules) made in this context. Tests assert it returns to its start value. */
PSG_API int64_t psg_ctx_live_objects(const psg_ctx *ctx);
/* True once an allocation has failed in this context (sticky). */
PSG_API bool psg_ctx_is_oom(const psg_ctx *ctx);
/* n uninitialized bytes from the context's allocator (the hook given to
 * psg_ctx_create, or the default one), 16-byte aligned; NULL (and the OOM
 * flag) on failure. For frontends staging input, such as a model file's
 * bytes: with the default allocator, memory freed here is reused by what the
 * passes allocate next. Free with psg_ctx_free (NULL is ignored). */
PSG_API void *psg_ctx_malloc(psg_ctx *ctx, size_t n);
PSG_API void psg_ctx_free(psg_ctx *ctx, void *p);

/* Diagnostics ---------------------------------------------------------- */

enum { PSG_SEVERITY_ERROR = 0, PSG_SEVERITY_WARNING = 1, PSG_SEVERITY_NOTE = 2 };

/* Records an error diagnostic with no source location and returns `code`:
 * the way a C callback (a pass, an instrument) reports failure (rule 7). */
PSG_API psg_status psg_ctx_fail(psg_ctx *ctx, psg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Streams every new diagnostic to `sink` as it is recorded (the CLI prints,
 * Python collects). The diagnostic is borrowed for the call. NULL removes. */
typedef void (*psg_diag_sink)(void *user, const psg_diag *diag);
PSG_API void psg_ctx_set_diag_sink(psg_ctx *ctx, psg_diag_sink sink, void *user);

/* The diagnostics recorded since the last clear, oldest first. Borrowed:
 * valid until psg_ctx_clear_diags or the context's destruction. */
PSG_API size_t psg_ctx_diag_count(const psg_ctx *ctx);
PSG_API const psg_diag *psg_ctx_get_diag(const psg_ctx *ctx, size_t index);
/* The newest error diagnostic, or NULL. Borrowed as above. */
PSG_API const psg_diag *psg_ctx_get_last_error(const psg_ctx *ctx);
PSG_API void psg_ctx_clear_diags(psg_ctx *ctx);

PSG_API int psg_diag_severity(const psg_diag *d);
PSG_API psg_status psg_diag_code(const psg_diag *d);
PSG_API const char *psg_diag_message(const psg_diag *d);
/* Source location; file is NULL and line/col 0 when there is none. */
PSG_API const char *psg_diag_file(const psg_diag *d);
PSG_API int psg_diag_line(const psg_diag *d);
PSG_API int psg_diag_col(const psg_diag *d);
/* Name of the pass that was running, or NULL. */
PSG_API const char *psg_diag_pass(const psg_diag *d);
/* The whole diagnostic as a user sees it:
 *   "file:line:col: error: message\n  <source line>\n  ^\n" plus notes. */
PSG_API const char *psg_diag_rendered(const psg_diag *d);

PSG_END_DECLS
#endif
