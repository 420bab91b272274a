/* Passage — copies of a TIR subtree with one var replaced, made from a
 * template found once (tir.UnrollLoop's copies of an unrolled body). */
#ifndef PSG_TIR_COPY_TEMPLATE_H
#define PSG_TIR_COPY_TEMPLATE_H

#include "tir/transforms/tir_transforms.h"

/* The nodes of a subtree that hold the var (the paths from the root to its
 * uses), each once however often it is shared, children before parents;
 * and per such node, where each of its operands comes from in a copy. */
typedef struct psgi_tir_copy_template {
  psg_ctx *ctx;
  const psg_tir_node *root, *var;
  PSGI_VEC(const psg_tir_node *) holders;
  PSGI_VEC(size_t) first_link; /* holder i's links start at first_link[i] (nkids of them) */
  /* per operand: PSGI_COPY_KEEP (the operand itself), PSGI_COPY_VAR (the
   * value) or the index of the holder it is */
  PSGI_VEC(size_t) links;
  size_t max_kids;
} psgi_tir_copy_template;

enum { PSGI_COPY_KEEP = (size_t)-1, PSGI_COPY_VAR = (size_t)-2 };

psg_status psgi_tir_copy_template_init(psg_ctx *ctx, const psg_tir_node *root, const psg_tir_node *var,
                                       psgi_tir_copy_template *t);
void psgi_tir_copy_template_fini(psgi_tir_copy_template *t);
/* root with every use of var replaced by value: the node TVM's Substitute
 * (and psgi_tir_substitute) gives, each holder rebuilt once through the
 * checked constructors, every other subtree shared with root. */
psg_status psgi_tir_copy_template_apply(const psgi_tir_copy_template *t, psg_tir_node *value, psg_tir_node **out);

#endif
