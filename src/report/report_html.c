/* Passage — the run report as one self-contained HTML document: inline CSS,
 * a few lines of inline JS (folding a pass's children), the graphs as inline
 * SVG; nothing is fetched. Every text that comes from the IR, a pass or a
 * diagnostic is HTML-escaped. */
#include <string.h>
#include "report/report_internal.h"

bool psgi_html_escape(psgi_buf *b, const char *s, size_t n) {
  size_t run = 0; /* bytes not needing escapes, appended in one go */
  for (size_t i = 0; i < n; i++) {
    const char *rep = NULL;
    switch (s[i]) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&#39;"; break;
    default: run++; continue;
    }
    psgi_buf_append(b, s + i - run, run);
    run = 0;
    psgi_buf_puts(b, rep);
  }
  psgi_buf_append(b, s + n - run, run);
  return !b->failed;
}

static void esc(psgi_buf *b, const char *s) {
  if (s) psgi_html_escape(b, s, strlen(s));
}

static const char STYLE[] =
    "body{font:13px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:16px 24px;color:#222}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 6px;border-bottom:1px solid #ddd}"
    ".summary{color:#555}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3;font-weight:600}tr.pass td{border-top:1px solid #eee;white-space:nowrap}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.bar{width:260px}.track{position:relative;height:10px;background:#f4f4f4;width:260px}"
    ".fill{position:absolute;top:0;height:10px;background:#6c8ebf;min-width:1px}"
    "tr.changed .fill{background:#d79b00}tr.failed .fill{background:#b85450}"
    "tr.failed td.name{color:#b85450;font-weight:600}tr.changed td.changed{color:#d79b00;font-weight:600}"
    ".tog{display:inline-block;width:1em;cursor:pointer;color:#888}"
    "tr.detail td{padding:0 8px 4px}summary{cursor:pointer;color:#345}"
    "pre.diff{margin:2px 0;padding:4px;background:#fafafa;border:1px solid #eee;max-height:480px;overflow:auto;"
    "font:11px/1.3 ui-monospace,monospace}"
    ".add{background:#e6ffec}.del{background:#ffebe9}.hunk{color:#6f42c1}.note{color:#888}"
    ".graphs{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}"
    "figure{margin:0;border:1px solid #ddd;padding:4px;max-width:48%;max-height:800px;overflow:auto}"
    "figure svg{width:100%;height:auto}figure.wide{max-width:100%}figcaption{font-weight:600;margin-bottom:4px}"
    ".error{color:#b85450}.sev-error{color:#b85450;font-weight:600}.sev-warning{color:#d79b00}"
    "pre.msg{margin:0;white-space:pre-wrap;font:11px/1.3 ui-monospace,monospace}";

/* Clicking a pass's toggle hides or shows every row below it that is
 * deeper (its passes and their details). */
static const char SCRIPT[] =
    "document.querySelectorAll('tr.pass .tog').forEach(function(t){t.addEventListener('click',function(){"
    "var row=t.closest('tr'),d=+row.dataset.depth,open=t.textContent==='\\u25be';"
    "t.textContent=open?'\\u25b8':'\\u25be';"
    "for(var r=row.nextElementSibling;r&&(r.classList.contains('detail')||+r.dataset.depth>d);"
    "r=r.nextElementSibling){r.style.display=open?'none':'';"
    "var u=r.querySelector('.tog');if(u&&!open)u.textContent='\\u25be';}});});"
    /* How long the browser took to open the report (shown at the bottom;
     * the headless-Chromium test reads it from the DOM). */
    "function shown(){var t=performance.now(),e=document.getElementById('load-time');"
    "e.dataset.ms=t.toFixed(1);e.textContent='Opened in '+t.toFixed(0)+' ms.';}"
    "shown();window.addEventListener('load',shown);";

static void stat_cell(psgi_buf *b, bool ok, size_t before, size_t after) {
  if (!ok) psgi_buf_puts(b, "<td class=\"num\">?</td>");
  else if (before == after) psgi_buf_printf(b, "<td class=\"num\">%zu</td>", after);
  else psgi_buf_printf(b, "<td class=\"num\">%zu &rarr; %zu</td>", before, after);
}

/* A diff with its lines coloured by kind. */
static void diff_block(psgi_buf *b, const psgi_report_pass *p) {
  psgi_buf_printf(b, "<details><summary>IR diff: +%zu &minus;%zu lines%s%s</summary><pre class=\"diff\">",
                  p->diff.added, p->diff.removed, p->diff.minimal ? "" : " (not minimal)",
                  p->diff.truncated ? " (truncated)" : "");
  const char *s = p->diff.text;
  while (s && *s) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    const char *cls = *s == '+' ? "add" : *s == '-' ? "del" : *s == '@' ? "hunk" : *s == '.' ? "note" : NULL;
    if (cls) psgi_buf_printf(b, "<span class=\"%s\">", cls);
    psgi_html_escape(b, s, n);
    psgi_buf_puts(b, cls ? "</span>\n" : "\n");
    s += n + (e ? 1 : 0);
  }
  psgi_buf_puts(b, "</pre></details>");
}

/* The picture of `m`'s main dataflow graph, or why there is none. */
static void graph_figure(psgi_report *r, psgi_buf *b, psg_module *m, const char *caption, bool wide) {
  psgi_buf_printf(b, "<figure%s><figcaption>", wide ? " class=\"wide\"" : "");
  esc(b, caption);
  char *dot = NULL, *svg = NULL;
  size_t shown = 0, total = 0, mark = psg_ctx_diag_count(r->ctx);
  psg_status st = psgi_relay_to_dot(m, "main", r->max_graph_nodes, &dot, &shown, &total);
  if (st == PSG_ERR_NOT_FOUND) {
    psgi_diag_truncate(r->ctx, mark);
    st = psgi_relay_to_dot(m, NULL, r->max_graph_nodes, &dot, &shown, &total);
  }
  if (!st) {
    psgi_buf_printf(b, " (%zu nodes", total);
    if (shown < total) psgi_buf_printf(b, "; capped: the %zu nearest the inputs shown", shown);
    psgi_buf_puts(b, ")");
    st = psgi_dot_to_svg(r->ctx, dot, 120000, &svg);
  }
  psgi_buf_puts(b, "</figcaption>");
  if (!st) {
    psgi_buf_puts(b, svg); /* Graphviz's own output: its texts are XML-escaped by dot */
  } else {
    const psg_diag *d = psg_ctx_get_last_error(r->ctx);
    const char *why = d ? psg_diag_message(d) : "out of memory";
    psgi_buf_puts(b, "<p class=\"error\">graph not drawn: ");
    esc(b, why);
    psgi_buf_puts(b, "</p>");
    if (dot) {
      psgi_buf_puts(b, "<details><summary>its DOT text</summary><pre class=\"diff\">");
      esc(b, dot);
      psgi_buf_puts(b, "</pre></details>");
    }
    /* A missing picture is a warning, not the run's failure. */
    char *msg = psgi_strdup(r->ctx, why);
    psgi_diag_truncate(r->ctx, mark);
    psgi_diag_add(r->ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, NULL, "run report: %s not drawn: %s",
                  caption, msg ? msg : "out of memory");
    psgi_free(r->ctx, msg);
  }
  psgi_buf_puts(b, "</figure>");
  psgi_free(r->ctx, dot);
  psgi_free(r->ctx, svg);
}

static void module_table(psgi_buf *b, psgi_report *r) {
  psgi_module_stats s0 = {0}, s1 = {0};
  bool ok = r->first_input && r->last_output && !psgi_module_stats_compute(r->first_input, &s0) &&
            !psgi_module_stats_compute(r->last_output, &s1);
  if (!ok) {
    psgi_buf_puts(b, "<p>No pass ran.</p>");
    return;
  }
  psgi_buf_puts(b, "<table id=\"module\"><tr><th></th><th>before</th><th>after</th></tr>");
  const char *names[] = {"Relay functions", "Relay nodes", "op calls", "PrimFuncs", "TIR statements"};
  size_t v0[] = {s0.relay_functions, s0.relay_nodes, s0.op_calls, s0.prim_funcs, s0.tir_stmts};
  size_t v1[] = {s1.relay_functions, s1.relay_nodes, s1.op_calls, s1.prim_funcs, s1.tir_stmts};
  for (int i = 0; i < 5; i++)
    psgi_buf_printf(b, "<tr><td>%s</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>", names[i], v0[i],
                    v1[i]);
  psgi_buf_puts(b, "</table>");
}

static void pass_rows(psgi_buf *b, psgi_report *r, double t0, double span) {
  for (size_t i = 0; i < r->passes.len; i++) {
    psgi_report_pass *p = &r->passes.data[i];
    double start = p->start_us - p->overhead_at_start - t0;
    double left = span > 0 ? 100.0 * start / span : 0, width = span > 0 ? 100.0 * p->dur_us / span : 0;
    if (left < 0) left = 0;
    if (left + width > 100) width = 100 - left;
    psgi_buf_printf(b, "<tr class=\"pass%s%s\" data-depth=\"%d\" id=\"pass-%zu\"><td class=\"name\" "
                       "style=\"padding-left:%.1fem\"><span class=\"tog\">%s</span>",
                    p->changed ? " changed" : "", p->failed ? " failed" : "", p->depth, i, 0.5 + 1.2 * p->depth,
                    p->has_children ? "&#9662;" : "");
    esc(b, p->name);
    psgi_buf_printf(b, "</td><td class=\"bar\"><div class=\"track\"><div class=\"fill\" style=\"left:%.3f%%;"
                       "width:%.3f%%\"></div></div></td><td class=\"num\">%.3f</td>",
                    left, width, p->dur_us / 1e3);
    psgi_buf_printf(b, "<td class=\"changed\">%s</td>", p->open ? "running" : p->failed ? "failed" : p->changed ? "yes" : "no");
    stat_cell(b, p->stats_ok, p->before.relay_nodes, p->after.relay_nodes);
    stat_cell(b, p->stats_ok, p->before.op_calls, p->after.op_calls);
    stat_cell(b, p->stats_ok, p->before.tir_stmts, p->after.tir_stmts);
    psgi_buf_puts(b, "</tr>\n");
    bool own = p->changed && !p->child_changed;
    bool diff = p->diff.text && p->diff.len, failed_diff = own && p->diff_failed;
    bool same_text = own && !p->diff_failed && !diff;
    if (!diff && !p->graph && !p->error && !failed_diff && !same_text) continue;
    psgi_buf_printf(b, "<tr class=\"detail\" data-depth=\"%d\"><td colspan=\"7\" style=\"padding-left:%.1fem\">",
                    p->depth, 1.7 + 1.2 * p->depth);
    if (p->error) {
      psgi_buf_puts(b, "<pre class=\"msg error\">");
      esc(b, p->error);
      psgi_buf_puts(b, "</pre>");
    }
    if (diff) diff_block(b, p);
    if (failed_diff) psgi_buf_puts(b, "<p class=\"note\">no diff: the module could not be printed</p>");
    if (same_text)
      psgi_buf_puts(b, "<p class=\"note\">the printed text did not change (constants' values, types or binding "
                       "numbers changed)</p>");
    if (p->graph) {
      psgi_buf_puts(b, "<details><summary>graph after this pass</summary>");
      graph_figure(r, b, p->graph, "after this pass", true);
      psgi_buf_puts(b, "</details>");
    }
    psgi_buf_puts(b, "</td></tr>\n");
  }
}

static void diag_table(psgi_buf *b, psgi_report *r) {
  if (!r->diags.len) {
    psgi_buf_puts(b, "<p id=\"diagnostics\">None.</p>");
    return;
  }
  psgi_buf_puts(b, "<table id=\"diagnostics\"><tr><th>severity</th><th>pass</th><th>message</th></tr>");
  for (size_t i = 0; i < r->diags.len; i++) {
    psgi_report_diag *d = &r->diags.data[i];
    const char *sev = d->severity == PSG_SEVERITY_ERROR ? "error" : d->severity == PSG_SEVERITY_WARNING ? "warning" : "note";
    psgi_buf_printf(b, "<tr class=\"diag\"><td class=\"sev-%s\">%s</td><td>", sev, sev);
    esc(b, d->pass ? d->pass : "");
    psgi_buf_puts(b, "</td><td><pre class=\"msg\">");
    esc(b, d->message);
    psgi_buf_puts(b, "</pre></td></tr>");
  }
  psgi_buf_puts(b, "</table>");
}

psg_status psgi_report_html(psgi_report *r, char **html, size_t *len) {
  *html = NULL;
  *len = 0;
  psgi_buf b;
  psgi_buf_init(&b, r->ctx);
  size_t changed = 0, failed = 0;
  double t0 = 0, end = 0, total = 0;
  for (size_t i = 0; i < r->passes.len; i++) {
    psgi_report_pass *p = &r->passes.data[i];
    changed += p->changed && !p->child_changed;
    failed += p->failed;
    double s = p->start_us - p->overhead_at_start;
    if (i == 0 || s < t0) t0 = s;
    if (s + p->dur_us > end) end = s + p->dur_us;
    if (p->depth == 0) total += p->dur_us;
  }
  psgi_buf_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                      "<title>Passage run report</title><style>%s</style></head><body>\n"
                      "<h1>Passage run report</h1>\n<p class=\"summary\">%zu pass executions; %zu passes changed the "
                      "module themselves; %zu failed; %.3f ms in passes (the report's own work left out); %zu diagnostics.</p>\n",
                  STYLE, r->passes.len, changed, failed, total / 1e3, r->diags.len);
  psgi_buf_puts(&b, "<h2>Module</h2>\n");
  module_table(&b, r);
  if (r->graphs != PSG_REPORT_GRAPHS_NONE && r->first_input && r->last_output) {
    psgi_buf_puts(&b, "\n<h2>Dataflow graph</h2>\n<div class=\"graphs\">");
    graph_figure(r, &b, r->first_input, "before the run", false);
    graph_figure(r, &b, r->last_output, "after the run", false);
    psgi_buf_puts(&b, "</div>\n");
  }
  psgi_buf_puts(&b, "<h2>Passes</h2>\n<table id=\"passes\"><thead><tr><th>pass</th><th>wall time</th><th>ms</th>"
                    "<th>changed</th><th>Relay nodes</th><th>op calls</th><th>TIR statements</th></tr></thead>"
                    "<tbody>\n");
  pass_rows(&b, r, t0, end - t0);
  psgi_buf_puts(&b, "</tbody></table>\n<h2>Diagnostics and validation</h2>\n");
  diag_table(&b, r);
  psgi_buf_printf(&b, "\n<p class=\"summary\" id=\"load-time\"></p>\n<script>%s</script>\n</body></html>\n", SCRIPT);
  if (b.failed) {
    psgi_buf_fini(&b);
    return psgi_nomem(r->ctx);
  }
  *html = b.data;
  *len = b.len;
  return PSG_OK;
}
