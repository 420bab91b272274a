/* Passage — psgi_calls_op over the inline scan of call_scan.h. */
#include "transforms/call_scan.h"

typedef struct op_search {
  uint32_t op;
  bool found;
} op_search;

static bool is_the_op(void *user, const psg_expr *call) {
  op_search *s = user;
  const psg_expr *callee = call->kids[0];
  return s->found = callee->kind == PSG_EXPR_OP && callee->u.op == s->op;
}

psg_status psgi_calls_op(const psg_expr *root, uint32_t op, bool *found) {
  op_search s = {op, false};
  psg_status st = psgi_scan_calls(root, is_the_op, &s, NULL);
  *found = st || s.found; /* after an error: as if found (the caller's full walk decides) */
  return st;
}
