/* Passage — pass objects and the common call wrapper (tvm-behavior §1.4,
 * §2.2, §4): module, function and prim-func passes, instrument hooks around
 * every run, the testing.immutable_module check, and the per-thread record of
 * which registered passes the current module already satisfies. */
#include <stdlib.h>
#include "pass/pass_internal.h"

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
  if (!st) (*out)->fn.function = fn;
  return st;
}

psg_status psg_create_prim_func_pass(psg_ctx *ctx, const psg_pass_info *info, psg_prim_func_pass_fn fn,
                                     void *user, void (*free_user)(void *), psg_pass **out) {
  if (!fn) return *out = NULL, psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a prim-func pass needs a function");
  psg_status st = make_pass(ctx, PSG_PASS_PRIM_FUNC, info, user, free_user, out);
  if (!st) (*out)->fn.prim_func = fn;
  return st;
}

psg_status psg_sequential(psg_ctx *ctx, psg_pass *const *passes, size_t n, const psg_pass_info *info,
                          psg_pass **out) {
  *out = NULL;
  for (size_t i = 0; i < n; i++)
    if (!passes[i]) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "Found undefined pass for optimization.");
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
  if (n && !(p->children = psgi_alloc(ctx, n * sizeof *p->children))) {
    psg_pass_release(p);
    *out = NULL;
    return psgi_nomem(ctx);
  }
  for (size_t i = 0; i < n; i++) {
    p->children[i] = passes[i];
    psg_pass_retain(passes[i]);
  }
  p->num_children = n;
  return PSG_OK;
}

void psg_pass_retain(psg_pass *p) {
  if (p) psgi_ref_inc(&p->refcount);
}

void psg_pass_release(psg_pass *p) {
  if (!p || !psgi_ref_dec(&p->refcount)) return;
  psg_ctx *ctx = p->ctx;
  /* Pipelines nest a handful of levels at most; recursion is bounded by the
   * nesting the pipeline parser accepts. */
  for (size_t i = 0; i < p->num_children; i++) psg_pass_release(p->children[i]);
  psgi_free(ctx, p->children);
  if (p->free_user) p->free_user(p->user);
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

/* Which registered passes hold for which module -------------------------------
 * When a registered pass (spec "Name{options}") returns module M, it is
 * "satisfied" for M: a later `required` entry with the same spec is skipped
 * while the module is still M (modules are immutable, so M unchanged means
 * nothing changed). Entries hold a reference to M so its address cannot be
 * reused; they are dropped when the outermost pass call returns. */
static _Thread_local struct {
  int depth;
  struct satisfied {
    const char *spec; /* interned */
    psg_module *mod;
  } *items;
  size_t len, cap;
} run_state;

static void satisfied_record(const char *spec, psg_module *mod) {
  for (size_t i = 0; i < run_state.len; i++)
    if (run_state.items[i].spec == spec) {
      psg_module_retain(mod);
      psg_module_release(run_state.items[i].mod);
      run_state.items[i].mod = mod;
      return;
    }
  if (run_state.len == run_state.cap) {
    size_t cap = run_state.cap ? run_state.cap * 2 : 8;
    struct satisfied *items = realloc(run_state.items, cap * sizeof *items);
    if (!items) return; /* only an optimisation: forgetting is safe */
    run_state.items = items;
    run_state.cap = cap;
  }
  psg_module_retain(mod);
  run_state.items[run_state.len].spec = spec;
  run_state.items[run_state.len++].mod = mod;
}

bool psgi_pass_satisfied(const char *spec, const psg_module *mod) {
  for (size_t i = 0; i < run_state.len; i++)
    if (run_state.items[i].spec == spec) return run_state.items[i].mod == mod;
  return false;
}

/* The same by the spec's text: a `required` entry written as a registered
 * pass's spec is known satisfied without parsing it into a pass. */
bool psgi_pass_satisfied_text(const char *spec, const psg_module *mod) {
  for (size_t i = 0; i < run_state.len; i++)
    if (!strcmp(run_state.items[i].spec, spec)) return run_state.items[i].mod == mod;
  return false;
}

static void run_state_leave(void) {
  if (--run_state.depth > 0) return;
  for (size_t i = 0; i < run_state.len; i++) psg_module_release(run_state.items[i].mod);
  free(run_state.items);
  run_state.items = NULL;
  run_state.len = run_state.cap = 0;
}

/* Pass kinds -------------------------------------------------------------- */

/* tvm-behavior §4.1: only Relay functions without Compiler, Extern or
 * SkipOptimization are given to a function pass. */
static bool is_optimizable(const psg_expr *f) {
  if (f->kind != PSG_EXPR_FUNCTION) return false;
  psg_attrs *a = f->u.fn.attrs;
  if (psg_attrs_get(a, "Compiler")) return false;
  psg_attr *v = psg_attrs_get(a, "Extern");
  if (v && psg_attr_get_int(v) != 0) return false;
  v = psg_attrs_get(a, "SkipOptimization");
  if (v && psg_attr_get_int(v) != 0) return false;
  return true;
}

/* PrimFuncs are not part of the IR yet (they arrive with TIR); until then no
 * module entry is one and a prim-func pass leaves every module unchanged. */
static bool is_prim_func(const psg_expr *f) {
  (void)f;
  return false;
}

/* The first free variable of function `fn` (a Var used but bound by no
 * Function or Let in it, in psgi_free_vars' order: first reached in a
 * left-to-right depth-first walk), or NULL. One map serves as the visited set
 * and records which variables are bound: the check runs after every function
 * pass that changed a function, over the whole function. */
typedef struct fv_frame {
  const psg_expr *e;
  uint32_t next;
} fv_frame;

static psg_status first_free_var(psg_ctx *ctx, const psg_expr *fn, const psg_expr **out) {
  *out = NULL;
  psgi_map marks; /* node -> 1 (reached) | 2 (a bound variable) */
  psgi_map_init(&marks, ctx);
  PSGI_VEC(fv_frame) stack = {0};
  PSGI_VEC(const psg_expr *) vars = {0};
  fv_frame f0 = {fn, 0};
  psgi_map_entry *en = psgi_map_put_ptr(&marks, fn, NULL);
  psg_status st = en && PSGI_VEC_PUSH(ctx, &stack, f0) ? PSG_OK : psgi_nomem(ctx);
  if (en) en->value = (void *)(uintptr_t)1;
  while (!st && stack.len) {
    fv_frame *f = &stack.data[stack.len - 1];
    const psg_expr *e = f->e;
    if (f->next == e->nkids) {
      stack.len--;
      continue;
    }
    uint32_t i = f->next++;
    bool bound = (e->kind == PSG_EXPR_FUNCTION && i + 1 < e->nkids) || (e->kind == PSG_EXPR_LET && i == 0);
    const psg_expr *k = e->kids[i];
    psgi_map_entry *m = psgi_map_put_ptr(&marks, k, NULL);
    if (!m) {
      st = psgi_nomem(ctx);
      break;
    }
    uintptr_t was = (uintptr_t)m->value;
    m->value = (void *)(was | 1 | (bound ? 2 : 0));
    if (was & 1) continue;
    fv_frame fk = {k, 0};
    if (k->kind == PSG_EXPR_VAR ? !PSGI_VEC_PUSH(ctx, &vars, k) : !PSGI_VEC_PUSH(ctx, &stack, fk)) st = psgi_nomem(ctx);
  }
  for (size_t i = 0; !st && i < vars.len && !*out; i++)
    if (!((uintptr_t)psgi_map_get_ptr(&marks, vars.data[i])->value & 2)) *out = vars.data[i];
  PSGI_VEC_FREE(ctx, &stack);
  PSGI_VEC_FREE(ctx, &vars);
  psgi_map_fini(&marks);
  return st;
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

static psg_status run_module_pass(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_status st = p->fn.module(mod, pc, p->user, out);
  if (st) {
    psg_module_release(*out);
    *out = NULL;
    return st;
  }
  if (!*out) return psg_ctx_fail(p->ctx, PSG_ERR_PASS_FAILED, "The return value of a module pass must be set.");
  return PSG_OK;
}

/* Function and prim-func passes: call fn on each selected function, then
 * build one new module (the input stays as it was). */
static psg_status run_per_function(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_ctx *ctx = p->ctx;
  bool prim = p->kind == PSG_PASS_PRIM_FUNC;
  size_t n = mod->n, k = 0;
  psgi_module_entry *es = psgi_alloc(ctx, (n ? n : 1) * sizeof *es);
  bool *owned = psgi_calloc(ctx, (n ? n : 1) * sizeof *owned);
  psg_status st = es && owned ? PSG_OK : psgi_nomem(ctx);
  bool changed = false;
  for (size_t i = 0; !st && i < n; i++) {
    psgi_module_entry e = mod->entries[i];
    bool selected = prim ? is_prim_func(e.func) : is_optimizable(e.func);
    if (selected) {
      psg_expr *nf = NULL;
      st = prim ? p->fn.prim_func(e.func, mod, pc, p->user, &nf) : p->fn.function(e.func, mod, pc, p->user, &nf);
      if (st) {
        psg_expr_release(nf);
        break;
      }
      if (!nf && prim) { /* a NULL result removes the PrimFunc */
        changed = true;
        continue;
      }
      if (!nf || (!prim && nf->kind != PSG_EXPR_FUNCTION)) {
        psg_expr_release(nf);
        st = psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "function pass '%s' returned %s for @%s", p->info->name,
                          nf ? "a non-function" : "nothing", e.gv->u.gvar.name);
        break;
      }
      if (nf != e.func && !prim && !skip_free_var_check(p)) {
        const psg_expr *free_var = NULL;
        st = first_free_var(ctx, nf, &free_var);
        if (!st && free_var)
          st = psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "function pass '%s' made @%s with free variable %%%s",
                            p->info->name, e.gv->u.gvar.name, free_var->u.var.name);
        if (st) {
          psg_expr_release(nf);
          break;
        }
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
   * makes a copy every time; we save rebuilding 20,000-entry maps and let
   * the InferType below see that nothing changed. */
  psg_module *updated = NULL;
  if (!st && !changed) {
    psg_module_retain(mod);
    updated = mod;
  } else if (!st) {
    st = psgi_module_from_entries(ctx, es, k, mod->attrs, &updated);
  }
  for (size_t i = 0; es && owned && i < k; i++)
    if (owned[i]) psg_expr_release(es[i].func);
  psgi_free(ctx, es);
  psgi_free(ctx, owned);
  if (st) return st;
  /* A function pass ends with InferType through the instrumented wrapper
   * (tvm-behavior §4.3) once InferType is registered. Unlike TVM (quirk 10)
   * it runs under the same context as the pass, not whatever is current. */
  /* The same de-duplication as for `required` (sequential.c): skipped when
   * InferType itself produced this very module earlier in the run. */
  if (!prim && psgi_registry_has(ctx, "InferType") &&
      !psgi_pass_satisfied(psgi_intern(ctx, "InferType", 9), updated)) {
    psg_pass *infer = NULL;
    st = psg_pass_get(ctx, "InferType", NULL, &infer);
    psg_module *typed = NULL;
    if (!st) st = psgi_pass_call(infer, updated, pc, &typed);
    psg_pass_release(infer);
    psg_module_release(updated);
    updated = typed;
    if (st) return st;
  }
  *out = updated;
  return PSG_OK;
}

static psg_status run_kind(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  switch (p->kind) {
  case PSG_PASS_MODULE: return run_module_pass(p, mod, pc, out);
  case PSG_PASS_FUNCTION:
  case PSG_PASS_PRIM_FUNC: return run_per_function(p, mod, pc, out);
  case PSG_PASS_SEQUENTIAL: return psgi_sequential_run(p, mod, pc, out);
  }
  return psg_ctx_fail(p->ctx, PSG_ERR_INTERNAL, "unknown pass kind %d", p->kind);
}

/* The wrapper ------------------------------------------------------------ */

psg_status psgi_pass_call(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_ctx *ctx = p->ctx;
  const psg_pass_info *info = p->info;
  *out = NULL;
  run_state.depth++;
  size_t diags_before = psg_ctx_diag_count(ctx);
  bool should_run = true;
  psg_status st = psgi_instruments_before(pc, mod, info, &should_run);
  if (st) goto done;
  if (!should_run) {
    psg_module_retain(mod); /* skipped: the very same module */
    *out = mod;
    goto done;
  }
  bool immutable = psg_pass_context_config_bool(pc, "testing.immutable_module");
  uint64_t h0 = immutable ? psg_module_structural_hash(mod) : 0;
  psg_module *ret = NULL;
  st = run_kind(p, mod, pc, &ret);
  if (st) {
    psgi_instruments_after_failed(pc, mod, info);
    goto done;
  }
  if (immutable && psg_module_structural_hash(mod) != h0) {
    psg_module_release(ret);
    st = psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "Immutable module has been modified in pass: %s", info->name);
    psgi_instruments_after_failed(pc, mod, info);
    goto done;
  }
  if ((st = psgi_instruments_after(pc, ret, info)) != PSG_OK) {
    psg_module_release(ret);
    goto done;
  }
  if (p->spec) satisfied_record(p->spec, ret);
  *out = ret;
done:
  if (st) {
    if (psg_ctx_diag_count(ctx) == diags_before)
      psg_ctx_fail(ctx, st, "pass '%s' failed: %s", info->name, psg_status_str(st));
    psgi_diag_note(ctx, "in pass '%s'", info->name);
  }
  run_state_leave();
  return st;
}

psg_status psg_pass_run(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  *out = NULL;
  if (!p || !mod) return PSG_ERR_INVALID_ARGUMENT;
  if (!pc && !(pc = psg_pass_context_current(p->ctx))) return psgi_nomem(p->ctx);
  return psgi_pass_call(p, mod, pc, out);
}
