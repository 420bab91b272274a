/* Passage — tir.UnrollLoop (TVM's src/tir/transforms/unroll_loop.cc, config
 * `tir.UnrollLoop`), a PrimFuncPass. Statements are walked bottom up, each
 * loop deciding after its body, with TVM's counters:
 *   step_count         stores and evaluates below, times the extents of the
 *                      loops unrolled on the way up;
 *   unroll_depth       loops unrolled (or marked unrolled) below;
 *   normal_loop_depth  loops kept below.
 * A SeqStmt counts each element from zero and then adds the steps and takes
 * the larger depths. A serial loop of constant extent v is unrolled
 * automatically when no kept loop is below it, unroll_depth <= auto_max_depth
 * and v * step_count <= auto_max_step or v <= auto_max_extent; a loop of kind
 * `unrolled` always is; with unroll_local_access, so is a loop whose var
 * indexes a buffer in "local" or "warp" scope. When explicit_unroll, an
 * unrolled loop becomes copies of its body with the var replaced by min + i;
 * otherwise it stays a loop of kind `unrolled` (the pragma the code
 * generator reads). With auto_max_extent == 1, loops of extent 0 or 1 are
 * always replaced by their body. AttrStmts `pragma_auto_unroll_max_step` and
 * `pragma_unroll_explicit` set auto_max_step and explicit_unroll for their
 * body and are dropped. A changed function is made SSA again (the copies
 * define the same vars). Iterative: an explicit stack of frames. */
#include <limits.h>
#include <string.h>
#include "passage/arith.h"
#include "passage/tir_op.h"
#include "tir/transforms/tir_transforms.h"
#include "tir/transforms/copy_template.h"
#include "tir/transforms/stmt_slot.h"

typedef psgi_tir_unroll_cfg cfg;

typedef struct frame {
  const psg_tir_node *n;
  uint32_t next;        /* next statement child, in stmt_slot order */
  size_t results_base;  /* its rewritten children start here */
  int64_t saved[3];     /* SeqStmt: the counters before the current element */
  int64_t saved_pragma; /* pragma AttrStmt: the value it replaced */
} frame;

typedef struct unroller {
  psg_ctx *ctx;
  cfg c;
  int64_t step_count, unroll_depth, normal_loop_depth;
  psgi_map touched_local; /* vars seen in indices of local/warp buffers */
  bool oom;               /* a visitor callback ran out of memory */
  psg_arith_analyzer *analyzer;
  PSGI_VEC(frame) stack;
  PSGI_VEC(psg_tir_node *) results; /* owned references */
} unroller;

static bool is_pragma_step(const psg_tir_node *n) {
  return n->kind == PSG_TIR_ATTR_STMT && strcmp(n->u.attr_key, "pragma_auto_unroll_max_step") == 0;
}

static bool is_pragma_explicit(const psg_tir_node *n) {
  return n->kind == PSG_TIR_ATTR_STMT && strcmp(n->u.attr_key, "pragma_unroll_explicit") == 0;
}

/* unroll_local_access --------------------------------------------------------- */

static bool local_scope(const psg_tir_node *buffer) {
  const char *s = psg_tir_buffer_scope(buffer);
  return strncmp(s, "local", 5) == 0 || strncmp(s, "warp", 4) == 0;
}

static int mark_var(psg_tir_visitor *v, const psg_tir_node *n) {
  unroller *u = v->user;
  if (n->kind == PSG_TIR_BUFFER) return PSG_VISIT_SKIP_CHILDREN;
  if (psgi_tir_is_var_kind(n->kind) && !psgi_map_put_ptr(&u->touched_local, n, NULL)) {
    u->oom = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

/* Every var in the indices of access n (a BufferLoad or BufferStore). */
static psg_status mark_indices(unroller *u, const psg_tir_node *n) {
  psg_tir_visitor v = {.pre = mark_var, .user = u};
  size_t ni = psgi_tir_num_indices(n);
  for (size_t i = 0; i < ni; i++) {
    psg_status st = psg_tir_visit(u->ctx, &v, psgi_tir_indices(n)[i]);
    if (st) return st;
    if (u->oom) return psgi_nomem(u->ctx);
  }
  return PSG_OK;
}

/* TVM's mutator stops at a BufferLoad: loads in the indices of another load
 * are not looked at, those of a local buffer mark their index vars. */
static int mark_loads(psg_tir_visitor *v, const psg_tir_node *n) {
  unroller *u = v->user;
  if (n->kind == PSG_TIR_BUFFER) return PSG_VISIT_SKIP_CHILDREN;
  if (n->kind != PSG_TIR_BUFFER_LOAD) return PSG_VISIT_CONTINUE;
  if (local_scope(n->kids[0]) && mark_indices(u, n) != PSG_OK) {
    u->oom = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_SKIP_CHILDREN;
}

/* The marks of statement n's own expressions (not those of its statement
 * children, which are entered on their own). */
static psg_status mark_stmt(unroller *u, const psg_tir_node *n) {
  if (!u->c.unroll_local_access) return PSG_OK;
  if (n->kind == PSG_TIR_BUFFER_STORE && local_scope(n->kids[0])) {
    psg_status st = mark_indices(u, n);
    if (st) return st;
  }
  if (n->kind == PSG_TIR_DECL_BUFFER) return PSG_OK;
  if (is_pragma_explicit(n) || is_pragma_step(n)) return PSG_OK; /* TVM does not visit their value */
  psg_tir_visitor v = {.pre = mark_loads, .user = u};
  for (uint32_t i = 0; i < n->nkids; i++) {
    const psg_tir_node *k = n->kids[i];
    if (!psgi_tir_is_expr_kind(k->kind)) continue;
    psg_status st = psg_tir_visit(u->ctx, &v, k);
    if (st) return st;
    if (u->oom) return psgi_nomem(u->ctx);
  }
  return PSG_OK;
}

/* Loops ------------------------------------------------------------------------ */

/* TVM's GetExtent: the simplified extent if it is a constant that fits an
 * int, else -1. */
static psg_status get_extent(unroller *u, const psg_tir_node *loop, int64_t *out) {
  psg_tir_node *e = NULL;
  psg_status st = psg_arith_simplify(u->analyzer, loop->kids[2], &e);
  if (st) return st;
  *out = e->kind == PSG_TIR_INT_IMM && e->u.int_value <= INT_MAX ? e->u.int_value : -1;
  psg_tir_release(e);
  return PSG_OK;
}

/* min + i as TVM's operator+ makes it (tir_op.h: folded when min is a
 * constant, min itself for i == 0). */
static psg_status iteration_value(unroller *u, psg_tir_node *min, int64_t i, psg_tir_node **out) {
  psg_tir_node *c = NULL;
  psg_status st = psg_tir_int_imm_create(u->ctx, min->dtype, i, NULL, &c);
  if (!st) st = psg_tir_op_binary(u->ctx, PSG_TIR_ADD, min, c, NULL, out);
  psg_tir_release(c);
  return st;
}


/* TVM's Unroll: `extent` copies of body with the loop var bound to min + i
 * (the copies rebuild the same nodes: found once, copy_template.c). */
static psg_status unroll(unroller *u, const psg_tir_node *loop, psg_tir_node *body, int64_t extent,
                         psg_tir_node **out) {
  psg_tir_node **copies = psgi_calloc(u->ctx, (size_t)(extent > 0 ? extent : 1) * sizeof *copies);
  if (!copies) return psgi_nomem(u->ctx);
  psgi_tir_copy_template tpl;
  psg_status st = psgi_tir_copy_template_init(u->ctx, body, loop->kids[0], &tpl);
  if (st) {
    psgi_free(u->ctx, copies);
    return st;
  }
  for (int64_t i = 0; i < extent && !st; i++) {
    psg_tir_node *v = NULL;
    st = iteration_value(u, loop->kids[1], i, &v);
    if (!st) st = psgi_tir_copy_template_apply(&tpl, v, &copies[i]);
    psg_tir_release(v);
  }
  psgi_tir_copy_template_fini(&tpl);
  if (!st) st = psgi_tir_seq_flatten(u->ctx, copies, (size_t)extent, &loop->span, out);
  for (int64_t i = 0; i < extent; i++) psg_tir_release(copies[i]);
  psgi_free(u->ctx, copies);
  return st;
}

/* The loop n after its body (rewritten: `body`). */
static psg_status finish_for(unroller *u, const psg_tir_node *n, psg_tir_node *body, psg_tir_node **out) {
  int64_t value;
  psg_status st = get_extent(u, n, &value);
  if (st) return st;
  int kind = n->u.loop.kind;
  bool auto_unroll = kind == PSG_TIR_FOR_SERIAL && value >= 0 && u->normal_loop_depth == 0 &&
                     u->unroll_depth <= u->c.auto_max_depth;
  int64_t steps;
  bool steps_fit = !__builtin_mul_overflow(value, u->step_count, &steps);
  auto_unroll = auto_unroll && ((steps_fit && steps <= u->c.auto_max_step) || value <= u->c.auto_max_extent);
  if (kind == PSG_TIR_FOR_UNROLLED) {
    if (value < 0)
      return psg_ctx_fail(u->ctx, PSG_ERR_INVALID_ARGUMENT,
                          "tir.UnrollLoop: cannot unroll loop '%s' of kind unrolled: its extent is not a constant",
                          psg_tir_var_name(n->kids[0]));
    auto_unroll = true;
  }
  if (u->c.unroll_local_access && value > 0 && psgi_map_get_ptr(&u->touched_local, n->kids[0])) auto_unroll = true;
  if (auto_unroll) {
    if (__builtin_mul_overflow(u->step_count, value, &u->step_count)) u->step_count = INT64_MAX;
    u->unroll_depth++;
  } else {
    u->normal_loop_depth++;
  }
  if ((auto_unroll && u->c.explicit_unroll) ||
      (value >= 0 && value <= u->c.auto_max_extent && u->c.auto_max_extent == 1))
    return unroll(u, n, body, value, out);
  psg_tir_node *kids[4] = {n->kids[0], n->kids[1], n->kids[2], body};
  if (auto_unroll && kind != PSG_TIR_FOR_UNROLLED)
    return psg_tir_for_create(u->ctx, kids[0], kids[1], kids[2], PSG_TIR_FOR_UNROLLED, body, n->u.loop.annotations,
                              &n->span, out);
  if (body == n->kids[3]) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  return psgi_tir_rebuild(n, kids, out);
}

/* The walk ----------------------------------------------------------------------- */

static psg_status enter(unroller *u, const psg_tir_node *n) {
  frame f = {.n = n, .results_base = u->results.len};
  if (n->kind == PSG_TIR_BUFFER_STORE || n->kind == PSG_TIR_EVALUATE) u->step_count++;
  psg_status st = mark_stmt(u, n);
  if (st) return st;
  bool explicit_pragma = is_pragma_explicit(n);
  if (is_pragma_step(n) || explicit_pragma) {
    const psg_tir_node *v = n->kids[0];
    if (v->kind != PSG_TIR_INT_IMM)
      return psg_ctx_fail(u->ctx, PSG_ERR_INVALID_ARGUMENT, "tir.UnrollLoop: the value of AttrStmt '%s' must be an integer constant",
                          n->u.attr_key);
    if (explicit_pragma) {
      f.saved_pragma = u->c.explicit_unroll;
      u->c.explicit_unroll = v->u.int_value != 0;
    } else {
      f.saved_pragma = u->c.auto_max_step;
      u->c.auto_max_step = v->u.int_value;
    }
  }
  return PSGI_VEC_PUSH(u->ctx, &u->stack, f) ? PSG_OK : psgi_nomem(u->ctx);
}

/* Frame f is complete: its rewrite from its children's. */
static psg_status finish(unroller *u, frame *f, psg_tir_node **out) {
  const psg_tir_node *n = f->n;
  psg_tir_node **kids = (u->results.data ? u->results.data + f->results_base : NULL);
  size_t nres = u->results.len - f->results_base;
  if (is_pragma_step(n)) {
    u->c.auto_max_step = f->saved_pragma;
    psg_tir_retain(*out = kids[0]);
    return PSG_OK;
  }
  if (is_pragma_explicit(n)) {
    u->c.explicit_unroll = f->saved_pragma != 0;
    psg_tir_retain(*out = kids[0]);
    return PSG_OK;
  }
  if (n->kind == PSG_TIR_FOR) return finish_for(u, n, kids[0], out);
  bool changed = false;
  for (size_t k = 0; k < nres; k++) changed |= kids[k] != n->kids[psgi_tir_stmt_slot(n, (uint32_t)k)];
  if (!changed) {
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  psg_tir_node *small[8], **all = small;
  if (n->nkids > 8 && !(all = psgi_alloc(u->ctx, n->nkids * sizeof *all))) return psgi_nomem(u->ctx);
  memcpy(all, n->kids, n->nkids * sizeof *all);
  for (size_t k = 0; k < nres; k++) all[psgi_tir_stmt_slot(n, (uint32_t)k)] = kids[k];
  psg_status st = psgi_tir_rebuild(n, all, out);
  if (all != small) psgi_free(u->ctx, all);
  return st;
}

static psg_status walk(unroller *u, const psg_tir_node *root, psg_tir_node **out) {
  psg_status st = enter(u, root);
  while (!st && u->stack.len) {
    frame *f = &u->stack.data[u->stack.len - 1];
    int slot = psgi_tir_stmt_slot(f->n, f->next);
    if (slot >= 0) {
      f->next++;
      if (f->n->kind == PSG_TIR_SEQ_STMT) { /* each element counts on its own */
        f->saved[0] = u->step_count, f->saved[1] = u->unroll_depth, f->saved[2] = u->normal_loop_depth;
        u->step_count = u->unroll_depth = u->normal_loop_depth = 0;
      }
      st = enter(u, f->n->kids[slot]);
      continue;
    }
    psg_tir_node *r = NULL;
    st = finish(u, f, &r);
    for (size_t i = f->results_base; i < u->results.len; i++) psg_tir_release(u->results.data[i]);
    u->results.len = f->results_base;
    u->stack.len--;
    if (st) break;
    if (!u->stack.len) {
      *out = r;
      return PSG_OK;
    }
    frame *p = &u->stack.data[u->stack.len - 1];
    if (p->n->kind == PSG_TIR_SEQ_STMT) {
      if (__builtin_add_overflow(u->step_count, p->saved[0], &u->step_count)) u->step_count = INT64_MAX;
      if (p->saved[1] > u->unroll_depth) u->unroll_depth = p->saved[1];
      if (p->saved[2] > u->normal_loop_depth) u->normal_loop_depth = p->saved[2];
    }
    if (!PSGI_VEC_PUSH(u->ctx, &u->results, r)) {
      psg_tir_release(r);
      st = psgi_nomem(u->ctx);
    }
  }
  for (size_t i = 0; i < u->results.len; i++) psg_tir_release(u->results.data[i]);
  u->results.len = 0;
  u->stack.len = 0;
  return st;
}

static void read_cfg(psg_pass_context *pc, cfg *c) {
  *c = (cfg){0, 8, 0, true, false};
  psg_attr *d = psg_pass_context_get_config(pc, "tir.UnrollLoop");
  psg_attrs *fields = d ? psg_attr_get_dict(d) : NULL;
  psg_attr *v;
  if ((v = psg_attrs_get(fields, "auto_max_step"))) c->auto_max_step = psg_attr_get_int(v);
  if ((v = psg_attrs_get(fields, "auto_max_depth"))) c->auto_max_depth = psg_attr_get_int(v);
  if ((v = psg_attrs_get(fields, "auto_max_extent"))) c->auto_max_extent = psg_attr_get_int(v);
  if ((v = psg_attrs_get(fields, "explicit_unroll"))) c->explicit_unroll = psg_attr_get_bool(v);
  if ((v = psg_attrs_get(fields, "unroll_local_access"))) c->unroll_local_access = psg_attr_get_bool(v);
}

psg_status psgi_tir_unroll_loop(psg_ctx *ctx, const psg_tir_prim_func *f, const psgi_tir_unroll_cfg *c,
                                psg_tir_prim_func **out) {
  *out = NULL;
  unroller u = {.ctx = ctx, .c = *c};
  psgi_map_init(&u.touched_local, ctx);
  psg_status st = psg_arith_analyzer_create(ctx, &u.analyzer);
  psg_tir_node *body = NULL;
  if (!st) st = walk(&u, f->kids[0], &body);
  if (!st && body == f->kids[0]) {
    psg_tir_retain(*out = (psg_tir_node *)f);
  } else if (!st) {
    psg_tir_node *changed = NULL;
    st = psgi_tir_func_with_body(ctx, f, body, &changed);
    if (!st) st = psgi_tir_convert_ssa_func(ctx, changed, out);
    psg_tir_release(changed);
  }
  psg_tir_release(body);
  psg_arith_analyzer_destroy(u.analyzer);
  psgi_map_fini(&u.touched_local);
  PSGI_VEC_FREE(ctx, &u.stack);
  PSGI_VEC_FREE(ctx, &u.results);
  return st;
}

static psg_status unroll_loop_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                   psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  cfg c;
  read_cfg(pc, &c);
  return psgi_tir_unroll_loop(psg_pass_context_get_ctx(pc), f, &c, out);
}

const psg_pass_decl psgi_pass_tir_unroll_loop = {
    .name = "tir.UnrollLoop",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "unroll loops of kind unrolled and small serial loops (config tir.UnrollLoop: auto_max_step, "
            "auto_max_depth, auto_max_extent, explicit_unroll, unroll_local_access)",
    .prim_func = unroll_loop_pass,
    .cacheable = true,
};
