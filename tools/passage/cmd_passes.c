/* passage passes: the registered passes with kind, opt level, required passes
 * and help — what `-p` and `required` lists can name. */
#include <string.h>
#include "commands.h"

static const char *kind_name(int kind) {
  switch (kind) {
  case PSG_PASS_MODULE: return "module";
  case PSG_PASS_FUNCTION: return "function";
  case PSG_PASS_PRIM_FUNC: return "prim_func";
  case PSG_PASS_SEQUENTIAL: return "sequential";
  default: return "?";
  }
}

int cmd_passes(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: passage passes\n"
             "List the registered passes: name, kind, opt level, required passes, help.\n"
             "O0..O3 are the -O pipelines (see passage opt --dump-pipeline).\n");
      return 0;
    }
    fprintf(stderr, "passage passes: unknown argument '%s'\n", argv[i]);
    return 2;
  }
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return 1;
  printf("%-24s %-10s %-3s %-20s %s\n", "name", "kind", "opt", "required", "help");
  for (size_t i = 0; i < psg_pass_registry_count(ctx); i++) {
    char req[256] = "-";
    size_t used = 0;
    for (size_t j = 0; j < psg_pass_registry_num_required(ctx, i) && used < sizeof req; j++)
      used += (size_t)snprintf(req + used, sizeof req - used, "%s%s", j ? "," : "", psg_pass_registry_required(ctx, i, j));
    printf("%-24s %-10s %-3d %-20s %s\n", psg_pass_registry_name(ctx, i), kind_name(psg_pass_registry_kind(ctx, i)),
           psg_pass_registry_opt_level(ctx, i), req, psg_pass_registry_help(ctx, i));
  }
  psg_ctx_release(ctx);
  return 0;
}
