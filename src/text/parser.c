/* Passage — parser of TVM's Relay text format (docs/text-format.md): a
 * recursive-descent parser over the lexer's tokens. Statements of a block and
 * let chains are loops; only the nesting of expressions, fn and if blocks
 * recurses, capped at MAX_DEPTH levels. Errors are file:line:col diagnostics
 * with a caret; the parser resynchronizes at the next statement and stops
 * after MAX_ERRORS. Checks: names are defined, ops and attributes exist,
 * argument counts fit, global functions exist and are defined once. */
#include <errno.h>
#include <stdio.h>
#include "passage/tvmscript.h"
#include "text/relay_parse_internal.h"

/* Module ------------------------------------------------------------------------ */

/* #[version = "0.0.5"] */
static bool parse_version(parser *ps) {
  token t = ps->tok;
  if (!(tok_is(&t, "#") && tok_is(&ps->next, "["))) {
    psgi_rp_error_at(ps, &t, "expected the version header #[version = \"0.0.5\"] at the start of the module");
    return false;
  }
  psgi_rp_advance(ps);
  psgi_rp_advance(ps);
  if (!tok_is(&ps->tok, "version")) {
    psgi_rp_error_at(ps, &ps->tok, "expected 'version' in the header #[version = \"0.0.5\"]");
    return false;
  }
  psgi_rp_advance(ps);
  if (!psgi_rp_expect(ps, "=", "after version")) return false;
  if (ps->tok.kind != TOK_STRING || !(ps->tok.len == 5 && !memcmp(ps->tok.text, "0.0.5", 5))) {
    psgi_rp_error_at(ps, &ps->tok, "unsupported text format version (only \"0.0.5\" is supported)");
    return false;
  }
  psgi_rp_advance(ps);
  return psgi_rp_expect(ps, "]", "to close the version header");
}

/* Where "#[metadata]" starts (at the beginning of a line), or end. */
static const char *find_metadata(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end) {
    if ((size_t)(end - p) >= 11 && !memcmp(p, "#[metadata]", 11) && (p == text || p[-1] == '\n')) return p;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    p = nl + 1;
  }
  return end;
}

static void parser_fini(parser *ps) {
  psgi_rp_scope_restore(ps, 0);
  PSGI_VEC_FREE(ps->ctx, &ps->undo_log);
  psgi_map_fini(&ps->scope);
  for (size_t i = 0; i < ps->free_vars.len; i++) psg_expr_release(ps->free_vars.entries[i].value);
  psgi_map_fini(&ps->free_vars);
  PSGI_VEC_FREE(ps->ctx, &ps->tyscope);
  psgi_arena_fini(&ps->arena);
  for (size_t i = 0; i < ps->globals.len; i++) psg_expr_release(ps->globals.entries[i].value);
  psgi_map_fini(&ps->globals);
  PSGI_VEC_FREE(ps->ctx, &ps->global_uses);
  for (size_t i = 0; i < ps->meta.len; i++) psg_tensor_release(ps->meta.data[i]);
  PSGI_VEC_FREE(ps->ctx, &ps->meta);
  PSGI_VEC_FREE(ps->ctx, &ps->prims);
  psgi_map_fini(&ps->type_names);
  psgi_map_fini(&ps->declared_types);
  for (size_t i = 0; i < ps->ctors.len; i++) psg_expr_release(ps->ctors.entries[i].value);
  psgi_map_fini(&ps->ctors);
  for (size_t i = 0; i < ps->call_attrs.len; i++) psg_attrs_release(ps->call_attrs.entries[i].value);
  psgi_map_fini(&ps->call_attrs);
  for (size_t i = 0; i < ps->type_defs.len; i++) psg_type_data_release(ps->type_defs.data[i]);
  PSGI_VEC_FREE(ps->ctx, &ps->type_defs);
}

/* Sets up `ps` over the text and reads its metadata section, then the
 * `nmeta` extra constants after it; *meta_at is where the section starts. */
static psg_status parser_init(parser *ps, psg_ctx *ctx, const char *text, size_t len, const char *filename,
                              psg_tensor *const *meta, size_t nmeta, const char **meta_at) {
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  psgi_map_init(&ps->scope, ctx);
  psgi_map_init(&ps->free_vars, ctx);
  psgi_map_init(&ps->globals, ctx);
  psgi_map_init(&ps->type_names, ctx);
  psgi_map_init(&ps->declared_types, ctx);
  psgi_map_init(&ps->ctors, ctx);
  psgi_map_init(&ps->call_attrs, ctx);
  psgi_arena_init(&ps->arena, ctx);
  ps->src = text ? text : "";
  *meta_at = find_metadata(ps->src, len);
  lexer_init(&ps->lx, ps->src, (size_t)(*meta_at - ps->src));
  ps->file = psgi_intern(ctx, filename ? filename : "<input>", strlen(filename ? filename : "<input>"));
  if (!ps->file) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  if (*meta_at < ps->src + len) st = psgi_metadata_parse(ctx, ps->file, ps->src, *meta_at + 11, ps->src + len, &ps->meta);
  for (size_t i = 0; !st && i < nmeta; i++) {
    if (!PSGI_VEC_PUSH(ctx, &ps->meta, meta[i])) return psgi_nomem(ctx);
    psg_tensor_retain(meta[i]);
  }
  if (!st) st = psgi_rp_scan_type_names(ps, ps->src, (size_t)(*meta_at - ps->src));
  ps->next = lexer_next(&ps->lx);
  psgi_rp_advance(ps);
  return st;
}

psg_status psg_expr_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename, psg_expr **out) {
  return psgi_expr_parse_meta(ctx, text, len, filename, NULL, 0, out);
}

psg_status psgi_expr_parse_meta(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                psg_tensor *const *meta, size_t nmeta, psg_expr **out) {
  *out = NULL;
  if (!text && len) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL text");
  parser ps;
  const char *meta_at;
  psg_status st = parser_init(&ps, ctx, text, len, filename, meta, nmeta, &meta_at);
  /* The version line is optional here, as in TVM's ParseExpr. */
  if (!st && tok_is(&ps.tok, "#") && tok_is(&ps.next, "[") && !parse_version(&ps)) st = PSG_ERR_PARSE;
  psg_expr *e = NULL;
  if (!st) st = psgi_rp_parse_expr(&ps, &e);
  if (!st && ps.tok.kind != TOK_EOF) {
    char buf[80];
    st = psgi_rp_error_at(&ps, &ps.tok, "expected the end of the expression, found %s", psgi_rp_tok_desc(&ps.tok, buf, sizeof buf));
  }
  if (!st && ps.errors) st = PSG_ERR_PARSE;
  if (st) psg_expr_release(e);
  else *out = e;
  parser_fini(&ps);
  return st;
}

psg_status psg_module_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename, psg_module **out) {
  return psg_module_parse_in(ctx, text, len, filename, NULL, NULL, 0, out);
}

static psg_status parse_module(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                               const psg_module *init, psg_tensor *const *meta, size_t nmeta, psg_module **out);

psg_status psg_module_parse_in(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                               const psg_module *init, psg_tensor *const *meta, size_t nmeta, psg_module **out) {
  /* The parser's vectors and maps grow by doubling, freeing as much as
   * they take: keep it mapped for the module's nodes. */
  psgi_ctx_hold_memory_begin(ctx);
  psg_status st = parse_module(ctx, text, len, filename, init, meta, nmeta, out);
  psgi_ctx_hold_memory_end(ctx);
  return st;
}

static psg_status parse_module(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                               const psg_module *init, psg_tensor *const *meta, size_t nmeta, psg_module **out) {
  *out = NULL;
  if (!text && len) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "NULL text");
  parser ps;
  const char *meta_at;
  psg_status st = parser_init(&ps, ctx, text, len, filename, meta, nmeta, &meta_at);
  entry_vec defs = {0};
  /* init's entries come first, their GlobalVars shared: the text calls them
   * by name, and its def of a taken name replaces the entry in place. */
  size_t n_init = 0;
  PSGI_VEC(bool) replaced = {0};
  for (size_t i = 0; !st && init && i < init->n; i++) {
    psgi_module_entry en = init->entries[i];
    const char *name = en.gv->u.gvar.name;
    bool is_new;
    psgi_map_entry *g = psgi_map_put_str(&ps.globals, name, strlen(name), &is_new);
    if (!g || !PSGI_VEC_PUSH(ctx, &defs, en) || !PSGI_VEC_PUSH(ctx, &replaced, false)) {
      st = psgi_nomem(ctx);
      break;
    }
    g->value = en.gv;
    psg_expr_retain(en.gv); /* the globals map's reference */
    psg_expr_retain(en.gv);
    if (en.func) psg_expr_retain(en.func);
    if (en.prim) en.prim_ops->retain(en.prim);
    n_init++;
  }
  if (!st) st = psgi_rp_add_init_type_defs(&ps, init);
  psg_attrs *mod_attrs = NULL;
  if (init && init->attrs) {
    mod_attrs = init->attrs;
    psg_attrs_retain(mod_attrs);
  }
  if (!st && !parse_version(&ps)) st = PSG_ERR_PARSE;
  /* Optional module attributes: #[attrs = {k=v, ...}] */
  if (!st && tok_is(&ps.tok, "#") && tok_is(&ps.next, "[")) {
    psgi_rp_advance(&ps);
    psgi_rp_advance(&ps);
    if (!tok_is(&ps.tok, "attrs")) st = psgi_rp_error_at(&ps, &ps.tok, "expected 'attrs' or 'metadata' after #[");
    else {
      psgi_rp_advance(&ps);
      if (!psgi_rp_expect(&ps, "=", "after attrs")) st = PSG_ERR_PARSE;
      else if (!tok_is(&ps.tok, "{")) st = psgi_rp_error_at(&ps, &ps.tok, "expected a dictionary after attrs =");
      psg_attrs_release(mod_attrs); /* the text's attributes replace init's */
      mod_attrs = NULL;
      if (!st) st = psgi_rp_parse_attr_dict(&ps, &mod_attrs);
      if (!st && !psgi_rp_expect(&ps, "]", "to close the module attributes")) st = PSG_ERR_PARSE;
    }
  }
  while (!st && ps.tok.kind != TOK_EOF && !ps.gave_up) {
    token t = ps.tok;
    int errors_before = ps.errors;
    if (psgi_rp_is_prim_start(&ps, &t)) {
      if (psgi_rp_skip_prim_block(&ps, &defs) == PSG_ERR_NOMEM) st = PSG_ERR_NOMEM;
      continue;
    }
    if (tok_is(&t, "type") || (tok_is(&t, "extern") && tok_is(&ps.next, "type"))) {
      psg_status s = psgi_rp_parse_type_def(&ps);
      if (s == PSG_ERR_NOMEM) st = s;
      else if (s) {
        if (ps.errors == errors_before) psgi_rp_error_at(&ps, &t, "cannot build this type: %s", psg_status_str(s));
        while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !psgi_rp_at_global_start(&ps)) psgi_rp_advance(&ps);
      }
      continue;
    }
    if (!tok_is(&t, "def")) {
      char buf[80];
      psgi_rp_error_at(&ps, &t, "expected 'def' to start a global function, found %s", psgi_rp_tok_desc(&t, buf, sizeof buf));
      if (t.kind == TOK_ERROR) break;
      do psgi_rp_advance(&ps);
      while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !psgi_rp_at_global_start(&ps));
      continue;
    }
    psgi_rp_advance(&ps);
    token name = ps.tok;
    if (name.kind != TOK_GLOBAL) {
      char buf[80];
      psgi_rp_error_at(&ps, &name, "expected a global name (@name) after def, found %s", psgi_rp_tok_desc(&name, buf, sizeof buf));
      do psgi_rp_advance(&ps);
      while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !psgi_rp_at_global_start(&ps));
      continue;
    }
    psgi_rp_advance(&ps);
    psg_expr *gv = NULL, *fn = NULL;
    psg_status s = psgi_rp_global_ref(&ps, &name, &gv);
    ptrdiff_t replace = -1; /* the init entry this def replaces */
    for (size_t i = 0; !s && i < defs.len; i++)
      if (defs.data[i].gv == gv) {
        if (i < n_init && !replaced.data[i]) replace = (ptrdiff_t)i;
        else s = psgi_rp_error_at(&ps, &name, "@%.*s is defined twice", (int)name.len, name.text);
      }
    size_t mark = psgi_rp_scope_mark(&ps), tymark = ps.tyscope.len;
    expr_vec params = {0};
    psg_attrs *attrs = NULL;
    const psg_type *ret = NULL, *tparams[64];
    int ntp = 0;
    psg_expr *body = NULL;
    if (!s && tok_is(&ps.tok, "[")) s = psgi_rp_parse_type_params(&ps, tparams, &ntp);
    if (!s) s = psgi_rp_parse_params(&ps, mark, &params, &attrs);
    if (!s && tok_is(&ps.tok, "->")) {
      psgi_rp_advance(&ps);
      s = psgi_rp_parse_type(&ps, &ret);
    }
    if (!s) s = psgi_rp_parse_block(&ps, &body);
    psgi_rp_scope_restore(&ps, mark);
    ps.tyscope.len = tymark;
    psg_span sp = psgi_rp_span_of(&ps, &t);
    if (!s) s = psg_function_create_poly(ctx, params.data, params.len, body, ret, tparams, ntp, attrs, &sp, &fn);
    psgi_module_entry en = {gv, fn, NULL, NULL};
    if (!s && replace >= 0) {
      psgi_module_entry *old = &defs.data[replace];
      psg_expr_release(old->func);
      if (old->prim) old->prim_ops->release(old->prim);
      psg_expr_release(gv); /* old->gv is the same node, already held */
      old->func = fn;
      old->prim = NULL;
      old->prim_ops = NULL;
      replaced.data[replace] = true;
    } else if (!s && !PSGI_VEC_PUSH(ctx, &defs, en)) s = psgi_nomem(ctx);
    if (s) {
      psg_expr_release(fn);
      psg_expr_release(gv);
      if (s == PSG_ERR_NOMEM) st = s;
      /* A failure no parse error explains (a constructor's) must still fail the parse. */
      else if (ps.errors == errors_before) psgi_rp_error_at(&ps, &t, "cannot build this function: %s", psg_status_str(s));
      if (s != PSG_ERR_NOMEM && !tok_is(&ps.tok, "def"))
        while (ps.tok.kind != TOK_EOF && ps.tok.kind != TOK_ERROR && !psgi_rp_at_global_start(&ps)) psgi_rp_advance(&ps);
    }
    psg_expr_release(body);
    psg_attrs_release(attrs);
    for (size_t i = 0; i < params.len; i++) psg_expr_release(params.data[i]);
    PSGI_VEC_FREE(ctx, &params);
    if (ps.tok.kind == TOK_ERROR && !ps.gave_up) {
      char buf[80];
      psgi_rp_error_at(&ps, &ps.tok, "%s", ps.lx.error ? ps.lx.error : psgi_rp_tok_desc(&ps.tok, buf, sizeof buf));
      break;
    }
  }
  if (!st && ps.prims.len && !ps.gave_up) st = psgi_rp_parse_prim_blocks(&ps, defs.data, meta_at);
  /* Every @name used must be defined. */
  for (size_t i = 0; !st && i < ps.global_uses.len; i++) {
    token *u = &ps.global_uses.data[i];
    bool found = false;
    for (size_t k = 0; k < defs.len && !found; k++) {
      const char *n = defs.data[k].gv->u.gvar.name;
      found = strlen(n) == u->len && !memcmp(n, u->text, u->len);
    }
    if (!found) psgi_rp_error_at(&ps, u, "undefined global function @%.*s", (int)u->len, u->text);
  }
  if (!st && ps.errors) st = PSG_ERR_PARSE;
  /* Kept for diagnostics made after passes (verify-each quotes the line). */
  if (!st) st = psgi_source_remember(ctx, ps.file, text, len);
  if (!st) st = psgi_module_from_entries(ctx, defs.data, defs.len, mod_attrs, out);
  if (!st && (st = psgi_module_set_types(*out, ps.type_defs.data, ps.type_defs.len))) {
    psg_module_release(*out);
    *out = NULL;
  }
  for (size_t i = 0; i < defs.len; i++) {
    psg_expr_release(defs.data[i].gv);
    psg_expr_release(defs.data[i].func);
    if (defs.data[i].prim) defs.data[i].prim_ops->release(defs.data[i].prim);
  }
  PSGI_VEC_FREE(ctx, &defs);
  PSGI_VEC_FREE(ctx, &replaced);
  psg_attrs_release(mod_attrs);
  parser_fini(&ps);
  return st;
}

psg_status psg_module_parse_file(psg_ctx *ctx, const char *path, psg_module **out) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = psgi_alloc(ctx, cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = psgi_realloc(ctx, buf, cap * 2);
      if (!nb) {
        psgi_free(ctx, buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  int read_errno = ferror(f) ? errno : 0; /* EISDIR for a directory: say so */
  fclose(f);
  if (!buf) return psgi_nomem(ctx);
  if (read_errno) {
    psgi_free(ctx, buf);
    return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot read %s: %s", path, strerror(read_errno));
  }
  psg_status st = psg_module_parse(ctx, buf, n, path, out);
  psgi_free(ctx, buf);
  return st;
}
