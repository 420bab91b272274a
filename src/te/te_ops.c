/* Passage — the table of compute definitions (te_ops.def) by Relay op name. */
#include <stdio.h>
#include "te/te.h"

static const struct {
  const char *op;
  psgi_te_compute_fn fn;
} computes[] = {
#define TE(op, fn) {op, psgi_te_##fn},
#include "te/te_ops.def"
#undef TE
};

psgi_te_compute_fn psgi_te_find_compute(const char *name) {
  for (size_t i = 0; i < sizeof computes / sizeof computes[0]; i++)
    if (!strcmp(computes[i].op, name)) return computes[i].fn;
  return NULL;
}

/* The stage name TOPI gives an op's output: "T_" + the op name without its
 * namespace ("nn.relu" -> "T_relu"). */
const char *psgi_te_stage_name(psgi_te_call *c, char *buf, size_t size) {
  const char *dot = strrchr(c->op, '.');
  snprintf(buf, size, "T_%s", dot ? dot + 1 : c->op);
  return buf;
}
