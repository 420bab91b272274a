/* Passage — a bounded unified line diff for the run report (Myers 1986,
 * "An O(ND) Difference Algorithm"): the common prefix and suffix are cut
 * first, the middle is diffed with the greedy forward search, keeping each
 * step's furthest-reaching points to walk the edit script back. Memory is
 * O(D^2) in the number of edits D, so D is capped; past the cap the middle is
 * shown as removed-then-added (a correct but not minimal diff). */
#include <string.h>
#include "report/report_internal.h"

typedef struct line {
  const char *s;
  size_t n;
  uint64_t h;
} line;

typedef struct lines {
  line *v;
  size_t n;
} lines;

/* An edit script entry: ' ' both, '-' only in a, '+' only in b; ai/bi are
 * the positions in a and b where it happens. */
typedef struct op {
  char kind;
  size_t ai, bi;
} op;

/* Relay's text numbers its bindings (%0, %1, ...): one binding added or
 * removed renumbers every line after it. Lines are matched with the digits
 * after a '%' left out, so a diff shows the bindings that really changed;
 * a matched line is shown as it reads after the change. */
static uint64_t hash_masked(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    if (s[i] == '%')
      while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') i++;
  }
  return h;
}

static bool equal_masked(const char *a, size_t na, const char *b, size_t nb) {
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i] != b[j]) return false;
    bool pct = a[i] == '%';
    i++, j++;
    if (pct) {
      while (i < na && a[i] >= '0' && a[i] <= '9') i++;
      while (j < nb && b[j] >= '0' && b[j] <= '9') j++;
    }
  }
  return i == na && j == nb;
}

static psg_status split(psg_ctx *ctx, const char *t, size_t len, lines *out) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (t[i] == '\n') n++;
  if (len && t[len - 1] != '\n') n++;
  out->n = n;
  out->v = psgi_alloc(ctx, (n ? n : 1) * sizeof *out->v);
  if (!out->v) return psgi_nomem(ctx);
  size_t k = 0, start = 0;
  for (size_t i = 0; i <= len && k < n; i++) {
    if (i == len || t[i] == '\n') {
      out->v[k] = (line){t + start, i - start, hash_masked(t + start, i - start)};
      k++;
      start = i + 1;
    }
  }
  return PSG_OK;
}

static bool same(const line *x, const line *y) { return x->h == y->h && equal_masked(x->s, x->n, y->s, y->n); }

/* Myers over a[0..n) and b[0..m): appends the ops (offset by `off`) to
 * `ops` in order; false when more than max_d edits are needed. */
static bool myers(psg_ctx *ctx, const line *a, size_t n, const line *b, size_t m, size_t max_d, size_t off_a,
                  size_t off_b, op *ops, size_t *nops, bool *nomem) {
  size_t limit = n + m < max_d ? n + m : max_d;
  ptrdiff_t width = (ptrdiff_t)limit + 1;
  /* trace[d] holds V after step d for k in [-d, d] at trace[d*d + k + d]. */
  ptrdiff_t *v = psgi_alloc(ctx, (size_t)(2 * width + 1) * sizeof *v);
  ptrdiff_t *trace = psgi_alloc(ctx, (size_t)(width * width) * sizeof *trace);
  if (!v || !trace) {
    psgi_free(ctx, v);
    psgi_free(ctx, trace);
    *nomem = true;
    return false;
  }
  ptrdiff_t *V = v + width; /* V[k] for k in [-width, width] */
  V[1] = 0;
  ptrdiff_t N = (ptrdiff_t)n, M = (ptrdiff_t)m, found = -1;
  /* Line comparisons allowed: each diagonal's snakes advance at most N in
   * all, so the worst case is O(N * max_d); past this the diff gives up as
   * if it needed too many edits. */
  size_t work = 0, budget = (size_t)64 << 20;
  for (ptrdiff_t d = 0; d <= (ptrdiff_t)limit && found < 0 && work < budget; d++) {
    for (ptrdiff_t k = -d; k <= d; k += 2) {
      ptrdiff_t x = (k == -d || (k != d && V[k - 1] < V[k + 1])) ? V[k + 1] : V[k - 1] + 1;
      ptrdiff_t y = x - k, x0 = x;
      while (x < N && y < M && same(&a[x], &b[y])) x++, y++;
      work += (size_t)(x - x0) + 1;
      V[k] = x;
      if (x >= N && y >= M) found = d;
    }
    memcpy(&trace[d * d], &V[-d], (size_t)(2 * d + 1) * sizeof *trace);
  }
  if (found < 0) {
    psgi_free(ctx, v);
    psgi_free(ctx, trace);
    return false;
  }
  /* Walk back from (N, M), writing the ops from the end of their slot. */
  size_t total = (size_t)found + (n + m - (size_t)found) / 2; /* edits + diagonal moves */
  size_t w = total;
  ptrdiff_t x = N, y = M;
  for (ptrdiff_t d = found; d > 0; d--) {
    const ptrdiff_t *P = &trace[(d - 1) * (d - 1) + (d - 1)]; /* V after step d-1, index by k */
    ptrdiff_t k = x - y;
    ptrdiff_t pk = (k == -d || (k != d && P[k - 1] < P[k + 1])) ? k + 1 : k - 1;
    ptrdiff_t px = P[pk], py = px - pk;
    ptrdiff_t mx = pk == k + 1 ? px : px + 1; /* after the edit, before the snake */
    while (x > mx) x--, y--, ops[--w] = (op){' ', off_a + (size_t)x, off_b + (size_t)y};
    if (pk == k + 1) ops[--w] = (op){'+', off_a + (size_t)px, off_b + (size_t)py};
    else ops[--w] = (op){'-', off_a + (size_t)px, off_b + (size_t)py};
    x = px, y = py;
  }
  while (x > 0) x--, y--, ops[--w] = (op){' ', off_a + (size_t)x, off_b + (size_t)y};
  /* w == 0 here: the slot was exactly the script's length. */
  *nops += total;
  psgi_free(ctx, v);
  psgi_free(ctx, trace);
  return true;
}

/* Unified hunks with `ctx_lines` of context around each change. */
static void emit(psgi_buf *b, const lines *A, const lines *B, const op *ops, size_t nops, size_t max_lines,
                 psgi_diff *out) {
  enum { CTX = 3 };
  size_t shown = 0, i = 0;
  while (i < nops) {
    while (i < nops && ops[i].kind == ' ') i++;
    if (i == nops) break;
    size_t start = i > CTX ? i - CTX : 0, end = i;
    /* Extend over changes separated by at most 2*CTX equal lines. */
    for (size_t j = i; j < nops; j++) {
      if (ops[j].kind != ' ') {
        end = j + 1;
      } else if (j - end >= 2 * CTX) {
        break;
      }
    }
    end = end + CTX < nops ? end + CTX : nops;
    size_t na = 0, nb = 0;
    for (size_t j = start; j < end; j++) na += ops[j].kind != '+', nb += ops[j].kind != '-';
    size_t sa = ops[start].ai, sb = ops[start].bi;
    if (shown < max_lines)
      psgi_buf_printf(b, "@@ -%zu,%zu +%zu,%zu @@\n", na ? sa + 1 : sa, na, nb ? sb + 1 : sb, nb);
    for (size_t j = start; j < end; j++) {
      if (ops[j].kind == '-') out->removed++;
      if (ops[j].kind == '+') out->added++;
      if (shown >= max_lines) {
        out->truncated = true;
        continue;
      }
      const line *l = ops[j].kind == '-' ? &A->v[ops[j].ai] : &B->v[ops[j].bi];
      psgi_buf_putc(b, ops[j].kind);
      psgi_buf_append(b, l->s, l->n);
      psgi_buf_putc(b, '\n');
      shown++;
    }
    i = end;
  }
  if (out->truncated)
    psgi_buf_printf(b, "... diff truncated after %zu lines (%zu lines removed, %zu added in all)\n", max_lines,
                    out->removed, out->added);
}

psg_status psgi_line_diff(psg_ctx *ctx, const char *a, size_t alen, const char *b, size_t blen, size_t max_edits,
                          size_t max_lines, psgi_diff *out) {
  memset(out, 0, sizeof *out);
  out->minimal = true;
  lines A = {0}, B = {0};
  op *ops = NULL;
  psg_status st = split(ctx, a, alen, &A);
  if (!st) st = split(ctx, b, blen, &B);
  if (st) goto done;
  size_t pre = 0, suf = 0;
  while (pre < A.n && pre < B.n && same(&A.v[pre], &B.v[pre])) pre++;
  while (suf < A.n - pre && suf < B.n - pre && same(&A.v[A.n - 1 - suf], &B.v[B.n - 1 - suf])) suf++;
  ops = psgi_alloc(ctx, (A.n + B.n + 1) * sizeof *ops);
  if (!ops) {
    st = psgi_nomem(ctx);
    goto done;
  }
  size_t nops = 0;
  for (size_t i = 0; i < pre; i++) ops[nops++] = (op){' ', i, i};
  size_t ma = A.n - pre - suf, mb = B.n - pre - suf;
  bool nomem = false;
  if (!myers(ctx, A.v + pre, ma, B.v + pre, mb, max_edits, pre, pre, ops + nops, &nops, &nomem)) {
    if (nomem) {
      st = psgi_nomem(ctx);
      goto done;
    }
    out->minimal = false;
    for (size_t i = 0; i < ma; i++) ops[nops++] = (op){'-', pre + i, pre};
    for (size_t i = 0; i < mb; i++) ops[nops++] = (op){'+', pre + ma, pre + i};
  }
  for (size_t i = 0; i < suf; i++) ops[nops++] = (op){' ', A.n - suf + i, B.n - suf + i};
  psgi_buf buf;
  psgi_buf_init(&buf, ctx);
  if (!out->minimal)
    psgi_buf_printf(&buf, "... more than %zu lines changed: the differing part is shown whole, not line by line\n",
                    max_edits);
  emit(&buf, &A, &B, ops, nops, max_lines, out);
  if (buf.failed) {
    psgi_buf_fini(&buf);
    st = psgi_nomem(ctx);
    goto done;
  }
  out->text = buf.data ? buf.data : psgi_calloc(ctx, 1);
  out->len = buf.len;
  if (!out->text) st = psgi_nomem(ctx);
done:
  psgi_free(ctx, A.v);
  psgi_free(ctx, B.v);
  psgi_free(ctx, ops);
  return st;
}

void psgi_diff_fini(psg_ctx *ctx, psgi_diff *d) {
  psgi_free(ctx, d->text);
  memset(d, 0, sizeof *d);
}
