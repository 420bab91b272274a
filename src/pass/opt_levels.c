/* Passage — the -O levels as named pipelines "O0".."O3" (tvm-behavior §7.2):
 * TVM's default relay.build pipeline in its order, restricted to the passes
 * registered when the pipeline is made, so the levels grow as passes land.
 * The level of a registered pass is its declaration's; the levels below are
 * TVM's, for psg_default_pipeline_* (what is still left out). */
#include <stdio.h>
#include "pass/pass_internal.h"

/* §7.2 in order, each with its §7.1 opt level. A name that appears twice
 * (FoldConstant) runs twice, as in TVM. */
static const struct {
  const char *name;
  int opt_level;
} default_pipeline[] = {
    {"RemoveUnusedFunctions", 1}, {"ToBasicBlockNormalForm", 1},
    {"qnn.Legalize", 0},          {"Legalize", 1},
    {"SimplifyInference", 0},     {"EliminateCommonSubexpr", 3},
    {"CombineParallelConv2D", 4}, {"CombineParallelDense", 4},
    {"CombineParallelBatchMatmul", 4}, {"FoldConstant", 2},
    {"FoldScaleAxis", 0},         {"SimplifyExpr", 0},
    {"CanonicalizeCast", 3},      {"CanonicalizeOps", 3},
    {"FlattenAtrousConv", 0},     {"InferType", 0},
    {"AlterOpLayout", 3},         {"SimplifyExprPostAlterOp", 0},
    {"FastMath", 4},              {"FoldConstant", 2},
    {"SplitArgs", 1},             {"PlanDevices", 0},
    {"FuseOps", 0},
};
enum { NUM_DEFAULT = sizeof default_pipeline / sizeof default_pipeline[0] };

size_t psg_default_pipeline_count(void) { return NUM_DEFAULT; }
const char *psg_default_pipeline_name(size_t i) { return i < NUM_DEFAULT ? default_pipeline[i].name : NULL; }
int psg_default_pipeline_opt_level(size_t i) { return i < NUM_DEFAULT ? default_pipeline[i].opt_level : -1; }

/* `user` is the level, smuggled as an integer. A pass of the table is taken
 * when it is registered and its level is at most N: "O2" lists exactly what
 * runs at -O2. Passes above the level (FastMath) are named explicitly. */
static psg_status make_level(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)options;
  *out = NULL;
  int level = (int)(intptr_t)user;
  psg_pass *kids[NUM_DEFAULT];
  size_t n = 0;
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < NUM_DEFAULT; i++) {
    const psg_pass_decl *d = psgi_registry_find(ctx, default_pipeline[i].name);
    if (!d || d->opt_level > level) continue;
    st = psg_pass_get(ctx, default_pipeline[i].name, NULL, &kids[n]);
    if (!st) n++;
  }
  char name[8];
  snprintf(name, sizeof name, "O%d", level);
  psg_pass_info *info = NULL;
  if (!st) st = psg_pass_info_create(ctx, name, 0, NULL, 0, &info);
  if (!st) st = psg_sequential(ctx, kids, n, info, out);
  psg_pass_info_release(info);
  for (size_t i = 0; i < n; i++) psg_pass_release(kids[i]);
  return st;
}

#define LEVEL(N)                                                                                          \
  const psg_pass_decl psgi_pass_o##N = {                                                                    \
      .name = "O" #N,                                                                                       \
      .kind = PSG_PASS_SEQUENTIAL,                                                                          \
      .help = "TVM's default pipeline at -O" #N " (registered passes of opt level <= " #N ")",              \
      .ctor = make_level,                                                                                   \
      .user = (void *)(intptr_t)N,                                                                          \
  };
LEVEL(0)
LEVEL(1)
LEVEL(2)
LEVEL(3)
