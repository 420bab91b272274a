/* Passage — C code generation (issue 17 item 1, docs/codegen.md): lowered
 * PrimFuncs as C99 kernels over typed pointers, for inspection and tests;
 * `passage codegen` prints it. */
#ifndef PASSAGE_CODEGEN_H
#define PASSAGE_CODEGEN_H

#include "passage/tir.h"

PSG_BEGIN_DECLS

/* Flags of psg_codegen_c. */
enum {
  PSG_CODEGEN_NO_VECTOR_EXT = 1, /* the scalar fallback for vectors even where the compiler has extensions */
  PSG_CODEGEN_OPENMP = 2         /* parallel loops as `omp parallel for` (when built with -fopenmp) */
};

/* One C file: the prelude, then the kernel of each of the n PrimFuncs
 * (names[i] is its IR name; the C name is it made a unique C identifier).
 * *out is a psg_free-able NUL-terminated string, *len (may be NULL) its
 * length. PSG_ERR_UNSUPPORTED with a diagnostic naming the node for IR the
 * generator does not handle; PSG_ERR_INVALID_ARGUMENT for NULL arguments. */
PSG_API psg_status psg_codegen_c(psg_ctx *ctx, psg_tir_prim_func *const *funcs, const char *const *names, size_t n,
                                 int flags, char **out, size_t *len);

/* Bytes of workspace the kernel of `f` takes as its last argument (64-byte
 * aligned): its T.allocate buffers outside parallel loops, each at a 64-byte
 * aligned offset. 0 also when f has an allocation psg_codegen_c refuses. */
PSG_API uint64_t psg_codegen_c_workspace(const psg_tir_prim_func *f);

PSG_END_DECLS
#endif
