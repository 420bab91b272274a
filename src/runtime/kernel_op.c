/* Passage — the op a kernel is for, read back from its name, so that a
 * profile can be summed per op kind. LowerTE names a kernel
 * "<module>_fused_" + the names of the ops it calls, in post order, with '.'
 * as '_' (src/lower/lower_te_name.c), maybe cut past 80 characters and made
 * unique with "_1", "_2": the ops are read greedily (longest op name first)
 * until something is not an op name, and the one of the highest fusion
 * pattern (conv2d over the add and relu fused into it) is the anchor. */
#include <string.h>
#include "passage/op.h"
#include "runtime/runtime_internal.h"

/* Whether `s` starts with op name `op` spelled with '_' for '.'. */
static size_t match_op(const char *s, const char *op) {
  size_t i = 0;
  for (; op[i]; i++)
    if (s[i] != (op[i] == '.' ? '_' : op[i])) return 0;
  return i;
}

const char *psgi_compiled_anchor_op(const char *kernel_name) {
  const char *s = strstr(kernel_name, "fused_");
  if (!s) return NULL;
  s += strlen("fused_");
  const char *anchor = NULL;
  int anchor_pattern = -2;
  size_t nops = psg_op_count();
  while (*s) {
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < nops; i++) {
      size_t len = match_op(s, psg_op_name_at(i));
      if (len > best_len && (s[len] == '_' || s[len] == '\0')) best = i, best_len = len;
    }
    if (!best_len) break;
    /* An op without behaviour (-1) still names the kernel if nothing else does. */
    int pattern = psg_op_pattern(best);
    if (pattern == PSG_OP_PATTERN_TUPLE) pattern = -1;
    if (pattern > anchor_pattern) anchor = psg_op_name_at(best), anchor_pattern = pattern;
    s += best_len;
    if (*s == '_') s++;
  }
  return anchor;
}
