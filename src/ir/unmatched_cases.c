/* Passage — TVM's UnmatchedCases (match exhaustion): starting from the
 * candidate `_`, each candidate is checked against the clauses in order; the
 * first clause that does not clash either matches it (done) or needs it more
 * specific, and then the candidate is expanded (a wildcard where the clause
 * has a constructor becomes every constructor of that type, with wildcard
 * fields; where it has a tuple, a tuple of wildcards) and the expansions are
 * checked in turn. A candidate every clause clashes with is unmatched.
 * Patterns are flat pre-order arrays, so both the check and the expansion
 * are simultaneous linear walks of a clause pattern and a candidate. */
#include "ir/ir_internal.h"

enum { MATCHES, CLASH, UNSPECIFIED };
enum { MAX_CANDIDATES = 1000000 };

static bool same_ctor(const psg_expr *a, const psg_expr *b) {
  return a == b || (strcmp(a->u.ctor.name, b->u.ctor.name) == 0 &&
                    strcmp(a->u.ctor.belongs_to->name, b->u.ctor.belongs_to->name) == 0);
}

/* TVM's CandidateChecker. */
static int check(const psgi_pat_node *pat, uint32_t np, const psgi_pat_node *cand) {
  bool unspecified = false;
  for (uint32_t i = 0, j = 0; i < np;) {
    const psgi_pat_node *p = &pat[i], *c = &cand[j];
    if (p->kind == PSG_PATTERN_WILDCARD || p->kind == PSG_PATTERN_VAR) {
      i = psgi_pat_subtree_end(pat, i);
      j = psgi_pat_subtree_end(cand, j);
    } else if (c->kind == PSG_PATTERN_WILDCARD) {
      unspecified = true;
      i = psgi_pat_subtree_end(pat, i);
      j++;
    } else if (p->kind != c->kind || p->nsub != c->nsub ||
               (p->kind == PSG_PATTERN_CONSTRUCTOR && !same_ctor(p->ctor, c->ctor))) {
      return CLASH;
    } else {
      i++, j++;
    }
  }
  return unspecified ? UNSPECIFIED : MATCHES;
}

typedef PSGI_VEC(psg_pattern *) pattern_vec;

/* One expansion point: candidate node `at` (a wildcard) and its choices. */
typedef struct point {
  uint32_t at;
  size_t first, count; /* into the alternatives list */
} point;

static void release_all(pattern_vec *v) {
  for (size_t i = 0; i < v->len; i++) psg_pattern_release(v->data[i]);
  v->len = 0;
}

/* A constructor (or tuple, ctor NULL) of `nsub` wildcard fields. */
static psg_status shallow(psg_ctx *ctx, int kind, psg_expr *ctor, uint32_t nsub, psg_pattern **out) {
  psg_status st = psgi_pattern_alloc(ctx, 1 + (size_t)nsub, out);
  if (st) return st;
  (*out)->nodes[0] = (psgi_pat_node){(uint8_t)kind, nsub, ctor, NULL};
  psg_expr_retain(ctor);
  for (uint32_t k = 1; k <= nsub; k++) (*out)->nodes[k].kind = PSG_PATTERN_WILDCARD;
  return PSG_OK;
}

/* TVM's ExpandWildcards of `cand` by clause pattern `pat`: the product of
 * the choices at every wildcard of cand where pat is more specific, pushed
 * on `todo`. */
static psg_status expand(psg_ctx *ctx, const psg_module *mod, const psgi_pat_node *pat, uint32_t np,
                         const psg_pattern *cand, pattern_vec *todo) {
  PSGI_VEC(point) points = {0};
  pattern_vec alts = {0};
  psg_status st = PSG_OK;
  for (uint32_t i = 0, j = 0; i < np && !st;) {
    const psgi_pat_node *p = &pat[i], *c = &cand->nodes[j];
    if (p->kind == PSG_PATTERN_WILDCARD || p->kind == PSG_PATTERN_VAR || c->kind != PSG_PATTERN_WILDCARD) {
      bool leaf = p->kind == PSG_PATTERN_WILDCARD || p->kind == PSG_PATTERN_VAR;
      i = leaf ? psgi_pat_subtree_end(pat, i) : i + 1;
      j = leaf ? psgi_pat_subtree_end(cand->nodes, j) : j + 1;
      continue;
    }
    point pt = {j, alts.len, 0};
    if (p->kind == PSG_PATTERN_TUPLE) {
      psg_pattern *a = NULL;
      if (!(st = shallow(ctx, PSG_PATTERN_TUPLE, NULL, p->nsub, &a)) && !PSGI_VEC_PUSH(ctx, &alts, a)) {
        psg_pattern_release(a);
        st = psgi_nomem(ctx);
      }
    } else {
      const psg_type_data *td = mod ? psg_module_lookup_type_def(mod, p->ctor->u.ctor.belongs_to) : NULL;
      if (!td)
        st = psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                           "unmatched cases: the type of constructor %s is not in the module", p->ctor->u.ctor.name);
      for (int k = 0; td && k < td->nctors && !st; k++) {
        psg_pattern *a = NULL;
        psg_expr *kc = td->ctors[k];
        if (!(st = shallow(ctx, PSG_PATTERN_CONSTRUCTOR, kc, (uint32_t)kc->u.ctor.inputs->n, &a)) &&
            !PSGI_VEC_PUSH(ctx, &alts, a)) {
          psg_pattern_release(a);
          st = psgi_nomem(ctx);
        }
      }
    }
    pt.count = alts.len - pt.first;
    if (!st && !PSGI_VEC_PUSH(ctx, &points, pt)) st = psgi_nomem(ctx);
    i = psgi_pat_subtree_end(pat, i);
    j++;
  }
  /* Every combination, the last point varying fastest. */
  size_t *digit = st || !points.len ? NULL : psgi_calloc(ctx, points.len * sizeof *digit);
  if (!st && points.len && !digit) st = psgi_nomem(ctx);
  bool empty = false;
  for (size_t k = 0; k < points.len; k++) empty |= points.data[k].count == 0;
  while (!st && !empty) {
    size_t n = cand->n;
    for (size_t k = 0; k < points.len; k++) n += alts.data[points.data[k].first + digit[k]]->n - 1;
    psg_pattern *out = NULL;
    if ((st = psgi_pattern_alloc(ctx, n, &out))) break;
    size_t o = 0, k = 0;
    for (uint32_t j = 0; j < cand->n; j++) {
      if (k < points.len && points.data[k].at == j) {
        const psg_pattern *a = alts.data[points.data[k].first + digit[k]];
        for (uint32_t q = 0; q < a->n; q++) out->nodes[o++] = a->nodes[q];
        k++;
      } else {
        out->nodes[o++] = cand->nodes[j];
      }
    }
    for (size_t q = 0; q < n; q++) {
      psg_expr_retain(out->nodes[q].ctor);
      psg_expr_retain(out->nodes[q].var);
    }
    if (!PSGI_VEC_PUSH(ctx, todo, out)) {
      psg_pattern_release(out);
      st = psgi_nomem(ctx);
      break;
    }
    size_t d = points.len;
    while (d > 0 && ++digit[d - 1] == points.data[d - 1].count) digit[--d] = 0;
    if (d == 0) break; /* wrapped around: all done (also when there are no points) */
  }
  psgi_free(ctx, digit);
  release_all(&alts);
  PSGI_VEC_FREE(ctx, &alts);
  PSGI_VEC_FREE(ctx, &points);
  return st;
}

psg_status psg_match_unmatched_cases(const psg_expr *m, const psg_module *mod, psg_pattern **out) {
  *out = NULL;
  if (!m || m->kind != PSG_EXPR_MATCH) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = m->ctx;
  const psgi_match_info *mi = m->u.match;
  pattern_vec todo = {0}, failed = {0};
  psg_pattern *w = NULL;
  psg_status st = psg_pattern_wildcard(ctx, &w);
  if (!st && !PSGI_VEC_PUSH(ctx, &todo, w)) {
    psg_pattern_release(w);
    st = psgi_nomem(ctx);
  }
  size_t seen = 0;
  while (!st && todo.len) {
    psg_pattern *cand = todo.data[--todo.len];
    if (++seen > MAX_CANDIDATES) {
      psg_pattern_release(cand);
      st = psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "unmatched cases: more than %d candidate cases", MAX_CANDIDATES);
      break;
    }
    bool failure = true;
    for (uint32_t c = 0; c < mi->nclauses && !st; c++) {
      const psgi_pat_node *pat = &mi->pats[mi->pat_start[c]];
      uint32_t np = mi->pat_start[c + 1] - mi->pat_start[c];
      int r = check(pat, np, cand->nodes);
      if (r == CLASH) continue;
      failure = false;
      if (r == UNSPECIFIED) st = expand(ctx, mod, pat, np, cand, &todo);
      break;
    }
    if (!st && failure && PSGI_VEC_PUSH(ctx, &failed, cand)) continue;
    if (!st && failure) st = psgi_nomem(ctx);
    psg_pattern_release(cand);
  }
  if (!st) st = psg_pattern_tuple(ctx, failed.data, (int)failed.len, out);
  release_all(&todo);
  release_all(&failed);
  PSGI_VEC_FREE(ctx, &todo);
  PSGI_VEC_FREE(ctx, &failed);
  return st;
}
