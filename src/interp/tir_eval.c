/* Passage — the reference TIR interpreter (include/passage/tir_interp.h):
 * binds a PrimFunc's parameters to tensors, runs its body with an explicit
 * stack of statement frames (a 10,000-deep loop nest or a million-statement
 * SeqStmt never touches the C stack) and checks every buffer access against
 * the memory behind the buffer's data var. Memory lives in regions: one per
 * buffer parameter and one per live Allocate; a handle value is a region's
 * index, so aliasing buffers over one data var see the same bytes. */
#include <stdarg.h>
#include <stdio.h>
#include "interp/tir_eval_internal.h"

psg_status psgi_tir_eval_fail(psgi_tir_interp *in, const psg_tir_node *n, psg_status code, const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const psg_span *sp = &n->span;
  const char *file = sp->file || sp->name ? psgi_span_where(sp) : NULL;
  return psgi_diag_add(in->ctx, PSG_SEVERITY_ERROR, code, file, sp->line, sp->col, NULL, 0, NULL, "%s: %s",
                       psg_tir_kind_name(n->kind), msg);
}

int psg_tir_dtype_to_tensor(psg_tir_dtype t) {
  if (psg_tir_dtype_lanes(t) != 1) return PSG_DTYPE_INVALID;
  int bits = psg_tir_dtype_bits(t);
  switch (psg_tir_dtype_code(t)) {
    case PSG_TIR_CODE_INT:
      return bits == 8 ? PSG_DTYPE_INT8 : bits == 16 ? PSG_DTYPE_INT16 : bits == 32 ? PSG_DTYPE_INT32 : PSG_DTYPE_INT64;
    case PSG_TIR_CODE_UINT:
      return bits == 1 ? PSG_DTYPE_BOOL
             : bits == 8 ? PSG_DTYPE_UINT8
             : bits == 16 ? PSG_DTYPE_UINT16
             : bits == 32 ? PSG_DTYPE_UINT32
                          : PSG_DTYPE_UINT64;
    case PSG_TIR_CODE_FLOAT:
      return bits == 16 ? PSG_DTYPE_FLOAT16 : bits == 32 ? PSG_DTYPE_FLOAT32 : PSG_DTYPE_FLOAT64;
    case PSG_TIR_CODE_BFLOAT: return PSG_DTYPE_BFLOAT16;
    default: return PSG_DTYPE_INVALID;
  }
}

/* Buffer accesses ------------------------------------------------------------ */

/* The region behind buffer b's data var. */
static psg_status buffer_region(psgi_tir_interp *in, const psg_tir_node *at, const psg_tir_node *b,
                                psgi_tir_region **out) {
  const psg_tir_node *data = b->kids[0];
  psgi_tir_binding *bd = psgi_tir_lookup(in, data);
  uint64_t r = bd ? in->bind_lanes.data[bd->off].u : 0;
  if (!bd || !psg_tir_dtype_is_handle(bd->dtype) || r == 0 || r >= in->regions.len)
    return psgi_tir_eval_fail(in, at, PSG_ERR_INVALID_ARGUMENT, "the data '%s' of buffer '%s' is not defined here",
                              data->u.var.name, b->u.buf.name);
  *out = &in->regions.data[r];
  return PSG_OK;
}

/* The flat element offsets of an access: for each index lane, elem_offset +
 * sum(index_k * stride_k), computed without overflow. The strides and the
 * offset are evaluated first (they may be expressions of bound vars), into
 * in->ints: [strides..., offsets per lane...]. */
static psg_status flat_offsets(psgi_tir_interp *in, const psg_tir_node *at, const psg_tir_node *b, size_t vidx,
                               size_t nidx, size_t lanes) {
  size_t ndim = b->u.buf.ndim;
  if (nidx != ndim)
    return psgi_tir_eval_fail(in, at, PSG_ERR_INVALID_ARGUMENT, "%zu indices for buffer '%s' of rank %zu", nidx,
                              b->u.buf.name, ndim);
  in->ints.len = 0;
  if (!PSGI_VEC_RESERVE(in->ctx, &in->ints, ndim + 1 + lanes)) return psgi_nomem(in->ctx);
  psg_tir_node *const *shape = b->kids + 2, *const *strides = b->kids + 2 + ndim;
  int64_t base;
  psg_status st = psgi_tir_eval_int(in, b->kids[1], &base);
  for (size_t k = ndim; !st && k-- > 0;) {
    int64_t s = 0;
    if (b->u.buf.nstrides) {
      st = psgi_tir_eval_int(in, strides[k], &s);
    } else if (k == ndim - 1) {
      s = 1;
    } else {
      int64_t dim;
      st = psgi_tir_eval_int(in, shape[k + 1], &dim);
      if (!st && __builtin_mul_overflow(in->ints.data[k + 1], dim, &s))
        st = psgi_tir_eval_fail(in, at, PSG_ERR_INVALID_ARGUMENT, "the size of buffer '%s' overflows int64",
                                b->u.buf.name);
    }
    in->ints.data[k] = s;
  }
  if (st) return st;
  int64_t *offs = in->ints.data + ndim;
  for (size_t l = 0; l < lanes; l++) {
    int64_t flat = base;
    bool ovf = false;
    for (size_t k = 0; k < ndim; k++) {
      psgi_tir_value *v = &in->vals.data[vidx + k];
      psgi_tir_lane x = in->lanes.data[v->off + (psg_tir_dtype_lanes(v->dtype) == 1 ? 0 : l)];
      int64_t term;
      ovf |= __builtin_mul_overflow(x.i, in->ints.data[k], &term) || __builtin_add_overflow(flat, term, &flat);
    }
    offs[l] = ovf ? -1 : flat;
  }
  return PSG_OK;
}

/* "[3, 17]": the indices of lane l. */
static void index_str(psgi_tir_interp *in, size_t vidx, size_t nidx, size_t l, char *buf, size_t size) {
  size_t len = 0;
  buf[len++] = '[';
  for (size_t k = 0; k < nidx && len + 24 < size; k++) {
    psgi_tir_value *v = &in->vals.data[vidx + k];
    psgi_tir_lane x = in->lanes.data[v->off + (psg_tir_dtype_lanes(v->dtype) == 1 ? 0 : l)];
    len += (size_t)snprintf(buf + len, size - len, "%s%lld", k ? ", " : "", (long long)x.i);
  }
  snprintf(buf + len, size - len, "]");
}

/* The byte address of element lane l, or an out-of-bounds error. */
static psg_status element_at(psgi_tir_interp *in, const psg_tir_node *at, const psg_tir_node *b,
                             psgi_tir_region *r, size_t vidx, size_t nidx, size_t l, uint8_t **out) {
  int64_t flat = in->ints.data[nidx + l];
  size_t esize = psgi_tir_scalar_bytes(b->dtype) * (size_t)psg_tir_dtype_lanes(b->dtype);
  if (flat >= 0 && (uint64_t)flat < r->nbytes / esize) {
    *out = r->bytes + (size_t)flat * esize;
    return PSG_OK;
  }
  char idx[256];
  index_str(in, vidx, nidx, l, idx, sizeof idx);
  return psgi_tir_eval_fail(in, at, PSG_ERR_INVALID_ARGUMENT,
                            "index %s of buffer '%s' is out of bounds (element %lld; its memory '%s' holds %zu)", idx,
                            b->u.buf.name, (long long)flat, r->var ? r->var->u.var.name : "?", r->nbytes / esize);
}

/* The lanes of the index values (all of them equal, or 1). */
static size_t index_lanes(psgi_tir_interp *in, size_t vidx, size_t nidx) {
  size_t lanes = 1;
  for (size_t k = 0; k < nidx; k++) {
    size_t l = (size_t)psg_tir_dtype_lanes(in->vals.data[vidx + k].dtype);
    if (l > lanes) lanes = l;
  }
  return lanes;
}

psg_status psgi_tir_buffer_load(psgi_tir_interp *in, const psg_tir_node *n) {
  const psg_tir_node *b = n->kids[0];
  bool pred = n->flags & PSGI_TIR_HAS_PRED;
  size_t nidx = psgi_tir_num_indices(n), nvals = nidx + pred, vidx = in->vals.len - nvals;
  size_t lanes = index_lanes(in, vidx, nidx), blanes = (size_t)psg_tir_dtype_lanes(b->dtype);
  psgi_tir_region *r = NULL;
  psg_status st = buffer_region(in, n, b, &r);
  if (!st) st = flat_offsets(in, n, b, vidx, nidx, lanes);
  if (st) return st;
  size_t total = (size_t)psg_tir_dtype_lanes(n->dtype);
  if (total != lanes * blanes)
    return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "the indices give %zu lanes, the load has %zu",
                              lanes * blanes, total);
  if (!PSGI_VEC_RESERVE(in->ctx, &in->tmp, total)) return psgi_nomem(in->ctx);
  psgi_tir_value *pv = pred ? &in->vals.data[in->vals.len - 1] : NULL;
  size_t ssize = psgi_tir_scalar_bytes(b->dtype);
  for (size_t l = 0; l < lanes; l++) {
    uint8_t *p = NULL;
    for (size_t j = 0; j < blanes; j++) {
      size_t lane = l * blanes + j;
      bool on = !pv || in->lanes.data[pv->off + (psg_tir_dtype_lanes(pv->dtype) == 1 ? 0 : lane)].u;
      in->tmp.data[lane].u = 0;
      if (!on) continue; /* a masked lane reads nothing */
      if (!p && (st = element_at(in, n, b, r, vidx, nidx, l, &p))) return st;
      in->tmp.data[lane] = psgi_tir_load_lane(b->dtype, p + j * ssize);
    }
  }
  for (size_t i = 0; i < nvals; i++) psgi_tir_pop(in);
  psgi_tir_value v = {n->dtype, in->lanes.len};
  if (!PSGI_VEC_RESERVE(in->ctx, &in->lanes, in->lanes.len + total) || !PSGI_VEC_PUSH(in->ctx, &in->vals, v))
    return psgi_nomem(in->ctx);
  memcpy(in->lanes.data + v.off, in->tmp.data, sizeof *in->tmp.data * total);
  in->lanes.len += total;
  return PSG_OK;
}

/* A BufferStore with its value, indices and predicate on the stack. */
static psg_status buffer_store(psgi_tir_interp *in, const psg_tir_node *n) {
  const psg_tir_node *b = n->kids[0];
  bool pred = n->flags & PSGI_TIR_HAS_PRED;
  size_t nidx = psgi_tir_num_indices(n), nvals = 1 + nidx + pred, vbase = in->vals.len - nvals;
  size_t lanes = index_lanes(in, vbase + 1, nidx), blanes = (size_t)psg_tir_dtype_lanes(b->dtype);
  psgi_tir_region *r = NULL;
  psg_status st = buffer_region(in, n, b, &r);
  if (!st) st = flat_offsets(in, n, b, vbase + 1, nidx, lanes);
  if (st) return st;
  psgi_tir_value val = in->vals.data[vbase];
  size_t vlanes = (size_t)psg_tir_dtype_lanes(val.dtype);
  if (vlanes != lanes * blanes)
    return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "the indices give %zu lanes, the value has %zu",
                              lanes * blanes, vlanes);
  psgi_tir_value *pv = pred ? &in->vals.data[in->vals.len - 1] : NULL;
  size_t ssize = psgi_tir_scalar_bytes(b->dtype);
  for (size_t l = 0; l < lanes; l++) {
    uint8_t *p = NULL;
    for (size_t j = 0; j < blanes; j++) {
      size_t lane = l * blanes + j;
      if (pv && !in->lanes.data[pv->off + (psg_tir_dtype_lanes(pv->dtype) == 1 ? 0 : lane)].u) continue;
      if (!p && (st = element_at(in, n, b, r, vbase + 1, nidx, l, &p))) return st;
      psgi_tir_store_lane(b->dtype, p + j * ssize, in->lanes.data[val.off + lane]);
    }
  }
  for (size_t i = 0; i < nvals; i++) psgi_tir_pop(in);
  return PSG_OK;
}

/* Statements ---------------------------------------------------------------- */
typedef struct sframe {
  const psg_tir_node *n;
  uint32_t state;
  size_t aux;       /* SeqStmt: next statement; For: its binding; Allocate: its bytes */
  int64_t i, end;   /* For: the loop counter and its end */
} sframe;
typedef PSGI_VEC(sframe) sframe_vec;

static psg_status push_stmt(psgi_tir_interp *in, sframe_vec *s, const psg_tir_node *n) {
  sframe f = {n, 0, 0, 0, 0};
  return PSGI_VEC_PUSH(in->ctx, s, f) ? PSG_OK : psgi_nomem(in->ctx);
}

psg_status psgi_tir_take_step(psgi_tir_interp *in, const psg_tir_node *n) {
  if (in->max_steps && ++in->steps > in->max_steps)
    return psgi_tir_eval_fail(in, n, PSG_ERR_UNSUPPORTED,
                              "more than %llu loop iterations (the limit passage.interp.max_steps)",
                              (unsigned long long)in->max_steps);
  return PSG_OK;
}

/* A scalar bool condition. */
psg_status psgi_tir_eval_cond(psgi_tir_interp *in, const psg_tir_node *e, bool *out) {
  psg_status st = psgi_tir_eval_expr(in, e);
  if (st) return st;
  psgi_tir_value v = *psgi_tir_top(in);
  *out = in->lanes.data[v.off].u != 0;
  psgi_tir_pop(in);
  if (psg_tir_dtype_lanes(v.dtype) != 1)
    return psgi_tir_eval_fail(in, e, PSG_ERR_INVALID_ARGUMENT, "a condition must be a scalar");
  return PSG_OK;
}

/* The thread index an AttrStmt launches ("thread_extent" or
 * "virtual_thread" over an IterVar or a Var), or NULL. */
const psg_tir_node *psgi_tir_launched_thread(const psg_tir_node *n) {
  const psg_tir_node *node = n->nkids == 3 ? n->kids[2] : NULL;
  if (!node || (strcmp(n->u.attr_key, "thread_extent") && strcmp(n->u.attr_key, "virtual_thread"))) return NULL;
  if (node->kind == PSG_TIR_ITER_VAR) node = node->kids[0];
  return psgi_tir_is_var_kind(node->kind) ? node : NULL;
}

/* A For, or a thread launch run as a serial loop of its index over
 * [0, value) (docs/tir.md: the interpreter has one thread). */
static psg_status exec_for(psgi_tir_interp *in, sframe_vec *s) {
  sframe *f = &s->data[s->len - 1];
  const psg_tir_node *n = f->n;
  bool loop = n->kind == PSG_TIR_FOR;
  const psg_tir_node *var = loop ? n->kids[0] : psgi_tir_launched_thread(n), *body = n->kids[loop ? 3 : 1];
  psg_status st;
  if (f->state == 0) {
    int64_t min = 0, extent;
    if ((loop && (st = psgi_tir_eval_int(in, n->kids[1], &min))) ||
        (st = psgi_tir_eval_int(in, n->kids[loop ? 2 : 0], &extent)))
      return st;
    if (extent <= 0) {
      s->len--;
      return PSG_OK;
    }
    if (__builtin_add_overflow(min, extent, &f->end))
      return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "min + extent overflows int64");
    f->i = min;
    psgi_tir_lane x = {.i = psgi_tir_wrap(var->dtype, (uint64_t)min)};
    if ((st = psgi_tir_bind(in, var, var->dtype, &x))) return st;
    f->aux = in->binds.len - 1;
    f->state = 1;
  } else if (++f->i < f->end) {
    psgi_tir_binding *b = &in->binds.data[f->aux];
    in->bind_lanes.data[b->off].i = in->slot_val.data[b->slot].i = psgi_tir_wrap(var->dtype, (uint64_t)f->i);
  } else {
    psgi_tir_unbind(in);
    s->len--;
    return PSG_OK;
  }
  if ((st = psgi_tir_take_step(in, n))) return st;
  return push_stmt(in, s, body);
}

psg_status psgi_tir_alloc_enter(psgi_tir_interp *in, const psg_tir_node *n, size_t *out) {
  const psg_tir_node *var = n->kids[0];
  uint64_t bytes = psgi_tir_scalar_bytes(n->dtype) * (uint64_t)psg_tir_dtype_lanes(n->dtype);
  psg_status st;
  for (size_t k = 3; k < n->nkids; k++) {
    int64_t e;
    if ((st = psgi_tir_eval_int(in, n->kids[k], &e))) return st;
    if (e < 0) return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "negative extent %lld", (long long)e);
    if (__builtin_mul_overflow(bytes, (uint64_t)e, &bytes) || bytes > SIZE_MAX / 2)
      return psgi_tir_eval_fail(in, n, PSG_ERR_UNSUPPORTED, "the allocation of '%s' is too large",
                                var->u.var.name);
  }
  bool cond;
  if ((st = psgi_tir_eval_cond(in, n->kids[1], &cond))) return st;
  if (!cond) bytes = 0; /* not allocated: every access is out of bounds */
  if (in->max_bytes && bytes > in->max_bytes - in->used_bytes)
    return psgi_tir_eval_fail(in, n, PSG_ERR_UNSUPPORTED,
                              "allocating %llu bytes for '%s' exceeds passage.interp.max_bytes (%llu, %llu in use)",
                              (unsigned long long)bytes, var->u.var.name, (unsigned long long)in->max_bytes,
                              (unsigned long long)in->used_bytes);
  psgi_tir_region r = {bytes ? psgi_calloc(in->ctx, (size_t)bytes) : NULL, (size_t)bytes, var};
  if ((bytes && !r.bytes) || !PSGI_VEC_PUSH(in->ctx, &in->regions, r)) {
    psgi_free(in->ctx, r.bytes);
    return psgi_nomem(in->ctx);
  }
  psgi_tir_lane h = {.u = in->regions.len - 1};
  if ((st = psgi_tir_bind(in, var, var->dtype, &h))) {
    psgi_free(in->ctx, in->regions.data[--in->regions.len].bytes);
    return st;
  }
  *out = (size_t)bytes;
  in->used_bytes += bytes;
  return PSG_OK;
}

void psgi_tir_alloc_exit(psgi_tir_interp *in, size_t bytes) {
  psgi_tir_unbind(in);
  psgi_free(in->ctx, in->regions.data[--in->regions.len].bytes);
  in->used_bytes -= bytes;
}

static psg_status exec_allocate(psgi_tir_interp *in, sframe_vec *s) {
  sframe *f = &s->data[s->len - 1];
  if (f->state == 1) { /* the body is done: free the memory */
    psgi_tir_alloc_exit(in, f->aux);
    s->len--;
    return PSG_OK;
  }
  size_t bytes;
  psg_status st = psgi_tir_alloc_enter(in, f->n, &bytes);
  if (st) return st;
  f->aux = bytes;
  f->state = 1;
  return push_stmt(in, s, f->n->kids[2]);
}

/* The message of a failing AssertStmt. */
static psg_status assert_failed(psgi_tir_interp *in, const psg_tir_node *n) {
  const psg_tir_node *m = n->kids[1];
  if (m->kind == PSG_TIR_STRING_IMM)
    return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "%.*s", (int)(m->u.str.len > 512 ? 512 : m->u.str.len),
                              m->u.str.s);
  return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "assertion failed");
}

/* One step of the statement on top of s. */
static psg_status exec_step(psgi_tir_interp *in, sframe_vec *s) {
  sframe *f = &s->data[s->len - 1];
  const psg_tir_node *n = f->n;
  psg_status st;
  bool c;
  switch (n->kind) {
    case PSG_TIR_FOR: return exec_for(in, s);
    case PSG_TIR_ALLOCATE: return exec_allocate(in, s);
    case PSG_TIR_BUFFER_STORE:
      s->len--;
      for (size_t k = 1; k < n->nkids; k++) /* value, indices, predicate */
        if ((st = psgi_tir_eval_expr(in, n->kids[k]))) return st;
      return buffer_store(in, n);
    case PSG_TIR_IF_THEN_ELSE:
      s->len--;
      if ((st = psgi_tir_eval_cond(in, n->kids[0], &c))) return st;
      if (c) return push_stmt(in, s, n->kids[1]);
      return n->nkids > 2 ? push_stmt(in, s, n->kids[2]) : PSG_OK;
    case PSG_TIR_EVALUATE:
      s->len--;
      if ((st = psgi_tir_eval_expr(in, n->kids[0]))) return st;
      psgi_tir_pop(in);
      return PSG_OK;
    case PSG_TIR_LET_STMT:
      if (f->state == 1) {
        psgi_tir_unbind(in);
        s->len--;
        return PSG_OK;
      }
      f->state = 1;
      if ((st = psgi_tir_eval_expr(in, n->kids[1]))) return st;
      st = psgi_tir_bind(in, n->kids[0], psgi_tir_top(in)->dtype, psgi_tir_top_lanes(in));
      psgi_tir_pop(in);
      return st ? st : push_stmt(in, s, n->kids[2]);
    case PSG_TIR_SEQ_STMT:
      if (f->aux == n->nkids) {
        s->len--;
        return PSG_OK;
      }
      return push_stmt(in, s, n->kids[f->aux++]);
    case PSG_TIR_ATTR_STMT: /* value, body: a hint, or a thread launch */
      if (psgi_tir_launched_thread(n)) return exec_for(in, s);
      /* fall through */
    case PSG_TIR_DECL_BUFFER: /* buffer, body */
      s->len--;
      return push_stmt(in, s, n->kids[1]);
    case PSG_TIR_ASSERT_STMT:
      s->len--;
      if ((st = psgi_tir_eval_cond(in, n->kids[0], &c))) return st;
      return c ? push_stmt(in, s, n->kids[2]) : assert_failed(in, n);
    case PSG_TIR_WHILE:
      if ((st = psgi_tir_eval_cond(in, n->kids[0], &c))) return st;
      if (!c) {
        s->len--;
        return PSG_OK;
      }
      if ((st = psgi_tir_take_step(in, n))) return st;
      return push_stmt(in, s, n->kids[1]);
    default: return psgi_tir_eval_fail(in, n, PSG_ERR_INVALID_ARGUMENT, "not a statement");
  }
}

psg_status psgi_tir_exec_generic(psgi_tir_interp *in, const psg_tir_node *body) {
  sframe_vec s = {0};
  psg_status st = push_stmt(in, &s, body);
  while (!st && s.len) st = exec_step(in, &s);
  PSGI_VEC_FREE(in->ctx, &s);
  return st;
}

/* Parameters ----------------------------------------------------------------- */

/* Binds `e` (a buffer's shape, stride or offset entry) to `value` when it is
 * an unbound Var; otherwise checks that it evaluates to `value`. */
static psg_status bind_or_check(psgi_tir_interp *in, const psg_tir_node *e, int64_t value, size_t param,
                                const char *what, size_t k, const char *bname) {
  if (psgi_tir_is_var_kind(e->kind) && !psgi_tir_lookup(in, e)) {
    psgi_tir_lane x = {.i = psgi_tir_wrap(e->dtype, (uint64_t)value)};
    return psgi_tir_bind(in, e, e->dtype, &x);
  }
  int64_t have;
  psg_status st = psgi_tir_eval_int(in, e, &have);
  if (st) return st;
  if (have != value)
    return psgi_tir_eval_fail(in, e, PSG_ERR_INVALID_ARGUMENT,
                              "argument %zu: %s %zu of buffer '%s' is %lld, the tensor gives %lld", param, what, k,
                              bname, (long long)have, (long long)value);
  return PSG_OK;
}

static psg_status bind_buffer_param(psgi_tir_interp *in, const psg_tir_node *param, const psg_tir_node *b,
                                    const psg_tensor *t, size_t i) {
  psgi_tir_dtype_name_buf nb;
  int want = psg_tir_dtype_to_tensor(b->dtype);
  if (want == PSG_DTYPE_INVALID || psg_tensor_dtype(t) != want)
    return psgi_tir_eval_fail(in, b, PSG_ERR_INVALID_ARGUMENT, "argument %zu: buffer '%s' has dtype %s, the tensor %s",
                              i, b->u.buf.name, psgi_tir_dtype_name(b->dtype, &nb),
                              psg_dtype_name(psg_tensor_dtype(t)));
  size_t ndim = b->u.buf.ndim;
  if ((size_t)psg_tensor_ndim(t) != ndim)
    return psgi_tir_eval_fail(in, b, PSG_ERR_INVALID_ARGUMENT, "argument %zu: buffer '%s' has rank %zu, the tensor %d",
                              i, b->u.buf.name, ndim, psg_tensor_ndim(t));
  size_t nbytes = psg_tensor_nbytes(t);
  psgi_tir_region r = {nbytes ? psgi_alloc(in->ctx, nbytes) : NULL, nbytes, b->kids[0]};
  if ((nbytes && !r.bytes) || !PSGI_VEC_PUSH(in->ctx, &in->regions, r)) {
    psgi_free(in->ctx, r.bytes);
    return psgi_nomem(in->ctx);
  }
  if (nbytes) memcpy(r.bytes, psg_tensor_data(t), nbytes);
  psgi_tir_lane h = {.u = in->regions.len - 1};
  psg_status st = psgi_tir_bind(in, param, param->dtype, &h);
  if (!st && !psgi_tir_lookup(in, b->kids[0])) st = psgi_tir_bind(in, b->kids[0], b->kids[0]->dtype, &h);
  for (size_t k = 0; !st && k < ndim; k++)
    st = bind_or_check(in, b->kids[2 + k], psg_tensor_dim(t, (int)k), i, "dim", k, b->u.buf.name);
  if (!st && psgi_tir_is_var_kind(b->kids[1]->kind)) st = bind_or_check(in, b->kids[1], 0, i, "elem_offset", 0, b->u.buf.name);
  int64_t stride = 1;
  for (size_t k = b->u.buf.nstrides; !st && k-- > 0;) {
    const psg_tir_node *se = b->kids[2 + ndim + k];
    if (psgi_tir_is_var_kind(se->kind)) st = bind_or_check(in, se, stride, i, "stride", k, b->u.buf.name);
    stride *= psg_tensor_dim(t, (int)k);
  }
  return st;
}

static psg_status bind_scalar_param(psgi_tir_interp *in, const psg_tir_node *param, const psg_tensor *t, size_t i) {
  psgi_tir_dtype_name_buf nb;
  int want = psg_tir_dtype_to_tensor(param->dtype);
  if (want == PSG_DTYPE_INVALID)
    return psgi_tir_eval_fail(in, param, PSG_ERR_UNSUPPORTED,
                              "argument %zu: parameter '%s' of dtype %s has no buffer; the interpreter cannot bind it",
                              i, param->u.var.name, psgi_tir_dtype_name(param->dtype, &nb));
  if (psg_tensor_dtype(t) != want || psg_tensor_ndim(t) != 0)
    return psgi_tir_eval_fail(in, param, PSG_ERR_INVALID_ARGUMENT,
                              "argument %zu: parameter '%s' takes a scalar %s, given a rank-%d %s tensor", i,
                              param->u.var.name, psgi_tir_dtype_name(param->dtype, &nb), psg_tensor_ndim(t),
                              psg_dtype_name(psg_tensor_dtype(t)));
  psgi_tir_lane x = psgi_tir_load_lane(param->dtype, psg_tensor_data(t));
  return psgi_tir_bind(in, param, param->dtype, &x);
}

static psg_status make_outputs(psgi_tir_interp *in, const psg_tir_node *func, psg_tensor *const *args, size_t nargs,
                               psg_tensor ***outputs) {
  psg_tensor **outs = psgi_result_alloc(nargs * sizeof *outs);
  if (!outs) return psgi_nomem(in->ctx);
  memset(outs, 0, nargs * sizeof *outs);
  for (size_t i = 0; i < nargs; i++) {
    const psg_tir_node *p = func->kids[1 + i];
    psgi_tir_binding *bd = psg_tir_prim_func_get_param_buffer(func, p) ? psgi_tir_lookup(in, p) : NULL;
    if (!bd) {
      psg_tensor_retain(args[i]);
      outs[i] = args[i];
      continue;
    }
    const psg_tensor *t = args[i];
    int64_t shape[64];
    int ndim = psg_tensor_ndim(t);
    int64_t *dims = ndim <= 64 ? shape : psgi_alloc(in->ctx, sizeof *dims * (size_t)ndim);
    psg_status st = dims ? PSG_OK : psgi_nomem(in->ctx);
    for (int k = 0; !st && k < ndim; k++) dims[k] = psg_tensor_dim(t, k);
    if (!st)
      st = psg_tensor_create(in->ctx, psg_tensor_dtype(t), dims, ndim,
                             in->regions.data[in->bind_lanes.data[bd->off].u].bytes, &outs[i]);
    if (dims != shape) psgi_free(in->ctx, dims);
    if (st) {
      for (size_t j = 0; j < i; j++) psg_tensor_release(outs[j]);
      psg_free(outs);
      return st;
    }
  }
  *outputs = outs;
  return PSG_OK;
}

psg_status psgi_tir_eval_limited(psg_ctx *ctx, const psg_tir_prim_func *func, psg_tensor *const *args, size_t nargs,
                                 const psgi_tir_eval_limits *limits, psg_tensor ***outputs) {
  *outputs = NULL;
  if (!func || func->kind != PSG_TIR_PRIM_FUNC)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "psg_tir_eval: not a PrimFunc");
  psgi_tir_interp in;
  memset(&in, 0, sizeof in);
  in.ctx = ctx;
  in.max_bytes = limits->max_bytes;
  in.max_steps = limits->max_steps;
  psgi_map_init(&in.vars, ctx);
  psg_status st = PSG_OK;
  size_t nparams = func->u.func.nparams;
  psgi_tir_region none = {NULL, 0, NULL};
  if (nargs != nparams)
    st = psgi_tir_eval_fail(&in, func, PSG_ERR_INVALID_ARGUMENT, "the function takes %zu arguments, given %zu",
                            nparams, nargs);
  else if (!PSGI_VEC_PUSH(ctx, &in.regions, none))
    st = psgi_nomem(ctx);
  for (size_t i = 0; !st && i < nparams; i++) {
    const psg_tir_node *p = func->kids[1 + i], *b = psg_tir_prim_func_get_param_buffer(func, p);
    if (!args[i])
      st = psgi_tir_eval_fail(&in, p, PSG_ERR_INVALID_ARGUMENT, "argument %zu is NULL", i);
    else
      st = b ? bind_buffer_param(&in, p, b, args[i], i) : bind_scalar_param(&in, p, args[i], i);
  }
  if (!st) st = psgi_tir_exec(&in, func->kids[0]);
  if (!st) st = make_outputs(&in, func, args, nargs, outputs);
  for (size_t i = 0; i < in.regions.len; i++) psgi_free(ctx, in.regions.data[i].bytes);
  PSGI_VEC_FREE(ctx, &in.regions);
  PSGI_VEC_FREE(ctx, &in.binds);
  PSGI_VEC_FREE(ctx, &in.bind_lanes);
  PSGI_VEC_FREE(ctx, &in.lanes);
  PSGI_VEC_FREE(ctx, &in.vals);
  PSGI_VEC_FREE(ctx, &in.eframes);
  PSGI_VEC_FREE(ctx, &in.tmp);
  PSGI_VEC_FREE(ctx, &in.ints);
  PSGI_VEC_FREE(ctx, &in.fstack);
  PSGI_VEC_FREE(ctx, &in.slot_bind);
  PSGI_VEC_FREE(ctx, &in.slot_val);
  PSGI_VEC_FREE(ctx, &in.slot_dtype);
  psgi_map_fini(&in.vars);
  return st;
}
