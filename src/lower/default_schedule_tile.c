/* Passage — the register tile the conv2d and dense families share: the
 * stage's accumulators moved into a local array under the loop outside its
 * reductions (cache_write_at), the tile's rows unrolled and its vector axis
 * vectorized, so the C compiler keeps the tile in vector registers. */
#include "lower/default_schedule.h"
#include "tir/tir_internal.h"
#include <stdio.h>
#include <string.h>

psg_status psgi_dsch_local_tile(psgi_dsch *d, void *arg) {
  psgi_dsch_tile *tl = arg;
  psg_status st = psg_tir_schedule_cache_write_at(d->s, tl->stage, tl->at, "local", NULL);
  if (st) return st;
  if (tl->rows && tl->vec) {
    st = psg_tir_schedule_unroll(d->s, tl->rows);
    if (!st) st = psgi_dsch_unroll_init(d, tl->rows);
  }
  psg_tir_expr **loops = NULL;
  size_t n = 0;
  if (!st) st = psgi_dsch_loops(d, tl->stage, &loops, &n);
  /* the copy's own loops come after tl->at */
  size_t at = n;
  for (size_t i = 0; !st && i < n; i++)
    if (loops[i] == tl->at) at = i;
  char vname[16];
  snprintf(vname, sizeof vname, "ax%d", tl->vec_dim);
  for (size_t i = at + 1; !st && i < n; i++) {
    bool is_vec = tl->vec && i + 1 == n && !strcmp(loops[i]->u.var.name, vname);
    st = is_vec ? psg_tir_schedule_vectorize(d->s, loops[i]) : tl->vec ? psg_tir_schedule_unroll(d->s, loops[i]) : PSG_OK;
  }
  psgi_dsch_loops_free(loops, n);
  return st;
}
