/* Passage — pass instruments and their dispatch, in the exact order and with
 * the error paths of tvm-behavior §3.1–§3.6. The instrument list of a context
 * is copied (retained) under its lock before callbacks run, so a callback may
 * override the instruments without invalidating the loop. */
#include "pass/pass_internal.h"

psg_status psg_instrument_create(psg_ctx *ctx, const char *name, const psg_instrument_callbacks *cb,
                                 void *user, void (*free_user)(void *), psg_instrument **out) {
  *out = NULL;
  if (!name || !cb) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "an instrument needs a name and callbacks");
  psg_instrument *in = psgi_calloc(ctx, sizeof *in);
  char *n = psgi_strdup(ctx, name);
  if (!in || !n) {
    psgi_free(ctx, in);
    psgi_free(ctx, n);
    return psgi_nomem(ctx);
  }
  in->refcount = 1;
  in->ctx = ctx;
  in->name = n;
  in->cb = *cb;
  in->user = user;
  in->free_user = free_user;
  psgi_ctx_object_born(ctx);
  *out = in;
  return PSG_OK;
}

void psg_instrument_retain(psg_instrument *in) {
  if (in) psgi_ref_inc(&in->refcount);
}

void psg_instrument_release(psg_instrument *in) {
  if (!in || !psgi_ref_dec(&in->refcount)) return;
  psg_ctx *ctx = in->ctx;
  if (in->free_user) {
    bool was = psgi_exclusive_begin(false);
    in->free_user(in->user);
    psgi_exclusive_end(was);
  }
  psgi_free(ctx, in->name);
  psgi_free(ctx, in);
  psgi_ctx_object_died(ctx);
}

const char *psg_instrument_name(const psg_instrument *in) { return in->name; }
void *psg_instrument_user(const psg_instrument *in) { return in->user; }

/* A retained snapshot of the context's instruments. */
typedef struct snapshot {
  psg_instrument *small[8];
  psg_instrument **items;
  size_t n;
} snapshot;

static bool take_snapshot(psg_pass_context *pc, snapshot *s) {
  pthread_mutex_lock(&pc->lock);
  s->n = pc->instruments.len;
  s->items = s->small;
  bool ok = true;
  if (s->n > 8 && !(s->items = psgi_alloc(pc->ctx, s->n * sizeof *s->items))) {
    s->n = 0;
    ok = false;
  }
  for (size_t i = 0; i < s->n; i++) {
    s->items[i] = pc->instruments.data[i];
    psg_instrument_retain(s->items[i]);
  }
  pthread_mutex_unlock(&pc->lock);
  return ok;
}

bool psgi_instruments_watch_failures(psg_pass_context *pc) {
  pthread_mutex_lock(&pc->lock);
  bool any = false;
  for (size_t i = 0; i < pc->instruments.len && !any; i++) any = pc->instruments.data[i]->cb.run_after_pass_failed != NULL;
  pthread_mutex_unlock(&pc->lock);
  return any;
}

static void drop_snapshot(psg_pass_context *pc, snapshot *s) {
  for (size_t i = 0; i < s->n; i++) psg_instrument_release(s->items[i]);
  if (s->items != s->small) psgi_free(pc->ctx, s->items);
}

/* Empties the context's instrument list (TVM clears it after a failed enter
 * or exit). */
static void clear_instruments(psg_pass_context *pc) {
  pthread_mutex_lock(&pc->lock);
  for (size_t i = 0; i < pc->instruments.len; i++) psg_instrument_release(pc->instruments.data[i]);
  pc->instruments.len = 0;
  pthread_mutex_unlock(&pc->lock);
}

/* Makes sure a failing callback left an error diagnostic behind. */
static psg_status callback_failed(psg_pass_context *pc, psg_status st, const psg_instrument *in,
                                  const char *what, size_t errors_before) {
  if (psg_ctx_diag_count(pc->ctx) == errors_before)
    psg_ctx_fail(pc->ctx, st, "instrument '%s' failed in %s: %s", in->name, what, psg_status_str(st));
  else
    psgi_diag_note(pc->ctx, "in %s of instrument '%s'", what, in->name);
  return st;
}

/* Our balance rule: every instrument whose run_before_pass succeeded hears
 * exactly one of run_after_pass or run_after_pass_failed, whatever fails
 * later, so timing and hash stacks stay balanced (TVM leaves them open). */
static void failed_range(psg_pass_context *pc, const snapshot *s, size_t from, size_t to,
                         const psg_module *mod, const psg_pass_info *info) {
  for (size_t i = from; i < to; i++) {
    psg_instrument *in = s->items[i];
    size_t before = psg_ctx_diag_count(pc->ctx);
    psg_status st;
    /* Their own failures become notes on the error already being returned. */
    if (in->cb.run_after_pass_failed && (st = in->cb.run_after_pass_failed(in->user, pc, mod, info)) != PSG_OK)
      callback_failed(pc, st, in, "run_after_pass_failed", before);
  }
}

static psg_status call_instruments_before(psg_pass_context *pc, const psg_module *mod,
                                   const psg_pass_info *info, bool *run) {
  *run = true;
  snapshot s;
  if (!take_snapshot(pc, &s)) return psgi_nomem(pc->ctx);
  psg_status st = PSG_OK;
  /* Passes named in required_pass bypass should_run (§3.2). */
  if (!psgi_str_vec_has(&pc->required_pass, info->name)) {
    /* Every should_run is called, even after one said no (no short-circuit);
     * the first failure stops the loop. */
    for (size_t i = 0; i < s.n; i++) {
      psg_instrument *in = s.items[i];
      if (!in->cb.should_run) continue;
      bool r = true;
      size_t before = psg_ctx_diag_count(pc->ctx);
      if ((st = in->cb.should_run(in->user, pc, mod, info, &r)) != PSG_OK) {
        callback_failed(pc, st, in, "should_run", before);
        goto done;
      }
      *run = *run && r;
    }
  }
  if (*run) {
    for (size_t i = 0; i < s.n; i++) {
      psg_instrument *in = s.items[i];
      size_t before = psg_ctx_diag_count(pc->ctx);
      if (in->cb.run_before_pass && (st = in->cb.run_before_pass(in->user, pc, mod, info)) != PSG_OK) {
        callback_failed(pc, st, in, "run_before_pass", before);
        failed_range(pc, &s, 0, i, mod, info);
        goto done;
      }
    }
  }
done:
  drop_snapshot(pc, &s);
  return st;
}

static psg_status call_instruments_after(psg_pass_context *pc, const psg_module *mod,
                                  const psg_pass_info *info) {
  snapshot s;
  if (!take_snapshot(pc, &s)) return psgi_nomem(pc->ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < s.n; i++) {
    psg_instrument *in = s.items[i];
    size_t before = psg_ctx_diag_count(pc->ctx);
    if (in->cb.run_after_pass && (st = in->cb.run_after_pass(in->user, pc, mod, info)) != PSG_OK) {
      callback_failed(pc, st, in, "run_after_pass", before);
      failed_range(pc, &s, i + 1, s.n, mod, info);
      break;
    }
  }
  drop_snapshot(pc, &s);
  return st;
}

static void call_instruments_after_failed(psg_pass_context *pc, const psg_module *mod,
                                   const psg_pass_info *info) {
  snapshot s;
  if (!take_snapshot(pc, &s)) return;
  failed_range(pc, &s, 0, s.n, mod, info);
  drop_snapshot(pc, &s);
}

static psg_status call_instruments_enter(psg_pass_context *pc) {
  snapshot s;
  if (!take_snapshot(pc, &s)) return psgi_nomem(pc->ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < s.n; i++) {
    psg_instrument *in = s.items[i];
    size_t before = psg_ctx_diag_count(pc->ctx);
    if (in->cb.enter_pass_ctx && (st = in->cb.enter_pass_ctx(in->user, pc)) != PSG_OK) {
      callback_failed(pc, st, in, "enter_pass_ctx", before);
      /* §3.3: exit the ones that entered, in reverse, then clear. */
      for (size_t j = i; j-- > 0;) {
        psg_instrument *e = s.items[j];
        if (e->cb.exit_pass_ctx) e->cb.exit_pass_ctx(e->user, pc);
      }
      clear_instruments(pc);
      break;
    }
  }
  drop_snapshot(pc, &s);
  return st;
}

static psg_status call_instruments_exit(psg_pass_context *pc) {
  snapshot s;
  if (!take_snapshot(pc, &s)) return psgi_nomem(pc->ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < s.n; i++) {
    psg_instrument *in = s.items[i];
    size_t before = psg_ctx_diag_count(pc->ctx);
    if (in->cb.exit_pass_ctx && (st = in->cb.exit_pass_ctx(in->user, pc)) != PSG_OK) {
      /* §3.4: the remaining exits are not called; the list is cleared. */
      callback_failed(pc, st, in, "exit_pass_ctx", before);
      clear_instruments(pc);
      break;
    }
  }
  drop_snapshot(pc, &s);
  return st;
}

/* Instruments are users' code (support.h: exclusive mode off around them). */
psg_status psgi_instruments_before(psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info, bool *run) {
  bool was = psgi_exclusive_begin(false);
  psg_status st = call_instruments_before(pc, mod, info, run);
  psgi_exclusive_end(was);
  return st;
}

psg_status psgi_instruments_after(psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  bool was = psgi_exclusive_begin(false);
  psg_status st = call_instruments_after(pc, mod, info);
  psgi_exclusive_end(was);
  return st;
}

void psgi_instruments_after_failed(psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  bool was = psgi_exclusive_begin(false);
  call_instruments_after_failed(pc, mod, info);
  psgi_exclusive_end(was);
}

psg_status psgi_instruments_enter(psg_pass_context *pc) {
  bool was = psgi_exclusive_begin(false);
  psg_status st = call_instruments_enter(pc);
  psgi_exclusive_end(was);
  return st;
}

psg_status psgi_instruments_exit(psg_pass_context *pc) {
  bool was = psgi_exclusive_begin(false);
  psg_status st = call_instruments_exit(pc);
  psgi_exclusive_end(was);
  return st;
}
