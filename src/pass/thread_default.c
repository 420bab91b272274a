/* Passage — each thread's default PassContext (tvm-behavior §2.4: what
 * Current() gives when nothing is entered). It lives in real thread-local
 * storage with a destructor: it dies with its thread, so a new thread (which
 * may get a dead thread's pthread_t) starts from TVM's defaults, never from a
 * dead thread's instruments and config. The library context and the thread
 * may die in either order; whichever goes first frees the default context. */
#include <stdlib.h>
#include "pass/pass_internal.h"

/* One thread's default context for one library context. The link itself is
 * the thread's (plain malloc: it may outlive the library context and its
 * allocator); the PassContext is allocated by the library context. */
struct psgi_thread_default {
  psg_ctx *ctx; /* atomic: NULL once detached (the context died or the thread exits) */
  psgi_pass_state *st;
  psg_pass_context *pc;
  psgi_thread_default *next_in_thread;            /* the owning thread's list */
  psgi_thread_default *prev_in_ctx, *next_in_ctx; /* st->thread_defaults, under links_lock */
};

/* Guards every context's list and the detaching of links. Process-wide
 * because a dying thread must learn whether a context is still alive before
 * touching it, and only something outliving both can tell. */
static pthread_mutex_t links_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key; /* value: the thread's first link */
static bool key_ok;

static void unlink_from_ctx(psgi_thread_default *l) {
  if (l->prev_in_ctx)
    l->prev_in_ctx->next_in_ctx = l->next_in_ctx;
  else
    l->st->thread_defaults = l->next_in_ctx;
  if (l->next_in_ctx) l->next_in_ctx->prev_in_ctx = l->prev_in_ctx;
  l->prev_in_ctx = l->next_in_ctx = NULL;
}

static bool holds_objects(const psg_pass_context *pc) { return pc->instruments.len || pc->config; }

/* The key's destructor: runs when a thread that made default contexts exits. */
static void thread_exit(void *head) {
  for (psgi_thread_default *l = head, *next; l; l = next) {
    next = l->next_in_thread;
    pthread_mutex_lock(&links_lock);
    psg_ctx *ctx = __atomic_load_n(&l->ctx, __ATOMIC_RELAXED);
    psg_pass_context *later = NULL;
    if (ctx) {
      /* The context is alive: its death detaches links under this lock
       * first. A default context holding instruments or config keeps the
       * library context alive (those objects hold references), so taking one
       * more is safe; it is freed after unlocking because releasing the last
       * object may destroy the context, which takes this lock. One holding
       * nothing is freed now, as the context may be dying on another thread. */
      unlink_from_ctx(l);
      __atomic_store_n(&l->ctx, NULL, __ATOMIC_RELEASE);
      if (holds_objects(l->pc)) {
        psg_ctx_retain(ctx);
        later = l->pc;
      } else {
        psgi_pass_context_free(l->pc);
      }
    }
    pthread_mutex_unlock(&links_lock);
    if (later) {
      psgi_pass_context_free(later);
      psg_ctx_release(ctx);
    }
    free(l);
  }
}

static void make_key(void) { key_ok = pthread_key_create(&key, thread_exit) == 0; }

/* Frees this thread's links to contexts that died (nothing else holds them). */
static psgi_thread_default *prune(psgi_thread_default *head) {
  psgi_thread_default **pp = &head;
  while (*pp) {
    psgi_thread_default *l = *pp;
    if (__atomic_load_n(&l->ctx, __ATOMIC_ACQUIRE)) {
      pp = &l->next_in_thread;
    } else {
      *pp = l->next_in_thread;
      free(l);
    }
  }
  return head;
}

static psg_pass_context *make_default(psg_ctx *ctx, psgi_thread_default *head) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  pthread_mutex_unlock(&ctx->lock);
  psgi_thread_default *l = st ? calloc(1, sizeof *l) : NULL;
  psg_pass_context *pc = l ? psgi_calloc(ctx, sizeof *pc) : NULL;
  if (!pc || psgi_pass_context_init(ctx, pc) != PSG_OK) {
    psgi_free(ctx, pc);
    free(l);
    return NULL;
  }
  pc->owned_by_ctx = true;
  head = prune(head);
  l->st = st;
  l->pc = pc;
  l->next_in_thread = head;
  if (pthread_setspecific(key, l) != 0) {
    pthread_setspecific(key, head);
    psgi_pass_context_free(pc);
    free(l);
    return NULL;
  }
  pthread_mutex_lock(&links_lock);
  __atomic_store_n(&l->ctx, ctx, __ATOMIC_RELEASE);
  l->next_in_ctx = st->thread_defaults;
  if (l->next_in_ctx) l->next_in_ctx->prev_in_ctx = l;
  st->thread_defaults = l;
  pthread_mutex_unlock(&links_lock);
  return pc;
}

psg_pass_context *psgi_thread_default_context(psg_ctx *ctx) {
  pthread_once(&key_once, make_key);
  if (!key_ok) return NULL;
  psgi_thread_default *head = pthread_getspecific(key);
  /* A link of a dead context reads NULL, so a new context at the same
   * address never finds it. */
  for (psgi_thread_default *l = head; l; l = l->next_in_thread)
    if (__atomic_load_n(&l->ctx, __ATOMIC_ACQUIRE) == ctx) return l->pc;
  return make_default(ctx, head);
}

void psgi_thread_defaults_drop(psgi_pass_state *st) {
  pthread_mutex_lock(&links_lock);
  for (psgi_thread_default *l = st->thread_defaults, *next; l; l = next) {
    next = l->next_in_ctx;
    /* Nothing in it holds objects (they would keep the context alive). */
    psgi_pass_context_free(l->pc);
    l->prev_in_ctx = l->next_in_ctx = NULL;
    /* From here on only the owning thread touches the link. */
    __atomic_store_n(&l->ctx, NULL, __ATOMIC_RELEASE);
  }
  st->thread_defaults = NULL;
  pthread_mutex_unlock(&links_lock);
}
