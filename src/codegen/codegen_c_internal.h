/* Passage — CodeGenC's private state, shared by the expression half
 * (codegen_c_expr.c) and the statement half (codegen_c.c). */
#ifndef PSG_CODEGEN_C_INTERNAL_H
#define PSG_CODEGEN_C_INTERNAL_H

#include "codegen/codegen_c.h"
#include "passage/arith.h"
#include "tir/tir_internal.h"

/* One piece of a C template: text, an operand of the node (by its position
 * among the node's value operands) or another node printed as an expression. */
typedef struct cg_item {
  const char *s;
  int operand; /* -1: none */
  const psg_tir_node *node;
} cg_item;

typedef struct cg {
  psg_ctx *ctx;
  const psgi_codegen_opts *o;
  psgi_buf *out; /* the kernel's body */
  psg_status st; /* the first failure */
  psgi_arena arena; /* strings of the statement being written (reset between statements) */
  size_t arena_bytes;
  psgi_map used_names; /* C identifier -> taken */
  psgi_map cname;      /* Var node -> C name */
  psgi_map ptype;      /* data Var node -> dtype of its declared pointee (+1) */
  psgi_map simple;     /* expression node -> 1 simple, 2 not */
  psgi_map ws_off;     /* Allocate node -> workspace offset + 1 (0 absent: a stack array) */
  psgi_map let_value;  /* Let var -> its value node (lane_gather.c looks through it) */
  PSGI_VEC(psg_tir_dtype) vtypes; /* vector types the kernel uses */
  psg_arith_analyzer *an; /* bounds of the vars in scope: plain C arithmetic where nothing can overflow */
  uint64_t ws_total;
  unsigned ntemp, nassert;
} cg;

/* Failure with a diagnostic located at n: "CodeGenC: <message>"; returns the
 * status, kept in c->st (the first one wins). */
psg_status psgi_cg_fail(cg *c, const psg_tir_node *n, psg_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
char *psgi_cg_strf(cg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The C type of scalar dtype t ("int32_t", "float", "uint8_t" for bool), or NULL. */
const char *psgi_cg_scalar_ctype(psg_tir_dtype t);
/* "i32", "u8" (also bool), "f32" ... */
const char *psgi_cg_suffix(psg_tir_dtype t);
/* The C type of t, registering a vector type; NULL after a failure at n. */
const char *psgi_cg_ctype(cg *c, psg_tir_dtype t, const psg_tir_node *n);
/* Records what var v (an int Var) can hold: [lo, hi] of the bounds of min
 * (NULL: 0) and min + extent - 1 (a loop) or of value (a Let): extent NULL;
 * a Let's value (any var) is also kept in c->let_value. */
void psgi_cg_bound_var(cg *c, const psg_tir_node *v, const psg_tir_node *min, const psg_tir_node *extent);
/* Lane psg_l of the vector value `name` of dtype t. */
const char *psgi_cg_lane(cg *c, const char *name, psg_tir_dtype t, const char *lane);
/* A fresh unique C identifier from an IR name. */
const char *psgi_cg_unique(cg *c, const char *name);
/* The C name bound to var v, or NULL. */
const char *psgi_cg_var_name(cg *c, const psg_tir_node *v);
bool psgi_cg_bind(cg *c, const psg_tir_node *v, const char *name);
/* Is n a scalar expression printable as one C expression (no Let, no vector)? */
bool psgi_cg_is_simple(cg *c, const psg_tir_node *n);
/* The C text of simple expression n (arena string), NULL on failure. */
const char *psgi_cg_expr(cg *c, const psg_tir_node *n);
/* The C text of any expression: simple ones inline, others computed into
 * temporaries by statements written at `indent` first (their name). */
const char *psgi_cg_value(cg *c, const psg_tir_node *n, int indent);
/* Flat element index of buffer b at the index texts idx (ndim of them). */
const char *psgi_cg_flat_index(cg *c, const psg_tir_node *b, const char *const *idx);
/* Does access through buffer b read its memory with b's own element type? */
bool psgi_cg_buffer_matches(cg *c, const psg_tir_node *b);
void psgi_cg_indent(cg *c, int indent);
void psgi_cg_line(cg *c, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Condition text t without the parentheses around all of it (`if ((a == b))`
 * makes clang warn). */
const char *psgi_cg_cond(cg *c, const char *t);
/* The contiguous base of a vector access of n (BufferLoad/BufferStore): its
 * one index is Ramp(base, 1) over a scalar-element buffer; NULL otherwise. */
const psg_tir_node *psgi_cg_contiguous_base(const psg_tir_node *n);
/* The base of a load's stride-2 Ramp index of 4..64 lanes, a power of two
 * (read as two contiguous vectors and a shuffle), or NULL. */
const psg_tir_node *psgi_cg_stride2_base(const psg_tir_node *n);

/* A vector integer index as scalar terms and constant lane offsets:
 * lane l is sum(coef[i] * term[i]) + off[l] (lane_gather.c). */
#define PSGI_CG_LANE_TERMS 8
typedef struct psgi_cg_lanes {
  int lanes, nterms;
  const psg_tir_node *term[PSGI_CG_LANE_TERMS];
  int64_t coef[PSGI_CG_LANE_TERMS];
  /* a term with a table is table[term - table_lo] (term a loop var): a
   * piece of the index that depends on that var alone, evaluated here */
  const int32_t *table[PSGI_CG_LANE_TERMS];
  int64_t table_lo[PSGI_CG_LANE_TERMS];
  int table_len[PSGI_CG_LANE_TERMS];
  int64_t off[64];
} psgi_cg_lanes;
/* Does gather load n (one index, scalar elements, no predicate) have an
 * index of that form, with at least one term, every term simple? */
bool psgi_cg_lane_split(cg *c, const psg_tir_node *n, psgi_cg_lanes *out);
/* Writes the gather of n by split v into vector temp r (declared) from data
 * (match: data points at the buffer's element type); r, NULL on failure. */
const char *psgi_cg_offset_gather(cg *c, const psg_tir_node *n, const psgi_cg_lanes *v, const char *data, bool match,
                                  const char *r, int indent);

#endif
