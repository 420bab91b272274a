/* Passage — loading and running compiled models (issue 17, item 4): a shared
 * library built by `passage compile -o OUT.so` is opened, checked against the
 * model ABI (passage/model_abi.h) and run on Passage tensors. The loader
 * keeps one 64-byte aligned workspace per loaded model (from the context's
 * allocator) and the parameters' side file, when the model has one.
 *
 * A loaded model is not thread-safe: its runs share one workspace, so one
 * thread at a time may run it (load it twice for two threads). Parameters are
 * handed to the library with its set_params, which is process-wide: loading
 * the same library twice with different parameter files gives both the
 * second file. */
#ifndef PASSAGE_RUNTIME_H
#define PASSAGE_RUNTIME_H

#include "passage/tensor.h"
#include "passage/model_abi.h"

PSG_BEGIN_DECLS

typedef struct psg_compiled psg_compiled;

/* Opens the model library at `path` (dlopen; a path without '/' is taken as
 * "./path", never searched for), finds passage_model_entry, checks the ABI
 * version and the model's description, allocates its workspace and, when the
 * model has parameters (params_bytes > 0), reads `params_path` — NULL for the
 * side file beside the library, `path` without its ".so" plus ".bin" — and
 * hands it to the model's set_params. *out is NULL on entry and on failure.
 * Errors (with a diagnostic naming the file): PSG_ERR_IO (the library cannot
 * be opened, the parameters file cannot be read), PSG_ERR_INVALID_ARGUMENT
 * (not a Passage model: no passage_model_entry; a parameters file of the
 * wrong size or one the model rejects), PSG_ERR_UNSUPPORTED (another ABI
 * version; a dtype Passage does not know), PSG_ERR_PARSE (a malformed model
 * description), PSG_ERR_NOMEM. */
PSG_API psg_status psg_compiled_load(psg_ctx *ctx, const char *path, const char *params_path, psg_compiled **out);
/* Closes the library and frees the workspace and parameters. NULL-safe. */
PSG_API void psg_compiled_free(psg_compiled *m);

/* The model's description as the library gives it (model_abi.h): names,
 * dtypes and shapes of inputs and outputs, workspace bytes, the kernel
 * calls. Borrowed: valid until psg_compiled_free. */
PSG_API const psg_model_info *psg_compiled_info(const psg_compiled *m);
/* The path it was loaded from. Borrowed. */
PSG_API const char *psg_compiled_path(const psg_compiled *m);
/* The anchor op of kernel call k, read from its name (LowerTE names a kernel
 * "<prefix>_fused_" + the names of its ops with '.' as '_'): the op of the
 * highest fusion pattern among them ("nn.conv2d" in
 * tvmgen_default_fused_nn_conv2d_add_nn_relu), else the first; the kernel's
 * own name when no op name can be read from it. Borrowed; NULL when k is out
 * of range. */
PSG_API const char *psg_compiled_kernel_op(const psg_compiled *m, size_t k);

/* Whether the library was built with OpenMP (it links libgomp's
 * omp_set_num_threads): its parallel loops then run on threads. */
PSG_API bool psg_compiled_uses_openmp(const psg_compiled *m);
/* Sets the number of threads of the model's parallel loops (OpenMP's
 * omp_set_num_threads, for the calling thread's later runs). A library built
 * without OpenMP is single-threaded: n = 1 is accepted there, any other n is
 * PSG_ERR_UNSUPPORTED with a diagnostic saying so. n < 1:
 * PSG_ERR_INVALID_ARGUMENT. */
PSG_API psg_status psg_compiled_set_num_threads(psg_compiled *m, int n);

/* Runs the model on `inputs`, one tensor per model input in the model's
 * order (n must be num_inputs). *outputs is an array of *num_outputs new
 * tensor references (the model's outputs in order), allocated with malloc:
 * release the tensors, then psg_free the array. Both are NULL/0 on failure.
 * Errors: PSG_ERR_INVALID_ARGUMENT (a missing (NULL) or extra input, a wrong
 * dtype or shape: the diagnostic names the input, what the model expects and
 * what was given; a nonzero return code of the model, named in the
 * diagnostic), PSG_ERR_NOMEM. */
PSG_API psg_status psg_compiled_run(psg_compiled *m, const psg_tensor *const *inputs, size_t n,
                                    psg_tensor ***outputs, size_t *num_outputs);
/* As psg_compiled_run with the inputs given by name: names[i] names
 * inputs[i], in any order. Also PSG_ERR_INVALID_ARGUMENT for a name the
 * model does not have (with the closest one), a name given twice, and an
 * input left out (naming it). */
PSG_API psg_status psg_compiled_run_named(psg_compiled *m, const char *const *names, const psg_tensor *const *inputs,
                                          size_t n, psg_tensor ***outputs, size_t *num_outputs);

/* Latency: `warmup` runs, then `runs` runs each timed alone (wall clock,
 * CLOCK_MONOTONIC, around the model's run only: inputs checked and outputs
 * allocated once before), seconds[i] the time of timed run i. Inputs as for
 * psg_compiled_run. Errors: those of psg_compiled_run. */
PSG_API psg_status psg_compiled_time(psg_compiled *m, const psg_tensor *const *inputs, size_t n, size_t warmup,
                                     size_t runs, double *seconds);
/* Time per kernel call: `runs` runs through the model's run_profiled, whose
 * hook reads CLOCK_MONOTONIC around each kernel call k (k < num_kernels);
 * kernel_seconds[k] and kernel_calls[k] (num_kernels entries each, zeroed
 * here) sum the time and count the calls (a kernel in a branch not taken is
 * not called), *run_seconds the whole runs' time. Errors: those of
 * psg_compiled_run; PSG_ERR_INVALID_ARGUMENT when the library reports a
 * kernel index out of range or an unbalanced begin/end. */
PSG_API psg_status psg_compiled_profile(psg_compiled *m, const psg_tensor *const *inputs, size_t n, size_t runs,
                                        double *kernel_seconds, uint64_t *kernel_calls, double *run_seconds);

PSG_END_DECLS
#endif
