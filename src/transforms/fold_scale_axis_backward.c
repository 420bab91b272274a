/* Passage — BackwardFoldScaleAxis (see fold_scale_axis.c), TVM's two steps:
 *
 * Prepare, producers to consumers: a conv2d/conv3d/dense says its output
 * may take a scale along its output channels; relu/leaky_relu (scale >= 0),
 * nn.bias_add along that axis and add/subtract (one side such a value and
 * the other broadcasting along the axes, or both such values of one shape)
 * pass it on. Only a node with a single user takes part: scaling it must
 * not change what anyone else sees.
 *
 * Transform: multiply(y, s) with y such a node and s along its axes drops
 * the multiply and pushes s down y's tree: into the weight of each conv or
 * dense at its leaves, onto the other term of an add/subtract and onto a
 * bias. Nodes outside the tree keep their plain rewrite. */
#include "transforms/fold_scale_axis.h"

#include "ops/op_impl.h"
#include "transforms/transforms.h"

typedef struct bwd {
  psg_ctx *ctx;
  psgi_built b;
  psgi_fsa_msgs msgs;
  psgi_map users; /* node -> 1 + number of parent references (the root: 1) */
} bwd;

/* The number of parents of the node whose users entry is `slot`. */
static size_t users_at(const bwd *w, uint32_t slot) { return (size_t)(uintptr_t)w->users.entries[slot].value - 1; }

static bool same_shape(const psg_type *a, const psg_type *b) {
  if (!a || !b || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* The message call `e` gives its result from its arguments' messages. */
static psgi_fsa_msg prep_call(bwd *w, const psg_expr *e) {
  psgi_fsa_msg none = {0}, in[2] = {none, none};
  for (uint32_t i = 1; i < e->nkids && i <= 2; i++) in[i - 1] = psgi_fsa_msgs_get(&w->msgs, e->kids[i], NULL);
  const psg_type *tl = e->nkids > 1 ? psgi_tensor_type_of(e->kids[1]) : NULL;
  const psg_type *tr = e->nkids > 2 ? psgi_tensor_type_of(e->kids[2]) : NULL;
  const psg_type *t = psgi_tensor_type_of(e);
  switch (psgi_fsa_op(e)) {
  case PSGI_FSA_RELU:
  case PSGI_FSA_LEAKY_RELU:
    in[0].positive |= in[0].defined;
    return in[0];
  case PSGI_FSA_ADD:
  case PSGI_FSA_SUBTRACT:
    if (e->nkids != 3) return none;
    if (in[0].defined && psgi_fsa_match_left(&w->b, tl, tr, &in[0], NULL)) return in[0];
    if (in[1].defined && psgi_fsa_match_left(&w->b, tr, tl, &in[1], NULL)) return in[1];
    if (in[0].defined && in[1].defined && in[0].n == in[1].n && same_shape(tl, tr) &&
        !memcmp(in[0].axes, in[1].axes, sizeof(int) * (size_t)in[0].n))
      return in[0];
    return none;
  case PSGI_FSA_CONV2D:
  case PSGI_FSA_CONV3D: return psgi_fsa_conv_msg(e, true);
  case PSGI_FSA_BIAS_ADD:
    return in[0].defined && in[0].n == 1 && psgi_attr_int(e->u.attrs, "axis", 1) == in[0].axes[0] ? in[0] : none;
  case PSGI_FSA_DENSE:
    /* TVM's axis 1: the output units of a 2-D result only. */
    return t && t->n == 2 ? (psgi_fsa_msg){true, false, 1, {1}} : none;
  default: return none;
  }
}

/* Whether transform_call could fold multiply `e`: a side that carries a
 * message along some axes, times a constant. Only such a multiply starts a
 * rewrite (every other node keeps its plain rewrite, which is itself while
 * nothing below it changed), so when no call passes this the transform would
 * return the function unchanged and is skipped: one walk fewer per run, and
 * per fixpoint round (the last round of every run finds nothing). */
static bool may_fold(const bwd *w, const psg_expr *e) {
  if (psgi_fsa_op(e) != PSGI_FSA_MULTIPLY || e->nkids != 3) return false;
  bool found[2];
  psgi_fsa_msg lm = psgi_fsa_msgs_get(&w->msgs, e->kids[1], &found[0]);
  psgi_fsa_msg rm = psgi_fsa_msgs_get(&w->msgs, e->kids[2], &found[1]);
  if (found[0]) return lm.n && psgi_fsa_is_constant(e->kids[2]);
  return found[1] && rm.n && psgi_fsa_is_constant(e->kids[1]);
}

/* Users, then messages in post-order (composite functions kept whole). One
 * walk counts the users and lists the calls that take part in post-order
 * (with their users entries), then the messages follow that list, now that
 * the counts are complete: a second walk would meet them in the same order. */
static psg_status prepare(bwd *w, const psg_expr *root, bool *any) {
  PSGI_VEC(struct frame { const psg_expr *e; uint32_t next; uint32_t slot; }) stack = {0};
  PSGI_VEC(struct order { const psg_expr *e; uint32_t slot; }) order = {0};
  psg_status st = PSG_OK;
  psgi_map_entry *en = psgi_map_put_ptr(&w->users, root, NULL);
  if (!en || !PSGI_VEC_PUSH(w->ctx, &stack, ((struct frame){root, 0, 0}))) st = psgi_nomem(w->ctx);
  else en->value = (void *)(uintptr_t)2;
  *any = false;
  while (!st && stack.len) {
    struct frame *fr = &stack.data[stack.len - 1];
    const psg_expr *e = fr->e;
    if (fr->next < e->nkids && !psgi_is_composite_fn(e)) {
      const psg_expr *k = e->kids[fr->next++];
      bool is_new = false;
      if (!(en = psgi_map_put_ptr(&w->users, k, &is_new))) {
        st = psgi_nomem(w->ctx);
        break;
      }
      en->value = (void *)((uintptr_t)en->value + (is_new ? 2 : 1));
      uint32_t slot = (uint32_t)(en - w->users.entries);
      if (is_new && !PSGI_VEC_PUSH(w->ctx, &stack, ((struct frame){k, 0, slot}))) st = psgi_nomem(w->ctx);
      continue;
    }
    uint32_t slot = fr->slot;
    stack.len--;
    if (e->kind == PSG_EXPR_CALL && psgi_fsa_op(e) >= 0 && !PSGI_VEC_PUSH(w->ctx, &order, ((struct order){e, slot})))
      st = psgi_nomem(w->ctx);
  }
  PSGI_VEC_FREE(w->ctx, &stack);
  bool messages = false;
  for (size_t i = 0; !st && i < order.len; i++) {
    const psg_expr *e = order.data[i].e;
    if (users_at(w, order.data[i].slot) != 1) continue;
    psgi_fsa_msg m = prep_call(w, e);
    if (m.defined) {
      messages = true;
      st = psgi_fsa_msgs_put(&w->msgs, w->ctx, e, m, false);
    }
  }
  for (size_t i = 0; !st && messages && !*any && i < order.len; i++) *any = may_fold(w, order.data[i].e);
  PSGI_VEC_FREE(w->ctx, &order);
  return st;
}

/* Transform ------------------------------------------------------------------------ */

/* A conv or dense at a leaf of the tree: its weight times s. */
static psg_expr *scale_layer(bwd *w, psg_mutator *m, const psg_expr *e, psg_expr *s) {
  psgi_built *b = &w->b;
  psg_expr *x = psg_mutator_get_result(m, e->kids[1]), *wt = psg_mutator_get_result(m, e->kids[2]);
  psg_expr *ws;
  if (psgi_fsa_op(e) == PSGI_FSA_DENSE) {
    ws = psgi_fsa_expand_bias(b, s, 2, (int[]){0}, 1);
  } else {
    int big, small, ndim;
    if (!psgi_fsa_kernel_axes(e, true, &big, &small, &ndim)) return NULL;
    if (small < 0) {
      ws = psgi_fsa_expand_bias(b, s, ndim, &big, 1);
    } else {
      const psg_type *t = psgi_tensor_type_of(e->kids[2]);
      ws = t ? psgi_fsa_reshape_to_axes(b, s, t, (int[]){big, small}, 2) : NULL;
    }
  }
  psg_expr *nw = psgi_build_call_typed(b, "multiply", (psg_expr *[]){wt, ws}, 2, NULL);
  return psgi_fsa_call_like(b, e, (psg_expr *[]){x, nw}, 2);
}

/* The tree below a multiply: `e`'s children that carry a message (relu's
 * one child, bias_add's data, either side of add/subtract). */
static bool in_tree(const bwd *w, const psg_expr *e, uint32_t kid) {
  int op = psgi_fsa_op(e);
  bool may = op == PSGI_FSA_RELU || op == PSGI_FSA_LEAKY_RELU || op == PSGI_FSA_BIAS_ADD ? kid == 1
             : op == PSGI_FSA_ADD || op == PSGI_FSA_SUBTRACT                            ? kid <= 2
                                                                                         : false;
  bool found = false;
  if (may && kid < e->nkids) psgi_fsa_msgs_get(&w->msgs, e->kids[kid], &found);
  return found;
}

/* One node of the tree with scale s pushed into it, from the results of its
 * tree children (`sub`, NULL where a child is not in the tree). */
static psg_expr *assemble(bwd *w, psg_mutator *m, const psg_expr *e, const psgi_fsa_msg *msg, psg_expr *s,
                          psg_expr *const sub[2]) {
  psgi_built *b = &w->b;
  switch (psgi_fsa_op(e)) {
  case PSGI_FSA_CONV2D:
  case PSGI_FSA_CONV3D:
  case PSGI_FSA_DENSE: return e->nkids == 3 ? scale_layer(w, m, e, s) : NULL;
  case PSGI_FSA_RELU:
  case PSGI_FSA_LEAKY_RELU: return sub[0] ? psgi_fsa_call_like(b, e, sub, 1) : NULL;
  case PSGI_FSA_BIAS_ADD: {
    if (!sub[0] || e->nkids != 3) return NULL;
    psg_expr *bias = psgi_build_call_typed(b, "multiply", (psg_expr *[]){psg_mutator_get_result(m, e->kids[2]), s}, 2, NULL);
    return psgi_fsa_call_like(b, e, (psg_expr *[]){sub[0], bias}, 2);
  }
  case PSGI_FSA_ADD:
  case PSGI_FSA_SUBTRACT: {
    if (e->nkids != 3 || (!sub[0] && !sub[1])) return NULL;
    psg_expr *args[2] = {sub[0], sub[1]};
    if (!sub[0] || !sub[1]) {
      /* (x op y) * s = x*s op y*s: the side outside the tree is multiplied,
       * s shaped after the side in it. */
      int in = sub[0] ? 0 : 1;
      const psg_type *t = psgi_tensor_type_of(e->kids[1 + in]);
      psg_expr *sc = t ? psgi_fsa_reshape_or_expand(b, s, t, msg) : NULL;
      if (!sc) return NULL;
      args[1 - in] = psgi_build_call_typed(b, "multiply", (psg_expr *[]){psg_mutator_get_result(m, e->kids[2 - in]), sc}, 2, NULL);
    }
    return psgi_fsa_call_like(b, e, args, 2);
  }
  default: return NULL;
  }
}

/* `root` (a node with message `msg`) with scale s pushed into it: a walk of
 * its tree, children built first (explicit stack). NULL with b->status OK
 * when a reshape of s cannot be made: the multiply then stays. */
static psg_expr *push_scale(bwd *w, psg_mutator *m, const psg_expr *root, const psgi_fsa_msg *msg, psg_expr *s) {
  typedef struct node {
    const psg_expr *e;
    uint32_t next;  /* the next kid to consider (1, 2) */
    size_t parent;  /* index in the stack, SIZE_MAX for the root */
    int side;       /* which of the parent's sub[] this fills */
    psg_expr *sub[2];
  } node;
  PSGI_VEC(node) st = {0};
  psg_expr *result = NULL;
  if (!PSGI_VEC_PUSH(w->ctx, &st, ((node){root, 1, SIZE_MAX, 0, {NULL, NULL}}))) goto nomem;
  while (st.len && !w->b.status) {
    size_t top = st.len - 1;
    node *nd = &st.data[top];
    if (nd->next <= 2) {
      uint32_t kid = nd->next++;
      if (in_tree(w, nd->e, kid) &&
          !PSGI_VEC_PUSH(w->ctx, &st, ((node){nd->e->kids[kid], 1, top, (int)kid - 1, {NULL, NULL}})))
        goto nomem;
      continue;
    }
    psg_expr *r = assemble(w, m, nd->e, msg, s, nd->sub);
    size_t parent = nd->parent;
    int side = nd->side;
    st.len--;
    if (!r || parent == SIZE_MAX) {
      result = r;
      break;
    }
    st.data[parent].sub[side] = r;
  }
  PSGI_VEC_FREE(w->ctx, &st);
  return w->b.status ? NULL : result;
nomem:
  PSGI_VEC_FREE(w->ctx, &st);
  if (!w->b.status) w->b.status = psgi_nomem(w->ctx);
  return NULL;
}

static psg_status transform_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  bwd *w = m->user;
  psg_status st = psgi_fsa_typed_default(m, e, out);
  if (st || psgi_fsa_op(e) != PSGI_FSA_MULTIPLY || e->nkids != 3) return st;
  psgi_built *b = &w->b;
  bool found[2];
  psgi_fsa_msg lm = psgi_fsa_msgs_get(&w->msgs, e->kids[1], &found[0]);
  psgi_fsa_msg rm = psgi_fsa_msgs_get(&w->msgs, e->kids[2], &found[1]);
  const psg_type *tl = psgi_tensor_type_of(e->kids[1]), *tr = psgi_tensor_type_of(e->kids[2]);
  psg_expr *done = NULL;
  /* The scale is the original expression (TVM does not rewrite inside it). */
  if (found[0]) {
    psg_expr *s = e->kids[2];
    if (lm.n && psgi_fsa_is_constant(s) && psgi_fsa_match_left(b, tl, tr, &lm, &s) &&
        (!lm.positive || psgi_fsa_all_positive(s)))
      done = push_scale(w, m, e->kids[1], &lm, s);
  } else if (found[1]) {
    psg_expr *s = e->kids[1];
    if (rm.n && psgi_fsa_is_constant(s) && psgi_fsa_match_left(b, tr, tl, &rm, &s) &&
        (!rm.positive || psgi_fsa_all_positive(s)))
      done = push_scale(w, m, e->kids[2], &rm, s);
  }
  st = b->status;
  if (!st && done) {
    psg_expr_release(*out);
    *out = psgi_built_keep(b, done);
  }
  return st;
}

psg_status psgi_fsa_backward(psg_expr *func, psg_expr **out) {
  bool maybe = true;
  if (!psgi_fsa_exhaustive) {
    psg_status st = psgi_fsa_scan(func, false, &maybe);
    if (st) return st;
  }
  if (!maybe) return psgi_fsa_rewrite(func, false, NULL, NULL, out); /* nothing to fold: func itself */
  bwd w = {.ctx = func->ctx};
  psgi_built_init(&w.b, func->ctx, psgi_expr_span_ref(func));
  w.b.final_types = true;
  psgi_fsa_msgs_init(&w.msgs, w.ctx);
  psgi_map_init(&w.users, w.ctx);
  psgi_map_reserve(&w.users, psgi_expr_size_hint(func)); /* sized by the last walk (a hint) */
  bool any = false;
  psg_status st = prepare(&w, func, &any);
  if (!st) st = psgi_fsa_rewrite(func, any, &w, transform_call, out);
  psgi_map_fini(&w.users);
  psgi_fsa_msgs_fini(&w.msgs, w.ctx);
  psgi_built_fini(&w.b);
  return st;
}
