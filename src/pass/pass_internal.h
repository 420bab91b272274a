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
  /* Set for passes made by the registry: the registry name and the options,
   * and `spec`, the canonical "Name{options}" text (interned) under which the
   * pass counts as satisfying a `required` entry. */
  const char *registry_name;
  psg_attrs *options;
  const char *spec;
  /* Made by the registry from a built-in registration (or by such a
   * registration's constructor as a child of its Sequential): its results are
   * Passage's own, so the free-variable check on them (an internal
   * invariant, STYLE rule 6) runs in debug builds only. */
  bool trusted;
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
};

/* Per-context state of the pass layer. */
typedef struct psgi_config_option {
  char *key;
  int type;
  psg_attr *default_value; /* adopted by the context */
  char *help;
} psgi_config_option;

typedef struct psgi_registry_entry {
  char *name;
  int kind, opt_level;
  psgi_str_vec required;
  psgi_str_vec option_names;
  char *help;
  psg_pass_ctor ctor;
  void *user;
  bool builtin; /* registered by Passage itself (not replaced by a user) */
} psgi_registry_entry;

/* Each thread's default PassContext for one library context (thread_default.c). */
typedef struct psgi_thread_default psgi_thread_default;

/* Room for config.c's table of built-in options. */
#define PSGI_MAX_BUILTIN_OPTIONS 16

typedef struct psgi_pass_state {
  PSGI_VEC(psgi_config_option) options; /* registered at run time; built-ins are a table in config.c */
  psg_attr *builtin_defaults[PSGI_MAX_BUILTIN_OPTIONS]; /* made (adopted) when first listed */
  PSGI_VEC(psgi_registry_entry) passes;
  psgi_thread_default *thread_defaults; /* guarded by thread_default.c's lock, not ctx->lock */
  bool builtins_registered;
  bool registering_builtins; /* psg_pass_register marks entries builtin */
} psgi_pass_state;

/* The pass state of `ctx`, made (with the built-in passes) on first use.
 * Callers hold ctx->lock while reading or changing it. NULL on OOM. */
psgi_pass_state *psgi_pass_state_locked(psg_ctx *ctx);
/* Registers the built-in passes (registry.c). */
psg_status psgi_register_builtin_passes(psg_ctx *ctx);
/* Registers the pipelines O0..O3 (opt_levels.c). */
psg_status psgi_register_opt_levels(psg_ctx *ctx);

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

/* The wrapper of tvm-behavior §2.2 with our run-state bookkeeping. */
psg_status psgi_pass_call(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out);
/* Sequential's loop (sequential.c). */
psg_status psgi_sequential_run(psg_pass *seq, psg_module *mod, psg_pass_context *pc,
                               psg_module **out);
/* Resolves and runs the `required` entries of `info` before it (sequential.c). */
psg_status psgi_run_required(const psg_pass_info *info, psg_module **mod, psg_pass_context *pc);

/* Instrument dispatch (instrument.c), following tvm-behavior §3. */
psg_status psgi_instruments_before(psg_pass_context *pc, const psg_module *mod,
                                   const psg_pass_info *info, bool *run);
psg_status psgi_instruments_after(psg_pass_context *pc, const psg_module *mod,
                                  const psg_pass_info *info);
void psgi_instruments_after_failed(psg_pass_context *pc, const psg_module *mod,
                                   const psg_pass_info *info);
psg_status psgi_instruments_enter(psg_pass_context *pc);
psg_status psgi_instruments_exit(psg_pass_context *pc);

/* True if the registered pass `spec` last produced exactly `mod` in this
 * thread's current run (pass.c). */
bool psgi_pass_satisfied(const char *spec, const psg_module *mod);
bool psgi_pass_satisfied_text(const char *spec, const psg_module *mod);
/* True if `name` is registered (no alias resolution). */
bool psgi_registry_has(psg_ctx *ctx, const char *name);

/* Appends the pipeline text of a registered pass: "Name" or "Name{k=v,...}". */
void psgi_format_pass_spec(psgi_buf *b, const char *name, const psg_attrs *options);

/* Utility: a copy of a NUL-terminated string in the context's allocator. */
char *psgi_strdup(psg_ctx *ctx, const char *s);
bool psgi_str_vec_has(const psgi_str_vec *v, const char *s);
void psgi_str_vec_free(psg_ctx *ctx, psgi_str_vec *v);

#endif
