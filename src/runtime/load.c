/* Passage — loading a compiled model (include/passage/runtime.h, issue 17
 * item 4): dlopen, passage_model_entry, the ABI version, a check of the
 * model's description (so that a run never reads past what it declares), the
 * workspace, and the parameters' side file handed to set_params. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "runtime/runtime_internal.h"
#include "support/support.h"

enum { ALIGN = 64 };

/* n bytes, 64-byte aligned, from the context's allocator: *block is what to
 * free. n = 0 gives NULL (and no block). */
static void *alloc_aligned(psg_ctx *ctx, uint64_t n, void **block) {
  *block = NULL;
  if (n == 0) return NULL;
  if (n > SIZE_MAX - ALIGN) return NULL;
  *block = psgi_alloc(ctx, (size_t)n + ALIGN - 1);
  if (!*block) return NULL;
  return (void *)(((uintptr_t)*block + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
}

static psg_status malformed(psg_compiled *m, const char *what) {
  return psg_ctx_fail(m->ctx, PSG_ERR_PARSE, "%s: malformed model description: %s", m->path, what);
}

/* One input or output's description: a name, a dtype Passage knows, a shape
 * of at most PSG_MAX_RANK non-negative dims, and bytes that match them. */
static psg_status check_tensor(psg_compiled *m, const psg_model_tensor_info *t, const char *kind, int index,
                               int *dtype) {
  if (!t->name || !t->dtype) return malformed(m, kind);
  *dtype = psg_dtype_from_name(t->dtype, strlen(t->dtype));
  if (*dtype == PSG_DTYPE_INVALID)
    return psg_ctx_fail(m->ctx, PSG_ERR_UNSUPPORTED, "%s: %s %d ('%s') has dtype '%s', which Passage does not know",
                        m->path, kind, index, t->name, t->dtype);
  if (t->ndim < 0 || t->ndim > PSG_MAX_RANK || (t->ndim > 0 && !t->shape)) return malformed(m, "a rank out of range");
  int64_t bytes = (int64_t)psg_dtype_size(*dtype);
  for (int i = 0; i < t->ndim; i++)
    if (t->shape[i] < 0 || !psgi_checked_mul(bytes, t->shape[i], &bytes))
      return malformed(m, "a negative or too large dim");
  if ((uint64_t)bytes != t->bytes) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s '%.20s' declares %llu bytes for %lld", kind, t->name, (unsigned long long)t->bytes,
             (long long)bytes);
    return malformed(m, buf);
  }
  return PSG_OK;
}

static psg_status check_info(psg_compiled *m) {
  const psg_model_info *in = m->info;
  if (in->abi_version != PSG_MODEL_ABI_VERSION)
    return psg_ctx_fail(m->ctx, PSG_ERR_UNSUPPORTED,
                        "%s was compiled for model ABI version %d; this Passage loads version %d "
                        "(compile the model again with this passage)",
                        m->path, (int)in->abi_version, PSG_MODEL_ABI_VERSION);
  if (in->num_inputs < 0 || in->num_outputs < 0 || in->num_kernels < 0) return malformed(m, "a negative count");
  if ((in->num_inputs && !in->inputs) || (in->num_outputs && !in->outputs)) return malformed(m, "no tensor list");
  if (!in->run) return malformed(m, "no run function");
  if (in->params_bytes && !in->set_params) return malformed(m, "parameters but no set_params");
  if (in->num_kernels && !in->kernel_names) return malformed(m, "no kernel names");
  for (int k = 0; k < in->num_kernels; k++)
    if (!in->kernel_names[k]) return malformed(m, "a kernel without a name");
  m->input_dtypes = psgi_calloc(m->ctx, sizeof(int) * (size_t)(in->num_inputs + 1));
  m->output_dtypes = psgi_calloc(m->ctx, sizeof(int) * (size_t)(in->num_outputs + 1));
  if (!m->input_dtypes || !m->output_dtypes) return psgi_nomem(m->ctx);
  psg_status st = PSG_OK;
  for (int i = 0; !st && i < in->num_inputs; i++) st = check_tensor(m, &in->inputs[i], "input", i, &m->input_dtypes[i]);
  for (int i = 0; !st && i < in->num_outputs; i++)
    st = check_tensor(m, &in->outputs[i], "output", i, &m->output_dtypes[i]);
  return st;
}

/* The side file's default path: `path` without ".so", plus ".bin". */
static char *default_params_path(psg_ctx *ctx, const char *path) {
  size_t n = strlen(path);
  if (n > 3 && !strcmp(path + n - 3, ".so")) n -= 3;
  char *out = psgi_alloc(ctx, n + 5);
  if (out) {
    memcpy(out, path, n);
    memcpy(out + n, ".bin", 5);
  }
  return out;
}

/* Reads the parameters file (exactly params_bytes bytes) and hands it over. */
static psg_status load_params(psg_compiled *m, const char *given) {
  uint64_t want = m->info->params_bytes;
  char *owned = given ? NULL : default_params_path(m->ctx, m->path);
  const char *path = given ? given : owned;
  if (!path) return psgi_nomem(m->ctx);
  psg_status st = PSG_OK;
  FILE *f = fopen(path, "rb");
  if (!f) {
    st = psg_ctx_fail(m->ctx, PSG_ERR_IO, "%s needs its parameters file %s (%llu bytes), which cannot be opened: %s",
                      m->path, path, (unsigned long long)want, strerror(errno));
    goto done;
  }
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    st = psg_ctx_fail(m->ctx, PSG_ERR_IO, "cannot read parameters file %s: %s", path, strerror(errno));
    goto done;
  }
  if ((uint64_t)size != want) {
    st = psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT,
                      "parameters file %s has %ld bytes, but %s expects %llu: it belongs to another model or build",
                      path, size, m->path, (unsigned long long)want);
    goto done;
  }
  m->params = alloc_aligned(m->ctx, want, &m->params_block);
  if (!m->params) {
    st = psgi_nomem(m->ctx);
    goto done;
  }
  if (fread(m->params, 1, (size_t)want, f) != want) {
    st = psg_ctx_fail(m->ctx, PSG_ERR_IO, "cannot read parameters file %s: short read", path);
    goto done;
  }
  int32_t rc = m->info->set_params(m->params, want);
  if (rc != 0)
    st = psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT,
                      "%s rejects parameters file %s (set_params returned %d): it belongs to another model or build",
                      m->path, path, (int)rc);
done:
  if (f) fclose(f);
  psgi_free(m->ctx, owned);
  return st;
}

/* OpenMP's worker threads stay parked in libgomp after a run: unloading it
 * with the model (its only user) would leave them on unmapped code. So the
 * runtime that defines omp_set_num_threads is made RTLD_NODELETE; the model
 * itself may go. */
static void pin_openmp(void (*fn)(int)) {
  Dl_info where;
  void *h;
  if (dladdr(*(void **)&fn, &where) && where.dli_fname &&
      (h = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE)) != NULL)
    dlclose(h); /* the flag stays */
}

psg_status psg_compiled_load(psg_ctx *ctx, const char *path, const char *params_path, psg_compiled **out) {
  *out = NULL;
  if (!path || !*path) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_compiled_load: no path");
  psg_compiled *m = psgi_calloc(ctx, sizeof *m);
  if (!m) return psgi_nomem(ctx);
  m->ctx = ctx;
  psg_ctx_retain(ctx);
  psg_status st = PSG_OK;
  size_t n = strlen(path);
  bool bare = !strchr(path, '/'); /* dlopen would search the library path for it */
  m->path = psgi_alloc(ctx, n + 3);
  if (!m->path) {
    st = psgi_nomem(ctx);
    goto fail;
  }
  snprintf(m->path, n + 3, "%s%s", bare ? "./" : "", path);
  dlerror();
  m->handle = dlopen(m->path, RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    const char *why = dlerror();
    st = psg_ctx_fail(ctx, PSG_ERR_IO, "cannot load %s as a compiled model: %s", path, why ? why : "dlopen failed");
    goto fail;
  }
  const psg_model_info *(*entry)(void);
  *(void **)&entry = dlsym(m->handle, "passage_model_entry");
  if (!entry) {
    st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                      "%s is not a Passage model: it has no passage_model_entry (build one with `passage compile "
                      "MODEL -o OUT.so`)",
                      path);
    goto fail;
  }
  m->info = entry();
  if (!m->info) {
    st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "%s: passage_model_entry returned no model", path);
    goto fail;
  }
  if ((st = check_info(m)) != PSG_OK) goto fail;
  *(void **)&m->omp_set_num_threads = dlsym(m->handle, "omp_set_num_threads");
  if (m->omp_set_num_threads) pin_openmp(m->omp_set_num_threads);
  int nk = m->info->num_kernels;
  m->kernel_ops = psgi_calloc(ctx, sizeof(const char *) * (size_t)(nk + 1));
  if (!m->kernel_ops) {
    st = psgi_nomem(ctx);
    goto fail;
  }
  for (int k = 0; k < nk; k++) {
    const char *op = psgi_compiled_anchor_op(m->info->kernel_names[k]);
    m->kernel_ops[k] = op ? op : m->info->kernel_names[k];
  }
  m->workspace = alloc_aligned(ctx, m->info->workspace_bytes, &m->workspace_block);
  if (m->info->workspace_bytes && !m->workspace) {
    st = psgi_nomem(ctx);
    goto fail;
  }
  if (m->info->params_bytes && (st = load_params(m, params_path)) != PSG_OK) goto fail;
  *out = m;
  return PSG_OK;
fail:
  psg_compiled_free(m);
  return st;
}

void psg_compiled_free(psg_compiled *m) {
  if (!m) return;
  psg_ctx *ctx = m->ctx;
  if (m->handle) dlclose(m->handle);
  psgi_free(ctx, m->workspace_block);
  psgi_free(ctx, m->params_block);
  psgi_free(ctx, m->kernel_ops);
  psgi_free(ctx, m->input_dtypes);
  psgi_free(ctx, m->output_dtypes);
  psgi_free(ctx, m->path);
  psgi_free(ctx, m);
  psg_ctx_release(ctx);
}

const psg_model_info *psg_compiled_info(const psg_compiled *m) { return m->info; }

const char *psg_compiled_path(const psg_compiled *m) { return m->path; }

const char *psg_compiled_kernel_op(const psg_compiled *m, size_t k) {
  return k < (size_t)m->info->num_kernels ? m->kernel_ops[k] : NULL;
}

bool psg_compiled_uses_openmp(const psg_compiled *m) { return m->omp_set_num_threads != NULL; }

psg_status psg_compiled_set_num_threads(psg_compiled *m, int n) {
  if (n < 1) return psg_ctx_fail(m->ctx, PSG_ERR_INVALID_ARGUMENT, "%d threads: give at least 1", n);
  if (m->omp_set_num_threads) {
    m->omp_set_num_threads(n);
    return PSG_OK;
  }
  if (n == 1) return PSG_OK;
  return psg_ctx_fail(m->ctx, PSG_ERR_UNSUPPORTED,
                      "%s was built without OpenMP: it runs single-threaded, not on %d threads", m->path, n);
}
