/* Passage — the registry of passes by name (tvm-behavior §2.3 GetPass): one
 * declaration per pass (psg_pass_decl), from which the pass object, its
 * PassInfo and the listing are made; TVM's "transform." / "relay._transform."
 * aliases. A context holds the built-in table (static, installed when the
 * context is made) and users' registrations (appended, kept until the
 * context dies, searched first so a user can replace a built-in name). */
#include "pass/pass_internal.h"

static size_t count_list(const char *const *l) {
  size_t n = 0;
  while (l && l[n]) n++;
  return n;
}

static const psg_pass_decl *find_locked(const psgi_pass_state *st, const char *name) {
  for (size_t i = st->passes.len; i-- > 0;)
    if (!strcmp(st->passes.data[i].decl->name, name)) return st->passes.data[i].decl;
  for (size_t i = 0; i < st->num_builtin; i++)
    if (!strcmp(st->builtin[i]->name, name)) return st->builtin[i];
  return NULL;
}

const psg_pass_decl *psgi_registry_find(psg_ctx *ctx, const char *name) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  const psg_pass_decl *d = st ? find_locked(st, name) : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return d;
}

psg_status psgi_pass_install_builtins(psg_ctx *ctx, const psg_pass_decl *const *table, size_t n) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  if (st) st->builtin = table, st->num_builtin = n;
  pthread_mutex_unlock(&ctx->lock);
  return st ? PSG_OK : psgi_nomem(ctx);
}

static bool is_builtin(const psgi_pass_state *st, const psg_pass_decl *d) {
  for (size_t i = 0; i < st->num_builtin; i++)
    if (st->builtin[i] == d) return true;
  return false;
}

static psg_status check_decl(psg_ctx *ctx, const psg_pass_decl *d) {
  if (!d || !d->name || !*d->name) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a registered pass needs a name");
  int bodies = !!d->module + !!d->function + !!d->prim_func + !!d->children;
  bool kind_ok = (d->kind == PSG_PASS_MODULE && d->module) || (d->kind == PSG_PASS_FUNCTION && d->function) ||
                 (d->kind == PSG_PASS_PRIM_FUNC && d->prim_func) || (d->kind == PSG_PASS_SEQUENTIAL && d->children);
  if (bodies + !!d->ctor == 0 || bodies > 1 || (bodies && !kind_ok))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "pass '%s' needs exactly one body that fits its kind (a callback, children or a constructor)",
                        d->name);
  return PSG_OK;
}

static psg_status add_entry(psg_ctx *ctx, const psg_pass_decl *d, bool owned) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  psgi_registry_entry e = {d, owned};
  bool ok = st && PSGI_VEC_PUSH(ctx, &st->passes, e);
  pthread_mutex_unlock(&ctx->lock);
  return ok ? PSG_OK : psgi_nomem(ctx);
}

psg_status psg_pass_register_decl(psg_ctx *ctx, const psg_pass_decl *decl) {
  psg_status st = check_decl(ctx, decl);
  return st ? st : add_entry(ctx, decl, false);
}

/* psg_pass_register's declaration: one block owning copies of every string,
 * freed with the context (psgi_registry_free_owned). */
typedef struct owned_decl {
  psg_pass_decl d;
  char **strings; /* every copy, for freeing */
  size_t num_strings;
} owned_decl;

static char *keep(psg_ctx *ctx, owned_decl *o, const char *s) {
  char *c = psgi_strdup(ctx, s);
  if (c) o->strings[o->num_strings++] = c;
  return c;
}

void psgi_registry_free_owned(psg_ctx *ctx, const psg_pass_decl *d) {
  owned_decl *o = (owned_decl *)d;
  for (size_t i = 0; i < o->num_strings; i++) psgi_free(ctx, o->strings[i]);
  psgi_free(ctx, o->strings);
  psgi_free(ctx, (void *)o->d.required);
  psgi_free(ctx, (void *)o->d.options);
  psgi_free(ctx, o);
}

psg_status psg_pass_register(psg_ctx *ctx, const char *name, int kind, int opt_level,
                             const char *const *required, size_t num_required,
                             const char *const *option_names, const char *help, psg_pass_ctor ctor,
                             void *user) {
  if (!name || !*name || !ctor) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a registered pass needs a name and a constructor");
  for (size_t i = 0; i < num_required; i++)
    if (!required || !required[i]) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL name in a pass registration");
  size_t nopt = count_list(option_names);
  owned_decl *o = psgi_calloc(ctx, sizeof *o);
  if (!o) return psgi_nomem(ctx);
  const char **req = psgi_calloc(ctx, (num_required + 1) * sizeof *req);
  psg_pass_option *opts = psgi_calloc(ctx, (nopt + 1) * sizeof *opts);
  o->strings = psgi_calloc(ctx, (2 + num_required + nopt) * sizeof *o->strings);
  o->d.required = req;
  o->d.options = opts;
  bool ok = req && opts && o->strings && keep(ctx, o, name) && keep(ctx, o, help ? help : "");
  if (ok) {
    o->d.name = o->strings[0];
    o->d.help = o->strings[1];
  }
  for (size_t i = 0; ok && i < num_required; i++) ok = (req[i] = keep(ctx, o, required[i])) != NULL;
  for (size_t i = 0; ok && i < nopt; i++) ok = (opts[i].name = keep(ctx, o, option_names[i])) != NULL;
  o->d.kind = kind;
  o->d.opt_level = opt_level;
  o->d.ctor = ctor;
  o->d.user = user;
  psg_status st = ok ? add_entry(ctx, &o->d, true) : psgi_nomem(ctx);
  if (st) psgi_registry_free_owned(ctx, &o->d);
  return st;
}

/* TVM's lookup order, on a registry keyed by the bare name: a name that
 * contains "transform." is the bare name after its last "transform.". */
static const char *bare_name(const char *name) {
  const char *p = name, *hit;
  while ((hit = strstr(p, "transform.")) != NULL) p = hit + strlen("transform.");
  return p;
}

/* Canonical "Name{k=v,...}" of a registered pass with options: the spec
 * recorded on the modules it returns (properties.c). Values print as in the
 * pipeline syntax; the recursion follows option values, whose nesting the
 * pipeline parser caps. Strings print with `"` and `\` escaped, which the
 * parser reads back. */
static void print_value(psgi_buf *b, const psg_attr *v) {
  switch (psg_attr_kind(v)) {
  case PSG_ATTR_NONE: psgi_buf_puts(b, "None"); break;
  case PSG_ATTR_INT: psgi_buf_printf(b, "%lld", (long long)psg_attr_get_int(v)); break;
  case PSG_ATTR_FLOAT: psgi_buf_printf(b, "%.17g", psg_attr_get_float(v)); break;
  case PSG_ATTR_BOOL: psgi_buf_puts(b, psg_attr_get_bool(v) ? "true" : "false"); break;
  case PSG_ATTR_DTYPE:
  case PSG_ATTR_STRING:
    psgi_buf_putc(b, '"');
    for (const char *c = psg_attr_get_string(v); *c; c++) {
      if (*c == '"' || *c == '\\') psgi_buf_putc(b, '\\');
      psgi_buf_putc(b, *c);
    }
    psgi_buf_putc(b, '"');
    break;
  case PSG_ATTR_LIST:
    psgi_buf_putc(b, '[');
    for (size_t i = 0; i < psg_attr_list_len(v); i++) {
      if (i) psgi_buf_putc(b, ',');
      print_value(b, psg_attr_list_get(v, i));
    }
    psgi_buf_putc(b, ']');
    break;
  case PSG_ATTR_DICT: {
    psg_attrs *d = psg_attr_get_dict(v);
    psgi_buf_putc(b, '{');
    for (size_t i = 0; i < psg_attrs_count(d); i++) {
      psgi_buf_printf(b, "%s%s=", i ? "," : "", psg_attrs_key(d, i));
      print_value(b, psg_attrs_get_value(d, i));
    }
    psgi_buf_putc(b, '}');
    break;
  }
  }
}

void psgi_format_value(psgi_buf *b, const psg_attr *v) { print_value(b, v); }

void psgi_format_pass_spec(psgi_buf *b, const char *name, const psg_attrs *options) {
  psgi_buf_puts(b, name);
  if (!psg_attrs_count(options)) return;
  psgi_buf_putc(b, '{');
  for (size_t i = 0; i < psg_attrs_count(options); i++) {
    psgi_buf_printf(b, "%s%s=", i ? "," : "", psg_attrs_key(options, i));
    print_value(b, psg_attrs_get_value(options, i));
  }
  psgi_buf_putc(b, '}');
}

static const char *make_spec(psg_ctx *ctx, const char *name, const psg_attrs *options) {
  if (!psg_attrs_count(options)) return psgi_intern(ctx, name, strlen(name));
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  psgi_format_pass_spec(&b, name, options);
  const char *spec = b.failed ? NULL : psgi_intern(ctx, b.data, b.len);
  psgi_buf_fini(&b);
  return spec;
}

static const char *kind_name(int kind) {
  switch (kind) {
  case PSG_ATTR_NONE: return "None";
  case PSG_ATTR_INT: return "Integer";
  case PSG_ATTR_FLOAT: return "Float";
  case PSG_ATTR_BOOL: return "Bool";
  case PSG_ATTR_DTYPE:
  case PSG_ATTR_STRING: return "String";
  case PSG_ATTR_LIST: return "Array";
  case PSG_ATTR_DICT: return "Dict";
  }
  return "?";
}

static const char *attr_kind_name(const psg_attr *v) { return kind_name(psg_attr_kind(v)); }

static bool value_fits(int type, const psg_attr *v) {
  int k = psg_attr_kind(v);
  switch (type) {
  case 0: return true;
  case PSG_CONFIG_BOOL: return k == PSG_ATTR_BOOL;
  case PSG_CONFIG_INT: return k == PSG_ATTR_INT;
  case PSG_CONFIG_FLOAT: return k == PSG_ATTR_FLOAT || k == PSG_ATTR_INT;
  case PSG_CONFIG_STRING: return k == PSG_ATTR_STRING || k == PSG_ATTR_DTYPE;
  case PSG_CONFIG_LIST: return k == PSG_ATTR_LIST;
  case PSG_CONFIG_DICT: return k == PSG_ATTR_DICT;
  }
  return false;
}

static size_t count_options(const psg_pass_decl *d) {
  size_t n = 0;
  while (d->options && d->options[n].name) n++;
  return n;
}

/* A list option's items must be of the one kind its default's items are
 * (["main"]: String), so RemoveUnusedFunctions{entry_functions=[1]} is
 * refused here, at the option, rather than when the pass runs. A default
 * that is absent, empty or mixed lets any items through; one that does not
 * parse is the error building the pass would report anyway. */
static psg_status check_list_items(psg_ctx *ctx, const psg_pass_decl *d, const psg_pass_option *o,
                                   const psg_attr *v) {
  psg_attr *def = NULL;
  if (!o->default_value) return PSG_OK;
  psg_status st = psg_pipeline_parse_value(ctx, o->default_value, &def);
  if (st) return st;
  int kind = psg_attr_list_len(def) ? psg_attr_kind(psg_attr_list_get(def, 0)) : -1;
  for (size_t i = 1; kind >= 0 && i < psg_attr_list_len(def); i++)
    if (psg_attr_kind(psg_attr_list_get(def, i)) != kind) kind = -1;
  psg_attr_release(def);
  for (size_t i = 0; kind >= 0 && i < psg_attr_list_len(v); i++) {
    const char *got = attr_kind_name(psg_attr_list_get(v, i));
    if (psg_attr_kind(psg_attr_list_get(v, i)) != kind)
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                           "option '%s' of pass '%s' expects an Array of %s, got a%s %s item", o->name, d->name,
                           kind_name(kind), strchr("AEIOU", got[0]) ? "n" : "", got);
  }
  return PSG_OK;
}

/* Every option given must be declared and of its declared type; *bad is the
 * index of the first one that is not. */
static psg_status check_options(psg_ctx *ctx, const psg_pass_decl *d, const psg_attrs *options, size_t *bad) {
  size_t nopt = count_options(d);
  for (size_t i = 0; i < psg_attrs_count(options); i++) {
    *bad = i;
    const char *k = psg_attrs_key(options, i);
    const psg_attr *v = psg_attrs_get_value(options, i);
    size_t j = 0;
    while (j < nopt && strcmp(d->options[j].name, k)) j++;
    if (j == nopt) {
      const char **names = psgi_alloc(ctx, (nopt + 1) * sizeof *names);
      for (size_t m = 0; names && m < nopt; m++) names[m] = d->options[m].name;
      const char *hint = names ? psgi_closest(k, names, nopt) : NULL;
      psgi_free(ctx, names);
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                           "pass '%s' has no option '%s'%s%s%s", d->name, k, hint ? "; did you mean '" : "",
                           hint ? hint : "", hint ? "'?" : "");
    }
    if (!value_fits(d->options[j].type, v)) {
      const char *got = attr_kind_name(v);
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                           "option '%s' of pass '%s' expects %s, got a%s %s value", k, d->name,
                           psg_config_option_type_name(d->options[j].type), strchr("AEIOU", got[0]) ? "n" : "",
                           got);
    }
    if (d->options[j].type == PSG_CONFIG_LIST) {
      psg_status st = check_list_items(ctx, d, &d->options[j], v);
      if (st) return st;
    }
  }
  return PSG_OK;
}

/* The options a declared body sees: those given, then every declared
 * default for the rest (NULL when the pass declares no options). */
static psg_status effective_options(psg_ctx *ctx, const psg_pass_decl *d, psg_attrs *given, psg_attrs **out) {
  *out = NULL;
  size_t nopt = count_options(d);
  if (!nopt) return PSG_OK;
  const char **keys = psgi_calloc(ctx, nopt * sizeof *keys);
  psg_attr **vals = psgi_calloc(ctx, nopt * sizeof *vals);
  psg_status st = keys && vals ? PSG_OK : psgi_nomem(ctx);
  size_t n = 0;
  for (size_t i = 0; !st && i < nopt; i++) {
    const psg_pass_option *o = &d->options[i];
    psg_attr *v = psg_attrs_get(given, o->name);
    if (v)
      psg_attr_retain(v);
    else if (o->default_value && (st = psg_pipeline_parse_value(ctx, o->default_value, &v)) != PSG_OK)
      break;
    if (v) keys[n] = o->name, vals[n++] = v;
  }
  if (!st) st = psg_attrs_create(ctx, keys, vals, n, out);
  for (size_t i = 0; vals && i < n; i++) psg_attr_release(vals[i]);
  psgi_free(ctx, keys);
  psgi_free(ctx, vals);
  return st;
}

static void release_attrs(void *user) { psg_attrs_release(user); }

psg_status psgi_pass_build(psg_ctx *ctx, const psg_pass_decl *d, void *user, void (*free_user)(void *),
                           psg_pass **out) {
  *out = NULL;
  psg_pass_info *info = NULL;
  psg_status st = psg_pass_info_create(ctx, d->name, d->opt_level, d->required, count_list(d->required), &info);
  if (st) return st;
  if (d->kind == PSG_PASS_SEQUENTIAL) {
    size_t n = count_list(d->children);
    psg_pass **kids = psgi_calloc(ctx, (n ? n : 1) * sizeof *kids);
    st = kids ? PSG_OK : psgi_nomem(ctx);
    for (size_t i = 0; !st && i < n; i++) st = psg_pipeline_parse(ctx, d->children[i], &kids[i]);
    if (!st) st = psg_sequential(ctx, kids, n, info, out);
    for (size_t i = 0; kids && i < n; i++) psg_pass_release(kids[i]);
    psgi_free(ctx, kids);
  } else if (d->kind == PSG_PASS_MODULE) {
    st = psg_create_module_pass(ctx, info, d->module, user, free_user, out);
  } else if (d->kind == PSG_PASS_FUNCTION) {
    st = psg_create_function_pass(ctx, info, d->function, user, free_user, out);
  } else {
    st = psg_create_prim_func_pass(ctx, info, d->prim_func, user, free_user, out);
  }
  psg_pass_info_release(info);
  return st;
}

/* The pass object of a declaration without a constructor: the body sees the
 * effective options. */
static psg_status build(psg_ctx *ctx, const psg_pass_decl *d, psg_attrs *options, psg_pass **out) {
  psg_attrs *eff = NULL;
  psg_status st = d->kind == PSG_PASS_SEQUENTIAL ? PSG_OK : effective_options(ctx, d, options, &eff);
  if (!st) st = psgi_pass_build(ctx, d, eff, eff ? release_attrs : NULL, out);
  if (st) psg_attrs_release(eff); /* not owned by a pass that was not made */
  return st;
}

psg_status psg_pass_get(psg_ctx *ctx, const char *name, psg_attrs *options, psg_pass **out) {
  size_t bad;
  return psgi_pass_get_checked(ctx, name, options, &bad, out);
}

psg_status psgi_pass_get_checked(psg_ctx *ctx, const char *name, psg_attrs *options, size_t *bad_option,
                                 psg_pass **out) {
  *out = NULL;
  *bad_option = SIZE_MAX;
  if (!name) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_pass_get needs a name");
  const char *bare = bare_name(name);
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  const psg_pass_decl *d = st ? find_locked(st, bare) : NULL;
  bool builtin = d && is_builtin(st, d);
  const char *near = NULL;
  if (st && !d) {
    size_t total = st->num_builtin + st->passes.len;
    const char **names = psgi_alloc(ctx, (total + 1) * sizeof *names);
    for (size_t i = 0; names && i < st->num_builtin; i++) names[i] = st->builtin[i]->name;
    for (size_t i = 0; names && i < st->passes.len; i++) names[st->num_builtin + i] = st->passes.data[i].decl->name;
    near = names ? psgi_closest(bare, names, total) : NULL;
    psgi_free(ctx, names);
  }
  pthread_mutex_unlock(&ctx->lock);
  if (!st) return psgi_nomem(ctx);
  if (!d)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_NOT_FOUND, NULL, 0, 0, NULL, 0, NULL,
                         "cannot use %s to create the pass: no pass of that name is registered%s%s%s", name,
                         near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
  psg_status s = check_options(ctx, d, options, bad_option);
  if (s) return s;
  *bad_option = SIZE_MAX;
  psg_pass *p = NULL;
  s = d->ctor ? d->ctor(ctx, options, d->user, &p) : build(ctx, d, options, &p);
  if (s) {
    psg_pass_release(p);
    return s;
  }
  if (!p) return psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "the constructor of pass '%s' made nothing", bare);
  p->registry_name = psgi_intern(ctx, bare, strlen(bare));
  p->spec = make_spec(ctx, bare, options);
  p->trusted = builtin;
  p->cacheable = p->cacheable || d->cacheable;
  /* A built-in Sequential's children that it made itself (not taken from
   * the registry) are built-in code too. */
  for (size_t i = 0; builtin && i < p->num_children; i++)
    if (!p->children[i]->registry_name) p->children[i]->trusted = true;
  if (psg_attrs_count(options)) {
    psg_attrs_retain(options);
    psg_attrs_release(p->options);
    p->options = options;
  }
  /* Properties from the declaration; the pass named as a property's
   * establisher establishes it, whoever registered it. */
  p->needs |= d->needs;
  p->keeps |= d->keeps;
  p->establishes |= d->establishes | psgi_properties_established_by(bare);
  p->reassociates = (d->flags & PSG_PASS_FLAG_REASSOCIATES) != 0;
  for (int b = 0; b < PSGI_NUM_PROPS; b++)
    if (p->establishes & (1u << b)) {
      psg_pass_release(p->ensure[b]);
      p->ensure[b] = NULL;
    }
  if ((s = psgi_pass_resolve_ensure(p)) != PSG_OK || !p->spec) {
    psg_pass_release(p);
    return s ? s : psgi_nomem(ctx);
  }
  *out = p;
  return PSG_OK;
}

/* The listing: built-ins in table order (each replaced by the latest user
 * registration of its name), then names only users registered, in order of
 * first registration. Declarations are never freed before the context, so
 * what this returns stays valid after the lock is released. */
static const psg_pass_decl *listed_locked(const psgi_pass_state *st, size_t i, size_t *count) {
  size_t n = 0;
  const psg_pass_decl *hit = NULL;
  for (size_t b = 0; b < st->num_builtin; b++, n++)
    if (n == i) hit = find_locked(st, st->builtin[b]->name);
  for (size_t u = 0; u < st->passes.len; u++) {
    const char *name = st->passes.data[u].decl->name;
    bool seen = false;
    for (size_t b = 0; !seen && b < st->num_builtin; b++) seen = !strcmp(st->builtin[b]->name, name);
    for (size_t v = 0; !seen && v < u; v++) seen = !strcmp(st->passes.data[v].decl->name, name);
    if (seen) continue;
    if (n++ == i) hit = find_locked(st, name);
  }
  if (count) *count = n;
  return hit;
}

static const psg_pass_decl *entry_at(psg_ctx *ctx, size_t i) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  const psg_pass_decl *d = st ? listed_locked(st, i, NULL) : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return d;
}

size_t psg_pass_registry_count(psg_ctx *ctx) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  size_t n = 0;
  if (st) listed_locked(st, SIZE_MAX, &n);
  pthread_mutex_unlock(&ctx->lock);
  return n;
}
const char *psg_pass_registry_name(psg_ctx *ctx, size_t i) {
  const psg_pass_decl *d = entry_at(ctx, i);
  return d ? d->name : NULL;
}
int psg_pass_registry_kind(psg_ctx *ctx, size_t i) {
  const psg_pass_decl *d = entry_at(ctx, i);
  return d ? d->kind : 0;
}
int psg_pass_registry_opt_level(psg_ctx *ctx, size_t i) {
  const psg_pass_decl *d = entry_at(ctx, i);
  return d ? d->opt_level : 0;
}
const char *psg_pass_registry_help(psg_ctx *ctx, size_t i) {
  const psg_pass_decl *d = entry_at(ctx, i);
  return d ? (d->help ? d->help : "") : NULL;
}
size_t psg_pass_registry_num_required(psg_ctx *ctx, size_t i) {
  const psg_pass_decl *d = entry_at(ctx, i);
  return d ? count_list(d->required) : 0;
}
const char *psg_pass_registry_required(psg_ctx *ctx, size_t i, size_t j) {
  const psg_pass_decl *d = entry_at(ctx, i);
  return d && j < count_list(d->required) ? d->required[j] : NULL;
}
const psg_pass_decl *psg_pass_registry_decl(psg_ctx *ctx, size_t i) { return entry_at(ctx, i); }

/* PrintIR ------------------------------------------------------------------ */

/* PrintIR from the registry has no sink of its own: the text becomes a note
 * diagnostic, which the CLI prints to stderr (TVM logs it at INFO level). */
static void print_ir_to_note(void *user, const char *text, size_t len) {
  psg_ctx *ctx = user;
  psgi_diag_add(ctx, PSG_SEVERITY_NOTE, PSG_OK, NULL, 0, 0, NULL, 0, "PrintIR", "%.*s", (int)len, text);
}

static psg_status make_print_ir(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)user;
  psg_attr *h = psg_attrs_get(options, "header"), *m = psg_attrs_get(options, "show_meta_data");
  const char *header = h ? psg_attr_get_string(h) : "";
  return psg_print_ir_pass_create(ctx, header, m && psg_attr_get_bool(m), print_ir_to_note, ctx, out);
}

static const psg_pass_option print_ir_options[] = {
    {"header", PSG_CONFIG_STRING, NULL}, {"show_meta_data", PSG_CONFIG_BOOL, NULL}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_print_ir = {
    .name = "PrintIR",
    .kind = PSG_PASS_MODULE,
    .options = print_ir_options,
    .help = "print the module as text (to the diagnostics, as a note)",
    .ctor = make_print_ir,
};
