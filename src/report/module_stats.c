/* Passage — what the run report counts in a module: Relay expression nodes
 * (each shared node once; Op nodes are global and not counted) and calls of
 * an Op, per Relay function; statements per PrimFunc. Iterative walks. */
#include "report/report_internal.h"

static psg_status count_relay(psg_visitor *v, const psg_expr *e) {
  psgi_module_stats *s = v->user;
  int kind = psg_expr_kind(e);
  if (kind == PSG_EXPR_OP) return PSG_OK;
  s->relay_nodes++;
  if (kind == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP) s->op_calls++;
  return PSG_OK;
}

static psg_status count_tir(psg_tir_visitor *v, const psg_tir_node *n) {
  psgi_module_stats *s = v->user;
  if (psg_tir_is_stmt(n)) s->tir_stmts++;
  return PSG_OK;
}

psg_status psgi_module_stats_compute(const psg_module *m, psgi_module_stats *out) {
  memset(out, 0, sizeof *out);
  psg_ctx *ctx = psg_module_get_ctx(m);
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < psg_module_num_functions(m); i++) {
    psg_expr *fn = psg_module_get_function(m, i);
    psg_tir_prim_func *pf = fn ? NULL : psg_module_get_prim_func(m, i);
    if (fn) {
      out->relay_functions++;
      psg_visitor v = {NULL, count_relay, out};
      st = psg_visit(ctx, &v, fn);
    } else if (pf) {
      out->prim_funcs++;
      psg_tir_visitor v = {NULL, count_tir, out};
      st = psg_tir_visit(ctx, &v, pf);
    }
  }
  return st;
}
