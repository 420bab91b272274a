/* Passage — copies of a subtree with one var replaced (copy_template.h).
 *
 * tir.UnrollLoop makes `extent` copies of a loop body, each with the loop
 * var bound to another value. What a copy rebuilds is the same every time:
 * the nodes that hold the var, on the paths from the body to its uses. So
 * those nodes are found once, children before parents, with where each of
 * their operands comes from; a copy then rebuilds them in that order with
 * no walk, lookup or memo, sharing every other subtree. The result is the
 * substitution's (psgi_tir_substitute: a node rebuilt when an operand
 * changed, through psgi_tir_rebuild, once however often it is shared).
 * Iterative. */
#include "tir/transforms/copy_template.h"

void psgi_tir_copy_template_fini(psgi_tir_copy_template *t) {
  PSGI_VEC_FREE(t->ctx, &t->holders);
  PSGI_VEC_FREE(t->ctx, &t->first_link);
  PSGI_VEC_FREE(t->ctx, &t->links);
}

/* holder index + 1 of n in `index`, 0 when n holds no var use */
static size_t holder_of(const psgi_map *index, const psg_tir_node *n) {
  psgi_map_entry *e = n->nkids ? psgi_map_get_ptr(index, n) : NULL;
  return e ? (size_t)(uintptr_t)e->value : 0;
}

psg_status psgi_tir_copy_template_init(psg_ctx *ctx, const psg_tir_node *root, const psg_tir_node *var,
                                       psgi_tir_copy_template *t) {
  typedef struct {
    const psg_tir_node *n;
    uint32_t next;
    bool uses;
  } fr;
  *t = (psgi_tir_copy_template){.ctx = ctx, .root = root, .var = var};
  psgi_map index; /* node (with operands) -> holder index + 1, or 0: reached, holds none */
  psgi_map_init(&index, ctx);
  PSGI_VEC(fr) st = {0};
  psg_status rc = PSG_OK;
  if (root != var && root->nkids && !PSGI_VEC_PUSH(ctx, &st, ((fr){root, 0, false}))) rc = psgi_nomem(ctx);
  while (!rc && st.len) {
    fr *f = &st.data[st.len - 1];
    if (f->next < f->n->nkids) {
      const psg_tir_node *k = f->n->kids[f->next++];
      if (k == var) {
        f->uses = true;
      } else if (k->nkids) {
        psgi_map_entry *e = psgi_map_get_ptr(&index, k);
        if (e) f->uses |= e->value != NULL;
        else if (!PSGI_VEC_PUSH(ctx, &st, ((fr){k, 0, false}))) rc = psgi_nomem(ctx);
      }
      continue;
    }
    fr done = *f;
    st.len--;
    psgi_map_entry *e = psgi_map_put_ptr(&index, done.n, NULL);
    if (!e) {
      rc = psgi_nomem(ctx);
      break;
    }
    if (done.uses) {
      if (!PSGI_VEC_PUSH(ctx, &t->holders, done.n)) rc = psgi_nomem(ctx);
      e->value = (void *)(uintptr_t)t->holders.len;
      if (done.n->nkids > t->max_kids) t->max_kids = done.n->nkids;
    }
    if (st.len) st.data[st.len - 1].uses |= done.uses;
  }
  PSGI_VEC_FREE(ctx, &st);
  for (size_t i = 0; !rc && i < t->holders.len; i++) {
    const psg_tir_node *h = t->holders.data[i];
    if (!PSGI_VEC_PUSH(ctx, &t->first_link, t->links.len)) rc = psgi_nomem(ctx);
    for (uint32_t k = 0; !rc && k < h->nkids; k++) {
      size_t hi = h->kids[k] == var ? 0 : holder_of(&index, h->kids[k]);
      size_t link = h->kids[k] == var ? PSGI_COPY_VAR : hi ? hi - 1 : PSGI_COPY_KEEP;
      if (!PSGI_VEC_PUSH(ctx, &t->links, link)) rc = psgi_nomem(ctx);
    }
  }
  psgi_map_fini(&index);
  if (rc) psgi_tir_copy_template_fini(t);
  return rc;
}

psg_status psgi_tir_copy_template_apply(const psgi_tir_copy_template *t, psg_tir_node *value, psg_tir_node **out) {
  psg_ctx *ctx = t->ctx;
  *out = NULL;
  if (t->root == t->var || !t->holders.len) {
    psg_tir_retain(*out = t->root == t->var ? value : (psg_tir_node *)t->root);
    return PSG_OK;
  }
  size_t n = t->holders.len;
  psg_tir_node **made = psgi_calloc(ctx, psgi_mul_size(n, sizeof *made));
  psg_tir_node **kids = psgi_alloc(ctx, psgi_mul_size(t->max_kids ? t->max_kids : 1, sizeof *kids));
  psg_status st = made && kids ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; !st && i < n; i++) {
    const psg_tir_node *h = t->holders.data[i];
    const size_t *link = t->links.data + t->first_link.data[i];
    for (uint32_t k = 0; k < h->nkids; k++)
      kids[k] = link[k] == PSGI_COPY_KEEP ? h->kids[k] : link[k] == PSGI_COPY_VAR ? value : made[link[k]];
    st = psgi_tir_rebuild(h, kids, &made[i]);
  }
  if (!st) psg_tir_retain(*out = made[n - 1]); /* the root: the last holder */
  for (size_t i = 0; made && i < n; i++) psg_tir_release(made[i]);
  psgi_free(ctx, made);
  psgi_free(ctx, kids);
  return st;
}
