/* Passage — TVM's IterMapSimplify at the surjective level (iter_map.h).
 *
 * The forms, as TVM's: a mark is an iterator (a loop var, or a fused sum of
 * splits) with an extent; a split is (mark // lower) % extent * scale; a sum
 * is splits plus a base free of iterators. Expressions are rewritten bottom
 * up (explicit stack) into sums; a division or modulo of a sum first fuses
 * it into one split of a new mark (try_fuse), then splits that split.
 * Constraints from the predicate fuse their sums first and bound the fused
 * mark. At the end each index is fused, every mark's splits are checked to
 * tile it without overlap (check_mapping), and the sums are written back.
 *
 * Marks only refer to marks made before them, so the collection and the
 * conversion back to expressions are loops over the mark table, not
 * recursions. Every expression made here is owned by one pool released at
 * the end; the tables hold borrowed pointers into it. */
#include "tir/arith/iter_map.h"

#include "passage/tir_op.h"
#include "tir/arith/arith_internal.h"

typedef struct split {
  uint32_t mark;
  psg_tir_expr *lower, *extent, *scale;
} split;

/* Splits args[first .. first + len) of the builder plus base. */
typedef struct isum {
  uint32_t first, len;
  psg_tir_expr *base;
} isum;

typedef struct mark {
  psg_tir_expr *src; /* a var (or var - min) iterator; NULL: the fused sum */
  isum sum;
  psg_tir_expr *extent;
} mark;

/* TVM's sum_fuse_map_ and flattened_map_ in one: a fused sum. */
typedef struct fused {
  isum flat, structured;
  uint32_t mark;
  psg_tir_expr *offset;
} fused;

typedef struct constraint {
  psg_tir_expr *iter, *lower, *upper; /* lower/upper may be NULL */
  size_t size;
} constraint;
typedef PSGI_VEC(constraint) constraint_vec;

/* A rewritten expression: a sum, or a plain expression free of iterators. */
typedef struct val {
  bool iter;
  isum s;
  psg_tir_expr *e;
} val;

typedef struct itermap {
  psg_ctx *ctx;
  psg_arith_analyzer *a;
  psg_status st;
  bool failed; /* the detection failed (TVM's errors) */
  PSGI_VEC(psg_tir_expr *) pool;
  PSGI_VEC(split) args;
  PSGI_VEC(mark) marks;
  PSGI_VEC(fused) fmap;
  PSGI_VEC(isum) constrained;
  psgi_arith_iter *iters; /* the ranges, narrowed by single-var constraints */
  val *iter_vals;
  size_t niters;
} itermap;

#define BAD(m) ((m)->st || (m)->failed)

/* Expressions ------------------------------------------------------------- */

static bool is_int(const psg_tir_expr *e, int64_t v) { return psgi_arith_is_int_value(e, v); }

static psg_tir_expr *keep(itermap *m, psg_status st, psg_tir_expr *e) {
  if (st || !e) {
    if (!m->st) m->st = st ? st : psgi_nomem(m->ctx);
    psg_tir_release(e);
    return NULL;
  }
  if (!PSGI_VEC_PUSH(m->ctx, &m->pool, e)) {
    psg_tir_release(e);
    m->st = psgi_nomem(m->ctx);
    return NULL;
  }
  return e;
}

/* TVM's operators (constants folded). A division by a constant 0 (a
 * split whose scale cancelled) fails the detection, not the pass. */
static psg_tir_expr *op(itermap *m, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  if (!x || !y || m->st) return NULL;
  if ((kind == PSG_TIR_FLOOR_DIV || kind == PSG_TIR_FLOOR_MOD || kind == PSG_TIR_DIV || kind == PSG_TIR_MOD) &&
      is_int(y, 0)) {
    m->failed = true;
    return NULL;
  }
  psg_tir_expr *r = NULL;
  psg_status st = psg_tir_op_binary(m->ctx, kind, x, y, NULL, &r);
  return keep(m, st, r);
}

static psg_tir_expr *cint(itermap *m, psg_tir_dtype t, int64_t v) {
  if (m->st) return NULL;
  psg_tir_expr *r = NULL;
  psg_status st = psg_tir_make_const_int(m->ctx, t, v, NULL, &r);
  return keep(m, st, r);
}

static psg_tir_expr *simp(itermap *m, psg_tir_expr *e) {
  if (!e || m->st) return NULL;
  psg_tir_expr *r = NULL;
  psg_status st = psg_arith_simplify(m->a, e, &r);
  return keep(m, st, r);
}

static bool equal(const psg_tir_expr *x, const psg_tir_expr *y) { return psg_arith_expr_equal(x, y); }

static bool prove_equal(itermap *m, psg_tir_expr *x, psg_tir_expr *y) {
  if (!x || !y || m->st) return false;
  return equal(x, y) || psg_arith_can_prove_equal(m->a, x, y);
}

static bool prove(itermap *m, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  psg_tir_expr *c = op(m, kind, x, y);
  return c && psg_arith_can_prove(m->a, c);
}

/* The leaves of a product x * y * ... (TVM's UnpackReduction<Mul>), left to
 * right; at most cap. false when there are more. */
static bool mul_leaves(psg_tir_expr *e, psg_tir_expr **out, size_t cap, size_t *n) {
  psg_tir_expr *stack[32];
  size_t sp = 0;
  *n = 0;
  stack[sp++] = e;
  while (sp) {
    psg_tir_expr *x = stack[--sp];
    if (x->kind == PSG_TIR_MUL && sp + 2 <= 32) {
      stack[sp++] = x->kids[1];
      stack[sp++] = x->kids[0];
    } else {
      if (*n == cap) return false;
      out[(*n)++] = x;
    }
  }
  return true;
}

/* TVM's MulAndNormalize: the symbolic factors of x and y multiplied in
 * order, then their constant factors as one. */
static psg_tir_expr *mul_norm(itermap *m, psg_tir_expr *x, psg_tir_expr *y) {
  if (!x || !y) return NULL;
  psg_tir_expr *f[64];
  size_t nx, ny;
  if (!mul_leaves(x, f, 32, &nx) || !mul_leaves(y, f + nx, 32, &ny)) return op(m, PSG_TIR_MUL, x, y);
  int64_t c = 1;
  psg_tir_expr *res = cint(m, x->dtype, 1);
  for (size_t i = 0; i < nx + ny && res; i++) {
    int64_t v;
    if (!psgi_arith_is_int(f[i], &v))
      res = op(m, PSG_TIR_MUL, res, f[i]);
    else if (__builtin_mul_overflow(c, v, &c))
      return op(m, PSG_TIR_MUL, x, y);
  }
  return c == 1 ? res : op(m, PSG_TIR_MUL, res, cint(m, res ? res->dtype : x->dtype, c));
}

/* x / y exactly when y's factors are among x's (n * n * 32 over n * n is
 * 32), else NULL. */
static psg_tir_expr *exact_quotient(itermap *m, psg_tir_expr *x, psg_tir_expr *y) {
  psg_tir_expr *fx[32], *fy[32];
  size_t nx, ny;
  if (!mul_leaves(x, fx, 32, &nx) || !mul_leaves(y, fy, 32, &ny)) return NULL;
  bool used[32] = {false};
  int64_t cx = 1, cy = 1, v;
  for (size_t i = 0; i < nx; i++)
    if (psgi_arith_is_int(fx[i], &v)) {
      if (__builtin_mul_overflow(cx, v, &cx)) return NULL;
      used[i] = true;
    }
  for (size_t j = 0; j < ny; j++) {
    if (psgi_arith_is_int(fy[j], &v)) {
      if (__builtin_mul_overflow(cy, v, &cy)) return NULL;
      continue;
    }
    size_t i = 0;
    while (i < nx && (used[i] || !equal(fx[i], fy[j]))) i++;
    if (i == nx) return NULL;
    used[i] = true;
  }
  if (cy <= 0 || cx % cy) return NULL; /* (a negative divisor: not this shortcut's business) */
  psg_tir_expr *res = cint(m, x->dtype, 1);
  for (size_t i = 0; i < nx && res; i++)
    if (!used[i]) res = op(m, PSG_TIR_MUL, res, fx[i]);
  return cx / cy == 1 ? res : op(m, PSG_TIR_MUL, res, cint(m, x->dtype, cx / cy));
}

/* TVM's CanProveDivisible (lhs % rhs == 0). */
static bool divisible(itermap *m, psg_tir_expr *lhs, psg_tir_expr *rhs) {
  int64_t a, b;
  if (!lhs || !rhs) return false;
  if (psgi_arith_is_int(rhs, &b) && b == 0) return false;
  if (psgi_arith_is_int(lhs, &a) && psgi_arith_is_int(rhs, &b)) return b == -1 || a % b == 0;
  if (exact_quotient(m, lhs, rhs)) return true;
  if (prove_equal(m, lhs, rhs)) return true;
  psg_tir_expr *r = op(m, PSG_TIR_FLOOR_MOD, lhs, rhs);
  return r && prove(m, PSG_TIR_EQ, r, cint(m, r->dtype, 0));
}

/* Simplify(floordiv(x, y)) with the exact quotient first. */
static psg_tir_expr *quotient(itermap *m, psg_tir_expr *x, psg_tir_expr *y) {
  psg_tir_expr *q = exact_quotient(m, x, y);
  return q ? simp(m, q) : simp(m, op(m, PSG_TIR_FLOOR_DIV, x, y));
}

/* Sums --------------------------------------------------------------------- */

static split *arg(itermap *m, isum s, uint32_t i) { return &m->args.data[s.first + i]; }

static bool push_split(itermap *m, split x) {
  if (PSGI_VEC_PUSH(m->ctx, &m->args, x)) return true;
  m->st = psgi_nomem(m->ctx);
  return false;
}

/* A new sum of the given splits (copied) and base. */
static isum make_sum(itermap *m, const split *s, size_t n, psg_tir_expr *base) {
  isum r = {(uint32_t)m->args.len, 0, base};
  for (size_t i = 0; i < n && push_split(m, s[i]); i++) r.len++;
  return r;
}

static isum copy_sum(itermap *m, isum s) {
  isum r = {(uint32_t)m->args.len, 0, s.base};
  for (uint32_t i = 0; i < s.len; i++) {
    split x = *arg(m, s, i);
    if (!push_split(m, x)) break;
    r.len++;
  }
  return r;
}

static bool split_equal(const split *x, const split *y, bool check_scale) {
  return x->mark == y->mark && equal(x->lower, y->lower) && equal(x->extent, y->extent) &&
         (!check_scale || equal(x->scale, y->scale));
}

static bool sum_equal(itermap *m, isum x, isum y) {
  if (x.len != y.len || !equal(x.base, y.base)) return false;
  for (uint32_t i = 0; i < x.len; i++)
    if (!split_equal(arg(m, x, i), arg(m, y, i), true)) return false;
  return true;
}

/* The whole of mark k as a split with this scale (TVM's IterSplitExpr(mark, scale)). */
static split whole(itermap *m, uint32_t k, psg_tir_expr *scale) {
  psg_tir_expr *ext = m->marks.data[k].extent;
  return (split){k, cint(m, ext->dtype, 1), ext, scale};
}

/* TVM's AddToLhs: a + sign * b. */
static isum sum_add(itermap *m, isum a, isum b, int sign) {
  isum r = copy_sum(m, a);
  for (uint32_t j = 0; j < b.len && !m->st; j++) {
    split y = *arg(m, b, j);
    uint32_t i = 0;
    while (i < r.len && !(arg(m, r, i)->mark == y.mark && equal(arg(m, r, i)->lower, y.lower) &&
                          equal(arg(m, r, i)->extent, y.extent)))
      i++;
    if (i < r.len) {
      split *x = arg(m, r, i);
      x->scale = op(m, sign > 0 ? PSG_TIR_ADD : PSG_TIR_SUB, x->scale, y.scale);
      continue;
    }
    if (sign < 0) y.scale = op(m, PSG_TIR_SUB, cint(m, y.scale->dtype, 0), y.scale);
    if (push_split(m, y)) r.len++;
  }
  r.base = op(m, sign > 0 ? PSG_TIR_ADD : PSG_TIR_SUB, r.base, b.base);
  return r;
}

/* TVM's MulToLhs: every scale and the base times c. */
static isum sum_mul(itermap *m, isum a, psg_tir_expr *c) {
  isum r = copy_sum(m, a);
  for (uint32_t i = 0; i < r.len && !m->st; i++) arg(m, r, i)->scale = op(m, PSG_TIR_MUL, arg(m, r, i)->scale, c);
  r.base = op(m, PSG_TIR_MUL, r.base, c);
  return r;
}

/* Fusing ------------------------------------------------------------------- */

/* TVM's FindBaseIter: the unvisited split (of mark `src`, unless -1) with
 * the smallest constant scale (ties: an extent-1 one), else the one whose
 * scale has the fewest factors; searching from rbegin down. */
static int find_base(itermap *m, isum s, const bool *skip, int64_t src, int rbegin) {
  int base = -1;
  int64_t min_c = 0, v;
  for (int i = rbegin; i >= 0; i--) {
    split *x = arg(m, s, (uint32_t)i);
    if (skip[i] || (src >= 0 && x->mark != (uint32_t)src)) continue;
    if (!psgi_arith_is_int(x->scale, &v)) continue;
    if (base == -1 || v < min_c) {
      min_c = v;
      base = i;
    } else if (v == min_c && is_int(x->extent, 1) && !is_int(arg(m, s, (uint32_t)base)->extent, 1)) {
      base = i;
    }
  }
  size_t min_size = 0;
  for (int i = rbegin; i >= 0; i--) {
    split *x = arg(m, s, (uint32_t)i);
    if (skip[i] || (src >= 0 && x->mark != (uint32_t)src)) continue;
    psg_tir_expr *f[32];
    size_t nf = 33;
    if (!mul_leaves(x->scale, f, 32, &nf)) nf = 33;
    if (base == -1 || nf < min_size) {
      min_size = nf;
      base = i;
    }
  }
  return base;
}

static int first_unit_extent(itermap *m, isum s) {
  for (uint32_t i = 0; i < s.len; i++)
    if (is_int(arg(m, s, i)->extent, 1)) return (int)i;
  return (int)s.len;
}

/* TVM's FindIterWithExactScale. */
static int find_exact_scale(itermap *m, isum s, const bool *skip, psg_tir_expr *scale, int64_t src, int rbegin,
                            int first_unit) {
  int matched = -1;
  for (int j = rbegin; j >= 0; j--) {
    split *x = arg(m, s, (uint32_t)j);
    if (skip[j] || (src >= 0 && x->mark != (uint32_t)src)) continue;
    if (prove_equal(m, x->scale, scale)) {
      if (is_int(x->extent, 1)) return j;
      if (matched == -1) matched = j;
      if (j <= first_unit) return matched;
    }
  }
  return matched;
}

/* TVM's FindIterSmallerClosestToScale. */
static int find_smaller_scale(itermap *m, isum s, const bool *skip, psg_tir_expr *scale, psg_tir_expr **matched) {
  int pos = -1;
  *matched = NULL;
  for (int j = (int)s.len - 1; j >= 0; j--) {
    if (skip[j]) continue;
    psg_tir_expr *cur = arg(m, s, (uint32_t)j)->scale, *zero = cint(m, cur->dtype, 0);
    if (prove(m, PSG_TIR_GE, op(m, PSG_TIR_SUB, scale, cur), zero) && prove(m, PSG_TIR_GE, cur, zero)) {
      if (pos == -1 || prove(m, PSG_TIR_LT, op(m, PSG_TIR_SUB, *matched, cur), zero)) {
        pos = j;
        *matched = cur;
      }
    }
  }
  return pos;
}

/* TVM's TryCombineSplitFromSameSource: ((x // (c*s)) % m) * s*t +
 * ((x // c) % s) * t joined into (x // c) % (m*s) * t. false: nothing to
 * combine (no two splits of one mark). */
static bool combine_same_source(itermap *m, isum s, isum *out) {
  if (s.len <= 1) return false;
  bool overlap = false;
  for (uint32_t i = 0; i < s.len && !overlap; i++)
    for (uint32_t j = i + 1; j < s.len && !overlap; j++) overlap = arg(m, s, i)->mark == arg(m, s, j)->mark;
  if (!overlap) return false;
  bool small_v[16], *visited = s.len <= 16 ? small_v : psgi_calloc(m->ctx, s.len * sizeof *visited);
  split small_r[16], *rev = s.len <= 16 ? small_r : psgi_alloc(m->ctx, s.len * sizeof *rev);
  if (!visited || !rev) {
    m->st = psgi_nomem(m->ctx);
    if (visited != small_v) psgi_free(m->ctx, visited);
    if (rev != small_r) psgi_free(m->ctx, rev);
    return false;
  }
  memset(visited, 0, s.len * sizeof *visited);
  size_t nrev = 0;
  int first_unit = first_unit_extent(m, s);
  for (int rend = (int)s.len - 1; rend >= 0 && !m->st;) {
    if (visited[rend]) {
      rend--;
      continue;
    }
    uint32_t src = arg(m, s, (uint32_t)rend)->mark, hits = 0;
    for (uint32_t i = 0; i < s.len; i++) hits += arg(m, s, i)->mark == src;
    if (hits == 1) {
      rev[nrev++] = *arg(m, s, (uint32_t)rend);
      visited[rend--] = true;
      continue;
    }
    int k = find_base(m, s, visited, src, rend);
    visited[k] = true;
    split rhs = *arg(m, s, (uint32_t)k);
    for (;;) {
      psg_tir_expr *lhs_scale = mul_norm(m, rhs.extent, rhs.scale);
      int j = lhs_scale ? find_exact_scale(m, s, visited, lhs_scale, src, rend, first_unit) : -1;
      if (j == -1) break;
      split *lhs = arg(m, s, (uint32_t)j);
      if (!prove_equal(m, lhs->lower, mul_norm(m, rhs.lower, rhs.extent))) break;
      visited[j] = true;
      rhs.extent = mul_norm(m, lhs->extent, rhs.extent);
    }
    rev[nrev++] = rhs;
  }
  for (size_t i = 0; i < nrev / 2; i++) {
    split t = rev[i];
    rev[i] = rev[nrev - 1 - i];
    rev[nrev - 1 - i] = t;
  }
  *out = make_sum(m, rev, nrev, s.base);
  if (visited != small_v) psgi_free(m->ctx, visited);
  if (rev != small_r) psgi_free(m->ctx, rev);
  return !m->st;
}

static fused *find_fused_flat(itermap *m, isum flat) {
  for (size_t i = 0; i < m->fmap.len; i++)
    if (sum_equal(m, m->fmap.data[i].flat, flat)) return &m->fmap.data[i];
  return NULL;
}

/* TVM's TryFuseIters: x1*c1 + ... + xn*cn + base as one split of a fused
 * mark, (x1*s1 + ... + xn) * cn + base. false when the scales do not chain. */
static bool try_fuse(itermap *m, isum s, bool early_skip, isum *out) {
  isum c;
  if (combine_same_source(m, s, &c)) {
    s = c;
    if (s.len <= 1 && early_skip) {
      *out = s;
      return true;
    }
  }
  if (m->st || s.len == 0) return false;
  bool ok = false;
  bool *visited = psgi_calloc(m->ctx, s.len * sizeof *visited);
  split *flat = psgi_alloc(m->ctx, s.len * sizeof *flat), *grouped = psgi_alloc(m->ctx, s.len * sizeof *grouped);
  if (!visited || !flat || !grouped) {
    m->st = psgi_nomem(m->ctx);
    goto done;
  }
  int base_index = find_base(m, s, visited, -1, (int)s.len - 1);
  if (base_index == -1) goto done;
  psg_tir_expr *base_scale = arg(m, s, (uint32_t)base_index)->scale, *dt0 = s.base;
  psg_tir_expr *extra_base = cint(m, dt0->dtype, 0), *tail = cint(m, dt0->dtype, 0), *expected = base_scale;
  int first_unit = first_unit_extent(m, s);
  size_t nflat = 0, ngroup = 0;
  for (uint32_t i = 0; i < s.len && !m->st;) {
    psg_tir_expr *matched_scale = NULL;
    bool exact = false;
    int pos = i == 0 ? base_index : find_exact_scale(m, s, visited, expected, -1, (int)s.len - 1, first_unit);
    if (pos != -1) {
      matched_scale = expected;
      exact = true;
    } else if (is_int(base_scale, 1)) {
      pos = find_smaller_scale(m, s, visited, expected, &matched_scale);
    }
    if (pos == -1) goto done;
    /* the longest constraint whose innermost split is this one */
    isum *cons = NULL;
    for (size_t k = 0; k < m->constrained.len; k++) {
      isum *ck = &m->constrained.data[k];
      if (ck->len && split_equal(arg(m, s, (uint32_t)pos), arg(m, *ck, ck->len - 1), false) &&
          (!cons || cons->len < ck->len))
        cons = ck;
    }
    if (cons) {
      isum cc = *cons;
      for (uint32_t r = cc.len; r-- > 0;) {
        split it = *arg(m, cc, r);
        uint32_t k = 0;
        for (; k < s.len; k++)
          if (!visited[k] && split_equal(arg(m, s, k), &it, false) &&
              prove_equal(m, op(m, PSG_TIR_MUL, it.scale, matched_scale), arg(m, s, k)->scale))
            break;
        if (k == s.len) goto done;
        visited[k] = true;
        flat[nflat++] = *arg(m, s, k);
      }
      fused *fm = find_fused_flat(m, cc);
      if (!fm) goto done;
      grouped[ngroup++] = whole(m, fm->mark, op(m, PSG_TIR_FLOOR_DIV, matched_scale, base_scale));
      extra_base = op(m, PSG_TIR_ADD, extra_base, op(m, PSG_TIR_MUL, fm->offset, matched_scale));
      if (!exact) tail = op(m, PSG_TIR_ADD, tail, op(m, PSG_TIR_SUB, expected, matched_scale));
      expected = mul_norm(m, m->marks.data[fm->mark].extent, matched_scale);
      i += cc.len;
    } else {
      visited[pos] = true;
      split x = *arg(m, s, (uint32_t)pos);
      x.scale = simp(m, op(m, PSG_TIR_FLOOR_DIV, x.scale, base_scale));
      flat[nflat++] = x;
      grouped[ngroup++] = x;
      if (!exact) tail = op(m, PSG_TIR_ADD, tail, op(m, PSG_TIR_SUB, expected, matched_scale));
      expected = mul_norm(m, arg(m, s, (uint32_t)pos)->extent, matched_scale);
      i++;
    }
    if (!expected) goto done;
  }
  if (m->st) goto done;
  /* both forms outermost first */
  for (size_t i = 0; i < nflat / 2; i++) {
    split t = flat[i];
    flat[i] = flat[nflat - 1 - i];
    flat[nflat - 1 - i] = t;
  }
  for (size_t i = 0; i < ngroup / 2; i++) {
    split t = grouped[i];
    grouped[i] = grouped[ngroup - 1 - i];
    grouped[ngroup - 1 - i] = t;
  }
  psg_tir_expr *zero = cint(m, dt0->dtype, 0);
  isum flat_form = make_sum(m, flat, nflat, zero);
  fused *fm = find_fused_flat(m, flat_form);
  uint32_t mk;
  if (fm) {
    if (!prove_equal(m, extra_base, op(m, PSG_TIR_MUL, fm->offset, base_scale))) goto done;
    mk = fm->mark;
  } else {
    isum structured = make_sum(m, grouped, ngroup, zero);
    mark nm = {NULL, structured, op(m, PSG_TIR_ADD, op(m, PSG_TIR_DIV, expected, base_scale), tail)};
    fused nf = {flat_form, structured, (uint32_t)m->marks.len, extra_base};
    if (m->st || !nm.extent) goto done;
    if (!PSGI_VEC_PUSH(m->ctx, &m->marks, nm) || !PSGI_VEC_PUSH(m->ctx, &m->fmap, nf)) {
      m->st = psgi_nomem(m->ctx);
      goto done;
    }
    mk = nf.mark;
  }
  split one = whole(m, mk, base_scale);
  *out = make_sum(m, &one, 1, op(m, PSG_TIR_ADD, s.base, extra_base));
  ok = !m->st && out->base;
done:
  psgi_free(m->ctx, visited);
  psgi_free(m->ctx, flat);
  psgi_free(m->ctx, grouped);
  return ok;
}

/* Splitting ---------------------------------------------------------------- */

static val plain(psg_tir_expr *e) { return (val){false, {0, 0, NULL}, e}; }
static val iterv(isum s) { return (val){true, s, NULL}; }

static isum to_sum(itermap *m, val v) {
  if (v.iter) return v.s;
  return (isum){(uint32_t)m->args.len, 0, v.e};
}

/* TVM's PreprocessDividend: the sum as one split plus base. false: the sum
 * has no split (*empty) or cannot be fused (m->failed). */
static bool dividend(itermap *m, isum s, isum *out, bool *empty) {
  *empty = s.len == 0;
  if (*empty) return false;
  if (s.len == 1) {
    *out = s;
    return true;
  }
  if (try_fuse(m, s, true, out) && out->len == 1) return true;
  m->failed = true;
  return false;
}

/* (x * s + base) op rhs with s | rhs and s | base (or base 0) is s times or
 * (for //) exactly the same operation on (x + base / s) by rhs / s: *base
 * and *rhs divided. false when s does not divide them. */
static bool divide_out_scale(itermap *m, const split *x, psg_tir_expr **base, psg_tir_expr **rhs) {
  bool zero_base = is_int(*base, 0);
  if (!divisible(m, *rhs, x->scale) || !(zero_base || divisible(m, *base, x->scale))) return false;
  *rhs = op(m, PSG_TIR_FLOOR_DIV, *rhs, x->scale);
  if (!zero_base) *base = op(m, PSG_TIR_FLOOR_DIV, *base, x->scale);
  return !m->st;
}

/* A split with scale 1 that can be divided by rhs without padding: TVM pads
 * the iterator when rhs does not divide its extent or the base; we fail. */
static bool no_padding(itermap *m, const split *x, psg_tir_expr *base, psg_tir_expr *rhs) {
  psg_tir_expr *left = m->st ? NULL : simp(m, op(m, PSG_TIR_FLOOR_MOD, base, rhs));
  if (left && is_int(left, 0) && divisible(m, x->extent, rhs)) return true;
  m->failed = true;
  return false;
}

/* TVM's SplitFloorDivConst: (x + base) // rhs. */
static val split_div(itermap *m, split x, psg_tir_expr *base, psg_tir_expr *rhs) {
  if (is_int(rhs, 1)) return iterv(make_sum(m, &x, 1, base));
  if (!is_int(x.scale, 1)) {
    if (divisible(m, x.scale, rhs) && (is_int(base, 0) || divisible(m, base, rhs))) {
      x.scale = op(m, PSG_TIR_FLOOR_DIV, x.scale, rhs);
      return iterv(make_sum(m, &x, 1, is_int(base, 0) ? base : op(m, PSG_TIR_FLOOR_DIV, base, rhs)));
    }
    if (!divide_out_scale(m, &x, &base, &rhs)) {
      m->failed = true;
      return plain(NULL);
    }
    x.scale = cint(m, rhs->dtype, 1);
  }
  if (!no_padding(m, &x, base, rhs)) return plain(NULL);
  split r = {x.mark, op(m, PSG_TIR_MUL, x.lower, rhs), quotient(m, x.extent, rhs), x.scale};
  psg_tir_expr *nb = simp(m, op(m, PSG_TIR_FLOOR_DIV, base, rhs));
  if (m->st) return plain(NULL);
  return iterv(make_sum(m, &r, 1, is_int(nb, 0) ? cint(m, nb->dtype, 0) : nb));
}

/* TVM's SplitFloorModConst: (x + base) % rhs. */
static val split_mod(itermap *m, split x, psg_tir_expr *base, psg_tir_expr *rhs) {
  if (is_int(rhs, 1)) return plain(cint(m, x.scale->dtype, 0));
  if (!is_int(x.scale, 1)) {
    if (divisible(m, x.scale, rhs) && divisible(m, base, rhs)) return plain(cint(m, x.scale->dtype, 0));
    if (!divide_out_scale(m, &x, &base, &rhs)) {
      m->failed = true;
      return plain(NULL);
    }
  }
  if (!no_padding(m, &x, base, rhs)) return plain(NULL);
  split r = {x.mark, x.lower, rhs, x.scale};
  return iterv(make_sum(m, &r, 1, cint(m, rhs->dtype, 0)));
}

/* Rewriting expressions ------------------------------------------------------ */

static bool index_dtype(psg_tir_dtype t) { return psgi_arith_is_index_dtype(t); }

/* One node whose operands are rewritten (k[i] for expression operand i). */
static val rewrite_node(itermap *m, psg_tir_expr *e, const val *k) {
  int kind = e->kind;
  if (psgi_tir_is_var_kind(kind)) {
    for (size_t i = 0; i < m->niters; i++)
      if (m->iters[i].var == e) return m->iter_vals[i];
    return plain(e);
  }
  bool arith = (kind == PSG_TIR_ADD || kind == PSG_TIR_SUB || kind == PSG_TIR_MUL || kind == PSG_TIR_FLOOR_DIV ||
                kind == PSG_TIR_FLOOR_MOD) &&
               index_dtype(e->dtype);
  if (!arith) {
    bool changed = false;
    for (uint32_t i = 0; i < e->nkids; i++) {
      if (!psgi_tir_is_expr_kind(e->kids[i]->kind)) continue;
      if (k[i].iter) { /* an iterator under another node: not an iterator map */
        m->failed = true;
        return plain(NULL);
      }
      changed |= k[i].e != e->kids[i];
    }
    if (!changed) return plain(e);
    psg_tir_node *small[8], **kids = small, *r = NULL;
    if (e->nkids > 8 && !(kids = psgi_alloc(m->ctx, e->nkids * sizeof *kids))) {
      m->st = psgi_nomem(m->ctx);
      return plain(NULL);
    }
    for (uint32_t i = 0; i < e->nkids; i++) kids[i] = psgi_tir_is_expr_kind(e->kids[i]->kind) ? k[i].e : e->kids[i];
    psg_status st = psgi_tir_rebuild(e, kids, &r);
    if (kids != small) psgi_free(m->ctx, kids);
    return plain(keep(m, st, r));
  }
  val a = k[0], b = k[1];
  if (!a.iter && !b.iter) {
    if (a.e == e->kids[0] && b.e == e->kids[1]) return plain(e);
    return plain(op(m, kind, a.e, b.e));
  }
  /* TVM's TryConstFold of an iterator with a constant: x + 0, x * 1, x * 0
   * (0, no longer an iterator), x // 1, x % 1 (0) */
  bool a0 = !a.iter && is_int(a.e, 0), a1 = !a.iter && is_int(a.e, 1);
  bool b0 = !b.iter && is_int(b.e, 0), b1 = !b.iter && is_int(b.e, 1);
  switch (kind) {
  case PSG_TIR_ADD:
    if (a0 || b0) return a0 ? b : a;
    break;
  case PSG_TIR_SUB:
    if (b0) return a;
    break;
  case PSG_TIR_MUL:
    if (a1 || b1) return a1 ? b : a;
    if (a0 || b0) return a0 ? a : b;
    break;
  case PSG_TIR_FLOOR_DIV:
    if (b1) return a;
    break;
  default:
    if (b1) return plain(cint(m, e->dtype, 0));
    break;
  }
  switch (kind) {
  case PSG_TIR_ADD:
  case PSG_TIR_SUB: {
    isum l = to_sum(m, a);
    if (!b.iter) {
      isum r = copy_sum(m, l);
      r.base = op(m, kind, r.base, b.e);
      return iterv(r);
    }
    return iterv(sum_add(m, l, b.s, kind == PSG_TIR_ADD ? 1 : -1));
  }
  case PSG_TIR_MUL:
    if (a.iter && b.iter) break;
    return a.iter ? iterv(sum_mul(m, a.s, b.e)) : iterv(sum_mul(m, b.s, a.e));
  default: { /* floordiv, floormod */
    if (b.iter || is_int(b.e, 0)) break;
    isum d;
    bool empty;
    if (!dividend(m, a.s, &d, &empty)) return empty ? plain(e) : plain(NULL);
    split x = *arg(m, d, 0);
    return kind == PSG_TIR_FLOOR_DIV ? split_div(m, x, d.base, b.e) : split_mod(m, x, d.base, b.e);
  }
  }
  m->failed = true;
  return plain(NULL);
}

typedef struct wframe {
  psg_tir_expr *e;
  uint32_t next;
} wframe;

/* e rewritten bottom up into a sum or a plain expression. */
static val rewrite(itermap *m, psg_tir_expr *e) {
  PSGI_VEC(wframe) stack = {0};
  PSGI_VEC(val) vals = {0};
  val result = plain(NULL);
  if (!PSGI_VEC_PUSH(m->ctx, &stack, ((wframe){e, 0}))) goto oom;
  while (stack.len && !BAD(m)) {
    wframe *f = &stack.data[stack.len - 1];
    psg_tir_expr *n = f->e;
    bool leaf = psgi_tir_is_var_kind(n->kind);
    if (!leaf && f->next < n->nkids) {
      psg_tir_expr *c = n->kids[f->next++];
      if (psgi_tir_is_expr_kind(c->kind)) {
        if (!PSGI_VEC_PUSH(m->ctx, &stack, ((wframe){c, 0}))) goto oom;
      } else if (!PSGI_VEC_PUSH(m->ctx, &vals, plain(c))) {
        goto oom;
      }
      continue;
    }
    size_t nk = leaf ? 0 : n->nkids;
    val r = rewrite_node(m, n, vals.data + vals.len - nk);
    vals.len -= nk;
    stack.len--;
    if (BAD(m)) break;
    if (!PSGI_VEC_PUSH(m->ctx, &vals, r)) goto oom;
  }
  if (!BAD(m) && vals.len == 1) result = vals.data[0];
  else if (!BAD(m)) m->failed = true;
  PSGI_VEC_FREE(m->ctx, &stack);
  PSGI_VEC_FREE(m->ctx, &vals);
  return result;
oom:
  m->st = psgi_nomem(m->ctx);
  PSGI_VEC_FREE(m->ctx, &stack);
  PSGI_VEC_FREE(m->ctx, &vals);
  return result;
}

/* Constraints ---------------------------------------------------------------- */

static bool uses_iter(itermap *m, psg_tir_expr *e) {
  PSGI_VEC(psg_tir_expr *) stack = {0};
  bool found = false;
  if (!PSGI_VEC_PUSH(m->ctx, &stack, e)) {
    m->st = psgi_nomem(m->ctx);
    return false;
  }
  while (stack.len && !found) {
    psg_tir_expr *x = stack.data[--stack.len];
    if (psgi_tir_is_var_kind(x->kind)) {
      for (size_t i = 0; i < m->niters && !found; i++) found = m->iters[i].var == x;
      continue;
    }
    for (uint32_t i = 0; i < x->nkids; i++)
      if (psgi_tir_is_expr_kind(x->kids[i]->kind) && !PSGI_VEC_PUSH(m->ctx, &stack, x->kids[i])) {
        m->st = psgi_nomem(m->ctx);
        PSGI_VEC_FREE(m->ctx, &stack);
        return false;
      }
  }
  PSGI_VEC_FREE(m->ctx, &stack);
  return found;
}

static size_t expr_size(psg_tir_expr *e) {
  size_t n = 0;
  psg_tir_expr *stack[64];
  size_t sp = 0;
  stack[sp++] = e;
  while (sp) {
    psg_tir_expr *x = stack[--sp];
    n++;
    for (uint32_t i = 0; i < x->nkids; i++)
      if (psgi_tir_is_expr_kind(x->kids[i]->kind)) {
        if (sp < 64) stack[sp++] = x->kids[i];
        else n++;
      }
  }
  return n;
}

/* lhs - rhs split into its terms with iterators (lhs) and without (rhs),
 * TVM's f_extract over + and -. */
static bool separate(itermap *m, psg_tir_expr **lhs, psg_tir_expr **rhs) {
  psg_tir_expr *diff = op(m, PSG_TIR_SUB, *lhs, *rhs);
  if (!diff) return false;
  psg_tir_expr *l = cint(m, diff->dtype, 0), *r = cint(m, diff->dtype, 0);
  struct {
    psg_tir_expr *e;
    bool pos;
  } stack[64];
  size_t sp = 0;
  stack[sp].e = diff;
  stack[sp++].pos = true;
  while (sp && !m->st) {
    psg_tir_expr *x = stack[--sp].e;
    bool pos = stack[sp].pos;
    if ((x->kind == PSG_TIR_ADD || x->kind == PSG_TIR_SUB) && sp + 2 <= 64) {
      stack[sp].e = x->kids[1];
      stack[sp++].pos = x->kind == PSG_TIR_ADD ? pos : !pos;
      stack[sp].e = x->kids[0];
      stack[sp++].pos = pos;
    } else if (uses_iter(m, x)) {
      l = op(m, pos ? PSG_TIR_ADD : PSG_TIR_SUB, l, x);
    } else {
      r = op(m, pos ? PSG_TIR_SUB : PSG_TIR_ADD, r, x);
    }
  }
  *lhs = simp(m, l);
  *rhs = simp(m, r);
  return *lhs && *rhs;
}

/* TVM's MatchBoundConstraints over one conjunct: a comparison bounding an
 * iterator expression. false: not such a predicate (the detection fails). */
static bool match_bound(itermap *m, psg_tir_expr *p, constraint_vec *out) {
  int kind = p->kind;
  if (kind != PSG_TIR_LT && kind != PSG_TIR_LE && kind != PSG_TIR_GT && kind != PSG_TIR_GE) return false;
  psg_tir_expr *lhs = p->kids[0], *rhs = p->kids[1];
  if (!index_dtype(lhs->dtype) || !index_dtype(rhs->dtype)) return false;
  bool lu = uses_iter(m, lhs), ru = uses_iter(m, rhs);
  if (!lu && !ru) return !m->st;
  bool greater = kind == PSG_TIR_GT || kind == PSG_TIR_GE, eq = kind == PSG_TIR_LE || kind == PSG_TIR_GE;
  bool bound_left;
  if (lhs->kind == PSG_TIR_INT_IMM || !lu) {
    bound_left = true;
  } else if (rhs->kind == PSG_TIR_INT_IMM || !ru) {
    bound_left = false;
  } else {
    bound_left = false;
    if (!separate(m, &lhs, &rhs)) return false;
  }
  psg_tir_expr *lo = NULL, *hi = NULL, *iter, *one = cint(m, lhs->dtype, 1);
  if (greater == bound_left) { /* bound > iter, bound >= iter; iter < bound, iter <= bound */
    psg_tir_expr *bound = bound_left ? lhs : rhs;
    hi = eq ? op(m, PSG_TIR_ADD, bound, one) : bound;
    iter = bound_left ? rhs : lhs;
  } else { /* iter > bound, iter >= bound; bound < iter, bound <= iter */
    psg_tir_expr *bound = bound_left ? lhs : rhs;
    lo = eq ? bound : op(m, PSG_TIR_ADD, bound, one);
    iter = bound_left ? rhs : lhs;
  }
  if (m->st) return false;
  if (psgi_tir_is_var_kind(iter->kind)) {
    for (size_t i = 0; i < m->niters; i++) {
      psgi_arith_iter *it = &m->iters[i];
      if (it->var != iter) continue;
      psg_tir_expr *mn = it->min, *mx = op(m, PSG_TIR_ADD, it->min, it->extent);
      if (lo) mn = op(m, PSG_TIR_MAX, mn, lo);
      if (hi) mx = op(m, PSG_TIR_MIN, mx, hi);
      it->min = mn;
      it->extent = op(m, PSG_TIR_SUB, mx, mn);
      return !m->st;
    }
    return true;
  }
  constraint c = {iter, lo, hi, expr_size(iter)};
  if (!PSGI_VEC_PUSH(m->ctx, out, c)) m->st = psgi_nomem(m->ctx);
  return !m->st;
}

/* TVM's NormalizeToIterOnBoundExpr: the constraint's sum fused, its mark's
 * range narrowed to [lo, hi). */
static bool bound_constraint(itermap *m, isum s, psg_tir_expr *lo, psg_tir_expr *hi) {
  psg_tir_expr *base = s.base;
  if (!is_int(base, 0)) {
    s = copy_sum(m, s);
    s.base = cint(m, base->dtype, 0);
    if (lo) lo = op(m, PSG_TIR_SUB, lo, base);
    if (hi) hi = op(m, PSG_TIR_SUB, hi, base);
  }
  isum f;
  if (!try_fuse(m, s, false, &f) || f.len != 1 || !is_int(arg(m, f, 0)->scale, 1)) return false;
  uint32_t mk = arg(m, f, 0)->mark;
  mark *mm = &m->marks.data[mk];
  if (mm->src) return false;
  fused *fm = NULL;
  for (size_t i = 0; i < m->fmap.len && !fm; i++)
    if (m->fmap.data[i].mark == mk) fm = &m->fmap.data[i];
  if (!fm) return false;
  psg_tir_expr *imin = fm->offset, *imax = op(m, PSG_TIR_ADD, imin, mm->extent);
  psg_tir_expr *delta = cint(m, imin->dtype, 0);
  if (lo) {
    psg_tir_expr *nm = op(m, PSG_TIR_MAX, lo, imin);
    delta = op(m, PSG_TIR_SUB, nm, imin);
    imin = nm;
  }
  if (hi) imax = prove(m, PSG_TIR_LE, hi, imax) ? hi : op(m, PSG_TIR_MIN, hi, imax);
  if (m->st) return false;
  if (!is_int(delta, 0)) {
    isum st = copy_sum(m, fm->structured);
    st.base = op(m, PSG_TIR_SUB, st.base, delta);
    fm->structured = st;
    m->marks.data[mk].sum = st;
  }
  m->marks.data[mk].extent = op(m, PSG_TIR_SUB, imax, imin);
  fm->offset = imin;
  if (!PSGI_VEC_PUSH(m->ctx, &m->constrained, fm->flat)) m->st = psgi_nomem(m->ctx);
  return !m->st && m->marks.data[mk].extent;
}

/* TVM's CheckConstraints: two constraints' splits are nested or disjoint. */
static bool check_constraints(itermap *m) {
  for (size_t i = 0; i < m->constrained.len; i++)
    for (size_t j = i + 1; j < m->constrained.len; j++) {
      isum x = m->constrained.data[i], y = m->constrained.data[j];
      int state = 0;
      for (uint32_t a = 0; a < x.len; a++) {
        bool found = false;
        for (uint32_t b = 0; b < y.len && !found; b++) found = split_equal(arg(m, x, a), arg(m, y, b), true);
        if (state == 0)
          state = found ? 1 : -1;
        else if ((state == -1 && found) || (state == 1 && !found))
          return false;
      }
    }
  return true;
}

/* Checking and writing back ---------------------------------------------------- */

/* TVM's TryNormalizeSplits at the surjective level without padding: the
 * splits chain from lower factor 1 up (skipping factors allowed), and what
 * they cover divides the mark's extent. */
static bool normalize_splits(itermap *m, const mark *mk, const split *s, size_t n) {
  bool small[16], *used = n <= 16 ? small : psgi_calloc(m->ctx, n * sizeof *used);
  if (!used) {
    m->st = psgi_nomem(m->ctx);
    return false;
  }
  memset(used, 0, n * sizeof *used);
  bool ok = true;
  psg_tir_expr *expected = cint(m, mk->extent->dtype, 1);
  for (size_t i = 0; i < n && ok && !m->st; i++) {
    size_t j = 0;
    while (j < n && (used[j] || !prove_equal(m, s[j].lower, expected))) j++;
    if (j == n) { /* TVM's SearchSkipLowerFactor */
      size_t res = n;
      for (size_t k = 0; k < n; k++) {
        if (used[k]) continue;
        if (!divisible(m, s[k].lower, expected)) {
          res = n;
          break;
        }
        if (res == n || divisible(m, s[res].lower, s[k].lower)) res = k;
      }
      j = res;
      if (j == n) ok = false;
    }
    if (!ok) break;
    used[j] = true;
    expected = op(m, PSG_TIR_MUL, s[j].lower, s[j].extent);
  }
  ok = ok && !m->st && (prove_equal(m, expected, mk->extent) || divisible(m, mk->extent, expected));
  if (used != small) psgi_free(m->ctx, used);
  return ok;
}

/* TVM's CheckMapping: every mark the indices reach is tiled by its splits. */
static bool check_mapping(itermap *m, const isum *idx, size_t n) {
  size_t nm = m->marks.len;
  bool *visited = psgi_calloc(m->ctx, (nm ? nm : 1) * sizeof *visited);
  PSGI_VEC(split) *per = psgi_calloc(m->ctx, (nm ? nm : 1) * sizeof *per);
  bool ok = visited && per;
  if (!ok) m->st = psgi_nomem(m->ctx);
  for (size_t i = 0; ok && i < n; i++)
    for (uint32_t j = 0; ok && j < idx[i].len; j++) {
      split x = *arg(m, idx[i], j);
      visited[x.mark] = true;
      if (!PSGI_VEC_PUSH(m->ctx, &per[x.mark], x)) ok = false, m->st = psgi_nomem(m->ctx);
    }
  /* a mark's source refers to earlier marks only: one pass downwards */
  for (size_t k = nm; ok && k-- > 0;) {
    if (!visited[k] || m->marks.data[k].src) continue;
    isum s = m->marks.data[k].sum;
    for (uint32_t j = 0; ok && j < s.len; j++) {
      split x = *arg(m, s, j);
      visited[x.mark] = true;
      if (!PSGI_VEC_PUSH(m->ctx, &per[x.mark], x)) ok = false, m->st = psgi_nomem(m->ctx);
    }
  }
  for (size_t k = 0; ok && k < nm; k++)
    if (visited[k]) ok = normalize_splits(m, &m->marks.data[k], per[k].data, per[k].len);
  for (size_t k = 0; per && k < nm; k++) PSGI_VEC_FREE(m->ctx, &per[k]);
  psgi_free(m->ctx, per);
  psgi_free(m->ctx, visited);
  return ok && !m->st;
}

/* TVM's IterMapToExprNormalizer of one split; src: its mark as an expression. */
static psg_tir_expr *split_expr(itermap *m, const split *x, psg_tir_expr *src) {
  const mark *mk = &m->marks.data[x->mark];
  if (prove_equal(m, x->extent, mk->extent) && is_int(x->lower, 1)) return op(m, PSG_TIR_MUL, src, x->scale);
  if (prove_equal(m, mk->extent, op(m, PSG_TIR_MUL, x->lower, x->extent))) {
    if (is_int(x->extent, 1) && !is_int(mk->extent, 1)) return cint(m, x->extent->dtype, 0);
    return op(m, PSG_TIR_MUL, op(m, PSG_TIR_FLOOR_DIV, src, x->lower), x->scale);
  }
  psg_tir_expr *r = op(m, PSG_TIR_FLOOR_MOD, src, op(m, PSG_TIR_MUL, x->lower, x->extent));
  return op(m, PSG_TIR_MUL, op(m, PSG_TIR_FLOOR_DIV, r, x->lower), x->scale);
}

static psg_tir_expr *sum_expr(itermap *m, isum s, psg_tir_expr *const *mark_exprs) {
  psg_tir_expr *res = NULL;
  for (uint32_t i = 0; i < s.len && !m->st; i++) {
    split x = *arg(m, s, i);
    psg_tir_expr *t = split_expr(m, &x, mark_exprs[x.mark]);
    res = res ? op(m, PSG_TIR_ADD, res, t) : t;
  }
  return res ? op(m, PSG_TIR_ADD, res, s.base) : s.base;
}

/* The detection (TVM's DetectIterMap, surjective) and the write-back. */
static bool detect(itermap *m, psg_tir_expr *const *indices, size_t n, psg_tir_expr *const *preds, size_t npreds,
                   psg_tir_expr **out) {
  constraint_vec cons = {0};
  isum *idx = NULL;
  psg_tir_expr **mark_exprs = NULL;
  bool ok = true;
  /* conjuncts (a && b) of every predicate */
  PSGI_VEC(psg_tir_expr *) conj = {0};
  for (size_t i = 0; i < npreds && ok; i++)
    if (!PSGI_VEC_PUSH(m->ctx, &conj, preds[i])) ok = false, m->st = psgi_nomem(m->ctx);
  while (ok && conj.len) {
    psg_tir_expr *p = conj.data[--conj.len];
    if (p->kind == PSG_TIR_AND) {
      if (!PSGI_VEC_PUSH(m->ctx, &conj, p->kids[1]) || !PSGI_VEC_PUSH(m->ctx, &conj, p->kids[0]))
        ok = false, m->st = psgi_nomem(m->ctx);
      continue;
    }
    if (!match_bound(m, p, &cons)) ok = false;
  }
  PSGI_VEC_FREE(m->ctx, &conj);
  /* the iterators' values: trivial ones are their min */
  for (size_t i = 0; ok && i < m->niters; i++) {
    psgi_arith_iter *it = &m->iters[i];
    if (is_int(it->extent, 1)) { /* an iterator still, of no split (TVM's IterSumExpr({}, min)) */
      m->iter_vals[i] = iterv((isum){(uint32_t)m->args.len, 0, it->min});
      continue;
    }
    mark mk = {is_int(it->min, 0) ? it->var : op(m, PSG_TIR_SUB, it->var, it->min), {0, 0, NULL}, it->extent};
    if (!mk.src || !PSGI_VEC_PUSH(m->ctx, &m->marks, mk)) {
      if (!m->st) m->st = psgi_nomem(m->ctx);
      ok = false;
      break;
    }
    split x = whole(m, (uint32_t)m->marks.len - 1, cint(m, it->extent->dtype, 1));
    m->iter_vals[i] = iterv(make_sum(m, &x, 1, is_int(it->min, 0) ? cint(m, it->var->dtype, 0) : it->min));
  }
  /* constraints, smaller ones first */
  for (size_t i = 1; ok && i < cons.len; i++)
    for (size_t j = i; j > 0 && cons.data[j - 1].size > cons.data[j].size; j--) {
      constraint t = cons.data[j];
      cons.data[j] = cons.data[j - 1];
      cons.data[j - 1] = t;
    }
  for (size_t i = 0; ok && i < cons.len; i++) {
    val v = rewrite(m, cons.data[i].iter);
    ok = !BAD(m) && bound_constraint(m, to_sum(m, v), cons.data[i].lower, cons.data[i].upper) && !BAD(m);
  }
  ok = ok && check_constraints(m);
  /* the indices */
  if (ok && !(idx = psgi_calloc(m->ctx, n * sizeof *idx))) ok = false, m->st = psgi_nomem(m->ctx);
  for (size_t i = 0; ok && i < n; i++) {
    val v = rewrite(m, indices[i]);
    if (BAD(m)) ok = false;
    if (!ok) break;
    isum s = to_sum(m, v);
    if (s.len >= 1 && !try_fuse(m, s, true, &s)) ok = false;
    idx[i] = s;
  }
  ok = ok && !BAD(m) && check_mapping(m, idx, n);
  /* write back: marks in order (each refers to earlier ones only) */
  if (ok && !(mark_exprs = psgi_calloc(m->ctx, (m->marks.len ? m->marks.len : 1) * sizeof *mark_exprs)))
    ok = false, m->st = psgi_nomem(m->ctx);
  for (size_t k = 0; ok && k < m->marks.len; k++) {
    mark *mk = &m->marks.data[k];
    mark_exprs[k] = mk->src ? mk->src : sum_expr(m, mk->sum, mark_exprs);
    ok = mark_exprs[k] != NULL;
  }
  for (size_t i = 0; ok && i < n; i++) ok = (out[i] = sum_expr(m, idx[i], mark_exprs)) != NULL;
  psgi_free(m->ctx, mark_exprs);
  psgi_free(m->ctx, idx);
  PSGI_VEC_FREE(m->ctx, &cons);
  return ok && !BAD(m);
}

static void reset(itermap *m) {
  m->args.len = m->marks.len = m->fmap.len = m->constrained.len = 0;
  m->failed = false;
}

psg_status psgi_arith_iter_map_simplify(psg_arith_analyzer *a, psg_tir_expr *const *indices, size_t n,
                                        const psgi_arith_iter *iters, size_t niters, psg_tir_expr *const *preds,
                                        size_t npreds, psg_tir_expr **out, bool *detected) {
  psg_ctx *ctx = a->ctx;
  itermap m = {.ctx = ctx, .a = a, .niters = niters};
  *detected = false;
  for (size_t i = 0; i < n; i++) out[i] = NULL;
  m.iters = psgi_alloc(ctx, (niters ? niters : 1) * sizeof *m.iters);
  m.iter_vals = psgi_calloc(ctx, (niters ? niters : 1) * sizeof *m.iter_vals);
  psg_tir_expr **res = psgi_calloc(ctx, (n ? n : 1) * sizeof *res);
  if (!m.iters || !m.iter_vals || !res) m.st = psgi_nomem(ctx);
  /* TVM's IterRangeSanityCheck: no range may use another iterator */
  bool sane = !m.st;
  if (sane) memcpy(m.iters, iters, niters * sizeof *iters);
  for (size_t i = 0; sane && i < niters; i++) sane = !uses_iter(&m, iters[i].min) && !uses_iter(&m, iters[i].extent);
  bool ok = false;
  if (sane && !m.st) {
    ok = detect(&m, indices, n, preds, npreds, res);
    if (!ok && !m.st && npreds) { /* the predicate may be what fails it */
      reset(&m);
      memcpy(m.iters, iters, niters * sizeof *iters);
      ok = detect(&m, indices, n, NULL, 0, res);
    }
  }
  if (!m.st)
    for (size_t i = 0; i < n; i++) {
      out[i] = ok ? res[i] : indices[i];
      psg_tir_retain(out[i]);
    }
  *detected = ok && !m.st;
  for (size_t i = 0; i < m.pool.len; i++) psg_tir_release(m.pool.data[i]);
  PSGI_VEC_FREE(ctx, &m.pool);
  PSGI_VEC_FREE(ctx, &m.args);
  PSGI_VEC_FREE(ctx, &m.marks);
  PSGI_VEC_FREE(ctx, &m.fmap);
  PSGI_VEC_FREE(ctx, &m.constrained);
  psgi_free(ctx, m.iters);
  psgi_free(ctx, m.iter_vals);
  psgi_free(ctx, res);
  return m.st;
}
