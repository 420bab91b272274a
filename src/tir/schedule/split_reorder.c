/* Passage — splits and then a reorder of one loop nest in one rewrite
 * (psgi_sch_split_reorder, schedule_internal.h): what the default
 * schedule's register tiles do to a naive nest (conv2d: the channel, the
 * height and the width split, then all of its loops reordered).
 *
 * One after another, each split substitutes its loop's var in the loop's
 * body and commits, then reorder finds every loop again and rebuilds the
 * nest's headers in the new order. When the split loops and the order's
 * other loops lie on one perfect nest whose headers use no split var, every
 * split is exact (no guard) and both parts of each split are in the order,
 * the result of that sequence is known: the nest's headers in the order
 * reorder would give them (the split parts where their loop stood, each a
 * serial loop from 0 over its factor with the split loop's span), over the
 * innermost body with every split var replaced by its fused index. The
 * substitutions compose (no fused index holds another split's var), and
 * reorder rebuilt every header of the nest anyway. That is built here
 * directly; anything else goes through the primitives (design.md 246).
 * Only for an unchecked schedule (the default schedule's, which checks its
 * result once): the primitives would check each step. */
#include "tir/schedule/schedule_internal.h"

_Thread_local bool psgi_sch_split_reorder_fast_taken;
_Thread_local bool psgi_sch_split_reorder_slow;

/* A loop of the nest after the splits: an original For, or part `part` of
 * a split. */
typedef struct header {
  const psg_tir_node *orig;
  const psgi_sch_split_plan *plan;
  const psg_tir_node *split; /* the For the plan splits */
  size_t part;
} header;

static const psg_tir_node *header_var(const header *h) {
  return h->orig ? h->orig->kids[0] : h->plan->vars[h->part];
}

/* Its extent (a split part's min is a fresh 0). */
static const psg_tir_node *header_extent(const header *h) {
  return h->orig ? h->orig->kids[2] : h->plan->fexpr[h->part];
}

static psg_status by_primitives(psg_tir_schedule *s, const psgi_sch_split_plan *plans, size_t nplans,
                                psg_tir_expr *const *order, size_t norder) {
  psg_status st = PSG_OK;
  for (size_t i = 0; i < nplans && !st; i++) st = psgi_sch_split_apply(s, &plans[i]);
  return st ? st : psg_tir_schedule_reorder(s, order, norder);
}

/* The plan splitting var, or NULL. */
static const psgi_sch_split_plan *plan_of(const psgi_sch_split_plan *plans, size_t nplans, const psg_tir_node *var) {
  for (size_t i = 0; i < nplans; i++)
    if (plans[i].var == var) return &plans[i];
  return NULL;
}

/* Whether var is a part of a plan. */
static bool is_part(const psgi_sch_split_plan *plans, size_t nplans, const psg_tir_node *var) {
  for (size_t i = 0; i < nplans; i++)
    for (size_t k = 0; k < plans[i].n; k++)
      if (plans[i].vars[k] == var) return true;
  return false;
}

/* The conditions of the one rewrite (see the top), on the nest path D;
 * *ok false when one fails. Fills V (the headers after the splits, from
 * depth *dmin to *dmax of D). */
static psg_status check(psg_tir_schedule *s, const psgi_sch_split_plan *plans, size_t nplans,
                        psg_tir_expr *const *order, size_t norder, psgi_sch_path *D, size_t *dmin, size_t *dmax,
                        header *V, size_t *m, bool *ok) {
  psg_ctx *ctx = s->ctx;
  *ok = false;
  for (size_t i = 0; i < nplans; i++) {
    if (!plans[i].exact || plan_of(plans, i, plans[i].var)) return PSG_OK; /* each of another loop */
    for (size_t k = 0; k < plans[i].n; k++) {
      size_t seen = 0;
      for (size_t j = 0; j < norder; j++) seen += order[j] == plans[i].vars[k];
      if (seen != 1) return PSG_OK;
    }
  }
  for (size_t j = 0; j < norder; j++)
    for (size_t i = 0; i < j; i++)
      if (order[i] == order[j]) return PSG_OK;
  /* the original loops: the split ones and the order's others; the deepest one's path */
  const psg_tir_node *orig[64];
  size_t norig = 0;
  for (size_t i = 0; i < nplans; i++) orig[norig++] = plans[i].var;
  for (size_t j = 0; j < norder && norig < 64; j++)
    if (!is_part(plans, nplans, order[j])) orig[norig++] = order[j];
  if (norig >= 64) return PSG_OK;
  psgi_sch_path p = {0};
  size_t lo = SIZE_MAX, hi = 0, mark = psg_ctx_diag_count(ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < norig && !st; i++) {
    st = psgi_sch_find_loop(ctx, s->func->kids[0], orig[i], "reorder", &p);
    if (st) break;
    size_t d = p.node.len - 1;
    if (d < lo) lo = d;
    if (d >= hi) {
      hi = d;
      psgi_sch_path t = *D;
      *D = p;
      p = t;
    }
  }
  psgi_sch_path_fini(ctx, &p);
  if (st && st != PSG_ERR_NOMEM && !psg_ctx_is_oom(ctx)) { /* a loop not found: the primitives say it again */
    psgi_diag_truncate(ctx, mark);
    return PSG_OK;
  }
  if (st) return st;
  /* a perfect nest holding every one of them, whose ranges use no split var */
  for (size_t d = lo; d <= hi; d++) {
    const psg_tir_node *f = D->node.data[d];
    if (f->kind != PSG_TIR_FOR) return PSG_OK;
    for (size_t i = 0; i < nplans; i++) {
      bool u1 = false, u2 = false;
      if ((st = psgi_sch_uses_var(ctx, f->kids[1], plans[i].var, &u1)) ||
          (st = psgi_sch_uses_var(ctx, f->kids[2], plans[i].var, &u2)))
        return st;
      if (u1 || u2) return PSG_OK;
    }
  }
  for (size_t i = 0; i < norig; i++) {
    bool on = false;
    for (size_t d = lo; d <= hi; d++) on |= D->node.data[d]->kids[0] == orig[i];
    if (!on) return PSG_OK;
  }
  size_t n = 0;
  for (size_t d = lo; d <= hi; d++) {
    const psg_tir_node *f = D->node.data[d];
    const psgi_sch_split_plan *pl = plan_of(plans, nplans, f->kids[0]);
    for (size_t k = 0; k < (pl ? pl->n : 1); k++) {
      if (n >= 64) return PSG_OK;
      V[n++] = pl ? (header){NULL, pl, f, k} : (header){f, NULL, NULL, 0};
    }
  }
  *dmin = lo;
  *dmax = hi;
  *m = n;
  *ok = true;
  return PSG_OK;
}

psg_status psgi_sch_split_reorder(psg_tir_schedule *s, const psgi_sch_split_plan *plans, size_t nplans,
                                  psg_tir_expr *const *order, size_t norder) {
  psgi_sch_split_reorder_fast_taken = false;
  if (!s || !order || norder == 0) return PSG_ERR_INVALID_ARGUMENT;
  if (psgi_sch_split_reorder_slow || !s->unchecked || nplans == 0 || nplans > 8)
    return by_primitives(s, plans, nplans, order, norder);
  psg_ctx *ctx = s->ctx;
  psgi_sch_path D = {0};
  header V[64], hdr[64];
  size_t dmin = 0, dmax = 0, m = 0;
  bool ok = false;
  psg_status st = check(s, plans, nplans, order, norder, &D, &dmin, &dmax, V, &m, &ok);
  /* reorder's mapping: a given loop's place takes the next loop of the order */
  for (size_t p = 0, next = 0; !st && ok && p < m; p++) {
    bool given = false;
    for (size_t k = 0; k < norder; k++) given |= header_var(&V[p]) == order[k];
    hdr[p] = V[p];
    if (given) {
      const psg_tir_node *v = order[next++];
      for (size_t q = 0; q < m; q++)
        if (header_var(&V[q]) == v) hdr[p] = V[q];
    }
  }
  /* reorder's check: a loop's range uses only the vars of loops outside it */
  for (size_t p = 0; !st && ok && p < m; p++)
    for (size_t q = p + 1; !st && ok && q < m; q++) {
      bool u1 = false, u2 = false;
      if (hdr[p].orig) st = psgi_sch_uses_var(ctx, hdr[p].orig->kids[1], header_var(&hdr[q]), &u1);
      if (!st) st = psgi_sch_uses_var(ctx, header_extent(&hdr[p]), header_var(&hdr[q]), &u2);
      ok = !u1 && !u2;
    }
  if (st || !ok) {
    psgi_sch_path_fini(ctx, &D);
    return st ? st : by_primitives(s, plans, nplans, order, norder);
  }
  /* the innermost body with every split var replaced, under the headers */
  psg_tir_node *vars[8], *vals[8], *body = NULL, *root = NULL;
  for (size_t i = 0; i < nplans; i++) vars[i] = plans[i].var, vals[i] = plans[i].fused;
  st = psgi_tir_substitute_n(ctx, D.node.data[dmax]->kids[3], vars, vals, nplans, &body);
  for (size_t p = m; p-- > 0 && !st;) {
    const header *h = &hdr[p];
    psg_tir_node *g = NULL, *zero = NULL;
    if (h->orig) {
      const psg_tir_node *f = h->orig;
      st = psg_tir_for_create(ctx, f->kids[0], f->kids[1], f->kids[2], f->u.loop.kind, body, f->u.loop.annotations,
                              &f->span, &g);
    } else {
      st = psgi_sch_int(ctx, psg_tir_dtype_of(h->plan->var), 0, &zero);
      if (!st)
        st = psg_tir_for_create(ctx, h->plan->vars[h->part], zero, h->plan->fexpr[h->part], PSG_TIR_FOR_SERIAL, body,
                                NULL, &h->split->span, &g);
      psg_tir_release(zero);
    }
    psg_tir_release(body);
    body = g;
  }
  if (!st) st = psgi_sch_replace(ctx, &D, dmin, body, &root);
  if (!st) st = psgi_sch_commit(s, root, "reorder");
  if (!st) psgi_sch_split_reorder_fast_taken = true;
  psg_tir_release(body);
  psg_tir_release(root);
  psgi_sch_path_fini(ctx, &D);
  return st;
}
