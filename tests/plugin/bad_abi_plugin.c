/* A test-only pass plugin built for a plugin ABI version this Passage does
 * not load: psg_pass_plugin_load must refuse it without calling it. */
#include "passage/passage.h"

static psg_status register_passes(psg_ctx *ctx) {
  return psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "bad_abi_plugin: register_passes must never be called");
}

static const psg_pass_plugin_info info = {
    .abi_version = 999, /* no Passage loads this version */
    .name = "bad-abi",
    .version = "1",
    .register_passes = register_passes,
};

__attribute__((visibility("default"))) const psg_pass_plugin_info *psg_get_pass_plugin_info(void) { return &info; }
