/* Passage — the TIR interpreter's compiled form (tir_eval_compile.c makes
 * it, tir_eval_fast.c runs it): a PrimFunc body as two flat instruction
 * lists, made once per evaluation. Statements (loops, stores, ifs, lets,
 * allocations) jump within `stmts`; each expression they evaluate is a
 * postfix program in `exprs` on a stack of scalar lanes, ending in X_RET.
 * Variables are slots (an array index), buffers carry their strides and
 * elem_offset as constants, float32/int32 arithmetic, loads and stores have
 * their own instructions. Only scalar code of known shape compiles; a
 * statement that does not runs on the generic machine (tir_eval.c).
 *
 * The compiled code never reports an error itself: where anything is off
 * (an unbound var, an out-of-bounds index, a division by zero, a cast that
 * does not fit) it gives up on that expression or store, which then runs on
 * the generic machine with the same bindings and memory. Expressions have
 * no side effects, so that run gives the generic machine's value, or its
 * diagnostic, exactly. */
#ifndef PSG_TIR_EVAL_FAST_H
#define PSG_TIR_EVAL_FAST_H

#include "interp/tir_eval_internal.h"

/* A buffer as compiled: flat element = base + sum(index_k * strides[k]). */
typedef struct psgi_tir_fbuf {
  size_t data_slot;    /* the slot of its data var */
  psg_tir_dtype dtype; /* scalar */
  uint32_t ndim;
  uint8_t shift; /* log2 of the element's bytes */
  uint8_t form;  /* PSGI_TIR_FORM_* */
  int64_t base;
  /* The memory it was last found in, valid while `epoch` is the run's
   * (tir_eval_fast.c moves the epoch on whenever a handle may be rebound). */
  uint64_t epoch;
  uint8_t *bytes;
  uint64_t count; /* elements there */
  int64_t strides[]; /* ndim of them */
} psgi_tir_fbuf;

/* An int32 affine form c + sum(var_i * k_i) (mod 2^32, as the wrapped int32
 * ops it replaces give), for index arithmetic; X_LOAD1_AFF also names the
 * buffer it indexes. */
typedef struct psgi_tir_affine {
  const psgi_tir_fbuf *b;
  uint64_t c;
  uint32_t n;
  struct {
    uint32_t slot;
    uint64_t k;
  } t[];
} psgi_tir_affine;

/* How a buffer's elements are read and written. */
enum { PSGI_TIR_FORM_GENERIC, PSGI_TIR_FORM_F32, PSGI_TIR_FORM_I32 };

/* Instructions. X_*: expression programs; S_*: statements. */
enum {
  X_CONST, X_VAR, X_BIN, X_F32_ADD, X_F32_SUB, X_F32_MUL, X_F32_DIV, X_F32_MIN, X_F32_MAX,
  X_I32_ADD, X_I32_SUB, X_I32_MUL, X_I32_MIN, X_I32_MAX, X_I64_ADD, X_I64_SUB, X_I64_MUL,
  X_I32_MULK, X_AFFINE, X_ADD_AFFINE, X_LOAD1_AFF, /* int32 index arithmetic fused */
  X_ILT, X_ILE, X_IGT, X_IGE, X_IEQ, X_INE,
  X_NOT, X_SELECT, X_CAST, X_LOAD, X_LOAD1, X_MATH1, X_MATH2, X_JZ, X_JZK, X_JNZK, X_JMP, X_POP,
  X_BIND, X_UNBIND, X_RET,
  S_FOR, S_NEXT, S_STORE, S_EVAL, S_IF, S_JMP, S_LET, S_UNBIND, S_ALLOC, S_FREE, S_GENERIC, S_END
};

typedef struct psgi_tir_fop {
  uint8_t op;
  uint8_t kind;         /* X_BIN: the binary kind; X_MATH*: 1 for a predicate */
  uint32_t a;           /* a jump target, a slot, an index count */
  uint32_t x, x2;       /* S_*: the expression programs (start in exprs) */
  psg_tir_dtype t, t2;  /* the result dtype; X_CAST: t2 the source's */
  const psg_tir_node *n; /* the node it came from */
  union {
    psgi_tir_lane k;
    const psgi_tir_fbuf *b;
    const psgi_tir_affine *af;
    psgi_tir_math1 f1;
    psgi_tir_math2 f2;
  } u;
} psgi_tir_fop;

typedef struct psgi_tir_fcode {
  PSGI_VEC(psgi_tir_fop) stmts;
  PSGI_VEC(psgi_tir_fop) exprs;
  size_t max_stack;  /* lanes the deepest expression program needs */
  psgi_arena arena;  /* the fbufs */
} psgi_tir_fcode;

/* Compiles body into *c (initialized here; psgi_tir_fcode_fini frees it).
 * Only PSG_ERR_NOMEM fails. */
psg_status psgi_tir_compile(psgi_tir_interp *in, const psg_tir_node *body, psgi_tir_fcode *c);
void psgi_tir_fcode_fini(psgi_tir_interp *in, psgi_tir_fcode *c);

#endif
