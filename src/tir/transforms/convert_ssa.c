/* Passage — tir.ConvertSSA (TVM's ConvertSSA in src/tir/ir/ir_utils.cc, a
 * module pass): every variable is defined once across all the module's
 * PrimFuncs. A var defined again (a PrimFunc parameter, a Let/LetStmt/For
 * var or an Allocate's buffer var met before, in this function or an
 * earlier one) is replaced at that definition by a fresh var of the same
 * name and type, and its uses within that definition's scope follow; buffers
 * over a renamed data var are rebuilt. The walk is iterative and not
 * memoized: a node shared by two scopes is rewritten in each. */
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
} frame;

typedef struct ssa {
  psg_ctx *ctx;
  psgi_map defined; /* every var defined so far in the module */
  psgi_map current; /* var -> index + 1 in maps (0: not renamed here) */
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
  return i ? s->maps.data[i - 1].to : (psg_tir_node *)v;
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
  result *rs = s->results.data + f.results_base;
  size_t nr = s->results.len - f.results_base;
  bool changed = false;
  for (size_t i = 0; i < nr; i++) changed |= rs[i].node != n->kids[rs[i].slot];
  psg_status st = PSG_OK;
  if (!changed) {
    psg_tir_retain(*out = (psg_tir_node *)n);
  } else {
    psg_tir_node **kids = psgi_alloc(s->ctx, (n->nkids ? n->nkids : 1) * sizeof *kids);
    if (!kids) {
      st = psgi_nomem(s->ctx);
    } else {
      for (size_t i = 0; i < nr; i++) kids[rs[i].slot] = rs[i].node;
      st = psgi_tir_rebuild(n, kids, out);
      psgi_free(s->ctx, kids);
    }
  }
  for (size_t i = 0; i < nr; i++) psg_tir_release(rs[i].node);
  s->results.len = f.results_base;
  pop_mappings(s, f.maps_base);
  return st;
}

static psg_status push_frame(ssa *s, const psg_tir_node *n) {
  frame f = {n, 0, s->results.len, s->maps.len};
  return PSGI_VEC_PUSH(s->ctx, &s->stack, f) ? PSG_OK : psgi_nomem(s->ctx);
}

/* Rewrites one PrimFunc (the defined set carries over between calls). */
static psg_status convert(ssa *s, const psg_tir_node *func, psg_tir_node **out) {
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
      if ((st = finish(s, &r))) break;
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
  psgi_map_fini(&s.defined);
  psgi_map_fini(&s.current);
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
  *out = NULL;
  psg_status st = convert(&s, f, out);
  psgi_map_fini(&s.defined);
  psgi_map_fini(&s.current);
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
