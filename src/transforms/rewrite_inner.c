/* Passage — the inner-node rewrite (rewrite_inner.h). */
#include "transforms/rewrite_inner.h"
#include "transforms/transforms.h"

typedef struct frame {
  const psg_expr *e;
  uint32_t next;
} frame;

/* e rebuilt over its children's rewrites (leaves stay), then the callback. */
static psg_status rewrite_node(psgi_rewriter *r, psgi_map *memo, const psg_expr *e, psg_expr **out) {
  enum { SMALL = 8 };
  psg_expr *small[SMALL], **kids = small;
  *out = NULL;
  if (e->nkids > SMALL && !(kids = psgi_alloc(r->ctx, (size_t)e->nkids * sizeof *kids))) return psgi_nomem(r->ctx);
  bool changed = false;
  for (uint32_t i = 0; i < e->nkids; i++) {
    psg_expr *k = e->kids[i];
    if (k->nkids || r->visit[k->kind]) k = psgi_map_get_ptr(memo, k)->value;
    kids[i] = k;
    changed |= k != e->kids[i];
  }
  psg_status st = PSG_OK;
  if (changed) {
    st = psgi_expr_rebuild(e, kids, out);
  } else {
    psg_expr_retain((psg_expr *)e);
    *out = (psg_expr *)e;
  }
  if (kids != small) psgi_free(r->ctx, kids);
  psgi_rewrite_fn fn = r->visit[e->kind];
  if (!st && fn) {
    st = fn(r, e, out);
    if (!st && !*out)
      st = psg_ctx_fail(r->ctx, PSG_ERR_INTERNAL, "a rewrite callback for %s returned no node", psgi_expr_kind_names[e->kind]);
  }
  if (st) {
    psg_expr_release(*out);
    *out = NULL;
  }
  return st;
}

psg_status psgi_rewrite_inner(psgi_rewriter *r, const psg_expr *root, psg_expr **out) {
  psg_ctx *ctx = r->ctx;
  *out = NULL;
  if (!root->nkids && !r->visit[root->kind]) {
    psg_expr_retain((psg_expr *)root);
    *out = (psg_expr *)root;
    return PSG_OK;
  }
  psgi_map memo; /* inner node -> its rewrite (a reference the memo holds) */
  psgi_map_init(&memo, ctx);
  PSGI_VEC(frame) stack = {0};
  frame f0 = {root, 0};
  psg_status st = PSGI_VEC_PUSH(ctx, &stack, f0) ? PSG_OK : psgi_nomem(ctx);
  while (!st && stack.len) {
    frame *f = &stack.data[stack.len - 1];
    if (f->next < f->e->nkids) {
      const psg_expr *k = f->e->kids[f->next++];
      /* A child still on the stack would be a cycle: a finished one is in the memo. */
      if ((!k->nkids && !r->visit[k->kind]) || psgi_map_get_ptr(&memo, k)) continue;
      frame fk = {k, 0}; /* a visited leaf is done on the next turn, as psg_mutate does it */
      if (!PSGI_VEC_PUSH(ctx, &stack, fk)) st = psgi_nomem(ctx);
      continue;
    }
    const psg_expr *e = f->e;
    stack.len--;
    psg_expr *res = NULL;
    if ((st = rewrite_node(r, &memo, e, &res)) != PSG_OK) break;
    psgi_map_entry *en = psgi_map_put_ptr(&memo, e, NULL);
    if (!en) {
      psg_expr_release(res);
      st = psgi_nomem(ctx);
      break;
    }
    en->value = res;
  }
  if (!st) {
    *out = psgi_map_get_ptr(&memo, root)->value;
    psg_expr_retain(*out);
  }
  for (size_t i = 0; i < memo.len; i++) psg_expr_release(memo.entries[i].value);
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&memo);
  return st;
}

psg_status psgi_rewrite_function_inner(psg_expr *func, const psg_module *mod, const psgi_rewrite_fn *visit, void *user,
                                       psg_expr **out) {
  *out = NULL;
  psg_status st = func->checked_type ? PSG_OK : psgi_infer_module_types(func->ctx, mod);
  if (st) return st;
  psgi_rewriter r = {func->ctx, {0}, user};
  for (int k = 0; k < PSG_EXPR_KIND_COUNT; k++) r.visit[k] = visit[k];
  return psgi_rewrite_inner(&r, func, out);
}
