/* Issue 20 item 3: psg_reduce (include/passage/reduce.h) with predicates in
 * C. The pipeline stage (passes, nested groups, FixedPoints, a registered
 * pipeline written out, a group of one unwrapped), each module step (re-root,
 * zeros, inputs with Lets and Ifs, constants, functions, parameters), the
 * errors (not interesting, ill-typed, the predicate's own), determinism, a
 * 20000-call chain reduced in few predicate runs, and running out of memory
 * at every allocation. */
#include <string.h>
#include "check.h"
#include "passage/passage.h"
#include "passage/reduce.h"

#define HDR "#[version = \"0.0.5\"]\n"

/* Interesting: the module text holds `needle` and `needle2` (if set) and
 * the pipeline holds `in_pipeline` (if set) or is `or_pipeline_is`.
 * fail_at: the run that returns an error. */
typedef struct pred_state {
  const char *needle, *needle2, *in_pipeline, *or_pipeline_is;
  size_t runs, fail_at;
  psg_ctx *ctx;
} pred_state;

static int contains(void *user, const psg_module *mod, const char *text, size_t len, const char *pipeline) {
  pred_state *p = user;
  (void)mod;
  CHECK(strlen(text) == len);
  if (++p->runs == p->fail_at) return psg_ctx_fail(p->ctx, PSG_ERR_IO, "the predicate broke");
  if (p->needle && !strstr(text, p->needle)) return 0;
  if (p->needle2 && !strstr(text, p->needle2)) return 0;
  if (p->in_pipeline && !strstr(pipeline, p->in_pipeline) && !(p->or_pipeline_is && !strcmp(pipeline, p->or_pipeline_is)))
    return 0;
  return 1;
}

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "<test>", &m));
  return m;
}

/* Reduces `text` with `pipeline`; returns the reduced module's text
 * (malloc'd) and the pipeline in *pipeline_out (malloc'd, may be NULL). */
static char *reduce(psg_ctx *ctx, const char *text, const char *pipeline, pred_state *p, int flags,
                    char **pipeline_out, size_t *calls) {
  psg_module *m = parse(ctx, text), *out = NULL;
  char *pl = NULL, *s = NULL;
  p->ctx = ctx;
  CHECK_OK(psg_reduce(ctx, m, pipeline, contains, p, flags, &out, &pl));
  if (out) CHECK_OK(psg_module_print(out, PSG_PRINT_NO_METADATA, &s, NULL));
  if (out && calls) psg_reduce_sizes(out, calls, NULL, NULL);
  psg_module_release(out);
  psg_module_release(m);
  if (pipeline_out) *pipeline_out = pl;
  else psg_free(pl);
  return s;
}

static const char *const chain = HDR "def @main(%x: Tensor[(4, 4), float32]) -> Tensor[(4, 4), float32] {\n"
                                     "  %0 = add(%x, 1f);\n  %1 = nn.relu(%0);\n  %2 = nn.softmax(%1);\n"
                                     "  %3 = multiply(%2, %0);\n  tanh(%3)\n}\n";

static void test_pipeline_groups(void) {
  psg_ctx *ctx = check_ctx();
  pred_state p = {.in_pipeline = "DeadCodeElimination"};
  char *pl = NULL;
  char *s = reduce(ctx, chain,
                   "FoldConstant,sequential(SimplifyExpr,sequential(DeadCodeElimination,InferType),FuseOps),"
                   "fixed_point(FoldConstant,SimplifyExpr){max_iterations=3},O2",
                   &p, PSG_REDUCE_KEEP_MODULE, &pl, NULL);
  /* Everything else goes, and the groups around the one pass left too. */
  CHECK_STR(pl, "DeadCodeElimination");
  CHECK(s && strstr(s, "nn.softmax") && strstr(s, "tanh")); /* the module is kept */
  psg_free(s);
  psg_free(pl);
  /* A pass inside a registered pipeline: O2 is written out, then shrunk. */
  pred_state q = {.in_pipeline = "ForwardFoldScaleAxis", .or_pipeline_is = "FoldConstant,O3"};
  s = reduce(ctx, chain, "FoldConstant,O3", &q, PSG_REDUCE_KEEP_MODULE, &pl, NULL);
  CHECK_STR(pl, "ForwardFoldScaleAxis"); /* out of O3 and its FoldScaleAxis */
  psg_free(s);
  psg_free(pl);
  /* No pass needed at all: an empty Sequential, which parses. */
  pred_state r = {.needle = "tanh"};
  s = reduce(ctx, chain, "FoldConstant,SimplifyExpr", &r, PSG_REDUCE_KEEP_MODULE, &pl, NULL);
  CHECK_STR(pl, "sequential()");
  psg_pass *parsed = NULL;
  CHECK_OK(psg_pipeline_parse(ctx, pl, &parsed));
  psg_pass_release(parsed);
  psg_free(s);
  psg_free(pl);
  CHECK_CTX_CLEAN(ctx);
}

static void test_calls(void) {
  psg_ctx *ctx = check_ctx();
  pred_state p = {.needle = "nn.softmax("};
  size_t calls = 0;
  char *s = reduce(ctx, chain, "", &p, 0, NULL, &calls);
  /* softmax of a zero: its producers zeroed, its consumers cut by the
   * re-rooting, the parameter dropped. */
  CHECK_EQ_INT(calls, 1);
  CHECK(s && strstr(s, "def @main() {") && strstr(s, "nn.softmax(meta[relay.Constant][0])"));
  /* Deterministic: the same input gives the same output. */
  pred_state q = {.needle = "nn.softmax("};
  char *s2 = reduce(ctx, chain, "", &q, 0, NULL, NULL);
  CHECK_STR(s, s2);
  CHECK_EQ_INT(p.runs, q.runs);
  psg_free(s);
  psg_free(s2);
  /* The last call: what feeds it is zeroed, then the zero shrunk to a
   * scalar (tanh broadcasts nothing, so its type follows). */
  pred_state r = {.needle = "tanh("};
  s = reduce(ctx, chain, "", &r, 0, NULL, &calls);
  CHECK_EQ_INT(calls, 1);
  CHECK(s && strstr(s, "tanh(0f)"));
  psg_free(s);
  /* A call replaced by its input: tanh between the two kept calls cannot be
   * zeroed (relu would go) but can be bypassed. */
  static const char *const three = HDR "def @main(%x: Tensor[(4), float32]) {\n"
                                       "  %0 = nn.relu(%x);\n  %1 = tanh(%0);\n  exp(%1)\n}\n";
  pred_state t = {.needle = "nn.relu(%x)"};
  s = reduce(ctx, three, "", &t, 0, NULL, &calls);
  CHECK_EQ_INT(calls, 1); /* exp goes too: nothing asks for it */
  pred_state u = {.needle = "nn.relu(%x)", .needle2 = "exp(%"};
  char *s3 = reduce(ctx, three, "", &u, 0, NULL, &calls);
  CHECK_EQ_INT(calls, 2);
  CHECK(s3 && strstr(s3, "nn.relu(%x)") && !strstr(s3, "tanh"));
  psg_free(s3);
  psg_free(s);
  CHECK_CTX_CLEAN(ctx);
}

static void test_lets_and_ifs(void) {
  psg_ctx *ctx = check_ctx();
  static const char *const lets =
      HDR "def @main(%x: Tensor[(4), float32], %c: bool) -> Tensor[(4), float32] {\n"
          "  let %a: Tensor[(4), float32] = add(%x, 1f);\n"
          "  let %b: Tensor[(4), float32] = if (%c) { nn.relu(%a) } else { tanh(%a) };\n"
          "  multiply(%b, %a)\n}\n";
  pred_state p = {.needle = "nn.relu("};
  size_t calls = 0;
  char *s = reduce(ctx, lets, "", &p, 0, NULL, &calls);
  CHECK_EQ_INT(calls, 1);
  CHECK(s && !strstr(s, "let ") && !strstr(s, "if (") && strstr(s, "nn.relu(0f)"));
  psg_free(s);
  CHECK_CTX_CLEAN(ctx);
}

static void test_constants_and_functions(void) {
  psg_ctx *ctx = check_ctx();
  static const char *const text =
      HDR "def @unused(%y: Tensor[(4), float32]) -> Tensor[(4), float32] { nn.relu(%y) }\n"
          "def @helper(%y: Tensor[(4), float32]) -> Tensor[(4), float32] { exp(%y) }\n"
          "def @main(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {\n"
          "  %0 = add(%x, meta[relay.Constant][0]);\n  @helper(%0)\n}\n"
          "#[metadata]\n{\n  \"relay.Constant\": [\n"
          "    {\"dtype\": \"float32\", \"shape\": [4], \"data\": \"AACAPwAAAEAAAEBAAACAQA==\"}\n  ]\n}\n";
  pred_state p = {.needle = "exp("};
  size_t calls = 0;
  char *s = reduce(ctx, text, "", &p, 0, NULL, &calls);
  /* @unused goes; @helper stays (exp lives there) though its call became
   * a zero: nothing refers to it, but dropping it loses exp. */
  CHECK(s && !strstr(s, "@unused") && strstr(s, "def @helper"));
  CHECK_EQ_INT(calls, 1);
  psg_free(s);
  /* A constant of several elements becomes a scalar where add broadcasts. */
  pred_state q = {.needle = "add(%x"};
  s = reduce(ctx, text, "", &q, 0, NULL, &calls);
  CHECK(s && strstr(s, "add(%x, 0f)") && !strstr(s, "meta["));
  CHECK_EQ_INT(calls, 1);
  psg_free(s);
  CHECK_CTX_CLEAN(ctx);
}

static void test_errors(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, chain), *out = (psg_module *)1;
  char *pl = (char *)1;
  pred_state p = {.needle = "no such text", .ctx = ctx};
  CHECK_EQ_INT(psg_reduce(ctx, m, "FoldConstant", contains, &p, 0, &out, &pl), PSG_ERR_INVALID_ARGUMENT);
  CHECK(!out && !pl);
  CHECK(strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "not interesting"));
  CHECK_EQ_INT(p.runs, 1);
  /* The predicate's error stops the reduction with its status. */
  pred_state q = {.needle = "tanh", .fail_at = 3, .ctx = ctx};
  CHECK_EQ_INT(psg_reduce(ctx, m, "FoldConstant,SimplifyExpr", contains, &q, 0, &out, &pl), PSG_ERR_IO);
  CHECK(!out && !pl);
  /* A bad pipeline is the parser's located error. */
  pred_state r = {.needle = "tanh", .ctx = ctx};
  CHECK_EQ_INT(psg_reduce(ctx, m, "FoldConstant,(", contains, &r, 0, &out, &pl), PSG_ERR_PARSE);
  CHECK_EQ_INT(psg_reduce(ctx, m, "", NULL, &r, 0, &out, &pl), PSG_ERR_INVALID_ARGUMENT);
  psg_module_release(m);
  /* An ill-typed input. */
  m = parse(ctx, HDR "def @main(%x: Tensor[(4), float32], %y: Tensor[(3), float32]) { add(%x, %y) }\n");
  CHECK_EQ_INT(psg_reduce(ctx, m, "", contains, &r, 0, &out, &pl), PSG_ERR_TYPE);
  psg_module_release(m);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

/* A chain of n calls (add, multiply, ...) with one relu in the middle: the
 * relu is found in O(log n) predicate runs per step, not O(n). */
static void test_long_chain(void) {
  psg_ctx *ctx = check_ctx();
  enum { N = 20000 };
  size_t cap = (size_t)N * 48 + 256, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, HDR "def @main(%%x: Tensor[(8), float32]) {\n  %%0 = add(%%x, 1f);\n");
  for (int i = 1; i < N; i++)
    len += (size_t)snprintf(text + len, cap - len, "  %%%d = %s(%%%d%s);\n", i,
                            i == N / 2 ? "nn.relu" : i % 2 ? "multiply" : "add", i - 1, i == N / 2 ? "" : ", 2f");
  snprintf(text + len, cap - len, "  %%%d\n}\n", N - 1);
  pred_state p = {.needle = "nn.relu("};
  size_t calls = 0;
  char *s = reduce(ctx, text, "", &p, 0, NULL, &calls);
  CHECK_EQ_INT(calls, 1);
  CHECK(p.runs < 150);
  printf("  20000-call chain: %zu predicate runs\n", p.runs);
  psg_free(s);
  free(text);
  CHECK_CTX_CLEAN(ctx);
}

/* Every allocation failing in turn: NOMEM or success, nothing leaked. */
static void test_out_of_memory(void) {
  int failures = 0;
  for (long n = 1;; n++) {
    check_alloc a = {0, n};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    psg_module *m = NULL, *out = NULL;
    char *pl = NULL;
    psg_status st = psg_module_parse(ctx, chain, strlen(chain), "<test>", &m);
    pred_state p = {.needle = "nn.softmax(", .ctx = ctx};
    if (!st) st = psg_reduce(ctx, m, "FoldConstant,sequential(SimplifyExpr)", contains, &p, 0, &out, &pl);
    if (st != PSG_OK && st != PSG_ERR_NOMEM && st != PSG_ERR_PARSE) failures++;
    if (st) CHECK(!out && !pl);
    psg_module_release(m);
    psg_module_release(out);
    psg_free(pl);
    psg_ctx_clear_diags(ctx);
    CHECK_EQ_INT(psg_ctx_live_objects(ctx), 0);
    psg_ctx_release(ctx);
    if (a.calls < n) break; /* no allocation failed: every point was tried */
  }
  CHECK_EQ_INT(failures, 0);
}

int main(void) {
  RUN_TEST(test_pipeline_groups);
  RUN_TEST(test_calls);
  RUN_TEST(test_lets_and_ifs);
  RUN_TEST(test_constants_and_functions);
  RUN_TEST(test_errors);
  RUN_TEST(test_long_chain);
  RUN_TEST(test_out_of_memory);
  return check_finish();
}
