/* The ABI between a compiled model and the code that loads it.
 *
 * `passage compile` turns a lowered module into C: one function per PrimFunc
 * (the kernels) and one entry function that calls them in order over a static
 * memory plan (the host function, TVM's AOT executor). The generated C file
 * repeats these declarations (guarded by PASSAGE_MODEL_ABI_H) so that it
 * stands alone; the loaders (psg_compiled_load, `passage run OUT.so`, Python's
 * passage.runtime) include this header. Plain C99, no Passage types: a model
 * built on a microcontroller toolchain links against nothing but libm.
 *
 * A model compiled with the name prefix P exports
 *   const psg_model_info *P_info(void);
 *   int32_t P_run(const void *const *inputs, void *const *outputs);
 * (P_run uses a static workspace of info->workspace_bytes: not reentrant),
 * and a shared library built by `passage compile -o` also exports
 *   const psg_model_info *passage_model_entry(void);
 * so that a loader finds the model without knowing its prefix. */
#ifndef PASSAGE_MODEL_ABI_H
#define PASSAGE_MODEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#define PSG_MODEL_ABI_VERSION 1

/* One input or output tensor: dense, row-major, shape fixed at compile time. */
typedef struct psg_model_tensor_info {
  const char *name;     /* input: the Relay parameter's name; output: "output0", "output1", ... */
  const char *dtype;    /* TVM's dtype name: "float32", "int64", "bool", ... */
  int32_t ndim;
  const int64_t *shape; /* ndim extents */
  uint64_t bytes;       /* product of the shape times the element size */
} psg_model_tensor_info;

/* Called with begin = 1 before kernel `kernel` runs and begin = 0 after it. */
typedef void (*psg_model_profile_hook)(void *user, int32_t kernel, int32_t begin);

typedef struct psg_model_info {
  int32_t abi_version;              /* PSG_MODEL_ABI_VERSION */
  const char *name;                 /* the name prefix P */
  const char *module_hash;          /* structural hash of the lowered module, 16 hex digits */
  const char *target;               /* the Target string it was compiled for */
  int32_t num_inputs, num_outputs;
  const psg_model_tensor_info *inputs, *outputs;
  uint64_t workspace_bytes;         /* the static plan's peak: every intermediate and kernel scratch */
  uint64_t intermediate_bytes;      /* the same intermediates without reuse (their sum) */
  uint64_t params_bytes;            /* 0: constants are compiled in; else the size of the side file */
  int32_t num_kernels;              /* calls of kernels in the host function, in program order */
  const char *const *kernel_names;  /* num_kernels names (a kernel called twice appears twice) */
  /* Runs the model. inputs[i] / outputs[i] point at tensors of inputs[i].bytes /
   * outputs[i].bytes; workspace at workspace_bytes, 64-byte aligned (NULL when
   * workspace_bytes is 0). Returns 0, or the nonzero code of a failed check. */
  int32_t (*run)(const void *const *inputs, void *const *outputs, void *workspace);
  /* As run, calling hook(user, k, 1) / hook(user, k, 0) around kernel call k. */
  int32_t (*run_profiled)(const void *const *inputs, void *const *outputs, void *workspace,
                          psg_model_profile_hook hook, void *user);
  /* When params_bytes > 0: hands the model the side file's contents (kept by
   * the caller for the model's lifetime) before the first run. Returns 0, or
   * nonzero when the size or the file's header does not match the model. */
  int32_t (*set_params)(const void *params, uint64_t bytes);
} psg_model_info;

#endif
