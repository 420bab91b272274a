/* Passage — the misc family (issue 5): device and fusion annotations, which
 * are identities to the interpreter, and random.uniform, TVM's stateful
 * generator taking a threefry key and returning (new_key, values). */
#include "ops/elemwise.h"

/* Annotations wrap any value, tuples included, so the relation and kernel
 * pass the argument through whatever its type. */
static psg_status pass_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  *out = NULL;
  psg_status st = psgi_rel_nargs(call, nargs, 1);
  if (st) return st;
  if (!args[0]) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the argument has no type", psgi_op_table[call->op].name);
  *out = args[0];
  return PSG_OK;
}

static psg_status pass_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                              psgi_value **out) {
  (void)call, (void)nargs, (void)out_type;
  psgi_value_retain(args[0]);
  *out = args[0];
  return PSG_OK;
}

/* random.uniform --------------------------------------------------------------- */

enum { KEY_WORDS = 10 }; /* TVM's ThreefryKeyType: Tensor[(10,), uint64] */

static psg_status uniform_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type **out) {
  static const char *const names[3] = {"key", "low", "high"};
  *out = NULL;
  const psg_type *ts[3], *key, *values;
  int64_t dims[PSG_MAX_RANK], kdim = KEY_WORDS;
  int nd, dtype;
  psg_status st = psgi_rel_nargs(call, nargs, 3);
  for (size_t i = 0; i < 3 && !st; i++) st = psgi_rel_tensor_arg(call, args, i, &ts[i]);
  if (!st) st = psgi_rel_shape_attr(call, dims, &nd);
  if (!st) st = psgi_rel_dtype_attr(call, "dtype", PSG_DTYPE_FLOAT32, &dtype);
  if (!st) st = psgi_rel_make(call, &kdim, 1, PSG_DTYPE_UINT64, &key);
  if (st) return st;
  if (dtype != PSG_DTYPE_FLOAT32 && dtype != PSG_DTYPE_FLOAT64)
    return psgi_op_fail(call, PSG_ERR_TYPE, "random.uniform: dtype must be float32 or float64, not %s",
                        psg_dtype_name(dtype));
  if (ts[0] != key) {
    char buf[128];
    return psgi_op_fail(call, PSG_ERR_TYPE, "random.uniform: the key must be a (10,) uint64 tensor, not %s %s",
                        psgi_shape_str(ts[0], buf, sizeof buf), psg_dtype_name(ts[0]->dtype));
  }
  for (int i = 1; i < 3; i++)
    if (ts[i]->n != 0 || ts[i]->dtype != dtype)
      return psgi_op_fail(call, PSG_ERR_TYPE, "random.uniform: %s must be a %s scalar", names[i],
                          psg_dtype_name(dtype));
  if ((st = psgi_rel_make(call, dims, nd, dtype, &values))) return st;
  const psg_type *fields[2] = {key, values};
  return psg_type_tuple(call->ctx, fields, 2, out);
}

/* SplitMix64: a small, well-mixed generator; deterministic per key. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static psg_status uniform_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                 const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  psg_tensor *key = psgi_value_as_tensor(args[0]), *lo = psgi_value_as_tensor(args[1]),
             *hi = psgi_value_as_tensor(args[2]), *nk = NULL, *vals = NULL;
  const psg_type *vtype = out_type->fields[1];
  int dt = vtype->dtype;
  uint64_t state = 0;
  for (int i = 0; i < KEY_WORDS; i++) {
    state ^= (uint64_t)psgi_load_i(PSG_DTYPE_UINT64, key->data, (size_t)i);
    (void)splitmix(&state);
  }
  /* The new key comes from its own stream, so a chain of calls that threads
   * the key through never repeats values. */
  uint64_t kstate = state ^ 0x6a09e667f3bcc908u;
  void *kd, *vd;
  psgi_value *items[2] = {NULL, NULL};
  psg_status st = psgi_kernel_alloc(call, out_type->fields[0], &nk, &kd);
  if (!st) st = psgi_kernel_alloc(call, vtype, &vals, &vd);
  if (st) goto done;
  for (int i = 0; i < KEY_WORDS; i++) psgi_store_i(PSG_DTYPE_UINT64, kd, (size_t)i, (int64_t)splitmix(&kstate));
  size_t n = (size_t)psgi_numel(vtype->dims, vtype->n);
  double l = psgi_load_f(dt, lo->data, 0), h = psgi_load_f(dt, hi->data, 0);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix(&state);
    if (dt == PSG_DTYPE_FLOAT32) {
      float u = (float)(r >> 40) * 0x1p-24f; /* [0, 1) on float32's grid */
      psgi_store_f(dt, vd, i, (float)l + ((float)h - (float)l) * u);
    } else {
      double u = (double)(r >> 11) * 0x1p-53;
      psgi_store_f(dt, vd, i, l + (h - l) * u);
    }
  }
  if (!(st = psgi_value_tensor(call->ctx, nk, &items[0])) && !(st = psgi_value_tensor(call->ctx, vals, &items[1])))
    st = psgi_value_tuple(call->ctx, items, 2, out);
done:
  psgi_value_release(items[0]);
  psgi_value_release(items[1]);
  psg_tensor_release(nk);
  psg_tensor_release(vals);
  return st;
}

enum { OPAQUE = PSGI_PATTERN_OPAQUE };

const psgi_op_impl psgi_impls_misc[] = {
    {"device_copy", pass_rel, pass_kernel, false, OPAQUE},
    {"on_device", pass_rel, pass_kernel, false, OPAQUE},
    {"annotation.stop_fusion", pass_rel, pass_kernel, false, OPAQUE},
    {"random.uniform", uniform_rel, uniform_kernel, true, OPAQUE},
    {NULL, NULL, NULL, false, 0},
};
