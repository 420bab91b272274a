/* Passage — TVM's Substitute: every use of some vars in a TIR node replaced
 * by expressions, the rest rebuilt through the checked constructors (so
 * dtypes follow, e.g. a BufferLoad over a Ramp index becomes a vector). The
 * loop passes copy bodies with it (LoopPartition, InjectVirtualThread,
 * VectorizeLoop when it scalarizes; UnrollLoop has its own copy template,
 * copy_template.c). Iterative: psg_tir_mutate. */
#include "tir/transforms/tir_transforms.h"

typedef struct subst {
  psg_tir_node *const *vars, *const *values;
  size_t n;
} subst;

static psg_status replace_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  subst *s = m->user;
  if (!psgi_tir_is_var_kind(n->kind)) return PSG_OK;
  for (size_t i = 0; i < s->n; i++)
    if (n == s->vars[i]) {
      psg_tir_retain(s->values[i]);
      *replacement = s->values[i];
      break;
    }
  return PSG_OK;
}

psg_status psgi_tir_substitute_n(psg_ctx *ctx, const psg_tir_node *n, psg_tir_node *const *vars,
                                 psg_tir_node *const *values, size_t count, psg_tir_node **out) {
  subst s = {vars, values, count};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.pre = replace_var;
  m.user = &s;
  psg_status st = psg_tir_mutate(&m, n, out);
  psg_tir_mutator_fini(&m);
  return st;
}

psg_status psgi_tir_substitute(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *var,
                               psg_tir_node *value, psg_tir_node **out) {
  psg_tir_node *v = (psg_tir_node *)var;
  return psgi_tir_substitute_n(ctx, n, &v, &value, 1, out);
}
