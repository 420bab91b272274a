/* Passage — the machinery shared by the CombineParallel* passes (TVM's
 * combine_parallel_op.cc): calls of one op reading the same data are grouped
 * (TVM's BranchGroupFinder), each with the chain of single-use
 * elementwise/broadcast calls after it; a group of at least min_num_branches
 * becomes one call over the weights concatenated, the follow-on calls that
 * match at every branch are combined too, and one strided_slice per branch
 * takes its part back. A pass supplies what differs in a psgi_combine_spec. */
#ifndef PASSAGE_TRANSFORMS_COMBINE_PARALLEL_H
#define PASSAGE_TRANSFORMS_COMBINE_PARALLEL_H

#include "transforms/builder.h"
#include "transforms/transforms.h"

typedef struct psgi_combine_spec {
  const char *pass_name; /* for psgi_check_typed */
  const char *op;        /* the combined call's op */
  /* a call the pass may combine (typed; kids[1] data, kids[2] weight) */
  bool (*supported)(const psg_expr *call);
  /* TVM's CanOpsBeCombined */
  bool (*can_combine)(const psg_expr *a, const psg_expr *b);
  /* the output axis holding a branch's part (and its extent) */
  int (*channel_pos)(const psg_expr *head);
  /* the weights' concatenation axis */
  int (*weight_axis)(const psg_expr *head);
  /* the combined call's attrs for `channels` in all (owned by b), or NULL
   * with b->status set; NULL function: the head's attrs */
  psg_attrs *(*combined_attrs)(psgi_built *b, const psg_expr *head, int64_t channels);
  /* follow-on operands are concatenated along -1 and need no shape check
   * (TVM's batch_matmul combiner) instead of IsArgCompatible's channel axis */
  bool follow_last_axis;
} psgi_combine_spec;

/* The function-pass body: `func` typed, result in *out. */
psg_status psgi_combine_parallel(const psgi_combine_spec *spec, psg_expr *func, int64_t min_branches,
                                 psg_expr **out);

#endif
