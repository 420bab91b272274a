/* Passage — compiling a PrimFunc body for the TIR interpreter's fast path
 * (tir_eval_fast.h): statements to jumps over `stmts`, expressions to
 * postfix programs over `exprs`, both with explicit stacks. What does not
 * compile (vectors, predicated or multi-lane accesses, buffers of symbolic
 * strides, thread launches, asserts, while loops, intrinsics other than the
 * libm ones) is left to the generic machine: an expression that does not
 * compile makes its statement an S_GENERIC. */
#include "interp/tir_eval_fast.h"

typedef struct citem {
  const psg_tir_node *n;
  uint32_t phase;
  size_t a, b; /* pcs to patch */
} citem;

typedef struct comp {
  psgi_tir_interp *in;
  psgi_tir_fcode *c;
  PSGI_VEC(citem) work;
  psgi_map bufs; /* Buffer node -> its psgi_tir_fbuf (NULL: does not compile) */
  psg_tir_dtype f32, i32, i64;
  size_t barrier; /* exprs before it may not be fused with later ones: a jump lands there */
  bool nomem;
} comp;

static size_t emit(comp *k, bool stmt, psgi_tir_fop op) {
  psgi_tir_fcode *c = k->c;
  if (stmt ? !PSGI_VEC_PUSH(k->in->ctx, &c->stmts, op) : !PSGI_VEC_PUSH(k->in->ctx, &c->exprs, op)) {
    k->nomem = true;
    return 0;
  }
  return (stmt ? c->stmts.len : c->exprs.len) - 1;
}

static bool is_int_class(psg_tir_dtype t) {
  int cls = psgi_tir_lane_class(t);
  return psg_tir_dtype_lanes(t) == 1 && (cls == PSGI_TIR_SINT || cls == PSGI_TIR_UINT);
}

/* The constant value of an integer IntImm as the generic machine reads it. */
static bool int_const(const psg_tir_node *e, int64_t *out) {
  if (e->kind != PSG_TIR_INT_IMM || !is_int_class(e->dtype)) return false;
  *out = psgi_tir_wrap(e->dtype, (uint64_t)e->u.int_value);
  return psgi_tir_lane_class(e->dtype) == PSGI_TIR_SINT || *out >= 0;
}

/* Buffer b as compiled, or NULL (strides or elem_offset not constant, a
 * vector or odd-sized element). */
static const psgi_tir_fbuf *compile_buffer(comp *k, const psg_tir_node *b) {
  psgi_map_entry *en = psgi_map_get_ptr(&k->bufs, b);
  if (en) return en->value;
  psgi_tir_fbuf *fb = NULL;
  size_t ndim = b->u.buf.ndim, bytes = psgi_tir_scalar_bytes(b->dtype);
  int64_t base;
  if (psg_tir_dtype_lanes(b->dtype) == 1 && !psg_tir_dtype_is_handle(b->dtype) && (bytes & (bytes - 1)) == 0 &&
      int_const(b->kids[1], &base)) {
    fb = psgi_arena_alloc(&k->c->arena, sizeof *fb + ndim * sizeof(int64_t));
    if (!fb) {
      k->nomem = true;
      return NULL;
    }
    fb->data_slot = psgi_tir_slot(k->in, b->kids[0]);
    if (fb->data_slot == SIZE_MAX) k->nomem = true;
    fb->dtype = b->dtype;
    fb->ndim = (uint32_t)ndim;
    fb->shift = (uint8_t)__builtin_ctzll(bytes);
    fb->form = b->dtype == k->f32 ? PSGI_TIR_FORM_F32 : b->dtype == k->i32 ? PSGI_TIR_FORM_I32 : PSGI_TIR_FORM_GENERIC;
    fb->base = base;
    fb->epoch = 0; /* no memory found yet: runs start at epoch 1 */
    psg_tir_node *const *shape = b->kids + 2, *const *strides = b->kids + 2 + ndim;
    for (size_t d = ndim; fb && d-- > 0;) { /* as flat_offsets in tir_eval.c computes them */
      int64_t s, dim;
      if (b->u.buf.nstrides) {
        if (!int_const(strides[d], &s)) fb = NULL;
      } else if (d == ndim - 1) {
        s = 1;
      } else if (!int_const(shape[d + 1], &dim) || __builtin_mul_overflow(fb->strides[d + 1], dim, &s)) {
        fb = NULL;
      }
      if (fb) fb->strides[d] = s;
    }
  }
  if (!(en = psgi_map_put_ptr(&k->bufs, b, NULL))) k->nomem = true;
  else en->value = fb;
  return fb;
}

static bool push_work(comp *k, const psg_tir_node *n) {
  citem it = {n, 0, 0, 0};
  if (!PSGI_VEC_PUSH(k->in->ctx, &k->work, it)) k->nomem = true;
  return !k->nomem;
}

static uint8_t binary_op(comp *k, int kind, psg_tir_dtype t) {
  if (t == k->f32) {
    switch (kind) {
      case PSG_TIR_ADD: return X_F32_ADD;
      case PSG_TIR_SUB: return X_F32_SUB;
      case PSG_TIR_MUL: return X_F32_MUL;
      case PSG_TIR_DIV: return X_F32_DIV;
      case PSG_TIR_MIN: return X_F32_MIN;
      case PSG_TIR_MAX: return X_F32_MAX;
      default: return X_BIN;
    }
  }
  if (t == k->i32) {
    switch (kind) {
      case PSG_TIR_ADD: return X_I32_ADD;
      case PSG_TIR_SUB: return X_I32_SUB;
      case PSG_TIR_MUL: return X_I32_MUL;
      case PSG_TIR_MIN: return X_I32_MIN;
      case PSG_TIR_MAX: return X_I32_MAX;
      default: break;
    }
  }
  if (t == k->i64) {
    switch (kind) {
      case PSG_TIR_ADD: return X_I64_ADD;
      case PSG_TIR_SUB: return X_I64_SUB;
      case PSG_TIR_MUL: return X_I64_MUL;
      default: break;
    }
  }
  if ((t == k->i32 || t == k->i64) && kind >= PSG_TIR_EQ && kind <= PSG_TIR_GE) {
    static const uint8_t cmp[] = {X_IEQ, X_INE, X_ILT, X_ILE, X_IGT, X_IGE};
    return cmp[kind - PSG_TIR_EQ];
  }
  return X_BIN;
}

/* exprs[i] as an int32 affine form when it pushes one without popping
 * anything (an int32 constant or var, an X_AFFINE) and no jump lands after
 * it: then it is the whole operand it stands for. */
static bool affine_leaf(comp *k, size_t i) {
  if (i < k->barrier || i >= k->c->exprs.len) return false;
  const psgi_tir_fop *o = &k->c->exprs.data[i];
  return o->op == X_AFFINE || ((o->op == X_CONST || o->op == X_VAR) && o->t == k->i32);
}

/* sa * exprs[ia] + sb * exprs[ib] (ib: SIZE_MAX for none) as a new affine form. */
static psgi_tir_affine *affine_sum(comp *k, size_t ia, uint64_t sa, size_t ib, uint64_t sb) {
  const psgi_tir_fop *ops[2] = {&k->c->exprs.data[ia], ib == SIZE_MAX ? NULL : &k->c->exprs.data[ib]};
  uint64_t scale[2] = {sa, sb};
  size_t n = 0;
  for (int j = 0; j < 2; j++)
    if (ops[j]) n += ops[j]->op == X_AFFINE ? ops[j]->u.af->n : ops[j]->op == X_VAR;
  psgi_tir_affine *af = psgi_arena_alloc(&k->c->arena, sizeof *af + n * sizeof af->t[0]);
  if (!af) {
    k->nomem = true;
    return NULL;
  }
  af->b = NULL;
  af->c = 0;
  af->n = 0;
  for (int j = 0; j < 2; j++) {
    const psgi_tir_fop *o = ops[j];
    if (!o) continue;
    if (o->op == X_CONST) {
      af->c += o->u.k.u * scale[j];
    } else if (o->op == X_VAR) {
      af->t[af->n].slot = o->a;
      af->t[af->n++].k = scale[j];
    } else {
      af->c += o->u.af->c * scale[j];
      for (uint32_t i = 0; i < o->u.af->n; i++) {
        af->t[af->n].slot = o->u.af->t[i].slot;
        af->t[af->n++].k = o->u.af->t[i].k * scale[j];
      }
    }
  }
  return af;
}

/* int32 index arithmetic as affine forms: `a + b`, `a - b`, `a * constant`
 * of constants, vars and affine forms become one X_AFFINE; `x + form` and
 * `x - form` an X_ADD_AFFINE, `x * constant` an X_I32_MULK. The operands'
 * instructions are dropped and op rewritten. */
static void fuse(comp *k, psgi_tir_fop *op) {
  size_t len = k->c->exprs.len, ib = len - 1, ia = len - 2;
  if (len == 0 || (op->op != X_I32_ADD && op->op != X_I32_SUB && op->op != X_I32_MUL) || !affine_leaf(k, ib)) return;
  bool both = len >= 2 && affine_leaf(k, ia);
  const psgi_tir_fop *b = &k->c->exprs.data[ib];
  psgi_tir_affine *af = NULL;
  if (op->op == X_I32_MUL) {
    if (b->op != X_CONST) return;
    if (!both) {
      op->op = X_I32_MULK;
      op->u.k = b->u.k;
      k->c->exprs.len = len - 1;
      return;
    }
    if (!(af = affine_sum(k, ia, b->u.k.u, SIZE_MAX, 0))) return;
  } else {
    uint64_t sb = op->op == X_I32_SUB ? (uint64_t)0 - 1 : 1;
    if (!both) {
      if (!(af = affine_sum(k, ib, sb, SIZE_MAX, 0))) return;
      op->op = X_ADD_AFFINE;
      op->u.af = af;
      k->c->exprs.len = len - 1;
      return;
    }
    if (!(af = affine_sum(k, ia, 1, ib, sb))) return;
  }
  op->op = X_AFFINE;
  op->t = k->i32;
  op->u.af = af;
  k->c->exprs.len = len - 2;
}

/* A 1-D load whose index is an affine form: one instruction. */
static void fuse_load(comp *k, psgi_tir_fop *op) {
  size_t len = k->c->exprs.len;
  if (op->op != X_LOAD1 || len == 0 || !affine_leaf(k, len - 1) || k->c->exprs.data[len - 1].op != X_AFFINE) return;
  psgi_tir_affine *af = affine_sum(k, len - 1, 1, SIZE_MAX, 0);
  if (!af) return;
  af->b = op->u.b;
  op->op = X_LOAD1_AFF;
  op->u.af = af;
  k->c->exprs.len = len - 1;
}

/* One step of compiling the expression on top of the work stack: false when
 * it does not compile. Every value has its node's scalar dtype (X_VAR
 * checks the binding's at run time), as the generic machine's would. */
static bool expr_step(comp *k, size_t *depth) {
  citem *it = &k->work.data[k->work.len - 1];
  const psg_tir_node *n = it->n;
  psgi_tir_fop op = {.n = n, .t = n->dtype};
  uint32_t ph = it->phase++;
  if (psg_tir_dtype_lanes(n->dtype) != 1) return false;
  (*depth)++; /* an upper bound: every node pushes at most one value */
  switch (n->kind) {
    case PSG_TIR_VAR:
    case PSG_TIR_SIZE_VAR: {
      size_t slot = psgi_tir_slot(k->in, n);
      if (slot == SIZE_MAX) k->nomem = true;
      if (slot >= UINT32_MAX) return false;
      op.op = X_VAR;
      op.a = (uint32_t)slot;
      k->work.len--;
      return emit(k, false, op), true;
    }
    case PSG_TIR_INT_IMM:
    case PSG_TIR_FLOAT_IMM:
      if (psgi_tir_lane_class(n->dtype) == PSGI_TIR_HANDLE) return false;
      op.op = X_CONST;
      if (n->kind == PSG_TIR_INT_IMM) op.u.k.i = psgi_tir_wrap(n->dtype, (uint64_t)n->u.int_value);
      else op.u.k.f = psgi_tir_round_float(n->dtype, n->u.float_value);
      k->work.len--;
      return emit(k, false, op), true;
    case PSG_TIR_AND:
    case PSG_TIR_OR: /* lazy: a decides, or b is the result */
      if (n->kids[0]->dtype != n->dtype || n->kids[1]->dtype != n->dtype) return false;
      if (ph == 0) return push_work(k, n->kids[0]);
      if (ph == 1) {
        op.op = n->kind == PSG_TIR_AND ? X_JZK : X_JNZK;
        it->a = emit(k, false, op);
        op.op = X_POP;
        emit(k, false, op);
        return push_work(k, n->kids[1]);
      }
      k->c->exprs.data[it->a].a = (uint32_t)(k->barrier = k->c->exprs.len);
      k->work.len--;
      return true;
    case PSG_TIR_LET: /* var, value, body (not a handle: loads cache the memory of handles) */
      if (n->kids[2]->dtype != n->dtype || psg_tir_dtype_is_handle(n->kids[1]->dtype)) return false;
      if (ph == 0) return push_work(k, n->kids[1]);
      if (ph == 1) {
        size_t slot = psgi_tir_slot(k->in, n->kids[0]);
        if (slot == SIZE_MAX) k->nomem = true;
        if (slot >= UINT32_MAX) return false;
        op.op = X_BIND;
        op.a = (uint32_t)slot;
        op.n = n->kids[0];
        op.t = n->kids[1]->dtype;
        emit(k, false, op);
        return push_work(k, n->kids[2]);
      }
      op.op = X_UNBIND;
      k->work.len--;
      return emit(k, false, op), true;
    case PSG_TIR_CALL:
      if (n->u.op == PSGI_TIR_OP_likely) {
        if (n->nkids != 1 || n->kids[0]->dtype != n->dtype) return false;
        if (ph == 0) return push_work(k, n->kids[0]);
        k->work.len--;
        return true;
      }
      if (n->u.op == PSGI_TIR_OP_if_then_else) { /* a scalar condition: lazy */
        if (n->nkids != 3 || n->kids[1]->dtype != n->dtype || n->kids[2]->dtype != n->dtype) return false;
        if (ph == 0) return push_work(k, n->kids[0]);
        if (ph == 1) {
          op.op = X_JZ;
          it->a = emit(k, false, op);
          return push_work(k, n->kids[1]);
        }
        if (ph == 2) {
          op.op = X_JMP;
          it->b = emit(k, false, op);
          k->c->exprs.data[it->a].a = (uint32_t)(k->barrier = k->c->exprs.len);
          return push_work(k, n->kids[2]);
        }
        k->c->exprs.data[it->b].a = (uint32_t)(k->barrier = k->c->exprs.len);
        k->work.len--;
        return true;
      }
      {
        uint32_t o = n->u.op;
        size_t first = 0;
        const char *name;
        if (o == PSGI_TIR_OP_call_extern || o == PSGI_TIR_OP_call_pure_extern) {
          const psg_tir_node *fn = n->nkids ? n->kids[0] : NULL;
          if (!fn || fn->kind != PSG_TIR_STRING_IMM || memchr(fn->u.str.s, 0, fn->u.str.len)) return false;
          name = fn->u.str.s;
          first = 1;
        } else if (psgi_tir_ops[o].rule == PSGI_TIR_RULE_FLOAT_SAME || psgi_tir_ops[o].rule == PSGI_TIR_RULE_FLOAT_PRED) {
          name = psgi_tir_ops[o].name + 4;
        } else {
          return false;
        }
        int arity;
        bool pred;
        psgi_tir_math1 f1;
        psgi_tir_math2 f2;
        if (!psgi_tir_math_find(name, &arity, &f1, &f2, &pred) || (size_t)arity != n->nkids - first) return false;
        if (!pred && psgi_tir_lane_class(n->dtype) != PSGI_TIR_FLOAT) return false;
        if (ph == 0)
          for (size_t a = first; a < n->nkids; a++)
            if (psgi_tir_lane_class(n->kids[a]->dtype) != PSGI_TIR_FLOAT) return false;
        if (first + ph < n->nkids) return push_work(k, n->kids[first + ph]);
        op.op = arity == 1 ? X_MATH1 : X_MATH2;
        if (arity == 1) op.u.f1 = f1;
        else op.u.f2 = f2;
        op.kind = pred;
        k->work.len--;
        return emit(k, false, op), true;
      }
    default: break;
  }
  /* Eager operands, then the operation. */
  size_t first = n->kind == PSG_TIR_BUFFER_LOAD ? 1 : 0;
  if (ph == 0) {
    if (n->kind >= PSG_TIR_ADD && n->kind <= PSG_TIR_GE) {
      if (n->kids[0]->dtype != n->kids[1]->dtype) return false;
      op.op = binary_op(k, n->kind, n->kids[0]->dtype);
    } else if (n->kind == PSG_TIR_NOT) {
      if (n->kids[0]->dtype != n->dtype) return false;
    } else if (n->kind == PSG_TIR_SELECT) {
      if (n->kids[1]->dtype != n->dtype || n->kids[2]->dtype != n->dtype) return false;
    } else if (n->kind == PSG_TIR_BUFFER_LOAD) {
      const psgi_tir_fbuf *fb = compile_buffer(k, n->kids[0]);
      if (!fb || (n->flags & PSGI_TIR_HAS_PRED) || psgi_tir_num_indices(n) != fb->ndim || fb->dtype != n->dtype)
        return false;
    } else if (n->kind != PSG_TIR_CAST) {
      return false;
    }
  }
  if (first + ph < n->nkids) return push_work(k, n->kids[first + ph]);
  switch (n->kind) {
    case PSG_TIR_CAST:
      if (psgi_tir_lane_class(n->kids[0]->dtype) == PSGI_TIR_HANDLE) return false;
      op.op = X_CAST;
      op.t2 = n->kids[0]->dtype;
      break;
    case PSG_TIR_NOT: op.op = X_NOT; break;
    case PSG_TIR_SELECT: op.op = X_SELECT; break;
    case PSG_TIR_BUFFER_LOAD:
      op.u.b = compile_buffer(k, n->kids[0]);
      op.op = op.u.b->ndim == 1 && op.u.b->strides[0] == 1 ? X_LOAD1 : X_LOAD;
      fuse_load(k, &op);
      break;
    default: /* binary */
      op.op = binary_op(k, n->kind, n->kids[0]->dtype);
      op.kind = (uint8_t)n->kind;
      op.t = n->kids[0]->dtype; /* the operands' */
      fuse(k, &op);
      break;
  }
  k->work.len--;
  return emit(k, false, op), true;
}

/* Appends the program of `count` expressions evaluated in order (their
 * values left on the stack) and X_RET; its start, or UINT32_MAX when one
 * does not compile (nothing is left appended then). */
static uint32_t compile_exprs(comp *k, psg_tir_node *const *roots, size_t count) {
  size_t start = k->c->exprs.len, base = k->work.len, depth = 0;
  bool ok = start < UINT32_MAX / 2;
  k->barrier = start;
  for (size_t r = 0; ok && r < count; r++) {
    ok = push_work(k, roots[r]);
    while (ok && k->work.len > base) ok = expr_step(k, &depth) && !k->nomem;
  }
  psgi_tir_fop ret = {.op = X_RET};
  if (ok) emit(k, false, ret);
  if (!ok || k->nomem) {
    k->work.len = base;
    k->c->exprs.len = start;
    return UINT32_MAX;
  }
  if (depth > k->c->max_stack) k->c->max_stack = depth;
  return (uint32_t)start;
}

static uint32_t compile_int(comp *k, const psg_tir_node *e) {
  return is_int_class(e->dtype) ? compile_exprs(k, (psg_tir_node *const *)&e, 1) : UINT32_MAX;
}

/* A statement that compiles as a unit: an S_STORE or S_EVAL, else false. */
static bool leaf_stmt(comp *k, const psg_tir_node *n) {
  psgi_tir_fop op = {.n = n, .t = n->dtype};
  if (n->kind == PSG_TIR_EVALUATE) {
    op.op = S_EVAL;
    op.x = compile_exprs(k, n->kids, 1);
  } else {
    const psgi_tir_fbuf *fb = compile_buffer(k, n->kids[0]);
    if (!fb || (n->flags & PSGI_TIR_HAS_PRED) || psgi_tir_num_indices(n) != fb->ndim) return false;
    op.op = S_STORE;
    op.u.b = fb;
    op.x = compile_exprs(k, n->kids + 1, n->nkids - 1); /* value, indices */
  }
  if (op.x == UINT32_MAX) return false;
  emit(k, true, op);
  return true;
}

/* One step of compiling the statement on top of the work stack. */
static void stmt_step(comp *k) {
  citem *it = &k->work.data[k->work.len - 1];
  const psg_tir_node *n = it->n;
  uint32_t ph = it->phase++;
  psgi_tir_fop op = {.n = n};
  size_t here = k->c->stmts.len;
  switch (n->kind) {
    case PSG_TIR_SEQ_STMT:
      if (ph < n->nkids) {
        push_work(k, n->kids[ph]);
        return;
      }
      k->work.len--;
      return;
    case PSG_TIR_FOR:
      if (ph == 0) {
        size_t slot = psgi_tir_slot(k->in, n->kids[0]);
        op.op = S_FOR;
        op.x = compile_int(k, n->kids[1]);
        op.x2 = op.x == UINT32_MAX ? UINT32_MAX : compile_int(k, n->kids[2]);
        if (slot == SIZE_MAX) k->nomem = true;
        if (op.x2 == UINT32_MAX || slot >= UINT32_MAX || !is_int_class(n->kids[0]->dtype)) break;
        op.u.k.u = slot; /* .a is the pc after the loop */
        op.t = n->kids[0]->dtype;
        it = &k->work.data[k->work.len - 1]; /* compiling may have moved the stack */
        it->a = emit(k, true, op);
        push_work(k, n->kids[3]);
        return;
      }
      op.op = S_NEXT;
      op.a = (uint32_t)it->a + 1; /* the body */
      op.t = n->kids[0]->dtype;
      emit(k, true, op);
      k->c->stmts.data[it->a].a = (uint32_t)k->c->stmts.len; /* S_FOR's skip: after the loop */
      k->work.len--;
      return;
    case PSG_TIR_IF_THEN_ELSE:
      if (ph == 0) {
        op.op = S_IF;
        op.x = compile_exprs(k, n->kids, 1);
        if (op.x == UINT32_MAX) break;
        it = &k->work.data[k->work.len - 1];
        it->a = emit(k, true, op);
        push_work(k, n->kids[1]);
        return;
      }
      if (ph == 1 && n->nkids > 2) {
        op.op = S_JMP;
        it->b = emit(k, true, op);
        k->c->stmts.data[it->a].a = (uint32_t)k->c->stmts.len;
        push_work(k, n->kids[2]);
        return;
      }
      k->c->stmts.data[n->nkids > 2 ? it->b : it->a].a = (uint32_t)here;
      k->work.len--;
      return;
    case PSG_TIR_LET_STMT:
      if (ph == 0) {
        size_t slot = psgi_tir_slot(k->in, n->kids[0]);
        op.op = S_LET;
        op.x = compile_exprs(k, n->kids + 1, 1);
        if (slot == SIZE_MAX) k->nomem = true;
        if (op.x == UINT32_MAX || slot >= UINT32_MAX) break;
        op.a = (uint32_t)slot;
        op.t = n->kids[1]->dtype;
        emit(k, true, op);
        push_work(k, n->kids[2]);
        return;
      }
      op.op = S_UNBIND;
      emit(k, true, op);
      k->work.len--;
      return;
    case PSG_TIR_ALLOCATE:
      op.op = ph == 0 ? S_ALLOC : S_FREE;
      emit(k, true, op);
      if (ph == 0) push_work(k, n->kids[2]);
      else k->work.len--;
      return;
    case PSG_TIR_ATTR_STMT: /* a hint around its body, unless it launches a thread */
      if (psgi_tir_launched_thread(n)) break;
      /* fall through */
    case PSG_TIR_DECL_BUFFER:
      k->work.len--;
      push_work(k, n->kids[1]);
      return;
    case PSG_TIR_BUFFER_STORE:
    case PSG_TIR_EVALUATE:
      if (!leaf_stmt(k, n)) break;
      k->work.len--;
      return;
    default: break;
  }
  /* Not compiled (met in its first phase): the generic machine runs it. */
  k->work.len--;
  op.op = S_GENERIC;
  emit(k, true, op);
}

psg_status psgi_tir_compile(psgi_tir_interp *in, const psg_tir_node *body, psgi_tir_fcode *c) {
  memset(c, 0, sizeof *c);
  psgi_arena_init(&c->arena, in->ctx);
  comp k = {.in = in, .c = c};
  k.f32 = psg_tir_dtype_float32();
  k.i32 = psg_tir_dtype_int32();
  k.i64 = psg_tir_dtype_int64();
  psgi_map_init(&k.bufs, in->ctx);
  psgi_tir_fop end = {.op = S_END};
  if (push_work(&k, body))
    while (k.work.len && !k.nomem) stmt_step(&k);
  if (!k.nomem) emit(&k, true, end);
  if (!k.nomem && !PSGI_VEC_RESERVE(in->ctx, &in->fstack, c->max_stack + 1)) k.nomem = true;
  PSGI_VEC_FREE(in->ctx, &k.work);
  psgi_map_fini(&k.bufs);
  return k.nomem ? psgi_nomem(in->ctx) : PSG_OK;
}

void psgi_tir_fcode_fini(psgi_tir_interp *in, psgi_tir_fcode *c) {
  PSGI_VEC_FREE(in->ctx, &c->stmts);
  PSGI_VEC_FREE(in->ctx, &c->exprs);
  psgi_arena_fini(&c->arena);
}
