/* Passage — ToANormalForm (module pass, opt 1; tvm-behavior §7.1) and the
 * scope analysis + fill it shares with ToBasicBlockNormalForm, after TVM's
 * to_a_normal_form.cc (CalcScope, Fill).
 *
 * Scopes are the function body, each If branch and each nested function body.
 * A node lives in the lowest common ancestor of the scopes its users reach it
 * from, so it is evaluated once, and only on paths that need it. In ANF every
 * non-atomic node (atoms: Var, GlobalVar, Op) is let-bound there in post-order,
 * which is dependency order and TVM's order; in BBNF only the nodes whose
 * users sit in different scopes are. Existing lets keep their variables and
 * are flattened into the scope they are in (TVM nests each let body in a
 * scope of its own, which only adds `let %x = (let ...; %y); %x` wrappers).
 *
 * Three linear, iterative passes over the DAG: a DFS collecting events in
 * post-order, scopes in reverse post-order (users before the node), then the
 * rebuild in post-order, appending bindings to each scope's list; a scope's
 * list becomes a let chain when its If or Function is rebuilt. */
#include "transforms/normal_form.h"

static bool is_atom(const psg_expr *e) {
  return e->kind == PSG_EXPR_VAR || e->kind == PSG_EXPR_GLOBAL_VAR || e->kind == PSG_EXPR_OP ||
         e->kind == PSG_EXPR_CONSTRUCTOR;
}

/* A function the analysis keeps as a leaf: Primitive, or Composite (kept
 * as it is by the built-in passes, ir_internal.h). */
static bool is_leaf_fn(const psg_expr *e) { return psgi_is_primitive_fn(e) || psgi_is_composite_fn(e); }

/* Children the analysis walks: not let variables or parameters (atoms) and
 * nothing inside a Primitive function, which stays a leaf. */
static bool walks_kid(const psg_expr *e, uint32_t i) {
  switch (e->kind) {
  case PSG_EXPR_LET: return i >= 1;
  case PSG_EXPR_FUNCTION: return i + 1 == e->nkids && !is_leaf_fn(e);
  case PSG_EXPR_CALL:
  case PSG_EXPR_TUPLE:
  case PSG_EXPR_TUPLE_GET_ITEM:
  case PSG_EXPR_IF:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE: return true;
  case PSG_EXPR_MATCH: return i == 0; /* the data; clauses are kept whole (design.md) */
  default: return false;
  }
}

typedef struct binding {
  psg_expr *var, *value; /* owned */
} binding;

typedef struct scope {
  int32_t parent;
  uint32_t depth;
  PSGI_VEC(binding) binds;
} scope;

typedef struct node {
  const psg_expr *e;
  int32_t scope;    /* -1 until a user is seen */
  int32_t first_es; /* the scope the first user reaches it from */
  int32_t sub[2];   /* If: then/else scopes; Function: body scope in sub[0] */
  uint32_t users;   /* edges into the node */
  bool lifted;      /* users reach it from different scopes */
  bool on_let_var;  /* bound with the variable of its only user, a Let */
  const psg_expr *let_user; /* a Let whose value this is */
  psg_expr *atom;   /* owned: what users refer to */
  uint32_t kids_at; /* its children's node indices start here in nf.kid_nodes */
} node;

enum { EV_POST = 0, EV_LETVAL = 1 };
typedef struct event {
  uint32_t node;
  uint32_t kind;
} event;

typedef struct frame {
  const psg_expr *e;
  uint32_t node, next;
  bool letval_done;
} frame;
typedef PSGI_VEC(frame) frame_stack;

typedef struct nf {
  psg_ctx *ctx;
  bool basic_block;
  psgi_map index; /* expr -> node index + 1 */
  PSGI_VEC(node) nodes;
  PSGI_VEC(uint32_t) kid_nodes; /* per node, per child: the child's node index (walked children only) */
  PSGI_VEC(event) events;
  PSGI_VEC(scope) scopes;
} nf;

static node *node_of(nf *f, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&f->index, e);
  return en ? &f->nodes.data[(uintptr_t)en->value - 1] : NULL;
}

static psg_status add_event(nf *f, uint32_t n, uint32_t kind) {
  event ev = {n, kind};
  return PSGI_VEC_PUSH(f->ctx, &f->events, ev) ? PSG_OK : psgi_nomem(f->ctx);
}

/* The node of child `i` of node `n` (a walked, non-atom child). */
static node *kid_node(nf *f, const node *n, uint32_t i) { return &f->nodes.data[f->kid_nodes.data[n->kids_at + i]]; }

/* Reaches `e`: its node index in *idx; the first time, a node and a DFS frame. */
static psg_status reach(nf *f, frame_stack *stack, const psg_expr *e, uint32_t *idx) {
  bool is_new;
  psgi_map_entry *en = psgi_map_put_ptr(&f->index, e, &is_new);
  if (!en) return psgi_nomem(f->ctx);
  if (!is_new) {
    *idx = (uint32_t)((uintptr_t)en->value - 1);
    return PSG_OK;
  }
  node n = {e, -1, -1, {-1, -1}, 0, false, false, NULL, NULL, (uint32_t)f->kid_nodes.len};
  if (!PSGI_VEC_PUSH(f->ctx, &f->nodes, n)) return psgi_nomem(f->ctx);
  if (!PSGI_VEC_RESERVE(f->ctx, &f->kid_nodes, f->kid_nodes.len + e->nkids)) return psgi_nomem(f->ctx);
  f->kid_nodes.len += e->nkids; /* filled as the children are reached */
  en->value = (void *)(uintptr_t)f->nodes.len;
  *idx = (uint32_t)f->nodes.len - 1;
  frame fr = {e, *idx, 0, false};
  return PSGI_VEC_PUSH(f->ctx, stack, fr) ? PSG_OK : psgi_nomem(f->ctx);
}

/* Post-order events; a Let also gets one between its value and its body,
 * where its variable's binding belongs. */
static psg_status collect(nf *f, const psg_expr *root) {
  frame_stack stack = {0};
  uint32_t idx;
  psg_status st = reach(f, &stack, root, &idx);
  while (!st && stack.len) {
    frame *fr = &stack.data[stack.len - 1];
    const psg_expr *e = fr->e;
    if (e->kind == PSG_EXPR_LET && fr->next == 2 && !fr->letval_done) {
      fr->letval_done = true;
      st = add_event(f, fr->node, EV_LETVAL);
      continue;
    }
    if (fr->next >= e->nkids) {
      st = add_event(f, fr->node, EV_POST);
      stack.len--;
      continue;
    }
    uint32_t i = fr->next++, at = f->nodes.data[fr->node].kids_at + i;
    if (walks_kid(e, i) && !is_atom(e->kids[i])) {
      st = reach(f, &stack, e->kids[i], &idx); /* may move fr */
      if (!st) f->kid_nodes.data[at] = idx;
    }
  }
  PSGI_VEC_FREE(f->ctx, &stack);
  return st;
}

static psg_status new_scope(nf *f, int32_t parent, int32_t *out) {
  scope s = {parent, parent < 0 ? 0 : f->scopes.data[parent].depth + 1, {0}};
  if (!PSGI_VEC_PUSH(f->ctx, &f->scopes, s)) return psgi_nomem(f->ctx);
  *out = (int32_t)f->scopes.len - 1;
  return PSG_OK;
}

static int32_t lca(const nf *f, int32_t a, int32_t b) {
  while (a != b) {
    if (f->scopes.data[a].depth >= f->scopes.data[b].depth) a = f->scopes.data[a].parent;
    else b = f->scopes.data[b].parent;
  }
  return a;
}

/* The scope of each node, users first (reverse post-order is a topological
 * order of the DAG with users before what they use). */
static psg_status compute_scopes(nf *f) {
  psg_status st = PSG_OK;
  for (size_t k = f->events.len; !st && k-- > 0;) {
    if (f->events.data[k].kind != EV_POST) continue;
    node *n = &f->nodes.data[f->events.data[k].node];
    const psg_expr *e = n->e;
    int32_t s = n->scope;
    if (e->kind == PSG_EXPR_IF) {
      st = new_scope(f, s, &n->sub[0]);
      if (!st) st = new_scope(f, s, &n->sub[1]);
    } else if (e->kind == PSG_EXPR_FUNCTION && !is_leaf_fn(e)) {
      st = new_scope(f, s, &n->sub[0]);
    }
    for (uint32_t i = 0; !st && i < e->nkids; i++) {
      if (!walks_kid(e, i) || is_atom(e->kids[i])) continue;
      int32_t es = s;
      if (e->kind == PSG_EXPR_IF && i >= 1) es = n->sub[i - 1];
      else if (e->kind == PSG_EXPR_FUNCTION) es = n->sub[0];
      node *c = kid_node(f, n, i);
      c->users++;
      if (e->kind == PSG_EXPR_LET && i == 1) c->let_user = e;
      if (c->scope < 0) {
        c->scope = c->first_es = es;
      } else {
        c->lifted |= es != c->first_es;
        c->scope = lca(f, c->scope, es);
      }
    }
  }
  return st;
}

static psg_status push_binding(nf *f, int32_t s, psg_expr *var, psg_expr *value) {
  binding b = {var, value};
  psg_expr_retain(var);
  psg_expr_retain(value);
  if (PSGI_VEC_PUSH(f->ctx, &f->scopes.data[s].binds, b)) return PSG_OK;
  psg_expr_release(var);
  psg_expr_release(value);
  return psgi_nomem(f->ctx);
}

/* The bindings of scope `s` as a let chain around `result`; empties the scope. */
static psg_status close_scope(nf *f, int32_t s, psg_expr *result, psg_expr **out) {
  *out = NULL;
  scope *sc = &f->scopes.data[s];
  psg_expr *acc = result;
  psg_expr_retain(acc);
  psg_status st = PSG_OK;
  while (sc->binds.len) {
    binding b = sc->binds.data[--sc->binds.len];
    psg_expr *let = NULL;
    if (!st) {
      psg_span span;
      psg_expr_span(b.value, &span);
      st = psg_let_create(f->ctx, b.var, b.value, acc, &span, &let);
      psg_expr_release(acc);
      acc = let;
    }
    psg_expr_release(b.var);
    psg_expr_release(b.value);
  }
  if (st) psg_expr_release(acc);
  else *out = acc;
  return st;
}

/* What a user puts in place of child `i` of `e` (a new reference). */
static psg_status new_kid(nf *f, const node *n, uint32_t i, psg_expr **out) {
  const psg_expr *e = n->e;
  psg_expr *kid = e->kids[i];
  psg_expr *a = kid;
  if (walks_kid(e, i) && !is_atom(kid)) a = kid_node(f, n, i)->atom;
  if (e->kind == PSG_EXPR_IF && i >= 1) return close_scope(f, n->sub[i - 1], a, out);
  if (e->kind == PSG_EXPR_FUNCTION && walks_kid(e, i)) return close_scope(f, n->sub[0], a, out);
  psg_expr_retain(a);
  *out = a;
  return PSG_OK;
}

static psg_status post(nf *f, uint32_t idx) {
  node *n = &f->nodes.data[idx];
  const psg_expr *e = n->e;
  if (e->kind == PSG_EXPR_LET) {
    /* The bindings went to the scope; the let stands for its body. */
    psg_expr *body = e->kids[2];
    n->atom = is_atom(body) ? body : node_of(f, body)->atom;
    psg_expr_retain(n->atom);
    return PSG_OK;
  }
  psg_expr *kids_small[8], **kids = e->nkids <= 8 ? kids_small : psgi_calloc(f->ctx, e->nkids * sizeof *kids);
  if (!kids) return psgi_nomem(f->ctx);
  uint32_t made = 0;
  bool same = true;
  psg_status st = PSG_OK;
  for (; made < e->nkids; made++) {
    st = new_kid(f, n, made, &kids[made]);
    if (st) break;
    same &= kids[made] == e->kids[made];
  }
  psg_expr *value = NULL;
  if (!st && same) {
    value = (psg_expr *)e;
    psg_expr_retain(value);
  } else if (!st) {
    st = psgi_expr_rebuild(e, kids, &value);
  }
  for (uint32_t i = 0; i < made; i++) psg_expr_release(kids[i]);
  if (kids != kids_small) psgi_free(f->ctx, kids);
  if (st) return st;
  n = &f->nodes.data[idx];
  /* BBNF binds only what scoping needs; a constant needs nothing (TVM's
   * expected BBNF output keeps shared constants inline). */
  if (f->basic_block && (!n->lifted || e->kind == PSG_EXPR_CONSTANT)) {
    n->atom = value;
    return PSG_OK;
  }
  psg_expr *var = NULL;
  if (!f->basic_block && n->users == 1 && n->let_user) {
    /* Bound once, by a let: keep that let's variable (TVM's Fill passes it down). */
    var = n->let_user->kids[0];
    psg_expr_retain(var);
    n->on_let_var = true;
  } else {
    psg_span span;
    psg_expr_span(e, &span);
    st = psg_var_create(f->ctx, "x", NULL, &span, &var);
  }
  if (!st) st = push_binding(f, n->scope, var, value);
  psg_expr_release(value);
  if (st) {
    psg_expr_release(var);
    return st;
  }
  n->atom = var;
  return PSG_OK;
}

/* Between a Let's value and its body: its variable's binding. */
static psg_status bind_let_var(nf *f, uint32_t idx) {
  const node *n = &f->nodes.data[idx];
  const psg_expr *e = n->e;
  psg_expr *value = e->kids[1];
  if (!is_atom(value)) {
    const node *v = node_of(f, value);
    if (v->on_let_var) return PSG_OK;
    value = v->atom;
  }
  return push_binding(f, n->scope, e->kids[0], value);
}

static psg_status fill(nf *f) {
  psg_status st = PSG_OK;
  for (size_t k = 0; !st && k < f->events.len; k++) {
    event ev = f->events.data[k];
    st = ev.kind == EV_POST ? post(f, ev.node) : bind_let_var(f, ev.node);
  }
  return st;
}

/* `fn` with its body in normal form; `fn` itself when that changes nothing. */
static psg_status normalize_function(psg_ctx *ctx, psg_expr *fn, bool basic_block, psg_expr **out) {
  *out = NULL;
  psg_expr *body = psgi_fn_body(fn);
  if (is_atom(body)) {
    psg_expr_retain(fn);
    *out = fn;
    return PSG_OK;
  }
  nf f;
  memset(&f, 0, sizeof f);
  f.ctx = ctx;
  f.basic_block = basic_block;
  psgi_map_init(&f.index, ctx);
  int32_t root_scope = -1;
  psg_expr *new_body = NULL, *new_fn = NULL;
  psg_status st = new_scope(&f, -1, &root_scope);
  if (!st) st = collect(&f, body);
  if (!st) {
    node *r = node_of(&f, body);
    r->scope = r->first_es = root_scope;
    r->users = 1;
    st = compute_scopes(&f);
  }
  if (!st) st = fill(&f);
  if (!st) st = close_scope(&f, root_scope, node_of(&f, body)->atom, &new_body);
  if (!st && new_body == body) {
    psg_expr_retain(fn);
    new_fn = fn;
  } else if (!st) {
    psg_expr **kids = psgi_alloc(ctx, fn->nkids * sizeof *kids);
    if (!kids) {
      st = psgi_nomem(ctx);
    } else {
      memcpy(kids, fn->kids, fn->nkids * sizeof *kids);
      kids[fn->nkids - 1] = new_body;
      st = psgi_expr_rebuild(fn, kids, &new_fn);
      psgi_free(ctx, kids);
    }
    /* Already in normal form: give back the same node, so a second run is
     * visibly a no-op and unchanged modules stay shared. */
    if (!st && psg_expr_structural_equal(new_fn, fn)) {
      psg_expr_release(new_fn);
      psg_expr_retain(fn);
      new_fn = fn;
    }
  }
  psg_expr_release(new_body);
  for (size_t i = 0; i < f.nodes.len; i++) psg_expr_release(f.nodes.data[i].atom);
  for (size_t i = 0; i < f.scopes.len; i++) {
    scope *s = &f.scopes.data[i];
    for (size_t j = 0; j < s->binds.len; j++) {
      psg_expr_release(s->binds.data[j].var);
      psg_expr_release(s->binds.data[j].value);
    }
    PSGI_VEC_FREE(ctx, &s->binds);
  }
  PSGI_VEC_FREE(ctx, &f.nodes);
  PSGI_VEC_FREE(ctx, &f.kid_nodes);
  PSGI_VEC_FREE(ctx, &f.events);
  PSGI_VEC_FREE(ctx, &f.scopes);
  psgi_map_fini(&f.index);
  if (!st) *out = new_fn;
  return st;
}

/* The functions the normal forms rewrite: not Primitive or Composite
 * leaves, not external (Compiler). */
static bool takes_normal_form(const psg_expr *fn) {
  return fn->kind == PSG_EXPR_FUNCTION && !is_leaf_fn(fn) && !psg_attrs_get(fn->u.fn.attrs, "Compiler");
}

static psg_status normalize_entry(psg_expr *fn, const psgi_module_entry *e, void *user, psg_expr **out) {
  (void)e;
  return normalize_function(fn->ctx, fn, *(const bool *)user, out);
}

psg_status psgi_normal_form_module(psg_module *mod, bool basic_block, psg_module **out) {
  return psgi_map_functions(mod, takes_normal_form, normalize_entry, &basic_block, false, out);
}

static psg_status run_anf(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  return psgi_normal_form_module(mod, false, out);
}

const psg_pass_decl psgi_pass_to_a_normal_form = {
    .name = "ToANormalForm",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .help = "let-bind every non-atomic expression once, in the scope that dominates its uses",
    .establishes = PSG_PROP_ANF,
    .module = run_anf,
};
