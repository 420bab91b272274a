/* Passage — private layout of TIR nodes (include/passage/tir.h): one node
 * struct for every kind, a common header, a per-kind payload and a flexible
 * array of operands in the order psg_tir_get_operand documents. */
#ifndef PSG_TIR_INTERNAL_H
#define PSG_TIR_INTERNAL_H

#include "passage/tir.h"
#include "ir/ir_internal.h"

/* The dtype rules of builtin ops (tir_ops.def). */
enum psgi_tir_op_rule {
  PSGI_TIR_RULE_ANY,
  PSGI_TIR_RULE_FLOAT_SAME,
  PSGI_TIR_RULE_NUM_SAME,
  PSGI_TIR_RULE_INT_SAME,
  PSGI_TIR_RULE_FLOAT_PRED,
  PSGI_TIR_RULE_BOOL_SAME,
  PSGI_TIR_RULE_BOOL_ARG,
  PSGI_TIR_RULE_IF_THEN_ELSE,
  PSGI_TIR_RULE_EXTERN
};

enum {
#define OP(id, name, min, max, rule) PSGI_TIR_OP_##id,
#include "tir/tir_ops.def"
#undef OP
  PSGI_TIR_OP_COUNT
};

typedef struct psgi_tir_op_info {
  const char *name;
  int min_args, max_args;
  int rule;
} psgi_tir_op_info;
extern const psgi_tir_op_info psgi_tir_ops[PSGI_TIR_OP_COUNT];

/* Flags: HAS_PRED, the last operand of a BufferLoad/BufferStore is its
 * predicate; HAS_NODE, an AttrStmt's third operand is its node. */
enum { PSGI_TIR_HAS_PRED = 1, PSGI_TIR_HAS_NODE = 2 };

struct psg_tir_node {
  uint16_t kind;
  uint16_t flags;
  uint32_t refcount; /* atomic once threads exist (psgi_ref_inc/dec) */
  psg_ctx *ctx;
  psg_tir_dtype dtype; /* see psg_tir_dtype_of */
  psg_span span;       /* file and name interned */
  union {
    struct { const char *name; psg_tir_node *type; } var; /* Var, SizeVar: name interned, type owned */
    int64_t int_value;                            /* IntImm */
    double float_value;                           /* FloatImm */
    struct { const char *s; size_t len; } str;    /* StringImm (interned) */
    uint32_t op;                                  /* Call: index in psgi_tir_ops */
    struct { int kind; psg_attrs *annotations; } loop; /* For */
    psg_attrs *annotations;                       /* Allocate */
    const char *attr_key;                         /* AttrStmt (interned) */
    struct { int type; const char *tag; } iter;   /* IterVar: kind, thread tag (interned) */
    const char *scope;                            /* PointerType (interned) */
    struct {
      const char *name; /* interned */
      uint32_t ndim, nstrides;
      int data_alignment, offset_factor, buffer_type;
      uint32_t naxis;
      int64_t *axis_separators; /* naxis entries, psgi_alloc */
    } buf;
    struct {
      uint32_t nparams, nmap;
      uint32_t *map_params; /* nmap param indices, psgi_alloc */
      psg_attrs *attrs;
      psg_tir_node *ret_type;
    } func;
    struct psg_tir_node *dead_next; /* release: links dead nodes */
  } u;
  uint32_t nkids;
  psg_tir_node *kids[]; /* NULL never: optional operands are left out */
};

extern const char *const psgi_tir_kind_names[PSG_TIR_KIND_COUNT];

/* A node of `kind` with `nkids` operand slots, filled by the caller with
 * psgi_tir_set_kid (which retains). The span is copied. */
psg_status psgi_tir_new(psg_ctx *ctx, int kind, size_t nkids, const psg_span *span,
                        psg_tir_node **out);
static inline void psgi_tir_set_kid(psg_tir_node *n, size_t i, psg_tir_node *kid) {
  n->kids[i] = kid;
  psg_tir_retain(kid);
}
/* A located constructor error naming the node kind:
 * "<file>:<line>:<col>: BufferStore: value has dtype float16, expected float32". */
psg_status psgi_tir_fail(psg_ctx *ctx, psg_status code, const psg_span *span, int kind,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
psg_status psgi_tir_missing(psg_ctx *ctx, const psg_span *span, int kind, const char *what);
/* The check of every expression operand: present and a PrimExpr. */
psg_status psgi_tir_need_expr(psg_ctx *ctx, const psg_span *span, int kind, const psg_tir_node *n,
                              const char *what);
/* The var/value pair of Let and LetStmt: a Var and a value of its dtype. */
psg_status psgi_tir_check_binding(psg_ctx *ctx, const psg_span *span, int kind, psg_tir_node *var,
                                  psg_tir_node *value);
/* The dtype of an access to `buffer` at `indices` (BufferLoad's result,
 * BufferStore's value), after checking the buffer, the indices and the
 * predicate. */
psg_status psgi_tir_access_dtype(psg_ctx *ctx, const psg_span *span, int kind, psg_tir_node *buffer,
                                 psg_tir_node *const *indices, size_t n, psg_tir_node *predicate,
                                 psg_tir_dtype *out);
/* dtype name into a caller buffer (for messages). */
typedef struct { char s[32]; } psgi_tir_dtype_name_buf;
const char *psgi_tir_dtype_name(psg_tir_dtype t, psgi_tir_dtype_name_buf *buf);

static inline bool psgi_tir_is_expr_kind(int k) { return k >= PSG_TIR_FIRST_EXPR && k <= PSG_TIR_LAST_EXPR; }
static inline bool psgi_tir_is_stmt_kind(int k) { return k >= PSG_TIR_FIRST_STMT && k <= PSG_TIR_LAST_STMT; }
static inline bool psgi_tir_is_var_kind(int k) { return k == PSG_TIR_VAR || k == PSG_TIR_SIZE_VAR; }

/* Field positions for kinds with a variable number of operands. */
static inline size_t psgi_tir_num_indices(const psg_tir_node *n) {
  size_t fixed = n->kind == PSG_TIR_BUFFER_STORE ? 2 : 1;
  return n->nkids - fixed - (n->flags & PSGI_TIR_HAS_PRED ? 1 : 0);
}
static inline psg_tir_node *const *psgi_tir_indices(const psg_tir_node *n) {
  return n->kids + (n->kind == PSG_TIR_BUFFER_STORE ? 2 : 1);
}

/* Functional update: n's kind, payload and span over operands `kids` (one
 * per slot), through the checked constructors (rebuild.c). */
psg_status psgi_tir_rebuild(const psg_tir_node *n, psg_tir_node *const *kids, psg_tir_node **out);
/* n itself (retained) when `kids` are n's own operands, else psgi_tir_rebuild:
 * the end of a post-order rewrite walk's visit of n. */
static inline psg_status psgi_tir_rebuild_if_changed(const psg_tir_node *n, psg_tir_node *const *kids,
                                                     psg_tir_node **out) {
  for (uint32_t i = 0; i < n->nkids; i++)
    if (kids[i] != n->kids[i]) return psgi_tir_rebuild(n, kids, out);
  psg_tir_retain(*out = (psg_tir_node *)n);
  return PSG_OK;
}
/* A post-order rewrite of `root`: decide(user, n, &repl) gives n's
 * replacement (retained) or leaves repl NULL to rewrite n's operands; a node
 * is rebuilt when an operand changed (psgi_tir_rebuild_if_changed), and a node
 * with more than one reference is rewritten once (memo), so the decision must
 * depend on the node alone. Iterative. */
typedef psg_status (*psgi_tir_decide_fn)(void *user, const psg_tir_node *n, psg_tir_node **repl);
psg_status psgi_tir_rewrite_post(psg_ctx *ctx, const psg_tir_node *root, psgi_tir_decide_fn decide, void *user,
                                 psg_tir_node **out);
/* PrimFunc f with its body (kids[0]) replaced by `body`; its other parts kept. */
psg_status psgi_tir_func_with_body(psg_ctx *ctx, const psg_tir_node *f, psg_tir_node *body, psg_tir_node **out);
/* Structural equality with an optional path prefixed by `prefix` (structural.c). */
bool psgi_tir_equal(const psg_tir_node *a, const psg_tir_node *b, const char *prefix, char **path);

/* The operand slot an analysis visits k-th (k < nkids) in node n: the
 * definitions a node makes come before what they scope over. *def tells
 * whether the slot is a definition position. Inline: the walkers ask it for
 * every edge, and for most kinds it is k itself. */
static inline uint32_t psgi_tir_visit_slot(const psg_tir_node *n, uint32_t k, bool *def) {
  *def = false;
  switch (n->kind) {
  case PSG_TIR_PRIM_FUNC: {
    uint32_t np = n->u.func.nparams, nb = n->u.func.nmap;
    if (k < np + nb) {
      *def = true;
      return 1 + k;
    }
    return 0;
  }
  case PSG_TIR_BUFFER:
    *def = true;
    if (k == 0) return 0;
    return k + 1 < n->nkids ? k + 1 : 1; /* data, shape, strides, then elem_offset */
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT:
  case PSG_TIR_FOR:
  case PSG_TIR_DECL_BUFFER:
    *def = k == 0;
    return k;
  case PSG_TIR_ALLOCATE: {
    uint32_t next = n->nkids - 3; /* extents */
    *def = k == 0;
    if (k == 0) return 0;
    if (k <= next) return 2 + k; /* extents */
    return k == next + 1 ? 1 : 2; /* condition, body */
  }
  case PSG_TIR_ATTR_STMT:
    if (!(n->flags & PSGI_TIR_HAS_NODE)) return k;
    *def = k == 0; /* the node (a thread var, a buffer) scopes over the body */
    return k == 0 ? 2 : k - 1;
  default:
    return k;
  }
}

/* TVM's name of operand `slot` of n ("body", "seq[3]", "indices[0]"). */
void psgi_tir_field_label(const psg_tir_node *n, uint32_t slot, char *buf, size_t size);

/* The table a module entry holding a PrimFunc carries (module_prim.c), for
 * readers that build a module's entries at once (the mixed Relay text). */
const psgi_prim_func_ops *psgi_tir_prim_func_ops(void);

#endif
