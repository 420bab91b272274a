/* Passage — running the TIR interpreter's compiled form (tir_eval_fast.h).
 * Each instruction computes what the generic machine computes for its node,
 * by the same formulas (float32 arithmetic is done in double and rounded to
 * float, as psgi_tir_binary_lane does; integers wrap to their bits), so the
 * results are bit-identical; whatever would be an error goes back to the
 * generic machine, which reports it. */
#include "interp/tir_eval_fast.h"

static inline int64_t wrap32(uint64_t x) { return (int64_t)(int32_t)(uint32_t)x; }
static inline double round32(double x) { return (double)(float)x; }

/* The run's state beside the interpreter's. */
typedef struct frun {
  psgi_tir_interp *in;
  psg_tir_dtype handle, i32;
  uint64_t epoch; /* moves on whenever a data var may get other memory */
} frun;

/* The memory fb's data var is bound to now (fb->bytes, fb->count), or
 * false (unbound, not a region). Cached in fb for the epoch. */
static bool find_memory(frun *r, psgi_tir_fbuf *fb) {
  psgi_tir_interp *in = r->in;
  uintptr_t bi = in->slot_bind.data[fb->data_slot];
  if (!bi) return false;
  const psgi_tir_binding *bd = &in->binds.data[bi - 1];
  if (bd->dtype != r->handle) return false;
  uint64_t ri = in->bind_lanes.data[bd->off].u;
  if (ri == 0 || ri >= in->regions.len) return false;
  fb->bytes = in->regions.data[ri].bytes;
  fb->count = in->regions.data[ri].nbytes >> fb->shift;
  fb->epoch = r->epoch;
  return true;
}

/* The bytes of element `flat` of fb, or NULL (no memory, out of bounds). */
static inline uint8_t *element(frun *r, const psgi_tir_fbuf *cfb, int64_t flat) {
  psgi_tir_fbuf *fb = (psgi_tir_fbuf *)cfb; /* the cache is the run's */
  if (fb->epoch != r->epoch && !find_memory(r, fb)) return NULL;
  if (flat < 0 || (uint64_t)flat >= fb->count) return NULL;
  return fb->bytes + ((size_t)flat << fb->shift);
}

/* A scalar binding without the vector growth calls when there is room. */
static inline psg_status bind1(psgi_tir_interp *in, const psg_tir_node *var, size_t slot, psg_tir_dtype t,
                               const psgi_tir_lane *x) {
  if (in->binds.len == in->binds.cap || in->bind_lanes.len == in->bind_lanes.cap)
    return psgi_tir_bind_slot(in, var, slot, t, x);
  psgi_tir_binding *b = &in->binds.data[in->binds.len++]; /* field by field: no struct copy through the stack */
  b->var = var;
  b->slot = slot;
  b->prev = in->slot_bind.data[slot];
  b->dtype = t;
  b->off = in->bind_lanes.len;
  b->prev_val = in->slot_val.data[slot];
  b->prev_dtype = in->slot_dtype.data[slot];
  in->bind_lanes.data[in->bind_lanes.len++] = *x;
  in->slot_bind.data[slot] = in->binds.len;
  in->slot_val.data[slot] = *x;
  in->slot_dtype.data[slot] = t;
  return PSG_OK;
}

static inline void unbind1(psgi_tir_interp *in) {
  psgi_tir_binding *b = &in->binds.data[--in->binds.len];
  in->slot_bind.data[b->slot] = b->prev;
  in->slot_val.data[b->slot] = b->prev_val;
  in->slot_dtype.data[b->slot] = b->prev_dtype;
  in->bind_lanes.len = b->off;
}

/* psgi_tir_take_step, which only runs to fail. */
static inline psg_status take_step(psgi_tir_interp *in, const psg_tir_node *n) {
  if (!in->max_steps) return PSG_OK;
  if (in->steps < in->max_steps) {
    in->steps++;
    return PSG_OK;
  }
  return psgi_tir_take_step(in, n);
}

/* A var's scalar value, or false (unbound, or bound to another dtype). */
static inline bool var_value(psgi_tir_interp *in, uint32_t slot, psg_tir_dtype t, psgi_tir_lane *out) {
  if (in->slot_dtype.data[slot] != t) return false; /* 0 when unbound */
  *out = in->slot_val.data[slot];
  return true;
}

/* The flat element of the access at idx[0..ndim), or false on overflow. */
static inline bool flat_index(const psgi_tir_fbuf *fb, const psgi_tir_lane *idx, int64_t *out) {
  int64_t flat = fb->base;
  if (fb->ndim == 1 && fb->strides[0] == 1) return !__builtin_add_overflow(flat, idx[0].i, out);
  for (uint32_t d = 0; d < fb->ndim; d++) {
    int64_t term;
    if (__builtin_mul_overflow(idx[d].i, fb->strides[d], &term) || __builtin_add_overflow(flat, term, &flat))
      return false;
  }
  *out = flat;
  return true;
}

/* c + sum(var_i * k_i) in uint64 (wrapped by the caller), or false when a
 * var is not bound to an int32. */
static inline bool affine_value(psgi_tir_interp *in, const psgi_tir_affine *a, psg_tir_dtype i32, uint64_t *out) {
  uint64_t acc = a->c;
  for (uint32_t i = 0; i < a->n; i++) {
    if (in->slot_dtype.data[a->t[i].slot] != i32) return false;
    acc += in->slot_val.data[a->t[i].slot].u * a->t[i].k;
  }
  *out = acc;
  return true;
}

static inline void load_lane(const psgi_tir_fbuf *fb, const uint8_t *p, psgi_tir_lane *out) {
  if (fb->form == PSGI_TIR_FORM_F32) {
    float f;
    memcpy(&f, p, 4);
    out->f = f;
  } else if (fb->form == PSGI_TIR_FORM_I32) {
    int32_t v;
    memcpy(&v, p, 4);
    out->i = v;
  } else {
    *out = psgi_tir_load_lane(fb->dtype, p);
  }
}

/* Runs the expression program at exprs[pc]: true with its values at
 * in->fstack.data[0..], false when it gives up (bindings it made undone). */
static bool run_x(frun *r, const psgi_tir_fop *code, uint32_t pc) {
  psgi_tir_interp *in = r->in;
  psgi_tir_lane *sp = in->fstack.data;
  size_t bbase = in->binds.len;
  for (const psgi_tir_fop *o = code + pc;; o++) {
    switch (o->op) {
      case X_CONST: *sp++ = o->u.k; break;
      case X_VAR:
        if (!var_value(in, o->a, o->t, sp++)) goto fail;
        break;
      case X_F32_ADD: sp--; sp[-1].f = round32(sp[-1].f + sp[0].f); break;
      case X_F32_SUB: sp--; sp[-1].f = round32(sp[-1].f - sp[0].f); break;
      case X_F32_MUL: sp--; sp[-1].f = round32(sp[-1].f * sp[0].f); break;
      case X_F32_DIV: sp--; sp[-1].f = round32(sp[-1].f / sp[0].f); break;
      case X_F32_MIN: sp--; sp[-1].f = round32(sp[-1].f < sp[0].f ? sp[-1].f : sp[0].f); break;
      case X_F32_MAX: sp--; sp[-1].f = round32(sp[-1].f > sp[0].f ? sp[-1].f : sp[0].f); break;
      case X_I32_ADD: sp--; sp[-1].i = wrap32(sp[-1].u + sp[0].u); break;
      case X_I32_SUB: sp--; sp[-1].i = wrap32(sp[-1].u - sp[0].u); break;
      case X_I32_MUL: sp--; sp[-1].i = wrap32(sp[-1].u * sp[0].u); break;
      case X_I32_MIN: sp--; sp[-1].i = sp[-1].i < sp[0].i ? sp[-1].i : sp[0].i; break;
      case X_I32_MAX: sp--; sp[-1].i = sp[-1].i > sp[0].i ? sp[-1].i : sp[0].i; break;
      case X_I32_MULK: sp[-1].i = wrap32(sp[-1].u * o->u.k.u); break;
      case X_AFFINE: {
        uint64_t v;
        if (!affine_value(in, o->u.af, r->i32, &v)) goto fail;
        (sp++)->i = wrap32(v);
        break;
      }
      case X_ADD_AFFINE: {
        uint64_t v;
        if (!affine_value(in, o->u.af, r->i32, &v)) goto fail;
        sp[-1].i = wrap32(sp[-1].u + v);
        break;
      }
      case X_LOAD1_AFF: {
        uint64_t v;
        int64_t flat;
        uint8_t *p = affine_value(in, o->u.af, r->i32, &v) && !__builtin_add_overflow(o->u.af->b->base, wrap32(v), &flat)
                         ? element(r, o->u.af->b, flat)
                         : NULL;
        if (!p) goto fail;
        load_lane(o->u.af->b, p, sp++);
        break;
      }
      case X_I64_ADD: sp--; sp[-1].u = sp[-1].u + sp[0].u; break;
      case X_I64_SUB: sp--; sp[-1].u = sp[-1].u - sp[0].u; break;
      case X_I64_MUL: sp--; sp[-1].u = sp[-1].u * sp[0].u; break;
      case X_IEQ: sp--; sp[-1].u = sp[-1].i == sp[0].i; break;
      case X_INE: sp--; sp[-1].u = sp[-1].i != sp[0].i; break;
      case X_ILT: sp--; sp[-1].u = sp[-1].i < sp[0].i; break;
      case X_ILE: sp--; sp[-1].u = sp[-1].i <= sp[0].i; break;
      case X_IGT: sp--; sp[-1].u = sp[-1].i > sp[0].i; break;
      case X_IGE: sp--; sp[-1].u = sp[-1].i >= sp[0].i; break;
      case X_BIN:
        sp--;
        if (!psgi_tir_binary_lane(o->kind, o->t, sp[-1], sp[0], &sp[-1])) goto fail;
        break;
      case X_NOT: sp[-1].u = !sp[-1].u; break;
      case X_SELECT:
        sp -= 2;
        sp[-1] = sp[-1].u ? sp[0] : sp[1];
        break;
      case X_CAST:
        if (!psgi_tir_cast_lane(o->t2, o->t, sp[-1], &sp[-1])) goto fail;
        break;
      case X_LOAD1: { /* 1-D, stride 1 */
        int64_t flat;
        uint8_t *p = __builtin_add_overflow(o->u.b->base, sp[-1].i, &flat) ? NULL : element(r, o->u.b, flat);
        if (!p) goto fail;
        load_lane(o->u.b, p, &sp[-1]);
        break;
      }
      case X_LOAD: {
        int64_t flat;
        sp -= o->u.b->ndim;
        uint8_t *p = flat_index(o->u.b, sp, &flat) ? element(r, o->u.b, flat) : NULL;
        if (!p) goto fail;
        load_lane(o->u.b, p, sp++);
        break;
      }
      case X_MATH1:
      case X_MATH2: {
        double y;
        if (o->op == X_MATH1) {
          y = o->u.f1(sp[-1].f);
        } else {
          sp--;
          y = o->u.f2(sp[-1].f, sp[0].f);
        }
        if (o->kind) sp[-1].u = y != 0;
        else sp[-1].f = psgi_tir_round_float(o->t, y);
        break;
      }
      case X_JZ:
        if (!(--sp)->u) o = code + o->a - 1;
        break;
      case X_JZK:
        if (!sp[-1].u) o = code + o->a - 1;
        break;
      case X_JNZK:
        if (sp[-1].u) o = code + o->a - 1;
        break;
      case X_JMP: o = code + o->a - 1; break;
      case X_POP: sp--; break;
      case X_BIND:
        sp--;
        if (psgi_tir_bind_slot(in, o->n, o->a, o->t, sp)) goto fail;
        break;
      case X_UNBIND: psgi_tir_unbind(in); break;
      default: /* X_RET */ return true;
    }
  }
fail:
  while (in->binds.len > bbase) psgi_tir_unbind(in);
  return false;
}

/* An integer expression (For's min and extent), as psgi_tir_eval_int. */
static psg_status eval_int(frun *r, const psgi_tir_fcode *c, uint32_t pc, const psg_tir_node *e, int64_t *out) {
  psgi_tir_interp *in = r->in;
  if (run_x(r, c->exprs.data, pc) && (psgi_tir_lane_class(e->dtype) == PSGI_TIR_SINT || in->fstack.data[0].i >= 0)) {
    *out = in->fstack.data[0].i;
    return PSG_OK;
  }
  return psgi_tir_eval_int(in, e, out);
}

/* A compiled store: the value and the indices on the stack. */
static bool store(frun *r, const psgi_tir_fop *o) {
  const psgi_tir_fbuf *fb = o->u.b;
  psgi_tir_lane *v = r->in->fstack.data;
  int64_t flat;
  uint8_t *p = flat_index(fb, v + 1, &flat) ? element(r, fb, flat) : NULL;
  if (!p) return false;
  if (fb->form == PSGI_TIR_FORM_F32) {
    float f = (float)v->f;
    memcpy(p, &f, 4);
  } else if (fb->form == PSGI_TIR_FORM_I32) {
    int32_t x = (int32_t)(uint32_t)v->u;
    memcpy(p, &x, 4);
  } else {
    psgi_tir_store_lane(fb->dtype, p, *v);
  }
  return true;
}

/* The generic machine runs statement n (bindings and memory may change). */
static psg_status generic(frun *r, const psg_tir_node *n) {
  r->epoch++;
  return psgi_tir_exec_generic(r->in, n);
}

typedef struct lframe {
  int64_t i, end;
  size_t aux; /* For: its binding; Allocate: its bytes */
} lframe;

static psg_status run(frun *r, const psgi_tir_fcode *c) {
  psgi_tir_interp *in = r->in;
  PSGI_VEC(lframe) fr = {0};
  const psgi_tir_fop *code = c->stmts.data, *xc = c->exprs.data;
  psg_status st = PSG_OK;
  for (size_t pc = 0; !st;) {
    const psgi_tir_fop *o = &code[pc++];
    switch (o->op) {
      case S_FOR: {
        const psg_tir_node *n = o->n, *var = n->kids[0];
        int64_t min, extent, end;
        if ((st = eval_int(r, c, o->x, n->kids[1], &min)) || (st = eval_int(r, c, o->x2, n->kids[2], &extent)))
          break;
        if (extent <= 0) {
          pc = o->a;
          break;
        }
        if (__builtin_add_overflow(min, extent, &end)) {
          st = psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "min + extent overflows int64");
          break;
        }
        psgi_tir_lane x = {.i = psgi_tir_wrap(var->dtype, (uint64_t)min)};
        if ((st = bind1(in, var, (size_t)o->u.k.u, var->dtype, &x))) break;
        lframe f = {min, end, in->binds.len - 1};
        if (!PSGI_VEC_PUSH(in->ctx, &fr, f)) st = psgi_nomem(in->ctx);
        else st = take_step(in, n);
        break;
      }
      case S_NEXT: {
        lframe *f = &fr.data[fr.len - 1];
        if (++f->i < f->end) {
          const psgi_tir_binding *b = &in->binds.data[f->aux];
          in->bind_lanes.data[b->off].i = in->slot_val.data[b->slot].i =
              o->t == r->i32 ? wrap32((uint64_t)f->i) : psgi_tir_wrap(o->t, (uint64_t)f->i);
          pc = o->a;
          st = take_step(in, o->n);
        } else {
          unbind1(in);
          fr.len--;
        }
        break;
      }
      case S_STORE:
        if (!run_x(r, xc, o->x) || !store(r, o)) st = generic(r, o->n);
        break;
      case S_EVAL:
        if (!run_x(r, xc, o->x)) st = generic(r, o->n);
        break;
      case S_IF: {
        bool cond;
        if (run_x(r, xc, o->x)) cond = in->fstack.data[0].u != 0;
        else if ((st = psgi_tir_eval_cond(in, o->n->kids[0], &cond))) break;
        if (!cond) pc = o->a;
        break;
      }
      case S_JMP: pc = o->a; break;
      case S_LET:
        if (run_x(r, xc, o->x)) {
          st = bind1(in, o->n->kids[0], o->a, o->t, in->fstack.data);
          if (o->t == r->handle) r->epoch++;
        } else if (!(st = psgi_tir_eval_expr(in, o->n->kids[1]))) { /* as the generic LetStmt binds */
          st = psgi_tir_bind(in, o->n->kids[0], psgi_tir_top(in)->dtype, psgi_tir_top_lanes(in));
          psgi_tir_pop(in);
          r->epoch++; /* it may be a handle */
        }
        break;
      case S_UNBIND:
        if (in->binds.data[in->binds.len - 1].dtype == r->handle) r->epoch++;
        unbind1(in);
        break;
      case S_ALLOC: {
        lframe f = {0, 0, 0};
        r->epoch++;
        if (!(st = psgi_tir_alloc_enter(in, o->n, &f.aux)) && !PSGI_VEC_PUSH(in->ctx, &fr, f))
          st = psgi_nomem(in->ctx);
        break;
      }
      case S_FREE:
        r->epoch++;
        psgi_tir_alloc_exit(in, fr.data[--fr.len].aux);
        break;
      case S_GENERIC: st = generic(r, o->n); break;
      default: /* S_END */
        PSGI_VEC_FREE(in->ctx, &fr);
        return PSG_OK;
    }
  }
  PSGI_VEC_FREE(in->ctx, &fr);
  return st;
}

psg_status psgi_tir_exec(psgi_tir_interp *in, const psg_tir_node *body) {
  psgi_tir_fcode c;
  frun r = {in, psg_tir_dtype_handle(), psg_tir_dtype_int32(), 1};
  psg_status st = psgi_tir_compile(in, body, &c);
  if (!st) st = run(&r, &c);
  psgi_tir_fcode_fini(in, &c);
  return st;
}
