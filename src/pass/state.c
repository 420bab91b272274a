/* Passage — the per-context state of the pass layer: config options
 * registered at run time, the pass registry and the list of each thread's
 * default PassContext. Made on first use, freed when the library context dies
 * (no process-wide mutable globals but thread_default.c's lock and key). */
#include "pass/pass_internal.h"

static void state_free(psg_ctx *ctx, void *p) {
  psgi_pass_state *st = p;
  if (!st) return;
  psgi_thread_defaults_drop(st);
  for (size_t i = 0; i < st->options.len; i++) {
    psgi_config_option *o = &st->options.data[i];
    psgi_free(ctx, o->key);
    psgi_free(ctx, o->help);
    psgi_attr_release_adopted(ctx, o->default_value);
  }
  PSGI_VEC_FREE(ctx, &st->options);
  for (size_t i = 0; i < PSGI_MAX_BUILTIN_OPTIONS; i++) psgi_attr_release_adopted(ctx, st->builtin_defaults[i]);
  for (size_t i = 0; i < st->passes.len; i++)
    if (st->passes.data[i].owned) psgi_registry_free_owned(ctx, st->passes.data[i].decl);
  PSGI_VEC_FREE(ctx, &st->passes);
  psgi_plugins_unload(ctx, st); /* after the registry: its declarations may live in a plugin */
  psgi_free(ctx, st);
}

psgi_pass_state *psgi_pass_state_locked(psg_ctx *ctx) {
  if (ctx->pass_state) return ctx->pass_state;
  psgi_pass_state *st = psgi_calloc(ctx, sizeof *st);
  if (!st) return NULL;
  ctx->pass_state = st;
  ctx->pass_state_free = state_free;
  return st;
}
