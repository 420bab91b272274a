/* Passage — umbrella header: a Relay-style tensor IR and TVM's pass
 * infrastructure in C11. Include this, link -lpassage. */
#ifndef PASSAGE_PASSAGE_H
#define PASSAGE_PASSAGE_H

#include "passage/defs.h"
#include "passage/status.h"
#include "passage/ctx.h"
#include "passage/type.h"
#include "passage/type_solver.h"
#include "passage/tensor.h"
#include "passage/attrs.h"
#include "passage/ir.h"
#include "passage/module.h"
#include "passage/adt.h"
#include "passage/op.h"
#include "passage/op_attr.h"
#include "passage/op_register.h"
#include "passage/text.h"
#include "passage/pass.h"
#include "passage/reduce.h"
#include "passage/pass_cache.h"
#include "passage/instrument.h"
#include "passage/plugin.h"
#include "passage/interp.h"
#include "passage/tir.h"
#include "passage/tvmscript.h"
#include "passage/analysis.h"
#include "passage/object_path.h"
#include "passage/report.h"

#endif
