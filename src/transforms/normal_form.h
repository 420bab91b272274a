/* Passage — the scope analysis and let-binding "fill" shared by
 * ToANormalForm and ToBasicBlockNormalForm (to_a_normal_form.c implements
 * it; tvm-behavior §7.1). */
#ifndef PSG_TRANSFORMS_NORMAL_FORM_H
#define PSG_TRANSFORMS_NORMAL_FORM_H

#include "transforms/fuse_graph.h" /* psgi_is_primitive_fn */
#include "transforms/transforms.h"

/* Runs the normal-form conversion on every Relay function of `mod` (those
 * marked Primitive or Compiler are copied unchanged). basic_block false:
 * A-normal form; true: basic block normal form. *out is `mod` itself (a new
 * reference) when no function changed. */
psg_status psgi_normal_form_module(psg_module *mod, bool basic_block, psg_module **out);

#endif
