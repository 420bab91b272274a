/* Passage — internals shared by the TVMScript printer and parser
 * (include/passage/tvmscript.h): the script container and the op spelling
 * rules both sides must agree on. */
#ifndef PSG_TIR_SCRIPT_INTERNAL_H
#define PSG_TIR_SCRIPT_INTERNAL_H

#include "passage/tvmscript.h"
#include "tir/tir_internal.h"

struct psg_tir_script {
  psg_ctx *ctx;
  bool is_module;
  PSGI_VEC(const char *) names; /* interned */
  PSGI_VEC(psg_tir_prim_func *) funcs;
};

/* The dtype the parser gives `T.<op>(args)` written without a dtype (the
 * printer uses the short form only when it reads back the same): the
 * arguments' dtype for math and bit ops, bool for predicates, handle for
 * tir.address_of; 0 when the op needs the explicit T.call_intrin form. */
psg_tir_dtype psgi_tir_script_call_dtype(const char *op, psg_tir_node *const *args, size_t n);
/* The dtype spelled by "int32", "float32x4", ... in T.<name>; 0 if none. */
psg_tir_dtype psgi_tir_script_dtype_word(const char *s, size_t n);

#endif
