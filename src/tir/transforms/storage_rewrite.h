/* Passage — what the two halves of tir.StorageRewrite share: the plan
 * (storage_rewrite_plan.c: TVM's LinearAccessPatternFinder, liveness and
 * PlanMemory) and its application (storage_rewrite.c: TVM's
 * PrepareNewAlloc and the rewrite of the body). */
#ifndef PSG_TIR_STORAGE_REWRITE_H
#define PSG_TIR_STORAGE_REWRITE_H

#include "tir/transforms/tir_transforms.h"

/* One storage: an allocation some Allocates of the input share (TVM's
 * StorageEntry). */
typedef struct psgi_sr_entry psgi_sr_entry;
struct psgi_sr_entry {
  const psg_tir_node *attach; /* the For / AttrStmt whose body holds it, NULL: the function's top */
  uint64_t const_nbits;       /* constant size in bits, 0 when symbolic */
  int rank;                   /* StorageRank of the scope */
  const char *tag;            /* the scope's tag (".dyn", ".L0A", "" ...): a suffix of an interned string */
  psg_tir_dtype elem_type;    /* scalar element type of the first Allocate */
  PSGI_VEC(const psg_tir_node *) allocs;  /* the Allocates sharing it, in plan order */
  PSGI_VEC(psgi_sr_entry *) merged;       /* tagged-memory entries packed after it */
  uint64_t bits_offset;       /* where a merged child starts in its parent, in bits */
  /* Filled by the rewrite: the var of the new allocation (owned) and the
   * Allocate (+ DeclBuffer) to make at the attach point. */
  psg_tir_node *alloc_var;
  psg_tir_dtype alloc_type;
  PSGI_VEC(psg_tir_node *) extents;       /* owned */
  psg_tir_node *condition;                /* owned, or NULL: true */
  const psg_tir_node *decl;               /* a DeclBuffer of allocs[0] to hoist with it, or NULL */
  bool emitted;                           /* an Allocate is made for it (not a merged child) */
  bool pinned;                            /* its one Allocate stays in place (extents use a loop or let var) */
};

typedef struct psgi_sr_plan {
  psg_ctx *ctx;
  PSGI_VEC(psgi_sr_entry *) entries; /* TVM's alloc_vec_, in creation order */
  psgi_map alloc_map;                /* Allocate's var -> its entry */
  psgi_map accessed;                 /* buffers some load or store uses -> non-NULL */
} psgi_sr_plan;

/* StorageRank values (TVM's runtime::StorageRank) used by the rules. */
enum { PSGI_SR_GLOBAL = 0, PSGI_SR_SHARED = 1, PSGI_SR_WARP = 2, PSGI_SR_LOCAL = 3 };

/* Plans the storage of every Allocate of `body` (TVM's StoragePlanRewriter
 * up to PlanMemory, with detect_inplace); reuse=false keeps one storage per
 * Allocate (tir.merge_static_smem). */
psg_status psgi_sr_plan_build(psgi_sr_plan *p, const psg_tir_node *body, bool reuse);
void psgi_sr_plan_fini(psgi_sr_plan *p);
/* The entry of Allocate var v, or NULL. */
psgi_sr_entry *psgi_sr_entry_of(const psgi_sr_plan *p, const psg_tir_node *v);
/* Whether a storage scope's tag names special memory that is packed into
 * one allocation (any tag but "", ".dyn", ".workspace", ".vtcm"). */
bool psgi_sr_is_special_tag(const char *tag);

/* TVM's PointerValueTypeRewrite with StorageRewrite's arguments
 * (storage_rewrite_vector.c): Allocates and LetStmt pointers accessed only
 * through one aligned vector type take it as their element type. *out is f
 * (retained) when nothing changes. */
psg_status psgi_sr_vector_types(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out);

#endif
