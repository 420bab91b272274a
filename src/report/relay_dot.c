/* Passage — a Relay function's dataflow graph as Graphviz DOT for the run
 * report. One node per call, variable, tuple and projection (other kinds by
 * their kind name), an edge per operand; constants are counted into their
 * user's label rather than drawn (weights would hide the graph); a fused
 * function's call is labelled by the ops inside it. Nodes are numbered in
 * post-order, so capping at max_nodes keeps the part nearest the inputs. */
#include <stdio.h>
#include <string.h>
#include "report/report_internal.h"

typedef struct collect {
  const psg_expr *root;
  PSGI_VEC(const psg_expr *) nodes;
  psg_ctx *ctx;
  bool nomem;
} collect;

static bool drawn(int kind) {
  return kind != PSG_EXPR_CONSTANT && kind != PSG_EXPR_OP && kind != PSG_EXPR_GLOBAL_VAR &&
         kind != PSG_EXPR_FUNCTION && kind != PSG_EXPR_CONSTRUCTOR;
}

static int collect_pre(psg_visitor *v, const psg_expr *e) {
  collect *c = v->user;
  /* A nested function (a fused group, a closure) is one box: not entered. */
  return psg_expr_kind(e) == PSG_EXPR_FUNCTION && e != c->root ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_CONTINUE;
}

static psg_status collect_post(psg_visitor *v, const psg_expr *e) {
  collect *c = v->user;
  if (!drawn(psg_expr_kind(e))) return PSG_OK;
  if (!PSGI_VEC_PUSH(c->ctx, &c->nodes, e)) return psgi_nomem(c->ctx);
  return PSG_OK;
}

/* Appends `s` as the inside of a DOT double-quoted string. */
static void dot_escape(psgi_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') psgi_buf_putc(b, '\\');
    if (*s == '\n') psgi_buf_puts(b, "\\n");
    else psgi_buf_putc(b, *s);
  }
}

typedef struct op_names {
  psgi_buf *b;
  size_t n;
} op_names;

static psg_status name_op(psg_visitor *v, const psg_expr *e) {
  op_names *o = v->user;
  if (psg_expr_kind(e) != PSG_EXPR_CALL || psg_expr_kind(psg_call_get_callee(e)) != PSG_EXPR_OP) return PSG_OK;
  if (o->n < 4) {
    if (o->n) psgi_buf_putc(o->b, '+');
    dot_escape(o->b, psg_op_name(psg_call_get_callee(e)));
  } else if (o->n == 4) {
    psgi_buf_puts(o->b, "+...");
  }
  o->n++;
  return PSG_OK;
}

static void type_label(psgi_buf *b, const psg_type *t) {
  if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR) return;
  psgi_buf_puts(b, "\\n");
  for (int i = 0; i < psg_type_ndim(t); i++) {
    int64_t d = psg_type_dim(t, i);
    if (d >= 0) psgi_buf_printf(b, "%s%lld", i ? "x" : "", (long long)d);
    else psgi_buf_printf(b, "%s?", i ? "x" : "");
  }
  psgi_buf_printf(b, " %s", psg_dtype_name(psg_type_dtype(t)));
}

static psg_status label(psg_ctx *ctx, psgi_buf *b, const psg_expr *e) {
  int kind = psg_expr_kind(e);
  psg_status st = PSG_OK;
  if (kind == PSG_EXPR_CALL) {
    const psg_expr *callee = psg_call_get_callee(e);
    int ck = psg_expr_kind(callee);
    if (ck == PSG_EXPR_OP) {
      dot_escape(b, psg_op_name(callee));
    } else if (ck == PSG_EXPR_GLOBAL_VAR) {
      psgi_buf_putc(b, '@');
      dot_escape(b, psg_global_var_name(callee));
    } else if (ck == PSG_EXPR_FUNCTION) {
      psgi_buf_puts(b, "fn ");
      op_names o = {b, 0};
      psg_visitor v = {NULL, name_op, &o};
      st = psg_visit(ctx, &v, callee);
    } else {
      psgi_buf_puts(b, "call");
    }
    size_t consts = 0;
    for (size_t i = 0; i < psg_call_num_args(e); i++) consts += psg_expr_kind(psg_call_get_arg(e, i)) == PSG_EXPR_CONSTANT;
    if (consts) psgi_buf_printf(b, " +%zu const", consts);
  } else if (kind == PSG_EXPR_VAR) {
    psgi_buf_putc(b, '%');
    dot_escape(b, psg_var_name(e));
  } else if (kind == PSG_EXPR_TUPLE_GET_ITEM) {
    psgi_buf_printf(b, ".%d", psg_tuple_get_item_index(e));
  } else {
    psgi_buf_puts(b, psg_expr_kind_name(kind));
  }
  type_label(b, psg_expr_checked_type(e));
  return st;
}

static const char *fill_of(const psg_expr *e) {
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_VAR: return "#d9ead3";
  case PSG_EXPR_CALL:
    return psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP ? "#dae8fc" : "#fff2cc";
  default: return "#eeeeee";
  }
}

psg_status psgi_relay_to_dot(const psg_module *m, const char *name, size_t max_nodes, char **dot, size_t *shown,
                             size_t *total) {
  *dot = NULL;
  *shown = *total = 0;
  psg_ctx *ctx = psg_module_get_ctx(m);
  const psg_expr *fn = NULL;
  for (size_t i = 0; !fn && i < psg_module_num_functions(m); i++) {
    const char *gv = psg_global_var_name(psg_module_get_global_var(m, i));
    if (!name || !strcmp(gv, name)) fn = psg_module_get_function(m, i);
  }
  if (!fn) return psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND, "the module has no Relay function %s%s", name ? "@" : "",
                               name ? name : "to draw");
  collect c = {fn, {0}, ctx, false};
  psgi_map ids;
  psgi_map_init(&ids, ctx);
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  psg_visitor v = {collect_pre, collect_post, &c};
  /* Parameters appear where the body uses them. */
  psg_status st = psg_visit(ctx, &v, psg_function_get_body(fn));
  size_t n = c.nodes.len < max_nodes ? c.nodes.len : max_nodes;
  for (size_t i = 0; !st && i < n; i++) {
    psgi_map_entry *me = psgi_map_put_ptr(&ids, c.nodes.data[i], NULL);
    if (!me) st = psgi_nomem(ctx);
    else me->value = (void *)(uintptr_t)(i + 1);
  }
  psgi_buf_puts(&b, "digraph relay {\n  graph [rankdir=TB, nodesep=0.15, ranksep=0.25];\n"
                    "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9, height=0.2, "
                    "margin=\"0.06,0.02\"];\n  edge [arrowsize=0.5, color=\"#666666\"];\n");
  for (size_t i = 0; !st && i < n; i++) {
    const psg_expr *e = c.nodes.data[i];
    psgi_buf_printf(&b, "  n%zu [fillcolor=\"%s\", label=\"", i, fill_of(e));
    st = label(ctx, &b, e);
    psgi_buf_puts(&b, "\"];\n");
    for (size_t k = 0; k < psg_expr_num_children(e); k++) {
      psgi_map_entry *from = psgi_map_get_ptr(&ids, psg_expr_get_child(e, k));
      if (from) psgi_buf_printf(&b, "  n%zu -> n%zu;\n", (size_t)(uintptr_t)from->value - 1, i);
    }
  }
  if (!st && n < c.nodes.len)
    psgi_buf_printf(&b,
                    "  capped [shape=note, fillcolor=\"#f8cecc\", label=\"graph capped: %zu of %zu nodes shown,\\n"
                    "%zu nearest the outputs left out\"];\n",
                    n, c.nodes.len, c.nodes.len - n);
  psgi_buf_puts(&b, "}\n");
  if (!st && b.failed) st = psgi_nomem(ctx);
  if (!st) {
    *dot = b.data;
    b.data = NULL;
    *shown = n;
    *total = c.nodes.len;
  }
  psgi_buf_fini(&b);
  psgi_map_fini(&ids);
  PSGI_VEC_FREE(ctx, &c.nodes);
  return st;
}
