/* Passage — tir.ConvertSSA (TVM's ConvertSSA in src/tir/ir/ir_utils.cc, a
 * module pass): every variable is defined once across all the module's
 * PrimFuncs. A var defined again (a PrimFunc parameter, a Let/LetStmt/For
 * var or an Allocate's buffer var met before, in this function or an
 * earlier one) is replaced at that definition by a fresh var of the same
 * name and type, and its uses within that definition's scope follow; buffers
 * over a renamed var are rebuilt, once per function (a buffer stays one
 * object). As in TVM:
 *  - the vars a buffer-map buffer introduces (its data var, and the vars of
 *    its shape, strides and elem_offset that are not params) are defined by
 *    the function, and renamed when an earlier function defined them;
 *  - the var of an AttrStmt's IterVar (a thread index: T.launch_thread) is
 *    defined at function scope: every AttrStmt of the function over it
 *    shares one definition, renamed when an earlier function defined it; a
 *    var that nothing defined yet (a pragma naming the loop var of the For
 *    it annotates) counts as defined only after that AttrStmt.
 * The walk is iterative and not memoized: a node shared by two scopes is
 * rewritten in each; but a shared subtree that defines no var, met while no
 * var is renamed, is kept without a walk (its rewrite is itself: UnrollLoop's
 * copies share every subtree without the loop var). */
#include "tir/transforms/tir_transforms.h"

typedef struct mapping {
  const psg_tir_node *var;
  psg_tir_node *to;  /* owned */
  uintptr_t prev;    /* the var's previous entry in ssa.current (0: none) */
} mapping;

typedef struct result {
  uint32_t slot;
  psg_tir_node *node; /* a new reference */
} result;

typedef struct frame {
  const psg_tir_node *n;
  uint32_t k;          /* next child in visit order */
  size_t results_base; /* its children's results start here */
  size_t maps_base;    /* the mappings its definitions pushed start here */
  const psg_tir_node *delayed; /* AttrStmt: an IterVar var defined once it is done */
} frame;

typedef struct ssa {
  psg_ctx *ctx;
  psgi_map defined; /* every var defined so far in the module */
  psgi_map current; /* var -> index + 1 in maps (0: not renamed here) */
  psgi_map fscope;  /* var -> the var its uses take in this function (owned), after `current` */
  psgi_map bufs;    /* buffer -> its rewrite in this function (owned) */
  size_t fscope_renamed; /* fscope entries mapping a var to another */
  psgi_map defines;  /* shared node -> (void *)1: its subtree defines no var, 2: it does */
  PSGI_VEC(mapping) maps;
  PSGI_VEC(result) results;
  PSGI_VEC(frame) stack;
} ssa;

static void pop_mappings(ssa *s, size_t base) {
  while (s->maps.len > base) {
    mapping *mp = &s->maps.data[--s->maps.len];
    psgi_map_entry *e = psgi_map_get_ptr(&s->current, mp->var);
    if (e) e->value = (void *)mp->prev;
    psg_tir_release(mp->to);
  }
}

/* The var a use of v refers to now (borrowed). */
static psg_tir_node *use_of(ssa *s, const psg_tir_node *v) {
  psgi_map_entry *e = psgi_map_get_ptr(&s->current, v);
  uintptr_t i = e ? (uintptr_t)e->value : 0;
  if (i) return s->maps.data[i - 1].to;
  psgi_map_entry *f = psgi_map_get_ptr(&s->fscope, v);
  return f ? f->value : (psg_tir_node *)v;
}

static void clear_function_scope(ssa *s) {
  for (size_t i = 0; i < s->fscope.len; i++) psg_tir_release(s->fscope.entries[i].value);
  for (size_t i = 0; i < s->bufs.len; i++) psg_tir_release(s->bufs.entries[i].value);
  s->fscope_renamed = 0;
  psgi_map_fini(&s->fscope);
  psgi_map_fini(&s->bufs);
  psgi_map_init(&s->fscope, s->ctx);
  psgi_map_init(&s->bufs, s->ctx);
}

/* fscope[v] = to (retained). */
static psg_status set_function_scope(ssa *s, const psg_tir_node *v, psg_tir_node *to) {
  psgi_map_entry *e = psgi_map_put_ptr(&s->fscope, v, NULL);
  if (!e) return psgi_nomem(s->ctx);
  psg_tir_retain(to);
  if (e->value && e->value != v) s->fscope_renamed--;
  psg_tir_release(e->value);
  e->value = to;
  if (to != v) s->fscope_renamed++;
  return PSG_OK;
}

/* The var of an AttrStmt's IterVar, met before the AttrStmt's other
 * operands: its function-scope definition (see the file comment). Sets
 * *delayed when it is to be defined after the AttrStmt. */
static psg_status define_iter_var(ssa *s, const psg_tir_node *v, const psg_tir_node **delayed) {
  *delayed = NULL;
  if (psgi_map_get_ptr(&s->fscope, v)) return PSG_OK;
  if (!psgi_map_get_ptr(&s->defined, v)) {
    *delayed = v;
    return PSG_OK;
  }
  psg_span sp;
  psg_tir_span(v, &sp);
  psg_tir_node *fresh = NULL;
  psg_status st = v->kind == PSG_TIR_SIZE_VAR
                      ? psg_tir_size_var_create(s->ctx, v->u.var.name, v->dtype, &sp, &fresh)
                      : psg_tir_var_create(s->ctx, v->u.var.name, v->dtype, v->u.var.type, &sp, &fresh);
  if (st) return st;
  psgi_map_entry *d = psgi_map_put_ptr(&s->defined, fresh, NULL);
  if (!d) st = psgi_nomem(s->ctx);
  else d->value = (void *)1;
  if (!st) st = set_function_scope(s, v, fresh);
  psg_tir_release(fresh);
  return st;
}

/* After an AttrStmt whose IterVar var nothing had defined. */
static psg_status define_delayed(ssa *s, const psg_tir_node *v) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_ptr(&s->defined, v, &is_new);
  if (!e) return psgi_nomem(s->ctx);
  if (!is_new) return PSG_OK;
  e->value = (void *)1;
  return set_function_scope(s, v, (psg_tir_node *)v);
}

/* A definition of v: itself the first time, else a fresh var that its
 * scope's uses map to. *out is a new reference. */
static psg_status define(ssa *s, const psg_tir_node *v, psg_tir_node **out) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_ptr(&s->defined, v, &is_new);
  if (!e) return psgi_nomem(s->ctx);
  if (is_new) {
    e->value = (void *)1;
    psg_tir_retain(*out = (psg_tir_node *)v);
    return PSG_OK;
  }
  psg_span sp;
  psg_tir_span(v, &sp);
  psg_tir_node *fresh = NULL;
  psg_status st = v->kind == PSG_TIR_SIZE_VAR
                      ? psg_tir_size_var_create(s->ctx, v->u.var.name, v->dtype, &sp, &fresh)
                      : psg_tir_var_create(s->ctx, v->u.var.name, v->dtype, v->u.var.type, &sp, &fresh);
  if (st) return st;
  psgi_map_entry *d = psgi_map_put_ptr(&s->defined, fresh, NULL);
  psgi_map_entry *c = d ? psgi_map_put_ptr(&s->current, v, NULL) : NULL;
  mapping mp = {v, fresh, c ? (uintptr_t)c->value : 0};
  if (!c || !PSGI_VEC_PUSH(s->ctx, &s->maps, mp)) {
    psg_tir_release(fresh);
    return psgi_nomem(s->ctx);
  }
  d->value = (void *)1;
  c->value = (void *)(uintptr_t)s->maps.len;
  psg_tir_retain(*out = fresh);
  return PSG_OK;
}

/* The operand slot visited k-th, and whether it defines a var: a PrimFunc's
 * params first; a Let/LetStmt/For/Allocate var after the operands its
 * definition does not scope over (`let x = x + 1` reads the outer x) and
 * before the body. A Buffer's vars and an AttrStmt's node are uses here. */
static uint32_t visit_slot(const psg_tir_node *n, uint32_t k, bool *def) {
  *def = false;
  switch (n->kind) {
    case PSG_TIR_PRIM_FUNC: {
      uint32_t slot = psgi_tir_visit_slot(n, k, def);
      *def = *def && slot <= n->u.func.nparams;
      return slot;
    }
    case PSG_TIR_LET:
    case PSG_TIR_LET_STMT: /* value, var, body */
      *def = k == 1;
      return k == 0 ? 1 : k == 1 ? 0 : 2;
    case PSG_TIR_FOR: /* min, extent, var, body */
      *def = k == 2;
      return k < 2 ? k + 1 : k == 2 ? 0 : 3;
    case PSG_TIR_ALLOCATE: { /* extents, condition, var, body */
      uint32_t next = n->nkids - 3;
      *def = k == next + 1;
      return k < next ? 3 + k : k == next ? 1 : k == next + 1 ? 0 : 2;
    }
    default: {
      bool ignored;
      return psgi_tir_visit_slot(n, k, &ignored);
    }
  }
}

/* The frame on top is done: its node over its children's results. */
static psg_status finish(ssa *s, psg_tir_node **out) {
  frame f = s->stack.data[--s->stack.len];
  const psg_tir_node *n = f.n;
  result *rs = (s->results.data ? s->results.data + f.results_base : NULL);
  size_t nr = s->results.len - f.results_base;
  bool changed = false;
  for (size_t i = 0; i < nr; i++) changed |= rs[i].node != n->kids[rs[i].slot];
  psg_status st = PSG_OK;
  psgi_map_entry *cached = changed && n->kind == PSG_TIR_BUFFER ? psgi_map_get_ptr(&s->bufs, n) : NULL;
  if (cached) { /* the same rewrite as before in this function: the same buffer */
    const psg_tir_node *b = cached->value;
    bool same = true;
    for (size_t i = 0; i < nr; i++) same &= b->kids[rs[i].slot] == rs[i].node;
    if (!same) cached = NULL;
  }
  if (!changed) {
    psg_tir_retain(*out = (psg_tir_node *)n);
  } else if (cached) {
    psg_tir_retain(*out = cached->value);
  } else {
    psg_tir_node **kids = psgi_alloc(s->ctx, (n->nkids ? n->nkids : 1) * sizeof *kids);
    if (!kids) {
      st = psgi_nomem(s->ctx);
    } else {
      for (size_t i = 0; i < nr; i++) kids[rs[i].slot] = rs[i].node;
      st = psgi_tir_rebuild(n, kids, out);
      psgi_free(s->ctx, kids);
      psgi_map_entry *e = !st && n->kind == PSG_TIR_BUFFER ? psgi_map_put_ptr(&s->bufs, n, NULL) : NULL;
      if (e) {
        psg_tir_release(e->value);
        psg_tir_retain(e->value = *out);
      }
    }
  }
  for (size_t i = 0; i < nr; i++) psg_tir_release(rs[i].node);
  s->results.len = f.results_base;
  pop_mappings(s, f.maps_base);
  return st;
}

/* Whether node n defines a var (visit_slot's definitions, an AttrStmt's
 * IterVar, a PrimFunc's params and buffers). */
static bool defines_here(const psg_tir_node *n) {
  switch (n->kind) {
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT:
  case PSG_TIR_FOR:
  case PSG_TIR_ALLOCATE:
  case PSG_TIR_PRIM_FUNC: return true;
  case PSG_TIR_ATTR_STMT:
    for (uint32_t i = 0; i < n->nkids; i++)
      if (n->kids[i]->kind == PSG_TIR_ITER_VAR) return true;
    return false;
  default: return false;
  }
}

/* Whether a var is defined in the subtree of root (a shared node); the
 * answers for the shared nodes in it are kept in s->defines, so each shared
 * subtree is searched once. */
static psg_status subtree_defines(ssa *s, const psg_tir_node *root, bool *out) {
  *out = true;
  psgi_map_entry *e = psgi_map_get_ptr(&s->defines, root);
  if (e) {
    *out = (uintptr_t)e->value == 2;
    return PSG_OK;
  }
  typedef struct {
    const psg_tir_node *n;
    uint32_t next;
    bool any;
  } dframe;
  PSGI_VEC(dframe) st = {0};
  psg_status rc = PSGI_VEC_PUSH(s->ctx, &st, ((dframe){root, 0, defines_here(root)})) ? PSG_OK : psgi_nomem(s->ctx);
  while (!rc && st.len) {
    dframe *f = &st.data[st.len - 1];
    if (!f->any && f->next < f->n->nkids) {
      const psg_tir_node *k = f->n->kids[f->next++];
      psgi_map_entry *ke = k->refcount > 1 ? psgi_map_get_ptr(&s->defines, k) : NULL;
      if (ke) f->any = (uintptr_t)ke->value == 2;
      else if (!PSGI_VEC_PUSH(s->ctx, &st, ((dframe){k, 0, defines_here(k)}))) rc = psgi_nomem(s->ctx);
      continue;
    }
    dframe done = *f;
    st.len--;
    if (st.len) st.data[st.len - 1].any |= done.any;
    if (done.n->refcount > 1 || done.n == root) {
      psgi_map_entry *me = psgi_map_put_ptr(&s->defines, done.n, NULL);
      if (!me) rc = psgi_nomem(s->ctx);
      else me->value = (void *)(uintptr_t)(done.any ? 2 : 1);
    }
    if (!st.len) *out = done.any;
  }
  PSGI_VEC_FREE(s->ctx, &st);
  return rc;
}

static psg_status push_frame(ssa *s, const psg_tir_node *n) {
  frame f = {n, 0, s->results.len, s->maps.len, NULL};
  return PSGI_VEC_PUSH(s->ctx, &s->stack, f) ? PSG_OK : psgi_nomem(s->ctx);
}

/* The vars a buffer-map buffer b of func introduces: its data var and the
 * vars of its shape, strides and elem_offset that are not params, defined
 * (or renamed) for the whole function. */
static psg_status define_buffer_vars(ssa *s, const psg_tir_node *func, const psg_tir_node *b) {
  for (uint32_t i = 0; i < b->nkids; i++) {
    const psg_tir_node *v = b->kids[i];
    if (!psgi_tir_is_var_kind(v->kind)) continue;
    bool param = false;
    for (uint32_t p = 0; p < func->u.func.nparams && !param; p++) param = func->kids[1 + p] == v;
    psgi_map_entry *c = psgi_map_get_ptr(&s->current, v);
    /* A param, or introduced by an earlier buffer of this function's map. */
    if (param || (c && c->value) || psgi_map_get_ptr(&s->fscope, v)) continue;
    bool is_new;
    psgi_map_entry *e = psgi_map_get_ptr(&s->defined, v);
    if (!e) { /* first definition: itself, for the whole function */
      e = psgi_map_put_ptr(&s->defined, v, &is_new);
      if (!e) return psgi_nomem(s->ctx);
      e->value = (void *)1;
      psg_status st = set_function_scope(s, v, (psg_tir_node *)v);
      if (st) return st;
      continue;
    }
    psg_tir_node *fresh = NULL;
    psg_status st = define(s, v, &fresh);
    psg_tir_release(fresh);
    if (st) return st;
  }
  return PSG_OK;
}

/* Rewrites one PrimFunc (the defined set carries over between calls). */
static psg_status convert(ssa *s, const psg_tir_node *func, psg_tir_node **out) {
  clear_function_scope(s);
  psg_status st = push_frame(s, func);
  while (!st) {
    frame *f = &s->stack.data[s->stack.len - 1];
    const psg_tir_node *n = f->n;
    if (f->k == n->nkids) {
      psg_tir_node *r = NULL;
      uint32_t slot = 0;
      bool root = s->stack.len == 1;
      if (!root) {
        frame *parent = &s->stack.data[s->stack.len - 2];
        bool def;
        slot = visit_slot(parent->n, parent->k - 1, &def);
      }
      const psg_tir_node *delayed = s->stack.data[s->stack.len - 1].delayed;
      if ((st = finish(s, &r))) break;
      if (delayed && (st = define_delayed(s, delayed))) {
        psg_tir_release(r);
        break;
      }
      if (root) {
        *out = r;
        return PSG_OK;
      }
      result res = {slot, r};
      if (!PSGI_VEC_PUSH(s->ctx, &s->results, res)) {
        psg_tir_release(r);
        st = psgi_nomem(s->ctx);
      }
      continue;
    }
    bool def;
    uint32_t slot = visit_slot(n, f->k++, &def);
    const psg_tir_node *child = n->kids[slot];
    if (n->kind == PSG_TIR_ATTR_STMT && child->kind == PSG_TIR_ITER_VAR &&
        (st = define_iter_var(s, child->kids[0], &f->delayed)))
      break;
    if (n->kind == PSG_TIR_PRIM_FUNC && slot > n->u.func.nparams && child->kind == PSG_TIR_BUFFER &&
        (st = define_buffer_vars(s, n, child)))
      break;
    if (psgi_tir_is_var_kind(child->kind)) {
      result res = {slot, NULL};
      if (def) {
        if ((st = define(s, child, &res.node))) break;
      } else {
        psg_tir_retain(res.node = use_of(s, child));
      }
      if (!PSGI_VEC_PUSH(s->ctx, &s->results, res)) {
        psg_tir_release(res.node);
        st = psgi_nomem(s->ctx);
      }
      continue;
    }
    if (child->refcount > 1 && !s->maps.len && !s->fscope_renamed) {
      /* no var renamed here: a subtree defining none is its own rewrite */
      bool defs = true;
      if ((st = subtree_defines(s, child, &defs))) break;
      if (!defs) {
        result res = {slot, (psg_tir_node *)child};
        psg_tir_retain(res.node);
        if (!PSGI_VEC_PUSH(s->ctx, &s->results, res)) {
          psg_tir_release(res.node);
          st = psgi_nomem(s->ctx);
        }
        continue;
      }
    }
    st = push_frame(s, child);
  }
  /* Failure: drop what the walk holds. */
  for (size_t i = 0; i < s->results.len; i++) psg_tir_release(s->results.data[i].node);
  s->results.len = 0;
  s->stack.len = 0;
  pop_mappings(s, 0);
  return st;
}

static psg_status convert_ssa(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)user;
  *out = NULL;
  ssa s = {0};
  s.ctx = psg_pass_context_get_ctx(pc);
  psgi_map_init(&s.defined, s.ctx);
  psgi_map_init(&s.current, s.ctx);
  psgi_map_init(&s.fscope, s.ctx);
  psgi_map_init(&s.bufs, s.ctx);
  psgi_map_init(&s.defines, s.ctx);
  psg_module *cur = mod;
  psg_module_retain(cur);
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < mod->n; i++) {
    psgi_module_entry e = mod->entries[i];
    if (!e.prim) continue;
    psg_tir_node *nf = NULL;
    if ((st = convert(&s, e.prim, &nf))) break;
    if (nf != e.prim) {
      psg_module *next = NULL;
      st = psg_module_update_prim_func(cur, e.gv, nf, &next);
      if (!st) {
        psg_module_release(cur);
        cur = next;
      }
    }
    psg_tir_release(nf);
  }
  clear_function_scope(&s);
  psgi_map_fini(&s.fscope);
  psgi_map_fini(&s.bufs);
  psgi_map_fini(&s.defined);
  psgi_map_fini(&s.current);
  psgi_map_fini(&s.defines);
  PSGI_VEC_FREE(s.ctx, &s.maps);
  PSGI_VEC_FREE(s.ctx, &s.results);
  PSGI_VEC_FREE(s.ctx, &s.stack);
  if (st) {
    psg_module_release(cur);
    return st;
  }
  *out = cur;
  return PSG_OK;
}

psg_status psgi_tir_convert_ssa_func(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out) {
  ssa s = {0};
  s.ctx = ctx;
  psgi_map_init(&s.defined, ctx);
  psgi_map_init(&s.current, ctx);
  psgi_map_init(&s.fscope, ctx);
  psgi_map_init(&s.bufs, ctx);
  psgi_map_init(&s.defines, ctx);
  *out = NULL;
  psg_status st = convert(&s, f, out);
  clear_function_scope(&s);
  psgi_map_fini(&s.fscope);
  psgi_map_fini(&s.bufs);
  psgi_map_fini(&s.defined);
  psgi_map_fini(&s.current);
  psgi_map_fini(&s.defines);
  PSGI_VEC_FREE(ctx, &s.maps);
  PSGI_VEC_FREE(ctx, &s.results);
  PSGI_VEC_FREE(ctx, &s.stack);
  return st;
}

const psg_pass_decl psgi_pass_tir_convert_ssa = {
    .name = "tir.ConvertSSA",
    .kind = PSG_PASS_MODULE,
    .opt_level = 0,
    .help = "rename variables defined more than once so that each is defined once in the module",
    .module = convert_ssa,
};
