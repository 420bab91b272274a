/* Passage — cache_write_at: the register tile of TVM's CPU schedules in one
 * step. What TVM gets from cache_write, then reverse_compute_at of the copy
 * block under a tile loop, then CompactBufferAllocation when it lowers: the
 * stage computes, under `loop`, into a new buffer "<name>_<scope>" shaped to
 * the region it writes in one iteration of `loop` (indices made relative to
 * that region's start), allocated inside `loop`, and a copy nest at the end
 * of `loop`'s body writes that region to the original buffer. A small
 * constant-size local buffer is what lets the C compiler keep the
 * accumulators in registers (docs/tir-schedule.md). */
#include "tir/schedule/schedule_internal.h"
#include <stdio.h>

/* Every load of `data` under the loop must sit in the value of a store to
 * `data` at the same indices (a read-modify-write such as C = C + a * b). */
typedef struct rmw_check {
  const psg_tir_node *data;
  size_t rmw_loads; /* loads of data found inside such stores */
  bool bad;         /* a store's value reads data at other indices */
  const psg_tir_node *store;
  psg_ctx *ctx;
} rmw_check;

static int rmw_load_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  rmw_check *r = v->user;
  if (n->kind != PSG_TIR_BUFFER_LOAD || n->kids[0]->kids[0] != r->data) return PSG_VISIT_CONTINUE;
  size_t ni = psgi_tir_num_indices(n);
  bool same = ni == psgi_tir_num_indices(r->store);
  for (size_t k = 0; same && k < ni; k++)
    same = psg_tir_structural_equal(psgi_tir_indices(n)[k], psgi_tir_indices(r->store)[k]);
  r->bad |= !same;
  r->rmw_loads++;
  return PSG_VISIT_CONTINUE;
}

static int rmw_visit(const psgi_sch_path *path, void *user) {
  rmw_check *r = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind != PSG_TIR_BUFFER_STORE || n->kids[0]->kids[0] != r->data) return PSG_VISIT_CONTINUE;
  r->store = n;
  psg_tir_visitor v = {.pre = rmw_load_pre, .user = r};
  return psg_tir_visit(r->ctx, &v, n->kids[1]) ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
}

/* How many times the stores to data under init run (the product of the
 * constant extents of the loops around each); -1 if an If or a non-constant
 * loop is on the way. */
typedef struct store_count {
  const psg_tir_node *data;
  int64_t n;
} store_count;

static int count_visit(const psgi_sch_path *path, void *user) {
  store_count *c = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  if (c->n < 0) return PSG_VISIT_ABORT;
  if (n->kind != PSG_TIR_BUFFER_STORE || n->kids[0]->kids[0] != c->data) return PSG_VISIT_CONTINUE;
  int64_t times = 1;
  for (size_t i = 0; i + 1 < path->node.len && times > 0; i++) {
    const psg_tir_node *p = path->node.data[i];
    if (p->kind == PSG_TIR_IF_THEN_ELSE || (p->kind == PSG_TIR_FOR && p->kids[2]->kind != PSG_TIR_INT_IMM)) times = -1;
    else if (p->kind == PSG_TIR_FOR) times *= p->kids[2]->u.int_value;
  }
  c->n = times < 0 ? -1 : c->n + times;
  return PSG_VISIT_CONTINUE;
}

typedef struct relocate {
  const psg_tir_node *data;
  psg_tir_node *to;
  psg_tir_node *const *lo;
  psg_arith_analyzer *a;
} relocate;

static psg_status relocate_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  relocate *r = m->user;
  psg_tir_node *d = NULL, *idx[8] = {0};
  psg_status st = psg_tir_mutator_default(m, n, &d);
  if (st || n->kids[0]->kids[0] != r->data) {
    *out = d;
    return st;
  }
  size_t ni = psgi_tir_num_indices(d);
  for (size_t k = 0; k < ni && !st; k++) {
    psg_tir_node *sub = NULL;
    st = psgi_sch_bin(m->ctx, PSG_TIR_SUB, psgi_tir_indices(d)[k], r->lo[k], &sub);
    if (!st) st = psg_arith_simplify(r->a, sub, &idx[k]);
    psg_tir_release(sub);
  }
  if (!st && n->kind == PSG_TIR_BUFFER_LOAD)
    st = psg_tir_buffer_load_create(m->ctx, r->to, idx, ni, psg_tir_get_predicate(d), &n->span, out);
  else if (!st)
    st = psg_tir_buffer_store_create(m->ctx, r->to, d->kids[1], idx, ni, psg_tir_get_predicate(d), &n->span, out);
  for (size_t k = 0; k < ni; k++) psg_tir_release(idx[k]);
  psg_tir_release(d);
  return st;
}

/* The statement under the loop body that first stores data (the init), and
 * whether what comes before it touches data. */
static psg_status find_init(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *data, psg_tir_node **init,
                            bool *touched_before) {
  *init = body;
  *touched_before = false;
  if (body->kind != PSG_TIR_SEQ_STMT) return PSG_OK;
  for (size_t i = 0; i < body->nkids; i++) {
    psgi_sch_counts c;
    psg_status st = psgi_sch_count(ctx, body->kids[i], data, &c);
    if (st) return st;
    if (c.stores_to) {
      *init = body->kids[i];
      return PSG_OK;
    }
    *touched_before |= c.loads_of > 0;
  }
  return PSG_OK;
}

psg_status psg_tir_schedule_cache_write_at(psg_tir_schedule *s, const char *block, psg_tir_expr *loop,
                                           const char *scope, const char **out) {
  if (!s || !loop) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  const char *prim = "cache_write_at";
  if (!scope || !*scope) return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "the storage scope is empty");
  psgi_sch_stage st;
  psgi_sch_path lpath = {0}, tmp = {0};
  psg_tir_node *lo[8] = {0}, *ext[8] = {0}, *vars[8] = {0}, *cidx[8] = {0}, *oidx[8] = {0};
  psg_tir_node *cache = NULL, *nbody = NULL, *copy = NULL, *seq = NULL, *alloc = NULL, *nl = NULL, *root = NULL;
  psg_arith_analyzer *a = NULL;
  psg_status rc = psgi_sch_stage_find(ctx, s->func->kids[0], block, prim, &st);
  if (rc) return rc;
  size_t ndim = psg_tir_buffer_ndim(st.buffer);
  if ((rc = psgi_sch_find_loop(ctx, s->func->kids[0], loop, prim, &lpath))) goto done;
  psg_tir_node *target = psgi_sch_path_last(&lpath), *body = target->kids[3];
  if (ndim > 8) {
    rc = psgi_sch_error(ctx, PSG_ERR_UNSUPPORTED, prim, "more than 8 dimensions");
    goto done;
  }
  /* every store of the stage runs under the loop */
  for (size_t i = 0; i < st.stores.len && !rc; i++) {
    bool found = false;
    rc = psgi_sch_find_node(ctx, body, st.stores.data[i], &tmp, &found);
    if (!rc && !found)
      rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' stores outside loop '%s'", st.name,
                          loop->u.var.name);
  }
  if (rc) goto done;
  /* reads under the loop: only read-modify-writes of the element stored */
  psgi_sch_counts all;
  rmw_check chk = {.data = st.data, .ctx = ctx};
  if ((rc = psgi_sch_count(ctx, body, st.data, &all))) goto done;
  if ((rc = psgi_sch_walk(ctx, body, rmw_visit, &chk, &tmp))) goto done;
  if (chk.bad || chk.rmw_loads != all.loads_of) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' is read under loop '%s' other than by the "
                        "store of the same element", st.name, loop->u.var.name);
    goto done;
  }
  /* the first nest that stores (the init) writes the whole region before
   * anything reads it, so the cache never holds an unwritten element */
  psg_tir_node *init = NULL;
  bool touched = false;
  if ((rc = find_init(ctx, body, st.data, &init, &touched))) goto done;
  psgi_sch_counts ic;
  if ((rc = psgi_sch_count(ctx, init, st.data, &ic))) goto done;
  char what[300];
  snprintf(what, sizeof what, "'%s' written under loop '%s'", st.name, loop->u.var.name);
  if ((rc = psgi_sch_region(ctx, body, st.data, ndim, true, lpath.node.data, lpath.node.len, prim, what, lo, ext)))
    goto done;
  int64_t volume = 1;
  for (size_t k = 0; k < ndim; k++) {
    if (ext[k]->kind != PSG_TIR_INT_IMM || ext[k]->u.int_value <= 0) {
      rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "the region of %s has a non-constant extent in "
                          "dimension %zu", what, k);
      goto done;
    }
    volume *= ext[k]->u.int_value;
  }
  store_count cnt = {st.data, 0};
  if ((rc = psgi_sch_walk(ctx, init, count_visit, &cnt, &tmp))) goto done;
  if (touched || ic.loads_of || cnt.n != volume) {
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "the first nest under loop '%s' that stores '%s' does "
                        "not write its whole region (%lld elements) before it is read", loop->u.var.name, st.name,
                        (long long)volume);
    goto done;
  }
  /* the cache, shaped to the region; accesses relative to its start */
  char name[256];
  snprintf(name, sizeof name, "%s_%s", st.name, scope);
  if ((rc = psg_tir_buffer_decl(ctx, name, psg_tir_dtype_of(st.buffer), ext, ndim, scope, NULL, &cache))) goto done;
  if ((rc = psg_arith_analyzer_create(ctx, &a))) goto done;
  for (size_t k = 0; k < lpath.node.len && !rc; k++) {
    psg_tir_node *f = lpath.node.data[k];
    if (f->kind == PSG_TIR_FOR) rc = psg_arith_bind(a, f->kids[0], f->kids[1], f->kids[2]);
  }
  if (rc) goto done;
  relocate r = {st.data, cache, lo, a};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &r;
  m.visit[PSG_TIR_BUFFER_LOAD] = relocate_access;
  m.visit[PSG_TIR_BUFFER_STORE] = relocate_access;
  rc = psg_tir_mutate(&m, body, &nbody);
  psg_tir_mutator_fini(&m);
  if (rc) goto done;
  /* the copy: for ax_k (the dimensions wider than 1): B[lo + ax] = cache[ax] */
  for (size_t k = 0; k < ndim && !rc; k++) {
    psg_tir_dtype dt = psg_tir_dtype_of(ext[k]);
    if (ext[k]->u.int_value == 1) {
      rc = psgi_sch_int(ctx, dt, 0, &cidx[k]);
      if (!rc) psg_tir_retain(oidx[k] = lo[k]);
      continue;
    }
    char vn[16];
    snprintf(vn, sizeof vn, "ax%zu", k);
    psg_tir_node *add = NULL;
    rc = psg_tir_var_create(ctx, vn, dt, NULL, NULL, &vars[k]);
    if (!rc) psg_tir_retain(cidx[k] = vars[k]);
    if (!rc) rc = psgi_sch_bin(ctx, PSG_TIR_ADD, lo[k], vars[k], &add);
    if (!rc) rc = psg_arith_simplify(a, add, &oidx[k]);
    psg_tir_release(add);
  }
  psg_tir_node *load = NULL;
  if (!rc) rc = psg_tir_buffer_load_create(ctx, cache, cidx, ndim, NULL, NULL, &load);
  if (!rc) rc = psg_tir_buffer_store_create(ctx, st.buffer, load, oidx, ndim, NULL, NULL, &copy);
  psg_tir_release(load);
  for (size_t k = ndim; k-- > 0 && !rc;) {
    if (!vars[k]) continue;
    psg_tir_node *zero = NULL, *f = NULL;
    rc = psgi_sch_int(ctx, psg_tir_dtype_of(ext[k]), 0, &zero);
    if (!rc) rc = psg_tir_for_create(ctx, vars[k], zero, ext[k], PSG_TIR_FOR_SERIAL, copy, NULL, NULL, &f);
    psg_tir_release(zero);
    psg_tir_release(copy);
    copy = f;
  }
  if (!rc) rc = psgi_sch_seq2(ctx, nbody, copy, &seq);
  if (!rc)
    rc = psg_tir_allocate_create(ctx, cache->kids[0], psg_tir_dtype_of(cache), ext, ndim, NULL, seq, NULL, NULL,
                                 &alloc);
  if (!rc)
    rc = psg_tir_for_create(ctx, target->kids[0], target->kids[1], target->kids[2], target->u.loop.kind, alloc,
                            target->u.loop.annotations, &target->span, &nl);
  if (!rc) rc = psgi_sch_replace(ctx, &lpath, lpath.node.len - 1, nl, &root);
  if (!rc) rc = psgi_sch_commit(s, root, prim);
  if (!rc && out) *out = cache->u.buf.name;
done:
  for (size_t k = 0; k < 8; k++) {
    psg_tir_release(lo[k]);
    psg_tir_release(ext[k]);
    psg_tir_release(vars[k]);
    psg_tir_release(cidx[k]);
    psg_tir_release(oidx[k]);
  }
  psg_arith_analyzer_destroy(a);
  psg_tir_release(cache);
  psg_tir_release(nbody);
  psg_tir_release(copy);
  psg_tir_release(seq);
  psg_tir_release(alloc);
  psg_tir_release(nl);
  psg_tir_release(root);
  psgi_sch_path_fini(ctx, &lpath);
  psgi_sch_path_fini(ctx, &tmp);
  psgi_sch_stage_fini(ctx, &st);
  return rc;
}
