/* Passage — cache_write: a stage computes into a new buffer in another
 * storage scope ("<name>_<scope>", allocated around its nest), and a copy
 * nest right after copies the region the stage wrote (region.c) to the
 * original buffer (TVM's cache_write; the copy keeps the stage name, the
 * cache is the new stage). */
#include "tir/schedule/schedule_internal.h"
#include <stdio.h>

typedef struct redirect {
  const psg_tir_node *data;
  psg_tir_node *to;
} redirect;

static psg_status redirect_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  redirect *r = m->user;
  psg_tir_node *d = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &d);
  if (st || n->kids[0]->kids[0] != r->data) {
    *out = d;
    return st;
  }
  if (n->kind == PSG_TIR_BUFFER_LOAD)
    st = psg_tir_buffer_load_create(m->ctx, r->to, psgi_tir_indices(d), psgi_tir_num_indices(d),
                                    psg_tir_get_predicate(d), &n->span, out);
  else
    st = psg_tir_buffer_store_create(m->ctx, r->to, d->kids[1], psgi_tir_indices(d), psgi_tir_num_indices(d),
                                     psg_tir_get_predicate(d), &n->span, out);
  psg_tir_release(d);
  return st;
}

psg_status psg_tir_schedule_cache_write(psg_tir_schedule *s, const char *block, int index, const char *scope,
                                        const char **out) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  const char *prim = "cache_write";
  if (index != 0)
    return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "write buffer index %d out of range: a block writes "
                          "one buffer (index 0)", index);
  if (!scope || !*scope) return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "the storage scope is empty");
  psgi_sch_stage st;
  psg_status rc = psgi_sch_stage_find(ctx, s->func->kids[0], block, prim, &st);
  if (rc) return rc;
  psg_tir_node *cache = NULL, *nest = NULL, *copy = NULL, *seq = NULL, *alloc = NULL, *root = NULL;
  psg_tir_node *vars[8] = {0}, *lo[8] = {0}, *ext[8] = {0}, *idx[8] = {0};
  psg_arith_analyzer *a = NULL;
  size_t ndim = psg_tir_buffer_ndim(st.buffer);
  psg_tir_node *const *shape = &st.buffer->kids[2];
  char name[256];
  snprintf(name, sizeof name, "%s_%s", st.name, scope);
  if (ndim > 8) {
    rc = psgi_sch_error(ctx, PSG_ERR_UNSUPPORTED, prim, "more than 8 dimensions");
    goto done;
  }
  if ((rc = psg_tir_buffer_decl(ctx, name, psg_tir_dtype_of(st.buffer), shape, ndim, scope, NULL, &cache))) goto done;
  redirect r = {st.data, cache};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &r;
  m.visit[PSG_TIR_BUFFER_LOAD] = redirect_access;
  m.visit[PSG_TIR_BUFFER_STORE] = redirect_access;
  rc = psg_tir_mutate(&m, st.last.node.data[st.root], &nest);
  psg_tir_mutator_fini(&m);
  if (rc) goto done;
  /* for ax0, ..., axn in the region the stage writes: B[lo + ax] = B_scope[lo + ax] */
  char what[300];
  snprintf(what, sizeof what, "'%s' written by its stage", st.name);
  psg_tir_node *root_stmt = st.last.node.data[st.root];
  if ((rc = psgi_sch_region(ctx, root_stmt, st.data, ndim, true, st.last.node.data, st.root, prim, what, lo, ext)))
    goto done;
  if ((rc = psg_arith_analyzer_create(ctx, &a))) goto done;
  for (size_t k = 0; k < st.root && !rc; k++) {
    psg_tir_node *f = st.last.node.data[k];
    if (f->kind == PSG_TIR_FOR) rc = psg_arith_bind(a, f->kids[0], f->kids[1], f->kids[2]);
  }
  for (size_t k = 0; k < ndim && !rc; k++) {
    char vn[16];
    snprintf(vn, sizeof vn, "ax%zu", k);
    psg_tir_node *zero = NULL, *add = NULL;
    rc = psg_tir_var_create(ctx, vn, psg_tir_dtype_of(shape[k]), NULL, NULL, &vars[k]);
    if (!rc) rc = psgi_sch_int(ctx, psg_tir_dtype_of(shape[k]), 0, &zero);
    if (!rc) rc = psg_arith_bind(a, vars[k], zero, ext[k]);
    if (!rc) rc = psgi_sch_bin(ctx, PSG_TIR_ADD, vars[k], lo[k], &add);
    if (!rc) rc = psg_arith_simplify(a, add, &idx[k]);
    psg_tir_release(zero);
    psg_tir_release(add);
  }
  psg_tir_node *load = NULL;
  if (!rc) rc = psg_tir_buffer_load_create(ctx, cache, idx, ndim, NULL, NULL, &load);
  if (!rc) rc = psg_tir_buffer_store_create(ctx, st.buffer, load, idx, ndim, NULL, NULL, &copy);
  psg_tir_release(load);
  for (size_t k = ndim; k-- > 0 && !rc;) {
    psg_tir_node *zero = NULL, *f = NULL;
    rc = psgi_sch_int(ctx, psg_tir_dtype_of(shape[k]), 0, &zero);
    if (!rc) rc = psg_tir_for_create(ctx, vars[k], zero, ext[k], PSG_TIR_FOR_SERIAL, copy, NULL, NULL, &f);
    psg_tir_release(zero);
    psg_tir_release(copy);
    copy = f;
  }
  if (!rc) rc = psgi_sch_seq2(ctx, nest, copy, &seq);
  if (!rc)
    rc = psg_tir_allocate_create(ctx, cache->kids[0], psg_tir_dtype_of(cache), (psg_tir_node *const *)shape, ndim, NULL,
                                 seq, NULL, NULL, &alloc);
  if (!rc) rc = psgi_sch_replace(ctx, &st.last, st.root, alloc, &root);
  if (!rc) rc = psgi_sch_commit(s, root, prim);
  if (!rc && out) *out = cache->u.buf.name;
done:
  for (size_t k = 0; k < 8; k++) {
    psg_tir_release(vars[k]);
    psg_tir_release(lo[k]);
    psg_tir_release(ext[k]);
    psg_tir_release(idx[k]);
  }
  psg_arith_analyzer_destroy(a);
  psg_tir_release(cache);
  psg_tir_release(nest);
  psg_tir_release(copy);
  psg_tir_release(seq);
  psg_tir_release(alloc);
  psg_tir_release(root);
  psgi_sch_stage_fini(ctx, &st);
  return rc;
}
