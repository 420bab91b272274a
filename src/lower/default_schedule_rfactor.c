/* Passage — the default schedule of a lane-split sum (te_nn.c: dense with
 * both operands contiguous in k, a long-row conv2d over few outputs): the
 * stage "<name>_rf" over [spatial..., lane] sums over its reduce axes
 * (the last, ko, steps k by the lane count). The reduction loops go
 * outside the lane loop, which is vectorized, so each step is one
 * contiguous vector load of each operand and one FMA into a lane vector
 * (TVM's rfactor of the reduction axis, partial sums in a vector); the
 * last spatial loop is split by up to 4 and its inner part put inside the
 * reduction, so 4 rows share each load of the other operand (dense's x row)
 * in 4 independent vector sums; the init is its own nest
 * (decompose_reduction), the outer spatial loops fused and parallel. The
 * stage "<name>" adds the lanes (the generic reduction nest). */
#include "lower/default_schedule.h"
#include "tir/schedule/schedule_internal.h"
#include <string.h>

enum { ROWS = 4 };

static bool is_lane_stage(const psgi_dsch_stage *g) {
  size_t n = strlen(g->buffer);
  return g->reduction && n > 3 && !strcmp(g->buffer + n - 3, "_rf");
}

bool psgi_dsch_has_lane_split(const psgi_dsch *d) {
  for (size_t i = 0; i < d->stages.len; i++)
    if (is_lane_stage(&d->stages.data[i]) && !strcmp(d->stages.data[i].op, d->stages.data[d->anchor].op)) return true;
  return false;
}

static psg_status tile_lanes(psgi_dsch *d, const char *stage) {
  psg_tir_expr **loops = NULL, *rows[2] = {NULL, NULL}, *fused = NULL;
  size_t n = 0, lane = 0, np = 0;
  psgi_sch_split_plan plan;
  psg_status st = psgi_dsch_guard_init(d, stage);
  if (!st) st = psgi_dsch_loops(d, stage, &loops, &n);
  while (!st && lane < n && strcmp(loops[lane]->u.var.name, "lane")) lane++;
  if (!st && (lane == 0 || lane + 1 >= n)) st = PSG_ERR_INVALID_ARGUMENT; /* not the lane-split form */
  if (st) goto done;
  psg_tir_expr *last = loops[lane - 1];
  int64_t ext = psgi_dsch_extent(d, last), f = psgi_dsch_factor(ext, ROWS);
  if (f > 1 && f < ext) { /* prepared: applied with the reorder (psgi_sch_split_reorder) */
    int64_t factors[2] = {0, f};
    st = psgi_sch_split_prepare(d->s, last, factors, 2, &plan);
    if (!st) np = 1, psg_tir_retain(rows[0] = plan.vars[0]), psg_tir_retain(rows[1] = plan.vars[1]);
  } else {
    psg_tir_retain(last);
    rows[f == ext ? 1 : 0] = last;
  }
  if (st) goto done;
  /* spatial before the row tile, the row tile's outer part, the
   * reductions, the row tile's inner part, the lanes */
  psg_tir_expr *order[PSG_MAX_RANK + 4];
  size_t k = 0;
  if (n > PSG_MAX_RANK + 1) {
    st = PSG_ERR_INVALID_ARGUMENT;
    goto done;
  }
  for (size_t i = 0; i + 1 < lane; i++) order[k++] = loops[i];
  if (rows[0]) order[k++] = rows[0];
  size_t npar = k;
  for (size_t i = lane + 1; i < n; i++) order[k++] = loops[i];
  if (rows[1]) order[k++] = rows[1];
  order[k++] = loops[lane];
  st = psgi_sch_split_reorder(d->s, &plan, np, order, k);
  if (!st) st = psg_tir_schedule_decompose_reduction(d->s, stage, loops[lane + 1], NULL);
  if (!st) st = psg_tir_schedule_vectorize(d->s, loops[lane]);
  if (!st) st = psgi_dsch_vectorize_init(d, loops[lane]);
  if (!st && npar > 1) st = psg_tir_schedule_fuse(d->s, order, npar, &fused);
  if (!st && npar > 0) st = psgi_dsch_parallel(d, fused ? fused : order[0]);
done:
  if (np) psgi_sch_split_plan_fini(&plan);
  psg_tir_release(rows[0]);
  psg_tir_release(rows[1]);
  psg_tir_release(fused);
  psgi_dsch_loops_free(loops, n);
  return st;
}

psg_status psgi_dsch_lane_split(psgi_dsch *d, const char **kind) {
  const psgi_dsch_stage *a = &d->stages.data[d->anchor];
  *kind = !strcmp(a->op, "nn.conv2d") ? "conv2d_lanes" : "matmul_lanes";
  psg_status st = psgi_dsch_inline_all(d, NULL);
  for (size_t i = 0; !st && i < d->stages.len; i++) {
    psgi_dsch_stage *g = &d->stages.data[i];
    if (!is_lane_stage(g) || g->done) continue;
    st = tile_lanes(d, g->buffer);
    g->done = true;
  }
  return st;
}
