/* Passage — the loop primitives of tir.Schedule: split, fuse, reorder, the
 * loop kinds (vectorize, parallel, unroll) and annotate. Each finds its
 * loops by their vars, rebuilds the nest and the path above it, and commits
 * the new body (include/passage/tir_schedule.h). */
#include "tir/schedule/schedule_internal.h"
#include <stdio.h>

static bool is_zero(const psg_tir_node *e) { return e->kind == PSG_TIR_INT_IMM && e->u.int_value == 0; }

static psg_status need_zero_min(psg_ctx *ctx, const psg_tir_node *f, const char *prim) {
  if (is_zero(f->kids[1])) return PSG_OK;
  return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "loop '%s' does not start at 0", f->kids[0]->u.var.name);
}

/* e simplified with the vars bound to [0, extents) (an analyzer of its own). */
static psg_status simplify_in(psg_ctx *ctx, psg_tir_node *e, psg_tir_node *const *vars, psg_tir_node *const *extents,
                              size_t n, psg_tir_node **out) {
  psg_arith_analyzer *a = NULL;
  psg_status st = psg_arith_analyzer_create(ctx, &a);
  psg_tir_node *zero = NULL;
  for (size_t k = 0; !st && k < n; k++) {
    st = psgi_sch_int(ctx, psg_tir_dtype_of(vars[k]), 0, &zero);
    if (!st) st = psg_arith_bind(a, vars[k], zero, extents[k]);
    psg_tir_release(zero);
    zero = NULL;
  }
  if (!st) st = psg_arith_simplify(a, e, out);
  psg_arith_analyzer_destroy(a);
  return st;
}

/* split ------------------------------------------------------------------------ */
void psgi_sch_split_plan_fini(psgi_sch_split_plan *p) {
  for (size_t k = 0; k < p->n && k < 16; k++) {
    psg_tir_release(p->fexpr[k]);
    psg_tir_release(p->vars[k]);
  }
  psg_tir_release(p->fused);
  psg_tir_release(p->prod);
  psg_tir_release(p->var);
  memset(p, 0, sizeof *p);
}

psg_status psgi_sch_split_prepare(psg_tir_schedule *s, psg_tir_expr *loop, const int64_t *factors, size_t n,
                                  psgi_sch_split_plan *p) {
  memset(p, 0, sizeof *p);
  if (!s || !factors || n == 0) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  size_t nnone = 0;
  int64_t known = 1;
  for (size_t k = 0; k < n; k++) {
    if (factors[k] < 0) return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "split", "factor %lld is negative",
                                              (long long)factors[k]);
    if (factors[k] == 0) nnone++;
    else if (!psgi_checked_mul(known, factors[k], &known))
      return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "split", "the factors overflow");
  }
  if (nnone > 1)
    return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "split", "at most one factor may be None (inferred)");
  if (n > 16) return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "split", "at most 16 factors");
  psgi_sch_path path = {0};
  psg_status st = psgi_sch_find_loop(ctx, s->func->kids[0], loop, "split", &path);
  if (st) goto done;
  psg_tir_node *f = psgi_sch_path_last(&path);
  psg_tir_retain(p->var = f->kids[0]);
  p->n = n;
  if ((st = need_zero_min(ctx, f, "split"))) goto done;
  psg_tir_node *ext = f->kids[2];
  psg_tir_dtype dt = psg_tir_dtype_of(f->kids[0]);
  bool const_ext = ext->kind == PSG_TIR_INT_IMM;
  if (const_ext && !nnone && known < ext->u.int_value) {
    st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "split", "the factors' product %lld is less than the extent "
                        "%lld of loop '%s'", (long long)known, (long long)ext->u.int_value, f->kids[0]->u.var.name);
    goto done;
  }
  for (size_t k = 0; k < n && !st; k++) {
    if (factors[k]) {
      st = psgi_sch_int(ctx, dt, factors[k], &p->fexpr[k]);
    } else if (const_ext) {
      int64_t e = ext->u.int_value;
      st = psgi_sch_int(ctx, dt, e <= 0 ? 0 : (e + known - 1) / known, &p->fexpr[k]);
    } else { /* floordiv(extent + known - 1, known) */
      psg_tir_node *km1 = NULL, *kk = NULL, *sum = NULL;
      st = psgi_sch_int(ctx, dt, known - 1, &km1);
      if (!st) st = psgi_sch_int(ctx, dt, known, &kk);
      if (!st) st = psgi_sch_bin(ctx, PSG_TIR_ADD, ext, km1, &sum);
      if (!st) st = psgi_sch_bin(ctx, PSG_TIR_FLOOR_DIV, sum, kk, &p->fexpr[k]);
      psg_tir_release(km1);
      psg_tir_release(kk);
      psg_tir_release(sum);
    }
    char suffix[24];
    snprintf(suffix, sizeof suffix, "_%zu", k);
    if (!st) st = psgi_sch_new_var(ctx, f->kids[0]->u.var.name, suffix, dt, &p->vars[k]);
  }
  /* fused = ((v0 * f1 + v1) * f2 + v2) ..., and the product of the factors */
  if (st) goto done;
  psg_tir_node *fused = p->vars[0], *prod = p->fexpr[0];
  psg_tir_retain(fused);
  psg_tir_retain(prod);
  for (size_t k = 1; k < n && !st; k++) {
    psg_tir_node *m = NULL, *a = NULL, *pr = NULL;
    st = psgi_sch_bin(ctx, PSG_TIR_MUL, fused, p->fexpr[k], &m);
    if (!st) st = psgi_sch_bin(ctx, PSG_TIR_ADD, m, p->vars[k], &a);
    if (!st) st = psgi_sch_bin(ctx, PSG_TIR_MUL, prod, p->fexpr[k], &pr);
    psg_tir_release(m);
    psg_tir_release(fused);
    psg_tir_release(prod);
    fused = a;
    prod = pr;
  }
  p->prod = prod;
  if (!st) st = simplify_in(ctx, fused, p->vars, p->fexpr, n, &p->fused);
  psg_tir_release(fused);
  /* The guard, unless the product provably equals the extent. */
  psg_arith_analyzer *a = NULL;
  if (!st) st = psg_arith_analyzer_create(ctx, &a);
  if (!st) p->exact = psg_arith_can_prove_equal(a, p->prod, ext);
  psg_arith_analyzer_destroy(a);
done:
  psgi_sch_path_fini(ctx, &path);
  if (st) psgi_sch_split_plan_fini(p);
  return st;
}

psg_status psgi_sch_split_apply(psg_tir_schedule *s, const psgi_sch_split_plan *p) {
  psg_ctx *ctx = s->ctx;
  psgi_sch_path path = {0};
  psg_tir_node *body = NULL, *nest = NULL, *root = NULL;
  psg_status st = psgi_sch_find_loop(ctx, s->func->kids[0], p->var, "split", &path);
  if (st) goto done;
  psg_tir_node *f = psgi_sch_path_last(&path), *ext = f->kids[2];
  psg_tir_dtype dt = psg_tir_dtype_of(f->kids[0]);
  if ((st = psgi_tir_substitute(ctx, f->kids[3], f->kids[0], p->fused, &body))) goto done;
  if (!p->exact) {
    psg_tir_node *lt = NULL, *likely = NULL, *guarded = NULL;
    st = psg_tir_binary_create(ctx, PSG_TIR_LT, p->fused, ext, NULL, &lt);
    if (!st) st = psg_tir_call_create(ctx, psg_tir_dtype_bool(), "tir.likely", &lt, 1, NULL, &likely);
    if (!st) st = psg_tir_if_then_else_create(ctx, likely, body, NULL, NULL, &guarded);
    psg_tir_release(lt);
    psg_tir_release(likely);
    psg_tir_release(body);
    body = guarded;
    if (st) goto done;
  }
  psg_tir_retain(body);
  nest = body;
  for (size_t k = p->n; k-- > 0 && !st;) {
    psg_tir_node *zero = NULL, *g = NULL;
    st = psgi_sch_int(ctx, dt, 0, &zero);
    if (!st) st = psg_tir_for_create(ctx, p->vars[k], zero, p->fexpr[k], PSG_TIR_FOR_SERIAL, nest, NULL, &f->span, &g);
    psg_tir_release(zero);
    psg_tir_release(nest);
    nest = g;
  }
  if (!st) st = psgi_sch_replace(ctx, &path, path.node.len - 1, nest, &root);
  if (!st) st = psgi_sch_commit(s, root, "split");
done:
  psg_tir_release(body);
  psg_tir_release(nest);
  psg_tir_release(root);
  psgi_sch_path_fini(ctx, &path);
  return st;
}

psg_status psg_tir_schedule_split(psg_tir_schedule *s, psg_tir_expr *loop, const int64_t *factors, size_t n,
                                  psg_tir_expr **out) {
  psgi_sch_split_plan p;
  psg_status st = psgi_sch_split_prepare(s, loop, factors, n, &p);
  if (st) return st;
  st = psgi_sch_split_apply(s, &p);
  if (!st && out)
    for (size_t k = 0; k < n; k++) {
      out[k] = p.vars[k];
      psg_tir_retain(p.vars[k]);
    }
  psgi_sch_split_plan_fini(&p);
  return st;
}

/* fuse ------------------------------------------------------------------------- */
psg_status psg_tir_schedule_fuse(psg_tir_schedule *s, psg_tir_expr *const *loops, size_t n, psg_tir_expr **out) {
  if (!s || !loops || n == 0) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  if (n > 16) return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "fuse", "at most 16 loops");
  psgi_sch_path path = {0};
  psg_tir_node *fors[16], *ext = NULL, *var = NULL, *vals[16] = {0}, *body = NULL, *nf = NULL, *root = NULL;
  psg_status st = psgi_sch_find_loop(ctx, s->func->kids[0], loops[0], "fuse", &path);
  if (st) goto done;
  fors[0] = psgi_sch_path_last(&path);
  for (size_t k = 1; k < n; k++) {
    psg_tir_node *b = fors[k - 1]->kids[3];
    if (b->kind != PSG_TIR_FOR || b->kids[0] != loops[k]) {
      st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "fuse", "loop '%s' is not the whole body of loop '%s': only "
                          "perfectly nested loops, outermost first, fuse", loops[k] ? loops[k]->u.var.name : "?",
                          fors[k - 1]->kids[0]->u.var.name);
      goto done;
    }
    fors[k] = b;
  }
  psg_tir_dtype dt = psg_tir_dtype_of(loops[0]);
  char name[256] = "";
  size_t used = 0;
  for (size_t k = 0; k < n; k++) {
    if ((st = need_zero_min(ctx, fors[k], "fuse"))) goto done;
    if (psg_tir_dtype_of(loops[k]) != dt) {
      st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "fuse", "loops '%s' and '%s' have different dtypes",
                          loops[0]->u.var.name, loops[k]->u.var.name);
      goto done;
    }
    for (size_t j = 0; j < k; j++) {
      bool uses = false;
      if ((st = psgi_sch_uses_var(ctx, fors[k]->kids[2], loops[j], &uses))) goto done;
      if (uses) {
        st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "fuse", "the extent of loop '%s' depends on loop '%s'",
                            loops[k]->u.var.name, loops[j]->u.var.name);
        goto done;
      }
    }
    used += (size_t)snprintf(name + used, sizeof name - used > 40 ? sizeof name - used - 40 : 0, "%s%s", k ? "_" : "",
                             loops[k]->u.var.name);
    if (used >= sizeof name - 40) used = sizeof name - 41;
  }
  if ((st = psgi_sch_new_var(ctx, name, "_fused", dt, &var))) goto done;
  psg_tir_retain(fors[0]->kids[2]);
  ext = fors[0]->kids[2];
  for (size_t k = 1; k < n && !st; k++) {
    psg_tir_node *p = NULL;
    st = psgi_sch_bin(ctx, PSG_TIR_MUL, ext, fors[k]->kids[2], &p);
    psg_tir_release(ext);
    ext = p;
  }
  /* v_k = floormod(floordiv(fused, extents after k), extent k) */
  for (size_t k = 0; k < n && !st; k++) {
    psg_tir_node *inner = NULL, *v = var;
    psg_tir_retain(v);
    for (size_t j = k + 1; j < n && !st; j++) {
      if (!inner) {
        inner = fors[j]->kids[2];
        psg_tir_retain(inner);
      } else {
        psg_tir_node *p = NULL;
        st = psgi_sch_bin(ctx, PSG_TIR_MUL, inner, fors[j]->kids[2], &p);
        psg_tir_release(inner);
        inner = p;
      }
    }
    psg_tir_node *t = NULL;
    if (!st && inner) {
      st = psgi_sch_bin(ctx, PSG_TIR_FLOOR_DIV, v, inner, &t);
      psg_tir_release(v);
      v = t;
    }
    if (!st && k > 0) {
      st = psgi_sch_bin(ctx, PSG_TIR_FLOOR_MOD, v, fors[k]->kids[2], &t);
      psg_tir_release(v);
      v = t;
    }
    psg_tir_release(inner);
    if (!st) st = simplify_in(ctx, v, &var, &ext, 1, &vals[k]);
    psg_tir_release(v);
  }
  if (!st) st = psgi_tir_substitute_n(ctx, fors[n - 1]->kids[3], (psg_tir_node *const *)loops, vals, n, &body);
  psg_tir_node *zero = NULL;
  if (!st) st = psgi_sch_int(ctx, dt, 0, &zero);
  if (!st) st = psg_tir_for_create(ctx, var, zero, ext, PSG_TIR_FOR_SERIAL, body, NULL, &fors[0]->span, &nf);
  psg_tir_release(zero);
  if (!st) st = psgi_sch_replace(ctx, &path, path.node.len - 1, nf, &root);
  if (!st) st = psgi_sch_commit(s, root, "fuse");
  if (!st && out) {
    *out = var;
    psg_tir_retain(var);
  }
done:
  for (size_t k = 0; k < n && k < 16; k++) psg_tir_release(vals[k]);
  psg_tir_release(ext);
  psg_tir_release(var);
  psg_tir_release(body);
  psg_tir_release(nf);
  psg_tir_release(root);
  psgi_sch_path_fini(ctx, &path);
  return st;
}

/* reorder ---------------------------------------------------------------------- */
psg_status psg_tir_schedule_reorder(psg_tir_schedule *s, psg_tir_expr *const *loops, size_t n) {
  if (!s || !loops || n == 0) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  psgi_sch_path path = {0}, deepest = {0};
  psg_tir_node *body = NULL, *root = NULL;
  psg_tir_node **hdr = NULL;
  psg_status st = PSG_OK;
  size_t top = SIZE_MAX, bottom = 0;
  for (size_t k = 0; k < n && !st; k++) {
    for (size_t j = 0; j < k; j++)
      if (loops[j] == loops[k]) {
        st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "reorder", "loop '%s' is given twice", loops[k]->u.var.name);
        goto done;
      }
    if ((st = psgi_sch_find_loop(ctx, s->func->kids[0], loops[k], "reorder", &path))) goto done;
    size_t d = path.node.len - 1;
    if (d < top) top = d;
    if (d >= bottom) {
      bottom = d;
      psgi_sch_path tmp = deepest;
      deepest = path;
      path = tmp;
    }
  }
  /* Every given loop on the deepest one's path, and only For between. */
  for (size_t k = 0; k < n; k++) {
    bool on = false;
    for (size_t d = top; d <= bottom; d++) on |= deepest.node.data[d]->kids[0] == loops[k] &&
                                                 deepest.node.data[d]->kind == PSG_TIR_FOR;
    if (!on) {
      st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "reorder", "loop '%s' is not on the path of loop '%s': the "
                          "loops must be nested in one another", loops[k]->u.var.name,
                          psgi_sch_path_last(&deepest)->kids[0]->u.var.name);
      goto done;
    }
  }
  for (size_t d = top; d <= bottom; d++)
    if (deepest.node.data[d]->kind != PSG_TIR_FOR) {
      st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "reorder", "the loops between '%s' and '%s' are not a perfect "
                          "nest (a %s stands between them)", deepest.node.data[top]->kids[0]->u.var.name,
                          psgi_sch_path_last(&deepest)->kids[0]->u.var.name,
                          psg_tir_kind_name(deepest.node.data[d]->kind));
      goto done;
    }
  size_t m = bottom - top + 1;
  hdr = psgi_alloc(ctx, m * sizeof *hdr);
  if (!hdr) {
    st = PSG_ERR_NOMEM;
    goto done;
  }
  for (size_t p = 0, next = 0; p < m; p++) {
    psg_tir_node *f = deepest.node.data[top + p];
    bool given = false;
    for (size_t k = 0; k < n; k++) given |= f->kids[0] == loops[k];
    hdr[p] = given ? NULL : f;
    if (given) {
      psg_tir_node *v = loops[next++];
      for (size_t q = 0; q < m; q++)
        if (deepest.node.data[top + q]->kids[0] == v) hdr[p] = deepest.node.data[top + q];
    }
  }
  /* A loop's range may only use the vars of loops outside it. */
  for (size_t p = 0; p < m; p++)
    for (size_t q = p + 1; q < m; q++) {
      bool u1 = false, u2 = false;
      if ((st = psgi_sch_uses_var(ctx, hdr[p]->kids[1], hdr[q]->kids[0], &u1))) goto done;
      if ((st = psgi_sch_uses_var(ctx, hdr[p]->kids[2], hdr[q]->kids[0], &u2))) goto done;
      if (u1 || u2) {
        st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, "reorder", "the range of loop '%s' depends on loop '%s', "
                            "which the new order puts inside it", hdr[p]->kids[0]->u.var.name,
                            hdr[q]->kids[0]->u.var.name);
        goto done;
      }
    }
  body = deepest.node.data[bottom]->kids[3];
  psg_tir_retain(body);
  for (size_t p = m; p-- > 0 && !st;) {
    psg_tir_node *f = hdr[p], *g = NULL;
    st = psg_tir_for_create(ctx, f->kids[0], f->kids[1], f->kids[2], f->u.loop.kind, body, f->u.loop.annotations,
                            &f->span, &g);
    psg_tir_release(body);
    body = g;
  }
  if (!st) st = psgi_sch_replace(ctx, &deepest, top, body, &root);
  if (!st) st = psgi_sch_commit(s, root, "reorder");
done:
  psgi_free(ctx, hdr);
  psg_tir_release(body);
  psg_tir_release(root);
  psgi_sch_path_fini(ctx, &path);
  psgi_sch_path_fini(ctx, &deepest);
  return st;
}

/* Loop kinds and annotations ------------------------------------------------ */
typedef struct reduce_check {
  const psg_tir_node *var;
  const psg_tir_node *bad; /* a store whose indices do not use var */
  psg_ctx *ctx;
  /* buffers allocated under the loop: private to an iteration (a register
   * tile, cache_write_at), their stores reduce over nothing outside */
  const psg_tir_node *local[8];
  const psg_tir_node *local_alloc[8]; /* the Allocates, each counted once */
  size_t nlocal;
} reduce_check;

/* Only statements matter (allocations and stores), and no expression holds
 * one, so the check walks the statements alone (psgi_sch_walk: a store's
 * indices are read by psgi_sch_uses_var) and stops at the first bad store.
 * That walk is the pre-order of the visitor's over statements (a statement
 * has at most one statement operand but SeqStmt's and IfThenElse's, taken
 * in slot order by both); it reaches a shared statement at each of its
 * places where the visitor reached it once: an Allocate met again is not
 * counted again, so the allocations known at a store's first visit are the
 * visitor's, and a store met again passes again (the list has only grown),
 * so the first bad store is the visitor's (design.md 245). */
static int reduce_visit(const psgi_sch_path *path, void *user) {
  reduce_check *rc = user;
  const psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind == PSG_TIR_ALLOCATE) {
    bool seen = false;
    for (size_t i = 0; i < rc->nlocal && !seen; i++) seen = rc->local_alloc[i] == n;
    if (!seen && rc->nlocal < 8) rc->local_alloc[rc->nlocal] = n, rc->local[rc->nlocal++] = n->kids[0];
  }
  if (n->kind != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  for (size_t i = 0; i < rc->nlocal; i++)
    if (n->kids[0]->kids[0] == rc->local[i]) return PSG_VISIT_SKIP_CHILDREN;
  bool uses = false;
  size_t ni = psgi_tir_num_indices(n);
  for (size_t i = 0; i < ni && !uses; i++) {
    bool u = false;
    psgi_sch_uses_var(rc->ctx, psgi_tir_indices(n)[i], rc->var, &u);
    uses = u;
  }
  if (!uses) rc->bad = n;
  return uses ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_ABORT;
}

static psg_status set_loop(psg_tir_schedule *s, psg_tir_expr *loop, int kind, const char *key, psg_attr *value,
                           const char *prim) {
  if (!s) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = s->ctx;
  psgi_sch_path path = {0};
  psg_tir_node *nf = NULL, *root = NULL;
  psg_attrs *ann = NULL;
  psg_status st = psgi_sch_find_loop(ctx, s->func->kids[0], loop, prim, &path);
  if (st) goto done;
  psg_tir_node *f = psgi_sch_path_last(&path);
  if (kind == PSG_TIR_FOR_PARALLEL || kind == PSG_TIR_FOR_VECTORIZED) {
    reduce_check rc = {f->kids[0], NULL, ctx, {0}, {0}, 0};
    psgi_sch_path sub = {0};
    st = psgi_sch_walk(ctx, f->kids[3], reduce_visit, &rc, &sub);
    psgi_sch_path_fini(ctx, &sub);
    if (st) goto done;
    if (rc.bad) {
      st = psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "loop '%s' is a reduction loop of block '%s' (a store "
                          "there does not depend on it)", f->kids[0]->u.var.name, rc.bad->kids[0]->u.buf.name);
      goto done;
    }
  }
  if (key) {
    if ((st = psg_attrs_with(ctx, f->u.loop.annotations, key, value, &ann))) goto done;
  } else {
    ann = f->u.loop.annotations;
    if (ann) psg_attrs_retain(ann);
  }
  if ((st = psg_tir_for_create(ctx, f->kids[0], f->kids[1], f->kids[2], kind < 0 ? f->u.loop.kind : kind, f->kids[3],
                               ann, &f->span, &nf)))
    goto done;
  if ((st = psgi_sch_replace(ctx, &path, path.node.len - 1, nf, &root))) goto done;
  st = psgi_sch_commit(s, root, prim);
done:
  psg_attrs_release(ann);
  psg_tir_release(nf);
  psg_tir_release(root);
  psgi_sch_path_fini(ctx, &path);
  return st;
}

psg_status psg_tir_schedule_vectorize(psg_tir_schedule *s, psg_tir_expr *loop) {
  return set_loop(s, loop, PSG_TIR_FOR_VECTORIZED, NULL, NULL, "vectorize");
}
psg_status psg_tir_schedule_parallel(psg_tir_schedule *s, psg_tir_expr *loop) {
  return set_loop(s, loop, PSG_TIR_FOR_PARALLEL, NULL, NULL, "parallel");
}
psg_status psg_tir_schedule_unroll(psg_tir_schedule *s, psg_tir_expr *loop) {
  return set_loop(s, loop, PSG_TIR_FOR_UNROLLED, NULL, NULL, "unroll");
}
psg_status psg_tir_schedule_annotate(psg_tir_schedule *s, psg_tir_expr *loop, const char *key, psg_attr *value) {
  if (!key || !*key || !value) return PSG_ERR_INVALID_ARGUMENT;
  return set_loop(s, loop, -1, key, value, "annotate");
}
