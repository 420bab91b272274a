/* Passage — the rows of the ops the host registers at run time
 * (include/passage/op_register.h): a table in the context, numbered after
 * the static op table, so that an Op node of such an op is an index like any
 * other and names, prints and compares as the built-in ones do. What the op
 * does (its type relation, fusion pattern) is src/ops/op_register.c's, kept
 * in the row's `ext`.
 *
 * Rows are never removed (TVM cannot unregister an op either): a row, once
 * published, stays valid as long as the context, so readers index the table
 * without the lock (acquire loads pair with the release stores below). */
#include <string.h>
#include "ir/op_table.h"
#include "support/ctx_internal.h"

typedef struct row {
  psgi_op_info info; /* name and doc interned in the context */
  void *ext;         /* src/ops' behaviour, made on first use */
  void (*ext_free)(psg_ctx *ctx, void *ext);
} row;

typedef struct table {
  size_t len; /* written under ctx->lock */
  row *rows[PSGI_OP_CUSTOM_MAX];
} table;

static const psgi_op_attr no_attrs[] = {{NULL, 0}};

static void table_free(psg_ctx *ctx, void *p) {
  table *t = p;
  for (size_t i = 0; t && i < t->len; i++) {
    row *r = t->rows[i];
    if (r->ext_free) r->ext_free(ctx, r->ext);
    psgi_free(ctx, r);
  }
  psgi_free(ctx, t);
}

static table *table_of(psg_ctx *ctx) { return ctx ? __atomic_load_n((table **)&ctx->custom_ops, __ATOMIC_ACQUIRE) : NULL; }

static row *row_of(psg_ctx *ctx, size_t op) {
  table *t = table_of(ctx);
  if (!t || op < psgi_op_table_len || op - psgi_op_table_len >= PSGI_OP_CUSTOM_MAX) return NULL;
  return __atomic_load_n(&t->rows[op - psgi_op_table_len], __ATOMIC_ACQUIRE);
}

/* Position of name[0..len) among the registered ops or -1 (rows are only
 * appended, so a scan without the lock sees a prefix of the table). */
static ptrdiff_t custom_find(psg_ctx *ctx, const char *name, size_t len) {
  table *t = table_of(ctx);
  for (size_t i = 0; t && i < PSGI_OP_CUSTOM_MAX; i++) {
    row *r = __atomic_load_n(&t->rows[i], __ATOMIC_ACQUIRE);
    if (!r) break;
    if (strlen(r->info.name) == len && memcmp(r->info.name, name, len) == 0) return (ptrdiff_t)i;
  }
  return -1;
}

ptrdiff_t psgi_op_lookup_in(psg_ctx *ctx, const char *name, size_t len) {
  ptrdiff_t i = psgi_op_lookup(name, len);
  if (i >= 0) return i;
  i = custom_find(ctx, name, len);
  return i < 0 ? -1 : (ptrdiff_t)psgi_op_table_len + i;
}

psg_status psgi_op_custom_add(psg_ctx *ctx, const char *name, const char *doc, size_t *index) {
  size_t len = strlen(name);
  const char *iname = psgi_intern(ctx, name, len), *idoc = psgi_intern(ctx, doc ? doc : "", doc ? strlen(doc) : 0);
  row *r = iname && idoc ? psgi_calloc(ctx, sizeof *r) : NULL;
  if (!r) return psgi_nomem(ctx);
  r->info = (psgi_op_info){iname, no_attrs, 0, 0, -1, idoc};
  psg_status st = PSG_OK;
  bool locked = !psgi_single_threaded();
  if (locked) pthread_mutex_lock(&ctx->lock);
  table *t = ctx->custom_ops;
  if (!t && (t = psgi_calloc(ctx, sizeof *t))) {
    ctx->custom_ops_free = table_free;
    __atomic_store_n((table **)&ctx->custom_ops, t, __ATOMIC_RELEASE);
  }
  if (!t)
    st = PSG_ERR_NOMEM;
  else if (psgi_op_lookup(name, len) >= 0 || custom_find(ctx, name, len) >= 0)
    st = PSG_ERR_INVALID_ARGUMENT;
  else if (t->len == PSGI_OP_CUSTOM_MAX)
    st = PSG_ERR_UNSUPPORTED;
  else {
    *index = psgi_op_table_len + t->len;
    __atomic_store_n(&t->rows[t->len++], r, __ATOMIC_RELEASE);
  }
  if (locked) pthread_mutex_unlock(&ctx->lock);
  if (!st) return PSG_OK;
  psgi_free(ctx, r);
  if (st == PSG_ERR_NOMEM) return psgi_nomem(ctx);
  if (st == PSG_ERR_UNSUPPORTED)
    return psg_ctx_fail(ctx, st, "cannot register op '%s': a context holds at most %d registered ops", name,
                        PSGI_OP_CUSTOM_MAX);
  return psg_ctx_fail(ctx, st, "Operator %s is registered before", name);
}

const psgi_op_info *psgi_op_info_in(psg_ctx *ctx, size_t op) {
  if (op < psgi_op_table_len) return &psgi_op_table[op];
  row *r = row_of(ctx, op);
  return r ? &r->info : NULL;
}

const char *psgi_op_name_in(psg_ctx *ctx, size_t op) {
  const psgi_op_info *info = psgi_op_info_in(ctx, op);
  return info ? info->name : "?";
}

void *psgi_op_custom_ext(psg_ctx *ctx, size_t op, size_t make_size, void (*ext_free)(psg_ctx *ctx, void *ext)) {
  row *r = row_of(ctx, op);
  if (!r) return NULL;
  void *ext = __atomic_load_n(&r->ext, __ATOMIC_ACQUIRE);
  if (ext || !make_size) return ext;
  void *fresh = psgi_calloc(ctx, make_size);
  if (!fresh) return NULL;
  bool locked = !psgi_single_threaded();
  if (locked) pthread_mutex_lock(&ctx->lock);
  if (!(ext = r->ext)) {
    r->ext_free = ext_free;
    __atomic_store_n(&r->ext, fresh, __ATOMIC_RELEASE);
    ext = fresh, fresh = NULL;
  }
  if (locked) pthread_mutex_unlock(&ctx->lock);
  psgi_free(ctx, fresh);
  return ext;
}
