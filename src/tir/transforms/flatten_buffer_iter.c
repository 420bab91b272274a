/* Passage — tir.FlattenBuffer's iterator context (flatten_buffer_iter.h).
 *
 * As TVM's IRMutatorWithAnalyzer: every loop var (For) and thread var
 * (thread_extent / virtual_thread AttrStmt) reached is an iterator over its
 * range; the condition of an `if` (tir.likely unwrapped) holds in its then
 * branch, the condition of an if_then_else call in its true branch and its
 * negation in the false one, each recorded only when it uses an iterator.
 * The iterators given to IterMapSimplify are those the indices and the
 * conditions use (TVM passes every one seen: the others change nothing at
 * the surjective level, and a per-access cost that grows with the function
 * would make the pass quadratic). */
#include "tir/transforms/flatten_buffer_iter.h"

#include "passage/tir_op.h"
#include "tir/arith/iter_map.h"
#include "tir/transforms/tir_transforms.h"

typedef PSGI_VEC(psgi_arith_iter) iter_vec;

void psgi_tir_iter_scope_init(psgi_tir_iter_scope *s, psg_ctx *ctx, psg_arith_analyzer *a) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->a = a;
  psgi_map_init(&s->loops, ctx);
}

void psgi_tir_iter_scope_fini(psgi_tir_iter_scope *s) {
  for (size_t i = 0; i < s->loops.len; i++) psgi_free(s->ctx, s->loops.entries[i].value);
  psgi_map_fini(&s->loops);
  for (size_t i = 0; i < s->preds.len; i++) psg_tir_release(s->preds.data[i].cond);
  PSGI_VEC_FREE(s->ctx, &s->preds);
  for (size_t i = 0; i < s->owned.len; i++) psg_tir_release(s->owned.data[i]);
  PSGI_VEC_FREE(s->ctx, &s->owned);
}

static psg_status add_loop(psgi_tir_iter_scope *s, const psg_tir_node *var, psg_tir_expr *min, psg_tir_expr *extent) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_ptr(&s->loops, var, &is_new);
  if (!e) return psgi_nomem(s->ctx);
  if (!is_new) return PSG_OK; /* vars are defined once */
  psg_tir_expr **range = psgi_alloc(s->ctx, 2 * sizeof *range);
  if (!range) return psgi_nomem(s->ctx);
  range[0] = min;
  range[1] = extent;
  e->value = range;
  return PSG_OK;
}

static psg_status enter(psgi_tir_iter_scope *s, const psg_tir_node *n) {
  if (n->kind == PSG_TIR_FOR) return add_loop(s, n->kids[0], n->kids[1], n->kids[2]);
  if (n->kind == PSG_TIR_ATTR_STMT && (n->flags & PSGI_TIR_HAS_NODE) && n->kids[2]->kind == PSG_TIR_ITER_VAR &&
      (!strcmp(n->u.attr_key, "thread_extent") || !strcmp(n->u.attr_key, "virtual_thread"))) {
    psg_tir_expr *zero = NULL;
    psg_status st = psg_tir_make_const_int(s->ctx, n->kids[0]->dtype, 0, NULL, &zero);
    if (st) return st;
    if (!PSGI_VEC_PUSH(s->ctx, &s->owned, zero)) {
      psg_tir_release(zero);
      return psgi_nomem(s->ctx);
    }
    return add_loop(s, n->kids[2]->kids[0], zero, n->kids[0]);
  }
  return PSG_OK;
}

psg_status psgi_tir_iter_scope_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  psgi_tir_flattener *f = m->user;
  psg_status st = psgi_tir_flattener_pre(m, n, replacement);
  return st || !f->iters ? st : enter(f->iters, n);
}

/* Does e use a loop var of the scope? *oom on allocation failure. */
static bool uses_loop(psgi_tir_iter_scope *s, const psg_tir_expr *e, bool *oom) {
  PSGI_VEC(const psg_tir_expr *) stack = {0};
  bool found = false;
  if (!PSGI_VEC_PUSH(s->ctx, &stack, e)) *oom = true;
  while (stack.len && !found && !*oom) {
    const psg_tir_expr *x = stack.data[--stack.len];
    if (psgi_tir_is_var_kind(x->kind)) {
      found = psgi_map_get_ptr(&s->loops, x) != NULL;
      continue;
    }
    for (uint32_t i = 0; i < x->nkids && !*oom; i++)
      if (psgi_tir_is_expr_kind(x->kids[i]->kind) && !PSGI_VEC_PUSH(s->ctx, &stack, x->kids[i])) *oom = true;
  }
  PSGI_VEC_FREE(s->ctx, &stack);
  return found;
}

static bool is_call_of(const psg_tir_node *n, int op) { return n->kind == PSG_TIR_CALL && n->u.op == (uint32_t)op; }

static psg_status push_pred(psgi_tir_iter_scope *s, const psg_tir_node *owner, psg_tir_expr *cond) {
  bool oom = false;
  if (!uses_loop(s, cond, &oom)) return oom ? psgi_nomem(s->ctx) : PSG_OK;
  psgi_tir_iter_pred p = {owner, cond, true};
  psg_tir_retain(cond);
  if (PSGI_VEC_PUSH(s->ctx, &s->preds, p)) return PSG_OK;
  psg_tir_release(cond);
  return psgi_nomem(s->ctx);
}

static psgi_tir_iter_pred *top_of(psgi_tir_iter_scope *s, const psg_tir_node *owner) {
  psgi_tir_iter_pred *p = s->preds.len ? &s->preds.data[s->preds.len - 1] : NULL;
  return p && p->owner == owner ? p : NULL;
}

psg_status psgi_tir_iter_scope_before_child(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot) {
  psgi_tir_iter_scope *s = ((psgi_tir_flattener *)m->user)->iters;
  bool branch_if = parent->kind == PSG_TIR_IF_THEN_ELSE, branch_call = is_call_of(parent, PSGI_TIR_OP_if_then_else);
  if (!s || (!branch_if && !branch_call) || slot == 0) return PSG_OK;
  psg_tir_expr *cond = psg_tir_mutator_get_result(m, parent->kids[0]);
  if (!cond) cond = parent->kids[0];
  if (slot == 1) {
    if (branch_if && is_call_of(cond, PSGI_TIR_OP_likely)) cond = cond->kids[0];
    return push_pred(s, parent, cond);
  }
  psgi_tir_iter_pred *top = top_of(s, parent);
  if (branch_if) { /* TVM records no condition for an else branch */
    if (top) top->active = false;
    return PSG_OK;
  }
  if (top) { /* the call's false branch: not cond */
    psg_tir_release(top->cond);
    s->preds.len--;
  }
  psg_tir_expr *neg = NULL;
  psg_status st = psg_tir_not_create(s->ctx, cond, NULL, &neg);
  if (!st) st = push_pred(s, parent, neg);
  psg_tir_release(neg);
  return st;
}

psg_status psgi_tir_iter_scope_visit_branch(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_tir_iter_scope *s = ((psgi_tir_flattener *)m->user)->iters;
  psgi_tir_iter_pred *top = s ? top_of(s, n) : NULL;
  if (top) {
    psg_tir_release(top->cond);
    s->preds.len--;
  }
  return psg_tir_mutator_default(m, n, out);
}

/* Appends the scope's loop vars e uses to iters (each once); *divmod set
 * when e holds a floordiv or floormod. */
static psg_status collect(psgi_tir_iter_scope *s, const psg_tir_expr *e, psgi_map *seen, iter_vec *iters,
                          bool *divmod) {
  PSGI_VEC(const psg_tir_expr *) stack = {0};
  psg_status st = PSGI_VEC_PUSH(s->ctx, &stack, e) ? PSG_OK : psgi_nomem(s->ctx);
  while (!st && stack.len) {
    const psg_tir_expr *x = stack.data[--stack.len];
    *divmod |= x->kind == PSG_TIR_FLOOR_DIV || x->kind == PSG_TIR_FLOOR_MOD;
    if (psgi_tir_is_var_kind(x->kind)) {
      psgi_map_entry *r = psgi_map_get_ptr(&s->loops, x);
      bool is_new = false;
      if (r && !psgi_map_put_ptr(seen, x, &is_new)) st = psgi_nomem(s->ctx);
      if (!st && r && is_new) {
        psg_tir_expr **range = r->value;
        psgi_arith_iter it = {(psg_tir_expr *)x, range[0], range[1]};
        if (!PSGI_VEC_PUSH(s->ctx, iters, it)) st = psgi_nomem(s->ctx);
      }
      continue;
    }
    for (uint32_t i = 0; !st && i < x->nkids; i++)
      if (psgi_tir_is_expr_kind(x->kids[i]->kind) && !PSGI_VEC_PUSH(s->ctx, &stack, x->kids[i]))
        st = psgi_nomem(s->ctx);
  }
  PSGI_VEC_FREE(s->ctx, &stack);
  return st;
}

psg_status psgi_tir_iter_scope_simplify(psgi_tir_iter_scope *s, psg_tir_expr **idx, size_t n) {
  iter_vec iters = {0};
  PSGI_VEC(psg_tir_expr *) preds = {0};
  psgi_map seen;
  psgi_map_init(&seen, s->ctx);
  psg_status st = PSG_OK;
  bool divmod = false, cond_divmod = false;
  for (size_t i = 0; !st && i < n; i++) st = collect(s, idx[i], &seen, &iters, &divmod);
  /* Only floordiv and floormod split an iterator; without them the
   * detection gives back the index's own sum of iterators (or fails), which
   * the simplification after this makes the same: skip the work. Nor is
   * there any without iterators. */
  bool work = !st && iters.len && divmod;
  for (size_t i = 0; work && !st && i < s->preds.len; i++) {
    if (!s->preds.data[i].active) continue;
    if (!PSGI_VEC_PUSH(s->ctx, &preds, s->preds.data[i].cond)) st = psgi_nomem(s->ctx);
    if (!st) st = collect(s, s->preds.data[i].cond, &seen, &iters, &cond_divmod);
  }
  psg_tir_expr *small[4], **out = n <= 4 ? small : psgi_alloc(s->ctx, n * sizeof *out);
  if (!st && !out) st = psgi_nomem(s->ctx);
  if (work && !st) {
    bool detected = false;
    st = psgi_arith_iter_map_simplify(s->a, idx, n, iters.data, iters.len, preds.data, preds.len, out, &detected);
    for (size_t i = 0; !st && i < n; i++) { /* out[i] is idx[i] again when not detected */
      psg_tir_release(idx[i]);
      idx[i] = out[i];
    }
  }
  if (out != small) psgi_free(s->ctx, out);
  psgi_map_fini(&seen);
  PSGI_VEC_FREE(s->ctx, &iters);
  PSGI_VEC_FREE(s->ctx, &preds);
  return st;
}
