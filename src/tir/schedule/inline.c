/* Passage — compute_inline and reverse_compute_inline: a stage stored once
 * in a perfect nest over its index vars is folded into its consumers (or its
 * only consumer into it), and the nest and the buffer's allocation go. */
#include "tir/schedule/schedule_internal.h"

/* Whether the statements from path depth `from` down to the store are all
 * For, and the store's indices are exactly their vars (each once). */
static bool is_trivial_nest(const psgi_sch_path *p, size_t from, const psg_tir_node *store) {
  size_t nloops = 0;
  for (size_t d = from; d + 1 < p->node.len; d++) {
    if (p->node.data[d]->kind != PSG_TIR_FOR) return false;
    nloops++;
  }
  size_t ni = psgi_tir_num_indices(store);
  if (ni != nloops) return false;
  psg_tir_node *const *idx = psgi_tir_indices(store);
  for (size_t i = 0; i < ni; i++) {
    bool found = false;
    for (size_t d = from; d + 1 < p->node.len; d++) found |= p->node.data[d]->kids[0] == idx[i];
    for (size_t j = 0; j < i; j++) found &= idx[j] != idx[i];
    if (!found) return false;
  }
  return true;
}

/* The rewrite: loads of `data` replaced by value[vars := load indices]
 * (when value is set), and the Allocate / DeclBuffer / AttrStmt of `data`
 * dropped. */
typedef struct inliner {
  const psg_tir_node *data;
  psg_tir_node *value;
  psg_tir_node *const *vars;
  size_t nvars;
  const psgi_map *on_path; /* set by rewrite() (psgi_sch_mark_paths) */
} inliner;

static psg_status inline_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  inliner *in = m->user;
  psg_tir_node *d = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &d);
  if (st || !in->value || n->kids[0]->kids[0] != in->data) {
    *out = d;
    return st;
  }
  st = psgi_tir_substitute_n(m->ctx, in->value, in->vars, psgi_tir_indices(d), in->nvars, out);
  psg_tir_release(d);
  return st;
}

static psg_status drop_scope(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  inliner *in = m->user;
  psg_tir_node *d = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &d);
  if (st) return st;
  size_t body = 0;
  bool drop = false;
  if (n->kind == PSG_TIR_ALLOCATE) drop = n->kids[0] == in->data, body = 2;
  else if (n->kind == PSG_TIR_DECL_BUFFER) drop = n->kids[0]->kids[0] == in->data, body = 1;
  else if (n->kind == PSG_TIR_ATTR_STMT) drop = n->nkids > 2 && n->kids[2] == in->data, body = 1;
  if (!drop) {
    *out = d;
    return PSG_OK;
  }
  *out = d->kids[body];
  psg_tir_retain(*out);
  psg_tir_release(d);
  return PSG_OK;
}

/* Is n a load of `data` or the Allocate / DeclBuffer / AttrStmt of it? */
static bool touches(const void *user, const psg_tir_node *n) {
  const inliner *in = user;
  switch (n->kind) {
  case PSG_TIR_BUFFER_LOAD: return n->kids[0]->kids[0] == in->data;
  case PSG_TIR_ALLOCATE: return n->kids[0] == in->data;
  case PSG_TIR_DECL_BUFFER: return n->kids[0]->kids[0] == in->data;
  case PSG_TIR_ATTR_STMT: return n->nkids > 2 && n->kids[2] == in->data;
  default: return false;
  }
}

/* The nodes of body on a path to a node the rewrite changes (touches(user,
 * node)), in `on_path`: the rewrite leaves every other subtree as it is, so
 * it skips them (one cheap walk instead of the memoizing mutator over the
 * whole function: a nest of n stages inlines in n walks). Shared with the
 * chain inliner (inline_chain.c), which marks the loads of many stages. */
psg_status psgi_sch_mark_paths(psg_ctx *ctx, const psg_tir_node *body,
                               bool (*touches)(const void *user, const psg_tir_node *n), const void *user,
                               psgi_map *on_path) {
  typedef struct {
    const psg_tir_node *n;
    uint32_t next;
  } fr;
  PSGI_VEC(fr) st = {0};
  psg_status rc = PSG_OK;
  if (!PSGI_VEC_PUSH(ctx, &st, ((fr){body, 0}))) return psgi_nomem(ctx);
  while (!rc && st.len) {
    fr *f = &st.data[st.len - 1];
    if (f->next == 0 && touches(user, f->n)) {
      /* the whole path from the root (a shared subtree is reached again
       * under each of its parents) */
      for (size_t i = st.len; i-- > 0;) {
        if (!psgi_map_put_ptr(on_path, st.data[i].n, NULL)) {
          rc = psgi_nomem(ctx);
          break;
        }
      }
    }
    if (f->next == f->n->nkids) {
      st.len--;
      continue;
    }
    const psg_tir_node *k = f->n->kids[f->next++];
    if (k->nkids && k->kind != PSG_TIR_BUFFER && !PSGI_VEC_PUSH(ctx, &st, ((fr){k, 0}))) rc = psgi_nomem(ctx);
  }
  PSGI_VEC_FREE(ctx, &st);
  return rc;
}

static psg_status skip_untouched(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  const psgi_map *on_path = ((const inliner *)m->user)->on_path;
  if (!psgi_map_get_ptr(on_path, n)) psg_tir_retain(*replacement = (psg_tir_node *)n);
  return PSG_OK;
}

static psg_status rewrite(psg_ctx *ctx, psg_tir_node *body, inliner *in, psg_tir_node **out) {
  psgi_map on_path;
  psgi_map_init(&on_path, ctx);
  psg_status st = psgi_sch_mark_paths(ctx, body, touches, in, &on_path);
  if (st) {
    psgi_map_fini(&on_path);
    return st;
  }
  in->on_path = &on_path;
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = in;
  m.pre = skip_untouched;
  m.visit[PSG_TIR_BUFFER_LOAD] = inline_load;
  m.visit[PSG_TIR_ALLOCATE] = drop_scope;
  m.visit[PSG_TIR_DECL_BUFFER] = drop_scope;
  m.visit[PSG_TIR_ATTR_STMT] = drop_scope;
  st = psg_tir_mutate(&m, body, out);
  psg_tir_mutator_fini(&m);
  psgi_map_fini(&on_path);
  in->on_path = NULL;
  return st;
}

/* Common checks of an inlined stage: one store, allocated, a trivial nest. */
static psg_status check_single(psg_tir_schedule *s, const psgi_sch_stage *st, const char *prim, const char *role) {
  psg_ctx *ctx = s->ctx;
  if (st->stores.len != 1)
    return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "%s block '%s' has %zu stores (a reduction or a "
                          "multi-part stage); only a block stored once inlines", role, st->name, st->stores.len);
  if (psgi_sch_is_param_data(s->func, st->data))
    return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "%s block '%s' writes a function parameter (an "
                          "output); only an allocated buffer can be inlined away", role, st->name);
  return PSG_OK;
}

psg_status psgi_sch_inline_check(psg_tir_schedule *s, psg_tir_node *body, const char *block, psgi_sch_stage *st) {
  psg_ctx *ctx = s->ctx;
  const char *prim = "compute_inline";
  psgi_sch_reads reads = {0};
  psg_status rc = psgi_sch_stage_find(ctx, body, block, prim, st);
  if (rc) return rc;
  if ((rc = check_single(s, st, prim, "the"))) goto done;
  psg_tir_node *store = st->stores.data[0];
  if (!is_trivial_nest(&st->last, st->root, store)) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' is not B[v0, ..., vn] = e in a perfect nest "
                        "over exactly its index vars", st->name);
    goto done;
  }
  psg_tir_node *value = store->kids[1];
  psgi_sch_counts c;
  if ((rc = psgi_sch_count(ctx, value, st->data, &c))) goto done;
  if (c.loads_of) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' reads its own buffer", st->name);
    goto done;
  }
  if ((rc = psgi_sch_reads_of(ctx, value, st->data, &reads))) goto done;
  const psg_tir_node *bad = NULL;
  /* the nest holds the stage's only store: it occurs once in the walk */
  if ((rc = psgi_sch_written_after_path(ctx, &st->last, st->root, reads.datas.data, reads.datas.len, &bad)))
    goto done;
  if (bad)
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "buffer '%s', which block '%s' reads, is written after "
                        "it: inlining would read the later values", bad->kids[0]->u.buf.name, st->name);
done:
  psgi_sch_reads_fini(ctx, &reads);
  if (rc) psgi_sch_stage_fini(ctx, st);
  return rc;
}

psg_status psg_tir_schedule_compute_inline(psg_tir_schedule *s, const char *block) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  psgi_sch_stage st;
  psg_tir_node *removed = NULL, *out = NULL;
  psg_status rc = psgi_sch_inline_check(s, s->func->kids[0], block, &st);
  if (rc) return rc;
  psg_tir_node *store = st.stores.data[0];
  if ((rc = psgi_sch_remove(ctx, &st.last, st.root, &removed))) goto done;
  inliner in = {st.data, store->kids[1], psgi_tir_indices(store), psgi_tir_num_indices(store), NULL};
  if ((rc = rewrite(ctx, removed, &in, &out))) goto done;
  rc = psgi_sch_commit(s, out, "compute_inline");
done:
  psg_tir_release(removed);
  psg_tir_release(out);
  psgi_sch_stage_fini(ctx, &st);
  return rc;
}

/* The loads of `data` in an expression, for reverse_compute_inline. */
typedef struct load_list {
  psg_ctx *ctx;
  const psg_tir_node *data;
  PSGI_VEC(const psg_tir_node *) loads;
  bool nomem;
} load_list;

static int load_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  load_list *l = v->user;
  if (n->kind == PSG_TIR_BUFFER_LOAD && n->kids[0]->kids[0] == l->data && !PSGI_VEC_PUSH(l->ctx, &l->loads, n))
    l->nomem = true;
  return PSG_VISIT_CONTINUE;
}

psg_status psg_tir_schedule_reverse_compute_inline(psg_tir_schedule *s, const char *block) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  const char *prim = "reverse_compute_inline";
  psgi_sch_stage c, p;
  memset(&p, 0, sizeof p);
  psg_tir_node *body = s->func->kids[0], *g1 = NULL, *g2 = NULL, *nstore = NULL, *b1 = NULL, *b2 = NULL, *b3 = NULL;
  psg_tir_node *nidx[16] = {0};
  psgi_sch_reads reads = {0};
  load_list ll = {.ctx = ctx};
  psgi_sch_path path = {0};
  psg_status rc = psgi_sch_stage_find(ctx, body, block, prim, &c);
  if (rc) return rc;
  if (c.stores.len != 1) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' has %zu stores (a reduction or a multi-part "
                        "stage); only a block stored once inlines", c.name, c.stores.len);
    goto done;
  }
  psg_tir_node *cstore = c.stores.data[0], *g = cstore->kids[1];
  size_t nloops = 0;
  for (size_t d = c.root; d + 1 < c.last.node.len; d++, nloops++)
    if (c.last.node.data[d]->kind != PSG_TIR_FOR) {
      rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' is not in a perfect loop nest", c.name);
      goto done;
    }
  psgi_sch_counts cnt;
  if ((rc = psgi_sch_count(ctx, g, c.data, &cnt))) goto done;
  if (cnt.loads_of) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' reads its own buffer", c.name);
    goto done;
  }
  if ((rc = psgi_sch_reads_of(ctx, g, c.data, &reads))) goto done;
  size_t nprod = 0, which = 0;
  for (size_t i = 0; i < reads.datas.len; i++) {
    if ((rc = psgi_sch_count(ctx, body, reads.datas.data[i], &cnt))) goto done;
    if (cnt.stores_to) nprod++, which = i;
  }
  if (nprod != 1) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' reads %zu buffers that the function computes; "
                        "it must have exactly one producer", c.name, nprod);
    goto done;
  }
  if ((rc = psgi_sch_stage_find(ctx, body, reads.bufs.data[which]->u.buf.name, prim, &p))) goto done;
  if (p.data != reads.datas.data[which]) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "the producer of block '%s' is ambiguous", c.name);
    goto done;
  }
  if ((rc = check_single(s, &p, prim, "the producer"))) goto done;
  psg_tir_node *pstore = p.stores.data[0], *e = pstore->kids[1];
  psgi_sch_counts all, under;
  if ((rc = psgi_sch_count(ctx, body, p.data, &all)) ||
      (rc = psgi_sch_count(ctx, c.last.node.data[c.root], p.data, &under)))
    goto done;
  if (all.loads_of != under.loads_of) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "producer '%s' is read outside block '%s'", p.name, c.name);
    goto done;
  }
  if ((rc = psgi_sch_count(ctx, e, c.data, &cnt))) goto done;
  if (cnt.loads_of) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "producer '%s' reads block '%s'", p.name, c.name);
    goto done;
  }
  /* Every load of the producer is at the consumer's loop vars, one each, over
   * the whole producer buffer. */
  ll.data = p.data;
  psg_tir_visitor lv = {.pre = load_pre, .user = &ll};
  if ((rc = psg_tir_visit(ctx, &lv, g))) goto done;
  if (ll.nomem) {
    rc = PSG_ERR_NOMEM;
    goto done;
  }
  psg_tir_node *const *idx0 = psgi_tir_indices(ll.loads.data[0]);
  size_t nidx0 = psgi_tir_num_indices(ll.loads.data[0]);
  bool ok = nidx0 == nloops && nloops <= 16 && psgi_tir_num_indices(pstore) == nidx0;
  psg_arith_analyzer *a = NULL;
  if (ok && (rc = psg_arith_analyzer_create(ctx, &a))) goto done;
  for (size_t k = 0; ok && k < nidx0; k++) {
    psg_tir_node *loop = NULL;
    for (size_t d = c.root; d + 1 < c.last.node.len; d++)
      if (c.last.node.data[d]->kids[0] == idx0[k]) loop = c.last.node.data[d];
    for (size_t j = 0; j < k; j++) ok &= idx0[j] != idx0[k];
    ok &= loop && loop->kids[1]->kind == PSG_TIR_INT_IMM && loop->kids[1]->u.int_value == 0 &&
          psg_arith_can_prove_equal(a, loop->kids[2], p.buffer->kids[2 + k]);
  }
  psg_arith_analyzer_destroy(a);
  for (size_t i = 1; ok && i < ll.loads.len; i++)
    for (size_t k = 0; k < nidx0; k++) ok &= psgi_tir_indices(ll.loads.data[i])[k] == idx0[k];
  if (!ok) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' must read its producer '%s' at exactly its "
                        "loop vars, one per loop, over the producer's whole shape", c.name, p.name);
    goto done;
  }
  /* Nothing else the consumer reads may change between the two nests. */
  reads.datas.data[which] = reads.datas.data[--reads.datas.len];
  const psg_tir_node *bad = NULL;
  if ((rc = psgi_sch_written_after(ctx, body, p.last.node.data[p.root], reads.datas.data, reads.datas.len, &bad)))
    goto done;
  if (bad) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "buffer '%s', which block '%s' reads, is written after "
                        "producer '%s'", bad->kids[0]->u.buf.name, c.name, p.name);
    goto done;
  }
  /* C[f(v := pidx)] = g(B[v] := e, v := pidx) in place of the producer's store. */
  inliner in = {p.data, e, NULL, 0, NULL};
  if ((rc = rewrite(ctx, g, &in, &g1))) goto done;
  if ((rc = psgi_tir_substitute_n(ctx, g1, idx0, psgi_tir_indices(pstore), nidx0, &g2))) goto done;
  size_t nc = psgi_tir_num_indices(cstore);
  if (nc > 16) {
    rc = psgi_sch_error(ctx, PSG_ERR_UNSUPPORTED, prim, "more than 16 indices");
    goto done;
  }
  for (size_t k = 0; k < nc && !rc; k++)
    rc = psgi_tir_substitute_n(ctx, psgi_tir_indices(cstore)[k], idx0, psgi_tir_indices(pstore), nidx0, &nidx[k]);
  if (!rc) rc = psg_tir_buffer_store_create(ctx, cstore->kids[0], g2, nidx, nc, NULL, &pstore->span, &nstore);
  if (!rc) rc = psgi_sch_replace(ctx, &p.last, p.last.node.len - 1, nstore, &b1);
  bool found = false;
  if (!rc) rc = psgi_sch_find_node(ctx, b1, c.last.node.data[c.root], &path, &found);
  if (!rc && !found) rc = psgi_sch_error(ctx, PSG_ERR_INTERNAL, prim, "the consumer nest is gone");
  if (!rc) rc = psgi_sch_remove(ctx, &path, path.node.len - 1, &b2);
  inliner drop = {p.data, NULL, NULL, 0, NULL};
  if (!rc) rc = rewrite(ctx, b2, &drop, &b3);
  if (!rc) rc = psgi_sch_commit(s, b3, prim);
done:
  for (size_t k = 0; k < 16; k++) psg_tir_release(nidx[k]);
  psg_tir_release(g1);
  psg_tir_release(g2);
  psg_tir_release(nstore);
  psg_tir_release(b1);
  psg_tir_release(b2);
  psg_tir_release(b3);
  PSGI_VEC_FREE(ctx, &ll.loads);
  psgi_sch_reads_fini(ctx, &reads);
  psgi_sch_path_fini(ctx, &path);
  psgi_sch_stage_fini(ctx, &c);
  psgi_sch_stage_fini(ctx, &p);
  return rc;
}
