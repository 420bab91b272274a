/* Passage — the host program: the lowered Relay @main (call_lowered of
 * PrimFuncs, tuples, TupleGetItem, Let, If, constants, params) flattened
 * into a list of steps over tensor values, with each intermediate's live
 * interval and its place in one workspace (the static memory plan), as TVM's
 * AOT executor does before emitting its entry function (docs/compile.md). */
#ifndef PSG_CODEGEN_HOST_PROGRAM_H
#define PSG_CODEGEN_HOST_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include "passage/module.h"
#include "passage/tensor.h"
#include "passage/tir.h"
#include "support/support.h"

typedef enum psgi_value_kind {
  PSGI_VALUE_INPUT,   /* @main's parameter `index` (caller's buffer) */
  PSGI_VALUE_CONST,   /* constant `index` of the program */
  PSGI_VALUE_TEMP,    /* an intermediate: in the workspace, or aliased (home) */
  PSGI_VALUE_SCRATCH, /* a kernel call's scratch: in the workspace during the call */
  PSGI_VALUE_OUTPUT,  /* @main's flattened result `index` (caller's buffer) */
} psgi_value_kind;

typedef struct psgi_host_value {
  psgi_value_kind kind;
  uint32_t index;      /* INPUT, CONST, OUTPUT */
  int dtype;           /* PSG_DTYPE_* (SCRATCH: uint8) */
  int ndim;
  int64_t shape[PSG_MAX_RANK];
  uint64_t bytes;
  /* TEMP: the value it shares storage with (an If's result, an output) or
   * UINT32_MAX; psgi_host_home follows the chain. */
  uint32_t alias;
  uint32_t def, last;  /* program points of definition and last use */
  uint32_t plan;       /* a TEMP/SCRATCH at home: its buffer in `buffers`, else UINT32_MAX */
  uint32_t scope;      /* TEMP: the branch it was made in (0: the top level) */
} psgi_host_value;

typedef enum psgi_step_kind {
  PSGI_STEP_CALL,  /* kernel `kernel` over values args[arg0 .. arg0+nin+nout) (inputs, outputs), scratch */
  PSGI_STEP_COPY,  /* value dst := value src (same bytes) */
  PSGI_STEP_IF,    /* if value cond (a 0-d tensor) is nonzero: the steps up to ELSE */
  PSGI_STEP_ELSE,
  PSGI_STEP_ENDIF,
} psgi_step_kind;

typedef struct psgi_host_step {
  psgi_step_kind kind;
  uint32_t kernel;      /* CALL: index into kernels */
  uint32_t arg0, nin, nout;
  uint32_t scratch;     /* CALL: a SCRATCH value or UINT32_MAX */
  uint32_t dst, src;    /* COPY */
  uint32_t cond;        /* IF */
} psgi_host_step;

typedef struct psgi_host_kernel {
  const char *name;            /* the GlobalVar's name (interned) */
  psg_tir_prim_func *func;     /* borrowed from the module */
  uint64_t scratch_bytes;
} psgi_host_kernel;

typedef struct psgi_plan_buffer psgi_plan_buffer;

typedef struct psgi_host_program {
  psg_ctx *ctx;
  PSGI_VEC(psgi_host_value) values;
  PSGI_VEC(psgi_host_step) steps;   /* the step index is the program point */
  PSGI_VEC(uint32_t) args;          /* CALL operands */
  PSGI_VEC(psgi_host_kernel) kernels; /* distinct PrimFuncs, in order of first call */
  PSGI_VEC(psg_tensor *) consts;    /* owned references */
  PSGI_VEC(uint32_t) inputs;        /* INPUT value of each @main param */
  PSGI_VEC(const char *) input_names;
  PSGI_VEC(uint32_t) outputs;       /* OUTPUT value of each flattened result */
  uint32_t num_calls;
  /* The plan: one buffer per TEMP/SCRATCH at home. */
  psgi_plan_buffer *buffers;
  size_t num_buffers;
  uint64_t workspace_bytes;    /* the plan's peak */
  uint64_t intermediate_bytes; /* the sum of the planned buffers, each rounded to 64 */
} psgi_host_program;

/* The scratch bytes kernel `f` needs (the C generator's answer); a hook so
 * that the plan is testable without the generator. */
typedef uint64_t (*psgi_scratch_fn)(const psg_tir_prim_func *f);

/* Builds the program of `mod`'s @main (a lowered module) and plans its
 * workspace. Unsupported host expressions (a call that is not call_lowered,
 * a function value, a dynamic shape) are located errors. */
psg_status psgi_host_program_build(psg_ctx *ctx, const psg_module *mod, psgi_scratch_fn scratch,
                                   psgi_host_program *out);
void psgi_host_program_fini(psgi_host_program *p);

/* The value holding v's storage: follows TEMP aliases (to an If's result or
 * an OUTPUT). */
uint32_t psgi_host_home(const psgi_host_program *p, uint32_t v);

#endif
