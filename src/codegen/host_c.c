/* Passage — the host function in C (host_c.h). The lowered @main's steps
 * become calls of the kernels in order over pointers into one workspace
 * (the plan's offsets), the caller's input and output buffers, and the
 * constants; Relay If becomes C if/else; a copy is memcpy. No malloc, no
 * stdio: the entry path only calls kernels, memcpy and the profile hook. */
#include <inttypes.h>
#include <stdio.h>
#include "codegen/host_c.h"
#include "codegen/memory_plan.h"
#include "passage/type.h"

#define NONE UINT32_MAX

const char psgi_model_abi_text[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "\n"
    "#define PSG_MODEL_ABI_VERSION 1\n"
    "\n"
    "/* One input or output tensor: dense, row-major, shape fixed at compile time. */\n"
    "typedef struct psg_model_tensor_info {\n"
    "  const char *name;     /* input: the Relay parameter's name; output: \"output0\", \"output1\", ... */\n"
    "  const char *dtype;    /* TVM's dtype name: \"float32\", \"int64\", \"bool\", ... */\n"
    "  int32_t ndim;\n"
    "  const int64_t *shape; /* ndim extents */\n"
    "  uint64_t bytes;       /* product of the shape times the element size */\n"
    "} psg_model_tensor_info;\n"
    "\n"
    "/* Called with begin = 1 before kernel `kernel` runs and begin = 0 after it. */\n"
    "typedef void (*psg_model_profile_hook)(void *user, int32_t kernel, int32_t begin);\n"
    "\n"
    "typedef struct psg_model_info {\n"
    "  int32_t abi_version;              /* PSG_MODEL_ABI_VERSION */\n"
    "  const char *name;                 /* the name prefix P */\n"
    "  const char *module_hash;          /* structural hash of the lowered module, 16 hex digits */\n"
    "  const char *target;               /* the Target string it was compiled for */\n"
    "  int32_t num_inputs, num_outputs;\n"
    "  const psg_model_tensor_info *inputs, *outputs;\n"
    "  uint64_t workspace_bytes;         /* the static plan's peak: every intermediate and kernel scratch */\n"
    "  uint64_t intermediate_bytes;      /* the same intermediates without reuse (their sum) */\n"
    "  uint64_t params_bytes;            /* 0: constants are compiled in; else the size of the side file */\n"
    "  int32_t num_kernels;              /* calls of kernels in the host function, in program order */\n"
    "  const char *const *kernel_names;  /* num_kernels names (a kernel called twice appears twice) */\n"
    "  /* Runs the model. inputs[i] / outputs[i] point at tensors of inputs[i].bytes /\n"
    "   * outputs[i].bytes; workspace at workspace_bytes, 64-byte aligned (NULL when\n"
    "   * workspace_bytes is 0). Returns 0, or the nonzero code of a failed check. */\n"
    "  int32_t (*run)(const void *const *inputs, void *const *outputs, void *workspace);\n"
    "  /* As run, calling hook(user, k, 1) / hook(user, k, 0) around kernel call k. */\n"
    "  int32_t (*run_profiled)(const void *const *inputs, void *const *outputs, void *workspace,\n"
    "                          psg_model_profile_hook hook, void *user);\n"
    "  /* When params_bytes > 0: hands the model the side file's contents (kept by\n"
    "   * the caller for the model's lifetime) before the first run. Returns 0, or\n"
    "   * nonzero when the size or the file's header does not match the model. */\n"
    "  int32_t (*set_params)(const void *params, uint64_t bytes);\n"
    "} psg_model_info;\n";

static const char *c_type(int dtype) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT32: return "float";
  case PSG_DTYPE_FLOAT64: return "double";
  case PSG_DTYPE_INT8: return "int8_t";
  case PSG_DTYPE_INT16: return "int16_t";
  case PSG_DTYPE_INT32: return "int32_t";
  case PSG_DTYPE_INT64: return "int64_t";
  case PSG_DTYPE_UINT8: return "uint8_t";
  case PSG_DTYPE_UINT16: return "uint16_t";
  case PSG_DTYPE_UINT32: return "uint32_t";
  case PSG_DTYPE_UINT64: return "uint64_t";
  case PSG_DTYPE_BOOL: return "uint8_t";
  default: return "uint16_t"; /* float16, bfloat16: bits */
  }
}

static const char *bits_type(size_t size) {
  return size == 1 ? "uint8_t" : size == 2 ? "uint16_t" : size == 4 ? "uint32_t" : "uint64_t";
}

void psgi_host_c_kernel_name(const psgi_host_program *p, uint32_t k, char *buf, size_t size) {
  snprintf(buf, size, "%s", p->kernels.data[k].name);
  for (char *c = buf; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) *c = '_';
  if (buf[0] >= '0' && buf[0] <= '9') buf[0] = '_';
}

/* A C string literal of s. */
static void put_string(psgi_buf *b, const char *s) {
  psgi_buf_putc(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') psgi_buf_printf(b, "\\%c", c);
    else if (c < 32 || c >= 127) psgi_buf_printf(b, "\\%03o", c);
    else psgi_buf_putc(b, (char)c);
  }
  psgi_buf_putc(b, '"');
}

uint64_t psgi_host_c_params_layout(const psgi_host_program *p, uint64_t *offsets) {
  uint64_t at = 0;
  for (size_t i = 0; i < p->consts.len; i++) {
    offsets[i] = at;
    at += (psg_tensor_nbytes(p->consts.data[i]) + PSGI_PLAN_ALIGN - 1) / PSGI_PLAN_ALIGN * PSGI_PLAN_ALIGN;
  }
  return PSGI_PARAMS_HEADER_BYTES + at;
}

/* The params file's header: magic, version, header size, module hash,
 * payload bytes (little endian). */
static void params_header(const psgi_host_c_opts *o, uint64_t total, uint8_t h[PSGI_PARAMS_HEADER_BYTES]) {
  memset(h, 0, PSGI_PARAMS_HEADER_BYTES);
  memcpy(h, "PSGPARAM", 8);
  h[8] = 1;                        /* version */
  h[12] = PSGI_PARAMS_HEADER_BYTES; /* header bytes */
  memcpy(h + 16, o->module_hash, 16);
  uint64_t payload = total - PSGI_PARAMS_HEADER_BYTES;
  for (int i = 0; i < 8; i++) h[32 + i] = (uint8_t)(payload >> (8 * i));
}

psg_status psgi_host_c_params(const psgi_host_program *p, const psgi_host_c_opts *o, uint8_t **out, uint64_t *bytes) {
  uint64_t *offs = psgi_alloc(p->ctx, psgi_mul_size(p->consts.len + 1, sizeof *offs));
  if (!offs) return psgi_nomem(p->ctx);
  uint64_t total = psgi_host_c_params_layout(p, offs);
  uint8_t *blob = psgi_calloc(p->ctx, (size_t)total);
  if (!blob) {
    psgi_free(p->ctx, offs);
    return psgi_nomem(p->ctx);
  }
  params_header(o, total, blob);
  for (size_t i = 0; i < p->consts.len; i++)
    memcpy(blob + PSGI_PARAMS_HEADER_BYTES + offs[i], psg_tensor_data(p->consts.data[i]),
           psg_tensor_nbytes(p->consts.data[i]));
  psgi_free(p->ctx, offs);
  *out = blob;
  *bytes = total;
  return PSG_OK;
}

/* One constant as a union of its bits and its element type, so the exact
 * bit pattern (NaN payloads, -0.0) is kept and the kernel reads its type. */
static void put_constant(psgi_buf *b, const char *P, size_t k, const psg_tensor *t) {
  int dtype = psg_tensor_dtype(t);
  size_t es = psg_dtype_size(dtype), n = psg_tensor_nbytes(t) / (es ? es : 1);
  const uint8_t *d = psg_tensor_data(t);
  psgi_buf_printf(b, "static const union { %s bits[%zu]; %s v[%zu]; } %s_c%zu __attribute__((aligned(64))) = {{",
                  bits_type(es), n ? n : 1, c_type(dtype), n ? n : 1, P, k);
  if (!n) psgi_buf_puts(b, "0");
  for (size_t i = 0; i < n; i++) {
    uint64_t x = 0;
    memcpy(&x, d + i * es, es); /* little endian host: the low bytes */
    if (i % 8 == 0) psgi_buf_puts(b, "\n  ");
    if (es == 8) psgi_buf_printf(b, "0x%016" PRIx64 "ull,", x);
    else psgi_buf_printf(b, "0x%0*" PRIx64 "%s,", (int)(2 * es), x, es == 4 ? "u" : "");
  }
  psgi_buf_puts(b, "\n}};\n");
}

/* The C expression of a pointer to value v's storage. */
static void put_ref(psgi_buf *b, const psgi_host_program *p, const psgi_host_c_opts *o, const uint64_t *coffs, uint32_t v) {
  uint32_t h = psgi_host_home(p, v);
  const psgi_host_value *x = &p->values.data[h];
  switch (x->kind) {
  case PSGI_VALUE_INPUT: psgi_buf_printf(b, "(void *)inputs[%u]", x->index); break;
  case PSGI_VALUE_OUTPUT: psgi_buf_printf(b, "outputs[%u]", x->index); break;
  case PSGI_VALUE_CONST:
    if (o->params_file)
      psgi_buf_printf(b, "(void *)(%s_params + %" PRIu64 ")", o->name, PSGI_PARAMS_HEADER_BYTES + coffs[x->index]);
    else
      psgi_buf_printf(b, "(void *)%s_c%u.v", o->name, x->index);
    break;
  case PSGI_VALUE_TEMP:
  case PSGI_VALUE_SCRATCH: psgi_buf_printf(b, "(void *)(ws + %" PRIu64 ")", p->buffers[x->plan].offset); break;
  }
}

static void indent(psgi_buf *b, int depth) {
  for (int i = 0; i < depth; i++) psgi_buf_puts(b, "  ");
}

static void put_shape(psgi_buf *b, const psgi_host_value *v) {
  psgi_buf_putc(b, '[');
  for (int i = 0; i < v->ndim; i++) psgi_buf_printf(b, "%s%" PRId64, i ? ", " : "", v->shape[i]);
  psgi_buf_putc(b, ']');
}

static void put_tensor_infos(psgi_buf *b, const psgi_host_program *p, const char *P, const char *what,
                             const uint32_t *ids, size_t n, const char *const *names) {
  for (size_t i = 0; i < n; i++) {
    const psgi_host_value *v = &p->values.data[ids[i]];
    psgi_buf_printf(b, "static const int64_t %s_%s%zu_shape[] = {", P, what, i);
    for (int d = 0; d < v->ndim; d++) psgi_buf_printf(b, "%s%" PRId64, d ? ", " : "", v->shape[d]);
    psgi_buf_puts(b, v->ndim ? "};\n" : "0};\n");
  }
  if (!n) return;
  psgi_buf_printf(b, "static const psg_model_tensor_info %s_%ss[] = {\n", P, what);
  for (size_t i = 0; i < n; i++) {
    const psgi_host_value *v = &p->values.data[ids[i]];
    char oname[32];
    snprintf(oname, sizeof oname, "output%zu", i);
    psgi_buf_puts(b, "  {");
    put_string(b, names ? names[i] : oname);
    psgi_buf_printf(b, ", \"%s\", %d, %s_%s%zu_shape, %" PRIu64 "u},\n", psg_dtype_name(v->dtype), v->ndim, P, what, i,
                    v->bytes);
  }
  psgi_buf_puts(b, "};\n");
}

psg_status psgi_host_c_emit(const psgi_host_program *p, const psgi_host_c_opts *o, psgi_buf *b) {
  const char *P = o->name;
  uint64_t *coffs = psgi_alloc(p->ctx, psgi_mul_size(p->consts.len + 1, sizeof *coffs));
  if (!coffs) return psgi_nomem(p->ctx);
  uint64_t params_bytes = psgi_host_c_params_layout(p, coffs);
  /* constants */
  if (o->params_file) {
    uint8_t h[PSGI_PARAMS_HEADER_BYTES];
    params_header(o, params_bytes, h);
    psgi_buf_printf(b, "\n/* Constants: in the params file (%" PRIu64 " bytes), handed over by set_params. */\n",
                    params_bytes);
    psgi_buf_printf(b, "static const uint8_t *%s_params;\nstatic const uint8_t %s_params_header[%d] = {", P, P,
                    PSGI_PARAMS_HEADER_BYTES);
    for (int i = 0; i < PSGI_PARAMS_HEADER_BYTES; i++) psgi_buf_printf(b, "%s%u", i ? "," : "", h[i]);
    psgi_buf_puts(b, "};\n");
    psgi_buf_printf(b,
                    "static int32_t %s_set_params(const void *params, uint64_t bytes) {\n"
                    "  const uint8_t *q = (const uint8_t *)params;\n"
                    "  if (bytes != %" PRIu64 "u || !q) return 1;\n"
                    "  if ((uintptr_t)q %% 64) return 2; /* the kernels assume 64-byte aligned constants */\n"
                    "  for (int i = 0; i < %d; i++)\n"
                    "    if (q[i] != %s_params_header[i]) return 3; /* another model's file, or another version */\n"
                    "  %s_params = q;\n"
                    "  return 0;\n"
                    "}\n",
                    P, params_bytes, PSGI_PARAMS_HEADER_BYTES, P, P);
  } else if (p->consts.len) {
    psgi_buf_puts(b, "\n/* Constants (exact bits; each 64-byte aligned). */\n");
    for (size_t i = 0; i < p->consts.len; i++) put_constant(b, P, i, p->consts.data[i]);
  }
  /* the host function */
  psgi_buf_printf(b,
                  "\n/* The host function: %u kernel calls over a workspace of %" PRIu64 " bytes (%" PRIu64
                  " without reuse). */\n"
                  "static int32_t %s_run_impl(const void *const *inputs, void *const *outputs, void *workspace,\n"
                  "                           psg_model_profile_hook hook, void *user) {\n"
                  "  uint8_t *ws = (uint8_t *)workspace;\n"
                  "  (void)inputs; (void)outputs; (void)ws; (void)hook; (void)user;\n",
                  p->num_calls, p->workspace_bytes, p->intermediate_bytes, P);
  if (o->params_file) psgi_buf_printf(b, "  if (!%s_params) return -1; /* set_params was not called */\n", P);
  if (p->num_calls) psgi_buf_puts(b, "  int32_t rc;\n");
  int depth = 1;
  uint32_t call = 0;
  char kname[256];
  for (size_t i = 0; i < p->steps.len; i++) {
    const psgi_host_step *s = &p->steps.data[i];
    switch (s->kind) {
    case PSGI_STEP_CALL: {
      psgi_host_c_kernel_name(p, s->kernel, kname, sizeof kname);
      indent(b, depth);
      psgi_buf_printf(b, "if (hook) hook(user, %u, 1);\n", call);
      indent(b, depth);
      psgi_buf_printf(b, "rc = %s(", kname);
      for (uint32_t a = 0; a < s->nin + s->nout; a++) {
        put_ref(b, p, o, coffs, p->args.data[s->arg0 + a]);
        psgi_buf_puts(b, ", ");
      }
      if (s->scratch != NONE) psgi_buf_printf(b, "ws + %" PRIu64 ");\n", p->buffers[p->values.data[s->scratch].plan].offset);
      else psgi_buf_puts(b, "(uint8_t *)0);\n");
      indent(b, depth);
      psgi_buf_printf(b, "if (hook) hook(user, %u, 0);\n", call);
      indent(b, depth);
      psgi_buf_puts(b, "if (rc) return rc;\n");
      call++;
      break;
    }
    case PSGI_STEP_COPY:
      indent(b, depth);
      psgi_buf_puts(b, "memcpy(");
      put_ref(b, p, o, coffs, s->dst);
      psgi_buf_puts(b, ", ");
      put_ref(b, p, o, coffs, s->src);
      psgi_buf_printf(b, ", %" PRIu64 "u);\n", p->values.data[s->src].bytes);
      break;
    case PSGI_STEP_IF: {
      const psgi_host_value *c = &p->values.data[s->cond];
      indent(b, depth);
      psgi_buf_printf(b, "if (*(const %s *)", c_type(c->dtype));
      put_ref(b, p, o, coffs, s->cond);
      psgi_buf_puts(b, " != 0) {\n");
      depth++;
      break;
    }
    case PSGI_STEP_ELSE:
      indent(b, depth - 1);
      psgi_buf_puts(b, "} else {\n");
      break;
    case PSGI_STEP_ENDIF:
      depth--;
      indent(b, depth);
      psgi_buf_puts(b, "}\n");
      break;
    }
  }
  psgi_buf_puts(b, "  return 0;\n}\n\n");
  /* the info */
  put_tensor_infos(b, p, P, "input", p->inputs.data, p->inputs.len, p->input_names.data);
  put_tensor_infos(b, p, P, "output", p->outputs.data, p->outputs.len, NULL);
  if (p->num_calls) {
    psgi_buf_printf(b, "static const char *const %s_kernel_names[] = {\n", P);
    for (size_t i = 0; i < p->steps.len; i++)
      if (p->steps.data[i].kind == PSGI_STEP_CALL) {
        psgi_buf_puts(b, "  ");
        put_string(b, p->kernels.data[p->steps.data[i].kernel].name);
        psgi_buf_puts(b, ",\n");
      }
    psgi_buf_puts(b, "};\n");
  }
  psgi_buf_printf(b,
                  "static int32_t %s_run_ws(const void *const *inputs, void *const *outputs, void *workspace) {\n"
                  "  return %s_run_impl(inputs, outputs, workspace, (psg_model_profile_hook)0, (void *)0);\n}\n"
                  "static int32_t %s_run_profiled(const void *const *inputs, void *const *outputs, void *workspace,\n"
                  "                               psg_model_profile_hook hook, void *user) {\n"
                  "  return %s_run_impl(inputs, outputs, workspace, hook, user);\n}\n",
                  P, P, P, P);
  psgi_buf_printf(b, "static const psg_model_info %s_info_ = {\n  PSG_MODEL_ABI_VERSION, ", P);
  put_string(b, P);
  psgi_buf_printf(b, ", \"%s\", ", o->module_hash);
  put_string(b, o->target);
  psgi_buf_printf(b, ",\n  %zu, %zu, ", p->inputs.len, p->outputs.len);
  psgi_buf_printf(b, p->inputs.len ? "%s_inputs, " : "(const psg_model_tensor_info *)0, ", P);
  psgi_buf_printf(b, p->outputs.len ? "%s_outputs,\n" : "(const psg_model_tensor_info *)0,\n", P);
  psgi_buf_printf(b, "  %" PRIu64 "u, %" PRIu64 "u, %" PRIu64 "u, %u, ", p->workspace_bytes, p->intermediate_bytes,
                  o->params_file ? params_bytes : 0, p->num_calls);
  psgi_buf_printf(b, p->num_calls ? "%s_kernel_names,\n" : "(const char *const *)0,\n", P);
  psgi_buf_printf(b, "  %s_run_ws, %s_run_profiled, ", P, P);
  if (o->params_file) psgi_buf_printf(b, "%s_set_params\n};\n", P);
  else psgi_buf_puts(b, "(int32_t (*)(const void *, uint64_t))0\n};\n");
  psgi_buf_printf(b, "const psg_model_info *%s_info(void) { return &%s_info_; }\n\n", P, P);
  if (p->workspace_bytes)
    psgi_buf_printf(b,
                    "/* P_run's workspace: static, so P_run is not reentrant. */\n"
                    "static uint8_t %s_workspace[%" PRIu64 "] __attribute__((aligned(64)));\n",
                    P, p->workspace_bytes);
  char wsarg[96];
  if (p->workspace_bytes) snprintf(wsarg, sizeof wsarg, "%s_workspace", P);
  else snprintf(wsarg, sizeof wsarg, "(void *)0");
  psgi_buf_printf(b,
                  "int32_t %s_run(const void *const *inputs, void *const *outputs) {\n"
                  "  return %s_run_impl(inputs, outputs, %s, (psg_model_profile_hook)0, (void *)0);\n}\n\n",
                  P, P, wsarg);
  psgi_buf_printf(b,
                  "#ifdef PASSAGE_MODEL_ENTRY /* defined when built as a shared library (passage compile -o) */\n"
                  "const psg_model_info *passage_model_entry(void) { return &%s_info_; }\n#endif\n",
                  P);
  psgi_free(p->ctx, coffs);
  return b->failed ? psgi_nomem(p->ctx) : PSG_OK;
}

psg_status psgi_host_c_header(const psgi_host_program *p, const psgi_host_c_opts *o, psgi_buf *b) {
  const char *P = o->name;
  char guard[128];
  snprintf(guard, sizeof guard, "%s_MODEL_H", P);
  for (char *c = guard; *c; c++)
    if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
  psgi_buf_printf(b,
                  "/* %s: a model compiled by `passage compile` (target \"%s\", module %s).\n"
                  " * Entry points and tensors; include/passage/model_abi.h describes the ABI. */\n"
                  "#ifndef %s\n#define %s\n\n#ifndef PASSAGE_MODEL_ABI_H\n#define PASSAGE_MODEL_ABI_H\n\n%s\n#endif\n\n",
                  P, o->target, o->module_hash, guard, guard, psgi_model_abi_text);
  psgi_buf_printf(b, "#define %s_NUM_INPUTS %zu\n#define %s_NUM_OUTPUTS %zu\n", P, p->inputs.len, P, p->outputs.len);
  for (int io = 0; io < 2; io++) {
    const uint32_t *ids = io ? p->outputs.data : p->inputs.data;
    size_t n = io ? p->outputs.len : p->inputs.len;
    const char *W = io ? "OUTPUT" : "INPUT";
    for (size_t i = 0; i < n; i++) {
      const psgi_host_value *v = &p->values.data[ids[i]];
      char oname[32];
      snprintf(oname, sizeof oname, "output%zu", i);
      const char *name = io ? oname : p->input_names.data[i];
      psgi_buf_printf(b, "\n/* %s %zu \"%s\": %s ", io ? "output" : "input", i, name, psg_dtype_name(v->dtype));
      put_shape(b, v);
      psgi_buf_printf(b, ", %" PRIu64 " bytes */\n#define %s_%s%zu_NAME ", v->bytes, P, W, i);
      put_string(b, name);
      psgi_buf_printf(b, "\n#define %s_%s%zu_DTYPE \"%s\"\n#define %s_%s%zu_NDIM %d\n#define %s_%s%zu_SHAPE {", P, W, i,
                      psg_dtype_name(v->dtype), P, W, i, v->ndim, P, W, i);
      for (int d = 0; d < v->ndim; d++) psgi_buf_printf(b, "%s%" PRId64, d ? ", " : "", v->shape[d]);
      psgi_buf_printf(b, "}\n#define %s_%s%zu_BYTES %" PRIu64 "u\n", P, W, i, v->bytes);
    }
  }
  psgi_buf_printf(b,
                  "\n#define %s_WORKSPACE_BYTES %" PRIu64 "u\n\n"
                  "/* The model's info (shapes, kernels, run functions). */\n"
                  "const psg_model_info *%s_info(void);\n"
                  "/* Runs the model over a static workspace (not reentrant): inputs[i] and outputs[i]\n"
                  " * point at the tensors above. Returns 0, or the code of a failed check. */\n"
                  "int32_t %s_run(const void *const *inputs, void *const *outputs);\n"
                  "#ifdef PASSAGE_MODEL_ENTRY\nconst psg_model_info *passage_model_entry(void);\n#endif\n\n#endif\n",
                  P, p->workspace_bytes, P, P);
  return b->failed ? psgi_nomem(p->ctx) : PSG_OK;
}
