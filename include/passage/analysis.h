/* Passage — Relay analyses that answer questions about IR without changing
 * it: TVM's kind checker (relay.analysis.check_kind) and call graph
 * (relay.analysis.CallGraph). */
#ifndef PASSAGE_ANALYSIS_H
#define PASSAGE_ANALYSIS_H

#include "passage/module.h"
#include "passage/type.h"

PSG_BEGIN_DECLS

/* Kind checking ----------------------------------------------------------
 * The kind (PSG_TYPE_KIND_*) of `t`: a TypeVar, GlobalTypeVar or
 * IncompleteType has the kind it carries, every other type is of kind Type
 * once its parts are checked: a tuple's fields, a function type's argument
 * and result types, a reference's contents and a type call's arguments must
 * be of kind Type, a type call's callee a GlobalTypeVar of kind AdtHandle
 * whose definition the module gives (with as many arguments as the
 * definition has type variables); without a module every TypeCall is
 * "undefined", as in TVM's checker with an empty module.
 * Errors: PSG_ERR_TYPE with a diagnostic naming the part, its kind and the
 * kind expected ("Incorrect kind for a tuple member: ..."). */
PSG_API psg_status psg_type_check_kind(psg_ctx *ctx, const psg_type *t, int *kind);
/* The same, looking type calls up in `mod` (may be NULL). */
PSG_API psg_status psg_type_check_kind_in(psg_ctx *ctx, const psg_type *t, const psg_module *mod, int *kind);
/* A TypeRelation's kind: Constraint, once each of its `n` argument types is
 * checked to be of kind Type (errors as above). */
PSG_API psg_status psg_type_relation_check_kind(psg_ctx *ctx, const psg_type *const *args, int n, int *kind);
PSG_API psg_status psg_type_relation_check_kind_in(psg_ctx *ctx, const psg_type *const *args, int n,
                                                   const psg_module *mod, int *kind);

/* Call graph -------------------------------------------------------------
 * Which global functions each global function references (TVM's CallGraph:
 * every GlobalVar a function's body mentions, once per function, counts as a
 * call). Entries are the module's functions in module order. */
typedef struct psg_call_graph psg_call_graph;

/* Builds the graph of `m` (retained by the graph). */
PSG_API psg_status psg_call_graph_create(const psg_module *m, psg_call_graph **out);
PSG_API void psg_call_graph_free(psg_call_graph *g); /* NULL-safe */
/* The module, borrowed while the graph lives. */
PSG_API psg_module *psg_call_graph_get_module(const psg_call_graph *g);
/* The entry of global `name`, or -1. */
PSG_API ptrdiff_t psg_call_graph_find(const psg_call_graph *g, const char *name);
/* Entry i: how many functions reference it, how many globals it calls, and
 * whether it calls itself. */
PSG_API size_t psg_call_graph_ref_count(const psg_call_graph *g, size_t i);
PSG_API size_t psg_call_graph_call_count(const psg_call_graph *g, size_t i);
PSG_API bool psg_call_graph_is_recursive(const psg_call_graph *g, size_t i);
/* The text TVM prints for one entry ("Call graph node: NAME at: ADDR,  #refs
 * = N" and a "  call site: <NAME> calls CALLEE" line per call) or, for the
 * whole graph, every entry in TVM's topological order (from the entries no
 * one references, or recursive ones, breadth first). *out is for psg_free.
 * The whole-graph text fails with PSG_ERR_INVALID_ARGUMENT when a function is
 * reachable from no entry (a cycle no outside function calls), as TVM's. */
PSG_API psg_status psg_call_graph_print_entry(const psg_call_graph *g, size_t i, char **out);
PSG_API psg_status psg_call_graph_print(const psg_call_graph *g, char **out);

PSG_END_DECLS
#endif
