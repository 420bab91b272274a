/* Passage — the region of a buffer that statements read or write, for
 * compute_at and cache_write: the union over the accesses of each index's
 * interval, with the loops inside the statements relaxed to their ranges
 * (TVM's EvalSet over the inner loops), simplified by the arith analyzer with
 * the loops around them bound. Affine indices (+, -, * and floordiv by
 * constants, floormod, min, max) are bounded; anything else is refused. */
#include "tir/schedule/schedule_internal.h"

/* Intervals -------------------------------------------------------------------
 * [lo, hi] of an expression in terms of the vars that are not relaxed; `dep`
 * tells it depends on a relaxed var (else it is the point [e, e]). */
typedef struct interval {
  psg_tir_node *lo, *hi;
  bool dep, unknown;
} interval;

typedef struct region_eval {
  psg_ctx *ctx;
  psgi_map iv;                    /* node -> interval* */
  PSGI_VEC(psg_tir_node *) relax; /* relaxed vars */
  PSGI_VEC(interval *) relax_iv;  /* their ranges */
  PSGI_VEC(interval *) all;       /* every interval made, to free */
  psg_status st;
} region_eval;

static interval *new_iv(region_eval *r) {
  interval *iv = psgi_calloc(r->ctx, sizeof *iv);
  if (!iv || !PSGI_VEC_PUSH(r->ctx, &r->all, iv)) {
    psgi_free(r->ctx, iv);
    r->st = PSG_ERR_NOMEM;
    return NULL;
  }
  return iv;
}

static interval *get_iv(region_eval *r, const psg_tir_node *n) {
  psgi_map_entry *e = psgi_map_get_ptr(&r->iv, n);
  return e ? e->value : NULL;
}

static void set_range(interval *iv, psg_tir_node *lo, psg_tir_node *hi) {
  iv->lo = lo;
  iv->hi = hi;
  iv->dep = true;
}

static bool const_of(const interval *iv, const psg_tir_node *n, int64_t *c) {
  if (iv->dep || n->kind != PSG_TIR_INT_IMM) return false;
  *c = n->u.int_value;
  return true;
}

static psg_status region_post(psg_tir_visitor *v, const psg_tir_node *n) {
  region_eval *r = v->user;
  interval *iv = new_iv(r);
  if (!iv) return r->st;
  psgi_map_entry *me = psgi_map_put_ptr(&r->iv, n, NULL);
  if (!me) return r->st = PSG_ERR_NOMEM;
  me->value = iv;
  for (size_t i = 0; i < r->relax.len; i++)
    if (r->relax.data[i] == n) {
      interval *src = r->relax_iv.data[i];
      psg_tir_retain(src->lo);
      psg_tir_retain(src->hi);
      set_range(iv, src->lo, src->hi);
      iv->unknown = src->unknown;
      return PSG_OK;
    }
  bool dep = false, unknown = false;
  for (uint32_t k = 0; k < n->nkids; k++) {
    interval *c = get_iv(r, n->kids[k]);
    if (c) dep |= c->dep, unknown |= c->unknown;
  }
  if (!dep) {
    psg_tir_retain((psg_tir_node *)n);
    psg_tir_retain((psg_tir_node *)n);
    iv->lo = iv->hi = (psg_tir_node *)n;
    return PSG_OK;
  }
  iv->dep = true;
  if (unknown) {
    iv->unknown = true;
    return PSG_OK;
  }
  interval *a = n->nkids > 0 ? get_iv(r, n->kids[0]) : NULL, *b = n->nkids > 1 ? get_iv(r, n->kids[1]) : NULL;
  psg_ctx *ctx = r->ctx;
  psg_status st = PSG_OK;
  int64_t c;
  switch (n->kind) {
  case PSG_TIR_ADD:
    st = psgi_sch_bin(ctx, PSG_TIR_ADD, a->lo, b->lo, &iv->lo);
    if (!st) st = psgi_sch_bin(ctx, PSG_TIR_ADD, a->hi, b->hi, &iv->hi);
    break;
  case PSG_TIR_SUB:
    st = psgi_sch_bin(ctx, PSG_TIR_SUB, a->lo, b->hi, &iv->lo);
    if (!st) st = psgi_sch_bin(ctx, PSG_TIR_SUB, a->hi, b->lo, &iv->hi);
    break;
  case PSG_TIR_MUL: {
    interval *x = a, *k = b;
    if (!const_of(b, n->kids[1], &c)) x = b, k = a;
    if (!const_of(k, k == a ? n->kids[0] : n->kids[1], &c)) {
      iv->unknown = true;
      break;
    }
    psg_tir_node *kn = k == a ? n->kids[0] : n->kids[1];
    st = psgi_sch_bin(ctx, PSG_TIR_MUL, c >= 0 ? x->lo : x->hi, kn, &iv->lo);
    if (!st) st = psgi_sch_bin(ctx, PSG_TIR_MUL, c >= 0 ? x->hi : x->lo, kn, &iv->hi);
    break;
  }
  case PSG_TIR_FLOOR_DIV:
    if (!const_of(b, n->kids[1], &c) || c <= 0) {
      iv->unknown = true;
      break;
    }
    st = psgi_sch_bin(ctx, PSG_TIR_FLOOR_DIV, a->lo, n->kids[1], &iv->lo);
    if (!st) st = psgi_sch_bin(ctx, PSG_TIR_FLOOR_DIV, a->hi, n->kids[1], &iv->hi);
    break;
  case PSG_TIR_FLOOR_MOD:
    if (!const_of(b, n->kids[1], &c) || c <= 0) {
      iv->unknown = true;
      break;
    }
    st = psgi_sch_int(ctx, psg_tir_dtype_of(n), 0, &iv->lo);
    if (!st) st = psgi_sch_int(ctx, psg_tir_dtype_of(n), c - 1, &iv->hi);
    break;
  case PSG_TIR_MIN:
  case PSG_TIR_MAX:
    st = psgi_sch_bin(ctx, n->kind, a->lo, b->lo, &iv->lo);
    if (!st) st = psgi_sch_bin(ctx, n->kind, a->hi, b->hi, &iv->hi);
    break;
  default: iv->unknown = true; break;
  }
  return r->st = st;
}

static void region_fini(region_eval *r) {
  for (size_t i = 0; i < r->all.len; i++) {
    psg_tir_release(r->all.data[i]->lo);
    psg_tir_release(r->all.data[i]->hi);
    psgi_free(r->ctx, r->all.data[i]);
  }
  PSGI_VEC_FREE(r->ctx, &r->all);
  PSGI_VEC_FREE(r->ctx, &r->relax);
  PSGI_VEC_FREE(r->ctx, &r->relax_iv);
  psgi_map_fini(&r->iv);
}

/* The interval of e under the relaxed vars of r (a fresh memo each time:
 * the relaxed set changes from one statement to the next). */
static psg_status eval_interval(region_eval *r, const psg_tir_node *e, interval **out) {
  psgi_map_fini(&r->iv);
  psgi_map_init(&r->iv, r->ctx);
  psg_tir_visitor v = {.post = region_post, .user = r};
  psg_status st = psg_tir_visit(r->ctx, &v, e);
  if (!st) st = r->st;
  *out = st ? NULL : get_iv(r, e);
  return st;
}

/* The union of the regions of `data` read under the target loop. */
typedef struct demand {
  region_eval r;
  /* The loops whose ranges are r.relax_iv (one each, outermost first), and
   * the path of the statement at hand: its relaxed vars are made when it
   * has an access (relax_for), reusing the ranges of the loops it shares
   * with the last statement that had one. */
  PSGI_VEC(const psg_tir_node *) relax_loops;
  const psgi_sch_path *path;
  bool relax_ready;
  const psg_tir_node *data;
  size_t ndim;
  psg_tir_node *lo[8], *hi[8];
  size_t nreads;
  bool writes; /* the stores of data, not its loads */
  bool unknown, vector;
  psg_status st;
} demand;

static psg_status widen(demand *d, size_t k, interval *iv) {
  if (!d->lo[k]) {
    d->lo[k] = iv->lo;
    d->hi[k] = iv->hi;
    psg_tir_retain(iv->lo);
    psg_tir_retain(iv->hi);
    return PSG_OK;
  }
  psg_tir_node *lo = NULL, *hi = NULL;
  psg_status st = psgi_sch_bin(d->r.ctx, PSG_TIR_MIN, d->lo[k], iv->lo, &lo);
  if (!st) st = psgi_sch_bin(d->r.ctx, PSG_TIR_MAX, d->hi[k], iv->hi, &hi);
  psg_tir_release(d->lo[k]);
  psg_tir_release(d->hi[k]);
  d->lo[k] = lo;
  d->hi[k] = hi;
  return st;
}

static psg_status relax_for(demand *d);

/* Loads of data in the expression operands of one statement. */
static void access(demand *d, const psg_tir_node *n) {
  if (!d->st) d->st = relax_for(d);
  if (d->st) return;
  d->nreads++;
  size_t ni = psgi_tir_num_indices(n);
  for (size_t k = 0; k < ni && k < d->ndim && !d->st; k++) {
    interval *iv = NULL;
    psg_tir_node *ix = psgi_tir_indices(n)[k];
    if (psg_tir_dtype_lanes(psg_tir_dtype_of(ix)) != 1) {
      d->vector = true;
      continue;
    }
    d->st = eval_interval(&d->r, ix, &iv);
    if (d->st) break;
    if (iv->unknown) d->unknown = true;
    else d->st = widen(d, k, iv);
  }
}

static int load_collect_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  demand *d = v->user;
  if (psgi_tir_is_stmt_kind(n->kind)) return PSG_VISIT_SKIP_CHILDREN;
  if (n->kind == PSG_TIR_BUFFER_LOAD && n->kids[0]->kids[0] == d->data && !d->st) access(d, n);
  return PSG_VISIT_CONTINUE;
}

/* A constant loop (the usual case): its min and extent are IntImms small
 * enough that nothing wraps, so the general path below gives [min, the
 * IntImm min + extent - 1] (the interval of a constant is itself; the sum
 * folds to a constant). Made directly: no memo, no fold. */
static bool small_imm(const psg_tir_node *e) {
  return e->kind == PSG_TIR_INT_IMM && e->u.int_value >= 0 && e->u.int_value <= ((int64_t)1 << 30);
}

/* The range of loop f, in terms of the loops outside it (r.relax); the
 * general path unless `fast` and the loop is constant. */
static psg_status loop_range_by(demand *d, const psg_tir_node *f, bool fast, interval **out) {
  interval *lo = NULL, *hi = NULL, *range = new_iv(&d->r);
  if (!range) return d->r.st;
  psg_tir_dtype dt = psg_tir_dtype_of(f->kids[0]);
  if (fast && small_imm(f->kids[1]) && small_imm(f->kids[2]) && f->kids[2]->u.int_value > 0 &&
      (dt == psg_tir_dtype_int32() || dt == psg_tir_dtype_int64())) {
    psg_tir_retain(f->kids[1]);
    range->lo = f->kids[1];
    range->dep = true;
    psg_status st = psgi_sch_int(d->r.ctx, dt, f->kids[1]->u.int_value + f->kids[2]->u.int_value - 1, &range->hi);
    range->unknown = !range->hi;
    *out = range;
    return st;
  }
  psg_tir_node *last = NULL, *one = NULL, *lastm = NULL;
  psg_status st = eval_interval(&d->r, f->kids[1], &lo);
  if (!st && !lo->unknown) {
    psg_tir_retain(lo->lo);
    range->lo = lo->lo;
  }
  if (!st) st = psgi_sch_int(d->r.ctx, psg_tir_dtype_of(f->kids[0]), 1, &one);
  if (!st) st = psgi_sch_bin(d->r.ctx, PSG_TIR_ADD, f->kids[1], f->kids[2], &last);
  if (!st) st = psgi_sch_bin(d->r.ctx, PSG_TIR_SUB, last, one, &lastm);
  if (!st) st = eval_interval(&d->r, lastm, &hi);
  if (!st && !hi->unknown) {
    psg_tir_retain(hi->hi);
    range->hi = hi->hi;
  }
  psg_tir_release(last);
  psg_tir_release(lastm);
  psg_tir_release(one);
  range->dep = true;
  range->unknown = !range->lo || !range->hi;
  *out = range;
  return st;
}

static psg_status loop_range(demand *d, const psg_tir_node *f, interval **out) {
  return loop_range_by(d, f, true, out);
}

psg_status psgi_sch_loop_range(psg_ctx *ctx, const psg_tir_node *f, bool fast, psg_tir_node **lo, psg_tir_node **hi,
                               bool *unknown) {
  demand d;
  memset(&d, 0, sizeof d);
  d.r.ctx = ctx;
  psgi_map_init(&d.r.iv, ctx);
  interval *iv = NULL;
  psg_status st = loop_range_by(&d, f, fast, &iv);
  *lo = *hi = NULL;
  *unknown = true;
  if (!st && iv) {
    psg_tir_retain(*lo = iv->lo);
    psg_tir_retain(*hi = iv->hi);
    *unknown = iv->unknown;
  }
  region_fini(&d.r);
  return st;
}

/* The relaxed vars of the statement at hand: the loops on its path, outside
 * it. A loop's range depends on the loops outside it only, so those of the
 * loops the path shares (from the root) with the last one are kept. */
static psg_status relax_for(demand *d) {
  if (d->relax_ready) return PSG_OK;
  const psgi_sch_path *path = d->path;
  size_t nf = 0;
  psg_status st = PSG_OK;
  for (size_t k = 0; k + 1 < path->node.len && !st; k++) {
    psg_tir_node *f = path->node.data[k];
    if (f->kind != PSG_TIR_FOR) continue;
    if (nf < d->relax_loops.len && d->relax_loops.data[nf] == f) {
      nf++;
      continue;
    }
    d->r.relax.len = d->r.relax_iv.len = d->relax_loops.len = nf;
    interval *range = NULL;
    if ((st = loop_range(d, f, &range))) break;
    if (!PSGI_VEC_PUSH(d->r.ctx, &d->r.relax, f->kids[0]) || !PSGI_VEC_PUSH(d->r.ctx, &d->r.relax_iv, range) ||
        !PSGI_VEC_PUSH(d->r.ctx, &d->relax_loops, f))
      st = PSG_ERR_NOMEM;
    nf++;
  }
  if (st) return st;
  d->r.relax.len = d->r.relax_iv.len = d->relax_loops.len = nf;
  d->relax_ready = true;
  return PSG_OK;
}

static int demand_visit(const psgi_sch_path *path, void *user) {
  demand *d = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  d->path = path;
  d->relax_ready = false;
  if (d->st) return PSG_VISIT_ABORT;
  if (d->writes) {
    if (n->kind == PSG_TIR_BUFFER_STORE && n->kids[0]->kids[0] == d->data) access(d, n);
    return d->st ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
  }
  psg_tir_visitor v = {.pre = load_collect_pre, .user = d};
  for (uint32_t k = 0; k < n->nkids && !d->st; k++)
    if (!psgi_tir_is_stmt_kind(n->kids[k]->kind) && n->kids[k]->kind != PSG_TIR_BUFFER) {
      psg_status st = psg_tir_visit(d->r.ctx, &v, n->kids[k]);
      if (st) d->st = st;
    }
  return d->st ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
}

psg_status psgi_sch_region(psg_ctx *ctx, psg_tir_node *under, const psg_tir_node *data, size_t ndim, bool writes,
                           psg_tir_node *const *outer, size_t nouter, const char *prim, const char *what,
                           psg_tir_node **lo, psg_tir_node **ext) {
  demand d;
  memset(&d, 0, sizeof d);
  d.r.ctx = ctx;
  psgi_map_init(&d.r.iv, ctx);
  d.data = data;
  d.ndim = ndim;
  d.writes = writes;
  psgi_sch_path tmp = {0};
  psg_arith_analyzer *a = NULL;
  psg_status rc = ndim > 8 ? psgi_sch_error(ctx, PSG_ERR_UNSUPPORTED, prim, "more than 8 dimensions") : PSG_OK;
  if (!rc) rc = psgi_sch_walk(ctx, under, demand_visit, &d, &tmp);
  if (!rc) rc = d.st;
  bool all_dims = true;
  for (size_t k = 0; k < ndim && k < 8; k++) all_dims &= d.lo[k] != NULL;
  if (!rc && (d.unknown || d.vector || !all_dims))
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "cannot bound the region of %s (an index that is not "
                        "affine in the inner loops, or a vector index)", what);
  if (!rc) rc = psg_arith_analyzer_create(ctx, &a);
  for (size_t k = 0; k < nouter && !rc; k++) {
    psg_tir_node *f = outer[k];
    if (f->kind == PSG_TIR_FOR) rc = psg_arith_bind(a, f->kids[0], f->kids[1], f->kids[2]);
  }
  for (size_t k = 0; k < ndim && !rc; k++) {
    psg_tir_node *span = NULL, *one = NULL, *e = NULL;
    rc = psg_arith_simplify(a, d.lo[k], &lo[k]);
    if (!rc) rc = psgi_sch_bin(ctx, PSG_TIR_SUB, d.hi[k], d.lo[k], &span);
    if (!rc) rc = psgi_sch_int(ctx, psg_tir_dtype_of(span), 1, &one);
    if (!rc) rc = psgi_sch_bin(ctx, PSG_TIR_ADD, span, one, &e);
    if (!rc) rc = psg_arith_simplify(a, e, &ext[k]);
    psg_tir_release(span);
    psg_tir_release(one);
    psg_tir_release(e);
  }
  psg_arith_analyzer_destroy(a);
  for (size_t k = 0; k < 8; k++) {
    psg_tir_release(d.lo[k]);
    psg_tir_release(d.hi[k]);
  }
  region_fini(&d.r);
  PSGI_VEC_FREE(ctx, &d.relax_loops);
  psgi_sch_path_fini(ctx, &tmp);
  return rc;
}
