/* passage ops: the operator table (TVM names, fusion pattern, whether the op
 * is stateful and can be evaluated, attributes, docs). */
#include <string.h>
#include "commands.h"
#include "passage/te.h"

int cmd_ops(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: passage ops\n"
           "List every operator: its name, TOpPattern (\"-\" when it has no behaviour yet),\n"
           "flags (kernel: evaluable by the interpreter and FoldConstant; stateful: never\n"
           "folded; lower: has a compute definition, so LowerTE lowers it to TIR), a\n"
           "one-line description and its attributes.\n");
    return 0;
  }
  if (argc > 1) return fprintf(stderr, "passage ops: unknown argument '%s'\n", argv[1]), 2;
  for (size_t i = 0; i < psg_op_count(); i++) {
    const char *pattern = psg_op_pattern_name(psg_op_pattern(i));
    char flags[32];
    bool lower = psg_te_has_compute(psg_op_name_at(i));
    snprintf(flags, sizeof flags, "%s%s%s%s%s", psg_op_has_kernel(i) ? "kernel" : "",
             psg_op_has_kernel(i) && psg_op_is_stateful(i) ? "," : "", psg_op_is_stateful(i) ? "stateful" : "",
             lower && (psg_op_has_kernel(i) || psg_op_is_stateful(i)) ? "," : "", lower ? "lower" : "");
    printf("%-24s %-20s %-15s %s", psg_op_name_at(i), pattern ? pattern : "-", flags[0] ? flags : "-",
           psg_op_doc(i));
    if (psg_op_num_attrs(i)) {
      printf(" [");
      for (size_t j = 0; j < psg_op_num_attrs(i); j++) printf("%s%s", j ? ", " : "", psg_op_attr_name(i, j));
      printf("]");
    }
    printf("\n");
  }
  return 0;
}
