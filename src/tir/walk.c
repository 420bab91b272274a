/* Passage — the TIR walkers (DESIGN.md "Visitors and mutators in C", STYLE
 * rules 9 and 10): a post-order visitor and a memoizing mutator with
 * functional update, over explicit stacks, in the shape of src/ir/walk.c.
 * Children are reached in definition-first order (psgi_tir_visit_slot): a
 * PrimFunc's params and buffers before its body, a Let's var before its
 * value and body, so a callback sees a binding before its uses. */
#include "tir/tir_internal.h"

typedef struct frame {
  const psg_tir_node *node;
  uint32_t next;
} frame;
typedef PSGI_VEC(frame) frame_vec;

/* The mutator's frame: also where its children's pending rewrites start,
 * whether its own rewrite is pending (not memoized), and else the memo slot
 * reserved for it when it was reached (still its slot when the table has
 * not grown since: keys never move otherwise), so that storing its rewrite
 * does not probe again. */
typedef struct mframe {
  const psg_tir_node *node;
  uint32_t next;
  bool pend;
  size_t scope;
  size_t slot;
} mframe;
typedef PSGI_VEC(mframe) mframe_vec;

static inline const psg_tir_node *child_at(const psg_tir_node *n, uint32_t k, uint32_t *slot) {
  bool def;
  *slot = psgi_tir_visit_slot(n, k, &def);
  return n->kids[*slot];
}

/* The mutator's memo: node -> rewrite (a reference held by the memo; NULL
 * while pending); also the visitor's set of the nodes it reached. Open
 * addressing over (key, value) pairs with linear probing, at most half
 * full: a table of its own rather than a psgi_map, as one probe reads key
 * and value together and nothing needs insertion order (it is the
 * mutator's most frequent operation, two or three per node). */
typedef struct memo_slot {
  const psg_tir_node *key; /* NULL: empty */
  psg_tir_node *value;
} memo_slot;

typedef struct mstate {
  memo_slot *slots;
  size_t cap, len; /* cap: 0 or a power of two */
  unsigned depth;  /* psg_tir_mutate calls in progress (callbacks may nest them) */
  /* The outermost call started with an empty memo and nothing has nested
   * since: a node held once (maybe_shared) is then first reached by this
   * walk, through its one parent, and needs no entry reserved to be
   * recognized when reached again (it is not). */
  bool fresh;
  /* The rewrites of such nodes (reached once, by a fresh walk) wait here
   * for their parent's instead of entering the memo: only the parent reads
   * them (its callback, or before_child / pre while it is walked), and
   * they are dropped when it is rewritten. In order of completion; the
   * parent's children are the entries from `scope` on. */
  PSGI_VEC(memo_slot) pending;
  size_t scope;  /* the first pending entry of the node being walked or rewritten */
  size_t cursor; /* where the last pending lookup hit (children are read in order) */
  /* psg_tir_mutator_set_result was given a node without operands: only then
   * can a plain leaf (plain_leaf) have a rewrite other than itself. */
  bool leaf_results;
  /* The frames of the outermost psg_tir_mutate call, kept for the next one
   * (a pass mutates statement after statement with one mutator); nested
   * calls, made from callbacks while these frames are in use, take their
   * own. */
  mframe_vec frames;
} mstate;

/* Fibonacci hashing of the address (nodes are 16-byte aligned). */
static size_t memo_home(const mstate *s, const psg_tir_node *key) {
  return (size_t)(((uint64_t)(uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull >> 32) & (s->cap - 1);
}

static memo_slot *memo_find(const mstate *s, const psg_tir_node *key) {
  if (!s->cap) return NULL;
  for (size_t i = memo_home(s, key);; i = (i + 1) & (s->cap - 1)) {
    memo_slot *e = &s->slots[i];
    if (e->key == key) return e;
    if (!e->key) return NULL;
  }
}

static bool memo_grow(psg_ctx *ctx, mstate *s) {
  size_t ncap = s->cap ? 2 * s->cap : 64;
  memo_slot *ns = psgi_calloc(ctx, psgi_mul_size(ncap, sizeof *ns)), *old = s->slots;
  if (!ns) return false;
  size_t ocap = s->cap;
  s->slots = ns;
  s->cap = ncap;
  for (size_t k = 0; k < ocap; k++) {
    if (!old[k].key) continue;
    size_t i = memo_home(s, old[k].key);
    while (ns[i].key) i = (i + 1) & (ncap - 1);
    ns[i] = old[k];
  }
  psgi_free(ctx, old);
  return true;
}

/* The slot of key, made (value NULL) when absent; NULL on OOM. */
static memo_slot *memo_reserve(psg_ctx *ctx, mstate *s, const psg_tir_node *key, bool *is_new) {
  if (2 * (s->len + 1) > s->cap && !memo_grow(ctx, s)) return NULL;
  size_t i = memo_home(s, key);
  while (s->slots[i].key && s->slots[i].key != key) i = (i + 1) & (s->cap - 1);
  memo_slot *e = &s->slots[i];
  *is_new = !e->key;
  if (*is_new) {
    e->key = key;
    e->value = NULL;
    s->len++;
  }
  return e;
}

/* Whether n may be reached twice in one walk. Every operand slot holds a
 * reference, so a node counted once has one parent, and a walk reaches it
 * once: only the others need an entry in the walk's `seen` map (most of a
 * tree; a count read while other threads retain or release it is still 1
 * only when no other node of the walked tree holds it). */
static inline bool maybe_shared(const psg_tir_node *n) {
  return __atomic_load_n(&n->refcount, __ATOMIC_RELAXED) != 1;
}

psg_status psg_tir_visit(psg_ctx *ctx, psg_tir_visitor *v, const psg_tir_node *root) {
  if (!root) return PSG_ERR_INVALID_ARGUMENT;
  mstate seen = {0}; /* the shared nodes reached (values unused) */
  frame_vec stack = {0};
  psg_status st = PSG_OK;
  bool is_new = true;
  int r = v->pre ? v->pre(v, root) : PSG_VISIT_CONTINUE;
  if (r == PSG_VISIT_ABORT) goto done;
  if (!PSGI_VEC_PUSH(ctx, &stack, ((frame){root, r == PSG_VISIT_SKIP_CHILDREN ? root->nkids : 0}))) goto nomem;
  while (stack.len) {
    frame *f = &stack.data[stack.len - 1];
    if (f->next < f->node->nkids) {
      uint32_t slot;
      const psg_tir_node *child = child_at(f->node, f->next++, &slot);
      if (maybe_shared(child)) {
        if (!memo_reserve(ctx, &seen, child, &is_new)) goto nomem;
        if (!is_new) continue;
      }
      r = v->pre ? v->pre(v, child) : PSG_VISIT_CONTINUE;
      if (r == PSG_VISIT_ABORT) goto done;
      if (!PSGI_VEC_PUSH(ctx, &stack, ((frame){child, r == PSG_VISIT_SKIP_CHILDREN ? child->nkids : 0}))) goto nomem;
      continue;
    }
    const psg_tir_node *node = f->node;
    stack.len--;
    if (v->post && (st = v->post(v, node)) != PSG_OK) goto done;
  }
  goto done;
nomem:
  st = psgi_nomem(ctx);
done:
  PSGI_VEC_FREE(ctx, &stack);
  psgi_free(ctx, seen.slots);
  return st;
}

/* Mutator ---------------------------------------------------------------------- */

void psg_tir_mutator_init(psg_tir_mutator *m, psg_ctx *ctx) {
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
}

static mstate *state(psg_tir_mutator *m) {
  if (!m->state_) m->state_ = psgi_calloc(m->ctx, sizeof(mstate));
  return m->state_;
}

static void drop_pending(mstate *s, size_t from) {
  while (s->pending.len > from) psg_tir_release(s->pending.data[--s->pending.len].value);
}

void psg_tir_mutator_fini(psg_tir_mutator *m) {
  mstate *s = m->state_;
  if (!s) return;
  for (size_t i = 0, left = s->len; left && i < s->cap; i++) /* stops at the last entry */
    if (s->slots[i].key) {
      psg_tir_release(s->slots[i].value);
      left--;
    }
  drop_pending(s, 0);
  PSGI_VEC_FREE(m->ctx, &s->pending);
  PSGI_VEC_FREE(m->ctx, &s->frames);
  psgi_free(m->ctx, s->slots);
  psgi_free(m->ctx, s);
  m->state_ = NULL;
}

/* A node without operands that no callback can rewrite (no pre, no visit
 * function for its kind): its rewrite is itself, so the walk records
 * nothing for it (vars are most of the shared nodes of a function, and
 * each would take a memo entry). */
static inline bool plain_leaf(const psg_tir_mutator *m, const psg_tir_node *n) {
  return n->nkids == 0 && !m->pre && !m->visit[n->kind];
}

psg_tir_node *psg_tir_mutator_get_result(psg_tir_mutator *m, const psg_tir_node *n) {
  mstate *s = m->state_;
  /* A plain leaf is never pending nor memoized by the walk, and a memo
   * entry made for it otherwise (a walk from it, memoizing its default
   * rewrite) holds itself: without set_result on a leaf, it is its own
   * rewrite, found without the searches below. */
  if (plain_leaf(m, n) && (!s || !s->leaf_results)) return (psg_tir_node *)n;
  if (!s) return NULL;
  if (s->pending.len > s->scope) {
    /* a child of the node at hand: after the last hit first, then all */
    memo_slot *p = s->pending.data;
    size_t c = s->cursor + 1;
    if (c >= s->scope && c < s->pending.len && p[c].key == n) return p[s->cursor = c].value;
    for (size_t i = s->pending.len; i-- > s->scope;)
      if (p[i].key == n) return p[s->cursor = i].value;
  }
  memo_slot *e = memo_find(s, n);
  if (e && e->value) return e->value;
  return plain_leaf(m, n) ? (psg_tir_node *)n : NULL; /* unless set_result gave it another */
}

/* Stores `result` (a reference the memo takes over) as the rewrite of n. */
static psg_status memo_put(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node *result) {
  mstate *s = state(m);
  bool is_new;
  memo_slot *e = s ? memo_reserve(m->ctx, s, n, &is_new) : NULL;
  if (!e) {
    psg_tir_release(result);
    return psgi_nomem(m->ctx);
  }
  psg_tir_release(e->value);
  e->value = result;
  return PSG_OK;
}

psg_status psg_tir_mutator_set_result(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node *result) {
  if (!n || !result) return PSG_ERR_INVALID_ARGUMENT;
  mstate *s = state(m);
  if (!s) return psgi_nomem(m->ctx);
  if (n->nkids == 0) s->leaf_results = true;
  psg_tir_retain(result);
  for (size_t i = s->pending.len; i-- > s->scope;) {
    if (s->pending.data[i].key != n) continue;
    psg_tir_release(s->pending.data[i].value); /* a pending child's: replaced where it is read */
    s->pending.data[i].value = result;
    return PSG_OK;
  }
  return memo_put(m, n, result);
}

/* Records `result` (a reference taken over) as n's rewrite: pending for
 * its parent, or in the memo (at `slot` when that is still n's). */
static psg_status done_node(psg_tir_mutator *m, mstate *s, const psg_tir_node *n, bool pend, size_t slot,
                            psg_tir_node *result) {
  if (!pend && slot < s->cap && s->slots[slot].key == n) {
    memo_slot *e = &s->slots[slot];
    psg_tir_release(e->value);
    e->value = result;
    return PSG_OK;
  }
  if (!pend) return memo_put(m, n, result);
  if (!PSGI_VEC_PUSH(m->ctx, &s->pending, ((memo_slot){n, result}))) {
    psg_tir_release(result);
    return psgi_nomem(m->ctx);
  }
  return PSG_OK;
}

/* n's rewrite from its children's (pending from `scope` on, or memoized). */
static psg_status rewrite(psg_tir_mutator *m, mstate *s, const psg_tir_node *n, size_t scope, bool pend,
                          size_t slot) {
  psg_tir_mutate_fn fn = m->visit[n->kind];
  psg_tir_node *out = NULL;
  s->scope = scope;
  s->cursor = scope - 1;
  psg_status st = fn ? fn(m, n, &out) : psg_tir_mutator_default(m, n, &out);
  if (!st && !out)
    st = psg_ctx_fail(m->ctx, PSG_ERR_INTERNAL, "a TIR mutator callback for %s returned no node", psg_tir_kind_name(n->kind));
  if (st) {
    psg_tir_release(out);
    return st;
  }
  drop_pending(s, scope); /* the children's: read by now */
  return done_node(m, s, n, pend, slot, out);
}

psg_status psg_tir_mutate(psg_tir_mutator *m, const psg_tir_node *root, psg_tir_node **out) {
  *out = NULL;
  if (!root) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = m->ctx;
  mstate *s = state(m);
  if (!s) return psgi_nomem(ctx);
  s->fresh = s->depth++ == 0 && s->len == 0 && !m->memo_all;
  size_t saved_scope = s->scope, saved_cursor = s->cursor, pend_base = s->pending.len;
  mframe_vec own = {0}, *stack = s->depth == 1 ? &s->frames : &own;
  stack->len = 0;
  psg_status st = PSG_OK;
  /* A node's memo entry is reserved (value NULL) when it is first reached;
   * a node reached again later is done already (a DAG has no cycles). The
   * root's rewrite is always memoized (it is the result). */
  bool is_new;
  memo_slot *e0 = memo_reserve(ctx, s, root, &is_new);
  if (!e0) goto nomem;
  if (e0->value) goto done; /* rewritten by an earlier call */
  if (m->pre) {
    psg_tir_node *rep = NULL;
    s->scope = s->pending.len;
    if ((st = m->pre(m, root, &rep)) != PSG_OK) {
      psg_tir_release(rep);
      goto done;
    }
    if (rep) {
      st = memo_put(m, root, rep);
      goto done;
    }
  }
  if (!PSGI_VEC_PUSH(ctx, stack, ((mframe){root, 0, false, s->pending.len, (size_t)(e0 - s->slots)}))) goto nomem;
  while (stack->len) {
    mframe *f = &stack->data[stack->len - 1];
    const psg_tir_node *node = f->node;
    if (f->next < node->nkids) {
      uint32_t slot;
      const psg_tir_node *child = child_at(node, f->next++, &slot);
      s->scope = f->scope;
      if (m->before_child && (st = m->before_child(m, node, slot)) != PSG_OK) goto done;
      if (plain_leaf(m, child)) continue; /* itself (psg_tir_mutator_get_result) */
      bool pend = s->fresh && !maybe_shared(child);
      size_t at = SIZE_MAX;
      if (!pend) {
        memo_slot *e = memo_reserve(ctx, s, child, &is_new);
        if (!e) goto nomem;
        if (!is_new) continue; /* rewritten already (or an ancestor: a cycle cannot occur) */
        at = (size_t)(e - s->slots);
      }
      if (m->pre) {
        psg_tir_node *rep = NULL;
        s->scope = f->scope;
        if ((st = m->pre(m, child, &rep)) != PSG_OK) {
          psg_tir_release(rep);
          goto done;
        }
        if (rep) {
          if ((st = done_node(m, s, child, pend, at, rep)) != PSG_OK) goto done;
          continue;
        }
      }
      if (!PSGI_VEC_PUSH(ctx, stack, ((mframe){child, 0, pend, s->pending.len, at}))) goto nomem;
      continue;
    }
    mframe done = *f;
    stack->len--;
    if ((st = rewrite(m, s, done.node, done.scope, done.pend, done.slot)) != PSG_OK) goto done;
  }
  goto done;
nomem:
  st = psgi_nomem(ctx);
done:
  stack->len = 0;
  PSGI_VEC_FREE(ctx, &own);
  s->depth--;
  drop_pending(s, pend_base); /* left by an error: nothing reads them */
  s->scope = saved_scope;
  s->cursor = saved_cursor;
  if (!st) {
    memo_slot *e = memo_find(s, root);
    *out = e ? e->value : NULL;
    if (!*out) st = psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "the TIR mutator left %s without a rewrite", psg_tir_kind_name(root->kind));
    psg_tir_retain(*out);
  }
  return st;
}

psg_status psg_tir_mutator_default(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  *out = NULL;
  psg_ctx *ctx = m->ctx;
  if (n->nkids == 0) {
    psg_tir_retain((psg_tir_node *)n);
    *out = (psg_tir_node *)n;
    return PSG_OK;
  }
  enum { SMALL = 8 };
  psg_tir_node *small[SMALL], **kids = small;
  if (n->nkids > SMALL && !(kids = psgi_alloc(ctx, psgi_mul_size(n->nkids, sizeof *kids)))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  bool changed = false;
  for (uint32_t i = 0; i < n->nkids; i++) {
    psg_tir_node *r = psg_tir_mutator_get_result(m, n->kids[i]);
    if (!r) {
      /* Called outside the engine's order: rewrite the child now (this
       * nested walk is iterative too). */
      psg_tir_node *tmp;
      if ((st = psg_tir_mutate(m, n->kids[i], &tmp)) != PSG_OK) goto done;
      psg_tir_release(tmp); /* the memo keeps it alive */
      r = psg_tir_mutator_get_result(m, n->kids[i]);
    }
    kids[i] = r;
    changed |= r != n->kids[i];
  }
  if (!changed) {
    psg_tir_retain((psg_tir_node *)n);
    *out = (psg_tir_node *)n;
  } else {
    st = psgi_tir_rebuild(n, kids, out);
  }
done:
  if (kids != small) psgi_free(ctx, kids);
  return st;
}
