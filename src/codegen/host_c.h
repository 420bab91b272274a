/* Passage — emitting the host function (TVM's AOT executor) and the model's
 * info, header and params file from a host program (host_program.h), in the
 * form include/passage/model_abi.h fixes (docs/compile.md). */
#ifndef PSG_CODEGEN_HOST_C_H
#define PSG_CODEGEN_HOST_C_H

#include "codegen/host_program.h"

/* The declarations of model_abi.h that a generated file repeats (from the
 * first #include to the end of psg_model_info), checked against the header
 * by test_compile. */
extern const char psgi_model_abi_text[];

#define PSGI_PARAMS_HEADER_BYTES 64

typedef struct psgi_host_c_opts {
  const char *name;        /* the prefix P (a C identifier) */
  const char *target;      /* canonical Target string */
  const char *module_hash; /* 16 hex digits */
  bool params_file;        /* constants in the side params file */
} psgi_host_c_opts;

/* Offsets of the constants in the params file (after its header), and the
 * file's size; computed by psgi_host_c_params_layout. */
uint64_t psgi_host_c_params_layout(const psgi_host_program *p, uint64_t *offsets);

/* Appends the constants (compiled in, or the params-file accessors), the
 * host function, P_info/P_run and passage_model_entry to `out`. The kernels
 * (named by psgi_host_c_kernel_name) come before, from the C generator. */
psg_status psgi_host_c_emit(const psgi_host_program *p, const psgi_host_c_opts *o, psgi_buf *out);

/* The header OUT.h: the ABI declarations, the entry points, and the inputs'
 * and outputs' names, dtypes and shapes as comments and macros. */
psg_status psgi_host_c_header(const psgi_host_program *p, const psgi_host_c_opts *o, psgi_buf *out);

/* The params file's bytes (header + every constant at its offset) into a
 * psgi_alloc'd block of *bytes. */
psg_status psgi_host_c_params(const psgi_host_program *p, const psgi_host_c_opts *o, uint8_t **out, uint64_t *bytes);

/* The C name of kernel k: its GlobalVar name with every character that is
 * not a letter, digit or '_' as '_'. */
void psgi_host_c_kernel_name(const psgi_host_program *p, uint32_t k, char *buf, size_t size);

#endif
