/* Passage — the simplifier's walk: post-order over the expression with an
 * explicit stack (any depth), each node rebuilt from its simplified operands
 * and then rewritten by the rules (rules.c) until none applies (at most
 * MAX_STEPS times), in canonical mode also put in canonical form
 * (canonical.c). Shared subexpressions are simplified once (a memo per
 * walk). The public entry points of the simplifier and the provers. */
#include "tir/arith/rules.h"

enum { BRANCH_DEPTH_LIMIT = 1, BRANCH_MAX_NODES = 256 };

/* Does e have at most `limit` nodes? (a bounded walk) */
static bool small_expr(psg_ctx *ctx, psg_tir_expr *e, size_t limit) {
  psg_tir_node *small[64];
  PSGI_VEC(psg_tir_node *) st;
  PSGI_ARITH_SVEC_INIT(&st, small);
  size_t seen = 0;
  bool ok = PSGI_ARITH_SVEC_PUSH(ctx, &st, small, e);
  while (ok && st.len) {
    psg_tir_node *n = st.data[--st.len];
    if (++seen > limit) ok = false;
    for (uint32_t i = 0; ok && i < n->nkids; i++) ok = PSGI_ARITH_SVEC_PUSH(ctx, &st, small, n->kids[i]);
  }
  PSGI_ARITH_SVEC_FREE(ctx, &st, small);
  return ok;
}

/* apply_constraints_to_boolean_branches: in `x and y`, y only matters when x
 * holds, so y is simplified knowing x, and x knowing y; in `x or y`, knowing
 * the other's negation. Operands are simplified again this way only when they
 * have at most BRANCH_MAX_NODES nodes and outside another such
 * simplification (BRANCH_DEPTH_LIMIT), so the work stays linear. */
static psg_status boolean_branches(psg_arith_analyzer *a, psg_tir_expr *e, bool canonical, psg_tir_expr **out) {
  *out = NULL;
  if (!a->boolean_branches || a->branch_depth >= BRANCH_DEPTH_LIMIT || psg_tir_dtype_lanes(e->dtype) != 1 ||
      (e->kind != PSG_TIR_AND && e->kind != PSG_TIR_OR) || !small_expr(a->ctx, e, BRANCH_MAX_NODES))
    return PSG_OK;
  bool is_and = e->kind == PSG_TIR_AND;
  psg_tir_expr *side[2] = {e->kids[0], e->kids[1]}, *res[2] = {NULL, NULL};
  psg_status st = PSG_OK;
  a->branch_depth++;
  for (int i = 0; i < 2 && !st; i++) {
    psg_tir_expr *ctx_cond = i == 0 ? side[1] : res[0], *neg = NULL;
    if (!is_and && (st = psgi_arith_mk(a->ctx, PSG_TIR_NOT, ctx_cond, NULL, &neg))) break;
    psg_arith_scope sc;
    st = psg_arith_enter_constraint(a, is_and ? ctx_cond : neg, &sc);
    psg_tir_release(neg);
    if (st) break;
    /* The side proved by the other is dropped by the rules: known true. */
    st = psgi_arith_rewrite(a, side[i], canonical, &res[i]);
    psg_arith_exit_constraint(a, &sc);
  }
  a->branch_depth--;
  if (!st && (res[0] != side[0] || res[1] != side[1])) st = psgi_arith_mk(a->ctx, e->kind, res[0], res[1], out);
  psg_tir_release(res[0]);
  psg_tir_release(res[1]);
  return st;
}

/* convert_boolean_to_and_of_ors: TVM converts an AND or OR met by the
 * rewrite simplifier (not the canonical one) once constant folding and the
 * known conditions have nothing to say of it; the rules then do not run on
 * it. *out NULL: not converted. */
static psg_status and_of_ors(psg_arith_analyzer *a, psg_tir_expr *e, bool canonical, psg_tir_expr **out) {
  *out = NULL;
  bool zero;
  if (!a->and_of_ors || a->and_of_ors_busy || canonical || (e->kind != PSG_TIR_AND && e->kind != PSG_TIR_OR) ||
      psg_tir_dtype_lanes(e->dtype) != 1 || psgi_arith_identity(e->kind, e->kids[0], e->kids[1], &zero) ||
      psgi_arith_known(a, e) >= 0)
    return PSG_OK;
  return psgi_arith_and_of_ors(a, e, out);
}

/* Rules at e, then (canonical mode) its canonical form and the rules
 * again. A new reference in *out. *strict: the result is e because no rule
 * applied to e and (canonical mode) it has no other canonical form, so the
 * rewrite mode's rewrite_node of e gives e too (when neither and_of_ors
 * nor boolean_branches, which read the mode, is on; docs/design.md 222). */
static psg_status rewrite_node(psg_arith_analyzer *a, psg_tir_expr *e, bool canonical, bool rules_known,
                               psg_tir_expr **out, bool *strict) {
  psg_tir_expr *start = NULL, *cur = NULL, *c = NULL;
  *strict = false;
  psg_status st = boolean_branches(a, e, canonical, &start);
  if (st) return st;
  if ((st = and_of_ors(a, start ? start : e, canonical, &cur)) || cur) {
    psg_tir_release(start);
    *out = cur;
    return st;
  }
  bool branched = start != NULL;
  if (rules_known && !branched) {
    psg_tir_retain(cur = e); /* the rules give e back (see rules_fixed) */
    if (psgi_arith_check_rules_known && !(st = psgi_arith_rules_fixpoint(a, e, 0, &c))) {
      psgi_arith_rules_known_checked++;
      psgi_arith_rules_known_wrong += c != e;
      psg_tir_release(c);
      c = NULL;
    }
  } else {
    st = psgi_arith_rules_fixpoint(a, start ? start : e, 0, &cur);
  }
  psg_tir_release(start);
  if (st || !canonical) {
    *strict = !st && !branched && cur == e;
    *out = cur;
    return st;
  }
  if ((st = psgi_arith_canonical_node(a, cur, &c))) {
    psg_tir_release(cur);
    return st;
  }
  if (!c || psgi_arith_equal(a, c, cur)) {
    psg_tir_release(c);
    *strict = !branched && cur == e;
    *out = cur;
    return PSG_OK;
  }
  psg_tir_release(cur);
  st = psgi_arith_rules_fixpoint(a, c, 0, out);
  psg_tir_release(c);
  return st;
}

/* Select and tir.if_then_else: the true operand is simplified knowing the
 * condition, the false one knowing its negation (TVM). Nested at most
 * BRANCH_SCOPES deep in one walk; deeper branches get the plain walk. */
enum { BRANCH_SCOPES = 8 };
static bool branching(const psg_tir_expr *n) {
  if (n->kind != PSG_TIR_SELECT && n->kind != PSG_TIR_CALL) return false;
  if (psg_tir_dtype_lanes(n->dtype) != 1) return false;
  return n->kind == PSG_TIR_SELECT || strcmp(psgi_tir_ops[n->u.op].name, "tir.if_then_else") == 0;
}

/* Before operand i (1 or 2) of a branching node: cond[0] is the simplified
 * condition. */
static psg_status branch_scope(psg_arith_analyzer *a, uint32_t i, psg_tir_expr *const *cond, bool *scoped,
                               psg_arith_scope *scope, int *scopes) {
  if (*scoped) {
    psg_arith_exit_constraint(a, scope);
    *scoped = false;
    (*scopes)--;
  }
  psg_tir_expr *c = cond[0];
  if (i > 2 || c->kind == PSG_TIR_INT_IMM || psg_tir_dtype_lanes(c->dtype) != 1 || *scopes >= BRANCH_SCOPES)
    return PSG_OK;
  psg_tir_expr *neg = NULL;
  psg_status st = i == 2 ? psgi_arith_mk(a->ctx, PSG_TIR_NOT, c, NULL, &neg) : PSG_OK;
  if (!st) st = psg_arith_enter_constraint(a, i == 2 ? neg : c, scope);
  psg_tir_release(neg);
  if (st) return st;
  *scoped = true;
  (*scopes)++;
  return PSG_OK;
}

/* Operand i of e is simplified (the bound var of a Let and a BufferLoad's
 * buffer are not). Read off e's kind: every other operand of an expression
 * is an expression (src/tir/expr.c and call.c check each), so the walk
 * need not load the operand to ask. */
static bool walked(const psg_tir_node *e, uint32_t i) {
  return i != 0 || (e->kind != PSG_TIR_LET && e->kind != PSG_TIR_BUFFER_LOAD);
}
/* How many operands of e are simplified. */
static uint32_t num_walked(const psg_tir_node *e) {
  return e->nkids - (e->nkids && (e->kind == PSG_TIR_LET || e->kind == PSG_TIR_BUFFER_LOAD));
}

/* The key of n's rewrite in a->rewritten: its address, + 1 in canonical
 * mode (nodes are 16-byte aligned). */
static const void *rewritten_key(const psg_tir_expr *n, bool canonical) {
  return (const void *)((uintptr_t)n + canonical);
}

/* Whether this walk shares results with the other walks of the analyzer's
 * current facts (a->rewritten): not when nested in a rewrite that changed
 * the analyzer's state (boolean branches, and_of_ors); those keep a memo of
 * their own. Options the rules read are part of the state: a change of
 * them empties the table. */
static bool share_rewritten(psg_arith_analyzer *a) {
  if (a->branch_depth || a->and_of_ors_busy) return false;
  unsigned opts = 1u << 5 | (unsigned)a->use_let_values | (unsigned)a->transitive << 1 |
                  (unsigned)a->boolean_branches << 2 | (unsigned)a->and_of_ors << 3 | (unsigned)a->product_sum << 4;
  if (opts != a->rewritten_opts) {
    psgi_arith_rewritten_clear(a);
    a->rewritten_opts = opts;
  }
  return true;
}

/* What a walk knows of a result r of its input node n (bits of
 * val.fixed, also kept in the low bits of a memo's value: nodes are at
 * least 4-byte aligned):
 *   FIXED_SAME  the walk in this mode, under the same facts, options and
 *               scope nesting, gives r back: r was its own rewrite_node
 *               result and so was every operand (by induction the walk
 *               rebuilds nothing over r and rewrite_node is a function of
 *               node and state);
 *   FIXED_RW    the same holds of the rewrite (non-canonical) mode: in
 *               canonical mode, r passed the rules untouched (strict) and
 *               had no other canonical form, with its operands FIXED_RW.
 * psg_arith_simplify's third walk (rewrite mode over the canonical walk's
 * result) then finds the FIXED_RW subtrees in a->rewritten and stops there
 * (docs/design.md 222). */
enum { FIXED_SAME = 1, FIXED_RW = 2, FIXED_MASK = 3 };
typedef struct val {
  psg_tir_expr *e;
  unsigned fixed;
} val;

static psg_tir_expr *memo_node(const psgi_map_entry *en) {
  return (psg_tir_expr *)((uintptr_t)en->value & ~(uintptr_t)FIXED_MASK);
}
static unsigned memo_fixed(const psgi_map_entry *en) { return (unsigned)((uintptr_t)en->value & FIXED_MASK); }
static void *memo_value(psg_tir_expr *r, unsigned fixed) { return (void *)((uintptr_t)r | fixed); }

/* Kinds no rule, no canonical form and neither boolean conversion
 * changes (rules.c: const_fold, the identities and the switch skip them;
 * canonical.c's switch has no case for them): rewrite_node gives the
 * node back, strictly, in either mode and under any facts. */
static bool inert_kind(int kind) {
  return kind == PSG_TIR_BUFFER_LOAD || kind == PSG_TIR_RAMP || kind == PSG_TIR_BROADCAST;
}

/* A var the rules leave alone under the current facts (rules.c: no fact
 * substitutes it, no let value is read, it is no scalar bool that a known
 * condition decides); the canonical form has no case for vars. */
static bool inert_var(psg_arith_analyzer *a, const psg_tir_expr *n) {
  if (!psgi_tir_is_var_kind(n->kind)) return false;
  if (psg_tir_dtype_is_bool(n->dtype) && psg_tir_dtype_lanes(n->dtype) == 1) return false;
  const psgi_arith_fact *fa = psgi_arith_find_fact(a, n);
  return !fa || (!fa->subst && !(fa->let_value && a->use_let_values));
}

/* Records r (a FIXED_RW result met at no branch scope) as its own rewrite
 * in rewrite mode, for a later rewrite walk under the same state. */
static psg_status note_fixed_rw(psg_arith_analyzer *a, psg_tir_expr *r) {
  bool is_new;
  psgi_map_entry *en = psgi_map_put_ptr(&a->rewritten, rewritten_key(r, false), &is_new);
  if (!en) return psgi_nomem(a->ctx);
  if (is_new) {
    psg_tir_retain(r); /* the key */
    psg_tir_retain(r);
    en->value = memo_value(r, FIXED_SAME | FIXED_RW);
  }
  return PSG_OK;
}

/* Does the rules' fixpoint give n back under the current facts and options?
 * Known when a rewrite walk (shared, outside branch scopes) left n as it is
 * with FIXED_SAME: n was then its own rewrite_node result in rewrite mode,
 * which (neither boolean conversion on: `cross`) is the rules' fixpoint
 * alone, the same first step canonical mode's rewrite_node takes. So a
 * canonical walk over the first walk's result skips the rules at every node
 * the first walk kept (docs/design.md 234). */
static bool rules_fixed(psg_arith_analyzer *a, const psg_tir_expr *n) {
  const psgi_map_entry *en = psgi_map_get_ptr(&a->rewritten, rewritten_key(n, false));
  return en && memo_node(en) == n && (memo_fixed(en) & FIXED_SAME);
}

psg_status psgi_arith_rewrite(psg_arith_analyzer *a, psg_tir_expr *e, bool canonical, psg_tir_expr **out) {
  psg_ctx *ctx = a->ctx;
  *out = NULL;
  /* Outside branch scopes (their facts differ) a node's rewrite is a
   * function of the node, the mode and the facts: with `shared`, the
   * analyzer keeps every node's (a walk of a statement's value meets the
   * index its store was simplified with; simplify's third walk meets most
   * of the first's). Otherwise nodes with several parents are memoized for
   * this walk only. */
  bool shared = share_rewritten(a);
  bool fast = !a->exhaustive;
  /* A constant, or (fast) a var no fact replaces, is what the walk below
   * gives back at its first step, noting nothing: without its set-up (a
   * loop's min and extent are constants: 42% of embedding's calls). */
  if (e->kind == PSG_TIR_INT_IMM || e->kind == PSG_TIR_FLOAT_IMM || e->kind == PSG_TIR_STRING_IMM ||
      (fast && inert_var(a, e))) {
    psg_tir_retain(e);
    *out = e;
    return PSG_OK;
  }
  /* FIXED_RW needs both modes' rewrite_node to agree on a strict node. */
  bool cross = fast && canonical && shared && !a->and_of_ors && !a->boolean_branches;
  typedef struct {
    psg_tir_expr *n;
    uint32_t next; /* next operand to push */
    bool scoped;   /* a branch of it is being walked under its condition */
    psg_arith_scope scope;
  } frame;
  psg_arith_scope start = {a->facts.len, a->known.len};
  int scopes = 0; /* frames walking a branch under its condition: no memo then */
  frame st_small[32];
  val vals_small[32];
  psg_tir_expr *kids_small[8];
  PSGI_VEC(frame) st;
  PSGI_VEC(val) vals; /* results of finished operands */
  PSGI_VEC(psg_tir_expr *) kids;
  PSGI_ARITH_SVEC_INIT(&st, st_small);
  PSGI_ARITH_SVEC_INIT(&vals, vals_small);
  PSGI_ARITH_SVEC_INIT(&kids, kids_small);
  psgi_map memo;
  psgi_map_init(&memo, ctx);
  psg_status s = PSG_OK;
  frame f0 = {e, 0, false, {0, 0}};
  if (!PSGI_ARITH_SVEC_PUSH(ctx, &st, st_small, f0)) s = psgi_nomem(ctx);
  while (!s && st.len) {
    frame *f = &st.data[st.len - 1];
    psg_tir_expr *n = f->n;
    if (n->kind == PSG_TIR_INT_IMM || n->kind == PSG_TIR_FLOAT_IMM || n->kind == PSG_TIR_STRING_IMM ||
        (fast && f->next == 0 && inert_var(a, n))) {
      /* a constant: no rule and no canonical form changes it; nor a var
       * that no fact replaces */
      st.len--;
      psg_tir_retain(n);
      val v = {n, FIXED_SAME | FIXED_RW};
      if (!PSGI_ARITH_SVEC_PUSH(ctx, &vals, vals_small, v)) {
        psg_tir_release(n);
        s = psgi_nomem(ctx);
      }
      continue;
    }
    psgi_map_entry *hit = NULL;
    if (f->next == 0 && !scopes) {
      if (shared) hit = psgi_map_get_ptr(&a->rewritten, rewritten_key(n, canonical));
      else if (n->refcount > 1 && n->nkids) hit = psgi_map_get_ptr(&memo, n); /* only these are met twice */
    }
    if (hit) {
      val v = {memo_node(hit), memo_fixed(hit)};
      psg_tir_retain(v.e);
      st.len--;
      if (!PSGI_ARITH_SVEC_PUSH(ctx, &vals, vals_small, v)) {
        psg_tir_release(v.e);
        s = psgi_nomem(ctx);
      }
      continue;
    }
    if (f->next == 0 && n->nkids && !branching(n)) {
      /* Every operand's frame at once, the first on top (no scope between
       * them), so the frame is met twice rather than once per operand. */
      uint32_t nk = n->nkids;
      f->next = nk;
      if (!PSGI_ARITH_SVEC_RESERVE(ctx, &st, st_small, st.len + nk)) {
        s = psgi_nomem(ctx);
        break;
      }
      for (uint32_t i = nk; i-- > 0;)
        if (walked(n, i)) st.data[st.len++] = (frame){n->kids[i], 0, false, {0, 0}};
      continue;
    }
    if (f->next < n->nkids) {
      uint32_t i = f->next++;
      if (branching(n) && i >= 1 && (s = branch_scope(a, f->next - 1, &vals.data[vals.len - i].e, &f->scoped,
                                                       &f->scope, &scopes)))
        break;
      if (walked(n, i)) {
        frame fk = {n->kids[i], 0, false, {0, 0}};
        if (!PSGI_ARITH_SVEC_PUSH(ctx, &st, st_small, fk)) s = psgi_nomem(ctx);
      }
      continue;
    }
    if (f->scoped) {
      psg_arith_exit_constraint(a, &f->scope);
      scopes--;
    }
    st.len--;
    /* Gather the operands: walked ones from vals (in order), others as they are. */
    size_t base = vals.len - num_walked(n);
    kids.len = 0;
    bool changed = false;
    unsigned kids_fixed = FIXED_SAME | FIXED_RW;
    if (!PSGI_ARITH_SVEC_RESERVE(ctx, &kids, kids_small, n->nkids)) {
      s = psgi_nomem(ctx);
      break;
    }
    for (uint32_t i = 0, j = 0; i < n->nkids; i++) {
      psg_tir_expr *k = n->kids[i];
      if (walked(n, i)) {
        kids_fixed &= vals.data[base + j].fixed;
        k = vals.data[base + j++].e;
      }
      changed |= k != n->kids[i];
      kids.data[kids.len++] = k;
    }
    psg_tir_expr *node = NULL, *res = NULL;
    if (changed) s = psgi_arith_rebuild(n, kids.data, &node);
    else {
      node = n;
      psg_tir_retain(node);
    }
    bool strict = false;
    if (!s && fast && inert_kind(node->kind)) {
      psg_tir_retain(res = node);
      strict = true;
    } else if (!s) {
      s = rewrite_node(a, node, canonical, cross && !scopes && node == n && rules_fixed(a, n), &res, &strict);
    }
    unsigned fixed = 0;
    if (!s && res == node) fixed = kids_fixed & (FIXED_SAME | (strict ? FIXED_RW : 0));
    if (!canonical) fixed = fixed & FIXED_SAME ? FIXED_SAME | FIXED_RW : 0;
    /* The largest FIXED_RW subtrees (operands walked outside any scope)
     * are noted for the rewrite walk that follows a canonical one. */
    if (!s && cross && !scopes && !(fixed & FIXED_RW)) {
      for (uint32_t i = 0, j = 0; i < n->nkids && !s; i++) {
        if (!walked(n, i)) continue;
        val *kv = &vals.data[base + j++];
        if ((kv->fixed & FIXED_RW) && !(branching(n) && i >= 1) && kv->e->nkids) s = note_fixed_rw(a, kv->e);
      }
    }
    for (size_t i = base; i < vals.len; i++) psg_tir_release(vals.data[i].e);
    vals.len = base;
    psg_tir_release(node);
    if (s) {
      psg_tir_release(res);
      break;
    }
    bool is_new;
    bool keep = !scopes && (shared || (n->nkids && n->refcount > 1));
    psgi_map_entry *en = !keep ? NULL
                         : shared ? psgi_map_put_ptr(&a->rewritten, rewritten_key(n, canonical), &is_new)
                                  : psgi_map_put_ptr(&memo, n, &is_new);
    if (en) {
      if (!is_new) psg_tir_release(memo_node(en));
      else if (shared) psg_tir_retain(n); /* its address stays its own while the entry lives */
      en->value = memo_value(res, fixed);
      psg_tir_retain(res);
    } else if (keep) {
      psg_tir_release(res);
      s = psgi_nomem(ctx);
      break;
    }
    val v = {res, fixed};
    if (!PSGI_ARITH_SVEC_PUSH(ctx, &vals, vals_small, v)) {
      psg_tir_release(res);
      s = psgi_nomem(ctx);
    }
  }
  if (!s && cross && (vals.data[0].fixed & FIXED_RW) && vals.data[0].e->nkids) s = note_fixed_rw(a, vals.data[0].e);
  if (!s) {
    *out = vals.data[0].e;
    vals.len = 0;
  } else {
    psg_arith_exit_constraint(a, &start); /* branch scopes left open */
  }
  for (size_t i = 0; i < vals.len; i++) psg_tir_release(vals.data[i].e);
  for (size_t i = 0; i < memo.len; i++) psg_tir_release(memo_node(&memo.entries[i]));
  psgi_map_fini(&memo);
  PSGI_ARITH_SVEC_FREE(ctx, &st, st_small);
  PSGI_ARITH_SVEC_FREE(ctx, &vals, vals_small);
  PSGI_ARITH_SVEC_FREE(ctx, &kids, kids_small);
  return s;
}

static psg_status need_expr(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  *out = NULL;
  psgi_arith_cache_trim(a);
  if (e && psgi_tir_is_expr_kind(e->kind)) return PSG_OK;
  return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                       "arith: simplify needs an expression");
}

psg_status psg_arith_rewrite_simplify(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  psg_status st = need_expr(a, e, out);
  return st ? st : psgi_arith_rewrite(a, e, false, out);
}

psg_status psg_arith_canonical_simplify(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  psg_status st = need_expr(a, e, out);
  return st ? st : psgi_arith_rewrite(a, e, true, out);
}

psg_status psg_arith_simplify(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  psg_status st = need_expr(a, e, out);
  if (st) return st;
  psg_tir_expr *r1, *r2;
  if ((st = psgi_arith_rewrite(a, e, false, &r1))) return st;
  st = psgi_arith_rewrite(a, r1, true, &r2);
  psg_tir_release(r1);
  if (st) return st;
  if (r1 == e && r2 == e) {
    /* Neither pass changed e: the last one would rewrite e again, under the
     * same facts, to e (the walk returns its input when nothing applies). */
    *out = r2;
    return PSG_OK;
  }
  st = psgi_arith_rewrite(a, r2, false, out);
  psg_tir_release(r2);
  return st;
}

bool psg_arith_can_prove(psg_arith_analyzer *a, psg_tir_expr *cond) {
  psg_tir_expr *r;
  if (!cond || psg_arith_simplify(a, cond, &r)) return false;
  bool yes = psgi_arith_is_int_value(r, 1) && psg_tir_dtype_is_bool(r->dtype);
  psg_tir_release(r);
  return yes;
}

bool psg_arith_can_prove_equal(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y) {
  if (!x || !y) return false;
  if (psgi_arith_equal(a, x, y)) return true;
  if (!psgi_arith_is_index_dtype(x->dtype) || x->dtype != y->dtype) return false;
  psg_tir_expr *d, *r;
  if (psg_tir_binary_create(a->ctx, PSG_TIR_SUB, x, y, NULL, &d)) return false;
  psg_status st = psg_arith_simplify(a, d, &r);
  psg_tir_release(d);
  if (st) return false;
  bool yes = psgi_arith_is_int_value(r, 0);
  psg_tir_release(r);
  return yes;
}
