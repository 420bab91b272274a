/* Passage — TVM's convert_boolean_to_and_of_ors (its SimplifyAsAndOfOrs): a
 * boolean expression is simplified, written as an AND of OR groups (the ORs
 * distributed over the ANDs), simplified pairwise inside each group and
 * between groups, and written back as ((g0 && g1) && g2) with each group
 * ((t0 || t1) || t2).
 *
 * Within a group, every pair of terms t, u is replaced by the operands of
 * the rewritten `t || u` (or false and the result, when it is no longer an
 * OR). Between groups: two single-term groups the same way with AND; a
 * group that contains every term of another is dropped (it is implied); two
 * groups of n terms sharing n - 1 have their differing terms rewritten as
 * `t && u` knowing the shared terms false. Then true groups are dropped, a
 * group holding true becomes true, false terms are dropped and an empty
 * group makes the whole expression false.
 *
 * The distribution can grow exponentially, so the work is capped: at most
 * MAX_GROUPS groups of MAX_TERMS terms and MAX_KEYS distinct terms; past a
 * cap the conversion gives up and the caller simplifies as usual. Every
 * walk is iterative. */
#include "tir/arith/arith_internal.h"

enum { MAX_GROUPS = 32, MAX_TERMS = 16, MAX_KEYS = 128 };
enum { KEY_TRUE = 0, KEY_FALSE = 1 };

typedef struct group {
  uint32_t n;
  uint32_t k[MAX_TERMS];
} group;

typedef struct cnf {
  psg_arith_analyzer *a;
  PSGI_VEC(psg_tir_expr *) keys; /* distinct terms (retained), by structural equality */
  PSGI_VEC(group) groups;
  bool over; /* a cap was reached */
} cnf;

/* The key of e, added when new; UINT32_MAX when past MAX_KEYS. */
static uint32_t key_of(cnf *c, psg_tir_expr *e, psg_status *st) {
  for (size_t i = 0; i < c->keys.len; i++)
    if (psgi_arith_equal(c->a, c->keys.data[i], e)) return (uint32_t)i;
  if (c->keys.len >= MAX_KEYS) {
    c->over = true;
    return UINT32_MAX;
  }
  if (!PSGI_VEC_PUSH(c->a->ctx, &c->keys, e)) {
    *st = psgi_nomem(c->a->ctx);
    return UINT32_MAX;
  }
  psg_tir_retain(e);
  return (uint32_t)(c->keys.len - 1);
}

static bool has(const group *g, uint32_t k) {
  for (uint32_t i = 0; i < g->n; i++)
    if (g->k[i] == k) return true;
  return false;
}

/* Appends the terms of src not yet in dst (first occurrence kept). */
static bool merge(group *dst, const group *src) {
  for (uint32_t i = 0; i < src->n; i++) {
    if (has(dst, src->k[i])) continue;
    if (dst->n >= MAX_TERMS) return false;
    dst->k[dst->n++] = src->k[i];
  }
  return true;
}

static bool same_set(const group *x, const group *y) {
  if (x->n != y->n) return false;
  for (uint32_t i = 0; i < x->n; i++)
    if (!has(y, x->k[i])) return false;
  return true;
}

/* The groups of e: post-order over its AND/OR nodes. Each finished node
 * leaves its groups at the end of `pool`, starting at a recorded offset: an
 * AND keeps its operands' groups side by side, an OR replaces them by every
 * pairing (x-group terms then y-group terms). */
static psg_status build(cnf *c, psg_tir_expr *e) {
  psg_ctx *ctx = c->a->ctx;
  typedef struct {
    psg_tir_expr *n;
    int next;
  } frame;
  PSGI_VEC(frame) st = {0};
  PSGI_VEC(size_t) starts = {0};
  PSGI_VEC(group) pool = {0}, tmp = {0};
  psg_status s = PSG_OK;
  frame f0 = {e, 0};
  if (!PSGI_VEC_PUSH(ctx, &st, f0)) s = psgi_nomem(ctx);
  while (!s && !c->over && st.len) {
    frame *f = &st.data[st.len - 1];
    psg_tir_expr *n = f->n;
    bool logic = n->kind == PSG_TIR_AND || n->kind == PSG_TIR_OR;
    if (logic && f->next < 2) {
      frame fk = {n->kids[f->next++], 0};
      if (!PSGI_VEC_PUSH(ctx, &st, fk)) s = psgi_nomem(ctx);
      continue;
    }
    st.len--;
    if (!logic) {
      group g = {1, {0}};
      g.k[0] = key_of(c, n, &s);
      if (s || c->over) break;
      if (!PSGI_VEC_PUSH(ctx, &starts, pool.len) || !PSGI_VEC_PUSH(ctx, &pool, g)) s = psgi_nomem(ctx);
      continue;
    }
    size_t sy = starts.data[--starts.len], sx = starts.data[starts.len - 1];
    if (n->kind == PSG_TIR_AND) {
      if (pool.len > MAX_GROUPS) c->over = true;
      continue;
    }
    tmp.len = 0;
    if ((sy - sx) * (pool.len - sy) > MAX_GROUPS) {
      c->over = true;
      break;
    }
    for (size_t i = sx; i < sy && !s && !c->over; i++)
      for (size_t j = sy; j < pool.len && !s && !c->over; j++) {
        group g = pool.data[i];
        if (!merge(&g, &pool.data[j])) c->over = true;
        else if (!PSGI_VEC_PUSH(ctx, &tmp, g)) s = psgi_nomem(ctx);
      }
    pool.len = sx;
    for (size_t i = 0; i < tmp.len && !s; i++)
      if (!PSGI_VEC_PUSH(ctx, &pool, tmp.data[i])) s = psgi_nomem(ctx);
  }
  /* A group that is a permutation of an earlier one is dropped. */
  for (size_t i = 0; !s && !c->over && i < pool.len; i++) {
    bool dup = false;
    for (size_t j = 0; j < c->groups.len && !dup; j++) dup = same_set(&c->groups.data[j], &pool.data[i]);
    if (!dup && !PSGI_VEC_PUSH(ctx, &c->groups, pool.data[i])) s = psgi_nomem(ctx);
  }
  PSGI_VEC_FREE(ctx, &st);
  PSGI_VEC_FREE(ctx, &starts);
  PSGI_VEC_FREE(ctx, &pool);
  PSGI_VEC_FREE(ctx, &tmp);
  return s;
}

/* kind(x, y) rewritten: when that changes it, *x and *y become its
 * operands (the same kind still) or the neutral constant and the result. */
static psg_status try_pair(cnf *c, int kind, uint32_t *x, uint32_t *y) {
  psg_tir_expr *joint = NULL, *r = NULL;
  psg_status s = psgi_arith_mk(c->a->ctx, kind, c->keys.data[*x], c->keys.data[*y], &joint);
  if (!s) s = psgi_arith_rewrite(c->a, joint, false, &r);
  if (!s && !psgi_arith_equal(c->a, r, joint)) {
    uint32_t nx, ny;
    if (r->kind == kind) {
      nx = key_of(c, r->kids[0], &s);
      ny = s || c->over ? 0 : key_of(c, r->kids[1], &s);
    } else {
      nx = kind == PSG_TIR_OR ? KEY_FALSE : KEY_TRUE;
      ny = key_of(c, r, &s);
    }
    if (!s && !c->over) {
      *x = nx;
      *y = ny;
    }
  }
  psg_tir_release(joint);
  psg_tir_release(r);
  return s;
}

static void remove_true_false(cnf *c) {
  size_t w = 0;
  bool empty = false;
  for (size_t i = 0; i < c->groups.len; i++) {
    group *g = &c->groups.data[i];
    if (has(g, KEY_TRUE)) continue; /* true: dropped from the AND */
    uint32_t m = 0;
    for (uint32_t j = 0; j < g->n; j++)
      if (g->k[j] != KEY_FALSE) g->k[m++] = g->k[j];
    g->n = m;
    empty |= m == 0;
    c->groups.data[w++] = *g;
  }
  c->groups.len = w;
  if (empty) { /* false: one empty group */
    c->groups.len = 1;
    c->groups.data[0].n = 0;
  }
}

/* The index in x of its first term not in y, or -1. */
static int first_not_in(const group *x, const group *y) {
  for (uint32_t i = 0; i < x->n; i++)
    if (!has(y, x->k[i])) return (int)i;
  return -1;
}

static psg_status across(cnf *c) {
  psg_status s = PSG_OK;
  for (size_t i = 0; i < c->groups.len && !s && !c->over; i++)
    for (size_t j = i + 1; j < c->groups.len && !s && !c->over; j++) {
      group *gi = &c->groups.data[i], *gj = &c->groups.data[j];
      if (gi->n == 1 && gj->n == 1) {
        s = try_pair(c, PSG_TIR_AND, &gi->k[0], &gj->k[0]);
        continue;
      }
      int di = first_not_in(gi, gj);
      if (di < 0) { /* gi within gj: gj is implied */
        gj->n = 1;
        gj->k[0] = KEY_TRUE;
        continue;
      }
      int dj = first_not_in(gj, gi);
      if (dj < 0) {
        gi->n = 1;
        gi->k[0] = KEY_TRUE;
        continue;
      }
      if (gi->n != gj->n) continue;
      uint32_t shared = 0;
      for (uint32_t t = 0; t < gj->n; t++) shared += has(gi, gj->k[t]);
      if (shared + 1 != gi->n) continue;
      /* (A || B) && (A || C): B && C knowing A false. */
      psg_tir_expr *known = NULL;
      s = psgi_arith_bool(c->a->ctx, true, 1, &known);
      for (uint32_t t = 0; t < gi->n && !s; t++) {
        if ((int)t == di) continue;
        psg_tir_expr *neg = NULL, *sn = NULL, *both = NULL;
        s = psgi_arith_mk(c->a->ctx, PSG_TIR_NOT, c->keys.data[gi->k[t]], NULL, &neg);
        if (!s) s = psg_arith_simplify(c->a, neg, &sn);
        if (!s) s = psgi_arith_mk(c->a->ctx, PSG_TIR_AND, known, sn, &both);
        psg_tir_release(neg);
        psg_tir_release(sn);
        psg_tir_release(known);
        known = both;
      }
      psg_arith_scope sc;
      if (!s) s = psg_arith_enter_constraint(c->a, known, &sc);
      psg_tir_release(known);
      if (s) break;
      s = try_pair(c, PSG_TIR_AND, &gi->k[di], &gj->k[dj]);
      psg_arith_exit_constraint(c->a, &sc);
    }
  return s;
}

static psg_status simplify_groups(cnf *c) {
  psg_status s = PSG_OK;
  for (size_t g = 0; g < c->groups.len && !s && !c->over; g++) {
    group *gr = &c->groups.data[g];
    for (uint32_t i = 0; i < gr->n && !s && !c->over; i++)
      for (uint32_t j = i + 1; j < gr->n && !s && !c->over; j++) s = try_pair(c, PSG_TIR_OR, &gr->k[i], &gr->k[j]);
  }
  if (s || c->over) return s;
  remove_true_false(c);
  if ((s = across(c)) || c->over) return s;
  remove_true_false(c);
  return PSG_OK;
}

/* ((g0 && g1) && ...) with each group ((t0 || t1) || ...), folded. */
static psg_status to_expr(cnf *c, psg_tir_expr **out) {
  psg_ctx *ctx = c->a->ctx;
  psg_tir_expr *all = NULL;
  psg_status s = psgi_arith_bool(ctx, true, 1, &all);
  for (size_t g = 0; g < c->groups.len && !s; g++) {
    psg_tir_expr *any = NULL, *next = NULL;
    s = psgi_arith_bool(ctx, false, 1, &any);
    for (uint32_t i = 0; i < c->groups.data[g].n && !s; i++) {
      s = psgi_arith_mk(ctx, PSG_TIR_OR, any, c->keys.data[c->groups.data[g].k[i]], &next);
      psg_tir_release(any);
      any = next;
    }
    if (!s) s = psgi_arith_mk(ctx, PSG_TIR_AND, all, any, &next);
    psg_tir_release(any);
    psg_tir_release(all);
    all = s ? NULL : next;
  }
  *out = all;
  return s;
}

psg_status psgi_arith_and_of_ors(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr **out) {
  *out = NULL;
  cnf c = {a, {0}, {0}, false};
  psg_tir_expr *t = NULL, *f = NULL, *simple = NULL;
  a->and_of_ors_busy = true; /* the rewrites below do not convert again */
  psg_status s = psgi_arith_bool(a->ctx, true, 1, &t);
  if (!s) s = psgi_arith_bool(a->ctx, false, 1, &f);
  if (!s) {
    key_of(&c, t, &s);
    if (!s) key_of(&c, f, &s);
  }
  if (!s) s = psg_arith_simplify(a, e, &simple);
  if (!s) s = build(&c, simple);
  if (!s && !c.over) s = simplify_groups(&c);
  if (!s && !c.over) s = to_expr(&c, out);
  a->and_of_ors_busy = false;
  psg_tir_release(t);
  psg_tir_release(f);
  psg_tir_release(simple);
  for (size_t i = 0; i < c.keys.len; i++) psg_tir_release(c.keys.data[i]);
  PSGI_VEC_FREE(a->ctx, &c.keys);
  PSGI_VEC_FREE(a->ctx, &c.groups);
  return s;
}
