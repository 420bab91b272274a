/* Passage — CanonicalizeCast (tvm-behavior §7.1, TVM's canonicalize_cast.cc):
 * a function pass (opt 3, required InferType). An upcast (cast to a dtype of
 * more bits) shared by several elementwise/broadcast consumers is duplicated,
 * one copy per consumer after the first, so FuseOps can pull each copy into
 * its consumer's group and the producer's group writes the narrow dtype. */
#include "ops/op_impl.h"
#include "transforms/builder.h"
#include "transforms/call_scan.h"
#include "transforms/transforms.h"

typedef struct canon {
  psgi_map uses; /* original upcast -> elemwise/broadcast uses seen so far */
} canon;

static int dtype_bits(int dtype) { return dtype == PSG_DTYPE_BOOL ? 1 : (int)psg_dtype_size(dtype) * 8; }

static bool is_upcast(const psg_expr *e) {
  if (psgi_call_op_id(e) != PSGI_OP_cast || e->nkids != 2) return false;
  const psg_type *from = psgi_tensor_type_of(e->kids[1]), *to = psgi_tensor_type_of(e);
  return from && to && dtype_bits(from->dtype) < dtype_bits(to->dtype);
}

static bool is_elemwise_or_broadcast(const psg_expr *call) {
  const psg_expr *callee = call->kids[0];
  if (callee->kind != PSG_EXPR_OP) return false;
  const psgi_op_impl *impl = psgi_op_impl_get(callee->u.op);
  return impl && impl->pattern <= PSGI_PATTERN_BROADCAST;
}

static psg_status cast_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  canon *c = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  if (st || !is_elemwise_or_broadcast(e) || e->nkids - 1 > 16) return st;
  /* Consumers are reached in post order, as TVM's recursive visit reaches
   * them, so the first consumer keeps the original cast. */
  psg_expr *args[16], *copies[16] = {NULL};
  bool changed = false;
  for (uint32_t i = 1; !st && i < e->nkids; i++) {
    psg_expr *now = (*out)->kids[i];
    args[i - 1] = now;
    if (!is_upcast(e->kids[i])) continue;
    psgi_map_entry *en = psgi_map_put_ptr(&c->uses, e->kids[i], NULL);
    if (!en) {
      st = psgi_nomem(m->ctx);
      break;
    }
    en->value = (void *)((uintptr_t)en->value + 1);
    if ((uintptr_t)en->value < 2) continue;
    st = psgi_expr_rebuild(now, now->kids, &copies[i - 1]);
    if (st) break;
    psgi_give_type(copies[i - 1], e->kids[i]->checked_type);
    args[i - 1] = copies[i - 1];
    changed = true;
  }
  if (!st && changed) {
    psg_expr *call = NULL;
    st = psg_call_create(m->ctx, (*out)->kids[0], args, e->nkids - 1, (*out)->u.attrs, psgi_expr_span_ref(*out), &call);
    if (!st) {
      psgi_give_type(call, e->checked_type);
      psg_expr_release(*out);
      *out = call;
    }
  }
  for (size_t i = 0; i < 16; i++) psg_expr_release(copies[i]);
  return st;
}

static psg_status canonicalize_cast(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user,
                                    psg_expr **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  psg_status st = psgi_check_typed(func, "CanonicalizeCast");
  if (st) return st;
  /* Most graphs call no cast: a scan of the calls is cheaper than the
   * rewrite's walk (departure 257). */
  bool any = true;
  if (!psgi_canonicalize_exhaustive && (st = psgi_calls_op(func, PSGI_OP_cast, &any)) != PSG_OK) return st;
  if (!any) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  canon c;
  psgi_map_init(&c.uses, func->ctx);
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.user = &c;
  m.visit[PSG_EXPR_CALL] = cast_call;
  st = psgi_mutator_keep_composite(&m);
  if (!st) st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  psgi_map_fini(&c.uses);
  return st;
}

const psg_pass_decl psgi_pass_canonicalize_cast = {
    .name = "CanonicalizeCast",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "an upcast shared by elementwise consumers copied once per consumer",
    .needs = PSG_PROP_TYPED,
    .function = canonicalize_cast,
    .cacheable = true,
};
