/* Passage — the walker engine (DESIGN.md "Visitors and mutators in C", STYLE
 * rules 9 and 10): a post-order visitor and a memoizing mutator with
 * functional update, both over an explicit stack so that graphs and let
 * chains of any depth never recurse on the C stack. */
#include "ir/ir_internal.h"

typedef struct frame {
  const psg_expr *node;
  uint32_t next; /* index of the next child to visit */
} frame;
typedef PSGI_VEC(frame) frame_vec;

/* Visitor ------------------------------------------------------------- */

psg_status psg_visit(psg_ctx *ctx, psg_visitor *v, const psg_expr *root) {
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  frame_vec stack = {0};
  psg_status st = PSG_OK;
  bool is_new;
  if (!psgi_map_put_ptr(&seen, root, &is_new)) goto nomem;
  int r = v->pre ? v->pre(v, root) : PSG_VISIT_CONTINUE;
  if (r == PSG_VISIT_ABORT) goto done;
  frame f0 = {root, r == PSG_VISIT_SKIP_CHILDREN ? root->nkids : 0};
  if (!PSGI_VEC_PUSH(ctx, &stack, f0)) goto nomem;
  while (stack.len) {
    frame *f = &stack.data[stack.len - 1];
    if (f->next < f->node->nkids) {
      const psg_expr *child = f->node->kids[f->next++];
      psgi_map_entry *e = psgi_map_put_ptr(&seen, child, &is_new);
      if (!e) goto nomem;
      if (!is_new) continue;
      r = v->pre ? v->pre(v, child) : PSG_VISIT_CONTINUE;
      if (r == PSG_VISIT_ABORT) goto done;
      frame fc = {child, r == PSG_VISIT_SKIP_CHILDREN ? child->nkids : 0};
      if (!PSGI_VEC_PUSH(ctx, &stack, fc)) goto nomem;
      continue;
    }
    const psg_expr *node = f->node;
    stack.len--;
    if (v->post && (st = v->post(v, node)) != PSG_OK) goto done;
  }
  goto done;
nomem:
  st = psgi_nomem(ctx);
done:
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  return st;
}

/* Mutator --------------------------------------------------------------- */

typedef struct mutator_state {
  psgi_map memo; /* node -> rewritten node (a reference held by the memo) */
} mutator_state;

void psg_mutator_init(psg_mutator *m, psg_ctx *ctx) {
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
}

static mutator_state *state(psg_mutator *m) {
  if (!m->state_) {
    mutator_state *s = psgi_calloc(m->ctx, sizeof *s);
    if (!s) return NULL;
    psgi_map_init(&s->memo, m->ctx);
    m->state_ = s;
  }
  return m->state_;
}

void psg_mutator_fini(psg_mutator *m) {
  mutator_state *s = m->state_;
  if (!s) return;
  for (size_t i = 0; i < s->memo.len; i++) psg_expr_release(s->memo.entries[i].value);
  psgi_map_fini(&s->memo);
  psgi_free(m->ctx, s);
  m->state_ = NULL;
}

psg_expr *psg_mutator_get_result(psg_mutator *m, const psg_expr *e) {
  mutator_state *s = m->state_;
  if (!s) return NULL;
  psgi_map_entry *en = psgi_map_get_ptr(&s->memo, e);
  return en ? en->value : NULL;
}

/* Stores `result` (a reference the memo takes over) as the rewrite of e. */
static psg_status memo_put(psg_mutator *m, const psg_expr *e, psg_expr *result) {
  mutator_state *s = state(m);
  psgi_map_entry *en = s ? psgi_map_put_ptr(&s->memo, e, NULL) : NULL;
  if (!en) {
    psg_expr_release(result);
    return psgi_nomem(m->ctx);
  }
  psg_expr_release(en->value); /* a replaced entry */
  en->value = result;
  return PSG_OK;
}

psg_status psg_mutator_set_result(psg_mutator *m, const psg_expr *e, psg_expr *result) {
  if (!e || !result) return PSG_ERR_INVALID_ARGUMENT;
  psg_expr_retain(result);
  return memo_put(m, e, result);
}

/* The rewrite of a node whose children are all in the memo. */
static psg_status rewrite_node(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_mutate_fn fn = m->visit[e->kind];
  *out = NULL;
  psg_status st = fn ? fn(m, e, out) : psg_mutator_default(m, e, out);
  if (!st && !*out) st = psg_ctx_fail(m->ctx, PSG_ERR_INTERNAL, "a mutator callback for %s returned no node",
                                       psgi_expr_kind_names[e->kind]);
  return st;
}

/* Runs `pre` on a node reached for the first time; true if it replaced it. */
static psg_status try_pre(psg_mutator *m, const psg_expr *e, bool *replaced) {
  *replaced = false;
  if (!m->pre) return PSG_OK;
  psg_expr *rep = NULL;
  psg_status st = m->pre(m, e, &rep);
  if (st) {
    psg_expr_release(rep);
    return st;
  }
  if (!rep) return PSG_OK;
  *replaced = true;
  return memo_put(m, e, rep);
}

psg_status psg_mutate(psg_mutator *m, const psg_expr *root, psg_expr **out) {
  *out = NULL;
  if (!root) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = m->ctx;
  if (!state(m)) return psgi_nomem(ctx);
  psg_expr *hit = psg_mutator_get_result(m, root);
  if (hit) {
    psg_expr_retain(hit);
    *out = hit;
    return PSG_OK;
  }
  frame_vec stack = {0};
  bool replaced;
  psg_status st = try_pre(m, root, &replaced);
  if (st || replaced) goto done;
  frame f0 = {root, 0};
  if (!PSGI_VEC_PUSH(ctx, &stack, f0)) goto nomem;
  while (stack.len) {
    frame *f = &stack.data[stack.len - 1];
    if (f->next < f->node->nkids) {
      uint32_t i = f->next++;
      const psg_expr *parent = f->node;
      if (m->before_child && (st = m->before_child(m, parent, i)) != PSG_OK) goto done;
      const psg_expr *child = parent->kids[i];
      if (psg_mutator_get_result(m, child)) continue;
      if ((st = try_pre(m, child, &replaced)) != PSG_OK) goto done;
      if (replaced) continue;
      frame fc = {child, 0};
      if (!PSGI_VEC_PUSH(ctx, &stack, fc)) goto nomem;
      continue;
    }
    const psg_expr *node = f->node;
    stack.len--;
    psg_expr *res;
    if ((st = rewrite_node(m, node, &res)) != PSG_OK) goto done;
    if ((st = memo_put(m, node, res)) != PSG_OK) goto done;
  }
  goto done;
nomem:
  st = psgi_nomem(ctx);
done:
  PSGI_VEC_FREE(ctx, &stack);
  if (!st) {
    *out = psg_mutator_get_result(m, root);
    psg_expr_retain(*out);
  }
  return st;
}

psg_status psg_mutator_default(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  *out = NULL;
  psg_ctx *ctx = m->ctx;
  if (e->nkids == 0) {
    psg_expr_retain((psg_expr *)e);
    *out = (psg_expr *)e;
    return PSG_OK;
  }
  enum { SMALL = 8 };
  psg_expr *small[SMALL], **kids = small;
  if (e->nkids > SMALL && !(kids = psgi_alloc(ctx, (size_t)e->nkids * sizeof *kids))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  bool changed = false;
  for (uint32_t i = 0; i < e->nkids; i++) {
    psg_expr *r = psg_mutator_get_result(m, e->kids[i]);
    if (!r) {
      /* Called outside the engine's order: rewrite the child now (this
       * nested walk is iterative too). */
      psg_expr *tmp;
      if ((st = psg_mutate(m, e->kids[i], &tmp)) != PSG_OK) goto done;
      psg_expr_release(tmp); /* the memo keeps it alive */
      r = psg_mutator_get_result(m, e->kids[i]);
    }
    kids[i] = r;
    changed |= r != e->kids[i];
  }
  if (!changed) {
    psg_expr_retain((psg_expr *)e);
    *out = (psg_expr *)e;
  } else if (e->kind == PSG_EXPR_LET && kids[0]->kind != PSG_EXPR_VAR) {
    st = psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "a mutator replaced a Let's variable by a %s",
                      psgi_expr_kind_names[kids[0]->kind]);
  } else {
    st = psgi_expr_rebuild(e, kids, out);
  }
done:
  if (kids != small) psgi_free(ctx, kids);
  return st;
}

/* Free variables ---------------------------------------------------------- */

typedef struct free_var_walk {
  psgi_map bound;
  psgi_map used; /* insertion order = order of first use */
} free_var_walk;

static psg_status free_var_post(psg_visitor *v, const psg_expr *e) {
  free_var_walk *w = v->user;
  switch (e->kind) {
  case PSG_EXPR_VAR:
    return psgi_map_put_ptr(&w->used, e, NULL) ? PSG_OK : psgi_nomem(w->used.ctx);
  case PSG_EXPR_FUNCTION:
    for (uint32_t i = 0; i + 1 < e->nkids; i++)
      if (!psgi_map_put_ptr(&w->bound, e->kids[i], NULL)) return psgi_nomem(w->bound.ctx);
    return PSG_OK;
  case PSG_EXPR_LET:
    return psgi_map_put_ptr(&w->bound, e->kids[0], NULL) ? PSG_OK : psgi_nomem(w->bound.ctx);
  case PSG_EXPR_GLOBAL_VAR:
  case PSG_EXPR_CONSTANT:
  case PSG_EXPR_TUPLE:
  case PSG_EXPR_TUPLE_GET_ITEM:
  case PSG_EXPR_CALL:
  case PSG_EXPR_IF:
  case PSG_EXPR_OP: return PSG_OK;
  }
  return PSG_OK;
}

psg_status psgi_free_vars(psg_ctx *ctx, const psg_expr *e, psgi_expr_vec *out) {
  free_var_walk w;
  psgi_map_init(&w.bound, ctx);
  psgi_map_init(&w.used, ctx);
  psg_visitor v = {NULL, free_var_post, &w};
  psg_status st = psg_visit(ctx, &v, e);
  for (size_t i = 0; !st && i < w.used.len; i++) {
    const psg_expr *var = w.used.entries[i].key;
    if (!psgi_map_get_ptr(&w.bound, var) && !PSGI_VEC_PUSH(ctx, out, var)) st = psgi_nomem(ctx);
  }
  psgi_map_fini(&w.bound);
  psgi_map_fini(&w.used);
  return st;
}
