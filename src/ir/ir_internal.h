/* Passage — private layout of IR objects (STYLE rule 8: a common header, then
 * a per-kind payload, operands as handles). Only src/ code includes this. */
#ifndef PSG_IR_INTERNAL_H
#define PSG_IR_INTERNAL_H

#include "passage/passage.h"
#include "passage/adt.h"
#include "support/support.h"
#include "support/ctx_internal.h"

/* Types -------------------------------------------------------------------- */
struct psg_type {
  int kind;
  int dtype;           /* TENSOR */
  int n;               /* TENSOR: rank; TUPLE: fields; FUNC: args */
  uint64_t hash;
  const psg_type *ret; /* FUNC: result; TYPE_CALL: the called type; REF: value */
  /* Both point into the same allocation, just after the struct. */
  const int64_t *dims;            /* TENSOR: n dims */
  const psg_type *const *fields;  /* TUPLE/FUNC/TYPE_CALL: n types */
  /* FUNC: its type parameters (TypeVars), stored after the n args. */
  const psg_type *const *tparams;
  int ntparams;
  int tkind;                      /* TYPE_VAR, GLOBAL_VAR, INCOMPLETE: TVM's TypeKind */
  const char *name;               /* TYPE_VAR, GLOBAL_VAR (NUL-terminated, in the block) */
};

/* Structural equality of types (type_equal.c) with the TypeVars pa[i] and
 * pb[i] already paired (bound by enclosing polymorphic Functions). */
bool psgi_type_equal_paired(const psg_type *a, const psg_type *b, const psg_type *const *pa,
                            const psg_type *const *pb, size_t n);

/* Attributes ----------------------------------------------------------- */
struct psg_attr {
  uint32_t refcount;
  int kind;
  psg_ctx *ctx;
  union {
    int64_t i;
    double f;
    bool b;
    int dtype;
    struct { char *s; size_t len; } str;
    struct { size_t n; psg_attr **items; } list;
    psg_attrs *dict;
  } u;
};

struct psg_attrs {
  uint32_t refcount;
  psg_ctx *ctx;
  size_t n;
  struct { const char *key; psg_attr *value; } e[]; /* keys interned */
};

/* Tensors -------------------------------------------------------------------- */
struct psg_tensor {
  uint32_t refcount;
  int dtype;
  int ndim;
  psg_ctx *ctx;
  const void *data;
  size_t nbytes;
  void (*release)(void *user); /* NULL: data was allocated with the tensor */
  void *release_user;
  int64_t shape[];
};
/* A tensor of `shape` whose bytes are left uninitialized, for a producer that
 * writes every byte before anyone else sees it (kernels: no zero fill of
 * memory about to be overwritten). */
psg_status psgi_tensor_alloc(psg_ctx *ctx, int dtype, const int64_t *shape, int ndim, psg_tensor **out);
/* A tensor of `shape` sharing src's bytes (same dtype and byte size; src is
 * kept alive): reshape-like ops produce one without copying. */
psg_status psgi_tensor_view(psg_ctx *ctx, psg_tensor *src, const int64_t *shape, int ndim, psg_tensor **out);

/* Expressions ------------------------------------------------------------- */
/* flags: IMMORTAL, Op nodes owned by the context; TYPE_FINAL, checked_type is
 * what InferType derives from the children alone and every node below is
 * TYPE_FINAL too (no GlobalVar, no unannotated let variable below, whose
 * types come from the module or the binding): InferType keeps such a subtree
 * as it is. Set with psgi_expr_set_final_type; a rebuilt node starts without.
 * HAS_SCOPES, the node or one below it is an If, Let or Function (set at
 * birth): passes about scopes skip dataflow-only graphs in O(1). */
enum { PSGI_EXPR_IMMORTAL = 1, PSGI_EXPR_TYPE_FINAL = 2, PSGI_EXPR_HAS_SCOPES = 4 };

struct psg_expr {
  uint16_t kind;
  uint16_t flags;
  uint32_t refcount; /* atomic */
  psg_ctx *ctx;
  const psg_type *checked_type;
  union {
    struct { const char *name; const psg_type *type; } var; /* name interned */
    struct { const char *name; } gvar;
    psg_tensor *constant;
    int index; /* TupleGetItem */
    psg_attrs *attrs; /* Call */
    /* tparams: the type parameters as a TupleType of TypeVars, or NULL.
     * The walks' size hint sits in the word after the children (psgi_expr_tail). */
    struct { psg_attrs *attrs; const psg_type *ret_type; const psg_type *tparams; } fn;
    uint32_t op; /* index in the op table */
    /* Constructor: name interned; inputs a TupleType of the field types. Its
     * tag sits in the word after the (no) children (psgi_expr_tail). */
    struct { const char *name; const psg_type *belongs_to; const psg_type *inputs; } ctor;
    struct psgi_match_info *match; /* Match: clause layout, shared by rebuilds */
    struct psg_expr *dead_next; /* release: links dead nodes (no allocation) */
  } u;
  uint32_t span; /* index in the context's span table, 0: none (psgi_expr_span_ref) */
  uint32_t nkids;
  psg_expr *kids[]; /* see psg_expr_get_child for the order per kind */
};

/* Functions and Constructors carry one word after their children, so that
 * the union stays at 24 bytes for every kind (departure 214): a Function's
 * size hint (psgi_expr_size_hint), a Constructor's tag (set once when a
 * TypeData takes it, -1 before). */
static inline size_t psgi_expr_tail_words(int kind) {
  return kind == PSG_EXPR_FUNCTION || kind == PSG_EXPR_CONSTRUCTOR;
}
typedef union psgi_expr_tail {
  uint32_t size_hint;
  int32_t tag;
  void *align_;
} psgi_expr_tail;
static inline psgi_expr_tail *psgi_expr_tail_of(const struct psg_expr *e) {
  return (psgi_expr_tail *)(void *)&e->kids[e->nkids];
}

/* The context's span table (span_table.c, docs/design.md departure 213).
 * psgi_span_intern gives the index of `span` (NULL or all zero: 0), sharing
 * the entry when `span` is a live node's (psgi_expr_span_ref) and holding
 * one reference; retain and release count the nodes holding an index. */
psg_status psgi_span_intern(psg_ctx *ctx, const psg_span *span, uint32_t *out);
void psgi_span_retain(psg_ctx *ctx, uint32_t index);
void psgi_span_release(psg_ctx *ctx, uint32_t index);
const psg_span *psgi_span_get(const psg_ctx *ctx, uint32_t index);
/* How many entries the table has ever handed out (tests: freed entries are
 * reused, so this is the most spans alive at once). */
uint32_t psgi_span_table_entries(const psg_ctx *ctx);
/* A node's span, valid while the node lives; pass it to a constructor to
 * build a node at the same span without copying it. */
static inline const psg_span *psgi_expr_span_ref(const struct psg_expr *e) {
  return psgi_span_get(e->ctx, e->span);
}

/* Patterns, flat in pre-order: a node is followed by its nsub sub-patterns.
 * In a psg_pattern, `var` is the VAR node's variable; in a Match's layout it
 * is NULL (the variables are the Match's children). ctor retained. */
typedef struct psgi_pat_node {
  uint8_t kind;
  uint32_t nsub;
  psg_expr *ctor;
  psg_expr *var;
} psgi_pat_node;

struct psg_pattern {
  uint32_t refcount;
  psg_ctx *ctx;
  uint32_t n;
  psgi_pat_node nodes[];
};

/* A Match's layout: children are data, then per clause c its variables
 * (kids[kid_start[c]] ...) and its right-hand side (kids[kid_start[c+1]-1]);
 * clause c's pattern is pats[pat_start[c] .. pat_start[c+1]). binder[i]
 * says whether child i is a pattern variable. Immutable, reference counted. */
typedef struct psgi_match_info {
  uint32_t refcount;
  bool complete;
  uint32_t nclauses;
  uint32_t *pat_start, *kid_start; /* nclauses + 1 each */
  uint8_t *binder;                 /* one per child */
  psgi_pat_node *pats;
} psgi_match_info;
void psgi_match_info_release(psg_ctx *ctx, psgi_match_info *mi);
/* A pattern of n nodes, zeroed (the caller fills them and retains their
 * ctor and var). */
psg_status psgi_pattern_alloc(psg_ctx *ctx, size_t n, psg_pattern **out);
/* The index just past the subtree that starts at nodes[at]. */
uint32_t psgi_pat_subtree_end(const psgi_pat_node *nodes, uint32_t at);

/* Whether child i of e is a variable e binds: a Function's parameter, a
 * Let's variable, a Match pattern's variable. */
static inline bool psgi_expr_binds_child(const psg_expr *e, uint32_t i) {
  switch (e->kind) {
  case PSG_EXPR_FUNCTION: return i + 1 < e->nkids;
  case PSG_EXPR_LET: return i == 0;
  case PSG_EXPR_MATCH: return e->u.match->binder[i];
  default: return false;
  }
}

/* TypeData (src/ir/type_data.c): tvars and ctors live in the same block. */
struct psg_type_data {
  uint32_t refcount;
  psg_ctx *ctx;
  const psg_type *header;
  int ntvars, nctors;
  const psg_type **tvars;
  psg_expr **ctors;
};

/* A node of `kind` with room for `nkids` children, and setting them
 * (retained) once the payload is in place (adt.c builds its kinds so). */
psg_status psgi_expr_new(psg_ctx *ctx, int kind, size_t nkids, const psg_span *span, psg_expr **out);
void psgi_expr_set_kids(psg_expr *e, psg_expr *const *kids);

/* The node with the same kind, payload and span as `e` but children `kids`
 * (retained; as many as e has). checked_type is dropped. */
psg_status psgi_expr_rebuild(const psg_expr *e, psg_expr *const *kids, psg_expr **out);
/* The Op node of op table index `idx` (psg_op_get without the name
 * lookup; an index from op_table.h, e.g. PSGI_OP_add). Immortal: nothing to
 * release. PSG_ERR_NOMEM only. */
psg_status psgi_op_node(psg_ctx *ctx, size_t idx, psg_expr **out);
/* The op table index of a call's callee, or -1 when it is not an op. */
static inline ptrdiff_t psgi_call_op_id(const psg_expr *call) {
  if (!call || call->kind != PSG_EXPR_CALL || call->kids[0]->kind != PSG_EXPR_OP) return -1;
  return (ptrdiff_t)call->kids[0]->u.op;
}
/* Call attributes compared as TVM's full attribute nodes are: an absent
 * layout attribute equals its default (src/ir/attr_defaults.c). */
bool psgi_call_attrs_equal(const psg_expr *a, const psg_expr *b);
/* Whether `key` of the call's op has such a default (hashing skips it). */
bool psgi_call_attr_has_default(const psg_expr *call, const char *key);
bool psgi_call_attr_is_none(const psg_expr *call, const psg_attr *v);
/* A constructor tag's low bits: its index in its TypeData (type_data.c). */
#define PSGI_TAG_INDEX_MASK 0xffffff
/* Kind names, from expr_kinds.def. */
extern const char *const psgi_expr_kind_names[PSG_EXPR_KIND_COUNT];
/* Functions with a body: the body is the last child. */
static inline psg_expr *psgi_fn_body(const psg_expr *f) { return f->kids[f->nkids - 1]; }
/* A function literal marked Composite (e.g. the ONNX importer's onnx.LSTM):
 * a closed function of its params kept whole for its writer. The built-in
 * passes leave it as it is, body unvisited (docs/design.md, departure 19). */
/* Where a diagnostic at `span` points: its file, or else the name of the
 * node it came from (an ONNX node: line 0, no file), so a type error in an
 * imported model still says which node. */
static inline const char *psgi_span_where(const psg_span *span) { return span->file ? span->file : span->name; }

static inline bool psgi_is_composite_fn(const psg_expr *e) {
  return e->kind == PSG_EXPR_FUNCTION && e->u.fn.attrs && psg_attrs_get(e->u.fn.attrs, "Composite");
}
/* Makes psg_mutate keep every Composite function literal it reaches as it
 * is (memoized to itself, no callback, children not visited). Built-in passes
 * opt in; the public psg_mutator does not do it by default. */
psg_status psgi_mutator_keep_composite(psg_mutator *m);
/* Sets the checked type of a node (write-once cache, InferType). */
void psgi_expr_set_checked_type(psg_expr *e, const psg_type *t);
/* Sets the checked type and TYPE_FINAL (see the flags above). */
void psgi_expr_set_final_type(psg_expr *e, const psg_type *t);
/* Whether only one reference to `e` exists: a child held by nothing but its
 * one parent, which a walk from a root that does not hold it otherwise (a
 * function's body) reaches exactly once, so it needs no entry in the walk's
 * seen set or memo. (A caller, another function, a pass's memo or a second
 * parent holding it makes two; a count of 1 cannot rise concurrently, as no
 * other thread can reach the node.) */
static inline bool psgi_expr_held_once(const psg_expr *e) {
  return !(e->flags & PSGI_EXPR_IMMORTAL) && __atomic_load_n(&e->refcount, __ATOMIC_RELAXED) == 1;
}
/* The checked type if it is final, else NULL. */
static inline const psg_type *psgi_expr_final_type(const psg_expr *e) {
  return __atomic_load_n(&e->flags, __ATOMIC_ACQUIRE) & PSGI_EXPR_TYPE_FINAL ? e->checked_type : NULL;
}

/* How many nodes the last walk over Function `root` met (0: none yet, or
 * not a Function), so the next walk's memo table is sized once instead of
 * regrowing (psgi_map_reserve). A rebuilt function inherits its original's
 * count (the payload is copied), so the walks of the next pass over a
 * pass's result are sized too. Written by any walk, relaxed: only a hint. */
static inline size_t psgi_expr_size_hint(const psg_expr *root) {
  return root->kind == PSG_EXPR_FUNCTION ? __atomic_load_n(&psgi_expr_tail_of(root)->size_hint, __ATOMIC_RELAXED) : 0;
}
static inline void psgi_expr_note_size(const psg_expr *root, size_t n) {
  if (root && root->kind == PSG_EXPR_FUNCTION && !(root->flags & PSGI_EXPR_IMMORTAL))
    __atomic_store_n(&psgi_expr_tail_of(root)->size_hint, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, __ATOMIC_RELAXED);
}

/* A deep copy of `v` owned by the context itself (adopted: it neither counts
 * as live nor keeps the context alive), and its release at context teardown. */
psg_status psgi_attr_copy_adopted(psg_ctx *ctx, const psg_attr *v, psg_attr **out);
void psgi_attr_release_adopted(psg_ctx *ctx, psg_attr *v);

/* Object accounting for psg_ctx_live_objects. */
void psgi_ctx_object_born(psg_ctx *ctx);
void psgi_ctx_object_died(psg_ctx *ctx);

/* Atomic reference counts (relaxed increment, acq_rel decrement); plain
 * ones while the process has a single thread (psgi_single_threaded). */
static inline void psgi_ref_inc(uint32_t *rc) {
  if (psgi_single_threaded())
    ++*rc;
  else
    __atomic_fetch_add(rc, 1, __ATOMIC_RELAXED);
}
/* True when the count reached zero. A count of 1 is the caller's own
 * reference: no other thread holds one to change it, so the last release
 * needs no atomic write (the acquire load orders the other threads' earlier
 * releases before the free). */
static inline bool psgi_ref_dec(uint32_t *rc) {
  if (psgi_single_threaded()) return --*rc == 0;
  if (__atomic_load_n(rc, __ATOMIC_ACQUIRE) == 1) return true;
  return __atomic_fetch_sub(rc, 1, __ATOMIC_ACQ_REL) == 1;
}

/* Modules -------------------------------------------------------------- */
/* How the module reaches a PrimFunc without calling up into src/tir: the
 * TIR layer fills this table and stores it in each PrimFunc entry. */
typedef struct psgi_prim_func_ops {
  void (*retain)(psg_tir_node *f);
  void (*release)(psg_tir_node *f);
  /* On inequality, if `path` is not NULL, *path gets a psg_free-able
   * description of the first difference starting with `prefix`. */
  bool (*equal)(const psg_tir_node *a, const psg_tir_node *b, const char *prefix, char **path);
  uint64_t (*hash)(const psg_tir_node *f);
} psgi_prim_func_ops;

/* A module entry holds either a Relay function (`func`; `prim` NULL) or a
 * PrimFunc (`prim` and `prim_ops`; `func` NULL). Relay code that walks the
 * module's functions skips entries whose func is NULL. */
typedef struct psgi_module_entry {
  psg_expr *gv;
  psg_expr *func;
  psg_tir_node *prim;
  const psgi_prim_func_ops *prim_ops;
} psgi_module_entry;

/* One registered-pass spec ("Name{options}", interned) known to hold for a
 * module (src/pass/properties.c). */
typedef struct psgi_spec_node {
  const char *spec;
  struct psgi_spec_node *next;
} psgi_spec_node;

struct psg_module {
  uint32_t refcount;
  psg_ctx *ctx;
  size_t n;
  psgi_module_entry *entries; /* insertion order */
  psgi_map by_name;           /* global var name (interned) -> index + 1 */
  psg_attrs *attrs;
  /* Facts about this immutable value, added by the pass runner and never
   * removed (like checked_type): PSG_PROP_* bits, and the specs of
   * registered passes that returned this very module. Atomic once threads
   * exist; freed with the module. */
  uint32_t props;
  psgi_spec_node *specs;
  /* Type definitions (ADTs), insertion order, each retained. */
  size_t ntypes;
  psg_type_data **types;
};

/* Builds a module directly from entries (each retained), checking names are
 * distinct. The parser uses it to avoid n intermediate modules. */
psg_status psgi_module_from_entries(psg_ctx *ctx, const psgi_module_entry *entries, size_t n,
                                    psg_attrs *attrs, psg_module **out);
/* The same, keeping the type definitions of `types_from` (passes that
 * rebuild a module's function list keep its ADTs). */
psg_status psgi_module_from_entries_of(const psg_module *types_from, const psgi_module_entry *entries, size_t n,
                                       psg_attrs *attrs, psg_module **out);
/* Retains and installs `n` type definitions into a module being built. */
psg_status psgi_module_set_types(psg_module *m, psg_type_data *const *types, size_t n);

/* A new module with `e` (retained) added last; with `replace`, an entry of
 * the same name is replaced in place instead, keeping its GlobalVar. A taken
 * name without `replace` is PSG_ERR_INVALID_ARGUMENT. The caller checked e. */
psg_status psgi_module_put(const psg_module *m, const psgi_module_entry *e, bool replace, psg_module **out);

/* Free variables of `e` (Vars used but not bound inside), in order of first
 * use, appended to *out (borrowed). */
typedef PSGI_VEC(const psg_expr *) psgi_expr_vec;
psg_status psgi_free_vars(psg_ctx *ctx, const psg_expr *e, psgi_expr_vec *out);
/* psg_expr_well_formed, also telling the first offending variable (NULL when
 * the walk ran out of memory) and whether it was bound twice (else it was
 * used outside its scope). */
bool psgi_expr_well_formed_explain(const psg_expr *e, const psg_expr **bad_var, bool *bound_twice);
/* The first of them, or NULL. */
psg_status psgi_first_free_var(psg_ctx *ctx, const psg_expr *e, const psg_expr **out);

#endif
