/* Passage — TVMScript parser (tir_parse.c): the T.<name>(...) calls of an
 * expression: typed literals and casts, intrinsics and their dtypes, T.Let,
 * and the node classes (T.Add, T.Select, T.Ramp, ...). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "text/tir_parse_internal.h"

static psg_tir_node *call_op(tparser *ps, const ttoken *t, psg_tir_dtype dt, const char *op, tnode_vec *args) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_call_create(ps->ctx, dt, op, args->data, args->len, SP(t), &out));
  return out;
}

/* T.Let(body, where={v: value}): the value and v come first (v is used in
 * the body), so the body's tokens are skipped, then parsed again. */
static psg_tir_node *parse_let_expr(tparser *ps, const ttoken *t) {
  tlex_pos body_pos = ps->lx.s;
  ttoken body_tok = ps->tok, body_next = ps->next;
  int nest = 0;
  while (ps->tok.kind != TT_EOF && ps->tok.kind != TT_ERROR && !(nest == 0 && tt_is(&ps->tok, ","))) {
    if (tt_is(&ps->tok, "(") || tt_is(&ps->tok, "[") || tt_is(&ps->tok, "{")) nest++;
    if (tt_is(&ps->tok, ")") || tt_is(&ps->tok, "]") || tt_is(&ps->tok, "}")) {
      if (nest-- == 0) break;
    }
    psgi_tirp_advance(ps);
  }
  if (psgi_tirp_expect(ps, ",") || psgi_tirp_expect(ps, "where") || psgi_tirp_expect(ps, "=") || psgi_tirp_expect(ps, "{")) return NULL;
  if (!is_name(&ps->tok)) {
    psgi_tirp_expected(ps, "a variable name");
    return NULL;
  }
  ttoken vt = ps->tok;
  psgi_tirp_advance(ps);
  if (psgi_tirp_expect(ps, ":")) return NULL;
  psg_tir_node *value = psgi_tirp_parse_expr(ps);
  if (!value) return NULL;
  if (psgi_tirp_expect(ps, "}") || psgi_tirp_expect(ps, ")")) {
    psg_tir_release(value);
    return NULL;
  }
  tlex_pos end_pos = ps->lx.s;
  ttoken end_tok = ps->tok, end_next = ps->next;
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)(vt.len > 255 ? 255 : vt.len), vt.text);
  psg_tir_node *var = NULL, *body = NULL, *out = NULL;
  size_t mark = ps->undo.len;
  if (!BUILD(&vt, psg_tir_var_create(ps->ctx, name, value->dtype, NULL, SP(&vt), &var)) &&
      !psgi_tirp_define(ps, &vt, SYM_VAR, var)) {
    ps->lx.s = body_pos;
    ps->tok = body_tok;
    ps->next = body_next;
    body = psgi_tirp_parse_expr(ps);
    if (body) BUILD(t, psg_tir_let_create(ps->ctx, var, value, body, SP(t), &out));
    ps->lx.s = end_pos;
    ps->tok = end_tok;
    ps->next = end_next;
  }
  psgi_tirp_undo_to(ps, mark);
  psg_tir_release(var);
  psg_tir_release(value);
  psg_tir_release(body);
  return out;
}

/* The arguments of T.<name>(...) after its '(': positional ones into out,
 * and dtype="..." into *kw_dtype (0 when absent), the one keyword TVM's
 * wrappers take on every op (an op wrapper drops it, a dtype-forwarding one
 * makes it the first argument: ir_builder/tir/ir.py). */
static bool parse_call_args(tparser *ps, tnode_vec *out, psg_tir_dtype *kw_dtype) {
  *kw_dtype = 0;
  while (!tt_is(&ps->tok, ")")) {
    if (psgi_tirp_kw(ps, "dtype")) {
      if (psgi_tirp_repeated(ps, *kw_dtype != 0, "dtype") || !psgi_tirp_string_dtype(ps, kw_dtype)) return false;
    } else if (is_name(&ps->tok) && tt_is(&ps->next, "=")) {
      psgi_tirp_error_at(ps, &ps->tok, "unexpected keyword argument '%.*s'", (int)(ps->tok.len > 40 ? 40 : ps->tok.len),
                         ps->tok.text);
      return false;
    } else {
      psg_tir_node *e = psgi_tirp_parse_expr(ps);
      if (!e || !psgi_tirp_push_node(ps, out, e)) return false;
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  return !psgi_tirp_expect(ps, ")");
}

/* Takes the first positional argument, a string, off args: into buf. */
static bool take_string(tparser *ps, const ttoken *nt, tnode_vec *args, const char *what, char *buf, size_t cap) {
  if (!args->len || args->data[0]->kind != PSG_TIR_STRING_IMM || args->data[0]->u.str.len >= cap) {
    psgi_tirp_error_at(ps, nt, "T.%.*s: expected %s", (int)(nt->len > 40 ? 40 : nt->len), nt->text, what);
    return false;
  }
  snprintf(buf, cap, "%.*s", (int)args->data[0]->u.str.len, args->data[0]->u.str.s);
  psg_tir_release(args->data[0]);
  memmove(args->data, args->data + 1, (args->len - 1) * sizeof *args->data);
  args->len--;
  return true;
}

/* The dtype a dtype-forwarding T.<name> is given: dtype= or a first
 * positional string (taken off args). */
static psg_tir_dtype forwarded_dtype(tparser *ps, const ttoken *nt, tnode_vec *args, psg_tir_dtype kw_dtype) {
  if (kw_dtype) return kw_dtype;
  char s[32];
  if (!take_string(ps, nt, args, "a dtype string such as \"float32\" first, or dtype=", s, sizeof s)) return 0;
  psg_tir_dtype dt = psgi_tir_script_dtype_word(s, strlen(s));
  if (!dt) psgi_tirp_error_at(ps, nt, "unknown dtype \"%s\"", s);
  return dt;
}

/* T.if_then_else(c, t, f) as TVM's op builds it: t and f matched, folded
 * when c is a literal. */
static psg_tir_node *if_then_else(tparser *ps, const ttoken *nt, tnode_vec *args) {
  psgi_tirp_match_types(ps, nt, &args->data[1], &args->data[2]);
  psg_tir_node *c = args->data[0], *out = NULL;
  if (c->kind == PSG_TIR_INT_IMM) {
    out = args->data[c->u.int_value ? 1 : 2];
    if (out->dtype != args->data[c->u.int_value ? 2 : 1]->dtype) {
      psgi_tirp_error_at(ps, nt, "T.if_then_else: the two values have different dtypes");
      return NULL;
    }
    psg_tir_retain(out);
    return out;
  }
  return call_op(ps, nt, args->data[1]->dtype, "tir.if_then_else", args);
}

/* The bit operators as TVM's ops build them: operands matched, two integer
 * literals folded (a shift only by 0 .. bits - 1, as TVM checks). */
static psg_tir_node *bit_op(tparser *ps, const ttoken *nt, const char *op, tnode_vec *args) {
  bool unary = !strcmp(op, "tir.bitwise_not");
  if (args->len != (unary ? 1u : 2u)) {
    psgi_tirp_error_at(ps, nt, "%s takes %d argument%s, got %zu", op, unary ? 1 : 2, unary ? "" : "s", args->len);
    return NULL;
  }
  psg_tir_node *a = args->data[0], *b = unary ? NULL : args->data[1], *out = NULL;
  if (!unary) {
    psgi_tirp_match_types(ps, nt, &args->data[0], &args->data[1]);
    a = args->data[0];
    b = args->data[1];
  }
  if (a->kind == PSG_TIR_INT_IMM && (unary || b->kind == PSG_TIR_INT_IMM) && psg_tir_dtype_lanes(a->dtype) == 1 &&
      !psg_tir_dtype_is_bool(a->dtype)) {
    uint64_t x = (uint64_t)a->u.int_value, y = unary ? 0 : (uint64_t)b->u.int_value;
    int bits = psg_tir_dtype_bits(a->dtype);
    bool shift = strstr(op, "shift") != NULL, ok = !shift || (b->u.int_value >= 0 && b->u.int_value < bits);
    if (ok) {
      uint64_t r = unary ? ~x : !strcmp(op, "tir.bitwise_and") ? x & y : !strcmp(op, "tir.bitwise_or") ? x | y
                 : !strcmp(op, "tir.bitwise_xor") ? x ^ y : !strcmp(op, "tir.shift_left") ? x << y
                 : (uint64_t)(psg_tir_dtype_is_uint(a->dtype) ? (int64_t)(x >> y) : a->u.int_value >> y);
      BUILD(nt, psg_tir_make_const_int(ps->ctx, a->dtype, (int64_t)r, SP(nt), &out));
      return out;
    }
  }
  return call_op(ps, nt, a->dtype, op, args);
}

/* T.<name>(...) in an expression; the '(' is the current token. */
psg_tir_node *psgi_tirp_parse_t_call(tparser *ps, const ttoken *nt) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(nt->len > 60 ? 60 : nt->len), nt->text);
  if (psgi_tirp_expect(ps, "(")) return NULL;
  /* TVM's lower-case aliases of the node classes (ir_builder/tir/ir.py) */
  if (!strcmp(name, "ramp")) name[0] = 'R';
  if (!strcmp(name, "broadcast")) name[0] = 'B';
  if (!strcmp(name, "Let")) return parse_let_expr(ps, nt);
  psg_tir_dtype dt = psgi_tir_script_dtype_word(nt->text, nt->len);
  tnode_vec args = {0};
  psg_tir_node *out = NULL;
  if (dt) {
    /* T.float32(1), T.int64(-3), T.bool(True), T.float32("inf"), T.int32(x) */
    if (ps->tok.kind == TT_STRING && psg_tir_dtype_is_float(dt)) {
      char s[16];
      size_t n;
      if (!psgi_tirp_unescape(ps, &ps->tok, s, sizeof s, false, &n)) return NULL;
      double v = !strcmp(s, "inf") ? INFINITY : !strcmp(s, "-inf") ? -INFINITY : !strcmp(s, "nan") ? NAN : 0;
      if (v == 0) {
        psgi_tirp_expected(ps, "\"inf\", \"-inf\" or \"nan\"");
        return NULL;
      }
      psgi_tirp_advance(ps);
      if (psgi_tirp_expect(ps, ")")) return NULL;
      return psgi_tirp_float_imm(ps, nt, dt, v);
    }
    if (tt_is(&ps->tok, ")")) {
      psgi_tirp_error_at(ps, nt, "T.%s() declares a variable: write 'n = T.%s()' as a statement", name, name);
      return NULL;
    }
    /* T.float64(0.1): the literal's own value, not a float32 rounding of it */
    bool neg = tt_is(&ps->tok, "-");
    if (psg_tir_dtype_is_float(dt) && psg_tir_dtype_lanes(dt) == 1) {
      tlex_pos p0 = ps->lx.s;
      ttoken t0 = ps->tok, n0 = ps->next;
      if (neg) psgi_tirp_advance(ps);
      if ((ps->tok.kind == TT_FLOAT || ps->tok.kind == TT_INT) && tt_is(&ps->next, ")")) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(ps->tok.len > 63 ? 63 : ps->tok.len), ps->tok.text);
        double v = strtod(buf, NULL);
        psgi_tirp_advance(ps);
        psgi_tirp_advance(ps);
        return psgi_tirp_float_imm(ps, nt, dt, neg ? -v : v);
      }
      ps->lx.s = p0;
      ps->tok = t0;
      ps->next = n0;
    }
    if (!psgi_tirp_parse_args(ps, &args)) goto done;
    if (args.len != 1) {
      psgi_tirp_error_at(ps, nt, "T.%s takes one value", name);
      goto done;
    }
    psg_tir_node *v = args.data[0];
    if (psg_tir_dtype_lanes(dt) == 1 && (v->kind == PSG_TIR_INT_IMM || v->kind == PSG_TIR_FLOAT_IMM)) {
      if (psg_tir_dtype_is_float(dt))
        out = psgi_tirp_float_imm(ps, nt, dt, v->kind == PSG_TIR_INT_IMM ? (double)v->u.int_value : v->u.float_value);
      else if (v->kind == PSG_TIR_INT_IMM)
        out = psgi_tirp_int_imm(ps, nt, dt, v->u.int_value);
      else
        BUILD(nt, psg_tir_cast_create(ps->ctx, dt, v, SP(nt), &out));
    } else if (v->dtype == dt) {
      out = v;
      psg_tir_retain(out);
    } else {
      BUILD(nt, psg_tir_cast_create(ps->ctx, dt, v, SP(nt), &out));
    }
    goto done;
  }
  psg_tir_dtype kw_dtype;
  if (!parse_call_args(ps, &args, &kw_dtype)) goto done;
  size_t n = args.len;
  if (!strcmp(name, "Cast") || !strcmp(name, "reinterpret") || !strcmp(name, "call_extern") ||
      !strcmp(name, "call_pure_extern") || !strcmp(name, "call_intrin") || !strcmp(name, "get_active_lane_mask")) {
    /* dtype first, or dtype= (TVM's _dtype_forward ops) */
    if (!(dt = forwarded_dtype(ps, nt, &args, kw_dtype))) goto done;
    char op[80];
    if (!strcmp(name, "call_intrin")) {
      char s[70];
      if (!take_string(ps, nt, &args, "an op name string after the dtype", s, sizeof s)) goto done;
      snprintf(op, sizeof op, "%s", s);
    } else {
      snprintf(op, sizeof op, "tir.%s", name);
    }
    if (!strcmp(name, "Cast") || !strcmp(name, "reinterpret")) {
      if (args.len != 1) psgi_tirp_error_at(ps, nt, "T.%s takes a dtype and one value", name);
      else if (name[0] == 'C') BUILD(nt, psg_tir_cast_create(ps->ctx, dt, args.data[0], SP(nt), &out));
      else if (args.data[0]->dtype == dt) psg_tir_retain(out = args.data[0]); /* TVM's reinterpret: as is */
      else out = call_op(ps, nt, dt, op, &args);
      goto done;
    }
    if (psg_tir_op_find(op) < 0) {
      psgi_tirp_error_at(ps, nt, "unknown TIR op '%s'", op);
      goto done;
    }
    out = call_op(ps, nt, dt, op, &args);
    goto done;
  }
  if (!strcmp(name, "cast")) {
    /* tvm.tir.cast(value, dtype): TVM's cast, which folds a literal */
    if (!kw_dtype && n == 2 && args.data[1]->kind == PSG_TIR_STRING_IMM) {
      const psg_tir_node *s = args.data[1];
      if (!(kw_dtype = psgi_tir_script_dtype_word(s->u.str.s, s->u.str.len))) {
        psgi_tirp_error_at(ps, nt, "unknown dtype \"%.*s\"", (int)(s->u.str.len > 40 ? 40 : s->u.str.len), s->u.str.s);
        goto done;
      }
      n = 1;
    }
    if (n != 1 || !kw_dtype) psgi_tirp_error_at(ps, nt, "T.cast takes a value and a dtype string");
    else BUILD(nt, psg_tir_op_cast(ps->ctx, kw_dtype, args.data[0], SP(nt), &out));
    goto done;
  }
  if (!strcmp(name, "ceildiv") || !strcmp(name, "meta_var")) {
    bool cd = name[0] == 'c';
    if (n != (cd ? 2u : 1u)) {
      psgi_tirp_error_at(ps, nt, "T.%s takes %d argument%s, got %zu", name, cd ? 2 : 1, cd ? "s" : "", n);
      goto done;
    }
    args.len = 0;
    if (!cd) {
      /* T.meta_var(e) is e itself: a name bound to it is substituted */
      out = args.data[0];
      goto done;
    }
    /* TVM's ceildiv: floordiv(a + b - 1, b), each step folded as its
     * operators fold (an integer pair becomes one literal) */
    psg_tir_node *a = args.data[0], *b = args.data[1];
    if (!(psg_tir_dtype_is_int(a->dtype) || psg_tir_dtype_is_uint(a->dtype)) ||
        !(psg_tir_dtype_is_int(b->dtype) || psg_tir_dtype_is_uint(b->dtype))) {
      psgi_tirp_error_at(ps, nt, "T.ceildiv takes integer operands");
      psg_tir_release(a);
      psg_tir_release(b);
      goto done;
    }
    psg_tir_retain(b);
    psg_tir_node *num = psgi_tirp_fold(ps, nt, PSG_TIR_ADD, a, b);
    if (num) num = psgi_tirp_fold(ps, nt, PSG_TIR_SUB, num, psgi_tirp_int_imm(ps, nt, num->dtype, 1));
    out = psgi_tirp_fold(ps, nt, PSG_TIR_FLOOR_DIV, num, b);
    goto done;
  }
  /* TVM's ops (tir/op.h): operands matched and literals folded */
  static const struct { const char *name; int kind; } ops[] = {
      {"min", PSG_TIR_MIN}, {"max", PSG_TIR_MAX}, {"truncdiv", PSG_TIR_DIV}, {"truncmod", PSG_TIR_MOD},
      {"floordiv", PSG_TIR_FLOOR_DIV}, {"floormod", PSG_TIR_FLOOR_MOD}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(name, ops[i].name)) {
      if (n != 2) {
        psgi_tirp_error_at(ps, nt, "T.%s takes 2 arguments, got %zu", name, n);
        goto done;
      }
      out = psgi_tirp_fold(ps, nt, ops[i].kind, args.data[0], args.data[1]);
      args.len = 0;
      goto done;
    }
  /* the node classes, as `op = T.Add` aliases call them: built as written */
  static const struct { const char *name; int kind; } bins[] = {
      {"Add", PSG_TIR_ADD}, {"Sub", PSG_TIR_SUB}, {"Mul", PSG_TIR_MUL}, {"Div", PSG_TIR_DIV}, {"Mod", PSG_TIR_MOD},
      {"FloorDiv", PSG_TIR_FLOOR_DIV}, {"FloorMod", PSG_TIR_FLOOR_MOD}, {"Min", PSG_TIR_MIN}, {"Max", PSG_TIR_MAX},
      {"EQ", PSG_TIR_EQ}, {"NE", PSG_TIR_NE}, {"LT", PSG_TIR_LT}, {"LE", PSG_TIR_LE}, {"GT", PSG_TIR_GT},
      {"GE", PSG_TIR_GE}, {"And", PSG_TIR_AND}, {"Or", PSG_TIR_OR}};
  for (size_t i = 0; i < sizeof bins / sizeof *bins; i++)
    if (!strcmp(name, bins[i].name)) {
      if (n != 2) {
        psgi_tirp_error_at(ps, nt, "T.%s takes 2 arguments, got %zu", name, n);
        goto done;
      }
      out = psgi_tirp_binary(ps, nt, bins[i].kind, args.data[0], args.data[1]);
      args.len = 0;
      goto done;
    }
  if (!strcmp(name, "Select") || !strcmp(name, "if_then_else")) {
    if (n != 3) {
      psgi_tirp_error_at(ps, nt, "T.%s takes 3 arguments, got %zu", name, n);
      goto done;
    }
    if (name[0] == 'i') {
      out = if_then_else(ps, nt, &args);
      goto done;
    }
    psgi_tirp_match_types(ps, nt, &args.data[1], &args.data[2]);
    BUILD(nt, psg_tir_select_create(ps->ctx, args.data[0], args.data[1], args.data[2], SP(nt), &out));
    goto done;
  }
  if (!strcmp(name, "Ramp") || !strcmp(name, "Broadcast")) {
    bool ramp = name[0] == 'R';
    size_t want = ramp ? 3 : 2;
    if (n != want || args.data[n - 1]->kind != PSG_TIR_INT_IMM) {
      psgi_tirp_error_at(ps, nt, "T.%s takes %s and a literal lane count", name, ramp ? "a base, a stride" : "a value");
      goto done;
    }
    int lanes = (int)(args.data[n - 1]->u.int_value > 65535 ? 0 : args.data[n - 1]->u.int_value);
    if (ramp) {
      psgi_tirp_match_types(ps, nt, &args.data[0], &args.data[1]);
      BUILD(nt, psg_tir_ramp_create(ps->ctx, args.data[0], args.data[1], lanes, SP(nt), &out));
    } else {
      BUILD(nt, psg_tir_broadcast_create(ps->ctx, args.data[0], lanes, SP(nt), &out));
    }
    goto done;
  }
  if (!strcmp(name, "type_annotation")) { /* T.type_annotation("float32"): a dtype as a call */
    psg_tir_dtype t = n == 1 && args.data[0]->kind == PSG_TIR_STRING_IMM
                          ? psg_tir_dtype_parse(args.data[0]->u.str.s, args.data[0]->u.str.len)
                          : 0;
    if (!t) {
      psgi_tirp_error_at(ps, nt, "T.type_annotation takes one dtype string");
      goto done;
    }
    BUILD(nt, psg_tir_call_create(ps->ctx, t, "tir.type_annotation", NULL, 0, SP(nt), &out));
    goto done;
  }
  char op[80];
  snprintf(op, sizeof op, "tir.%s", name);
  if (psg_tir_op_find(op) < 0) {
    psgi_tirp_error_at(ps, nt, "unknown TVMScript function 'T.%s'", name);
    goto done;
  }
  if (!strncmp(name, "bitwise_", 8) || !strcmp(name, "shift_left") || !strcmp(name, "shift_right")) {
    out = bit_op(ps, nt, op, &args);
    goto done;
  }
  /* an op wrapper drops dtype= (TVM's _op_wrapper); it only stands in
   * for the dtype of an op whose result dtype its arguments do not say */
  dt = psgi_tir_script_call_dtype(op, args.data, n);
  if (!dt) dt = kw_dtype;
  if (!dt) {
    psgi_tirp_error_at(ps, nt, "T.%s needs its result dtype: write T.call_intrin(\"dtype\", \"%s\", ...)", name, op);
    goto done;
  }
  out = call_op(ps, nt, dt, op, &args);
done:
  psgi_tirp_release_all(args.data, args.len);
  PSGI_VEC_FREE(ps->ctx, &args);
  return out;
}
