/* Passage — the one-file HTML run report (docs/report.md): the pieces the
 * report instrument is made of, each testable alone (tests/unit/test_report.c). */
#ifndef PASSAGE_REPORT_INTERNAL_H
#define PASSAGE_REPORT_INTERNAL_H

#include "passage/passage.h"
#include "passage/report.h"
#include <pthread.h>
#include "pass/pass_internal.h" /* psgi_strdup, the instrument struct */
#include "support/support.h"

/* Line diff ------------------------------------------------------------------
 * A unified diff ("@@ -a,n +b,m @@" hunks, 3 lines of context) of two texts,
 * computed by Myers' O(ND) algorithm, iteratively. Lines are matched with
 * the digits after '%' ignored (Relay's binding numbers), a matched line
 * shown as in `b`. Bounded: with more than
 * `max_edits` changed lines the differing middle (after the common prefix and
 * suffix) is shown as removed-then-added and `minimal` is false; the text
 * stops after `max_lines` diff lines with a note and `truncated` set. */
typedef struct psgi_diff {
  char *text; /* psgi_alloc'd, NUL-terminated; "" when the texts are equal */
  size_t len;
  size_t added, removed; /* lines, counted over the whole diff (also the truncated part) */
  bool minimal, truncated;
} psgi_diff;
psg_status psgi_line_diff(psg_ctx *ctx, const char *a, size_t alen, const char *b, size_t blen, size_t max_edits,
                          size_t max_lines, psgi_diff *out);
void psgi_diff_fini(psg_ctx *ctx, psgi_diff *d);

/* HTML ------------------------------------------------------------------------
 * Appends `s` (n bytes) with & < > " ' escaped, so it is inert as element text
 * and inside a quoted attribute. */
bool psgi_html_escape(psgi_buf *b, const char *s, size_t n);

/* Module statistics -------------------------------------------------------- */
typedef struct psgi_module_stats {
  size_t relay_functions, relay_nodes, op_calls; /* Relay: every expression node; calls of an Op */
  size_t prim_funcs, tir_stmts;                  /* PrimFuncs and their statements */
} psgi_module_stats;
psg_status psgi_module_stats_compute(const psg_module *m, psgi_module_stats *out);

/* Dataflow graph as DOT --------------------------------------------------------
 * The Relay function `name` of `m` (or the first one when NULL) as a Graphviz
 * digraph: a node per call, variable, tuple and projection, an edge per
 * operand; constants are folded into their user's label ("+2 const"); at most
 * `max_nodes` nodes (those nearest the inputs), with a note node saying how
 * many were left out. Labels are escaped for DOT. *dot is psgi_alloc'd. */
psg_status psgi_relay_to_dot(const psg_module *m, const char *name, size_t max_nodes, char **dot, size_t *shown,
                             size_t *total);

/* Runs Graphviz's `dot -Tsvg` (found on PATH) over `dot_text`: *svg is the
 * SVG document without its XML prologue (ready to inline in HTML),
 * psgi_alloc'd. A missing `dot`, a failing one or one that runs longer than
 * `timeout_ms` is a located error diagnostic. */
psg_status psgi_dot_to_svg(psg_ctx *ctx, const char *dot_text, int timeout_ms, char **svg);

/* What the instrument records ------------------------------------------------
 * One entry per pass execution, in pre-order (a pass run inside another is
 * its child, as in the timing instrument). */
typedef struct psgi_report_pass {
  char *name;
  int32_t parent;
  int depth;
  double start_us, dur_us; /* dur excludes the report's own work in its children */
  double overhead_at_start;
  bool open, failed, changed, has_children, stats_ok;
  bool child_changed; /* a pass inside it changed the module: the change is theirs, no diff here */
  psgi_module_stats before, after;
  psg_module *input;     /* retained while the pass runs */
  psgi_diff diff;        /* changed leaf passes only */
  bool diff_failed;      /* printing or diffing ran out of memory */
  psg_module *graph;     /* PSG_REPORT_GRAPHS_EACH: the output of a changed leaf pass */
  char *error;           /* failed: the error's message */
} psgi_report_pass;

typedef struct psgi_report_diag {
  int severity;
  char *pass, *message;
} psgi_report_diag;

/* A few recently seen modules (retained, so an address is never reused
 * under us) with their hash, counts and text, computed on demand: a pass's
 * output is usually the next pass's input. */
enum { PSGI_REPORT_MEMO = 4 };
typedef struct psgi_report_memo {
  psg_module *mod;
  bool has_hash, has_stats;
  uint64_t hash;
  psgi_module_stats stats;
  psg_status stats_status;
  char *text; /* psg_free */
  size_t text_len;
} psgi_report_memo;

typedef struct psgi_report {
  psg_ctx *ctx;
  char *path; /* may be NULL: render or write explicitly */
  int graphs;
  PSGI_VEC(psgi_report_pass) passes;
  PSGI_VEC(psgi_report_diag) diags;
  int32_t open;
  double overhead_us; /* time spent in the report's own callbacks */
  psg_module *first_input, *last_output;
  psgi_report_memo memo[PSGI_REPORT_MEMO];
  size_t memo_next;
  size_t max_graph_nodes, max_diff_edits, max_diff_lines;
  pthread_mutex_t lock;
} psgi_report;

/* The HTML document of `r` (caller holds r->lock); *html psgi_alloc'd. */
psg_status psgi_report_html(psgi_report *r, char **html, size_t *len);

#endif
