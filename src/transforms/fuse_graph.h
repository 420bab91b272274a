/* Passage — FuseOps' analysis (tvm-behavior §7.1): the indexed dataflow graph
 * of a function, its post-dominator tree and the partition of its nodes into
 * fusion groups, as TVM's IndexedForwardGraph, DominatorTree and
 * GraphPartitioner. Everything is arrays indexed by post-DFS position, so no
 * step recurses on graph depth. fuse_ops.c turns the groups into functions. */
#ifndef PSG_TRANSFORMS_FUSE_GRAPH_H
#define PSG_TRANSFORMS_FUSE_GRAPH_H

#include "ir/ir_internal.h"

#define PSGI_FUSE_NONE UINT32_MAX

typedef struct psgi_fuse_edge {
  uint32_t node; /* the consumer */
  uint32_t next; /* next output edge of the producer, or PSGI_FUSE_NONE */
  int pattern;   /* how the consumer uses the producer */
} psgi_fuse_edge;

typedef struct psgi_fuse_node {
  const psg_expr *expr;
  uint32_t kid_base; /* the indices of expr's children start at kids[kid_base] */
  uint32_t out_head, out_tail; /* output edges, in the order users were found */
  /* Post-dominator tree: the immediate post-dominator, the node's depth in
   * the tree and the strongest pattern on the way there. */
  uint32_t dom_parent, dom_depth;
  /* Groups (union-find). A group is named by the node it was created for;
   * its root is the node whose value leaves the group (TVM's root_ref). */
  uint32_t group_parent, num_nodes;
  uint32_t stamp; /* path walks: visited when equal to the graph's epoch */
  uint8_t pattern, dom_pattern, group_pattern;
  bool extern_ref; /* used where nothing may fuse with it (let, if, fn body) */
  bool has_anchor; /* the group holds an OUT_ELEMWISE_FUSABLE op */
} psgi_fuse_node;

typedef struct psgi_fuse_graph {
  psg_ctx *ctx;
  PSGI_VEC(psgi_fuse_node) nodes; /* post-DFS order: inputs before users */
  PSGI_VEC(psgi_fuse_edge) edges;
  psgi_map index; /* expr -> its index + 1 */
  PSGI_VEC(uint32_t) kids; /* per node, its children's indices (PSGI_FUSE_NONE: not in the graph) */
  uint32_t epoch;
  PSGI_VEC(uint32_t) work;
} psgi_fuse_graph;

/* Builds the graph of `fn` (a typed Function). Functions FuseOps leaves whole
 * (psgi_fuse_is_leaf_fn) are leaves. */
psg_status psgi_fuse_graph_build(psg_ctx *ctx, const psg_expr *fn, psgi_fuse_graph *g);
/* Partitions the nodes into groups at fuse level `opt_level` (0: every node
 * alone) with at most `max_depth` nodes per group. */
psg_status psgi_fuse_partition(psgi_fuse_graph *g, int opt_level, int64_t max_depth);
/* The root node of node i's group. */
uint32_t psgi_fuse_group_of(psgi_fuse_graph *g, uint32_t i);
/* The index of `e`, or PSGI_FUSE_NONE when `e` is not in the graph. */
uint32_t psgi_fuse_index_of(const psgi_fuse_graph *g, const psg_expr *e);
/* The index of child k of node i (no map lookup). */
static inline uint32_t psgi_fuse_kid(const psgi_fuse_graph *g, uint32_t i, uint32_t k) {
  return g->kids.data[g->nodes.data[i].kid_base + k];
}
void psgi_fuse_graph_fini(psgi_fuse_graph *g);

/* True when `fn` carries a "Primitive" attribute (whatever its value). */
bool psgi_is_primitive_fn(const psg_expr *fn);
/* True when FuseOps leaves `fn` whole, as TVM does: a Primitive function
 * (fused already), a Composite one (a pattern kept for its writer, e.g. the
 * ONNX importer's onnx.LSTM) or one for an external Compiler. Its body is not
 * in the graph; a call of it is opaque. */
bool psgi_fuse_is_leaf_fn(const psg_expr *fn);

#endif
