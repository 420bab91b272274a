/* Passage — the registered pass LowerTE (TVM's relay.tec.LowerTE): the
 * module rewrite of lower_te.c with the TE layer's compute definitions
 * (psg_te_lower_primitive, src/te/) as the lowering of each Primitive
 * function, then the default CPU schedule of its anchor op
 * (default_schedule.c; the option default_schedule=false or the config
 * passage.lower.use_default_schedule=false keep TE's naive loop nests).
 * "lower" (tir_pipeline.c) runs TVM's TIR list after it. */
#include "lower/default_schedule.h"
#include "lower/lower_te.h"
#include "pass/pass_internal.h"
#include "transforms/transforms.h"
#include "passage/te.h"

static psg_status lower_with_te(psg_ctx *ctx, const psg_expr *fn, const char *name, void *user,
                                psg_tir_prim_func **out) {
  const bool *schedule = user;
  psg_tir_prim_func *naive = NULL;
  psg_status st = psg_te_lower_primitive(ctx, fn, name, &naive);
  if (st || !*schedule) {
    *out = naive;
    return st;
  }
  const char *kind = NULL;
  st = psgi_default_schedule(ctx, naive, out, &kind);
  psg_tir_release(naive);
  return st;
}

static psg_status lower_te(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  psg_attr *name = psg_attrs_get(user, "module_name"); /* declared String, default below */
  bool schedule = psg_attr_get_bool(psg_attrs_get(user, "default_schedule")) &&
                  psg_pass_context_config_bool(pc, "passage.lower.use_default_schedule");
  /* The TE layer's lowering and schedules share only immutable IR. */
  return psgi_lower_te_on(mod->ctx, mod, psg_attr_get_string(name), lower_with_te, &schedule,
                          pc, out);
}

/* TVM names a model's functions with the prefix "tvmgen_" + the module
 * name, "default" unless the user names it (relay.build(mod_name=...)). */
static const psg_pass_option options[] = {{"module_name", PSG_CONFIG_STRING, "\"tvmgen_default\""},
                                          {"default_schedule", PSG_CONFIG_BOOL, "true"},
                                          {NULL, 0, NULL}};

const psg_pass_decl psgi_pass_lower_te = {
    .name = "LowerTE",
    .kind = PSG_PASS_MODULE,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "lower every Primitive function to a PrimFunc (TE compute definitions) scheduled by the default CPU "
            "schedule of its anchor op (default_schedule=false or config passage.lower.use_default_schedule=false: "
            "TE's naive loop nests), and call it with call_lowered",
    .needs = PSG_PROP_TYPED | PSG_PROP_FUSED,
    /* all calls of ops stay inside Primitive functions or became call_lowered:
     * FuseOps has nothing to fuse in the result */
    .keeps = PSG_PROP_TYPED | PSG_PROP_FUSED,
    .module = lower_te,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: the schedules sum in another order than the Relay kernels */
};
