/* Passage — TVMScript parser (tir_parse.c): the frames of block
 * statements and the loop over a function body that opens and closes them
 * by indentation, without recursion. */
#include "text/tir_parse_internal.h"

void psgi_tirp_push_stmt(tparser *ps, psg_tir_node *s) {
  if (!PSGI_VEC_PUSH(ps->ctx, &ps->stmts, s)) {
    psg_tir_release(s);
    psgi_tirp_oom(ps);
    ps->gave_up = true;
  }
}

static tframe *top(tparser *ps) { return &ps->frames.data[ps->frames.len - 1]; }

tframe psgi_tirp_new_frame(tparser *ps, int kind, const ttoken *at) {
  tframe f;
  memset(&f, 0, sizeof f);
  f.kind = kind;
  f.mark = ps->undo.len;
  f.base = ps->stmts.len;
  f.lbase = ps->loops.len;
  f.at = *at;
  return f;
}

void psgi_tirp_free_frame_payload(tparser *ps, tframe *f);
bool psgi_tirp_push_frame(tparser *ps, tframe f) {
  if (PSGI_VEC_PUSH(ps->ctx, &ps->frames, f)) return true;
  psgi_tirp_free_frame_payload(ps, &f);
  psgi_tirp_oom(ps);
  ps->gave_up = true;
  return false;
}

void psgi_tirp_free_frame_payload(tparser *ps, tframe *f) {
  psg_tir_release(f->a);
  psg_tir_release(f->b);
  psg_tir_release(f->c);
  psgi_tirp_release_all(f->extents, f->nextents);
  psgi_free(ps->ctx, f->extents);
  psg_attrs_release(f->ann);
  f->a = f->b = f->c = NULL;
  f->extents = NULL;
  f->nextents = 0;
  f->ann = NULL;
}

/* The body of the top frame (NULL after an error in it), its statements
 * popped. */
static psg_tir_node *take_body(tparser *ps, tframe *f) {
  size_t n = ps->stmts.len - f->base;
  psg_tir_node **v = n ? ps->stmts.data + f->base : NULL, *out = NULL;
  bool ok = !f->bad;
  for (size_t i = 0; i < n; i++)
    if (!v[i]) ok = false;
  if (ok && n == 0 && f->concise) {
    /* `x: T.int32 = e` last in its block: TVM's builder gives the binding
     * the body T.evaluate(0) (its AsStmt of no statements). */
    psg_tir_expr *zero = NULL;
    if (!BUILD(&f->at, psg_tir_int_imm_create(ps->ctx, psg_tir_dtype_int32(), 0, SP(&f->at), &zero)))
      BUILD(&f->at, psg_tir_evaluate_create(ps->ctx, zero, SP(&f->at), &out));
    psg_tir_release(zero);
    ps->stmts.len = f->base;
    return out;
  }
  if (ok && n == 0) {
    psgi_tirp_error_at(ps, &f->at, f->kind == F_FUNC ? "the function body has no statement" : "expected a statement in this block");
    ok = false;
  }
  if (ok && n == 1) {
    out = v[0];
    psg_tir_retain(out);
  } else if (ok) {
    BUILD(&f->at, psg_tir_seq_stmt_create(ps->ctx, v, n, SP(&f->at), &out));
  }
  psgi_tirp_release_all(v, n);
  ps->stmts.len = f->base;
  return out;
}

/* Closes the top frame: its statement (new reference; NULL on error). */
static psg_tir_node *close_frame(tparser *ps) {
  tframe f = *top(ps);
  ps->frames.len--;
  psg_tir_node *body = take_body(ps, &f), *out = NULL;
  const ttoken *t = &f.at;
  if (body) {
    switch (f.kind) {
    case F_FUNC:
    case F_SKIP: out = body; body = NULL; break;
    case F_FOR:
      out = body;
      body = NULL;
      for (size_t i = ps->loops.len; i-- > f.lbase && out;) {
        tloop_info *l = &ps->loops.data[i];
        psg_tir_node *inner = out;
        out = NULL;
        BUILD(t, psg_tir_for_create(ps->ctx, l->var, l->min, l->extent, l->kind, inner, l->ann, SP(t), &out));
        psg_tir_release(inner);
      }
      break;
    case F_IF: BUILD(t, psg_tir_if_then_else_create(ps->ctx, f.a, body, NULL, SP(t), &out)); break;
    case F_ELSE: BUILD(t, psg_tir_if_then_else_create(ps->ctx, f.a, f.b, body, SP(t), &out)); break;
    case F_WHILE: BUILD(t, psg_tir_while_create(ps->ctx, f.a, body, SP(t), &out)); break;
    case F_LET: BUILD(t, psg_tir_let_stmt_create(ps->ctx, f.a, f.b, body, SP(t), &out)); break;
    case F_ALLOC:
      BUILD(t, psg_tir_allocate_create(ps->ctx, f.a, f.dtype, f.extents, f.nextents, f.c, body, f.ann, SP(t), &out));
      break;
    case F_DECL:
      BUILD(t, psg_tir_decl_buffer_create(ps->ctx, f.a, body, SP(t), &out));
      if (out && f.alloc) {
        /* TVM's DeclBufferFrame: a buffer declared without data= owns its
         * memory, an Allocate of its data var over the DeclBuffer */
        psg_tir_node *decl = out, *b = f.a, *one = NULL;
        out = NULL;
        /* a rank-0 buffer: TVM allocates it with no extents, one element;
         * our Allocate has at least one extent, so [1] */
        if (!b->u.buf.ndim) BUILD(t, psg_tir_int_imm_create(ps->ctx, psg_tir_dtype_int32(), 1, SP(t), &one));
        if (b->u.buf.ndim || one)
          BUILD(t, psg_tir_allocate_create(ps->ctx, b->kids[0], b->dtype, one ? &one : b->kids + 2,
                                           one ? 1 : b->u.buf.ndim, NULL, decl, NULL, SP(t), &out));
        psg_tir_release(one);
        psg_tir_release(decl);
      }
      break;
    case F_ATTR: BUILD(t, psg_tir_attr_stmt_create(ps->ctx, f.c, f.key, f.a, body, SP(t), &out)); break;
    case F_ASSERT: BUILD(t, psg_tir_assert_stmt_create(ps->ctx, f.a, f.b, body, SP(t), &out)); break;
    }
  }
  psg_tir_release(body);
  for (size_t i = f.lbase; i < ps->loops.len; i++) {
    psg_tir_release(ps->loops.data[i].var);
    psg_tir_release(ps->loops.data[i].min);
    psg_tir_release(ps->loops.data[i].extent);
    psg_attrs_release(ps->loops.data[i].ann);
  }
  ps->loops.len = f.lbase;
  psgi_tirp_free_frame_payload(ps, &f);
  psgi_tirp_undo_to(ps, f.mark);
  return out;
}

/* ':' NEWLINE INDENT after a block header, then the tframe is pushed. On an
 * error the line is skipped and, if an indented block follows, it is
 * parsed into nothing. `ok` false: the header failed already. */
void psgi_tirp_open_block(tparser *ps, tframe f, bool ok) {
  bool at_next_line = false;
  if (ok && !psgi_tirp_expect(ps, ":") && ps->tok.kind == TT_NEWLINE) {
    psgi_tirp_advance(ps);
    if (ps->tok.kind == TT_INDENT) {
      psgi_tirp_advance(ps);
      psgi_tirp_push_frame(ps, f);
      return;
    }
    psgi_tirp_expected(ps, "an indented block");
    at_next_line = true; /* the next statement is parsed as usual */
  } else if (ok) {
    if (!ps->errors || ps->tok.kind != TT_NEWLINE) psgi_tirp_expected(ps, "a new line after ':' (a block on its own lines)");
  }
  if (!at_next_line) psgi_tirp_skip_line(ps);
  psgi_tirp_free_frame_payload(ps, &f);
  psgi_tirp_undo_to(ps, f.mark);
  for (size_t i = f.lbase; i < ps->loops.len; i++) {
    psg_tir_release(ps->loops.data[i].var);
    psg_tir_release(ps->loops.data[i].min);
    psg_tir_release(ps->loops.data[i].extent);
    psg_attrs_release(ps->loops.data[i].ann);
  }
  ps->loops.len = f.lbase;
  if (ps->tok.kind == TT_INDENT) {
    psgi_tirp_advance(ps);
    tframe skip = psgi_tirp_new_frame(ps, F_SKIP, &f.at);
    skip.bad = true;
    psgi_tirp_push_frame(ps, skip);
  }
}

/* A concise frame: the rest of the enclosing block is its body. */
void psgi_tirp_open_concise(tparser *ps, tframe f) {
  f.concise = true;
  f.base = ps->stmts.len;
  psgi_tirp_push_frame(ps, f);
}
/* The statements of a function body up to its closing DEDENT (the F_FUNC
 * tframe is on the stack); the body or NULL. */
psg_tir_node *psgi_tirp_parse_body(tparser *ps) {
  for (;;) {
    if (ps->gave_up) return NULL;
    int k = ps->tok.kind;
    if (k == TT_NEWLINE) {
      psgi_tirp_advance(ps);
      continue;
    }
    if (k == TT_ERROR) {
      psgi_tirp_error_at(ps, &ps->tok, "lexer");
      psgi_tirp_advance(ps);
      continue;
    }
    if (k == TT_DEDENT || k == TT_EOF) {
      while (ps->frames.len && top(ps)->concise) psgi_tirp_push_stmt(ps, close_frame(ps));
      if (!ps->frames.len) return NULL;
      if (k == TT_DEDENT) psgi_tirp_advance(ps);
      tframe *f = top(ps);
      if (f->kind == F_IF && tt_is(&ps->tok, "elif")) {
        /* `elif c:` is `else:` holding one `if c:` (TVM's parser reads it
         * so): this frame becomes that else, closed with the nested if. */
        psg_tir_node *then = take_body(ps, f);
        f->kind = F_ELSE;
        f->b = then;
        f->bad = f->bad || !then;
        f->elif = true;
        f->base = ps->stmts.len;
        f->at = ps->tok;
        psgi_tirp_parse_if(ps);
        continue;
      }
      if (f->kind == F_IF && tt_is(&ps->tok, "else")) {
        ttoken et = ps->tok;
        psg_tir_node *then = take_body(ps, f);
        f->kind = F_ELSE;
        f->b = then;
        f->bad = f->bad || !then;
        psgi_tirp_advance(ps);
        if (!psgi_tirp_expect(ps, ":") && ps->tok.kind == TT_NEWLINE) {
          psgi_tirp_advance(ps);
          if (ps->tok.kind == TT_INDENT) {
            psgi_tirp_advance(ps);
            f->base = ps->stmts.len;
            f->at = et;
            continue;
          }
        }
        psgi_tirp_expected(ps, "an indented block after 'else:'");
        f->bad = true;
        continue;
      }
      bool is_func = f->kind == F_FUNC;
      psg_tir_node *s = close_frame(ps);
      if (is_func) return s;
      psgi_tirp_push_stmt(ps, s);
      while (ps->frames.len && top(ps)->elif) psgi_tirp_push_stmt(ps, close_frame(ps));
      continue;
    }
    if (k == TT_INDENT) {
      psgi_tirp_error_at(ps, &ps->tok, "unexpected indent");
      psgi_tirp_advance(ps);
      tframe skip = psgi_tirp_new_frame(ps, F_SKIP, &ps->tok);
      skip.bad = true;
      psgi_tirp_push_frame(ps, skip);
      continue;
    }
    psgi_tirp_parse_statement(ps);
  }
}
