/* Passage — CodeGenC's statements and kernels (docs/codegen.md): the body
 * of a PrimFunc walked with an explicit task stack (a million statements
 * cost heap, not C stack), the kernel signature, the workspace plan of its
 * T.allocate buffers and the vector typedefs it needs. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "codegen/codegen_c_internal.h"

enum { STACK_ARRAY_MAX_BYTES = 65536, WS_ALIGN = 64 };

typedef struct stask {
  int kind; /* T_STMT, T_CLOSE, T_ELSE */
  const psg_tir_node *n;
  int indent;
  int par; /* parallel loops around (T_STMT) */
} stask;
enum { T_STMT, T_CLOSE, T_ELSE };


/* Workspace plan ------------------------------------------------------------------ */

/* Bytes of one Allocate (constant extents), or -1 (symbolic). */
static int64_t alloc_bytes(const psg_tir_node *a) {
  size_t ne = psg_tir_allocate_num_extents(a);
  int64_t n = (int64_t)(psg_tir_dtype_bits(a->dtype) < 8 ? 1 : psg_tir_dtype_bits(a->dtype) / 8) *
              psg_tir_dtype_lanes(a->dtype);
  for (size_t i = 0; i < ne; i++) {
    const psg_tir_node *e = psg_tir_allocate_get_extent(a, i);
    if (e->kind != PSG_TIR_INT_IMM || e->u.int_value < 0 || !psgi_checked_mul(n, e->u.int_value, &n)) return -1;
  }
  return n;
}

/* A "local" allocation (a register tile, cache_write_at) that fits a stack
 * array is one wherever it is, so the C compiler can keep it in registers. */
static bool is_small_local(const psg_tir_node *n, int64_t bytes) {
  const psg_tir_type *t = psg_tir_var_get_type(psg_tir_allocate_get_buffer_var(n));
  const char *scope = psg_tir_pointer_type_scope(t); /* NULL: not a pointer */
  return scope && !strcmp(scope, "local") && bytes <= STACK_ARRAY_MAX_BYTES;
}

/* One step of the scratch plan's walk: a statement, or (exit) the end of an
 * Allocate's body, where the scratch above `top` is free again. */
typedef struct ptask {
  const psg_tir_node *n;
  int par;
  bool exit;
  uint64_t top;
} ptask;

/* Walks the statements (not expressions) of f: every Allocate outside a
 * parallel loop, other than a small local one (a stack array), gets a 64-byte
 * aligned offset. An Allocate's buffer lives
 * only in its body, so the plan is a stack: an allocation takes the first
 * offset above the allocations around it, and siblings (statements one after
 * the other) share the same bytes; c->ws_total is the deepest point. With
 * reuse off, every allocation gets its own bytes: the fallback when one
 * Allocate node is reached twice (a shared subtree) where its first offset
 * would overlap a live allocation. Returns PSG_ERR_UNSUPPORTED (without a
 * diagnostic) in that case. */
static psg_status plan_scratch(cg *c, const psg_tir_node *f, bool reuse) {
  PSGI_VEC(ptask) st = {0};
  ptask first = {psg_tir_get_body(f), 0, false, 0};
  if (!PSGI_VEC_PUSH(c->ctx, &st, first)) return psgi_nomem(c->ctx);
  psg_status rc = PSG_OK;
  uint64_t top = 0; /* the end of the live allocations */
  while (!rc && st.len) {
    ptask t = st.data[--st.len];
    if (t.exit) {
      if (reuse) top = t.top;
      continue;
    }
    const psg_tir_node *n = t.n;
    int par = t.par;
    switch (n->kind) {
      case PSG_TIR_SEQ_STMT:
        for (size_t i = n->nkids; i-- > 0 && !rc;) {
          ptask k = {n->kids[i], par, false, 0};
          if (!PSGI_VEC_PUSH(c->ctx, &st, k)) rc = psgi_nomem(c->ctx);
        }
        continue;
      case PSG_TIR_IF_THEN_ELSE:
        for (size_t i = n->nkids; i-- > 1 && !rc;) {
          ptask k = {n->kids[i], par, false, 0};
          if (!PSGI_VEC_PUSH(c->ctx, &st, k)) rc = psgi_nomem(c->ctx);
        }
        continue;
      case PSG_TIR_FOR:
        par += psg_tir_for_kind(n) == PSG_TIR_FOR_PARALLEL;
        break;
      case PSG_TIR_ALLOCATE: {
        int64_t bytes = alloc_bytes(n);
        if (bytes < 0) {
          rc = psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "Allocate '%s' has a symbolic size (the workspace is static)",
                            psg_tir_var_name(psg_tir_allocate_get_buffer_var(n)));
          continue;
        }
        if (par || is_small_local(n, bytes)) {
          if (bytes > STACK_ARRAY_MAX_BYTES)
            rc = psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED,
                              "Allocate '%s' of %lld bytes inside a parallel loop (at most %d: a stack array)",
                              psg_tir_var_name(psg_tir_allocate_get_buffer_var(n)), (long long)bytes,
                              STACK_ARRAY_MAX_BYTES);
          break;
        }
        uint64_t off = (top + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN;
        psgi_map_entry *e = psgi_map_put_ptr(&c->ws_off, n, NULL);
        if (!e) {
          rc = psgi_nomem(c->ctx);
          continue;
        }
        if (e->value) { /* reached before: keep its offset if nothing live is above it */
          uint64_t had = (uint64_t)(uintptr_t)e->value - 1;
          if (had < off) {
            rc = PSG_ERR_UNSUPPORTED;
            continue;
          }
          off = had;
        } else {
          e->value = (void *)(uintptr_t)(off + 1);
        }
        ptask k = {NULL, par, true, top};
        if (!PSGI_VEC_PUSH(c->ctx, &st, k)) rc = psgi_nomem(c->ctx);
        top = off + (uint64_t)bytes;
        if (top > c->ws_total) c->ws_total = top;
        break;
      }
      case PSG_TIR_LET_STMT:
      case PSG_TIR_DECL_BUFFER:
      case PSG_TIR_ATTR_STMT:
      case PSG_TIR_ASSERT_STMT:
      case PSG_TIR_WHILE: break;
      default: continue;
    }
    ptask k = {psg_tir_get_body(n), par, false, 0};
    if (!rc && !PSGI_VEC_PUSH(c->ctx, &st, k)) rc = psgi_nomem(c->ctx);
  }
  PSGI_VEC_FREE(c->ctx, &st);
  return rc;
}

/* The kernel's scratch plan: with reuse between allocations whose lifetimes
 * do not overlap, else (see plan_scratch) one region per allocation. */
static psg_status plan_workspace(cg *c, const psg_tir_node *f) {
  psg_status rc = plan_scratch(c, f, true);
  if (rc != PSG_ERR_UNSUPPORTED || c->st) return rc;
  psgi_map_fini(&c->ws_off);
  psgi_map_init(&c->ws_off, c->ctx);
  c->ws_total = 0;
  return plan_scratch(c, f, false);
}

/* Statements ------------------------------------------------------------------------ */

static bool push_task(cg *c, void *vec, stask t) {
  PSGI_VEC(stask) *v = vec;
  if (PSGI_VEC_PUSH(c->ctx, v, t)) return true;
  if (!c->st) c->st = psgi_nomem(c->ctx);
  return false;
}

static int has_assert_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  if (psg_tir_kind(n) == PSG_TIR_ASSERT_STMT) {
    *(bool *)v->user = true;
    return PSG_VISIT_ABORT;
  }
  return psg_tir_is_stmt(n) ? PSG_VISIT_CONTINUE : PSG_VISIT_SKIP_CHILDREN;
}

static bool has_assert(cg *c, const psg_tir_node *s) {
  bool found = false;
  psg_tir_visitor v = {has_assert_pre, NULL, &found};
  psg_status st = psg_tir_visit(c->ctx, &v, s);
  if (st && !c->st) c->st = st;
  return found;
}

static void emit_for(cg *c, const psg_tir_node *n, int indent, int par, void *stack) {
  const psg_tir_node *var = n->kids[0], *min = n->kids[1], *ext = n->kids[2];
  const char *ty = psgi_cg_ctype(c, var->dtype, n);
  if (!ty) return;
  if (!psgi_cg_is_simple(c, min) || !psgi_cg_is_simple(c, ext)) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "the bounds of loop '%s' are not scalar expressions", var->u.var.name);
    return;
  }
  const char *mt = psgi_cg_expr(c, min), *et = psgi_cg_expr(c, ext);
  const char *name = psgi_cg_unique(c, var->u.var.name);
  if (!mt || !et || !name || !psgi_cg_bind(c, var, name)) return;
  psgi_cg_bound_var(c, var, min, ext);
  int kind = psg_tir_for_kind(n);
  bool parallel = kind == PSG_TIR_FOR_PARALLEL && c->o->openmp && par == 0;
  if (parallel && has_assert(c, n->kids[3])) {
    psgi_cg_line(c, indent, "/* parallel, run serially: an assert may return from its body */");
    parallel = false;
  } else if (kind == PSG_TIR_FOR_PARALLEL && !parallel) {
    psgi_cg_line(c, indent, "/* parallel */");
  } else if (kind == PSG_TIR_FOR_VECTORIZED) {
    psgi_cg_line(c, indent, "/* vectorized */");
  }
  if (parallel) psgi_cg_line(c, indent, "PSG_PRAGMA_PARALLEL");
  if (kind == PSG_TIR_FOR_UNROLLED) psgi_cg_line(c, indent, "PSG_PRAGMA_UNROLL");
  bool zero = min->kind == PSG_TIR_INT_IMM && min->u.int_value == 0;
  if (zero)
    psgi_cg_line(c, indent, "for (%s %s = 0; %s < %s; ++%s) {", ty, name, name, et, name);
  else if (psg_tir_dtype_bits(var->dtype) < 64)
    psgi_cg_line(c, indent, "for (%s %s = %s; %s < (int64_t)(%s) + (int64_t)(%s); ++%s) {", ty, name, mt, name, mt, et, name);
  else
    psgi_cg_line(c, indent, "for (%s %s = %s; %s < %s + %s; ++%s) {", ty, name, mt, name, mt, et, name);
  stask close = {T_CLOSE, n, indent, par};
  stask body = {T_STMT, n->kids[3], indent + 1, par + (kind == PSG_TIR_FOR_PARALLEL)};
  if (push_task(c, stack, close)) push_task(c, stack, body);
}

/* A "thread_extent"/"virtual_thread" AttrStmt: a serial loop of its thread
 * index over [0, value), as the interpreter runs it (one thread). False for
 * other attributes, which are skipped. */
static bool emit_thread_launch(cg *c, const psg_tir_node *n, int indent, int par, void *stack) {
  const char *key = psg_tir_attr_stmt_key(n);
  const psg_tir_node *node = n->nkids == 3 ? n->kids[2] : NULL;
  if (!node || (strcmp(key, "thread_extent") && strcmp(key, "virtual_thread"))) return false;
  if (node->kind == PSG_TIR_ITER_VAR) node = node->kids[0];
  if (node->kind != PSG_TIR_VAR && node->kind != PSG_TIR_SIZE_VAR) return false;
  const psg_tir_node *ext = n->kids[0];
  const char *ty = psgi_cg_ctype(c, node->dtype, n);
  const char *et = ty && psgi_cg_is_simple(c, ext) ? psgi_cg_expr(c, ext) : NULL;
  const char *name = et ? psgi_cg_unique(c, node->u.var.name) : NULL;
  if (!name) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "the extent of thread '%s' is not a scalar expression", node->u.var.name);
    return true;
  }
  if (!psgi_cg_bind(c, node, name)) return true;
  psgi_cg_bound_var(c, node, NULL, ext);
  psgi_cg_line(c, indent, "/* %s, run as a serial loop */", key);
  psgi_cg_line(c, indent, "for (%s %s = 0; %s < %s; ++%s) {", ty, name, name, et, name);
  stask close = {T_CLOSE, n, indent, par};
  stask body = {T_STMT, n->kids[1], indent + 1, par};
  if (push_task(c, stack, close)) push_task(c, stack, body);
  return true;
}

/* A store: scalar, a whole vector element, a contiguous vector or a scatter. */
static void emit_store(cg *c, const psg_tir_node *n, int indent) {
  const psg_tir_node *b = n->kids[0], *val = n->kids[1];
  const char *data = psgi_cg_var_name(c, b->kids[0]);
  if (!data) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "the data of buffer '%s' is not defined", b->u.buf.name);
    return;
  }
  size_t nidx = psgi_tir_num_indices(n);
  bool pred = n->flags & PSGI_TIR_HAS_PRED;
  if (nidx > 64) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "a buffer of more than 64 dimensions");
    return;
  }
  const char *v = psgi_cg_value(c, val, indent);
  const psg_tir_node *cbase = psgi_cg_contiguous_base(n);
  const char *idx[64];
  for (size_t k = 0; k < nidx && v; k++) {
    const psg_tir_node *ix = cbase ? cbase : psgi_tir_indices(n)[k];
    idx[k] = psgi_cg_value(c, ix, indent);
    if (!idx[k]) return;
  }
  const char *p = pred && v ? psgi_cg_value(c, n->kids[n->nkids - 1], indent) : NULL;
  if (!v || (pred && !p) || !psgi_cg_ctype(c, b->dtype, n)) return;
  psg_tir_dtype t = val->dtype, se = psg_tir_dtype_with_lanes(b->dtype, 1);
  int blanes = psg_tir_dtype_lanes(b->dtype), lanes = psg_tir_dtype_lanes(t) / blanes;
  bool match = psgi_cg_buffer_matches(c, b), is_bool = psg_tir_dtype_is_bool(se);
  bool all_scalar = true;
  for (size_t k = 0; k < nidx; k++) all_scalar &= psg_tir_dtype_lanes(psgi_tir_indices(n)[k]->dtype) == 1;
  if (cbase) {
    const char *f = psgi_cg_flat_index(c, b, idx);
    if (!f) return;
    if (match)
      psgi_cg_line(c, indent, "memcpy(%s + %s, &%s, sizeof %s);", data, f, v, v);
    else
      psgi_cg_line(c, indent, "memcpy((char *)%s + (ptrdiff_t)(%s) * %d, &%s, sizeof %s);", data, f, psg_tir_dtype_bits(se) / 8,
           v, v);
    return;
  }
  if (all_scalar && !pred && (blanes == 1 || !is_bool)) {
    const char *f = psgi_cg_flat_index(c, b, idx);
    if (!f) return;
    const char *sv = is_bool ? psgi_cg_strf(c, "(uint8_t)(%s)", v) : v;
    if (match)
      psgi_cg_line(c, indent, "%s[%s] = %s;", data, f, sv);
    else if (blanes == 1)
      psgi_cg_line(c, indent, "psg_st_%s(%s, %s, %s);", psgi_cg_suffix(se), data, f, sv);
    else
      psgi_cg_line(c, indent, "memcpy((char *)%s + (ptrdiff_t)(%s) * (ptrdiff_t)sizeof %s, &%s, sizeof %s);", data, f, v, v, v);
    return;
  }
  /* Scatter, lane by lane (lanes in order: a later lane wins, as in the interpreter). */
  const char *lidx[64];
  for (size_t k = 0; k < nidx; k++) lidx[k] = psgi_cg_lane(c, idx[k], psgi_tir_indices(n)[k]->dtype, "psg_l");
  const char *f = psgi_cg_flat_index(c, b, lidx);
  if (!f) return;
  const char *lane = blanes > 1 ? psgi_cg_strf(c, "psg_l * %d + psg_j", blanes) : "psg_l";
  const char *lv = psgi_cg_lane(c, v, t, lane);
  const char *st = psgi_cg_strf(c, "psg_st_%s(%s, (%s)%s, %s%s%s);", psgi_cg_suffix(se), data, f,
                                blanes > 1 ? psgi_cg_strf(c, " * %d + psg_j", blanes) : "", is_bool ? "(uint8_t)(" : "",
                                lv, is_bool ? ")" : "");
  if (p) st = psgi_cg_strf(c, "if (%s) %s", psgi_cg_lane(c, p, n->kids[n->nkids - 1]->dtype, lane), st);
  if (blanes > 1)
    psgi_cg_line(c, indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) for (int psg_j = 0; psg_j < %d; ++psg_j) %s", lanes,
         blanes, st);
  else
    psgi_cg_line(c, indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) %s", lanes, st);
}

static void emit_allocate(cg *c, const psg_tir_node *n, int indent) {
  const psg_tir_node *var = psg_tir_allocate_get_buffer_var(n);
  const char *ty = psgi_cg_ctype(c, n->dtype, n), *name = ty ? psgi_cg_unique(c, var->u.var.name) : NULL;
  if (!name || !psgi_cg_bind(c, var, name)) return;
  psgi_map_entry *pe = psgi_map_put_ptr(&c->ptype, var, NULL);
  if (!pe) {
    c->st = psgi_nomem(c->ctx);
    return;
  }
  pe->value = (void *)(uintptr_t)(n->dtype + 1);
  int64_t bytes = alloc_bytes(n);
  int64_t esize = (int64_t)(psg_tir_dtype_bits(n->dtype) < 8 ? 1 : psg_tir_dtype_bits(n->dtype) / 8) *
                  psg_tir_dtype_lanes(n->dtype);
  psgi_map_entry *e = psgi_map_get_ptr(&c->ws_off, n);
  if (bytes < 0) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "Allocate '%s' has a symbolic size", var->u.var.name);
    return;
  }
  if (e)
    psgi_cg_line(c, indent, "%s *restrict PSG_UNUSED %s = (%s *)(workspace + %llu); /* %lld bytes */", ty, name, ty,
         (unsigned long long)((uintptr_t)e->value - 1), (long long)bytes);
  else
    psgi_cg_line(c, indent, "%s PSG_UNUSED %s[%lld]; /* %s */", ty, name,
         (long long)(bytes / esize > 0 ? bytes / esize : 1),
         is_small_local(n, bytes) ? "local: kept in registers where it fits" : "in a parallel loop: on each thread's stack");
}

/* One statement task. */
static void emit_stmt(cg *c, stask t, void *stack) {
  const psg_tir_node *n = t.n;
  int ind = t.indent;
  if (t.kind == T_CLOSE) {
    psgi_cg_line(c, ind, "}");
    return;
  }
  if (t.kind == T_ELSE) {
    psgi_cg_line(c, ind, "} else {");
    stask body = {T_STMT, n, ind + 1, t.par};
    push_task(c, stack, body);
    return;
  }
  stask body = {T_STMT, NULL, ind, t.par};
  switch (n->kind) {
    case PSG_TIR_SEQ_STMT:
      for (size_t i = n->nkids; i-- > 0;) {
        stask k = {T_STMT, n->kids[i], ind, t.par};
        if (!push_task(c, stack, k)) return;
      }
      return;
    case PSG_TIR_FOR: emit_for(c, n, ind, t.par, stack); return;
    case PSG_TIR_BUFFER_STORE: emit_store(c, n, ind); return;
    case PSG_TIR_IF_THEN_ELSE: {
      const char *cond = psgi_cg_value(c, n->kids[0], ind);
      if (!cond) return;
      psgi_cg_line(c, ind, "if (%s) {", psgi_cg_cond(c, cond));
      stask close = {T_CLOSE, n, ind, t.par};
      if (!push_task(c, stack, close)) return;
      if (n->nkids > 2) {
        stask els = {T_ELSE, n->kids[2], ind, t.par};
        if (!push_task(c, stack, els)) return;
      }
      stask then = {T_STMT, n->kids[1], ind + 1, t.par};
      push_task(c, stack, then);
      return;
    }
    case PSG_TIR_LET_STMT: {
      const psg_tir_node *var = n->kids[0];
      const char *v = psgi_cg_value(c, n->kids[1], ind), *ty = v ? psgi_cg_ctype(c, var->dtype, n) : NULL;
      const char *name = ty ? psgi_cg_unique(c, var->u.var.name) : NULL;
      if (!name || !psgi_cg_bind(c, var, name)) return;
      psgi_cg_bound_var(c, var, n->kids[1], NULL);
      psgi_cg_line(c, ind, "%s%s PSG_UNUSED %s = %s;", psg_tir_dtype_lanes(var->dtype) == 1 ? "const " : "", ty, name, v);
      body.n = n->kids[2];
      break;
    }
    case PSG_TIR_ALLOCATE:
      emit_allocate(c, n, ind);
      body.n = psg_tir_get_body(n);
      break;
    case PSG_TIR_ATTR_STMT:
      if (emit_thread_launch(c, n, ind, t.par, stack)) return;
      body.n = psg_tir_get_body(n);
      break;
    case PSG_TIR_DECL_BUFFER: body.n = psg_tir_get_body(n); break;
    case PSG_TIR_ASSERT_STMT: {
      const char *cond = psgi_cg_value(c, n->kids[0], ind);
      if (!cond) return;
      size_t len = 0;
      const char *msg = n->kids[1]->kind == PSG_TIR_STRING_IMM ? psg_tir_string_imm_value(n->kids[1], &len) : "";
      psgi_cg_indent(c, ind);
      psgi_buf_printf(c->out, "if (!(%s)) return %u; /* ", psgi_cg_cond(c, cond), ++c->nassert);
      for (size_t i = 0; i < len && i < 120; i++) { /* the message, made comment-safe */
        char ch = msg[i];
        psgi_buf_putc(c->out, (ch == '*' || ch == '/' || ch == '\n' || (unsigned char)ch < 32) ? ' ' : ch);
      }
      psgi_buf_puts(c->out, " */\n");
      body.n = n->kids[2];
      break;
    }
    case PSG_TIR_EVALUATE: {
      const psg_tir_node *v = n->kids[0];
      if (v->kind == PSG_TIR_INT_IMM || v->kind == PSG_TIR_FLOAT_IMM) return;
      if (v->kind == PSG_TIR_CALL && v->u.op == PSGI_TIR_OP_assume) return;
      const char *t2 = psgi_cg_value(c, v, ind);
      if (t2) psgi_cg_line(c, ind, "(void)(%s);", t2);
      return;
    }
    case PSG_TIR_WHILE: {
      if (!psgi_cg_is_simple(c, n->kids[0])) {
        psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "a While condition that is not a scalar expression");
        return;
      }
      const char *cond = psgi_cg_expr(c, n->kids[0]);
      if (!cond) return;
      psgi_cg_line(c, ind, "while (%s) {", psgi_cg_cond(c, cond));
      stask close = {T_CLOSE, n, ind, t.par};
      stask b2 = {T_STMT, n->kids[1], ind + 1, t.par};
      if (push_task(c, stack, close)) push_task(c, stack, b2);
      return;
    }
    default: psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s is not supported", psg_tir_kind_name(n->kind)); return;
  }
  if (body.n) push_task(c, stack, body);
}

/* Kernels ------------------------------------------------------------------------------ */

static void cg_init(cg *c, psg_ctx *ctx, const psgi_codegen_opts *o, psgi_buf *out) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->o = o;
  c->out = out;
  psgi_arena_init(&c->arena, ctx);
  psgi_map_init(&c->used_names, ctx);
  psgi_map_init(&c->cname, ctx);
  psgi_map_init(&c->ptype, ctx);
  psgi_map_init(&c->simple, ctx);
  psgi_map_init(&c->ws_off, ctx);
  psgi_map_init(&c->let_value, ctx);
  if (psg_arith_analyzer_create(ctx, &c->an)) c->an = NULL; /* then every integer op wraps explicitly */
}

static void cg_fini(cg *c) {
  psgi_arena_fini(&c->arena);
  psgi_map_fini(&c->used_names);
  psgi_map_fini(&c->cname);
  psgi_map_fini(&c->ptype);
  psgi_map_fini(&c->simple);
  psgi_map_fini(&c->ws_off);
  psgi_map_fini(&c->let_value);
  PSGI_VEC_FREE(c->ctx, &c->vtypes);
  psg_arith_analyzer_destroy(c->an);
}

uint64_t psgi_codegen_c_kernel_workspace(const psg_tir_prim_func *f) {
  psg_ctx *ctx = psg_tir_get_ctx(f);
  psgi_codegen_opts o = {true, false};
  cg c;
  cg_init(&c, ctx, &o, NULL);
  size_t ndiag = psg_ctx_diag_count(ctx);
  psg_status st = plan_workspace(&c, f);
  uint64_t r = st ? 0 : c.ws_total;
  if (st) psgi_diag_truncate(ctx, ndiag); /* the kernel reports it */
  cg_fini(&c);
  return r;
}

/* "nn.conv2d, add, nn.relu": the Relay ops of passage.te_stages, each once. */
static void relay_ops(cg *c, const psg_tir_node *f, psgi_buf *b) {
  psg_attr *stages = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "passage.te_stages");
  if (!stages || psg_attr_kind(stages) != PSG_ATTR_LIST) return;
  size_t n = psg_attr_list_len(stages);
  const char *seen[64];
  size_t nseen = 0;
  for (size_t i = 0; i < n; i++) {
    psg_attr *d = psg_attr_list_get(stages, i);
    psg_attr *op = psg_attr_kind(d) == PSG_ATTR_DICT ? psg_attrs_get(psg_attr_get_dict(d), "op") : NULL;
    const char *name = op && psg_attr_kind(op) == PSG_ATTR_STRING ? psg_attr_get_string(op) : NULL;
    bool dup = !name || strstr(name, "*/");
    for (size_t k = 0; k < nseen && !dup; k++) dup = !strcmp(seen[k], name);
    if (dup) continue;
    if (nseen < 64) seen[nseen++] = name;
    psgi_buf_printf(b, "%s%s", nseen > 1 ? ", " : "", name);
  }
  (void)c;
}

static void emit_vector_typedefs(cg *c, psgi_buf *out) {
  for (size_t i = 0; i < c->vtypes.len; i++) {
    psg_tir_dtype t = c->vtypes.data[i];
    psgi_tir_dtype_name_buf nb;
    const char *name = psgi_tir_dtype_name(t, &nb), *sc = psgi_cg_scalar_ctype(psg_tir_dtype_with_lanes(t, 1));
    int lanes = psg_tir_dtype_lanes(t), bytes = psg_tir_dtype_bits(t) < 8 ? 1 : psg_tir_dtype_bits(t) / 8;
    bool ext = (lanes & (lanes - 1)) == 0 && !psg_tir_dtype_is_bool(t);
    psgi_buf_printf(out, "#ifndef PSG_HAVE_%s\n#define PSG_HAVE_%s\n", name, name);
    if (ext)
      psgi_buf_printf(out, "#if PSG_VECTOR_EXT\ntypedef %s psg_%s __attribute__((vector_size(%d)));\n#else\n", sc, name,
                      lanes * bytes);
    psgi_buf_printf(out, "typedef struct { %s v[%d]; } psg_%s;\n", sc, lanes, name);
    if (ext) psgi_buf_puts(out, "#endif\n");
    psgi_buf_puts(out, "#endif\n");
  }
}

static bool has_noalias(const psg_tir_node *f) {
  psg_attr *a = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "tir.noalias");
  return a && (psg_attr_kind(a) == PSG_ATTR_BOOL || psg_attr_kind(a) == PSG_ATTR_INT) && psg_attr_get_int(a);
}

/* The parameter list, binding each parameter's C name. */
static void emit_params(cg *c, const psg_tir_node *f, psgi_buf *sig) {
  const char *restrict_kw = has_noalias(f) ? "restrict " : "";
  size_t np = psg_tir_prim_func_num_params(f);
  for (size_t i = 0; i < np && !c->st; i++) {
    psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, p);
    const char *name = psgi_cg_unique(c, psg_tir_var_name(p));
    if (!name || !psgi_cg_bind(c, p, name)) return;
    if (b) {
      const char *ty = psgi_cg_ctype(c, psg_tir_dtype_of(b), b);
      if (!ty) return;
      const psg_tir_node *data = psg_tir_buffer_get_data(b);
      if (!psgi_cg_bind(c, data, name)) return;
      psgi_map_entry *e = psgi_map_put_ptr(&c->ptype, data, NULL);
      if (!e) {
        c->st = psgi_nomem(c->ctx);
        return;
      }
      e->value = (void *)(uintptr_t)(psg_tir_dtype_of(b) + 1);
      psgi_buf_printf(sig, "%s *%s%s, ", ty, restrict_kw, name);
    } else {
      const char *ty = psgi_cg_ctype(c, psg_tir_dtype_of(p), p);
      if (!ty) return;
      psgi_buf_printf(sig, psg_tir_dtype_is_handle(psg_tir_dtype_of(p)) ? "%s%s, " : "%s %s, ", ty, name);
    }
  }
}

/* Whether the C identifier `name` occurs as a token in `body`. */
static bool mentions(const psgi_buf *body, const char *name) {
  size_t n = strlen(name);
  const char *s = body->data, *end = body->data + body->len;
  for (const char *p = s; p && p + n <= end; p++) {
    p = memchr(p, name[0], (size_t)(end - p));
    if (!p || p + n > end) break;
    if (memcmp(p, name, n)) continue;
    bool before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool after = p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_');
    if (!before && !after) return true;
  }
  return false;
}

/* `(void)x;` for each parameter the body does not read (workspace in a kernel
 * without scratch, the input of an empty slice), so the kernel builds under
 * -Wextra's unused-parameter. */
static void emit_unused_params(cg *c, const psg_tir_node *f, const psgi_buf *body, psgi_buf *out) {
  size_t np = psg_tir_prim_func_num_params(f);
  for (size_t i = 0; i < np; i++) {
    const char *name = psgi_cg_var_name(c, psg_tir_prim_func_get_param(f, i));
    if (name && !mentions(body, name)) psgi_buf_printf(out, "  (void)%s;\n", name);
  }
  if (!mentions(body, "workspace")) psgi_buf_puts(out, "  (void)workspace;\n");
}

psg_status psgi_codegen_c_kernel(psg_ctx *ctx, const psg_tir_prim_func *given, const char *c_name,
                                 const psgi_codegen_opts *o, psgi_buf *out) {
  psg_tir_prim_func *f = NULL;
  psg_status lst = given && psg_tir_kind(given) == PSG_TIR_PRIM_FUNC ? psgi_cg_local_layout(ctx, given, &f) : PSG_OK;
  if (lst) return lst;
  if (!f) f = (psg_tir_prim_func *)given, psg_tir_retain(f);
  psgi_buf body, sig;
  psgi_buf_init(&body, ctx);
  psgi_buf_init(&sig, ctx);
  cg c;
  cg_init(&c, ctx, o, &body);
  PSGI_VEC(stask) stack = {0};
  if (!f || psg_tir_kind(f) != PSG_TIR_PRIM_FUNC) {
    psgi_cg_fail(&c, f, PSG_ERR_INVALID_ARGUMENT, "not a PrimFunc");
    goto done;
  }
  /* Names the kernel itself takes. */
  psgi_cg_unique(&c, c_name);
  emit_params(&c, f, &sig);
  if (!c.st) plan_workspace(&c, f);
  stask first = {T_STMT, psg_tir_get_body(f), 1, 0};
  if (!c.st) push_task(&c, &stack, first);
  while (!c.st && stack.len) {
    stask t = stack.data[--stack.len];
    emit_stmt(&c, t, &stack);
    if (c.arena_bytes > (1u << 20)) { /* no string outlives its statement: C names are interned */
      psgi_arena_fini(&c.arena);
      psgi_arena_init(&c.arena, ctx);
      c.arena_bytes = 0;
    }
  }
  if (body.failed || sig.failed) {
    if (!c.st) c.st = psgi_nomem(ctx);
  }
  if (c.st) goto done;
  /* The kernel: typedefs, a comment naming its origin, the function. */
  emit_vector_typedefs(&c, out);
  psgi_buf ops;
  psgi_buf_init(&ops, ctx);
  relay_ops(&c, f, &ops);
  psgi_buf_printf(out, "\n/* %s%s%.*s; workspace %llu bytes */\n", c_name, ops.len ? ": Relay ops " : "",
                  (int)ops.len, ops.data ? ops.data : "", (unsigned long long)c.ws_total);
  psgi_buf_fini(&ops);
  /* never inlined into the host function: there the compiler loses the
   * parameters' restrict and the kernel's own register allocation (det's
   * conv2d_transpose ran 2.5x slower inlined) */
  psgi_buf_printf(out, "static PSG_UNUSED PSG_NOINLINE int32_t %s(%.*suint8_t *restrict workspace) {\n", c_name, (int)sig.len,
                  sig.data ? sig.data : "");
  emit_unused_params(&c, f, &body, out);
  psgi_buf_append(out, body.data ? body.data : "", body.len);
  psgi_buf_puts(out, "  return 0;\n}\n");
  if (out->failed) c.st = psgi_nomem(ctx);
done:;
  psg_status st = c.st;
  psg_tir_release(f);
  PSGI_VEC_FREE(ctx, &stack);
  cg_fini(&c);
  psgi_buf_fini(&body);
  psgi_buf_fini(&sig);
  return st;
}
