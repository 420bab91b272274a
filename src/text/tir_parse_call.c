/* Passage — TVMScript parser (tir_parse.c): the T.<name>(...) calls of an
 * expression: typed literals and casts, intrinsics and their dtypes, T.Let,
 * and the node classes (T.Add, T.Select, T.Ramp, ...). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "text/tir_parse_internal.h"

static psg_tir_node *call_op(tparser *ps, const ttoken *t, psg_tir_dtype dt, const char *op, tnode_vec *args) {
  psg_tir_node *out = NULL;
  BUILD(t, psg_tir_call_create(ps->ctx, dt, op, args->data, args->len, NULL, &out));
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
  if (!BUILD(&vt, psg_tir_var_create(ps->ctx, name, value->dtype, NULL, NULL, &var)) &&
      !psgi_tirp_define(ps, &vt, SYM_VAR, var)) {
    ps->lx.s = body_pos;
    ps->tok = body_tok;
    ps->next = body_next;
    body = psgi_tirp_parse_expr(ps);
    if (body) BUILD(t, psg_tir_let_create(ps->ctx, var, value, body, NULL, &out));
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

/* T.<name>(...) in an expression; the '(' is the current token. */
psg_tir_node *psgi_tirp_parse_t_call(tparser *ps, const ttoken *nt) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(nt->len > 60 ? 60 : nt->len), nt->text);
  if (psgi_tirp_expect(ps, "(")) return NULL;
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
        BUILD(nt, psg_tir_cast_create(ps->ctx, dt, v, NULL, &out));
    } else if (v->dtype == dt) {
      out = v;
      psg_tir_retain(out);
    } else {
      BUILD(nt, psg_tir_cast_create(ps->ctx, dt, v, NULL, &out));
    }
    goto done;
  }
  if (!strcmp(name, "Cast") || !strcmp(name, "reinterpret") || !strcmp(name, "call_extern") ||
      !strcmp(name, "call_pure_extern") || !strcmp(name, "call_intrin")) {
    /* dtype first */
    if (!psgi_tirp_string_dtype(ps, &dt)) return NULL;
    char op[80];
    if (!strcmp(name, "call_intrin")) {
      if (!psgi_tirp_accept(ps, ",") || ps->tok.kind != TT_STRING) {
        psgi_tirp_expected(ps, "an op name string");
        return NULL;
      }
      snprintf(op, sizeof op, "%.*s", (int)(ps->tok.len > 70 ? 70 : ps->tok.len), ps->tok.text);
      psgi_tirp_advance(ps);
    } else {
      snprintf(op, sizeof op, "tir.%s", name);
    }
    if (psgi_tirp_accept(ps, ",") && !psgi_tirp_parse_args(ps, &args)) goto done;
    if (args.len == 0 && psgi_tirp_expect(ps, ")")) goto done;
    if (!strcmp(name, "Cast")) {
      if (args.len != 1) psgi_tirp_error_at(ps, nt, "T.Cast takes a dtype and one value");
      else BUILD(nt, psg_tir_cast_create(ps->ctx, dt, args.data[0], NULL, &out));
      goto done;
    }
    if (psg_tir_op_find(op) < 0) {
      psgi_tirp_error_at(ps, nt, "unknown TIR op '%s'", op);
      goto done;
    }
    out = call_op(ps, nt, dt, op, &args);
    goto done;
  }
  if (!psgi_tirp_parse_args(ps, &args)) goto done;
  size_t n = args.len;
  static const struct { const char *name; int kind; } bins[] = {
      {"min", PSG_TIR_MIN}, {"max", PSG_TIR_MAX}, {"truncdiv", PSG_TIR_DIV}, {"truncmod", PSG_TIR_MOD},
      {"floordiv", PSG_TIR_FLOOR_DIV}, {"floormod", PSG_TIR_FLOOR_MOD},
      /* the node classes, as `op = T.Add` aliases call them */
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
  if (!strcmp(name, "cast")) {
    psgi_tirp_error_at(ps, nt, "write T.Cast(\"dtype\", value)");
    goto done;
  }
  if (!strcmp(name, "Select") || !strcmp(name, "if_then_else")) {
    if (n != 3) {
      psgi_tirp_error_at(ps, nt, "T.%s takes 3 arguments, got %zu", name, n);
      goto done;
    }
    psgi_tirp_match_types(ps, nt, &args.data[1], &args.data[2]);
    if (!strcmp(name, "Select")) BUILD(nt, psg_tir_select_create(ps->ctx, args.data[0], args.data[1], args.data[2], NULL, &out));
    else out = call_op(ps, nt, args.data[1]->dtype, "tir.if_then_else", &args);
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
      BUILD(nt, psg_tir_ramp_create(ps->ctx, args.data[0], args.data[1], lanes, NULL, &out));
    } else {
      BUILD(nt, psg_tir_broadcast_create(ps->ctx, args.data[0], lanes, NULL, &out));
    }
    goto done;
  }
  char op[80];
  snprintf(op, sizeof op, "tir.%s", name);
  if (psg_tir_op_find(op) < 0) {
    psgi_tirp_error_at(ps, nt, "unknown TVMScript function 'T.%s'", name);
    goto done;
  }
  dt = psgi_tir_script_call_dtype(op, args.data, n);
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
