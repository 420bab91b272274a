/* Passage — TIR, the loop-level IR (spec/tir.md §2): data types with lanes,
 * PrimType/PointerType, PrimExpr and Stmt nodes, Buffer and PrimFunc.
 *
 * Ownership follows ir.h: arguments are borrowed; every returned object is a
 * new reference the caller must release (psg_tir_release), except functions
 * named `_get_`/`_borrow_`, which return a reference valid while the parent
 * lives. Nodes are immutable once built and may be shared freely.
 *
 * Every TIR object is a psg_tir_node: the typedefs below (expr, stmt, buffer,
 * type, prim_func) only say which kinds a parameter accepts. A Var (and a
 * SizeVar, a Buffer) is identified by its node, never by its name. Every
 * traversal, release included, is iterative.
 *
 * Constructors check what TVM's constructors check (operand dtypes above
 * all) and fail with PSG_ERR_TYPE or PSG_ERR_INVALID_ARGUMENT plus a
 * diagnostic located at `span` (may be NULL) naming the node kind; they never
 * abort. *out is NULL on failure. */
#ifndef PASSAGE_TIR_H
#define PASSAGE_TIR_H

#include "passage/attrs.h"
#include "passage/ir.h"
#include "passage/module.h"

PSG_BEGIN_DECLS

typedef struct psg_tir_node psg_tir_node;
typedef psg_tir_node psg_tir_expr;      /* a PrimExpr kind */
typedef psg_tir_node psg_tir_stmt;      /* a Stmt kind */
typedef psg_tir_node psg_tir_buffer;    /* PSG_TIR_BUFFER */
typedef psg_tir_node psg_tir_type;      /* PrimType, PointerType, TupleType() */
typedef psg_tir_node psg_tir_prim_func; /* PSG_TIR_PRIM_FUNC */

/* Data types (TVM's DataType) ------------------------------------------------
 * A dtype is a plain integer: code | bits << 8 | lanes << 16. bool is
 * (UINT, 1), handle is (HANDLE, 64), the void of T.ret-less functions has no
 * dtype (see psg_tir_void_type). Lanes run from 1 to 65535. */
typedef uint32_t psg_tir_dtype;
enum {
  PSG_TIR_CODE_INT = 0,
  PSG_TIR_CODE_UINT = 1,
  PSG_TIR_CODE_FLOAT = 2,
  PSG_TIR_CODE_HANDLE = 3,
  PSG_TIR_CODE_BFLOAT = 4
};
enum { PSG_TIR_MAX_LANES = 65535 };
/* The dtype of code, bits and lanes; 0 (which is no valid dtype: int0) if
 * the combination is not one TIR has: int 8/16/32/64, uint 1(bool)/8/16/32/64,
 * float 16/32/64, bfloat 16, handle 64; lanes 1..65535. */
PSG_API psg_tir_dtype psg_tir_dtype_make(int code, int bits, int lanes);
PSG_API int psg_tir_dtype_code(psg_tir_dtype t);
PSG_API int psg_tir_dtype_bits(psg_tir_dtype t);
PSG_API int psg_tir_dtype_lanes(psg_tir_dtype t);
/* The same scalar type with `lanes` lanes (0 if lanes is out of range). */
PSG_API psg_tir_dtype psg_tir_dtype_with_lanes(psg_tir_dtype t, int lanes);
PSG_API bool psg_tir_dtype_is_valid(psg_tir_dtype t);
PSG_API bool psg_tir_dtype_is_bool(psg_tir_dtype t);   /* any lanes */
PSG_API bool psg_tir_dtype_is_int(psg_tir_dtype t);    /* signed, any lanes */
PSG_API bool psg_tir_dtype_is_uint(psg_tir_dtype t);   /* unsigned non-bool */
PSG_API bool psg_tir_dtype_is_float(psg_tir_dtype t);  /* float or bfloat */
PSG_API bool psg_tir_dtype_is_handle(psg_tir_dtype t);
/* The TVM spelling: "int32", "float32x8", "bool", "handle", "bfloat16".
 * Writes at most `size` bytes including the NUL; returns the length the full
 * name has (snprintf-like). 32 bytes always suffice. */
PSG_API size_t psg_tir_dtype_str(psg_tir_dtype t, char *buf, size_t size);
/* Parses a TVM dtype name ("float32", "int64x4", "bool", "handle",
 * "bfloat16"); `len` bytes of `name`. 0 for an unknown name. */
PSG_API psg_tir_dtype psg_tir_dtype_parse(const char *name, size_t len);
/* Common scalars. */
PSG_API psg_tir_dtype psg_tir_dtype_int32(void);
PSG_API psg_tir_dtype psg_tir_dtype_int64(void);
PSG_API psg_tir_dtype psg_tir_dtype_float32(void);
PSG_API psg_tir_dtype psg_tir_dtype_bool(void);
PSG_API psg_tir_dtype psg_tir_dtype_handle(void);

/* Node kinds; the values are part of the ABI. -------------------------------- */
enum {
  /* PrimExpr */
  PSG_TIR_VAR = 0,
  PSG_TIR_SIZE_VAR = 1,
  PSG_TIR_INT_IMM = 2,
  PSG_TIR_FLOAT_IMM = 3,
  PSG_TIR_STRING_IMM = 4,
  PSG_TIR_CAST = 5,
  PSG_TIR_ADD = 6,
  PSG_TIR_SUB = 7,
  PSG_TIR_MUL = 8,
  PSG_TIR_DIV = 9,
  PSG_TIR_MOD = 10,
  PSG_TIR_FLOOR_DIV = 11,
  PSG_TIR_FLOOR_MOD = 12,
  PSG_TIR_MIN = 13,
  PSG_TIR_MAX = 14,
  PSG_TIR_EQ = 15,
  PSG_TIR_NE = 16,
  PSG_TIR_LT = 17,
  PSG_TIR_LE = 18,
  PSG_TIR_GT = 19,
  PSG_TIR_GE = 20,
  PSG_TIR_AND = 21,
  PSG_TIR_OR = 22,
  PSG_TIR_NOT = 23,
  PSG_TIR_SELECT = 24,
  PSG_TIR_RAMP = 25,
  PSG_TIR_BROADCAST = 26,
  PSG_TIR_LET = 27,
  PSG_TIR_BUFFER_LOAD = 28,
  PSG_TIR_CALL = 29,
  /* Stmt */
  PSG_TIR_FOR = 30,
  PSG_TIR_BUFFER_STORE = 31,
  PSG_TIR_IF_THEN_ELSE = 32,
  PSG_TIR_EVALUATE = 33,
  PSG_TIR_LET_STMT = 34,
  PSG_TIR_SEQ_STMT = 35,
  PSG_TIR_ALLOCATE = 36,
  PSG_TIR_DECL_BUFFER = 37,
  PSG_TIR_ATTR_STMT = 38,
  PSG_TIR_ASSERT_STMT = 39,
  PSG_TIR_WHILE = 40,
  /* Everything else */
  PSG_TIR_BUFFER = 41,
  PSG_TIR_PRIM_FUNC = 42,
  PSG_TIR_PRIM_TYPE = 43,
  PSG_TIR_POINTER_TYPE = 44,
  PSG_TIR_TUPLE_TYPE = 45, /* only the empty tuple: TVM's VoidType */
  PSG_TIR_ITER_VAR = 46,   /* TVM's IterVar: a var, its range, kind, thread tag */
  PSG_TIR_KIND_COUNT = 47
};
/* Ranges of kinds. */
enum {
  PSG_TIR_FIRST_EXPR = PSG_TIR_VAR,
  PSG_TIR_LAST_EXPR = PSG_TIR_CALL,
  PSG_TIR_FIRST_STMT = PSG_TIR_FOR,
  PSG_TIR_LAST_STMT = PSG_TIR_WHILE
};

/* For kinds (TVM's ForKind). */
enum {
  PSG_TIR_FOR_SERIAL = 0,
  PSG_TIR_FOR_PARALLEL = 1,
  PSG_TIR_FOR_VECTORIZED = 2,
  PSG_TIR_FOR_UNROLLED = 3
};
/* Buffer types (TVM's BufferType). */
enum { PSG_TIR_BUFFER_DEFAULT = 1, PSG_TIR_BUFFER_AUTO_BROADCAST = 2 };

PSG_API void psg_tir_retain(psg_tir_node *n);
PSG_API void psg_tir_release(psg_tir_node *n); /* NULL-safe; iterative */

PSG_API int psg_tir_kind(const psg_tir_node *n);
/* "Var", "FloorDiv", "BufferStore", ... (TVM's node names); "?" if unknown. */
PSG_API const char *psg_tir_kind_name(int kind);
/* "serial", "parallel", "vectorized", "unrolled"; "?" otherwise. */
PSG_API const char *psg_tir_for_kind_name(int for_kind);
PSG_API bool psg_tir_is_expr(const psg_tir_node *n);
PSG_API bool psg_tir_is_stmt(const psg_tir_node *n);
PSG_API psg_ctx *psg_tir_get_ctx(const psg_tir_node *n);
PSG_API void psg_tir_span(const psg_tir_node *n, psg_span *out);
/* The dtype of an expression; a Buffer's or Allocate's element dtype; a
 * PrimType's dtype; 0 otherwise. */
PSG_API psg_tir_dtype psg_tir_dtype_of(const psg_tir_node *n);

/* Generic operands, in a fixed order per kind (borrowed). Walkers, the
 * equality and the verifier use them; a NULL optional field is absent, so
 * the count varies:
 *   Cast, Not, Broadcast, Evaluate: value
 *   binary and compare kinds: a, b        Select: cond, true, false
 *   Ramp: base, stride                    Let, LetStmt: var, value, body
 *   BufferLoad: buffer, indices..., [predicate]
 *   BufferStore: buffer, value, indices..., [predicate]
 *   Call: args                            For: var, min, extent, body
 *   IfThenElse: cond, then, [else]        SeqStmt: stmts
 *   Allocate: buffer_var, condition, body, extents...
 *   DeclBuffer: buffer, body              AttrStmt: value, body, [node]
 *   AssertStmt: cond, message, body       While: cond, body
 *   Buffer: data, elem_offset, shape..., strides...
 *   PrimFunc: body, params..., then the buffer_map's buffers in order
 *   PointerType: element type             leaves: none */
PSG_API size_t psg_tir_num_operands(const psg_tir_node *n);
PSG_API psg_tir_node *psg_tir_get_operand(const psg_tir_node *n, size_t i);

/* Types ---------------------------------------------------------------------- */
PSG_API psg_status psg_tir_prim_type_create(psg_ctx *ctx, psg_tir_dtype dtype, psg_tir_type **out);
/* PointerType(element, scope): `element` is a PrimType; `scope` NULL or ""
 * means "global". */
PSG_API psg_status psg_tir_pointer_type_create(psg_ctx *ctx, psg_tir_type *element,
                                               const char *scope, psg_tir_type **out);
/* TupleType([]), the void return type. */
PSG_API psg_status psg_tir_void_type_create(psg_ctx *ctx, psg_tir_type **out);
PSG_API psg_tir_type *psg_tir_pointer_type_get_element(const psg_tir_type *t);
PSG_API const char *psg_tir_pointer_type_scope(const psg_tir_type *t); /* "global", ... */
/* Same kind, dtype, element and scope. */
PSG_API bool psg_tir_type_equal(const psg_tir_type *a, const psg_tir_type *b);

/* PrimExpr constructors ---------------------------------------------------- */
/* A Var (or SizeVar, a var known to be >= 0). `type` (may be NULL) is the
 * type annotation: NULL means PrimType(dtype); a handle var may carry a
 * PointerType. A PrimType annotation must match dtype. */
PSG_API psg_status psg_tir_var_create(psg_ctx *ctx, const char *name, psg_tir_dtype dtype,
                                      psg_tir_type *type, const psg_span *span, psg_tir_expr **out);
PSG_API psg_status psg_tir_size_var_create(psg_ctx *ctx, const char *name, psg_tir_dtype dtype,
                                           const psg_span *span, psg_tir_expr **out);
/* A handle var pointing at `element` values in `scope` (NULL: "global"):
 * Var(name, PointerType(PrimType(element), scope)), the data of a Buffer. */
PSG_API psg_status psg_tir_pointer_var_create(psg_ctx *ctx, const char *name, psg_tir_dtype element,
                                              const char *scope, const psg_span *span,
                                              psg_tir_expr **out);
/* IntImm of an int, uint or bool scalar dtype; `value` must fit the dtype
 * (bool: 0 or 1). */
PSG_API psg_status psg_tir_int_imm_create(psg_ctx *ctx, psg_tir_dtype dtype, int64_t value,
                                          const psg_span *span, psg_tir_expr **out);
PSG_API psg_status psg_tir_float_imm_create(psg_ctx *ctx, psg_tir_dtype dtype, double value,
                                            const psg_span *span, psg_tir_expr **out);
/* A string literal (dtype handle); `len` bytes, may hold NULs. */
PSG_API psg_status psg_tir_string_imm_create(psg_ctx *ctx, const char *s, size_t len,
                                             const psg_span *span, psg_tir_expr **out);
/* Cast to `dtype`: the lanes must equal the value's. */
PSG_API psg_status psg_tir_cast_create(psg_ctx *ctx, psg_tir_dtype dtype, psg_tir_expr *value,
                                       const psg_span *span, psg_tir_expr **out);
/* Binary kinds (PSG_TIR_ADD .. PSG_TIR_OR): operands of one dtype. Arithmetic
 * (ADD..MAX) gives that dtype and rejects bool and handle; comparisons give
 * bool with the operands' lanes; AND/OR need bool operands. */
PSG_API psg_status psg_tir_binary_create(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b,
                                         const psg_span *span, psg_tir_expr **out);
PSG_API psg_status psg_tir_not_create(psg_ctx *ctx, psg_tir_expr *a, const psg_span *span,
                                      psg_tir_expr **out);
/* Select(cond, t, f): t and f of one dtype; cond bool, scalar or with t's
 * lanes. */
PSG_API psg_status psg_tir_select_create(psg_ctx *ctx, psg_tir_expr *cond, psg_tir_expr *t,
                                         psg_tir_expr *f, const psg_span *span, psg_tir_expr **out);
/* Ramp(base, stride, lanes): scalar base and stride of one dtype, lanes > 1. */
PSG_API psg_status psg_tir_ramp_create(psg_ctx *ctx, psg_tir_expr *base, psg_tir_expr *stride,
                                       int lanes, const psg_span *span, psg_tir_expr **out);
/* Broadcast(value, lanes): a scalar value, lanes > 1. */
PSG_API psg_status psg_tir_broadcast_create(psg_ctx *ctx, psg_tir_expr *value, int lanes,
                                            const psg_span *span, psg_tir_expr **out);
/* Let(var, value, body): var's dtype equals value's; the result has body's. */
PSG_API psg_status psg_tir_let_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *value,
                                      psg_tir_expr *body, const psg_span *span, psg_tir_expr **out);
/* BufferLoad(buffer, indices, predicate): int indices; the last index may be
 * a vector (a Ramp), which makes the result a vector of the buffer's dtype.
 * `predicate` (may be NULL) is a bool vector with the result's lanes. The
 * number of indices is checked against the buffer's rank by the verifier
 * (psg_tir_verify_well_formed), not here. */
PSG_API psg_status psg_tir_buffer_load_create(psg_ctx *ctx, psg_tir_buffer *buffer,
                                              psg_tir_expr *const *indices, size_t n,
                                              psg_tir_expr *predicate, const psg_span *span,
                                              psg_tir_expr **out);
/* Call of a builtin op by name ("tir.exp", "tir.if_then_else", ...; the
 * table is psg_tir_op_count/psg_tir_op_name) with result dtype `dtype`.
 * Checks the argument count and the op's dtype rule (math intrinsics: float
 * arguments of the result dtype; tir.if_then_else: a bool condition and two
 * branches of the result dtype; tir.likely: bool; tir.call_extern: a
 * StringImm function name first). PSG_ERR_NOT_FOUND for an unknown op. */
PSG_API psg_status psg_tir_call_create(psg_ctx *ctx, psg_tir_dtype dtype, const char *op,
                                       psg_tir_expr *const *args, size_t n, const psg_span *span,
                                       psg_tir_expr **out);
/* The builtin op table. */
PSG_API size_t psg_tir_op_count(void);
PSG_API const char *psg_tir_op_name(size_t i); /* NULL past the end */
/* Index of op `name` or -1. */
PSG_API ptrdiff_t psg_tir_op_find(const char *name);

/* Stmt constructors ---------------------------------------------------------- */
/* For(var, min, extent, kind, body, annotations): min and extent of the
 * var's (int) dtype. `annotations` may be NULL. */
PSG_API psg_status psg_tir_for_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *min,
                                      psg_tir_expr *extent, int for_kind, psg_tir_stmt *body,
                                      psg_attrs *annotations, const psg_span *span,
                                      psg_tir_stmt **out);
/* BufferStore(buffer, value, indices, predicate): value's dtype is the
 * buffer's with the lanes the indices give (see BufferLoad). */
PSG_API psg_status psg_tir_buffer_store_create(psg_ctx *ctx, psg_tir_buffer *buffer,
                                               psg_tir_expr *value, psg_tir_expr *const *indices,
                                               size_t n, psg_tir_expr *predicate,
                                               const psg_span *span, psg_tir_stmt **out);
/* IfThenElse: a scalar bool condition; `else_case` may be NULL. */
PSG_API psg_status psg_tir_if_then_else_create(psg_ctx *ctx, psg_tir_expr *cond,
                                               psg_tir_stmt *then_case, psg_tir_stmt *else_case,
                                               const psg_span *span, psg_tir_stmt **out);
PSG_API psg_status psg_tir_evaluate_create(psg_ctx *ctx, psg_tir_expr *value, const psg_span *span,
                                           psg_tir_stmt **out);
PSG_API psg_status psg_tir_let_stmt_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *value,
                                           psg_tir_stmt *body, const psg_span *span,
                                           psg_tir_stmt **out);
/* SeqStmt of n >= 1 statements (kept as given: no flattening). */
PSG_API psg_status psg_tir_seq_stmt_create(psg_ctx *ctx, psg_tir_stmt *const *stmts, size_t n,
                                           const psg_span *span, psg_tir_stmt **out);
/* Allocate(buffer_var, dtype, extents, condition, body, annotations):
 * buffer_var is a Var whose type is a PointerType; condition a scalar bool
 * (NULL: true); extents are int scalars (n >= 1). */
PSG_API psg_status psg_tir_allocate_create(psg_ctx *ctx, psg_tir_expr *buffer_var,
                                           psg_tir_dtype dtype, psg_tir_expr *const *extents,
                                           size_t n, psg_tir_expr *condition, psg_tir_stmt *body,
                                           psg_attrs *annotations, const psg_span *span,
                                           psg_tir_stmt **out);
PSG_API psg_status psg_tir_decl_buffer_create(psg_ctx *ctx, psg_tir_buffer *buffer,
                                              psg_tir_stmt *body, const psg_span *span,
                                              psg_tir_stmt **out);
/* AttrStmt(node, key, value, body): `node` (may be NULL) is any TIR node the
 * attribute is about (a Var, a Buffer, a StringImm). */
PSG_API psg_status psg_tir_attr_stmt_create(psg_ctx *ctx, psg_tir_node *node, const char *key,
                                            psg_tir_expr *value, psg_tir_stmt *body,
                                            const psg_span *span, psg_tir_stmt **out);
/* AssertStmt(cond, message, body): a scalar bool cond, a StringImm (or any
 * expression) message. */
PSG_API psg_status psg_tir_assert_stmt_create(psg_ctx *ctx, psg_tir_expr *cond,
                                              psg_tir_expr *message, psg_tir_stmt *body,
                                              const psg_span *span, psg_tir_stmt **out);
PSG_API psg_status psg_tir_while_create(psg_ctx *ctx, psg_tir_expr *cond, psg_tir_stmt *body,
                                        const psg_span *span, psg_tir_stmt **out);

/* Buffer and PrimFunc -------------------------------------------------------- */
/* The fields of a Buffer; zero-initialize, then fill. */
typedef struct psg_tir_buffer_desc {
  const char *name;             /* required */
  psg_tir_expr *data;           /* a Var whose type is a PointerType */
  psg_tir_dtype dtype;          /* element dtype */
  psg_tir_expr *const *shape;   /* int scalars */
  size_t ndim;
  psg_tir_expr *const *strides; /* 0 (compact) or ndim int scalars */
  size_t nstrides;
  psg_tir_expr *elem_offset;    /* NULL: IntImm 0 of the shape's dtype (int32 if rank 0) */
  const int64_t *axis_separators;
  size_t naxis_separators;
  int data_alignment;           /* 0: 64 (TVM's kAllocAlignment) */
  int offset_factor;            /* 0: 1 */
  int buffer_type;              /* 0: PSG_TIR_BUFFER_DEFAULT */
} psg_tir_buffer_desc;
PSG_API psg_status psg_tir_buffer_create(psg_ctx *ctx, const psg_tir_buffer_desc *desc,
                                         const psg_span *span, psg_tir_buffer **out);
/* A buffer with a new data var "<name>" (PointerType(dtype, scope)), compact
 * strides and the defaults above: TVM's decl_buffer. */
PSG_API psg_status psg_tir_buffer_decl(psg_ctx *ctx, const char *name, psg_tir_dtype dtype,
                                       psg_tir_expr *const *shape, size_t ndim, const char *scope,
                                       const psg_span *span, psg_tir_buffer **out);

/* PrimFunc(params, body, ret_type, buffer_map, attrs): params are Vars
 * (distinct); buffer_map maps the params params[map_params[i]] to buffers[i]
 * (each param at most once); ret_type NULL means void; attrs (may be NULL)
 * as global_symbol / tir.noalias. */
PSG_API psg_status psg_tir_prim_func_create(psg_ctx *ctx, psg_tir_expr *const *params,
                                            size_t nparams, psg_tir_stmt *body,
                                            psg_tir_type *ret_type, const size_t *map_params,
                                            psg_tir_buffer *const *buffers, size_t nbuffers,
                                            psg_attrs *attrs, const psg_span *span,
                                            psg_tir_prim_func **out);
/* A copy of `f` with attribute `key` set to `value` (TVM's with_attr). */
PSG_API psg_status psg_tir_prim_func_with_attr(const psg_tir_prim_func *f, const char *key,
                                               psg_attr *value, psg_tir_prim_func **out);

/* IterVar (TVM's tir.IterVar): a var, its range (min and extent, both
 * NULL: none, TVM's `dom=None`), its kind and a thread tag ("" for none).
 * The node of a "thread_extent"/"virtual_thread" AttrStmt (T.launch_thread)
 * or of a pragma AttrStmt; the var is its dtype. */
enum {
  PSG_TIR_ITER_DATA_PAR = 0,
  PSG_TIR_ITER_THREAD_INDEX = 1,
  PSG_TIR_ITER_COMM_REDUCE = 2,
  PSG_TIR_ITER_ORDERED = 3,
  PSG_TIR_ITER_OPAQUE = 4,
  PSG_TIR_ITER_UNROLLED = 5,
  PSG_TIR_ITER_VECTORIZED = 6,
  PSG_TIR_ITER_PARALLELIZED = 7,
  PSG_TIR_ITER_TENSORIZED = 8
};
PSG_API psg_status psg_tir_iter_var_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *min, psg_tir_expr *extent,
                                           int iter_type, const char *thread_tag, const psg_span *span,
                                           psg_tir_node **out);
PSG_API psg_tir_expr *psg_tir_iter_var_get_var(const psg_tir_node *iv);
PSG_API psg_tir_expr *psg_tir_iter_var_get_min(const psg_tir_node *iv);    /* or NULL */
PSG_API psg_tir_expr *psg_tir_iter_var_get_extent(const psg_tir_node *iv); /* or NULL */
PSG_API int psg_tir_iter_var_type(const psg_tir_node *iv);                 /* -1 if not an IterVar */
PSG_API const char *psg_tir_iter_var_thread_tag(const psg_tir_node *iv);   /* "" if none */
/* "DataPar", "ThreadIndex", "CommReduce", "Ordered", "DimInfo"... (TVM's
 * names, as T.iter_var takes them); NULL if out of range. */
PSG_API const char *psg_tir_iter_type_name(int iter_type);

/* Accessors (borrowed results) ---------------------------------------------- */
PSG_API const char *psg_tir_var_name(const psg_tir_expr *v);          /* Var, SizeVar */
PSG_API psg_tir_type *psg_tir_var_get_type(const psg_tir_expr *v);    /* never NULL */
PSG_API int64_t psg_tir_int_imm_value(const psg_tir_expr *e);
PSG_API double psg_tir_float_imm_value(const psg_tir_expr *e);
PSG_API const char *psg_tir_string_imm_value(const psg_tir_expr *e, size_t *len);
/* Cast, Not, Broadcast, Evaluate: the value; binary kinds: a and b. */
PSG_API psg_tir_expr *psg_tir_get_value(const psg_tir_node *n);
PSG_API psg_tir_expr *psg_tir_get_a(const psg_tir_expr *e);
PSG_API psg_tir_expr *psg_tir_get_b(const psg_tir_expr *e);
/* Select, IfThenElse, AssertStmt, While: the condition. */
PSG_API psg_tir_expr *psg_tir_get_cond(const psg_tir_node *n);
PSG_API psg_tir_expr *psg_tir_select_get_true(const psg_tir_expr *e);
PSG_API psg_tir_expr *psg_tir_select_get_false(const psg_tir_expr *e);
PSG_API psg_tir_expr *psg_tir_ramp_get_base(const psg_tir_expr *e);
PSG_API psg_tir_expr *psg_tir_ramp_get_stride(const psg_tir_expr *e);
/* Ramp, Broadcast: the lanes of the result (also psg_tir_dtype_lanes). */
PSG_API int psg_tir_get_lanes(const psg_tir_expr *e);
/* Let, LetStmt, For (the loop var): the bound var; their value/body. */
PSG_API psg_tir_expr *psg_tir_get_var(const psg_tir_node *n);
PSG_API psg_tir_expr *psg_tir_let_get_value(const psg_tir_node *n); /* Let, LetStmt */
/* The body of Let, LetStmt, For, Allocate, DeclBuffer, AttrStmt,
 * AssertStmt, While, PrimFunc. */
PSG_API psg_tir_node *psg_tir_get_body(const psg_tir_node *n);
/* BufferLoad, BufferStore, DeclBuffer: the buffer. */
PSG_API psg_tir_buffer *psg_tir_get_buffer(const psg_tir_node *n);
PSG_API size_t psg_tir_num_indices(const psg_tir_node *n); /* BufferLoad, BufferStore */
PSG_API psg_tir_expr *psg_tir_get_index(const psg_tir_node *n, size_t i);
PSG_API psg_tir_expr *psg_tir_get_predicate(const psg_tir_node *n); /* or NULL */
PSG_API psg_tir_expr *psg_tir_buffer_store_get_value(const psg_tir_stmt *s);
PSG_API const char *psg_tir_call_op(const psg_tir_expr *call); /* "tir.exp" */
PSG_API size_t psg_tir_call_num_args(const psg_tir_expr *call);
PSG_API psg_tir_expr *psg_tir_call_get_arg(const psg_tir_expr *call, size_t i);
PSG_API psg_tir_expr *psg_tir_for_get_min(const psg_tir_stmt *s);
PSG_API psg_tir_expr *psg_tir_for_get_extent(const psg_tir_stmt *s);
PSG_API int psg_tir_for_kind(const psg_tir_stmt *s);
/* For, Allocate: annotations (may be NULL). */
PSG_API psg_attrs *psg_tir_get_annotations(const psg_tir_stmt *s);
PSG_API psg_tir_stmt *psg_tir_if_get_then(const psg_tir_stmt *s);
PSG_API psg_tir_stmt *psg_tir_if_get_else(const psg_tir_stmt *s); /* or NULL */
PSG_API size_t psg_tir_seq_size(const psg_tir_stmt *s);
PSG_API psg_tir_stmt *psg_tir_seq_get(const psg_tir_stmt *s, size_t i);
PSG_API psg_tir_expr *psg_tir_allocate_get_buffer_var(const psg_tir_stmt *s);
PSG_API size_t psg_tir_allocate_num_extents(const psg_tir_stmt *s);
PSG_API psg_tir_expr *psg_tir_allocate_get_extent(const psg_tir_stmt *s, size_t i);
PSG_API psg_tir_expr *psg_tir_allocate_get_condition(const psg_tir_stmt *s);
PSG_API psg_tir_node *psg_tir_attr_stmt_get_node(const psg_tir_stmt *s); /* or NULL */
PSG_API const char *psg_tir_attr_stmt_key(const psg_tir_stmt *s);
PSG_API psg_tir_expr *psg_tir_attr_stmt_get_value(const psg_tir_stmt *s);
PSG_API psg_tir_expr *psg_tir_assert_get_message(const psg_tir_stmt *s);

PSG_API const char *psg_tir_buffer_name(const psg_tir_buffer *b);
PSG_API psg_tir_expr *psg_tir_buffer_get_data(const psg_tir_buffer *b);
PSG_API size_t psg_tir_buffer_ndim(const psg_tir_buffer *b);
PSG_API psg_tir_expr *psg_tir_buffer_get_shape(const psg_tir_buffer *b, size_t i);
PSG_API size_t psg_tir_buffer_num_strides(const psg_tir_buffer *b);
PSG_API psg_tir_expr *psg_tir_buffer_get_stride(const psg_tir_buffer *b, size_t i);
PSG_API psg_tir_expr *psg_tir_buffer_get_elem_offset(const psg_tir_buffer *b);
/* The data var's pointer scope ("global", "shared", "local", ...). */
PSG_API const char *psg_tir_buffer_scope(const psg_tir_buffer *b);
PSG_API size_t psg_tir_buffer_num_axis_separators(const psg_tir_buffer *b);
PSG_API int64_t psg_tir_buffer_axis_separator(const psg_tir_buffer *b, size_t i);
PSG_API int psg_tir_buffer_data_alignment(const psg_tir_buffer *b);
PSG_API int psg_tir_buffer_offset_factor(const psg_tir_buffer *b);
PSG_API int psg_tir_buffer_type(const psg_tir_buffer *b);

PSG_API size_t psg_tir_prim_func_num_params(const psg_tir_prim_func *f);
PSG_API psg_tir_expr *psg_tir_prim_func_get_param(const psg_tir_prim_func *f, size_t i);
PSG_API size_t psg_tir_prim_func_buffer_map_size(const psg_tir_prim_func *f);
/* Entry i of the buffer map: the param (a Var) and its buffer. */
PSG_API psg_tir_expr *psg_tir_prim_func_buffer_map_key(const psg_tir_prim_func *f, size_t i);
PSG_API psg_tir_buffer *psg_tir_prim_func_buffer_map_value(const psg_tir_prim_func *f, size_t i);
/* The buffer `param` maps to, or NULL. */
PSG_API psg_tir_buffer *psg_tir_prim_func_get_param_buffer(const psg_tir_prim_func *f,
                                                           const psg_tir_expr *param);
PSG_API psg_tir_type *psg_tir_prim_func_get_ret_type(const psg_tir_prim_func *f);
PSG_API psg_attrs *psg_tir_prim_func_get_attrs(const psg_tir_prim_func *f); /* may be NULL */

/* Visitor and mutator (STYLE rule 10, the shape of ir.h's) -------------------
 * Children are reached in definition-first order: a PrimFunc's params and
 * buffer-map buffers before its body, a Let/LetStmt/For var before the rest,
 * a Buffer's data, shape and strides before its elem_offset, an AttrStmt's
 * node before its value; otherwise in operand order. Var type annotations,
 * a PrimFunc's return type and annotations are not visited. */
typedef struct psg_tir_visitor psg_tir_visitor;
struct psg_tir_visitor {
  /* Optional: when a node is first reached; PSG_VISIT_CONTINUE,
   * PSG_VISIT_SKIP_CHILDREN or PSG_VISIT_ABORT (ir.h). */
  int (*pre)(psg_tir_visitor *v, const psg_tir_node *n);
  /* Optional: after all its children; an error stops the walk. */
  psg_status (*post)(psg_tir_visitor *v, const psg_tir_node *n);
  void *user;
};
/* Post-order walk, each node once (a shared node is visited once). Returns
 * PSG_OK (also when aborted), the status of a failing `post`, or
 * PSG_ERR_NOMEM. */
PSG_API psg_status psg_tir_visit(psg_ctx *ctx, psg_tir_visitor *v, const psg_tir_node *root);

/* Mutator: memoized, post-order, functional update. For each node, once
 * its children are rewritten, `visit[kind]` runs if set, else
 * psg_tir_mutator_default, which rebuilds the node over the rewritten
 * children through the checked constructors (so a rewrite that breaks
 * dtypes fails with the constructor's error) and returns the very same node
 * when no child changed.
 *
 *   psg_tir_mutator m; psg_tir_mutator_init(&m, ctx);
 *   m.visit[PSG_TIR_ADD] = fold_add;
 *   psg_status st = psg_tir_mutate(&m, func, &out);
 *   psg_tir_mutator_fini(&m);
 *
 * Callbacks never recurse: they call psg_tir_mutator_default first, or read
 * the rewritten children with psg_tir_mutator_get_result. */
typedef struct psg_tir_mutator psg_tir_mutator;
typedef psg_status (*psg_tir_mutate_fn)(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out);
struct psg_tir_mutator {
  psg_ctx *ctx;
  psg_tir_mutate_fn visit[PSG_TIR_KIND_COUNT];
  /* Optional: when a node is first reached; setting *replacement (a new
   * reference) makes it the node's result and skips its children. */
  psg_status (*pre)(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **replacement);
  /* Optional: just before operand `slot` (psg_tir_get_operand index) of
   * `parent` is rewritten (e.g. to enter the scope of a Let's var). */
  psg_status (*before_child)(psg_tir_mutator *m, const psg_tir_node *parent, size_t slot);
  void *user;
  /* Set when a callback reads the rewrite of a node other than an operand
   * of the node at hand (a grandchild, or anything after the walk): every
   * rewrite is then kept in the memo (psg_tir_mutator_get_result). */
  bool memo_all;
  void *state_; /* private: the memo */
};
PSG_API void psg_tir_mutator_init(psg_tir_mutator *m, psg_ctx *ctx);
PSG_API void psg_tir_mutator_fini(psg_tir_mutator *m);
PSG_API psg_status psg_tir_mutate(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out);
PSG_API psg_status psg_tir_mutator_default(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out);
/* The rewrite of `n` (borrowed), or NULL if not reached yet. Without
 * memo_all: during a walk, that of an operand of the node being rewritten
 * (or, in before_child and pre, of the node being walked) or of any node
 * with more than one reference when it was reached; after the walk, those
 * and the root's. A node held once, rewritten by the first walk of a
 * mutator, is reached only through its parent and forgotten once the parent
 * is rewritten (keeping it would cost a memo entry per node). With
 * memo_all: every node reached so far. A node without operands that no
 * callback can rewrite (no pre, no visit function for its kind) is its own
 * rewrite, reached or not, unless psg_tir_mutator_set_result gave it one. */
PSG_API psg_tir_node *psg_tir_mutator_get_result(psg_tir_mutator *m, const psg_tir_node *n);
/* Makes `result` (retained) the rewrite of `n` for the rest of the walk. */
PSG_API psg_status psg_tir_mutator_set_result(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node *result);

/* Structural equality and hashing (TVM's assert_structural_equal for
 * PrimFuncs, spec/tir.md §2) ---------------------------------------------
 * Vars and buffers match by where they are defined: PrimFunc params and
 * buffer-map buffers, Let/LetStmt/For vars, Allocate's buffer var,
 * DeclBuffer's buffer and the vars a Buffer's data, shape, strides or
 * elem_offset introduce are definitions (a bijection is built as they are
 * met); any other var must meet its bound partner, and a free var only
 * itself. Buffers compare field-wise: dtype, data, shape, strides,
 * elem_offset, axis_separators, data_alignment, buffer_type; name and
 * offset_factor are ignored, scope is compared through the data var's
 * PointerType. Var names, spans and object identity are ignored. Floats
 * compare bitwise. Equal nodes hash equally. Both walks are iterative. */
PSG_API bool psg_tir_structural_equal(const psg_tir_node *a, const psg_tir_node *b);
/* Like psg_tir_structural_equal; on inequality, if `path` is not NULL, sets
 * *path to the first difference in pre-order, e.g.
 * "body.seq[1].value.b: IntImm values differ (1 vs 2)" (free with psg_free). */
PSG_API bool psg_tir_structural_equal_explain(const psg_tir_node *a, const psg_tir_node *b, char **path);
/* TVM's structural_equal(a, b, map_free_vars): with map_free_vars a free var
 * of `a` may pair with one free var of `b` (a bijection, like definitions),
 * as when comparing a function with its printed and re-parsed copy; `path`
 * as in psg_tir_structural_equal_explain (NULL: not wanted). */
PSG_API bool psg_tir_structural_equal_ex(const psg_tir_node *a, const psg_tir_node *b, bool map_free_vars,
                                         char **path);
PSG_API uint64_t psg_tir_structural_hash(const psg_tir_node *n);

/* tir.analysis.verify_well_formed: every var defined before use, within its
 * scope, and defined once; buffer accesses with as many indices as the
 * buffer's rank; a declared buffer used only in its scope; Allocate's dtype
 * equal to its pointer's element (bool: int8); buffer-map params are handles;
 * loop vars never bound again (TIR's only way to store to a var). PSG_OK, or
 * PSG_ERR_TYPE with one diagnostic per problem ("verify_well_formed: in
 * @main: BufferLoad of buffer 'A' has 1 index but the buffer has 2
 * dimensions"), located at the node or its nearest located ancestor. */
PSG_API psg_status psg_tir_verify_well_formed(const psg_tir_prim_func *f);

/* PrimFuncs in an IRModule -------------------------------------------------
 * A module entry is a Relay function or a PrimFunc, each under a GlobalVar
 * (psg_module_get_function and psg_module_lookup return NULL for a
 * PrimFunc entry; Relay passes skip such entries). Modules stay immutable:
 * these return new modules. */
/* `f` added last under `gv`; PSG_ERR_INVALID_ARGUMENT if the name is taken. */
PSG_API psg_status psg_module_add_prim_func(const psg_module *m, psg_expr *gv, psg_tir_prim_func *f,
                                            psg_module **out);
/* Like add, but replaces the entry of an existing name in place (keeping
 * its position and GlobalVar), whatever its kind. */
PSG_API psg_status psg_module_update_prim_func(const psg_module *m, psg_expr *gv, psg_tir_prim_func *f,
                                               psg_module **out);
/* The PrimFunc of entry i (borrowed), or NULL if it is a Relay function. */
PSG_API psg_tir_prim_func *psg_module_get_prim_func(const psg_module *m, size_t i);
/* The PrimFunc named `name` (borrowed), or NULL. */
PSG_API psg_tir_prim_func *psg_module_lookup_prim_func(const psg_module *m, const char *name);

PSG_END_DECLS
#endif
