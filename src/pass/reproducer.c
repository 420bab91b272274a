/* Passage — pass reproducers (issue 19, docs/pass-infra.md "Reproducers"),
 * after MLIR's crash reproducers. With the config testing.reproducer = FILE
 * the run function renders, before a pass runs, the file that replays it:
 * the pipeline text, the context (opt level, required and disabled passes,
 * config) as `//` comment lines, then the input module as text. The
 * outermost pass call renders its input; with testing.local_reproducer every
 * non-Sequential call renders its own. When the outermost call fails, the
 * innermost rendered text of the failure is written. A crash by signal
 * (SIGSEGV, SIGABRT, SIGFPE, SIGBUS) writes the same pre-rendered text from
 * a handler that only calls open/write/close, then re-raises the signal
 * under the handler that was there before. psg_reproducer_load reads it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "pass/pass_internal.h"
#include "passage/text.h"

/* Per thread: how deep in pass calls, and the failure the outermost run
 * will write: the text of the innermost failing frame that rendered one,
 * its depth and its pass. A failure caught inside a call that then succeeds
 * (a pass that tries a pipeline and falls back) is dropped. */
static _Thread_local int depth;
static _Thread_local char *pending;
static _Thread_local size_t pending_len;
static _Thread_local int pending_depth;
static _Thread_local char pending_pass[256]; /* a copy: an inner pass may be gone by then */
static _Thread_local bool owns_crash; /* this thread armed the signal handlers */

/* The crash state, process wide: one thread at a time arms the handlers
 * (another thread's run with a reproducer then writes on errors only). */
static const int crash_signals[] = {SIGSEGV, SIGABRT, SIGFPE, SIGBUS};
enum { NUM_CRASH_SIGNALS = sizeof crash_signals / sizeof *crash_signals };
static struct sigaction old_actions[NUM_CRASH_SIGNALS];
static int armed; /* atomic: 1 while a thread owns the handlers */
static char *volatile crash_path;
static const psgi_repro_frame *volatile crash_frame;
static const char *volatile crash_pass;

static const char *const skipped_keys[] = {"testing.reproducer", "testing.local_reproducer"};

/* Handler helpers: write(2) only. */
static void put_n(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}
static void put(int fd, const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  put_n(fd, s, n);
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGABRT: return "SIGABRT";
  case SIGFPE: return "SIGFPE";
  case SIGBUS: return "SIGBUS";
  default: return "a signal";
  }
}

static void on_crash(int sig) {
  const psgi_repro_frame *f = crash_frame;
  const char *path = crash_path, *pass = crash_pass ? crash_pass : "?";
  int fd = f && path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  if (fd >= 0) {
    size_t first = 0; /* "// passage reproducer 1\n" stays the first line */
    while (first < f->len && f->text[first++] != '\n') {}
    put_n(fd, f->text, first);
    put(fd, "// crashed: ");
    put(fd, signal_name(sig));
    put(fd, " in pass '");
    put(fd, pass);
    put(fd, "'\n");
    put_n(fd, f->text + first, f->len - first);
    close(fd);
    put(2, "passage: ");
    put(2, signal_name(sig));
    put(2, " in pass '");
    put(2, pass);
    put(2, "'; reproducer written to ");
    put(2, path);
    put(2, "\n");
  }
  for (int i = 0; i < NUM_CRASH_SIGNALS; i++)
    if (crash_signals[i] == sig) sigaction(sig, &old_actions[i], NULL);
  raise(sig); /* delivered under the old action once this handler returns */
}

static bool arm(const char *path) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&armed, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return false;
  crash_path = strdup(path);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_crash;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NUM_CRASH_SIGNALS; i++) sigaction(crash_signals[i], &sa, &old_actions[i]);
  return true;
}

static void disarm(void) {
  for (int i = 0; i < NUM_CRASH_SIGNALS; i++) sigaction(crash_signals[i], &old_actions[i], NULL);
  char *p = crash_path;
  crash_path = NULL;
  crash_frame = NULL;
  crash_pass = NULL;
  free(p);
  __atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
}

static bool is_skipped_key(const char *key) {
  for (size_t i = 0; i < sizeof skipped_keys / sizeof *skipped_keys; i++)
    if (!strcmp(key, skipped_keys[i])) return true;
  return false;
}

/* The file for running `p` over `mod` under `pc`; false on failure (no
 * reproducer then: the run itself goes on). */
static bool render(psgi_repro_frame *f, psg_pass *p, const psg_module *mod, psg_pass_context *pc) {
  char *pipeline = psg_pipeline_print(p), *text = NULL;
  size_t len = 0;
  if (!pipeline || psg_module_print(mod, PSG_PRINT_DEFAULT, &text, &len) != PSG_OK) {
    psg_free(pipeline);
    return false;
  }
  psgi_buf b;
  psgi_buf_init(&b, p->ctx);
  psgi_buf_printf(&b, "// passage reproducer 1\n// pipeline: %s\n// opt-level: %d\n", pipeline,
                  psg_pass_context_opt_level(pc));
  for (size_t i = 0; i < psg_pass_context_num_required(pc); i++)
    psgi_buf_printf(&b, "// required-pass: %s\n", psg_pass_context_required(pc, i));
  for (size_t i = 0; i < psg_pass_context_num_disabled(pc); i++)
    psgi_buf_printf(&b, "// disabled-pass: %s\n", psg_pass_context_disabled(pc, i));
  psg_attrs *config = psg_pass_context_get_config_dict(pc);
  for (size_t i = 0; i < psg_attrs_count(config); i++) {
    if (is_skipped_key(psg_attrs_key(config, i))) continue;
    psgi_buf_printf(&b, "// config: %s=", psg_attrs_key(config, i));
    psgi_format_value(&b, psg_attrs_get_value(config, i));
    psgi_buf_putc(&b, '\n');
  }
  psgi_buf_append(&b, text, len);
  psg_free(pipeline);
  psg_free(text);
  f->text = psgi_buf_detach_libc(&b, &f->len);
  if (!f->text) psgi_buf_fini(&b);
  return f->text != NULL;
}

void psgi_reproducer_enter(psgi_repro_frame *f, psg_pass *p, const psg_module *mod, psg_pass_context *pc) {
  memset(f, 0, sizeof *f);
  depth++;
  psg_attr *v = psg_pass_context_get_config(pc, "testing.reproducer");
  const char *path = v && psg_attr_kind(v) == PSG_ATTR_STRING ? psg_attr_get_string(v) : NULL;
  if (!path || !*path) return;
  f->path = path;
  bool local = psg_pass_context_config_bool(pc, "testing.local_reproducer");
  if (depth == 1) owns_crash = f->crash_owner = arm(path);
  /* The outermost call always renders, so a failure outside any leaf
   * (resolving a required pass) still has its file. */
  if ((depth == 1 || (local && p->kind != PSG_PASS_SEQUENTIAL)) && !render(f, p, mod, pc))
    psgi_diag_add(p->ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, p->info->name,
                  "cannot render the reproducer of pass '%s'", p->info->name);
  if (!owns_crash) return;
  if (f->text) {
    f->prev = crash_frame;
    crash_frame = f;
  }
  f->prev_pass = crash_pass;
  crash_pass = p->info->name;
}

static void write_file(const char *path, const char *text, size_t len, const char *pass, psg_ctx *ctx) {
  FILE *out = fopen(path, "wb");
  const char *nl = memchr(text, '\n', len);
  size_t first = nl ? (size_t)(nl - text) + 1 : 0; /* "// passage reproducer 1\n" stays first */
  bool ok = out && fwrite(text, 1, first, out) == first && fprintf(out, "// failed-pass: %s\n", pass) > 0 &&
            fwrite(text + first, 1, len - first, out) == len - first;
  if (out && fclose(out) != 0) ok = false;
  if (ok) psgi_diag_note(ctx, "reproducer written to %s", path);
  else
    psgi_diag_add(ctx, PSG_SEVERITY_WARNING, PSG_OK, NULL, 0, 0, NULL, 0, NULL, "cannot write reproducer %s: %s",
                  path, strerror(errno));
}

static void drop_pending(void) {
  free(pending);
  pending = NULL;
  pending_len = 0;
  pending_depth = 0;
  pending_pass[0] = 0;
}

void psgi_reproducer_leave(psgi_repro_frame *f, psg_pass *p, psg_status st) {
  if (f->path && owns_crash) {
    if (crash_frame == f) crash_frame = f->prev;
    crash_pass = f->prev_pass;
  }
  if (f->path && !st && pending_pass[0] && pending_depth > depth) drop_pending(); /* caught inside this call */
  if (f->path && st) {
    if (!pending_pass[0]) { /* inner calls leave first */
      snprintf(pending_pass, sizeof pending_pass, "%s", p->info->name);
      pending_depth = depth;
    }
    if (!pending && f->text) { /* the innermost rendered frame that failed */
      pending = f->text, pending_len = f->len;
      f->text = NULL;
    }
    if (depth == 1 && pending) write_file(f->path, pending, pending_len, pending_pass, p->ctx);
  }
  if (depth == 1) drop_pending();
  if (f->crash_owner) {
    disarm();
    owns_crash = false;
  }
  free(f->text);
  f->text = NULL;
  depth--;
}
