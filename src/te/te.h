/* Passage — the tensor-expression layer (issue 16 item 1; TVM's te in
 * spirit): a placeholder per input, and per op a compute definition, an
 * output shape plus an index -> value function (a body PrimExpr over axis
 * Vars that reads its inputs through BufferLoad), with reductions (a
 * combiner, an init value and reduce axes). Each compute becomes one stage:
 * a naive loop nest writing one buffer, in TVM v0.19's legacy-TE lowered
 * form (te_builder.c). docs/te.md. */
#ifndef PSG_TE_H
#define PSG_TE_H

#include "passage/te.h"
#include "passage/tir_op.h"
#include "ops/op_impl.h"
#include "support/support.h"

/* A tensor of the lowering: a placeholder (an input of the PrimFunc), the
 * output of a stage, or an inline scalar (a scalar Relay constant: reading
 * it at any index gives `scalar`). */
typedef struct psgi_te_tensor {
  psg_tir_buffer *buf;  /* NULL for an inline scalar */
  psg_tir_expr *scalar; /* inline scalars only */
  int ndim;
  int64_t shape[PSG_MAX_RANK];
  int dtype;            /* PSG_DTYPE_* */
  psg_tir_dtype tdtype;
  int stage;            /* index of the stage writing it, -1 for a placeholder */
} psgi_te_tensor;

/* Reduction combiners (TVM's CommReducer for sum, max, min, prod). */
enum { PSGI_TE_NONE = 0, PSGI_TE_SUM, PSGI_TE_MAX, PSGI_TE_MIN, PSGI_TE_PROD };

/* One stage: the tensor it writes and the Relay op it came from. */
typedef struct psgi_te_stage {
  psgi_te_tensor *out;
  const char *op_name; /* interned Relay op name */
  int pattern;         /* the op's TOpPattern */
  psg_tir_stmt *nest;  /* owned */
} psgi_te_stage;

/* The state of one lowering. Expression helpers below return borrowed
 * nodes owned by the builder (released by psgi_te_builder_fini) and have a
 * sticky status: after the first failure they do nothing and return NULL,
 * and they accept NULL operands, so a compute definition builds its body
 * without checking each step and returns psgi_te_status(b) at the end. */
typedef struct psgi_te_builder {
  psg_ctx *ctx;
  psg_status status;
  psgi_arena arena;
  PSGI_VEC(psg_tir_node *) pool;     /* every node a helper made */
  PSGI_VEC(psgi_te_stage) stages;
  psgi_map names;                    /* buffer names in use */
  const char *op_name;               /* the op being lowered (stage tags) */
  int pattern;
} psgi_te_builder;

void psgi_te_builder_init(psgi_te_builder *b, psg_ctx *ctx);
void psgi_te_builder_fini(psgi_te_builder *b);
/* Records a failure (the first one wins) with a diagnostic; returns it. */
psg_status psgi_te_fail(psgi_te_builder *b, psg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline psg_status psgi_te_status(const psgi_te_builder *b) { return b->status; }

/* A placeholder buffer `name` of a tensor type; NULL on failure. */
psgi_te_tensor *psgi_te_placeholder(psgi_te_builder *b, const char *name, const psg_type *type);
/* An inline scalar tensor of dtype `dtype` holding `value`. */
psgi_te_tensor *psgi_te_inline_scalar(psgi_te_builder *b, int dtype, psg_tir_expr *value);

/* Expressions ---------------------------------------------------------------- */
psg_tir_dtype psgi_te_tir_dtype(int dtype);
psg_tir_expr *psgi_te_int(psgi_te_builder *b, int64_t v);                 /* int32 */
psg_tir_expr *psgi_te_const(psgi_te_builder *b, int dtype, double v);    /* of a tensor dtype */
/* TVM's min_value / max_value of a dtype (the identity of max / min). */
psg_tir_expr *psgi_te_min_value(psgi_te_builder *b, int dtype);
psg_tir_expr *psgi_te_max_value(psgi_te_builder *b, int dtype);
psg_tir_expr *psgi_te_bin(psgi_te_builder *b, int kind, psg_tir_expr *x, psg_tir_expr *y);
psg_tir_expr *psgi_te_not(psgi_te_builder *b, psg_tir_expr *x);
psg_tir_expr *psgi_te_neg(psgi_te_builder *b, psg_tir_expr *x);
psg_tir_expr *psgi_te_cast(psgi_te_builder *b, int dtype, psg_tir_expr *x);
psg_tir_expr *psgi_te_select(psgi_te_builder *b, psg_tir_expr *c, psg_tir_expr *t, psg_tir_expr *f);
/* tir.if_then_else: only the taken branch is evaluated (guarded loads). */
psg_tir_expr *psgi_te_if(psgi_te_builder *b, psg_tir_expr *c, psg_tir_expr *t, psg_tir_expr *f);
/* A builtin math call ("tir.exp", ...) of one or two args of x's dtype. */
psg_tir_expr *psgi_te_math(psgi_te_builder *b, const char *op, psg_tir_expr *x, psg_tir_expr *y);
/* A builtin predicate ("tir.isnan") of x: a bool. */
psg_tir_expr *psgi_te_math_pred(psgi_te_builder *b, const char *op, psg_tir_expr *x);
/* t[idx...] (idx has t->ndim entries; an inline scalar ignores them). */
psg_tir_expr *psgi_te_load(psgi_te_builder *b, const psgi_te_tensor *t, psg_tir_expr *const *idx);
/* A fresh int32 loop var. */
psg_tir_expr *psgi_te_var(psgi_te_builder *b, const char *name);

/* Stages --------------------------------------------------------------------- */
/* The reduction of a compute: combiner, init value and reduce axes. */
typedef struct psgi_te_reduce {
  int combiner;                       /* PSGI_TE_* (NONE: not a reduction) */
  psg_tir_expr *init;                 /* NULL: the combiner's identity */
  int naxes;
  psg_tir_expr *axes[PSG_MAX_RANK];   /* from psgi_te_var */
  int64_t extents[PSG_MAX_RANK];
} psgi_te_reduce;

/* Fresh spatial axis vars ax0..ax{n-1} for a stage of rank n. */
void psgi_te_axes(psgi_te_builder *b, int n, psg_tir_expr **axes);
/* Defines a stage `name` (made unique) writing a new tensor of `dtype` and
 * `shape` with out[axes] = body, or, with a reduction r, out[axes] = init
 * then out[axes] = combine(out[axes], body) over r's axes. The stage is
 * tagged with the builder's current op. NULL on failure. */
psgi_te_tensor *psgi_te_compute(psgi_te_builder *b, const char *name, int dtype, int ndim,
                                const int64_t *shape, psg_tir_expr *const *axes, psg_tir_expr *body,
                                const psgi_te_reduce *r);
/* Adds reduce axis `name` of `extent` to r; its var, or NULL. */
psg_tir_expr *psgi_te_reduce_axis(psgi_te_builder *b, psgi_te_reduce *r, const char *name, int64_t extent);

/* Assembles the PrimFunc: `inputs` and `outputs` are the flattened
 * placeholders and output tensors (each output written by its own stage);
 * the stages that write no output get Allocate'd buffers. */
psg_status psgi_te_build_func(psgi_te_builder *b, psgi_te_tensor *const *inputs, size_t nin,
                              psgi_te_tensor *const *outputs, size_t nout, const char *name,
                              psg_tir_prim_func **out);

/* Compute definitions (te_ops.def) ------------------------------------------ */
/* What a compute definition gets: the Relay call's attrs and checked type,
 * its tensor arguments (a tuple argument flattened into args, with
 * tuple_len set), and where its result tensors go (several for an op with a
 * tuple result, e.g. split). */
typedef struct psgi_te_call {
  psgi_te_builder *b;
  const char *op;
  const psg_attrs *attrs;
  const psg_type *out_type;
  psgi_te_tensor *const *args;
  size_t nargs;
  psgi_te_tensor *outs[64];
  size_t nouts;
} psgi_te_call;
typedef psg_status (*psgi_te_compute_fn)(psgi_te_call *c);

/* The compute of Relay op `name`, or NULL. */
psgi_te_compute_fn psgi_te_find_compute(const char *name);

/* Shared helpers of the compute files. */
/* "T_" + the op name without its namespace, in buf. */
const char *psgi_te_stage_name(psgi_te_call *c, char *buf, size_t size);
/* The output tensor type's dims and dtype (c->out_type must be a tensor). */
int psgi_te_out_dims(const psgi_te_call *c, int64_t *dims, int *dtype);
/* Reads `t` at output indices `idx` (of an output of dims odims[ondim])
 * with NumPy broadcasting: t aligned to the right, an extent-1 axis of t
 * against a longer output axis reads index 0 (TOPI's broadcast). */
psg_tir_expr *psgi_te_load_bcast(psgi_te_builder *b, const psgi_te_tensor *t, psg_tir_expr *const *idx,
                                 const int64_t *odims, int ondim);

/* The input indices `in` of `x` that output index `ax` (of dims[nd]) reads
 * when both hold the same elements in row-major order (reshape). */
void psgi_te_reshape_index(psgi_te_builder *b, const psgi_te_tensor *x, psg_tir_expr *const *ax, const int64_t *dims,
                           int nd, psg_tir_expr **in);
/* The axes an op with TVM's axis / exclude attributes reduces (axis None:
 * all) into red[]; nonzero (with the builder's status set) on a bad axis. */
int psgi_te_reduced_axes(psgi_te_call *c, int ndim, bool red[PSG_MAX_RANK]);

#define PSGI_TE_COMPUTE(fn) psg_status psgi_te_##fn(psgi_te_call *c)
#define TE(op, fn) PSGI_TE_COMPUTE(fn);
#include "te/te_ops.def"
#undef TE

#endif
