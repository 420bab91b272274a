/* Passage — rendering DOT to SVG with Debian's Graphviz (`dot -Tsvg`, found
 * on PATH): the DOT goes to a temporary file (no pipe into the child, so no
 * SIGPIPE if it exits early), stdout and stderr come back through pipes read
 * together with poll() until both close or the time runs out. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "report/report_internal.h"

extern char **environ;

static psg_status write_temp(psg_ctx *ctx, const char *text, char *path, size_t cap) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, cap, "%s/passage-graph-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot create a temporary file %s: %s", path, strerror(errno));
  size_t len = strlen(text), off = 0;
  while (off < len) {
    ssize_t w = write(fd, text + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int e = errno;
      close(fd);
      unlink(path);
      return psg_ctx_fail(ctx, PSG_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    off += (size_t)w;
  }
  close(fd);
  return PSG_OK;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reads both pipes to their end (or the deadline): false on timeout. */
static bool drain(int out_fd, int err_fd, psgi_buf *out, psgi_buf *err, int timeout_ms) {
  double deadline = now_ms() + timeout_ms;
  struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  psgi_buf *bufs[2] = {out, err};
  int open_fds = 2;
  char chunk[65536];
  while (open_fds) {
    double left = deadline - now_ms();
    if (left <= 0) return false;
    int r = poll(fds, 2, (int)left + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        open_fds--;
      } else {
        psgi_buf_append(bufs[i], chunk, (size_t)n);
      }
    }
  }
  return true;
}

psg_status psgi_dot_to_svg(psg_ctx *ctx, const char *dot_text, int timeout_ms, char **svg) {
  *svg = NULL;
  char path[4096];
  psg_status st = write_temp(ctx, dot_text, path, sizeof path);
  if (st) return st;
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  psgi_buf out, err;
  psgi_buf_init(&out, ctx);
  psgi_buf_init(&err, ctx);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  pid_t pid = -1;
  if (pipe(out_pipe) || pipe(err_pipe)) {
    st = psg_ctx_fail(ctx, PSG_ERR_IO, "cannot run Graphviz's dot: pipe: %s", strerror(errno));
    goto done;
  }
  /* Our ends must not leak into the child (it would never see EOF). */
  for (int i = 0; i < 2; i++) fcntl(out_pipe[i], F_SETFD, FD_CLOEXEC), fcntl(err_pipe[i], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  char *argv[] = {"dot", "-Tsvg", path, NULL};
  int e = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
  close(out_pipe[1]), out_pipe[1] = -1;
  close(err_pipe[1]), err_pipe[1] = -1;
  if (e) {
    pid = -1;
    st = e == ENOENT ? psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND,
                                    "Graphviz's dot program was not found on PATH; the report's graph pictures need it "
                                    "(Debian: apt-get install graphviz)")
                     : psg_ctx_fail(ctx, PSG_ERR_IO, "cannot run Graphviz's dot: %s", strerror(e));
    goto done;
  }
  bool finished = drain(out_pipe[0], err_pipe[0], &out, &err, timeout_ms);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    st = psg_ctx_fail(ctx, PSG_ERR_IO, "Graphviz's dot took longer than %d ms and was stopped", timeout_ms);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    st = psg_ctx_fail(ctx, PSG_ERR_IO, "Graphviz's dot failed (%s %d): %.300s",
                      WIFEXITED(status) ? "exit status" : "signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), err.data ? err.data : "");
  } else if (out.failed || err.failed) {
    st = psgi_nomem(ctx);
  } else {
    const char *start = out.data ? strstr(out.data, "<svg") : NULL;
    if (!start) {
      st = psg_ctx_fail(ctx, PSG_ERR_IO, "Graphviz's dot wrote no <svg> element");
    } else {
      size_t n = out.len - (size_t)(start - out.data);
      *svg = psgi_alloc(ctx, n + 1);
      if (!*svg) {
        st = psgi_nomem(ctx);
      } else {
        memcpy(*svg, start, n);
        (*svg)[n] = 0;
      }
    }
  }
done:
  posix_spawn_file_actions_destroy(&fa);
  for (int i = 0; i < 2; i++) {
    if (out_pipe[i] >= 0) close(out_pipe[i]);
    if (err_pipe[i] >= 0) close(err_pipe[i]);
  }
  psgi_buf_fini(&out);
  psgi_buf_fini(&err);
  unlink(path);
  return st;
}
