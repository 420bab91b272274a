/* Passage — the default schedule of dense, matmul and batch_matmul (TVM's
 * x86 dense_nopack / batch_matmul schedules in spirit): a register tile of
 * the output, i and j split, the reduction loop k outside the tile, the
 * tile's vector axis vectorized, its accumulators a local array
 * (cache_write_at) with the rows unrolled, the init as its own nest before
 * k (decompose_reduction), the outer tile loops (and the batch) fused and
 * parallel. The vector axis is j, unless j has no power-of-two factor of 8
 * or more and an operand is contiguous in i with one (matmul with
 * transpose_a, rec's 40 x 6625 head): then it is i, and j gives the rows.
 * Each output element still sums k in order: bit-exact. */
#include "lower/default_schedule.h"
#include "tir/schedule/schedule_internal.h"
#include <string.h>

/* Tile sizes: up to 8 rows, columns up to 16 (a vector register of float32
 * on AVX-512, TVM's injective factor), both dividing the extents. */
enum { TILE_ROWS = 8, TILE_VEC = 16, MIN_VEC = 8, MAX_ACC = 25 /* of AVX-512's 32 vector registers */ };

typedef struct last_find {
  const psg_tir_node *var;
  bool found;
} last_find;

static int last_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  last_find *f = v->user;
  if (n->kind == PSG_TIR_BUFFER_LOAD && !f->found) {
    size_t ni = psgi_tir_num_indices(n);
    f->found = ni > 0 && psgi_tir_indices(n)[ni - 1] == f->var;
  }
  return PSG_VISIT_CONTINUE;
}

/* Does some load of the function have loop var `var` as its last index
 * (a contiguous vector along that loop)? */
static psg_status contiguous_in(psgi_dsch *d, psg_tir_expr *var, bool *out) {
  last_find f = {var, false};
  psg_tir_visitor v = {.pre = last_pre, .user = &f};
  psg_status st = psg_tir_visit(d->ctx, &v, psg_tir_schedule_get_func(d->s)->kids[0]);
  *out = f.found;
  return st;
}

/* The largest power-of-two factor of extent up to TILE_VEC (1 if below 4). */
static int64_t pow2_factor(int64_t extent) {
  for (int64_t f = TILE_VEC; f >= 4; f /= 2)
    if (extent > 0 && extent % f == 0) return f;
  return 1;
}

static psg_status tile(psgi_dsch *d, const char *stage) {
  psg_tir_expr **loops = NULL, *io[2] = {NULL, NULL}, *jo[2] = {NULL, NULL}, *vm = NULL, *fused = NULL;
  size_t n = 0, np = 0;
  psgi_sch_split_plan plans[2]; /* the splits of the rows' and the vector loop */
  psg_status st = psgi_dsch_guard_init(d, stage);
  if (!st) st = psgi_dsch_loops(d, stage, &loops, &n);
  if (!st && n < 3) st = PSG_ERR_INVALID_ARGUMENT; /* a 1-D product: the generic reduction */
  if (st) goto done;
  /* loops: batch..., i, j, k */
  size_t nb = n - 3;
  psg_tir_expr *i = loops[nb], *j = loops[nb + 1], *k = loops[nb + 2];
  int64_t ei = psgi_dsch_extent(d, i), ej = psgi_dsch_extent(d, j);
  bool vec_i = false;
  if (pow2_factor(ej) < MIN_VEC && pow2_factor(ei) >= MIN_VEC) st = contiguous_in(d, i, &vec_i);
  if (st) goto done;
  /* r: the rows' loop, v: the vector one (in the output, v is dim nb + !vec_i) */
  psg_tir_expr *r = vec_i ? j : i, *v = vec_i ? i : j, **ro = vec_i ? jo : io, **vo = vec_i ? io : jo;
  int64_t fr = psgi_dsch_factor(psgi_dsch_extent(d, r), TILE_ROWS), fv = psgi_dsch_vec_factor(psgi_dsch_extent(d, v), TILE_VEC);
  /* vectorized over i, the tile also takes m vectors of i (vm, unrolled): rec's head holds 5 x 5
   * accumulators, so each k loads its B row once for all of i */
  int64_t m = 1, nv = vec_i && fv > 1 ? psgi_dsch_extent(d, v) / fv : 1;
  for (int64_t c = nv; c > 1 && m == 1; c--)
    if (nv % c == 0 && c * fr <= MAX_ACC) m = c;
  /* the splits are prepared, and applied with the reorder (psgi_sch_split_reorder) */
  int64_t sr[2] = {0, fr}, sv[3] = {0, m, fv}, sv2[2] = {0, fv};
  if (!(st = psgi_sch_split_prepare(d->s, r, sr, 2, &plans[0]))) {
    np = 1;
    st = m > 1 ? psgi_sch_split_prepare(d->s, v, sv, 3, &plans[1]) : psgi_sch_split_prepare(d->s, v, sv2, 2, &plans[1]);
    if (!st) np = 2;
  }
  if (np > 0) psg_tir_retain(ro[0] = plans[0].vars[0]), psg_tir_retain(ro[1] = plans[0].vars[1]);
  if (np > 1) {
    psg_tir_retain(vo[0] = plans[1].vars[0]);
    psg_tir_retain(vo[1] = plans[1].vars[plans[1].n - 1]);
    if (m > 1) psg_tir_retain(vm = plans[1].vars[1]);
  }
  psg_tir_expr *order[6] = {io[0], jo[0], k, vm, ro[1], vo[1]};
  if (!vm) order[3] = ro[1], order[4] = vo[1];
  if (!st) st = psgi_sch_split_reorder(d->s, plans, np, order, vm ? 6 : 5);
  if (!st) st = psg_tir_schedule_decompose_reduction(d->s, stage, k, NULL);
  if (!st && fv > 1) st = psg_tir_schedule_vectorize(d->s, vo[1]);
  if (!st && fv > 1) st = psgi_dsch_vectorize_init(d, vo[1]);
  /* the tile's accumulators in a local array under the loop outside k, its
   * rows unrolled: registers (the output's dims: batch..., i, j) */
  /* (not for a vector of odd lanes: a struct the C compiler handles lane by
   * lane, in memory either way) */
  if (!st && (fv == 1 || !(fv & (fv - 1)))) {
    psgi_dsch_tile tl = {stage, jo[0], ro[1], fv > 1 ? vo[1] : NULL, (int)nb + (vec_i ? 0 : 1)};
    bool tiled = false;
    st = psgi_dsch_try(d, psgi_dsch_local_tile, &tl, &tiled);
    if (!st && tiled && vm) st = psg_tir_schedule_unroll(d->s, vm);
    if (!st && tiled && vm) st = psgi_dsch_unroll_init(d, vm);
  }
  /* batch and the outer tile loops: one parallel loop */
  psg_tir_expr *outer[PSG_MAX_RANK + 2];
  for (size_t b = 0; b < nb && b < PSG_MAX_RANK; b++) outer[b] = loops[b];
  outer[nb] = io[0];
  outer[nb + 1] = jo[0];
  if (!st) st = psg_tir_schedule_fuse(d->s, outer, nb + 2, &fused);
  if (!st) st = psgi_dsch_parallel(d, fused);
done:
  for (size_t x = 0; x < np; x++) psgi_sch_split_plan_fini(&plans[x]);
  for (int x = 0; x < 2; x++) psg_tir_release(io[x]), psg_tir_release(jo[x]);
  psg_tir_release(vm);
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
