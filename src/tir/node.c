/* Passage — TIR nodes (spec/tir.md §2): allocation, iterative release, the
 * generic accessors and the types PrimType, PointerType and TupleType(). */
#include <stdarg.h>
#include <stdio.h>
#include "tir/tir_internal.h"

const char *const psgi_tir_kind_names[PSG_TIR_KIND_COUNT] = {
#define X(kind, name) [PSG_TIR_##kind] = name,
#include "tir/tir_kinds.def"
#undef X
};

enum {
#define X(kind, name) DEF_##kind,
#include "tir/tir_kinds.def"
#undef X
  DEF_COUNT
};
_Static_assert((int)DEF_COUNT == (int)PSG_TIR_KIND_COUNT, "tir_kinds.def out of sync with tir.h");
_Static_assert((int)DEF_CALL == (int)PSG_TIR_CALL && (int)DEF_WHILE == (int)PSG_TIR_WHILE &&
                   (int)DEF_TUPLE_TYPE == (int)PSG_TIR_TUPLE_TYPE,
               "tir_kinds.def order");

const char *psg_tir_kind_name(int kind) {
  return kind >= 0 && kind < PSG_TIR_KIND_COUNT ? psgi_tir_kind_names[kind] : "?";
}

const char *psg_tir_for_kind_name(int k) {
  static const char *const names[] = {"serial", "parallel", "vectorized", "unrolled"};
  return k >= 0 && k < (int)(sizeof names / sizeof *names) ? names[k] : "?";
}

psg_status psgi_tir_fail(psg_ctx *ctx, psg_status code, const psg_span *span, int kind,
                         const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *file = span ? psgi_span_where(span) : NULL;
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, code, file, span ? span->line : 0,
                       span ? span->col : 0, NULL, 0, NULL, "%s: %s", psg_tir_kind_name(kind), msg);
}

static psg_status copy_span(psg_ctx *ctx, const psg_span *in, psg_span *out) {
  memset(out, 0, sizeof *out);
  if (!in) return PSG_OK;
  *out = *in;
  if (in->file && !(out->file = psgi_intern_again(ctx, in->file))) return psgi_nomem(ctx);
  if (in->name && !(out->name = psgi_intern_again(ctx, in->name))) return psgi_nomem(ctx);
  return PSG_OK;
}

psg_status psgi_tir_new(psg_ctx *ctx, int kind, size_t nkids, const psg_span *span,
                        psg_tir_node **out) {
  *out = NULL;
  if (nkids > UINT32_MAX - 1)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "too many operands");
  psg_span sp;
  psg_status st = copy_span(ctx, span, &sp);
  if (st) return st;
  psg_tir_node *n = psgi_alloc(ctx, sizeof(psg_tir_node) + psgi_mul_size(nkids, sizeof(psg_tir_node *)));
  if (!n) return psgi_nomem(ctx);
  memset(n, 0, sizeof *n);
  n->kind = (uint16_t)kind;
  n->refcount = 1;
  n->ctx = ctx;
  n->span = sp;
  n->nkids = (uint32_t)nkids;
  for (size_t i = 0; i < nkids; i++) n->kids[i] = NULL;
  psgi_ctx_object_born(ctx);
  *out = n;
  return PSG_OK;
}

void psg_tir_retain(psg_tir_node *n) {
  if (n) psgi_ref_inc(&n->refcount);
}

/* Drops one reference of `k`; a node that dies is pushed on *dead. */
static void drop(psg_tir_node *k, psg_tir_node **dead);

/* Frees what the payload owns apart from nodes, and drops owned nodes that
 * are not operands (a Var's type, a PrimFunc's return type). */
static void release_payload(psg_tir_node *n, psg_tir_node **dead) {
  psg_ctx *ctx = n->ctx;
  switch (n->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR:
    drop(n->u.var.type, dead);
    break;
  case PSG_TIR_FOR:
    psg_attrs_release(n->u.loop.annotations);
    break;
  case PSG_TIR_ALLOCATE:
    psg_attrs_release(n->u.annotations);
    break;
  case PSG_TIR_BUFFER:
    psgi_free(ctx, n->u.buf.axis_separators);
    break;
  case PSG_TIR_PRIM_FUNC:
    psgi_free(ctx, n->u.func.map_params);
    psg_attrs_release(n->u.func.attrs);
    drop(n->u.func.ret_type, dead);
    break;
  default:
    break;
  }
}

static void drop(psg_tir_node *k, psg_tir_node **dead) {
  if (!k || !psgi_ref_dec(&k->refcount)) return;
  release_payload(k, dead);
  k->u.dead_next = *dead;
  *dead = k;
}

/* n's last reference is gone: n and every node only it held are freed.
 * Out of line, so that the common release (a count that stays above zero)
 * saves and restores no registers. */
__attribute__((noinline)) static void release_dead(psg_tir_node *n) {
  /* Dead nodes are chained through their payload slot (after the payload is
   * released), so releasing a million-statement body needs no stack. */
  psg_ctx *ctx = n->ctx;
  psg_ctx_retain(ctx);
  psg_tir_node *dead = NULL;
  release_payload(n, &dead);
  n->u.dead_next = dead;
  dead = n;
  while (dead) {
    psg_tir_node *d = dead;
    dead = d->u.dead_next;
    for (uint32_t i = 0; i < d->nkids; i++) drop(d->kids[i], &dead);
    psgi_free(ctx, d);
    psgi_ctx_object_died(ctx);
  }
  psg_ctx_release(ctx);
}

void psg_tir_release(psg_tir_node *n) {
  if (n && psgi_ref_dec(&n->refcount)) release_dead(n);
}

int psg_tir_kind(const psg_tir_node *n) { return n->kind; }
bool psg_tir_is_expr(const psg_tir_node *n) { return n && psgi_tir_is_expr_kind(n->kind); }
bool psg_tir_is_stmt(const psg_tir_node *n) { return n && psgi_tir_is_stmt_kind(n->kind); }
psg_ctx *psg_tir_get_ctx(const psg_tir_node *n) { return n->ctx; }
void psg_tir_span(const psg_tir_node *n, psg_span *out) { *out = n->span; }
psg_tir_dtype psg_tir_dtype_of(const psg_tir_node *n) { return n ? n->dtype : 0; }
size_t psg_tir_num_operands(const psg_tir_node *n) { return n->nkids; }
psg_tir_node *psg_tir_get_operand(const psg_tir_node *n, size_t i) {
  return i < n->nkids ? n->kids[i] : NULL;
}

/* Types ---------------------------------------------------------------------- */

psg_status psg_tir_prim_type_create(psg_ctx *ctx, psg_tir_dtype dtype, psg_tir_type **out) {
  *out = NULL;
  if (!psg_tir_dtype_is_valid(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, NULL, PSG_TIR_PRIM_TYPE, "invalid dtype");
  psg_status st = psgi_tir_new(ctx, PSG_TIR_PRIM_TYPE, 0, NULL, out);
  if (!st) (*out)->dtype = dtype;
  return st;
}

psg_status psg_tir_pointer_type_create(psg_ctx *ctx, psg_tir_type *element, const char *scope,
                                       psg_tir_type **out) {
  *out = NULL;
  if (!element || element->kind != PSG_TIR_PRIM_TYPE)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, NULL, PSG_TIR_POINTER_TYPE,
                         "the element type must be a PrimType");
  if (!scope || !*scope) scope = "global";
  const char *sc = psgi_intern(ctx, scope, strlen(scope));
  if (!sc) return psgi_nomem(ctx);
  psg_status st = psgi_tir_new(ctx, PSG_TIR_POINTER_TYPE, 1, NULL, out);
  if (st) return st;
  (*out)->dtype = psg_tir_dtype_handle();
  (*out)->u.scope = sc;
  psgi_tir_set_kid(*out, 0, element);
  return PSG_OK;
}

psg_status psg_tir_void_type_create(psg_ctx *ctx, psg_tir_type **out) {
  return psgi_tir_new(ctx, PSG_TIR_TUPLE_TYPE, 0, NULL, out);
}

psg_tir_type *psg_tir_pointer_type_get_element(const psg_tir_type *t) {
  return t->kind == PSG_TIR_POINTER_TYPE ? t->kids[0] : NULL;
}
const char *psg_tir_pointer_type_scope(const psg_tir_type *t) {
  return t->kind == PSG_TIR_POINTER_TYPE ? t->u.scope : NULL;
}

bool psg_tir_type_equal(const psg_tir_type *a, const psg_tir_type *b) {
  /* Types nest at most two deep (a pointer to a prim type): a loop, no
   * recursion. */
  while (a && b) {
    if (a == b) return true;
    if (a->kind != b->kind || a->dtype != b->dtype) return false;
    if (a->kind != PSG_TIR_POINTER_TYPE) return true;
    if (a->u.scope != b->u.scope) return false; /* interned */
    a = a->kids[0];
    b = b->kids[0];
  }
  return a == b;
}
