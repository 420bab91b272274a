/* Passage — two analyzer entry points that TVM's Python API needs and the
 * passes do not (passage.arith): setting a var's bound outright (TVM's
 * ConstIntBound Update) and the optional proof extensions. */
#include "tir/arith/arith_internal.h"

psg_status psg_arith_update_bound(psg_arith_analyzer *a, psg_tir_expr *var, psg_arith_bound bound) {
  if (!var || !psgi_tir_is_var_kind(var->kind) || bound.min > bound.max)
    return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "arith: update_bound needs a Var and min <= max");
  /* The newest fact is the one read: this one replaces the bound, not
   * intersects it; a substitution or let value already known stays. */
  const psgi_arith_fact *old = psgi_arith_find_fact(a, var);
  psgi_arith_fact f = {var, bound, old ? old->subst : NULL, old ? old->let_value : NULL,
                       old ? old->mod : (psg_arith_modset){1, 0}, 0};
  return psgi_arith_push_fact(a, f);
}

psg_status psg_arith_set_extensions(psg_arith_analyzer *a, unsigned flags) {
  unsigned known = PSG_ARITH_EXT_TRANSITIVE | PSG_ARITH_EXT_AND_OF_ORS | PSG_ARITH_EXT_BOOLEAN_BRANCHES |
                   PSG_ARITH_EXT_PRODUCT_SUM;
  if (flags & ~known)
    return psgi_diag_add(a->ctx, PSG_SEVERITY_ERROR, PSG_ERR_UNSUPPORTED, NULL, 0, 0, NULL, 0, NULL,
                         "arith: analyzer extension bits 0x%x are not implemented", flags & ~known);
  a->transitive = flags & PSG_ARITH_EXT_TRANSITIVE;
  a->and_of_ors = flags & PSG_ARITH_EXT_AND_OF_ORS;
  a->boolean_branches = flags & PSG_ARITH_EXT_BOOLEAN_BRANCHES;
  a->product_sum = flags & PSG_ARITH_EXT_PRODUCT_SUM;
  psgi_arith_cache_clear(a);
  return PSG_OK;
}
