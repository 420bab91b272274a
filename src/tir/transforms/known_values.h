/* Passage — known buffer values for tir.Simplify (known_values.c): a small
 * forward dataflow over the statement tree that says, at each point of the
 * walk, which buffer elements hold a known value. It stands where TVM's
 * ControlFlowGraph stands for Simplify's propagate_knowns_* switches.
 *
 * A fact reads "for every index a of buffer B where all of conj(a) hold,
 * B[a] == value(a)"; conj and value are written over axis vars (one per
 * dimension and index dtype) and the vars in scope. Stores, T.assume and
 * `if` conditions that read a buffer add facts; stores, calls with side
 * effects and loops that write a buffer remove or narrow them. The caller
 * (simplify.c) walks the statements in program order and reports each
 * event; the analyzer it passes holds the facts of the current scope, so
 * a fact applies to a load when the analyzer proves its conj there. */
#ifndef PSG_KNOWN_VALUES_H
#define PSG_KNOWN_VALUES_H

#include "tir/transforms/tir_transforms.h"

typedef struct psgi_kv psgi_kv;
typedef struct psgi_kv_written psgi_kv_written;

/* The state of one scope (If, For, While) between its enter and exit. */
typedef struct psgi_kv_mark {
  uint32_t *saved;  /* fact ids at the start (If: before; loop: body start) */
  size_t nsaved;
  uint32_t *other;  /* If: the facts at the end of the then branch */
  size_t nother;
  bool has_other;
  size_t nconds;             /* scope conditions below this scope */
  psg_tir_expr *cond, *neg;  /* If: its pure condition and negation (retained) */
  psg_tir_expr *var, *min, *extent; /* For: loop var and range (retained) */
  psgi_kv_written *written;  /* loops: the buffers the body writes */
  size_t nwritten;
} psgi_kv_mark;

psg_status psgi_kv_create(psg_ctx *ctx, psg_arith_analyzer *a, psgi_kv **out);
void psgi_kv_destroy(psgi_kv *kv); /* NULL-safe */
void psgi_kv_mark_free(psgi_kv *kv, psgi_kv_mark *m);

/* e with each scalar load whose value is known here replaced by that value
 * (not simplified); a new reference (e itself retained when none is). */
psg_status psgi_kv_substitute(psgi_kv *kv, psg_tir_expr *e, psg_tir_expr **out);

/* Events, in program order. A store of `value` (known values already
 * substituted) to buf[idx]; predicated stores only invalidate. */
psg_status psgi_kv_store(psgi_kv *kv, psg_tir_buffer *buf, psg_tir_expr *const *idx, size_t n,
                         psg_tir_expr *value, bool predicated);
/* cond holds here (T.assume, or an `if` condition reading memory in its
 * then branch): each `B[i] == v` and `p or B[i] == v` part becomes a fact. */
psg_status psgi_kv_assume(psgi_kv *kv, psg_tir_expr *cond);
/* A call that may write any memory: nothing is known any more. */
void psgi_kv_clobber(psgi_kv *kv);
/* The facts that mention var (or are about the buffer whose data it is)
 * leave with its scope (LetStmt, Allocate). */
psg_status psgi_kv_forget(psgi_kv *kv, psg_tir_expr *var);

/* An undecided `if` (its simplified condition), then its else, then the
 * join after it. */
psg_status psgi_kv_if_enter(psgi_kv *kv, psg_tir_expr *cond, psgi_kv_mark *m);
psg_status psgi_kv_if_else(psgi_kv *kv, psgi_kv_mark *m);
psg_status psgi_kv_if_exit(psgi_kv *kv, psgi_kv_mark *m);
/* A loop over `body`: For with var in [min, min + extent), While with var
 * NULL. */
psg_status psgi_kv_loop_enter(psgi_kv *kv, psg_tir_stmt *body, psg_tir_expr *var, psg_tir_expr *min,
                              psg_tir_expr *extent, psgi_kv_mark *m);
psg_status psgi_kv_loop_exit(psgi_kv *kv, psgi_kv_mark *m);

#endif
