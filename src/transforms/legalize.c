/* Passage — Legalize (tvm-behavior §7.1, TVM's legalize.cc): a function pass
 * (opt 1, required InferType; option legalize_map_attr_name, default
 * "FTVMLegalize") that replaces each call of an op with a hook under that
 * attribute name (include/passage/op_attr.h) by what the hook returns, in
 * post order: the hook sees the call's attributes, its rewritten arguments
 * and the types of the original arguments followed by the call's own type.
 * No hook, or a hook answering None, keeps the call. As in TVM, what a hook
 * returns must be a call; built-in ops register no hook (there are no
 * targets here), so without the host's hooks the pass changes nothing. */
#include "ops/op_attr.h"
#include "transforms/builder.h"
#include "transforms/rewrite_inner.h"
#include "transforms/transforms.h"

typedef struct legalizer {
  const char *key;
} legalizer;

static psg_status legalize_call(psgi_rewriter *r, const psg_expr *e, psg_expr **out) {
  const legalizer *l = r->user;
  if (e->kids[0]->kind != PSG_EXPR_OP) return PSG_OK;
  psgi_op_hook *h = psgi_op_hook_acquire(r->ctx, e->kids[0]->u.op, l->key);
  if (!h) return PSG_OK;
  size_t nargs = e->nkids - 1;
  const psg_type *small[9], **types = nargs < 9 ? small : psgi_alloc(r->ctx, (nargs + 1) * sizeof *types);
  psg_status st = types ? PSG_OK : psgi_nomem(r->ctx);
  for (size_t i = 0; !st && i < nargs; i++) types[i] = psgi_type_of(e->kids[i + 1]);
  if (!st) types[nargs] = psgi_type_of(e);
  psg_expr *rep = NULL;
  if (!st)
    st = psgi_op_hook_call(r->ctx, h, (*out)->u.attrs, (*out)->kids + 1, nargs, types, nargs + 1, NULL, 0, &rep);
  if (!st && rep && rep->kind != PSG_EXPR_CALL)
    st = psg_ctx_fail(r->ctx, PSG_ERR_INVALID_ARGUMENT,
                      "%s of op '%s': can only replace the operator with another call, not a %s", l->key,
                      psgi_call_op_name(e), psg_expr_kind_name(rep->kind));
  if (!st && rep) {
    psg_expr_release(*out);
    *out = rep;
    rep = NULL;
  }
  psg_expr_release(rep);
  if (types != small) psgi_free(r->ctx, types);
  psgi_op_hook_release(r->ctx, h);
  return st;
}

static psg_status legalize(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  *out = NULL;
  legalizer l = {.key = psg_attr_get_string(psg_attrs_get(user, "legalize_map_attr_name"))};
  if (!l.key || !psgi_op_hooks_any(func->ctx, l.key)) { /* nothing to call: the very same function */
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  psg_status st = psgi_check_typed(func, "Legalize");
  if (st) return st;
  static const psgi_rewrite_fn visit[PSG_EXPR_KIND_COUNT] = {[PSG_EXPR_CALL] = legalize_call};
  return psgi_rewrite_function_inner(func, mod, visit, &l, out);
}

static const psg_pass_option options[] = {{"legalize_map_attr_name", PSG_CONFIG_STRING, "\"FTVMLegalize\""},
                                          {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_legalize = {
    .name = "Legalize",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 1,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "each call of an op with a legalize hook (legalize_map_attr_name, default FTVMLegalize) "
            "replaced by what the hook returns; no hooks without a host",
    .needs = PSG_PROP_TYPED,
    .function = legalize,
};
