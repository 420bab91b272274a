/* Passage — the registry of passes by name (tvm-behavior §2.3 GetPass):
 * constructors with options, opt level, required list and help, kept per
 * library context; TVM's "transform." / "relay._transform." aliases. */
#include "pass/pass_internal.h"

static psgi_registry_entry *find_locked(psgi_pass_state *st, const char *name) {
  for (size_t i = 0; i < st->passes.len; i++)
    if (strcmp(st->passes.data[i].name, name) == 0) return &st->passes.data[i];
  return NULL;
}

/* Registry access makes sure the built-in passes are there. */
static psgi_pass_state *registry(psg_ctx *ctx) {
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  if (st && !st->builtins_registered) {
    st->builtins_registered = true;
    st->registering_builtins = true;
    psg_status s = psgi_register_builtin_passes(ctx);
    st->registering_builtins = false;
    if (s != PSG_OK) return NULL;
  }
  return st;
}

static psg_status copy_names(psg_ctx *ctx, psgi_str_vec *v, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *c = names[i] ? psgi_strdup(ctx, names[i]) : NULL;
    if (!c || !PSGI_VEC_PUSH(ctx, v, c)) {
      psgi_free(ctx, c);
      return names[i] ? psgi_nomem(ctx) : psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL name in a pass registration");
    }
  }
  return PSG_OK;
}

psg_status psg_pass_register(psg_ctx *ctx, const char *name, int kind, int opt_level,
                             const char *const *required, size_t num_required,
                             const char *const *option_names, const char *help, psg_pass_ctor ctor,
                             void *user) {
  if (!name || !*name || !ctor) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "a registered pass needs a name and a constructor");
  psgi_registry_entry e = {0};
  e.name = psgi_strdup(ctx, name);
  e.help = psgi_strdup(ctx, help ? help : "");
  e.kind = kind;
  e.opt_level = opt_level;
  e.ctor = ctor;
  e.user = user;
  size_t nopt = 0;
  while (option_names && option_names[nopt]) nopt++;
  psg_status st = e.name && e.help ? PSG_OK : psgi_nomem(ctx);
  if (!st) st = copy_names(ctx, &e.required, required, num_required);
  if (!st) st = copy_names(ctx, &e.option_names, option_names, nopt);
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *s = st ? NULL : registry(ctx);
  if (!st && !s) st = psgi_nomem(ctx);
  if (!st) {
    e.builtin = s->registering_builtins;
    psgi_registry_entry *old = find_locked(s, name);
    if (old) {
      psgi_registry_entry tmp = *old;
      *old = e;
      e = tmp; /* the old entry is freed below */
    } else if (PSGI_VEC_PUSH(ctx, &s->passes, e)) {
      memset(&e, 0, sizeof e);
    } else {
      st = psgi_nomem(ctx);
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  psgi_free(ctx, e.name);
  psgi_free(ctx, e.help);
  psgi_str_vec_free(ctx, &e.required);
  psgi_str_vec_free(ctx, &e.option_names);
  return st;
}

bool psgi_registry_has(psg_ctx *ctx, const char *name) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = registry(ctx);
  bool has = st && find_locked(st, name);
  pthread_mutex_unlock(&ctx->lock);
  return has;
}

/* TVM's lookup order, on a registry keyed by the bare name: a name that
 * contains "transform." is the bare name after its last "transform.". */
static const char *bare_name(const char *name) {
  const char *p = name, *hit;
  while ((hit = strstr(p, "transform.")) != NULL) p = hit + strlen("transform.");
  return p;
}

/* Canonical "Name{k=v,...}" of a registered pass with options, for the
 * satisfied-by table. Values print as in the pipeline syntax; the recursion
 * follows option values, whose nesting the pipeline parser caps. Strings
 * print with `"` and `\` escaped, which the parser reads back. */
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

psg_status psg_pass_get(psg_ctx *ctx, const char *name, psg_attrs *options, psg_pass **out) {
  *out = NULL;
  if (!name) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_pass_get needs a name");
  const char *bare = bare_name(name);
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = registry(ctx);
  psgi_registry_entry *e = st ? find_locked(st, bare) : NULL;
  psgi_registry_entry copy = e ? *e : (psgi_registry_entry){0};
  const char *near = NULL;
  if (st && !e) {
    const char **names = psgi_alloc(ctx, (st->passes.len + 1) * sizeof *names);
    for (size_t i = 0; names && i < st->passes.len; i++) names[i] = st->passes.data[i].name;
    near = names ? psgi_closest(bare, names, st->passes.len) : NULL;
    psgi_free(ctx, names);
  }
  pthread_mutex_unlock(&ctx->lock);
  if (!st) return psgi_nomem(ctx);
  if (!e)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_NOT_FOUND, NULL, 0, 0, NULL, 0, NULL,
                         "cannot use %s to create the pass: no pass of that name is registered%s%s%s", name,
                         near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
  for (size_t i = 0; i < psg_attrs_count(options); i++) {
    const char *k = psg_attrs_key(options, i);
    if (!psgi_str_vec_has(&copy.option_names, k)) {
      const char *hint = psgi_closest(k, (const char *const *)copy.option_names.data, copy.option_names.len);
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                           "pass '%s' has no option '%s'%s%s%s", bare, k, hint ? "; did you mean '" : "",
                           hint ? hint : "", hint ? "'?" : "");
    }
  }
  psg_pass *p = NULL;
  psg_status s = copy.ctor(ctx, options, copy.user, &p);
  if (s) {
    psg_pass_release(p);
    return s;
  }
  if (!p) return psg_ctx_fail(ctx, PSG_ERR_INTERNAL, "the constructor of pass '%s' made nothing", bare);
  p->registry_name = psgi_intern(ctx, bare, strlen(bare));
  p->spec = make_spec(ctx, bare, options);
  p->trusted = copy.builtin;
  /* A built-in Sequential's children that its constructor made itself (not
   * taken from the registry, e.g. FoldScaleAxis's two halves) are built-in
   * code too. */
  for (size_t i = 0; copy.builtin && i < p->num_children; i++)
    if (!p->children[i]->registry_name) p->children[i]->trusted = true;
  if (psg_attrs_count(options)) {
    psg_attrs_retain(options);
    psg_attrs_release(p->options);
    p->options = options;
  }
  *out = p;
  return PSG_OK;
}

static psgi_registry_entry *entry_at(psg_ctx *ctx, size_t i) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = registry(ctx);
  psgi_registry_entry *e = st && i < st->passes.len ? &st->passes.data[i] : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return e;
}

size_t psg_pass_registry_count(psg_ctx *ctx) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = registry(ctx);
  size_t n = st ? st->passes.len : 0;
  pthread_mutex_unlock(&ctx->lock);
  return n;
}
const char *psg_pass_registry_name(psg_ctx *ctx, size_t i) {
  psgi_registry_entry *e = entry_at(ctx, i);
  return e ? e->name : NULL;
}
int psg_pass_registry_kind(psg_ctx *ctx, size_t i) {
  psgi_registry_entry *e = entry_at(ctx, i);
  return e ? e->kind : 0;
}
int psg_pass_registry_opt_level(psg_ctx *ctx, size_t i) {
  psgi_registry_entry *e = entry_at(ctx, i);
  return e ? e->opt_level : 0;
}
const char *psg_pass_registry_help(psg_ctx *ctx, size_t i) {
  psgi_registry_entry *e = entry_at(ctx, i);
  return e ? e->help : NULL;
}
size_t psg_pass_registry_num_required(psg_ctx *ctx, size_t i) {
  psgi_registry_entry *e = entry_at(ctx, i);
  return e ? e->required.len : 0;
}
const char *psg_pass_registry_required(psg_ctx *ctx, size_t i, size_t j) {
  psgi_registry_entry *e = entry_at(ctx, i);
  return e && j < e->required.len ? e->required.data[j] : NULL;
}

/* Built-in passes --------------------------------------------------------- */

/* PrintIR from the registry has no sink of its own: the text becomes a note
 * diagnostic, which the CLI prints to stderr (TVM logs it at INFO level). */
static void print_ir_to_note(void *user, const char *text, size_t len) {
  psg_ctx *ctx = user;
  psgi_diag_add(ctx, PSG_SEVERITY_NOTE, PSG_OK, NULL, 0, 0, NULL, 0, "PrintIR", "%.*s", (int)len, text);
}

static psg_status make_print_ir(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)user;
  psg_attr *h = psg_attrs_get(options, "header"), *m = psg_attrs_get(options, "show_meta_data");
  const char *header = h && psg_attr_kind(h) == PSG_ATTR_STRING ? psg_attr_get_string(h) : "";
  return psg_print_ir_pass_create(ctx, header, m && psg_attr_get_bool(m), print_ir_to_note, ctx, out);
}

/* The standard passes (src/transforms) register themselves through this one
 * upward reference (docs/design.md: strong, so static links include them). */
psg_status psgi_register_standard_passes(psg_ctx *ctx);

psg_status psgi_register_builtin_passes(psg_ctx *ctx) {
  static const char *const print_ir_options[] = {"header", "show_meta_data", NULL};
  psg_status st = psg_pass_register(ctx, "PrintIR", PSG_PASS_MODULE, 0, NULL, 0, print_ir_options,
                                    "print the module as text (to the diagnostics, as a note)", make_print_ir, NULL);
  if (!st) st = psgi_register_standard_passes(ctx);
  if (!st) st = psgi_register_opt_levels(ctx);
  return st;
}
