/* Passage — running call_lowered(@prim, (args...)) in the interpreter: the
 * PrimFunc runs in the TIR interpreter with TVM's calling convention, the
 * argument tuple's tensors (flattened, in order) bound to its first buffer
 * params and freshly allocated, zero-filled output tensors to the rest; the
 * outputs come back as one tensor or a tuple, as the call's type says. */
#include <stdio.h>
#include "interp/interp_internal.h"
#include "interp/tir_eval_internal.h"
#include "passage/module.h"

enum { MAX_DEPTH = 64 };

typedef PSGI_VEC(psg_tensor *) tensor_vec;

/* Appends v's tensors in order (TVM's FlattenTupleType on the value):
 * PSG_ERR_TYPE for a closure, PSG_ERR_NOMEM. */
static psg_status flatten_value(psg_ctx *ctx, const psgi_value *v, int depth, tensor_vec *out) {
  if (v->kind == PSGI_VALUE_TENSOR) return PSGI_VEC_PUSH(ctx, out, v->u.tensor) ? PSG_OK : psgi_nomem(ctx);
  if (v->kind != PSGI_VALUE_TUPLE || depth > MAX_DEPTH) return PSG_ERR_TYPE;
  psg_status st = PSG_OK;
  for (size_t i = 0; i < v->u.tuple.n && !st; i++) st = flatten_value(ctx, v->u.tuple.items[i], depth + 1, out);
  return st;
}

psg_status psgi_eval_call_lowered(psg_ctx *ctx, const psg_module *mod, const psg_expr *call, psgi_value *args,
                                  psgi_eval_budget *budget, uint64_t max_steps, psgi_value **out, char *msg,
                                  size_t msglen) {
  *out = NULL;
  msg[0] = 0;
  const psg_expr *gv = call->kids[1];
  if (gv->kind != PSG_EXPR_GLOBAL_VAR) {
    snprintf(msg, msglen, "%s", "the first argument must be a GlobalVar naming a PrimFunc");
    return PSG_ERR_TYPE;
  }
  const psg_tir_prim_func *f = psg_module_lookup_prim_func(mod, gv->u.gvar.name);
  if (!f) {
    snprintf(msg, msglen, "@%s is not a PrimFunc of the module", gv->u.gvar.name);
    return PSG_ERR_NOT_FOUND;
  }
  /* The result's type by the op's relation on the PrimFunc's type and the
   * arguments' (the call's checked type, when InferType ran). */
  const psg_type *types[2] = {NULL, psgi_value_type(ctx, args)};
  psg_status st = psgi_prim_func_type(ctx, f, &types[0], msg, msglen);
  if (st) return st;
  if (!types[1]) {
    snprintf(msg, msglen, "%s", "an argument is a function, not a tensor");
    return PSG_ERR_TYPE;
  }
  const psgi_op_impl *impl = psgi_op_impl_get((size_t)call->kids[0]->u.op);
  psgi_op_call oc = {.ctx = ctx, .op = call->kids[0]->u.op, .attrs = call->u.attrs};
  const psg_type *ret = NULL;
  if ((st = impl->type_rel(&oc, types, 2, &ret)) != PSG_OK) {
    snprintf(msg, msglen, "%s", oc.msg[0] ? oc.msg : psg_status_str(st));
    return st;
  }
  if (!psgi_eval_budget_take(budget, ret, msg, msglen)) return PSG_ERR_UNSUPPORTED;

  tensor_vec all = {0};
  size_t nin = 0, nparams = psg_tir_prim_func_num_params(f);
  psg_tensor **results = NULL;
  if ((st = flatten_value(ctx, args, 0, &all)) == PSG_ERR_TYPE)
    snprintf(msg, msglen, "%s", "an argument is a function, not a tensor");
  nin = all.len;
  /* Outputs: the parameters after the inputs, as the relation typed them. */
  for (size_t i = nin; !st && i < nparams; i++) {
    const psg_type *t = types[0]->fields[i];
    psg_tensor *o = NULL;
    if ((st = psg_tensor_create(ctx, t->dtype, t->dims, t->n, NULL, &o)) != PSG_OK) {
      if (st != PSG_ERR_NOMEM) snprintf(msg, msglen, "output %zu of @%s has no static shape", i - nin, gv->u.gvar.name);
      break;
    }
    if (!PSGI_VEC_PUSH(ctx, &all, o)) {
      psg_tensor_release(o);
      st = psgi_nomem(ctx);
    }
  }
  /* The PrimFunc's Allocates get what is left (0 would mean no limit). */
  uint64_t left = budget->limit - budget->used;
  psgi_tir_eval_limits limits = {left ? left : 1, max_steps};
  if (!st && (st = psgi_tir_eval_limited(ctx, f, all.data, all.len, &limits, &results)) != PSG_OK) {
    /* The TIR interpreter's own diagnostic, located in the PrimFunc, says why. */
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    snprintf(msg, msglen, "in @%s: %s", gv->u.gvar.name, d ? psg_diag_message(d) : psg_status_str(st));
  }
  if (!st) {
    size_t nout = nparams - nin;
    psgi_value *small[16] = {0}, **items = small;
    if (nout > 16 && !(items = psgi_calloc(ctx, nout * sizeof *items))) st = psgi_nomem(ctx);
    for (size_t i = 0; !st && i < nout; i++) st = psgi_value_tensor(ctx, results[nin + i], &items[i]);
    if (!st && ret->kind == PSG_TYPE_TUPLE) {
      st = psgi_value_tuple(ctx, items, nout, out);
    } else if (!st) {
      *out = items[0]; /* one output: the tensor itself */
      items[0] = NULL;
    }
    for (size_t i = 0; i < nout; i++) psgi_value_release(items[i]);
    if (items != small) psgi_free(ctx, items);
  }
  if (results)
    for (size_t i = 0; i < all.len; i++) psg_tensor_release(results[i]);
  psg_free(results); /* psg_tir_eval's array leaves through psg_free */
  for (size_t i = nin; i < all.len; i++) psg_tensor_release(all.data[i]);
  PSGI_VEC_FREE(ctx, &all);
  return st;
}
