/* Passage — typed pass config options (tvm-behavior §2.7): the built-in
 * options as one static table (read without a lock: every pass call asks for
 * testing.immutable_module), options registered at run time in the context's
 * vector, and validation when a value is set on a PassContext: unknown keys
 * name the closest registered key, wrong types name the expected one,
 * dictionary options are checked field by field and completed with their
 * defaults. */
#include "pass/pass_internal.h"

/* The built-in options ---------------------------------------------------------
 * `read_by` names the pass or component that reads the option; NULL marks an
 * option that is registered (TVM users set it, so setting it must validate)
 * but read by nothing yet: the listing shows it as reserved.
 * tests/python/test_config_options.py checks that the options marked read are
 * exactly those read in src/; test_fuse_ops and test_pass_instrument check
 * that each read option changes what its reader does. */
typedef struct field {
  const char *key;
  int type; /* PSG_CONFIG_BOOL or PSG_CONFIG_INT */
  int64_t def;
} field;

typedef struct builtin_option {
  const char *key;
  int type;
  int64_t def;          /* Bool and Integer options */
  const field *fields;  /* Dict options: the fields with their defaults */
  size_t num_fields;
  const char *help;
  const char *read_by;
  bool non_negative; /* a count or size: a negative value is refused when set */
} builtin_option;

/* The defaults of the Float options of the table below (`def` is an
 * integer). */
static const struct {
  const char *key;
  double def;
} float_defaults[] = {{"testing.validate_each.rtol", 1e-4}, {"testing.validate_each.reassoc_rtol", 1e-3}};

static double float_default(const char *key) {
  for (size_t i = 0; i < sizeof float_defaults / sizeof *float_defaults; i++)
    if (!strcmp(float_defaults[i].key, key)) return float_defaults[i].def;
  return 0;
}

/* tir.UnrollLoop's UnrollLoopConfig with TVM's defaults. */
static const field unroll_loop_fields[] = {
    {"auto_max_step", PSG_CONFIG_INT, 0},      {"auto_max_depth", PSG_CONFIG_INT, 8},
    {"auto_max_extent", PSG_CONFIG_INT, 0},    {"explicit_unroll", PSG_CONFIG_BOOL, 1},
    {"unroll_local_access", PSG_CONFIG_BOOL, 0},
};

/* tir.LoopPartition's LoopPartitionConfig with TVM's defaults. */
static const field loop_partition_fields[] = {
    {"partition_const_loop", PSG_CONFIG_BOOL, 0},
    {"no_unroll_loop_with_extent_one", PSG_CONFIG_BOOL, 0},
    {"unroll_loop_with_partition_hint_no_interval", PSG_CONFIG_BOOL, 0},
};

/* tir.HoistIfThenElse's HoistIfThenElseConfig with TVM's default. */
static const field hoist_if_then_else_fields[] = {
    {"support_block_scope_hosting", PSG_CONFIG_BOOL, 0},
};

/* tir.RemoveNoOp's RemoveNoOpConfig with TVM's defaults. */
static const field remove_no_op_fields[] = {
    {"use_dataflow_analysis", PSG_CONFIG_BOOL, 0},
    {"max_simplification_steps", PSG_CONFIG_INT, 0},
};

/* tir.Simplify's SimplifyConfig (all false in TVM); read by tir.Simplify
 * (src/tir/transforms/simplify.c). */
static const field simplify_fields[] = {
    {"transitively_prove_inequalities", PSG_CONFIG_BOOL, 0},
    {"propagate_knowns_to_prove_conditional", PSG_CONFIG_BOOL, 0},
    {"propagate_knowns_to_simplify_expressions", PSG_CONFIG_BOOL, 0},
    {"convert_boolean_to_and_of_ors", PSG_CONFIG_BOOL, 0},
    {"apply_constraints_to_boolean_branches", PSG_CONFIG_BOOL, 0},
};

/* verify-each is on by default in the sanitizer build (CMakeLists.txt), so
 * every test there checks every pass's result. */
#ifndef PASSAGE_VERIFY_EACH_DEFAULT
#define PASSAGE_VERIFY_EACH_DEFAULT 0
#endif

static const builtin_option builtins[] = {
    {"testing.immutable_module", PSG_CONFIG_BOOL, 0, NULL, 0,
     "fail a pass that changes its input module (checked by structural hash)", "the pass runner (every pass call)",
     false},
    {"testing.verify_each", PSG_CONFIG_BOOL, PASSAGE_VERIFY_EACH_DEFAULT, NULL, 0,
     "after every pass that changed the module, check it: variables bound once and in scope, no free variable or "
     "missing global, op attributes and arity, checked types equal to InferType's, TIR well-formedness",
     "the pass runner (verify-each, every pass call)", false},
    {"testing.reproducer", PSG_CONFIG_STRING, 0, NULL, 0,
     "file to write when a pass fails or crashes: the pipeline, the context and the input module, replayed by "
     "`passage opt --run-reproducer FILE` (\"\": none)",
     "the pass runner (reproducers, every pass call)", false},
    {"testing.local_reproducer", PSG_CONFIG_BOOL, 0, NULL, 0,
     "the reproducer holds only the failing pass and its own input module", "the pass runner (reproducers)", false},
    {"testing.opt_bisect_limit", PSG_CONFIG_INT, -1, NULL, 0,
     "run only the first N pass executions (each module pass once, each function or prim-func pass once per "
     "function) and skip the rest but essential ones, printing a BISECT line for each (-1: no limit, no lines)",
     "the pass runner (every pass call)", false},
    /* Validate-each (issue 20; src/pass/validate_each.c). */
    {"testing.validate_each", PSG_CONFIG_INT, 0, NULL, 0,
     "after every pass that changed the module, run @main before and after it on this many inputs with the "
     "reference interpreter and fail the pass whose outputs differ beyond tolerance (0: off)",
     "the pass runner (validate-each, every pass call)", true},
    {"testing.validate_each.seed", PSG_CONFIG_INT, 0, NULL, 0,
     "seed of validate-each's random inputs (uniform in [-1, 1) for floats, [0, 10) for integers)",
     "the pass runner (validate-each)", false},
    {"testing.validate_each.inputs", PSG_CONFIG_LIST, 0, NULL, 0,
     "validate-each's inputs given as arrays: [\"NAME=FILE.npy\", ...] for parameters of @main (the others "
     "are random)",
     "the pass runner (validate-each)", false},
    {"testing.validate_each.rtol", PSG_CONFIG_FLOAT, 0, NULL, 0,
     "validate-each's float tolerance: |after - before| <= rtol * max(|before|, 0.01) (integers: exact)",
     "the pass runner (validate-each)", true},
    {"testing.validate_each.reassoc_rtol", PSG_CONFIG_FLOAT, 0, NULL, 0,
     "validate-each's float tolerance for passes that may reorder float arithmetic (psg_pass_is_reassociating)",
     "the pass runner (validate-each)", true},
    {"relay.FuseOps.max_depth", PSG_CONFIG_INT, 256, NULL, 0, "maximum number of ops fused into one function",
     "FuseOps", true},
    {"relay.FuseOps.link_params", PSG_CONFIG_BOOL, 0, NULL, 0, "fuse constants into primitive functions", "FuseOps",
     false},
    /* Resource limits (issue 14): what one input may cost. */
    {"relay.interp.max_call_depth", PSG_CONFIG_INT, 1000, NULL, 0,
     "maximum depth of function calls in one evaluation (a deeper call is a located error)",
     "the interpreter (psg_eval)", true},
    {"passage.interp.max_bytes", PSG_CONFIG_INT, (int64_t)4 << 30, NULL, 0,
     "total bytes of tensors the operators of one evaluation may produce (the TIR interpreter: bytes of "
     "Allocate memory live at once)",
     "the interpreter (psg_eval), the TIR interpreter (psg_tir_eval)", true},
    {"passage.interp.max_steps", PSG_CONFIG_INT, (int64_t)1 << 30, NULL, 0,
     "loop iterations (For and While) one TIR evaluation may run (a While that never ends is a located error)",
     "the TIR interpreter (psg_tir_eval)", true},
    {"passage.max_constant_bytes", PSG_CONFIG_INT, (int64_t)256 << 20, NULL, 0,
     "largest constant folding or the ONNX importer may materialize (a larger result stays a call: "
     "a warning from FoldConstant, a lazy call or a located error at import)",
     "FoldConstant, the ONNX importer", true},
    {"relay.fallback_device_type", PSG_CONFIG_INT, 1, NULL, 0, "device type for unannotated expressions", NULL, false},
    {"relay.backend.use_auto_scheduler", PSG_CONFIG_BOOL, 0, NULL, 0, "use the auto-scheduler's layout rewrite",
     NULL, false},
    {"relay.backend.use_meta_schedule", PSG_CONFIG_BOOL, 0, NULL, 0, "use the meta-schedule's layout rewrite", NULL,
     false},
    {"relay.remove_standalone_reshapes.enable", PSG_CONFIG_BOOL, 1, NULL, 0, "remove reshapes that only alias",
     NULL, false},
    {"relay.ToMixedPrecision.keep_orig_output_dtype", PSG_CONFIG_BOOL, 0, NULL, 0,
     "keep the original output dtype in mixed precision", NULL, false},
    {"relay.frontend.fill_span", PSG_CONFIG_BOOL, 1, NULL, 0, "frontends attach source spans to nodes", NULL, false},
    {"passage.lower.use_default_schedule", PSG_CONFIG_BOOL, 1, NULL, 0,
     "schedule each lowered PrimFunc with the default CPU schedule of its anchor op (false: TE's naive loop "
     "nests)",
     "LowerTE", false},
    {"passage.num_threads", PSG_CONFIG_INT, 1, NULL, 0,
     "threads a function or prim-func pass runs its functions on (1: serially; 0: one per processor); output, "
     "diagnostics and instruments are the serial run's",
     "the pass runner (function and prim-func passes)", true},
    {"passage.pass_cache", PSG_CONFIG_STRING, 0, NULL, 0,
     "directory of the per-function pass cache: cacheable function and prim-func passes reuse the results "
     "stored there for functions they saw before (\"\": no cache; passage opt --pass-cache DIR)",
     "the pass runner (function and prim-func passes)", false},
    {"tir.disable_vectorize", PSG_CONFIG_BOOL, 0, NULL, 0, "disable loop vectorization (vectorized loops stay serial)",
     "tir.VectorizeLoop", false},
    {"tir.enable_buffer_level_predication", PSG_CONFIG_BOOL, 0, NULL, 0,
     "predicate the accesses under `if base + i < limit` in a vectorized loop instead of scalarizing (TVM: on "
     "for SVE targets; Passage has no targets, so off unless set)",
     "tir.VectorizeLoop", false},
    {"tir.disable_cse_tir", PSG_CONFIG_BOOL, 0, NULL, 0, "disable common subexpression elimination in TIR",
     "tir.CommonSubexprElimTIR", false},
    {"tir.enable_equiv_terms_in_cse_tir", PSG_CONFIG_BOOL, 0, NULL, 0,
     "common computations that are equal after arithmetic simplification", "tir.CommonSubexprElimTIR", false},
    {"tir.disable_storage_rewrite", PSG_CONFIG_BOOL, 0, NULL, 0, "leave tir.StorageRewrite out of the TIR lowering list",
     "tir.default_pipeline", false},
    {"tir.merge_static_smem", PSG_CONFIG_BOOL, 0, NULL, 0, "tir.StorageRewrite shares no storage", "tir.StorageRewrite",
     false},
    {"tir.noalias", PSG_CONFIG_BOOL, 1, NULL, 0, "assume buffers do not alias", NULL, false},
    {"tir.UnrollLoop", PSG_CONFIG_DICT, 0, unroll_loop_fields, sizeof unroll_loop_fields / sizeof *unroll_loop_fields,
     "loop unrolling limits (UnrollLoopConfig)", "tir.UnrollLoop", false},
    {"tir.RemoveNoOp", PSG_CONFIG_DICT, 0, remove_no_op_fields, sizeof remove_no_op_fields / sizeof *remove_no_op_fields,
     "RemoveNoOpConfig: use_dataflow_analysis (true is unsupported: an error), max_simplification_steps (rewrites "
     "made at most; 0: no limit)",
     "tir.RemoveNoOp", false},
    {"tir.LoopPartition", PSG_CONFIG_DICT, 0, loop_partition_fields,
     sizeof loop_partition_fields / sizeof *loop_partition_fields,
     "loop partitioning switches (LoopPartitionConfig)", "tir.LoopPartition", false},
    {"tir.HoistIfThenElse", PSG_CONFIG_DICT, 0, hoist_if_then_else_fields,
     sizeof hoist_if_then_else_fields / sizeof *hoist_if_then_else_fields,
     "hoist conditions that use the var of an AttrStmt scope too (HoistIfThenElseConfig)", "tir.HoistIfThenElse",
     false},
    {"tir.Simplify", PSG_CONFIG_DICT, 0, simplify_fields, sizeof simplify_fields / sizeof *simplify_fields,
     "arithmetic simplification switches (SimplifyConfig)", "tir.Simplify", false},
};
enum { NUM_BUILTINS = sizeof builtins / sizeof *builtins };
_Static_assert(NUM_BUILTINS <= PSGI_MAX_BUILTIN_OPTIONS, "psgi_pass_state.builtin_defaults is too small");

static const builtin_option *find_builtin(const char *key) {
  if (!key) return NULL;
  /* The first byte rejects most keys without a strcmp call. */
  for (size_t i = 0; i < NUM_BUILTINS; i++)
    if (builtins[i].key[0] == key[0] && strcmp(builtins[i].key, key) == 0) return &builtins[i];
  return NULL;
}

const char *psg_config_option_type_name(int type) {
  switch (type) {
  case PSG_CONFIG_BOOL: return "Bool";
  case PSG_CONFIG_INT: return "Integer";
  case PSG_CONFIG_FLOAT: return "Float";
  case PSG_CONFIG_STRING: return "String";
  case PSG_CONFIG_DICT: return "Dict";
  case PSG_CONFIG_LIST: return "Array";
  default: return "?";
  }
}

/* TVM's list_configs type keys: Bool and Integer options both report
 * "IntImm" (tvm-behavior §2.7). */
const char *psg_config_option_type_key(int type) {
  switch (type) {
  case PSG_CONFIG_BOOL:
  case PSG_CONFIG_INT: return "IntImm";
  case PSG_CONFIG_FLOAT: return "FloatImm";
  case PSG_CONFIG_STRING: return "runtime.String";
  case PSG_CONFIG_DICT: return "Attrs";
  case PSG_CONFIG_LIST: return "Array";
  default: return "?";
  }
}

/* A new Bool or Integer attr (an object the caller releases). */
static psg_status scalar_attr(psg_ctx *ctx, int type, int64_t v, psg_attr **out) {
  return type == PSG_CONFIG_BOOL ? psg_attr_bool(ctx, v != 0, out) : psg_attr_int(ctx, v, out);
}

static psg_status make_default(psg_ctx *ctx, const builtin_option *b, psg_attr **out) {
  if (b->type == PSG_CONFIG_STRING) return psg_attr_string(ctx, "", 0, out); /* String built-ins: "" */
  if (b->type == PSG_CONFIG_FLOAT) return psg_attr_float(ctx, float_default(b->key), out);
  if (b->type == PSG_CONFIG_LIST) return psg_attr_list(ctx, NULL, 0, out); /* List built-ins: [] */
  if (b->type != PSG_CONFIG_DICT) return scalar_attr(ctx, b->type, b->def, out);
  enum { MAX_FIELDS = 8 };
  const char *keys[MAX_FIELDS];
  psg_attr *vals[MAX_FIELDS] = {0};
  psg_attrs *fields = NULL;
  psg_status s = b->num_fields <= MAX_FIELDS ? PSG_OK : PSG_ERR_INTERNAL;
  for (size_t i = 0; !s && i < b->num_fields; i++) {
    keys[i] = b->fields[i].key;
    s = scalar_attr(ctx, b->fields[i].type, b->fields[i].def, &vals[i]);
  }
  if (!s) s = psg_attrs_create(ctx, keys, vals, b->num_fields, &fields);
  if (!s) s = psg_attr_dict(ctx, fields, out);
  for (size_t i = 0; i < b->num_fields; i++) psg_attr_release(vals[i]);
  psg_attrs_release(fields);
  return s;
}

/* The default of built-in option `b` as an attr owned by the context, made
 * on first request (listing and dictionary validation only; reading a
 * built-in default on a pass call uses the table). Caller holds ctx->lock. */
static psg_attr *builtin_default_locked(psg_ctx *ctx, psgi_pass_state *st, const builtin_option *b) {
  psg_attr **slot = &st->builtin_defaults[b - builtins];
  if (*slot) return *slot;
  psg_attr *v = NULL;
  if (make_default(ctx, b, &v) == PSG_OK) psgi_attr_copy_adopted(ctx, v, slot);
  psg_attr_release(v);
  return *slot;
}

/* Copies of a user option's fields, taken under the lock. The strings and
 * the default are never freed or moved before the context dies, so the copy
 * stays valid after unlocking even if another thread registers more options
 * (which may move the vector's array). */
static bool user_option(psg_ctx *ctx, size_t i, psgi_config_option *out) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  bool ok = st && i < st->options.len;
  if (ok) *out = st->options.data[i];
  pthread_mutex_unlock(&ctx->lock);
  return ok;
}

static bool find_user_option(psg_ctx *ctx, const char *key, psgi_config_option *out) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  bool found = false;
  for (size_t i = 0; st && i < st->options.len && !found; i++)
    if (strcmp(st->options.data[i].key, key) == 0) {
      *out = st->options.data[i];
      found = true;
    }
  pthread_mutex_unlock(&ctx->lock);
  return found;
}

/* Registration ------------------------------------------------------------------ */

static psg_status register_locked(psg_ctx *ctx, psgi_pass_state *st, const char *key, int type,
                                  psg_attr *def, const char *help) {
  if (!key || !*key || type < PSG_CONFIG_BOOL || type > PSG_CONFIG_LIST)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a config option needs a key and a valid type");
  if (type == PSG_CONFIG_DICT && (!def || psg_attr_kind(def) != PSG_ATTR_DICT))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "dictionary config option '%s' needs a dictionary of field defaults", key);
  bool dup = find_builtin(key) != NULL;
  for (size_t i = 0; i < st->options.len && !dup; i++) dup = strcmp(st->options.data[i].key, key) == 0;
  if (dup) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' is already registered", key);
  /* The registry keeps a private copy owned by the context, so it neither
   * keeps the context alive nor shares objects with the caller. */
  psg_attr *copy = NULL;
  if (def) {
    psg_status s = psgi_attr_copy_adopted(ctx, def, &copy);
    if (s) return s;
  }
  psgi_config_option o = {psgi_strdup(ctx, key), type, copy, psgi_strdup(ctx, help ? help : "")};
  if (!o.key || !o.help || !PSGI_VEC_PUSH(ctx, &st->options, o)) {
    psgi_free(ctx, o.key);
    psgi_free(ctx, o.help);
    psgi_attr_release_adopted(ctx, copy);
    return psgi_nomem(ctx);
  }
  return PSG_OK;
}

psg_status psg_register_config_option(psg_ctx *ctx, const char *key, int type,
                                      psg_attr *default_value, const char *help) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  psg_status s = st ? register_locked(ctx, st, key, type, default_value, help) : psgi_nomem(ctx);
  pthread_mutex_unlock(&ctx->lock);
  return s;
}

/* Listing: the built-ins in table order, then the registered ones ------------ */

size_t psg_config_option_count(psg_ctx *ctx) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  size_t n = st ? st->options.len : 0;
  pthread_mutex_unlock(&ctx->lock);
  return NUM_BUILTINS + n;
}

const char *psg_config_option_key(psg_ctx *ctx, size_t i) {
  psgi_config_option o;
  if (i < NUM_BUILTINS) return builtins[i].key;
  return user_option(ctx, i - NUM_BUILTINS, &o) ? o.key : NULL;
}

int psg_config_option_type(psg_ctx *ctx, size_t i) {
  psgi_config_option o;
  if (i < NUM_BUILTINS) return builtins[i].type;
  return user_option(ctx, i - NUM_BUILTINS, &o) ? o.type : 0;
}

const char *psg_config_option_help(psg_ctx *ctx, size_t i) {
  psgi_config_option o;
  if (i < NUM_BUILTINS) return builtins[i].help;
  return user_option(ctx, i - NUM_BUILTINS, &o) ? o.help : NULL;
}

bool psg_config_option_is_reserved(psg_ctx *ctx, size_t i) {
  (void)ctx;
  return i < NUM_BUILTINS && !builtins[i].read_by;
}

const char *psg_config_option_read_by(psg_ctx *ctx, size_t i) {
  (void)ctx;
  return i < NUM_BUILTINS ? builtins[i].read_by : NULL;
}

psg_attr *psg_config_option_get_default(psg_ctx *ctx, size_t i) {
  if (i >= NUM_BUILTINS) {
    psgi_config_option o;
    return user_option(ctx, i - NUM_BUILTINS, &o) ? o.default_value : NULL;
  }
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  psg_attr *v = st ? builtin_default_locked(ctx, st, &builtins[i]) : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return v;
}

/* Validation --------------------------------------------------------------- */

/* Does `v` fit an option or field of `type`? Writes the (possibly converted)
 * value to *out as a new reference. Ints 0/1 are accepted for Bool and ints
 * for Float, as TVM accepts boxed runtime values. */
static psg_status coerce(psg_ctx *ctx, int type, psg_attr *v, psg_attr **out) {
  *out = NULL;
  int k = psg_attr_kind(v);
  switch (type) {
  case PSG_CONFIG_BOOL:
    if (k == PSG_ATTR_BOOL) break;
    if (k == PSG_ATTR_INT && (psg_attr_get_int(v) == 0 || psg_attr_get_int(v) == 1))
      return psg_attr_bool(ctx, psg_attr_get_int(v) != 0, out);
    return PSG_ERR_TYPE;
  case PSG_CONFIG_INT:
    if (k == PSG_ATTR_INT) break;
    return PSG_ERR_TYPE;
  case PSG_CONFIG_FLOAT:
    if (k == PSG_ATTR_FLOAT) break;
    if (k == PSG_ATTR_INT) return psg_attr_float(ctx, (double)psg_attr_get_int(v), out);
    return PSG_ERR_TYPE;
  case PSG_CONFIG_STRING:
    if (k == PSG_ATTR_STRING) break;
    return PSG_ERR_TYPE;
  case PSG_CONFIG_LIST:
    if (k == PSG_ATTR_LIST) break;
    return PSG_ERR_TYPE;
  case PSG_CONFIG_DICT:
    if (k == PSG_ATTR_DICT) break;
    return PSG_ERR_TYPE;
  default: return PSG_ERR_TYPE;
  }
  psg_attr_retain(v);
  *out = v;
  return PSG_OK;
}

static int field_type(const psg_attr *def) {
  switch (psg_attr_kind(def)) {
  case PSG_ATTR_BOOL: return PSG_CONFIG_BOOL;
  case PSG_ATTR_INT: return PSG_CONFIG_INT;
  case PSG_ATTR_FLOAT: return PSG_CONFIG_FLOAT;
  case PSG_ATTR_STRING: return PSG_CONFIG_STRING;
  case PSG_ATTR_LIST: return PSG_CONFIG_LIST;
  case PSG_ATTR_DICT: return PSG_CONFIG_DICT;
  default: return 0;
  }
}

/* A dictionary option: every given field must exist with a fitting type; the
 * result lists all fields in the default's order, defaults filled in. */
static psg_status legalize_dict(psg_ctx *ctx, const char *key, psg_attr *def, psg_attr *given,
                                psg_attr **out) {
  *out = NULL;
  psg_attrs *dflt = psg_attr_get_dict(def), *g = psg_attr_get_dict(given);
  size_t n = psg_attrs_count(dflt);
  for (size_t i = 0; i < psg_attrs_count(g); i++) {
    const char *f = psg_attrs_key(g, i);
    if (!psg_attrs_get(dflt, f)) {
      const char **names = psgi_alloc(ctx, (n ? n : 1) * sizeof *names);
      for (size_t j = 0; names && j < n; j++) names[j] = psg_attrs_key(dflt, j);
      const char *near = names ? psgi_closest(f, names, n) : NULL;
      psgi_free(ctx, names);
      return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' does not have field '%s'%s%s%s", key, f,
                          near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
  }
  psg_attr **vals = psgi_calloc(ctx, (n ? n : 1) * sizeof *vals);
  const char **keys = psgi_calloc(ctx, (n ? n : 1) * sizeof *keys);
  psg_status s = vals && keys ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; !s && i < n; i++) {
    keys[i] = psg_attrs_key(dflt, i);
    psg_attr *dv = psg_attrs_get_value(dflt, i), *gv = psg_attrs_get(g, keys[i]);
    if (!gv) {
      psg_attr_retain(dv);
      vals[i] = dv;
    } else if (coerce(ctx, field_type(dv), gv, &vals[i]) != PSG_OK) {
      s = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s': field '%s' expects %s", key, keys[i],
                       psg_config_option_type_name(field_type(dv)));
    }
  }
  psg_attrs *fields = NULL;
  if (!s) s = psg_attrs_create(ctx, keys, vals, n, &fields);
  if (!s) s = psg_attr_dict(ctx, fields, out);
  for (size_t i = 0; vals && i < n; i++) psg_attr_release(vals[i]);
  psgi_free(ctx, vals);
  psgi_free(ctx, keys);
  psg_attrs_release(fields);
  return s;
}

/* The type and default of option `key` (the default for dictionaries only:
 * it lists the fields), or an "invalid config option" error naming the
 * closest key. */
static psg_status lookup_option(psg_ctx *ctx, const char *key, int *type, psg_attr **def) {
  const builtin_option *b = find_builtin(key);
  psgi_config_option o;
  if (!b && find_user_option(ctx, key, &o)) {
    *type = o.type;
    *def = o.default_value;
    return PSG_OK;
  }
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  const char **names = NULL;
  size_t nnames = 0;
  if (b) {
    *type = b->type;
    *def = st && b->type == PSG_CONFIG_DICT ? builtin_default_locked(ctx, st, b) : NULL;
  } else if (st && (names = psgi_alloc(ctx, (NUM_BUILTINS + st->options.len) * sizeof *names)) != NULL) {
    for (size_t i = 0; i < NUM_BUILTINS; i++) names[nnames++] = builtins[i].key;
    for (size_t i = 0; i < st->options.len; i++) names[nnames++] = st->options.data[i].key;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (!st || (b && b->type == PSG_CONFIG_DICT && !*def)) return psgi_nomem(ctx);
  if (b) return PSG_OK;
  const char *near = names ? psgi_closest(key, names, nnames) : NULL;
  psg_status s = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "invalid config option '%s'%s%s%s (`passage configs` lists them)",
                              key, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
  psgi_free(ctx, names);
  return s;
}

psg_status psg_pass_context_set_config(psg_pass_context *pc, const char *key, psg_attr *value) {
  psg_ctx *ctx = pc->ctx;
  if (!key) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config key is NULL");
  int type = 0;
  psg_attr *def = NULL;
  psg_status s = lookup_option(ctx, key, &type, &def);
  if (s) return s;
  if (!value || psg_attr_kind(value) == PSG_ATTR_NONE)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' is None", key);
  psg_attr *legal = NULL;
  s = coerce(ctx, type, value, &legal);
  if (s == PSG_ERR_TYPE)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' expects type %s, got a %s value", key,
                        psg_config_option_type_name(type), psg_config_option_type_name(field_type(value)));
  if (s) return s;
  const builtin_option *b = find_builtin(key);
  if (b && b->non_negative && type == PSG_CONFIG_FLOAT && !(psg_attr_get_float(legal) >= 0)) {
    s = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' is a tolerance, so it must be >= 0, not %g",
                     key, psg_attr_get_float(legal));
    psg_attr_release(legal);
    return s;
  }
  if (b && b->non_negative && type != PSG_CONFIG_FLOAT && psg_attr_get_int(legal) < 0) {
    s = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                     "config option '%s' is a count or size, so it must be >= 0, not %lld", key,
                     (long long)psg_attr_get_int(legal));
    psg_attr_release(legal);
    return s;
  }
  if (type == PSG_CONFIG_DICT) {
    psg_attr *dict = NULL;
    s = legalize_dict(ctx, key, def, legal, &dict);
    psg_attr_release(legal);
    if (s) return s;
    legal = dict;
  }
  psg_attrs *next = NULL;
  s = psg_attrs_with(ctx, pc->config, key, legal, &next);
  psg_attr_release(legal);
  if (s) return s;
  psg_attrs_release(pc->config);
  pc->config = next;
  return PSG_OK;
}

/* `--config KEY=VALUE` as text (the CLI's --config, and C callers with the
 * same text). VALUE is an option value in the pipeline syntax when it starts
 * like one (a digit, sign, '.', '"', '[', '{', or is true/false/None), else
 * the bare word as a string. Every error is located in the assignment as
 * "--config:1:COL": the key's at column 1, the value's where it goes wrong
 * (parse errors) or where it starts (type errors). */
psg_status psg_pass_context_set_config_text(psg_pass_context *pc, const char *assignment) {
  psg_ctx *ctx = pc->ctx;
  if (!assignment) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config assignment is NULL");
  const char *eq = strchr(assignment, '='), *label = "--config";
  size_t len = strlen(assignment), before = psg_ctx_diag_count(ctx);
  if (!eq || eq == assignment) {
    psg_status s = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "--config expects KEY=VALUE, got '%s'", assignment);
    psgi_diag_locate_since(ctx, before, label, 1, eq ? 1 : (int)len + 1, assignment, len);
    return s;
  }
  char *key = psgi_strndup(ctx, assignment, (size_t)(eq - assignment));
  if (!key) return psgi_nomem(ctx);
  const char *text = eq + 1;
  int type = 0, value_col = (int)(text - assignment) + 1;
  psg_attr *def = NULL, *v = NULL;
  psg_status s = lookup_option(ctx, key, &type, &def);
  if (s) {
    psgi_diag_locate_since(ctx, before, label, 1, 1, assignment, len);
    psgi_free(ctx, key);
    return s;
  }
  char c = text[0];
  bool typed = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == '"' || c == '[' || c == '{' ||
               !strcmp(text, "true") || !strcmp(text, "false") || !strcmp(text, "None");
  s = typed ? psgi_parse_value_in(ctx, label, assignment, text, &v) : psg_attr_string(ctx, text, strlen(text), &v);
  if (!s) {
    s = psg_pass_context_set_config(pc, key, v);
    if (s) psgi_diag_locate_since(ctx, before, label, 1, value_col, assignment, len);
  }
  psg_attr_release(v);
  psgi_free(ctx, key);
  return s;
}

psg_attr *psg_pass_context_get_config(const psg_pass_context *pc, const char *key) {
  return psg_attrs_get(pc->config, key);
}

psg_attrs *psg_pass_context_get_config_dict(const psg_pass_context *pc) { return pc->config; }

/* Reading on a pass call: the value set on the context, else a built-in's
 * default straight from the table (no lock: testing.immutable_module is read
 * on every pass call), else a registered option's default (under the lock),
 * else 0 / false. */
int64_t psg_pass_context_config_int(const psg_pass_context *pc, const char *key) {
  psg_attr *v = psg_attrs_get(pc->config, key);
  if (v) return psg_attr_get_int(v);
  const builtin_option *b = find_builtin(key);
  if (b) return b->def;
  psgi_config_option o;
  return find_user_option(pc->ctx, key, &o) && o.default_value ? psg_attr_get_int(o.default_value) : 0;
}

double psg_pass_context_config_float(const psg_pass_context *pc, const char *key) {
  psg_attr *v = psg_attrs_get(pc->config, key);
  if (v) return psg_attr_kind(v) == PSG_ATTR_INT ? (double)psg_attr_get_int(v) : psg_attr_get_float(v);
  const builtin_option *b = find_builtin(key);
  if (b) return b->type == PSG_CONFIG_FLOAT ? float_default(b->key) : (double)b->def;
  psgi_config_option o;
  if (!find_user_option(pc->ctx, key, &o) || !o.default_value) return 0;
  return psg_attr_kind(o.default_value) == PSG_ATTR_INT ? (double)psg_attr_get_int(o.default_value)
                                                        : psg_attr_get_float(o.default_value);
}

bool psg_pass_context_config_bool(const psg_pass_context *pc, const char *key) {
  psg_attr *v = psg_attrs_get(pc->config, key);
  if (v) return psg_attr_get_bool(v);
  const builtin_option *b = find_builtin(key);
  if (b) return b->def != 0;
  psgi_config_option o;
  return find_user_option(pc->ctx, key, &o) && o.default_value ? psg_attr_get_bool(o.default_value) : false;
}
