/* Passage — TVMScript parser (include/passage/tvmscript.h): everything the
 * printer writes plus the sugar TVM's tests use (docs/text-format.md).
 *
 * Blocks are not parsed by recursion: each block statement (for, if, with,
 * and the concise `x = e` / `assert` forms, whose body is the rest of the
 * enclosing block) pushes a frame, and a DEDENT closes the concise frames
 * above the innermost indented one, then that one. Only expressions recurse,
 * at most MAX_DEPTH levels. Errors are located diagnostics with the source
 * line and a caret; after one, the parser skips to the next line and goes on,
 * up to MAX_ERRORS, and returns no result. */
#include <stdio.h>
#include "text/tir_parse_internal.h"

/* Functions and modules ----------------------------------------------------- */

static void reset_func(tparser *ps) {
  psgi_tirp_release_all(ps->params.data, ps->params.len);
  psgi_tirp_release_all(ps->map_bufs.data, ps->map_bufs.len);
  ps->params.len = ps->map_params.len = ps->map_bufs.len = 0;
  psg_attrs_release(ps->func_attrs);
  ps->func_attrs = NULL;
  psgi_tirp_undo_to(ps, 0);
  for (size_t i = 0; i < ps->frames.len; i++) psgi_tirp_free_frame_payload(ps, &ps->frames.data[i]);
  ps->frames.len = 0;
  psgi_tirp_release_all(ps->stmts.data, ps->stmts.len);
  ps->stmts.len = 0;
  for (size_t i = 0; i < ps->loops.len; i++) {
    psg_tir_release(ps->loops.data[i].var);
    psg_tir_release(ps->loops.data[i].min);
    psg_tir_release(ps->loops.data[i].extent);
    psg_attrs_release(ps->loops.data[i].ann);
  }
  ps->loops.len = 0;
}

/* One parameter "NAME: T.Buffer(...)" / "NAME: T.handle" / "NAME: T.int32". */
static bool parse_param(tparser *ps) {
  if (!is_name(&ps->tok)) return !psgi_tirp_expected(ps, "a parameter name");
  ttoken nt = ps->tok;
  char name[128];
  psgi_tirp_name_of(&nt, name, sizeof name);
  psgi_tirp_advance(ps);
  if (psgi_tirp_expect(ps, ":")) return false;
  psg_tir_node *v = NULL;
  if (tt_is(&ps->tok, "T") && tt_is(&ps->next, ".")) {
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    if (tt_is(&ps->tok, "Buffer")) {
      ttoken bt = ps->tok;
      psgi_tirp_advance(ps);
      if (psgi_tirp_expect(ps, "(")) return false;
      psg_tir_node *buf = psgi_tirp_parse_buffer_rest(ps, &bt, &nt, name);
      if (!buf) return false;
      bool ok = !BUILD(&nt, psg_tir_var_create(ps->ctx, name, psg_tir_dtype_handle(), NULL, SP(&nt), &v)) &&
                PSGI_VEC_PUSH(ps->ctx, &ps->params, v) && PSGI_VEC_PUSH(ps->ctx, &ps->map_params, ps->params.len - 1) &&
                PSGI_VEC_PUSH(ps->ctx, &ps->map_bufs, buf);
      if (!ok) {
        if (!v || ps->params.len == 0 || ps->params.data[ps->params.len - 1] != v) psg_tir_release(v);
        psg_tir_release(buf);
        return false;
      }
      return !psgi_tirp_define(ps, &nt, SYM_BUFFER, buf);
    }
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
  }
  v = psgi_tirp_parse_var_annotation(ps, name);
  if (!v) return false;
  for (size_t i = 0; i < ps->params.len; i++)
    if (!strcmp(ps->params.data[i]->u.var.name, v->u.var.name)) {
      psg_tir_release(v);
      return !psgi_tirp_error_at(ps, &nt, "parameter '%s' given twice", name);
    }
  if (!PSGI_VEC_PUSH(ps->ctx, &ps->params, v)) {
    psg_tir_release(v);
    return false;
  }
  return !psgi_tirp_define(ps, &nt, SYM_VAR, v);
}

/* "@T.prim_func[(...)]" NEWLINE "def NAME(params) [-> T.type]:" body. */
static psg_status parse_func(tparser *ps, psg_tir_script *script) {
  ttoken at = ps->tok;
  bool priv = false;
  reset_func(ps);
  if (psgi_tirp_expect(ps, "@") || psgi_tirp_expect(ps, "T") || psgi_tirp_expect(ps, ".") || psgi_tirp_expect(ps, "prim_func")) return PSG_ERR_PARSE;
  if (psgi_tirp_accept(ps, "(")) {
    while (!tt_is(&ps->tok, ")")) {
      if (!is_name(&ps->tok) || !tt_is(&ps->next, "=")) return psgi_tirp_expected(ps, "private=True or check_well_formed=...");
      bool is_private = tt_is(&ps->tok, "private");
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      if (!tt_is(&ps->tok, "True") && !tt_is(&ps->tok, "False")) return psgi_tirp_expected(ps, "True or False");
      if (is_private) priv = tt_is(&ps->tok, "True");
      psgi_tirp_advance(ps);
      if (!psgi_tirp_accept(ps, ",")) break;
    }
    if (psgi_tirp_expect(ps, ")")) return PSG_ERR_PARSE;
  }
  if (ps->tok.kind != TT_NEWLINE) return psgi_tirp_expected(ps, "a new line after the decorator");
  psgi_tirp_advance(ps);
  if (psgi_tirp_expect(ps, "def")) return PSG_ERR_PARSE;
  if (!is_name(&ps->tok)) return psgi_tirp_expected(ps, "a function name");
  ttoken fname = ps->tok;
  psgi_tirp_advance(ps);
  if (psgi_tirp_expect(ps, "(")) return PSG_ERR_PARSE;
  while (!tt_is(&ps->tok, ")")) {
    if (!parse_param(ps)) return PSG_ERR_PARSE;
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  if (psgi_tirp_expect(ps, ")")) return PSG_ERR_PARSE;
  psg_tir_node *ret = NULL;
  if (psgi_tirp_accept(ps, "->") && !psgi_tirp_accept(ps, "None")) {
    /* (-> None: no return type, as without an annotation) */
    psg_tir_node *rv = psgi_tirp_parse_var_annotation(ps, "ret");
    if (!rv) return PSG_ERR_PARSE;
    psg_tir_dtype rdt = rv->dtype;
    psg_tir_release(rv);
    if (psg_tir_prim_type_create(ps->ctx, rdt, &ret)) {
      psgi_tirp_oom(ps);
      return PSG_ERR_NOMEM;
    }
  }
  if (psgi_tirp_expect(ps, ":")) {
    psg_tir_release(ret);
    return PSG_ERR_PARSE;
  }
  if (ps->tok.kind != TT_NEWLINE || (psgi_tirp_advance(ps), ps->tok.kind != TT_INDENT)) {
    psg_tir_release(ret);
    return psgi_tirp_expected(ps, "the function body on the next lines, indented");
  }
  psgi_tirp_advance(ps);
  if (!psgi_tirp_push_frame(ps, psgi_tirp_new_frame(ps, F_FUNC, &at))) {
    psg_tir_release(ret);
    return PSG_ERR_NOMEM;
  }
  psg_tir_node *body = psgi_tirp_parse_body(ps);
  psg_status st = body && !ps->errors ? PSG_OK : PSG_ERR_PARSE;
  char name[128];
  psgi_tirp_name_of(&fname, name, sizeof name);
  psg_attrs *attrs = ps->func_attrs;
  if (attrs) psg_attrs_retain(attrs);
  if (!st && !priv && !psg_attrs_get(attrs, "global_symbol")) {
    psg_attr *gs = NULL;
    psg_attrs *with = NULL;
    /* first, where function builders usually put it (attrs compare in order) */
    size_t na = psg_attrs_count(attrs);
    const char **keys = psgi_alloc(ps->ctx, (na + 1) * sizeof *keys);
    psg_attr **vals = psgi_alloc(ps->ctx, (na + 1) * sizeof *vals);
    st = keys && vals ? psg_attr_string(ps->ctx, name, strlen(name), &gs) : PSG_ERR_NOMEM;
    if (!st) {
      keys[0] = "global_symbol";
      vals[0] = gs;
      for (size_t i = 0; i < na; i++) {
        keys[i + 1] = psg_attrs_key(attrs, i);
        vals[i + 1] = psg_attrs_get_value(attrs, i);
      }
      st = psg_attrs_create(ps->ctx, keys, vals, na + 1, &with);
    }
    psgi_free(ps->ctx, keys);
    psgi_free(ps->ctx, vals);
    psg_attr_release(gs);
    psg_attrs_release(attrs);
    attrs = with;
  }
  /* The buffer map in parameter order, however the text introduced the
   * buffers (signature T.Buffer or T.match_buffer in the body). */
  for (size_t i = 1; i < ps->map_params.len; i++)
    for (size_t j = i; j > 0 && ps->map_params.data[j - 1] > ps->map_params.data[j]; j--) {
      size_t tp = ps->map_params.data[j];
      psg_tir_node *tb = ps->map_bufs.data[j];
      ps->map_params.data[j] = ps->map_params.data[j - 1];
      ps->map_bufs.data[j] = ps->map_bufs.data[j - 1];
      ps->map_params.data[j - 1] = tp;
      ps->map_bufs.data[j - 1] = tb;
    }
  psg_tir_node *f = NULL;
  if (!st) {
    st = BUILD(&fname, psg_tir_prim_func_create(ps->ctx, ps->params.data, ps->params.len, body, ret,
                                               ps->map_params.data, ps->map_bufs.data, ps->map_bufs.len, attrs,
                                               SP(&fname), &f));
  }
  if (!st) {
    for (size_t i = 0; i < script->names.len; i++)
      if (!strcmp(script->names.data[i], name)) st = psgi_tirp_error_at(ps, &fname, "function '%s' defined twice", name);
  }
  if (!st) st = psg_tir_script_add(script, name, f);
  psg_tir_release(f);
  psg_tir_release(body);
  psg_tir_release(ret);
  psg_attrs_release(attrs);
  reset_func(ps);
  return st;
}

/* Skips to the next line that starts a decorator at the current level. */
static void recover_top(tparser *ps) {
  while (ps->tok.kind != TT_EOF && !(tt_is(&ps->tok, "@") && ps->tok.col <= 5)) psgi_tirp_advance(ps);
}

static psg_status parse_script(tparser *ps, psg_tir_script **out) {
  while (ps->tok.kind == TT_NEWLINE) psgi_tirp_advance(ps);
  bool module = tt_is(&ps->tok, "@") && tt_is(&ps->next, "I");
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_create(ps->ctx, module, &s);
  if (st) return st;
  if (module) {
    psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    if (psgi_tirp_expect(ps, ".") || psgi_tirp_expect(ps, "ir_module") || ps->tok.kind != TT_NEWLINE) {
      if (!ps->errors) psgi_tirp_expected(ps, "@I.ir_module on its own line");
      goto done;
    }
    psgi_tirp_advance(ps);
    if (psgi_tirp_expect(ps, "class") || !is_name(&ps->tok)) {
      if (ps->errors == 0) psgi_tirp_expected(ps, "a class name");
      goto done;
    }
    psgi_tirp_advance(ps);
    if (psgi_tirp_expect(ps, ":") || ps->tok.kind != TT_NEWLINE || (psgi_tirp_advance(ps), ps->tok.kind != TT_INDENT)) {
      if (!ps->errors) psgi_tirp_expected(ps, "the module's functions on the next lines, indented");
      goto done;
    }
    psgi_tirp_advance(ps);
  }
  while (!ps->gave_up) {
    while (ps->tok.kind == TT_NEWLINE) psgi_tirp_advance(ps);
    if (ps->tok.kind == TT_EOF) break;
    if (module && ps->tok.kind == TT_DEDENT) {
      psgi_tirp_advance(ps);
      while (ps->tok.kind == TT_NEWLINE) psgi_tirp_advance(ps);
      if (ps->tok.kind != TT_EOF) psgi_tirp_expected(ps, "end of input after the module");
      break;
    }
    if (ps->tok.kind == TT_ERROR) {
      psgi_tirp_error_at(ps, &ps->tok, "lexer");
      break;
    }
    if (parse_func(ps, s)) {
      if (ps->errors == 0) ps->errors++; /* a failure without a parse diagnostic (out of memory) */
      recover_top(ps);
    }
  }
  if (!ps->errors && s->funcs.len == 0) psgi_tirp_expected(ps, "@T.prim_func");
done:
  if (ps->errors || ps->gave_up) {
    psg_tir_script_release(s);
    return PSG_ERR_PARSE;
  }
  *out = s;
  return PSG_OK;
}

psg_status psg_tir_script_parse(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                psg_tir_script **out) {
  return psg_tir_script_parse_env(ctx, text, len, filename, NULL, out);
}

psg_status psg_tir_script_parse_env(psg_ctx *ctx, const char *text, size_t len, const char *filename,
                                    psg_tir_script_env *env, psg_tir_script **out) {
  *out = NULL;
  if (!text && len) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_tir_script_parse: NULL text");
  size_t diag_start = psg_ctx_diag_count(ctx);
  bool was_oom = psg_ctx_is_oom(ctx); /* the flag is sticky: only a new failure counts */
  tparser ps;
  memset(&ps, 0, sizeof ps);
  ps.ctx = ctx;
  ps.file = psgi_intern(ctx, filename ? filename : "<input>", strlen(filename ? filename : "<input>"));
  if (!ps.file) return psgi_nomem(ctx);
  tlex_init(&ps.lx, ctx, text ? text : "", len);
  psgi_map_init(&ps.scope, ctx);
  psgi_arena_init(&ps.arena, ctx);
  ps.env = env;
  ps.next = ps.env ? psgi_tir_script_env_next(ps.env, &ps.lx, NULL) : tlex_next(&ps.lx);
  psgi_tirp_advance(&ps);
  psg_status st = parse_script(&ps, out);
  reset_func(&ps);
  psgi_tirp_release_all(ps.owned.data, ps.owned.len);
  PSGI_VEC_FREE(ctx, &ps.owned);
  PSGI_VEC_FREE(ctx, &ps.params);
  PSGI_VEC_FREE(ctx, &ps.map_params);
  PSGI_VEC_FREE(ctx, &ps.map_bufs);
  PSGI_VEC_FREE(ctx, &ps.frames);
  PSGI_VEC_FREE(ctx, &ps.stmts);
  PSGI_VEC_FREE(ctx, &ps.loops);
  PSGI_VEC_FREE(ctx, &ps.undo);
  psgi_map_fini(&ps.scope);
  psgi_arena_fini(&ps.arena);
  tlex_fini(&ps.lx);
  /* a failure that left no error message ran out of memory somewhere */
  if (st && (ps.oom || psg_ctx_diag_count(ctx) == diag_start || (!was_oom && psg_ctx_is_oom(ctx))))
    return PSG_ERR_NOMEM;
  return st;
}
