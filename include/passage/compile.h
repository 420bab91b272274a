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

typedef struct psg_compiled psg_compiled;

/* Runs `sequential(O<level>,lower)` (what `passage opt -O<level> --lower`
 * runs; level is pc's opt level) over `mod` under `pc`, which the caller has
 * entered. *out: the lowered module (new reference). */
PSG_API psg_status psg_compile_lower(psg_module *mod, psg_pass_context *pc, psg_module **out);

PSG_END_DECLS

#endif
