/* Passage — the reference TIR interpreter (issue 15 item 7): runs a PrimFunc
 * on tensors, so tests can check that a TIR pass keeps what a function
 * computes, and `passage run` can execute TIR. Every statement and
 * expression kind of include/passage/tir.h is executed with TVM's semantics
 * (see docs/design.md); nothing it is given can crash it or make it hang. */
#ifndef PASSAGE_TIR_INTERP_H
#define PASSAGE_TIR_INTERP_H

#include "passage/tensor.h"
#include "passage/tir.h"

PSG_BEGIN_DECLS

/* Evaluates `func` on `args`, one per parameter in order:
 *  - a parameter in the buffer map takes a tensor of the buffer's dtype and
 *    rank whose dims equal the buffer's shape; a shape (elem_offset, stride)
 *    entry that is a Var not yet bound is bound to the tensor's dim (0, the
 *    compact stride), as TVM's argument binder does. The buffer sees a copy:
 *    `args` are never written.
 *  - a scalar parameter takes a rank-0 tensor of the var's dtype.
 * Buffers are accessed through their strides and elem_offset (compact
 * row-major without strides); buffers over one data var share memory.
 * Allocate gives zero-filled memory.
 *
 * On success *outputs is a psg_free-able array of nargs new tensor
 * references: for a buffer parameter its contents after the call, for a
 * scalar its input tensor.
 *
 * Errors, each a diagnostic located at the node that failed:
 * PSG_ERR_INVALID_ARGUMENT for a wrong argument count, dtype or shape (the
 * message names the parameter), an out-of-bounds access (naming the buffer
 * and the index), an integer division by zero, a failing AssertStmt (its
 * message), a false tir.assume, a float cast that does not fit its integer
 * dtype, a var used where it is not defined; PSG_ERR_UNSUPPORTED for an
 * intrinsic the interpreter cannot run (tir.call_extern of a function that is
 * not a known libm one, tir.address_of, ...) and for the limits of the current
 * PassContext: passage.interp.max_bytes (bytes of Allocate memory live at
 * once) and passage.interp.max_steps (loop iterations, For and While, in
 * all); PSG_ERR_NOMEM. */
PSG_API psg_status psg_tir_eval(psg_ctx *ctx, const psg_tir_prim_func *func, psg_tensor *const *args,
                                size_t nargs, psg_tensor ***outputs);

/* The psg_tensor dtype (PSG_DTYPE_*) of scalar TIR dtype t, or
 * PSG_DTYPE_INVALID (vectors, handle). */
PSG_API int psg_tir_dtype_to_tensor(psg_tir_dtype t);

PSG_END_DECLS
#endif
