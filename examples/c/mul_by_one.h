/* Passage example pass (see mul_by_one.c and docs/writing-a-pass.md). */
#ifndef EXAMPLE_MUL_BY_ONE_H
#define EXAMPLE_MUL_BY_ONE_H
#include "passage/passage.h"
/* Registers the function pass "SimplifyMulByOne" (opt level 1) in `ctx`. */
psg_status example_register_simplify_mul_by_one(psg_ctx *ctx);
#endif
