/* Passage — pass objects (tvm-behavior §1.4, §4): module, function and
 * prim-func passes and Sequential, and the bodies of the per-function kinds:
 * the shared adaptor that maps a callback over a module's functions. The run
 * function around every body is in run.c. */
#include "pass/pass_cache.h"
#include "support/thread_pool.h"

static psg_status make_pass(psg_ctx *ctx, int kind, const psg_pass_info *info, void *user,
                            void (*free_user)(void *), psg_pass **out) {
  *out = NULL;
  if (!info) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a pass needs a PassInfo");
  psg_pass *p = psgi_calloc(ctx, sizeof *p);
  if (!p) return psgi_nomem(ctx);
  p->refcount = 1;
  p->ctx = ctx;
  p->kind = kind;
  p->info = (psg_pass_info *)info;
  psg_pass_info_retain(p->info);
  p->user = user;
  p->free_user = free_user;
  psgi_ctx_object_born(ctx);
  *out = p;
  return PSG_OK;
}

psg_status psg_create_module_pass(psg_ctx *ctx, const psg_pass_info *info, psg_module_pass_fn fn,
                                  void *user, void (*free_user)(void *), psg_pass **out) {
  if (!fn) return *out = NULL, psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a module pass needs a function");
  psg_status st = make_pass(ctx, PSG_PASS_MODULE, info, user, free_user, out);
  if (!st) (*out)->fn.module = fn;
  return st;
}

psg_status psg_create_function_pass(psg_ctx *ctx, const psg_pass_info *info, psg_function_pass_fn fn,
                                    void *user, void (*free_user)(void *), psg_pass **out) {
  if (!fn) return *out = NULL, psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a function pass needs a function");
  psg_status st = make_pass(ctx, PSG_PASS_FUNCTION, info, user, free_user, out);
  if (st) return st;
  (*out)->fn.function = fn;
  /* TVM ends every function pass with InferType (§4.3): its result must be
   * TYPED. */
  (*out)->result_needs = PSG_PROP_TYPED;
  if ((st = psgi_pass_resolve_ensure(*out)) != PSG_OK) {
    (*out)->free_user = NULL; /* `user` stays the caller's on failure */
    psg_pass_release(*out);
    *out = NULL;
  }
  return st;
}

psg_status psg_create_prim_func_pass(psg_ctx *ctx, const psg_pass_info *info, psg_prim_func_pass_fn fn,
                                     void *user, void (*free_user)(void *), psg_pass **out) {
  if (!fn) return *out = NULL, psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a prim-func pass needs a function");
  psg_status st = make_pass(ctx, PSG_PASS_PRIM_FUNC, info, user, free_user, out);
  /* It rewrites PrimFuncs only: every property of the Relay functions (all
   * PSG_PROP_* are about them) still holds after it. */
  if (!st) (*out)->fn.prim_func = fn, (*out)->keeps = (1u << PSGI_NUM_PROPS) - 1;
  return st;
}

psg_status psgi_sequential_make(psg_ctx *ctx, psg_pass *const *passes, psgi_pass_list *required, size_t n,
                                const psg_pass_info *info, psg_pass **out) {
  *out = NULL;
  psg_pass_info *dflt = NULL;
  if (!info) {
    psg_status st = psg_pass_info_create(ctx, "sequential", 0, NULL, 0, &dflt);
    if (st) return st;
    info = dflt;
  }
  psg_status st = make_pass(ctx, PSG_PASS_SEQUENTIAL, info, NULL, NULL, out);
  psg_pass_info_release(dflt);
  if (st) return st;
  psg_pass *p = *out;
  if (n && (!(p->children = psgi_alloc(ctx, n * sizeof *p->children)) ||
            !(p->child_required = psgi_calloc(ctx, n * sizeof *p->child_required)))) {
    psg_pass_release(p);
    *out = NULL;
    return psgi_nomem(ctx);
  }
  for (size_t i = 0; i < n; i++) {
    p->children[i] = passes[i];
    psg_pass_retain(passes[i]);
    p->child_required[i] = required[i];
    required[i] = (psgi_pass_list){0};
  }
  p->num_children = n;
  return PSG_OK;
}

psg_status psg_sequential(psg_ctx *ctx, psg_pass *const *passes, size_t n, const psg_pass_info *info,
                          psg_pass **out) {
  *out = NULL;
  for (size_t i = 0; i < n; i++)
    if (!passes[i]) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "Found undefined pass for optimization.");
  psgi_pass_list *req = n ? psgi_calloc(ctx, n * sizeof *req) : NULL;
  psg_status st = n && !req ? psgi_nomem(ctx) : PSG_OK;
  for (size_t i = 0; !st && i < n; i++) st = psgi_resolve_required(ctx, passes[i]->info, &req[i]);
  if (!st) st = psgi_sequential_make(ctx, passes, req, n, info, out);
  for (size_t i = 0; req && i < n; i++) psgi_pass_list_free(ctx, &req[i]);
  psgi_free(ctx, req);
  return st;
}

void psg_pass_retain(psg_pass *p) {
  if (p) psgi_ref_inc(&p->refcount);
}

void psg_pass_release(psg_pass *p) {
  if (!p || !psgi_ref_dec(&p->refcount)) return;
  psg_ctx *ctx = p->ctx;
  /* Pipelines nest a handful of levels at most; recursion is bounded by the
   * nesting the pipeline parser accepts. */
  for (size_t i = 0; i < p->num_children; i++) {
    psg_pass_release(p->children[i]);
    if (p->child_required) psgi_pass_list_free(ctx, &p->child_required[i]);
  }
  psgi_free(ctx, p->children);
  psgi_free(ctx, p->child_required);
  for (int b = 0; b < PSGI_NUM_PROPS; b++) psg_pass_release(p->ensure[b]);
  if (p->free_user) {
    bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
    p->free_user(p->user);
    psgi_exclusive_end(was);
  }
  psg_pass_info_release(p->info);
  psg_attrs_release(p->options);
  psgi_free(ctx, p);
  psgi_ctx_object_died(ctx);
}

int psg_pass_kind(const psg_pass *p) { return p->kind; }
const psg_pass_info *psg_pass_get_info(const psg_pass *p) { return p->info; }
size_t psg_pass_num_children(const psg_pass *p) { return p->num_children; }
psg_pass *psg_pass_get_child(const psg_pass *p, size_t i) { return i < p->num_children ? p->children[i] : NULL; }
psg_attrs *psg_pass_get_options(const psg_pass *p) { return p->options; }

char *psg_pass_to_string(const psg_pass *p) {
  psgi_buf b;
  psgi_buf_init(&b, p->ctx);
  const char *name = p->info->name;
  int level = p->info->opt_level;
  switch (p->kind) {
  case PSG_PASS_MODULE: psgi_buf_printf(&b, "Run Module pass: %s at the optimization level %d", name, level); break;
  case PSG_PASS_FUNCTION: psgi_buf_printf(&b, "Run Function pass: %s at the optimization level %d", name, level); break;
  case PSG_PASS_PRIM_FUNC: psgi_buf_printf(&b, "PrimFuncPass(%s, opt_level=%d)", name, level); break;
  case PSG_PASS_SEQUENTIAL:
    psgi_buf_printf(&b, "Run Sequential pass: %s at the optimization level %d. The passes will be executed are: [",
                    name, level);
    for (size_t i = 0; i < p->num_children; i++) psgi_buf_printf(&b, "%s ", p->children[i]->info->name);
    psgi_buf_putc(&b, ']');
    break;
  }
  char *s = psgi_buf_detach_libc(&b, NULL);
  if (!s) psgi_buf_fini(&b);
  return s;
}

/* Pass kinds -------------------------------------------------------------- */

/* tvm-behavior §4.1: only Relay functions without Compiler, Extern or
 * SkipOptimization are given to a function pass. */
bool psgi_function_is_optimizable(const psg_expr *f) {
  if (f->kind != PSG_EXPR_FUNCTION) return false;
  psg_attrs *a = f->u.fn.attrs;
  if (psg_attrs_get(a, "Compiler")) return false;
  psg_attr *v = psg_attrs_get(a, "Extern");
  if (v && psg_attr_get_int(v) != 0) return false;
  v = psg_attrs_get(a, "SkipOptimization");
  if (v && psg_attr_get_int(v) != 0) return false;
  return true;
}

/* A pass the registry made from Passage's own registration cannot make free
 * variables unless Passage has a bug: checked in debug and sanitizer builds
 * only (PASSAGE_CHECK_BUILTIN_PASSES; the check walks the whole function
 * after every pass that changed it, about a tenth of -O3 on the PP-OCR
 * models). Users' passes are always checked. */
static bool skip_free_var_check(const psg_pass *p) {
#if defined(NDEBUG) && !defined(PASSAGE_CHECK_BUILTIN_PASSES)
  return p->trusted;
#else
  (void)p;
  return false;
#endif
}

psg_status psgi_module_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_status st = p->fn.module(mod, pc, p->user, out);
  if (st) {
    psg_module_release(*out);
    *out = NULL;
    return st;
  }
  if (!*out) return psg_ctx_fail(p->ctx, PSG_ERR_PASS_FAILED, "The return value of a module pass must be set.");
  return PSG_OK;
}

psg_status psgi_map_functions(psg_module *mod, psgi_select_fn select, psgi_rewrite_entry_fn fn, void *user,
                              bool may_remove, psg_module **out) {
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  size_t n = mod->n, k = 0;
  psgi_module_entry *es = psgi_alloc(ctx, (n ? n : 1) * sizeof *es);
  bool *owned = psgi_calloc(ctx, (n ? n : 1) * sizeof *owned);
  psg_status st = es && owned ? PSG_OK : psgi_nomem(ctx);
  bool changed = false;
  for (size_t i = 0; !st && i < n; i++) {
    psgi_module_entry e = mod->entries[i];
    if (e.func && select(e.func)) { /* PrimFunc entries (func NULL) are not Relay functions */
      psg_expr *nf = NULL;
      if ((st = fn(e.func, &e, user, &nf)) != PSG_OK) {
        psg_expr_release(nf);
        break;
      }
      if (!nf && may_remove) {
        changed = true;
        continue;
      }
      if (!nf) {
        st = psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "a function rewrite returned nothing for @%s", e.gv->u.gvar.name);
        break;
      }
      if (nf == e.func) {
        /* Unchanged: the module already holds it. Dropping our reference now,
         * while the node is in cache, saves a second sweep over every
         * function (the hot path of a pipeline of no-op passes). */
        psg_expr_release(nf);
      } else {
        changed = true;
        e.func = nf;
        owned[k] = true;
      }
    }
    es[k++] = e;
  }
  /* When every function came back as the very same node the module is
   * unchanged, and (immutable modules) the input itself is the result: TVM
   * makes a copy every time; we save rebuilding 20,000-entry maps, and the
   * result keeps the input's properties. */
  if (!st && !changed) {
    psg_module_retain(mod);
    *out = mod;
  } else if (!st) {
    st = psgi_module_from_entries_of(mod, es, k, mod->attrs, out);
  }
  for (size_t i = 0; es && owned && i < k; i++)
    if (owned[i]) psg_expr_release(es[i].func);
  psgi_free(ctx, es);
  psgi_free(ctx, owned);
  return st;
}

/* A function or prim-func pass's callback on one entry, with the checks of
 * what it returned. */
typedef struct per_function {
  psg_pass *p;
  psg_module *mod;
  psg_pass_context *pc;
} per_function;

static psg_status call_function_pass(psg_expr *func, const psgi_module_entry *e, void *user, psg_expr **out) {
  per_function *pf = user;
  psg_pass *p = pf->p;
  if (!psgi_bisect_run_on(p, pf->pc, e->gv->u.gvar.name)) {
    psg_expr_retain(func); /* skipped by opt-bisect: unchanged */
    *out = func;
    return PSG_OK;
  }
  psg_status st = psgi_pass_cache_function(p, pf->mod, pf->pc, e, out); /* the callback, memoized when asked */
  if (st) return st;
  psg_expr *nf = *out;
  if (!nf || nf->kind != PSG_EXPR_FUNCTION)
    return psg_ctx_fail(p->ctx, PSG_ERR_PASS_FAILED, "function pass '%s' returned %s for @%s", p->info->name,
                        nf ? "a non-function" : "nothing", e->gv->u.gvar.name);
  if (nf == func || skip_free_var_check(p)) return PSG_OK;
  const psg_expr *free_var = NULL;
  st = psgi_first_free_var(p->ctx, nf, &free_var);
  if (!st && free_var)
    st = psg_ctx_fail(p->ctx, PSG_ERR_PASS_FAILED, "function pass '%s' made @%s with free variable %%%s",
                      p->info->name, e->gv->u.gvar.name, free_var->u.var.name);
  return st;
}

/* With threads (parallel.c): the callback on every chosen entry ahead of
 * the serial walk, which takes the results in its place. */
static bool chosen_function(const psgi_module_entry *e) { return e->func && psgi_function_is_optimizable(e->func); }

static psg_status call_function_entry(const psgi_module_entry *e, void *user, void **out) {
  psg_expr *nf = NULL;
  psg_status st = call_function_pass(e->func, e, user, &nf);
  *out = nf;
  return st;
}

static void release_function(void *f) { psg_expr_release(f); }

static psg_status take_precomputed(psg_expr *func, const psgi_module_entry *e, void *user, psg_expr **out) {
  (void)func, (void)e;
  void *nf = NULL;
  psg_status st = psgi_precomputed_next(user, &nf);
  *out = nf;
  return st;
}

psg_status psgi_per_function_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  if (p->kind == PSG_PASS_PRIM_FUNC) return psgi_prim_func_body(p, mod, pc, out);
  per_function pf = {p, mod, pc};
  psgi_precomputed *pre = NULL;
  psg_status st = psgi_parallel_precompute(p, mod, pc, chosen_function, call_function_entry, &pf,
                                           release_function, &pre);
  if (st) return *out = NULL, st;
  if (!pre) return psgi_map_functions(mod, psgi_function_is_optimizable, call_function_pass, &pf, false, out);
  st = psgi_map_functions(mod, psgi_function_is_optimizable, take_precomputed, pre, false, out);
  psgi_precomputed_free(pre);
  return st;
}

void psg_pass_set_concurrent(psg_pass *p, bool concurrent) {
  if (p) p->concurrent = concurrent;
}

bool psg_pass_is_concurrent(const psg_pass *p) { return p->trusted || p->concurrent; }

/* `take`: the caller's reference to mod is the run's (psg_pass_run_take). */
static psg_status run(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out, bool take) {
  *out = NULL;
  if (!p || !mod) return take ? psg_module_release(mod), PSG_ERR_INVALID_ARGUMENT : PSG_ERR_INVALID_ARGUMENT;
  if (!pc && !(pc = psg_pass_context_current(p->ctx))) {
    if (take) psg_module_release(mod);
    return psgi_nomem(p->ctx);
  }
  bool bisect = psgi_bisect_run_begin(pc);
  /* Each pass frees about what the next allocates: keep it mapped. */
  psgi_ctx_hold_memory_begin(p->ctx);
  /* A run that may start threads (or in a process that has them) keeps the
   * caller's allocations and object counts in a thread cache too: its serial
   * parts then take no lock and touch no shared count (departure 170). */
  unsigned threads = psgi_pass_context_threads(pc);
  bool cache = !psgi_single_threaded() || threads > 1;
  if (cache) psgi_ctx_thread_cache_begin(p->ctx);
  /* The run's pass bodies share one pool of threads, started at the first
   * parallel loop and parked between them. */
  if (threads > 1) psgi_pool_enter(threads);
  psgi_validate_run_begin(pc);
  if (take) psgi_pass_hand_over(mod);
  psg_status st = psgi_pass_call(p, mod, pc, out);
  if (take && psgi_pass_handed_back(mod)) psg_module_release(mod);
  psgi_validate_run_end(pc);
  if (threads > 1) psgi_pool_exit();
  if (cache) psgi_ctx_thread_cache_end(p->ctx);
  psgi_bisect_run_end(pc, bisect);
  psgi_ctx_hold_memory_end(p->ctx);
  return st;
}

psg_status psg_pass_run(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  return run(p, mod, pc, out, false);
}

psg_status psg_pass_run_take(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  return run(p, mod, pc, out, true);
}
