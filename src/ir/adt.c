/* Passage — ADT and reference expressions (TVM's Constructor, Match with its
 * patterns, RefCreate/RefRead/RefWrite): constructors and accessors. A
 * pattern is a flat pre-order array, so nothing here recurses. */
#include "ir/ir_internal.h"

static psg_status bad(psg_ctx *ctx, const char *what) {
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL, "%s", what);
}

/* Constructors --------------------------------------------------------------- */

psg_status psg_constructor_create(psg_ctx *ctx, const char *name, const psg_type *const *inputs, int n,
                                  const psg_type *belongs_to, const psg_span *span, psg_expr **out) {
  *out = NULL;
  if (!name || !*name) return bad(ctx, "a Constructor needs a name");
  if (!belongs_to || belongs_to->kind != PSG_TYPE_GLOBAL_VAR)
    return bad(ctx, "a Constructor belongs to a GlobalTypeVar");
  if (n < 0 || (n && !inputs)) return bad(ctx, "bad Constructor inputs");
  for (int i = 0; i < n; i++)
    if (!inputs[i]) return bad(ctx, "a Constructor input type is NULL");
  const psg_type *tuple;
  psg_status st = psg_type_tuple(ctx, inputs, n, &tuple);
  if (st) return st;
  const char *nm = psgi_intern(ctx, name, strlen(name));
  if (!nm) return psgi_nomem(ctx);
  if ((st = psgi_expr_new(ctx, PSG_EXPR_CONSTRUCTOR, 0, span, out))) return st;
  (*out)->u.ctor.name = nm;
  (*out)->u.ctor.belongs_to = belongs_to;
  (*out)->u.ctor.inputs = tuple;
  psgi_expr_tail_of(*out)->tag = -1;
  return PSG_OK;
}

#define IS(e, k) ((e) && (e)->kind == (k))
const char *psg_constructor_name(const psg_expr *c) { return IS(c, PSG_EXPR_CONSTRUCTOR) ? c->u.ctor.name : NULL; }
int psg_constructor_num_inputs(const psg_expr *c) { return IS(c, PSG_EXPR_CONSTRUCTOR) ? c->u.ctor.inputs->n : 0; }
const psg_type *psg_constructor_input(const psg_expr *c, int i) {
  return i >= 0 && i < psg_constructor_num_inputs(c) ? c->u.ctor.inputs->fields[i] : NULL;
}
const psg_type *psg_constructor_belongs_to(const psg_expr *c) {
  return IS(c, PSG_EXPR_CONSTRUCTOR) ? c->u.ctor.belongs_to : NULL;
}
int psg_constructor_tag(const psg_expr *c) { return IS(c, PSG_EXPR_CONSTRUCTOR) ? psgi_expr_tail_of(c)->tag : -1; }

/* References ----------------------------------------------------------------- */

static psg_status make_kids(psg_ctx *ctx, int kind, psg_expr *const *kids, size_t n, const psg_span *span,
                            psg_expr **out) {
  *out = NULL;
  for (size_t i = 0; i < n; i++)
    if (!kids[i]) return bad(ctx, "a reference expression needs its operands");
  psg_status st = psgi_expr_new(ctx, kind, n, span, out);
  if (!st) psgi_expr_set_kids(*out, kids);
  return st;
}

psg_status psg_ref_create(psg_ctx *ctx, psg_expr *value, const psg_span *span, psg_expr **out) {
  return make_kids(ctx, PSG_EXPR_REF_CREATE, &value, 1, span, out);
}
psg_status psg_ref_read(psg_ctx *ctx, psg_expr *ref, const psg_span *span, psg_expr **out) {
  return make_kids(ctx, PSG_EXPR_REF_READ, &ref, 1, span, out);
}
psg_status psg_ref_write(psg_ctx *ctx, psg_expr *ref, psg_expr *value, const psg_span *span, psg_expr **out) {
  psg_expr *kids[2] = {ref, value};
  return make_kids(ctx, PSG_EXPR_REF_WRITE, kids, 2, span, out);
}

/* Patterns ------------------------------------------------------------------- */

static void node_retain(const psgi_pat_node *p) {
  psg_expr_retain(p->ctor);
  psg_expr_retain(p->var);
}

psg_status psgi_pattern_alloc(psg_ctx *ctx, size_t n, psg_pattern **out) {
  *out = NULL;
  if (n > UINT32_MAX / 2) return bad(ctx, "pattern too large");
  psg_pattern *p = psgi_calloc(ctx, sizeof *p + n * sizeof(psgi_pat_node));
  if (!p) return psgi_nomem(ctx);
  p->refcount = 1;
  p->ctx = ctx;
  p->n = (uint32_t)n;
  psgi_ctx_object_born(ctx);
  *out = p;
  return PSG_OK;
}

/* A pattern of one node `head` followed by the nodes of `fields`. */
static psg_status pattern_join(psg_ctx *ctx, psgi_pat_node head, psg_pattern *const *fields, int n,
                               psg_pattern **out) {
  *out = NULL;
  if (n < 0 || (n && !fields)) return bad(ctx, "bad pattern fields");
  size_t total = 1;
  for (int i = 0; i < n; i++) {
    if (!fields[i]) return bad(ctx, "a sub-pattern is NULL");
    total += fields[i]->n;
  }
  psg_status st = psgi_pattern_alloc(ctx, total, out);
  if (st) return st;
  psg_pattern *p = *out;
  head.nsub = (uint32_t)n;
  p->nodes[0] = head;
  node_retain(&head);
  size_t k = 1;
  for (int i = 0; i < n; i++)
    for (uint32_t j = 0; j < fields[i]->n; j++) {
      p->nodes[k] = fields[i]->nodes[j];
      node_retain(&p->nodes[k++]);
    }
  return PSG_OK;
}

psg_status psg_pattern_wildcard(psg_ctx *ctx, psg_pattern **out) {
  return pattern_join(ctx, (psgi_pat_node){PSG_PATTERN_WILDCARD, 0, NULL, NULL}, NULL, 0, out);
}

psg_status psg_pattern_var(psg_ctx *ctx, psg_expr *var, psg_pattern **out) {
  *out = NULL;
  if (!IS(var, PSG_EXPR_VAR)) return bad(ctx, "a PatternVar needs a Var");
  return pattern_join(ctx, (psgi_pat_node){PSG_PATTERN_VAR, 0, NULL, var}, NULL, 0, out);
}

psg_status psg_pattern_constructor(psg_ctx *ctx, psg_expr *ctor, psg_pattern *const *fields, int n,
                                   psg_pattern **out) {
  *out = NULL;
  /* As TVM, the field count is not checked here: InferType reports it. */
  if (!IS(ctor, PSG_EXPR_CONSTRUCTOR)) return bad(ctx, "a PatternConstructor needs a Constructor");
  return pattern_join(ctx, (psgi_pat_node){PSG_PATTERN_CONSTRUCTOR, 0, ctor, NULL}, fields, n, out);
}

psg_status psg_pattern_tuple(psg_ctx *ctx, psg_pattern *const *fields, int n, psg_pattern **out) {
  return pattern_join(ctx, (psgi_pat_node){PSG_PATTERN_TUPLE, 0, NULL, NULL}, fields, n, out);
}

void psg_pattern_retain(psg_pattern *p) {
  if (p) psgi_ref_inc(&p->refcount);
}

void psg_pattern_release(psg_pattern *p) {
  if (!p || !psgi_ref_dec(&p->refcount)) return;
  psg_ctx *ctx = p->ctx;
  for (uint32_t i = 0; i < p->n; i++) {
    psg_expr_release(p->nodes[i].ctor);
    psg_expr_release(p->nodes[i].var);
  }
  psgi_free(ctx, p);
  psgi_ctx_object_died(ctx);
}

int psg_pattern_kind(const psg_pattern *p) { return p->nodes[0].kind; }
psg_expr *psg_pattern_get_var(const psg_pattern *p) { return p->nodes[0].var; }
psg_expr *psg_pattern_get_constructor(const psg_pattern *p) { return p->nodes[0].ctor; }
int psg_pattern_num_fields(const psg_pattern *p) { return (int)p->nodes[0].nsub; }

uint32_t psgi_pat_subtree_end(const psgi_pat_node *nodes, uint32_t at) {
  uint64_t need = 1;
  while (need) need += (uint64_t)nodes[at++].nsub - 1;
  return at;
}

psg_status psg_pattern_field(const psg_pattern *p, int i, psg_pattern **out) {
  *out = NULL;
  if (i < 0 || i >= psg_pattern_num_fields(p)) return bad(p->ctx, "pattern field index out of range");
  uint32_t at = 1;
  for (int k = 0; k < i; k++) at = psgi_pat_subtree_end(p->nodes, at);
  uint32_t end = psgi_pat_subtree_end(p->nodes, at);
  psg_status st = psgi_pattern_alloc(p->ctx, end - at, out);
  if (st) return st;
  for (uint32_t k = at; k < end; k++) {
    (*out)->nodes[k - at] = p->nodes[k];
    node_retain(&p->nodes[k]);
  }
  return PSG_OK;
}

/* Match ---------------------------------------------------------------------- */

void psgi_match_info_release(psg_ctx *ctx, psgi_match_info *mi) {
  if (!mi || !psgi_ref_dec(&mi->refcount)) return;
  for (uint32_t i = 0; i < mi->pat_start[mi->nclauses]; i++) psg_expr_release(mi->pats[i].ctor);
  psgi_free(ctx, mi);
}

/* Counts the variables of `p`, checking each is bound once in it. */
static psg_status pattern_vars(psg_ctx *ctx, const psg_pattern *p, size_t *nvars) {
  *nvars = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    if (p->nodes[i].kind != PSG_PATTERN_VAR) continue;
    for (uint32_t j = 0; j < i; j++)
      if (p->nodes[j].var == p->nodes[i].var)
        return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                             "pattern variable %%%s is bound twice in one pattern", p->nodes[i].var->u.var.name);
    ++*nvars;
  }
  return PSG_OK;
}

psg_status psg_match_create(psg_ctx *ctx, psg_expr *data, psg_pattern *const *pats, psg_expr *const *rhs,
                            size_t n, bool complete, const psg_span *span, psg_expr **out) {
  *out = NULL;
  if (!data || (n && (!pats || !rhs))) return bad(ctx, "a Match needs data and clauses");
  if (n > UINT32_MAX / 4) return bad(ctx, "too many clauses");
  size_t nkids = 1, npats = 0;
  for (size_t c = 0; c < n; c++) {
    if (!pats[c] || !rhs[c]) return bad(ctx, "a Match clause needs a pattern and a right-hand side");
    size_t nv;
    psg_status st = pattern_vars(ctx, pats[c], &nv);
    if (st) return st;
    nkids += nv + 1;
    npats += pats[c]->n;
  }
  if (nkids > UINT32_MAX / 2 || npats > UINT32_MAX / 2) return bad(ctx, "Match too large");
  /* One block: the info, its two index arrays, the binder flags, the nodes. */
  size_t size = sizeof(psgi_match_info) + 2 * (n + 1) * sizeof(uint32_t) + npats * sizeof(psgi_pat_node) +
                nkids;
  psgi_match_info *mi = psgi_calloc(ctx, size);
  psg_expr **kids = psgi_alloc(ctx, nkids * sizeof *kids);
  if (!mi || !kids) {
    psgi_free(ctx, mi);
    psgi_free(ctx, kids);
    return psgi_nomem(ctx);
  }
  mi->refcount = 1;
  mi->complete = complete;
  mi->nclauses = (uint32_t)n;
  mi->pats = (psgi_pat_node *)(mi + 1);
  mi->pat_start = (uint32_t *)(mi->pats + npats);
  mi->kid_start = mi->pat_start + n + 1;
  mi->binder = (uint8_t *)(mi->kid_start + n + 1);
  kids[0] = data;
  uint32_t pk = 0, kk = 1;
  for (size_t c = 0; c < n; c++) {
    mi->pat_start[c] = pk;
    mi->kid_start[c] = kk;
    for (uint32_t j = 0; j < pats[c]->n; j++) {
      psgi_pat_node nd = pats[c]->nodes[j];
      if (nd.kind == PSG_PATTERN_VAR) {
        mi->binder[kk] = 1;
        kids[kk++] = nd.var;
      }
      nd.var = NULL;
      psg_expr_retain(nd.ctor);
      mi->pats[pk++] = nd;
    }
    kids[kk++] = rhs[c];
  }
  mi->pat_start[n] = pk;
  mi->kid_start[n] = kk;
  psg_status st = psgi_expr_new(ctx, PSG_EXPR_MATCH, nkids, span, out);
  if (st) {
    psgi_match_info_release(ctx, mi);
  } else {
    (*out)->u.match = mi;
    psgi_expr_set_kids(*out, kids);
  }
  psgi_free(ctx, kids);
  return st;
}

psg_expr *psg_match_get_data(const psg_expr *m) { return IS(m, PSG_EXPR_MATCH) ? m->kids[0] : NULL; }
size_t psg_match_num_clauses(const psg_expr *m) { return IS(m, PSG_EXPR_MATCH) ? m->u.match->nclauses : 0; }
bool psg_match_complete(const psg_expr *m) { return IS(m, PSG_EXPR_MATCH) && m->u.match->complete; }
psg_expr *psg_match_clause_rhs(const psg_expr *m, size_t i) {
  return i < psg_match_num_clauses(m) ? m->kids[m->u.match->kid_start[i + 1] - 1] : NULL;
}
size_t psg_match_clause_num_vars(const psg_expr *m, size_t i) {
  return i < psg_match_num_clauses(m) ? m->u.match->kid_start[i + 1] - 1 - m->u.match->kid_start[i] : 0;
}
psg_expr *psg_match_clause_var(const psg_expr *m, size_t i, size_t j) {
  return j < psg_match_clause_num_vars(m, i) ? m->kids[m->u.match->kid_start[i] + j] : NULL;
}

psg_status psg_match_clause_pattern(const psg_expr *m, size_t i, psg_pattern **out) {
  *out = NULL;
  if (i >= psg_match_num_clauses(m)) return bad(m->ctx, "Match clause index out of range");
  const psgi_match_info *mi = m->u.match;
  uint32_t a = mi->pat_start[i], b = mi->pat_start[i + 1], kv = mi->kid_start[i];
  psg_status st = psgi_pattern_alloc(m->ctx, b - a, out);
  if (st) return st;
  for (uint32_t k = a; k < b; k++) {
    psgi_pat_node nd = mi->pats[k];
    if (nd.kind == PSG_PATTERN_VAR) nd.var = m->kids[kv++];
    (*out)->nodes[k - a] = nd;
    node_retain(&nd);
  }
  return PSG_OK;
}
