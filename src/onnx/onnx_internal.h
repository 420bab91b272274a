/* Passage — internals of the ONNX frontend (issue 6): the importer's state,
 * values (an expression with its inferred type), attribute readers, the call
 * builder with one-node type inference, and the per-op converters' table.
 * The frontend is a client of libpassage: public headers only. */
#ifndef PSG_ONNX_INTERNAL_H
#define PSG_ONNX_INTERNAL_H

#include <stdatomic.h>
#include "passage/passage.h"
#include "passage/onnx.h"
#include "onnx.pb-c.h"
#include "support/support.h"

/* Opsets 7-18 are the target; older models are accepted where an op's
 * semantics did not change (older attributes such as `broadcast` or
 * `consumed_inputs` are reported as unsupported). */
enum { ONNX_MIN_OPSET = 1, ONNX_MAX_OPSET = 18 };

/* Owns the decoded model; tensors wrapping its buffers hold a reference.
 * protobuf-c allocates the model through pb_alloc, on the context's
 * allocator (so the holder keeps the context alive). */
typedef struct onnx_holder {
  atomic_int refs;
  psg_ctx *ctx;
  ProtobufCAllocator pb_alloc;
  bool pb_failed; /* an allocation of protobuf-c's failed (unpack's NULL was no parse error) */
  Onnx__ModelProto *model;
} onnx_holder;
/* A holder with one reference and no model yet; PSG_ERR_NOMEM. */
psg_status onnxi_holder_create(psg_ctx *ctx, onnx_holder **out);
void onnxi_holder_release(void *holder);

/* The module attribute naming @main's outputs (a list of strings): the
 * importer records the graph's output names there, the exporter names the
 * outputs after it. */
#define ONNX_OUTPUT_NAMES "output_names"

/* The fewest output slots a converter gets (see convert_node); the deepest
 * nesting of subgraphs (If branches are converted by nested calls). */
enum { ONNX_MAX_OUTS = 8, ONNX_MAX_SUBGRAPH_DEPTH = 64 };

/* The largest dimension (and element count) an initializer may have: a
 * ConstantOfShape result beyond it stays lazy too, so that its export (an
 * initializer) imports again. */
#define ONNX_MAX_INIT_DIM ((int64_t)1 << 40)
/* The bytes of a static tensor type: -1 when it is not one, INT64_MAX when
 * the product overflows. */
int64_t onnxi_type_bytes(const psg_type *t);

/* A value of the graph: an expression and its type (tensor or tuple). */
typedef struct oval {
  psg_expr *e;
  const psg_type *t;
} oval;

/* Name -> value map (names are borrowed from the model): a house map whose
 * values are ovals in an arena, so a pointer to one stays valid while more
 * are added (an If's converter imports its branches while holding its
 * inputs). */
typedef struct onnx_map {
  psgi_map names;
  psgi_arena vals;
} onnx_map;

typedef struct onnx_imp {
  psg_ctx *ctx;
  const char *filename;
  onnx_holder *hold;
  int64_t opset;
  const psg_onnx_import_opts *opts;
  onnx_map values;           /* every name defined so far (all scopes) */
  const Onnx__NodeProto *node; /* the node being converted, for diagnostics */
  bool lift1d;                 /* a 1-D conv/pool being converted as 2-D */
  const Onnx__NodeProto *span_node; /* the node whose name span_name holds, */
  const char *span_name;            /* interned (spans pass it on without a lookup) */
  int errors;
  /* The most bytes one constant the importer makes may take (ConstantOfShape's
   * result, LSTM's zero states, a subgraph folded at import): larger ones stay
   * lazy calls or are a located error, so a tiny model cannot make the import
   * allocate gigabytes. The current PassContext's passage.max_constant_bytes
   * (256 MiB by default), the limit FoldConstant keeps too. */
  int64_t max_constant_bytes;
} onnx_imp;

/* The converters' signature: `ins[i]` is NULL for an absent optional input;
 * the converter sets outs[0..n_output-1] (new references). */
typedef psg_status (*onnx_conv_fn)(onnx_imp *im, const Onnx__NodeProto *n, const oval *const *ins,
                                   size_t nin, oval *outs);
typedef struct onnx_op_entry {
  const char *name;
  onnx_conv_fn fn;
  const char *const *attrs; /* the attributes this converter understands (NULL-terminated) */
} onnx_op_entry;
const onnx_op_entry *onnxi_find_op(const char *name);

/* Diagnostics: "node 'NAME' (Op): message" for the current node. */
psg_status onnxi_fail(onnx_imp *im, psg_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *onnxi_node_name(const Onnx__NodeProto *n);
/* Whether an error diagnostic was recorded at index `first` or later (a
 * failure that left none gets a generic one). */
bool onnxi_error_since(const psg_ctx *ctx, size_t first);
/* The span of every expression built for the current node: the node's name
 * in the span's name field, no file, line or column (the constructors
 * intern it). NULL outside a node and for an unnamed node. The exporter
 * names the nodes it writes for a call after this name. */
const psg_span *onnxi_span(const onnx_imp *im, psg_span *buf);

/* Map. */
void onnxi_map_init(onnx_map *m, psg_ctx *ctx);
void onnxi_map_fini(onnx_map *m);
oval *onnxi_map_get(onnx_map *m, const char *name);
/* Inserts (taking the value's reference); PSG_ERR_NOMEM. A repeated name is
 * reported by the caller (get first). */
psg_status onnxi_map_put(onnx_map *m, const char *name, oval v);

/* Values. */
void onnxi_val_release(oval *v);
/* dtype mapping; PSG_DTYPE_INVALID for types without a Passage dtype. */
int onnxi_dtype_from_onnx(int32_t t);
int32_t onnxi_dtype_to_onnx(int dtype);
const char *onnxi_onnx_type_name(int32_t t);
/* A TensorProto as a tensor (sharing the holder's buffers where possible);
 * `what` names it in diagnostics. PSG_ERR_PARSE on size mismatch. */
psg_status onnxi_tensor_from_proto(onnx_imp *im, const Onnx__TensorProto *tp, const char *what, psg_tensor **out);
psg_status onnxi_const_val(onnx_imp *im, psg_tensor *t, oval *out); /* retains t */

/* Attributes of the current node. */
const Onnx__AttributeProto *onnxi_attr(const Onnx__NodeProto *n, const char *name);
int64_t onnxi_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt);
float onnxi_attr_float(const Onnx__NodeProto *n, const char *name, float dflt);
/* The node's "axis" attribute (default 0) for an input of rank r, in
 * [-r, r) and made non-negative; a located error otherwise (onnx_attr.c). */
psg_status onnxi_axis_attr(onnx_imp *im, const Onnx__NodeProto *n, int r, int64_t *axis);
/* String attribute as a NUL-terminated copy in `buf` (truncated to cap). */
const char *onnxi_attr_str(const Onnx__NodeProto *n, const char *name, const char *dflt, char *buf, size_t cap);
/* Ints attribute: count (-1 when absent); copies up to cap items. */
int onnxi_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, int cap);

/* Attribute dictionary builder for calls. */
typedef struct onnx_ab {
  psg_ctx *ctx;
  const char *keys[24];
  psg_attr *vals[24];
  size_t n;
  psg_status failed; /* the first failure, returned by onnxi_ab_finish */
} onnx_ab;
void onnxi_ab_init(onnx_ab *b, psg_ctx *ctx);
void onnxi_ab_int(onnx_ab *b, const char *k, int64_t v);
void onnxi_ab_float(onnx_ab *b, const char *k, double v);
void onnxi_ab_bool(onnx_ab *b, const char *k, bool v);
void onnxi_ab_str(onnx_ab *b, const char *k, const char *v);
void onnxi_ab_dtype(onnx_ab *b, const char *k, int dtype);
void onnxi_ab_ints(onnx_ab *b, const char *k, const int64_t *v, int n);
void onnxi_ab_floats(onnx_ab *b, const char *k, const double *v, int n);
void onnxi_ab_int_pairs(onnx_ab *b, const char *k, const int64_t *before, const int64_t *after, int n);
/* Builds the dictionary (NULL when empty) and releases the values. */
psg_status onnxi_ab_finish(onnx_ab *b, psg_attrs **out);

/* Builders: a call of op `op` on `args` with `attrs` (borrowed; NULL for
 * none), its type inferred from the arguments' types. Type errors become
 * diagnostics of the current node. `tuple_arg`: the args form one tuple
 * argument (concatenate). */
psg_status onnxi_call(onnx_imp *im, const char *op, const oval *args, size_t n, psg_attrs *attrs, oval *out);
psg_status onnxi_call_tuple(onnx_imp *im, const char *op, const oval *args, size_t n, psg_attrs *attrs, oval *out);
/* Shorthands that build attrs. */
psg_status onnxi_unary(onnx_imp *im, const char *op, const oval *a, oval *out);
psg_status onnxi_binary(onnx_imp *im, const char *op, const oval *a, const oval *b, oval *out);
psg_status onnxi_reshape(onnx_imp *im, const oval *a, const int64_t *shape, int n, oval *out);
psg_status onnxi_cast(onnx_imp *im, const oval *a, int dtype, oval *out);
psg_status onnxi_scalar(onnx_imp *im, int dtype, double v, oval *out);
psg_status onnxi_get_item(onnx_imp *im, const oval *tup, int i, oval *out);
psg_status onnxi_transpose(onnx_imp *im, const oval *a, const int64_t *perm, int n, oval *out);

/* Constant values: the tensor of a value computed from constants only
 * (folded with the interpreter when needed). PSG_ERR_UNSUPPORTED with a
 * diagnostic naming `what` when it depends on graph inputs. *out is a new
 * reference. */
psg_status onnxi_const_tensor(onnx_imp *im, const oval *v, const char *what, psg_tensor **out);
/* 1 if onnxi_const_tensor can compute `v` (no graph input reaches it), 0 if
 * not, -1 when out of memory. */
int onnxi_is_constant(onnx_imp *im, const oval *v);
/* The int64 values of a 1-D (or scalar) integer constant; count in *n. */
psg_status onnxi_const_ints(onnx_imp *im, const oval *v, const char *what, int64_t *out, int cap, int *n);
psg_status onnxi_const_double(onnx_imp *im, const oval *v, const char *what, double *out);

/* Type helpers. */
int onnxi_rank(const oval *v);
int64_t onnxi_dim(const oval *v, int i);
int onnxi_dtype(const oval *v);
bool onnxi_is_static(const oval *v);

/* Imports a graph's nodes into the current scope (used by If's branches);
 * `outs` gets one value per graph output. */
psg_status onnxi_import_nodes(onnx_imp *im, const Onnx__GraphProto *g, oval *outs);

#endif
