/* Passage — FoldScaleAxis's shared pieces (TVM's fold_scale_axis.cc, by
 * behaviour): the messages both directions pass along the graph, the layout
 * and broadcast questions they ask, and the scale reshapes they build.
 *
 * A message says "this node's value may carry a per-channel scale along
 * these axes" (at most two: a layout's C and its c block), and whether the
 * scale must be non-negative (it has to cross a relu). An undefined message
 * is TVM's null: nothing may be folded through here. */
#ifndef PSG_TRANSFORMS_FOLD_SCALE_AXIS_H
#define PSG_TRANSFORMS_FOLD_SCALE_AXIS_H

#include "transforms/builder.h"

enum { PSGI_FSA_MAX_AXES = 2 };

typedef struct psgi_fsa_msg {
  bool defined;
  bool positive;
  int n;                       /* axes, ascending */
  int axes[PSGI_FSA_MAX_AXES];
} psgi_fsa_msg;

/* The ops the folds know, looked up once. */
enum {
  PSGI_FSA_CONV2D, PSGI_FSA_CONV3D, PSGI_FSA_DENSE, PSGI_FSA_MULTIPLY, PSGI_FSA_ADD, PSGI_FSA_SUBTRACT,
  PSGI_FSA_BIAS_ADD, PSGI_FSA_RELU, PSGI_FSA_LEAKY_RELU, PSGI_FSA_SQUEEZE, PSGI_FSA_EXPAND_DIMS,
  PSGI_FSA_RESHAPE, PSGI_FSA_TRANSPOSE, PSGI_FSA_REPEAT, PSGI_FSA_NUM_OPS
};
/* PSGI_FSA_* by built-in op index (-1: none of them), filled once by
 * psgi_fsa_op_table_build: op table indices are fixed for the process, and
 * the walks ask of every node, so the question is a load, inline. Ops a host
 * registers have larger indices: none of them is one of these. */
enum { PSGI_FSA_TABLE_OPS = 512 };
extern signed char psgi_fsa_of_op[PSGI_FSA_TABLE_OPS];
extern bool psgi_fsa_of_op_ready; /* set (release) once the table is filled */
void psgi_fsa_op_table_build(void);
/* Which of the ops above `e` calls, or -1. */
static inline int psgi_fsa_op(const psg_expr *e) {
  if (!e || e->kind != PSG_EXPR_CALL || e->kids[0]->kind != PSG_EXPR_OP) return -1;
  if (!__atomic_load_n(&psgi_fsa_of_op_ready, __ATOMIC_ACQUIRE)) psgi_fsa_op_table_build();
  size_t op = e->kids[0]->u.op;
  return op < PSGI_FSA_TABLE_OPS ? psgi_fsa_of_op[op] : -1;
}

/* TVM's Intersect: null wins; otherwise the common axes, positive if either. */
psgi_fsa_msg psgi_fsa_intersect(psgi_fsa_msg a, psgi_fsa_msg b);

/* The message a conv2d/conv3d call sends to its data (`output` false,
 * ForwardPrep) or gives its result (`output` true, BackwardPrep): the C axis
 * (and c) of the data (or output) layout, when the conv is full or
 * depthwise and its layouts are both simple or both blocked. */
psgi_fsa_msg psgi_fsa_conv_msg(const psg_expr *call, bool output);

/* Where a conv's kernel layout puts the axes the rewrite scales: the weight
 * axes of the output (`out` true) or input channels, big and small (-1
 * when absent), and the kernel's rank. False when neither simple nor
 * blocked. */
bool psgi_fsa_kernel_axes(const psg_expr *call, bool out, int *big, int *small, int *ndim);
/* Whether the conv is depthwise (TVM's IsDepthwiseConv). */
bool psgi_fsa_is_depthwise(const psg_expr *call);

/* TVM's MatchBroadcastToLeftAxes: whether rhs broadcasts onto lhs varying
 * only along `m`'s axes of lhs. With `rhs` non-NULL, *rhs becomes the
 * squeezed (or, for a scalar, expanded and repeated) scale built in b. */
bool psgi_fsa_match_left(psgi_built *b, const psg_type *tl, const psg_type *tr, const psgi_fsa_msg *m,
                         psg_expr **rhs);
/* TVM's ExpandBiasToMatchAxis over the message's axes. */
psg_expr *psgi_fsa_expand_bias(psgi_built *b, psg_expr *bias, int ndim, const int *axes, int n);
/* A reshape of `scale` to `shape`'s extents on the axes, 1 elsewhere. NULL
 * with b->status still OK when an extent on the axes is not known. */
psg_expr *psgi_fsa_reshape_to_axes(psgi_built *b, psg_expr *scale, const psg_type *shape, const int *axes, int n);
/* reshape for several axes, expand_dims for one (TVM's ReshapeOrExpandToMatchAxis). */
psg_expr *psgi_fsa_reshape_or_expand(psgi_built *b, psg_expr *scale, const psg_type *shape, const psgi_fsa_msg *m);
/* Whether `e` is a constant with no negative element, maybe under
 * expand_dims/reshape/transpose/squeeze/repeat (TVM's IsAllPositiveConstant). */
bool psgi_fsa_all_positive(const psg_expr *e);
/* Whether `e` is a constant, maybe under those ops: the only scales
 * Passage folds (TVM folds any expression unless it crosses a relu; a scale
 * computed at run time would become a weight computed at run time:
 * departure "FoldScaleAxis constant scales"). */
bool psgi_fsa_is_constant(const psg_expr *e);
/* A call of ref's op with ref's attributes and span and the given arguments. */
psg_expr *psgi_fsa_call_like(psgi_built *b, const psg_expr *ref, psg_expr *const *args, size_t n);

/* The rewrite `out` of `e` given a type from its children's when it has
 * none (a call rebuilt with rewritten arguments), so that the next round of
 * a fold can match on it; `st` passes through. */
psg_status psgi_fsa_typed(psg_status st, const psg_expr *e, psg_expr *out);
/* psg_mutator_default, then psgi_fsa_typed: the visit of every non-call kind. */
psg_status psgi_fsa_typed_default(psg_mutator *m, const psg_expr *e, psg_expr **out);
/* The rewrite step both directions share: `func` itself when their prepare
 * walk found nothing to fold (`any` false), else `func` mutated with
 * `rewrite_call` (over the walk state `user`) on calls and every other
 * node kept typed (psgi_fsa_typed). */
psg_status psgi_fsa_rewrite(psg_expr *func, bool any, void *user, psg_mutate_fn rewrite_call, psg_expr **out);

/* Messages by node: a map to indices into a pool. */
typedef struct psgi_fsa_msgs {
  psgi_map at;
  PSGI_VEC(psgi_fsa_msg) pool;
} psgi_fsa_msgs;
void psgi_fsa_msgs_init(psgi_fsa_msgs *ms, psg_ctx *ctx);
void psgi_fsa_msgs_fini(psgi_fsa_msgs *ms, psg_ctx *ctx);
/* The message stored for `e`; `found` (may be NULL) tells whether there is one. */
psgi_fsa_msg psgi_fsa_msgs_get(const psgi_fsa_msgs *ms, const psg_expr *e, bool *found);
/* Stores m for e, or, with `intersect` and a message already there, their
 * intersection. */
psg_status psgi_fsa_msgs_put(psgi_fsa_msgs *ms, psg_ctx *ctx, const psg_expr *e, psgi_fsa_msg m, bool intersect);

/* Whether the prepare walk of a direction (forward: ForwardFoldScaleAxis)
 * could mark any multiply of `func` for a fold: *maybe false means surely
 * not, and the direction returns `func` as it is without preparing
 * (fold_scale_axis_scan.c). *maybe is true after an error. */
psg_status psgi_fsa_scan(const psg_expr *func, bool forward, bool *maybe);
/* Tests: true makes both directions skip the scan and prepare every time. */
extern bool psgi_fsa_exhaustive;

psg_status psgi_fsa_forward(psg_expr *func, psg_expr **out);
psg_status psgi_fsa_backward(psg_expr *func, psg_expr **out);

#endif
