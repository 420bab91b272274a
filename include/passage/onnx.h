/* Passage — the ONNX frontend (libpassage_onnx): import an ONNX model into a
 * Relay module (opsets 7-18, the op list of issue 6) and export a module back
 * to ONNX. A separate library, so the core depends on libc/libm/pthreads only.
 * Decoding uses protobuf-c code generated from onnx.proto at build time. */
#ifndef PASSAGE_ONNX_H
#define PASSAGE_ONNX_H

#include "passage/module.h"

PSG_BEGIN_DECLS

/* Import options: bindings of graph inputs' dynamic dimensions (TVM's
 * shape_dict). `input_shapes[i]` is "name=d0,d1,..." (as the CLI's
 * --input-shape takes it; "name=" binds a scalar); a binding must have the
 * input's rank and agree with its static dims. Unnamed inputs keep their ONNX
 * shapes. `input_shape_origins` (may be NULL, as may any entry) says where
 * binding i came from, for diagnostics ("--input x=a.npy"; the default is
 * "--input-shape"). The struct and its strings are borrowed for the call. */
typedef struct psg_onnx_import_opts {
  const char *const *input_shapes;
  size_t num_input_shapes;
  const char *const *input_shape_origins;
} psg_onnx_import_opts;

/* Imports the ONNX model in `bytes` (`len` bytes; borrowed, may be freed after
 * the call: weights are kept in buffers the module owns). `filename` names
 * the model in diagnostics (may be NULL: "<onnx>"); `opts` may be NULL.
 * The result has one function, @main, whose parameters are the graph inputs
 * that are not initializers (named as in ONNX) and whose result is the graph
 * output (a tuple when there are several); the module attribute
 * output_names lists the graph's output names, in order. Initializers become
 * constants. Every expression built for a named node has a span whose
 * `name` is the node's name (no file, line or column: TVM's frontends put the
 * name where the file goes, Passage keeps the two apart); passes keep spans
 * on what they rebuild.
 * *out is NULL on entry and stays NULL on failure.
 * Errors, each with diagnostics naming the ONNX node
 * ("node 'Conv_3' (Conv): ..."):
 *   PSG_ERR_PARSE        not a protobuf ModelProto, truncated data, wrong
 *                        initializer sizes, dangling names, cycles;
 *   PSG_ERR_UNSUPPORTED  unknown opset, unsupported ops or attributes (all of
 *                        them are reported, by name), external data;
 *   PSG_ERR_INVALID_ARGUMENT  a bad input-shape binding;
 *   PSG_ERR_TYPE         shapes or dtypes that do not fit an op;
 *   PSG_ERR_NOMEM. */
PSG_API psg_status psg_onnx_import(psg_ctx *ctx, const void *bytes, size_t len, const char *filename,
                                   const psg_onnx_import_opts *opts, psg_module **out);
/* Reads `path` and imports it as above; PSG_ERR_IO if it cannot be read. */
PSG_API psg_status psg_onnx_import_file(psg_ctx *ctx, const char *path,
                                        const psg_onnx_import_opts *opts, psg_module **out);

/* Exports @main of `mod` as an ONNX model (IR version 8, opset 14, or 17
 * when it uses nn.layer_norm) into a new buffer: *out_bytes (free with
 * psg_free) of *out_len bytes. The module
 * must type-check (InferType runs first, on a copy: `mod` is unchanged);
 * parameters become graph inputs under their names, constants initializers,
 * and the outputs take the names the module attribute output_names lists
 * (one string per output: the importer's), else "output" (one result) or
 * "output_I". An input or output name that another value of the model has
 * already falls back to the generated name ("input_I", "output"/"output_I"),
 * then gets _1, _2, ... until free.
 * Nodes written for a call whose span has a node name (the importer's) take
 * that name; when several nodes would (a decomposition, a
 * copy in each If branch), the one whose value leaves them keeps it bare and
 * the others get _1, _2, ...; other nodes get generated names (Op_N). Node
 * names are unique across the model and its subgraphs.
 * *out_bytes is NULL on entry and stays NULL on failure. Errors:
 *   PSG_ERR_NOT_FOUND    no @main;
 *   PSG_ERR_TYPE         the module does not type-check;
 *   PSG_ERR_UNSUPPORTED  an op or construct without an ONNX form (named);
 *   PSG_ERR_NOMEM. */
PSG_API psg_status psg_onnx_export(psg_ctx *ctx, const psg_module *mod, void **out_bytes,
                                   size_t *out_len);
/* Exports as above and writes the bytes to `path`; PSG_ERR_IO on failure. */
PSG_API psg_status psg_onnx_export_file(psg_ctx *ctx, const psg_module *mod, const char *path);

PSG_END_DECLS
#endif
