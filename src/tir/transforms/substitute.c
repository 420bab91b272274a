/* Passage — TVM's Substitute: every use of some vars in a TIR node replaced
 * by expressions, the rest rebuilt through the checked constructors (so
 * dtypes follow, e.g. a BufferLoad over a Ramp index becomes a vector). The
 * loop passes copy bodies with it (LoopPartition, InjectVirtualThread,
 * VectorizeLoop when it scalarizes; UnrollLoop has its own copy template,
 * copy_template.c), and so do the schedule primitives (split, fuse, the
 * inlines, decompose_reduction).
 *
 * The walk is psgi_tir_rewrite_post's (a post-order rebuild of the nodes
 * whose operands changed, shared nodes rewritten once), not the general
 * mutator's: the replacement of a node depends on the node alone (a var of
 * the list, or a leaf kept), which is what that walk asks, and it keeps no
 * memo entry for the leaves and nodes held once, which are most of a body
 * (design.md 244). psgi_tir_substitute_n_mutator is the mutator's walk, kept
 * for the test that compares the two. Iterative. */
#include "tir/transforms/tir_transforms.h"

typedef struct subst {
  psg_tir_node *const *vars, *const *values;
  size_t n;
} subst;

/* values[i] for the first vars[i] that is n (a var), else NULL. */
static psg_tir_node *value_of(const subst *s, const psg_tir_node *n) {
  if (!psgi_tir_is_var_kind(n->kind)) return NULL;
  for (size_t i = 0; i < s->n; i++)
    if (n == s->vars[i]) return s->values[i];
  return NULL;
}

static psg_status decide(void *user, const psg_tir_node *n, psg_tir_node **repl) {
  psg_tir_node *v = value_of(user, n);
  if (!v && !n->nkids) v = (psg_tir_node *)n; /* a leaf: itself (what a rebuild of it gives) */
  if (v) psg_tir_retain(v);
  *repl = v;
  return PSG_OK;
}

psg_status psgi_tir_substitute_n(psg_ctx *ctx, const psg_tir_node *n, psg_tir_node *const *vars,
                                 psg_tir_node *const *values, size_t count, psg_tir_node **out) {
  subst s = {vars, values, count};
  return psgi_tir_rewrite_post(ctx, n, decide, &s, out);
}

static psg_status replace_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  psg_tir_node *v = value_of(m->user, n);
  if (v) psg_tir_retain(*replacement = v);
  return PSG_OK;
}

psg_status psgi_tir_substitute_n_mutator(psg_ctx *ctx, const psg_tir_node *n, psg_tir_node *const *vars,
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
