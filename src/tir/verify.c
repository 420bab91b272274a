/* Passage — tir.analysis.verify_well_formed (issue 15 item 2): every var is
 * defined before it is used, within the scope of its definition, and
 * defined once; buffer accesses give as many indices as the buffer has
 * dimensions; Allocate's dtype matches its pointer; buffer-map params are
 * handles; loop vars are never bound again (by a Let, LetStmt, For or
 * Allocate: TIR has no other way to store to a var). One
 * diagnostic per problem (at most 20), located at the node (or the nearest
 * enclosing node with a span) and naming it.
 *
 * Scopes: params and buffer-map buffers cover the function; Let, LetStmt,
 * For, Allocate and AttrStmt vars, and DeclBuffer buffers, cover their
 * body. Vars in the shape, strides or elem_offset of a declared buffer
 * (buffer map, DeclBuffer) are defined there when not defined already, as
 * TVM's match_buffer does; an undeclared buffer (an alias such as
 * T.Buffer(..., data=X.data)) only uses its fields. */
#include <stdarg.h>
#include <stdio.h>
#include "tir/tir_internal.h"

enum { MAX_ERRORS = 20 };
/* Var states (map values): bit 0 in scope, bit 1 defined once, bit 2 a loop
 * var, bit 3 defined only by an AttrStmt's node (TVM's LowerOpaqueBlock puts
 * a loop's pragma AttrStmts on its loop var, outside the loop that defines
 * it: that For is not a second definition). */
enum { IN_SCOPE = 1, DEFINED = 2, LOOP_VAR = 4, SOFT_ONLY = 8 };
/* How a node is reached. */
enum { USE, DEF, DEF_SOFT };

typedef struct vframe {
  const psg_tir_node *node;
  uint32_t next;
  uint8_t mode;
  size_t mark; /* scope stack height when the node was entered */
} vframe;

typedef struct verifier {
  psg_ctx *ctx;
  const char *fname;
  psgi_map vars;    /* var -> state */
  psgi_map buffers; /* declared buffers -> (void *)1 while in scope */
  PSGI_VEC(const psg_tir_node *) scope; /* defined vars and declared buffers, innermost last */
  PSGI_VEC(vframe) stack;
  int errors;
  bool oom;
} verifier;

static bool owns_scope(int kind) {
  switch (kind) {
  case PSG_TIR_PRIM_FUNC:
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT:
  case PSG_TIR_FOR:
  case PSG_TIR_ALLOCATE:
  case PSG_TIR_DECL_BUFFER:
  case PSG_TIR_ATTR_STMT:
    return true;
  default:
    return false;
  }
}

/* The slot visited k-th and how: values before the var they bind. */
static uint32_t order(const psg_tir_node *n, uint32_t k, uint8_t parent_mode, uint8_t *mode) {
  bool def;
  uint32_t slot;
  switch (n->kind) {
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT: {
    static const uint32_t o[] = {1, 0, 2};
    slot = o[k];
    def = slot == 0;
    break;
  }
  case PSG_TIR_FOR: {
    static const uint32_t o[] = {1, 2, 0, 3};
    slot = o[k];
    def = slot == 0;
    break;
  }
  case PSG_TIR_ALLOCATE: {
    uint32_t next = n->nkids - 3;
    slot = k < next ? 3 + k : k == next ? 1 : k == next + 1 ? 0 : 2;
    def = slot == 0;
    break;
  }
  default:
    slot = psgi_tir_visit_slot(n, k, &def);
    break;
  }
  if (n->kind == PSG_TIR_BUFFER) {
    *mode = parent_mode == USE ? USE : DEF_SOFT;
  } else if (def) {
    *mode = n->kind == PSG_TIR_ATTR_STMT ? DEF_SOFT : DEF;
  } else {
    *mode = parent_mode == DEF_SOFT ? DEF_SOFT : USE; /* n*4 in a shape defines n */
  }
  return slot;
}

static void report(verifier *v, const psg_tir_node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(verifier *v, const psg_tir_node *at, const char *fmt, ...) {
  if (++v->errors > MAX_ERRORS) return;
  const psg_span *sp = at->span.line ? &at->span : NULL;
  for (size_t i = v->stack.len; !sp && i-- > 0;)
    if (v->stack.data[i].node->span.line) sp = &v->stack.data[i].node->span;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  psgi_diag_add(v->ctx, PSG_SEVERITY_ERROR, PSG_ERR_TYPE, sp ? psgi_span_where(sp) : NULL, sp ? sp->line : 0,
                sp ? sp->col : 0, NULL, 0, NULL, "verify_well_formed: in %s: %s", v->fname, msg);
}

static psgi_map_entry *var_entry(verifier *v, const psg_tir_node *var) {
  psgi_map_entry *e = psgi_map_put_ptr(&v->vars, var, NULL);
  if (!e) v->oom = true;
  return e;
}

static void enter_scope(verifier *v, const psg_tir_node *n) {
  if (!PSGI_VEC_PUSH(v->ctx, &v->scope, n)) v->oom = true;
}

/* A var reached in `mode` under `parent`. */
static void check_var(verifier *v, const psg_tir_node *var, const psg_tir_node *parent, uint8_t mode) {
  psgi_map_entry *e = var_entry(v, var);
  if (!e) return;
  uintptr_t s = (uintptr_t)e->value;
  const char *name = var->u.var.name;
  if (mode == USE) {
    if (!(s & DEFINED))
      report(v, parent, "variable '%s' is used by %s but never defined", name, psg_tir_kind_name(parent->kind));
    else if (!(s & IN_SCOPE))
      report(v, parent, "variable '%s' is used by %s outside the scope of its definition", name,
             psg_tir_kind_name(parent->kind));
    return;
  }
  if (mode == DEF_SOFT) {
    if (s & IN_SCOPE) return;
    e->value = (void *)(s | IN_SCOPE | DEFINED | (s & DEFINED ? 0 : SOFT_ONLY));
    enter_scope(v, var);
    return;
  }
  if ((s & DEFINED) && !(s & SOFT_ONLY)) {
    if (s & LOOP_VAR)
      report(v, parent, "loop variable '%s' is bound again by %s", name, psg_tir_kind_name(parent->kind));
    else
      report(v, parent, "variable '%s' is defined more than once (again by %s)", name, psg_tir_kind_name(parent->kind));
  }
  e->value = (void *)((s & ~(uintptr_t)SOFT_ONLY) | IN_SCOPE | DEFINED | (parent->kind == PSG_TIR_FOR ? LOOP_VAR : 0));
  enter_scope(v, var);
}

/* Checks made when a non-var node is entered. */
static void check_node(verifier *v, const psg_tir_node *n) {
  psgi_tir_dtype_name_buf b1, b2;
  switch (n->kind) {
  case PSG_TIR_BUFFER_LOAD:
  case PSG_TIR_BUFFER_STORE: {
    const psg_tir_node *buf = n->kids[0];
    size_t ni = psgi_tir_num_indices(n);
    if (ni != buf->u.buf.ndim)
      report(v, n, "%s of buffer '%s' has %zu ind%s but the buffer has %u dimension%s", psg_tir_kind_name(n->kind),
             buf->u.buf.name, ni, ni == 1 ? "ex" : "ices", buf->u.buf.ndim, buf->u.buf.ndim == 1 ? "" : "s");
    break;
  }
  case PSG_TIR_BUFFER: {
    psgi_map_entry *e = psgi_map_get_ptr(&v->vars, n->kids[0]);
    if (e && ((uintptr_t)e->value & LOOP_VAR))
      report(v, n, "loop variable '%s' is used as the data of buffer '%s'", n->kids[0]->u.var.name, n->u.buf.name);
    break;
  }
  case PSG_TIR_ALLOCATE: {
    const psg_tir_node *elem = n->kids[0]->u.var.type->kids[0];
    psg_tir_dtype want = n->dtype;
    bool ok = elem->dtype == want ||
              (psg_tir_dtype_is_bool(want) && elem->dtype == psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, psg_tir_dtype_lanes(want)));
    if (!ok)
      report(v, n, "Allocate of '%s' has dtype %s but its buffer var points to %s", n->kids[0]->u.var.name,
             psgi_tir_dtype_name(want, &b1), psgi_tir_dtype_name(elem->dtype, &b2));
    break;
  }
  case PSG_TIR_PRIM_FUNC:
    for (uint32_t i = 0; i < n->u.func.nmap; i++) {
      const psg_tir_node *p = n->kids[1 + n->u.func.map_params[i]];
      if (!psg_tir_dtype_is_handle(p->dtype))
        report(v, n, "param '%s' is mapped to buffer '%s' but has dtype %s, not handle", p->u.var.name,
               n->kids[1 + n->u.func.nparams + i]->u.buf.name, psgi_tir_dtype_name(p->dtype, &b1));
    }
    break;
  default:
    break;
  }
}

/* Leaves the scopes opened since `mark`. */
static void leave_scope(verifier *v, size_t mark) {
  while (v->scope.len > mark) {
    const psg_tir_node *n = v->scope.data[--v->scope.len];
    psgi_map *m = n->kind == PSG_TIR_BUFFER ? &v->buffers : &v->vars;
    psgi_map_entry *e = psgi_map_get_ptr(m, n);
    if (e) e->value = (void *)((uintptr_t)e->value & ~(uintptr_t)IN_SCOPE);
  }
}

/* A buffer reached under `parent` in `mode`: true to walk its fields. */
static bool reach_buffer(verifier *v, const psg_tir_node *buf, const psg_tir_node *parent, uint8_t mode) {
  bool declares = parent->kind == PSG_TIR_DECL_BUFFER || (parent->kind == PSG_TIR_PRIM_FUNC && mode == DEF);
  psgi_map_entry *e = psgi_map_get_ptr(&v->buffers, buf);
  if (!declares) {
    if (!e) return true; /* an alias: its fields are uses */
    if (!((uintptr_t)e->value & IN_SCOPE))
      report(v, parent, "buffer '%s' is used by %s outside the scope of its declaration", buf->u.buf.name,
             psg_tir_kind_name(parent->kind));
    return false; /* a declared buffer's fields were checked where it was declared */
  }
  if (!(e = psgi_map_put_ptr(&v->buffers, buf, NULL))) {
    v->oom = true;
    return false;
  }
  e->value = (void *)(uintptr_t)IN_SCOPE;
  enter_scope(v, buf);
  return true;
}

psg_status psg_tir_verify_well_formed(const psg_tir_prim_func *f) {
  if (!f) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = f->ctx;
  if (f->kind != PSG_TIR_PRIM_FUNC)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, &f->span, f->kind, "verify_well_formed needs a PrimFunc");
  verifier v;
  memset(&v, 0, sizeof v);
  v.ctx = ctx;
  char fname[160] = "PrimFunc";
  psg_attr *gs = psg_attrs_get(f->u.func.attrs, "global_symbol");
  if (gs && psg_attr_kind(gs) == PSG_ATTR_STRING) snprintf(fname, sizeof fname, "@%s", psg_attr_get_string(gs));
  v.fname = fname;
  psgi_map_init(&v.vars, ctx);
  psgi_map_init(&v.buffers, ctx);
  check_node(&v, f);
  if (!PSGI_VEC_PUSH(ctx, &v.stack, ((vframe){f, 0, USE, 0}))) v.oom = true;
  while (!v.oom && v.stack.len) {
    vframe *fr = &v.stack.data[v.stack.len - 1];
    const psg_tir_node *n = fr->node;
    if (fr->next >= n->nkids) {
      if (owns_scope(n->kind)) leave_scope(&v, fr->mark);
      v.stack.len--;
      continue;
    }
    uint8_t mode;
    uint32_t slot = order(n, fr->next++, fr->mode, &mode);
    const psg_tir_node *k = n->kids[slot];
    if (psgi_tir_is_var_kind(k->kind)) {
      check_var(&v, k, n, mode);
      continue;
    }
    if (k->kind == PSG_TIR_POINTER_TYPE) continue;
    if (k->kind == PSG_TIR_BUFFER && !reach_buffer(&v, k, n, mode)) continue;
    check_node(&v, k);
    if (!PSGI_VEC_PUSH(ctx, &v.stack, ((vframe){k, 0, mode, v.scope.len}))) v.oom = true;
  }
  if (v.errors > MAX_ERRORS)
    psgi_diag_add(ctx, PSG_SEVERITY_NOTE, PSG_ERR_TYPE, NULL, 0, 0, NULL, 0, NULL,
                  "verify_well_formed: %d more problems not shown", v.errors - MAX_ERRORS);
  PSGI_VEC_FREE(ctx, &v.stack);
  PSGI_VEC_FREE(ctx, &v.scope);
  psgi_map_fini(&v.vars);
  psgi_map_fini(&v.buffers);
  if (v.oom) return psgi_nomem(ctx);
  return v.errors ? PSG_ERR_TYPE : PSG_OK;
}
