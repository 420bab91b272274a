/* Passage ONNX frontend — TensorProto to tensor: checks dims, dtype and the
 * data size against the shape (STYLE rule 13), and wraps the decoded buffer
 * (raw_data, or a typed field of the same element type) instead of copying
 * when it can; the wrapping tensor keeps the decoded model alive. */
#include <string.h>
#include "onnx_internal.h"

static void *pb_alloc(void *user, size_t n) {
  onnx_holder *h = user;
  void *p = psgi_alloc(h->ctx, n);
  if (!p) h->pb_failed = true;
  return p;
}

static void pb_free(void *user, void *p) {
  onnx_holder *h = user;
  psgi_free(h->ctx, p);
}

psg_status onnxi_holder_create(psg_ctx *ctx, onnx_holder **out) {
  onnx_holder *h = *out = psgi_calloc(ctx, sizeof *h);
  if (!h) return PSG_ERR_NOMEM;
  atomic_init(&h->refs, 1);
  h->ctx = ctx;
  h->pb_alloc = (ProtobufCAllocator){pb_alloc, pb_free, h};
  psg_ctx_retain(ctx);
  return PSG_OK;
}

void onnxi_holder_release(void *holder) {
  onnx_holder *h = holder;
  if (!h || atomic_fetch_sub(&h->refs, 1) != 1) return;
  psg_ctx *ctx = h->ctx;
  if (h->model) onnx__model_proto__free_unpacked(h->model, &h->pb_alloc);
  psgi_free(ctx, h);
  psg_ctx_release(ctx);
}

static psg_status wrap(onnx_imp *im, int dtype, const int64_t *shape, int nd, const void *data, psg_tensor **out) {
  atomic_fetch_add(&im->hold->refs, 1);
  psg_status st = psg_tensor_wrap(im->ctx, dtype, shape, nd, data, onnxi_holder_release, im->hold, out);
  if (st) atomic_fetch_sub(&im->hold->refs, 1);
  return st;
}

psg_status onnxi_tensor_from_proto(onnx_imp *im, const Onnx__TensorProto *tp, const char *what, psg_tensor **out) {
  *out = NULL;
  if (tp->n_dims > PSG_MAX_RANK)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s has rank %zu (at most %d supported)", what, tp->n_dims, PSG_MAX_RANK);
  int64_t shape[PSG_MAX_RANK];
  uint64_t numel = 1;
  int nd = (int)tp->n_dims;
  for (int i = 0; i < nd; i++) {
    if (tp->dims[i] < 0 || tp->dims[i] > ONNX_MAX_INIT_DIM)
      return onnxi_fail(im, PSG_ERR_PARSE, "%s has invalid dimension %lld", what, (long long)tp->dims[i]);
    shape[i] = tp->dims[i];
    numel *= (uint64_t)tp->dims[i];
    if (numel > (uint64_t)ONNX_MAX_INIT_DIM) return onnxi_fail(im, PSG_ERR_PARSE, "%s is too large", what);
  }
  int32_t ot = tp->has_data_type ? tp->data_type : 0;
  int dtype = onnxi_dtype_from_onnx(ot);
  if (dtype == PSG_DTYPE_INVALID)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s has unsupported element type %s", what, onnxi_onnx_type_name(ot));
  if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s uses external data, which is not supported", what);
  if (tp->segment) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s is segmented, which is not supported", what);
  size_t esize = psg_dtype_size(dtype), nbytes = (size_t)numel * esize;
  if (tp->has_raw_data) {
    if (tp->raw_data.len != nbytes)
      return onnxi_fail(im, PSG_ERR_PARSE, "%s: raw_data has %zu bytes, but %s of %llu elements needs %zu", what,
                        tp->raw_data.len, psg_dtype_name(dtype), (unsigned long long)numel, nbytes);
    if (nbytes == 0) return psg_tensor_create(im->ctx, dtype, shape, nd, NULL, out);
    if (((uintptr_t)tp->raw_data.data % esize) == 0) return wrap(im, dtype, shape, nd, tp->raw_data.data, out);
    return psg_tensor_create(im->ctx, dtype, shape, nd, tp->raw_data.data, out);
  }
  /* Typed fields: which one holds this dtype (onnx.proto's comments). */
  size_t have;
  switch (dtype) {
  case PSG_DTYPE_FLOAT32: have = tp->n_float_data; break;
  case PSG_DTYPE_FLOAT64: have = tp->n_double_data; break;
  case PSG_DTYPE_INT64: have = tp->n_int64_data; break;
  case PSG_DTYPE_UINT32:
  case PSG_DTYPE_UINT64: have = tp->n_uint64_data; break;
  default: have = tp->n_int32_data; break;
  }
  if (have != numel)
    return onnxi_fail(im, PSG_ERR_PARSE, "%s has %zu stored elements, but its shape needs %llu", what, have,
                      (unsigned long long)numel);
  if (numel == 0) return psg_tensor_create(im->ctx, dtype, shape, nd, NULL, out);
  switch (dtype) {
  case PSG_DTYPE_FLOAT32: return wrap(im, dtype, shape, nd, tp->float_data, out);
  case PSG_DTYPE_FLOAT64: return wrap(im, dtype, shape, nd, tp->double_data, out);
  case PSG_DTYPE_INT64: return wrap(im, dtype, shape, nd, tp->int64_data, out);
  case PSG_DTYPE_INT32: return wrap(im, dtype, shape, nd, tp->int32_data, out);
  case PSG_DTYPE_UINT64: return wrap(im, dtype, shape, nd, tp->uint64_data, out);
  default: break;
  }
  psg_status st = psg_tensor_create(im->ctx, dtype, shape, nd, NULL, out);
  if (st) return st;
  uint8_t *d = (uint8_t *)psg_tensor_data(*out);
  for (size_t i = 0; i < numel; i++) {
    if (dtype == PSG_DTYPE_UINT32) {
      uint32_t v = (uint32_t)tp->uint64_data[i];
      memcpy(d + i * 4, &v, 4);
    } else if (esize == 1) {
      d[i] = (uint8_t)tp->int32_data[i];
    } else { /* int16, uint16, float16, bfloat16: the low 16 bits */
      uint16_t v = (uint16_t)tp->int32_data[i];
      memcpy(d + i * 2, &v, 2);
    }
  }
  return PSG_OK;
}

psg_status onnxi_const_val(onnx_imp *im, psg_tensor *t, oval *out) {
  out->e = NULL;
  out->t = psg_tensor_type(im->ctx, t);
  if (!out->t) return PSG_ERR_NOMEM;
  psg_span sb;
  return psg_constant_create(im->ctx, t, onnxi_span(im, &sb), &out->e);
}
