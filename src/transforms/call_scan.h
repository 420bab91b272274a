/* Passage — a scan of a function's calls for passes that first ask whether
 * they have anything to do (FoldScaleAxis's seeds, CanonicalizeOps'
 * nn.bias_add, CanonicalizeCast's casts): each call reachable from the root
 * once, in no particular order, with less work than a rewrite's walk: the
 * leaves (Var, GlobalVar, Constant, Op: no call below them) are not walked,
 * and a node held once (psgi_expr_held_once) is reached once, so only the
 * nodes held more than once go through a seen set. A Composite function
 * literal is kept whole (its body not walked), as the built-in passes'
 * rewrites keep it. Iterative. */
#ifndef PSG_TRANSFORMS_CALL_SCAN_H
#define PSG_TRANSFORMS_CALL_SCAN_H

#include "ir/ir_internal.h"

/* Returns true to stop the scan (the question is answered). */
typedef bool (*psgi_call_scan_fn)(void *user, const psg_expr *call);

/* visit(user, call) for every call reachable from `root` until one returns
 * true; *walked (may be NULL) counts the nodes walked (a size for budgets).
 * Inline, so that a caller's `visit` is compiled into its copy of the loop
 * (an indirect call per call node was a tenth of FoldScaleAxis's scan). */
static inline psg_status psgi_scan_calls(const psg_expr *root, psgi_call_scan_fn visit, void *user, size_t *walked) {
  psg_ctx *ctx = root->ctx;
  PSGI_VEC(const psg_expr *) stack = {0};
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  /* sized by the last walk (a hint): the nodes held twice are a fraction */
  size_t hint = psgi_expr_size_hint(root);
  psg_status st = PSG_OK;
  if ((hint && !psgi_map_reserve(&seen, hint / 8)) || !PSGI_VEC_PUSH(ctx, &stack, root)) st = psgi_nomem(ctx);
  size_t n = 0;
  while (!st && stack.len) {
    const psg_expr *e = stack.data[--stack.len];
    n++;
    if (e->kind == PSG_EXPR_CALL && visit(user, e)) break;
    if (e->kind == PSG_EXPR_FUNCTION && psgi_is_composite_fn(e)) continue;
    for (uint32_t i = 0; i < e->nkids; i++) {
      const psg_expr *k = e->kids[i];
      if (k->nkids == 0) continue;
      if (!psgi_expr_held_once(k)) {
        bool is_new = false;
        if (!psgi_map_put_ptr(&seen, k, &is_new)) {
          st = psgi_nomem(ctx);
          break;
        }
        if (!is_new) continue;
      }
      if (!PSGI_VEC_PUSH(ctx, &stack, k)) {
        st = psgi_nomem(ctx);
        break;
      }
    }
  }
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  if (walked) *walked = n;
  return st;
}

/* Whether `root` calls the built-in op of index `op` (PSGI_OP_*) anywhere. */
psg_status psgi_calls_op(const psg_expr *root, uint32_t op, bool *found);

/* Tests: true makes CanonicalizeOps and CanonicalizeCast skip their scans
 * and rewrite every function. */
extern bool psgi_canonicalize_exhaustive;

#endif
