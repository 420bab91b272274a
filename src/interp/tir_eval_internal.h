/* Passage — private interface of the reference TIR interpreter
 * (include/passage/tir_interp.h): the lane arithmetic with TVM's semantics
 * (tir_eval_value.c), the expression machine (tir_eval_expr.c) and the
 * statement machine with buffers and scratch memory (tir_eval.c). */
#ifndef PSG_TIR_EVAL_INTERNAL_H
#define PSG_TIR_EVAL_INTERNAL_H

#include "passage/tir_interp.h"
#include "tir/tir_internal.h"

/* One lane of a value. Integers are kept normalized to their dtype: signed
 * ones sign-extended from their bits, unsigned ones (and bool, 0 or 1)
 * zero-extended, so equal values have equal bits. Floats are kept as double,
 * already rounded to their dtype's precision. A handle lane is the index of
 * a memory region (or 0 for a StringImm, which only calls read). */
typedef union psgi_tir_lane {
  int64_t i;
  uint64_t u;
  double f;
} psgi_tir_lane;

/* Scalar classes of a dtype. */
enum { PSGI_TIR_SINT, PSGI_TIR_UINT, PSGI_TIR_FLOAT, PSGI_TIR_HANDLE };
int psgi_tir_lane_class(psg_tir_dtype t);

/* x wrapped to t's bits (two's complement) and normalized as above. */
int64_t psgi_tir_wrap(psg_tir_dtype t, uint64_t x);
/* x rounded to float dtype t (float16, bfloat16 and float32 round to nearest even). */
double psgi_tir_round_float(psg_tir_dtype t, double x);

/* The arithmetic and comparison kinds (PSG_TIR_ADD .. PSG_TIR_OR) on one lane
 * of dtype t (the operands'). Integer Div/Mod truncate, FloorDiv/FloorMod
 * round toward minus infinity, overflow wraps. Returns false for an integer
 * division by zero. Comparisons and And/Or give 0/1 in out->u. */
bool psgi_tir_binary_lane(int kind, psg_tir_dtype t, psgi_tir_lane a, psgi_tir_lane b, psgi_tir_lane *out);
/* Cast of one lane from `from` to `to`. False when a float does not fit the
 * integer dtype (NaN, infinite or out of range: undefined in TVM's C). */
bool psgi_tir_cast_lane(psg_tir_dtype from, psg_tir_dtype to, psgi_tir_lane x, psgi_tir_lane *out);
/* The raw bits of a lane of t (the memory image), and back. */
uint64_t psgi_tir_lane_bits(psg_tir_dtype t, psgi_tir_lane x);
psgi_tir_lane psgi_tir_lane_from_bits(psg_tir_dtype t, uint64_t bits);
/* Bytes of one scalar of t in memory (bool: 1). */
size_t psgi_tir_scalar_bytes(psg_tir_dtype t);
void psgi_tir_store_lane(psg_tir_dtype t, void *p, psgi_tir_lane x);
psgi_tir_lane psgi_tir_load_lane(psg_tir_dtype t, const void *p);

/* A math intrinsic by name: "exp", "sqrt", ... (the tir.* op without its
 * prefix) or a C libm name ("expf", "sqrt", "powf") of tir.call_extern.
 * *nargs is its arity. False for a name this table does not have. */
typedef double (*psgi_tir_math1)(double);
typedef double (*psgi_tir_math2)(double, double);
bool psgi_tir_math_find(const char *name, int *nargs, psgi_tir_math1 *f1, psgi_tir_math2 *f2,
                        bool *is_pred);

/* The interpreter ------------------------------------------------------------ */
typedef struct psgi_tir_value {
  psg_tir_dtype dtype; /* with its lanes */
  size_t off;          /* first lane in interp.lanes */
} psgi_tir_value;

typedef struct psgi_tir_region {
  uint8_t *bytes;
  size_t nbytes;
  const psg_tir_node *var; /* the data var it was made for */
} psgi_tir_region;

typedef struct psgi_tir_binding {
  const psg_tir_node *var;
  size_t slot;    /* the var's slot (interp.slot_bind) */
  uintptr_t prev; /* the slot's previous binding index + 1 (0: none) */
  psg_tir_dtype dtype;
  size_t off; /* lanes in interp.bind_lanes */
  psgi_tir_lane prev_val;   /* the slot's slot_val and slot_dtype before it */
  psg_tir_dtype prev_dtype;
} psgi_tir_binding;

typedef struct psgi_tir_eframe {
  const psg_tir_node *n;
  uint32_t state;
} psgi_tir_eframe;

typedef struct psgi_tir_interp {
  psg_ctx *ctx;
  psgi_map vars; /* Var -> its slot + 1: vars are resolved to slots once */
  PSGI_VEC(uintptr_t) slot_bind; /* per slot: the current binding index + 1 (0: unbound now) */
  /* Per slot, the current binding's first lane and dtype (0: unbound), so the
   * compiled code reads a scalar var in two independent loads. */
  PSGI_VEC(psgi_tir_lane) slot_val;
  PSGI_VEC(psg_tir_dtype) slot_dtype;
  PSGI_VEC(psgi_tir_binding) binds;
  PSGI_VEC(psgi_tir_lane) bind_lanes;
  PSGI_VEC(psgi_tir_region) regions; /* index 0 is the unused "no region" */
  PSGI_VEC(psgi_tir_lane) lanes;     /* the expression value stack's lanes */
  PSGI_VEC(psgi_tir_value) vals;
  PSGI_VEC(psgi_tir_eframe) eframes;
  PSGI_VEC(psgi_tir_lane) tmp; /* a result being computed */
  PSGI_VEC(int64_t) ints;      /* a buffer access's strides and offsets */
  PSGI_VEC(psgi_tir_lane) fstack; /* the compiled code's value stack (tir_eval_fast.c) */
  uint64_t max_bytes, used_bytes; /* passage.interp.max_bytes: Allocate scratch */
  uint64_t max_steps, steps;      /* passage.interp.max_steps: loop iterations */
} psgi_tir_interp;

/* A located error at node n: "<where>: <Kind>: <message>". Returns code. */
psg_status psgi_tir_eval_fail(psgi_tir_interp *in, const psg_tir_node *n, psg_status code, const char *fmt,
                              ...) __attribute__((format(printf, 4, 5)));

/* Evaluates e; its value is left on top of in->vals (pop it with
 * psgi_tir_pop). */
psg_status psgi_tir_eval_expr(psgi_tir_interp *in, const psg_tir_node *e);
static inline psgi_tir_value *psgi_tir_top(psgi_tir_interp *in) { return &in->vals.data[in->vals.len - 1]; }
static inline psgi_tir_lane *psgi_tir_top_lanes(psgi_tir_interp *in) {
  return in->lanes.data + psgi_tir_top(in)->off;
}
static inline void psgi_tir_pop(psgi_tir_interp *in) {
  in->lanes.len = psgi_tir_top(in)->off;
  in->vals.len--;
}
/* Evaluates a scalar integer expression into *out (an error if e is not one). */
psg_status psgi_tir_eval_int(psgi_tir_interp *in, const psg_tir_node *e, int64_t *out);

/* Binds var to `lanes` (dtype's lane count of them); unbind restores the
 * previous binding of the newest bound var. */
psg_status psgi_tir_bind(psgi_tir_interp *in, const psg_tir_node *var, psg_tir_dtype dtype,
                         const psgi_tir_lane *lanes);
void psgi_tir_unbind(psgi_tir_interp *in);
/* The binding of var, or NULL when it is unbound. */
psgi_tir_binding *psgi_tir_lookup(psgi_tir_interp *in, const psg_tir_node *var);
/* The slot of var (made on first use), or SIZE_MAX on OOM. Compiled code
 * keeps slots, so a variable read is an array index, not a hash lookup. */
size_t psgi_tir_slot(psgi_tir_interp *in, const psg_tir_node *var);
/* psgi_tir_bind by slot. */
psg_status psgi_tir_bind_slot(psgi_tir_interp *in, const psg_tir_node *var, size_t slot, psg_tir_dtype dtype,
                              const psgi_tir_lane *lanes);

/* The limits of one evaluation (0: none). */
typedef struct psgi_tir_eval_limits {
  uint64_t max_bytes; /* passage.interp.max_bytes: Allocate bytes live at once */
  uint64_t max_steps; /* passage.interp.max_steps: loop iterations in all */
} psgi_tir_eval_limits;

/* psg_tir_eval under explicit limits (psg_tir_eval, in src/pass/, reads them
 * from the current PassContext). */
psg_status psgi_tir_eval_limited(psg_ctx *ctx, const psg_tir_prim_func *func, psg_tensor *const *args,
                                 size_t nargs, const psgi_tir_eval_limits *limits, psg_tensor ***outputs);

/* A BufferLoad: the buffer access at the indices on top of the value stack
 * (nidx values, then the predicate if pred) replaced by the loaded value. */
psg_status psgi_tir_buffer_load(psgi_tir_interp *in, const psg_tir_node *load);

/* The statement machine (tir_eval.c), which the compiled code
 * (tir_eval_fast.c) falls back to for what it does not compile ------------- */

/* Runs statement body with the generic machine. */
psg_status psgi_tir_exec_generic(psgi_tir_interp *in, const psg_tir_node *body);
/* Counts one loop iteration of n against passage.interp.max_steps. */
psg_status psgi_tir_take_step(psgi_tir_interp *in, const psg_tir_node *n);
/* A scalar bool condition (generic). */
psg_status psgi_tir_eval_cond(psgi_tir_interp *in, const psg_tir_node *e, bool *out);
/* The thread index an AttrStmt launches, or NULL. */
const psg_tir_node *psgi_tir_launched_thread(const psg_tir_node *n);
/* Allocate n's memory and binds its var (*bytes: what to give back), and
 * frees the newest allocation. */
psg_status psgi_tir_alloc_enter(psgi_tir_interp *in, const psg_tir_node *n, size_t *bytes);
void psgi_tir_alloc_exit(psgi_tir_interp *in, size_t bytes);

/* Runs a PrimFunc body: compiled to a compact instruction list once
 * (variables resolved to slots, buffer strides precomputed, scalar
 * float32/int32 fast paths), what does not compile run by the generic
 * machine; results and diagnostics are the generic machine's. */
psg_status psgi_tir_exec(psgi_tir_interp *in, const psg_tir_node *body);

#endif
