/* Passage — ConvertLayout's layout rewriter (convert_layout.c), shared with
 * AlterOpLayout: calls carry their values in new layouts forward and
 * layout_transform goes in only where a layout must change. */
#ifndef PSG_TRANSFORMS_LAYOUT_REWRITE_H
#define PSG_TRANSFORMS_LAYOUT_REWRITE_H

#include "ir/ir_internal.h"

/* `func` (typed) with each call of an op that has an FTVMAlterOpLayout hook
 * replaced by what the hook returns, and the layouts around it rewritten
 * (TVM's AlterOpLayout). */
psg_status psgi_alter_op_layouts(psg_expr *func, psg_expr **out);

#endif
