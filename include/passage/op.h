/* Passage — the operator table: TVM's op names with their attribute names
 * (src/ops/ops.def). Type relations and kernels arrive with the ops issue. */
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

PSG_END_DECLS
#endif
