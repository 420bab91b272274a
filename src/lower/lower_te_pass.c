/* Passage — the registered pass LowerTE (TVM's relay.tec.LowerTE): the
 * module rewrite of lower_te.c with the TE layer's compute definitions
 * (psg_te_lower_primitive, src/te/) as the lowering of each Primitive
 * function. Each PrimFunc comes out as TE makes it, naive loop nests in
 * legacy-TE form; "lower" (tir_pipeline.c) runs TVM's TIR list after it. */
#include "lower/lower_te.h"
#include "pass/pass_internal.h"
#include "transforms/transforms.h"
#include "passage/te.h"

static psg_status lower_with_te(psg_ctx *ctx, const psg_expr *fn, const char *name, void *user,
                                psg_tir_prim_func **out) {
  (void)user;
  return psg_te_lower_primitive(ctx, fn, name, out);
}

static psg_status lower_te(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  psg_attr *name = psg_attrs_get(user, "module_name"); /* declared String, default below */
  return psgi_lower_te(mod->ctx, mod, psg_attr_get_string(name), lower_with_te, NULL, out);
}

/* TVM names a model's functions with the prefix "tvmgen_" + the module
 * name, "default" unless the user names it (relay.build(mod_name=...)). */
static const psg_pass_option options[] = {{"module_name", PSG_CONFIG_STRING, "\"tvmgen_default\""},
                                          {NULL, 0, NULL}};

const psg_pass_decl psgi_pass_lower_te = {
    .name = "LowerTE",
    .kind = PSG_PASS_MODULE,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "lower every Primitive function to a PrimFunc (TE compute definitions) and call it with call_lowered",
    .needs = PSG_PROP_TYPED | PSG_PROP_FUSED,
    /* all calls of ops stay inside Primitive functions or became call_lowered:
     * FuseOps has nothing to fuse in the result */
    .keeps = PSG_PROP_TYPED | PSG_PROP_FUSED,
    .module = lower_te,
};
