/* Passage — chains of the pass cache (docs/pass-infra.md "Pass cache",
 * docs/design.md 195-197). A run of consecutive children of a Sequential
 * that are cacheable Relay function passes (nested Sequentials made only of
 * such, and the InferTypes the runner puts between them, folded in) is one
 * unit: each function is looked up once for the whole chain, under a key
 * naming every step, and the entry holds the function after the last step.
 * -O3 over 256 functions is then 512 lookups, not 2,816.
 *
 * Why a function's result after the chain depends only on what its key
 * holds: a cacheable pass's result on a function depends on the function,
 * its name, its callees' types, the options and the PassContext (pass_cache.h)
 * and keeps the function's type, so the callees' types stay what the key
 * says through the chain; the InferType before a step that needs TYPED
 * gives a function what it would give it alone (it types in place, and is a
 * no-op on a typed function), whether it ran because another function
 * changed or not at all because none did.
 *
 * The functions not found are computed by running the chain, step by step,
 * through the runner, on a module of those functions and everything they
 * call; their results are stored. Anything unusual (a diagnostic, a
 * failure, a function that cannot be keyed) falls back to running the
 * children one by one, so errors and warnings are exactly the uncached
 * run's. Not used (the per-pass cache stands) under instruments, opt-bisect,
 * validate-each or testing.immutable_module: those must see each pass run. */
#include "ops/op_attr.h"
#include "pass/pass_cache.h"

enum { MAX_GROUP_DEPTH = 8 };

/* One pass of the chain, in run order, with what runs before it. */
typedef struct step {
  psg_pass *p;
  const psgi_pass_list *req;
} step;

typedef struct chain {
  psg_ctx *ctx;
  PSGI_VEC(step) steps;
  PSGI_VEC(psg_pass *) groups; /* the nested Sequentials taken whole */
  psgi_buf text;               /* the steps as the key names them */
  unsigned keeps;              /* kept by every step on a changed module */
  size_t cacheable;            /* function passes among the steps */
  size_t end;                  /* the Sequential's child after the chain */
  bool oom;
} chain;

static bool is_infer_type(const psg_pass *p) {
  return p && p->kind == PSG_PASS_MODULE && p->trusted && !strcmp(p->info->name, "InferType");
}

/* Only InferType may run before a step: it is folded in. */
static bool typing_only(const psgi_pass_list *req) {
  for (size_t i = 0; i < req->n; i++)
    if (!is_infer_type(req->passes[i])) return false;
  return true;
}

/* AlterOpLayout is not cacheable (it calls the hooks a host registers), but
 * while no FTVMAlterOpLayout hook is registered it returns every function as
 * it is (alter_op_layout.c): then it is a step, and -O3 one chain, not two. */
static bool is_identity_now(const psg_pass *p) {
  return p->kind == PSG_PASS_FUNCTION && p->trusted && !strcmp(p->info->name, "AlterOpLayout") &&
         !psgi_op_hooks_any(p->ctx, "FTVMAlterOpLayout");
}

static bool is_step(const psg_pass *p, const psgi_pass_list *req) {
  if (!typing_only(req)) return false;
  if (is_infer_type(p)) return true;
  unsigned typing = p->needs | p->result_needs; /* InferType before the body, on the result */
  return p->kind == PSG_PASS_FUNCTION && (psg_pass_is_cacheable(p) || is_identity_now(p)) &&
         !(typing & ~(unsigned)PSG_PROP_TYPED) && (!typing || is_infer_type(p->ensure[0]));
}

static void add_step(chain *c, psg_pass *p, const psgi_pass_list *req) {
  step s = {p, req};
  if (!PSGI_VEC_PUSH(c->ctx, &c->steps, s)) {
    c->oom = true;
    return;
  }
  c->keeps &= is_infer_type(p) ? ~0u : p->keeps;
  c->cacheable += p->kind == PSG_PASS_FUNCTION && psg_pass_is_cacheable(p);
}

/* Appends the enabled children of Sequential `seq` from child `from` on while
 * they are steps; a nested Sequential is taken whole or not at all. Returns
 * the index of the first child not taken. */
static size_t gather(chain *c, psg_pass *seq, size_t from, psg_pass_context *pc, int depth) {
  size_t i = from;
  for (; i < seq->num_children && !c->oom; i++) {
    psg_pass *child = seq->children[i];
    if (!psg_pass_context_pass_enabled(pc, child->info)) continue;
    const psgi_pass_list *req = &seq->child_required[i];
    if (is_step(child, req)) {
      add_step(c, child, req);
      continue;
    }
    bool nested = child->kind == PSG_PASS_SEQUENTIAL && !psgi_pass_is_fixed_point(child) && !child->needs &&
                 !child->result_needs && typing_only(req) && !req->n && depth < MAX_GROUP_DEPTH;
    if (!nested) break;
    size_t nsteps = c->steps.len, ngroups = c->groups.len;
    unsigned keeps = c->keeps;
    size_t cacheable = c->cacheable;
    if (gather(c, child, 0, pc, depth + 1) < child->num_children) { /* not all of it: the chain ends before */
      c->steps.len = nsteps, c->groups.len = ngroups, c->keeps = keeps, c->cacheable = cacheable;
      break;
    }
    c->keeps &= child->keeps;
    if (!PSGI_VEC_PUSH(c->ctx, &c->groups, child)) c->oom = true;
  }
  return i;
}

/* The chain cache is for plain runs: what must see every pass run, or
 * counts pass executions, turns it off. */
static bool chains_allowed(psg_pass_context *pc) {
  return pc->cache_chain_runs == 0 && pc->instruments.len == 0 && pc->run_depth == 0 &&
         !psg_pass_context_config_bool(pc, "testing.immutable_module") &&
         psg_pass_context_config_int(pc, "testing.validate_each") <= 0;
}

/* Runs `s` as the Sequential would: its `required` passes (unless their
 * spec holds), then the pass. */
static psg_status run_step(const step *s, psg_module **mod, psg_pass_context *pc) {
  for (size_t i = 0; i < s->req->n; i++) {
    psg_pass *r = s->req->passes[i];
    if (r->spec && psgi_module_has_spec(*mod, r->spec)) continue;
    psg_module *next = NULL;
    psg_status st = psgi_pass_call(r, *mod, pc, &next);
    if (st) return st;
    psg_module_release(*mod);
    *mod = next;
  }
  psg_module *next = NULL;
  psg_status st = psgi_pass_call(s->p, *mod, pc, &next);
  if (st) return st;
  psg_module_release(*mod);
  *mod = next;
  return PSG_OK;
}

/* What the chain does for one function. */
typedef struct fn_state {
  psgi_printed in;
  psgi_buf key, path;
  psg_expr *result; /* retained */
  bool looked_up, hit;
} fn_state;

/* Marks, in `want`, the entries the missed ones call, transitively: the
 * module a missed function is computed in must type it as the whole would. */
typedef struct closure {
  const psg_module *mod;
  bool *want;
  size_t *queue, nqueue;
} closure;

static int mark_callee(psg_visitor *v, const psg_expr *e) {
  closure *c = v->user;
  if (e->kind != PSG_EXPR_GLOBAL_VAR) return PSG_VISIT_CONTINUE;
  ptrdiff_t k = psg_module_find(c->mod, e->u.gvar.name);
  if (k >= 0 && !c->want[k]) c->want[k] = true, c->queue[c->nqueue++] = (size_t)k;
  return PSG_VISIT_CONTINUE;
}

static psg_status mark_closure(psg_ctx *ctx, const psg_module *mod, bool *want) {
  closure c = {mod, want, psgi_alloc(ctx, (mod->n ? mod->n : 1) * sizeof *c.queue), 0};
  if (!c.queue) return psgi_nomem(ctx);
  for (size_t i = 0; i < mod->n; i++)
    if (want[i]) c.queue[c.nqueue++] = i;
  psg_visitor v = {mark_callee, NULL, &c};
  psg_status st = PSG_OK;
  for (size_t q = 0; !st && q < c.nqueue; q++) /* the queue only grows, each entry once */
    if (mod->entries[c.queue[q]].func) st = psg_visit(ctx, &v, mod->entries[c.queue[q]].func);
  psgi_free(ctx, c.queue);
  return st;
}

/* Runs the chain on the entries of `mod` marked in `want` (a module of
 * their own) and takes each missed function's result from it. Returns false
 * (and leaves no diagnostic) when the run failed or said anything: the
 * caller then runs the children one by one, for the real diagnostics. */
static bool compute_misses(psg_pass *seq, const chain *c, psg_module *mod, psg_pass_context *pc, fn_state *fs,
                           bool *want) {
  psg_ctx *ctx = seq->ctx;
  if (mark_closure(ctx, mod, want)) return false;
  psgi_module_entry *es = psgi_alloc(ctx, mod->n * sizeof *es);
  if (!es) return false;
  size_t k = 0;
  for (size_t i = 0; i < mod->n; i++)
    if (want[i]) es[k++] = mod->entries[i];
  psg_module *sub = NULL;
  psgi_diag_list *saved = NULL;
  psg_status st = psgi_diag_capture_begin(ctx, &saved);
  bool capturing = !st;
  size_t diags = psg_ctx_diag_count(ctx);
  if (!st) st = psgi_module_from_entries_of(mod, es, k, mod->attrs, &sub);
  psgi_free(ctx, es);
  if (!st) psgi_module_add_properties(sub, psg_module_properties(mod));
  pc->cache_chain_runs++;
  for (size_t i = 0; !st && i < c->steps.len; i++) st = run_step(&c->steps.data[i], &sub, pc);
  pc->cache_chain_runs--;
  bool ok = !st && psg_ctx_diag_count(ctx) == diags;
  if (capturing) psgi_diag_capture_free(ctx, psgi_diag_capture_end(ctx, saved));
  for (size_t i = 0; ok && i < mod->n; i++) {
    if (!fs[i].looked_up || fs[i].hit) continue;
    ptrdiff_t at = psg_module_find(sub, mod->entries[i].gv->u.gvar.name);
    psg_expr *r = at >= 0 ? sub->entries[at].func : NULL;
    if (!r || r->kind != PSG_EXPR_FUNCTION) {
      ok = false;
      break;
    }
    psg_expr_retain(fs[i].result = r);
  }
  psg_module_release(sub);
  return ok;
}

/* The result module's properties. Unchanged (every pass returned the very
 * module): what each pass adds to it, as the uncached run does. Changed:
 * what the uncached run surely has (the input's properties every step
 * keeps, then the last step's result typing run for real), no spec: a
 * subset, so a later pass may re-establish what the uncached run had. */
static psg_status result_properties(const chain *c, psg_module *in, psg_module **out, psg_pass_context *pc) {
  const step *last = &c->steps.data[c->steps.len - 1];
  if (*out != in) {
    psgi_module_add_properties(*out, psg_module_properties(in) & c->keeps & ~(unsigned)PSG_PROP_TYPED);
    return psgi_pass_ensure(last->p, last->p->result_needs, out, pc);
  }
  unsigned bits = 0;
  for (size_t i = 0; i < c->steps.len; i++) bits |= c->steps.data[i].p->establishes;
  psgi_module_add_properties(in, bits);
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < c->steps.len; i++)
    if (c->steps.data[i].p->spec) st = psgi_module_add_spec(in, c->steps.data[i].p->spec);
  for (size_t i = 0; !st && i < c->groups.len; i++)
    if (c->groups.data[i]->spec) st = psgi_module_add_spec(in, c->groups.data[i]->spec);
  return st;
}

static void chain_fini(chain *c) {
  PSGI_VEC_FREE(c->ctx, &c->steps);
  PSGI_VEC_FREE(c->ctx, &c->groups);
  psgi_buf_fini(&c->text);
}

/* Runs the leading InferTypes of the chain and types the module as its
 * first pass would be given it, for real: the keys read the callees' types. */
static psg_status prelude(chain *c, psg_module **mod, psg_pass_context *pc) {
  size_t drop = 0;
  psg_status st = PSG_OK;
  for (; !st && drop < c->steps.len && is_infer_type(c->steps.data[drop].p); drop++)
    st = run_step(&c->steps.data[drop], mod, pc);
  if (st) return st;
  memmove(c->steps.data, c->steps.data + drop, (c->steps.len - drop) * sizeof *c->steps.data);
  c->steps.len -= drop;
  step first = c->steps.data[0];
  for (size_t i = 0; !st && i < first.req->n; i++) {
    psg_pass *r = first.req->passes[i];
    if (r->spec && psgi_module_has_spec(*mod, r->spec)) continue;
    psg_module *next = NULL;
    if ((st = psgi_pass_call(r, *mod, pc, &next)) != PSG_OK) break;
    psg_module_release(*mod);
    *mod = next;
  }
  if (!st) st = psgi_pass_ensure(first.p, first.p->needs, mod, pc);
  return st;
}

/* The key's text of the steps from the first function pass on. */
static psg_status chain_text(chain *c) {
  psgi_buf_printf(&c->text, "chain %zu\n", c->steps.len);
  for (size_t i = 0; i < c->steps.len; i++) {
    const step *s = &c->steps.data[i];
    bool typed = (s->p->needs & PSG_PROP_TYPED) || s->req->n;
    psgi_buf_printf(&c->text, "step %s%s%s%s\n", typed && !is_infer_type(s->p) ? "typed " : "",
                    s->p->spec ? s->p->spec : s->p->info->name, s->p->result_needs ? " typed" : "",
                    is_identity_now(s->p) ? " identity" : "");
  }
  return c->text.failed ? psgi_nomem(c->text.ctx) : PSG_OK;
}

/* Looks every function up; computes the missed ones; builds the result.
 * *done false: fall back (nothing changed but *mod's typing). */
static psg_status run_chain(psg_pass *seq, const chain *c, const char *dir, psg_module **mod, psg_pass_context *pc,
                            bool *done) {
  psg_ctx *ctx = seq->ctx;
  psg_module *m = *mod;
  size_t n = m->n;
  fn_state *fs = psgi_calloc(ctx, (n ? n : 1) * sizeof *fs);
  bool *want = psgi_calloc(ctx, (n ? n : 1) * sizeof *want);
  psgi_module_entry *es = psgi_alloc(ctx, (n ? n : 1) * sizeof *es);
  psg_status st = fs && want && es ? PSG_OK : psgi_nomem(ctx);
  bool usable = !st, misses = false;
  for (size_t i = 0; usable && i < n; i++) {
    const psgi_module_entry *e = &m->entries[i];
    if (!e->func || !psgi_function_is_optimizable(e->func)) continue;
    fn_state *f = &fs[i];
    psgi_buf_init(&f->key, ctx);
    psgi_buf_init(&f->path, ctx);
    f->looked_up = true;
    bool keyable = false;
    if (psgi_cache_quiet_print(ctx, &psgi_cache_relay, e->func, &f->in) ||
        (st = psgi_pass_cache_key(ctx, c->text.data, m, pc, e, f->in.text, f->in.len, f->in.meta, f->in.nmeta,
                                  &f->key, &keyable)) != PSG_OK ||
        !keyable) {
      if (!st) psgi_pass_cache_count(pc, PSG_PASS_CACHE_BYPASSED);
      usable = false;
      break;
    }
    if ((st = psgi_pass_cache_entry_path(ctx, dir, &f->key, &f->path)) != PSG_OK) break;
  }
  /* Every function keyed: look each up. */
  for (size_t i = 0; !st && usable && i < n; i++) {
    const psgi_module_entry *e = &m->entries[i];
    fn_state *f = &fs[i];
    if (!f->looked_up) continue;
    void *r = NULL;
    f->hit = psgi_cache_lookup(seq, pc, &psgi_cache_relay, f->path.data, &f->key, &f->in, e->func,
                               e->gv->u.gvar.name, &r);
    f->result = r;
    psgi_pass_cache_count(pc, f->hit ? PSG_PASS_CACHE_HITS : PSG_PASS_CACHE_MISSES);
    if (!f->hit) misses = want[i] = true;
  }
  if (!st && usable && misses) {
    usable = compute_misses(seq, c, m, pc, fs, want);
    for (size_t i = 0; usable && i < n; i++)
      if (fs[i].looked_up && !fs[i].hit)
        psgi_cache_store(seq, pc, &psgi_cache_relay, dir, fs[i].path.data, &fs[i].key, &fs[i].in,
                         m->entries[i].func, fs[i].result, m->entries[i].gv->u.gvar.name);
  }
  bool changed = false;
  for (size_t i = 0; !st && usable && i < n; i++) {
    es[i] = m->entries[i];
    if (fs[i].looked_up && fs[i].result != m->entries[i].func) es[i].func = fs[i].result, changed = true;
  }
  psg_module *out = NULL;
  if (!st && usable) {
    if (changed) st = psgi_module_from_entries_of(m, es, n, m->attrs, &out);
    else psg_module_retain(out = m);
    if (!st) st = result_properties(c, m, &out, pc);
    if (st) psg_module_release(out), out = NULL;
  }
  for (size_t i = 0; fs && i < n; i++) {
    if (!fs[i].looked_up) continue;
    psgi_printed_free(ctx, &fs[i].in);
    psgi_buf_fini(&fs[i].key);
    psgi_buf_fini(&fs[i].path);
    psg_expr_release(fs[i].result);
  }
  psgi_free(ctx, fs);
  psgi_free(ctx, want);
  psgi_free(ctx, es);
  *done = out != NULL;
  if (out) {
    psg_module_release(m);
    *mod = out;
  }
  return st;
}

psg_status psgi_pass_cache_chain(psg_pass *seq, size_t *i, psg_module **mod, psg_pass_context *pc, bool *handled) {
  *handled = false;
  const char *dir = psgi_pass_cache_dir(pc);
  if (!dir || !chains_allowed(pc)) return PSG_OK;
  psg_ctx *ctx = seq->ctx;
  chain c = {.ctx = ctx, .keeps = ~0u};
  psgi_buf_init(&c.text, ctx);
  c.end = gather(&c, seq, *i, pc, 0);
  if (c.oom) {
    chain_fini(&c);
    return psgi_nomem(ctx);
  }
  if (c.cacheable == 0) {
    chain_fini(&c);
    return PSG_OK;
  }
  psg_status st = prelude(&c, mod, pc);
  if (!st) st = chain_text(&c);
  bool done = false;
  if (!st) st = run_chain(seq, &c, dir, mod, pc, &done);
  *handled = !st && done;
  *i = c.end;
  chain_fini(&c);
  return st;
}
