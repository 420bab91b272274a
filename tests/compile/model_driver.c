/* Passage — a small driver for compiled models (tests/compile): dlopen a
 * library built by `passage compile -o` (or by cc from --emit-c with
 * -DPASSAGE_MODEL_ENTRY), find it through passage_model_entry(), and
 *   model_driver LIB.so [--entry P] [--params FILE] info
 * prints its info, one line per tensor ("input NAME DTYPE BYTES D0,D1,..");
 *   model_driver LIB.so [--params FILE] run IN0.bin .. -- OUT0.bin ..
 * runs it on raw tensors and writes raw outputs. The run is made twice, the
 * second time through run_profiled with the workspace filled with garbage
 * first, and both must give the same bytes (a plan that read a buffer
 * before writing it would differ); the profile hook's begin/end calls must
 * pair up and name kernels below num_kernels. --entry P finds the model
 * through P_info() instead (a library of several models built from
 * --emit-c files, as tests/onnx/run_compiled_node_tests.py makes). Plain C + dlopen and
 * model_abi.h only, as a loader outside Passage would be. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/model_abi.h"

static void *read_all(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t)(*n ? *n : 1))) p = NULL;
  if (p && fread(p, 1, (size_t)*n, f) != (size_t)*n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  return p;
}

typedef struct prof {
  int32_t open, calls, bad, num_kernels;
} prof;

static void hook(void *user, int32_t k, int32_t begin) {
  prof *p = user;
  if (k < 0 || k >= p->num_kernels) p->bad++;
  if (begin) {
    if (p->open != -1) p->bad++;
    p->open = k;
    p->calls++;
  } else {
    if (p->open != k) p->bad++;
    p->open = -1;
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: model_driver LIB.so [--entry P] [--params FILE] (info | run IN.. -- OUT..)\n"), 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fprintf(stderr, "dlopen: %s\n", dlerror()), 1;
  int a = 2;
  char symbol[256] = "passage_model_entry";
  if (a + 1 < argc && !strcmp(argv[a], "--entry")) {
    snprintf(symbol, sizeof symbol, "%s_info", argv[a + 1]);
    a += 2;
  }
  const psg_model_info *(*entry)(void);
  *(void **)&entry = dlsym(lib, symbol);
  if (!entry) return fprintf(stderr, "no %s in %s\n", symbol, argv[1]), 1;
  const psg_model_info *m = entry();
  if (m->abi_version != PSG_MODEL_ABI_VERSION) return fprintf(stderr, "ABI version %d\n", m->abi_version), 1;
  void *params = NULL;
  if (a + 1 < argc && !strcmp(argv[a], "--params")) {
    long n;
    params = read_all(argv[a + 1], &n);
    if (!params) return fprintf(stderr, "cannot read %s\n", argv[a + 1]), 1;
    if (!m->set_params) return fprintf(stderr, "the model takes no params file\n"), 1;
    int32_t rc = m->set_params(params, (uint64_t)n);
    if (rc) {
      free(params);
      return fprintf(stderr, "set_params: %d\n", rc), 1;
    }
    a += 2; /* params stay allocated for the model's lifetime */
  }
  if (a >= argc) return 2;
  if (!strcmp(argv[a], "info")) {
    printf("name %s\nhash %s\ntarget %s\nworkspace %llu\nintermediate %llu\nparams %llu\nkernels %d\n", m->name,
           m->module_hash, m->target, (unsigned long long)m->workspace_bytes,
           (unsigned long long)m->intermediate_bytes, (unsigned long long)m->params_bytes, m->num_kernels);
    for (int io = 0; io < 2; io++) {
      int n = io ? m->num_outputs : m->num_inputs;
      const psg_model_tensor_info *t = io ? m->outputs : m->inputs;
      for (int i = 0; i < n; i++) {
        printf("%s %s %s %llu ", io ? "output" : "input", t[i].name, t[i].dtype, (unsigned long long)t[i].bytes);
        for (int d = 0; d < t[i].ndim; d++) printf("%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        printf("\n");
      }
    }
    free(params);
    return 0;
  }
  if (strcmp(argv[a], "run")) return 2;
  a++;
  int nin = 0;
  while (a + nin < argc && strcmp(argv[a + nin], "--")) nin++;
  if (nin != m->num_inputs || a + nin + 1 + m->num_outputs != argc)
    return fprintf(stderr, "the model takes %d inputs and %d outputs\n", m->num_inputs, m->num_outputs), 2;
  const void **ins = calloc((size_t)nin + 1, sizeof *ins);
  void **outs = calloc((size_t)m->num_outputs + 1, sizeof *outs), **outs2 = calloc((size_t)m->num_outputs + 1, sizeof *outs2);
  for (int i = 0; i < nin; i++) {
    long n;
    ins[i] = read_all(argv[a + i], &n);
    if (!ins[i] || (uint64_t)n != m->inputs[i].bytes)
      return fprintf(stderr, "input %s: %s has %ld bytes, not %llu\n", m->inputs[i].name, argv[a + i], n,
                     (unsigned long long)m->inputs[i].bytes), 1;
  }
  for (int i = 0; i < m->num_outputs; i++) {
    outs[i] = malloc(m->outputs[i].bytes + 1);
    outs2[i] = malloc(m->outputs[i].bytes + 1);
  }
  void *ws = NULL;
  if (m->workspace_bytes && posix_memalign(&ws, 64, m->workspace_bytes)) return 1;
  int32_t rc = m->run(ins, outs, ws);
  if (rc) return fprintf(stderr, "run: %d\n", rc), 1;
  if (ws) memset(ws, 0xa5, m->workspace_bytes);
  prof p = {-1, 0, 0, m->num_kernels};
  rc = m->run_profiled(ins, outs2, ws, hook, &p);
  if (rc) return fprintf(stderr, "run_profiled: %d\n", rc), 1;
  if (p.bad || p.open != -1 || p.calls > m->num_kernels)
    return fprintf(stderr, "profile hook: %d bad calls, %d kernels run of %d\n", p.bad, p.calls, m->num_kernels), 1;
  for (int i = 0; i < m->num_outputs; i++) {
    if (memcmp(outs[i], outs2[i], m->outputs[i].bytes))
      return fprintf(stderr, "output %d differs between two runs\n", i), 1;
    FILE *f = fopen(argv[a + nin + 1 + i], "wb");
    if (!f || fwrite(outs[i], 1, m->outputs[i].bytes, f) != m->outputs[i].bytes) return 1;
    fclose(f);
  }
  printf("ran %d kernel calls\n", p.calls);
  for (int i = 0; i < nin; i++) free((void *)ins[i]);
  for (int i = 0; i < m->num_outputs; i++) free(outs[i]), free(outs2[i]);
  free(ins);
  free(outs);
  free(outs2);
  free(ws);
  free(params);
  return 0;
}
