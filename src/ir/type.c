/* Passage — dtypes and interned Relay types (TensorType, TupleType, FuncType
 * with type parameters, TypeVar, GlobalTypeVar, IncompleteType, TypeCall,
 * RefType; tvm-behavior §1.1). A type is interned by its byte encoding, so
 * equal types are the same pointer and comparison is free; the variable
 * kinds carry a serial number, so each is new. Structural equality (type
 * variables bound by a FuncType compared by position) is in type_equal.c. */
#include "ir/ir_internal.h"

static const struct {
  const char *name;
  size_t size;
  bool is_float;
} dtype_info[PSG_DTYPE_COUNT] = {
    [PSG_DTYPE_INVALID] = {"invalid", 0, false}, [PSG_DTYPE_FLOAT16] = {"float16", 2, true},
    [PSG_DTYPE_BFLOAT16] = {"bfloat16", 2, true}, [PSG_DTYPE_FLOAT32] = {"float32", 4, true},
    [PSG_DTYPE_FLOAT64] = {"float64", 8, true},  [PSG_DTYPE_INT8] = {"int8", 1, false},
    [PSG_DTYPE_INT16] = {"int16", 2, false},     [PSG_DTYPE_INT32] = {"int32", 4, false},
    [PSG_DTYPE_INT64] = {"int64", 8, false},     [PSG_DTYPE_UINT8] = {"uint8", 1, false},
    [PSG_DTYPE_UINT16] = {"uint16", 2, false},   [PSG_DTYPE_UINT32] = {"uint32", 4, false},
    [PSG_DTYPE_UINT64] = {"uint64", 8, false},   [PSG_DTYPE_BOOL] = {"bool", 1, false},
};

static bool dtype_valid(int d) { return d > PSG_DTYPE_INVALID && d < PSG_DTYPE_COUNT; }

const char *psg_dtype_name(int d) { return dtype_valid(d) ? dtype_info[d].name : "invalid"; }
size_t psg_dtype_size(int d) { return dtype_valid(d) ? dtype_info[d].size : 0; }
bool psg_dtype_is_float(int d) { return dtype_valid(d) && dtype_info[d].is_float; }

int psg_dtype_from_name(const char *name, size_t len) {
  for (int d = 1; d < PSG_DTYPE_COUNT; d++)
    if (strlen(dtype_info[d].name) == len && memcmp(dtype_info[d].name, name, len) == 0) return d;
  return PSG_DTYPE_INVALID;
}

/* Interns the type described by (kind, dtype, n, ntparams, ret, payload).
 * The payload is n int64 dims (TENSOR), n + ntparams type pointers
 * (TUPLE/FUNC/TYPE_CALL), or a serial and a NUL-terminated name (the
 * variable kinds, whose `dtype` is their TypeKind). */
static psg_status intern(psg_ctx *ctx, int kind, int dtype, int n, int ntparams, const psg_type *ret,
                         const void *payload, size_t payload_size, const psg_type **out) {
  /* Encoding: the header fields then the payload bytes. */
  struct {
    int kind, dtype, n, ntparams;
    const psg_type *ret;
  } head;
  memset(&head, 0, sizeof head);
  head.kind = kind;
  head.dtype = dtype;
  head.n = n;
  head.ntparams = ntparams;
  head.ret = ret;
  size_t key_len = sizeof head + payload_size;
  size_t head_size = (sizeof(psg_type) + 15) & ~(size_t)15;
  size_t type_size = (head_size + payload_size + 15) & ~(size_t)15;

  /* No other thread to exclude while the process has one (support.h): the
   * lock's atomic is a good part of a lookup that finds the type. */
  bool locked = !psgi_single_threaded();
  if (locked) pthread_mutex_lock(&ctx->lock);
  psg_status st = PSG_OK;
  /* Most calls find an existing type (FoldConstant and the interpreter ask
   * for every operand's): look small keys up before allocating a block. */
  char small[sizeof head + 8 * sizeof(int64_t)];
  if (key_len <= sizeof small) {
    memcpy(small, &head, sizeof head);
    if (payload_size) memcpy(small + sizeof head, payload, payload_size);
    psgi_map_entry *found = psgi_map_get_str(&ctx->types, small, key_len);
    if (found) {
      *out = found->value;
      goto done;
    }
  }
  char *block = psgi_alloc(ctx, type_size + key_len);
  if (!block) {
    st = PSG_ERR_NOMEM;
    goto done;
  }
  char *key = block + type_size;
  memcpy(key, &head, sizeof head);
  if (payload_size) memcpy(key + sizeof head, payload, payload_size);
  bool is_new;
  psgi_map_entry *e = psgi_map_put_str(&ctx->types, key, key_len, &is_new);
  if (!e) {
    psgi_free(ctx, block);
    st = PSG_ERR_NOMEM;
    goto done;
  }
  if (!is_new) {
    psgi_free(ctx, block);
    *out = e->value;
    goto done;
  }
  psg_type *t = (psg_type *)block;
  memset(t, 0, sizeof *t);
  t->kind = kind;
  t->n = n;
  t->ret = ret;
  t->hash = e->hash;
  char *body = block + head_size;
  if (payload_size) memcpy(body, payload, payload_size);
  switch (kind) {
  case PSG_TYPE_TENSOR:
    t->dtype = dtype;
    t->dims = (const int64_t *)body;
    break;
  case PSG_TYPE_VAR:
  case PSG_TYPE_GLOBAL_VAR:
  case PSG_TYPE_INCOMPLETE:
    t->tkind = dtype;
    t->name = body + sizeof(uint64_t);
    break;
  default:
    t->fields = (const psg_type *const *)body;
    t->ntparams = ntparams;
    t->tparams = t->fields + n;
    break;
  }
  e->value = t;
  *out = t;
done:
  if (locked) pthread_mutex_unlock(&ctx->lock);
  if (st == PSG_ERR_NOMEM) psgi_nomem(ctx);
  return st;
}

psg_status psg_type_tensor(psg_ctx *ctx, const int64_t *shape, int ndim, int dtype,
                           const psg_type **out) {
  *out = NULL;
  if (!dtype_valid(dtype) || ndim < 0 || ndim > PSG_MAX_RANK || (ndim && !shape))
    return PSG_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0 && shape[i] != PSG_DIM_UNKNOWN) return PSG_ERR_INVALID_ARGUMENT;
  if (!psgi_shape_fits(shape, ndim, psg_dtype_size(dtype))) return PSG_ERR_INVALID_ARGUMENT;
  return intern(ctx, PSG_TYPE_TENSOR, dtype, ndim, 0, NULL, shape, (size_t)ndim * sizeof(int64_t), out);
}

/* The n types of a TUPLE/FUNC/TYPE_CALL payload, each non-NULL. */
static bool types_ok(const psg_type *const *ts, int n) {
  if (n < 0 || (n && !ts)) return false;
  for (int i = 0; i < n; i++)
    if (!ts[i]) return false;
  return true;
}

psg_status psg_type_tuple(psg_ctx *ctx, const psg_type *const *fields, int n, const psg_type **out) {
  *out = NULL;
  if (!types_ok(fields, n)) return PSG_ERR_INVALID_ARGUMENT;
  return intern(ctx, PSG_TYPE_TUPLE, 0, n, 0, NULL, fields, (size_t)n * sizeof(psg_type *), out);
}

psg_status psg_type_func(psg_ctx *ctx, const psg_type *const *args, int n, const psg_type *ret,
                         const psg_type **out) {
  return psg_type_func_poly(ctx, args, n, ret, NULL, 0, out);
}

psg_status psg_type_func_poly(psg_ctx *ctx, const psg_type *const *args, int n, const psg_type *ret,
                              const psg_type *const *type_params, int ntparams, const psg_type **out) {
  *out = NULL;
  if (!types_ok(args, n) || !ret || !types_ok(type_params, ntparams)) return PSG_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < ntparams; i++)
    if (type_params[i]->kind != PSG_TYPE_VAR) return PSG_ERR_INVALID_ARGUMENT;
  if (ntparams == 0)
    return intern(ctx, PSG_TYPE_FUNC, 0, n, 0, ret, args, (size_t)n * sizeof(psg_type *), out);
  size_t total = (size_t)n + (size_t)ntparams;
  const psg_type **all = psgi_alloc(ctx, total * sizeof *all);
  if (!all) return psgi_nomem(ctx);
  if (n) memcpy(all, args, (size_t)n * sizeof *all);
  memcpy(all + n, type_params, (size_t)ntparams * sizeof *all);
  psg_status st = intern(ctx, PSG_TYPE_FUNC, 0, n, ntparams, ret, all, total * sizeof *all, out);
  psgi_free(ctx, all);
  return st;
}

psg_status psg_type_call(psg_ctx *ctx, const psg_type *func, const psg_type *const *args, int n,
                         const psg_type **out) {
  *out = NULL;
  if (!func || !types_ok(args, n)) return PSG_ERR_INVALID_ARGUMENT;
  return intern(ctx, PSG_TYPE_CALL, 0, n, 0, func, args, (size_t)n * sizeof(psg_type *), out);
}

psg_status psg_type_ref(psg_ctx *ctx, const psg_type *value, const psg_type **out) {
  *out = NULL;
  if (!value) return PSG_ERR_INVALID_ARGUMENT;
  return intern(ctx, PSG_TYPE_REF, 0, 0, 0, value, NULL, 0, out);
}

/* A variable kind: never equal to an earlier one, so its key carries a
 * process-wide serial number. */
static psg_status fresh(psg_ctx *ctx, int kind, const char *name, int tkind, const psg_type **out) {
  static uint64_t serial;
  *out = NULL;
  if (!name) name = "";
  if (tkind < PSG_TYPE_KIND_TYPE || tkind > PSG_TYPE_KIND_TYPE_DATA || tkind == 3) return PSG_ERR_INVALID_ARGUMENT;
  size_t len = strlen(name);
  char *payload = psgi_alloc(ctx, sizeof(uint64_t) + len + 1);
  if (!payload) return psgi_nomem(ctx);
  uint64_t id = __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
  memcpy(payload, &id, sizeof id);
  memcpy(payload + sizeof id, name, len + 1);
  psg_status st = intern(ctx, kind, tkind, 0, 0, NULL, payload, sizeof id + len + 1, out);
  psgi_free(ctx, payload);
  return st;
}

psg_status psg_type_var(psg_ctx *ctx, const char *name, int type_kind, const psg_type **out) {
  if (!name) return (*out = NULL), PSG_ERR_INVALID_ARGUMENT;
  return fresh(ctx, PSG_TYPE_VAR, name, type_kind, out);
}

psg_status psg_type_global_var(psg_ctx *ctx, const char *name, int type_kind, const psg_type **out) {
  if (!name) return (*out = NULL), PSG_ERR_INVALID_ARGUMENT;
  return fresh(ctx, PSG_TYPE_GLOBAL_VAR, name, type_kind, out);
}

psg_status psg_type_incomplete(psg_ctx *ctx, int type_kind, const psg_type **out) {
  return fresh(ctx, PSG_TYPE_INCOMPLETE, "", type_kind, out);
}

int psg_type_kind(const psg_type *t) { return t->kind; }
int psg_type_ndim(const psg_type *t) { return t->kind == PSG_TYPE_TENSOR ? t->n : 0; }
int64_t psg_type_dim(const psg_type *t, int i) {
  return t->kind == PSG_TYPE_TENSOR && i >= 0 && i < t->n ? t->dims[i] : PSG_DIM_UNKNOWN;
}
int psg_type_dtype(const psg_type *t) { return t->kind == PSG_TYPE_TENSOR ? t->dtype : 0; }
bool psg_type_is_static(const psg_type *t) {
  if (t->kind != PSG_TYPE_TENSOR) return false;
  for (int i = 0; i < t->n; i++)
    if (t->dims[i] < 0) return false;
  return true;
}
int psg_type_num_fields(const psg_type *t) { return t->fields ? t->n : 0; }
const psg_type *psg_type_field(const psg_type *t, int i) {
  return t->fields && i >= 0 && i < t->n ? t->fields[i] : NULL;
}
const psg_type *psg_type_func_ret(const psg_type *t) { return t->kind == PSG_TYPE_FUNC ? t->ret : NULL; }
int psg_type_func_num_type_params(const psg_type *t) { return t->kind == PSG_TYPE_FUNC ? t->ntparams : 0; }
const psg_type *psg_type_func_type_param(const psg_type *t, int i) {
  return t->kind == PSG_TYPE_FUNC && i >= 0 && i < t->ntparams ? t->tparams[i] : NULL;
}
const psg_type *psg_type_call_func(const psg_type *t) { return t->kind == PSG_TYPE_CALL ? t->ret : NULL; }
const psg_type *psg_type_ref_value(const psg_type *t) { return t->kind == PSG_TYPE_REF ? t->ret : NULL; }
const char *psg_type_var_name(const psg_type *t) { return t->name; }
int psg_type_var_kind(const psg_type *t) { return t->name ? t->tkind : -1; }
