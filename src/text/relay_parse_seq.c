/* Passage — Relay text parser: sequences and blocks (temps, let, free_var,
 * sequencing), built from the innermost binding out without recursion. */
#include <stdio.h>
#include "text/relay_parse_internal.h"

/* Skips to the end of the current statement: the ';' at the statement's own
 * bracket level `nest` (the error may have left us inside a call's
 * parentheses), or up to the '}' that closes the block, not consumed. */
static void resync(parser *ps, int nest) {
  while (ps->tok.kind != TOK_EOF && ps->tok.kind != TOK_ERROR) {
    if (ps->nest <= nest && tok_is(&ps->tok, ";")) {
      psgi_rp_advance(ps);
      return;
    }
    if (ps->nest <= nest && tok_is(&ps->tok, "}")) return;
    if (psgi_rp_at_global_start(ps)) return;
    psgi_rp_advance(ps);
  }
}

typedef struct pending_let {
  psg_expr *var, *value;
  token at;
} pending_let;

/* A sequence, TVM's ParseExpr: (%t = e; | let %v[: T] = e; | free_var %v[: T]; | e;)* e.
 * Temps are substitutions; lets are Let nodes, built from the innermost out
 * once the result is known; `e;` is a let of a fresh variable named "" (TVM's
 * sequencing). With `close` ("}"), the sequence is a block's body: it ends
 * with `close`, which is consumed, and an error resynchronizes at the next
 * statement. Without, it ends after the first expression not followed by ';'
 * and the caller checks what comes next. */
static psg_status parse_seq(parser *ps, const char *close, psg_expr **out) {
  *out = NULL;
  /* A block is a level of nesting; a sequence in parentheses or arguments
   * is counted by the expression around it. */
  int level = close ? 1 : 0;
  ps->depth += level;
  if (ps->depth > MAX_DEPTH) {
    ps->depth -= level;
    return psgi_rp_error_at(ps, &ps->tok, "blocks nested too deeply (limit %d)", MAX_DEPTH);
  }
  size_t mark = psgi_rp_scope_mark(ps);
  PSGI_VEC(pending_let) lets = {0};
  psg_expr *result = NULL;
  psg_status st = PSG_OK;
  bool failed = false;
  int nest = ps->nest;
  while (!st && !ps->gave_up) {
    token t = ps->tok;
    psg_status s = PSG_OK;
    if (t.kind == TOK_LOCAL && tok_is(&ps->next, "=")) {
      psgi_rp_advance(ps);
      psgi_rp_advance(ps);
      psg_expr *e = NULL;
      s = psgi_rp_parse_binop(ps, &e);
      if (!s && !psgi_rp_expect(ps, ";", "after the binding")) s = PSG_ERR_PARSE;
      if (!psgi_rp_define(ps, &t, s ? NULL : e, mark, false) && !s) s = PSG_ERR_PARSE;
      psg_expr_release(e);
    } else if (tok_is(&t, "let") || tok_is(&t, "free_var")) {
      bool is_let = tok_is(&t, "let");
      psgi_rp_advance(ps);
      token name = ps->tok;
      if (name.kind != TOK_LOCAL) {
        char buf[80];
        s = psgi_rp_error_at(ps, &name, "expected a variable after %s, found %s", is_let ? "let" : "free_var",
                     psgi_rp_tok_desc(&name, buf, sizeof buf));
      } else {
        psgi_rp_advance(ps);
        const psg_type *ty = NULL;
        if (tok_is(&ps->tok, ":")) {
          psgi_rp_advance(ps);
          s = psgi_rp_parse_annotation(ps, &ty);
        }
        char nbuf[256];
        snprintf(nbuf, sizeof nbuf, "%.*s", (int)name.len, name.text);
        psg_span sp = psgi_rp_span_of(ps, &name);
        psg_expr *value = NULL, *var = NULL;
        if (!is_let) {
          if (!s && !psgi_rp_expect(ps, ";", "after the free variable")) s = PSG_ERR_PARSE;
          if (!s) s = psg_var_create(ps->ctx, nbuf, ty, &sp, &var);
          if (!s) s = psgi_rp_define_free(ps, &name, var);
          psg_expr_release(var);
        } else {
          /* The variable is in scope in its own value, as in TVM's parser (a
           * recursive closure); a let may shadow an outer variable. */
          if (!s) s = psg_var_create(ps->ctx, nbuf, ty, &sp, &var);
          psgi_rp_define(ps, &name, s ? NULL : var, mark, true);
          if (!s && !psgi_rp_expect(ps, "=", "after the let variable")) s = PSG_ERR_PARSE;
          if (!s) s = psgi_rp_parse_binop(ps, &value);
          if (!s && !psgi_rp_expect(ps, ";", "after the let value")) s = PSG_ERR_PARSE;
          pending_let pl = {var, value, t};
          if (!s && !PSGI_VEC_PUSH(ps->ctx, &lets, pl)) s = psgi_nomem(ps->ctx);
          if (s) {
            psg_expr_release(var);
            psg_expr_release(value);
          }
        }
      }
    } else {
      /* An expression: the result, or a value sequenced before the rest. */
      psg_expr *e = NULL;
      s = psgi_rp_parse_binop(ps, &e);
      /* `e; }` ends no sequence: outside a block the ';' is left to the
       * caller, whose message names what it expected ("add(%x;" in a block). */
      if (!s && tok_is(&ps->tok, ";") && (close || !tok_is(&ps->next, "}"))) {
        psgi_rp_advance(ps);
        psg_span sp = psgi_rp_span_of(ps, &t);
        psg_expr *var = NULL;
        s = psg_var_create(ps->ctx, "", NULL, &sp, &var);
        pending_let pl = {var, e, t};
        if (!s && !PSGI_VEC_PUSH(ps->ctx, &lets, pl)) s = psgi_nomem(ps->ctx);
        if (s) {
          psg_expr_release(var);
          psg_expr_release(e);
        }
      } else if (!s) {
        result = e;
        if (!close) break;
        if (!tok_is(&ps->tok, close)) {
          char buf[80];
          /* "%x -1": the minus sign went to the number, as in TVM. */
          bool neg = (ps->tok.kind == TOK_INT || ps->tok.kind == TOK_FLOAT) && ps->tok.text[0] == '-';
          s = psgi_rp_error_at(ps, &ps->tok, "expected '%s' after the block's result (or ';' after a binding), found %s%s", close,
                       psgi_rp_tok_desc(&ps->tok, buf, sizeof buf),
                       neg ? " (a minus sign before a digit is part of the number: write '- 1' to subtract)" : "");
        } else {
          psgi_rp_advance(ps);
          break;
        }
      }
    }
    if (s == PSG_ERR_NOMEM) {
      st = s;
      break;
    }
    if (s) {
      failed = true;
      if (!close) {
        st = s;
        break;
      }
      psg_expr_release(result);
      result = NULL;
      resync(ps, nest);
      if (tok_is(&ps->tok, close)) {
        psgi_rp_advance(ps);
        break;
      }
      if (ps->tok.kind == TOK_EOF || ps->tok.kind == TOK_ERROR || tok_is(&ps->tok, "def")) break;
    }
  }
  if (!st && (failed || !result)) st = PSG_ERR_PARSE;
  /* Build the lets from the innermost out (a loop, whatever their number). */
  psg_expr *body = result;
  for (size_t i = lets.len; i-- > 0;) {
    pending_let *pl = &lets.data[i];
    if (!st) {
      psg_expr *let;
      psg_span sp = psgi_rp_span_of(ps, &pl->at);
      st = psg_let_create(ps->ctx, pl->var, pl->value, body, &sp, &let);
      psg_expr_release(body);
      body = st ? NULL : let;
    }
    psg_expr_release(pl->var);
    psg_expr_release(pl->value);
  }
  PSGI_VEC_FREE(ps->ctx, &lets);
  psgi_rp_scope_restore(ps, mark);
  ps->depth -= level;
  if (st) {
    psg_expr_release(body);
    return st;
  }
  *out = body;
  return PSG_OK;
}

/* { sequence } */
psg_status psgi_rp_parse_block(parser *ps, psg_expr **out) {
  *out = NULL;
  if (!psgi_rp_expect(ps, "{", "to start a block")) return PSG_ERR_PARSE;
  return parse_seq(ps, "}", out);
}

/* A sequence where an expression is expected (call arguments, tuple fields,
 * a condition, inside parentheses), as TVM's parser reads them. */
psg_status psgi_rp_parse_expr(parser *ps, psg_expr **out) { return parse_seq(ps, NULL, out); }
