/* Semantic checks of every registered pass on generated programs (issue 7,
 * "Tests"): a seeded generator writes small typed Relay programs in the text
 * format (parameters and metadata constants of small static shapes through
 * elementwise and broadcast ops, reshape/transpose/expand_dims chains,
 * identity arithmetic with 0/1 constants, conv2d + batch_norm/scale/bias +
 * relu blocks, dense + bias_add, let bindings some of them dead, shared
 * subexpressions, casts to float64 and back). For every pass of the registry,
 * run inside a Sequential at opt level 4 (so `required` passes run), the
 * interpreter must give the same outputs before and after: bit for bit, or
 * within 1e-5 of the output's largest magnitude for the passes that
 * reassociate arithmetic. A second run must give a structurally equal module
 * (idempotence). A failure prints the smallest program that shows it.
 * No pass is skipped (ConvertLayout, the one that needs an option, gets
 * conv2d NCHW -> NHWC) and none is exempt from idempotence; the pipelines
 * O0..O3 run too.
 *
 *   test_passes_random [SEED [COUNT [print]]]   (default: seed 1, 300 programs) */
#include <math.h>
#include <stdarg.h>
#include "check.h"
#include "random_relay.h"

enum { MAX_PASSES = 64 };

/* Checking ------------------------------------------------------------------------ */

/* Passes that reassociate floating-point arithmetic (and the pipelines that
 * contain them): outputs compared within a tolerance. */
static double tolerance_of(const char *pass) {
  static const char *const loose[] = {"FoldScaleAxis", "BackwardFoldScaleAxis", "ForwardFoldScaleAxis",
                                      "SimplifyExpr", "SimplifyInference", "CombineParallelConv2D", "CombineParallelDense", "DivToMul",
                                      "O0", "O1", "O2", "O3"};
  /* TE's reductions and normalizations are loop nests whose order of float
   * operations is not the kernels': the project tolerance (a layer_norm of a
   * nearly constant row amplifies a different summation order to ~3e-5). */
  if (!strcmp(pass, "LowerTE") || !strcmp(pass, "lower")) return 1e-4;
  /* FastMath is bit-exact here: fast_exp/fast_tanh/fast_erf share the exact
   * kernels in the interpreter (src/ops/elemwise.c). A real approximation
   * would need a bound near 1e-4 (TVM's fast_exp is good to ~1e-5). */
  for (size_t i = 0; i < sizeof loose / sizeof *loose; i++)
    if (!strcmp(pass, loose[i])) return 1e-5;
  return 0;
}

/* The pipeline text that makes `pass` (options where a pass needs them). */
static const char *spec_of(const char *pass) {
  if (!strcmp(pass, "ConvertLayout")) return "ConvertLayout{desired_layouts={nn.conv2d=[\"NHWC\",\"default\"]}}";
  /* The generated programs are training graphs (dropout, batch_norm), which
   * TVM's relay.build always runs SimplifyInference on before lowering: those
   * ops have no compute definition in TVM either. */
  if (!strcmp(pass, "EtaExpand")) return "EtaExpand{expand_global_var=true}";
  /* Two denses on one input are what the generator writes most. */
  if (!strcmp(pass, "CombineParallelDense")) return "CombineParallelDense{min_num_branches=2}";
  if (!strcmp(pass, "LowerTE")) return "sequential(SimplifyInference,LowerTE)";
  if (!strcmp(pass, "lower")) return "sequential(SimplifyInference,lower)";
  return pass;
}

typedef struct pass_stats {
  const char *name;
  int runs, changed, value_failures, idem_failures, run_failures;
  double worst;
  char *smallest; /* the smallest failing program */
  char *what;
} pass_stats;

static void note_failure(pass_stats *ps, const char *text, const char *what) {
  if (!ps->smallest || strlen(text) < strlen(ps->smallest)) {
    free(ps->smallest);
    free(ps->what);
    ps->smallest = strdup(text);
    ps->what = strdup(what);
  }
}

static void print_diags(psg_ctx *ctx) {
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    if (psg_diag_severity(d) == PSG_SEVERITY_ERROR) fputs(psg_diag_rendered(d), stderr);
  }
}

/* Largest |a - b| relative to the largest |a| of each output; INFINITY when
 * shapes or dtypes differ; 0 when bit-identical. */
static double difference(psg_tensor *const *a, size_t na, psg_tensor *const *b, size_t nb, bool *bit_equal) {
  *bit_equal = na == nb;
  if (na != nb) return INFINITY;
  double worst = 0;
  for (size_t k = 0; k < na; k++) {
    if (!psg_tensor_equal(a[k], b[k])) *bit_equal = false;
    int dt = psg_tensor_dtype(a[k]);
    if (dt != psg_tensor_dtype(b[k]) || psg_tensor_numel(a[k]) != psg_tensor_numel(b[k])) return INFINITY;
    if (psg_tensor_ndim(a[k]) != psg_tensor_ndim(b[k])) return INFINITY;
    for (int d = 0; d < psg_tensor_ndim(a[k]); d++)
      if (psg_tensor_dim(a[k], d) != psg_tensor_dim(b[k], d)) return INFINITY;
    int64_t n = psg_tensor_numel(a[k]);
    double scale = 0, diff = 0;
    for (int64_t i = 0; i < n; i++) {
      double x = dt == PSG_DTYPE_FLOAT64 ? ((const double *)psg_tensor_data(a[k]))[i] : ((const float *)psg_tensor_data(a[k]))[i];
      double y = dt == PSG_DTYPE_FLOAT64 ? ((const double *)psg_tensor_data(b[k]))[i] : ((const float *)psg_tensor_data(b[k]))[i];
      if (isnan(x) != isnan(y)) return INFINITY;
      if (isnan(x)) continue;
      scale = fmax(scale, fabs(x));
      diff = fmax(diff, fabs(x - y));
    }
    worst = fmax(worst, scale > 0 ? diff / scale : diff);
  }
  return worst;
}

static psg_tensor *random_tensor(psg_ctx *ctx, const psg_type *t, uint64_t *rng) {
  int64_t shape[PSG_MAX_RANK];
  int nd = psg_type_ndim(t);
  for (int d = 0; d < nd; d++) shape[d] = psg_type_dim(t, d);
  int64_t n = numel(shape, nd);
  float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  for (int64_t i = 0; i < n; i++) {
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = (float)((*rng >> 33) % 20001) / 10000.0f - 1.0f;
  }
  psg_tensor *out = NULL;
  psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, nd, v, &out);
  free(v);
  return out;
}

static psg_module *run_in_sequential(psg_ctx *ctx, psg_pass *p, psg_pass_context *pc, psg_module *m) {
  psg_pass *seq = NULL;
  psg_module *out = NULL;
  if (!psg_sequential(ctx, &p, 1, NULL, &seq)) psg_pass_run(seq, m, pc, &out);
  psg_pass_release(seq);
  return out;
}

static void free_outputs(psg_tensor **t, size_t n) {
  for (size_t i = 0; i < n; i++) psg_tensor_release(t[i]);
  psg_free(t);
}

/* One program through every pass. */
static void check_program(const char *text, uint64_t seed, pass_stats *stats, size_t npasses) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL;
  if (psg_module_parse(ctx, text, strlen(text), "random.relay", &m)) {
    print_diags(ctx);
    fprintf(stderr, "generated program %llu does not parse:\n%s", (unsigned long long)seed, text);
    CHECK(false);
    psg_ctx_release(ctx);
    return;
  }
  const psg_expr *f = psg_module_lookup(m, "main");
  size_t n = psg_function_num_params(f);
  psg_tensor *in[8] = {NULL};
  uint64_t rng = seed + 99;
  for (size_t i = 0; i < n; i++) in[i] = random_tensor(ctx, psg_var_type(psg_function_get_param(f, i)), &rng);
  psg_tensor **ref = NULL;
  size_t nref = 0;
  if (psg_eval(ctx, m, "main", in, n, &ref, &nref)) {
    print_diags(ctx);
    fprintf(stderr, "generated program %llu does not evaluate:\n%s", (unsigned long long)seed, text);
    CHECK(false);
  }
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 4));
  for (size_t k = 0; ref && k < npasses; k++) {
    pass_stats *ps = &stats[k];
    psg_pass *p = NULL;
    psg_module *once = NULL, *twice = NULL;
    char what[256];
    if (psg_pipeline_parse(ctx, spec_of(ps->name), &p)) {
      ps->run_failures++;
      note_failure(ps, text, "cannot make the pass");
      continue;
    }
    ps->runs++;
    once = run_in_sequential(ctx, p, pc, m);
    if (!once) {
      ps->run_failures++;
      snprintf(what, sizeof what, "the pass fails: %s",
               psg_ctx_diag_count(ctx) ? psg_diag_message(psg_ctx_get_diag(ctx, psg_ctx_diag_count(ctx) - 1)) : "?");
      note_failure(ps, text, what);
    } else {
      if (!psg_module_structural_equal(once, m, NULL)) ps->changed++;
      psg_tensor **got = NULL;
      size_t ngot = 0;
      bool bit_equal = false;
      double d = INFINITY;
      if (!psg_eval(ctx, once, "main", in, n, &got, &ngot)) d = difference(ref, nref, got, ngot, &bit_equal);
      double tol = tolerance_of(ps->name);
      if (d > ps->worst) ps->worst = d;
      if (tol == 0 ? !bit_equal : !(d <= tol)) {
        ps->value_failures++;
        snprintf(what, sizeof what, "outputs differ: %s (relative %.3g, allowed %.3g)",
                 tol == 0 ? "not bit-identical" : "beyond the tolerance", d, tol);
        note_failure(ps, text, what);
      }
      free_outputs(got, ngot);
      twice = run_in_sequential(ctx, p, pc, once);
      char *path = NULL;
      if (!twice) {
        ps->run_failures++;
        note_failure(ps, text, "the second run fails");
      } else if (!psg_module_structural_equal(twice, once, &path)) {
        ps->idem_failures++;
        snprintf(what, sizeof what, "not idempotent: first difference at %s", path ? path : "?");
        note_failure(ps, text, what);
      }
      psg_free(path);
    }
    psg_module_release(twice);
    psg_module_release(once);
    psg_pass_release(p);
    psg_ctx_clear_diags(ctx);
  }
  psg_pass_context_release(pc);
  free_outputs(ref, nref);
  for (size_t i = 0; i < n; i++) psg_tensor_release(in[i]);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  int count = argc > 2 ? atoi(argv[2]) : 300;
  psg_ctx *ctx = check_ctx();
  pass_stats stats[MAX_PASSES];
  size_t npasses = 0;
  memset(stats, 0, sizeof stats);
  static char names[MAX_PASSES][64];
  for (size_t i = 0; i < psg_pass_registry_count(ctx) && npasses < MAX_PASSES; i++) {
    const char *name = psg_pass_registry_name(ctx, i);
    snprintf(names[npasses], sizeof names[npasses], "%s", name);
    stats[npasses].name = names[npasses];
    npasses++;
  }
  psg_ctx_release(ctx);
  CHECK(npasses >= 20);
  for (int i = 0; i < count; i++) {
    uint64_t s = seed * 100003u + (uint64_t)i;
    char *text = generate(s, 3 + i % 12);
    if (argc > 3) printf("program %llu:\n%s\n", (unsigned long long)s, text); /* for reproducers */
    check_program(text, s, stats, npasses);
    free(text);
  }
  /* "differs": the output is not structurally equal to the input (merging
   * equal nodes, as CSE does, is invisible to structural equality). */
  printf("%-24s %5s %7s %9s %6s %5s %5s\n", "pass", "runs", "differs", "worst", "values", "idem", "fail");
  for (size_t k = 0; k < npasses; k++) {
    pass_stats *ps = &stats[k];
    printf("%-24s %5d %7d %9.2g %6d %5d %5d\n", ps->name, ps->runs, ps->changed, ps->worst, ps->value_failures,
           ps->idem_failures, ps->run_failures);
    CHECK_EQ_INT(ps->value_failures + ps->idem_failures + ps->run_failures, 0);
    if (ps->smallest) fprintf(stderr, "\n== %s: %s; smallest program:\n%s\n", ps->name, ps->what, ps->smallest);
    free(ps->smallest);
    free(ps->what);
  }
  return check_finish();
}
