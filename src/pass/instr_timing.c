/* Passage — pass timing (tvm-behavior §3.7): a tree of pass executions, a
 * pass run inside another being its child. Unlike TVM the profile belongs to
 * the instrument (not the thread) and survives the context's exit; reset
 * clears it. Renders TVM's nested format, a flat top-N view and JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "pass/pass_internal.h"

typedef struct tnode {
  char *name;
  double start_us, dur_us;
  int32_t parent;
  bool open;
} tnode;

typedef struct timing {
  psg_ctx *ctx;
  PSGI_VEC(tnode) nodes; /* pre-order: a node's children follow it */
  int32_t open;          /* innermost open node or -1 */
  pthread_mutex_t lock;  /* one profile per instrument, shared by threads */
} timing;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static psg_status t_before(void *user, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)pc;
  (void)m;
  timing *t = user;
  char *name = psgi_strdup(t->ctx, info->name);
  if (!name) return psgi_nomem(t->ctx);
  pthread_mutex_lock(&t->lock);
  tnode n = {name, now_us(), 0, t->open, true};
  bool ok = PSGI_VEC_PUSH(t->ctx, &t->nodes, n);
  if (ok) t->open = (int32_t)t->nodes.len - 1;
  pthread_mutex_unlock(&t->lock);
  if (!ok) {
    psgi_free(t->ctx, name);
    return psgi_nomem(t->ctx);
  }
  return PSG_OK;
}

static psg_status t_after(void *user, psg_pass_context *pc, const psg_module *m, const psg_pass_info *info) {
  (void)pc;
  (void)m;
  (void)info;
  timing *t = user;
  pthread_mutex_lock(&t->lock);
  if (t->open >= 0) {
    tnode *n = &t->nodes.data[t->open];
    n->dur_us = now_us() - n->start_us;
    n->open = false;
    t->open = n->parent;
  }
  pthread_mutex_unlock(&t->lock);
  return PSG_OK;
}

static void reset_locked(timing *t) {
  for (size_t i = 0; i < t->nodes.len; i++) psgi_free(t->ctx, t->nodes.data[i].name);
  t->nodes.len = 0;
  t->open = -1;
}

static void free_timing(void *user) {
  timing *t = user;
  reset_locked(t);
  PSGI_VEC_FREE(t->ctx, &t->nodes);
  pthread_mutex_destroy(&t->lock);
  psgi_free(t->ctx, t);
}

psg_status psg_timing_instrument_create(psg_ctx *ctx, psg_instrument **out) {
  *out = NULL;
  timing *t = psgi_calloc(ctx, sizeof *t);
  if (!t) return psgi_nomem(ctx);
  t->ctx = ctx;
  t->open = -1;
  pthread_mutex_init(&t->lock, NULL);
  psg_instrument_callbacks cb = {NULL, NULL, NULL, t_before, t_after, t_after};
  psg_status st = psg_instrument_create(ctx, "PassTimingInstrument", &cb, t, free_timing, out);
  if (st) free_timing(t);
  return st;
}

void psg_timing_reset(psg_instrument *inst) {
  timing *t = inst->user;
  pthread_mutex_lock(&t->lock);
  reset_locked(t);
  pthread_mutex_unlock(&t->lock);
}

/* Children durations per node, and depth; nodes are in pre-order. */
static char *render(const psg_instrument *inst, int mode, size_t top) {
  timing *t = inst->user;
  psgi_buf b;
  psgi_buf_init(&b, t->ctx);
  pthread_mutex_lock(&t->lock);
  size_t n = t->nodes.len;
  char *result = NULL;
  double *child_sum = psgi_calloc(t->ctx, (n ? n : 1) * sizeof *child_sum);
  int *depth = psgi_calloc(t->ctx, (n ? n : 1) * sizeof *depth);
  if (t->open >= 0) {
    psg_ctx_fail(t->ctx, PSG_ERR_INVALID_ARGUMENT, "cannot print pass profile while still in a pass!");
    goto done;
  }
  if (!child_sum || !depth) goto done;
  double total = 0;
  for (size_t i = 0; i < n; i++) {
    tnode *nd = &t->nodes.data[i];
    if (nd->parent >= 0) {
      child_sum[nd->parent] += nd->dur_us;
      depth[i] = depth[nd->parent] + 1;
    } else {
      total += nd->dur_us;
    }
  }
  if (mode == 0) {
    for (size_t i = 0; i < n; i++) {
      tnode *nd = &t->nodes.data[i];
      double parent = nd->parent >= 0 ? t->nodes.data[nd->parent].dur_us : total;
      for (int d = 0; d < depth[i]; d++) psgi_buf_putc(&b, '\t');
      psgi_buf_printf(&b, "%s: %.0fus [%.0fus] (%.2f%%; %.2f%%)\n", nd->name, nd->dur_us, nd->dur_us - child_sum[i],
                      total > 0 ? nd->dur_us / total * 100 : 0.0, parent > 0 ? nd->dur_us / parent * 100 : 0.0);
    }
  } else if (mode == 1) {
    /* Aggregate by name; sort by total descending. */
    typedef struct agg { const char *name; double total, self; long count; } agg;
    agg *a = psgi_calloc(t->ctx, (n ? n : 1) * sizeof *a);
    size_t na = 0;
    for (size_t i = 0; a && i < n; i++) {
      tnode *nd = &t->nodes.data[i];
      size_t k = 0;
      while (k < na && strcmp(a[k].name, nd->name)) k++;
      if (k == na) a[na++].name = nd->name;
      a[k].total += nd->dur_us;
      a[k].self += nd->dur_us - child_sum[i];
      a[k].count++;
    }
    for (size_t i = 1; a && i < na; i++)
      for (size_t j = i; j > 0 && a[j].total > a[j - 1].total; j--) {
        agg tmp = a[j];
        a[j] = a[j - 1];
        a[j - 1] = tmp;
      }
    psgi_buf_printf(&b, "%12s %12s %7s  %s\n", "total_us", "self_us", "count", "pass");
    for (size_t i = 0; a && i < na && (!top || i < top); i++)
      psgi_buf_printf(&b, "%12.0f %12.0f %7ld  %s\n", a[i].total, a[i].self, a[i].count, a[i].name);
    psgi_free(t->ctx, a);
  } else {
    /* JSON: nested arrays; close brackets as depth decreases. */
    psgi_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
      tnode *nd = &t->nodes.data[i];
      if (i && depth[i] <= depth[i - 1]) {
        for (int d = depth[i - 1]; d > depth[i]; d--) psgi_buf_puts(&b, "]}");
        psgi_buf_puts(&b, "]},");
      }
      psgi_buf_puts(&b, "{\"name\":\"");
      for (const char *c = nd->name; *c; c++) {
        if (*c == '"' || *c == '\\') psgi_buf_putc(&b, '\\');
        psgi_buf_putc(&b, *c);
      }
      psgi_buf_printf(&b, "\",\"us\":%.1f,\"self_us\":%.1f,\"children\":[", nd->dur_us, nd->dur_us - child_sum[i]);
    }
    if (n) {
      for (int d = depth[n - 1]; d > 0; d--) psgi_buf_puts(&b, "]}");
      psgi_buf_puts(&b, "]}");
    }
    psgi_buf_puts(&b, "]\n");
  }
  result = psgi_buf_detach_libc(&b, NULL);
done:
  pthread_mutex_unlock(&t->lock);
  psgi_buf_fini(&b);
  psgi_free(t->ctx, child_sum);
  psgi_free(t->ctx, depth);
  return result;
}

char *psg_timing_render(const psg_instrument *timing_inst) { return render(timing_inst, 0, 0); }
char *psg_timing_render_flat(const psg_instrument *timing_inst, size_t n) { return render(timing_inst, 1, n); }
char *psg_timing_render_json(const psg_instrument *timing_inst) { return render(timing_inst, 2, 0); }

void psgi_timing_annotate_open(psg_pass_context *pc, const char *note) {
  pthread_mutex_lock(&pc->lock);
  for (size_t i = 0; i < pc->instruments.len; i++) {
    psg_instrument *inst = pc->instruments.data[i];
    if (inst->cb.run_before_pass != t_before) continue;
    timing *t = inst->user;
    pthread_mutex_lock(&t->lock);
    if (t->open >= 0) {
      tnode *n = &t->nodes.data[t->open];
      size_t len = strlen(n->name) + strlen(note) + 4;
      char *named = psgi_alloc(t->ctx, len);
      if (named) { /* out of memory: the plain name stays */
        snprintf(named, len, "%s (%s)", n->name, note);
        psgi_free(t->ctx, n->name);
        n->name = named;
      }
    }
    pthread_mutex_unlock(&t->lock);
  }
  pthread_mutex_unlock(&pc->lock);
}
