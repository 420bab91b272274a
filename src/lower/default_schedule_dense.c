/* Passage — the default schedule of dense, matmul and batch_matmul (TVM's
 * x86 dense_nopack / batch_matmul schedules in spirit): a register tile of
 * the output, i and j split, the reduction loop k outside the tile, the
 * tile's j vectorized, the init as its own nest before k
 * (decompose_reduction), the outer tile loops (and the batch) fused and
 * parallel. Each output element still sums k in order: bit-exact. */
#include "lower/default_schedule.h"
#include <string.h>

/* Tile sizes: rows up to 4, columns up to 16 (a vector register of float32
 * on AVX-512, TVM's injective factor), both dividing the extents. */
enum { TILE_I = 4, TILE_J = 16 };

static psg_status tile(psgi_dsch *d, const char *stage) {
  psg_tir_expr **loops = NULL, *io[2] = {NULL, NULL}, *jo[2] = {NULL, NULL}, *fused = NULL;
  size_t n = 0;
  psg_status st = psgi_dsch_guard_init(d, stage);
  if (!st) st = psgi_dsch_loops(d, stage, &loops, &n);
  if (!st && n < 3) st = PSG_ERR_INVALID_ARGUMENT; /* a 1-D product: the generic reduction */
  if (st) goto done;
  /* loops: batch..., i, j, k */
  size_t nb = n - 3;
  psg_tir_expr *i = loops[nb], *j = loops[nb + 1], *k = loops[nb + 2];
  int64_t fi = psgi_dsch_factor(psgi_dsch_extent(d, i), TILE_I), fj = psgi_dsch_vec_factor(psgi_dsch_extent(d, j), TILE_J);
  int64_t si[2] = {0, fi}, sj[2] = {0, fj};
  if (!(st = psg_tir_schedule_split(d->s, i, si, 2, io))) st = psg_tir_schedule_split(d->s, j, sj, 2, jo);
  psg_tir_expr *order[5] = {io[0], jo[0], k, io[1], jo[1]};
  if (!st) st = psg_tir_schedule_reorder(d->s, order, 5);
  if (!st) st = psg_tir_schedule_decompose_reduction(d->s, stage, k, NULL);
  if (!st && fj > 1) st = psg_tir_schedule_vectorize(d->s, jo[1]);
  if (!st && fj > 1) st = psgi_dsch_vectorize_init(d, jo[1]);
  /* batch and the outer tile loops: one parallel loop */
  psg_tir_expr *outer[PSG_MAX_RANK + 2];
  for (size_t b = 0; b < nb && b < PSG_MAX_RANK; b++) outer[b] = loops[b];
  outer[nb] = io[0];
  outer[nb + 1] = jo[0];
  if (!st) st = psg_tir_schedule_fuse(d->s, outer, nb + 2, &fused);
  if (!st) st = psgi_dsch_parallel(d, fused);
done:
  for (int x = 0; x < 2; x++) psg_tir_release(io[x]), psg_tir_release(jo[x]);
  psg_tir_release(fused);
  psgi_dsch_loops_free(loops, n);
  return st;
}

psg_status psgi_dsch_matmul(psgi_dsch *d, const char **kind) {
  psgi_dsch_stage *a = &d->stages.data[d->anchor];
  if (!a->reduction) return PSG_ERR_INVALID_ARGUMENT;
  *kind = !strcmp(a->op, "nn.batch_matmul") ? "batch_matmul" : !strcmp(a->op, "nn.matmul") ? "matmul" : "dense";
  psg_status st = psgi_dsch_inline_all(d, NULL);
  if (!st) st = tile(d, a->buffer);
  a->done = true;
  return st;
}
