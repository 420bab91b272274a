/* Passage — TVMScript parser (tir_parse.c): one statement each: for, if,
 * while, with, assert, assignments, buffer stores and evaluated calls. A
 * block statement pushes a frame (tir_parse_block.c) rather than recursing. */
#include <stdio.h>
#include "passage/arith.h"
#include "text/tir_parse_internal.h"

/* Statements ------------------------------------------------------------------ */

/* Whether two expressions are the same tree (vars by identity): how
 * range(m, m + e) gives back extent e. Iterative. */
static bool same_expr(tparser *ps, const psg_tir_node *a, const psg_tir_node *b) {
  PSGI_VEC(const psg_tir_node *) st = {0};
  bool same = PSGI_VEC_PUSH(ps->ctx, &st, a) && PSGI_VEC_PUSH(ps->ctx, &st, b);
  while (same && st.len) {
    const psg_tir_node *y = st.data[--st.len], *x = st.data[--st.len];
    if (x == y) continue;
    if (x->kind != y->kind || x->dtype != y->dtype || x->nkids != y->nkids || x->flags != y->flags ||
        psgi_tir_is_var_kind(x->kind) || x->kind == PSG_TIR_BUFFER || x->kind == PSG_TIR_STRING_IMM ||
        (x->kind == PSG_TIR_INT_IMM && x->u.int_value != y->u.int_value) ||
        (x->kind == PSG_TIR_FLOAT_IMM && memcmp(&x->u.float_value, &y->u.float_value, sizeof(double))) ||
        (x->kind == PSG_TIR_CALL && x->u.op != y->u.op)) {
      same = false;
      break;
    }
    for (uint32_t i = 0; i < x->nkids && same; i++)
      same = PSGI_VEC_PUSH(ps->ctx, &st, x->kids[i]) && PSGI_VEC_PUSH(ps->ctx, &st, y->kids[i]);
  }
  PSGI_VEC_FREE(ps->ctx, &st);
  return same;
}
/* The extent of range(start, stop) / T.serial(start, stop): TVM's ir_builder
 * takes Analyzer().Simplify(stop - start), so range(0, n) is range(n) and
 * range(2, n + 2) has extent n. */
static psg_tir_node *loop_extent(tparser *ps, const ttoken *t, psg_tir_node *stop, psg_tir_node *start) {
  psg_tir_retain(stop);
  psg_tir_retain(start);
  psg_tir_node *d = psgi_tirp_fold(ps, t, PSG_TIR_SUB, stop, start);
  if (!d) return NULL;
  psg_arith_analyzer *a = NULL;
  psg_tir_node *out = NULL;
  if (BUILD(t, psg_arith_analyzer_create(ps->ctx, &a)) == PSG_OK) BUILD(t, psg_arith_simplify(a, d, &out));
  psg_arith_analyzer_destroy(a);
  psg_tir_release(d);
  return out;
}

/* for TARGETS in ITER: */
static void parse_for(tparser *ps) {
  ttoken at = ps->tok;
  psgi_tirp_advance(ps);
  tframe f = psgi_tirp_new_frame(ps, F_FOR, &at);
  ttoken targets[64];
  size_t nt = 0;
  bool ok = true;
  do {
    if (!is_name(&ps->tok)) {
      ok = !psgi_tirp_expected(ps, "a loop variable name");
      break;
    }
    if (nt == 64) {
      ok = !psgi_tirp_error_at(ps, &ps->tok, "more than 64 loop variables");
      break;
    }
    targets[nt++] = ps->tok;
    psgi_tirp_advance(ps);
  } while (psgi_tirp_accept(ps, ","));
  ok = ok && !psgi_tirp_expect(ps, "in");
  int kind = PSG_TIR_FOR_SERIAL;
  bool grid = false;
  tnode_vec args = {0};
  psg_attrs *ann = NULL;
  ttoken it = ps->tok;
  if (ok && psgi_tirp_accept(ps, "range")) {
  } else if (ok && psgi_tirp_accept(ps, "T") && !psgi_tirp_expect(ps, ".")) {
    it = ps->tok;
    static const struct { const char *name; int kind; } kinds[] = {
        {"serial", PSG_TIR_FOR_SERIAL}, {"parallel", PSG_TIR_FOR_PARALLEL}, {"vectorized", PSG_TIR_FOR_VECTORIZED},
        {"unroll", PSG_TIR_FOR_UNROLLED}, {"grid", -1}};
    size_t i;
    for (i = 0; i < sizeof kinds / sizeof *kinds; i++)
      if (tt_is(&ps->tok, kinds[i].name)) break;
    if (i == sizeof kinds / sizeof *kinds) {
      ok = !psgi_tirp_expected(ps, "range, T.serial, T.parallel, T.vectorized, T.unroll or T.grid");
    } else {
      grid = kinds[i].kind < 0;
      kind = grid ? PSG_TIR_FOR_SERIAL : kinds[i].kind;
      psgi_tirp_advance(ps);
    }
  } else if (ok) {
    ok = !psgi_tirp_expected(ps, "range(...) or T.grid(...)");
  }
  ok = ok && !psgi_tirp_expect(ps, "(");
  while (ok && !tt_is(&ps->tok, ")")) {
    if (!grid && psgi_tirp_kw(ps, "annotations")) {
      ok = !psgi_tirp_repeated(ps, ann, "annotations") && (ann = psgi_tirp_parse_attr_dict(ps, 0)) != NULL;
    } else if (!grid && psgi_tirp_kw(ps, "thread")) {
      ok = ps->tok.kind == TT_STRING || !psgi_tirp_expected(ps, "a thread name string");
      if (ok) psgi_tirp_advance(ps);
    } else {
      psg_tir_node *e = psgi_tirp_parse_expr(ps);
      ok = e && psgi_tirp_push_node(ps, &args, e);
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  ok = ok && !psgi_tirp_expect(ps, ")");
  if (ok && (grid ? args.len != nt : (nt != 1 || args.len < 1 || args.len > 2))) {
    psgi_tirp_error_at(ps, &it, grid ? "T.grid needs one extent per loop variable" : "expected one loop variable and 1 or 2 bounds");
    ok = false;
  }
  for (size_t i = 0; ok && i < nt; i++) {
    psg_tir_node *mn, *ext;
    if (grid || args.len == 1) {
      ext = args.data[grid ? i : 0];
      psg_tir_retain(ext);
      mn = psgi_tirp_int_imm(ps, &at, psg_tir_dtype_is_int(ext->dtype) || psg_tir_dtype_is_uint(ext->dtype) ? ext->dtype
                                                                                                : psg_tir_dtype_int32(), 0);
    } else {
      mn = args.data[0];
      psg_tir_node *stop = args.data[1];
      psg_tir_retain(mn);
      if (mn->kind == PSG_TIR_INT_IMM && stop->kind == PSG_TIR_INT_IMM && mn->dtype == stop->dtype) {
        ext = psgi_tirp_int_imm(ps, &it, mn->dtype, stop->u.int_value - mn->u.int_value);
      } else if (stop->kind == PSG_TIR_ADD && same_expr(ps, stop->kids[0], mn)) {
        ext = stop->kids[1];
        psg_tir_retain(ext);
      } else {
        ext = loop_extent(ps, &it, stop, mn);
      }
    }
    if (mn && ext) psgi_tirp_match_types(ps, &it, &mn, &ext);
    psg_tir_node *var = NULL;
    char name[128];
    psgi_tirp_name_of(&targets[i], name, sizeof name);
    if (mn && ext) BUILD(&targets[i], psg_tir_var_create(ps->ctx, name, ext->dtype, NULL, SP(&targets[i]), &var));
    if (!var || !PSGI_VEC_PUSH(ps->ctx, &ps->loops, ((tloop_info){var, mn, ext, kind, ann}))) {
      psg_tir_release(var);
      psg_tir_release(mn);
      psg_tir_release(ext);
      ok = false;
      break;
    }
    if (ann) psg_attrs_retain(ann);
  }
  psg_attrs_release(ann);
  psgi_tirp_release_all(args.data, args.len);
  PSGI_VEC_FREE(ps->ctx, &args);
  for (size_t i = 0; ok && i < nt; i++)
    if (psgi_tirp_define(ps, &targets[i], SYM_VAR, ps->loops.data[f.lbase + i].var)) ok = false;
  psgi_tirp_open_block(ps, f, ok);
}

static void parse_if_while(tparser *ps, int kind) {
  ttoken at = ps->tok;
  psgi_tirp_advance(ps);
  tframe f = psgi_tirp_new_frame(ps, kind, &at);
  f.a = psgi_tirp_parse_expr(ps);
  psgi_tirp_open_block(ps, f, f.a != NULL);
}

void psgi_tirp_parse_if(tparser *ps) { parse_if_while(ps, F_IF); }

/* with T.allocate(...) as v / T.decl_buffer(...) as A / T.LetStmt(e) as v /
 * T.attr(node, "key", value) / T.Assert(cond, msg) */
static bool parse_allocate_args(tparser *ps, tframe *f, const char *name, const ttoken *nt);
static bool parse_with(tparser *ps) {
  ttoken at = ps->tok;
  psgi_tirp_advance(ps);
  if (psgi_tirp_expect(ps, "T") || psgi_tirp_expect(ps, ".")) return false;
  ttoken what = ps->tok;
  psgi_tirp_advance(ps);
  if (psgi_tirp_expect(ps, "(")) return false;
  tframe f = psgi_tirp_new_frame(ps, F_LET, &at);
  bool ok = true, needs_as = true;
  if (tt_is(&what, "attr")) {
    needs_as = false;
    ok = psgi_tirp_parse_attr_args(ps, &f);
  } else if (tt_is(&what, "launch_thread")) {
    needs_as = false;
    ok = psgi_tirp_parse_with_launch(ps, &f, &what);
  } else if (tt_is(&what, "Assert")) {
    f.kind = F_ASSERT;
    needs_as = false;
    ok = (f.a = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ",") && (f.b = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ")");
  } else if (tt_is(&what, "LetStmt")) {
    f.kind = F_LET;
    ok = (f.b = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ")");
  } else if (tt_is(&what, "allocate")) {
    f.kind = F_ALLOC;
  } else if (tt_is(&what, "decl_buffer")) {
    f.kind = F_DECL;
  } else {
    psgi_tirp_error_at(ps, &what, "unknown scope 'T.%.*s' (expected T.allocate, T.decl_buffer, T.LetStmt, T.attr, T.launch_thread or T.Assert)",
             (int)(what.len > 40 ? 40 : what.len), what.text);
    ok = false;
  }
  if (f.kind == F_DECL || f.kind == F_ALLOC) {
    /* the name comes after: parse the arguments with a placeholder name
     * and rename through the 'as' target */
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    int nest = 1;
    while (ps->tok.kind != TT_EOF && nest > 0) {
      if (tt_is(&ps->tok, "(") || tt_is(&ps->tok, "[") || tt_is(&ps->tok, "{")) nest++;
      if (tt_is(&ps->tok, ")") || tt_is(&ps->tok, "]") || tt_is(&ps->tok, "}")) nest--;
      psgi_tirp_advance(ps);
    }
    char name[128] = "v";
    ttoken as_name = ps->next;
    bool named = tt_is(&ps->tok, "as") && is_name(&ps->next);
    if (named) psgi_tirp_name_of(&ps->next, name, sizeof name);
    tlex_pos p1 = ps->lx.s;
    ttoken t1 = ps->tok, n1 = ps->next;
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
    if (f.kind == F_DECL) ok = (f.a = psgi_tirp_parse_buffer_rest(ps, &what, named ? &as_name : NULL, name)) != NULL, f.alloc = !ps->buf_data_given;
    else ok = parse_allocate_args(ps, &f, name, &what);
    if (ok && (ps->tok.text != t1.text)) ok = !psgi_tirp_expected(ps, "')'");
    ps->lx.s = p1;
    ps->tok = t1;
    ps->next = n1;
  }
  if (ok && needs_as) {
    if (psgi_tirp_expect(ps, "as")) ok = false;
    else if (!is_name(&ps->tok)) ok = !psgi_tirp_expected(ps, "a name after 'as'");
    else {
      ttoken nt = ps->tok;
      psgi_tirp_advance(ps);
      if (f.kind == F_LET) {
        char name[128];
        psgi_tirp_name_of(&nt, name, sizeof name);
        ok = !BUILD(&nt, psg_tir_var_create(ps->ctx, name, f.b->dtype, NULL, SP(&nt), &f.a));
      }
      if (ok) ok = !psgi_tirp_define(ps, &nt, f.kind == F_DECL ? SYM_BUFFER : SYM_VAR, f.a);
    }
  }
  psgi_tirp_open_block(ps, f, ok);
  return ok;
}

/* T.allocate([extents], "dtype", "scope", condition=c, annotations={...}) after
 * its '(': into f (a: the data var named `name`); the dtype may be given as
 * dtype="..." (TVM's keyword). */
static bool parse_allocate_args(tparser *ps, tframe *f, const char *name, const ttoken *nt) {
  tnode_vec ext = {0};
  char scope[64] = "global";
  bool ok = psgi_tirp_parse_tuple(ps, &ext) && !psgi_tirp_expect(ps, ",");
  if (ok) {
    psgi_tirp_kw(ps, "dtype");
    ok = psgi_tirp_string_dtype(ps, &f->dtype);
  }
  if (ok && psgi_tirp_accept(ps, ",") && ps->tok.kind == TT_STRING) {
    size_t n;
    ok = psgi_tirp_unescape(ps, &ps->tok, scope, sizeof scope, false, &n);
    psgi_tirp_advance(ps);
    psgi_tirp_accept(ps, ",");
  }
  while (ok && !tt_is(&ps->tok, ")")) {
    if (psgi_tirp_kw(ps, "condition")) ok = !psgi_tirp_repeated(ps, f->c, "condition") && (f->c = psgi_tirp_parse_expr(ps)) != NULL;
    else if (psgi_tirp_kw(ps, "annotations"))
      ok = !psgi_tirp_repeated(ps, f->ann, "annotations") && (f->ann = psgi_tirp_parse_attr_dict(ps, 0)) != NULL;
    else if (psgi_tirp_kw(ps, "scope") && ps->tok.kind == TT_STRING) {
      size_t n;
      ok = psgi_tirp_unescape(ps, &ps->tok, scope, sizeof scope, false, &n);
      psgi_tirp_advance(ps);
    } else ok = !psgi_tirp_expected(ps, "condition= or annotations=");
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  ok = ok && !psgi_tirp_expect(ps, ")");
  if (ok) ok = !BUILD(nt, psg_tir_pointer_var_create(ps->ctx, name, f->dtype, scope, SP(nt), &f->a));
  f->extents = ext.data;
  f->nextents = ext.len;
  return ok;
}

/* The arguments of `x = T.Var("x", "int32")` (or T.SizeVar), after the
 * "(": a new var named after the target x, as TVM's parser names a Var it
 * has not seen after the name it is assigned to and binds it without a
 * LetStmt. The string name is read and dropped. A new reference or NULL. */
static psg_tir_node *parse_var_ctor(tparser *ps, const ttoken *what, const ttoken *nt, const char *name) {
  bool have_name = false, have_dtype = false;
  psg_tir_dtype dt = 0;
  while (!tt_is(&ps->tok, ")")) {
    bool kw_name = psgi_tirp_kw(ps, "name"), kw_dtype = !kw_name && psgi_tirp_kw(ps, "dtype");
    if (kw_name || (!kw_dtype && !have_name)) {
      if (psgi_tirp_repeated(ps, have_name, "name")) return NULL;
      if (ps->tok.kind != TT_STRING) {
        psgi_tirp_expected(ps, "the var's name as a string");
        return NULL;
      }
      psgi_tirp_advance(ps);
      have_name = true;
    } else {
      if (psgi_tirp_repeated(ps, have_dtype, "dtype") || !psgi_tirp_string_dtype(ps, &dt)) return NULL;
      have_dtype = true;
    }
    if (!psgi_tirp_accept(ps, ",")) break;
  }
  if (psgi_tirp_expect(ps, ")")) return NULL;
  if (!have_name || !have_dtype) {
    psgi_tirp_error_at(ps, what, "T.%.*s needs a name and a dtype: T.%.*s(\"n\", \"int32\")", (int)what->len,
                       what->text, (int)what->len, what->text);
    return NULL;
  }
  psg_tir_node *v = NULL;
  if (tt_is(what, "SizeVar"))
    BUILD(nt, psg_tir_size_var_create(ps->ctx, name, dt, SP(nt), &v));
  else
    BUILD(nt, psg_tir_var_create(ps->ctx, name, dt, NULL, SP(nt), &v));
  return v;
}

/* NAME [: TYPE] = RHS */
static void parse_assign(tparser *ps) {
  ttoken nt = ps->tok;
  char name[128];
  psgi_tirp_name_of(&nt, name, sizeof name);
  psgi_tirp_advance(ps);
  tframe f = psgi_tirp_new_frame(ps, F_LET, &nt);
  if (psgi_tirp_accept(ps, ":")) {
    /* x: T.int32 = e */
    f.a = psgi_tirp_parse_var_annotation(ps, name);
    if (!f.a || psgi_tirp_expect(ps, "=") || !(f.b = psgi_tirp_parse_expr(ps))) goto fail;
    if (f.b->dtype != f.a->dtype) {
      psg_tir_node *r = psgi_tirp_retype_literal(ps, &nt, f.b, f.a->dtype);
      if (r) {
        psg_tir_release(f.b);
        f.b = r;
      }
    }
    if (!psgi_tirp_end_line(ps) || psgi_tirp_define(ps, &nt, SYM_VAR, f.a)) goto fail_noskip;
    psgi_tirp_open_concise(ps, f);
    return;
  }
  if (psgi_tirp_expect(ps, "=")) goto fail;
  if (tt_is(&ps->tok, "T") && tt_is(&ps->next, ".")) {
    /* Look at T.<what>( and come back for a plain expression. */
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    ttoken what = ps->tok;
    bool is_call = tt_is(&ps->next, "(");
    psg_tir_dtype dt = psgi_tir_script_dtype_word(what.text, what.len);
    if (is_call && (tt_is(&what, "Buffer") || tt_is(&what, "match_buffer") || tt_is(&what, "decl_buffer"))) {
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      psg_tir_node *param = NULL;
      if (tt_is(&what, "match_buffer")) {
        if (ps->frames.len != 1) {
          psgi_tirp_error_at(ps, &what, "T.match_buffer belongs at the top of the function body");
          goto fail;
        }
        tsym *s = is_name(&ps->tok) ? psgi_tirp_lookup(ps, ps->tok.text, ps->tok.len) : NULL;
        for (size_t i = 0; s && s->kind == SYM_VAR && i < ps->params.len; i++)
          if (ps->params.data[i] == s->node && psg_tir_dtype_is_handle(s->node->dtype)) param = s->node;
        if (!param) {
          psgi_tirp_expected(ps, "a T.handle parameter of this function");
          goto fail;
        }
        for (size_t i = 0; i < ps->map_params.len; i++)
          if (ps->params.data[ps->map_params.data[i]] == param) {
            psgi_tirp_error_at(ps, &ps->tok, "parameter '%.*s' is matched to a buffer already", (int)ps->tok.len, ps->tok.text);
            goto fail;
          }
        psgi_tirp_advance(ps);
        if (psgi_tirp_expect(ps, ",")) goto fail;
      }
      psg_tir_node *buf = psgi_tirp_parse_buffer_rest(ps, &what, &nt, name);
      if (!buf) goto fail;
      if (!psgi_tirp_end_line(ps) || psgi_tirp_define(ps, &nt, SYM_BUFFER, buf)) {
        psg_tir_release(buf);
        goto fail_noskip;
      }
      if (param) {
        size_t idx = 0;
        while (ps->params.data[idx] != param) idx++;
        if (!PSGI_VEC_PUSH(ps->ctx, &ps->map_params, idx) || !PSGI_VEC_PUSH(ps->ctx, &ps->map_bufs, buf)) {
          psg_tir_release(buf);
          psgi_tirp_oom(ps);
          ps->gave_up = true;
          return;
        }
        psg_tir_retain(buf);
      }
      if (tt_is(&what, "decl_buffer")) {
        f.kind = F_DECL;
        f.a = buf;
        f.alloc = !ps->buf_data_given;
        psgi_tirp_open_concise(ps, f);
        return;
      }
      psg_tir_release(buf);
      return;
    }
    if (is_call && (tt_is(&what, "env_thread") || tt_is(&what, "launch_thread"))) {
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      if (tt_is(&what, "env_thread")) {
        if (!psgi_tirp_parse_env_thread(ps, &nt)) goto fail;
        return;
      }
      if (!psgi_tirp_parse_launch_args(ps, &f, &what, &nt) || !psgi_tirp_end_line(ps)) goto fail;
      psgi_tirp_open_concise(ps, f);
      return;
    }
    if (is_call && tt_is(&what, "allocate")) {
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      f.kind = F_ALLOC;
      if (!parse_allocate_args(ps, &f, name, &what)) goto fail;
      if (!psgi_tirp_end_line(ps) || psgi_tirp_define(ps, &nt, SYM_VAR, f.a)) goto fail_noskip;
      psgi_tirp_open_concise(ps, f);
      return;
    }
    if (is_call && tt_is(&what, "meta_var")) {
      /* x = T.meta_var(e): x names e itself, no LetStmt (TVM's parser
       * returns a meta_var's value unbound) */
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      psg_tir_node *e = psgi_tirp_parse_expr(ps);
      if (!e) goto fail;
      psgi_tirp_accept(ps, ",");
      if (psgi_tirp_expect(ps, ")")) {
        psg_tir_release(e);
        goto fail;
      }
      if (psgi_tirp_end_line(ps)) psgi_tirp_define(ps, &nt, SYM_VAR, e);
      psg_tir_release(e);
      return;
    }
    if (is_call && (tt_is(&what, "Var") || tt_is(&what, "SizeVar"))) {
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      psg_tir_node *v = parse_var_ctor(ps, &what, &nt, name);
      if (!v) goto fail;
      if (psgi_tirp_end_line(ps)) psgi_tirp_define(ps, &nt, SYM_VAR, v);
      psg_tir_release(v);
      return;
    }
    if (is_call && dt) {
      /* n = T.int32() declares a var (T.int32(5) is a typed literal) */
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      if (psg_tir_dtype_is_handle(dt) && ps->tok.kind == TT_STRING) {
        /* x = T.handle("float32"[, "scope"]) declares a pointer var as
         * T.handle() declares a plain one (TVM binds a fresh Var by name) */
        ps->lx.s = p0;
        ps->tok = t0;
        ps->next = n0;
        psg_tir_node *v = psgi_tirp_parse_var_annotation(ps, name);
        if (!v) goto fail;
        if (psgi_tirp_end_line(ps)) psgi_tirp_define(ps, &nt, SYM_VAR, v);
        psg_tir_release(v);
        return;
      }
      if (psg_tir_dtype_is_handle(dt) && !tt_is(&ps->tok, ")")) {
        psgi_tirp_expected(ps, "')' or a dtype string (T.handle(\"float32\"[, \"scope\"]))");
        goto fail;
      }
      bool size_var = false, decl = false;
      if (tt_is(&ps->tok, "is_size_var") && tt_is(&ps->next, "=")) {
        psgi_tirp_kw(ps, "is_size_var");
        size_var = tt_is(&ps->tok, "True");
        psgi_tirp_advance(ps);
        decl = !psgi_tirp_expect(ps, ")");
        if (!decl) goto fail;
      } else {
        decl = psgi_tirp_accept(ps, ")");
      }
      if (decl) {
        psg_tir_node *v = NULL;
        if (size_var) BUILD(&nt, psg_tir_size_var_create(ps->ctx, name, dt, SP(&nt), &v));
        else BUILD(&nt, psg_tir_var_create(ps->ctx, name, dt, NULL, SP(&nt), &v));
        if (!v) goto fail;
        if (psgi_tirp_end_line(ps)) psgi_tirp_define(ps, &nt, SYM_VAR, v);
        psg_tir_release(v);
        return;
      }
    }
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
  }
  f.b = psgi_tirp_parse_expr(ps);
  if (!f.b) goto fail;
  psg_tir_node *var = NULL;
  if (BUILD(&nt, psg_tir_var_create(ps->ctx, name, f.b->dtype, NULL, SP(&nt), &var))) goto fail;
  f.a = var;
  if (!psgi_tirp_end_line(ps) || psgi_tirp_define(ps, &nt, SYM_VAR, f.a)) goto fail_noskip;
  psgi_tirp_open_concise(ps, f);
  return;
fail:
  psgi_tirp_skip_line(ps);
fail_noskip:
  psgi_tirp_free_frame_payload(ps, &f);
  /* later uses of the name stay silent */
  psgi_tirp_define(ps, &nt, SYM_VAR, NULL);
}

/* TVM's BufferStore: a value of the store's lanes but another dtype is
 * cast to it with tvm::cast, which folds a literal and casts a Broadcast's
 * value rather than the vector. A new reference or NULL (an error). */
static psg_tir_node *store_cast(tparser *ps, const ttoken *t, psg_tir_dtype want, psg_tir_node *v) {
  psg_tir_node *r = NULL, *s = NULL;
  if (v->kind == PSG_TIR_BROADCAST) {
    if (!BUILD(t, psg_tir_op_cast(ps->ctx, psg_tir_dtype_with_lanes(want, 1), v->kids[0], SP(t), &s)))
      BUILD(t, psg_tir_broadcast_create(ps->ctx, s, psg_tir_dtype_lanes(want), SP(t), &r));
    psg_tir_release(s);
    return r;
  }
  BUILD(t, psg_tir_op_cast(ps->ctx, want, v, SP(t), &r));
  return r;
}

/* A statement starting with an expression: A[i] = v, T.evaluate(e), a call. */
static void parse_expr_stmt(tparser *ps) {
  ttoken at = ps->tok;
  psg_tir_node *out = NULL;
  if (tt_is(&ps->tok, "T") && tt_is(&ps->next, ".")) {
    tlex_pos p0 = ps->lx.s;
    ttoken t0 = ps->tok, n0 = ps->next;
    psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    if (tt_is(&ps->tok, "evaluate") && tt_is(&ps->next, "(")) {
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      psg_tir_node *e = psgi_tirp_parse_expr(ps);
      if (e && !psgi_tirp_expect(ps, ")")) BUILD(&at, psg_tir_evaluate_create(ps->ctx, e, SP(&at), &out));
      psg_tir_release(e);
      if (!out) psgi_tirp_skip_line(ps);
      else psgi_tirp_end_line(ps);
      psgi_tirp_push_stmt(ps, out);
      return;
    }
    if ((tt_is(&ps->tok, "attr") || tt_is(&ps->tok, "launch_thread")) && tt_is(&ps->next, "(")) {
      /* T.attr(...) / T.launch_thread(v, n) over the rest of the block */
      ttoken what = ps->tok;
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      tframe f = psgi_tirp_new_frame(ps, F_ATTR, &at);
      bool ok = tt_is(&what, "attr") ? psgi_tirp_parse_attr_args(ps, &f) : psgi_tirp_parse_launch_args(ps, &f, &what, NULL);
      if (!ok) psgi_tirp_skip_line(ps);
      if (!ok || !psgi_tirp_end_line(ps)) {
        psgi_tirp_free_frame_payload(ps, &f);
        return;
      }
      psgi_tirp_open_concise(ps, f);
      return;
    }
    if (tt_is(&ps->tok, "func_attr") && tt_is(&ps->next, "(")) {
      ttoken ft = ps->tok;
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      if (ps->frames.len != 1 || ps->func_attrs) {
        psgi_tirp_error_at(ps, &ft, ps->func_attrs ? "T.func_attr given twice" : "T.func_attr belongs at the top of the function body");
        psgi_tirp_skip_line(ps);
        return;
      }
      ps->func_attrs = psgi_tirp_parse_attr_dict(ps, 0);
      if (!ps->func_attrs || psgi_tirp_expect(ps, ")")) psgi_tirp_skip_line(ps);
      else psgi_tirp_end_line(ps);
      return;
    }
    ps->lx.s = p0;
    ps->tok = t0;
    ps->next = n0;
  }
  /* A.vstore([i], v, predicate=p) */
  if (is_name(&ps->tok) && tt_is(&ps->next, ".")) {
    tsym *s = psgi_tirp_lookup(ps, ps->tok.text, ps->tok.len);
    if (s && s->kind == SYM_BUFFER) {
      tlex_pos p0 = ps->lx.s;
      ttoken t0 = ps->tok, n0 = ps->next;
      psgi_tirp_advance(ps);
      psgi_tirp_advance(ps);
      if (psgi_tirp_accept(ps, "vstore")) {
        tnode_vec ix = {0};
        psg_tir_node *value = NULL, *pred = NULL;
        if (!psgi_tirp_expect(ps, "(") && psgi_tirp_parse_vaccess(ps, &ix, &value, &pred) && s->node)
          BUILD(&at, psg_tir_buffer_store_create(ps->ctx, s->node, value, ix.data, ix.len, pred, SP(&at), &out));
        psgi_tirp_release_all(ix.data, ix.len);
        PSGI_VEC_FREE(ps->ctx, &ix);
        psg_tir_release(value);
        psg_tir_release(pred);
        if (!out) psgi_tirp_skip_line(ps);
        else psgi_tirp_end_line(ps);
        psgi_tirp_push_stmt(ps, out);
        return;
      }
      ps->lx.s = p0;
      ps->tok = t0;
      ps->next = n0;
    }
  }
  psg_tir_node *e = psgi_tirp_parse_expr(ps);
  if (e && tt_is(&ps->tok, "=")) {
    ttoken eq = ps->tok;
    psgi_tirp_advance(ps);
    if (e->kind != PSG_TIR_BUFFER_LOAD || (e->flags & PSGI_TIR_HAS_PRED)) {
      psgi_tirp_error_at(ps, &eq, "only a buffer element A[...] can be assigned to here");
    } else {
      psg_tir_node *v = psgi_tirp_parse_expr(ps);
      if (v) {
        psg_tir_dtype want = e->dtype;
        if (v->dtype != want) {
          psg_tir_node *r = psgi_tirp_retype_literal(ps, &eq, v, want);
          if (!r && psg_tir_dtype_lanes(want) > 1 && psg_tir_dtype_lanes(v->dtype) == 1) {
            psg_tir_node *sv = psgi_tirp_retype_literal(ps, &eq, v, psg_tir_dtype_with_lanes(want, 1));
            BUILD(&eq, psg_tir_broadcast_create(ps->ctx, sv ? sv : v, psg_tir_dtype_lanes(want), SP(&eq), &r));
            psg_tir_release(sv);
          }
          if (!r && psg_tir_dtype_lanes(want) == psg_tir_dtype_lanes(v->dtype))
            r = store_cast(ps, &eq, want, v);
          else if (!r && psg_tir_dtype_lanes(want) != psg_tir_dtype_lanes(v->dtype))
            psgi_tirp_error_at(ps, &eq, "incompatible types in a buffer store: the element is %d lanes, the value %d",
                               psg_tir_dtype_lanes(want), psg_tir_dtype_lanes(v->dtype));
          if (r) {
            psg_tir_release(v);
            v = r;
          } else {
            psg_tir_release(v);
            v = NULL;
          }
        }
        if (v)
          BUILD(&at, psg_tir_buffer_store_create(ps->ctx, e->kids[0], v, psgi_tir_indices(e), psgi_tir_num_indices(e),
                                                 NULL, SP(&at), &out));
      }
      psg_tir_release(v);
    }
  } else if (e) {
    BUILD(&at, psg_tir_evaluate_create(ps->ctx, e, SP(&at), &out));
  }
  psg_tir_release(e);
  if (!out) psgi_tirp_skip_line(ps);
  else psgi_tirp_end_line(ps);
  psgi_tirp_push_stmt(ps, out);
}

void psgi_tirp_parse_statement(tparser *ps) {
  ttoken t = ps->tok;
  if (tt_is(&t, "for")) parse_for(ps);
  else if (tt_is(&t, "if")) parse_if_while(ps, F_IF);
  else if (tt_is(&t, "while")) parse_if_while(ps, F_WHILE);
  else if (tt_is(&t, "with")) {
    if (!parse_with(ps) && ps->tok.kind != TT_NEWLINE && ps->tok.kind != TT_INDENT) psgi_tirp_skip_line(ps);
  } else if (tt_is(&t, "assert")) {
    psgi_tirp_advance(ps);
    tframe f = psgi_tirp_new_frame(ps, F_ASSERT, &t);
    if ((f.a = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ",") && (f.b = psgi_tirp_parse_expr(ps)) && psgi_tirp_end_line(ps)) {
      psgi_tirp_open_concise(ps, f);
    } else {
      psgi_tirp_free_frame_payload(ps, &f);
      psgi_tirp_skip_line(ps);
      psgi_tirp_push_stmt(ps, NULL);
    }
  } else if (tt_is(&t, "return")) {
    /* return e: T.evaluate(T.ret(e)), as TVM's parser reads it */
    psgi_tirp_advance(ps);
    psg_tir_node *e = psgi_tirp_parse_expr(ps), *call = NULL, *out = NULL;
    if (e) BUILD(&t, psg_tir_call_create(ps->ctx, e->dtype, "tir.ret", &e, 1, SP(&t), &call));
    if (call) BUILD(&t, psg_tir_evaluate_create(ps->ctx, call, SP(&t), &out));
    psg_tir_release(e);
    psg_tir_release(call);
    if (!out) psgi_tirp_skip_line(ps);
    else psgi_tirp_end_line(ps);
    psgi_tirp_push_stmt(ps, out);
  } else if (tt_is(&t, "pass")) {
    psgi_tirp_advance(ps);
    psgi_tirp_end_line(ps);
  } else if (tt_is(&t, "elif")) {
    psgi_tirp_error_at(ps, &t, "'elif' without an 'if' just before it");
    psgi_tirp_skip_line(ps);
    psgi_tirp_push_stmt(ps, NULL);
  } else if (tt_is(&t, "else")) {
    psgi_tirp_error_at(ps, &t, "'else' without an 'if' just before it");
    psgi_tirp_skip_line(ps);
    psgi_tirp_push_stmt(ps, NULL);
  } else if (is_name(&t) && !tt_is(&t, "T") && (tt_is(&ps->next, "=") || tt_is(&ps->next, ":"))) {
    size_t before = ps->errors;
    parse_assign(ps);
    if ((size_t)ps->errors > before) psgi_tirp_push_stmt(ps, NULL);
  } else {
    parse_expr_stmt(ps);
  }
}
