/* Passage — the one-file HTML run report (docs/report.md): an instrument
 * that records every pass execution of the contexts it is added to (nesting,
 * wall time, whether the module changed, node and op counts before and after,
 * the unified IR diff of each pass that changed it, the diagnostics) and
 * writes one self-contained HTML file (inline CSS and JS, no network) when
 * the PassContext exits, with the dataflow graph before and after the run
 * drawn by Graphviz's `dot`. */
#ifndef PASSAGE_REPORT_H
#define PASSAGE_REPORT_H

#include "passage/instrument.h"

PSG_BEGIN_DECLS

enum {
  PSG_REPORT_GRAPHS_NONE = 0, /* no pictures (no Graphviz needed) */
  PSG_REPORT_GRAPHS_ENDS = 1, /* the graph before and after the run (default) */
  PSG_REPORT_GRAPHS_EACH = 2  /* ... and after every pass that changed it */
};

/* The report goes to `path` (written whole, atomically) each time a context
 * holding the instrument exits; a failure to write it fails the exit. A
 * missing or failing `dot` does not: the report says so where the picture
 * would be (and holds the DOT text), and a warning diagnostic is recorded. */
PSG_API psg_status psg_report_instrument_create(psg_ctx *ctx, const char *path, int graphs, psg_instrument **out);
/* The report as HTML text now (psg_free), without writing it. */
PSG_API char *psg_report_render(psg_instrument *report);
/* Writes the report now; PSG_ERR_IO (with a diagnostic) if it cannot. */
PSG_API psg_status psg_report_write(psg_instrument *report, const char *path);

PSG_END_DECLS
#endif
