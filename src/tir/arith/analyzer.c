/* Passage — the analyzer object (include/passage/arith.h): the fact stacks
 * (var bounds from loop ranges and let bindings, conditions from `if` and
 * T.assume), scopes that pop them, and the cache the queries share. */
#include "tir/arith/arith_internal.h"

bool psgi_arith_exhaustive = false;
bool psgi_arith_check_rules_known = false;
size_t psgi_arith_rules_known_checked, psgi_arith_rules_known_wrong;

psg_status psg_arith_analyzer_create(psg_ctx *ctx, psg_arith_analyzer **out) {
  *out = NULL;
  psg_arith_analyzer *a = psgi_calloc(ctx, sizeof *a);
  if (!a) return psgi_nomem(ctx);
  a->ctx = ctx;
  a->exhaustive = psgi_arith_exhaustive;
  psgi_map_init(&a->cache, ctx);
  psgi_map_init(&a->newest, ctx);
  psgi_map_init(&a->rewritten, ctx);
  *out = a;
  return PSG_OK;
}

bool psgi_arith_svec_grow(psg_ctx *ctx, void **data, size_t *cap, void *small, size_t elem, size_t need) {
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2) return false;
    ncap *= 2;
  }
  void *nd;
  if (*data == small) {
    if (!(nd = psgi_alloc(ctx, psgi_mul_size(ncap, elem)))) return false;
    memcpy(nd, small, *cap * elem);
  } else if (!(nd = psgi_realloc(ctx, *data, psgi_mul_size(ncap, elem)))) {
    return false;
  }
  *data = nd;
  *cap = ncap;
  return true;
}

void psgi_arith_rewritten_clear(psg_arith_analyzer *a) {
  if (!a->rewritten.len) return;
  for (size_t i = 0; i < a->rewritten.len; i++) {
    psgi_map_entry *e = &a->rewritten.entries[i];
    psg_tir_release((psg_tir_expr *)((uintptr_t)e->key & ~(uintptr_t)1));
    psg_tir_release((psg_tir_expr *)((uintptr_t)e->value & ~(uintptr_t)3)); /* tagged (simplify_expr.c) */
  }
  psgi_map_clear(&a->rewritten);
}

void psgi_arith_cache_clear(psg_arith_analyzer *a) {
  psgi_arith_rewritten_clear(a);
  if (!a->cached.len && !a->cache.len) return;
  for (size_t i = 0; i < a->cached.len; i++) psg_tir_release(a->cached.data[i].node);
  a->cached.len = 0;
  psgi_map_clear(&a->cache);
}

static void pop_facts(psg_arith_analyzer *a, size_t nfacts, size_t nknown) {
  while (a->facts.len > nfacts) {
    psgi_arith_fact *f = &a->facts.data[--a->facts.len];
    psgi_map_entry *e = psgi_map_get_ptr(&a->newest, f->var);
    if (e) e->value = (void *)(uintptr_t)f->prev;
    psg_tir_release(f->var);
    psg_tir_release(f->subst);
    psg_tir_release(f->let_value);
  }
  /* No fact left: the vars of popped facts (maybe freed, their addresses
   * reused) need no entries. */
  if (!a->facts.len && a->newest.len) {
    psgi_map_fini(&a->newest);
    psgi_map_init(&a->newest, a->ctx);
  }
  while (a->known.len > nknown) psg_tir_release(a->known.data[--a->known.len]);
}

void psg_arith_analyzer_destroy(psg_arith_analyzer *a) {
  if (!a) return;
  psgi_arith_cache_clear(a);
  pop_facts(a, 0, 0);
  psgi_map_fini(&a->cache);
  psgi_map_fini(&a->rewritten);
  psgi_map_fini(&a->newest);
  PSGI_VEC_FREE(a->ctx, &a->cached);
  PSGI_VEC_FREE(a->ctx, &a->facts);
  PSGI_VEC_FREE(a->ctx, &a->known);
  psgi_free(a->ctx, a);
}

const psgi_arith_fact *psgi_arith_find_fact(const psg_arith_analyzer *a, const psg_tir_expr *var) {
  psgi_map_entry *e = psgi_map_get_ptr(&a->newest, var);
  size_t i = e ? (size_t)(uintptr_t)e->value : 0;
  return i ? &a->facts.data[i - 1] : NULL;
}

psg_status psgi_arith_push_fact(psg_arith_analyzer *a, psgi_arith_fact f) {
  psgi_map_entry *e = psgi_map_put_ptr(&a->newest, f.var, NULL);
  if (!e) return psgi_nomem(a->ctx);
  f.prev = (size_t)(uintptr_t)e->value;
  if (!PSGI_VEC_PUSH(a->ctx, &a->facts, f)) return psgi_nomem(a->ctx);
  e->value = (void *)(uintptr_t)a->facts.len;
  psg_tir_retain(f.var);
  psg_tir_retain(f.subst);
  psg_tir_retain(f.let_value);
  psgi_arith_cache_clear(a);
  return PSG_OK;
}

/* Pushes a fact narrowing var to [lo, hi] (intersected with what is known). */
static psg_status push_fact_mod(psg_arith_analyzer *a, psg_tir_expr *var, int64_t lo, int64_t hi,
                                psg_tir_expr *subst, psg_tir_expr *let_value, psg_arith_modset mod) {
  const psgi_arith_fact *old = psgi_arith_find_fact(a, var);
  if (old) {
    if (old->bound.min > lo) lo = old->bound.min;
    if (old->bound.max < hi) hi = old->bound.max;
    if (!subst) subst = old->subst;
    if (!let_value) let_value = old->let_value;
    /* either set alone is true; the newer one is kept unless it says nothing */
    if (mod.coeff == 1) mod = old->mod;
  }
  return psgi_arith_push_fact(a, (psgi_arith_fact){var, {lo, hi}, subst, let_value, mod, 0});
}

static psg_status push_fact(psg_arith_analyzer *a, psg_tir_expr *var, int64_t lo, int64_t hi,
                            psg_tir_expr *subst, psg_tir_expr *let_value) {
  return push_fact_mod(a, var, lo, hi, subst, let_value, (psg_arith_modset){1, 0});
}

/* floormod(var, c) == b (either side) known true: var is b modulo |c|
 * (c < 0 is canonical_simplify's sign convention, floormod(0 - i, 2) being
 * floormod(i, -2) * -1; TVM's ModularSet reads both). */
static psg_status learn_mod(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y) {
  int64_t c, b;
  if (x->kind != PSG_TIR_FLOOR_MOD) {
    psg_tir_expr *t = x;
    x = y;
    y = t;
  }
  if (x->kind != PSG_TIR_FLOOR_MOD || !psgi_tir_is_var_kind(x->kids[0]->kind) || !psgi_arith_is_int(x->kids[1], &c) ||
      !psgi_arith_is_int(y, &b) || c == 0 || c == INT64_MIN)
    return PSG_OK;
  int64_t m = c < 0 ? -c : c;
  psg_arith_modset mod = {m, psgi_arith_floormod(b, m)};
  if (m == 1) return PSG_OK;
  return push_fact_mod(a, x->kids[0], PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF, NULL, NULL, mod);
}

static psg_status need_int_var(psg_arith_analyzer *a, psg_tir_expr *var) {
  if (var && psgi_tir_is_var_kind(var->kind)) return PSG_OK;
  return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                       "arith: bind needs a Var");
}

psg_status psg_arith_bind(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *min,
                          psg_tir_expr *extent) {
  psg_status st = need_int_var(a, var);
  if (st) return st;
  if (!min || !extent || !psgi_tir_is_expr_kind(min->kind) || !psgi_tir_is_expr_kind(extent->kind))
    return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "arith: bind needs a min and an extent");
  if (!psgi_arith_is_index_dtype(var->dtype)) return PSG_OK; /* nothing to learn */
  psgi_arith_info mi, ei;
  if ((st = psgi_arith_info_of(a, min, &mi)) || (st = psgi_arith_info_of(a, extent, &ei))) return st;
  int64_t lo = mi.bound.min, hi = PSG_ARITH_POS_INF;
  /* var < min + extent, so var <= max(min) + max(extent) - 1. */
  if (ei.bound.min >= 1) hi = psgi_arith_sat_add(psgi_arith_sat_add(mi.bound.max, ei.bound.max), -1);
  psg_tir_expr *subst = NULL;
  /* An extent of exactly 1: the var is min (TVM binds the var to min). */
  if (ei.bound.min == 1 && ei.bound.max == 1) subst = min;
  return push_fact(a, var, lo, hi, subst, NULL);
}

psg_status psgi_arith_bind_let(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *value, int how) {
  psg_status st = need_int_var(a, var);
  if (st) return st;
  if (!value || !psgi_tir_is_expr_kind(value->kind))
    return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "arith: bind_value needs a value");
  psgi_arith_info vi;
  if ((st = psgi_arith_info_of(a, value, &vi))) return st;
  psg_tir_expr *subst = how == PSGI_ARITH_LET_INLINE ? value : NULL;
  psg_tir_expr *let_value = how == PSGI_ARITH_LET_PROVE ? value : NULL;
  if (!psgi_arith_is_index_dtype(var->dtype))
    return push_fact(a, var, PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF, subst, let_value);
  return push_fact(a, var, vi.bound.min, vi.bound.max, subst, let_value);
}

psg_status psg_arith_bind_value(psg_arith_analyzer *a, psg_tir_expr *var, psg_tir_expr *value) {
  /* A constant or another var is substituted; any other value is kept for
   * proofs (the caller knows it reads no memory that may change). */
  bool trivial = value && (value->kind == PSG_TIR_INT_IMM || value->kind == PSG_TIR_FLOAT_IMM ||
                           psgi_tir_is_var_kind(value->kind));
  return psgi_arith_bind_let(a, var, value, trivial ? PSGI_ARITH_LET_INLINE : PSGI_ARITH_LET_PROVE);
}

psg_status psgi_arith_mark_non_negative(psg_arith_analyzer *a, psg_tir_expr *value) {
  /* value = sign * (c * ... * var * ...) + offset, read through Add/Sub;
   * TVM then bounds var below by -offset. */
  if (value->kind == PSG_TIR_INT_IMM) return PSG_OK; /* a constant shape: no var (most shapes) */
  int64_t offset = 0;
  psg_tir_expr *sym = NULL;
  int nsym = 0;
  PSGI_VEC(psg_tir_expr *) stack = {0};
  PSGI_VEC(int) signs = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(a->ctx, &stack, value) || !PSGI_VEC_PUSH(a->ctx, &signs, 1)) st = psgi_nomem(a->ctx);
  while (!st && stack.len) {
    psg_tir_expr *e = stack.data[--stack.len];
    int sg = signs.data[--signs.len];
    if (e->kind == PSG_TIR_ADD || e->kind == PSG_TIR_SUB) {
      if (!PSGI_VEC_PUSH(a->ctx, &stack, e->kids[1]) || !PSGI_VEC_PUSH(a->ctx, &signs, e->kind == PSG_TIR_SUB ? -sg : sg) ||
          !PSGI_VEC_PUSH(a->ctx, &stack, e->kids[0]) || !PSGI_VEC_PUSH(a->ctx, &signs, sg))
        st = psgi_nomem(a->ctx);
    } else if (e->kind == PSG_TIR_INT_IMM) {
      offset = psgi_arith_sat_add(offset, sg > 0 ? e->u.int_value : psgi_arith_sat_neg(e->u.int_value));
    } else {
      nsym++;
      sym = sg > 0 ? e : NULL; /* a subtracted term is not a product */
    }
  }
  PSGI_VEC_FREE(a->ctx, &stack);
  PSGI_VEC_FREE(a->ctx, &signs);
  if (st || nsym != 1 || !sym) return st;
  /* The product: constants multiply the scale, one var. */
  int64_t scale = 1;
  psg_tir_expr *var = NULL;
  int nvar = 0;
  while (sym->kind == PSG_TIR_MUL) {
    psg_tir_expr *l = sym->kids[0], *r = sym->kids[1];
    if (r->kind == PSG_TIR_INT_IMM) {
      scale = psgi_arith_sat_mul(scale, r->u.int_value);
      sym = l;
    } else if (l->kind == PSG_TIR_INT_IMM) {
      scale = psgi_arith_sat_mul(scale, l->u.int_value);
      sym = r;
    } else {
      return PSG_OK; /* a product of two symbols */
    }
  }
  if (psgi_tir_is_var_kind(sym->kind)) var = sym, nvar = 1;
  if (nvar != 1 || scale <= 0 || !psgi_arith_is_index_dtype(var->dtype)) return PSG_OK;
  if (offset == PSG_ARITH_POS_INF || offset == PSG_ARITH_NEG_INF) return PSG_OK;
  return push_fact(a, var, -offset, PSG_ARITH_POS_INF, NULL, NULL);
}

/* Learns a bound of a var from one comparison `x OP e` known true. */
static psg_status learn_compare(psg_arith_analyzer *a, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  /* Put the var on the left. */
  if (!psgi_tir_is_var_kind(x->kind) && psgi_tir_is_var_kind(y->kind)) {
    psg_tir_expr *t = x;
    x = y;
    y = t;
    kind = kind == PSG_TIR_LT ? PSG_TIR_GT : kind == PSG_TIR_GT ? PSG_TIR_LT
         : kind == PSG_TIR_LE ? PSG_TIR_GE : kind == PSG_TIR_GE ? PSG_TIR_LE : kind;
  }
  if (!psgi_tir_is_var_kind(x->kind) || !psgi_arith_is_index_dtype(x->dtype)) return PSG_OK;
  psgi_arith_info yi;
  psg_status st = psgi_arith_info_of(a, y, &yi);
  if (st) return st;
  int64_t lo = PSG_ARITH_NEG_INF, hi = PSG_ARITH_POS_INF;
  switch (kind) {
  case PSG_TIR_LT: hi = psgi_arith_sat_add(yi.bound.max, -1); break;
  case PSG_TIR_LE: hi = yi.bound.max; break;
  case PSG_TIR_GT: lo = psgi_arith_sat_add(yi.bound.min, 1); break;
  case PSG_TIR_GE: lo = yi.bound.min; break;
  case PSG_TIR_EQ: lo = yi.bound.min; hi = yi.bound.max; break;
  default: return PSG_OK;
  }
  if (yi.bound.max == PSG_ARITH_POS_INF && kind == PSG_TIR_LT) hi = PSG_ARITH_POS_INF;
  if (yi.bound.min == PSG_ARITH_NEG_INF && kind == PSG_TIR_GT) lo = PSG_ARITH_NEG_INF;
  return push_fact(a, x, lo, hi, NULL, NULL);
}

psg_status psg_arith_enter_constraint(psg_arith_analyzer *a, psg_tir_expr *cond,
                                      psg_arith_scope *scope) {
  scope->nfacts = a->facts.len;
  scope->nknown = a->known.len;
  if (!cond || !psgi_tir_is_expr_kind(cond->kind))
    return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "arith: a constraint must be an expression");
  /* The conjuncts, by an explicit stack over nested And. */
  PSGI_VEC(psg_tir_expr *) stack = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(a->ctx, &stack, cond)) st = psgi_nomem(a->ctx);
  while (!st && stack.len) {
    psg_tir_expr *c = stack.data[--stack.len];
    if (c->kind == PSG_TIR_CALL && c->u.op == PSGI_TIR_OP_likely && c->nkids == 1) {
      /* likely(x) holds as x (TVM's ExtractRealCondition) */
      if (!PSGI_VEC_PUSH(a->ctx, &stack, c->kids[0])) st = psgi_nomem(a->ctx);
      continue;
    }
    if (c->kind == PSG_TIR_AND) {
      if (!PSGI_VEC_PUSH(a->ctx, &stack, c->kids[1]) || !PSGI_VEC_PUSH(a->ctx, &stack, c->kids[0]))
        st = psgi_nomem(a->ctx);
      continue;
    }
    if (c->kind == PSG_TIR_NOT && c->kids[0]->kind == PSG_TIR_OR) {
      /* not (x or y): not x and not y; the new nodes are kept with the facts */
      for (int i = 1; i >= 0 && !st; i--) {
        psg_tir_expr *n;
        if ((st = psgi_arith_mk(a->ctx, PSG_TIR_NOT, c->kids[0]->kids[i], NULL, &n))) break;
        if (!PSGI_VEC_PUSH(a->ctx, &a->known, n)) {
          psg_tir_release(n);
          st = psgi_nomem(a->ctx);
          break;
        }
        if (!PSGI_VEC_PUSH(a->ctx, &stack, n)) st = psgi_nomem(a->ctx);
      }
      continue;
    }
    if (!PSGI_VEC_PUSH(a->ctx, &a->known, c)) {
      st = psgi_nomem(a->ctx);
      break;
    }
    psg_tir_retain(c);
    if (c->kind >= PSG_TIR_EQ && c->kind <= PSG_TIR_GE && psg_tir_dtype_lanes(c->dtype) == 1)
      st = learn_compare(a, c->kind, c->kids[0], c->kids[1]);
    if (!st && c->kind == PSG_TIR_EQ) st = learn_mod(a, c->kids[0], c->kids[1]);
    else if (c->kind == PSG_TIR_NOT && c->kids[0]->kind >= PSG_TIR_LT && c->kids[0]->kind <= PSG_TIR_GE) {
      static const int neg[] = {[PSG_TIR_LT] = PSG_TIR_GE, [PSG_TIR_LE] = PSG_TIR_GT,
                                [PSG_TIR_GT] = PSG_TIR_LE, [PSG_TIR_GE] = PSG_TIR_LT};
      psg_tir_expr *k = c->kids[0];
      st = learn_compare(a, neg[k->kind], k->kids[0], k->kids[1]);
    }
  }
  PSGI_VEC_FREE(a->ctx, &stack);
  psgi_arith_cache_clear(a);
  if (st) pop_facts(a, scope->nfacts, scope->nknown);
  return st;
}

void psg_arith_exit_constraint(psg_arith_analyzer *a, const psg_arith_scope *scope) {
  if (a->facts.len > scope->nfacts || a->known.len > scope->nknown) {
    pop_facts(a, scope->nfacts, scope->nknown);
    psgi_arith_cache_clear(a);
  }
}

int psgi_arith_compare_relation(psg_arith_analyzer *a, const psg_tir_expr *k, const psg_tir_expr *c) {
  if (k->kind < PSG_TIR_EQ || k->kind > PSG_TIR_GE || c->kind < PSG_TIR_EQ || c->kind > PSG_TIR_GE) return -1;
  psg_tir_expr *ka = k->kids[0], *kb = k->kids[1], *ca = c->kids[0], *cb = c->kids[1];
  bool same = psgi_arith_equal(a, ka, ca) && psgi_arith_equal(a, kb, cb);
  bool swapped = psgi_arith_equal(a, ka, cb) && psgi_arith_equal(a, kb, ca);
  int kk = k->kind, ck = c->kind;
  if (kk == PSG_TIR_EQ || kk == PSG_TIR_NE) {
    if (!(same || swapped)) return -1;
    if (ck == kk) return 1;
    if (ck == (kk == PSG_TIR_EQ ? PSG_TIR_NE : PSG_TIR_EQ)) return 0;
    return -1;
  }
  /* k: ka < kb or ka <= kb (GT/GE read swapped). */
  if (kk == PSG_TIR_GT || kk == PSG_TIR_GE) {
    bool t = same;
    same = swapped;
    swapped = t;
    kk = kk == PSG_TIR_GT ? PSG_TIR_LT : PSG_TIR_LE;
  }
  if (ck == PSG_TIR_GT || ck == PSG_TIR_GE) {
    bool t = same;
    same = swapped;
    swapped = t;
    ck = ck == PSG_TIR_GT ? PSG_TIR_LT : PSG_TIR_LE;
  }
  if (ck != PSG_TIR_LT && ck != PSG_TIR_LE) return -1;
  if (same && ck == kk) return 1;
  if (same && kk == PSG_TIR_LT && ck == PSG_TIR_LE) return 1; /* a < b gives a <= b */
  if (swapped && ck != kk) return 0; /* a < b vs b <= a; a <= b vs b < a */
  if (swapped && kk == PSG_TIR_LT && ck == PSG_TIR_LT) return 0;
  return -1;
}

int psgi_arith_known(psg_arith_analyzer *a, psg_tir_expr *cond) {
  for (size_t i = a->known.len; i-- > 0;) {
    psg_tir_expr *k = a->known.data[i];
    if (psgi_arith_equal(a, k, cond)) return 1;
    if (cond->kind == PSG_TIR_NOT && psgi_arith_equal(a, k, cond->kids[0])) return 0;
    if (k->kind == PSG_TIR_NOT && psgi_arith_equal(a, k->kids[0], cond)) return 0;
    int r = psgi_arith_compare_relation(a, k, cond);
    if (r >= 0) return r;
    /* not (x == y) known: x != y is true, x == y false. */
    if (k->kind == PSG_TIR_NOT && (r = psgi_arith_compare_relation(a, k->kids[0], cond)) >= 0) {
      if (r == 1) return 0;
      if (r == 0) return 1;
    }
  }
  return -1;
}

psg_status psg_arith_const_int_bound(psg_arith_analyzer *a, psg_tir_expr *e, psg_arith_bound *out) {
  psgi_arith_info i;
  psgi_arith_cache_trim(a);
  psg_status st = psgi_arith_info_of(a, e, &i);
  *out = st ? psgi_arith_dtype_bound(0) : i.bound;
  return st;
}

psg_status psg_arith_modular_set(psg_arith_analyzer *a, psg_tir_expr *e, psg_arith_modset *out) {
  psgi_arith_info i;
  psgi_arith_cache_trim(a);
  psg_status st = psgi_arith_info_of(a, e, &i);
  out->coeff = st ? 1 : i.mod.coeff;
  out->base = st ? 0 : i.mod.base;
  return st;
}
