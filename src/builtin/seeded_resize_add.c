/* Passage — TEST ONLY: a pass with a seeded bug for the reducer's tests
 * (issue 20 item 3; docs/pass-infra.md "Reducing a failing case"). It fails
 * on one op pattern, an `add` one of whose arguments is an image.resize2d
 * call (the top-down merge of a feature pyramid, as in PP-OCRv4 det), the
 * way a pass with a bug in one rewrite fails on real models. Registered by
 * psg_testing_register_seeded_bug_passes only. */
#include <string.h>
#include "pass/pass_internal.h"

static bool is_call_of(const psg_expr *e, const char *op) {
  return e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP && !strcmp(psg_op_name(e->kids[0]), op);
}

static int find_pattern(psg_visitor *v, const psg_expr *e) {
  if (!is_call_of(e, "add")) return PSG_VISIT_CONTINUE;
  for (uint32_t i = 1; i < e->nkids; i++)
    if (is_call_of(e->kids[i], "image.resize2d")) {
      *(const psg_expr **)v->user = e;
      return PSG_VISIT_ABORT;
    }
  return PSG_VISIT_CONTINUE;
}

static psg_status fail_on_resize_add(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)user;
  psg_ctx *ctx = pc->ctx;
  *out = NULL;
  size_t nf = psg_module_num_functions(mod);
  for (size_t i = 0; i < nf; i++) {
    psg_expr *f = psg_module_get_function(mod, i);
    const psg_expr *hit = NULL;
    psg_visitor v = {find_pattern, NULL, &hit};
    if (!f || f->kind != PSG_EXPR_FUNCTION) continue;
    psg_status st = psg_visit(ctx, &v, f);
    if (st) return st;
    if (hit)
      return psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED,
                          "seeded bug: testing.FailOnResizeAdd cannot rewrite add(_, image.resize2d(...)) in @%s",
                          psg_global_var_name(psg_module_get_global_var(mod, i)));
  }
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

static const psg_pass_decl fail_on_resize_add_decl = {
    .name = "testing.FailOnResizeAdd",
    .kind = PSG_PASS_MODULE,
    .help = "TEST ONLY: fails on an add of an image.resize2d result (a seeded bug for passage reduce)",
    .module = fail_on_resize_add,
};

psg_status psgi_testing_register_fail_on_resize_add(psg_ctx *ctx) {
  return psg_pass_register_decl(ctx, &fail_on_resize_add_decl);
}
