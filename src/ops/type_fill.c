/* Passage — ops' backward type relations (type_fill.h). Each fills only what
 * its TVM relation assigns, from the attributes TVM's needs: a conv2d weight
 * needs `channels` and `kernel_size`, a dense weight `units`. */
#include <string.h>
#include "ops/elemwise.h"
#include "ops/kernel_util.h"
#include "ops/layout_blocked.h"
#include "ops/type_fill.h"

static psg_status vector_of(psgi_op_call *call, const psg_type *data, int64_t axis, const psg_type **out) {
  int64_t a = axis < 0 ? axis + data->n : axis;
  if (a < 0 || a >= data->n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: axis %lld is out of range for a %d-D input",
                        psgi_op_table[call->op].name, (long long)axis, data->n);
  return psg_type_tensor(call->ctx, &data->dims[a], 1, data->dtype, out);
}

static bool tensor(const psg_type *t) { return t && t->kind == PSG_TYPE_TENSOR; }

/* Position of axis letter c in a primal layout, or -1. */
static int letter_of(const char *layout, char c) {
  const char *p = strchr(layout, c);
  return p ? (int)(p - layout) : -1;
}

/* Conv2DRel / Conv3DRel: weight (channels, C / groups, k...) in
 * kernel_layout; with blocked layouts (NCHW16c, OIHW16i) through their
 * primal forms, as TVM's relation maps them. */
static psg_status conv_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **in,
                            int nsp) {
  static const char *const spatial = "DHW";
  const char *sp = spatial + 3 - nsp; /* conv2d: "HW" */
  psgi_blocked_layout dl, kl;
  const psg_attrs *a = call->attrs;
  if (nargs != 2 || !tensor(args[0]) || args[1] ||
      !psgi_blocked_parse(psgi_attr_str(a, "data_layout", nsp == 3 ? "NCDHW" : "NCHW"), &dl) ||
      !psgi_blocked_parse(psgi_attr_str(a, "kernel_layout", nsp == 3 ? "OIDHW" : "OIHW"), &kl) ||
      args[0]->n != dl.n || dl.nprimal != nsp + 2 || kl.nprimal != nsp + 2)
    return PSG_OK; /* the forward relation reports it */
  int64_t channels = psgi_attr_int(a, "channels", -1), groups = psgi_attr_int(a, "groups", 1), ks[3];
  int nks = a ? psgi_attr_ints(a, "kernel_size", ks, nsp) : 0;
  if (channels < 0 || nks < 1 || groups < 1) return PSG_OK; /* TVM waits as well */
  for (int i = nks; i < nsp; i++) ks[i] = ks[0];
  int c = letter_of(dl.primal, 'C'), ko = letter_of(kl.primal, 'O'), ki = letter_of(kl.primal, 'I');
  if (c < 0 || ko < 0 || ki < 0) return PSG_OK;
  int64_t data[PSG_MAX_RANK], primal[5], dims[PSG_MAX_RANK];
  for (int i = 0; i < nsp; i++) {
    int k = letter_of(kl.primal, sp[i]);
    if (k < 0 || ks[i] < 1) return PSG_OK;
    primal[k] = ks[i];
  }
  psgi_blocked_to_primal(&dl, args[0]->dims, data);
  int64_t cin = data[c];
  primal[ko] = channels;
  primal[ki] = cin < 0 ? PSG_DIM_UNKNOWN : cin / groups;
  if (!psgi_blocked_from_primal(&kl, primal, dims)) return PSG_OK;
  return psg_type_tensor(call->ctx, dims, kl.n, args[0]->dtype, &in[1]);
}

static psg_status conv2d_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type *out, const psg_type **in) {
  (void)out;
  return conv_fill(call, args, nargs, in, 2);
}

static psg_status conv3d_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type *out, const psg_type **in) {
  (void)out;
  return conv_fill(call, args, nargs, in, 3);
}

/* DenseRel / MatmulRel: weight (units, K), or (K, units) for matmul without
 * transpose_b. */
static psg_status dense_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                             const psg_type *out, const psg_type **in) {
  (void)out;
  if (nargs != 2 || !tensor(args[0]) || args[1] || args[0]->n < 1) return PSG_OK;
  int64_t units = psgi_attr_int(call->attrs, "units", -1);
  if (units < 0) return PSG_OK;
  bool matmul = strcmp(psgi_op_table[call->op].name, "nn.matmul") == 0;
  bool ta = matmul && psgi_attr_bool(call->attrs, "transpose_a", false);
  bool tb = !matmul || psgi_attr_bool(call->attrs, "transpose_b", false);
  const psg_type *d = args[0];
  if (ta && d->n < 2) return PSG_OK;
  int64_t k = d->dims[ta ? d->n - 2 : d->n - 1], dims[2];
  dims[0] = tb ? units : k;
  dims[1] = tb ? k : units;
  return psg_type_tensor(call->ctx, dims, 2, d->dtype, &in[1]);
}

/* BiasAddRel: bias (data[axis],). */
static psg_status bias_add_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                const psg_type *out, const psg_type **in) {
  (void)out;
  if (nargs != 2 || !tensor(args[0]) || args[1]) return PSG_OK;
  return vector_of(call, args[0], psgi_attr_int(call->attrs, "axis", 1), &in[1]);
}

/* BatchNormRel, LayerNormRel, PReluRel: the parameter vectors (data[axis],). */
static psg_status vectors_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                               const psg_type *out, const psg_type **in) {
  (void)out;
  if (nargs < 2 || !tensor(args[0])) return PSG_OK;
  const char *op = psgi_op_table[call->op].name;
  int64_t dflt = strcmp(op, "nn.layer_norm") == 0 ? -1 : 1;
  const psg_type *v = NULL;
  for (size_t i = 1; i < nargs; i++) {
    if (args[i]) continue;
    if (!v) {
      psg_status st = vector_of(call, args[0], psgi_attr_int(call->attrs, "axis", dflt), &v);
      if (st) return st;
    }
    in[i] = v;
  }
  return PSG_OK;
}

/* IdentityRel: the input has the output's type. */
static psg_status identity_fill(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                const psg_type *out, const psg_type **in) {
  (void)call;
  if (nargs == 1 && !args[0] && out) in[0] = out;
  return PSG_OK;
}

static const struct {
  const char *name;
  psgi_type_fill_fn fill;
} fills[] = {
    {"nn.conv2d", conv2d_fill},      {"nn.conv3d", conv3d_fill},      {"nn.dense", dense_fill},         {"nn.matmul", dense_fill},
    {"nn.bias_add", bias_add_fill},  {"nn.batch_norm", vectors_fill},  {"nn.layer_norm", vectors_fill},
    {"nn.prelu", vectors_fill},      {"nn.relu", identity_fill},       {"nn.leaky_relu", identity_fill},
};

psgi_type_fill_fn psgi_type_fill_get(size_t op) {
  if (op >= psgi_op_table_len) return NULL; /* a registered op's relation runs forward only (op_register.h) */
  const char *name = psgi_op_table[op].name;
  for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++)
    if (strcmp(fills[i].name, name) == 0) return fills[i].fill;
  const psgi_op_impl *impl = psgi_op_impl_get(op);
  return impl && impl->type_rel == psgi_rel_identity ? identity_fill : NULL;
}
