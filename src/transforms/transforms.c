/* Passage — helpers shared by the standard passes (transforms.h). The passes
 * themselves are declared at the end of their own files and listed in
 * src/builtin/passes.def. */
#include "transforms/transforms.h"

psg_status psgi_check_typed(const psg_expr *func, const char *pass) {
  if (func->checked_type) return PSG_OK;
  return psg_ctx_fail(func->ctx, PSG_ERR_TYPE, "%s needs a typed module: InferType left a function untyped", pass);
}

/* TVM's `required` list of most standard passes. */
const char *const psgi_required_infer_type[] = {"InferType", NULL};
