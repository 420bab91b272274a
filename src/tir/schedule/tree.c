/* Passage — statement paths for the schedule primitives: a pre-order walk
 * that keeps the path to the statement it visits, and the functional
 * replacement (or removal) of one statement on a path, rebuilding the nodes
 * above it (the IR is immutable). Iterative. */
#include "tir/schedule/schedule_internal.h"

void psgi_sch_path_fini(psg_ctx *ctx, psgi_sch_path *p) {
  PSGI_VEC_FREE(ctx, &p->node);
  PSGI_VEC_FREE(ctx, &p->slot);
}

uint32_t psgi_sch_next_stmt_kid(const psg_tir_node *n, uint32_t k) {
  /* The leaf statements, most of a function, hold expressions only. */
  if (n->kind == PSG_TIR_BUFFER_STORE || n->kind == PSG_TIR_EVALUATE) return n->nkids;
  while (k < n->nkids && !psgi_tir_is_stmt_kind(n->kids[k]->kind)) k++;
  return k;
}

psg_status psgi_sch_walk(psg_ctx *ctx, psg_tir_node *root, psgi_sch_visit_fn visit, void *user,
                         psgi_sch_path *path) {
  PSGI_VEC(uint32_t) next = {0};
  psg_status st = PSG_OK;
  path->node.len = path->slot.len = 0;
  /* Room for a typical nest at once (the vectors would grow one doubling at a time). */
  if (!PSGI_VEC_RESERVE(ctx, &path->node, 32) || !PSGI_VEC_RESERVE(ctx, &path->slot, 32) ||
      !PSGI_VEC_RESERVE(ctx, &next, 32))
    goto nomem;
  if (!PSGI_VEC_PUSH(ctx, &path->node, root) || !PSGI_VEC_PUSH(ctx, &next, 0)) goto nomem;
  int r = visit(path, user);
  if (r == PSG_VISIT_ABORT) goto done;
  if (r == PSG_VISIT_SKIP_CHILDREN) next.data[0] = root->nkids;
  while (path->node.len) {
    psg_tir_node *n = psgi_sch_path_last(path);
    uint32_t k = psgi_sch_next_stmt_kid(n, next.data[next.len - 1]);
    if (k >= n->nkids) {
      path->node.len--;
      next.len--;
      if (path->slot.len) path->slot.len--;
      continue;
    }
    next.data[next.len - 1] = k + 1;
    psg_tir_node *kid = n->kids[k];
    if (!PSGI_VEC_PUSH(ctx, &path->slot, k) || !PSGI_VEC_PUSH(ctx, &path->node, kid) ||
        !PSGI_VEC_PUSH(ctx, &next, 0))
      goto nomem;
    r = visit(path, user);
    if (r == PSG_VISIT_ABORT) goto done;
    if (r == PSG_VISIT_SKIP_CHILDREN) next.data[next.len - 1] = kid->nkids;
  }
  goto done;
nomem:
  st = PSG_ERR_NOMEM;
done:
  PSGI_VEC_FREE(ctx, &next);
  return st;
}

/* Why the copy is what psgi_tir_rebuild gives: the constructors of the
 * statements a path runs through check the other operands (unchanged, and
 * accepted when parent was built) and only that a statement operand is a
 * statement (kid is one), and derive nothing from it; the payload (loop
 * kind and annotations, an Allocate's annotations, an AttrStmt's key) and
 * the flags are the parent's. test_tir_schedule_fast_paths compares the
 * two on every statement operand of the TIR corpus and of random nests. */
psg_status psgi_sch_with_stmt_kid(psg_ctx *ctx, const psg_tir_node *parent, uint32_t slot, psg_tir_node *kid,
                                  psg_tir_node **out) {
  *out = NULL;
  switch (parent->kind) {
  case PSG_TIR_FOR:
  case PSG_TIR_SEQ_STMT:
  case PSG_TIR_ALLOCATE:
  case PSG_TIR_DECL_BUFFER:
  case PSG_TIR_ATTR_STMT:
  case PSG_TIR_LET_STMT:
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_ASSERT_STMT:
  case PSG_TIR_WHILE: break;
  default: return PSG_OK;
  }
  if (slot >= parent->nkids || !psgi_tir_is_stmt_kind(parent->kids[slot]->kind) || !psgi_tir_is_stmt_kind(kid->kind))
    return PSG_OK;
  psg_tir_node *n = NULL;
  psg_status st = psgi_tir_new(ctx, parent->kind, parent->nkids, &parent->span, &n);
  if (st) return st;
  n->dtype = parent->dtype;
  n->flags = parent->flags;
  for (uint32_t i = 0; i < parent->nkids; i++) psgi_tir_set_kid(n, i, i == slot ? kid : parent->kids[i]);
  if (parent->kind == PSG_TIR_FOR) {
    n->u.loop = parent->u.loop;
    psg_attrs_retain(n->u.loop.annotations);
  } else if (parent->kind == PSG_TIR_ALLOCATE) {
    n->u.annotations = parent->u.annotations;
    psg_attrs_retain(n->u.annotations);
  } else if (parent->kind == PSG_TIR_ATTR_STMT) {
    n->u.attr_key = parent->u.attr_key;
  }
  *out = n;
  return PSG_OK;
}

psg_status psgi_sch_replace(psg_ctx *ctx, const psgi_sch_path *path, size_t depth, psg_tir_node *with,
                            psg_tir_node **out) {
  *out = NULL;
  psg_tir_node *cur = with;
  psg_tir_retain(cur);
  for (size_t k = depth; k-- > 0;) {
    psg_tir_node *parent = path->node.data[k];
    psg_tir_node *nn = NULL;
    psg_status st = psgi_sch_with_stmt_kid(ctx, parent, path->slot.data[k], cur, &nn);
    if (!st && !nn) {
      psg_tir_node **kids = psgi_alloc(ctx, (parent->nkids + 1) * sizeof *kids);
      if (!kids) {
        psg_tir_release(cur);
        return PSG_ERR_NOMEM;
      }
      memcpy(kids, parent->kids, parent->nkids * sizeof *kids);
      kids[path->slot.data[k]] = cur;
      st = psgi_tir_rebuild(parent, kids, &nn);
      psgi_free(ctx, kids);
    }
    psg_tir_release(cur);
    if (st) return st;
    cur = nn;
  }
  *out = cur;
  return PSG_OK;
}

static psg_status evaluate_zero(psg_ctx *ctx, psg_tir_node **out) {
  psg_tir_node *zero = NULL;
  psg_status st = psgi_sch_int(ctx, psg_tir_dtype_int32(), 0, &zero);
  if (!st) st = psg_tir_evaluate_create(ctx, zero, NULL, out);
  psg_tir_release(zero);
  return st;
}

psg_status psgi_sch_remove(psg_ctx *ctx, const psgi_sch_path *path, size_t depth, psg_tir_node **out) {
  *out = NULL;
  psg_tir_node *with = NULL;
  psg_status st;
  if (depth > 0 && path->node.data[depth - 1]->kind == PSG_TIR_SEQ_STMT) {
    psg_tir_node *seq = path->node.data[depth - 1];
    uint32_t drop = path->slot.data[depth - 1];
    if (seq->nkids == 2) {
      with = seq->kids[1 - drop];
      psg_tir_retain(with);
    } else {
      psg_tir_node **kids = psgi_alloc(ctx, seq->nkids * sizeof *kids);
      if (!kids) return PSG_ERR_NOMEM;
      size_t m = 0;
      for (uint32_t k = 0; k < seq->nkids; k++)
        if (k != drop) kids[m++] = seq->kids[k];
      st = psg_tir_seq_stmt_create(ctx, kids, m, &seq->span, &with);
      psgi_free(ctx, kids);
      if (st) return st;
    }
    st = psgi_sch_replace(ctx, path, depth - 1, with, out);
  } else {
    st = evaluate_zero(ctx, &with);
    if (!st) st = psgi_sch_replace(ctx, path, depth, with, out);
  }
  psg_tir_release(with);
  return st;
}

psg_status psgi_sch_seq2(psg_ctx *ctx, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out) {
  size_t na = a->kind == PSG_TIR_SEQ_STMT ? a->nkids : 1, nb = b->kind == PSG_TIR_SEQ_STMT ? b->nkids : 1;
  psg_tir_node **kids = psgi_alloc(ctx, (na + nb) * sizeof *kids);
  if (!kids) return PSG_ERR_NOMEM;
  if (a->kind == PSG_TIR_SEQ_STMT) memcpy(kids, a->kids, na * sizeof *kids);
  else kids[0] = a;
  if (b->kind == PSG_TIR_SEQ_STMT) memcpy(kids + na, b->kids, nb * sizeof *kids);
  else kids[na] = b;
  psg_status st = psg_tir_seq_stmt_create(ctx, kids, na + nb, NULL, out);
  psgi_free(ctx, kids);
  return st;
}

typedef struct find_target {
  const psg_tir_node *target;
  bool loop; /* target is a loop var: find the For binding it */
  bool found;
} find_target;

static int find_visit(const psgi_sch_path *path, void *user) {
  find_target *f = user;
  const psg_tir_node *n = psgi_sch_path_last(path);
  if (f->loop ? n->kind == PSG_TIR_FOR && n->kids[0] == f->target : n == f->target) {
    f->found = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

psg_status psgi_sch_find_node(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *target, psgi_sch_path *path,
                              bool *found) {
  find_target f = {target, false, false};
  psg_status st = psgi_sch_walk(ctx, body, find_visit, &f, path);
  *found = f.found;
  return st;
}

psg_status psgi_sch_find_loop(psg_ctx *ctx, psg_tir_node *body, const psg_tir_node *var, const char *prim,
                              psgi_sch_path *path) {
  if (!var || !psgi_tir_is_var_kind(var->kind))
    return psgi_sch_error(ctx, PSG_ERR_INVALID_ARGUMENT, prim, "a loop is given by its loop var");
  find_target f = {var, true, false};
  psg_status st = psgi_sch_walk(ctx, body, find_visit, &f, path);
  if (st) return st;
  if (!f.found)
    return psgi_sch_error(ctx, PSG_ERR_NOT_FOUND, prim, "no loop over '%s' in the function (a loop that split or fuse "
                          "replaced, or that compute_inline dropped, is gone)", var->u.var.name);
  return PSG_OK;
}
