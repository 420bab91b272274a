/* Passage — FoldScaleAxis (tvm-behavior §6.7, §7.1), TVM's three passes:
 *   ForwardFoldScaleAxis (F, opt 3, required InferType): a per-channel
 *     multiply before conv2d/conv3d/dense moves into the weight, passing relu
 *     and leaky_relu (scale >= 0) and add/subtract of a per-channel term
 *     (that term is divided by the scale): fold_scale_axis_forward.c.
 *   BackwardFoldScaleAxis (F, opt 3, required InferType): a per-channel
 *     multiply after conv2d/conv3d/dense moves into the weight, passing relu,
 *     add/subtract (of two such layers, or of a term that is multiplied by
 *     the scale) and nn.bias_add: fold_scale_axis_backward.c.
 *   FoldScaleAxis (Sequential, opt 0): [Backward, Forward, FoldConstant], so
 *     the scale's reshapes and multiply fold into one constant weight.
 * The scale is left as an expression (squeeze / expand_dims / reshape of
 * it), as TVM leaves it; it need not be a constant unless it crosses a relu.
 * This file: the messages, layouts, broadcasts and scale reshapes both
 * directions share. */
#include "transforms/fold_scale_axis.h"
#include <pthread.h>

#include "ops/kernel_util.h"
#include "ops/op_impl.h"
#include "transforms/transforms.h"

signed char psgi_fsa_of_op[PSGI_FSA_TABLE_OPS];
bool psgi_fsa_of_op_ready;
static pthread_once_t fsa_of_op_once = PTHREAD_ONCE_INIT;

static void build_fsa_of_op(void) {
  static const char *const names[PSGI_FSA_NUM_OPS] = {
      "nn.conv2d", "nn.conv3d",   "nn.dense",    "multiply", "add",       "subtract", "nn.bias_add",
      "nn.relu",   "nn.leaky_relu", "squeeze", "expand_dims", "reshape", "transpose", "repeat"};
  memset(psgi_fsa_of_op, -1, sizeof psgi_fsa_of_op);
  for (int i = 0; i < PSGI_FSA_NUM_OPS; i++) {
    ptrdiff_t op = psgi_op_lookup(names[i], strlen(names[i]));
    if (op >= 0 && op < PSGI_FSA_TABLE_OPS) psgi_fsa_of_op[op] = (signed char)i;
  }
  __atomic_store_n(&psgi_fsa_of_op_ready, true, __ATOMIC_RELEASE);
}

void psgi_fsa_op_table_build(void) { pthread_once(&fsa_of_op_once, build_fsa_of_op); }

psgi_fsa_msg psgi_fsa_intersect(psgi_fsa_msg a, psgi_fsa_msg b) {
  if (!a.defined) return a;
  if (!b.defined) return b;
  psgi_fsa_msg r = {true, a.positive || b.positive, 0, {0}};
  for (int i = 0, j = 0; i < a.n && j < b.n;) {
    if (a.axes[i] < b.axes[j]) i++;
    else if (a.axes[i] > b.axes[j]) j++;
    else r.axes[r.n++] = a.axes[i++], j++;
  }
  return r;
}

/* Layouts ---------------------------------------------------------------------- */

/* The axis of letter c in a layout such as "NCHW8c" (letters are axes,
 * digits a block's factor), or -1. */
static int layout_index(const char *layout, char c) {
  int axis = 0;
  for (const char *p = layout; *p; p++) {
    if (*p >= '0' && *p <= '9') continue;
    if (*p == c) return axis;
    axis++;
  }
  return -1;
}

static int layout_ndim(const char *layout) {
  int n = 0;
  for (const char *p = layout; *p; p++) n += !(*p >= '0' && *p <= '9');
  return n;
}

static bool is_conv(const psg_expr *call) {
  int op = psgi_fsa_op(call);
  return op == PSGI_FSA_CONV2D || op == PSGI_FSA_CONV3D;
}

static const char *kernel_layout(const psg_expr *call) {
  return psgi_attr_str(call->u.attrs, "kernel_layout", psgi_fsa_op(call) == PSGI_FSA_CONV3D ? "OIDHW" : "OIHW");
}

static const char *data_layout(const psg_expr *call) {
  return psgi_attr_str(call->u.attrs, "data_layout", psgi_fsa_op(call) == PSGI_FSA_CONV3D ? "NCDHW" : "NCHW");
}

/* The weight's extent along logical axis `big` (times its block `small`). */
static int64_t weight_extent(const psg_type *w, const char *layout, char big, char small) {
  int i = layout_index(layout, big), j = layout_index(layout, small);
  if (i < 0 || i >= w->n || j >= w->n) return PSG_DIM_UNKNOWN;
  int64_t d = w->dims[i];
  if (j >= 0) d = d == PSG_DIM_UNKNOWN || w->dims[j] == PSG_DIM_UNKNOWN ? PSG_DIM_UNKNOWN : d * w->dims[j];
  return d;
}

bool psgi_fsa_is_depthwise(const psg_expr *call) {
  const psg_type *w = psgi_tensor_type_of(call->kids[2]);
  if (!w) return false;
  const char *kl = kernel_layout(call);
  int64_t groups = psgi_attr_int(call->u.attrs, "groups", 1);
  return weight_extent(w, kl, 'O', 'o') == groups && weight_extent(w, kl, 'I', 'i') == 1;
}

/* Full or depthwise, with layouts both simple or both blocked. */
static bool foldable_conv(const psg_expr *call, int c_small) {
  if (!is_conv(call) || call->nkids != 3) return false;
  if (psgi_attr_int(call->u.attrs, "groups", 1) != 1 && !psgi_fsa_is_depthwise(call)) return false;
  const char *kl = kernel_layout(call);
  int ko = layout_index(kl, 'o'), ki = layout_index(kl, 'i');
  return (ko < 0 && ki < 0 && c_small < 0) || (ko >= 0 && ki >= 0 && c_small >= 0);
}

psgi_fsa_msg psgi_fsa_conv_msg(const psg_expr *call, bool output) {
  psgi_fsa_msg m = {0};
  if (!is_conv(call)) return m;
  const char *layout = data_layout(call);
  if (output) {
    const char *o = psgi_attr_str(call->u.attrs, "out_layout", "");
    if (o[0]) layout = o;
  }
  int big = layout_index(layout, 'C'), small = layout_index(layout, 'c');
  if (big < 0 || !foldable_conv(call, small)) return m;
  m.defined = true;
  m.axes[m.n++] = big;
  if (small >= 0) m.axes[m.n++] = small;
  if (m.n == 2 && m.axes[0] > m.axes[1]) m.axes[0] = small, m.axes[1] = big;
  return m;
}

bool psgi_fsa_kernel_axes(const psg_expr *call, bool out, int *big, int *small, int *ndim) {
  const char *kl = kernel_layout(call);
  int so = layout_index(kl, 'o'), si = layout_index(kl, 'i'), bi = layout_index(kl, 'I');
  bool simple = so < 0 && si < 0 && bi >= 0, blocked = so >= 0 && si >= 0 && bi >= 0;
  *big = layout_index(kl, out ? 'O' : 'I');
  *small = simple ? -1 : out ? so : si;
  *ndim = layout_ndim(kl);
  return (simple || blocked) && *big >= 0;
}

/* Broadcasts and scale shapes ------------------------------------------------- */

static bool has_axis(const psgi_fsa_msg *m, int i) {
  for (int k = 0; k < m->n; k++)
    if (m->axes[k] == i) return true;
  return false;
}

/* op(x) with up to two attributes (k1 NULL: none). */
static psg_expr *build_1(psgi_built *b, const char *op, psg_expr *x, const char *k1, psg_attr *v1, const char *k2,
                         psg_attr *v2) {
  psg_attrs *attrs = k1 ? psgi_build_attrs(b, (const char *[]){k1, k2}, (psg_attr *[]){v1, v2}, k2 ? 2 : 1) : NULL;
  return (attrs || !k1) && x ? psgi_build_call_typed(b, op, &x, 1, attrs) : NULL;
}

/* expand_dims as TVM's Python helper writes it: num_newaxis only when not
 * its default 1 (attributes compare by what is written). */
static psg_expr *expand_dims(psgi_built *b, psg_expr *x, int64_t axis, int64_t num) {
  return build_1(b, "expand_dims", x, "axis", psgi_build_attr_int(b, axis), num == 1 ? NULL : "num_newaxis",
                 num == 1 ? NULL : psgi_build_attr_int(b, num));
}

bool psgi_fsa_match_left(psgi_built *b, const psg_type *tl, const psg_type *tr, const psgi_fsa_msg *m,
                         psg_expr **rhs) {
  if (!tl || !tr || tl->n < tr->n) return false;
  int base = tl->n - tr->n;
  bool one = true; /* a single value (TVM: rank 0 only) */
  for (int i = 0; i < tr->n; i++) one &= tr->dims[i] == 1;
  if (one && rhs && m->n > 0) {
    /* A scalar scale: one value per channel, by expand_dims and repeat (the
     * extent TVM repeats by is always that of the first axis). A scale of
     * one value in a tensor of unit extents, as ONNX graphs write them, is
     * squeezed to a scalar first (departure "FoldScaleAxis unit scales"). */
    int64_t rep = tl->dims[m->axes[0]];
    if (rep == PSG_DIM_UNKNOWN) return false;
    psg_expr *x = *rhs;
    if (tr->n > 0) x = build_1(b, "squeeze", x, NULL, NULL, NULL, NULL);
    x = expand_dims(b, x, 0, m->n);
    for (int i = 0; i < m->n; i++)
      x = build_1(b, "repeat", x, "repeats", psgi_build_attr_int(b, rep), "axis", psgi_build_attr_int(b, i));
    *rhs = x;
    return x != NULL;
  }
  int64_t squeeze[PSG_MAX_RANK];
  int nsq = 0;
  for (int i = 0; i < tl->n; i++) {
    if (has_axis(m, i)) {
      if (i < base || tl->dims[i] != tr->dims[i - base] || tl->dims[i] == PSG_DIM_UNKNOWN) return false;
    } else if (i >= base) {
      if (tr->dims[i - base] != 1) return false;
      squeeze[nsq++] = i - base;
    }
  }
  if (rhs && nsq) {
    *rhs = build_1(b, "squeeze", *rhs, "axis", psgi_build_attr_ints(b, squeeze, (size_t)nsq), NULL, NULL);
    return *rhs != NULL;
  }
  return true;
}

psg_expr *psgi_fsa_expand_bias(psgi_built *b, psg_expr *bias, int ndim, const int *axes, int n) {
  for (int i = n; i > 0 && bias; i--) {
    int64_t pad = i == n ? ndim - axes[i - 1] - 1 : axes[i] - axes[i - 1];
    if (pad > 0) bias = expand_dims(b, bias, i, pad);
  }
  return bias;
}

psg_expr *psgi_fsa_reshape_to_axes(psgi_built *b, psg_expr *scale, const psg_type *shape, const int *axes, int n) {
  int64_t dims[PSG_MAX_RANK];
  psgi_fsa_msg m = {true, false, n, {0}};
  for (int k = 0; k < n; k++) m.axes[k] = axes[k];
  for (int i = 0; i < shape->n; i++) {
    dims[i] = has_axis(&m, i) ? shape->dims[i] : 1;
    if (dims[i] == PSG_DIM_UNKNOWN) return NULL;
  }
  return build_1(b, "reshape", scale, "newshape", psgi_build_attr_ints(b, dims, (size_t)shape->n), NULL, NULL);
}

psg_expr *psgi_fsa_reshape_or_expand(psgi_built *b, psg_expr *scale, const psg_type *shape, const psgi_fsa_msg *m) {
  if (m->n > 1) return psgi_fsa_reshape_to_axes(b, scale, shape, m->axes, m->n);
  return psgi_fsa_expand_bias(b, scale, shape->n, m->axes, m->n);
}

/* `e` under the reshaping ops a scale may be wrapped in. */
static const psg_expr *peel(const psg_expr *e) {
  for (;;) {
    int op = psgi_fsa_op(e);
    if (op != PSGI_FSA_EXPAND_DIMS && op != PSGI_FSA_RESHAPE && op != PSGI_FSA_TRANSPOSE &&
        op != PSGI_FSA_SQUEEZE && op != PSGI_FSA_REPEAT)
      return e;
    e = e->kids[1];
  }
}

bool psgi_fsa_is_constant(const psg_expr *e) {
  e = peel(e);
  return e && e->kind == PSG_EXPR_CONSTANT;
}

bool psgi_fsa_all_positive(const psg_expr *e) {
  e = peel(e);
  if (!e || e->kind != PSG_EXPR_CONSTANT) return false;
  const psg_tensor *t = e->u.constant;
  switch (t->dtype) {
  case PSG_DTYPE_FLOAT32: case PSG_DTYPE_FLOAT64: case PSG_DTYPE_INT8: case PSG_DTYPE_INT32:
  case PSG_DTYPE_UINT8: case PSG_DTYPE_UINT32: break;
  default: return false; /* TVM checks only these */
  }
  int64_t n = psg_tensor_numel(t);
  for (int64_t i = 0; i < n; i++)
    if (psgi_load_f(t->dtype, t->data, (size_t)i) < 0) return false; /* NaN is not < 0 */
  return true;
}

psg_expr *psgi_fsa_call_like(psgi_built *b, const psg_expr *ref, psg_expr *const *args, size_t n) {
  /* ref's span: the ONNX export names nodes after it */
  const psg_span *span = b->span;
  b->span = psgi_expr_span_ref(ref);
  psg_expr *call = psgi_build_call_typed(b, psgi_call_op_name(ref), args, n, ref->u.attrs);
  b->span = span;
  return call;
}

psg_status psgi_fsa_typed(psg_status st, const psg_expr *e, psg_expr *out) {
  if (st || out == e || psgi_type_of(out)) return st;
  return psg_expr_infer_type(out, NULL);
}

psg_status psgi_fsa_typed_default(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  return psgi_fsa_typed(st, e, st ? NULL : *out);
}

psg_status psgi_fsa_rewrite(psg_expr *func, bool any, void *user, psg_mutate_fn rewrite_call, psg_expr **out) {
  if (!any) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.user = user;
  for (int k = 0; k < PSG_EXPR_KIND_COUNT; k++) m.visit[k] = psgi_fsa_typed_default;
  m.visit[PSG_EXPR_CALL] = rewrite_call;
  psg_status st = psgi_mutator_keep_composite(&m);
  if (!st) st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

/* Messages by node -------------------------------------------------------------- */

void psgi_fsa_msgs_init(psgi_fsa_msgs *ms, psg_ctx *ctx) {
  psgi_map_init(&ms->at, ctx);
  ms->pool = (__typeof__(ms->pool)){0};
}

void psgi_fsa_msgs_fini(psgi_fsa_msgs *ms, psg_ctx *ctx) {
  psgi_map_fini(&ms->at);
  PSGI_VEC_FREE(ctx, &ms->pool);
}

psgi_fsa_msg psgi_fsa_msgs_get(const psgi_fsa_msgs *ms, const psg_expr *e, bool *found) {
  psgi_map_entry *en = psgi_map_get_ptr(&ms->at, e);
  if (found) *found = en != NULL;
  if (!en) return (psgi_fsa_msg){0};
  return ms->pool.data[(uintptr_t)en->value - 1];
}

psg_status psgi_fsa_msgs_put(psgi_fsa_msgs *ms, psg_ctx *ctx, const psg_expr *e, psgi_fsa_msg m, bool intersect) {
  bool is_new = false;
  psgi_map_entry *en = psgi_map_put_ptr(&ms->at, e, &is_new);
  if (!en) return psgi_nomem(ctx);
  if (!is_new) {
    psgi_fsa_msg *old = &ms->pool.data[(uintptr_t)en->value - 1];
    *old = intersect ? psgi_fsa_intersect(*old, m) : m;
    return PSG_OK;
  }
  if (!PSGI_VEC_PUSH(ctx, &ms->pool, m)) return psgi_nomem(ctx);
  en->value = (void *)(uintptr_t)ms->pool.len;
  return PSG_OK;
}

/* Passes ------------------------------------------------------------------------- */

/* TVM folds one multiply of a chain per run (multiply(multiply(conv, a), b)
 * folds `a` and leaves `b` for the next run); Passage runs the direction to
 * its fixpoint so that the pass is idempotent (departure "FoldScaleAxis
 * chains"). Each round that changes something removes a scaling multiply, so
 * the rounds end; the bound only guards against a bug. */
enum { MAX_ROUNDS = 1024 };

static psg_status to_fixpoint(psg_expr *func, psg_status (*fold)(psg_expr *, psg_expr **), psg_expr **out) {
  *out = NULL;
  psg_status st = psgi_check_typed(func, "FoldScaleAxis");
  psg_expr *cur = func; /* each round leaves its rewrite typed (psgi_fsa_typed) */
  psg_expr_retain(cur);
  for (int round = 0; !st && round < MAX_ROUNDS; round++) {
    psg_expr *next = NULL;
    st = fold(cur, &next);
    if (st) break;
    bool same = next == cur;
    psg_expr_release(cur);
    cur = next;
    if (same) break;
  }
  if (st) {
    psg_expr_release(cur);
    return st;
  }
  *out = cur;
  return PSG_OK;
}

static psg_status backward(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  (void)pc;
  (void)user;
  return to_fixpoint(func, psgi_fsa_backward, out);
}

static psg_status forward(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  return to_fixpoint(func, psgi_fsa_forward, out);
}

const psg_pass_decl psgi_pass_backward_fold_scale_axis = {
    .name = "BackwardFoldScaleAxis",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "fold a per-channel multiply after conv2d/conv3d/dense into its weights",
    .needs = PSG_PROP_TYPED,
    .function = backward,
    .cacheable = true,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: the scale is multiplied into the weights */
};

const psg_pass_decl psgi_pass_forward_fold_scale_axis = {
    .name = "ForwardFoldScaleAxis",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "fold a per-channel multiply before conv2d/conv3d/dense into its weights",
    .needs = PSG_PROP_TYPED,
    .function = forward,
    .cacheable = true,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: the scale is multiplied into the weights */
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
