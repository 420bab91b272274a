/* Passage ONNX frontend — what the exporter's walk (onnx_export.c) and its
 * per-op converters (onnx_export_ops.c) share: the exporter's state, its
 * memory, value names and errors, and the protobuf builders both use. */
#ifndef PSG_ONNX_EXPORT_INTERNAL_H
#define PSG_ONNX_EXPORT_INTERNAL_H

#include "onnx_internal.h"

typedef PSGI_VEC(void *) onnxi_ptr_vec;

typedef struct onnxi_exporter {
  psg_ctx *ctx;
  psgi_arena arena; /* the protobuf structures and names, freed after packing */
  bool oom;
  int errors;
  psg_status aborted; /* why pre stopped a walk (a Let or If that failed) */
  onnxi_ptr_vec nodes, inits, inputs; /* of the graph being written */
  psgi_map values; /* expr -> its `written` (onnx_export.c), in the arena */
  /* Scopes: 0 is the main graph, each If branch gets a new one. A value
   * written in an enclosing scope is read from there; one written in a
   * scope left behind (another branch) is written again where needed. */
  PSGI_VEC(unsigned) active; /* the enclosing scopes, the current last */
  unsigned nscopes;
  unsigned counter;
  psgi_map uses;  /* expr -> how many parents use it (counted before the walk) */
  psgi_map bound; /* parameter of an inlined function -> its argument */
  psgi_map made;  /* call -> the ONNX node it became */
  int opset;      /* 14, or 17 when a LayerNormalization needs it */
  const char *span_name; /* the name nodes made now keep (the call's source name), or NULL */
  psgi_map named;        /* node -> the name it keeps (see onnx_export_names.h) */
  psgi_map mains;        /* nodes computing a call's value (not helpers) */
  psgi_map convs;        /* op name -> its export_ops row (onnx_export_ops.c; filled on first use) */
} onnxi_exporter;

/* onnx_export.c: memory, names, maps and errors of one export. */
void *onnxi_ex_alloc(onnxi_exporter *x, size_t n);
char *onnxi_ex_str(onnxi_exporter *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
psg_status onnxi_ex_fail(onnxi_exporter *x, psg_status code, const char *fmt, ...);
/* The ONNX value names written for `e` (*n of them: tuples have one per
 * field), or NULL when it has none yet. */
char **onnxi_ex_get_names(const onnxi_exporter *x, const psg_expr *e, size_t *n);
void *onnxi_ex_map_get(const psgi_map *m, const void *k);
void onnxi_ex_map_put(onnxi_exporter *x, psgi_map *m, const void *k, void *v);
/* How many parents use `e` (counted before the walk). */
size_t onnxi_ex_uses_of(const onnxi_exporter *x, const psg_expr *e);
const psg_expr *onnxi_ex_resolve(const onnxi_exporter *x, const psg_expr *e);
bool onnxi_ex_is_op_call(const psg_expr *e, const char *name);
const char **onnxi_ex_arg_names(onnxi_exporter *x, const psg_expr *call);

/* onnx_export.c: protobuf builders (a new node is appended to the graph
 * being written, its outputs named). */
Onnx__NodeProto *onnxi_ex_node(onnxi_exporter *x, const char *op, int nin, int nout);
Onnx__AttributeProto *onnxi_ex_attr(onnxi_exporter *x, Onnx__NodeProto *n, const char *name,
                                    Onnx__AttributeProto__AttributeType t);
const char *onnxi_ex_init_raw(onnxi_exporter *x, int dtype, const int64_t *shape, int nd, const void *data,
                              size_t nbytes);

/* onnx_export_ops.c: the nodes of `e`, a call of an op, through its op's
 * converter; *out_names gets the names of its results, *nout of them.
 * Failures are reported ("ONNX export: ...") and returned. */
psg_status onnxi_ex_op_call(onnxi_exporter *x, const psg_expr *e, char ***out_names, size_t *nout);

#endif
