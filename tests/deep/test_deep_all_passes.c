/* Deep-graph test for every registered pass (issue 7, STYLE rule 9), run with
 * `ulimit -s 1024`: a typed chain of 1,000,000 calls — blocks of
 * multiply(x, 0.5f), add(x, c) with a (2, 2) constant, relu, and a reshape
 * pair (2, 2) -> (4) -> (2, 2) — goes through each pass of the registry, one
 * at a time, inside a Sequential at opt level 4 (so `required` passes run).
 * Each must succeed, and a result that is not the input must evaluate to the
 * chain's value on a small input (within 1e-5: some passes reassociate).
 * CPU times are printed per pass so a pathologically slow one shows. The
 * registered pipelines O0..O3 are left out: they are these passes in a row
 * (test_deep_passes runs a Sequential of them), and would triple the time. */
#include <math.h>
#include <time.h>
#include "../unit/check.h"
#include "deep_size.h"

enum { OPS_PER_BLOCK = 5, BLOCKS = PASSAGE_DEEP_N / OPS_PER_BLOCK }; /* 1,000,000 calls */

/* CPU time of this process: the machine may be shared. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static psg_attrs *newshape(psg_ctx *ctx, const int64_t *dims, size_t n) {
  psg_attr *items[4] = {NULL}, *list = NULL;
  psg_attrs *attrs = NULL;
  const char *key = "newshape";
  for (size_t i = 0; i < n; i++) CHECK_OK(psg_attr_int(ctx, dims[i], &items[i]));
  CHECK_OK(psg_attr_list(ctx, items, n, &list));
  CHECK_OK(psg_attrs_create(ctx, &key, &list, 1, &attrs));
  for (size_t i = 0; i < n; i++) psg_attr_release(items[i]);
  psg_attr_release(list);
  return attrs;
}

static psg_expr *scalar(psg_ctx *ctx, float v) {
  psg_tensor *t = NULL;
  psg_expr *c = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, NULL, 0, &v, &t));
  CHECK_OK(psg_constant_create(ctx, t, NULL, &c));
  psg_tensor_release(t);
  return c;
}

/* Appends op(cur, arg) or op(cur) to the chain: cur is replaced. */
static void append(psg_ctx *ctx, psg_expr **cur, psg_expr *op, psg_expr *arg, psg_attrs *attrs) {
  psg_expr *next = NULL;
  psg_expr *args[2] = {*cur, arg};
  CHECK_OK(psg_call_create(ctx, op, args, arg ? 2 : 1, attrs, NULL, &next));
  psg_expr_release(*cur);
  *cur = next;
}

static psg_module *build_chain(psg_ctx *ctx) {
  const psg_type *t = NULL;
  psg_expr *x = NULL, *mul = NULL, *add = NULL, *relu = NULL, *reshape = NULL, *fn = NULL, *gv = NULL;
  psg_module *empty = NULL, *m = NULL;
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){2, 2}, 2, PSG_DTYPE_FLOAT32, &t));
  CHECK_OK(psg_var_create(ctx, "x", t, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "multiply", &mul));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  CHECK_OK(psg_op_get(ctx, "nn.relu", &relu));
  CHECK_OK(psg_op_get(ctx, "reshape", &reshape));
  psg_attrs *flat = newshape(ctx, (int64_t[]){4}, 1), *square = newshape(ctx, (int64_t[]){2, 2}, 2);
  /* One (2, 2) constant node shared by every add, and a new 0.5f per multiply
   * (equal constants in distinct nodes, for EliminateCommonSubexpr). */
  psg_tensor *ct = NULL;
  psg_expr *c = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){2, 2}, 2, (float[]){1.0f, -0.25f, 0.5f, 2.0f}, &ct));
  CHECK_OK(psg_constant_create(ctx, ct, NULL, &c));
  psg_expr *cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < BLOCKS; i++) {
    psg_expr *half = scalar(ctx, 0.5f);
    append(ctx, &cur, mul, half, NULL);
    append(ctx, &cur, add, c, NULL);
    append(ctx, &cur, relu, NULL, NULL);
    append(ctx, &cur, reshape, NULL, flat);
    append(ctx, &cur, reshape, NULL, square);
    psg_expr_release(half);
  }
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(cur);
  psg_expr_release(c);
  psg_tensor_release(ct);
  psg_attrs_release(flat);
  psg_attrs_release(square);
  psg_expr *ops[] = {x, mul, add, relu, reshape};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) psg_expr_release(ops[i]);
  return m;
}

/* @main's output on `in`, or NULL. */
static psg_tensor *eval(psg_ctx *ctx, psg_module *m, psg_tensor *in) {
  psg_tensor **out = NULL;
  size_t n = 0;
  psg_tensor *r = NULL;
  if (!psg_eval(ctx, m, "main", &in, 1, &out, &n) && n == 1) {
    r = out[0];
    out[0] = NULL;
  }
  for (size_t i = 0; i < n; i++) psg_tensor_release(out[i]);
  psg_free(out);
  return r;
}

static bool close_to(const psg_tensor *a, const psg_tensor *b) {
  if (!a || !b || psg_tensor_numel(a) != psg_tensor_numel(b) || psg_tensor_dtype(b) != PSG_DTYPE_FLOAT32) return false;
  const float *p = psg_tensor_data(a), *q = psg_tensor_data(b);
  for (int64_t i = 0; i < psg_tensor_numel(a); i++)
    if (!(fabs((double)p[i] - q[i]) <= 1e-5 * fmax(1.0, fabs((double)p[i])))) return false;
  return true;
}

/* The pipeline text that makes `pass` (options where a pass needs them). */
static const char *spec_of(const char *pass) {
  if (!strcmp(pass, "ConvertLayout")) return "ConvertLayout{desired_layouts={nn.conv2d=[\"NHWC\",\"default\"]}}";
  if (!strcmp(pass, "EtaExpand")) return "EtaExpand{expand_global_var=true}";
  return pass;
}

static void test_every_pass_on_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = build_chain(ctx);
  psg_tensor *in = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){2, 2}, 2, (float[]){-3.0f, 0.25f, 7.5f, 1.0f}, &in));
  psg_tensor *want = eval(ctx, m, in);
  CHECK(want != NULL);
  /* The fixed point of x -> relu(x / 2 + c) is 2c for c >= 0 and 0 else. */
  if (want) {
    const float *w = psg_tensor_data(want);
    CHECK(fabsf(w[0] - 2.0f) < 1e-5f && w[1] == 0.0f && fabsf(w[2] - 1.0f) < 1e-5f && fabsf(w[3] - 4.0f) < 1e-5f);
  }
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 4));
  size_t npasses = psg_pass_registry_count(ctx);
  CHECK(npasses >= 20);
  double total = 0;
  for (size_t i = 0; i < npasses; i++) {
    const char *name = psg_pass_registry_name(ctx, i);
    if (name[0] == 'O' && name[1] >= '0' && name[1] <= '9' && !name[2]) continue;
    psg_pass *p = NULL, *seq = NULL;
    psg_module *out = NULL;
    double t0 = now();
    CHECK_OK(psg_pipeline_parse(ctx, spec_of(name), &p));
    if (p) CHECK_OK(psg_sequential(ctx, &p, 1, NULL, &seq));
    psg_status st = seq ? psg_pass_run(seq, m, pc, &out) : PSG_ERR_INTERNAL;
    double t1 = now();
    CHECK_OK(st);
    if (st) {
      fprintf(stderr, "%s failed on the chain:\n", name);
      for (size_t k = 0; k < psg_ctx_diag_count(ctx); k++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, k)), stderr);
    }
    /* Evaluated only when the pass changed @main (an unchanged function is
     * the same node: nothing to evaluate again). */
    bool changed = out && psg_module_lookup(out, "main") != psg_module_lookup(m, "main");
    psg_tensor *got = changed ? eval(ctx, out, in) : NULL;
    bool same = !changed || close_to(want, got);
    CHECK(out != NULL && same);
    if (out && !same) fprintf(stderr, "%s: the chain evaluates to another value after the pass\n", name);
    printf("  %-24s pass %7.3f s CPU%s\n", name, t1 - t0, changed ? "" : "  (@main unchanged)");
    total += t1 - t0;
    psg_tensor_release(got);
    psg_module_release(out); /* releases the output chain here, iteratively */
    psg_pass_release(seq);
    psg_pass_release(p);
    psg_ctx_clear_diags(ctx); /* PrintIR's note holds the whole module's text */
  }
  printf("  all passes: %.3f s\n", total);
  psg_pass_context_release(pc);
  psg_tensor_release(want);
  psg_tensor_release(in);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_every_pass_on_chain);
  return check_finish();
}
