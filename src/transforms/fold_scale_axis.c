/* Passage — FoldScaleAxis (tvm-behavior §6.7, §7.1): per-channel constant
 * scales folded into the weights of the conv2d or dense next to them.
 *   BackwardFoldScaleAxis (F, opt 3, required InferType):
 *     multiply(conv2d(x, w), s)            -> conv2d(x, multiply(w, s'))
 *     multiply(add(conv2d(x, w), b), s)    -> add(conv2d(x, multiply(w, s')), multiply(b, s))
 *     (and nn.bias_add, and nn.dense along its output units)
 *   ForwardFoldScaleAxis (F, opt 3, required InferType):
 *     conv2d(multiply(x, s), w)            -> conv2d(x, multiply(w, s''))   (groups 1)
 *     conv2d(relu(multiply(x, s)), w)      -> conv2d(relu(x), multiply(w, s''))   (s > 0)
 *   FoldScaleAxis (Sequential, opt 0): [Backward, Forward, FoldConstant], so
 *     multiply(w, s') becomes one constant weight when w is a constant.
 * s must be a constant that varies along the channel axis only; the folded
 * node must have no other user (it would change for them too). Conv's zero
 * padding commutes with a scale, so padding needs no care. */
#include "ops/kernel_util.h"
#include "ops/op_impl.h"
#include "transforms/builder.h"
#include "transforms/transforms.h"

typedef struct folder {
  psg_ctx *ctx;
  psgi_map users; /* original node -> number of parents referencing it */
  bool (*may_fold)(const psg_expr *e); /* a node where a first fold could anchor */
  bool candidate;                      /* some node passed may_fold */
} folder;

/* users maps every node reached to 1 + the number of its parents' references
 * to it (the root: 1), so one map is both the walk's seen set and the count. */
static size_t users_of(const folder *f, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&f->users, e);
  return en ? (size_t)(uintptr_t)en->value - 1 : 0;
}

/* The ops the folds match, looked up once (op table indices are fixed for
 * the process; -1, absent, matches no call): an index compare per node
 * instead of a strcmp. */
enum { OP_CONV2D, OP_DENSE, OP_MULTIPLY, OP_ADD, OP_BIAS_ADD, OP_RELU, NUM_OPS };
static size_t op_index(int which) {
  static const char *const names[NUM_OPS] = {"nn.conv2d", "nn.dense", "multiply", "add", "nn.bias_add", "nn.relu"};
  static ptrdiff_t cache[NUM_OPS] = {-2, -2, -2, -2, -2, -2};
  ptrdiff_t i = __atomic_load_n(&cache[which], __ATOMIC_RELAXED);
  if (i == -2) {
    i = psgi_op_lookup(names[which], strlen(names[which]));
    __atomic_store_n(&cache[which], i, __ATOMIC_RELAXED);
  }
  return (size_t)i;
}

static bool is_call_of(const psg_expr *e, int op) {
  return e && e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP && e->kids[0]->u.op == op_index(op);
}

/* Layouts ------------------------------------------------------------------------- */

/* The axis of `c` in layout string `layout` ("NCHW": C -> 1), or -1. */
static int axis_in(const char *layout, char c) {
  const char *p = layout ? strchr(layout, c) : NULL;
  return p && strlen(layout) == 4 ? (int)(p - layout) : -1;
}

/* Where a layer's output channels are: in its output (rank `out_rank`, from
 * the typed original) and in its weight (rank `w_rank`). False for layers and
 * layouts we do not fold. Reads only attrs, so `layer` may be a rewrite. */
static bool channel_axes(const psg_expr *layer, int out_rank, int *out_axis, int *w_axis, int *w_rank) {
  const psg_attrs *a = layer->u.attrs;
  if (is_call_of(layer, OP_DENSE)) {
    *out_axis = out_rank - 1;
    *w_axis = 0;
    *w_rank = 2;
    return true;
  }
  if (!is_call_of(layer, OP_CONV2D) || out_rank != 4) return false;
  const char *out_layout = psgi_attr_str(a, "out_layout", "");
  if (!out_layout[0]) out_layout = psgi_attr_str(a, "data_layout", "NCHW");
  *out_axis = axis_in(out_layout, 'C');
  *w_axis = axis_in(psgi_attr_str(a, "kernel_layout", "OIHW"), 'O');
  *w_rank = 4;
  return *out_axis >= 0 && *w_axis >= 0;
}

/* Scales ----------------------------------------------------------------------------- */

/* True when `s` is a constant of `dtype` that broadcasts against a rank-`rank`
 * tensor varying only along `axis` (extent `channels` or 1 there). */
static bool is_channel_scale(const psg_expr *s, int dtype, int rank, int axis, int64_t channels) {
  if (!s || s->kind != PSG_EXPR_CONSTANT) return false;
  const psg_tensor *t = s->u.constant;
  if (t->dtype != dtype || t->ndim > rank) return false;
  for (int j = 0; j < t->ndim; j++) {
    int i = rank - t->ndim + j;
    int64_t d = t->shape[j];
    if (d != 1 && !(i == axis && d == channels)) return false;
  }
  return true;
}

/* The scale's values laid out along `axis` of a rank-`rank` tensor (a
 * constant sharing nothing with s: same bytes, new shape). */
static psg_expr *scale_along(psgi_built *b, const psg_expr *s, int rank, int axis) {
  const psg_tensor *t = s->u.constant;
  int64_t shape[PSG_MAX_RANK];
  int64_t n = psg_tensor_numel(t);
  for (int i = 0; i < rank; i++) shape[i] = i == axis ? n : 1;
  psg_tensor *r = NULL;
  psg_status st = psg_tensor_create(b->ctx, t->dtype, shape, rank, t->data, &r);
  if (st) {
    if (!b->status) b->status = st;
    return NULL;
  }
  psg_expr *c = psgi_build_constant(b, r);
  psg_tensor_release(r);
  return c;
}

/* `call` (built here, owned by b) with its final type when its arguments
 * have theirs (the weights' multiply is built typed), like the builder's
 * calls: the InferType after the pass then skips what the fold made. */
static psg_expr *typed(psgi_built *b, psg_expr *call) {
  psg_status st = psg_expr_infer_type(call, NULL);
  if (st && !b->status) b->status = st;
  return st ? NULL : call;
}

/* `call` (built here, owned by b) rewrites `like`, a call of the same op
 * with the same attrs: when like's type is final and every argument of call
 * has the final type like's has there, call's type is like's (what the
 * relation would compute, without running it: conv2d's is the costly one);
 * otherwise typed(). */
static psg_expr *typed_like(psgi_built *b, psg_expr *call, const psg_expr *like) {
  const psg_type *t = psgi_expr_final_type(like);
  bool same = t && call->nkids == like->nkids;
  for (uint32_t i = 1; same && i < call->nkids; i++) {
    const psg_type *a = psgi_expr_final_type(call->kids[i]);
    same = a && a == psgi_expr_final_type(like->kids[i]);
  }
  if (!same) return typed(b, call);
  psgi_expr_set_final_type(call, t);
  return call;
}

/* layer(x, w) with w replaced by multiply(w, scale); the same attrs. */
static psg_expr *rescaled_layer(psgi_built *b, const psg_expr *layer, psg_expr *scale) {
  psg_expr *w = psgi_build_call(b, "multiply", (psg_expr *[]){layer->kids[2], scale}, 2, NULL);
  if (!w) return NULL;
  psg_expr *call = NULL;
  psg_status st = psg_call_create(b->ctx, layer->kids[0], (psg_expr *[]){layer->kids[1], w}, 2, layer->u.attrs,
                                  &layer->span, &call);
  if (st) {
    if (!b->status) b->status = st;
    return NULL;
  }
  /* Owned by the scope like every other built node. */
  if (!PSGI_VEC_PUSH(b->ctx, &b->exprs, call)) {
    psg_expr_release(call);
    if (!b->status) b->status = psgi_nomem(b->ctx);
    return NULL;
  }
  return typed_like(b, call, layer);
}

/* Backward ------------------------------------------------------------------------------ */

/* multiply(y, s) or multiply(s, y) where y (rewritten) is a foldable layer or
 * a single-use add/bias_add of one. `orig` is the multiply before rewriting
 * (for user counts and types), `now` after. */
static psg_expr *fold_backward(psgi_built *b, const folder *f, const psg_expr *orig, const psg_expr *now) {
  for (int side = 0; side < 2; side++) {
    const psg_expr *y0 = orig->kids[1 + side], *y = now->kids[1 + side], *s = now->kids[2 - side];
    const psg_type *yt = psgi_tensor_type_of(y0);
    if (!yt || users_of(f, y0) != 1) continue;
    const psg_expr *layer = y, *layer0 = y0, *bias = NULL;
    bool bias_add = is_call_of(y, OP_BIAS_ADD);
    if (is_call_of(y, OP_ADD) || bias_add) {
      if (y0->kind != PSG_EXPR_CALL || y0->nkids != 3) continue;
      layer0 = y0->kids[1];
      layer = y->kids[1];
      bias = y->kids[2];
      if (users_of(f, layer0) != 1) continue;
    }
    /* A layer folded a moment ago (a rewrite of layer0) folds again. */
    int out_axis, w_axis, w_rank;
    if (!channel_axes(layer, yt->n, &out_axis, &w_axis, &w_rank)) continue;
    if (!is_channel_scale(s, yt->dtype, yt->n, out_axis, yt->dims[out_axis])) continue;
    psg_expr *scaled = rescaled_layer(b, layer, scale_along(b, s, w_rank, w_axis));
    if (!bias) return scaled;
    /* (layer + bias) * s = layer*s + bias*s; bias_add's bias is 1-D. */
    psg_expr *bias_scale = bias_add ? scale_along(b, s, 1, 0) : (psg_expr *)s;
    psg_expr *new_bias = psgi_build_call(b, "multiply", (psg_expr *[]){(psg_expr *)bias, bias_scale}, 2, NULL);
    return psgi_build_call(b, bias_add ? "nn.bias_add" : "add", (psg_expr *[]){scaled, new_bias}, 2,
                           bias_add ? y->u.attrs : NULL);
  }
  return NULL;
}

/* Forward ------------------------------------------------------------------------------- */

/* True when every element of the constant `s` is greater than zero (NaN is
 * not): relu(x * s) = relu(x) * s then holds channel by channel. */
static bool all_positive(const psg_expr *s) {
  const psg_tensor *t = s->u.constant;
  int64_t n = psg_tensor_numel(t);
  for (int64_t i = 0; i < n; i++)
    if (!(psgi_load_f(t->dtype, t->data, (size_t)i) > 0)) return false;
  return true;
}

/* The rewritten `m` (original `m0`) when it is a single-use call of `op` with
 * the type `xt` (so a fold cannot change what another user sees). */
static bool single_use_call(const folder *f, const psg_expr *m, const psg_expr *m0, int op,
                            const psg_type *xt) {
  return is_call_of(m, op) && m0->kind == PSG_EXPR_CALL && m0->nkids == m->nkids && users_of(f, m0) == 1 &&
         psgi_tensor_type_of(m0) == xt;
}

/* conv2d(multiply(x, s), w) with s along the input channels, groups 1. A
 * chain of such multiplies, each used only by the next, folds in one run
 * (so a second run finds nothing left to fold). The chain may pass nn.relu
 * when every scale below the relu is positive (TVM's forward relu rule:
 * relu(x * s) = relu(x) * s for s > 0), so conv2d(relu(multiply(x, s)), w)
 * becomes conv2d(relu(x), multiply(w, s')); zero, negative or non-constant
 * scales stop at the relu (_relu_fail). */
static psg_expr *fold_forward(psgi_built *b, const folder *f, const psg_expr *orig, const psg_expr *now) {
  if (!is_call_of(orig, OP_CONV2D) || psgi_attr_int(orig->u.attrs, "groups", 1) != 1) return NULL;
  const psg_expr *m0 = orig->kids[1], *m = now->kids[1];
  const psg_type *xt = psgi_tensor_type_of(m0);
  if (!xt || xt->n != 4) return NULL;
  int in_axis = axis_in(psgi_attr_str(orig->u.attrs, "data_layout", "NCHW"), 'C');
  int w_axis = axis_in(psgi_attr_str(orig->u.attrs, "kernel_layout", "OIHW"), 'I');
  if (in_axis < 0 || w_axis < 0) return NULL;
  psg_expr *w = now->kids[2];
  bool folded = false;
  int relus = 0; /* relus passed by committed folds, re-applied to what is left */
  /* m0 is the original of m (same position in the unrewritten graph), for
   * user counts and types. */
  for (;;) {
    const psg_expr *c0 = m0, *c = m;
    int pending = 0; /* relus passed since the last fold */
    while (single_use_call(f, c, c0, OP_RELU, xt)) {
      c0 = c0->kids[1];
      c = c->kids[1];
      pending++;
    }
    if (!single_use_call(f, c, c0, OP_MULTIPLY, xt)) break;
    int side = 0;
    while (side < 2 && !(is_channel_scale(c->kids[2 - side], xt->dtype, 4, in_axis, xt->dims[in_axis]) &&
                         (relus + pending == 0 || all_positive(c->kids[2 - side]))))
      side++;
    if (side == 2) break;
    w = psgi_build_call(b, "multiply", (psg_expr *[]){w, scale_along(b, c->kids[2 - side], 4, w_axis)}, 2, NULL);
    if (!w) return NULL;
    m0 = c0->kids[1 + side];
    m = c->kids[1 + side];
    relus += pending;
    folded = true;
  }
  if (!folded) return NULL;
  psg_expr *in = (psg_expr *)m;
  for (int i = 0; i < relus && in; i++) in = psgi_build_call(b, "nn.relu", (psg_expr *[]){in}, 1, NULL);
  if (!in) return NULL;
  psg_expr *call = NULL;
  psg_status st = psg_call_create(b->ctx, now->kids[0], (psg_expr *[]){in, w}, 2, now->u.attrs, &now->span, &call);
  if (st || !PSGI_VEC_PUSH(b->ctx, &b->exprs, call)) {
    psg_expr_release(call);
    if (!b->status) b->status = st ? st : psgi_nomem(b->ctx);
    return NULL;
  }
  return typed_like(b, call, now);
}

/* Pre-scan: a fold rewrites only its anchor, so until the first fold every
 * rewritten node has its original's op; the first fold therefore matches
 * these shapes in the original graph, and a function without one is
 * returned as it is (no rewrite walk). Conservative: a match may still not
 * fold. */
static bool is_layer(const psg_expr *e) { return is_call_of(e, OP_CONV2D) || is_call_of(e, OP_DENSE); }

static bool may_fold_backward(const psg_expr *e) {
  if (!is_call_of(e, OP_MULTIPLY) || e->nkids != 3) return false;
  for (int side = 1; side < 3; side++) {
    const psg_expr *y = e->kids[side];
    if (is_layer(y)) return true;
    if ((is_call_of(y, OP_ADD) || is_call_of(y, OP_BIAS_ADD)) && y->nkids == 3 && is_layer(y->kids[1]))
      return true;
  }
  return false;
}

static bool may_fold_forward(const psg_expr *e) {
  if (!is_call_of(e, OP_CONV2D) || e->nkids < 2) return false;
  /* Through a few relus (a longer chain counts as a match: bounded work). */
  const psg_expr *x = e->kids[1];
  for (int i = 0; i < 8 && is_call_of(x, OP_RELU) && x->nkids == 2; i++) x = x->kids[1];
  /* The scale is a constant (is_channel_scale). */
  bool scaled = is_call_of(x, OP_RELU) || (is_call_of(x, OP_MULTIPLY) && x->nkids == 3 &&
                                           (x->kids[1]->kind == PSG_EXPR_CONSTANT ||
                                            x->kids[2]->kind == PSG_EXPR_CONSTANT));
  return scaled && psgi_attr_int(e->u.attrs, "groups", 1) == 1;
}

/* Driver ---------------------------------------------------------------------------------- */

typedef psg_expr *(*fold_fn)(psgi_built *, const folder *, const psg_expr *, const psg_expr *);

typedef struct fold_run {
  folder f;
  fold_fn fold;
  int op; /* the call that anchors a fold */
} fold_run;

static psg_status fold_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  fold_run *r = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  if (st || !is_call_of(e, r->op)) return st;
  psgi_built b;
  psgi_built_init(&b, m->ctx, &e->span);
  b.final_types = true; /* the matching reads the types of the originals only */
  psg_expr *folded = r->fold(&b, &r->f, e, *out);
  st = b.status;
  if (!st && folded) {
    psg_expr_release(*out);
    *out = psgi_built_keep(&b, folded);
  }
  psgi_built_fini(&b);
  return st;
}

/* Whether any node passes f->may_fold: a walk with a seen set (one map
 * operation per node, not per edge) that stops at the first, so a function
 * with none costs no user counts. */
static psg_status find_candidate(folder *f, const psg_expr *root) {
  psgi_map seen;
  psgi_map_init(&seen, f->ctx);
  PSGI_VEC(const psg_expr *) stack = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(f->ctx, &stack, root)) st = psgi_nomem(f->ctx);
  while (!st && stack.len && !f->candidate) {
    const psg_expr *e = stack.data[--stack.len];
    f->candidate = f->may_fold(e);
    for (uint32_t i = 0; i < e->nkids && !st; i++) {
      const psg_expr *k = e->kids[i];
      if (k->kind != PSG_EXPR_CALL && k->kind != PSG_EXPR_TUPLE && k->kind != PSG_EXPR_TUPLE_GET_ITEM &&
          k->kind != PSG_EXPR_LET && k->kind != PSG_EXPR_IF && k->kind != PSG_EXPR_FUNCTION)
        continue; /* leaves: no fold anchors at one */
      if (psgi_is_composite_fn(k)) continue; /* kept as it is */
      bool is_new = false;
      if (!psgi_map_put_ptr(&seen, k, &is_new) || (is_new && !PSGI_VEC_PUSH(f->ctx, &stack, k)))
        st = psgi_nomem(f->ctx);
    }
  }
  PSGI_VEC_FREE(f->ctx, &stack);
  psgi_map_fini(&seen);
  return st;
}

/* Counts users over the whole graph (iterative, each node once). */
static psg_status count_users(folder *f, const psg_expr *root) {
  PSGI_VEC(const psg_expr *) stack = {0};
  psgi_map_entry *en = psgi_map_put_ptr(&f->users, root, NULL);
  if (!en || !PSGI_VEC_PUSH(f->ctx, &stack, root)) goto nomem;
  en->value = (void *)(uintptr_t)1;
  while (stack.len) {
    const psg_expr *e = stack.data[--stack.len];
    for (uint32_t i = 0; i < e->nkids; i++) {
      if (!(en = psgi_map_put_ptr(&f->users, e->kids[i], NULL))) goto nomem;
      bool first = en->value == NULL;
      en->value = (void *)((uintptr_t)en->value + (first ? 2 : 1));
      if (first && !psgi_is_composite_fn(e->kids[i]) && !PSGI_VEC_PUSH(f->ctx, &stack, e->kids[i])) goto nomem;
    }
  }
  PSGI_VEC_FREE(f->ctx, &stack);
  return PSG_OK;
nomem:
  PSGI_VEC_FREE(f->ctx, &stack);
  return psgi_nomem(f->ctx);
}

static psg_status run_fold(psg_expr *func, psg_module *mod, fold_fn fold, int op,
                           bool (*may_fold)(const psg_expr *), psg_expr **out) {
  *out = NULL;
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  psg_status st = psgi_check_typed(func, "FoldScaleAxis");
  if (st) return st;
  fold_run r = {{func->ctx, {0}, may_fold, false}, fold, op};
  psgi_map_init(&r.f.users, func->ctx);
  st = find_candidate(&r.f, func);
  if (!st && r.f.candidate) st = count_users(&r.f, func);
  if (!st && !r.f.candidate) {
    psg_expr_retain(func);
    *out = func;
  } else if (!st) {
    psg_mutator m;
    psg_mutator_init(&m, func->ctx);
    m.user = &r;
    m.visit[PSG_EXPR_CALL] = fold_call;
    st = psgi_mutator_keep_composite(&m);
    if (!st) st = psg_mutate(&m, func, out);
    psg_mutator_fini(&m);
  }
  psgi_map_fini(&r.f.users);
  return st;
}

static psg_status backward(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  (void)user;
  return run_fold(func, mod, fold_backward, OP_MULTIPLY, may_fold_backward, out);
}

static psg_status forward(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  (void)user;
  return run_fold(func, mod, fold_forward, OP_CONV2D, may_fold_forward, out);
}

const psg_pass_decl psgi_pass_backward_fold_scale_axis = {
    .name = "BackwardFoldScaleAxis",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "fold a per-channel multiply after conv2d/dense into its weights",
    .needs = PSG_PROP_TYPED,
    .function = backward,
};

const psg_pass_decl psgi_pass_forward_fold_scale_axis = {
    .name = "ForwardFoldScaleAxis",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "fold a per-channel multiply before conv2d into its weights",
    .needs = PSG_PROP_TYPED,
    .function = forward,
};

/* TVM's FoldScaleAxis: a level-0 Sequential, so at -O2 only its FoldConstant runs. */
static const char *const children[] = {"BackwardFoldScaleAxis", "ForwardFoldScaleAxis", "FoldConstant", NULL};
const psg_pass_decl psgi_pass_fold_scale_axis = {
    .name = "FoldScaleAxis",
    .kind = PSG_PASS_SEQUENTIAL,
    .opt_level = 0,
    .help = "BackwardFoldScaleAxis, ForwardFoldScaleAxis, then FoldConstant",
    .children = children,
};
