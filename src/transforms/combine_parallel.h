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

/* One branch: the head call, then its chain of follow-on calls. */
typedef PSGI_VEC(const psg_expr *) psgi_combine_branch;

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
  /* Optional hooks (NULL: the behaviour described above). All build in b;
   * psgi_combine_rewritten gives the rewrite of an original operand. */
  /* the combined call over the n heads (TVM's MakeCombinedOp) */
  psg_expr *(*combined_call)(psgi_built *b, psg_mutator *m, psgi_combine_branch *branches, size_t n);
  /* TVM's IsArgCompatible for operand k of the follow-on calls a and b */
  bool (*arg_compatible)(const psg_expr *a, const psg_expr *b, uint32_t k);
  /* the combined operand k of the follow-on calls at `depth`, whose
   * combined input is operand `parent` (TVM's
   * MakeCombinedCallFromFollowingOps) */
  psg_expr *(*follow_operand)(psgi_built *b, psg_mutator *m, psgi_combine_branch *branches, size_t n, size_t depth,
                              uint32_t k, uint32_t parent);
  /* each branch's part of `combined`, the group's output at `depth`, into
   * parts[0..n) (TVM's UpdateGroupOutput); false with b->status set on
   * failure */
  bool (*outputs)(psgi_built *b, psgi_combine_branch *branches, size_t n, size_t depth, psg_expr *combined,
                  psg_expr **parts);
} psgi_combine_spec;

/* The rewrite of original node `e` (with earlier groups combined), owned by b. */
psg_expr *psgi_combine_rewritten(psgi_built *b, psg_mutator *m, const psg_expr *e);
/* A tuple of the fields, owned by b. */
psg_expr *psgi_combine_tuple(psgi_built *b, psg_expr *const *fields, size_t n);
/* strided_slice(data, begin, end, strides=1.., slice_mode="size") over the
 * first `rank` axes: 0 / -1 everywhere but `axis`, which takes [start,
 * start + size) (TVM's UpdateGroupOutput slices). */
psg_expr *psgi_combine_slice(psgi_built *b, psg_expr *data, int rank, int axis, int64_t start, int64_t size);

/* The function-pass body: `func` typed, result in *out. */
psg_status psgi_combine_parallel(const psgi_combine_spec *spec, psg_expr *func, int64_t min_branches,
                                 psg_expr **out);

#endif
