/* Passage — tir.LowerOpaqueBlock (TVM's src/tir/transforms/lower_opaque_block.cc),
 * a PrimFuncPass without options. Passage's TIR has no S-TIR blocks, so what
 * remains of TVM's pass is its handling of loops, exactly as TVM applies it
 * to block-free input:
 *   - a loop of extent 1 (after rewriting its extent) without annotations is
 *     replaced by its body, its var by its min (cast to the var's dtype when
 *     they differ);
 *   - a loop annotation whose key starts with "pragma_" becomes an AttrStmt
 *     around the loop (node: the loop var, value: the annotation as an
 *     IntImm int32 / IntImm bool / FloatImm float32 / StringImm), these
 *     AttrStmts sorted by key, the first outermost; other annotations stay
 *     on the loop. Another value (a list, a dict) is an error, as in TVM.
 * TVM's thread-binding loops (ForKind kThreadBinding) do not exist here: a
 * thread launch is already an AttrStmt. A function from a legacy TE schedule
 * (from_legacy_te_schedule) is left alone. */
#include <stdlib.h>
#include <string.h>
#include "tir/transforms/tir_transforms.h"

typedef struct lowerer {
  psg_ctx *ctx;
} lowerer;

static bool is_one(const psg_tir_node *e) { return e->kind == PSG_TIR_INT_IMM && e->u.int_value == 1; }

static bool is_pragma_key(const char *k) { return strncmp(k, "pragma_", 7) == 0; }

static bool is_unit_loop(psg_tir_mutator *m, const psg_tir_node *loop) {
  return is_one(psg_tir_mutator_get_result(m, loop->kids[2])) && !psg_attrs_count(loop->u.loop.annotations);
}

/* Before a unit loop's body: its var stands for its (rewritten) min. */
static psg_status before_child(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot) {
  if (parent->kind != PSG_TIR_FOR || slot != 3 || !is_unit_loop(m, parent)) return PSG_OK;
  psg_tir_node *var = parent->kids[0], *min = psg_tir_mutator_get_result(m, parent->kids[1]), *value = NULL;
  psg_status st;
  if (min->dtype != var->dtype) {
    st = psg_tir_cast_create(m->ctx, var->dtype, min, &min->span, &value);
  } else {
    psg_tir_retain(value = min);
    st = PSG_OK;
  }
  if (!st) st = psg_tir_mutator_set_result(m, var, value);
  psg_tir_release(value);
  return st;
}

/* TVM's ConvertAttrValue. */
static psg_status attr_value(psg_ctx *ctx, const char *key, const psg_attr *a, const psg_span *sp,
                             psg_tir_expr **out) {
  switch (psg_attr_kind(a)) {
  case PSG_ATTR_INT: return psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), psg_attr_get_int(a), sp, out);
  case PSG_ATTR_BOOL: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), psg_attr_get_bool(a), sp, out);
  case PSG_ATTR_FLOAT: return psg_tir_float_imm_create(ctx, psg_tir_dtype_float32(), psg_attr_get_float(a), sp, out);
  case PSG_ATTR_STRING: {
    const char *s = psg_attr_get_string(a);
    return psg_tir_string_imm_create(ctx, s, strlen(s), sp, out);
  }
  default:
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "tir.LowerOpaqueBlock: illegal attribute of key '%s': only an integer, a float, a bool or a "
                        "string becomes an AttrStmt value",
                        key);
  }
}

static int by_key(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static psg_status visit_for(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_ctx *ctx = m->ctx;
  psg_tir_node *body = psg_tir_mutator_get_result(m, n->kids[3]);
  if (is_unit_loop(m, n)) {
    psg_tir_retain(*out = body);
    return PSG_OK;
  }
  psg_attrs *ann = n->u.loop.annotations;
  size_t na = psg_attrs_count(ann), np = 0;
  bool pragma = false;
  for (size_t i = 0; i < na && !pragma; i++) pragma = is_pragma_key(psg_attrs_key(ann, i));
  if (!pragma && body == n->kids[3] && psg_tir_mutator_get_result(m, n->kids[1]) == n->kids[1] &&
      psg_tir_mutator_get_result(m, n->kids[2]) == n->kids[2]) { /* unchanged: no copy of the loop (nor of its parents) */
    psg_tir_retain(*out = (psg_tir_node *)n);
    return PSG_OK;
  }
  const char **pragmas = NULL;
  const char **kept_keys = NULL;
  psg_attr **kept_vals = NULL;
  size_t nk = 0;
  psg_attrs *kept = NULL;
  psg_status st = PSG_OK;
  if (na) {
    pragmas = psgi_calloc(ctx, na * sizeof *pragmas);
    kept_keys = psgi_calloc(ctx, na * sizeof *kept_keys);
    kept_vals = psgi_calloc(ctx, na * sizeof *kept_vals);
    if (!pragmas || !kept_keys || !kept_vals) st = psgi_nomem(ctx);
    for (size_t i = 0; !st && i < na; i++) {
      const char *k = psg_attrs_key(ann, i);
      if (is_pragma_key(k)) {
        pragmas[np++] = k;
      } else {
        kept_keys[nk] = k;
        kept_vals[nk++] = psg_attrs_get_value(ann, i);
      }
    }
    if (!st && np && nk) st = psg_attrs_create(ctx, kept_keys, kept_vals, nk, &kept);
    if (!st && np) qsort(pragmas, np, sizeof *pragmas, by_key);
  }
  psg_tir_node *loop = NULL;
  if (!st)
    st = psg_tir_for_create(ctx, n->kids[0], psg_tir_mutator_get_result(m, n->kids[1]),
                            psg_tir_mutator_get_result(m, n->kids[2]), n->u.loop.kind, body, np ? kept : ann,
                            &n->span, &loop);
  for (size_t i = np; !st && i-- > 0;) {
    psg_tir_expr *v = NULL;
    psg_tir_node *wrapped = NULL;
    st = attr_value(ctx, pragmas[i], psg_attrs_get(ann, pragmas[i]), &n->span, &v);
    if (!st) st = psg_tir_attr_stmt_create(ctx, n->kids[0], pragmas[i], v, loop, &n->span, &wrapped);
    psg_tir_release(v);
    psg_tir_release(loop);
    loop = wrapped;
  }
  if (!st) *out = loop;
  else psg_tir_release(loop);
  psg_attrs_release(kept);
  psgi_free(ctx, pragmas);
  psgi_free(ctx, kept_keys);
  psgi_free(ctx, kept_vals);
  return st;
}

psg_status psgi_tir_lower_opaque_block(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out) {
  *out = NULL;
  if (psgi_tir_is_legacy_te(f)) {
    psg_tir_retain(*out = (psg_tir_prim_func *)f);
    return PSG_OK;
  }
  lowerer l = {.ctx = ctx};
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.user = &l;
  m.before_child = before_child;
  m.visit[PSG_TIR_FOR] = visit_for;
  psg_status st = psg_tir_mutate(&m, f, out);
  psg_tir_mutator_fini(&m);
  return st;
}

static psg_status lower_opaque_block_pass(psg_tir_prim_func *f, psg_module *mod, psg_pass_context *pc, void *user,
                                          psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  return psgi_tir_lower_opaque_block(psg_pass_context_get_ctx(pc), f, out);
}

const psg_pass_decl psgi_pass_tir_lower_opaque_block = {
    .name = "tir.LowerOpaqueBlock",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "remove unit loops (var replaced by min) and turn loop pragma_* annotations into AttrStmts",
    .prim_func = lower_opaque_block_pass,
    .cacheable = true,
};
