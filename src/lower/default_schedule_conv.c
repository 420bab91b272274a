/* Passage — the default schedule of conv2d, NCHW, NHWC, grouped and
 * depthwise (TVM's x86 conv2d / depthwise schedules in spirit, without the
 * NCHWc packing): the padding a parallel, vectorized stage of its own, the
 * output channel and the output width split (the vector one by a power of
 * two that divides it: a whole register), the reduction loops (rc, ry, rx, in their order) outside a
 * register tile of channel (height for NCHW depthwise) x width whose
 * contiguous axis (width in NCHW, channel in NHWC) is vectorized, its
 * accumulators a local array (cache_write_at) with the rows unrolled, the
 * init as its own nest before rc (decompose_reduction), and the leading
 * loops up to the width fused and parallel. Each output element still sums
 * in (rc, ry, rx) order. */
#include "lower/default_schedule.h"
#include "tir/schedule/schedule_internal.h"
#include <string.h>

/* Tile: up to 4 of the outer axis, up to 16 of the vectorized one. */
enum { TILE_ROWS = 8, TILE_VEC = 16 };

typedef struct chan_find {
  const psg_tir_node *ry;
  psg_tir_expr *const *sp;
  int pos;
} chan_find;

/* The kernel load is the one indexed by the bare ry var; the spatial var
 * it is indexed by, bare, is the output channel's. */
static int chan_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  chan_find *c = v->user;
  if (n->kind != PSG_TIR_BUFFER_LOAD || c->pos >= 0) return PSG_VISIT_CONTINUE;
  size_t ni = psgi_tir_num_indices(n);
  psg_tir_node *const *idx = psgi_tir_indices(n);
  bool has_ry = false;
  for (size_t i = 0; i < ni; i++) has_ry |= idx[i] == c->ry;
  for (size_t i = 0; has_ry && i < ni; i++)
    for (int p = 0; p < 4; p++)
      if (idx[i] == c->sp[p]) c->pos = p;
  return c->pos >= 0 ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE; /* the first such load decides */
}

static psg_status channel_pos(psgi_dsch *d, psg_tir_expr *const *loops, int *pos) {
  chan_find c = {.ry = loops[5], .sp = loops, .pos = -1};
  psg_tir_visitor v = {.pre = chan_pre, .user = &c};
  psg_status st = psg_tir_visit(d->ctx, &v, psg_tir_schedule_get_func(d->s)->kids[0]);
  *pos = c.pos;
  return st ? st : c.pos < 0 ? PSG_ERR_INVALID_ARGUMENT : PSG_OK;
}

/* loop split by a dividing factor up to cap (a power of two first when vec):
 * out[0] outer, out[1] inner; the loop itself is out[0] when no factor
 * divides, out[1] when it fits in the tile whole (the other is NULL). New
 * references. The split is only prepared (plans[*np], psgi_sch_split_plan):
 * tile applies the splits with its reorder (psgi_sch_split_reorder). */
static psg_status split_div(psgi_dsch *d, psg_tir_expr *loop, int64_t cap, bool vec, psg_tir_expr **out,
                            psgi_sch_split_plan *plans, size_t *np) {
  int64_t ext = psgi_dsch_extent(d, loop), f = vec ? psgi_dsch_vec_factor(ext, cap) : psgi_dsch_factor(ext, cap);
  out[0] = out[1] = NULL;
  if (f <= 1 || f == ext) {
    psg_tir_retain(loop);
    out[f == ext ? 1 : 0] = loop;
    return PSG_OK;
  }
  int64_t factors[2] = {0, f};
  psgi_sch_split_plan *p = &plans[*np];
  psg_status st = psgi_sch_split_prepare(d->s, loop, factors, 2, p);
  if (st) return st;
  (*np)++;
  for (int k = 0; k < 2; k++) psg_tir_retain(out[k] = p->vars[k]);
  return PSG_OK;
}

/* dw: a depthwise stage, whose NCHW tile takes its rows from the output
 * height instead of the channels, so the rows share one weight broadcast
 * (each channel has its own input: channel rows would load one input
 * vector per FMA). */
static psg_status tile(psgi_dsch *d, const char *stage, bool dw, bool *nhwc) {
  psg_tir_expr **loops = NULL, *r2[2] = {NULL, NULL}, *v2[2] = {NULL, NULL}, *h2[2] = {NULL, NULL}, *fused = NULL;
  size_t n = 0, np = 0;
  psgi_sch_split_plan plans[3]; /* the splits, applied with the reorder */
  int cpos = -1;
  psg_status st = psgi_dsch_guard_init(d, stage);
  if (!st) st = psgi_dsch_loops(d, stage, &loops, &n);
  if (!st && n != 7) st = PSG_ERR_INVALID_ARGUMENT;
  if (!st) st = channel_pos(d, loops, &cpos);
  if (st) goto done;
  int wpos = cpos == 3 ? 2 : 3;
  *nhwc = cpos > wpos;
  /* the axis that comes last in memory is the vector one; the other of
   * channel and width gives the tile's rows (the height for NCHW depthwise) */
  int vpos = cpos > wpos ? cpos : wpos, rpos = cpos < wpos ? cpos : wpos;
  if (dw && rpos == 1) rpos = 2;
  st = split_div(d, loops[rpos], TILE_ROWS, false, r2, plans, &np);
  if (!st) st = split_div(d, loops[vpos], TILE_VEC, true, v2, plans, &np);
  /* NCHW with channel rows: two output rows per tile (each weight broadcast
   * feeds two vectors: 2 input loads and 8 broadcasts per 16 FMAs, where
   * one row was load-bound at 9 loads per 8 FMAs) */
  bool two_rows = !*nhwc && rpos == 1 && vpos == 3 && r2[1] && v2[1] && psgi_dsch_extent(d, loops[2]) % 2 == 0;
  if (!st && two_rows) st = split_div(d, loops[2], 2, false, h2, plans, &np);
  psg_tir_expr *order[10];
  size_t k = 0, npar = 0;
  if (st) goto done;
  /* NCHW with channel rows: the height outside the channel blocks, so the
   * input rows one output row reads (all its channels) stay in cache for
   * every block of output channels; channel blocks outermost streamed the
   * whole padded input from memory once per block (det: 10 MB x 12) */
  static const int nchw_rows[4] = {0, 2, 1, 3}, natural[4] = {0, 1, 2, 3};
  const int *walk = !*nhwc && rpos == 1 ? nchw_rows : natural;
  for (int q = 0; q < 4; q++) {
    int p = walk[q];
    if (p == wpos && !npar) npar = k; /* loops before the width's outer part */
    psg_tir_expr *l = p == rpos ? r2[0] : p == vpos ? v2[0] : p == 2 && two_rows ? h2[0] : loops[p];
    if (l) order[k++] = l;
  }
  for (size_t r = 4; r < 7; r++) order[k++] = loops[r];
  psg_tir_expr *first = r2[1], *mid = h2[1], *last = v2[1];
  if (first) order[k++] = first;
  if (mid) order[k++] = mid;
  if (last) order[k++] = last;
  st = psgi_sch_split_reorder(d->s, plans, np, order, k);
  if (!st) st = psg_tir_schedule_decompose_reduction(d->s, stage, loops[4], NULL);
  if (!st && last) st = psg_tir_schedule_vectorize(d->s, last);
  if (!st && last) st = psgi_dsch_vectorize_init(d, last);
  /* the tile's accumulators in a local array under the loop outside the
   * reductions (order[nout - 1]), its rows unrolled: registers */
  size_t nout = k - 3 - (first != NULL) - (mid != NULL) - (last != NULL);
  if (!st && nout > 0) {
    psgi_dsch_tile tl = {stage, order[nout - 1], first, last, vpos};
    bool tiled = false;
    st = psgi_dsch_try(d, psgi_dsch_local_tile, &tl, &tiled);
    if (!st && tiled && mid) st = psg_tir_schedule_unroll(d->s, mid);
    if (!st && tiled && mid) st = psgi_dsch_unroll_init(d, mid);
  }
  if (!st && npar > 1) st = psg_tir_schedule_fuse(d->s, order, npar, &fused);
  if (!st) st = psgi_dsch_parallel(d, fused ? fused : order[0]);
done:
  for (size_t i = 0; i < np; i++) psgi_sch_split_plan_fini(&plans[i]);
  for (int x = 0; x < 2; x++) psg_tir_release(r2[x]), psg_tir_release(v2[x]), psg_tir_release(h2[x]);
  psg_tir_release(fused);
  psgi_dsch_loops_free(loops, n);
  return st;
}

psg_status psgi_dsch_conv2d(psgi_dsch *d, const char **kind) {
  psgi_dsch_stage *a = &d->stages.data[d->anchor];
  if (!a->reduction) return PSG_ERR_INVALID_ARGUMENT;
  /* the padding stays a stage of its own, parallel and vectorized as
   * TVM's x86 conv schedules keep data_pad: inlined, its bounds test would
   * scalarize the vector loop of the convolution */
  psg_status st = psgi_dsch_inline_all(d, a->op);
  bool nhwc = false, dw = !strcmp(a->buffer, "DepthwiseConv2d"), grp = !strncmp(a->buffer, "group_", 6);
  if (!st) st = tile(d, a->buffer, dw, &nhwc);
  a->done = true;
  for (size_t i = 0; !st && i < d->stages.len; i++) {
    psgi_dsch_stage *g = &d->stages.data[i];
    if (g->done || g->reduction || g->output || strcmp(g->op, a->op)) continue;
    st = psgi_dsch_injective_nest(d, g->buffer);
    g->done = true;
  }
  *kind = dw    ? (nhwc ? "depthwise_conv2d_nhwc" : "depthwise_conv2d_nchw")
          : grp ? (nhwc ? "group_conv2d_nhwc" : "group_conv2d_nchw")
                : (nhwc ? "conv2d_nhwc" : "conv2d_nchw");
  return st;
}
