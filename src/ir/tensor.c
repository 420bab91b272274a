/* Passage — tensors: dtype, shape and a byte buffer, reference counted.
 * A tensor either owns its bytes (allocated with it) or wraps memory owned by
 * someone else (an importer's file buffer) with a release callback. */
#include "ir/ir_internal.h"

/* Validates dtype/shape and computes the byte size; false on bad input. */
static bool shape_bytes(int dtype, const int64_t *shape, int ndim, size_t *nbytes) {
  if (dtype <= PSG_DTYPE_INVALID || dtype >= PSG_DTYPE_COUNT) return false;
  if (ndim < 0 || ndim > PSG_MAX_RANK || (ndim && !shape)) return false;
  int64_t n = (int64_t)psg_dtype_size(dtype);
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0) return false;
  /* The type's size rule (psgi_shape_fits) also bounds a tensor's bytes. */
  if (!psgi_shape_fits(shape, ndim, (size_t)n)) return false;
  for (int i = 0; i < ndim; i++) n *= shape[i]; /* fits: checked just above */
  *nbytes = (size_t)n;
  return true;
}

static psg_status make(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim, size_t extra,
                       psg_tensor **out) {
  size_t head = sizeof(psg_tensor) + (size_t)ndim * sizeof(int64_t);
  head = (head + 15) & ~(size_t)15;
  if (extra > SIZE_MAX - head) return PSG_ERR_INVALID_ARGUMENT;
  psg_tensor *t = psgi_alloc(ctx, head + extra);
  if (!t) return psgi_nomem(ctx);
  memset(t, 0, head);
  t->refcount = 1;
  t->dtype = dtype;
  t->ndim = ndim;
  t->ctx = ctx;
  for (int i = 0; i < ndim; i++) t->shape[i] = shape[i];
  t->data = (char *)t + head;
  psgi_ctx_object_born(ctx);
  *out = t;
  return PSG_OK;
}

psg_status psg_tensor_create(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim,
                             const void *data, psg_tensor **out) {
  *out = NULL;
  size_t nbytes;
  if (!shape_bytes(dtype, shape, ndim, &nbytes))
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0,
                         NULL, "invalid tensor dtype or shape (a negative dim, a rank above 32 or more than INT64_MAX bytes)");
  psg_tensor *t;
  psg_status st = make(ctx, dtype, shape, ndim, nbytes, &t);
  if (st) return st;
  t->nbytes = nbytes;
  if (nbytes) {
    if (data)
      memcpy((void *)t->data, data, nbytes);
    else
      memset((void *)t->data, 0, nbytes);
  }
  *out = t;
  return PSG_OK;
}

psg_status psgi_tensor_alloc(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim, psg_tensor **out) {
  *out = NULL;
  size_t nbytes;
  if (!shape_bytes(dtype, shape, ndim, &nbytes))
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0,
                         NULL, "invalid tensor dtype or shape (a negative dim, a rank above 32 or more than INT64_MAX bytes)");
  psg_status st = make(ctx, dtype, shape, ndim, nbytes, out);
  if (!st) (*out)->nbytes = nbytes;
  return st;
}

static void release_viewed(void *user) { psg_tensor_release(user); }

psg_status psgi_tensor_view(psg_ctx *ctx, psg_tensor *src, const int64_t *shape, int ndim, psg_tensor **out) {
  *out = NULL;
  size_t nbytes;
  if (!shape_bytes(src->dtype, shape, ndim, &nbytes) || nbytes != src->nbytes)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0,
                         NULL, "invalid tensor view shape");
  if (!nbytes) return psg_tensor_create(ctx, src->dtype, shape, ndim, NULL, out);
  /* A view of a view holds the root: release never chains (no recursion). */
  if (src->release == release_viewed) src = src->release_user;
  psg_status st = make(ctx, src->dtype, shape, ndim, 0, out);
  if (st) return st;
  psg_tensor_retain(src);
  (*out)->data = src->data;
  (*out)->nbytes = nbytes;
  (*out)->release = release_viewed;
  (*out)->release_user = src;
  return PSG_OK;
}

psg_status psg_tensor_wrap(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim,
                           const void *data, void (*release)(void *user), void *user,
                           psg_tensor **out) {
  *out = NULL;
  size_t nbytes;
  if (!shape_bytes(dtype, shape, ndim, &nbytes) || (nbytes && !data))
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0,
                         NULL, "invalid tensor dtype, shape or data (a negative dim, a rank above 32, more than INT64_MAX bytes or no data)");
  psg_tensor *t;
  psg_status st = make(ctx, dtype, shape, ndim, 0, &t);
  if (st) return st;
  t->data = data;
  t->nbytes = nbytes;
  t->release = release;
  t->release_user = user;
  *out = t;
  return PSG_OK;
}

void psg_tensor_retain(psg_tensor *t) {
  if (t) psgi_ref_inc(&t->refcount);
}

void psg_tensor_release(psg_tensor *t) {
  if (!t || !psgi_ref_dec(&t->refcount)) return;
  psg_ctx *ctx = t->ctx;
  if (t->release) t->release(t->release_user);
  psgi_free(ctx, t);
  psgi_ctx_object_died(ctx);
}

int psg_tensor_dtype(const psg_tensor *t) { return t->dtype; }
int psg_tensor_ndim(const psg_tensor *t) { return t->ndim; }
int64_t psg_tensor_dim(const psg_tensor *t, int i) { return i >= 0 && i < t->ndim ? t->shape[i] : 0; }
int64_t psg_tensor_numel(const psg_tensor *t) {
  int64_t n = 1; /* fits: a tensor's shape passed psgi_shape_fits */
  for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
  return n;
}
size_t psg_tensor_nbytes(const psg_tensor *t) { return t->nbytes; }
const void *psg_tensor_data(const psg_tensor *t) { return t->data; }

bool psg_tensor_equal(const psg_tensor *a, const psg_tensor *b) {
  if (a == b) return true;
  if (a->dtype != b->dtype || a->ndim != b->ndim || a->nbytes != b->nbytes) return false;
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return a->data == b->data || a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
}

const psg_type *psg_tensor_type(psg_ctx *ctx, const psg_tensor *t) {
  const psg_type *ty = NULL;
  psg_type_tensor(ctx, t->shape, t->ndim, t->dtype, &ty);
  return ty;
}
