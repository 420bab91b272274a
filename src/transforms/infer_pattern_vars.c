/* Passage — InferType's last step for ADT programs: a match pattern's
 * variable written without an annotation gets its checked type as one, as
 * TVM's Resolver fills every missing annotation (docs/design.md, departure
 * "ADTs: pattern variables annotated"). The variable is replaced where it is
 * bound and where it is used (one memoized mutator per function), so the
 * rewritten function binds the annotated variable. */
#include "transforms/infer_type_internal.h"
#include "transforms/transforms.h"

/* Records in the map v->user each pattern variable to annotate: bound by
 * a Match, written without an annotation, with a checked type. */
static psg_status note_pattern_vars(psg_visitor *v, const psg_expr *e) {
  psgi_map *todo = v->user;
  if (e->kind != PSG_EXPR_MATCH) return PSG_OK;
  for (uint32_t i = 0; i < e->nkids; i++) {
    const psg_expr *k = e->kids[i];
    if (!psgi_expr_binds_child(e, i) || k->u.var.type || !psg_expr_checked_type(k)) continue;
    if (!psgi_map_put_ptr(todo, k, NULL)) return PSG_ERR_NOMEM;
  }
  return PSG_OK;
}

static psg_status annotate_var(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psgi_map *todo = m->user;
  if (!psgi_map_get_ptr(todo, e)) return psg_mutator_default(m, e, out);
  return psg_var_create(m->ctx, e->u.var.name, psg_expr_checked_type(e), &e->span, out);
}

psg_status psgi_annotate_pattern_vars(psg_ctx *ctx, const psg_module *mod, psg_module **out) {
  *out = NULL;
  psgi_map todo;
  psgi_map_init(&todo, ctx);
  psg_module *cur = (psg_module *)mod;
  psg_module_retain(cur);
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && mod->ntypes && i < mod->n; i++) {
    const psg_expr *fn = mod->entries[i].func;
    if (!fn) continue;
    psgi_map_clear(&todo);
    psg_visitor v = {NULL, note_pattern_vars, &todo};
    if ((st = psg_visit(ctx, &v, fn)) != PSG_OK || !todo.len) continue;
    psg_mutator m;
    psg_mutator_init(&m, ctx);
    m.user = &todo;
    m.visit[PSG_EXPR_VAR] = annotate_var;
    psg_expr *rewritten = NULL;
    st = psg_mutate(&m, fn, &rewritten);
    psg_mutator_fini(&m);
    psg_module *next = NULL;
    if (!st) st = psg_module_update(cur, mod->entries[i].gv, rewritten, &next);
    psg_expr_release(rewritten);
    if (next) {
      psg_module_release(cur);
      cur = next;
    }
  }
  if (st) {
    psg_module_release(cur);
    cur = NULL;
  }
  psgi_map_fini(&todo);
  *out = cur;
  return st;
}
