/* Passage — tir.LoopPartition (TVM's src/tir/transforms/loop_partition.cc,
 * config `tir.LoopPartition`), a PrimFuncPass.
 *
 * A candidate loop is a For whose body holds a T.likely condition on its
 * var (its range not constant, unless partition_const_loop), or a loop whose
 * var a true AttrStmt `pragma_loop_partition_hint` names. For a candidate,
 * every likely condition in the body (with a hint: every comparison) gets,
 * by DeduceBound over the enclosing loop ranges (inner loop vars relaxed to
 * their worst values), the interval of the var where it is true and where it
 * is false. The interval where all conditions are true (else false) splits
 * the loop into a prologue, a middle loop whose conditions are replaced by
 * their value, and an epilogue; the middle (and the others, when there are
 * two or more) is partitioned again. A part of extent 1 becomes its body
 * (unless no_unroll_loop_with_extent_one or the loop has annotations). A
 * hinted loop with no interval is made an unrolled loop when
 * unroll_loop_with_partition_hint_no_interval. Afterwards every T.likely is
 * replaced by its condition and the hints are dropped; a changed function is
 * made SSA again (the parts define the same var). Iterative throughout. */
#include <string.h>
#include "passage/tir_op.h"
#include "tir/arith/arith_internal.h"
#include "tir/arith/int_set.h"
#include "tir/transforms/tir_transforms.h"
#include "tir/transforms/stmt_slot.h"

typedef psgi_tir_loop_partition_cfg cfg;

/* A walk without memo over statements and expressions (each occurrence of a
 * shared node is reached: the selector counts var uses per occurrence). */
typedef struct walk_cb {
  int (*pre)(struct walk_cb *w, const psg_tir_node *n); /* PSG_VISIT_* */
  psg_status (*post)(struct walk_cb *w, const psg_tir_node *n);
  psg_status st; /* set by a callback that aborts */
} walk_cb;

static psg_status walk_all(psg_ctx *ctx, walk_cb *w, const psg_tir_node *root) {
  typedef struct step {
    const psg_tir_node *n;
    uint32_t next;
  } step;
  PSGI_VEC(step) stack = {0};
  psg_status st = PSG_OK;
  int r = w->pre(w, root);
  if (r == PSG_VISIT_ABORT) return w->st;
  step s0 = {root, r == PSG_VISIT_SKIP_CHILDREN ? root->nkids : 0};
  if (!PSGI_VEC_PUSH(ctx, &stack, s0)) return psgi_nomem(ctx);
  while (stack.len) {
    step *t = &stack.data[stack.len - 1];
    if (t->next >= t->n->nkids) {
      const psg_tir_node *n = t->n;
      stack.len--;
      if (w->post && (st = w->post(w, n))) break;
      continue;
    }
    const psg_tir_node *k = t->n->kids[t->next++];
    if (!k || k->kind == PSG_TIR_BUFFER || k->kind == PSG_TIR_ITER_VAR) continue;
    if (t->n->kind == PSG_TIR_FOR && k == t->n->kids[0]) continue; /* the loop var is a definition */
    r = w->pre(w, k);
    if (r == PSG_VISIT_ABORT) {
      st = w->st;
      break;
    }
    step s = {k, r == PSG_VISIT_SKIP_CHILDREN ? k->nkids : 0};
    if (!PSGI_VEC_PUSH(ctx, &stack, s)) {
      st = psgi_nomem(ctx);
      break;
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  return st;
}

static bool is_call(const psg_tir_node *n, const char *op) {
  return n->kind == PSG_TIR_CALL && strcmp(psg_tir_call_op(n), op) == 0;
}

static bool is_comparison(int k) { return k >= PSG_TIR_EQ && k <= PSG_TIR_GE; }

/* The var an AttrStmt `pragma_loop_partition_hint` names, or NULL. */
static const psg_tir_node *hint_var(const psg_tir_node *n) {
  if (n->kind != PSG_TIR_ATTR_STMT || strcmp(n->u.attr_key, "pragma_loop_partition_hint") != 0) return NULL;
  const psg_tir_node *node = psg_tir_attr_stmt_get_node(n);
  if (node && node->kind == PSG_TIR_ITER_VAR) node = node->kids[0];
  return node && psgi_tir_is_var_kind(node->kind) ? node : NULL;
}

typedef struct partitioner partitioner;

/* The candidate selector (TVM's CandidateSelector) ---------------------------- */

typedef struct record {
  const psg_tir_node *loop, *var;
  bool used;
  size_t allreduce_before;
} record;

typedef struct selector {
  walk_cb cb;
  partitioner *p;
  PSGI_VEC(record) records;
  int in_likely;
  size_t allreduce; /* tvm_thread_allreduce calls seen: no split around them */
} selector;

struct partitioner {
  psg_ctx *ctx;
  cfg c;
  psg_arith_analyzer *a;     /* the facts of the walk */
  psg_arith_analyzer *fresh; /* no facts: DeduceBound, EvalSet, hint values */
  psgi_map candidates;       /* For nodes */
  psgi_map hint_vars;        /* vars named by a true pragma_loop_partition_hint */
  PSGI_VEC(psgi_int_set_dom) hint;  /* enclosing loops: var -> [min, max] (owned sets) */
  PSGI_VEC(psgi_int_set_dom) relax; /* thread indices (none: see docs) */
};

static bool const_range(const psg_tir_node *loop) {
  return loop->kids[1]->kind == PSG_TIR_INT_IMM && loop->kids[2]->kind == PSG_TIR_INT_IMM;
}

static int select_pre(walk_cb *cb, const psg_tir_node *n) {
  selector *s = (selector *)cb;
  partitioner *p = s->p;
  if (n->kind == PSG_TIR_FOR && (!const_range(n) || p->c.partition_const_loop)) {
    if (psgi_map_get_ptr(&p->hint_vars, n->kids[0])) {
      if (!psgi_map_put_ptr(&p->candidates, n, NULL)) goto oom;
    } else {
      record r = {n, n->kids[0], false, s->allreduce};
      if (!PSGI_VEC_PUSH(p->ctx, &s->records, r)) goto oom;
    }
  } else if (n->kind == PSG_TIR_ATTR_STMT) {
    const psg_tir_node *v = hint_var(n);
    const psg_tir_node *val = n->kids[0];
    bool on = val->kind == PSG_TIR_INT_IMM ? val->u.int_value != 0 : psg_arith_can_prove(p->fresh, (psg_tir_expr *)val);
    if (v && on && !psgi_map_put_ptr(&p->hint_vars, v, NULL)) goto oom;
  } else if (n->kind == PSG_TIR_CALL) {
    if (is_call(n, "tir.likely")) s->in_likely++;
    if (is_call(n, "tir.tvm_thread_allreduce")) {
      s->allreduce++;
      return PSG_VISIT_SKIP_CHILDREN;
    }
  } else if (psgi_tir_is_var_kind(n->kind) && s->in_likely) {
    for (size_t i = s->records.len; i-- > 0;)
      if (s->records.data[i].var == n) {
        s->records.data[i].used = true;
        break;
      }
  }
  return PSG_VISIT_CONTINUE;
oom:
  cb->st = psgi_nomem(p->ctx);
  return PSG_VISIT_ABORT;
}

static psg_status select_post(walk_cb *cb, const psg_tir_node *n) {
  selector *s = (selector *)cb;
  if (n->kind == PSG_TIR_CALL && is_call(n, "tir.likely")) s->in_likely--;
  if (n->kind == PSG_TIR_FOR && s->records.len && s->records.data[s->records.len - 1].loop == n) {
    record r = s->records.data[--s->records.len];
    if (r.used && r.allreduce_before == s->allreduce && !psgi_map_put_ptr(&s->p->candidates, n, NULL))
      return psgi_nomem(s->p->ctx);
  }
  return PSG_OK;
}

/* TVM's selector(stmt): adds the candidates of stmt. */
static psg_status select_candidates(partitioner *p, const psg_tir_node *stmt) {
  selector s = {.cb = {.pre = select_pre, .post = select_post}, .p = p};
  psg_status st = walk_all(p->ctx, &s.cb, stmt);
  PSGI_VEC_FREE(p->ctx, &s.records);
  return st;
}

/* The partition finder (TVM's PartitionFinder) ---------------------------------- */

typedef struct partition {
  psg_tir_expr *cond; /* borrowed from the body */
  bool value;
  psgi_int_set set; /* owned */
} partition;

typedef struct finder {
  walk_cb cb;
  partitioner *p;
  psg_tir_expr *var;
  bool has_hint;
  size_t nouter;       /* hint[0..nouter) and relax[0..nrelax_outer): the out vars */
  size_t nrelax_outer;
  PSGI_VEC(psgi_int_set_dom) hint, relax; /* sets owned from index nouter / nrelax_outer */
  PSGI_VEC(const psg_tir_node *) loops;  /* the loops whose vars were pushed */
  PSGI_VEC(partition) parts;
} finder;

static bool is_out_var(const psg_tir_node *v, void *user) {
  finder *f = user;
  for (size_t i = 0; i < f->nouter; i++)
    if (f->hint.data[i].var == v) return true;
  for (size_t i = 0; i < f->nrelax_outer; i++)
    if (f->relax.data[i].var == v) return true;
  return false;
}

static bool is_the_var(const psg_tir_node *v, void *user) { return v == user; }

/* The inverse comparison (a < b -> a >= b ...). */
static psg_status inverse(psg_ctx *ctx, psg_tir_expr *c, psg_tir_expr **out) {
  static const int inv[] = {[PSG_TIR_EQ] = PSG_TIR_NE, [PSG_TIR_NE] = PSG_TIR_EQ, [PSG_TIR_LT] = PSG_TIR_GE,
                            [PSG_TIR_LE] = PSG_TIR_GT, [PSG_TIR_GT] = PSG_TIR_LE, [PSG_TIR_GE] = PSG_TIR_LT};
  *out = NULL;
  if (!is_comparison(c->kind)) return PSG_OK;
  return psg_tir_binary_create(ctx, inv[c->kind], c->kids[0], c->kids[1], NULL, out);
}

static psg_status record_partition(finder *f, psg_tir_expr *cond, bool value, psgi_int_set set) {
  for (size_t i = 0; i < f->parts.len; i++)
    if (f->parts.data[i].cond == cond && f->parts.data[i].value == value) {
      psgi_int_set_release(&f->parts.data[i].set);
      f->parts.data[i].set = set;
      return PSG_OK;
    }
  partition pt = {cond, value, set};
  if (PSGI_VEC_PUSH(f->p->ctx, &f->parts, pt)) return PSG_OK;
  psgi_int_set_release(&set);
  return psgi_nomem(f->p->ctx);
}

static psg_status deduce_condition(finder *f, psg_tir_expr *cond) {
  partitioner *p = f->p;
  bool uses = false;
  psg_status st = psgi_int_set_uses_var(p->ctx, cond, is_the_var, f->var, &uses);
  if (st || !uses) return st;
  psgi_int_set s = {0};
  st = psgi_int_set_deduce_bound(p->fresh, f->var, cond, f->hint.data, f->hint.len, f->relax.data, f->relax.len, &s);
  if (!st && !s.empty) st = record_partition(f, cond, true, s);
  psg_tir_expr *inv = NULL;
  if (!st) st = inverse(p->ctx, cond, &inv);
  if (!st && inv) {
    psgi_int_set t = {0};
    st = psgi_int_set_deduce_bound(p->fresh, f->var, inv, f->hint.data, f->hint.len, f->relax.data, f->relax.len,
                                   &t);
    if (!st && !t.empty) st = record_partition(f, cond, false, t);
  }
  psg_tir_release(inv);
  return st;
}

static psg_status push_dom(psg_ctx *ctx, void *vec, const psg_tir_node *var, psgi_int_set s) {
  PSGI_VEC(psgi_int_set_dom) *v = vec;
  psgi_int_set_dom d = {var, s};
  if (PSGI_VEC_PUSH(ctx, v, d)) return PSG_OK;
  psgi_int_set_release(&s);
  return psgi_nomem(ctx);
}

/* [min, min + extent - 1] of a loop (TVM builds it with its operators). */
static psg_status loop_interval(psg_ctx *ctx, const psg_tir_node *loop, psgi_int_set *out) {
  psg_tir_expr *one = NULL, *last = NULL, *hi = NULL;
  psg_status st = psg_tir_op_binary(ctx, PSG_TIR_ADD, loop->kids[1], loop->kids[2], NULL, &last);
  if (!st) st = psg_tir_make_const_int(ctx, last->dtype, 1, NULL, &one);
  if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_SUB, last, one, NULL, &hi);
  if (!st) *out = psgi_int_set_interval(loop->kids[1], hi);
  psg_tir_release(one);
  psg_tir_release(last);
  psg_tir_release(hi);
  return st;
}

static int find_pre(walk_cb *cb, const psg_tir_node *n) {
  finder *f = (finder *)cb;
  psg_ctx *ctx = f->p->ctx;
  psg_status st = PSG_OK;
  if (n->kind == PSG_TIR_FOR) {
    bool u1 = false, u2 = false;
    st = psgi_int_set_uses_var(ctx, n->kids[1], is_out_var, f, &u1);
    if (!st) st = psgi_int_set_uses_var(ctx, n->kids[2], is_out_var, f, &u2);
    if (st) goto fail;
    if (u1 || u2) return PSG_VISIT_SKIP_CHILDREN;
    psgi_int_set s = {0}, s2;
    if ((st = loop_interval(ctx, n, &s))) goto fail;
    s2 = psgi_int_set_interval(s.min, s.max);
    if ((st = push_dom(ctx, &f->hint, n->kids[0], s)) || (st = push_dom(ctx, &f->relax, n->kids[0], s2))) goto fail;
    if (!PSGI_VEC_PUSH(ctx, &f->loops, n)) {
      st = psgi_nomem(ctx);
      goto fail;
    }
    return PSG_VISIT_CONTINUE;
  }
  if (is_call(n, "tir.likely") && n->nkids == 1) {
    if ((st = deduce_condition(f, n->kids[0]))) goto fail;
    return PSG_VISIT_SKIP_CHILDREN;
  }
  if (f->has_hint && is_comparison(n->kind)) {
    if ((st = deduce_condition(f, (psg_tir_expr *)n))) goto fail;
    return PSG_VISIT_SKIP_CHILDREN;
  }
  return PSG_VISIT_CONTINUE;
fail:
  cb->st = st;
  return PSG_VISIT_ABORT;
}

static psg_status find_post(walk_cb *cb, const psg_tir_node *n) {
  finder *f = (finder *)cb;
  if (n->kind == PSG_TIR_FOR && f->loops.len && f->loops.data[f->loops.len - 1] == n) {
    f->loops.len--;
    psgi_int_set_release(&f->hint.data[--f->hint.len].set);
    psgi_int_set_release(&f->relax.data[--f->relax.len].set);
  }
  return PSG_OK;
}

static void finder_fini(finder *f) {
  for (size_t i = f->nouter; i < f->hint.len; i++) psgi_int_set_release(&f->hint.data[i].set);
  for (size_t i = f->nrelax_outer; i < f->relax.len; i++) psgi_int_set_release(&f->relax.data[i].set);
  for (size_t i = 0; i < f->parts.len; i++) psgi_int_set_release(&f->parts.data[i].set);
  PSGI_VEC_FREE(f->p->ctx, &f->hint);
  PSGI_VEC_FREE(f->p->ctx, &f->relax);
  PSGI_VEC_FREE(f->p->ctx, &f->loops);
  PSGI_VEC_FREE(f->p->ctx, &f->parts);
}

/* The partitions of `body` for var in [min, max] (TVM's PartitionFinder,
 * with var's own interval among the hints). */
static psg_status find_partitions(partitioner *p, finder *f, psg_tir_expr *var, const psgi_int_set *range,
                                  const psg_tir_node *body) {
  *f = (finder){.cb = {.pre = find_pre, .post = find_post}, .p = p, .var = var};
  f->has_hint = psgi_map_get_ptr(&p->hint_vars, var) != NULL;
  psg_status st = PSG_OK;
  for (size_t i = 0; i < p->hint.len && !st; i++)
    if (!PSGI_VEC_PUSH(p->ctx, &f->hint, p->hint.data[i])) st = psgi_nomem(p->ctx);
  for (size_t i = 0; i < p->relax.len && !st; i++)
    if (!PSGI_VEC_PUSH(p->ctx, &f->relax, p->relax.data[i])) st = psgi_nomem(p->ctx);
  psgi_int_set_dom d = {var, *range};
  if (!st && !PSGI_VEC_PUSH(p->ctx, &f->hint, d)) st = psgi_nomem(p->ctx);
  f->nouter = f->hint.len; /* borrowed up to here */
  f->nrelax_outer = f->relax.len;
  if (!st) st = walk_all(p->ctx, &f->cb, body);
  return st;
}

/* Rewrites ---------------------------------------------------------------------- */

/* ConditionEliminator: every node of `conds` replaced by value. */
typedef struct eliminator {
  const finder *f;
  const bool *chosen; /* per partition: in the cond set */
  psg_tir_expr *value;
} eliminator;

static psg_status eliminate_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  eliminator *e = m->user;
  for (size_t i = 0; i < e->f->parts.len; i++)
    if (e->chosen[i] && e->f->parts.data[i].cond == n) {
      psg_tir_retain(*replacement = e->value);
      return PSG_OK;
    }
  return PSG_OK;
}

static psg_status eliminate(partitioner *p, const finder *f, const bool *chosen, bool value, psg_tir_node *body,
                            psg_tir_node **out) {
  eliminator e = {f, chosen, NULL};
  psg_status st = psg_tir_int_imm_create(p->ctx, psg_tir_dtype_bool(), value, NULL, &e.value);
  if (st) return st;
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, p->ctx);
  m.pre = eliminate_pre;
  m.user = &e;
  st = psg_tir_mutate(&m, body, out);
  psg_tir_mutator_fini(&m);
  psg_tir_release(e.value);
  return st;
}

/* body with var replaced by var + offset. */
static psg_status shift(partitioner *p, psg_tir_node *body, psg_tir_expr *var, psg_tir_expr *offset, psg_tir_node **out) {
  psg_tir_expr *v = NULL;
  psg_status st = psg_tir_op_binary(p->ctx, PSG_TIR_ADD, var, offset, NULL, &v);
  if (!st) st = psgi_tir_substitute(p->ctx, body, var, v, out);
  psg_tir_release(v);
  return st;
}

static bool prove2(partitioner *p, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  psg_tir_expr *c = NULL;
  bool r = psg_tir_op_binary(p->ctx, kind, x, y, NULL, &c) == PSG_OK && psg_arith_can_prove(p->a, c);
  psg_tir_release(c);
  return r;
}

static bool prove_const(partitioner *p, int kind, psg_tir_expr *x, int64_t v) {
  psg_tir_expr *c = NULL;
  bool r = psg_tir_make_const_int(p->ctx, x->dtype, v, NULL, &c) == PSG_OK && prove2(p, kind, x, c);
  psg_tir_release(c);
  return r;
}

/* TVM's MakeFor: a loop like `loop` over [0, extent), or its body with the
 * var at 0 when the extent is 1 (no annotations, not
 * no_unroll_loop_with_extent_one). */
static psg_status make_for(partitioner *p, const psg_tir_node *loop, psg_tir_expr *extent, psg_tir_node *body,
                           psg_tir_node **out) {
  psg_tir_expr *zero = NULL;
  psg_status st = psg_tir_make_const_int(p->ctx, loop->kids[0]->dtype, 0, NULL, &zero);
  if (st) return st;
  if (prove_const(p, PSG_TIR_EQ, extent, 1) && !p->c.no_unroll_loop_with_extent_one &&
      psg_attrs_count(loop->u.loop.annotations) == 0) {
    st = psgi_tir_substitute(p->ctx, body, loop->kids[0], zero, out);
  } else {
    psg_tir_expr *z = NULL;
    st = psg_tir_make_const_int(p->ctx, loop->kids[1]->dtype, 0, NULL, &z);
    psg_tir_expr *ext = NULL;
    if (!st) st = psg_tir_op_cast(p->ctx, loop->kids[1]->dtype, extent, NULL, &ext);
    if (!st)
      st = psg_tir_for_create(p->ctx, loop->kids[0], z, ext, loop->u.loop.kind, body, loop->u.loop.annotations,
                              &loop->span, out);
    psg_tir_release(z);
    psg_tir_release(ext);
  }
  psg_tir_release(zero);
  return st;
}

/* What TryPartition decided for one loop. */
typedef struct plan {
  int kind;                /* PLAN_NONE, PLAN_KEEP (the loop as it is), PLAN_PARTS, PLAN_UNROLL */
  psg_tir_node *parts[3];  /* pre, middle, post (owned, may be NULL) */
  bool recurse[3];
  psg_tir_expr *extent;    /* PLAN_UNROLL: max - min + 1 (owned) */
} plan;
enum { PLAN_NONE, PLAN_KEEP, PLAN_PARTS, PLAN_UNROLL };

static void plan_fini(plan *pl) {
  for (int i = 0; i < 3; i++) psg_tir_release(pl->parts[i]);
  psg_tir_release(pl->extent);
}

/* TVM's GetIntervalAndCondset for one cond value. */
static psg_status interval_and_conds(partitioner *p, const finder *f, const psgi_int_set *for_iv, bool value,
                                     bool *chosen, psgi_int_set *out) {
  *out = (psgi_int_set){.empty = true};
  psg_status st = PSG_OK;
  bool any = false;
  psgi_int_set acc = {0};
  for (size_t i = 0; i < f->parts.len && !st; i++) {
    chosen[i] = false;
    const partition *pt = &f->parts.data[i];
    if (pt->value != value) continue;
    psgi_int_set x = {0};
    st = psgi_int_set_intersect(p->a, &pt->set, for_iv, true, &x);
    bool nonempty = !st && !x.empty;
    psgi_int_set_release(&x);
    if (!nonempty) continue;
    chosen[i] = true;
    if (!any) {
      acc = psgi_int_set_interval(pt->set.min, pt->set.max);
      any = true;
    } else {
      psgi_int_set y = {0};
      st = psgi_int_set_intersect(p->fresh, &acc, &pt->set, true, &y); /* TVM's Intersect(Array) */
      psgi_int_set_release(&acc);
      acc = y;
    }
  }
  if (st) {
    psgi_int_set_release(&acc);
    return st;
  }
  if (any && !acc.empty) {
    psg_tir_expr *lo = NULL, *hi = NULL;
    if (acc.min) st = psg_arith_simplify(p->fresh, acc.min, &lo);
    if (!st && acc.max) st = psg_arith_simplify(p->fresh, acc.max, &hi);
    psgi_int_set_release(&acc);
    *out = (psgi_int_set){.min = lo, .max = hi};
    return st;
  }
  psgi_int_set_release(&acc);
  if (!f->has_hint) return PSG_OK;
  /* With a hint: the conditions one by one while their intersection is not
   * empty (the cond set starts again). */
  for (size_t i = 0; i < f->parts.len; i++) chosen[i] = false;
  psgi_int_set ci = {0};
  for (size_t i = 0; i < f->parts.len && !st; i++) {
    const partition *pt = &f->parts.data[i];
    if (pt->value != value) continue;
    psgi_int_set x = {0};
    st = psgi_int_set_intersect(p->a, &pt->set, for_iv, true, &x);
    bool nonempty = !st && !x.empty;
    psgi_int_set_release(&x);
    if (!nonempty) continue;
    psgi_int_set y = {0};
    if (!st) st = psgi_int_set_intersect(p->a, &ci, &pt->set, true, &y);
    if (st) break;
    psgi_int_set_release(&ci);
    ci = y;
    if (ci.empty) break;
    chosen[i] = true;
    psgi_int_set_release(out);
    psg_tir_expr *lo = NULL, *hi = NULL;
    if (ci.min) st = psg_arith_simplify(p->a, ci.min, &lo);
    if (!st && ci.max) st = psg_arith_simplify(p->a, ci.max, &hi);
    *out = (psgi_int_set){.min = lo, .max = hi};
  }
  psgi_int_set_release(&ci);
  return st;
}

/* Not in TVM: the middle part must not start past the loop's end (else
 * the prologue would run past it); *begin = min(*begin, max + 1) unless
 * provably within. */
static psg_status clamp_to_end(partitioner *p, psg_tir_expr **begin, psg_tir_expr *max, bool *recurse) {
  psg_tir_expr *one = NULL, *end = NULL, *b2 = NULL;
  psg_status st = psg_tir_make_const_int(p->ctx, max->dtype, 1, NULL, &one);
  if (!st) st = psg_tir_op_binary(p->ctx, PSG_TIR_ADD, max, one, NULL, &end);
  if (!st && !prove2(p, PSG_TIR_LE, *begin, end)) {
    st = psg_tir_op_binary(p->ctx, PSG_TIR_MIN, *begin, end, NULL, &b2);
    if (!st) {
      psg_tir_release(*begin);
      *begin = b2;
      *recurse = false;
    }
  }
  psg_tir_release(one);
  psg_tir_release(end);
  return st;
}

/* Whether x >= begin or x >= max + 1 is proved. */
static bool starts_late(partitioner *p, psg_tir_expr *x, psg_tir_expr *begin, psg_tir_expr *end) {
  return psg_arith_can_prove_equal(p->a, x, end) || prove2(p, PSG_TIR_GE, x, begin) || prove2(p, PSG_TIR_GE, x, end);
}

/* Whether the epilogue, from post_begin to max, provably starts at or
 * after the middle's begin or does not run (post_begin >= min(begin,
 * max + 1)); a post_begin min(a, b) (TVM's clamp) is taken apart. */
static bool post_after_middle(partitioner *p, psg_tir_expr *post_begin, psg_tir_expr *begin, psg_tir_expr *max) {
  psg_tir_expr *one = NULL, *end = NULL;
  bool r = false;
  if (psg_tir_make_const_int(p->ctx, max->dtype, 1, NULL, &one) == PSG_OK &&
      psg_tir_op_binary(p->ctx, PSG_TIR_ADD, max, one, NULL, &end) == PSG_OK) {
    r = starts_late(p, post_begin, begin, end) ||
        (post_begin->kind == PSG_TIR_MIN && starts_late(p, post_begin->kids[0], begin, end) &&
         starts_late(p, post_begin->kids[1], begin, end));
  }
  psg_tir_release(one);
  psg_tir_release(end);
  return r;
}

/* TVM's TryPartition of loop (var in [min, max], already bound in p->a). */
static psg_status try_partition(partitioner *p, const psg_tir_node *loop, plan *pl) {
  psg_ctx *ctx = p->ctx;
  *pl = (plan){.kind = PLAN_NONE};
  psg_tir_expr *var = loop->kids[0], *min = loop->kids[1];
  psgi_int_set for_iv = {0};
  psg_status st = loop_interval(ctx, loop, &for_iv);
  if (st) return st;
  psg_tir_expr *max = for_iv.max;
  finder f;
  st = find_partitions(p, &f, var, &for_iv, loop->kids[3]);
  bool *chosen = NULL;
  if (!st && f.parts.len && !(chosen = psgi_calloc(ctx, f.parts.len * sizeof *chosen))) st = psgi_nomem(ctx);
  psgi_int_set mid = {.empty = true};
  bool value = true, decided = false;
  if (!st && f.parts.len) {
    st = interval_and_conds(p, &f, &for_iv, true, chosen, &mid);
    decided = !st && !mid.empty;
    if (!st && !decided) {
      value = false;
      st = interval_and_conds(p, &f, &for_iv, false, chosen, &mid);
      decided = !st && !mid.empty;
    }
    if (!st && !decided) {
      /* Every partition a single point outside the loop: the loop is kept as it is. */
      bool outside = true;
      for (size_t i = 0; i < f.parts.len && outside; i++) {
        const psgi_int_set *s = &f.parts.data[i].set;
        outside = psgi_int_set_is_point(s) &&
                  !(prove2(p, PSG_TIR_GE, s->min, for_iv.min) && prove2(p, PSG_TIR_LE, s->min, for_iv.max));
      }
      if (outside) {
        pl->kind = PLAN_KEEP;
      } else if (f.has_hint && p->c.unroll_loop_with_partition_hint_no_interval) {
        psg_tir_expr *d = NULL;
        st = psg_tir_op_binary(ctx, PSG_TIR_SUB, max, min, NULL, &d);
        if (!st && prove_const(p, PSG_TIR_GT, d, 0)) {
          pl->kind = PLAN_UNROLL;
          pl->recurse[1] = true;
          psg_tir_retain(pl->parts[1] = loop->kids[3]);
          psg_tir_expr *one = NULL;
          st = psg_tir_make_const_int(ctx, d->dtype, 1, NULL, &one);
          if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_ADD, d, one, NULL, &pl->extent);
          psg_tir_release(one);
        }
        psg_tir_release(d);
      }
    }
  }
  if (!st && decided) {
    pl->kind = PLAN_PARTS;
    psg_tir_node *body = loop->kids[3];
    /* pre: [min, body_begin) */
    psg_tir_expr *begin = NULL, *post_begin = NULL;
    bool pre_rec = true, post_rec = true;
    if (mid.min) {
      st = psg_arith_simplify(p->a, mid.min, &begin);
      if (!st && !prove2(p, PSG_TIR_EQ, begin, min)) {
        psg_tir_expr *ext0 = NULL, *ext = NULL;
        st = psg_tir_op_binary(ctx, PSG_TIR_SUB, begin, min, NULL, &ext0);
        if (!st) st = psg_arith_simplify(p->a, ext0, &ext);
        psg_tir_release(ext0);
        if (!st && !prove_const(p, PSG_TIR_GT, ext, 0)) {
          psg_tir_expr *b2 = NULL;
          st = psg_tir_op_binary(ctx, PSG_TIR_MAX, begin, min, NULL, &b2);
          psg_tir_release(begin);
          begin = b2;
          pre_rec = false;
        }
        if (!st) st = clamp_to_end(p, &begin, max, &pre_rec);
        if (!st && !prove_const(p, PSG_TIR_LE, ext, 0)) {
          psg_tir_node *b = NULL;
          psg_tir_expr *len = NULL;
          st = shift(p, body, var, min, &b);
          if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_SUB, begin, min, NULL, &len);
          if (!st) st = make_for(p, loop, len, b, &pl->parts[0]);
          psg_tir_release(b);
          psg_tir_release(len);
        }
        psg_tir_release(ext);
      }
    } else {
      psg_tir_retain(begin = min);
    }
    /* post: [post_begin, max + 1) */
    if (!st && mid.max) {
      psg_tir_expr *one = NULL, *pb0 = NULL;
      st = psg_tir_make_const_int(ctx, mid.max->dtype, 1, NULL, &one);
      if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_ADD, mid.max, one, NULL, &pb0);
      if (!st) st = psg_arith_simplify(p->a, pb0, &post_begin);
      psg_tir_release(pb0);
      if (!st && !prove2(p, PSG_TIR_EQ, mid.max, max)) {
        psg_tir_expr *e0 = NULL, *e1 = NULL, *ext = NULL;
        st = psg_tir_op_binary(ctx, PSG_TIR_SUB, max, post_begin, NULL, &e0);
        if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_ADD, e0, one, NULL, &e1);
        if (!st) st = psg_arith_simplify(p->a, e1, &ext);
        if (!st && !prove_const(p, PSG_TIR_GT, ext, 0)) {
          psg_tir_expr *m1 = NULL, *b2 = NULL;
          st = psg_tir_op_binary(ctx, PSG_TIR_ADD, max, one, NULL, &m1);
          if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_MIN, post_begin, m1, NULL, &b2);
          psg_tir_release(m1);
          psg_tir_release(post_begin);
          post_begin = b2;
          post_rec = false;
        }
        if (!st && !post_after_middle(p, post_begin, begin, max)) {
          /* Not in TVM: the post part must not start before the middle one
           * (else they overlap); its extent is then counted from there. */
          psg_tir_expr *b2 = NULL, *m1 = NULL;
          st = psg_tir_op_binary(ctx, PSG_TIR_MAX, post_begin, begin, NULL, &b2);
          psg_tir_release(post_begin);
          post_begin = b2;
          post_rec = false;
          if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_ADD, max, one, NULL, &m1);
          psg_tir_release(ext);
          ext = NULL;
          if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_SUB, m1, post_begin, NULL, &ext);
          psg_tir_release(m1);
        }
        if (!st && !prove_const(p, PSG_TIR_LE, ext, 0)) {
          psg_tir_node *b = NULL;
          st = shift(p, body, var, post_begin, &b);
          if (!st) st = make_for(p, loop, ext, b, &pl->parts[2]);
          psg_tir_release(b);
        }
        psg_tir_release(e0);
        psg_tir_release(e1);
        psg_tir_release(ext);
      }
      psg_tir_release(one);
    } else if (!st) {
      st = psg_tir_make_const_int(ctx, max->dtype, 1, NULL, &post_begin);
      psg_tir_expr *pb = NULL;
      if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_ADD, max, post_begin, NULL, &pb);
      psg_tir_release(post_begin);
      post_begin = pb;
    }
    /* middle: [body_begin, post_begin) with the conditions decided */
    if (!st && !prove2(p, PSG_TIR_GE, begin, post_begin)) {
      psg_tir_node *simplified = NULL, *b = NULL;
      psg_tir_expr *len = NULL;
      st = eliminate(p, &f, chosen, value, body, &simplified);
      if (!st) st = shift(p, simplified, var, begin, &b);
      if (!st) st = psg_tir_op_binary(ctx, PSG_TIR_SUB, post_begin, begin, NULL, &len);
      if (!st) st = make_for(p, loop, len, b, &pl->parts[1]);
      psg_tir_release(simplified);
      psg_tir_release(b);
      psg_tir_release(len);
      pl->recurse[1] = true;
      bool two = pl->parts[0] || pl->parts[2];
      pl->recurse[0] = two && pre_rec;
      pl->recurse[2] = two && post_rec;
    } else if (!st) {
      /* TVM recurses into nothing when there is no middle. */
    }
    psg_tir_release(begin);
    psg_tir_release(post_begin);
  }
  if (st) plan_fini(pl), *pl = (plan){.kind = PLAN_NONE};
  psgi_free(ctx, chosen);
  psgi_int_set_release(&mid);
  psgi_int_set_release(&for_iv);
  finder_fini(&f);
  return st;
}

/* The walk (TVM's LoopPartitioner, a statement mutator) ------------------------ */

typedef struct frame {
  const psg_tir_node *n;
  bool parts;          /* a partitioned loop: its plan's parts in turn */
  bool hinted;         /* pushed n's range on p->hint */
  uint32_t next;
  size_t results_base; /* its rewritten children start here */
  psg_arith_scope scope;
  plan pl;
} frame;

typedef struct walker {
  partitioner *p;
  PSGI_VEC(frame) stack;
  PSGI_VEC(psg_tir_node *) results; /* owned */
} walker;

static psg_status push_result(walker *w, psg_tir_node *r) {
  if (PSGI_VEC_PUSH(w->p->ctx, &w->results, r)) return PSG_OK;
  psg_tir_release(r);
  return psgi_nomem(w->p->ctx);
}

static psg_status enter(walker *w, const psg_tir_node *n) {
  partitioner *p = w->p;
  frame f = {.n = n, .results_base = w->results.len};
  f.scope.nfacts = p->a->facts.len;
  f.scope.nknown = p->a->known.len;
  psg_status st = PSG_OK;
  if (n->kind == PSG_TIR_FOR) {
    st = psg_arith_bind(p->a, n->kids[0], n->kids[1], n->kids[2]);
    if (!st && psgi_map_get_ptr(&p->candidates, n)) st = try_partition(p, n, &f.pl);
    if (st) return st;
    if (f.pl.kind == PLAN_KEEP) {
      psg_arith_exit_constraint(p->a, &f.scope);
      psg_tir_retain((psg_tir_node *)n);
      return push_result(w, (psg_tir_node *)n);
    }
    f.parts = f.pl.kind != PLAN_NONE;
    if (!f.parts) {
      psgi_int_set s = {0};
      st = loop_interval(p->ctx, n, &s);
      if (!st) st = push_dom(p->ctx, &p->hint, n->kids[0], s);
      if (st) return st;
      f.hinted = true;
    }
  }
  if (PSGI_VEC_PUSH(p->ctx, &w->stack, f)) return PSG_OK;
  plan_fini(&f.pl);
  return psgi_nomem(p->ctx);
}


/* Frame f is complete: its rewrite from its children's. */
static psg_status finish(walker *w, frame *f, psg_tir_node **out) {
  partitioner *p = w->p;
  const psg_tir_node *n = f->n;
  psg_tir_node **kids = (w->results.data ? w->results.data + f->results_base : NULL);
  size_t nres = w->results.len - f->results_base;
  if (f->parts && f->pl.kind == PLAN_UNROLL)
    return psg_tir_for_create(p->ctx, n->kids[0], n->kids[1], f->pl.extent, PSG_TIR_FOR_UNROLLED, kids[0], NULL,
                              &n->span, out);
  if (f->parts) return psgi_tir_seq_flatten(p->ctx, kids, nres, &n->span, out);
  bool changed = false;
  for (size_t k = 0; k < nres; k++) changed |= kids[k] != n->kids[psgi_tir_stmt_slot(n, (uint32_t)k)];
  if (!changed) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  psg_tir_node *small[8], **all = small;
  if (n->nkids > 8 && !(all = psgi_alloc(p->ctx, n->nkids * sizeof *all))) return psgi_nomem(p->ctx);
  memcpy(all, n->kids, n->nkids * sizeof *all);
  for (size_t k = 0; k < nres; k++) all[psgi_tir_stmt_slot(n, (uint32_t)k)] = kids[k];
  psg_status st = psgi_tir_rebuild(n, all, out);
  if (all != small) psgi_free(p->ctx, all);
  return st;
}

/* The next child of the top frame entered (*entered), or none left. */
static psg_status step(walker *w, frame *f, bool *entered) {
  *entered = false;
  if (!f->parts) {
    int slot = psgi_tir_stmt_slot(f->n, f->next);
    if (slot < 0) return PSG_OK;
    f->next++;
    *entered = true;
    return enter(w, f->n->kids[slot]);
  }
  while (f->next < 3) {
    uint32_t i = f->next++;
    psg_tir_node *part = f->pl.parts[i];
    if (!part) continue;
    if (!f->pl.recurse[i]) {
      psg_tir_retain(part);
      psg_status st = push_result(w, part);
      if (st) return st;
      continue;
    }
    /* TVM's VisitAndMutate: the part's candidates, then the part. */
    psg_status st = select_candidates(w->p, part);
    if (st) return st;
    *entered = true;
    return enter(w, part);
  }
  return PSG_OK;
}

static psg_status walk(walker *w, const psg_tir_node *root, psg_tir_node **out) {
  partitioner *p = w->p;
  psg_status st = select_candidates(p, root);
  if (!st) st = enter(w, root);
  while (!st && w->stack.len) {
    frame *f = &w->stack.data[w->stack.len - 1];
    bool entered;
    st = step(w, f, &entered);
    if (st || entered) continue;
    psg_tir_node *r = NULL;
    st = finish(w, f, &r);
    for (size_t i = f->results_base; i < w->results.len; i++) psg_tir_release(w->results.data[i]);
    w->results.len = f->results_base;
    psg_arith_exit_constraint(p->a, &f->scope);
    if (f->hinted) psgi_int_set_release(&p->hint.data[--p->hint.len].set);
    plan_fini(&f->pl);
    w->stack.len--;
    if (!st) st = push_result(w, r);
  }
  while (w->stack.len) { /* after an error */
    frame *f = &w->stack.data[--w->stack.len];
    if (f->hinted) psgi_int_set_release(&p->hint.data[--p->hint.len].set);
    plan_fini(&f->pl);
  }
  if (!st && w->results.len == 1) {
    *out = w->results.data[0];
    w->results.len = 0;
  }
  for (size_t i = 0; i < w->results.len; i++) psg_tir_release(w->results.data[i]);
  w->results.len = 0;
  return st;
}

/* TVM's RemoveLikelyTagsAndHints. */
static psg_status strip_likely(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  if (is_call(n, "tir.likely") && n->nkids == 1) {
    psg_tir_retain(*out = psg_tir_mutator_get_result(m, n->kids[0]));
    return PSG_OK;
  }
  return psg_tir_mutator_default(m, n, out);
}

static psg_status strip_hint(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  if (hint_var(n) || (n->kind == PSG_TIR_ATTR_STMT && strcmp(n->u.attr_key, "pragma_loop_partition_hint") == 0)) {
    psg_tir_retain(*out = psg_tir_mutator_get_result(m, n->kids[1]));
    return PSG_OK;
  }
  return psg_tir_mutator_default(m, n, out);
}

psg_status psgi_tir_loop_partition(psg_ctx *ctx, const psg_tir_prim_func *f, const psgi_tir_loop_partition_cfg *c,
                                   psg_tir_prim_func **out) {
  *out = NULL;
  partitioner p = {.ctx = ctx, .c = *c};
  psgi_map_init(&p.candidates, ctx);
  psgi_map_init(&p.hint_vars, ctx);
  walker w = {.p = &p};
  psg_status st = psg_arith_analyzer_create(ctx, &p.a);
  if (!st) st = psg_arith_analyzer_create(ctx, &p.fresh);
  psg_tir_node *body = NULL, *stripped = NULL;
  if (!st) st = walk(&w, f->kids[0], &body);
  if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.visit[PSG_TIR_CALL] = strip_likely;
    m.visit[PSG_TIR_ATTR_STMT] = strip_hint;
    st = psg_tir_mutate(&m, body, &stripped);
    psg_tir_mutator_fini(&m);
  }
  if (!st && stripped == f->kids[0]) {
    psg_tir_retain(*out = (psg_tir_node *)f);
  } else if (!st) {
    psg_tir_node *changed = NULL;
    st = psgi_tir_func_with_body(ctx, f, stripped, &changed);
    if (!st) st = psgi_tir_convert_ssa_func(ctx, changed, out);
    psg_tir_release(changed);
  }
  psg_tir_release(body);
  psg_tir_release(stripped);
  for (size_t i = 0; i < p.hint.len; i++) psgi_int_set_release(&p.hint.data[i].set);
  PSGI_VEC_FREE(ctx, &p.hint);
  PSGI_VEC_FREE(ctx, &p.relax);
  PSGI_VEC_FREE(ctx, &w.stack);
  PSGI_VEC_FREE(ctx, &w.results);
  psgi_map_fini(&p.candidates);
  psgi_map_fini(&p.hint_vars);
  psg_arith_analyzer_destroy(p.a);
  psg_arith_analyzer_destroy(p.fresh);
  return st;
}

static void read_cfg(psg_pass_context *pc, cfg *c) {
  *c = (cfg){false, false, false};
  psg_attr *d = psg_pass_context_get_config(pc, "tir.LoopPartition");
  psg_attrs *fields = d ? psg_attr_get_dict(d) : NULL;
  psg_attr *v;
  if ((v = psg_attrs_get(fields, "partition_const_loop"))) c->partition_const_loop = psg_attr_get_bool(v);
  if ((v = psg_attrs_get(fields, "no_unroll_loop_with_extent_one")))
    c->no_unroll_loop_with_extent_one = psg_attr_get_bool(v);
  if ((v = psg_attrs_get(fields, "unroll_loop_with_partition_hint_no_interval")))
    c->unroll_loop_with_partition_hint_no_interval = psg_attr_get_bool(v);
}

static psg_status loop_partition_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                      psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  cfg c;
  read_cfg(pc, &c);
  return psgi_tir_loop_partition(psg_pass_context_get_ctx(pc), f, &c, out);
}

const psg_pass_decl psgi_pass_tir_loop_partition = {
    .name = "tir.LoopPartition",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "split loops at the bounds where their likely conditions are known (config tir.LoopPartition: "
            "partition_const_loop, no_unroll_loop_with_extent_one, unroll_loop_with_partition_hint_no_interval)",
    .prim_func = loop_partition_pass,
    .cacheable = true,
};
