/* Passage — registration of the standard passes. The pass registry (src/pass)
 * calls psgi_register_standard_passes through a weak reference, so the pass
 * infrastructure does not depend on the passes built on top of it. */
#include "transforms/transforms.h"

psg_status psgi_register_simple(psg_ctx *ctx, const char *name, int kind, int opt_level,
                                const char *const *required, size_t num_required, const char *help,
                                psg_pass_ctor make) {
  return psg_pass_register(ctx, name, kind, opt_level, required, num_required, NULL, help, make, NULL);
}

psg_status psgi_register_standard_passes(psg_ctx *ctx) {
  psg_status st = psgi_register_infer_type(ctx);
  if (!st) st = psgi_register_fold_constant(ctx);
  return st;
}
