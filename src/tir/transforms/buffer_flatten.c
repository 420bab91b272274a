/* Passage — what tir.FlattenBuffer and tir.StorageFlatten share: the flat
 * form of a Buffer (TVM's Buffer::GetFlattenedBuffer) and the flat indices of
 * an access (TVM's BufferNode::ElemOffset).
 *
 * A buffer flattens to one physical axis per group of logical axes the
 * axis_separators cut out; a group's extent is the product of its extents, or
 * stride * extent of its first axis when the buffer has strides. bool
 * buffers are backed by int8 (TVM's storage dtype for bool).
 *
 * One departure (docs/design.md): the flat indices already hold elem_offset,
 * so the flat buffer's elem_offset is 0. TVM keeps the field (its codegen
 * ignores it after flattening); our interpreter and verifier read it, so
 * keeping it would count the offset twice. */
#include "passage/tir_op.h"
#include "tir/transforms/flatten_buffer_iter.h"
#include "tir/transforms/tir_transforms.h"

static bool is_zero(const psg_tir_node *e) { return e->kind == PSG_TIR_INT_IMM && e->u.int_value == 0; }

/* *acc = *acc <kind> x (TVM's operators: dtypes matched, constants folded).
 * A sum that starts at the seed 0 starts at x itself, as TVM's ElemOffset
 * starts at the first index: 0 + a vector index would be Broadcast(0) + x,
 * which the simplifier keeps, and a second flattening would add another. */
static psg_status accumulate(psg_ctx *ctx, int kind, psg_tir_expr **acc, psg_tir_expr *x) {
  if (kind == PSG_TIR_ADD && is_zero(*acc)) {
    psg_tir_release(*acc);
    *acc = x;
    psg_tir_retain(x);
    return PSG_OK;
  }
  psg_tir_expr *r = NULL;
  psg_status st = psg_tir_op_binary(ctx, kind, *acc, x, NULL, &r);
  psg_tir_release(*acc);
  *acc = r;
  return st;
}

static psg_status simplify_in_place(psg_arith_analyzer *a, bool canonical, psg_tir_expr **e) {
  if (!a) return PSG_OK;
  psg_tir_expr *r = NULL;
  psg_status st = canonical ? psg_arith_canonical_simplify(a, *e, &r) : psg_arith_simplify(a, *e, &r);
  if (st) return st;
  psg_tir_release(*e);
  *e = r;
  return PSG_OK;
}

psg_status psgi_tir_flattened_buffer(psg_ctx *ctx, psg_arith_analyzer *a, const psg_tir_buffer *b,
                                     psg_tir_buffer **out) {
  *out = NULL;
  size_t ndim = b->u.buf.ndim, nsep = b->u.buf.naxis, nstr = b->u.buf.nstrides;
  const int64_t *sep = b->u.buf.axis_separators;
  psg_tir_node *const *shape = b->kids + 2, *const *strides = b->kids + 2 + ndim;
  bool is_bool = psg_tir_dtype_is_bool(b->dtype);
  if (nsep + 1 == ndim && nstr == 0 && !is_bool && is_zero(b->kids[1])) {
    psg_tir_retain(*out = (psg_tir_buffer *)b);
    return PSG_OK;
  }
  size_t nout = nsep + 1;
  psg_tir_expr **ext = psgi_calloc(ctx, nout * sizeof *ext);
  int64_t *out_sep = nsep ? psgi_alloc(ctx, nsep * sizeof *out_sep) : NULL;
  psg_status st = (!ext || (nsep && !out_sep)) ? psgi_nomem(ctx) : PSG_OK;
  for (size_t k = 0; !st && k < nout; k++) {
    if (nstr) { /* stride * extent of the group's first axis */
      size_t first = k == 0 ? 0 : (size_t)sep[k - 1];
      if (first >= ndim) {
        st = psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, &b->span, PSG_TIR_BUFFER,
                           "'%s': axis separator %zu is past its rank %zu", b->u.buf.name, first, ndim);
        break;
      }
      st = psg_tir_op_binary(ctx, PSG_TIR_MUL, strides[first], shape[first], NULL, &ext[k]);
    } else {
      st = psg_tir_make_const_int(ctx, ndim ? shape[0]->dtype : psg_tir_dtype_int32(), 1, NULL, &ext[k]);
    }
  }
  if (!st && !nstr) { /* products of the groups' extents (rank 0 flattens to [1]) */
    size_t k = 0;
    for (size_t i = 0; !st && i < ndim; i++) {
      if (k < nsep && i == (size_t)sep[k]) k++;
      st = accumulate(ctx, PSG_TIR_MUL, &ext[k], shape[i]);
    }
  }
  for (size_t k = 0; !st && k < nout; k++) st = simplify_in_place(a, true, &ext[k]);
  for (size_t k = 0; k < nsep; k++) out_sep[k] = (int64_t)k + 1;
  psg_tir_expr *zero = NULL;
  if (!st) st = psg_tir_int_imm_create(ctx, b->kids[1]->dtype, 0, NULL, &zero);
  if (!st) {
    psg_tir_buffer_desc d = {
        .name = b->u.buf.name,
        .data = b->kids[0],
        .dtype = is_bool ? psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, psg_tir_dtype_lanes(b->dtype)) : b->dtype,
        .shape = ext,
        .ndim = nout,
        .elem_offset = zero,
        .axis_separators = out_sep,
        .naxis_separators = nsep,
        .data_alignment = b->u.buf.data_alignment,
        .offset_factor = b->u.buf.offset_factor,
        .buffer_type = b->u.buf.buffer_type,
    };
    st = psg_tir_buffer_create(ctx, &d, &b->span, out);
  }
  psg_tir_release(zero);
  for (size_t k = 0; ext && k < nout; k++) psg_tir_release(ext[k]);
  psgi_free(ctx, ext);
  psgi_free(ctx, out_sep);
  return st;
}

psg_status psgi_tir_flat_indices(psg_ctx *ctx, psg_arith_analyzer *a, const psg_tir_buffer *b,
                                 psg_tir_expr *const *idx, size_t n, const psg_span *span, psg_tir_expr **out,
                                 struct psgi_tir_iter_scope *iters) {
  size_t ndim = b->u.buf.ndim, nsep = b->u.buf.naxis, nstr = b->u.buf.nstrides, nout = nsep + 1;
  const int64_t *sep = b->u.buf.axis_separators;
  psg_tir_node *const *shape = b->kids + 2, *const *strides = b->kids + 2 + ndim;
  psg_tir_expr *offset = b->kids[1];
  for (size_t k = 0; k < nout; k++) out[k] = NULL;
  if (n != ndim)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_BUFFER,
                         "'%s' is %zu-dimensional, cannot be indexed with %zu indices", b->u.buf.name, ndim, n);
  if (!is_zero(offset) && nsep)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_BUFFER,
                         "'%s': a non-zero elem_offset needs a flat (1-d) physical layout, not %zu axes",
                         b->u.buf.name, nout);
  psg_status st = PSG_OK;
  for (size_t k = 0; !st && k < nout; k++) st = psg_tir_make_const_int(ctx, psg_tir_dtype_int32(), 0, NULL, &out[k]);
  size_t k = 0;
  for (size_t i = 0; !st && i < n; i++) {
    if (k < nsep && i == (size_t)sep[k]) k++;
    if (nstr) {
      psg_tir_expr *term = NULL;
      st = psg_tir_op_binary(ctx, PSG_TIR_MUL, idx[i], strides[i], NULL, &term);
      if (!st) st = accumulate(ctx, PSG_TIR_ADD, &out[k], term);
      psg_tir_release(term);
    } else {
      st = accumulate(ctx, PSG_TIR_MUL, &out[k], shape[i]);
      if (!st) st = accumulate(ctx, PSG_TIR_ADD, &out[k], idx[i]);
    }
  }
  if (!st && !is_zero(offset)) st = accumulate(ctx, PSG_TIR_ADD, &out[0], offset);
  if (!st && iters) st = psgi_tir_iter_scope_simplify(iters, out, nout);
  for (size_t j = 0; !st && j < nout; j++) st = simplify_in_place(a, false, &out[j]);
  if (st)
    for (size_t j = 0; j < nout; j++) {
      psg_tir_release(out[j]);
      out[j] = NULL;
    }
  return st;
}

/* The flattening mutator ------------------------------------------------------ */

psg_status psgi_tir_flattener_init(psgi_tir_flattener *f, psg_ctx *ctx) {
  memset(f, 0, sizeof *f);
  f->ctx = ctx;
  psgi_map_init(&f->flat, ctx);
  psgi_map_init(&f->defined, ctx);
  psgi_map_init(&f->flat_indices, ctx);
  psgi_map_init(&f->flat_shapes, ctx);
  f->shapes = &f->flat_shapes;
  psg_status st = psg_arith_analyzer_create(ctx, &f->a);
  if (!st) st = psg_arith_analyzer_create(ctx, &f->fresh);
  return st;
}

/* A flat access remembered (see flat_indices_of): the key (the buffer and
 * the indices, retained so that their addresses stay theirs) and the flat
 * indices. */
typedef struct flat_access {
  size_t nkey, nout;
  psg_tir_node *key[9];
  psg_tir_expr *out[];
} flat_access;

static void flat_access_free(psg_ctx *ctx, flat_access *r) {
  for (size_t i = 0; i < r->nkey; i++) psg_tir_release(r->key[i]);
  for (size_t i = 0; i < r->nout; i++) psg_tir_release(r->out[i]);
  psgi_free(ctx, r);
}

void psgi_tir_flattener_fini(psgi_tir_flattener *f) {
  for (size_t i = 0; i < f->flat_indices.len; i++) flat_access_free(f->ctx, f->flat_indices.entries[i].value);
  psgi_map_fini(&f->flat_indices);
  psgi_flat_shapes_fini(f->ctx, &f->flat_shapes);
  for (size_t i = 0; i < f->flat.len; i++) psg_tir_release(f->flat.entries[i].value);
  psgi_map_fini(&f->flat);
  psgi_map_fini(&f->defined);
  psg_arith_analyzer_destroy(f->a);
  psg_arith_analyzer_destroy(f->fresh);
}

psg_status psgi_tir_flattener_get(psgi_tir_flattener *f, const psg_tir_buffer *b, psg_tir_buffer **out) {
  psgi_map_entry *e = psgi_map_get_ptr(&f->flat, b);
  if (e) {
    *out = e->value;
    return PSG_OK;
  }
  psg_tir_buffer *flat = NULL;
  psg_status st = psgi_tir_flattened_buffer(f->ctx, f->canonical_shapes ? f->a : NULL, b, &flat);
  if (st) return st;
  if (!(e = psgi_map_put_ptr(&f->flat, b, NULL))) {
    psg_tir_release(flat);
    return psgi_nomem(f->ctx);
  }
  e->value = *out = flat;
  return PSG_OK;
}

psg_status psgi_tir_flattener_pre(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement) {
  psgi_tir_flattener *f = m->user;
  *replacement = NULL;
  if ((n->kind == PSG_TIR_ALLOCATE || n->kind == PSG_TIR_LET_STMT) && !psgi_map_put_ptr(&f->defined, n->kids[0], NULL))
    return psgi_nomem(f->ctx);
  /* Vars are defined once (verify_well_formed), so a loop's range may stay
   * bound after the loop: nothing outside it uses its var. */
  if (f->unbound) return PSG_OK;
  if (n->kind == PSG_TIR_FOR) return psg_arith_bind(f->a, n->kids[0], n->kids[1], n->kids[2]);
  if (n->kind == PSG_TIR_LET_STMT && psg_tir_dtype_is_int(n->kids[0]->dtype))
    return psg_arith_bind_value(f->a, n->kids[0], n->kids[1]);
  return PSG_OK;
}

/* The rewritten operand i of n. */
static psg_tir_node *result(psg_tir_mutator *m, const psg_tir_node *n, size_t i) {
  psg_tir_node *r = psg_tir_mutator_get_result(m, n->kids[i]);
  return r ? r : n->kids[i];
}

/* psgi_tir_flat_indices for the access of b at `in`. Without the walk's
 * facts (StorageFlatten: no context_indices, no iters) they are a function of
 * the buffer and the indices alone, so an access met again (the element a
 * store writes, loaded in its value; an index rewritten to the same node) takes
 * them from f->flat_indices instead of building and simplifying them again. */
static psg_status flat_indices_of(psgi_tir_flattener *f, const psg_tir_buffer *b, psg_tir_expr *const *in, size_t ni,
                                  const psg_span *span, psg_tir_expr **out, size_t nout) {
  psg_arith_analyzer *a = f->context_indices ? f->a : f->fresh;
  if (f->context_indices || f->iters || ni > 8) return psgi_tir_flat_indices(f->ctx, a, b, in, ni, span, out, f->iters);
  const psg_tir_node *key[9] = {b};
  for (size_t i = 0; i < ni; i++) key[i + 1] = in[i];
  psgi_map_entry *e = psgi_map_get_str(&f->flat_indices, (const char *)key, (ni + 1) * sizeof *key);
  if (e) {
    const flat_access *r = e->value;
    for (size_t k = 0; k < nout; k++) psg_tir_retain(out[k] = r->out[k]);
    return PSG_OK;
  }
  psg_status st = psgi_flat_shapes_indices(f->ctx, f->shapes, a, b, in, ni, span, out, nout);
  if (st) return st;
  flat_access *r = psgi_alloc(f->ctx, sizeof *r + nout * sizeof r->out[0]);
  if (!r) {
    for (size_t k = 0; k < nout; k++) {
      psg_tir_release(out[k]);
      out[k] = NULL;
    }
    return psgi_nomem(f->ctx);
  }
  r->nkey = ni + 1;
  r->nout = nout;
  for (size_t i = 0; i <= ni; i++) psg_tir_retain(r->key[i] = (psg_tir_node *)key[i]);
  for (size_t k = 0; k < nout; k++) psg_tir_retain(r->out[k] = out[k]);
  bool is_new;
  if (!(e = psgi_map_put_str(&f->flat_indices, (const char *)r->key, r->nkey * sizeof r->key[0], &is_new))) {
    flat_access_free(f->ctx, r);
    return psgi_nomem(f->ctx);
  }
  if (is_new) e->value = r;
  else flat_access_free(f->ctx, r); /* (cannot happen: the lookup above missed) */
  return PSG_OK;
}

/* Flat buffer, flat indices and predicate of the access n. */
static psg_status flatten_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_buffer **flat,
                                 psg_tir_expr ***idx, size_t *nidx, psg_tir_expr **pred) {
  psgi_tir_flattener *f = m->user;
  const psg_tir_buffer *b = n->kids[0];
  size_t first = n->kind == PSG_TIR_BUFFER_STORE ? 2 : 1, ni = psgi_tir_num_indices(n);
  bool has_pred = n->flags & PSGI_TIR_HAS_PRED;
  if (has_pred && f->reject_predicates)
    return psgi_tir_fail(f->ctx, PSG_ERR_INVALID_ARGUMENT, &n->span, n->kind,
                         "a predicated buffer access is not supported by %s", f->pass_name);
  *pred = has_pred ? result(m, n, n->nkids - 1) : NULL;
  psg_status st = psgi_tir_flattener_get(f, b, flat);
  if (st) return st;
  psg_tir_expr *small[8], **in = small;
  if (ni > 8 && !(in = psgi_alloc(f->ctx, ni * sizeof *in))) return psgi_nomem(f->ctx);
  for (size_t i = 0; i < ni; i++) in[i] = result(m, n, first + i);
  *nidx = (*flat)->u.buf.ndim;
  if (!(*idx = psgi_calloc(f->ctx, *nidx * sizeof **idx))) st = psgi_nomem(f->ctx);
  if (!st) st = flat_indices_of(f, b, in, ni, &n->span, *idx, *nidx);
  if (in != small) psgi_free(f->ctx, in);
  if (st) {
    psgi_free(f->ctx, *idx);
    *idx = NULL;
  }
  return st;
}

static void free_indices(psg_ctx *ctx, psg_tir_expr **idx, size_t n) {
  for (size_t i = 0; idx && i < n; i++) psg_tir_release(idx[i]);
  psgi_free(ctx, idx);
}

psg_status psgi_tir_flattener_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_tir_flattener *f = m->user;
  psg_tir_buffer *flat;
  psg_tir_expr **idx = NULL, *pred;
  size_t ni = 0;
  *out = NULL;
  psg_status st = flatten_access(m, n, &flat, &idx, &ni, &pred);
  psg_tir_expr *load = NULL;
  if (!st) st = psg_tir_buffer_load_create(f->ctx, flat, idx, ni, pred, &n->span, &load);
  free_indices(f->ctx, idx, ni);
  if (st) return st;
  if (load->dtype == n->dtype) {
    *out = load;
    return PSG_OK;
  }
  /* a bool load of its int8 backing array */
  st = psg_tir_cast_create(f->ctx, n->dtype, load, &n->span, out);
  psg_tir_release(load);
  return st;
}

psg_status psgi_tir_flattener_store(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_tir_flattener *f = m->user;
  psg_tir_buffer *flat;
  psg_tir_expr **idx = NULL, *pred, *value = result(m, n, 1), *cast = NULL;
  size_t ni = 0;
  *out = NULL;
  psg_status st = flatten_access(m, n, &flat, &idx, &ni, &pred);
  if (!st && psg_tir_dtype_is_bool(value->dtype)) { /* stored as int8 */
    psg_tir_dtype i8 = psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, psg_tir_dtype_lanes(value->dtype));
    if (!(st = psg_tir_cast_create(f->ctx, i8, value, &n->span, &cast))) value = cast;
  }
  if (!st) st = psg_tir_buffer_store_create(f->ctx, flat, value, idx, ni, pred, &n->span, out);
  psg_tir_release(cast);
  free_indices(f->ctx, idx, ni);
  return st;
}
