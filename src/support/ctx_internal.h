/* Passage — private layout of the library context (include/passage/ctx.h).
 * The context owns interned strings and types, the per-op Op nodes and the
 * diagnostic list; everything else it only counts. */
#ifndef PSG_CTX_INTERNAL_H
#define PSG_CTX_INTERNAL_H

#include <pthread.h>
#include "support/support.h"

struct psg_expr;
typedef struct psgi_diag_list psgi_diag_list;
typedef struct psgi_sources psgi_sources;

struct psg_ctx {
  psg_allocator alloc;
  /* alloc.user when alloc is the default allocator with a pool, else NULL:
   * alloc.c then takes small blocks from the pool's front (pool_front.h). */
  struct psgi_pool *pool;
  uint32_t refcount;    /* atomic: the user's reference plus one per live object */
  int64_t live_objects; /* atomic */
  bool oom;
  uint64_t alloc_failures; /* atomic: failed allocations so far (psgi_ctx_alloc_failures) */
  pthread_mutex_t lock; /* guards the interners, op nodes and diagnostics */
  psgi_map strings;     /* interned strings: key = value = the copy */
  psgi_map types;       /* interned types, keyed by their byte encoding; the
                           values are single psgi_alloc blocks freed with the ctx */
  struct psg_expr **op_nodes; /* one immortal Op node per op, made lazily; each a
                                 single psgi_alloc block with no references */
  size_t num_op_nodes;
  psgi_diag_list *diags;
  psgi_sources *sources; /* parsed texts, for quoting lines (sources.c); under lock */
  /* State of the pass layer (registries, per-thread default contexts), made
   * on first use and freed by pass_state_free when the context dies. */
  void *pass_state;
  void (*pass_state_free)(psg_ctx *ctx, void *state);
  /* The op attributes the host set (src/ops/op_attr.c), made on first use. */
  void *op_attr_state;
  void (*op_attr_state_free)(psg_ctx *ctx, void *state);
  /* The ops the host registered (src/ir/op_custom.c), made on first use. */
  void *custom_ops;
  void (*custom_ops_free)(psg_ctx *ctx, void *table);
  /* The table of Relay spans (src/ir/span_table.c), made on first use. */
  void *spans;
  void (*spans_free)(psg_ctx *ctx, void *table);
  psg_diag_sink sink;
  void *sink_user;
  /* Strings psgi_intern_again interned, direct-mapped by address (relaxed
   * atomics). A slot only ever holds a string interned here, alive as long
   * as the context, so a pointer equal to a slot's is that string. */
  const char *recent[1024];
  /* Threads batching this context's object counts now (atomic;
   * psgi_ctx_thread_cache_begin): while it is 0, no call looks for a batch.
   * Far from refcount's line. */
  unsigned batching;
};

/* Objects owned by the context itself (defaults, registries) must not keep it
 * alive: adopt gives back the reference and the live count an object took at
 * birth; unadopt takes them again just before such an object is released
 * during context destruction. */
void psgi_ctx_adopt(psg_ctx *ctx);
void psgi_ctx_unadopt(psg_ctx *ctx);

/* Frees the kept source texts (context destruction). */
void psgi_sources_free(psg_ctx *ctx);

/* Frees the diagnostic list (context destruction). */
void psgi_diag_list_free(psg_ctx *ctx);

#endif
