/* Passage — validate-each's private pieces (validate_each.c runs @main
 * around a pass, validate_compare.c compares what it gave). */
#ifndef PSG_VALIDATE_INTERNAL_H
#define PSG_VALIDATE_INTERNAL_H

#include "pass/pass_internal.h"

/* @main of one module run on the validation inputs: num_sets input sets of
 * num_params tensors each, and num_outputs tensors per set (the result
 * flattened as psg_eval does). A module that cannot be run (no Relay @main,
 * a parameter no input can be made for, the interpreter fails) is recorded
 * as not runnable: the passes after it are not validated until the run
 * ends (the reason was warned about once). */
struct psgi_validate_run {
  psg_module *mod; /* retained */
  bool runnable;
  size_t num_sets, num_params, num_outputs;
  psg_tensor **inputs;  /* num_sets * num_params, retained */
  psg_tensor **outputs; /* num_sets * num_outputs, retained */
};
typedef struct psgi_validate_run psgi_validate_run;

/* Whether `after` differs from `before` (the same inputs): a different
 * output count, dtype or shape, or an element beyond tolerance (floats:
 * |after - before| > rtol * max(|before|, 0.01); other dtypes: not equal).
 * Appends to `why` which output, on which input set, the largest error and
 * where, and the first differing element with both values. */
bool psgi_validate_outputs_differ(const psgi_validate_run *before, const psgi_validate_run *after, double rtol,
                                  bool reassociating, psgi_buf *why);

#endif
