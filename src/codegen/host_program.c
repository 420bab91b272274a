/* Passage — building the host program and its memory plan (host_program.h).
 *
 * One walk over @main with an explicit stack. A value of a Relay expression
 * is a list of tensor values (a tuple is flattened). Each If branch is a
 * scope: what a branch computes is memoized only inside it, so an expression
 * shared by both branches (or by a branch and the code after the If) is
 * computed where it is needed. Steps are numbered in program order with the
 * then-steps before the else-steps, so live intervals are plain intervals:
 * a value of one branch never meets one of the other, and a value from
 * before the If that a branch reads stays live over the whole branch.
 *
 * Results are placed, not copied, where possible: a branch's result computed
 * inside the branch lives in the If's result, and @main's results computed
 * by kernels live in the caller's output buffers; anything else (an input, a
 * constant, a value from before the If, the same value twice) is copied. */
#include <stdlib.h>
#include "codegen/host_program.h"
#include "codegen/memory_plan.h"
#include "passage/type.h"
#include "passage/op.h"

#define NONE UINT32_MAX

typedef struct memo_rec {
  uint32_t begin, n; /* into ids */
  uint32_t scope;
} memo_rec;

typedef struct frame {
  const psg_expr *e;
  uint32_t state;
  uint32_t dest0, ndest; /* If: its result values */
  uint32_t branch_step;  /* If: the IF or ELSE step of the branch being walked */
} frame;

typedef struct builder {
  psg_ctx *ctx;
  const psg_module *mod;
  psgi_host_program *p;
  psgi_scratch_fn scratch;
  psgi_map memo;        /* expr -> index + 1 into recs */
  PSGI_VEC(memo_rec) recs;
  PSGI_VEC(uint32_t) ids;
  PSGI_VEC(uint32_t) scopes; /* active scopes, innermost last */
  uint32_t next_scope;
  PSGI_VEC(frame) stack;
  PSGI_VEC(const psg_type *) leaves;
  psgi_map kernel_index; /* name -> kernel index + 1 */
} builder;

static psg_status fail_at(builder *b, const psg_expr *e, psg_status code, const char *fmt, const char *arg) {
  psg_span sp;
  psg_expr_span(e, &sp);
  return psgi_diag_add(b->ctx, PSG_SEVERITY_ERROR, code, sp.file, sp.line, sp.col, NULL, 0, NULL, fmt, arg);
}

uint32_t psgi_host_home(const psgi_host_program *p, uint32_t v) {
  while (p->values.data[v].kind == PSGI_VALUE_TEMP && p->values.data[v].alias != NONE) v = p->values.data[v].alias;
  return v;
}

/* The tensor leaves of `t`, in order, into b->leaves (cleared first). */
static psg_status flatten_type(builder *b, const psg_expr *e, const psg_type *t) {
  b->leaves.len = 0;
  if (!t) return fail_at(b, e, PSG_ERR_TYPE, "%s: the host graph is not typed (run InferType)", "compile");
  PSGI_VEC(const psg_type *) todo = {0};
  psg_status st = PSG_OK;
  if (!PSGI_VEC_PUSH(b->ctx, &todo, t)) return psgi_nomem(b->ctx);
  while (todo.len && !st) {
    const psg_type *x = todo.data[--todo.len];
    if (psg_type_kind(x) == PSG_TYPE_TUPLE) {
      for (int i = psg_type_num_fields(x); i-- > 0;)
        if (!PSGI_VEC_PUSH(b->ctx, &todo, psg_type_field(x, i))) st = psgi_nomem(b->ctx);
    } else if (psg_type_kind(x) == PSG_TYPE_TENSOR) {
      if (!psg_type_is_static(x)) st = fail_at(b, e, PSG_ERR_UNSUPPORTED, "%s: a tensor of dynamic shape in the host graph", "compile");
      else if (!PSGI_VEC_PUSH(b->ctx, &b->leaves, x)) st = psgi_nomem(b->ctx);
    } else {
      st = fail_at(b, e, PSG_ERR_UNSUPPORTED, "%s: a function value in the host graph", "compile");
    }
  }
  PSGI_VEC_FREE(b->ctx, &todo);
  return st;
}

static uint32_t type_width(const psg_type *t) {
  if (psg_type_kind(t) != PSG_TYPE_TUPLE) return 1;
  uint32_t n = 0;
  /* Tuples of tuples are rare in a host graph; a small explicit stack. */
  const psg_type *stack[256];
  int sp = 0;
  stack[sp++] = t;
  while (sp) {
    const psg_type *x = stack[--sp];
    if (psg_type_kind(x) != PSG_TYPE_TUPLE) {
      n++;
      continue;
    }
    for (int i = 0; i < psg_type_num_fields(x) && sp < 256; i++) stack[sp++] = psg_type_field(x, i);
  }
  return n;
}

static uint32_t new_value(builder *b, psgi_value_kind kind, const psg_type *t) {
  psgi_host_value v;
  memset(&v, 0, sizeof v);
  v.kind = kind;
  v.alias = v.plan = NONE;
  /* made by the step just pushed (a call's results and scratch, an If's values) */
  v.def = b->p->steps.len ? (uint32_t)b->p->steps.len - 1 : 0;
  v.last = v.def;
  v.scope = b->scopes.len ? b->scopes.data[b->scopes.len - 1] : 0;
  if (t) {
    v.dtype = psg_type_dtype(t);
    v.ndim = psg_type_ndim(t);
    int64_t n = 1;
    for (int i = 0; i < v.ndim; i++) n *= (v.shape[i] = psg_type_dim(t, i));
    v.bytes = (uint64_t)n * psg_dtype_size(v.dtype);
  } else {
    v.dtype = PSG_DTYPE_UINT8;
  }
  if (!PSGI_VEC_PUSH(b->ctx, &b->p->values, v)) return NONE;
  return (uint32_t)b->p->values.len - 1;
}

static void use(builder *b, uint32_t v) {
  psgi_host_value *x = &b->p->values.data[v];
  uint32_t at = (uint32_t)b->p->steps.len - 1;
  if (x->last < at) x->last = at;
}

/* The memo record of e if it is valid in the current scopes, else NULL. */
static memo_rec *lookup(builder *b, const psg_expr *e) {
  psgi_map_entry *me = psgi_map_get_ptr(&b->memo, e);
  if (!me) return NULL;
  memo_rec *r = &b->recs.data[(size_t)me->value - 1];
  if (r->scope == 0) return r;
  for (size_t i = 0; i < b->scopes.len; i++)
    if (b->scopes.data[i] == r->scope) return r;
  return NULL;
}

/* Records e -> ids[begin .. begin+n) in the current scope. */
static psg_status bind(builder *b, const psg_expr *e, uint32_t begin, uint32_t n) {
  memo_rec r = {begin, n, b->scopes.len ? b->scopes.data[b->scopes.len - 1] : 0};
  if (!PSGI_VEC_PUSH(b->ctx, &b->recs, r)) return psgi_nomem(b->ctx);
  psgi_map_entry *me = psgi_map_put_ptr(&b->memo, e, NULL);
  if (!me) return psgi_nomem(b->ctx);
  me->value = (void *)(uintptr_t)b->recs.len;
  return PSG_OK;
}

static bool push_id(builder *b, uint32_t v) { return PSGI_VEC_PUSH(b->ctx, &b->ids, v); }

static psg_status push_step(builder *b, psgi_host_step s) {
  return PSGI_VEC_PUSH(b->ctx, &b->p->steps, s) ? PSG_OK : psgi_nomem(b->ctx);
}

static psgi_host_step step_of(psgi_step_kind kind) {
  psgi_host_step s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.kernel = s.scratch = s.dst = s.src = s.cond = NONE;
  return s;
}

static psg_status copy_step(builder *b, uint32_t dst, uint32_t src) {
  psgi_host_step s = step_of(PSGI_STEP_COPY);
  s.dst = dst;
  s.src = src;
  psg_status st = push_step(b, s);
  if (!st) use(b, dst), use(b, src);
  return st;
}

/* Makes value `dst` hold `src` at the end of the current branch (scope
 * `scope`): src lives there if it was made in this branch and has no home
 * yet; else a copy. */
static psg_status place(builder *b, uint32_t dst, uint32_t src, uint32_t scope) {
  psgi_host_value *s = &b->p->values.data[src];
  if (s->kind == PSGI_VALUE_TEMP && s->alias == NONE && s->scope == scope && src != dst) {
    s->alias = dst;
    return PSG_OK;
  }
  return copy_step(b, dst, src);
}

static psg_status kernel_of(builder *b, const psg_expr *call, const psg_expr *gv, uint32_t *out) {
  const char *name = psg_global_var_name(gv);
  psgi_map_entry *me = psgi_map_get_str(&b->kernel_index, name, strlen(name));
  if (me) {
    *out = (uint32_t)(uintptr_t)me->value - 1;
    return PSG_OK;
  }
  psg_tir_prim_func *f = psg_module_lookup_prim_func(b->mod, name);
  if (!f) return fail_at(b, call, PSG_ERR_UNSUPPORTED, "call_lowered of @%s, which is not a PrimFunc of the module", name);
  psgi_host_kernel k = {psgi_intern(b->ctx, name, strlen(name)), f, b->scratch ? b->scratch(f) : 0};
  if (!k.name || !PSGI_VEC_PUSH(b->ctx, &b->p->kernels, k)) return psgi_nomem(b->ctx);
  me = psgi_map_put_str(&b->kernel_index, k.name, strlen(k.name), NULL);
  if (!me) return psgi_nomem(b->ctx);
  me->value = (void *)(uintptr_t)b->p->kernels.len;
  *out = (uint32_t)b->p->kernels.len - 1;
  return PSG_OK;
}

static psg_status visit_call(builder *b, const psg_expr *e) {
  psg_expr *gv = psg_call_get_arg(e, 0);
  memo_rec *in = lookup(b, psg_call_get_arg(e, 1));
  uint32_t k = 0;
  psg_status st = kernel_of(b, e, gv, &k);
  if (st) return st;
  const psg_tir_prim_func *f = b->p->kernels.data[k].func;
  if ((st = flatten_type(b, e, psg_expr_checked_type(e))) != PSG_OK) return st;
  uint32_t nin = in->n, nout = (uint32_t)b->leaves.len;
  if (psg_tir_prim_func_num_params(f) != (size_t)nin + nout)
    return fail_at(b, e, PSG_ERR_UNSUPPORTED, "call_lowered of @%s: the arguments and results do not match its params",
                   b->p->kernels.data[k].name);
  psgi_host_step s = step_of(PSGI_STEP_CALL);
  s.kernel = k;
  s.nin = nin;
  s.nout = nout;
  s.arg0 = (uint32_t)b->p->args.len;
  if ((st = push_step(b, s)) != PSG_OK) return st;
  psgi_host_step *sp = &b->p->steps.data[b->p->steps.len - 1];
  for (uint32_t i = 0; i < nin; i++) {
    uint32_t v = b->ids.data[in->begin + i];
    if (!PSGI_VEC_PUSH(b->ctx, &b->p->args, v)) return psgi_nomem(b->ctx);
    use(b, v);
  }
  uint32_t begin = (uint32_t)b->ids.len;
  for (uint32_t i = 0; i < nout; i++) {
    uint32_t v = new_value(b, PSGI_VALUE_TEMP, b->leaves.data[i]);
    if (v == NONE || !PSGI_VEC_PUSH(b->ctx, &b->p->args, v) || !push_id(b, v)) return psgi_nomem(b->ctx);
  }
  uint64_t scratch = b->p->kernels.data[k].scratch_bytes;
  if (scratch) {
    uint32_t v = new_value(b, PSGI_VALUE_SCRATCH, NULL);
    if (v == NONE) return psgi_nomem(b->ctx);
    b->p->values.data[v].bytes = scratch;
    sp = &b->p->steps.data[b->p->steps.len - 1];
    sp->scratch = v;
  }
  b->p->num_calls++;
  return bind(b, e, begin, nout);
}

static psg_status push_frame(builder *b, const psg_expr *e) {
  frame f = {e, 0, 0, 0, 0};
  return PSGI_VEC_PUSH(b->ctx, &b->stack, f) ? PSG_OK : psgi_nomem(b->ctx);
}

static psg_status open_scope(builder *b) {
  return PSGI_VEC_PUSH(b->ctx, &b->scopes, ++b->next_scope) ? PSG_OK : psgi_nomem(b->ctx);
}

/* One step of the walk on the top frame. */
static psg_status visit(builder *b) {
  frame *f = &b->stack.data[b->stack.len - 1];
  const psg_expr *e = f->e;
  if (f->state == 0 && lookup(b, e)) {
    b->stack.len--;
    return PSG_OK;
  }
  psg_status st = PSG_OK;
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_VAR:
    return fail_at(b, e, PSG_ERR_INTERNAL, "compile: unbound variable %%%s in the host graph", psg_var_name(e));
  case PSG_EXPR_CONSTANT: {
    psg_ctx *ctx = b->ctx;
    psg_tensor *t = psg_constant_get_tensor(e);
    const psg_type *ty = psg_tensor_type(ctx, t);
    if (!ty) return psgi_nomem(ctx);
    uint32_t v = new_value(b, PSGI_VALUE_CONST, ty);
    if (v == NONE || !PSGI_VEC_PUSH(ctx, &b->p->consts, t)) return psgi_nomem(ctx);
    psg_tensor_retain(t);
    b->p->values.data[v].index = (uint32_t)b->p->consts.len - 1;
    uint32_t begin = (uint32_t)b->ids.len;
    if (!push_id(b, v)) return psgi_nomem(ctx);
    b->stack.len--;
    return bind(b, e, begin, 1);
  }
  case PSG_EXPR_TUPLE:
    if (f->state < psg_tuple_size(e)) return push_frame(b, psg_tuple_get_field(e, f->state++));
    {
      uint32_t begin = (uint32_t)b->ids.len;
      for (size_t i = 0; i < psg_tuple_size(e); i++) {
        memo_rec r = *lookup(b, psg_tuple_get_field(e, i));
        for (uint32_t j = 0; j < r.n; j++)
          if (!push_id(b, b->ids.data[r.begin + j])) return psgi_nomem(b->ctx);
      }
      b->stack.len--;
      return bind(b, e, begin, (uint32_t)b->ids.len - begin);
    }
  case PSG_EXPR_TUPLE_GET_ITEM: {
    const psg_expr *tup = psg_tuple_get_item_get_tuple(e);
    if (f->state++ == 0) return push_frame(b, tup);
    const psg_type *t = psg_expr_checked_type(tup);
    int idx = psg_tuple_get_item_index(e);
    if (!t || psg_type_kind(t) != PSG_TYPE_TUPLE || idx < 0 || idx >= psg_type_num_fields(t))
      return fail_at(b, e, PSG_ERR_TYPE, "%s: TupleGetItem of an untyped or non-tuple value", "compile");
    uint32_t off = 0;
    for (int i = 0; i < idx; i++) off += type_width(psg_type_field(t, i));
    memo_rec r = *lookup(b, tup);
    b->stack.len--;
    return bind(b, e, r.begin + off, type_width(psg_type_field(t, idx)));
  }
  case PSG_EXPR_CALL: {
    psg_expr *callee = psg_call_get_callee(e);
    if (psg_expr_kind(callee) != PSG_EXPR_OP || strcmp(psg_op_name(callee), "call_lowered") ||
        psg_call_num_args(e) != 2 || psg_expr_kind(psg_call_get_arg(e, 0)) != PSG_EXPR_GLOBAL_VAR)
      return fail_at(b, e, PSG_ERR_UNSUPPORTED,
                     "%s: the host graph calls something other than call_lowered(@PrimFunc, (args)): lower it first "
                     "(passage opt --lower)",
                     "compile");
    if (f->state++ == 0) return push_frame(b, psg_call_get_arg(e, 1));
    b->stack.len--;
    return visit_call(b, e);
  }
  case PSG_EXPR_LET:
    if (f->state == 0) {
      f->state = 1;
      return push_frame(b, psg_let_get_value(e));
    }
    if (f->state == 1) {
      memo_rec r = *lookup(b, psg_let_get_value(e));
      if ((st = bind(b, psg_let_get_var(e), r.begin, r.n)) != PSG_OK) return st;
      f->state = 2;
      return push_frame(b, psg_let_get_body(e));
    }
    {
      memo_rec r = *lookup(b, psg_let_get_body(e));
      b->stack.len--;
      return bind(b, e, r.begin, r.n);
    }
  case PSG_EXPR_IF: {
    if (f->state == 0) {
      f->state = 1;
      return push_frame(b, psg_if_get_cond(e));
    }
    if (f->state == 1) {
      memo_rec c = *lookup(b, psg_if_get_cond(e));
      if (c.n != 1 || b->p->values.data[b->ids.data[c.begin]].ndim != 0)
        return fail_at(b, e, PSG_ERR_TYPE, "%s: an If condition that is not a 0-d tensor", "compile");
      if ((st = flatten_type(b, e, psg_expr_checked_type(e))) != PSG_OK) return st;
      psgi_host_step s = step_of(PSGI_STEP_IF);
      s.cond = b->ids.data[c.begin];
      if ((st = push_step(b, s)) != PSG_OK) return st;
      use(b, s.cond);
      uint32_t dest0 = NONE, nd = (uint32_t)b->leaves.len;
      for (uint32_t i = 0; i < nd; i++) {
        uint32_t v = new_value(b, PSGI_VALUE_TEMP, b->leaves.data[i]);
        if (v == NONE) return psgi_nomem(b->ctx);
        if (!i) dest0 = v;
      }
      f = &b->stack.data[b->stack.len - 1];
      f->dest0 = dest0;
      f->ndest = nd;
      f->branch_step = (uint32_t)b->p->steps.len - 1;
      f->state = 2;
      if ((st = open_scope(b)) != PSG_OK) return st;
      return push_frame(b, psg_if_get_then(e));
    }
    /* a branch is done: its result into the If's values */
    const psg_expr *branch = f->state == 2 ? psg_if_get_then(e) : psg_if_get_else(e);
    memo_rec r = *lookup(b, branch);
    uint32_t scope = b->scopes.data[b->scopes.len - 1], dest0 = f->dest0, nd = f->ndest;
    if (r.n != nd) return fail_at(b, e, PSG_ERR_TYPE, "%s: an If branch's value does not match the If's type", "compile");
    for (uint32_t i = 0; i < nd && !st; i++) st = place(b, dest0 + i, b->ids.data[r.begin + i], scope);
    if (st) return st;
    b->scopes.len--;
    f = &b->stack.data[b->stack.len - 1];
    if (f->state == 2) {
      if ((st = push_step(b, step_of(PSGI_STEP_ELSE))) != PSG_OK) return st;
      f->state = 3;
      if ((st = open_scope(b)) != PSG_OK) return st;
      return push_frame(b, psg_if_get_else(e));
    }
    if ((st = push_step(b, step_of(PSGI_STEP_ENDIF))) != PSG_OK) return st;
    /* the If's values are written in both branches: alive from IF to here at least */
    for (uint32_t i = 0; i < nd; i++) use(b, dest0 + i);
    uint32_t begin = (uint32_t)b->ids.len;
    for (uint32_t i = 0; i < nd; i++)
      if (!push_id(b, dest0 + i)) return psgi_nomem(b->ctx);
    b->stack.len--;
    return bind(b, e, begin, nd);
  }
  case PSG_EXPR_GLOBAL_VAR:
  case PSG_EXPR_FUNCTION:
  case PSG_EXPR_OP:
    return fail_at(b, e, PSG_ERR_UNSUPPORTED, "%s: a function value in the host graph (only tensors and tuples)",
                   "compile");
  }
  return fail_at(b, e, PSG_ERR_INTERNAL, "%s: unknown expression kind", "compile");
}

/* The plan: one buffer per TEMP at home (its interval the union of those
 * living there) and per SCRATCH. */
static psg_status plan(builder *b) {
  psgi_host_program *p = b->p;
  size_t n = 0;
  for (size_t i = 0; i < p->values.len; i++) {
    psgi_host_value *v = &p->values.data[i];
    if ((v->kind == PSGI_VALUE_TEMP && v->alias == NONE) || v->kind == PSGI_VALUE_SCRATCH) v->plan = (uint32_t)n++;
  }
  p->num_buffers = n;
  p->buffers = psgi_calloc(b->ctx, psgi_mul_size(n ? n : 1, sizeof *p->buffers));
  if (!p->buffers) return psgi_nomem(b->ctx);
  for (size_t i = 0; i < p->values.len; i++) {
    psgi_host_value *v = &p->values.data[i];
    if (v->kind != PSGI_VALUE_TEMP && v->kind != PSGI_VALUE_SCRATCH) continue;
    psgi_host_value *h = &p->values.data[psgi_host_home(p, (uint32_t)i)];
    if (h->plan == NONE) continue; /* lives in an output */
    psgi_plan_buffer *pb = &p->buffers[h->plan];
    if (h == v) {
      pb->size = v->bytes;
      pb->first = v->def;
      pb->last = v->last;
    }
  }
  /* widen each home's interval by its members' */
  for (size_t i = 0; i < p->values.len; i++) {
    psgi_host_value *v = &p->values.data[i];
    if (v->kind != PSGI_VALUE_TEMP) continue;
    psgi_host_value *h = &p->values.data[psgi_host_home(p, (uint32_t)i)];
    if (h->plan == NONE) continue;
    psgi_plan_buffer *pb = &p->buffers[h->plan];
    if (v->def < pb->first) pb->first = v->def;
    if (v->last > pb->last) pb->last = v->last;
  }
  p->intermediate_bytes = 0;
  for (size_t i = 0; i < n; i++)
    p->intermediate_bytes += (p->buffers[i].size + PSGI_PLAN_ALIGN - 1) / PSGI_PLAN_ALIGN * PSGI_PLAN_ALIGN;
  return psgi_memory_plan(b->ctx, p->buffers, n, &p->workspace_bytes);
}

psg_status psgi_host_program_build(psg_ctx *ctx, const psg_module *mod, psgi_scratch_fn scratch,
                                   psgi_host_program *p) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  builder b;
  memset(&b, 0, sizeof b);
  b.ctx = ctx;
  b.mod = mod;
  b.p = p;
  b.scratch = scratch;
  psgi_map_init(&b.memo, ctx);
  psgi_map_init(&b.kernel_index, ctx);
  psg_status st = PSG_OK;
  psg_expr *main_fn = psg_module_lookup(mod, "main");
  if (!main_fn || psg_expr_kind(main_fn) != PSG_EXPR_FUNCTION) {
    st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "compile: the module has no Relay function @main");
    goto done;
  }
  for (size_t i = 0; i < psg_function_num_params(main_fn) && !st; i++) {
    psg_expr *param = psg_function_get_param(main_fn, i);
    const psg_type *t = psg_var_type(param);
    if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR || !psg_type_is_static(t)) {
      st = fail_at(&b, param, PSG_ERR_UNSUPPORTED,
                   "compile: parameter %%%s of @main is not a tensor of static shape (bind it: --input-shape)",
                   psg_var_name(param));
      break;
    }
    uint32_t v = new_value(&b, PSGI_VALUE_INPUT, t), begin = (uint32_t)b.ids.len;
    if (v == NONE || !push_id(&b, v) || !PSGI_VEC_PUSH(ctx, &p->inputs, v) ||
        !PSGI_VEC_PUSH(ctx, &p->input_names, psg_var_name(param))) {
      st = psgi_nomem(ctx);
      break;
    }
    p->values.data[v].index = (uint32_t)i;
    st = bind(&b, param, begin, 1);
  }
  const psg_expr *body = main_fn ? psg_function_get_body(main_fn) : NULL;
  if (!st) st = push_frame(&b, body);
  while (!st && b.stack.len) st = visit(&b);
  if (st) goto done;
  /* @main's results: placed in the output buffers, or copied there */
  memo_rec r = *lookup(&b, body);
  for (uint32_t i = 0; i < r.n && !st; i++) {
    uint32_t src = b.ids.data[r.begin + i];
    psgi_host_value sv = p->values.data[src];
    uint32_t o = new_value(&b, PSGI_VALUE_OUTPUT, NULL);
    if (o == NONE || !PSGI_VEC_PUSH(ctx, &p->outputs, o)) {
      st = psgi_nomem(ctx);
      break;
    }
    psgi_host_value *ov = &p->values.data[o];
    ov->index = i;
    ov->dtype = sv.dtype;
    ov->ndim = sv.ndim;
    memcpy(ov->shape, sv.shape, sizeof sv.shape);
    ov->bytes = sv.bytes;
    st = place(&b, o, src, 0);
  }
  if (!st) st = plan(&b);
done:
  psgi_map_fini(&b.memo);
  psgi_map_fini(&b.kernel_index);
  PSGI_VEC_FREE(ctx, &b.recs);
  PSGI_VEC_FREE(ctx, &b.ids);
  PSGI_VEC_FREE(ctx, &b.scopes);
  PSGI_VEC_FREE(ctx, &b.stack);
  PSGI_VEC_FREE(ctx, &b.leaves);
  if (st) psgi_host_program_fini(p);
  return st;
}

void psgi_host_program_fini(psgi_host_program *p) {
  psg_ctx *ctx = p->ctx;
  if (!ctx) return;
  for (size_t i = 0; i < p->consts.len; i++) psg_tensor_release(p->consts.data[i]);
  PSGI_VEC_FREE(ctx, &p->values);
  PSGI_VEC_FREE(ctx, &p->steps);
  PSGI_VEC_FREE(ctx, &p->args);
  PSGI_VEC_FREE(ctx, &p->kernels);
  PSGI_VEC_FREE(ctx, &p->consts);
  PSGI_VEC_FREE(ctx, &p->inputs);
  PSGI_VEC_FREE(ctx, &p->input_names);
  PSGI_VEC_FREE(ctx, &p->outputs);
  psgi_free(ctx, p->buffers);
  memset(p, 0, sizeof *p);
}
