/* Passage — field accessors of TIR nodes (include/passage/tir.h). Each
 * returns NULL (or 0) when asked of a kind that has no such field, so a
 * binding never reads a wrong payload. Results are borrowed. */
#include "tir/tir_internal.h"

#define IS(n, k) ((n) && (n)->kind == (k))

const char *psg_tir_var_name(const psg_tir_expr *v) {
  return v && psgi_tir_is_var_kind(v->kind) ? v->u.var.name : NULL;
}
psg_tir_type *psg_tir_var_get_type(const psg_tir_expr *v) {
  return v && psgi_tir_is_var_kind(v->kind) ? v->u.var.type : NULL;
}
int64_t psg_tir_int_imm_value(const psg_tir_expr *e) { return IS(e, PSG_TIR_INT_IMM) ? e->u.int_value : 0; }
double psg_tir_float_imm_value(const psg_tir_expr *e) { return IS(e, PSG_TIR_FLOAT_IMM) ? e->u.float_value : 0.0; }
const char *psg_tir_string_imm_value(const psg_tir_expr *e, size_t *len) {
  if (!IS(e, PSG_TIR_STRING_IMM)) {
    if (len) *len = 0;
    return NULL;
  }
  if (len) *len = e->u.str.len;
  return e->u.str.s;
}

psg_tir_expr *psg_tir_get_value(const psg_tir_node *n) {
  if (!n) return NULL;
  switch (n->kind) {
  case PSG_TIR_CAST:
  case PSG_TIR_NOT:
  case PSG_TIR_BROADCAST:
  case PSG_TIR_EVALUATE:
    return n->kids[0];
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT:
    return n->kids[1];
  case PSG_TIR_BUFFER_STORE:
    return n->kids[1];
  case PSG_TIR_ATTR_STMT:
    return n->kids[0];
  default:
    return NULL;
  }
}

static bool is_binary(const psg_tir_node *e) { return e && e->kind >= PSG_TIR_ADD && e->kind <= PSG_TIR_OR; }
psg_tir_expr *psg_tir_get_a(const psg_tir_expr *e) { return is_binary(e) || IS(e, PSG_TIR_NOT) ? e->kids[0] : NULL; }
psg_tir_expr *psg_tir_get_b(const psg_tir_expr *e) { return is_binary(e) ? e->kids[1] : NULL; }

psg_tir_expr *psg_tir_get_cond(const psg_tir_node *n) {
  if (!n) return NULL;
  switch (n->kind) {
  case PSG_TIR_SELECT:
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_ASSERT_STMT:
  case PSG_TIR_WHILE:
    return n->kids[0];
  default:
    return NULL;
  }
}
psg_tir_expr *psg_tir_select_get_true(const psg_tir_expr *e) { return IS(e, PSG_TIR_SELECT) ? e->kids[1] : NULL; }
psg_tir_expr *psg_tir_select_get_false(const psg_tir_expr *e) { return IS(e, PSG_TIR_SELECT) ? e->kids[2] : NULL; }
psg_tir_expr *psg_tir_ramp_get_base(const psg_tir_expr *e) { return IS(e, PSG_TIR_RAMP) ? e->kids[0] : NULL; }
psg_tir_expr *psg_tir_ramp_get_stride(const psg_tir_expr *e) { return IS(e, PSG_TIR_RAMP) ? e->kids[1] : NULL; }
int psg_tir_get_lanes(const psg_tir_expr *e) { return e ? psg_tir_dtype_lanes(e->dtype) : 0; }

psg_tir_expr *psg_tir_get_var(const psg_tir_node *n) {
  return IS(n, PSG_TIR_LET) || IS(n, PSG_TIR_LET_STMT) || IS(n, PSG_TIR_FOR) ? n->kids[0] : NULL;
}
psg_tir_expr *psg_tir_let_get_value(const psg_tir_node *n) {
  return IS(n, PSG_TIR_LET) || IS(n, PSG_TIR_LET_STMT) ? n->kids[1] : NULL;
}

psg_tir_node *psg_tir_get_body(const psg_tir_node *n) {
  if (!n) return NULL;
  switch (n->kind) {
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT:
  case PSG_TIR_ALLOCATE:
  case PSG_TIR_ASSERT_STMT:
    return n->kids[2];
  case PSG_TIR_FOR:
    return n->kids[3];
  case PSG_TIR_DECL_BUFFER:
  case PSG_TIR_ATTR_STMT:
  case PSG_TIR_WHILE:
    return n->kids[1];
  case PSG_TIR_PRIM_FUNC:
    return n->kids[0];
  default:
    return NULL;
  }
}

psg_tir_buffer *psg_tir_get_buffer(const psg_tir_node *n) {
  return IS(n, PSG_TIR_BUFFER_LOAD) || IS(n, PSG_TIR_BUFFER_STORE) || IS(n, PSG_TIR_DECL_BUFFER) ? n->kids[0]
                                                                                                  : NULL;
}
static bool is_access(const psg_tir_node *n) { return IS(n, PSG_TIR_BUFFER_LOAD) || IS(n, PSG_TIR_BUFFER_STORE); }
size_t psg_tir_num_indices(const psg_tir_node *n) { return is_access(n) ? psgi_tir_num_indices(n) : 0; }
psg_tir_expr *psg_tir_get_index(const psg_tir_node *n, size_t i) {
  return is_access(n) && i < psgi_tir_num_indices(n) ? psgi_tir_indices(n)[i] : NULL;
}
psg_tir_expr *psg_tir_get_predicate(const psg_tir_node *n) {
  return is_access(n) && (n->flags & PSGI_TIR_HAS_PRED) ? n->kids[n->nkids - 1] : NULL;
}
psg_tir_expr *psg_tir_buffer_store_get_value(const psg_tir_stmt *s) {
  return IS(s, PSG_TIR_BUFFER_STORE) ? s->kids[1] : NULL;
}

const char *psg_tir_call_op(const psg_tir_expr *c) { return IS(c, PSG_TIR_CALL) ? psgi_tir_ops[c->u.op].name : NULL; }
size_t psg_tir_call_num_args(const psg_tir_expr *c) { return IS(c, PSG_TIR_CALL) ? c->nkids : 0; }
psg_tir_expr *psg_tir_call_get_arg(const psg_tir_expr *c, size_t i) {
  return IS(c, PSG_TIR_CALL) && i < c->nkids ? c->kids[i] : NULL;
}

psg_tir_expr *psg_tir_for_get_min(const psg_tir_stmt *s) { return IS(s, PSG_TIR_FOR) ? s->kids[1] : NULL; }
psg_tir_expr *psg_tir_for_get_extent(const psg_tir_stmt *s) { return IS(s, PSG_TIR_FOR) ? s->kids[2] : NULL; }
int psg_tir_for_kind(const psg_tir_stmt *s) { return IS(s, PSG_TIR_FOR) ? s->u.loop.kind : -1; }
psg_attrs *psg_tir_get_annotations(const psg_tir_stmt *s) {
  return IS(s, PSG_TIR_FOR) ? s->u.loop.annotations : IS(s, PSG_TIR_ALLOCATE) ? s->u.annotations : NULL;
}
psg_tir_stmt *psg_tir_if_get_then(const psg_tir_stmt *s) { return IS(s, PSG_TIR_IF_THEN_ELSE) ? s->kids[1] : NULL; }
psg_tir_stmt *psg_tir_if_get_else(const psg_tir_stmt *s) {
  return IS(s, PSG_TIR_IF_THEN_ELSE) && s->nkids == 3 ? s->kids[2] : NULL;
}
size_t psg_tir_seq_size(const psg_tir_stmt *s) { return IS(s, PSG_TIR_SEQ_STMT) ? s->nkids : 0; }
psg_tir_stmt *psg_tir_seq_get(const psg_tir_stmt *s, size_t i) {
  return IS(s, PSG_TIR_SEQ_STMT) && i < s->nkids ? s->kids[i] : NULL;
}
psg_tir_expr *psg_tir_allocate_get_buffer_var(const psg_tir_stmt *s) { return IS(s, PSG_TIR_ALLOCATE) ? s->kids[0] : NULL; }
size_t psg_tir_allocate_num_extents(const psg_tir_stmt *s) { return IS(s, PSG_TIR_ALLOCATE) ? s->nkids - 3 : 0; }
psg_tir_expr *psg_tir_allocate_get_extent(const psg_tir_stmt *s, size_t i) {
  return IS(s, PSG_TIR_ALLOCATE) && i < s->nkids - 3 ? s->kids[3 + i] : NULL;
}
psg_tir_expr *psg_tir_allocate_get_condition(const psg_tir_stmt *s) { return IS(s, PSG_TIR_ALLOCATE) ? s->kids[1] : NULL; }
psg_tir_node *psg_tir_attr_stmt_get_node(const psg_tir_stmt *s) {
  return IS(s, PSG_TIR_ATTR_STMT) && (s->flags & PSGI_TIR_HAS_NODE) ? s->kids[2] : NULL;
}
const char *psg_tir_attr_stmt_key(const psg_tir_stmt *s) { return IS(s, PSG_TIR_ATTR_STMT) ? s->u.attr_key : NULL; }
psg_tir_expr *psg_tir_attr_stmt_get_value(const psg_tir_stmt *s) { return IS(s, PSG_TIR_ATTR_STMT) ? s->kids[0] : NULL; }
psg_tir_expr *psg_tir_assert_get_message(const psg_tir_stmt *s) { return IS(s, PSG_TIR_ASSERT_STMT) ? s->kids[1] : NULL; }

/* Buffer ---------------------------------------------------------------------- */
#define B(b) IS(b, PSG_TIR_BUFFER)
const char *psg_tir_buffer_name(const psg_tir_buffer *b) { return B(b) ? b->u.buf.name : NULL; }
psg_tir_expr *psg_tir_buffer_get_data(const psg_tir_buffer *b) { return B(b) ? b->kids[0] : NULL; }
size_t psg_tir_buffer_ndim(const psg_tir_buffer *b) { return B(b) ? b->u.buf.ndim : 0; }
psg_tir_expr *psg_tir_buffer_get_shape(const psg_tir_buffer *b, size_t i) {
  return B(b) && i < b->u.buf.ndim ? b->kids[2 + i] : NULL;
}
size_t psg_tir_buffer_num_strides(const psg_tir_buffer *b) { return B(b) ? b->u.buf.nstrides : 0; }
psg_tir_expr *psg_tir_buffer_get_stride(const psg_tir_buffer *b, size_t i) {
  return B(b) && i < b->u.buf.nstrides ? b->kids[2 + b->u.buf.ndim + i] : NULL;
}
psg_tir_expr *psg_tir_buffer_get_elem_offset(const psg_tir_buffer *b) { return B(b) ? b->kids[1] : NULL; }
const char *psg_tir_buffer_scope(const psg_tir_buffer *b) {
  return B(b) ? psg_tir_pointer_type_scope(b->kids[0]->u.var.type) : NULL;
}
size_t psg_tir_buffer_num_axis_separators(const psg_tir_buffer *b) { return B(b) ? b->u.buf.naxis : 0; }
int64_t psg_tir_buffer_axis_separator(const psg_tir_buffer *b, size_t i) {
  return B(b) && i < b->u.buf.naxis ? b->u.buf.axis_separators[i] : -1;
}
int psg_tir_buffer_data_alignment(const psg_tir_buffer *b) { return B(b) ? b->u.buf.data_alignment : 0; }
int psg_tir_buffer_offset_factor(const psg_tir_buffer *b) { return B(b) ? b->u.buf.offset_factor : 0; }
int psg_tir_buffer_type(const psg_tir_buffer *b) { return B(b) ? b->u.buf.buffer_type : 0; }

/* PrimFunc -------------------------------------------------------------------- */
#define F(f) IS(f, PSG_TIR_PRIM_FUNC)
size_t psg_tir_prim_func_num_params(const psg_tir_prim_func *f) { return F(f) ? f->u.func.nparams : 0; }
psg_tir_expr *psg_tir_prim_func_get_param(const psg_tir_prim_func *f, size_t i) {
  return F(f) && i < f->u.func.nparams ? f->kids[1 + i] : NULL;
}
size_t psg_tir_prim_func_buffer_map_size(const psg_tir_prim_func *f) { return F(f) ? f->u.func.nmap : 0; }
psg_tir_expr *psg_tir_prim_func_buffer_map_key(const psg_tir_prim_func *f, size_t i) {
  return F(f) && i < f->u.func.nmap ? f->kids[1 + f->u.func.map_params[i]] : NULL;
}
psg_tir_buffer *psg_tir_prim_func_buffer_map_value(const psg_tir_prim_func *f, size_t i) {
  return F(f) && i < f->u.func.nmap ? f->kids[1 + f->u.func.nparams + i] : NULL;
}
psg_tir_buffer *psg_tir_prim_func_get_param_buffer(const psg_tir_prim_func *f, const psg_tir_expr *param) {
  if (!F(f)) return NULL;
  for (uint32_t i = 0; i < f->u.func.nmap; i++)
    if (f->kids[1 + f->u.func.map_params[i]] == param) return f->kids[1 + f->u.func.nparams + i];
  return NULL;
}
psg_tir_type *psg_tir_prim_func_get_ret_type(const psg_tir_prim_func *f) { return F(f) ? f->u.func.ret_type : NULL; }
psg_attrs *psg_tir_prim_func_get_attrs(const psg_tir_prim_func *f) { return F(f) ? f->u.func.attrs : NULL; }
