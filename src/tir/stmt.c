/* Passage — Stmt constructors (spec/tir.md §2): For, BufferStore,
 * IfThenElse, Evaluate, LetStmt, SeqStmt, Allocate, DeclBuffer, AttrStmt,
 * AssertStmt, While. Each checks its operands' kinds and dtypes. */
#include "tir/tir_internal.h"

#define DT(t, b) psgi_tir_dtype_name((t), &(b))

static psg_status need_stmt(psg_ctx *ctx, const psg_span *span, int kind, const psg_tir_node *n,
                            const char *what) {
  if (!n) return psgi_tir_missing(ctx, span, kind, what);
  if (!psgi_tir_is_stmt_kind(n->kind))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "%s must be a statement, not %s", what,
                         psg_tir_kind_name(n->kind));
  return PSG_OK;
}

/* A scalar bool expression. */
static psg_status need_cond(psg_ctx *ctx, const psg_span *span, int kind, const psg_tir_node *n) {
  psgi_tir_dtype_name_buf b;
  psg_status st = psgi_tir_need_expr(ctx, span, kind, n, "the condition");
  if (st) return st;
  if (n->dtype != psg_tir_dtype_bool())
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "the condition must be a scalar bool, not %s",
                         DT(n->dtype, b));
  return PSG_OK;
}

static psg_status make(psg_ctx *ctx, int kind, psg_tir_node *const *kids, size_t n, const psg_span *span,
                       psg_tir_stmt **out) {
  psg_status st = psgi_tir_new(ctx, kind, n, span, out);
  if (st) return st;
  for (size_t i = 0; i < n; i++) psgi_tir_set_kid(*out, i, kids[i]);
  return PSG_OK;
}

psg_status psg_tir_for_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *min, psg_tir_expr *extent,
                              int for_kind, psg_tir_stmt *body, psg_attrs *annotations,
                              const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_FOR;
  psgi_tir_dtype_name_buf b1, b2;
  psg_status st;
  if (!var) return psgi_tir_missing(ctx, span, K, "the loop var");
  if (!psgi_tir_is_var_kind(var->kind))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "the loop var must be a Var, not %s",
                         psg_tir_kind_name(var->kind));
  if ((st = psgi_tir_need_expr(ctx, span, K, min, "min")) || (st = psgi_tir_need_expr(ctx, span, K, extent, "extent")) ||
      (st = need_stmt(ctx, span, K, body, "the body")))
    return st;
  if (!(psg_tir_dtype_is_int(var->dtype) || psg_tir_dtype_is_uint(var->dtype)) || psg_tir_dtype_lanes(var->dtype) != 1)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "loop var '%s' must be a scalar integer, not %s",
                         var->u.var.name, DT(var->dtype, b1));
  if (min->dtype != var->dtype || extent->dtype != var->dtype)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "loop var '%s' is %s but min is %s and extent %s",
                         var->u.var.name, DT(var->dtype, b1), DT(min->dtype, b2),
                         psgi_tir_dtype_name(extent->dtype, &(psgi_tir_dtype_name_buf){{0}}));
  if (for_kind < PSG_TIR_FOR_SERIAL || for_kind > PSG_TIR_FOR_UNROLLED)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "unsupported loop kind %d", for_kind);
  psg_tir_node *kids[4] = {var, min, extent, body};
  if ((st = make(ctx, K, kids, 4, span, out)) != PSG_OK) return st;
  (*out)->u.loop.kind = for_kind;
  (*out)->u.loop.annotations = annotations && psg_attrs_count(annotations) ? annotations : NULL;
  psg_attrs_retain((*out)->u.loop.annotations);
  return PSG_OK;
}

psg_status psg_tir_buffer_store_create(psg_ctx *ctx, psg_tir_buffer *buffer, psg_tir_expr *value,
                                       psg_tir_expr *const *indices, size_t n, psg_tir_expr *predicate,
                                       const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_BUFFER_STORE;
  psgi_tir_dtype_name_buf b1, b2;
  psg_tir_dtype dt;
  psg_status st = psgi_tir_access_dtype(ctx, span, K, buffer, indices, n, predicate, &dt);
  if (st || (st = psgi_tir_need_expr(ctx, span, K, value, "the value"))) return st;
  if (value->dtype != dt)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "value stored to buffer '%s' has dtype %s, expected %s",
                         buffer->u.buf.name, DT(value->dtype, b1), DT(dt, b2));
  size_t nk = 2 + n + (predicate ? 1 : 0);
  if ((st = psgi_tir_new(ctx, K, nk, span, out)) != PSG_OK) return st;
  psgi_tir_set_kid(*out, 0, buffer);
  psgi_tir_set_kid(*out, 1, value);
  for (size_t i = 0; i < n; i++) psgi_tir_set_kid(*out, 2 + i, indices[i]);
  if (predicate) {
    psgi_tir_set_kid(*out, 2 + n, predicate);
    (*out)->flags |= PSGI_TIR_HAS_PRED;
  }
  return PSG_OK;
}

psg_status psg_tir_if_then_else_create(psg_ctx *ctx, psg_tir_expr *cond, psg_tir_stmt *then_case,
                                       psg_tir_stmt *else_case, const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_IF_THEN_ELSE;
  psg_status st;
  if ((st = need_cond(ctx, span, K, cond)) || (st = need_stmt(ctx, span, K, then_case, "the then branch")) ||
      (else_case && (st = need_stmt(ctx, span, K, else_case, "the else branch"))))
    return st;
  psg_tir_node *kids[3] = {cond, then_case, else_case};
  return make(ctx, K, kids, else_case ? 3 : 2, span, out);
}

psg_status psg_tir_evaluate_create(psg_ctx *ctx, psg_tir_expr *value, const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_EVALUATE, value, "the value");
  if (st) return st;
  return make(ctx, PSG_TIR_EVALUATE, &value, 1, span, out);
}

psg_status psg_tir_let_stmt_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *value, psg_tir_stmt *body,
                                   const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  psg_status st;
  if ((st = psgi_tir_check_binding(ctx, span, PSG_TIR_LET_STMT, var, value)) ||
      (st = need_stmt(ctx, span, PSG_TIR_LET_STMT, body, "the body")))
    return st;
  psg_tir_node *kids[3] = {var, value, body};
  return make(ctx, PSG_TIR_LET_STMT, kids, 3, span, out);
}

psg_status psg_tir_seq_stmt_create(psg_ctx *ctx, psg_tir_stmt *const *stmts, size_t n, const psg_span *span,
                                   psg_tir_stmt **out) {
  *out = NULL;
  if (n == 0 || !stmts)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_SEQ_STMT, "needs at least one statement");
  for (size_t i = 0; i < n; i++) {
    psg_status st = need_stmt(ctx, span, PSG_TIR_SEQ_STMT, stmts[i], "an element");
    if (st) return st;
  }
  return make(ctx, PSG_TIR_SEQ_STMT, stmts, n, span, out);
}

psg_status psg_tir_allocate_create(psg_ctx *ctx, psg_tir_expr *buffer_var, psg_tir_dtype dtype,
                                   psg_tir_expr *const *extents, size_t n, psg_tir_expr *condition,
                                   psg_tir_stmt *body, psg_attrs *annotations, const psg_span *span,
                                   psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_ALLOCATE;
  psgi_tir_dtype_name_buf b;
  psg_status st;
  if (!buffer_var) return psgi_tir_missing(ctx, span, K, "the buffer var");
  if (!psgi_tir_is_var_kind(buffer_var->kind) || buffer_var->u.var.type->kind != PSG_TIR_POINTER_TYPE)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "the buffer var must be a Var of a PointerType");
  if (!psg_tir_dtype_is_valid(dtype)) return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "invalid dtype");
  if (n == 0 || !extents) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "needs at least one extent");
  for (size_t i = 0; i < n; i++) {
    if ((st = psgi_tir_need_expr(ctx, span, K, extents[i], "an extent"))) return st;
    psg_tir_dtype t = extents[i]->dtype;
    if (!(psg_tir_dtype_is_int(t) || psg_tir_dtype_is_uint(t)) || psg_tir_dtype_lanes(t) != 1)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "extent %zu must be a scalar integer, not %s", i, DT(t, b));
  }
  if ((condition && (st = need_cond(ctx, span, K, condition))) || (st = need_stmt(ctx, span, K, body, "the body")))
    return st;
  psg_tir_expr *cond = condition;
  if (!cond && (st = psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), 1, span, &cond))) return st;
  else if (condition) psg_tir_retain(cond);
  if ((st = psgi_tir_new(ctx, K, 3 + n, span, out)) != PSG_OK) {
    psg_tir_release(cond);
    return st;
  }
  (*out)->dtype = dtype;
  psgi_tir_set_kid(*out, 0, buffer_var);
  (*out)->kids[1] = cond; /* the reference taken above */
  psgi_tir_set_kid(*out, 2, body);
  for (size_t i = 0; i < n; i++) psgi_tir_set_kid(*out, 3 + i, extents[i]);
  (*out)->u.annotations = annotations && psg_attrs_count(annotations) ? annotations : NULL;
  psg_attrs_retain((*out)->u.annotations);
  return PSG_OK;
}

psg_status psg_tir_decl_buffer_create(psg_ctx *ctx, psg_tir_buffer *buffer, psg_tir_stmt *body,
                                      const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_DECL_BUFFER;
  if (!buffer) return psgi_tir_missing(ctx, span, K, "the buffer");
  if (buffer->kind != PSG_TIR_BUFFER)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "needs a Buffer, not %s",
                         psg_tir_kind_name(buffer->kind));
  psg_status st = need_stmt(ctx, span, K, body, "the body");
  if (st) return st;
  psg_tir_node *kids[2] = {buffer, body};
  return make(ctx, K, kids, 2, span, out);
}

psg_status psg_tir_attr_stmt_create(psg_ctx *ctx, psg_tir_node *node, const char *key, psg_tir_expr *value,
                                    psg_tir_stmt *body, const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_ATTR_STMT;
  if (!key || !*key) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "needs an attribute key");
  psg_status st;
  if ((st = psgi_tir_need_expr(ctx, span, K, value, "the value")) || (st = need_stmt(ctx, span, K, body, "the body")))
    return st;
  const char *k = psgi_intern(ctx, key, strlen(key));
  if (!k) return psgi_nomem(ctx);
  psg_tir_node *kids[3] = {value, body, node};
  if ((st = make(ctx, K, kids, node ? 3 : 2, span, out)) != PSG_OK) return st;
  (*out)->u.attr_key = k;
  if (node) (*out)->flags |= PSGI_TIR_HAS_NODE;
  return PSG_OK;
}

psg_status psg_tir_assert_stmt_create(psg_ctx *ctx, psg_tir_expr *cond, psg_tir_expr *message,
                                      psg_tir_stmt *body, const psg_span *span, psg_tir_stmt **out) {
  *out = NULL;
  const int K = PSG_TIR_ASSERT_STMT;
  psg_status st;
  if ((st = need_cond(ctx, span, K, cond)) || (st = psgi_tir_need_expr(ctx, span, K, message, "the message")) ||
      (st = need_stmt(ctx, span, K, body, "the body")))
    return st;
  psg_tir_node *kids[3] = {cond, message, body};
  return make(ctx, K, kids, 3, span, out);
}

psg_status psg_tir_while_create(psg_ctx *ctx, psg_tir_expr *cond, psg_tir_stmt *body, const psg_span *span,
                                psg_tir_stmt **out) {
  *out = NULL;
  psg_status st;
  if ((st = need_cond(ctx, span, PSG_TIR_WHILE, cond)) || (st = need_stmt(ctx, span, PSG_TIR_WHILE, body, "the body")))
    return st;
  psg_tir_node *kids[2] = {cond, body};
  return make(ctx, PSG_TIR_WHILE, kids, 2, span, out);
}
