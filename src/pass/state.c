/* Passage — the per-context state of the pass layer: config options, the
 * pass registry and each thread's default PassContext. Made on first use,
 * freed when the library context dies (no process-wide mutable globals). */
#include "pass/pass_internal.h"

static void free_context_now(psg_pass_context *pc);

static void state_free(psg_ctx *ctx, void *p) {
  psgi_pass_state *st = p;
  if (!st) return;
  for (size_t i = 0; i < st->defaults.len; i++) free_context_now(st->defaults.data[i].pc);
  PSGI_VEC_FREE(ctx, &st->defaults);
  for (size_t i = 0; i < st->options.len; i++) {
    psgi_config_option *o = &st->options.data[i];
    psgi_free(ctx, o->key);
    psgi_free(ctx, o->help);
    psgi_attr_release_adopted(ctx, o->default_value);
  }
  PSGI_VEC_FREE(ctx, &st->options);
  for (size_t i = 0; i < st->passes.len; i++)
    if (st->passes.data[i].owned) psgi_registry_free_owned(ctx, st->passes.data[i].decl);
  PSGI_VEC_FREE(ctx, &st->passes);
  psgi_free(ctx, st);
}

/* A thread default context is owned by the library context: it holds no
 * reference to it and is freed here. Its instruments and config values are
 * ordinary objects and are released normally. */
static void free_context_now(psg_pass_context *pc) {
  psg_ctx *ctx = pc->ctx;
  for (size_t i = 0; i < pc->instruments.len; i++) psg_instrument_release(pc->instruments.data[i]);
  PSGI_VEC_FREE(ctx, &pc->instruments);
  psgi_str_vec_free(ctx, &pc->required_pass);
  psgi_str_vec_free(ctx, &pc->disabled_pass);
  psg_attrs_release(pc->config);
  pthread_mutex_destroy(&pc->lock);
  psgi_free(ctx, pc);
}

psgi_pass_state *psgi_pass_state_locked(psg_ctx *ctx) {
  if (ctx->pass_state) return ctx->pass_state;
  psgi_pass_state *st = psgi_calloc(ctx, sizeof *st);
  if (!st) return NULL;
  ctx->pass_state = st;
  ctx->pass_state_free = state_free;
  if (psgi_register_builtin_options(ctx, st) != PSG_OK) return NULL;
  return st;
}
