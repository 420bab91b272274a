/* Passage — DeadCodeElimination (tvm-behavior §6.5, §7.1): a module pass
 * (opt 1, required InferType) that removes pure let bindings nobody uses and,
 * with inline_once, inlines pure bindings used exactly once. Impure bindings
 * (stateful ops, impure global functions) are never touched.
 *
 * Unlike TVM, uses are counted from live code only (a liveness walk from the
 * function body), so a chain of bindings that only feed each other disappears
 * in one run and the pass is idempotent. Both walks are iterative. */
#include "ops/op_impl.h"
#include "transforms/transforms.h"

typedef struct dce {
  psg_ctx *ctx;
  const psg_module *mod;
  bool inline_once, ignore_impurity;
  psgi_map impure_globals; /* name (interned) -> non-NULL when impure */
  psgi_map impure;         /* node -> non-NULL when evaluating it has effects */
  psgi_map binding_depth;  /* let var -> function depth of its Let, + 1 */
  psgi_map uses;           /* let var -> weighted use count from live code */
} dce;

static bool is_impure(const dce *d, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&d->impure, e);
  return en && en->value;
}

/* Purity ---------------------------------------------------------------------- */

static bool callee_impure(const dce *d, const psg_expr *callee) {
  switch (callee->kind) {
  case PSG_EXPR_OP: {
    const psgi_op_impl *impl = psgi_op_impl_in(callee->ctx, callee->u.op);
    return impl && impl->stateful;
  }
  case PSG_EXPR_GLOBAL_VAR: {
    psgi_map_entry *en = psgi_map_get_str(&d->impure_globals, callee->u.gvar.name, strlen(callee->u.gvar.name));
    return en && en->value;
  }
  case PSG_EXPR_FUNCTION: return is_impure(d, psgi_fn_body(callee));
  default:
    /* A closure held in a variable: its body is not known here, so calling it
     * is assumed to have effects (TVM analyses let-bound closures; we keep
     * such bindings, which is safe). */
    return true;
  }
}

static psg_status purity_post(psg_visitor *v, const psg_expr *e) {
  dce *d = v->user;
  bool impure = false;
  if (e->kind == PSG_EXPR_FUNCTION) {
    impure = false; /* making a closure has no effect; calling it may */
  } else {
    if (e->kind == PSG_EXPR_CALL) impure = callee_impure(d, e->kids[0]);
    if (e->kind == PSG_EXPR_REF_READ || e->kind == PSG_EXPR_REF_WRITE) impure = true; /* order matters */
    for (uint32_t i = 0; i < e->nkids && !impure; i++) impure = is_impure(d, e->kids[i]);
  }
  if (!impure) return PSG_OK;
  psgi_map_entry *en = psgi_map_put_ptr(&d->impure, e, NULL);
  if (!en) return psgi_nomem(d->ctx);
  en->value = (void *)1;
  return PSG_OK;
}

/* Fills d->impure for the nodes of `fn`. */
static psg_status compute_purity(dce *d, const psg_expr *fn) {
  psgi_map_fini(&d->impure);
  psgi_map_init(&d->impure, d->ctx);
  if (d->ignore_impurity) return PSG_OK;
  psg_visitor v = {NULL, purity_post, d};
  return psg_visit(d->ctx, &v, fn);
}

/* A global function is impure when its body is; calls between globals make
 * this a fixpoint, reached after at most one round per function. */
static psg_status compute_global_purity(dce *d) {
  if (d->ignore_impurity) return PSG_OK;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < d->mod->n; i++) {
      const psg_expr *gv = d->mod->entries[i].gv, *fn = d->mod->entries[i].func;
      const char *name = gv->u.gvar.name;
      psgi_map_entry *en = psgi_map_put_str(&d->impure_globals, name, strlen(name), NULL);
      if (!en) return psgi_nomem(d->ctx);
      if (en->value || !fn || fn->kind != PSG_EXPR_FUNCTION) continue;
      psg_status st = compute_purity(d, fn);
      if (st) return st;
      if (is_impure(d, psgi_fn_body(fn))) {
        /* Look the entry up again: compute_purity does not touch this map,
         * but keep the pointer discipline simple. */
        psgi_map_get_str(&d->impure_globals, name, strlen(name))->value = (void *)1;
        changed = true;
      }
    }
  }
  return PSG_OK;
}

/* Liveness ---------------------------------------------------------------------- */

typedef struct live_frame {
  const psg_expr *e;
  int depth;   /* number of Functions around e */
  bool decide; /* e is a Let whose body is done: is its value live? */
} live_frame;
typedef PSGI_VEC(live_frame) live_stack;

static size_t count_of(const psgi_map *m, const psg_expr *var) {
  psgi_map_entry *en = psgi_map_get_ptr(m, var);
  return en ? (size_t)(uintptr_t)en->value : 0;
}

/* An edge from live code at `depth` to `child`. A use from inside a nested
 * function weighs 2, so such a binding is never inlined into the function
 * (that would re-evaluate it at every call). */
static psg_status count_use(dce *d, const psg_expr *child, int depth) {
  if (child->kind != PSG_EXPR_VAR) return PSG_OK;
  size_t bound = count_of(&d->binding_depth, child);
  if (!bound) return PSG_OK; /* a parameter or a free variable */
  psgi_map_entry *en = psgi_map_put_ptr(&d->uses, child, NULL);
  if (!en) return psgi_nomem(d->ctx);
  en->value = (void *)(uintptr_t)((uintptr_t)en->value + (depth > (int)bound - 1 ? 2 : 1));
  return PSG_OK;
}

static psg_status push(dce *d, live_stack *s, const psg_expr *e, int depth, bool decide) {
  live_frame f = {e, depth, decide};
  return PSGI_VEC_PUSH(d->ctx, s, f) ? PSG_OK : psgi_nomem(d->ctx);
}

static psg_status compute_liveness(dce *d, const psg_expr *fn) {
  psgi_map seen;
  psgi_map_init(&seen, d->ctx);
  live_stack s = {0};
  psg_status st = push(d, &s, fn, 0, false);
  while (!st && s.len) {
    live_frame f = s.data[--s.len];
    const psg_expr *e = f.e;
    if (f.decide) {
      const psg_expr *var = e->kids[0], *value = e->kids[1];
      if (count_of(&d->uses, var) || is_impure(d, value)) {
        st = count_use(d, value, f.depth);
        if (!st) st = push(d, &s, value, f.depth, false);
      }
      continue;
    }
    bool is_new;
    psgi_map_entry *en = psgi_map_put_ptr(&seen, e, &is_new);
    if (!en) {
      st = psgi_nomem(d->ctx);
      break;
    }
    if (!is_new) continue;
    en->value = (void *)1;
    switch (e->kind) {
    case PSG_EXPR_VAR:
    case PSG_EXPR_GLOBAL_VAR:
    case PSG_EXPR_CONSTANT:
    case PSG_EXPR_CONSTRUCTOR:
    case PSG_EXPR_OP: break;
    case PSG_EXPR_LET: {
      psgi_map_entry *b = psgi_map_put_ptr(&d->binding_depth, e->kids[0], NULL);
      if (!b) {
        st = psgi_nomem(d->ctx);
        break;
      }
      b->value = (void *)(uintptr_t)(f.depth + 1);
      /* The value is decided after the whole body has been counted. */
      st = push(d, &s, e, f.depth, true);
      if (!st) st = count_use(d, e->kids[2], f.depth);
      if (!st) st = push(d, &s, e->kids[2], f.depth, false);
      break;
    }
    case PSG_EXPR_FUNCTION:
      st = count_use(d, psgi_fn_body(e), f.depth + 1);
      if (!st) st = push(d, &s, psgi_fn_body(e), f.depth + 1, false);
      break;
    case PSG_EXPR_TUPLE:
    case PSG_EXPR_TUPLE_GET_ITEM:
    case PSG_EXPR_CALL:
    case PSG_EXPR_IF:
    case PSG_EXPR_MATCH:
    case PSG_EXPR_REF_CREATE:
    case PSG_EXPR_REF_READ:
    case PSG_EXPR_REF_WRITE:
      for (uint32_t i = 0; i < e->nkids && !st; i++) {
        if (psgi_expr_binds_child(e, i)) continue; /* a pattern variable */
        st = count_use(d, e->kids[i], f.depth);
        if (!st) st = push(d, &s, e->kids[i], f.depth, false);
      }
      break;
    }
  }
  PSGI_VEC_FREE(d->ctx, &s);
  psgi_map_fini(&seen);
  return st;
}

/* Rewrite ----------------------------------------------------------------------- */

static bool is_dead(const dce *d, const psg_expr *let) {
  return !count_of(&d->uses, let->kids[0]) && !is_impure(d, let->kids[1]);
}

static bool is_inlined(const dce *d, const psg_expr *let) {
  return d->inline_once && count_of(&d->uses, let->kids[0]) == 1 && !is_impure(d, let->kids[1]);
}

/* Before a Let's body is rewritten, an inlined variable starts standing for
 * its (rewritten) value. */
static psg_status bind_inlined(psg_mutator *m, const psg_expr *parent, size_t index) {
  dce *d = m->user;
  if (parent->kind != PSG_EXPR_LET || index != 2 || !is_inlined(d, parent)) return PSG_OK;
  return psg_mutator_set_result(m, parent->kids[0], psg_mutator_get_result(m, parent->kids[1]));
}

static psg_status rewrite_let(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  dce *d = m->user;
  if (is_dead(d, e) || is_inlined(d, e)) {
    *out = psg_mutator_get_result(m, e->kids[2]);
    psg_expr_retain(*out);
    return PSG_OK;
  }
  return psg_mutator_default(m, e, out);
}

static psg_status eliminate_in_function(dce *d, const psg_expr *fn, psg_expr **out) {
  *out = NULL;
  psgi_map_fini(&d->binding_depth);
  psgi_map_fini(&d->uses);
  psgi_map_init(&d->binding_depth, d->ctx);
  psgi_map_init(&d->uses, d->ctx);
  psg_status st = compute_purity(d, fn);
  if (!st) st = compute_liveness(d, fn);
  if (st) return st;
  psg_mutator m;
  psg_mutator_init(&m, d->ctx);
  m.user = d;
  m.visit[PSG_EXPR_LET] = rewrite_let;
  m.before_child = bind_inlined;
  st = psg_mutate(&m, fn, out);
  psg_mutator_fini(&m);
  return st;
}

static bool is_function(const psg_expr *fn) { return fn->kind == PSG_EXPR_FUNCTION; }

static psg_status eliminate_entry(psg_expr *fn, const psgi_module_entry *e, void *user, psg_expr **out) {
  (void)e;
  return eliminate_in_function(user, fn, out);
}

/* A module pass, as in TVM, because impurity is a fact about the whole
 * module (compute_global_purity); the functions are then rewritten one by
 * one through the shared adaptor. */
static psg_status run_dce(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  *out = NULL;
  const psg_attrs *options = user;
  psg_ctx *ctx = mod->ctx;
  dce d;
  memset(&d, 0, sizeof d);
  d.ctx = ctx;
  d.mod = mod;
  d.inline_once = psg_attr_get_bool(psg_attrs_get(options, "inline_once"));
  d.ignore_impurity = psg_attr_get_bool(psg_attrs_get(options, "ignore_impurity"));
  psgi_map_init(&d.impure_globals, ctx);
  psgi_map_init(&d.impure, ctx);
  psgi_map_init(&d.binding_depth, ctx);
  psgi_map_init(&d.uses, ctx);
  psg_status st = compute_global_purity(&d);
  if (!st) st = psgi_map_functions(mod, is_function, eliminate_entry, &d, false, out);
  psgi_map_fini(&d.impure_globals);
  psgi_map_fini(&d.impure);
  psgi_map_fini(&d.binding_depth);
  psgi_map_fini(&d.uses);
  return st;
}

static const psg_pass_option options[] = {
    {"inline_once", PSG_CONFIG_BOOL, "false"}, {"ignore_impurity", PSG_CONFIG_BOOL, "false"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_dead_code = {
    .name = "DeadCodeElimination",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "remove unused pure let bindings (inline_once: inline single uses)",
    .module = run_dce,
};
