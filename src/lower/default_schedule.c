/* Passage — the default CPU schedule (default_schedule.h): reading the stage
 * tags, picking the anchor, dispatching to a family, the fallback to the
 * naive nests, and the helpers the families share (inlining, TVM's
 * injective and reduce nests, the init-guarded reduction form). */
#include "lower/default_schedule.h"
#include "passage/op.h"
#include "tir/schedule/schedule_internal.h"
#include <stdio.h>
#include <string.h>

static int pattern_of(const char *name) {
  static const int pats[] = {PSG_OP_PATTERN_ELEMWISE, PSG_OP_PATTERN_BROADCAST, PSG_OP_PATTERN_INJECTIVE,
                             PSG_OP_PATTERN_COMM_REDUCE, PSG_OP_PATTERN_OUT_ELEMWISE_FUSABLE, PSG_OP_PATTERN_TUPLE,
                             PSG_OP_PATTERN_OPAQUE};
  for (size_t i = 0; i < sizeof pats / sizeof *pats; i++)
    if (name && !strcmp(psg_op_pattern_name(pats[i]), name)) return pats[i];
  return PSG_OP_PATTERN_OPAQUE;
}

/* Helpers ----------------------------------------------------------------------- */
int64_t psgi_dsch_extent(psgi_dsch *d, psg_tir_expr *loop) {
  psgi_sch_path p = {0};
  int64_t e = -1;
  if (!psgi_sch_find_loop(d->ctx, psg_tir_schedule_get_func(d->s)->kids[0], loop, "default_schedule", &p)) {
    psg_tir_node *f = psgi_sch_path_last(&p);
    if (f->kids[1]->kind == PSG_TIR_INT_IMM && f->kids[1]->u.int_value == 0 && f->kids[2]->kind == PSG_TIR_INT_IMM)
      e = f->kids[2]->u.int_value;
  }
  psgi_sch_path_fini(d->ctx, &p);
  return e;
}

int64_t psgi_dsch_factor(int64_t extent, int64_t cap) {
  for (int64_t f = cap; f >= 2; f--)
    if (extent > 0 && extent % f == 0) return f;
  return 1;
}

int64_t psgi_dsch_vec_factor(int64_t extent, int64_t cap) {
  for (int64_t f = cap; f >= 4; f /= 2)
    if (extent > 0 && extent % f == 0) return f;
  return psgi_dsch_factor(extent, cap);
}

psg_status psgi_dsch_loops(psgi_dsch *d, const char *stage, psg_tir_expr ***loops, size_t *n) {
  return psg_tir_schedule_get_loops(d->s, stage, loops, n);
}

void psgi_dsch_loops_free(psg_tir_expr **loops, size_t n) {
  for (size_t i = 0; loops && i < n; i++) psg_tir_release(loops[i]);
  psg_free(loops);
}

psg_status psgi_dsch_parallel(psgi_dsch *d, psg_tir_expr *loop) {
  return psgi_dsch_extent(d, loop) == 1 ? PSG_OK : psg_tir_schedule_parallel(d->s, loop);
}

typedef struct named_find {
  const char *name;
  psg_tir_expr *var;
} named_find;

/* The first For in pre-order whose var is named f->name. Loops are
 * statements and no expression holds a statement, so the search walks the
 * statements alone (psgi_sch_walk, in the visitor's pre-order over them;
 * it reaches a shared statement again where the visitor did not, after its
 * first visit: the first match is the same) and stops at the first match
 * (later ones were ignored). design.md 245. */
static int named_visit(const psgi_sch_path *path, void *user) {
  named_find *f = user;
  const psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind == PSG_TIR_FOR && !strcmp(n->kids[0]->u.var.name, f->name)) {
    f->var = n->kids[0];
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

static psg_status init_kind(psgi_dsch *d, psg_tir_expr *loop, bool unroll) {
  char name[256];
  snprintf(name, sizeof name, "%s_init", loop->u.var.name);
  named_find f = {name, NULL};
  psgi_sch_path path = {0};
  psg_status st = psgi_sch_walk(d->ctx, psg_tir_schedule_get_func(d->s)->kids[0], named_visit, &f, &path);
  psgi_sch_path_fini(d->ctx, &path);
  if (st || !f.var) return st;
  return unroll ? psg_tir_schedule_unroll(d->s, f.var) : psg_tir_schedule_vectorize(d->s, f.var);
}

psg_status psgi_dsch_vectorize_init(psgi_dsch *d, psg_tir_expr *loop) { return init_kind(d, loop, false); }
psg_status psgi_dsch_unroll_init(psgi_dsch *d, psg_tir_expr *loop) { return init_kind(d, loop, true); }

psg_status psgi_dsch_try(psgi_dsch *d, psgi_dsch_step step, void *arg, bool *applied) {
  size_t mark = psg_ctx_diag_count(d->ctx);
  psg_status st = step(d, arg);
  if (applied) *applied = !st;
  if (!st || st == PSG_ERR_NOMEM || psg_ctx_is_oom(d->ctx)) return st;
  psgi_diag_truncate(d->ctx, mark);
  return PSG_OK;
}

static psg_status inline_step(psgi_dsch *d, void *arg) {
  return psg_tir_schedule_compute_inline(d->s, arg);
}

/* The stages inline_all inlines, latest first. */
static bool inline_candidate(const psgi_dsch_stage *g, const char *keep_op) {
  return !(g->output || g->reduction || g->done || (keep_op && !strcmp(keep_op, g->op)));
}

psg_status psgi_dsch_inline_all(psgi_dsch *d, const char *keep_op) {
  /* all in one rewrite when every one inlines (the result is that of the
   * loop below: psgi_sch_compute_inline_chain) */
  const char **names = psgi_alloc(d->ctx, (d->stages.len ? d->stages.len : 1) * sizeof *names);
  if (!names) return psgi_nomem(d->ctx);
  size_t n = 0;
  for (size_t i = d->stages.len; i-- > 0;)
    if (inline_candidate(&d->stages.data[i], keep_op)) names[n++] = d->stages.data[i].buffer;
  bool applied = false; /* one stage: compute_inline itself, without the chain's tables */
  psg_status st = n > 1 ? psgi_sch_compute_inline_chain(d->s, names, n, &applied) : PSG_OK;
  psgi_free(d->ctx, names);
  if (st || applied) {
    for (size_t i = 0; !st && i < d->stages.len; i++)
      if (inline_candidate(&d->stages.data[i], keep_op)) d->stages.data[i].done = true;
    return st;
  }
  /* latest first: a consumer inlined before its producer keeps each
   * producer's loads simple for the next inline */
  for (size_t i = d->stages.len; !st && i-- > 0;) {
    psgi_dsch_stage *g = &d->stages.data[i];
    if (!inline_candidate(g, keep_op)) continue;
    bool ok = false;
    st = psgi_dsch_try(d, inline_step, (void *)g->buffer, &ok);
    if (ok) g->done = true;
  }
  return st;
}

psg_status psgi_dsch_injective_nest(psgi_dsch *d, const char *stage) {
  psg_tir_expr **loops = NULL, *fused = NULL, *parts[2] = {NULL, NULL};
  size_t n = 0;
  psg_status st = psgi_dsch_loops(d, stage, &loops, &n);
  if (st || n == 0) goto done;
  /* the last loop: split by a dividing factor, inner part vectorized */
  int64_t ext = psgi_dsch_extent(d, loops[n - 1]), f = psgi_dsch_vec_factor(ext, 16);
  psg_tir_expr *outer1 = NULL;
  if (f > 1 && f < ext) {
    int64_t factors[2] = {0, f};
    st = psg_tir_schedule_split(d->s, loops[n - 1], factors, 2, parts);
    if (!st) st = psg_tir_schedule_vectorize(d->s, parts[1]);
    outer1 = parts[0];
  } else if (f > 1 || (ext > 1 && ext <= 16)) {
    st = psg_tir_schedule_vectorize(d->s, loops[n - 1]);
  }
  if (st) goto done;
  /* the leading loops fused and parallel (a 1-D nest: the outer part) */
  size_t nf = n >= 5 ? 3 : n >= 3 ? 2 : 1;
  if (n == 1) {
    if (outer1) st = psgi_dsch_parallel(d, outer1);
  } else if (nf == 1) {
    st = psgi_dsch_parallel(d, loops[0]);
  } else if (!(st = psg_tir_schedule_fuse(d->s, loops, nf, &fused))) {
    st = psgi_dsch_parallel(d, fused);
  }
done:
  psg_tir_release(fused);
  psg_tir_release(parts[0]);
  psg_tir_release(parts[1]);
  psgi_dsch_loops_free(loops, n);
  return st;
}

/* The number of leading spatial loops of a reduction stage: the loops that
 * enclose its init store as well as the update. */
static psg_status spatial_count(psgi_dsch *d, const char *stage, size_t *out) {
  psgi_sch_stage st;
  psg_status rc = psgi_sch_stage_find(d->ctx, psg_tir_schedule_get_func(d->s)->kids[0], stage, "default_schedule", &st);
  if (rc) return rc;
  size_t k = 0;
  const psg_tir_node *init = st.stores.data[0];
  for (size_t i = 0; i + 1 < st.last.node.len; i++) {
    const psg_tir_node *n = st.last.node.data[i];
    if (n->kind != PSG_TIR_FOR) continue;
    bool found = false; /* is the init store under n? it is if n's body is on the init's path */
    psgi_sch_path p = {0};
    rc = psgi_sch_find_node(d->ctx, (psg_tir_node *)n, init, &p, &found);
    psgi_sch_path_fini(d->ctx, &p);
    if (rc || !found) break;
    k++;
  }
  psgi_sch_stage_fini(d->ctx, &st);
  *out = k;
  return rc;
}

psg_status psgi_dsch_reduce_nest(psgi_dsch *d, const char *stage) {
  psg_tir_expr **loops = NULL, *fused = NULL;
  size_t n = 0, nsp = 0;
  psg_status st = psgi_dsch_loops(d, stage, &loops, &n);
  if (!st) st = spatial_count(d, stage, &nsp);
  if (st || nsp == 0) goto done;
  size_t nf = 0;
  int64_t par = 1;
  while (nf < nsp && par < 128) {
    int64_t e = psgi_dsch_extent(d, loops[nf++]);
    par *= e > 0 ? e : 1;
  }
  if (nf == 1) {
    st = psgi_dsch_parallel(d, loops[0]);
  } else if (!(st = psg_tir_schedule_fuse(d->s, loops, nf, &fused))) {
    st = psgi_dsch_parallel(d, fused);
  }
done:
  psg_tir_release(fused);
  psgi_dsch_loops_free(loops, n);
  return st;
}

/* The init-guarded form ---------------------------------------------------------- */
psg_status psgi_dsch_guard_init(psgi_dsch *d, const char *stage) {
  psg_ctx *ctx = d->ctx;
  psg_tir_prim_func *f = psg_tir_schedule_get_func(d->s);
  psgi_sch_stage st;
  psg_status rc = psgi_sch_stage_find(ctx, f->kids[0], stage, "default_schedule", &st);
  if (rc) return rc;
  psg_tir_node *init = st.stores.data[0], *upd = st.stores.data[st.stores.len - 1];
  psgi_sch_path *p = &st.last;
  /* the SeqStmt {init; for r...: upd} on the path, right under a loop */
  size_t seq = 0;
  for (size_t i = 1; i + 1 < p->node.len && !seq; i++) {
    psg_tir_node *n = p->node.data[i];
    if (n->kind == PSG_TIR_SEQ_STMT && n->nkids == 2 && n->kids[0] == init &&
        p->node.data[i - 1]->kind == PSG_TIR_FOR && p->slot.data[i] == 1)
      seq = i;
  }
  for (size_t i = seq + 1; seq && i + 1 < p->node.len; i++)
    if (p->node.data[i]->kind != PSG_TIR_FOR) seq = 0;
  if (!seq || st.stores.len != 2) {
    psgi_sch_stage_fini(ctx, &st);
    return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "default_schedule",
                          "stage '%s' is not an init + update reduction", stage);
  }
  /* cond: every reduction var at its loop's min */
  psg_tir_node *cond = NULL, *guarded = NULL, *body = NULL, *root = NULL, *nf = NULL;
  for (size_t i = seq + 1; !rc && i + 1 < p->node.len; i++) {
    psg_tir_node *loop = p->node.data[i], *eq = NULL, *both = NULL;
    rc = psg_tir_binary_create(ctx, PSG_TIR_EQ, loop->kids[0], loop->kids[1], NULL, &eq);
    if (!rc && cond) rc = psg_tir_binary_create(ctx, PSG_TIR_AND, cond, eq, NULL, &both);
    else if (!rc) psg_tir_retain(both = eq);
    psg_tir_release(eq);
    psg_tir_release(cond);
    cond = both;
  }
  if (!rc) rc = psg_tir_if_then_else_create(ctx, cond, init, NULL, NULL, &guarded);
  psg_tir_node *pair[2] = {guarded, upd};
  if (!rc) rc = psg_tir_seq_stmt_create(ctx, pair, 2, NULL, &body);
  /* rebuild the reduction loops, innermost first, over the new body */
  for (size_t i = p->node.len - 1; !rc && i-- > seq + 1;) {
    psg_tir_node *loop = p->node.data[i], *kids[4] = {loop->kids[0], loop->kids[1], loop->kids[2], body}, *nl = NULL;
    rc = psgi_tir_rebuild(loop, kids, &nl);
    psg_tir_release(body);
    body = nl;
  }
  if (!rc) rc = psgi_sch_replace(ctx, p, seq, body, &root);
  if (!rc) rc = psgi_tir_func_with_body(ctx, f, root, &nf);
  psg_tir_schedule *ns = NULL;
  if (!rc) rc = psg_tir_schedule_create(nf, &ns);
  if (!rc) {
    ns->unchecked = d->s->unchecked;
    psg_tir_schedule_release(d->s);
    d->s = ns;
  }
  psg_tir_release(cond);
  psg_tir_release(guarded);
  psg_tir_release(body);
  psg_tir_release(root);
  psg_tir_release(nf);
  psgi_sch_stage_fini(ctx, &st);
  return rc;
}

/* The injective family: producers inlined, every output nest scheduled. */
psg_status psgi_dsch_injective(psgi_dsch *d, const char **kind) {
  *kind = "injective";
  return psgi_dsch_inline_all(d, NULL);
}

/* Stage tags and the anchor -------------------------------------------------------- */
static psg_status read_stages(psgi_dsch *d, const psg_tir_prim_func *f, bool *ok) {
  *ok = false;
  psg_attr *tags = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "passage.te_stages");
  if (!tags || psg_attr_kind(tags) != PSG_ATTR_LIST) return PSG_OK;
  size_t n = psg_attr_list_len(tags);
  for (size_t i = 0; i < n; i++) {
    psg_attrs *t = psg_attr_get_dict(psg_attr_list_get(tags, i));
    psg_attr *b = psg_attrs_get(t, "buffer"), *o = psg_attrs_get(t, "op"), *pt = psg_attrs_get(t, "pattern");
    if (!b || !o || !pt) return PSG_OK;
    psgi_dsch_stage g = {.buffer = psg_attr_get_string(b), .op = psg_attr_get_string(o),
                         .pattern = pattern_of(psg_attr_get_string(pt))};
    if (!PSGI_VEC_PUSH(d->ctx, &d->stages, g)) return psgi_nomem(d->ctx);
  }
  /* Each stage's stores, found as psgi_sch_stage_find finds them, in one
   * walk (a walk per stage made the stage list n^2). */
  const char **names = psgi_alloc(d->ctx, (n ? n : 1) * sizeof *names);
  psgi_sch_stage_summary *sum = psgi_alloc(d->ctx, (n ? n : 1) * sizeof *sum);
  psg_status st = names && sum ? PSG_OK : psgi_nomem(d->ctx);
  for (size_t i = 0; !st && i < n; i++) names[i] = d->stages.data[i].buffer;
  if (!st) st = psgi_sch_stage_summaries(d->ctx, f->kids[0], names, n, sum);
  bool all = true;
  for (size_t i = 0; !st && all && i < n; i++) {
    all = sum[i].found; /* a stage with no store left (never, for TE's output) */
    d->stages.data[i].output = all && psgi_sch_is_param_data(f, sum[i].data);
    d->stages.data[i].reduction = sum[i].nstores > 1;
  }
  psgi_free(d->ctx, names);
  psgi_free(d->ctx, sum);
  if (st || !all) return st;
  /* TVM's ScheduleBuilder: the op of the highest pattern, the later on a tie */
  for (size_t i = 0; i < d->stages.len; i++)
    if (d->stages.data[i].pattern >= d->stages.data[d->anchor].pattern) d->anchor = i;
  *ok = d->stages.len > 0;
  return PSG_OK;
}

static bool op_in(const char *op, const char *const *names) {
  for (; *names; names++)
    if (!strcmp(op, *names)) return true;
  return false;
}

static bool any_reduction(const psgi_dsch *d) {
  for (size_t i = 0; i < d->stages.len; i++)
    if (d->stages.data[i].reduction) return true;
  return false;
}

static psg_status run_family(psgi_dsch *d, const char **kind) {
  static const char *const matmuls[] = {"nn.dense", "nn.matmul", "nn.batch_matmul", NULL};
  static const char *const pools[] = {"nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d",
                                      "nn.global_max_pool2d", "nn.adaptive_avg_pool2d", NULL};
  static const char *const softmaxes[] = {"nn.softmax", "nn.fast_softmax", "nn.log_softmax", NULL};
  const psgi_dsch_stage *a = &d->stages.data[d->anchor];
  psg_status st;
  if (psgi_dsch_has_lane_split(d)) st = psgi_dsch_lane_split(d, kind);
  else if (op_in(a->op, matmuls)) st = psgi_dsch_matmul(d, kind);
  else if (!strcmp(a->op, "nn.conv2d")) st = psgi_dsch_conv2d(d, kind);
  else if (!strcmp(a->op, "nn.conv2d_transpose")) st = psgi_dsch_conv2d_transpose(d, kind);
  else if (op_in(a->op, pools)) st = psgi_dsch_pool(d, kind);
  else if (op_in(a->op, softmaxes)) st = psgi_dsch_softmax(d, kind);
  else if (any_reduction(d)) st = psgi_dsch_reduce(d, kind);
  else st = psgi_dsch_injective(d, kind); /* injective, or an opaque op computed elementwise */
  /* what the family left: reductions as TVM's schedule_reduce, outputs as
   * its schedule_injective */
  for (size_t i = 0; !st && i < d->stages.len; i++) {
    psgi_dsch_stage *g = &d->stages.data[i];
    if (g->done) continue;
    if (g->reduction) st = psgi_dsch_reduce_nest(d, g->buffer);
    else if (g->output) st = psgi_dsch_injective_nest(d, g->buffer);
    g->done = true;
  }
  return st;
}

/* Each primitive walks the whole function (to find its stage, to rebuild
 * it), so scheduling n stages costs about n^2: a function of more stages than this
 * (FuseOps' depth limit allows 256) keeps its naive nests, which the TIR list
 * handles in linear time. */
enum { MAX_SCHEDULED_STAGES = 64 };

static bool too_many_stages(const psg_tir_prim_func *f) {
  psg_attr *tags = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "passage.te_stages");
  return tags && psg_attr_kind(tags) == PSG_ATTR_LIST && psg_attr_list_len(tags) > MAX_SCHEDULED_STAGES;
}

psg_status psgi_default_schedule(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out,
                                 const char **kind) {
  *out = NULL;
  *kind = "naive";
  psgi_dsch d = {.ctx = ctx};
  bool ok = false, was_oom = psg_ctx_is_oom(ctx);
  size_t mark = psg_ctx_diag_count(ctx);
  psg_status st = psg_tir_schedule_create(f, &d.s);
  if (!st && !too_many_stages(f)) st = read_stages(&d, f, &ok);
  const char *k = "naive";
  if (!st && ok) {
    /* The primitives skip their check of the whole function at each step
     * (each is linear in the function: n stages made that n^2); the result
     * is checked once, and a family whose result fails it is not applied. */
    d.s->unchecked = true;
    st = run_family(&d, &k);
    if (!st && psg_tir_verify_well_formed(psg_tir_schedule_get_func(d.s)))
      st = psgi_sch_error(ctx, PSG_ERR_INTERNAL, "default_schedule", "the scheduled function is not well-formed");
    if (st && !was_oom && psg_ctx_is_oom(ctx)) st = PSG_ERR_NOMEM; /* a primitive's check failing for memory */
    if (st && st != PSG_ERR_NOMEM) { /* cannot apply: the naive nests */
      psgi_diag_truncate(ctx, mark);
      st = PSG_OK;
      k = "naive";
    }
  }
  const psg_tir_prim_func *res = !st && strcmp(k, "naive") ? psg_tir_schedule_get_func(d.s) : f;
  psg_attr *v = NULL;
  if (!st) st = psg_attr_string(ctx, k, strlen(k), &v);
  if (!st) st = psg_tir_prim_func_with_attr(res, "passage.schedule", v, out);
  if (!st) *kind = k;
  psg_attr_release(v);
  psg_tir_schedule_release(d.s);
  PSGI_VEC_FREE(ctx, &d.stages);
  return st;
}
