/* Passage — the reference interpreter: evaluates a Relay function of a module
 * on tensors with the ops' reference kernels (FoldConstant and `passage run`
 * use it). Iterative: graphs and let chains of any depth. */
#ifndef PASSAGE_INTERP_H
#define PASSAGE_INTERP_H

#include "passage/module.h"

PSG_BEGIN_DECLS

/* Evaluates function `name` of `mod` on `inputs` (one tensor per parameter,
 * in order). The result is flattened into tensors: a tensor result gives one
 * output, a tuple result its fields in order (nested tuples depth-first).
 * *outputs is an array of *num_outputs new tensor references, allocated with
 * malloc (free it with psg_free after releasing the tensors). Errors:
 * PSG_ERR_INVALID_ARGUMENT (wrong input count, dtype or shape: the diagnostic
 * names the parameter), PSG_ERR_TYPE (the function does not type-check),
 * PSG_ERR_UNSUPPORTED (an op without a kernel, or a limit of the current
 * PassContext exceeded: relay.interp.max_call_depth function activations,
 * passage.interp.max_bytes bytes of op results; the diagnostic is located at
 * the call), and kernel failures. */
PSG_API psg_status psg_eval(psg_ctx *ctx, const psg_module *mod, const char *name,
                            psg_tensor *const *inputs, size_t num_inputs, psg_tensor ***outputs,
                            size_t *num_outputs);

PSG_END_DECLS
#endif
