/* Passage — InferType (tvm-behavior §4.3): a module pass (opt 0) that gives
 * every expression of every Relay function its checked type, using the ops'
 * type relations, and reports type errors with their location and the
 * function they occur in.
 *
 * Types are interned and nodes immutable, so the checked type is a write-once
 * cache on the node: InferType returns the very same module, typed. The walk
 * is iterative (explicit frames), so deep graphs and let chains are fine.
 *
 * A node whose type follows from its children alone, all of them final
 * themselves, is marked TYPE_FINAL (ir_internal.h): no GlobalVar and no
 * unannotated let variable below it, so no later module or binding can
 * change it. Later runs keep a final subtree without entering it, so after
 * a pass InferType costs what the pass rebuilt, not the whole function.
 * A function with unannotated parameters is first given their types by
 * unification (infer_type_unified.c) and rebuilt with them annotated; the
 * pass then returns a module holding the rebuilt functions. Let variables
 * without an annotation take their value's type. Last, the inferred return
 * and variable types are written in (infer_type_annotate.c, TVM's Resolver);
 * a fully annotated, typed module comes back as the very same module. */
#include <stdio.h>
#include "interp/interp_internal.h"
#include "ops/op_impl.h"
#include "text/text_internal.h"
#include "transforms/infer_type_internal.h"
#include "transforms/transforms.h"

typedef struct frame {
  const psg_expr *e;
  uint32_t next;
} frame;

typedef struct checker {
  psg_ctx *ctx;
  const psg_module *mod;
  psgi_map types;      /* expr -> const psg_type* for this run */
  psgi_map let_types;  /* unannotated let var -> type of its value */
  uint8_t *fn_state;   /* per module function: 0 todo, 1 in progress, 2 done, 3 failed */
  psg_expr **filled;   /* per module function: rebuilt with inferred parameter types (or NULL) */
  bool fill;           /* infer unannotated parameters (the pass) rather than refuse them */
  bool want_fill;      /* check_expr met an unannotated parameter to infer */
  const psg_expr *fn;  /* the def being checked (names in messages) */
  int errors;
} checker;

/* The function of module entry i as checked: the rebuilt one if any. */
static const psg_expr *entry_func(const checker *c, size_t i) {
  return c->filled && c->filled[i] ? c->filled[i] : c->mod->entries[i].func;
}

static const psg_type *type_of(checker *c, const psg_expr *e) {
  const psg_type *t = psgi_expr_final_type(e);
  if (t) return t;
  psgi_map_entry *en = psgi_map_get_ptr(&c->types, e);
  return en ? en->value : NULL;
}

/* Whether e's type, just inferred, is final: it depends on nothing but its
 * children (ops have no type and are final), and they are all final. A
 * Function without a return type is not (yet): InferType writes one in
 * (infer_type_annotate.c), so a final subtree has nothing left to write. */
static bool kids_final(const psg_expr *e) {
  for (uint32_t i = 0; i < e->nkids; i++) {
    const psg_expr *k = e->kids[i];
    if (k->kind != PSG_EXPR_OP && !psgi_expr_final_type(k)) return false;
  }
  return true;
}

bool psgi_infer_is_final(const psg_expr *e) {
  if (e->kind == PSG_EXPR_GLOBAL_VAR || e->kind == PSG_EXPR_CONSTRUCTOR) return false; /* typed by the module */
  if (e->kind == PSG_EXPR_VAR) return psgi_var_annotation(e) != NULL;
  if (e->kind == PSG_EXPR_FUNCTION && !e->u.fn.ret_type) return false;
  return kids_final(e);
}

/* Records a type error at e's span: "in @main, %3 = add(...): reason", where
 * %3 is the name the printed def gives e (its temp or let variable; none for
 * a block's result). Finding the name prints the def once, on errors only.
 * Without a def (psg_expr_infer_type, fn_name NULL) the message starts at
 * the node: "add(...): reason". */
static psg_status type_error(checker *c, const char *fn_name, const psg_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static psg_status type_error(checker *c, const char *fn_name, const psg_expr *e, const char *fmt, ...) {
  psgi_buf b;
  psgi_buf_init(&b, c->ctx);
  if (fn_name) psgi_buf_printf(&b, "in @%s, ", fn_name);
  char bound[64];
  if (c->fn && e->kind != PSG_EXPR_VAR && psgi_print_binding_name(c->ctx, c->fn, e, bound, sizeof bound))
    psgi_buf_printf(&b, "%%%s = ", bound);
  if (e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP)
    psgi_buf_printf(&b, "%s(...): ", psg_op_name(e->kids[0]));
  else if (e->kind != PSG_EXPR_VAR) /* a variable's message names it */
    psgi_buf_printf(&b, "%s: ", psgi_expr_kind_names[e->kind]);
  va_list ap;
  va_start(ap, fmt);
  psgi_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  psgi_diag_add(c->ctx, PSG_SEVERITY_ERROR, PSG_ERR_TYPE, psgi_span_where(psgi_expr_span_ref(e)), psgi_expr_span_ref(e)->line, psgi_expr_span_ref(e)->col, NULL, 0,
                "InferType", "%s", b.data ? b.data : "type error");
  psgi_buf_fini(&b);
  c->errors++;
  return PSG_ERR_TYPE;
}

/* A Function's type parameters as an array (NULL when none). */
static const psg_type *const *fn_tparams(const psg_expr *f) {
  return f->u.fn.tparams ? f->u.fn.tparams->fields : NULL;
}

static bool any_needs_unifier(const psg_type *const *ts, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (psgi_type_needs_unifier(ts[i])) return true;
  return false;
}

/* Equal, or equal but for dims unknown on either side. */
static bool compatible(const psg_type *a, const psg_type *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->n != b->n) return false;
  if (a->kind == PSG_TYPE_TENSOR) {
    if (a->dtype != b->dtype) return false;
    for (int i = 0; i < a->n; i++)
      if (a->dims[i] >= 0 && b->dims[i] >= 0 && a->dims[i] != b->dims[i]) return false;
    return true;
  }
  if (!a->fields || a->ntparams != b->ntparams) return false; /* type variables: only themselves */
  for (int i = 0; i < a->n; i++)
    if (!compatible(a->fields[i], b->fields[i])) return false;
  return !a->ret || compatible(a->ret, b->ret);
}

/* Whether a and b agree, through the unifier when either holds a hole or a
 * polymorphic function type (TVM's), else by `compatible`; *out (may be
 * NULL) is then their join. msg receives the unifier's reason. */
static psg_status agree(psg_ctx *ctx, const psg_type *a, const psg_type *b, const psg_type **out, char *msg,
                        size_t msg_len);

/* The type of an If whose branches have the compatible types a and b: a dim
 * is ? where either branch has ? (TVM's unifier), so the If promises only
 * what both branches guarantee. Recursive over tuple fields (types are
 * shallow: bounded by the nesting of the types written in the program). */
static psg_status join(psg_ctx *ctx, const psg_type *a, const psg_type *b, const psg_type **out) {
  *out = a;
  if (a == b || (a->kind != PSG_TYPE_TENSOR && a->kind != PSG_TYPE_TUPLE && a->kind != PSG_TYPE_FUNC)) return PSG_OK;
  if (a->kind == PSG_TYPE_TENSOR) {
    int64_t dims[PSG_MAX_RANK];
    for (int i = 0; i < a->n; i++) dims[i] = a->dims[i] == b->dims[i] ? a->dims[i] : -1;
    return psg_type_tensor(ctx, dims, a->n, a->dtype, out);
  }
  const psg_type *small[16] = {0}, **f = small;
  if (a->n > 16 && !(f = psgi_alloc(ctx, (size_t)a->n * sizeof *f))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (int i = 0; i < a->n && !st; i++) st = join(ctx, a->fields[i], b->fields[i], &f[i]);
  const psg_type *ret = a->ret;
  if (!st && a->kind == PSG_TYPE_FUNC) st = join(ctx, a->ret, b->ret, &ret);
  if (!st)
    st = a->kind == PSG_TYPE_FUNC ? psg_type_func(ctx, f, a->n, ret, out) : psg_type_tuple(ctx, f, a->n, out);
  if (f != small) psgi_free(ctx, f);
  return st;
}

static psg_status agree(psg_ctx *ctx, const psg_type *a, const psg_type *b, const psg_type **out, char *msg,
                        size_t msg_len) {
  msg[0] = 0;
  if (psgi_type_needs_unifier(a) || psgi_type_needs_unifier(b)) {
    const psg_type *u = NULL;
    psg_status st = psgi_unify_pair(ctx, a, b, &u, msg, msg_len);
    if (!st && out) *out = u;
    return st;
  }
  if (!compatible(a, b)) return PSG_ERR_TYPE;
  return out ? join(ctx, a, b, out) : PSG_OK;
}

static psg_status check_function(checker *c, size_t index);

/* The type of global function `name`, typing it first if needed. Calls
 * between globals recurse once per function (bounded by the module size). */
static psg_status global_type(checker *c, const char *fn_name, const psg_expr *gv, const psg_type **out) {
  ptrdiff_t i = psg_module_find(c->mod, gv->u.gvar.name);
  if (i < 0) return type_error(c, fn_name, gv, "no function named @%s in the module", gv->u.gvar.name);
  const psg_expr *f = entry_func(c, (size_t)i);
  if (!f) {
    /* A PrimFunc: its buffers' types, for call_lowered (a direct call is
     * refused at the call). */
    char msg[256];
    psg_status st = psgi_prim_func_type(c->ctx, c->mod->entries[i].prim, out, msg, sizeof msg);
    if (st && st != PSG_ERR_NOMEM) return type_error(c, fn_name, gv, "@%s: %s", gv->u.gvar.name, msg);
    return st;
  }
  if (c->fn_state[i] == 1) {
    /* Recursive: the signature must be written down. */
    if (!f->u.fn.ret_type) return type_error(c, fn_name, gv, "recursive function @%s needs a return type annotation", gv->u.gvar.name);
  } else if (c->fn_state[i] == 0) {
    psg_status st = check_function(c, (size_t)i);
    if (st) return st;
  }
  if (c->fn_state[i] == 3) return type_error(c, fn_name, gv, "@%s does not type-check", gv->u.gvar.name);
  const psg_type *t = type_of(c, f);
  if (!t) {
    /* In progress with an annotated signature: build it from annotations. */
    const psg_type *small[16] = {0}, **params = small;
    size_t n = f->nkids - 1;
    if (n > 16 && !(params = psgi_alloc(c->ctx, n * sizeof *params))) return psgi_nomem(c->ctx);
    for (size_t k = 0; k < n; k++) params[k] = psgi_var_annotation(f->kids[k]);
    psg_status st = psg_type_func_poly(c->ctx, params, (int)n, f->u.fn.ret_type, fn_tparams(f),
                                       psg_function_num_type_params(f), &t);
    if (params != small) psgi_free(c->ctx, params);
    if (st) return st;
  }
  *out = t;
  return PSG_OK;
}

/* The type of node e whose children are typed. */
static psg_status infer_node(checker *c, const char *fn_name, const psg_expr *e, const psg_type **out) {
  psg_ctx *ctx = c->ctx;
  *out = NULL;
  switch (e->kind) {
  case PSG_EXPR_VAR: {
    const psg_type *t = psgi_var_annotation(e);
    if (!t) {
      psgi_map_entry *en = psgi_map_get_ptr(&c->let_types, e);
      t = en ? en->value : NULL;
    }
    if (!t && c->fill) {
      /* A let-bound function calling itself (TVM infers it): unification
       * (check_function) annotates the variable, then checks again. */
      c->want_fill = true;
      return PSG_ERR_TYPE;
    }
    if (!t) return type_error(c, fn_name, e, "variable %%%s has no type annotation", e->u.var.name);
    *out = t;
    return PSG_OK;
  }
  case PSG_EXPR_GLOBAL_VAR: return global_type(c, fn_name, e, out);
  case PSG_EXPR_CONSTANT:
    *out = psg_tensor_type(ctx, e->u.constant);
    return *out ? PSG_OK : psgi_nomem(ctx);
  case PSG_EXPR_OP: return PSG_OK; /* ops are typed at their calls */
  case PSG_EXPR_TUPLE: {
    const psg_type *small[16] = {0}, **f = small;
    if (e->nkids > 16 && !(f = psgi_alloc(ctx, e->nkids * sizeof *f))) return psgi_nomem(ctx);
    for (uint32_t i = 0; i < e->nkids; i++) f[i] = type_of(c, e->kids[i]);
    psg_status st = psg_type_tuple(ctx, f, (int)e->nkids, out);
    if (f != small) psgi_free(ctx, f);
    return st;
  }
  case PSG_EXPR_TUPLE_GET_ITEM: {
    const psg_type *t = type_of(c, e->kids[0]);
    if (t->kind != PSG_TYPE_TUPLE) return type_error(c, fn_name, e, "%s", "indexing a value that is not a tuple");
    if (e->u.index >= t->n)
      return type_error(c, fn_name, e, "index %d out of range for a tuple of %d fields", e->u.index, t->n);
    *out = t->fields[e->u.index];
    return PSG_OK;
  }
  case PSG_EXPR_CALL: {
    const psg_expr *callee = e->kids[0];
    size_t nargs = e->nkids - 1;
    const psg_type *small[16] = {0}, **args = small;
    if (nargs > 16 && !(args = psgi_alloc(ctx, nargs * sizeof *args))) return psgi_nomem(ctx);
    for (size_t i = 0; i < nargs; i++) args[i] = type_of(c, e->kids[i + 1]);
    psg_status st = PSG_OK;
    if (callee->kind == PSG_EXPR_OP) {
      const psgi_op_impl *impl = psgi_op_impl_in(ctx, callee->u.op);
      if (!impl || !impl->type_rel) {
        st = type_error(c, fn_name, e, "operator '%s' has no type relation", psg_op_name(callee));
      } else {
        psgi_op_call call = {.ctx = ctx, .op = callee->u.op, .attrs = e->u.attrs};
        st = impl->type_rel(&call, args, nargs, out);
        if (st == PSG_ERR_TYPE || (st && call.msg[0])) st = type_error(c, fn_name, e, "%s", call.msg[0] ? call.msg : "type error");
      }
    } else if (callee->kind == PSG_EXPR_GLOBAL_VAR && psg_module_lookup_prim_func(c->mod, callee->u.gvar.name)) {
      st = type_error(c, fn_name, e, "@%s is a PrimFunc: a Relay call cannot use it directly",
                      callee->u.gvar.name);
    } else {
      const psg_type *ft = type_of(c, callee);
      if (!ft || ft->kind != PSG_TYPE_FUNC) {
        st = type_error(c, fn_name, e, "%s", "calling a value that is not a function");
      } else if ((size_t)ft->n != nargs) {
        st = type_error(c, fn_name, e, "expected %d arguments, got %zu", ft->n, nargs);
      } else if (psgi_type_needs_unifier(ft) || any_needs_unifier(args, nargs)) {
        /* A polymorphic callee is instantiated (TVM's type arguments). */
        char msg[512];
        size_t bad = 0;
        st = psgi_unify_call(ctx, ft, args, nargs, out, msg, sizeof msg, &bad);
        if (st == PSG_ERR_TYPE) st = type_error(c, fn_name, e, "argument %zu: %s", bad, msg);
      } else {
        for (size_t i = 0; i < nargs && !st; i++)
          if (!compatible(ft->fields[i], args[i])) {
            psgi_buf b;
            psgi_buf_init(&b, ctx);
            psgi_type_format(&b, args[i]);
            psgi_buf_puts(&b, " where the function expects ");
            psgi_type_format(&b, ft->fields[i]);
            st = type_error(c, fn_name, e, "argument %zu has type %s", i, b.data ? b.data : "?");
            psgi_buf_fini(&b);
          }
        *out = ft->ret;
      }
    }
    if (args != small) psgi_free(ctx, args);
    return st;
  }
  case PSG_EXPR_LET: {
    const psg_type *ann = psgi_var_annotation(e->kids[0]), *val = type_of(c, e->kids[1]);
    char why[512];
    psg_status ag = ann ? agree(ctx, ann, val, NULL, why, sizeof why) : PSG_OK;
    if (ag && ag != PSG_ERR_TYPE) return ag;
    if (ag) {
      psgi_buf b;
      psgi_buf_init(&b, ctx);
      psgi_type_format(&b, val);
      psgi_buf_puts(&b, " but it is annotated ");
      psgi_type_format(&b, ann);
      if (why[0]) psgi_buf_printf(&b, " (%s)", why);
      psg_status st = type_error(c, fn_name, e, "the value bound to %%%s has type %s", e->kids[0]->u.var.name,
                                 b.data ? b.data : "?");
      psgi_buf_fini(&b);
      return st;
    }
    *out = type_of(c, e->kids[2]);
    return PSG_OK;
  }
  case PSG_EXPR_IF: {
    const psg_type *cond = type_of(c, e->kids[0]), *a = type_of(c, e->kids[1]), *b = type_of(c, e->kids[2]);
    if (cond->kind != PSG_TYPE_TENSOR || cond->n != 0 || cond->dtype != PSG_DTYPE_BOOL)
      return type_error(c, fn_name, e, "%s", "the condition must be a bool scalar");
    char why[512];
    const psg_type *joined = NULL;
    psg_status ag = agree(ctx, a, b, &joined, why, sizeof why);
    if (ag && ag != PSG_ERR_TYPE) return ag;
    if (ag) {
      psgi_buf buf;
      psgi_buf_init(&buf, ctx);
      psgi_type_format(&buf, a);
      psgi_buf_puts(&buf, " vs ");
      psgi_type_format(&buf, b);
      if (why[0]) psgi_buf_printf(&buf, " (%s)", why);
      psg_status st = type_error(c, fn_name, e, "the branches have different types: %s", buf.data ? buf.data : "");
      psgi_buf_fini(&buf);
      return st;
    }
    *out = joined;
    return PSG_OK;
  }
  case PSG_EXPR_CONSTRUCTOR: {
    char msg[300];
    psg_status st = psgi_constructor_type(ctx, c->mod, e, out, msg, sizeof msg);
    return st == PSG_ERR_TYPE ? type_error(c, fn_name, e, "%s", msg) : st;
  }
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE: {
    const psg_type *kids[2] = {type_of(c, e->kids[0]), e->nkids > 1 ? type_of(c, e->kids[1]) : NULL};
    psgi_unifier u;
    psgi_unifier_init(&u, ctx);
    psg_status st = psgi_ref_type_rule(&u, e, kids, out);
    if (st == PSG_ERR_TYPE) st = type_error(c, fn_name, e, "%s", u.msg);
    psgi_unifier_fini(&u);
    return st;
  }
  case PSG_EXPR_MATCH: {
    /* The clauses' types agree (the pattern variables were typed before
     * the clauses, bind_pattern_vars). */
    const psg_type *joined = NULL;
    psg_status st = PSG_OK;
    for (size_t k = 0; k < psg_match_num_clauses(e) && !st; k++) {
      const psg_type *t = type_of(c, psg_match_clause_rhs(e, k));
      char why[512];
      psg_status ag = joined ? agree(ctx, joined, t, &joined, why, sizeof why) : PSG_OK;
      if (!joined) joined = t;
      if (ag == PSG_ERR_TYPE) st = type_error(c, fn_name, e, "match clause %zu has another type than the first (%s)", k, why);
      else st = ag;
    }
    if (!st && !joined) st = psg_type_incomplete(ctx, PSG_TYPE_KIND_TYPE, &joined);
    *out = joined;
    return st;
  }
  case PSG_EXPR_FUNCTION: {
    size_t n = e->nkids - 1;
    const psg_type *small[16] = {0}, **params = small;
    if (n > 16 && !(params = psgi_alloc(ctx, n * sizeof *params))) return psgi_nomem(ctx);
    for (size_t i = 0; i < n; i++) params[i] = type_of(c, e->kids[i]);
    const psg_type *body = type_of(c, psgi_fn_body(e));
    psg_status st = PSG_OK;
    char why[512];
    psg_status ag = e->u.fn.ret_type ? agree(ctx, e->u.fn.ret_type, body, NULL, why, sizeof why) : PSG_OK;
    if (ag && ag != PSG_ERR_TYPE) st = ag;
    if (ag == PSG_ERR_TYPE) {
      psgi_buf b;
      psgi_buf_init(&b, ctx);
      psgi_type_format(&b, body);
      psgi_buf_puts(&b, " but the function is annotated ");
      psgi_type_format(&b, e->u.fn.ret_type);
      if (why[0]) psgi_buf_printf(&b, " (%s)", why);
      st = type_error(c, fn_name, e, "the body has type %s", b.data ? b.data : "?");
      psgi_buf_fini(&b);
    }
    if (!st)
      st = psg_type_func_poly(ctx, params, (int)n, e->u.fn.ret_type ? e->u.fn.ret_type : body, fn_tparams(e),
                              psg_function_num_type_params(e), out);
    if (params != small) psgi_free(ctx, params);
    return st;
  }
  }
  return PSG_ERR_INTERNAL;
}

/* The types a Match's patterns give their variables, from the matched
 * value's type (typed by now): recorded as an unannotated let variable's. */
static psg_status bind_pattern_vars(checker *c, const char *fn_name, const psg_expr *e) {
  psg_ctx *ctx = c->ctx;
  const psg_type **kt = psgi_calloc(ctx, e->nkids * sizeof *kt);
  if (!kt) return psgi_nomem(ctx);
  psgi_unifier u;
  psgi_unifier_init(&u, ctx);
  psg_status st = psgi_infer_match_patterns(&u, c->mod, e, type_of(c, e->kids[0]), kt);
  if (st == PSG_ERR_TYPE) st = type_error(c, fn_name, e, "a pattern does not fit the matched value: %s", u.msg);
  for (uint32_t i = 1; i < e->nkids && !st; i++) {
    if (!e->u.match->binder[i]) continue;
    const psg_type *t = NULL;
    if ((st = psgi_unifier_resolve(&u, kt[i], &t))) break;
    psgi_map_entry *lt = psgi_map_put_ptr(&c->let_types, e->kids[i], NULL);
    psgi_map_entry *vt = lt ? psgi_map_put_ptr(&c->types, e->kids[i], NULL) : NULL;
    if (!vt) {
      st = psgi_nomem(ctx);
      break;
    }
    lt->value = vt->value = (void *)t;
    psgi_expr_set_checked_type(e->kids[i], t);
  }
  psgi_unifier_fini(&u);
  psgi_free(ctx, kt);
  return st;
}

/* Types one expression tree (a function) with an explicit stack. */
static psg_status check_expr(checker *c, const char *fn_name, const psg_expr *root) {
  psg_ctx *ctx = c->ctx;
  PSGI_VEC(frame) stack = {0};
  psg_status st = PSG_OK;
  size_t typed = 0; /* nodes this walk typed (each once) */
  frame f0 = {root, 0};
  if (!PSGI_VEC_PUSH(ctx, &stack, f0)) return psgi_nomem(ctx);
  while (stack.len && !st) {
    frame *f = &stack.data[stack.len - 1];
    const psg_expr *e = f->e;
    if (f->next == 0 && type_of(c, e) && e->kind != PSG_EXPR_OP) {
      stack.len--; /* shared node, already typed */
      continue;
    }
    if (f->next == 0 && e->kind == PSG_EXPR_FUNCTION) {
      /* The InferType pass has inferred unannotated parameters before
       * (check_function); the checkers without unification (the lowering's)
       * refuse them at the parameter. */
      for (uint32_t i = 0; i + 1 < e->nkids && !st; i++)
        if (!psgi_var_annotation(e->kids[i]) && c->fill) {
          c->want_fill = true; /* check_function infers it, then checks again */
          st = PSG_ERR_TYPE;
        } else if (!psgi_var_annotation(e->kids[i]))
          st = type_error(c, fn_name, e->kids[i],
                          "parameter %%%s has no type annotation (run InferType, which infers it, or annotate it, "
                          "e.g. %%%s: Tensor[(1, 3), float32])",
                          e->kids[i]->u.var.name, e->kids[i]->u.var.name);
      if (st) break;
    }
    if (f->next < e->nkids) {
      uint32_t i = f->next++;
      /* A let variable without annotation takes its value's type before the
       * body is typed. */
      if (e->kind == PSG_EXPR_LET && i == 2 && !psgi_var_annotation(e->kids[0])) {
        psgi_map_entry *en = psgi_map_put_ptr(&c->let_types, e->kids[0], NULL);
        if (!en) {
          st = psgi_nomem(ctx);
          break;
        }
        en->value = (void *)type_of(c, e->kids[1]);
        /* the var itself was typed (child 0) before its value: retype it */
        psgi_map_entry *vt = psgi_map_put_ptr(&c->types, e->kids[0], NULL);
        if (!vt) {
          st = psgi_nomem(ctx);
          break;
        }
        vt->value = en->value;
        psgi_expr_set_checked_type(e->kids[0], en->value);
      }
      if (e->kind == PSG_EXPR_LET && i == 0 && !psgi_var_annotation(e->kids[0])) continue; /* typed at i == 2 */
      if (e->kind == PSG_EXPR_MATCH && i == 1 && (st = bind_pattern_vars(c, fn_name, e))) break;
      if (e->kind == PSG_EXPR_MATCH && e->u.match->binder[i]) continue; /* typed by bind_pattern_vars */
      const psg_expr *k = e->kids[i];
      if (type_of(c, k) || k->kind == PSG_EXPR_OP) continue;
      frame fc = {k, 0};
      if (!PSGI_VEC_PUSH(ctx, &stack, fc)) st = psgi_nomem(ctx);
      continue;
    }
    stack.len--;
    const psg_type *t = NULL;
    if ((st = infer_node(c, fn_name, e, &t)) != PSG_OK) break;
    if (e->kind == PSG_EXPR_OP) continue;
    typed++;
    if (psgi_infer_is_final(e)) {
      psgi_expr_set_final_type((psg_expr *)e, t);
      continue;
    }
    psgi_map_entry *en = psgi_map_put_ptr(&c->types, e, NULL);
    if (!en) {
      st = psgi_nomem(ctx);
      break;
    }
    en->value = (void *)t;
    psgi_expr_set_checked_type((psg_expr *)e, t);
  }
  PSGI_VEC_FREE(ctx, &stack);
  /* Typing an untyped function meets its nodes: that sizes the first
   * pass's memo at once (psgi_expr_size_hint) instead of regrowing it from
   * nothing. A walk over a typed function types nothing and notes nothing. */
  if (!st && typed > psgi_expr_size_hint(root)) psgi_expr_note_size(root, typed);
  return st;
}

/* Hooks of the unification (infer_type_unified.c) while checking a def. */
typedef struct fill_env {
  checker *c;
  const char *fn_name;
} fill_env;

static psg_status fill_global_type(void *env, const psg_expr *gv, const psg_type **out) {
  fill_env *f = env;
  return global_type(f->c, f->fn_name, gv, out);
}

static psg_status fill_error(void *env, const psg_expr *at, const char *msg) {
  fill_env *f = env;
  return type_error(f->c, f->fn_name, at, "%s", msg);
}

static psg_status check_function(checker *c, size_t index) {
  const psgi_module_entry *en = &c->mod->entries[index];
  if (!en->func || en->func->kind != PSG_EXPR_FUNCTION) {
    c->fn_state[index] = 2; /* not a Relay function: a PrimFunc has no Relay type */
    return PSG_OK;
  }
  c->fn_state[index] = 1;
  const psg_expr *saved = c->fn; /* a call to another global checks it first */
  const char *name = en->gv->u.gvar.name;
  c->fn = en->func;
  psg_status st = check_expr(c, name, c->fn);
  if (st == PSG_ERR_TYPE && c->want_fill) {
    /* An unannotated parameter: infer the types by unification, then check
     * the function rebuilt with them as if they had been written. */
    c->want_fill = false;
    fill_env env = {c, name};
    psgi_infer_hooks hooks = {&env, fill_global_type, fill_error, c->mod};
    psg_expr *filled = NULL;
    st = psgi_infer_fill_params(c->ctx, en->func, &hooks, &filled);
    if (!st) c->fn = c->filled[index] = filled;
    bool saved_fill = c->fill;
    c->fill = false; /* a parameter still unannotated is an error now */
    if (!st) st = check_expr(c, name, c->fn);
    c->fill = saved_fill;
  }
  psg_status done = st;
  c->fn = saved;
  c->fn_state[index] = done ? 3 : 2;
  if (!done) psgi_expr_set_checked_type(en->gv, type_of(c, entry_func(c, index)));
  /* The function as given is typed too (TVM's InferTypeLocal reads it). */
  if (!done && c->filled && c->filled[index]) psgi_expr_set_checked_type(en->func, type_of(c, c->filled[index]));
  return done;
}

/* Checks every function of mod; with `filled` (the pass), unannotated
 * parameters are inferred and *filled is the module holding the rebuilt
 * functions (mod itself, retained, when none was). */
static psg_status infer_module(psg_ctx *ctx, const psg_module *mod, psg_module **filled) {
  checker c = {ctx, mod, {0}, {0}, NULL, NULL, filled != NULL, false, NULL, 0};
  psgi_map_init(&c.types, ctx);
  psgi_map_init(&c.let_types, ctx);
  psg_status st = PSG_OK;
  if (mod->n && !(c.fn_state = psgi_calloc(ctx, mod->n))) st = psgi_nomem(ctx);
  if (!st && filled && mod->n && !(c.filled = psgi_calloc(ctx, mod->n * sizeof *c.filled))) st = psgi_nomem(ctx);
  for (size_t i = 0; !st && i < mod->n; i++) {
    if (c.fn_state[i] != 0) continue;
    psg_status s = check_function(&c, i);
    /* Type errors: keep checking the other functions; a host's type relation
     * that raised (op_register.h) stops the pass with its status. */
    if (s == PSG_ERR_NOMEM || s == PSG_ERR_FRONTEND) st = s;
  }
  if (!st && c.errors) st = PSG_ERR_TYPE;
  psg_module *cur = (psg_module *)mod;
  psg_module_retain(cur);
  for (size_t i = 0; c.filled && i < mod->n; i++) {
    if (!c.filled[i]) continue;
    psg_module *next = NULL;
    if (!st) st = psg_module_update(cur, mod->entries[i].gv, c.filled[i], &next);
    if (next) {
      psg_module_release(cur);
      cur = next;
    }
    psg_expr_release(c.filled[i]);
  }
  if (!st && filled)
    *filled = cur;
  else
    psg_module_release(cur);
  psgi_free(ctx, c.filled);
  psgi_free(ctx, c.fn_state);
  psgi_map_fini(&c.types);
  psgi_map_fini(&c.let_types);
  return st;
}

psg_status psgi_infer_module_types(psg_ctx *ctx, const psg_module *mod) { return infer_module(ctx, mod, NULL); }

/* InferType for one node (include/passage/ir.h): its type when every child
 * has a final type, recorded as final, as check_expr would record it. */
psg_status psg_expr_infer_type(psg_expr *e, const psg_type **out) {
  if (out) *out = NULL;
  if (!e) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = e->ctx;
  const psg_type *t = psgi_expr_final_type(e);
  /* Leaves (constants, annotated variables) are typed on the way. */
  for (uint32_t i = 0; !t && i <= e->nkids; i++) {
    psg_expr *k = i < e->nkids ? e->kids[i] : e;
    if (psgi_expr_final_type(k)) continue;
    const psg_type *lt = k->kind == PSG_EXPR_CONSTANT ? psg_tensor_type(ctx, k->u.constant)
                         : k->kind == PSG_EXPR_VAR    ? psgi_var_annotation(k)
                                                      : NULL;
    if (k->kind == PSG_EXPR_CONSTANT && !lt) return psgi_nomem(ctx);
    if (lt) psgi_expr_set_final_type(k, lt);
  }
  t = psgi_expr_final_type(e);
  /* A Function lacking only its return type is typed, not final. */
  bool ret_missing = e->kind == PSG_EXPR_FUNCTION && !e->u.fn.ret_type;
  if (ret_missing && (t = psg_expr_checked_type(e)) != NULL) {
    if (out) *out = t;
    return PSG_OK;
  }
  if (!t && e->kind != PSG_EXPR_OP && (psgi_infer_is_final(e) || (ret_missing && kids_final(e)))) {
    checker c = {ctx, NULL, {0}, {0}, NULL, NULL, false, false, NULL, 0};
    psgi_map_init(&c.types, ctx);
    psgi_map_init(&c.let_types, ctx);
    psg_status st = infer_node(&c, NULL, e, &t);
    psgi_map_fini(&c.types);
    psgi_map_fini(&c.let_types);
    if (st) return st;
    if (ret_missing)
      psgi_expr_set_checked_type(e, t);
    else
      psgi_expr_set_final_type(e, t);
  }
  if (out) *out = t;
  return PSG_OK;
}

static psg_status infer_type_pass(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  /* Typed in place: the same, unchanged module, unless annotations were
   * missing (then the module with them written in, TVM's Resolver). */
  psg_module *typed = NULL;
  psg_status st = infer_module(mod->ctx, mod, &typed);
  if (!st) st = psgi_annotate_inferred(mod->ctx, typed, out);
  psg_module_release(typed);
  return st;
}

const psg_pass_decl psgi_pass_infer_type = {
    .name = "InferType",
    .kind = PSG_PASS_MODULE,
    .help = "fill in the checked type of every expression",
    /* Types are filled in place, and the annotations written in change no
     * expression's shape: a rewritten result keeps every property. */
    .keeps = PSG_PROP_ANF | PSG_PROP_GNF | PSG_PROP_BBNF | PSG_PROP_FUSED,
    .establishes = PSG_PROP_TYPED,
    .module = infer_type_pass,
};
