/* Passage — compute_at: the nest of a producer stage moves under a loop of
 * its consumer and computes only the region read there. The region of each
 * buffer dimension is the union over the reads under the loop of the
 * index's interval, with the loops inside the target relaxed to their ranges
 * (TVM's EvalSet over the inner loops), simplified by the arith analyzer
 * with the loops around the target bound. */
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
  const psg_tir_node *data;
  size_t ndim;
  psg_tir_node *lo[8], *hi[8];
  size_t nreads;
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

/* Loads of data in the expression operands of one statement. */
static int load_collect_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  demand *d = v->user;
  if (psgi_tir_is_stmt_kind(n->kind)) return PSG_VISIT_SKIP_CHILDREN;
  if (n->kind != PSG_TIR_BUFFER_LOAD || n->kids[0]->kids[0] != d->data || d->st) return PSG_VISIT_CONTINUE;
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
  return PSG_VISIT_CONTINUE;
}

static int demand_visit(const psgi_sch_path *path, void *user) {
  demand *d = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  /* The relaxed vars: the loops on the path, outside this statement. */
  d->r.relax.len = d->r.relax_iv.len = 0;
  for (size_t k = 0; k + 1 < path->node.len && !d->st; k++) {
    psg_tir_node *f = path->node.data[k];
    if (f->kind != PSG_TIR_FOR) continue;
    interval *lo = NULL, *hi = NULL, *range = new_iv(&d->r);
    if (!range) return d->st = d->r.st, PSG_VISIT_ABORT;
    psg_tir_node *last = NULL, *one = NULL;
    d->st = eval_interval(&d->r, f->kids[1], &lo);
    if (!d->st && !lo->unknown) {
      psg_tir_retain(lo->lo);
      range->lo = lo->lo;
    }
    d->st = d->st ? d->st : psgi_sch_int(d->r.ctx, psg_tir_dtype_of(f->kids[0]), 1, &one);
    if (!d->st) d->st = psgi_sch_bin(d->r.ctx, PSG_TIR_ADD, f->kids[1], f->kids[2], &last);
    psg_tir_node *lastm = NULL;
    if (!d->st) d->st = psgi_sch_bin(d->r.ctx, PSG_TIR_SUB, last, one, &lastm);
    if (!d->st) d->st = eval_interval(&d->r, lastm, &hi);
    if (!d->st && !hi->unknown) {
      psg_tir_retain(hi->hi);
      range->hi = hi->hi;
    }
    psg_tir_release(last);
    psg_tir_release(lastm);
    psg_tir_release(one);
    range->dep = true;
    range->unknown = !range->lo || !range->hi;
    if (!d->st && (!PSGI_VEC_PUSH(d->r.ctx, &d->r.relax, f->kids[0]) || !PSGI_VEC_PUSH(d->r.ctx, &d->r.relax_iv, range)))
      d->st = PSG_ERR_NOMEM;
  }
  if (d->st) return PSG_VISIT_ABORT;
  psg_tir_visitor v = {.pre = load_collect_pre, .user = d};
  for (uint32_t k = 0; k < n->nkids && !d->st; k++)
    if (!psgi_tir_is_stmt_kind(n->kids[k]->kind) && n->kids[k]->kind != PSG_TIR_BUFFER) {
      psg_status st = psg_tir_visit(d->r.ctx, &v, n->kids[k]);
      if (st) d->st = st;
    }
  return d->st ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
}

/* compute_at ------------------------------------------------------------------- */
typedef struct mover {
  psg_tir_node *const *vars; /* the spatial loop vars, by dim */
  psg_tir_node **shifted;    /* var + lo */
  psg_tir_node **extents;
  const bool *drop; /* unit loops that go */
  size_t n;
} mover;

static psg_status move_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  mover *mv = m->user;
  for (size_t k = 0; k < mv->n; k++)
    if (n == mv->vars[k]) {
      *replacement = mv->shifted[k];
      psg_tir_retain(*replacement);
    }
  return PSG_OK;
}

static psg_status move_for(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  mover *mv = m->user;
  psg_tir_node *min = psg_tir_mutator_get_result(m, n->kids[1]), *ext = psg_tir_mutator_get_result(m, n->kids[2]);
  psg_tir_node *body = psg_tir_mutator_get_result(m, n->kids[3]);
  psg_tir_node *zero = NULL;
  for (size_t k = 0; k < mv->n; k++)
    if (n->kids[0] == mv->vars[k]) {
      if (mv->drop[k]) {
        psg_tir_retain(body);
        *out = body;
        return PSG_OK;
      }
      psg_status st = psgi_sch_int(m->ctx, psg_tir_dtype_of(n->kids[0]), 0, &zero);
      if (!st) st = psg_tir_for_create(m->ctx, n->kids[0], zero, mv->extents[k], n->u.loop.kind, body,
                                       n->u.loop.annotations, &n->span, out);
      psg_tir_release(zero);
      return st;
    }
  return psg_tir_for_create(m->ctx, n->kids[0], min, ext, n->u.loop.kind, body, n->u.loop.annotations, &n->span, out);
}

typedef struct order_walk {
  const psg_tir_node *a, *b;
  int first; /* 1: a first, 2: b first */
} order_walk;

static int order_visit(const psgi_sch_path *path, void *user) {
  order_walk *o = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  if (n == o->a || n == o->b) {
    o->first = n == o->a ? 1 : 2;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

psg_status psg_tir_schedule_compute_at(psg_tir_schedule *s, const char *block, psg_tir_expr *loop,
                                       bool preserve_unit_loops) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  const char *prim = "compute_at";
  psgi_sch_stage p;
  psgi_sch_path lpath = {0}, tmp = {0};
  demand d;
  memset(&d, 0, sizeof d);
  d.r.ctx = ctx;
  psgi_map_init(&d.r.iv, ctx);
  psg_tir_node *body = s->func->kids[0], *vars[8] = {0}, *shifted[8] = {0}, *extents[8] = {0};
  bool drop[8] = {0};
  psg_tir_node *nest = NULL, *b1 = NULL, *inner = NULL, *nl = NULL, *b2 = NULL;
  psg_arith_analyzer *a = NULL;
  psg_status rc = psgi_sch_stage_find(ctx, body, block, prim, &p);
  if (rc) {
    region_fini(&d.r);
    return rc;
  }
  if ((rc = psgi_sch_find_loop(ctx, body, loop, prim, &lpath))) goto done;
  psg_tir_node *root = p.last.node.data[p.root], *target = psgi_sch_path_last(&lpath);
  if (psgi_sch_is_param_data(s->func, p.data)) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' writes a function parameter (an output); "
                        "only an allocated buffer is computed at a consumer loop", p.name);
    goto done;
  }
  for (size_t k = 0; k < lpath.node.len; k++)
    if (lpath.node.data[k] == root) {
      rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "loop '%s' is inside block '%s' itself",
                          loop->u.var.name, p.name);
      goto done;
    }
  bool found = false;
  if ((rc = psgi_sch_find_node(ctx, target, root, &tmp, &found))) goto done;
  if (found) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' is already under loop '%s'", p.name,
                        loop->u.var.name);
    goto done;
  }
  order_walk ow = {root, target, 0};
  if ((rc = psgi_sch_walk(ctx, body, order_visit, &ow, &tmp))) goto done;
  if (ow.first != 1) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' comes after loop '%s'", p.name,
                        loop->u.var.name);
    goto done;
  }
  bool in_scope = false;
  for (size_t k = 0; k < lpath.node.len; k++) {
    psg_tir_node *n = lpath.node.data[k];
    in_scope |= (n->kind == PSG_TIR_ALLOCATE && n->kids[0] == p.data) ||
                (n->kind == PSG_TIR_DECL_BUFFER && n->kids[0]->kids[0] == p.data);
  }
  if (!in_scope) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "the allocation of '%s' does not enclose loop '%s'",
                        p.name, loop->u.var.name);
    goto done;
  }
  psgi_sch_counts all, under, own; /* its own nest may read it (a reduction) */
  if ((rc = psgi_sch_count(ctx, body, p.data, &all)) || (rc = psgi_sch_count(ctx, target, p.data, &under)) ||
      (rc = psgi_sch_count(ctx, root, p.data, &own)))
    goto done;
  if (!under.loads_of || all.loads_of != under.loads_of + own.loads_of) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' is read %s loop '%s'", p.name,
                        under.loads_of ? "outside" : "nowhere under", loop->u.var.name);
    goto done;
  }
  /* The producer: every store at the same distinct loop vars of its nest,
   * one per dimension, each loop from 0. */
  size_t ndim = psg_tir_buffer_ndim(p.buffer);
  psg_tir_node *s0 = p.stores.data[0];
  bool ok = ndim <= 8 && psgi_tir_num_indices(s0) == ndim;
  for (size_t i = 0; ok && i < p.stores.len; i++)
    for (size_t k = 0; k < ndim; k++) ok &= psgi_tir_indices(p.stores.data[i])[k] == psgi_tir_indices(s0)[k];
  for (size_t k = 0; ok && k < ndim; k++) {
    psg_tir_node *v = psgi_tir_indices(s0)[k], *f = NULL;
    for (size_t dd = p.root; dd < p.last.node.len; dd++)
      if (p.last.node.data[dd]->kind == PSG_TIR_FOR && p.last.node.data[dd]->kids[0] == v) f = p.last.node.data[dd];
    for (size_t j = 0; j < k; j++) ok &= vars[j] != v;
    ok &= f && f->kids[1]->kind == PSG_TIR_INT_IMM && f->kids[1]->u.int_value == 0;
    vars[k] = v;
  }
  if (!ok) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' must store at its own loop vars (from 0), "
                        "one per dimension, in every store", p.name);
    goto done;
  }
  /* What it reads must not change before the consumer runs. */
  {
    psgi_sch_reads rd = {0};
    const psg_tir_node *bad = NULL;
    rc = psgi_sch_reads_of(ctx, root, p.data, &rd);
    if (!rc) rc = psgi_sch_written_after(ctx, body, root, rd.datas.data, rd.datas.len, &bad);
    psgi_sch_reads_fini(ctx, &rd);
    if (!rc && bad)
      rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "buffer '%s', which block '%s' reads, is written "
                          "after it", bad->kids[0]->u.buf.name, p.name);
    if (rc) goto done;
  }
  /* The demanded region. */
  d.data = p.data;
  d.ndim = ndim;
  rc = psgi_sch_walk(ctx, target->kids[3], demand_visit, &d, &tmp);
  if (!rc) rc = d.st;
  if (rc) goto done;
  bool all_dims = true;
  for (size_t k = 0; k < ndim; k++) all_dims &= d.lo[k] != NULL;
  if (d.unknown || d.vector || !all_dims) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "cannot bound the region of '%s' read under loop '%s' "
                        "(an index that is not affine in the inner loops, or a vector index)", p.name,
                        loop->u.var.name);
    goto done;
  }
  if ((rc = psg_arith_analyzer_create(ctx, &a))) goto done;
  for (size_t k = 0; k < lpath.node.len && !rc; k++) {
    psg_tir_node *f = lpath.node.data[k];
    if (f->kind == PSG_TIR_FOR) rc = psg_arith_bind(a, f->kids[0], f->kids[1], f->kids[2]);
  }
  for (size_t k = 0; k < ndim && !rc; k++) {
    psg_tir_node *lo = NULL, *span = NULL, *one = NULL, *ext = NULL, *add = NULL;
    rc = psg_arith_simplify(a, d.lo[k], &lo);
    if (!rc) rc = psgi_sch_bin(ctx, PSG_TIR_SUB, d.hi[k], d.lo[k], &span);
    if (!rc) rc = psgi_sch_int(ctx, psg_tir_dtype_of(span), 1, &one);
    if (!rc) rc = psgi_sch_bin(ctx, PSG_TIR_ADD, span, one, &ext);
    if (!rc) rc = psg_arith_simplify(a, ext, &extents[k]);
    drop[k] = !rc && !preserve_unit_loops && extents[k]->kind == PSG_TIR_INT_IMM && extents[k]->u.int_value == 1;
    if (!rc && drop[k]) {
      shifted[k] = lo;
      lo = NULL;
    }
    if (!rc && !drop[k]) rc = psgi_sch_bin(ctx, PSG_TIR_ADD, vars[k], lo, &add);
    if (!rc && !drop[k]) rc = psg_arith_simplify(a, add, &shifted[k]);
    psg_tir_release(lo);
    psg_tir_release(span);
    psg_tir_release(one);
    psg_tir_release(ext);
    psg_tir_release(add);
  }
  if (rc) goto done;
  mover mv = {vars, shifted, extents, drop, ndim};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &mv;
  m.pre = move_pre;
  m.visit[PSG_TIR_FOR] = move_for;
  rc = psg_tir_mutate(&m, root, &nest);
  psg_tir_mutator_fini(&m);
  if (rc) goto done;
  /* Remove the nest, then put it first in the target loop's body. */
  if ((rc = psgi_sch_remove(ctx, &p.last, p.root, &b1))) goto done;
  if ((rc = psgi_sch_find_node(ctx, b1, target, &tmp, &found))) goto done;
  if (!found) {
    rc = psgi_sch_error(ctx, PSG_ERR_INTERNAL, prim, "the target loop is gone");
    goto done;
  }
  if ((rc = psgi_sch_seq2(ctx, nest, target->kids[3], &inner))) goto done;
  if ((rc = psg_tir_for_create(ctx, target->kids[0], target->kids[1], target->kids[2], target->u.loop.kind, inner,
                               target->u.loop.annotations, &target->span, &nl)))
    goto done;
  if ((rc = psgi_sch_replace(ctx, &tmp, tmp.node.len - 1, nl, &b2))) goto done;
  rc = psgi_sch_commit(s, b2, prim);
done:
  for (size_t k = 0; k < 8; k++) {
    psg_tir_release(shifted[k]);
    psg_tir_release(extents[k]);
    psg_tir_release(d.lo[k]);
    psg_tir_release(d.hi[k]);
  }
  psg_arith_analyzer_destroy(a);
  psg_tir_release(nest);
  psg_tir_release(b1);
  psg_tir_release(inner);
  psg_tir_release(nl);
  psg_tir_release(b2);
  region_fini(&d.r);
  psgi_sch_path_fini(ctx, &lpath);
  psgi_sch_path_fini(ctx, &tmp);
  psgi_sch_stage_fini(ctx, &p);
  return rc;
}
