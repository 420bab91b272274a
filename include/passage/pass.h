/* Passage — the pass infrastructure (spec/pass-infra.md, tvm-behavior §1–§4):
 * PassInfo, PassContext with a thread-local stack, module / function /
 * prim-func / sequential passes, the registry of passes by name, and typed
 * config options.
 *
 * Ownership as everywhere (ir.h): arguments are borrowed, returned objects
 * are new references, `_get_` accessors borrow. Passes never change their
 * input module; a failing pass returns an error status, leaves *out NULL and
 * records a diagnostic with a note per enclosing pass ("in pass 'X'"). */
#ifndef PASSAGE_PASS_H
#define PASSAGE_PASS_H

#include "passage/module.h"
#include "passage/tir.h"

PSG_BEGIN_DECLS

typedef struct psg_pass_info psg_pass_info;
typedef struct psg_pass psg_pass;
typedef struct psg_pass_context psg_pass_context;
typedef struct psg_instrument psg_instrument;

/* PassInfo ------------------------------------------------------------------
 * {name, opt_level, required}. `required` entries are pass specs in pipeline
 * syntax: a registered name, optionally with options ("FoldConstant",
 * "FuseOps{fuse_opt_level=2}"). */
PSG_API psg_status psg_pass_info_create(psg_ctx *ctx, const char *name, int opt_level,
                                        const char *const *required, size_t num_required,
                                        psg_pass_info **out);
PSG_API void psg_pass_info_retain(psg_pass_info *info);
PSG_API void psg_pass_info_release(psg_pass_info *info);
PSG_API const char *psg_pass_info_name(const psg_pass_info *info);
PSG_API int psg_pass_info_opt_level(const psg_pass_info *info);
PSG_API size_t psg_pass_info_num_required(const psg_pass_info *info);
PSG_API const char *psg_pass_info_required(const psg_pass_info *info, size_t i);
/* TVM's printed form: "The meta data of the pass - pass name: N, opt_level: L,
 * required passes: [...]\n". Free with psg_free. */
PSG_API char *psg_pass_info_to_string(const psg_pass_info *info);

/* Passes ---------------------------------------------------------------------- */

enum {
  PSG_PASS_MODULE = 1,
  PSG_PASS_FUNCTION = 2,
  PSG_PASS_PRIM_FUNC = 3,
  PSG_PASS_SEQUENTIAL = 4
};

/* A module pass: *out is the new module (it may be `mod` itself, retained). */
typedef psg_status (*psg_module_pass_fn)(psg_module *mod, psg_pass_context *pctx, void *user,
                                         psg_module **out);
/* A function pass: called once per optimizable Relay function (not marked
 * Compiler, Extern or SkipOptimization); *out is the new function. `mod` is the
 * module before the pass. */
typedef psg_status (*psg_function_pass_fn)(psg_expr *func, psg_module *mod,
                                           psg_pass_context *pctx, void *user, psg_expr **out);
/* A prim-func pass: called once per PrimFunc of the module (Relay functions
 * are left alone), in module order; *out is the new PrimFunc (a new
 * reference; `func` itself, retained, for no change), or NULL to remove the
 * function. `mod` is the module before the pass. */
typedef psg_status (*psg_prim_func_pass_fn)(psg_tir_prim_func *func, psg_module *mod,
                                            psg_pass_context *pctx, void *user, psg_tir_prim_func **out);

/* Creation helpers. `user` is passed to `fn`; `free_user` (may be NULL) is
 * called on it when the pass is destroyed, so other languages can supply
 * passes. */
PSG_API psg_status psg_create_module_pass(psg_ctx *ctx, const psg_pass_info *info,
                                          psg_module_pass_fn fn, void *user,
                                          void (*free_user)(void *), psg_pass **out);
PSG_API psg_status psg_create_function_pass(psg_ctx *ctx, const psg_pass_info *info,
                                            psg_function_pass_fn fn, void *user,
                                            void (*free_user)(void *), psg_pass **out);
PSG_API psg_status psg_create_prim_func_pass(psg_ctx *ctx, const psg_pass_info *info,
                                             psg_prim_func_pass_fn fn, void *user,
                                             void (*free_user)(void *), psg_pass **out);
/* A Sequential of `passes` (each retained). `info` NULL means TVM's default:
 * name "sequential", opt_level 0, no required passes. */
PSG_API psg_status psg_sequential(psg_ctx *ctx, psg_pass *const *passes, size_t n,
                                  const psg_pass_info *info, psg_pass **out);

/* A FixedPoint (XLA's HloPassFix; pipeline text fixed_point(P1,...){max_iterations=N}):
 * a module pass named "FixedPoint" that runs a Sequential of `passes` (each
 * retained, `required` resolved as psg_sequential does) again and again until
 * the module stops changing (the same module, or structurally equal), at
 * most `max_iterations` times (>= 1). Reaching the limit is a warning and the
 * last module is the result; a module seen before (its structural hash equal
 * to that of an earlier iteration's, not the last one's) is a cycle:
 * PSG_ERR_PASS_FAILED. The timing tree shows the iteration count.
 * PSG_ERR_INVALID_ARGUMENT for max_iterations < 1 or a NULL pass. */
PSG_API psg_status psg_fixed_point(psg_ctx *ctx, psg_pass *const *passes, size_t n, int max_iterations,
                                   psg_pass **out);
/* The max_iterations of a pass psg_fixed_point made; 0 for any other pass. */
PSG_API int psg_fixed_point_max_iterations(const psg_pass *p);

PSG_API void psg_pass_retain(psg_pass *p);
PSG_API void psg_pass_release(psg_pass *p);
PSG_API int psg_pass_kind(const psg_pass *p);
/* Whether a function or prim-func pass's callback may run on several
 * threads at once, on different functions of one module, when the
 * PassContext allows threads (config passage.num_threads; docs/pass-infra.md
 * "Threads"). Passage's built-in passes may; a pass made by
 * psg_create_function_pass / psg_create_prim_func_pass runs serially unless
 * its creator declares it concurrent here (Python's passes stay serial: a
 * callback holds the GIL). The callback then must be thread-safe; output,
 * diagnostics and instruments are those of the serial run either way. */
PSG_API void psg_pass_set_concurrent(psg_pass *p, bool concurrent);
PSG_API bool psg_pass_is_concurrent(const psg_pass *p);
/* Whether the pass may reorder floating-point arithmetic (reassociate a sum,
 * fold a scale into a weight, lower a reduction in another order), so that
 * validate-each compares its outputs with the looser tolerance
 * testing.validate_each.reassoc_rtol (docs/pass-infra.md "Validate each").
 * A registered pass takes it from PSG_PASS_FLAG_REASSOCIATES in its
 * declaration; a pass made in C declares it here. */
PSG_API void psg_pass_set_reassociating(psg_pass *p, bool reassociating);
PSG_API bool psg_pass_is_reassociating(const psg_pass *p);
PSG_API const psg_pass_info *psg_pass_get_info(const psg_pass *p);
/* Sequential only: the child passes (borrowed). */
PSG_API size_t psg_pass_num_children(const psg_pass *p);
PSG_API psg_pass *psg_pass_get_child(const psg_pass *p, size_t i);
/* The options a registered pass was created with (may be NULL). */
PSG_API psg_attrs *psg_pass_get_options(const psg_pass *p);
/* TVM's printed form ("Run Module pass: NAME at the optimization level L").
 * Free with psg_free. */
PSG_API char *psg_pass_to_string(const psg_pass *p);

/* Runs `p` on `mod` through the one run function (tvm-behavior §2.2,
 * src/pass/run.c): instruments' should_run / run_before_pass, the module
 * properties the pass needs (their establishing passes run, instrumented),
 * the pass, the testing.immutable_module check, the properties of the result,
 * run_after_pass (or run_after_pass_failed). `pctx` NULL means the current
 * context of this thread. Calling a pass directly never checks opt_level,
 * disabled or required passes (only a Sequential does). On failure *out
 * stays NULL and `mod` is unchanged. */
PSG_API psg_status psg_pass_run(psg_pass *p, psg_module *mod, psg_pass_context *pctx,
                                psg_module **out);
/* psg_pass_run taking the caller's reference to `mod` (ours, departure
 * 245): the run frees the input as soon as no pass needs it (a pipeline's
 * input once its first pass has returned, when nothing else holds it)
 * instead of keeping it alive to the end, so the peak of a pipeline holds
 * one module and a pass's output, not also the input. TVM's passes take
 * the module by value the same way (`mod = seq(std::move(mod))`). The
 * caller must not use `mod` afterwards, success or failure (on failure the
 * input is released unchanged; nothing comes back). Instruments and
 * testing.immutable_module read the input after a pass, so with either the
 * input lives to the end as with psg_pass_run. */
PSG_API psg_status psg_pass_run_take(psg_pass *p, psg_module *mod, psg_pass_context *pctx,
                                     psg_module **out);

/* Module properties -----------------------------------------------------------
 * Facts the pass runner records on an immutable module (docs/pass-infra.md):
 * set by the pass that establishes one (InferType: TYPED, ToANormalForm: ANF,
 * ToGraphNormalForm: GNF, ToBasicBlockNormalForm: BBNF, FuseOps: FUSED, each
 * looked up by that name in the registry), kept by a pass that returns its
 * input unchanged or declares it keeps them, dropped otherwise. A pass that
 * needs one gets it from the runner, which runs the establishing pass first. */
enum {
  PSG_PROP_TYPED = 1, /* every checked type filled */
  PSG_PROP_ANF = 2,   /* A-normal form */
  PSG_PROP_GNF = 4,   /* graph normal form */
  PSG_PROP_BBNF = 8,  /* basic-block normal form */
  PSG_PROP_FUSED = 16 /* operators fused into Primitive functions */
};
/* The PSG_PROP_* bits known to hold for `mod` (0 for NULL). */
PSG_API unsigned psg_module_properties(const psg_module *mod);
/* "typed", "anf", "gnf", "bbnf", "fused" for one bit; NULL otherwise. */
PSG_API const char *psg_property_name(unsigned prop);

/* PassContext -------------------------------------------------------------- */

/* A context with TVM's defaults: opt_level 2, no required/disabled passes,
 * empty config, no instruments. */
PSG_API psg_status psg_pass_context_create(psg_ctx *ctx, psg_pass_context **out);
PSG_API void psg_pass_context_retain(psg_pass_context *pc);
PSG_API void psg_pass_context_release(psg_pass_context *pc);
PSG_API psg_ctx *psg_pass_context_get_ctx(const psg_pass_context *pc);

PSG_API psg_status psg_pass_context_set_opt_level(psg_pass_context *pc, int opt_level);
PSG_API int psg_pass_context_opt_level(const psg_pass_context *pc);
PSG_API psg_status psg_pass_context_add_required_pass(psg_pass_context *pc, const char *name);
PSG_API psg_status psg_pass_context_add_disabled_pass(psg_pass_context *pc, const char *name);
PSG_API size_t psg_pass_context_num_required(const psg_pass_context *pc);
PSG_API const char *psg_pass_context_required(const psg_pass_context *pc, size_t i);
PSG_API size_t psg_pass_context_num_disabled(const psg_pass_context *pc);
PSG_API const char *psg_pass_context_disabled(const psg_pass_context *pc, size_t i);
/* Sets config option `key` after validating it against the registered
 * options: an unknown key is PSG_ERR_INVALID_ARGUMENT naming the closest
 * registered key; a value of the wrong type names the expected type; a
 * dictionary value for a dictionary option is checked field by field and
 * completed with the defaults. */
PSG_API psg_status psg_pass_context_set_config(psg_pass_context *pc, const char *key,
                                               psg_attr *value);
/* The same from the text of `passage opt --config KEY=VALUE`: VALUE in the
 * pipeline option syntax (1, -2.5, true, None, "text", [1,2], {field=1}), or
 * a bare word, which is a string. Errors are located in the assignment as
 * "--config:1:COL" (the key at column 1, the value where it is wrong). */
PSG_API psg_status psg_pass_context_set_config_text(psg_pass_context *pc, const char *assignment);
/* The value set for `key` (borrowed), or NULL when not set. */
PSG_API psg_attr *psg_pass_context_get_config(const psg_pass_context *pc, const char *key);
/* Typed reads with the option's registered default when unset. */
PSG_API int64_t psg_pass_context_config_int(const psg_pass_context *pc, const char *key);
PSG_API bool psg_pass_context_config_bool(const psg_pass_context *pc, const char *key);
/* A Float option (an Integer value reads as its double). */
PSG_API double psg_pass_context_config_float(const psg_pass_context *pc, const char *key);
PSG_API psg_attrs *psg_pass_context_get_config_dict(const psg_pass_context *pc);
/* PassEnabled (tvm-behavior §2.1): disabled beats required beats opt_level. */
PSG_API bool psg_pass_context_pass_enabled(const psg_pass_context *pc, const psg_pass_info *info);

/* Instruments of the context, in order. Adding is allowed before entering. */
PSG_API psg_status psg_pass_context_add_instrument(psg_pass_context *pc, psg_instrument *inst);
PSG_API size_t psg_pass_context_num_instruments(const psg_pass_context *pc);
PSG_API psg_instrument *psg_pass_context_get_instrument(const psg_pass_context *pc, size_t i);
/* TVM's override_instruments (§3.5): exit the old instruments, install the
 * new ones (n may be 0), enter them. Errors follow §3.3/§3.4. A NULL in
 * `insts` (PSG_ERR_INVALID_ARGUMENT) or no memory for the new list fails
 * before anything is exited: the old instruments stay installed and entered. */
PSG_API psg_status psg_pass_context_override_instruments(psg_pass_context *pc,
                                                         psg_instrument *const *insts, size_t n);

/* Scopes (§2.4–§2.5). enter: run every instrument's enter_pass_ctx (a
 * failure exits the entered ones in reverse order, clears the instruments and
 * does not push); then push on this thread's stack. exit: the context must be
 * the top of this thread's stack (else PSG_ERR_INVALID_ARGUMENT, nothing
 * popped); pop, then run every exit_pass_ctx (a failure stops, clears the
 * instruments and is returned). */
PSG_API psg_status psg_pass_context_enter(psg_pass_context *pc);
PSG_API psg_status psg_pass_context_exit(psg_pass_context *pc);
/* The top of this thread's stack, or this thread's default context for
 * `ctx` (created on first use, owned by `ctx`, not counted as a live object).
 * Borrowed. A default context belongs to its thread: it is freed when the
 * thread exits or `ctx` dies, whichever comes first, and a later thread never
 * sees it (nor its instruments or config), so a pointer to it must not be
 * used after its thread exited. Instruments or config set on it keep `ctx`
 * alive until the thread exits. NULL only on OOM. */
PSG_API psg_pass_context *psg_pass_context_current(psg_ctx *ctx);

/* Config options -------------------------------------------------------------- */

enum {
  PSG_CONFIG_BOOL = 1,
  PSG_CONFIG_INT = 2,
  PSG_CONFIG_FLOAT = 3,
  PSG_CONFIG_STRING = 4,
  PSG_CONFIG_DICT = 5, /* a dictionary with a fixed set of typed fields */
  PSG_CONFIG_LIST = 6
};

/* Registers option `key` (TVM_REGISTER_PASS_CONFIG_OPTION) in `ctx`. For
 * PSG_CONFIG_DICT, `default_value` is a dictionary attr whose fields define
 * the accepted keys, their types and defaults. `default_value` may be NULL for
 * other types. Registering a key twice is PSG_ERR_INVALID_ARGUMENT. */
PSG_API psg_status psg_register_config_option(psg_ctx *ctx, const char *key, int type,
                                              psg_attr *default_value, const char *help);
/* The listing: the built-in options first (in a fixed order), then those
 * registered with psg_register_config_option in registration order; an index
 * past the end gives NULL / 0. Strings and defaults are borrowed and stay
 * valid until `ctx` dies: options are never removed, and a registration on
 * another thread while one lists does not move or free them. */
PSG_API size_t psg_config_option_count(psg_ctx *ctx);
PSG_API const char *psg_config_option_key(psg_ctx *ctx, size_t i);
PSG_API int psg_config_option_type(psg_ctx *ctx, size_t i);
PSG_API const char *psg_config_option_type_name(int type); /* "Bool", "Integer", ... */
/* The type key TVM's PassContext.list_configs() reports: "IntImm" for Bool
 * and Integer, "runtime.String", "Array", "Attrs" for dictionaries. */
PSG_API const char *psg_config_option_type_key(int type);
PSG_API const char *psg_config_option_help(psg_ctx *ctx, size_t i);
PSG_API psg_attr *psg_config_option_get_default(psg_ctx *ctx, size_t i);
/* The pass or component that reads built-in option `i` (e.g. "FuseOps"), or
 * NULL for a reserved option and for options registered at run time. */
PSG_API const char *psg_config_option_read_by(psg_ctx *ctx, size_t i);
/* True for a built-in option that is registered (so that setting it is
 * validated, as TVM users do) but read by nothing yet. */
PSG_API bool psg_config_option_is_reserved(psg_ctx *ctx, size_t i);

/* Registry --------------------------------------------------------------------
 * Passes by name, each made from one declaration (psg_pass_decl). A context
 * starts with Passage's built-in passes (their table is installed when the
 * context is made); users add or replace names. */
typedef psg_status (*psg_pass_ctor)(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out);

/* One typed option of a declared pass. `type` is a PSG_CONFIG_* type (0:
 * any value); values written in a pipeline or given to psg_pass_get are
 * checked against it.
 * `default_value` is the value (in pipeline value syntax: "-1", "false",
 * "\"NCHW\"") the pass sees when the option is not given; NULL: absent. */
typedef struct psg_pass_option {
  const char *name;
  int type;
  const char *default_value;
} psg_pass_option;

/* The declaration of a pass: everything the registry, PassInfo, `passage
 * passes`, the pipeline printer and the -O levels know about it. The
 * declaration (and every string and array it points to) must outlive the
 * context it is registered in: built-in ones are static.
 *   name, kind, opt_level, help  as listed; kind is PSG_PASS_*.
 *   required   NULL-terminated pass specs run before the pass by a Sequential
 *              (PassInfo.required); may be NULL.
 *   options    the accepted options, terminated by an entry with a NULL name;
 *              may be NULL.
 *   needs      PSG_PROP_* the module must have before the body runs.
 *   keeps      PSG_PROP_* that still hold on a changed result.
 *   establishes PSG_PROP_* that hold on every result.
 * The body, one of:
 *   module / function / prim_func  the callback of a pass of that kind; its
 *              `user` argument is the pass's options (psg_attrs *, every
 *              declared option present, defaults filled in; NULL when the
 *              pass declares none);
 *   children   (kind PSG_PASS_SEQUENTIAL) NULL-terminated child pass specs;
 *   ctor       a constructor called with the options and `user`, for passes
 *              made some other way (the -O levels, psg_pass_register).
 *   cacheable  a function or prim-func pass whose per-function result may be
 *              memoized (psg_pass_set_cacheable, passage/pass_cache.h);
 *   flags      PSG_PASS_FLAG_* (PSG_PASS_FLAG_REASSOCIATES). */
typedef struct psg_pass_decl {
  const char *name;
  int kind;
  int opt_level;
  const char *const *required;
  const psg_pass_option *options;
  const char *help;
  unsigned needs, keeps, establishes;
  psg_module_pass_fn module;
  psg_function_pass_fn function;
  psg_prim_func_pass_fn prim_func;
  const char *const *children;
  psg_pass_ctor ctor;
  void *user;
  bool cacheable;
  unsigned flags; /* PSG_PASS_FLAG_* */
} psg_pass_decl;

/* psg_pass_decl.flags. */
enum {
  /* The pass may reorder floating-point arithmetic (psg_pass_is_reassociating). */
  PSG_PASS_FLAG_REASSOCIATES = 1
};

/* Registers `decl` (borrowed: it must outlive `ctx`) under decl->name. A name
 * registered again is replaced for psg_pass_get and the listing; the earlier
 * declaration stays valid until the context dies. */
PSG_API psg_status psg_pass_register_decl(psg_ctx *ctx, const psg_pass_decl *decl);

/* Registers `name` (a TVM name) in `ctx` with a constructor: a declaration
 * made from the arguments (copied; kind, opt_level, required and help are
 * what `passage passes` lists; `option_names`, NULL-terminated, may be NULL,
 * are the accepted option keys, of any type). Re-registering a name replaces
 * it. */
PSG_API psg_status psg_pass_register(psg_ctx *ctx, const char *name, int kind, int opt_level,
                                     const char *const *required, size_t num_required,
                                     const char *const *option_names, const char *help,
                                     psg_pass_ctor ctor, void *user);
/* Makes the registered pass `name`, resolving TVM's aliases: a name
 * containing "transform." is looked up as is; else "NAME", then
 * "transform.NAME", then "relay._transform.NAME" (tvm-behavior §2.3).
 * PSG_ERR_NOT_FOUND with "cannot use NAME to create the pass" (and the closest
 * registered name) when absent. */
PSG_API psg_status psg_pass_get(psg_ctx *ctx, const char *name, psg_attrs *options,
                                psg_pass **out);
/* The listing: built-in passes in table order (a replaced one in its place),
 * then the names users added, in order of first registration. Strings are
 * valid while `ctx` lives (a replaced declaration is kept). */
PSG_API size_t psg_pass_registry_count(psg_ctx *ctx);
PSG_API const char *psg_pass_registry_name(psg_ctx *ctx, size_t i);
PSG_API int psg_pass_registry_kind(psg_ctx *ctx, size_t i);
PSG_API int psg_pass_registry_opt_level(psg_ctx *ctx, size_t i);
PSG_API const char *psg_pass_registry_help(psg_ctx *ctx, size_t i);
PSG_API size_t psg_pass_registry_num_required(psg_ctx *ctx, size_t i);
PSG_API const char *psg_pass_registry_required(psg_ctx *ctx, size_t i, size_t j);
/* The declaration listed at `i` (options with their types and defaults,
 * properties), valid while `ctx` lives; NULL past the end. */
PSG_API const psg_pass_decl *psg_pass_registry_decl(psg_ctx *ctx, size_t i);

/* The -O levels ----------------------------------------------------------------
 * The registry holds the pipelines "O0".."O3": TVM's default relay.build
 * pipeline (tvm-behavior §7.2) in order, keeping the passes that are
 * registered when the pipeline is made and whose opt level is at most N.
 * The table itself, registered or not, for tools that show what is missing: */
PSG_API size_t psg_default_pipeline_count(void);
PSG_API const char *psg_default_pipeline_name(size_t i);
PSG_API int psg_default_pipeline_opt_level(size_t i);

/* Pipelines as text ------------------------------------------------------------
 *   pipeline := spec ("," spec)*
 *   spec     := NAME options? | "sequential" ("[" NAME "," LEVEL "]")? "(" pipeline? ")"
 *   options  := "{" KEY "=" VALUE ("," KEY "=" VALUE)* "}"
 *   VALUE    := number | true | false | None | "string" | [VALUE,...] | options
 * e.g. "sequential(InferType,FoldConstant,FuseOps{fuse_opt_level=2})". A
 * top-level list of several specs becomes a Sequential. Errors carry the
 * column ("<pipeline>:1:COL: error: ..."). */
PSG_API psg_status psg_pipeline_parse(psg_ctx *ctx, const char *text, psg_pass **out);
/* One option value in the pipeline syntax: 1, -2.5, true, None, "text",
 * [1,2], {field=1}. For `--config KEY=VALUE`. Located errors as above. */
PSG_API psg_status psg_pipeline_parse_value(psg_ctx *ctx, const char *text, psg_attr **out);
/* The text of a pass or pipeline; parses back to the same pipeline. Free with
 * psg_free. */
PSG_API char *psg_pipeline_print(const psg_pass *p);
/* The same with every registered pipeline (O0..O3, FoldScaleAxis) written
 * out as "sequential[NAME,LEVEL](children)": the passes that run, as text
 * that parses back to a pipeline printing the same (MLIR's
 * --dump-pass-pipeline). Free with psg_free. */
PSG_API char *psg_pipeline_print_expanded(const psg_pass *p);

/* Debugging a pipeline (docs/pass-infra.md, "Verify each" and "Reproducers")
 * -------------------------------------------------------------------------
 * Config options of the PassContext turn them on: testing.verify_each
 * (Bool: check the module after every pass that changed it),
 * testing.reproducer (String: the file written when a pass fails or
 * crashes) and testing.local_reproducer (Bool: the file holds the failing
 * pass and its own input only).
 *
 * Reads the reproducer at `path`: *pc a new PassContext with the recorded
 * opt level, required and disabled passes and config, *pipeline the pipeline
 * text (free with psg_free), *mod the input module (its diagnostics point
 * into the file). Enter *pc, parse *pipeline and run it over *mod to replay
 * the failure. PSG_ERR_IO, PSG_ERR_PARSE (no "// pipeline:" line, a bad
 * header line, the module text), or the config's validation error; all
 * outputs NULL then. */
PSG_API psg_status psg_reproducer_load(psg_ctx *ctx, const char *path, psg_pass_context **pc, char **pipeline,
                                       psg_module **mod);

/* TEST ONLY. Registers in `ctx` the seeded-bug passes the tests of
 * verify-each and reproducers use (never registered by default):
 * "testing.BreakTypes" (function pass: gives the body of each function a
 * wrong checked type, [1] + its shape), "testing.BreakPrimFunc" (prim-func
 * pass: makes each PrimFunc use a variable it never defines) and
 * "testing.Crash" (module pass: raises SIGSEGV); and the miscompiles of the
 * validate-each tests: "testing.AddToSubtract" (add becomes subtract),
 * "testing.NudgeConstants" (float32 constants times 1 + 5e-4),
 * "testing.NudgeConstantsReassoc" (the same, declared reassociating) and
 * "testing.TirFloatAddToSub" (prim-func pass: float Add becomes Sub). */
PSG_API psg_status psg_testing_register_seeded_bug_passes(psg_ctx *ctx);

PSG_END_DECLS
#endif
