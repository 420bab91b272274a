/* Passage — CodeGenC (issue 17 item 1): each lowered PrimFunc becomes one
 * C99 function over typed pointers. docs/codegen.md describes the calling
 * convention, the vector strategy, OpenMP and the workspace.
 *
 * A generated file is the prelude (once) followed by kernels. Kernels are
 * static functions
 *   static int32_t NAME(T0 *restrict p0, ..., uint8_t *restrict workspace)
 * with one parameter per PrimFunc parameter in order (a buffer parameter is
 * a pointer to its element type, `restrict` only under tir.noalias; a scalar
 * parameter is passed by value; another handle is a void *), then the
 * workspace: psgi_codegen_c_kernel_workspace(f) bytes, 64-byte aligned,
 * which holds the function's T.allocate scratch. A kernel returns 0, or the
 * 1-based number of the AssertStmt that failed. */
#ifndef PSG_CODEGEN_C_H
#define PSG_CODEGEN_C_H

#include "passage/tir.h"
#include "support/support.h"

typedef struct psgi_codegen_opts {
  bool vector_ext; /* GCC/Clang vector extensions where the compiler has them */
  bool openmp;     /* parallel loops as `omp parallel for` (serial otherwise) */
} psgi_codegen_opts;

/* Appends the file prelude: includes, the vector switch, helper functions.
 * False on OOM (out->failed). */
bool psgi_codegen_c_prelude(psgi_buf *out, const psgi_codegen_opts *o);

/* Appends the kernel of `f` named `c_name` (a C identifier) to `out`, with
 * the vector typedefs it needs before it. PSG_ERR_UNSUPPORTED with a
 * diagnostic naming the node for IR the generator does not handle (a
 * symbolic allocation, a float16 value, ...); nothing is appended then. */
psg_status psgi_codegen_c_kernel(psg_ctx *ctx, const psg_tir_prim_func *f, const char *c_name,
                                 const psgi_codegen_opts *o, psgi_buf *out);

/* `f` with its register tiles stored transposed where their vectors are
 * strided (local_layout.c); *out is f itself (retained) when none is. */
psg_status psgi_cg_local_layout(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);

/* Kernel k of program p specialized on the one-element float constants
 * every call passes it (each load of one becomes its literal), with
 * pow(x, 2), pow(x, 1) and pow(x, 0.5) folded to x * x, x and LLVM's
 * guarded sqrt (const_scalars.c). *out is
 * a new reference (f itself when nothing changes). */
struct psgi_host_program;
psg_status psgi_cg_bind_const_scalars(psg_ctx *ctx, const struct psgi_host_program *p, uint32_t k,
                                      psg_tir_prim_func **out);

/* Bytes of workspace the kernel of `f` needs: its T.allocate buffers outside
 * parallel loops, each at a 64-byte aligned offset, in the order the body
 * holds them (no reuse between them). Allocations inside a parallel loop are
 * stack arrays of the loop body and take no workspace. 0 when the function
 * has an allocation the generator refuses (psgi_codegen_c_kernel says why). */
uint64_t psgi_codegen_c_kernel_workspace(const psg_tir_prim_func *f);

#endif
