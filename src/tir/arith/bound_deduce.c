/* Passage — TVM's DeduceBound (src/arith/bound_deducer.cc): from a
 * comparison that mentions `var` once, an interval of var in which it holds.
 * The comparison is read as `e cmp r` with var inside e; the relaxed vars
 * are replaced by their worst ends (the min of e and the max of r for
 * e >= r); then e is peeled along the path down to var (Add, Sub, Mul by a
 * factor of known sign, FloorDiv by a divisor of known sign), each step
 * moving the other operand into r. Signs are read from the hint sets. */
#include "tir/arith/int_set.h"
#include "passage/tir_op.h"
#include "tir/arith/arith_internal.h"

enum { GREATER, LESS, EQUAL };

typedef struct deducer {
  psg_arith_analyzer *a;
  psg_ctx *ctx;
  psg_tir_expr *res; /* owned */
  int cmp;
} deducer;

/* res = op(res, x) (or op(x, res) when `swap`). */
static psg_status res_op(deducer *d, int kind, psg_tir_expr *x, bool swap) {
  psg_tir_expr *r = NULL;
  psg_status st = psg_tir_op_binary(d->ctx, kind, swap ? x : d->res, swap ? d->res : x, NULL, &r);
  if (st) return st;
  psg_tir_release(d->res);
  d->res = r;
  return PSG_OK;
}

static psg_status res_const(deducer *d, int kind, int64_t v) {
  psg_tir_expr *c = NULL;
  psg_status st = psg_tir_make_const_int(d->ctx, d->res->dtype, v, NULL, &c);
  if (!st) st = res_op(d, kind, c, false);
  psg_tir_release(c);
  return st;
}

static int reverse(int cmp) { return cmp == GREATER ? LESS : cmp == LESS ? GREATER : EQUAL; }

/* How many times var occurs in e (stops counting at 2). Iterative. */
static psg_status count_uses(psg_ctx *ctx, const psg_tir_node *e, const psg_tir_node *var, int *out) {
  *out = 0;
  PSGI_VEC(const psg_tir_node *) todo = {0};
  psg_status st = PSGI_VEC_PUSH(ctx, &todo, e) ? PSG_OK : psgi_nomem(ctx);
  while (!st && todo.len && *out < 2) {
    const psg_tir_node *n = todo.data[--todo.len];
    if (!n || n->kind == PSG_TIR_BUFFER) continue;
    if (n == var) (*out)++;
    for (uint32_t i = 0; i < n->nkids && !st; i++)
      if (!PSGI_VEC_PUSH(ctx, &todo, n->kids[i])) st = psgi_nomem(ctx);
  }
  PSGI_VEC_FREE(ctx, &todo);
  return st;
}

/* The nodes from e down to the first occurrence of var in a depth-first
 * walk (TVM's GetPath); none when var does not occur. */
typedef PSGI_VEC(const psg_tir_node *) node_vec;
static psg_status find_path(psg_ctx *ctx, const psg_tir_node *e, const psg_tir_node *var, node_vec *path) {
  typedef struct step {
    const psg_tir_node *n;
    uint32_t next;
  } step;
  PSGI_VEC(step) stack = {0};
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  path->len = 0;
  step s0 = {e, 0};
  psg_status st = PSGI_VEC_PUSH(ctx, &stack, s0) ? PSG_OK : psgi_nomem(ctx);
  bool found = e == var;
  if (!st && !psgi_map_put_ptr(&seen, e, NULL)) st = psgi_nomem(ctx);
  while (!st && !found && stack.len) {
    step *t = &stack.data[stack.len - 1];
    if (t->next >= t->n->nkids) {
      stack.len--;
      continue;
    }
    const psg_tir_node *k = t->n->kids[t->next++];
    if (!k || k->kind == PSG_TIR_BUFFER) continue;
    bool is_new = false;
    if (!psgi_map_put_ptr(&seen, k, &is_new)) {
      st = psgi_nomem(ctx);
      break;
    }
    if (!is_new) continue;
    step s = {k, 0};
    if (!PSGI_VEC_PUSH(ctx, &stack, s)) st = psgi_nomem(ctx);
    found = k == var;
  }
  for (size_t i = 0; !st && found && i < stack.len; i++)
    if (!PSGI_VEC_PUSH(ctx, path, stack.data[i].n)) st = psgi_nomem(ctx);
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  return st;
}

/* TVM's IntSet::GetSignType over the hint sets: 1 positive, -1 negative,
 * 0 unknown (zero counts as unknown: it cannot be divided out). */
static psg_status sign_of(deducer *d, psg_tir_expr *x, const psgi_int_set_dom *hint, size_t nhint, int *out) {
  *out = 0;
  if (psg_tir_dtype_is_uint(x->dtype)) {
    *out = 1;
    return PSG_OK;
  }
  psgi_int_set s = {0};
  psg_status st = psgi_int_set_eval(d->a, x, hint, nhint, &s);
  if (st || s.empty) return st;
  psg_tir_expr *lo = NULL, *hi = NULL;
  if (s.min) st = psg_arith_simplify(d->a, s.min, &lo);
  if (!st && s.max) st = psg_arith_simplify(d->a, s.max, &hi);
  if (!st && lo && lo->kind == PSG_TIR_INT_IMM && lo->u.int_value > 0) *out = 1;
  else if (!st && hi && hi->kind == PSG_TIR_INT_IMM && hi->u.int_value < 0) *out = -1;
  psg_tir_release(lo);
  psg_tir_release(hi);
  psgi_int_set_release(&s);
  return st;
}

/* Peels e along `path` (path[0] == e) into d->res; *ok false when a step is
 * not invertible. */
static psg_status peel(deducer *d, const node_vec *path, const psgi_int_set_dom *hint, size_t nhint, bool *ok) {
  *ok = false;
  for (size_t i = 0; i + 1 < path->len; i++) {
    psg_tir_expr *n = (psg_tir_expr *)path->data[i];
    const psg_tir_node *next = path->data[i + 1];
    bool left = n->kids[0] == next;
    psg_tir_expr *other = left ? n->kids[1] : n->kids[0];
    psg_status st = PSG_OK;
    switch (n->kind) {
    case PSG_TIR_ADD: st = res_op(d, PSG_TIR_SUB, other, false); break;
    case PSG_TIR_SUB:
      if (left) {
        st = res_op(d, PSG_TIR_ADD, other, false);
      } else { /* a - x cmp r  ->  x rcmp a - r */
        st = res_op(d, PSG_TIR_SUB, other, true);
        d->cmp = reverse(d->cmp);
      }
      break;
    case PSG_TIR_MUL: {
      int sign;
      st = sign_of(d, other, hint, nhint, &sign);
      if (st || sign == 0) return st;
      if (sign < 0) d->cmp = reverse(d->cmp);
      psg_tir_expr *m = NULL, *z = NULL, *eq = NULL;
      st = psg_tir_op_binary(d->ctx, PSG_TIR_FLOOR_MOD, d->res, other, NULL, &m);
      if (!st) st = psg_tir_make_const_int(d->ctx, m->dtype, 0, NULL, &z);
      if (!st) st = psg_tir_op_binary(d->ctx, PSG_TIR_EQ, m, z, NULL, &eq);
      bool divided = !st && psg_arith_can_prove(d->a, eq);
      psg_tir_release(m);
      psg_tir_release(z);
      psg_tir_release(eq);
      if (!st) st = res_op(d, PSG_TIR_FLOOR_DIV, other, false); /* rounds down */
      if (st) return st;
      if (!divided) {
        if (d->cmp == EQUAL) return PSG_OK;
        if (d->cmp == GREATER) st = res_const(d, PSG_TIR_ADD, 1);
      }
      break;
    }
    case PSG_TIR_FLOOR_DIV: {
      if (!left) return PSG_OK; /* var in the divisor */
      psg_tir_expr *div = n->kids[1];
      psg_tir_expr *z = NULL;
      st = psg_tir_make_const_int(d->ctx, div->dtype, 0, NULL, &z);
      bool zero = !st && psg_arith_can_prove_equal(d->a, div, z);
      psg_tir_release(z);
      if (st || zero) return st;
      int sign;
      st = sign_of(d, div, hint, nhint, &sign);
      if (st || sign == 0 || d->cmp == EQUAL) return st;
      psg_tir_expr *pos = NULL;
      if (sign < 0) {
        d->cmp = reverse(d->cmp);
        st = psg_tir_op_neg(d->ctx, div, NULL, &pos);
        psg_tir_expr *nr = NULL;
        if (!st) st = psg_tir_op_neg(d->ctx, d->res, NULL, &nr);
        if (!st) {
          psg_tir_release(d->res);
          d->res = nr;
        }
      } else {
        psg_tir_retain(pos = div);
      }
      if (!st) st = res_op(d, PSG_TIR_MUL, pos, false);
      if (!st && d->cmp == LESS) { /* x // c <= r  ->  x <= r * c + c - 1 */
        st = res_op(d, PSG_TIR_ADD, pos, false);
        if (!st) st = res_const(d, PSG_TIR_SUB, 1);
      }
      if (!st && sign < 0) {
        st = res_op(d, PSG_TIR_SUB, pos, false);
        if (!st) st = res_const(d, PSG_TIR_ADD, 1);
      }
      psg_tir_release(pos);
      break;
    }
    default: return PSG_OK;
    }
    if (st) return st;
  }
  *ok = true;
  return PSG_OK;
}

psg_status psgi_int_set_deduce_bound(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *cond,
                                     const psgi_int_set_dom *hint, size_t nhint, const psgi_int_set_dom *relax,
                                     size_t nrelax, psgi_int_set *out) {
  *out = (psgi_int_set){.empty = true};
  int kind = cond->kind;
  if (kind != PSG_TIR_LT && kind != PSG_TIR_LE && kind != PSG_TIR_GT && kind != PSG_TIR_GE && kind != PSG_TIR_EQ)
    return PSG_OK;
  deducer d = {.a = a, .ctx = a->ctx};
  int uses = 0;
  psg_status st = count_uses(d.ctx, cond, var, &uses);
  if (st || uses != 1) return st;
  node_vec path = {0};
  st = find_path(d.ctx, cond->kids[0], var, &path);
  bool in_left = path.len > 0;
  psg_tir_expr *e = in_left ? cond->kids[0] : cond->kids[1];
  psg_tir_retain(d.res = in_left ? cond->kids[1] : cond->kids[0]);
  /* Strict comparisons become non-strict ones: a < b  ->  a <= b - 1. */
  int adjust = 0;
  switch (kind) {
  case PSG_TIR_LT: d.cmp = in_left ? LESS : GREATER, adjust = in_left ? -1 : 1; break;
  case PSG_TIR_LE: d.cmp = in_left ? LESS : GREATER; break;
  case PSG_TIR_GT: d.cmp = in_left ? GREATER : LESS, adjust = in_left ? 1 : -1; break;
  case PSG_TIR_GE: d.cmp = in_left ? GREATER : LESS; break;
  default: d.cmp = EQUAL; break;
  }
  if (!st && adjust) st = res_const(&d, PSG_TIR_ADD, adjust);
  /* Relax: e's worst end against r's worst end. */
  psgi_int_set se = {0}, sr = {0};
  bool ok = !st;
  if (ok) st = psgi_int_set_eval(a, e, relax, nrelax, &se);
  if (!st) st = psgi_int_set_eval(a, d.res, relax, nrelax, &sr);
  ok = !st && !se.empty && !sr.empty && !psgi_int_set_is_everything(&se) && !psgi_int_set_is_everything(&sr);
  if (ok && d.cmp == EQUAL) {
    ok = se.min && se.max && sr.min && sr.max && psg_arith_can_prove_equal(a, se.min, se.max) &&
         psg_arith_can_prove_equal(a, sr.min, sr.max);
  }
  psg_tir_expr *e2 = NULL, *r2 = NULL;
  if (ok) {
    e2 = d.cmp == GREATER ? se.min : se.max;
    r2 = d.cmp == GREATER ? sr.max : sr.min;
    ok = e2 && r2; /* an infinite end deduces nothing (TVM carries it on as a symbol) */
  }
  if (ok) {
    psg_tir_retain(r2);
    psg_tir_release(d.res);
    d.res = r2;
    st = find_path(d.ctx, e2, var, &path);
    ok = !st && path.len > 0;
  }
  if (ok) st = peel(&d, &path, hint, nhint, &ok);
  ok = ok && !st;
  psg_tir_expr *r = NULL;
  if (ok) st = psg_arith_simplify(a, d.res, &r);
  if (ok && !st) {
    if (d.cmp == EQUAL) *out = psgi_int_set_interval(r, r);
    else if (d.cmp == GREATER) *out = psgi_int_set_interval(r, NULL);
    else *out = psgi_int_set_interval(NULL, r);
  }
  psg_tir_release(r);
  psg_tir_release(d.res);
  psgi_int_set_release(&se);
  psgi_int_set_release(&sr);
  PSGI_VEC_FREE(d.ctx, &path);
  return st;
}
