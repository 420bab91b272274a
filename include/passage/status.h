/* Passage — status codes returned by every fallible call (STYLE rule 6).
 * Details of a failure live in the context's diagnostic list (ctx.h). */
#ifndef PASSAGE_STATUS_H
#define PASSAGE_STATUS_H

#include "passage/defs.h"

PSG_BEGIN_DECLS

typedef int psg_status;

enum {
  PSG_OK = 0,
  PSG_ERR_PARSE = -1,            /* malformed text or binary input */
  PSG_ERR_TYPE = -2,             /* a type error in the IR */
  PSG_ERR_NOMEM = -3,            /* an allocation failed; the context's OOM flag is set */
  PSG_ERR_INVALID_ARGUMENT = -4, /* the caller passed something the API does not accept */
  PSG_ERR_PASS_FAILED = -5,      /* a pass reported failure */
  PSG_ERR_FRONTEND = -6,         /* a user callback (Python) raised; the frontend holds the error */
  PSG_ERR_IO = -7,               /* reading or writing a file failed */
  PSG_ERR_UNSUPPORTED = -8,      /* valid input that this version cannot handle */
  PSG_ERR_INTERNAL = -9,         /* a broken internal invariant (a bug in Passage) */
  PSG_ERR_NOT_FOUND = -10        /* a name lookup failed */
};

/* A short English name of a status code ("ok", "parse error", ...); works
 * without a context; never NULL. */
PSG_API const char *psg_status_str(psg_status code);

PSG_END_DECLS
#endif
