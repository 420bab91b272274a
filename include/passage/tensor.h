/* Passage — tensors: a dtype, a shape and a reference-counted buffer.
 * Constants point at tensors; a pass that does not change a constant never
 * copies its data. `.npy` files are read and written here. */
#ifndef PASSAGE_TENSOR_H
#define PASSAGE_TENSOR_H

#include "passage/type.h"

PSG_BEGIN_DECLS

typedef struct psg_tensor psg_tensor;

/* A new tensor owning a copy of `data` (nbytes = numel * dtype size), or
 * zero-filled when `data` is NULL. Rank 0 is a scalar (shape may be NULL).
 * Errors: PSG_ERR_INVALID_ARGUMENT (dtype, rank, negative or unknown dims,
 * size overflow), PSG_ERR_NOMEM. */
PSG_API psg_status psg_tensor_create(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim,
                                     const void *data, psg_tensor **out);
/* A tensor over memory the caller keeps alive: `release(user)` is called when
 * the last reference goes. `data` must hold numel * dtype size bytes. Used by
 * importers to share a file's buffer instead of copying weights. */
PSG_API psg_status psg_tensor_wrap(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim,
                                   const void *data, void (*release)(void *user), void *user,
                                   psg_tensor **out);
PSG_API void psg_tensor_retain(psg_tensor *t);
PSG_API void psg_tensor_release(psg_tensor *t);

PSG_API int psg_tensor_dtype(const psg_tensor *t);
PSG_API int psg_tensor_ndim(const psg_tensor *t);
PSG_API int64_t psg_tensor_dim(const psg_tensor *t, int i);
PSG_API int64_t psg_tensor_numel(const psg_tensor *t);
PSG_API size_t psg_tensor_nbytes(const psg_tensor *t);
/* The element bytes, row-major, little-endian. Borrowed. */
PSG_API const void *psg_tensor_data(const psg_tensor *t);
/* True if dtype, shape and every byte are equal. */
PSG_API bool psg_tensor_equal(const psg_tensor *a, const psg_tensor *b);
/* The interned TensorType of this tensor (NULL only on OOM). */
PSG_API const psg_type *psg_tensor_type(psg_ctx *ctx, const psg_tensor *t);

/* NumPy .npy version 1/2/3, C order, little-endian or byte-order-free dtypes.
 * Errors: PSG_ERR_IO (cannot open/read/write), PSG_ERR_PARSE (malformed header,
 * truncated data; a diagnostic names the file and what was expected),
 * PSG_ERR_UNSUPPORTED (Fortran order, big-endian, object dtypes). */
PSG_API psg_status psg_tensor_read_npy(psg_ctx *ctx, const char *path, psg_tensor **out);
PSG_API psg_status psg_tensor_parse_npy(psg_ctx *ctx, const void *bytes, size_t len,
                                        const char *name, psg_tensor **out);
PSG_API psg_status psg_tensor_write_npy(psg_ctx *ctx, const psg_tensor *t, const char *path);

PSG_END_DECLS
#endif
