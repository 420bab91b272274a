/* Deep-graph test for FuseOps and DefuseOps (STYLE rule 9), run with
 * `ulimit -s 1024`: a 1,000,000-op typed add chain fuses, under a Sequential
 * at opt level 2 (InferType through `required`), into 3,907 Primitive
 * functions of relay.FuseOps.max_depth = 256 ops (the last one 64), and
 * DefuseOps gives back a body structurally equal to the chain. */
#include <time.h>
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N, MAX_DEPTH = 256 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static psg_module *run_pass(psg_ctx *ctx, psg_module *m, const char *name) {
  psg_pass *p = NULL, *seq = NULL;
  psg_pass_context *pc = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(ctx, name, NULL, &p));
  CHECK_OK(psg_sequential(ctx, &p, 1, NULL, &seq));
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  if (seq) CHECK_OK(psg_pass_run(seq, m, pc, &out));
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  psg_pass_release(p);
  psg_pass_release(seq);
  psg_pass_context_release(pc);
  return out;
}

/* Ops in a fused body: a chain of adds through argument 0. */
static size_t chain_length(const psg_expr *e) {
  size_t n = 0;
  for (; psg_expr_kind(e) == PSG_EXPR_CALL; e = psg_call_get_arg(e, 0)) n++;
  return n;
}

static void test_fuse_add_chain(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *t = NULL;
  psg_expr *x = NULL, *add = NULL, *cur, *fn = NULL, *gv = NULL;
  psg_module *empty = NULL, *m = NULL;
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){2}, 1, PSG_DTYPE_FLOAT32, &t));
  CHECK_OK(psg_var_create(ctx, "x", t, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next = NULL;
    CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){cur, x}, 2, NULL, NULL, &next));
    psg_expr_release(cur);
    cur = next;
  }
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));

  double t0 = now();
  psg_module *fused = run_pass(ctx, m, "FuseOps");
  double t1 = now();
  CHECK(fused != NULL);
  /* Walk the calls of fused functions from the output back to %x. */
  size_t groups = 0, ops = 0;
  bool sizes_ok = true;
  const psg_expr *e = fused ? psg_function_get_body(psg_module_lookup(fused, "main")) : NULL;
  for (; e && psg_expr_kind(e) == PSG_EXPR_CALL; e = psg_call_get_arg(e, 0)) {
    const psg_expr *f = psg_call_get_callee(e);
    if (psg_expr_kind(f) != PSG_EXPR_FUNCTION || !psg_attrs_get(psg_function_get_attrs(f), "Primitive")) break;
    size_t len = chain_length(psg_function_get_body(f));
    /* Groups fill from the input side: all full but the one at the output. */
    sizes_ok &= groups == 0 ? len == N % MAX_DEPTH : len == MAX_DEPTH;
    groups++;
    ops += len;
  }
  CHECK(e == x);
  CHECK(sizes_ok);
  CHECK_EQ_INT((int)groups, (N + MAX_DEPTH - 1) / MAX_DEPTH);
  CHECK_EQ_INT((int)ops, N);

  double t2 = now();
  psg_module *defused = fused ? run_pass(ctx, fused, "DefuseOps") : NULL;
  double t3 = now();
  CHECK(defused && psg_expr_structural_equal(psg_function_get_body(psg_module_lookup(defused, "main")), cur));
  printf("FuseOps %.3f s, DefuseOps %.3f s on %d ops (%zu groups)\n", t1 - t0, t3 - t2, N, groups);

  psg_module_release(defused);
  psg_module_release(fused);
  psg_module_release(m);
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(cur);
  psg_expr_release(add);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_fuse_add_chain);
  return check_finish();
}
