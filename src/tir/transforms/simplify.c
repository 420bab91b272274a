/* Passage — tir.Simplify (TVM's src/tir/transforms/simplify.cc): every
 * expression of a PrimFunc simplified by the arithmetic analyzer with the
 * facts of its scope (loop ranges, thread extents, `if` conditions, asserts,
 * LetStmt bindings; T.assume with propagate_knowns_to_prove_conditional),
 * ifs with a proved condition replaced by their branch, loops of extent 0
 * removed and of extent 1 (without annotations) replaced by their body, stores of a value just
 * loaded from the same place removed. The statement walk uses an explicit
 * stack, so nests of any depth are simplified.
 *
 * Config "tir.Simplify" (spec/tir.md §3), every field read here:
 *   transitively_prove_inequalities        the analyzer chains one known
 *                                          inequality (a < b, b <= c).
 *   apply_constraints_to_boolean_branches  in `a and b` / `a or b`, b is
 *                                          simplified knowing a / not a.
 *   propagate_knowns_to_prove_conditional  T.assume(c) makes c known for the
 *                                          rest of its block; an `if` is
 *                                          decided with the known buffer
 *                                          values (known_values.c).
 *   convert_boolean_to_and_of_ors          every AND/OR the rewrite simplifier
 *                                          meets becomes an AND of ORs, each
 *                                          part simplified (and_of_ors.c).
 *   propagate_knowns_to_simplify_expressions
 *                                          every expression reads the known
 *                                          buffer values (A[0] = 5;
 *                                          A[0] = A[0] + 7 stores 12).
 * Conditions that read memory are never analyzer constraints (a store may
 * change what they read); they only become known buffer values. */
#include "passage/pass.h"
#include "tir/arith/arith_internal.h"
#include "tir/transforms/known_values.h"
#include "tir/transforms/tir_transforms.h"

typedef struct opts {
  bool transitive, knowns_cond, knowns_expr, and_of_ors, bool_branches;
} opts;

static psg_status read_opts(psg_ctx *ctx, psg_attrs *cfg, opts *o) {
  static const char *const names[] = {"transitively_prove_inequalities", "propagate_knowns_to_prove_conditional",
                                      "propagate_knowns_to_simplify_expressions", "convert_boolean_to_and_of_ors",
                                      "apply_constraints_to_boolean_branches"};
  bool v[5] = {false};
  for (int i = 0; i < 5; i++) {
    psg_attr *a = psg_attrs_get(cfg, names[i]);
    v[i] = a && psg_attr_get_int(a) != 0;
  }
  o->transitive = v[0];
  o->knowns_cond = v[1];
  o->knowns_expr = v[2];
  o->and_of_ors = v[3];
  o->bool_branches = v[4];
  (void)ctx;
  return PSG_OK;
}

/* One statement being rebuilt. */
typedef struct frame {
  psg_tir_stmt *s;
  uint32_t next;        /* next child statement */
  size_t base;          /* results.len when the children started */
  psg_arith_scope scope;
  psg_tir_expr *ex[3];  /* simplified expression operands (owned) */
  int branch;           /* If: 1 cond proved true, 0 false, -1 unknown */
  bool inlined;         /* LetStmt: its var is replaced by its value */
  psgi_kv_mark km;      /* known buffer values: the state of this scope */
} frame;

typedef struct walker {
  psg_ctx *ctx;
  psg_arith_analyzer *a;
  opts o;
  PSGI_VEC(frame) st;
  PSGI_VEC(psg_tir_stmt *) res; /* finished children; NULL: no statement */
  psgi_map buffer_vars;          /* vars in the definition of a buffer the body uses */
  psg_tir_stmt *body;            /* the function's (input) body, which buffer_vars is of */
  bool buffer_vars_ready;        /* collected (at the first LetStmt that needs them) */
  psgi_kv *kv;                   /* known buffer values (NULL: neither propagate_knowns_* switch) */
  psgi_map thread_vars;          /* thread var -> index + 1 in thread_max */
  PSGI_VEC(int64_t) thread_max;  /* the largest value each thread var was bound to */
  psg_status visit_st;
} walker;

/* TVM binds a thread var for the whole function: binding it again to a
 * different constant bound is an error ("Inconsistent thread_extent"). */
static psg_status check_thread_bound(walker *w, psg_tir_expr *var, psg_tir_expr *extent) {
  psgi_arith_info ei;
  psg_status st = psgi_arith_info_of(w->a, extent, &ei);
  if (st) return st;
  int64_t max = ei.bound.max == PSG_ARITH_POS_INF ? PSG_ARITH_POS_INF : psgi_arith_sat_add(ei.bound.max, -1);
  bool is_new;
  psgi_map_entry *e = psgi_map_put_ptr(&w->thread_vars, var, &is_new);
  if (!e) return psgi_nomem(w->ctx);
  if (is_new) {
    if (!PSGI_VEC_PUSH(w->ctx, &w->thread_max, max)) return psgi_nomem(w->ctx);
    e->value = (void *)(uintptr_t)w->thread_max.len;
    return PSG_OK;
  }
  int64_t old = w->thread_max.data[(uintptr_t)e->value - 1];
  if (old == max) return PSG_OK;
  return psgi_diag_add(w->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, "tir.Simplify",
                       "thread var '%s' bound again with a different extent: [0, %lld] before, [0, %lld] now",
                       psg_tir_var_name(var), (long long)old, (long long)max);
}

static psg_status simp(walker *w, psg_tir_expr *e, psg_tir_expr **out) {
  if (!e) {
    *out = NULL;
    return PSG_OK;
  }
  if (!w->kv || !w->o.knowns_expr) return psg_arith_simplify(w->a, e, out);
  /* propagate_knowns_to_simplify_expressions: loads of known values read
   * as those values. */
  psg_tir_expr *k;
  psg_status st = psgi_kv_substitute(w->kv, e, &k);
  if (st) return st;
  st = psg_arith_simplify(w->a, k, out);
  psg_tir_release(k);
  return st;
}

/* The condition under a likely() hint (TVM's ExtractRealCondition). */
static psg_tir_expr *real_condition(psg_tir_expr *c) {
  while (c->kind == PSG_TIR_CALL && c->nkids >= 1 && strcmp(psg_tir_call_op(c), "tir.likely") == 0) c = c->kids[0];
  return c;
}

/* The part of a condition the analyzer may take as known: its conjuncts
 * that read no memory (TVM's literal constraints need SideEffect <= kPure,
 * since a store may change what a load reads). A new reference, or NULL. */
static psg_status pure_part(walker *w, psg_tir_expr *cond, psg_tir_expr **out) {
  bool pure;
  psg_status st = psgi_tir_is_pure(w->ctx, cond, &pure);
  *out = NULL;
  if (st) return st;
  if (pure) {
    psg_tir_retain(*out = cond);
    return PSG_OK;
  }
  PSGI_VEC(psg_tir_expr *) todo = {0};
  if (!PSGI_VEC_PUSH(w->ctx, &todo, cond)) return psgi_nomem(w->ctx);
  while (todo.len && !st) {
    psg_tir_expr *e = todo.data[--todo.len];
    if (e->kind == PSG_TIR_AND) {
      if (!PSGI_VEC_PUSH(w->ctx, &todo, e->kids[1]) || !PSGI_VEC_PUSH(w->ctx, &todo, e->kids[0]))
        st = psgi_nomem(w->ctx);
      continue;
    }
    if ((st = psgi_tir_is_pure(w->ctx, e, &pure)) || !pure) continue;
    if (!*out) {
      psg_tir_retain(*out = e);
      continue;
    }
    psg_tir_expr *both;
    if (!(st = psgi_arith_mk(w->ctx, PSG_TIR_AND, *out, e, &both))) {
      psg_tir_release(*out);
      *out = both;
    }
  }
  PSGI_VEC_FREE(w->ctx, &todo);
  return st;
}

/* Enters the pure part of cond as a constraint (scope: see
 * psg_arith_enter_constraint). */
static psg_status enter_pure(walker *w, psg_tir_expr *cond, psg_arith_scope *scope) {
  psg_tir_expr *p;
  psg_status st = pure_part(w, real_condition(cond), &p);
  if (st || !p) return st;
  st = psg_arith_enter_constraint(w->a, p, scope);
  psg_tir_release(p);
  return st;
}

/* Leaves report what they do to the known buffer values: a T.assume adds
 * facts, a call with a side effect forgets all, a store replaces what it
 * overwrites (recorded with the known values substituted, so that
 * `A[0] = A[0] + 1` after `A[0] = 0` records 1). */
static psg_status track_leaf(walker *w, psg_tir_stmt *s, psg_tir_stmt *out) {
  psg_status st;
  bool effect = false;
  if (s->kind == PSG_TIR_EVALUATE) {
    psg_tir_expr *v = out ? out->kids[0] : s->kids[0];
    if (v->kind == PSG_TIR_CALL && strcmp(psg_tir_call_op(v), "tir.assume") == 0 && v->nkids >= 1)
      return psgi_kv_assume(w->kv, v->kids[0]);
    if ((st = psgi_tir_has_side_effect(w->ctx, v, &effect))) return st;
    if (effect) psgi_kv_clobber(w->kv);
    return PSG_OK;
  }
  if (s->kind != PSG_TIR_BUFFER_STORE) return PSG_OK;
  if ((st = psgi_tir_has_side_effect(w->ctx, s, &effect))) return st;
  if (effect) psgi_kv_clobber(w->kv);
  if (!out) return PSG_OK; /* A[i] = A[i]: nothing changes */
  psg_tir_expr *known, *value;
  if ((st = psgi_kv_substitute(w->kv, out->kids[1], &known))) return st;
  if (known == out->kids[1]) { /* nothing known in it: simplified already */
    value = known;
  } else {
    st = psg_arith_simplify(w->a, known, &value);
    psg_tir_release(known);
    if (st) return st;
  }
  st = psgi_kv_store(w->kv, (psg_tir_buffer *)out->kids[0], psgi_tir_indices(out), psgi_tir_num_indices(out), value,
                     (out->flags & PSGI_TIR_HAS_PRED) != 0);
  psg_tir_release(value);
  return st;
}

static bool is_assume(const psg_tir_stmt *s) {
  if (s->kind != PSG_TIR_EVALUATE) return false;
  psg_tir_expr *v = s->kids[0];
  return v->kind == PSG_TIR_CALL && strcmp(psg_tir_call_op(v), "tir.assume") == 0;
}

static psg_status noop(walker *w, psg_tir_stmt **out) {
  psg_tir_expr *z;
  psg_status st = psg_tir_int_imm_create(w->ctx, psg_tir_dtype_int32(), 0, NULL, &z);
  if (st) return st;
  st = psg_tir_evaluate_create(w->ctx, z, NULL, out);
  psg_tir_release(z);
  return st;
}

/* The children of s, in order. */
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
static psg_tir_stmt *child(const psg_tir_stmt *s, uint32_t i) {
  switch (s->kind) {
  case PSG_TIR_SEQ_STMT: return s->kids[i];
  case PSG_TIR_IF_THEN_ELSE: return s->kids[1 + i];
  default: return psg_tir_get_body(s);
  }
}

/* A store of what was just loaded from the same element: A[i] = A[i]. */
static bool self_store(walker *w, psg_tir_stmt *s, psg_tir_expr *value, psg_tir_expr *const *idx, size_t n) {
  if (value->kind != PSG_TIR_BUFFER_LOAD || s->flags || value->flags) return false;
  if (value->kids[0] != s->kids[0] || psgi_tir_num_indices(value) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (!psg_arith_can_prove_equal(w->a, psgi_tir_indices(value)[i], idx[i])) return false;
  return true;
}

/* Leaves: BufferStore and Evaluate. */
static psg_status leaf_rewrite(walker *w, psg_tir_stmt *s, psg_tir_stmt **out) {
  psg_status st = PSG_OK;
  *out = NULL;
  if (s->kind == PSG_TIR_EVALUATE) {
    psg_tir_expr *v;
    if ((st = simp(w, s->kids[0], &v))) return st;
    st = v == s->kids[0] ? (psg_tir_retain(s), *out = s, PSG_OK) : psg_tir_evaluate_create(w->ctx, v, &s->span, out);
    psg_tir_release(v);
    return st;
  }
  if (s->kind != PSG_TIR_BUFFER_STORE) {
    psg_tir_retain(s);
    *out = s;
    return PSG_OK;
  }
  size_t n = psgi_tir_num_indices(s);
  PSGI_VEC(psg_tir_expr *) idx = {0};
  psg_tir_expr *value = NULL, *pred = NULL;
  if (!PSGI_VEC_RESERVE(w->ctx, &idx, n + 1)) return psgi_nomem(w->ctx);
  bool changed = false;
  for (size_t i = 0; i < n && !st; i++) {
    st = simp(w, psgi_tir_indices(s)[i], &idx.data[i]);
    if (!st) {
      changed |= idx.data[i] != psgi_tir_indices(s)[i];
      idx.len++;
    }
  }
  if (!st) st = simp(w, s->kids[1], &value);
  if (!st && (s->flags & PSGI_TIR_HAS_PRED)) st = simp(w, s->kids[s->nkids - 1], &pred);
  if (!st) {
    changed |= value != s->kids[1] || (pred && pred != s->kids[s->nkids - 1]);
    if (self_store(w, s, value, idx.data, n)) {
      *out = NULL;
    } else if (changed) {
      st = psg_tir_buffer_store_create(w->ctx, s->kids[0], value, idx.data, n, pred, &s->span, out);
    } else {
      psg_tir_retain(s);
      *out = s;
    }
  }
  for (size_t i = 0; i < idx.len; i++) psg_tir_release(idx.data[i]);
  PSGI_VEC_FREE(w->ctx, &idx);
  psg_tir_release(value);
  psg_tir_release(pred);
  return st;
}

static psg_status leaf(walker *w, psg_tir_stmt *s, psg_tir_stmt **out) {
  psg_status st = leaf_rewrite(w, s, out);
  if (!st && w->kv && (st = track_leaf(w, s, *out))) {
    psg_tir_release(*out);
    *out = NULL;
  }
  return st;
}

/* Entering a statement with children: its expressions, its scope. */
static psg_status enter(walker *w, frame *f) {
  psg_tir_stmt *s = f->s;
  psg_arith_analyzer *a = w->a;
  psg_status st = PSG_OK;
  f->scope.nfacts = a->facts.len;
  f->scope.nknown = a->known.len;
  f->branch = -1;
  switch (s->kind) {
  case PSG_TIR_FOR:
    if ((st = simp(w, psg_tir_for_get_min(s), &f->ex[0])) || (st = simp(w, psg_tir_for_get_extent(s), &f->ex[1])))
      return st;
    if ((st = psg_arith_bind(a, s->kids[0], f->ex[0], f->ex[1]))) return st;
    if (w->kv) st = psgi_kv_loop_enter(w->kv, psg_tir_get_body(s), s->kids[0], f->ex[0], f->ex[1], &f->km);
    return st;
  case PSG_TIR_IF_THEN_ELSE: {
    if ((st = simp(w, s->kids[0], &f->ex[0]))) return st;
    int64_t v;
    if (psgi_arith_is_int(f->ex[0], &v)) f->branch = v != 0;
    else if (f->ex[0] != real_condition(f->ex[0])) {
      /* likely(c) with c known (TVM's rewrite of likely matches its
       * argument against the constraints in scope) */
      psg_tir_expr *seen = NULL;
      if ((st = psg_arith_simplify(a, real_condition(f->ex[0]), &seen))) return st;
      if (psgi_arith_is_int(seen, &v)) f->branch = v != 0;
      psg_tir_release(seen);
    }
    if (f->branch < 0 && a->facts.len) {
      /* Try again seeing through the lets in scope (`c = i < 3; if c or 3 <= i`);
       * only a decided condition is taken, the written one is kept otherwise. */
      psg_tir_expr *seen = NULL;
      a->use_let_values = true;
      st = psg_arith_simplify(a, f->ex[0], &seen);
      a->use_let_values = false;
      if (st) return st;
      if (psgi_arith_is_int(seen, &v)) f->branch = v != 0;
      psg_tir_release(seen);
    }
    if (f->branch < 0 && w->kv && w->o.knowns_cond) {
      /* TVM's ProveCondition with the known buffer values. */
      psg_tir_expr *known, *seen;
      if ((st = psgi_kv_substitute(w->kv, f->ex[0], &known))) return st;
      st = known == f->ex[0] ? PSG_OK : psg_arith_simplify(a, known, &seen);
      if (!st && known != f->ex[0]) {
        if (psgi_arith_is_int(seen, &v)) f->branch = v != 0;
        psg_tir_release(seen);
      }
      psg_tir_release(known);
      if (st) return st;
    }
    if (f->branch >= 0) return PSG_OK;
    if (w->kv && (st = psgi_kv_if_enter(w->kv, f->ex[0], &f->km))) return st;
    return enter_pure(w, f->ex[0], &f->scope);
  }
  case PSG_TIR_LET_STMT: {
    /* TVM's CanInlineLetStmt: a constant, a var, or an int value that reads
     * no memory is substituted in the body; another value that reads no
     * memory still helps to prove conditions. */
    if ((st = simp(w, s->kids[1], &f->ex[0]))) return st;
    psg_tir_expr *v = f->ex[0];
    /* A pointer bound to a new name may be the data of another buffer: the
     * known values cannot follow stores through it. */
    if (w->kv && psg_tir_dtype_is_handle(s->kids[0]->dtype)) psgi_kv_clobber(w->kv);
    bool pure;
    if ((st = psgi_tir_is_pure(w->ctx, v, &pure))) return st;
    f->inlined = v->kind == PSG_TIR_INT_IMM || v->kind == PSG_TIR_FLOAT_IMM || psgi_tir_is_var_kind(v->kind) ||
                 (pure && psg_tir_dtype_is_int(v->dtype) && psg_tir_dtype_lanes(v->dtype) == 1);
    return psgi_arith_bind_let(a, s->kids[0], v,
                               f->inlined ? PSGI_ARITH_LET_INLINE : pure ? PSGI_ARITH_LET_PROVE : PSGI_ARITH_LET_BOUND);
  }
  case PSG_TIR_ATTR_STMT:
    if ((st = simp(w, psg_tir_attr_stmt_get_value(s), &f->ex[0]))) return st;
    {
      psg_tir_node *node = psg_tir_attr_stmt_get_node(s);
      const char *key = psg_tir_attr_stmt_key(s);
      /* A thread index runs over [0, extent); TVM's AttrStmt holds the
       * IterVar of the thread (te.thread_axis), whose var is bound. */
      if (node && node->kind == PSG_TIR_ITER_VAR) node = psg_tir_iter_var_get_var(node);
      if (node && psgi_tir_is_var_kind(node->kind) && psgi_arith_is_index_dtype(node->dtype) &&
          node->dtype == f->ex[0]->dtype && (strcmp(key, "thread_extent") == 0 || strcmp(key, "virtual_thread") == 0)) {
        psg_tir_expr *zero;
        if ((st = check_thread_bound(w, node, f->ex[0]))) return st;
        if ((st = psgi_arith_int(w->ctx, node->dtype, 0, &zero))) return st;
        st = psg_arith_bind(a, node, zero, f->ex[0]);
        psg_tir_release(zero);
      }
    }
    return st;
  case PSG_TIR_ASSERT_STMT:
    if ((st = simp(w, s->kids[0], &f->ex[0])) || (st = simp(w, s->kids[1], &f->ex[1]))) return st;
    return enter_pure(w, f->ex[0], &f->scope);
  case PSG_TIR_WHILE: /* its condition is read before every iteration: with the body's facts */
    if (w->kv && (st = psgi_kv_loop_enter(w->kv, psg_tir_get_body(s), NULL, NULL, NULL, &f->km))) return st;
    return simp(w, s->kids[0], &f->ex[0]);
  case PSG_TIR_ALLOCATE: return simp(w, psg_tir_allocate_get_condition(s), &f->ex[0]);
  default: return PSG_OK;
  }
}

/* Between children: the else branch knows the negated condition; in a
 * block, a T.assume holds for the statements after it. */
static psg_status between(walker *w, frame *f, uint32_t done_child) {
  psg_tir_stmt *s = f->s;
  if (s->kind == PSG_TIR_IF_THEN_ELSE && done_child == 0 && f->branch < 0) {
    psg_arith_exit_constraint(w->a, &f->scope);
    psg_tir_expr *real = real_condition(f->ex[0]);
    bool pure;
    psg_status st = psgi_tir_is_pure(w->ctx, real, &pure);
    if (st) return st;
    if (!pure) return w->kv ? psgi_kv_if_else(w->kv, &f->km) : PSG_OK; /* nothing known in the else */
    psg_tir_expr *neg;
    st = psgi_arith_mk(w->ctx, PSG_TIR_NOT, real, NULL, &neg);
    if (st) return st;
    if (w->kv && (st = psgi_kv_if_else(w->kv, &f->km))) {
      psg_tir_release(neg);
      return st;
    }
    psg_arith_scope ignored;
    st = psg_arith_enter_constraint(w->a, neg, &ignored);
    psg_tir_release(neg);
    return st;
  }
  if (s->kind == PSG_TIR_SEQ_STMT && w->o.knowns_cond && is_assume(s->kids[done_child])) {
    psg_arith_scope ignored; /* popped with the block's own scope */
    return enter_pure(w, s->kids[done_child]->kids[0]->kids[0], &ignored);
  }
  return PSG_OK;
}

/* Which child to walk next (If skips a branch a proved condition rules out). */
static bool want_child(const frame *f, uint32_t i) {
  if (f->s->kind == PSG_TIR_IF_THEN_ELSE && f->branch >= 0) return (int)i == (f->branch ? 0 : 1);
  return true;
}

static psg_status is_buffer_var(walker *w, psg_tir_expr *var, bool *yes);

/* Builds the result of f from its children's results (res[f->base...]). */
static psg_status finish(walker *w, frame *f, psg_tir_stmt **out) {
  psg_tir_stmt *s = f->s;
  psg_tir_stmt **r = (w->res.data ? w->res.data + f->base : NULL);
  size_t nr = w->res.len - f->base;
  psg_status st = PSG_OK;
  psg_tir_stmt *body = nr ? r[0] : NULL;
  psg_tir_stmt *nb = NULL;
  *out = NULL;
  int64_t ext;
  switch (s->kind) {
  case PSG_TIR_SEQ_STMT: {
    size_t k = 0;
    for (size_t i = 0; i < nr; i++)
      if (r[i]) r[k++] = r[i];
    for (size_t i = k; i < nr; i++) r[i] = NULL;
    if (k == 1) {
      *out = r[0];
      r[0] = NULL;
    } else if (k > 1) {
      bool same = k == s->nkids;
      for (size_t i = 0; same && i < k; i++) same = r[i] == s->kids[i];
      if (same) psg_tir_retain(*out = s);
      else st = psg_tir_seq_stmt_create(w->ctx, r, k, &s->span, out);
    }
    break;
  }
  case PSG_TIR_IF_THEN_ELSE:
    if (f->branch >= 0) { /* the branch kept */
      *out = body;
      if (nr) r[0] = NULL;
      break;
    }
    if (!body && (st = noop(w, &nb))) break;
    st = psg_tir_if_then_else_create(w->ctx, f->ex[0], body ? body : nb, nr > 1 ? r[1] : NULL, &s->span, out);
    break;
  case PSG_TIR_FOR:
    if (psgi_arith_is_int(f->ex[1], &ext) && ext <= 0) break; /* never runs */
    if (!body) break;                                         /* does nothing */
    if (psgi_arith_is_int(f->ex[1], &ext) && ext == 1 &&      /* var is min: substituted */
        !psg_attrs_count(psg_tir_get_annotations(s))) {       /* annotations keep the loop */
      *out = body;
      r[0] = NULL;
      break;
    }
    if (body == psg_tir_get_body(s) && f->ex[0] == s->kids[1] && f->ex[1] == s->kids[2]) psg_tir_retain(*out = s);
    else
      st = psg_tir_for_create(w->ctx, s->kids[0], f->ex[0], f->ex[1], psg_tir_for_kind(s),
                              body, psg_tir_get_annotations(s), &s->span, out);
    break;
  case PSG_TIR_LET_STMT: {
    psg_tir_expr *v = f->ex[0];
    /* A var a buffer's definition uses keeps its LetStmt (the buffer is not
     * rewritten). */
    bool buffer_var = false;
    if (f->inlined && (st = is_buffer_var(w, s->kids[0], &buffer_var))) break;
    if (f->inlined && !buffer_var) { /* substituted in the body */
      *out = body;
      if (nr) r[0] = NULL;
      break;
    }
    if (!body && (st = noop(w, &nb))) break;
    st = psg_tir_let_stmt_create(w->ctx, s->kids[0], v, body ? body : nb, &s->span, out);
    break;
  }
  default: {
    if (!body && (st = noop(w, &nb))) break;
    psg_tir_stmt *b = body ? body : nb;
    switch (s->kind) {
    case PSG_TIR_ATTR_STMT:
      st = psg_tir_attr_stmt_create(w->ctx, psg_tir_attr_stmt_get_node(s), psg_tir_attr_stmt_key(s), f->ex[0], b,
                                    &s->span, out);
      break;
    case PSG_TIR_ASSERT_STMT: st = psg_tir_assert_stmt_create(w->ctx, f->ex[0], f->ex[1], b, &s->span, out); break;
    case PSG_TIR_WHILE: st = psg_tir_while_create(w->ctx, f->ex[0], b, &s->span, out); break;
    case PSG_TIR_DECL_BUFFER: st = psg_tir_decl_buffer_create(w->ctx, s->kids[0], b, &s->span, out); break;
    case PSG_TIR_ALLOCATE: {
      size_t n = psg_tir_allocate_num_extents(s);
      PSGI_VEC(psg_tir_expr *) ext_v = {0};
      if (!PSGI_VEC_RESERVE(w->ctx, &ext_v, n)) {
        st = psgi_nomem(w->ctx);
        break;
      }
      for (size_t i = 0; i < n && !st; i++) {
        st = simp(w, psg_tir_allocate_get_extent(s, i), &ext_v.data[i]);
        if (!st) ext_v.len++;
      }
      if (!st)
        st = psg_tir_allocate_create(w->ctx, s->kids[0], psg_tir_dtype_of(s), ext_v.data, n, f->ex[0], b,
                                     psg_tir_get_annotations(s), &s->span, out);
      for (size_t i = 0; i < ext_v.len; i++) psg_tir_release(ext_v.data[i]);
      PSGI_VEC_FREE(w->ctx, &ext_v);
      break;
    }
    default: psg_tir_retain(*out = s); break;
    }
  }
  }
  psg_tir_release(nb);
  for (size_t i = 0; i < nr; i++) psg_tir_release(r[i]);
  w->res.len = f->base;
  return st;
}

/* Leaving a scope: the known buffer values after it. */
static psg_status leave(walker *w, frame *f) {
  psg_tir_stmt *s = f->s;
  if (!w->kv) return PSG_OK;
  switch (s->kind) {
  case PSG_TIR_IF_THEN_ELSE: return f->branch < 0 ? psgi_kv_if_exit(w->kv, &f->km) : PSG_OK;
  case PSG_TIR_FOR:
  case PSG_TIR_WHILE: return psgi_kv_loop_exit(w->kv, &f->km);
  case PSG_TIR_LET_STMT:
  case PSG_TIR_ALLOCATE: return psgi_kv_forget(w->kv, s->kids[0]);
  default: return PSG_OK;
  }
}

static void drop_frame(walker *w, frame *f) {
  psgi_kv_mark_free(w->kv, &f->km);
  psg_arith_exit_constraint(w->a, &f->scope);
  for (int i = 0; i < 3; i++) psg_tir_release(f->ex[i]);
}

static psg_status walk(walker *w, psg_tir_stmt *root, psg_tir_stmt **out) {
  psg_status st = PSG_OK;
  *out = NULL;
  frame f0 = {.s = root};
  if (!num_children(root)) {
    psg_tir_stmt *r;
    if ((st = leaf(w, root, &r))) return st;
    *out = r;
    return PSG_OK;
  }
  if (!PSGI_VEC_PUSH(w->ctx, &w->st, f0)) return psgi_nomem(w->ctx);
  if ((st = enter(w, &w->st.data[0]))) goto fail;
  w->st.data[0].base = w->res.len;
  while (w->st.len) {
    frame *f = &w->st.data[w->st.len - 1];
    uint32_t nc = num_children(f->s);
    if (f->next > 0 && f->next <= nc && (st = between(w, f, f->next - 1))) goto fail;
    while (f->next < nc && !want_child(f, f->next)) f->next++;
    if (f->next < nc) {
      psg_tir_stmt *c = child(f->s, f->next++);
      if (!num_children(c)) {
        psg_tir_stmt *r;
        if ((st = leaf(w, c, &r))) goto fail;
        if (!PSGI_VEC_PUSH(w->ctx, &w->res, r)) {
          psg_tir_release(r);
          st = psgi_nomem(w->ctx);
          goto fail;
        }
        continue;
      }
      frame fc = {.s = c};
      if (!PSGI_VEC_PUSH(w->ctx, &w->st, fc)) {
        st = psgi_nomem(w->ctx);
        goto fail;
      }
      f = &w->st.data[w->st.len - 1];
      if ((st = enter(w, f))) goto fail;
      f->base = w->res.len;
      f->next = 0;
      continue;
    }
    f->next = nc + 1; /* no more `between` */
    psg_tir_stmt *r = NULL;
    st = leave(w, f);
    if (!st) st = finish(w, f, &r);
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
  return st;
}

static int collect_var(psg_tir_visitor *v, const psg_tir_node *n) {
  walker *w = v->user;
  bool is_new;
  if (psgi_tir_is_var_kind(n->kind) && !psgi_map_put_ptr(&w->buffer_vars, n, &is_new)) {
    w->visit_st = psgi_nomem(w->ctx);
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

/* Every buffer the body reaches: the vars of its data, shape, strides and
 * elem_offset (TVM collects those of loaded and stored buffers; a buffer
 * only declared counts here too). */
static int collect_buffer(psg_tir_visitor *v, const psg_tir_node *n) {
  walker *w = v->user;
  if (n->kind != PSG_TIR_BUFFER) return PSG_VISIT_CONTINUE;
  psg_tir_visitor inner = {collect_var, NULL, w};
  psg_status st = psg_tir_visit(w->ctx, &inner, n);
  if (st && !w->visit_st) w->visit_st = st;
  return w->visit_st ? PSG_VISIT_ABORT : PSG_VISIT_SKIP_CHILDREN;
}

/* Is var in the definition of a buffer the function's body uses? The set
 * is of the input body, whatever the walk has rebuilt so far, so it is the
 * same whenever it is collected: only a LetStmt whose value would be
 * substituted asks, and most functions have none, so it is collected at the
 * first such question rather than before the walk (a walk over every node
 * of the body; docs/design.md 235). */
static psg_status is_buffer_var(walker *w, psg_tir_expr *var, bool *yes) {
  *yes = false;
  if (!w->buffer_vars_ready) {
    psg_tir_visitor v = {collect_buffer, NULL, w};
    psg_status st = psg_tir_visit(w->ctx, &v, w->body);
    if (st || (st = w->visit_st)) return st;
    w->buffer_vars_ready = true;
  }
  *yes = psgi_map_get_ptr(&w->buffer_vars, var) != NULL;
  return PSG_OK;
}

/* Before the walk: the shapes of the parameter buffers known >= 0 (TVM's
 * MarkBufferMapShapes). */
static psg_status prepare(walker *w, const psg_tir_prim_func *f) {
  psg_status st = PSG_OK;
  w->body = psg_tir_get_body(f);
  for (size_t i = 0; i < psg_tir_prim_func_buffer_map_size(f); i++) {
    psg_tir_buffer *b = psg_tir_prim_func_buffer_map_value(f, i);
    for (size_t d = 0; d < psg_tir_buffer_ndim(b); d++)
      if ((st = psgi_arith_mark_non_negative(w->a, psg_tir_buffer_get_shape(b, d)))) return st;
  }
  return PSG_OK;
}

psg_status psg_tir_simplify_prim_func(const psg_tir_prim_func *f, psg_attrs *config, psg_tir_prim_func **out) {
  *out = NULL;
  if (!f || f->kind != PSG_TIR_PRIM_FUNC) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = f->ctx;
  walker w = {.ctx = ctx};
  psg_status st = read_opts(ctx, config, &w.o);
  if (st) return st;
  if ((st = psg_arith_analyzer_create(ctx, &w.a))) return st;
  w.a->transitive = w.o.transitive;
  w.a->boolean_branches = w.o.bool_branches;
  w.a->and_of_ors = w.o.and_of_ors;
  psgi_map_init(&w.buffer_vars, ctx);
  psgi_map_init(&w.thread_vars, ctx);
  psg_tir_stmt *body = NULL;
  if (w.o.knowns_cond || w.o.knowns_expr) st = psgi_kv_create(ctx, w.a, &w.kv);
  if (!st) st = prepare(&w, f);
  if (!st) st = walk(&w, psg_tir_get_body(f), &body);
  psgi_map_fini(&w.buffer_vars);
  psgi_map_fini(&w.thread_vars);
  PSGI_VEC_FREE(ctx, &w.thread_max);
  psgi_kv_destroy(w.kv);
  for (size_t i = 0; i < w.res.len; i++) psg_tir_release(w.res.data[i]);
  PSGI_VEC_FREE(ctx, &w.res);
  PSGI_VEC_FREE(ctx, &w.st);
  psg_arith_analyzer_destroy(w.a);
  if (st) return st;
  if (!body && (st = noop(&w, &body))) return st;
  if (body == psg_tir_get_body(f)) {
    psg_tir_release(body);
    psg_tir_retain((psg_tir_node *)f);
    *out = (psg_tir_prim_func *)f;
    return PSG_OK;
  }
  /* The same function with the new body. */
  size_t np = psg_tir_prim_func_num_params(f), nb = psg_tir_prim_func_buffer_map_size(f);
  PSGI_VEC(psg_tir_expr *) params = {0};
  PSGI_VEC(size_t) map = {0};
  PSGI_VEC(psg_tir_buffer *) bufs = {0};
  if (!PSGI_VEC_RESERVE(ctx, &params, np + 1) || !PSGI_VEC_RESERVE(ctx, &map, nb + 1) ||
      !PSGI_VEC_RESERVE(ctx, &bufs, nb + 1)) {
    st = psgi_nomem(ctx);
  } else {
    for (size_t i = 0; i < np; i++) params.data[i] = psg_tir_prim_func_get_param(f, i);
    for (size_t i = 0; i < nb; i++) {
      psg_tir_expr *key = psg_tir_prim_func_buffer_map_key(f, i);
      for (size_t j = 0; j < np; j++)
        if (params.data[j] == key) map.data[i] = j;
      bufs.data[i] = psg_tir_prim_func_buffer_map_value(f, i);
    }
    st = psg_tir_prim_func_create(ctx, params.data, np, body, psg_tir_prim_func_get_ret_type(f), map.data,
                                  bufs.data, nb, psg_tir_prim_func_get_attrs(f), &f->span, out);
  }
  psg_tir_release(body);
  PSGI_VEC_FREE(ctx, &params);
  PSGI_VEC_FREE(ctx, &map);
  PSGI_VEC_FREE(ctx, &bufs);
  return st;
}

/* The PrimFuncPass callback: one PrimFunc, the config from the pass context. */
static psg_status simplify_pass(psg_tir_prim_func *func, psg_module *mod, psg_pass_context *pc, void *user,
                                psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  psg_attr *cfg = psg_pass_context_get_config(pc, "tir.Simplify");
  return psg_tir_simplify_prim_func(func, cfg ? psg_attr_get_dict(cfg) : NULL, out);
}

const psg_pass_decl psgi_pass_tir_simplify = {
    .name = "tir.Simplify",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "simplify TIR expressions with the arithmetic analyzer; prune proved ifs and trivial loops",
    .prim_func = simplify_pass,
    .cacheable = true,
};
