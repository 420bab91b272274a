/* Passage — nn.dense, nn.matmul and nn.batch_matmul (issue 5): TVM's
 * MatmulRel (dense is matmul with transpose_b) and BatchMatmulRel (batch 1
 * broadcasts), and one strided matrix-product kernel that sums over K in
 * order for every output element. */
#include "ops/nn_internal.h"

/* Relations ------------------------------------------------------------------- */

/* MatmulRel: a is (.., M, K) or, transposed, (.., K, M); b is (K, N) or,
 * transposed, (N, K); the result is a's shape with (M, N) last. */
static psg_status matmul_rel(psgi_op_call *call, bool ta, bool tb, const psg_type *const *args,
                             const psg_type **out) {
  const char *op = psgi_nn_name(call);
  const psg_type *a, *b;
  char sa[128], sb[128];
  psg_status st;
  if ((st = psgi_rel_tensor_arg(call, args, 0, &a)) || (st = psgi_rel_tensor_arg(call, args, 1, &b))) return st;
  if (a->n < (ta ? 2 : 1))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the data must have rank at least %d, got %s", op, ta ? 2 : 1,
                        psgi_shape_str(a, sa, sizeof sa));
  if (b->n != 2)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the weight must be 2-D, got %s", op, psgi_shape_str(b, sb, sizeof sb));
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, a->dims, (size_t)a->n * sizeof *dims);
  int64_t k = ta ? a->dims[a->n - 2] : a->dims[a->n - 1];
  if (ta) dims[a->n - 2] = a->dims[a->n - 1];
  int64_t bk = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
  if (k != PSG_DIM_UNKNOWN && bk != PSG_DIM_UNKNOWN && k != bk)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "%s: input dimension %lld does not match the weight's %lld (data %s, weight %s)",
                        op, (long long)k, (long long)bk, psgi_shape_str(a, sa, sizeof sa),
                        psgi_shape_str(b, sb, sizeof sb));
  int64_t units = psgi_attr_int(call->attrs, "units", -1);
  if (units >= 0 && n != PSG_DIM_UNKNOWN && units != n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: units %lld do not match the weight's %lld", op, (long long)units,
                        (long long)n);
  dims[a->n - 1] = units >= 0 ? units : n;
  int dtype;
  if ((st = psgi_nn_out_dtype(call, a->dtype, &dtype))) return st;
  return psgi_rel_make(call, dims, a->n, dtype, out);
}

psg_status psgi_nn_dense_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  return matmul_rel(call, false, true, args, out);
}

psg_status psgi_nn_matmul_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  return matmul_rel(call, psgi_attr_bool(call->attrs, "transpose_a", false),
                    psgi_attr_bool(call->attrs, "transpose_b", false), args, out);
}

static bool dim_eq(int64_t a, int64_t b) { return a == b || a == PSG_DIM_UNKNOWN || b == PSG_DIM_UNKNOWN; }

/* BatchMatmulRel: x (B, M, K) (or (B, K, M) with transpose_a), y (B, K, N)
 * (or (B, N, K) with transpose_b, TVM's default); a batch of 1 broadcasts. */
psg_status psgi_nn_batch_matmul_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                    const psg_type **out) {
  (void)nargs;
  const psg_type *x, *y;
  char sx[128], sy[128];
  psg_status st;
  if ((st = psgi_rel_tensor_arg(call, args, 0, &x)) || (st = psgi_rel_tensor_arg(call, args, 1, &y))) return st;
  if (x->n != 3 || y->n != 3)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.batch_matmul: both operands must be 3-D, got %s and %s",
                        psgi_shape_str(x, sx, sizeof sx), psgi_shape_str(y, sy, sizeof sy));
  bool ta = psgi_attr_bool(call->attrs, "transpose_a", false), tb = psgi_attr_bool(call->attrs, "transpose_b", true);
  int64_t xb = x->dims[0], xi = x->dims[ta ? 2 : 1], xk = x->dims[ta ? 1 : 2];
  int64_t yb = y->dims[0], yk = y->dims[tb ? 2 : 1], yj = y->dims[tb ? 1 : 2];
  if (!dim_eq(xb, yb) && xb != 1 && yb != 1)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.batch_matmul: batch dimensions don't match, x shape=%s, y shape=%s",
                        psgi_shape_str(x, sx, sizeof sx), psgi_shape_str(y, sy, sizeof sy));
  if (!dim_eq(xk, yk))
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "nn.batch_matmul: reduction dimensions %lld and %lld don't match, x shape=%s, y shape=%s",
                        (long long)xk, (long long)yk, psgi_shape_str(x, sx, sizeof sx),
                        psgi_shape_str(y, sy, sizeof sy));
  int64_t dims[3] = {xb == PSG_DIM_UNKNOWN || yb == PSG_DIM_UNKNOWN ? PSG_DIM_UNKNOWN : xb > yb ? xb : yb, xi, yj};
  int dtype;
  if ((st = psgi_nn_out_dtype(call, x->dtype, &dtype))) return st;
  return psgi_rel_make(call, dims, 3, dtype, out);
}

/* Kernel ----------------------------------------------------------------------------
 * c[bt, i, j] = sum over k in order of a[bt, i, k] * b[bt, k, j], with element
 * strides for each operand (a transposed operand is a stride swap). */
typedef struct mm_geom {
  int64_t nb, m, n, k;
  int64_t a_b, a_i, a_k; /* strides of a */
  int64_t b_b, b_k, b_j; /* strides of b */
} mm_geom;

/* When b's rows are contiguous the product runs as row updates (vectorizable);
 * otherwise as dot products. Both add the K terms to zero in order. */
#define DEFINE_MM(T, SUF)                                                                  \
  static void mm_##SUF(const T *a, const T *b, T *c, const mm_geom *g) {                   \
    for (int64_t bt = 0; bt < g->nb; bt++)                                                 \
      for (int64_t i = 0; i < g->m; i++) {                                                 \
        const T *ar = a + bt * g->a_b + i * g->a_i;                                        \
        const T *bb = b + bt * g->b_b;                                                     \
        T *cr = c + (bt * g->m + i) * g->n;                                                \
        if (g->b_j == 1) {                                                                 \
          for (int64_t k = 0; k < g->k; k++) {                                             \
            T av = ar[k * g->a_k];                                                         \
            const T *br = bb + k * g->b_k;                                                 \
            for (int64_t j = 0; j < g->n; j++) cr[j] += av * br[j];                        \
          }                                                                                \
        } else {                                                                           \
          for (int64_t j = 0; j < g->n; j++) {                                             \
            T acc = 0;                                                                     \
            for (int64_t k = 0; k < g->k; k++) acc += ar[k * g->a_k] * bb[j * g->b_j + k * g->b_k]; \
            cr[j] = acc;                                                                   \
          }                                                                                \
        }                                                                                  \
      }                                                                                    \
  }
DEFINE_MM(float, f32)
DEFINE_MM(double, f64)
#undef DEFINE_MM

static psg_status mm_run(psgi_op_call *call, psgi_value *const *args, const psg_type *out_type, const mm_geom *g,
                         psgi_value **out) {
  psg_tensor *a = psgi_value_as_tensor(args[0]), *b = psgi_value_as_tensor(args[1]), *res = NULL;
  /* float32 operands accumulate in float, as TVM's float32 kernels do;
   * anything else (integers with out_dtype, float64, half) in double. */
  bool dbl = !(a->dtype == PSG_DTYPE_FLOAT32 && b->dtype == PSG_DTYPE_FLOAT32);
  void *ab = NULL, *bb = NULL, *cb = NULL, *dst = NULL;
  bool ao = false, bo = false;
  psg_status st;
  if ((st = psgi_kernel_alloc(call, out_type, &res, &dst)) || (st = psgi_nn_load_float(call, a, dbl, &ab, &ao)) ||
      (st = psgi_nn_load_float(call, b, dbl, &bb, &bo)))
    goto done;
  int64_t numel = g->nb * g->m * g->n;
  bool direct = !dbl && res->dtype == PSG_DTYPE_FLOAT32;
  cb = direct ? dst : psgi_calloc(call->ctx, psgi_mul_size((size_t)(numel ? numel : 1), dbl ? 8 : 4));
  if (!cb) {
    st = psgi_nomem(call->ctx);
    goto done;
  }
  if (dbl) mm_f64(ab, bb, cb, g);
  else mm_f32(ab, bb, cb, g);
  if (!direct) psgi_nn_store_float(res->dtype, dst, cb, dbl, numel);
  st = psgi_kernel_result(call, res, out);
  res = NULL;
done:
  if (ao) psgi_free(call->ctx, ab);
  if (bo) psgi_free(call->ctx, bb);
  if (cb && cb != dst) psgi_free(call->ctx, cb);
  psg_tensor_release(res);
  return st;
}

/* dense / matmul: a's leading dims are batches of a (M, K) (or (K, M))
 * matrix; without transpose_a they fold into M. b is shared by all. */
static psg_status matmul_kernel(psgi_op_call *call, bool ta, bool tb, psgi_value *const *args,
                                const psg_type *out_type, psgi_value **out) {
  psg_tensor *a = psgi_value_as_tensor(args[0]), *b = psgi_value_as_tensor(args[1]);
  mm_geom g;
  int r = a->ndim;
  g.k = ta ? a->shape[r - 2] : a->shape[r - 1];
  g.n = tb ? b->shape[0] : b->shape[1];
  if (ta) {
    g.m = a->shape[r - 1];
    g.nb = psgi_numel(a->shape, r - 2);
    g.a_b = g.k * g.m, g.a_i = 1, g.a_k = g.m;
  } else {
    g.m = psgi_numel(a->shape, r - 1);
    g.nb = 1;
    g.a_b = 0, g.a_i = g.k, g.a_k = 1;
  }
  g.b_b = 0;
  g.b_k = tb ? 1 : g.n;
  g.b_j = tb ? g.k : 1;
  return mm_run(call, args, out_type, &g, out);
}

psg_status psgi_nn_dense_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return matmul_kernel(call, false, true, args, out_type, out);
}

psg_status psgi_nn_matmul_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                 const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  return matmul_kernel(call, psgi_attr_bool(call->attrs, "transpose_a", false),
                       psgi_attr_bool(call->attrs, "transpose_b", false), args, out_type, out);
}

psg_status psgi_nn_batch_matmul_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                       const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  psg_tensor *x = psgi_value_as_tensor(args[0]), *y = psgi_value_as_tensor(args[1]);
  bool ta = psgi_attr_bool(call->attrs, "transpose_a", false), tb = psgi_attr_bool(call->attrs, "transpose_b", true);
  mm_geom g;
  g.nb = out_type->dims[0], g.m = out_type->dims[1], g.n = out_type->dims[2];
  g.k = x->shape[ta ? 1 : 2];
  g.a_b = x->shape[0] == 1 ? 0 : g.m * g.k; /* a batch of 1 broadcasts */
  g.a_i = ta ? 1 : g.k, g.a_k = ta ? g.m : 1;
  g.b_b = y->shape[0] == 1 ? 0 : g.k * g.n;
  g.b_k = tb ? 1 : g.n, g.b_j = tb ? g.k : 1;
  return mm_run(call, args, out_type, &g, out);
}
