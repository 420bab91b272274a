/* Passage — the TIR interpreter's expressions: an explicit stack of frames
 * (never the C stack, so a million-node chain evaluates), values on a stack
 * of lanes. Operands are evaluated left to right; tir.if_then_else, Let and
 * scalar And/Or are lazy (the branch not taken is never evaluated, as the C
 * code generator's ?:, && and || do), everything else is eager. */
#include <stdio.h>
#include "interp/tir_eval_internal.h"

static psg_status push_frame(psgi_tir_interp *in, const psg_tir_node *n, uint32_t state) {
  psgi_tir_eframe f = {n, state};
  return PSGI_VEC_PUSH(in->ctx, &in->eframes, f) ? PSG_OK : psgi_nomem(in->ctx);
}

/* Room for a value of dtype t on the stack: its lanes, valid until the next push. */
static psgi_tir_lane *push_value(psgi_tir_interp *in, psg_tir_dtype t) {
  size_t lanes = (size_t)psg_tir_dtype_lanes(t);
  psgi_tir_value v = {t, in->lanes.len};
  if (!PSGI_VEC_RESERVE(in->ctx, &in->lanes, in->lanes.len + lanes) || !PSGI_VEC_PUSH(in->ctx, &in->vals, v))
    return NULL;
  in->lanes.len += lanes;
  return in->lanes.data + v.off;
}

/* Replaces the top `count` values by tmp's lanes as a value of dtype t. */
static psg_status replace_with_tmp(psgi_tir_interp *in, size_t count, psg_tir_dtype t) {
  for (size_t i = 0; i < count; i++) psgi_tir_pop(in);
  psgi_tir_lane *out = push_value(in, t);
  if (!out) return psgi_nomem(in->ctx);
  memcpy(out, in->tmp.data, sizeof *out * (size_t)psg_tir_dtype_lanes(t));
  return PSG_OK;
}

static psgi_tir_lane *tmp_lanes(psgi_tir_interp *in, psg_tir_dtype t) {
  size_t lanes = (size_t)psg_tir_dtype_lanes(t);
  if (!PSGI_VEC_RESERVE(in->ctx, &in->tmp, lanes)) return NULL;
  return in->tmp.data;
}

psgi_tir_binding *psgi_tir_lookup(psgi_tir_interp *in, const psg_tir_node *var) {
  psgi_map_entry *en = psgi_map_get_ptr(&in->vars, var);
  uintptr_t idx = en ? in->slot_bind.data[(uintptr_t)en->value - 1] : 0;
  return idx ? &in->binds.data[idx - 1] : NULL;
}

size_t psgi_tir_slot(psgi_tir_interp *in, const psg_tir_node *var) {
  psgi_map_entry *en = psgi_map_put_ptr(&in->vars, var, NULL);
  if (!en) return SIZE_MAX;
  if (!en->value) {
    psgi_tir_lane zero = {0};
    if (!PSGI_VEC_PUSH(in->ctx, &in->slot_bind, (uintptr_t)0) || !PSGI_VEC_PUSH(in->ctx, &in->slot_val, zero) ||
        !PSGI_VEC_PUSH(in->ctx, &in->slot_dtype, (psg_tir_dtype)0))
      return SIZE_MAX;
    en->value = (void *)(uintptr_t)in->slot_bind.len;
  }
  return (uintptr_t)en->value - 1;
}

psg_status psgi_tir_bind_slot(psgi_tir_interp *in, const psg_tir_node *var, size_t slot, psg_tir_dtype dtype,
                              const psgi_tir_lane *lanes) {
  size_t n = (size_t)psg_tir_dtype_lanes(dtype);
  if (!PSGI_VEC_RESERVE(in->ctx, &in->bind_lanes, in->bind_lanes.len + n)) return psgi_nomem(in->ctx);
  psgi_tir_binding b = {var, slot, in->slot_bind.data[slot], dtype, in->bind_lanes.len,
                        in->slot_val.data[slot], in->slot_dtype.data[slot]};
  if (!PSGI_VEC_PUSH(in->ctx, &in->binds, b)) return psgi_nomem(in->ctx);
  memcpy(in->bind_lanes.data + b.off, lanes, sizeof *lanes * n);
  in->bind_lanes.len += n;
  in->slot_bind.data[slot] = in->binds.len;
  in->slot_val.data[slot] = lanes[0];
  in->slot_dtype.data[slot] = dtype;
  return PSG_OK;
}

psg_status psgi_tir_bind(psgi_tir_interp *in, const psg_tir_node *var, psg_tir_dtype dtype,
                         const psgi_tir_lane *lanes) {
  size_t slot = psgi_tir_slot(in, var);
  return slot == SIZE_MAX ? psgi_nomem(in->ctx) : psgi_tir_bind_slot(in, var, slot, dtype, lanes);
}

void psgi_tir_unbind(psgi_tir_interp *in) {
  psgi_tir_binding *b = &in->binds.data[--in->binds.len];
  in->slot_bind.data[b->slot] = b->prev;
  in->slot_val.data[b->slot] = b->prev_val;
  in->slot_dtype.data[b->slot] = b->prev_dtype;
  in->bind_lanes.len = b->off;
}

static const char *dtype_name(psg_tir_dtype t, psgi_tir_dtype_name_buf *b) { return psgi_tir_dtype_name(t, b); }

static psg_status eval_var(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_binding *b = psgi_tir_lookup(in, n);
  if (!b)
    return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "'%s' is used where it is not defined",
                              n->u.var.name);
  psg_tir_dtype t = b->dtype;
  size_t off = b->off;
  psgi_tir_lane *out = push_value(in, t);
  if (!out) return psgi_nomem(in->ctx);
  memcpy(out, in->bind_lanes.data + off, sizeof *out * (size_t)psg_tir_dtype_lanes(t));
  return PSG_OK;
}

static psg_status eval_leaf(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_lane *out = push_value(in, n->dtype);
  if (!out) return psgi_nomem(in->ctx);
  if (n->kind == PSG_TIR_INT_IMM)
    out->i = psgi_tir_wrap(n->dtype, (uint64_t)n->u.int_value);
  else if (n->kind == PSG_TIR_FLOAT_IMM)
    out->f = psgi_tir_round_float(n->dtype, n->u.float_value);
  else
    out->u = 0; /* StringImm: only read as a node by call_extern and AssertStmt */
  return PSG_OK;
}

/* The value of lane i of v (a scalar value gives its one lane to every i). */
static psgi_tir_lane lane_at(psgi_tir_interp *in, const psgi_tir_value *v, size_t i) {
  return in->lanes.data[v->off + (psg_tir_dtype_lanes(v->dtype) == 1 ? 0 : i)];
}

static psg_status compute_cast(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_value a = *psgi_tir_top(in);
  psgi_tir_lane *r = tmp_lanes(in, n->dtype);
  if (!r) return psgi_nomem(in->ctx);
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++) {
    psgi_tir_lane x = lane_at(in, &a, i);
    if (!psgi_tir_cast_lane(a.dtype, n->dtype, x, &r[i])) {
      psgi_tir_dtype_name_buf b1, b2;
      return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "%s value %g does not fit %s",
                                dtype_name(a.dtype, &b1), psgi_tir_lane_class(a.dtype) == PSGI_TIR_FLOAT ? x.f : 0.0,
                                dtype_name(n->dtype, &b2));
    }
  }
  return replace_with_tmp(in, 1, n->dtype);
}

static psg_status compute_binary(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_value a = in->vals.data[in->vals.len - 2], b = in->vals.data[in->vals.len - 1];
  psgi_tir_lane *r = tmp_lanes(in, n->dtype);
  if (!r) return psgi_nomem(in->ctx);
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++)
    if (!psgi_tir_binary_lane(n->kind, a.dtype, lane_at(in, &a, i), lane_at(in, &b, i), &r[i]))
      return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "integer division by zero");
  return replace_with_tmp(in, 2, n->dtype);
}

static psg_status compute_select(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_value *v = in->vals.data + in->vals.len - 3;
  psgi_tir_lane *r = tmp_lanes(in, n->dtype);
  if (!r) return psgi_nomem(in->ctx);
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++)
    r[i] = lane_at(in, &v[0], i).u ? lane_at(in, &v[1], i) : lane_at(in, &v[2], i);
  return replace_with_tmp(in, 3, n->dtype);
}

static psg_status compute_ramp(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_value base = in->vals.data[in->vals.len - 2], stride = in->vals.data[in->vals.len - 1];
  psgi_tir_lane *r = tmp_lanes(in, n->dtype);
  if (!r) return psgi_nomem(in->ctx);
  psgi_tir_lane b0 = lane_at(in, &base, 0), s = lane_at(in, &stride, 0), acc = b0;
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++) {
    r[i] = acc;
    psgi_tir_binary_lane(PSG_TIR_ADD, base.dtype, acc, s, &acc); /* wraps like base + i * stride */
  }
  return replace_with_tmp(in, 2, n->dtype);
}

static psg_status compute_broadcast(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_lane x = psgi_tir_top_lanes(in)[0];
  psgi_tir_lane *r = tmp_lanes(in, n->dtype);
  if (!r) return psgi_nomem(in->ctx);
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++) r[i] = x;
  return replace_with_tmp(in, 1, n->dtype);
}

static psg_status compute_not(psgi_tir_interp *in, const psg_tir_node *n) {
  psgi_tir_lane *x = psgi_tir_top_lanes(in);
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++) x[i].u = !x[i].u;
  return PSG_OK;
}

/* Bit operations on integer lanes. */
static bool bit_op(int op, psg_tir_dtype t, psgi_tir_lane a, psgi_tir_lane b, psgi_tir_lane *r) {
  int bits = psg_tir_dtype_bits(t);
  uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1, x = a.u & mask;
  switch (op) {
    case PSGI_TIR_OP_shift_left:
    case PSGI_TIR_OP_shift_right:
      if (b.i < 0 || b.i >= bits) return false; /* undefined in C */
      if (op == PSGI_TIR_OP_shift_left)
        r->i = psgi_tir_wrap(t, x << b.i);
      else
        r->i = psgi_tir_lane_class(t) == PSGI_TIR_SINT && a.i < 0 ? psgi_tir_wrap(t, ~(~a.u >> b.i))
                                                                  : psgi_tir_wrap(t, x >> b.i);
      return true;
    case PSGI_TIR_OP_bitwise_and: r->i = psgi_tir_wrap(t, a.u & b.u); return true;
    case PSGI_TIR_OP_bitwise_or: r->i = psgi_tir_wrap(t, a.u | b.u); return true;
    case PSGI_TIR_OP_bitwise_xor: r->i = psgi_tir_wrap(t, a.u ^ b.u); return true;
    case PSGI_TIR_OP_bitwise_not: r->i = psgi_tir_wrap(t, ~a.u); return true;
    case PSGI_TIR_OP_popcount: {
      int c = 0;
      for (uint64_t y = x; y; y &= y - 1) c++;
      r->i = c;
      return true;
    }
    default: { /* clz */
      int c = 0;
      for (int k = bits - 1; k >= 0 && !((x >> k) & 1); k--) c++;
      r->i = c;
      return true;
    }
  }
}

static psg_status compute_math(psgi_tir_interp *in, const psg_tir_node *n, const char *name, size_t first) {
  int arity;
  psgi_tir_math1 f1;
  psgi_tir_math2 f2;
  bool pred;
  size_t nargs = n->nkids - first;
  if (!psgi_tir_math_find(name, &arity, &f1, &f2, &pred))
    return psgi_tir_eval_fail(in, n, PSG_ERR_UNSUPPORTED,
                              "'%s' is not a libm function the interpreter knows; it cannot call it", name);
  if ((size_t)arity != nargs)
    return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "'%s' takes %d argument(s), given %zu", name,
                              arity, nargs);
  psgi_tir_value *v = in->vals.data + in->vals.len - nargs;
  for (size_t k = 0; k < nargs; k++)
    if (psgi_tir_lane_class(v[k].dtype) != PSGI_TIR_FLOAT)
      return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "'%s' needs float arguments", name);
  psgi_tir_lane *r = tmp_lanes(in, n->dtype);
  if (!r) return psgi_nomem(in->ctx);
  for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++) {
    double x = lane_at(in, &v[0], i).f;
    double y = f1 ? f1(x) : f2(x, lane_at(in, &v[1], i).f);
    if (pred)
      r[i].u = y != 0;
    else if (psgi_tir_lane_class(n->dtype) == PSGI_TIR_FLOAT)
      r[i].f = psgi_tir_round_float(n->dtype, y);
    else
      return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "'%s' must give a float", name);
  }
  return replace_with_tmp(in, nargs, n->dtype);
}

static psg_status compute_call(psgi_tir_interp *in, const psg_tir_node *n) {
  uint32_t op = n->u.op;
  const char *name = psgi_tir_ops[op].name;
  size_t nargs = n->nkids;
  psgi_tir_value *v = in->vals.data + in->vals.len - nargs;
  switch (op) {
    case PSGI_TIR_OP_likely: return PSG_OK; /* the value itself */
    case PSGI_TIR_OP_assume: {
      for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(v[0].dtype); i < L; i++)
        if (!lane_at(in, &v[0], i).u)
          return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "the assumption is false");
      psgi_tir_lane *r = tmp_lanes(in, n->dtype);
      if (!r) return psgi_nomem(in->ctx);
      memset(r, 0, sizeof *r * (size_t)psg_tir_dtype_lanes(n->dtype));
      return replace_with_tmp(in, 1, n->dtype);
    }
    case PSGI_TIR_OP_get_active_lane_mask: { /* lane k: base + k < limit */
      psgi_tir_lane *r = tmp_lanes(in, n->dtype);
      if (!r) return psgi_nomem(in->ctx);
      int64_t base = lane_at(in, &v[0], 0).i, limit = lane_at(in, &v[1], 0).i;
      for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++)
        r[i].u = base < limit && (uint64_t)limit - (uint64_t)base > i;
      return replace_with_tmp(in, nargs, n->dtype);
    }
    case PSGI_TIR_OP_reinterpret: {
      psg_tir_dtype from = v[0].dtype;
      if (psg_tir_dtype_bits(from) != psg_tir_dtype_bits(n->dtype) ||
          psg_tir_dtype_lanes(from) != psg_tir_dtype_lanes(n->dtype) || psg_tir_dtype_is_handle(from) ||
          psg_tir_dtype_is_handle(n->dtype)) {
        psgi_tir_dtype_name_buf b1, b2;
        return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "cannot reinterpret %s as %s",
                                  dtype_name(from, &b1), dtype_name(n->dtype, &b2));
      }
      psgi_tir_lane *r = tmp_lanes(in, n->dtype);
      if (!r) return psgi_nomem(in->ctx);
      for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++)
        r[i] = psgi_tir_lane_from_bits(n->dtype, psgi_tir_lane_bits(from, lane_at(in, &v[0], i)));
      return replace_with_tmp(in, 1, n->dtype);
    }
    case PSGI_TIR_OP_shift_left:
    case PSGI_TIR_OP_shift_right:
    case PSGI_TIR_OP_bitwise_and:
    case PSGI_TIR_OP_bitwise_or:
    case PSGI_TIR_OP_bitwise_xor:
    case PSGI_TIR_OP_bitwise_not:
    case PSGI_TIR_OP_popcount:
    case PSGI_TIR_OP_clz: {
      psgi_tir_lane *r = tmp_lanes(in, n->dtype);
      if (!r) return psgi_nomem(in->ctx);
      for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++) {
        psgi_tir_lane b = nargs > 1 ? lane_at(in, &v[1], i) : (psgi_tir_lane){0};
        if (!bit_op((int)op, v[0].dtype, lane_at(in, &v[0], i), b, &r[i]))
          return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "shift by %lld is out of range",
                                    (long long)b.i);
      }
      return replace_with_tmp(in, nargs, n->dtype);
    }
    case PSGI_TIR_OP_call_extern:
    case PSGI_TIR_OP_call_pure_extern: {
      /* The name is the StringImm operand (its stack value is a placeholder). */
      const psg_tir_node *fn = n->kids[0];
      if (fn->kind != PSG_TIR_STRING_IMM || memchr(fn->u.str.s, 0, fn->u.str.len))
        return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "the function name is not a string");
      psg_status st = compute_math(in, n, fn->u.str.s, 1);
      if (st) return st;
      /* compute_math replaced the arguments; drop the name's placeholder under them. */
      psgi_tir_value res = *psgi_tir_top(in);
      psgi_tir_lane *r = tmp_lanes(in, res.dtype);
      if (!r) return psgi_nomem(in->ctx);
      memcpy(r, in->lanes.data + res.off, sizeof *r * (size_t)psg_tir_dtype_lanes(res.dtype));
      return replace_with_tmp(in, 2, res.dtype);
    }
    default:
      if (psgi_tir_ops[op].rule == PSGI_TIR_RULE_FLOAT_SAME || psgi_tir_ops[op].rule == PSGI_TIR_RULE_FLOAT_PRED)
        return compute_math(in, n, name + 4, 0);
      return psgi_tir_eval_fail(in, n, PSG_ERR_UNSUPPORTED, "the interpreter cannot evaluate %s", name);
  }
}

static psg_status compute(psgi_tir_interp *in, const psg_tir_node *n) {
  switch (n->kind) {
    case PSG_TIR_CAST: return compute_cast(in, n);
    case PSG_TIR_NOT: return compute_not(in, n);
    case PSG_TIR_SELECT: return compute_select(in, n);
    case PSG_TIR_RAMP: return compute_ramp(in, n);
    case PSG_TIR_BROADCAST: return compute_broadcast(in, n);
    case PSG_TIR_BUFFER_LOAD: return psgi_tir_buffer_load(in, n);
    case PSG_TIR_CALL: return compute_call(in, n);
    default: return compute_binary(in, n);
  }
}

/* Operands evaluated before a node computes: a BufferLoad's buffer is no value. */
static uint32_t first_operand(const psg_tir_node *n) { return n->kind == PSG_TIR_BUFFER_LOAD ? 1 : 0; }

static bool is_lazy_if(const psg_tir_node *n) {
  return n->kind == PSG_TIR_CALL && n->u.op == PSGI_TIR_OP_if_then_else;
}

/* One step of the frame on top. */
static psg_status step(psgi_tir_interp *in) {
  psgi_tir_eframe *f = &in->eframes.data[in->eframes.len - 1];
  const psg_tir_node *n = f->n;
  switch (n->kind) {
    case PSG_TIR_VAR:
    case PSG_TIR_SIZE_VAR:
      in->eframes.len--;
      return eval_var(in, n);
    case PSG_TIR_INT_IMM:
    case PSG_TIR_FLOAT_IMM:
    case PSG_TIR_STRING_IMM:
      in->eframes.len--;
      return eval_leaf(in, n);
    case PSG_TIR_LET: /* var, value, body */
      if (f->state == 0) {
        f->state = 1;
        return push_frame(in, n->kids[1], 0);
      }
      if (f->state == 1) {
        psgi_tir_value v = *psgi_tir_top(in);
        psg_status st = psgi_tir_bind(in, n->kids[0], v.dtype, in->lanes.data + v.off);
        if (st) return st;
        psgi_tir_pop(in);
        f->state = 2;
        return push_frame(in, n->kids[2], 0);
      }
      psgi_tir_unbind(in);
      in->eframes.len--;
      return PSG_OK;
    case PSG_TIR_AND:
    case PSG_TIR_OR:
      if (f->state == 1 && psg_tir_dtype_lanes(n->dtype) == 1) {
        uint64_t a = psgi_tir_top_lanes(in)[0].u;
        if ((n->kind == PSG_TIR_AND) != (a != 0)) { /* decided by a: it is the result */
          in->eframes.len--;
          return PSG_OK;
        }
        psgi_tir_pop(in);
        f->state = 3; /* b is the result */
        return push_frame(in, n->kids[1], 0);
      }
      if (f->state == 3) {
        in->eframes.len--;
        return PSG_OK;
      }
      break;
    case PSG_TIR_CALL:
      if (!is_lazy_if(n)) break;
      if (f->state == 1 && psg_tir_dtype_lanes(psgi_tir_top(in)->dtype) == 1) {
        uint64_t c = psgi_tir_top_lanes(in)[0].u;
        psgi_tir_pop(in);
        f->state = 10; /* the branch's value is the result */
        return push_frame(in, n->kids[c ? 1 : 2], 0);
      }
      if (f->state == 10) {
        in->eframes.len--;
        return PSG_OK;
      }
      if (f->state == 3) { /* a vector condition: both branches, per lane */
        psgi_tir_lane *r = tmp_lanes(in, n->dtype);
        if (!r) return psgi_nomem(in->ctx);
        psgi_tir_value *v = in->vals.data + in->vals.len - 3;
        for (size_t i = 0, L = (size_t)psg_tir_dtype_lanes(n->dtype); i < L; i++)
          r[i] = lane_at(in, &v[0], i).u ? lane_at(in, &v[1], i) : lane_at(in, &v[2], i);
        in->eframes.len--;
        return replace_with_tmp(in, 3, n->dtype);
      }
      break;
    default:
      if (!psgi_tir_is_expr_kind(n->kind))
        return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "not an expression");
      break;
  }
  /* Generic: operands in order, then compute. */
  if (f->state < n->nkids) {
    const psg_tir_node *kid = n->kids[f->state++];
    return push_frame(in, kid, 0);
  }
  in->eframes.len--;
  return compute(in, n);
}

psg_status psgi_tir_eval_expr(psgi_tir_interp *in, const psg_tir_node *e) {
  size_t fbase = in->eframes.len, vbase = in->vals.len, bbase = in->binds.len;
  psg_status st = push_frame(in, e, first_operand(e));
  while (!st && in->eframes.len > fbase) {
    psgi_tir_eframe *f = &in->eframes.data[in->eframes.len - 1];
    if (f->state == 0 && first_operand(f->n)) f->state = first_operand(f->n);
    st = step(in);
  }
  if (st) { /* leave the machine as it was */
    in->eframes.len = fbase;
    while (in->binds.len > bbase) psgi_tir_unbind(in);
    while (in->vals.len > vbase) psgi_tir_pop(in);
  }
  return st;
}

psg_status psgi_tir_eval_int(psgi_tir_interp *in, const psg_tir_node *e, int64_t *out) {
  psg_status st = psgi_tir_eval_expr(in, e);
  if (st) return st;
  psgi_tir_value v = *psgi_tir_top(in);
  int cls = psgi_tir_lane_class(v.dtype);
  bool ok = psg_tir_dtype_lanes(v.dtype) == 1 && (cls == PSGI_TIR_SINT || cls == PSGI_TIR_UINT);
  *out = in->lanes.data[v.off].i;
  psgi_tir_pop(in);
  if (!ok) return psgi_tir_eval_fail(in, e, PSG_ERR_INVALID_ARGUMENT, "expected a scalar integer");
  if (cls == PSGI_TIR_UINT && *out < 0)
    return psgi_tir_eval_fail(in, e, PSG_ERR_INVALID_ARGUMENT, "the value does not fit int64");
  return PSG_OK;
}
