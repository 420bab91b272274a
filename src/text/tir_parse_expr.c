/* Passage — TVMScript parser (tir_parse.c): expressions. Operators by
 * precedence, literals, names and buffer loads; T.<name>(...) calls are
 * tir_parse_call.c's. Left-associative chains are loops; only nesting
 * recurses, at most MAX_DEPTH levels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "text/tir_parse_internal.h"

/* Expressions ------------------------------------------------------------------ */

psg_tir_node *psgi_tirp_parse_expr(tparser *ps);
psg_tir_node *psgi_tirp_int_imm(tparser *ps, const ttoken *t, psg_tir_dtype dt, int64_t v) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_int_imm_create(ps->ctx, dt, v, SP(t), &out));
  return out;
}

psg_tir_node *psgi_tirp_float_imm(tparser *ps, const ttoken *t, psg_tir_dtype dt, double v) {
  psg_tir_node *out = NULL;
  /* The printer writes the shortest float32 text of a float of 32 bits or
   * fewer (float32, float16, bfloat16), which reads as a double a little
   * off (3.4028235e+38): round to float32 (without an out-of-range
   * conversion) so that parse(print(x)) is x (fuzz_tvmscript found a
   * float16 -1.6 that did not come back). */
  if (psg_tir_dtype_is_float(dt) && psg_tir_dtype_bits(dt) <= 32 && isfinite(v)) {
    if (fabs(v) > 3.4028234663852886e+38 && fabs(v) < 3.4028235677973366e+38) v = copysign(3.4028234663852886e+38, v);
    else if (fabs(v) <= 3.4028234663852886e+38) v = (double)(float)v;
  }
  BUILD(t, psg_tir_float_imm_create(ps->ctx, dt, v, SP(t), &out));
  return out;
}

/* A literal retyped to `dt` (Python numbers take the other operand's
 * dtype, as TVM's operators do); NULL if `e` is no literal or cannot be. */
psg_tir_node *psgi_tirp_retype_literal(tparser *ps, const ttoken *t, psg_tir_node *e, psg_tir_dtype dt) {
  if (psg_tir_dtype_lanes(dt) != 1) return NULL;
  if (e->kind == PSG_TIR_INT_IMM && !psg_tir_dtype_is_bool(e->dtype)) {
    if (psg_tir_dtype_is_float(dt)) return psgi_tirp_float_imm(ps, t, dt, (double)e->u.int_value);
    if (psg_tir_dtype_is_int(dt) || psg_tir_dtype_is_uint(dt)) return psgi_tirp_int_imm(ps, t, dt, e->u.int_value);
  }
  if (e->kind == PSG_TIR_FLOAT_IMM && psg_tir_dtype_is_float(dt)) return psgi_tirp_float_imm(ps, t, dt, e->u.float_value);
  return NULL;
}

/* Makes the dtypes of *a and *b agree where TVM's operators would: a
 * literal takes the other side's dtype; a scalar is broadcast to a vector. */
void psgi_tirp_match_types(tparser *ps, const ttoken *t, psg_tir_node **a, psg_tir_node **b) {
  if ((*a)->dtype == (*b)->dtype) return;
  psg_tir_node *r;
  if ((r = psgi_tirp_retype_literal(ps, t, *b, (*a)->dtype))) {
    psg_tir_release(*b);
    *b = r;
    return;
  }
  if ((r = psgi_tirp_retype_literal(ps, t, *a, (*b)->dtype))) {
    psg_tir_release(*a);
    *a = r;
    return;
  }
  int la = psg_tir_dtype_lanes((*a)->dtype), lb = psg_tir_dtype_lanes((*b)->dtype);
  /* An int literal broadcast next to a float vector: TVM casts it, and the
   * cast of a broadcast constant is the broadcast float constant. */
  for (int i = 0; i < 2 && la == lb && la > 1; i++) {
    psg_tir_node **v = i ? a : b, *o = i ? *b : *a, *bc = NULL;
    if ((*v)->kind != PSG_TIR_BROADCAST || (*v)->kids[0]->kind != PSG_TIR_INT_IMM || !psg_tir_dtype_is_float(o->dtype))
      continue;
    if (!(r = psgi_tirp_retype_literal(ps, t, (*v)->kids[0], psg_tir_dtype_with_lanes(o->dtype, 1)))) continue;
    psg_status st = psg_tir_broadcast_create(ps->ctx, r, la, NULL, &bc);
    psg_tir_release(r);
    if (st) return;
    psg_tir_release(*v);
    *v = bc;
    return;
  }
  psg_tir_node **s = la == 1 && lb > 1 ? a : lb == 1 && la > 1 ? b : NULL;
  if (!s) return;
  int lanes = la > lb ? la : lb;
  psg_tir_dtype want = psg_tir_dtype_with_lanes((s == a ? *b : *a)->dtype, 1);
  if ((*s)->dtype != want && (r = psgi_tirp_retype_literal(ps, t, *s, want))) {
    psg_tir_release(*s);
    *s = r;
  }
  psg_tir_node *bc = NULL;
  if (!psg_tir_broadcast_create(ps->ctx, *s, lanes, NULL, &bc)) {
    psg_tir_release(*s);
    *s = bc;
  }
}

/* Builds a binary node and releases the operands. */
psg_tir_node *psgi_tirp_binary(tparser *ps, const ttoken *t, int kind, psg_tir_node *a, psg_tir_node *b) {
  if (!a || !b) {
    psg_tir_release(a);
    psg_tir_release(b);
    return NULL;
  }
  psgi_tirp_match_types(ps, t, &a, &b);
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_binary_create(ps->ctx, kind, a, b, SP(t), &out));
  psg_tir_release(a);
  psg_tir_release(b);
  return out;
}

psg_tir_node *psgi_tirp_fold(tparser *ps, const ttoken *t, int kind, psg_tir_node *a, psg_tir_node *b) {
  if (!a || !b) {
    psg_tir_release(a);
    psg_tir_release(b);
    return NULL;
  }
  psgi_tirp_match_types(ps, t, &a, &b);
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_op_binary(ps->ctx, kind, a, b, SP(t), &out));
  psg_tir_release(a);
  psg_tir_release(b);
  return out;
}
/* "(a, b, ...)" after the '(' was consumed, up to and including ')'. */
bool psgi_tirp_parse_args(tparser *ps, tnode_vec *out) {
  while (!tt_is(&ps->tok, ")")) {
    psg_tir_node *e = psgi_tirp_parse_expr(ps);
    if (!e) return false;
    if (!PSGI_VEC_PUSH(ps->ctx, out, e)) {
      psg_tir_release(e);
      psgi_tirp_oom(ps);
      return false;
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  return !psgi_tirp_expect(ps, ")");
}
/* One index of A[...]: an expression or a slice a:b[:s] (a Ramp whose lane
 * count is b - a over s: b - a must be a literal, as in a:a + 4). */
static psg_tir_node *parse_index(tparser *ps) {
  ttoken t = ps->tok;
  psg_tir_node *a = psgi_tirp_parse_expr(ps);
  if (!a || !psgi_tirp_accept(ps, ":")) return a;
  psg_tir_node *b = psgi_tirp_parse_expr(ps), *out = NULL;
  int64_t stride = 1;
  if (b && psgi_tirp_accept(ps, ":") && !psgi_tirp_int_literal(ps, &stride)) goto done;
  if (!b) goto done;
  int64_t span;
  if (a->kind == PSG_TIR_INT_IMM && b->kind == PSG_TIR_INT_IMM) span = b->u.int_value - a->u.int_value;
  else if (b->kind == PSG_TIR_ADD && b->kids[1]->kind == PSG_TIR_INT_IMM) span = b->kids[1]->u.int_value;
  else {
    psgi_tirp_error_at(ps, &t, "the bounds of a slice must differ by a literal (write a:a + 4)");
    goto done;
  }
  if (stride <= 0 || span <= 0 || span % stride || span / stride < 2 || span / stride > PSG_TIR_MAX_LANES) {
    psgi_tirp_error_at(ps, &t, "a slice needs 2 to %d lanes and a positive stride dividing its length", PSG_TIR_MAX_LANES);
    goto done;
  }
  psg_tir_node *st = psgi_tirp_int_imm(ps, &t, a->dtype, stride);
  if (st) BUILD(&t, psg_tir_ramp_create(ps->ctx, a, st, (int)(span / stride), SP(&t), &out));
  psg_tir_release(st);
done:
  psg_tir_release(a);
  psg_tir_release(b);
  return out;
}

/* "i, j]" after '[' or "[i, j]" of vload/vstore, into out. */
static bool parse_indices(tparser *ps, tnode_vec *out, const char *close) {
  /* A[()]: no index (a zero-dimensional buffer), as in Python */
  if (tt_is(&ps->tok, "(") && tt_is(&ps->next, ")")) {
    psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    return !psgi_tirp_expect(ps, close);
  }
  while (!tt_is(&ps->tok, close)) {
    psg_tir_node *e = parse_index(ps);
    if (!e) return false;
    if (!PSGI_VEC_PUSH(ps->ctx, out, e)) {
      psg_tir_release(e);
      psgi_tirp_oom(ps);
      return false;
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  return !psgi_tirp_expect(ps, close);
}

static psg_tir_node *buffer_load(tparser *ps, const ttoken *t, psg_tir_node *buf, tnode_vec *ix, psg_tir_node *pred) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_buffer_load_create(ps->ctx, buf, ix->data, ix->len, pred, SP(t), &out));
  psgi_tirp_release_all(ix->data, ix->len);
  PSGI_VEC_FREE(ps->ctx, ix);
  psg_tir_release(pred);
  return out;
}

/* "[i], predicate=p)" of A.vload( / "[i], v, predicate=p)" of A.vstore(. */
bool psgi_tirp_parse_vaccess(tparser *ps, tnode_vec *ix, psg_tir_node **value, psg_tir_node **pred) {
  if (psgi_tirp_expect(ps, "[") || !parse_indices(ps, ix, "]")) return false;
  if (value) {
    if (psgi_tirp_expect(ps, ",") || !(*value = psgi_tirp_parse_expr(ps))) return false;
  }
  if (psgi_tirp_expect(ps, ",") || psgi_tirp_expect(ps, "predicate") || psgi_tirp_expect(ps, "=") || !(*pred = psgi_tirp_parse_expr(ps))) return false;
  psgi_tirp_accept(ps, ","); /* a trailing comma, as Python allows */
  return !psgi_tirp_expect(ps, ")");
}

static psg_tir_node *parse_name(tparser *ps) {
  ttoken t = ps->tok;
  psgi_tirp_advance(ps);
  if (tt_is(&t, "T") && tt_is(&ps->tok, ".")) {
    psgi_tirp_advance(ps);
    if (!is_name(&ps->tok)) {
      psgi_tirp_expected(ps, "a name after 'T.'");
      return NULL;
    }
    ttoken nt = ps->tok;
    psgi_tirp_advance(ps);
    if (!tt_is(&ps->tok, "(")) {
      psgi_tirp_error_at(ps, &nt, "T.%.*s is not a value (a call T.%.*s(...) was expected)", (int)nt.len, nt.text,
               (int)nt.len, nt.text);
      return NULL;
    }
    return psgi_tirp_parse_t_call(ps, &nt);
  }
  if (tt_is(&t, "True") || tt_is(&t, "False")) return psgi_tirp_int_imm(ps, &t, psg_tir_dtype_bool(), t.text[0] == 'T');
  tsym *s = psgi_tirp_lookup(ps, t.text, t.len);
  if (!s) {
    psgi_tirp_error_at(ps, &t, "undefined name '%.*s'", (int)(t.len > 60 ? 60 : t.len), t.text);
    return NULL;
  }
  if (!s->node) {
    ps->errors++;
    return NULL;
  }
  if (s->kind == SYM_VAR) { /* a T.env_thread symbol holds an IterVar: its var */
    psg_tir_node *v = s->node->kind == PSG_TIR_ITER_VAR ? s->node->kids[0] : s->node;
    psg_tir_retain(v);
    return v;
  }
  /* a buffer: A[...], A.data, A.vload(...) */
  if (psgi_tirp_accept(ps, "[")) {
    tnode_vec ix = {0};
    if (!parse_indices(ps, &ix, "]")) {
      psgi_tirp_release_all(ix.data, ix.len);
      PSGI_VEC_FREE(ps->ctx, &ix);
      return NULL;
    }
    return buffer_load(ps, &t, s->node, &ix, NULL);
  }
  if (psgi_tirp_accept(ps, ".")) {
    if (psgi_tirp_accept(ps, "data")) {
      psg_tir_node *d = s->node->kids[0];
      psg_tir_retain(d);
      return d;
    }
    if (psgi_tirp_accept(ps, "vload")) {
      tnode_vec ix = {0};
      psg_tir_node *pred = NULL;
      if (psgi_tirp_expect(ps, "(") || !psgi_tirp_parse_vaccess(ps, &ix, NULL, &pred)) {
        psgi_tirp_release_all(ix.data, ix.len);
        PSGI_VEC_FREE(ps->ctx, &ix);
        psg_tir_release(pred);
        return NULL;
      }
      return buffer_load(ps, &t, s->node, &ix, pred);
    }
    psgi_tirp_expected(ps, "'data' or 'vload' after a buffer name");
    return NULL;
  }
  psgi_tirp_error_at(ps, &t, "buffer '%.*s' used as a value (index it: %.*s[i])", (int)t.len, t.text, (int)t.len, t.text);
  return NULL;
}

/* Kept out of parse_primary so that its buffer is not on the stack of
 * every nesting level. */
static __attribute__((noinline)) psg_tir_node *parse_string(tparser *ps) {
  ttoken t = ps->tok;
  char buf[1024];
  size_t n;
  if (!psgi_tirp_unescape(ps, &t, buf, sizeof buf, true, &n)) return NULL;
  psgi_tirp_advance(ps);
  psg_tir_node *out = NULL;
  BUILD(&t, psg_tir_string_imm_create(ps->ctx, buf, n, SP(&t), &out));
  return out;
}

static psg_tir_node *parse_primary(tparser *ps) {
  ttoken t = ps->tok;
  if (t.kind == TT_INT) {
    int64_t v;
    if (!psgi_text_parse_i64(t.text, t.len, &v)) {
      psgi_tirp_error_at(ps, &t, "integer literal out of range");
      return NULL;
    }
    psgi_tirp_advance(ps);
    bool fits = v >= INT32_MIN && v <= INT32_MAX;
    return psgi_tirp_int_imm(ps, &t, fits ? psg_tir_dtype_int32() : psg_tir_dtype_int64(), v);
  }
  if (t.kind == TT_FLOAT) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(t.len > 63 ? 63 : t.len), t.text);
    psgi_tirp_advance(ps);
    /* float32 like TVM's Python floats, float64 when float32 cannot hold it
     * (T.float64(0.1) reads its literal itself: parse_t_call) */
    double v = strtod(buf, NULL);
    bool f32 = v == 0 || (fabs(v) <= 3.4028234663852886e+38 && fabs(v) >= 1.1754943508222875e-38);
    return psgi_tirp_float_imm(ps, &t, f32 ? psg_tir_dtype_float32() : psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 64, 1), v);
  }
  if (t.kind == TT_STRING) return parse_string(ps);
  if (t.kind == TT_NAME && !tt_is(&t, "not") && !tt_is(&t, "and") && !tt_is(&t, "or")) return parse_name(ps);
  if (psgi_tirp_accept(ps, "(")) {
    psg_tir_node *e = psgi_tirp_parse_expr(ps);
    if (e && psgi_tirp_expect(ps, ")")) {
      psg_tir_release(e);
      return NULL;
    }
    return e;
  }
  psgi_tirp_expected(ps, "an expression");
  return NULL;
}

static psg_tir_node *parse_unary(tparser *ps) {
  if (!tt_is(&ps->tok, "-")) return parse_primary(ps);
  ttoken t = ps->tok;
  psgi_tirp_advance(ps);
  if (++ps->depth > MAX_DEPTH) {
    psgi_tirp_error_at(ps, &t, "expression nested too deeply (limit %d)", MAX_DEPTH);
    ps->depth--;
    return NULL;
  }
  psg_tir_node *e = parse_unary(ps);
  ps->depth--;
  if (!e) return NULL;
  psg_tir_node *out = NULL;
  if (e->kind == PSG_TIR_INT_IMM && !psg_tir_dtype_is_bool(e->dtype) && e->u.int_value != INT64_MIN) {
    out = psgi_tirp_int_imm(ps, &t, e->dtype, -e->u.int_value);
  } else if (e->kind == PSG_TIR_FLOAT_IMM) {
    out = psgi_tirp_float_imm(ps, &t, e->dtype, -e->u.float_value);
  } else {
    /* TVM's PrimExpr.__neg__: x * -1 */
    psg_tir_dtype sd = psg_tir_dtype_with_lanes(e->dtype, 1);
    psg_tir_node *m1 = NULL;
    if (psg_tir_dtype_is_float(sd)) BUILD(&t, psg_tir_make_const_float(ps->ctx, sd, -1, SP(&t), &m1));
    else BUILD(&t, psg_tir_make_const_int(ps->ctx, sd, -1, SP(&t), &m1));
    return psgi_tirp_fold(ps, &t, PSG_TIR_MUL, e, m1);
  }
  psg_tir_release(e);
  return out;
}

static int mul_op(const ttoken *t) {
  if (tt_is(t, "*")) return PSG_TIR_MUL;
  if (tt_is(t, "/")) return PSG_TIR_DIV;
  if (tt_is(t, "//")) return PSG_TIR_FLOOR_DIV;
  if (tt_is(t, "%")) return PSG_TIR_FLOOR_MOD;
  return -1;
}
static int add_op(const ttoken *t) {
  if (tt_is(t, "+")) return PSG_TIR_ADD;
  if (tt_is(t, "-")) return PSG_TIR_SUB;
  return -1;
}
static int cmp_op(const ttoken *t) {
  if (tt_is(t, "==")) return PSG_TIR_EQ;
  if (tt_is(t, "!=")) return PSG_TIR_NE;
  if (tt_is(t, "<")) return PSG_TIR_LT;
  if (tt_is(t, "<=")) return PSG_TIR_LE;
  if (tt_is(t, ">")) return PSG_TIR_GT;
  if (tt_is(t, ">=")) return PSG_TIR_GE;
  return -1;
}

/* Left-associative chains are loops: a + b + c + ... costs no stack. */
static psg_tir_node *parse_term(tparser *ps) {
  psg_tir_node *e = parse_unary(ps);
  int k;
  while (e && (k = mul_op(&ps->tok)) >= 0) {
    ttoken t = ps->tok;
    psgi_tirp_advance(ps);
    e = psgi_tirp_fold(ps, &t, k, e, parse_unary(ps));
  }
  return e;
}

static psg_tir_node *parse_arith(tparser *ps) {
  psg_tir_node *e = parse_term(ps);
  int k;
  while (e && (k = add_op(&ps->tok)) >= 0) {
    ttoken t = ps->tok;
    psgi_tirp_advance(ps);
    e = psgi_tirp_fold(ps, &t, k, e, parse_term(ps));
  }
  return e;
}

static psg_tir_node *parse_cmp(tparser *ps) {
  psg_tir_node *e = parse_arith(ps);
  int k;
  if (e && (k = cmp_op(&ps->tok)) >= 0) {
    ttoken t = ps->tok;
    psgi_tirp_advance(ps);
    e = psgi_tirp_binary(ps, &t, k, e, parse_arith(ps));
    if (e && cmp_op(&ps->tok) >= 0) {
      psgi_tirp_error_at(ps, &ps->tok, "chained comparisons are not TIR: parenthesize one side");
      psg_tir_release(e);
      return NULL;
    }
  }
  return e;
}

static psg_tir_node *parse_not(tparser *ps) {
  if (!tt_is(&ps->tok, "not")) return parse_cmp(ps);
  ttoken t = ps->tok;
  psgi_tirp_advance(ps);
  if (++ps->depth > MAX_DEPTH) {
    psgi_tirp_error_at(ps, &t, "expression nested too deeply (limit %d)", MAX_DEPTH);
    ps->depth--;
    return NULL;
  }
  psg_tir_node *e = parse_not(ps), *out = NULL;
  ps->depth--;
  if (e) BUILD(&t, psg_tir_not_create(ps->ctx, e, SP(&t), &out));
  psg_tir_release(e);
  return out;
}

static psg_tir_node *parse_and(tparser *ps) {
  psg_tir_node *e = parse_not(ps);
  while (e && tt_is(&ps->tok, "and")) {
    ttoken t = ps->tok;
    psgi_tirp_advance(ps);
    e = psgi_tirp_binary(ps, &t, PSG_TIR_AND, e, parse_not(ps));
  }
  return e;
}

psg_tir_node *psgi_tirp_parse_expr(tparser *ps) {
  if (++ps->depth > MAX_DEPTH) {
    psgi_tirp_error_at(ps, &ps->tok, "expression nested too deeply (limit %d)", MAX_DEPTH);
    ps->depth--;
    return NULL;
  }
  psg_tir_node *e = parse_and(ps);
  while (e && tt_is(&ps->tok, "or")) {
    ttoken t = ps->tok;
    psgi_tirp_advance(ps);
    e = psgi_tirp_binary(ps, &t, PSG_TIR_OR, e, parse_and(ps));
  }
  ps->depth--;
  return e;
}
