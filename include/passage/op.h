/* Passage — the operator table: TVM's op names with their attribute names
 * (src/ir/ops.def). Type relations and kernels arrive with the ops issue. */
#ifndef PASSAGE_OP_H
#define PASSAGE_OP_H

#include "passage/ir.h"

PSG_BEGIN_DECLS

/* Number of registered ops, and the name of op i (0 <= i < count). */
PSG_API size_t psg_op_count(void);
PSG_API const char *psg_op_name_at(size_t i);
/* Index of the op named `name` or -1. */
PSG_API ptrdiff_t psg_op_find(const char *name, size_t len);
/* The attribute names op i accepts, in TVM's schema order. */
PSG_API size_t psg_op_num_attrs(size_t i);
PSG_API const char *psg_op_attr_name(size_t i, size_t j);
/* One-line description. */
PSG_API const char *psg_op_doc(size_t i);

/* TVM's TOpPattern fusion kinds, as psg_op_pattern returns them. */
enum {
  PSG_OP_PATTERN_ELEMWISE = 0,
  PSG_OP_PATTERN_BROADCAST = 1,
  PSG_OP_PATTERN_INJECTIVE = 2,
  PSG_OP_PATTERN_COMM_REDUCE = 3,
  PSG_OP_PATTERN_OUT_ELEMWISE_FUSABLE = 4,
  PSG_OP_PATTERN_TUPLE = 7,
  PSG_OP_PATTERN_OPAQUE = 8
};
/* Op i's fusion pattern, or -1 when op i has no behaviour registered. */
PSG_API int psg_op_pattern(size_t i);
/* "elemwise", "broadcast", "injective", "comm_reduce",
 * "out_elemwise_fusable", "tuple", "opaque"; NULL for any other value. */
PSG_API const char *psg_op_pattern_name(int pattern);
/* TOpIsStateful: the op must not be folded (e.g. random.uniform). */
PSG_API bool psg_op_is_stateful(size_t i);
/* Whether op i has a type relation and a reference kernel (the interpreter
 * and FoldConstant can evaluate it). */
PSG_API bool psg_op_has_kernel(size_t i);

PSG_END_DECLS
#endif
