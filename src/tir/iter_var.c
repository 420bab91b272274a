/* Passage — TVM's IterVar: a var with its range, kind and thread tag, the
 * node of the AttrStmts that launch threads ("thread_extent",
 * "virtual_thread": T.launch_thread / T.env_thread in TVMScript) and of
 * pragma AttrStmts. Operands: var, then min and extent when it has a range. */
#include "tir/tir_internal.h"

static const char *const type_names[] = {"DataPar",   "ThreadIndex", "CommReduce",   "Ordered",   "Opaque",
                                         "Unrolled",  "Vectorized",  "Parallelized", "Tensorized"};

const char *psg_tir_iter_type_name(int iter_type) {
  if (iter_type < 0 || iter_type >= (int)(sizeof type_names / sizeof *type_names)) return NULL;
  return type_names[iter_type];
}

psg_status psg_tir_iter_var_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *min, psg_tir_expr *extent,
                                   int iter_type, const char *thread_tag, const psg_span *span, psg_tir_node **out) {
  *out = NULL;
  const int K = PSG_TIR_ITER_VAR;
  psgi_tir_dtype_name_buf b1, b2;
  if (!var) return psgi_tir_missing(ctx, span, K, "the var");
  if (!psgi_tir_is_var_kind(var->kind))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "the var must be a Var, not %s",
                         psg_tir_kind_name(var->kind));
  if (!psg_tir_iter_type_name(iter_type))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "unknown iter_type %d", iter_type);
  if (!min != !extent)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, K, "the range needs both min and extent");
  psg_status st;
  if (min) {
    if ((st = psgi_tir_need_expr(ctx, span, K, min, "min")) || (st = psgi_tir_need_expr(ctx, span, K, extent, "extent")))
      return st;
    /* TVM: the range's dtype is the var's (an IntImm dom is made to match). */
    if (min->dtype != extent->dtype)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, K, "range min is %s but extent is %s", psgi_tir_dtype_name(min->dtype, &b1),
                           psgi_tir_dtype_name(extent->dtype, &b2));
  }
  const char *tag = psgi_intern(ctx, thread_tag ? thread_tag : "", thread_tag ? strlen(thread_tag) : 0);
  if (!tag) return psgi_nomem(ctx);
  if ((st = psgi_tir_new(ctx, K, min ? 3 : 1, span, out))) return st;
  psgi_tir_set_kid(*out, 0, var);
  if (min) {
    psgi_tir_set_kid(*out, 1, min);
    psgi_tir_set_kid(*out, 2, extent);
  }
  (*out)->dtype = var->dtype;
  (*out)->u.iter.type = iter_type;
  (*out)->u.iter.tag = tag;
  return PSG_OK;
}

static bool is_iv(const psg_tir_node *n) { return n && n->kind == PSG_TIR_ITER_VAR; }

psg_tir_expr *psg_tir_iter_var_get_var(const psg_tir_node *iv) { return is_iv(iv) ? iv->kids[0] : NULL; }
psg_tir_expr *psg_tir_iter_var_get_min(const psg_tir_node *iv) { return is_iv(iv) && iv->nkids == 3 ? iv->kids[1] : NULL; }
psg_tir_expr *psg_tir_iter_var_get_extent(const psg_tir_node *iv) {
  return is_iv(iv) && iv->nkids == 3 ? iv->kids[2] : NULL;
}
int psg_tir_iter_var_type(const psg_tir_node *iv) { return is_iv(iv) ? iv->u.iter.type : -1; }
const char *psg_tir_iter_var_thread_tag(const psg_tir_node *iv) { return is_iv(iv) ? iv->u.iter.tag : ""; }
