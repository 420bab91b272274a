/* Passage — the TIR lowering pipeline "tir.default_pipeline" (TVM v0.19's
 * CreatePassList, the list tvm.lower runs; tir.md §5) and "lower", LowerTE
 * followed by it.
 *
 * Gates that TVM hands to a pass as an argument when tvm.lower builds the
 * list (VectorizeLoop(!tir.disable_vectorize), CommonSubexprElimTIR(
 * !tir.disable_cse_tir)) are read by the pass itself from the context.
 * tir.StorageRewrite is left out when the context holds
 * tir.disable_storage_rewrite, read when the list is made as TVM's
 * CreatePassList does.
 *
 * Only the passes TVM's list runs that do work on block-free TIR are listed:
 * the S-TIR, GPU and target passes of phase 1 (InjectPrefetch, TextureFlatten,
 * LowerCrossThreadReduction, ... InjectSoftwarePipeline) have nothing to
 * rewrite in what LowerTE makes (docs/lowering.md). Every listed pass must be
 * registered: a missing one is an error, never skipped. */
#include <string.h>
#include "pass/pass_internal.h"

static const char *const tir_pipeline[] = {
    /* phase 1 */
    "tir.StorageFlatten", /* legacy-TE functions only */
    "tir.LowerOpaqueBlock",
    "tir.FlattenBuffer", /* the others */
    "tir.NarrowDataType", /* its default target_bits is 32, TVM's argument here */
    "tir.Simplify",
    /* phase 2 (TVM's simple_mode, which drops LoopPartition, is not an option here) */
    "tir.LoopPartition",
    "tir.VectorizeLoop",
    "tir.InjectVirtualThread",
    "tir.StorageRewrite", /* left out under tir.disable_storage_rewrite, as TVM does */
    "tir.HoistIfThenElse",
    "tir.UnrollLoop",
    /* phase 3 */
    "tir.Simplify",
    "tir.RemoveNoOp",
    "tir.CommonSubexprElimTIR",
};
enum { NUM_TIR_PIPELINE = sizeof tir_pipeline / sizeof tir_pipeline[0] };

static psg_status make_sequential(psg_ctx *ctx, const char *name, psg_pass **kids, size_t n, psg_pass **out) {
  psg_pass_info *info = NULL;
  psg_status st = psg_pass_info_create(ctx, name, 0, NULL, 0, &info);
  if (!st) st = psg_sequential(ctx, kids, n, info, out);
  psg_pass_info_release(info);
  return st;
}

/* The passes of the list, made in `kids` (n of them). */
static psg_status make_tir_passes(psg_ctx *ctx, psg_pass **kids, size_t *n) {
  psg_status st = PSG_OK;
  psg_pass_context *pc = psg_pass_context_current(ctx);
  for (size_t i = 0; !st && i < NUM_TIR_PIPELINE; i++) {
    if (pc && !strcmp(tir_pipeline[i], "tir.StorageRewrite") &&
        psg_pass_context_config_bool(pc, "tir.disable_storage_rewrite"))
      continue;
    if (!psgi_registry_find(ctx, tir_pipeline[i]))
      return psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND, "tir.default_pipeline: pass '%s' is not registered",
                          tir_pipeline[i]);
    st = psg_pass_get(ctx, tir_pipeline[i], NULL, &kids[*n]);
    if (!st) (*n)++;
  }
  return st;
}

static psg_status make_tir_pipeline(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)options;
  (void)user;
  *out = NULL;
  psg_pass *kids[NUM_TIR_PIPELINE];
  size_t n = 0;
  psg_status st = make_tir_passes(ctx, kids, &n);
  if (!st) st = make_sequential(ctx, "tir.default_pipeline", kids, n, out);
  for (size_t i = 0; i < n; i++) psg_pass_release(kids[i]);
  return st;
}

/* "lower": LowerTE, then the TIR list over every PrimFunc of the module (the
 * new ones and any the module already held), as TVM's LowerTE runs
 * tvm::LowerSchedule's list on each function it makes. */
static psg_status make_lower(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)user;
  *out = NULL;
  psg_pass *kids[2] = {NULL, NULL};
  psg_status st = psg_pass_get(ctx, "LowerTE", options, &kids[0]);
  if (!st) st = make_tir_pipeline(ctx, NULL, NULL, &kids[1]);
  if (!st) st = make_sequential(ctx, "lower", kids, 2, out);
  psg_pass_release(kids[0]);
  psg_pass_release(kids[1]);
  return st;
}

const psg_pass_decl psgi_pass_tir_default_pipeline = {
    .name = "tir.default_pipeline",
    .kind = PSG_PASS_SEQUENTIAL,
    .help = "TVM's TIR lowering list (CreatePassList) in its order, the passes built for block-free TIR "
            "(tir.StorageRewrite left out under config tir.disable_storage_rewrite)",
    .ctor = make_tir_pipeline,
};

const psg_pass_decl psgi_pass_lower = {
    .name = "lower",
    .kind = PSG_PASS_SEQUENTIAL,
    .help = "LowerTE, then tir.default_pipeline: Relay Primitive functions to flat, simplified PrimFuncs",
    .ctor = make_lower,
};
