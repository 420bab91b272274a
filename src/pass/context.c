/* Passage — PassContext (tvm-behavior §1.3, §2.4–§2.5, §3.3–§3.5): TVM's
 * defaults, a per-thread stack of entered contexts with a per-thread default
 * context, scopes that nest and replace (no merging), and instrument
 * overriding. */
#include <stdlib.h>
#include "pass/pass_internal.h"

/* This thread's stack of entered contexts (from any library context). The
 * array is malloc'd and freed when the stack empties, so an exiting thread
 * leaves nothing behind. */
static _Thread_local struct {
  psg_pass_context **items;
  size_t len, cap;
} stack;

psg_status psgi_pass_context_init(psg_ctx *ctx, psg_pass_context *pc) {
  pc->refcount = 1;
  pc->ctx = ctx;
  pc->opt_level = 2;
  if (pthread_mutex_init(&pc->lock, NULL) != 0) return PSG_ERR_INTERNAL;
  return PSG_OK;
}

psg_status psg_pass_context_create(psg_ctx *ctx, psg_pass_context **out) {
  *out = NULL;
  psg_pass_context *pc = psgi_calloc(ctx, sizeof *pc);
  if (!pc) return psgi_nomem(ctx);
  if (psgi_pass_context_init(ctx, pc) != PSG_OK) {
    psgi_free(ctx, pc);
    return psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "cannot initialize a mutex");
  }
  psgi_ctx_object_born(ctx);
  *out = pc;
  return PSG_OK;
}

void psg_pass_context_retain(psg_pass_context *pc) {
  if (pc && !pc->owned_by_ctx) psgi_ref_inc(&pc->refcount);
}

/* Also frees a thread's default context (thread_default.c), which holds no
 * reference to its library context. */
void psgi_pass_context_free(psg_pass_context *pc) {
  psg_ctx *ctx = pc->ctx;
  for (size_t i = 0; i < pc->instruments.len; i++) psg_instrument_release(pc->instruments.data[i]);
  PSGI_VEC_FREE(ctx, &pc->instruments);
  psgi_str_vec_free(ctx, &pc->required_pass);
  psgi_str_vec_free(ctx, &pc->disabled_pass);
  psg_attrs_release(pc->config);
  pthread_mutex_destroy(&pc->lock);
  psgi_free(ctx, pc);
}

void psg_pass_context_release(psg_pass_context *pc) {
  if (!pc || pc->owned_by_ctx || !psgi_ref_dec(&pc->refcount)) return;
  psg_ctx *ctx = pc->ctx;
  psgi_pass_context_free(pc);
  psgi_ctx_object_died(ctx);
}

psg_ctx *psg_pass_context_get_ctx(const psg_pass_context *pc) { return pc->ctx; }

psg_status psg_pass_context_set_opt_level(psg_pass_context *pc, int opt_level) {
  if (opt_level < 0) return psg_ctx_fail(pc->ctx, PSG_ERR_INVALID_ARGUMENT, "opt_level must be >= 0, got %d", opt_level);
  pc->opt_level = opt_level;
  return PSG_OK;
}

int psg_pass_context_opt_level(const psg_pass_context *pc) { return pc->opt_level; }

static psg_status add_name(psg_pass_context *pc, psgi_str_vec *v, const char *name) {
  if (!name || !*name) return psg_ctx_fail(pc->ctx, PSG_ERR_INVALID_ARGUMENT, "a pass name must not be empty");
  if (psgi_str_vec_has(v, name)) return PSG_OK;
  char *copy = psgi_strdup(pc->ctx, name);
  if (!copy || !PSGI_VEC_PUSH(pc->ctx, v, copy)) {
    psgi_free(pc->ctx, copy);
    return psgi_nomem(pc->ctx);
  }
  return PSG_OK;
}

psg_status psg_pass_context_add_required_pass(psg_pass_context *pc, const char *name) {
  return add_name(pc, &pc->required_pass, name);
}
psg_status psg_pass_context_add_disabled_pass(psg_pass_context *pc, const char *name) {
  return add_name(pc, &pc->disabled_pass, name);
}
size_t psg_pass_context_num_required(const psg_pass_context *pc) { return pc->required_pass.len; }
const char *psg_pass_context_required(const psg_pass_context *pc, size_t i) {
  return i < pc->required_pass.len ? pc->required_pass.data[i] : NULL;
}
size_t psg_pass_context_num_disabled(const psg_pass_context *pc) { return pc->disabled_pass.len; }
const char *psg_pass_context_disabled(const psg_pass_context *pc, size_t i) {
  return i < pc->disabled_pass.len ? pc->disabled_pass.data[i] : NULL;
}

bool psg_pass_context_pass_enabled(const psg_pass_context *pc, const psg_pass_info *info) {
  if (psgi_str_vec_has(&pc->disabled_pass, info->name)) return false;
  if (psgi_str_vec_has(&pc->required_pass, info->name)) return true;
  return pc->opt_level >= info->opt_level;
}

psg_status psg_pass_context_add_instrument(psg_pass_context *pc, psg_instrument *inst) {
  if (!inst) return psg_ctx_fail(pc->ctx, PSG_ERR_INVALID_ARGUMENT, "NULL instrument");
  pthread_mutex_lock(&pc->lock);
  bool ok = PSGI_VEC_PUSH(pc->ctx, &pc->instruments, inst);
  pthread_mutex_unlock(&pc->lock);
  if (!ok) return psgi_nomem(pc->ctx);
  psg_instrument_retain(inst);
  return PSG_OK;
}

size_t psg_pass_context_num_instruments(const psg_pass_context *pc) { return pc->instruments.len; }
psg_instrument *psg_pass_context_get_instrument(const psg_pass_context *pc, size_t i) {
  return i < pc->instruments.len ? pc->instruments.data[i] : NULL;
}

psg_status psg_pass_context_override_instruments(psg_pass_context *pc, psg_instrument *const *insts,
                                                 size_t n) {
  /* Everything that can fail before the old instruments are exited is
   * checked first, so a bad list leaves the old ones installed and entered
   * (not exited, so never exited twice). Then §3.5: exit the old ones (a
   * failing exit clears the list and leaves the new one uninstalled), install,
   * enter the new ones (a failing enter clears the list, §3.3). */
  for (size_t i = 0; i < n; i++)
    if (!insts[i]) return psg_ctx_fail(pc->ctx, PSG_ERR_INVALID_ARGUMENT, "NULL instrument at index %zu", i);
  psg_instrument **fresh = n ? psgi_alloc(pc->ctx, n * sizeof *fresh) : NULL;
  if (n && !fresh) return psgi_nomem(pc->ctx);
  psg_status st = psgi_instruments_exit(pc);
  if (st) {
    psgi_free(pc->ctx, fresh);
    return st;
  }
  for (size_t i = 0; i < n; i++) {
    fresh[i] = insts[i];
    psg_instrument_retain(insts[i]);
  }
  pthread_mutex_lock(&pc->lock);
  psg_instrument **old = pc->instruments.data;
  size_t old_n = pc->instruments.len;
  pc->instruments.data = fresh;
  pc->instruments.len = pc->instruments.cap = n;
  pthread_mutex_unlock(&pc->lock);
  for (size_t i = 0; i < old_n; i++) psg_instrument_release(old[i]);
  psgi_free(pc->ctx, old);
  return psgi_instruments_enter(pc);
}

/* Pushes `pc` on this thread's stack, without instruments: also how a
 * worker thread of a parallel pass body (parallel.c) sees as current the
 * context its caller saw. */
psg_status psgi_pass_context_push(psg_pass_context *pc) {
  if (stack.len == stack.cap) {
    size_t cap = stack.cap ? stack.cap * 2 : 8;
    psg_pass_context **items = realloc(stack.items, cap * sizeof *items);
    if (!items) return psgi_nomem(pc->ctx);
    stack.items = items;
    stack.cap = cap;
  }
  psg_pass_context_retain(pc);
  stack.items[stack.len++] = pc;
  return PSG_OK;
}

/* Pops the top of this thread's stack, which psgi_pass_context_push made
 * `pc`. */
void psgi_pass_context_pop(psg_pass_context *pc) {
  stack.len--;
  if (!stack.len) {
    free(stack.items);
    stack.items = NULL;
    stack.cap = 0;
  }
  psg_pass_context_release(pc);
}

psg_status psg_pass_context_enter(psg_pass_context *pc) {
  psg_status st = psgi_instruments_enter(pc);
  if (st) return st; /* not pushed: the context never became current */
  if ((st = psgi_pass_context_push(pc)) != PSG_OK) psgi_instruments_exit(pc);
  return st;
}

psg_status psg_pass_context_exit(psg_pass_context *pc) {
  if (!stack.len || stack.items[stack.len - 1] != pc)
    return psg_ctx_fail(pc->ctx, PSG_ERR_INVALID_ARGUMENT,
                        stack.len ? "pass context exited out of order: it is not the current context"
                                  : "pass context exited but no context was entered on this thread");
  stack.len--;
  if (!stack.len) {
    free(stack.items);
    stack.items = NULL;
    stack.cap = 0;
  }
  /* Popped first, then the exit instruments (§2.5). */
  psg_status st = psgi_instruments_exit(pc);
  psg_pass_context_release(pc);
  return st;
}

psg_pass_context *psg_pass_context_current(psg_ctx *ctx) {
  for (size_t i = stack.len; i-- > 0;)
    if (stack.items[i]->ctx == ctx) return stack.items[i];
  return psgi_thread_default_context(ctx);
}
