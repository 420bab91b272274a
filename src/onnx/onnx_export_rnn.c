/* Passage ONNX frontend — export of Composite="onnx.LSTM" calls as one LSTM
 * node (see onnx_export_rnn.h). The function's attributes give the node's
 * hidden_size and direction, and onnx_inputs the ONNX input index of each
 * parameter (absent optional inputs are empty names); the body, the unrolled
 * decomposition the passes and the interpreter use, is not written. */
#include <string.h>
#include "onnx_export_rnn.h"

static const char *composite_name(const psg_expr *fn) {
  if (psg_expr_kind(fn) != PSG_EXPR_FUNCTION) return NULL;
  psg_attr *a = psg_attrs_get(psg_function_get_attrs(fn), "Composite");
  return a && psg_attr_kind(a) == PSG_ATTR_STRING ? psg_attr_get_string(a) : NULL;
}

bool onnxi_export_is_composite(const psg_expr *fn) {
  const char *name = composite_name(fn);
  return name && !strcmp(name, "onnx.LSTM");
}

static psg_status fail(psg_ctx *ctx, psg_status code, const char *msg) {
  return psg_ctx_fail(ctx, code, "ONNX export: onnx.LSTM: %s", msg);
}

static Onnx__AttributeProto *attr(const onnxi_export_api *api, Onnx__NodeProto *n, const char *name) {
  Onnx__AttributeProto *a = api->alloc(api->x, sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = (char *)name;
  a->has_type = 1;
  n->attribute[n->n_attribute++] = a;
  return a;
}

psg_status onnxi_export_composite(psg_ctx *ctx, const onnxi_export_api *api, const psg_expr *call, const char *const *in,
                                  char ***out_names, size_t *nout) {
  enum { NIN = 8 };
  const psg_expr *fn = psg_call_get_callee(call);
  const psg_attrs *fa = psg_function_get_attrs(fn);
  psg_attr *hs = psg_attrs_get(fa, "hidden_size"), *dir = psg_attrs_get(fa, "direction"), *idx = psg_attrs_get(fa, "onnx_inputs");
  size_t na = psg_call_num_args(call);
  if (!hs || psg_attr_kind(hs) != PSG_ATTR_INT || !dir || psg_attr_kind(dir) != PSG_ATTR_STRING || !idx ||
      psg_attr_kind(idx) != PSG_ATTR_LIST || psg_attr_list_len(idx) != na || psg_function_num_params(fn) != na)
    return fail(ctx, PSG_ERR_UNSUPPORTED, "needs hidden_size, direction and one onnx_inputs index per argument");
  const psg_type *rt = psg_expr_checked_type(call);
  if (!rt || psg_type_kind(rt) != PSG_TYPE_TUPLE || psg_type_num_fields(rt) != 3)
    return fail(ctx, PSG_ERR_UNSUPPORTED, "the call must return the tuple (Y, Y_h, Y_c)");
  const char *slot[NIN] = {0};
  int last = -1;
  for (size_t i = 0; i < na; i++) {
    psg_attr *v = psg_attr_list_get(idx, i);
    int64_t k = psg_attr_kind(v) == PSG_ATTR_INT ? psg_attr_get_int(v) : -1;
    if (k < 0 || k >= NIN || k == 4 || slot[k] || (i < 3 && k != (int64_t)i))
      return fail(ctx, PSG_ERR_UNSUPPORTED, "onnx_inputs must list X, W, R first, then distinct optional inputs");
    if (!in[i]) return fail(ctx, PSG_ERR_INTERNAL, "an argument has no ONNX value");
    slot[k] = in[i];
    if (k > last) last = (int)k;
  }
  Onnx__NodeProto *n = api->node(api->x, "LSTM", last + 1, 3);
  char **names = api->alloc(api->x, 4 * sizeof *names);
  Onnx__AttributeProto *ah = n ? attr(api, n, "hidden_size") : NULL, *ad = n ? attr(api, n, "direction") : NULL;
  const char *d = psg_attr_get_string(dir);
  char *ds = api->alloc(api->x, strlen(d) + 1);
  if (!n || !names || !ah || !ad || !ds) return PSG_ERR_NOMEM;
  for (int k = 0; k <= last; k++) n->input[k] = (char *)(slot[k] ? slot[k] : "");
  ah->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  ah->has_i = 1;
  ah->i = psg_attr_get_int(hs);
  strcpy(ds, d);
  ad->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
  ad->has_s = 1;
  ad->s.data = (uint8_t *)ds;
  ad->s.len = strlen(ds);
  for (int k = 0; k < 3; k++) names[k] = n->output[k];
  *out_names = names;
  *nout = 3;
  return PSG_OK;
}
