/* passage opt's validate-each flags (issue 20 item 1, docs/pass-infra.md
 * "Validate each"), as the PassContext config options they stand for:
 *   --validate-each[=N]      testing.validate_each = N (default 1)
 *   --validate-seed S        testing.validate_each.seed = S
 *   --input NAME=FILE.npy    appended to testing.validate_each.inputs
 * Public API only. */
#include <stdlib.h>
#include <string.h>
#include "commands.h"

int cli_validate_parse(int argc, char **argv, int *i, cli_validate_args *v) {
  const char *arg = argv[*i], *val;
  if (!strcmp(arg, "--validate-each")) {
    v->count = "1";
    return 1;
  }
  if (!strncmp(arg, "--validate-each=", 16)) {
    v->count = arg + 16;
    return 1;
  }
  if ((val = cli_flag_value(argc, argv, i, "--validate-seed")) != NULL) {
    v->seed = val;
    return 1;
  }
  if ((val = cli_flag_value(argc, argv, i, "--input")) != NULL) {
    if (!strchr(val, '=')) {
      fprintf(stderr, "passage opt: --input expects NAME=FILE.npy, got '%s'\n", val);
      return -1;
    }
    if (v->ninputs == sizeof v->inputs / sizeof *v->inputs) {
      fprintf(stderr, "passage opt: too many --input\n");
      return -1;
    }
    v->inputs[v->ninputs++] = val;
    return 1;
  }
  return 0;
}

/* "KEY=TEXT" through the config text parser: a value that is not an
 * integer is a located error naming the option. */
static psg_status set_int(psg_pass_context *pc, const char *key, const char *text) {
  size_t n = strlen(key) + strlen(text) + 2;
  char *assignment = malloc(n);
  if (!assignment) return psg_ctx_fail(psg_pass_context_get_ctx(pc), PSG_ERR_NOMEM, "out of memory");
  snprintf(assignment, n, "%s=%s", key, text);
  psg_status st = psg_pass_context_set_config_text(pc, assignment);
  free(assignment);
  return st;
}

psg_status cli_validate_configs(psg_ctx *ctx, const cli_validate_args *v, psg_pass_context *pc) {
  psg_status st = PSG_OK;
  const char *count = v->count ? v->count : v->ninputs ? "1" : NULL; /* --input alone asks for validation */
  if (count) st = set_int(pc, "testing.validate_each", count);
  if (!st && v->seed) st = set_int(pc, "testing.validate_each.seed", v->seed);
  if (st || !v->ninputs) return st;
  psg_attr *items[64] = {0}, *list = NULL;
  for (size_t k = 0; !st && k < v->ninputs; k++) st = psg_attr_string(ctx, v->inputs[k], strlen(v->inputs[k]), &items[k]);
  if (!st) st = psg_attr_list(ctx, items, v->ninputs, &list);
  if (!st) st = psg_pass_context_set_config(pc, "testing.validate_each.inputs", list);
  for (size_t k = 0; k < v->ninputs; k++) psg_attr_release(items[k]);
  psg_attr_release(list);
  return st;
}
