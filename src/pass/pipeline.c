/* Passage — pipelines as text (pass.h): "sequential(InferType,FoldConstant,
 * FuseOps{fuse_opt_level=2})", parsed into passes from the registry and
 * printed back so that parse(print(p)) is the same pipeline. Nesting is
 * recursive, capped at MAX_NESTING levels. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "pass/pass_internal.h"

enum { MAX_NESTING = 64 };

/* `label` names the text in locations: "<pipeline>", or "--config" for the
 * value of a config assignment (whose columns count from the key). */
typedef struct pparser {
  psg_ctx *ctx;
  const char *text, *p;
  int depth;
  const char *label;
} pparser;

static psg_status perr(pparser *pp, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static psg_status perr(pparser *pp, const char *at, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return psgi_diag_add(pp->ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, pp->label, 1, (int)(at - pp->text) + 1, pp->text,
                       strlen(pp->text), NULL, "%s", msg);
}

static void ws(pparser *pp) {
  while (*pp->p == ' ' || *pp->p == '\t' || *pp->p == '\n') pp->p++;
}

static bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static size_t read_name(pparser *pp) {
  ws(pp);
  const char *s = pp->p;
  while (name_char(*pp->p)) pp->p++;
  return (size_t)(pp->p - s);
}

static psg_status parse_options(pparser *pp, psg_attrs **out);

static psg_status parse_value(pparser *pp, psg_attr **out) {
  ws(pp);
  const char *at = pp->p;
  if (*pp->p == '{') {
    /* A dictionary value, e.g. a tir.UnrollLoop config; nesting is bounded
     * like sequential nesting. */
    if (++pp->depth > MAX_NESTING) return perr(pp, at, "option value nested too deeply (limit %d)", MAX_NESTING);
    psg_attrs *fields = NULL;
    psg_status st = parse_options(pp, &fields);
    if (!st) st = psg_attr_dict(pp->ctx, fields, out);
    psg_attrs_release(fields);
    pp->depth--;
    return st;
  }
  if (*pp->p == '"') {
    /* \" and \\ are the only escapes, as the printer writes them. */
    psgi_buf b;
    psgi_buf_init(&b, pp->ctx);
    for (pp->p++; *pp->p && *pp->p != '"'; pp->p++) {
      if (*pp->p == '\\' && (pp->p[1] == '"' || pp->p[1] == '\\')) pp->p++;
      psgi_buf_putc(&b, *pp->p);
    }
    psg_status st = !*pp->p      ? perr(pp, at, "unterminated string")
                    : b.failed   ? psgi_nomem(pp->ctx)
                                 : psg_attr_string(pp->ctx, b.len ? b.data : "", b.len, out);
    if (*pp->p) pp->p++;
    psgi_buf_fini(&b);
    return st;
  }
  if (*pp->p == '[') {
    pp->p++;
    PSGI_VEC(psg_attr *) items = {0};
    psg_status st = PSG_OK;
    ws(pp);
    if (++pp->depth > MAX_NESTING) return perr(pp, at, "option value nested too deeply (limit %d)", MAX_NESTING);
    while (!st && *pp->p != ']') {
      psg_attr *v = NULL;
      st = parse_value(pp, &v);
      if (!st && !PSGI_VEC_PUSH(pp->ctx, &items, v)) psg_attr_release(v), st = psgi_nomem(pp->ctx);
      ws(pp);
      if (!st && *pp->p == ',') pp->p++, ws(pp);
      else if (!st && *pp->p != ']') st = perr(pp, pp->p, "expected ',' or ']' in a list");
    }
    pp->depth--;
    if (!st) pp->p++, st = psg_attr_list(pp->ctx, items.data, items.len, out);
    for (size_t i = 0; i < items.len; i++) psg_attr_release(items.data[i]);
    PSGI_VEC_FREE(pp->ctx, &items);
    return st;
  }
  size_t n = read_name(pp);
  if (n == 4 && !memcmp(at, "true", 4)) return psg_attr_bool(pp->ctx, true, out);
  if (n == 5 && !memcmp(at, "false", 5)) return psg_attr_bool(pp->ctx, false, out);
  if (n == 4 && !memcmp(at, "None", 4)) return psg_attr_none(pp->ctx, out);
  pp->p = at;
  char *end;
  errno = 0;
  long long iv = strtoll(at, &end, 10);
  if (end != at && *end != '.' && *end != 'e' && *end != 'E') {
    if (errno == ERANGE) return perr(pp, at, "integer %.*s is out of the 64-bit range", (int)(end - at), at);
    pp->p = end;
    return psg_attr_int(pp->ctx, iv, out);
  }
  double dv = strtod(at, &end);
  if (end != at) {
    pp->p = end;
    return psg_attr_float(pp->ctx, dv, out);
  }
  return perr(pp, at, "expected an option value (number, true, false, None, \"string\", [list] or {dict})");
}

static psg_status parse_options(pparser *pp, psg_attrs **out) {
  pp->p++; /* { */
  PSGI_VEC(const char *) keys = {0};
  PSGI_VEC(psg_attr *) vals = {0};
  psg_status st = PSG_OK;
  ws(pp);
  while (!st && *pp->p != '}') {
    const char *k = pp->p;
    size_t kn = read_name(pp);
    if (!kn) {
      st = perr(pp, pp->p, "expected an option name");
      break;
    }
    ws(pp);
    if (*pp->p != '=') {
      st = perr(pp, pp->p, "expected '=' after option '%.*s'", (int)kn, k);
      break;
    }
    pp->p++;
    psg_attr *v = NULL;
    const char *key = psgi_intern(pp->ctx, k, kn);
    /* Interned: one pointer per spelling. A repeated key is located here,
     * not refused later without a column by psg_attrs_create. */
    for (size_t i = 0; key && i < keys.len; i++)
      if (keys.data[i] == key) st = perr(pp, k, "option '%.*s' given twice", (int)kn, k);
    if (st) break;
    st = parse_value(pp, &v);
    if (!st && (!key || !PSGI_VEC_PUSH(pp->ctx, &keys, key) || !PSGI_VEC_PUSH(pp->ctx, &vals, v)))
      psg_attr_release(v), st = psgi_nomem(pp->ctx);
    ws(pp);
    if (!st && *pp->p == ',') pp->p++, ws(pp);
    else if (!st && *pp->p != '}') st = perr(pp, pp->p, "expected ',' or '}' after an option");
  }
  if (!st) pp->p++, st = psg_attrs_create(pp->ctx, keys.data, vals.data, keys.len, out);
  for (size_t i = 0; i < vals.len; i++) psg_attr_release(vals.data[i]);
  PSGI_VEC_FREE(pp->ctx, &keys);
  PSGI_VEC_FREE(pp->ctx, &vals);
  return st;
}

/* Passes of a list and where each one's spec starts, for located errors. */
typedef struct pass_vec {
  psg_pass **data;
  const char **at;
  size_t len, cap;
} pass_vec;
static psg_status parse_list(pparser *pp, char close, pass_vec *out);

static void pass_vec_free(psg_ctx *ctx, pass_vec *v) {
  for (size_t i = 0; i < v->len; i++) psg_pass_release(v->data[i]);
  psgi_free(ctx, v->data);
  psgi_free(ctx, v->at);
}

/* A Sequential of the parsed passes, each child's `required` resolved now:
 * an unknown name is an error at the column of the pass that requires it. */
/* The registry's errors since diagnostic `before` (no location of their
 * own) point at `at`, the spec they came from. */
static void locate(pparser *pp, size_t before, const char *at) {
  psgi_diag_locate_since(pp->ctx, before, pp->label, 1, (int)(at - pp->text) + 1, pp->text, strlen(pp->text));
}

static psg_status make_sequential(pparser *pp, pass_vec *kids, const psg_pass_info *info, psg_pass **out) {
  psg_ctx *ctx = pp->ctx;
  psgi_pass_list *req = kids->len ? psgi_calloc(ctx, kids->len * sizeof *req) : NULL;
  psg_status st = kids->len && !req ? psgi_nomem(ctx) : PSG_OK;
  for (size_t i = 0; !st && i < kids->len; i++) {
    size_t before = psg_ctx_diag_count(ctx);
    if ((st = psgi_resolve_required(ctx, kids->data[i]->info, &req[i])) != PSG_OK) locate(pp, before, kids->at[i]);
  }
  if (!st) st = psgi_sequential_make(ctx, kids->data, req, kids->len, info, out);
  for (size_t i = 0; req && i < kids->len; i++) psgi_pass_list_free(ctx, &req[i]);
  psgi_free(ctx, req);
  return st;
}

/* Where option `key` is written in the options text [from, to): after '{'
 * or ',', followed by '='. `from` itself when not found. */
static const char *option_at(const char *from, const char *to, const char *key) {
  size_t n = strlen(key);
  for (const char *p = from; p + n <= to; p++) {
    if (*p != '{' && *p != ',') continue;
    const char *k = p + 1;
    while (k < to && (*k == ' ' || *k == '\t' || *k == '\n')) k++;
    const char *e = k + n;
    while (e < to && (*e == ' ' || *e == '\t' || *e == '\n')) e++;
    if ((size_t)(to - k) >= n && !memcmp(k, key, n) && e < to && *e == '=') return k;
  }
  return from;
}

enum { DEFAULT_MAX_ITERATIONS = 10 };

/* fixed_point(P1,P2,...){max_iterations=N}, after "fixed_point": the inner
 * passes make a Sequential (their `required` resolved), the one option is
 * optional. */
static psg_status parse_fixed_point(pparser *pp, const char *at, psg_pass **out) {
  if (*pp->p != '(') return perr(pp, pp->p, "expected '(' after fixed_point");
  if (++pp->depth > MAX_NESTING) return perr(pp, at, "pipeline nested too deeply (limit %d)", MAX_NESTING);
  pp->p++;
  pass_vec kids = {0};
  psg_pass *inner = NULL;
  psg_attrs *options = NULL;
  psg_status st = parse_list(pp, ')', &kids);
  if (!st) st = make_sequential(pp, &kids, NULL, &inner);
  pass_vec_free(pp->ctx, &kids);
  int64_t max = DEFAULT_MAX_ITERATIONS;
  ws(pp);
  const char *opts_at = pp->p;
  if (!st && *pp->p == '{') st = parse_options(pp, &options);
  for (size_t i = 0; !st && i < psg_attrs_count(options); i++) {
    const char *key = psg_attrs_key(options, i);
    psg_attr *v = psg_attrs_get_value(options, i);
    const char *key_at = option_at(opts_at, pp->p, key);
    if (strcmp(key, "max_iterations"))
      st = perr(pp, key_at, "fixed_point has one option, max_iterations, not '%s'", key);
    else if (psg_attr_kind(v) != PSG_ATTR_INT || (max = psg_attr_get_int(v)) < 1 || max > INT_MAX)
      st = perr(pp, key_at, "max_iterations must be an integer from 1 to %d", INT_MAX);
  }
  if (!st) st = psgi_fixed_point_make(pp->ctx, inner, (int)max, out);
  psg_pass_release(inner);
  psg_attrs_release(options);
  pp->depth--;
  return st;
}

static psg_status parse_spec(pparser *pp, psg_pass **out) {
  *out = NULL;
  ws(pp);
  const char *at = pp->p;
  size_t n = read_name(pp);
  if (!n) return perr(pp, at, *at ? "expected a pass name" : "expected a pass name, found the end of the pipeline");
  char name[256];
  if (n >= sizeof name) return perr(pp, at, "pass name too long");
  memcpy(name, at, n);
  name[n] = 0;
  ws(pp);
  if (!strcmp(name, "fixed_point")) return parse_fixed_point(pp, at, out);
  if (!strcmp(name, "sequential")) {
    if (++pp->depth > MAX_NESTING) return perr(pp, at, "pipeline nested too deeply (limit %d)", MAX_NESTING);
    psg_pass_info *info = NULL;
    psg_status st = PSG_OK;
    if (*pp->p == '[') {
      pp->p++;
      ws(pp); /* the name starts after any blank (read_name skips it too) */
      const char *sn = pp->p;
      size_t snl = read_name(pp);
      ws(pp);
      if (!snl || *pp->p != ',') return perr(pp, pp->p, "expected sequential[NAME,LEVEL]");
      if (snl >= 256) return perr(pp, sn, "sequential name too long");
      pp->p++;
      ws(pp);
      char *end;
      errno = 0;
      long lvl = strtol(pp->p, &end, 10);
      if (end == pp->p) return perr(pp, pp->p, "expected an opt level in sequential[NAME,LEVEL]");
      /* Not cast into range: the text would print back as another level. */
      if (errno == ERANGE || lvl < INT_MIN || lvl > INT_MAX)
        return perr(pp, pp->p, "opt level %.*s is out of range", (int)(end - pp->p), pp->p);
      pp->p = end;
      ws(pp);
      if (*pp->p != ']') return perr(pp, pp->p, "expected ']' after the opt level");
      pp->p++;
      char sname[256];
      snprintf(sname, sizeof sname, "%.*s", (int)snl, sn);
      if ((st = psg_pass_info_create(pp->ctx, sname, (int)lvl, NULL, 0, &info)) != PSG_OK) return st;
      ws(pp);
    }
    if (*pp->p != '(') {
      psg_pass_info_release(info);
      return perr(pp, pp->p, "expected '(' after sequential");
    }
    pp->p++;
    pass_vec kids = {0};
    st = parse_list(pp, ')', &kids);
    if (!st) st = make_sequential(pp, &kids, info, out);
    pass_vec_free(pp->ctx, &kids);
    psg_pass_info_release(info);
    pp->depth--;
    return st;
  }
  psg_attrs *options = NULL;
  const char *opts_at = pp->p;
  if (*pp->p == '{') {
    psg_status st = parse_options(pp, &options);
    if (st) return st;
  }
  size_t before = psg_ctx_diag_count(pp->ctx), bad = SIZE_MAX;
  psg_status st = psgi_pass_get_checked(pp->ctx, name, options, &bad, out);
  if (st) locate(pp, before, bad < psg_attrs_count(options) ? option_at(opts_at, pp->p, psg_attrs_key(options, bad)) : at);
  psg_attrs_release(options);
  return st;
}

/* spec ("," spec)* up to `close` (0: the end of the text). */
static psg_status parse_list(pparser *pp, char close, pass_vec *out) {
  ws(pp);
  if (close && *pp->p == close) {
    pp->p++;
    return PSG_OK;
  }
  for (;;) {
    psg_pass *p = NULL;
    ws(pp);
    const char *at = pp->p;
    psg_status st = parse_spec(pp, &p);
    if (st) return st;
    if (out->len == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 8;
      psg_pass **d = psgi_realloc(pp->ctx, out->data, cap * sizeof *d);
      if (d) out->data = d;
      const char **a = d ? psgi_realloc(pp->ctx, out->at, cap * sizeof *a) : NULL;
      if (a) out->at = a, out->cap = cap;
      if (!a) {
        psg_pass_release(p);
        return psgi_nomem(pp->ctx);
      }
    }
    out->data[out->len] = p;
    out->at[out->len++] = at;
    ws(pp);
    if (*pp->p == ',') {
      pp->p++;
      continue;
    }
    if (close && *pp->p == close) {
      pp->p++;
      return PSG_OK;
    }
    if (!close && !*pp->p) return PSG_OK;
    if (close) return perr(pp, pp->p, "expected ',' or '%c' after a pass", close);
    return perr(pp, pp->p, "expected ',' or the end of the pipeline after a pass");
  }
}

/* The value starting at `value` inside `text`, located as `label`:1:COL in
 * `text` (config.c passes a whole KEY=VALUE assignment as "--config"). */
psg_status psgi_parse_value_in(psg_ctx *ctx, const char *label, const char *text, const char *value,
                               psg_attr **out) {
  *out = NULL;
  pparser pp = {ctx, text, value, 0, label};
  psg_status st = parse_value(&pp, out);
  ws(&pp);
  if (!st && *pp.p) {
    psg_attr_release(*out);
    *out = NULL;
    st = perr(&pp, pp.p, "unexpected text after the value");
  }
  return st;
}

psg_status psg_pipeline_parse_value(psg_ctx *ctx, const char *text, psg_attr **out) {
  *out = NULL;
  if (!text) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL value");
  return psgi_parse_value_in(ctx, "<pipeline>", text, text, out);
}

psg_status psg_pipeline_parse(psg_ctx *ctx, const char *text, psg_pass **out) {
  *out = NULL;
  if (!text) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL pipeline");
  pparser pp = {ctx, text, text, 0, "<pipeline>"};
  pass_vec passes = {0};
  psg_status st = parse_list(&pp, 0, &passes);
  if (!st && passes.len == 1) {
    *out = passes.data[0];
    passes.len = 0;
  } else if (!st) {
    st = make_sequential(&pp, &passes, NULL, out);
  }
  pass_vec_free(ctx, &passes);
  return st;
}

/* `expand`: registered pipelines (O2, FoldScaleAxis) are written out as
 * sequential[NAME,LEVEL](children) rather than by name. */
static void print_pass(psgi_buf *b, const psg_pass *p, int depth, bool expand) {
  if (psgi_pass_is_fixed_point(p)) {
    const psg_pass *inner = p->children[0];
    psgi_buf_puts(b, "fixed_point(");
    for (size_t k = 0; k < inner->num_children && depth < MAX_NESTING; k++) {
      if (k) psgi_buf_putc(b, ',');
      print_pass(b, inner->children[k], depth + 1, expand);
    }
    psgi_buf_putc(b, ')');
    int max = psg_fixed_point_max_iterations(p);
    if (max != DEFAULT_MAX_ITERATIONS) psgi_buf_printf(b, "{max_iterations=%d}", max);
    return;
  }
  if (p->kind == PSG_PASS_SEQUENTIAL && (!p->registry_name || expand)) {
    const psg_pass_info *i = p->info;
    bool dflt = !strcmp(i->name, "sequential") && i->opt_level == 0;
    psgi_buf_puts(b, "sequential");
    if (!dflt) psgi_buf_printf(b, "[%s,%d]", i->name, i->opt_level);
    psgi_buf_putc(b, '(');
    for (size_t k = 0; k < p->num_children && depth < MAX_NESTING; k++) {
      if (k) psgi_buf_putc(b, ',');
      print_pass(b, p->children[k], depth + 1, expand);
    }
    psgi_buf_putc(b, ')');
    return;
  }
  psgi_format_pass_spec(b, p->registry_name ? p->registry_name : p->info->name, p->options);
}

static char *print(const psg_pass *p, bool expand) {
  psgi_buf b;
  psgi_buf_init(&b, p->ctx);
  print_pass(&b, p, 0, expand);
  char *s = psgi_buf_detach_libc(&b, NULL);
  if (!s) psgi_buf_fini(&b);
  return s;
}

char *psg_pipeline_print(const psg_pass *p) { return print(p, false); }
char *psg_pipeline_print_expanded(const psg_pass *p) { return print(p, true); }
