/* Passage — the module verifier of verify-each (issue 19, docs/pass-infra.md
 * "Verify each"): after a pass, every function it changed must be well
 * formed (each variable bound once and used in its scope, no free variable),
 * call no missing global, give its operator calls attributes of the op's
 * schema and as many arguments as the op takes, and carry the checked types
 * InferType would assign again; every PrimFunc it changed must pass the TIR
 * well-formedness check. A problem the same function had before the pass
 * (an ill-formed input) is not reported: verify-each blames passes. It lives above src/pass (it needs InferType) and is
 * installed into every context by src/builtin/ctx_create.c. */
#include "ir/op_table.h"
#include "text/text_internal.h"
#include "transforms/infer_type_internal.h"
#include "transforms/transforms.h"
#include "passage/tir.h"

/* Records the verifier's error at e's span (or unlocated), quoting the
 * source line with a caret when the module came from text the context kept
 * (psgi_source_line). */
static psg_status fail_at(psg_ctx *ctx, const char *pass, const psg_expr *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static psg_status fail_at(psg_ctx *ctx, const char *pass, const psg_expr *e, const char *fmt, ...) {
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  psgi_buf_printf(&b, "after pass '%s': ", pass);
  va_list ap;
  va_start(ap, fmt);
  psgi_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  const char *where = e ? psgi_span_where(psgi_expr_span_ref(e)) : NULL;
  int line = e && where ? psgi_expr_span_ref(e)->line : 0;
  char src[256];
  size_t src_len = line > 0 && psgi_expr_span_ref(e)->file ? psgi_source_line(ctx, psgi_expr_span_ref(e)->file, line, src, sizeof src) : 0;
  psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_PASS_FAILED, where, line, e && where ? psgi_expr_span_ref(e)->col : 0,
                src_len ? src : NULL, src_len, pass, "%s", b.data ? b.data : "verifier failed");
  psgi_buf_fini(&b);
  return PSG_ERR_PASS_FAILED;
}

/* How the printed text of `fn` names `e`: "%12", "%x", or its kind. */
static void node_name(psg_ctx *ctx, const psg_expr *fn, const psg_expr *e, psgi_buf *b) {
  char bound[64];
  if (e->kind == PSG_EXPR_VAR) psgi_buf_printf(b, "%%%s", e->u.var.name);
  else if (psgi_print_binding_name(ctx, fn, e, bound, sizeof bound)) psgi_buf_printf(b, "%%%s", bound);
  else if (e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP)
    psgi_buf_printf(b, "%s(...)", psg_op_name(e->kids[0]));
  else psgi_buf_printf(b, "the %s", psgi_expr_kind_names[e->kind]);
}

/* A Call of an op: its attribute keys in the op's schema (ops registered at
 * run time have none: any key goes) and its argument count in range. */
static psg_status check_call(psg_ctx *ctx, const char *pass, const char *fn_name, const psg_expr *e) {
  const psgi_op_info *info = psgi_op_info_in(ctx, e->kids[0]->u.op);
  if (!info) return PSG_OK;
  int nargs = (int)e->nkids - 1;
  if (nargs < info->min_args || (info->max_args >= 0 && nargs > info->max_args))
    return fail_at(ctx, pass, e, "in @%s, a call of '%s' has %d arguments", fn_name, info->name, nargs);
  if (!info->nattrs || !e->u.attrs) return PSG_OK;
  for (size_t i = 0; i < psg_attrs_count(e->u.attrs); i++) {
    const char *key = psg_attrs_key(e->u.attrs, i);
    bool known = false;
    for (size_t j = 0; j < info->nattrs && !known; j++) known = !strcmp(info->attrs[j].name, key);
    if (!known)
      return fail_at(ctx, pass, e, "in @%s, a call of '%s' has attribute '%s', which the op does not have", fn_name,
                     info->name, key);
  }
  return PSG_OK;
}

/* One walk over a changed function: dangling globals and op calls. */
static psg_status check_nodes(psg_ctx *ctx, const psg_module *mod, const char *pass, const char *fn_name,
                              const psg_expr *fn) {
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  PSGI_VEC(const psg_expr *) stack = {0};
  psg_status st = PSGI_VEC_PUSH(ctx, &stack, fn) ? PSG_OK : psgi_nomem(ctx);
  while (!st && stack.len) {
    const psg_expr *e = stack.data[--stack.len];
    if (e->kind == PSG_EXPR_GLOBAL_VAR && psg_module_find(mod, e->u.gvar.name) < 0)
      st = fail_at(ctx, pass, e, "in @%s, @%s is not a function of the module", fn_name, e->u.gvar.name);
    else if (e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP)
      st = check_call(ctx, pass, fn_name, e);
    for (uint32_t i = 0; !st && i < e->nkids; i++) {
      bool is_new;
      if (!psgi_map_put_ptr(&seen, e->kids[i], &is_new)) st = psgi_nomem(ctx);
      else if (is_new && !PSGI_VEC_PUSH(ctx, &stack, e->kids[i])) st = psgi_nomem(ctx);
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  return st;
}

/* Type re-check ---------------------------------------------------------------
 * A copy of the function with every inner node new and untyped (leaves are
 * shared: variables keep their identity, constants and globals their types),
 * `pairs` listing (original, copy) in post-order, so the first pair whose
 * types differ is the innermost wrong node. */
typedef struct pair {
  const psg_expr *orig;
  psg_expr *copy;
} pair;
typedef PSGI_VEC(pair) pair_vec;

static psg_status untyped_copy(psg_ctx *ctx, const psg_expr *fn, pair_vec *pairs, psg_expr **out) {
  typedef struct frame {
    const psg_expr *e;
    uint32_t next;
  } frame;
  *out = NULL;
  psgi_map memo; /* original -> copy (borrowed from pairs) */
  psgi_map_init(&memo, ctx);
  PSGI_VEC(frame) stack = {0};
  PSGI_VEC(psg_expr *) kids = {0};
  frame f0 = {fn, 0};
  psg_status st = PSGI_VEC_PUSH(ctx, &stack, f0) ? PSG_OK : psgi_nomem(ctx);
  while (!st && stack.len) {
    frame *f = &stack.data[stack.len - 1];
    const psg_expr *e = f->e;
    if (f->next < e->nkids) {
      const psg_expr *k = e->kids[f->next++];
      if (k->nkids && !psgi_map_get_ptr(&memo, k)) {
        frame fk = {k, 0};
        if (!PSGI_VEC_PUSH(ctx, &stack, fk)) st = psgi_nomem(ctx);
      }
      continue;
    }
    stack.len--;
    kids.len = 0;
    for (uint32_t i = 0; i < e->nkids && !st; i++) {
      psgi_map_entry *m = psgi_map_get_ptr(&memo, e->kids[i]);
      if (!PSGI_VEC_PUSH(ctx, &kids, m ? (psg_expr *)m->value : e->kids[i])) st = psgi_nomem(ctx);
    }
    psg_expr *n = NULL;
    if (!st) st = psgi_expr_rebuild(e, kids.data, &n);
    if (st) break;
    if (n != e) { /* new and unshared: InferType types it from scratch */
      n->checked_type = NULL;
      n->flags &= (uint16_t)~PSGI_EXPR_TYPE_FINAL;
    }
    pair pr = {e, n};
    psgi_map_entry *m = psgi_map_put_ptr(&memo, e, NULL);
    if (!m || !PSGI_VEC_PUSH(ctx, pairs, pr)) {
      psg_expr_release(n);
      st = psgi_nomem(ctx);
      break;
    }
    m->value = n;
  }
  if (!st && pairs->len) {
    *out = pairs->data[pairs->len - 1].copy;
    psg_expr_retain(*out);
  }
  PSGI_VEC_FREE(ctx, &stack);
  PSGI_VEC_FREE(ctx, &kids);
  psgi_map_fini(&memo);
  return st;
}

/* Whether re-inference can judge fn: its body has a checked type (the pass
 * left it typed) and every parameter is annotated (InferType's fill of
 * unannotated parameters rebuilds the function: nothing to compare). */
static bool is_checkable(const psg_expr *fn) {
  if (!psgi_fn_body(fn)->checked_type) return false;
  for (uint32_t i = 0; i + 1 < fn->nkids; i++)
    if (!psgi_var_annotation(fn->kids[i])) return false;
  return true;
}

static void free_pairs(psg_ctx *ctx, pair_vec *pv) {
  for (size_t i = 0; i < pv->len; i++) psg_expr_release(pv->data[i].copy);
  PSGI_VEC_FREE(ctx, pv);
}

/* Re-infers untyped copies of the changed, typed functions of `out` (in a
 * module holding them in place of the originals) and compares every typed
 * original node with its copy. */
static psg_status check_types(psg_ctx *ctx, const psg_module *out, const bool *changed, const char *pass) {
  size_t n = out->n;
  psgi_module_entry *es = psgi_alloc(ctx, (n ? n : 1) * sizeof *es);
  pair_vec *pv = psgi_calloc(ctx, (n ? n : 1) * sizeof *pv);
  psg_status st = es && pv ? PSG_OK : psgi_nomem(ctx);
  bool any = false;
  for (size_t i = 0; !st && i < n; i++) {
    es[i] = out->entries[i];
    if (!changed[i] || !es[i].func || !is_checkable(es[i].func)) continue;
    psg_expr *copy = NULL;
    if ((st = untyped_copy(ctx, es[i].func, &pv[i], &copy)) != PSG_OK) break;
    psg_expr_release(copy); /* pv[i] holds it */
    es[i].func = copy;
    any = true;
  }
  psg_module *copy_mod = NULL;
  if (!st && any) st = psgi_module_from_entries_of(out, es, n, out->attrs, &copy_mod);
  if (!st && any) {
    /* Only a type error is the pass's fault; running out of memory (or a
     * limit) while re-typing the copy is reported as itself. */
    psg_status it = psgi_infer_module_types(ctx, copy_mod);
    if (it == PSG_ERR_TYPE) st = fail_at(ctx, pass, NULL, "InferType fails on the result (the errors above)");
    else st = it;
  }
  for (size_t i = 0; !st && any && i < n; i++) {
    for (size_t j = 0; j < pv[i].len && !st; j++) {
      const psg_expr *o = pv[i].data[j].orig;
      const psg_type *want = pv[i].data[j].copy->checked_type, *have = o->checked_type;
      if (!have || !want || have == want || psg_type_structural_equal(have, want, true)) continue;
      /* A hole (List[?]) is a fresh IncompleteType in each run: not comparable. */
      if (psgi_type_has_holes(have) || psgi_type_has_holes(want)) continue;
      psgi_buf b;
      psgi_buf_init(&b, ctx);
      node_name(ctx, out->entries[i].func, o, &b);
      psgi_buf_puts(&b, " has type ");
      psgi_type_format(&b, have);
      psgi_buf_puts(&b, " but InferType gives ");
      psgi_type_format(&b, want);
      st = fail_at(ctx, pass, o, "in @%s, %s", out->entries[i].gv->u.gvar.name, b.data ? b.data : "?");
      psgi_buf_fini(&b);
    }
  }
  psg_module_release(copy_mod);
  for (size_t i = 0; pv && i < n; i++) free_pairs(ctx, &pv[i]);
  psgi_free(ctx, pv);
  psgi_free(ctx, es);
  return st;
}

/* The checks of one changed Relay function. */
static psg_status check_function(psg_ctx *ctx, const psg_module *out, const char *pass, const psgi_module_entry *en) {
  const char *name = en->gv->u.gvar.name;
  const psg_expr *bad = NULL;
  bool twice = false;
  if (!psgi_expr_well_formed_explain(en->func, &bad, &twice)) {
    if (!bad) return psgi_nomem(ctx);
    return fail_at(ctx, pass, bad, "in @%s, %%%s is %s", name, bad->u.var.name,
                   twice ? "bound more than once" : "used outside the scope that binds it");
  }
  const psg_expr *free_var = NULL;
  psg_status st = psgi_first_free_var(ctx, en->func, &free_var);
  if (!st && free_var)
    st = fail_at(ctx, pass, free_var, "in @%s, %%%s is free (bound nowhere in the function)", name,
                 free_var->u.var.name);
  if (!st) st = check_nodes(ctx, out, pass, name, en->func);
  return st;
}

psg_status psgi_verify_module(psg_ctx *ctx, const psg_module *in, const psg_module *out, const char *pass) {
  if (in == out) return PSG_OK;
  bool *changed = psgi_calloc(ctx, (out->n ? out->n : 1) * sizeof *changed);
  if (!changed) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  /* A global the pass removed may still be called by a function it kept. */
  bool removed = false;
  for (size_t i = 0; i < in->n && !removed; i++) removed = psg_module_find(out, in->entries[i].gv->u.gvar.name) < 0;
  bool any_relay = false;
  for (size_t i = 0; !st && i < out->n; i++) {
    const psgi_module_entry *en = &out->entries[i];
    ptrdiff_t j = psg_module_find(in, en->gv->u.gvar.name);
    const psgi_module_entry *old = j >= 0 ? &in->entries[j] : NULL;
    size_t mark = psg_ctx_diag_count(ctx);
    if (en->func) {
      changed[i] = !old || old->func != en->func;
      any_relay |= changed[i];
      if (changed[i]) st = check_function(ctx, out, pass, en);
      else if (removed) st = check_nodes(ctx, out, pass, en->gv->u.gvar.name, en->func);
      /* A problem the input already had is not this pass's doing. */
      if (st == PSG_ERR_PASS_FAILED && old && old->func && check_function(ctx, in, pass, old) != PSG_OK) {
        psgi_diag_truncate(ctx, mark);
        st = PSG_OK;
      }
    } else if (en->prim && (!old || old->prim != en->prim)) {
      if (psg_tir_verify_well_formed(en->prim) == PSG_OK) continue;
      if (old && old->prim && psg_tir_verify_well_formed(old->prim) != PSG_OK)
        psgi_diag_truncate(ctx, mark); /* ill-formed already before the pass */
      else
        st = fail_at(ctx, pass, NULL, "PrimFunc @%s is not well formed (the errors above)", en->gv->u.gvar.name);
    }
  }
  if (!st && any_relay) st = check_types(ctx, out, changed, pass);
  psgi_free(ctx, changed);
  return st;
}
