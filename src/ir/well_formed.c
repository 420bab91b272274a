/* Passage — TVM's WellFormed: no variable is bound twice (by two Lets,
 * parameters or pattern variables anywhere in the expression), and a bound
 * variable is used only inside its scope (a Let's value and body, a
 * Function's body, its clause's right-hand side). Free variables are fine.
 * An iterative walk; each node once, as TVM's memoizing visitor. */
#include "ir/ir_internal.h"

typedef struct wf_frame {
  const psg_expr *e;
  uint32_t next;
  size_t mark; /* scope length when the node was entered */
} wf_frame;

typedef struct wf {
  psg_ctx *ctx;
  psgi_map bound;   /* var -> 1: bound somewhere */
  psgi_map live;    /* var -> how many enclosing scopes bind it now */
  psgi_map visited; /* node -> 1 */
  PSGI_VEC(const psg_expr *) scope;
  bool ok, oom;
  const psg_expr *bad; /* the first offending variable */
  bool twice;          /* bad was bound a second time (else: used out of scope) */
} wf;

static void bind(wf *w, const psg_expr *v) {
  bool is_new;
  psgi_map_entry *b = psgi_map_put_ptr(&w->bound, v, &is_new);
  psgi_map_entry *l = b ? psgi_map_put_ptr(&w->live, v, NULL) : NULL;
  if (!l || !PSGI_VEC_PUSH(w->ctx, &w->scope, v)) {
    w->oom = true;
    return;
  }
  if (!is_new && w->ok) { /* bound a second time */
    w->ok = false;
    w->bad = v;
    w->twice = true;
  }
  l->value = (void *)((uintptr_t)l->value + 1);
}

static void unbind_to(wf *w, size_t mark) {
  while (w->scope.len > mark) {
    psgi_map_entry *l = psgi_map_get_ptr(&w->live, w->scope.data[--w->scope.len]);
    l->value = (void *)((uintptr_t)l->value - 1);
  }
}

static void use(wf *w, const psg_expr *v) {
  psgi_map_entry *l = psgi_map_get_ptr(&w->live, v);
  if ((!l || !l->value) && psgi_map_get_ptr(&w->bound, v) && w->ok) { /* out of its scope */
    w->ok = false;
    w->bad = v;
  }
}

static bool walk(wf *w, const psg_expr *root) {
  PSGI_VEC(wf_frame) stack = {0};
  wf_frame f0 = {root, 0, 0};
  if (root->kind == PSG_EXPR_VAR) use(w, root);
  else if (!PSGI_VEC_PUSH(w->ctx, &stack, f0)) w->oom = true;
  while (stack.len && w->ok && !w->oom) {
    wf_frame *f = &stack.data[stack.len - 1];
    const psg_expr *e = f->e;
    if (f->next == 0) {
      f->mark = w->scope.len;
      if (e->kind == PSG_EXPR_LET) bind(w, e->kids[0]); /* in scope in its value too, as TVM */
      if (e->kind == PSG_EXPR_FUNCTION)
        for (uint32_t i = 0; i + 1 < e->nkids; i++) bind(w, e->kids[i]);
    }
    if (f->next == e->nkids) {
      unbind_to(w, f->mark);
      stack.len--;
      continue;
    }
    uint32_t i = f->next++;
    const psg_expr *k = e->kids[i];
    /* A Match: the previous clause's variables leave scope once its rhs is
     * done; this clause's are bound as they come, before its rhs. */
    if (e->kind == PSG_EXPR_MATCH && i > 1 && !e->u.match->binder[i - 1]) unbind_to(w, f->mark);
    if (psgi_expr_binds_child(e, i)) {
      if (e->kind == PSG_EXPR_MATCH) bind(w, k);
      continue;
    }
    if (k->kind == PSG_EXPR_VAR) {
      use(w, k);
      continue;
    }
    bool is_new;
    if (!psgi_map_put_ptr(&w->visited, k, &is_new)) {
      w->oom = true;
      break;
    }
    if (!is_new) continue;
    wf_frame fk = {k, 0, 0};
    if (!PSGI_VEC_PUSH(w->ctx, &stack, fk)) w->oom = true;
  }
  PSGI_VEC_FREE(w->ctx, &stack);
  return w->ok && !w->oom;
}

bool psg_expr_well_formed(const psg_expr *e) { return psgi_expr_well_formed_explain(e, NULL, NULL); }

bool psgi_expr_well_formed_explain(const psg_expr *e, const psg_expr **bad_var, bool *bound_twice) {
  wf w;
  memset(&w, 0, sizeof w);
  w.ctx = e->ctx;
  w.ok = true;
  psgi_map_init(&w.bound, w.ctx);
  psgi_map_init(&w.live, w.ctx);
  psgi_map_init(&w.visited, w.ctx);
  bool ok = walk(&w, e);
  psgi_map_fini(&w.bound);
  psgi_map_fini(&w.live);
  psgi_map_fini(&w.visited);
  PSGI_VEC_FREE(w.ctx, &w.scope);
  if (bad_var) *bad_var = ok ? NULL : w.bad;
  if (bound_twice) *bound_twice = !ok && w.twice;
  return ok;
}
