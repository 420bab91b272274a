/* Passage — compute_inline of a chain of stages in one rewrite (the default
 * schedule inlines every injective stage of a function, latest first: one
 * compute_inline each rewrote the whole function, n stages n rewrites).
 *
 * The checks run one stage after another as compute_inline runs them, on
 * the body with the accepted stages' nests removed; only the load rewrite
 * and the dropping of the accepted buffers' scopes wait for the end, where
 * one walk does them for all. That gives what the inlines one at a time
 * give (docs/design.md, "compute_inline of a chain in one rewrite"):
 *  - a stage's checks read its stores, its nest, its value and the stores
 *    after it; the deferred rewrite changes none of them as long as the
 *    value loads no stage accepted before it (guarded) and its nest sits
 *    directly in a SeqStmt (guarded; the scopes not yet dropped then are
 *    never between the nest and its parent, so the nest root and the
 *    removal are those of the one-at-a-time run);
 *  - the loads: the one-at-a-time run replaces a load of stage k by
 *    value_k[vars_k := indices] and later rewrites the loads of earlier
 *    stages inside that copy; here value_k has those loads inlined first
 *    (producers before consumers), then the substitution. The two agree
 *    because no value mentions another stage's loop vars (guarded: all the
 *    accepted stages' vars are distinct nodes).
 * A stage that fails its check, or a guard that fails, gives the chain up
 * (nothing applied, the diagnostics as they were): the caller then inlines
 * one stage at a time, so which stages a failing check skips is unchanged. */
#include "tir/schedule/schedule_internal.h"

typedef struct chain_stage {
  psg_tir_node *store;   /* the stage's only store (a reference) */
  psg_tir_node *inlined; /* its value with the earlier accepted stages inlined (a reference) */
} chain_stage;

typedef struct chain {
  psg_ctx *ctx;
  PSGI_VEC(chain_stage) stages; /* acceptance order: consumers first */
  psgi_map by_data;             /* data var -> chain_stage index + 1 */
  psgi_map vars;                /* the accepted stages' loop vars */
  psgi_map on_path;             /* the body's nodes above a node the rewrite changes */
} chain;

static chain_stage *stage_of(const chain *c, const psg_tir_node *data) {
  psgi_map_entry *e = psgi_map_get_ptr(&c->by_data, data);
  return e ? &c->stages.data[(uintptr_t)e->value - 1] : NULL;
}

/* A load of an accepted stage: value (inlined) at the load's indices (its
 * kids rewritten first). */
static psg_status chain_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  chain *c = m->user;
  psg_tir_node *d = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &d);
  chain_stage *g = st ? NULL : stage_of(c, n->kids[0]->kids[0]);
  if (!g) {
    *out = d;
    return st;
  }
  if (!g->inlined) { /* excluded by the acceptance guard */
    psg_tir_release(d);
    return psgi_sch_error(c->ctx, PSG_ERR_INTERNAL, "compute_inline", "a chain stage read before it is inlined");
  }
  st = psgi_tir_substitute_n(c->ctx, g->inlined, psgi_tir_indices(g->store), psgi_tir_indices(d),
                             psgi_tir_num_indices(g->store), out);
  psg_tir_release(d);
  return st;
}

/* The Allocate / DeclBuffer / AttrStmt of an accepted buffer: its body. */
static const psg_tir_node *scope_data(const psg_tir_node *n, size_t *body) {
  switch (n->kind) {
  case PSG_TIR_ALLOCATE: *body = 2; return n->kids[0];
  case PSG_TIR_DECL_BUFFER: *body = 1; return n->kids[0]->kids[0];
  case PSG_TIR_ATTR_STMT: *body = 1; return n->nkids > 2 ? n->kids[2] : NULL;
  default: return NULL;
  }
}

static psg_status chain_scope(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  chain *c = m->user;
  psg_tir_node *d = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &d);
  size_t body = 0;
  const psg_tir_node *data = st ? NULL : scope_data(n, &body);
  if (!data || !stage_of(c, data)) {
    *out = d;
    return st;
  }
  psg_tir_retain(*out = d->kids[body]);
  psg_tir_release(d);
  return PSG_OK;
}

/* Is n a load of one of the chain's stages, or the scope of one? */
static bool touches(const void *user, const psg_tir_node *n) {
  const chain *c = user;
  size_t body;
  if (n->kind == PSG_TIR_BUFFER_LOAD) return stage_of(c, n->kids[0]->kids[0]) != NULL;
  const psg_tir_node *data = scope_data(n, &body);
  return data && stage_of(c, data);
}

static psg_status skip_untouched(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  const chain *c = m->user;
  if (!psgi_map_get_ptr(&c->on_path, n)) psg_tir_retain(*replacement = (psg_tir_node *)n);
  return PSG_OK;
}

static void mutator_for(psg_tir_mutator *m, chain *c, bool skip) {
  psg_tir_mutator_init(m, c->ctx);
  m->user = c;
  if (skip) m->pre = skip_untouched;
  m->visit[PSG_TIR_BUFFER_LOAD] = chain_load;
  m->visit[PSG_TIR_ALLOCATE] = chain_scope;
  m->visit[PSG_TIR_DECL_BUFFER] = chain_scope;
  m->visit[PSG_TIR_ATTR_STMT] = chain_scope;
}

/* The guards of accepting stage st (checked already) after the others:
 * its value loads no accepted stage, its loop vars are no accepted stage's,
 * and its nest's parent is a SeqStmt. */
static psg_status guards(chain *c, const psgi_sch_stage *st, bool *ok) {
  psg_tir_node *store = st->stores.data[0];
  *ok = st->root > 0 && st->last.node.data[st->root - 1]->kind == PSG_TIR_SEQ_STMT;
  psgi_sch_reads reads = {0};
  psg_status rc = *ok ? psgi_sch_reads_of(c->ctx, store->kids[1], st->data, &reads) : PSG_OK;
  for (size_t i = 0; !rc && *ok && i < reads.datas.len; i++) *ok = !stage_of(c, reads.datas.data[i]);
  psgi_sch_reads_fini(c->ctx, &reads);
  for (size_t i = 0; !rc && *ok && i < psgi_tir_num_indices(store); i++) {
    bool is_new = false;
    if (!psgi_map_put_ptr(&c->vars, psgi_tir_indices(store)[i], &is_new)) rc = psgi_nomem(c->ctx);
    *ok = is_new;
  }
  return rc;
}

/* The checks and removals, one stage after another; *ok false: give up. */
static psg_status accept_all(psg_tir_schedule *s, chain *c, const char *const *blocks, size_t n,
                             psg_tir_node **body, bool *ok) {
  psg_status rc = PSG_OK;
  *ok = true;
  for (size_t i = 0; !rc && *ok && i < n; i++) {
    psgi_sch_stage st;
    rc = psgi_sch_inline_check(s, *body, blocks[i], &st);
    if (rc) {
      if (rc != PSG_ERR_NOMEM && !psg_ctx_is_oom(c->ctx)) rc = PSG_OK, *ok = false;
      break;
    }
    if (!(rc = guards(c, &st, ok)) && *ok) {
      psg_tir_node *removed = NULL;
      psgi_map_entry *e = psgi_map_put_ptr(&c->by_data, st.data, NULL);
      if (!e || !PSGI_VEC_PUSH(c->ctx, &c->stages, ((chain_stage){st.stores.data[0], NULL}))) {
        rc = psgi_nomem(c->ctx);
      } else {
        psg_tir_retain(st.stores.data[0]);
        e->value = (void *)(uintptr_t)c->stages.len;
        rc = psgi_sch_remove(c->ctx, &st.last, st.root, &removed);
      }
      if (!rc) {
        psg_tir_release(*body);
        *body = removed;
      }
    }
    psgi_sch_stage_fini(c->ctx, &st);
  }
  return rc;
}

/* The values inlined into each other (producers, accepted last, first),
 * then the body's loads and scopes in one walk. */
static psg_status rewrite_all(chain *c, psg_tir_node *body, psg_tir_node **out) {
  psg_tir_mutator m;
  mutator_for(&m, c, false);
  psg_status rc = PSG_OK;
  for (size_t i = c->stages.len; !rc && i-- > 0;)
    rc = psg_tir_mutate(&m, c->stages.data[i].store->kids[1], &c->stages.data[i].inlined);
  psg_tir_mutator_fini(&m);
  if (!rc) rc = psgi_sch_mark_paths(c->ctx, body, touches, c, &c->on_path);
  if (rc) return rc;
  mutator_for(&m, c, true);
  rc = psg_tir_mutate(&m, body, out);
  psg_tir_mutator_fini(&m);
  return rc;
}

psg_status psgi_sch_compute_inline_chain(psg_tir_schedule *s, const char *const *blocks, size_t n, bool *applied) {
  *applied = false;
  if (!s || !s->unchecked || n == 0) return PSG_OK;
  psg_ctx *ctx = s->ctx;
  size_t mark = psg_ctx_diag_count(ctx);
  chain c = {.ctx = ctx};
  psgi_map_init(&c.by_data, ctx);
  psgi_map_init(&c.vars, ctx);
  psgi_map_init(&c.on_path, ctx);
  psg_tir_node *body = s->func->kids[0], *out = NULL;
  psg_tir_retain(body);
  bool ok = false;
  psg_status rc = accept_all(s, &c, blocks, n, &body, &ok);
  if (!rc && ok) rc = rewrite_all(&c, body, &out);
  if (!rc && ok) rc = psgi_sch_commit(s, out, "compute_inline");
  if (!rc && !ok) psgi_diag_truncate(ctx, mark);
  *applied = !rc && ok;
  psg_tir_release(out);
  psg_tir_release(body);
  for (size_t i = 0; i < c.stages.len; i++) {
    psg_tir_release(c.stages.data[i].store);
    psg_tir_release(c.stages.data[i].inlined);
  }
  PSGI_VEC_FREE(ctx, &c.stages);
  psgi_map_fini(&c.by_data);
  psgi_map_fini(&c.vars);
  psgi_map_fini(&c.on_path);
  return rc;
}
