/* Passage — tir.LowerIntrin (TVM's src/tir/transforms/lower_intrin.cc), a
 * PrimFuncPass without options, with the rules of TVM's "c" target: the C
 * source target, which registers no rules of its own, so TVM's
 * "default.FLowerIntrinsic" and "default.FLegalize" rules
 * (src/target/intrin_rule.cc) apply, in that order:
 *   - exp, erf, log, log2, log10, log1p, tanh, tan, atan, atanh, atan2, cos,
 *     acos, cosh, acosh, sin, asin, sinh, asinh, hypot, nextafter, copysign,
 *     ldexp, sqrt, floor, ceil, round, nearbyint, pow of a scalar float32 become
 *     T.call_pure_extern("float32", "<name>f", ...), of a float64 "<name>";
 *     other dtypes (vectors, float16) stay;
 *   - rsqrt(x) becomes 1 / sqrt(x), sigmoid(x) 1 / (1 + exp(-x)),
 *     isinf(x) fabs(x) == inf && !isnan(x), isfinite(x) !isinf(x) && !isnan(x)
 *     (their sqrt / exp lowered in turn);
 *   - integer floordiv / floormod become truncated division: a shift or a mask
 *     by a constant power of two; with a divisor proved >= 0, plain truncdiv /
 *     truncmod when the dividend (or the result) is proved >= 0, an offset
 *     by a multiple of b when the dividend has a finite lower bound, else
 *     the sign fix rdiv + (rmod >> (bits - 1)) (int32, int64) or a Select;
 *     with a divisor of unknown sign, Lets of rmod / rdiv and a Select;
 *   - max(floordiv(x, y), c) with c >= 0 and y >= 0 becomes
 *     max(truncdiv(x, y), c); floormod(x, y) == 0 (!= 0) becomes
 *     truncmod(x, y) == 0 (!= 0);
 *   - a * b + c with a Broadcast(Cast) operand moves the cast outside the
 *     broadcast (TVM's SwapBroadcastCast; "c" has no fma rule).
 * Facts come from the enclosing loops, LetStmts, ifs, Selects, if_then_else
 * and thread extents, as in TVM's IRMutatorWithAnalyzer. Iterative (the
 * generic mutator). */
#include <stdio.h>
#include <string.h>
#include "passage/tir_op.h"
#include "tir/transforms/tir_transforms.h"

typedef struct lw {
  psg_ctx *ctx;
  psg_arith_analyzer *a;
  psg_tir_node *yes; /* true: entered to take a snapshot of the facts */
  PSGI_VEC(psg_arith_scope) scopes;
  PSGI_VEC(psg_tir_node *) tmp; /* built pieces, released after each rewrite */
  psg_status st;
} lw;

/* Builders: NULL once something failed (l->st). */
static psg_tir_node *keep(lw *l, psg_status st, psg_tir_node **np) {
  psg_tir_node *n = *np;
  if (st) {
    if (!l->st) l->st = st;
    return NULL;
  }
  if (!PSGI_VEC_PUSH(l->ctx, &l->tmp, n)) {
    psg_tir_release(n);
    l->st = psgi_nomem(l->ctx);
    return NULL;
  }
  return n;
}

static psg_tir_node *bin(lw *l, int kind, psg_tir_node *a, psg_tir_node *b) {
  psg_tir_node *r = NULL;
  if (l->st || !a || !b) return NULL;
  return keep(l, psg_tir_op_binary(l->ctx, kind, a, b, NULL, &r), &r);
}

static psg_tir_node *cint(lw *l, psg_tir_dtype t, int64_t v) {
  psg_tir_node *r = NULL;
  if (l->st) return NULL;
  return keep(l, psg_tir_make_const_int(l->ctx, t, v, NULL, &r), &r);
}

static psg_tir_node *call(lw *l, psg_tir_dtype t, const char *op, psg_tir_node **args, size_t n) {
  psg_tir_node *r = NULL;
  if (l->st) return NULL;
  for (size_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  return keep(l, psg_tir_call_create(l->ctx, t, op, args, n, NULL, &r), &r);
}

/* TVM's operator>> and operator&: folded for constants, a >> 0 is a. */
static psg_tir_node *shr(lw *l, psg_tir_node *a, psg_tir_node *b) {
  if (!a || !b) return NULL;
  if (b->kind == PSG_TIR_INT_IMM && b->u.int_value == 0) return a;
  if (a->kind == PSG_TIR_INT_IMM && b->kind == PSG_TIR_INT_IMM) return cint(l, a->dtype, a->u.int_value >> b->u.int_value);
  psg_tir_node *args[2] = {a, b};
  return call(l, a->dtype, "tir.shift_right", args, 2);
}

static psg_tir_node *band(lw *l, psg_tir_node *a, psg_tir_node *b) {
  if (!a || !b) return NULL;
  if (a->kind == PSG_TIR_INT_IMM && b->kind == PSG_TIR_INT_IMM) return cint(l, a->dtype, a->u.int_value & b->u.int_value);
  psg_tir_node *args[2] = {a, b};
  return call(l, a->dtype, "tir.bitwise_and", args, 2);
}

static psg_tir_node *select_(lw *l, psg_tir_node *c, psg_tir_node *t, psg_tir_node *f) {
  psg_tir_node *r = NULL;
  if (l->st || !c || !t || !f) return NULL;
  return keep(l, psg_tir_select_create(l->ctx, c, t, f, NULL, &r), &r);
}

static psg_tir_node *let_(lw *l, psg_tir_node *v, psg_tir_node *value, psg_tir_node *body) {
  psg_tir_node *r = NULL;
  if (l->st || !v || !value || !body) return NULL;
  return keep(l, psg_tir_let_create(l->ctx, v, value, body, NULL, &r), &r);
}

static psg_tir_node *var_(lw *l, const char *name, psg_tir_dtype t) {
  psg_tir_node *r = NULL;
  if (l->st) return NULL;
  return keep(l, psg_tir_var_create(l->ctx, name, t, NULL, NULL, &r), &r);
}

/* The result of a rewrite callback: `r` (retained) or the failure. */
static psg_status done(lw *l, psg_tir_node *r, psg_tir_node **out) {
  psg_status st = l->st;
  if (!st && r) psg_tir_retain(*out = r);
  for (size_t i = 0; i < l->tmp.len; i++) psg_tir_release(l->tmp.data[i]);
  l->tmp.len = 0;
  l->st = PSG_OK;
  return st;
}

/* TVM's Analyzer::CanProveGreaterEqual(e, 0): a constant, or the bound of
 * its rewrite-simplified form. */
static bool proved_non_negative(lw *l, psg_tir_node *e) {
  if (!e || l->st) return false;
  if (e->kind == PSG_TIR_INT_IMM) return e->u.int_value >= 0;
  psg_tir_node *s = NULL;
  psg_arith_bound b = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
  psg_status st = psg_arith_rewrite_simplify(l->a, e, &s);
  if (!st) st = psg_arith_const_int_bound(l->a, s, &b);
  psg_tir_release(s);
  if (st && !l->st) l->st = st;
  return !st && b.min >= 0;
}

static bool power_of_two(const psg_tir_node *b, int *shift) {
  if (b->kind != PSG_TIR_INT_IMM || b->u.int_value <= 0 || (b->u.int_value & (b->u.int_value - 1))) return false;
  *shift = __builtin_ctzll((unsigned long long)b->u.int_value);
  return true;
}

/* Math calls ---------------------------------------------------------------------- */

static const char *const extern_ops[] = {
    "exp",   "erf",  "log",  "log2", "log10", "log1p", "tanh",  "tan",       "atan",     "atanh",
    "atan2", "cos",  "acos", "cosh", "acosh", "sin",   "asin",  "sinh",      "asinh",    "hypot",
    "nextafter", "copysign", "ldexp", "sqrt", "floor", "ceil", "round", "nearbyint", "pow"};

static bool is_extern_op(const char *name) {
  for (size_t i = 0; i < sizeof extern_ops / sizeof *extern_ops; i++)
    if (strcmp(name, extern_ops[i]) == 0) return true;
  return false;
}

/* DispatchPureExtern<FloatSuffix> of tir.<name>(args) (args already
 * lowered); NULL (no failure) when the dtype has no libm name. */
static psg_tir_node *pure_extern(lw *l, psg_tir_dtype t, const char *name, psg_tir_node **args, size_t n) {
  const char *suffix = t == psg_tir_dtype_float32() ? "f"
                       : t == psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 64, 1) ? "" : NULL;
  if (!suffix || l->st) return NULL;
  char full[32];
  snprintf(full, sizeof full, "%s%s", name, suffix);
  psg_tir_node *all[3] = {NULL, NULL, NULL}, *s = NULL;
  if (!keep(l, psg_tir_string_imm_create(l->ctx, full, strlen(full), NULL, &s), &s)) return NULL;
  all[0] = s;
  for (size_t i = 0; i < n && i < 2; i++) all[i + 1] = args[i];
  return call(l, t, "tir.call_pure_extern", all, n + 1);
}

/* tir.<name>(x) built and lowered (the rules' inner calls). */
static psg_tir_node *math1(lw *l, const char *name, psg_tir_node *x) {
  if (!x) return NULL;
  psg_tir_node *r = pure_extern(l, x->dtype, name, &x, 1);
  if (r || l->st) return r;
  char op[32];
  snprintf(op, sizeof op, "tir.%s", name);
  return call(l, x->dtype, op, &x, 1);
}

static psg_tir_node *isnan_(lw *l, psg_tir_node *x) {
  psg_tir_dtype bt = psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), psg_tir_dtype_lanes(x->dtype));
  if (psg_tir_dtype_bits(x->dtype) == 16) {
    psg_tir_node *c = NULL;
    if (!keep(l, psg_tir_op_cast(l->ctx, psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 32, psg_tir_dtype_lanes(x->dtype)), x, NULL, &c), &c))
      return NULL;
    x = c;
  }
  return call(l, bt, "tir.isnan", &x, 1);
}

/* TVM's isinf(x) for a float x: fabs(x) == inf && !isnan(x). */
static psg_tir_node *isinf_(lw *l, psg_tir_node *x) {
  psg_tir_node *inf = NULL, *nan = isnan_(l, x), *not_nan = NULL;
  if (!nan || !keep(l, psg_tir_make_const_float(l->ctx, x->dtype, __builtin_inf(), NULL, &inf), &inf)) return NULL;
  if (!keep(l, psg_tir_op_not(l->ctx, nan, NULL, &not_nan), &not_nan)) return NULL;
  return bin(l, PSG_TIR_AND, bin(l, PSG_TIR_EQ, call(l, x->dtype, "tir.fabs", &x, 1), inf), not_nan);
}

static psg_status visit_call(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  lw *l = m->user;
  const char *op = psgi_tir_ops[n->u.op].name + 4;
  psg_tir_node *args[2] = {NULL, NULL}, *r = NULL;
  for (uint32_t i = 0; i < n->nkids && i < 2; i++) args[i] = psg_tir_mutator_get_result(m, n->kids[i]);
  bool is_float = psg_tir_dtype_is_float(n->dtype) && n->nkids >= 1;
  if (is_extern_op(op)) {
    r = pure_extern(l, n->dtype, op, args, n->nkids);
  } else if (is_float && strcmp(op, "rsqrt") == 0) {
    r = bin(l, PSG_TIR_DIV, cint(l, n->dtype, 1), math1(l, "sqrt", args[0]));
  } else if (is_float && strcmp(op, "sigmoid") == 0) {
    psg_tir_node *neg = NULL;
    if (keep(l, psg_tir_op_neg(l->ctx, args[0], NULL, &neg), &neg))
      r = bin(l, PSG_TIR_DIV, cint(l, n->dtype, 1), bin(l, PSG_TIR_ADD, cint(l, n->dtype, 1), math1(l, "exp", neg)));
  } else if ((strcmp(op, "isinf") == 0 || strcmp(op, "isfinite") == 0) && n->nkids == 1) {
    psg_tir_node *x = args[0];
    if (!psg_tir_dtype_is_float(x->dtype)) {
      r = cint(l, n->dtype, strcmp(op, "isfinite") == 0);
    } else if (strcmp(op, "isinf") == 0) {
      r = isinf_(l, x);
    } else {
      psg_tir_node *a = NULL, *b = NULL, *inf = isinf_(l, x), *nan = isnan_(l, x);
      if (inf && nan && keep(l, psg_tir_op_not(l->ctx, inf, NULL, &a), &a) && keep(l, psg_tir_op_not(l->ctx, nan, NULL, &b), &b))
        r = bin(l, PSG_TIR_AND, a, b);
    }
  }
  if (r || l->st) return done(l, r, out);
  done(l, NULL, out);
  return psg_tir_mutator_default(m, n, out);
}

/* floordiv / floormod ---------------------------------------------------------------- */

static psg_status visit_floor(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  lw *l = m->user;
  bool is_div = n->kind == PSG_TIR_FLOOR_DIV;
  psg_tir_node *a = psg_tir_mutator_get_result(m, n->kids[0]), *b = psg_tir_mutator_get_result(m, n->kids[1]);
  psg_tir_dtype t = n->dtype;
  psg_tir_node *r = NULL;
  int shift;
  if (psg_tir_dtype_is_float(t)) { /* TVM's dead branch (it ICHECKs int): floor(a / b) */
    psg_tir_node *q = math1(l, "floor", bin(l, PSG_TIR_DIV, a, b));
    r = is_div ? q : bin(l, PSG_TIR_SUB, a, bin(l, PSG_TIR_MUL, q, b));
  } else if (power_of_two(b, &shift)) {
    r = is_div ? shr(l, a, cint(l, t, shift)) : band(l, a, cint(l, t, ((int64_t)1 << shift) - 1));
  } else if (proved_non_negative(l, b)) {
    psg_arith_bound bd = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
    int bits = psg_tir_dtype_bits(t);
    int64_t max_value = psg_tir_dtype_is_uint(t) ? (bits >= 64 ? INT64_MAX : (int64_t)((1ull << bits) - 1))
                                                 : (int64_t)((1ull << (bits - 1)) - 1);
    if (proved_non_negative(l, a) || (is_div && proved_non_negative(l, (psg_tir_node *)n))) {
      r = bin(l, is_div ? PSG_TIR_DIV : PSG_TIR_MOD, a, b);
    } else if (!l->st && !(l->st = psg_arith_const_int_bound(l->a, a, &bd)) && bd.min < 0 && bd.min > -max_value) {
      psg_tir_dtype et = psg_tir_dtype_with_lanes(a->dtype, 1);
      psg_tir_node *min = cint(l, et, bd.min), *ceildiv, *num = NULL;
      if (is_div) ceildiv = bin(l, PSG_TIR_DIV, bin(l, PSG_TIR_SUB, bin(l, PSG_TIR_SUB, b, cint(l, t, 1)), min), b);
      else {
        psg_tir_node *neg = NULL;
        if (min) keep(l, psg_tir_op_neg(l->ctx, min, NULL, &neg), &neg);
        ceildiv = bin(l, PSG_TIR_DIV, bin(l, PSG_TIR_ADD, neg, bin(l, PSG_TIR_SUB, b, cint(l, t, 1))), b);
      }
      psg_tir_node *sum = bin(l, PSG_TIR_ADD, a, bin(l, PSG_TIR_MUL, b, ceildiv));
      if (sum && !l->st) keep(l, psg_arith_simplify(l->a, sum, &num), &num);
      r = is_div ? bin(l, PSG_TIR_SUB, bin(l, PSG_TIR_DIV, num, b), ceildiv) : bin(l, PSG_TIR_MOD, num, b);
    } else if (!l->st) {
      psg_tir_node *rdiv = is_div ? bin(l, PSG_TIR_DIV, a, b) : NULL, *rmod = bin(l, PSG_TIR_MOD, a, b);
      psg_tir_dtype st = psg_tir_dtype_with_lanes(t, 1);
      bool wide = psg_tir_dtype_is_int(st) && (bits == 32 || bits == 64);
      if (wide) {
        psg_tir_node *sign = shr(l, rmod, cint(l, t, bits - 1));
        r = is_div ? bin(l, PSG_TIR_ADD, rdiv, sign) : bin(l, PSG_TIR_ADD, rmod, band(l, b, sign));
      } else {
        psg_tir_node *ge = bin(l, PSG_TIR_GE, rmod, cint(l, t, 0));
        r = is_div ? select_(l, ge, rdiv, bin(l, PSG_TIR_SUB, rdiv, cint(l, t, 1)))
                   : select_(l, ge, rmod, bin(l, PSG_TIR_ADD, rmod, b));
      }
    }
  } else if (!l->st) { /* the divisor's sign is unknown */
    psg_tir_node *rmod = var_(l, "rmod", t), *zero = cint(l, t, 0);
    psg_tir_node *cond = bin(l, PSG_TIR_OR, bin(l, PSG_TIR_AND, bin(l, PSG_TIR_GE, b, zero), bin(l, PSG_TIR_GE, rmod, zero)),
                             bin(l, PSG_TIR_AND, bin(l, PSG_TIR_LT, b, zero), bin(l, PSG_TIR_LE, rmod, zero)));
    if (is_div) {
      psg_tir_node *rdiv = var_(l, "rdiv", t);
      psg_tir_node *inner = let_(l, rdiv, bin(l, PSG_TIR_DIV, a, b), select_(l, cond, rdiv, bin(l, PSG_TIR_SUB, rdiv, cint(l, t, 1))));
      r = let_(l, rmod, bin(l, PSG_TIR_MOD, a, b), inner);
    } else {
      r = let_(l, rmod, bin(l, PSG_TIR_MOD, a, b), select_(l, cond, rmod, bin(l, PSG_TIR_ADD, rmod, b)));
    }
  }
  if (!r && !l->st) l->st = psg_ctx_fail(l->ctx, PSG_ERR_INTERNAL, "tir.LowerIntrin: floordiv lowering failed");
  return done(l, r, out);
}

/* max(floordiv(x, y), c) and floormod(x, y) == 0 / != 0, matched on the
 * input node (as TVM matches before visiting the operands). */
static psg_status visit_max(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  lw *l = m->user;
  const psg_tir_node *fd = n->kids[0], *c = n->kids[1];
  if (fd->kind == PSG_TIR_FLOOR_DIV && c->kind == PSG_TIR_INT_IMM && c->u.int_value >= 0 &&
      !psg_tir_dtype_is_float(fd->dtype) && proved_non_negative(l, fd->kids[1])) {
    psg_tir_node *x = psg_tir_mutator_get_result(m, fd->kids[0]), *y = psg_tir_mutator_get_result(m, fd->kids[1]);
    return done(l, bin(l, PSG_TIR_MAX, bin(l, PSG_TIR_DIV, x, y), (psg_tir_node *)c), out);
  }
  psg_status st = done(l, NULL, out);
  return st ? st : psg_tir_mutator_default(m, n, out);
}

static psg_status visit_eq_ne(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  lw *l = m->user;
  const psg_tir_node *fm = n->kids[0], *z = n->kids[1];
  if (fm->kind == PSG_TIR_FLOOR_MOD && z->kind == PSG_TIR_INT_IMM && z->u.int_value == 0 &&
      !psg_tir_dtype_is_float(fm->dtype)) {
    psg_tir_node *x = psg_tir_mutator_get_result(m, fm->kids[0]), *y = psg_tir_mutator_get_result(m, fm->kids[1]);
    return done(l, bin(l, n->kind, bin(l, PSG_TIR_MOD, x, y), (psg_tir_node *)z), out);
  }
  return psg_tir_mutator_default(m, n, out);
}

/* TVM's SwapBroadcastCast: Broadcast(Cast(x)) as Cast(Broadcast(x)) when
 * the cast doubles the width or widens an integer. */
static psg_tir_node *swap_broadcast_cast(lw *l, psg_tir_node *e) {
  if (e->kind != PSG_TIR_BROADCAST || e->kids[0]->kind != PSG_TIR_CAST) return e;
  psg_tir_node *cast = e->kids[0], *v = cast->kids[0];
  int cb = psg_tir_dtype_bits(cast->dtype), vb = psg_tir_dtype_bits(v->dtype);
  bool ints = !psg_tir_dtype_is_float(cast->dtype) && !psg_tir_dtype_is_float(v->dtype) &&
              !psg_tir_dtype_is_bool(cast->dtype) && !psg_tir_dtype_is_bool(v->dtype);
  if (!(cb == vb * 2 || (ints && cb > vb))) return e;
  psg_tir_node *bc = NULL, *r = NULL;
  if (!keep(l, psg_tir_broadcast_create(l->ctx, v, psg_tir_dtype_lanes(e->dtype), NULL, &bc), &bc)) return NULL;
  return keep(l, psg_tir_cast_create(l->ctx, e->dtype, bc, NULL, &r), &r);
}

static psg_status visit_add(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  lw *l = m->user;
  int side = n->kids[1]->kind == PSG_TIR_MUL ? 1 : n->kids[0]->kind == PSG_TIR_MUL ? 0 : -1;
  if (side >= 0) {
    psg_tir_node *mul = psg_tir_mutator_get_result(m, n->kids[side]);
    psg_tir_node *other = psg_tir_mutator_get_result(m, n->kids[1 - side]);
    if (mul->kind == PSG_TIR_MUL) {
      psg_tir_node *lhs = swap_broadcast_cast(l, mul->kids[0]), *rhs = swap_broadcast_cast(l, mul->kids[1]);
      if (!l->st && (lhs != mul->kids[0] || rhs != mul->kids[1])) {
        psg_tir_node *nm = NULL, *r = NULL;
        if (keep(l, psg_tir_binary_create(l->ctx, PSG_TIR_MUL, lhs, rhs, NULL, &nm), &nm))
          keep(l, psg_tir_binary_create(l->ctx, PSG_TIR_ADD, nm, other, NULL, &r), &r);
        return done(l, r, out);
      }
    }
  }
  psg_status st = done(l, NULL, out);
  return st ? st : psg_tir_mutator_default(m, n, out);
}

/* Facts (TVM's IRMutatorWithAnalyzer) ----------------------------------------------- */

static psg_status open_scope(lw *l) {
  psg_arith_scope s;
  psg_status st = psg_arith_enter_constraint(l->a, l->yes, &s);
  if (st) return st;
  return PSGI_VEC_PUSH(l->ctx, &l->scopes, s) ? PSG_OK : psgi_nomem(l->ctx);
}

static void close_scope(lw *l) {
  if (l->scopes.len) psg_arith_exit_constraint(l->a, &l->scopes.data[--l->scopes.len]);
}

static bool is_if_then_else_call(const psg_tir_node *n) {
  return n->kind == PSG_TIR_CALL && strcmp(psgi_tir_ops[n->u.op].name, "tir.if_then_else") == 0;
}

/* Kinds whose children see facts: a scope opens before the first such child
 * and closes after the node. */
static psg_status before_child(psg_tir_mutator *m, const psg_tir_node *p, size_t slot) {
  lw *l = m->user;
  psg_status st = PSG_OK;
  psg_tir_node *cond = NULL;
  switch (p->kind) {
  case PSG_TIR_FOR:
    if (slot != 3) return PSG_OK;
    if ((st = open_scope(l))) return st;
    return psg_arith_bind(l->a, p->kids[0], p->kids[1], p->kids[2]);
  case PSG_TIR_LET_STMT:
  case PSG_TIR_LET:
    if (slot != 2) return PSG_OK;
    if ((st = open_scope(l))) return st;
    return psg_tir_dtype_is_int(p->kids[0]->dtype) ? psg_arith_bind_value(l->a, p->kids[0], p->kids[1]) : PSG_OK;
  case PSG_TIR_ATTR_STMT:
    if (slot != 1) return PSG_OK;
    if ((st = open_scope(l))) return st;
    if (p->nkids > 2 && p->kids[2]->kind == PSG_TIR_ITER_VAR &&
        (strcmp(p->u.attr_key, "thread_extent") == 0 || strcmp(p->u.attr_key, "virtual_thread") == 0)) {
      psg_tir_node *zero = NULL, *v = psg_tir_iter_var_get_var(p->kids[2]);
      st = psg_tir_make_const_int(l->ctx, v->dtype, 0, NULL, &zero);
      if (!st && p->kids[0]->dtype == v->dtype) st = psg_arith_bind(l->a, v, zero, p->kids[0]);
      psg_tir_release(zero);
    }
    return st;
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_SELECT:
    if (slot == 0) return PSG_OK;
    cond = p->kids[0];
    break;
  case PSG_TIR_CALL:
    if (!is_if_then_else_call(p) || slot == 0) return PSG_OK;
    cond = p->kids[0];
    break;
  default: return PSG_OK;
  }
  if (slot == 2) close_scope(l); /* the then branch's */
  if ((st = open_scope(l))) return st;
  psg_tir_node *c = cond, *neg = NULL;
  psg_arith_scope ignored;
  if (slot == 2 && (st = psg_tir_op_not(l->ctx, cond, NULL, &neg))) return st;
  if (slot == 2) c = neg;
  if (psg_tir_dtype_lanes(c->dtype) == 1) st = psg_arith_enter_constraint(l->a, c, &ignored);
  psg_tir_release(neg);
  return st;
}

/* The scoped kinds close their scope after their rewrite. */
static psg_status scoped(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  lw *l = m->user;
  bool opened = n->kind == PSG_TIR_FOR || n->kind == PSG_TIR_LET_STMT || n->kind == PSG_TIR_LET ||
                n->kind == PSG_TIR_ATTR_STMT || n->kind == PSG_TIR_IF_THEN_ELSE || n->kind == PSG_TIR_SELECT ||
                is_if_then_else_call(n);
  if (opened) close_scope(l);
  if (n->kind == PSG_TIR_CALL) return visit_call(m, n, out);
  return psg_tir_mutator_default(m, n, out);
}

psg_status psgi_tir_lower_intrin(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out) {
  *out = NULL;
  lw l = {.ctx = ctx};
  psg_status st = psg_arith_analyzer_create(ctx, &l.a);
  if (!st) st = psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), 1, NULL, &l.yes);
  if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.user = &l;
    m.memo_all = true; /* visit_max and visit_eq_ne read their grandchildren's rewrites */
    m.before_child = before_child;
    int kinds[] = {PSG_TIR_FOR, PSG_TIR_LET_STMT, PSG_TIR_LET, PSG_TIR_ATTR_STMT, PSG_TIR_IF_THEN_ELSE, PSG_TIR_SELECT,
                   PSG_TIR_CALL};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) m.visit[kinds[i]] = scoped;
    m.visit[PSG_TIR_FLOOR_DIV] = m.visit[PSG_TIR_FLOOR_MOD] = visit_floor;
    m.visit[PSG_TIR_MAX] = visit_max;
    m.visit[PSG_TIR_EQ] = m.visit[PSG_TIR_NE] = visit_eq_ne;
    m.visit[PSG_TIR_ADD] = visit_add;
    st = psg_tir_mutate(&m, f, out);
    psg_tir_mutator_fini(&m);
  }
  while (l.scopes.len) close_scope(&l);
  PSGI_VEC_FREE(ctx, &l.scopes);
  PSGI_VEC_FREE(ctx, &l.tmp);
  psg_arith_analyzer_destroy(l.a);
  psg_tir_release(l.yes);
  return st;
}

static psg_status lower_intrin_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                    psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  return psgi_tir_lower_intrin(psg_pass_context_get_ctx(pc), f, out);
}

const psg_pass_decl psgi_pass_tir_lower_intrin = {
    .name = "tir.LowerIntrin",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "lower intrinsics with TVM's rules for the C target: math calls to libm call_pure_extern (expf), "
            "floordiv/floormod to truncated division with sign fixes",
    .prim_func = lower_intrin_pass,
    .cacheable = true,
};
