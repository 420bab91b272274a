/* Passage — op attributes set at run time (include/passage/op_attr.h; TVM's
 * OpRegEntry::set_attr with its priority levels and Op::reset_attr): a small
 * table of (op, attribute name) -> hook in the library context. Each hook is
 * reference counted: the table holds one reference, a pass calling it holds
 * another, so reset during a call frees it only when the call is over. */
#include "ops/op_attr.h"
#include "ir/op_table.h"
#include "support/ctx_internal.h"

struct psgi_op_hook {
  uint32_t refcount; /* under ctx->lock */
  uint32_t op;
  const char *key; /* interned */
  int level;
  psg_op_hook_fn fn;
  void *user;
  void (*free_user)(void *user);
};

typedef struct table {
  PSGI_VEC(psgi_op_hook *) hooks;
} table;

static void hook_free(psgi_op_hook *h, psg_ctx *ctx) {
  if (h->free_user) {
    bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
    h->free_user(h->user);
    psgi_exclusive_end(was);
  }
  psgi_free(ctx, h);
}

static void table_free(psg_ctx *ctx, void *p) {
  table *t = p;
  if (!t) return;
  for (size_t i = 0; i < t->hooks.len; i++) hook_free(t->hooks.data[i], ctx);
  PSGI_VEC_FREE(ctx, &t->hooks);
  psgi_free(ctx, t);
}

/* The table, made on first use (under ctx->lock). */
static table *table_locked(psg_ctx *ctx) {
  if (ctx->op_attr_state) return ctx->op_attr_state;
  table *t = psgi_calloc(ctx, sizeof *t);
  if (!t) return NULL;
  ctx->op_attr_state = t;
  ctx->op_attr_state_free = table_free;
  return t;
}

/* Position of (op, key) in the table or -1 (under ctx->lock). */
static ptrdiff_t find_locked(const table *t, size_t op, const char *key) {
  for (size_t i = 0; t && i < t->hooks.len; i++)
    if (t->hooks.data[i]->op == op && t->hooks.data[i]->key == key) return (ptrdiff_t)i;
  return -1;
}

/* Drops one reference; the hook to free when it was the last (the caller
 * frees it after unlocking, since free_user may call back into us). */
static psgi_op_hook *unref_locked(psgi_op_hook *h) { return --h->refcount == 0 ? h : NULL; }

static psg_status op_and_key(psg_ctx *ctx, const char *op, const char *key, size_t *index, const char **ikey) {
  if (!ctx || !op || !key) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "op attribute: NULL argument");
  ptrdiff_t i = psgi_op_lookup_in(ctx, op, strlen(op));
  if (i < 0) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "op attribute %s: unknown op '%s'", key, op);
  *index = (size_t)i;
  *ikey = psgi_intern(ctx, key, strlen(key));
  return *ikey ? PSG_OK : psgi_nomem(ctx);
}

psg_status psg_op_attr_set(psg_ctx *ctx, const char *op, const char *key, psg_op_hook_fn fn, void *user,
                           void (*free_user)(void *user), int plevel) {
  size_t index = 0;
  const char *ikey = NULL;
  psg_status st = fn ? op_and_key(ctx, op, key, &index, &ikey)
                     : psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "op attribute: NULL hook");
  psgi_op_hook *h = st ? NULL : psgi_calloc(ctx, sizeof *h);
  if (!st && !h) st = psgi_nomem(ctx);
  if (st) {
    if (free_user) {
      bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
      free_user(user);
      psgi_exclusive_end(was);
    }
    return st;
  }
  *h = (psgi_op_hook){.refcount = 1, .op = (uint32_t)index, .key = ikey, .level = plevel, .fn = fn,
                      .user = user, .free_user = free_user};
  psgi_op_hook *drop = NULL;
  int old_level = 0;
  pthread_mutex_lock(&ctx->lock);
  table *t = table_locked(ctx);
  ptrdiff_t at = find_locked(t, index, ikey);
  if (!t) {
    st = PSG_ERR_NOMEM;
    drop = h;
  } else if (at < 0) {
    if (!PSGI_VEC_PUSH(ctx, &t->hooks, h)) st = PSG_ERR_NOMEM, drop = h;
  } else if (t->hooks.data[at]->level == plevel) {
    st = PSG_ERR_INVALID_ARGUMENT, old_level = plevel, drop = h;
  } else if (t->hooks.data[at]->level > plevel) {
    drop = h; /* TVM keeps the value of the higher level */
  } else {
    drop = unref_locked(t->hooks.data[at]);
    t->hooks.data[at] = h;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (drop) hook_free(drop, ctx);
  if (st == PSG_ERR_NOMEM) return psgi_nomem(ctx);
  if (st)
    return psg_ctx_fail(ctx, st, "Attribute %s of %s is already registered with same plevel=%d", key, op, old_level);
  return PSG_OK;
}

psg_status psg_op_attr_reset(psg_ctx *ctx, const char *op, const char *key) {
  size_t index = 0;
  const char *ikey = NULL;
  psg_status st = op_and_key(ctx, op, key, &index, &ikey);
  if (st) return st;
  psgi_op_hook *drop = NULL;
  pthread_mutex_lock(&ctx->lock);
  table *t = ctx->op_attr_state;
  ptrdiff_t at = find_locked(t, index, ikey);
  if (at >= 0) {
    drop = unref_locked(t->hooks.data[at]);
    t->hooks.data[at] = t->hooks.data[--t->hooks.len]; /* order carries no meaning */
  }
  pthread_mutex_unlock(&ctx->lock);
  if (drop) hook_free(drop, ctx);
  return PSG_OK;
}

bool psg_op_attr_get(psg_ctx *ctx, const char *op, const char *key, void **user_out, int *level_out) {
  ptrdiff_t index = ctx && op && key ? psgi_op_lookup_in(ctx, op, strlen(op)) : -1;
  const char *ikey = index >= 0 ? psgi_intern(ctx, key, strlen(key)) : NULL;
  if (!ikey) return false;
  pthread_mutex_lock(&ctx->lock);
  const table *t = ctx->op_attr_state;
  ptrdiff_t at = find_locked(t, (size_t)index, ikey);
  if (at >= 0 && user_out) *user_out = t->hooks.data[at]->user;
  if (at >= 0 && level_out) *level_out = t->hooks.data[at]->level;
  pthread_mutex_unlock(&ctx->lock);
  return at >= 0;
}

bool psgi_op_hooks_any(psg_ctx *ctx, const char *key) {
  const char *ikey = psgi_intern(ctx, key, strlen(key));
  bool any = false;
  pthread_mutex_lock(&ctx->lock);
  const table *t = ctx->op_attr_state;
  for (size_t i = 0; ikey && t && i < t->hooks.len && !any; i++) any = t->hooks.data[i]->key == ikey;
  pthread_mutex_unlock(&ctx->lock);
  return any;
}

psgi_op_hook *psgi_op_hook_acquire(psg_ctx *ctx, size_t op, const char *key) {
  const char *ikey = psgi_intern(ctx, key, strlen(key));
  psgi_op_hook *h = NULL;
  pthread_mutex_lock(&ctx->lock);
  const table *t = ctx->op_attr_state;
  ptrdiff_t at = ikey ? find_locked(t, op, ikey) : -1;
  if (at >= 0) (h = t->hooks.data[at])->refcount++;
  pthread_mutex_unlock(&ctx->lock);
  return h;
}

void psgi_op_hook_release(psg_ctx *ctx, psgi_op_hook *h) {
  if (!h) return;
  pthread_mutex_lock(&ctx->lock);
  psgi_op_hook *drop = unref_locked(h);
  pthread_mutex_unlock(&ctx->lock);
  if (drop) hook_free(drop, ctx);
}

psg_status psgi_op_hook_call(psg_ctx *ctx, psgi_op_hook *h, const psg_attrs *attrs, psg_expr *const *args,
                             size_t nargs, const psg_type *const *types, size_t ntypes, const char *const *layouts,
                             size_t nlayouts, psg_expr **out) {
  *out = NULL;
  bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
  psg_status st = h->fn(ctx, attrs, args, nargs, types, ntypes, layouts, nlayouts, h->user, out);
  psgi_exclusive_end(was);
  if (st) {
    if (*out) psg_expr_release(*out);
    *out = NULL;
    return psg_ctx_fail(ctx, st, "%s of op '%s' failed", h->key, psgi_op_name_in(ctx, h->op));
  }
  return PSG_OK;
}
