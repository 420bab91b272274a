/* Passage — CombineParallelDense (TVM's combine_parallel_dense.cc and the
 * stacking combiner of combine_parallel_op_batch.cc): a function pass (opt
 * 4, required InferType; options min_num_branches, default 3, and to_batch,
 * default true). nn.dense calls reading the same data become one call, with
 * the follow-on elementwise/broadcast calls that match at every branch
 * (combine_parallel.h):
 *   to_batch: denses with weights of one shape become batch_matmul(stack of
 *     the data, stack of the weights); follow-on operands are stacked too
 *     (a 1-D one first given a leading axis), and split + squeeze(axis 0)
 *     take each branch's part back.
 *   flat: denses with weights of one input width become one dense over the
 *     weights concatenated (units summed); follow-on operands are
 *     concatenated along their last axis (a scalar, or a last extent of 1
 *     where the branch has more units, is repeated up to the branch's
 *     units first), and a strided_slice takes each branch's units back
 *     along the last axis of its result with that extent. */
#include "ops/op_impl.h"
#include "transforms/combine_parallel.h"

static const psg_type *type_of(const psg_expr *e) { return psgi_tensor_type_of(e); }

static bool same_out_dtype(const psg_expr *a, const psg_expr *b) {
  psg_attr *da = psg_attrs_get(a->u.attrs, "out_dtype"), *db = psg_attrs_get(b->u.attrs, "out_dtype");
  return (!da && !db) || (da && db && psg_attr_equal(da, db));
}

static bool is_supported(const psg_expr *e) { return type_of(e->kids[2])->n == 2; }

static bool same_dims(const psg_type *a, const psg_type *b, int upto) {
  for (int i = 0; i < upto; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Attributes and operands built here ------------------------------------------------ */

static psg_expr *call1(psgi_built *b, const char *op, psg_expr *x, const char *k1, psg_attr *v1, const char *k2,
                       psg_attr *v2) {
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){k1, k2}, (psg_attr *[]){v1, v2}, k2 ? 2 : 1);
  return attrs && x ? psgi_build_call(b, op, &x, 1, attrs) : NULL;
}

/* op((f(operand k of each branch at depth)), axis), f given per branch. */
typedef psg_expr *(*operand_fn)(psgi_built *b, const psg_expr *call, uint32_t k, uint32_t parent, psg_expr *arg);

static psg_expr *join(psgi_built *b, psg_mutator *m, psgi_combine_branch *branches, size_t n, size_t depth,
                      uint32_t k, uint32_t parent, const char *op, int axis, operand_fn f) {
  psg_expr *small[16], **fields = n <= 16 ? small : psgi_alloc(b->ctx, n * sizeof *fields);
  if (!fields) {
    if (!b->status) b->status = psgi_nomem(b->ctx);
    return NULL;
  }
  bool ok = true;
  for (size_t j = 0; j < n && ok; j++) {
    const psg_expr *call = branches[j].data[depth];
    psg_expr *arg = psgi_combine_rewritten(b, m, call->kids[k]);
    ok = (fields[j] = f && arg ? f(b, call, k, parent, arg) : arg) != NULL;
  }
  psg_expr *tuple = ok ? psgi_combine_tuple(b, fields, n) : NULL;
  if (fields != small) psgi_free(b->ctx, fields);
  return call1(b, op, tuple, "axis", psgi_build_attr_int(b, axis), NULL, NULL);
}

/* to_batch ---------------------------------------------------------------------------- */

static bool batch_can_combine(const psg_expr *a, const psg_expr *b) {
  const psg_type *wa = type_of(a->kids[2]), *wb = type_of(b->kids[2]);
  const psg_type *xa = type_of(a->kids[1]), *xb = type_of(b->kids[1]);
  return same_out_dtype(a, b) && wa->n == 2 && wb->n == 2 && same_dims(wa, wb, 2) && xa && xb &&
         xa->n == xb->n && same_dims(xa, xb, xa->n) && xa->dtype == xb->dtype && wa->dtype == wb->dtype;
}

static psg_expr *batch_combined(psgi_built *b, psg_mutator *m, psgi_combine_branch *branches, size_t n) {
  psg_expr *x = join(b, m, branches, n, 0, 1, 0, "stack", 0, NULL);
  psg_expr *w = join(b, m, branches, n, 0, 2, 0, "stack", 0, NULL);
  psg_attr *dt = psg_attrs_get(branches[0].data[0]->u.attrs, "out_dtype");
  if (dt) psg_attr_retain(dt); /* psgi_build_attrs takes the reference */
  /* transpose_a false and transpose_b true are batch_matmul's defaults,
   * which TVM's Python helper leaves unwritten (attributes compare as
   * written) */
  psg_attrs *attrs = dt ? psgi_build_attrs(b, (const char *[]){"out_dtype"}, &dt, 1) : NULL;
  return (attrs || !dt) && x && w ? psgi_build_call(b, "nn.batch_matmul", (psg_expr *[]){x, w}, 2, attrs) : NULL;
}

static bool batch_arg_compatible(const psg_expr *a, const psg_expr *b, uint32_t k) {
  const psg_type *ta = type_of(a->kids[k]), *tb = type_of(b->kids[k]);
  return ta && tb && ta->dtype == tb->dtype && ta->n == tb->n && same_dims(ta, tb, ta->n);
}

/* A 1-D operand gets a leading axis so it broadcasts over the batch. */
static psg_expr *batch_lift(psgi_built *b, const psg_expr *call, uint32_t k, uint32_t parent, psg_expr *arg) {
  (void)parent;
  if (type_of(call->kids[k])->n != 1) return arg;
  return call1(b, "expand_dims", arg, "axis", psgi_build_attr_int(b, 0), NULL, NULL);
}

static psg_expr *batch_follow(psgi_built *b, psg_mutator *m, psgi_combine_branch *branches, size_t n, size_t depth,
                              uint32_t k, uint32_t parent) {
  return join(b, m, branches, n, depth, k, parent, "stack", 0, batch_lift);
}

static bool batch_outputs(psgi_built *b, psgi_combine_branch *branches, size_t n, size_t depth, psg_expr *combined,
                          psg_expr **parts) {
  (void)branches, (void)depth;
  psg_expr *split = call1(b, "split", combined, "indices_or_sections", psgi_build_attr_int(b, (int64_t)n), NULL, NULL);
  int64_t zero = 0;
  for (size_t j = 0; j < n && split; j++) {
    psg_expr *item = psgi_build_tuple_get_item(b, split, (int)j);
    parts[j] = call1(b, "squeeze", item, "axis", psgi_build_attr_ints(b, &zero, 1), NULL, NULL);
    if (!parts[j]) return false;
  }
  return split != NULL;
}

/* flat ------------------------------------------------------------------------------------ */

static bool flat_can_combine(const psg_expr *a, const psg_expr *b) {
  const psg_type *wa = type_of(a->kids[2]), *wb = type_of(b->kids[2]);
  return same_out_dtype(a, b) && wa->n == 2 && wb->n == 2 && wa->dims[1] == wb->dims[1] &&
         wa->dims[0] != PSG_DIM_UNKNOWN && wb->dims[0] != PSG_DIM_UNKNOWN;
}

static psg_attrs *flat_attrs(psgi_built *b, const psg_expr *head, int64_t units) {
  psg_attr *dt = psg_attrs_get(head->u.attrs, "out_dtype");
  if (dt) psg_attr_retain(dt); /* psgi_build_attrs takes the reference */
  return psgi_build_attrs(b, (const char *[]){"units", "out_dtype"}, (psg_attr *[]){psgi_build_attr_int(b, units), dt},
                          dt ? 2 : 1);
}

static int flat_channel_pos(const psg_expr *head) { return type_of(head)->n - 1; }

static int flat_weight_axis(const psg_expr *head) {
  (void)head;
  return 0;
}

static bool flat_arg_compatible(const psg_expr *a, const psg_expr *b, uint32_t k) {
  const psg_type *ta = type_of(a->kids[k]), *tb = type_of(b->kids[k]), *oa = type_of(a), *ob = type_of(b);
  if (!ta || !tb || !oa || !ob || ta->dtype != tb->dtype || ta->n != tb->n) return false;
  if (oa->n < ta->n || ob->n < tb->n) return false;
  return ta->n == 0 || same_dims(ta, tb, ta->n - 1);
}

/* A scalar becomes a vector, and a last extent of 1 is repeated, up to the
 * branch's units, so the concatenation lines up with the combined output. */
static psg_expr *flat_lift(psgi_built *b, const psg_expr *call, uint32_t k, uint32_t parent, psg_expr *arg) {
  const psg_type *pt = type_of(call->kids[parent]), *at = type_of(call->kids[k]);
  int64_t units = pt && pt->n ? pt->dims[pt->n - 1] : PSG_DIM_UNKNOWN;
  int axis = at->n ? at->n - 1 : 0;
  bool repeat = false;
  if (at->n == 0) {
    repeat = true;
    arg = call1(b, "expand_dims", arg, "axis", psgi_build_attr_int(b, -1), NULL, NULL);
  } else {
    repeat = units > 1 && at->dims[at->n - 1] == 1;
  }
  if (repeat && units == PSG_DIM_UNKNOWN) {
    if (!b->status) b->status = psg_ctx_fail(b->ctx, PSG_ERR_TYPE, "CombineParallelDense: units not known");
    return NULL;
  }
  if (!repeat) return arg;
  return call1(b, "repeat", arg, "repeats", psgi_build_attr_int(b, units), "axis", psgi_build_attr_int(b, axis));
}

static psg_expr *flat_follow(psgi_built *b, psg_mutator *m, psgi_combine_branch *branches, size_t n, size_t depth,
                             uint32_t k, uint32_t parent) {
  const psg_type *at = type_of(branches[0].data[depth]->kids[k]);
  return join(b, m, branches, n, depth, k, parent, "concatenate", at->n ? at->n - 1 : 0, flat_lift);
}

/* Each branch's units sliced out along the last axis of its own result
 * whose extent is the branch's units (follow-on ops may add axes after). */
static bool flat_outputs(psgi_built *b, psgi_combine_branch *branches, size_t n, size_t depth, psg_expr *combined,
                         psg_expr **parts) {
  int64_t start = 0;
  for (size_t j = 0; j < n; j++) {
    const psg_type *out = type_of(branches[j].data[depth]);
    int64_t units = type_of(branches[j].data[0])->dims[1];
    int axis = out->n - 1;
    while (axis >= 0 && out->dims[axis] != units) axis--;
    if (axis < 0) {
      if (!b->status)
        b->status = psg_ctx_fail(b->ctx, PSG_ERR_INTERNAL, "CombineParallelDense: no output axis of extent %lld",
                                 (long long)units);
      return false;
    }
    parts[j] = psgi_combine_slice(b, combined, out->n, axis, start, units);
    start += units;
    if (!parts[j]) return false;
  }
  return true;
}

/* The pass --------------------------------------------------------------------------------- */

static const psgi_combine_spec batch_spec = {
    .pass_name = "CombineParallelDense",
    .op = "nn.dense",
    .supported = is_supported,
    .can_combine = batch_can_combine,
    .channel_pos = flat_channel_pos,
    .weight_axis = flat_weight_axis,
    .combined_call = batch_combined,
    .arg_compatible = batch_arg_compatible,
    .follow_operand = batch_follow,
    .outputs = batch_outputs,
};

static const psgi_combine_spec flat_spec = {
    .pass_name = "CombineParallelDense",
    .op = "nn.dense",
    .supported = is_supported,
    .can_combine = flat_can_combine,
    .channel_pos = flat_channel_pos,
    .weight_axis = flat_weight_axis,
    .combined_attrs = flat_attrs,
    .arg_compatible = flat_arg_compatible,
    .follow_operand = flat_follow,
    .outputs = flat_outputs,
};

static psg_status combine(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc, (void)mod; /* typed by the runner: the pass declares needs TYPED */
  bool to_batch = psg_attr_get_bool(psg_attrs_get(user, "to_batch"));
  return psgi_combine_parallel(to_batch ? &batch_spec : &flat_spec, func,
                               psg_attr_get_int(psg_attrs_get(user, "min_num_branches")), out);
}

static const psg_pass_option options[] = {
    {"min_num_branches", PSG_CONFIG_INT, "3"}, {"to_batch", PSG_CONFIG_BOOL, "true"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_combine_parallel_dense = {
    .name = "CombineParallelDense",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 4,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "parallel denses on the same input into one batch_matmul (to_batch, the default) or one dense, "
            "and per-branch parts (min_num_branches, default 3; opt 4)",
    .needs = PSG_PROP_TYPED,
    .function = combine,
    .cacheable = true,
};
