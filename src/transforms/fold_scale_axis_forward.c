/* Passage — ForwardFoldScaleAxis (see fold_scale_axis.c), TVM's two steps:
 *
 * Prepare, consumers to producers: each conv2d/conv3d/dense asks its data
 * for a scale along its input channels; relu/leaky_relu pass the request on
 * (the scale must then be non-negative), add/subtract pass it to the side
 * that keeps the full shape when the other broadcasts along those axes;
 * every other use asks for nothing. A node's requests are intersected, so
 * one use that cannot take a scale (exp(x) next to conv2d(x, w)) stops it.
 *
 * Rewrite, producers to consumers: a requested multiply(x, s) becomes "x,
 * scaled by s" (s squeezed to the channel axes); relu passes it, add/sub
 * divide their other term by it; the conv or dense consuming it multiplies
 * its weight by s instead. Every node also keeps its plain rewrite, which a
 * consumer that takes no scale uses. */
#include "transforms/fold_scale_axis.h"

#include "ops/op_impl.h"
#include "transforms/transforms.h"

/* A value carrying an outstanding scale (TVM's ScaledExpr). */
typedef struct scaled {
  psg_expr *value, *scale; /* built, owned by the run's scope */
  psgi_fsa_msg axes;
} scaled;

typedef struct fwd {
  psg_ctx *ctx;
  psgi_built b;
  psgi_fsa_msgs msgs;
  psgi_map at; /* original node -> 1 + index into recs */
  PSGI_VEC(scaled) recs;
} fwd;

static const scaled *scaled_of(const fwd *f, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&f->at, e);
  return en ? &f->recs.data[(uintptr_t)en->value - 1] : NULL;
}

static psg_status put_scaled(fwd *f, const psg_expr *e, scaled s) {
  if (!s.value || !s.scale) return f->b.status;
  psgi_map_entry *en = psgi_map_put_ptr(&f->at, e, NULL);
  if (!en || !PSGI_VEC_PUSH(f->ctx, &f->recs, s)) return psgi_nomem(f->ctx);
  en->value = (void *)(uintptr_t)f->recs.len;
  return PSG_OK;
}

/* Prepare ------------------------------------------------------------------------ */

/* The prepare walk's graph: nodes numbered in post-order, each with the
 * numbers of its walked children and the request made of it so far. Every
 * request goes to a child by number, so only the walk itself looks nodes up
 * (once per edge, in its visited map); the rewrite reads the requests of
 * multiplies alone, which prepare copies into f->msgs. */
typedef struct prep_node {
  const psg_expr *e;
  uint32_t kid_base; /* its children's numbers start at kids[kid_base] */
  bool asked;        /* a request has been stored (then `msg` intersects the next) */
  psgi_fsa_msg msg;
} prep_node;

typedef struct prep_graph {
  PSGI_VEC(prep_node) nodes;
  PSGI_VEC(uint32_t) kids;
} prep_graph;

static void send(prep_graph *g, uint32_t i, psgi_fsa_msg m) {
  prep_node *n = &g->nodes.data[i];
  n->msg = n->asked ? psgi_fsa_intersect(n->msg, m) : m;
  n->asked = true;
}

/* What call `e` (node i) asks of its arguments, given what is asked of it. */
static void prep_call(fwd *f, prep_graph *g, uint32_t i) {
  const psg_expr *e = g->nodes.data[i].e;
  psgi_fsa_msg out = g->nodes.data[i].msg, none = {0};
  psgi_fsa_msg in[2] = {none, none};
  const psg_type *tl = e->nkids > 1 ? psgi_tensor_type_of(e->kids[1]) : NULL;
  const psg_type *tr = e->nkids > 2 ? psgi_tensor_type_of(e->kids[2]) : NULL;
  switch (psgi_fsa_op(e)) {
  case PSGI_FSA_RELU:
  case PSGI_FSA_LEAKY_RELU:
    in[0] = out;
    in[0].positive |= out.defined;
    break;
  case PSGI_FSA_ADD:
  case PSGI_FSA_SUBTRACT:
    if (out.defined && out.n && e->nkids == 3) {
      if (psgi_fsa_match_left(&f->b, tl, tr, &out, NULL)) in[0] = out;
      else if (psgi_fsa_match_left(&f->b, tr, tl, &out, NULL)) in[1] = out;
    }
    break;
  case PSGI_FSA_CONV2D:
  case PSGI_FSA_CONV3D: in[0] = psgi_fsa_conv_msg(e, false); break;
  case PSGI_FSA_DENSE:
    /* TVM asks for axis 1, the input units of a 2-D data only. */
    if (tl && tl->n == 2) in[0] = (psgi_fsa_msg){true, false, 1, {1}};
    break;
  default: break;
  }
  const uint32_t *kid = g->kids.data + g->nodes.data[i].kid_base;
  for (uint32_t k = 1; k < e->nkids; k++) send(g, kid[k], k <= 2 ? in[k - 1] : none);
}

/* Numbers the graph in post-order (composite functions kept whole: their
 * children are not walked). A node's entry in `seen` holds its number + 1
 * once it has one; `slots` the entries of the children met so far (a node's
 * are the last nkids when it is done, its children having popped theirs). */
typedef struct frame {
  const psg_expr *e;
  uint32_t next, slot;
} frame;

static psg_status number(fwd *f, const psg_expr *root, prep_graph *g) {
  PSGI_VEC(frame) stack = {0};
  PSGI_VEC(uint32_t) slots = {0};
  psgi_map seen;
  psgi_map_init(&seen, f->ctx);
  psgi_map_reserve(&seen, psgi_expr_size_hint(root)); /* sized by the last walk (a hint) */
  psg_status st = PSG_OK;
  psgi_map_entry *en = psgi_map_put_ptr(&seen, root, NULL);
  if (!en || !PSGI_VEC_PUSH(f->ctx, &stack, ((frame){root, 0, 0}))) st = psgi_nomem(f->ctx);
  while (!st && stack.len) {
    frame *fr = &stack.data[stack.len - 1];
    const psg_expr *e = fr->e;
    bool walked = !psgi_is_composite_fn(e);
    if (fr->next < e->nkids && walked) {
      const psg_expr *k = e->kids[fr->next++];
      bool is_new = false;
      if (!(en = psgi_map_put_ptr(&seen, k, &is_new))) {
        st = psgi_nomem(f->ctx);
        break;
      }
      uint32_t slot = (uint32_t)(en - seen.entries);
      if (!PSGI_VEC_PUSH(f->ctx, &slots, slot) ||
          (is_new && !PSGI_VEC_PUSH(f->ctx, &stack, ((frame){k, 0, slot}))))
        st = psgi_nomem(f->ctx);
      continue;
    }
    uint32_t slot = fr->slot, nk = walked ? e->nkids : 0;
    stack.len--;
    if (g->nodes.len >= UINT32_MAX - 1 || g->kids.len + nk >= UINT32_MAX) {
      st = psg_ctx_fail(f->ctx, PSG_ERR_UNSUPPORTED, "FoldScaleAxis: too many nodes");
      break;
    }
    prep_node n = {e, (uint32_t)g->kids.len, false, {0}};
    if (!PSGI_VEC_PUSH(f->ctx, &g->nodes, n) || !PSGI_VEC_RESERVE(f->ctx, &g->kids, g->kids.len + nk)) {
      st = psgi_nomem(f->ctx);
      break;
    }
    for (uint32_t k = 0; k < nk; k++)
      g->kids.data[g->kids.len++] = (uint32_t)((uintptr_t)seen.entries[slots.data[slots.len - nk + k]].value - 1);
    slots.len -= nk;
    seen.entries[slot].value = (void *)(uintptr_t)g->nodes.len;
  }
  PSGI_VEC_FREE(f->ctx, &stack);
  PSGI_VEC_FREE(f->ctx, &slots);
  psgi_map_fini(&seen);
  return st;
}

/* The requests from the root down (reverse post-order: every user is done
 * before its children). */
static psg_status prepare(fwd *f, const psg_expr *root, bool *any) {
  prep_graph g = {0};
  psg_status st = number(f, root, &g);
  psgi_fsa_msg none = {0};
  if (!st) send(&g, (uint32_t)g.nodes.len - 1, none); /* the root, last in post-order */
  for (size_t i = g.nodes.len; i-- > 0 && !st;) {
    const prep_node *n = &g.nodes.data[i];
    if (n->e->kind == PSG_EXPR_CALL) {
      prep_call(f, &g, (uint32_t)i);
      st = f->b.status;
    } else {
      for (uint32_t k = 0; k < n->e->nkids && !psgi_is_composite_fn(n->e); k++)
        send(&g, g.kids.data[n->kid_base + k], none);
    }
  }
  /* Only a requested multiply by a constant starts a rewrite (rewrite_call:
   * every scaled value comes from one, and a node with no scaled operand
   * keeps its plain rewrite, itself while nothing below it changed), so when
   * no multiply passes this test the rewrite would return the function
   * unchanged and is skipped. The rewrite reads the multiplies' requests. */
  *any = false;
  for (size_t i = 0; !st && i < g.nodes.len; i++) {
    const prep_node *n = &g.nodes.data[i];
    const psg_expr *e = n->e;
    if (psgi_fsa_op(e) != PSGI_FSA_MULTIPLY || e->nkids != 3 || !n->msg.defined) continue;
    st = psgi_fsa_msgs_put(&f->msgs, f->ctx, e, n->msg, false);
    *any |= n->msg.n && (psgi_fsa_is_constant(e->kids[2]) || psgi_fsa_is_constant(e->kids[1]));
  }
  PSGI_VEC_FREE(f->ctx, &g.nodes);
  PSGI_VEC_FREE(f->ctx, &g.kids);
  return st;
}

/* Rewrite ------------------------------------------------------------------------- */

/* conv(x scaled by s, w) -> conv(x, w * s) with s along w's input channels
 * (its output channels for a depthwise conv). */
static psg_expr *rewrite_conv(fwd *f, const psg_expr *e, const scaled *sd, psg_expr *w) {
  psgi_built *b = &f->b;
  bool dw = psgi_fsa_is_depthwise(e);
  if (psgi_attr_int(e->u.attrs, "groups", 1) != 1 && !dw) return NULL;
  int big, small, ndim;
  if (!psgi_fsa_kernel_axes(e, dw, &big, &small, &ndim)) return NULL;
  psg_expr *s;
  if (small < 0) {
    s = psgi_fsa_expand_bias(b, sd->scale, ndim, &big, 1);
  } else {
    const psg_type *wt = psgi_tensor_type_of(e->kids[2]);
    s = wt ? psgi_fsa_reshape_to_axes(b, sd->scale, wt, (int[]){big, small}, 2) : NULL;
  }
  psg_expr *nw = psgi_build_call_typed(b, "multiply", (psg_expr *[]){w, s}, 2, NULL);
  return psgi_fsa_call_like(b, e, (psg_expr *[]){sd->value, nw}, 2);
}

static psg_status rewrite_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  fwd *f = m->user;
  psg_status st = psgi_fsa_typed_default(m, e, out);
  int op = psgi_fsa_op(e);
  if (st || op < 0 || e->nkids < 2) return st;
  psgi_built *b = &f->b;
  const scaled *s0 = scaled_of(f, e->kids[1]), *s1 = e->nkids > 2 ? scaled_of(f, e->kids[2]) : NULL;
  psg_expr *a0 = psg_mutator_get_result(m, e->kids[1]);
  psg_expr *a1 = e->nkids > 2 ? psg_mutator_get_result(m, e->kids[2]) : NULL;
  const psg_type *tl = psgi_tensor_type_of(e->kids[1]), *tr = e->nkids > 2 ? psgi_tensor_type_of(e->kids[2]) : NULL;
  psg_expr *done = NULL; /* a consumer's rewrite, replacing *out */
  switch (op) {
  case PSGI_FSA_RELU:
  case PSGI_FSA_LEAKY_RELU:
    if (s0) st = put_scaled(f, e, (scaled){psgi_fsa_call_like(b, e, (psg_expr *[]){s0->value}, 1), s0->scale, s0->axes});
    break;
  case PSGI_FSA_ADD:
  case PSGI_FSA_SUBTRACT: {
    if (e->nkids != 3 || (s0 != NULL) == (s1 != NULL)) break;
    /* (x*s) op y = (x op y/s) * s, s reshaped to broadcast against y. */
    const scaled *sc = s0 ? s0 : s1;
    if (!psgi_fsa_match_left(b, s0 ? tl : tr, s0 ? tr : tl, &sc->axes, NULL)) break;
    psg_expr *div = psgi_fsa_reshape_or_expand(b, sc->scale, s0 ? tl : tr, &sc->axes);
    if (!div) break; /* an extent not known: the plain rewrite */
    psg_expr *other = psgi_build_call_typed(b, "divide", (psg_expr *[]){s0 ? a1 : a0, div}, 2, NULL);
    psg_expr *v = psgi_fsa_call_like(b, e, s0 ? (psg_expr *[]){s0->value, other} : (psg_expr *[]){other, s1->value}, 2);
    st = put_scaled(f, e, (scaled){v, sc->scale, sc->axes});
    break;
  }
  case PSGI_FSA_MULTIPLY: {
    psgi_fsa_msg want = psgi_fsa_msgs_get(&f->msgs, e, NULL);
    if (!want.defined || !want.n || e->nkids != 3 || s0 || s1) break;
    psg_expr *r = a1, *l = a0;
    if (psgi_fsa_is_constant(a1) && psgi_fsa_match_left(b, tl, tr, &want, &r) &&
        (!want.positive || psgi_fsa_all_positive(r)))
      st = put_scaled(f, e, (scaled){a0, r, want});
    else if (!b->status && psgi_fsa_is_constant(a0) && psgi_fsa_match_left(b, tr, tl, &want, &l) &&
             (!want.positive || psgi_fsa_all_positive(l)))
      st = put_scaled(f, e, (scaled){a1, l, want});
    break;
  }
  case PSGI_FSA_CONV2D:
  case PSGI_FSA_CONV3D:
    if (s0 && !s1 && e->nkids == 3) done = rewrite_conv(f, e, s0, a1);
    break;
  case PSGI_FSA_DENSE:
    if (s0 && !s1 && e->nkids == 3) {
      psg_expr *nw = psgi_build_call_typed(b, "multiply", (psg_expr *[]){a1, s0->scale}, 2, NULL);
      done = psgi_fsa_call_like(b, e, (psg_expr *[]){s0->value, nw}, 2);
    }
    break;
  default: break;
  }
  if (!st) st = b->status;
  if (!st && done) {
    psg_expr_release(*out);
    *out = psgi_built_keep(b, done);
  }
  return st;
}

psg_status psgi_fsa_forward(psg_expr *func, psg_expr **out) {
  bool maybe = true;
  if (!psgi_fsa_exhaustive) {
    psg_status st = psgi_fsa_scan(func, true, &maybe);
    if (st) return st;
  }
  if (!maybe) return psgi_fsa_rewrite(func, false, NULL, NULL, out); /* nothing to fold: func itself */
  fwd f = {.ctx = func->ctx};
  psgi_built_init(&f.b, func->ctx, psgi_expr_span_ref(func));
  f.b.final_types = true;
  psgi_fsa_msgs_init(&f.msgs, f.ctx);
  psgi_map_init(&f.at, f.ctx);
  bool any = false;
  psg_status st = prepare(&f, func, &any);
  if (!st) st = psgi_fsa_rewrite(func, any, &f, rewrite_call, out);
  PSGI_VEC_FREE(f.ctx, &f.recs);
  psgi_map_fini(&f.at);
  psgi_fsa_msgs_fini(&f.msgs, f.ctx);
  psgi_built_fini(&f.b);
  return st;
}
