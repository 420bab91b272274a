/* Passage — CombineParallelBatchMatmul (TVM's
 * combine_parallel_batch_matmul.cc): a function pass (opt 4, required
 * InferType; option min_num_branches, default 3). batch_matmuls
 * (transpose_a false, transpose_b true, TVM's only supported form) reading the
 * same data, with 3-D weights of one batch and dtype, become one batch_matmul
 * over the weights concatenated along N; follow-on elementwise/broadcast ops
 * are combined with their other operands concatenated along -1; one
 * strided_slice per branch takes its columns back (combine_parallel.h). */
#include "ops/op_impl.h"
#include "transforms/combine_parallel.h"

static bool is_supported(const psg_expr *e) { return psgi_tensor_type_of(e)->n == 3; }

static bool can_combine(const psg_expr *a, const psg_expr *b) {
  const psg_type *wa = psgi_tensor_type_of(a->kids[2]), *wb = psgi_tensor_type_of(b->kids[2]);
  psg_attr *da = psg_attrs_get(a->u.attrs, "out_dtype"), *db = psg_attrs_get(b->u.attrs, "out_dtype");
  for (int i = 0; i < 2; i++) {
    const psg_attrs *x = i ? b->u.attrs : a->u.attrs;
    if (psgi_attr_bool(x, "transpose_a", false) || !psgi_attr_bool(x, "transpose_b", true)) return false;
  }
  return wa->dtype == wb->dtype && psgi_tensor_type_of(a)->dtype == psgi_tensor_type_of(b)->dtype && wa->n == 3 &&
         wb->n == 3 && wa->dims[0] == wb->dims[0] && ((!da && !db) || (da && db && psg_attr_equal(da, db)));
}

static int channel_pos(const psg_expr *head) {
  (void)head;
  return 2;
}

static int weight_axis(const psg_expr *head) {
  (void)head;
  return 1;
}

static const psgi_combine_spec spec = {
    .pass_name = "CombineParallelBatchMatmul",
    .op = "nn.batch_matmul",
    .supported = is_supported,
    .can_combine = can_combine,
    .channel_pos = channel_pos,
    .weight_axis = weight_axis,
    .follow_last_axis = true,
};

static psg_status combine(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc, (void)mod; /* typed by the runner: the pass declares needs TYPED */
  return psgi_combine_parallel(&spec, func, psg_attr_get_int(psg_attrs_get(user, "min_num_branches")), out);
}

static const psg_pass_option options[] = {{"min_num_branches", PSG_CONFIG_INT, "3"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_combine_parallel_batch_matmul = {
    .name = "CombineParallelBatchMatmul",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 4,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "parallel batch_matmuls on the same input into one batch_matmul and per-branch slices "
            "(min_num_branches, default 3; opt 4)",
    .needs = PSG_PROP_TYPED,
    .function = combine,
    .cacheable = true,
};
