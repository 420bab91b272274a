/* Passage — tir.InjectVirtualThread (TVM's src/tir/transforms/
 * inject_virtual_thread.cc), a PrimFuncPass without options or config keys.
 *
 * An AttrStmt "virtual_thread" over an IterVar `v` with an IntImm value n
 * (what `T.launch_thread(T.env_thread("vthread"), n)` makes) runs its body
 * once per virtual thread. The pass removes the AttrStmt and serializes the
 * threads where the body depends on v; inner vthreads first (bottom up).
 *
 * 1. Touched vars (TVM's VarTouchedAnalysis): v, and every var defined from
 *    a touched one — a let var from its value, a loop var from its min and
 *    extent, a buffer's data var from the values and indices stored into it,
 *    an Allocate's var from its extents and condition, the buffer an Evaluate
 *    writes through tvm_access_ptr (rw mask & 2) from the whole expression.
 *    A load reads its buffer's data var, tvm_access_ptr its buffer var when
 *    the mask has the read bit (and its offset).
 * 2. Allocations: an Allocate whose var is touched — or every Allocate when
 *    the tag does not start with "vthread" (TVM's "cthread": no sharing) —
 *    gets n copies: its single extent e becomes e * n and each access of its
 *    buffer goes to index + v * e (simplified with the loop ranges around the
 *    AttrStmt), tvm_access_ptr offsets to offset + v * (e / lanes).
 * 3. Injection, top down: the first statement whose own expressions use a
 *    touched var (or a touched or expanded buffer) is rewritten as a whole
 *    and replaced by its n copies — unrolled with v = 0 .. n-1 when it holds
 *    no loop and n < 16, else inside `for v.s in range(n)` (TVM's
 *    max_loop_depth test); without sharing, every store and Evaluate is such
 *    a statement, and tir.tvm_context_id() becomes v. Statements that do not
 *    depend on v stay shared by the threads.
 * The function is then made SSA again (the copies define the same vars).
 *
 * Departures from TVM (docs/design.md): a loop min other than 0 is allowed
 * (TVM asserts min == 0; the min counts as one of the loop's expressions);
 * an AttrStmt or AssertStmt whose value or condition depends on v is
 * injected as a whole (TVM aborts on an internal check there); a load of an
 * expanded buffer counts as a use of v (TVM leaves its new index outside the
 * copies when nothing else in the statement depends on v); a DeclBuffer of
 * an expanded buffer declares the expanded one. A While in a vthread body is
 * an error, as in TVM. Iterative: explicit stacks throughout. */
#include <stdio.h>
#include <string.h>
#include "passage/arith.h"
#include "passage/tir_op.h"
#include "tir/transforms/tir_transforms.h"
#include "tir/transforms/stmt_slot.h"

enum { UNROLL_LIMIT = 16 }; /* TVM: unroll only when fewer vthreads than this */

/* Touched-var analysis ------------------------------------------------------ */

typedef struct edge {
  const psg_tir_node *dst; /* defined from the source var */
  size_t next;             /* next edge of the same source + 1, or 0 */
} edge;

typedef struct analysis {
  psg_ctx *ctx;
  psgi_map touched;  /* var -> (unused): the result */
  psgi_map head;     /* source var -> its first edge + 1 */
  PSGI_VEC(edge) edges;
  PSGI_VEC(const psg_tir_node *) uses, writes, todo;
} analysis;

static psg_status fail_access_ptr(psg_ctx *ctx) {
  return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                      "tir.InjectVirtualThread: tir.tvm_access_ptr needs a buffer var as its second argument and "
                      "an integer constant as its access mask");
}

/* Whether n is a well-formed tvm_access_ptr call (checked, error if not). */
static psg_status is_access_ptr(psg_ctx *ctx, const psg_tir_node *n, bool *out) {
  *out = n->kind == PSG_TIR_CALL && n->u.op == PSGI_TIR_OP_tvm_access_ptr;
  if (*out && (n->nkids != 5 || !psgi_tir_is_var_kind(n->kids[1]->kind) || n->kids[4]->kind != PSG_TIR_INT_IMM))
    return fail_access_ptr(ctx);
  return PSG_OK;
}

/* a->uses (and a->writes) = the vars expression e reads (writes), TVM's
 * ExprTouched. */
static psg_status collect(analysis *a, const psg_tir_node *e) {
  a->todo.len = 0;
  if (!PSGI_VEC_PUSH(a->ctx, &a->todo, e)) return psgi_nomem(a->ctx);
  while (a->todo.len) {
    const psg_tir_node *n = a->todo.data[--a->todo.len];
    bool ptr, ok = true;
    psg_status st = is_access_ptr(a->ctx, n, &ptr);
    if (st) return st;
    if (psgi_tir_is_var_kind(n->kind)) {
      ok = PSGI_VEC_PUSH(a->ctx, &a->uses, n);
    } else if (ptr) {
      int64_t mask = n->kids[4]->u.int_value;
      if (mask & 1) ok = PSGI_VEC_PUSH(a->ctx, &a->uses, n->kids[1]);
      if (ok && (mask & 2)) ok = PSGI_VEC_PUSH(a->ctx, &a->writes, n->kids[1]);
      if (ok) ok = PSGI_VEC_PUSH(a->ctx, &a->todo, n->kids[2]);
    } else {
      uint32_t first = n->kind == PSG_TIR_LET ? 1 : 0; /* a Let's own var is no use */
      if (n->kind == PSG_TIR_BUFFER_LOAD) {
        ok = PSGI_VEC_PUSH(a->ctx, &a->uses, n->kids[0]->kids[0]);
        first = 1;
      }
      for (uint32_t i = first; ok && i < n->nkids; i++)
        if (psgi_tir_is_expr_kind(n->kids[i]->kind)) ok = PSGI_VEC_PUSH(a->ctx, &a->todo, n->kids[i]);
    }
    if (!ok) return psgi_nomem(a->ctx);
  }
  return PSG_OK;
}

/* `var` is defined from a->uses: an edge from each. */
static psg_status record(analysis *a, const psg_tir_node *var) {
  for (size_t i = 0; i < a->uses.len; i++) {
    const psg_tir_node *src = a->uses.data[i];
    if (src == var) continue;
    psgi_map_entry *h = psgi_map_put_ptr(&a->head, src, NULL);
    if (!h || !PSGI_VEC_PUSH(a->ctx, &a->edges, ((edge){var, (size_t)h->value}))) return psgi_nomem(a->ctx);
    h->value = (void *)(uintptr_t)a->edges.len;
  }
  return PSG_OK;
}

/* The uses of n's own expressions from slot `from` on (`skip`: a slot left out). */
static psg_status collect_kids(analysis *a, const psg_tir_node *n, uint32_t from, uint32_t skip) {
  for (uint32_t i = from; i < n->nkids; i++) {
    if (i == skip || !psgi_tir_is_expr_kind(n->kids[i]->kind)) continue;
    psg_status st = collect(a, n->kids[i]);
    if (st) return st;
  }
  return PSG_OK;
}

/* The definitions statement n makes (not those of its statement children). */
static psg_status analyse_stmt(analysis *a, const psg_tir_node *n) {
  a->uses.len = a->writes.len = 0;
  psg_status st = PSG_OK;
  switch (n->kind) {
  case PSG_TIR_LET_STMT:
    if (!(st = collect(a, n->kids[1]))) st = record(a, n->kids[0]);
    return st;
  case PSG_TIR_FOR:
    if (!(st = collect(a, n->kids[1])) && !(st = collect(a, n->kids[2]))) st = record(a, n->kids[0]);
    return st;
  case PSG_TIR_BUFFER_STORE: { /* value and indices, not the predicate (TVM) */
    size_t ni = psgi_tir_num_indices(n);
    st = collect(a, n->kids[1]);
    for (size_t i = 0; !st && i < ni; i++) st = collect(a, psgi_tir_indices(n)[i]);
    if (!st) st = record(a, n->kids[0]->kids[0]);
    return st;
  }
  case PSG_TIR_EVALUATE:
    if ((st = collect(a, n->kids[0]))) return st;
    for (size_t i = 0; !st && i < a->writes.len; i++) st = record(a, a->writes.data[i]);
    return st;
  case PSG_TIR_ALLOCATE:
    if (!(st = collect_kids(a, n, 1, 2))) st = record(a, n->kids[0]);
    return st;
  default: return PSG_OK;
  }
}

/* a->touched = var and the closure of the definitions in body over it. */
static psg_status touched_vars(analysis *a, const psg_tir_node *body, const psg_tir_node *var) {
  PSGI_VEC(const psg_tir_node *) stack = {0};
  psg_status st = PSGI_VEC_PUSH(a->ctx, &stack, body) ? PSG_OK : psgi_nomem(a->ctx);
  while (!st && stack.len) {
    const psg_tir_node *n = stack.data[--stack.len];
    if ((st = analyse_stmt(a, n))) break;
    for (uint32_t i = n->nkids; i-- > 0;)
      if (psgi_tir_is_stmt_kind(n->kids[i]->kind) && !PSGI_VEC_PUSH(a->ctx, &stack, n->kids[i])) st = psgi_nomem(a->ctx);
  }
  stack.len = 0;
  if (!st && (!psgi_map_put_ptr(&a->touched, var, NULL) || !PSGI_VEC_PUSH(a->ctx, &stack, var))) st = psgi_nomem(a->ctx);
  while (!st && stack.len) {
    psgi_map_entry *h = psgi_map_get_ptr(&a->head, stack.data[--stack.len]);
    for (size_t e = h ? (size_t)h->value : 0; !st && e; e = a->edges.data[e - 1].next) {
      const psg_tir_node *dst = a->edges.data[e - 1].dst;
      bool is_new;
      if (!psgi_map_put_ptr(&a->touched, dst, &is_new)) st = psgi_nomem(a->ctx);
      else if (is_new && !PSGI_VEC_PUSH(a->ctx, &stack, dst)) st = psgi_nomem(a->ctx);
    }
  }
  PSGI_VEC_FREE(a->ctx, &stack);
  return st;
}

/* The injector ---------------------------------------------------------------- */

typedef struct frame {
  const psg_tir_node *n;
  psg_tir_node **kids;  /* n's operands, rewritten (owned references) */
  uint32_t next;        /* next statement child, in stmt_slot order */
  bool injected;        /* inside a statement being copied per thread */
  bool wrap;            /* this statement is the one copied */
  size_t loops_before;  /* injector.loops when it was entered */
} frame;

typedef struct injector {
  psg_ctx *ctx;
  psg_arith_analyzer *a; /* the loop ranges around the AttrStmt */
  psg_tir_node *var;     /* the vthread var */
  int64_t nthreads;
  bool allow_share;
  const psgi_map *touched;
  psgi_map remap;      /* expanded Allocate's var -> its original extent (owned) */
  psgi_map buf_remap;  /* buffer -> the expanded buffer (owned) */
  psg_tir_mutator m;   /* rewrites expressions; memoized for the whole body */
  PSGI_VEC(const psg_tir_node *) todo;
  PSGI_VEC(frame) stack;
  size_t loops;        /* For statements finished so far */
  int ptr_op, ctx_op;
} injector;

static psg_tir_node *remapped(const injector *j, const psg_tir_node *data) {
  psgi_map_entry *e = psgi_map_get_ptr(&j->remap, data);
  return e ? e->value : NULL;
}

static bool is_touched(const injector *j, const psg_tir_node *var) { return psgi_map_get_ptr(j->touched, var) != NULL; }

/* Whether e depends on the vthread (TVM's visit_touched_var_); an error if
 * it uses the address of an expanded allocation directly. */
static psg_status scan(injector *j, const psg_tir_node *e, bool *touched) {
  j->todo.len = 0;
  if (!PSGI_VEC_PUSH(j->ctx, &j->todo, e)) return psgi_nomem(j->ctx);
  while (j->todo.len) {
    const psg_tir_node *n = j->todo.data[--j->todo.len];
    uint32_t skip = UINT32_MAX, first = 0;
    if (psgi_tir_is_var_kind(n->kind)) {
      if (remapped(j, n))
        return psg_ctx_fail(j->ctx, PSG_ERR_INVALID_ARGUMENT,
                            "tir.InjectVirtualThread: the address of '%s' is used directly, but its allocation is "
                            "expanded per virtual thread (buffer address may get rewritten in virtual thread)",
                            psg_tir_var_name(n));
      *touched |= is_touched(j, n);
      continue;
    }
    bool ptr;
    psg_status st = is_access_ptr(j->ctx, n, &ptr);
    if (st) return st;
    if (ptr && remapped(j, n->kids[1])) {
      *touched = true;
      skip = 1;
    } else if (n->kind == PSG_TIR_BUFFER_LOAD) {
      const psg_tir_node *data = n->kids[0]->kids[0];
      *touched |= is_touched(j, data) || remapped(j, data);
      first = 1;
    } else if (n->kind == PSG_TIR_LET) {
      first = 1;
    }
    for (uint32_t i = first; i < n->nkids; i++)
      if (i != skip && psgi_tir_is_expr_kind(n->kids[i]->kind) && !PSGI_VEC_PUSH(j->ctx, &j->todo, n->kids[i]))
        return psgi_nomem(j->ctx);
  }
  return PSG_OK;
}

/* index + v * stride, simplified (TVM's RewriteIndex). */
static psg_status rewrite_index(injector *j, psg_tir_node *index, psg_tir_node *stride, psg_tir_node **out) {
  psg_tir_node *off = NULL, *sum = NULL;
  psg_status st = psg_tir_op_binary(j->ctx, PSG_TIR_MUL, j->var, stride, &index->span, &off);
  if (!st) st = psg_tir_op_binary(j->ctx, PSG_TIR_ADD, index, off, &index->span, &sum);
  if (!st) st = psg_arith_simplify(j->a, sum, out);
  psg_tir_release(off);
  psg_tir_release(sum);
  return st;
}

/* The expanded form of buffer b (TVM's GetRemappedBuffer): shape[0] * n
 * (TVM multiplies by the allocation's extent instead, which is the same
 * only when that equals the thread count). Borrowed from the cache. */
static psg_status remap_buffer(injector *j, const psg_tir_node *b, psg_tir_node **out) {
  psgi_map_entry *e = psgi_map_get_ptr(&j->buf_remap, b);
  if (e) {
    *out = e->value;
    return PSG_OK;
  }
  if (b->u.buf.ndim != 1)
    return psg_ctx_fail(j->ctx, PSG_ERR_INVALID_ARGUMENT,
                        "tir.InjectVirtualThread: buffer '%s' of an expanded allocation has %u dimensions; the "
                        "pass expects flat buffers (run tir.FlattenBuffer first)",
                        b->u.buf.name, b->u.buf.ndim);
  psg_tir_node *kids[64], **k = kids, *count = NULL, *shape = NULL, *nb = NULL;
  if (b->nkids > 64 && !(k = psgi_alloc(j->ctx, b->nkids * sizeof *k))) return psgi_nomem(j->ctx);
  memcpy(k, b->kids, b->nkids * sizeof *k);
  psg_status st = psg_tir_make_const_int(j->ctx, b->kids[2]->dtype, j->nthreads, &b->span, &count);
  if (!st) st = psg_tir_op_binary(j->ctx, PSG_TIR_MUL, b->kids[2], count, &b->span, &shape);
  psg_tir_release(count);
  if (!st) {
    k[2] = shape;
    st = psgi_tir_rebuild(b, k, &nb);
  }
  psg_tir_release(shape);
  if (k != kids) psgi_free(j->ctx, k);
  if (st) return st;
  if (!(e = psgi_map_put_ptr(&j->buf_remap, b, NULL))) {
    psg_tir_release(nb);
    return psgi_nomem(j->ctx);
  }
  e->value = nb;
  *out = nb;
  return PSG_OK;
}

/* A load or store of an expanded buffer (kids: its rewritten operands). */
static psg_status remap_access(injector *j, const psg_tir_node *n, psg_tir_node **kids) {
  psg_tir_node *extent = remapped(j, n->kids[0]->kids[0]);
  if (!extent) return PSG_OK;
  if (psgi_tir_num_indices(n) != 1)
    return psg_ctx_fail(j->ctx, PSG_ERR_INVALID_ARGUMENT,
                        "tir.InjectVirtualThread: an access of buffer '%s' has %zu indices; the pass expects flat "
                        "memory (run tir.FlattenBuffer first)",
                        n->kids[0]->u.buf.name, psgi_tir_num_indices(n));
  size_t at = (size_t)(psgi_tir_indices(n) - n->kids);
  psg_tir_node *buf = NULL, *index = NULL;
  psg_status st = remap_buffer(j, n->kids[0], &buf);
  if (!st) st = rewrite_index(j, kids[at], extent, &index);
  if (st) return st;
  psg_tir_release(kids[0]);
  psg_tir_retain(kids[0] = buf);
  psg_tir_release(kids[at]);
  kids[at] = index;
  return PSG_OK;
}

static psg_status rebuild_if_changed(const psg_tir_node *n, psg_tir_node **kids, psg_tir_node **out) {
  for (uint32_t i = 0; i < n->nkids; i++)
    if (kids[i] != n->kids[i]) return psgi_tir_rebuild(n, kids, out);
  psg_tir_retain(*out = (psg_tir_node *)n);
  return PSG_OK;
}

/* Operands of n (a BufferLoad or Call) after its children: the rewritten
 * ones, retained, in a new array. */
static psg_status rewritten_kids(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node ***out) {
  psg_tir_node **k = psgi_alloc(m->ctx, (n->nkids ? n->nkids : 1) * sizeof *k);
  if (!k) return psgi_nomem(m->ctx);
  for (uint32_t i = 0; i < n->nkids; i++) psg_tir_retain(k[i] = psg_tir_mutator_get_result(m, n->kids[i]));
  *out = k;
  return PSG_OK;
}

static void release_kids(psg_ctx *ctx, psg_tir_node **k, uint32_t n) {
  for (uint32_t i = 0; k && i < n; i++) psg_tir_release(k[i]);
  psgi_free(ctx, k);
}

static psg_status visit_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  injector *j = m->user;
  psg_tir_node **k = NULL;
  psg_status st = rewritten_kids(m, n, &k);
  if (!st) st = remap_access(j, n, k);
  if (!st) st = rebuild_if_changed(n, k, out);
  release_kids(m->ctx, k, n->nkids);
  return st;
}

static psg_status visit_call(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  injector *j = m->user;
  if ((int)n->u.op == j->ctx_op && !j->allow_share) { /* tvm_context_id(): the thread */
    if (n->dtype == j->var->dtype) {
      psg_tir_retain(*out = j->var);
      return PSG_OK;
    }
    return psg_tir_op_cast(m->ctx, n->dtype, j->var, &n->span, out);
  }
  psg_tir_node *extent = (int)n->u.op == j->ptr_op && n->nkids == 5 ? remapped(j, n->kids[1]) : NULL;
  if (!extent) return psg_tir_mutator_default(m, n, out);
  /* tvm_access_ptr(type, data, offset, extent, mask): offset + v * (e / lanes) */
  psg_tir_node **k = NULL, *lanes = NULL, *stride = NULL, *offset = NULL;
  psg_status st = rewritten_kids(m, n, &k);
  if (!st) st = psg_tir_make_const_int(m->ctx, k[2]->dtype, psg_tir_dtype_lanes(k[0]->dtype), &n->span, &lanes);
  if (!st) st = psg_tir_op_binary(m->ctx, PSG_TIR_DIV, extent, lanes, &n->span, &stride);
  if (!st) st = rewrite_index(j, k[2], stride, &offset);
  if (!st) {
    psg_tir_release(k[2]);
    k[2] = offset;
    st = rebuild_if_changed(n, k, out);
  }
  psg_tir_release(lanes);
  psg_tir_release(stride);
  release_kids(m->ctx, k, n->nkids);
  return st;
}

/* Expression e rewritten for the expanded allocations, and whether it
 * depends on the vthread. */
static psg_status rewrite_expr(injector *j, psg_tir_node *e, psg_tir_node **out, bool *touched) {
  psg_status st = scan(j, e, touched);
  if (!st) st = psg_tir_mutate(&j->m, e, out);
  return st;
}

/* Whether operand i of statement n is one of its own expressions (not a var
 * it defines, not an AttrStmt's node). */
static bool own_expr(const psg_tir_node *n, uint32_t i) {
  if (!psgi_tir_is_expr_kind(n->kids[i]->kind)) return false;
  switch (n->kind) {
  case PSG_TIR_FOR:
  case PSG_TIR_LET_STMT:
  case PSG_TIR_ALLOCATE: return i != 0;
  case PSG_TIR_ATTR_STMT: return i == 0;
  default: return true;
  }
}

static bool is_coproc_scope(const psg_tir_node *n) {
  return n->kind == PSG_TIR_ATTR_STMT &&
         (!strcmp(n->u.attr_key, "coproc_scope") || !strcmp(n->u.attr_key, "coproc_uop_scope"));
}

/* An Allocate: expanded when its var is touched or threads share nothing. */
static psg_status expand_allocate(injector *j, const psg_tir_node *n, psg_tir_node **kids) {
  if (!is_touched(j, n->kids[0]) && j->allow_share) return PSG_OK;
  if (n->nkids != 4)
    return psg_ctx_fail(j->ctx, PSG_ERR_INVALID_ARGUMENT,
                        "tir.InjectVirtualThread: allocation '%s' has %u extents; the pass expects flat memory "
                        "(run tir.FlattenBuffer first)",
                        psg_tir_var_name(n->kids[0]), n->nkids - 3);
  psg_tir_node *count = NULL, *total = NULL;
  psg_status st = psg_tir_make_const_int(j->ctx, kids[3]->dtype, j->nthreads, &n->span, &count);
  if (!st) st = psg_tir_op_binary(j->ctx, PSG_TIR_MUL, kids[3], count, &n->span, &total);
  psg_tir_release(count);
  if (st) return st;
  psgi_map_entry *e = psgi_map_put_ptr(&j->remap, n->kids[0], NULL);
  if (!e) {
    psg_tir_release(total);
    return psgi_nomem(j->ctx);
  }
  psg_tir_release(e->value); /* a var allocated twice: the latest counts */
  e->value = kids[3];        /* the reference moves to the map */
  kids[3] = total;
  return PSG_OK;
}

/* n copies of s: unrolled when it holds no loop and they are few, else in a
 * loop over a new var "<v>.s" (TVM's InjectVTLoop). */
static psg_status inject(injector *j, psg_tir_node *s, bool has_loop, psg_tir_node **out) {
  psg_status st = PSG_OK;
  psg_tir_dtype dt = j->var->dtype;
  if (!has_loop && j->nthreads < UNROLL_LIMIT) {
    size_t n = (size_t)j->nthreads;
    psg_tir_node **copies = psgi_calloc(j->ctx, (n ? n : 1) * sizeof *copies);
    if (!copies) return psgi_nomem(j->ctx);
    for (size_t i = 0; !st && i < n; i++) {
      psg_tir_node *c = NULL;
      st = psg_tir_int_imm_create(j->ctx, dt, (int64_t)i, &s->span, &c);
      if (!st) st = psgi_tir_substitute(j->ctx, s, j->var, c, &copies[i]);
      psg_tir_release(c);
    }
    if (!st) st = psgi_tir_seq_flatten(j->ctx, copies, n, &s->span, out);
    for (size_t i = 0; i < n; i++) psg_tir_release(copies[i]);
    psgi_free(j->ctx, copies);
    return st;
  }
  char name[160];
  snprintf(name, sizeof name, "%s.s", psg_tir_var_name(j->var));
  psg_tir_node *idx = NULL, *zero = NULL, *count = NULL, *body = NULL;
  st = psg_tir_var_create(j->ctx, name, dt, NULL, &s->span, &idx);
  if (!st) st = psg_tir_int_imm_create(j->ctx, dt, 0, &s->span, &zero);
  if (!st) st = psg_tir_int_imm_create(j->ctx, dt, j->nthreads, &s->span, &count);
  if (!st) st = psgi_tir_substitute(j->ctx, s, j->var, idx, &body);
  if (!st) st = psg_tir_for_create(j->ctx, idx, zero, count, PSG_TIR_FOR_SERIAL, body, NULL, &s->span, out);
  psg_tir_release(idx);
  psg_tir_release(zero);
  psg_tir_release(count);
  psg_tir_release(body);
  return st;
}

/* Reaching statement n: its own expressions rewritten, the injection
 * decision, the expansion of an Allocate. */
static psg_status enter(injector *j, const psg_tir_node *n, bool injected) {
  if (n->kind == PSG_TIR_WHILE)
    return psg_ctx_fail(j->ctx, PSG_ERR_UNSUPPORTED,
                        "tir.InjectVirtualThread: a While loop in a virtual thread is not supported (as in TVM)");
  frame f = {.n = n, .injected = injected, .loops_before = j->loops};
  if (!(f.kids = psgi_alloc(j->ctx, (n->nkids ? n->nkids : 1) * sizeof *f.kids))) return psgi_nomem(j->ctx);
  for (uint32_t i = 0; i < n->nkids; i++) psg_tir_retain(f.kids[i] = n->kids[i]);
  bool touched = false;
  psg_status st = PSG_OK;
  for (uint32_t i = 0; !st && i < n->nkids; i++) {
    if (!own_expr(n, i)) continue;
    psg_tir_node *r = NULL;
    if (!(st = rewrite_expr(j, n->kids[i], &r, &touched))) {
      psg_tir_release(f.kids[i]);
      f.kids[i] = r;
    }
  }
  if (!st && (n->kind == PSG_TIR_BUFFER_STORE || n->kind == PSG_TIR_DECL_BUFFER)) {
    const psg_tir_node *data = n->kids[0]->kids[0];
    touched |= n->kind == PSG_TIR_BUFFER_STORE && (is_touched(j, data) || remapped(j, data));
    if (n->kind == PSG_TIR_BUFFER_STORE) {
      st = remap_access(j, n, f.kids);
    } else if (remapped(j, data)) {
      psg_tir_node *b = NULL;
      if (!(st = remap_buffer(j, n->kids[0], &b))) {
        psg_tir_release(f.kids[0]);
        psg_tir_retain(f.kids[0] = b);
      }
    }
  }
  /* Without sharing, every store and Evaluate runs per thread (TVM's trigger_base_inject_). */
  if (!j->allow_share && (n->kind == PSG_TIR_BUFFER_STORE || n->kind == PSG_TIR_EVALUATE || is_coproc_scope(n)))
    touched = true;
  if (!injected && touched) f.injected = f.wrap = true;
  if (!st && n->kind == PSG_TIR_ALLOCATE) st = expand_allocate(j, n, f.kids);
  if (!st && !PSGI_VEC_PUSH(j->ctx, &j->stack, f)) st = psgi_nomem(j->ctx);
  if (st) release_kids(j->ctx, f.kids, n->nkids);
  return st;
}

/* Frame f is complete: the statement over its rewritten operands, copied
 * per thread if it is the injected one. */
static psg_status finish(injector *j, frame *f, psg_tir_node **out) {
  psg_tir_node *r = NULL;
  psg_status st = rebuild_if_changed(f->n, f->kids, &r);
  if (st) return st;
  if (f->n->kind == PSG_TIR_FOR) j->loops++;
  if (!f->wrap) {
    *out = r;
    return PSG_OK;
  }
  st = inject(j, r, j->loops > f->loops_before, out);
  psg_tir_release(r);
  return st;
}

static psg_status run(injector *j, const psg_tir_node *body, psg_tir_node **out) {
  psg_status st = enter(j, body, false);
  while (!st && j->stack.len) {
    frame *f = &j->stack.data[j->stack.len - 1];
    int slot = psgi_tir_stmt_slot(f->n, f->next);
    if (slot >= 0) {
      f->next++;
      st = enter(j, f->n->kids[slot], f->injected);
      continue;
    }
    psg_tir_node *r = NULL;
    st = finish(j, f, &r);
    release_kids(j->ctx, f->kids, f->n->nkids);
    j->stack.len--;
    if (st) break;
    if (!j->stack.len) {
      *out = r;
      return PSG_OK;
    }
    frame *p = &j->stack.data[j->stack.len - 1];
    int at = psgi_tir_stmt_slot(p->n, p->next - 1);
    psg_tir_release(p->kids[at]);
    p->kids[at] = r;
  }
  for (size_t i = 0; i < j->stack.len; i++) release_kids(j->ctx, j->stack.data[i].kids, j->stack.data[i].n->nkids);
  j->stack.len = 0;
  return st;
}

static void release_values(psgi_map *m) {
  for (size_t i = 0; i < m->len; i++) psg_tir_release(m->entries[i].value);
  psgi_map_fini(m);
}

/* The body of a "virtual_thread" AttrStmt (attr: the original, body: its
 * rewritten body) with the threads injected. */
static psg_status inject_attr(psg_ctx *ctx, psg_arith_analyzer *a, const psg_tir_node *attr, psg_tir_node *body,
                              psg_tir_node **out) {
  const psg_tir_node *iv = attr->kids[2], *value = attr->kids[0];
  if (value->kind != PSG_TIR_INT_IMM || value->u.int_value < 0)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "tir.InjectVirtualThread: the number of virtual threads of '%s' must be a non-negative "
                        "integer constant",
                        psg_tir_var_name(iv->kids[0]));
  analysis an = {.ctx = ctx};
  psgi_map_init(&an.touched, ctx);
  psgi_map_init(&an.head, ctx);
  injector j = {.ctx = ctx, .a = a, .var = iv->kids[0], .nthreads = value->u.int_value,
                .allow_share = !strncmp(psg_tir_iter_var_thread_tag(iv), "vthread", 7), .touched = &an.touched,
                .ptr_op = PSGI_TIR_OP_tvm_access_ptr, .ctx_op = PSGI_TIR_OP_tvm_context_id};
  psgi_map_init(&j.remap, ctx);
  psgi_map_init(&j.buf_remap, ctx);
  psg_tir_mutator_init(&j.m, ctx);
  j.m.user = &j;
  j.m.visit[PSG_TIR_BUFFER_LOAD] = visit_load;
  j.m.visit[PSG_TIR_CALL] = visit_call;
  psg_status st = touched_vars(&an, body, j.var);
  if (!st) st = run(&j, body, out);
  psg_tir_mutator_fini(&j.m);
  release_values(&j.remap);
  release_values(&j.buf_remap);
  PSGI_VEC_FREE(ctx, &j.todo);
  PSGI_VEC_FREE(ctx, &j.stack);
  psgi_map_fini(&an.touched);
  psgi_map_fini(&an.head);
  PSGI_VEC_FREE(ctx, &an.edges);
  PSGI_VEC_FREE(ctx, &an.uses);
  PSGI_VEC_FREE(ctx, &an.writes);
  PSGI_VEC_FREE(ctx, &an.todo);
  return st;
}

/* The walk over the function ----------------------------------------------- */

static bool is_vthread_attr(const psg_tir_node *n) {
  return n->kind == PSG_TIR_ATTR_STMT && !strcmp(n->u.attr_key, "virtual_thread") &&
         (n->flags & PSGI_TIR_HAS_NODE) && n->kids[2]->kind == PSG_TIR_ITER_VAR;
}

/* Loops around a vthread bound their vars for the index simplification. */
static psg_status bind_loop(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot) {
  if (parent->kind != PSG_TIR_FOR || slot != 3) return PSG_OK;
  return psg_arith_bind(m->user, parent->kids[0], psg_tir_mutator_get_result(m, parent->kids[1]),
                        psg_tir_mutator_get_result(m, parent->kids[2]));
}

static psg_status visit_attr(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  if (!is_vthread_attr(n)) return psg_tir_mutator_default(m, n, out);
  return inject_attr(m->ctx, m->user, n, psg_tir_mutator_get_result(m, n->kids[1]), out);
}

/* Whether a statement of body is a vthread AttrStmt (statements only: the
 * common case, none, costs one walk with no analyzer and no copy). */
static psg_status has_vthread(psg_ctx *ctx, const psg_tir_node *body, bool *out) {
  PSGI_VEC(const psg_tir_node *) st = {0};
  *out = false;
  bool ok = PSGI_VEC_PUSH(ctx, &st, body);
  while (ok && st.len && !*out) {
    const psg_tir_node *n = st.data[--st.len];
    *out = is_vthread_attr(n);
    for (uint32_t i = 0; ok && i < n->nkids; i++)
      if (psgi_tir_is_stmt_kind(n->kids[i]->kind)) ok = PSGI_VEC_PUSH(ctx, &st, n->kids[i]);
  }
  PSGI_VEC_FREE(ctx, &st);
  return ok ? PSG_OK : psgi_nomem(ctx);
}

psg_status psgi_tir_inject_virtual_thread(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out) {
  *out = NULL;
  bool any;
  psg_status st = has_vthread(ctx, psg_tir_get_body(f), &any);
  if (st || !any) {
    if (!st) psg_tir_retain(*out = (psg_tir_prim_func *)f);
    return st;
  }
  psg_arith_analyzer *a = NULL;
  if ((st = psg_arith_analyzer_create(ctx, &a))) return st;
  psg_tir_node *changed = NULL;
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = a;
  m.before_child = bind_loop;
  m.visit[PSG_TIR_ATTR_STMT] = visit_attr;
  st = psg_tir_mutate(&m, f, &changed);
  psg_tir_mutator_fini(&m);
  psg_arith_analyzer_destroy(a);
  if (!st && changed != f) st = psgi_tir_convert_ssa_func(ctx, changed, out);
  else if (!st) psg_tir_retain(*out = changed);
  psg_tir_release(changed);
  return st;
}

static psg_status inject_virtual_thread_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                             psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  return psgi_tir_inject_virtual_thread(psg_pass_context_get_ctx(pc), f, out);
}

const psg_pass_decl psgi_pass_tir_inject_virtual_thread = {
    .name = "tir.InjectVirtualThread",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "serialize virtual threads (AttrStmt virtual_thread): allocations expanded per thread, the statements "
            "that depend on the thread copied or looped over it",
    .prim_func = inject_virtual_thread_pass,
    .cacheable = true,
};
