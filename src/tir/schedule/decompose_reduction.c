/* Passage — decompose_reduction: a reduction stage in the init-guarded form
 * (`if k == 0: C[i] = init` next to the update, under the reduction loops;
 * after a split of k, `if k_0 * 4 + k_1 == 0`)
 * gets its init as a nest of its own, placed just before a given loop; the
 * guard goes. The legacy TE form (`for i: {C[i] = init; for k: ...}`) is
 * decomposed already. */
#include "tir/schedule/schedule_internal.h"

/* The For binding var on the path, or NULL. */
static const psg_tir_node *loop_of(const psgi_sch_path *p, const psg_tir_node *var) {
  for (size_t d = 0; d < p->node.len; d++)
    if (p->node.data[d]->kind == PSG_TIR_FOR && p->node.data[d]->kids[0] == var) return p->node.data[d];
  return NULL;
}

static bool add_var(psg_tir_node **vars, size_t *n, psg_tir_node *v) {
  for (size_t i = 0; i < *n; i++)
    if (vars[i] == v) return true;
  if (*n >= 8) return false;
  vars[(*n)++] = v;
  return true;
}

/* Whether a - b is, canonically, a sum of loop vars (loops from 0) with
 * positive coefficients: then a == b holds exactly at the first iteration
 * of those loops (`k_0 * 2 + k_1 == 0` after a split of k). */
static bool is_first_iteration(psg_ctx *ctx, const psgi_sch_path *p, psg_tir_node *a, psg_tir_node *b,
                               psg_tir_node **vars, size_t *n) {
  psg_tir_node *diff = NULL, *canon = NULL;
  psg_arith_analyzer *an = NULL;
  bool ok = !psg_tir_binary_create(ctx, PSG_TIR_SUB, a, b, NULL, &diff) && !psg_arith_analyzer_create(ctx, &an) &&
            !psg_arith_canonical_simplify(an, diff, &canon);
  const psg_tir_node *stack[32];
  size_t top = 0;
  if (ok) stack[top++] = canon;
  while (ok && top) {
    const psg_tir_node *t = stack[--top], *v = t;
    if (t->kind == PSG_TIR_ADD) {
      if (top + 2 > 32) ok = false;
      else stack[top++] = t->kids[0], stack[top++] = t->kids[1];
      continue;
    }
    if (t->kind == PSG_TIR_MUL) {
      const psg_tir_node *c = t->kids[1]->kind == PSG_TIR_INT_IMM ? t->kids[1] : t->kids[0];
      v = c == t->kids[1] ? t->kids[0] : t->kids[1];
      ok = c->kind == PSG_TIR_INT_IMM && c->u.int_value > 0;
    }
    const psg_tir_node *f = ok && psgi_tir_is_var_kind(v->kind) ? loop_of(p, v) : NULL;
    ok = f && f->kids[1]->kind == PSG_TIR_INT_IMM && f->kids[1]->u.int_value == 0 &&
         add_var(vars, n, (psg_tir_node *)v);
  }
  psg_arith_analyzer_destroy(an);
  psg_tir_release(diff);
  psg_tir_release(canon);
  return ok;
}

/* Whether cond is `v == min` or, more generally, true exactly at the first
 * iteration of some loops on the path (a conjunction of such); those loops'
 * vars, the reduction vars, go to vars[*n]. */
static bool is_init_guard(psg_ctx *ctx, const psgi_sch_path *p, const psg_tir_node *cond, psg_tir_node **vars,
                          size_t *n) {
  const psg_tir_node *stack[16];
  size_t top = 0;
  stack[top++] = cond;
  while (top) {
    const psg_tir_node *c = stack[--top];
    if (c->kind == PSG_TIR_AND) {
      if (top + 2 > 16) return false;
      stack[top++] = c->kids[1];
      stack[top++] = c->kids[0];
      continue;
    }
    if (c->kind != PSG_TIR_EQ) return false;
    const psg_tir_node *f = psgi_tir_is_var_kind(c->kids[0]->kind) ? loop_of(p, c->kids[0]) : NULL;
    if (f && psg_arith_expr_equal(f->kids[1], c->kids[1])) {
      if (!add_var(vars, n, c->kids[0])) return false;
    } else if (!is_first_iteration(ctx, p, c->kids[0], c->kids[1], vars, n)) {
      return false;
    }
  }
  return *n > 0;
}

psg_status psg_tir_schedule_decompose_reduction(psg_tir_schedule *s, const char *block, psg_tir_expr *loop,
                                                const char **out) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  const char *prim = "decompose_reduction";
  psgi_sch_stage st;
  psgi_sch_path path = {0}, lpath = {0};
  psg_tir_node *body = s->func->kids[0], *red[8] = {0}, *keep_old[16], *keep_new[16] = {0}, *init = NULL,
               *b1 = NULL, *b2 = NULL, *seq = NULL;
  size_t nred = 0, nkeep = 0;
  psg_status rc = psgi_sch_stage_find(ctx, body, block, prim, &st);
  if (rc) return rc;
  /* The init store: the then-case of an else-less `if k == min` guard. */
  size_t ifd = 0;
  for (size_t i = 0; i < st.stores.len && !ifd; i++) {
    bool found = false;
    if ((rc = psgi_sch_find_node(ctx, body, st.stores.data[i], &path, &found))) goto done;
    size_t len = path.node.len;
    if (!found || len < 2) continue;
    psg_tir_node *g = path.node.data[len - 2];
    nred = 0;
    if (g->kind == PSG_TIR_IF_THEN_ELSE && g->nkids == 2 && is_init_guard(ctx, &path, g->kids[0], red, &nred))
      ifd = len - 2;
    else path.node.len = 0;
  }
  if (!ifd) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' has no init-guarded reduction (`if k == 0: "
                        "%s[...] = init` under its reduction loops); a block whose init is a separate statement is "
                        "decomposed already", st.name, st.name);
    goto done;
  }
  size_t ld = SIZE_MAX;
  for (size_t d = 0; d < ifd; d++)
    if (path.node.data[d]->kind == PSG_TIR_FOR && path.node.data[d]->kids[0] == loop) ld = d;
  if (ld == SIZE_MAX) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "loop '%s' does not enclose the init of block '%s'",
                        loop && psgi_tir_is_var_kind(loop->kind) ? loop->u.var.name : "?", st.name);
    goto done;
  }
  for (size_t d = 0; d < ld; d++)
    for (size_t r = 0; r < nred; r++)
      if (path.node.data[d]->kind == PSG_TIR_FOR && path.node.data[d]->kids[0] == red[r]) {
        rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "reduction loop '%s' is outside loop '%s': the init "
                            "must go before every reduction loop", red[r]->u.var.name, loop->u.var.name);
        goto done;
      }
  /* The init nest: the non-reduction loops and guards from `loop` to the
   * init that it uses, over new vars. */
  psg_tir_node *store = path.node.data[ifd + 1];
  for (size_t d = ld; d < ifd && !rc; d++) {
    psg_tir_node *n = path.node.data[d];
    bool is_red = false;
    for (size_t r = 0; r < nred; r++) is_red |= n->kind == PSG_TIR_FOR && n->kids[0] == red[r];
    if (n->kind == PSG_TIR_FOR && !is_red) {
      if (nkeep >= 16) {
        rc = psgi_sch_error(ctx, PSG_ERR_UNSUPPORTED, prim, "more than 16 loops");
        break;
      }
      keep_old[nkeep] = n->kids[0];
      rc = psgi_sch_new_var(ctx, n->kids[0]->u.var.name, "_init", psg_tir_dtype_of(n->kids[0]), &keep_new[nkeep]);
      nkeep++;
    } else if (n->kind == PSG_TIR_LET_STMT || n->kind == PSG_TIR_WHILE ||
               (n->kind == PSG_TIR_IF_THEN_ELSE && n->nkids > 2)) {
      rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "a %s stands between loop '%s' and the init of block "
                          "'%s'", psg_tir_kind_name(n->kind), loop->u.var.name, st.name);
    }
  }
  if (rc) goto done;
  if ((rc = psgi_tir_substitute_n(ctx, store, keep_old, keep_new, nkeep, &init))) goto done;
  for (size_t d = ifd; d-- > ld && !rc;) {
    psg_tir_node *n = path.node.data[d], *w = NULL, *cond = NULL;
    if (n->kind == PSG_TIR_IF_THEN_ELSE) {
      bool uses_red = false;
      for (size_t r = 0; r < nred && !rc; r++) {
        bool u = false;
        rc = psgi_sch_uses_var(ctx, n->kids[0], red[r], &u);
        uses_red |= u;
      }
      if (rc || uses_red) continue;
      rc = psgi_tir_substitute_n(ctx, n->kids[0], keep_old, keep_new, nkeep, &cond);
      if (!rc) rc = psg_tir_if_then_else_create(ctx, cond, init, NULL, &n->span, &w);
      psg_tir_release(cond);
    } else if (n->kind == PSG_TIR_FOR) {
      size_t k = 0;
      while (k < nkeep && keep_old[k] != n->kids[0]) k++;
      if (k == nkeep) continue;
      bool used = false;
      rc = psgi_sch_uses_var(ctx, init, keep_new[k], &used);
      if (rc || !used) continue;
      psg_tir_node *mn = NULL, *ex = NULL;
      rc = psgi_tir_substitute_n(ctx, n->kids[1], keep_old, keep_new, nkeep, &mn);
      if (!rc) rc = psgi_tir_substitute_n(ctx, n->kids[2], keep_old, keep_new, nkeep, &ex);
      if (!rc) rc = psg_tir_for_create(ctx, keep_new[k], mn, ex, n->u.loop.kind, init, NULL, &n->span, &w);
      psg_tir_release(mn);
      psg_tir_release(ex);
    } else {
      continue;
    }
    psg_tir_release(init);
    init = w;
  }
  if (rc) goto done;
  /* Drop the guarded init, then put the init nest before `loop`. */
  if ((rc = psgi_sch_remove(ctx, &path, ifd, &b1))) goto done;
  if ((rc = psgi_sch_find_loop(ctx, b1, loop, prim, &lpath))) goto done;
  if ((rc = psgi_sch_seq2(ctx, init, psgi_sch_path_last(&lpath), &seq))) goto done;
  if ((rc = psgi_sch_replace(ctx, &lpath, lpath.node.len - 1, seq, &b2))) goto done;
  rc = psgi_sch_commit(s, b2, prim);
  if (!rc && out) *out = st.name;
done:
  for (size_t k = 0; k < nkeep; k++) psg_tir_release(keep_new[k]);
  psg_tir_release(init);
  psg_tir_release(b1);
  psg_tir_release(b2);
  psg_tir_release(seq);
  psgi_sch_path_fini(ctx, &path);
  psgi_sch_path_fini(ctx, &lpath);
  psgi_sch_stage_fini(ctx, &st);
  return rc;
}
