/* Passage — known buffer values (known_values.h): the facts live in an
 * arena and never change; a state is the list of live fact ids, so that the
 * join after an `if` is a comparison of ids. Every bound below keeps the
 * cost linear in the size of the function: at most MAX_LIVE live facts, at
 * most MAX_CONJ conditions per fact, MAX_TRIES facts tried per load. */
#include <stdio.h>

#include "tir/transforms/known_values.h"
#include "tir/arith/arith_internal.h"

enum { MAX_LIVE = 64, MAX_CONJ = 16, MAX_TRIES = 32 };

typedef struct fact {
  psg_tir_buffer *buf; /* retained */
  psg_tir_expr *value; /* retained, scalar */
  psg_tir_expr **conj; /* each retained */
  uint32_t nconj;
} fact;

typedef struct axis {
  size_t dim;
  psg_tir_dtype dtype;
  psg_tir_expr *var; /* retained */
} axis;

/* A buffer a loop body writes: `mask` has bit d when every store to it
 * writes index d == the loop var (iteration i touches only its own
 * elements); `single` when all those stores go through one buffer object. */
struct psgi_kv_written {
  psg_tir_expr *data;
  psg_tir_buffer *buf;
  uint64_t mask;
  bool single;
};

struct psgi_kv {
  psg_ctx *ctx;
  psg_arith_analyzer *a;
  PSGI_VEC(fact) arena;
  PSGI_VEC(uint32_t) live;
  PSGI_VEC(psg_tir_expr *) conds; /* scope conditions (borrowed from marks) */
  PSGI_VEC(axis) axes;
};

static psg_tir_expr *data_of(const psg_tir_buffer *b) { return psg_tir_buffer_get_data(b); }

psg_status psgi_kv_create(psg_ctx *ctx, psg_arith_analyzer *a, psgi_kv **out) {
  psgi_kv *kv = psgi_calloc(ctx, sizeof *kv);
  if (!kv) return psgi_nomem(ctx);
  kv->ctx = ctx;
  kv->a = a;
  *out = kv;
  return PSG_OK;
}

static void fact_fini(fact *f) {
  psg_tir_release((psg_tir_node *)f->buf);
  psg_tir_release(f->value);
  for (uint32_t i = 0; i < f->nconj; i++) psg_tir_release(f->conj[i]);
}

void psgi_kv_destroy(psgi_kv *kv) {
  if (!kv) return;
  psg_ctx *ctx = kv->ctx;
  for (size_t i = 0; i < kv->arena.len; i++) {
    fact_fini(&kv->arena.data[i]);
    psgi_free(ctx, kv->arena.data[i].conj);
  }
  for (size_t i = 0; i < kv->axes.len; i++) psg_tir_release(kv->axes.data[i].var);
  PSGI_VEC_FREE(ctx, &kv->arena);
  PSGI_VEC_FREE(ctx, &kv->live);
  PSGI_VEC_FREE(ctx, &kv->conds);
  PSGI_VEC_FREE(ctx, &kv->axes);
  psgi_free(ctx, kv);
}

void psgi_kv_mark_free(psgi_kv *kv, psgi_kv_mark *m) {
  if (!kv) return;
  psgi_free(kv->ctx, m->saved);
  psgi_free(kv->ctx, m->other);
  psgi_free(kv->ctx, m->written);
  psg_tir_release(m->cond);
  psg_tir_release(m->neg);
  psg_tir_release(m->var);
  psg_tir_release(m->min);
  psg_tir_release(m->extent);
  memset(m, 0, sizeof *m);
}

/* The axis var of dimension d for indices of dtype t. */
static psg_status axis_var(psgi_kv *kv, size_t d, psg_tir_dtype t, psg_tir_expr **out) {
  for (size_t i = 0; i < kv->axes.len; i++)
    if (kv->axes.data[i].dim == d && kv->axes.data[i].dtype == t) {
      *out = kv->axes.data[i].var;
      return PSG_OK;
    }
  char name[32];
  snprintf(name, sizeof name, "axis%zu", d);
  psg_tir_expr *v;
  psg_status st = psg_tir_var_create(kv->ctx, name, t, NULL, NULL, &v);
  if (st) return st;
  axis ax = {d, t, v};
  if (!PSGI_VEC_PUSH(kv->ctx, &kv->axes, ax)) {
    psg_tir_release(v);
    return psgi_nomem(kv->ctx);
  }
  *out = v;
  return PSG_OK;
}

/* The dimension var stands for, or -1 when it is no axis var. */
static long axis_dim(const psgi_kv *kv, const psg_tir_expr *var) {
  for (size_t i = 0; i < kv->axes.len; i++)
    if (kv->axes.data[i].var == var) return (long)kv->axes.data[i].dim;
  return -1;
}

static psg_status copy_ids(psgi_kv *kv, uint32_t **out, size_t *n) {
  *out = NULL;
  *n = kv->live.len;
  if (!kv->live.len) return PSG_OK;
  *out = psgi_alloc(kv->ctx, kv->live.len * sizeof(uint32_t));
  if (!*out) return psgi_nomem(kv->ctx);
  memcpy(*out, kv->live.data, kv->live.len * sizeof(uint32_t));
  return PSG_OK;
}

static bool has_id(const uint32_t *ids, size_t n, uint32_t id) {
  for (size_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

/* A new live fact over conj[0..n) (references taken over, also on
 * failure) and the scope conditions. */
static psg_status add_fact(psgi_kv *kv, psg_tir_buffer *buf, psg_tir_expr *value, psg_tir_expr **conj, size_t n,
                           bool with_scope, uint32_t *id_out) {
  psg_ctx *ctx = kv->ctx;
  size_t total = n + (with_scope ? kv->conds.len : 0);
  fact f = {0};
  if (total > MAX_CONJ) goto drop;
  f.conj = psgi_alloc(ctx, (total ? total : 1) * sizeof(psg_tir_expr *));
  if (!f.conj || !PSGI_VEC_RESERVE(ctx, &kv->arena, kv->arena.len + 1) ||
      !PSGI_VEC_RESERVE(ctx, &kv->live, kv->live.len + 1)) {
    psgi_free(ctx, f.conj);
    for (size_t i = 0; i < n; i++) psg_tir_release(conj[i]);
    return psgi_nomem(ctx);
  }
  memcpy(f.conj, conj, n * sizeof(psg_tir_expr *));
  for (size_t i = n; i < total; i++) psg_tir_retain(f.conj[i] = kv->conds.data[i - n]);
  f.nconj = (uint32_t)total;
  psg_tir_retain((psg_tir_node *)(f.buf = buf));
  psg_tir_retain(f.value = value);
  uint32_t id = (uint32_t)kv->arena.len;
  kv->arena.data[kv->arena.len++] = f;
  if (kv->live.len >= MAX_LIVE) { /* the oldest fact is forgotten */
    memmove(kv->live.data, kv->live.data + 1, (kv->live.len - 1) * sizeof(uint32_t));
    kv->live.len--;
  }
  kv->live.data[kv->live.len++] = id;
  if (id_out) *id_out = id;
  return PSG_OK;
drop:
  for (size_t i = 0; i < n; i++) psg_tir_release(conj[i]);
  return PSG_OK;
}

/* x with the axis vars of dims [0, n) replaced by idx. */
static psg_status at_index(psgi_kv *kv, psg_tir_expr *x, psg_tir_expr *const *idx, size_t n, psg_tir_expr **out) {
  psg_tir_node *vars[8], *vals[8];
  size_t k = 0;
  for (size_t d = 0; d < n && k < 8; d++) {
    psg_tir_expr *v = NULL;
    psg_status st = axis_var(kv, d, idx[d]->dtype, &v);
    if (st) return st;
    vars[k] = v;
    vals[k++] = idx[d];
  }
  return psgi_tir_substitute_n(kv->ctx, x, vars, vals, k, (psg_tir_node **)out);
}

/* The known value of buf[idx] (scalar indices), or NULL. */
static psg_status lookup(psgi_kv *kv, psg_tir_buffer *buf, psg_tir_expr *const *idx, size_t n, psg_tir_expr **out) {
  *out = NULL;
  if (n > 8) return PSG_OK;
  int tries = 0;
  for (size_t li = kv->live.len; li-- > 0 && tries < MAX_TRIES;) {
    fact *f = &kv->arena.data[kv->live.data[li]];
    if (f->buf != buf) continue;
    tries++;
    bool ok = true;
    for (uint32_t c = 0; c < f->nconj && ok; c++) {
      psg_tir_expr *x;
      psg_status st = at_index(kv, f->conj[c], idx, n, &x);
      if (st) return st;
      ok = psg_arith_can_prove(kv->a, x);
      psg_tir_release(x);
    }
    if (ok) return at_index(kv, f->value, idx, n, out);
  }
  return PSG_OK;
}

static psg_status on_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_kv *kv = m->user;
  psg_status st = psg_tir_mutator_default(m, n, out);
  if (st) return st;
  psg_tir_expr *ld = *out;
  if (ld->kind != PSG_TIR_BUFFER_LOAD || (ld->flags & PSGI_TIR_HAS_PRED) || psg_tir_dtype_lanes(ld->dtype) != 1)
    return PSG_OK;
  psg_tir_expr *known;
  if ((st = lookup(kv, (psg_tir_buffer *)ld->kids[0], psgi_tir_indices(ld), psgi_tir_num_indices(ld), &known)))
    return st;
  if (known && known->dtype == ld->dtype) {
    psg_tir_release(ld);
    *out = known;
  } else {
    psg_tir_release(known);
  }
  return PSG_OK;
}

psg_status psgi_kv_substitute(psgi_kv *kv, psg_tir_expr *e, psg_tir_expr **out) {
  if (!kv->live.len) {
    psg_tir_retain(*out = e);
    return PSG_OK;
  }
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, kv->ctx);
  m.visit[PSG_TIR_BUFFER_LOAD] = on_load;
  m.user = kv;
  psg_status st = psg_tir_mutate(&m, e, (psg_tir_node **)out);
  psg_tir_mutator_fini(&m);
  return st;
}

void psgi_kv_clobber(psgi_kv *kv) { kv->live.len = 0; }

static void drop_data(psgi_kv *kv, const psg_tir_expr *data) {
  size_t k = 0;
  for (size_t i = 0; i < kv->live.len; i++)
    if (data_of(kv->arena.data[kv->live.data[i]].buf) != data) kv->live.data[k++] = kv->live.data[i];
  kv->live.len = k;
}

static int find_var(psg_tir_visitor *v, const psg_tir_node *n) {
  const psg_tir_node **want = v->user;
  if (n == want[0]) {
    want[1] = n;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

static psg_status mentions(psgi_kv *kv, const psg_tir_expr *x, const psg_tir_expr *var, bool *out) {
  const psg_tir_node *want[2] = {var, NULL};
  psg_tir_visitor v = {find_var, NULL, (void *)want};
  psg_status st = psg_tir_visit(kv->ctx, &v, x);
  *out = want[1] != NULL;
  return st;
}

static psg_status fact_mentions(psgi_kv *kv, const fact *f, const psg_tir_expr *var, bool *out) {
  psg_status st = mentions(kv, f->value, var, out);
  for (uint32_t c = 0; c < f->nconj && !st && !*out; c++) st = mentions(kv, f->conj[c], var, out);
  return st;
}

psg_status psgi_kv_forget(psgi_kv *kv, psg_tir_expr *var) {
  size_t k = 0;
  for (size_t i = 0; i < kv->live.len; i++) {
    fact *f = &kv->arena.data[kv->live.data[i]];
    bool m = data_of(f->buf) == var;
    if (!m) {
      psg_status st = fact_mentions(kv, f, var, &m);
      if (st) return st;
    }
    if (!m) kv->live.data[k++] = kv->live.data[i];
  }
  kv->live.len = k;
  return PSG_OK;
}

static bool all_pure(psgi_kv *kv, psg_tir_expr *const *x, size_t n, psg_status *st) {
  for (size_t i = 0; i < n; i++) {
    bool p;
    if ((*st = psgi_tir_is_pure(kv->ctx, x[i], &p)) || !p) return false;
  }
  return true;
}

/* f (live at position li) narrowed by a store to buf[idx] (scalar): kept
 * when its conditions rule idx out, dropped when it is about exactly idx,
 * otherwise a copy that excludes idx takes its place. *keep: still live. */
static psg_status narrow(psgi_kv *kv, size_t li, psg_tir_expr *const *idx, size_t n, bool *keep) {
  psg_ctx *ctx = kv->ctx;
  fact *f = &kv->arena.data[kv->live.data[li]];
  psg_status st = PSG_OK;
  *keep = false;
  bool pinned[8] = {false};
  for (uint32_t c = 0; c < f->nconj; c++) {
    psg_tir_expr *x, *nx;
    if ((st = at_index(kv, f->conj[c], idx, n, &x))) return st;
    st = psgi_arith_mk(ctx, PSG_TIR_NOT, x, NULL, &nx);
    psg_tir_release(x);
    if (st) return st;
    bool ruled_out = psg_arith_can_prove(kv->a, nx);
    psg_tir_release(nx);
    if (ruled_out) {
      *keep = true;
      return PSG_OK;
    }
    psg_tir_expr *k = f->conj[c];
    if (k->kind == PSG_TIR_EQ) {
      long d = axis_dim(kv, k->kids[0]);
      if (d >= 0 && (size_t)d < n && psg_arith_expr_equal(k->kids[1], idx[d])) pinned[d] = true;
    }
  }
  bool all = true;
  for (size_t d = 0; d < n; d++) all &= pinned[d];
  if (all || f->nconj + 1 > MAX_CONJ) return PSG_OK;
  /* not (axis0 == idx0 and axis1 == idx1 ...) */
  psg_tir_expr *same = NULL;
  for (size_t d = 0; d < n && !st; d++) {
    psg_tir_expr *ax, *eq, *both;
    if ((st = axis_var(kv, d, idx[d]->dtype, &ax))) break;
    if ((st = psgi_arith_mk(ctx, PSG_TIR_EQ, ax, idx[d], &eq))) break;
    if (!same) {
      same = eq;
      continue;
    }
    st = psgi_arith_mk(ctx, PSG_TIR_AND, same, eq, &both);
    psg_tir_release(same);
    psg_tir_release(eq);
    same = st ? NULL : both;
  }
  psg_tir_expr *excl = NULL;
  if (!st) st = psgi_arith_mk(ctx, PSG_TIR_NOT, same, NULL, &excl);
  psg_tir_release(same);
  if (st) return st;
  psg_tir_expr **conj = psgi_alloc(ctx, (f->nconj + 1) * sizeof(psg_tir_expr *));
  if (!conj) {
    psg_tir_release(excl);
    return psgi_nomem(ctx);
  }
  for (uint32_t c = 0; c < f->nconj; c++) psg_tir_retain(conj[c] = f->conj[c]);
  conj[f->nconj] = excl;
  /* The copy is appended (live is below MAX_LIVE: the old fact is still in
   * it), then moved to position li in place of the old one. */
  uint32_t id;
  psg_tir_buffer *buf = f->buf;
  psg_tir_expr *value = f->value;
  uint32_t n_conj = f->nconj + 1;
  kv->live.len--; /* room for the copy without reaching the cap */
  uint32_t last = kv->live.data[kv->live.len];
  st = add_fact(kv, buf, value, conj, n_conj, false, &id);
  psgi_free(ctx, conj);
  if (st) return st;
  kv->live.data[kv->live.len - 1] = last; /* the copy took the old last place */
  kv->live.data[li] = id;
  *keep = true;
  return PSG_OK;
}

psg_status psgi_kv_store(psgi_kv *kv, psg_tir_buffer *buf, psg_tir_expr *const *idx, size_t n,
                         psg_tir_expr *value, bool predicated) {
  psg_ctx *ctx = kv->ctx;
  psg_tir_expr *data = data_of(buf);
  psg_status st = PSG_OK;
  long ramp_dim = -1;
  bool ok = !predicated && n <= 8 && all_pure(kv, idx, n, &st);
  if (st) return st;
  for (size_t d = 0; d < n && ok; d++) {
    if (psg_tir_dtype_lanes(idx[d]->dtype) == 1) continue;
    int64_t stride;
    ok = ramp_dim < 0 && idx[d]->kind == PSG_TIR_RAMP &&
         psgi_arith_is_int(psg_tir_ramp_get_stride(idx[d]), &stride) && stride == 1 &&
         psg_tir_dtype_lanes(value->dtype) == psg_tir_dtype_lanes(idx[d]->dtype);
    ramp_dim = (long)d;
  }
  if (!ok) {
    drop_data(kv, data);
    return PSG_OK;
  }
  /* What the store overwrites. Live facts are tested in place; a narrowed
   * copy replaces its fact at the same position. */
  for (size_t i = 0; i < kv->live.len;) {
    fact *f = &kv->arena.data[kv->live.data[i]];
    bool keep = data_of(f->buf) != data;
    if (!keep && f->buf == buf && ramp_dim < 0 && (st = narrow(kv, i, idx, n, &keep))) return st;
    if (keep) {
      i++;
      continue;
    }
    memmove(kv->live.data + i, kv->live.data + i + 1, (kv->live.len - i - 1) * sizeof(uint32_t));
    kv->live.len--;
  }
  /* What it writes, when the value is known without memory. */
  bool pure;
  if ((st = psgi_tir_is_pure(ctx, value, &pure)) || !pure) return st;
  psg_tir_expr *conj[10] = {NULL};
  size_t nc = 0;
  psg_tir_expr *val = NULL;
  for (size_t d = 0; d < n && !st; d++) {
    psg_tir_expr *ax;
    psg_tir_dtype t = psg_tir_dtype_with_lanes(idx[d]->dtype, 1);
    if ((st = axis_var(kv, d, t, &ax))) break;
    if ((long)d != ramp_dim) {
      st = psgi_arith_mk(ctx, PSG_TIR_EQ, ax, idx[d], &conj[nc]);
      if (!st) nc++;
      continue;
    }
    psg_tir_expr *base = psg_tir_ramp_get_base(idx[d]), *end = NULL, *lanes = NULL, *off = NULL;
    if (!(st = psgi_arith_int(ctx, t, psg_tir_dtype_lanes(idx[d]->dtype), &lanes)) &&
        !(st = psgi_arith_mk(ctx, PSG_TIR_ADD, base, lanes, &end)) &&
        !(st = psgi_arith_mk(ctx, PSG_TIR_LE, base, ax, &conj[nc])) && (nc++, true) &&
        !(st = psgi_arith_mk(ctx, PSG_TIR_LT, ax, end, &conj[nc])) && (nc++, true))
      st = psgi_arith_mk(ctx, PSG_TIR_SUB, ax, base, &off);
    psg_tir_release(end);
    psg_tir_release(lanes);
    if (!st) {
      if (value->kind == PSG_TIR_BROADCAST) {
        psg_tir_retain(val = value->kids[0]);
      } else if (value->kind == PSG_TIR_RAMP && psg_tir_ramp_get_base(value)->dtype == t) {
        psg_tir_expr *step;
        st = psgi_arith_mk(ctx, PSG_TIR_MUL, off, psg_tir_ramp_get_stride(value), &step);
        if (!st) st = psgi_arith_mk(ctx, PSG_TIR_ADD, psg_tir_ramp_get_base(value), step, &val);
        if (!st) psg_tir_release(step);
      }
    }
    psg_tir_release(off);
  }
  if (!st && ramp_dim < 0 && psg_tir_dtype_lanes(value->dtype) == 1) psg_tir_retain(val = value);
  if (st || !val) {
    for (size_t i = 0; i < nc; i++) psg_tir_release(conj[i]);
    psg_tir_release(val);
    return st;
  }
  st = add_fact(kv, buf, val, conj, nc, true, NULL);
  psg_tir_release(val);
  return st;
}

/* One `B[i] == v` (either way round; likely() and casts not looked into),
 * with `extra` known conditions. */
static psg_status assume_eq(psgi_kv *kv, psg_tir_expr *eq, psg_tir_expr *const *extra, size_t nextra) {
  psg_ctx *ctx = kv->ctx;
  psg_status st = PSG_OK;
  if (eq->kind != PSG_TIR_EQ) return PSG_OK;
  for (int side = 0; side < 2; side++) {
    psg_tir_expr *ld = eq->kids[side], *v = eq->kids[1 - side];
    if (ld->kind != PSG_TIR_BUFFER_LOAD || (ld->flags & PSGI_TIR_HAS_PRED) || psg_tir_dtype_lanes(ld->dtype) != 1)
      continue;
    size_t n = psgi_tir_num_indices(ld);
    psg_tir_expr *const *idx = psgi_tir_indices(ld);
    bool pure;
    if ((st = psgi_tir_is_pure(ctx, v, &pure)) || !pure) return st;
    if (n + nextra > MAX_CONJ || !all_pure(kv, idx, n, &st)) return st;
    psg_tir_expr *conj[MAX_CONJ];
    size_t nc = 0;
    for (size_t d = 0; d < n && !st; d++) {
      psg_tir_expr *ax;
      if (!(st = axis_var(kv, d, idx[d]->dtype, &ax)) && !(st = psgi_arith_mk(ctx, PSG_TIR_EQ, ax, idx[d], &conj[nc])))
        nc++;
    }
    for (size_t i = 0; i < nextra && !st; i++) psg_tir_retain(conj[nc++] = extra[i]);
    if (st) {
      for (size_t i = 0; i < nc; i++) psg_tir_release(conj[i]);
      return st;
    }
    return add_fact(kv, (psg_tir_buffer *)ld->kids[0], v, conj, nc, true, NULL);
  }
  return PSG_OK;
}

static psg_tir_expr *strip_likely(psg_tir_expr *e) {
  while (e->kind == PSG_TIR_CALL && e->nkids >= 1 && strcmp(psg_tir_call_op(e), "tir.likely") == 0) e = e->kids[0];
  return e;
}

psg_status psgi_kv_assume(psgi_kv *kv, psg_tir_expr *cond) {
  psg_ctx *ctx = kv->ctx;
  PSGI_VEC(psg_tir_expr *) todo = {0}, ors = {0}, extra = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(ctx, &todo, cond)) return psgi_nomem(ctx);
  while (todo.len && !st) {
    psg_tir_expr *e = strip_likely(todo.data[--todo.len]);
    if (e->kind == PSG_TIR_AND) {
      if (!PSGI_VEC_PUSH(ctx, &todo, e->kids[1]) || !PSGI_VEC_PUSH(ctx, &todo, e->kids[0])) st = psgi_nomem(ctx);
      continue;
    }
    if (e->kind != PSG_TIR_OR) {
      st = assume_eq(kv, e, NULL, 0);
      continue;
    }
    /* p1 or p2 or B[i] == v: the fact holds where no p holds. */
    ors.len = 0;
    if (!PSGI_VEC_PUSH(ctx, &ors, e)) st = psgi_nomem(ctx);
    psg_tir_expr *eq = NULL;
    bool usable = true;
    for (size_t k = 0; k < extra.len; k++) psg_tir_release(extra.data[k]);
    extra.len = 0;
    while (ors.len && !st && usable) {
      psg_tir_expr *o = ors.data[--ors.len];
      if (o->kind == PSG_TIR_OR) {
        if (!PSGI_VEC_PUSH(ctx, &ors, o->kids[1]) || !PSGI_VEC_PUSH(ctx, &ors, o->kids[0])) st = psgi_nomem(ctx);
        continue;
      }
      bool pure;
      if ((st = psgi_tir_is_pure(ctx, o, &pure))) break;
      if (!pure) {
        usable = eq == NULL;
        eq = o;
        continue;
      }
      psg_tir_expr *neg;
      if ((st = psgi_arith_mk(ctx, PSG_TIR_NOT, o, NULL, &neg))) break;
      if (!PSGI_VEC_PUSH(ctx, &extra, neg)) {
        psg_tir_release(neg);
        st = psgi_nomem(ctx);
      }
    }
    if (!st && usable && eq) st = assume_eq(kv, eq, extra.data, extra.len);
  }
  for (size_t k = 0; k < extra.len; k++) psg_tir_release(extra.data[k]);
  PSGI_VEC_FREE(ctx, &todo);
  PSGI_VEC_FREE(ctx, &ors);
  PSGI_VEC_FREE(ctx, &extra);
  return st;
}

/* `if` ------------------------------------------------------------------- */

/* The pure parts of an AND chain, pushed as scope conditions. */
static psg_status push_pure_parts(psgi_kv *kv, psg_tir_expr *cond) {
  PSGI_VEC(psg_tir_expr *) todo = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(kv->ctx, &todo, cond)) return psgi_nomem(kv->ctx);
  while (todo.len && !st) {
    psg_tir_expr *e = todo.data[--todo.len];
    if (e->kind == PSG_TIR_AND) {
      if (!PSGI_VEC_PUSH(kv->ctx, &todo, e->kids[1]) || !PSGI_VEC_PUSH(kv->ctx, &todo, e->kids[0]))
        st = psgi_nomem(kv->ctx);
      continue;
    }
    bool pure;
    if (!(st = psgi_tir_is_pure(kv->ctx, e, &pure)) && pure && !PSGI_VEC_PUSH(kv->ctx, &kv->conds, e))
      st = psgi_nomem(kv->ctx);
  }
  PSGI_VEC_FREE(kv->ctx, &todo);
  return st;
}

psg_status psgi_kv_if_enter(psgi_kv *kv, psg_tir_expr *cond, psgi_kv_mark *m) {
  psg_status st = copy_ids(kv, &m->saved, &m->nsaved);
  if (st) return st;
  m->nconds = kv->conds.len;
  psg_tir_retain(m->cond = cond);
  bool pure;
  if ((st = psgi_tir_is_pure(kv->ctx, cond, &pure))) return st;
  if (pure) return PSGI_VEC_PUSH(kv->ctx, &kv->conds, cond) ? PSG_OK : psgi_nomem(kv->ctx);
  /* A condition reading memory: its pure parts scope the facts, its
   * `B[i] == v` parts are facts of the then branch; neither outlives it. */
  psg_tir_release(m->cond);
  m->cond = NULL;
  if ((st = push_pure_parts(kv, cond))) return st;
  return psgi_kv_assume(kv, cond);
}

psg_status psgi_kv_if_else(psgi_kv *kv, psgi_kv_mark *m) {
  psg_status st = copy_ids(kv, &m->other, &m->nother);
  if (st) return st;
  m->has_other = true;
  kv->live.len = 0;
  if (m->nsaved && !PSGI_VEC_RESERVE(kv->ctx, &kv->live, m->nsaved)) return psgi_nomem(kv->ctx);
  if (m->nsaved) memcpy(kv->live.data, m->saved, m->nsaved * sizeof(uint32_t));
  kv->live.len = m->nsaved;
  kv->conds.len = m->nconds;
  if (!m->cond) return PSG_OK;
  if ((st = psgi_arith_mk(kv->ctx, PSG_TIR_NOT, m->cond, NULL, &m->neg))) return st;
  return PSGI_VEC_PUSH(kv->ctx, &kv->conds, m->neg) ? PSG_OK : psgi_nomem(kv->ctx);
}

static bool has_conj(const fact *f, const psg_tir_expr *c) {
  if (!c) return false;
  for (uint32_t i = 0; i < f->nconj; i++)
    if (f->conj[i] == c) return true;
  return false;
}

/* After the if: a fact both branches end with, or one that only one branch
 * ends with but that carries that branch's condition (it says nothing when
 * the other branch ran). */
psg_status psgi_kv_if_exit(psgi_kv *kv, psgi_kv_mark *m) {
  const uint32_t *then_ids = m->has_other ? m->other : kv->live.data;
  size_t nthen = m->has_other ? m->nother : kv->live.len;
  const uint32_t *else_ids = m->has_other ? kv->live.data : m->saved;
  size_t nelse = m->has_other ? kv->live.len : m->nsaved;
  PSGI_VEC(uint32_t) out = {0};
  if (!PSGI_VEC_RESERVE(kv->ctx, &out, nthen + nelse + 1)) return psgi_nomem(kv->ctx);
  for (size_t i = 0; i < nthen; i++) {
    uint32_t id = then_ids[i];
    if (has_id(else_ids, nelse, id) || has_conj(&kv->arena.data[id], m->cond)) out.data[out.len++] = id;
  }
  for (size_t i = 0; i < nelse; i++) {
    uint32_t id = else_ids[i];
    if (!has_id(then_ids, nthen, id) && has_conj(&kv->arena.data[id], m->neg)) out.data[out.len++] = id;
  }
  PSGI_VEC_FREE(kv->ctx, &kv->live);
  kv->live.data = out.data;
  kv->live.len = out.len;
  kv->live.cap = out.cap;
  kv->conds.len = m->nconds;
  return PSG_OK;
}

/* Loops ------------------------------------------------------------------ */

typedef struct scan {
  psgi_kv *kv;
  psg_tir_expr *var;
  PSGI_VEC(psgi_kv_written) w;
  bool clobber;
  psg_status st;
} scan;

static int scan_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  scan *s = v->user;
  if (n->kind == PSG_TIR_CALL) {
    const char *op = psg_tir_call_op(n);
    bool effect;
    if (strcmp(op, "tir.assume") != 0 && strcmp(op, "tir.likely") != 0) {
      if ((s->st = psgi_tir_has_side_effect(s->kv->ctx, n, &effect))) return PSG_VISIT_ABORT;
      if (effect) {
        s->clobber = true;
        return PSG_VISIT_ABORT;
      }
    }
    return PSG_VISIT_CONTINUE;
  }
  if (n->kind != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  psg_tir_buffer *buf = (psg_tir_buffer *)n->kids[0];
  psg_tir_expr *data = data_of(buf);
  size_t ni = psgi_tir_num_indices(n);
  uint64_t mask = 0;
  for (size_t d = 0; d < ni && d < 64; d++)
    if (s->var && psgi_tir_indices(n)[d] == s->var) mask |= (uint64_t)1 << d;
  for (size_t i = 0; i < s->w.len; i++)
    if (s->w.data[i].data == data) {
      s->w.data[i].mask &= mask;
      s->w.data[i].single &= s->w.data[i].buf == buf;
      return PSG_VISIT_CONTINUE;
    }
  psgi_kv_written w = {data, buf, mask, true};
  if (!PSGI_VEC_PUSH(s->kv->ctx, &s->w, w)) {
    s->st = psgi_nomem(s->kv->ctx);
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

static const psgi_kv_written *written_of(const psgi_kv_mark *m, const psg_tir_expr *data) {
  for (size_t i = 0; i < m->nwritten; i++)
    if (m->written[i].data == data) return &m->written[i];
  return NULL;
}

static int lowest_bit(uint64_t x) {
  for (int d = 0; d < 64; d++)
    if (x & ((uint64_t)1 << d)) return d;
  return -1;
}

/* At the start of the body: facts on buffers the body does not write stay;
 * a fact on a buffer each iteration writes only at its own index d == var
 * holds for that index (earlier iterations wrote other elements); the
 * others are dropped. */
psg_status psgi_kv_loop_enter(psgi_kv *kv, psg_tir_stmt *body, psg_tir_expr *var, psg_tir_expr *min,
                              psg_tir_expr *extent, psgi_kv_mark *m) {
  psg_ctx *ctx = kv->ctx;
  scan s = {.kv = kv, .var = var};
  psg_tir_visitor v = {scan_pre, NULL, &s};
  psg_status st = psg_tir_visit(ctx, &v, body);
  if (!st) st = s.st;
  m->written = s.w.data;
  m->nwritten = s.w.len;
  if (st) return st;
  if (var) {
    psg_tir_retain(m->var = var);
    psg_tir_retain(m->min = min);
    psg_tir_retain(m->extent = extent);
  }
  if (s.clobber) psgi_kv_clobber(kv);
  PSGI_VEC(uint32_t) old = {0};
  old.data = kv->live.data;
  old.len = kv->live.len;
  old.cap = kv->live.cap;
  kv->live.data = NULL;
  kv->live.len = kv->live.cap = 0;
  for (size_t i = 0; i < old.len && !st; i++) {
    uint32_t id = old.data[i];
    fact *f = &kv->arena.data[id];
    const psgi_kv_written *w = written_of(m, data_of(f->buf));
    if (!w) {
      if (!PSGI_VEC_PUSH(ctx, &kv->live, id)) st = psgi_nomem(ctx);
      continue;
    }
    int d = lowest_bit(w->mask);
    if (!var || d < 0 || !w->single || w->buf != f->buf || f->nconj + 1 > MAX_CONJ) continue;
    psg_tir_expr *ax, **conj = psgi_alloc(ctx, (f->nconj + 1) * sizeof(psg_tir_expr *));
    if (!conj) {
      st = psgi_nomem(ctx);
      break;
    }
    size_t nc = 0;
    if (!(st = axis_var(kv, (size_t)d, var->dtype, &ax)) && !(st = psgi_arith_mk(ctx, PSG_TIR_EQ, ax, var, &conj[0]))) {
      nc = 1;
      for (uint32_t c = 0; c < f->nconj; c++) psg_tir_retain(conj[nc++] = f->conj[c]);
      st = add_fact(kv, f->buf, f->value, conj, nc, false, NULL);
    }
    psgi_free(ctx, conj);
  }
  PSGI_VEC_FREE(ctx, &old);
  if (st) return st;
  return copy_ids(kv, &m->saved, &m->nsaved);
}

/* f after the loop when it holds at the end of iteration `var` for index
 * d == var only: for every index d in the loop's range (no later iteration
 * wrote it). */
static psg_status widen(psgi_kv *kv, const psgi_kv_mark *m, fact *f, uint32_t pos, psg_tir_expr *ax) {
  psg_ctx *ctx = kv->ctx;
  psg_tir_expr **conj = psgi_alloc(ctx, (f->nconj + 2) * sizeof(psg_tir_expr *));
  if (!conj) return psgi_nomem(ctx);
  size_t nc = 0;
  psg_status st = PSG_OK;
  psg_tir_expr *end = NULL, *value = NULL;
  for (uint32_t c = 0; c < f->nconj && !st; c++) {
    if (c == pos) continue;
    st = psgi_tir_substitute(ctx, f->conj[c], m->var, ax, (psg_tir_node **)&conj[nc]);
    if (!st) nc++;
  }
  if (!st && !(st = psgi_arith_mk(ctx, PSG_TIR_LE, m->min, ax, &conj[nc])) && (nc++, true) &&
      !(st = psgi_arith_mk(ctx, PSG_TIR_ADD, m->min, m->extent, &end)) &&
      !(st = psgi_arith_mk(ctx, PSG_TIR_LT, ax, end, &conj[nc])))
    nc++;
  psg_tir_release(end);
  if (!st) st = psgi_tir_substitute(ctx, f->value, m->var, ax, (psg_tir_node **)&value);
  if (!st) {
    st = add_fact(kv, f->buf, value, conj, nc, false, NULL);
  } else {
    for (size_t i = 0; i < nc; i++) psg_tir_release(conj[i]);
  }
  psg_tir_release(value);
  psgi_free(ctx, conj);
  return st;
}

psg_status psgi_kv_loop_exit(psgi_kv *kv, psgi_kv_mark *m) {
  psg_ctx *ctx = kv->ctx;
  PSGI_VEC(uint32_t) old = {0};
  old.data = kv->live.data;
  old.len = kv->live.len;
  old.cap = kv->live.cap;
  kv->live.data = NULL;
  kv->live.len = kv->live.cap = 0;
  psg_status st = PSG_OK;
  for (size_t i = 0; i < old.len && !st; i++) {
    uint32_t id = old.data[i];
    fact *f = &kv->arena.data[id];
    bool at_start = has_id(m->saved, m->nsaved, id);
    if (!m->var) { /* While: what holds before and after any number of iterations */
      if (at_start && !PSGI_VEC_PUSH(ctx, &kv->live, id)) st = psgi_nomem(ctx);
      continue;
    }
    long pos = -1, d = -1;
    for (uint32_t c = 0; c < f->nconj && pos < 0; c++) {
      psg_tir_expr *k = f->conj[c];
      if (k->kind == PSG_TIR_EQ && k->kids[1] == m->var && (d = axis_dim(kv, k->kids[0])) >= 0) pos = c;
    }
    const psgi_kv_written *w = written_of(m, data_of(f->buf));
    if (pos >= 0 && (!w || (d < 64 && (w->mask >> d & 1) && w->single && w->buf == f->buf))) {
      st = widen(kv, m, f, (uint32_t)pos, f->conj[pos]->kids[0]);
      continue;
    }
    bool uses = false;
    if (at_start && !(st = fact_mentions(kv, f, m->var, &uses)) && !uses && !PSGI_VEC_PUSH(ctx, &kv->live, id))
      st = psgi_nomem(ctx);
  }
  PSGI_VEC_FREE(ctx, &old);
  return st;
}
