/* libFuzzer target for the interpreter and the -O3 pipeline (issue 14): the
 * bytes become a random well-typed Relay program (interp_gen.c), printed as
 * text and parsed (which also exercises the parser on every program), then
 * InferType, and @main is evaluated with psg_eval under small limits set in
 * the PassContext (call depth, evaluation bytes, folded-constant bytes).
 * Invariants, each a crash when broken:
 *  - the program parses and type-checks (the generator writes only typed
 *    programs, so a failure is a relation or parser bug);
 *  - an evaluation succeeds, or fails with a status and a diagnostic;
 *  - `passage opt -O3`'s pipeline succeeds (or fails with a located error
 *    where the evaluation failed too), and its result prints and parses;
 *  - when @main evaluated before, the optimised @main evaluates to the same
 *    outputs: ints and bools bit for bit, floats within a tolerance, NaN
 *    where NaN. The optimised module runs with a larger call depth (fused
 *    functions add activations) and byte budget, so a limit alone is no
 *    mismatch. A normalisation's output may instead match the original
 *    after SimplifyInference alone (TVM's float32 decomposition). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp_gen.h"
#include "passage/passage.h"

enum { MAX_INPUT = 4096, DEPTH = 50 };
static const int64_t MAX_BYTES = (int64_t)64 << 20;
static const int64_t MAX_CONSTANT_BYTES = 4096;

static void dump_diags(psg_ctx *ctx) {
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
}

static void fail(psg_ctx *ctx, const char *text, const char *what, const char *detail) {
  if (text) fprintf(stderr, "--- program\n%s--- diagnostics\n", text);
  if (ctx) dump_diags(ctx);
  fprintf(stderr, "fuzz_interp: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort(); /* test code: libFuzzer records the input as a crash */
}

static int psg_dtype_of(int gen_dt) {
  static const int map[] = {PSG_DTYPE_FLOAT32, PSG_DTYPE_FLOAT64, PSG_DTYPE_INT32, PSG_DTYPE_INT64,
                            PSG_DTYPE_INT8,    PSG_DTYPE_UINT8,   PSG_DTYPE_BOOL};
  return map[gen_dt];
}

/* xorshift64*, seeded from the input, for the input tensors' values. */
static uint64_t next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* Inputs: mostly small values, some edge values (0, -0, inf, NaN, the
 * integer extremes: INT_MIN / -1 and friends). */
static psg_tensor *make_input(psg_ctx *ctx, const gen_type *t, uint64_t *seed, bool *extreme) {
  int64_t shape[GEN_MAX_RANK];
  int64_t n = 1;
  for (int i = 0; i < t->nd; i++) n *= shape[i] = t->d[i];
  int dt = psg_dtype_of(t->dt);
  psg_tensor *x = NULL;
  if (psg_tensor_create(ctx, dt, shape, t->nd, NULL, &x)) fail(ctx, NULL, "cannot create an input", NULL);
  void *d = (void *)psg_tensor_data(x);
  static const double fedge[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e30, -1e-30, 65504.0, 3.0, -2.5};
  static const int64_t iedge[] = {0, -1, 1, INT64_MIN, INT64_MAX, 2, -2, 127, -128, 255};
  bool edgy = next(seed) % 4 == 0;
  *extreme |= edgy;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = next(seed);
    bool edge = edgy && r % 5 == 0;
    double f = edge ? fedge[(r >> 8) % 10] : (double)((int64_t)(r >> 40) % 2000) / 250.0;
    int64_t v = edge ? iedge[(r >> 8) % 10] : (int64_t)((r >> 40) % 21) - 10;
    switch (dt) {
    case PSG_DTYPE_FLOAT32: ((float *)d)[i] = (float)f; break;
    case PSG_DTYPE_FLOAT64: ((double *)d)[i] = f; break;
    case PSG_DTYPE_INT32: ((int32_t *)d)[i] = edge && v == INT64_MIN ? INT32_MIN : edge && v == INT64_MAX ? INT32_MAX : (int32_t)v; break;
    case PSG_DTYPE_INT64: ((int64_t *)d)[i] = v; break;
    case PSG_DTYPE_INT8: ((int8_t *)d)[i] = (int8_t)(uint8_t)v; break;
    case PSG_DTYPE_UINT8: ((uint8_t *)d)[i] = (uint8_t)v; break;
    default: ((uint8_t *)d)[i] = (uint8_t)(r >> 63); break;
    }
  }
  return x;
}

static psg_pass_context *limits_context(psg_ctx *ctx, int64_t depth, int64_t bytes) {
  psg_pass_context *pc = NULL;
  if (psg_pass_context_create(ctx, &pc) || psg_pass_context_set_opt_level(pc, 3))
    fail(ctx, NULL, "cannot create a pass context", NULL);
  const char *keys[3] = {"relay.interp.max_call_depth", "passage.interp.max_bytes", "passage.max_constant_bytes"};
  int64_t vals[3] = {depth, bytes, MAX_CONSTANT_BYTES};
  for (int i = 0; i < 3; i++) {
    psg_attr *a = NULL;
    if (psg_attr_int(ctx, vals[i], &a) || psg_pass_context_set_config(pc, keys[i], a))
      fail(ctx, NULL, "cannot set a config option", keys[i]);
    psg_attr_release(a);
  }
  return pc;
}

/* Evaluates @main of mod under pc: PSG_OK with the outputs, or a failure
 * that must carry a diagnostic. */
static psg_status eval_under(psg_ctx *ctx, psg_pass_context *pc, const psg_module *mod, psg_tensor **in, int nin,
                             psg_tensor ***outs, size_t *nouts, const char *text) {
  if (psg_pass_context_enter(pc)) fail(ctx, text, "cannot enter the pass context", NULL);
  size_t before = psg_ctx_diag_count(ctx);
  psg_status st = psg_eval(ctx, mod, "main", in, (size_t)nin, outs, nouts);
  if (psg_pass_context_exit(pc)) fail(ctx, text, "cannot exit the pass context", NULL);
  if (st) {
    if (*outs || *nouts) fail(ctx, text, "a failed evaluation returned outputs", NULL);
    if (psg_ctx_diag_count(ctx) == before) fail(ctx, text, "a failed evaluation left no diagnostic", psg_status_str(st));
    if (st == PSG_ERR_INTERNAL) fail(ctx, text, "an evaluation failed with an internal error", NULL);
  }
  return st;
}

static double load(const psg_tensor *t, int64_t i) {
  const void *d = psg_tensor_data(t);
  switch (psg_tensor_dtype(t)) {
  case PSG_DTYPE_FLOAT32: return ((const float *)d)[i];
  case PSG_DTYPE_FLOAT64: return ((const double *)d)[i];
  default: return 0;
  }
}

/* Whether two float values agree: both NaN, equal (infinities included), or
 * within a tolerance relative to the values and to the output's scale (the
 * largest finite magnitude in it, at least 1): a rewrite that rounds
 * differently, or a float32 decomposition of a kernel that accumulates in
 * double, moves a value near zero by a rounding error of its inputs'
 * magnitude, which later ops may scale up as much as the rest. */
static bool close_enough(double a, double b, double scale) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (a == b) return true;
  if (isinf(a) || isinf(b)) return false;
  double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= 1e-4 * m + 1e-4 * scale;
}

/* Whether b has a's dtype, shape and values (ints bit for bit, floats
 * close_enough); *bad is the first differing element, or -1 for a dtype or
 * shape change. */
static bool same_values(const psg_tensor *a, const psg_tensor *b, int64_t *bad) {
  *bad = -1;
  if (psg_tensor_dtype(a) != psg_tensor_dtype(b) || psg_tensor_ndim(a) != psg_tensor_ndim(b)) return false;
  for (int i = 0; i < psg_tensor_ndim(a); i++)
    if (psg_tensor_dim(a, i) != psg_tensor_dim(b, i)) return false;
  int dt = psg_tensor_dtype(a);
  if (dt != PSG_DTYPE_FLOAT32 && dt != PSG_DTYPE_FLOAT64) {
    *bad = 0;
    return psg_tensor_equal(a, b);
  }
  double scale = 1;
  for (int64_t i = 0; i < psg_tensor_numel(a); i++)
    if (isfinite(load(a, i)) && fabs(load(a, i)) > scale) scale = fabs(load(a, i));
  for (int64_t i = 0; i < psg_tensor_numel(a); i++)
    if (!close_enough(load(a, i), load(b, i), scale)) {
      *bad = i;
      return false;
    }
  return true;
}

static void compare_failed(psg_ctx *ctx, const char *text, size_t k, const psg_tensor *a, const psg_tensor *b,
                           int64_t bad) {
  char what[96];
  snprintf(what, sizeof what, "output %zu", k);
  if (bad < 0) fail(ctx, text, "-O3 changed the dtype or shape of", what);
  int dt = psg_tensor_dtype(a);
  if (dt == PSG_DTYPE_FLOAT32 || dt == PSG_DTYPE_FLOAT64)
    fprintf(stderr, "element %lld: %.9g before, %.9g after\n", (long long)bad, load(a, bad), load(b, bad));
  fail(ctx, text, "-O3 changed the values of", what);
}

/* @main of mod after SimplifyInference alone, evaluated under pc: the
 * float32 reference for norm outputs. False when it does not evaluate. */
static bool eval_simplified(psg_ctx *ctx, psg_pass_context *pc, psg_module *mod, psg_tensor **in, int nin,
                            psg_tensor ***outs, size_t *nouts, const char *text) {
  psg_pass *si = NULL;
  psg_module *simple = NULL;
  if (psg_pipeline_parse(ctx, "SimplifyInference", &si)) fail(ctx, text, "cannot parse SimplifyInference", NULL);
  bool ok = !psg_pass_run(si, mod, pc, &simple) && !eval_under(ctx, pc, simple, in, nin, outs, nouts, text);
  psg_module_release(simple);
  psg_pass_release(si);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return 0;
  gen_type params[GEN_MAX_PARAMS];
  int np = 0;
  uint32_t mask = 0, norm_mask = 0;
  bool value_sized = false;
  char *text = gen_program(data, size, params, &np, &mask, &norm_mask, &value_sized);
  if (!text) return 0;
  if (getenv("FUZZ_INTERP_PRINT")) fputs(text, stderr);
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) fail(NULL, text, "cannot create a context", NULL);
  psg_module *m = NULL, *typed = NULL, *opt = NULL, *reparsed = NULL;
  psg_pass *infer = NULL, *o3 = NULL;
  psg_tensor *in[GEN_MAX_PARAMS] = {0}, **outs = NULL, **outs2 = NULL, **outs3 = NULL;
  size_t nouts = 0, nouts2 = 0, nouts3 = 0;
  bool simplified = false;
  char *printed = NULL;
  if (psg_module_parse(ctx, text, strlen(text), "gen.relay", &m)) fail(ctx, text, "the program does not parse", NULL);
  psg_pass_context *pc = limits_context(ctx, DEPTH, MAX_BYTES);
  if (psg_pass_get(ctx, "InferType", NULL, &infer)) fail(ctx, text, "no InferType", NULL);
  if (psg_pass_run(infer, m, pc, &typed)) fail(ctx, text, "the program does not type-check", NULL);

  uint64_t seed = 0x9e3779b97f4a7c15ull ^ size;
  for (size_t i = 0; i < size && i < 16; i++) seed = seed * 31 + data[i];
  bool extreme = false;
  for (int i = 0; i < np; i++) in[i] = make_input(ctx, &params[i], &seed, &extreme);
  if (extreme) mask &= ~norm_mask;
  psg_status st = eval_under(ctx, pc, typed, in, np, &outs, &nouts, text);
  if (getenv("FUZZ_INTERP_STATUS")) /* for tuning the generator: how often and why evaluation fails */
    fprintf(stderr, "eval: %s %s", psg_status_str(st),
            st && psg_ctx_get_last_error(ctx) ? psg_diag_message(psg_ctx_get_last_error(ctx)) : "\n");

  /* The -O3 pipeline, as `passage opt -O3` builds it. */
  if (psg_pipeline_parse(ctx, "O3", &o3)) fail(ctx, text, "cannot parse the O3 pipeline", NULL);
  if (psg_pass_context_enter(pc)) fail(ctx, text, "cannot enter the pass context", NULL);
  psg_status ost = psg_pass_run(o3, typed, pc, &opt);
  psg_pass_context_exit(pc);
  /* -O3 may fail only where the evaluation failed, or with a located type
   * error in a program with value-sized dims: one whose types hold unknown
   * dims (arange) type-checks, but once FoldConstant makes its shapes static
   * a contradiction is InferType's error, met by the evaluation or hidden in
   * an `if` branch it did not take (TVM's arange relation sees the constant
   * bounds, so TVM refuses such a program at the first InferType). */
  if (ost && !st && !(value_sized && ost == PSG_ERR_TYPE))
    fail(ctx, text, "-O3 fails on a program that evaluates", psg_status_str(ost));
  if (ost && (ost == PSG_ERR_INTERNAL || psg_ctx_diag_count(ctx) == 0))
    fail(ctx, text, "-O3 failed without a located error", psg_status_str(ost));
  size_t plen = 0;
  if (!ost && psg_module_print(opt, PSG_PRINT_DEFAULT, &printed, &plen))
    fail(ctx, text, "the optimised module does not print", NULL);
  if (!ost && psg_module_parse(ctx, printed, plen, "opt.relay", &reparsed)) {
    fprintf(stderr, "--- optimised\n%s", printed);
    fail(ctx, text, "the printed optimised module does not parse", NULL);
  }

  if (!st && !ost) {
    psg_pass_context *pc2 = limits_context(ctx, 4 * DEPTH + 4, 4 * MAX_BYTES);
    psg_status st2 = eval_under(ctx, pc2, opt, in, np, &outs2, &nouts2, text);
    psg_pass_context_release(pc2);
    if (st2) fail(ctx, text, "the optimised module fails where the original evaluates", psg_status_str(st2));
    if (nouts != nouts2) fail(ctx, text, "-O3 changed the number of outputs", NULL);
    for (size_t k = 0; k < nouts; k++) {
      int64_t bad = 0;
      if (k >= 32 || !(mask >> k & 1) || same_values(outs[k], outs2[k], &bad)) continue;
      /* A norm output has two references: the double-accumulating kernel
       * and TVM's float32 decomposition (SimplifyInference), which overflows
       * where the kernel does not (a prod makes values near 1e30 from
       * ordinary inputs, and their squares are inf in float32). -O3 is right
       * when it agrees with either. */
      if ((norm_mask >> k & 1) && bad >= 0) {
        if (!simplified) simplified = eval_simplified(ctx, pc, typed, in, np, &outs3, &nouts3, text);
        int64_t bad3 = 0;
        if (simplified && k < nouts3 && same_values(outs3[k], outs2[k], &bad3)) continue;
      }
      compare_failed(ctx, text, k, outs[k], outs2[k], bad);
    }
  }

  for (size_t k = 0; k < nouts; k++) psg_tensor_release(outs[k]);
  for (size_t k = 0; k < nouts2; k++) psg_tensor_release(outs2[k]);
  for (size_t k = 0; k < nouts3; k++) psg_tensor_release(outs3[k]);
  psg_free(outs);
  psg_free(outs2);
  psg_free(outs3);
  for (int i = 0; i < np; i++) psg_tensor_release(in[i]);
  psg_free(printed);
  psg_pass_release(infer);
  psg_pass_release(o3);
  psg_module_release(m);
  psg_module_release(typed);
  psg_module_release(opt);
  psg_module_release(reparsed);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
  free(text);
  return 0;
}
