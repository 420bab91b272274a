/* Unit tests for src/support: hash map (pointer and string keys, insertion
 * order, growth), string builder, arena, interning, diagnostics rendering,
 * and the allocator hook under injected failures. */
#include "check.h"
#include "support/ctx_internal.h"

static void test_map_ptr_keys(void) {
  psg_ctx *ctx = check_ctx();
  psgi_map m;
  psgi_map_init(&m, ctx);
  enum { N = 100000 };
  static int keys[N];
  for (int i = 0; i < N; i++) {
    bool is_new;
    psgi_map_entry *e = psgi_map_put_ptr(&m, &keys[i], &is_new);
    CHECK(e && is_new);
    if (e) e->value = (void *)(intptr_t)(i + 1);
  }
  CHECK_EQ_INT(m.len, N);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    psgi_map_entry *e = psgi_map_get_ptr(&m, &keys[i]);
    if (!e || e->value != (void *)(intptr_t)(i + 1)) bad++;
    if (m.entries[i].key != &keys[i]) bad++; /* insertion order */
  }
  CHECK_EQ_INT(bad, 0);
  bool is_new = true;
  psgi_map_put_ptr(&m, &keys[7], &is_new);
  CHECK(!is_new);
  CHECK(psgi_map_get_ptr(&m, &m) == NULL);
  psgi_map_fini(&m);
  CHECK_CTX_CLEAN(ctx);
}

/* psgi_hash_bytes reads words: the same bytes hash the same at any
 * alignment, and a one-bit change anywhere (head, 32-byte blocks, 8- and
 * 4-byte words, last bytes) changes the hash, for every length up to 200. */
static void test_hash_bytes(void) {
  static unsigned char buf[256], moved[264];
  for (int i = 0; i < 256; i++) buf[i] = (unsigned char)(i * 37 + 11);
  int bad = 0;
  for (size_t n = 0; n <= 200; n++) {
    uint64_t h = psgi_hash_bytes(buf, n);
    for (size_t off = 1; off < 8; off++) {
      memcpy(moved + off, buf, n);
      if (psgi_hash_bytes(moved + off, n) != h) bad++;
    }
    for (size_t i = 0; i < n; i++) {
      buf[i] ^= 1;
      if (psgi_hash_bytes(buf, n) == h) bad++;
      buf[i] ^= 1;
    }
    if (n && psgi_hash_bytes(buf, n - 1) == h) bad++; /* the length counts */
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_map_str_keys(void) {
  psg_ctx *ctx = check_ctx();
  psgi_map m;
  psgi_map_init(&m, ctx);
  const char *words[] = {"", "a", "ab", "abc", "b", "conv2d", "nn.conv2d"};
  size_t n = sizeof words / sizeof *words;
  for (size_t i = 0; i < n; i++) {
    psgi_map_entry *e = psgi_map_put_str(&m, words[i], strlen(words[i]), NULL);
    CHECK(e != NULL);
    if (e) e->value = (void *)words[i];
  }
  for (size_t i = 0; i < n; i++) {
    char copy[32];
    strcpy(copy, words[i]);
    psgi_map_entry *e = psgi_map_get_str(&m, copy, strlen(copy));
    CHECK(e && e->value == words[i]);
  }
  CHECK(psgi_map_get_str(&m, "abcd", 4) == NULL);
  CHECK(psgi_map_get_str(&m, "abcd", 3) != NULL); /* "abc" */
  psgi_map_fini(&m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_buf_and_arena(void) {
  psg_ctx *ctx = check_ctx();
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  for (int i = 0; i < 1000; i++) psgi_buf_printf(&b, "%d,", i);
  CHECK(!b.failed);
  CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
  size_t len;
  char *s = psgi_buf_detach_libc(&b, &len);
  CHECK(s && strlen(s) == len && len > 3000);
  psg_free(s);
  psgi_arena a;
  psgi_arena_init(&a, ctx);
  char *prev = NULL;
  for (int i = 0; i < 10000; i++) {
    char *p = psgi_arena_alloc(&a, (size_t)(i % 100) + 1);
    CHECK(p && ((uintptr_t)p & 15) == 0);
    if (p) memset(p, 1, (size_t)(i % 100) + 1);
    prev = p;
  }
  CHECK(prev != NULL);
  CHECK(psgi_arena_alloc(&a, 1 << 20) != NULL); /* larger than a block */
  psgi_arena_fini(&a);
  CHECK_CTX_CLEAN(ctx);
}

static void test_intern(void) {
  psg_ctx *ctx = check_ctx();
  char x[] = "conv", y[] = "conv";
  const char *a = psgi_intern(ctx, x, 4), *b = psgi_intern(ctx, y, 4);
  CHECK(a && a == b && a != x);
  CHECK(psgi_intern(ctx, "conv2d", 4) == a); /* length-bounded */
  CHECK(psgi_intern(ctx, "", 0) != NULL);
  /* psgi_intern_again: the same interned copy, and an interned string back as it is */
  char z[] = "conv";
  CHECK(psgi_intern_again(ctx, z) == a);
  CHECK(psgi_intern_again(ctx, a) == a);
  char w[] = "relu";
  const char *r = psgi_intern_again(ctx, w);
  CHECK(r && r != w && !strcmp(r, "relu") && psgi_intern(ctx, "relu", 4) == r && psgi_intern_again(ctx, r) == r);
  CHECK_CTX_CLEAN(ctx);
}

/* Checked shape arithmetic (issue 14): exact results or false, never a
 * wrapped value; the size rule of tensor types and tensors. */
static void test_checked_shape_arithmetic(void) {
  int64_t r = 7;
  CHECK(psgi_checked_mul(3, 4, &r) && r == 12);
  CHECK(psgi_checked_mul(-3, 4, &r) && r == -12);
  CHECK(psgi_checked_mul(INT64_MAX, 1, &r) && r == INT64_MAX);
  r = 7;
  CHECK(!psgi_checked_mul(4, INT64_C(4611686018427387905), &r) && r == 7); /* wraps to 4 unchecked */
  CHECK(!psgi_checked_mul(INT64_C(3037000500), INT64_C(3037000500), &r));
  CHECK(!psgi_checked_mul(INT64_MIN, -1, &r));
  CHECK(psgi_checked_add(INT64_MAX - 1, 1, &r) && r == INT64_MAX);
  CHECK(!psgi_checked_add(INT64_MAX, 1, &r) && r == INT64_MAX);
  CHECK(!psgi_checked_add(INT64_MIN, -1, &r));
  /* The rule: known non-zero dims times the dtype size fit in int64. */
  int64_t fits[] = {INT64_C(1) << 30, INT64_C(1) << 30, 1 << 1}; /* 2^61 float32 elements: 2^63 bytes */
  CHECK(psgi_shape_fits(fits, 3, 1));
  CHECK(psgi_shape_fits(fits, 3, 2));
  CHECK(!psgi_shape_fits(fits, 3, 4));
  int64_t tera[] = {INT64_C(1000000000000), INT64_C(1000000000000), INT64_C(1000000000000)};
  CHECK(!psgi_shape_fits(tera, 3, 1));
  CHECK(psgi_shape_fits(tera, 1, 4));
  int64_t unknown[] = {PSG_DIM_UNKNOWN, INT64_C(1) << 40, PSG_DIM_UNKNOWN};
  CHECK(psgi_shape_fits(unknown, 3, 8));
  int64_t zero[] = {0, INT64_MAX};
  CHECK(psgi_shape_fits(zero, 2, 1));
  CHECK(!psgi_shape_fits(zero, 2, 2));
  CHECK(psgi_shape_fits(NULL, 0, 8));
  /* The public constructors follow the rule. */
  psg_ctx *ctx = check_ctx();
  const psg_type *t = NULL;
  CHECK(psg_type_tensor(ctx, tera, 3, PSG_DTYPE_FLOAT32, &t) == PSG_ERR_INVALID_ARGUMENT && !t);
  CHECK(psg_type_tensor(ctx, fits, 3, PSG_DTYPE_FLOAT32, &t) == PSG_ERR_INVALID_ARGUMENT);
  CHECK(psg_type_tensor(ctx, fits, 3, PSG_DTYPE_INT16, &t) == PSG_OK && t);
  CHECK(psg_type_tensor(ctx, unknown, 3, PSG_DTYPE_FLOAT64, &t) == PSG_OK && t);
  psg_tensor *x = NULL;
  CHECK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, tera, 3, NULL, &x) == PSG_ERR_INVALID_ARGUMENT && !x);
  int64_t empty[] = {INT64_C(1) << 62, 4, 0}; /* no elements, but 2^64 of them without the 0 */
  CHECK(psg_tensor_create(ctx, PSG_DTYPE_INT8, empty, 3, NULL, &x) == PSG_ERR_INVALID_ARGUMENT && !x);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

static void test_diagnostics(void) {
  psg_ctx *ctx = check_ctx();
  const char *line = "  %0 = add(%x, %y;";
  psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_PARSE, "m.relay", 3, 18, line, strlen(line), NULL,
                "expected ')' after call arguments");
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 1);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d != NULL);
  if (d) {
    CHECK_STR(psg_diag_message(d), "expected ')' after call arguments");
    CHECK_EQ_INT(psg_diag_line(d), 3);
    CHECK_EQ_INT(psg_diag_col(d), 18);
    CHECK_STR(psg_diag_rendered(d), "m.relay:3:18: error: expected ')' after call arguments\n"
                                    "    %0 = add(%x, %y;\n"
                                    "                   ^\n");
  }
  CHECK_EQ_INT(psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "pass %s broke", "X"), PSG_ERR_PASS_FAILED);
  psgi_diag_note(ctx, "in pass '%s'", "X");
  d = psg_ctx_get_last_error(ctx);
  CHECK_STR(psg_diag_rendered(d), "error: pass X broke\n  note: in pass 'X'\n");
  /* The same note again right after (a pass naming itself, then the runner
   * naming it) is kept once; a different one is added, and so is the first
   * again once another note came between. */
  psgi_diag_note(ctx, "in pass '%s'", "X");
  psgi_diag_note(ctx, "in pass '%s'", "Y");
  psgi_diag_note(ctx, "in pass '%s'", "X");
  CHECK_STR(psg_diag_rendered(d), "error: pass X broke\n  note: in pass 'X'\n  note: in pass 'Y'\n  note: in pass 'X'\n");
  psg_ctx_clear_diags(ctx);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), 0);
  CHECK(psg_ctx_get_last_error(ctx) == NULL);
  CHECK_STR(psg_status_str(PSG_ERR_NOMEM), "out of memory");
  CHECK_CTX_CLEAN(ctx);
}

static int sink_calls;
static void count_sink(void *user, const psg_diag *d) {
  (void)d;
  (*(int *)user)++;
}

static void test_sink(void) {
  psg_ctx *ctx = check_ctx();
  psg_ctx_set_diag_sink(ctx, count_sink, &sink_calls);
  psg_ctx_fail(ctx, PSG_ERR_IO, "a");
  psg_ctx_fail(ctx, PSG_ERR_IO, "b");
  CHECK_EQ_INT(sink_calls, 2);
  CHECK_CTX_CLEAN(ctx);
}

/* Fails every allocation in turn while building a map: each run must end in
 * a clean failure or success, and nothing may leak (LeakSanitizer). */
/* psgi_map_reserve: a map reserved for n entries takes n without moving its
 * slot table or entry array; reserving more on a filled map keeps every
 * entry, in order; reserving less changes nothing. */
static void test_map_reserve(void) {
  psg_ctx *ctx = check_ctx();
  psgi_map m;
  psgi_map_init(&m, ctx);
  enum { N = 1000 };
  static int keys[4 * N];
  CHECK(psgi_map_reserve(&m, N));
  CHECK(m.nslots >= 2 * N && m.cap >= N);
  const uint64_t *slots = m.slots;
  const psgi_map_entry *entries = m.entries;
  for (int i = 0; i < N; i++) {
    bool is_new = false;
    psgi_map_entry *e = psgi_map_put_ptr(&m, &keys[i], &is_new);
    CHECK(e && is_new);
    if (e) e->value = (void *)(intptr_t)(i + 1);
  }
  CHECK(m.slots == slots && m.entries == entries); /* no regrowth */
  size_t nslots = m.nslots;
  CHECK(psgi_map_reserve(&m, 10));
  CHECK(m.nslots == nslots && m.slots == slots);
  CHECK(psgi_map_reserve(&m, 4 * N));
  CHECK(m.nslots >= 8 * N && m.cap >= 4 * N);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    psgi_map_entry *e = psgi_map_get_ptr(&m, &keys[i]);
    if (!e || e->value != (void *)(intptr_t)(i + 1) || m.entries[i].key != &keys[i]) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  slots = m.slots;
  for (int i = N; i < 4 * N; i++) CHECK(psgi_map_put_ptr(&m, &keys[i], NULL) != NULL);
  CHECK(m.slots == slots && m.len == 4 * N);
  psgi_map_fini(&m);
  CHECK_CTX_CLEAN(ctx);
}

static void test_oom_map(void) {
  for (long n = 1; n < 40; n++) {
    check_alloc a = {0, n};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue; /* the context itself failed: fine */
    psgi_map m;
    psgi_map_init(&m, ctx);
    static int keys[100];
    bool ok = true;
    for (int i = 0; i < 100 && ok; i++) ok = psgi_map_put_ptr(&m, &keys[i], NULL) != NULL;
    CHECK(ok || psg_ctx_is_oom(ctx));
    psgi_map_fini(&m);
    psg_ctx_release(ctx);
  }
}

int main(void) {
  RUN_TEST(test_map_ptr_keys);
  RUN_TEST(test_map_str_keys);
  RUN_TEST(test_buf_and_arena);
  RUN_TEST(test_intern);
  RUN_TEST(test_hash_bytes);
  RUN_TEST(test_diagnostics);
  RUN_TEST(test_checked_shape_arithmetic);
  RUN_TEST(test_sink);
  RUN_TEST(test_map_reserve);
  RUN_TEST(test_oom_map);
  return check_finish();
}
