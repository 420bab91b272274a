/* A generator of random well-typed Relay programs for fuzz_interp.c (issue
 * 14): the fuzzer's bytes choose functions, ops, shapes, dtypes and
 * attributes; the generator tracks the type of every value it binds so each
 * call it writes type-checks. Output is Relay text (docs/text-format.md).
 * Test code: plain libc allocation. */
#ifndef PASSAGE_FUZZ_INTERP_GEN_H
#define PASSAGE_FUZZ_INTERP_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { GEN_MAX_RANK = 4, GEN_MAX_PARAMS = 4 };

/* A tensor type the generator knows: dtype index into gen_dtypes, dims
 * (-1: unknown, from a value-dependent op such as arange). */
typedef struct gen_type {
  int dt;
  int nd;
  int64_t d[GEN_MAX_RANK];
} gen_type;

typedef struct gen_dtype {
  const char *name;   /* "float32" */
  const char *suffix; /* literal suffix: "f", "f64", "", "i64" ... */
  int cls;            /* GEN_FLOAT, GEN_INT, GEN_UINT, GEN_BOOL */
  int bytes;
} gen_dtype;

enum { GEN_FLOAT = 1, GEN_INT = 2, GEN_UINT = 3, GEN_BOOL = 4 };
extern const gen_dtype gen_dtypes[];
extern const int gen_num_dtypes;

/* The program made from data[0..size): Relay text (malloc'd, NUL-ended) and
 * the types of @main's parameters (in main_params, at most GEN_MAX_PARAMS).
 * *compare_mask bit i is set when output i of @main may be compared
 * bit-for-bit (ints) or with a tolerance (floats) before and after
 * optimisation: clear for outputs that depend on a float turned discrete
 * (a comparison, cast, floor...), where a rounding difference an algebraic
 * rewrite may make can flip the value. *norm_mask bit i is set when output
 * i depends on a normalisation op, whose reference kernel accumulates in
 * double while -O3 decomposes it into float32 ops (as TVM does): it is
 * compared only when the inputs hold no extreme values. *value_sized is
 * set when the program makes a value whose type has an unknown dim (arange).
 * Returns NULL on OOM. */
char *gen_program(const uint8_t *data, size_t size, gen_type *main_params, int *num_params,
                  uint32_t *compare_mask, uint32_t *norm_mask, bool *value_sized);

#endif
