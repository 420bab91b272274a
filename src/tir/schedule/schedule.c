/* Passage — the schedule object (include/passage/tir_schedule.h): the
 * current PrimFunc, replaced only when a primitive succeeds; stages found by
 * buffer name (get_block), the loops around them (get_loops), and the small
 * helpers every primitive uses. */
#include "tir/schedule/schedule_internal.h"
#include <stdio.h>

psg_status psgi_sch_error(psg_ctx *ctx, psg_status code, const char *prim, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, code, NULL, 0, 0, NULL, 0, NULL, "tir.Schedule.%s: %s", prim, msg);
}

psg_status psg_tir_schedule_create(const psg_tir_prim_func *func, psg_tir_schedule **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!func || func->kind != PSG_TIR_PRIM_FUNC) return PSG_ERR_INVALID_ARGUMENT;
  psg_tir_schedule *s = psgi_calloc(func->ctx, sizeof *s);
  if (!s) return PSG_ERR_NOMEM;
  s->ctx = func->ctx;
  s->func = (psg_tir_prim_func *)func;
  psg_tir_retain(s->func);
  *out = s;
  return PSG_OK;
}

void psg_tir_schedule_release(psg_tir_schedule *s) {
  if (!s) return;
  psg_tir_release(s->func);
  psgi_free(s->ctx, s);
}

psg_tir_prim_func *psg_tir_schedule_get_func(const psg_tir_schedule *s) { return s ? s->func : NULL; }

psg_status psgi_sch_commit(psg_tir_schedule *s, psg_tir_node *body, const char *prim) {
  psg_tir_node *f = s->func;
  psg_tir_node *nf = NULL;
  psg_status st = psgi_tir_func_with_body(s->ctx, f, body, &nf);
  if (st) return st;
  if (!s->unchecked && psg_tir_verify_well_formed(nf)) {
    psg_tir_release(nf);
    return psgi_sch_error(s->ctx, PSG_ERR_INTERNAL, prim, "the rewritten function is not well-formed");
  }
  psg_tir_release(s->func);
  s->func = nf;
  return PSG_OK;
}

psg_status psgi_sch_new_var(psg_ctx *ctx, const char *base, const char *suffix, psg_tir_dtype dtype,
                            psg_tir_node **out) {
  char name[256];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  return psg_tir_var_create(ctx, name, dtype, NULL, NULL, out);
}

psg_status psgi_sch_int(psg_ctx *ctx, psg_tir_dtype dtype, int64_t v, psg_tir_node **out) {
  return psg_tir_int_imm_create(ctx, dtype, v, NULL, out);
}

psg_status psgi_sch_bin(psg_ctx *ctx, int kind, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out) {
  psg_tir_node *e = NULL;
  psg_status st = psg_tir_binary_create(ctx, kind, a, b, NULL, &e);
  if (st) return st;
  st = psg_arith_const_fold(ctx, e, out);
  psg_tir_release(e);
  return st;
}

/* Counting stores and loads ------------------------------------------------ */
typedef struct count_state {
  const psg_tir_node *data, *var;
  psgi_sch_counts c;
  bool used;
} count_state;

static int count_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  count_state *cs = v->user;
  if (n->kind == PSG_TIR_BUFFER_STORE) {
    cs->c.stores++;
    if (n->kids[0]->kids[0] == cs->data) cs->c.stores_to++;
  } else if (n->kind == PSG_TIR_BUFFER_LOAD) {
    if (n->kids[0]->kids[0] == cs->data) cs->c.loads_of++;
  } else if (cs->var && n == cs->var) {
    cs->used = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

psg_status psgi_sch_count(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *data, psgi_sch_counts *out) {
  count_state cs = {.data = data};
  psg_tir_visitor v = {.pre = count_pre, .user = &cs};
  psg_status st = psg_tir_visit(ctx, &v, n);
  *out = cs.c;
  return st;
}

psg_status psgi_sch_uses_var(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *var, bool *out) {
  if (!n->nkids) { /* a constant or a var (most loop bounds): no walk */
    *out = n == var;
    return PSG_OK;
  }
  count_state cs = {.var = var};
  psg_tir_visitor v = {.pre = count_pre, .user = &cs};
  psg_status st = psg_tir_visit(ctx, &v, n);
  *out = cs.used;
  return st;
}

bool psgi_sch_is_param_data(const psg_tir_prim_func *f, const psg_tir_node *data) {
  size_t n = psg_tir_prim_func_buffer_map_size(f);
  for (size_t i = 0; i < n; i++)
    if (psg_tir_prim_func_buffer_map_value(f, i)->kids[0] == data) return true;
  return false;
}

/* Stages --------------------------------------------------------------------- */
typedef struct stage_walk {
  psg_ctx *ctx;
  psgi_sch_stage *st;
  const char *name;
  const char *iname; /* name interned in ctx: names of ctx's nodes compare by address */
  PSGI_VEC(const char *) names; /* every stored buffer name, for the error */
  bool by_data; /* match the data var's name (the second try) */
  bool list;    /* collect `names` (the third walk, for the error only) */
  bool ambiguous, nomem;
  /* The nest root's inputs in the same walk (see root_visit for their
   * meaning). In a pre-order walk the common prefix of two visited paths is
   * the shortest path length between them, and between two visits the
   * path is one shorter than at the second: so each aggregate below is
   * lowered to (length - 1) at every visit. `mine` and `other`: the
   * smallest common prefix of the stage's stores, the largest of the
   * others', with the current point (SIZE_MAX / 0: none); `snap_*`: those
   * at the last stage store; `since`, `after_*`: the same from it on. */
  size_t mine, other, snap_mine, snap_other, since, after_mine, after_other;
  /* Data vars stored before the first stage store (its data unknown yet):
   * when its data is among them, the separate root walk decides. */
  const psg_tir_node *early[32];
  size_t nearly;
  bool early_full;
} stage_walk;

static void aggregates_start(stage_walk *w) {
  w->mine = w->since = w->after_mine = SIZE_MAX;
  w->other = w->after_other = 0;
  w->nearly = 0;
  w->early_full = false;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

static bool copy_path(psg_ctx *ctx, psgi_sch_path *dst, const psgi_sch_path *src) {
  dst->node.len = dst->slot.len = 0;
  if (!PSGI_VEC_RESERVE(ctx, &dst->node, src->node.len + 1) || !PSGI_VEC_RESERVE(ctx, &dst->slot, src->slot.len + 1))
    return false;
  if (src->node.len) memcpy(dst->node.data, src->node.data, src->node.len * sizeof *src->node.data);
  if (src->slot.len) memcpy(dst->slot.data, src->slot.data, src->slot.len * sizeof *src->slot.data);
  dst->node.len = src->node.len;
  dst->slot.len = src->slot.len;
  return true;
}

static int stage_visit(const psgi_sch_path *path, void *user) {
  stage_walk *w = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  size_t p = path->node.len;
  if (w->mine != SIZE_MAX) w->mine = min_size(w->mine, p - 1);
  w->other = min_size(w->other, p - 1);
  w->since = min_size(w->since, p - 1);
  if (n->kind != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  psg_tir_node *buf = n->kids[0];
  const char *bname = buf->u.buf.name;
  psgi_sch_stage *st = w->st;
  if (w->list) {
    bool seen = false;
    for (size_t i = 0; i < w->names.len; i++) seen |= strcmp(w->names.data[i], bname) == 0;
    if (!seen && !PSGI_VEC_PUSH(w->ctx, &w->names, bname)) goto nomem;
    return PSG_VISIT_CONTINUE;
  }
  const psg_tir_node *named = w->by_data ? buf->kids[0] : buf;
  const char *nm = w->by_data ? named->u.var.name : bname;
  if (named->ctx == w->ctx ? nm != w->iname : strcmp(nm, w->name) != 0) {
    const psg_tir_node *data = buf->kids[0];
    if (st->data && data == st->data) { /* another buffer over the stage's data: the stage's too */
      w->after_mine = min_size(w->after_mine, w->since);
      w->mine = min_size(w->mine, p);
      return PSG_VISIT_CONTINUE;
    }
    if (!st->data) {
      bool known = false;
      for (size_t i = 0; i < w->nearly; i++) known |= w->early[i] == data;
      if (!known && w->nearly < sizeof w->early / sizeof w->early[0]) w->early[w->nearly++] = data;
      else if (!known) w->early_full = true;
    } else {
      w->after_other = max_size(w->after_other, w->since);
    }
    w->other = max_size(w->other, p);
    return PSG_VISIT_CONTINUE;
  }
  if (st->data && st->data != buf->kids[0]) w->ambiguous = true;
  st->data = buf->kids[0];
  st->buffer = buf;
  if (!PSGI_VEC_PUSH(w->ctx, &st->stores, n) || !copy_path(w->ctx, &st->last, path)) goto nomem;
  w->snap_mine = w->mine;
  w->snap_other = w->other;
  w->since = p;
  w->after_mine = SIZE_MAX;
  w->after_other = 0;
  w->mine = min_size(w->mine, p);
  return PSG_VISIT_CONTINUE;
nomem:
  w->nomem = true;
  return PSG_VISIT_ABORT;
}

/* Over every store: the length of its path's common prefix with the last
 * store's; the smallest among the stage's stores, the largest among others. */
typedef struct root_walk {
  const psgi_sch_stage *st;
  size_t min_mine, max_other;
} root_walk;

static int root_visit(const psgi_sch_path *path, void *user) {
  root_walk *rw = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  const psgi_sch_path *last = &rw->st->last;
  size_t common = 0, m = path->node.len < last->node.len ? path->node.len : last->node.len;
  while (common < m && path->node.data[common] == last->node.data[common]) common++;
  if (n->kids[0]->kids[0] == rw->st->data) {
    if (common < rw->min_mine) rw->min_mine = common;
  } else if (common > rw->max_other) {
    rw->max_other = common;
  }
  return PSG_VISIT_CONTINUE;
}

void psgi_sch_stage_fini(psg_ctx *ctx, psgi_sch_stage *st) {
  PSGI_VEC_FREE(ctx, &st->stores);
  psgi_sch_path_fini(ctx, &st->last);
}

psg_status psgi_sch_stage_find(psg_ctx *ctx, psg_tir_node *body, const char *name, const char *prim,
                               psgi_sch_stage *st) {
  memset(st, 0, sizeof *st);
  if (!name) return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "a block (stage) is given by its buffer name");
  stage_walk w = {.ctx = ctx, .st = st, .name = name, .iname = psgi_intern(ctx, name, strlen(name))};
  if (!w.iname) return psgi_nomem(ctx);
  psgi_sch_path path = {0};
  aggregates_start(&w);
  psg_status rc = psgi_sch_walk(ctx, body, stage_visit, &w, &path);
  if (!rc && !w.nomem && !st->stores.len) { /* legacy TE: `B = T.allocate(...)` names the data var */
    w.by_data = true;
    aggregates_start(&w);
    rc = psgi_sch_walk(ctx, body, stage_visit, &w, &path);
  }
  if (!rc && !w.nomem && !st->stores.len) { /* not found: the stages there are, for the message */
    w.list = true;
    rc = psgi_sch_walk(ctx, body, stage_visit, &w, &path);
  }
  if (!rc && w.nomem) rc = PSG_ERR_NOMEM;
  if (!rc && !st->stores.len) {
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < w.names.len && used + 4 < sizeof list; i++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s'%s'", i ? ", " : "", w.names.data[i]);
    rc = psgi_sch_error(ctx, PSG_ERR_NOT_FOUND, prim, "no block '%s': the stages (buffers stored to) are %s", name,
                        w.names.len ? list : "none");
  }
  if (!rc && w.ambiguous)
    rc = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "block '%s' is ambiguous: buffers over different data "
                        "share that name", name);
  PSGI_VEC_FREE(ctx, &w.names);
  if (rc) {
    psgi_sch_path_fini(ctx, &path);
    psgi_sch_stage_fini(ctx, st);
    return rc;
  }
  st->name = st->buffer->u.buf.name;
  /* The nest root: the highest statement on the path to the last store that
   * holds all the stage's stores and no other (one walk: each store's common
   * prefix with that path tells which of its statements hold the store). */
  root_walk rw = {st, st->last.node.len, 0};
  bool early = w.early_full;
  for (size_t i = 0; i < w.nearly; i++) early |= w.early[i] == st->data;
  if (early) { /* a store over the stage's data under another name came first */
    rc = psgi_sch_walk(ctx, body, root_visit, &rw, &path);
  } else {
    rw.min_mine = min_size(min_size(w.snap_mine, rw.min_mine), w.after_mine);
    rw.max_other = max_size(w.snap_other, w.after_other);
  }
  psgi_sch_path_fini(ctx, &path);
  if (rc) {
    psgi_sch_stage_fini(ctx, st);
    return rc;
  }
  st->root = rw.min_mine > 0 && rw.max_other <= rw.min_mine - 1 ? rw.max_other : st->last.node.len - 1;
  if (st->root > st->last.node.len - 1) st->root = st->last.node.len - 1;
  return PSG_OK;
}

/* The stores of a function in program order (for psgi_sch_stage_summaries). */
typedef struct store_list {
  psg_ctx *ctx;
  PSGI_VEC(const psg_tir_node *) bufs;
  bool nomem;
} store_list;

static int store_visit(const psgi_sch_path *path, void *user) {
  store_list *l = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind == PSG_TIR_BUFFER_STORE && !PSGI_VEC_PUSH(l->ctx, &l->bufs, n->kids[0])) {
    l->nomem = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

/* stage_visit's matching, over the list: by buffer name, else (legacy TE)
 * by the data var's name. */
static void summarize(const store_list *l, const char *name, psgi_sch_stage_summary *out) {
  memset(out, 0, sizeof *out);
  bool ambiguous = false;
  for (int by_data = 0; by_data < 2 && !out->nstores; by_data++) {
    for (size_t i = 0; i < l->bufs.len; i++) {
      const psg_tir_node *buf = l->bufs.data[i];
      if (strcmp(by_data ? buf->kids[0]->u.var.name : buf->u.buf.name, name) != 0) continue;
      if (out->data && out->data != buf->kids[0]) ambiguous = true;
      out->data = buf->kids[0];
      out->nstores++;
    }
  }
  out->found = out->nstores && !ambiguous;
}

psg_status psgi_sch_stage_summaries(psg_ctx *ctx, psg_tir_node *body, const char *const *names, size_t n,
                                    psgi_sch_stage_summary *out) {
  store_list l = {.ctx = ctx};
  psgi_sch_path path = {0};
  psg_status rc = psgi_sch_walk(ctx, body, store_visit, &l, &path);
  if (!rc && l.nomem) rc = psgi_nomem(ctx);
  for (size_t i = 0; !rc && i < n; i++) summarize(&l, names[i], &out[i]);
  psgi_sch_path_fini(ctx, &path);
  PSGI_VEC_FREE(ctx, &l.bufs);
  return rc;
}

psg_status psg_tir_schedule_get_block(psg_tir_schedule *s, const char *name, const char **out) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psgi_sch_stage st;
  psg_status rc = psgi_sch_stage_find(s->ctx, s->func->kids[0], name, "get_block", &st);
  if (rc) return rc;
  if (out) *out = st.name;
  psgi_sch_stage_fini(s->ctx, &st);
  return PSG_OK;
}

psg_status psg_tir_schedule_get_loops(psg_tir_schedule *s, const char *block, psg_tir_expr ***loops, size_t *n) {
  if (!s || !loops || !n) return PSG_ERR_INVALID_ARGUMENT;
  *loops = NULL;
  *n = 0;
  psgi_sch_stage st;
  psg_status rc = psgi_sch_stage_find(s->ctx, s->func->kids[0], block, "get_loops", &st);
  if (rc) return rc;
  size_t count = 0;
  for (size_t d = 0; d < st.last.node.len; d++) count += st.last.node.data[d]->kind == PSG_TIR_FOR;
  psg_tir_expr **arr = psgi_result_alloc((count ? count : 1) * sizeof *arr);
  if (!arr) rc = PSG_ERR_NOMEM;
  for (size_t d = 0, k = 0; arr && d < st.last.node.len; d++) {
    psg_tir_node *f = st.last.node.data[d];
    if (f->kind != PSG_TIR_FOR) continue;
    arr[k++] = f->kids[0];
    psg_tir_retain(f->kids[0]);
  }
  psgi_sch_stage_fini(s->ctx, &st);
  if (rc) return rc;
  *loops = arr;
  *n = count;
  return PSG_OK;
}

/* Reads and late writes ------------------------------------------------------ */
typedef struct read_walk {
  psg_ctx *ctx;
  const psg_tir_node *skip;
  psgi_sch_reads *r;
  bool nomem;
} read_walk;

static int read_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  read_walk *w = v->user;
  if (n->kind != PSG_TIR_BUFFER_LOAD) return PSG_VISIT_CONTINUE;
  psg_tir_node *d = n->kids[0]->kids[0];
  if (d == w->skip) return PSG_VISIT_CONTINUE;
  for (size_t i = 0; i < w->r->datas.len; i++)
    if (w->r->datas.data[i] == d) return PSG_VISIT_CONTINUE;
  if (!PSGI_VEC_PUSH(w->ctx, &w->r->datas, d) || !PSGI_VEC_PUSH(w->ctx, &w->r->bufs, n->kids[0])) w->nomem = true;
  return PSG_VISIT_CONTINUE;
}

psg_status psgi_sch_reads_of(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *skip, psgi_sch_reads *out) {
  read_walk w = {ctx, skip, out, false};
  psg_tir_visitor v = {.pre = read_pre, .user = &w};
  psg_status st = psg_tir_visit(ctx, &v, n);
  return st ? st : w.nomem ? PSG_ERR_NOMEM : PSG_OK;
}

void psgi_sch_reads_fini(psg_ctx *ctx, psgi_sch_reads *r) {
  PSGI_VEC_FREE(ctx, &r->datas);
  PSGI_VEC_FREE(ctx, &r->bufs);
}

typedef struct late_write {
  const psg_tir_node *after;
  psg_tir_node *const *datas;
  size_t n;
  bool passed;
  const psg_tir_node *bad;
} late_write;

static int late_visit(const psgi_sch_path *path, void *user) {
  late_write *w = user;
  psg_tir_node *n = psgi_sch_path_last(path);
  if (n == w->after) {
    w->passed = true;
    return PSG_VISIT_SKIP_CHILDREN;
  }
  if (w->passed && n->kind == PSG_TIR_BUFFER_STORE)
    for (size_t i = 0; i < w->n; i++)
      if (n->kids[0]->kids[0] == w->datas[i]) {
        w->bad = n;
        return PSG_VISIT_ABORT;
      }
  return PSG_VISIT_CONTINUE;
}

psg_status psgi_sch_written_after(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *after,
                                  psg_tir_node *const *datas, size_t n, const psg_tir_node **bad) {
  late_write w = {after, datas, n, false, NULL};
  psgi_sch_path path = {0};
  psg_status st = psgi_sch_walk(ctx, body, late_visit, &w, &path);
  psgi_sch_path_fini(ctx, &path);
  *bad = w.bad;
  return st;
}

/* The walk of psgi_sch_written_after passes `after` once and skips it; what
 * it visits next is, level by level upward, the statement operands of each
 * node above `after` that follow the one on the path, each subtree in
 * pre-order: the same statements in the same order, without the walk of
 * everything before `after` (the chain of inlines checks each stage of a
 * function, latest first: a walk of the whole function per stage). */
psg_status psgi_sch_written_after_path(psg_ctx *ctx, const psgi_sch_path *path, size_t depth,
                                       psg_tir_node *const *datas, size_t n, const psg_tir_node **bad) {
  late_write w = {NULL, datas, n, true, NULL};
  psgi_sch_path sub = {0};
  psg_status st = PSG_OK;
  for (size_t d = depth; d-- > 0 && !st && !w.bad;) {
    psg_tir_node *up = path->node.data[d];
    for (uint32_t k = psgi_sch_next_stmt_kid(up, path->slot.data[d] + 1); k < up->nkids && !st && !w.bad;
         k = psgi_sch_next_stmt_kid(up, k + 1))
      st = psgi_sch_walk(ctx, up->kids[k], late_visit, &w, &sub);
  }
  psgi_sch_path_fini(ctx, &sub);
  *bad = w.bad;
  return st;
}
