/* Passage — internals of the Relay text parser, shared by its files
 * (relay_parse_*.c, parser.c): the parser state and the functions one part
 * calls in another. */
#ifndef PSG_RELAY_PARSE_INTERNAL_H
#define PSG_RELAY_PARSE_INTERNAL_H

#include "ir/op_table.h"
#include "text/lexer.h"
#include "text/text_internal.h"
#include "tir/tir_internal.h"

enum { MAX_DEPTH = 256, MAX_ERRORS = 20 };

/* A name in scope: a local (%x) bound to an expression. Scopes are undone by
 * replaying an undo log. The log keeps entry indexes, not pointers: the map's
 * dense entry array moves when it grows. */
typedef struct binding {
  psg_expr *expr;     /* NULL: poisoned by an earlier error (uses stay silent) */
  size_t undo_index;  /* its position in the undo log: >= a scope's mark means
                         "defined in that scope", an O(1) redefinition check */
} binding;

typedef struct undo {
  size_t slot; /* index into scope.entries */
  binding *prev;
} undo;

/* A PrimFunc of a mixed text: a TVMScript block the Relay lexer skips. */
typedef struct prim_block {
  const char *start, *end; /* its "@T.prim_func" line .. the end of its last line */
  size_t def_index;        /* its entry in the module's defs */
  token at;                /* the decorator, for errors */
} prim_block;

typedef PSGI_VEC(psgi_module_entry) entry_vec;

/* A type parameter in scope (`def @f[A]`, `fn [A]`, `fn [A](A) -> A`). */
typedef struct type_binding {
  const char *name; /* in the source */
  size_t len;
  const psg_type *tv;
} type_binding;

typedef struct parser {
  psg_ctx *ctx;
  const char *file;
  const char *src;
  lexer lx;
  token tok, next; /* current and one-token lookahead */
  int depth;
  int nest; /* brackets opened and not closed among consumed tokens */
  int errors;
  bool gave_up;
  bool lex_error_reported;
  psgi_map scope;  /* name (in source) -> binding* */
  psgi_map free_vars; /* name -> Var (retained): `free_var %x: T;` */
  PSGI_VEC(type_binding) tyscope; /* type parameters in scope, innermost last */
  PSGI_VEC(undo) undo_log;
  psgi_arena arena;
  psgi_map globals; /* name -> GlobalVar (one node per name, shared) */
  PSGI_VEC(token) global_uses;
  psgi_tensor_vec meta;
  PSGI_VEC(prim_block) prims;
  psgi_map type_names; /* ADT name -> its GlobalTypeVar (const psg_type *) */
  psgi_map declared_types; /* names the text defines with `type NAME` (a pre-scan), or init's */
  psgi_map ctors;      /* constructor name -> Constructor (retained) */
  PSGI_VEC(psg_type_data *) type_defs; /* the module's, init's first (retained) */
  psgi_map call_attrs; /* a call's attribute text -> its psg_attrs (retained), shared by equal calls */
} parser;


typedef PSGI_VEC(psg_expr *) expr_vec;

/* relay_parse_base.c */
void psgi_rp_advance(parser *ps);
psg_status psgi_rp_error_at(parser *ps, const token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *psgi_rp_tok_desc(const token *t, char *buf, size_t n);
bool psgi_rp_expect(parser *ps, const char *what, const char *context);
psg_span psgi_rp_span_of(parser *ps, const token *t);
bool psgi_rp_is_prim_start(const parser *ps, const token *t);
bool psgi_rp_at_global_start(const parser *ps);
size_t psgi_rp_scope_mark(parser *ps);
void psgi_rp_scope_restore(parser *ps, size_t mark);
bool psgi_rp_define(parser *ps, const token *name, psg_expr *e, size_t mark, bool allow_shadow);
psg_status psgi_rp_define_free(parser *ps, const token *name, psg_expr *var);
/* relay_parse_type.c */
psg_status psgi_rp_parse_type_params(parser *ps, const psg_type **tparams, int *n);
psg_status psgi_rp_parse_type(parser *ps, const psg_type **out);
psg_status psgi_rp_parse_annotation(parser *ps, const psg_type **out);
/* relay_parse_literal.c */
psg_status psgi_rp_parse_scalar(parser *ps, psg_expr **out);
const char *psgi_rp_attr_key(parser *ps, const token *t);
psg_status psgi_rp_note_key(parser *ps, psgi_map *seen, const char *k, const token *at);
psg_status psgi_rp_parse_attr_dict(parser *ps, psg_attrs **out);
psg_status psgi_rp_parse_attr_value(parser *ps, int kind, psg_attr **out);
/* relay_parse_expr.c */
psg_status psgi_rp_global_ref(parser *ps, const token *t, psg_expr **out);
psg_status psgi_rp_parse_params(parser *ps, size_t mark, expr_vec *params, psg_attrs **attrs);
psg_status psgi_rp_parse_binop(parser *ps, psg_expr **out);
/* relay_parse_seq.c */
psg_status psgi_rp_parse_block(parser *ps, psg_expr **out);
psg_status psgi_rp_parse_expr(parser *ps, psg_expr **out);
/* relay_parse_adt.c */
psg_status psgi_rp_parse_adt_type(parser *ps, const psg_type **out);
/* Records every `type NAME` of the text (types may be used before their
 * definition); whether `t` names one. */
psg_status psgi_rp_scan_type_names(parser *ps, const char *text, size_t len);
bool psgi_rp_is_type_name(const parser *ps, const token *t);
psg_status psgi_rp_parse_type_def(parser *ps);
psg_status psgi_rp_add_init_type_defs(parser *ps, const psg_module *init);
psg_expr *psgi_rp_lookup_ctor(const parser *ps, const token *t);
psg_status psgi_rp_parse_ref(parser *ps, psg_expr **out);
psg_status psgi_rp_parse_match(parser *ps, psg_expr **out);
/* relay_parse_prim.c */
psg_status psgi_rp_skip_prim_block(parser *ps, entry_vec *defs);
psg_status psgi_rp_parse_prim_blocks(parser *ps, psgi_module_entry *defs, const char *text_end);

#endif
