/* passage configs: the registered PassContext config options (TVM's
 * PassContext.list_configs) with type, TVM type key, default, help, and which
 * pass reads each one ("reserved: not read yet" for those nothing reads). */
#include <string.h>
#include "commands.h"

/* A default value in the syntax `--config KEY=VALUE` accepts. */
static void print_value(const psg_attr *v) {
  if (!v) {
    printf("-");
    return;
  }
  switch (psg_attr_kind(v)) {
  case PSG_ATTR_BOOL: printf("%s", psg_attr_get_bool(v) ? "true" : "false"); break;
  case PSG_ATTR_INT: printf("%lld", (long long)psg_attr_get_int(v)); break;
  case PSG_ATTR_FLOAT: printf("%g", psg_attr_get_float(v)); break;
  case PSG_ATTR_STRING: printf("\"%s\"", psg_attr_get_string(v)); break;
  case PSG_ATTR_DICT: {
    psg_attrs *d = psg_attr_get_dict(v);
    printf("{");
    for (size_t i = 0; i < psg_attrs_count(d); i++) {
      printf("%s%s=", i ? "," : "", psg_attrs_key(d, i));
      print_value(psg_attrs_get_value(d, i));
    }
    printf("}");
    break;
  }
  default: printf("..."); break;
  }
}

int cmd_configs(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: passage configs\n"
             "List the PassContext config options: key, type (TVM's type key), default, help,\n"
             "and the pass that reads each one (\"reserved: not read yet\" when none does).\n"
             "Set them with passage opt --config KEY=VALUE.\n");
      return 0;
    }
    fprintf(stderr, "passage configs: unknown argument '%s'\n", argv[i]);
    return 2;
  }
  psg_ctx *ctx;
  if (psg_ctx_create(NULL, &ctx)) return fprintf(stderr, "passage: out of memory\n"), 1;
  for (size_t i = 0; i < psg_config_option_count(ctx); i++) {
    int type = psg_config_option_type(ctx, i);
    printf("%s\n  type: %s (%s)\n  default: ", psg_config_option_key(ctx, i), psg_config_option_type_name(type),
           psg_config_option_type_key(type));
    print_value(psg_config_option_get_default(ctx, i));
    printf("\n  %s\n", psg_config_option_help(ctx, i));
    const char *reader = psg_config_option_read_by(ctx, i);
    if (reader)
      printf("  read by: %s\n", reader);
    else if (psg_config_option_is_reserved(ctx, i))
      printf("  reserved: not read yet\n");
  }
  psg_ctx_release(ctx);
  return 0;
}
