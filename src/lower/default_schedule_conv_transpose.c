/* Passage — the default schedule of conv2d_transpose in sub-pixel form
 * (te_nn.c): the stage "conv2d_transpose_parity" over [n, o, py, px, qy, qx]
 * is a stride-1 convolution per output parity, scheduled as one: the
 * output channel split into a tile of up to 4 rows, qx split by a power of
 * two up to 16, the reduction loops (rc, ry, rx, in their order) outside the
 * tile (o_inner, qx_inner) whose qx part is vectorized and whose
 * accumulators are a local array (registers, psgi_dsch_local_tile), the init
 * its own nest before rc (decompose_reduction), the loops up to qy fused and
 * parallel. The
 * consumers are inlined into the output stage that interleaves the
 * parities (TVM's schedule_injective). The dilated form, a guarded gather,
 * keeps the generic reduction schedule. */
#include "lower/default_schedule.h"
#include "tir/schedule/schedule_internal.h"
#include <string.h>

enum { TILE_ROWS = 4, TILE_VEC = 16 };

static const char PARITY[] = "conv2d_transpose_parity";

/* A split of loop by factor into (outer, inner) unless the factor is 1 or
 * the whole extent: then the loop stays, as the inner part (whole) or
 * the outer part (no factor), the other NULL. New references. The split
 * is only prepared (plans[*np]): the tile applies it with its reorder
 * (psgi_sch_split_reorder). */
static psg_status split_by(psgi_dsch *d, psg_tir_expr *loop, int64_t factor, psg_tir_expr *part[2],
                           psgi_sch_split_plan *plans, size_t *np) {
  int64_t ext = psgi_dsch_extent(d, loop);
  part[0] = part[1] = NULL;
  if (factor > 1 && factor < ext) {
    int64_t factors[2] = {0, factor};
    psg_status st = psgi_sch_split_prepare(d->s, loop, factors, 2, &plans[*np]);
    if (st) return st;
    for (int k = 0; k < 2; k++) psg_tir_retain(part[k] = plans[*np].vars[k]);
    (*np)++;
    return PSG_OK;
  }
  psg_tir_retain(loop);
  part[factor == ext ? 1 : 0] = loop;
  return PSG_OK;
}

static psg_status tile_parity(psgi_dsch *d, const char *stage) {
  psg_tir_expr **loops = NULL, *o[2] = {NULL, NULL}, *q[2] = {NULL, NULL}, *fused = NULL;
  size_t n = 0, np = 0;
  psgi_sch_split_plan plans[2]; /* the splits, applied with the reorder */
  psg_status st = psgi_dsch_guard_init(d, stage);
  if (!st) st = psgi_dsch_loops(d, stage, &loops, &n);
  if (!st && n != 9) st = PSG_ERR_INVALID_ARGUMENT; /* n, o, py, px, qy, qx, rc, ry, rx */
  if (st) goto done;
  st = split_by(d, loops[1], psgi_dsch_factor(psgi_dsch_extent(d, loops[1]), TILE_ROWS), o, plans, &np);
  if (!st) st = split_by(d, loops[5], psgi_dsch_vec_factor(psgi_dsch_extent(d, loops[5]), TILE_VEC), q, plans, &np);
  if (st) goto done;
  psg_tir_expr *order[11];
  size_t k = 0;
  order[k++] = loops[0];
  if (o[0]) order[k++] = o[0];
  order[k++] = loops[2], order[k++] = loops[3], order[k++] = loops[4];
  size_t npar = k;
  if (q[0]) order[k++] = q[0];
  order[k++] = loops[6], order[k++] = loops[7], order[k++] = loops[8];
  if (o[1]) order[k++] = o[1];
  if (q[1]) order[k++] = q[1];
  st = psgi_sch_split_reorder(d->s, plans, np, order, k);
  if (!st) st = psg_tir_schedule_decompose_reduction(d->s, stage, loops[6], NULL);
  if (!st && q[1]) st = psg_tir_schedule_vectorize(d->s, q[1]);
  if (!st && q[1]) st = psgi_dsch_vectorize_init(d, q[1]);
  /* the tile's accumulators in registers (the conv2d family's local tile
   * under the loop outside the reductions): accumulating in the workspace
   * loaded and stored the output vector around every FMA */
  size_t nout = k - 3 - (o[1] != NULL) - (q[1] != NULL);
  if (!st && nout > 0 && q[1]) {
    psgi_dsch_tile tl = {stage, order[nout - 1], o[1], q[1], 5};
    bool tiled = false;
    st = psgi_dsch_try(d, psgi_dsch_local_tile, &tl, &tiled);
  }
  if (!st) st = psg_tir_schedule_fuse(d->s, order, npar, &fused);
  if (!st) st = psgi_dsch_parallel(d, fused);
done:
  for (size_t x = 0; x < np; x++) psgi_sch_split_plan_fini(&plans[x]);
  for (int x = 0; x < 2; x++) psg_tir_release(o[x]), psg_tir_release(q[x]);
  psg_tir_release(fused);
  psgi_dsch_loops_free(loops, n);
  return st;
}

psg_status psgi_dsch_conv2d_transpose(psgi_dsch *d, const char **kind) {
  psgi_dsch_stage *par = NULL;
  for (size_t i = 0; i < d->stages.len; i++)
    if (d->stages.data[i].reduction && !strncmp(d->stages.data[i].buffer, PARITY, sizeof PARITY - 1))
      par = &d->stages.data[i];
  if (!par) return psgi_dsch_reduce(d, kind);
  *kind = "conv2d_transpose_nchw";
  psg_status st = psgi_dsch_inline_all(d, NULL);
  if (!st) st = tile_parity(d, par->buffer);
  par->done = true;
  return st;
}
