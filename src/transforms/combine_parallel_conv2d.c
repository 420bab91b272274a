/* Passage — CombineParallelConv2D (tvm-behavior §7.1, TVM's
 * combine_parallel_conv2d.cc and combine_parallel_op.cc): a function pass
 * (opt 4, required InferType; option min_num_branches, default 3). Conv2ds
 * (groups 1) reading the same data with the same attrs except channels become
 * one conv2d over the weights concatenated along O; the elementwise/broadcast
 * ops that follow every branch identically are combined too (their
 * per-channel operands concatenated along C); then one strided_slice per
 * branch takes its channels back. Registered as "CombineParallelConv2D";
 * TVM's PassInfo name "CombineParallelConv2d" is a [quirk] (docs/pass-infra.md). */
#include "ops/op_impl.h"
#include "transforms/combine_parallel.h"

static bool is_supported_conv(const psg_expr *e) {
  return psgi_attr_int(e->u.attrs, "groups", 1) == 1 && psgi_tensor_type_of(e)->n == 4;
}

/* Layouts and attrs ------------------------------------------------------------------ */

static int axis_of(const char *layout, char c) {
  const char *p = strchr(layout, c);
  return p && strlen(layout) == 4 ? (int)(p - layout) : -1;
}

static const char *out_layout_of(const psg_expr *conv) {
  const char *l = psgi_attr_str(conv->u.attrs, "out_layout", "");
  return l[0] ? l : psgi_attr_str(conv->u.attrs, "data_layout", "NCHW");
}

/* An int-list attr with TVM's default, padding widened to 4 values. */
static int ints_of(const psg_expr *conv, const char *key, int64_t dflt, int64_t v[4]) {
  int n = psgi_attr_ints(conv->u.attrs, key, v, 4);
  if (n <= 0) v[0] = v[1] = dflt, n = 2;
  if (n == 1) v[1] = v[0], n = 2;
  if (!strcmp(key, "padding") && n == 2) v[2] = v[0], v[3] = v[1], n = 4;
  return n;
}

static bool same_ints(const psg_expr *a, const psg_expr *b, const char *key, int64_t dflt) {
  int64_t x[4] = {0}, y[4] = {0};
  int n = ints_of(a, key, dflt, x);
  return n == ints_of(b, key, dflt, y) && !memcmp(x, y, sizeof x);
}

/* TVM's CanOpsBeCombined: the same attrs except channels, and the same
 * kernel height and width (and weight dtype, which concatenate needs). */
static bool can_combine(const psg_expr *a, const psg_expr *b) {
  const psg_attrs *x = a->u.attrs, *y = b->u.attrs;
  const char *kl = psgi_attr_str(x, "kernel_layout", "OIHW");
  const psg_type *wa = psgi_tensor_type_of(a->kids[2]), *wb = psgi_tensor_type_of(b->kids[2]);
  int h = axis_of(kl, 'H'), w = axis_of(kl, 'W');
  psg_attr *da = psg_attrs_get(x, "out_dtype"), *db = psg_attrs_get(y, "out_dtype");
  return same_ints(a, b, "strides", 1) && same_ints(a, b, "padding", 0) && same_ints(a, b, "dilation", 1) &&
         !strcmp(psgi_attr_str(x, "data_layout", "NCHW"), psgi_attr_str(y, "data_layout", "NCHW")) &&
         !strcmp(kl, psgi_attr_str(y, "kernel_layout", "OIHW")) &&
         !strcmp(psgi_attr_str(x, "out_layout", ""), psgi_attr_str(y, "out_layout", "")) &&
         ((!da && !db) || (da && db && psg_attr_equal(da, db))) && h >= 0 && w >= 0 && axis_of(kl, 'O') >= 0 &&
         axis_of(out_layout_of(a), 'C') >= 0 && wa->n == 4 && wb->n == 4 && wa->dtype == wb->dtype &&
         wa->dims[h] == wb->dims[h] && wa->dims[w] == wb->dims[w];
}

static int channel_pos(const psg_expr *head) { return axis_of(out_layout_of(head), 'C'); }

static int weight_axis(const psg_expr *head) {
  return axis_of(psgi_attr_str(head->u.attrs, "kernel_layout", "OIHW"), 'O');
}

/* The head's attrs with channels = the sum over the group. */
static psg_attrs *combined_attrs(psgi_built *b, const psg_expr *head, int64_t channels) {
  psg_attr *ch = psgi_build_attr_int(b, channels);
  psg_attrs *attrs = NULL;
  if (!ch) return NULL;
  psg_status st = psg_attrs_with(b->ctx, head->u.attrs, "channels", ch, &attrs);
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->attrs, attrs)) psg_attrs_release(attrs), attrs = NULL, st = psgi_nomem(b->ctx);
  if (st && !b->status) b->status = st;
  psg_attr_release(ch);
  return st ? NULL : attrs;
}

static const psgi_combine_spec spec = {
    .pass_name = "CombineParallelConv2D",
    .op = "nn.conv2d",
    .supported = is_supported_conv,
    .can_combine = can_combine,
    .channel_pos = channel_pos,
    .weight_axis = weight_axis,
    .combined_attrs = combined_attrs,
};

static psg_status combine(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc, (void)mod; /* typed by the runner: the pass declares needs TYPED */
  return psgi_combine_parallel(&spec, func, psg_attr_get_int(psg_attrs_get(user, "min_num_branches")), out);
}

static const psg_pass_option options[] = {{"min_num_branches", PSG_CONFIG_INT, "3"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_combine_parallel_conv2d = {
    .name = "CombineParallelConv2D",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 4,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "parallel conv2ds on the same input into one conv2d and per-branch slices "
             "(min_num_branches, default 3; opt 4)",
    .needs = PSG_PROP_TYPED,
    .function = combine,
    .cacheable = true,
};
