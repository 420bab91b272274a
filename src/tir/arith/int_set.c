/* Passage — symbolic intervals: evaluation over a dom map and intersection
 * (TVM's IntervalSetEvaluator and Combine<Op> in src/arith/int_set.cc). Ends
 * are built with tir_op.h's operators, which fold constants as TVM's do. */
#include "tir/arith/int_set.h"
#include "passage/tir_op.h"
#include "tir/arith/arith_internal.h"

void psgi_int_set_release(psgi_int_set *s) {
  psg_tir_release(s->min); /* a point holds two references */
  psg_tir_release(s->max);
  s->min = s->max = NULL;
}

psgi_int_set psgi_int_set_interval(psg_tir_expr *min, psg_tir_expr *max) {
  psg_tir_retain(min);
  psg_tir_retain(max);
  return (psgi_int_set){.min = min, .max = max};
}

static psgi_int_set point(psg_tir_expr *e) { return psgi_int_set_interval(e, e); }

static psgi_int_set everything(void) { return (psgi_int_set){0}; }

/* kind(x, y) through tir_op.h (folded); x and y borrowed. */
static psg_status bin(psg_ctx *ctx, int kind, psg_tir_expr *x, psg_tir_expr *y, psg_tir_expr **out) {
  return psg_tir_op_binary(ctx, kind, x, y, NULL, out);
}

static bool is_const(const psg_tir_expr *e, int64_t v) { return e->kind == PSG_TIR_INT_IMM && e->u.int_value == v; }

/* x >= lo proved (TVM's CanProveGreaterEqual). */
static bool prove_ge(psg_arith_analyzer *a, psg_tir_expr *x, int64_t lo) {
  psg_arith_bound b;
  return psg_arith_const_int_bound(a, x, &b) == PSG_OK && b.min >= lo;
}

/* The interval with ends op(x.end, c) for a point divisor or factor c whose
 * sign is proved; `flip` swaps the ends (c negative). NULL ends stay. */
static psg_status scale(psg_ctx *ctx, int kind, const psgi_int_set *x, psg_tir_expr *c, bool flip, psgi_int_set *out) {
  psg_tir_expr *lo = NULL, *hi = NULL;
  psg_status st = PSG_OK;
  if (x->min) st = bin(ctx, kind, x->min, c, flip ? &hi : &lo);
  if (!st && x->max) st = bin(ctx, kind, x->max, c, flip ? &lo : &hi);
  if (st) {
    psg_tir_release(lo);
    psg_tir_release(hi);
    return st;
  }
  *out = (psgi_int_set){.min = lo, .max = hi};
  return PSG_OK;
}

/* Combine<Mul/Div/FloorDiv> with b a point of proved sign (else everything). */
static psg_status combine_scale(psg_arith_analyzer *a, int kind, psgi_int_set *x, psgi_int_set *y, psgi_int_set *out) {
  psg_ctx *ctx = a->ctx;
  if (kind == PSG_TIR_MUL && psgi_int_set_is_point(x)) {
    psgi_int_set *t = x;
    x = y, y = t;
  }
  *out = everything();
  if (!psgi_int_set_is_point(y)) return PSG_OK;
  psg_tir_expr *c = y->min;
  if (kind == PSG_TIR_MUL && is_const(c, 0)) {
    *out = point(c);
    return PSG_OK;
  }
  if (kind != PSG_TIR_MUL && is_const(c, 0))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "interval evaluation: division by zero");
  if (is_const(c, 1)) {
    *out = psgi_int_set_interval(x->min, x->max);
    return PSG_OK;
  }
  if (prove_ge(a, c, 0)) return scale(ctx, kind, x, c, false, out);
  psg_tir_expr *neg = NULL;
  psg_status st = psg_tir_op_neg(ctx, c, NULL, &neg);
  if (st) return st;
  bool negative = prove_ge(a, neg, 1);
  psg_tir_release(neg);
  if (negative) return scale(ctx, kind, x, c, true, out);
  /* Unknown sign: TVM's Select(c >= 0, ...) ends are left out (everything). */
  return PSG_OK;
}

/* min/max of two ends where NULL is the infinity on the side `inf_wins`
 * says: for the min end, NULL is -inf; for the max end, +inf. */
static psg_status end_op(psg_ctx *ctx, int kind, psg_tir_expr *x, psg_tir_expr *y, bool null_absorbs,
                         psg_tir_expr **out) {
  *out = NULL;
  if (!x || !y) {
    if (null_absorbs) return PSG_OK;
    psg_tir_retain(*out = x ? x : y);
    return PSG_OK;
  }
  return bin(ctx, kind, x, y, out);
}

/* TVM's Combine<kind>(x, y) for a binary node e whose operands evaluated to
 * x and y. */
static psg_status combine(psg_arith_analyzer *a, psg_tir_expr *e, psgi_int_set *x, psgi_int_set *y, psgi_int_set *out) {
  psg_ctx *ctx = a->ctx;
  int kind = e->kind;
  if (psgi_int_set_is_point(x) && psgi_int_set_is_point(y)) {
    if (x->min == e->kids[0] && y->min == e->kids[1]) {
      *out = point(e);
      return PSG_OK;
    }
    psg_tir_expr *v = NULL;
    psg_status st = bin(ctx, kind, x->min, y->min, &v);
    if (st) return st;
    *out = (psgi_int_set){.min = v, .max = v};
    psg_tir_retain(v);
    return PSG_OK;
  }
  if (x->empty || y->empty) {
    *out = (psgi_int_set){.empty = true};
    return PSG_OK;
  }
  psg_tir_expr *lo = NULL, *hi = NULL;
  psg_status st = PSG_OK;
  switch (kind) {
  case PSG_TIR_ADD:
    if (x->min && y->min) st = bin(ctx, PSG_TIR_ADD, x->min, y->min, &lo);
    if (!st && x->max && y->max) st = bin(ctx, PSG_TIR_ADD, x->max, y->max, &hi);
    break;
  case PSG_TIR_SUB:
    if (x->min && y->max) st = bin(ctx, PSG_TIR_SUB, x->min, y->max, &lo);
    if (!st && x->max && y->min) st = bin(ctx, PSG_TIR_SUB, x->max, y->min, &hi);
    break;
  case PSG_TIR_MUL:
  case PSG_TIR_DIV:
  case PSG_TIR_FLOOR_DIV: return combine_scale(a, kind, x, y, out);
  case PSG_TIR_MIN:
    st = end_op(ctx, PSG_TIR_MIN, x->min, y->min, true, &lo);
    if (!st) st = end_op(ctx, PSG_TIR_MIN, x->max, y->max, false, &hi);
    break;
  case PSG_TIR_MAX:
    st = end_op(ctx, PSG_TIR_MAX, x->min, y->min, false, &lo);
    if (!st) st = end_op(ctx, PSG_TIR_MAX, x->max, y->max, true, &hi);
    break;
  case PSG_TIR_FLOOR_MOD:
    /* A positive constant divisor c: [0, c - 1]. */
    if (psgi_int_set_is_point(y) && y->min->kind == PSG_TIR_INT_IMM && y->min->u.int_value > 0) {
      st = psg_tir_int_imm_create(ctx, e->dtype, 0, NULL, &lo);
      if (!st) st = psg_tir_int_imm_create(ctx, e->dtype, y->min->u.int_value - 1, NULL, &hi);
    }
    break;
  default: break; /* Mod of intervals, comparisons, logic: everything */
  }
  if (st) {
    psg_tir_release(lo);
    psg_tir_release(hi);
    return st;
  }
  *out = (psgi_int_set){.min = lo, .max = hi};
  return PSG_OK;
}

/* The evaluator ------------------------------------------------------------- */

typedef struct frame {
  psg_tir_expr *e; /* NULL: an infinite end (everything) */
  int stage;
  size_t depth;       /* dom lookups on the way here (TVM's recur_depth_) */
  size_t results;  /* where its operands' sets start */
} frame;

typedef struct evaluator {
  psg_arith_analyzer *a;
  const psgi_int_set_dom *dom;
  size_t ndom;
  PSGI_VEC(frame) stack;
  PSGI_VEC(psgi_int_set) results;
} evaluator;

static const psgi_int_set *lookup(const evaluator *ev, const psg_tir_expr *var) {
  for (size_t i = ev->ndom; i-- > 0;)
    if (ev->dom[i].var == var) return &ev->dom[i].set;
  return NULL;
}

static bool in_dom(const psg_tir_node *v, void *user) { return lookup(user, v) != NULL; }

static psg_status push_frame(evaluator *ev, psg_tir_expr *e, size_t depth) {
  frame f = {.e = e, .depth = depth};
  return PSGI_VEC_PUSH(ev->a->ctx, &ev->stack, f) ? PSG_OK : psgi_nomem(ev->a->ctx);
}

static psg_status push_result(evaluator *ev, psgi_int_set s) {
  if (PSGI_VEC_PUSH(ev->a->ctx, &ev->results, s)) return PSG_OK;
  psgi_int_set_release(&s);
  return psgi_nomem(ev->a->ctx);
}

static bool is_binary(int k) { return k >= PSG_TIR_ADD && k <= PSG_TIR_OR; }

/* First visit of frame f: either its set now (pushed on results, frame
 * done: *done) or its operands pushed. */
static psg_status start(evaluator *ev, frame *f, bool *done) {
  psg_tir_expr *e = f->e;
  psg_ctx *ctx = ev->a->ctx;
  *done = true;
  f->results = ev->results.len; /* its operands' sets will start here */
  size_t depth = f->depth;      /* f moves when a push grows the stack */
  if (!e) return push_result(ev, everything());
  switch (e->kind) {
  case PSG_TIR_INT_IMM: return push_result(ev, point(e));
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: {
    const psgi_int_set *s = lookup(ev, e);
    if (!s) return push_result(ev, point(e));
    if ((s->min == e && s->max == e) || f->depth >= ev->ndom || s->empty)
      return push_result(ev, s->empty ? (psgi_int_set){.empty = true} : psgi_int_set_interval(s->min, s->max));
    /* TVM evaluates the set's ends again: the min of its min, the max of its max. */
    *done = false;
    size_t d = depth + 1;
    psg_status st = push_frame(ev, s->max, d);
    return st ? st : push_frame(ev, s->min, d);
  }
  case PSG_TIR_CAST: *done = false; return push_frame(ev, e->kids[0], depth);
  case PSG_TIR_SELECT:
    *done = false;
    {
      psg_status st = push_frame(ev, e->kids[2], depth);
      return st ? st : push_frame(ev, e->kids[1], depth);
    }
  case PSG_TIR_BUFFER_LOAD: {
    if (!psg_tir_dtype_is_int(e->dtype) && !psg_tir_dtype_is_uint(e->dtype)) return push_result(ev, everything());
    size_t ni = psgi_tir_num_indices(e);
    for (size_t i = 0; i < ni; i++) {
      bool uses = false;
      psg_status st = psgi_int_set_uses_var(ctx, psgi_tir_indices(e)[i], in_dom, ev, &uses);
      if (st) return st;
      if (uses) return push_result(ev, everything());
    }
    return push_result(ev, point(e));
  }
  default:
    if (!is_binary(e->kind)) return push_result(ev, everything());
    *done = false;
    {
      psg_status st = push_frame(ev, e->kids[1], depth);
      return st ? st : push_frame(ev, e->kids[0], depth);
    }
  }
}

/* Frame f after its operands: its set from theirs. Stack order: operands
 * were pushed last-first, so their results lie in operand order. */
static psg_status finish(evaluator *ev, frame *f, psgi_int_set *out) {
  psgi_int_set *r = ev->results.data + f->results;
  psg_tir_expr *e = f->e;
  psg_ctx *ctx = ev->a->ctx;
  psg_status st = PSG_OK;
  if (psgi_tir_is_var_kind(e->kind)) {
    /* r[0]: the set of the dom min, r[1]: of the dom max. */
    psg_tir_expr *lo = r[0].empty ? NULL : r[0].min, *hi = r[1].empty ? NULL : r[1].max;
    *out = psgi_int_set_interval(lo, hi);
    return PSG_OK;
  }
  if (e->kind == PSG_TIR_CAST) {
    psg_tir_expr *lo = NULL, *hi = NULL;
    if (r[0].empty) {
      *out = (psgi_int_set){.empty = true};
      return PSG_OK;
    }
    if (r[0].min) st = psg_tir_op_cast(ctx, e->dtype, r[0].min, NULL, &lo);
    if (!st && psgi_int_set_is_point(&r[0])) psg_tir_retain(hi = lo);
    else if (!st && r[0].max) st = psg_tir_op_cast(ctx, e->dtype, r[0].max, NULL, &hi);
    *out = (psgi_int_set){.min = lo, .max = hi};
    return st;
  }
  if (e->kind == PSG_TIR_SELECT) { /* TVM's Union of the branches */
    if (r[0].empty || r[1].empty) {
      psgi_int_set *s = r[0].empty ? &r[1] : &r[0];
      *out = s->empty ? (psgi_int_set){.empty = true} : psgi_int_set_interval(s->min, s->max);
      return PSG_OK;
    }
    psg_tir_expr *lo = NULL, *hi = NULL;
    st = end_op(ctx, PSG_TIR_MIN, r[0].min, r[1].min, true, &lo);
    if (!st) st = end_op(ctx, PSG_TIR_MAX, r[0].max, r[1].max, true, &hi);
    *out = (psgi_int_set){.min = lo, .max = hi};
    return st;
  }
  return combine(ev->a, e, &r[0], &r[1], out);
}

psg_status psgi_int_set_eval(psg_arith_analyzer *a, psg_tir_expr *e, const psgi_int_set_dom *dom, size_t ndom,
                             psgi_int_set *out) {
  *out = everything();
  evaluator ev = {.a = a, .dom = dom, .ndom = ndom};
  psg_status st = push_frame(&ev, e, 0);
  while (!st && ev.stack.len) {
    frame *f = &ev.stack.data[ev.stack.len - 1];
    if (f->stage == 0) {
      f->stage = 1;
      bool done = false;
      st = start(&ev, f, &done);
      if (!st && done) ev.stack.len--; /* its set is pushed; nothing was stacked above it */
      continue;
    }
    psgi_int_set s = {0};
    st = finish(&ev, f, &s);
    for (size_t i = f->results; i < ev.results.len; i++) psgi_int_set_release(&ev.results.data[i]);
    ev.results.len = f->results;
    ev.stack.len--;
    if (!st) st = push_result(&ev, s);
  }
  if (!st && ev.results.len == 1) {
    *out = ev.results.data[0];
    ev.results.len = 0;
  }
  for (size_t i = 0; i < ev.results.len; i++) psgi_int_set_release(&ev.results.data[i]);
  PSGI_VEC_FREE(a->ctx, &ev.stack);
  PSGI_VEC_FREE(a->ctx, &ev.results);
  return st;
}

psg_status psgi_int_set_intersect(psg_arith_analyzer *a, const psgi_int_set *x, const psgi_int_set *y,
                                  bool check_empty, psgi_int_set *out) {
  psg_ctx *ctx = a->ctx;
  *out = everything();
  if (x->empty || y->empty) {
    out->empty = true;
    return PSG_OK;
  }
  psg_tir_expr *lo = NULL, *hi = NULL;
  psg_status st = end_op(ctx, PSG_TIR_MAX, x->min, y->min, false, &lo);
  if (!st) st = end_op(ctx, PSG_TIR_MIN, x->max, y->max, false, &hi);
  if (st) {
    psg_tir_release(lo);
    psg_tir_release(hi);
    return st;
  }
  if (lo && hi && check_empty) {
    psg_tir_expr *lt = NULL;
    st = psg_tir_op_binary(ctx, PSG_TIR_LT, hi, lo, NULL, &lt);
    bool empty = !st && psg_arith_can_prove(a, lt);
    psg_tir_release(lt);
    if (st || empty) {
      psg_tir_release(lo);
      psg_tir_release(hi);
      if (!st) out->empty = true;
      return st;
    }
  }
  *out = (psgi_int_set){.min = lo, .max = hi};
  return PSG_OK;
}

psg_status psgi_int_set_uses_var(psg_ctx *ctx, const psg_tir_node *e, bool (*pred)(const psg_tir_node *, void *),
                                 void *user, bool *out) {
  *out = false;
  PSGI_VEC(const psg_tir_node *) todo = {0};
  psg_status st = PSGI_VEC_PUSH(ctx, &todo, e) ? PSG_OK : psgi_nomem(ctx);
  while (!st && todo.len && !*out) {
    const psg_tir_node *n = todo.data[--todo.len];
    if (!n) continue;
    if (psgi_tir_is_var_kind(n->kind)) {
      *out = pred(n, user);
      continue;
    }
    if (n->kind == PSG_TIR_BUFFER) continue; /* a buffer's own vars are not uses */
    for (uint32_t i = 0; i < n->nkids && !st; i++)
      if (!PSGI_VEC_PUSH(ctx, &todo, n->kids[i])) st = psgi_nomem(ctx);
  }
  PSGI_VEC_FREE(ctx, &todo);
  return st;
}
