/* Lifetimes across threads (issue 13, item 8): a thread's default PassContext
 * dies with the thread (a later thread, likely given the same pthread_t, starts
 * fresh) or with its library context, whichever goes first; config listings
 * stay valid while another thread registers options; override_instruments
 * with a bad list leaves the old instruments installed and never exits them
 * twice. Run under ASan/LSan and ThreadSanitizer (make test-tsan). The
 * threads record what they saw and the main thread checks it (check.h's
 * counters are not atomic). */
#include <pthread.h>
#include "pass_check.h"

/* An instrument that counts its enters, exits and its destruction. */
typedef struct counts {
  int enters, exits, freed;
} counts;

static psg_status count_enter(void *user, psg_pass_context *pc) {
  (void)pc;
  ((counts *)user)->enters++;
  return PSG_OK;
}
static psg_status count_exit(void *user, psg_pass_context *pc) {
  (void)pc;
  ((counts *)user)->exits++;
  return PSG_OK;
}
static void count_free(void *user) { ((counts *)user)->freed++; }

static psg_instrument *counting_instrument(psg_ctx *ctx, counts *c) {
  psg_instrument_callbacks cb = {0};
  cb.enter_pass_ctx = count_enter;
  cb.exit_pass_ctx = count_exit;
  psg_instrument *in = NULL;
  return psg_instrument_create(ctx, "Counter", &cb, c, count_free, &in) == PSG_OK ? in : NULL;
}

/* Thread A: dirties its default context (instrument, config, opt level). */
typedef struct dirty_job {
  psg_ctx *ctx;
  counts *c;
  pthread_t self;
  int bad;
} dirty_job;

static void *dirty_default(void *arg) {
  dirty_job *j = arg;
  j->self = pthread_self();
  psg_pass_context *pc = psg_pass_context_current(j->ctx);
  psg_instrument *in = counting_instrument(j->ctx, j->c);
  psg_attr *t = NULL;
  if (!pc || !in || psg_pass_context_override_instruments(pc, &in, 1) || psg_attr_bool(j->ctx, true, &t) ||
      psg_pass_context_set_config(pc, "testing.immutable_module", t) || psg_pass_context_set_opt_level(pc, 0))
    j->bad++;
  psg_instrument_release(in);
  psg_attr_release(t);
  if (psg_pass_context_current(j->ctx) != pc) j->bad++; /* one stable default per thread */
  return NULL;
}

/* Thread B: its default context must be TVM's fresh one. */
typedef struct look_job {
  psg_ctx *ctx;
  pthread_t self;
  size_t instruments;
  int opt_level;
  bool has_config, immutable;
} look_job;

static void *look_default(void *arg) {
  look_job *j = arg;
  j->self = pthread_self();
  psg_pass_context *pc = psg_pass_context_current(j->ctx);
  if (!pc) return NULL;
  j->instruments = psg_pass_context_num_instruments(pc);
  j->opt_level = psg_pass_context_opt_level(pc);
  j->has_config = psg_pass_context_get_config_dict(pc) != NULL;
  j->immutable = psg_pass_context_config_bool(pc, "testing.immutable_module");
  return NULL;
}

static void test_default_context_dies_with_its_thread(void) {
  psg_ctx *ctx = check_ctx();
  int reused = 0;
  for (int round = 0; round < 4; round++) {
    counts c = {0};
    dirty_job a = {ctx, &c, 0, 0};
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, dirty_default, &a), 0);
    pthread_join(t, NULL);
    CHECK_EQ_INT(a.bad, 0);
    /* Freed as the thread exited: the instrument was released (it is not
     * exited: a default context is never entered). */
    CHECK_EQ_INT(c.enters, 1);
    CHECK_EQ_INT(c.freed, 1);
    look_job b = {ctx, 0, 9, -1, true, true};
    CHECK_EQ_INT(pthread_create(&t, NULL, look_default, &b), 0);
    pthread_join(t, NULL);
    reused += pthread_equal(a.self, b.self) != 0;
    CHECK_EQ_INT((int)b.instruments, 0);
    CHECK_EQ_INT(b.opt_level, 2);
    CHECK(!b.has_config);
    CHECK(!b.immutable);
  }
  /* glibc hands an exited thread's descriptor to the next thread, so the
   * old pthread_t-keyed table gave B the dead A's context. */
  fprintf(stderr, "  (pthread_t reused in %d of 4 rounds)\n", reused);
  CHECK_CTX_CLEAN(ctx);
}

/* The library context dies while a thread that made a default context for
 * it is still alive; the thread then uses a new context (maybe at the same
 * address) and exits. Nothing dangles, nothing leaks. */
typedef struct outlive_job {
  psg_ctx *first;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int stage;
  bool made, fresh, third_made;
} outlive_job;

static void wait_stage(outlive_job *j, int stage) {
  pthread_mutex_lock(&j->mu);
  while (j->stage < stage) pthread_cond_wait(&j->cv, &j->mu);
  pthread_mutex_unlock(&j->mu);
}

static void set_stage(outlive_job *j, int stage) {
  pthread_mutex_lock(&j->mu);
  j->stage = stage;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
}

static void *outlive(void *arg) {
  outlive_job *j = arg;
  psg_pass_context *pc = psg_pass_context_current(j->first);
  j->made = pc && psg_pass_context_set_opt_level(pc, 3) == PSG_OK;
  set_stage(j, 1);
  wait_stage(j, 2); /* the main thread released the first context */
  psg_ctx *second = check_ctx();
  pc = psg_pass_context_current(second);
  j->fresh = pc && psg_pass_context_opt_level(pc) == 2;
  psg_ctx_release(second); /* its default context goes with it, before the thread exits */
  psg_ctx *third = check_ctx();
  j->third_made = psg_pass_context_current(third) != NULL; /* freed when the thread exits */
  psg_ctx_release(third);
  return NULL;
}

static void test_context_dies_before_the_thread(void) {
  outlive_job j = {check_ctx(), PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, false, false};
  pthread_t t;
  CHECK_EQ_INT(pthread_create(&t, NULL, outlive, &j), 0);
  wait_stage(&j, 1);
  CHECK(j.made);
  CHECK_EQ_INT(psg_ctx_live_objects(j.first), 0); /* a default context is not a live object */
  psg_ctx_release(j.first);
  set_stage(&j, 2);
  pthread_join(t, NULL);
  CHECK(j.made);
  CHECK(j.fresh);
  CHECK(j.third_made);
}

/* One thread registers options while others list them: every string handed
 * out stays readable (the listing must not point into a moving vector). */
typedef struct list_job {
  psg_ctx *ctx;
  int bad;
} list_job;

static void *register_many(void *arg) {
  list_job *j = arg;
  char key[32];
  for (int i = 0; i < 200; i++) {
    snprintf(key, sizeof key, "test.option_%d", i);
    if (psg_register_config_option(j->ctx, key, PSG_CONFIG_INT, NULL, "a test option")) j->bad++;
  }
  return NULL;
}

static void *list_many(void *arg) {
  list_job *j = arg;
  for (int round = 0; round < 50; round++) {
    size_t n = psg_config_option_count(j->ctx);
    for (size_t i = 0; i < n; i++) {
      const char *key = psg_config_option_key(j->ctx, i), *help = psg_config_option_help(j->ctx, i);
      if (!key || !help || !*key || psg_config_option_type(j->ctx, i) == 0) j->bad++;
    }
  }
  return NULL;
}

static void test_listing_while_registering(void) {
  psg_ctx *ctx = check_ctx();
  size_t builtins = psg_config_option_count(ctx);
  list_job jobs[3] = {{ctx, 0}, {ctx, 0}, {ctx, 0}};
  pthread_t t[3];
  CHECK_EQ_INT(pthread_create(&t[0], NULL, register_many, &jobs[0]), 0);
  CHECK_EQ_INT(pthread_create(&t[1], NULL, list_many, &jobs[1]), 0);
  CHECK_EQ_INT(pthread_create(&t[2], NULL, list_many, &jobs[2]), 0);
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    CHECK_EQ_INT(jobs[i].bad, 0);
  }
  CHECK_EQ_INT((int)psg_config_option_count(ctx), (int)builtins + 200);
  CHECK_STR(psg_config_option_key(ctx, builtins + 199), "test.option_199");
  CHECK(psg_config_option_key(ctx, builtins + 200) == NULL);
  CHECK_CTX_CLEAN(ctx);
}

/* override_instruments with a NULL in the new list: an error, and the old
 * instruments stay installed and entered (exited once, later, not twice). */
static void test_override_with_a_bad_list(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  counts old = {0}, fresh = {0};
  psg_instrument *a = counting_instrument(ctx, &old), *b = counting_instrument(ctx, &fresh);
  CHECK_OK(psg_pass_context_add_instrument(pc, a));
  CHECK_OK(psg_pass_context_enter(pc));
  CHECK_EQ_INT(old.enters, 1);
  psg_instrument *bad[2] = {b, NULL};
  CHECK_EQ_INT(psg_pass_context_override_instruments(pc, bad, 2), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(old.exits, 0);
  CHECK_EQ_INT((int)psg_pass_context_num_instruments(pc), 1);
  CHECK(psg_pass_context_get_instrument(pc, 0) == a);
  CHECK_EQ_INT(fresh.enters, 0);
  /* A good list: the old one exits once, the new one enters. */
  CHECK_OK(psg_pass_context_override_instruments(pc, &b, 1));
  CHECK_EQ_INT(old.exits, 1);
  CHECK_EQ_INT(fresh.enters, 1);
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK_EQ_INT(old.exits, 1);
  CHECK_EQ_INT(fresh.exits, 1);
  psg_instrument_release(a);
  psg_instrument_release(b);
  psg_pass_context_release(pc);
  CHECK_EQ_INT(old.freed, 1);
  CHECK_EQ_INT(fresh.freed, 1);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_default_context_dies_with_its_thread);
  RUN_TEST(test_context_dies_before_the_thread);
  RUN_TEST(test_listing_while_registering);
  RUN_TEST(test_override_with_a_bad_list);
  return check_finish();
}
