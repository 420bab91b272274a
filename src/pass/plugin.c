/* Passage — pass plugins (include/passage/plugin.h, docs/pass-infra.md): a
 * shared library is opened, its one entry point psg_get_pass_plugin_info
 * looked up and its ABI version checked before anything of it is called;
 * its register callback then adds its passes to the context's registry. The
 * library stays open until the context dies (its passes are its code). */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#include <dlfcn.h>
#include "pass/pass_internal.h"

static void plugin_free(psg_ctx *ctx, psgi_plugin *pl) {
  if (pl->handle) dlclose(pl->handle);
  psgi_free(ctx, pl->name);
  psgi_free(ctx, pl->path);
}

void psgi_plugins_unload(psg_ctx *ctx, psgi_pass_state *st) {
  for (size_t i = st->plugins.len; i-- > 0;) plugin_free(ctx, &st->plugins.data[i]);
  PSGI_VEC_FREE(ctx, &st->plugins);
}

/* The entry point's info, checked; NULL with an error recorded. */
static const psg_pass_plugin_info *plugin_info(psg_ctx *ctx, void *handle, const char *path, psg_status *st) {
  dlerror();
  void *sym = dlsym(handle, "psg_get_pass_plugin_info");
  if (!sym) {
    *st = psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND,
                       "'%s' is not a Passage pass plugin: it exports no psg_get_pass_plugin_info (see "
                       "include/passage/plugin.h)",
                       path);
    return NULL;
  }
  psg_pass_plugin_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry); /* object pointer to function pointer, as POSIX allows */
  const psg_pass_plugin_info *info = entry();
  if (!info) {
    *st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "pass plugin '%s': psg_get_pass_plugin_info returned NULL", path);
    return NULL;
  }
  if (info->abi_version != PSG_PASS_PLUGIN_ABI_VERSION) {
    *st = psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED,
                       "pass plugin '%s' was built for plugin ABI version %u, but this Passage loads version %d: "
                       "rebuild the plugin against this Passage's headers",
                       path, (unsigned)info->abi_version, PSG_PASS_PLUGIN_ABI_VERSION);
    return NULL;
  }
  if (!info->register_passes) {
    *st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "pass plugin '%s' has no register_passes callback", path);
    return NULL;
  }
  return info;
}

/* A plugin links nothing: its psg_ calls bind to the Passage that loads it.
 * A host that opened libpassage with RTLD_LOCAL (Python's ctypes does) has
 * to make its symbols global first, or the plugin's would not resolve; a
 * second copy of the library must never be loaded. */
static void make_passage_global(void) {
  Dl_info self;
  void *fn;
  psg_status (*load)(psg_ctx *, const char *) = psg_pass_plugin_load;
  memcpy(&fn, &load, sizeof fn);
  if (!dladdr(fn, &self) || !self.dli_fname) return;
  void *h = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  if (h) dlclose(h); /* the promotion stays; the library stays loaded by its host */
}

psg_status psg_pass_plugin_load(psg_ctx *ctx, const char *path) {
  if (!path || !*path) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_pass_plugin_load: no path");
  make_passage_global();
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot load pass plugin '%s': %s", path, why ? why : "dlopen failed");
  }
  psg_status st = PSG_OK;
  const psg_pass_plugin_info *info = plugin_info(ctx, handle, path, &st);
  psgi_plugin pl = {handle, NULL, NULL};
  if (info) {
    pl.name = psgi_strdup(ctx, info->name ? info->name : path);
    pl.path = psgi_strdup(ctx, path);
    /* Recorded before registering: a declaration registered before a
     * later failure must not outlive the code it points into. */
    pthread_mutex_lock(&ctx->lock);
    psgi_pass_state *ps = psgi_pass_state_locked(ctx);
    bool kept = pl.name && pl.path && ps && PSGI_VEC_PUSH(ctx, &ps->plugins, pl);
    pthread_mutex_unlock(&ctx->lock);
    if (!kept) {
      plugin_free(ctx, &pl);
      return psgi_nomem(ctx);
    }
    size_t before = psg_ctx_diag_count(ctx);
    if ((st = info->register_passes(ctx)) != PSG_OK) {
      if (psg_ctx_diag_count(ctx) == before)
        psg_ctx_fail(ctx, st, "pass plugin '%s' failed to register its passes: %s", path, psg_status_str(st));
      else
        psgi_diag_note(ctx, "while loading pass plugin '%s'", path);
    }
    return st;
  }
  dlclose(handle);
  return st;
}

/* The name (or path) of plugin `i`: the strings never move, the vector may. */
static const char *plugin_string(psg_ctx *ctx, size_t i, bool path) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *ps = psgi_pass_state_locked(ctx);
  const char *s = ps && i < ps->plugins.len ? path ? ps->plugins.data[i].path : ps->plugins.data[i].name : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return s;
}

size_t psg_pass_plugin_count(psg_ctx *ctx) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *ps = psgi_pass_state_locked(ctx);
  size_t n = ps ? ps->plugins.len : 0;
  pthread_mutex_unlock(&ctx->lock);
  return n;
}

const char *psg_pass_plugin_name(psg_ctx *ctx, size_t i) { return plugin_string(ctx, i, false); }
const char *psg_pass_plugin_path(psg_ctx *ctx, size_t i) { return plugin_string(ctx, i, true); }
