/* Passage — functional update of TIR nodes: the node of the same kind,
 * payload and span as `n` over new operands, made through the public
 * constructors so a rewrite gets the same dtype checks (and recomputed
 * dtypes, e.g. a BufferLoad over an index narrowed to int32) as a build. */
#include <string.h>
#include "tir/tir_internal.h"

psg_status psgi_tir_rebuild(const psg_tir_node *n, psg_tir_node *const *k, psg_tir_node **out) {
  psg_ctx *ctx = n->ctx;
  const psg_span *sp = &n->span;
  *out = NULL;
  uint32_t nk = n->nkids;
  bool pred = n->flags & PSGI_TIR_HAS_PRED;
  switch (n->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR:
  case PSG_TIR_INT_IMM:
  case PSG_TIR_FLOAT_IMM:
  case PSG_TIR_STRING_IMM:
  case PSG_TIR_PRIM_TYPE:
  case PSG_TIR_TUPLE_TYPE:
    psg_tir_retain((psg_tir_node *)n);
    *out = (psg_tir_node *)n;
    return PSG_OK;
  case PSG_TIR_CAST: return psg_tir_cast_create(ctx, n->dtype, k[0], sp, out);
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
  case PSG_TIR_GE:
  case PSG_TIR_AND:
  case PSG_TIR_OR: return psg_tir_binary_create(ctx, n->kind, k[0], k[1], sp, out);
  case PSG_TIR_NOT: return psg_tir_not_create(ctx, k[0], sp, out);
  case PSG_TIR_SELECT: return psg_tir_select_create(ctx, k[0], k[1], k[2], sp, out);
  case PSG_TIR_RAMP: return psg_tir_ramp_create(ctx, k[0], k[1], psg_tir_dtype_lanes(n->dtype), sp, out);
  case PSG_TIR_BROADCAST: return psg_tir_broadcast_create(ctx, k[0], psg_tir_dtype_lanes(n->dtype), sp, out);
  case PSG_TIR_LET: return psg_tir_let_create(ctx, k[0], k[1], k[2], sp, out);
  case PSG_TIR_BUFFER_LOAD:
    return psg_tir_buffer_load_create(ctx, k[0], k + 1, nk - 1 - pred, pred ? k[nk - 1] : NULL, sp, out);
  case PSG_TIR_CALL: return psg_tir_call_create(ctx, n->dtype, psgi_tir_ops[n->u.op].name, k, nk, sp, out);
  case PSG_TIR_FOR:
    return psg_tir_for_create(ctx, k[0], k[1], k[2], n->u.loop.kind, k[3], n->u.loop.annotations, sp, out);
  case PSG_TIR_BUFFER_STORE:
    return psg_tir_buffer_store_create(ctx, k[0], k[1], k + 2, nk - 2 - pred, pred ? k[nk - 1] : NULL, sp, out);
  case PSG_TIR_IF_THEN_ELSE: return psg_tir_if_then_else_create(ctx, k[0], k[1], nk == 3 ? k[2] : NULL, sp, out);
  case PSG_TIR_EVALUATE: return psg_tir_evaluate_create(ctx, k[0], sp, out);
  case PSG_TIR_LET_STMT: return psg_tir_let_stmt_create(ctx, k[0], k[1], k[2], sp, out);
  case PSG_TIR_SEQ_STMT: return psg_tir_seq_stmt_create(ctx, k, nk, sp, out);
  case PSG_TIR_ALLOCATE:
    return psg_tir_allocate_create(ctx, k[0], n->dtype, k + 3, nk - 3, k[1], k[2], n->u.annotations, sp, out);
  case PSG_TIR_DECL_BUFFER: return psg_tir_decl_buffer_create(ctx, k[0], k[1], sp, out);
  case PSG_TIR_ATTR_STMT:
    return psg_tir_attr_stmt_create(ctx, nk == 3 ? k[2] : NULL, n->u.attr_key, k[0], k[1], sp, out);
  case PSG_TIR_ASSERT_STMT: return psg_tir_assert_stmt_create(ctx, k[0], k[1], k[2], sp, out);
  case PSG_TIR_WHILE: return psg_tir_while_create(ctx, k[0], k[1], sp, out);
  case PSG_TIR_BUFFER: {
    uint32_t nd = n->u.buf.ndim;
    psg_tir_buffer_desc d = {.name = n->u.buf.name, .data = k[0], .dtype = n->dtype, .shape = k + 2, .ndim = nd,
                             .strides = k + 2 + nd, .nstrides = n->u.buf.nstrides, .elem_offset = k[1],
                             .axis_separators = n->u.buf.axis_separators, .naxis_separators = n->u.buf.naxis,
                             .data_alignment = n->u.buf.data_alignment, .offset_factor = n->u.buf.offset_factor,
                             .buffer_type = n->u.buf.buffer_type};
    return psg_tir_buffer_create(ctx, &d, sp, out);
  }
  case PSG_TIR_PRIM_FUNC: {
    uint32_t np = n->u.func.nparams, nb = n->u.func.nmap;
    size_t *map = nb ? psgi_alloc(ctx, psgi_mul_size(nb, sizeof *map)) : NULL;
    if (nb && !map) return psgi_nomem(ctx);
    for (uint32_t i = 0; i < nb; i++) map[i] = n->u.func.map_params[i];
    psg_status st = psg_tir_prim_func_create(ctx, k + 1, np, k[0], n->u.func.ret_type, map, k + 1 + np, nb,
                                             n->u.func.attrs, sp, out);
    psgi_free(ctx, map);
    return st;
  }
  case PSG_TIR_POINTER_TYPE: return psg_tir_pointer_type_create(ctx, k[0], n->u.scope, out);
  case PSG_TIR_ITER_VAR:
    return psg_tir_iter_var_create(ctx, k[0], nk == 3 ? k[1] : NULL, nk == 3 ? k[2] : NULL, n->u.iter.type,
                                   n->u.iter.tag, sp, out);
  }
  return psgi_tir_fail(ctx, PSG_ERR_INTERNAL, sp, n->kind, "cannot rebuild this node kind");
}

psg_status psgi_tir_func_with_body(psg_ctx *ctx, const psg_tir_node *f, psg_tir_node *body, psg_tir_node **out) {
  *out = NULL;
  psg_tir_node *kids_small[8], **kids = kids_small;
  if (f->nkids > 8 && !(kids = psgi_alloc(ctx, f->nkids * sizeof *kids))) return psgi_nomem(ctx);
  memcpy(kids, f->kids, f->nkids * sizeof *kids);
  kids[0] = body;
  psg_status st = psgi_tir_rebuild(f, kids, out);
  if (kids != kids_small) psgi_free(ctx, kids);
  return st;
}

psg_status psgi_tir_rewrite_post(psg_ctx *ctx, const psg_tir_node *root, psgi_tir_decide_fn decide, void *user,
                                 psg_tir_node **out) {
  typedef struct {
    const psg_tir_node *n;
    uint32_t next;
    size_t base;
  } frame;
  *out = NULL;
  psg_tir_node *rep = NULL;
  psg_status st = decide(user, root, &rep);
  if (st || rep) {
    *out = rep;
    return st;
  }
  PSGI_VEC(frame) stack = {0};
  PSGI_VEC(psg_tir_node *) res = {0}; /* owned */
  psgi_map memo; /* shared node -> its rewrite (owned) */
  psgi_map_init(&memo, ctx);
  if (!PSGI_VEC_PUSH(ctx, &stack, ((frame){root, 0, 0}))) st = psgi_nomem(ctx);
  while (!st && stack.len) {
    frame *f = &stack.data[stack.len - 1];
    const psg_tir_node *n = f->n;
    if (f->next < n->nkids) {
      const psg_tir_node *k = n->kids[f->next++];
      psg_tir_node *kr = NULL;
      bool shared = __atomic_load_n(&k->refcount, __ATOMIC_RELAXED) != 1;
      psgi_map_entry *me = shared && memo.len ? psgi_map_get_ptr(&memo, k) : NULL;
      if (me) psg_tir_retain(kr = me->value);
      else if ((st = decide(user, k, &kr))) break;
      if (!kr) {
        if (!PSGI_VEC_PUSH(ctx, &stack, ((frame){k, 0, res.len}))) st = psgi_nomem(ctx);
      } else if (!PSGI_VEC_PUSH(ctx, &res, kr)) {
        psg_tir_release(kr);
        st = psgi_nomem(ctx);
      }
      continue;
    }
    psg_tir_node *nr = NULL;
    st = psgi_tir_rebuild_if_changed(n, res.data + f->base, &nr);
    for (size_t i = f->base; i < res.len; i++) psg_tir_release(res.data[i]);
    res.len = f->base;
    stack.len--;
    if (!st && stack.len && __atomic_load_n(&n->refcount, __ATOMIC_RELAXED) != 1) {
      psgi_map_entry *me = psgi_map_put_ptr(&memo, n, NULL);
      if (!me) st = psgi_nomem(ctx);
      else psg_tir_retain(me->value = nr);
    }
    if (st) {
      psg_tir_release(nr);
      break;
    }
    if (!stack.len) {
      *out = nr; /* the root's */
      break;
    }
    if (!PSGI_VEC_PUSH(ctx, &res, nr)) {
      psg_tir_release(nr);
      st = psgi_nomem(ctx);
    }
  }
  for (size_t i = 0; i < res.len; i++) psg_tir_release(res.data[i]);
  for (size_t i = 0; i < memo.len; i++) psg_tir_release(memo.entries[i].value);
  psgi_map_fini(&memo);
  PSGI_VEC_FREE(ctx, &stack);
  PSGI_VEC_FREE(ctx, &res);
  return st;
}
