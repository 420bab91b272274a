/* Passage — psg_reduce (include/passage/reduce.h; docs/pass-infra.md
 * "Reducing a failing case"): the session, the gate every candidate passes
 * (typed, smaller, interesting) and the progress notes. The stages live in
 * reduce_pipeline.c and reduce_module.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "reduce/reduce_internal.h"
#include "transforms/transforms.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static psg_status count_call(psg_visitor *v, const psg_expr *e) {
  if (e->kind == PSG_EXPR_CALL) ++*(size_t *)v->user;
  return PSG_OK;
}

void psg_reduce_sizes(const psg_module *mod, size_t *calls, size_t *functions, size_t *bytes) {
  size_t n = 0, nf = psg_module_num_functions(mod);
  psg_ctx *ctx = psg_module_get_ctx(mod);
  for (size_t i = 0; i < nf; i++) {
    psg_expr *f = psg_module_get_function(mod, i);
    psg_visitor v = {NULL, count_call, &n};
    if (f && psg_expr_kind(f) == PSG_EXPR_FUNCTION) psg_visit(ctx, &v, f);
  }
  if (calls) *calls = n;
  if (functions) *functions = nf;
  if (bytes) {
    char *text = NULL;
    size_t len = 0;
    *bytes = psg_module_print(mod, 0, &text, &len) ? 0 : len;
    psg_free(text);
  }
}

static void note(psgi_reducer *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(psgi_reducer *r, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  psgi_diag_add(r->ctx, PSG_SEVERITY_NOTE, PSG_OK, NULL, 0, 0, NULL, 0, "Reduce", "reduce: %s", msg);
}

/* Runs the predicate; counts the run. */
static int judge(psgi_reducer *r, const psg_module *mod, const char *text, size_t len, const char *pipeline) {
  int v = r->pred(r->user, mod, text, len, pipeline);
  r->runs++;
  if (v > 0) r->hits++;
  return v < 0 ? v : v > 0;
}

/* InferType on `cand` with its diagnostics dropped: an ill-typed candidate
 * is an ordinary rejection, not an error to show. */
static psg_status type_quietly(psg_ctx *ctx, psg_module *cand) {
  psgi_diag_list *saved = NULL;
  psg_status st = psgi_diag_capture_begin(ctx, &saved);
  if (st) return st;
  st = psgi_infer_module_types(ctx, cand);
  psgi_diag_capture_free(ctx, psgi_diag_capture_end(ctx, saved));
  return st;
}

static bool smaller(size_t c, size_t f, size_t b, const psgi_reducer *r) {
  if (c != r->calls) return c < r->calls;
  if (f != r->functions) return f < r->functions;
  return b < r->bytes;
}

int psgi_reduce_try_module(psgi_reducer *r, psg_module *cand, const char *what) {
  psg_status st = type_quietly(r->ctx, cand);
  if (st == PSG_ERR_NOMEM) return psg_module_release(cand), st;
  if (st) return psg_module_release(cand), 0;
  size_t calls, functions;
  psg_reduce_sizes(cand, &calls, &functions, NULL);
  char *text = NULL;
  size_t len = 0;
  if (calls > r->calls || (calls == r->calls && functions > r->functions)) return psg_module_release(cand), 0;
  st = psg_module_print(cand, 0, &text, &len);
  if (st) return psg_module_release(cand), st;
  int v = smaller(calls, functions, len, r) ? judge(r, cand, text, len, r->pipeline) : 0;
  if (v <= 0) return psg_free(text), psg_module_release(cand), v;
  psg_module_release(r->mod);
  psg_free(r->text);
  r->mod = cand, r->text = text, r->bytes = len;
  r->calls = calls, r->functions = functions;
  r->steps++;
  note(r, "step %zu (%s): %zu calls, %zu functions, %zu bytes [%.1f s]", r->steps, what, calls, functions, len,
       now() - r->start);
  return 1;
}

int psgi_reduce_try_pipeline(psgi_reducer *r, const char *pipeline, size_t passes, const char *what) {
  char *copy = psgi_result_alloc(strlen(pipeline) + 1);
  if (!copy) return psgi_nomem(r->ctx);
  strcpy(copy, pipeline);
  int v = judge(r, r->mod, r->text, r->bytes, copy);
  if (v <= 0) return psg_free(copy), v;
  psg_free(r->pipeline);
  r->pipeline = copy;
  r->steps++;
  note(r, "step %zu (%s): pipeline of %zu passes: %s [%.1f s]", r->steps, what, passes, copy, now() - r->start);
  return 1;
}

psg_status psg_reduce(psg_ctx *ctx, const psg_module *mod, const char *pipeline, psg_reduce_predicate pred,
                      void *user, int flags, psg_module **out_mod, char **out_pipeline) {
  if (out_mod) *out_mod = NULL;
  if (out_pipeline) *out_pipeline = NULL;
  if (!ctx) return PSG_ERR_INVALID_ARGUMENT;
  if (!mod || !pipeline || !pred || !out_mod || !out_pipeline)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_reduce: NULL module, pipeline, predicate or output");
  psgi_reducer r = {.ctx = ctx, .pred = pred, .user = user, .start = now()};
  psg_status st = psgi_infer_module_types(ctx, mod);
  if (st && st != PSG_ERR_NOMEM)
    return psg_ctx_fail(ctx, PSG_ERR_TYPE, "reduce: the input module does not type-check (errors above)");
  if (st) return st;
  psg_module_retain((psg_module *)mod);
  r.mod = (psg_module *)mod;
  r.pipeline = psgi_result_alloc(strlen(pipeline) + 1);
  if (!r.pipeline) st = psgi_nomem(ctx);
  else strcpy(r.pipeline, pipeline);
  /* A pipeline that does not parse is the caller's error, found before
   * the predicate is asked anything. */
  if (!st && pipeline[strspn(pipeline, " \t\n")]) {
    psg_pass *parsed = NULL;
    st = psg_pipeline_parse(ctx, pipeline, &parsed);
    psg_pass_release(parsed);
  }
  if (!st) st = psg_module_print(mod, 0, &r.text, &r.bytes);
  if (!st) psg_reduce_sizes(mod, &r.calls, &r.functions, NULL);
  int v = st ? 0 : judge(&r, r.mod, r.text, r.bytes, r.pipeline);
  if (v < 0) st = v;
  if (!st && !v)
    st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                      "reduce: the input is not interesting: the predicate does not hold on it as given");
  if (!st)
    note(&r, "start: %zu calls, %zu functions, %zu bytes; pipeline: %s", r.calls, r.functions, r.bytes,
         *r.pipeline ? r.pipeline : "(none)");
  if (!st && !(flags & PSG_REDUCE_KEEP_PIPELINE)) st = psgi_reduce_pipeline(&r);
  if (!st && !(flags & PSG_REDUCE_KEEP_MODULE)) st = psgi_reduce_module(&r);
  if (!st) {
    note(&r, "done: %zu calls, %zu functions, %zu bytes; pipeline: %s; %zu steps, %zu predicate runs (%zu "
             "interesting), %.1f s",
         r.calls, r.functions, r.bytes, *r.pipeline ? r.pipeline : "(none)", r.steps, r.runs, r.hits,
         now() - r.start);
    *out_mod = r.mod, *out_pipeline = r.pipeline;
    r.mod = NULL, r.pipeline = NULL;
  }
  psg_module_release(r.mod);
  psg_free(r.pipeline);
  psg_free(r.text);
  return st;
}
