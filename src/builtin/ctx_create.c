/* Passage — the public psg_ctx_create (include/passage/ctx.h): the layer
 * above src/pass and src/transforms that knows both. It makes the library
 * context (src/support) and installs the built-in pass table, so every
 * context has its passes (and verify-each its verifier) from the start and no lower layer calls up. */
#include "pass/pass_internal.h"
#include "transforms/transforms.h"

#define PASS(sym) extern const psg_pass_decl psgi_pass_##sym;
#include "builtin/passes.def"
#undef PASS

static const psg_pass_decl *const builtin_passes[] = {
#define PASS(sym) &psgi_pass_##sym,
#include "builtin/passes.def"
#undef PASS
};

psg_status psg_ctx_create(const psg_allocator *alloc, psg_ctx **out) {
  psg_status st = psgi_ctx_create(alloc, out);
  if (st) return st;
  st = psgi_pass_install_builtins(*out, builtin_passes, sizeof builtin_passes / sizeof *builtin_passes);
  if (!st) st = psgi_pass_install_verifier(*out, psgi_verify_module);
  if (st) {
    psg_ctx_release(*out);
    *out = NULL;
  }
  return st;
}
