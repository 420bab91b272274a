/* Passage — TVM's Substitute: every use of some vars in a TIR node replaced
 * by expressions, the rest rebuilt through the checked constructors (so
 * dtypes follow, e.g. a BufferLoad over a Ramp index becomes a vector). The
 * loop passes copy bodies with it (UnrollLoop per iteration, VectorizeLoop
 * when it scalarizes). Iterative: psg_tir_mutate. */
#include "tir/transforms/tir_transforms.h"

typedef struct subst {
  psg_tir_node *const *vars, *const *values;
  size_t n;
  const psgi_tir_uses *uses; /* NULL: every node is walked */
} subst;

static psg_status replace_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  subst *s = m->user;
  if (!psgi_tir_is_var_kind(n->kind)) {
    psgi_map_entry *e = s->uses && n->nkids ? psgi_map_get_ptr(&s->uses->holds, n) : NULL;
    if (e && e->value == (void *)1) psg_tir_retain(*replacement = (psg_tir_node *)n); /* nothing to replace below */
    return PSG_OK;
  }
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
  subst s = {vars, values, count, NULL};
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

psg_status psgi_tir_uses_init(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *var, psgi_tir_uses *out) {
  typedef struct {
    const psg_tir_node *n;
    uint32_t next;
    bool uses;
  } fr;
  psgi_map_init(&out->holds, ctx);
  PSGI_VEC(fr) st = {0};
  psg_status rc = PSG_OK;
  if (!PSGI_VEC_PUSH(ctx, &st, ((fr){n, 0, n == var}))) return psgi_nomem(ctx);
  while (!rc && st.len) {
    fr *f = &st.data[st.len - 1];
    if (f->next < f->n->nkids) {
      const psg_tir_node *k = f->n->kids[f->next++];
      if (k == var) {
        f->uses = true;
      } else if (k->nkids) {
        psgi_map_entry *e = psgi_map_get_ptr(&out->holds, k);
        if (e) f->uses |= e->value == (void *)2;
        else if (!PSGI_VEC_PUSH(ctx, &st, ((fr){k, 0, false}))) rc = psgi_nomem(ctx);
      }
      continue;
    }
    fr done = *f;
    st.len--;
    psgi_map_entry *e = psgi_map_put_ptr(&out->holds, done.n, NULL);
    if (!e) rc = psgi_nomem(ctx);
    else e->value = (void *)(uintptr_t)(done.uses ? 2 : 1);
    if (st.len) st.data[st.len - 1].uses |= done.uses;
  }
  PSGI_VEC_FREE(ctx, &st);
  if (rc) psgi_map_fini(&out->holds);
  return rc;
}

void psgi_tir_uses_fini(psgi_tir_uses *u) { psgi_map_fini(&u->holds); }

psg_status psgi_tir_substitute_uses(psg_ctx *ctx, const psg_tir_node *n, const psg_tir_node *var,
                                    psg_tir_node *value, const psgi_tir_uses *u, psg_tir_node **out) {
  psg_tir_node *v = (psg_tir_node *)var;
  subst s = {&v, &value, 1, u};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.pre = replace_var;
  m.user = &s;
  psg_status st = psg_tir_mutate(&m, n, out);
  psg_tir_mutator_fini(&m);
  return st;
}
