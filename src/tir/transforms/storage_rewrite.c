/* Passage — tir.StorageRewrite (TVM v0.19's StorageRewrite in
 * src/tir/transforms/storage_rewrite.cc), a PrimFuncPass: Allocates whose
 * lifetimes do not overlap share storage, and every allocation moves to its
 * attach point (the function's top, or the body of the thread scope or
 * outermost parallel loop it lives in).
 *
 * The plan comes from storage_rewrite_plan.c; this file is TVM's
 * PrepareNewAlloc and the rewrite: one Allocate per storage at its attach
 * point (the original extents when all its buffers have the same dtype and
 * extents, else max(bits) in the widest element type; tagged special memory
 * packs all its storages into one allocation at 32-bit aligned offsets),
 * every buffer over a shared storage re-pointed at its var (and renamed
 * after it, as TVM does), the original Allocates dropped, DeclBuffers of
 * buffers nothing accesses dropped. Config tir.merge_static_smem turns the
 * reuse of dead storage off (TVM leaves it to MergeSharedMemoryAllocations
 * then). Last, pointers accessed through one vector type only take it as
 * their element type (storage_rewrite_vector.c). */
#include <limits.h>
#include <string.h>
#include "tir/transforms/storage_rewrite.h"

typedef struct group {
  const psg_tir_node *attach;
  PSGI_VEC(psgi_sr_entry *) entries;
} group;

typedef struct rewriter {
  psg_ctx *ctx;
  psgi_sr_plan plan;
  PSGI_VEC(group) groups;   /* per attach point, entries in plan order */
  psgi_map group_of;        /* attach node (or &groups for the top) -> index + 1 */
  psgi_map hoisted;         /* DeclBuffers hoisted with their Allocate -> non-NULL */
  psgi_map remapped;        /* buffer -> its buffer over the new storage (owned) */
} rewriter;

static psg_status int_const(psg_ctx *ctx, psg_tir_dtype t, int64_t v, psg_tir_node **out) {
  return psg_tir_int_imm_create(ctx, t, v, NULL, out);
}

/* a `kind` b over ints of possibly different widths (TVM's BinaryOpMatchTypes:
 * the narrower one is cast up). Consumes a and b. */
static psg_status arith(psg_ctx *ctx, int kind, psg_tir_node *a, psg_tir_node *b, psg_tir_node **out) {
  *out = NULL;
  psg_status st = PSG_OK;
  if (a && b && a->dtype != b->dtype) {
    psg_tir_node **narrow = psg_tir_dtype_bits(a->dtype) < psg_tir_dtype_bits(b->dtype) ? &a : &b;
    psg_tir_node *c = NULL;
    st = psg_tir_cast_create(ctx, narrow == &a ? b->dtype : a->dtype, *narrow, NULL, &c);
    psg_tir_release(*narrow);
    *narrow = c;
  }
  if (!st && a && b) st = psg_tir_binary_create(ctx, kind, a, b, NULL, out);
  psg_tir_release(a);
  psg_tir_release(b);
  return st ? st : *out ? PSG_OK : PSG_ERR_NOMEM;
}

/* The var of a new allocation of `dtype` for entry e: its first Allocate's
 * var, or a fresh one of the same name and scope when the element type
 * changes (TVM keeps the old var, whose pointer type then disagrees). */
static psg_status alloc_var_for(psg_ctx *ctx, const psg_tir_node *var, psg_tir_dtype dtype, psg_tir_node **out) {
  psg_tir_type *t = psg_tir_var_get_type(var);
  psg_tir_type *el = psg_tir_pointer_type_get_element(t);
  if (el && psg_tir_dtype_of(el) == dtype) {
    psg_tir_retain((psg_tir_node *)var);
    *out = (psg_tir_node *)var;
    return PSG_OK;
  }
  return psg_tir_pointer_var_create(ctx, psg_tir_var_name(var), dtype, psg_tir_pointer_type_scope(t), NULL, out);
}

/* TVM's NewAllocTagMerged: e and its merged children in one allocation,
 * each child at the next 32-bit boundary (no memory-info registry here:
 * TVM's default alignment). */
static psg_status alloc_tag_merged(rewriter *r, psgi_sr_entry *e) {
  const uint64_t align = 32;
  if (!e->const_nbits)
    return psg_ctx_fail(r->ctx, PSG_ERR_UNSUPPORTED, "tir.StorageRewrite: special tagged memory must be const size");
  uint64_t total = e->const_nbits;
  if (total % align) total += align - total % align;
  const psg_tir_node *a0 = e->allocs.data[0];
  e->alloc_type = e->elem_type;
  psg_status st = alloc_var_for(r->ctx, a0->kids[0], e->alloc_type, &e->alloc_var);
  for (size_t i = 0; !st && i < e->merged.len; i++) {
    psgi_sr_entry *c = e->merged.data[i];
    if (!c->const_nbits)
      return psg_ctx_fail(r->ctx, PSG_ERR_UNSUPPORTED, "tir.StorageRewrite: special tagged memory must be const size");
    c->bits_offset = total;
    psg_tir_retain(e->alloc_var);
    c->alloc_var = e->alloc_var;
    total += c->const_nbits;
    if (total % align) total += align - total % align;
  }
  uint64_t type_bits = (uint64_t)psg_tir_dtype_bits(e->elem_type) * (uint64_t)psg_tir_dtype_lanes(e->elem_type);
  psg_tir_node *size = NULL;
  if (!st) st = int_const(r->ctx, a0->kids[3]->dtype, (int64_t)((total + type_bits - 1) / type_bits), &size);
  if (!st && !PSGI_VEC_PUSH(r->ctx, &e->extents, size)) {
    psg_tir_release(size);
    st = psgi_nomem(r->ctx);
  }
  e->emitted = !st;
  return st;
}

static bool same_allocs(const psgi_sr_entry *e) {
  const psg_tir_node *f = e->allocs.data[0];
  for (size_t i = 1; i < e->allocs.len; i++) {
    const psg_tir_node *a = e->allocs.data[i];
    if (a->dtype != f->dtype || a->nkids != f->nkids) return false;
    for (size_t k = 3; k < a->nkids; k++)
      if (!psg_arith_expr_equal(a->kids[k], f->kids[k])) return false;
  }
  return true;
}

/* The size of a storage shared by Allocates of different dtypes or extents:
 * the largest in bits, in elements of alloc_type rounded up (TVM's rule). */
static psg_status merged_size(rewriter *r, psgi_sr_entry *e, psg_tir_node **out) {
  psg_ctx *ctx = r->ctx;
  psg_tir_node *combo = NULL;
  psg_status st = PSG_OK;
  *out = NULL;
  for (size_t i = 0; !st && i < e->allocs.len; i++) {
    const psg_tir_node *a = e->allocs.data[i];
    if (a->nkids != 4) {
      st = psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED,
                        "tir.StorageRewrite: buffer var '%s' shares storage but has %zu physical dimensions",
                        psg_tir_var_name(a->kids[0]), (size_t)a->nkids - 3);
      break;
    }
    psg_tir_node *sz = a->kids[3], *nb = NULL, *bits = NULL;
    int64_t nbits = psg_tir_dtype_bits(a->dtype) * psg_tir_dtype_lanes(a->dtype);
    if (sz->kind == PSG_TIR_INT_IMM && sz->u.int_value > INT_MAX / nbits) { /* TVM: widened to int64 */
      if ((st = int_const(ctx, psg_tir_dtype_parse("int64", 5), sz->u.int_value, &sz))) break;
    } else {
      psg_tir_retain(sz);
    }
    if ((st = int_const(ctx, sz->dtype, nbits, &nb))) {
      psg_tir_release(sz);
      break;
    }
    if ((st = arith(ctx, PSG_TIR_MUL, sz, nb, &bits))) break;
    if (combo) {
      psg_tir_node *mx = NULL;
      st = arith(ctx, PSG_TIR_MAX, combo, bits, &mx);
      combo = mx;
    } else {
      combo = bits;
    }
  }
  if (st) {
    psg_tir_release(combo);
    return st;
  }
  psg_tir_dtype at = e->alloc_type;
  int64_t type_bits = psg_tir_dtype_bits(at) * psg_tir_dtype_lanes(at);
  psg_arith_analyzer *an = NULL;
  psg_tir_node *tb = NULL, *tb2 = NULL, *mod = NULL, *zero = NULL, *eq = NULL, *div = NULL;
  st = psg_arith_analyzer_create(ctx, &an);
  if (!st) st = int_const(ctx, combo->dtype, type_bits, &tb);
  if (!st) st = int_const(ctx, combo->dtype, type_bits, &tb2);
  if (!st) st = int_const(ctx, combo->dtype, 0, &zero);
  if (!st) {
    psg_tir_retain(combo);
    st = arith(ctx, PSG_TIR_FLOOR_MOD, combo, tb, &mod);
    tb = NULL;
  }
  if (!st) {
    st = arith(ctx, PSG_TIR_EQ, mod, zero, &eq);
    mod = zero = NULL;
  }
  bool divided = !st && psg_arith_can_prove(an, eq);
  if (!st) {
    st = arith(ctx, PSG_TIR_FLOOR_DIV, combo, tb2, &div);
    combo = tb2 = NULL;
  }
  if (!st && !divided) { /* rounded up */
    psg_tir_node *one = NULL, *sum = NULL;
    st = int_const(ctx, psg_tir_dtype_int32(), 1, &one);
    if (!st) {
      st = arith(ctx, PSG_TIR_ADD, div, one, &sum);
      div = sum;
    }
  }
  if (!st) st = psg_arith_simplify(an, div, out);
  psg_tir_release(combo);
  psg_tir_release(tb);
  psg_tir_release(tb2);
  psg_tir_release(mod);
  psg_tir_release(zero);
  psg_tir_release(eq);
  psg_tir_release(div);
  psg_arith_analyzer_destroy(an);
  return st;
}

/* TVM's PrepareNewAlloc. */
static psg_status prepare(rewriter *r) {
  psg_ctx *ctx = r->ctx;
  psg_status st = PSG_OK;
  for (size_t i = 0; i < r->plan.entries.len; i++) {
    psgi_sr_entry *e = r->plan.entries.data[i];
    const void *key = e->attach ? (const void *)e->attach : (const void *)&r->groups;
    bool is_new;
    psgi_map_entry *me = psgi_map_put_ptr(&r->group_of, key, &is_new);
    if (!me) return psgi_nomem(ctx);
    if (is_new) {
      group g = {e->attach, {0}};
      if (!PSGI_VEC_PUSH(ctx, &r->groups, g)) return psgi_nomem(ctx);
      me->value = (void *)r->groups.len;
    }
    group *g = &r->groups.data[(size_t)me->value - 1];
    if (!PSGI_VEC_PUSH(ctx, &g->entries, e)) return psgi_nomem(ctx);
  }
  for (size_t gi = 0; gi < r->groups.len && !st; gi++) {
    group *g = &r->groups.data[gi];
    for (size_t i = 0; i < g->entries.len; i++) { /* special tagged memory: one allocation per scope */
      psgi_sr_entry *e = g->entries.data[i];
      if (e->pinned || !psgi_sr_is_special_tag(e->tag)) continue;
      if (!e->const_nbits)
        return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "tir.StorageRewrite: special tagged memory must be const size");
      for (size_t j = 0; j < i; j++) {
        psgi_sr_entry *o = g->entries.data[j];
        if (!o->pinned && o->rank == e->rank && !strcmp(o->tag, e->tag)) {
          if (!PSGI_VEC_PUSH(ctx, &o->merged, e)) return psgi_nomem(ctx);
          break;
        }
      }
    }
    for (size_t i = 0; i < g->entries.len && !st; i++) {
      psgi_sr_entry *e = g->entries.data[i];
      if (e->bits_offset) continue;
      if (e->pinned) { /* kept in place by on_allocate */
        psg_tir_retain(e->allocs.data[0]->kids[0]);
        e->alloc_var = e->allocs.data[0]->kids[0];
        continue;
      }
      if (e->merged.len) {
        st = alloc_tag_merged(r, e);
        continue;
      }
      const psg_tir_node *a0 = e->allocs.data[0];
      e->alloc_type = a0->dtype;
      for (size_t k = 0; k < e->allocs.len; k++)
        if (psg_tir_dtype_lanes(e->allocs.data[k]->dtype) > psg_tir_dtype_lanes(e->alloc_type))
          e->alloc_type = e->allocs.data[k]->dtype;
      if ((st = alloc_var_for(ctx, a0->kids[0], e->alloc_type, &e->alloc_var))) break;
      if (same_allocs(e)) {
        for (size_t k = 3; k < a0->nkids && !st; k++) {
          if (!PSGI_VEC_PUSH(ctx, &e->extents, a0->kids[k])) st = psgi_nomem(ctx);
          else psg_tir_retain(a0->kids[k]);
        }
        e->condition = a0->kids[1];
        psg_tir_retain(e->condition);
        if (a0->kids[2]->kind == PSG_TIR_DECL_BUFFER) {
          psgi_map_entry *he = psgi_map_put_ptr(&r->hoisted, a0->kids[2]->kids[0], NULL);
          if (!he) st = psgi_nomem(ctx);
          else he->value = (void *)1, e->decl = a0->kids[2];
        }
      } else {
        psg_tir_node *size = NULL;
        st = merged_size(r, e, &size);
        if (!st && !PSGI_VEC_PUSH(ctx, &e->extents, size)) {
          psg_tir_release(size);
          st = psgi_nomem(ctx);
        }
      }
      e->emitted = !st;
    }
  }
  return st;
}

/* Buffer b re-pointed at the storage of its data var, named after it
 * (TVM's RemapBuffer); borrowed from the cache. */
static psg_status remap_buffer(rewriter *r, const psg_tir_node *b, psg_tir_node **out) {
  psgi_map_entry *me = psgi_map_get_ptr(&r->remapped, b);
  if (me) {
    *out = me->value;
    return PSG_OK;
  }
  psgi_sr_entry *e = psgi_sr_entry_of(&r->plan, b->kids[0]);
  uint32_t nd = b->u.buf.ndim;
  psg_tir_buffer_desc d = {
      .name = psg_tir_var_name(e->alloc_var),
      .data = e->alloc_var,
      .dtype = b->dtype,
      .shape = b->kids + 2,
      .ndim = nd,
      .strides = b->kids + 2 + nd,
      .nstrides = b->u.buf.nstrides,
      .elem_offset = b->kids[1],
      .axis_separators = b->u.buf.axis_separators,
      .naxis_separators = b->u.buf.naxis,
      .data_alignment = b->u.buf.data_alignment,
      .offset_factor = b->u.buf.offset_factor,
      .buffer_type = b->u.buf.buffer_type,
  };
  psg_tir_node *nb = NULL;
  psg_status st = psg_tir_buffer_create(r->ctx, &d, &b->span, &nb);
  if (st) return st;
  if (!(me = psgi_map_put_ptr(&r->remapped, b, NULL))) {
    psg_tir_release(nb);
    return psgi_nomem(r->ctx);
  }
  me->value = nb;
  *out = nb;
  return PSG_OK;
}

/* The allocations of group g around body (TVM's MakeAttach); consumes body. */
static psg_status attach(rewriter *r, const group *g, psg_tir_node *body, psg_tir_node **out) {
  psg_status st = PSG_OK;
  for (size_t i = g->entries.len; i-- > 0 && !st;) {
    psgi_sr_entry *e = g->entries.data[i];
    if (!e->emitted) continue;
    psg_tir_node *next = NULL;
    if (e->decl) {
      psg_tir_node *nb = NULL;
      st = remap_buffer(r, e->decl->kids[0], &nb);
      if (!st) st = psg_tir_decl_buffer_create(r->ctx, nb, body, &e->decl->span, &next);
      psg_tir_release(body);
      body = next;
    }
    if (!st) {
      st = psg_tir_allocate_create(r->ctx, e->alloc_var, e->alloc_type, e->extents.data, e->extents.len, e->condition,
                                   body, NULL, &e->allocs.data[0]->span, &next);
      psg_tir_release(body);
      body = next;
    }
  }
  *out = st ? NULL : body;
  if (st) psg_tir_release(body);
  return st;
}

static const group *group_at(const rewriter *r, const psg_tir_node *n) {
  psgi_map_entry *me = psgi_map_get_ptr(&r->group_of, n);
  return me ? &r->groups.data[(size_t)me->value - 1] : NULL;
}

/* out (a rewritten For or AttrStmt) with the allocations attached to n
 * around its body (operand `slot`). */
static psg_status wrap_body(psg_tir_mutator *m, const psg_tir_node *n, size_t slot, psg_tir_node **out) {
  rewriter *r = m->user;
  const group *g = group_at(r, n);
  if (!g) return PSG_OK;
  psg_tir_node *old = *out, *body = NULL;
  psg_tir_retain(old->kids[slot]);
  psg_status st = attach(r, g, old->kids[slot], &body);
  if (st) return st;
  psg_tir_node *kids_small[4];
  memcpy(kids_small, old->kids, old->nkids * sizeof *kids_small);
  kids_small[slot] = body;
  st = psgi_tir_rebuild(old, kids_small, out);
  psg_tir_release(body);
  psg_tir_release(old);
  return st;
}

static psg_status on_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_sr_entry *e = psgi_sr_entry_of(&((rewriter *)m->user)->plan, n);
  if (!e) return psg_tir_mutator_default(m, n, out);
  psg_tir_retain(e->alloc_var);
  *out = e->alloc_var;
  return PSG_OK;
}

static psg_status on_buffer(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  rewriter *r = m->user;
  if (!psgi_sr_entry_of(&r->plan, n->kids[0])) return psg_tir_mutator_default(m, n, out);
  psg_status st = remap_buffer(r, n, out);
  if (!st) psg_tir_retain(*out);
  return st;
}

/* out with operand `slot` replaced by `value` + it (value a constant of
 * its dtype, broadcast over a vector). */
static psg_status shift_operand(psg_ctx *ctx, psg_tir_node **out, size_t slot, int64_t value) {
  psg_tir_node *old = *out, *idx = old->kids[slot], *c = NULL, *sum = NULL;
  int lanes = psg_tir_dtype_lanes(idx->dtype);
  psg_status st = int_const(ctx, psg_tir_dtype_with_lanes(idx->dtype, 1), value, &c);
  if (!st && lanes > 1) {
    psg_tir_node *b = NULL;
    st = psg_tir_broadcast_create(ctx, c, lanes, NULL, &b);
    psg_tir_release(c);
    c = b;
  }
  if (!st) st = psg_tir_binary_create(ctx, PSG_TIR_ADD, c, idx, NULL, &sum);
  psg_tir_release(c);
  if (st) return st;
  psg_tir_node **kids = psgi_alloc(ctx, old->nkids * sizeof *kids);
  if (!kids) {
    psg_tir_release(sum);
    return psgi_nomem(ctx);
  }
  memcpy(kids, old->kids, old->nkids * sizeof *kids);
  kids[slot] = sum;
  st = psgi_tir_rebuild(old, kids, out);
  psgi_free(ctx, kids);
  psg_tir_release(sum);
  psg_tir_release(old);
  return st;
}

/* Loads and stores into a storage packed after another one move by its
 * offset (TVM's RemapIndex). */
static psg_status on_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  if (st) return st;
  psgi_sr_entry *e = psgi_sr_entry_of(&((rewriter *)m->user)->plan, n->kids[0]->kids[0]);
  size_t ni = psgi_tir_num_indices(n);
  if (!e || !e->bits_offset || !ni) return PSG_OK;
  uint64_t bits = (uint64_t)psg_tir_dtype_bits(n->kids[0]->dtype);
  if (e->bits_offset % bits)
    return psg_ctx_fail(m->ctx, PSG_ERR_INTERNAL, "tir.StorageRewrite: offset not a multiple of the element");
  size_t slot = (n->kind == PSG_TIR_BUFFER_STORE ? 2 : 1) + ni - 1;
  return shift_operand(m->ctx, out, slot, (int64_t)(e->bits_offset / bits));
}

static psg_status on_call(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  if (st || n->u.op != PSGI_TIR_OP_tvm_access_ptr || n->nkids != 5) return st;
  psgi_sr_entry *e = psgi_sr_entry_of(&((rewriter *)m->user)->plan, n->kids[1]);
  if (!e || !e->bits_offset) return PSG_OK;
  psg_tir_dtype t = n->kids[0]->dtype;
  uint64_t bits = (uint64_t)psg_tir_dtype_bits(t) * (uint64_t)psg_tir_dtype_lanes(t);
  if (!bits || e->bits_offset % bits)
    return psg_ctx_fail(m->ctx, PSG_ERR_INTERNAL, "tir.StorageRewrite: offset not a multiple of the element");
  return shift_operand(m->ctx, out, 2, (int64_t)(e->bits_offset / bits));
}

static psg_status on_allocate(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_sr_entry *e = psgi_sr_entry_of(&((rewriter *)m->user)->plan, n->kids[0]);
  if (e && e->pinned) return psg_tir_mutator_default(m, n, out);
  *out = psg_tir_mutator_get_result(m, n->kids[2]);
  psg_tir_retain(*out);
  return PSG_OK;
}

static psg_status on_decl_buffer(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  rewriter *r = m->user;
  if (psgi_map_get_ptr(&r->hoisted, n->kids[0]) || !psgi_map_get_ptr(&r->plan.accessed, n->kids[0])) {
    *out = psg_tir_mutator_get_result(m, n->kids[1]);
    psg_tir_retain(*out);
    return PSG_OK;
  }
  return psg_tir_mutator_default(m, n, out);
}

static psg_status on_for(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  if (n->u.loop.kind == PSG_TIR_FOR_VECTORIZED)
    return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT,
                        "tir.StorageRewrite: loop '%s' is vectorized: run tir.VectorizeLoop first",
                        psg_tir_var_name(n->kids[0]));
  psg_status st = psg_tir_mutator_default(m, n, out);
  return st ? st : wrap_body(m, n, 3, out);
}

static psg_status on_attr(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  const char *k = psg_tir_attr_stmt_key(n);
  if (st || (strcmp(k, "thread_extent") && strcmp(k, "virtual_thread") && strncmp(k, "pragma_", 7))) return st;
  return wrap_body(m, n, 1, out);
}

/* The plan applied: storage shared and allocations attached (TVM's
 * StoragePlanRewriter::Rewrite). */
static psg_status share_storage(psg_ctx *ctx, const psg_tir_prim_func *f, bool reuse, psg_tir_prim_func **out) {
  *out = NULL;
  rewriter r = {.ctx = ctx, .plan = {.ctx = ctx}};
  psgi_map_init(&r.plan.alloc_map, ctx);
  psgi_map_init(&r.plan.accessed, ctx);
  psgi_map_init(&r.group_of, ctx);
  psgi_map_init(&r.hoisted, ctx);
  psgi_map_init(&r.remapped, ctx);
  const psg_tir_node *body = f->kids[0];
  psg_status st = psgi_sr_plan_build(&r.plan, body, reuse);
  if (!st) st = prepare(&r);
  psg_tir_node *nb = NULL;
  if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.user = &r;
    m.visit[PSG_TIR_VAR] = on_var;
    m.visit[PSG_TIR_BUFFER] = on_buffer;
    m.visit[PSG_TIR_BUFFER_LOAD] = on_access;
    m.visit[PSG_TIR_BUFFER_STORE] = on_access;
    m.visit[PSG_TIR_CALL] = on_call;
    m.visit[PSG_TIR_ALLOCATE] = on_allocate;
    m.visit[PSG_TIR_DECL_BUFFER] = on_decl_buffer;
    m.visit[PSG_TIR_FOR] = on_for;
    m.visit[PSG_TIR_ATTR_STMT] = on_attr;
    st = psg_tir_mutate(&m, body, &nb);
    psg_tir_mutator_fini(&m);
  }
  const group *top = st ? NULL : group_at(&r, (const psg_tir_node *)&r.groups);
  if (top) {
    psg_tir_node *wrapped = NULL;
    st = attach(&r, top, nb, &wrapped);
    nb = wrapped;
  }
  if (!st && nb == body) {
    psg_tir_retain((psg_tir_node *)f);
    *out = (psg_tir_node *)f;
  } else if (!st) {
    st = psgi_tir_func_with_body(ctx, f, nb, out);
  }
  psg_tir_release(nb);
  for (size_t i = 0; i < r.groups.len; i++) PSGI_VEC_FREE(ctx, &r.groups.data[i].entries);
  PSGI_VEC_FREE(ctx, &r.groups);
  for (size_t i = 0; i < r.remapped.len; i++) psg_tir_release(r.remapped.entries[i].value);
  psgi_map_fini(&r.remapped);
  psgi_map_fini(&r.hoisted);
  psgi_map_fini(&r.group_of);
  psgi_sr_plan_fini(&r.plan);
  return st;
}

psg_status psgi_tir_storage_rewrite(psg_ctx *ctx, const psg_tir_prim_func *f, bool reuse, psg_tir_prim_func **out) {
  psg_tir_prim_func *shared = NULL;
  psg_status st = share_storage(ctx, f, reuse, &shared);
  if (!st) st = psgi_sr_vector_types(ctx, shared, out);
  psg_tir_release(shared);
  return st;
}

static psg_status storage_rewrite_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                       psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  bool reuse = !psg_pass_context_config_bool(pc, "tir.merge_static_smem");
  return psgi_tir_storage_rewrite(psg_pass_context_get_ctx(pc), f, reuse, out);
}

const psg_pass_decl psgi_pass_tir_storage_rewrite = {
    .name = "tir.StorageRewrite",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "share the storage of Allocates whose lifetimes do not overlap (same scope, close sizes, or in place) "
            "and move allocations to their attach point (config tir.merge_static_smem: no sharing)",
    .prim_func = storage_rewrite_pass,
    .cacheable = true,
};
