/* Passage — tir.CommonSubexprElimTIR (TVM's common_subexpr_elim.cc), a
 * PrimFuncPass: a computation done at least twice by a statement (or an
 * expression) gets a `cse_var_N` binding (LetStmt, or Let inside an
 * expression) at that statement, and its occurrences use the var.
 *
 * TVM's algorithm, statement by statement from the root, then expression by
 * expression inside each:
 *   1. the computation table of the node (cse_tables.c): eligible
 *      computations — no Call, no BufferLoad (side effects and memory are
 *      never commoned), not a constant, var, Ramp or Broadcast — with how
 *      often they are done; a loop or an `if` only counts what at least two
 *      of its parts do, so nothing is hoisted out of one branch;
 *   2. with identify_equiv_terms, computations equal after arith
 *      simplification are merged;
 *   3. largest first (node count, then legacy text): a computation bound
 *      to a var of the context (params, loop vars, Let/LetStmt bindings in
 *      scope) is replaced by that var; one done twice or more whose vars are
 *      all in scope gets a new var (named cse_var_<k>, skipping names the
 *      function uses); any other adds its direct eligible subterms to the
 *      list (so a computation using a var not yet in scope is commoned
 *      inside that scope instead); the replacements of a run of selected
 *      computations are done in one walk (see "ReplaceSelectedExpr,
 *      batched");
 *   4. a statement that got vars is analysed again, then the children are
 *      visited the same way with the context extended by each binding.
 * Options enable_cse_tir (true) and identify_equiv_terms (false); configs
 * tir.disable_cse_tir and tir.enable_equiv_terms_in_cse_tir (read here,
 * where TVM reads them in its pipeline builder). Iterative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tir/transforms/cse.h"

bool psgi_cse_exhaustive = false;

typedef struct binding {
  psg_tir_node *var, *value; /* value NULL: a loop var or param */
  uint64_t key;              /* value's hash | 1 when counted in cse.values, else 0 */
} binding;

typedef struct frame {
  psg_tir_node *cur; /* owned: the node after its own analysis */
  uint32_t next;
  size_t ctx_len, res_base;
  bool trivial; /* nothing_to_common held for it or an ancestor: so for its subtree */
} frame;

typedef struct cse {
  psg_ctx *ctx;
  bool equiv;
  bool no_fast_paths; /* psgi_cse_exhaustive when the pass began */
  psgi_cse_tables tables;
  psg_arith_analyzer *fresh; /* TVM's NormalizeTerm: a new Analyzer's Simplify */
  PSGI_VEC(binding) context;
  psgi_map known;      /* var -> bindings of it in the context */
  psgi_map values;     /* hash | 1 of a bound value -> how many bindings in the context have it */
  psgi_map names;      /* the names cse_var_* of the vars of the initial body */
  psgi_map reprs;      /* expression (retained) -> its sort text (owned) */
  int num_last_try;
  PSGI_VEC(frame) stack;
  PSGI_VEC(psg_tir_node *) results; /* owned */
} cse;

/* Normalization and equivalence ---------------------------------------------- */

static psg_status normalize(cse *c, psg_tir_node *e, psg_tir_node **out) {
  if (!c->equiv) {
    psg_tir_retain(*out = e);
    return PSG_OK;
  }
  return psg_arith_simplify(c->fresh, e, out);
}

/* TVM's EquivalentTerms. */
static psg_status equivalent(cse *c, psg_tir_node *a, psg_tir_node *b, bool *out) {
  if (!c->equiv) {
    /* the memoized hashes first: most pairs differ */
    psgi_cse_info ia, ib;
    psg_status st = PSG_OK;
    *out = a == b;
    if (*out || a->kind != b->kind || a->dtype != b->dtype) return PSG_OK;
    if (psgi_tir_is_expr_kind(a->kind) && ((st = psgi_cse_info_of(&c->tables, a, &ia)) ||
                                           (st = psgi_cse_info_of(&c->tables, b, &ib)) || ia.hash != ib.hash ||
                                           ia.complexity != ib.complexity))
      return st;
    *out = psg_arith_expr_equal(a, b);
    return PSG_OK;
  }
  psg_tir_node *na = NULL, *nb = NULL;
  psg_status st = normalize(c, a, &na);
  if (!st) st = normalize(c, b, &nb);
  *out = !st && psg_arith_expr_equal(na, nb);
  psg_tir_release(na);
  psg_tir_release(nb);
  return st;
}

/* The work list of one node: computations by (size desc, then sorted order
 * or insertion order), as TVM's sorted vector with its insertions. */
typedef struct witem {
  psg_tir_node *e, *norm; /* owned */
  size_t count, complexity, seq, next;
  uint64_t key;
  const char *repr; /* borrowed from cse.reprs */
} witem;

typedef struct worklist {
  PSGI_VEC(witem) items;
  PSGI_VEC(size_t) heap;
  psgi_map index; /* key | 1 -> first item (index + 1) */
  size_t next_seq;
} worklist;

static void worklist_fini(cse *c, worklist *w) {
  for (size_t i = 0; i < w->items.len; i++) {
    psg_tir_release(w->items.data[i].e);
    psg_tir_release(w->items.data[i].norm);
  }
  PSGI_VEC_FREE(c->ctx, &w->items);
  PSGI_VEC_FREE(c->ctx, &w->heap);
  psgi_map_fini(&w->index);
}

/* Adds `count` to the item equivalent to e, or a new item (*added). */
static psg_status worklist_add(cse *c, worklist *w, psg_tir_node *e, size_t count, bool *added) {
  bool oom = false;
  psg_tir_node *norm = NULL;
  psgi_cse_info ni, ei;
  psg_status st = normalize(c, e, &norm);
  if (!st) st = psgi_cse_info_of(&c->tables, norm, &ni);
  if (!st && norm != e) st = psgi_cse_info_of(&c->tables, e, &ei);
  else ei = ni;
  if (st) {
    psg_tir_release(norm);
    return st;
  }
  uint64_t key = ni.hash | 1;
  psgi_map_entry *me = oom ? NULL : psgi_map_put_ptr(&w->index, (const void *)(uintptr_t)key, NULL);
  if (!me) {
    psg_tir_release(norm);
    return psgi_nomem(c->ctx);
  }
  for (size_t i = (size_t)(uintptr_t)me->value; i; i = w->items.data[i - 1].next) {
    const psg_tir_node *other = w->items.data[i - 1].norm;
    if (other == norm || psg_arith_expr_equal(other, norm)) {
      w->items.data[i - 1].count += count;
      psg_tir_release(norm);
      *added = false;
      return PSG_OK;
    }
  }
  witem it = {.e = e, .norm = norm, .count = count, .key = key, .next = (size_t)(uintptr_t)me->value};
  it.complexity = ei.complexity;
  if (oom || !PSGI_VEC_PUSH(c->ctx, &w->items, it)) {
    psg_tir_release(norm);
    return psgi_nomem(c->ctx);
  }
  psg_tir_retain(e);
  me->value = (void *)(uintptr_t)w->items.len;
  *added = true;
  return PSG_OK;
}

/* it's sort text, made once per expression for the pass (the same
 * computations are sorted again at every statement that holds them). */
static psg_status set_repr(cse *c, witem *it) {
  bool is_new;
  psgi_map_entry *me = psgi_map_put_ptr(&c->reprs, it->e, &is_new);
  if (!me) return psgi_nomem(c->ctx);
  if (!is_new) {
    it->repr = me->value;
    return PSG_OK;
  }
  psgi_buf b;
  psgi_buf_init(&b, c->ctx);
  psg_status st = psgi_cse_repr(c->ctx, it->e, &b);
  if (!st && !psgi_buf_putc(&b, '\0')) st = psgi_nomem(c->ctx);
  if (!st) {
    it->repr = me->value = b.data; /* the buffer's storage becomes the cache's */
    b.data = NULL;
    psg_tir_retain(it->e); /* the key stays alive while cached */
  } else {
    me->value = NULL;
  }
  psgi_buf_fini(&b);
  return st;
}

static int by_repr(const void *x, const void *y) {
  const witem *a = x, *b = y;
  int r = strcmp(a->repr, b->repr);
  return r ? r : (a->seq > b->seq) - (a->seq < b->seq);
}

/* TVM's OrderOnExprAndFrequency is by size, then by text, ties kept in
 * their order: by_size_then_seq, then by_repr among items of one size. */
static int by_size_then_seq(const void *x, const void *y) {
  const witem *a = x, *b = y;
  if (a->complexity != b->complexity) return a->complexity > b->complexity ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

static bool heap_less(const worklist *w, size_t i, size_t j) {
  const witem *a = &w->items.data[i], *b = &w->items.data[j];
  if (a->complexity != b->complexity) return a->complexity > b->complexity;
  return a->seq < b->seq;
}

static bool heap_push(cse *c, worklist *w, size_t item) {
  if (!PSGI_VEC_PUSH(c->ctx, &w->heap, item)) return false;
  for (size_t k = w->heap.len - 1; k > 0;) {
    size_t p = (k - 1) / 2;
    if (!heap_less(w, w->heap.data[k], w->heap.data[p])) break;
    size_t t = w->heap.data[k];
    w->heap.data[k] = w->heap.data[p], w->heap.data[p] = t, k = p;
  }
  return true;
}

static size_t heap_pop(worklist *w) {
  size_t top = w->heap.data[0];
  w->heap.data[0] = w->heap.data[--w->heap.len];
  for (size_t k = 0;;) {
    size_t l = 2 * k + 1, r = l + 1, m = k;
    if (l < w->heap.len && heap_less(w, w->heap.data[l], w->heap.data[m])) m = l;
    if (r < w->heap.len && heap_less(w, w->heap.data[r], w->heap.data[m])) m = r;
    if (m == k) break;
    size_t t = w->heap.data[k];
    w->heap.data[k] = w->heap.data[m], w->heap.data[m] = t, k = m;
  }
  return top;
}

/* TVM's SyntacticToSemanticComputations, then its sort; without `by_text`,
 * the items of one size stay in the table's order (see "The order among
 * computations of one size"). */
static psg_status worklist_build(cse *c, const psgi_cse_table *t, bool by_text, worklist *w) {
  psg_ctx *ctx = c->ctx;
  psgi_map_init(&w->index, ctx);
  psg_status st = PSG_OK;
  /* Syntactic entries, sorted by text when equivalent ones are merged. */
  PSGI_VEC(witem) raw = {0};
  for (size_t i = 0; !st && i < t->items.len; i++) {
    witem it = {.e = t->items.data[i].e, .count = t->items.data[i].count, .seq = i};
    if (!PSGI_VEC_PUSH(ctx, &raw, it)) st = psgi_nomem(ctx);
    else if (c->equiv) st = set_repr(c, &raw.data[raw.len - 1]);
  }
  if (!st && c->equiv) qsort(raw.data, raw.len, sizeof *raw.data, by_repr);
  for (size_t i = 0; !st && i < raw.len; i++) {
    bool added;
    st = worklist_add(c, w, raw.data[i].e, raw.data[i].count, &added);
  }
  PSGI_VEC_FREE(ctx, &raw);
  for (size_t i = 0; i < w->items.len; i++) w->items.data[i].seq = i;
  if (!by_text) { /* the heap orders them by size, then by table order */
    for (size_t i = 0; !st && i < w->items.len; i++)
      if (!heap_push(c, w, i)) st = psgi_nomem(ctx);
    w->next_seq = w->items.len;
    return st;
  }
  /* By size, then (only among items of one size) by text: the text is made
   * for those alone, the same order as comparing the text of all. */
  qsort(w->items.data, w->items.len, sizeof *w->items.data, by_size_then_seq);
  for (size_t i = 0, j; !st && i < w->items.len; i = j) {
    for (j = i + 1; j < w->items.len && w->items.data[j].complexity == w->items.data[i].complexity;) j++;
    if (j - i < 2) continue;
    for (size_t k = i; !st && k < j; k++) st = set_repr(c, &w->items.data[k]);
    if (!st) qsort(w->items.data + i, j - i, sizeof *w->items.data, by_repr);
  }
  if (st) return st;
  /* Sorting moved the items: rebuild the chains. */
  psgi_map_fini(&w->index);
  psgi_map_init(&w->index, ctx);
  for (size_t i = 0; i < w->items.len; i++) {
    witem *it = &w->items.data[i];
    psgi_map_entry *me = psgi_map_put_ptr(&w->index, (const void *)(uintptr_t)it->key, NULL);
    if (!me) return psgi_nomem(ctx);
    it->next = (size_t)(uintptr_t)me->value;
    me->value = (void *)(uintptr_t)(i + 1);
    it->seq = i;
    if (!heap_push(c, w, i)) return psgi_nomem(ctx);
  }
  w->next_seq = w->items.len;
  return PSG_OK;
}

/* Scope ------------------------------------------------------------------------ */

static psg_status bind(cse *c, psg_tir_node *var, psg_tir_node *value) {
  uint64_t key = 0;
  psgi_map_entry *ve = NULL;
  if (value && !c->equiv) {
    psgi_cse_info in;
    psg_status st = psgi_cse_info_of(&c->tables, value, &in);
    if (st) return st;
    key = in.hash | 1;
    if (!(ve = psgi_map_put_ptr(&c->values, (const void *)(uintptr_t)key, NULL))) return psgi_nomem(c->ctx);
  }
  psgi_map_entry *me = psgi_map_put_ptr(&c->known, var, NULL);
  if (!me || !PSGI_VEC_PUSH(c->ctx, &c->context, ((binding){var, value, key}))) return psgi_nomem(c->ctx);
  me->value = (void *)((uintptr_t)me->value + 1);
  if (ve) ve->value = (void *)((uintptr_t)ve->value + 1);
  psg_tir_retain(var);
  psg_tir_retain(value);
  return PSG_OK;
}

static void unbind_to(cse *c, size_t len) {
  while (c->context.len > len) {
    binding b = c->context.data[--c->context.len];
    psgi_map_entry *me = psgi_map_get_ptr(&c->known, b.var);
    if (me) me->value = (void *)((uintptr_t)me->value - 1);
    psgi_map_entry *ve = b.key ? psgi_map_get_ptr(&c->values, (const void *)(uintptr_t)b.key) : NULL;
    if (ve) ve->value = (void *)((uintptr_t)ve->value - 1);
    psg_tir_release(b.var);
    psg_tir_release(b.value);
  }
}

/* TVM's UndefinedVars(Evaluate(e), context vars) is empty. */
static psg_status all_vars_known(cse *c, const psg_tir_node *e, bool *out) {
  psgi_cse_nodes st;
  psgi_cse_nodes_init(&st);
  psgi_map lets; /* the vars of the Lets inside e (rare: made at the first) */
  bool have_lets = false, oom = false;
  st.data[st.len++] = e;
  *out = true;
  while (!oom && *out && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    if (n->kind == PSG_TIR_LET) {
      if (!have_lets) psgi_map_init(&lets, c->ctx), have_lets = true;
      if (!psgi_map_put_ptr(&lets, n->kids[0], NULL)) oom = true;
    }
    if (psgi_tir_is_var_kind(n->kind)) {
      psgi_map_entry *me = psgi_map_get_ptr(&c->known, n);
      if (!(me && me->value) && !(have_lets && psgi_map_get_ptr(&lets, n))) *out = false;
    }
    for (uint32_t i = 0; !oom && i < n->nkids; i++)
      if (psgi_tir_is_expr_kind(n->kids[i]->kind) && !psgi_cse_nodes_push(c->ctx, &st, n->kids[i])) oom = true;
  }
  psgi_cse_nodes_fini(c->ctx, &st);
  if (have_lets) psgi_map_fini(&lets);
  return oom ? psgi_nomem(c->ctx) : PSG_OK;
}

/* A set of nonzero keys (hashes, or addresses times an odd constant): open
 * addressing, linear probing, at most half full, on the C stack while small
 * (nothing_to_common's, one per node; collect_names'). */
typedef struct hash_set {
  uint64_t small[64], *slots;
  size_t cap, len;
} hash_set;

static void hash_set_init(hash_set *h) {
  memset(h->small, 0, sizeof h->small);
  h->slots = h->small;
  h->cap = sizeof h->small / sizeof *h->small;
  h->len = 0;
}

static void hash_set_fini(psg_ctx *ctx, hash_set *h) {
  if (h->slots != h->small) psgi_free(ctx, h->slots);
}

/* Adds key; *is_new when it was not there. False: out of memory. */
static bool hash_set_add(psg_ctx *ctx, hash_set *h, uint64_t key, bool *is_new) {
  if (2 * (h->len + 1) > h->cap) {
    size_t ncap = 2 * h->cap;
    uint64_t *ns = psgi_calloc(ctx, psgi_mul_size(ncap, sizeof *ns));
    if (!ns) return false;
    for (size_t i = 0; i < h->cap; i++) {
      if (!h->slots[i]) continue;
      size_t j = (size_t)(h->slots[i] >> 7) & (ncap - 1);
      while (ns[j]) j = (j + 1) & (ncap - 1);
      ns[j] = h->slots[i];
    }
    hash_set_fini(ctx, h);
    h->slots = ns;
    h->cap = ncap;
  }
  size_t j = (size_t)(key >> 7) & (h->cap - 1);
  while (h->slots[j] && h->slots[j] != key) j = (j + 1) & (h->cap - 1);
  *is_new = !h->slots[j];
  if (*is_new) h->slots[j] = key, h->len++;
  return true;
}

/* The names of the form cse_var_* of the vars of body, in c->names (the
 * only ones new_var can meet). A walk over every operand; a node with more
 * than one reference may be reached again and is walked once. */
static psg_status collect_names(cse *c, const psg_tir_node *body) {
  psg_ctx *ctx = c->ctx;
  psgi_cse_nodes st;
  psgi_cse_nodes_init(&st);
  hash_set seen; /* the shared nodes met, by their address times an odd constant (one to one, never 0) */
  hash_set_init(&seen);
  psg_status s = PSG_OK;
  st.data[st.len++] = body;
  while (!s && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    if (psgi_tir_is_var_kind(n->kind)) {
      const char *name = n->u.var.name;
      if (strncmp(name, "cse_var_", 8) == 0 && !psgi_map_put_str(&c->names, name, strlen(name), NULL))
        s = psgi_nomem(ctx);
      continue;
    }
    for (uint32_t i = 0; !s && i < n->nkids; i++) {
      const psg_tir_node *k = n->kids[i];
      if (!k->nkids && !psgi_tir_is_var_kind(k->kind)) continue;
      if (__atomic_load_n(&k->refcount, __ATOMIC_RELAXED) != 1) {
        bool is_new;
        if (!hash_set_add(ctx, &seen, (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull, &is_new)) s = psgi_nomem(ctx);
        if (s || !is_new) continue;
      }
      if (!psgi_cse_nodes_push(ctx, &st, k)) s = psgi_nomem(ctx);
    }
  }
  psgi_cse_nodes_fini(ctx, &st);
  hash_set_fini(ctx, &seen);
  return s;
}

/* TVM's GenerateNewVar: cse_var_<k>, skipping names the initial body uses. */
static psg_status new_var(cse *c, psg_tir_dtype dtype, psg_tir_node **out) {
  char name[32];
  do snprintf(name, sizeof name, "cse_var_%d", ++c->num_last_try);
  while (psgi_map_get_str(&c->names, name, strlen(name)));
  return psg_tir_var_create(c->ctx, name, dtype, NULL, NULL, out);
}

/* ReplaceSelectedExpr, batched ---------------------------------------------------
 * TVM replaces each selected computation in the whole statement, one walk
 * per computation, and binds a new var around the result. The decisions
 * (bound var, new var, or its subterms) never read the statement, so the
 * replacements of a run of them are done in one walk here: a node becomes
 * the var of the first computation of the run equal to it. That is what the
 * walks one after another give: a computation comes before any smaller one
 * (its subterms are strictly smaller), so an earlier replacement inside a
 * node makes it hold a var no later computation holds (a new var), and the
 * let values of the run's new vars take the replacements after their own
 * (the later walks cover them). A bound var is a var of the context, which a
 * later computation may hold: a computation holding a bound var of the run
 * starts a new run. With identify_equiv_terms each run holds one
 * computation (equivalence is not by the memoized hash). */

typedef struct step {
  psg_tir_node *target, *var; /* owned */
  bool is_new;                /* a new var (bound by a let around the result) */
  size_t complexity;
  size_t next; /* the previous step with the same hash (index + 1, 0 ends) */
} step;

typedef struct batch {
  PSGI_VEC(step) steps;
  psgi_map index;                      /* target hash | 1 -> last step with it (index + 1) */
  PSGI_VEC(psg_tir_node *) bound_vars; /* the context vars of the run's bound steps (borrowed) */
} batch;

typedef struct replacer {
  cse *c;
  batch *b;
  size_t from; /* steps before it do not apply */
  size_t min_size; /* the smallest target's complexity; 0 with identify_equiv_terms (no pruning) */
} replacer;

/* The first step from r->from on whose target equals n (index + 1, 0:
 * none); `in` is n's info (without identify_equiv_terms). */
static psg_status first_match(replacer *r, const psg_tir_node *n, const psgi_cse_info *in, size_t *out) {
  *out = 0;
  batch *b = r->b;
  if (r->c->equiv) {
    bool eq;
    psg_status st = equivalent(r->c, (psg_tir_node *)n, b->steps.data[r->from].target, &eq);
    if (!st && eq) *out = r->from + 1;
    return st;
  }
  psgi_map_entry *me = psgi_map_get_ptr(&b->index, (const void *)(uintptr_t)(in->hash | 1));
  for (size_t i = me ? (size_t)(uintptr_t)me->value : 0; i; i = b->steps.data[i - 1].next) {
    const step *s = &b->steps.data[i - 1];
    if (i - 1 < r->from || s->complexity != in->complexity || (*out && *out < i)) continue;
    const psg_tir_node *t = s->target;
    if (t == n || (t->kind == n->kind && t->dtype == n->dtype && psg_arith_expr_equal(n, t))) *out = i;
  }
  return PSG_OK;
}

/* What becomes of n in the walk: *repl (a new reference) when it is
 * replaced or kept whole, NULL when its operands are walked. */
static psg_status decide(replacer *r, const psg_tir_node *n, psg_tir_node **repl) {
  *repl = NULL;
  bool is_expr = psgi_tir_is_expr_kind(n->kind);
  if (!is_expr && !psgi_tir_is_stmt_kind(n->kind)) {
    psg_tir_retain(*repl = (psg_tir_node *)n); /* buffers, iter vars: not rewritten */
    return PSG_OK;
  }
  if (!is_expr) return PSG_OK;
  if (psgi_cse_is_leaf(n)) { /* never a computation: kept without a visit */
    psg_tir_retain(*repl = (psg_tir_node *)n);
    return PSG_OK;
  }
  size_t k;
  bool oom = false;
  psg_status st;
  psgi_cse_info in = {0};
  if (r->min_size) {
    /* a tree smaller than every target holds no copy of one: kept whole */
    if ((st = psgi_cse_info_of(&r->c->tables, n, &in))) return st;
    if (in.complexity < r->min_size) {
      psg_tir_retain(*repl = (psg_tir_node *)n);
      return PSG_OK;
    }
  }
  if ((st = first_match(r, n, &in, &k))) return st;
  if (k && psgi_cse_eligible(&r->c->tables, n, &oom)) psg_tir_retain(*repl = r->b->steps.data[k - 1].var);
  return oom ? psgi_nomem(r->c->ctx) : PSG_OK;
}

static psg_status decide_cb(void *user, const psg_tir_node *n, psg_tir_node **repl) {
  return decide(user, n, repl);
}

/* `in` with the targets of steps from `from` on replaced: a post-order walk
 * over the operands `decide` leaves to it, a node rebuilt when one of its
 * operands changed; a node with more than one reference (maybe shared) is
 * rewritten once (memo). The rewrite of a node depends on the node alone,
 * so this is the memoizing mutator's result, without its bookkeeping for
 * every node. */
static psg_status replace(cse *c, batch *b, size_t from, psg_tir_node *in, psg_tir_node **out) {
  replacer r = {c, b, from, 0};
  if (!c->equiv) {
    r.min_size = SIZE_MAX;
    for (size_t i = from; i < b->steps.len; i++)
      if (b->steps.data[i].complexity < r.min_size) r.min_size = b->steps.data[i].complexity;
  }
  return psgi_tir_rewrite_post(c->ctx, in, decide_cb, &r, out);
}

static void batch_clear(cse *c, batch *b) {
  for (size_t i = 0; i < b->steps.len; i++) {
    psg_tir_release(b->steps.data[i].target);
    psg_tir_release(b->steps.data[i].var);
  }
  b->steps.len = 0;
  b->bound_vars.len = 0;
  psgi_map_fini(&b->index);
  psgi_map_init(&b->index, c->ctx);
}

static void batch_fini(cse *c, batch *b) {
  batch_clear(c, b);
  PSGI_VEC_FREE(c->ctx, &b->steps);
  PSGI_VEC_FREE(c->ctx, &b->bound_vars);
  psgi_map_fini(&b->index);
}

/* Applies the run to *result (replaced by the new node) and empties it. */
static psg_status batch_flush(cse *c, batch *b, bool stmt, psg_tir_node **result) {
  if (!b->steps.len) return PSG_OK;
  psg_tir_node *body = NULL;
  psg_status st = replace(c, b, 0, *result, &body);
  for (size_t i = 0; !st && i < b->steps.len; i++) {
    step *s = &b->steps.data[i];
    if (!s->is_new) continue;
    psg_tir_node *value = NULL, *next = NULL;
    st = i + 1 < b->steps.len ? replace(c, b, i + 1, s->target, &value) : (psg_tir_retain(value = s->target), PSG_OK);
    if (!st)
      st = stmt ? psg_tir_let_stmt_create(c->ctx, s->var, value, body, NULL, &next)
                : psg_tir_let_create(c->ctx, s->var, value, body, NULL, &next);
    psg_tir_release(value);
    if (!st) {
      psg_tir_release(body);
      body = next;
    }
  }
  if (!st) {
    psg_tir_release(*result);
    *result = body;
  } else {
    psg_tir_release(body);
  }
  batch_clear(c, b);
  return st;
}

/* Whether expression e holds one of the run's bound vars. */
static psg_status holds_bound_var(cse *c, const batch *b, const psg_tir_node *e, bool *out) {
  *out = false;
  if (!b->bound_vars.len) return PSG_OK;
  psgi_cse_nodes st;
  psgi_cse_nodes_init(&st);
  bool oom = false;
  st.data[st.len++] = e;
  while (!oom && !*out && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    if (psgi_tir_is_var_kind(n->kind))
      for (size_t i = 0; i < b->bound_vars.len; i++) *out |= b->bound_vars.data[i] == n;
    for (uint32_t i = 0; !oom && i < n->nkids; i++)
      if (psgi_tir_is_expr_kind(n->kids[i]->kind) && !psgi_cse_nodes_push(c->ctx, &st, n->kids[i])) oom = true;
  }
  psgi_cse_nodes_fini(c->ctx, &st);
  return oom ? psgi_nomem(c->ctx) : PSG_OK;
}

/* Adds the replacement of target by var to the run, after applying the run
 * first when target holds one of its bound vars (or always with
 * identify_equiv_terms). */
static psg_status batch_add(cse *c, batch *b, bool stmt, psg_tir_node **result, psg_tir_node *target,
                            psg_tir_node *var, bool is_new) {
  bool holds;
  psg_status st = holds_bound_var(c, b, target, &holds);
  if (!st && (holds || c->equiv)) st = batch_flush(c, b, stmt, result);
  if (st) return st;
  psgi_cse_info ti = {0};
  if (!c->equiv && (st = psgi_cse_info_of(&c->tables, target, &ti))) return st;
  psgi_map_entry *me = psgi_map_put_ptr(&b->index, (const void *)(uintptr_t)(ti.hash | 1), NULL);
  step s = {target, var, is_new, ti.complexity, me ? (size_t)(uintptr_t)me->value : 0};
  if (!me || !PSGI_VEC_PUSH(c->ctx, &b->steps, s) || (!is_new && !PSGI_VEC_PUSH(c->ctx, &b->bound_vars, var)))
    return psgi_nomem(c->ctx);
  me->value = (void *)(uintptr_t)b->steps.len;
  psg_tir_retain(target);
  psg_tir_retain(var);
  return PSG_OK;
}

/* The analysis of one node -------------------------------------------------------- */

/* TVM's DirectSubexpr: the topmost eligible terms strictly inside e. */
static psg_status add_direct_subexprs(cse *c, worklist *w, const psg_tir_node *e) {
  psgi_cse_nodes st;
  psgi_cse_nodes_init(&st);
  psg_status s = PSG_OK;
  bool oom = false;
  for (uint32_t i = e->nkids; !oom && i-- > 0;)
    if (psgi_cse_visited_slot(e, i) && !psgi_cse_nodes_push(c->ctx, &st, e->kids[i])) oom = true;
  while (!oom && !s && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    if (psgi_cse_eligible(&c->tables, n, &oom)) {
      bool added;
      s = worklist_add(c, w, (psg_tir_node *)n, 1, &added);
      if (!s && added) {
        w->items.data[w->items.len - 1].seq = w->next_seq++;
        if (!heap_push(c, w, w->items.len - 1)) oom = true;
      }
      continue;
    }
    for (uint32_t i = n->nkids; !oom && i-- > 0;)
      if (psgi_cse_visited_slot(n, i) && !psgi_cse_nodes_push(c->ctx, &st, n->kids[i])) oom = true;
  }
  psgi_cse_nodes_fini(c->ctx, &st);
  return s ? s : oom ? psgi_nomem(c->ctx) : PSG_OK;
}

/* Whether steps 1-3 surely leave `cur` as it is (*out true): every eligible
 * computation in it (at any depth, through the visited slots) occurs once,
 * and none equals a value bound in the context. Then no computation of the
 * work list is done twice and none is bound: nothing is replaced. Decided
 * by the memoized hashes, so a collision only sends `cur` the full way. */
static psg_status nothing_to_common(cse *c, psg_tir_node *cur, bool *out) {
  psg_ctx *ctx = c->ctx;
  psgi_cse_nodes st;
  hash_set seen;
  psg_status s = PSG_OK;
  *out = !c->equiv && !c->no_fast_paths;
  if (!*out) return PSG_OK;
  hash_set_init(&seen);
  psgi_cse_nodes_init(&st);
  st.data[st.len++] = cur;
  while (!s && *out && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    psgi_cse_info in;
    /* psgi_cse_eligible, with the info read once */
    if (psgi_tir_is_expr_kind(n->kind) && n->kind != PSG_TIR_RAMP && n->kind != PSG_TIR_BROADCAST) {
      if ((s = psgi_cse_info_of(&c->tables, n, &in))) break;
      if (!in.forbidden) {
        bool is_new;
        uint64_t key = in.hash | 1;
        psgi_map_entry *ve = c->values.len ? psgi_map_get_ptr(&c->values, (const void *)(uintptr_t)key) : NULL;
        if (ve && ve->value) *out = false;
        else if (!hash_set_add(ctx, &seen, key, &is_new)) s = psgi_nomem(ctx);
        else if (!is_new) *out = false;
      }
    }
    for (uint32_t i = 0; !s && *out && i < n->nkids; i++)
      if (psgi_cse_visited_slot(n, i) && !psgi_cse_is_leaf(n->kids[i]) && !psgi_cse_nodes_push(ctx, &st, n->kids[i]))
        s = psgi_nomem(ctx);
  }
  psgi_cse_nodes_fini(ctx, &st);
  hash_set_fini(ctx, &seen);
  if (s) *out = false;
  return s;
}

/* Whether statement s's computation table is surely empty without building
 * it or walking s: its table is cached and empty, or s is a loop whose min
 * and extent are constants or vars (a loop's table keeps what at least two
 * of min, extent and body do, and those two do nothing). Steps 1-3 on an
 * empty table have no work list: s stays as it is. Unlike nothing_to_common
 * this says nothing of s's children, which are analysed as usual. */
static bool table_known_empty(cse *c, const psg_tir_node *s) {
  if (c->no_fast_paths) return false;
  if (s->kind == PSG_TIR_FOR && psgi_cse_is_leaf(s->kids[1]) && psgi_cse_is_leaf(s->kids[2])) return true;
  const psgi_cse_table *t = c->tables.cache.len ? psgi_cse_cached_table(&c->tables, s) : NULL;
  return t && !t->items.len;
}

/* The order among computations of one size ----------------------------------
 * TVM sorts the work list by size, then by the legacy text of the
 * computations, and takes them in that order: each is bound to the var of a
 * context value equal to it, gets a new var, or is left for its direct
 * subterms (added to the list). The text is costly to make and it rarely
 * matters: the decision on a computation reads the context and its count
 * alone, and its count only grows by the subterms of larger computations
 * (strictly larger, so taken earlier whatever the order within a size), so
 * every order by size makes the same decisions. What the order changes is
 * the sequence of the replacements (bound vars, new vars: their numbers
 * and the nesting of their lets) among computations of one size. So the
 * list is decided first in table order within a size; when no two
 * computations of one size are replaced, the replacements come out in the
 * one order that sizes give, as in TVM's; otherwise the list is built
 * again with the text order and decided again. */

typedef struct decision {
  size_t item;        /* index into the work list's items */
  psg_tir_node *bound; /* the context var it becomes (borrowed), or NULL: a new var */
} decision;
typedef PSGI_VEC(decision) decisions;

/* Step 3's decisions on the work list, in its order, into *plan (the
 * direct subterms of the computations left added to w). With `stop_at_tie`,
 * stops with *tie at the second decided computation of one size. */
static psg_status decide_all(cse *c, worklist *w, bool stop_at_tie, decisions *plan, bool *tie) {
  psg_status st = PSG_OK;
  size_t last_size = 0; /* sizes are at least 1: 0 is none */
  *tie = false;
  while (!st && w->heap.len) {
    size_t i = heap_pop(w);
    psg_tir_node *e = w->items.data[i].e, *bound = NULL;
    bool maybe_bound = true; /* a value of the context equal to e has e's hash (c->values counts them) */
    if (!c->equiv) {
      psgi_map_entry *ve = c->values.len ? psgi_map_get_ptr(&c->values, (const void *)(uintptr_t)w->items.data[i].key)
                                         : NULL;
      maybe_bound = ve && ve->value;
    }
    for (size_t k = 0; !st && maybe_bound && !bound && k < c->context.len; k++) {
      bool eq = false;
      if (c->context.data[k].value) st = equivalent(c, c->context.data[k].value, e, &eq);
      if (eq) bound = c->context.data[k].var;
    }
    bool replaced = bound != NULL;
    if (!st && !bound) {
      bool known;
      st = all_vars_known(c, e, &known);
      if (!st && known && w->items.data[i].count >= 2) replaced = true;
      else if (!st) st = add_direct_subexprs(c, w, e);
    }
    if (st || !replaced) continue;
    size_t size = w->items.data[i].complexity;
    if (size == last_size) *tie = true;
    last_size = size;
    if (*tie && stop_at_tie) break;
    if (!PSGI_VEC_PUSH(c->ctx, plan, ((decision){i, bound}))) st = psgi_nomem(c->ctx);
  }
  return st;
}

/* Steps 1-3 on `cur`: *out is the node with its commoned computations bound
 * (cur itself, retained, when none); *created when a var was introduced;
 * *trivial when nothing_to_common held. */
static psg_status analyse(cse *c, psg_tir_node *cur, bool stmt, psg_tir_node **out, bool *created, bool *trivial) {
  psg_ctx *ctx = c->ctx;
  if (stmt && table_known_empty(c, cur)) { /* no computation to consider: nothing replaced or bound */
    psg_tir_retain(*out = cur);
    *created = *trivial = false;
    return PSG_OK;
  }
  psg_status fs = nothing_to_common(c, cur, trivial);
  if (fs) return fs;
  if (*trivial) {
    psg_tir_retain(*out = cur);
    *created = false;
    return PSG_OK;
  }
  const psgi_cse_table *t = NULL;
  psgi_cse_table local;
  psgi_cse_table_init(&local, ctx);
  psg_status st = stmt ? psgi_cse_stmt_table(&c->tables, cur, &t) : psgi_cse_expr_table(&c->tables, cur, &local);
  if (!stmt) t = &local;
  psg_tir_node *result = cur;
  psg_tir_retain(result);
  *created = false;
  worklist w = {0};
  decisions plan = {0};
  batch run = {0};
  psgi_map_init(&run.index, ctx);
  /* the order among computations of one size by their text only where it
   * matters (always with identify_equiv_terms: the merge sorts by text) */
  bool by_text = c->equiv || c->no_fast_paths, tie = false;
  if (!st && t->items.len) st = worklist_build(c, t, by_text, &w);
  else psgi_map_init(&w.index, ctx);
  if (!st) st = decide_all(c, &w, !by_text, &plan, &tie);
  if (!st && tie) { /* two decided computations of one size: again, in TVM's order */
    worklist_fini(c, &w);
    memset(&w, 0, sizeof w);
    plan.len = 0;
    st = worklist_build(c, t, true, &w);
    if (!st) st = decide_all(c, &w, false, &plan, &tie);
  }
  for (size_t k = 0; !st && k < plan.len; k++) {
    psg_tir_node *e = w.items.data[plan.data[k].item].e, *bound = plan.data[k].bound;
    if (bound) {
      st = batch_add(c, &run, stmt, &result, e, bound, false);
    } else {
      psg_tir_node *v = NULL;
      st = new_var(c, e->dtype, &v);
      if (!st) st = batch_add(c, &run, stmt, &result, e, v, true);
      psg_tir_release(v);
      *created = true;
    }
  }
  PSGI_VEC_FREE(ctx, &plan);
  if (!st) st = batch_flush(c, &run, stmt, &result);
  batch_fini(c, &run);
  worklist_fini(c, &w);
  psgi_cse_table_fini(ctx, &local);
  if (st) {
    psg_tir_release(result);
    return st;
  }
  *out = result;
  return PSG_OK;
}

/* The walk (step 4) ---------------------------------------------------------------- */

static bool is_stmt(const psg_tir_node *n) { return n->kind >= PSG_TIR_FIRST_STMT && n->kind <= PSG_TIR_LAST_STMT; }

/* Enters n, a child of a node whose subtree nothing_to_common cleared when
 * under_trivial. Such a subtree holds every eligible computation once, and
 * none equal to a value bound above it or inside it (a bound value inside
 * it is a second occurrence), so its nodes are not analysed: the analysis
 * would find nothing. */
static psg_status enter(cse *c, psg_tir_node *n, bool under_trivial) {
  if (psgi_cse_is_leaf(n) || (!is_stmt(n) && !psgi_tir_is_expr_kind(n->kind))) {
    if (!PSGI_VEC_PUSH(c->ctx, &c->results, n)) return psgi_nomem(c->ctx);
    psg_tir_retain(n);
    return PSG_OK;
  }
  bool stmt = is_stmt(n), created = !under_trivial, trivial = under_trivial;
  psg_tir_node *cur = n;
  psg_tir_retain(cur);
  while (created) {
    psg_tir_node *next = NULL;
    psg_status st = analyse(c, cur, stmt, &next, &created, &trivial);
    psg_tir_release(cur);
    if (st) return st;
    cur = next;
    if (!stmt) break; /* TVM's VisitExpr does not analyse again */
  }
  frame f = {cur, 0, c->context.len, c->results.len, trivial};
  if (!PSGI_VEC_PUSH(c->ctx, &c->stack, f)) {
    psg_tir_release(cur);
    return psgi_nomem(c->ctx);
  }
  return PSG_OK;
}

static psg_status finish(cse *c, frame *f, psg_tir_node **out) {
  psg_tir_node **kids = (c->results.data ? c->results.data + f->res_base : NULL);
  return psgi_tir_rebuild_if_changed(f->cur, kids, out);
}

static psg_status walk(cse *c, psg_tir_node *root, psg_tir_node **out) {
  psg_status st = enter(c, root, false);
  while (!st && c->stack.len) {
    frame *f = &c->stack.data[c->stack.len - 1];
    psg_tir_node *n = f->cur;
    if (f->next < n->nkids) {
      uint32_t slot = f->next++;
      if (((n->kind == PSG_TIR_LET || n->kind == PSG_TIR_LET_STMT) && slot == 2) ||
          (n->kind == PSG_TIR_FOR && slot == 3))
        st = bind(c, n->kids[0], n->kind == PSG_TIR_FOR ? NULL : n->kids[1]);
      if (st) break;
      if (psgi_cse_visited_slot(n, slot)) {
        st = enter(c, n->kids[slot], f->trivial);
      } else if (PSGI_VEC_PUSH(c->ctx, &c->results, n->kids[slot])) {
        psg_tir_retain(n->kids[slot]);
      } else {
        st = psgi_nomem(c->ctx);
      }
      continue;
    }
    psg_tir_node *r = NULL;
    st = finish(c, f, &r);
    for (size_t i = f->res_base; i < c->results.len; i++) psg_tir_release(c->results.data[i]);
    c->results.len = f->res_base;
    unbind_to(c, f->ctx_len);
    psg_tir_release(n);
    c->stack.len--;
    if (!st && !PSGI_VEC_PUSH(c->ctx, &c->results, r)) st = psgi_nomem(c->ctx);
    if (st) psg_tir_release(r);
  }
  while (c->stack.len) psg_tir_release(c->stack.data[--c->stack.len].cur);
  if (!st && c->results.len == 1) {
    *out = c->results.data[0];
    c->results.len = 0;
  }
  for (size_t i = 0; i < c->results.len; i++) psg_tir_release(c->results.data[i]);
  c->results.len = 0;
  return st;
}

psg_status psgi_tir_common_subexpr_elim(psg_ctx *ctx, const psg_tir_prim_func *f, bool identify_equiv_terms,
                                        psg_tir_prim_func **out) {
  *out = NULL;
  cse c = {.ctx = ctx, .equiv = identify_equiv_terms, .no_fast_paths = psgi_cse_exhaustive};
  psgi_cse_tables_init(&c.tables, ctx);
  c.tables.lazy_loops = !c.no_fast_paths;
  psgi_map_init(&c.known, ctx);
  psgi_map_init(&c.values, ctx);
  psgi_map_init(&c.names, ctx);
  psgi_map_init(&c.reprs, ctx);
  psg_status st = psg_arith_analyzer_create(ctx, &c.fresh);
  if (!st) st = collect_names(&c, f->kids[0]);
  for (size_t i = 0; !st && i < psg_tir_prim_func_num_params(f); i++)
    st = bind(&c, psg_tir_prim_func_get_param(f, i), NULL);
  psg_tir_node *body = NULL;
  if (!st) st = walk(&c, f->kids[0], &body);
  if (!st && body == f->kids[0]) {
    psg_tir_retain(*out = (psg_tir_node *)f);
  } else if (!st) {
    st = psgi_tir_func_with_body(ctx, f, body, out);
  }
  psg_tir_release(body);
  unbind_to(&c, 0);
  PSGI_VEC_FREE(ctx, &c.context);
  PSGI_VEC_FREE(ctx, &c.stack);
  PSGI_VEC_FREE(ctx, &c.results);
  psg_arith_analyzer_destroy(c.fresh);
  psgi_map_fini(&c.known);
  psgi_map_fini(&c.values);
  psgi_map_fini(&c.names);
  for (size_t i = 0; i < c.reprs.len; i++) {
    psgi_free(ctx, c.reprs.entries[i].value);
    if (c.reprs.entries[i].value) psg_tir_release((psg_tir_node *)c.reprs.entries[i].key);
  }
  psgi_map_fini(&c.reprs);
  psgi_cse_tables_fini(&c.tables);
  return st;
}

static psg_status cse_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                           psg_tir_prim_func **out) {
  (void)mod;
  bool enable = psg_attr_get_bool(psg_attrs_get(user, "enable_cse_tir")) &&
                !psg_pass_context_config_bool(pc, "tir.disable_cse_tir");
  bool equiv = psg_attr_get_bool(psg_attrs_get(user, "identify_equiv_terms")) ||
               psg_pass_context_config_bool(pc, "tir.enable_equiv_terms_in_cse_tir");
  if (!enable) {
    psg_tir_retain(*out = f);
    return PSG_OK;
  }
  return psgi_tir_common_subexpr_elim(psg_pass_context_get_ctx(pc), f, equiv, out);
}

static const psg_pass_option options[] = {
    {"enable_cse_tir", PSG_CONFIG_BOOL, "true"}, {"identify_equiv_terms", PSG_CONFIG_BOOL, "false"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_tir_common_subexpr_elim = {
    .name = "tir.CommonSubexprElimTIR",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .options = options,
    .help = "bind computations done twice or more to cse_var_N lets (enable_cse_tir, identify_equiv_terms; "
            "configs tir.disable_cse_tir, tir.enable_equiv_terms_in_cse_tir)",
    .prim_func = cse_pass,
    .cacheable = true,
};
