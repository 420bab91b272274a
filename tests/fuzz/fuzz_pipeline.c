/* libFuzzer target for pipeline text and `--config` values (issue 14).
 *
 * Input: lines. The first is the pipeline text (psg_pipeline_parse); each
 * further line is "-O0".."-O3" (the PassContext's opt level) or a config
 * assignment KEY=VALUE, set through psg_pass_context_set_config_text, the
 * path `passage opt --config` takes.
 *
 * Invariants (a violation aborts, so libFuzzer records the input):
 * - a failed config assignment or pipeline parse leaves an error located in
 *   its text ("--config:1:COL", "<pipeline>:1:COL");
 * - a parsed pipeline prints, the print parses, and printing that gives the
 *   same text (also for the expanded print, which writes out O0..O3);
 * - running it over a small fixed module (conv, dense, let, if, tuple, calls,
 *   foldable constants, dead code) under small interpreter limits either
 *   fails with a diagnostic or gives a module that still type-checks, whose
 *   @main evaluates (when it did before) to the same values, within a float
 *   tolerance, unless the pipeline changes precision on purpose;
 * - no crash, leak (every object released: the context dies), hang or UB
 *   (the build carries ASan+UBSan).
 * FUZZ_PIPELINE_VERBOSE=1 in the environment prints what each run did (for
 * reading a corpus, e.g. `fuzz_pipeline -runs=0 DIR`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"

/* Longer texts only slow the fuzzer down: nesting and length limits have
 * their own tests. */
enum { MAX_INPUT = 4096, MAX_LINES = 16 };

static const char module_text[] =
    "#[version = \"0.0.5\"]\n"
    "def @conv_block(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32]) "
    "-> Tensor[(1, 3, 4, 4), float32] {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=3, kernel_size=[3, 3]);\n"
    "  %1 = multiply(%0, add(1f, 1f));\n"
    "  nn.relu(%1)\n"
    "}\n"
    "def @head(%y: Tensor[(1, 48), float32], %w: Tensor[(4, 48), float32]) -> Tensor[(1, 4), float32] {\n"
    "  %0 = nn.dense(%y, %w, units=4);\n"
    "  add(%0, 0.5f)\n"
    "}\n"
    "def @unused(%z: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
    "  negative(%z)\n"
    "}\n"
    "def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32], "
    "%d: Tensor[(4, 48), float32], %c: bool) {\n"
    "  let %dead = add(%x, %x);\n"
    "  let %a = @conv_block(%x, %w);\n"
    "  let %r = reshape(%a, newshape=[1, 48]);\n"
    "  let %h = @head(%r, %d);\n"
    "  let %t = (%h, negative(%h));\n"
    "  if (%c) {\n"
    "    (%t.0, %t.1)\n"
    "  } else {\n"
    "    (%t.1, multiply(%t.0, 0f))\n"
    "  }\n"
    "}\n";

/* The interpreter's limits during a run (FoldConstant evaluates too); an
 * input's own assignments come after and may change them. */
static const char *const limits[] = {
    "relay.interp.max_call_depth=50",
    "passage.interp.max_bytes=1000000",
    "passage.max_constant_bytes=100000",
};

static void fail(psg_ctx *ctx, const char *what, const char *detail) {
  for (size_t i = 0; ctx && i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  fprintf(stderr, "fuzz_pipeline: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort(); /* test code: libFuzzer records the input as a crash */
}

/* Some error since diagnostic `from` is located in a text named `file`. */
static int located_error_since(psg_ctx *ctx, size_t from, const char *file) {
  for (size_t i = from; i < psg_ctx_diag_count(ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(ctx, i);
    const char *f = psg_diag_file(d);
    if (psg_diag_severity(d) == PSG_SEVERITY_ERROR && f && !strcmp(f, file) && psg_diag_col(d) >= 1) return 1;
  }
  return 0;
}

static int has_error_since(psg_ctx *ctx, size_t from) {
  for (size_t i = from; i < psg_ctx_diag_count(ctx); i++)
    if (psg_diag_severity(psg_ctx_get_diag(ctx, i)) == PSG_SEVERITY_ERROR) return 1;
  return 0;
}

/* print -> parse -> print gives the same text. */
static void check_round_trip(psg_ctx *ctx, const psg_pass *p, int expanded) {
  char *t1 = expanded ? psg_pipeline_print_expanded(p) : psg_pipeline_print(p);
  if (!t1) fail(ctx, "a parsed pipeline does not print", NULL);
  psg_pass *p2 = NULL;
  if (psg_pipeline_parse(ctx, t1, &p2)) fail(ctx, "the printed pipeline does not parse", t1);
  char *t2 = expanded ? psg_pipeline_print_expanded(p2) : psg_pipeline_print(p2);
  if (!t2 || strcmp(t1, t2)) {
    fprintf(stderr, "--- first print\n%s\n--- second print\n%s\n", t1, t2 ? t2 : "(none)");
    fail(ctx, expanded ? "the expanded print is not a fixed point" : "the print is not a fixed point", NULL);
  }
  psg_free(t1);
  psg_free(t2);
  psg_pass_release(p2);
}

/* Fixed inputs for @main: small deterministic values, %c true. */
static void make_inputs(psg_ctx *ctx, psg_tensor *in[4]) {
  static const int64_t xs[] = {1, 2, 4, 4}, ws[] = {3, 2, 3, 3}, ds[] = {4, 48};
  static const int64_t *const shapes[] = {xs, ws, ds};
  static const int ranks[] = {4, 4, 2};
  float buf[192];
  for (int k = 0; k < 3; k++) {
    int64_t n = 1;
    for (int j = 0; j < ranks[k]; j++) n *= shapes[k][j];
    for (int64_t i = 0; i < n; i++) buf[i] = (float)((i * 7 + k * 3) % 11 - 5) / 8.0f;
    if (psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shapes[k], ranks[k], buf, &in[k])) fail(ctx, "tensor", NULL);
  }
  unsigned char c = 1;
  if (psg_tensor_create(ctx, PSG_DTYPE_BOOL, NULL, 0, &c, &in[3])) fail(ctx, "tensor", NULL);
}

typedef struct result {
  psg_tensor **t;
  size_t n;
} result;

static void result_free(result *r) {
  for (size_t i = 0; i < r->n; i++) psg_tensor_release(r->t[i]);
  psg_free(r->t);
  r->t = NULL;
  r->n = 0;
}

/* Same count, dtypes, shapes, and float32 values within a tolerance (passes
 * may reassociate float arithmetic, e.g. FoldScaleAxis). */
static int results_close(const result *a, const result *b) {
  if (a->n != b->n) return 0;
  for (size_t i = 0; i < a->n; i++) {
    const psg_tensor *x = a->t[i], *y = b->t[i];
    if (psg_tensor_dtype(x) != psg_tensor_dtype(y) || psg_tensor_ndim(x) != psg_tensor_ndim(y)) return 0;
    for (int d = 0; d < psg_tensor_ndim(x); d++)
      if (psg_tensor_dim(x, d) != psg_tensor_dim(y, d)) return 0;
    if (psg_tensor_dtype(x) != PSG_DTYPE_FLOAT32) {
      if (!psg_tensor_equal(x, y)) return 0;
      continue;
    }
    const float *p = psg_tensor_data(x), *q = psg_tensor_data(y);
    for (int64_t k = 0; k < psg_tensor_numel(x); k++)
      if (!(fabsf(p[k] - q[k]) <= 1e-3f + 1e-3f * fabsf(p[k]))) return 0;
  }
  return 1;
}

/* Splits `text` (NUL-terminated, modified) at newlines. */
static size_t split_lines(char *text, char **lines) {
  size_t n = 0;
  for (char *s = text; s && n < MAX_LINES;) {
    lines[n++] = s;
    char *nl = strchr(s, '\n');
    if (nl) *nl = 0;
    s = nl ? nl + 1 : NULL;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT || memchr(data, 0, size)) return 0;
  char text[MAX_INPUT + 1];
  memcpy(text, data, size);
  text[size] = 0;
  char *lines[MAX_LINES];
  size_t nlines = split_lines(text, lines);

  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) fail(NULL, "cannot create a context", NULL);
  psg_pass_context *pc = NULL;
  psg_pass *pipeline = NULL, *infer = NULL;
  psg_module *mod = NULL, *out = NULL, *checked = NULL;
  psg_tensor *in[4] = {0};
  result before = {0}, after = {0};
  int entered = 0;
  if (psg_pass_context_create(ctx, &pc)) fail(ctx, "cannot create a PassContext", NULL);
  for (size_t i = 0; i < sizeof limits / sizeof *limits; i++)
    if (psg_pass_context_set_config_text(pc, limits[i])) fail(ctx, "a built-in limit is refused", limits[i]);

  /* The input's own settings: a refused one ends the input, located. */
  for (size_t i = 1; i < nlines; i++) {
    const char *l = lines[i];
    size_t from = psg_ctx_diag_count(ctx);
    if (!l[0]) continue; /* a trailing newline */
    if (l[0] == '-' && l[1] == 'O' && l[2] >= '0' && l[2] <= '3' && !l[3]) {
      if (psg_pass_context_set_opt_level(pc, l[2] - '0')) fail(ctx, "opt level refused", l);
      continue;
    }
    psg_status st = psg_pass_context_set_config_text(pc, l);
    if (!st) continue;
    if (st != PSG_ERR_NOMEM && !located_error_since(ctx, from, "--config"))
      fail(ctx, "a refused --config value has no located error", l);
    goto done;
  }

  size_t from = psg_ctx_diag_count(ctx);
  psg_status st = psg_pipeline_parse(ctx, lines[0], &pipeline);
  if (st) {
    if (pipeline) fail(ctx, "a failed parse returned a pipeline", NULL);
    if (st != PSG_ERR_NOMEM && !located_error_since(ctx, from, "<pipeline>"))
      fail(ctx, "a failed pipeline parse has no located error", lines[0]);
    goto done;
  }
  check_round_trip(ctx, pipeline, 0);
  check_round_trip(ctx, pipeline, 1);

  /* Run it over the module, in the context (the interpreter reads its limits
   * from the current one). */
  if (psg_module_parse(ctx, module_text, sizeof module_text - 1, "fuzz_module.relay", &mod))
    fail(ctx, "the fixed module does not parse", NULL);
  make_inputs(ctx, in);
  if (psg_pass_context_enter(pc)) fail(ctx, "cannot enter the PassContext", NULL);
  entered = 1;
  psg_status eval_before = psg_eval(ctx, mod, "main", in, 4, &before.t, &before.n);
  if (eval_before && getenv("FUZZ_PIPELINE_VERBOSE")) fprintf(stderr, "fuzz_pipeline: @main does not evaluate\n");
  from = psg_ctx_diag_count(ctx);
  st = psg_pass_run(pipeline, mod, pc, &out);
  if (st) {
    if (out) fail(ctx, "a failed run returned a module", NULL);
    if (!has_error_since(ctx, from)) fail(ctx, "a failed run left no error", lines[0]);
    if (getenv("FUZZ_PIPELINE_VERBOSE"))
      fprintf(stderr, "fuzz_pipeline: run of %s failed: %s", lines[0], psg_diag_rendered(psg_ctx_get_last_error(ctx)));
    goto done;
  }
  if (!out) fail(ctx, "a run returned no module", NULL);
  if (psg_pass_get(ctx, "InferType", NULL, &infer)) fail(ctx, "no InferType", NULL);
  if (psg_pass_run(infer, out, pc, &checked)) fail(ctx, "the result does not type-check", lines[0]);
  /* Precision-changing passes change the values on purpose. */
  char *printed = psg_pipeline_print_expanded(pipeline);
  int exact = printed && !strstr(printed, "MixedPrecision") && !strstr(printed, "FastMath");
  psg_free(printed);
  from = psg_ctx_diag_count(ctx);
  st = psg_eval(ctx, out, "main", in, 4, &after.t, &after.n);
  if (st && !has_error_since(ctx, from)) fail(ctx, "a failed evaluation left no error", lines[0]);
  if (!eval_before && !st && exact && !results_close(&before, &after))
    fail(ctx, "the pipeline changed what @main computes", lines[0]);
  if (getenv("FUZZ_PIPELINE_VERBOSE"))
    fprintf(stderr, "fuzz_pipeline: ran %s; @main before %d after %d, %zu outputs\n", lines[0], eval_before, st, after.n);
  if (!eval_before && st && getenv("FUZZ_PIPELINE_VERBOSE")) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    fprintf(stderr, "fuzz_pipeline: @main no longer evaluates after %s: %s\n", lines[0],
            d ? psg_diag_rendered(d) : "?");
  }

done:
  if (entered && psg_pass_context_exit(pc)) fail(ctx, "cannot exit the PassContext", NULL);
  result_free(&before);
  result_free(&after);
  for (int i = 0; i < 4; i++) psg_tensor_release(in[i]);
  psg_module_release(mod);
  psg_module_release(out);
  psg_module_release(checked);
  psg_pass_release(pipeline);
  psg_pass_release(infer);
  psg_pass_context_release(pc);
  psg_ctx_release(ctx);
  return 0;
}
