/* Passage — the TVMScript parser's private interface, shared by its parts:
 * tir_parse.c (functions, modules, the entry points), tir_parse_base.c
 * (tokens, errors, scopes), tir_parse_expr.c, tir_parse_call.c,
 * tir_parse_attr.c, tir_parse_buffer.c, tir_parse_stmt.c, tir_parse_block.c. */
#ifndef PSG_TIR_PARSE_INTERNAL_H
#define PSG_TIR_PARSE_INTERNAL_H

#include "passage/tir_op.h"
#include "text/text_internal.h"
#include "text/tir_lex.h"
#include "text/tir_script_internal.h"
#include "text/tir_script_env.h"

enum { MAX_DEPTH = 200, MAX_ERRORS = 20 };

enum { SYM_VAR, SYM_BUFFER };
typedef struct tsym {
  int kind;
  psg_tir_node *node; /* NULL: poisoned by an error (uses stay silent) */
  struct tsym *prev;
} tsym;

typedef struct tundo_entry {
  const char *name;
  tsym *prev;
} tundo_entry;

enum { F_FUNC, F_FOR, F_IF, F_ELSE, F_WHILE, F_LET, F_ALLOC, F_DECL, F_ATTR, F_ASSERT, F_SKIP };

typedef struct tframe {
  int kind;
  bool concise;   /* closed with the enclosing indented block */
  bool bad;       /* its header failed: the body is parsed, nothing built */
  bool alloc;     /* F_DECL without data=: an Allocate of its data var wraps it */
  bool elif;      /* F_ELSE of an `elif`: its body is the one nested if, closed with it */
  size_t mark;    /* scope undo mark */
  size_t base;    /* its statements: ps->stmts[base..] */
  size_t lbase;   /* F_FOR: its loops: ps->loops[lbase..] */
  psg_tir_node *a, *b, *c; /* payload, owned: see close_frame */
  psg_tir_node **extents; size_t nextents; /* F_ALLOC */
  psg_tir_dtype dtype;
  const char *key; /* F_ATTR */
  psg_attrs *ann;  /* F_ALLOC */
  ttoken at;
} tframe;

typedef struct tloop_info {
  psg_tir_node *var, *min, *extent;
  int kind;
  psg_attrs *ann;
} tloop_info;

typedef struct tparser {
  psg_ctx *ctx;
  const char *file;
  tlexer lx;
  ttoken tok, next;
  int depth, errors;
  size_t dmark;
  bool gave_up, oom;
  psgi_map scope; /* name (interned) -> tsym* */
  PSGI_VEC(tundo_entry) undo;
  psgi_arena arena;
  PSGI_VEC(tframe) frames;
  PSGI_VEC(psg_tir_node *) stmts; /* NULL entries: failed statements */
  PSGI_VEC(tloop_info) loops;
  /* the function being parsed */
  PSGI_VEC(psg_tir_node *) params;
  PSGI_VEC(size_t) map_params;
  PSGI_VEC(psg_tir_node *) map_bufs;
  psg_attrs *func_attrs;
  PSGI_VEC(psg_tir_node *) owned; /* nodes the symbols hold */
  bool buf_data_given; /* the last buffer read had data= */
  psg_span sp;         /* scratch: the span SP() hands a constructor */
  psg_tir_script_env *env; /* names from outside the text, or NULL (tir_script_env.c) */
} tparser;

typedef PSGI_VEC(psg_tir_node *) tnode_vec;

/* Tokens and errors (tir_parse_base.c) ------------------------------------- */
void psgi_tirp_advance(tparser *ps);
psg_status psgi_tirp_error_at(tparser *ps, const ttoken *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "expected WHAT, found <the current token>" */
psg_status psgi_tirp_expected(tparser *ps, const char *what);
bool psgi_tirp_accept(tparser *ps, const char *s);
psg_status psgi_tirp_expect(tparser *ps, const char *s);
static inline bool is_name(const ttoken *t) { return t->kind == TT_NAME; }
/* A constructor's failure `st`: its diagnostics since diag_mark get t's location. */
psg_status psgi_tirp_located(tparser *ps, const ttoken *t, size_t diag_mark, psg_status st);
/* (the mark is taken before the call runs: a comma sequences them) */
#define BUILD(t, call) (ps->dmark = psg_ctx_diag_count(ps->ctx), psgi_tirp_located(ps, (t), ps->dmark, (call)))
/* The span of token t (file:line:col of the text) for the node a
 * constructor builds: every parsed statement and expression carries one, so
 * interpreter and verifier errors point into the source. Spans take no part
 * in structural equality or hashing. Valid until the next SP(). */
static inline const psg_span *psgi_tirp_span(tparser *ps, const ttoken *t) {
  ps->sp = (psg_span){ps->file, t->line, t->col, t->line, t->col + (int32_t)t->len, NULL};
  return &ps->sp;
}
#define SP(t) psgi_tirp_span(ps, (t))
/* Out of memory: recorded once; the parse stops and reports PSG_ERR_NOMEM. */
void psgi_tirp_oom(tparser *ps);
/* Skips to the end of the current line (error recovery). */
void psgi_tirp_skip_line(tparser *ps);
/* NEWLINE (or the end of the block) after a statement, else an error. */
bool psgi_tirp_end_line(tparser *ps);

/* Scopes (tir_parse_base.c) ------------------------------------------------- */
tsym *psgi_tirp_lookup(tparser *ps, const char *s, size_t n);
/* Binds t's name to node (retained until the end of the parse). */
psg_status psgi_tirp_define(tparser *ps, const ttoken *t, int kind, psg_tir_node *node);
void psgi_tirp_undo_to(tparser *ps, size_t mark);

/* Small readers (tir_parse_base.c) ------------------------------------------ */
void psgi_tirp_release_all(psg_tir_node **v, size_t n);
/* Appends e to v, or releases it (out of memory). */
bool psgi_tirp_push_node(tparser *ps, tnode_vec *v, psg_tir_node *e);
/* A string token's text with its escapes resolved (tir_parse_base.c). */
bool psgi_tirp_unescape(tparser *ps, const ttoken *t, char *buf, size_t cap, bool allow_nul, size_t *len);
/* A dtype given as a string token ("float32"). */
bool psgi_tirp_string_dtype(tparser *ps, psg_tir_dtype *out);
bool psgi_tirp_int_literal(tparser *ps, int64_t *out);
/* `name=` next: consumed, true. */
bool psgi_tirp_kw(tparser *ps, const char *name);
/* A keyword given twice: an error (true). */
bool psgi_tirp_repeated(tparser *ps, bool already, const char *name);
void psgi_tirp_name_of(const ttoken *t, char *buf, size_t n);

/* Expressions (tir_parse_expr.c, tir_parse_call.c) -------------------------- */
psg_tir_node *psgi_tirp_parse_expr(tparser *ps);
psg_tir_node *psgi_tirp_int_imm(tparser *ps, const ttoken *t, psg_tir_dtype dt, int64_t v);
psg_tir_node *psgi_tirp_float_imm(tparser *ps, const ttoken *t, psg_tir_dtype dt, double v);
/* A literal retyped to dt, or NULL. */
psg_tir_node *psgi_tirp_retype_literal(tparser *ps, const ttoken *t, psg_tir_node *e, psg_tir_dtype dt);
void psgi_tirp_match_types(tparser *ps, const ttoken *t, psg_tir_node **a, psg_tir_node **b);
/* A binary node of a and b (released), built as written: the node
 * classes (T.Add(a, b)), comparisons, `and`, `or`. */
psg_tir_node *psgi_tirp_binary(tparser *ps, const ttoken *t, int kind, psg_tir_node *a, psg_tir_node *b);
/* TVM's operator of a and b (released): `a + b` of TVMScript, which TVM
 * evaluates with PrimExpr's Python operators, and T.min, T.floordiv, ...:
 * literals typed as in match_types, then psg_tir_op_binary (dtypes matched,
 * constants folded: T.int32(1) + 2 is 3, x + 0 is x). */
psg_tir_node *psgi_tirp_fold(tparser *ps, const ttoken *t, int kind, psg_tir_node *a, psg_tir_node *b);
/* "a, b, ...)" after a '(' */
bool psgi_tirp_parse_args(tparser *ps, tnode_vec *out);
bool psgi_tirp_parse_vaccess(tparser *ps, tnode_vec *ix, psg_tir_node **value, psg_tir_node **pred);
/* T.<nt>(...) with the '(' current. */
psg_tir_node *psgi_tirp_parse_t_call(tparser *ps, const ttoken *nt);

/* Attributes, buffers, annotations (tir_parse_attr.c, tir_parse_buffer.c) -- */
psg_attrs *psgi_tirp_parse_attr_dict(tparser *ps, int depth);
bool psgi_tirp_parse_tuple(tparser *ps, tnode_vec *out);
/* `at` locates its errors; the buffer's span is `name_tok` (its name where
 * the text gives one, as `A` of `A = T.match_buffer(...)`), else `at`. */
psg_tir_node *psgi_tirp_parse_buffer_rest(tparser *ps, const ttoken *at, const ttoken *name_tok, const char *name);
psg_tir_node *psgi_tirp_parse_var_annotation(tparser *ps, const char *name);

/* Statements and frames (tir_parse_stmt.c, tir_parse_block.c) ---------------- */
/* `if COND:` or `elif COND:` at the current token: opens the F_IF frame. */
void psgi_tirp_parse_if(tparser *ps);
void psgi_tirp_parse_statement(tparser *ps);
void psgi_tirp_push_stmt(tparser *ps, psg_tir_node *s);
tframe psgi_tirp_new_frame(tparser *ps, int kind, const ttoken *at);
bool psgi_tirp_push_frame(tparser *ps, tframe f);
void psgi_tirp_free_frame_payload(tparser *ps, tframe *f);
/* ':' NEWLINE INDENT after a block header, then f is pushed. */
void psgi_tirp_open_block(tparser *ps, tframe f, bool ok);
/* f's body is the rest of the enclosing block. */
void psgi_tirp_open_concise(tparser *ps, tframe f);
/* A function body up to its DEDENT (the F_FUNC frame is pushed). */
psg_tir_node *psgi_tirp_parse_body(tparser *ps);

/* tir_parse_thread.c: T.attr's arguments (after its '('), T.launch_thread's
 * (after its '('; `name` defines the thread var of a tag string, or NULL),
 * `with T.launch_thread(...) [as v]`, `v = T.env_thread("tag")` (after its '('). */
bool psgi_tirp_parse_attr_args(tparser *ps, tframe *f);
bool psgi_tirp_parse_launch_args(tparser *ps, tframe *f, const ttoken *at, const ttoken *name);
bool psgi_tirp_parse_with_launch(tparser *ps, tframe *f, const ttoken *at);
bool psgi_tirp_parse_env_thread(tparser *ps, const ttoken *name);

#endif
