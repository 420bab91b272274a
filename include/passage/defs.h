/* Passage — shared definitions of the public C API: the export macro and the
 * version. Every public header includes this one first (STYLE rule 2). */
#ifndef PASSAGE_DEFS_H
#define PASSAGE_DEFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(PSG_BUILDING_LIBRARY)
#define PSG_API __attribute__((visibility("default")))
#else
#define PSG_API
#endif

#ifdef __cplusplus
#define PSG_BEGIN_DECLS extern "C" {
#define PSG_END_DECLS }
#else
#define PSG_BEGIN_DECLS
#define PSG_END_DECLS
#endif

PSG_BEGIN_DECLS

enum { PSG_VERSION_MAJOR = 0, PSG_VERSION_MINOR = 1, PSG_VERSION_PATCH = 0 };

/* The library version as "MAJOR.MINOR.PATCH"; static storage. */
PSG_API const char *psg_version(void);

/* Frees a string or buffer the library returned to the caller (printed text,
 * mismatch paths). NULL-safe. */
PSG_API void psg_free(void *p);

PSG_END_DECLS
#endif
