/* Passage — typed pass config options (tvm-behavior §2.7): a registry of
 * keys with type, default and help, and validation when a value is set on a
 * PassContext: unknown keys name the closest registered key, wrong types name
 * the expected one, dictionary options are checked field by field and
 * completed with their defaults. */
#include "pass/pass_internal.h"

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

static psg_status register_locked(psg_ctx *ctx, psgi_pass_state *st, const char *key, int type,
                                  psg_attr *def, const char *help) {
  if (!key || !*key || type < PSG_CONFIG_BOOL || type > PSG_CONFIG_LIST)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a config option needs a key and a valid type");
  if (type == PSG_CONFIG_DICT && (!def || psg_attr_kind(def) != PSG_ATTR_DICT))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "dictionary config option '%s' needs a dictionary of field defaults", key);
  for (size_t i = 0; i < st->options.len; i++)
    if (strcmp(st->options.data[i].key, key) == 0)
      return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' is already registered", key);
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

/* Built-in options ------------------------------------------------------ */

static psg_status add_simple(psg_ctx *ctx, psgi_pass_state *st, const char *key, int type,
                             int64_t def, const char *help) {
  psg_attr *v = NULL;
  psg_status s = type == PSG_CONFIG_BOOL ? psg_attr_bool(ctx, def != 0, &v) : psg_attr_int(ctx, def, &v);
  if (!s) s = register_locked(ctx, st, key, type, v, help);
  psg_attr_release(v);
  return s;
}

static psg_status add_unroll_loop(psg_ctx *ctx, psgi_pass_state *st) {
  /* tir.UnrollLoop's UnrollLoopConfig with TVM's defaults. */
  const char *keys[5] = {"auto_max_step", "auto_max_depth", "auto_max_extent", "explicit_unroll",
                         "unroll_local_access"};
  psg_attr *v[5] = {0}, *dict = NULL;
  psg_attrs *fields = NULL;
  psg_status s = psg_attr_int(ctx, 0, &v[0]);
  if (!s) s = psg_attr_int(ctx, 8, &v[1]);
  if (!s) s = psg_attr_int(ctx, 0, &v[2]);
  if (!s) s = psg_attr_bool(ctx, true, &v[3]);
  if (!s) s = psg_attr_bool(ctx, false, &v[4]);
  if (!s) s = psg_attrs_create(ctx, keys, v, 5, &fields);
  if (!s) s = psg_attr_dict(ctx, fields, &dict);
  if (!s)
    s = register_locked(ctx, st, "tir.UnrollLoop", PSG_CONFIG_DICT, dict,
                        "loop unrolling limits (UnrollLoopConfig)");
  for (int i = 0; i < 5; i++) psg_attr_release(v[i]);
  psg_attrs_release(fields);
  psg_attr_release(dict);
  return s;
}

psg_status psgi_register_builtin_options(psg_ctx *ctx, psgi_pass_state *st) {
  static const struct {
    const char *key;
    int type;
    int64_t def;
    const char *help;
  } simple[] = {
      {"testing.immutable_module", PSG_CONFIG_BOOL, 0,
       "fail a pass that changes its input module (checked by structural hash)"},
      {"relay.FuseOps.max_depth", PSG_CONFIG_INT, 256, "maximum number of ops fused into one function"},
      {"relay.FuseOps.link_params", PSG_CONFIG_BOOL, 0, "fuse constants into primitive functions"},
      {"relay.fallback_device_type", PSG_CONFIG_INT, 1, "device type for unannotated expressions"},
      {"relay.backend.use_auto_scheduler", PSG_CONFIG_BOOL, 0, "use the auto-scheduler's layout rewrite"},
      {"relay.backend.use_meta_schedule", PSG_CONFIG_BOOL, 0, "use the meta-schedule's layout rewrite"},
      {"relay.remove_standalone_reshapes.enable", PSG_CONFIG_BOOL, 1, "remove reshapes that only alias"},
      {"relay.ToMixedPrecision.keep_orig_output_dtype", PSG_CONFIG_BOOL, 0,
       "keep the original output dtype in mixed precision"},
      {"relay.frontend.fill_span", PSG_CONFIG_BOOL, 1, "frontends attach source spans to nodes"},
      {"tir.disable_vectorize", PSG_CONFIG_BOOL, 0, "disable loop vectorization"},
      {"tir.noalias", PSG_CONFIG_BOOL, 1, "assume buffers do not alias"},
  };
  psg_status s = PSG_OK;
  for (size_t i = 0; !s && i < sizeof simple / sizeof *simple; i++)
    s = add_simple(ctx, st, simple[i].key, simple[i].type, simple[i].def, simple[i].help);
  if (!s) s = add_unroll_loop(ctx, st);
  return s;
}

/* Listing ---------------------------------------------------------------- */

static psgi_config_option *option_at(psg_ctx *ctx, size_t i) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  psgi_config_option *o = st && i < st->options.len ? &st->options.data[i] : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return o;
}

size_t psg_config_option_count(psg_ctx *ctx) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  size_t n = st ? st->options.len : 0;
  pthread_mutex_unlock(&ctx->lock);
  return n;
}
const char *psg_config_option_key(psg_ctx *ctx, size_t i) {
  psgi_config_option *o = option_at(ctx, i);
  return o ? o->key : NULL;
}
int psg_config_option_type(psg_ctx *ctx, size_t i) {
  psgi_config_option *o = option_at(ctx, i);
  return o ? o->type : 0;
}
const char *psg_config_option_help(psg_ctx *ctx, size_t i) {
  psgi_config_option *o = option_at(ctx, i);
  return o ? o->help : NULL;
}
psg_attr *psg_config_option_get_default(psg_ctx *ctx, size_t i) {
  psgi_config_option *o = option_at(ctx, i);
  return o ? o->default_value : NULL;
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

psg_status psg_pass_context_set_config(psg_pass_context *pc, const char *key, psg_attr *value) {
  psg_ctx *ctx = pc->ctx;
  if (!key) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config key is NULL");
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  psgi_config_option *opt = NULL;
  const char **names = NULL;
  if (st) {
    for (size_t i = 0; i < st->options.len; i++)
      if (strcmp(st->options.data[i].key, key) == 0) opt = &st->options.data[i];
    if (!opt && (names = psgi_alloc(ctx, (st->options.len + 1) * sizeof *names)) != NULL)
      for (size_t i = 0; i < st->options.len; i++) names[i] = st->options.data[i].key;
  }
  size_t nnames = st ? st->options.len : 0;
  pthread_mutex_unlock(&ctx->lock);
  if (!st) return psgi_nomem(ctx);
  if (!opt) {
    const char *near = names ? psgi_closest(key, names, nnames) : NULL;
    psg_status s = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "invalid config option '%s'%s%s%s (`passage configs` lists them)",
                                key, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    psgi_free(ctx, names);
    return s;
  }
  if (!value || psg_attr_kind(value) == PSG_ATTR_NONE)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' is None", key);
  psg_attr *legal = NULL;
  psg_status s = coerce(ctx, opt->type, value, &legal);
  if (s == PSG_ERR_TYPE)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "config option '%s' expects type %s, got a %s value", key,
                        psg_config_option_type_name(opt->type), psg_config_option_type_name(field_type(value)));
  if (s) return s;
  if (opt->type == PSG_CONFIG_DICT) {
    psg_attr *dict = NULL;
    s = legalize_dict(ctx, key, opt->default_value, legal, &dict);
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

psg_attr *psg_pass_context_get_config(const psg_pass_context *pc, const char *key) {
  return psg_attrs_get(pc->config, key);
}

psg_attrs *psg_pass_context_get_config_dict(const psg_pass_context *pc) { return pc->config; }

/* The value set, else the option's registered default, else NULL. */
static psg_attr *config_or_default(const psg_pass_context *pc, const char *key) {
  psg_attr *v = psg_attrs_get(pc->config, key);
  if (v) return v;
  psg_ctx *ctx = pc->ctx;
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  for (size_t i = 0; st && i < st->options.len && !v; i++)
    if (strcmp(st->options.data[i].key, key) == 0) v = st->options.data[i].default_value;
  pthread_mutex_unlock(&ctx->lock);
  return v;
}

int64_t psg_pass_context_config_int(const psg_pass_context *pc, const char *key) {
  psg_attr *v = config_or_default(pc, key);
  return v ? psg_attr_get_int(v) : 0;
}

bool psg_pass_context_config_bool(const psg_pass_context *pc, const char *key) {
  psg_attr *v = config_or_default(pc, key);
  return v ? psg_attr_get_bool(v) : false;
}
