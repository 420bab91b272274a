/* Passage — private layout of the pass infrastructure (include/passage/
 * pass.h, instrument.h): PassInfo, passes, PassContext, instruments, and the
 * per-context state holding the pass registry and config options. */
#ifndef PSG_PASS_INTERNAL_H
#define PSG_PASS_INTERNAL_H

#include "ir/ir_internal.h"
#include "passage/instrument.h"

struct psg_pass_info {
  uint32_t refcount;
  psg_ctx *ctx;
  char *name;
  int opt_level;
  size_t num_required;
  char **required;
};

struct psg_instrument {
  uint32_t refcount;
  psg_ctx *ctx;
  char *name;
  psg_instrument_callbacks cb;
  void *user;
  void (*free_user)(void *);
};

/* PSG_PROP_* bit positions (pass.h). */
enum { PSGI_NUM_PROPS = 5 };

/* Passes resolved from `required` specs, in order. */
typedef struct psgi_pass_list {
  psg_pass **passes;
  size_t n;
} psgi_pass_list;

struct psg_pass {
  uint32_t refcount;
  psg_ctx *ctx;
  int kind;
  psg_pass_info *info;
  union {
    psg_module_pass_fn module;
    psg_function_pass_fn function;
    psg_prim_func_pass_fn prim_func;
  } fn;
  void *user;
  void (*free_user)(void *);
  psg_pass **children; /* Sequential */
  size_t num_children;
  /* Sequential: child i's `required` passes, resolved when it was built. */
  psgi_pass_list *child_required;
  /* Module properties (pass.h): needed before the body, needed on the result
   * (a function pass's result is TYPED, tvm-behavior §4.3), kept on a changed
   * result, established on every result. ensure[b] is the registered pass
   * that establishes property bit b, resolved when the pass was built, for
   * every bit of needs | result_needs (NULL: none registered). */
  unsigned needs, result_needs, keeps, establishes;
  psg_pass *ensure[PSGI_NUM_PROPS];
  /* Set for passes made by the registry: the registry name and the options
   * as written, and `spec`, the canonical "Name{options}" text (interned)
   * recorded on the modules the pass returns. */
  const char *registry_name;
  psg_attrs *options;
  const char *spec;
  /* Made by the registry from a built-in declaration (or as a child of such
   * a Sequential): its results are Passage's own, so the free-variable check
   * on them (an internal invariant, STYLE rule 6) runs in debug builds only. */
  bool trusted;
  /* Its per-function callback may run on several threads at once
   * (psg_pass_set_concurrent; parallel.c): set for built-in passes too. */
  bool concurrent;
  /* Run as a `required` dependency or to establish a property: opt-bisect
   * never skips it, nor anything it runs (bisect.c). */
  bool essential;
  /* Its per-function results may be memoized (pass_cache.c). */
  bool cacheable;
  /* May reorder float arithmetic: validate-each's looser tolerance
   * (validate_each.c; PSG_PASS_FLAG_REASSOCIATES, psg_pass_set_reassociating). */
  bool reassociates;
};

typedef PSGI_VEC(char *) psgi_str_vec;

struct psg_pass_context {
  uint32_t refcount;
  psg_ctx *ctx;
  bool owned_by_ctx; /* a thread's default context: not counted, no ctx reference */
  int opt_level;
  psgi_str_vec required_pass;
  psgi_str_vec disabled_pass;
  psg_attrs *config;
  PSGI_VEC(psg_instrument *) instruments;
  pthread_mutex_t lock; /* guards the instrument list against override from another thread */
  /* testing.opt_bisect_limit (bisect.c): pass executions counted since the
   * outermost psg_pass_run began, how deep runs nest, and how many
   * essential passes are running (everything inside one is essential). */
  int64_t bisect_limit, bisect_count;
  uint64_t bisect_skips; /* executions skipped so far (never reset) */
  int run_depth;         /* 0: no limit in force (nothing else here is used) */
  int bisect_essential;
  uint64_t cache_counts[6]; /* PSG_PASS_CACHE_*, then write failures (pass_cache.c); atomic */
  int cache_chain_runs; /* a chain of the pass cache is computing its misses (pass_cache_chain.c) */
  /* validate-each (validate_each.c): the last module validated under this
   * context and its outputs, the next pass's "before"; dropped when the
   * outermost psg_pass_run returns (under `lock`). */
  struct psgi_validate_run *validate;
  int validate_runs; /* psg_pass_run calls in progress (atomic); the cache goes when it drops to 0 */
};

/* Per-context state of the pass layer. */
typedef struct psgi_config_option {
  char *key;
  int type;
  psg_attr *default_value; /* adopted by the context */
  char *help;
} psgi_config_option;

/* A user registration: the declaration, and whether the context owns it
 * (made by psg_pass_register, freed with the context). */
typedef struct psgi_registry_entry {
  const psg_pass_decl *decl;
  bool owned;
} psgi_registry_entry;

/* Each thread's default PassContext for one library context (thread_default.c). */
typedef struct psgi_thread_default psgi_thread_default;

/* A loaded pass plugin (plugin.c): the dlopen handle, its name and path. */
typedef struct psgi_plugin {
  void *handle;
  char *name, *path;
} psgi_plugin;

/* Room for config.c's table of built-in options. */
#define PSGI_MAX_BUILTIN_OPTIONS 48

/* Verify-each's module checks after pass `pass` turned `in` into `out`. */
typedef psg_status (*psgi_module_verifier_fn)(psg_ctx *ctx, const psg_module *in, const psg_module *out,
                                              const char *pass);

typedef struct psgi_pass_state {
  PSGI_VEC(psgi_config_option) options; /* registered at run time; built-ins are a table in config.c */
  psg_attr *builtin_defaults[PSGI_MAX_BUILTIN_OPTIONS]; /* made (adopted) when first listed */
  /* The built-in table (static, shared by every context, never copied),
   * then users' registrations, appended and never removed before the
   * context dies (a later one of a name wins). */
  const psg_pass_decl *const *builtin;
  size_t num_builtin;
  PSGI_VEC(psgi_registry_entry) passes;
  psgi_thread_default *thread_defaults; /* guarded by thread_default.c's lock, not ctx->lock */
  psgi_module_verifier_fn verifier;     /* verify-each's checks (NULL: none installed) */
  PSGI_VEC(psgi_plugin) plugins;        /* loaded pass plugins, unloaded after the registry is freed */
} psgi_pass_state;

/* Unloads the plugins of a dying context (plugin.c). */
void psgi_plugins_unload(psg_ctx *ctx, psgi_pass_state *st);

/* The pass state of `ctx`, made on first use. Callers hold ctx->lock while
 * reading or changing it. NULL on OOM. */
psgi_pass_state *psgi_pass_state_locked(psg_ctx *ctx);
/* Installs a context's built-in pass table (registry.c; called once, by the
 * top layer that owns the table, when the context is made). */
psg_status psgi_pass_install_builtins(psg_ctx *ctx, const psg_pass_decl *const *table, size_t n);

/* PassContext set-up and teardown (context.c): init fills a zeroed context
 * (refcount 1, TVM's defaults); free releases what it holds and its memory. */
psg_status psgi_pass_context_init(psg_ctx *ctx, psg_pass_context *pc);
void psgi_pass_context_free(psg_pass_context *pc);
/* This thread's default PassContext for `ctx` (thread_default.c): made on
 * first use, freed when the thread exits or `ctx` dies, whichever comes
 * first. NULL on OOM. */
psg_pass_context *psgi_thread_default_context(psg_ctx *ctx);
/* Frees every thread's default context for `ctx` (the context is dying). */
void psgi_thread_defaults_drop(psgi_pass_state *st);

/* psg_pass_get, also telling which option was refused (*bad_option: its
 * index in `options`, SIZE_MAX when none was), so the pipeline parser can
 * point at it (registry.c). */
psg_status psgi_pass_get_checked(psg_ctx *ctx, const char *name, psg_attrs *options, size_t *bad_option,
                                 psg_pass **out);

/* One option value in the pipeline syntax, starting at `value` inside
 * `text`; errors are located as `label`:1:COL with COL counted in `text`
 * (pipeline.c; config.c parses --config assignments with it). */
psg_status psgi_parse_value_in(psg_ctx *ctx, const char *label, const char *text, const char *value,
                               psg_attr **out);

/* This thread's stack of entered contexts without the instruments' enter
 * and exit callbacks (context.c): pop undoes the push of `pc` on top. */
psg_status psgi_pass_context_push(psg_pass_context *pc);
void psgi_pass_context_pop(psg_pass_context *pc);

/* Per-function bodies on threads (parallel.c). A per-function pass's
 * callback on one module entry: the new function (a psg_expr * or a
 * psg_tir_prim_func *) in *out. */
typedef psg_status (*psgi_entry_call_fn)(const psgi_module_entry *e, void *user, void **out);
typedef struct psgi_precomputed psgi_precomputed;
/* When `pc` allows threads (passage.num_threads), `p` may run concurrently
 * and at least two entries of `mod` are chosen (`chosen`): runs `call` on
 * every chosen entry on threads, each call's diagnostics captured, and
 * gives the results (*out NULL: run serially, as before). `release` frees
 * one result. */
psg_status psgi_parallel_precompute(psg_pass *p, psg_module *mod, psg_pass_context *pc,
                                    bool (*chosen)(const psgi_module_entry *e), psgi_entry_call_fn call,
                                    void *user, void (*release)(void *), psgi_precomputed **out);
/* The next chosen entry's result (module order), as `call` gave it, with
 * its diagnostics replayed on this thread: the serial body asks for it
 * where it would call the callback, and stops at the first failure. */
psg_status psgi_precomputed_next(psgi_precomputed *r, void **out);
/* Frees what was not taken (the entries after a failure, diagnostics
 * included). */
void psgi_precomputed_free(psgi_precomputed *r);
/* The threads `pc` allows (passage.num_threads; 0: one per processor). */
unsigned psgi_pass_context_threads(psg_pass_context *pc);

/* The one run function (run.c): every pass kind goes through it. */
psg_status psgi_pass_call(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out);
/* Handing a module reference to the next psgi_pass_call on it (hand_over.c,
 * departure 243): hand_over before the call; the call takes it with
 * take_handed (true: the caller's reference is now the taker's); after the
 * call, handed_back tells the giver whether it still owns its reference
 * (the call did not take it) and clears the slot. */
void psgi_pass_hand_over(psg_module *mod);
bool psgi_pass_take_handed(const psg_module *mod);
bool psgi_pass_handed_back(const psg_module *mod);
/* No instrument's after-failed hook and no immutable-module check will
 * read a call's input after its body, so a Sequential body may free it. */
bool psgi_pass_may_free_input(psg_pass_context *pc);
/* Whether an instrument of pc has a run_after_pass_failed hook (instrument.c). */
bool psgi_instruments_watch_failures(psg_pass_context *pc);
/* The properties `want` on *mod, as psgi_pass_call gives them to `p` before
 * its body (run.c; the pass cache's chains type a module this way). */
psg_status psgi_pass_ensure(psg_pass *p, unsigned want, psg_module **mod, psg_pass_context *pc);
/* A Relay function a function pass is given (tvm-behavior §4.1; pass.c). */
bool psgi_function_is_optimizable(const psg_expr *f);
/* Pass bodies by kind (pass.c, sequential.c). */
psg_status psgi_module_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out);
psg_status psgi_per_function_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out);
/* A PrimFuncPass's body: its callback on every PrimFunc entry in module
 * order, Relay entries kept as they are; a NULL result removes the entry
 * (prim_func_pass.c). */
psg_status psgi_prim_func_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out);
psg_status psgi_sequential_body(psg_pass *seq, psg_module *mod, psg_pass_context *pc, psg_module **out);

/* The shared per-function adaptor: `fn` on every entry `select` accepts,
 * then one new module (the input itself, retained, when every function came
 * back unchanged). A NULL result removes the entry when `may_remove`. Used by
 * function and prim-func passes, and by module passes that rewrite function
 * by function (DeadCodeElimination, the normal forms). */
typedef bool (*psgi_select_fn)(const psg_expr *func);
typedef psg_status (*psgi_rewrite_entry_fn)(psg_expr *func, const psgi_module_entry *entry, void *user,
                                            psg_expr **out);
psg_status psgi_map_functions(psg_module *mod, psgi_select_fn select, psgi_rewrite_entry_fn fn, void *user,
                              bool may_remove, psg_module **out);

/* Resolves the `required` specs of `info` into passes (sequential.c).
 * PSG_ERR_NOT_FOUND (with the registry's message and "required by") when one
 * does not name a registered pass. */
psg_status psgi_resolve_required(psg_ctx *ctx, const psg_pass_info *info, psgi_pass_list *out);
void psgi_pass_list_free(psg_ctx *ctx, psgi_pass_list *l);
/* A Sequential of `passes` whose required lists are already resolved (takes
 * the lists; sequential.c). */
psg_status psgi_sequential_make(psg_ctx *ctx, psg_pass *const *passes, psgi_pass_list *required, size_t n,
                                const psg_pass_info *info, psg_pass **out);
/* Resolves p->ensure for p->needs | p->result_needs (properties.c). */
psg_status psgi_pass_resolve_ensure(psg_pass *p);

/* Opt-bisect (bisect.c, testing.opt_bisect_limit). psg_pass_run brackets
 * every run with begin/end (the count restarts at the outermost one; end
 * takes what begin returned). gate runs
 * before a pass call: PSGI_BISECT_SKIP means the call returns its input;
 * otherwise the value goes back to ungate after the call. run_on decides for
 * one function of a function or prim-func pass (`func`: its global name). */
enum { PSGI_BISECT_SKIP = -1, PSGI_BISECT_RUN = 0, PSGI_BISECT_RUN_ESSENTIAL = 1 };
bool psgi_bisect_run_begin(psg_pass_context *pc);
void psgi_bisect_run_end(psg_pass_context *pc, bool begun);
int psgi_bisect_gate(psg_pass *p, psg_pass_context *pc);
void psgi_bisect_ungate(psg_pass_context *pc, int gate);
bool psgi_bisect_run_on(psg_pass *p, psg_pass_context *pc, const char *func);

/* FixedPoint (fixed_point.c): true for a pass psg_fixed_point made; its one
 * child is the inner Sequential. */
bool psgi_pass_is_fixed_point(const psg_pass *p);
/* A FixedPoint over `inner` (retained; the pipeline parser's Sequential). */
psg_status psgi_fixed_point_make(psg_ctx *ctx, psg_pass *inner, int max_iterations, psg_pass **out);
/* Appends " (NOTE)" to the name of the pass the timing instruments of `pc`
 * have open, i.e. the one running (instr_timing.c). */
void psgi_timing_annotate_open(psg_pass_context *pc, const char *note);

/* Module properties (properties.c). */
unsigned psgi_properties_established_by(const char *name);
void psgi_module_add_properties(psg_module *mod, unsigned bits);
bool psgi_module_has_spec(const psg_module *mod, const char *spec);
psg_status psgi_module_add_spec(psg_module *mod, const char *spec);

/* Instrument dispatch (instrument.c), following tvm-behavior §3. */
psg_status psgi_instruments_before(psg_pass_context *pc, const psg_module *mod,
                                   const psg_pass_info *info, bool *run);
psg_status psgi_instruments_after(psg_pass_context *pc, const psg_module *mod,
                                  const psg_pass_info *info);
void psgi_instruments_after_failed(psg_pass_context *pc, const psg_module *mod,
                                   const psg_pass_info *info);
psg_status psgi_instruments_enter(psg_pass_context *pc);
psg_status psgi_instruments_exit(psg_pass_context *pc);

/* The declaration registered under `name` (no alias resolution), or NULL.
 * Valid while the context lives. */
const psg_pass_decl *psgi_registry_find(psg_ctx *ctx, const char *name);
/* The pass object of declaration `d`'s body (PassInfo from `d`) with `user`
 * for its callback; for constructors that prepare their own user data. */
psg_status psgi_pass_build(psg_ctx *ctx, const psg_pass_decl *d, void *user, void (*free_user)(void *),
                           psg_pass **out);
/* Frees a declaration psg_pass_register made (with the context). */
void psgi_registry_free_owned(psg_ctx *ctx, const psg_pass_decl *d);

/* Appends the pipeline text of a registered pass: "Name" or "Name{k=v,...}". */
void psgi_format_pass_spec(psgi_buf *b, const char *name, const psg_attrs *options);
/* Appends an option value in the pipeline syntax (what psgi_parse_value_in
 * reads back). */
void psgi_format_value(psgi_buf *b, const psg_attr *v);

/* Verify-each (verify_each.c): the module verifier, installed by the layer
 * that knows InferType (src/builtin/ctx_create.c), and the check the run
 * function makes after a pass body when testing.verify_each is on. */
psg_status psgi_pass_install_verifier(psg_ctx *ctx, psgi_module_verifier_fn fn);
psg_status psgi_verify_each(psg_pass *p, psg_pass_context *pc, const psg_module *in, const psg_module *out);

/* Validate-each (validate_each.c, issue 20): with testing.validate_each = N
 * > 0, runs @main of `in` and `out` on N inputs with the reference
 * interpreter after a pass that changed the module and fails the pass when
 * the outputs differ beyond tolerance. The outputs of a result are kept
 * on `pc` as the next pass's "before" until the outermost psg_pass_run
 * ends (psg_pass_run calls begin and end). */
psg_status psgi_validate_each(psg_pass *p, psg_pass_context *pc, psg_module *in, psg_module *out);
void psgi_validate_run_begin(psg_pass_context *pc);
void psgi_validate_run_end(psg_pass_context *pc);

/* Reproducers (reproducer.c): with testing.reproducer set, the run function
 * renders a pass's input before it runs (the outermost pass's; with
 * testing.local_reproducer, every non-Sequential pass's) and writes it when
 * the pass fails, or from a signal handler when it crashes. */
typedef struct psgi_repro_frame {
  const char *path;                    /* the config's file name; NULL: reproducers off */
  char *text;                          /* the rendered file (libc), NULL when none */
  size_t len;
  const struct psgi_repro_frame *prev; /* what a crash wrote before this frame */
  const char *prev_pass;               /* the pass a crash named before this frame */
  bool crash_owner;                    /* this (outermost) frame armed the signal handlers */
} psgi_repro_frame;
void psgi_reproducer_enter(psgi_repro_frame *f, psg_pass *p, const psg_module *mod, psg_pass_context *pc);
void psgi_reproducer_leave(psgi_repro_frame *f, psg_pass *p, psg_status st);

/* Utility: a copy of a NUL-terminated string in the context's allocator. */
char *psgi_strdup(psg_ctx *ctx, const char *s);
bool psgi_str_vec_has(const psgi_str_vec *v, const char *s);
void psgi_str_vec_free(psg_ctx *ctx, psgi_str_vec *v);

#endif
