/* Passage — running a compiled model on tensors (include/passage/runtime.h):
 * binding the inputs by position or by name with every check a user needs a
 * clear message for (missing, unknown, duplicate, dtype, shape), the outputs
 * as new tensors, and the timed and profiled runs of `passage bench`. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "ir/ir_internal.h"
#include "runtime/runtime_internal.h"
#include "support/support.h"

const char *psgi_compiled_format_type(char *buf, size_t cap, int dtype, const int64_t *shape, int ndim) {
  size_t n = (size_t)snprintf(buf, cap, "%s (", psg_dtype_name(dtype));
  for (int i = 0; i < ndim && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
  return buf;
}

static psg_status check_input(psg_compiled *m, int i, const psg_tensor *t) {
  const psg_model_tensor_info *want = &m->info->inputs[i];
  bool same = psg_tensor_dtype(t) == m->input_dtypes[i] && psg_tensor_ndim(t) == want->ndim;
  for (int d = 0; same && d < want->ndim; d++) same = psg_tensor_dim(t, d) == want->shape[d];
  if (same) return PSG_OK;
  int64_t dims[PSG_MAX_RANK];
  for (int d = 0; d < psg_tensor_ndim(t); d++) dims[d] = psg_tensor_dim(t, d);
  char a[512], b[512];
  return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s: input '%s' must be %s, but %s was given",
                      m->path, want->name,
                      psgi_compiled_format_type(a, sizeof a, m->input_dtypes[i], want->shape, want->ndim),
                      psgi_compiled_format_type(b, sizeof b, psg_tensor_dtype(t), dims, psg_tensor_ndim(t)));
}

static int find_input(const psg_compiled *m, const char *name) {
  for (int i = 0; i < m->info->num_inputs; i++)
    if (!strcmp(m->info->inputs[i].name, name)) return i;
  return -1;
}

static psg_status unknown_input(psg_compiled *m, const char *name) {
  const psg_model_info *in = m->info;
  const char *cands[64];
  size_t nc = 0;
  for (int i = 0; i < in->num_inputs && nc < 64; i++) cands[nc++] = in->inputs[i].name;
  const char *best = psgi_closest(name, cands, nc);
  psgi_buf b;
  psgi_buf_init(&b, m->ctx);
  for (int i = 0; i < in->num_inputs; i++) psgi_buf_printf(&b, "%s%s", i ? ", " : "", in->inputs[i].name);
  psg_status st = psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s has no input named '%s'%s%s%s (its inputs: %s)",
                               m->path, name, best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "",
                               b.failed || !b.data ? "none" : b.data);
  psgi_buf_fini(&b);
  return st;
}

psg_status psgi_compiled_bind(psg_compiled *m, const char *const *names, const psg_tensor *const *inputs, size_t n,
                              const void **data) {
  const psg_model_info *in = m->info;
  for (int i = 0; i < in->num_inputs; i++) data[i] = NULL;
  if (!names && n != (size_t)in->num_inputs)
    return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s takes %d input%s, but %zu %s given", m->path,
                        in->num_inputs, in->num_inputs == 1 ? "" : "s", n, n == 1 ? "was" : "were");
  for (size_t k = 0; k < n; k++) {
    int i = (int)k;
    if (names) {
      if (!names[k]) return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s: input %zu has no name", m->path, k);
      if ((i = find_input(m, names[k])) < 0) return unknown_input(m, names[k]);
      if (data[i])
        return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s: input '%s' is given twice", m->path, names[k]);
    }
    if (!inputs[k]) continue; /* reported as missing below */
    psg_status st = check_input(m, i, inputs[k]);
    if (st) return st;
    /* An empty tensor's data may be NULL; the model reads none of it. */
    data[i] = psg_tensor_nbytes(inputs[k]) ? psg_tensor_data(inputs[k]) : (const void *)m;
  }
  for (int i = 0; i < in->num_inputs; i++)
    if (!data[i]) {
      char a[512];
      return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s: no value for input '%s' (%s)", m->path,
                          in->inputs[i].name,
                          psgi_compiled_format_type(a, sizeof a, m->input_dtypes[i], in->inputs[i].shape,
                                                    in->inputs[i].ndim));
    }
  return PSG_OK;
}

psg_status psgi_compiled_alloc_outputs(psg_compiled *m, psg_tensor **outs, void **data) {
  const psg_model_info *in = m->info;
  for (int i = 0; i < in->num_outputs; i++) {
    const psg_model_tensor_info *o = &in->outputs[i];
    psg_status st = psgi_tensor_alloc(m->ctx, m->output_dtypes[i], o->shape, o->ndim, &outs[i]);
    if (st) {
      for (int j = 0; j < i; j++) psg_tensor_release(outs[j]);
      return st;
    }
    data[i] = (void *)psg_tensor_data(outs[i]); /* ours until returned */
  }
  return PSG_OK;
}

static psg_status failed_run(psg_compiled *m, int32_t rc) {
  return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%s: the model's run failed with code %d (a check in the "
                      "generated code did not hold)", m->path, (int)rc);
}

/* Bound inputs and allocated outputs of one run (or of many timed runs). */
typedef struct run_frame {
  const void **in;
  void **out;
  psg_tensor **outs;
} run_frame;

static void frame_fini(psg_compiled *m, run_frame *f, bool keep_outs) {
  if (!keep_outs && f->outs)
    for (int i = 0; i < m->info->num_outputs; i++) psg_tensor_release(f->outs[i]);
  psgi_free(m->ctx, f->in);
  psgi_free(m->ctx, f->out);
}

static psg_status frame_init(psg_compiled *m, const char *const *names, const psg_tensor *const *inputs, size_t n,
                             run_frame *f) {
  const psg_model_info *in = m->info;
  memset(f, 0, sizeof *f);
  f->in = psgi_calloc(m->ctx, sizeof(void *) * (size_t)(in->num_inputs + 1));
  f->out = psgi_calloc(m->ctx, sizeof(void *) * (size_t)(in->num_outputs + 1));
  f->outs = psgi_result_alloc(sizeof(psg_tensor *) * (size_t)(in->num_outputs + 1));
  psg_status st = !f->in || !f->out || !f->outs ? psgi_nomem(m->ctx) : PSG_OK;
  if (!st) st = psgi_compiled_bind(m, names, inputs, n, f->in);
  if (!st) st = psgi_compiled_alloc_outputs(m, f->outs, f->out);
  if (st) {
    psg_free(f->outs);
    f->outs = NULL;
    frame_fini(m, f, true);
  }
  return st;
}

static psg_status run(psg_compiled *m, const char *const *names, const psg_tensor *const *inputs, size_t n,
                      psg_tensor ***outputs, size_t *num_outputs) {
  *outputs = NULL;
  *num_outputs = 0;
  run_frame f;
  psg_status st = frame_init(m, names, inputs, n, &f);
  if (st) return st;
  int32_t rc = m->info->run(f.in, f.out, m->workspace);
  if (rc != 0) {
    frame_fini(m, &f, false);
    psg_free(f.outs);
    return failed_run(m, rc);
  }
  frame_fini(m, &f, true);
  *outputs = f.outs;
  *num_outputs = (size_t)m->info->num_outputs;
  return PSG_OK;
}

psg_status psg_compiled_run(psg_compiled *m, const psg_tensor *const *inputs, size_t n, psg_tensor ***outputs,
                            size_t *num_outputs) {
  return run(m, NULL, inputs, n, outputs, num_outputs);
}

psg_status psg_compiled_run_named(psg_compiled *m, const char *const *names, const psg_tensor *const *inputs,
                                  size_t n, psg_tensor ***outputs, size_t *num_outputs) {
  return run(m, names, inputs, n, outputs, num_outputs);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

psg_status psg_compiled_time(psg_compiled *m, const psg_tensor *const *inputs, size_t n, size_t warmup, size_t runs,
                             double *seconds) {
  run_frame f;
  psg_status st = frame_init(m, NULL, inputs, n, &f);
  if (st) return st;
  for (size_t r = 0; !st && r < warmup + runs; r++) {
    double t0 = now();
    int32_t rc = m->info->run(f.in, f.out, m->workspace);
    double t1 = now();
    if (rc != 0) st = failed_run(m, rc);
    else if (r >= warmup) seconds[r - warmup] = t1 - t0;
  }
  frame_fini(m, &f, false);
  psg_free(f.outs);
  return st;
}

/* The profile hook's state: which kernel call is open and since when. */
typedef struct profile {
  double *seconds;
  uint64_t *calls;
  int32_t num_kernels;
  int32_t open;       /* the kernel call begun and not ended, or -1 */
  double started;
  int32_t bad_kernel; /* the first index out of range or unbalanced, or -1 */
} profile;

static void hook(void *user, int32_t kernel, int32_t begin) {
  double t = begin ? 0 : now(); /* first thing: the kernel's end */
  profile *p = user;
  bool fits = kernel >= 0 && kernel < p->num_kernels;
  if (begin && fits && p->open < 0) {
    p->open = kernel;
    p->started = now(); /* last thing: the kernel's start */
    return;
  }
  if (!begin && fits && p->open == kernel) {
    p->seconds[kernel] += t - p->started;
    p->calls[kernel]++;
    p->open = -1;
    return;
  }
  if (p->bad_kernel < 0) p->bad_kernel = kernel;
}

psg_status psg_compiled_profile(psg_compiled *m, const psg_tensor *const *inputs, size_t n, size_t runs,
                                double *kernel_seconds, uint64_t *kernel_calls, double *run_seconds) {
  const psg_model_info *in = m->info;
  for (int k = 0; k < in->num_kernels; k++) kernel_seconds[k] = 0, kernel_calls[k] = 0;
  *run_seconds = 0;
  if (!in->run_profiled)
    return psg_ctx_fail(m->ctx, PSG_ERR_UNSUPPORTED, "%s has no profiled run (run_profiled is NULL)", m->path);
  run_frame f;
  psg_status st = frame_init(m, NULL, inputs, n, &f);
  if (st) return st;
  profile p = {kernel_seconds, kernel_calls, in->num_kernels, -1, 0, -1};
  for (size_t r = 0; !st && r < runs; r++) {
    double t0 = now();
    int32_t rc = in->run_profiled(f.in, f.out, m->workspace, hook, &p);
    *run_seconds += now() - t0;
    if (rc != 0) st = failed_run(m, rc);
    else if (p.bad_kernel >= 0 || p.open >= 0)
      st = psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT,
                        "%s: the profile hook was called for kernel %d out of order or out of range (%d kernels)",
                        m->path, (int)(p.bad_kernel >= 0 ? p.bad_kernel : p.open), (int)in->num_kernels);
  }
  frame_fini(m, &f, false);
  psg_free(f.outs);
  return st;
}
