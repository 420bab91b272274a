/* Passage — the compiled-model loader's internals (include/passage/runtime.h):
 * the loaded model and the input binding shared by run, time and profile. */
#ifndef PSG_RUNTIME_INTERNAL_H
#define PSG_RUNTIME_INTERNAL_H

#include "passage/runtime.h"
#include "passage/type.h"

struct psg_compiled {
  psg_ctx *ctx;                /* a reference */
  char *path;                  /* as given */
  void *handle;                /* dlopen's */
  const psg_model_info *info;  /* the library's, checked at load */
  int *input_dtypes, *output_dtypes; /* PSG_DTYPE_* of each input / output */
  void *workspace_block;       /* psgi_alloc'd; workspace is it rounded up to 64 bytes */
  void *workspace;
  void *params_block;          /* the side file's bytes, 64-byte aligned in `params` */
  void *params;
  const char **kernel_ops;     /* num_kernels anchor op names (interned or the kernel's name) */
  void (*omp_set_num_threads)(int); /* libgomp's, when the library links it */
};

/* Checks `inputs` (n of them; names[i] names inputs[i], or names is NULL for
 * the model's order) against the model and fills data[num_inputs] with each
 * input's bytes in the model's order. A diagnostic names what is wrong. */
psg_status psgi_compiled_bind(psg_compiled *m, const char *const *names, const psg_tensor *const *inputs, size_t n,
                              const void **data);
/* One tensor per output (uninitialized bytes) in outs[num_outputs], their
 * data pointers in data. On failure nothing is left allocated. */
psg_status psgi_compiled_alloc_outputs(psg_compiled *m, psg_tensor **outs, void **data);
/* "float32 (1, 3, 224, 224)" into buf. */
const char *psgi_compiled_format_type(char *buf, size_t cap, int dtype, const int64_t *shape, int ndim);
/* The anchor op read from a kernel's name, or NULL (kernel_op.c). */
const char *psgi_compiled_anchor_op(const char *kernel_name);

#endif
