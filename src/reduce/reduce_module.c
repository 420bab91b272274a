/* Passage — the reducer's second stage (include/passage/reduce.h): shrink the
 * module, to a fixed point, by rounds of
 *   1. re-rooting: a function's result becomes the earliest call that keeps
 *      the predicate (a binary search over the prefixes of its calls, whose
 *      tuple is the candidate result: keeping more calls never loses one);
 *   2. zeros: calls replaced by a zero of their type (an upstream cone dies);
 *   3. inputs: calls replaced by an input (one of the same type if any), a
 *      Let by its body with the variable inlined, an If by its then branch;
 *   4. constants: a constant of several elements, or a zeros(...) call,
 *      replaced by a zero scalar (where broadcasting keeps it typed);
 *   5. functions: global functions nothing refers to dropped (not main).
 * Steps 2-5 are delta debugging over their items (reduce_ddmin.c). Every
 * candidate is typed and judged by psgi_reduce_try_module. */
#include <stdio.h>
#include <string.h>
#include "reduce/reduce_internal.h"

enum { MODE_ZERO, MODE_INPUT, MODE_CONST, MODE_FUNCTION };
static const char *const mode_names[] = {"zero calls", "calls to inputs", "shrink constants", "drop functions"};

/* Zero tensors of at most this many elements are constants; larger ones are
 * zeros(shape, dtype) calls, so that the module text stays small. */
enum { MAX_ZERO_CONSTANT = 16 };

typedef struct mstage {
  psgi_reducer *r;
  int mode;
  PSGI_VEC(const psg_expr *) items; /* borrowed from r->mod (or names, MODE_FUNCTION: GlobalVars) */
  psgi_map index;                   /* item -> its position + 1 */
  size_t from, count;               /* the chunk being tried */
  bool stale;                       /* r->mod changed: collect again */
  psg_status st;                    /* a failed collection (NOMEM) */
} mstage;

static bool is_call_of(const psg_expr *e, const char *op) {
  return e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP && !strcmp(psg_op_name(e->kids[0]), op);
}

/* A zero of type `t` in *out, or NULL when `t` has none (not a tensor of
 * known shape or a tuple of such). */
static psg_status zero_of(psg_ctx *ctx, const psg_type *t, psg_expr **out) {
  *out = NULL;
  if (!t) return PSG_OK;
  if (psg_type_kind(t) == PSG_TYPE_TUPLE) {
    int n = psg_type_num_fields(t);
    psg_expr **f = psgi_calloc(ctx, (size_t)(n ? n : 1) * sizeof *f);
    if (!f) return psgi_nomem(ctx);
    psg_status st = PSG_OK;
    bool all = true;
    for (int i = 0; !st && all && i < n; i++) st = zero_of(ctx, psg_type_field(t, i), &f[i]), all = f[i] != NULL;
    if (!st && all) st = psg_tuple_create(ctx, f, (size_t)n, NULL, out);
    for (int i = 0; i < n; i++) psg_expr_release(f[i]);
    psgi_free(ctx, f);
    return st;
  }
  if (psg_type_kind(t) != PSG_TYPE_TENSOR || !psg_type_is_static(t)) return PSG_OK;
  int nd = psg_type_ndim(t), dtype = psg_type_dtype(t);
  int64_t shape[64], numel = 1;
  if (nd > 64) return PSG_OK;
  for (int i = 0; i < nd; i++) shape[i] = psg_type_dim(t, i), numel *= shape[i];
  psg_status st;
  if (numel <= MAX_ZERO_CONSTANT) {
    psg_tensor *z = NULL;
    st = psg_tensor_create(ctx, dtype, shape, nd, NULL, &z);
    if (!st) st = psg_constant_create(ctx, z, NULL, out);
    psg_tensor_release(z);
    return st;
  }
  psg_attr *dims[64] = {0}, *vals[2] = {0};
  psg_attrs *attrs = NULL;
  psg_expr *op = NULL;
  st = PSG_OK;
  for (int i = 0; !st && i < nd; i++) st = psg_attr_int(ctx, shape[i], &dims[i]);
  if (!st) st = psg_attr_list(ctx, dims, (size_t)nd, &vals[0]);
  if (!st) st = psg_attr_dtype(ctx, dtype, &vals[1]);
  static const char *const keys[] = {"shape", "dtype"};
  if (!st) st = psg_attrs_create(ctx, keys, vals, 2, &attrs);
  if (!st) st = psg_op_get(ctx, "zeros", &op);
  if (!st) st = psg_call_create(ctx, op, NULL, 0, attrs, NULL, out);
  for (int i = 0; i < nd; i++) psg_attr_release(dims[i]);
  psg_attr_release(vals[0]);
  psg_attr_release(vals[1]);
  psg_attrs_release(attrs);
  return st;
}

/* Whether a zero would change `e` at all (a zero is already as small). */
static bool is_zero_already(const psg_expr *e) {
  return (is_call_of(e, "zeros") && e->nkids == 1) || e->kind == PSG_EXPR_CONSTANT;
}

/* The input a call is replaced by in MODE_INPUT: the first argument of the
 * call's own type, else the first that is not a constant, else none. */
static const psg_expr *chosen_input(const psg_expr *call) {
  if (call->nkids < 2) return NULL;
  for (uint32_t i = 1; i < call->nkids; i++)
    if (call->checked_type && call->kids[i]->checked_type &&
        psg_type_structural_equal(call->checked_type, call->kids[i]->checked_type, false))
      return call->kids[i];
  for (uint32_t i = 1; i < call->nkids; i++)
    if (call->kids[i]->kind != PSG_EXPR_CONSTANT) return call->kids[i];
  return NULL;
}

/* Collection ----------------------------------------------------------------- */

static int skip_composite(psg_visitor *v, const psg_expr *e) {
  (void)v;
  return psgi_is_composite_fn(e) ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_CONTINUE;
}

static bool is_item(const mstage *s, const psg_expr *e) {
  switch (s->mode) {
  case MODE_ZERO:
    return e->kind == PSG_EXPR_CALL && !is_zero_already(e) && e->checked_type &&
           (psg_type_kind(e->checked_type) == PSG_TYPE_TUPLE ||
            (psg_type_kind(e->checked_type) == PSG_TYPE_TENSOR && psg_type_is_static(e->checked_type)));
  case MODE_INPUT:
    return (e->kind == PSG_EXPR_CALL && chosen_input(e)) || e->kind == PSG_EXPR_LET || e->kind == PSG_EXPR_IF;
  case MODE_CONST: {
    /* A constant of several elements, or a zeros(...) call of a tensor. */
    psg_tensor *t = e->kind == PSG_EXPR_CONSTANT ? psg_constant_get_tensor(e) : NULL;
    return (t && psg_tensor_numel(t) > 1) || (is_call_of(e, "zeros") && e->nkids == 1 && e->checked_type &&
                                               psg_type_kind(e->checked_type) == PSG_TYPE_TENSOR);
  }
  default: return false;
  }
}

static psg_status add_item(psg_visitor *v, const psg_expr *e) {
  mstage *s = v->user;
  if (!is_item(s, e)) return PSG_OK;
  bool is_new;
  psgi_map_entry *me = psgi_map_put_ptr(&s->index, e, &is_new);
  if (!me) return psgi_nomem(s->r->ctx);
  if (!is_new) return PSG_OK; /* shared by two functions */
  if (!PSGI_VEC_PUSH(s->r->ctx, &s->items, e)) return psgi_nomem(s->r->ctx);
  me->value = (void *)(uintptr_t)s->items.len;
  return PSG_OK;
}

/* GlobalVar names referred to anywhere in the module. */
static psg_status note_global(psg_visitor *v, const psg_expr *e) {
  if (e->kind != PSG_EXPR_GLOBAL_VAR) return PSG_OK;
  bool is_new;
  const char *name = psg_global_var_name(e);
  return psgi_map_put_str(v->user, name, strlen(name), &is_new) ? PSG_OK : PSG_ERR_NOMEM;
}

static psg_status collect(mstage *s) {
  psg_ctx *ctx = s->r->ctx;
  s->items.len = 0;
  psgi_map_clear(&s->index);
  s->stale = false;
  const psg_module *m = s->r->mod;
  size_t nf = psg_module_num_functions(m);
  psg_status st = PSG_OK;
  if (s->mode == MODE_FUNCTION) {
    psgi_map used;
    psgi_map_init(&used, ctx);
    for (size_t i = 0; !st && i < nf; i++) {
      psg_expr *f = psg_module_get_function(m, i);
      psg_visitor v = {NULL, note_global, &used};
      if (f && f->kind == PSG_EXPR_FUNCTION) st = psg_visit(ctx, &v, f);
    }
    for (size_t i = 0; !st && i < nf; i++) {
      psg_expr *gv = psg_module_get_global_var(m, i);
      const char *name = psg_global_var_name(gv);
      if (strcmp(name, "main") && !psgi_map_get_str(&used, name, strlen(name)) &&
          !PSGI_VEC_PUSH(ctx, &s->items, gv))
        st = psgi_nomem(ctx);
    }
    psgi_map_fini(&used);
    return st;
  }
  for (size_t i = 0; !st && i < nf; i++) {
    psg_expr *f = psg_module_get_function(m, i);
    psg_visitor v = {skip_composite, add_item, s};
    if (f && f->kind == PSG_EXPR_FUNCTION) st = psg_visit(ctx, &v, f);
  }
  /* Inputs are tried from the outputs back: bypassing the last calls first
   * lets whole tails go. */
  if (!st && s->mode == MODE_INPUT)
    for (size_t i = 0, j = s->items.len; i + 1 < j; i++, j--) {
      const psg_expr *t = s->items.data[i];
      s->items.data[i] = s->items.data[j - 1], s->items.data[j - 1] = t;
    }
  if (!st && s->mode == MODE_INPUT)
    for (size_t i = 0; i < s->items.len; i++) psgi_map_get_ptr(&s->index, s->items.data[i])->value = (void *)(i + 1);
  return st;
}

/* The current items; none after a failed collection, whose status the
 * caller finds in s->st. */
static size_t items_length(void *user) {
  mstage *s = user;
  if (s->stale && !s->st) s->st = collect(s);
  return s->st ? 0 : s->items.len;
}

/* Rewriting ------------------------------------------------------------------- */

static bool in_chunk(const mstage *s, const psg_expr *e) {
  psgi_map_entry *me = psgi_map_get_ptr(&s->index, e);
  if (!me) return false;
  size_t pos = (uintptr_t)me->value - 1;
  return pos >= s->from && pos < s->from + s->count;
}

static psg_status pre(psg_mutator *m, const psg_expr *e, psg_expr **replacement) {
  mstage *s = m->user;
  *replacement = NULL;
  if ((s->mode != MODE_ZERO && s->mode != MODE_CONST) || !in_chunk(s, e)) return PSG_OK;
  if (s->mode == MODE_ZERO) return zero_of(m->ctx, e->checked_type, replacement);
  psg_tensor *z = NULL;
  int dtype = e->kind == PSG_EXPR_CONSTANT ? psg_tensor_dtype(psg_constant_get_tensor(e)) : psg_type_dtype(e->checked_type);
  psg_status st = psg_tensor_create(m->ctx, dtype, NULL, 0, NULL, &z);
  if (!st) st = psg_constant_create(m->ctx, z, NULL, replacement);
  psg_tensor_release(z);
  return st;
}

/* A Let being dropped: its variable stands for its (rewritten) value. */
static psg_status before_child(psg_mutator *m, const psg_expr *parent, size_t index) {
  mstage *s = m->user;
  if (s->mode != MODE_INPUT || parent->kind != PSG_EXPR_LET || index != 2 || !in_chunk(s, parent)) return PSG_OK;
  return psg_mutator_set_result(m, parent->kids[0], psg_mutator_get_result(m, parent->kids[1]));
}

static psg_status visit_bypass(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  mstage *s = m->user;
  if (!in_chunk(s, e)) return psg_mutator_default(m, e, out);
  const psg_expr *by = e->kind == PSG_EXPR_CALL ? chosen_input(e) : e->kind == PSG_EXPR_LET ? e->kids[2] : e->kids[1];
  psg_expr *res = psg_mutator_get_result(m, by);
  if (!res) return psg_mutator_default(m, e, out);
  psg_expr_retain(res);
  *out = res;
  return PSG_OK;
}

/* The current module with the chunk's items rewritten, in *out (NULL if
 * nothing changed). */
static psg_status rewrite(mstage *s, psg_module **out) {
  psg_ctx *ctx = s->r->ctx;
  *out = NULL;
  psg_module *cur = s->r->mod;
  psg_module_retain(cur);
  psg_status st = PSG_OK;
  if (s->mode == MODE_FUNCTION) {
    for (size_t i = s->from; !st && i < s->from + s->count; i++) {
      psg_module *next = NULL;
      st = psg_module_remove(cur, psg_global_var_name(s->items.data[i]), &next);
      if (!st) psg_module_release(cur), cur = next;
    }
  } else {
    psg_mutator m;
    psg_mutator_init(&m, ctx);
    m.user = s;
    m.pre = pre;
    m.before_child = before_child;
    if (s->mode == MODE_INPUT) m.visit[PSG_EXPR_CALL] = m.visit[PSG_EXPR_LET] = m.visit[PSG_EXPR_IF] = visit_bypass;
    st = psgi_mutator_keep_composite(&m);
    size_t nf = psg_module_num_functions(s->r->mod);
    for (size_t i = 0; !st && i < nf; i++) {
      psg_expr *f = psg_module_get_function(s->r->mod, i), *nf_ = NULL;
      if (!f || f->kind != PSG_EXPR_FUNCTION) continue;
      st = psg_mutate(&m, f, &nf_);
      psg_module *next = NULL;
      if (!st && nf_ != f) st = psg_module_update(cur, psg_module_get_global_var(s->r->mod, i), nf_, &next);
      if (next) psg_module_release(cur), cur = next;
      psg_expr_release(nf_);
    }
    psg_mutator_fini(&m);
  }
  if (!st && cur != s->r->mod) *out = cur, cur = NULL;
  psg_module_release(cur);
  return st;
}

static int attempt(void *user, size_t from, size_t count) {
  mstage *s = user;
  s->from = from, s->count = count;
  psg_module *cand = NULL;
  psgi_diag_list *saved = NULL;
  psg_status st = psgi_diag_capture_begin(s->r->ctx, &saved);
  if (st) return st;
  st = rewrite(s, &cand);
  psgi_diag_capture_free(s->r->ctx, psgi_diag_capture_end(s->r->ctx, saved));
  /* A rewrite the IR refuses (a free variable left by a dropped binding)
   * is a rejected candidate, its diagnostics dropped; only running out of
   * memory stops. */
  if (st == PSG_ERR_NOMEM) return st;
  if (st || !cand) return 0;
  char what[96];
  snprintf(what, sizeof what, "%s: %zu of %zu", mode_names[s->mode], count, s->items.len);
  int v = psgi_reduce_try_module(s->r, cand, what);
  if (v > 0) s->stale = true;
  return v;
}

/* Re-rooting ------------------------------------------------------------------ */

static int skip_functions(psg_visitor *v, const psg_expr *e) {
  return e->kind == PSG_EXPR_FUNCTION && e != v->user ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_CONTINUE;
}

typedef struct calls_of {
  psg_visitor v;
  psg_ctx *ctx;
  PSGI_VEC(psg_expr *) calls;
} calls_of;

static psg_status add_call(psg_visitor *v, const psg_expr *e) {
  calls_of *c = (calls_of *)v;
  return e->kind == PSG_EXPR_CALL && !PSGI_VEC_PUSH(c->ctx, &c->calls, (psg_expr *)e) ? psgi_nomem(c->ctx) : PSG_OK;
}

/* Function `f` of index `fi` with parameters `params` (NULL: its own),
 * result `body` and no declared result type, offered as a candidate. */
static int try_function(psgi_reducer *r, size_t fi, const psg_expr *f, psg_expr *const *params, size_t np,
                        psg_expr *body, const char *what) {
  psg_ctx *ctx = r->ctx;
  int ntp = psg_function_num_type_params(f);
  const psg_type **tps = psgi_alloc(ctx, (size_t)(ntp ? ntp : 1) * sizeof *tps);
  psg_status st = tps ? PSG_OK : psgi_nomem(ctx);
  for (int i = 0; !st && i < ntp; i++) tps[i] = psg_function_type_param(f, i);
  psg_expr *nf = NULL;
  psg_module *cand = NULL;
  if (!st)
    st = psg_function_create_poly(ctx, params, np, body, NULL, tps, ntp, psg_function_get_attrs(f), psgi_expr_span_ref(f), &nf);
  psgi_diag_list *saved = NULL;
  if (!st) st = psgi_diag_capture_begin(ctx, &saved);
  if (!st) {
    st = psg_module_update(r->mod, psg_module_get_global_var(r->mod, fi), nf, &cand);
    psgi_diag_capture_free(ctx, psgi_diag_capture_end(ctx, saved));
  }
  psg_expr_release(nf);
  psgi_free(ctx, tps);
  if (st == PSG_ERR_NOMEM) return st;
  return st ? 0 : psgi_reduce_try_module(r, cand, what);
}

static int try_body(psgi_reducer *r, size_t fi, const psg_expr *f, psg_expr *body, const char *what) {
  /* A function's parameters are its first children. */
  return try_function(r, fi, f, f->kids, psg_function_num_params(f), body, what);
}

static psg_status mark_var(psg_visitor *v, const psg_expr *e) {
  bool is_new;
  if (e->kind == PSG_EXPR_VAR && !psgi_map_put_ptr(v->user, e, &is_new)) return PSG_ERR_NOMEM;
  return PSG_OK;
}

/* Function fi without the parameters its body does not use (a function
 * nothing calls, or the callers no longer type-check). */
static int drop_unused_params(psgi_reducer *r, size_t fi) {
  psg_expr *f = psg_module_get_function(r->mod, fi);
  if (!f || f->kind != PSG_EXPR_FUNCTION || psgi_is_composite_fn(f)) return 0;
  size_t np = psg_function_num_params(f), kept = 0;
  psgi_map used;
  psgi_map_init(&used, r->ctx);
  psg_visitor v = {NULL, mark_var, &used};
  psg_status st = psg_visit(r->ctx, &v, psgi_fn_body(f));
  psg_expr **params = psgi_alloc(r->ctx, (np ? np : 1) * sizeof *params);
  if (!st && !params) st = psgi_nomem(r->ctx);
  for (size_t i = 0; !st && i < np; i++)
    if (psgi_map_get_ptr(&used, f->kids[i])) params[kept++] = f->kids[i];
  int v2 = st;
  if (!st && kept < np) {
    char what[96];
    snprintf(what, sizeof what, "drop %zu unused parameters of @%s", np - kept,
             psg_global_var_name(psg_module_get_global_var(r->mod, fi)));
    psg_expr_retain(f); /* the candidate may replace the module holding it */
    v2 = try_function(r, fi, f, params, kept, psgi_fn_body(f), what);
    psg_expr_release(f);
  }
  psgi_free(r->ctx, params);
  psgi_map_fini(&used);
  return v2;
}

/* The result of `f` (function fi of `orig`, which the caller keeps alive)
 * as the tuple of its first k calls. */
static int try_prefix(psgi_reducer *r, size_t fi, const psg_expr *f, psg_expr **calls, size_t k) {
  psg_expr *t = NULL;
  psg_status st = psg_tuple_create(r->ctx, calls, k, NULL, &t);
  if (st) return st;
  char what[96];
  snprintf(what, sizeof what, "re-root @%s: its first %zu calls", psg_global_var_name(psg_module_get_global_var(r->mod, fi)), k);
  int v = try_body(r, fi, f, t, what);
  psg_expr_release(t);
  return v;
}

static int reroot(psgi_reducer *r, size_t fi) {
  psg_module *orig = r->mod;
  psg_module_retain(orig);
  psg_expr *f = psg_module_get_function(orig, fi);
  calls_of c = {{skip_functions, add_call, f}, r->ctx, {0}};
  int v = 0, accepted = 0;
  if (f && f->kind == PSG_EXPR_FUNCTION) v = psg_visit(r->ctx, &c.v, f);
  size_t n = c.calls.len;
  /* Invariant: the first hi calls keep the predicate (hi = n: the
   * function as it is), the first lo do not (lo = 0: assumed). */
  size_t lo = 0, hi = n;
  while (v >= 0 && hi - lo > 1 && n > 1) {
    size_t mid = lo + (hi - lo) / 2;
    v = try_prefix(r, fi, f, c.calls.data, mid);
    if (v > 0) hi = mid, accepted++;
    else if (v == 0) lo = mid;
  }
  if (v >= 0 && n > 0 && c.calls.data[hi - 1] != psgi_fn_body(f)) {
    char what[96];
    snprintf(what, sizeof what, "re-root @%s at call %zu of %zu", psg_global_var_name(psg_module_get_global_var(orig, fi)), hi, n);
    v = try_body(r, fi, f, c.calls.data[hi - 1], what);
    if (v > 0) accepted++;
  }
  PSGI_VEC_FREE(r->ctx, &c.calls);
  psg_module_release(orig);
  return v < 0 ? v : accepted;
}

psg_status psgi_reduce_module(psgi_reducer *r) {
  mstage s = {.r = r};
  psgi_map_init(&s.index, r->ctx);
  psg_status st = PSG_OK;
  for (bool changed = true; changed && !st;) {
    changed = false;
    for (size_t fi = 0; !st && fi < psg_module_num_functions(r->mod); fi++) {
      int v = reroot(r, fi);
      if (v < 0) st = v;
      changed |= v > 0;
      v = st ? 0 : drop_unused_params(r, fi);
      if (v < 0) st = v;
      changed |= v > 0;
    }
    for (int mode = MODE_ZERO; !st && mode <= MODE_FUNCTION; mode++) {
      s.mode = mode;
      st = collect(&s);
      int v = st ? 0 : psgi_reduce_ddmin(&s, attempt, items_length);
      if (v < 0) st = v;
      if (!st) st = s.st;
      changed |= v > 0;
    }
  }
  PSGI_VEC_FREE(r->ctx, &s.items);
  psgi_map_fini(&s.index);
  return st;
}
