/* Passage — structural equality and hashing (TVM's StructuralEqual and
 * StructuralHash, ir.h): bound variables are equal by their position of
 * definition (alpha-equivalence), free variables only to themselves,
 * GlobalVars and ops by name, constants by dtype, shape and bytes; spans and
 * checked types are ignored. Relay expressions compare as graphs, as TVM's
 * graph nodes do: a node of one side met again must meet the node it was
 * first paired with (with a = add(x, x), add(a, a) differs from
 * add(a, add(x, x))). Both walks use explicit stacks.
 *
 * The hash numbers each binder by its binder depth (how many binders enclose
 * it), which is the same in any two alpha-equivalent trees, and memoizes a
 * node's hash together with the depth it was hashed at. A graph node met
 * again through another edge contributes its first-visit number instead of
 * its content, so sharing changes the hash as it changes equality. */
#include <stdio.h>
#include <stdlib.h>
#include "ir/ir_internal.h"
#include "passage/object_path.h"

/* Types ------------------------------------------------------------------- */

static uint64_t type_hash(const psg_type *t, int depth) {
  if (!t) return 0x51;
  uint64_t h = psgi_hash_mix((uint64_t)t->kind, (uint64_t)t->n);
  if (depth > 64) return h;
  if (t->kind == PSG_TYPE_TENSOR) {
    h = psgi_hash_mix(h, (uint64_t)t->dtype);
    for (int i = 0; i < t->n; i++) h = psgi_hash_mix(h, (uint64_t)t->dims[i]);
    return h;
  }
  for (int i = 0; i < t->n; i++) h = psgi_hash_mix(h, type_hash(t->fields[i], depth + 1));
  return t->kind == PSG_TYPE_FUNC ? psgi_hash_mix(h, type_hash(t->ret, depth + 1)) : h;
}

/* Attributes: hashed by keys and values; nested containers are shallow. */
static uint64_t attr_hash(const psg_attr *a, int depth);

static uint64_t attrs_hash(const psg_attrs *d, int depth) {
  uint64_t h = 0x77;
  for (size_t i = 0; d && i < d->n; i++) {
    h = psgi_hash_mix(h, psgi_hash_bytes(d->e[i].key, strlen(d->e[i].key)));
    h = psgi_hash_mix(h, attr_hash(d->e[i].value, depth + 1));
  }
  return h;
}

static uint64_t attr_hash(const psg_attr *a, int depth) {
  uint64_t h = (uint64_t)a->kind;
  if (depth > 64) return h;
  switch (a->kind) {
  case PSG_ATTR_NONE: return h;
  case PSG_ATTR_INT: return psgi_hash_mix(h, (uint64_t)a->u.i);
  case PSG_ATTR_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &a->u.f, sizeof bits);
    return psgi_hash_mix(h, bits);
  }
  case PSG_ATTR_BOOL: return psgi_hash_mix(h, a->u.b);
  case PSG_ATTR_DTYPE: return psgi_hash_mix(h, (uint64_t)a->u.dtype);
  case PSG_ATTR_STRING: return psgi_hash_mix(h, psgi_hash_bytes(a->u.str.s, a->u.str.len));
  case PSG_ATTR_GLOBAL_VAR: return psgi_hash_mix(h, psgi_hash_bytes(a->u.str.s, a->u.str.len));
  case PSG_ATTR_LIST:
    for (size_t i = 0; i < a->u.list.n; i++) h = psgi_hash_mix(h, attr_hash(a->u.list.items[i], depth + 1));
    return h;
  case PSG_ATTR_DICT: return psgi_hash_mix(h, attrs_hash(a->u.dict, depth + 1));
  }
  return h;
}

/* A call's attributes without those that have a default (psgi_call_attrs_equal
 * takes an absent one as its default, so equal calls must hash alike). */
static uint64_t call_attrs_hash(const psg_expr *e) {
  const psg_attrs *d = e->u.attrs;
  uint64_t h = 0x77;
  for (size_t i = 0; d && i < d->n; i++) {
    if (psgi_call_attr_has_default(e, d->e[i].key) || psgi_call_attr_is_none(e, d->e[i].value)) continue;
    h = psgi_hash_mix(h, psgi_hash_bytes(d->e[i].key, strlen(d->e[i].key)));
    h = psgi_hash_mix(h, attr_hash(d->e[i].value, 1));
  }
  return h;
}

static uint64_t tensor_hash(const psg_tensor *t) {
  uint64_t h = psgi_hash_mix((uint64_t)t->dtype, (uint64_t)t->ndim);
  for (int i = 0; i < t->ndim; i++) h = psgi_hash_mix(h, (uint64_t)t->shape[i]);
  return psgi_hash_mix(h, psgi_hash_bytes(t->data, t->nbytes));
}

/* The kinds compared as graph nodes (TVM's MarkGraphNode; variables are
 * matched by their own maps, constants, ops and globals by value). */
static bool is_graph_node(const psg_expr *e) {
  switch (e->kind) {
  case PSG_EXPR_CALL:
  case PSG_EXPR_TUPLE_GET_ITEM:
  case PSG_EXPR_LET:
  case PSG_EXPR_IF:
  case PSG_EXPR_FUNCTION:
  case PSG_EXPR_MATCH:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE: return true;
  case PSG_EXPR_TUPLE: return e->nkids > 0; /* () is a constant in TVM */
  default: return false;
  }
}

/* Hash ------------------------------------------------------------------------ */

typedef struct hash_frame {
  const psg_expr *e;
  uint32_t depth; /* binders enclosing e */
  uint32_t next;  /* children pushed so far */
  const psg_expr *parent; /* the node (and its edge) e was reached through */
  uint32_t edge;
} hash_frame;

typedef struct hash_memo {
  uint64_t hash;
  uint32_t depth;
  bool done;
  uint32_t order;               /* when the node was first met */
  const psg_expr *first_parent; /* and through which edge */
  uint32_t first_edge;
} hash_memo;

typedef struct hasher {
  psg_ctx *ctx;
  psgi_map memo;   /* node -> hash_memo* (arena) */
  psgi_map levels; /* bound var -> level + 1 */
  psgi_arena arena;
  uint32_t met; /* nodes met so far */
  bool failed;
} hasher;

/* Depth of binders a child of e sits under, given e's depth. */
static uint32_t child_depth(const psg_expr *e, uint32_t depth, uint32_t i) {
  if (e->kind == PSG_EXPR_FUNCTION && i == e->nkids - 1) return depth + e->nkids - 1;
  if (e->kind == PSG_EXPR_LET && i == 2) return depth + 1;
  if (e->kind == PSG_EXPR_MATCH && i > 0 && !e->u.match->binder[i]) /* a clause's rhs: under its variables */
    for (uint32_t k = i; k-- > 1 && e->u.match->binder[k];) depth++;
  return depth;
}

/* A Match's completeness and pattern shapes (constructors by name). */
static uint64_t match_layout_hash(const psgi_match_info *mi) {
  uint64_t v = psgi_hash_mix(mi->complete, mi->nclauses);
  for (uint32_t c = 0; c < mi->nclauses; c++) v = psgi_hash_mix(v, mi->pat_start[c + 1] - mi->pat_start[c]);
  for (uint32_t i = 0; i < mi->pat_start[mi->nclauses]; i++) {
    const psgi_pat_node *p = &mi->pats[i];
    v = psgi_hash_mix(v, psgi_hash_mix(p->kind, p->nsub));
    if (p->ctor) v = psgi_hash_mix(v, psgi_hash_bytes(p->ctor->u.ctor.name, strlen(p->ctor->u.ctor.name)));
  }
  return v;
}

static hash_memo *memo_get(hasher *h, const psg_expr *e, uint32_t depth) {
  psgi_map_entry *en = psgi_map_get_ptr(&h->memo, e);
  hash_memo *m = en ? en->value : NULL;
  return m && m->done && m->depth == depth ? m : NULL;
}

static uint64_t node_hash(hasher *h, const psg_expr *e, uint32_t depth) {
  uint64_t v = psgi_hash_mix(0x9e37, (uint64_t)e->kind);
  switch (e->kind) {
  case PSG_EXPR_VAR: {
    psgi_map_entry *en = psgi_map_get_ptr(&h->levels, e);
    if (en) return psgi_hash_mix(v, (uint64_t)(uintptr_t)en->value);
    return psgi_hash_mix(v ^ 0xf4ee, psgi_hash_ptr(e)); /* free: itself */
  }
  case PSG_EXPR_GLOBAL_VAR: return psgi_hash_mix(v, psgi_hash_bytes(e->u.gvar.name, strlen(e->u.gvar.name)));
  case PSG_EXPR_CONSTANT: return psgi_hash_mix(v, tensor_hash(e->u.constant));
  case PSG_EXPR_OP: return psgi_hash_mix(v, e->u.op);
  case PSG_EXPR_TUPLE_GET_ITEM: v = psgi_hash_mix(v, (uint64_t)e->u.index); break;
  case PSG_EXPR_CALL: v = psgi_hash_mix(v, call_attrs_hash(e)); break;
  case PSG_EXPR_FUNCTION:
    v = psgi_hash_mix(v, attrs_hash(e->u.fn.attrs, 0));
    v = psgi_hash_mix(v, type_hash(e->u.fn.ret_type, 0));
    v = psgi_hash_mix(v, (uint64_t)psg_function_num_type_params(e));
    break;
  case PSG_EXPR_CONSTRUCTOR:
    v = psgi_hash_mix(v, psgi_hash_bytes(e->u.ctor.name, strlen(e->u.ctor.name)));
    return psgi_hash_mix(v, type_hash(e->u.ctor.inputs, 0));
  case PSG_EXPR_MATCH: v = psgi_hash_mix(v, match_layout_hash(e->u.match)); break;
  case PSG_EXPR_TUPLE:
  case PSG_EXPR_LET:
  case PSG_EXPR_IF:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE: break;
  }
  v = psgi_hash_mix(v, e->nkids);
  for (uint32_t i = 0; i < e->nkids; i++) {
    const psg_expr *k = e->kids[i];
    uint32_t d = child_depth(e, depth, i);
    hash_memo *m = memo_get(h, k, d);
    /* Binders (params, let vars) contribute their annotation, not a use. */
    bool binder = psgi_expr_binds_child(e, i);
    if (!binder && m && is_graph_node(k) && (m->first_parent != e || m->first_edge != i))
      v = psgi_hash_mix(v, psgi_hash_mix(0xbac, m->order)); /* shared: met before */
    else
      v = psgi_hash_mix(v, binder ? type_hash(k->u.var.type, 0) : m ? m->hash : 0);
  }
  return v;
}

/* Gives the binders of e their levels (before its children are hashed). */
static bool bind_levels(hasher *h, const psg_expr *e, uint32_t depth) {
  if (e->kind == PSG_EXPR_FUNCTION) {
    for (uint32_t i = 0; i + 1 < e->nkids; i++) {
      psgi_map_entry *en = psgi_map_put_ptr(&h->levels, e->kids[i], NULL);
      if (!en) return false;
      en->value = (void *)(uintptr_t)(depth + i + 1);
    }
  } else if (e->kind == PSG_EXPR_LET) {
    psgi_map_entry *en = psgi_map_put_ptr(&h->levels, e->kids[0], NULL);
    if (!en) return false;
    en->value = (void *)(uintptr_t)(depth + 1);
  } else if (e->kind == PSG_EXPR_MATCH) {
    uint32_t level = depth;
    for (uint32_t i = 1; i < e->nkids; i++) {
      if (!e->u.match->binder[i]) { /* a rhs: the next clause's variables start over */
        level = depth;
        continue;
      }
      psgi_map_entry *en = psgi_map_put_ptr(&h->levels, e->kids[i], NULL);
      if (!en) return false;
      en->value = (void *)(uintptr_t)(++level);
    }
  }
  return true;
}

static uint64_t hash_root(hasher *h, const psg_expr *root) {
  PSGI_VEC(hash_frame) stack = {0};
  hash_frame f0 = {root, 0, 0, NULL, 0};
  if (!PSGI_VEC_PUSH(h->ctx, &stack, f0)) goto fail;
  while (stack.len) {
    hash_frame *f = &stack.data[stack.len - 1];
    const psg_expr *e = f->e;
    if (f->next == 0) {
      if (memo_get(h, e, f->depth)) {
        stack.len--;
        continue;
      }
      if (!bind_levels(h, e, f->depth)) goto fail;
      psgi_map_entry *en = psgi_map_get_ptr(&h->memo, e);
      if (!en) { /* first met: remember when and through which edge */
        hash_memo *m = psgi_arena_alloc(&h->arena, sizeof *m);
        if (!m || !(en = psgi_map_put_ptr(&h->memo, e, NULL))) goto fail;
        *m = (hash_memo){0, f->depth, false, h->met++, f->parent, f->edge};
        en->value = m;
      }
    }
    if (f->next < e->nkids) {
      uint32_t i = f->next++;
      bool binder = psgi_expr_binds_child(e, i);
      if (binder) continue;
      hash_frame fc = {e->kids[i], child_depth(e, f->depth, i), 0, e, i};
      if (!PSGI_VEC_PUSH(h->ctx, &stack, fc)) goto fail;
      continue;
    }
    uint32_t depth = f->depth;
    stack.len--;
    hash_memo *m = psgi_map_get_ptr(&h->memo, e)->value; /* put when e was first met */
    m->hash = node_hash(h, e, depth);
    m->depth = depth;
    m->done = true;
  }
  PSGI_VEC_FREE(h->ctx, &stack);
  return memo_get(h, root, 0)->hash;
fail:
  PSGI_VEC_FREE(h->ctx, &stack);
  h->failed = true;
  return 0;
}

static void hasher_init(hasher *h, psg_ctx *ctx) {
  h->ctx = ctx;
  h->failed = false;
  h->met = 0;
  psgi_map_init(&h->memo, ctx);
  psgi_map_init(&h->levels, ctx);
  psgi_arena_init(&h->arena, ctx);
}

static void hasher_fini(hasher *h) {
  psgi_map_fini(&h->memo);
  psgi_map_fini(&h->levels);
  psgi_arena_fini(&h->arena);
}

uint64_t psg_expr_structural_hash(const psg_expr *e) {
  hasher h;
  hasher_init(&h, e->ctx);
  uint64_t v = hash_root(&h, e);
  hasher_fini(&h);
  return v;
}

uint64_t psg_module_structural_hash(const psg_module *m) {
  hasher h;
  hasher_init(&h, m->ctx);
  uint64_t v = psgi_hash_mix(0x30d, m->n);
  for (size_t i = 0; i < m->n; i++) {
    const char *name = m->entries[i].gv->u.gvar.name;
    v = psgi_hash_mix(v, psgi_hash_bytes(name, strlen(name)));
    const psgi_module_entry *e = &m->entries[i];
    v = psgi_hash_mix(v, e->prim ? e->prim_ops->hash(e->prim) : hash_root(&h, e->func));
  }
  v = psgi_hash_mix(v, attrs_hash(m->attrs, 0));
  for (size_t i = 0; i < m->ntypes; i++) {
    const psg_type_data *td = m->types[i];
    v = psgi_hash_mix(v, psg_type_structural_hash(td->header));
    v = psgi_hash_mix(v, psgi_hash_mix((uint64_t)td->ntvars, (uint64_t)td->nctors));
    for (int c = 0; c < td->nctors; c++) {
      const char *cn = td->ctors[c]->u.ctor.name;
      v = psgi_hash_mix(v, psgi_hash_mix(psgi_hash_bytes(cn, strlen(cn)), (uint64_t)td->ctors[c]->u.ctor.inputs->n));
    }
  }
  hasher_fini(&h);
  return v;
}

/* Equality ----------------------------------------------------------------- */

/* One pair to compare, with where it sits (for the mismatch path). */
typedef struct eq_item {
  const psg_expr *a, *b;
  int32_t parent;   /* index into the path trail, -1 for a root */
  const char *label; /* "body", "args", ... */
  int32_t index;    /* -1: no [index] */
} eq_item;

typedef struct trail_entry {
  int32_t parent;
  const char *label;
  int32_t index;
} trail_entry;

typedef struct equaler {
  psg_ctx *ctx;
  psgi_map a_to_b, b_to_a; /* bound var maps, and the pairs of graph nodes met */
  /* Type parameters of the polymorphic Functions met, paired by position. */
  PSGI_VEC(const psg_type *) tva;
  PSGI_VEC(const psg_type *) tvb;
  PSGI_VEC(eq_item) stack;
  PSGI_VEC(trail_entry) trail;
  bool explain;
  bool map_free; /* TVM's map_free_vars: a free var may pair with one of the other side */
  psgi_buf why;
  int32_t where; /* trail index of the mismatch */
  bool oom;
} equaler;

static bool mismatch(equaler *q, int32_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool mismatch(equaler *q, int32_t at, const char *fmt, ...) {
  if (q->explain) {
    va_list ap;
    va_start(ap, fmt);
    psgi_buf_vprintf(&q->why, fmt, ap);
    va_end(ap);
  }
  q->where = at;
  return false;
}

static bool types_equal(equaler *q, const psg_type *a, const psg_type *b) {
  return psgi_type_equal_paired(a, b, q->tva.data, q->tvb.data, q->tva.len);
}

static bool map_binder(equaler *q, int32_t at, const psg_expr *a, const psg_expr *b) {
  if (!types_equal(q, a->u.var.type, b->u.var.type))
    return mismatch(q, at, "variable %%%s and %%%s have different type annotations", a->u.var.name, b->u.var.name);
  psgi_map_entry *x = psgi_map_put_ptr(&q->a_to_b, a, NULL), *y = psgi_map_put_ptr(&q->b_to_a, b, NULL);
  if (!x || !y) {
    q->oom = true;
    return false;
  }
  x->value = (void *)b;
  y->value = (void *)a;
  return true;
}

static bool push(equaler *q, const psg_expr *a, const psg_expr *b, int32_t parent, const char *label, int32_t index) {
  eq_item it = {a, b, parent, label, index};
  if (!PSGI_VEC_PUSH(q->ctx, &q->stack, it)) {
    q->oom = true;
    return false;
  }
  return true;
}

static const char *kid_label(const psg_expr *e, uint32_t i, int32_t *index) {
  *index = -1;
  switch (e->kind) {
  case PSG_EXPR_CALL:
    if (i == 0) return "op";
    *index = (int32_t)i - 1;
    return "args";
  case PSG_EXPR_TUPLE: *index = (int32_t)i; return "fields";
  case PSG_EXPR_TUPLE_GET_ITEM: return "tuple";
  case PSG_EXPR_LET: return i == 1 ? "value" : "body";
  case PSG_EXPR_IF: return i == 0 ? "cond" : i == 1 ? "true_branch" : "false_branch";
  case PSG_EXPR_FUNCTION: return "body";
  case PSG_EXPR_MATCH: return i == 0 ? "data" : "clauses";
  case PSG_EXPR_REF_CREATE: return "value";
  case PSG_EXPR_REF_READ: return "ref";
  case PSG_EXPR_REF_WRITE: return i == 0 ? "ref" : "value";
  default: return "?";
  }
}

static bool match_layouts_equal(const psgi_match_info *x, const psgi_match_info *y) {
  if (x->complete != y->complete || x->nclauses != y->nclauses) return false;
  for (uint32_t c = 0; c <= x->nclauses; c++)
    if (x->pat_start[c] != y->pat_start[c]) return false;
  for (uint32_t i = 0; i < x->pat_start[x->nclauses]; i++) {
    const psgi_pat_node *p = &x->pats[i], *r = &y->pats[i];
    if (p->kind != r->kind || p->nsub != r->nsub) return false;
    if (p->ctor && strcmp(p->ctor->u.ctor.name, r->ctor->u.ctor.name) != 0) return false;
  }
  return true;
}

/* Compares one pair; pushes its children (reversed, so pre-order). */
static bool compare_pair(equaler *q, const eq_item *it, int32_t at) {
  const psg_expr *a = it->a, *b = it->b;
  if (is_graph_node(a)) {
    /* A node met before must meet its first partner again (and only it). */
    psgi_map_entry *x = psgi_map_get_ptr(&q->a_to_b, a), *y = psgi_map_get_ptr(&q->b_to_a, b);
    if (x || y) return x && x->value == b ? true : mismatch(q, at, "the two sides share nodes differently");
    psgi_map_entry *nx = psgi_map_put_ptr(&q->a_to_b, a, NULL), *ny = psgi_map_put_ptr(&q->b_to_a, b, NULL);
    if (!nx || !ny) {
      q->oom = true;
      return false;
    }
    nx->value = (void *)b;
    ny->value = (void *)a;
  } else if (a == b) {
    return true; /* the same leaf: a variable is its own */
  }
  if (a->kind != b->kind)
    return mismatch(q, at, "%s vs %s", psgi_expr_kind_names[a->kind], psgi_expr_kind_names[b->kind]);
  switch (a->kind) {
  case PSG_EXPR_VAR: {
    psgi_map_entry *x = psgi_map_get_ptr(&q->a_to_b, a), *y = psgi_map_get_ptr(&q->b_to_a, b);
    if (x || y) {
      if (x && x->value == b) return true;
      return mismatch(q, at, "variable %%%s is bound to a different variable than %%%s", a->u.var.name, b->u.var.name);
    }
    if (q->map_free) return map_binder(q, at, a, b); /* paired at first meeting, like a definition */
    return mismatch(q, at, "free variables %%%s and %%%s differ", a->u.var.name, b->u.var.name);
  }
  case PSG_EXPR_GLOBAL_VAR:
    return a->u.gvar.name == b->u.gvar.name || strcmp(a->u.gvar.name, b->u.gvar.name) == 0
               ? true
               : mismatch(q, at, "@%s vs @%s", a->u.gvar.name, b->u.gvar.name);
  case PSG_EXPR_CONSTANT:
    return psg_tensor_equal(a->u.constant, b->u.constant) ? true : mismatch(q, at, "Constant data differ");
  case PSG_EXPR_OP:
    return a->u.op == b->u.op ? true : mismatch(q, at, "op %s vs %s", psg_op_name(a), psg_op_name(b));
  case PSG_EXPR_TUPLE_GET_ITEM:
    if (a->u.index != b->u.index) return mismatch(q, at, "TupleGetItem index %d vs %d", a->u.index, b->u.index);
    break;
  case PSG_EXPR_CALL:
    if (a->nkids != b->nkids) return mismatch(q, at, "Call args count %u vs %u", a->nkids - 1, b->nkids - 1);
    if (!psgi_call_attrs_equal(a, b)) return mismatch(q, at, "Call attrs differ");
    break;
  case PSG_EXPR_TUPLE:
    if (a->nkids != b->nkids) return mismatch(q, at, "Tuple size %u vs %u", a->nkids, b->nkids);
    break;
  case PSG_EXPR_LET:
    if (!map_binder(q, at, a->kids[0], b->kids[0])) return false;
    break;
  case PSG_EXPR_IF: break;
  case PSG_EXPR_FUNCTION:
    if (a->nkids != b->nkids) return mismatch(q, at, "Function params count %u vs %u", a->nkids - 1, b->nkids - 1);
    if (psg_function_num_type_params(a) != psg_function_num_type_params(b))
      return mismatch(q, at, "Function type params count %d vs %d", psg_function_num_type_params(a),
                      psg_function_num_type_params(b));
    for (int i = 0; i < psg_function_num_type_params(a); i++) {
      const psg_type *ta = psg_function_type_param(a, i), *tb = psg_function_type_param(b, i);
      if (psg_type_var_kind(ta) != psg_type_var_kind(tb)) return mismatch(q, at, "Function type param kinds differ");
      if (!PSGI_VEC_PUSH(q->ctx, &q->tva, ta) || !PSGI_VEC_PUSH(q->ctx, &q->tvb, tb)) {
        q->oom = true;
        return false;
      }
    }
    if (!types_equal(q, a->u.fn.ret_type, b->u.fn.ret_type)) return mismatch(q, at, "Function return types differ");
    if (!psg_attrs_equal(a->u.fn.attrs, b->u.fn.attrs)) return mismatch(q, at, "Function attrs differ");
    for (uint32_t i = 0; i + 1 < a->nkids; i++)
      if (!map_binder(q, at, a->kids[i], b->kids[i])) return false;
    break;
  case PSG_EXPR_CONSTRUCTOR:
    if (strcmp(a->u.ctor.name, b->u.ctor.name) != 0 ||
        strcmp(a->u.ctor.belongs_to->name, b->u.ctor.belongs_to->name) != 0)
      return mismatch(q, at, "constructor %s vs %s", a->u.ctor.name, b->u.ctor.name);
    return true;
  case PSG_EXPR_MATCH:
    if (a->nkids != b->nkids || !match_layouts_equal(a->u.match, b->u.match))
      return mismatch(q, at, "Match clauses or patterns differ");
    for (uint32_t i = 1; i < a->nkids; i++)
      if (a->u.match->binder[i] && !map_binder(q, at, a->kids[i], b->kids[i])) return false;
    break;
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE: break;
  }
  /* Children in reverse so the first is compared first; binders are done. */
  for (uint32_t i = a->nkids; i-- > 0;) {
    bool binder = psgi_expr_binds_child(a, i);
    if (binder) continue;
    int32_t index;
    const char *label = kid_label(a, i, &index);
    if (!push(q, a->kids[i], b->kids[i], at, label, index)) return false;
  }
  return true;
}

static bool equal_root(equaler *q, const psg_expr *a, const psg_expr *b, int32_t root_parent, const char *root_label) {
  q->stack.len = 0;
  if (a == b) return true; /* one graph is equal to itself */
  if (!push(q, a, b, root_parent, root_label, -1)) return false;
  while (q->stack.len) {
    eq_item it = q->stack.data[--q->stack.len];
    int32_t at = -1;
    if (q->explain) {
      trail_entry t = {it.parent, it.label, it.index};
      if (!PSGI_VEC_PUSH(q->ctx, &q->trail, t)) {
        q->oom = true;
        return false;
      }
      at = (int32_t)q->trail.len - 1;
    }
    if (!compare_pair(q, &it, at)) return false;
  }
  return true;
}

static void equaler_init(equaler *q, psg_ctx *ctx, bool explain) {
  memset(q, 0, sizeof *q);
  q->ctx = ctx;
  q->explain = explain;
  q->where = -1;
  psgi_map_init(&q->a_to_b, ctx);
  psgi_map_init(&q->b_to_a, ctx);
  psgi_buf_init(&q->why, ctx);
}

/* "prefix.body.args[0]: reason" as a malloc'd string. */
static char *describe(equaler *q, const char *prefix) {
  psgi_buf b;
  psgi_buf_init(&b, q->ctx);
  if (prefix) psgi_buf_puts(&b, prefix);
  /* The trail links child to parent: collect, then print root first. */
  PSGI_VEC(int32_t) chain = {0};
  for (int32_t i = q->where; i >= 0; i = q->trail.data[i].parent) PSGI_VEC_PUSH(q->ctx, &chain, i);
  for (size_t k = chain.len; k-- > 0;) {
    trail_entry *t = &q->trail.data[chain.data[k]];
    if (!t->label) continue;
    if (b.len) psgi_buf_putc(&b, '.');
    psgi_buf_puts(&b, t->label);
    if (t->index >= 0) psgi_buf_printf(&b, "[%d]", t->index);
  }
  PSGI_VEC_FREE(q->ctx, &chain);
  psgi_buf_printf(&b, "%s%s", b.len ? ": " : "", q->why.data ? q->why.data : "differ");
  char *s = psgi_buf_detach_libc(&b, NULL);
  if (!s) psgi_buf_fini(&b);
  return s;
}

static void equaler_fini(equaler *q) {
  psgi_map_fini(&q->a_to_b);
  psgi_map_fini(&q->b_to_a);
  PSGI_VEC_FREE(q->ctx, &q->stack);
  PSGI_VEC_FREE(q->ctx, &q->trail);
  PSGI_VEC_FREE(q->ctx, &q->tva);
  PSGI_VEC_FREE(q->ctx, &q->tvb);
  psgi_buf_fini(&q->why);
}

bool psg_expr_structural_equal_explain(const psg_expr *a, const psg_expr *b, char **path) {
  return psg_expr_structural_equal_ex(a, b, false, path);
}

bool psg_expr_structural_equal_ex(const psg_expr *a, const psg_expr *b, bool map_free_vars, char **path) {
  if (path) *path = NULL;
  equaler q;
  equaler_init(&q, a->ctx, path != NULL);
  q.map_free = map_free_vars;
  bool eq = equal_root(&q, a, b, -1, NULL);
  if (!eq && path) *path = q.oom ? NULL : describe(&q, NULL);
  equaler_fini(&q);
  return eq;
}

bool psg_expr_structural_equal(const psg_expr *a, const psg_expr *b) {
  return psg_expr_structural_equal_explain(a, b, NULL);
}

bool psg_module_structural_equal(const psg_module *a, const psg_module *b, char **path) {
  return psg_module_structural_equal_ex(a, b, false, path);
}

/* Type definitions: in order, by name, with constructors' inputs compared
 * under the two definitions' type parameters paired by position. */
static bool type_defs_equal(const psg_module *a, const psg_module *b, char *buf, size_t cap) {
  if (a->ntypes != b->ntypes) {
    snprintf(buf, cap, "module: %zu type definitions vs %zu", a->ntypes, b->ntypes);
    return false;
  }
  for (size_t i = 0; i < a->ntypes; i++) {
    const psg_type_data *x = a->types[i], *y = b->types[i];
    snprintf(buf, cap, "type %s", x->header->name);
    if (strcmp(x->header->name, y->header->name) != 0 || x->ntvars != y->ntvars || x->nctors != y->nctors)
      return false;
    for (int c = 0; c < x->nctors; c++) {
      const psg_expr *p = x->ctors[c], *r = y->ctors[c];
      if (strcmp(p->u.ctor.name, r->u.ctor.name) != 0 ||
          !psgi_type_equal_paired(p->u.ctor.inputs, r->u.ctor.inputs, x->tvars, y->tvars, (size_t)x->ntvars)) {
        snprintf(buf, cap, "type %s: constructor %s vs %s", x->header->name, p->u.ctor.name, r->u.ctor.name);
        return false;
      }
    }
  }
  return true;
}

bool psg_module_structural_equal_ex(const psg_module *a, const psg_module *b, bool map_free_vars, char **path) {
  if (path) *path = NULL;
  char buf[256];
  if (!type_defs_equal(a, b, buf, sizeof buf)) {
    if (path) *path = strdup(buf);
    return false;
  }
  if (a->n != b->n || !psg_attrs_equal(a->attrs, b->attrs)) {
    if (path) {
      snprintf(buf, sizeof buf, a->n != b->n ? "module: %zu functions vs %zu" : "module attrs differ", a->n, b->n);
      *path = strdup(buf);
    }
    return false;
  }
  equaler q;
  equaler_init(&q, a->ctx, path != NULL);
  q.map_free = map_free_vars;
  bool eq = true;
  for (size_t i = 0; i < a->n && eq; i++) {
    const char *na = a->entries[i].gv->u.gvar.name, *nb = b->entries[i].gv->u.gvar.name;
    if (strcmp(na, nb) != 0) {
      if (path) {
        snprintf(buf, sizeof buf, "function %zu: @%s vs @%s", i, na, nb);
        *path = strdup(buf);
      }
      eq = false;
      break;
    }
    const psgi_module_entry *ea = &a->entries[i], *eb = &b->entries[i];
    if (ea->prim || eb->prim) {
      snprintf(buf, sizeof buf, "@%s", na);
      if (!ea->prim || !eb->prim) {
        if (path) {
          snprintf(buf, sizeof buf, "@%s: a %s vs a %s", na, ea->prim ? "PrimFunc" : "Relay function",
                   eb->prim ? "PrimFunc" : "Relay function");
          *path = strdup(buf);
        }
        eq = false;
      } else {
        eq = ea->prim_ops->equal(ea->prim, eb->prim, buf, path);
      }
      continue;
    }
    q.trail.len = 0;
    q.where = -1;
    if (!equal_root(&q, a->entries[i].func, b->entries[i].func, -1, NULL)) {
      eq = false;
      if (path && !q.oom) {
        snprintf(buf, sizeof buf, "@%s", na);
        *path = describe(&q, buf);
      }
    }
  }
  equaler_fini(&q);
  return eq;
}

/* The trail to the mismatch as an ObjectPath: each labelled step an
 * attribute, each index an array index (include/passage/object_path.h). */
static psg_status trail_path(equaler *q, psg_object_path *root, psg_object_path **out) {
  PSGI_VEC(int32_t) chain = {0};
  psg_status st = PSG_OK;
  for (int32_t i = q->where; i >= 0 && st == PSG_OK; i = q->trail.data[i].parent)
    if (!PSGI_VEC_PUSH(q->ctx, &chain, i)) st = psgi_nomem(q->ctx);
  psg_object_path *p = root;
  psg_object_path_retain(p);
  for (size_t k = chain.len; st == PSG_OK && k-- > 0;) {
    const trail_entry *t = &q->trail.data[chain.data[k]];
    if (!t->label) continue;
    psg_object_path *next = NULL;
    st = psg_object_path_attr(p, t->label, &next);
    if (st == PSG_OK && t->index >= 0) {
      psg_object_path *attr = next;
      st = psg_object_path_array_index(attr, t->index, &next);
      psg_object_path_release(attr);
    }
    psg_object_path_release(p);
    p = st == PSG_OK ? next : NULL;
  }
  PSGI_VEC_FREE(q->ctx, &chain);
  if (st != PSG_OK) {
    psg_object_path_release(p);
    return st;
  }
  *out = p;
  return PSG_OK;
}

psg_status psg_expr_first_mismatch(const psg_expr *a, const psg_expr *b, bool map_free_vars, psg_object_path *root_a,
                                   psg_object_path *root_b, psg_object_path **out_a, psg_object_path **out_b) {
  if (!out_a || !out_b) return PSG_ERR_INVALID_ARGUMENT;
  *out_a = *out_b = NULL;
  if (!a || !b || !root_a || !root_b) return PSG_ERR_INVALID_ARGUMENT;
  equaler q;
  equaler_init(&q, a->ctx, true);
  q.map_free = map_free_vars;
  psg_status st = PSG_OK;
  if (!equal_root(&q, a, b, -1, NULL)) {
    st = q.oom ? psgi_nomem(a->ctx) : trail_path(&q, root_a, out_a);
    if (st == PSG_OK) st = trail_path(&q, root_b, out_b);
    if (st != PSG_OK) {
      psg_object_path_release(*out_a);
      *out_a = NULL;
    }
  }
  equaler_fini(&q);
  return st;
}
