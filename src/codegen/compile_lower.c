/* Passage — the front half of `passage compile`: the pipeline `passage opt
 * -O<n> --lower` runs, sequential(O<n>,lower), as one library call (so the
 * CLI, Python and tests lower a model the same way). */
#include <stdio.h>
#include "passage/compile.h"

psg_status psg_compile_lower(psg_module *mod, psg_pass_context *pc, psg_module **out) {
  *out = NULL;
  char text[48];
  snprintf(text, sizeof text, "sequential(O%d,lower)", psg_pass_context_opt_level(pc));
  psg_pass *pipeline = NULL;
  psg_status st = psg_pipeline_parse(psg_module_get_ctx(mod), text, &pipeline);
  if (!st) st = psg_pass_run(pipeline, mod, pc, out);
  psg_pass_release(pipeline);
  return st;
}
