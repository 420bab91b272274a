/* Passage — compiling a model to C (issue 17, docs/compile.md): the lowered
 * Relay @main becomes a host function over a static memory plan, each
 * PrimFunc a C kernel, into one self-contained C file (plus a header and,
 * for large constants, a side params file), or a shared library built with
 * the system C compiler. The compiled model follows include/passage/
 * model_abi.h. Ownership as everywhere (ir.h). */
#ifndef PASSAGE_COMPILE_H
#define PASSAGE_COMPILE_H

#include "passage/module.h"
#include "passage/pass.h"

PSG_BEGIN_DECLS

typedef struct psg_compile_output psg_compile_output;

/* Runs `sequential(O<level>,lower)` (what `passage opt -O<level> --lower`
 * runs; level is pc's opt level) over `mod` under `pc`, which the caller has
 * entered. *out: the lowered module (new reference). */
PSG_API psg_status psg_compile_lower(psg_module *mod, psg_pass_context *pc, psg_module **out);

enum {
  PSG_COMPILE_DEFAULT = 0,
  PSG_COMPILE_PARAMS_FILE = 1 /* constants in the side params file, whatever their size */
};

/* Generates C for `lowered` (a module from psg_compile_lower: @main holds
 * only call_lowered of its PrimFuncs, tuples, Let, If, constants).
 * `target`: a Target string (NULL: "c"); `name`: the C prefix P of P_info and
 * P_run (NULL: "model"; a C identifier). Constants larger in total than
 * 64 MiB, or all of them under PSG_COMPILE_PARAMS_FILE or -link-params=0,
 * go to the side params file. passage_model_entry() is defined when the C
 * file is compiled with -DPASSAGE_MODEL_ENTRY (psg_compile_shared does). A
 * located error for a bad target, an unsupported host graph or kernel.
 * *out: free with psg_compile_output_free. */
PSG_API psg_status psg_compile_to_c(psg_module *lowered, const char *target, const char *name, int flags,
                                    psg_compile_output **out);
PSG_API void psg_compile_output_free(psg_compile_output *c);

/* The generated C file, the header, and the side params file (NULL and 0
 * bytes when the constants are compiled in). Borrowed from c. */
PSG_API const char *psg_compile_output_source(const psg_compile_output *c);
PSG_API const char *psg_compile_output_header(const psg_compile_output *c);
PSG_API const void *psg_compile_output_params(const psg_compile_output *c, uint64_t *bytes);
/* The canonical Target string and the lowered module's hash (16 hex digits). */
PSG_API const char *psg_compile_output_target(const psg_compile_output *c);
PSG_API const char *psg_compile_output_module_hash(const psg_compile_output *c);

/* Statistics of the compiled model. */
enum {
  PSG_COMPILE_STAT_KERNELS = 0,           /* distinct kernels (PrimFuncs) */
  PSG_COMPILE_STAT_CALLS = 1,             /* kernel calls in the host function */
  PSG_COMPILE_STAT_WORKSPACE_BYTES = 2,   /* the static plan's peak */
  PSG_COMPILE_STAT_INTERMEDIATE_BYTES = 3,/* every intermediate and scratch, without reuse */
  PSG_COMPILE_STAT_CONSTANT_BYTES = 4,    /* constants (compiled in or in the params file) */
  PSG_COMPILE_STAT_CODEGEN_US = 5         /* time psg_compile_to_c took, microseconds */
};
PSG_API uint64_t psg_compile_output_stat(const psg_compile_output *c, int which);

/* Writes the C file to `c_path`, the header beside it (c_path with .h for
 * .c, or .h appended) and, if the constants are in a side file, the params
 * to `params_path` (NULL: OUT.c -> OUT.bin). */
PSG_API psg_status psg_compile_output_write_c(psg_ctx *ctx, const psg_compile_output *c, const char *c_path,
                                              const char *params_path);

/* Builds a shared library at `so_path` with the system C compiler: the
 * command in $CC (default "cc"), then -O3 -march=<mcpu> -fPIC -shared
 * (-fopenmp when -num-threads > 1), -lm. A side params file goes to
 * `params_path` (NULL: OUT.so -> OUT.bin, where psg_compiled_load looks).
 * On a compiler failure: PSG_ERR_IO with the compiler's first error and the generated line
 * it points at. *cc_us (may be NULL): the compiler's wall time. */
PSG_API psg_status psg_compile_shared(psg_ctx *ctx, const psg_compile_output *c, const char *so_path,
                                      const char *params_path, uint64_t *cc_us);

PSG_END_DECLS

#endif
