/* Passage — the store analysis of tir.RemoveNoOp: which BufferStores do
 * nothing, proved with the facts of their scope (loop ranges, let values,
 * `if` conditions, thread extents) by the arithmetic analyzer.
 *
 * Always: a store of the element it loads (A[4*io+ii] = A[i] with
 * i = 4*io+ii; A[i] = A[0] where i == 0 is known), and a loop whose extent
 * is <= 0 for every value of the vars in scope (range(i - 20) under
 * i < 16) becomes Evaluate(0).
 *
 * With dataflow (use_dataflow_analysis, TVM's control-flow-graph removals),
 * decided between the statements of one SeqStmt, in order:
 *  - overwritten: a store in statement k is dead when a later statement m
 *    writes every element it may write (m is a nest of loops, at most one
 *    `if` without else, and a store to the same buffer whose indices are
 *    loop vars or expressions proved equal), no statement in between and
 *    not m reads the buffer, and statement k reads it nowhere;
 *  - known value: a store in statement m is dead when an earlier statement
 *    k (a loop nest storing, once per element, a value that reads no memory)
 *    left that value at every element it writes, and nothing in between
 *    writes the buffer.
 * A dead store becomes the Evaluates of its operands' side effects (or
 * Evaluate(0)); the caller removes what is then empty. Each decision looks
 * at what earlier decisions left, so of two identical loops only the first
 * goes. Calls with side effects in the statements looked at stop the
 * analysis (they may read or write any buffer). Work is bounded:
 * LOOKAHEAD siblings, MAX_STORES candidate stores per statement.
 *
 * The walk keeps an explicit stack; each statement is rewritten in its own
 * context (no memo: a node shared by two scopes is decided in each). */
#include "tir/arith/arith_internal.h"
#include "tir/transforms/tir_transforms.h"

enum { LOOKAHEAD = 64, MAX_STORES = 256, MAX_NEST = 16 };

/* ---- small helpers over the IR ------------------------------------------- */

static psg_tir_expr *data_of(const psg_tir_node *access) {
  return psg_tir_buffer_get_data(access->kids[0]);
}

/* What a statement does with the memory of one data var. */
typedef struct touch {
  const psg_tir_node *data;
  bool reads, writes, effects;
} touch;

static int scan_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  touch *t = v->user;
  switch (n->kind) {
    case PSG_TIR_BUFFER: return PSG_VISIT_SKIP_CHILDREN; /* its data var is no use */
    case PSG_TIR_BUFFER_LOAD:
      if (data_of(n) == t->data) t->reads = true;
      break;
    case PSG_TIR_BUFFER_STORE:
      if (data_of(n) == t->data) t->writes = true;
      break;
    case PSG_TIR_VAR:
      if (n == t->data) t->reads = t->writes = true; /* the address escapes */
      break;
    case PSG_TIR_CALL: {
      bool e = false;
      if (psgi_tir_has_side_effect(n->ctx, n, &e) || e) t->effects = true;
      break;
    }
    default: break;
  }
  return t->reads && t->writes && t->effects ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
}

static psg_status scan(psg_ctx *ctx, const psg_tir_node *s, const psg_tir_node *data, touch *out) {
  *out = (touch){.data = data};
  psg_tir_visitor v = {scan_pre, NULL, out};
  return psg_tir_visit(ctx, &v, s);
}

/* Whether e mentions one of vars[0..n). */
typedef struct mention {
  psg_tir_node *const *vars;
  size_t n;
  bool found;
} mention;

static int mention_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  mention *m = v->user;
  if (psgi_tir_is_var_kind(n->kind))
    for (size_t i = 0; i < m->n; i++)
      if (m->vars[i] == n) {
        m->found = true;
        return PSG_VISIT_ABORT;
      }
  return PSG_VISIT_CONTINUE;
}

static bool mentions(psg_ctx *ctx, const psg_tir_node *e, psg_tir_node *const *vars, size_t n) {
  mention m = {vars, n, false};
  psg_tir_visitor v = {mention_pre, NULL, &m};
  if (n == 0) return false;
  return psg_tir_visit(ctx, &v, e) != PSG_OK || m.found; /* no memory: say yes, which is safe */
}

/* e with from[i] replaced by to[i] (a new reference). */
typedef struct subst_map {
  psg_tir_node *const *from, *const *to;
  size_t n;
} subst_map;

static psg_status subst_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  subst_map *s = m->user;
  for (size_t i = 0; i < s->n; i++)
    if (s->from[i] == n) {
      psg_tir_retain(*out = s->to[i]);
      return PSG_OK;
    }
  psg_tir_retain(*out = (psg_tir_node *)n);
  return PSG_OK;
}

static psg_status substitute(psg_ctx *ctx, psg_tir_expr *e, psg_tir_node *const *from, psg_tir_node *const *to,
                             size_t n, psg_tir_expr **out) {
  subst_map s = {from, to, n};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &s;
  m.visit[PSG_TIR_VAR] = subst_var;
  m.visit[PSG_TIR_SIZE_VAR] = subst_var;
  psg_status st = psg_tir_mutate(&m, e, out);
  psg_tir_mutator_fini(&m);
  return st;
}

/* s with the statement `old` (met once in s) replaced by `with`. */
typedef struct replace_one {
  const psg_tir_node *old;
  psg_tir_node *with;
} replace_one;

static psg_status replace_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **rep) {
  replace_one *r = m->user;
  if (n == r->old) psg_tir_retain(*rep = r->with);
  else if (psgi_tir_is_expr_kind(n->kind) || n->kind == PSG_TIR_BUFFER)
    psg_tir_retain(*rep = (psg_tir_node *)n); /* statements only */
  return PSG_OK;
}

static psg_status replace(psg_ctx *ctx, psg_tir_stmt *s, const psg_tir_node *old, psg_tir_node *with,
                          psg_tir_stmt **out) {
  replace_one r = {old, with};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &r;
  m.pre = replace_pre;
  psg_status st = psg_tir_mutate(&m, s, out);
  psg_tir_mutator_fini(&m);
  return st;
}

/* What is left of a dead store: TVM's MakeEvaluate of its value and
 * indices, the ones with side effects as Evaluates, else Evaluate(0). */
static psg_status side_effects_of(psg_ctx *ctx, const psg_tir_node *store, psg_tir_stmt **out) {
  psg_tir_stmt *keep[8];
  size_t k = 0, n = psgi_tir_num_indices(store);
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i <= n; i++) {
    psg_tir_expr *e = i == 0 ? store->kids[1] : psgi_tir_indices(store)[i - 1];
    bool effect = false;
    if ((st = psgi_tir_has_side_effect(ctx, e, &effect)) || !effect) continue;
    if (k == 8) { /* more than we keep apart: the store stays (never wrong) */
      st = PSG_OK;
      break;
    }
    st = psg_tir_evaluate_create(ctx, e, NULL, &keep[k++]);
  }
  if (!st && k == 0) {
    psg_tir_expr *zero = NULL;
    st = psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), 0, &store->span, &zero);
    if (!st) st = psg_tir_evaluate_create(ctx, zero, &store->span, out);
    psg_tir_release(zero);
  } else if (!st) {
    st = k == 1 ? (psg_tir_retain(*out = keep[0]), PSG_OK) : psg_tir_seq_stmt_create(ctx, keep, k, NULL, out);
  }
  for (size_t i = 0; i < k; i++) psg_tir_release(keep[i]);
  return st;
}

static int load_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  if (n->kind == PSG_TIR_BUFFER_LOAD || n->kind == PSG_TIR_CALL) {
    *(bool *)v->user = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

/* Whether e reads memory or calls anything (then its value may change). */
static bool reads_memory(psg_ctx *ctx, const psg_tir_node *e) {
  bool found = false;
  psg_tir_visitor v = {load_pre, NULL, &found};
  return psg_tir_visit(ctx, &v, e) != PSG_OK || found;
}

/* The negation of an `if` condition, a comparison flipped (!(i != 0) is
 * i == 0, which the analyzer learns a bound from), else Not. */
static psg_status negate(psg_ctx *ctx, psg_tir_expr *c, psg_tir_expr **out) {
  int k = c->kind;
  int flip = k == PSG_TIR_EQ ? PSG_TIR_NE : k == PSG_TIR_NE ? PSG_TIR_EQ : k == PSG_TIR_LT ? PSG_TIR_GE
           : k == PSG_TIR_GE ? PSG_TIR_LT : k == PSG_TIR_LE ? PSG_TIR_GT : k == PSG_TIR_GT ? PSG_TIR_LE : 0;
  if (flip && psg_tir_dtype_lanes(c->dtype) == 1) return psgi_arith_mk(ctx, flip, c->kids[0], c->kids[1], out);
  return psgi_arith_mk(ctx, PSG_TIR_NOT, c, NULL, out);
}

/* ---- proofs ---------------------------------------------------------------- */

static bool prove_kind(psg_arith_analyzer *a, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  psg_tir_expr *c = NULL;
  if (x->dtype != y->dtype || psgi_arith_mk(a->ctx, kind, x, y, &c)) return false;
  bool ok = psg_arith_can_prove(a, c);
  psg_tir_release(c);
  return ok;
}

/* lo <= e < lo + ext */
static bool prove_in(psg_arith_analyzer *a, psg_tir_expr *e, psg_tir_expr *lo, psg_tir_expr *ext) {
  psg_tir_expr *hi = NULL;
  if (lo->dtype != ext->dtype || psgi_arith_mk(a->ctx, PSG_TIR_ADD, lo, ext, &hi)) return false;
  bool ok = prove_kind(a, PSG_TIR_LE, lo, e) && prove_kind(a, PSG_TIR_LT, e, hi);
  psg_tir_release(hi);
  return ok;
}

static bool prove_equal(psg_arith_analyzer *a, psg_tir_expr *x, psg_tir_expr *y) {
  bool saved = a->use_let_values;
  a->use_let_values = true; /* see through the lets in scope, as TVM's analyzer does */
  bool ok = x == y || psg_arith_can_prove_equal(a, x, y);
  a->use_let_values = saved;
  return ok;
}

/* ---- the shapes the dataflow rules read ------------------------------------ */

/* A nest: loops, at most one `if` without else, then the statement inside. */
typedef struct nest {
  psg_tir_stmt *loops[MAX_NEST];
  size_t nloops;
  psg_tir_expr *cond; /* NULL: none */
  psg_tir_stmt *inner;
} nest;

static bool read_nest(psg_tir_stmt *s, nest *n) {
  n->nloops = 0;
  n->cond = NULL;
  while (s->kind == PSG_TIR_FOR) {
    if (n->nloops == MAX_NEST) return false;
    n->loops[n->nloops++] = s;
    s = psg_tir_get_body(s);
  }
  if (s->kind == PSG_TIR_IF_THEN_ELSE) {
    if (s->nkids > 2) return false;
    n->cond = s->kids[0];
    s = s->kids[1];
  }
  n->inner = s;
  return true;
}

static void nest_vars(const nest *n, psg_tir_node **vars) {
  for (size_t i = 0; i < n->nloops; i++) vars[i] = n->loops[i]->kids[0];
}

static bool plain_store(const psg_tir_node *s) {
  return s->kind == PSG_TIR_BUFFER_STORE && !(s->flags & PSGI_TIR_HAS_PRED);
}

/* A store in a statement with the loops and branches above it. */
typedef struct step {
  psg_tir_stmt *s;
  int branch; /* If: 0 then, 1 else */
} step;

typedef struct site {
  const psg_tir_node *store;
  step path[MAX_NEST];
  size_t depth;
  int count; /* occurrences in the statement (a shared node: > 1) */
} site;
typedef PSGI_VEC(site) site_vec;

/* The analyzer learns the facts of a path; undone by exit_constraint. */
static psg_status enter_path(psg_arith_analyzer *a, const step *path, size_t depth) {
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < depth; i++) {
    psg_tir_stmt *s = path[i].s;
    psg_arith_scope ignored;
    if (s->kind == PSG_TIR_FOR) {
      if (psgi_arith_is_index_dtype(s->kids[0]->dtype))
        st = psg_arith_bind(a, s->kids[0], psg_tir_for_get_min(s), psg_tir_for_get_extent(s));
    } else if (path[i].branch == 0) {
      st = psg_arith_enter_constraint(a, s->kids[0], &ignored);
    } else {
      psg_tir_expr *neg = NULL;
      st = negate(a->ctx, s->kids[0], &neg);
      if (!st) st = psg_arith_enter_constraint(a, neg, &ignored);
      psg_tir_release(neg);
    }
  }
  return st;
}

/* The stores of s under For, If and SeqStmt only (others are not looked
 * into: their stores stay). */
static psg_status find_sites(psg_ctx *ctx, psg_tir_stmt *s, site_vec *out) {
  typedef struct item {
    psg_tir_stmt *s;
    step path[MAX_NEST];
    size_t depth;
  } item;
  PSGI_VEC(item) stack = {0};
  item *root = psgi_calloc(ctx, sizeof *root);
  if (!root) return psgi_nomem(ctx);
  root->s = s;
  psg_status st = PSGI_VEC_PUSH(ctx, &stack, *root) ? PSG_OK : psgi_nomem(ctx);
  psgi_free(ctx, root);
  while (!st && stack.len) {
    item it = stack.data[--stack.len];
    psg_tir_stmt *c = it.s;
    if (plain_store(c)) {
      size_t i = 0;
      while (i < out->len && out->data[i].store != c) i++;
      if (i < out->len) {
        out->data[i].count++;
        continue;
      }
      if (out->len == MAX_STORES) continue;
      site z;
      z.store = c;
      z.depth = it.depth;
      z.count = 1;
      memcpy(z.path, it.path, it.depth * sizeof *it.path);
      if (!PSGI_VEC_PUSH(ctx, out, z)) st = psgi_nomem(ctx);
      continue;
    }
    if (c->kind == PSG_TIR_SEQ_STMT) {
      for (size_t i = c->nkids; i-- > 0 && !st;) {
        item sub = it;
        sub.s = c->kids[i];
        if (!PSGI_VEC_PUSH(ctx, &stack, sub)) st = psgi_nomem(ctx);
      }
    } else if ((c->kind == PSG_TIR_FOR || c->kind == PSG_TIR_IF_THEN_ELSE) && it.depth < MAX_NEST) {
      size_t nb = c->kind == PSG_TIR_FOR ? 1 : c->nkids - 1;
      for (size_t b = nb; b-- > 0 && !st;) {
        item sub = it;
        sub.path[sub.depth].s = c;
        sub.path[sub.depth].branch = (int)b;
        sub.depth++;
        sub.s = c->kind == PSG_TIR_FOR ? psg_tir_get_body(c) : c->kids[1 + b];
        if (!PSGI_VEC_PUSH(ctx, &stack, sub)) st = psgi_nomem(ctx);
      }
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  return st;
}

/* Where the indices of store t (in nest y) meet the element idx[] of a
 * store in scope: each index of t is one of y's loop vars (mapped to idx)
 * or an expression free of them proved equal to idx. Loop ranges and the
 * condition of y must then hold for the mapped values; the loops whose var
 * no index names must run at least once. The analyzer holds the facts of
 * idx's scope. */
static bool nest_covers(psg_arith_analyzer *a, const nest *y, const psg_tir_node *t, psg_tir_node *const *idx,
                        size_t n) {
  psg_ctx *ctx = a->ctx;
  psg_tir_node *vars[MAX_NEST], *to[MAX_NEST];
  psg_tir_node *mapped_from[MAX_NEST];
  size_t nm = 0;
  nest_vars(y, vars);
  if (psgi_tir_num_indices(t) != n) return false;
  for (size_t d = 0; d < n; d++) /* what reads memory may mean another thing at the other store */
    if (reads_memory(ctx, psgi_tir_indices(t)[d]) || reads_memory(ctx, idx[d])) return false;
  if (y->cond && reads_memory(ctx, y->cond)) return false;
  for (size_t l = 0; l < y->nloops; l++)
    if (reads_memory(ctx, psg_tir_for_get_min(y->loops[l])) || reads_memory(ctx, psg_tir_for_get_extent(y->loops[l])))
      return false;
  for (size_t d = 0; d < n; d++) {
    psg_tir_expr *ti = psgi_tir_indices(t)[d];
    size_t l = 0;
    while (l < y->nloops && vars[l] != ti) l++;
    if (l < y->nloops) {
      for (size_t j = 0; j < nm; j++)
        if (mapped_from[j] == ti) return false; /* the same var on two axes */
      mapped_from[nm] = ti;
      to[nm++] = idx[d];
      continue;
    }
    if (mentions(ctx, ti, vars, y->nloops) || !prove_equal(a, ti, idx[d])) return false;
  }
  bool ok = true;
  for (size_t l = 0; ok && l < y->nloops; l++) {
    psg_tir_stmt *loop = y->loops[l];
    psg_tir_expr *lo = psg_tir_for_get_min(loop), *ext = psg_tir_for_get_extent(loop);
    if (mentions(ctx, lo, vars, y->nloops) || mentions(ctx, ext, vars, y->nloops)) return false;
    size_t j = 0;
    while (j < nm && mapped_from[j] != vars[l]) j++;
    if (j == nm) {
      psg_tir_expr *zero = NULL;
      if (psgi_arith_int(ctx, ext->dtype, 0, &zero)) return false;
      ok = prove_kind(a, PSG_TIR_LT, zero, ext);
      psg_tir_release(zero);
    } else {
      ok = to[j]->dtype == lo->dtype && prove_in(a, to[j], lo, ext);
    }
  }
  if (ok && y->cond) {
    psg_tir_expr *c = NULL;
    if (substitute(ctx, y->cond, mapped_from, to, nm, &c)) return false;
    ok = !mentions(ctx, c, vars, y->nloops) && psg_arith_can_prove(a, c);
    psg_tir_release(c);
  }
  return ok;
}

/* Stores of y (a nest) that write the buffer of `store`. */
static bool covered_by(psg_arith_analyzer *a, psg_tir_stmt *y, const site *z) {
  nest ny;
  if (!read_nest(y, &ny)) return false;
  psg_tir_stmt *const *body = &ny.inner;
  size_t nb = 1;
  if (ny.inner->kind == PSG_TIR_SEQ_STMT) body = ny.inner->kids, nb = ny.inner->nkids;
  bool ok = false;
  psg_arith_scope sc = {a->facts.len, a->known.len};
  if (enter_path(a, z->path, z->depth)) {
    psg_arith_exit_constraint(a, &sc);
    return false;
  }
  for (size_t i = 0; !ok && i < nb; i++) {
    const psg_tir_node *t = body[i];
    if (!plain_store(t) || t->kids[0] != z->store->kids[0]) continue;
    ok = nest_covers(a, &ny, t, psgi_tir_indices(z->store), psgi_tir_num_indices(z->store));
  }
  psg_arith_exit_constraint(a, &sc);
  return ok;
}

/* ---- the two dataflow rules over the statements of one SeqStmt -------------- */

/* Stores of r[m] overwritten by a later statement: replaced in r[m]. */
static psg_status drop_overwritten(psg_arith_analyzer *a, psg_tir_stmt **r, size_t m, size_t n) {
  psg_ctx *ctx = a->ctx;
  site_vec sites = {0};
  psg_tir_stmt *orig = r[m]; /* the sites' paths point into it: kept alive while r[m] is rebuilt */
  psg_tir_retain(orig);
  psg_status st = find_sites(ctx, r[m], &sites);
  for (size_t i = 0; !st && i < sites.len; i++) {
    site *z = &sites.data[i];
    if (z->count > 1) continue;
    const psg_tir_node *data = data_of(z->store);
    touch own;
    if (r[m] != z->store) { /* the store's own operands run before it */
      if ((st = scan(ctx, r[m], data, &own))) break;
      if (own.reads || own.effects) continue;
    }
    bool dead = false;
    for (size_t k = m + 1; k < n && k <= m + LOOKAHEAD && !dead; k++) {
      touch t;
      if ((st = scan(ctx, r[k], data, &t))) break;
      if (t.reads || t.effects) break;
      dead = t.writes && covered_by(a, r[k], z);
    }
    if (st || !dead) continue;
    psg_tir_stmt *left = NULL, *next = NULL;
    if ((st = side_effects_of(ctx, z->store, &left))) break;
    st = replace(ctx, r[m], z->store, left, &next);
    psg_tir_release(left);
    if (st) break;
    psg_tir_release(r[m]);
    r[m] = next;
  }
  PSGI_VEC_FREE(ctx, &sites);
  psg_tir_release(orig);
  return st;
}

/* Whether nest x (a store of a value reading no memory, once per element)
 * leaves at idx[] the value v. The analyzer holds the facts of idx's scope. */
static bool leaves_value(psg_arith_analyzer *a, psg_tir_stmt *x, const psg_tir_node *t, psg_tir_node *const *idx,
                         size_t n, psg_tir_expr *v) {
  psg_ctx *ctx = a->ctx;
  nest nx;
  if (!read_nest(x, &nx) || !plain_store(nx.inner) || nx.inner->kids[0] != t->kids[0]) return false;
  const psg_tir_node *s = nx.inner;
  psg_tir_node *vars[MAX_NEST];
  nest_vars(&nx, vars);
  for (size_t l = 0; l < nx.nloops; l++) { /* every loop var is an axis: one write per element */
    bool named = false;
    for (size_t d = 0; d < n && !named; d++) named = psgi_tir_indices(s)[d] == vars[l];
    if (!named) return false;
  }
  if (!nest_covers(a, &nx, s, idx, n)) return false;
  /* The value stored there: s's value with the loop vars at idx. */
  psg_tir_node *from[MAX_NEST], *to[MAX_NEST];
  size_t nm = 0;
  for (size_t d = 0; d < n; d++)
    for (size_t l = 0; l < nx.nloops; l++)
      if (psgi_tir_indices(s)[d] == vars[l]) {
        from[nm] = vars[l];
        to[nm++] = idx[d];
      }
  psg_tir_expr *w = NULL;
  if (substitute(ctx, s->kids[1], from, to, nm, &w)) return false;
  bool ok = w->dtype == v->dtype && prove_equal(a, w, v);
  psg_tir_release(w);
  return ok;
}

/* The store of r[m] (a nest around one store) that writes values its buffer
 * already holds from an earlier statement: replaced in r[m]. */
static psg_status drop_known(psg_arith_analyzer *a, psg_tir_stmt **r, size_t m) {
  psg_ctx *ctx = a->ctx;
  nest ny;
  if (!read_nest(r[m], &ny) || !plain_store(ny.inner) || m == 0) return PSG_OK;
  const psg_tir_node *t = ny.inner;
  const psg_tir_node *data = data_of(t);
  site z = {.store = t, .depth = 0};
  for (size_t l = 0; l < ny.nloops; l++) z.path[z.depth++] = (step){ny.loops[l], 0};
  if (ny.cond) z.path[z.depth++] = (step){r[m], 0}; /* placeholder, fixed below */
  if (ny.cond) { /* the If is the statement right above t */
    psg_tir_stmt *s = r[m];
    for (size_t l = 0; l < ny.nloops; l++) s = psg_tir_get_body(s);
    z.path[z.depth - 1].s = s;
  }
  bool dead = false;
  psg_status st = PSG_OK;
  for (size_t k = m; k-- > 0 && m - k <= LOOKAHEAD && !dead;) {
    nest nx;
    if (read_nest(r[k], &nx) && plain_store(nx.inner) && !reads_memory(ctx, nx.inner->kids[1])) {
      psg_arith_scope sc = {a->facts.len, a->known.len};
      if ((st = enter_path(a, z.path, z.depth))) {
        psg_arith_exit_constraint(a, &sc);
        return st;
      }
      dead = leaves_value(a, r[k], t, psgi_tir_indices(t), psgi_tir_num_indices(t), t->kids[1]);
      psg_arith_exit_constraint(a, &sc);
      if (dead) break;
    }
    touch w;
    if ((st = scan(ctx, r[k], data, &w))) return st;
    if (w.writes || w.effects) break;
  }
  if (!dead) return PSG_OK;
  psg_tir_stmt *left = NULL, *next = NULL;
  if ((st = side_effects_of(ctx, t, &left))) return st;
  st = replace(ctx, r[m], t, left, &next);
  psg_tir_release(left);
  if (st) return st;
  psg_tir_release(r[m]);
  r[m] = next;
  return PSG_OK;
}

/* ---- the walk ----------------------------------------------------------------- */

typedef struct frame {
  psg_tir_stmt *s;
  uint32_t next; /* next child */
  size_t base;   /* results.len when its children started */
  psg_arith_scope scope;
  psg_tir_expr *neg; /* If: the negated condition, owned */
} frame;

typedef struct walker {
  psg_ctx *ctx;
  psg_arith_analyzer *a;
  bool dataflow;
  PSGI_VEC(frame) st;
  PSGI_VEC(psg_tir_stmt *) res;
} walker;

static uint32_t num_children(const psg_tir_stmt *s) {
  switch (s->kind) {
    case PSG_TIR_SEQ_STMT: return s->nkids;
    case PSG_TIR_IF_THEN_ELSE: return s->nkids - 1;
    case PSG_TIR_FOR:
    case PSG_TIR_LET_STMT:
    case PSG_TIR_ALLOCATE:
    case PSG_TIR_DECL_BUFFER:
    case PSG_TIR_ATTR_STMT:
    case PSG_TIR_ASSERT_STMT:
    case PSG_TIR_WHILE: return 1;
    default: return 0;
  }
}

/* The operand slot of child i. */
static uint32_t child_slot(const psg_tir_stmt *s, uint32_t i) {
  if (s->kind == PSG_TIR_SEQ_STMT) return i;
  if (s->kind == PSG_TIR_IF_THEN_ELSE) return 1 + i;
  psg_tir_node *body = psg_tir_get_body(s);
  uint32_t k = 0;
  while (s->kids[k] != body) k++;
  return k;
}

/* A store of the element it loads, under the facts in scope. */
static bool self_store(walker *w, const psg_tir_stmt *s) {
  const psg_tir_node *v = s->kids[1];
  if (v->kind != PSG_TIR_BUFFER_LOAD || (s->flags & PSGI_TIR_HAS_PRED) || (v->flags & PSGI_TIR_HAS_PRED)) return false;
  if (v->kids[0] != s->kids[0] || psgi_tir_num_indices(v) != psgi_tir_num_indices(s)) return false;
  for (size_t i = 0; i < psgi_tir_num_indices(s); i++)
    if (!prove_equal(w->a, psgi_tir_indices(v)[i], psgi_tir_indices(s)[i])) return false;
  return true;
}

static psg_status leaf(walker *w, psg_tir_stmt *s, psg_tir_stmt **out) {
  if (s->kind == PSG_TIR_BUFFER_STORE && self_store(w, s)) return side_effects_of(w->ctx, s, out);
  psg_tir_retain(*out = s);
  return PSG_OK;
}

static psg_status enter(walker *w, frame *f) {
  psg_tir_stmt *s = f->s;
  psg_arith_analyzer *a = w->a;
  f->scope = (psg_arith_scope){a->facts.len, a->known.len};
  psg_arith_scope ignored;
  switch (s->kind) {
    case PSG_TIR_FOR:
      if (!psgi_arith_is_index_dtype(s->kids[0]->dtype)) return PSG_OK;
      return psg_arith_bind(a, s->kids[0], psg_tir_for_get_min(s), psg_tir_for_get_extent(s));
    case PSG_TIR_IF_THEN_ELSE: return psg_arith_enter_constraint(a, s->kids[0], &ignored);
    case PSG_TIR_LET_STMT: return psg_arith_bind_value(a, s->kids[0], s->kids[1]);
    case PSG_TIR_ATTR_STMT: {
      psg_tir_node *node = psg_tir_attr_stmt_get_node(s);
      psg_tir_expr *ext = psg_tir_attr_stmt_get_value(s);
      const char *key = psg_tir_attr_stmt_key(s);
      if (!node || !psgi_tir_is_var_kind(node->kind) || !psgi_arith_is_index_dtype(node->dtype) ||
          node->dtype != ext->dtype || (strcmp(key, "thread_extent") && strcmp(key, "virtual_thread")))
        return PSG_OK;
      psg_tir_expr *zero = NULL;
      psg_status st = psgi_arith_int(w->ctx, node->dtype, 0, &zero);
      if (!st) st = psg_arith_bind(a, node, zero, ext); /* a thread index runs over [0, extent) */
      psg_tir_release(zero);
      return st;
    }
    default: return PSG_OK;
  }
}

/* The else branch knows the negated condition. */
static psg_status between(walker *w, frame *f, uint32_t done) {
  if (f->s->kind != PSG_TIR_IF_THEN_ELSE || done != 0) return PSG_OK;
  psg_arith_exit_constraint(w->a, &f->scope);
  psg_status st = negate(w->ctx, f->s->kids[0], &f->neg);
  psg_arith_scope ignored;
  if (!st) st = psg_arith_enter_constraint(w->a, f->neg, &ignored);
  return st;
}

static psg_status finish(walker *w, frame *f, psg_tir_stmt **out) {
  psg_tir_stmt *s = f->s;
  psg_tir_stmt **r = (w->res.data ? w->res.data + f->base : NULL);
  size_t nr = w->res.len - f->base;
  psg_status st = PSG_OK;
  psg_tir_expr *zero = NULL;
  if (s->kind == PSG_TIR_FOR && psgi_arith_is_index_dtype(psg_tir_for_get_extent(s)->dtype)) {
    /* A loop whose extent is <= 0 for every value of the vars in scope
     * never runs (TVM: the extent's upper bound over the loop ranges). */
    psg_tir_expr *ext = psg_tir_for_get_extent(s);
    if ((st = psgi_arith_int(w->ctx, ext->dtype, 0, &zero))) return st;
    bool never = ext->kind != PSG_TIR_INT_IMM && prove_kind(w->a, PSG_TIR_LE, ext, zero);
    psg_tir_release(zero);
    if (never) {
      for (size_t i = 0; i < nr; i++) psg_tir_release(r[i]);
      w->res.len = f->base;
      if ((st = psgi_arith_int(w->ctx, psg_tir_dtype_int32(), 0, &zero))) return st;
      st = psg_tir_evaluate_create(w->ctx, zero, &s->span, out);
      psg_tir_release(zero);
      return st;
    }
  }
  if (s->kind == PSG_TIR_SEQ_STMT && w->dataflow) {
    /* Facts of the block's scope only. */
    for (size_t m = 0; !st && m < nr; m++) {
      st = drop_overwritten(w->a, r, m, nr);
      if (!st) st = drop_known(w->a, r, m);
    }
  }
  bool changed = false;
  for (uint32_t i = 0; i < nr; i++) changed |= r[i] != s->kids[child_slot(s, i)];
  if (st) {
  } else if (!changed) {
    psg_tir_retain(*out = s);
  } else {
    psg_tir_node **kids = psgi_alloc(w->ctx, s->nkids * sizeof *kids);
    if (!kids) {
      st = psgi_nomem(w->ctx);
    } else {
      memcpy(kids, s->kids, s->nkids * sizeof *kids);
      for (uint32_t i = 0; i < nr; i++) kids[child_slot(s, i)] = r[i];
      st = psgi_tir_rebuild(s, kids, out);
      psgi_free(w->ctx, kids);
    }
  }
  for (size_t i = 0; i < nr; i++) psg_tir_release(r[i]);
  w->res.len = f->base;
  return st;
}

static void drop_frame(walker *w, frame *f) {
  psg_arith_exit_constraint(w->a, &f->scope);
  psg_tir_release(f->neg);
}

static psg_status walk(walker *w, psg_tir_stmt *root, psg_tir_stmt **out) {
  psg_status st = PSG_OK;
  *out = NULL;
  if (!num_children(root)) return leaf(w, root, out);
  frame f0 = {.s = root, .base = w->res.len};
  if (!PSGI_VEC_PUSH(w->ctx, &w->st, f0)) return psgi_nomem(w->ctx);
  if ((st = enter(w, &w->st.data[0]))) goto fail;
  while (w->st.len) {
    frame *f = &w->st.data[w->st.len - 1];
    uint32_t nc = num_children(f->s);
    if (f->next > 0 && f->next <= nc && (st = between(w, f, f->next - 1))) goto fail;
    if (f->next < nc) {
      psg_tir_stmt *c = f->s->kids[child_slot(f->s, f->next++)];
      if (!num_children(c)) {
        psg_tir_stmt *r = NULL;
        if ((st = leaf(w, c, &r))) goto fail;
        if (!PSGI_VEC_PUSH(w->ctx, &w->res, r)) {
          psg_tir_release(r);
          st = psgi_nomem(w->ctx);
          goto fail;
        }
        continue;
      }
      frame fc = {.s = c, .base = w->res.len};
      if (!PSGI_VEC_PUSH(w->ctx, &w->st, fc)) {
        st = psgi_nomem(w->ctx);
        goto fail;
      }
      if ((st = enter(w, &w->st.data[w->st.len - 1]))) goto fail;
      continue;
    }
    f->next = nc + 1; /* no more `between` */
    psg_tir_stmt *r = NULL;
    st = finish(w, f, &r);
    drop_frame(w, f);
    w->st.len--;
    if (st) goto fail;
    if (!PSGI_VEC_PUSH(w->ctx, &w->res, r)) {
      psg_tir_release(r);
      st = psgi_nomem(w->ctx);
      goto fail;
    }
  }
  *out = w->res.data[--w->res.len];
  return PSG_OK;
fail:
  while (w->st.len) drop_frame(w, &w->st.data[--w->st.len]);
  for (size_t i = 0; i < w->res.len; i++) psg_tir_release(w->res.data[i]);
  w->res.len = 0;
  return st;
}

psg_status psgi_tir_drop_dead_stores(psg_ctx *ctx, psg_tir_stmt *body, bool dataflow, psg_tir_stmt **out) {
  walker w = {.ctx = ctx, .dataflow = dataflow};
  psg_status st = psg_arith_analyzer_create(ctx, &w.a);
  if (!st) st = walk(&w, body, out);
  PSGI_VEC_FREE(ctx, &w.st);
  PSGI_VEC_FREE(ctx, &w.res);
  psg_arith_analyzer_destroy(w.a);
  return st;
}
