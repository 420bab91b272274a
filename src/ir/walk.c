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
  bool is_new, whole = true; /* no subtree skipped: the walk met every node */
  psgi_map_reserve(&seen, psgi_expr_size_hint(root)); /* a hint: on failure the map grows as it goes */
  if (!psgi_map_put_ptr(&seen, root, &is_new)) goto nomem;
  int r = v->pre ? v->pre(v, root) : PSG_VISIT_CONTINUE;
  if (r == PSG_VISIT_ABORT) goto done;
  whole &= r != PSG_VISIT_SKIP_CHILDREN;
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
      whole &= r != PSG_VISIT_SKIP_CHILDREN || !child->nkids;
      frame fc = {child, r == PSG_VISIT_SKIP_CHILDREN ? child->nkids : 0};
      if (!PSGI_VEC_PUSH(ctx, &stack, fc)) goto nomem;
      continue;
    }
    const psg_expr *node = f->node;
    stack.len--;
    if (v->post && (st = v->post(v, node)) != PSG_OK) goto done;
  }
  if (whole) psgi_expr_note_size(root, seen.len); /* sizes the next walk */
  goto done;
nomem:
  st = psgi_nomem(ctx);
done:
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  return st;
}

/* Mutator --------------------------------------------------------------- */

/* The engine reserves a node's memo entry when it first reaches it (value
 * NULL until the node is rewritten; the map never removes entries, so the
 * entry index stays valid) and keeps the entry index of every resolved child
 * on a stack: a node's children are the top nkids indices when it is
 * rewritten, so psg_mutator_default and psg_mutator_get_result read the
 * children's rewrites by index instead of hashing each edge again. */
typedef struct mutator_state {
  psgi_map memo;            /* node -> rewritten node (a reference held by the memo) */
  const psg_expr *cur;      /* the node the engine is rewriting, or NULL */
  const uint32_t *cur_kids; /* memo entry indices of cur's children */
  bool keep_composite;      /* psgi_mutator_keep_composite */
} mutator_state;

typedef struct mframe {
  const psg_expr *node;
  uint32_t next; /* index of the next child to visit */
  uint32_t slot; /* the node's memo entry */
} mframe;
typedef PSGI_VEC(mframe) mframe_vec;
typedef PSGI_VEC(uint32_t) slot_vec;

/* PSGI_VEC_PUSH without the call while there is room (two pushes per edge). */
#define PUSH(ctx, v, x) ((v)->len < (v)->cap ? ((v)->data[(v)->len++] = (x), true) : PSGI_VEC_PUSH(ctx, v, x))

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

psg_status psgi_mutator_keep_composite(psg_mutator *m) {
  mutator_state *s = state(m);
  if (!s) return psgi_nomem(m->ctx);
  s->keep_composite = true;
  return PSG_OK;
}

void psg_mutator_fini(psg_mutator *m) {
  mutator_state *s = m->state_;
  if (!s) return;
  for (size_t i = 0; i < s->memo.len; i++) psg_expr_release(s->memo.entries[i].value);
  psgi_map_fini(&s->memo);
  psgi_free(m->ctx, s);
  m->state_ = NULL;
}

/* A child of the node being rewritten: its rewrite by entry index. */
static bool kid_result(const mutator_state *s, const psg_expr *e, psg_expr **r) {
  const psg_expr *cur = s->cur;
  if (!cur) return false;
  for (uint32_t i = 0; i < cur->nkids && i < 8; i++)
    if (cur->kids[i] == e) {
      *r = s->memo.entries[s->cur_kids[i]].value;
      return true;
    }
  return false;
}

psg_expr *psg_mutator_get_result(psg_mutator *m, const psg_expr *e) {
  mutator_state *s = m->state_;
  if (!s) return NULL;
  psg_expr *r;
  if (kid_result(s, e, &r)) return r;
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

/* The rewrite of a node whose children are all in the memo (their entries
 * are `kids`), stored in the node's entry `slot`. */
static psg_status rewrite_node(psg_mutator *m, mutator_state *s, const psg_expr *e, const uint32_t *kids,
                               uint32_t slot) {
  psg_mutate_fn fn = m->visit[e->kind];
  psg_expr *out = NULL;
  const psg_expr *cur = s->cur;
  const uint32_t *cur_kids = s->cur_kids;
  s->cur = e;
  s->cur_kids = kids;
  psg_status st = fn ? fn(m, e, &out) : psg_mutator_default(m, e, &out);
  s->cur = cur;
  s->cur_kids = cur_kids;
  if (!st && !out) st = psg_ctx_fail(m->ctx, PSG_ERR_INTERNAL, "a mutator callback for %s returned no node",
                                      psgi_expr_kind_names[e->kind]);
  if (st) return st;
  psgi_map_entry *en = &s->memo.entries[slot];
  psg_expr_release(en->value); /* a replaced entry (a nested walk got there first) */
  en->value = out;
  return PSG_OK;
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

/* The memo entry of e (reserved if new); *have when it already has a rewrite. */
static psg_status reserve(psg_mutator *m, mutator_state *s, const psg_expr *e, uint32_t *slot, bool *have) {
  psgi_map_entry *en = psgi_map_put_ptr(&s->memo, e, NULL);
  if (!en) return psgi_nomem(m->ctx);
  *slot = (uint32_t)(en - s->memo.entries);
  *have = en->value != NULL;
  return PSG_OK;
}

psg_status psg_mutate(psg_mutator *m, const psg_expr *root, psg_expr **out) {
  *out = NULL;
  if (!root) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = m->ctx;
  mutator_state *s = state(m);
  if (!s) return psgi_nomem(ctx);
  psgi_map_entry *hit = psgi_map_get_ptr(&s->memo, root);
  if (hit && hit->value) {
    psg_expr_retain(hit->value);
    *out = hit->value;
    return PSG_OK;
  }
  mframe_vec stack = {0};
  slot_vec done_kids = {0}; /* entry indices of the resolved children of the frames */
  bool replaced, have = false;
  bool whole = true; /* no subtree replaced by `pre` unwalked: the memo met every node */
  uint32_t slot = 0;
  if (s->keep_composite && psgi_is_composite_fn(root)) {
    psg_expr_retain((psg_expr *)root);
    *out = (psg_expr *)root;
    return PSG_OK;
  }
  size_t memo_before = s->memo.len;
  if (!memo_before) psgi_map_reserve(&s->memo, psgi_expr_size_hint(root)); /* a hint, as in psg_visit */
  psg_status st = try_pre(m, root, &replaced);
  whole = !replaced;
  if (st || replaced) goto done;
  if ((st = reserve(m, s, root, &slot, &have)) != PSG_OK) goto done;
  mframe f0 = {root, 0, slot};
  if (!PSGI_VEC_PUSH(ctx, &stack, f0)) goto nomem;
  while (stack.len) {
    mframe *f = &stack.data[stack.len - 1];
    if (f->next < f->node->nkids) {
      uint32_t i = f->next++;
      const psg_expr *parent = f->node;
      if (m->before_child && (st = m->before_child(m, parent, i)) != PSG_OK) goto done;
      const psg_expr *child = parent->kids[i];
      if ((st = reserve(m, s, child, &slot, &have)) != PSG_OK) goto done;
      if (!have && s->keep_composite && child->kind == PSG_EXPR_FUNCTION && psgi_is_composite_fn(child)) {
        psg_expr_retain((psg_expr *)child); /* kept as it is: its own rewrite */
        s->memo.entries[slot].value = (psg_expr *)child;
        have = true;
      }
      if (!have) {
        if (m->pre && (st = try_pre(m, child, &replaced)) != PSG_OK) goto done;
        whole &= !m->pre || !replaced || !child->nkids;
        if (!m->pre || !replaced) {
          mframe fc = {child, 0, slot};
          if (!PUSH(ctx, &stack, fc)) goto nomem;
          continue;
        }
      }
      if (!PUSH(ctx, &done_kids, slot)) goto nomem;
      continue;
    }
    const psg_expr *node = f->node;
    slot = f->slot;
    stack.len--;
    done_kids.len -= node->nkids;
    const uint32_t *kids = node->nkids ? done_kids.data + done_kids.len : NULL;
    if ((st = rewrite_node(m, s, node, kids, slot)) != PSG_OK) goto done;
    if (stack.len && !PUSH(ctx, &done_kids, slot)) goto nomem;
  }
  goto done;
nomem:
  st = psgi_nomem(ctx);
done:
  PSGI_VEC_FREE(ctx, &stack);
  PSGI_VEC_FREE(ctx, &done_kids);
  if (!st) {
    hit = psgi_map_get_ptr(&s->memo, root);
    *out = hit ? hit->value : NULL;
    psg_expr_retain(*out);
    /* The nodes this walk met size the next walk over the function, and
     * over its rewrite (the next pass's input): only when it met them all
     * (a walk that `pre` cut short, as InferType's over a typed function,
     * would leave a hint of a few nodes). */
    if (!memo_before && whole) {
      psgi_expr_note_size(root, s->memo.len);
      if (*out != root) psgi_expr_note_size(*out, s->memo.len);
    }
  }
  return st;
}

/* Whether a rebuilt Match keeps variables where its patterns bind them. */
static bool binders_stay_vars(const psg_expr *e, psg_expr *const *kids) {
  for (uint32_t i = 0; i < e->nkids; i++)
    if (psgi_expr_binds_child(e, i) && kids[i]->kind != PSG_EXPR_VAR) return false;
  return true;
}

psg_status psg_mutator_default(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  *out = NULL;
  psg_ctx *ctx = m->ctx;
  if (e->nkids == 0) {
    psg_expr_retain((psg_expr *)e);
    *out = (psg_expr *)e;
    return PSG_OK;
  }
  mutator_state *s = m->state_;
  const uint32_t *slots = s && s->cur == e ? s->cur_kids : NULL;
  enum { SMALL = 8 };
  psg_expr *small[SMALL], **kids = small;
  if (e->nkids > SMALL && !(kids = psgi_alloc(ctx, (size_t)e->nkids * sizeof *kids))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  bool changed = false;
  for (uint32_t i = 0; i < e->nkids; i++) {
    psg_expr *r = slots ? s->memo.entries[slots[i]].value : psg_mutator_get_result(m, e->kids[i]);
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
  } else if (e->kind == PSG_EXPR_MATCH && !binders_stay_vars(e, kids)) {
    st = psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "a mutator replaced a Match pattern variable by a non-variable");
  } else {
    st = psgi_expr_rebuild(e, kids, out);
  }
done:
  if (kids != small) psgi_free(ctx, kids);
  return st;
}

/* Free variables ----------------------------------------------------------
 * Vars used but bound by no Function or Let inside, in order of first reach
 * in a left-to-right depth-first walk. One map is both the visited set and
 * the record of which variables are bound; the pass runner asks for the
 * first one only after every function pass that changed a function. */
typedef struct fv_frame {
  const psg_expr *e;
  uint32_t next;
} fv_frame;

static psg_status free_vars_walk(psg_ctx *ctx, const psg_expr *fn, psgi_expr_vec *out, bool first_only) {
  psgi_map marks; /* node -> 1 (reached) | 2 (a bound variable) */
  psgi_map_init(&marks, ctx);
  PSGI_VEC(fv_frame) stack = {0};
  psgi_expr_vec vars = {0};
  fv_frame f0 = {fn, 0};
  psgi_map_entry *en = psgi_map_put_ptr(&marks, fn, NULL);
  psg_status st = en && PSGI_VEC_PUSH(ctx, &stack, f0) ? PSG_OK : psgi_nomem(ctx);
  if (en) en->value = (void *)(uintptr_t)1;
  if (!st && fn->kind == PSG_EXPR_VAR && !PSGI_VEC_PUSH(ctx, &vars, fn)) st = psgi_nomem(ctx);
  while (!st && stack.len) {
    fv_frame *f = &stack.data[stack.len - 1];
    const psg_expr *e = f->e;
    if (f->next == e->nkids) {
      stack.len--;
      continue;
    }
    uint32_t i = f->next++;
    bool bound = psgi_expr_binds_child(e, i);
    const psg_expr *k = e->kids[i];
    psgi_map_entry *m = psgi_map_put_ptr(&marks, k, NULL);
    if (!m) {
      st = psgi_nomem(ctx);
      break;
    }
    uintptr_t was = (uintptr_t)m->value;
    m->value = (void *)(was | 1 | (bound ? 2 : 0));
    if (was & 1) continue;
    fv_frame fk = {k, 0};
    if (k->kind == PSG_EXPR_VAR ? !PSGI_VEC_PUSH(ctx, &vars, k) : !PSGI_VEC_PUSH(ctx, &stack, fk)) st = psgi_nomem(ctx);
  }
  for (size_t i = 0; !st && i < vars.len; i++) {
    if ((uintptr_t)psgi_map_get_ptr(&marks, vars.data[i])->value & 2) continue;
    if (!PSGI_VEC_PUSH(ctx, out, vars.data[i])) st = psgi_nomem(ctx);
    if (first_only) break;
  }
  PSGI_VEC_FREE(ctx, &stack);
  PSGI_VEC_FREE(ctx, &vars);
  psgi_map_fini(&marks);
  return st;
}

psg_status psgi_free_vars(psg_ctx *ctx, const psg_expr *e, psgi_expr_vec *out) {
  return free_vars_walk(ctx, e, out, false);
}

psg_status psgi_first_free_var(psg_ctx *ctx, const psg_expr *e, const psg_expr **out) {
  *out = NULL;
  psgi_expr_vec v = {0};
  psg_status st = free_vars_walk(ctx, e, &v, true);
  if (!st && v.len) *out = v.data[0];
  PSGI_VEC_FREE(ctx, &v);
  return st;
}
