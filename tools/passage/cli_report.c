/* passage opt --report=FILE [--report-graphs=none|ends|each]: the one-file
 * HTML run report (docs/report.md), an instrument added to the run's
 * PassContext that writes FILE when the context exits. */
#include <string.h>
#include "commands.h"

int cli_report_parse(int argc, char **argv, int *i, cli_report_opts *o) {
  const char *v;
  if ((v = cli_flag_value(argc, argv, i, "--report-graphs")) != NULL) {
    if (!strcmp(v, "none")) o->graphs = PSG_REPORT_GRAPHS_NONE;
    else if (!strcmp(v, "ends")) o->graphs = PSG_REPORT_GRAPHS_ENDS;
    else if (!strcmp(v, "each")) o->graphs = PSG_REPORT_GRAPHS_EACH;
    else {
      fprintf(stderr, "passage opt: --report-graphs takes none, ends or each, not '%s'\n", v);
      return -1;
    }
    o->graphs_given = true;
    return 1;
  }
  if ((v = cli_flag_value(argc, argv, i, "--report")) != NULL) {
    if (!*v) {
      fprintf(stderr, "passage opt: --report needs a file name\n");
      return -1;
    }
    o->path = v;
    return 1;
  }
  return 0;
}

psg_status cli_report_add(psg_ctx *ctx, psg_pass_context *pc, const cli_report_opts *o) {
  if (!o->path) {
    if (o->graphs_given) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "--report-graphs needs --report=FILE");
    return PSG_OK;
  }
  psg_instrument *inst = NULL;
  psg_status st = psg_report_instrument_create(ctx, o->path, o->graphs_given ? o->graphs : PSG_REPORT_GRAPHS_ENDS, &inst);
  if (!st) st = psg_pass_context_add_instrument(pc, inst);
  psg_instrument_release(inst);
  return st;
}
