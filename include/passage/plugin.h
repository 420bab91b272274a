/* Passage — pass plugins (LLVM's PassPlugin, docs/pass-infra.md): a shared
 * library built out of tree against these headers registers its passes
 * through ONE versioned entry point, and `passage opt --load-pass-plugin` or
 * psg_pass_plugin_load brings them into a context's registry. */
#ifndef PASSAGE_PLUGIN_H
#define PASSAGE_PLUGIN_H

#include "passage/pass.h"

PSG_BEGIN_DECLS

/* The plugin ABI this Passage loads. Raised whenever psg_pass_plugin_info
 * or what a plugin may rely on changes; a plugin built for another version
 * is refused with a clear error, never called. */
enum { PSG_PASS_PLUGIN_ABI_VERSION = 2 }; /* 2: psg_pass_decl.cacheable and .flags */

/* What a plugin's entry point returns (a pointer to static storage of the
 * plugin). `abi_version` comes first and stays first in every version, so a
 * mismatch is read safely: set it to PSG_PASS_PLUGIN_ABI_VERSION as seen
 * when the plugin was compiled. `register_passes` registers the plugin's
 * passes in `ctx` (psg_pass_register_decl / psg_pass_register; declarations
 * must live as long as the plugin's code, e.g. static) and returns PSG_OK or
 * an error recorded on `ctx`. */
typedef struct psg_pass_plugin_info {
  uint32_t abi_version;
  const char *name;    /* e.g. "example-plugin" */
  const char *version; /* the plugin's own version, free text */
  psg_status (*register_passes)(psg_ctx *ctx);
} psg_pass_plugin_info;

/* The one symbol a plugin exports, with C linkage and default visibility:
 *   const psg_pass_plugin_info *psg_get_pass_plugin_info(void);  */
typedef const psg_pass_plugin_info *(*psg_pass_plugin_entry_fn)(void);

/* Loads the shared library at `path` (dlopen: a name without '/' is searched
 * on the library path), checks its entry point and ABI version and calls its
 * register callback on `ctx`. The library stays loaded until `ctx` dies, as
 * its passes call into it. Loading the same file twice in one context
 * registers its passes again (a later registration of a name wins).
 * Errors, with the path in the message: PSG_ERR_IO (dlopen failed: dlerror's
 * reason), PSG_ERR_NOT_FOUND (no psg_get_pass_plugin_info symbol),
 * PSG_ERR_UNSUPPORTED (ABI version mismatch), PSG_ERR_INVALID_ARGUMENT (NULL
 * info or register callback), or the register callback's own status; on
 * any error the library is unloaded again. */
PSG_API psg_status psg_pass_plugin_load(psg_ctx *ctx, const char *path);
/* Plugins loaded in `ctx` so far, in order; name and path of plugin `i`
 * (borrowed, valid while ctx lives; NULL when out of range). */
PSG_API size_t psg_pass_plugin_count(psg_ctx *ctx);
PSG_API const char *psg_pass_plugin_name(psg_ctx *ctx, size_t i);
PSG_API const char *psg_pass_plugin_path(psg_ctx *ctx, size_t i);

PSG_END_DECLS
#endif
