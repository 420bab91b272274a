/* Passage — InferType's write-back, TVM's Resolver: once a module is typed,
 * every Var without an annotation (function parameters, let variables,
 * match pattern variables) gets its checked type as its annotation and every
 * Function without a return type gets its checked return type, nested
 * literals and closures included. Each variable is replaced where it is
 * bound and where it is used (one memoized mutator per module).
 *
 * A subtree whose type is final is fully annotated already (psgi_infer_is_final
 * requires annotated variables and functions with a return type), so the
 * walk skips it: a module typed before costs nothing here and comes back as
 * the very same module. Rebuilt nodes take the type their original had
 * (annotating changes no type), final where their children now are, so the
 * result needs no second check. */
#include "transforms/infer_type_internal.h"
#include "transforms/transforms.h"

static psg_status skip_final(psg_mutator *m, const psg_expr *e, psg_expr **replacement) {
  (void)m;
  if (e->kind != PSG_EXPR_OP && psgi_expr_final_type(e)) {
    psg_expr_retain((psg_expr *)e);
    *replacement = (psg_expr *)e;
  }
  return PSG_OK;
}

/* `now`, rebuilt from `old`, has old's type. */
static void carry_type(const psg_expr *old, psg_expr *now) {
  const psg_type *t = psg_expr_checked_type(old);
  if (now == old || !t) return;
  if (psgi_infer_is_final(now))
    psgi_expr_set_final_type(now, t);
  else
    psgi_expr_set_checked_type(now, t);
}

static psg_status annotate_var(psg_ctx *ctx, const psg_expr *v, psg_expr **out) {
  psg_status st = psg_var_create(ctx, v->u.var.name, psg_expr_checked_type(v), psgi_expr_span_ref(v), out);
  if (!st) psgi_expr_set_final_type(*out, psg_expr_checked_type(v));
  return st;
}

/* fn rewritten (*out, fresh or fn itself) with its return type written in. */
static psg_status annotate_ret(const psg_expr *fn, psg_expr **out) {
  const psg_type *ft = psg_expr_checked_type(fn);
  if (!ft || ft->kind != PSG_TYPE_FUNC) return PSG_OK; /* not typed: nothing known to write */
  if (*out == fn) {
    psg_expr *copy = NULL;
    psg_status st = psgi_expr_rebuild(fn, fn->kids, &copy);
    if (st) return st;
    psg_expr_release(*out);
    *out = copy;
  }
  (*out)->u.fn.ret_type = ft->ret; /* a fresh node, not shared yet */
  return PSG_OK;
}

static psg_status annotate_node(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  if (e->kind == PSG_EXPR_VAR && !psgi_var_annotation(e) && psg_expr_checked_type(e))
    return annotate_var(m->ctx, e, out);
  psg_status st = psg_mutator_default(m, e, out);
  if (!st && e->kind == PSG_EXPR_FUNCTION && !e->u.fn.ret_type) st = annotate_ret(e, out);
  if (st) {
    psg_expr_release(*out);
    *out = NULL;
    return st;
  }
  carry_type(e, *out);
  return PSG_OK;
}

psg_status psgi_annotate_inferred(psg_ctx *ctx, const psg_module *mod, psg_module **out) {
  *out = NULL;
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  m.pre = skip_final;
  for (int k = 0; k < PSG_EXPR_KIND_COUNT; k++) m.visit[k] = annotate_node;
  /* The rewritten functions go into one new module at the end: a
   * psg_module_update per function copied the whole entry list each time
   * (quadratic in the number of functions) and re-checked that the function
   * is closed, which annotating cannot change. */
  psg_expr **rewritten = NULL;
  size_t changed = 0;
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < mod->n; i++) {
    const psg_expr *fn = mod->entries[i].func;
    if (!fn || fn->kind != PSG_EXPR_FUNCTION || psgi_expr_final_type(fn)) continue;
    psg_expr *r = NULL;
    if ((st = psg_mutate(&m, fn, &r)) != PSG_OK) break;
    if (r == fn) {
      psg_expr_release(r);
      continue;
    }
    if (!rewritten && !(rewritten = psgi_calloc(ctx, psgi_mul_size(mod->n, sizeof *rewritten)))) {
      psg_expr_release(r);
      st = psgi_nomem(ctx);
      break;
    }
    rewritten[i] = r;
    changed++;
  }
  psg_mutator_fini(&m);
  psgi_module_entry *es = NULL;
  if (!st && changed && !(es = psgi_alloc(ctx, psgi_mul_size(mod->n, sizeof *es)))) st = psgi_nomem(ctx);
  if (!st && changed) {
    for (size_t i = 0; i < mod->n; i++) {
      es[i] = mod->entries[i];
      if (rewritten[i]) es[i].func = rewritten[i];
    }
    st = psgi_module_from_entries_of(mod, es, mod->n, mod->attrs, out);
  } else if (!st) {
    psg_module_retain((psg_module *)mod);
    *out = (psg_module *)mod;
  }
  for (size_t i = 0; rewritten && i < mod->n; i++) psg_expr_release(rewritten[i]);
  psgi_free(ctx, rewritten);
  psgi_free(ctx, es);
  return st;
}
