/* Passage — a kernel specialized on its one-element constant arguments
 * before C generation: when every call of a kernel passes the same
 * one-element float constant for a parameter (silero_vad's `power`
 * exponent, a constant the fused function takes as an argument), loads of
 * it become the literal, and `pow` with a literal exponent of 2, 1 or 0.5
 * becomes x * x, x or a guarded sqrt, as LLVM folds them for TVM's CPU
 * targets (exact). Other exponents keep the library's powf. */
#include "codegen/codegen_c.h"
#include "codegen/host_program.h"
#include "passage/type.h"
#include "tir/tir_internal.h"
#include <math.h>
#include <string.h>

typedef struct scalar_bind {
  const psg_tir_node *data; /* the parameter buffer's data var */
  double value;
} scalar_bind;

typedef struct bind_state {
  scalar_bind *binds;
  size_t n;
} bind_state;

/* The one value of a one-element float constant, or false. */
static bool scalar_of(const psg_tensor *t, double *v) {
  if (psg_tensor_numel(t) != 1) return false;
  if (psg_tensor_dtype(t) == PSG_DTYPE_FLOAT32) {
    *v = *(const float *)psg_tensor_data(t);
    return true;
  }
  if (psg_tensor_dtype(t) == PSG_DTYPE_FLOAT64) {
    *v = *(const double *)psg_tensor_data(t);
    return true;
  }
  return false;
}

/* The constant every call of kernel k passes as its input a, or false. */
static bool same_constant(const psgi_host_program *p, uint32_t k, uint32_t a, double *out) {
  bool have = false;
  for (size_t i = 0; i < p->steps.len; i++) {
    const psgi_host_step *s = &p->steps.data[i];
    if (s->kind != PSGI_STEP_CALL || s->kernel != k) continue;
    if (a >= s->nin) return false;
    const psgi_host_value *v = &p->values.data[psgi_host_home(p, p->args.data[s->arg0 + a])];
    double x;
    if (v->kind != PSGI_VALUE_CONST || !scalar_of(p->consts.data[v->index], &x)) return false;
    if (have && !(x == *out && signbit(x) == signbit(*out))) return false;
    *out = x;
    have = true;
  }
  return have;
}

static bool is_imm_value(const psg_tir_node *n, double *v) {
  if (n->kind == PSG_TIR_BROADCAST) n = n->kids[0];
  if (n->kind != PSG_TIR_FLOAT_IMM) return false;
  *v = n->u.float_value;
  return true;
}

/* A load of a bound parameter at index 0: its literal. */
static psg_status bind_load(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  bind_state *b = m->user;
  if (st || psg_tir_dtype_lanes((*out)->dtype) != 1 || ((*out)->flags & PSGI_TIR_HAS_PRED)) return st;
  size_t ni = psgi_tir_num_indices(*out);
  for (size_t i = 0; i < ni; i++) {
    const psg_tir_node *ix = psgi_tir_indices(*out)[i];
    if (ix->kind != PSG_TIR_INT_IMM || ix->u.int_value != 0) return PSG_OK;
  }
  for (size_t i = 0; i < b->n; i++) {
    if (b->binds[i].data != (*out)->kids[0]->kids[0]) continue;
    psg_tir_node *lit = NULL;
    st = psg_tir_float_imm_create(m->ctx, (*out)->dtype, b->binds[i].value, NULL, &lit);
    if (st) return st;
    psg_tir_release(*out);
    *out = lit;
    break;
  }
  return PSG_OK;
}

/* A float constant of x's dtype (a Broadcast for a vector). */
static psg_status constant_like(psg_ctx *ctx, const psg_tir_node *x, double v, psg_tir_node **out) {
  int lanes = psg_tir_dtype_lanes(x->dtype);
  psg_tir_node *s = NULL;
  psg_status st = psg_tir_float_imm_create(ctx, psg_tir_dtype_with_lanes(x->dtype, 1), v, NULL, &s);
  if (!st && lanes > 1) st = psg_tir_broadcast_create(ctx, s, lanes, NULL, out);
  else if (!st) psg_tir_retain(*out = s);
  psg_tir_release(s);
  return st;
}

/* pow(x, 0.5) -> x == -inf ? +inf : fabs(sqrt(x)), LLVM's exact form
 * (powf gives +inf at -inf and +0 at -0, where sqrt gives NaN and -0). */
static psg_status sqrt_form(psg_ctx *ctx, psg_tir_node *x, psg_tir_node **out) {
  psg_tir_node *ninf = NULL, *pinf = NULL, *eq = NULL, *sq = NULL, *ab = NULL;
  psg_status st = constant_like(ctx, x, -INFINITY, &ninf);
  if (!st) st = constant_like(ctx, x, INFINITY, &pinf);
  if (!st) st = psg_tir_binary_create(ctx, PSG_TIR_EQ, x, ninf, NULL, &eq);
  if (!st) st = psg_tir_call_create(ctx, x->dtype, "tir.sqrt", &x, 1, NULL, &sq);
  if (!st) st = psg_tir_call_create(ctx, x->dtype, "tir.fabs", &sq, 1, NULL, &ab);
  if (!st) st = psg_tir_select_create(ctx, eq, pinf, ab, NULL, out);
  psg_tir_release(ninf);
  psg_tir_release(pinf);
  psg_tir_release(eq);
  psg_tir_release(sq);
  psg_tir_release(ab);
  return st;
}

/* pow(x, 2) -> x * x; pow(x, 1) -> x; pow(x, 0.5) -> sqrt_form. */
static psg_status fold_pow(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  double e;
  if (st || strcmp(psg_tir_call_op(*out), "tir.pow") || psg_tir_call_num_args(*out) != 2 ||
      !is_imm_value(psg_tir_call_get_arg(*out, 1), &e) || (e != 2.0 && e != 1.0 && e != 0.5))
    return st;
  psg_tir_node *x = psg_tir_call_get_arg(*out, 0), *r = NULL;
  if (e == 1.0) psg_tir_retain(r = x);
  else if (e == 0.5) st = sqrt_form(m->ctx, x, &r);
  else st = psg_tir_binary_create(m->ctx, PSG_TIR_MUL, x, x, NULL, &r);
  if (st) return st;
  psg_tir_release(*out);
  *out = r;
  return PSG_OK;
}

psg_status psgi_cg_bind_const_scalars(psg_ctx *ctx, const struct psgi_host_program *p, uint32_t k,
                                      psg_tir_prim_func **out) {
  psg_tir_prim_func *f = p->kernels.data[k].func;
  size_t np = psg_tir_prim_func_num_params(f);
  scalar_bind *binds = np ? psgi_calloc(ctx, np * sizeof *binds) : NULL;
  if (np && !binds) return psgi_nomem(ctx);
  bind_state b = {binds, 0};
  for (size_t a = 0; a < np; a++) {
    psg_tir_buffer *buf = psg_tir_prim_func_get_param_buffer(f, psg_tir_prim_func_get_param(f, a));
    double v;
    if (buf && same_constant(p, k, (uint32_t)a, &v)) binds[b.n++] = (scalar_bind){psg_tir_buffer_get_data(buf), v};
  }
  psg_tir_mutator m;
  psg_tir_mutator_init(&m, ctx);
  m.visit[PSG_TIR_BUFFER_LOAD] = bind_load;
  m.visit[PSG_TIR_CALL] = fold_pow;
  m.user = &b;
  psg_status st = psg_tir_mutate(&m, f, out);
  psg_tir_mutator_fini(&m);
  psgi_free(ctx, binds);
  return st;
}
