/* Passage — tir.StorageFlatten's flat indices by shape (buffer_flatten.c's
 * flat_indices_of): an access whose buffer layout and indices have the
 * shape of one met before in the function, with other vars in the same
 * places, takes the earlier flat indices with its own nodes put in place
 * of the earlier access's. Why that is the same result (docs/design.md,
 * departure "StorageFlatten reuses the flat indices of an access of the
 * same shape"): StorageFlatten builds the flat index with TVM's operators
 * and simplifies it with an analyzer that holds no facts; both read a var
 * only as an atom compared by identity (never its name, address order or
 * hash order) together with its kind and dtype, so renaming the vars one
 * to one before gives the result renamed after. The key holds everything
 * the flat index reads: the rank, the axis separators, the strides, the
 * shape, elem_offset and the indices, as a preorder of kinds, flags,
 * dtypes, constants and var positions (numbered by first occurrence, with
 * their kind and dtype). An access with any other node (a load inside an
 * index, a call, a vector) is not keyed and takes the full path. Where the
 * computed index would hold a node of the access (a var, a shape constant,
 * an index kept whole), the answer holds that very node, not a copy: the
 * later passes' memos key on nodes (tir.Simplify with copies cost silero_vad
 * 1.2M more instructions than the cache saved). */
#include <string.h>
#include "pass/run_scratch.h"
#include "tir/transforms/tir_transforms.h"

enum { MAX_VARS = 32, MAX_WORDS = 384, MAX_STACK = 128 };

bool psgi_flat_shapes_disabled = false;

typedef struct shape_key {
  uint64_t words[MAX_WORDS];
  size_t len;
  const psg_tir_node *vars[MAX_VARS];
  size_t nvars;
  const psg_tir_node *nodes[MAX_WORDS]; /* every node of the key, in preorder */
  size_t nnodes;
} shape_key;

/* A remembered access: its key, the nodes of its key in preorder, its flat
 * indices, all owned; the key's words follow the struct. */
typedef struct shape_entry {
  size_t nnodes, nout, nwords;
  psg_tir_node **nodes;
  psg_tir_expr **out;
  uint64_t words[];
} shape_entry;

static bool put(shape_key *k, uint64_t w) {
  if (k->len == MAX_WORDS) return false;
  k->words[k->len++] = w;
  return true;
}

static bool keyed_kind(int kind) { return kind >= PSG_TIR_CAST && kind <= PSG_TIR_MAX; }

/* Appends e's preorder to the key; false when e holds a node the key does
 * not take (or is too large for it). Iterative. */
static bool put_expr(shape_key *k, const psg_tir_node *e) {
  const psg_tir_node *stack[MAX_STACK];
  size_t sp = 0;
  stack[sp++] = e;
  while (sp) {
    const psg_tir_node *n = stack[--sp];
    k->nodes[k->nnodes++] = n; /* at most one per word */
    uint64_t head = (uint64_t)n->kind << 56 | (uint64_t)n->flags << 48 | (uint64_t)n->nkids << 40 | n->dtype;
    if (!put(k, head)) return false;
    if (psgi_tir_is_var_kind(n->kind)) {
      if (n->nkids) return false;
      size_t i = 0;
      while (i < k->nvars && k->vars[i] != n) i++;
      if (i == k->nvars) {
        if (k->nvars == MAX_VARS) return false;
        k->vars[k->nvars++] = n;
      }
      if (!put(k, i)) return false;
      continue;
    }
    if (n->kind == PSG_TIR_INT_IMM) {
      if (n->nkids || !put(k, (uint64_t)n->u.int_value)) return false;
      continue;
    }
    if (!keyed_kind(n->kind) || sp + n->nkids > MAX_STACK) return false;
    for (uint32_t i = n->nkids; i-- > 0;) {
      if (!psgi_tir_is_expr_kind(n->kids[i]->kind)) return false;
      stack[sp++] = n->kids[i];
    }
  }
  return true;
}

/* The key of the access of b at idx[0..ni); false: not keyed. */
static bool make_key(shape_key *k, const psg_tir_buffer *b, psg_tir_expr *const *idx, size_t ni) {
  size_t ndim = b->u.buf.ndim, nsep = b->u.buf.naxis, nstr = b->u.buf.nstrides;
  k->len = k->nvars = k->nnodes = 0;
  if (!put(k, ndim) || !put(k, nsep) || !put(k, nstr) || !put(k, ni)) return false;
  for (size_t i = 0; i < nsep; i++)
    if (!put(k, (uint64_t)b->u.buf.axis_separators[i])) return false;
  /* elem_offset, shape, strides: the buffer's expression operands */
  for (size_t i = 1; i < 2 + ndim + nstr && i < b->nkids; i++)
    if (!put_expr(k, b->kids[i])) return false;
  for (size_t i = 0; i < ni; i++)
    if (!put_expr(k, idx[i])) return false;
  return true;
}

static void entry_free(psg_ctx *ctx, shape_entry *e) {
  for (size_t i = 0; e->nodes && i < e->nnodes; i++) psg_tir_release(e->nodes[i]);
  psgi_free(ctx, e->nodes);
  for (size_t i = 0; e->out && i < e->nout; i++) psg_tir_release(e->out[i]);
  psgi_free(ctx, e->out);
  psgi_free(ctx, e);
}

/* The position of n among e's key nodes + 1, 0 when it is none of them. */
static size_t key_position(const shape_entry *e, const psg_tir_node *n) {
  for (size_t i = 0; i < e->nnodes; i++)
    if (e->nodes[i] == n) return i + 1;
  return 0;
}

typedef struct {
  const shape_entry *e;
  const shape_key *k;
} transplant_keys;

/* A node of the earlier access's key becomes this access's at its position;
 * a constant or a type stays; anything else has its operands rewritten. */
static psg_status transplant_decide(void *user, const psg_tir_node *n, psg_tir_node **repl) {
  const transplant_keys *t = user;
  size_t pos = key_position(t->e, n);
  if (pos) psg_tir_retain(*repl = (psg_tir_node *)t->k->nodes[pos - 1]);
  else if (!psgi_tir_is_expr_kind(n->kind) || !n->nkids) psg_tir_retain(*repl = (psg_tir_node *)n);
  else *repl = NULL;
  return PSG_OK;
}

/* r (a remembered flat index) for the access keyed by k: a node of the
 * earlier access's key becomes the node at its position in k (structurally
 * the same up to the vars' renaming, since the keys are equal), so the
 * result shares the access's own subtrees as computing it would (the later
 * passes' memos key on nodes); the nodes above are rebuilt over their new
 * operands. Post-order, iterative; a node met twice is rebuilt once. */
static psg_status transplant(psg_ctx *ctx, const shape_entry *e, const shape_key *k, psg_tir_expr *r,
                             psg_tir_expr **out) {
  transplant_keys t = {e, k};
  return psgi_tir_rewrite_post(ctx, r, transplant_decide, &t, out);
}

void psgi_flat_shapes_fini(psg_ctx *ctx, psgi_map *shapes) {
  for (size_t i = 0; i < shapes->len; i++) entry_free(ctx, shapes->entries[i].value);
  psgi_map_fini(shapes);
}

/* Across functions the argument above holds as it does within one: the key
 * is everything the flat index reads, and nothing of the function around
 * the access (its other statements, its vars' facts, its attributes) is
 * read, so which function met a shape first does not change the answer. */
static void *run_shapes_create(psg_ctx *ctx) {
  psgi_map *m = psgi_alloc(ctx, sizeof *m);
  if (m) psgi_map_init(m, ctx);
  return m;
}

static void run_shapes_destroy(psg_ctx *ctx, void *scratch) {
  psgi_flat_shapes_fini(ctx, scratch);
  psgi_free(ctx, scratch);
}

static const psgi_run_scratch_kind run_shapes = {run_shapes_create, run_shapes_destroy};

psgi_map *psgi_flat_shapes_of_run(psg_ctx *ctx) {
  return psgi_flat_shapes_disabled ? NULL : psgi_run_scratch(ctx, &run_shapes);
}

psg_status psgi_flat_shapes_indices(psg_ctx *ctx, psgi_map *shapes, psg_arith_analyzer *fresh,
                                    const psg_tir_buffer *b, psg_tir_expr *const *idx, size_t ni,
                                    const psg_span *span, psg_tir_expr **out, size_t nout) {
  shape_key key, *k = &key; /* on the C stack: 3.3 kB */
  psg_status st = PSG_OK;
  if (psgi_flat_shapes_disabled || !make_key(k, b, idx, ni)) /* not keyed: the full path */
    return psgi_tir_flat_indices(ctx, fresh, b, idx, ni, span, out, NULL);
  psgi_map_entry *me = psgi_map_get_str(shapes, (const char *)k->words, k->len * sizeof *k->words);
  if (me) { /* the earlier result, with this access's nodes in place of the earlier one's */
    const shape_entry *e = me->value;
    for (size_t j = 0; !st && j < nout; j++) st = transplant(ctx, e, k, e->out[j], &out[j]);
    if (st)
      for (size_t j = 0; j < nout; j++) {
        psg_tir_release(out[j]);
        out[j] = NULL;
      }
    return st;
  }
  st = psgi_tir_flat_indices(ctx, fresh, b, idx, ni, span, out, NULL);
  shape_entry *e = st ? NULL : psgi_alloc(ctx, sizeof *e + k->len * sizeof *k->words);
  if (!st && e) {
    e->nnodes = k->nnodes;
    e->nout = nout;
    e->nwords = k->len;
    memcpy(e->words, k->words, k->len * sizeof *k->words);
    e->out = NULL;
    e->nodes = psgi_alloc(ctx, k->nnodes * sizeof *e->nodes);
    if (e->nodes) {
      for (size_t i = 0; i < k->nnodes; i++) psg_tir_retain(e->nodes[i] = (psg_tir_node *)k->nodes[i]);
      e->out = psgi_alloc(ctx, nout * sizeof *e->out);
    }
    if (e->out)
      for (size_t j = 0; j < nout; j++) psg_tir_retain(e->out[j] = out[j]);
    bool is_new;
    me = e->out ? psgi_map_put_str(shapes, (const char *)e->words, e->nwords * sizeof *e->words, &is_new) : NULL;
    if (me) {
      me->value = e;
    } else {
      entry_free(ctx, e);
      e = NULL;
    }
  }
  if (!st && !e) { /* out of memory while remembering it */
    for (size_t j = 0; j < nout; j++) {
      psg_tir_release(out[j]);
      out[j] = NULL;
    }
    st = psgi_nomem(ctx);
  }
  return st;
}
