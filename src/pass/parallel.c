/* Passage — function and prim-func passes on threads (docs/pass-infra.md
 * "Threads"). The callbacks of a per-function pass run ahead, on
 * passage.num_threads threads, over the module's chosen entries; then the
 * serial body (pass.c, prim_func_pass.c) walks the module in order as
 * before, taking each entry's precomputed result instead of calling the
 * callback. So the result module, the diagnostics (captured per entry and
 * replayed in module order; the entries after the first failure are
 * dropped with theirs) and the instruments (one before and one after the
 * whole pass, on the calling thread) are those of the serial run. */
#include "pass/parallel_calls.h"
#include "support/thread_pool.h"

typedef struct precomputed_entry {
  bool ran;
  psg_status st;
  void *out;
  psgi_diag_list *diags;
} precomputed_entry;

struct psgi_precomputed {
  psg_ctx *ctx;
  psg_module *mod;
  psg_pass_context *current; /* the caller's current context, made current on the workers */
  psgi_entry_call_fn call;
  void *user;
  void (*release)(void *);
  size_t n;           /* chosen entries */
  size_t taken;       /* how many psgi_precomputed_next gave */
  size_t *index;      /* the module index of each chosen entry, in order */
  precomputed_entry *entries; /* by module index */
};

/* A worker running a pass body does not start threads of its own (a
 * callback that runs a pass runs it serially). */
static _Thread_local bool on_worker;
/* The loop whose tasks this thread caches for (run_one to leave). */
static _Thread_local const void *caching_for;

unsigned psgi_pass_context_threads(psg_pass_context *pc) {
  int64_t n = psg_pass_context_config_int(pc, "passage.num_threads");
  if (n == 0) return psgi_num_processors();
  return n < 1 ? 1 : n > PSGI_MAX_THREADS ? PSGI_MAX_THREADS : (unsigned)n;
}

static bool run_one(void *user, size_t k) {
  psgi_precomputed *r = user;
  /* The thread's allocator cache and object counts, from its first task
   * until it leaves the loop (departure 170). */
  if (caching_for != r) {
    caching_for = r;
    psgi_ctx_thread_cache_begin(r->ctx);
  }
  precomputed_entry *pe = &r->entries[r->index[k]];
  bool was_worker = on_worker;
  on_worker = true;
  psgi_diag_list *saved = NULL;
  pe->ran = true;
  pe->st = psgi_diag_capture_begin(r->ctx, &saved);
  bool capturing = !pe->st, pushed = false;
  if (!pe->st && r->current) pushed = !(pe->st = psgi_pass_context_push(r->current));
  if (!pe->st) pe->st = r->call(&r->mod->entries[r->index[k]], r->user, &pe->out);
  if (pushed) psgi_pass_context_pop(r->current);
  if (capturing) pe->diags = psgi_diag_capture_end(r->ctx, saved);
  on_worker = was_worker;
  return pe->st == PSG_OK;
}

static void leave(void *user) {
  psgi_precomputed *r = user;
  if (caching_for != r) return;
  caching_for = NULL;
  psgi_ctx_thread_cache_end(r->ctx);
}

psg_status psgi_parallel_precompute(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                    bool (*chosen)(const psgi_module_entry *e), psgi_entry_call_fn call,
                                    void *user, void (*release)(void *), psgi_precomputed **out) {
  *out = NULL;
  if (on_worker || !(p->trusted || p->concurrent)) return PSG_OK;
  /* Opt-bisect numbers and decides executions per function in module order
   * (bisect.c): with a limit set, the walk runs serially. */
  if (pc->run_depth > 0) return PSG_OK;
  unsigned threads = psgi_pass_context_threads(pc);
  if (threads < 2) return PSG_OK;
  size_t n = 0;
  for (size_t i = 0; i < mod->n && n < 2; i++) n += chosen(&mod->entries[i]);
  if (n < 2) return PSG_OK;
  psg_ctx *ctx = mod->ctx;
  psgi_precomputed *r = psgi_calloc(ctx, sizeof *r);
  if (!r) return psgi_nomem(ctx);
  r->ctx = ctx;
  r->mod = mod;
  r->call = call;
  r->user = user;
  r->release = release;
  r->index = psgi_alloc(ctx, mod->n * sizeof *r->index);
  r->entries = psgi_calloc(ctx, mod->n * sizeof *r->entries);
  if (!r->index || !r->entries || !(r->current = psg_pass_context_current(ctx))) {
    psgi_precomputed_free(r);
    return psgi_nomem(ctx);
  }
  for (size_t i = 0; i < mod->n; i++)
    if (chosen(&mod->entries[i])) r->index[r->n++] = i;
  psgi_parallel_for(r->n, threads, run_one, leave, r);
  *out = r;
  return PSG_OK;
}

psg_status psgi_precomputed_next(psgi_precomputed *r, void **out) {
  *out = NULL;
  precomputed_entry *pe = r->taken < r->n ? &r->entries[r->index[r->taken++]] : NULL;
  if (!pe || !pe->ran)
    return psg_ctx_fail(r->ctx, PSG_ERR_INTERNAL, "no precomputed result for function %zu of the module",
                        r->taken);
  psgi_diag_replay(r->ctx, pe->diags);
  pe->diags = NULL;
  *out = pe->out;
  pe->out = NULL;
  return pe->st;
}

void psgi_precomputed_free(psgi_precomputed *r) {
  if (!r) return;
  for (size_t i = 0; r->entries && i < r->mod->n; i++) {
    if (r->entries[i].out) r->release(r->entries[i].out);
    psgi_diag_capture_free(r->ctx, r->entries[i].diags);
  }
  psgi_free(r->ctx, r->index);
  psgi_free(r->ctx, r->entries);
  psgi_free(r->ctx, r);
}

/* Independent calls (parallel_calls.h) ----------------------------------- */

typedef struct call_result {
  bool ran;
  psg_status st;
  psgi_diag_list *diags;
} call_result;

struct psgi_parallel_calls {
  psg_ctx *ctx;
  psg_pass_context *current;
  psgi_index_call_fn call;
  void *user;
  size_t n;
  call_result *results;
};

static bool run_call(void *user, size_t i) {
  psgi_parallel_calls *c = user;
  if (caching_for != c) {
    caching_for = c;
    psgi_ctx_thread_cache_begin(c->ctx);
  }
  call_result *cr = &c->results[i];
  bool was_worker = on_worker;
  on_worker = true;
  psgi_diag_list *saved = NULL;
  cr->ran = true;
  cr->st = psgi_diag_capture_begin(c->ctx, &saved);
  bool capturing = !cr->st, pushed = false;
  if (!cr->st && c->current) pushed = !(cr->st = psgi_pass_context_push(c->current));
  if (!cr->st) cr->st = c->call(c->user, i);
  if (pushed) psgi_pass_context_pop(c->current);
  if (capturing) cr->diags = psgi_diag_capture_end(c->ctx, saved);
  on_worker = was_worker;
  return cr->st == PSG_OK;
}

static void leave_calls(void *user) {
  psgi_parallel_calls *c = user;
  if (caching_for != c) return;
  caching_for = NULL;
  psgi_ctx_thread_cache_end(c->ctx);
}

psg_status psgi_parallel_calls_run(psg_ctx *ctx, psg_pass_context *pc, size_t n, psgi_index_call_fn call,
                                   void *user, psgi_parallel_calls **out) {
  *out = NULL;
  if (on_worker || n < 2 || !pc) return PSG_OK;
  if (pc->run_depth > 0) return PSG_OK; /* opt-bisect decides in the serial order */
  unsigned threads = psgi_pass_context_threads(pc);
  if (threads < 2) return PSG_OK;
  psgi_parallel_calls *c = psgi_calloc(ctx, sizeof *c);
  if (!c) return psgi_nomem(ctx);
  *c = (psgi_parallel_calls){ctx, pc, call, user, n, psgi_calloc(ctx, n * sizeof *c->results)};
  if (!c->results) {
    psgi_free(ctx, c);
    return psgi_nomem(ctx);
  }
  psgi_parallel_for(n, threads, run_call, leave_calls, c);
  *out = c;
  return PSG_OK;
}

psg_status psgi_parallel_calls_take(psgi_parallel_calls *c, size_t i) {
  call_result *cr = i < c->n ? &c->results[i] : NULL;
  if (!cr || !cr->ran) return psg_ctx_fail(c->ctx, PSG_ERR_INTERNAL, "no result for call %zu of a parallel loop", i);
  psgi_diag_replay(c->ctx, cr->diags);
  cr->diags = NULL;
  return cr->st;
}

void psgi_parallel_calls_free(psgi_parallel_calls *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) psgi_diag_capture_free(c->ctx, c->results[i].diags);
  psgi_free(c->ctx, c->results);
  psgi_free(c->ctx, c);
}
