/* Passage — tir.VectorizeLoop (TVM's src/tir/transforms/vectorize_loop.cc),
 * a PrimFuncPass with option enable_vectorize (default true; the config
 * tir.disable_vectorize turns it off too). Each loop of kind `vectorized`
 * (constant extent >= 1, min 0) is replaced by its body rewritten over
 * vectors of `extent` lanes: the loop var becomes Ramp(0, 1, lanes), loads
 * and stores at vector indices become vector accesses, arithmetic,
 * comparisons, Select, Cast, if_then_else, tir.reinterpret and the
 * vectorizable intrinsics take vector operands (a scalar operand is
 * broadcast), `x + Ramp` and `Ramp * c` (c > 0) fold into the Ramp, and
 * Let/LetStmt vars bound to vectors become vector vars. A statement that
 * cannot be vectorized is scalarized: it becomes a serial loop over the
 * lanes with the var renamed `<var>_s` — an `if` whose condition becomes a
 * vector, a call of a non-vectorizable op given a vector, an inner loop with
 * a vector extent, an Allocate with vector extents or condition. Allocations
 * inside the loop get one copy per lane (the last extent times the lanes,
 * accesses at index * lanes + var). With vectorization off, vectorized loops
 * become serial ones. Iterative: explicit stacks for statements and
 * expressions. docs/tir-passes.md lists where this departs from TVM. */
#include <stdio.h>
#include <string.h>
#include "passage/arith.h"
#include "passage/tir_op.h"
#include "tir/transforms/tir_transforms.h"
#include "tir/transforms/stmt_slot.h"

typedef struct eframe {
  const psg_tir_node *n;
  uint32_t stage;
  size_t base; /* its operands' results start here in vz.vals */
} eframe;

typedef struct sframe {
  const psg_tir_node *n;
  uint32_t next;          /* next statement child */
  size_t res_base;        /* rewritten statement children in vz.results */
  size_t held_base;       /* its own rewritten expressions in vz.held */
  psg_tir_node *body;     /* Allocate: the body with per-lane accesses (owned) */
  psg_tir_node *new_var;  /* LetStmt: the vector var it binds instead (owned) */
  bool rebound;           /* LetStmt: pushed an entry on vz.rebound */
  bool try_predicate;     /* IfThenElse: a vector condition, predicated or scalarized at the end */
} sframe;

/* A LetStmt whose var became a vector var: scalarized statements below it
 * bind a scalar copy of the var again (see scalarize). */
typedef struct rebound {
  psg_tir_node *var, *value; /* the original var and value (borrowed from the input) */
} rebound;

typedef struct vz {
  psg_ctx *ctx;
  psg_arith_analyzer *an;
  psg_tir_node *var; /* the loop var (borrowed) */
  int lanes;
  psg_tir_node *ramp; /* Ramp(0, 1, lanes) */
  bool need_scalarize;
  bool predicate; /* tir.enable_buffer_level_predication */
  psgi_map let_binding; /* var -> what its uses become (a reference) */
  PSGI_VEC(rebound) rebound;
  PSGI_VEC(eframe) eframes;
  PSGI_VEC(psg_tir_node *) vals;
  PSGI_VEC(sframe) sframes;
  PSGI_VEC(psg_tir_node *) results;
  PSGI_VEC(psg_tir_node *) held;
} vz;

static int lanes_of(const psg_tir_node *e) { return psg_tir_dtype_lanes(e->dtype); }

static psg_status int_const(vz *z, psg_tir_dtype t, int64_t v, psg_tir_node **out) {
  return psg_tir_int_imm_create(z->ctx, t, v, NULL, out);
}

/* TVM's BroadcastTo: e itself with `lanes` lanes, a Broadcast widened, or a
 * scalar broadcast. */
static psg_status broadcast_to(vz *z, psg_tir_node *e, int lanes, psg_tir_node **out) {
  int el = lanes_of(e);
  if (el == lanes) {
    psg_tir_retain(*out = e);
    return PSG_OK;
  }
  if (e->kind == PSG_TIR_BROADCAST && lanes % el == 0)
    return psg_tir_broadcast_create(z->ctx, e->kids[0], lanes, NULL, out);
  if (el != 1)
    return psg_ctx_fail(z->ctx, PSG_ERR_UNSUPPORTED, "tir.VectorizeLoop: cannot broadcast a vector of %d lanes to %d",
                        el, lanes);
  return psg_tir_broadcast_create(z->ctx, e, lanes, NULL, out);
}

static bool is_zero(const psg_tir_node *e) {
  return (e->kind == PSG_TIR_INT_IMM && e->u.int_value == 0) || (e->kind == PSG_TIR_FLOAT_IMM && e->u.float_value == 0);
}

/* a + b, a - b, a * b as TVM's operators make them (tir_op.h: folded). */
static psg_status arith(vz *z, int kind, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out) {
  return psg_tir_op_binary(z->ctx, kind, a, b, NULL, out);
}

/* kind(BroadcastTo(a, L), BroadcastTo(b, L)) with L the larger lanes. */
static psg_status binary_vec(vz *z, int kind, psg_tir_node *a, psg_tir_node *b, bool fold, psg_tir_node **out) {
  int lanes = lanes_of(a) > lanes_of(b) ? lanes_of(a) : lanes_of(b);
  psg_tir_node *x = NULL, *y = NULL;
  psg_status st = broadcast_to(z, a, lanes, &x);
  if (!st) st = broadcast_to(z, b, lanes, &y);
  if (!st) st = fold ? arith(z, kind, x, y, out) : psg_tir_binary_create(z->ctx, kind, x, y, NULL, out);
  psg_tir_release(x);
  psg_tir_release(y);
  return st;
}

/* TVM's AddSubVec: a scalar added to a Ramp moves into its base. */
static psg_status add_sub(vz *z, int kind, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out) {
  int lanes = lanes_of(a) > lanes_of(b) ? lanes_of(a) : lanes_of(b);
  if (lanes != 1) {
    psg_tir_node *base = NULL, *stride = NULL, *zero = NULL;
    psg_status st = PSG_OK;
    if (lanes_of(a) == 1 && b->kind == PSG_TIR_RAMP) {
      st = arith(z, kind, a, b->kids[0], &base);
      if (!st) st = int_const(z, b->kids[1]->dtype, 0, &zero);
      if (!st) st = arith(z, kind, zero, b->kids[1], &stride);
      if (!st) st = psg_tir_ramp_create(z->ctx, base, stride, lanes_of(b), NULL, out);
    } else if (lanes_of(b) == 1 && a->kind == PSG_TIR_RAMP) {
      st = arith(z, kind, a->kids[0], b, &base);
      if (!st) st = psg_tir_ramp_create(z->ctx, base, a->kids[1], lanes_of(a), NULL, out);
    } else {
      return binary_vec(z, kind, a, b, true, out);
    }
    psg_tir_release(base);
    psg_tir_release(stride);
    psg_tir_release(zero);
    return st;
  }
  return binary_vec(z, kind, a, b, true, out);
}

/* Whether c > 0 is proved (c a scalar int). */
static bool positive(vz *z, psg_tir_node *c) {
  if (!psg_tir_dtype_is_int(c->dtype) && !psg_tir_dtype_is_uint(c->dtype)) return false;
  psg_tir_node *zero = NULL, *gt = NULL;
  bool yes = int_const(z, c->dtype, 0, &zero) == PSG_OK &&
             psg_tir_binary_create(z->ctx, PSG_TIR_GT, c, zero, NULL, &gt) == PSG_OK && psg_arith_can_prove(z->an, gt);
  psg_tir_release(zero);
  psg_tir_release(gt);
  return yes;
}

static psg_status mul(vz *z, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out) {
  if (lanes_of(a) > 1 || lanes_of(b) > 1) {
    psg_tir_node *ramp = a->kind == PSG_TIR_RAMP && lanes_of(b) == 1   ? a
                         : b->kind == PSG_TIR_RAMP && lanes_of(a) == 1 ? b
                                                                       : NULL;
    psg_tir_node *c = ramp == a ? b : a;
    if (ramp && positive(z, c)) {
      psg_tir_node *base = NULL, *stride = NULL;
      psg_status st = arith(z, PSG_TIR_MUL, ramp->kids[0], c, &base);
      if (!st) st = arith(z, PSG_TIR_MUL, ramp->kids[1], c, &stride);
      if (!st) st = psg_tir_ramp_create(z->ctx, base, stride, lanes_of(ramp), NULL, out);
      psg_tir_release(base);
      psg_tir_release(stride);
      return st;
    }
  }
  return binary_vec(z, PSG_TIR_MUL, a, b, false, out);
}

/* Expressions -------------------------------------------------------------- */

static bool vectorizable_op(const char *op) {
  static const char *const ops[] = {"tir.likely", "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor",
                                    "tir.bitwise_not", "tir.shift_left", "tir.shift_right", "tir.popcount",
                                    "tir.pow", "tir.fabs", "tir.floor", "tir.ceil", "tir.round", "tir.trunc",
                                    "tir.exp", "tir.exp2", "tir.exp10", "tir.tanh", "tir.sigmoid", "tir.sqrt",
                                    "tir.log", "tir.log2", "tir.log10", "tir.tan", "tir.cos", "tir.cosh",
                                    "tir.sin", "tir.sinh"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(op, ops[i])) return true;
  return false;
}

static bool is_call(const psg_tir_node *n, const char *op) {
  return n->kind == PSG_TIR_CALL && !strcmp(psgi_tir_ops[n->u.op].name, op);
}

/* Operand slots a generic expression visits, in order. */
static uint32_t num_expr_children(const psg_tir_node *n) {
  switch (n->kind) {
  case PSG_TIR_NOT:
  case PSG_TIR_CAST:
  case PSG_TIR_BROADCAST: return 1;
  case PSG_TIR_RAMP: return 2;
  case PSG_TIR_SELECT: return 3;
  case PSG_TIR_BUFFER_LOAD: return (uint32_t)psgi_tir_num_indices(n);
  case PSG_TIR_CALL: return n->nkids;
  default: return n->kind >= PSG_TIR_ADD && n->kind <= PSG_TIR_OR ? 2 : 0;
  }
}
static uint32_t expr_slot(const psg_tir_node *n, uint32_t k) { return n->kind == PSG_TIR_BUFFER_LOAD ? k + 1 : k; }

static psg_status scalarize_marker(vz *z, const psg_tir_node *n, psg_tir_node **out) {
  z->need_scalarize = true;
  psg_tir_retain(*out = (psg_tir_node *)n);
  return PSG_OK;
}

/* The rewrite of n from its operands' rewrites r[] (generic kinds). */
static psg_status combine(vz *z, const psg_tir_node *n, psg_tir_node **r, psg_tir_node **out) {
  uint32_t nc = num_expr_children(n);
  bool same = true;
  for (uint32_t k = 0; k < nc; k++) same &= r[k] == n->kids[expr_slot(n, k)];
  int kind = n->kind;
  if (kind == PSG_TIR_RAMP) { /* TVM rebuilds even when unchanged; the same Ramp */
    if (lanes_of(r[1]) > 1) return scalarize_marker(z, n, out);
    if (lanes_of(r[0]) > 1) {
      /* Ramp(Ramp(b, s * l, l), s, m) is Ramp(b, s, l * m); other vector
       * bases need a Shuffle, which this IR does not have: scalarize. */
      psg_tir_node *base = r[0], *l = NULL, *prod = NULL;
      bool ok = base->kind == PSG_TIR_RAMP && int_const(z, r[1]->dtype, lanes_of(base), &l) == PSG_OK &&
                arith(z, PSG_TIR_MUL, r[1], l, &prod) == PSG_OK && psg_arith_can_prove_equal(z->an, base->kids[1], prod);
      psg_tir_release(l);
      psg_tir_release(prod);
      int64_t total = (int64_t)lanes_of(base) * lanes_of((psg_tir_node *)n);
      if (!ok || total > PSG_TIR_MAX_LANES) return scalarize_marker(z, n, out);
      return psg_tir_ramp_create(z->ctx, base->kids[0], r[1], (int)total, NULL, out);
    }
  }
  if (same) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  switch (kind) {
  case PSG_TIR_ADD:
  case PSG_TIR_SUB: return add_sub(z, kind, r[0], r[1], out);
  case PSG_TIR_MUL: return mul(z, r[0], r[1], out);
  case PSG_TIR_NOT: return psg_tir_op_not(z->ctx, r[0], NULL, out);
  case PSG_TIR_BROADCAST:
    /* TVM rebuilds over the original value: a changed scalar value keeps n */
    if (lanes_of(r[0]) > 1) return scalarize_marker(z, n, out);
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  case PSG_TIR_RAMP: return psg_tir_ramp_create(z->ctx, r[0], r[1], lanes_of((psg_tir_node *)n), NULL, out);
  case PSG_TIR_CAST:
    return psg_tir_cast_create(z->ctx, psg_tir_dtype_with_lanes(n->dtype, lanes_of(r[0])), r[0], NULL, out);
  case PSG_TIR_SELECT: {
    int lanes = lanes_of(r[0]);
    for (int k = 1; k < 3; k++)
      if (lanes_of(r[k]) > lanes) lanes = lanes_of(r[k]);
    psg_tir_node *b[3] = {0};
    psg_status st = PSG_OK;
    for (int k = 0; k < 3 && !st; k++) st = broadcast_to(z, r[k], lanes, &b[k]);
    if (!st) st = psg_tir_select_create(z->ctx, b[0], b[1], b[2], NULL, out);
    for (int k = 0; k < 3; k++) psg_tir_release(b[k]);
    return st;
  }
  case PSG_TIR_BUFFER_LOAD: {
    /* Only the last index may be a vector here, and a predicate would need
     * the new lanes: such loads scalarize. */
    size_t ni = psgi_tir_num_indices(n);
    for (size_t k = 0; k + 1 < ni; k++)
      if (lanes_of(r[k]) > 1) return scalarize_marker(z, n, out);
    if ((n->flags & PSGI_TIR_HAS_PRED) && ni && lanes_of(r[ni - 1]) != lanes_of(n->kids[ni])) return scalarize_marker(z, n, out);
    return psg_tir_buffer_load_create(z->ctx, n->kids[0], r, ni, (n->flags & PSGI_TIR_HAS_PRED) ? n->kids[n->nkids - 1] : NULL,
                                      NULL, out);
  }
  case PSG_TIR_CALL: {
    const char *op = psgi_tir_ops[n->u.op].name;
    int lanes = 1;
    for (uint32_t k = 0; k < nc; k++)
      if (lanes_of(r[k]) > lanes) lanes = lanes_of(r[k]);
    if (!strcmp(op, "tir.reinterpret"))
      return psg_tir_call_create(z->ctx, psg_tir_dtype_with_lanes(n->dtype, lanes_of(r[0])), op, r, 1, NULL, out);
    if (!vectorizable_op(op)) {
      if (lanes > 1) return scalarize_marker(z, n, out);
      return psg_tir_call_create(z->ctx, n->dtype, op, r, nc, NULL, out);
    }
    psg_tir_node *b[8] = {0};
    if (nc > 8) return psg_ctx_fail(z->ctx, PSG_ERR_UNSUPPORTED, "tir.VectorizeLoop: %s has too many arguments", op);
    psg_status st = PSG_OK;
    for (uint32_t k = 0; k < nc && !st; k++) st = broadcast_to(z, r[k], lanes, &b[k]);
    if (!st) st = psg_tir_call_create(z->ctx, psg_tir_dtype_with_lanes(n->dtype, lanes), op, b, nc, NULL, out);
    for (uint32_t k = 0; k < nc; k++) psg_tir_release(b[k]);
    return st;
  }
  default: return binary_vec(z, kind, r[0], r[1], false, out);
  }
}

static psg_status bind(vz *z, const psg_tir_node *var, psg_tir_node *to) {
  psgi_map_entry *e = psgi_map_put_ptr(&z->let_binding, var, NULL);
  if (!e) return psgi_nomem(z->ctx);
  psg_tir_release(e->value);
  psg_tir_retain(to);
  e->value = to;
  return PSG_OK;
}

/* A Let's (or LetStmt's) binding of var to the rewritten value: a new
 * vector var when the lanes changed (*new_var, a reference), else var. */
static psg_status bind_let(vz *z, const psg_tir_node *let, psg_tir_node *value, bool stmt, psg_tir_node **new_var) {
  psg_tir_node *var = let->kids[0];
  *new_var = NULL;
  psgi_map_entry *e = psgi_map_get_ptr(&z->let_binding, var);
  if (e && (stmt || !psg_arith_expr_equal(e->value, value)))
    return psg_ctx_fail(z->ctx, PSG_ERR_INVALID_ARGUMENT,
                        stmt ? "tir.VectorizeLoop: SSA violation, var '%s' is bound twice"
                             : "tir.VectorizeLoop: Let cannot bind var '%s' to two different values",
                        psg_tir_var_name(var));
  if (lanes_of(value) != lanes_of(let->kids[1])) {
    psg_status st = psg_tir_var_create(z->ctx, psg_tir_var_name(var), value->dtype, NULL, &var->span, new_var);
    if (!st) st = bind(z, var, *new_var);
    return st;
  }
  return bind(z, var, var);
}

static psg_status push_e(vz *z, const psg_tir_node *n) {
  eframe f = {n, 0, z->vals.len};
  return PSGI_VEC_PUSH(z->ctx, &z->eframes, f) ? PSG_OK : psgi_nomem(z->ctx);
}

/* TVM's Vectorizer on an expression; sets z->need_scalarize when a part
 * cannot be vectorized. */
static psg_status vec_expr(vz *z, const psg_tir_node *root, psg_tir_node **out) {
  size_t frames0 = z->eframes.len, vals0 = z->vals.len;
  psg_status st = push_e(z, root);
  while (!st && z->eframes.len > frames0) {
    eframe *f = &z->eframes.data[z->eframes.len - 1];
    const psg_tir_node *n = f->n;
    psg_tir_node *r = NULL, **kids = (z->vals.data ? z->vals.data + f->base : NULL);
    size_t base = f->base;
    if (psgi_tir_is_var_kind(n->kind)) {
      psgi_map_entry *e = n == z->var ? NULL : psgi_map_get_ptr(&z->let_binding, n);
      psg_tir_retain(r = n == z->var ? z->ramp : e ? e->value : (psg_tir_node *)n);
    } else if (n->kind == PSG_TIR_LET) { /* var, value, body */
      if (f->stage == 0) {
        f->stage = 1;
        st = push_e(z, n->kids[1]);
        continue;
      }
      if (f->stage == 1) {
        psg_tir_node *nv = NULL;
        f->stage = 2;
        if ((st = bind_let(z, n, kids[0], false, &nv))) break;
        if (!PSGI_VEC_PUSH(z->ctx, &z->vals, nv ? nv : NULL)) {
          psg_tir_release(nv);
          st = psgi_nomem(z->ctx);
          break;
        }
        st = push_e(z, n->kids[2]);
        continue;
      }
      psg_tir_node *value = kids[0], *nv = kids[1], *body = kids[2];
      if (nv)
        st = psg_tir_let_create(z->ctx, nv, value, body, NULL, &r);
      else if (value == n->kids[1] && body == n->kids[2])
        psg_tir_retain(r = (psg_tir_node *)n);
      else
        st = psg_tir_let_create(z->ctx, n->kids[0], value, body, NULL, &r);
    } else if (is_call(n, "tir.if_then_else")) {
      if (f->stage == 1 && lanes_of(kids[0]) > 1) {
        st = scalarize_marker(z, n, &r);
      } else if (f->stage < 3) {
        st = push_e(z, n->kids[f->stage++]);
        continue;
      } else if (kids[0] == n->kids[0] && kids[1] == n->kids[1] && kids[2] == n->kids[2]) {
        psg_tir_retain(r = (psg_tir_node *)n);
      } else {
        int lanes = lanes_of(kids[1]) > lanes_of(kids[2]) ? lanes_of(kids[1]) : lanes_of(kids[2]);
        psg_tir_node *a[3] = {kids[0], NULL, NULL};
        st = broadcast_to(z, kids[1], lanes, &a[1]);
        if (!st) st = broadcast_to(z, kids[2], lanes, &a[2]);
        if (!st) st = psg_tir_call_create(z->ctx, psg_tir_dtype_with_lanes(n->dtype, lanes), "tir.if_then_else", a, 3, NULL, &r);
        psg_tir_release(a[1]);
        psg_tir_release(a[2]);
      }
    } else if (f->stage < num_expr_children(n)) {
      st = push_e(z, n->kids[expr_slot(n, f->stage++)]);
      continue;
    } else {
      st = num_expr_children(n) ? combine(z, n, kids, &r) : (psg_tir_retain(r = (psg_tir_node *)n), PSG_OK);
    }
    if (st) break;
    for (size_t i = base; i < z->vals.len; i++) psg_tir_release(z->vals.data[i]);
    z->vals.len = base;
    z->eframes.len--;
    if (!PSGI_VEC_PUSH(z->ctx, &z->vals, r)) {
      psg_tir_release(r);
      st = psgi_nomem(z->ctx);
    }
  }
  if (!st) {
    *out = z->vals.data[--z->vals.len];
    return PSG_OK;
  }
  for (size_t i = vals0; i < z->vals.len; i++) psg_tir_release(z->vals.data[i]);
  z->vals.len = vals0;
  z->eframes.len = frames0;
  return st;
}

/* Rewrites operand `slot` of n into z->held; *vector tells whether it became a vector. */
static psg_status hold(vz *z, const psg_tir_node *n, uint32_t slot, bool *vector) {
  psg_tir_node *r = NULL;
  psg_status st = vec_expr(z, n->kids[slot], &r);
  if (st) return st;
  if (vector) *vector = lanes_of(r) > 1;
  if (!PSGI_VEC_PUSH(z->ctx, &z->held, r)) {
    psg_tir_release(r);
    return psgi_nomem(z->ctx);
  }
  return PSG_OK;
}

/* Statements ---------------------------------------------------------------- */

typedef struct occurs {
  const psg_tir_node *var;
  bool found;
} occurs;
static int occurs_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  occurs *o = v->user;
  if (n == o->var) {
    o->found = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}
static bool uses(vz *z, const psg_tir_node *n, const psg_tir_node *var) {
  occurs o = {var, false};
  psg_tir_visitor v = {.pre = occurs_pre, .user = &o};
  return psg_tir_visit(z->ctx, &v, n) != PSG_OK || o.found;
}

/* TVM's Scalarize: for <var>_s in range(lanes): n[var := <var>_s]. A var of
 * an enclosing LetStmt that became a vector is bound again inside, as a
 * scalar from its original value (TVM leaves it unbound there). */
static psg_status scalarize(vz *z, const psg_tir_node *n, psg_tir_node **out) {
  psg_ctx *ctx = z->ctx;
  size_t m = z->rebound.len;
  psg_tir_node **vars = psgi_calloc(ctx, (m + 1) * sizeof *vars), **vals = psgi_calloc(ctx, (m + 1) * sizeof *vals);
  bool *needed = psgi_calloc(ctx, (m + 1) * sizeof *needed);
  psg_status st = vars && vals && needed ? PSG_OK : psgi_nomem(ctx);
  char name[256];
  snprintf(name, sizeof name, "%s_s", psg_tir_var_name(z->var));
  psg_tir_node *idx = NULL, *body = NULL, *zero = NULL, *ext = NULL;
  if (!st) st = psg_tir_var_create(ctx, name, z->var->dtype, NULL, &z->var->span, &idx);
  size_t nv = 0;
  if (!st) {
    vars[nv] = z->var, vals[nv++] = idx;
    for (size_t k = m; k-- > 0;) { /* innermost first: a needed let may need earlier ones */
      rebound *rb = &z->rebound.data[k];
      needed[k] = uses(z, n, rb->var);
      for (size_t j = k + 1; j < m && !needed[k]; j++) needed[k] = needed[j] && uses(z, z->rebound.data[j].value, rb->var);
    }
    for (size_t k = 0; k < m && !st; k++)
      if (needed[k]) {
        vars[nv] = z->rebound.data[k].var;
        st = psg_tir_var_create(ctx, psg_tir_var_name(vars[nv]), vars[nv]->dtype, NULL, &vars[nv]->span, &vals[nv]);
        nv++;
      }
  }
  if (!st) st = psgi_tir_substitute_n(ctx, n, vars, vals, nv, &body);
  /* The lets, innermost last: let k sees the vars of the lets before it. */
  for (size_t k = m, slot = nv; k-- > 0 && !st;) {
    if (!needed[k]) continue;
    slot--;
    psg_tir_node *value = NULL, *let = NULL;
    st = psgi_tir_substitute_n(ctx, z->rebound.data[k].value, vars, vals, slot, &value);
    if (!st) st = psg_tir_let_stmt_create(ctx, vals[slot], value, body, NULL, &let);
    psg_tir_release(value);
    psg_tir_release(body);
    body = let;
  }
  if (!st) st = int_const(z, z->var->dtype, 0, &zero);
  if (!st) st = int_const(z, z->var->dtype, z->lanes, &ext);
  if (!st) st = psg_tir_for_create(ctx, idx, zero, ext, PSG_TIR_FOR_SERIAL, body, NULL, &n->span, out);
  for (size_t k = 1; k < nv; k++) psg_tir_release(vals[k]);
  psg_tir_release(idx);
  psg_tir_release(body);
  psg_tir_release(zero);
  psg_tir_release(ext);
  psgi_free(ctx, vars);
  psgi_free(ctx, vals);
  psgi_free(ctx, needed);
  return st;
}

/* VecAllocAccess: every access to the buffers over `data` gets one copy per
 * lane: the last dimension times the lanes (strides dropped, as TVM does),
 * the last index i * lanes + var. */
typedef struct alloc_access {
  vz *z;
  const psg_tir_node *data;
} alloc_access;

static psg_status widen_buffer(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  alloc_access *a = m->user;
  psg_tir_node *post = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &post);
  if (st || post->kids[0] != a->data || post->u.buf.ndim == 0) {
    *out = post;
    return st;
  }
  uint32_t nd = post->u.buf.ndim;
  psg_tir_node **shape = psgi_alloc(m->ctx, nd * sizeof *shape), *lanes = NULL, *prod = NULL;
  if (!shape) st = psgi_nomem(m->ctx);
  if (!st) {
    memcpy(shape, post->kids + 2, nd * sizeof *shape);
    st = int_const(a->z, shape[nd - 1]->dtype, a->z->lanes, &lanes);
  }
  if (!st) st = arith(a->z, PSG_TIR_MUL, shape[nd - 1], lanes, &prod);
  psg_tir_node *simple = NULL;
  if (!st) st = psg_arith_simplify(a->z->an, prod, &simple);
  if (!st) {
    shape[nd - 1] = simple;
    psg_tir_buffer_desc d = {.name = post->u.buf.name, .data = post->kids[0], .dtype = post->dtype, .shape = shape,
                             .ndim = nd, .elem_offset = post->kids[1], .axis_separators = post->u.buf.axis_separators,
                             .naxis_separators = post->u.buf.naxis, .data_alignment = post->u.buf.data_alignment,
                             .offset_factor = post->u.buf.offset_factor, .buffer_type = post->u.buf.buffer_type};
    st = psg_tir_buffer_create(m->ctx, &d, &post->span, out);
  }
  psg_tir_release(simple);
  psg_tir_release(lanes);
  psg_tir_release(prod);
  psg_tir_release(post);
  psgi_free(m->ctx, shape);
  return st;
}

static psg_status widen_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  alloc_access *a = m->user;
  psg_tir_node *post = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &post);
  size_t ni = st ? 0 : psgi_tir_num_indices(post);
  if (st || post->kids[0]->kids[0] != a->data || ni == 0) {
    *out = post;
    return st;
  }
  size_t last = (size_t)(psgi_tir_indices(post) - post->kids) + ni - 1;
  psg_tir_node *idx = post->kids[last], *lanes = NULL, *prod = NULL, *sum = NULL, *simple = NULL;
  st = int_const(a->z, idx->dtype, a->z->lanes, &lanes);
  if (!st) st = arith(a->z, PSG_TIR_MUL, idx, lanes, &prod);
  if (!st) st = arith(a->z, PSG_TIR_ADD, prod, a->z->var, &sum);
  if (!st) st = psg_arith_simplify(a->z->an, sum, &simple);
  psg_tir_node **kids = st ? NULL : psgi_alloc(m->ctx, post->nkids * sizeof *kids);
  if (!st && !kids) st = psgi_nomem(m->ctx);
  if (!st) {
    memcpy(kids, post->kids, post->nkids * sizeof *kids);
    kids[last] = simple;
    st = psgi_tir_rebuild(post, kids, out);
  }
  psgi_free(m->ctx, kids);
  psg_tir_release(lanes);
  psg_tir_release(prod);
  psg_tir_release(sum);
  psg_tir_release(simple);
  psg_tir_release(post);
  return st;
}

static psg_status vec_alloc_access(vz *z, const psg_tir_node *data, const psg_tir_node *body, psg_tir_node **out) {
  alloc_access a = {z, data};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, z->ctx);
  m.user = &a;
  m.visit[PSG_TIR_BUFFER] = widen_buffer;
  m.visit[PSG_TIR_BUFFER_LOAD] = widen_access;
  m.visit[PSG_TIR_BUFFER_STORE] = widen_access;
  psg_status st = psg_tir_mutate(&m, body, out);
  psg_tir_mutator_fini(&m);
  return st;
}

/* The store of TVM's Vectorizer: the last index broadcast so the indices
 * give as many lanes as the value, or the value broadcast to the indices'. */
static psg_status store(vz *z, const psg_tir_node *n, psg_tir_node **held, psg_tir_node **out) {
  size_t ni = psgi_tir_num_indices(n);
  psg_tir_node *value = held[ni];
  bool same = value == n->kids[1];
  for (size_t k = 0; k < ni; k++) same &= held[k] == psgi_tir_indices(n)[k];
  if (same) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  for (size_t k = 0; k + 1 < ni; k++)
    if (lanes_of(held[k]) > 1) return scalarize(z, n, out);
  int64_t other = psg_tir_dtype_lanes(n->kids[0]->dtype);
  int64_t index_lanes = other * (ni ? lanes_of(held[ni - 1]) : 1);
  int64_t total = index_lanes > lanes_of(value) ? index_lanes : lanes_of(value);
  if (total % other != 0 || ni == 0)
    return psg_ctx_fail(z->ctx, PSG_ERR_UNSUPPORTED,
                        "tir.VectorizeLoop: when storing to buffer '%s', cannot produce %lld lanes of storage location "
                        "by changing the last index",
                        n->kids[0]->u.buf.name, (long long)total);
  bool pred = n->flags & PSGI_TIR_HAS_PRED;
  if (pred && total != lanes_of(n->kids[1])) return scalarize(z, n, out);
  psg_tir_node *last = NULL, *v = NULL;
  psg_status st = broadcast_to(z, held[ni - 1], (int)(total / other), &last);
  if (!st) st = broadcast_to(z, value, (int)total, &v);
  psg_tir_node **idx = st ? NULL : psgi_alloc(z->ctx, ni * sizeof *idx);
  if (!st && !idx) st = psgi_nomem(z->ctx);
  if (!st) {
    memcpy(idx, held, ni * sizeof *idx);
    idx[ni - 1] = last;
    st = psg_tir_buffer_store_create(z->ctx, n->kids[0], v, idx, ni, pred ? n->kids[n->nkids - 1] : NULL, &n->span, out);
  }
  psgi_free(z->ctx, idx);
  psg_tir_release(last);
  psg_tir_release(v);
  return st;
}

static void drop_held(vz *z, size_t base) {
  for (size_t i = base; i < z->held.len; i++) psg_tir_release(z->held.data[i]);
  z->held.len = base;
}

/* Statement n reached: either its rewrite right away (*out set), or a frame
 * pushed to visit its statement children. */
static psg_status enter(vz *z, const psg_tir_node *n, psg_tir_node **out) {
  *out = NULL;
  sframe f = {.n = n, .res_base = z->results.len, .held_base = z->held.len};
  psg_status st = PSG_OK;
  bool vec = false, v2;
  z->need_scalarize = false;
  switch (n->kind) {
  case PSG_TIR_BUFFER_STORE: {
    size_t ni = psgi_tir_num_indices(n);
    for (size_t k = 0; k < ni && !st; k++) st = hold(z, n, (uint32_t)(psgi_tir_indices(n) - n->kids + k), NULL);
    if (!st) st = hold(z, n, 1, NULL);
    if (!st) st = z->need_scalarize ? scalarize(z, n, out) : store(z, n, z->held.data + f.held_base, out);
    drop_held(z, f.held_base);
    return st;
  }
  case PSG_TIR_EVALUATE:
    if ((st = hold(z, n, 0, NULL))) return st;
    if (z->need_scalarize)
      st = scalarize(z, n, out);
    else if (z->held.data[f.held_base] == n->kids[0])
      psg_tir_retain(*out = (psg_tir_node *)n);
    else
      st = psg_tir_evaluate_create(z->ctx, z->held.data[f.held_base], &n->span, out);
    drop_held(z, f.held_base);
    return st;
  case PSG_TIR_WHILE:
    return psg_ctx_fail(z->ctx, PSG_ERR_UNSUPPORTED, "tir.VectorizeLoop: A while loop inside a vectorized loop not supported.");
  case PSG_TIR_FOR:
    if (!is_zero(n->kids[1]))
      return psg_ctx_fail(z->ctx, PSG_ERR_UNSUPPORTED,
                          "tir.VectorizeLoop: loop '%s' inside a vectorized loop must start at 0",
                          psg_tir_var_name(n->kids[0]));
    st = hold(z, n, 2, &vec);
    break;
  case PSG_TIR_IF_THEN_ELSE:
    st = hold(z, n, 0, &vec);
    /* TVM's TryPredicateBufferAccesses needs the vectorized then-branch */
    f.try_predicate = !st && vec && !z->need_scalarize && z->predicate && n->nkids == 2;
    if (f.try_predicate) vec = false;
    break;
  case PSG_TIR_ATTR_STMT: st = hold(z, n, 0, NULL); break;
  case PSG_TIR_ASSERT_STMT:
    st = hold(z, n, 0, &vec);
    if (!st) st = hold(z, n, 1, &v2);
    break;
  case PSG_TIR_LET_STMT:
    st = hold(z, n, 1, NULL);
    if (!st && !z->need_scalarize) {
      st = bind_let(z, n, z->held.data[f.held_base], true, &f.new_var);
      if (!st && f.new_var) {
        rebound rb = {n->kids[0], n->kids[1]};
        if (!PSGI_VEC_PUSH(z->ctx, &z->rebound, rb)) st = psgi_nomem(z->ctx);
        f.rebound = !st;
      }
    }
    break;
  case PSG_TIR_ALLOCATE: /* buffer_var, condition, body, extents */
    for (uint32_t k = 1; k < n->nkids && !st; k++) {
      if (k == 2) continue;
      st = hold(z, n, k, &v2);
      vec |= v2;
    }
    if (!st && !vec && !z->need_scalarize) {
      psg_tir_node **ext = &z->held.data[z->held.len - 1], *lanes = NULL, *prod = NULL;
      st = int_const(z, (*ext)->dtype, z->lanes, &lanes);
      if (!st) st = arith(z, PSG_TIR_MUL, *ext, lanes, &prod);
      if (!st) {
        psg_tir_release(*ext);
        *ext = prod;
        prod = NULL;
        st = vec_alloc_access(z, n->kids[0], n->kids[2], &f.body);
      }
      psg_tir_release(lanes);
      psg_tir_release(prod);
    }
    break;
  default: break;
  }
  if (!st && (z->need_scalarize || vec)) st = scalarize(z, n, out);
  if (st || *out) {
    drop_held(z, f.held_base);
    psg_tir_release(f.body);
    psg_tir_release(f.new_var);
    if (f.rebound) z->rebound.len--;
    return st;
  }
  if (!PSGI_VEC_PUSH(z->ctx, &z->sframes, f)) {
    drop_held(z, f.held_base);
    psg_tir_release(f.body);
    psg_tir_release(f.new_var);
    if (f.rebound) z->rebound.len--;
    return psgi_nomem(z->ctx);
  }
  return PSG_OK;
}

/* TVM's TryPredicateBufferAccesses: under `if Ramp(b, s) < Broadcast(l)`,
 * every load and store whose first index is a Ramp from b gets the
 * predicate get_active_lane_mask(b, l); it succeeds when all of them do. */
typedef struct predicator {
  vz *z;
  psg_tir_node *base, *limit;
  size_t analyzed, rewritten;
} predicator;

static psg_status predicate_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  predicator *p = m->user;
  psg_tir_node *post = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &post);
  if (st) return st;
  *out = post;
  p->analyzed++;
  size_t ni = psgi_tir_num_indices(post);
  psg_tir_node *const *idx = psgi_tir_indices(post), *mask = NULL;
  /* (only a last index is a vector here: a Ramp first index is the only one) */
  if (ni != 1 || idx[0]->kind != PSG_TIR_RAMP || !psg_arith_expr_equal(idx[0]->kids[0], p->base) ||
      psg_tir_dtype_lanes(post->kids[0]->dtype) != 1)
    return PSG_OK;
  psg_tir_node *args[2] = {p->base, p->limit};
  st = psg_tir_call_create(m->ctx, psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), lanes_of(idx[0])),
                           "tir.get_active_lane_mask", args, 2, NULL, &mask);
  psg_tir_node *r = NULL;
  if (!st && post->kind == PSG_TIR_BUFFER_LOAD)
    st = psg_tir_buffer_load_create(m->ctx, post->kids[0], idx, ni, mask, &post->span, &r);
  else if (!st)
    st = psg_tir_buffer_store_create(m->ctx, post->kids[0], post->kids[1], idx, ni, mask, &post->span, &r);
  psg_tir_release(mask);
  if (st) return st;
  psg_tir_release(post);
  *out = r;
  p->rewritten++;
  return PSG_OK;
}

/* The predicated then-branch, or NULL when not every access could be. */
static psg_status try_predicate(vz *z, psg_tir_node *cond, psg_tir_node *then_case, psg_tir_node **out) {
  *out = NULL;
  if (cond->kind != PSG_TIR_LT || cond->kids[0]->kind != PSG_TIR_RAMP || cond->kids[1]->kind != PSG_TIR_BROADCAST)
    return PSG_OK;
  predicator p = {z, cond->kids[0]->kids[0], cond->kids[1]->kids[0], 0, 0};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, z->ctx);
  m.user = &p;
  m.visit[PSG_TIR_BUFFER_LOAD] = predicate_access;
  m.visit[PSG_TIR_BUFFER_STORE] = predicate_access;
  psg_tir_node *r = NULL;
  psg_status st = psg_tir_mutate(&m, then_case, &r);
  psg_tir_mutator_fini(&m);
  if (!st && p.analyzed > 0 && p.analyzed == p.rewritten)
    *out = r;
  else
    psg_tir_release(r);
  return st;
}

/* Frame f's children are done: its rewrite. */
static psg_status finish(vz *z, sframe *f, psg_tir_node **out) {
  const psg_tir_node *n = f->n;
  psg_tir_node **held = (z->held.data ? z->held.data + f->held_base : NULL), **res = (z->results.data ? z->results.data + f->res_base : NULL);
  size_t nres = z->results.len - f->res_base;
  if (f->rebound) z->rebound.len--;
  if (f->try_predicate) {
    psg_status st = try_predicate(z, held[0], res[0], out);
    return st || *out ? st : scalarize(z, n, out);
  }
  psg_tir_node *small[8], **kids = small;
  if (n->nkids > 8 && !(kids = psgi_alloc(z->ctx, n->nkids * sizeof *kids))) return psgi_nomem(z->ctx);
  memcpy(kids, n->kids, n->nkids * sizeof *kids);
  switch (n->kind) {
  case PSG_TIR_FOR: kids[2] = held[0]; break;
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_ATTR_STMT: kids[0] = held[0]; break;
  case PSG_TIR_ASSERT_STMT: kids[0] = held[0], kids[1] = held[1]; break;
  case PSG_TIR_LET_STMT:
    kids[1] = held[0];
    if (f->new_var) kids[0] = f->new_var;
    break;
  case PSG_TIR_ALLOCATE:
    kids[1] = held[0];
    for (uint32_t k = 3; k < n->nkids; k++) kids[k] = held[k - 2];
    break;
  default: break;
  }
  for (size_t k = 0; k < nres; k++) kids[psgi_tir_stmt_slot(n, (uint32_t)k)] = res[k];
  bool same = true;
  for (uint32_t k = 0; k < n->nkids; k++) same &= kids[k] == n->kids[k];
  psg_status st = PSG_OK;
  if (same)
    psg_tir_retain(*out = (psg_tir_node *)n);
  else
    st = psgi_tir_rebuild(n, kids, out);
  if (kids != small) psgi_free(z->ctx, kids);
  return st;
}

static psg_status vec_stmt(vz *z, const psg_tir_node *root, psg_tir_node **out) {
  psg_tir_node *r = NULL;
  psg_status st = enter(z, root, &r);
  while (!st && !r) {
    sframe *f = &z->sframes.data[z->sframes.len - 1];
    int slot = psgi_tir_stmt_slot(f->n, f->next);
    const psg_tir_node *child = NULL;
    if (slot >= 0) {
      child = f->n->kind == PSG_TIR_ALLOCATE ? f->body : f->n->kids[slot];
      f->next++;
      if ((st = enter(z, child, &r))) break;
      if (!r) continue; /* a frame was pushed */
    } else {
      st = finish(z, f, &r);
      for (size_t i = f->res_base; i < z->results.len; i++) psg_tir_release(z->results.data[i]);
      z->results.len = f->res_base;
      drop_held(z, f->held_base);
      psg_tir_release(f->body);
      psg_tir_release(f->new_var);
      z->sframes.len--;
      if (st) break;
    }
    if (!z->sframes.len) break; /* r is the root's rewrite */
    if (!PSGI_VEC_PUSH(z->ctx, &z->results, r)) {
      psg_tir_release(r);
      st = psgi_nomem(z->ctx);
      break;
    }
    r = NULL;
  }
  if (!st) {
    *out = r;
    return PSG_OK;
  }
  psg_tir_release(r);
  while (z->sframes.len) {
    sframe *f = &z->sframes.data[--z->sframes.len];
    psg_tir_release(f->body);
    psg_tir_release(f->new_var);
  }
  for (size_t i = 0; i < z->results.len; i++) psg_tir_release(z->results.data[i]);
  z->results.len = 0;
  drop_held(z, 0);
  return st;
}

/* One vectorized loop: its body over `extent` lanes. */
static psg_status vectorize(psg_ctx *ctx, const psg_tir_node *loop, bool predicate, psg_tir_node **out) {
  const psg_tir_node *ext = loop->kids[2];
  if (ext->kind != PSG_TIR_INT_IMM || ext->u.int_value < 1 || ext->u.int_value > PSG_TIR_MAX_LANES) {
    char what[160];
    if (ext->kind == PSG_TIR_INT_IMM)
      snprintf(what, sizeof what, "%lld", (long long)ext->u.int_value);
    else if (psgi_tir_is_var_kind(ext->kind))
      snprintf(what, sizeof what, "%s", psg_tir_var_name(ext));
    else
      snprintf(what, sizeof what, "(a non-constant %s)", psg_tir_kind_name(ext->kind));
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "Failed to vectorize loop with extent %s for target (nullptr)", what);
  }
  if (!is_zero(loop->kids[1]))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "tir.VectorizeLoop: vectorized loop '%s' must start at 0",
                        psg_tir_var_name(loop->kids[0]));
  vz z = {.ctx = ctx, .var = loop->kids[0], .lanes = (int)ext->u.int_value, .predicate = predicate};
  psgi_map_init(&z.let_binding, ctx);
  psg_tir_node *zero = NULL, *one = NULL;
  psg_status st = psg_arith_analyzer_create(ctx, &z.an);
  if (!st) st = int_const(&z, z.var->dtype, 0, &zero);
  if (!st) st = int_const(&z, z.var->dtype, 1, &one);
  /* extent 1: the var is the scalar 0 (Ramp needs 2 lanes or more) */
  if (!st && z.lanes == 1) psg_tir_retain(z.ramp = zero);
  else if (!st) st = psg_tir_ramp_create(ctx, zero, one, z.lanes, NULL, &z.ramp);
  if (!st) st = vec_stmt(&z, loop->kids[3], out);
  psg_tir_release(zero);
  psg_tir_release(one);
  psg_tir_release(z.ramp);
  for (size_t i = 0; i < z.let_binding.len; i++) psg_tir_release(z.let_binding.entries[i].value);
  psgi_map_fini(&z.let_binding);
  psg_arith_analyzer_destroy(z.an);
  PSGI_VEC_FREE(ctx, &z.rebound);
  PSGI_VEC_FREE(ctx, &z.eframes);
  PSGI_VEC_FREE(ctx, &z.vals);
  PSGI_VEC_FREE(ctx, &z.sframes);
  PSGI_VEC_FREE(ctx, &z.results);
  PSGI_VEC_FREE(ctx, &z.held);
  return st;
}

/* The pass ----------------------------------------------------------------------- */

/* The pass walks statements only: a vectorized loop is a statement, and
 * statements sit only under statements, so no expression changes outside
 * the loops it vectorizes, and walking them (as a mutator over every node
 * does) finds nothing (docs/design.md, departure "VectorizeLoop walks
 * statements only"). Each statement is rewritten once (a shared one keeps
 * one result); a statement none of whose statement children changed stays
 * itself; one that changed is rebuilt over its new children
 * (psgi_tir_rebuild, what the mutator does); children are visited in
 * operand order, so the first loop that fails is the mutator's. */
typedef struct wframe {
  const psg_tir_node *n;
  uint32_t next; /* next operand to look at */
  size_t base;   /* its statement children's results start here */
} wframe;

/* The loop itself once its body is rewritten: TVM's VectorizeSkipper turns a
 * vectorized loop into a serial one (annotations dropped). */
static psg_status skip_loop(psg_ctx *ctx, psg_tir_node *post, psg_tir_node **out) {
  if (post->kind != PSG_TIR_FOR || post->u.loop.kind != PSG_TIR_FOR_VECTORIZED) {
    psg_tir_retain(*out = post);
    return PSG_OK;
  }
  return psg_tir_for_create(ctx, post->kids[0], post->kids[1], post->kids[2], PSG_TIR_FOR_SERIAL, post->kids[3], NULL,
                            &post->span, out);
}

/* n over its statement children's results (res: one per statement operand, in order). */
static psg_status rebuilt(psg_ctx *ctx, const psg_tir_node *n, psg_tir_node *const *res, psg_tir_node **out) {
  bool same = true;
  for (uint32_t i = 0, r = 0; i < n->nkids; i++)
    if (psgi_tir_is_stmt_kind(n->kids[i]->kind)) same &= res[r++] == n->kids[i];
  if (same) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  psg_tir_node **kids = psgi_alloc(ctx, n->nkids * sizeof *kids);
  if (!kids) return psgi_nomem(ctx);
  for (uint32_t i = 0, r = 0; i < n->nkids; i++)
    kids[i] = psgi_tir_is_stmt_kind(n->kids[i]->kind) ? res[r++] : n->kids[i];
  psg_status st = psgi_tir_rebuild(n, kids, out);
  psgi_free(ctx, kids);
  return st;
}

static psg_status walk_stmts(psg_ctx *ctx, const psg_tir_node *root, bool enable, bool predicate, psg_tir_node **out) {
  PSGI_VEC(wframe) st = {0};
  PSGI_VEC(psg_tir_node *) res = {0};
  psgi_map memo; /* statement -> its result (a reference) */
  psgi_map_init(&memo, ctx);
  psg_status rc = PSG_OK;
  *out = NULL;
  if (!PSGI_VEC_PUSH(ctx, &st, ((wframe){root, 0, 0}))) rc = psgi_nomem(ctx);
  while (!rc && st.len) {
    wframe *f = &st.data[st.len - 1];
    const psg_tir_node *n = f->n;
    psg_tir_node *r = NULL;
    if (f->next == 0 && enable && n->kind == PSG_TIR_FOR && n->u.loop.kind == PSG_TIR_FOR_VECTORIZED) {
      rc = vectorize(ctx, n, predicate, &r); /* the mutator's pre: the loop is replaced whole */
    } else {
      while (f->next < n->nkids && !psgi_tir_is_stmt_kind(n->kids[f->next]->kind)) f->next++;
      if (f->next < n->nkids) {
        const psg_tir_node *k = n->kids[f->next++];
        psgi_map_entry *e = psgi_map_get_ptr(&memo, k);
        if (e) {
          psg_tir_retain(e->value);
          if (!PSGI_VEC_PUSH(ctx, &res, e->value)) {
            psg_tir_release(e->value);
            rc = psgi_nomem(ctx);
          }
        } else if (!PSGI_VEC_PUSH(ctx, &st, ((wframe){k, 0, res.len}))) {
          rc = psgi_nomem(ctx);
        }
        continue;
      }
      psg_tir_node *post = NULL;
      rc = rebuilt(ctx, n, res.data ? res.data + f->base : NULL, &post);
      if (!rc && !enable) rc = skip_loop(ctx, post, &r);
      else r = post, post = NULL;
      psg_tir_release(post);
    }
    size_t base = f->base;
    st.len--;
    for (size_t i = base; i < res.len; i++) psg_tir_release(res.data[i]);
    res.len = base;
    if (rc) break;
    psgi_map_entry *e = psgi_map_put_ptr(&memo, n, NULL);
    if (!e || !PSGI_VEC_PUSH(ctx, &res, r)) {
      psg_tir_release(r);
      rc = psgi_nomem(ctx);
      break;
    }
    psg_tir_retain(e->value = r);
  }
  if (!rc) *out = res.data[0];
  else
    for (size_t i = 0; i < res.len; i++) psg_tir_release(res.data[i]);
  for (size_t i = 0; i < memo.len; i++) psg_tir_release(memo.entries[i].value);
  psgi_map_fini(&memo);
  PSGI_VEC_FREE(ctx, &st);
  PSGI_VEC_FREE(ctx, &res);
  return rc;
}

psg_status psgi_tir_vectorize_loop(psg_ctx *ctx, const psg_tir_prim_func *f, bool enable, bool predicate,
                                   psg_tir_prim_func **out) {
  *out = NULL;
  psg_tir_node *body = NULL;
  psg_status st = walk_stmts(ctx, psg_tir_get_body(f), enable, predicate, &body);
  if (st) return st;
  if (body == psg_tir_get_body(f)) psg_tir_retain(*out = (psg_tir_prim_func *)f);
  else st = psgi_tir_func_with_body(ctx, f, body, out);
  psg_tir_release(body);
  return st;
}

/* The mutator form of the pass (kept for test_tir_vectorize_stmts, which
 * checks that the statement walk gives the same function). */
static psg_status vectorize_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  if (n->kind != PSG_TIR_FOR || n->u.loop.kind != PSG_TIR_FOR_VECTORIZED) return PSG_OK;
  return vectorize(m->ctx, n, *(bool *)m->user, replacement);
}

static psg_status skip_post(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_tir_node *post = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &post);
  if (st) return st;
  st = skip_loop(m->ctx, post, out);
  psg_tir_release(post);
  return st;
}

psg_status psgi_tir_vectorize_loop_mutator(psg_ctx *ctx, const psg_tir_prim_func *f, bool enable, bool predicate,
                                           psg_tir_prim_func **out) {
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &predicate;
  if (enable)
    m.pre = vectorize_pre;
  else
    m.visit[PSG_TIR_FOR] = skip_post;
  psg_status st = psg_tir_mutate(&m, f, out);
  psg_tir_mutator_fini(&m);
  return st;
}

static psg_status vectorize_loop_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                      psg_tir_prim_func **out) {
  (void)mod;
  bool enable = psg_attr_get_bool(psg_attrs_get(user, "enable_vectorize")) &&
                !psg_pass_context_config_bool(pc, "tir.disable_vectorize");
  bool predicate = psg_pass_context_config_bool(pc, "tir.enable_buffer_level_predication");
  return psgi_tir_vectorize_loop(psg_pass_context_get_ctx(pc), f, enable, predicate, out);
}

static const psg_pass_option options[] = {{"enable_vectorize", PSG_CONFIG_BOOL, "true"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_tir_vectorize_loop = {
    .name = "tir.VectorizeLoop",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .options = options,
    .help = "turn loops of kind vectorized into Ramp/Broadcast vector code, scalarizing what cannot be vectorized "
            "(enable_vectorize=false or config tir.disable_vectorize: they become serial loops)",
    .prim_func = vectorize_loop_pass,
    .cacheable = true,
};
