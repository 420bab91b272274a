/* Passage — the reference interpreter (psg_eval): evaluates a Relay function
 * on tensors with the ops' kernels. Iterative: one explicit stack of frames
 * across function calls, so deep graphs, long let chains and deep recursion
 * never touch the C stack. `if` evaluates only the branch taken. Each
 * activation (a function call) has its own memo of node values, so shared
 * sub-expressions are computed once per call. Two limits bound what one
 * evaluation may cost: the number of activations (unbounded recursion is a
 * located error, not an exhausted machine) and the bytes of tensors the
 * operators produce (checked from the result's type before the kernel
 * allocates). psg_eval (src/pass/eval_limits.c) takes them from the current
 * PassContext; this layer knows nothing of pass contexts. */
#include <stdio.h>
#include <stdlib.h>
#include "interp/interp_internal.h"

/* No parent activation. */
enum { NO_PARENT = UINT32_MAX };

typedef struct activation {
  psgi_map memo;      /* expr -> psgi_value* (a reference held here) */
  const char *global; /* the global function running (a local one's: its caller's) */
  uint64_t serial;    /* unique in the evaluation: tells a live home activation from a reused index */
  uint32_t parent;    /* a local closure's home activation, when alive (below this one), or NO_PARENT */
} activation;

typedef struct frame {
  const psg_expr *e;
  uint32_t stage;  /* children done so far, or a per-kind step */
  uint32_t act;    /* index of the activation the node belongs to */
  bool called;     /* CALL of a closure: the callee's body is running */
} frame;

typedef struct interp {
  psg_ctx *ctx;
  const psg_module *mod;
  PSGI_VEC(activation) acts;
  PSGI_VEC(frame) stack;
  size_t max_depth;         /* relay.interp.max_call_depth: activations at most */
  uint64_t serials;         /* activations made so far */
  psgi_map homes;           /* closure value -> serial of the activation that made it */
  psgi_eval_budget budget;  /* passage.interp.max_bytes */
  uint64_t max_tir_steps;   /* passage.interp.max_steps, per call_lowered */
  char msg[512];
} interp;

/* The value of e in activation act, or in the activations its closure was
 * made in: a node of a local function's body that does not use the
 * function's parameters or its own lets (which are never bound there) has
 * the same value as where the closure was made, since the closure captured
 * the values of the variables it shares. Without this, a chain of closures
 * each using the one before recomputes the chain in every activation
 * (exponential in the program's length). */
static psgi_value *lookup(interp *in, uint32_t act, const psg_expr *e) {
  for (;;) {
    psgi_map_entry *en = psgi_map_get_ptr(&in->acts.data[act].memo, e);
    if (en) return en->value;
    if (in->acts.data[act].parent == NO_PARENT) return NULL;
    act = in->acts.data[act].parent;
  }
}

/* Stores v (reference taken over) as the value of e in act. */
static psg_status bind(interp *in, uint32_t act, const psg_expr *e, psgi_value *v) {
  psgi_map_entry *en = psgi_map_put_ptr(&in->acts.data[act].memo, e, NULL);
  if (!en) {
    psgi_value_release(v);
    return psgi_nomem(in->ctx);
  }
  psgi_value_release(en->value);
  en->value = v;
  return PSG_OK;
}

static psg_status push_activation(interp *in, const char *global, uint32_t parent, uint32_t *index) {
  activation a;
  psgi_map_init(&a.memo, in->ctx);
  a.global = global;
  a.serial = ++in->serials;
  a.parent = parent;
  if (!PSGI_VEC_PUSH(in->ctx, &in->acts, a)) return psgi_nomem(in->ctx);
  *index = (uint32_t)(in->acts.len - 1);
  return PSG_OK;
}

static void pop_activation(interp *in) {
  activation *a = &in->acts.data[--in->acts.len];
  for (size_t i = 0; i < a->memo.len; i++) psgi_value_release(a->memo.entries[i].value);
  psgi_map_fini(&a->memo);
}

static psg_status fail(interp *in, const psg_expr *e, psg_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static psg_status fail(interp *in, const psg_expr *e, psg_status st, const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return psgi_diag_add(in->ctx, PSG_SEVERITY_ERROR, st, psgi_span_where(psgi_expr_span_ref(e)), psgi_expr_span_ref(e)->line, psgi_expr_span_ref(e)->col, NULL, 0, NULL,
                       "%s", buf);
}

/* Whether a value of type `have` fits the annotation `want`: the same
 * structure, dtypes and ranks, equal dims where both are known. A closure
 * (no type) or a function annotation is not checked here. Types nest only as
 * deep as the program wrote them; past a generous depth they fit. */
static bool fits(const psg_type *want, const psg_type *have, int depth) {
  if (!want || !have || want == have || depth > 64) return true;
  /* Only tensors and tuples are checked: a type variable (a polymorphic
   * parameter), an ADT, a reference or a function fits what InferType let
   * through. */
  if (want->kind != PSG_TYPE_TENSOR && want->kind != PSG_TYPE_TUPLE) return true;
  if (want->kind != have->kind || want->n != have->n) return false;
  if (want->kind == PSG_TYPE_TENSOR) {
    if (want->dtype != have->dtype) return false;
    for (int i = 0; i < want->n; i++)
      if (want->dims[i] >= 0 && have->dims[i] >= 0 && want->dims[i] != have->dims[i]) return false;
    return true;
  }
  for (int i = 0; i < want->n; i++)
    if (!fits(want->fields[i], have->fields[i], depth + 1)) return false;
  return true;
}

/* "Tensor[(2, 3), float32]", "float32", "(T1, T2)": as InferType writes types. */
static void format_type(psgi_buf *b, const psg_type *t, int depth) {
  if (!t || depth > 64) {
    psgi_buf_puts(b, "?");
  } else if (t->kind == PSG_TYPE_TENSOR && t->n == 0) {
    psgi_buf_puts(b, psg_dtype_name(t->dtype));
  } else if (t->kind == PSG_TYPE_TENSOR) {
    psgi_buf_puts(b, "Tensor[(");
    for (int i = 0; i < t->n; i++) {
      if (t->dims[i] < 0) psgi_buf_printf(b, "%s?", i ? ", " : "");
      else psgi_buf_printf(b, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    }
    psgi_buf_printf(b, "), %s]", psg_dtype_name(t->dtype));
  } else if (t->kind == PSG_TYPE_TUPLE) {
    psgi_buf_putc(b, '(');
    for (int i = 0; i < t->n; i++) {
      if (i) psgi_buf_puts(b, ", ");
      format_type(b, t->fields[i], depth + 1);
    }
    psgi_buf_puts(b, t->n == 1 ? ",)" : ")");
  } else {
    psgi_buf_puts(b, "fn(...)");
  }
}

/* The interpreter trusts the types (psg_eval may be given a module that
 * never went through InferType): a function whose result contradicts its
 * return annotation is InferType's located error, not a wrongly shaped
 * output. `global` names the function (for a local one, its enclosing
 * global). */
static psg_status check_result(interp *in, const psg_expr *fn, const char *global, const psgi_value *v) {
  const psg_type *want = fn->u.fn.ret_type;
  if (!want || v->kind == PSGI_VALUE_CLOSURE) return PSG_OK;
  const psg_type *have = psgi_value_type(in->ctx, v);
  if (!have) return PSG_OK; /* a tuple holding a closure */
  if (fits(want, have, 0)) return PSG_OK;
  psgi_buf b;
  psgi_buf_init(&b, in->ctx);
  format_type(&b, have, 0);
  psgi_buf_puts(&b, " but the function is annotated ");
  format_type(&b, want, 0);
  psg_status st = fail(in, fn, PSG_ERR_TYPE, "in @%s, Function: the body has type %s", global,
                       b.data ? b.data : "?");
  psgi_buf_fini(&b);
  return st;
}

/* A closure for a Function literal: captures the values of its free
 * variables from the current activation. */
static psg_status make_closure(interp *in, uint32_t act, const psg_expr *fn, psgi_value **out) {
  psg_ctx *ctx = in->ctx;
  psgi_expr_vec fv = {0};
  psg_status st = psgi_free_vars(ctx, fn, &fv);
  psgi_value *v = NULL;
  if (!st && !(v = psgi_calloc(ctx, sizeof *v))) st = psgi_nomem(ctx);
  if (!st) {
    v->refcount = 1;
    v->kind = PSGI_VALUE_CLOSURE;
    v->ctx = ctx;
    v->u.closure.fn = (psg_expr *)fn;
    psg_expr_retain(v->u.closure.fn);
    size_t n = fv.len;
    v->u.closure.vars = psgi_calloc(ctx, (n ? n : 1) * sizeof(psg_expr *));
    v->u.closure.values = psgi_calloc(ctx, (n ? n : 1) * sizeof(psgi_value *));
    if (!v->u.closure.vars || !v->u.closure.values) st = psgi_nomem(ctx);
    for (size_t i = 0; !st && i < n; i++) {
      psgi_value *val = lookup(in, act, fv.data[i]);
      if (!val) {
        st = fail(in, fv.data[i], PSG_ERR_INVALID_ARGUMENT, "variable %%%s is not bound", fv.data[i]->u.var.name);
        break;
      }
      v->u.closure.vars[i] = fv.data[i];
      v->u.closure.values[i] = val;
      psgi_value_retain(val);
      v->u.closure.n = i + 1;
    }
  }
  PSGI_VEC_FREE(ctx, &fv);
  psgi_map_entry *en = st ? NULL : psgi_map_put_ptr(&in->homes, v, NULL);
  if (!st && !en) st = psgi_nomem(ctx);
  if (st) {
    psgi_value_release(v);
    return st;
  }
  en->value = (void *)(uintptr_t)in->acts.data[act].serial;
  *out = v;
  return PSG_OK;
}

/* The activation that made `closure` when it is still alive (serials grow
 * along the stack of activations: a binary search), else NO_PARENT. A
 * global function's closure is made in a scratch activation, gone at once. */
static uint32_t home_of(interp *in, const psgi_value *closure) {
  psgi_map_entry *en = psgi_map_get_ptr(&in->homes, closure);
  uint64_t serial = en ? (uint64_t)(uintptr_t)en->value : 0;
  size_t lo = 0, hi = in->acts.len;
  while (serial && lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (in->acts.data[mid].serial == serial) return (uint32_t)mid;
    if (in->acts.data[mid].serial < serial) lo = mid + 1;
    else hi = mid;
  }
  return NO_PARENT;
}

/* Starts a call of closure `callee` on `args`: a new activation with the
 * parameters and captures bound, and the body pushed. */
static psg_status enter_closure(interp *in, const psg_expr *call, psgi_value *callee, psgi_value *const *args,
                                size_t nargs) {
  const psg_expr *fn = callee->u.closure.fn;
  size_t nparams = fn->nkids - 1;
  if (nparams != nargs)
    return fail(in, call, PSG_ERR_TYPE, "the function takes %zu arguments, the call passes %zu", nparams, nargs);
  const psg_expr *target = call->kids[0];
  const char *caller = in->acts.data[in->acts.len - 1].global;
  /* Arguments against the parameters' annotations, as InferType checks them. */
  for (size_t i = 0; i < nargs; i++) {
    const psg_type *want = fn->kids[i]->u.var.type;
    const psg_type *have = want && args[i]->kind != PSGI_VALUE_CLOSURE ? psgi_value_type(in->ctx, args[i]) : NULL;
    if (fits(want, have, 0)) continue;
    psgi_buf b;
    psgi_buf_init(&b, in->ctx);
    format_type(&b, have, 0);
    psgi_buf_puts(&b, " where the function expects ");
    format_type(&b, want, 0);
    psg_status st = fail(in, call, PSG_ERR_TYPE, "in @%s, Call: argument %zu has type %s", caller, i,
                         b.data ? b.data : "?");
    psgi_buf_fini(&b);
    return st;
  }
  if (in->acts.len >= in->max_depth) {
    if (target->kind == PSG_EXPR_GLOBAL_VAR)
      return fail(in, call, PSG_ERR_UNSUPPORTED, "recursion limit %zu exceeded in @%s (relay.interp.max_call_depth)",
                  in->max_depth, target->u.gvar.name);
    return fail(in, call, PSG_ERR_UNSUPPORTED,
                "recursion limit %zu exceeded in a local function of @%s (relay.interp.max_call_depth)", in->max_depth,
                caller);
  }
  uint32_t act = 0;
  psg_status st = push_activation(in, target->kind == PSG_EXPR_GLOBAL_VAR ? target->u.gvar.name : caller,
                                  home_of(in, callee), &act);
  for (size_t i = 0; !st && i < callee->u.closure.n; i++) {
    psgi_value_retain(callee->u.closure.values[i]);
    st = bind(in, act, callee->u.closure.vars[i], callee->u.closure.values[i]);
  }
  for (size_t i = 0; !st && i < nargs; i++) {
    psgi_value_retain(args[i]);
    st = bind(in, act, fn->kids[i], args[i]);
  }
  frame f = {psgi_fn_body(fn), 0, act, false};
  if (!st && !PSGI_VEC_PUSH(in->ctx, &in->stack, f)) st = psgi_nomem(in->ctx);
  return st;
}

static psg_status global_closure(interp *in, const psg_expr *gv, psgi_value **out) {
  const psg_expr *f = psg_module_lookup(in->mod, gv->u.gvar.name);
  if (!f) return fail(in, gv, PSG_ERR_NOT_FOUND, "no function named @%s", gv->u.gvar.name);
  /* A global function has no free variables: a closure without captures. */
  uint32_t tmp = 0;
  psg_status st = push_activation(in, gv->u.gvar.name, NO_PARENT, &tmp);
  if (!st) st = make_closure(in, tmp, f, out);
  pop_activation(in);
  return st;
}

static bool is_call_lowered(const psg_expr *e) {
  static const char name[] = "call_lowered";
  return e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP &&
         !strcmp(psg_op_name(e->kids[0]), name);
}

/* Whether value v matches clause c's pattern of Match e; binds[] gets the
 * value of each pattern variable (borrowed), in the pattern's order. */
static psg_status pattern_matches(interp *in, const psg_expr *e, uint32_t c, psgi_value *v, psgi_value **binds,
                                  bool *ok) {
  const psgi_match_info *mi = e->u.match;
  PSGI_VEC(psgi_value *) want = {0};
  *ok = PSGI_VEC_PUSH(in->ctx, &want, v);
  if (!*ok) return psgi_nomem(in->ctx);
  size_t nb = 0;
  for (uint32_t i = mi->pat_start[c]; i < mi->pat_start[c + 1] && *ok; i++) {
    const psgi_pat_node *nd = &mi->pats[i];
    psgi_value *x = want.data[--want.len];
    if (nd->kind == PSG_PATTERN_VAR) binds[nb++] = x;
    if (nd->kind != PSG_PATTERN_CONSTRUCTOR && nd->kind != PSG_PATTERN_TUPLE) continue;
    if (nd->kind == PSG_PATTERN_CONSTRUCTOR)
      *ok = x->kind == PSGI_VALUE_ADT && x->u.tuple.n == nd->nsub && (x->u.tuple.ctor == nd->ctor ||
                                         (!strcmp(x->u.tuple.ctor->u.ctor.name, nd->ctor->u.ctor.name) &&
                                          !strcmp(x->u.tuple.ctor->u.ctor.belongs_to->name,
                                                  nd->ctor->u.ctor.belongs_to->name)));
    else
      *ok = x->kind == PSGI_VALUE_TUPLE && x->u.tuple.n == nd->nsub;
    for (size_t k = nd->nsub; *ok && k-- > 0;)
      if (!PSGI_VEC_PUSH(in->ctx, &want, x->u.tuple.items[k])) {
        PSGI_VEC_FREE(in->ctx, &want);
        return psgi_nomem(in->ctx);
      }
  }
  PSGI_VEC_FREE(in->ctx, &want);
  return PSG_OK;
}

/* A Match: its data, then the first clause whose pattern matches binds the
 * pattern's variables and gives the value (stage 2 + the clause's index). */
static psg_status step_match(interp *in, frame *f) {
  psg_ctx *ctx = in->ctx;
  const psg_expr *e = f->e;
  uint32_t act = f->act;
  const psgi_match_info *mi = e->u.match;
  if (f->stage == 0) {
    f->stage = 1;
    if (!lookup(in, act, e->kids[0])) {
      frame fc = {e->kids[0], 0, act, false};
      return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
    }
  }
  if (f->stage == 1) {
    psgi_value *data = lookup(in, act, e->kids[0]);
    psgi_value **binds = psgi_alloc(ctx, e->nkids * sizeof *binds);
    if (!binds) return psgi_nomem(ctx);
    psg_status st = PSG_OK;
    bool ok = false;
    uint32_t c = 0;
    for (; c < mi->nclauses && !st; c++)
      if (!(st = pattern_matches(in, e, c, data, binds, &ok)) && ok) break;
    for (uint32_t k = 0; !st && ok && mi->kid_start[c] + k + 1 < mi->kid_start[c + 1]; k++) {
      psgi_value_retain(binds[k]);
      st = bind(in, act, e->kids[mi->kid_start[c] + k], binds[k]);
    }
    psgi_free(ctx, binds);
    if (st) return st;
    if (!ok) return fail(in, e, PSG_ERR_INVALID_ARGUMENT, "%s", "match: no clause matches the value");
    f->stage = 2 + c;
    const psg_expr *rhs = e->kids[mi->kid_start[c + 1] - 1];
    if (!lookup(in, act, rhs)) {
      frame fc = {rhs, 0, act, false};
      return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
    }
  }
  psgi_value *v = lookup(in, act, e->kids[mi->kid_start[f->stage - 2 + 1] - 1]);
  psgi_value_retain(v);
  in->stack.len--;
  return bind(in, act, e, v);
}

/* One step for frame f (the top of the stack). */
static psg_status step(interp *in) {
  psg_ctx *ctx = in->ctx;
  frame *f = &in->stack.data[in->stack.len - 1];
  const psg_expr *e = f->e;
  uint32_t act = f->act;
  if (lookup(in, act, e) && !f->called) {
    in->stack.len--;
    return PSG_OK;
  }
  psgi_value *v = NULL;
  psg_status st = PSG_OK;
  switch (e->kind) {
  case PSG_EXPR_VAR:
    return fail(in, e, PSG_ERR_INVALID_ARGUMENT, "variable %%%s is used before it is bound", e->u.var.name);
  case PSG_EXPR_CONSTANT: st = psgi_value_tensor(ctx, e->u.constant, &v); break;
  case PSG_EXPR_GLOBAL_VAR: st = global_closure(in, e, &v); break;
  case PSG_EXPR_OP:
    return fail(in, e, PSG_ERR_UNSUPPORTED, "operator '%s' used as a value (only calls to it are evaluable)",
                psg_op_name(e));
  case PSG_EXPR_FUNCTION: st = make_closure(in, act, e, &v); break;
  case PSG_EXPR_CONSTRUCTOR:
    return fail(in, e, PSG_ERR_UNSUPPORTED, "constructor %s used as a value (only calls to it are evaluable)",
                e->u.ctor.name);
  case PSG_EXPR_MATCH: return step_match(in, f);
  case PSG_EXPR_TUPLE:
  case PSG_EXPR_TUPLE_GET_ITEM:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE:
  case PSG_EXPR_CALL: {
    /* Children first (an op or constructor callee is not evaluated). */
    while (f->stage < e->nkids) {
      const psg_expr *k = e->kids[f->stage];
      if (e->kind == PSG_EXPR_CALL && f->stage == 0 && (k->kind == PSG_EXPR_OP || k->kind == PSG_EXPR_CONSTRUCTOR)) {
        f->stage++;
        continue;
      }
      /* call_lowered's @prim names a PrimFunc: it is not a value. */
      if (f->stage == 1 && is_call_lowered(e)) {
        f->stage++;
        continue;
      }
      if (lookup(in, act, k)) {
        f->stage++;
        continue;
      }
      frame fc = {k, 0, act, false};
      return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
    }
    if (e->kind == PSG_EXPR_TUPLE) {
      psgi_value *small[16] = {0}, **items = small;
      if (e->nkids > 16 && !(items = psgi_alloc(ctx, e->nkids * sizeof *items))) return psgi_nomem(ctx);
      for (uint32_t i = 0; i < e->nkids; i++) items[i] = lookup(in, act, e->kids[i]);
      st = psgi_value_tuple(ctx, items, e->nkids, &v);
      if (items != small) psgi_free(ctx, items);
      break;
    }
    if (e->kind >= PSG_EXPR_REF_CREATE) {
      psgi_value *r = lookup(in, act, e->kids[0]);
      if (e->kind == PSG_EXPR_REF_CREATE) {
        st = psgi_value_ref(ctx, r, &v);
      } else if (r->kind != PSGI_VALUE_REF) {
        return fail(in, e, PSG_ERR_TYPE, "%s of a value that is not a reference",
                    e->kind == PSG_EXPR_REF_READ ? "ref_read" : "ref_write");
      } else if (e->kind == PSG_EXPR_REF_READ) {
        v = r->u.ref;
        psgi_value_retain(v);
      } else {
        psgi_value *nv = lookup(in, act, e->kids[1]), *old = r->u.ref;
        psgi_value_retain(nv);
        r->u.ref = nv;
        psgi_value_release(old);
        st = psgi_value_tuple(ctx, NULL, 0, &v); /* ref_write is () */
      }
      break;
    }
    if (e->kind == PSG_EXPR_TUPLE_GET_ITEM) {
      psgi_value *t = lookup(in, act, e->kids[0]);
      if (t->kind != PSGI_VALUE_TUPLE || (size_t)e->u.index >= t->u.tuple.n)
        return fail(in, e, PSG_ERR_TYPE, "tuple index %d out of range", e->u.index);
      v = t->u.tuple.items[e->u.index];
      psgi_value_retain(v);
      break;
    }
    /* CALL */
    size_t nargs = e->nkids - 1;
    psgi_value *small[16] = {0}, **args = small;
    if (nargs > 16 && !(args = psgi_alloc(ctx, nargs * sizeof *args))) return psgi_nomem(ctx);
    for (size_t i = 0; i < nargs; i++) args[i] = lookup(in, act, e->kids[i + 1]);
    const psg_expr *callee = e->kids[0];
    if (is_call_lowered(e)) {
      if (nargs != 2) {
        st = fail(in, e, PSG_ERR_TYPE, "call_lowered takes 2 arguments, %zu given", nargs);
      } else if ((st = psgi_eval_call_lowered(ctx, in->mod, e, args[1], &in->budget, in->max_tir_steps, &v, in->msg,
                                                sizeof in->msg)) &&
                 st != PSG_ERR_NOMEM) {
        st = fail(in, e, st, "call_lowered: %s", in->msg);
      }
    } else if (callee->kind == PSG_EXPR_CONSTRUCTOR) {
      if (nargs != (size_t)callee->u.ctor.inputs->n)
        st = fail(in, e, PSG_ERR_TYPE, "constructor %s takes %d fields, %zu given", callee->u.ctor.name,
                  callee->u.ctor.inputs->n, nargs);
      else
        st = psgi_value_adt(ctx, (psg_expr *)callee, args, nargs, &v);
    } else if (callee->kind == PSG_EXPR_OP) {
      st = psgi_eval_op_within(ctx, callee->u.op, e->u.attrs, args, NULL, nargs, &in->budget, &v, in->msg,
                               sizeof in->msg);
      if (st && st != PSG_ERR_NOMEM) {
        /* "divide: integer division by zero": the op named once, whether or
         * not the kernel's message starts with its name. */
        const char *op = psg_op_name(callee);
        size_t n = strlen(op);
        bool named = !strncmp(in->msg, op, n) && in->msg[n] == ':';
        st = fail(in, e, st, "%s%s%s", named ? "" : op, named ? "" : ": ", in->msg);
      }
    } else if (!f->called) {
      psgi_value *fv = lookup(in, act, callee);
      if (fv->kind != PSGI_VALUE_CLOSURE) {
        st = fail(in, e, PSG_ERR_TYPE, "%s", "calling a value that is not a function");
      } else {
        f->called = true;
        st = enter_closure(in, e, fv, args, nargs);
      }
      if (args != small) psgi_free(ctx, args);
      return st; /* the body runs; this frame resumes when it is done */
    } else {
      /* The callee's body finished in the activation just above this one. */
      uint32_t callee_act = (uint32_t)in->acts.len - 1;
      const psg_expr *body = psgi_fn_body(lookup(in, act, callee)->u.closure.fn);
      v = lookup(in, callee_act, body);
      if ((st = check_result(in, lookup(in, act, callee)->u.closure.fn, in->acts.data[callee_act].global, v))) {
        if (args != small) psgi_free(ctx, args);
        return st;
      }
      psgi_value_retain(v);
      pop_activation(in);
      f = &in->stack.data[in->stack.len - 1];
      f->called = false;
    }
    if (args != small) psgi_free(ctx, args);
    break;
  }
  case PSG_EXPR_LET:
    /* Bind the value, then evaluate the body in the same activation: a let
     * chain is a loop over this frame, one stage per binding. */
    if (f->stage == 0) {
      f->stage = 1;
      if (!lookup(in, act, e->kids[1])) {
        frame fc = {e->kids[1], 0, act, false};
        return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
      }
    }
    if (f->stage == 1) {
      psgi_value *val = lookup(in, act, e->kids[1]);
      psgi_value_retain(val);
      if ((st = bind(in, act, e->kids[0], val)) != PSG_OK) return st;
      f->stage = 2;
      if (!lookup(in, act, e->kids[2])) {
        frame fc = {e->kids[2], 0, act, false};
        return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
      }
    }
    v = lookup(in, act, e->kids[2]);
    psgi_value_retain(v);
    break;
  case PSG_EXPR_IF:
    if (f->stage == 0) {
      f->stage = 1;
      if (!lookup(in, act, e->kids[0])) {
        frame fc = {e->kids[0], 0, act, false};
        return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
      }
    }
    {
      psgi_value *c = lookup(in, act, e->kids[0]);
      if (c->kind != PSGI_VALUE_TENSOR || psg_tensor_numel(c->u.tensor) != 1)
        return fail(in, e, PSG_ERR_TYPE, "%s", "the condition of an if must be a scalar");
      const psg_tensor *ct = c->u.tensor;
      bool taken = psg_tensor_dtype(ct) == PSG_DTYPE_BOOL ? *(const uint8_t *)psg_tensor_data(ct) != 0
                                                          : psg_tensor_nbytes(ct) && memcmp(psg_tensor_data(ct), "\0\0\0\0\0\0\0\0", psg_tensor_nbytes(ct)) != 0;
      const psg_expr *branch = e->kids[taken ? 1 : 2];
      if (f->stage == 1) {
        f->stage = 2;
        if (!lookup(in, act, branch)) {
          frame fc = {branch, 0, act, false};
          return PSGI_VEC_PUSH(ctx, &in->stack, fc) ? PSG_OK : psgi_nomem(ctx);
        }
      }
      v = lookup(in, act, branch);
      psgi_value_retain(v);
    }
    break;
  }
  if (st) return st;
  in->stack.len--;
  return bind(in, act, e, v);
}

typedef PSGI_VEC(psg_tensor *) tensor_vec;

/* Flattens a value into tensors, depth-first. */
static psg_status flatten(psg_ctx *ctx, const psgi_value *v, tensor_vec *out, int depth) {
  if (v->kind == PSGI_VALUE_TENSOR) {
    if (!PSGI_VEC_PUSH(ctx, out, v->u.tensor)) return psgi_nomem(ctx);
    psg_tensor_retain(v->u.tensor);
    return PSG_OK;
  }
  if (v->kind == PSGI_VALUE_CLOSURE || depth > 64)
    return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "the function returns a function; only tensors and tuples can be outputs");
  if (v->kind == PSGI_VALUE_ADT || v->kind == PSGI_VALUE_REF)
    return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "the function returns %s; only tensors and tuples can be outputs",
                        v->kind == PSGI_VALUE_REF ? "a reference" : "an ADT value");
  for (size_t i = 0; i < v->u.tuple.n; i++) {
    psg_status st = flatten(ctx, v->u.tuple.items[i], out, depth + 1);
    if (st) return st;
  }
  return PSG_OK;
}

static psg_status check_input(psg_ctx *ctx, const psg_expr *param, const psg_tensor *t) {
  const psg_type *want = param->u.var.type;
  if (!want || want->kind != PSG_TYPE_TENSOR) return PSG_OK;
  bool ok = want->dtype == t->dtype && want->n == t->ndim;
  for (int i = 0; ok && i < t->ndim; i++) ok = want->dims[i] < 0 || want->dims[i] == t->shape[i];
  if (ok) return PSG_OK;
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  psgi_buf_printf(&b, "input %%%s: expected %s of shape (", param->u.var.name, psg_dtype_name(want->dtype));
  for (int i = 0; i < want->n; i++) {
    if (want->dims[i] < 0) psgi_buf_printf(&b, "%s?", i ? ", " : "");
    else psgi_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)want->dims[i]);
  }
  psgi_buf_printf(&b, "), got %s of shape (", psg_dtype_name(t->dtype));
  for (int i = 0; i < t->ndim; i++) psgi_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
  psgi_buf_putc(&b, ')');
  psg_status st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "%s", b.data ? b.data : "input mismatch");
  psgi_buf_fini(&b);
  return st;
}

psg_status psgi_eval_limited(psg_ctx *ctx, const psg_module *mod, const char *name, psg_tensor *const *inputs,
                             size_t num_inputs, const psgi_eval_limits *limits, psg_tensor ***outputs,
                             size_t *num_outputs) {
  *outputs = NULL;
  *num_outputs = 0;
  const psg_expr *fn = name ? psg_module_lookup(mod, name) : NULL;
  if (!fn) return psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND, "no function named @%s to evaluate", name ? name : "");
  if (fn->kind != PSG_EXPR_FUNCTION) return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "@%s is not a Relay function", name);
  size_t nparams = fn->nkids - 1;
  if (num_inputs != nparams)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "@%s takes %zu inputs, %zu given", name, nparams, num_inputs);
  for (size_t i = 0; i < nparams; i++) {
    psg_status st = check_input(ctx, fn->kids[i], inputs[i]);
    if (st) return st;
  }
  interp in;
  memset(&in, 0, sizeof in);
  in.ctx = ctx;
  in.mod = mod;
  in.max_depth = limits->max_depth ? limits->max_depth : 1;
  in.budget = (psgi_eval_budget){limits->max_bytes, 0, "passage.interp.max_bytes"};
  in.max_tir_steps = limits->max_tir_steps ? limits->max_tir_steps : 1;
  psgi_map_init(&in.homes, ctx);
  uint32_t act = 0;
  psg_status st = push_activation(&in, name, NO_PARENT, &act);
  for (size_t i = 0; !st && i < nparams; i++) {
    psgi_value *v;
    st = psgi_value_tensor(ctx, inputs[i], &v);
    if (!st) st = bind(&in, act, fn->kids[i], v);
  }
  frame f0 = {psgi_fn_body(fn), 0, act, false};
  if (!st && !PSGI_VEC_PUSH(ctx, &in.stack, f0)) st = psgi_nomem(ctx);
  while (!st && in.stack.len) st = step(&in);
  tensor_vec outs = {0};
  if (!st) st = check_result(&in, fn, name, lookup(&in, act, psgi_fn_body(fn)));
  if (!st) st = flatten(ctx, lookup(&in, act, psgi_fn_body(fn)), &outs, 0);
  while (in.acts.len) pop_activation(&in);
  PSGI_VEC_FREE(ctx, &in.acts);
  PSGI_VEC_FREE(ctx, &in.stack);
  psgi_map_fini(&in.homes);
  if (!st) {
    /* Results leave through psg_free (libc). */
    psg_tensor **arr = malloc((outs.len ? outs.len : 1) * sizeof *arr);
    if (!arr) st = psgi_nomem(ctx);
    for (size_t i = 0; arr && i < outs.len; i++) arr[i] = outs.data[i];
    if (arr) {
      *outputs = arr;
      *num_outputs = outs.len;
      outs.len = 0;
    }
  }
  for (size_t i = 0; i < outs.len; i++) psg_tensor_release(outs.data[i]);
  PSGI_VEC_FREE(ctx, &outs);
  return st;
}
