/* Passage — call_lowered (TVM's relay.op.call_lowered, src/relay/op/call/
 * call.cc): the call of a PrimFunc that LowerTE leaves in the Relay host
 * graph, `call_lowered(@prim, (args...), metadata={...})`. Its type
 * relation is here; the interpreter runs it (src/interp/eval_lowered.c),
 * since a kernel on values cannot reach the module's PrimFunc. */
#include <stdio.h>
#include "ops/op_impl.h"

enum { MAX_FLAT = 4096, MAX_DEPTH = 64 };

/* The tensor types of t's leaves, in order (TVM's FlattenTupleType). */
static psg_status flatten(psgi_op_call *call, const psg_type *t, const psg_type **leaves, size_t *n) {
  const psg_type *stack[MAX_DEPTH];
  int next[MAX_DEPTH], top = 0;
  stack[0] = t;
  next[0] = 0;
  *n = 0;
  while (top >= 0) {
    const psg_type *cur = stack[top];
    if (cur->kind == PSG_TYPE_TENSOR) {
      if (*n == MAX_FLAT) {
        snprintf(call->msg, sizeof call->msg, "more than %d tensors in the arguments", MAX_FLAT);
        return PSG_ERR_TYPE;
      }
      leaves[(*n)++] = cur;
      top--;
      continue;
    }
    if (cur->kind != PSG_TYPE_TUPLE) {
      snprintf(call->msg, sizeof call->msg, "%s", "an argument is a function, not a tensor");
      return PSG_ERR_TYPE;
    }
    if (next[top] == cur->n) {
      top--;
      continue;
    }
    if (top + 1 == MAX_DEPTH) {
      snprintf(call->msg, sizeof call->msg, "%s", "argument tuples nested too deeply");
      return PSG_ERR_TYPE;
    }
    stack[top + 1] = cur->fields[next[top]++];
    next[++top] = 0;
  }
  return PSG_OK;
}

/* Dims equal where both are known. */
static bool tensor_fits(const psg_type *want, const psg_type *have) {
  if (want->kind != PSG_TYPE_TENSOR || want->dtype != have->dtype || want->n != have->n) return false;
  for (int i = 0; i < want->n; i++)
    if (want->dims[i] >= 0 && have->dims[i] >= 0 && want->dims[i] != have->dims[i]) return false;
  return true;
}

/* args[0]: the PrimFunc's type, args[1]: the argument tuple. A PrimFunc's
 * type (InferType's, from its buffer map) has every buffer as a parameter,
 * inputs then outputs, as TVM passes them: the leaves of the argument tuple
 * take the first parameters and the rest are the results (one tensor, or a
 * tuple of them). A function type whose parameters are only the inputs (a
 * Relay function's, as TVM types the GlobalVar) gives its return type. */
static psg_status call_lowered_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                   const psg_type **out) {
  if (nargs != 2 || !args[0] || args[0]->kind != PSG_TYPE_FUNC) {
    snprintf(call->msg, sizeof call->msg, "%s", "the first argument must be a lowered function (@name)");
    return PSG_ERR_TYPE;
  }
  if (!args[1] || args[1]->kind != PSG_TYPE_TUPLE) {
    snprintf(call->msg, sizeof call->msg, "%s", "the second argument must be a tuple of the call's arguments");
    return PSG_ERR_TYPE;
  }
  const psg_type *ft = args[0];
  const psg_type **leaves = psgi_alloc(call->ctx, MAX_FLAT * sizeof *leaves);
  if (!leaves) return psgi_nomem(call->ctx);
  size_t n = 0;
  psg_status st = flatten(call, args[1], leaves, &n);
  if (!st && n > (size_t)ft->n) {
    snprintf(call->msg, sizeof call->msg, "the call passes %zu tensors, the function takes %d", n, ft->n);
    st = PSG_ERR_TYPE;
  }
  for (size_t i = 0; !st && i < n; i++)
    if (!tensor_fits(ft->fields[i], leaves[i])) {
      snprintf(call->msg, sizeof call->msg, "argument tensor %zu does not fit the function's parameter %zu", i, i);
      st = PSG_ERR_TYPE;
    }
  psgi_free(call->ctx, leaves);
  if (st) return st;
  if (n == (size_t)ft->n) {
    *out = ft->ret;
    return PSG_OK;
  }
  if ((size_t)ft->n - n == 1) {
    *out = ft->fields[n];
    return PSG_OK;
  }
  return psg_type_tuple(call->ctx, (const psg_type *const *)ft->fields + n, ft->n - (int)n, out);
}

const psgi_op_impl psgi_impls_call[] = {
    /* No kernel: the interpreter runs the PrimFunc. TVM: kOpaque, not stateful. */
    {"call_lowered", call_lowered_rel, NULL, false, PSGI_PATTERN_OPAQUE},
    {NULL, NULL, NULL, false, 0},
};
