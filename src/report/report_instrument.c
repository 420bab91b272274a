/* Passage — the run report instrument (docs/report.md): records each pass
 * execution (tree, wall time, changed or not, counts before and after, the
 * IR diff of a leaf pass that changed the module, failures) and, when its
 * PassContext exits, the context's diagnostics; then writes the HTML file.
 * Its own work is subtracted from the times of the passes it runs inside. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "report/report_internal.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static psgi_report_memo *memo_of(psgi_report *r, psg_module *m) {
  for (int i = 0; i < PSGI_REPORT_MEMO; i++)
    if (r->memo[i].mod == m) return &r->memo[i];
  psgi_report_memo *e = &r->memo[r->memo_next];
  r->memo_next = (r->memo_next + 1) % PSGI_REPORT_MEMO;
  psg_module_release(e->mod);
  psg_free(e->text);
  memset(e, 0, sizeof *e);
  psg_module_retain(m);
  e->mod = m;
  return e;
}

static uint64_t hash_of(psgi_report *r, psg_module *m) {
  psgi_report_memo *e = memo_of(r, m);
  if (!e->has_hash) e->hash = psg_module_structural_hash(m), e->has_hash = true;
  return e->hash;
}

static psg_status stats_of(psgi_report *r, psg_module *m, psgi_module_stats *out) {
  psgi_report_memo *e = memo_of(r, m);
  if (!e->has_stats) e->stats_status = psgi_module_stats_compute(m, &e->stats), e->has_stats = true;
  *out = e->stats;
  return e->stats_status;
}

/* The module's text without its metadata section (constants' values would
 * drown the diff); borrowed from the memo. */
static const char *text_of(psgi_report *r, psg_module *m, size_t *len) {
  psgi_report_memo *e = memo_of(r, m);
  if (!e->text && psg_module_print(m, PSG_PRINT_NO_METADATA, &e->text, &e->text_len)) {
    psg_free(e->text);
    e->text = NULL;
  }
  *len = e->text_len;
  return e->text;
}

static void set_module(psg_module **slot, const psg_module *m) {
  psg_module_retain((psg_module *)m);
  psg_module_release(*slot);
  *slot = (psg_module *)m;
}

static psg_status r_before(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc;
  psgi_report *r = user;
  double t0 = now_us();
  char *name = psgi_strdup(r->ctx, psg_pass_info_name(info));
  if (!name) return psgi_nomem(r->ctx);
  pthread_mutex_lock(&r->lock);
  psgi_report_pass p = {0};
  p.name = name;
  p.parent = r->open;
  p.depth = r->open >= 0 ? r->passes.data[r->open].depth + 1 : 0;
  p.open = true;
  psg_module *m = (psg_module *)mod;
  p.stats_ok = !stats_of(r, m, &p.before);
  psg_module_retain(m);
  p.input = m;
  if (!PSGI_VEC_PUSH(r->ctx, &r->passes, p)) {
    psg_module_release(m);
    psgi_free(r->ctx, name);
    pthread_mutex_unlock(&r->lock);
    return psgi_nomem(r->ctx);
  }
  if (p.parent >= 0) r->passes.data[p.parent].has_children = true;
  else if (!r->first_input) set_module(&r->first_input, m);
  r->open = (int32_t)r->passes.len - 1;
  psgi_report_pass *q = &r->passes.data[r->open];
  double t1 = now_us();
  r->overhead_us += t1 - t0;
  q->overhead_at_start = r->overhead_us;
  q->start_us = t1;
  pthread_mutex_unlock(&r->lock);
  return PSG_OK;
}

/* Closes the innermost open pass; `out` is its output (NULL: it failed). */
static void finish(psgi_report *r, const psg_module *out) {
  double t0 = now_us();
  pthread_mutex_lock(&r->lock);
  if (r->open < 0) {
    pthread_mutex_unlock(&r->lock);
    return;
  }
  psgi_report_pass *p = &r->passes.data[r->open];
  p->dur_us = t0 - p->start_us - (r->overhead_us - p->overhead_at_start);
  p->open = false;
  if (!out) {
    p->failed = true;
    const psg_diag *d = psg_ctx_get_last_error(r->ctx);
    p->error = psgi_strdup(r->ctx, d ? psg_diag_message(d) : "the pass failed");
    p->after = p->before;
  } else {
    psg_module *m = (psg_module *)out;
    p->changed = m != p->input && hash_of(r, m) != hash_of(r, p->input);
    if (stats_of(r, m, &p->after)) p->stats_ok = false;
    if (p->changed && p->parent >= 0) r->passes.data[p->parent].child_changed = true;
    /* A pass whose change is its own (no pass inside it changed anything)
     * gets the diff; a Sequential's or a wrapper's shows in its passes. */
    if (p->changed && !p->child_changed) {
      size_t la = 0, lb = 0;
      const char *ta = text_of(r, p->input, &la);
      char *a = ta ? psgi_strdup(r->ctx, ta) : NULL; /* the next call may evict ta */
      const char *tb = text_of(r, m, &lb);
      p->diff_failed = !a || !tb || psgi_line_diff(r->ctx, a, la, tb, lb, r->max_diff_edits, r->max_diff_lines, &p->diff);
      psgi_free(r->ctx, a);
      if (r->graphs == PSG_REPORT_GRAPHS_EACH) set_module(&p->graph, m);
    }
    if (p->parent < 0) set_module(&r->last_output, m);
  }
  if (!out && p->parent < 0) set_module(&r->last_output, p->input);
  psg_module_release(p->input);
  p->input = NULL;
  r->open = p->parent;
  r->overhead_us += now_us() - t0;
  pthread_mutex_unlock(&r->lock);
}

static psg_status r_after(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc;
  (void)info;
  finish(user, mod);
  return PSG_OK;
}

static psg_status r_failed(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc;
  (void)mod;
  (void)info;
  finish(user, NULL);
  return PSG_OK;
}

static void clear_diags(psgi_report *r) {
  for (size_t i = 0; i < r->diags.len; i++) {
    psgi_free(r->ctx, r->diags.data[i].pass);
    psgi_free(r->ctx, r->diags.data[i].message);
  }
  r->diags.len = 0;
}

/* Every diagnostic of the run (also a translation validator's findings,
 * which are diagnostics naming their pass) is copied for the report. */
static psg_status copy_diags(psgi_report *r) {
  clear_diags(r);
  for (size_t i = 0; i < psg_ctx_diag_count(r->ctx); i++) {
    const psg_diag *d = psg_ctx_get_diag(r->ctx, i);
    const char *pass = psg_diag_pass(d), *msg = psg_diag_rendered(d);
    psgi_report_diag c = {psg_diag_severity(d), pass ? psgi_strdup(r->ctx, pass) : NULL,
                          psgi_strdup(r->ctx, msg ? msg : psg_diag_message(d))};
    if ((pass && !c.pass) || !c.message || !PSGI_VEC_PUSH(r->ctx, &r->diags, c)) {
      psgi_free(r->ctx, c.pass);
      psgi_free(r->ctx, c.message);
      return psgi_nomem(r->ctx);
    }
  }
  return PSG_OK;
}

/* Writes path.tmp, then renames it over path: a reader never sees half a file. */
static psg_status write_file(psgi_report *r, const char *path) {
  char *html = NULL;
  size_t len = 0;
  pthread_mutex_lock(&r->lock);
  psg_status st = psgi_report_html(r, &html, &len);
  pthread_mutex_unlock(&r->lock);
  if (st) return st;
  size_t n = strlen(path) + sizeof ".tmp";
  char *tmp = psgi_alloc(r->ctx, n);
  if (!tmp) {
    psgi_free(r->ctx, html);
    return psgi_nomem(r->ctx);
  }
  snprintf(tmp, n, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(html, 1, len, f) == len;
  int e = errno;
  if (f && fclose(f)) ok = false, e = errno;
  if (ok && rename(tmp, path)) ok = false, e = errno;
  if (!ok) {
    if (f) remove(tmp);
    st = psg_ctx_fail(r->ctx, PSG_ERR_IO, "cannot write the run report %s: %s", path, strerror(e));
  }
  psgi_free(r->ctx, tmp);
  psgi_free(r->ctx, html);
  return st;
}

static psg_status r_exit(void *user, psg_pass_context *pc) {
  (void)pc;
  psgi_report *r = user;
  pthread_mutex_lock(&r->lock);
  psg_status st = copy_diags(r);
  pthread_mutex_unlock(&r->lock);
  if (!st && r->path) st = write_file(r, r->path);
  return st;
}

static void free_report(void *user) {
  psgi_report *r = user;
  for (size_t i = 0; i < r->passes.len; i++) {
    psgi_report_pass *p = &r->passes.data[i];
    psgi_free(r->ctx, p->name);
    psgi_free(r->ctx, p->error);
    psgi_diff_fini(r->ctx, &p->diff);
    psg_module_release(p->input);
    psg_module_release(p->graph);
  }
  PSGI_VEC_FREE(r->ctx, &r->passes);
  clear_diags(r);
  PSGI_VEC_FREE(r->ctx, &r->diags);
  for (int i = 0; i < PSGI_REPORT_MEMO; i++) {
    psg_module_release(r->memo[i].mod);
    psg_free(r->memo[i].text);
  }
  psg_module_release(r->first_input);
  psg_module_release(r->last_output);
  psgi_free(r->ctx, r->path);
  pthread_mutex_destroy(&r->lock);
  psgi_free(r->ctx, r);
}

psg_status psg_report_instrument_create(psg_ctx *ctx, const char *path, int graphs, psg_instrument **out) {
  *out = NULL;
  if (graphs < PSG_REPORT_GRAPHS_NONE || graphs > PSG_REPORT_GRAPHS_EACH)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "report graphs must be none (0), ends (1) or each (2), not %d",
                        graphs);
  psgi_report *r = psgi_calloc(ctx, sizeof *r);
  if (!r) return psgi_nomem(ctx);
  r->ctx = ctx;
  r->graphs = graphs;
  r->open = -1;
  r->max_graph_nodes = 1000;
  r->max_diff_edits = 1000;
  r->max_diff_lines = 1500;
  pthread_mutex_init(&r->lock, NULL);
  if (path && !(r->path = psgi_strdup(ctx, path))) {
    free_report(r);
    return psgi_nomem(ctx);
  }
  psg_instrument_callbacks cb = {NULL, r_exit, NULL, r_before, r_after, r_failed};
  psg_status st = psg_instrument_create(ctx, "PassReportInstrument", &cb, r, free_report, out);
  if (st) free_report(r);
  return st;
}

static psgi_report *report_of(psg_instrument *inst) {
  return inst && inst->cb.run_before_pass == r_before ? inst->user : NULL;
}

char *psg_report_render(psg_instrument *inst) {
  psgi_report *r = report_of(inst);
  if (!r) return NULL;
  char *html = NULL, *out = NULL;
  size_t len = 0;
  pthread_mutex_lock(&r->lock);
  psg_status st = psgi_report_html(r, &html, &len);
  pthread_mutex_unlock(&r->lock);
  if (!st && (out = psgi_result_alloc(len + 1)) != NULL) memcpy(out, html, len + 1);
  psgi_free(r->ctx, html);
  return out;
}

psg_status psg_report_write(psg_instrument *inst, const char *path) {
  psgi_report *r = report_of(inst);
  if (!r || !path) {
    psg_ctx *ctx = inst ? inst->ctx : NULL;
    return ctx ? psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_report_write needs a report instrument and a path")
               : PSG_ERR_INVALID_ARGUMENT;
  }
  return write_file(r, path);
}
