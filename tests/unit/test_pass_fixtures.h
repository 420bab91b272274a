/* Shared fixtures of the pass-infrastructure tests: a tiny module, an event
 * log, logging instruments (optionally broken on one callback), and the test
 * passes of issue 3 registered under test names — one adding an `abs`
 * function (the spec's example), one replacing every function, one failing,
 * one counting its calls. */
#ifndef PSG_TEST_PASS_FIXTURES_H
#define PSG_TEST_PASS_FIXTURES_H

#include "check.h"
#include "passage/instrument.h"

/* fn (%x) { OP(%x) } for a unary op, or OP(%x, %x) for a binary one. */
static inline psg_module *fx_module(psg_ctx *ctx, const char *name, const char *op, int arity) {
  psg_expr *x, *opx, *call, *fn, *gv;
  psg_module *m0, *m;
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_op_get(ctx, op, &opx));
  CHECK_OK(psg_call_create(ctx, opx, (psg_expr *[]){x, x}, (size_t)arity, NULL, NULL, &call));
  CHECK_OK(psg_function_create(ctx, &x, 1, call, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, name, NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, gv, fn, &m));
  psg_module_release(m0);
  psg_expr *objs[] = {x, opx, call, fn, gv};
  for (int i = 0; i < 5; i++) psg_expr_release(objs[i]);
  return m;
}

/* The event log shared by passes and instruments: "a;b;c;". */
static char fx_events[8192] __attribute__((unused));
static inline void fx_log(const char *fmt, const char *a, const char *b) {
  char line[256];
  snprintf(line, sizeof line, fmt, a, b);
  strncat(fx_events, line, sizeof fx_events - strlen(fx_events) - 1);
  strncat(fx_events, ";", sizeof fx_events - strlen(fx_events) - 1);
}

/* Test passes ------------------------------------------------------------ */

static int fx_count_calls __attribute__((unused));

/* Returns its input; logs "run NAME" with NAME = user. */
static inline psg_status fx_identity(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  fx_log("run %s%s", (const char *)user, "");
  fx_count_calls++;
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

static inline psg_status fx_fail(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)mod;
  (void)out;
  fx_log("run %s%s", (const char *)user, "");
  return psg_ctx_fail(psg_pass_context_get_ctx(pc), PSG_ERR_PASS_FAILED, "transform pass failed on purpose");
}

/* The spec's module-pass example: adds @myAbs = fn (%x) { abs(%x) }. */
static inline psg_status fx_add_abs(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  fx_log("run %s%s", user ? (const char *)user : "TestAddAbs", "");
  psg_module *extra = fx_module(psg_module_get_ctx(mod), "myAbs", "abs", 1);
  psg_status st = psg_module_add(mod, psg_module_get_global_var(extra, 0), psg_module_get_function(extra, 0), out);
  psg_module_release(extra);
  return st;
}

/* A function pass replacing every function by a new node with the same body. */
static inline psg_status fx_replace(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  fx_count_calls++;
  size_t n = psg_function_num_params(func);
  psg_expr *params[8];
  for (size_t i = 0; i < n && i < 8; i++) params[i] = psg_function_get_param(func, i);
  return psg_function_create(psg_expr_get_ctx(func), params, n, psg_function_get_body(func),
                             psg_function_ret_type(func), psg_function_get_attrs(func), NULL, out);
}

/* A function pass that returns every function unchanged. */
static inline psg_status fx_keep(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  fx_count_calls++;
  psg_expr_retain(func);
  *out = func;
  return PSG_OK;
}

static inline psg_pass *fx_module_pass(psg_ctx *ctx, const char *name, int level, const char *const *req, size_t nreq,
                                psg_module_pass_fn fn) {
  psg_pass_info *info;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, name, level, req, nreq, &info));
  CHECK_OK(psg_create_module_pass(ctx, info, fn, (void *)name, NULL, &p));
  psg_pass_info_release(info);
  return p;
}

static inline psg_pass *fx_function_pass(psg_ctx *ctx, const char *name, int level, psg_function_pass_fn fn) {
  psg_pass_info *info;
  psg_pass *p = NULL;
  CHECK_OK(psg_pass_info_create(ctx, name, level, NULL, 0, &info));
  CHECK_OK(psg_create_function_pass(ctx, info, fn, NULL, NULL, &p));
  psg_pass_info_release(info);
  return p;
}

/* Registry constructors: `user` is the registered name. */
static inline psg_status fx_make_identity(psg_ctx *ctx, psg_attrs *o, void *user, psg_pass **out) {
  (void)o;
  *out = fx_module_pass(ctx, user, 0, NULL, 0, fx_identity);
  return *out ? PSG_OK : PSG_ERR_INTERNAL;
}
static inline psg_status fx_make_fail(psg_ctx *ctx, psg_attrs *o, void *user, psg_pass **out) {
  (void)o;
  *out = fx_module_pass(ctx, user, 0, NULL, 0, fx_fail);
  return *out ? PSG_OK : PSG_ERR_INTERNAL;
}
static inline psg_status fx_make_add_abs(psg_ctx *ctx, psg_attrs *o, void *user, psg_pass **out) {
  (void)o;
  *out = fx_module_pass(ctx, user, 0, NULL, 0, fx_add_abs);
  return *out ? PSG_OK : PSG_ERR_INTERNAL;
}
static inline psg_status fx_make_replace(psg_ctx *ctx, psg_attrs *o, void *user, psg_pass **out) {
  (void)o;
  *out = fx_function_pass(ctx, user, 1, fx_replace);
  return *out ? PSG_OK : PSG_ERR_INTERNAL;
}

static inline void fx_register_test_passes(psg_ctx *ctx) {
  CHECK_OK(psg_pass_register(ctx, "TestAddAbs", PSG_PASS_MODULE, 0, NULL, 0, NULL, "adds @myAbs", fx_make_add_abs,
                             "TestAddAbs"));
  CHECK_OK(psg_pass_register(ctx, "TestReplaceAll", PSG_PASS_FUNCTION, 1, NULL, 0, NULL, "replaces every function",
                             fx_make_replace, "TestReplaceAll"));
  CHECK_OK(psg_pass_register(ctx, "TestFail", PSG_PASS_MODULE, 0, NULL, 0, NULL, "always fails", fx_make_fail,
                             "TestFail"));
  CHECK_OK(psg_pass_register(ctx, "TestCount", PSG_PASS_MODULE, 0, NULL, 0, NULL, "counts its calls",
                             fx_make_identity, "TestCount"));
}

/* Logging instruments ------------------------------------------------------ */

typedef struct fx_logger {
  char name[16];
  const char *broken; /* the callback that fails: "enter", "exit", "should_run", "run_before", "run_after" */
  bool say_no;        /* should_run answers false */
  int before_count;   /* TVM's PassCounter: run_before calls since enter */
} fx_logger;

static inline psg_status fx_maybe_fail(psg_pass_context *pc, fx_logger *l, const char *what) {
  if (l->broken && strcmp(l->broken, what) == 0)
    return psg_ctx_fail(psg_pass_context_get_ctx(pc), PSG_ERR_FRONTEND, "%s %s broken", l->name, what);
  return PSG_OK;
}
static inline psg_status fx_enter(void *u, psg_pass_context *pc) {
  fx_logger *l = u;
  fx_log("%s %s", l->name, "enter");
  l->before_count = 0;
  return fx_maybe_fail(pc, l, "enter");
}
static inline psg_status fx_exit(void *u, psg_pass_context *pc) {
  fx_logger *l = u;
  fx_log("%s %s", l->name, "exit");
  l->before_count = 0;
  return fx_maybe_fail(pc, l, "exit");
}
static inline psg_status fx_should_run(void *u, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info,
                                bool *run) {
  (void)m;
  fx_log("%s should_run %s", ((fx_logger *)u)->name, psg_pass_info_name(info));
  *run = !((fx_logger *)u)->say_no;
  return fx_maybe_fail(pc, u, "should_run");
}
static inline psg_status fx_before(void *u, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)m;
  fx_logger *l = u;
  fx_log("%s run_before %s", l->name, psg_pass_info_name(info));
  l->before_count++;
  return fx_maybe_fail(pc, l, "run_before");
}
static inline psg_status fx_after(void *u, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)m;
  fx_log("%s run_after %s", ((fx_logger *)u)->name, psg_pass_info_name(info));
  return fx_maybe_fail(pc, u, "run_after");
}
static inline psg_status fx_failed(void *u, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)m;
  (void)pc;
  fx_log("%s run_after_failed %s", ((fx_logger *)u)->name, psg_pass_info_name(info));
  return PSG_OK;
}

static inline psg_instrument *fx_instrument(psg_ctx *ctx, fx_logger *l) {
  psg_instrument_callbacks cb = {fx_enter, fx_exit, fx_should_run, fx_before, fx_after, fx_failed};
  psg_instrument *in = NULL;
  CHECK_OK(psg_instrument_create(ctx, l->name, &cb, l, NULL, &in));
  return in;
}

/* Collects text from a psg_text_sink. */
static char fx_text[65536] __attribute__((unused));
static inline void fx_sink(void *user, const char *text, size_t len) {
  (void)user;
  size_t have = strlen(fx_text);
  if (have + len >= sizeof fx_text) len = sizeof fx_text - have - 1;
  memcpy(fx_text + have, text, len);
  fx_text[have + len] = 0;
}

static inline int fx_count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  return n;
}

#endif
