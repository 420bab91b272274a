/* Passage — psg_eval: the interpreter (src/interp) under the limits of the
 * current PassContext (relay.interp.max_call_depth, passage.interp.max_bytes;
 * issue 14; passage.interp.max_steps for the PrimFuncs call_lowered runs). It lives here because the interpreter sits below the pass layer
 * and knows nothing of pass contexts. */
#include "interp/interp_internal.h"
#include "pass/pass_internal.h"

psg_status psg_eval(psg_ctx *ctx, const psg_module *mod, const char *name, psg_tensor *const *inputs,
                    size_t num_inputs, psg_tensor ***outputs, size_t *num_outputs) {
  *outputs = NULL;
  *num_outputs = 0;
  psg_pass_context *pc = psg_pass_context_current(ctx);
  if (!pc) return psgi_nomem(ctx);
  int64_t depth = psg_pass_context_config_int(pc, "relay.interp.max_call_depth");
  int64_t bytes = psg_pass_context_config_int(pc, "passage.interp.max_bytes");
  int64_t steps = psg_pass_context_config_int(pc, "passage.interp.max_steps");
  psgi_eval_limits limits = {depth > 0 ? (size_t)depth : 1, bytes > 0 ? (uint64_t)bytes : 0,
                             steps > 0 ? (uint64_t)steps : 1};
  return psgi_eval_limited(ctx, mod, name, inputs, num_inputs, &limits, outputs, num_outputs);
}
