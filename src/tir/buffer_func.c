/* Passage — Buffer and PrimFunc nodes (spec/tir.md §2): a Buffer names a
 * region behind a pointer var (dtype, shape, strides, elem_offset, scope via
 * the pointer type, axis separators, alignment); a PrimFunc binds params,
 * the buffer map, a body, a return type and attributes. */
#include "tir/tir_internal.h"

#define DT(t, b) psgi_tir_dtype_name((t), &(b))

/* A scalar integer expression (shape, stride, elem_offset). */
static psg_status need_index(psg_ctx *ctx, const psg_span *span, const psg_tir_node *n, const char *what,
                             size_t i, const char *name) {
  psgi_tir_dtype_name_buf b;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_BUFFER, n, what);
  if (st) return st;
  if (!(psg_tir_dtype_is_int(n->dtype) || psg_tir_dtype_is_uint(n->dtype)) || psg_tir_dtype_lanes(n->dtype) != 1)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_BUFFER, "'%s': %s %zu must be a scalar integer, not %s",
                         name, what, i, DT(n->dtype, b));
  return PSG_OK;
}

psg_status psg_tir_buffer_create(psg_ctx *ctx, const psg_tir_buffer_desc *d, const psg_span *span,
                                 psg_tir_buffer **out) {
  *out = NULL;
  const int K = PSG_TIR_BUFFER;
  if (!d || !d->name || !*d->name) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "needs a name");
  const char *name = d->name;
  if (!d->data) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "'%s' needs a data var", name);
  if (!psgi_tir_is_var_kind(d->data->kind) || d->data->u.var.type->kind != PSG_TIR_POINTER_TYPE)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "'%s': the data var must be a Var of a PointerType", name);
  if (!psg_tir_dtype_is_valid(d->dtype)) return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "'%s': invalid dtype", name);
  if ((d->ndim && !d->shape) || (d->nstrides && !d->strides) || (d->naxis_separators && !d->axis_separators))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "'%s': a field array is NULL", name);
  if (d->ndim > UINT32_MAX / 4) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "'%s': rank too large", name);
  if (d->nstrides && d->nstrides != d->ndim)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "'%s' has %zu strides for rank %zu", name,
                         d->nstrides, d->ndim);
  psg_status st;
  for (size_t i = 0; i < d->ndim; i++)
    if ((st = need_index(ctx, span, d->shape[i], "shape", i, name))) return st;
  for (size_t i = 0; i < d->nstrides; i++)
    if ((st = need_index(ctx, span, d->strides[i], "stride", i, name))) return st;
  if (d->elem_offset && (st = need_index(ctx, span, d->elem_offset, "elem_offset", 0, name))) return st;
  for (size_t i = 0; i < d->naxis_separators; i++) {
    int64_t s = d->axis_separators[i];
    if (s < 0 || (uint64_t)s > d->ndim || (i && s < d->axis_separators[i - 1]))
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K,
                           "'%s': axis separators must be non-decreasing in [0, %zu]", name, d->ndim);
  }
  if (d->data_alignment < 0 || d->offset_factor < 0)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "'%s': negative alignment or offset factor", name);
  int btype = d->buffer_type ? d->buffer_type : PSG_TIR_BUFFER_DEFAULT;
  if (btype != PSG_TIR_BUFFER_DEFAULT && btype != PSG_TIR_BUFFER_AUTO_BROADCAST)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "'%s': unknown buffer type %d", name, btype);

  const char *iname = psgi_intern(ctx, name, strlen(name));
  if (!iname) return psgi_nomem(ctx);
  psg_tir_expr *offset = d->elem_offset;
  if (offset) {
    psg_tir_retain(offset);
  } else {
    psg_tir_dtype it = d->ndim ? d->shape[0]->dtype : psg_tir_dtype_int32();
    if ((st = psg_tir_int_imm_create(ctx, it, 0, span, &offset))) return st;
  }
  int64_t *seps = NULL;
  if (d->naxis_separators) {
    if (!(seps = psgi_alloc(ctx, psgi_mul_size(d->naxis_separators, sizeof *seps)))) {
      psg_tir_release(offset);
      return psgi_nomem(ctx);
    }
    memcpy(seps, d->axis_separators, d->naxis_separators * sizeof *seps);
  }
  if ((st = psgi_tir_new(ctx, K, 2 + d->ndim + d->nstrides, span, out)) != PSG_OK) {
    psg_tir_release(offset);
    psgi_free(ctx, seps);
    return st;
  }
  psg_tir_buffer *b = *out;
  b->dtype = d->dtype;
  b->u.buf.name = iname;
  b->u.buf.ndim = (uint32_t)d->ndim;
  b->u.buf.nstrides = (uint32_t)d->nstrides;
  b->u.buf.data_alignment = d->data_alignment ? d->data_alignment : 64;
  b->u.buf.offset_factor = d->offset_factor ? d->offset_factor : 1;
  b->u.buf.buffer_type = btype;
  b->u.buf.naxis = (uint32_t)d->naxis_separators;
  b->u.buf.axis_separators = seps;
  psgi_tir_set_kid(b, 0, d->data);
  b->kids[1] = offset; /* the reference taken above */
  for (size_t i = 0; i < d->ndim; i++) psgi_tir_set_kid(b, 2 + i, d->shape[i]);
  for (size_t i = 0; i < d->nstrides; i++) psgi_tir_set_kid(b, 2 + d->ndim + i, d->strides[i]);
  return PSG_OK;
}

psg_status psg_tir_buffer_decl(psg_ctx *ctx, const char *name, psg_tir_dtype dtype, psg_tir_expr *const *shape,
                               size_t ndim, const char *scope, const psg_span *span, psg_tir_buffer **out) {
  *out = NULL;
  psg_tir_expr *data;
  /* bool buffers are stored as int8 (TVM's storage dtype). */
  psg_tir_dtype storage = psg_tir_dtype_is_bool(dtype)
                              ? psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, psg_tir_dtype_lanes(dtype))
                              : dtype;
  psg_status st = psg_tir_pointer_var_create(ctx, name, storage, scope, span, &data);
  if (st) return st;
  psg_tir_buffer_desc d = {.name = name, .data = data, .dtype = dtype, .shape = shape, .ndim = ndim};
  st = psg_tir_buffer_create(ctx, &d, span, out);
  psg_tir_release(data);
  return st;
}

psg_status psg_tir_prim_func_create(psg_ctx *ctx, psg_tir_expr *const *params, size_t nparams, psg_tir_stmt *body,
                                    psg_tir_type *ret_type, const size_t *map_params,
                                    psg_tir_buffer *const *buffers, size_t nbuffers, psg_attrs *attrs,
                                    const psg_span *span, psg_tir_prim_func **out) {
  *out = NULL;
  const int K = PSG_TIR_PRIM_FUNC;
  if (!body) return psgi_tir_missing(ctx, span, K, "the body");
  if (!psgi_tir_is_stmt_kind(body->kind))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "the body must be a statement, not %s",
                         psg_tir_kind_name(body->kind));
  if ((nparams && !params) || (nbuffers && (!map_params || !buffers)))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "a field array is NULL");
  if (nparams > UINT32_MAX / 4 || nbuffers > nparams)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "more buffers than params");
  for (size_t i = 0; i < nparams; i++) {
    if (!params[i] || !psgi_tir_is_var_kind(params[i]->kind))
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "param %zu must be a Var", i);
    for (size_t j = 0; j < i; j++)
      if (params[j] == params[i])
        return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "param '%s' appears twice",
                             params[i]->u.var.name);
  }
  for (size_t i = 0; i < nbuffers; i++) {
    if (map_params[i] >= nparams)
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "buffer map entry %zu names param %zu of %zu", i,
                           map_params[i], nparams);
    if (!buffers[i] || buffers[i]->kind != PSG_TIR_BUFFER)
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "buffer map entry %zu is not a Buffer", i);
    for (size_t j = 0; j < i; j++)
      if (map_params[j] == map_params[i])
        return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "param '%s' is mapped to two buffers",
                             params[map_params[i]]->u.var.name);
  }
  if (ret_type && ret_type->kind != PSG_TIR_PRIM_TYPE && ret_type->kind != PSG_TIR_POINTER_TYPE &&
      ret_type->kind != PSG_TIR_TUPLE_TYPE)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "the return type must be a type, not %s",
                         psg_tir_kind_name(ret_type->kind));
  psg_status st;
  psg_tir_type *rt = ret_type;
  if (rt)
    psg_tir_retain(rt);
  else if ((st = psg_tir_void_type_create(ctx, &rt)))
    return st;
  uint32_t *map = NULL;
  if (nbuffers && !(map = psgi_alloc(ctx, psgi_mul_size(nbuffers, sizeof *map)))) {
    psg_tir_release(rt);
    return psgi_nomem(ctx);
  }
  for (size_t i = 0; i < nbuffers; i++) map[i] = (uint32_t)map_params[i];
  if ((st = psgi_tir_new(ctx, K, 1 + nparams + nbuffers, span, out)) != PSG_OK) {
    psg_tir_release(rt);
    psgi_free(ctx, map);
    return st;
  }
  psg_tir_prim_func *f = *out;
  psgi_tir_set_kid(f, 0, body);
  for (size_t i = 0; i < nparams; i++) psgi_tir_set_kid(f, 1 + i, params[i]);
  for (size_t i = 0; i < nbuffers; i++) psgi_tir_set_kid(f, 1 + nparams + i, buffers[i]);
  f->u.func.nparams = (uint32_t)nparams;
  f->u.func.nmap = (uint32_t)nbuffers;
  f->u.func.map_params = map;
  f->u.func.ret_type = rt;
  f->u.func.attrs = attrs && psg_attrs_count(attrs) ? attrs : NULL;
  psg_attrs_retain(f->u.func.attrs);
  return PSG_OK;
}

psg_status psg_tir_prim_func_with_attr(const psg_tir_prim_func *f, const char *key, psg_attr *value,
                                       psg_tir_prim_func **out) {
  *out = NULL;
  psg_ctx *ctx = f->ctx;
  if (f->kind != PSG_TIR_PRIM_FUNC)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, &f->span, f->kind, "with_attr needs a PrimFunc");
  if (!key || !value) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, &f->span, f->kind, "with_attr needs a key and a value");
  psg_attrs *attrs;
  psg_status st = psg_attrs_with(ctx, f->u.func.attrs, key, value, &attrs);
  if (st) return st;
  size_t np = f->u.func.nparams, nb = f->u.func.nmap;
  size_t *map = NULL;
  if (nb && !(map = psgi_alloc(ctx, psgi_mul_size(nb, sizeof *map)))) {
    psg_attrs_release(attrs);
    return psgi_nomem(ctx);
  }
  for (size_t i = 0; i < nb; i++) map[i] = f->u.func.map_params[i];
  st = psg_tir_prim_func_create(ctx, f->kids + 1, np, f->kids[0], f->u.func.ret_type, map, f->kids + 1 + np, nb,
                                attrs, &f->span, out);
  psgi_free(ctx, map);
  psg_attrs_release(attrs);
  return st;
}
