/* Passage — tir.NarrowDataType(target_bits) (TVM's
 * src/tir/transforms/narrow_datatype.cc with its IndexDataTypeRewriter):
 * index arithmetic narrowed to int<target_bits> where the analyzer proves
 * it fits.
 *
 * Analysis (TVM's DataTypeVisitor): every int expression of the body is
 * visited with the bit width its ancestors need: target_bits at the top and
 * under a BufferLoad, 64 below an int expression whose const_int_bound (loop
 * ranges bound) does not fit int<target_bits> (and whose dtype is wider).
 * A loop var (For, thread_extent / virtual_thread AttrStmt over a var or an
 * IterVar), an int IntImm or an int Cast
 * then gets the widest width its occurrences need, never wider than it was.
 *
 * Rewrite (in the index positions TVM rewrites: loop var/min/extent, buffer
 * indices, Allocate extents and condition, thread extents, int comparisons
 * in conditions): narrowed loop vars replace the old ones everywhere, and
 * IntImms and Casts take their narrowed dtype; where the operands of an
 * operator end up with different widths the narrower is cast up (TVM's
 * operators), a store's value is cast back to the buffer's dtype and a
 * let's value to its var's. Loop vars that appear in a buffer's shape,
 * strides or elem_offset are kept (buffers are not rewritten here). Both
 * walks use explicit stacks. */
#include "passage/tir_op.h"
#include "tir/transforms/tir_transforms.h"

/* Rewrite context: an index position; inside a condition; FORCE, the
 * operands of an operator re-visited as indices because their widths
 * differed (TVM's re-visit with is_enabled_), which a comparison keeps. */
enum { EN = 1, COND = 2, FORCE = 4 };

typedef struct nd {
  psg_ctx *ctx;
  int target;
  psg_arith_analyzer *a;
  psgi_map vext;   /* loop var -> (void *)(uintptr_t) bits of its extent dtype */
  psgi_map pinned; /* vars used by a buffer field */
  psgi_map vmap;   /* Var/IntImm/Cast node -> (void *)(uintptr_t) narrowed bits */
  psgi_map seen;   /* (node | wide) visited by the analysis */
  psgi_map remap;  /* var -> its narrowed var (owned) */
  psgi_map memo;   /* (node | flags) -> rewritten node (owned) */
} nd;

static bool is_int(psg_tir_dtype t) { return psg_tir_dtype_is_int(t); }
static psg_tir_dtype with_bits(psg_tir_dtype t, int bits) {
  return psg_tir_dtype_make(psg_tir_dtype_code(t), bits, psg_tir_dtype_lanes(t));
}
static uintptr_t get_u(const psgi_map *m, const void *k) {
  psgi_map_entry *e = psgi_map_get_ptr(m, k);
  return e ? (uintptr_t)e->value : 0;
}

/* vmap[n] = max(vmap[n], bits). */
static psg_status note(nd *d, const psg_tir_node *n, int bits) {
  psgi_map_entry *e = psgi_map_put_ptr(&d->vmap, n, NULL);
  if (!e) return psgi_nomem(d->ctx);
  if ((uintptr_t)e->value < (uintptr_t)bits) e->value = (void *)(uintptr_t)bits;
  return PSG_OK;
}

/* Buffers' fields: the vars they use are pinned. */
static psg_status pin_post(psg_tir_visitor *v, const psg_tir_node *n) {
  nd *d = v->user;
  if (n->kind != PSG_TIR_BUFFER) return PSG_OK;
  for (size_t i = 1; i < n->nkids; i++) {
    PSGI_VEC(const psg_tir_node *) st = {0};
    if (!PSGI_VEC_PUSH(d->ctx, &st, n->kids[i])) return psgi_nomem(d->ctx);
    while (st.len) {
      const psg_tir_node *e = st.data[--st.len];
      if (psgi_tir_is_var_kind(e->kind) && !psgi_map_put_ptr(&d->pinned, e, NULL)) goto nomem;
      for (size_t k = 0; k < e->nkids; k++)
        if (!PSGI_VEC_PUSH(d->ctx, &st, e->kids[k])) goto nomem;
    }
    PSGI_VEC_FREE(d->ctx, &st);
    continue;
  nomem:
    PSGI_VEC_FREE(d->ctx, &st);
    return psgi_nomem(d->ctx);
  }
  return PSG_OK;
}

/* The thread var of a thread_extent / virtual_thread AttrStmt (its node, a
 * Var or an IterVar's var), or NULL for another statement. */
static const psg_tir_node *thread_var(const psg_tir_node *s) {
  if (s->kind != PSG_TIR_ATTR_STMT || !(s->flags & PSGI_TIR_HAS_NODE) ||
      (strcmp(s->u.attr_key, "thread_extent") && strcmp(s->u.attr_key, "virtual_thread")))
    return NULL;
  const psg_tir_node *node = s->kids[2];
  if (node->kind == PSG_TIR_ITER_VAR) node = node->kids[0];
  return psgi_tir_is_var_kind(node->kind) ? node : NULL;
}
static bool is_thread_attr(const psg_tir_node *s) { return thread_var(s) != NULL; }

typedef struct item {
  const psg_tir_node *n;
  int bits;
} item;

static psg_status analyze(nd *d, const psg_tir_node *body) {
  PSGI_VEC(item) st = {0};
  psg_status rc = PSG_OK;
  const int64_t hi = (int64_t)((UINT64_C(1) << (d->target - 1)) - 1), lo = -hi - 1;
  if (!PSGI_VEC_PUSH(d->ctx, &st, ((item){body, d->target}))) return psgi_nomem(d->ctx);
  while (!rc && st.len) {
    item it = st.data[--st.len];
    const psg_tir_node *n = it.n;
    bool is_new;
    if (!psgi_map_put_ptr(&d->seen, (const void *)((uintptr_t)n | (it.bits == 64)), &is_new)) goto nomem;
    if (!is_new) continue;
    int child_bits = it.bits;
    if (n->kind == PSG_TIR_FOR || is_thread_attr(n)) {
      const psg_tir_node *var = n->kind == PSG_TIR_FOR ? n->kids[0] : thread_var(n);
      const psg_tir_node *ext = n->kind == PSG_TIR_FOR ? n->kids[2] : n->kids[0];
      psg_tir_expr *zero = NULL;
      if (n->kind == PSG_TIR_FOR) {
        rc = psg_arith_bind(d->a, (psg_tir_expr *)var, n->kids[1], (psg_tir_expr *)ext);
      } else if (!(rc = psg_tir_make_const_int(d->ctx, ext->dtype, 0, NULL, &zero))) {
        rc = psg_arith_bind(d->a, (psg_tir_expr *)var, zero, (psg_tir_expr *)ext);
      }
      psg_tir_release(zero);
      psgi_map_entry *e = rc ? NULL : psgi_map_put_ptr(&d->vext, var, NULL);
      if (!rc && !e) goto nomem;
      if (e) e->value = (void *)(uintptr_t)psg_tir_dtype_bits(ext->dtype);
    } else if (psgi_tir_is_expr_kind(n->kind) && is_int(n->dtype)) {
      int bits = 64;
      psg_arith_bound b;
      if (psg_tir_dtype_bits(n->dtype) <= d->target ||
          (!psg_arith_const_int_bound(d->a, (psg_tir_expr *)n, &b) && b.min >= lo && b.max <= hi))
        bits = d->target;
      if (bits > child_bits) child_bits = bits;
      int own = child_bits; /* TVM's bits_ while the node itself is visited */
      if (psgi_tir_is_var_kind(n->kind) && get_u(&d->vext, n)) {
        int vb = (int)get_u(&d->vext, n);
        rc = note(d, n, vb < own ? vb : own);
      } else if (n->kind == PSG_TIR_INT_IMM || n->kind == PSG_TIR_CAST) {
        int nb = psg_tir_dtype_bits(n->dtype);
        rc = note(d, n, nb < own ? nb : own);
      }
    }
    if (n->kind == PSG_TIR_BUFFER_LOAD) child_bits = d->target;
    for (size_t i = n->nkids; !rc && i-- > 0;) {
      const psg_tir_node *k = n->kids[i];
      if (k->kind == PSG_TIR_BUFFER || k->kind == PSG_TIR_PRIM_TYPE || k->kind == PSG_TIR_POINTER_TYPE) continue;
      if (n->kind == PSG_TIR_ATTR_STMT && i == 2) continue; /* the node: a definition */
      if ((n->kind == PSG_TIR_FOR || n->kind == PSG_TIR_LET || n->kind == PSG_TIR_LET_STMT) && i == 0) continue;
      if (!PSGI_VEC_PUSH(d->ctx, &st, ((item){k, psgi_tir_is_stmt_kind(k->kind) ? d->target : child_bits})))
        goto nomem;
    }
  }
  PSGI_VEC_FREE(d->ctx, &st);
  return rc;
nomem:
  PSGI_VEC_FREE(d->ctx, &st);
  return psgi_nomem(d->ctx);
}

/* The narrowed dtype of n (a Var, IntImm or Cast), or 0 when it keeps its own. */
static psg_tir_dtype narrowed(nd *d, const psg_tir_node *n) {
  uintptr_t bits = get_u(&d->vmap, n);
  if (!bits || (int)bits == psg_tir_dtype_bits(n->dtype)) return 0;
  if (psgi_tir_is_var_kind(n->kind) && psgi_map_get_ptr(&d->pinned, n)) return 0;
  return with_bits(n->dtype, (int)bits);
}

static psg_status var_of(nd *d, const psg_tir_node *v, psg_tir_node **out) {
  psgi_map_entry *e = psgi_map_get_ptr(&d->remap, v);
  if (e) {
    *out = e->value;
    return PSG_OK;
  }
  psg_tir_dtype t = narrowed(d, v);
  if (!t) {
    *out = (psg_tir_node *)v;
    return PSG_OK;
  }
  psg_tir_node *nv = NULL;
  psg_status st = v->kind == PSG_TIR_SIZE_VAR ? psg_tir_size_var_create(d->ctx, v->u.var.name, t, &v->span, &nv)
                                              : psg_tir_var_create(d->ctx, v->u.var.name, t, NULL, &v->span, &nv);
  if (st) return st;
  if (!(e = psgi_map_put_ptr(&d->remap, v, NULL))) {
    psg_tir_release(nv);
    return psgi_nomem(d->ctx);
  }
  e->value = *out = nv;
  return PSG_OK;
}

/* The context of child i of n rewritten in context `flags`. */
static int child_flags(const psg_tir_node *n, size_t i, int flags) {
  bool force = flags & FORCE;
  flags &= ~FORCE;
  switch (n->kind) {
  case PSG_TIR_FOR: return i < 3 ? flags | EN : flags & ~EN;
  case PSG_TIR_BUFFER_LOAD: return flags | EN; /* indices (and the predicate) */
  case PSG_TIR_BUFFER_STORE: return i >= 2 ? flags | EN : flags;
  case PSG_TIR_ALLOCATE: return i != 2 ? flags | EN : flags;
  case PSG_TIR_ATTR_STMT: return i == 0 && is_thread_attr(n) ? flags | EN : flags;
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_SELECT:
  case PSG_TIR_ASSERT_STMT:
  case PSG_TIR_WHILE: return i == 0 ? flags | COND : flags;
  case PSG_TIR_EQ:
  case PSG_TIR_NE:
  case PSG_TIR_LT:
  case PSG_TIR_LE:
  case PSG_TIR_GT:
  case PSG_TIR_GE:
    return force || ((flags & COND) && is_int(n->kids[0]->dtype) && is_int(n->kids[1]->dtype)) ? flags | EN
                                                                                                : flags & ~EN;
  case PSG_TIR_CALL:
    if (strcmp(psgi_tir_ops[n->u.op].name, "tir.if_then_else") == 0 && i == 0) return flags | COND;
    return flags;
  default: return flags;
  }
}

static psg_status cast_to(nd *d, psg_tir_dtype t, psg_tir_node **e) {
  if ((*e)->dtype == t) return PSG_OK;
  psg_tir_node *c = NULL;
  psg_status st = psg_tir_op_cast(d->ctx, t, *e, NULL, &c);
  if (st) return st;
  psg_tir_release(*e);
  *e = c;
  return PSG_OK;
}

/* Operands of one int dtype: the narrower cast up (TVM's operators). */
static psg_status match(nd *d, psg_tir_node **a, psg_tir_node **b) {
  if ((*a)->dtype == (*b)->dtype || !is_int((*a)->dtype) || !is_int((*b)->dtype)) return PSG_OK;
  int wa = psg_tir_dtype_bits((*a)->dtype), wb = psg_tir_dtype_bits((*b)->dtype);
  return wa < wb ? cast_to(d, with_bits((*a)->dtype, wb), a) : cast_to(d, with_bits((*b)->dtype, wa), b);
}

/* An operator whose rewritten operands differ in width is rewritten again
 * with its operands as indices (TVM's binary-op re-visit). */
static bool needs_retry(const psg_tir_node *n, int flags, psg_tir_node *const *k) {
  return n->kind >= PSG_TIR_ADD && n->kind <= PSG_TIR_GE && k[0]->dtype != k[1]->dtype &&
         (flags | EN | FORCE) != flags;
}

/* The rewrite of n in context `flags` over its rewritten operands k (owned,
 * taken over). */
static psg_status finish(nd *d, const psg_tir_node *n, int flags, psg_tir_node **k, psg_tir_node **out) {
  psg_status st = PSG_OK;
  psg_tir_dtype t;
  *out = NULL;
  switch (n->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: {
    psg_tir_node *v = NULL;
    if ((st = var_of(d, n, &v))) return st;
    psg_tir_retain(*out = v);
    return PSG_OK;
  }
  case PSG_TIR_INT_IMM:
    if ((flags & EN) && (t = narrowed(d, n))) return psg_tir_int_imm_create(d->ctx, t, n->u.int_value, &n->span, out);
    break;
  case PSG_TIR_CAST:
    if ((flags & EN) && (t = narrowed(d, n))) {
      psg_tir_retain(*out = k[0]);
      return cast_to(d, t, out);
    }
    break;
  case PSG_TIR_ADD:
  case PSG_TIR_SUB:
  case PSG_TIR_MUL:
  case PSG_TIR_DIV:
  case PSG_TIR_MOD:
  case PSG_TIR_FLOOR_DIV:
  case PSG_TIR_FLOOR_MOD:
  case PSG_TIR_MIN:
  case PSG_TIR_MAX:
  case PSG_TIR_EQ:
  case PSG_TIR_NE:
  case PSG_TIR_LT:
  case PSG_TIR_LE:
  case PSG_TIR_GT:
  case PSG_TIR_GE: st = match(d, &k[0], &k[1]); break;
  case PSG_TIR_SELECT: st = match(d, &k[1], &k[2]); break;
  case PSG_TIR_RAMP: st = match(d, &k[0], &k[1]); break;
  case PSG_TIR_CALL:
    if (strcmp(psgi_tir_ops[n->u.op].name, "tir.if_then_else") == 0) {
      st = match(d, &k[1], &k[2]);
      if (!st && k[1]->dtype != n->dtype) { /* the call's dtype follows its branches */
        psg_tir_node *args[3] = {k[0], k[1], k[2]};
        return psg_tir_call_create(d->ctx, k[1]->dtype, "tir.if_then_else", args, 3, &n->span, out);
      }
    }
    break;
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT: st = cast_to(d, k[0]->dtype, &k[1]); break;
  case PSG_TIR_FOR:
    if (!(st = cast_to(d, k[0]->dtype, &k[1]))) st = cast_to(d, k[0]->dtype, &k[2]);
    break;
  case PSG_TIR_ITER_VAR: /* its range follows its var */
    if (n->nkids == 3 && !(st = cast_to(d, k[0]->dtype, &k[1]))) st = cast_to(d, k[0]->dtype, &k[2]);
    break;
  case PSG_TIR_ATTR_STMT: /* a thread extent takes its var's dtype (TVM's cast(new_var.dtype(), value)) */
    if (is_thread_attr(n) && n->nkids == 3) st = cast_to(d, k[2]->dtype, &k[0]);
    break;
  case PSG_TIR_BUFFER_STORE:
    if (psg_tir_dtype_lanes(k[1]->dtype) == 1) st = cast_to(d, n->kids[0]->dtype, &k[1]);
    break;
  default: break;
  }
  if (st) return st;
  bool same = true;
  for (size_t i = 0; i < n->nkids; i++) same &= k[i] == n->kids[i];
  if (same) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  return psgi_tir_rebuild(n, k, out);
}

typedef struct rframe {
  const psg_tir_node *n;
  int flags, alias; /* alias: the context this one retries for (-1: none) */
  uint32_t next;
  size_t base;
} rframe;

static const void *memo_key(const psg_tir_node *n, int flags) { return (const void *)((uintptr_t)n | (uintptr_t)flags); }

static psg_status rewrite(nd *d, const psg_tir_node *root, psg_tir_node **out) {
  PSGI_VEC(rframe) st = {0};
  PSGI_VEC(psg_tir_node *) res = {0};
  psg_status rc = PSG_OK;
  *out = NULL;
  if (!PSGI_VEC_PUSH(d->ctx, &st, ((rframe){root, 0, -1, 0, 0}))) return psgi_nomem(d->ctx);
  while (!rc && st.len) {
    rframe *f = &st.data[st.len - 1];
    const psg_tir_node *n = f->n;
    if (f->next < n->nkids) {
      size_t i = f->next++;
      const psg_tir_node *k = n->kids[i];
      int cf = child_flags(n, i, f->flags);
      psgi_map_entry *e;
      if (k->kind == PSG_TIR_BUFFER || k->kind == PSG_TIR_PRIM_TYPE || k->kind == PSG_TIR_POINTER_TYPE ||
          k->kind == PSG_TIR_STRING_IMM) {
        psg_tir_retain((psg_tir_node *)k);
        if (!PSGI_VEC_PUSH(d->ctx, &res, (psg_tir_node *)k)) {
          psg_tir_release((psg_tir_node *)k);
          rc = psgi_nomem(d->ctx);
        }
      } else if ((e = psgi_map_get_ptr(&d->memo, memo_key(k, cf)))) {
        psg_tir_retain(e->value);
        if (!PSGI_VEC_PUSH(d->ctx, &res, e->value)) {
          psg_tir_release(e->value);
          rc = psgi_nomem(d->ctx);
        }
      } else {
        rframe c = {k, cf, -1, 0, res.len};
        if (!PSGI_VEC_PUSH(d->ctx, &st, c)) rc = psgi_nomem(d->ctx);
      }
      continue;
    }
    rframe done = *f;
    if (needs_retry(n, done.flags, res.data ? res.data + done.base : NULL)) {
      for (size_t i = done.base; i < res.len; i++) psg_tir_release(res.data[i]);
      res.len = done.base;
      *f = (rframe){n, done.flags | EN | FORCE, done.flags, 0, done.base};
      continue;
    }
    st.len--;
    psg_tir_node *r = NULL;
    rc = finish(d, n, done.flags, res.data ? res.data + done.base : NULL, &r);
    for (size_t i = done.base; i < res.len; i++) psg_tir_release(res.data[i]);
    res.len = done.base;
    if (rc) break;
    psgi_map_entry *e = psgi_map_put_ptr(&d->memo, memo_key(n, done.flags), NULL);
    if (!e || !PSGI_VEC_PUSH(d->ctx, &res, r)) {
      psg_tir_release(r);
      rc = psgi_nomem(d->ctx);
      break;
    }
    psg_tir_retain(r);
    e->value = r;
    if (done.alias >= 0) {
      if (!(e = psgi_map_put_ptr(&d->memo, memo_key(n, done.alias), NULL))) {
        rc = psgi_nomem(d->ctx);
        break;
      }
      psg_tir_retain(r);
      e->value = r;
    }
  }
  if (!rc) *out = res.data[0];
  else
    for (size_t i = 0; i < res.len; i++) psg_tir_release(res.data[i]);
  PSGI_VEC_FREE(d->ctx, &st);
  PSGI_VEC_FREE(d->ctx, &res);
  return rc;
}

/* The fast path (docs/design.md, departure "NarrowDataType returns a
 * function it would not change without analysing it"). finish() changes a
 * node only where these hold somewhere in the body:
 *  - an int expression wider than target_bits (only those can be narrowed:
 *    an IntImm or Cast gets min(its bits, >= target_bits) = its bits);
 *  - a loop or thread var whose dtype is not its extent's (the var gets its
 *    extent's bits);
 *  - operands of one operator (ADD..GE, Select's branches, Ramp's base and
 *    stride, if_then_else's branches and result) of different dtypes, a
 *    let value, loop bound or thread extent not of its var's dtype, a
 *    scalar store's value not of its buffer's dtype (finish() casts those).
 * When none holds anywhere, every finish() returns its node, by induction
 * from the leaves, so the pass's result is f itself: this walk checks them
 * on the nodes the rewrite visits (the kids other than buffers, types and
 * strings), each shared node once. */
static bool node_kept(const psg_tir_node *n, int target) {
  psg_tir_node *const *k = n->kids;
  if (psgi_tir_is_expr_kind(n->kind) && is_int(n->dtype) && psg_tir_dtype_bits(n->dtype) > target) return false;
  if (n->kind >= PSG_TIR_ADD && n->kind <= PSG_TIR_GE) return k[0]->dtype == k[1]->dtype;
  switch (n->kind) {
  case PSG_TIR_SELECT: return k[1]->dtype == k[2]->dtype;
  case PSG_TIR_RAMP:
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT: return k[0]->dtype == k[1]->dtype;
  case PSG_TIR_FOR: return k[1]->dtype == k[0]->dtype && k[2]->dtype == k[0]->dtype;
  case PSG_TIR_ITER_VAR: return n->nkids != 3 || (k[1]->dtype == k[0]->dtype && k[2]->dtype == k[0]->dtype);
  case PSG_TIR_ATTR_STMT:
    return !is_thread_attr(n) || (k[0]->dtype == thread_var(n)->dtype && (n->nkids != 3 || k[0]->dtype == k[2]->dtype));
  case PSG_TIR_BUFFER_STORE: return psg_tir_dtype_lanes(k[1]->dtype) != 1 || k[1]->dtype == k[0]->dtype;
  case PSG_TIR_CALL:
    return strcmp(psgi_tir_ops[n->u.op].name, "tir.if_then_else") || n->nkids < 3 ||
           (k[1]->dtype == k[2]->dtype && k[1]->dtype == n->dtype);
  default: return true;
  }
}

psg_status psgi_tir_narrow_keeps_all(psg_ctx *ctx, const psg_tir_prim_func *f, int target_bits, bool *keeps) {
  PSGI_VEC(const psg_tir_node *) st = {0};
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  psg_status rc = PSG_OK;
  *keeps = true;
  if (!PSGI_VEC_PUSH(ctx, &st, psg_tir_get_body(f))) rc = psgi_nomem(ctx);
  while (!rc && *keeps && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    bool is_new = true;
    if (n->nkids && !psgi_map_put_ptr(&seen, n, &is_new)) rc = psgi_nomem(ctx);
    if (rc || !is_new) continue;
    if (!node_kept(n, target_bits)) *keeps = false;
    for (size_t i = 0; !rc && *keeps && i < n->nkids; i++) {
      const psg_tir_node *c = n->kids[i];
      if (c->kind == PSG_TIR_BUFFER || c->kind == PSG_TIR_PRIM_TYPE || c->kind == PSG_TIR_POINTER_TYPE ||
          c->kind == PSG_TIR_STRING_IMM)
        continue;
      if (!PSGI_VEC_PUSH(ctx, &st, c)) rc = psgi_nomem(ctx);
    }
  }
  PSGI_VEC_FREE(ctx, &st);
  psgi_map_fini(&seen);
  if (rc) *keeps = false;
  return rc;
}

psg_status psgi_tir_narrow_data_type(psg_ctx *ctx, const psg_tir_prim_func *f, int target_bits,
                                     psg_tir_prim_func **out) {
  *out = NULL;
  if (target_bits != 8 && target_bits != 16 && target_bits != 32 && target_bits != 64)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "tir.NarrowDataType: target_bits must be 8, 16, 32 or 64, not %d",
                        target_bits);
  bool keeps = false;
  psg_status st = psgi_tir_narrow_keeps_all(ctx, f, target_bits, &keeps);
  if (st || keeps) {
    if (!st) psg_tir_retain(*out = (psg_tir_prim_func *)f);
    return st;
  }
  return psgi_tir_narrow_data_type_full(ctx, f, target_bits, out);
}

psg_status psgi_tir_narrow_data_type_full(psg_ctx *ctx, const psg_tir_prim_func *f, int target_bits,
                                          psg_tir_prim_func **out) {
  *out = NULL;
  nd d = {.ctx = ctx, .target = target_bits};
  psgi_map *maps[] = {&d.vext, &d.pinned, &d.vmap, &d.seen, &d.remap, &d.memo};
  for (size_t i = 0; i < 6; i++) psgi_map_init(maps[i], ctx);
  psg_status st = psg_arith_analyzer_create(ctx, &d.a);
  psg_tir_visitor pin = {.post = pin_post, .user = &d};
  if (!st) st = psg_tir_visit(ctx, &pin, f);
  psg_tir_node *body = psg_tir_get_body(f), *nb = NULL;
  if (!st) st = analyze(&d, body);
  if (!st) st = rewrite(&d, body, &nb);
  if (!st && nb == body) {
    psg_tir_retain(*out = (psg_tir_prim_func *)f);
  } else if (!st) {
    size_t np = f->u.func.nparams, nm = f->u.func.nmap;
    psg_tir_node **k = psgi_alloc(ctx, (1 + np + nm) * sizeof *k);
    if (!k) {
      st = psgi_nomem(ctx);
    } else {
      memcpy(k, f->kids, (1 + np + nm) * sizeof *k);
      k[0] = nb;
      st = psgi_tir_rebuild(f, k, out);
      psgi_free(ctx, k);
    }
  }
  psg_tir_release(nb);
  for (size_t i = 0; i < d.remap.len; i++) psg_tir_release(d.remap.entries[i].value);
  for (size_t i = 0; i < d.memo.len; i++) psg_tir_release(d.memo.entries[i].value);
  for (size_t i = 0; i < 6; i++) psgi_map_fini(maps[i]);
  psg_arith_analyzer_destroy(d.a);
  return st;
}

static psg_status narrow_data_type(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                   psg_tir_prim_func **out) {
  (void)mod;
  int64_t bits = psg_attr_get_int(psg_attrs_get(user, "target_bits"));
  return psgi_tir_narrow_data_type(psg_pass_context_get_ctx(pc), f, (int)(bits > 64 || bits < 0 ? -1 : bits), out);
}

static const psg_pass_option options[] = {{"target_bits", PSG_CONFIG_INT, "32"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_tir_narrow_data_type = {
    .name = "tir.NarrowDataType",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .options = options,
    .help = "narrow index arithmetic to int<target_bits> where the analyzer proves it fits",
    .prim_func = narrow_data_type,
    .cacheable = true,
};
