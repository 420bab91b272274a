/* Passage — FuseOps' dataflow graph and post-dominator tree (TVM's
 * IndexedForwardGraph and DominatorTree, tvm-behavior §7.1). Nodes are
 * numbered in post-DFS order by one iterative walk; the tree is computed in
 * reverse order, so every user is done before its producer. */
#include "ops/op_impl.h"
#include "transforms/fuse_graph.h"

static int combine(int a, int b) { return a > b ? a : b; }

bool psgi_is_primitive_fn(const psg_expr *fn) {
  return fn->kind == PSG_EXPR_FUNCTION && fn->u.fn.attrs && psg_attrs_get(fn->u.fn.attrs, "Primitive");
}

bool psgi_fuse_is_leaf_fn(const psg_expr *fn) {
  const psg_attrs *a = fn->kind == PSG_EXPR_FUNCTION ? fn->u.fn.attrs : NULL;
  return a && (psg_attrs_get(a, "Primitive") || psg_attrs_get(a, "Composite") || psg_attrs_get(a, "Compiler"));
}

uint32_t psgi_fuse_index_of(const psgi_fuse_graph *g, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&g->index, e);
  return en ? (uint32_t)((uintptr_t)en->value - 1) : PSGI_FUSE_NONE;
}

/* Building ------------------------------------------------------------------- */

/* Marks child k of node `user`. */
static void mark_extern(psgi_fuse_graph *g, uint32_t user, uint32_t k) {
  uint32_t i = psgi_fuse_kid(g, user, k);
  if (i != PSGI_FUSE_NONE) g->nodes.data[i].extern_ref = true;
}

/* Records that node `user` reads its child k with `pattern`. Edges are
 * appended, so each output list is in increasing user order, which keeps the
 * ancestor walks of the dominator tree short on chains. */
static psg_status add_edge(psgi_fuse_graph *g, uint32_t user, uint32_t k, int pattern) {
  uint32_t i = psgi_fuse_kid(g, user, k);
  if (i == PSGI_FUSE_NONE) return PSG_OK;
  uint32_t at = (uint32_t)g->edges.len;
  psgi_fuse_edge edge = {user, PSGI_FUSE_NONE, pattern};
  if (!PSGI_VEC_PUSH(g->ctx, &g->edges, edge)) return psgi_nomem(g->ctx);
  psgi_fuse_node *n = &g->nodes.data[i];
  if (n->out_tail == PSGI_FUSE_NONE) n->out_head = at;
  else g->edges.data[n->out_tail].next = at;
  n->out_tail = at;
  return PSG_OK;
}

static bool same_shape(const psg_type *a, const psg_type *b) {
  if (!a || !b || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

static const psg_type *tensor_type(const psg_expr *e) {
  const psg_type *t = e->checked_type;
  return t && t->kind == PSG_TYPE_TENSOR ? t : NULL;
}

/* TVM fuses only scalar constants of the common dtypes into a group; any
 * other constant is opaque (a parameter of whatever uses it). */
static int constant_pattern(const psg_expr *c) {
  const psg_tensor *t = c->u.constant;
  int d = t->dtype;
  bool simple = d == PSG_DTYPE_INT32 || d == PSG_DTYPE_INT64 || d == PSG_DTYPE_FLOAT32 ||
                d == PSG_DTYPE_FLOAT64 || d == PSG_DTYPE_BOOL;
  return t->ndim == 0 && simple ? PSGI_PATTERN_ELEMWISE : PSGI_PATTERN_OPAQUE;
}

static psg_status call_edges(psgi_fuse_graph *g, const psg_expr *e, uint32_t idx, int *pattern) {
  const psg_expr *callee = e->kids[0];
  psg_status st = PSG_OK;
  *pattern = PSGI_PATTERN_OPAQUE;
  if (callee->kind == PSG_EXPR_OP) {
    const psgi_op_impl *impl = psgi_op_impl_in(callee->ctx, callee->u.op);
    if (impl) *pattern = impl->pattern;
  } else {
    st = add_edge(g, idx, 0, PSGI_PATTERN_OPAQUE);
  }
  mark_extern(g, idx, 0);
  const psg_type *rtype = tensor_type(e);
  for (uint32_t i = 1; !st && i < e->nkids; i++) {
    int edge = *pattern;
    /* A broadcast that does not actually broadcast this argument reads it
     * element by element. */
    if (edge == PSGI_PATTERN_BROADCAST && same_shape(tensor_type(e->kids[i]), rtype)) edge = PSGI_PATTERN_ELEMWISE;
    st = add_edge(g, idx, i, edge);
  }
  return st;
}

/* Node e, whose index entry is g->index.entries[slot]; kid_slots holds the
 * entries of its children in order (NULL for a leaf function, whose
 * children were not walked: they are looked up). */
static psg_status add_node(psgi_fuse_graph *g, const psg_expr *e, uint32_t slot, const uint32_t *kid_slots) {
  uint32_t idx = (uint32_t)g->nodes.len;
  psgi_fuse_node n = {0};
  n.expr = e;
  n.out_head = n.out_tail = PSGI_FUSE_NONE;
  n.kid_base = (uint32_t)g->kids.len;
  if (g->kids.len + e->nkids >= PSGI_FUSE_NONE) return psg_ctx_fail(g->ctx, PSG_ERR_UNSUPPORTED, "FuseOps: too many edges");
  if (!PSGI_VEC_PUSH(g->ctx, &g->nodes, n) || !PSGI_VEC_RESERVE(g->ctx, &g->kids, g->kids.len + e->nkids))
    return psgi_nomem(g->ctx);
  /* Every child is numbered before its user (post order); a primitive
   * function's children are not in the graph. */
  for (uint32_t k = 0; k < e->nkids; k++) {
    uintptr_t v = kid_slots ? (uintptr_t)g->index.entries[kid_slots[k]].value : 0;
    g->kids.data[g->kids.len++] = kid_slots ? (uint32_t)(v - 1) : psgi_fuse_index_of(g, e->kids[k]);
  }
  g->index.entries[slot].value = (void *)(uintptr_t)(idx + 1);
  int pattern = PSGI_PATTERN_OPAQUE;
  psg_status st = PSG_OK;
  switch ((int)e->kind) {
  case PSG_EXPR_VAR:
  case PSG_EXPR_GLOBAL_VAR:
  case PSG_EXPR_CONSTRUCTOR:
  case PSG_EXPR_OP: break;
  case PSG_EXPR_CONSTANT: pattern = constant_pattern(e); break;
  case PSG_EXPR_CALL: st = call_edges(g, e, idx, &pattern); break;
  case PSG_EXPR_TUPLE:
    pattern = PSGI_PATTERN_TUPLE;
    for (uint32_t i = 0; !st && i < e->nkids; i++) {
      if (tensor_type(e->kids[i])) st = add_edge(g, idx, i, PSGI_PATTERN_INJECTIVE);
      else mark_extern(g, idx, i);
    }
    break;
  case PSG_EXPR_TUPLE_GET_ITEM:
    pattern = PSGI_PATTERN_INJECTIVE;
    st = add_edge(g, idx, 0, PSGI_PATTERN_INJECTIVE);
    break;
  case PSG_EXPR_LET:
  case PSG_EXPR_IF:
  case PSG_EXPR_FUNCTION:
  case PSG_EXPR_MATCH:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE:
    /* Nothing fuses across a let binding, into a branch or a function
     * boundary: every child is used from outside any group. A primitive
     * function's children were not visited and are not in the graph. */
    for (uint32_t i = 0; i < e->nkids; i++) mark_extern(g, idx, i);
    break;
  }
  g->nodes.data[idx].pattern = (uint8_t)pattern;
  return st;
}

/* Post-dominator tree ----------------------------------------------------------- */

/* TVM's LeastCommonAncestor: climbs the deeper side, folding the patterns of
 * the nodes passed into *pattern. */
static uint32_t lca(const psgi_fuse_graph *g, uint32_t a, uint32_t b, int *pattern) {
  const psgi_fuse_node *n = g->nodes.data;
  while (a != b) {
    if (a == PSGI_FUSE_NONE || b == PSGI_FUSE_NONE) return PSGI_FUSE_NONE;
    if (n[a].dom_depth < n[b].dom_depth) {
      *pattern = combine(*pattern, n[b].dom_pattern);
      b = n[b].dom_parent;
    } else if (n[b].dom_depth < n[a].dom_depth) {
      *pattern = combine(*pattern, n[a].dom_pattern);
      a = n[a].dom_parent;
    } else {
      *pattern = combine(combine(*pattern, n[a].dom_pattern), n[b].dom_pattern);
      a = n[a].dom_parent;
      b = n[b].dom_parent;
    }
  }
  return a;
}

static void post_dominators(psgi_fuse_graph *g) {
  for (size_t k = g->nodes.len; k-- > 0;) {
    psgi_fuse_node *n = &g->nodes.data[k];
    n->dom_parent = PSGI_FUSE_NONE;
    n->dom_depth = 1;
    n->dom_pattern = PSGI_PATTERN_OPAQUE;
    if (n->extern_ref || n->out_head == PSGI_FUSE_NONE) continue;
    int pattern = PSGI_PATTERN_ELEMWISE;
    uint32_t parent = PSGI_FUSE_NONE;
    for (uint32_t e = n->out_head; e != PSGI_FUSE_NONE; e = g->edges.data[e].next) {
      const psgi_fuse_edge *edge = &g->edges.data[e];
      parent = e == n->out_head ? edge->node : lca(g, parent, edge->node, &pattern);
      pattern = combine(pattern, edge->pattern);
    }
    n->dom_parent = parent;
    n->dom_depth = parent == PSGI_FUSE_NONE ? 1 : g->nodes.data[parent].dom_depth + 1;
    n->dom_pattern = (uint8_t)pattern;
  }
}

/* A post-order walk whose visited set is the index map itself (one map for a
 * million nodes instead of two); primitive and composite functions are leaves.
 * Each node's entry in the map is found once, when the walk first meets it:
 * a frame keeps its own entry's position, and `slots` the positions of the
 * children met so far (a node's are the last nkids when it is done, its
 * children having popped theirs), so numbering a node needs no lookup. */
typedef struct dfs_frame {
  const psg_expr *e;
  uint32_t next, slot;
} dfs_frame;

static uint32_t first_child(const psg_expr *e) { return psgi_fuse_is_leaf_fn(e) ? e->nkids : 0; }

static psg_status number_nodes(psgi_fuse_graph *g, const psg_expr *root) {
  PSGI_VEC(dfs_frame) stack = {0};
  PSGI_VEC(uint32_t) slots = {0};
  psg_status st = PSG_OK;
  psgi_map_entry *en = psgi_map_put_ptr(&g->index, root, NULL);
  dfs_frame f0 = {root, first_child(root), en ? (uint32_t)(en - g->index.entries) : 0};
  if (!en || !PSGI_VEC_PUSH(g->ctx, &stack, f0)) st = psgi_nomem(g->ctx);
  while (!st && stack.len) {
    dfs_frame *f = &stack.data[stack.len - 1];
    if (f->next < f->e->nkids) {
      const psg_expr *child = f->e->kids[f->next++];
      bool is_new;
      if (!(en = psgi_map_put_ptr(&g->index, child, &is_new))) {
        st = psgi_nomem(g->ctx);
        break;
      }
      uint32_t slot = (uint32_t)(en - g->index.entries);
      dfs_frame fc = {child, first_child(child), slot};
      if (!PSGI_VEC_PUSH(g->ctx, &slots, slot) || (is_new && !PSGI_VEC_PUSH(g->ctx, &stack, fc))) st = psgi_nomem(g->ctx);
      continue;
    }
    const psg_expr *e = f->e;
    uint32_t slot = f->slot;
    bool walked = first_child(e) == 0; /* a leaf function's children were not */
    stack.len--;
    st = add_node(g, e, slot, walked && e->nkids ? slots.data + slots.len - e->nkids : NULL);
    if (walked) slots.len -= e->nkids;
  }
  PSGI_VEC_FREE(g->ctx, &stack);
  PSGI_VEC_FREE(g->ctx, &slots);
  return st;
}

psg_status psgi_fuse_graph_build(psg_ctx *ctx, const psg_expr *fn, psgi_fuse_graph *g) {
  memset(g, 0, sizeof *g);
  g->ctx = ctx;
  psgi_map_init(&g->index, ctx);
  size_t hint = psgi_expr_size_hint(fn); /* sized by the last walk (a hint) */
  psgi_map_reserve(&g->index, hint);
  if (hint && !PSGI_VEC_RESERVE(ctx, &g->nodes, hint)) return psgi_nomem(ctx);
  psg_status st = number_nodes(g, fn);
  if (st) return st;
  if (g->nodes.len >= PSGI_FUSE_NONE) return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "FuseOps: too many nodes");
  g->nodes.data[g->nodes.len - 1].extern_ref = true; /* fn itself, last in post order */
  post_dominators(g);
  return PSG_OK;
}

void psgi_fuse_graph_fini(psgi_fuse_graph *g) {
  PSGI_VEC_FREE(g->ctx, &g->nodes);
  PSGI_VEC_FREE(g->ctx, &g->edges);
  PSGI_VEC_FREE(g->ctx, &g->kids);
  PSGI_VEC_FREE(g->ctx, &g->work);
  psgi_map_fini(&g->index);
}
