/* Passage — tir.HoistIfThenElse (TVM's HoistIfThenElse in
 * src/tir/transforms/hoist_expression.cc, config `tir.HoistIfThenElse`), a
 * PrimFuncPass: TVM's sequence of the insertion step, tir.Simplify and
 * tir.RemoveNoOp.
 *
 * The insertion step walks the function with the loops in scope (For
 * nodes, and AttrStmts whose node is a var: "block" scopes). The condition
 * of each `if` that reads no memory and uses no let var is hoisted to the
 * outermost enclosing loop it can leave: the walk goes outward from the
 * innermost loop and stops below the first loop whose var the condition
 * uses, that holds a SeqStmt met before the `if` (in walk order), or that is
 * a block scope (unless support_block_scope_hosting); a condition using a
 * block var is hoisted only with that option. That loop is then wrapped in
 * `if cond: loop else: loop` (no else when the `if` has none), both copies
 * keeping the inner `if`; Simplify then decides it in each copy and
 * RemoveNoOp drops what is left empty. The copies are made SSA again. With
 * the function attribute tir.HoistIfThenElseExprWithBlock = 1, the
 * conditions of T.if_then_else expressions are hoisted instead, block vars
 * allowed (TVM's special case). Iterative. */
#include <string.h>
#include "passage/arith.h"
#include "tir/transforms/tir_transforms.h"

enum { FROM_STMT = 1, FROM_EXPR = 2, USING_BLOCK_VAR = 8 }; /* TVM's HoistedConditionals bits */

typedef struct scope {
  const psg_tir_node *def; /* For or AttrStmt */
  const psg_tir_node *var;
  bool block, seq;
} scope;

typedef struct record {
  const psg_tir_node *def;
  psg_tir_node *cond;
  bool else_case;
  size_t next; /* next record of the same def + 1, or 0 */
} record;

typedef struct collector {
  psg_ctx *ctx;
  int flags;
  PSGI_VEC(scope) loops;
  PSGI_VEC(const psg_tir_node *) lets;  /* let vars in scope */
  PSGI_VEC(const psg_tir_node *) vars;  /* scratch: the vars of one condition */
  PSGI_VEC(record) records;
  psgi_map first; /* def -> its first record + 1 */
  psgi_map last;  /* def -> its last record + 1 */
} collector;

/* The var an AttrStmt scopes (its node, or its IterVar's var), or NULL. */
static const psg_tir_node *attr_var(const psg_tir_node *n) {
  const psg_tir_node *node = psg_tir_attr_stmt_get_node(n);
  if (node && node->kind == PSG_TIR_ITER_VAR) node = node->kids[0];
  return node && psgi_tir_is_var_kind(node->kind) ? node : NULL;
}

/* c->vars = the vars cond mentions. */
static psg_status gather_vars(collector *c, const psg_tir_node *cond) {
  PSGI_VEC(const psg_tir_node *) todo = {0};
  c->vars.len = 0;
  psg_status st = PSGI_VEC_PUSH(c->ctx, &todo, cond) ? PSG_OK : psgi_nomem(c->ctx);
  while (!st && todo.len) {
    const psg_tir_node *n = todo.data[--todo.len];
    if (!n || n->kind == PSG_TIR_BUFFER) continue;
    if (psgi_tir_is_var_kind(n->kind)) {
      if (!PSGI_VEC_PUSH(c->ctx, &c->vars, n)) st = psgi_nomem(c->ctx);
      continue;
    }
    for (uint32_t i = 0; i < n->nkids && !st; i++)
      if (!PSGI_VEC_PUSH(c->ctx, &todo, n->kids[i])) st = psgi_nomem(c->ctx);
  }
  PSGI_VEC_FREE(c->ctx, &todo);
  return st;
}

static bool uses(const collector *c, const psg_tir_node *var) {
  for (size_t i = 0; i < c->vars.len; i++)
    if (c->vars.data[i] == var) return true;
  return false;
}

/* TVM's AttemptHoistConditional (only what can be enabled is recorded). */
static psg_status attempt(collector *c, psg_tir_node *cond, int from, bool else_case) {
  if (!(c->flags & from) || !c->loops.len) return PSG_OK;
  bool pure;
  psg_status st = psgi_tir_is_pure(c->ctx, cond, &pure);
  if (st || !pure) return st;
  if ((st = gather_vars(c, cond))) return st;
  for (size_t i = 0; i < c->lets.len; i++) /* it needs a let binding: not hoisted */
    if (uses(c, c->lets.data[i])) return PSG_OK;
  /* TVM's FindHoistDestination. */
  size_t n = c->loops.len, dest = 0;
  for (size_t k = n; k-- > 0;) {
    const scope *l = &c->loops.data[k];
    if (l->seq || uses(c, l->var) || (l->block && !(c->flags & USING_BLOCK_VAR))) {
      if (k == n - 1) return PSG_OK;
      dest = k + 1;
      break;
    }
  }
  if (c->loops.data[dest].seq) return PSG_OK;
  if (!(c->flags & USING_BLOCK_VAR))
    for (size_t k = 0; k < n; k++)
      if (c->loops.data[k].block && uses(c, c->loops.data[k].var)) return PSG_OK;
  const psg_tir_node *def = c->loops.data[dest].def;
  record r = {def, cond, else_case, 0};
  if (!PSGI_VEC_PUSH(c->ctx, &c->records, r)) return psgi_nomem(c->ctx);
  size_t idx = c->records.len; /* + 1 */
  psgi_map_entry *e = psgi_map_put_ptr(&c->last, def, NULL), *f = psgi_map_put_ptr(&c->first, def, NULL);
  if (!e || !f) return psgi_nomem(c->ctx);
  if (e->value) c->records.data[(size_t)e->value - 1].next = idx;
  else f->value = (void *)idx;
  e->value = (void *)idx;
  return PSG_OK;
}

static psg_status enter(collector *c, const psg_tir_node *n) {
  switch (n->kind) {
  case PSG_TIR_FOR: {
    scope s = {n, n->kids[0], false, false};
    return PSGI_VEC_PUSH(c->ctx, &c->loops, s) ? PSG_OK : psgi_nomem(c->ctx);
  }
  case PSG_TIR_ATTR_STMT: {
    const psg_tir_node *v = attr_var(n);
    scope s = {n, v, true, false};
    if (v && !PSGI_VEC_PUSH(c->ctx, &c->loops, s)) return psgi_nomem(c->ctx);
    return PSG_OK;
  }
  case PSG_TIR_LET_STMT:
  case PSG_TIR_LET: return PSGI_VEC_PUSH(c->ctx, &c->lets, n->kids[0]) ? PSG_OK : psgi_nomem(c->ctx);
  case PSG_TIR_IF_THEN_ELSE: return attempt(c, n->kids[0], FROM_STMT, n->nkids > 2 && n->kids[2]);
  case PSG_TIR_CALL:
    if (strcmp(psg_tir_call_op(n), "tir.if_then_else") == 0 && n->nkids == 3)
      return attempt(c, n->kids[0], FROM_EXPR, true);
    return PSG_OK;
  case PSG_TIR_SEQ_STMT:
    if (c->loops.len) c->loops.data[c->loops.len - 1].seq = true;
    return PSG_OK;
  default: return PSG_OK;
  }
}

static void leave(collector *c, const psg_tir_node *n) {
  if (n->kind == PSG_TIR_FOR || (n->kind == PSG_TIR_ATTR_STMT && attr_var(n))) c->loops.len--;
  else if (n->kind == PSG_TIR_LET_STMT || n->kind == PSG_TIR_LET) c->lets.len--;
}

/* TVM's HoistInfoCollector: a pre-order walk (each occurrence), scopes
 * closed after their children. */
static psg_status collect(collector *c, const psg_tir_node *root) {
  typedef struct step {
    const psg_tir_node *n;
    uint32_t next;
  } step;
  PSGI_VEC(step) stack = {0};
  psg_status st = enter(c, root);
  step s0 = {root, 0};
  if (!st && !PSGI_VEC_PUSH(c->ctx, &stack, s0)) st = psgi_nomem(c->ctx);
  while (!st && stack.len) {
    step *t = &stack.data[stack.len - 1];
    if (t->next >= t->n->nkids) {
      leave(c, t->n);
      stack.len--;
      continue;
    }
    const psg_tir_node *k = t->n->kids[t->next++];
    if (!k || k->kind == PSG_TIR_BUFFER || k->kind == PSG_TIR_ITER_VAR || psgi_tir_is_var_kind(k->kind)) continue;
    if ((st = enter(c, k))) break;
    step s = {k, 0};
    if (!PSGI_VEC_PUSH(c->ctx, &stack, s)) st = psgi_nomem(c->ctx);
  }
  PSGI_VEC_FREE(c->ctx, &stack);
  return st;
}

/* ExpressionHoister: each loop with records wrapped in their ifs. */
static psg_status wrap(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  collector *c = m->user;
  psg_tir_node *r = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &r);
  psgi_map_entry *e = psgi_map_get_ptr(&c->first, n);
  if (st || !e) {
    *out = r;
    return st;
  }
  /* The records of n in order; wrapped from the last, so the first is outermost. */
  PSGI_VEC(size_t) order = {0};
  for (size_t i = (size_t)e->value; i && !st; i = c->records.data[i - 1].next)
    if (!PSGI_VEC_PUSH(c->ctx, &order, i - 1)) st = psgi_nomem(c->ctx);
  for (size_t k = order.len; k-- > 0 && !st;) {
    const record *rec = &c->records.data[order.data[k]];
    psg_tir_node *w = NULL;
    st = psg_tir_if_then_else_create(c->ctx, rec->cond, r, rec->else_case ? r : NULL, &n->span, &w);
    psg_tir_release(r);
    r = w;
  }
  PSGI_VEC_FREE(c->ctx, &order);
  *out = r;
  return st;
}

psg_status psgi_tir_hoist_if_then_else_insert(psg_ctx *ctx, const psg_tir_prim_func *f, bool block_scope,
                                              psg_tir_prim_func **out) {
  *out = NULL;
  int flags = FROM_STMT | (block_scope ? USING_BLOCK_VAR : 0);
  psg_attr *special = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "tir.HoistIfThenElseExprWithBlock");
  if (special && psg_attr_get_int(special) == 1) flags = USING_BLOCK_VAR | FROM_EXPR;
  collector c = {.ctx = ctx, .flags = flags};
  psgi_map_init(&c.first, ctx);
  psgi_map_init(&c.last, ctx);
  psg_status st = collect(&c, f->kids[0]);
  psg_tir_node *body = NULL;
  if (!st && c.records.len) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.visit[PSG_TIR_FOR] = wrap;
    m.visit[PSG_TIR_ATTR_STMT] = wrap;
    m.user = &c;
    st = psg_tir_mutate(&m, f->kids[0], &body);
    psg_tir_mutator_fini(&m);
  }
  if (!st && (!body || body == f->kids[0])) {
    psg_tir_retain(*out = (psg_tir_node *)f);
  } else if (!st) {
    psg_tir_node *changed = NULL;
    st = psgi_tir_func_with_body(ctx, f, body, &changed);
    if (!st) st = psgi_tir_convert_ssa_func(ctx, changed, out);
    psg_tir_release(changed);
  }
  psg_tir_release(body);
  PSGI_VEC_FREE(ctx, &c.loops);
  PSGI_VEC_FREE(ctx, &c.lets);
  PSGI_VEC_FREE(ctx, &c.vars);
  PSGI_VEC_FREE(ctx, &c.records);
  psgi_map_fini(&c.first);
  psgi_map_fini(&c.last);
  return st;
}

/* TVM's Sequential(insertion, Simplify, RemoveNoOp), each reading its config. */
static psg_status hoist_if_then_else_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                          psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  *out = NULL;
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  psg_attr *cfg = psg_pass_context_get_config(pc, "tir.HoistIfThenElse");
  psg_attr *block = psg_attrs_get(cfg ? psg_attr_get_dict(cfg) : NULL, "support_block_scope_hosting");
  psg_tir_prim_func *a = NULL, *b = NULL;
  psg_status st = psgi_tir_hoist_if_then_else_insert(ctx, f, block && psg_attr_get_bool(block), &a);
  psg_attr *simp = psg_pass_context_get_config(pc, "tir.Simplify");
  if (!st) st = psg_tir_simplify_prim_func(a, simp ? psg_attr_get_dict(simp) : NULL, &b);
  psg_attr *rm = psg_pass_context_get_config(pc, "tir.RemoveNoOp");
  psg_attrs *d = rm ? psg_attr_get_dict(rm) : NULL;
  psg_attr *dataflow = psg_attrs_get(d, "use_dataflow_analysis"), *steps = psg_attrs_get(d, "max_simplification_steps");
  if (!st)
    st = psgi_tir_remove_no_op(ctx, b, steps ? psg_attr_get_int(steps) : 0, dataflow && psg_attr_get_bool(dataflow),
                               out);
  psg_tir_release(a);
  psg_tir_release(b);
  return st;
}

const psg_pass_decl psgi_pass_tir_hoist_if_then_else = {
    .name = "tir.HoistIfThenElse",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "hoist loop-invariant if conditions out of loops, then Simplify and RemoveNoOp (config "
            "tir.HoistIfThenElse: support_block_scope_hosting)",
    .prim_func = hoist_if_then_else_pass,
    .cacheable = true,
};
