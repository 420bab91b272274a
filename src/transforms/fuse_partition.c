/* Passage — FuseOps' partition of the dataflow graph into fusion groups
 * (TVM's GraphPartitioner, tvm-behavior §7.1): each node tries to join the
 * group of its immediate post-dominator, in three phases — elementwise ops
 * and OUT_ELEMWISE_FUSABLE anchors first, injective ops second, tuple fields
 * into fused tuples last — never growing a group beyond max_depth nodes.
 * Path checks are worklist walks, never recursion. */
#include "ops/op_impl.h"
#include "transforms/fuse_graph.h"

uint32_t psgi_fuse_group_of(psgi_fuse_graph *g, uint32_t i) {
  psgi_fuse_node *n = g->nodes.data;
  uint32_t root = i;
  while (n[root].group_parent != root) root = n[root].group_parent;
  while (n[i].group_parent != root) { /* path compression */
    uint32_t next = n[i].group_parent;
    n[i].group_parent = root;
    i = next;
  }
  return root;
}

/* What the nodes between a node and its post-dominator may be. */
enum { PATH_BROADCAST, PATH_INJECTIVE, PATH_ANCHOR };

static bool path_ok(int cond, int kind, bool is_sink) {
  switch (cond) {
  case PATH_BROADCAST: return kind <= PSGI_PATTERN_BROADCAST;
  case PATH_INJECTIVE: return kind <= PSGI_PATTERN_INJECTIVE;
  default:
    /* Elementwise, broadcast and injective ops on parallel branches may join
     * an elementwise anchor; the sink may already be a fused conv2d group. */
    if (!is_sink) return kind <= PSGI_PATTERN_INJECTIVE;
    return kind <= PSGI_PATTERN_INJECTIVE || kind == PSGI_PATTERN_COMM_REDUCE ||
           kind == PSGI_PATTERN_OUT_ELEMWISE_FUSABLE;
  }
}

/* Starts a walk from the users of `src`: a fresh epoch, a worklist holding
 * src's output nodes. */
static psg_status start_walk(psgi_fuse_graph *g, uint32_t src) {
  g->epoch++;
  g->work.len = 0;
  for (uint32_t e = g->nodes.data[src].out_head; e != PSGI_FUSE_NONE; e = g->edges.data[e].next)
    if (!PSGI_VEC_PUSH(g->ctx, &g->work, g->edges.data[e].node)) return psgi_nomem(g->ctx);
  return PSG_OK;
}

/* Pops the next unvisited node of the walk, or PSGI_FUSE_NONE. */
static uint32_t next_in_walk(psgi_fuse_graph *g) {
  while (g->work.len) {
    uint32_t v = g->work.data[--g->work.len];
    if (g->nodes.data[v].stamp == g->epoch) continue;
    g->nodes.data[v].stamp = g->epoch;
    return v;
  }
  return PSGI_FUSE_NONE;
}

static psg_status push_users(psgi_fuse_graph *g, uint32_t v) {
  for (uint32_t e = g->nodes.data[v].out_head; e != PSGI_FUSE_NONE; e = g->edges.data[e].next)
    if (!PSGI_VEC_PUSH(g->ctx, &g->work, g->edges.data[e].node)) return psgi_nomem(g->ctx);
  return PSG_OK;
}

/* TVM's CheckPath: every node on every path from src to sink satisfies cond. */
static psg_status check_path(psgi_fuse_graph *g, uint32_t src, uint32_t sink, int cond, bool *ok) {
  *ok = true;
  psg_status st = start_walk(g, src);
  for (uint32_t v; !st && (v = next_in_walk(g)) != PSGI_FUSE_NONE;) {
    int kind = g->nodes.data[psgi_fuse_group_of(g, v)].group_pattern;
    if (!path_ok(cond, kind, v == sink)) {
      *ok = false;
      return PSG_OK;
    }
    if (v != sink) st = push_users(g, v);
  }
  return st;
}

static void merge(psgi_fuse_graph *g, uint32_t child, uint32_t parent) {
  child = psgi_fuse_group_of(g, child);
  parent = psgi_fuse_group_of(g, parent);
  if (child == parent) return;
  psgi_fuse_node *c = &g->nodes.data[child], *p = &g->nodes.data[parent];
  p->num_nodes += c->num_nodes;
  c->group_parent = parent;
  if (c->has_anchor) {
    p->has_anchor = true;
    p->group_pattern = (uint8_t)(c->group_pattern > p->group_pattern ? c->group_pattern : p->group_pattern);
  }
}

/* TVM's CommitFuse: src and everything between it and sink join sink's group. */
static psg_status commit(psgi_fuse_graph *g, uint32_t src, uint32_t sink) {
  psg_status st = start_walk(g, src);
  g->nodes.data[src].stamp = g->epoch;
  merge(g, src, sink);
  for (uint32_t v; !st && (v = next_in_walk(g)) != PSGI_FUSE_NONE;) {
    if (v == sink) continue;
    merge(g, v, sink);
    st = push_users(g, v);
  }
  return st;
}

/* TVM's CountFusedNodesWithNewChild: the size of sink's group once child and
 * the nodes between them join it (counting each node's own group record,
 * as TVM does). */
static psg_status fused_size(psgi_fuse_graph *g, uint32_t child, uint32_t sink, uint64_t *size) {
  *size = g->nodes.data[psgi_fuse_group_of(g, sink)].num_nodes + g->nodes.data[child].num_nodes;
  psg_status st = start_walk(g, child);
  g->nodes.data[child].stamp = g->epoch;
  for (uint32_t v; !st && (v = next_in_walk(g)) != PSGI_FUSE_NONE;) {
    if (v == sink) continue;
    *size += g->nodes.data[v].num_nodes;
    st = push_users(g, v);
  }
  return st;
}

/* Which path condition lets node nid join its post-dominator's group in
 * this phase, or -1: none (the pattern rules, no walk). */
static int join_condition(psgi_fuse_graph *g, uint32_t nid, int phase) {
  const psgi_fuse_node *n = &g->nodes.data[nid];
  int gp = n->group_pattern;
  uint32_t dom = n->dom_parent;
  int dom_own = g->nodes.data[dom].group_pattern;
  if (phase == 2) {
    /* Injective fields of a tuple that itself joined an injective group. */
    int dom_root = g->nodes.data[psgi_fuse_group_of(g, dom)].group_pattern;
    if (gp > PSGI_PATTERN_INJECTIVE || dom_root == PSGI_PATTERN_TUPLE) return -1;
    if (dom_own != PSGI_PATTERN_TUPLE || dom_root > PSGI_PATTERN_INJECTIVE) return -1;
    return PATH_INJECTIVE;
  }
  if (psgi_fuse_group_of(g, nid) == psgi_fuse_group_of(g, dom) || dom_own == PSGI_PATTERN_TUPLE) return -1;
  if (gp == PSGI_PATTERN_OUT_ELEMWISE_FUSABLE) {
    if (phase != 0 || n->dom_pattern != PSGI_PATTERN_ELEMWISE) return -1;
    return PATH_BROADCAST;
  }
  if (gp <= PSGI_PATTERN_BROADCAST) {
    if (n->dom_pattern > PSGI_PATTERN_INJECTIVE && n->dom_pattern != PSGI_PATTERN_COMM_REDUCE) return -1;
    return PATH_ANCHOR;
  }
  if (gp == PSGI_PATTERN_INJECTIVE || gp == PSGI_PATTERN_TUPLE) {
    /* After phase 0, so that conv2d groups are complete first. */
    return phase == 1 ? PATH_INJECTIVE : -1;
  }
  return -1; /* COMM_REDUCE groups never move into their users */
}

/* One node of one phase of TVM's RunFuse: the pattern rules first, then the
 * size limit and the path (walks), then the merge. */
static psg_status fuse_node(psgi_fuse_graph *g, uint32_t nid, int phase, int64_t max_depth) {
  psgi_fuse_node *n = &g->nodes.data[nid];
  uint32_t dom = n->dom_parent;
  if (n->group_pattern == PSGI_PATTERN_OPAQUE || dom == PSGI_FUSE_NONE) return PSG_OK;
  int cond = join_condition(g, nid, phase);
  if (cond < 0) return PSG_OK;
  uint64_t size;
  psg_status st = fused_size(g, nid, dom, &size);
  if (st || size > (uint64_t)max_depth) return st;
  bool ok = false;
  st = check_path(g, nid, dom, cond, &ok);
  if (!st && ok) st = commit(g, nid, dom);
  return st;
}

psg_status psgi_fuse_partition(psgi_fuse_graph *g, int opt_level, int64_t max_depth) {
  for (uint32_t i = 0; i < g->nodes.len; i++) {
    psgi_fuse_node *n = &g->nodes.data[i];
    n->group_parent = i;
    n->num_nodes = 1;
    n->group_pattern = n->pattern;
    n->has_anchor = n->pattern == PSGI_PATTERN_OUT_ELEMWISE_FUSABLE;
  }
  if (opt_level == 0) return PSG_OK;
  psg_status st = PSG_OK;
  for (int phase = 0; !st && phase < 3; phase++)
    for (uint32_t i = 0; !st && i < g->nodes.len; i++) st = fuse_node(g, i, phase, max_depth);
  return st;
}
