/* Passage — tir.StorageFlatten's flat indices by shape (buffer_flatten.c's
 * flat_indices_of): an access whose buffer layout and indices have the
 * shape of one met before in the function, with other vars in the same
 * places, takes the earlier flat indices with its own vars put in. Why
 * that is the same result (docs/design.md, departure "StorageFlatten
 * reuses the flat indices of an access of the same shape"): StorageFlatten
 * builds the flat index with TVM's operators and simplifies it with an
 * analyzer that holds no facts; both read a var only as an atom compared
 * by identity (never its name, address order or hash order) together with
 * its kind and dtype, so renaming the vars one to one before gives the
 * result renamed after. The key holds everything the flat index reads: the
 * rank, the axis separators, the strides, the shape, elem_offset and the
 * indices, as a preorder of kinds, dtypes, constants and var positions
 * (numbered by first occurrence, with their kind and dtype). An access
 * with any other node (a load inside an index, a call, a vector) is not
 * keyed and takes the full path. */
#include <string.h>
#include "tir/transforms/tir_transforms.h"

enum { MAX_VARS = 32, MAX_WORDS = 384, MAX_STACK = 128 };

bool psgi_flat_shapes_disabled = false;

typedef struct shape_key {
  uint64_t words[MAX_WORDS];
  size_t len;
  const psg_tir_node *vars[MAX_VARS];
  size_t nvars;
} shape_key;

/* A remembered access: its key, its vars (positions of the key), its flat
 * indices, all owned; the key's bytes follow the struct. */
typedef struct shape_entry {
  size_t nvars, nout, nwords;
  psg_tir_node *vars[MAX_VARS];
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
  k->len = k->nvars = 0;
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
  for (size_t i = 0; i < e->nvars; i++) psg_tir_release(e->vars[i]);
  for (size_t i = 0; e->out && i < e->nout; i++) psg_tir_release(e->out[i]);
  psgi_free(ctx, e->out);
  psgi_free(ctx, e);
}

void psgi_flat_shapes_fini(psg_ctx *ctx, psgi_map *shapes) {
  for (size_t i = 0; i < shapes->len; i++) entry_free(ctx, shapes->entries[i].value);
  psgi_map_fini(shapes);
}

psg_status psgi_flat_shapes_indices(psg_ctx *ctx, psgi_map *shapes, psg_arith_analyzer *fresh,
                                    const psg_tir_buffer *b, psg_tir_expr *const *idx, size_t ni,
                                    const psg_span *span, psg_tir_expr **out, size_t nout) {
  shape_key key, *k = &key; /* on the C stack: 3.3 kB */
  psg_status st = PSG_OK;
  if (psgi_flat_shapes_disabled || !make_key(k, b, idx, ni)) /* not keyed: the full path */
    return psgi_tir_flat_indices(ctx, fresh, b, idx, ni, span, out, NULL);
  psgi_map_entry *me = psgi_map_get_str(shapes, (const char *)k->words, k->len * sizeof *k->words);
  if (me) { /* the earlier result, with this access's vars */
    const shape_entry *e = me->value;
    bool same = true;
    for (size_t i = 0; i < e->nvars; i++) same &= e->vars[i] == k->vars[i];
    for (size_t j = 0; !st && j < nout; j++) {
      if (same) psg_tir_retain(out[j] = e->out[j]);
      else st = psgi_tir_substitute_n(ctx, e->out[j], e->vars, (psg_tir_node *const *)k->vars, e->nvars, &out[j]);
    }
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
    e->nvars = k->nvars;
    e->nout = nout;
    e->nwords = k->len;
    for (size_t i = 0; i < k->nvars; i++) psg_tir_retain(e->vars[i] = (psg_tir_node *)k->vars[i]);
    memcpy(e->words, k->words, k->len * sizeof *k->words);
    e->out = psgi_alloc(ctx, nout * sizeof *e->out);
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
