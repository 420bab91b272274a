/* Passage — FoldConstant (spec/adding-a-pass.md, tvm-behavior §5): a
 * ConstantChecker visitor and a ConstantFolder mutator. Calls of primitive
 * ops whose arguments are all constants are evaluated in process by the
 * interpreter's kernels (each constant subgraph once, no module copies) and
 * replaced by constants or tuples of constants. Function pass, opt level 2,
 * no required passes.
 *
 * Rules, in the spec's order, for a Call (after its arguments are folded):
 * inside a Primitive function → unchanged; no arguments → unchanged; callee
 * not an op → unchanged; stateful op → unchanged; shape_of / ndarray_size of
 * a statically shaped argument → the shape / size (cast to `dtype`);
 * non-computational ops (on_device, annotation.*) and device_copy, shape_of,
 * ndarray_size → unchanged; an argument that is not a (tuple of) constant(s)
 * → unchanged; else evaluate. An evaluation that fails leaves the call as it
 * was and records a warning note; it is not an error of the pass. */
#include <stdio.h>
#include "interp/interp_internal.h"
#include "ops/kernel_util.h"
#include "text/text_internal.h"
#include "transforms/transforms.h"

typedef struct folder {
  psg_mutator m;
  psg_mutator frozen; /* the same rules with calls frozen (Primitive bodies) */
  psgi_map constant_memo; /* ConstantChecker: node -> (void*)1 if constant */
  const char *fn_name;
  const psg_expr *fn; /* the function being folded (names in warnings) */
  int warnings;
  uint64_t max_constant_bytes; /* passage.max_constant_bytes: a larger result stays a call */
} folder;

static folder *folder_of(psg_mutator *m) { return m->user; }

/* The ops the rules test every call against, looked up once (indices into
 * the op table are fixed for the process; -1, absent, matches no call). */
enum { OP_ON_DEVICE, OP_SHAPE_OF, OP_NDARRAY_SIZE, OP_DEVICE_COPY, NUM_RULE_OPS };
static size_t rule_op(int which) {
  static const char *const names[NUM_RULE_OPS] = {"on_device", "shape_of", "ndarray_size", "device_copy"};
  static ptrdiff_t cache[NUM_RULE_OPS] = {-2, -2, -2, -2};
  ptrdiff_t i = __atomic_load_n(&cache[which], __ATOMIC_RELAXED);
  if (i == -2) {
    i = psgi_op_lookup(names[which], strlen(names[which]));
    __atomic_store_n(&cache[which], i, __ATOMIC_RELAXED);
  }
  return (size_t)i;
}

static bool op_is(const psg_expr *callee, size_t op) { return callee->kind == PSG_EXPR_OP && callee->u.op == op; }

/* on_device(x) is transparent to "is constant" (TVM's IsSimpleConstant). */
static bool is_on_device(const psg_expr *e) {
  return e->kind == PSG_EXPR_CALL && e->nkids == 2 && op_is(e->kids[0], rule_op(OP_ON_DEVICE));
}

static const psg_expr *strip_on_device(const psg_expr *e) {
  while (is_on_device(e)) e = e->kids[1];
  return e;
}

static bool is_simple_constant(const psg_expr *e) { return strip_on_device(e)->kind == PSG_EXPR_CONSTANT; }

/* Tuple literals nest as deep as the program wrote them; the check (and the
 * conversion to values, interp/eval_op.c) recurse on that depth, capped: a
 * deeper tuple is simply not folded. */
enum { MAX_TUPLE_DEPTH = 64 };

/* ConstantChecker: a Constant, or a Tuple whose fields all are, memoized.
 * The folder runs post-order, so a Tuple's fields are checked before it: the
 * memo makes each check O(fields). */
static bool check_constant(folder *fo, const psg_expr *e, int depth) {
  e = strip_on_device(e);
  if (e->kind == PSG_EXPR_CONSTANT) return true;
  if (e->kind != PSG_EXPR_TUPLE) return false;
  psgi_map_entry *en = psgi_map_get_ptr(&fo->constant_memo, e);
  if (en) return en->value != NULL;
  bool all = true;
  for (uint32_t i = 0; i < e->nkids && all; i++) {
    const psg_expr *k = strip_on_device(e->kids[i]);
    if (k->kind == PSG_EXPR_TUPLE) {
      psgi_map_entry *ke = psgi_map_get_ptr(&fo->constant_memo, k);
      all = ke ? ke->value != NULL : depth < MAX_TUPLE_DEPTH && check_constant(fo, k, depth + 1);
    } else {
      all = k->kind == PSG_EXPR_CONSTANT;
    }
  }
  en = psgi_map_put_ptr(&fo->constant_memo, e, NULL);
  if (en) en->value = all ? (void *)1 : NULL;
  return all;
}

static bool is_complex_constant(folder *fo, const psg_expr *e) { return check_constant(fo, e, 0); }


/* A rank-1 int32 tensor of `dims`, or the int32 scalar `prod`, cast to dtype. */
static psg_status shape_constant(psg_ctx *ctx, const psg_type *t, bool size_only, int dtype, const psg_span *span,
                                 psg_expr **out) {
  int64_t n = t->n, prod = 1;
  for (int i = 0; i < t->n; i++) prod *= t->dims[i];
  size_t esz = psg_dtype_size(dtype);
  size_t count = size_only ? 1 : (size_t)n;
  unsigned char *buf = psgi_calloc(ctx, count * esz + 1);
  if (!buf) return psgi_nomem(ctx);
  /* The int32 shape cast to `dtype`, as TVM's folder does; a rank-0 value
   * has the empty shape and one element (fixing TVM's quirks, §5.2 5-6). */
  for (size_t i = 0; i < count; i++) psgi_store_i(dtype, buf, i, (int32_t)(size_only ? prod : t->dims[i]));
  psg_tensor *tensor;
  psg_status st = psg_tensor_create(ctx, dtype, size_only ? NULL : &n, size_only ? 0 : 1, buf, &tensor);
  psgi_free(ctx, buf);
  if (st) return st;
  st = psg_constant_create(ctx, tensor, span, out);
  psg_tensor_release(tensor);
  return st;
}

/* A constant's type as InferType left it, when it is the tensor's own (the
 * interned type the interpreter would compute, without interning it again);
 * NULL otherwise. */
static const psg_type *constant_type(const psg_expr *c) {
  const psg_type *t = c->kind == PSG_EXPR_CONSTANT ? psg_expr_checked_type(c) : NULL;
  const psg_tensor *x = t ? c->u.constant : NULL;
  if (!x || t->kind != PSG_TYPE_TENSOR || t->dtype != x->dtype || t->n != x->ndim ||
      (t->n && memcmp(t->dims, x->shape, (size_t)t->n * sizeof *t->dims) != 0))
    return NULL;
  return t;
}

static bool tensor_has_type(const psg_tensor *x, const psg_type *t) {
  return t->kind == PSG_TYPE_TENSOR && t->dtype == x->dtype && t->n == x->ndim &&
         (!t->n || memcmp(t->dims, x->shape, (size_t)t->n * sizeof *t->dims) == 0);
}

/* The original call's checked tensor type when every argument (folded to a
 * constant of type types[i]) has the type the call's argument had when it
 * was typed: the op's relation would compute exactly that type again. */
static const psg_type *known_result_type(const psg_expr *call, const psg_type *const *types, size_t nargs) {
  const psg_type *t = psg_expr_checked_type(call);
  if (!t || t->kind != PSG_TYPE_TENSOR || call->nkids != nargs + 1) return NULL;
  for (size_t i = 0; i < nargs; i++)
    if (!types[i] || types[i] != psg_expr_checked_type(call->kids[i + 1])) return NULL;
  return t;
}

/* Evaluates op call `call` on `kids`, its arguments as rewritten (all
 * constants or tuples of them): *out is the result, or NULL when the
 * evaluation failed (a warning says why; the call stays). A tensor argument is a value on the
 * stack borrowing its constant's tensor (no allocation): released last, after
 * the result, which is all a kernel could have retained it into. */
static psg_status evaluate(folder *fo, const psg_expr *call, psg_expr *const *kids, size_t nargs, psg_expr **out) {
  psg_ctx *ctx = fo->m.ctx;
  *out = NULL;
  psgi_value *small[16], **args = small, stack[16];
  const psg_type *small_types[16], **types = small_types;
  if (nargs > 16 && (!(args = psgi_calloc(ctx, nargs * sizeof *args)) ||
                     !(types = psgi_calloc(ctx, nargs * sizeof *types)))) {
    if (args != small) psgi_free(ctx, args);
    return psgi_nomem(ctx);
  }
  psg_status st = PSG_OK;
  size_t made = 0;
  for (; made < nargs && !st; made++) {
    const psg_expr *c = strip_on_device(kids[made]);
    if (c->kind == PSG_EXPR_CONSTANT && made < 16) {
      stack[made] = (psgi_value){.refcount = 1, .kind = PSGI_VALUE_TENSOR, .ctx = ctx, .u.tensor = c->u.constant};
      args[made] = &stack[made];
    } else {
      st = psgi_value_from_constant(ctx, c, &args[made]);
    }
    types[made] = constant_type(c);
  }
  if (st) made--; /* args[made] was not made */
  psgi_value *v = NULL;
  char msg[512];
  msg[0] = 0;
  const psg_type *known = st ? NULL : known_result_type(call, types, nargs);
  size_t op = call->kids[0]->u.op;
  /* The result's size is checked from its type before the kernel allocates
   * it (issue 14): a constant over the limit is not made. */
  psgi_eval_budget limit = {fo->max_constant_bytes, 0, "passage.max_constant_bytes"};
  if (!st && known && !psgi_eval_budget_take(&limit, known, msg, sizeof msg))
    st = PSG_ERR_UNSUPPORTED;
  else if (!st && known)
    st = psgi_eval_op_kernel_within(ctx, op, call->u.attrs, args, nargs, known, &limit, &v, msg, sizeof msg);
  else if (!st)
    st = psgi_eval_op_within(ctx, op, call->u.attrs, args, types, nargs, &limit, &v, msg, sizeof msg);
  if (!st && known && !psgi_eval_budget_take_value(ctx, &limit, known, v, msg, sizeof msg))
    st = PSG_ERR_UNSUPPORTED; /* a result sized by the values (a dynamic dim in its type) */
  if (!st) st = psgi_value_to_expr(ctx, v, psgi_expr_span_ref(call), out);
  /* The new constant's type, final as a constant's is (so it is not interned
   * again when it is an argument, nor visited by InferType). */
  if (!st && (*out)->kind == PSG_EXPR_CONSTANT) {
    const psg_type *t = known ? known : NULL;
    if (!t || !tensor_has_type((*out)->u.constant, t)) t = psg_tensor_type(ctx, (*out)->u.constant);
    if (t) psgi_expr_set_final_type(*out, t);
  }
  psgi_value_release(v);
  for (size_t i = 0; i < made; i++)
    if (i >= 16 || args[i] != &stack[i]) psgi_value_release(args[i]);
  if (args != small) psgi_free(ctx, args);
  if (types != small_types) psgi_free(ctx, types);
  if (st) {
    /* Named as in the printed input: "in @main, %3 = divide(...) not folded".
     * Naming prints the function, so only the first few warnings get names. */
    char bound[64] = "";
    if (fo->warnings++ < 16 && psgi_print_binding_name(ctx, fo->fn, call, bound + 1, sizeof bound - 4)) {
      bound[0] = '%';
      strcat(bound, " = ");
    }
    if (st == PSG_ERR_NOMEM) /* the pass fails: an error at the call, not an unlocated "out of memory" */
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, st, psgi_span_where(psgi_expr_span_ref(call)), psgi_expr_span_ref(call)->line, psgi_expr_span_ref(call)->col,
                           NULL, 0, NULL, "in @%s, %s%s(...): out of memory evaluating the call", fo->fn_name, bound,
                           psg_op_name(call->kids[0]));
    psgi_diag_add(ctx, PSG_SEVERITY_WARNING, PSG_OK, psgi_span_where(psgi_expr_span_ref(call)), psgi_expr_span_ref(call)->line, psgi_expr_span_ref(call)->col, NULL, 0,
                  "FoldConstant", "in @%s, %s%s(...) not folded: %s", fo->fn_name, bound,
                  psg_op_name(call->kids[0]), msg[0] ? msg : psg_status_str(st));
    psg_expr_release(*out);
    *out = NULL;
  }
  return PSG_OK;
}

/* Rules 2-4 and 7 for an op callee: whether a call of it with constant
 * arguments is evaluated (shape_of and ndarray_size: rules 5-6 instead). */
static bool evaluates(const psg_expr *callee) {
  if (callee->kind != PSG_EXPR_OP) return false;
  const psgi_op_impl *impl = psgi_op_impl_in(callee->ctx, callee->u.op);
  if (impl && impl->stateful) return false;
  if (op_is(callee, rule_op(OP_SHAPE_OF)) || op_is(callee, rule_op(OP_NDARRAY_SIZE)) ||
      op_is(callee, rule_op(OP_DEVICE_COPY)) || op_is(callee, rule_op(OP_ON_DEVICE)))
    return false;
  const char *name = psg_op_name(callee);
  return name[0] != 'a' || strncmp(name, "annotation.", 11) != 0;
}

static psg_status fold_call(psg_mutator *m, const psg_expr *call, psg_expr **out) {
  folder *fo = folder_of(m);
  if (m == &fo->frozen) {
    /* Rule 1: inside a Primitive function calls are not folded. */
    psg_expr_retain((psg_expr *)call);
    *out = (psg_expr *)call;
    return PSG_OK;
  }
  /* Rules 2-4, 7, 9 and 10 on the rewritten arguments, before the call is
   * rebuilt over them: a call that folds is never rebuilt. (An Op callee is
   * its own rewrite.) */
  size_t nargs = call->nkids - 1;
  psg_status st;
  bool evaluated = nargs > 0 && evaluates(call->kids[0]); /* the op, which the rebuild keeps */
  if (evaluated && nargs <= 16) {
    psg_expr *kids[16];
    bool constant = true;
    for (size_t i = 0; i < nargs && constant; i++) {
      kids[i] = psg_mutator_get_result(m, call->kids[i + 1]);
      constant = kids[i] && is_complex_constant(fo, kids[i]);
    }
    if (constant) {
      if ((st = evaluate(fo, call, kids, nargs, out)) || *out) return st;
    }
  }
  psg_expr *post;
  st = psg_mutator_default(m, call, &post);
  if (st) return st;
  const psg_expr *callee = post->kids[0];
  nargs = post->nkids - 1;
  const psgi_op_impl *impl = callee->kind == PSG_EXPR_OP ? psgi_op_impl_in(callee->ctx, callee->u.op) : NULL;
  /* Rules 2-4. */
  if (nargs == 0 || callee->kind != PSG_EXPR_OP || (impl && impl->stateful)) goto keep;
  /* Rules 5-6: the ORIGINAL argument's type, if statically known. */
  bool is_shape_of = op_is(callee, rule_op(OP_SHAPE_OF)), is_size = op_is(callee, rule_op(OP_NDARRAY_SIZE));
  if (is_shape_of || is_size) {
    const psg_type *t = psg_expr_checked_type(call->kids[1]);
    if (t && t->kind == PSG_TYPE_TENSOR && psg_type_is_static(t)) {
      const char *dt = psgi_attr_str(post->u.attrs, "dtype", "int32");
      int dtype = psg_dtype_from_name(dt, strlen(dt));
      if (dtype == PSG_DTYPE_INVALID) goto keep; /* InferType reports it */
      psg_expr *c = NULL;
      st = shape_constant(m->ctx, t, is_size, dtype, psgi_expr_span_ref(post), &c);
      if (st == PSG_OK) {
        psg_expr_release(post);
        *out = c;
        return PSG_OK;
      }
      if (st == PSG_ERR_NOMEM) goto fail;
    }
    goto keep; /* rule 8: dynamic shapes stay */
  }
  /* Rules 7-8 (non-computational ops and device_copy), and the calls the
   * first try above did not fold: more than 16 arguments (the others failed
   * or have a non-constant argument, and stay). */
  if (!evaluated || nargs <= 16) goto keep;
  /* Rule 9. */
  for (size_t i = 0; i < nargs; i++)
    if (!is_complex_constant(fo, post->kids[i + 1])) goto keep;
  /* Rule 10. */
  st = evaluate(fo, call, post->kids + 1, nargs, out);
  if (st || *out) {
    psg_expr_release(post);
    return st;
  }
keep:
  *out = post;
  return PSG_OK;
fail:
  psg_expr_release(post);
  return st;
}

/* Let: when the value folded to a simple constant, uses of the variable
 * become that constant (bound before the body is visited) and the binding is
 * dropped. */
static psg_status bind_let(psg_mutator *m, const psg_expr *let, size_t index) {
  /* Not inside Primitive functions: their calls are frozen, so a use of the
   * variable would stay in a kept call after the binding went (TVM drops it
   * and leaves the variable unbound). */
  if (let->kind != PSG_EXPR_LET || index != 2 || m == &folder_of(m)->frozen) return PSG_OK;
  psg_expr *value = psg_mutator_get_result(m, let->kids[1]);
  if (value && is_simple_constant(value)) return psg_mutator_set_result(m, let->kids[0], value);
  return PSG_OK;
}

static psg_status fold_let(psg_mutator *m, const psg_expr *let, psg_expr **out) {
  psg_expr *var = psg_mutator_get_result(m, let->kids[0]);
  if (var && var->kind != PSG_EXPR_VAR) {
    psg_expr *body = psg_mutator_get_result(m, let->kids[2]);
    psg_expr_retain(body);
    *out = body;
    return PSG_OK;
  }
  return psg_mutator_default(m, let, out);
}

static psg_status fold_tuple_get_item(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, e, &post);
  if (st) return st;
  const psg_expr *t = post->kids[0];
  const psg_expr *inner = strip_on_device(t);
  if (inner->kind == PSG_EXPR_TUPLE && (uint32_t)post->u.index < inner->nkids) {
    psg_expr *field = inner->kids[post->u.index];
    if (is_on_device(t)) {
      /* on_device(tuple).i: the field keeps the tuple's device annotation. */
      psg_expr *wrapped = NULL;
      st = psg_call_create(m->ctx, t->kids[0], &field, 1, t->u.attrs, psgi_expr_span_ref(t), &wrapped);
      psg_expr_release(post);
      *out = wrapped;
      return st;
    }
    psg_expr_retain(field);
    psg_expr_release(post);
    *out = field;
    return PSG_OK;
  }
  *out = post;
  return PSG_OK;
}

static psg_status fold_if(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, e, &post);
  if (st) return st;
  const psg_expr *cond = strip_on_device(post->kids[0]);
  if (cond->kind == PSG_EXPR_CONSTANT && psg_tensor_nbytes(cond->u.constant) > 0) {
    /* TVM tests the first byte of the condition's data (quirk 7); for the
     * bool scalars conditions are, that is the value. */
    bool taken = *(const uint8_t *)psg_tensor_data(cond->u.constant) != 0;
    psg_expr *branch = post->kids[taken ? 1 : 2];
    psg_expr_retain(branch);
    psg_expr_release(post);
    *out = branch;
    return PSG_OK;
  }
  *out = post;
  return PSG_OK;
}

static bool is_primitive(const psg_expr *f) {
  psg_attr *a = psg_attrs_get(f->u.fn.attrs, "Primitive");
  return a && psg_attr_get_int(a) != 0;
}

/* A Primitive function is rewritten by the frozen mutator (calls kept). */
static psg_status pre_function(psg_mutator *m, const psg_expr *e, psg_expr **replacement) {
  if (psgi_is_composite_fn(e)) { /* kept as it is (docs/design.md, departure 19) */
    psg_expr_retain((psg_expr *)e);
    *replacement = (psg_expr *)e;
    return PSG_OK;
  }
  folder *fo = folder_of(m);
  if (m == &fo->frozen || e->kind != PSG_EXPR_FUNCTION || !is_primitive(e)) return PSG_OK;
  return psg_mutate(&fo->frozen, e, replacement);
}

static void folder_init(folder *fo, psg_ctx *ctx, const char *fn_name, const psg_expr *fn) {
  psg_mutator *ms[2] = {&fo->m, &fo->frozen};
  for (int i = 0; i < 2; i++) {
    psg_mutator_init(ms[i], ctx);
    ms[i]->user = fo;
    ms[i]->visit[PSG_EXPR_CALL] = fold_call;
    ms[i]->visit[PSG_EXPR_LET] = fold_let;
    ms[i]->visit[PSG_EXPR_TUPLE_GET_ITEM] = fold_tuple_get_item;
    ms[i]->visit[PSG_EXPR_IF] = fold_if;
    ms[i]->before_child = bind_let;
    ms[i]->pre = pre_function;
  }
  psgi_map_init(&fo->constant_memo, ctx);
  fo->fn_name = fn_name;
  fo->fn = fn;
  fo->warnings = 0;
}

static void folder_fini(folder *fo) {
  psg_mutator_fini(&fo->m);
  psg_mutator_fini(&fo->frozen);
  psgi_map_fini(&fo->constant_memo);
}

/* Pre-scan: whether a rule could fire anywhere in root. A rule changes a
 * node only when it starts from constants already there: a call of an op
 * whose arguments are all constants or tuples (or shape_of/ndarray_size), an
 * If on a constant, a TupleGetItem of a tuple literal, a Let of a constant;
 * anything else changes only once one of those has. Without any, the
 * function is returned as it is, no rewrite walk (as psg_mutate would return
 * it, rebuilding nothing). Conservative: a match may still change nothing. */
static bool node_may_change(const psg_expr *e) {
  switch (e->kind) {
  case PSG_EXPR_CALL: {
    const psg_expr *callee = e->kids[0];
    if (callee->kind != PSG_EXPR_OP || e->nkids < 2) return false;
    if (op_is(callee, rule_op(OP_SHAPE_OF)) || op_is(callee, rule_op(OP_NDARRAY_SIZE))) return true;
    for (uint32_t i = 1; i < e->nkids; i++) {
      int k = strip_on_device(e->kids[i])->kind;
      if (k != PSG_EXPR_CONSTANT && k != PSG_EXPR_TUPLE) return false;
    }
    return true;
  }
  case PSG_EXPR_IF: return strip_on_device(e->kids[0])->kind == PSG_EXPR_CONSTANT;
  case PSG_EXPR_TUPLE_GET_ITEM: return strip_on_device(e->kids[0])->kind == PSG_EXPR_TUPLE;
  case PSG_EXPR_LET: return strip_on_device(e->kids[1])->kind == PSG_EXPR_CONSTANT;
  default: return false;
  }
}

static psg_status may_change(psg_ctx *ctx, const psg_expr *root, bool *out) {
  *out = false;
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  /* Sized by the last walk (a hint) for the nodes reached more than once:
   * a quarter, as psgi_rewrite_inner's memo. */
  psgi_map_reserve(&seen, psgi_expr_size_hint(root) / 4);
  PSGI_VEC(const psg_expr *) stack = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(ctx, &stack, root)) st = psgi_nomem(ctx);
  while (!st && stack.len && !*out) {
    const psg_expr *e = stack.data[--stack.len];
    *out = node_may_change(e);
    for (uint32_t i = 0; i < e->nkids && !st; i++) {
      const psg_expr *k = e->kids[i];
      if (k->kind == PSG_EXPR_OP || k->kind == PSG_EXPR_CONSTANT || k->kind == PSG_EXPR_VAR ||
          k->kind == PSG_EXPR_GLOBAL_VAR)
        continue; /* leaves no rule starts from */
      if (psgi_is_composite_fn(k)) continue; /* kept as it is */
      bool is_new = true; /* a node with one holder is reached once: not in `seen` */
      if ((!psgi_expr_held_once(k) && !psgi_map_put_ptr(&seen, k, &is_new)) ||
          (is_new && !PSGI_VEC_PUSH(ctx, &stack, k)))
        st = psgi_nomem(ctx);
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  return st;
}

static psg_status fold_function(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)user;
  bool changes;
  psg_status st = may_change(func->ctx, func, &changes);
  if (st) return st;
  if (!changes) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  const char *name = "?";
  for (size_t i = 0; i < mod->n; i++)
    if (mod->entries[i].func == func) name = mod->entries[i].gv->u.gvar.name;
  folder fo;
  folder_init(&fo, func->ctx, name, func);
  int64_t max_bytes = psg_pass_context_config_int(pc, "passage.max_constant_bytes");
  fo.max_constant_bytes = max_bytes > 0 ? (uint64_t)max_bytes : 0;
  st = psg_mutate(&fo.m, func, out);
  folder_fini(&fo);
  return st;
}

/* fold_qnn is TVM's switch for folding QNN ops; Passage has no QNN ops yet,
 * so it is accepted (and typed) for pipelines written for TVM. */
static const psg_pass_option options[] = {{"fold_qnn", PSG_CONFIG_BOOL, "false"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_fold_constant = {
    .name = "FoldConstant",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 2,
    .options = options,
    .help = "evaluate calls whose arguments are all constants",
    /* TVM's parser types what it parses, so FoldConstant always sees types
     * (shape_of of a static shape folds straight after parsing). */
    .needs = PSG_PROP_TYPED,
    .function = fold_function,
    .cacheable = true,
};
