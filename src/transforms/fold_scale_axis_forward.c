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

static psg_status send(fwd *f, const psg_expr *e, psgi_fsa_msg m) { return psgi_fsa_msgs_put(&f->msgs, f->ctx, e, m, true); }

/* What call `e` asks of its arguments, given what is asked of it. */
static psg_status prep_call(fwd *f, const psg_expr *e) {
  psgi_fsa_msg out = psgi_fsa_msgs_get(&f->msgs, e, NULL), none = {0};
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
  psg_status st = PSG_OK;
  for (uint32_t i = 1; i < e->nkids && !st; i++) st = send(f, e->kids[i], i <= 2 ? in[i - 1] : none);
  return st;
}

/* Post-order of the graph (composite functions kept whole), then the
 * requests from the root down: every parent is done before its children. */
static psg_status prepare(fwd *f, const psg_expr *root, bool *any) {
  PSGI_VEC(const psg_expr *) order = {0};
  PSGI_VEC(struct frame { const psg_expr *e; uint32_t next; }) stack = {0};
  psgi_map seen;
  psgi_map_init(&seen, f->ctx);
  psgi_map_reserve(&seen, psgi_expr_size_hint(root)); /* sized by the last walk (a hint) */
  psg_status st = PSG_OK;
  if (!psgi_map_put_ptr(&seen, root, NULL) || !PSGI_VEC_PUSH(f->ctx, &stack, ((struct frame){root, 0})))
    st = psgi_nomem(f->ctx);
  while (!st && stack.len) {
    struct frame *fr = &stack.data[stack.len - 1];
    const psg_expr *e = fr->e;
    if (fr->next < e->nkids && !psgi_is_composite_fn(e)) {
      const psg_expr *k = e->kids[fr->next++];
      bool is_new = false;
      if (!psgi_map_put_ptr(&seen, k, &is_new)) st = psgi_nomem(f->ctx);
      else if (is_new && !PSGI_VEC_PUSH(f->ctx, &stack, ((struct frame){k, 0}))) st = psgi_nomem(f->ctx);
      continue;
    }
    stack.len--;
    if (!PSGI_VEC_PUSH(f->ctx, &order, e)) st = psgi_nomem(f->ctx);
  }
  psgi_fsa_msg none = {0};
  if (!st) st = send(f, root, none);
  for (size_t i = order.len; i-- > 0 && !st;) {
    const psg_expr *e = order.data[i];
    if (e->kind == PSG_EXPR_CALL) st = prep_call(f, e);
    else if (!psgi_is_composite_fn(e))
      for (uint32_t k = 0; k < e->nkids && !st; k++) st = send(f, e->kids[k], none);
  }
  *any = false;
  for (size_t i = 0; i < f->msgs.pool.len && !*any; i++) *any = f->msgs.pool.data[i].defined;
  PSGI_VEC_FREE(f->ctx, &order);
  PSGI_VEC_FREE(f->ctx, &stack);
  psgi_map_fini(&seen);
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
