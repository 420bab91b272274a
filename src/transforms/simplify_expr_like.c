/* Passage — SimplifyExpr: *_like ops into their explicit forms when the
 * result's shape is static (TVM's ConcretizeLikeRewrite family, see
 * simplify_expr.h): the dependency on the shape argument goes, which leaves
 * more to fuse and to fold. cast_like needs only the dtype, so it goes
 * whatever the shape. */
#include "ops/op_impl.h"
#include "transforms/simplify_expr.h"

static const char *const like_ops[][2] = {
    {"zeros_like", "zeros"},           {"ones_like", "ones"},
    {"full_like", "full"},             {"reshape_like", "reshape"},
    {"collapse_sum_like", "collapse_sum_to"}, {"broadcast_to_like", "broadcast_to"},
};

psg_expr *psgi_simplify_concretize_like(psgi_built *b, const psg_expr *now) {
  const char *op = psgi_call_op_name(now);
  const psg_type *t = now->checked_type;
  if (!op || !t || t->kind != PSG_TYPE_TENSOR || now->nkids < 2) return NULL;
  psg_expr *x = now->kids[1];
  psg_expr *out = NULL;
  if (!strcmp(op, "cast_like") && now->nkids == 3) {
    psg_attrs *a = psgi_build_attrs(b, (const char *[]){"dtype"}, (psg_attr *[]){psgi_build_attr_dtype(b, t->dtype)}, 1);
    out = a ? psgi_build_call_typed(b, "cast", &x, 1, a) : NULL;
    return out && out->checked_type == t ? out : NULL;
  }
  size_t k = 0, n = sizeof like_ops / sizeof *like_ops;
  while (k < n && strcmp(op, like_ops[k][0])) k++;
  if (k == n || !psg_type_is_static(t)) return NULL;
  psg_attr *shape = psgi_build_attr_ints(b, t->dims, (size_t)t->n);
  if (k <= 2) { /* zeros, ones, full: the shape and the dtype */
    psg_attrs *a = psgi_build_attrs(b, (const char *[]){"shape", "dtype"},
                                    (psg_attr *[]){shape, psgi_build_attr_dtype(b, t->dtype)}, 2);
    psg_expr *fill = now->nkids == 3 ? now->kids[2] : NULL;
    out = a ? psgi_build_call_typed(b, like_ops[k][1], &fill, k == 2 ? 1 : 0, a) : NULL;
  } else {
    psg_attrs *a = psgi_build_attrs(b, (const char *[]){k == 3 ? "newshape" : "shape"}, &shape, 1);
    out = a ? psgi_build_call_typed(b, like_ops[k][1], &x, 1, a) : NULL;
  }
  return out && out->checked_type == t ? out : NULL;
}
