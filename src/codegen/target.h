/* Passage — the compile Target in TVM's spirit: a kind ("c") and options
 * (`c -mcpu=native -num-threads=1 -vector-ext=1 -link-params=1`), parsed with
 * located errors and printed back in one canonical form (docs/compile.md). */
#ifndef PSG_CODEGEN_TARGET_H
#define PSG_CODEGEN_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include "passage/ctx.h"

typedef struct psgi_target {
  char mcpu[64];    /* -mcpu: the C compiler's -march value ("native" by default) */
  int num_threads;  /* -num-threads: > 1 compiles parallel loops with OpenMP */
  bool vector_ext;  /* -vector-ext: GCC/Clang vector extensions (else scalar loops) */
  bool link_params; /* -link-params: constants compiled in (0: in the side params file) */
} psgi_target;

/* Parses `text` (NULL or "" is "c"); on an error records a diagnostic located
 * at the offending column of the string ("target:1:COL") and returns
 * PSG_ERR_INVALID_ARGUMENT. */
psg_status psgi_target_parse(psg_ctx *ctx, const char *text, psgi_target *out);

/* The canonical string of `t` (every option, in a fixed order) into buf. */
void psgi_target_print(const psgi_target *t, char *buf, size_t size);

#endif
