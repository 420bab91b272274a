/* passage ops: the operator table (TVM names, attributes, docs). */
#include <string.h>
#include "commands.h"

int cmd_ops(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: passage ops\nList every operator with its attributes and a one-line description.\n");
    return 0;
  }
  for (size_t i = 0; i < psg_op_count(); i++) {
    printf("%-24s %s", psg_op_name_at(i), psg_op_doc(i));
    if (psg_op_num_attrs(i)) {
      printf(" [");
      for (size_t j = 0; j < psg_op_num_attrs(i); j++) printf("%s%s", j ? ", " : "", psg_op_attr_name(i, j));
      printf("]");
    }
    printf("\n");
  }
  return 0;
}
