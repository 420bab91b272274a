/* Passage — SimplifyExpr (tvm-behavior §7.1, simplify_expr.cc): a function
 * pass (opt 0, required InferType) of local rewrites that leave the value
 * unchanged and the graph smaller:
 *   x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1          -> x   (same type only)
 *   minimum(x, +inf), maximum(x, -inf)                 -> x   (same type only)
 *   chains of reshape/squeeze/expand_dims/batch_flatten -> one reshape, or x
 *   transpose of transpose, identity transpose         -> one transpose, or x
 *   cast to the dtype x has, cast(cast(x, wider), x's)  -> x
 *   strided_slice taking everything, pad of nothing    -> x
 *   (x + c1) + c2, (x * c1) * c2 (inner used once)      -> x + (c1 + c2), x * (c1 * c2)
 *   broadcast_to the shape x has                       -> x
 *   concatenate((x,)), a reduction over unit axes      -> x, a reshape of x
 *   strided_slice of a concatenate taking one field    -> the field
 *   decomposed HardSwish, layer_norm; transposes into matmul flags;
 *   reshape(op(reshape(x))) for row-wise op        -> op(reshape(x))
 *   op(squeeze(x)) for elementwise op, transpose     -> squeeze(op(x))
 *                                     (simplify_expr_squeeze.c)
 *                                     (simplify_expr_patterns.c)
 * Every node it makes carries its type, so rules apply to rewritten code too
 * (a chain of three reshapes becomes one in a single run). */
#include <math.h>
#include <pthread.h>
#include "ops/elemwise.h"
#include "ops/kernel_util.h"
#include "transforms/simplify_expr.h"
#include "transforms/transforms.h"

struct simplifier {
  psgi_map users;  /* original node -> number of parents */
  psgi_map origin; /* rewritten call -> the original it replaces */
};

size_t psgi_simplify_users(const simplifier *s, const psg_expr *now) {
  psgi_map_entry *o = psgi_map_get_ptr(&s->origin, now);
  psgi_map_entry *u = psgi_map_get_ptr(&s->users, o ? o->value : now);
  return u ? (size_t)(uintptr_t)u->value : 0;
}

/* By op table index (rules test every call): no name compared. */
static bool is_call_of(const psg_expr *e, size_t op) { return psgi_call_op_id(e) == (ptrdiff_t)op; }

/* True when `e` is a constant whose every element equals `v`. */
static bool is_constant_all(const psg_expr *e, double v) {
  if (!e || e->kind != PSG_EXPR_CONSTANT) return false;
  const psg_tensor *t = e->u.constant;
  int64_t n = psg_tensor_numel(t);
  for (int64_t i = 0; i < n; i++)
    if (psgi_load_f(t->dtype, t->data, (size_t)i) != v) return false;
  return n > 0;
}

/* A constant of every element `v`, or (v 0 or 1) a call of zeros / ones or
 * their *_like forms whose value is known to be that everywhere. */
static bool is_fill_of(const psg_expr *e, double v) {
  if (v == 0 && (is_call_of(e, PSGI_OP_zeros) || is_call_of(e, PSGI_OP_zeros_like))) return true;
  if (v == 1 && (is_call_of(e, PSGI_OP_ones) || is_call_of(e, PSGI_OP_ones_like))) return true;
  return is_constant_all(e, v);
}


/* Identity arithmetic: the operand that survives, or NULL. */
static psg_expr *identity_operand(const psg_expr *now) {
  if (now->nkids != 3) return NULL;
  psg_expr *a = now->kids[1], *b = now->kids[2];
  psg_expr *keep = NULL;
  switch (psgi_call_op_id(now)) {
  case PSGI_OP_add: keep = is_fill_of(b, 0) ? a : is_fill_of(a, 0) ? b : NULL; break;
  case PSGI_OP_subtract: keep = is_fill_of(b, 0) ? a : NULL; break;
  case PSGI_OP_multiply: keep = is_fill_of(b, 1) ? a : is_fill_of(a, 1) ? b : NULL; break;
  case PSGI_OP_divide: keep = is_fill_of(b, 1) ? a : NULL; break;
  case PSGI_OP_minimum: keep = is_constant_all(b, INFINITY) ? a : is_constant_all(a, INFINITY) ? b : NULL; break;
  case PSGI_OP_maximum: keep = is_constant_all(b, -INFINITY) ? a : is_constant_all(a, -INFINITY) ? b : NULL; break;
  default: return NULL;
  }
  /* Broadcasting against the constant may change the shape or dtype: only
   * when the operand already has the result's type is it the result. */
  return keep && psgi_type_of(keep) && psgi_type_of(keep) == now->checked_type ? keep : NULL;
}

static bool is_reshape_like(const psg_expr *e) {
  return is_call_of(e, PSGI_OP_reshape) || is_call_of(e, PSGI_OP_contrib_reverse_reshape) || is_call_of(e, PSGI_OP_squeeze) || is_call_of(e, PSGI_OP_expand_dims) ||
         is_call_of(e, PSGI_OP_nn_batch_flatten);
}

/* A chain of reshape-like calls over x: x itself or one reshape to the final
 * static shape. */
static psg_expr *merge_reshapes(psgi_built *b, const psg_expr *now) {
  if (!is_reshape_like(now) || !now->checked_type) return NULL;
  psg_expr *x = now->kids[1];
  size_t chain = 1;
  while (is_reshape_like(x)) {
    x = x->kids[1];
    chain++;
  }
  const psg_type *t = now->checked_type;
  if (!psgi_type_of(x)) return NULL;
  if (psgi_type_of(x) == t) return x;
  if (chain < 2 || !psg_type_is_static(t)) return NULL; /* any chain: one reshape to the final shape */
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"newshape"},
                                      (psg_attr *[]){psgi_build_attr_ints(b, t->dims, (size_t)t->n)}, 1);
  return attrs ? psgi_build_call_typed(b, "reshape", &x, 1, attrs) : NULL;
}

/* The permutation of a transpose (None: reversed), or false. */
static bool transpose_axes(const psg_expr *call, int ndim, int64_t *axes) {
  int n = psgi_attr_ints(call->u.attrs, "axes", axes, PSG_MAX_RANK);
  if (n < 0 || (n && n != ndim)) return false;
  for (int i = 0; i < ndim; i++) {
    if (!n) axes[i] = ndim - 1 - i;
    else if (axes[i] < 0) axes[i] += ndim;
  }
  return true;
}

static psg_expr *merge_transposes(psgi_built *b, const psg_expr *now) {
  if (!is_call_of(now, PSGI_OP_transpose) || !now->checked_type) return NULL;
  psg_expr *x = now->kids[1];
  int ndim = now->checked_type->n;
  int64_t outer[PSG_MAX_RANK], inner[PSG_MAX_RANK], axes[PSG_MAX_RANK];
  if (!transpose_axes(now, ndim, outer)) return NULL;
  bool composed = is_call_of(x, PSGI_OP_transpose) && transpose_axes(x, ndim, inner);
  for (int i = 0; i < ndim; i++) axes[i] = composed ? inner[outer[i]] : outer[i];
  if (composed) x = x->kids[1];
  bool identity = true;
  for (int i = 0; i < ndim; i++) identity &= axes[i] == i;
  if (identity) return psgi_type_of(x) == now->checked_type ? x : NULL;
  if (!composed) return NULL;
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"axes"}, (psg_attr *[]){psgi_build_attr_ints(b, axes, (size_t)ndim)}, 1);
  return attrs ? psgi_build_call_typed(b, "transpose", &x, 1, attrs) : NULL;
}

/* Can every value of dtype `from` be held exactly by `to`? */
static bool widens(int from, int to) {
  if (from == to) return true;
  if (psg_dtype_is_float(from) != psg_dtype_is_float(to)) return false;
  if (psg_dtype_is_float(from)) return psg_dtype_size(to) > psg_dtype_size(from) && to != PSG_DTYPE_BFLOAT16;
  bool su = from >= PSG_DTYPE_UINT8 && from <= PSG_DTYPE_UINT64, tu = to >= PSG_DTYPE_UINT8 && to <= PSG_DTYPE_UINT64;
  if (from == PSG_DTYPE_BOOL || to == PSG_DTYPE_BOOL) return from == PSG_DTYPE_BOOL;
  if (su == tu) return psg_dtype_size(to) > psg_dtype_size(from);
  return su && !tu && psg_dtype_size(to) > psg_dtype_size(from); /* unsigned into a wider signed */
}

static psg_expr *simplify_cast(const psg_expr *now) {
  if (!is_call_of(now, PSGI_OP_cast) || !now->checked_type) return NULL;
  psg_expr *x = now->kids[1];
  if (psgi_type_of(x) == now->checked_type) return x;
  if (is_call_of(x, PSGI_OP_cast) && psgi_type_of(x->kids[1]) == now->checked_type && psgi_type_of(x) &&
      widens(now->checked_type->dtype, psgi_type_of(x)->dtype))
    return x->kids[1];
  return NULL;
}

/* strided_slice from 0 with stride 1 to the end of every axis, or a pad of
 * nothing: the input itself. */
static psg_expr *drop_noop_slice_or_pad(const psg_expr *now) {
  psg_expr *x = now->nkids > 1 ? now->kids[1] : NULL;
  if (!x || !psgi_type_of(x) || psgi_type_of(x) != now->checked_type) return NULL;
  if (is_call_of(now, PSGI_OP_broadcast_to)) return x; /* to the shape it has */
  if (is_call_of(now, PSGI_OP_strided_slice)) {
    int64_t begin[PSG_MAX_RANK], strides[PSG_MAX_RANK];
    int nb = psgi_attr_ints(now->u.attrs, "begin", begin, PSG_MAX_RANK);
    int ns = psgi_attr_ints(now->u.attrs, "strides", strides, PSG_MAX_RANK);
    if (nb < 0 || ns < 0) return NULL;
    for (int i = 0; i < nb; i++)
      if (begin[i] != 0) return NULL;
    for (int i = 0; i < ns; i++)
      if (strides[i] != 1) return NULL;
    return x; /* same type, starting at 0, stride 1: everything */
  }
  if (is_call_of(now, PSGI_OP_nn_pad)) {
    psg_attr *w = psg_attrs_get(now->u.attrs, "pad_width");
    if (!w || psg_attr_kind(w) != PSG_ATTR_LIST) return NULL;
    for (size_t i = 0; i < psg_attr_list_len(w); i++) {
      psg_attr *pair = psg_attr_list_get(w, i);
      if (psg_attr_kind(pair) != PSG_ATTR_LIST) return NULL;
      for (size_t j = 0; j < psg_attr_list_len(pair); j++) {
        psg_attr *v = psg_attr_list_get(pair, j);
        if (psg_attr_kind(v) != PSG_ATTR_INT || psg_attr_get_int(v) != 0) return NULL;
      }
    }
    return x;
  }
  return NULL;
}

/* concatenate of a one-field tuple: the field; a reduction (mean, sum, max,
 * min, prod) over axes of extent 1 only: a reshape of x (merged into the
 * reshapes around it). */
static psg_expr *drop_trivial_concat_or_reduce(psgi_built *b, const psg_expr *now) {
  const psg_type *t = now->checked_type;
  if (!t || now->nkids != 2) return NULL;
  psg_expr *x = now->kids[1];
  if (is_call_of(now, PSGI_OP_concatenate))
    return x->kind == PSG_EXPR_TUPLE && x->nkids == 1 && psgi_type_of(x->kids[0]) == t ? x->kids[0] : NULL;
  static const size_t reductions[] = {PSGI_OP_mean, PSGI_OP_sum, PSGI_OP_max, PSGI_OP_min, PSGI_OP_prod};
  bool reduce = false;
  for (size_t i = 0; i < sizeof reductions / sizeof *reductions; i++) reduce |= is_call_of(now, reductions[i]);
  const psg_type *xt = psgi_tensor_type_of(x);
  if (!reduce || !xt || t->kind != PSG_TYPE_TENSOR || !psg_type_is_static(t) || !psg_type_is_static(xt) ||
      xt->dtype != t->dtype || psgi_attr_bool(now->u.attrs, "exclude", false))
    return NULL;
  int64_t ax[PSG_MAX_RANK];
  int n = psgi_attr_ints(now->u.attrs, "axis", ax, PSG_MAX_RANK);
  if (n < 0) return NULL;
  int64_t numel_x = 1, numel_t = 1;
  for (int i = 0; i < xt->n; i++) numel_x *= xt->dims[i];
  for (int i = 0; i < t->n; i++) numel_t *= t->dims[i];
  if (n == 0 ? numel_x != 1 : numel_x != numel_t) return NULL; /* None: every axis */
  for (int i = 0; i < n; i++) {
    int64_t a = ax[i] < 0 ? ax[i] + xt->n : ax[i];
    if (a < 0 || a >= xt->n || xt->dims[a] != 1) return NULL;
  }
  while (is_reshape_like(x)) x = x->kids[1];
  if (psgi_type_of(x) == t) return x;
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"newshape"},
                                      (psg_attr *[]){psgi_build_attr_ints(b, t->dims, (size_t)t->n)}, 1);
  return attrs ? psgi_build_call_typed(b, "reshape", &x, 1, attrs) : NULL;
}

/* strided_slice(concatenate(fields, axis=a), one axis a, stride 1) taking
 * exactly one field: that field (the unrolled LSTM's layers read their
 * input sequence back step by step). */
static psg_expr *slice_of_concat(const psg_expr *now) {
  const psg_type *t = now->checked_type;
  if (!is_call_of(now, PSGI_OP_strided_slice) || now->nkids != 2 || !t) return NULL;
  psg_expr *cat = now->kids[1];
  if (!is_call_of(cat, PSGI_OP_concatenate) || cat->nkids != 2 || cat->kids[1]->kind != PSG_EXPR_TUPLE) return NULL;
  const psg_type *ct = psgi_tensor_type_of(cat);
  if (!ct || !psg_type_is_static(ct) || strcmp(psgi_attr_str(now->u.attrs, "slice_mode", "end"), "end")) return NULL;
  int64_t begin[PSG_MAX_RANK], end[PSG_MAX_RANK], strides[PSG_MAX_RANK], axes[PSG_MAX_RANK];
  int nb = psgi_attr_ints(now->u.attrs, "begin", begin, PSG_MAX_RANK);
  int ne = psgi_attr_ints(now->u.attrs, "end", end, PSG_MAX_RANK);
  int ns = psgi_attr_ints(now->u.attrs, "strides", strides, PSG_MAX_RANK);
  int na = psgi_attr_ints(now->u.attrs, "axes", axes, PSG_MAX_RANK);
  if (nb != 1 || ne != 1 || na != 1 || ns > 1 || (ns == 1 && strides[0] != 1)) return NULL;
  int64_t a = axes[0] < 0 ? axes[0] + ct->n : axes[0];
  int64_t ca = psgi_attr_int(cat->u.attrs, "axis", 0);
  if (ca < 0) ca += ct->n;
  if (a != ca || a < 0 || a >= ct->n) return NULL;
  int64_t b0 = begin[0] < 0 ? begin[0] + ct->dims[a] : begin[0], e0 = end[0] < 0 ? end[0] + ct->dims[a] : end[0];
  if (e0 > ct->dims[a]) e0 = ct->dims[a];
  const psg_expr *fields = cat->kids[1];
  for (uint32_t i = 0, off = 0; i < fields->nkids; i++) {
    const psg_type *ft = psgi_tensor_type_of(fields->kids[i]);
    if (!ft || ft->n != ct->n) return NULL;
    if (b0 == off && e0 == off + ft->dims[a]) return psgi_type_of(fields->kids[i]) == t ? fields->kids[i] : NULL;
    off += (uint32_t)ft->dims[a];
  }
  return NULL;
}

/* The rules by the op of the call they rewrite (the root of their pattern),
 * so a call runs only those that could apply; a table per op index, built
 * once (op indices are fixed for the process). Squeeze sinking applies
 * whatever the op when an argument is a squeeze (checked per call). */
enum {
  R_IDENTITY = 1 << 0, R_RESHAPES = 1 << 1, R_TRANSPOSES = 1 << 2, R_CAST = 1 << 3, R_NOOP = 1 << 4,
  R_TRIVIAL = 1 << 5, R_SLICE_CONCAT = 1 << 6, R_REASSOC = 1 << 7, R_HARD_SWISH = 1 << 8,
  R_LAYER_NORM = 1 << 9, R_MATMUL = 1 << 10, R_RESHAPE_THROUGH = 1 << 11, R_SQUEEZE = 1 << 12,
  R_FULL = 1 << 13, R_CLIP = 1 << 14, R_LIKE = 1 << 15, R_ALL = (1 << 16) - 1
};
enum { MAX_OPS = 512 };
static uint32_t op_rules[MAX_OPS];
static size_t squeeze_op = (size_t)-1;
static pthread_once_t op_rules_once = PTHREAD_ONCE_INIT;

static void build_op_rules(void) {
  static const struct {
    const char *op;
    uint32_t rules;
  } table[] = {
      {"add", R_IDENTITY | R_REASSOC | R_LAYER_NORM},
      {"subtract", R_IDENTITY},
      {"multiply", R_IDENTITY | R_REASSOC | R_HARD_SWISH | R_LAYER_NORM},
      {"divide", R_IDENTITY | R_HARD_SWISH | R_LAYER_NORM},
      {"minimum", R_IDENTITY},
      {"maximum", R_IDENTITY},
      {"reshape", R_RESHAPES | R_RESHAPE_THROUGH},
      {"squeeze", R_RESHAPES | R_RESHAPE_THROUGH},
      {"expand_dims", R_RESHAPES | R_RESHAPE_THROUGH},
      {"nn.batch_flatten", R_RESHAPES | R_RESHAPE_THROUGH},
      {"transpose", R_TRANSPOSES},
      {"cast", R_CAST},
      {"clip", R_CLIP},
      {"zeros_like", R_LIKE},
      {"ones_like", R_LIKE},
      {"full_like", R_LIKE},
      {"reshape_like", R_LIKE},
      {"collapse_sum_like", R_LIKE},
      {"broadcast_to_like", R_LIKE},
      {"cast_like", R_LIKE},
      {"contrib_reverse_reshape", R_RESHAPES},
      {"broadcast_to", R_NOOP},
      {"strided_slice", R_NOOP | R_SLICE_CONCAT},
      {"nn.pad", R_NOOP},
      {"concatenate", R_TRIVIAL},
      {"mean", R_TRIVIAL},
      {"sum", R_TRIVIAL},
      {"max", R_TRIVIAL},
      {"min", R_TRIVIAL},
      {"prod", R_TRIVIAL},
      {"nn.matmul", R_MATMUL},
      {"nn.batch_matmul", R_MATMUL},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    ptrdiff_t op = psgi_op_lookup(table[i].op, strlen(table[i].op));
    if (op >= 0 && op < MAX_OPS) op_rules[op] = table[i].rules;
  }
  /* Every binary op that broadcasts its two operands against each other
   * (not nn.bias_add, whose pattern is broadcast too: its bias must stay a
   * vector, so a scalar fill value does not fit it). */
  for (size_t op = 0; op < psgi_op_table_len && op < MAX_OPS; op++) {
    const psgi_op_impl *impl = psgi_op_impl_get(op);
    if (impl && (impl->type_rel == psgi_rel_broadcast || impl->type_rel == psgi_rel_broadcast_cmp))
      op_rules[op] |= R_FULL;
  }
  ptrdiff_t sq = psgi_op_lookup("squeeze", 7);
  if (sq >= 0) squeeze_op = (size_t)sq;
}

/* The rules that could rewrite `call`. */
static unsigned rules_for(const psg_expr *call) {
  if (call->kind != PSG_EXPR_CALL || call->kids[0]->kind != PSG_EXPR_OP) return 0;
  pthread_once(&op_rules_once, build_op_rules);
  size_t op = call->kids[0]->u.op;
  unsigned r = op < MAX_OPS ? op_rules[op] : R_ALL;
  for (uint32_t i = 1; i < call->nkids && !(r & R_SQUEEZE); i++) {
    const psg_expr *a = call->kids[i];
    if (a->kind == PSG_EXPR_CALL && a->kids[0]->kind == PSG_EXPR_OP && a->kids[0]->u.op == squeeze_op) r |= R_SQUEEZE;
  }
  return r;
}

/* The first rule that rewrites `now` (a typed call), or NULL. */
static psg_expr *apply_rules(psgi_built *b, const simplifier *s, const psg_expr *now) {
  unsigned r = rules_for(now);
  psg_expr *better = NULL;
  if (r & R_LIKE) better = psgi_simplify_concretize_like(b, now);
  if (!better && (r & R_IDENTITY)) better = identity_operand(now);
  if (!better && (r & R_RESHAPES)) better = merge_reshapes(b, now);
  if (!better && !b->status && (r & R_TRANSPOSES)) better = merge_transposes(b, now);
  if (!better && (r & R_CAST)) better = simplify_cast(now);
  if (!better && !b->status && (r & R_CAST)) better = psgi_simplify_consecutive_cast(b, now);
  if (!better && !b->status && (r & R_CAST)) better = psgi_simplify_clip_casts(b, now);
  if (!better && (r & R_CLIP)) better = psgi_simplify_clip(now);
  if (!better && !b->status && (r & R_FULL)) better = psgi_simplify_full_elementwise(b, now);
  if (!better && (r & R_NOOP)) better = drop_noop_slice_or_pad(now);
  if (!better && !b->status && (r & R_TRIVIAL)) better = drop_trivial_concat_or_reduce(b, now);
  if (!better && (r & R_SLICE_CONCAT)) better = slice_of_concat(now);
  if (!better && !b->status && (r & R_REASSOC)) better = psgi_simplify_adjacent_constants(b, s, now);
  if (!better && !b->status && (r & R_HARD_SWISH)) better = psgi_simplify_hard_swish(b, s, now);
  if (!better && !b->status && (r & R_LAYER_NORM)) better = psgi_simplify_layer_norm(b, s, now);
  if (!better && !b->status && (r & R_MATMUL)) better = psgi_simplify_matmul_transpose(b, now);
  if (!better && !b->status && (r & R_RESHAPE_THROUGH)) better = psgi_simplify_reshape_through(b, s, now);
  if (!better && !b->status && (r & R_SQUEEZE)) better = psgi_simplify_squeeze_sink(b, s, now);
  return better;
}

static psg_status simplify_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  simplifier *s = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  if (st) return st;
  psgi_give_type(*out, e->checked_type); /* a rewrite has the type of what it replaces */
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  psg_expr *better = apply_rules(&b, s, *out);
  /* What a rule built may match another (TVM runs its rewrites to a fixed
   * point): a few more rounds on the new root. */
  for (int round = 0; better && !b.status && round < 8 && better->kind == PSG_EXPR_CALL; round++) {
    psg_expr *next = apply_rules(&b, s, better);
    if (!next) break;
    better = next;
  }
  st = b.status;
  if (!st && better) {
    psg_expr_retain(better);
    psg_expr_release(*out);
    *out = better;
  }
  /* Later patterns ask how many users the original of a rewritten call had
   * (a node of the input, kept or returned by a rule, answers for itself;
   * the rebuild of e, when no rule fired, is new: not in `users`). */
  if (!st && *out != e && (*out)->kind == PSG_EXPR_CALL && (!better || !psgi_map_get_ptr(&s->users, *out))) {
    bool is_new;
    psgi_map_entry *en = psgi_map_put_ptr(&s->origin, *out, &is_new); /* the first original stays */
    if (!en) st = psgi_nomem(m->ctx);
    else if (is_new) en->value = (void *)e;
  }
  psgi_built_fini(&b);
  return st;
}

/* Rebuilt non-call nodes keep the type of their original too. */
static psg_status keep_type(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  if (!st) psgi_give_type(*out, e->checked_type);
  return st;
}

/* Counts every node's parents (an edge per kid slot) in one walk whose map
 * is also its seen set: a node's children are walked when it first gets a
 * count. The root is in the map too, with no parents. A Composite function's
 * body is not walked (the mutator keeps it as it is). */
static psg_status count_users(simplifier *s, psg_ctx *ctx, const psg_expr *root) {
  PSGI_VEC(const psg_expr *) stack = {0};
  psg_status st = psgi_map_put_ptr(&s->users, root, NULL) && PSGI_VEC_PUSH(ctx, &stack, root) ? PSG_OK : PSG_ERR_NOMEM;
  while (!st && stack.len) {
    const psg_expr *e = stack.data[--stack.len];
    for (uint32_t i = 0; i < e->nkids; i++) {
      bool is_new;
      psgi_map_entry *en = psgi_map_put_ptr(&s->users, e->kids[i], &is_new);
      bool walk = is_new && !psgi_is_composite_fn(e->kids[i]); /* a Composite body is not rewritten */
      if (!en || (walk && !PSGI_VEC_PUSH(ctx, &stack, e->kids[i]))) {
        st = PSG_ERR_NOMEM;
        break;
      }
      en->value = (void *)((uintptr_t)en->value + 1);
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  return st;
}

static psg_status simplify(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  psg_status st = psgi_check_typed(func, "SimplifyExpr");
  if (st) return st;
  simplifier s;
  psgi_map_init(&s.users, func->ctx);
  psgi_map_reserve(&s.users, psgi_expr_size_hint(func)); /* sized by the last walk (a hint) */
  psgi_map_init(&s.origin, func->ctx);
  st = count_users(&s, func->ctx, func);
  if (st == PSG_ERR_NOMEM) st = psgi_nomem(func->ctx);
  /* The count walk met every node the rewrite will: when the hint is
   * smaller (no walk yet, or one that stopped early), that sizes the
   * mutator's memo at once (psg_mutate reads it) instead of regrowing it. */
  if (!st && psgi_expr_size_hint(func) < s.users.len) psgi_expr_note_size(func, s.users.len);
  if (!st) {
    psg_mutator m;
    psg_mutator_init(&m, func->ctx);
    m.user = &s;
    m.visit[PSG_EXPR_CALL] = simplify_call;
    m.visit[PSG_EXPR_TUPLE] = keep_type;
    m.visit[PSG_EXPR_TUPLE_GET_ITEM] = keep_type;
    m.visit[PSG_EXPR_LET] = keep_type;
    m.visit[PSG_EXPR_IF] = keep_type;
    st = psgi_mutator_keep_composite(&m);
    if (!st) st = psg_mutate(&m, func, out);
    psg_mutator_fini(&m);
  }
  psgi_map_fini(&s.users);
  psgi_map_fini(&s.origin);
  return st;
}

const psg_pass_decl psgi_pass_simplify_expr = {
    .name = "SimplifyExpr",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 0,
    .required = psgi_required_infer_type,
    .help = "identity arithmetic, reshape/transpose chains, redundant casts, no-op slices, pads and broadcasts, "
             "HardSwish and layer_norm patterns, transposes into matmuls",
    .needs = PSG_PROP_TYPED,
    .function = simplify,
    .cacheable = true,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: (x + c1) + c2 and (x * c1) * c2 fold the constants first */
};
