/* Passage — FoldScaleAxis's scan for work (docs/design.md, departure
 * "FoldScaleAxis scans for a fold before preparing one").
 *
 * A direction's prepare walk numbers every node in a table and computes a
 * message per node, and it rewrites only when some multiply by a constant
 * ends up with a message along some axes (the `any` of the prepare walks).
 * Most functions, and every function on the last round of a fixpoint, have
 * none. This scan decides "surely none" with one walk that keeps a seen
 * entry only for the nodes held more than once, and a search from a few
 * seeds along the only edges a message can travel:
 *
 *  - forward, a message starts at the data of a conv2d/conv3d/dense and
 *    goes down through relu/leaky_relu (to their argument) and add/subtract
 *    (to the side that keeps the full shape, by the same broadcast test the
 *    prepare walk makes); the seeds are the convs and denses, and a
 *    multiply with a constant operand reached that way is a candidate.
 *    The prepare walk intersects the messages of a node's users, so the
 *    message it sees is a subset of the axes of any one path; at an
 *    add/subtract every non-empty subset of the path's axes (at most three)
 *    is tried, so whichever subset the walk ends up with, its side is
 *    searched too.
 *  - backward, a message starts at the result of a conv2d/conv3d/dense and
 *    goes up through relu/leaky_relu, nn.bias_add and add/subtract; the
 *    seeds are the multiplies with a constant operand, and a search down
 *    the other operand through those ops that reaches a conv or dense that
 *    would give a message is a candidate. The prepare walk's further
 *    conditions (a single user, bias_add's axis, add's broadcast) are not
 *    checked: the scan only over-approximates.
 *
 * Every condition the scan drops or weakens makes it answer "maybe" more
 * often, never less, so "none" implies the prepare walk finds nothing and
 * the function is returned as it is, as it was before. The searches share a
 * budget of a few steps per node walked; a graph that exceeds it (the same
 * add chain searched from many seeds) is answered "maybe", so the scan is
 * linear in the function's size whatever its shape. */
#include "transforms/fold_scale_axis.h"

#include "ops/op_impl.h"
#include "transforms/call_scan.h"
#include "transforms/transforms.h"

bool psgi_fsa_exhaustive = false;

/* Search steps allowed per node walked, plus a constant for small graphs. */
enum { STEPS_PER_NODE = 4, STEPS_BASE = 64 };

typedef struct probe {
  const psg_expr *e;
  psgi_fsa_msg m; /* forward: the axes asked of e on this path */
} probe;

typedef PSGI_VEC(const psg_expr *) expr_list;
typedef PSGI_VEC(probe) probe_list;

static bool is_layer(int op) { return op == PSGI_FSA_CONV2D || op == PSGI_FSA_CONV3D || op == PSGI_FSA_DENSE; }

static bool scales_by_constant(const psg_expr *e) {
  return e->nkids == 3 && (psgi_fsa_is_constant(e->kids[1]) || psgi_fsa_is_constant(e->kids[2]));
}

/* The seeds of the function: every conv2d/conv3d/dense (forward) or every
 * multiply with a constant operand (backward) the prepare walk would reach
 * (psgi_scan_calls: Composite functions kept whole, as the walk keeps them). */
typedef struct seeding {
  psg_ctx *ctx;
  bool forward;
  expr_list *seeds;
  psg_status st;
} seeding;

static bool add_seed(void *user, const psg_expr *call) {
  seeding *s = user;
  int op = psgi_fsa_op(call);
  if (op < 0 || !(s->forward ? is_layer(op) : op == PSGI_FSA_MULTIPLY && scales_by_constant(call))) return false;
  if (!PSGI_VEC_PUSH(s->ctx, s->seeds, call)) s->st = psgi_nomem(s->ctx);
  return s->st != PSG_OK;
}

static psg_status collect_seeds(psg_ctx *ctx, const psg_expr *root, bool forward, expr_list *seeds, size_t *walked) {
  seeding s = {ctx, forward, seeds, PSG_OK};
  psg_status st = psgi_scan_calls(root, add_seed, &s, walked);
  return st ? st : s.st;
}

/* Forward: the probes a node on a request's path passes on. Returns true
 * when `p` is a candidate (a multiply by a constant asked along some axes). */
static bool forward_step(psg_ctx *ctx, probe p, probe_list *todo, psg_status *st) {
  const psg_expr *e = p.e;
  switch (psgi_fsa_op(e)) {
  case PSGI_FSA_MULTIPLY: return scales_by_constant(e);
  case PSGI_FSA_RELU:
  case PSGI_FSA_LEAKY_RELU:
    if (e->nkids > 1 && !PSGI_VEC_PUSH(ctx, todo, ((probe){e->kids[1], p.m}))) *st = psgi_nomem(ctx);
    return false;
  case PSGI_FSA_ADD:
  case PSGI_FSA_SUBTRACT: {
    if (e->nkids != 3) return false;
    const psg_type *tl = psgi_tensor_type_of(e->kids[1]), *tr = psgi_tensor_type_of(e->kids[2]);
    /* the non-empty subsets of p.m's axes: {a0}, and with two {a1}, {a0, a1} */
    int nsub = p.m.n == 2 ? 3 : p.m.n;
    for (int s = 0; s < nsub; s++) {
      psgi_fsa_msg m = p.m;
      if (s < 2 && p.m.n == 2) m.n = 1, m.axes[0] = p.m.axes[s];
      const psg_expr *side = psgi_fsa_match_left(NULL, tl, tr, &m, NULL)   ? e->kids[1]
                             : psgi_fsa_match_left(NULL, tr, tl, &m, NULL) ? e->kids[2]
                                                                             : NULL;
      if (side && !PSGI_VEC_PUSH(ctx, todo, ((probe){side, m}))) *st = psgi_nomem(ctx);
    }
    return false;
  }
  default: return false;
  }
}

/* Backward: the probes a node below a multiply passes on. Returns true when
 * `e` is a conv or dense whose result the prepare walk gives a message. */
static bool backward_step(psg_ctx *ctx, const psg_expr *e, probe_list *todo, psg_status *st) {
  uint32_t from = 1, to = 0; /* the children searched */
  switch (psgi_fsa_op(e)) {
  case PSGI_FSA_CONV2D:
  case PSGI_FSA_CONV3D: return psgi_fsa_conv_msg(e, true).defined;
  case PSGI_FSA_DENSE: {
    const psg_type *t = psgi_tensor_type_of(e);
    return t && t->n == 2;
  }
  case PSGI_FSA_RELU:
  case PSGI_FSA_LEAKY_RELU:
  case PSGI_FSA_BIAS_ADD: to = 1; break;
  case PSGI_FSA_ADD:
  case PSGI_FSA_SUBTRACT: to = e->nkids == 3 ? 2 : 0; break;
  default: return false;
  }
  for (uint32_t i = from; i <= to && i < e->nkids; i++)
    if (!PSGI_VEC_PUSH(ctx, todo, ((probe){e->kids[i], {0}}))) *st = psgi_nomem(ctx);
  return false;
}

/* What a conv or dense asks of its data (the prepare walk's prep_call). A
 * model's convs mostly share one attributes object (the parser and the
 * importers share equal attributes), and without groups a conv's request
 * depends only on its op and attributes, so the last one is kept. */
typedef struct request_memo {
  const psg_attrs *attrs; /* NULL: nothing kept */
  int op;
  psgi_fsa_msg m;
} request_memo;

static psgi_fsa_msg layer_request(const psg_expr *s, request_memo *memo) {
  int op = psgi_fsa_op(s);
  if (op == PSGI_FSA_DENSE) {
    const psg_type *tl = s->nkids > 1 ? psgi_tensor_type_of(s->kids[1]) : NULL;
    return tl && tl->n == 2 ? (psgi_fsa_msg){true, false, 1, {1}} : (psgi_fsa_msg){0};
  }
  if (memo->attrs && memo->attrs == s->u.attrs && memo->op == op && s->nkids == 3) return memo->m;
  psgi_fsa_msg m = psgi_fsa_conv_msg(s, false);
  if (s->nkids == 3 && s->u.attrs && psgi_attr_int(s->u.attrs, "groups", 1) == 1) *memo = (request_memo){s->u.attrs, op, m};
  return m;
}

psg_status psgi_fsa_scan(const psg_expr *func, bool forward, bool *maybe) {
  psg_ctx *ctx = func->ctx;
  expr_list seeds = {0};
  probe_list todo = {0};
  size_t walked = 0;
  request_memo memo = {0};
  *maybe = false;
  psg_status st = collect_seeds(ctx, func, forward, &seeds, &walked);
  size_t budget = walked * STEPS_PER_NODE + STEPS_BASE;
  for (size_t i = 0; !st && !*maybe && i < seeds.len; i++) {
    const psg_expr *s = seeds.data[i];
    todo.len = 0;
    if (forward) {
      psgi_fsa_msg m = layer_request(s, &memo);
      if (m.defined && m.n && s->nkids > 1 && !PSGI_VEC_PUSH(ctx, &todo, ((probe){s->kids[1], m})))
        st = psgi_nomem(ctx);
    } else {
      /* the side that is not the constant could carry a message */
      for (uint32_t k = 1; k <= 2; k++)
        if (psgi_fsa_is_constant(s->kids[3 - k]) && !PSGI_VEC_PUSH(ctx, &todo, ((probe){s->kids[k], {0}})))
          st = psgi_nomem(ctx);
    }
    while (!st && !*maybe && todo.len) {
      if (budget-- == 0) {
        *maybe = true; /* too much searching: let the prepare walk decide */
        break;
      }
      probe p = todo.data[--todo.len];
      *maybe = forward ? forward_step(ctx, p, &todo, &st) : backward_step(ctx, p.e, &todo, &st);
    }
  }
  PSGI_VEC_FREE(ctx, &seeds);
  PSGI_VEC_FREE(ctx, &todo);
  if (st) *maybe = true;
  return st;
}
