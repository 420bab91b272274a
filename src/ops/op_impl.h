/* Passage — operator behaviour (STYLE rule 8: ops are open and use a table):
 * for each op of the table in ops.def, its type relation, reference kernel,
 * TOpIsStateful flag and TOpPattern fusion pattern. Families of ops live in
 * their own files (elemwise.c, transform.c, reduce.c, nn.c, norm.c, pool.c,
 * image.c, misc.c; shared helpers in kernel_util.h),
 * each exporting an array of psgi_op_impl terminated by {NULL}; op_impl.c
 * joins them to the op table by name. */
#ifndef PSG_OP_IMPL_H
#define PSG_OP_IMPL_H

#include "ir/ir_internal.h"
#include "ir/op_table.h"

/* TVM's OpPatternKind values. */
enum {
  PSGI_PATTERN_ELEMWISE = 0,
  PSGI_PATTERN_BROADCAST = 1,
  PSGI_PATTERN_INJECTIVE = 2,
  PSGI_PATTERN_COMM_REDUCE = 3,
  PSGI_PATTERN_OUT_ELEMWISE_FUSABLE = 4,
  PSGI_PATTERN_TUPLE = 7,
  PSGI_PATTERN_OPAQUE = 8
};

/* Runtime values of the interpreter and kernels: a tensor, a tuple of
 * values, a closure (a Function expression), an ADT value (a constructor and
 * its fields, laid out as a tuple) or a mutable reference. Reference
 * counted; releasing one is iterative (an ADT list may be long). */
enum { PSGI_VALUE_TENSOR = 1, PSGI_VALUE_TUPLE = 2, PSGI_VALUE_CLOSURE = 3, PSGI_VALUE_ADT = 4, PSGI_VALUE_REF = 5 };
typedef struct psgi_value psgi_value;
struct psgi_value {
  uint32_t refcount;
  int kind;
  psg_ctx *ctx;
  psgi_value *dead_next; /* release: links values being freed */
  union {
    psg_tensor *tensor;
    struct {
      size_t n;
      psgi_value **items;
      psg_expr *ctor; /* ADT: its Constructor (retained); TUPLE: NULL */
    } tuple;
    psgi_value *ref; /* REF: the value it holds (owned; replaced by a write) */
    struct {
      psg_expr *fn; /* a Function (retained) */
      /* Captured free variables: fn's free Vars and their values. */
      size_t n;
      const psg_expr **vars;
      psgi_value **values;
    } closure;
  } u;
};

psg_status psgi_value_tensor(psg_ctx *ctx, psg_tensor *t, psgi_value **out); /* retains t */
psg_status psgi_value_tuple(psg_ctx *ctx, psgi_value *const *items, size_t n, psgi_value **out);
/* An ADT value: `ctor` applied to items (retained). */
psg_status psgi_value_adt(psg_ctx *ctx, psg_expr *ctor, psgi_value *const *items, size_t n, psgi_value **out);
/* A reference holding v (retained). */
psg_status psgi_value_ref(psg_ctx *ctx, psgi_value *v, psgi_value **out);
void psgi_value_retain(psgi_value *v);
void psgi_value_release(psgi_value *v);
/* The interned type of a value (closures: NULL). */
const psg_type *psgi_value_type(psg_ctx *ctx, const psgi_value *v);

/* What a type relation or kernel needs besides its operands. `msg` receives
 * the reason for a failure ("cannot broadcast (1, 3) and (4, 5)"); the caller
 * adds the location and the expression. */
typedef struct psgi_op_call {
  psg_ctx *ctx;
  size_t op;              /* index in psgi_op_table */
  const psg_attrs *attrs; /* may be NULL: every attr then has TVM's default */
  char msg[512];
  /* A kernel's result allocation (psgi_kernel_alloc*) may take at most
   * max_result_bytes when limit_key (the config option that set the limit,
   * for the message) is not NULL: a result whose size depends on the values
   * (arange) is refused before it is allocated (issue 14). */
  const char *limit_key;
  uint64_t max_result_bytes;
} psgi_op_call;

/* Type relation: the output type from the argument types. Return PSG_ERR_TYPE
 * with call->msg set when the arguments do not fit. Arguments may have unknown
 * dims (PSG_DIM_UNKNOWN); relations propagate them where the op allows. */
typedef psg_status (*psgi_type_rel_fn)(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                       const psg_type **out);
/* Reference kernel: computes the value of the call. `out_type` is what the
 * type relation gave for these arguments (static shapes), so kernels only
 * allocate and compute. Failures (e.g. integer division by zero) return an
 * error with call->msg set; they are never crashes. */
typedef psg_status (*psgi_kernel_fn)(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                     const psg_type *out_type, psgi_value **out);

typedef struct psgi_op_impl {
  const char *name; /* TVM op name, as in ops.def */
  psgi_type_rel_fn type_rel;
  psgi_kernel_fn kernel; /* NULL: not evaluable (the interpreter reports it) */
  bool stateful;         /* TOpIsStateful: never folded */
  int pattern;           /* TOpPattern */
} psgi_op_impl;

/* The behaviour of op `op` (index in psgi_op_table), or NULL if the op has
 * none yet. Thread-safe; the table is built once. */
const psgi_op_impl *psgi_op_impl_get(size_t op);
/* The same for any op of ctx, a registered one too (op_register.c): its
 * impl has the pattern and stateful flag the host set and, once it has a
 * relation, a type_rel; never a kernel. Passes that type calls use this. */
const psgi_op_impl *psgi_op_impl_in(psg_ctx *ctx, size_t op);
/* The name of the op a relation or kernel runs for (built in or registered). */
const char *psgi_op_call_name(const psgi_op_call *call);

/* Attribute readers with defaults, for relations and kernels. */
int64_t psgi_attr_int(const psg_attrs *a, const char *key, int64_t dflt);
double psgi_attr_float(const psg_attrs *a, const char *key, double dflt);
bool psgi_attr_bool(const psg_attrs *a, const char *key, bool dflt);
const char *psgi_attr_str(const psg_attrs *a, const char *key, const char *dflt);
/* A list of ints (or a single int, repeated `n_default` times); returns the
 * count written to out (at most max), or -1 if the attr is not int-like. */
int psgi_attr_ints(const psg_attrs *a, const char *key, int64_t *out, int max);

#endif
