/* Passage — the inner-node rewrite (rewrite_inner.h). */
#include "transforms/rewrite_inner.h"
#include "transforms/transforms.h"

/* A node's memo entry is reserved when the walk first reaches it (value
 * NULL until it is rewritten; the map never removes entries, so indices stay
 * valid), and the rewrite of every finished child goes on a stack: a node's
 * children are the top nkids of it when it is rewritten, so each edge costs
 * one map operation at most. A node with a single reference (its parent's:
 * nothing else holds it) is reached once, so it needs no memo entry at all:
 * its rewrite goes on the stack as a reference of its own, released once the
 * parent is rebuilt over it. Most nodes of a dataflow graph have one user. */
typedef struct frame {
  const psg_expr *e;
  uint32_t next;
  uint32_t slot; /* e's memo entry, or ONCE */
} frame;

enum { ONCE = UINT32_MAX }; /* a frame of a node reached once: not in the memo */

/* A finished child on the stack: its rewrite, borrowed (a leaf, its own
 * rewrite; or a memo entry's value), or tagged OWNED: a reference of the
 * stack's own (a node reached once). Nodes are at least 8-byte aligned. */
typedef uintptr_t done_kid;
#define OWNED ((done_kid)1)
static psg_expr *kid_of(done_kid d) { return (psg_expr *)(d & ~OWNED); }

/* PSGI_VEC_PUSH without the call while there is room. */
#define PUSH(ctx, v, x) ((v)->len < (v)->cap ? ((v)->data[(v)->len++] = (x), true) : PSGI_VEC_PUSH(ctx, v, x))

/* e rebuilt over its children's rewrites `done` (leaves stay), then the
 * callback; or the node the reuse hook gives for it. */
static psg_status rewrite_node(psgi_rewriter *r, const psg_expr *e, const done_kid *done, psg_expr **out) {
  enum { SMALL = 8 };
  psg_expr *small[SMALL], **kids = small;
  *out = NULL;
  if (e->nkids > SMALL && !(kids = psgi_alloc(r->ctx, (size_t)e->nkids * sizeof *kids))) return psgi_nomem(r->ctx);
  bool changed = false;
  for (uint32_t i = 0; i < e->nkids; i++) {
    psg_expr *k = kid_of(done[i]);
    kids[i] = k;
    changed |= k != e->kids[i];
  }
  psg_status st = PSG_OK;
  bool taken = false; /* the reuse gave a node: e's rewrite as it is */
  if (changed && r->reuse) {
    st = r->reuse(r, e, kids, out);
    taken = !st && *out;
  }
  if (!st && !taken && changed) {
    st = psgi_expr_rebuild(e, kids, out);
  } else if (!st && !taken) {
    psg_expr_retain((psg_expr *)e);
    *out = (psg_expr *)e;
  }
  if (kids != small) psgi_free(r->ctx, kids);
  psgi_rewrite_fn fn = taken ? NULL : r->visit[e->kind];
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

static void release_owned(const done_kid *d, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (d[i] & OWNED) psg_expr_release(kid_of(d[i]));
}

psg_status psgi_rewrite_inner(psgi_rewriter *r, const psg_expr *root, psg_expr **out) {
  psg_ctx *ctx = r->ctx;
  *out = NULL;
  if ((!root->nkids && !r->visit[root->kind]) || psgi_is_composite_fn(root)) {
    psg_expr_retain((psg_expr *)root);
    *out = (psg_expr *)root;
    return PSG_OK;
  }
  psgi_map memo; /* inner node reached more than once -> its rewrite (a reference the memo holds) */
  psgi_map_init(&memo, ctx);
  PSGI_VEC(frame) stack = {0};
  PSGI_VEC(done_kid) done = {0}; /* the rewrites of the finished children of the frames */
  psg_status st = PSG_OK;
  bool is_new;
  size_t once = 0; /* inner nodes met that are not in the memo */
  /* Sized by the last walk's count (a hint: on failure the map grows as it
   * goes), of which only the nodes reached more than once take an entry: a
   * quarter, for a graph of mostly single users (a slot table sized for all
   * would be zeroed for nothing). */
  psgi_map_reserve(&memo, psgi_expr_size_hint(root) / 4);
  psgi_map_entry *en = psgi_map_put_ptr(&memo, root, NULL);
  frame f0 = {root, 0, 0};
  if (!en || !PSGI_VEC_PUSH(ctx, &stack, f0)) st = psgi_nomem(ctx);
  while (!st && stack.len) {
    frame *f = &stack.data[stack.len - 1];
    if (f->next < f->e->nkids) {
      const psg_expr *k = f->e->kids[f->next++];
      /* A Composite function is kept as it is, like a leaf (ir_internal.h). */
      if (!(k->nkids || r->visit[k->kind]) || (k->kind == PSG_EXPR_FUNCTION && psgi_is_composite_fn(k))) {
        if (!PUSH(ctx, &done, (done_kid)k)) st = psgi_nomem(ctx);
        continue;
      }
      if (psgi_expr_held_once(k)) {
        once++;
        frame fk = {k, 0, ONCE};
        if (!PUSH(ctx, &stack, fk)) st = psgi_nomem(ctx);
        continue;
      }
      if (!(en = psgi_map_put_ptr(&memo, k, &is_new))) {
        st = psgi_nomem(ctx);
        break;
      }
      /* A child still on the stack would be a cycle: a known one is finished. */
      if (is_new) {
        frame fk = {k, 0, (uint32_t)(en - memo.entries)}; /* a visited leaf is done on the next turn, as psg_mutate does it */
        if (!PUSH(ctx, &stack, fk)) st = psgi_nomem(ctx);
        continue;
      }
      if (!PUSH(ctx, &done, (done_kid)en->value)) st = psgi_nomem(ctx);
      continue;
    }
    const psg_expr *e = f->e;
    uint32_t slot = f->slot;
    stack.len--;
    done.len -= e->nkids;
    psg_expr *res = NULL;
    st = rewrite_node(r, e, done.data + done.len, &res);
    release_owned(done.data + done.len, e->nkids); /* the rebuild holds what it keeps */
    if (st) break;
    if (slot == ONCE) {
      if (!PUSH(ctx, &done, (done_kid)res | OWNED)) {
        psg_expr_release(res);
        st = psgi_nomem(ctx);
      }
      continue;
    }
    memo.entries[slot].value = res;
    if (stack.len && !PUSH(ctx, &done, (done_kid)res)) st = psgi_nomem(ctx);
  }
  if (!st) {
    *out = memo.entries[0].value;
    psg_expr_retain(*out);
    psgi_expr_note_size(root, memo.len + once); /* sizes the next walk (psg_mutate's note) */
    if (*out != root) psgi_expr_note_size(*out, memo.len + once);
  }
  release_owned(done.data, done.len); /* left by a failure */
  for (size_t i = 0; i < memo.len; i++) psg_expr_release(memo.entries[i].value);
  PSGI_VEC_FREE(ctx, &stack);
  PSGI_VEC_FREE(ctx, &done);
  psgi_map_fini(&memo);
  return st;
}

psg_status psgi_rewrite_function_inner(psg_expr *func, const psg_module *mod, const psgi_rewrite_fn *visit, void *user,
                                       psg_expr **out) {
  *out = NULL;
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  psg_status st = psgi_check_typed(func, "the pass");
  if (st) return st;
  psgi_rewriter r = {func->ctx, {0}, user, NULL};
  for (int k = 0; k < PSG_EXPR_KIND_COUNT; k++) r.visit[k] = visit[k];
  return psgi_rewrite_inner(&r, func, out);
}
