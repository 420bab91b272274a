/* Passage — psg_tir_eval: the TIR interpreter (src/interp/tir_eval.c) under
 * the limits of the current PassContext (passage.interp.max_bytes,
 * passage.interp.max_steps). It lives here because the interpreter sits
 * below the pass layer and knows nothing of pass contexts. */
#include "interp/tir_eval_internal.h"
#include "pass/pass_internal.h"

psg_status psg_tir_eval(psg_ctx *ctx, const psg_tir_prim_func *func, psg_tensor *const *args, size_t nargs,
                        psg_tensor ***outputs) {
  *outputs = NULL;
  psg_pass_context *pc = psg_pass_context_current(ctx);
  if (!pc) return psgi_nomem(ctx);
  int64_t bytes = psg_pass_context_config_int(pc, "passage.interp.max_bytes");
  int64_t steps = psg_pass_context_config_int(pc, "passage.interp.max_steps");
  psgi_tir_eval_limits limits = {bytes > 0 ? (uint64_t)bytes : 0, steps > 0 ? (uint64_t)steps : 1};
  return psgi_tir_eval_limited(ctx, func, args, nargs, &limits, outputs);
}
