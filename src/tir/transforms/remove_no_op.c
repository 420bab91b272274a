/* Passage — tir.RemoveNoOp (TVM's src/tir/transforms/remove_no_op.cc, config
 * `tir.RemoveNoOp`), the part that needs no dataflow analysis: Evaluate of
 * an expression without side effects, loops of zero extent or with an empty
 * body, lets/attrs/allocations/buffer declarations around nothing, ifs with
 * two empty branches (an empty then-branch flips the condition), ifs on a
 * constant, a store of a buffer element to itself, and SeqStmts of what is
 * left (flattened, one statement unwrapped), lets whose var the body does
 * not use. What an emptied statement evaluated with side effects stays as
 * Evaluate. Stores that do nothing are found first, in their scope, by
 * dead_store.c (with use_dataflow_analysis=true also the stores overwritten
 * before any read and the stores of values already there);
 * max_simplification_steps bounds the rewrites made here. */
#include "tir/transforms/tir_transforms.h"

typedef struct rno {
  psg_ctx *ctx;
  int64_t steps_left; /* < 0: unlimited */
} rno;

/* TVM's is_no_op: Evaluate of an integer constant. */
static bool is_no_op(const psg_tir_node *s) {
  return s->kind == PSG_TIR_EVALUATE && s->kids[0]->kind == PSG_TIR_INT_IMM;
}

/* One rewrite of the budget: false when none is left. */
static bool take(rno *r) {
  if (r->steps_left == 0) return false;
  if (r->steps_left > 0) r->steps_left--;
  return true;
}

static psg_status make_no_op(rno *r, const psg_tir_node *at, psg_tir_node **out) {
  psg_tir_expr *zero = NULL;
  psg_span sp;
  psg_tir_span(at, &sp);
  psg_status st = psg_tir_int_imm_create(r->ctx, psg_tir_dtype_int32(), 0, &sp, &zero);
  if (!st) st = psg_tir_evaluate_create(r->ctx, zero, &sp, out);
  psg_tir_release(zero);
  return st;
}

/* TVM's MakeEvaluate: the values with side effects, each as an Evaluate (a
 * SeqStmt of them), or the no-op when there is none. */
static psg_status make_evaluate(rno *r, const psg_tir_node *at, psg_tir_node *const *values, size_t n,
                                psg_tir_node **out) {
  psg_tir_node *keep[8];
  size_t k = 0;
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < n && k < 8; i++) {
    bool effect;
    if ((st = psgi_tir_has_side_effect(r->ctx, values[i], &effect))) break;
    if (effect) st = psg_tir_evaluate_create(r->ctx, values[i], NULL, &keep[k++]);
  }
  if (!st) {
    if (k == 0)
      st = make_no_op(r, at, out);
    else if (k == 1)
      psg_tir_retain(*out = keep[0]);
    else
      st = psg_tir_seq_stmt_create(r->ctx, keep, k, NULL, out);
  }
  for (size_t i = 0; i < k; i++) psg_tir_release(keep[i]);
  return st;
}

static int find_var(psg_tir_visitor *v, const psg_tir_node *n) {
  if (n != v->user) return PSG_VISIT_CONTINUE;
  v->user = NULL;
  return PSG_VISIT_ABORT;
}

/* Whether s mentions var (on no memory: yes, which keeps the let). */
static bool uses_var(psg_ctx *ctx, const psg_tir_node *s, const psg_tir_node *var) {
  psg_tir_visitor v = {find_var, NULL, (void *)var};
  return psg_tir_visit(ctx, &v, s) != PSG_OK || v.user == NULL;
}

/* A LetStmt whose body does not use its var: the body, after the value's
 * side effects. */
static psg_status drop_unused_let(rno *r, psg_tir_node *post, psg_tir_node **out) {
  psg_tir_node *body = post->kids[2];
  bool effect = false;
  psg_status st = psgi_tir_has_side_effect(r->ctx, post->kids[1], &effect);
  if (st) return st;
  if (!effect) {
    psg_tir_retain(*out = body);
    return PSG_OK;
  }
  psg_tir_node *seq[2] = {NULL, body};
  if ((st = psg_tir_evaluate_create(r->ctx, post->kids[1], NULL, &seq[0]))) return st;
  st = psg_tir_seq_stmt_create(r->ctx, seq, 2, NULL, out);
  psg_tir_release(seq[0]);
  return st;
}

static bool is_const(const psg_tir_node *e, int64_t *v) {
  if (e->kind != PSG_TIR_INT_IMM) return false;
  *v = e->u.int_value;
  return true;
}

/* A store of A[i...] = A[i...] (same buffer, equal indices, no predicates). */
static bool stores_itself(const psg_tir_node *s) {
  const psg_tir_node *v = s->kids[1];
  if (v->kind != PSG_TIR_BUFFER_LOAD || v->kids[0] != s->kids[0] || (s->flags & PSGI_TIR_HAS_PRED) ||
      (v->flags & PSGI_TIR_HAS_PRED))
    return false;
  size_t n = psgi_tir_num_indices(s);
  if (psgi_tir_num_indices(v) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (!psg_tir_structural_equal(psgi_tir_indices(s)[i], psgi_tir_indices(v)[i])) return false;
  return true;
}

/* SeqStmt: no-ops dropped, nested SeqStmts flattened, one left unwrapped. */
static psg_status rewrite_seq(rno *r, psg_tir_node *post, psg_tir_node **out) {
  size_t n = post->nkids, k = 0, total = 0;
  bool change = false;
  for (size_t i = 0; i < n; i++) {
    const psg_tir_node *c = post->kids[i];
    if (is_no_op(c)) change = true;
    else if (c->kind == PSG_TIR_SEQ_STMT) change = true, total += c->nkids;
    else total++;
  }
  if ((!change && n > 1) || !take(r)) {
    *out = post;
    return PSG_OK;
  }
  psg_tir_node **kids = psgi_alloc(r->ctx, (total ? total : 1) * sizeof *kids);
  if (!kids) return psgi_nomem(r->ctx);
  for (size_t i = 0; i < n; i++) {
    psg_tir_node *c = post->kids[i];
    if (c->kind == PSG_TIR_SEQ_STMT) {
      for (size_t j = 0; j < c->nkids; j++)
        if (!is_no_op(c->kids[j])) kids[k++] = c->kids[j];
    } else if (!is_no_op(c)) {
      kids[k++] = c;
    }
  }
  psg_status st = PSG_OK;
  if (k == 0)
    st = make_no_op(r, post, out);
  else if (k == 1)
    psg_tir_retain(*out = kids[0]);
  else {
    psg_span sp;
    psg_tir_span(post, &sp);
    st = psg_tir_seq_stmt_create(r->ctx, kids, k, &sp, out);
  }
  psgi_free(r->ctx, kids);
  psg_tir_release(post);
  return st;
}

static psg_status rewrite_if(rno *r, psg_tir_node *post, psg_tir_node **out) {
  psg_tir_node *cond = post->kids[0], *then_s = post->kids[1], *else_s = post->nkids > 2 ? post->kids[2] : NULL;
  int64_t c;
  psg_status st = PSG_OK;
  *out = post;
  if (is_const(cond, &c) && take(r)) { /* a constant condition picks its branch */
    psg_tir_node *b = c ? then_s : else_s;
    if (b)
      psg_tir_retain(*out = b);
    else
      st = make_no_op(r, post, out);
  } else if (is_no_op(then_s) && (!else_s || is_no_op(else_s)) && take(r)) {
    st = make_evaluate(r, post, &cond, 1, out);
  } else if (else_s && is_no_op(else_s) && take(r)) { /* drop the empty else */
    st = psg_tir_if_then_else_create(r->ctx, cond, then_s, NULL, NULL, out);
  } else if (else_s && is_no_op(then_s) && take(r)) { /* if c: pass else: s  ->  if not c: s */
    psg_tir_node *neg = NULL;
    st = psg_tir_not_create(r->ctx, cond, NULL, &neg);
    if (!st) st = psg_tir_if_then_else_create(r->ctx, neg, else_s, NULL, NULL, out);
    psg_tir_release(neg);
  } else {
    return PSG_OK;
  }
  psg_tir_release(post);
  if (st) *out = NULL;
  return st;
}

static psg_status visit(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  rno *r = m->user;
  psg_tir_node *post = NULL;
  psg_status st = psg_tir_mutator_default(m, n, &post);
  if (st) return st;
  *out = post;
  int64_t c;
  psg_tir_node *body;
  switch (post->kind) {
    case PSG_TIR_SEQ_STMT: return rewrite_seq(r, post, out);
    case PSG_TIR_IF_THEN_ELSE: return rewrite_if(r, post, out);
    case PSG_TIR_EVALUATE:
      if (is_no_op(post) || !take(r)) return PSG_OK;
      st = make_evaluate(r, post, post->kids, 1, out);
      break;
    case PSG_TIR_FOR: /* var, min, extent, body */
      if (!(is_const(post->kids[2], &c) && c <= 0) && !is_no_op(post->kids[3])) return PSG_OK;
      if (!take(r)) return PSG_OK;
      if (is_const(post->kids[2], &c) && c <= 0)
        st = make_no_op(r, post, out);
      else
        st = make_evaluate(r, post, post->kids + 1, 2, out);
      break;
    case PSG_TIR_LET_STMT: /* var, value, body */
      if (!is_no_op(post->kids[2]) && !uses_var(r->ctx, post->kids[2], post->kids[0])) {
        if (!take(r)) return PSG_OK;
        st = drop_unused_let(r, post, out);
        break;
      }
      /* fall through */
    case PSG_TIR_ATTR_STMT: /* value, body */
      body = post->kids[post->kind == PSG_TIR_LET_STMT ? 2 : 1];
      if (!is_no_op(body) || !take(r)) return PSG_OK;
      st = make_evaluate(r, post, post->kids + (post->kind == PSG_TIR_LET_STMT ? 1 : 0), 1, out);
      break;
    case PSG_TIR_ALLOCATE: /* buffer_var, condition, body, extents */
      if (!is_no_op(post->kids[2]) || !take(r)) return PSG_OK;
      st = make_evaluate(r, post, post->kids + 3, post->nkids - 3, out);
      break;
    case PSG_TIR_DECL_BUFFER: /* buffer, body */
      if (!is_no_op(post->kids[1]) || !take(r)) return PSG_OK;
      psg_tir_retain(*out = post->kids[1]);
      break;
    case PSG_TIR_BUFFER_STORE:
      if (!stores_itself(post) || !take(r)) return PSG_OK;
      st = make_no_op(r, post, out);
      break;
    default: return PSG_OK;
  }
  psg_tir_release(post);
  if (st) *out = NULL;
  return st;
}

/* The rewrites are of statements only: an expression or a buffer (which hold
 * none) is kept whole, not walked node by node. */
static psg_status keep_non_stmt(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  (void)m;
  if (!(n->kind >= PSG_TIR_FIRST_STMT && n->kind <= PSG_TIR_LAST_STMT) && n->kind != PSG_TIR_PRIM_FUNC)
    psg_tir_retain(*replacement = (psg_tir_node *)n);
  return PSG_OK;
}

/* f over another body (a new reference). */
static psg_status with_body(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_stmt *body,
                            psg_tir_prim_func **out) {
  psg_tir_node *old = psg_tir_get_body(f);
  psg_tir_node **kids = psgi_alloc(ctx, f->nkids * sizeof *kids);
  if (!kids) return psgi_nomem(ctx);
  for (uint32_t i = 0; i < f->nkids; i++) kids[i] = f->kids[i] == old ? body : f->kids[i];
  psg_status st = psgi_tir_rebuild(f, kids, out);
  psgi_free(ctx, kids);
  return st;
}

psg_status psgi_tir_remove_no_op(psg_ctx *ctx, const psg_tir_prim_func *f, int64_t max_steps, bool dataflow,
                                 psg_tir_prim_func **out) {
  psg_tir_stmt *body = NULL;
  psg_tir_prim_func *g = NULL;
  psg_status st = psgi_tir_drop_dead_stores(ctx, psg_tir_get_body(f), dataflow, &body);
  if (st) return st;
  if (body == psg_tir_get_body(f))
    psg_tir_retain(g = (psg_tir_prim_func *)f);
  else
    st = with_body(ctx, f, body, &g);
  psg_tir_release(body);
  if (st) return st;
  rno r = {ctx, max_steps > 0 ? max_steps : -1};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &r;
  m.pre = keep_non_stmt;
  static const int kinds[] = {PSG_TIR_SEQ_STMT,  PSG_TIR_IF_THEN_ELSE, PSG_TIR_EVALUATE,     PSG_TIR_FOR,
                              PSG_TIR_LET_STMT,  PSG_TIR_ATTR_STMT,    PSG_TIR_ALLOCATE,     PSG_TIR_DECL_BUFFER,
                              PSG_TIR_BUFFER_STORE};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) m.visit[kinds[i]] = visit;
  st = psg_tir_mutate(&m, g, out);
  psg_tir_mutator_fini(&m);
  psg_tir_release(g);
  return st;
}

static psg_status remove_no_op(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                               psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  *out = NULL;
  psg_ctx *ctx = psg_pass_context_get_ctx(pc);
  psg_attr *cfg = psg_pass_context_get_config(pc, "tir.RemoveNoOp");
  psg_attrs *d = cfg ? psg_attr_get_dict(cfg) : NULL;
  psg_attr *dataflow = psg_attrs_get(d, "use_dataflow_analysis");
  psg_attr *steps = psg_attrs_get(d, "max_simplification_steps");
  return psgi_tir_remove_no_op(ctx, f, steps ? psg_attr_get_int(steps) : 0,
                               dataflow && psg_attr_get_bool(dataflow), out);
}

const psg_pass_decl psgi_pass_tir_remove_no_op = {
    .name = "tir.RemoveNoOp",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "remove statements that do nothing (config tir.RemoveNoOp; use_dataflow_analysis finds dead stores)",
    .prim_func = remove_no_op,
    .cacheable = true,
};
