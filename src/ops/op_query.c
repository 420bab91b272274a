/* Passage — public queries on op behaviour (include/passage/op.h): fusion
 * pattern, statefulness and whether an op can be evaluated, read from the
 * per-family behaviour tables (op_impl.h). */
#include "ops/op_impl.h"
#include "passage/op.h"

/* The public enum mirrors TVM's OpPatternKind, as the internal one does. */
_Static_assert((int)PSG_OP_PATTERN_OPAQUE == (int)PSGI_PATTERN_OPAQUE &&
                   (int)PSG_OP_PATTERN_TUPLE == (int)PSGI_PATTERN_TUPLE &&
                   (int)PSG_OP_PATTERN_BROADCAST == (int)PSGI_PATTERN_BROADCAST &&
                   (int)PSG_OP_PATTERN_OUT_ELEMWISE_FUSABLE == (int)PSGI_PATTERN_OUT_ELEMWISE_FUSABLE,
               "pattern enums differ");

int psg_op_pattern(size_t i) {
  const psgi_op_impl *impl = psgi_op_impl_get(i);
  return impl ? impl->pattern : -1;
}

const char *psg_op_pattern_name(int pattern) {
  switch (pattern) {
  case PSG_OP_PATTERN_ELEMWISE: return "elemwise";
  case PSG_OP_PATTERN_BROADCAST: return "broadcast";
  case PSG_OP_PATTERN_INJECTIVE: return "injective";
  case PSG_OP_PATTERN_COMM_REDUCE: return "comm_reduce";
  case PSG_OP_PATTERN_OUT_ELEMWISE_FUSABLE: return "out_elemwise_fusable";
  case PSG_OP_PATTERN_TUPLE: return "tuple";
  case PSG_OP_PATTERN_OPAQUE: return "opaque";
  default: return NULL;
  }
}

bool psg_op_is_stateful(size_t i) {
  const psgi_op_impl *impl = psgi_op_impl_get(i);
  return impl && impl->stateful;
}

bool psg_op_has_kernel(size_t i) {
  const psgi_op_impl *impl = psgi_op_impl_get(i);
  return impl && impl->type_rel && impl->kernel;
}
