/* Passage — the default schedule of softmax, fast_softmax and log_softmax
 * (TVM's x86 _schedule_softmax): the output's loops before the softmax axis
 * fused and parallel, and the max, exp and sum stages computed under that
 * loop (compute_at), so one row's stages run together. A stage that
 * compute_at refuses keeps its own nest (a reduction then gets the reduce
 * nest). Every value is computed as in the naive nests: bit-exact. */
#include "lower/default_schedule.h"
#include "tir/schedule/schedule_internal.h"

typedef struct axis_find {
  psg_tir_expr *const *loops;
  size_t n;
  int axis;
} axis_find;

/* A load of rank n - 1 in the output (the max or the sum) is indexed by the
 * output's loop vars without the axis: the first position that differs. */
static int axis_pre(psg_tir_visitor *v, const psg_tir_node *node) {
  axis_find *a = v->user;
  if (node->kind != PSG_TIR_BUFFER_LOAD || a->axis >= 0 || psgi_tir_num_indices(node) + 1 != a->n)
    return PSG_VISIT_CONTINUE;
  psg_tir_node *const *idx = psgi_tir_indices(node);
  size_t p = 0;
  while (p + 1 < a->n && idx[p] == a->loops[p]) p++;
  a->axis = (int)p;
  return PSG_VISIT_CONTINUE;
}

typedef struct at_arg {
  const char *stage;
  psg_tir_expr *loop;
} at_arg;

static psg_status at_step(psgi_dsch *d, void *arg) {
  at_arg *a = arg;
  return psg_tir_schedule_compute_at(d->s, a->stage, a->loop, false);
}

psg_status psgi_dsch_softmax(psgi_dsch *d, const char **kind) {
  *kind = "softmax";
  psgi_dsch_stage *out = NULL;
  for (size_t i = 0; i < d->stages.len; i++)
    if (d->stages.data[i].output) out = &d->stages.data[i];
  if (!out || out->reduction) return PSG_ERR_INVALID_ARGUMENT;
  psg_tir_expr **loops = NULL, *fused = NULL;
  size_t n = 0;
  psg_status st = psgi_dsch_loops(d, out->buffer, &loops, &n);
  axis_find a = {.loops = loops, .n = n, .axis = -1};
  psg_tir_visitor v = {.pre = axis_pre, .user = &a};
  psgi_sch_stage ss;
  psg_tir_node *body = psg_tir_schedule_get_func(d->s)->kids[0];
  if (!st && !(st = psgi_sch_stage_find(d->ctx, body, out->buffer, "softmax", &ss))) {
    st = psg_tir_visit(d->ctx, &v, ss.stores.data[ss.stores.len - 1]);
    psgi_sch_stage_fini(d->ctx, &ss);
  }
  if (st || a.axis <= 0) goto done; /* nothing before the axis: the generic nests */
  if ((size_t)a.axis == 1) psg_tir_retain(fused = loops[0]);
  else st = psg_tir_schedule_fuse(d->s, loops, (size_t)a.axis, &fused);
  if (!st) st = psgi_dsch_parallel(d, fused);
  out->done = !st;
  /* the producers under the fused loop, the last first (each is then read
   * only under the loop) */
  for (size_t i = d->stages.len; !st && i-- > 0;) {
    psgi_dsch_stage *g = &d->stages.data[i];
    if (g->output) continue;
    at_arg arg = {g->buffer, fused};
    bool ok = false;
    st = psgi_dsch_try(d, at_step, &arg, &ok);
    g->done = ok;
  }
done:
  psg_tir_release(fused);
  psgi_dsch_loops_free(loops, n);
  return st;
}
