/* passage passes: the registered passes with kind, opt level, required passes
 * and help — what `-p` and `required` lists can name; with --load-pass-plugin,
 * the plugins' passes too (loaded as passage opt loads them). */
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

static void print_properties(const char *what, unsigned props) {
  if (!props) return;
  printf("%*s%s", 25, "", what);
  for (unsigned bit = 1; bit <= props; bit <<= 1)
    if (props & bit) printf(" %s", psg_property_name(bit));
  printf("\n");
}

/* Under a pass's row: its typed options with defaults, and the module
 * properties it needs, keeps and establishes. */
static void print_details(const psg_pass_decl *d) {
  for (const psg_pass_option *o = d && d->options ? d->options : NULL; o && o->name; o++)
    printf("%*soption %s: %s%s%s\n", 25, "", o->name, o->type ? psg_config_option_type_name(o->type) : "any value",
           o->default_value ? " = " : "", o->default_value ? o->default_value : "");
  if (!d) return;
  print_properties("needs", d->needs);
  print_properties("keeps", d->keeps);
  print_properties("establishes", d->establishes);
}

enum { MAX_PLUGINS = 64 };

int cmd_passes(int argc, char **argv) {
  const char *plugins[MAX_PLUGINS];
  size_t num_plugins = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: passage passes [--load-pass-plugin LIB]...\n"
             "List the registered passes: name, kind, opt level, required passes, help;\n"
             "under each, its typed options with defaults and the module properties it\n"
             "needs, keeps and establishes.\n"
             "O0..O3 are the -O pipelines (see passage opt --dump-pipeline).\n"
             "  --load-pass-plugin LIB   load a pass plugin first and list its passes too; repeatable\n");
      return 0;
    }
    const char *v = cli_flag_value(argc, argv, &i, "--load-pass-plugin");
    if (v && num_plugins == MAX_PLUGINS) {
      fprintf(stderr, "passage passes: at most %d --load-pass-plugin\n", MAX_PLUGINS);
      return 2;
    }
    if (v) {
      plugins[num_plugins++] = v;
      continue;
    }
    static const char *const value_flags[] = {"--load-pass-plugin", NULL};
    if (cli_missing_value("passes", argv[i], value_flags)) return 2;
    fprintf(stderr, "passage passes: unknown argument '%s'\n", argv[i]);
    return 2;
  }
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < num_plugins; i++) st = psg_pass_plugin_load(ctx, plugins[i]);
  if (st) {
    cli_report_failure(ctx, "passes", st, false);
    psg_ctx_release(ctx);
    return 1;
  }
  printf("%-24s %-10s %-3s %-20s %s\n", "name", "kind", "opt", "required", "help");
  for (size_t i = 0; i < psg_pass_registry_count(ctx); i++) {
    char req[256] = "-";
    size_t used = 0;
    for (size_t j = 0; j < psg_pass_registry_num_required(ctx, i) && used < sizeof req; j++)
      used += (size_t)snprintf(req + used, sizeof req - used, "%s%s", j ? "," : "", psg_pass_registry_required(ctx, i, j));
    printf("%-24s %-10s %-3d %-20s %s\n", psg_pass_registry_name(ctx, i), kind_name(psg_pass_registry_kind(ctx, i)),
           psg_pass_registry_opt_level(ctx, i), req, psg_pass_registry_help(ctx, i));
    print_details(psg_pass_registry_decl(ctx, i));
  }
  psg_ctx_release(ctx);
  return 0;
}
