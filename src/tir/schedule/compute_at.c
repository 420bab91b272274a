/* Passage — compute_at: the nest of a producer stage moves under a loop of
 * its consumer and computes only the region read there (region.c). */
#include "tir/schedule/schedule_internal.h"
#include <stdio.h>

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
  psg_tir_node *body = s->func->kids[0], *vars[8] = {0}, *shifted[8] = {0}, *extents[8] = {0}, *los[8] = {0};
  bool drop[8] = {0};
  psg_tir_node *nest = NULL, *b1 = NULL, *inner = NULL, *nl = NULL, *b2 = NULL;
  psg_arith_analyzer *a = NULL;
  psg_status rc = psgi_sch_stage_find(ctx, body, block, prim, &p);
  if (rc) return rc;
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
  char what[300];
  snprintf(what, sizeof what, "'%s' read under loop '%s'", p.name, loop->u.var.name);
  if ((rc = psgi_sch_region(ctx, target->kids[3], p.data, ndim, false, lpath.node.data, lpath.node.len, prim, what,
                            los, extents)))
    goto done;
  if ((rc = psg_arith_analyzer_create(ctx, &a))) goto done;
  for (size_t k = 0; k < lpath.node.len && !rc; k++) {
    psg_tir_node *f = lpath.node.data[k];
    if (f->kind == PSG_TIR_FOR) rc = psg_arith_bind(a, f->kids[0], f->kids[1], f->kids[2]);
  }
  for (size_t k = 0; k < ndim && !rc; k++) {
    psg_tir_node *add = NULL;
    drop[k] = !preserve_unit_loops && extents[k]->kind == PSG_TIR_INT_IMM && extents[k]->u.int_value == 1;
    if (drop[k]) {
      shifted[k] = los[k];
      psg_tir_retain(los[k]);
      continue;
    }
    rc = psgi_sch_bin(ctx, PSG_TIR_ADD, vars[k], los[k], &add);
    if (!rc) rc = psg_arith_simplify(a, add, &shifted[k]);
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
    psg_tir_release(los[k]);
  }
  psg_arith_analyzer_destroy(a);
  psg_tir_release(nest);
  psg_tir_release(b1);
  psg_tir_release(inner);
  psg_tir_release(nl);
  psg_tir_release(b2);
  psgi_sch_path_fini(ctx, &lpath);
  psgi_sch_path_fini(ctx, &tmp);
  psgi_sch_stage_fini(ctx, &p);
  return rc;
}
