/* Passage — the backward half of the ops' type relations: what TVM's
 * relations assign to unknown inputs through the type reporter (Conv2DRel
 * and DenseRel give the weight its shape from the data and the attributes,
 * BiasAddRel the bias, BatchNormRel its four vectors, IdentityRel the input
 * from the output). InferType's solver calls it while an input is unknown;
 * once all inputs are known it runs the op's forward relation (op_impl.h). */
#ifndef PSG_TYPE_FILL_H
#define PSG_TYPE_FILL_H

#include "ops/op_impl.h"

/* args[i] is the type of input i when it is known (no holes), else NULL; out
 * likewise for the output. Writes into in[i] a type for each unknown input it
 * can deduce (it leaves the others NULL). PSG_ERR_TYPE with call->msg when
 * the known types cannot fit the op. */
typedef psg_status (*psgi_type_fill_fn)(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                        const psg_type *out, const psg_type **in);

/* The fill of op `op`, or NULL when its relation assigns nothing. */
psgi_type_fill_fn psgi_type_fill_get(size_t op);

#endif
