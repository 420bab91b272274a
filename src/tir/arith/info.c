/* Passage — what the analyzer infers of an expression node: its integer
 * bound (TVM's ConstIntBound), its modular set (TVM's ModularSet) and a
 * structural hash, computed together bottom up with an explicit stack and
 * cached per node while the facts stay the same. */
#include <math.h>
#include "tir/arith/arith_internal.h"

/* Integer helpers ------------------------------------------------------------ */
int64_t psgi_arith_sat_add(int64_t x, int64_t y) {
  if (x == PSG_ARITH_POS_INF || y == PSG_ARITH_POS_INF) {
    if (x == PSG_ARITH_NEG_INF || y == PSG_ARITH_NEG_INF) return 0; /* callers avoid inf - inf */
    return PSG_ARITH_POS_INF;
  }
  if (x == PSG_ARITH_NEG_INF || y == PSG_ARITH_NEG_INF) return PSG_ARITH_NEG_INF;
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) return x > 0 ? PSG_ARITH_POS_INF : PSG_ARITH_NEG_INF;
  return r;
}

int64_t psgi_arith_sat_mul(int64_t x, int64_t y) {
  if (x == 0 || y == 0) return 0;
  bool neg = (x < 0) != (y < 0);
  bool xinf = x == PSG_ARITH_POS_INF || x == PSG_ARITH_NEG_INF;
  bool yinf = y == PSG_ARITH_POS_INF || y == PSG_ARITH_NEG_INF;
  int64_t r;
  if (xinf || yinf || __builtin_mul_overflow(x, y, &r)) return neg ? PSG_ARITH_NEG_INF : PSG_ARITH_POS_INF;
  return r;
}

int64_t psgi_arith_floordiv(int64_t x, int64_t y) {
  if (y == -1) return (int64_t)(0 - (uint64_t)x); /* wraps for INT64_MIN */
  int64_t q = x / y, r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q;
}

int64_t psgi_arith_floormod(int64_t x, int64_t y) {
  if (y == -1) return 0;
  int64_t r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}

int64_t psgi_arith_wrap(psg_tir_dtype t, int64_t v) {
  int bits = psg_tir_dtype_bits(t);
  if (bits >= 64) return v;
  uint64_t mask = (UINT64_C(1) << bits) - 1, u = (uint64_t)v & mask;
  if (psg_tir_dtype_is_int(t) && (u >> (bits - 1))) u |= ~mask; /* sign-extend */
  return (int64_t)u;
}

psg_arith_bound psgi_arith_dtype_bound(psg_tir_dtype t) {
  psg_arith_bound b = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
  if (!t || psg_tir_dtype_is_float(t) || psg_tir_dtype_is_handle(t)) return b;
  int bits = psg_tir_dtype_bits(t);
  if (psg_tir_dtype_is_int(t)) {
    if (bits < 64) {
      b.min = -(INT64_C(1) << (bits - 1));
      b.max = (INT64_C(1) << (bits - 1)) - 1;
    }
  } else {
    b.min = 0;
    if (bits < 64) b.max = (INT64_C(1) << bits) - 1;
  }
  return b;
}

static int64_t gcd64(int64_t x, int64_t y) {
  uint64_t a = x < 0 ? 0 - (uint64_t)x : (uint64_t)x, b = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a > (uint64_t)INT64_MAX ? 1 : (int64_t)a;
}

static psg_arith_modset mod_make(int64_t coeff, int64_t base) {
  psg_arith_modset m = {coeff, base};
  if (coeff < 0) m.coeff = coeff == INT64_MIN ? 1 : -coeff;
  if (m.coeff > 0) m.base = psgi_arith_floormod(base, m.coeff);
  if (m.coeff == 1) m.base = 0;
  return m;
}
static const psg_arith_modset MOD_ANY = {1, 0};

/* Union of two modular sets: every value of either. */
static psg_arith_modset mod_union(psg_arith_modset x, psg_arith_modset y) {
  int64_t d;
  if (__builtin_sub_overflow(x.base, y.base, &d)) return MOD_ANY;
  return mod_make(gcd64(gcd64(x.coeff, y.coeff), d), x.base);
}

/* Bounds -------------------------------------------------------------------- */
static psg_arith_bound bnd(int64_t lo, int64_t hi) {
  psg_arith_bound b = {lo, hi};
  return b;
}
static psg_arith_bound intersect(psg_arith_bound x, psg_arith_bound y) {
  return bnd(x.min > y.min ? x.min : y.min, x.max < y.max ? x.max : y.max);
}
static bool is_inf(int64_t v) { return v == PSG_ARITH_POS_INF || v == PSG_ARITH_NEG_INF; }

static psg_arith_bound mul_bound(psg_arith_bound x, psg_arith_bound y) {
  int64_t p[4] = {psgi_arith_sat_mul(x.min, y.min), psgi_arith_sat_mul(x.min, y.max),
                  psgi_arith_sat_mul(x.max, y.min), psgi_arith_sat_mul(x.max, y.max)};
  psg_arith_bound r = {p[0], p[0]};
  for (int i = 1; i < 4; i++) {
    if (p[i] < r.min) r.min = p[i];
    if (p[i] > r.max) r.max = p[i];
  }
  return r;
}

/* x / y over a divisor range of one sign; floor or trunc. */
static int64_t div_end(int64_t x, int64_t y, bool floor) {
  if (is_inf(x)) return (x > 0) == (y > 0) ? PSG_ARITH_POS_INF : PSG_ARITH_NEG_INF;
  if (is_inf(y)) return floor && ((x < 0) != (y < 0)) && x != 0 ? -1 : 0;
  if (y == -1) return x == INT64_MIN ? PSG_ARITH_POS_INF : -x;
  return floor ? psgi_arith_floordiv(x, y) : x / y;
}
static psg_arith_bound div_bound(psg_arith_bound x, psg_arith_bound y, bool floor) {
  if (y.min <= 0 && y.max >= 0) {
    /* A divisor range holding 0: keep to the non-zero side when it is one end. */
    if (y.min == 0 && y.max > 0) y.min = 1;
    else if (y.max == 0 && y.min < 0) y.max = -1;
    else return bnd(PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF);
  }
  int64_t p[4] = {div_end(x.min, y.min, floor), div_end(x.min, y.max, floor), div_end(x.max, y.min, floor),
                  div_end(x.max, y.max, floor)};
  psg_arith_bound r = {p[0], p[0]};
  for (int i = 1; i < 4; i++) {
    if (p[i] < r.min) r.min = p[i];
    if (p[i] > r.max) r.max = p[i];
  }
  return r;
}

static psg_arith_bound mod_bound(psg_arith_bound x, psg_arith_bound y, bool floor) {
  if (y.min <= 0) return bnd(PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF); /* positive divisors only */
  int64_t m = y.max == PSG_ARITH_POS_INF ? PSG_ARITH_POS_INF : y.max - 1;
  if (x.min >= 0) return bnd(x.max < y.min ? x.min : 0, x.max < m ? x.max : m);
  if (floor) return bnd(0, m);
  /* truncmod keeps the sign of x */
  int64_t lo = psgi_arith_sat_neg(m);
  if (x.min > lo) lo = x.min;
  return bnd(lo, x.max < m ? (x.max < 0 ? 0 : x.max) : m);
}

/* Hash ---------------------------------------------------------------------- */
static uint64_t leaf_hash(const psg_tir_node *n) {
  uint64_t h = psgi_hash_mix((uint64_t)n->kind * 0x9E3779B97F4A7C15ull, n->dtype);
  switch (n->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: return psgi_hash_mix(h, psgi_hash_ptr(n));
  case PSG_TIR_INT_IMM: return psgi_hash_mix(h, (uint64_t)n->u.int_value);
  case PSG_TIR_FLOAT_IMM: {
    double v = n->u.float_value;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return psgi_hash_mix(h, bits);
  }
  case PSG_TIR_STRING_IMM: return psgi_hash_mix(h, psgi_hash_bytes(n->u.str.s, n->u.str.len));
  case PSG_TIR_CALL: return psgi_hash_mix(h, n->u.op);
  default: return h;
  }
}

/* Info of one node from its operands' ------------------------------------------ */
static psgi_arith_info *cached(psg_arith_analyzer *a, const psg_tir_node *n);

/* x << y for x, y >= 0, +inf past int64 (TVM's InfAwareLeftShift). */
static int64_t shl_end(int64_t x, int64_t y) {
  if (x == PSG_ARITH_POS_INF || y == PSG_ARITH_POS_INF) return x == 0 ? 0 : PSG_ARITH_POS_INF;
  if (x == 0) return 0;
  if (y >= 63 || x > (INT64_MAX >> y)) return PSG_ARITH_POS_INF;
  return x << y;
}

/* The bound of int(ceil(log2(arg))) (topi's ceil_log2; TVM bounds it by the
 * bound of arg), when e has that form and arg is a float constant or a
 * float cast of an int expression with a bound >= 1. */
static bool ceil_log2_bound(psg_arith_analyzer *a, const psg_tir_expr *e, psg_arith_bound *out) {
  if (!psg_tir_dtype_is_int(e->dtype)) return false;
  psg_tir_expr *c = e->kids[0];
  if (c->kind != PSG_TIR_CALL || c->u.op != PSGI_TIR_OP_ceil) return false;
  psg_tir_expr *l = c->kids[0];
  if (l->kind != PSG_TIR_CALL || l->u.op != PSGI_TIR_OP_log2) return false;
  psg_tir_expr *arg = l->kids[0];
  double lo, hi;
  if (arg->kind == PSG_TIR_FLOAT_IMM) {
    lo = hi = arg->u.float_value;
  } else if (arg->kind == PSG_TIR_CAST && psgi_arith_is_index_dtype(arg->kids[0]->dtype)) {
    const psgi_arith_info *ai = cached(a, arg->kids[0]);
    if (!ai || ai->bound.max == PSG_ARITH_POS_INF) return false;
    lo = (double)ai->bound.min;
    hi = (double)ai->bound.max;
  } else {
    return false;
  }
  if (!(lo >= 1) || !(hi >= lo) || hi > 9e15) return false;
  out->min = (int64_t)ceil(log2(lo));
  out->max = (int64_t)ceil(log2(hi));
  return true;
}

/* Bounds of the integer intrinsics TVM's ConstIntBound knows. */
static psg_arith_bound call_bound(const psg_tir_expr *e, const psgi_arith_info *k, psg_arith_bound any) {
  if (e->nkids != 2) return any;
  psg_arith_bound x = k[0].bound, y = k[1].bound;
  switch (e->u.op) {
  case PSGI_TIR_OP_shift_left:
    /* a negative operand may be undefined behaviour on a target: nothing */
    if (x.min < 0 || y.min < 0) return any;
    return bnd(shl_end(x.min, y.min), shl_end(x.max, y.max));
  case PSGI_TIR_OP_shift_right:
    if (x.min < 0 || y.min < 0) return any;
    return bnd(y.max >= 63 || x.min == PSG_ARITH_POS_INF ? 0 : x.min >> y.max,
               x.max == PSG_ARITH_POS_INF ? PSG_ARITH_POS_INF : y.min >= 63 ? 0 : x.max >> y.min);
  case PSGI_TIR_OP_bitwise_and:
    if (x.min >= 0 && y.min >= 0) return bnd(0, x.max < y.max ? x.max : y.max);
    if (y.min >= 0) return bnd(0, y.max);
    if (x.min >= 0) return bnd(0, x.max);
    return any;
  default: return any;
  }
}

static void var_info(psg_arith_analyzer *a, psg_tir_expr *e, psgi_arith_info *o) {
  o->bound = psgi_arith_dtype_bound(e->dtype);
  if (e->kind == PSG_TIR_SIZE_VAR && o->bound.min < 0) o->bound.min = 0;
  const psgi_arith_fact *f = psgi_arith_find_fact(a, e);
  if (f) o->bound = intersect(o->bound, f->bound);
  if (f && f->mod.coeff != 1) o->mod = f->mod;
}

static void node_info(psg_arith_analyzer *a, psg_tir_expr *e, const psgi_arith_info *k, psgi_arith_info *o) {
  psg_arith_bound any = psgi_arith_dtype_bound(e->dtype);
  bool ints = psgi_arith_is_index_dtype(e->dtype) || (psg_tir_dtype_is_bool(e->dtype) &&
                                                       psg_tir_dtype_lanes(e->dtype) == 1);
  o->mod = MOD_ANY;
  o->bound = any;
  switch (e->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: var_info(a, e, o); break;
  case PSG_TIR_INT_IMM:
    o->bound = bnd(e->u.int_value, e->u.int_value);
    break;
  case PSG_TIR_ADD:
    o->bound = bnd(psgi_arith_sat_add(k[0].bound.min, k[1].bound.min),
                   psgi_arith_sat_add(k[0].bound.max, k[1].bound.max));
    break;
  case PSG_TIR_SUB:
    o->bound = bnd(psgi_arith_sat_add(k[0].bound.min, psgi_arith_sat_neg(k[1].bound.max)),
                   psgi_arith_sat_add(k[0].bound.max, psgi_arith_sat_neg(k[1].bound.min)));
    break;
  case PSG_TIR_MUL: o->bound = mul_bound(k[0].bound, k[1].bound); break;
  case PSG_TIR_DIV: o->bound = div_bound(k[0].bound, k[1].bound, false); break;
  case PSG_TIR_FLOOR_DIV: o->bound = div_bound(k[0].bound, k[1].bound, true); break;
  case PSG_TIR_MOD: o->bound = mod_bound(k[0].bound, k[1].bound, false); break;
  case PSG_TIR_FLOOR_MOD: o->bound = mod_bound(k[0].bound, k[1].bound, true); break;
  case PSG_TIR_MIN:
    o->bound = bnd(k[0].bound.min < k[1].bound.min ? k[0].bound.min : k[1].bound.min,
                   k[0].bound.max < k[1].bound.max ? k[0].bound.max : k[1].bound.max);
    break;
  case PSG_TIR_MAX:
    o->bound = bnd(k[0].bound.min > k[1].bound.min ? k[0].bound.min : k[1].bound.min,
                   k[0].bound.max > k[1].bound.max ? k[0].bound.max : k[1].bound.max);
    break;
  case PSG_TIR_SELECT:
    o->bound = bnd(k[1].bound.min < k[2].bound.min ? k[1].bound.min : k[2].bound.min,
                   k[1].bound.max > k[2].bound.max ? k[1].bound.max : k[2].bound.max);
    break;
  case PSG_TIR_CALL: o->bound = call_bound(e, k, any); break;
  case PSG_TIR_CAST: {
    psg_tir_dtype from = e->kids[0]->dtype;
    psg_arith_bound cl;
    if (ceil_log2_bound(a, e, &cl)) {
      o->bound = cl;
    } else if (psgi_arith_is_index_dtype(from) || psg_tir_dtype_is_bool(from)) {
      psg_arith_bound src = k[0].bound;
      /* A value that fits the target dtype keeps its bound. */
      if (src.min >= any.min && src.max <= any.max) o->bound = src;
    }
    break;
  }
  case PSG_TIR_LET: o->bound = k[2].bound; break;
  case PSG_TIR_BROADCAST: o->bound = k[0].bound; break;
  default: break;
  }
  if (!ints) {
    o->bound = bnd(PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF);
    return;
  }
  o->bound = intersect(o->bound, any);
  if (o->bound.min > o->bound.max) o->bound = any; /* facts that contradict: claim nothing */
  /* Modular set. */
  switch (e->kind) {
  case PSG_TIR_ADD:
  case PSG_TIR_SUB: {
    int64_t b;
    bool ovf = e->kind == PSG_TIR_ADD ? __builtin_add_overflow(k[0].mod.base, k[1].mod.base, &b)
                                      : __builtin_sub_overflow(k[0].mod.base, k[1].mod.base, &b);
    if (!ovf) o->mod = mod_make(gcd64(k[0].mod.coeff, k[1].mod.coeff), b);
    break;
  }
  case PSG_TIR_MUL: {
    int64_t c1 = k[0].mod.coeff, b1 = k[0].mod.base, c2 = k[1].mod.coeff, b2 = k[1].mod.base, p, q, r, bb;
    if (!__builtin_mul_overflow(c1, c2, &p) && !__builtin_mul_overflow(c1, b2, &q) &&
        !__builtin_mul_overflow(c2, b1, &r) && !__builtin_mul_overflow(b1, b2, &bb))
      o->mod = mod_make(gcd64(gcd64(p, q), r), bb);
    break;
  }
  case PSG_TIR_FLOOR_DIV: {
    int64_t c = k[1].mod.base;
    if (k[1].mod.coeff == 0 && c > 0 && k[0].mod.coeff % c == 0)
      o->mod = mod_make(k[0].mod.coeff / c, psgi_arith_floordiv(k[0].mod.base, c));
    break;
  }
  case PSG_TIR_FLOOR_MOD: {
    /* floormod(x, c) is x modulo |c| whatever c's sign; exact when |c|
     * divides x's coefficient (its sign then c's: floormod(2k, -2) is 0) */
    int64_t c = k[1].mod.base, m = c < 0 ? -c : c;
    if (k[1].mod.coeff == 0 && c != 0 && c != INT64_MIN) {
      int64_t g = gcd64(k[0].mod.coeff, m);
      o->mod = g == 0 ? MOD_ANY : mod_make(g == m ? 0 : g, g == m ? psgi_arith_floormod(k[0].mod.base, c)
                                                                : k[0].mod.base);
    }
    break;
  }
  case PSG_TIR_MIN:
  case PSG_TIR_MAX: o->mod = mod_union(k[0].mod, k[1].mod); break;
  case PSG_TIR_SELECT: o->mod = mod_union(k[1].mod, k[2].mod); break;
  case PSG_TIR_LET: o->mod = k[2].mod; break;
  default: break;
  }
  if (o->bound.min == o->bound.max) o->mod = mod_make(0, o->bound.min);
  /* an exact modular set (a var's known residue) is an exact value */
  else if (o->mod.coeff == 0 && o->mod.base >= o->bound.min && o->mod.base <= o->bound.max)
    o->bound = bnd(o->mod.base, o->mod.base);
}

/* The driver ------------------------------------------------------------------ */
static psgi_arith_info *cached(psg_arith_analyzer *a, const psg_tir_node *n) {
  psgi_map_entry *en = psgi_map_get_ptr(&a->cache, n);
  return en ? &a->cached.data[(uintptr_t)en->value - 1].info : NULL;
}

/* Above this many cached nodes a public query starts from an empty cache
 * (never a query in progress: the nodes it reads must stay cached). */
enum { CACHE_SOFT_LIMIT = 1 << 18 };

void psgi_arith_cache_trim(psg_arith_analyzer *a) {
  if (a->cached.len > CACHE_SOFT_LIMIT || a->rewritten.len > CACHE_SOFT_LIMIT) psgi_arith_cache_clear(a);
}

psg_status psgi_arith_info_of(psg_arith_analyzer *a, psg_tir_expr *e, psgi_arith_info *out) {
  if (e->kind == PSG_TIR_INT_IMM && !a->exhaustive) {
    /* A constant asked for itself (a loop's min and extent, a rule's
     * operand): node_info reads nothing else for it, so its info is made
     * here, without a cache entry that the fact pushed next would clear
     * anyway. The same info as the walk's; an uncached node only costs
     * psgi_arith_equal its hash filter (design.md 236). */
    psgi_arith_info none[1] = {{.hash = 0}};
    node_info(a, e, none, out);
    out->hash = leaf_hash(e);
    return PSG_OK;
  }
  psgi_arith_info *hit = cached(a, e);
  if (hit) {
    *out = *hit;
    return PSG_OK;
  }
  typedef struct {
    psg_tir_node *n;
    bool expanded;
  } frame;
  frame small_st[32];
  PSGI_VEC(frame) st;
  PSGI_ARITH_SVEC_INIT(&st, small_st);
  psg_status s = PSG_OK;
  frame f0 = {e, false};
  if (!PSGI_ARITH_SVEC_PUSH(a->ctx, &st, small_st, f0)) return psgi_nomem(a->ctx);
  psgi_arith_info small[4];
  while (st.len) {
    frame *f = &st.data[st.len - 1];
    psg_tir_node *n = f->n;
    if (cached(a, n)) {
      st.len--;
      continue;
    }
    if (!f->expanded) {
      f->expanded = true;
      for (uint32_t i = n->nkids; i-- > 0;) {
        psg_tir_node *k = n->kids[i];
        if (!psgi_tir_is_expr_kind(k->kind) || cached(a, k)) continue;
        frame fk = {k, false};
        if (!PSGI_ARITH_SVEC_PUSH(a->ctx, &st, small_st, fk)) {
          s = psgi_nomem(a->ctx);
          goto done;
        }
      }
      continue;
    }
    st.len--;
    uint64_t h = leaf_hash(n);
    for (uint32_t i = 0; i < n->nkids; i++) {
      psg_tir_node *k = n->kids[i];
      psgi_arith_info *ki = psgi_tir_is_expr_kind(k->kind) ? cached(a, k) : NULL;
      h = psgi_hash_mix(h, ki ? ki->hash : psgi_hash_ptr(k));
      if (i < 4) {
        if (ki) small[i] = *ki;
        else {
          small[i].bound = bnd(PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF);
          small[i].mod = MOD_ANY;
        }
      }
    }
    psgi_arith_cached c;
    c.node = n;
    node_info(a, n, small, &c.info);
    c.info.hash = h;
    bool is_new;
    psgi_map_entry *en = psgi_map_put_ptr(&a->cache, n, &is_new);
    if (!en || !PSGI_VEC_PUSH(a->ctx, &a->cached, c)) {
      s = psgi_nomem(a->ctx);
      psgi_arith_cache_clear(a); /* no entry without its info */
      goto done;
    }
    psg_tir_retain(n);
    en->value = (void *)(uintptr_t)a->cached.len;
  }
  *out = *cached(a, e);
done:
  PSGI_ARITH_SVEC_FREE(a->ctx, &st, small_st);
  return s;
}

/* Structural equality ---------------------------------------------------------- */
static bool same_leaf(const psg_tir_node *x, const psg_tir_node *y) {
  if (x->kind != y->kind || x->dtype != y->dtype || x->nkids != y->nkids || x->flags != y->flags) return false;
  switch (x->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: return false; /* vars by identity */
  case PSG_TIR_INT_IMM: return x->u.int_value == y->u.int_value;
  case PSG_TIR_FLOAT_IMM: return memcmp(&x->u.float_value, &y->u.float_value, sizeof(double)) == 0;
  case PSG_TIR_STRING_IMM:
    return x->u.str.len == y->u.str.len && memcmp(x->u.str.s, y->u.str.s, x->u.str.len) == 0;
  case PSG_TIR_CALL: return x->u.op == y->u.op;
  default: return true;
  }
}

/* False when an operand pair of x and y (same_leaf already) differs at
 * once: different kind or dtype, two different vars, two different int
 * constants. A cheap first look before the cached hashes. */
static bool kids_may_match(const psg_tir_node *x, const psg_tir_node *y) {
  for (uint32_t i = 0; i < x->nkids; i++) {
    const psg_tir_node *kx = x->kids[i], *ky = y->kids[i];
    if (kx == ky) continue;
    if (kx->kind != ky->kind || kx->dtype != ky->dtype || psgi_tir_is_var_kind(kx->kind) ||
        (kx->kind == PSG_TIR_INT_IMM && kx->u.int_value != ky->u.int_value))
      return false;
  }
  return true;
}

static bool equal_walk(psg_ctx *ctx, psg_arith_analyzer *a, const psg_tir_node *x, const psg_tir_node *y) {
  typedef struct {
    const psg_tir_node *x, *y;
  } pair;
  pair small[32];
  PSGI_VEC(pair) st;
  PSGI_ARITH_SVEC_INIT(&st, small);
  pair p0 = {x, y};
  bool eq = true;
  if (!PSGI_ARITH_SVEC_PUSH(ctx, &st, small, p0)) return false;
  while (eq && st.len) {
    pair p = st.data[--st.len];
    if (p.x == p.y) continue;
    if (!psgi_tir_is_expr_kind(p.x->kind) || !same_leaf(p.x, p.y) || !kids_may_match(p.x, p.y)) {
      eq = false;
      break;
    }
    if (a) {
      psgi_arith_info *ix = cached(a, p.x), *iy = cached(a, p.y);
      if (ix && iy && ix->hash != iy->hash) {
        eq = false;
        break;
      }
    }
    for (uint32_t i = 0; i < p.x->nkids; i++) {
      pair k = {p.x->kids[i], p.y->kids[i]};
      if (!PSGI_ARITH_SVEC_PUSH(ctx, &st, small, k)) {
        eq = false;
        break;
      }
    }
  }
  PSGI_ARITH_SVEC_FREE(ctx, &st, small);
  return eq;
}

bool psg_arith_expr_equal(const psg_tir_expr *x, const psg_tir_expr *y) {
  if (x == y) return true;
  if (!x || !y) return false;
  return equal_walk(x->ctx, NULL, x, y);
}

bool psgi_arith_equal(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y) {
  if (x == y) return true;
  if (x->kind != y->kind || x->dtype != y->dtype) return false;
  return equal_walk(a->ctx, a, x, y);
}
