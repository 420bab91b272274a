/* Passage — what tir.CommonSubexprElimTIR (common_subexpr_elim.c) and its
 * analyses (cse_tables.c) share. */
#ifndef PSG_TIR_CSE_H
#define PSG_TIR_CSE_H

#include "tir/transforms/tir_transforms.h"

/* A computation and how often it is done; `next` chains entries of one hash
 * (index + 1, 0 ends). */
typedef struct psgi_cse_comp {
  psg_tir_node *e; /* owned */
  size_t count;
  uint64_t hash;
  size_t next;
} psgi_cse_comp;

/* A computation table (TVM's ComputationTable), in insertion order. */
typedef struct psgi_cse_table {
  PSGI_VEC(psgi_cse_comp) items;
  psgi_map index; /* hash | 1 -> first entry with it (index + 1) */
} psgi_cse_table;

void psgi_cse_table_init(psgi_cse_table *t, psg_ctx *ctx);
void psgi_cse_table_fini(psg_ctx *ctx, psgi_cse_table *t);
/* Adds `count` sightings of e (hash h: its psgi_cse_info's). */
psg_status psgi_cse_table_add(psg_ctx *ctx, psgi_cse_table *t, psg_tir_node *e, uint64_t h, size_t count);
size_t psgi_cse_table_count(const psgi_cse_table *t, const psg_tir_node *e, uint64_t h);

/* What the pass asks of an expression (psgi_cse_info_of). */
typedef struct psgi_cse_info {
  uint64_t hash;     /* structural: agrees with psg_arith_expr_equal */
  size_t complexity; /* TVM's CalculateExprComplexity */
  bool forbidden;    /* TVM's ForbiddenComputation: a Call or BufferLoad in it */
} psgi_cse_info;

/* Statement tables, cached by node (TVM's ComputationsDoneBy cache), and
 * the expression infos, cached by node, for the whole pass. */
typedef struct psgi_cse_tables {
  psg_ctx *ctx;
  /* a loop whose min and extent are constants or vars gets its (empty)
   * table without its body's (psgi_cse_stmt_table) */
  bool lazy_loops;
  psgi_map cache;      /* stmt (retained) -> psgi_cse_table * */
  /* expr (retained) -> index + 1 into infos: open addressing, linear
   * probing, at most half full (the pass's most frequent lookup; a
   * psgi_map's entries cost twice as much) */
  struct psgi_cse_info_slot {
    const psg_tir_node *key; /* NULL: empty */
    size_t index;
  } *info_slots;
  size_t info_cap; /* 0 or a power of two */
  PSGI_VEC(psgi_cse_info) infos;
} psgi_cse_tables;
void psgi_cse_tables_init(psgi_cse_tables *c, psg_ctx *ctx);
void psgi_cse_tables_fini(psgi_cse_tables *c);
/* The computations statement s does (borrowed from the cache): the union
 * over its children, except For (min, extent, body), IfThenElse (cond,
 * then, else), which keep what at least two children do, and While (cond,
 * body), which keeps what both do. */
psg_status psgi_cse_stmt_table(psgi_cse_tables *c, const psg_tir_node *s, const psgi_cse_table **out);
const psgi_cse_table *psgi_cse_cached_table(psgi_cse_tables *c, const psg_tir_node *s);
/* The computations expression e does, added to t: e itself when eligible,
 * else those of its operands. */
psg_status psgi_cse_expr_table(psgi_cse_tables *c, const psg_tir_node *e, psgi_cse_table *t);
/* The info of expression e, computed (memoized for the pass, e retained
 * while cached; a constant or var is not cached). */
psg_status psgi_cse_info_compute(psgi_cse_tables *c, const psg_tir_node *e, psgi_cse_info *out);
/* Fibonacci hashing of the address (nodes are 16-byte aligned). */
static inline size_t psgi_cse_info_home(const psgi_cse_tables *c, const psg_tir_node *key) {
  return (size_t)(((uint64_t)(uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull >> 32) & (c->info_cap - 1);
}
/* The index + 1 of e's cached info, 0 when it has none. */
static inline size_t psgi_cse_cached_index(const psgi_cse_tables *c, const psg_tir_node *e) {
  if (!c->info_cap) return 0;
  for (size_t i = psgi_cse_info_home(c, e);; i = (i + 1) & (c->info_cap - 1)) {
    const struct psgi_cse_info_slot *sl = &c->info_slots[i];
    if (sl->key == e) return sl->index;
    if (!sl->key) return 0;
  }
}
/* The info of expression e: the cached one inline (the pass's most
 * frequent question), else psgi_cse_info_compute. */
static inline psg_status psgi_cse_info_of(psgi_cse_tables *c, const psg_tir_node *e, psgi_cse_info *out) {
  size_t have = psgi_cse_cached_index(c, e);
  if (have) {
    *out = c->infos.data[have - 1];
    return PSG_OK;
  }
  return psgi_cse_info_compute(c, e, out);
}

/* Work stacks on the C stack while they fit: the walks of the pass run once
 * or more per statement and computation, most over a few nodes. */
/* Room for `need` elements of `size` bytes in a stack whose `len` elements
 * are at `data`, first the caller's array `small`: a heap copy twice `need`
 * long (the previous heap array freed), *cap updated. NULL: out of memory
 * (data left as it was). */
void *psgi_cse_stack_grow(psg_ctx *ctx, void *data, size_t len, size_t need, size_t size, const void *small,
                          size_t *cap);
/* A stack of nodes. */
typedef struct psgi_cse_nodes {
  const psg_tir_node **data;
  size_t len, cap;
  const psg_tir_node *small[64];
} psgi_cse_nodes;
static inline void psgi_cse_nodes_init(psgi_cse_nodes *s) {
  s->data = s->small;
  s->len = 0;
  s->cap = sizeof s->small / sizeof *s->small;
}
static inline void psgi_cse_nodes_fini(psg_ctx *ctx, psgi_cse_nodes *s) {
  if (s->data != s->small) psgi_free(ctx, s->data);
}
/* False: out of memory. */
static inline bool psgi_cse_nodes_push(psg_ctx *ctx, psgi_cse_nodes *s, const psg_tir_node *n) {
  if (s->len == s->cap) {
    const psg_tir_node **nd = psgi_cse_stack_grow(ctx, s->data, s->len, s->len + 1, sizeof *nd, s->small, &s->cap);
    if (!nd) return false;
    s->data = nd;
  }
  s->data[s->len++] = n;
  return true;
}

/* A constant or a var: no computation. */
static inline bool psgi_cse_is_leaf(const psg_tir_node *n) {
  return n->kind == PSG_TIR_INT_IMM || n->kind == PSG_TIR_FLOAT_IMM || n->kind == PSG_TIR_STRING_IMM ||
         psgi_tir_is_var_kind(n->kind);
}
/* Whether operand `slot` of n is one TVM's visitors reach: an expression or
 * a statement, not the var a Let or For binds, not buffers, iter vars or
 * types. */
static inline bool psgi_cse_visited_slot(const psg_tir_node *n, uint32_t slot) {
  const psg_tir_node *k = n->kids[slot];
  if (!psgi_tir_is_expr_kind(k->kind) && !psgi_tir_is_stmt_kind(k->kind)) return false;
  return !(slot == 0 && (n->kind == PSG_TIR_LET || n->kind == PSG_TIR_LET_STMT || n->kind == PSG_TIR_FOR));
}
/* TVM's IsEligibleComputation: not a leaf, Ramp or Broadcast, and no Call
 * or BufferLoad in it. */
bool psgi_cse_eligible(psgi_cse_tables *c, const psg_tir_node *e, bool *oom);
/* e in TVM's legacy text form ("(x + y)", "floordiv(a, b)"), appended to out. */
psg_status psgi_cse_repr(psg_ctx *ctx, const psg_tir_node *e, psgi_buf *out);

#endif
