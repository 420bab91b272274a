/* Passage — LowerTE's module rewrite (lower_te.h; TVM's LowerTensorExprMutator
 * and TECompiler in src/relay/backend/te_compiler.cc): resolve each call's
 * callee to a Primitive function, lower each distinct one once through the
 * callback, and rewrite the calls to call_lowered. */
#include <stdio.h>
#include "ir/ir_internal.h"
#include "lower/lower_te.h"
#include "pass/parallel_calls.h"
#include "tir/tir_internal.h"
#include "transforms/transforms.h"

/* What a callee stands for (TVM's ResolveToPrimitive). */
enum { CALLEE_NONE, CALLEE_PRIMITIVE, CALLEE_EXTERN };

typedef struct resolved {
  int kind;
  const psg_expr *fn; /* PRIMITIVE: the Relay function; EXTERN: the global's function */
  psg_expr *gv;       /* EXTERN: the global's GlobalVar (borrowed from the module) */
} resolved;

/* A Primitive function lowered, for dedup by structural equality. */
typedef struct lowered {
  const psg_expr *fn;
  uint64_t hash;
  psg_expr *gv;            /* the new GlobalVar (a reference) */
  psg_tir_prim_func *prim; /* a reference; NULL while deferred */
  const char *name;        /* in the arena */
  bool callback_failed;
} lowered;

typedef struct lower_te {
  psg_ctx *ctx;
  const psg_module *mod;
  const char *prefix;
  psgi_lower_primitive_fn lower;
  void *user;
  psgi_map names;     /* NameSupply: name -> counter (uintptr_t), keys in `arena` */
  psgi_arena arena;
  psgi_map let_prims; /* let-bound Var -> resolved* (in `arena`) */
  PSGI_VEC(lowered) done;
  psg_expr *call_lowered_op;
  /* On threads (parallel_calls.h): the rewrite names the functions and
   * defers their lowering, which then runs on the threads; the first
   * failure is reported in the order the serial rewrite would have met it,
   * a Compiler function's refusal included (`refused`, reported only if
   * every lowering before it succeeded). */
  bool defer;
  psg_pass_context *pc; /* whose threads */
  const psg_expr *refused;
} lower_te;

static bool has_attr(const psg_expr *fn, const char *key) {
  psg_attr *a = psg_attrs_get(fn->u.fn.attrs, key);
  return a && psg_attr_get_int(a) != 0;
}

/* A Composite function literal that no external compiler claims (the
 * ONNX importer's onnx.LSTM, kept whole for export; design.md §19): FuseOps
 * leaves it as a leaf, so LowerTE lowers its body as one fused function. */
static bool is_own_composite(const psg_expr *fn) {
  return psg_attrs_get(fn->u.fn.attrs, "Composite") && !psg_attrs_get(fn->u.fn.attrs, "Compiler");
}

static void resolve(lower_te *lt, const psg_expr *callee, resolved *r) {
  r->kind = CALLEE_NONE;
  r->fn = NULL;
  r->gv = NULL;
  if (callee->kind == PSG_EXPR_GLOBAL_VAR) {
    ptrdiff_t i = psg_module_find(lt->mod, callee->u.gvar.name);
    if (i < 0) return;
    r->gv = psg_module_get_global_var(lt->mod, (size_t)i);
    const psg_expr *f = psg_module_get_function(lt->mod, (size_t)i);
    if (!f) {
      return; /* a PrimFunc: a Relay call of it does not type-check (InferType refuses it) */
    } else if (has_attr(f, "Extern")) {
      r->kind = CALLEE_EXTERN;
      r->fn = f;
    } else if (has_attr(f, "Primitive")) {
      r->kind = CALLEE_PRIMITIVE;
      r->fn = f;
    }
  } else if (callee->kind == PSG_EXPR_VAR) {
    psgi_map_entry *en = psgi_map_get_ptr(&lt->let_prims, callee);
    if (en) *r = *(const resolved *)en->value;
  } else if (callee->kind == PSG_EXPR_FUNCTION && !has_attr(callee, "Extern") &&
             (has_attr(callee, "Primitive") || is_own_composite(callee))) {
    r->kind = CALLEE_PRIMITIVE;
    r->fn = callee;
  }
}

/* GlobalVarSupply::FreshGlobal(name, add_prefix=true): the prefix, '.' as
 * '_', then "_1", "_2", ... counted on the base name until unused. The
 * result lives in the arena. */
static psg_status fresh_name(lower_te *lt, const char *candidate, const char **out) {
  size_t plen = lt->prefix ? strlen(lt->prefix) : 0, clen = strlen(candidate);
  char *base = psgi_arena_alloc(&lt->arena, plen + 1 + clen + 1);
  if (!base) return psgi_nomem(lt->ctx);
  if (plen) snprintf(base, plen + clen + 2, "%s_%s", lt->prefix, candidate);
  else memcpy(base, candidate, clen + 1);
  for (char *c = base; *c; c++)
    if (*c == '.') *c = '_';
  size_t blen = strlen(base);
  bool is_new;
  psgi_map_entry *en = psgi_map_put_str(&lt->names, base, blen, &is_new);
  if (!en) return psgi_nomem(lt->ctx);
  if (is_new) {
    *out = base;
    return PSG_OK;
  }
  psgi_map_entry *counter = en;
  for (;;) {
    uintptr_t k = (uintptr_t)counter->value + 1;
    counter->value = (void *)k;
    char *name = psgi_arena_alloc(&lt->arena, blen + 24);
    if (!name) return psgi_nomem(lt->ctx);
    snprintf(name, blen + 24, "%s_%llu", base, (unsigned long long)k);
    psgi_map_entry *e2 = psgi_map_put_str(&lt->names, name, strlen(name), &is_new);
    if (!e2) return psgi_nomem(lt->ctx);
    if (is_new) {
      *out = name;
      return PSG_OK;
    }
    counter = psgi_map_get_str(&lt->names, base, blen); /* the map may have moved */
  }
}

static psg_status refuse(lower_te *lt, const psg_expr *fn) {
  psg_attr *compiler = psg_attrs_get(fn->u.fn.attrs, "Compiler");
  return psgi_diag_add(lt->ctx, PSG_SEVERITY_ERROR, PSG_ERR_UNSUPPORTED, psgi_span_where(psgi_expr_span_ref(fn)), psgi_expr_span_ref(fn)->line,
                       psgi_expr_span_ref(fn)->col, NULL, 0, NULL,
                       "LowerTE: a Primitive function with Compiler=\"%s\" needs external codegen, which Passage does not have",
                       psg_attr_get_string(compiler) ? psg_attr_get_string(compiler) : "?");
}

/* l->prim: l->fn lowered by the callback and named. A failure of the
 * callback sets l->callback_failed (lowering_failed then adds its
 * diagnostic, after the callback's own). */
static psg_status lower_prim(lower_te *lt, lowered *l) {
  psg_status st = lt->lower(lt->ctx, l->fn, l->name, lt->user, &l->prim);
  if (!st && !l->prim) st = PSG_ERR_INTERNAL;
  if (st) {
    l->callback_failed = true;
    return st;
  }
  /* TVM's PrimFunc carries its name as global_symbol. */
  if (!psg_attrs_get(psg_tir_prim_func_get_attrs(l->prim), "global_symbol")) {
    psg_attr *sym = NULL;
    psg_tir_prim_func *named = NULL;
    if (!(st = psg_attr_string(lt->ctx, l->name, strlen(l->name), &sym)))
      st = psg_tir_prim_func_with_attr(l->prim, "global_symbol", sym, &named);
    psg_attr_release(sym);
    psg_tir_release(l->prim);
    l->prim = named;
  }
  return st;
}

static psg_status lowering_failed(lower_te *lt, const lowered *l, psg_status st) {
  if (st == PSG_ERR_NOMEM) return st;
  const psg_expr *fn = l->fn;
  return psgi_diag_add(lt->ctx, PSG_SEVERITY_ERROR, st, psgi_span_where(psgi_expr_span_ref(fn)), psgi_expr_span_ref(fn)->line, psgi_expr_span_ref(fn)->col, NULL,
                       0, NULL, "LowerTE: lowering the Primitive function @%s failed (%s)", l->name, psg_status_str(st));
}

static psg_status lower_now(lower_te *lt, lowered *l) {
  psg_status st = lower_prim(lt, l);
  return st && l->callback_failed ? lowering_failed(lt, l, st) : st;
}

static psg_status lower_task(void *user, size_t i) {
  lower_te *lt = user;
  return lower_prim(lt, &lt->done.data[i]);
}

/* The deferred lowerings, on threads, their results and diagnostics taken
 * in the serial order; `rewritten` is the rewrite's status. */
static psg_status lower_deferred(lower_te *lt, psg_status rewritten) {
  psgi_parallel_calls *c = NULL;
  psg_status st = psgi_parallel_calls_run(lt->ctx, lt->pc, lt->done.len, lower_task, lt, &c);
  for (size_t i = 0; !st && i < lt->done.len; i++) {
    lowered *l = &lt->done.data[i];
    psg_status s = c ? psgi_parallel_calls_take(c, i) : lower_prim(lt, l);
    if (s) st = l->callback_failed ? lowering_failed(lt, l, s) : s;
  }
  psgi_parallel_calls_free(c);
  if (st) return st;
  if (lt->refused) return refuse(lt, lt->refused);
  return rewritten;
}

/* The GlobalVar of Primitive function fn's PrimFunc: an earlier structurally
 * equal function's, or a new one lowered by the callback (or deferred). */
static psg_status lower_function(lower_te *lt, const psg_expr *fn, psg_expr **gv) {
  uint64_t h = psg_expr_structural_hash(fn);
  for (size_t i = 0; i < lt->done.len; i++)
    if (lt->done.data[i].fn == fn || (lt->done.data[i].hash == h && psg_expr_structural_equal(lt->done.data[i].fn, fn))) {
      *gv = lt->done.data[i].gv;
      return PSG_OK;
    }
  psg_attr *compiler = psg_attrs_get(fn->u.fn.attrs, "Compiler");
  if (compiler && lt->defer) {
    lt->refused = fn;
    return PSG_ERR_UNSUPPORTED;
  }
  if (compiler) return refuse(lt, fn);
  char *candidate = NULL;
  const char *name = NULL;
  psg_status st = psgi_lower_te_candidate_name(lt->ctx, fn, &candidate);
  if (!st) st = fresh_name(lt, candidate, &name);
  psgi_free(lt->ctx, candidate);
  if (st) return st;
  lowered l = {fn, h, NULL, NULL, name, false};
  if (!lt->defer && (st = lower_now(lt, &l)) != PSG_OK) return st;
  if ((st = psg_global_var_create(lt->ctx, name, NULL, &l.gv)) != PSG_OK || !PSGI_VEC_PUSH(lt->ctx, &lt->done, l)) {
    psg_expr_release(l.gv);
    psg_tir_release(l.prim);
    return st ? st : psgi_nomem(lt->ctx);
  }
  *gv = l.gv;
  return PSG_OK;
}

/* metadata={relay_attrs={...the function's attrs...}, all_prim_fn_vars=[@gv]}
 * (TVM's CallLoweredAttrs; no PrimFuncs for an Extern global). */
static psg_status lowered_attrs(lower_te *lt, psg_attrs *relay_attrs, psg_expr *prim_gv, psg_attrs **out) {
  psg_ctx *ctx = lt->ctx;
  psg_attrs *empty = NULL;
  psg_attr *vals[2] = {NULL, NULL}, *gv = NULL, *meta = NULL;
  psg_attrs *inner = NULL;
  psg_status st = PSG_OK;
  if (!relay_attrs && !(st = psg_attrs_create(ctx, NULL, NULL, 0, &empty))) relay_attrs = empty;
  if (!st) st = psg_attr_dict(ctx, relay_attrs, &vals[0]);
  if (!st && prim_gv) st = psg_attr_global_var(ctx, prim_gv->u.gvar.name, &gv);
  if (!st) st = psg_attr_list(ctx, &gv, prim_gv ? 1 : 0, &vals[1]);
  static const char *const keys[2] = {"relay_attrs", "all_prim_fn_vars"};
  if (!st) st = psg_attrs_create(ctx, keys, vals, 2, &inner);
  if (!st) st = psg_attr_dict(ctx, inner, &meta);
  static const char *const mkey[1] = {"metadata"};
  if (!st) st = psg_attrs_create(ctx, mkey, &meta, 1, out);
  psg_attrs_release(empty);
  psg_attr_release(vals[0]);
  psg_attr_release(vals[1]);
  psg_attr_release(gv);
  psg_attrs_release(inner);
  psg_attr_release(meta);
  return st;
}

static psg_status visit_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  lower_te *lt = m->user;
  resolved r;
  resolve(lt, e->kids[0], &r);
  if (r.kind == CALLEE_NONE) return psg_mutator_default(m, e, out);
  psg_ctx *ctx = lt->ctx;
  psg_expr *target = NULL, *prim_gv = NULL;
  psg_attrs *relay_attrs = NULL;
  psg_status st = PSG_OK;
  switch (r.kind) {
  case CALLEE_PRIMITIVE:
    st = lower_function(lt, r.fn, &target);
    relay_attrs = r.fn->u.fn.attrs;
    prim_gv = target;
    break;
  default: /* CALLEE_EXTERN */
    target = r.gv;
    relay_attrs = r.fn->u.fn.attrs;
    break;
  }
  if (st) return st;
  size_t nargs = e->nkids - 1;
  psg_expr *small[16], **args = small, *tuple = NULL;
  if (nargs > 16 && !(args = psgi_alloc(ctx, nargs * sizeof *args))) return psgi_nomem(ctx);
  for (size_t i = 0; i < nargs; i++) args[i] = psg_mutator_get_result(m, e->kids[i + 1]);
  psg_attrs *attrs = NULL;
  st = psg_tuple_create(ctx, args, nargs, psgi_expr_span_ref(e), &tuple);
  if (!st) st = lowered_attrs(lt, relay_attrs, prim_gv, &attrs);
  psg_expr *call_args[2] = {target, tuple};
  if (!st) st = psg_call_create(ctx, lt->call_lowered_op, call_args, 2, attrs, psgi_expr_span_ref(e), out);
  psg_expr_release(tuple);
  psg_attrs_release(attrs);
  if (args != small) psgi_free(ctx, args);
  return st;
}

/* A let of a Primitive function is dropped: its calls were rewritten. */
static psg_status visit_let(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  lower_te *lt = m->user;
  if (!psgi_map_get_ptr(&lt->let_prims, e->kids[0])) return psg_mutator_default(m, e, out);
  *out = psg_mutator_get_result(m, e->kids[2]);
  psg_expr_retain(*out);
  return PSG_OK;
}

/* Primitive, Extern and our own Composite functions are kept as they are; a let's var bound to
 * a Primitive function (directly or through another such var or a global)
 * is remembered before its body is rewritten. */
static psg_status pre(psg_mutator *m, const psg_expr *e, psg_expr **replacement) {
  lower_te *lt = m->user;
  if (e->kind == PSG_EXPR_FUNCTION && (has_attr(e, "Primitive") || has_attr(e, "Extern") || is_own_composite(e))) {
    *replacement = (psg_expr *)e;
    psg_expr_retain(*replacement);
  } else if (e->kind == PSG_EXPR_LET) {
    resolved r;
    resolve(lt, e->kids[1], &r);
    if (r.kind == CALLEE_PRIMITIVE) {
      resolved *keep = psgi_arena_alloc(&lt->arena, sizeof *keep);
      psgi_map_entry *en = keep ? psgi_map_put_ptr(&lt->let_prims, e->kids[0], NULL) : NULL;
      if (!en) return psgi_nomem(lt->ctx);
      *keep = r;
      en->value = keep;
    }
  }
  return PSG_OK;
}

/* *cur with the PrimFuncs appended, in lowering order, as one new module
 * (adding them one at a time copied the module once per PrimFunc). */
static psg_status add_prim_funcs(lower_te *lt, psg_module **cur) {
  psg_module *m = *cur, *next = NULL;
  size_t n = m->n + lt->done.len;
  psgi_module_entry *es = psgi_alloc(lt->ctx, psgi_mul_size(n, sizeof *es));
  if (!es) return psgi_nomem(lt->ctx);
  memcpy(es, m->entries, m->n * sizeof *es);
  for (size_t i = 0; i < lt->done.len; i++)
    es[m->n + i] = (psgi_module_entry){lt->done.data[i].gv, NULL, lt->done.data[i].prim, psgi_tir_prim_func_ops()};
  psg_status st = psgi_module_from_entries_of(m, es, n, m->attrs, &next);
  psgi_free(lt->ctx, es);
  if (st) return st;
  psg_module_release(m);
  *cur = next;
  return PSG_OK;
}

static psg_status rewrite(lower_te *lt, psg_module **out) {
  psg_ctx *ctx = lt->ctx;
  psg_module *cur = (psg_module *)lt->mod;
  psg_module_retain(cur);
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  m.user = lt;
  m.pre = pre;
  m.visit[PSG_EXPR_CALL] = visit_call;
  m.visit[PSG_EXPR_LET] = visit_let;
  psg_status st = PSG_OK;
  size_t n = psg_module_num_functions(lt->mod);
  for (size_t i = 0; i < n && !st; i++) {
    psg_expr *f = psg_module_get_function(lt->mod, i);
    if (!f || has_attr(f, "Primitive") || has_attr(f, "Extern")) continue;
    psg_expr *nf = NULL;
    psg_module *next = NULL;
    if ((st = psg_mutate(&m, f, &nf)) != PSG_OK) break;
    if (nf != f) st = psg_module_update(cur, psg_module_get_global_var(lt->mod, i), nf, &next);
    psg_expr_release(nf);
    if (next) {
      psg_module_release(cur);
      cur = next;
    }
  }
  psg_mutator_fini(&m);
  if (lt->defer) st = lower_deferred(lt, st);
  if (!st && lt->done.len) st = add_prim_funcs(lt, &cur);
  if (!st) st = psgi_infer_module_types(ctx, cur);
  if (st) {
    psg_module_release(cur);
    return st;
  }
  *out = cur;
  return PSG_OK;
}

psg_status psgi_lower_te(psg_ctx *ctx, const psg_module *mod, const char *module_name, psgi_lower_primitive_fn lower,
                         void *user, psg_module **out) {
  return psgi_lower_te_on(ctx, mod, module_name, lower, user, NULL, out);
}

psg_status psgi_lower_te_on(psg_ctx *ctx, const psg_module *mod, const char *module_name,
                            psgi_lower_primitive_fn lower, void *user, psg_pass_context *threads, psg_module **out) {
  *out = NULL;
  if (!mod || !lower) return PSG_ERR_INVALID_ARGUMENT;
  lower_te lt = {.ctx = ctx, .mod = mod, .prefix = module_name && *module_name ? module_name : NULL,
                 .lower = lower, .user = user, .defer = threads && psgi_pass_context_threads(threads) > 1, .pc = threads};
  psgi_map_init(&lt.names, ctx);
  psgi_map_init(&lt.let_prims, ctx);
  psgi_arena_init(&lt.arena, ctx);
  psg_status st = psgi_infer_module_types(ctx, mod);
  if (!st) st = psg_op_get(ctx, "call_lowered", &lt.call_lowered_op);
  /* The module's names are taken (TECompilerImpl reserves them). */
  for (size_t i = 0; !st && i < psg_module_num_functions(mod); i++) {
    const char *name = psg_global_var_name(psg_module_get_global_var(mod, i));
    if (!psgi_map_put_str(&lt.names, name, strlen(name), NULL)) st = psgi_nomem(ctx);
  }
  if (!st) st = rewrite(&lt, out);
  for (size_t i = 0; i < lt.done.len; i++) {
    psg_expr_release(lt.done.data[i].gv);
    psg_tir_release(lt.done.data[i].prim);
  }
  PSGI_VEC_FREE(ctx, &lt.done);
  psg_expr_release(lt.call_lowered_op);
  psgi_map_fini(&lt.names);
  psgi_map_fini(&lt.let_prims);
  psgi_arena_fini(&lt.arena);
  return st;
}
